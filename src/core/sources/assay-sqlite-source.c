/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SQLite files through libsqlite3.
 *
 * The file is opened read-only (SQLITE_OPEN_READONLY, not as a URI, no symbolic link
 * followed), defensive, with extensions off, untrusted schema, no room to ATTACH another,
 * PRAGMA query_only on. The model's statement is compiled under an authorizer that allows
 * reads alone (SELECT, reading columns, functions other than load_extension and the like,
 * recursive CTEs, the read-only pragma functions), so what passes compiles to a program that
 * only reads. A progress handler ends it at the timeout or on Stop (and Stop also calls
 * sqlite3_interrupt).
 *
 * SQLite's values carry their own types: a column becomes Int64, float64, str or bytes from
 * the values it holds, with the declared type deciding booleans (BOOL…) and dates (DATE,
 * DATETIME, TIMESTAMP over ISO text). */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <sqlite3.h>
#include <string.h>

#include "assay-source-private.h"

#define SAMPLE_ROWS 100
#define COUNT_CAP 1000000

struct _AssaySqliteSource
{
  AssaySource   parent_instance;

  sqlite3      *db;
  gint64        deadline;      /* monotonic µs; 0: none */
  GCancellable *cancellable;   /* of the query running */
};

G_DECLARE_FINAL_TYPE (AssaySqliteSource, assay_sqlite_source, ASSAY, SQLITE_SOURCE, AssaySource)
G_DEFINE_FINAL_TYPE (AssaySqliteSource, assay_sqlite_source, ASSAY_TYPE_SOURCE)

static void
assay_sqlite_source_close (AssaySource *source)
{
  AssaySqliteSource *self = ASSAY_SQLITE_SOURCE (source);

  g_clear_pointer (&self->db, sqlite3_close_v2);
}

static gboolean
assay_sqlite_source_open (AssaySource   *source,
                          GCancellable  *cancellable,
                          GError       **error)
{
  AssaySqliteSource *self = ASSAY_SQLITE_SOURCE (source);
  const char *path = assay_source_get_url (source)->path;
  g_autofree char *server = NULL;
  sqlite3 *db = NULL;
  int rc;

  if (self->db != NULL)
    return TRUE;
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      assay_source_set_connect_error (source, error, ASSAY_SOURCE_ERROR_CONNECT, _("there is no such file"));
      return FALSE;
    }
  rc = sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX, NULL);
  if (rc != SQLITE_OK)
    {
      assay_source_set_connect_error (source, error, ASSAY_SOURCE_ERROR_CONNECT,
                                      db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      sqlite3_close_v2 (db);
      return FALSE;
    }
  sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
  sqlite3_limit (db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_busy_timeout (db, 5000);
  /* A file that is no database fails here, not at the first query. */
  rc = sqlite3_exec (db, "PRAGMA query_only = 1; SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      assay_source_set_connect_error (source, error, ASSAY_SOURCE_ERROR_CONNECT, sqlite3_errmsg (db));
      sqlite3_close_v2 (db);
      return FALSE;
    }
  self->db = db;
  server = g_strdup_printf ("SQLite %s", sqlite3_libversion ());
  assay_source_set_server (source, server);
  return TRUE;
}

static void
assay_sqlite_source_interrupt (AssaySource *source)
{
  AssaySqliteSource *self = ASSAY_SQLITE_SOURCE (source);

  /* The worker holds the connection open while a query runs; interrupt is thread-safe. */
  if (self->db != NULL)
    sqlite3_interrupt (self->db);
}

static int
progress_cb (void *data)
{
  AssaySqliteSource *self = data;

  if (self->cancellable != NULL && g_cancellable_is_cancelled (self->cancellable))
    return 1;
  return self->deadline > 0 && g_get_monotonic_time () > self->deadline;
}

static const char *const refused_functions[] = {
  "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "sqlite_offset", NULL
};
static const char *const read_only_pragmas[] = {
  "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
  "collation_list", "function_list", "pragma_list", NULL
};

static int
authorize (void       *data,
           int         action,
           const char *arg1,
           const char *arg2,
           const char *database,
           const char *trigger)
{
  switch (action)
    {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      {
        g_autofree char *name = arg2 != NULL ? g_ascii_strdown (arg2, -1) : NULL;

        return name != NULL && g_strv_contains (refused_functions, name) ? SQLITE_DENY : SQLITE_OK;
      }
    case SQLITE_PRAGMA:
      {
        g_autofree char *name = arg1 != NULL ? g_ascii_strdown (arg1, -1) : NULL;

        /* The table-valued pragma functions that only read; never one that sets. */
        return name != NULL && g_strv_contains (read_only_pragmas, name) ? SQLITE_OK : SQLITE_DENY;
      }
    default:
      return SQLITE_DENY;
    }
}

static void
set_query_error (AssaySqliteSource  *self,
                 guint               timeout_ms,
                 GError            **error)
{
  int code = sqlite3_errcode (self->db);
  g_autofree char *clean = assay_source_clean_message (ASSAY_SOURCE (self), sqlite3_errmsg (self->db));

  if (code == SQLITE_INTERRUPT && self->cancellable != NULL && g_cancellable_is_cancelled (self->cancellable))
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  else if (code == SQLITE_INTERRUPT)
    g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TIMEOUT,
                 "The query ran longer than the statement timeout (%u s) and was stopped. Make it cheaper (filter "
                 "early, aggregate in SQL, use indexed columns), or ask the analyst for a longer timeout.",
                 timeout_ms / 1000);
  else if (code == SQLITE_AUTH)
    g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED,
                 "SQLite refused the query: it does something other than read (%s). run_sql only reads.", clean);
  else
    g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_SERVER, "SQLite refused the query: %s", clean);
}

