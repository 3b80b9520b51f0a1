/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-dataset.h"

G_BEGIN_DECLS

/* What a session lets the model see of its data. */
typedef enum
{
  ASSAY_PRIVACY_FULL,       /* everything the analyst sees (the default) */
  ASSAY_PRIVACY_MASKED,     /* the masked columns' values replaced by placeholders */
  ASSAY_PRIVACY_SCHEMA,     /* names, types and row counts; of a cell only its status, the
                             * shapes of the DataFrames it made and the type of its error */
} AssayPrivacyMode;

/* "full", "masked", "schema". */
const char      *assay_privacy_mode_to_string   (AssayPrivacyMode  mode);
gboolean         assay_privacy_mode_from_string (const char       *text,
                                                 AssayPrivacyMode *mode);
/* In the analyst's language: "Full", "Masked columns", "Schema only". */
const char      *assay_privacy_mode_get_label   (AssayPrivacyMode  mode);

/* The memory the masked values may take (their text, every form they are looked for in, and
 * the tables that find them): past it the rest of a column is not masked, and the masker
 * says so (assay_masker_get_warning ()). */
#define ASSAY_MASKER_MAX_BYTES (256 * 1024 * 1024)
/* Longer values are not looked for (a value that long is a document, not a key); the
 * warning counts them. */
#define ASSAY_MASKER_MAX_VALUE_BYTES 4096

#define ASSAY_TYPE_MASKER (assay_masker_get_type ())

G_DECLARE_FINAL_TYPE (AssayMasker, assay_masker, ASSAY, MASKER, GObject)

/*
 * Columns whose values never reach the model. Every distinct value of a masked column gets a
 * stable placeholder, "⟨customer_id 17⟩" (the 17th distinct value in the file's order), and
 * every text bound for the model is rewritten: a value is found as written in the file and
 * as Python prints it (integers without leading zeros or separators, floats in their
 * shortest form, dd.mm.yyyy and a/b/yyyy dates as yyyy-mm-dd, dates and times without a
 * zone as pandas, numpy and str () print them — a space or a T, ".000", ".000000000", and
 * to_json's milliseconds since 1970 —, a string longer than pandas' display.max_colwidth as
 * a table shows it, cut with "...", each line of ten characters or more of a multi-line
 * value), as a whole token (not inside a longer word or number), the longest first. Text
 * with backslashes is read twice: with the escapes of JSON and Python's repr decoded
 * (\u00fc, \/, \n, \', \xe9: to_json, json.dumps, a list's repr, a KeyError, pandas'
 * table of a multi-line string), then as it is. Placeholders the model writes are mapped
 * back: in its text to the value, in its code to a Python literal (inside a string literal,
 * to the value escaped for that literal).
 *
 * Values are matched case-sensitively: a cell that changes a value (upper-cases it, adds to
 * it) prints something that is no longer the value.
 */
AssayMasker *assay_masker_new                (void);

/* Masks the column COLUMN of the dataset NAME (as the sandbox names it): every distinct
 * value of DATASET's column, read now. Adding the same column twice does nothing. For an
 * SQLite database, NAME is "DATABASE.TABLE" (as for a connection) and COLUMN the table's. */
gboolean     assay_masker_add_dataset_column (AssayMasker   *self,
                                              const char    *name,
                                              AssayDataset  *dataset,
                                              const char    *column,
                                              GCancellable  *cancellable,
                                              GError       **error);
/* The same for values from elsewhere (tests, database columns): the column's index, for
 * assay_masker_add_value (). */
guint        assay_masker_add_column         (AssayMasker   *self,
                                              const char    *name,
                                              const char    *column);
/* FALSE once the memory cap is reached. Empty and blank values are not masked. */
gboolean     assay_masker_add_value          (AssayMasker   *self,
                                              guint          column,
                                              const char    *value,
                                              gsize          length);

/* Lowers the memory cap (the tests reach it without filling the memory). */
void         assay_masker_set_max_bytes      (AssayMasker   *self,
                                              gsize          max_bytes);
guint        assay_masker_get_n_columns      (AssayMasker   *self);
guint        assay_masker_get_n_values       (AssayMasker   *self);
gsize        assay_masker_get_memory         (AssayMasker   *self);
/* Whether DATASET:COLUMN is masked. */
gboolean     assay_masker_has_column         (AssayMasker   *self,
                                              const char    *dataset,
                                              const char    *column);
/* Why some values may still reach the model (the cap, values too long), in the analyst's
 * language, or NULL. */
const char  *assay_masker_get_warning        (AssayMasker   *self);

/* The summaries DATASET (named NAME, as the sandbox names it) makes for the model show the
 * masked columns' samples and frequent values as their placeholders, found before the
 * summary cuts them or makes their line breaks spaces (assay_dataset_set_mask_func ()). */
void         assay_masker_mask_samples       (AssayMasker   *self,
                                              AssayDataset  *dataset,
                                              const char    *name);

/* TEXT with every masked value replaced by its placeholder. Never NULL. */
char        *assay_masker_mask               (AssayMasker   *self,
                                              const char    *text);
/* The count of values replaced by the last assay_masker_mask () (for the tests, the CLI). */
guint        assay_masker_get_last_count     (AssayMasker   *self);
/* TEXT with the placeholders the model wrote turned back into the values they stand for. */
char        *assay_masker_unmask             (AssayMasker   *self,
                                              const char    *text);
/* The same for Python code: outside string literals a placeholder becomes the value's
 * literal (a number as it is, else a quoted string); inside one, the value escaped for it. */
char        *assay_masker_unmask_code        (AssayMasker   *self,
                                              const char    *code);

G_END_DECLS
