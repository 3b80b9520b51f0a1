/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A question's path: ask → session → provider (key from the keyring) → sandbox backend
 * (chosen in a worker) → AssayKernelSession → AssayAgent → ::finished. The wiring follows
 * src/cli/assay-cli-ask.c. */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-conversation.h"
#include "assay-dataset.h"
#include "assay-kernel-session.h"
#include "assay-keyring.h"
#include "assay-model-choice.h"
#include "assay-sandbox-choice.h"

/* How long a closed window lets the sandbox stop a running cell before closing it. */
#define CLOSE_GRACE_MS 2000

struct _AssayConversation
{
  GObject               parent_instance;

  GSettings            *settings;
  AssaySessionStore    *store;
  GCancellable         *cancellable;      /* the conversation's life */

  AssaySession         *session;
  AssayArtifactList    *artifacts;
  AssayLlmProvider     *provider;
  char                 *model;
  gboolean              provider_fixed;   /* set by the caller or the demo, not the settings */
  gboolean              recorded;
  AssaySandboxBackend  *backend;
  AssaySandboxSpec     *spec;
  char                 *backend_reason;
  AssayKernelSession   *kernel;
  AssayAgent           *agent;
  gboolean              auto_run;

  GCancellable         *ask_cancellable;  /* the question in progress */
  char                 *question;         /* until the agent has it */
  char                 *waiting;          /* the cell waiting for approval */
  gboolean              busy;
  gboolean              asking;           /* assay_agent_ask_async is in flight */
  gboolean              exportable;
  /* Closed while a question runs: the kernel is closed once the agent has recorded how it
   * ended (or after a grace period), and the application held until then. */
  gboolean              closing;
  GApplication         *held;
  guint                 close_grace_source;
};

G_DEFINE_FINAL_TYPE (AssayConversation, assay_conversation, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SESSION,
  PROP_ARTIFACTS,
  PROP_AGENT,
  PROP_BUSY,
  PROP_WAITING,
  PROP_EXPORTABLE,
  PROP_RECORDED,
  PROP_AUTO_RUN,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum { ASKED, FINISHED, NEEDS_MODEL, RESPONDED, ERROR, N_SIGNALS };
static guint signals[N_SIGNALS];

/* A report has something to say once a question was answered or a cell finished. */
static gboolean
session_exportable (AssaySession *session)
{
  if (session == NULL)
    return FALSE;
  if (g_strcmp0 (assay_session_get_status (session), "answered") == 0)
    return TRUE;
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      const char *status = assay_session_get_cell (session, i)->status;

      if (status != NULL && !g_str_equal (status, "proposed") && !g_str_equal (status, "running") &&
          !g_str_equal (status, "rejected") && !g_str_equal (status, "interrupted"))
        return TRUE;
    }
  return FALSE;
}

static void
update_exportable (AssayConversation *self)
{
  gboolean exportable = session_exportable (self->session);

  if (exportable == self->exportable)
    return;
  self->exportable = exportable;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPORTABLE]);
}

static void
set_busy (AssayConversation *self,
          gboolean           busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
set_waiting (AssayConversation *self,
             const char        *cell_id)
{
  if (g_strcmp0 (self->waiting, cell_id) == 0)
    return;
  g_free (self->waiting);
  self->waiting = g_strdup (cell_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WAITING]);
}

static void
set_recorded (AssayConversation *self,
              gboolean           recorded)
{
  if (self->recorded == recorded)
    return;
  self->recorded = recorded;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RECORDED]);
}

/* ---- the agent ------------------------------------------------------------------------ */

/* Lets go of the agent and hands back its kernel, which the caller closes. */
static AssayKernelSession *
take_kernel (AssayConversation *self)
{
  if (self->agent != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->agent, self);
      g_clear_object (&self->agent);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AGENT]);
    }
  set_waiting (self, NULL);
  return g_steal_pointer (&self->kernel);
}

static void
close_agent (AssayConversation *self)
{
  g_autoptr(AssayKernelSession) kernel = take_kernel (self);

  if (kernel != NULL)
    assay_kernel_session_close (kernel);
}

