/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The conversation's state: the session and its artifacts, its datasets' descriptions, the
 * properties the views follow, the settings that make the agent anew. The question's path
 * is in assay-conversation-question.c. */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-conversation-private.h"
#include "assay-dataset.h"

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
  PROP_PRIVACY_MODE,
  PROP_FIXED_PROVIDER,
  PROP_SERVER_PROBLEM,
  PROP_SANDBOX,
  PROP_REQUERY,
  PROP_CAN_REQUERY,
  PROP_RUNS_ON_OPENAI,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum { ASKED, FINISHED, NEEDS_MODEL, RESPONDED, ERROR, PRIVACY_CHANGED, REWRITTEN, UNSEALED_CELLS, N_SIGNALS };
static guint signals[N_SIGNALS];

/* A report has something to say once a question was answered or a cell finished. */
static gboolean
assay_conversation_session_exportable (AssaySession *session)
{
  if (session == NULL)
    return FALSE;
  if (g_strcmp0 (assay_session_get_status (session), "answered") == 0)
    return TRUE;
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      if (assay_cell_status_is_finished (assay_session_get_cell (session, i)->status))
        return TRUE;
    }
  return FALSE;
}

void
assay_conversation_update_exportable (AssayConversation *self)
{
  gboolean exportable = assay_conversation_session_exportable (self->session);

  if (exportable == self->exportable)
    return;
  self->exportable = exportable;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPORTABLE]);
}

void
assay_conversation_set_busy_internal (AssayConversation *self,
                                      gboolean           busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

void
assay_conversation_set_waiting_internal (AssayConversation *self,
                                         const char        *cell_id)
{
  if (g_strcmp0 (self->waiting, cell_id) == 0)
    return;
  g_free (self->waiting);
  self->waiting = g_strdup (cell_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WAITING]);
}

void
assay_conversation_privacy_changed_internal (AssayConversation *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PRIVACY_MODE]);
  g_signal_emit (self, signals[PRIVACY_CHANGED], 0);
}

void
assay_conversation_set_recorded_internal (AssayConversation *self,
                                          gboolean           recorded)
{
  if (self->recorded == recorded)
    return;
  self->recorded = recorded;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RECORDED]);
}

void
assay_conversation_set_server_problem_internal (AssayConversation *self,
                                                const char        *problem)
{
  if (g_strcmp0 (self->server_problem, problem) == 0)
    return;
  g_free (self->server_problem);
  self->server_problem = g_strdup (problem);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVER_PROBLEM]);
}

const char *
assay_conversation_get_server_problem (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->server_problem;
}

/* ---- the agent ------------------------------------------------------------------------ */

/* ---- sessions --------------------------------------------------------------------------- */

static void
assay_conversation_session_saved_cb (GObject      *source,
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
assay_conversation_save_session (AssayConversation *self,
                                 AssaySession      *session,
                                 gboolean           relist)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, self);
  assay_session_store_save_async (self->store, session, relist, assay_conversation_session_saved_cb, ref);
}

void
assay_conversation_save (AssayConversation *self)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  if (self->session != NULL)
    assay_conversation_save_session (self, self->session, TRUE);
}

static void
assay_conversation_set_artifacts (AssayConversation *self,
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

  assay_conversation_close_agent_async (self);
  if (self->recorded)
    {
      /* The recorded transcript belongs to the demo session only. */
      g_clear_object (&self->provider);
      self->provider_fixed = FALSE;
      assay_conversation_set_recorded_internal (self, FALSE);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIXED_PROVIDER]);
    }
  assay_conversation_set_auto_run (self, g_settings_get_enum (self->settings, "approval-policy") == 1);
  /* What failed was another session's question. */
  assay_conversation_set_server_problem_internal (self, NULL);
  g_set_object (&self->session, session);
  assay_conversation_forget_privacy (self);
  assay_conversation_load_connections (self);
  assay_conversation_set_artifacts (self, artifacts);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PRIVACY_MODE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SANDBOX]);
  assay_conversation_update_exportable (self);
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
  assay_conversation_save_session (self, session, FALSE);
  artifacts = assay_artifact_list_new_for_session (session);
  g_set_object (&self->session, session);
  assay_conversation_forget_privacy (self);
  assay_conversation_load_connections (self);
  assay_conversation_set_artifacts (self, artifacts);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PRIVACY_MODE]);
  return TRUE;
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
assay_conversation_describe_data_free (DescribeData *data)
{
  g_weak_ref_clear (&data->conversation);
  g_clear_object (&data->session);
  g_free (data->name);
  g_free (data);
}

static void
assay_conversation_dataset_described_cb (GObject      *source,
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
  /* The mode is read now, not when the file was opened: a mode chosen meanwhile holds. */
  description = assay_conversation_make_description (data->session, dataset, error);
  if (self != NULL && self->session == data->session)
    assay_conversation_note_described (self, data->name, assay_session_get_privacy_mode (data->session));

  if (self != NULL && self->agent != NULL && assay_agent_get_session (self->agent) == data->session)
    assay_agent_set_dataset_description (self->agent, data->name, description);
  else if (assay_session_set_dataset_description (data->session, data->name, description))
    {
      if (self != NULL)
        assay_conversation_save_session (self, data->session, FALSE);
      else
        assay_session_save_async (data->session, NULL, NULL, NULL);
    }

out:
  assay_conversation_describe_data_free (data);
}

