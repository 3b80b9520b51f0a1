/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Databases without a server (src/core/sources): the statement check (the lexer's quotes,
 * comments and dollar quoting; every refusal), placeholders unmasked into SQL literals,
 * connection URLs and their passwords, typed results and their file, the schema's
 * description within its budget, and an SQLite file for real (read-only, the authorizer,
 * the timeout, Stop from another thread). The servers are in tests/sources/. */
#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "assay-masker.h"
#include "assay-query-result.h"
#include "assay-session.h"
#include "assay-source.h"
#include "assay-source-url.h"
#include "assay-sql-check.h"

static char *
check (AssaySqlDialect  dialect,
       const char      *sql,
       GError         **error)
{
  AssaySqlSyntax syntax;

  assay_sql_syntax_init (&syntax, dialect);
  return assay_sql_check_read_only (sql, &syntax, error);
}

static void
assert_accepted (AssaySqlDialect  dialect,
                 const char      *sql,
                 const char      *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *statement = check (dialect, sql, &error);

  if (statement == NULL)
    g_error ("refused (%d): %s\n  %s", dialect, sql, error->message);
  if (expected != NULL)
    g_assert_cmpstr (statement, ==, expected);
}

static void
assert_refused (AssaySqlDialect  dialect,
                const char      *sql,
                const char      *because)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *statement = check (dialect, sql, &error);

  if (statement != NULL)
    g_error ("accepted (%d): %s", dialect, sql);
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED);
  if (because != NULL && strstr (error->message, because) == NULL)
    g_error ("%s\n  refused with “%s”, not for “%s”", sql, error->message, because);
}

static void
test_check_accepts_queries (void)
{
  const AssaySqlDialect all[] = { ASSAY_SQL_POSTGRESQL, ASSAY_SQL_MYSQL, ASSAY_SQL_SQLITE };

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      assert_accepted (all[i], "SELECT 1", "SELECT 1");
      /* The one ";" at the end, and comments after it, are no second statement. */
      assert_accepted (all[i], "  select * from orders ;  -- the end\n", "select * from orders");
      assert_accepted (all[i], "SELECT 'a;b', 'DELETE FROM t' /* ; DROP */ FROM t", NULL);
      assert_accepted (all[i], "WITH x AS (SELECT 1 AS a) SELECT a FROM x", NULL);
      assert_accepted (all[i], "(SELECT 1) UNION ALL (SELECT 2)", NULL);
      assert_accepted (all[i], "VALUES (1), (2)", NULL);
      assert_accepted (all[i], "SELECT t.update, t.delete FROM t", NULL);
      assert_accepted (all[i], "SELECT 'it''s', 1e-5, .5 FROM t WHERE a IN (1, 2)", NULL);
      /* A function named like a statement: MySQL's INSERT() and REPLACE(). */
      assert_accepted (all[i], "SELECT replace(name, 'a', 'b') FROM t", NULL);
    }
  assert_accepted (ASSAY_SQL_POSTGRESQL, "SELECT $$ ; DELETE FROM t; $$, $tag$ $$ ; $tag$", NULL);
  assert_accepted (ASSAY_SQL_POSTGRESQL, "SELECT E'\\' ; DROP' /* a /* nested */ comment ; */", NULL);
  assert_accepted (ASSAY_SQL_POSTGRESQL, "SELECT \"weird \"\" ; name\" FROM t FETCH FIRST 5 ROWS ONLY", NULL);
  assert_accepted (ASSAY_SQL_POSTGRESQL, "TABLE orders", NULL);
  assert_accepted (ASSAY_SQL_POSTGRESQL, "SELECT substring(x FOR 3), pg_sleep(0.1) FROM t", NULL);
  /* Backslashes escape in MySQL's strings: this is one string. */
  assert_accepted (ASSAY_SQL_MYSQL, "SELECT 'a\\'; DELETE FROM t; --'", NULL);
  assert_accepted (ASSAY_SQL_MYSQL, "SELECT `a``b` FROM t # a comment; DROP\n", NULL);
  assert_accepted (ASSAY_SQL_MYSQL, "SELECT CAST(x AS CHAR CHARACTER SET utf8mb4), 5--3 FROM t", NULL);
  assert_accepted (ASSAY_SQL_SQLITE, "SELECT [odd;name] FROM t", NULL);
  assert_accepted (ASSAY_SQL_SQLITE, "SELECT * FROM pragma_table_info('orders')", NULL);
  /* Names like the refused functions, not called: columns and tables. */
  assert_accepted (ASSAY_SQL_POSTGRESQL, "SELECT t.\"lo_export\", pg_catalog.pg_class.relname FROM pg_catalog.pg_class, t", NULL);
  assert_accepted (ASSAY_SQL_POSTGRESQL, "SELECT upper(\"name\"), pg_catalog.lower(x) FROM t", NULL);
  assert_accepted (ASSAY_SQL_MYSQL, "SELECT `get_lock` FROM t", NULL);
}

