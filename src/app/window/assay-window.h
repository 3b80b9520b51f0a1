/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"
#include "assay-llm-provider.h"
#include "assay-report.h"
#include "assay-session.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_WINDOW (assay_window_get_type ())

G_DECLARE_FINAL_TYPE (AssayWindow, assay_window, ASSAY, WINDOW, AdwApplicationWindow)

/* The main window: the sessions sidebar (an AdwFlap that folds on narrow screens), the chat,
 * the code review, the pages others fill ("artifacts", "data"), the onboarding page when no
 * model is configured, the sandbox banner. It owns an AssayConversation (the current session
 * and its agent, provider and kernel) and an AssaySessionStore, and relays nothing between
 * them and its children: they follow the conversation themselves. */
AssayWindow          *assay_window_new                (GtkApplication   *application);
/* CSV, TSV, TXT and XLSX files join the current session (or start one), copied in a worker;
 * anything else gets a toast that says why. */
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
/* Session folders are read and written in workers, one job at a time in the order asked
 * for (win.open-session, win.rename-session and win.delete-session come here).
 *
 * Opening starts reading DIR and returns: the chat shows "Opening Session…" meanwhile,
 * then the session, with ::session-opened (DIR) just before "opening" goes FALSE. If it
 * cannot be read, a toast says why and the current session stays as it was. Asking for
 * another session before this one is shown cancels it (the latest request wins), and so do
 * a new session and the demo. FALSE (and ERROR) at once while a question is in progress;
 * TRUE without a signal when DIR is the current session. */
gboolean              assay_window_open_session       (AssayWindow      *self,
                                                       const char       *dir,
                                                       GError          **error);
gboolean              assay_window_get_opening        (AssayWindow      *self);
/* The current session is renamed in memory and saved from a worker; another one is read,
 * renamed and saved in a worker. The sidebar is reloaded. */
void                  assay_window_rename_session_async  (AssayWindow         *self,
                                                          const char          *dir,
                                                          const char          *title,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
gboolean              assay_window_rename_session_finish (AssayWindow         *self,
                                                          GAsyncResult        *result,
                                                          GError             **error);
/* Refused (G_IO_ERROR_BUSY) while a question is in progress; the current session is let go
 * of first, and a session still opening from DIR is not opened. */
void                  assay_window_delete_session_async  (AssayWindow         *self,
                                                          const char          *dir,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
gboolean              assay_window_delete_session_finish (AssayWindow         *self,
                                                          GAsyncResult        *result,
                                                          GError             **error);
AssaySession         *assay_window_get_session        (AssayWindow      *self);
gboolean              assay_window_get_busy           (AssayWindow      *self);
/* Why this sandbox backend was chosen, once one was. */
const char           *assay_window_get_backend_reason (AssayWindow      *self);

/* What win.export does once the dialog and the file chooser are answered: the current
 * session to FILE with OPTIONS, the progress in the window's banner (win.cancel-export stops
 * it), a toast when done (with Open) or failed. Fails at once when another export runs or
 * the session has nothing to export (see assay_window_get_can_export). */
void                  assay_window_export_async       (AssayWindow              *self,
                                                       GFile                    *file,
                                                       const AssayReportOptions *options,
                                                       GAsyncReadyCallback       callback,
                                                       gpointer                  user_data);
gboolean              assay_window_export_finish      (AssayWindow      *self,
                                                       GAsyncResult     *result,
                                                       GError          **error);
/* Whether win.export is enabled: a question answered or a cell finished, no export running. */
gboolean              assay_window_get_can_export     (AssayWindow      *self);
gboolean              assay_window_get_exporting      (AssayWindow      *self);


G_END_DECLS
