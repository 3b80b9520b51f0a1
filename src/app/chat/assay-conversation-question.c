/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A question's path: ask → session → provider (key from the keyring) → sandbox backend
 * (chosen in a worker) → AssayKernelSession → AssayAgent → ::finished; and closing, which
 * lets the agent record how the question ended before the kernel goes. The wiring follows
 * src/cli/assay-cli-ask.c. */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-settings.h"
#include "assay-conversation-private.h"
#include "assay-kernel-session.h"
#include "assay-keyring.h"
#include "assay-model-choice.h"
#include "assay-rerun.h"
#include "assay-sandbox-choice.h"
#include "assay-sandbox-pool.h"

/* How long a closed window lets the sandbox stop a running cell before closing it. */
#define CLOSE_GRACE_MS 2000

/* Lets go of the agent and hands back its kernel, which the caller closes. */
static AssayKernelSession *
assay_conversation_take_kernel (AssayConversation *self)
{
  if (self->agent != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->agent, self);
      /* Run on OpenAI: its container goes with the agent (a worker asks OpenAI to remove it). */
      assay_conversation_delete_container (assay_agent_get_container (self->agent));
      g_clear_object (&self->agent);
      g_object_notify (G_OBJECT (self), "agent");
    }
  assay_conversation_set_waiting_internal (self, NULL);
  return g_steal_pointer (&self->kernel);
}

/* A sandbox that can wait for the session (E2B's, paused) is kept, and the record says
 * which: opening the session again resumes it with its kernel's state. The record is written
 * only when that changes (SYNC: before returning, as the application may end next). */
static void
assay_conversation_keep_sandbox (AssayConversation *self,
                                 gboolean           sync)
{
  g_autofree char *resume_id = NULL;

  if (self->kernel == NULL || self->session == NULL)
    return;
  resume_id = assay_kernel_session_dup_resume_id (self->kernel);
  if (resume_id == NULL && assay_session_get_sandbox_resume_id (self->session) == NULL)
    return;
  assay_kernel_session_set_keep_on_close (self->kernel, resume_id != NULL);
  assay_session_set_sandbox_resume_id (self->session, resume_id);
  if (!sync)
    assay_session_save_async (self->session, NULL, NULL, NULL);
  else if (!assay_session_save (self->session, NULL))
    g_debug ("the session could not be saved before its sandbox closed");
}

void
assay_conversation_close_agent (AssayConversation *self)
{
  g_autoptr(AssayKernelSession) kernel = NULL;

  assay_conversation_keep_sandbox (self, TRUE);
  kernel = assay_conversation_take_kernel (self);
  if (kernel != NULL)
    assay_kernel_session_close (kernel);
}

static void
assay_conversation_kernel_closed_cb (GObject      *source,
                                     GAsyncResult *result,
                                     gpointer      user_data)
{
  g_autoptr(GApplication) app = user_data;

  assay_kernel_session_close_finish (ASSAY_KERNEL_SESSION (source), result, NULL);
  if (app != NULL)
    g_application_release (app);
}

/* The same while the window lives on (another session, other settings): the sandbox is
 * removed off the main thread, and the application stays until it is gone. */
void
assay_conversation_close_agent_async (AssayConversation *self)
{
  GApplication *app = g_application_get_default ();
  g_autoptr(AssayKernelSession) kernel = NULL;

  assay_conversation_keep_sandbox (self, FALSE);
  kernel = assay_conversation_take_kernel (self);

  if (kernel != NULL)
    {
      if (app != NULL)
        g_application_hold (app);
      assay_kernel_session_close_async (kernel, assay_conversation_kernel_closed_cb,
                                        app != NULL ? g_object_ref (app) : NULL);
    }
}

static void
assay_conversation_approval_needed_cb (AssayAgent        *agent,
                                       const char        *cell_id,
                                       const char        *code,
                                       const char        *description,
                                       AssayConversation *self)
{
  assay_conversation_set_waiting_internal (self, cell_id);
}