static void
test_check_refuses_writes (void)
{
  const AssaySqlDialect all[] = { ASSAY_SQL_POSTGRESQL, ASSAY_SQL_MYSQL, ASSAY_SQL_SQLITE };

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      assert_refused (all[i], "INSERT INTO orders VALUES (1)", "Writes");
      assert_refused (all[i], "DROP TABLE orders", "Writes");
      assert_refused (all[i], "update orders set status = 'x'", "Writes");
      assert_refused (all[i], "CREATE TABLE x AS SELECT 1", "Writes");
      assert_refused (all[i], "TRUNCATE orders", "Writes");
      assert_refused (all[i], "GRANT ALL ON orders TO public", "Writes");
      assert_refused (all[i], "SET TRANSACTION READ WRITE", "SET");
      assert_refused (all[i], "BEGIN", "Transaction control");
      assert_refused (all[i], "COMMIT; DELETE FROM orders", "more than one statement");
      assert_refused (all[i], "SELECT 1; SELECT 2", "more than one statement");
      assert_refused (all[i], "SELECT 1; -- and then\n DELETE FROM orders", "more than one statement");
      assert_refused (all[i], "SELECT * INTO backup FROM orders", "INTO");
      assert_refused (all[i], "SELECT * FROM orders FOR UPDATE", "Locking");
      assert_refused (all[i], "WITH gone AS (DELETE FROM orders RETURNING *) SELECT * FROM gone", "Writes");
      assert_refused (all[i], "SELECT 'unterminated", "never closed");
      assert_refused (all[i], "SELECT 1 /* unterminated", "never closed");
      assert_refused (all[i], "   ", "empty");
      assert_refused (all[i], "-- only a comment", "empty");
      assert_refused (all[i], "CALL refresh()", "procedures");
      assert_refused (all[i], "EXPLAIN SELECT 1", "EXPLAIN");
    }
  assert_refused (ASSAY_SQL_POSTGRESQL, "COPY (SELECT 1) TO PROGRAM 'rm -rf /'", "COPY");
  assert_refused (ASSAY_SQL_POSTGRESQL, "DO $$ BEGIN DELETE FROM orders; END $$", "DO");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT * FROM orders FOR SHARE", "Locking");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT * FROM orders FOR NO KEY UPDATE", "Locking");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT set_config('statement_timeout', '0', true)", "set_config");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT pg_read_file('/etc/passwd')", "pg_read_file");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT lo_export(1, '/tmp/x')", "lo_export");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT * FROM dblink('host=x', 'DELETE FROM t') AS t(a int)", "dblink");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT pg_advisory_lock(1)", "pg_advisory_lock");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT nextval('orders_id_seq')", "nextval");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT query_to_xml('DELETE FROM t', true, true, '')", "query_to_xml");
  /* Standard strings: the backslash does not escape, so the ";" is outside the string. */
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT 'a\\'; DELETE FROM t; --'", "more than one statement");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT $x$ never closed", "never closed");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT * FROM orders LOCK IN SHARE MODE", "Locking");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT * FROM orders INTO OUTFILE '/tmp/x'", "INTO");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT 1 /*! ; DELETE FROM orders */", "Executable comments");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT 1 /*M!100000 ; DELETE FROM orders */", "Executable comments");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT load_file('/etc/passwd')", "load_file");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT @a := 1", "Assigning");
  assert_refused (ASSAY_SQL_MYSQL, "REPLACE INTO orders VALUES (1)", "Writes");
  assert_refused (ASSAY_SQL_MYSQL, "LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "LOAD");
  assert_refused (ASSAY_SQL_MYSQL, "HANDLER orders OPEN", NULL);
  assert_refused (ASSAY_SQL_SQLITE, "ATTACH DATABASE '/tmp/x.db' AS x", "ATTACH");
  assert_refused (ASSAY_SQL_SQLITE, "PRAGMA query_only = 0", "PRAGMA");
  assert_refused (ASSAY_SQL_SQLITE, "SELECT load_extension('/tmp/evil')", "load_extension");
  assert_refused (ASSAY_SQL_SQLITE, "VACUUM INTO '/tmp/copy.db'", "Writes");

  /* A function is known by its name however it is spelled (issue 33): after its schema, as a
   * quoted identifier, in PostgreSQL's Unicode escapes, with a comment before its "(". */
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT pg_catalog.pg_terminate_backend(123)", "pg_terminate_backend");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT \"pg_catalog\".\"pg_terminate_backend\"(123)", "pg_terminate_backend");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT \"lo_export\"(1, '/tmp/x')", "lo_export");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT pg_catalog.pg_read_file('/etc/passwd')", "pg_read_file");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT * FROM public.dblink_exec('host=x', 'DELETE FROM t')", "dblink_exec");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT U&\"\\0070g_read_file\"('/etc/passwd')", "pg_read_file");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT U&\"pg\\+00005Fread_file\"('/etc/passwd')", "pg_read_file");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT U&\"!0070g_read_file\" UESCAPE '!' ('/etc/passwd')", "UESCAPE");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT U&\"\\00zz\"(1)", "cannot be read");
  assert_refused (ASSAY_SQL_POSTGRESQL, "SELECT pg_advisory_lock /* a lock */ (1)", "pg_advisory_lock");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT `GET_LOCK`('a', 10)", "get_lock");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT `Get_Lock` ('a', 10)", "get_lock");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT mysql.load_file('/etc/passwd')", "load_file");
  assert_refused (ASSAY_SQL_MYSQL, "SELECT `load_file`('/etc/passwd')", "load_file");
  assert_refused (ASSAY_SQL_SQLITE, "SELECT \"load_extension\"('/tmp/evil')", "load_extension");
  assert_refused (ASSAY_SQL_SQLITE, "SELECT [load_extension]('/tmp/evil')", "load_extension");
  assert_refused (ASSAY_SQL_SQLITE, "SELECT `writefile`('/tmp/x', 'y')", "writefile");
}

