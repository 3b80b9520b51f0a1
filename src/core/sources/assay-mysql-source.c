/* SPDX-License-Identifier: GPL-3.0-or-later */
/* MySQL and MariaDB through libmariadb.
 *
 * A query runs as SET SESSION max_statement_time (MariaDB) or max_execution_time (MySQL),
 * START TRANSACTION READ ONLY, the statement (the client never allows several statements in
 * one call), its rows streamed (mysql_use_result) against the caps, ROLLBACK. The session's
 * time zone is UTC, so TIMESTAMP values (instants) arrive in UTC; DATETIME values stay as
 * written. A result cut short by the caps or by Stop leaves the connection unusable: it is
 * closed and opened again for the next call.
 *
 * Stop opens a second connection in a thread of its own and sends KILL QUERY for the first
 * one's thread, again every 250 ms while the query still runs. */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>
#include <string.h>

#include "assay-source-private.h"

#define DESCRIBE_TIMEOUT_S 30
#define SAMPLE_ROWS 100
#define BINARY_CHARSET 63

/* What a second connection needs to stop the first one's query. */
typedef struct
{
  gatomicrefcount  ref;
  AssaySourceUrl  *url;
  char            *password;
  unsigned long    thread_id;
  gint             running;    /* atomic */
  gint             sending;    /* atomic */
} KillHandle;

struct _AssayMysqlSource
{
  AssaySource  parent_instance;

  MYSQL       *conn;
  gboolean     mariadb;
  GMutex       handle_lock;
  KillHandle  *handle;
};

G_DECLARE_FINAL_TYPE (AssayMysqlSource, assay_mysql_source, ASSAY, MYSQL_SOURCE, AssaySource)
G_DEFINE_FINAL_TYPE (AssayMysqlSource, assay_mysql_source, ASSAY_TYPE_SOURCE)

static KillHandle *
kill_handle_ref (KillHandle *handle)
{
  g_atomic_ref_count_inc (&handle->ref);
  return handle;
}

static void
kill_handle_unref (KillHandle *handle)
{
  if (g_atomic_ref_count_dec (&handle->ref))
    {
      assay_source_url_free (handle->url);
      if (handle->password != NULL)
        memset (handle->password, 0, strlen (handle->password));
      g_free (handle->password);
      g_free (handle);
    }
}

static const char *const allowed_params[] = {
  "socket", "host", "ssl-mode", "sslmode", "ssl-ca", "ssl-capath", "ssl-cert", "ssl-key", "ssl-cipher",
  "connect_timeout", "connect-timeout",
  NULL
};

