/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"
#include "assay-llm-provider.h"
#include "assay-session.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_WINDOW (assay_window_get_type ())

G_DECLARE_FINAL_TYPE (AssayWindow, assay_window, ASSAY, WINDOW, AdwApplicationWindow)

/* The main window: the sessions sidebar (an AdwFlap that folds on narrow screens), the chat,
 * the code review, the pages others fill ("artifacts", "data"), the onboarding page when no
 * model is configured, the sandbox banner. It owns the current session's AssayAgent (with its
 * provider and AssayKernelSession), wired as assay-cli ask wires them. */
AssayWindow          *assay_window_new                (GtkApplication   *application);
/* CSV, TSV, TXT and XLSX files join the current session (or start one); anything else gets
 * a toast that says why. */
void                  assay_window_add_files          (AssayWindow      *self,
                                                       GFile           **files,
                                                       guint             n_files);
/* Use PROVIDER (and MODEL) for the next questions instead of the one in the settings;
 * RECORDED labels the session as a recorded demo. */
void                  assay_window_set_provider       (AssayWindow      *self,
                                                       AssayLlmProvider *provider,
                                                       const char       *model,
                                                       gboolean          recorded);
void                  assay_window_start_demo         (AssayWindow      *self);
void                  assay_window_new_session        (AssayWindow      *self);
gboolean              assay_window_open_session       (AssayWindow      *self,
                                                       const char       *dir,
                                                       GError          **error);
gboolean              assay_window_rename_session     (AssayWindow      *self,
                                                       const char       *dir,
                                                       const char       *title,
                                                       GError          **error);
gboolean              assay_window_delete_session     (AssayWindow      *self,
                                                       const char       *dir,
                                                       GError          **error);
AssaySession         *assay_window_get_session        (AssayWindow      *self);
gboolean              assay_window_get_busy           (AssayWindow      *self);
/* Why this sandbox backend was chosen, once one was. */
const char           *assay_window_get_backend_reason (AssayWindow      *self);
/* "main" or "onboarding". */
const char           *assay_window_get_page           (AssayWindow      *self);
/* The text of the last toast shown, for tests. */
const char           *assay_window_get_last_toast     (AssayWindow      *self);
AssayChatView        *assay_window_get_chat_view      (AssayWindow      *self);
AssayCodeReview      *assay_window_get_code_review    (AssayWindow      *self);
AssaySessionsSidebar *assay_window_get_sidebar        (AssayWindow      *self);
AssayOnboarding      *assay_window_get_onboarding     (AssayWindow      *self);

G_END_DECLS