static void
kernel_closed_cb (GObject      *source,
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
static void
close_agent_async (AssayConversation *self)
{
  GApplication *app = g_application_get_default ();
  g_autoptr(AssayKernelSession) kernel = take_kernel (self);

  if (kernel != NULL)
    {
      if (app != NULL)
        g_application_hold (app);
      assay_kernel_session_close_async (kernel, kernel_closed_cb,
                                        app != NULL ? g_object_ref (app) : NULL);
    }
}

static void
approval_needed_cb (AssayAgent        *agent,
                    const char        *cell_id,
                    const char        *code,
                    const char        *description,
                    AssayConversation *self)
{
  set_waiting (self, cell_id);
}

static void
artifact_added_cb (AssayAgent        *agent,
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
cell_finished_cb (AssayAgent        *agent,
                  const char        *cell_id,
                  AssayCellResult   *result,
                  AssayConversation *self)
{
  update_exportable (self);
}

/* Closing: the agent has ended (or the grace period is over); the sandbox goes, and the
 * application may quit. */
static void
finish_closing (AssayConversation *self)
{
  g_clear_handle_id (&self->close_grace_source, g_source_remove);
  close_agent (self);
  if (self->held != NULL)
    {
      g_application_release (self->held);
      g_clear_object (&self->held);
    }
}

static void
end_question (AssayConversation *self,
              AssayAgentOutcome  outcome,
              const char        *text)
{
  g_clear_object (&self->ask_cancellable);
  g_clear_pointer (&self->question, g_free);
  set_waiting (self, NULL);
  update_exportable (self);
  set_busy (self, FALSE);
  g_signal_emit (self, signals[FINISHED], 0, (int) outcome, text);
}

static void
asked_cb (GObject      *source,
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
      finish_closing (self);
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
      break;
    case ASSAY_AGENT_MODEL_ERROR:
    case ASSAY_AGENT_SANDBOX_ERROR:
    default:
      /* ::error said it already. */
      g_clear_pointer (&text, g_free);
      break;
    }
  end_question (self, outcome, text);
  assay_session_store_reload (self->store);
}

static void
fail_question (AssayConversation *self,
               AssayAgentOutcome  outcome,
               const char        *message)
{
  end_question (self, outcome, message);
}

static void
start_question (AssayConversation *self)
{
  g_autofree char *question = g_steal_pointer (&self->question);

  if (self->agent == NULL)
    {
      g_autofree char *artifact_dir = assay_session_get_artifact_dir (self->session);

      self->kernel = assay_kernel_session_new (self->backend, self->spec, artifact_dir);
      self->agent = assay_agent_new (self->provider, self->kernel, self->session);
      /* The record is written by workers: fsync must not hold up the window. */
      assay_agent_set_background_saves (self->agent, TRUE);
      g_signal_connect (self->agent, "approval-needed", G_CALLBACK (approval_needed_cb), self);
      g_signal_connect (self->agent, "artifact-added", G_CALLBACK (artifact_added_cb), self);
      g_signal_connect (self->agent, "cell-finished", G_CALLBACK (cell_finished_cb), self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AGENT]);
    }
  if (self->model != NULL && *self->model != '\0')
    assay_agent_set_model (self->agent, self->model);
  assay_agent_set_max_steps (self->agent, g_settings_get_uint (self->settings, "max-steps"));
  assay_agent_set_fenced_code_fallback (self->agent, g_settings_get_boolean (self->settings, "fenced-code-fallback"));
  assay_agent_set_approval_policy (self->agent, self->auto_run ? ASSAY_APPROVAL_POLICY_AUTO
                                                               : ASSAY_APPROVAL_POLICY_ASK);
  self->asking = TRUE;
  assay_agent_ask_async (self->agent, question, self->ask_cancellable, asked_cb, g_object_ref (self));
}

typedef struct
{
  char                *name;
  AssaySandboxSpec    *spec;
  AssaySandboxBackend *backend;
  char                *reason;
} Choice;

static void
choice_free (Choice *choice)
{
  g_free (choice->name);
  g_clear_pointer (&choice->spec, assay_sandbox_spec_free);
  g_clear_object (&choice->backend);
  g_free (choice->reason);
  g_free (choice);
}