static void
test_unmask_sql (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint emails = assay_masker_add_column (masker, "shop.customers", "email");
  guint ids = assay_masker_add_column (masker, "shop.customers", "code");
  AssaySqlSyntax postgresql, mysql;
  g_autofree char *plain = NULL, *quoted = NULL, *escaped = NULL, *number = NULL, *comment = NULL;
  g_autofree char *backslash = NULL;

  g_assert_true (assay_masker_add_value (masker, emails, "anna@example.com", 16));
  g_assert_true (assay_masker_add_value (masker, emails, "o'hare\\x@example.com", 20));
  g_assert_true (assay_masker_add_value (masker, ids, "1234", 4));
  assay_sql_syntax_init (&postgresql, ASSAY_SQL_POSTGRESQL);
  assay_sql_syntax_init (&mysql, ASSAY_SQL_MYSQL);

  plain = assay_sql_unmask (masker, "SELECT * FROM c WHERE email = ⟨email 1⟩", &postgresql);
  g_assert_cmpstr (plain, ==, "SELECT * FROM c WHERE email = 'anna@example.com'");
  quoted = assay_sql_unmask (masker, "SELECT 'x ⟨email 1⟩ y', '⟨email 2⟩'", &postgresql);
  g_assert_cmpstr (quoted, ==, "SELECT 'x anna@example.com y', 'o''hare\\x@example.com'");
  escaped = assay_sql_unmask (masker, "SELECT * FROM c WHERE email = ⟨email 2⟩", &postgresql);
  g_assert_cmpstr (escaped, ==, "SELECT * FROM c WHERE email = 'o''hare\\x@example.com'");
  /* MySQL reads backslashes in strings: they are doubled. */
  backslash = assay_sql_unmask (masker, "SELECT * FROM c WHERE email = ⟨email 2⟩", &mysql);
  g_assert_cmpstr (backslash, ==, "SELECT * FROM c WHERE email = 'o''hare\\\\x@example.com'");
  number = assay_sql_unmask (masker, "SELECT ⟨code 1⟩ + 1, ⟨unknown 3⟩", &postgresql);
  g_assert_cmpstr (number, ==, "SELECT 1234 + 1, ⟨unknown 3⟩");
  comment = assay_sql_unmask (masker, "SELECT 1 -- for ⟨email 1⟩\n", &postgresql);
  g_assert_cmpstr (comment, ==, "SELECT 1 -- for anna@example.com\n");
}