/* A connection by URL and PASSWORD (NULL: the library's own, MYSQL_PWD or an option file). */
static MYSQL *
connect_with (const AssaySourceUrl  *url,
              const char            *password,
              guint                 *error_code,
              char                 **error_message)
{
  MYSQL *conn = mysql_init (NULL);
  const char *host = url->host;
  const char *socket = assay_source_url_get_param (url, "socket");
  const char *mode = assay_source_url_get_param (url, "ssl-mode");
  const char *timeout_text = assay_source_url_get_param (url, "connect_timeout");
  unsigned int timeout = 10, local_infile = 0;
  my_bool yes = 1;
  guint64 port = 0;

  if (conn == NULL)
    {
      *error_code = CR_OUT_OF_MEMORY;
      *error_message = g_strdup ("out of memory");
      return NULL;
    }
  if (mode == NULL)
    mode = assay_source_url_get_param (url, "sslmode");
  if (timeout_text == NULL)
    timeout_text = assay_source_url_get_param (url, "connect-timeout");
  if (timeout_text != NULL)
    timeout = (unsigned int) g_ascii_strtoull (timeout_text, NULL, 10);
  /* host=/path/to/mysqld.sock names the socket, as libpq's host= names its folder. */
  if (socket == NULL && assay_source_url_get_param (url, "host") != NULL)
    {
      const char *param = assay_source_url_get_param (url, "host");

      if (param[0] == '/')
        socket = param;
      else
        host = param;
    }
  if (socket == NULL && host != NULL && host[0] == '/')
    {
      socket = host;
      host = NULL;
    }
  if (url->port != NULL)
    g_ascii_string_to_unsigned (url->port, 10, 1, 65535, &port, NULL);

  mysql_optionsv (conn, MYSQL_READ_DEFAULT_GROUP, "client");
  mysql_optionsv (conn, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  mysql_optionsv (conn, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  /* A server may ask the client for a file of its choosing: never. */
  mysql_optionsv (conn, MYSQL_OPT_LOCAL_INFILE, &local_infile);
  if (mode != NULL && g_ascii_strcasecmp (mode, "disabled") != 0 && g_ascii_strcasecmp (mode, "disable") != 0)
    {
      mysql_ssl_set (conn, assay_source_url_get_param (url, "ssl-key"), assay_source_url_get_param (url, "ssl-cert"),
                     assay_source_url_get_param (url, "ssl-ca"), assay_source_url_get_param (url, "ssl-capath"),
                     assay_source_url_get_param (url, "ssl-cipher"));
      if (g_ascii_strcasecmp (mode, "preferred") != 0 && g_ascii_strcasecmp (mode, "prefer") != 0 &&
          g_ascii_strcasecmp (mode, "allow") != 0)
        mysql_optionsv (conn, MYSQL_OPT_SSL_ENFORCE, &yes);
      if (g_ascii_strncasecmp (mode, "verify", 6) == 0)
        mysql_optionsv (conn, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &yes);
    }
  if (mysql_real_connect (conn, host, url->user, password, url->database, (unsigned int) port, socket, 0) == NULL)
    {
      *error_code = mysql_errno (conn);
      *error_message = g_strdup (mysql_error (conn));
      mysql_close (conn);
      return NULL;
    }
  return conn;
}

static gpointer
kill_thread (gpointer data)
{
  KillHandle *handle = data;

  for (guint attempt = 0; attempt < 40 && g_atomic_int_get (&handle->running); attempt++)
    {
      guint code = 0;
      g_autofree char *message = NULL;
      MYSQL *conn = connect_with (handle->url, handle->password, &code, &message);

      if (conn != NULL)
        {
          g_autofree char *kill = g_strdup_printf ("KILL QUERY %lu", handle->thread_id);

          if (mysql_query (conn, kill) != 0)
            g_debug ("KILL QUERY failed: %s", mysql_error (conn));
          mysql_close (conn);
        }
      else
        g_debug ("no connection to stop the query: %s", message);
      g_usleep (250 * 1000);
    }
  g_atomic_int_set (&handle->sending, 0);
  kill_handle_unref (handle);
  return NULL;
}

static void
assay_mysql_source_interrupt (AssaySource *source)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (source);
  KillHandle *handle = NULL;

  g_mutex_lock (&self->handle_lock);
  if (self->handle != NULL && g_atomic_int_get (&self->handle->running) &&
      g_atomic_int_compare_and_exchange (&self->handle->sending, 0, 1))
    handle = kill_handle_ref (self->handle);
  g_mutex_unlock (&self->handle_lock);
  if (handle != NULL)
    g_thread_unref (g_thread_new ("assay-mysql-kill", kill_thread, handle));
}

static void
assay_mysql_source_close (AssaySource *source)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (source);

  g_mutex_lock (&self->handle_lock);
  g_clear_pointer (&self->handle, kill_handle_unref);
  g_mutex_unlock (&self->handle_lock);
  g_clear_pointer (&self->conn, mysql_close);
}

static gboolean
run_command (AssayMysqlSource  *self,
             const char        *sql,
             GError           **error);

