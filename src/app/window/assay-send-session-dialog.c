/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-types.h"
#include "assay-dialog-run.h"
#include "assay-send-session-dialog.h"

struct _AssaySendSessionDialog
{
  AdwMessageDialog parent_instance;
};

G_DEFINE_FINAL_TYPE (AssaySendSessionDialog, assay_send_session_dialog, ADW_TYPE_MESSAGE_DIALOG)

static void
assay_send_session_dialog_class_init (AssaySendSessionDialogClass *klass)
{
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (GTK_WIDGET_CLASS (klass),
                                               "/org/assay/Assay/ui/assay-send-session-dialog.ui");
}

static void
assay_send_session_dialog_init (AssaySendSessionDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
assay_send_session_dialog_set_host (AssaySendSessionDialog *self,
                                    const char             *host)
{
  g_autofree char *heading = NULL;
  g_autofree char *body = NULL;

  g_return_if_fail (ASSAY_IS_SEND_SESSION_DIALOG (self));
  g_return_if_fail (host != NULL);

  /* Translators: the model server's host: "Send This Session to api.openai.com?" */
  heading = g_strdup_printf (_("Send This Session to %s?"), host);
  /* Translators: the model server's host. */
  body = g_strdup_printf (_("So far this session's model ran on this computer. From the next question "
                            "on, the conversation, the data summaries and the outputs of its cells will "
                            "be sent to %s."), host);
  adw_message_dialog_set_heading (ADW_MESSAGE_DIALOG (self), heading);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (self), body);
}

AssaySendSessionDialog *
assay_send_session_dialog_new (GtkWindow  *parent,
                               const char *host)
{
  AssaySendSessionDialog *self = g_object_new (ASSAY_TYPE_SEND_SESSION_DIALOG, "transient-for", parent, NULL);

  assay_send_session_dialog_set_host (self, host);
  return self;
}

void
assay_send_session_dialog_run_async (AssaySendSessionDialog *self,
                                     GCancellable           *cancellable,
                                     GAsyncReadyCallback     callback,
                                     gpointer                user_data)
{
  g_return_if_fail (ASSAY_IS_SEND_SESSION_DIALOG (self));
  assay_dialog_run_async (ADW_MESSAGE_DIALOG (self), assay_send_session_dialog_run_async,
                          cancellable, callback, user_data);
}

gboolean
assay_send_session_dialog_run_finish (AssaySendSessionDialog  *self,
                                      GAsyncResult            *result,
                                      GError                 **error)
{
  g_autofree char *response = assay_dialog_run_finish (ADW_MESSAGE_DIALOG (self),
                                                       assay_send_session_dialog_run_async,
                                                       result, error);

  return g_strcmp0 (response, "send") == 0;
}