static void
choose_worker (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Choice *choice = task_data;
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  GError *error = NULL;

  choice->backend = assay_sandbox_choose_backend (choice->name, image, choice->spec, &choice->reason, &error);
  if (choice->backend == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  assay_sandbox_backend_remove_leftovers (choice->backend, NULL);
  g_task_return_boolean (task, TRUE);
}

static void
backend_chosen_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  AssayConversation *self = ASSAY_CONVERSATION (source);
  Choice *choice = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *text = g_strdup_printf (_("The sandbox cannot be used: %s"), error->message);

          fail_question (self, ASSAY_AGENT_SANDBOX_ERROR, text);
        }
      else
        fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      return;
    }
  self->backend = g_steal_pointer (&choice->backend);
  g_clear_pointer (&self->spec, assay_sandbox_spec_free);
  self->spec = g_steal_pointer (&choice->spec);
  g_free (self->backend_reason);
  self->backend_reason = g_steal_pointer (&choice->reason);
  if (g_cancellable_is_cancelled (self->ask_cancellable))
    fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
  else
    start_question (self);
}

static void
ensure_backend (AssayConversation *self)
{
  g_autoptr(GTask) task = NULL;
  Choice *choice;

  if (self->backend != NULL)
    {
      start_question (self);
      return;
    }
  choice = g_new0 (Choice, 1);
  choice->name = g_settings_get_string (self->settings, "sandbox-backend");
  choice->spec = assay_sandbox_spec_new ();
  choice->spec->limits.memory_bytes = (guint64) g_settings_get_uint (self->settings, "memory-mb") * 1024 * 1024;
  choice->spec->limits.cpus = g_settings_get_double (self->settings, "cpus");
  choice->spec->limits.timeout_ms = g_settings_get_uint (self->settings, "cell-timeout") * 1000;
  /* The task holds the conversation until the worker is done. */
  task = g_task_new (self, self->ask_cancellable, backend_chosen_cb, NULL);
  g_task_set_source_tag (task, ensure_backend);
  g_task_set_task_data (task, choice, (GDestroyNotify) choice_free);
  g_task_run_in_thread (task, choose_worker);
}

static void
key_found_cb (GObject      *source,
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
      fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      return;
    }
  if (error != NULL)
    g_debug ("no key from the keyring: %s", error->message);

  provider = g_settings_get_string (self->settings, "provider");
  base_url = g_settings_get_string (self->settings, "base-url");
  server = *base_url ? base_url : assay_model_choice_get_cloud_base_url (provider);
  g_clear_object (&self->provider);
  /* Anything but Anthropic speaks OpenAI's protocol (local servers included). */
  self->provider = assay_llm_provider_new_for_name (g_str_equal (provider, "anthropic") ? "anthropic" : "openai",
                                                    server, key, NULL);
  secret_password_free (key);

  g_free (self->model);
  self->model = g_settings_get_string (self->settings, "model");
  if (*self->model == '\0')
    {
      g_free (self->model);
      self->model = g_strdup (assay_model_choice_get_default (provider));
    }
  ensure_backend (self);
}

static void
ensure_provider (AssayConversation *self)
{
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;

  if (self->provider != NULL)
    {
      ensure_backend (self);
      return;
    }
  provider = g_settings_get_string (self->settings, "provider");
  if (*provider == '\0')
    {
      fail_question (self, ASSAY_AGENT_MODEL_ERROR, _("Choose a model first."));
      g_signal_emit (self, signals[NEEDS_MODEL], 0);
      return;
    }
  base_url = g_settings_get_string (self->settings, "base-url");
  assay_keyring_lookup_async (provider, base_url, self->ask_cancellable, key_found_cb, g_object_ref (self));
}

/* ---- sessions --------------------------------------------------------------------------- */

static void
session_saved_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(AssayConversation) self = g_weak_ref_get (user_data);
  g_autoptr(GError) error = NULL;

  g_weak_ref_clear (user_data);
  g_free (user_data);
  if (assay_session_store_save_finish (ASSAY_SESSION_STORE (source), result, &error))
    return;
  if (self == NULL || self->closing)
    g_warning ("saving a session: %s", error->message);
  else
    {
      g_autofree char *text = g_strdup_printf (_("The session could not be saved: %s"), error->message);

      g_signal_emit (self, signals[ERROR], 0, text);
    }
}

