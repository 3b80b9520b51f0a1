/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CODE_REVIEW (assay_code_review_get_type ())

G_DECLARE_FINAL_TYPE (AssayCodeReview, assay_code_review, ASSAY, CODE_REVIEW, GtkWidget)

/* The proposed cell in a GtkSourceView (Python, or SQL for a run_sql query; line numbers,
 * the style following light or dark), filled in while the model writes it. When a cell waits for approval: Run, Edit (the
 * view becomes editable; Run then sends the edited code), Reject with an optional reason.
 * The answer goes out as ::respond (const char *cell_id, int AssayApprovalResponse,
 * const char *text). A diff
 * against the previous attempt and Copy are always at hand; the switch "Run code without
 * asking" is the property auto-run. */
GtkWidget  *assay_code_review_new            (void);
/* The view follows CONVERSATION: the code its agent writes, the cell waiting for approval
 * (answered through the conversation), the code that runs, the session's last cell; the
 * switch is the conversation's auto-run. */
void        assay_code_review_set_conversation (AssayCodeReview   *self,
                                                AssayConversation *conversation);
/* A new cell starts streaming: the view empties and shows what arrives. */
void        assay_code_review_begin          (AssayCodeReview *self);
void        assay_code_review_append_code    (AssayCodeReview *self,
                                              const char      *text);
/* The cell waits for approval. */
void        assay_code_review_request        (AssayCodeReview *self,
                                              const char      *cell_id,
                                              const char      *code,
                                              const char      *description);
/* Shows CODE, the code that really runs (read-only). */
void        assay_code_review_show           (AssayCodeReview *self,
                                              const char      *code);
void        assay_code_review_reset          (AssayCodeReview *self);
const char *assay_code_review_get_cell_id    (AssayCodeReview *self);
gboolean    assay_code_review_get_waiting    (AssayCodeReview *self);
char       *assay_code_review_get_code       (AssayCodeReview *self);
/* The diff shown by the diff button, NULL without a previous attempt. */
const char *assay_code_review_get_diff       (AssayCodeReview *self);
/* The highlighting of the code shown: "python3", or "sql" for a run_sql query. */
const char *assay_code_review_get_language   (AssayCodeReview *self);
gboolean    assay_code_review_get_auto_run   (AssayCodeReview *self);
void        assay_code_review_set_auto_run   (AssayCodeReview *self,
                                              gboolean         auto_run);

G_END_DECLS