static gboolean
assay_mysql_source_open (AssaySource   *source,
                         GCancellable  *cancellable,
                         GError       **error)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (source);
  const AssaySourceUrl *url = assay_source_get_url (source);
  g_autofree char *message = NULL;
  g_autofree char *server = NULL;
  guint code = 0;
  MYSQL *conn;
  MYSQL_RES *res;
  MYSQL_ROW row;
  AssaySqlSyntax syntax;

  if (self->conn != NULL)
    return TRUE;
  for (guint i = 0; i < url->keys->len; i++)
    if (!g_strv_contains (allowed_params, g_ptr_array_index (url->keys, i)))
      {
        g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                     _("The connection URL's parameter “%s” is not one Assay passes to MySQL or MariaDB"),
                     (char *) g_ptr_array_index (url->keys, i));
        return FALSE;
      }
  conn = connect_with (url, assay_source_get_password (source), &code, &message);
  if (conn == NULL)
    {
      gboolean auth = code == ER_ACCESS_DENIED_ERROR || code == ER_DBACCESS_DENIED_ERROR ||
                      code == 1698 /* ER_ACCESS_DENIED_NO_PASSWORD_ERROR */;

      assay_source_set_connect_error (source, error, auth ? ASSAY_SOURCE_ERROR_AUTH : ASSAY_SOURCE_ERROR_CONNECT,
                                      message);
      return FALSE;
    }
  self->conn = conn;
  self->mariadb = strstr (mysql_get_server_info (conn), "MariaDB") != NULL;
  server = g_strdup_printf ("%s %.*s", self->mariadb ? "MariaDB" : "MySQL",
                            (int) strcspn (mysql_get_server_info (conn), "-"), mysql_get_server_info (conn));
  assay_source_set_server (source, server);

  if (!run_command (self, "SET time_zone = '+00:00'", error))
    {
      assay_mysql_source_close (source);
      return FALSE;
    }
  /* How this server reads quotes, for the statement check. */
  assay_sql_syntax_init (&syntax, ASSAY_SQL_MYSQL);
  if (mysql_query (conn, "SELECT @@SESSION.sql_mode") == 0 && (res = mysql_store_result (conn)) != NULL)
    {
      if ((row = mysql_fetch_row (res)) != NULL && row[0] != NULL)
        {
          syntax.backslash_escapes = strstr (row[0], "NO_BACKSLASH_ESCAPES") == NULL;
          syntax.double_quoted_strings = strstr (row[0], "ANSI_QUOTES") == NULL;
        }
      mysql_free_result (res);
    }
  assay_source_set_syntax (source, &syntax);

  g_mutex_lock (&self->handle_lock);
  self->handle = g_new0 (KillHandle, 1);
  g_atomic_ref_count_init (&self->handle->ref);
  self->handle->url = assay_source_url_copy (url);
  self->handle->password = g_strdup (assay_source_get_password (source));
  self->handle->thread_id = mysql_thread_id (conn);
  g_mutex_unlock (&self->handle_lock);
  return TRUE;
}

/* ---- running statements ------------------------------------------------------------------ */

static void
set_query_error (AssayMysqlSource  *self,
                 guint              timeout_ms,
                 GCancellable      *cancellable,
                 GError           **error)
{
  guint code = mysql_errno (self->conn);
  g_autofree char *clean = assay_source_clean_message (ASSAY_SOURCE (self), mysql_error (self->conn));

  if (g_cancellable_is_cancelled (cancellable))
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  else if (code == 1969 /* ER_STATEMENT_TIMEOUT */ || code == 3024 /* ER_QUERY_TIMEOUT */)
    g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TIMEOUT,
                 "The query ran longer than the statement timeout (%u s) and the server stopped it. Make it "
                 "cheaper (filter early, aggregate in SQL, use indexed columns), or ask the analyst for a "
                 "longer timeout.", timeout_ms / 1000);
  else
    {
      /* Truncations, bad values and out-of-range numbers quote what they met. */
      gboolean data = code == 1292 || code == 1366 || code == 1264 || code == 1365 || code == 1690;

      g_set_error (error, ASSAY_SOURCE_ERROR, data ? ASSAY_SOURCE_ERROR_DATA : ASSAY_SOURCE_ERROR_SERVER,
                   "%s refused the query (error %u): %s", self->mariadb ? "MariaDB" : "MySQL", code, clean);
    }
}

static gboolean
run_command (AssayMysqlSource  *self,
             const char        *sql,
             GError           **error)
{
  MYSQL_RES *res;

  if (mysql_query (self->conn, sql) != 0)
    {
      set_query_error (self, 0, NULL, error);
      return FALSE;
    }
  /* A command may still answer with rows (SET does not; be sure). */
  if ((res = mysql_store_result (self->conn)) != NULL)
    mysql_free_result (res);
  return TRUE;
}

