/* SPDX-License-Identifier: GPL-3.0-or-later */
/* PostgreSQL through libpq.
 *
 * A query runs as:
 *
 *   BEGIN READ ONLY
 *   SET LOCAL statement_timeout, lock_timeout, TimeZone 'UTC', DateStyle 'ISO', … (so the text
 *     of every value reads one way, whatever the server's defaults)
 *   PREPARE (unnamed) <the statement>, described: its columns and types, nothing run; a
 *     prepared statement is exactly one statement
 *   COPY (<the statement>) TO STDOUT                          (the rows as text lines, read
 *     and parsed as they stream, against the caps; the extended protocol again)
 *   ROLLBACK
 *
 * COPY's lines cost a fraction of a result set's per-value allocations: 1,000,000 rows of six
 * columns arrive in about the time the server takes to write them.
 *
 * Stop sends PQcancel from a thread of its own (a cancel is a connection of its own, which
 * may take a while), again every 250 ms while the query still runs. */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <libpq-fe.h>
#include <string.h>

#include "assay-source-private.h"

#define COPY_PREFIX "COPY ("
#define DESCRIBE_TIMEOUT_MS 30000
#define SAMPLE_ROWS 100

/* A connection's cancel key, shared with the threads that send cancels. */
typedef struct
{
  gatomicrefcount  ref;
  PGcancel        *cancel;
  gint             running;      /* atomic: a query of ours is on the server */
  gint             sending;      /* atomic: a thread sends cancels */
} CancelHandle;

struct _AssayPgSource
{
  AssaySource   parent_instance;

  PGconn       *conn;
  GMutex        handle_lock;     /* guards handle against interrupt () */
  CancelHandle *handle;
};

G_DECLARE_FINAL_TYPE (AssayPgSource, assay_pg_source, ASSAY, PG_SOURCE, AssaySource)
G_DEFINE_FINAL_TYPE (AssayPgSource, assay_pg_source, ASSAY_TYPE_SOURCE)

static CancelHandle *
cancel_handle_ref (CancelHandle *handle)
{
  g_atomic_ref_count_inc (&handle->ref);
  return handle;
}

static void
cancel_handle_unref (CancelHandle *handle)
{
  if (g_atomic_ref_count_dec (&handle->ref))
    {
      PQfreeCancel (handle->cancel);
      g_free (handle);
    }
}

static gpointer
cancel_thread (gpointer data)
{
  CancelHandle *handle = data;

  for (guint attempt = 0; attempt < 40 && g_atomic_int_get (&handle->running); attempt++)
    {
      char reason[256];

      if (!PQcancel (handle->cancel, reason, sizeof reason))
        g_debug ("the cancel was not sent: %s", reason);
      g_usleep (250 * 1000);
    }
  g_atomic_int_set (&handle->sending, 0);
  cancel_handle_unref (handle);
  return NULL;
}

static void
assay_pg_source_interrupt (AssaySource *source)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (source);
  CancelHandle *handle = NULL;

  g_mutex_lock (&self->handle_lock);
  if (self->handle != NULL && g_atomic_int_get (&self->handle->running) &&
      g_atomic_int_compare_and_exchange (&self->handle->sending, 0, 1))
    handle = cancel_handle_ref (self->handle);
  g_mutex_unlock (&self->handle_lock);
  if (handle != NULL)
    g_thread_unref (g_thread_new ("assay-pg-cancel", cancel_thread, handle));
}

static void
assay_pg_source_close (AssaySource *source)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (source);

  g_mutex_lock (&self->handle_lock);
  g_clear_pointer (&self->handle, cancel_handle_unref);
  g_mutex_unlock (&self->handle_lock);
  g_clear_pointer (&self->conn, PQfinish);
}

static void
ignore_notice (void       *arg,
               const char *message)
{
}

/* Parameters libpq may be given from the URL: connection, TLS and timeouts. Anything else
 * (options=-c …, service files) is refused, so the URL cannot change the session's rules. */
static const char *const allowed_params[] = {
  "host", "hostaddr", "port", "dbname", "user", "passfile", "connect_timeout", "client_encoding",
  "application_name", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
  "tcp_user_timeout", "sslmode", "requiressl", "sslcompression", "sslcert", "sslkey", "sslrootcert",
  "sslcrl", "sslcrldir", "sslsni", "ssl_min_protocol_version", "ssl_max_protocol_version",
  "gssencmode", "krbsrvname", "gsslib", "channel_binding", "target_session_attrs", "load_balance_hosts",
  NULL
};