static void
test_url (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySourceUrl) pg = assay_source_url_parse ("postgresql://ann:p%40ss%3Aw0rd@db.example.com:5433/shop"
                                                         "?sslmode=verify-full&password=other&sslrootcert=/etc/ca.pem",
                                                         &error);
  g_autoptr(AssaySourceUrl) socket = NULL;
  g_autoptr(AssaySourceUrl) my = NULL;
  g_autoptr(AssaySourceUrl) lite = NULL;
  g_autoptr(AssaySourceUrl) hosts = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *stripped = NULL;
  g_autofree char *stripped_other = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (pg->kind, ==, ASSAY_SOURCE_POSTGRESQL);
  g_assert_cmpstr (pg->user, ==, "ann");
  /* The last password given wins; the URL's own parameters keep their order. */
  g_assert_cmpstr (pg->password, ==, "other");
  g_assert_cmpstr (pg->host, ==, "db.example.com");
  g_assert_cmpstr (pg->port, ==, "5433");
  g_assert_cmpstr (pg->database, ==, "shop");
  g_assert_cmpstr (assay_source_url_get_param (pg, "sslmode"), ==, "verify-full");
  shown = assay_source_url_to_display (pg);
  g_assert_cmpstr (shown, ==, "postgresql://ann@db.example.com:5433/shop?sslmode=verify-full&sslrootcert=/etc/ca.pem");
  g_assert_null (strstr (shown, "other"));
  g_assert_null (strstr (shown, "w0rd"));

  stripped = assay_source_url_strip_password ("mysql://root:hunter22@localhost/x");
  g_assert_cmpstr (stripped, ==, "mysql://root@localhost/x");
  stripped_other = assay_source_url_strip_password ("ftp://root:hunter22@localhost/x");
  g_assert_null (strstr (stripped_other, "hunter22"));

  socket = assay_source_url_parse ("postgres://reader@/shop?host=/tmp/pg%20sock&port=5555", &error);
  g_assert_no_error (error);
  g_assert_null (socket->host);
  g_assert_cmpstr (assay_source_url_get_param (socket, "host"), ==, "/tmp/pg sock");

  my = assay_source_url_parse ("mariadb://reader@[::1]:3307/shop?ssl-mode=REQUIRED", &error);
  g_assert_no_error (error);
  g_assert_cmpint (my->kind, ==, ASSAY_SOURCE_MYSQL);
  g_assert_cmpstr (my->host, ==, "::1");
  g_assert_cmpstr (my->port, ==, "3307");

  hosts = assay_source_url_parse ("postgresql://a:1,b:2/shop", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (hosts->host, ==, "a:1,b:2");

  lite = assay_source_url_parse ("sqlite:///var/data/shop%201.db", &error);
  g_assert_no_error (error);
  g_assert_cmpint (lite->kind, ==, ASSAY_SOURCE_SQLITE);
  g_assert_cmpstr (lite->path, ==, "/var/data/shop 1.db");

  g_assert_null (assay_source_url_parse ("sqlite://relative.db", &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL);
  g_clear_error (&error);
  g_assert_null (assay_source_url_parse ("oracle://x/y", &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL);
  g_clear_error (&error);
  g_assert_null (assay_source_url_parse ("postgresql://h:99999/x", &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL);
  g_clear_error (&error);
  g_assert_false (assay_source_name_is_valid ("1shop"));
  g_assert_false (assay_source_name_is_valid ("my-shop"));
  g_assert_true (assay_source_name_is_valid ("shop_2"));
}

static void
test_result_kinds (void)
{
  g_autoptr(AssayQueryResult) result = assay_query_result_new ();
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "assay-test-result.aqr", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  gsize length;
  guint64 header_length;
  JsonArray *columns;
  AssayQueryLimits limits = { 0, 3, 0 };

  assay_query_result_add_column (result, "n", ASSAY_COLUMN_INT64, "integer");
  assay_query_result_add_column (result, "when", ASSAY_COLUMN_TIMESTAMPTZ, "timestamptz");
  assay_query_result_add_column (result, "day", ASSAY_COLUMN_DATE, "date");
  assay_query_result_add_column (result, "note", ASSAY_COLUMN_TEXT, "text");
  assay_query_result_add_column (result, "mixed", ASSAY_COLUMN_AUTO, "");

  assay_query_result_append_text (result, 0, "42", -1);
  assay_query_result_append_text (result, 1, "2024-03-31 23:59:59.5+02", -1);
  assay_query_result_append_text (result, 2, "2024-02-29", -1);
  assay_query_result_append_text (result, 3, "two\nlines, Привет", -1);
  assay_query_result_append_int (result, 4, 7);
  g_assert_true (assay_query_result_end_row (result, &limits, &error));

  assay_query_result_append_null (result, 0);
  assay_query_result_append_text (result, 1, "infinity", -1);
  assay_query_result_append_text (result, 2, "0044-03-15 BC", -1);
  assay_query_result_append_null (result, 3);
  assay_query_result_append_double (result, 4, 0.1);
  g_assert_true (assay_query_result_end_row (result, &limits, &error));

  assay_query_result_append_text (result, 0, "-9223372036854775808", -1);
  assay_query_result_append_text (result, 1, "1970-01-01 00:00:00+00", -1);
  assay_query_result_append_text (result, 2, "1970-01-02", -1);
  assay_query_result_append_text (result, 3, "", 0);
  assay_query_result_append_text (result, 4, "text wins", -1);
  g_assert_true (assay_query_result_end_row (result, &limits, &error));

  /* A fourth row would pass the row cap. */
  {
    g_autoptr(AssayQueryResult) capped = assay_query_result_new ();

    assay_query_result_add_column (capped, "n", ASSAY_COLUMN_INT64, "integer");
    for (int i = 0; i < 3; i++)
      {
        assay_query_result_append_int (capped, 0, i);
        g_assert_true (assay_query_result_end_row (capped, &limits, &error));
      }
    assay_query_result_append_int (capped, 0, 3);
    g_assert_false (assay_query_result_end_row (capped, &limits, &error));
    g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TOO_LARGE);
    g_assert_nonnull (strstr (error->message, "more than 3 rows"));
    g_clear_error (&error);
  }

  assay_query_result_finish (result);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 4), ==, ASSAY_COLUMN_TEXT);
  {
    g_autofree char *a = assay_query_result_dup_text (result, 4, 0);
    g_autofree char *b = assay_query_result_dup_text (result, 4, 1);
    g_autofree char *ts = assay_query_result_dup_text (result, 1, 0);

    g_assert_cmpstr (a, ==, "7");
    g_assert_cmpstr (b, ==, "0.1");
    /* +02 is read as an offset: UTC in the result. */
    g_assert_cmpstr (ts, ==, "2024-03-31 21:59:59+00:00");
  }
  g_assert_cmpuint (assay_query_result_get_n_nulls (result, 1), ==, 1);
  g_assert_cmpuint (assay_query_result_get_n_lost (result, 1), ==, 1);
  g_assert_cmpuint (assay_query_result_get_n_lost (result, 2), ==, 1);
  {
    g_autofree char *described = assay_query_result_describe_columns (result);

    g_assert_nonnull (strstr (described, "- n: Int64 (integer), 1 NULL"));
    g_assert_nonnull (strstr (described, "- when: datetime64[ns, UTC] (timestamptz), 1 value pandas cannot hold"));
  }

  g_assert_true (assay_query_result_write (result, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_cmpmem (contents, 8, "ASSAYQR1", 8);
  memcpy (&header_length, contents + 8, 8);
  header_length = GUINT64_FROM_LE (header_length);
  g_assert_cmpuint ((16 + header_length) % 8, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, contents + 16, (gssize) header_length, &error));
  columns = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "columns");
  g_assert_cmpuint (json_array_get_length (columns), ==, 5);
  {
    JsonObject *n = json_array_get_object_element (columns, 0);
    JsonArray *values = json_object_get_array_member (n, "values");
    gint64 offset = json_array_get_int_element (values, 0);
    gint64 first, third;

    g_assert_cmpstr (json_object_get_string_member (n, "kind"), ==, "int64");
    g_assert_cmpint (json_array_get_int_element (values, 1), ==, 24);
    memcpy (&first, contents + 16 + header_length + offset, 8);
    memcpy (&third, contents + 16 + header_length + offset + 16, 8);
    g_assert_cmpint (GINT64_FROM_LE (first), ==, 42);
    g_assert_cmpint (GINT64_FROM_LE (third), ==, G_MININT64);
    g_assert_false (JSON_NODE_HOLDS_NULL (json_object_get_member (n, "valid")));
  }
  {
    /* Text as NUL-separated UTF-8. */
    JsonObject *note = json_array_get_object_element (columns, 3);
    JsonArray *data = json_object_get_array_member (note, "data");
    const char *text = contents + 16 + header_length + json_array_get_int_element (data, 0);

    g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (note, "offsets")));
    g_assert_cmpint (json_array_get_int_element (data, 1), ==, strlen ("two\nlines, Привет") + 3);
    g_assert_cmpstr (text, ==, "two\nlines, Привет");
  }
  g_unlink (path);
}