static void
assay_conversation_artifact_added_cb (AssayAgent        *agent,
                                      const char        *cell_id,
                                      const char        *name,
                                      const char        *path,
                                      AssayConversation *self)
{
  g_autoptr(GError) error = NULL;

  if (self->artifacts != NULL &&
      assay_artifact_list_get_session (self->artifacts) == assay_agent_get_session (agent) &&
      !assay_artifact_list_add (self->artifacts, cell_id, name, path, &error))
    g_debug ("artifact %s left out of the gallery: %s", name, error->message);
}

static void
assay_conversation_cell_finished_cb (AssayAgent        *agent,
                                     const char        *cell_id,
                                     AssayCellResult   *result,
                                     AssayConversation *self)
{
  assay_conversation_update_exportable (self);
}

/* Closing: the agent has ended (or the grace period is over); the sandbox goes, and the
 * application may quit. */
void
assay_conversation_finish_closing (AssayConversation *self)
{
  g_clear_handle_id (&self->close_grace_source, g_source_remove);
  assay_conversation_close_agent (self);
  if (self->held != NULL)
    {
      g_application_release (self->held);
      g_clear_object (&self->held);
    }
}

static void
assay_conversation_end_question (AssayConversation *self,
                                 AssayAgentOutcome  outcome,
                                 const char        *text)
{
  g_clear_object (&self->ask_cancellable);
  g_clear_pointer (&self->question, g_free);
  self->continuing = FALSE;
  self->rewriting = FALSE;
  assay_conversation_set_waiting_internal (self, NULL);
  assay_conversation_update_exportable (self);
  assay_conversation_set_busy_internal (self, FALSE);
  g_signal_emit_by_name (self, "finished", (int) outcome, text);
}

/* A failure that another server, key or model, or the same server a moment later, can
 * mend: not a request the server rejected as such, nor the end of a recorded transcript. */
static gboolean
assay_conversation_is_server_problem (const GError *error)
{
  if (error == NULL || error->domain != ASSAY_LLM_ERROR)
    return FALSE;
  switch (error->code)
    {
    case ASSAY_LLM_ERROR_AUTH:
    case ASSAY_LLM_ERROR_NOT_FOUND:
    case ASSAY_LLM_ERROR_RATE_LIMITED:
    case ASSAY_LLM_ERROR_OVERLOADED:
    case ASSAY_LLM_ERROR_SERVER:
    case ASSAY_LLM_ERROR_NETWORK:
    case ASSAY_LLM_ERROR_PROTOCOL:
      return TRUE;
    default:
      return FALSE;
    }
}

static void
assay_conversation_asked_cb (GObject      *source,
                             GAsyncResult *result,
                             gpointer      user_data)
{
  g_autoptr(AssayConversation) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  AssayAgentOutcome outcome;

  outcome = assay_agent_ask_finish (ASSAY_AGENT (source), result, &text, &error);
  self->asking = FALSE;
  if (self->closing)
    {
      /* The window is gone: the session on disk says how the question ended. */
      assay_conversation_finish_closing (self);
      return;
    }
  switch (outcome)
    {
    case ASSAY_AGENT_ANSWERED:
      if (text == NULL)
        text = g_strdup ("");
      break;
    case ASSAY_AGENT_CANCELLED:
    case ASSAY_AGENT_STOPPED:
      g_free (text);
      text = g_strdup (_("Stopped."));
      break;
    case ASSAY_AGENT_STEP_LIMIT:
    case ASSAY_AGENT_BUDGET:
      /* The text says why: the step limit, or what was spent of the budget. */
      break;
    case ASSAY_AGENT_MODEL_ERROR:
      /* ::error said it already; what the server did can be fixed from the chat. */
      if (assay_conversation_is_server_problem (error) && !self->recorded)
        assay_conversation_set_server_problem_internal (self, text);
      g_clear_pointer (&text, g_free);
      break;
    case ASSAY_AGENT_SANDBOX_ERROR:
    default:
      /* ::error said it already. */
      g_clear_pointer (&text, g_free);
      break;
    }
  assay_conversation_end_question (self, outcome, text);
  assay_session_store_reload (self->store);
}

