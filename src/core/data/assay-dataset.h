/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "assay-csv-dialect.h"
#include "assay-source-types.h"

G_BEGIN_DECLS

/* Wider tables are refused with a reason (G_IO_ERROR_NOT_SUPPORTED): each column is profiled. */
#define ASSAY_DATASET_MAX_COLUMNS 10000

#define ASSAY_TYPE_DATASET (assay_dataset_get_type ())

G_DECLARE_FINAL_TYPE (AssayDataset, assay_dataset, ASSAY, DATASET, GObject)

/* A file the analyst dropped: its dialect, schema and per-column profile, read in C before
 * the model sees it. Delimited text is profiled in one pass over the mapped bytes; an Excel
 * workbook (.xlsx) only has its sheets listed. */
AssayDataset *assay_dataset_open              (const char           *path,
                                               GCancellable         *cancellable,
                                               GError              **error);
void          assay_dataset_open_async        (const char           *path,
                                               GCancellable         *cancellable,
                                               GAsyncReadyCallback   callback,
                                               gpointer              user_data);
AssayDataset *assay_dataset_open_finish       (GAsyncResult         *result,
                                               GError              **error);

/* The same, keeping what the analyst corrected in OVERRIDE (see
 * assay_csv_dialect_init_override (); NULL: all sniffed). The async variant copies OVERRIDE
 * and is finished by assay_dataset_open_finish (). */
AssayDataset *assay_dataset_open_with_dialect (const char            *path,
                                               const AssayCsvDialect *override,
                                               GCancellable          *cancellable,
                                               GError               **error);
void          assay_dataset_open_with_dialect_async (const char            *path,
                                                     const AssayCsvDialect *override,
                                                     GCancellable          *cancellable,
                                                     GAsyncReadyCallback    callback,
                                                     gpointer               user_data);

const char   *assay_dataset_get_path          (AssayDataset         *self);
gboolean      assay_dataset_is_workbook       (AssayDataset         *self);
/* An SQLite database (recognised by its header): its tables and views are its schema, its
 * columns are named "table.column", its rows are the tables' rows summed. */
gboolean      assay_dataset_is_database       (AssayDataset         *self);
/* The database's schema (owned by the dataset), or NULL for a table or a workbook. */
AssaySourceSchema *assay_dataset_get_schema   (AssayDataset         *self);
/* The Python call that opens the database read-only in the sandbox (sqlite3.connect(…)). */
const char   *assay_dataset_get_connect_call  (AssayDataset         *self);
/* The index of TABLE's COLUMN of a database, or -1. */
int           assay_dataset_find_table_column (AssayDataset         *self,
                                               const char           *table,
                                               const char           *column);
/* The table a masked column's dataset names ("DATASET_NAME.TABLE", as for connections), or
 * NULL when MASK_NAME names none of this database's tables. */
const char   *assay_dataset_get_mask_table    (AssayDataset         *self,
                                               const char           *dataset_name,
                                               const char           *mask_name);
/* NULL for a workbook or a database. */
const AssayCsvDialect *assay_dataset_get_dialect (AssayDataset      *self);
guint64       assay_dataset_get_n_rows        (AssayDataset         *self);
guint         assay_dataset_get_n_columns     (AssayDataset         *self);
/* The pandas call that reads the file in the sandbox, where it is /data/<basename> (for a
 * database, pd.read_sql of its first table over the connection of the connect call). */
const char   *assay_dataset_get_read_call     (AssayDataset         *self);
/* Warnings in plain words (sanitised). */
GPtrArray    *assay_dataset_get_warnings      (AssayDataset         *self);

/* Column names as pandas will see them, NULL-terminated (empty for a workbook). */
const char * const *assay_dataset_get_column_names (AssayDataset    *self);
/* The index of the column NAME, or -1. */
int           assay_dataset_find_column       (AssayDataset         *self,
                                               const char           *name);
/* Calls FUNC with each row's text of COLUMN (decoded, not NUL-terminated; rows too short
 * for it are skipped), in the file's order, until FUNC returns FALSE. Not for a workbook. */
typedef gboolean (*AssayDatasetValueFunc) (const char *value,
                                           gsize       length,
                                           gpointer    user_data);
gboolean      assay_dataset_foreach_value     (AssayDataset          *self,
                                               guint                  column,
                                               AssayDatasetValueFunc  func,
                                               gpointer               user_data,
                                               GCancellable          *cancellable,
                                               GError               **error);
/* One column's profile as in the inspect object (type, nulls, distinct, distinct_exact, min,
 * max, mean, top, histogram, name), or NULL past the last column. Free with
 * json_object_unref (). */
JsonObject   *assay_dataset_get_column_json   (AssayDataset         *self,
                                               guint                 column);

/* What the summary for the model shows of a value of COLUMN (its samples, its most frequent
 * values): a new string in place of the value, or NULL for the value itself. */
typedef char *(*AssayDatasetMaskFunc) (const char *column,
                                       const char *value,
                                       gpointer    user_data);
/* Values of the summaries for the model go through FUNC before they are cut and their line
 * breaks made spaces (masked values are found whole). */
void          assay_dataset_set_mask_func     (AssayDataset         *self,
                                               AssayDatasetMaskFunc  func,
                                               gpointer              user_data,
                                               GDestroyNotify        destroy);

/* The `assay-cli inspect --json` object. */
JsonObject   *assay_dataset_to_json           (AssayDataset         *self);
/* A compact summary for the model, at most MAX_CHARS bytes. */
char         *assay_dataset_describe_for_model (AssayDataset        *self,
                                                gsize                max_chars);
/* What the model's prompt says about one of N_DATASETS files: DATASET's summary within its
 * share of the prompt's budget for datasets, or, when the file could not be read (DATASET
 * NULL), the reason from ERROR, so that the model does not guess. */
char         *assay_dataset_describe_for_prompt (AssayDataset       *dataset,
                                                 const GError       *error,
                                                 guint               n_datasets);
/* The same in schema-only mode: the file, how to read it, its rows and each column's name and
 * type; no value, no statistic of the values, no warning (warnings quote values). */
char         *assay_dataset_describe_schema_for_prompt (AssayDataset *dataset,
                                                        const GError *error,
                                                        guint         n_datasets);
/* The human summary printed by `assay-cli inspect`. */
char         *assay_dataset_describe_for_human (AssayDataset        *self);

G_END_DECLS
