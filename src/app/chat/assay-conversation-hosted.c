/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Runs on OpenAI": a session whose code the model runs in OpenAI's hosted code interpreter
 * (the Responses API's code_interpreter tool in a container of the Containers API), chosen
 * knowingly for that session. What may be chosen, the container made with the key the
 * question's provider was made with, and the container removed off the main thread when the
 * session is left or the mode is turned off. The agent does the rest (assay_agent_new_hosted). */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-conversation-private.h"
#include "assay-app-settings.h"
#include "assay-model-choice.h"

char *
assay_conversation_dup_hosted_refusal (AssayConversation *self)
{
  GPtrArray *masks;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);

  if (self->provider_fixed || self->recorded)
    return g_strdup (_("This session answers from a model Assay was given for it (the demo's recording), "
                       "which has no code interpreter."));
  if (!assay_app_settings_speak_responses (self->settings))
    return g_strdup (_("Running the code on OpenAI needs OpenAI's Responses API: choose OpenAI as the model "
                       "provider in Preferences, with the Responses API (or “Automatic” on OpenAI's own "
                       "server)."));
  if (assay_conversation_get_privacy_mode (self) != ASSAY_PRIVACY_FULL)
    return g_strdup (_("This session lets the model see only masked values or the schema, but OpenAI's code "
                       "interpreter would receive the datasets whole: set the session to full data first."));
  masks = self->session != NULL ? assay_session_get_masked_columns (self->session) : NULL;
  if (masks != NULL && masks->len > 0)
    return g_strdup (_("This session has masked columns, but OpenAI's code interpreter would receive their "
                       "values: unmask them first."));
  if (self->connections != NULL && g_list_model_get_n_items (G_LIST_MODEL (self->connections)) > 0)
    return g_strdup (_("This session queries databases, which OpenAI's code interpreter cannot reach: "
                       "remove them from the session first."));
  return NULL;
}

gboolean
assay_conversation_get_runs_on_openai (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->runs_on_openai;
}

gboolean
assay_conversation_set_runs_on_openai (AssayConversation  *self,
                                       gboolean            runs_on_openai,
                                       GError            **error)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  runs_on_openai = !!runs_on_openai;
  if (self->runs_on_openai == runs_on_openai)
    return TRUE;
  if (self->busy)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           _("Where the code runs changes between questions: wait for this one to end."));
      return FALSE;
    }
  if (runs_on_openai)
    {
      g_autofree char *refusal = assay_conversation_dup_hosted_refusal (self);

      if (refusal != NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, refusal);
          return FALSE;
        }
    }
  /* The kernel (or the container) of the other mode goes; the key is read again, for the
   * container. The session and its record stay. */
  assay_conversation_close_agent_async (self);
  if (!self->provider_fixed)
    g_clear_object (&self->provider);
  g_clear_pointer (&self->container, assay_openai_container_unref);
  self->runs_on_openai = runs_on_openai;
  g_free (self->hosted_session_id);
  self->hosted_session_id = runs_on_openai && self->session != NULL
                            ? g_strdup (assay_session_get_id (self->session)) : NULL;
  assay_conversation_notify_runs_on_openai_internal (self);
  assay_conversation_notify_sandbox (self);
  if (!runs_on_openai && self->want_warm)
    assay_conversation_prewarm (self);
  return TRUE;
}

static void
assay_conversation_container_deleted_cb (GObject      *source,
                                         GAsyncResult *result,
                                         gpointer      user_data)
{
  g_autoptr(GApplication) app = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_message ("OpenAI's container was not removed (it expires by itself after %u minutes): %s",
               ASSAY_OPENAI_CONTAINER_MINUTES, error->message);
  if (app != NULL)
    g_application_release (app);
}

static void
assay_conversation_delete_container_thread (GTask        *task,
                                            gpointer      source,
                                            gpointer      task_data,
                                            GCancellable *cancellable)
{
  GError *error = NULL;

  if (!assay_openai_container_delete (task_data, NULL, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
assay_conversation_delete_container (AssayOpenaiContainer *container)
{
  GApplication *app = g_application_get_default ();
  g_autoptr(GTask) task = NULL;

  if (container == NULL || assay_openai_container_get_id (container) == NULL)
    return;
  /* The application stays until OpenAI has let go of it (it is billed while it lives). */
  if (app != NULL)
    g_application_hold (app);
  task = g_task_new (NULL, NULL, assay_conversation_container_deleted_cb, app != NULL ? g_object_ref (app) : NULL);
  g_task_set_source_tag (task, assay_conversation_delete_container);
  g_task_set_task_data (task, assay_openai_container_ref (container), (GDestroyNotify) assay_openai_container_unref);
  g_task_run_in_thread (task, assay_conversation_delete_container_thread);
}
