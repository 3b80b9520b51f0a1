/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"
#include "assay-session.h"
#include "assay-session-requests.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_REQUESTS_WINDOW (assay_requests_window_get_type ())

G_DECLARE_FINAL_TYPE (AssayRequestsWindow, assay_requests_window, ASSAY, REQUESTS_WINDOW, AdwWindow)

/* "Sent to the Model": the requests SESSION sent to model servers, listed on one side (number,
 * step, host, model, time, tokens, cost, what the model was let see), and the one selected on
 * the other, read by assay-session-requests: the parts it added to the request before marked,
 * the ones it repeated collapsed, or its raw body exactly as sent. Everything from a body is
 * shown as text, never as markup. The body is read on the session's thread and parsed in a
 * worker. */
AssayRequestsWindow *assay_requests_window_new             (GtkWindow           *parent,
                                                            AssaySession        *session);
/* Lists the session's requests again (a question may have sent more since). */
void                 assay_requests_window_reload          (AssayRequestsWindow *self);
/* Selects the request numbered NUMBER; FALSE when there is none. */
gboolean             assay_requests_window_select_request  (AssayRequestsWindow *self,
                                                            guint                number);
/* Selects the first request sent for STEP (of the session, from 1) and shows it; FALSE, and
 * a note saying so, when none was recorded for it. */
gboolean             assay_requests_window_select_step     (AssayRequestsWindow *self,
                                                            guint                step);

/* For tests. */
/* The number of the request shown, 0: none. */
guint                assay_requests_window_get_selected    (AssayRequestsWindow *self);
/* A body is being read. */
gboolean             assay_requests_window_get_loading     (AssayRequestsWindow *self);
/* The reading shown (NULL: none); owned by the window until another request is selected. */
const AssayRequestReading *assay_requests_window_get_reading (AssayRequestsWindow *self);
/* What the raw body view holds. */
char                *assay_requests_window_dup_raw_text    (AssayRequestsWindow *self);

G_END_DECLS