static void
test_result_auto (void)
{
  g_autoptr(AssayQueryResult) result = assay_query_result_new ();

  assay_query_result_add_column (result, "ints", ASSAY_COLUMN_AUTO, "INTEGER");
  assay_query_result_add_column (result, "numbers", ASSAY_COLUMN_AUTO, "");
  assay_query_result_add_column (result, "flags", ASSAY_COLUMN_AUTO, "BOOLEAN");
  assay_query_result_set_column_hint (result, 2, ASSAY_COLUMN_HINT_BOOL);
  assay_query_result_add_column (result, "days", ASSAY_COLUMN_AUTO, "DATE");
  assay_query_result_set_column_hint (result, 3, ASSAY_COLUMN_HINT_DATE);
  assay_query_result_add_column (result, "blobs", ASSAY_COLUMN_AUTO, "BLOB");
  assay_query_result_add_column (result, "tinyint", ASSAY_COLUMN_INT64, "tinyint(1)");
  assay_query_result_set_maybe_bool (result, 5);
  for (int i = 0; i < 4; i++)
    {
      if (i == 2)
        assay_query_result_append_null (result, 0);
      else
        assay_query_result_append_int (result, 0, i);
      if (i == 1)
        assay_query_result_append_double (result, 1, 2.5);
      else
        assay_query_result_append_int (result, 1, i);
      assay_query_result_append_int (result, 2, i % 2);
      assay_query_result_append_text (result, 3, i == 3 ? "2024-01-31" : "1999-12-31", -1);
      assay_query_result_append_bytes (result, 4, "\0\1", 2);
      assay_query_result_append_int (result, 5, i % 2);
      g_assert_true (assay_query_result_end_row (result, NULL, NULL));
    }
  assay_query_result_finish (result);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 0), ==, ASSAY_COLUMN_INT64);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 1), ==, ASSAY_COLUMN_FLOAT64);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 2), ==, ASSAY_COLUMN_BOOL);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 3), ==, ASSAY_COLUMN_DATE);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 4), ==, ASSAY_COLUMN_BYTES);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 5), ==, ASSAY_COLUMN_BOOL);
  g_assert_cmpuint (assay_query_result_get_n_nulls (result, 0), ==, 1);
}

static AssaySourceSchema *
make_schema (void)
{
  AssaySourceSchema *schema = assay_source_schema_new ();
  AssaySourceTable *customers = assay_source_table_new ("public", "customers", "customers");
  AssaySourceTable *orders = assay_source_table_new ("public", "orders", "orders");
  AssaySourceColumn *column;
  AssaySourceForeignKey *key;

  schema->server = g_strdup ("PostgreSQL 15.4");
  customers->rows = 1200;
  customers->comment = g_strdup ("People who bought something");
  column = assay_source_column_new ("id", "integer");
  column->primary_key = TRUE;
  g_ptr_array_add (column->samples, g_strdup ("1"));
  g_ptr_array_add (customers->columns, column);
  column = assay_source_column_new ("email", "text");
  column->comment = g_strdup ("private");
  g_ptr_array_add (column->samples, g_strdup ("anna@example.com"));
  g_ptr_array_add (column->samples, g_strdup ("boris@example.com"));
  g_ptr_array_add (customers->columns, column);
  g_ptr_array_add (schema->tables, customers);
  orders->rows = 1000000;
  column = assay_source_column_new ("customer_id", "integer");
  column->not_null = TRUE;
  g_ptr_array_add (column->samples, g_strdup ("17"));
  g_ptr_array_add (orders->columns, column);
  key = assay_source_foreign_key_new ("customers");
  g_ptr_array_add (key->columns, g_strdup ("customer_id"));
  g_ptr_array_add (key->ref_columns, g_strdup ("id"));
  g_ptr_array_add (orders->foreign_keys, key);
  g_ptr_array_add (schema->tables, orders);
  {
    AssaySourceTable *events = assay_source_table_new ("public", "events", "events");

    for (guint i = 0; i < 20; i++)
      {
        g_autofree char *name = g_strdup_printf ("measure_%02u", i);

        g_ptr_array_add (events->columns, assay_source_column_new (name, "double precision"));
      }
    g_ptr_array_add (schema->tables, events);
  }
  return schema;
}