void
assay_conversation_fail_question (AssayConversation *self,
                                  AssayAgentOutcome  outcome,
                                  const char        *message)
{
  assay_conversation_end_question (self, outcome, message);
}

static void assay_conversation_ensure_provider (AssayConversation *self);

static void
assay_conversation_connect_agent (AssayConversation *self)
{
  /* The record is written by workers: fsync must not hold up the window. */
  assay_agent_set_background_saves (self->agent, TRUE);
  g_signal_connect (self->agent,
                    "approval-needed",
                    G_CALLBACK (assay_conversation_approval_needed_cb),
                    self);
  g_signal_connect (self->agent,
                    "artifact-added",
                    G_CALLBACK (assay_conversation_artifact_added_cb),
                    self);
  g_signal_connect (self->agent, "cell-finished", G_CALLBACK (assay_conversation_cell_finished_cb), self);
  g_object_notify (G_OBJECT (self), "agent");
}

/* Runs on OpenAI: the agent runs the code in a container of OpenAI's (made with the key the
 * provider was made with); what no longer allows it fails the question, said so, and
 * nothing runs on this computer instead. FALSE: the question goes on later, or has ended. */
static gboolean
assay_conversation_start_hosted (AssayConversation *self)
{
  g_autofree char *refusal = assay_conversation_dup_hosted_refusal (self);

  if (refusal == NULL && self->provider == NULL)
    refusal = g_strdup (_("the model server's address in Preferences cannot be read."));
  else if (refusal == NULL && g_strcmp0 (assay_llm_provider_get_wire_format (self->provider), "responses") != 0)
    refusal = g_strdup (_("the model's server does not speak OpenAI's Responses API."));
  if (refusal != NULL)
    {
      /* Translators: the reason follows. */
      g_autofree char *text = g_strdup_printf (_("This session's code runs on OpenAI, which cannot be done now: %s"),
                                               refusal);

      assay_conversation_fail_question (self, ASSAY_AGENT_SANDBOX_ERROR, text);
      return FALSE;
    }
  /* An agent of this computer's sandbox, left from before the mode was chosen. */
  if (self->agent != NULL && assay_agent_get_container (self->agent) == NULL)
    assay_conversation_close_agent_async (self);
  if (self->agent != NULL)
    return TRUE;
  if (self->container == NULL)
    {
      /* The container is made with the key: read it again (its last agent had taken it). */
      g_clear_object (&self->provider);
      assay_conversation_ensure_provider (self);
      return FALSE;
    }
  self->agent = assay_agent_new_hosted (self->provider, self->container, self->session);
  g_clear_pointer (&self->container, assay_openai_container_unref);
  assay_conversation_connect_agent (self);
  return TRUE;
}

/* Before a new agent restores the session: every cell it would run again is the code the
 * analyst approved here. Otherwise the question waits for the analyst's word. */
static gboolean
assay_conversation_check_sealed (AssayConversation *self)
{
  g_autoptr(GPtrArray) cells = assay_session_dup_unsealed_cells (self->session);

  if (cells->len == 0)
    return TRUE;
  g_clear_pointer (&self->unsealed, g_ptr_array_unref);
  self->unsealed = g_ptr_array_ref (cells);
  g_signal_emit_by_name (self, "unsealed-cells", cells);
  return FALSE;
}

gboolean
assay_conversation_get_awaiting_approval (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->unsealed != NULL;
}

static void assay_conversation_start_question (AssayConversation *self);

