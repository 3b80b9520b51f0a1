/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The connection abstraction: what every backend shares. Each call that reaches the server
 * is a job run by a worker with the source's lock held, so a backend's handle is only ever
 * used by one thread at a time; interrupt is the one entry point that may come from another
 * thread (a cancellable's handler), and each backend makes it safe. */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-source-private.h"

typedef struct
{
  char              *name;
  AssaySourceUrl    *url;
  char              *display_url;
  char              *password;
  char             **tables;
  AssayQueryLimits   limits;
  AssaySqlSyntax     syntax;
  char              *server;
  gboolean           powers_read; /* for this connection (the lock is held) */
  GMutex             risk_lock;   /* the three below, read from any thread without waiting
                                   * for a query in flight */
  char              *powers;      /* joined, once let in; NULL: none, or not yet */
  gboolean           accept_risk;
  char              *accepted_powers;
  GMutex             lock;       /* held by the worker using the backend */
} AssaySourcePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AssaySource, assay_source, G_TYPE_OBJECT)

#define PRIV(self) ((AssaySourcePrivate *) assay_source_get_instance_private (ASSAY_SOURCE (self)))

typedef enum
{
  JOB_OPEN,
  JOB_DESCRIBE,
  JOB_QUERY,
  JOB_DISTINCT,
} JobKind;

typedef struct
{
  JobKind  kind;
  char    *sql;
  guint    samples;
  char    *table;
  char    *column;
  guint    max;
} Job;

static void
job_free (gpointer data)
{
  Job *job = data;

  g_free (job->sql);
  g_free (job->table);
  g_free (job->column);
  g_free (job);
}

static void
assay_source_finalize (GObject *object)
{
  AssaySource *self = ASSAY_SOURCE (object);
  AssaySourcePrivate *priv = PRIV (self);

  g_free (priv->name);
  g_clear_pointer (&priv->url, assay_source_url_free);
  g_free (priv->display_url);
  if (priv->password != NULL)
    memset (priv->password, 0, strlen (priv->password));
  g_free (priv->password);
  g_strfreev (priv->tables);
  g_free (priv->server);
  g_free (priv->powers);
  g_free (priv->accepted_powers);
  g_mutex_clear (&priv->risk_lock);
  g_mutex_clear (&priv->lock);
  G_OBJECT_CLASS (assay_source_parent_class)->finalize (object);
}

static void
assay_source_real_close (AssaySource *self)
{
}

static void
assay_source_class_init (AssaySourceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_source_finalize;
  klass->close = assay_source_real_close;
}

static void
assay_source_init (AssaySource *self)
{
  AssaySourcePrivate *priv = PRIV (self);

  g_mutex_init (&priv->lock);
  g_mutex_init (&priv->risk_lock);
  assay_query_limits_init (&priv->limits);
}

gboolean
assay_source_name_is_valid (const char *name)
{
  if (name == NULL || *name == '\0' || g_ascii_isdigit (*name) || strlen (name) > 64)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

AssaySource *
assay_source_new (const char  *name,
                  const char  *url,
                  GError     **error)
{
  g_autoptr(AssaySourceUrl) parsed = NULL;
  AssaySource *self;
  AssaySourcePrivate *priv;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (url != NULL, NULL);

  if (!assay_source_name_is_valid (name))
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                   _("“%s” cannot name a database: use letters, digits and “_”, not starting with a digit"),
                   name);
      return NULL;
    }
  parsed = assay_source_url_parse (url, error);
  if (parsed == NULL)
    return NULL;
  switch (parsed->kind)
    {
    case ASSAY_SOURCE_POSTGRESQL:
      self = assay_pg_source_new ();
      break;
    case ASSAY_SOURCE_MYSQL:
      self = assay_mysql_source_new ();
      break;
    case ASSAY_SOURCE_SQLITE:
    default:
      self = assay_sqlite_source_new ();
      break;
    }
  priv = PRIV (self);
  priv->name = g_strdup (name);
  priv->display_url = assay_source_url_to_display (parsed);
  assay_sql_syntax_init (&priv->syntax,
                         parsed->kind == ASSAY_SOURCE_POSTGRESQL ? ASSAY_SQL_POSTGRESQL
                         : parsed->kind == ASSAY_SOURCE_MYSQL ? ASSAY_SQL_MYSQL : ASSAY_SQL_SQLITE);
  priv->url = g_steal_pointer (&parsed);
  return self;
}