static void
test_schema_describe (void)
{
  g_autoptr(AssaySourceSchema) schema = make_schema ();
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint emails = assay_masker_add_column (masker, "shop.customers", "email");
  g_autofree char *full = NULL, *masked = NULL, *schema_only = NULL, *small = NULL;

  assay_masker_add_value (masker, emails, "anna@example.com", 16);
  assay_masker_add_value (masker, emails, "boris@example.com", 17);
  full = assay_source_schema_describe (schema, "shop", ASSAY_SOURCE_POSTGRESQL, NULL, FALSE, 100000);
  g_assert_nonnull (strstr (full, "Database \"shop\" (PostgreSQL 15.4)"));
  g_assert_nonnull (strstr (full, "- customers (table, about 1,200 rows): People who bought something"));
  g_assert_nonnull (strstr (full, "  - id integer, primary key — e.g. 1"));
  g_assert_nonnull (strstr (full, "'anna@example.com', 'boris@example.com'"));
  g_assert_nonnull (strstr (full, "customer_id integer, not null → customers(id)"));
  g_assert_nonnull (strstr (full, "about 1,000,000 rows"));

  masked = assay_source_schema_describe (schema, "shop", ASSAY_SOURCE_POSTGRESQL, masker, FALSE, 100000);
  g_assert_null (strstr (masked, "anna@example.com"));
  g_assert_nonnull (strstr (masked, "masked, e.g. ⟨email 1⟩, ⟨email 2⟩"));

  schema_only = assay_source_schema_describe (schema, "shop", ASSAY_SOURCE_POSTGRESQL, NULL, TRUE, 100000);
  g_assert_null (strstr (schema_only, "e.g."));
  g_assert_nonnull (strstr (schema_only, "private"));

  /* Within the budget: samples go first, then comments, then tables from the end. */
  small = assay_source_schema_describe (schema, "shop", ASSAY_SOURCE_POSTGRESQL, NULL, FALSE, strlen (full) - 20);
  g_assert_null (strstr (small, "e.g."));
  g_assert_cmpuint (strlen (small), <=, strlen (full) - 20);
  /* Every budget is kept; tables are cut from the end, and the cut is said. */
  {
    g_autofree char *least = assay_source_schema_describe (schema, "shop", ASSAY_SOURCE_POSTGRESQL, NULL, FALSE, 0);
    gboolean cut_one = FALSE;

    /* Below that, only the header and the note are left. */
    g_assert_nonnull (strstr (least, "3 more tables or views not described"));
    for (gsize budget = strlen (least); budget <= 1200; budget += 4)
      {
        g_autofree char *text = assay_source_schema_describe (schema, "shop", ASSAY_SOURCE_POSTGRESQL, NULL,
                                                              FALSE, budget);

        g_assert_cmpuint (strlen (text), <=, budget);
        if (strstr (text, "- orders") != NULL && strstr (text, "- events") == NULL)
          {
            g_assert_nonnull (strstr (text, "1 more table or view not described"));
            cut_one = TRUE;
          }
        else if (strstr (text, "- events") != NULL)
          g_assert_null (strstr (text, "not described"));
      }
    g_assert_true (cut_one);
  }
}

/* ---- an SQLite file for real ------------------------------------------------------------- */

static char *
make_sqlite (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-test-sqlite-XXXXXX", NULL);
  char *path = g_build_filename (dir, "shop.db", NULL);
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
                                 "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),"
                                 " placed DATE, paid BOOLEAN, total REAL);"
                                 "INSERT INTO customers VALUES (1, 'Anna'), (2, 'Борис');"
                                 "INSERT INTO orders VALUES (1, 1, '2024-01-02', 1, 9.5), (2, 2, '2024-01-03', 0, 20),"
                                 " (3, 1, NULL, NULL, NULL);",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  return path;
}