static gboolean
assay_pg_source_open (AssaySource   *source,
                      GCancellable  *cancellable,
                      GError       **error)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (source);
  const AssaySourceUrl *url = assay_source_get_url (source);
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  g_autoptr(GPtrArray) values = g_ptr_array_new ();
  const char *password = assay_source_get_password (source);
  const char *version;
  PGconn *conn;

  if (self->conn != NULL && PQstatus (self->conn) == CONNECTION_OK)
    return TRUE;
  assay_pg_source_close (source);

  for (guint i = 0; i < url->keys->len; i++)
    {
      const char *key = g_ptr_array_index (url->keys, i);

      if (!g_strv_contains (allowed_params, key))
        {
          g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                       _("The connection URL's parameter “%s” is not one Assay passes to PostgreSQL"), key);
          return FALSE;
        }
    }
  /* The URL's own parameters first, so that host=/socket/dir wins over an empty host. */
  if (url->host != NULL)
    {
      g_ptr_array_add (keys, "host");
      g_ptr_array_add (values, url->host);
    }
  if (url->port != NULL)
    {
      g_ptr_array_add (keys, "port");
      g_ptr_array_add (values, url->port);
    }
  if (url->database != NULL)
    {
      g_ptr_array_add (keys, "dbname");
      g_ptr_array_add (values, url->database);
    }
  if (url->user != NULL)
    {
      g_ptr_array_add (keys, "user");
      g_ptr_array_add (values, url->user);
    }
  for (guint i = 0; i < url->keys->len; i++)
    {
      g_ptr_array_add (keys, g_ptr_array_index (url->keys, i));
      g_ptr_array_add (values, g_ptr_array_index (url->values, i));
    }
  if (password != NULL)
    {
      g_ptr_array_add (keys, "password");
      g_ptr_array_add (values, (gpointer) password);
    }
  if (assay_source_url_get_param (url, "connect_timeout") == NULL)
    {
      g_ptr_array_add (keys, "connect_timeout");
      g_ptr_array_add (values, "10");
    }
  g_ptr_array_add (keys, "fallback_application_name");
  g_ptr_array_add (values, "assay");
  g_ptr_array_add (keys, "client_encoding");
  g_ptr_array_add (values, "UTF8");
  g_ptr_array_add (keys, NULL);
  g_ptr_array_add (values, NULL);

  conn = PQconnectdbParams ((const char * const *) keys->pdata, (const char * const *) values->pdata, 0);
  if (conn == NULL)
    {
      assay_source_set_connect_error (source, error, ASSAY_SOURCE_ERROR_CONNECT, "out of memory");
      return FALSE;
    }
  if (PQstatus (conn) != CONNECTION_OK)
    {
      const char *message = PQerrorMessage (conn);
      gboolean auth = strstr (message, "authentication failed") != NULL ||
                      strstr (message, "no password supplied") != NULL ||
                      strstr (message, "password is required") != NULL ||
                      (strstr (message, "role \"") != NULL && strstr (message, "does not exist") != NULL) ||
                      strstr (message, "permission denied for database") != NULL;

      assay_source_set_connect_error (source, error, auth ? ASSAY_SOURCE_ERROR_AUTH : ASSAY_SOURCE_ERROR_CONNECT,
                                      message);
      PQfinish (conn);
      return FALSE;
    }
  PQsetNoticeProcessor (conn, ignore_notice, NULL);
  self->conn = conn;

  g_mutex_lock (&self->handle_lock);
  self->handle = g_new0 (CancelHandle, 1);
  g_atomic_ref_count_init (&self->handle->ref);
  self->handle->cancel = PQgetCancel (conn);
  g_mutex_unlock (&self->handle_lock);

  version = PQparameterStatus (conn, "server_version");
  if (version != NULL)
    {
      g_autofree char *first = g_strndup (version, strcspn (version, " "));
      g_autofree char *server = g_strdup_printf ("PostgreSQL %s", first);

      assay_source_set_server (source, server);
    }
  return TRUE;
}

/* ---- running statements ------------------------------------------------------------------ */

typedef enum
{
  PG_OK,
  PG_FAILED,
} PgStatus;

/* The error of RES (or of the connection) for the model: the server's words, its SQLSTATE,
 * the detail and hint, and where in the statement. */