const char *
assay_source_get_name (AssaySource *self)
{
  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  return PRIV (self)->name;
}

AssaySourceKind
assay_source_get_kind (AssaySource *self)
{
  g_return_val_if_fail (ASSAY_IS_SOURCE (self), ASSAY_SOURCE_SQLITE);
  return PRIV (self)->url->kind;
}

const char *
assay_source_get_display_url (AssaySource *self)
{
  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  return PRIV (self)->display_url;
}

const AssaySourceUrl *
assay_source_get_url (AssaySource *self)
{
  return PRIV (self)->url;
}

void
assay_source_set_password (AssaySource *self,
                           const char  *password)
{
  AssaySourcePrivate *priv;

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  priv = PRIV (self);
  if (priv->password != NULL)
    memset (priv->password, 0, strlen (priv->password));
  g_free (priv->password);
  priv->password = g_strdup (password);
}

const char *
assay_source_get_password (AssaySource *self)
{
  AssaySourcePrivate *priv = PRIV (self);

  return priv->password != NULL ? priv->password : priv->url->password;
}

void
assay_source_set_tables (AssaySource        *self,
                         const char * const *tables)
{
  AssaySourcePrivate *priv;

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  priv = PRIV (self);
  g_strfreev (priv->tables);
  priv->tables = tables != NULL && tables[0] != NULL ? g_strdupv ((char **) tables) : NULL;
}

const char * const *
assay_source_get_tables (AssaySource *self)
{
  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  return (const char * const *) PRIV (self)->tables;
}

void
assay_source_set_limits (AssaySource            *self,
                         const AssayQueryLimits *limits)
{
  g_return_if_fail (ASSAY_IS_SOURCE (self));
  g_return_if_fail (limits != NULL);
  PRIV (self)->limits = *limits;
}

const AssayQueryLimits *
assay_source_get_limits (AssaySource *self)
{
  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  return &PRIV (self)->limits;
}

const AssaySqlSyntax *
assay_source_get_syntax (AssaySource *self)
{
  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  return &PRIV (self)->syntax;
}

void
assay_source_set_syntax (AssaySource          *self,
                         const AssaySqlSyntax *syntax)
{
  PRIV (self)->syntax = *syntax;
}

const char *
assay_source_get_server (AssaySource *self)
{
  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  return PRIV (self)->server;
}

void
assay_source_set_server (AssaySource *self,
                         const char  *server)
{
  g_free (PRIV (self)->server);
  PRIV (self)->server = g_strdup (server);
}

char *
assay_source_redact (AssaySource *self,
                     const char  *text)
{
  const char *passwords[2];
  g_autofree char *result = NULL;

  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  if (text == NULL)
    return NULL;
  passwords[0] = PRIV (self)->password;
  passwords[1] = PRIV (self)->url->password;
  result = g_strdup (text);
  for (guint i = 0; i < G_N_ELEMENTS (passwords); i++)
    {
      g_auto(GStrv) pieces = NULL;

      /* Short passwords would blank out ordinary words; they are not repeated by servers. */
      if (passwords[i] == NULL || strlen (passwords[i]) < 4 || strstr (result, passwords[i]) == NULL)
        continue;
      pieces = g_strsplit (result, passwords[i], -1);
      g_free (result);
      result = g_strjoinv ("…", pieces);
    }
  return g_steal_pointer (&result);
}

