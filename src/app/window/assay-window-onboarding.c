/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The first run: the onboarding page's choice of a model (stored in GSettings, its key in the
 * keyring) and the recorded demo. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-demo.h"
#include "assay-keyring.h"
#include "assay-model-choice.h"
#include "assay-window-private.h"

/* ---- first run and the demo ------------------------------------------------------------- */

void
assay_window_start_demo (AssayWindow *self)
{
  g_autofree char *transcript = assay_demo_find_file (ASSAY_DEMO_TRANSCRIPT);
  g_autofree char *csv = assay_demo_find_file (ASSAY_DEMO_DATASET);
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;

  g_return_if_fail (ASSAY_IS_WINDOW (self));
  /* The question that waited for a model is dropped: the demo is a session of its own. */
  if (assay_conversation_get_awaiting_model (self->conversation))
    assay_conversation_stop (self->conversation);
  if (assay_conversation_get_busy (self->conversation))
    return;
  provider = assay_recorded_provider_new (transcript, &error);
  if (provider == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The demo is not installed: %s"), error->message);

      assay_window_show_toast (self, text);
      return;
    }
  /* What was opening or open is let go of: the demo is a session of its own. */
  assay_window_new_session (self);
  assay_window_set_provider (self, provider, "recorded", TRUE);
  gtk_stack_set_visible_child_name (self->main_stack, "main");
  file = g_file_new_for_path (csv);
  assay_window_add_files (self, &file, 1);
  assay_chat_view_set_composer_text (self->chat_view, assay_demo_question ());
}

void
assay_window_onboarding_demo (AssayWindow *self)
{
  assay_window_start_demo (self);
}

static void
assay_window_key_stored_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(AssayWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!assay_keyring_store_finish (result, &error) && !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *text = g_strdup_printf (_("The key could not be stored in the keyring: %s"), error->message);

      assay_window_show_toast (self, text);
    }
}

void
assay_window_onboarding_configured (AssayWindow *self,
                                    const char  *provider,
                                    const char  *base_url,
                                    const char  *model,
                                    const char  *key)
{
  if (model == NULL)
    model = g_str_equal (provider, "anthropic") || base_url == NULL
            ? assay_model_choice_get_default (provider) : "";
  g_settings_set_string (self->settings, "provider", provider);
  g_settings_set_string (self->settings, "base-url", base_url ? base_url : "");
  g_settings_set_string (self->settings, "model", model);
  if (key != NULL && *key != '\0')
    assay_keyring_store_async (provider,
                               base_url,
                               key,
                               self->cancellable,
                               assay_window_key_stored_cb,
                               g_object_ref (self));
  gtk_stack_set_visible_child_name (self->main_stack, "main");
  assay_chat_view_focus_composer (self->chat_view);
  /* The question that sent the analyst here goes on with the model chosen. */
  assay_conversation_model_chosen (self->conversation);
}

