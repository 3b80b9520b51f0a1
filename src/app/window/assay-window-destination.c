/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where the data goes: the header's indicator shows the window's AssayModelDestination, and
 * the question the destination waits for ("Send This Session to <host>?") is asked here:
 * once no other window of ours is in front (Preferences, where an address may still be
 * being typed) and whenever the window comes to the front again, and at the latest before
 * a question is sent. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-window-private.h"

/* Preferences, or another window of ours, over this one. */
static gboolean
assay_window_has_window_in_front (AssayWindow *self)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (window != GTK_WINDOW (self) && window != GTK_WINDOW (self->send_dialog) &&
          gtk_widget_get_visible (GTK_WIDGET (window)) && gtk_window_get_transient_for (window) == GTK_WINDOW (self))
        return TRUE;
    }
  return FALSE;
}

static void
assay_window_send_dialog_done_cb (GObject      *source,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  g_autoptr(AssayWindow) self = user_data;
  AssaySendSessionDialog *dialog = ASSAY_SEND_SESSION_DIALOG (source);
  gboolean send = assay_send_session_dialog_run_finish (dialog, result, NULL);
  gboolean dropped = self->send_dialog_dropped;
  gboolean send_now = send && self->send_when_confirmed;

  if (self->send_dialog == dialog)
    g_clear_object (&self->send_dialog);
  self->send_dialog_dropped = FALSE;
  self->send_when_confirmed = FALSE;
  /* Dropped: the setting moved back, or the window closes; nothing was answered. */
  if (dropped || self->closing || self->destination == NULL || g_cancellable_is_cancelled (self->cancellable))
    return;
  assay_model_destination_confirm (self->destination, send);
  if (send_now)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.send", NULL);
}

void
assay_window_destination_ask (AssayWindow *self)
{
  const char *host;

  if (self->destination == NULL)
    return;
  host = assay_model_destination_get_pending_host (self->destination);
  if (host == NULL)
    {
      if (self->send_dialog != NULL && !self->send_dialog_dropped)
        {
          self->send_dialog_dropped = TRUE;
          gtk_window_close (GTK_WINDOW (self->send_dialog));
        }
      return;
    }
  if (self->send_dialog != NULL)
    {
      assay_send_session_dialog_set_host (self->send_dialog, host);
      return;
    }
  if (self->closing || (!self->send_when_confirmed && assay_window_has_window_in_front (self)))
    return;
  self->send_dialog = g_object_ref_sink (assay_send_session_dialog_new (GTK_WINDOW (self), host));
  assay_send_session_dialog_run_async (self->send_dialog,
                                       self->cancellable,
                                       assay_window_send_dialog_done_cb,
                                       g_object_ref (self));
}

gboolean
assay_window_destination_holds_send (AssayWindow *self)
{
  assay_model_destination_check_now (self->destination);
  if (assay_model_destination_get_pending_host (self->destination) == NULL)
    return FALSE;
  self->send_when_confirmed = TRUE;
  assay_window_destination_ask (self);
  return TRUE;
}

/* Where the header is narrow, the title says it in full under "Assay" (AdwViewSwitcherTitle
 * shows its subtitle in place of the view switcher). */
static void
assay_window_destination_subtitle_cb (AssayWindow *self)
{
  adw_view_switcher_title_set_subtitle (self->switcher_title, assay_model_destination_get_configured (self->destination)
                                               ? assay_model_destination_get_title (self->destination) : NULL);
}

static void
assay_window_destination_sandbox_cb (AssayWindow *self)
{
  assay_destination_button_set_sandbox (self->destination_button, assay_conversation_get_sandbox (self->conversation));
}

/* ---- Runs on OpenAI ------------------------------------------------------------------------ */

/* Offered while the model is OpenAI's (whether its API allows it is said when it is chosen),
 * and while it is chosen. */
static void
assay_window_hosted_offered_cb (AssayWindow *self)
{
  g_autofree char *provider = g_settings_get_string (self->settings, "provider");
  gboolean on = assay_conversation_get_runs_on_openai (self->conversation);

  assay_destination_button_set_hosted_offered (self->destination_button, on || g_str_equal (provider, "openai"));
}

static void
assay_window_hosted_mode_cb (AssayWindow *self)
{
  GtkSwitch *sw = assay_destination_button_get_hosted_switch (self->destination_button);
  gboolean on = assay_conversation_get_runs_on_openai (self->conversation);

  gtk_switch_set_state (sw, on);
  gtk_switch_set_active (sw, on);
  assay_window_hosted_offered_cb (self);
}