char *
assay_source_clean_message (AssaySource *self,
                            const char  *message)
{
  g_autofree char *redacted = assay_source_redact (self, message != NULL ? message : "");
  GString *out = g_string_new (NULL);
  g_auto(GStrv) lines = g_strsplit (redacted, "\n", -1);
  guint kept = 0;

  for (guint i = 0; lines[i] != NULL && kept < 4; i++)
    {
      char *line = g_strstrip (lines[i]);

      /* libpq's severity prefixes say nothing to the reader. */
      for (guint j = 0; j < 3; j++)
        {
          static const char *const prefixes[] = { "FATAL:  ", "ERROR:  ", "FATAL: " };
          char *found = strstr (line, prefixes[j]);

          if (found != NULL)
            memmove (found, found + strlen (prefixes[j]), strlen (found + strlen (prefixes[j])) + 1);
        }
      if (*line == '\0')
        continue;
      if (kept++ > 0)
        g_string_append (out, " ");
      g_string_append (out, line);
    }
  while (out->len > 0 && (out->str[out->len - 1] == '.' || out->str[out->len - 1] == ' '))
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

void
assay_source_set_connect_error (AssaySource       *self,
                                GError           **error,
                                AssaySourceError   code,
                                const char        *reason)
{
  g_autofree char *clean = assay_source_clean_message (self, reason);

  if (code == ASSAY_SOURCE_ERROR_AUTH)
    g_set_error (error, ASSAY_SOURCE_ERROR, code,
                 _("The database %s (%s) refused the login: %s"),
                 PRIV (self)->name, PRIV (self)->display_url, clean);
  else
    g_set_error (error, ASSAY_SOURCE_ERROR, code,
                 _("Cannot connect to the database %s (%s): %s"),
                 PRIV (self)->name, PRIV (self)->display_url, clean);
}

gboolean
assay_source_table_is_picked (const char * const *picked,
                              gboolean           *found,
                              const char         *schema,
                              const char         *name,
                              const char         *qualified)
{
  gboolean any = FALSE;

  if (picked == NULL)
    return TRUE;
  for (guint i = 0; picked[i] != NULL; i++)
    {
      g_autofree char *full = schema != NULL ? g_strdup_printf ("%s.%s", schema, name) : NULL;

      if (g_strcmp0 (picked[i], name) == 0 || g_strcmp0 (picked[i], qualified) == 0 ||
          (full != NULL && g_strcmp0 (picked[i], full) == 0))
        {
          found[i] = TRUE;
          any = TRUE;
        }
    }
  return any;
}

gboolean
assay_source_check_picked (const char * const  *picked,
                           const gboolean      *found,
                           GError             **error)
{
  for (guint i = 0; picked != NULL && picked[i] != NULL; i++)
    if (!found[i])
      {
        g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_NOT_FOUND,
                     _("The database has no table or view “%s” that this login may read"), picked[i]);
        return FALSE;
      }
  return TRUE;
}

void
assay_source_collect_samples (AssayQueryResult *result,
                              guint             column,
                              guint             n,
                              GPtrArray        *samples)
{
  AssayColumnKind kind = assay_query_result_get_column_kind (result, column);

  if (kind == ASSAY_COLUMN_BYTES)
    return;
  for (guint64 row = 0; row < assay_query_result_get_n_rows (result) && samples->len < n; row++)
    {
      g_autofree char *value = assay_query_result_dup_text (result, column, row);
      gboolean seen = FALSE;

      if (value == NULL || *g_strstrip (value) == '\0')
        continue;
      if (strlen (value) > 200)
        {
          const char *end = value + 200;

          while (end > value && ((guchar) *end & 0xc0) == 0x80)
            end--;
          value[end - value] = '\0';
        }
      for (guint i = 0; i < samples->len && !seen; i++)
        seen = g_str_equal (g_ptr_array_index (samples, i), value);
      if (!seen)
        g_ptr_array_add (samples, g_steal_pointer (&value));
    }
}