void
assay_conversation_approve_unsealed (AssayConversation *self,
                                     gboolean           approve)
{
  g_autoptr(GPtrArray) cells = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) names = g_string_new (NULL);

  g_return_if_fail (ASSAY_IS_CONVERSATION (self));

  if (self->unsealed == NULL)
    return;
  cells = g_steal_pointer (&self->unsealed);
  if (approve && assay_session_approve_cells (self->session, cells, &error))
    {
      assay_conversation_start_question (self);
      return;
    }
  for (guint i = 0; i < cells->len; i++)
    g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", ((AssaySessionCell *) g_ptr_array_index (cells, i))->id);
  if (error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The cells could not be approved: %s"), error->message);

      assay_conversation_fail_question (self, ASSAY_AGENT_SANDBOX_ERROR, text);
    }
  else
    {
      /* Translators: %s lists cells, "c2, c5". */
      g_autofree char *text = g_strdup_printf (_("Nothing ran: the code of %s is not the code approved here, and it "
                                                 "was not approved again."), names->str);

      assay_conversation_fail_question (self, ASSAY_AGENT_SANDBOX_ERROR, text);
    }
}

static void
assay_conversation_start_question (AssayConversation *self)
{
  if (self->runs_on_openai)
    {
      if (!assay_conversation_start_hosted (self))
        return;
    }
  else if (self->agent == NULL && assay_session_ran_hosted (self->session))
    {
      /* Its code was never approved here: neither replayed in this computer's sandbox nor
       * handed to a loop without the code interpreter (the agent refuses it too). */
      assay_conversation_fail_question (self, ASSAY_AGENT_SANDBOX_ERROR,
                                        _("This session's code ran in OpenAI's hosted code interpreter and was never "
                                          "approved here: turn on Run the Code on OpenAI in the header's popover to "
                                          "go on with it there, or start a new session."));
      return;
    }
  else if (self->agent == NULL && !assay_conversation_check_sealed (self))
    return;
  else if (self->agent == NULL)
    {
      g_autofree char *artifact_dir = assay_session_get_artifact_dir (self->session);

      /* A warm sandbox when the pool has one (its first cell pays for no start); the pool
       * starts the next one. */
      self->kernel = self->pool != NULL ? assay_sandbox_pool_take_session (self->pool, artifact_dir)
                                        : assay_kernel_session_new (self->backend, self->spec, artifact_dir);
      self->agent = assay_agent_new (self->provider, self->kernel, self->session);
      /* Its restore asks the session's queries again when the analyst chose so. */
      assay_agent_set_requery (self->agent, self->requery);
      assay_conversation_connect_agent (self);
    }
  if (self->model != NULL && *self->model != '\0')
    assay_agent_set_model (self->agent, self->model);
  assay_agent_set_max_steps (self->agent, g_settings_get_uint (self->settings, "max-steps"));
  assay_agent_set_fenced_code_fallback (self->agent,
                                        g_settings_get_boolean (self->settings, "fenced-code-fallback"));
  assay_agent_set_check_numbers (self->agent, g_settings_get_boolean (self->settings, "check-numbers"));
  assay_agent_set_approval_policy (self->agent, self->auto_run ? ASSAY_APPROVAL_POLICY_AUTO
                                                               : ASSAY_APPROVAL_POLICY_ASK);
  /* The masker, the descriptions the mode wants, the prices and the budget; then
   * assay_conversation_ask_agent (). */
  assay_conversation_prepare_question (self);
}

static void
assay_conversation_rewritten_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(AssayConversation) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) save_error = NULL;
  g_autofree char *rewrite = assay_agent_rewrite_finish (ASSAY_AGENT (source), result, &error);
  g_autofree char *text = NULL;

  self->asking = FALSE;
  self->rewriting = FALSE;
  if (self->closing)
    {
      assay_conversation_finish_closing (self);
      return;
    }
  if (rewrite != NULL)
    {
      assay_session_set_rewrite (self->session, rewrite);
      if (!assay_session_save (self->session, &save_error))
        g_warning ("the rewrite was not saved: %s", save_error->message);
      g_clear_object (&self->ask_cancellable);
      assay_conversation_set_busy_internal (self, FALSE);
      g_signal_emit_by_name (self, "rewritten", rewrite);
      return;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    text = g_strdup (_("Stopped."));
  else
    /* Translators: the reason follows. */
    text = g_strdup_printf (_("The model could not rewrite the summary: %s"), error->message);
  assay_conversation_end_question (self, ASSAY_AGENT_MODEL_ERROR, text);
}

