/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-csv-dialect.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CSV_INDEX (assay_csv_index_get_type ())

G_DECLARE_FINAL_TYPE (AssayCsvIndex, assay_csv_index, ASSAY, CSV_INDEX, GObject)

/* Row offsets over a memory-mapped delimited file, built in a worker thread. Rows already
 * indexed can be read at once while the rest is still being indexed, so any window of a
 * 1 GB file can be shown immediately. Memory: one offset per 32 rows. */
AssayCsvIndex         *assay_csv_index_new              (const char           *path,
                                                         GError              **error);
/* The same, keeping what the analyst corrected in OVERRIDE (see assay_csv_dialect_init_override ();
 * NULL: all sniffed). */
AssayCsvIndex         *assay_csv_index_new_with_dialect (const char            *path,
                                                         const AssayCsvDialect *override,
                                                         GError               **error);
/* The same over FD, an open regular file (not closed here; it may be closed once this
 * returns), for a file opened safely below a folder; PATH names it in messages. */
AssayCsvIndex         *assay_csv_index_new_for_fd       (int                     fd,
                                                         const char             *path,
                                                         const AssayCsvDialect  *override,
                                                         GError                **error);
const AssayCsvDialect *assay_csv_index_get_dialect      (AssayCsvIndex        *self);
const char            *assay_csv_index_get_path         (AssayCsvIndex        *self);
guint                  assay_csv_index_get_n_columns    (AssayCsvIndex        *self);
/* Column names (sanitised), generated as column_1… when the file has no header. */
const char * const    *assay_csv_index_get_column_names (AssayCsvIndex        *self);

void                   assay_csv_index_build_async      (AssayCsvIndex        *self,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
gboolean               assay_csv_index_build_finish     (AssayCsvIndex        *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);
/* Builds the whole index in the calling thread. */
gboolean               assay_csv_index_build            (AssayCsvIndex        *self,
                                                         GCancellable         *cancellable,
                                                         GError              **error);

/* Safe from any thread while indexing runs. */
guint64                assay_csv_index_get_n_rows_indexed (AssayCsvIndex      *self);
gboolean               assay_csv_index_is_complete      (AssayCsvIndex        *self);
/* The fraction of the file indexed so far, in [0,1]. */
double                 assay_csv_index_get_progress     (AssayCsvIndex        *self);

/* The fields of data row ROW (0 is the first row after the header) as sanitised UTF-8, or
 * NULL when that row is not indexed (yet). */
GStrv                  assay_csv_index_get_row          (AssayCsvIndex        *self,
                                                         guint64               row);
/* The fields of data rows FIRST, FIRST+1, … (at most N, fewer where the indexed rows end) read
 * in one pass over the file: a GPtrArray of GStrv, or NULL when FIRST is not indexed (yet).
 * Cheaper than N calls of assay_csv_index_get_row (), which each start from the checkpoint
 * before their row (one every 32 rows). */
GPtrArray             *assay_csv_index_get_rows         (AssayCsvIndex        *self,
                                                         guint64               first,
                                                         guint                 n);

G_END_DECLS