/* ---- the jobs ---------------------------------------------------------------------------- */

static void
assay_source_interrupt_cb (GCancellable *cancellable,
                           AssaySource  *self)
{
  ASSAY_SOURCE_GET_CLASS (self)->interrupt (self);
}

static void
assay_source_redact_error (AssaySource  *self,
                           GError       *error)
{
  char *redacted;

  if (error == NULL)
    return;
  redacted = assay_source_redact (self, error->message);
  g_free (error->message);
  error->message = redacted;
}

void
assay_source_set_accept_risk (AssaySource *self,
                              gboolean     accept)
{
  AssaySourcePrivate *priv;

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  priv = PRIV (self);
  g_mutex_lock (&priv->risk_lock);
  priv->accept_risk = !!accept;
  g_mutex_unlock (&priv->risk_lock);
}

gboolean
assay_source_get_accept_risk (AssaySource *self)
{
  AssaySourcePrivate *priv;
  gboolean accept;

  g_return_val_if_fail (ASSAY_IS_SOURCE (self), FALSE);
  priv = PRIV (self);
  g_mutex_lock (&priv->risk_lock);
  accept = priv->accept_risk;
  g_mutex_unlock (&priv->risk_lock);
  return accept;
}

void
assay_source_set_accepted_powers (AssaySource *self,
                                  const char  *powers)
{
  AssaySourcePrivate *priv;

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  priv = PRIV (self);
  g_mutex_lock (&priv->risk_lock);
  g_free (priv->accepted_powers);
  priv->accepted_powers = g_strdup (powers);
  g_mutex_unlock (&priv->risk_lock);
}

/* The powers of POWERS that ACCEPTED does not name, joined; NULL when none. */
static char *
assay_source_new_powers (GPtrArray  *powers,
                         const char *accepted)
{
  g_auto(GStrv) known = g_strsplit (accepted != NULL ? accepted : "", ", ", -1);
  g_autoptr(GPtrArray) unknown = g_ptr_array_new ();

  for (guint i = 0; i < powers->len; i++)
    if (!g_strv_contains ((const char * const *) known, g_ptr_array_index (powers, i)))
      g_ptr_array_add (unknown, g_ptr_array_index (powers, i));
  if (unknown->len == 0)
    return NULL;
  g_ptr_array_add (unknown, NULL);
  return g_strjoinv (", ", (char **) unknown->pdata);
}

char *
assay_source_dup_powers (AssaySource *self)
{
  AssaySourcePrivate *priv;
  char *powers;

  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  priv = PRIV (self);
  g_mutex_lock (&priv->risk_lock);
  powers = g_strdup (priv->powers);
  g_mutex_unlock (&priv->risk_lock);
  return powers;
}

/* What the worker found the login may do: kept for the rows that show the connection. */
static void
assay_source_set_powers (AssaySource *self,
                         const char  *powers)
{
  AssaySourcePrivate *priv = PRIV (self);

  g_mutex_lock (&priv->risk_lock);
  g_free (priv->powers);
  priv->powers = g_strdup (powers);
  g_mutex_unlock (&priv->risk_lock);
}

/* Reads the login's powers once per connection (the lock is held); FALSE when it may not be
 * used. */