gboolean
assay_conversation_add_dataset (AssayConversation  *self,
                                const char         *copy,
                                GError            **error)
{
  g_autofree char *name = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *resolved = NULL;

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
  /* Its first dataset: the sandbox for its first cell is started now. */
  if (assay_session_get_datasets (self->session)->len == 1)
    assay_conversation_prewarm (self);
  name = g_path_get_basename (copy);
  relative = g_build_filename ("data", name, NULL);
  if ((resolved = assay_session_resolve (self->session, relative)) == NULL)
    return TRUE;
  assay_conversation_describe_dataset (self, name, resolved);
  return TRUE;
}

void
assay_conversation_describe_dataset (AssayConversation *self,
                                     const char        *name,
                                     const char        *path)
{
  DescribeData *data = g_new0 (DescribeData, 1);

  g_weak_ref_init (&data->conversation, self);
  data->session = g_object_ref (self->session);
  data->name = g_strdup (name);
  assay_dataset_open_async (path, self->cancellable, assay_conversation_dataset_described_cb, data);
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
assay_conversation_settings_changed_cb (AssayConversation *self,
                                        const char        *key)
{
  gboolean model = g_str_equal (key, "provider") || g_str_equal (key, "base-url") || g_str_equal (key, "model") ||
                   g_str_equal (key, "openai-api");
  gboolean sandbox = g_str_equal (key, "sandbox-backend") || g_str_equal (key, "memory-mb") ||
                     g_str_equal (key, "cpus") || g_str_equal (key, "cell-timeout") ||
                     g_str_equal (key, "e2b-domain") || g_str_equal (key, "e2b-template");

  /* A new provider, server or model applies to the next question. */
  if (model && !self->provider_fixed && !self->busy)
    {
      assay_conversation_close_agent_async (self);
      g_clear_object (&self->provider);
    }
  if (sandbox && !self->busy)
    {
      assay_conversation_close_agent_async (self);
      assay_conversation_forget_backend (self);
    }
  /* A model was configured: a sandbox is made ready for the first cell; with other
   * settings the pool is refilled under them. */
  if (model)
    {
      g_autofree char *provider = g_settings_get_string (self->settings, "provider");

      if (*provider != '\0')
        assay_conversation_prewarm (self);
    }
  else if (sandbox && self->want_warm && !self->busy)
    assay_conversation_prewarm (self);
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

AssayLlmProvider *
assay_conversation_get_fixed_provider (AssayConversation  *self,
                                       const char        **model)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  if (model != NULL)
    *model = self->provider_fixed ? self->model : NULL;
  return self->provider_fixed ? self->provider : NULL;
}

void
assay_conversation_notify_fixed_provider_internal (AssayConversation *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIXED_PROVIDER]);
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
assay_conversation_get_sandbox (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  if (self->runs_on_openai)
    return _("OpenAI's hosted code interpreter");
  if (self->backend_where != NULL)
    return self->backend_where;
  if (self->session != NULL && assay_session_get_sandbox_where (self->session) != NULL)
    return assay_session_get_sandbox_where (self->session);
  return NULL;
}

void
assay_conversation_notify_runs_on_openai_internal (AssayConversation *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNS_ON_OPENAI]);
}

void
assay_conversation_notify_sandbox (AssayConversation *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SANDBOX]);
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

/* ---- asking the queries again ------------------------------------------------------------ */

gboolean
assay_conversation_get_can_requery (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  /* Until the next question rebuilds the kernel: the agent is made then. */
  if (self->session == NULL || self->agent != NULL)
    return FALSE;
  for (guint i = 0; i < assay_session_get_n_cells (self->session); i++)
    {
      const AssaySessionCell *cell = assay_session_get_cell (self->session, i);

      if (cell->kind == ASSAY_CELL_KIND_SQL && assay_session_cell_succeeded (cell))
        return TRUE;
    }
  return FALSE;
}

gboolean
assay_conversation_get_requery (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  return self->requery;
}

void
assay_conversation_set_requery (AssayConversation *self,
                                gboolean           requery)
{
  g_return_if_fail (ASSAY_IS_CONVERSATION (self));
  requery = !!requery;
  if (self->requery == requery)
    return;
  self->requery = requery;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REQUERY]);
}

