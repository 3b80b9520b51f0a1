/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "assay-session-store.h"

/* ---- AssaySessionSummary ------------------------------------------------------------- */

struct _AssaySessionSummary
{
  GObject   parent_instance;
  char     *dir;
  char     *title;
  gint64    updated;
  GStrv     datasets;
  char     *folded;    /* the title and the dataset names, case-folded, one per line */
};

G_DEFINE_FINAL_TYPE (AssaySessionSummary, assay_session_summary, G_TYPE_OBJECT)

enum { SUMMARY_PROP_0, SUMMARY_PROP_DIR, SUMMARY_PROP_TITLE, SUMMARY_PROP_UPDATED, SUMMARY_N_PROPS };
static GParamSpec *summary_properties[SUMMARY_N_PROPS];

static void
assay_session_summary_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  AssaySessionSummary *self = ASSAY_SESSION_SUMMARY (object);

  switch (prop_id)
    {
    case SUMMARY_PROP_DIR:
      g_value_set_string (value, self->dir);
      break;
    case SUMMARY_PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case SUMMARY_PROP_UPDATED:
      g_value_set_int64 (value, self->updated);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_session_summary_finalize (GObject *object)
{
  AssaySessionSummary *self = ASSAY_SESSION_SUMMARY (object);

  g_free (self->dir);
  g_free (self->title);
  g_strfreev (self->datasets);
  g_free (self->folded);
  G_OBJECT_CLASS (assay_session_summary_parent_class)->finalize (object);
}

static void
assay_session_summary_class_init (AssaySessionSummaryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = assay_session_summary_get_property;
  object_class->finalize = assay_session_summary_finalize;
  summary_properties[SUMMARY_PROP_DIR] =
    g_param_spec_string ("dir", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  summary_properties[SUMMARY_PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  summary_properties[SUMMARY_PROP_UPDATED] =
    g_param_spec_int64 ("updated", NULL, NULL, 0, G_MAXINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, SUMMARY_N_PROPS, summary_properties);
}

static void
assay_session_summary_init (AssaySessionSummary *self)
{
}

/* Runs in the lister's worker: reads only the session it is given. */
static AssaySessionSummary *
assay_session_summary_new (AssaySession *session)
{
  AssaySessionSummary *self = g_object_new (ASSAY_TYPE_SESSION_SUMMARY, NULL);
  GPtrArray *datasets = assay_session_get_datasets (session);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  const char *title = assay_session_get_title (session);

  self->dir = g_strdup (assay_session_get_dir (session));
  self->title = g_strdup (title != NULL ? title : "");
  self->updated = MAX (assay_session_get_updated (session), 0);
  g_string_append (text, self->title);
  for (guint i = 0; datasets != NULL && i < datasets->len; i++)
    {
      AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);

      g_strv_builder_add (names, dataset->name);
      g_string_append_printf (text, "\n%s", dataset->name);
    }
  self->datasets = g_strv_builder_end (names);
  self->folded = g_utf8_casefold (text->str, -1);
  return self;
}

const char *
assay_session_summary_get_dir (AssaySessionSummary *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION_SUMMARY (self), NULL);
  return self->dir;
}

const char *
assay_session_summary_get_title (AssaySessionSummary *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION_SUMMARY (self), NULL);
  return self->title;
}

gint64
assay_session_summary_get_updated (AssaySessionSummary *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION_SUMMARY (self), 0);
  return self->updated;
}

const char * const *
assay_session_summary_get_datasets (AssaySessionSummary *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION_SUMMARY (self), NULL);
  return (const char * const *) self->datasets;
}

gboolean
assay_session_summary_matches (AssaySessionSummary *self,
                               const char          *query)
{
  g_return_val_if_fail (ASSAY_IS_SESSION_SUMMARY (self), FALSE);
  return query == NULL || *query == '\0' || strstr (self->folded, query) != NULL;
}

/* ---- the jobs -------------------------------------------------------------------------- */