static void
remove_sqlite (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
queried_cb (GObject      *source,
            GAsyncResult *res,
            gpointer      data)
{
  GError **error = data;
  AssayQueryResult *result = assay_source_query_finish (ASSAY_SOURCE (source), res, error);

  g_assert_null (result);
}

static void
test_sqlite_source (void)
{
  g_autofree char *path = make_sqlite ();
  g_autofree char *url = g_strconcat ("sqlite://", path, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySource) source = assay_source_new ("shop", url, &error);
  g_autoptr(AssayQueryResult) result = NULL;
  g_autoptr(AssaySourceSchema) schema = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *description = NULL;
  AssayQueryLimits limits;
  gint64 started;
  sqlite3 *db;

  g_assert_no_error (error);
  g_assert_true (assay_source_open_sync (source, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (assay_source_get_server (source), "SQLite 3."));

  result = assay_source_query_sync (source,
                                    "SELECT o.id, c.name, o.placed, o.paid, o.total FROM orders o "
                                    "JOIN customers c ON c.id = o.customer_id ORDER BY o.id;",
                                    NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_query_result_get_n_rows (result), ==, 3);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 0), ==, ASSAY_COLUMN_INT64);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 1), ==, ASSAY_COLUMN_TEXT);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 2), ==, ASSAY_COLUMN_DATE);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 3), ==, ASSAY_COLUMN_BOOL);
  g_assert_cmpint (assay_query_result_get_column_kind (result, 4), ==, ASSAY_COLUMN_FLOAT64);
  {
    g_autofree char *name = assay_query_result_dup_text (result, 1, 1);

    g_assert_cmpstr (name, ==, "Борис");
  }

  /* What passes the check but writes is still refused (the file is read-only, query_only
   * and the authorizer). */
  g_assert_null (assay_source_query_sync (source, "DELETE FROM orders", NULL, &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED);
  g_clear_error (&error);
  g_assert_null (assay_source_query_sync (source, "SELECT * FROM missing", NULL, &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_SERVER);
  g_assert_nonnull (strstr (error->message, "no such table: missing"));
  g_clear_error (&error);

  schema = assay_source_describe_sync (source, 3, NULL, &error);
  g_assert_no_error (error);
  description = assay_source_schema_describe (schema, "shop", ASSAY_SOURCE_SQLITE, NULL, FALSE, 10000);
  g_assert_nonnull (strstr (description, "- customers (table, 2 rows)"));
  g_assert_nonnull (strstr (description, "customer_id INTEGER → customers(id)"));
  g_assert_nonnull (strstr (description, "'Борис'"));

  /* The timeout: an endless recursive query stopped by the progress handler. */
  assay_query_limits_init (&limits);
  limits.timeout_ms = 300;
  assay_source_set_limits (source, &limits);
  started = g_get_monotonic_time ();
  g_assert_null (assay_source_query_sync (source,
                                          "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                                          "SELECT count(*) FROM c", NULL, &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TIMEOUT);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 10 * G_USEC_PER_SEC);
  g_clear_error (&error);

  /* Stop from the main thread while the worker runs the query. */
  limits.timeout_ms = 60000;
  assay_source_set_limits (source, &limits);
  started = g_get_monotonic_time ();
  assay_source_query_async (source, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                                    "SELECT count(*) FROM c", cancellable, queried_cb, &error);
  g_timeout_add (200, cancel_cb, cancellable);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 10 * G_USEC_PER_SEC);
  g_clear_error (&error);
  assay_source_close (source);

  /* Nothing changed in the file. */
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  {
    sqlite3_stmt *stmt = NULL;

    g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT count(*) FROM orders", -1, &stmt, NULL), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
    g_assert_cmpint (sqlite3_column_int (stmt, 0), ==, 3);
    sqlite3_finalize (stmt);
  }
  sqlite3_close (db);
  remove_sqlite (path);
}

static void
test_connect_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySource) missing = assay_source_new ("shop", "sqlite:///nonexistent/shop.db", &error);
  g_autoptr(AssaySource) refused = NULL;
  guint16 port;

  g_assert_no_error (error);
  g_assert_false (assay_source_open_sync (missing, NULL, &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_CONNECT);
  g_clear_error (&error);

  /* A port nobody listens on (taken from the kernel, then let go). */
  {
    g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
    g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr(GSocketAddress) bound = NULL;

    g_assert_true (g_socket_bind (socket, any, TRUE, NULL));
    bound = g_socket_get_local_address (socket, NULL);
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    g_socket_close (socket, NULL);
  }
  {
    g_autofree char *url = g_strdup_printf ("postgresql://reader:Secret-XYZ@127.0.0.1:%u/shop", port);

    refused = assay_source_new ("shop", url, &error);
  }
  g_assert_no_error (error);
  g_assert_null (strstr (assay_source_get_display_url (refused), "Secret-XYZ"));
  g_assert_false (assay_source_open_sync (refused, NULL, &error));
  g_assert_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_CONNECT);
  g_assert_nonnull (strstr (error->message, "Cannot connect to the database shop"));
  g_assert_nonnull (strstr (error->message, "refused"));
  g_assert_null (strstr (error->message, "Secret-XYZ"));
  g_assert_null (strchr (error->message, '\n'));
}

/* A SQL cell and a connection in the record: kept, read back, and an old record's cells, which
 * have no kind, still read as Python. The password never reaches the record. */
