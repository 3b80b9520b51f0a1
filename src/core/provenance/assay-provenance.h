/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-number.h"

G_BEGIN_DECLS

/*
 * Where each number of an answer came from.
 *
 * The claims are the numbers of the answer's Markdown outside code (code spans, code blocks,
 * images, bare links) that are not dates, years, list or step numbers (see assay-number.h).
 * Each is looked up among the numbers the question's cells printed: their standard output,
 * the text/plain of their results and displays, and the tables of their text/html (a
 * DataFrame). Standard error and errors are not looked in: a traceback proves nothing.
 *
 * A claim matches a printed number it rounds to at the precision it was written with
 * ("475,046" matches 475046.3; "1.65M" matches 1651593.25); a percentage also matches the
 * fraction ("24.0%" matches 0.2398); a number written without a sign also matches the
 * negative ("fell by 5.2%" matches -5.2). A whole number below 10 written without a unit must
 * have been printed exactly: small numbers are everywhere (indexes, counts), and a claim that
 * rounds to them proves nothing. When several cells printed it, the latest wins; within a
 * cell, the closest value, then the first.
 *
 * Only what the model read counts: of a cell whose outputs were cut for the model (head and
 * tail, MODEL_READ), the middle is not looked in, nor any table's HTML (the model reads
 * text/plain). A value printed under several labels (the words of its line, or its table's
 * row and column) goes to the one whose words the answer's sentence names closest to it; when
 * it names none (or two as close), the number is AMBIGUOUS: found, at the latest place, but a
 * run on new data cannot follow it. A match in an output crowded with numbers near it (20 or
 * more distinct values within 100 steps of the claim's precision either side: a range, a
 * long column) proves nothing unless the sentence names its label: it is WEAK, not found.
 */

typedef struct
{
  const char *cell_id;
  JsonArray  *outputs;     /* nbformat outputs */
  gsize       model_read;  /* bytes of its text the model read, head and tail; 0: all */
} AssayProvenanceSource;

typedef struct
{
  guint     start;         /* bytes in the answer */
  guint     end;
  char     *text;          /* the number as the answer wrote it */
  double    value;
  gboolean  percent;
  gboolean  found;
  gboolean  stale;         /* a run on new data could not find it again: the old text kept, not found */
  /* Where it was found (when found). */
  char     *cell_id;
  guint     output;        /* the output's index in the cell */
  char     *view;          /* "stream", "text/plain" or "text/html" */
  guint     line;          /* from 1, in the output's text (text/html: the table's text) */
  char     *line_text;     /* that line, at most ASSAY_PROVENANCE_MAX_LINE bytes around the match */
  guint     match_start;   /* bytes in line_text */
  guint     match_end;
  guint     number_in_line; /* which number of the whole line it is, from 0; G_MAXUINT: unknown */
  gboolean  ambiguous;     /* found under PLACES labels, the answer names none of them: the place is one */
  guint     places;
  gboolean  weak;          /* not found: matched only among many numbers (the place says where) */
  guint     crowd;         /* weak: how many distinct numbers were printed near it */
} AssayTracedNumber;

#define ASSAY_PROVENANCE_MAX_LINE 240
/* What is looked at of the outputs, at most, for one answer. */
#define ASSAY_PROVENANCE_MAX_OUTPUT_BYTES (16 * 1024 * 1024)

typedef struct
{
  GPtrArray *numbers;      /* AssayTracedNumber*, in the answer's order */
} AssayProvenance;

/* The text of one view of an output ("stream", "text/plain", "text/html" as a table's text),
 * the way tracing reads it; NULL when that output has no such view. */
char            *assay_provenance_dup_view_text   (JsonArray                   *outputs,
                                                   guint                        output,
                                                   const char                  *view);

/* The numbers of ANSWER that are claims (AssayNumber, spans in bytes of ANSWER). */
GArray          *assay_provenance_find_claims     (const char                  *answer,
                                                   gssize                       length);
/* SOURCES in the order the cells ran. */
AssayProvenance *assay_provenance_trace           (const char                  *answer,
                                                   gssize                       length,
                                                   const AssayProvenanceSource *sources,
                                                   guint                        n_sources);
AssayProvenance *assay_provenance_new             (void);
AssayProvenance *assay_provenance_copy            (const AssayProvenance       *provenance);
void             assay_provenance_free            (AssayProvenance             *provenance);
guint            assay_provenance_count_untraced  (const AssayProvenance       *provenance);
/* The untraced numbers as the answer wrote them, ", "-separated; NULL when there are none. */
char            *assay_provenance_dup_untraced    (const AssayProvenance       *provenance);
/* Of those, the weak ones (matched only among many numbers); NULL when there are none. */
char            *assay_provenance_dup_weak        (const AssayProvenance       *provenance);

JsonNode        *assay_provenance_to_json         (const AssayProvenance       *provenance);
/* Reads what to_json wrote, from a record anyone may have edited: entries whose span is not
 * inside ANSWER (or does not hold the text they name) are dropped. NULL when NODE is not
 * a provenance. */
AssayProvenance *assay_provenance_from_json       (JsonNode                    *node,
                                                   const char                  *answer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayProvenance, assay_provenance_free)

G_END_DECLS