static AssayColumnHint
hint_for_declared (const char *declared)
{
  g_autofree char *upper = declared != NULL ? g_ascii_strup (declared, -1) : NULL;

  if (upper == NULL)
    return ASSAY_COLUMN_HINT_NONE;
  if (strstr (upper, "BOOL") != NULL)
    return ASSAY_COLUMN_HINT_BOOL;
  if (strstr (upper, "TIME") != NULL)
    return ASSAY_COLUMN_HINT_TIMESTAMP;
  if (strstr (upper, "DATE") != NULL)
    return ASSAY_COLUMN_HINT_DATE;
  return ASSAY_COLUMN_HINT_NONE;
}

/* Runs STMT (prepared) into a result of AUTO columns. */
static AssayQueryResult *
collect (AssaySqliteSource       *self,
         sqlite3_stmt            *stmt,
         const AssayQueryLimits  *limits,
         GError                 **error)
{
  g_autoptr(AssayQueryResult) result = assay_query_result_new ();
  int n = sqlite3_column_count (stmt);
  int rc;

  for (int i = 0; i < n; i++)
    {
      const char *declared = sqlite3_column_decltype (stmt, i);
      guint column = assay_query_result_add_column (result, sqlite3_column_name (stmt, i), ASSAY_COLUMN_AUTO,
                                                    declared != NULL ? declared : "");

      assay_query_result_set_column_hint (result, column, hint_for_declared (declared));
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      for (int i = 0; i < n; i++)
        switch (sqlite3_column_type (stmt, i))
          {
          case SQLITE_INTEGER:
            assay_query_result_append_int (result, i, sqlite3_column_int64 (stmt, i));
            break;
          case SQLITE_FLOAT:
            assay_query_result_append_double (result, i, sqlite3_column_double (stmt, i));
            break;
          case SQLITE_TEXT:
            assay_query_result_append_text (result, i, (const char *) sqlite3_column_text (stmt, i),
                                            sqlite3_column_bytes (stmt, i));
            break;
          case SQLITE_BLOB:
            assay_query_result_append_bytes (result, i, sqlite3_column_blob (stmt, i), sqlite3_column_bytes (stmt, i));
            break;
          default:
            assay_query_result_append_null (result, i);
            break;
          }
      if (!assay_query_result_end_row (result, limits, error))
        return NULL;
    }
  if (rc != SQLITE_DONE)
    {
      set_query_error (self, limits != NULL ? limits->timeout_ms : 0, error);
      return NULL;
    }
  return g_steal_pointer (&result);
}