static gboolean
assay_source_check_powers (AssaySource   *self,
                           GCancellable  *cancellable,
                           GError       **error)
{
  AssaySourceClass *klass = ASSAY_SOURCE_GET_CLASS (self);
  AssaySourcePrivate *priv = PRIV (self);
  g_autoptr(GPtrArray) powers = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *accepted = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *joined = NULL;
  const char *user = priv->url->user != NULL ? priv->url->user : g_get_user_name ();
  gboolean accept;

  if (priv->powers_read || klass->powers == NULL)
    return TRUE;
  g_mutex_lock (&priv->risk_lock);
  accept = priv->accept_risk;
  accepted = g_strdup (priv->accepted_powers);
  g_mutex_unlock (&priv->risk_lock);

  powers = klass->powers (self, cancellable, &local_error);
  if (powers == NULL && accept)
    {
      /* Translators: what a connection whose risk was accepted can do, when the server
       * would not say. */
      assay_source_set_powers (self, _("unknown (the server did not say)"));
      priv->powers_read = TRUE;
      return TRUE;
    }
  if (powers == NULL)
    {
      klass->close (self);
      assay_source_set_powers (self, NULL);
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_PRIVILEGED,
                   _("Cannot tell what the login “%s” may do on this server (%s), so it is not used: "
                     "connect with a login that only reads, or accept the risk for this connection"),
                   user, local_error->message);
      return FALSE;
    }
  unknown = accept ? NULL : assay_source_new_powers (powers, accepted);
  if (unknown != NULL)
    {
      klass->close (self);
      assay_source_set_powers (self, NULL);
      if (accepted != NULL)
        g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_PRIVILEGED,
                     _("The login “%s” can now do more on this server than the analyst accepted (%s), "
                       "so it is not used: accept the risk again, or connect with a login that only reads"),
                     user, unknown);
      else
        g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_PRIVILEGED,
                     _("The login “%s” can do more than read on this server (%s): a read-only "
                       "transaction does not stop signals, locks or the server's files. Connect with a "
                       "login that only reads, or accept the risk for this connection"),
                     user, unknown);
      return FALSE;
    }
  if (powers->len > 0)
    {
      g_ptr_array_add (powers, NULL);
      joined = g_strjoinv (", ", (char **) powers->pdata);
    }
  assay_source_set_powers (self, joined);
  priv->powers_read = TRUE;
  return TRUE;
}

static gpointer
assay_source_run_job (AssaySource   *self,
                      Job           *job,
                      GCancellable  *cancellable,
                      GError       **error)
{
  AssaySourceClass *klass = ASSAY_SOURCE_GET_CLASS (self);
  AssaySourcePrivate *priv = PRIV (self);
  GError *local_error = NULL;
  gpointer result = NULL;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  g_mutex_lock (&priv->lock);
  if (!klass->open (self, cancellable, &local_error) ||
      !assay_source_check_powers (self, cancellable, &local_error))
    goto out;
  switch (job->kind)
    {
    case JOB_OPEN:
      result = GINT_TO_POINTER (TRUE);
      break;
    case JOB_DESCRIBE:
      {
        AssaySchemaOptions options;

        assay_schema_options_init (&options);
        options.tables = (const char * const *) priv->tables;
        options.samples = job->samples;
        result = klass->describe (self, &options, cancellable, &local_error);
      }
      break;
    case JOB_DISTINCT:
      result = klass->distinct (self, job->table, job->column, job->max, cancellable, &local_error);
      break;
    case JOB_QUERY:
      {
        g_autofree char *statement = assay_sql_check_read_only (job->sql, &priv->syntax, &local_error);
        gulong handler = 0;

        if (statement == NULL)
          break;
        if (cancellable != NULL)
          handler = g_cancellable_connect (cancellable, G_CALLBACK (assay_source_interrupt_cb), self, NULL);
        result = klass->query (self, statement, &priv->limits, cancellable, &local_error);
        if (handler != 0)
          g_cancellable_disconnect (cancellable, handler);
        /* A query stopped on the server may still end as rows (MySQL's SLEEP returns 1 when
         * killed): once cancelled, nothing is kept. */
        if (result != NULL && g_cancellable_is_cancelled (cancellable))
          g_clear_pointer (&result, assay_query_result_free);
        if (result != NULL)
          assay_query_result_finish (result);
        if (result == NULL && g_cancellable_is_cancelled (cancellable))
          {
            g_clear_error (&local_error);
            g_set_error_literal (&local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                 "The query was cancelled, and the server was asked to stop it.");
          }
      }
      break;
    default:
      g_assert_not_reached ();
    }

out:
  g_mutex_unlock (&priv->lock);
  assay_source_redact_error (self, local_error);
  if (local_error != NULL)
    g_propagate_error (error, local_error);
  return result;
}