void
assay_conversation_ask_agent (AssayConversation *self)
{
  g_autofree char *question = g_steal_pointer (&self->question);

  self->asking = TRUE;
  if (self->rewriting)
    {
      g_autofree char *instruction = assay_rerun_rewrite_instruction (assay_session_get_answer (self->session));

      assay_agent_rewrite_async (self->agent, instruction, self->ask_cancellable,
                                 assay_conversation_rewritten_cb, g_object_ref (self));
    }
  else if (self->continuing)
    assay_agent_continue_async (self->agent,
                                self->ask_cancellable,
                                assay_conversation_asked_cb,
                                g_object_ref (self));
  else
    assay_agent_ask_async (self->agent,
                           question,
                           self->ask_cancellable,
                           assay_conversation_asked_cb,
                           g_object_ref (self));
}

static void assay_conversation_choose_backend (AssayConversation *self);

/* The choice is shared by a question waiting for it and a prewarm asking for it; a choice
 * made under settings changed since is dropped and made again. */
static void
assay_conversation_backend_chosen_cb (GObject      *source,
                                      GAsyncResult *result,
                                      gpointer      user_data)
{
  g_autoptr(AssayConversation) self = user_data;
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(AssaySandboxSpec) spec = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  guint serial = GPOINTER_TO_UINT (g_task_get_task_data (G_TASK (result)));
  gboolean waits;

  g_autoptr(GAsyncResult) chosen = g_task_propagate_pointer (G_TASK (result), &error);

  backend = chosen != NULL ? assay_sandbox_choose_backend_finish (chosen, &spec, &reason, &error) : NULL;
  self->choosing = FALSE;
  if (self->closing)
    return;
  if (serial != self->backend_serial)
    {
      /* The settings changed meanwhile: what waits gets a choice under the new ones. */
      if (self->question_waits || self->want_warm)
        assay_conversation_choose_backend (self);
      return;
    }
  if (backend != NULL)
    {
      g_set_object (&self->backend, backend);
      g_clear_pointer (&self->spec, assay_sandbox_spec_free);
      self->spec = g_steal_pointer (&spec);
      g_free (self->backend_reason);
      self->backend_reason = g_steal_pointer (&reason);
      g_free (self->backend_where);
      self->backend_where = assay_sandbox_describe_backend (backend);
      assay_conversation_notify_sandbox (self);
    }
  waits = self->question_waits;
  self->question_waits = FALSE;
  if (waits)
    {
      if (backend == NULL)
        {
          g_autofree char *text = g_strdup_printf (_("The sandbox cannot be used: %s"), error->message);

          assay_conversation_fail_question (self, ASSAY_AGENT_SANDBOX_ERROR, text);
        }
      else if (g_cancellable_is_cancelled (self->ask_cancellable))
        assay_conversation_fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      else
        assay_conversation_start_question (self);
    }
  else if (backend == NULL)
    g_debug ("no sandbox to warm: %s", error->message);
  if (self->backend != NULL && self->want_warm)
    assay_conversation_prewarm (self);
}

static void
assay_conversation_choice_ready_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  GTask *task = user_data;

  /* Handed on with the serial it was asked under. */
  g_task_return_pointer (task, g_object_ref (result), g_object_unref);
  g_object_unref (task);
}

/* E2B, chosen knowingly in the settings, runs with the key from the keyring; without one the
 * question fails with that said, never on this machine instead. */