static gboolean
begin_read_only (AssayMysqlSource  *self,
                 guint              timeout_ms,
                 GError           **error)
{
  g_autofree char *timeout = NULL;

  if (self->mariadb)
    timeout = g_strdup_printf ("SET SESSION max_statement_time = %u.%03u", timeout_ms / 1000, timeout_ms % 1000);
  else
    timeout = g_strdup_printf ("SET SESSION max_execution_time = %u", timeout_ms);
  return run_command (self, timeout, error) && run_command (self, "START TRANSACTION READ ONLY", error);
}

static void
end_transaction (AssayMysqlSource *self,
                 gboolean          clean)
{
  if (self->conn == NULL)
    return;
  if (!clean || mysql_query (self->conn, "ROLLBACK") != 0)
    assay_mysql_source_close (ASSAY_SOURCE (self));
}

static char *
type_name (const MYSQL_FIELD *field)
{
  gboolean is_unsigned = (field->flags & UNSIGNED_FLAG) != 0;
  const char *name;

  switch (field->type)
    {
    case MYSQL_TYPE_TINY:
      if (field->length == 1)
        return g_strdup ("tinyint(1)");
      name = "tinyint";
      break;
    case MYSQL_TYPE_SHORT: name = "smallint"; break;
    case MYSQL_TYPE_INT24: name = "mediumint"; break;
    case MYSQL_TYPE_LONG: name = "int"; break;
    case MYSQL_TYPE_LONGLONG: name = "bigint"; break;
    case MYSQL_TYPE_YEAR: return g_strdup ("year");
    case MYSQL_TYPE_FLOAT: name = "float"; break;
    case MYSQL_TYPE_DOUBLE: name = "double"; break;
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_NEWDECIMAL:
      {
        gulong precision = field->length - (field->decimals > 0 ? 1 : 0) - (is_unsigned ? 0 : 1);

        return g_strdup_printf ("decimal(%lu,%u)%s", precision, field->decimals, is_unsigned ? " unsigned" : "");
      }
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_NEWDATE: return g_strdup ("date");
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_DATETIME2: return g_strdup ("datetime");
    case MYSQL_TYPE_TIMESTAMP:
    case MYSQL_TYPE_TIMESTAMP2: return g_strdup ("timestamp");
    case MYSQL_TYPE_TIME:
    case MYSQL_TYPE_TIME2: return g_strdup ("time");
    case MYSQL_TYPE_BIT: return g_strdup_printf ("bit(%lu)", field->length);
    case MYSQL_TYPE_JSON: return g_strdup ("json");
    case MYSQL_TYPE_ENUM: return g_strdup ("enum");
    case MYSQL_TYPE_SET: return g_strdup ("set");
    case MYSQL_TYPE_GEOMETRY: return g_strdup ("geometry");
    case MYSQL_TYPE_TINY_BLOB:
    case MYSQL_TYPE_MEDIUM_BLOB:
    case MYSQL_TYPE_LONG_BLOB:
    case MYSQL_TYPE_BLOB:
      return g_strdup (field->charsetnr == BINARY_CHARSET ? "blob" : "text");
    case MYSQL_TYPE_VAR_STRING:
    case MYSQL_TYPE_VARCHAR:
      return g_strdup (field->charsetnr == BINARY_CHARSET ? "varbinary" : "varchar");
    case MYSQL_TYPE_STRING:
      return g_strdup (field->charsetnr == BINARY_CHARSET ? "binary" : "char");
    case MYSQL_TYPE_NULL: return g_strdup ("null");
    default: return g_strdup ("?");
    }
  return g_strdup_printf ("%s%s", name, is_unsigned ? " unsigned" : "");
}