static void
set_query_error (AssayPgSource  *self,
                 PGresult       *res,
                 gsize           position_offset,
                 guint           timeout_ms,
                 GCancellable   *cancellable,
                 GError        **error)
{
  AssaySource *source = ASSAY_SOURCE (self);
  const char *state = res != NULL ? PQresultErrorField (res, PG_DIAG_SQLSTATE) : NULL;
  const char *primary = res != NULL ? PQresultErrorField (res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
  const char *detail = res != NULL ? PQresultErrorField (res, PG_DIAG_MESSAGE_DETAIL) : NULL;
  const char *hint = res != NULL ? PQresultErrorField (res, PG_DIAG_MESSAGE_HINT) : NULL;
  const char *position = res != NULL ? PQresultErrorField (res, PG_DIAG_STATEMENT_POSITION) : NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *clean = NULL;
  AssaySourceError code = ASSAY_SOURCE_ERROR_SERVER;

  if (g_cancellable_is_cancelled (cancellable))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
      return;
    }
  if (g_strcmp0 (state, "57014") == 0)
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TIMEOUT,
                   "The query ran longer than the statement timeout (%u s) and the server stopped it. Make it "
                   "cheaper (filter early, aggregate in SQL, use indexed columns), or ask the analyst for a "
                   "longer timeout.", timeout_ms / 1000);
      return;
    }
  if (primary == NULL)
    primary = PQerrorMessage (self->conn);
  clean = assay_source_clean_message (source, primary);
  g_string_append_printf (text, "PostgreSQL refused the query%s%s%s: %s", state != NULL ? " (SQLSTATE " : "",
                          state != NULL ? state : "", state != NULL ? ")" : "", clean);
  if (position != NULL)
    {
      gint64 at = g_ascii_strtoll (position, NULL, 10) - (gint64) position_offset;

      if (at > 0)
        g_string_append_printf (text, " (at character %" G_GINT64_FORMAT " of the SQL)", at);
    }
  if (detail != NULL)
    {
      g_autofree char *line = assay_source_clean_message (source, detail);

      g_string_append_printf (text, ". Detail: %s", line);
    }
  if (hint != NULL)
    {
      g_autofree char *line = assay_source_clean_message (source, hint);

      g_string_append_printf (text, ". Hint: %s", line);
    }
  /* Data exceptions and constraint violations quote the values they met. */
  if (state != NULL && (g_str_has_prefix (state, "22") || g_str_has_prefix (state, "23")))
    code = ASSAY_SOURCE_ERROR_DATA;
  g_set_error_literal (error, ASSAY_SOURCE_ERROR, code, text->str);
}

static gboolean
exec_command (AssayPgSource  *self,
              const char     *sql,
              GError        **error)
{
  PGresult *res = PQexec (self->conn, sql);
  gboolean ok = PQresultStatus (res) == PGRES_COMMAND_OK || PQresultStatus (res) == PGRES_TUPLES_OK;

  if (!ok)
    set_query_error (self, res, 0, 0, NULL, error);
  PQclear (res);
  return ok;
}

/* BEGIN READ ONLY and the session's settings for one transaction. */
static gboolean
begin_read_only (AssayPgSource  *self,
                 guint           timeout_ms,
                 GError        **error)
{
  g_autofree char *setup =
    g_strdup_printf ("BEGIN READ ONLY;"
                     "SET LOCAL statement_timeout = %u;"
                     "SET LOCAL lock_timeout = %u;"
                     "SET LOCAL idle_in_transaction_session_timeout = %u;"
                     "SET LOCAL TimeZone = 'UTC';"
                     "SET LOCAL DateStyle = 'ISO, YMD';"
                     "SET LOCAL IntervalStyle = 'postgres';"
                     "SET LOCAL extra_float_digits = 3;"
                     "SET LOCAL bytea_output = 'hex';"
                     "SET LOCAL standard_conforming_strings = on",
                     timeout_ms, MIN (timeout_ms, 10000u), MAX (timeout_ms, 60000u) + 60000);

  return exec_command (self, setup, error);
}

static void
end_transaction (AssayPgSource *self)
{
  PGresult *res;

  if (self->conn == NULL || PQstatus (self->conn) != CONNECTION_OK)
    {
      assay_pg_source_close (ASSAY_SOURCE (self));
      return;
    }
  res = PQexec (self->conn, "ROLLBACK");
  if (PQresultStatus (res) != PGRES_COMMAND_OK)
    assay_pg_source_close (ASSAY_SOURCE (self));
  PQclear (res);
}

static AssayColumnKind
kind_for_type (Oid oid)
{
  switch (oid)
    {
    case 16: return ASSAY_COLUMN_BOOL;
    case 20: case 21: case 23: case 26: return ASSAY_COLUMN_INT64;
    case 700: case 701: return ASSAY_COLUMN_FLOAT64;
    case 1700: return ASSAY_COLUMN_DECIMAL;
    case 1082: return ASSAY_COLUMN_DATE;
    case 1114: return ASSAY_COLUMN_TIMESTAMP;
    case 1184: return ASSAY_COLUMN_TIMESTAMPTZ;
    case 17: return ASSAY_COLUMN_BYTES;
    default: return ASSAY_COLUMN_TEXT;
    }
}