static AssayQueryResult *
assay_sqlite_source_query (AssaySource             *source,
                           const char              *sql,
                           const AssayQueryLimits  *limits,
                           GCancellable            *cancellable,
                           GError                 **error)
{
  AssaySqliteSource *self = ASSAY_SQLITE_SOURCE (source);
  AssayQueryResult *result = NULL;
  sqlite3_stmt *stmt = NULL;
  const char *tail = NULL;
  int rc;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  self->cancellable = cancellable;
  self->deadline = limits->timeout_ms > 0 ? g_get_monotonic_time () + (gint64) limits->timeout_ms * 1000 : 0;
  sqlite3_progress_handler (self->db, 1000, progress_cb, self);
  sqlite3_exec (self->db, "BEGIN", NULL, NULL, NULL);

  sqlite3_set_authorizer (self->db, authorize, NULL);
  rc = sqlite3_prepare_v3 (self->db, sql, -1, 0, &stmt, &tail);
  sqlite3_set_authorizer (self->db, NULL, NULL);
  if (rc != SQLITE_OK)
    set_query_error (self, limits->timeout_ms, error);
  else if (stmt == NULL)
    g_set_error_literal (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED, "The SQL holds no statement.");
  else if (tail != NULL && strspn (tail, " \t\r\n;") != strlen (tail))
    g_set_error_literal (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED,
                         "The SQL holds more than one statement: run_sql runs exactly one query per call.");
  else if (!sqlite3_stmt_readonly (stmt))
    g_set_error_literal (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED,
                         "SQLite says the statement writes: run_sql only reads.");
  else
    result = collect (self, stmt, limits, error);
  sqlite3_finalize (stmt);
  sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_progress_handler (self->db, 0, NULL, NULL);
  self->cancellable = NULL;
  self->deadline = 0;
  return result;
}

/* ---- the schema -------------------------------------------------------------------------- */

static sqlite3_stmt *
prepare (AssaySqliteSource  *self,
         const char         *sql,
         GError            **error)
{
  sqlite3_stmt *stmt = NULL;

  if (sqlite3_prepare_v2 (self->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      set_query_error (self, 0, error);
      return NULL;
    }
  return stmt;
}

static AssaySourceSchema *
assay_sqlite_source_describe (AssaySource               *source,
                              const AssaySchemaOptions  *options,
                              GCancellable              *cancellable,
                              GError                   **error)
{
  AssaySqliteSource *self = ASSAY_SQLITE_SOURCE (source);
  g_autoptr(AssaySourceSchema) schema = assay_source_schema_new ();
  g_autofree gboolean *found = NULL;
  sqlite3_stmt *stmt;

  found = g_new0 (gboolean, options->tables != NULL ? g_strv_length ((char **) options->tables) + 1 : 1);
  schema->server = g_strdup (assay_source_get_server (source));
  schema->database = g_path_get_basename (assay_source_get_url (source)->path);
  stmt = prepare (self, "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
                        "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name", error);
  if (stmt == NULL)
    return NULL;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      AssaySourceTable *table;

      if (name == NULL || !assay_source_table_is_picked (options->tables, found, NULL, name, name))
        continue;
      if (schema->tables->len >= options->max_tables)
        {
          schema->n_more++;
          continue;
        }
      table = assay_source_table_new (NULL, name, name);
      table->view = g_strcmp0 ((const char *) sqlite3_column_text (stmt, 1), "view") == 0;
      g_ptr_array_add (schema->tables, table);
    }
  sqlite3_finalize (stmt);
  if (!assay_source_check_picked (options->tables, found, error))
    return NULL;

  for (guint i = 0; i < schema->tables->len; i++)
    {
      AssaySourceTable *table = g_ptr_array_index (schema->tables, i);
      g_autofree char *quoted = assay_sql_quote_identifier (ASSAY_SQL_SQLITE, table->name);
      g_autofree char *sql = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      /* The pragma functions take the table's name as a string. */
      {
        char *literal = sqlite3_mprintf ("%Q", table->name);

        sql = g_strdup_printf ("SELECT name, type, \"notnull\", pk FROM pragma_table_info(%s)", literal);
        sqlite3_free (literal);
      }
      if ((stmt = prepare (self, sql, error)) == NULL)
        return NULL;
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          AssaySourceColumn *column = assay_source_column_new ((const char *) sqlite3_column_text (stmt, 0),
                                                               (const char *) sqlite3_column_text (stmt, 1));

          if (column->type == NULL || *column->type == '\0')
            {
              g_free (column->type);
              column->type = g_strdup ("(any)");
            }
          column->not_null = sqlite3_column_int (stmt, 2) != 0;
          column->primary_key = sqlite3_column_int (stmt, 3) != 0;
          g_ptr_array_add (table->columns, column);
        }
      sqlite3_finalize (stmt);

      g_free (sql);
      {
        char *literal = sqlite3_mprintf ("%Q", table->name);

        sql = g_strdup_printf ("SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(%s) "
                               "ORDER BY id, seq", literal);
        sqlite3_free (literal);
      }
      if ((stmt = prepare (self, sql, error)) == NULL)
        return NULL;
      {
        int last = -1;
        AssaySourceForeignKey *key = NULL;

        while (sqlite3_step (stmt) == SQLITE_ROW)
          {
            const char *to = (const char *) sqlite3_column_text (stmt, 3);

            if (sqlite3_column_int (stmt, 0) != last || key == NULL)
              {
                key = assay_source_foreign_key_new ((const char *) sqlite3_column_text (stmt, 1));
                g_ptr_array_add (table->foreign_keys, key);
                last = sqlite3_column_int (stmt, 0);
              }
            g_ptr_array_add (key->columns, g_strdup ((const char *) sqlite3_column_text (stmt, 2)));
            /* No "to": the referenced table's primary key. */
            g_ptr_array_add (key->ref_columns, g_strdup (to != NULL ? to : "(primary key)"));
          }
      }
      sqlite3_finalize (stmt);

      if (!table->view)
        {
          g_free (sql);
          sql = g_strdup_printf ("SELECT count(*) FROM (SELECT 1 FROM %s LIMIT %d)", quoted, COUNT_CAP + 1);
          if ((stmt = prepare (self, sql, error)) == NULL)
            return NULL;
          if (sqlite3_step (stmt) == SQLITE_ROW)
            {
              table->rows = MIN (sqlite3_column_int64 (stmt, 0), COUNT_CAP);
              table->rows_exact = TRUE;
              table->rows_capped = sqlite3_column_int64 (stmt, 0) > COUNT_CAP;
            }
          sqlite3_finalize (stmt);
        }

      if (options->samples > 0)
        {
          g_autoptr(AssayQueryResult) result = NULL;

          g_free (sql);
          sql = g_strdup_printf ("SELECT * FROM %s LIMIT %d", quoted, SAMPLE_ROWS);
          if ((stmt = prepare (self, sql, NULL)) == NULL)
            continue;
          result = collect (self, stmt, NULL, NULL);
          sqlite3_finalize (stmt);
          if (result == NULL)
            continue;
          assay_query_result_finish (result);
          for (guint j = 0; j < assay_query_result_get_n_columns (result); j++)
            {
              AssaySourceColumn *column =
                assay_source_table_find_column (table, assay_query_result_get_column_name (result, j));

              if (column != NULL)
                assay_source_collect_samples (result, j, options->samples, column->samples);
            }
        }
    }
  return g_steal_pointer (&schema);
}