static AssayColumnKind
kind_for_field (const MYSQL_FIELD *field)
{
  switch (field->type)
    {
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_YEAR:
      return ASSAY_COLUMN_INT64;
    case MYSQL_TYPE_LONGLONG:
      return (field->flags & UNSIGNED_FLAG) != 0 ? ASSAY_COLUMN_UINT64 : ASSAY_COLUMN_INT64;
    case MYSQL_TYPE_FLOAT:
    case MYSQL_TYPE_DOUBLE:
      return ASSAY_COLUMN_FLOAT64;
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_NEWDECIMAL:
      return ASSAY_COLUMN_DECIMAL;
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_NEWDATE:
      return ASSAY_COLUMN_DATE;
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_DATETIME2:
      return ASSAY_COLUMN_TIMESTAMP;
    case MYSQL_TYPE_TIMESTAMP:
    case MYSQL_TYPE_TIMESTAMP2:
      return ASSAY_COLUMN_TIMESTAMPTZ;
    case MYSQL_TYPE_BIT:
      return field->length == 1 ? ASSAY_COLUMN_BOOL : ASSAY_COLUMN_INT64;
    case MYSQL_TYPE_GEOMETRY:
      return ASSAY_COLUMN_BYTES;
    case MYSQL_TYPE_TINY_BLOB:
    case MYSQL_TYPE_MEDIUM_BLOB:
    case MYSQL_TYPE_LONG_BLOB:
    case MYSQL_TYPE_BLOB:
    case MYSQL_TYPE_VAR_STRING:
    case MYSQL_TYPE_VARCHAR:
    case MYSQL_TYPE_STRING:
      return field->charsetnr == BINARY_CHARSET ? ASSAY_COLUMN_BYTES : ASSAY_COLUMN_TEXT;
    default:
      return ASSAY_COLUMN_TEXT;
    }
}

static void
add_columns (MYSQL_RES        *res,
             AssayQueryResult *result,
             gboolean          as_text)
{
  unsigned int n = mysql_num_fields (res);
  MYSQL_FIELD *fields = mysql_fetch_fields (res);

  for (unsigned int i = 0; i < n; i++)
    {
      g_autofree char *type = type_name (&fields[i]);
      AssayColumnKind kind = kind_for_field (&fields[i]);
      guint column;

      if (as_text && kind != ASSAY_COLUMN_BYTES)
        kind = ASSAY_COLUMN_TEXT;
      column = assay_query_result_add_column (result, fields[i].name, kind, type);
      if (fields[i].type == MYSQL_TYPE_TINY && fields[i].length == 1 && !as_text)
        assay_query_result_set_maybe_bool (result, column);
    }
}

static void
append_row (MYSQL_RES        *res,
            MYSQL_ROW         row,
            AssayQueryResult *result)
{
  unsigned int n = mysql_num_fields (res);
  unsigned long *lengths = mysql_fetch_lengths (res);
  MYSQL_FIELD *fields = mysql_fetch_fields (res);

  for (unsigned int i = 0; i < n; i++)
    {
      AssayColumnKind kind = assay_query_result_get_column_kind (result, i);

      if (row[i] == NULL)
        assay_query_result_append_null (result, i);
      else if (fields[i].type == MYSQL_TYPE_BIT && kind != ASSAY_COLUMN_TEXT)
        {
          /* BIT(n) arrives as its bytes, most significant first. */
          guint64 value = 0;

          for (unsigned long j = 0; j < lengths[i] && j < 8; j++)
            value = value << 8 | (guchar) row[i][j];
          assay_query_result_append_int (result, i, (gint64) value);
        }
      else if (kind == ASSAY_COLUMN_BYTES)
        assay_query_result_append_bytes (result, i, row[i], lengths[i]);
      else
        assay_query_result_append_text (result, i, row[i], (gssize) lengths[i]);
    }
}