static GDestroyNotify
job_result_free (JobKind kind)
{
  switch (kind)
    {
    case JOB_DESCRIBE: return (GDestroyNotify) assay_source_schema_free;
    case JOB_QUERY: return (GDestroyNotify) assay_query_result_free;
    case JOB_DISTINCT: return (GDestroyNotify) g_ptr_array_unref;
    case JOB_OPEN:
    default:
      return NULL;
    }
}

static void
assay_source_worker (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;
  gpointer result = assay_source_run_job (source_object, job, cancellable, &error);

  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, job_result_free (job->kind));
}

static void
assay_source_start (AssaySource         *self,
                    Job                 *job,
                    gpointer             source_tag,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, job, job_free);
  /* The job reports its own cancellation, after the server has been asked to stop. */
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, assay_source_worker);
}

void
assay_source_open_async (AssaySource         *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  Job *job = g_new0 (Job, 1);

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  job->kind = JOB_OPEN;
  assay_source_start (self, job, assay_source_open_async, cancellable, callback, user_data);
}

gboolean
assay_source_open_finish (AssaySource   *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_pointer (G_TASK (result), error) != NULL;
}

gboolean
assay_source_open_sync (AssaySource   *self,
                        GCancellable  *cancellable,
                        GError       **error)
{
  Job job = { JOB_OPEN };

  g_return_val_if_fail (ASSAY_IS_SOURCE (self), FALSE);
  return assay_source_run_job (self, &job, cancellable, error) != NULL;
}

void
assay_source_describe_async (AssaySource         *self,
                             guint                samples,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  Job *job = g_new0 (Job, 1);

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  job->kind = JOB_DESCRIBE;
  job->samples = samples;
  assay_source_start (self, job, assay_source_describe_async, cancellable, callback, user_data);
}

AssaySourceSchema *
assay_source_describe_finish (AssaySource   *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

AssaySourceSchema *
assay_source_describe_sync (AssaySource   *self,
                            guint          samples,
                            GCancellable  *cancellable,
                            GError       **error)
{
  Job job = { JOB_DESCRIBE };

  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  job.samples = samples;
  return assay_source_run_job (self, &job, cancellable, error);
}

void
assay_source_query_async (AssaySource         *self,
                          const char          *sql,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  Job *job = g_new0 (Job, 1);

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  g_return_if_fail (sql != NULL);
  job->kind = JOB_QUERY;
  job->sql = g_strdup (sql);
  assay_source_start (self, job, assay_source_query_async, cancellable, callback, user_data);
}

AssayQueryResult *
assay_source_query_finish (AssaySource   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

AssayQueryResult *
assay_source_query_sync (AssaySource   *self,
                         const char    *sql,
                         GCancellable  *cancellable,
                         GError       **error)
{
  Job job = { JOB_QUERY };

  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  job.sql = (char *) sql;
  return assay_source_run_job (self, &job, cancellable, error);
}

GPtrArray *
assay_source_read_distinct_sync (AssaySource   *self,
                                 const char    *table,
                                 const char    *column,
                                 guint          max,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  Job job = { JOB_DISTINCT };

  g_return_val_if_fail (ASSAY_IS_SOURCE (self), NULL);
  job.table = (char *) table;
  job.column = (char *) column;
  job.max = max;
  return assay_source_run_job (self, &job, cancellable, error);
}

void
assay_source_close (AssaySource *self)
{
  AssaySourcePrivate *priv;

  g_return_if_fail (ASSAY_IS_SOURCE (self));
  priv = PRIV (self);
  g_mutex_lock (&priv->lock);
  ASSAY_SOURCE_GET_CLASS (self)->close (self);
  /* Another connection may be another login's, or the same one with other grants. */
  priv->powers_read = FALSE;
  g_mutex_unlock (&priv->lock);
}