static GPtrArray *
assay_sqlite_source_distinct (AssaySource   *source,
                              const char    *table,
                              const char    *column,
                              guint          max,
                              GCancellable  *cancellable,
                              GError       **error)
{
  AssaySqliteSource *self = ASSAY_SQLITE_SOURCE (source);
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *quoted_table = assay_sql_quote_identifier (ASSAY_SQL_SQLITE, table);
  g_autofree char *quoted_column = assay_sql_quote_identifier (ASSAY_SQL_SQLITE, column);
  g_autofree char *sql = g_strdup_printf ("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL LIMIT %u",
                                          quoted_column, quoted_table, quoted_column, max);
  sqlite3_stmt *stmt = prepare (self, sql, error);

  if (stmt == NULL)
    return NULL;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    if (sqlite3_column_type (stmt, 0) != SQLITE_BLOB)
      g_ptr_array_add (values, g_strdup ((const char *) sqlite3_column_text (stmt, 0)));
  sqlite3_finalize (stmt);
  return g_steal_pointer (&values);
}

static void
assay_sqlite_source_finalize (GObject *object)
{
  assay_sqlite_source_close (ASSAY_SOURCE (object));
  G_OBJECT_CLASS (assay_sqlite_source_parent_class)->finalize (object);
}

static void
assay_sqlite_source_class_init (AssaySqliteSourceClass *klass)
{
  AssaySourceClass *source_class = ASSAY_SOURCE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = assay_sqlite_source_finalize;
  source_class->open = assay_sqlite_source_open;
  source_class->close = assay_sqlite_source_close;
  source_class->describe = assay_sqlite_source_describe;
  source_class->query = assay_sqlite_source_query;
  source_class->distinct = assay_sqlite_source_distinct;
  source_class->interrupt = assay_sqlite_source_interrupt;
}

static void
assay_sqlite_source_init (AssaySqliteSource *self)
{
}

AssaySource *
assay_sqlite_source_new (void)
{
  return g_object_new (assay_sqlite_source_get_type (), NULL);
}