/* The columns of RES, with the server's names of their types (domains read as their base
 * type, so a domain over integer is still an integer). */
static gboolean
add_columns (AssayPgSource     *self,
             PGresult          *res,
             AssayQueryResult  *result,
             GError           **error)
{
  int n = PQnfields (res);
  g_autoptr(GString) oids = g_string_new ("{");
  g_autoptr(GString) mods = g_string_new ("{");
  const char *params[2];
  PGresult *types;

  for (int i = 0; i < n; i++)
    {
      g_string_append_printf (oids, "%s%u", i > 0 ? "," : "", PQftype (res, i));
      g_string_append_printf (mods, "%s%d", i > 0 ? "," : "", PQfmod (res, i));
    }
  g_string_append_c (oids, '}');
  g_string_append_c (mods, '}');
  params[0] = oids->str;
  params[1] = mods->str;
  types = PQexecParams (self->conn,
                        "SELECT format_type(u.t, u.m), "
                        "       CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE u.t END "
                        "FROM unnest($1::oid[], $2::int[]) WITH ORDINALITY AS u(t, m, n) "
                        "LEFT JOIN pg_type ty ON ty.oid = u.t ORDER BY u.n",
                        2, NULL, params, NULL, NULL, 0);
  if (PQresultStatus (types) != PGRES_TUPLES_OK || PQntuples (types) != n)
    {
      set_query_error (self, types, 0, 0, NULL, error);
      PQclear (types);
      return FALSE;
    }
  for (int i = 0; i < n; i++)
    {
      Oid base = (Oid) g_ascii_strtoull (PQgetvalue (types, i, 1), NULL, 10);

      assay_query_result_add_column (result, PQfname (res, i), kind_for_type (base), PQgetvalue (types, i, 0));
    }
  PQclear (types);
  return TRUE;
}

static void
append_rows (PGresult         *res,
             AssayQueryResult *result,
             int               row,
             gboolean         *ok,
             const AssayQueryLimits *limits,
             GError          **error)
{
  int n_fields = PQnfields (res);

  for (int j = 0; j < n_fields; j++)
    {
      if (PQgetisnull (res, row, j))
        assay_query_result_append_null (result, j);
      else
        assay_query_result_append_text (result, j, PQgetvalue (res, row, j), PQgetlength (res, row, j));
    }
  *ok = assay_query_result_end_row (result, limits, error);
}

/* One line of COPY's text format: fields between tabs, \N for NULL, backslash escapes. */
static void
append_copy_line (AssayQueryResult *result,
                  const char       *line,
                  gsize             length,
                  GString          *scratch)
{
  guint n_columns = assay_query_result_get_n_columns (result);
  const char *p = line, *end = line + length;
  guint column = 0;

  if (length > 0 && end[-1] == '\n')
    end--;
  while (column < n_columns)
    {
      const char *field_end = memchr (p, '\t', end - p);
      const char *backslash;

      if (field_end == NULL)
        field_end = end;
      backslash = memchr (p, '\\', field_end - p);
      if (field_end - p == 2 && p[0] == '\\' && p[1] == 'N')
        assay_query_result_append_null (result, column);
      else if (backslash == NULL)
        assay_query_result_append_text (result, column, p, field_end - p);
      else
        {
          g_string_truncate (scratch, 0);
          for (const char *q = p; q < field_end; q++)
            {
              if (*q != '\\' || q + 1 >= field_end)
                {
                  g_string_append_c (scratch, *q);
                  continue;
                }
              q++;
              switch (*q)
                {
                case 'b': g_string_append_c (scratch, '\b'); break;
                case 'f': g_string_append_c (scratch, '\f'); break;
                case 'n': g_string_append_c (scratch, '\n'); break;
                case 'r': g_string_append_c (scratch, '\r'); break;
                case 't': g_string_append_c (scratch, '\t'); break;
                case 'v': g_string_append_c (scratch, '\v'); break;
                case 'x':
                  {
                    int value = 0, digits = 0;

                    while (digits < 2 && q + 1 < field_end && g_ascii_isxdigit (q[1]))
                      value = value * 16 + g_ascii_xdigit_value (*++q), digits++;
                    if (digits == 0)
                      g_string_append_c (scratch, 'x');
                    else
                      g_string_append_c (scratch, (char) value);
                  }
                  break;
                default:
                  if (*q >= '0' && *q <= '7')
                    {
                      int value = *q - '0', digits = 1;

                      while (digits < 3 && q + 1 < field_end && q[1] >= '0' && q[1] <= '7')
                        value = value * 8 + (*++q - '0'), digits++;
                      g_string_append_c (scratch, (char) value);
                    }
                  else
                    g_string_append_c (scratch, *q);
                  break;
                }
            }
          assay_query_result_append_text (result, column, scratch->str, scratch->len);
        }
      column++;
      if (field_end >= end)
        break;
      p = field_end + 1;
    }
}

