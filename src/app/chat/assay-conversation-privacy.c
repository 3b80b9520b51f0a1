/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What leaves the machine: the session's privacy mode and masked columns, by the rules
 * `assay-cli ask` follows (a session that has sent values cannot become schema-only; a
 * column masked in a session in full mode makes it masked), and what each question takes
 * along: the masker of the masked columns and the datasets' descriptions its mode wants,
 * made in a worker from the session's own copies, the prices and the budget. */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include <string.h>

#include "assay-sqlite-file.h"
#include "assay-conversation-private.h"
#include "assay-prices.h"

/* ---- the mode and the masked columns ----------------------------------------------------- */

AssayPrivacyMode
assay_conversation_get_privacy_mode (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), ASSAY_PRIVACY_FULL);
  return self->session != NULL ? assay_session_get_privacy_mode (self->session) : ASSAY_PRIVACY_FULL;
}

gboolean
assay_conversation_get_can_use_schema_only (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  /* Its record holds the values it sent: schema-only would promise what is no longer true. */
  return self->session == NULL ||
         assay_session_get_privacy_mode (self->session) == ASSAY_PRIVACY_SCHEMA ||
         assay_session_get_messages (self->session)->len == 0;
}

/* Each dataset is told to the model again the way the new mode wants (schema-only or not). */
static void
assay_conversation_describe_again (AssayConversation *self)
{
  GPtrArray *datasets = assay_session_get_datasets (self->session);

  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);
      g_autofree char *path = assay_session_resolve (self->session, dataset->path);

      if (path != NULL)
        assay_conversation_describe_dataset (self, dataset->name, path);
    }
}

gboolean
assay_conversation_set_privacy_mode (AssayConversation  *self,
                                     AssayPrivacyMode    mode,
                                     GError            **error)
{
  AssayPrivacyMode before;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (mode == ASSAY_PRIVACY_FULL || mode == ASSAY_PRIVACY_MASKED || mode == ASSAY_PRIVACY_SCHEMA,
                        FALSE);

  if (self->busy)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                   _("A question is in progress; change what the model sees once it has ended"));
      return FALSE;
    }
  if (!assay_conversation_ensure_session (self, error))
    return FALSE;
  before = assay_session_get_privacy_mode (self->session);
  if (mode == before)
    return TRUE;
  if (mode == ASSAY_PRIVACY_SCHEMA && !assay_conversation_get_can_use_schema_only (self))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("This session has already sent values to the model, so it cannot become schema-only; "
                     "start a new session for that"));
      return FALSE;
    }
  assay_session_set_privacy_mode (self->session, mode);
  assay_conversation_save (self);
  if ((before == ASSAY_PRIVACY_SCHEMA) != (mode == ASSAY_PRIVACY_SCHEMA))
    assay_conversation_describe_again (self);
  assay_conversation_privacy_changed_internal (self);
  return TRUE;
}

gboolean
assay_conversation_set_column_masked (AssayConversation *self,
                                      const char        *dataset,
                                      const char        *column,
                                      gboolean           masked,
                                      GError           **error)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (column != NULL, FALSE);

  masked = !!masked;
  if (self->busy)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                   _("A question is in progress; mask columns once it has ended"));
      return FALSE;
    }
  if (self->session == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no session to mask a column of"));
      return FALSE;
    }
  if (assay_session_is_column_masked (self->session, dataset, column) == masked)
    return TRUE;
  assay_session_set_column_masked (self->session, dataset, column, masked);
  if (masked && assay_session_get_privacy_mode (self->session) == ASSAY_PRIVACY_FULL)
    assay_session_set_privacy_mode (self->session, ASSAY_PRIVACY_MASKED);
  assay_conversation_save (self);
  assay_conversation_privacy_changed_internal (self);
  return TRUE;
}

char **
assay_conversation_dup_masked_columns (AssayConversation *self,
                                       const char        *dataset)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  if (self->session != NULL)
    {
      GPtrArray *masked = assay_session_get_masked_columns (self->session);

      for (guint i = 0; i < masked->len; i++)
        {
          const AssaySessionMask *mask = g_ptr_array_index (masked, i);

          if (g_strcmp0 (mask->dataset, dataset) == 0)
            g_strv_builder_add (builder, mask->column);
        }
    }
  return g_strv_builder_end (builder);
}