static AssayQueryResult *
assay_mysql_source_query (AssaySource             *source,
                          const char              *sql,
                          const AssayQueryLimits  *limits,
                          GCancellable            *cancellable,
                          GError                 **error)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (source);
  g_autoptr(AssayQueryResult) result = assay_query_result_new ();
  MYSQL_RES *res;
  MYSQL_ROW row;
  gboolean ok = TRUE;
  guint64 n = 0;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (!begin_read_only (self, limits->timeout_ms, error))
    {
      end_transaction (self, FALSE);
      return NULL;
    }
  g_atomic_int_set (&self->handle->running, 1);
  if (g_cancellable_is_cancelled (cancellable) || mysql_real_query (self->conn, sql, strlen (sql)) != 0)
    {
      set_query_error (self, limits->timeout_ms, cancellable, error);
      g_atomic_int_set (&self->handle->running, 0);
      end_transaction (self, mysql_errno (self->conn) < 2000);
      return NULL;
    }
  res = mysql_use_result (self->conn);
  if (res == NULL)
    {
      if (mysql_field_count (self->conn) != 0)
        {
          set_query_error (self, limits->timeout_ms, cancellable, error);
          ok = FALSE;
        }
      g_atomic_int_set (&self->handle->running, 0);
      end_transaction (self, ok);
      return ok ? g_steal_pointer (&result) : NULL;
    }
  add_columns (res, result, FALSE);
  while (ok && (row = mysql_fetch_row (res)) != NULL)
    {
      append_row (res, row, result);
      ok = assay_query_result_end_row (result, limits, error);
      if (ok && ++n % 10000 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        ok = FALSE;
    }
  if (ok && mysql_errno (self->conn) != 0)
    {
      set_query_error (self, limits->timeout_ms, cancellable, error);
      ok = FALSE;
    }
  g_atomic_int_set (&self->handle->running, 0);
  if (!ok)
    {
      /* The rest of the rows are still on their way: the connection cannot be used again. */
      mysql_free_result (res);
      assay_mysql_source_close (source);
      return NULL;
    }
  mysql_free_result (res);
  end_transaction (self, TRUE);
  return g_steal_pointer (&result);
}

/* ---- the schema -------------------------------------------------------------------------- */

static MYSQL_RES *
run_catalog (AssayMysqlSource  *self,
             const char        *sql,
             GError           **error)
{
  MYSQL_RES *res;

  if (mysql_query (self->conn, sql) != 0 || (res = mysql_store_result (self->conn)) == NULL)
    {
      set_query_error (self, DESCRIBE_TIMEOUT_S * 1000, NULL, error);
      return NULL;
    }
  return res;
}

static void
read_samples (AssayMysqlSource *self,
              AssaySourceTable *table,
              guint             samples)
{
  g_autofree char *quoted = assay_sql_quote_identifier (ASSAY_SQL_MYSQL, table->name);
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM %s LIMIT %d", quoted, SAMPLE_ROWS);
  g_autoptr(AssayQueryResult) result = assay_query_result_new ();
  MYSQL_RES *res;
  MYSQL_ROW row;

  if (mysql_query (self->conn, sql) != 0 || (res = mysql_store_result (self->conn)) == NULL)
    return;
  add_columns (res, result, TRUE);
  while ((row = mysql_fetch_row (res)) != NULL)
    {
      append_row (res, row, result);
      assay_query_result_end_row (result, NULL, NULL);
    }
  for (guint j = 0; j < assay_query_result_get_n_columns (result); j++)
    {
      AssaySourceColumn *column = assay_source_table_find_column (table, assay_query_result_get_column_name (result, j));

      if (column != NULL)
        assay_source_collect_samples (result, j, samples, column->samples);
    }
  mysql_free_result (res);
}