/* The rows stop coming for Assay's reasons (a cap, the deadline): the server is asked to
 * stop, and the connection, in the middle of a COPY, is not used again. */
static void
abandon_copy (AssayPgSource *self)
{
  char reason[256];

  if (self->handle != NULL)
    g_atomic_int_set (&self->handle->running, 0);
  if (self->handle != NULL && !PQcancel (self->handle->cancel, reason, sizeof reason))
    g_debug ("the cancel was not sent: %s", reason);
  assay_pg_source_close (ASSAY_SOURCE (self));
}

static AssayQueryResult *
assay_pg_source_query (AssaySource             *source,
                       const char              *sql,
                       const AssayQueryLimits  *limits,
                       GCancellable            *cancellable,
                       GError                 **error)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (source);
  g_autoptr(AssayQueryResult) result = assay_query_result_new ();
  g_autoptr(GString) scratch = g_string_new (NULL);
  g_autofree char *copy = g_strconcat (COPY_PREFIX, sql, "\n) TO STDOUT", NULL);
  gint64 deadline = limits->timeout_ms > 0 ? g_get_monotonic_time () + (gint64) limits->timeout_ms * 1000 : 0;
  PGresult *res;
  gboolean ok = TRUE;
  guint64 n = 0;
  char *line = NULL;
  int length;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  g_atomic_int_set (&self->handle->running, 1);
  if (!begin_read_only (self, limits->timeout_ms, error))
    goto failed;

  /* Parsed, never run: the columns and their types. A prepared statement is one statement
   * or a syntax error. */
  res = PQprepare (self->conn, "", sql, 0, NULL);
  if (PQresultStatus (res) != PGRES_COMMAND_OK)
    {
      set_query_error (self, res, 0, limits->timeout_ms, cancellable, error);
      PQclear (res);
      goto failed;
    }
  PQclear (res);
  res = PQdescribePrepared (self->conn, "");
  if (PQresultStatus (res) != PGRES_COMMAND_OK || !add_columns (self, res, result, error))
    {
      if (error != NULL && *error == NULL)
        set_query_error (self, res, 0, limits->timeout_ms, cancellable, error);
      PQclear (res);
      goto failed;
    }
  PQclear (res);

  /* The rows as COPY's text, a line each: far fewer allocations than a result set. */
  res = PQexecParams (self->conn, copy, 0, NULL, NULL, NULL, NULL, 0);
  if (PQresultStatus (res) != PGRES_COPY_OUT)
    {
      set_query_error (self, res, g_utf8_strlen (COPY_PREFIX, -1), limits->timeout_ms, cancellable, error);
      PQclear (res);
      goto failed;
    }
  PQclear (res);
  while ((length = PQgetCopyData (self->conn, &line, 0)) > 0)
    {
      append_copy_line (result, line, (gsize) length, scratch);
      PQfreemem (line);
      if (!assay_query_result_end_row (result, limits, error))
        {
          abandon_copy (self);
          ok = FALSE;
          break;
        }
      if (++n % 16384 == 0 && deadline > 0 && g_get_monotonic_time () > deadline &&
          !g_cancellable_is_cancelled (cancellable))
        {
          g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TIMEOUT,
                       "The query ran longer than the statement timeout (%u s) and was stopped. Make it cheaper "
                       "(filter early, aggregate in SQL), or ask the analyst for a longer timeout.",
                       limits->timeout_ms / 1000);
          abandon_copy (self);
          ok = FALSE;
          break;
        }
    }
  if (ok)
    {
      /* The end of the COPY, or the error that ended it (a timeout, Stop, the server). */
      res = PQgetResult (self->conn);
      if (PQresultStatus (res) != PGRES_COMMAND_OK)
        {
          set_query_error (self, res, g_utf8_strlen (COPY_PREFIX, -1), limits->timeout_ms, cancellable, error);
          ok = FALSE;
        }
      PQclear (res);
      while ((res = PQgetResult (self->conn)) != NULL)
        PQclear (res);
    }
  if (self->conn == NULL)
    return NULL;
  g_atomic_int_set (&self->handle->running, 0);
  end_transaction (self);
  return ok ? g_steal_pointer (&result) : NULL;