static void
assay_conversation_e2b_found_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(AssayE2bSettings) e2b = NULL;
  g_autoptr(GError) error = NULL;
  AssaySandboxSpec *spec = g_object_get_data (G_OBJECT (task), "spec");

  e2b = assay_app_e2b_settings_lookup_finish (result, &error);
  if (e2b == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               _("E2B's key could not be read from the keyring: %s"), error->message);
      g_object_unref (task);
      return;
    }
  if (e2b->api_key == NULL || e2b->api_key[0] == '\0')
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("E2B is chosen in Preferences, but no E2B key is stored: add it in "
                                 "Preferences → Sandbox."));
      g_object_unref (task);
      return;
    }
  assay_sandbox_choose_backend_e2b_async ("e2b", e2b, spec, NULL, assay_conversation_choice_ready_cb, task);
}

/* In a worker: it probes the Docker socket. Once at a time, with the limits the settings
 * give; again when they change. */
static void
assay_conversation_choose_backend (AssayConversation *self)
{
  g_autoptr(AssaySandboxSpec) spec = NULL;
  g_autofree char *name = NULL;
  GTask *task;

  if (self->choosing)
    return;
  self->choosing = TRUE;
  name = g_settings_get_string (self->settings, "sandbox-backend");
  spec = assay_app_sandbox_spec_new (self->settings);
  task = g_task_new (NULL, NULL, assay_conversation_backend_chosen_cb, g_object_ref (self));
  g_task_set_source_tag (task, assay_conversation_choose_backend);
  g_task_set_task_data (task, GUINT_TO_POINTER (self->backend_serial), NULL);
  if (g_strcmp0 (name, "e2b") == 0)
    {
      g_object_set_data_full (G_OBJECT (task), "spec", g_steal_pointer (&spec), (GDestroyNotify) assay_sandbox_spec_free);
      assay_app_e2b_settings_lookup_async (self->settings, self->cancellable, assay_conversation_e2b_found_cb, task);
      return;
    }
  assay_sandbox_choose_backend_async (name,
                                      spec,
                                      self->cancellable,
                                      assay_conversation_choice_ready_cb,
                                      task);
}

static void
assay_conversation_ensure_backend (AssayConversation *self)
{
  /* Run on OpenAI: no sandbox of this computer's is chosen or started. */
  if (self->backend != NULL || self->runs_on_openai)
    {
      assay_conversation_start_question (self);
      return;
    }
  self->question_waits = TRUE;
  assay_conversation_choose_backend (self);
}

void
assay_conversation_prewarm (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (self->closing)
    return;
  self->want_warm = TRUE;
  if (self->runs_on_openai)
    return;
  if (self->backend == NULL)
    {
      assay_conversation_choose_backend (self);
      return;
    }
  /* A hosted sandbox is not started ahead: it is billed, and a session may resume its own. */
  if (g_strcmp0 (assay_sandbox_backend_get_name (self->backend), "e2b") == 0)
    return;
  if (self->pool == NULL)
    self->pool = assay_sandbox_pool_new (self->backend, self->spec);
  assay_sandbox_pool_prewarm (self->pool);
}

void
assay_conversation_forget_backend (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  self->backend_serial++;
  g_clear_object (&self->backend);
  if (self->pool != NULL)
    {
      assay_sandbox_pool_empty (self->pool);
      g_clear_object (&self->pool);
    }
}

const char *
assay_conversation_get_warm_id (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->pool != NULL ? assay_sandbox_pool_get_warm_id (self->pool) : NULL;
}

gboolean
assay_conversation_get_warm (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->pool != NULL && assay_sandbox_pool_has_warm (self->pool);
}