char *
assay_conversation_dup_dataset_name (AssayConversation *self,
                                     const char        *path)
{
  GPtrArray *datasets;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  if (self->session == NULL || path == NULL)
    return NULL;
  datasets = assay_session_get_datasets (self->session);
  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);
      g_autofree char *resolved = assay_session_resolve (self->session, dataset->path);

      if (g_strcmp0 (resolved, path) == 0)
        return g_strdup (dataset->name);
    }
  return NULL;
}

AssayMasker *
assay_conversation_get_masker (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return self->agent != NULL ? assay_agent_get_masker (self->agent) : NULL;
}

/* ---- descriptions ------------------------------------------------------------------------ */

char *
assay_conversation_make_description (AssaySession *session,
                                     AssayDataset *dataset,
                                     const GError *error)
{
  guint n_datasets = assay_session_get_datasets (session)->len;

  if (assay_session_get_privacy_mode (session) == ASSAY_PRIVACY_SCHEMA)
    return assay_dataset_describe_schema_for_prompt (dataset, error, n_datasets);
  return assay_dataset_describe_for_prompt (dataset, error, n_datasets);
}

void
assay_conversation_note_described (AssayConversation *self,
                                   const char        *name,
                                   AssayPrivacyMode   mode)
{
  g_hash_table_insert (self->described, g_strdup (name), GINT_TO_POINTER (mode + 1));
}

void
assay_conversation_forget_privacy (AssayConversation *self)
{
  g_clear_object (&self->masker);
  g_clear_pointer (&self->masker_key, g_free);
  g_hash_table_remove_all (self->described);
}

/* Whether the description of NAME may go to the model under MODE as it is: one made for a
 * full or masked session tells values a schema-only one must not (the masker hides the
 * masked columns' values in either). One of a session opened from disk was made under the
 * mode it was saved with, which is not known here: in schema-only mode it is made again. */
static gboolean
assay_conversation_description_fits (AssayConversation         *self,
                                     const AssaySessionDataset *dataset,
                                     AssayPrivacyMode           mode)
{
  gpointer made = g_hash_table_lookup (self->described, dataset->name);

  if (made == NULL)
    return mode != ASSAY_PRIVACY_SCHEMA;
  return (GPOINTER_TO_INT (made) - 1 == ASSAY_PRIVACY_SCHEMA) == (mode == ASSAY_PRIVACY_SCHEMA);
}

/* ---- before a question ------------------------------------------------------------------- */

/* Which content the session's copy of the file NAME has (its size and time of change): a
 * file replaced by another of its name has new values to mask. */
static void
assay_conversation_append_identity (AssayConversation *self,
                                    GString           *out,
                                    const char        *name)
{
  GPtrArray *datasets = assay_session_get_datasets (self->session);

  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);
      g_autofree char *path = NULL;
      GStatBuf st;

      if (g_strcmp0 (dataset->name, name) != 0 ||
          (path = assay_session_resolve (self->session, dataset->path)) == NULL || g_stat (path, &st) != 0)
        continue;
      g_string_append_printf (out, "%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ".%ld", (gint64) st.st_size,
                              (gint64) st.st_mtim.tv_sec, (long) st.st_mtim.tv_nsec);
    }
  g_string_append_c (out, '\x1e');
}

/* Distinct values read from a masked database column at most (as assay-cli ask does): a
 * column with more is a key of a large table, and the masker says so. */
#define MAX_MASKED_VALUES 200000

typedef struct
{
  char        *dataset;        /* as the sandbox names it, or "NAME.TABLE" of a database */
  char        *column;
  char        *path;           /* its copy in the session; NULL: the session has no such file */
  AssaySource *source;         /* or the connected database NAME, and its TABLE */
  char        *table;
} MaskSpec;

typedef struct
{
  char *name;
  char *path;
  char *description;    /* made by the worker */
} DescribeSpec;

typedef struct
{
  GPtrArray        *masks;          /* MaskSpec*; NULL: the masker at hand holds */
  char             *masker_key;
  GPtrArray        *describe;       /* DescribeSpec* */
  AssayPrivacyMode  mode;
  guint             n_datasets;

  GPtrArray        *databases;      /* DatabaseSpec*: the connected databases */
  char             *databases_key;  /* the mode and masked columns they are described under */
  AssayMasker      *held_masker;    /* the masker at hand when MASKS is NULL */

  AssayMasker      *masker;
  GError           *masker_error;
  AssayPriceTable  *prices;
  GError           *prices_error;   /* the analyst's prices cannot be read: the shipped ones */
} PrepareJob;