/* SESSION is written in turn with the store's other jobs; RELIST: the list shows it then. */
static void
save_session (AssayConversation *self,
              AssaySession      *session,
              gboolean           relist)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, self);
  assay_session_store_save_async (self->store, session, relist, session_saved_cb, ref);
}

void
assay_conversation_save (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (self->session != NULL)
    save_session (self, self->session, TRUE);
}

static void
set_artifacts (AssayConversation *self,
               AssayArtifactList *artifacts)
{
  if (g_set_object (&self->artifacts, artifacts))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ARTIFACTS]);
}

void
assay_conversation_set_session (AssayConversation *self,
                                AssaySession      *session,
                                AssayArtifactList *artifacts)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  g_return_if_fail (session == NULL || ASSAY_IS_SESSION (session));
  g_return_if_fail (!self->busy);

  close_agent_async (self);
  if (self->recorded)
    {
      /* The recorded transcript belongs to the demo session only. */
      g_clear_object (&self->provider);
      self->provider_fixed = FALSE;
      set_recorded (self, FALSE);
    }
  assay_conversation_set_auto_run (self, g_settings_get_enum (self->settings, "approval-policy") == 1);
  g_set_object (&self->session, session);
  set_artifacts (self, artifacts);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  update_exportable (self);
}

gboolean
assay_conversation_ensure_session (AssayConversation  *self,
                                   GError            **error)
{
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(AssayArtifactList) artifacts = NULL;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  if (self->session != NULL)
    return TRUE;
  session = assay_session_create (assay_session_store_get_parent (self->store), error);
  if (session == NULL)
    return FALSE;
  save_session (self, session, FALSE);
  artifacts = assay_artifact_list_new_for_session (session);
  g_set_object (&self->session, session);
  set_artifacts (self, artifacts);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  return TRUE;
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
  set_busy (self, TRUE);
  g_signal_emit (self, signals[ASKED], 0, text);
  ensure_provider (self);
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
    set_waiting (self, NULL);
  g_signal_emit (self, signals[RESPONDED], 0, id, response, text);
  assay_agent_respond (self->agent, id, response, text);
}

void
assay_conversation_stop (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (!self->busy)
    return;
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

  close_agent (self);
  g_set_object (&self->provider, provider);
  g_free (self->model);
  self->model = g_strdup (model);
  self->provider_fixed = provider != NULL;
  set_recorded (self, recorded);
}

void
assay_conversation_forget_provider (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (!self->provider_fixed)
    g_clear_object (&self->provider);
}

/* ---- datasets -------------------------------------------------------------------------- */

/* What the model is told about a dataset: profiled off the main thread, then handed to the
 * agent (or kept in the session until there is one) for the next step's prompt. */
typedef struct
{
  GWeakRef      conversation;
  AssaySession *session;
  char         *name;
} DescribeData;

static void
describe_data_free (DescribeData *data)
{
  g_weak_ref_clear (&data->conversation);
  g_clear_object (&data->session);
  g_free (data->name);
  g_free (data);
}

static void
dataset_described_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  DescribeData *data = user_data;
  g_autoptr(AssayConversation) self = g_weak_ref_get (&data->conversation);
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;

  dataset = assay_dataset_open_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    goto out;
  description = assay_dataset_describe_for_prompt (dataset, error,
                                                   assay_session_get_datasets (data->session)->len);

  if (self != NULL && self->agent != NULL && assay_agent_get_session (self->agent) == data->session)
    assay_agent_set_dataset_description (self->agent, data->name, description);
  else if (assay_session_set_dataset_description (data->session, data->name, description))
    {
      if (self != NULL)
        save_session (self, data->session, FALSE);
      else
        assay_session_save_async (data->session, NULL, NULL, NULL);
    }

out:
  describe_data_free (data);
}