failed:
  if (self->handle != NULL)
    g_atomic_int_set (&self->handle->running, 0);
  end_transaction (self);
  return NULL;
}

/* ---- the schema -------------------------------------------------------------------------- */

static PGresult *
run_catalog (AssayPgSource  *self,
             const char     *sql,
             int             n_params,
             const char    **params,
             GError        **error)
{
  PGresult *res = PQexecParams (self->conn, sql, n_params, NULL, params, NULL, NULL, 0);

  if (PQresultStatus (res) != PGRES_TUPLES_OK)
    {
      set_query_error (self, res, 0, DESCRIBE_TIMEOUT_MS, NULL, error);
      PQclear (res);
      return NULL;
    }
  return res;
}

static AssaySourceTable *
find_by_oid (GHashTable *by_oid,
             const char *oid)
{
  return g_hash_table_lookup (by_oid, oid);
}

static void
read_samples (AssayPgSource    *self,
              AssaySourceTable *table,
              guint             samples)
{
  g_autofree char *schema = assay_sql_quote_identifier (ASSAY_SQL_POSTGRESQL, table->schema);
  g_autofree char *name = assay_sql_quote_identifier (ASSAY_SQL_POSTGRESQL, table->name);
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM %s.%s LIMIT %d", schema, name, SAMPLE_ROWS);
  g_autoptr(AssayQueryResult) result = assay_query_result_new ();
  PGresult *res;

  /* A view that fails (or takes too long) keeps its columns and loses its samples. */
  PQclear (PQexec (self->conn, "SAVEPOINT assay_sample; SET LOCAL statement_timeout = 5000"));
  res = PQexec (self->conn, sql);
  if (PQresultStatus (res) != PGRES_TUPLES_OK)
    {
      PQclear (res);
      PQclear (PQexec (self->conn, "ROLLBACK TO SAVEPOINT assay_sample"));
      return;
    }
  for (int j = 0; j < PQnfields (res); j++)
    assay_query_result_add_column (result, PQfname (res, j), kind_for_type (PQftype (res, j)) == ASSAY_COLUMN_BYTES
                                                             ? ASSAY_COLUMN_BYTES : ASSAY_COLUMN_TEXT, NULL);
  for (int i = 0; i < PQntuples (res); i++)
    {
      gboolean ok;

      append_rows (res, result, i, &ok, NULL, NULL);
    }
  for (int j = 0; j < PQnfields (res); j++)
    {
      AssaySourceColumn *column = assay_source_table_find_column (table, PQfname (res, j));

      if (column != NULL)
        assay_source_collect_samples (result, j, samples, column->samples);
    }
  PQclear (res);
  PQclear (PQexec (self->conn, "RELEASE SAVEPOINT assay_sample"));
}

