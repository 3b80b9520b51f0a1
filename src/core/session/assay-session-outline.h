/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-session.h"

G_BEGIN_DECLS

/*
 * The one reading of a session record as the analyst sees it: questions, each with its
 * steps (one model reply each), each with the cells its tool calls proposed.
 *
 * A cell belongs to the tool call with its call id in the step that proposed it. Call ids
 * repeat (a server that sends none gets call_assay_<n> per turn, recorded transcripts replay
 * theirs, a reply may name one id twice), so matching is by step and call id first, each
 * cell used once; only then by call id alone, in the order the cells ran, for records whose
 * steps were counted otherwise. A cell no call names goes to the step that proposed it.
 * Assay's own request to check an answer is no question: it marks the reply it follows; nor is
 * its request to repair a cell that failed when the analysis ran again (the steps after it
 * are marked).
 * The window, the three report formats and `assay-cli session show` read this and nothing
 * else.
 *
 * The outline points into SESSION (messages, cells): it is valid while the session is not
 * changed, and is meant to be walked at once.
 */

typedef struct
{
  guint              number;        /* from 1 across the session */
  guint              number_in_question; /* from 1 in its question: "Step 2" */
  const char        *text;          /* what the model wrote in that reply; may be NULL */
  gboolean           is_answer;     /* a reply without tool calls: the question's answer */
  gboolean           interrupted;   /* the step that never finished (its cells are kept apart) */
  /* A reply without tool calls that Assay sent back: numbers in it appeared in no output.
   * It is not the answer (is_answer is FALSE); CHECK is what the model was told. */
  gboolean           checked;
  const char        *check;
  /* A step of a repair: after a cell failed on new data (a run again), Assay asked the model
   * to fix it; REPAIR is what it was told. Its cells are part of the analysis; its last
   * reply, without tool calls, says what was changed and is not the answer. */
  const char        *repair;
  GPtrArray         *cells;         /* AssaySessionCell*, borrowed, in the reply's call order */
  guint              message;       /* the reply's index in the messages; G_MAXUINT: none */
  const AssayProvenance *provenance; /* an answer's numbers traced; borrowed, may be NULL */
} AssayOutlineStep;

typedef struct
{
  guint              number;        /* from 1 */
  const char        *text;          /* the question; NULL for steps before any question */
  GPtrArray         *steps;         /* AssayOutlineStep* */
} AssayOutlineQuestion;

typedef struct
{
  GPtrArray         *questions;     /* AssayOutlineQuestion* */
} AssaySessionOutline;

AssaySessionOutline *assay_session_outline_new  (AssaySession        *session);
void                 assay_session_outline_free (AssaySessionOutline *outline);
/* The question whose steps hold CELL, or NULL. */
const AssayOutlineQuestion *assay_session_outline_find_cell (const AssaySessionOutline *outline,
                                                             const AssaySessionCell    *cell,
                                                             const AssayOutlineStep   **step);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssaySessionOutline, assay_session_outline_free)

G_END_DECLS