static void
assay_window_hosted_response_cb (AdwMessageDialog *dialog,
                                 const char       *response,
                                 AssayWindow      *self)
{
  g_autoptr(GError) error = NULL;

  if (self->hosted_dialog == dialog)
    self->hosted_dialog = NULL;
  if (g_strcmp0 (response, "run") == 0 &&
      !assay_conversation_set_runs_on_openai (self->conversation, TRUE, &error))
    assay_window_show_toast (self, error->message);
  /* The switch shows the mode as it is now, whatever was answered. */
  assay_window_hosted_mode_cb (self);
}

static AdwMessageDialog *
assay_window_hosted_dialog_new (AssayWindow *self,
                                const char  *refusal)
{
  AdwMessageDialog *dialog;

  if (refusal != NULL)
    {
      dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                                                           _("The Code Cannot Run on OpenAI"), refusal));
      adw_message_dialog_add_response (dialog, "close", _("_Close"));
      return dialog;
    }
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                                                       _("Run This Session's Code on OpenAI?"),
                                                       _("The session's datasets are uploaded whole to OpenAI, and "
                                                         "the code the model writes runs there, in OpenAI's hosted "
                                                         "code interpreter, as the model writes it: nothing waits "
                                                         "for your approval. The session's record and its reports "
                                                         "say where the code ran. The container is removed when "
                                                         "you leave the session.")));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "run", _("_Run on OpenAI"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "run", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  return dialog;
}

/* Turning it on asks first (the plain statement, or why it cannot be); turning it off
 * does it. */
static gboolean
assay_window_hosted_state_set_cb (GtkSwitch   *sw,
                                  gboolean     state,
                                  AssayWindow *self)
{
  g_autofree char *refusal = NULL;
  g_autoptr(GError) error = NULL;

  if (state == assay_conversation_get_runs_on_openai (self->conversation))
    return FALSE;
  if (!state)
    {
      if (!assay_conversation_set_runs_on_openai (self->conversation, FALSE, &error))
        assay_window_show_toast (self, error->message);
      assay_window_hosted_mode_cb (self);
      return TRUE;
    }
  if (self->hosted_dialog != NULL)
    return TRUE;
  if (assay_conversation_get_busy (self->conversation))
    refusal = g_strdup (_("Where the code runs changes between questions: wait for this one to end."));
  else
    refusal = assay_conversation_dup_hosted_refusal (self->conversation);
  self->hosted_dialog = assay_window_hosted_dialog_new (self, refusal);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (self->hosted_dialog), TRUE);
  g_signal_connect_object (self->hosted_dialog, "response",
                           G_CALLBACK (assay_window_hosted_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (self->hosted_dialog));
  return TRUE;
}

static void
assay_window_init_hosted (AssayWindow *self)
{
  GtkSwitch *sw = assay_destination_button_get_hosted_switch (self->destination_button);

  g_signal_connect_object (sw, "state-set", G_CALLBACK (assay_window_hosted_state_set_cb), self, 0);
  g_signal_connect_object (self->conversation, "notify::runs-on-openai",
                           G_CALLBACK (assay_window_hosted_mode_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::provider",
                           G_CALLBACK (assay_window_hosted_offered_cb), self, G_CONNECT_SWAPPED);
  assay_window_hosted_mode_cb (self);
}

AdwMessageDialog *
assay_window_get_hosted_dialog (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->hosted_dialog;
}

void
assay_window_init_destination (AssayWindow *self)
{
  self->destination = assay_model_destination_new (self->settings, self->conversation);
  assay_destination_button_set_destination (self->destination_button, self->destination);
  g_signal_connect_object (self->destination, "notify::title",
                           G_CALLBACK (assay_window_destination_subtitle_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->destination, "notify::configured",
                           G_CALLBACK (assay_window_destination_subtitle_cb), self, G_CONNECT_SWAPPED);
  assay_window_destination_subtitle_cb (self);
  g_signal_connect_object (self->conversation, "notify::sandbox",
                           G_CALLBACK (assay_window_destination_sandbox_cb), self, G_CONNECT_SWAPPED);
  assay_window_destination_sandbox_cb (self);
  g_signal_connect_object (self->destination, "notify::pending-host",
                           G_CALLBACK (assay_window_destination_ask), self, G_CONNECT_SWAPPED);
  /* Back from Preferences (or another window): the question waits no longer. */
  g_signal_connect (self, "notify::is-active", G_CALLBACK (assay_window_destination_ask), NULL);
  assay_window_init_hosted (self);
}

AssayModelDestination *
assay_window_get_destination (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->destination;
}

AssayDestinationButton *
assay_window_get_destination_button (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->destination_button;
}

AdwMessageDialog *
assay_window_get_send_dialog (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->send_dialog != NULL ? ADW_MESSAGE_DIALOG (self->send_dialog) : NULL;
}