gboolean
assay_conversation_add_dataset (AssayConversation  *self,
                                const char         *copy,
                                GError            **error)
{
  g_autofree char *name = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *resolved = NULL;
  DescribeData *data;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (copy != NULL, FALSE);
  g_return_val_if_fail (self->session != NULL, FALSE);

  if (self->agent != NULL)
    {
      if (!assay_agent_add_dataset (self->agent, copy, NULL, error))
        return FALSE;
    }
  else if (assay_session_add_dataset (self->session, copy, NULL, error) == NULL)
    return FALSE;

  /* The dialect, schema and read_csv call come once the file is profiled: the session's own
   * copy, whose name is the one the sandbox shows under /data. */
  name = g_path_get_basename (copy);
  relative = g_build_filename ("data", name, NULL);
  if ((resolved = assay_session_resolve (self->session, relative)) == NULL)
    return TRUE;
  data = g_new0 (DescribeData, 1);
  g_weak_ref_init (&data->conversation, self);
  data->session = g_object_ref (self->session);
  data->name = g_steal_pointer (&name);
  assay_dataset_open_async (resolved, self->cancellable, dataset_described_cb, data);
  return TRUE;
}

gboolean
assay_conversation_get_datasets_described (AssayConversation *self)
{
  GPtrArray *datasets;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  if (self->session == NULL)
    return FALSE;
  datasets = assay_session_get_datasets (self->session);
  for (guint i = 0; i < datasets->len; i++)
    if (((AssaySessionDataset *) g_ptr_array_index (datasets, i))->description == NULL)
      return FALSE;
  return datasets->len > 0;
}

/* ---- settings and closing ---------------------------------------------------------------- */

static void
settings_changed_cb (AssayConversation *self,
                     const char        *key)
{
  /* A new provider, server or model applies to the next question. */
  if (!self->provider_fixed && !self->busy &&
      (g_str_equal (key, "provider") || g_str_equal (key, "base-url") || g_str_equal (key, "model")))
    {
      close_agent_async (self);
      g_clear_object (&self->provider);
    }
  if (!self->busy && (g_str_equal (key, "sandbox-backend") || g_str_equal (key, "memory-mb") ||
                      g_str_equal (key, "cpus") || g_str_equal (key, "cell-timeout")))
    {
      close_agent_async (self);
      g_clear_object (&self->backend);
    }
}

/* The sandbox did not end the cell in time: closing the kernel ends it (and the question,
 * with the cell's status saying so). */
static gboolean
close_grace_cb (gpointer data)
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
  if (!self->asking)
    {
      close_agent (self);
      return;
    }
  if (application != NULL || (application = g_application_get_default ()) != NULL)
    {
      self->held = g_object_ref (application);
      g_application_hold (self->held);
    }
  self->close_grace_source = g_timeout_add (CLOSE_GRACE_MS, close_grace_cb, self);
}

/* ---- getters ------------------------------------------------------------------------------ */

AssaySession *
assay_conversation_get_session (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->session;
}

AssayArtifactList *
assay_conversation_get_artifacts (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->artifacts;
}

AssayAgent *
assay_conversation_get_agent (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->agent;
}

gboolean
assay_conversation_get_busy (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->busy;
}

const char *
assay_conversation_get_waiting (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->waiting;
}

gboolean
assay_conversation_get_exportable (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->exportable;
}

gboolean
assay_conversation_get_recorded (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->recorded;
}

gboolean
assay_conversation_get_auto_run (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->auto_run;
}

void
assay_conversation_set_auto_run (AssayConversation *self,
                                 gboolean           auto_run)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  auto_run = !!auto_run;
  if (self->auto_run == auto_run)
    return;
  self->auto_run = auto_run;
  if (self->agent != NULL)
    assay_agent_set_approval_policy (self->agent, auto_run ? ASSAY_APPROVAL_POLICY_AUTO
                                                           : ASSAY_APPROVAL_POLICY_ASK);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_RUN]);
}

guint
assay_conversation_get_max_steps (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), ASSAY_AGENT_DEFAULT_MAX_STEPS);
  return g_settings_get_uint (self->settings, "max-steps");
}

const char *
assay_conversation_get_backend_reason (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->backend_reason;
}

