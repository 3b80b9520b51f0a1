/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_SEND_SESSION_DIALOG (assay_send_session_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AssaySendSessionDialog, assay_send_session_dialog, ASSAY, SEND_SESSION_DIALOG, AdwMessageDialog)

/* "Send This Session to <host>?": asked when the model setting moves from a server on this
 * computer to HOST while a session is open; Cancel (the default) or Send. */
AssaySendSessionDialog *assay_send_session_dialog_new        (GtkWindow              *parent,
                                                              const char             *host);
/* Another server was set meanwhile. */
void                    assay_send_session_dialog_set_host   (AssaySendSessionDialog *self,
                                                              const char             *host);
void                    assay_send_session_dialog_run_async  (AssaySendSessionDialog *self,
                                                              GCancellable           *cancellable,
                                                              GAsyncReadyCallback     callback,
                                                              gpointer                user_data);
/* TRUE: Send; FALSE with G_IO_ERROR_CANCELLED for Cancel, Escape, the dialog closed or
 * CANCELLABLE cancelled. */
gboolean                assay_send_session_dialog_run_finish (AssaySendSessionDialog *self,
                                                              GAsyncResult           *result,
                                                              GError                **error);

G_END_DECLS