static void
assay_conversation_mask_spec_free (MaskSpec *spec)
{
  g_free (spec->dataset);
  g_free (spec->column);
  g_free (spec->path);
  g_clear_object (&spec->source);
  g_free (spec->table);
  g_free (spec);
}

static void
assay_conversation_describe_spec_free (DescribeSpec *spec)
{
  g_free (spec->name);
  g_free (spec->path);
  g_free (spec->description);
  g_free (spec);
}

static void
assay_conversation_prepare_job_free (PrepareJob *job)
{
  g_clear_pointer (&job->masks, g_ptr_array_unref);
  g_clear_pointer (&job->describe, g_ptr_array_unref);
  g_clear_pointer (&job->databases, g_ptr_array_unref);
  g_free (job->databases_key);
  g_clear_object (&job->held_masker);
  g_clear_object (&job->masker);
  g_clear_error (&job->masker_error);
  g_clear_pointer (&job->prices, assay_price_table_unref);
  g_clear_error (&job->prices_error);
  g_free (job->masker_key);
  g_free (job);
}

/* Each file is read once for all it is needed for. */
static AssayDataset *
assay_conversation_prepare_open (GHashTable   *opened,
                                 const char   *path,
                                 GCancellable *cancellable,
                                 GError      **error)
{
  AssayDataset *dataset = g_hash_table_lookup (opened, path);

  if (dataset == NULL)
    {
      dataset = assay_dataset_open (path, cancellable, error);
      if (dataset != NULL)
        g_hash_table_insert (opened, g_strdup (path), dataset);
    }
  return dataset;
}

static void
assay_conversation_prepare_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  PrepareJob *job = task_data;
  g_autoptr(GHashTable) opened = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_autoptr(GError) shipped_error = NULL;

  if (job->masks != NULL)
    {
      g_autoptr(AssayMasker) masker = assay_masker_new ();
      GError *error = NULL;

      for (guint i = 0; i < job->masks->len && error == NULL; i++)
        {
          const MaskSpec *spec = g_ptr_array_index (job->masks, i);
          AssayDataset *dataset;

          if (spec->path == NULL && spec->source != NULL)
            {
              g_autoptr(GPtrArray) values = assay_source_read_distinct_sync (spec->source, spec->table, spec->column,
                                                                              MAX_MASKED_VALUES, cancellable, &error);
              guint column;

              if (values == NULL)
                {
                  g_prefix_error (&error, "%s:%s: ", spec->dataset, spec->column);
                  break;
                }
              column = assay_masker_add_column (masker, spec->dataset, spec->column);
              for (guint j = 0; j < values->len; j++)
                {
                  const char *value = g_ptr_array_index (values, j);

                  if (!assay_masker_add_value (masker, column, value, strlen (value)))
                    break;
                }
              continue;
            }
          if (spec->path == NULL)
            {
              g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("the session has no file %s"), spec->dataset);
              break;
            }
          dataset = assay_conversation_prepare_open (opened, spec->path, cancellable, &error);
          if (dataset != NULL)
            assay_masker_add_dataset_column (masker, spec->dataset, dataset, spec->column, cancellable, &error);
        }
      if (error != NULL)
        job->masker_error = error;
      else
        job->masker = g_steal_pointer (&masker);
    }

  for (guint i = 0; i < job->describe->len; i++)
    {
      DescribeSpec *spec = g_ptr_array_index (job->describe, i);
      g_autoptr(GError) error = NULL;
      AssayDataset *dataset = assay_conversation_prepare_open (opened, spec->path, cancellable, &error);
      AssayMasker *masker = job->masks != NULL ? job->masker : job->held_masker;

      /* The masked columns' samples as placeholders, before the summary cuts them. */
      if (dataset != NULL && masker != NULL && job->mode == ASSAY_PRIVACY_MASKED)
        assay_masker_mask_samples (masker, dataset, spec->name);
      if (job->mode == ASSAY_PRIVACY_SCHEMA)
        spec->description = assay_dataset_describe_schema_for_prompt (dataset, error, job->n_datasets);
      else
        spec->description = assay_dataset_describe_for_prompt (dataset, error, job->n_datasets);
    }

  /* The databases, masked by the masker just made (or the one at hand); not once the
   * masker failed, since nothing goes to the model then. */
  if (job->masker_error == NULL)
    assay_conversation_describe_databases (job->databases, job->masks != NULL ? job->masker : job->held_masker,
                                           job->mode, cancellable);

  /* The shipped table with the analyst's prices on top; when the analyst's file is broken,
   * the shipped table alone (and the window says so). */
  job->prices = assay_price_table_new_default (&job->prices_error);
  if (job->prices == NULL)
    job->prices = assay_price_table_new_shipped (&shipped_error);
  if (job->prices == NULL)
    g_debug ("no price table: %s", shipped_error->message);

  g_task_return_boolean (task, TRUE);
}

