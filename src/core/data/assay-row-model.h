/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-csv-index.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_ROW (assay_row_get_type ())

G_DECLARE_FINAL_TYPE (AssayRow, assay_row, ASSAY, ROW, GObject)

/* One data row of an AssayCsvIndex: its position, and its fields read on first use. */
guint64             assay_row_get_index    (AssayRow *self);
guint               assay_row_get_n_fields (AssayRow *self);
/* Field COLUMN as sanitised UTF-8; "" past the row's last field. */
const char         *assay_row_get_field    (AssayRow *self,
                                            guint     column);
/* How many AssayRow objects are alive in the process (a debugging counter for tests and
 * benchmarks: scrolling a million rows must not make a million rows). */
guint               assay_row_get_n_alive  (void);

#define ASSAY_TYPE_ROW_MODEL (assay_row_model_get_type ())

G_DECLARE_FINAL_TYPE (AssayRowModel, assay_row_model, ASSAY, ROW_MODEL, GObject)

/* A GListModel of AssayRow over INDEX. Items are made on demand, and the last few hundred
 * asked for are kept (an LRU cache), so the model never holds a row per line. Their fields are
 * read 32 rows at a time, in one pass over the file, so showing any window of rows costs in
 * proportion to the rows shown. When INDEX is
 * not complete the model builds it in a worker thread; n_items grows as rows are indexed and
 * items-changed is emitted in batches (at most every 100 ms), never per row. */
AssayRowModel      *assay_row_model_new             (AssayCsvIndex *index);
AssayCsvIndex      *assay_row_model_get_index       (AssayRowModel *self);
/* Progress of the indexing in [0,1]; 1 once complete. Notified with each batch. */
double              assay_row_model_get_progress    (AssayRowModel *self);
gboolean            assay_row_model_is_complete     (AssayRowModel *self);
/* Why indexing stopped early, or NULL. */
const GError       *assay_row_model_get_error       (AssayRowModel *self);
/* How many times items-changed was emitted. */
guint               assay_row_model_get_n_batches   (AssayRowModel *self);

G_END_DECLS
