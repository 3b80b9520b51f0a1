/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-artifact-list.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CSV_VIEW (assay_csv_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayCsvView, assay_csv_view, ASSAY, CSV_VIEW, GtkWidget)

/* A CSV or TSV table in a GtkColumnView, read the way the data page reads a dataset: the
 * core's sniffer finds the encoding (UTF-8, UTF-16, Windows-1251, …), the delimiter, the
 * quoting and whether there is a header; AssayRowModel indexes the mapped file in a worker,
 * so rows appear as they are found and a file of any length scrolls without being loaded.
 * "loading" is TRUE while the file is opened and sniffed, "complete" once every row is
 * indexed; a note says how far the reading is. Changing the item or disposing the view
 * cancels it. */
GtkWidget         *assay_csv_view_new            (void);
void               assay_csv_view_set_item       (AssayCsvView      *self,
                                                  AssayArtifactItem *item);
AssayArtifactItem *assay_csv_view_get_item       (AssayCsvView      *self);
gboolean           assay_csv_view_get_loading    (AssayCsvView      *self);
const char        *assay_csv_view_get_error      (AssayCsvView      *self);
gboolean           assay_csv_view_get_complete   (AssayCsvView      *self);
/* Data rows shown (the header not counted) and columns. */
guint              assay_csv_view_get_n_rows     (AssayCsvView      *self);
guint              assay_csv_view_get_n_columns  (AssayCsvView      *self);
/* Data rows indexed so far. */
guint64            assay_csv_view_get_total_rows (AssayCsvView      *self);
/* Whether the reading stopped early (the note says why). */
gboolean           assay_csv_view_get_truncated  (AssayCsvView      *self);
/* The text of a cell ("" past the end of a short row), NULL out of range; valid until the
 * next call. */
const char        *assay_csv_view_get_cell       (AssayCsvView      *self,
                                                  guint              row,
                                                  guint              column);
GtkColumnView     *assay_csv_view_get_column_view (AssayCsvView     *self);

G_END_DECLS