static void
assay_conversation_prepared_cb (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  g_autoptr(AssayConversation) self = user_data;
  PrepareJob *job = g_task_get_task_data (G_TASK (result));
  AssayMasker *masker;

  if (self->closing)
    return;
  if (g_cancellable_is_cancelled (self->ask_cancellable))
    {
      assay_conversation_fail_question (self, ASSAY_AGENT_CANCELLED, _("Stopped."));
      return;
    }
  if (job->masker_error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The masked columns could not be read, so nothing was sent to "
                                                 "the model: %s"), job->masker_error->message);

      assay_conversation_fail_question (self, ASSAY_AGENT_MODEL_ERROR, text);
      return;
    }
  if (job->masks != NULL)
    {
      g_set_object (&self->masker, job->masker);
      g_free (self->masker_key);
      self->masker_key = g_strdup (job->masker_key);
    }

  assay_conversation_apply_databases (self, job->databases, job->databases_key);
  for (guint i = 0; i < job->describe->len; i++)
    {
      const DescribeSpec *spec = g_ptr_array_index (job->describe, i);

      assay_agent_set_dataset_description (self->agent, spec->name, spec->description);
      assay_conversation_note_described (self, spec->name, job->mode);
    }

  if (job->prices_error != NULL && g_strcmp0 (self->price_warning, job->prices_error->message) != 0)
    {
      g_autofree char *text = g_strdup_printf (_("Your model prices could not be read, so the shipped prices are "
                                                 "used: %s"), job->prices_error->message);

      g_free (self->price_warning);
      self->price_warning = g_strdup (job->prices_error->message);
      g_signal_emit_by_name (self, "error", text);
    }

  /* Masking is in force in masked and schema-only mode (an output schema-only mode lets
   * through, an error's type, holds no value, but the answer's placeholders are mapped
   * back all the same). */
  masker = job->mode != ASSAY_PRIVACY_FULL && self->masker != NULL &&
           assay_masker_get_n_columns (self->masker) > 0 ? self->masker : NULL;
  if (masker != NULL && job->masks != NULL && assay_masker_get_warning (masker) != NULL)
    g_signal_emit_by_name (self, "error", assay_masker_get_warning (masker));
  assay_agent_set_masker (self->agent, masker);
  assay_agent_set_prices (self->agent, job->prices);
  assay_agent_set_budget (self->agent, g_settings_get_double (self->settings, "session-budget"));
  assay_conversation_ask_agent (self);
}