static AssaySourceSchema *
assay_mysql_source_describe (AssaySource               *source,
                             const AssaySchemaOptions  *options,
                             GCancellable              *cancellable,
                             GError                   **error)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (source);
  g_autoptr(AssaySourceSchema) schema = assay_source_schema_new ();
  g_autofree gboolean *found = NULL;
  MYSQL_RES *res = NULL;
  MYSQL_ROW row;
  gboolean ok = FALSE;

  if (assay_source_get_url (source)->database == NULL)
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                   _("Name the database in the URL: mysql://user@host/DATABASE"));
      return NULL;
    }
  if (!begin_read_only (self, DESCRIBE_TIMEOUT_S * 1000, error))
    {
      end_transaction (self, FALSE);
      return NULL;
    }
  found = g_new0 (gboolean, options->tables != NULL ? g_strv_length ((char **) options->tables) + 1 : 1);
  schema->server = g_strdup (assay_source_get_server (source));
  schema->database = g_strdup (assay_source_get_url (source)->database);

  res = run_catalog (self,
                     "SELECT table_name, table_type, table_rows, table_comment FROM information_schema.tables "
                     "WHERE table_schema = DATABASE() ORDER BY table_name", error);
  if (res == NULL)
    goto out;
  while ((row = mysql_fetch_row (res)) != NULL)
    {
      AssaySourceTable *table;

      if (row[0] == NULL || !assay_source_table_is_picked (options->tables, found, NULL, row[0], row[0]))
        continue;
      if (schema->tables->len >= options->max_tables)
        {
          schema->n_more++;
          continue;
        }
      table = assay_source_table_new (NULL, row[0], row[0]);
      table->view = row[1] != NULL && strstr (row[1], "VIEW") != NULL;
      table->rows = !table->view && row[2] != NULL ? g_ascii_strtoll (row[2], NULL, 10) : -1;
      if (row[3] != NULL && *row[3] != '\0' && !table->view)
        table->comment = g_strdup (row[3]);
      g_ptr_array_add (schema->tables, table);
    }
  g_clear_pointer (&res, mysql_free_result);
  if (!assay_source_check_picked (options->tables, found, error))
    goto out;

  res = run_catalog (self,
                     "SELECT table_name, column_name, column_type, is_nullable, column_key, column_comment "
                     "FROM information_schema.columns WHERE table_schema = DATABASE() "
                     "ORDER BY table_name, ordinal_position", error);
  if (res == NULL)
    goto out;
  while ((row = mysql_fetch_row (res)) != NULL)
    {
      AssaySourceTable *table = row[0] != NULL ? assay_source_schema_find_table (schema, row[0]) : NULL;
      AssaySourceColumn *column;

      if (table == NULL || row[1] == NULL)
        continue;
      column = assay_source_column_new (row[1], row[2]);
      column->not_null = g_strcmp0 (row[3], "NO") == 0;
      column->primary_key = g_strcmp0 (row[4], "PRI") == 0;
      if (row[5] != NULL && *row[5] != '\0')
        column->comment = g_strdup (row[5]);
      g_ptr_array_add (table->columns, column);
    }
  g_clear_pointer (&res, mysql_free_result);

  res = run_catalog (self,
                     "SELECT table_name, constraint_name, column_name, referenced_table_name, referenced_column_name "
                     "FROM information_schema.key_column_usage "
                     "WHERE table_schema = DATABASE() AND referenced_table_name IS NOT NULL "
                     "ORDER BY table_name, constraint_name, ordinal_position", error);
  if (res == NULL)
    goto out;
  {
    g_autofree char *last = NULL;
    AssaySourceForeignKey *key = NULL;

    while ((row = mysql_fetch_row (res)) != NULL)
      {
        AssaySourceTable *table = row[0] != NULL ? assay_source_schema_find_table (schema, row[0]) : NULL;
        g_autofree char *id = NULL;

        if (table == NULL || row[2] == NULL || row[3] == NULL || row[4] == NULL)
          continue;
        id = g_strdup_printf ("%s\n%s", row[0], row[1] != NULL ? row[1] : "");
        if (last == NULL || !g_str_equal (last, id))
          {
            key = assay_source_foreign_key_new (row[3]);
            g_ptr_array_add (table->foreign_keys, key);
            g_free (last);
            last = g_strdup (id);
          }
        g_ptr_array_add (key->columns, g_strdup (row[2]));
        g_ptr_array_add (key->ref_columns, g_strdup (row[4]));
      }
  }
  g_clear_pointer (&res, mysql_free_result);

  if (options->samples > 0)
    for (guint i = 0; i < schema->tables->len; i++)
      {
        if (g_cancellable_set_error_if_cancelled (cancellable, error))
          goto out;
        read_samples (self, g_ptr_array_index (schema->tables, i), options->samples);
      }
  ok = TRUE;

out:
  g_clear_pointer (&res, mysql_free_result);
  end_transaction (self, TRUE);
  return ok ? g_steal_pointer (&schema) : NULL;
}