typedef enum
{
  JOB_OPEN,
  JOB_RENAME,
  JOB_DELETE,
  JOB_SAVE,
} JobKind;

typedef struct
{
  JobKind            kind;
  char              *dir;        /* canonical */
  char              *title;      /* JOB_RENAME */
  AssaySession      *session;    /* JOB_OPEN: loaded; JOB_RENAME: the one held in memory;
                                  * JOB_SAVE: the one to write */
  AssayArtifactList *artifacts;  /* JOB_OPEN */
  gboolean           relist;     /* the list is read again when the job is done */
  GCancellable      *cancellable;
  GApplication      *held;       /* JOB_SAVE: kept running until the record is written */
  GTask             *task;       /* the caller's; owns this job as its task data */
} Job;

static void
assay_session_store_job_free (Job *job)
{
  g_free (job->dir);
  g_free (job->title);
  g_clear_object (&job->session);
  g_clear_object (&job->artifacts);
  g_clear_object (&job->cancellable);
  if (job->held != NULL)
    {
      g_application_release (job->held);
      g_clear_object (&job->held);
    }
  g_free (job);
}

/* ---- AssaySessionStore --------------------------------------------------------------- */

struct _AssaySessionStore
{
  GObject       parent_instance;

  char         *parent_dir;
  GPtrArray    *items;             /* AssaySessionSummary* */
  GCancellable *list_cancellable;  /* the reload in flight */

  GQueue        waiting;           /* Job*, in the order asked for */
  Job          *running;
  Job          *open;              /* the open asked for last, until it returns */
  gboolean      shut_down;
};

static void assay_session_store_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AssaySessionStore, assay_session_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, assay_session_store_list_model_init))

enum { PROP_0, PROP_OPENING, N_PROPS };
static GParamSpec *properties[N_PROPS];

enum { RELOADED, N_SIGNALS };
static guint signals[N_SIGNALS];

static GType
assay_session_store_get_item_type (GListModel *model)
{
  return ASSAY_TYPE_SESSION_SUMMARY;
}

static guint
assay_session_store_get_n_items (GListModel *model)
{
  return ASSAY_SESSION_STORE (model)->items->len;
}

static gpointer
assay_session_store_get_item (GListModel *model,
                              guint       position)
{
  AssaySessionStore *self = ASSAY_SESSION_STORE (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
assay_session_store_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = assay_session_store_get_item_type;
  iface->get_n_items = assay_session_store_get_n_items;
  iface->get_item = assay_session_store_get_item;
}

/* ---- the list -------------------------------------------------------------------------- */

static void
assay_session_store_list_worker (GTask        *task,
                                 gpointer      source_object,
                                 gpointer      task_data,
                                 GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = assay_session_list (task_data, &error);
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    g_ptr_array_add (items, assay_session_summary_new (g_ptr_array_index (sessions, i)));
  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_debug ("listing the sessions: %s", error->message);
  g_task_return_pointer (task, items, (GDestroyNotify) g_ptr_array_unref);
}

/* Whether two summaries show the same: the same session, title, time and datasets. */
static gboolean
assay_session_summary_same (AssaySessionSummary *a,
                            AssaySessionSummary *b)
{
  return g_strcmp0 (a->dir, b->dir) == 0 && g_strcmp0 (a->title, b->title) == 0 &&
         a->updated == b->updated && g_strv_equal ((const char * const *) a->datasets,
                                                   (const char * const *) b->datasets);
}

/* The new list replaces the old as a change of the part between what both begin and end with
 * (after a question, the session asked in moves to the top): the rest keep their items, so a
 * list view keeps their rows. Rebuilding every row of a few hundred sessions after each
 * question stalled the window for a quarter of a second. */
static void
assay_session_store_listed_cb (GObject      *source,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  AssaySessionStore *self = ASSAY_SESSION_STORE (source);
  g_autoptr(GPtrArray) items = g_task_propagate_pointer (G_TASK (result), NULL);
  GPtrArray *old;
  guint head = 0, tail = 0;

  /* NULL: cancelled, a newer reload is on its way. */
  if (items == NULL)
    return;
  old = self->items;
  while (head < old->len && head < items->len &&
         assay_session_summary_same (g_ptr_array_index (old, head), g_ptr_array_index (items, head)))
    head++;
  while (tail < old->len - head && tail < items->len - head &&
         assay_session_summary_same (g_ptr_array_index (old, old->len - 1 - tail),
                                     g_ptr_array_index (items, items->len - 1 - tail)))
    tail++;
  for (guint i = 0; i < head; i++)
    {
      g_object_unref (g_ptr_array_index (items, i));
      g_ptr_array_index (items, i) = g_object_ref (g_ptr_array_index (old, i));
    }
  for (guint i = 0; i < tail; i++)
    {
      g_object_unref (g_ptr_array_index (items, items->len - 1 - i));
      g_ptr_array_index (items, items->len - 1 - i) = g_object_ref (g_ptr_array_index (old, old->len - 1 - i));
    }
  self->items = g_steal_pointer (&items);
  if (old->len - head - tail > 0 || self->items->len - head - tail > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), head, old->len - head - tail, self->items->len - head - tail);
  g_ptr_array_unref (old);
  g_signal_emit (self, signals[RELOADED], 0);
}

