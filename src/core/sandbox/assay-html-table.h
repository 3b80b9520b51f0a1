/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The first table of a piece of untrusted HTML (a DataFrame's text/html output), as text:
 * rows of cells, entities decoded, white space collapsed. It is not an HTML parser: it
 * reads <table>, <tr>, <th>, <td>, <thead> and ignores every other tag (and the content of
 * <script> and <style>). Sizes are capped; what was cut is flagged. */

#define ASSAY_TABLE_MAX_ROWS      500
#define ASSAY_TABLE_MAX_COLUMNS   60
#define ASSAY_TABLE_MAX_CELL      400   /* bytes of text per cell */

typedef struct
{
  GPtrArray *rows;            /* GPtrArray* of char* (UTF-8), one per cell */
  guint      n_columns;       /* the widest row */
  guint      n_header_rows;   /* the rows of <thead>, else the leading rows made of <th> */
  gboolean   truncated;       /* rows, columns or text were cut */
} AssayTable;

/* NULL when the text holds no table with at least one cell. */
AssayTable *assay_html_table_extract (const char *html,
                                      gsize       length);
void        assay_table_free         (AssayTable *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayTable, assay_table_free)

G_END_DECLS