static void
assay_conversation_key_found_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(AssayConversation) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;
  const char *server;
  char *key;

  key = assay_keyring_lookup_finish (result, &error);
  if (g_cancellable_is_cancelled (self->ask_cancellable))
    {
      secret_password_free (key);
      assay_conversation_fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      return;
    }
  if (error != NULL)
    g_debug ("no key from the keyring: %s", error->message);

  provider = g_settings_get_string (self->settings, "provider");
  base_url = g_settings_get_string (self->settings, "base-url");
  server = *base_url ? base_url : assay_model_choice_get_cloud_base_url (provider);
  g_clear_object (&self->provider);
  /* Anything but Anthropic speaks OpenAI's protocol (local servers included). */
  if (g_str_equal (provider, "anthropic"))
    self->provider = assay_llm_provider_new_for_name ("anthropic", server, key, NULL);
  else
    {
      g_autofree char *api = g_settings_get_string (self->settings, "openai-api");

      self->provider = assay_llm_provider_new_for_name_and_api ("openai", server, key, api, NULL);
    }
  /* Run on OpenAI: the container is made with the same key, for the agent to be made. */
  g_clear_pointer (&self->container, assay_openai_container_unref);
  if (self->runs_on_openai && self->provider != NULL &&
      (self->agent == NULL || assay_agent_get_container (self->agent) == NULL))
    self->container = assay_openai_container_new (assay_llm_provider_get_base_url (self->provider), key);
  secret_password_free (key);
  /* Try Again after the server or the key changed: the agent keeps its session and kernel. */
  if (self->agent != NULL)
    assay_agent_set_provider (self->agent, self->provider);

  g_free (self->model);
  self->model = g_settings_get_string (self->settings, "model");
  if (*self->model == '\0')
    {
      g_free (self->model);
      self->model = g_strdup (assay_model_choice_get_default (provider));
    }
  assay_conversation_ensure_backend (self);
}

static void
assay_conversation_ensure_provider (AssayConversation *self)
{
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;

  if (self->provider != NULL)
    {
      assay_conversation_ensure_backend (self);
      return;
    }
  provider = g_settings_get_string (self->settings, "provider");
  if (*provider == '\0')
    {
      /* The question waits (busy) while the analyst chooses one: assay_conversation_model_chosen (). */
      self->awaiting_model = TRUE;
      g_signal_emit_by_name (self, "needs-model");
      return;
    }
  base_url = g_settings_get_string (self->settings, "base-url");
  assay_keyring_lookup_async (provider,
                              base_url,
                              self->ask_cancellable,
                              assay_conversation_key_found_cb,
                              g_object_ref (self));
}

void
assay_conversation_model_chosen (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));

  if (!self->provider_fixed)
    g_clear_object (&self->provider);
  if (!self->awaiting_model)
    return;
  self->awaiting_model = FALSE;
  assay_conversation_ensure_provider (self);
}

gboolean
assay_conversation_get_awaiting_model (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->awaiting_model;
}

gboolean
assay_conversation_ask (AssayConversation  *self,
                        const char         *question,
                        GError            **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (question != NULL, FALSE);

  text = g_strstrip (g_strdup (question));
  if (self->busy || *text == '\0')
    return FALSE;
  if (!assay_conversation_ensure_session (self, error))
    return FALSE;
  g_free (self->question);
  self->question = g_strdup (text);
  g_clear_object (&self->ask_cancellable);
  self->ask_cancellable = g_cancellable_new ();
  assay_conversation_set_server_problem_internal (self, NULL);
  assay_conversation_set_busy_internal (self, TRUE);
  g_signal_emit_by_name (self, "asked", text);
  assay_conversation_ensure_provider (self);
  return TRUE;
}

gboolean
assay_conversation_rewrite (AssayConversation *self)
{
  const char *answer;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);

  if (self->busy || self->session == NULL || assay_session_get_rerun_of (self->session) == NULL)
    return FALSE;
  answer = assay_session_get_answer (self->session);
  if (answer == NULL || *answer == '\0')
    return FALSE;
  self->rewriting = TRUE;
  g_clear_object (&self->ask_cancellable);
  self->ask_cancellable = g_cancellable_new ();
  assay_conversation_set_server_problem_internal (self, NULL);
  assay_conversation_set_busy_internal (self, TRUE);
  assay_conversation_ensure_provider (self);
  return TRUE;
}

