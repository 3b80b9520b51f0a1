/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-artifact-list.h"

G_BEGIN_DECLS

/* Rows shown at most; a note says how many there are. */
#define ASSAY_CSV_VIEW_MAX_ROWS 10000
/* What is read of the file at most. */
#define ASSAY_CSV_VIEW_MAX_BYTES (32 * 1024 * 1024)

#define ASSAY_TYPE_CSV_VIEW (assay_csv_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayCsvView, assay_csv_view, ASSAY, CSV_VIEW, GtkWidget)

/* A CSV or TSV table in a GtkColumnView: the first row names the columns, the delimiter
 * (comma, semicolon, tab or bar) is sniffed from it, quoting follows RFC 4180. Parsed in a
 * worker; changing the item or disposing the view cancels it. */
GtkWidget         *assay_csv_view_new            (void);
void               assay_csv_view_set_item       (AssayCsvView      *self,
                                                  AssayArtifactItem *item);
AssayArtifactItem *assay_csv_view_get_item       (AssayCsvView      *self);
gboolean           assay_csv_view_get_loading    (AssayCsvView      *self);
const char        *assay_csv_view_get_error      (AssayCsvView      *self);
/* Data rows shown (the header not counted) and columns. */
guint              assay_csv_view_get_n_rows     (AssayCsvView      *self);
guint              assay_csv_view_get_n_columns  (AssayCsvView      *self);
/* Data rows in what was read; more than shown when capped. */
guint64            assay_csv_view_get_total_rows (AssayCsvView      *self);
gboolean           assay_csv_view_get_truncated  (AssayCsvView      *self);
/* The text of a cell ("" past the end of a short row), NULL out of range. */
const char        *assay_csv_view_get_cell       (AssayCsvView      *self,
                                                  guint              row,
                                                  guint              column);
GtkColumnView     *assay_csv_view_get_column_view (AssayCsvView     *self);

G_END_DECLS