static AssaySourceSchema *
assay_pg_source_describe (AssaySource               *source,
                          const AssaySchemaOptions  *options,
                          GCancellable              *cancellable,
                          GError                   **error)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (source);
  g_autoptr(AssaySourceSchema) schema = assay_source_schema_new ();
  g_autoptr(GHashTable) by_oid = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GString) oids = g_string_new ("{");
  g_autofree gboolean *found = NULL;
  const char *params[1];
  PGresult *res = NULL;
  gboolean ok = FALSE;

  if (!begin_read_only (self, DESCRIBE_TIMEOUT_MS, error))
    {
      end_transaction (self);
      return NULL;
    }
  found = g_new0 (gboolean, options->tables != NULL ? g_strv_length ((char **) options->tables) + 1 : 1);
  schema->server = g_strdup (assay_source_get_server (source));
  schema->database = g_strdup (PQdb (self->conn));

  res = run_catalog (self,
                     "SELECT c.oid, n.nspname, c.relname, c.relkind IN ('v', 'm'), c.reltuples::float8, "
                     "       obj_description(c.oid, 'pg_class') "
                     "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition "
                     "  AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
                     "  AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' "
                     "  AND has_table_privilege(c.oid, 'SELECT') "
                     "ORDER BY n.nspname <> 'public', n.nspname, c.relname",
                     0, NULL, error);
  if (res == NULL)
    goto out;
  for (int i = 0; i < PQntuples (res); i++)
    {
      const char *nspname = PQgetvalue (res, i, 1);
      const char *relname = PQgetvalue (res, i, 2);
      g_autofree char *qualified = g_str_equal (nspname, "public") ? g_strdup (relname)
                                                                    : g_strdup_printf ("%s.%s", nspname, relname);
      AssaySourceTable *table;
      double tuples;

      if (!assay_source_table_is_picked (options->tables, found, nspname, relname, qualified))
        continue;
      if (schema->tables->len >= options->max_tables)
        {
          schema->n_more++;
          continue;
        }
      table = assay_source_table_new (nspname, relname, qualified);
      table->view = PQgetvalue (res, i, 3)[0] == 't';
      tuples = g_ascii_strtod (PQgetvalue (res, i, 4), NULL);
      table->rows = !table->view && tuples >= 0 ? (gint64) tuples : -1;
      if (!PQgetisnull (res, i, 5))
        table->comment = g_strdup (PQgetvalue (res, i, 5));
      g_ptr_array_add (schema->tables, table);
      g_hash_table_insert (by_oid, g_strdup (PQgetvalue (res, i, 0)), table);
      g_string_append_printf (oids, "%s%s", schema->tables->len > 1 ? "," : "", PQgetvalue (res, i, 0));
    }
  g_clear_pointer (&res, PQclear);
  if (!assay_source_check_picked (options->tables, found, error))
    goto out;
  g_string_append_c (oids, '}');
  params[0] = oids->str;

  res = run_catalog (self,
                     "SELECT a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
                     "       col_description(a.attrelid, a.attnum), "
                     "       EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary "
                     "               AND a.attnum = ANY (i.indkey)) "
                     "FROM pg_attribute a WHERE a.attrelid = ANY ($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped "
                     "ORDER BY a.attrelid, a.attnum",
                     1, params, error);
  if (res == NULL)
    goto out;
  for (int i = 0; i < PQntuples (res); i++)
    {
      AssaySourceTable *table = find_by_oid (by_oid, PQgetvalue (res, i, 0));
      AssaySourceColumn *column;

      if (table == NULL)
        continue;
      column = assay_source_column_new (PQgetvalue (res, i, 1), PQgetvalue (res, i, 2));
      column->not_null = PQgetvalue (res, i, 3)[0] == 't';
      if (!PQgetisnull (res, i, 4))
        column->comment = g_strdup (PQgetvalue (res, i, 4));
      column->primary_key = PQgetvalue (res, i, 5)[0] == 't';
      g_ptr_array_add (table->columns, column);
    }
  g_clear_pointer (&res, PQclear);

  /* One row per column of each foreign key, in the key's order. */
  res = run_catalog (self,
                     "SELECT c.oid, c.conrelid, a.attname, af.attname, fn.nspname, fc.relname "
                     "FROM pg_constraint c "
                     "CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(col, refcol, n) "
                     "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col "
                     "JOIN pg_attribute af ON af.attrelid = c.confrelid AND af.attnum = k.refcol "
                     "JOIN pg_class fc ON fc.oid = c.confrelid JOIN pg_namespace fn ON fn.oid = fc.relnamespace "
                     "WHERE c.contype = 'f' AND c.conrelid = ANY ($1::oid[]) "
                     "ORDER BY c.conrelid, c.conname, k.n",
                     1, params, error);
  if (res == NULL)
    goto out;
  {
    const char *last = NULL;
    AssaySourceForeignKey *key = NULL;

    for (int i = 0; i < PQntuples (res); i++)
      {
        AssaySourceTable *table = find_by_oid (by_oid, PQgetvalue (res, i, 1));

        if (table == NULL)
          continue;
        if (last == NULL || !g_str_equal (last, PQgetvalue (res, i, 0)))
          {
            const char *nspname = PQgetvalue (res, i, 4);
            g_autofree char *target = g_str_equal (nspname, "public")
                                        ? g_strdup (PQgetvalue (res, i, 5))
                                        : g_strdup_printf ("%s.%s", nspname, PQgetvalue (res, i, 5));

            key = assay_source_foreign_key_new (target);
            g_ptr_array_add (table->foreign_keys, key);
            last = PQgetvalue (res, i, 0);
          }
        g_ptr_array_add (key->columns, g_strdup (PQgetvalue (res, i, 2)));
        g_ptr_array_add (key->ref_columns, g_strdup (PQgetvalue (res, i, 3)));
      }
  }
  g_clear_pointer (&res, PQclear);

  if (options->samples > 0)
    for (guint i = 0; i < schema->tables->len; i++)
      {
        if (g_cancellable_set_error_if_cancelled (cancellable, error))
          goto out;
        read_samples (self, g_ptr_array_index (schema->tables, i), options->samples);
      }
  ok = TRUE;

