/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-source-types.h"

G_BEGIN_DECLS

/* What a column of a result becomes in pandas. */
typedef enum
{
  ASSAY_COLUMN_INT64,         /* Int64 (nullable) */
  ASSAY_COLUMN_UINT64,        /* UInt64 (nullable): MySQL's BIGINT UNSIGNED */
  ASSAY_COLUMN_FLOAT64,       /* float64, NULL as NaN */
  ASSAY_COLUMN_BOOL,          /* boolean (nullable) */
  ASSAY_COLUMN_DECIMAL,       /* object: decimal.Decimal, exact (numeric, decimal) */
  ASSAY_COLUMN_DATE,          /* datetime64[ns] at midnight */
  ASSAY_COLUMN_TIMESTAMP,     /* datetime64[ns], no time zone */
  ASSAY_COLUMN_TIMESTAMPTZ,   /* datetime64[ns, UTC] */
  ASSAY_COLUMN_TEXT,          /* object: str */
  ASSAY_COLUMN_BYTES,         /* object: bytes */
  ASSAY_COLUMN_AUTO,          /* SQLite: decided by the values (see the hints) */
} AssayColumnKind;

/* For ASSAY_COLUMN_AUTO: what the declared type suggests; the values decide. */
typedef enum
{
  ASSAY_COLUMN_HINT_NONE,
  ASSAY_COLUMN_HINT_BOOL,     /* integers that are all 0 or 1 become booleans */
  ASSAY_COLUMN_HINT_DATE,     /* text that is all dates becomes dates */
  ASSAY_COLUMN_HINT_TIMESTAMP,
} AssayColumnHint;

/* "Int64", "UInt64", "float64", "boolean", "Decimal", "datetime64[ns]", "datetime64[ns, UTC]",
 * "str", "bytes": what the model is told. */
const char *assay_column_kind_get_dtype (AssayColumnKind kind);
/* "int64", "uint64", "float64", "bool", "decimal", "date", "timestamp", "timestamptz",
 * "text", "bytes": the file's names, which the kernel's loader reads. */
const char *assay_column_kind_to_string (AssayColumnKind kind);

/* A query's result as columns, built a value at a time by the connection's worker and
 * written as one typed file the sandbox's kernel loads (assay_frames.load): fixed-width
 * little-endian arrays for numbers, booleans and times (nanoseconds since 1970, in UTC for
 * time zones), a validity byte per row, text as UTF-8 separated by NULs (or with offsets
 * when a value holds a NUL). Nothing is ever parsed by the sandbox but this file.
 *
 * Values a pandas column cannot hold (dates outside 1677–2262, infinities, text that is no
 * number in a numeric column) become missing and are counted; the description says how
 * many, so nothing is lost silently. */
AssayQueryResult *assay_query_result_new             (void);
void              assay_query_result_free            (AssayQueryResult *self);
guint             assay_query_result_add_column      (AssayQueryResult *self,
                                                      const char       *name,
                                                      AssayColumnKind   kind,
                                                      const char       *db_type);
void              assay_query_result_set_column_hint (AssayQueryResult *self,
                                                      guint             column,
                                                      AssayColumnHint   hint);
/* Booleans that the server sends as small integers (MySQL's TINYINT(1), BIT(1)): an INT64
 * column becomes boolean when every value is 0, 1 or NULL. */
void              assay_query_result_set_maybe_bool  (AssayQueryResult *self,
                                                      guint             column);
guint             assay_query_result_get_n_columns   (AssayQueryResult *self);
const char       *assay_query_result_get_column_name (AssayQueryResult *self,
                                                      guint             column);
AssayColumnKind   assay_query_result_get_column_kind (AssayQueryResult *self,
                                                      guint             column);
const char       *assay_query_result_get_column_type (AssayQueryResult *self,
                                                      guint             column);
void              assay_query_result_set_column_type (AssayQueryResult *self,
                                                      guint             column,
                                                      const char       *db_type);

/* Values of the current row, one per column in order, then end_row. TEXT is the server's
 * text form of the value (LENGTH bytes; -1: NUL-terminated). */
void              assay_query_result_append_null     (AssayQueryResult *self,
                                                      guint             column);
void              assay_query_result_append_text     (AssayQueryResult *self,
                                                      guint             column,
                                                      const char       *text,
                                                      gssize            length);
void              assay_query_result_append_int      (AssayQueryResult *self,
                                                      guint             column,
                                                      gint64            value);
void              assay_query_result_append_double   (AssayQueryResult *self,
                                                      guint             column,
                                                      double            value);
void              assay_query_result_append_bytes    (AssayQueryResult *self,
                                                      guint             column,
                                                      const void       *data,
                                                      gsize             length);
/* FALSE with ERROR (ASSAY_SOURCE_ERROR_TOO_LARGE) once LIMITS' rows or bytes are passed. */
gboolean          assay_query_result_end_row         (AssayQueryResult       *self,
                                                      const AssayQueryLimits *limits,
                                                      GError                **error);
/* Settles the AUTO columns and the maybe-booleans; call once, after the last row. */
void              assay_query_result_finish          (AssayQueryResult *self);

guint64           assay_query_result_get_n_rows      (AssayQueryResult *self);
/* What the result takes in memory (and about what the file takes). */
guint64           assay_query_result_get_n_bytes     (AssayQueryResult *self);
/* The column's missing values (NULL, and those counted below). */
guint64           assay_query_result_get_n_nulls     (AssayQueryResult *self,
                                                      guint             column);
/* The values that became missing because pandas cannot hold them (see above). */
guint64           assay_query_result_get_n_lost      (AssayQueryResult *self,
                                                      guint             column);
/* The value at ROW of a TEXT or DECIMAL column (NULL when missing), for the tests and for the
 * schema's sample values. */
char             *assay_query_result_dup_text        (AssayQueryResult *self,
                                                      guint             column,
                                                      guint64           row);

/* Writes the file (a temporary name, then renamed; readable by everyone, since the sandbox's
 * user reads it). */
gboolean          assay_query_result_write           (AssayQueryResult  *self,
                                                      const char        *path,
                                                      GError           **error);
/* [{"name", "type" (the server's), "dtype"}]. */
JsonArray        *assay_query_result_columns_to_json (AssayQueryResult *self);
/* The columns for the model, one a line: "- amount: Decimal (numeric(20,4)), 3 missing". */
char             *assay_query_result_describe_columns (AssayQueryResult *self);

/* The Python that loads PATH (as the sandbox sees it) into NAME and prints its shape and
 * first rows. */
char             *assay_query_result_loader_code     (const char *name,
                                                      const char *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayQueryResult, assay_query_result_free)

G_END_DECLS
