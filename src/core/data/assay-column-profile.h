/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-csv-value.h"

G_BEGIN_DECLS

typedef enum
{
  ASSAY_COLUMN_STRING,
  ASSAY_COLUMN_INTEGER,
  ASSAY_COLUMN_FLOAT,
  ASSAY_COLUMN_BOOLEAN,
  ASSAY_COLUMN_DATE,
  ASSAY_COLUMN_DATETIME,
} AssayColumnType;

#define ASSAY_PROFILE_HISTOGRAM_BINS 16
#define ASSAY_PROFILE_TOP_VALUES     5
#define ASSAY_PROFILE_SAMPLES        3

/* Statistics of one column, filled one cell at a time in a single pass. The distinct count
 * is exact up to a bound, then a HyperLogLog estimate. Cells are hashed and classified in
 * place: the profile keeps pointers into the text until assay_column_profile_finish (). */
typedef struct _AssayColumnProfile AssayColumnProfile;

AssayColumnProfile *assay_column_profile_new      (guint                   exact_distinct_bound);
void                assay_column_profile_free     (AssayColumnProfile     *self);

/* S stays valid until finish when STABLE, else it is copied when kept. */
void                assay_column_profile_add      (AssayColumnProfile     *self,
                                                   const char             *s,
                                                   gsize                   len,
                                                   gboolean                stable,
                                                   const AssayValueFormat *format);
void                assay_column_profile_add_null (AssayColumnProfile     *self);
/* Adds OTHER's cells (profiled over a later part of the same text) into SELF. */
void                assay_column_profile_merge    (AssayColumnProfile     *self,
                                                   AssayColumnProfile     *other);
/* Settles the type and copies what must outlive the text. DAY_FIRST_HINT decides a/b/yyyy
 * dates that fit both orders. */
void                assay_column_profile_finish   (AssayColumnProfile     *self,
                                                   gboolean                day_first_hint);

AssayColumnType     assay_column_profile_get_type_kind (AssayColumnProfile *self);
const char         *assay_column_type_to_string   (AssayColumnType         type);
guint64             assay_column_profile_get_nulls    (AssayColumnProfile *self);
guint64             assay_column_profile_get_distinct (AssayColumnProfile *self,
                                                       gboolean           *exact);
guint               assay_column_profile_get_value_flags (AssayColumnProfile *self);
/* For dates: "dayfirst" when the column is written day first (dd.mm.yyyy, dd/mm/yyyy). */
gboolean            assay_column_profile_is_day_first (AssayColumnProfile *self);
gboolean            assay_column_profile_is_ambiguous (AssayColumnProfile *self);
/* Up to ASSAY_PROFILE_SAMPLES distinct values, as found (raw UTF-8, unsanitised). */
const char * const *assay_column_profile_get_samples  (AssayColumnProfile *self);

/* type, nulls, distinct, min, max, mean, top, histogram (+ name). Text is sanitised. */
JsonObject         *assay_column_profile_to_json  (AssayColumnProfile     *self,
                                                   const char             *name);

G_END_DECLS