void
assay_session_store_reload (AssaySessionStore *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_SESSION_STORE (self));
  /* The latest reload wins: an earlier one finishing later would show an older list. */
  g_cancellable_cancel (self->list_cancellable);
  g_clear_object (&self->list_cancellable);
  self->list_cancellable = g_cancellable_new ();
  task = g_task_new (self, self->list_cancellable, assay_session_store_listed_cb, NULL);
  g_task_set_source_tag (task, assay_session_store_reload);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_set_task_data (task, g_strdup (self->parent_dir), g_free);
  g_task_run_in_thread (task, assay_session_store_list_worker);
}

AssaySessionSummary *
assay_session_store_lookup (AssaySessionStore *self,
                            const char        *dir)
{
  g_autofree char *canonical = NULL;

  g_return_val_if_fail (ASSAY_IS_SESSION_STORE (self), NULL);
  if (dir == NULL)
    return NULL;
  canonical = g_canonicalize_filename (dir, NULL);
  for (guint i = 0; i < self->items->len; i++)
    {
      AssaySessionSummary *item = g_ptr_array_index (self->items, i);

      if (g_str_equal (item->dir, canonical))
        return item;
    }
  return NULL;
}

const char *
assay_session_store_get_parent (AssaySessionStore *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION_STORE (self), NULL);
  return self->parent_dir;
}

/* ---- running the jobs ------------------------------------------------------------------- */

static void assay_session_store_run_next (AssaySessionStore *self);

static void
assay_session_store_set_open (AssaySessionStore *self,
                              Job               *job)
{
  gboolean was_opening = self->open != NULL;

  self->open = job;
  if (was_opening != (job != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPENING]);
}

/* JOB is over, with ERROR (taken) or its result: the caller is answered, then the next job
 * starts. The task owns the job: nothing may touch it after the answer. */
static void
assay_session_store_job_done (Job    *job,
                              GError *error)
{
  g_autoptr(GTask) task = job->task;   /* the job's own reference, taken */
  AssaySessionStore *self = g_task_get_source_object (task);
  gboolean relist = job->relist && error == NULL;

  if (self->running == job)
    self->running = NULL;
  if (self->open == job)
    assay_session_store_set_open (self, NULL);
  /* Superseded: an open's result is never shown, even when it was read by then. */
  if (error == NULL && job->kind == JOB_OPEN && g_cancellable_is_cancelled (job->cancellable))
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Another session was opened"));
  if (error != NULL)
    g_task_return_error (task, error);
  else if (job->kind == JOB_OPEN)
    g_task_return_pointer (task, g_steal_pointer (&job->session), g_object_unref);
  else
    g_task_return_boolean (task, TRUE);
  if (relist && !self->shut_down)
    assay_session_store_reload (self);
  assay_session_store_run_next (self);
}

