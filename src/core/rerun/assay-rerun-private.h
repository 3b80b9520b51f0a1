/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "assay-csv-dialect.h"
#include "assay-provenance.h"
#include "assay-session.h"

G_BEGIN_DECLS

/* Writes the delimited file NEW_PATH to OUT_PATH in the dialect TO (the old file's):
 * encoding, byte-order mark, delimiter, quoting, line ends; in the columns NUMERIC marks
 * (N_NUMERIC of them, by position), the decimal separator made TO's and thousands
 * separators dropped. The header row is copied as it is. OUT_PATH is removed on failure. */
gboolean  assay_rerun_convert          (const char            *new_path,
                                        const AssayCsvDialect *to,
                                        const gboolean        *numeric,
                                        guint                  n_numeric,
                                        const char            *out_path,
                                        GError               **error);
/* "windows-1251, “;” between fields, decimal “,”" */
char     *assay_rerun_describe_dialect (const AssayCsvDialect *dialect);

/* assay-rerun-answer.c: the answers' numbers read again in a run's new outputs. */
typedef struct _AssayRerunAnswers AssayRerunAnswers;

/* ORIGIN's answers against OUTPUTS (cell id → the new run's outputs), both borrowed. */
AssayRerunAnswers *assay_rerun_answers_new            (AssaySession          *origin,
                                                       GHashTable            *outputs);
void               assay_rerun_answers_free           (AssayRerunAnswers     *self);
/* ANSWER (of the origin's question QUESTION) with each traced number of PROVENANCE replaced
 * by its new value, or kept and stale: appended to SESSION as the assistant's answer, with the
 * provenance of where each was read; a change each added to CHANGES (AssayRerunChange*).
 * Returns the new answer. */
char              *assay_rerun_answers_update         (AssayRerunAnswers     *self,
                                                       AssaySession          *session,
                                                       const char            *answer,
                                                       const AssayProvenance *provenance,
                                                       guint                  question,
                                                       GPtrArray             *changes);
/* When the rows the answers' numbers were read in came in another order (or came or went), a
 * note on SESSION: their wording may no longer hold. */
void               assay_rerun_answers_note_reordered (AssayRerunAnswers     *self,
                                                       AssaySession          *session);

G_END_DECLS