gboolean
assay_conversation_try_again (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);

  if (self->busy || self->server_problem == NULL || self->session == NULL)
    return FALSE;
  /* The key may have been stored again without a setting changing. */
  if (!self->provider_fixed)
    g_clear_object (&self->provider);
  self->continuing = TRUE;
  g_clear_object (&self->ask_cancellable);
  self->ask_cancellable = g_cancellable_new ();
  assay_conversation_set_server_problem_internal (self, NULL);
  assay_conversation_set_busy_internal (self, TRUE);
  assay_conversation_ensure_provider (self);
  return TRUE;
}

void
assay_conversation_respond (AssayConversation *self,
                            const char        *cell_id,
                            int                response,
                            const char        *text)
{
  g_autofree char *id = g_strdup (cell_id);

  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (self->agent == NULL || id == NULL)
    return;
  if (g_strcmp0 (self->waiting, id) == 0)
    assay_conversation_set_waiting_internal (self, NULL);
  g_signal_emit_by_name (self, "responded", id, response, text);
  assay_agent_respond (self->agent, id, response, text);
}

void
assay_conversation_stop (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (!self->busy)
    return;
  /* Waiting for a model to be chosen: nothing was sent. */
  if (self->awaiting_model)
    {
      self->awaiting_model = FALSE;
      assay_conversation_fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      return;
    }
  /* Waiting for the analyst to approve changed code again: nothing ran. */
  if (self->unsealed != NULL)
    {
      g_clear_pointer (&self->unsealed, g_ptr_array_unref);
      assay_conversation_fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      return;
    }
  /* Still waiting for a database of the session to connect: nothing was sent yet. */
  if (self->question_waits_connections)
    {
      self->question_waits_connections = FALSE;
      assay_conversation_fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      return;
    }
  if (self->waiting != NULL && self->agent != NULL)
    {
      assay_conversation_respond (self, self->waiting, ASSAY_APPROVAL_STOP, NULL);
      return;
    }
  if (self->ask_cancellable != NULL)
    g_cancellable_cancel (self->ask_cancellable);
}

void
assay_conversation_set_provider (AssayConversation *self,
                                 AssayLlmProvider  *provider,
                                 const char        *model,
                                 gboolean           recorded)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  g_return_if_fail (!self->busy);

  assay_conversation_close_agent (self);
  g_set_object (&self->provider, provider);
  g_free (self->model);
  self->model = g_strdup (model);
  self->provider_fixed = provider != NULL;
  assay_conversation_set_recorded_internal (self, recorded);
  assay_conversation_notify_fixed_provider_internal (self);
}

void
assay_conversation_forget_provider (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (!self->provider_fixed)
    g_clear_object (&self->provider);
}

/* The sandbox did not end the cell in time: closing the kernel ends it (and the question,
 * with the cell's status saying so). */
static gboolean
assay_conversation_close_grace_cb (gpointer data)
{
  AssayConversation *self = data;

  self->close_grace_source = 0;
  if (self->kernel != NULL)
    assay_kernel_session_close (self->kernel);
  return G_SOURCE_REMOVE;
}

void
assay_conversation_close (AssayConversation *self,
                          GApplication      *application)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  g_return_if_fail (application == NULL || G_IS_APPLICATION (application));
  if (self->closing)
    return;
  self->closing = TRUE;
  g_cancellable_cancel (self->cancellable);
  if (self->ask_cancellable != NULL)
    g_cancellable_cancel (self->ask_cancellable);
  if (self->pool != NULL)
    {
      assay_sandbox_pool_empty (self->pool);
      g_clear_object (&self->pool);
    }
  if (!self->asking)
    {
      assay_conversation_close_agent (self);
      return;
    }
  if (application != NULL || (application = g_application_get_default ()) != NULL)
    {
      self->held = g_object_ref (application);
      g_application_hold (self->held);
    }
  self->close_grace_source = g_timeout_add (CLOSE_GRACE_MS, assay_conversation_close_grace_cb, self);
}