/* Another session, or the agent made or gone: another answer, and no request carried over. */
static void
assay_conversation_requery_changed_cb (AssayConversation *self,
                                       GParamSpec        *pspec)
{
  if (g_strcmp0 (g_param_spec_get_name (pspec), "session") == 0)
    {
      assay_conversation_set_requery (self, FALSE);
      /* Chosen for one session (chosen before there was one: the one made next); another
       * starts on this computer again. */
      if (self->runs_on_openai && self->hosted_session_id == NULL && self->session != NULL)
        self->hosted_session_id = g_strdup (assay_session_get_id (self->session));
      else if (self->runs_on_openai &&
               (self->session == NULL ||
                g_strcmp0 (self->hosted_session_id, assay_session_get_id (self->session)) != 0))
        {
          g_clear_pointer (&self->hosted_session_id, g_free);
          self->runs_on_openai = FALSE;
          g_clear_pointer (&self->container, assay_openai_container_unref);
          if (!self->provider_fixed)
            g_clear_object (&self->provider);
          assay_conversation_notify_runs_on_openai_internal (self);
          assay_conversation_notify_sandbox (self);
        }
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REQUERY]);
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
    case PROP_PRIVACY_MODE:
      g_value_set_string (value, assay_privacy_mode_to_string (assay_conversation_get_privacy_mode (self)));
      break;
    case PROP_SERVER_PROBLEM:
      g_value_set_string (value, self->server_problem);
      break;
    case PROP_SANDBOX:
      g_value_set_string (value, assay_conversation_get_sandbox (self));
      break;
    case PROP_FIXED_PROVIDER:
      g_value_set_object (value, assay_conversation_get_fixed_provider (self, NULL));
      break;
    case PROP_REQUERY:
      g_value_set_boolean (value, self->requery);
      break;
    case PROP_CAN_REQUERY:
      g_value_set_boolean (value, assay_conversation_get_can_requery (self));
      break;
    case PROP_RUNS_ON_OPENAI:
      g_value_set_boolean (value, self->runs_on_openai);
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
    case PROP_REQUERY:
      assay_conversation_set_requery (ASSAY_CONVERSATION (object), g_value_get_boolean (value));
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
  g_cancellable_cancel (self->connections_cancellable);
  if (self->connections != NULL)
    g_list_store_remove_all (self->connections);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  assay_conversation_finish_closing (self);
  g_clear_pointer (&self->unsealed, g_ptr_array_unref);
  g_clear_object (&self->artifacts);
  g_clear_object (&self->session);
  g_clear_object (&self->provider);
  g_clear_object (&self->backend);
  g_clear_object (&self->masker);
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
  g_clear_object (&self->connections_cancellable);
  g_clear_object (&self->connections);
  g_clear_pointer (&self->spec, assay_sandbox_spec_free);
  g_clear_pointer (&self->container, assay_openai_container_unref);
  g_free (self->hosted_session_id);
  g_free (self->model);
  g_free (self->backend_reason);
  g_free (self->backend_where);
  g_free (self->question);
  g_free (self->waiting);
  g_free (self->server_problem);
  g_free (self->masker_key);
  g_free (self->price_warning);
  g_hash_table_unref (self->described);
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
  properties[PROP_PRIVACY_MODE] = g_param_spec_string ("privacy-mode", NULL, NULL, "full", ro);
  properties[PROP_SERVER_PROBLEM] = g_param_spec_string ("server-problem", NULL, NULL, NULL, ro);
  /* Where the cells run ("Docker 28.2.2 at /var/run/docker.sock"): the chosen backend, else
   * what the session's record says of its last run, else NULL. */
  properties[PROP_SANDBOX] = g_param_spec_string ("sandbox", NULL, NULL, NULL, ro);
  /* The next question asks the opened session's queries again instead of loading their cached
   * results; offered (can-requery) until that question rebuilds the kernel. */
  properties[PROP_REQUERY] = g_param_spec_boolean ("requery", NULL, NULL, FALSE,
                                                   G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                   G_PARAM_STATIC_STRINGS);
  properties[PROP_CAN_REQUERY] = g_param_spec_boolean ("can-requery", NULL, NULL, FALSE, ro);
  /* The session's code runs in OpenAI's hosted code interpreter (set with
   * assay_conversation_set_runs_on_openai (), which may refuse). */
  properties[PROP_RUNS_ON_OPENAI] = g_param_spec_boolean ("runs-on-openai", NULL, NULL, FALSE, ro);
  properties[PROP_FIXED_PROVIDER] = g_param_spec_object ("fixed-provider", NULL, NULL, ASSAY_TYPE_LLM_PROVIDER, ro);
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
  signals[PRIVACY_CHANGED] = g_signal_new ("privacy-changed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
  /* A run's summary as the model rewrote it (assay_conversation_rewrite), kept in the session. */
  signals[REWRITTEN] = g_signal_new ("rewritten", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                     G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[UNSEALED_CELLS] = g_signal_new ("unsealed-cells", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_PTR_ARRAY);
}

static void
assay_conversation_init (AssayConversation *self)
{
  self->cancellable = g_cancellable_new ();
  self->described = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  assay_conversation_init_databases (self);
  g_signal_connect (self, "notify::session", G_CALLBACK (assay_conversation_requery_changed_cb), NULL);
  g_signal_connect (self, "notify::agent", G_CALLBACK (assay_conversation_requery_changed_cb), NULL);
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
  g_signal_connect_swapped (settings, "changed", G_CALLBACK (assay_conversation_settings_changed_cb), self);
  return self;
}