static void
assay_session_store_open_listed_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  Job *job = user_data;
  GError *error = NULL;

  job->artifacts = g_task_propagate_pointer (G_TASK (result), &error);
  assay_session_store_job_done (job, error);
}

/* Until it returns, the session is the worker's: the main thread does not touch it. */
static void
assay_session_store_list_artifacts_worker (GTask        *task,
                                           gpointer      source_object,
                                           gpointer      task_data,
                                           GCancellable *cancellable)
{
  g_task_return_pointer (task, assay_artifact_list_new_for_session (task_data), g_object_unref);
}

static void
assay_session_store_open_loaded_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  Job *job = user_data;
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  job->session = assay_session_load_finish (result, &error);
  if (job->session == NULL)
    {
      assay_session_store_job_done (job, error);
      return;
    }
  task = g_task_new (NULL, job->cancellable, assay_session_store_open_listed_cb, job);
  g_task_set_source_tag (task, assay_session_store_open_loaded_cb);
  g_task_set_task_data (task, g_object_ref (job->session), g_object_unref);
  g_task_run_in_thread (task, assay_session_store_list_artifacts_worker);
}

static void
assay_session_store_saved_cb (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  Job *job = user_data;
  GError *error = NULL;

  assay_session_save_finish (ASSAY_SESSION (source), result, &error);
  assay_session_store_job_done (job, error);
}

static void
assay_session_store_worker_done_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  Job *job = user_data;
  GError *error = NULL;

  g_task_propagate_boolean (G_TASK (result), &error);
  assay_session_store_job_done (job, error);
}