static void
test_record (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-test-record-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (parent, "s", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(AssaySessionCell) old = NULL;
  g_autoptr(JsonNode) old_node = NULL;
  g_autofree char *record = NULL;
  g_autofree char *record_path = NULL;
  const char *tables[] = { "orders", "customers", NULL };
  AssaySessionCell *cell;
  const AssaySessionSource *source;

  g_assert_no_error (error);
  assay_session_add_source (session, "shop", "postgresql", "postgresql://reader:Hunter2-secret@db/shop?sslmode=require",
                            tables, "Database \"shop\"");
  cell = assay_session_add_cell (session, assay_session_cell_new ("c1", 1, "call_1", "revenue", "SELECT 1"));
  cell->kind = ASSAY_CELL_KIND_SQL;
  cell->query = assay_session_query_new ("shop", "by_city");
  cell->query->rows = 5;
  cell->query->query_ms = 12;
  cell->query->result = g_strdup ("queries/c1.aqr");
  {
    JsonObject *column = json_object_new ();

    json_object_set_string_member (column, "name", "city");
    json_array_add_object_element (cell->query->columns, column);
  }
  cell->code = g_strdup ("SELECT 1");
  cell->status = ASSAY_CELL_OK;
  assay_session_finish_step (session);
  g_assert_true (assay_session_save (session, &error));

  record_path = g_build_filename (dir, "session.json", NULL);
  g_assert_true (g_file_get_contents (record_path, &record, NULL, &error));
  g_assert_null (strstr (record, "Hunter2-secret"));
  g_assert_nonnull (strstr (record, "postgresql://reader@db/shop?sslmode=require"));

  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_session_get_sources (loaded)->len, ==, 1);
  source = g_ptr_array_index (assay_session_get_sources (loaded), 0);
  g_assert_cmpstr (source->name, ==, "shop");
  g_assert_cmpstr (source->kind, ==, "postgresql");
  g_assert_cmpstr (source->tables[1], ==, "customers");
  cell = assay_session_get_cell (loaded, 0);
  g_assert_cmpint (cell->kind, ==, ASSAY_CELL_KIND_SQL);
  g_assert_cmpstr (cell->query->frame, ==, "by_city");
  g_assert_cmpint (cell->query->rows, ==, 5);
  g_assert_cmpstr (cell->query->result, ==, "queries/c1.aqr");
  g_assert_cmpuint (json_array_get_length (cell->query->columns), ==, 1);
  g_assert_true (assay_session_cell_succeeded (cell));

  old_node = json_from_string ("{\"id\": \"c7\", \"step\": 2, \"code\": \"print(1)\", \"status\": \"ok\"}", &error);
  g_assert_no_error (error);
  old = assay_session_cell_from_json (old_node);
  g_assert_cmpint (old->kind, ==, ASSAY_CELL_KIND_PYTHON);
  g_assert_null (old->query);

  g_assert_true (assay_session_delete (dir, &error));
  g_rmdir (parent);
}

/* A database the analyst removes leaves the record; its cells stay. */
static void
test_record_remove (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-test-record-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (parent, "s", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssaySession) loaded = NULL;
  AssaySessionCell *cell;

  g_assert_no_error (error);
  assay_session_add_source (session, "shop", "postgresql", "postgresql://reader@db/shop", NULL, NULL);
  assay_session_add_source (session, "local", "sqlite", "sqlite:///tmp/local.db", NULL, NULL);
  cell = assay_session_add_cell (session, assay_session_cell_new ("c1", 1, "call_1", "revenue", "SELECT 1"));
  cell->kind = ASSAY_CELL_KIND_SQL;
  cell->query = assay_session_query_new ("shop", "by_city");
  assay_session_finish_step (session);

  g_assert_true (assay_session_remove_source (session, "shop"));
  g_assert_false (assay_session_remove_source (session, "shop"));
  g_assert_false (assay_session_remove_source (session, "elsewhere"));
  g_assert_true (assay_session_save (session, &error));
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_session_get_sources (loaded)->len, ==, 1);
  g_assert_cmpstr (((const AssaySessionSource *) g_ptr_array_index (assay_session_get_sources (loaded), 0))->name,
                   ==, "local");
  g_assert_cmpuint (assay_session_get_n_cells (loaded), ==, 1);
  g_assert_cmpstr (assay_session_get_cell (loaded, 0)->query->database, ==, "shop");

  g_assert_true (assay_session_delete (dir, &error));
  g_rmdir (parent);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/sources/check/accepts-queries", test_check_accepts_queries);
  g_test_add_func ("/assay/sources/check/refuses-writes", test_check_refuses_writes);
  g_test_add_func ("/assay/sources/unmask-sql", test_unmask_sql);
  g_test_add_func ("/assay/sources/url", test_url);
  g_test_add_func ("/assay/sources/result/kinds", test_result_kinds);
  g_test_add_func ("/assay/sources/result/auto", test_result_auto);
  g_test_add_func ("/assay/sources/schema/describe", test_schema_describe);
  g_test_add_func ("/assay/sources/sqlite", test_sqlite_source);
  g_test_add_func ("/assay/sources/connect-errors", test_connect_errors);
  g_test_add_func ("/assay/sources/record", test_record);
  g_test_add_func ("/assay/sources/record/remove", test_record_remove);
  return g_test_run ();
}