out:
  g_clear_pointer (&res, PQclear);
  end_transaction (self);
  return ok ? g_steal_pointer (&schema) : NULL;
}

static GPtrArray *
assay_pg_source_distinct (AssaySource   *source,
                          const char    *table,
                          const char    *column,
                          guint          max,
                          GCancellable  *cancellable,
                          GError       **error)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (source);
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) parts = g_strsplit (table, ".", 2);
  g_autofree char *qualified = NULL;
  g_autofree char *quoted_column = assay_sql_quote_identifier (ASSAY_SQL_POSTGRESQL, column);
  g_autofree char *sql = NULL;
  PGresult *res;

  if (parts[1] != NULL)
    {
      g_autofree char *a = assay_sql_quote_identifier (ASSAY_SQL_POSTGRESQL, parts[0]);
      g_autofree char *b = assay_sql_quote_identifier (ASSAY_SQL_POSTGRESQL, parts[1]);

      qualified = g_strdup_printf ("%s.%s", a, b);
    }
  else
    qualified = assay_sql_quote_identifier (ASSAY_SQL_POSTGRESQL, table);
  sql = g_strdup_printf ("SELECT DISTINCT %s::text FROM %s WHERE %s IS NOT NULL LIMIT %u",
                         quoted_column, qualified, quoted_column, max);
  if (!begin_read_only (self, DESCRIBE_TIMEOUT_MS, error))
    {
      end_transaction (self);
      return NULL;
    }
  res = run_catalog (self, sql, 0, NULL, error);
  if (res != NULL)
    for (int i = 0; i < PQntuples (res); i++)
      g_ptr_array_add (values, g_strdup (PQgetvalue (res, i, 0)));
  g_clear_pointer (&res, PQclear);
  end_transaction (self);
  return error != NULL && *error != NULL ? NULL : g_steal_pointer (&values);
}

/* Superuser (also as a member of a superuser role), and the predefined roles that reach the
 * server's files, programs and other sessions, also through roles in between. */
static const char powers_sql[] =
  "SELECT 'superuser' FROM pg_catalog.pg_roles WHERE rolname = current_user AND rolsuper "
  "UNION ALL "
  "SELECT 'member of ' || quote_ident (g.rolname) FROM pg_catalog.pg_roles g "
  "WHERE g.rolname <> current_user AND (g.rolsuper OR g.rolname IN ('pg_read_server_files', "
  "'pg_write_server_files', 'pg_execute_server_program', 'pg_signal_backend')) "
  "AND pg_catalog.pg_has_role (current_user, g.oid, 'MEMBER') "
  "AND NOT EXISTS (SELECT FROM pg_catalog.pg_roles s WHERE s.rolname = current_user AND s.rolsuper) "
  "ORDER BY 1";

static GPtrArray *
assay_pg_source_powers (AssaySource   *source,
                        GCancellable  *cancellable,
                        GError       **error)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (source);
  PGresult *res = PQexec (self->conn, powers_sql);
  GPtrArray *powers;

  if (PQresultStatus (res) != PGRES_TUPLES_OK)
    {
      set_query_error (self, res, 0, 0, NULL, error);
      PQclear (res);
      return NULL;
    }
  powers = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < PQntuples (res) && i < 32; i++)
    g_ptr_array_add (powers, g_strndup (PQgetvalue (res, i, 0), 200));
  PQclear (res);
  return powers;
}

static void
assay_pg_source_finalize (GObject *object)
{
  AssayPgSource *self = ASSAY_PG_SOURCE (object);

  assay_pg_source_close (ASSAY_SOURCE (self));
  g_mutex_clear (&self->handle_lock);
  G_OBJECT_CLASS (assay_pg_source_parent_class)->finalize (object);
}

static void
assay_pg_source_class_init (AssayPgSourceClass *klass)
{
  AssaySourceClass *source_class = ASSAY_SOURCE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = assay_pg_source_finalize;
  source_class->open = assay_pg_source_open;
  source_class->close = assay_pg_source_close;
  source_class->describe = assay_pg_source_describe;
  source_class->query = assay_pg_source_query;
  source_class->distinct = assay_pg_source_distinct;
  source_class->interrupt = assay_pg_source_interrupt;
  source_class->powers = assay_pg_source_powers;
}

static void
assay_pg_source_init (AssayPgSource *self)
{
  g_mutex_init (&self->handle_lock);
}

AssaySource *
assay_pg_source_new (void)
{
  return g_object_new (assay_pg_source_get_type (), NULL);
}