static void
assay_session_store_rename_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  Job *job = task_data;
  g_autoptr(AssaySession) session = NULL;
  GError *error = NULL;

  session = assay_session_load (job->dir, &error);
  if (session == NULL || !assay_session_rename (session, job->title, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
assay_session_store_delete_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;

  if (!assay_session_delete (job->dir, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
assay_session_store_run_in_worker (Job             *job,
                                   GTaskThreadFunc  func)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, assay_session_store_worker_done_cb, job);

  g_task_set_source_tag (task, assay_session_store_run_in_worker);
  /* The job lives as long as its caller's task, which outlives this one. */
  g_task_set_task_data (task, job, NULL);
  g_task_run_in_thread (task, func);
}

/* The record as it is now; the application does not quit before it is written. */
static void
assay_session_store_start_save (Job *job)
{
  if ((job->held = g_application_get_default ()) != NULL)
    g_application_hold (g_object_ref (job->held));
  assay_session_save_async (job->session, NULL, assay_session_store_saved_cb, job);
}

static void
assay_session_store_start_job (Job *job)
{
  switch (job->kind)
    {
    case JOB_OPEN:
      assay_session_load_async (job->dir, job->cancellable, assay_session_store_open_loaded_cb, job);
      break;
    case JOB_RENAME:
      if (job->session != NULL)
        {
          /* The session held in memory is written by whoever holds it; saves land in order. */
          assay_session_set_title (job->session, job->title);
          assay_session_save_async (job->session, NULL, assay_session_store_saved_cb, job);
        }
      else
        assay_session_store_run_in_worker (job, assay_session_store_rename_worker);
      break;
    case JOB_DELETE:
      assay_session_store_run_in_worker (job, assay_session_store_delete_worker);
      break;
    case JOB_SAVE:
    default:
      assay_session_store_start_save (job);
      break;
    }
}

static void
assay_session_store_run_next (AssaySessionStore *self)
{
  Job *job;

  if (self->running != NULL || (job = g_queue_pop_head (&self->waiting)) == NULL)
    return;
  self->running = job;
  assay_session_store_start_job (job);
}

static Job *
assay_session_store_job_new (AssaySessionStore   *self,
                             JobKind              kind,
                             const char          *dir,
                             gpointer             source_tag,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->dir = g_canonicalize_filename (dir, NULL);
  job->cancellable = g_cancellable_new ();
  job->task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (job->task, source_tag);
  g_task_set_task_data (job->task, job, (GDestroyNotify) assay_session_store_job_free);
  return job;
}

/* Takes the job's task: it is answered when the job is done. */
static void
assay_session_store_queue_job (AssaySessionStore *self,
                               Job               *job)
{
  if (self->shut_down)
    {
      g_autoptr(GTask) task = job->task;

      if (job->kind == JOB_SAVE)
        {
          /* A record is never lost to a window that closed first. */
          g_object_ref (task);
          assay_session_store_start_save (job);
          return;
        }
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The sessions were closed"));
      return;
    }
  g_queue_push_tail (&self->waiting, job);
  assay_session_store_run_next (self);
}

/* Drops a job that has not started: its caller is told it was cancelled. */
static void
assay_session_store_drop_waiting (AssaySessionStore *self,
                                  Job               *job,
                                  const char        *why)
{
  g_autoptr(GTask) task = job->task;

  g_queue_remove (&self->waiting, job);
  if (self->open == job)
    assay_session_store_set_open (self, NULL);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", why);
}

gboolean
assay_session_store_cancel_open (AssaySessionStore *self)
{
  Job *job;

  g_return_val_if_fail (ASSAY_IS_SESSION_STORE (self), FALSE);
  if ((job = self->open) == NULL)
    return FALSE;
  g_cancellable_cancel (job->cancellable);
  if (g_queue_find (&self->waiting, job) != NULL)
    assay_session_store_drop_waiting (self, job, _("Another session was opened"));
  else
    assay_session_store_set_open (self, NULL);   /* running: its callback sees the cancellation */
  return TRUE;
}

void
assay_session_store_open_async (AssaySessionStore   *self,
                                const char          *dir,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  Job *job;

  g_return_if_fail (ASSAY_IS_SESSION_STORE (self));
  g_return_if_fail (dir != NULL);

  /* The latest request wins. */
  assay_session_store_cancel_open (self);
  job = assay_session_store_job_new (self,
                                     JOB_OPEN,
                                     dir,
                                     assay_session_store_open_async,
                                     callback,
                                     user_data);
  if (!self->shut_down)
    assay_session_store_set_open (self, job);
  assay_session_store_queue_job (self, job);
}

AssaySession *
assay_session_store_open_finish (AssaySessionStore  *self,
                                 GAsyncResult       *result,
                                 AssayArtifactList **artifacts,
                                 GError            **error)
{
  AssaySession *session;
  Job *job;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  job = g_task_get_task_data (G_TASK (result));
  session = g_task_propagate_pointer (G_TASK (result), error);
  if (artifacts != NULL)
    *artifacts = session != NULL ? g_steal_pointer (&job->artifacts) : NULL;
  return session;
}

const char *
assay_session_store_get_opening (AssaySessionStore *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION_STORE (self), NULL);
  return self->open != NULL ? self->open->dir : NULL;
}

void
assay_session_store_rename_async (AssaySessionStore   *self,
                                  const char          *dir,
                                  const char          *title,
                                  AssaySession        *open,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  Job *job;

  g_return_if_fail (ASSAY_IS_SESSION_STORE (self));
  g_return_if_fail (dir != NULL);
  g_return_if_fail (open == NULL || ASSAY_IS_SESSION (open));

  job = assay_session_store_job_new (self,
                                     JOB_RENAME,
                                     dir,
                                     assay_session_store_rename_async,
                                     callback,
                                     user_data);
  job->title = g_strdup (title != NULL ? title : "");
  job->session = open != NULL ? g_object_ref (open) : NULL;
  job->relist = TRUE;
  assay_session_store_queue_job (self, job);
}

gboolean
assay_session_store_rename_finish (AssaySessionStore  *self,
                                   GAsyncResult       *result,
                                   GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
assay_session_store_delete_async (AssaySessionStore   *self,
                                  const char          *dir,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  Job *job;

  g_return_if_fail (ASSAY_IS_SESSION_STORE (self));
  g_return_if_fail (dir != NULL);

  job = assay_session_store_job_new (self,
                                     JOB_DELETE,
                                     dir,
                                     assay_session_store_delete_async,
                                     callback,
                                     user_data);
  job->relist = TRUE;
  /* Not opened only to be deleted. */
  if (self->open != NULL && g_str_equal (self->open->dir, job->dir))
    assay_session_store_cancel_open (self);
  assay_session_store_queue_job (self, job);
}

gboolean
assay_session_store_delete_finish (AssaySessionStore  *self,
                                   GAsyncResult       *result,
                                   GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
assay_session_store_save_async (AssaySessionStore   *self,
                                AssaySession        *session,
                                gboolean             relist,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  Job *job;

  g_return_if_fail (ASSAY_IS_SESSION_STORE (self));
  g_return_if_fail (ASSAY_IS_SESSION (session));

  job = assay_session_store_job_new (self, JOB_SAVE, assay_session_get_dir (session), assay_session_store_save_async,
                                     callback, user_data);
  job->session = g_object_ref (session);
  job->relist = relist;
  assay_session_store_queue_job (self, job);
}

gboolean
assay_session_store_save_finish (AssaySessionStore  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
assay_session_store_shutdown (AssaySessionStore *self)
{
  Job *job;

  g_return_if_fail (ASSAY_IS_SESSION_STORE (self));
  if (self->shut_down)
    return;
  self->shut_down = TRUE;
  g_cancellable_cancel (self->list_cancellable);
  assay_session_store_set_open (self, NULL);
  if (self->running != NULL)
    g_cancellable_cancel (self->running->cancellable);
  while ((job = g_queue_peek_head (&self->waiting)) != NULL)
    {
      if (job->kind == JOB_SAVE)
        {
          /* Written even so, now: nothing else runs after it any more. */
          g_queue_pop_head (&self->waiting);
          assay_session_store_start_save (job);
        }
      else
        assay_session_store_drop_waiting (self, job, _("The sessions were closed"));
    }
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
assay_session_store_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AssaySessionStore *self = ASSAY_SESSION_STORE (object);

  switch (prop_id)
    {
    case PROP_OPENING:
      g_value_set_string (value, assay_session_store_get_opening (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_session_store_finalize (GObject *object)
{
  AssaySessionStore *self = ASSAY_SESSION_STORE (object);

  /* Every job's task holds the store: none can be left. */
  g_warn_if_fail (self->running == NULL && g_queue_is_empty (&self->waiting));
  g_cancellable_cancel (self->list_cancellable);
  g_clear_object (&self->list_cancellable);
  g_ptr_array_unref (self->items);
  g_free (self->parent_dir);
  G_OBJECT_CLASS (assay_session_store_parent_class)->finalize (object);
}

static void
assay_session_store_class_init (AssaySessionStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = assay_session_store_get_property;
  object_class->finalize = assay_session_store_finalize;

  /* The folder of the open asked for last, while it has not returned; NULL otherwise. */
  properties[PROP_OPENING] = g_param_spec_string ("opening", NULL, NULL, NULL,
                                                  G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[RELOADED] = g_signal_new ("reloaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
assay_session_store_init (AssaySessionStore *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  g_queue_init (&self->waiting);
}

AssaySessionStore *
assay_session_store_new (const char *parent)
{
  AssaySessionStore *self = g_object_new (ASSAY_TYPE_SESSION_STORE, NULL);

  self->parent_dir = parent != NULL ? g_canonicalize_filename (parent, NULL) : assay_session_default_parent ();
  return self;
}