static GPtrArray *
assay_mysql_source_distinct (AssaySource   *source,
                             const char    *table,
                             const char    *column,
                             guint          max,
                             GCancellable  *cancellable,
                             GError       **error)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (source);
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *quoted_table = assay_sql_quote_identifier (ASSAY_SQL_MYSQL, table);
  g_autofree char *quoted_column = assay_sql_quote_identifier (ASSAY_SQL_MYSQL, column);
  g_autofree char *sql = g_strdup_printf ("SELECT DISTINCT CAST(%s AS CHAR) FROM %s WHERE %s IS NOT NULL LIMIT %u",
                                          quoted_column, quoted_table, quoted_column, max);
  MYSQL_RES *res;
  MYSQL_ROW row;

  if (!begin_read_only (self, DESCRIBE_TIMEOUT_S * 1000, error))
    {
      end_transaction (self, FALSE);
      return NULL;
    }
  res = run_catalog (self, sql, error);
  if (res == NULL)
    {
      end_transaction (self, TRUE);
      return NULL;
    }
  while ((row = mysql_fetch_row (res)) != NULL)
    if (row[0] != NULL)
      g_ptr_array_add (values, g_strdup (row[0]));
  mysql_free_result (res);
  end_transaction (self, TRUE);
  return g_steal_pointer (&values);
}

/* The privileges of one line of SHOW GRANTS that grants on *.* ("GRANT FILE, PROCESS ON *.*
 * TO …"), USAGE (no privilege) left out; the rest of the line (which may hold a password
 * hash) is never kept. */
static void
add_global_grants (GPtrArray  *powers,
                   const char *line)
{
  const char *on = strstr (line, " ON *.* TO ");
  g_autofree char *list = NULL;
  g_auto(GStrv) parts = NULL;

  if (!g_str_has_prefix (line, "GRANT ") || on == NULL)
    return;
  list = g_strndup (line + strlen ("GRANT "), on - line - strlen ("GRANT "));
  parts = g_strsplit (list, ",", -1);
  for (guint i = 0; parts[i] != NULL && powers->len < 32; i++)
    {
      const char *power = g_strstrip (parts[i]);

      if (*power != '\0' && g_ascii_strcasecmp (power, "USAGE") != 0)
        g_ptr_array_add (powers, g_strndup (power, 64));
    }
  if (strstr (on, " WITH GRANT OPTION") != NULL && powers->len < 32)
    g_ptr_array_add (powers, g_strdup ("GRANT OPTION"));
}

/* Any privilege on *.* (FILE, SUPER, PROCESS, SELECT on every database …), the user's own
 * and its active roles'. */
static GPtrArray *
assay_mysql_source_powers (AssaySource   *source,
                           GCancellable  *cancellable,
                           GError       **error)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (source);
  GPtrArray *powers;
  MYSQL_RES *res;
  MYSQL_ROW row;

  if (mysql_query (self->conn, "SHOW GRANTS") != 0 || (res = mysql_store_result (self->conn)) == NULL)
    {
      set_query_error (self, 0, NULL, error);
      return NULL;
    }
  powers = g_ptr_array_new_with_free_func (g_free);
  while ((row = mysql_fetch_row (res)) != NULL)
    if (row[0] != NULL)
      add_global_grants (powers, row[0]);
  mysql_free_result (res);
  return powers;
}

static void
assay_mysql_source_finalize (GObject *object)
{
  AssayMysqlSource *self = ASSAY_MYSQL_SOURCE (object);

  assay_mysql_source_close (ASSAY_SOURCE (self));
  g_mutex_clear (&self->handle_lock);
  G_OBJECT_CLASS (assay_mysql_source_parent_class)->finalize (object);
}

static void
assay_mysql_source_class_init (AssayMysqlSourceClass *klass)
{
  AssaySourceClass *source_class = ASSAY_SOURCE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = assay_mysql_source_finalize;
  source_class->open = assay_mysql_source_open;
  source_class->close = assay_mysql_source_close;
  source_class->describe = assay_mysql_source_describe;
  source_class->query = assay_mysql_source_query;
  source_class->distinct = assay_mysql_source_distinct;
  source_class->interrupt = assay_mysql_source_interrupt;
  source_class->powers = assay_mysql_source_powers;
}

static void
assay_mysql_source_init (AssayMysqlSource *self)
{
  g_mutex_init (&self->handle_lock);
}

AssaySource *
assay_mysql_source_new (void)
{
  /* libmariadb's global setup is not thread-safe: once, before any worker. */
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      mysql_library_init (0, NULL, NULL);
      g_once_init_leave (&initialized, 1);
    }
  return g_object_new (assay_mysql_source_get_type (), NULL);
}