const char *
assay_conversation_get_kernel_id (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->kernel != NULL ? assay_kernel_session_get_id (self->kernel) : NULL;
}

/* ---- GObject ------------------------------------------------------------------------------ */

static void
assay_conversation_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  AssayConversation *self = ASSAY_CONVERSATION (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_ARTIFACTS:
      g_value_set_object (value, self->artifacts);
      break;
    case PROP_AGENT:
      g_value_set_object (value, self->agent);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_WAITING:
      g_value_set_string (value, self->waiting);
      break;
    case PROP_EXPORTABLE:
      g_value_set_boolean (value, self->exportable);
      break;
    case PROP_RECORDED:
      g_value_set_boolean (value, self->recorded);
      break;
    case PROP_AUTO_RUN:
      g_value_set_boolean (value, self->auto_run);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_conversation_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_AUTO_RUN:
      assay_conversation_set_auto_run (ASSAY_CONVERSATION (object), g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_conversation_dispose (GObject *object)
{
  AssayConversation *self = ASSAY_CONVERSATION (object);

  g_cancellable_cancel (self->cancellable);
  if (self->ask_cancellable != NULL)
    g_cancellable_cancel (self->ask_cancellable);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  finish_closing (self);
  g_clear_object (&self->artifacts);
  g_clear_object (&self->session);
  g_clear_object (&self->provider);
  g_clear_object (&self->backend);
  G_OBJECT_CLASS (assay_conversation_parent_class)->dispose (object);
}

static void
assay_conversation_finalize (GObject *object)
{
  AssayConversation *self = ASSAY_CONVERSATION (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->store);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->ask_cancellable);
  g_clear_pointer (&self->spec, assay_sandbox_spec_free);
  g_free (self->model);
  g_free (self->backend_reason);
  g_free (self->question);
  g_free (self->waiting);
  G_OBJECT_CLASS (assay_conversation_parent_class)->finalize (object);
}

static void
assay_conversation_class_init (AssayConversationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = assay_conversation_dispose;
  object_class->finalize = assay_conversation_finalize;
  object_class->get_property = assay_conversation_get_property;
  object_class->set_property = assay_conversation_set_property;

  properties[PROP_SESSION] = g_param_spec_object ("session", NULL, NULL, ASSAY_TYPE_SESSION, ro);
  properties[PROP_ARTIFACTS] = g_param_spec_object ("artifacts", NULL, NULL, ASSAY_TYPE_ARTIFACT_LIST, ro);
  properties[PROP_AGENT] = g_param_spec_object ("agent", NULL, NULL, ASSAY_TYPE_AGENT, ro);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, ro);
  properties[PROP_WAITING] = g_param_spec_string ("waiting", NULL, NULL, NULL, ro);
  properties[PROP_EXPORTABLE] = g_param_spec_boolean ("exportable", NULL, NULL, FALSE, ro);
  properties[PROP_RECORDED] = g_param_spec_boolean ("recorded", NULL, NULL, FALSE, ro);
  properties[PROP_AUTO_RUN] = g_param_spec_boolean ("auto-run", NULL, NULL, FALSE,
                                                    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[ASKED] = g_signal_new ("asked", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[FINISHED] = g_signal_new ("finished", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
  signals[NEEDS_MODEL] = g_signal_new ("needs-model", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
  signals[ERROR] = g_signal_new ("error", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[RESPONDED] = g_signal_new ("responded", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                     G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_INT, G_TYPE_STRING);
}

static void
assay_conversation_init (AssayConversation *self)
{
  self->cancellable = g_cancellable_new ();
}

AssayConversation *
assay_conversation_new (GSettings         *settings,
                        AssaySessionStore *store)
{
  AssayConversation *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (ASSAY_IS_SESSION_STORE (store), NULL);

  self = g_object_new (ASSAY_TYPE_CONVERSATION, NULL);
  self->settings = g_object_ref (settings);
  self->store = g_object_ref (store);
  self->auto_run = g_settings_get_enum (settings, "approval-policy") == 1;
  g_signal_connect_swapped (settings, "changed", G_CALLBACK (settings_changed_cb), self);
  return self;
}
