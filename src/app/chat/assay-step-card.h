/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-app-types.h"
#include "assay-cell-result.h"
#include "assay-provenance.h"
#include "assay-session-cell.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_STEP_CARD (assay_step_card_get_type ())

G_DECLARE_FINAL_TYPE (AssayStepCard, assay_step_card, ASSAY, STEP_CARD, GtkWidget)

/* One model turn in the chat: "Step 3 of 8", the model's text (Markdown, streamed) and, for
 * each cell it proposed, the cell's status (running with the elapsed time, ok, error, timeout,
 * out of memory, rejected), its text outputs (collapsed when long) and figure thumbnails. */
GtkWidget  *assay_step_card_new            (guint          step,
                                            guint          max_steps);
guint       assay_step_card_get_step       (AssayStepCard *self);
/* The step's number in the session (from 1; 0: not known), which its "Sent to the Model"
 * button opens the requests of (win.show-step-requests). */
void        assay_step_card_set_session_step (AssayStepCard *self,
                                              guint          session_step);
guint       assay_step_card_get_session_step (AssayStepCard *self);
/* The footer: what the step's requests to the model used and cost ("1,240 tokens in · 310
 * out · $0.0043"); NULL hides it. */
void        assay_step_card_set_usage      (AssayStepCard *self,
                                            const char    *text);
/* The footer's text, NULL while hidden. */
const char *assay_step_card_get_usage      (AssayStepCard *self);
void        assay_step_card_append_text    (AssayStepCard *self,
                                            const char    *text);
void        assay_step_card_set_text       (AssayStepCard *self,
                                            const char    *text);
const char *assay_step_card_get_text       (AssayStepCard *self);
/* Shows the card as the final answer ("Answer" instead of "Step n of m"). */
void        assay_step_card_set_answer     (AssayStepCard *self);
void        assay_step_card_set_working    (AssayStepCard *self,
                                            gboolean       working);
/* Forgets what streamed (a retry voids it). */
void        assay_step_card_clear          (AssayStepCard *self);
guint       assay_step_card_get_n_cells    (AssayStepCard *self);
gboolean    assay_step_card_has_cell       (AssayStepCard *self,
                                            const char    *cell_id);
void        assay_step_card_add_cell       (AssayStepCard *self,
                                            const char    *cell_id,
                                            const char    *description);
void        assay_step_card_cell_started   (AssayStepCard *self,
                                            const char    *cell_id);
void        assay_step_card_cell_output    (AssayStepCard *self,
                                            const char    *cell_id,
                                            JsonObject    *output);
void        assay_step_card_cell_artifact  (AssayStepCard *self,
                                            const char    *cell_id,
                                            const char    *name,
                                            const char    *path);
/* STATUS: how it ended (a run's outcome, or ASSAY_CELL_INTERRUPTED). */
void        assay_step_card_cell_finished  (AssayStepCard   *self,
                                            const char      *cell_id,
                                            AssayCellStatus  status,
                                            const char      *reason,
                                            gint64           elapsed_ms);
void        assay_step_card_cell_rejected  (AssayStepCard *self,
                                            const char    *cell_id,
                                            const char    *reason);
/* Marks the cell "Edited by you": what ran is the analyst's edit of what was proposed. */
void        assay_step_card_cell_edited    (AssayStepCard *self,
                                            const char    *cell_id);
/* The cell's status as shown ("ok", "running", "rejected", ...), NULL if unknown. */
const char *assay_step_card_get_cell_status (AssayStepCard *self,
                                             const char    *cell_id);

/* A run_sql cell: its SQL, highlighted, and the database it runs on and the DataFrame it
 * makes. */
void             assay_step_card_cell_query       (AssayStepCard         *self,
                                                   const char            *cell_id,
                                                   const char            *sql,
                                                   const char            *database,
                                                   const char            *frame);
/* What it returned (QUERY's rows, columns with their server types and time), with NOTE (may
 * be NULL) under it. */
void             assay_step_card_cell_query_result (AssayStepCard        *self,
                                                    const char           *cell_id,
                                                    const AssaySessionQuery *query,
                                                    const char           *note);
/* For tests: the line under the query, and the view that shows it. */
const char      *assay_step_card_get_query_text   (AssayStepCard         *self,
                                                   const char            *cell_id);
GtkTextView     *assay_step_card_get_query_view   (AssayStepCard         *self,
                                                   const char            *cell_id);

/* The cell's checks (what it read, merged, dropped) as a line under it; NULL hides it. */
void             assay_step_card_cell_checks      (AssayStepCard         *self,
                                                   const char            *cell_id,
                                                   const AssayCellChecks *checks);

/* An answer's numbers traced: links in its text (::number-activated (guint index)). */
void             assay_step_card_set_provenance   (AssayStepCard         *self,
                                                   const AssayProvenance *provenance);
/* Where a number came from: CELL_ID's output opened, LINE_TEXT selected and focused; FALSE
 * when the cell is not in this card. */
gboolean         assay_step_card_reveal_output_line (AssayStepCard       *self,
                                                     const char          *cell_id,
                                                     const char          *line_text);
/* For tests: what is selected in CELL_ID's output, and whether it is open. */
char            *assay_step_card_dup_selected_output (AssayStepCard      *self,
                                                      const char         *cell_id);
gboolean         assay_step_card_get_output_expanded (AssayStepCard      *self,
                                                      const char         *cell_id);
AssayMarkdownView *assay_step_card_get_text_view  (AssayStepCard         *self);

G_END_DECLS
