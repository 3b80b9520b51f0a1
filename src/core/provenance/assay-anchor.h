/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * What a traced number means, so that a run on new data finds it again by meaning, not by
 * where it stood.
 *
 * A printed line's label is its text with every number taken out ("West: #", "Top customer:
 * egor.# with #", "North # #"), spaces made one. A number is the K-th number of its line; in
 * the new output it follows its label: the one line of the same cell (and view) whose label
 * is the same. Dates and times are taken out too ("Clean data: # rows, # .. #"); when two lines
 * share the label, they and the whole numbers before K count as part of it ("rank 1: #",
 * "Revenue on 2026-07-01: #"). A label that no line has any more, that several lines have
 * (then or now), a line with another count of numbers, or a table's row whose number is under
 * another column now (the header's word above it, or its cell's), is not found: the caller
 * shows the number as stale. Better stale than wrong.
 */

typedef enum
{
  ASSAY_ANCHOR_FOUND,
  ASSAY_ANCHOR_GONE,        /* no line has its label any more */
  ASSAY_ANCHOR_AMBIGUOUS,   /* several lines have its label (then or now) */
  ASSAY_ANCHOR_RESHAPED,    /* its line has other numbers, or its table other columns */
  ASSAY_ANCHOR_INVALID,     /* the old line or number is not where the record says */
} AssayAnchorStatus;

/* The outputs of one cell in one view (a stream's text, a result's text/plain, a table's
 * text), in order, read into lines and numbers once. */
typedef struct _AssayAnchorTexts AssayAnchorTexts;

typedef struct
{
  AssayAnchorStatus status;
  guint             text;          /* which of the new texts */
  guint             line;          /* from 1, in that text */
  char             *line_text;     /* that line */
  guint             match_start;   /* the number, bytes in LINE_TEXT */
  guint             match_end;
  guint             number_in_line;
  double            value;         /* as printed */
  double            old_value;     /* the number followed, as it was printed then */
} AssayAnchorMatch;

/* TEXTS (N of them, any may be NULL) are copied. CELLS: they are tables' rows whose cells
 * are two spaces apart (a text/html view's table), not printed text. */
AssayAnchorTexts *assay_anchor_texts_new   (const char * const *texts,
                                            guint               n,
                                            gboolean            cells);
void              assay_anchor_texts_free  (AssayAnchorTexts   *texts);

void              assay_anchor_match_clear (AssayAnchorMatch   *match);

/* Follows the K-th number (from 0) of line OLD_LINE (from 1) of OLD's text OLD_TEXT into NEW.
 * MATCH is always filled (its status); TRUE when FOUND. */
gboolean          assay_anchor_follow      (AssayAnchorTexts   *old,
                                            guint               old_text,
                                            guint               old_line,
                                            guint               k,
                                            AssayAnchorTexts   *new,
                                            AssayAnchorMatch   *match);

/* Whether the rows (lines that name something: a label with words and a number, once in the
 * output) of the tables PLACES are in came in another order, or came or went: a ranking may
 * have changed. PLACES: N_PLACES pairs (text, line from 1) of OLD, the lines an answer's numbers
 * were read in; a table is a block of lines without a blank one. NULL: every row of OLD. */
gboolean          assay_anchor_order_changed (AssayAnchorTexts *old,
                                              AssayAnchorTexts *new,
                                              const guint      *places,
                                              guint             n_places);

/* What the K-th number of line LINE (from 1) of TEXT (CELLS as for texts_new) stands for,
 * in words for a person: in a table's row, its words and its column ("North · revenue"); else
 * the line with the number as "…" ("West: …", "Top customer: egor.3 with …"). NULL when the
 * line has no such number. */
char             *assay_anchor_describe    (const char         *text,
                                            gboolean            cells,
                                            guint               line,
                                            guint               k);
/* The same for line LINE of SELF's text TEXT, read once already. */
char             *assay_anchor_texts_describe (AssayAnchorTexts *self,
                                               guint             text,
                                               guint             line,
                                               guint             k);

/* The line (from 1) of TEXT the number that starts at byte OFFSET of that text is on, and
 * which number of it (from 0) it is; FALSE when no number starts there. */
gboolean          assay_anchor_texts_locate    (AssayAnchorTexts *self,
                                                guint             text,
                                                gsize             offset,
                                                guint            *line,
                                                guint            *k);
/* How many lines of SELF have the label of line LINE (from 1) of TEXT (its words, without its
 * numbers): 1 when it names one thing; 0 when there is no such line. */
guint             assay_anchor_texts_count_like (AssayAnchorTexts *self,
                                                 guint             text,
                                                 guint             line);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayAnchorTexts, assay_anchor_texts_free)

G_END_DECLS
