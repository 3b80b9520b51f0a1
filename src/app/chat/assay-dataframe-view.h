/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-html-table.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_DATAFRAME_VIEW (assay_dataframe_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayDataframeView, assay_dataframe_view, ASSAY, DATAFRAME_VIEW, GtkWidget)

/* A DataFrame a cell showed, as a table in the chat: the cells the core read from its
 * text/html (assay_html_table_extract: the HTML is untrusted and never rendered), header
 * rows in bold, numbers right-aligned in tabular figures, scrolled sideways when wider than
 * the chat (the wheel alone still scrolls the chat), its size over it and "Copy as CSV"
 * (dataframe.copy-csv), which copies every row read. PLAIN is the output's text/plain, whose
 * "[N rows x M columns]" pandas writes for a frame it shows in part. */
GtkWidget *assay_dataframe_view_new        (const AssayTable *table,
                                            const char       *plain);
/* The table as CSV (RFC 4180: fields with commas, quotes or line breaks quoted, lines
 * ending in CRLF), what Copy as CSV puts on the clipboard. */
char      *assay_dataframe_view_dup_csv    (AssayDataframeView *self);
/* The rows shown (at most ASSAY_DATAFRAME_VIEW_MAX_ROWS of the body, and the header). */
guint      assay_dataframe_view_get_n_rows (AssayDataframeView *self);

/* The chat shows this many body rows; Copy as CSV copies all of them. */
#define ASSAY_DATAFRAME_VIEW_MAX_ROWS 100

G_END_DECLS