void
assay_conversation_prepare_question (AssayConversation *self)
{
  PrepareJob *job = g_new0 (PrepareJob, 1);
  GPtrArray *masked = assay_session_get_masked_columns (self->session);
  GPtrArray *datasets = assay_session_get_datasets (self->session);
  g_autoptr(GString) key = g_string_new (NULL);
  g_autoptr(GString) files = g_string_new (NULL);   /* KEY and the masked files' contents */
  g_autoptr(GTask) task = NULL;

  /* A database of a session just opened is still being connected: the question waits for it
   * (and comes back here once none is), so the model is told of every one. */
  if (assay_conversation_get_connecting (self))
    {
      self->question_waits_connections = TRUE;
      g_free (job);
      return;
    }

  job->mode = assay_session_get_privacy_mode (self->session);
  job->n_datasets = datasets->len;
  job->describe = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_conversation_describe_spec_free);

  /* The masked columns, each with its dataset's copy in the session (a file replaced by
   * another of its name is read again: its values are new). */
  for (guint i = 0; i < masked->len; i++)
    {
      const AssaySessionMask *mask = g_ptr_array_index (masked, i);

      g_string_append_printf (key, "%s\x1f%s\x1e", mask->dataset, mask->column);
      assay_conversation_append_identity (self, files, mask->dataset);
    }
  g_string_prepend (files, key->str);
  if (job->mode != ASSAY_PRIVACY_FULL && masked->len > 0 &&
      (self->masker == NULL || g_strcmp0 (self->masker_key, files->str) != 0))
    {
      job->masks = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_conversation_mask_spec_free);
      job->masker_key = g_strdup (files->str);
      for (guint i = 0; i < masked->len; i++)
        {
          const AssaySessionMask *mask = g_ptr_array_index (masked, i);
          MaskSpec *spec = g_new0 (MaskSpec, 1);

          spec->dataset = g_strdup (mask->dataset);
          spec->column = g_strdup (mask->column);
          for (guint j = 0; j < datasets->len && spec->path == NULL; j++)
            {
              const AssaySessionDataset *dataset = g_ptr_array_index (datasets, j);

              if (g_strcmp0 (dataset->name, mask->dataset) == 0)
                spec->path = assay_session_resolve (self->session, dataset->path);
            }
          /* A table's column of an SQLite dataset: "FILE.TABLE", as for a connection; the
           * masker reads its values from the file. */
          for (guint j = 0; j < datasets->len && spec->path == NULL; j++)
            {
              const AssaySessionDataset *dataset = g_ptr_array_index (datasets, j);
              gsize length = dataset->name != NULL ? strlen (dataset->name) : 0;

              if (length > 0 && strncmp (mask->dataset, dataset->name, length) == 0 && mask->dataset[length] == '.')
                {
                  g_autofree char *path = assay_session_resolve (self->session, dataset->path);

                  /* Its header only: 16 bytes. */
                  if (path != NULL && assay_sqlite_file_is_database (path))
                    spec->path = g_steal_pointer (&path);
                }
            }
          /* A column of a database's table: "NAME.TABLE". */
          if (spec->path == NULL && strchr (mask->dataset, '.') != NULL)
            {
              const char *dot = strchr (mask->dataset, '.');
              g_autofree char *name = g_strndup (mask->dataset, dot - mask->dataset);
              AssaySource *source = assay_conversation_find_source (self, name);

              if (source != NULL)
                {
                  spec->source = g_object_ref (source);
                  spec->table = g_strdup (dot + 1);
                }
            }
          g_ptr_array_add (job->masks, spec);
        }
    }
  else if (masked->len == 0)
    {
      g_clear_object (&self->masker);
      g_clear_pointer (&self->masker_key, g_free);
    }

  /* The descriptions made for another mode than this question's, and in masked mode those
   * of the files whose masked columns changed (their samples become placeholders). */
  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);
      g_autofree char *path = NULL;
      DescribeSpec *spec;
      gboolean remask = FALSE;

      for (guint j = 0; job->masks != NULL && job->mode == ASSAY_PRIVACY_MASKED && j < masked->len && !remask; j++)
        remask = g_strcmp0 (((const AssaySessionMask *) g_ptr_array_index (masked, j))->dataset, dataset->name) == 0;
      if ((!remask && assay_conversation_description_fits (self, dataset, job->mode)) ||
          (path = assay_session_resolve (self->session, dataset->path)) == NULL)
        continue;
      spec = g_new0 (DescribeSpec, 1);
      spec->name = g_strdup (dataset->name);
      spec->path = g_steal_pointer (&path);
      g_ptr_array_add (job->describe, spec);
    }

  /* The databases, described again when the mode or the masked columns changed. */
  job->databases_key = g_strdup_printf ("%d\x1d%s", (int) job->mode, key->str);
  job->databases = assay_conversation_collect_databases (self, job->databases_key);
  if (job->masks == NULL && self->masker != NULL && masked->len > 0)
    job->held_masker = g_object_ref (self->masker);

  task = g_task_new (NULL, self->ask_cancellable, assay_conversation_prepared_cb, g_object_ref (self));
  g_task_set_source_tag (task, assay_conversation_prepare_question);
  g_task_set_task_data (task, job, (GDestroyNotify) assay_conversation_prepare_job_free);
  g_task_run_in_thread (task, assay_conversation_prepare_worker);
}
