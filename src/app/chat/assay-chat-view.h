/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"
#include "assay-changes-card.h"
#include "assay-session.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CHAT_VIEW (assay_chat_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayChatView, assay_chat_view, ASSAY, CHAT_VIEW, GtkWidget)

/* The conversation: questions, one AssayStepCard per model turn, the answer in Markdown,
 * notices; the retry banner counting down; the composer (Enter sends through win.send,
 * Shift+Enter is a new line) and the Stop button (win.stop) while the agent works. */
GtkWidget     *assay_chat_view_new                (void);
/* The chat follows CONVERSATION: its agent's steps, text, cells, outputs, figures, retries
 * and errors; its questions, answers, busy state and sessions. */
void           assay_chat_view_set_conversation   (AssayChatView     *self,
                                                   AssayConversation *conversation);
AssayConversation *assay_chat_view_get_conversation (AssayChatView   *self);
void           assay_chat_view_clear              (AssayChatView *self);
void           assay_chat_view_add_question       (AssayChatView *self,
                                                   const char    *text);
AssayStepCard *assay_chat_view_begin_step         (AssayChatView *self,
                                                   guint          step,
                                                   guint          max_steps);
AssayStepCard *assay_chat_view_get_current_card   (AssayChatView *self);
/* The card holding CELL_ID, or NULL. */
AssayStepCard *assay_chat_view_find_cell_card     (AssayChatView *self,
                                                   const char    *cell_id);
/* PROVENANCE (may be NULL): where the answer's numbers came from; each becomes a link that
 * shows the output line that printed it. */
void           assay_chat_view_add_answer         (AssayChatView         *self,
                                                   const char            *markdown,
                                                   const AssayProvenance *provenance);
/* A line from Assay itself (an error, "Stopped"); ERROR styles it as one. */
void           assay_chat_view_add_notice         (AssayChatView *self,
                                                   const char    *text,
                                                   gboolean       error);
/* "The model server is busy, retrying in N s", counting down; hidden by hide_retry. */
void           assay_chat_view_show_retry         (AssayChatView *self,
                                                   guint          attempt,
                                                   guint          delay_ms,
                                                   const char    *reason);
void           assay_chat_view_hide_retry         (AssayChatView *self);
gboolean       assay_chat_view_get_retry_visible  (AssayChatView *self);
const char    *assay_chat_view_get_retry_text     (AssayChatView *self);
/* Whether the banner of a question stopped at the model server (the conversation's
 * "server-problem", with Change Server and Try Again) is shown. */
gboolean       assay_chat_view_get_server_problem_visible (AssayChatView *self);
void           assay_chat_view_set_busy           (AssayChatView *self,
                                                   gboolean       busy);
/* "Opening Session…" with a spinner in place of the conversation, which is kept underneath
 * until the session is shown (or could not be opened). */
void           assay_chat_view_set_loading        (AssayChatView *self,
                                                   gboolean       loading);
gboolean       assay_chat_view_get_loading        (AssayChatView *self);
char          *assay_chat_view_get_composer_text  (AssayChatView *self);
/* The session's datasets and databases as chips above the composer (NAMES shown, each with
 * its icon; a click activates win.show-data with its TARGET); none: the empty conversation
 * asks for data. */
void           assay_chat_view_set_sources        (AssayChatView       *self,
                                                   const char * const  *names,
                                                   const char * const  *targets,
                                                   const char * const  *icons);
void           assay_chat_view_set_composer_text  (AssayChatView *self,
                                                   const char    *text);
void           assay_chat_view_focus_composer     (AssayChatView *self);
/* What stands at the foot of the conversation: the data's chips when shown, else the composer. */
GtkWidget     *assay_chat_view_get_foot           (AssayChatView *self);
/* Rebuilds the conversation of a saved session: questions, steps with their cells,
 * outputs and figures, answers. */
void           assay_chat_view_show_session       (AssayChatView *self,
                                                   AssaySession  *session,
                                                   guint          max_steps);
/* The "What Changed" card a session run again on new data starts with (NULL: none). */
AssayChangesCard *assay_chat_view_get_changes_card (AssayChatView *self);
/* Scrolls to that card and focuses it; FALSE when the session shown has none. */
gboolean       assay_chat_view_reveal_changes     (AssayChatView *self);
/* Each step card's footer (its requests' tokens and cost), and over the chat the current
 * question's and SESSION's totals, read again from SESSION's request record (NULL: hidden).
 * The chat calls it itself when a step's request is recorded and when a session is shown. */
void           assay_chat_view_update_usage       (AssayChatView *self,
                                                   AssaySession  *session);
/* For tests: the header's lines, NULL while hidden. */
const char    *assay_chat_view_get_question_usage (AssayChatView *self);
const char    *assay_chat_view_get_session_usage  (AssayChatView *self);

G_END_DECLS
