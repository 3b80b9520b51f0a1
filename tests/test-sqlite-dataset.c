/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SQLite files as datasets: told by their header, described by their schema within the
 * budget, masked like a connection's columns, refused in plain words when they are not
 * databases, and copied into a session with the backup API (a WAL file with a writer holding
 * it open included). */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "assay-dataset.h"
#include "assay-masker.h"
#include "assay-rerun.h"
#include "assay-session.h"
#include "assay-source-schema.h"
#include "assay-sqlite-file.h"

static char *tmpdir;

static void
exec_ok (sqlite3    *db,
         const char *sql)
{
  char *message = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

static sqlite3 *
open_db (const char *path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  return db;
}

/* customers ← orders, a view, an email column to mask. */
static char *
make_shop (const char *name)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  sqlite3 *db;

  g_unlink (path);
  db = open_db (path);
  exec_ok (db, "CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL, city TEXT);"
               "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), "
               "  amount NUMERIC(10,2), placed DATE);"
               "CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 100;"
               "INSERT INTO customers VALUES (1, 'alice@example.com', 'Oslo'), (2, 'bob@example.com', 'Riga'),"
               "  (3, 'carol@example.com', 'Oslo');"
               "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) "
               "INSERT INTO orders SELECT i, 1 + i % 3, i * 7.5, '2024-01-' || printf('%02d', 1 + i % 28) FROM n;");
  sqlite3_close (db);
  return path;
}

static void
test_header (void)
{
  g_autofree char *shop = make_shop ("header.sqlite");
  g_autofree char *text = g_build_filename (tmpdir, "looks.db", NULL);
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_sqlite_file_has_header ("SQLite format 3\0rest", 20));
  g_assert_false (assay_sqlite_file_has_header ("SQLite format 3", 15));
  g_assert_false (assay_sqlite_file_has_header ("SQLite format 3!xxxx", 20));
  g_assert_true (assay_sqlite_file_is_database (shop));

  /* A CSV named like a database is still a CSV: the name decides nothing. */
  g_assert_true (g_file_set_contents (text, "a,b\n1,2\n3,4\n", -1, NULL));
  g_assert_false (assay_sqlite_file_is_database (text));
  dataset = assay_dataset_open (text, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (assay_dataset_is_database (dataset));
  g_assert_cmpuint (assay_dataset_get_n_columns (dataset), ==, 2);
  g_clear_object (&dataset);

  /* A database named like a CSV is a database. */
  {
    g_autofree char *renamed = g_build_filename (tmpdir, "shop.csv", NULL);

    g_assert_cmpint (g_rename (shop, renamed), ==, 0);
    dataset = assay_dataset_open (renamed, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (assay_dataset_is_database (dataset));
  }
}

static void
test_schema (void)
{
  g_autofree char *shop = make_shop ("shop.db");
  g_autoptr(AssayDataset) dataset = assay_dataset_open (shop, NULL, NULL);
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonObject) column = NULL;
  g_autofree char *summary = NULL;
  JsonArray *tables;
  const char * const *names;

  g_assert_nonnull (dataset);
  g_assert_true (assay_dataset_is_database (dataset));
  g_assert_false (assay_dataset_is_workbook (dataset));
  g_assert_null (assay_dataset_get_dialect (dataset));
  g_assert_cmpuint (assay_dataset_get_n_rows (dataset), ==, 53);
  names = assay_dataset_get_column_names (dataset);
  g_assert_true (g_strv_contains (names, "orders.amount"));
  g_assert_true (g_strv_contains (names, "customers.email"));
  g_assert_true (g_strv_contains (names, "big_orders.placed"));
  g_assert_cmpint (assay_dataset_find_table_column (dataset, "orders", "customer_id"), >=, 0);
  column = assay_dataset_get_column_json (dataset, (guint) assay_dataset_find_column (dataset, "orders.amount"));
  g_assert_cmpstr (json_object_get_string_member (column, "type"), ==, "numeric(10,2)");

  json = assay_dataset_to_json (dataset);
  g_assert_cmpstr (json_object_get_string_member (json, "format"), ==, "sqlite");
  tables = json_object_get_array_member (json, "tables");
  g_assert_cmpuint (json_array_get_length (tables), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json, "connect"), ==,
                   "sqlite3.connect('file:/data/shop.db?mode=ro&immutable=1', uri=True)");
  g_assert_cmpstr (json_object_get_string_member (json, "read_sql"), ==, "pd.read_sql('SELECT * FROM \"customers\"', con)");

  summary = assay_dataset_describe_for_model (dataset, 4000);
  g_test_message ("%s", summary);
  g_assert_nonnull (strstr (summary, "file:/data/shop.db?mode=ro&immutable=1"));
  g_assert_nonnull (strstr (summary, "pd.read_sql("));
  g_assert_nonnull (strstr (summary, "orders (table, 50 rows)"));
  g_assert_nonnull (strstr (summary, "big_orders (view"));
  g_assert_nonnull (strstr (summary, "id INTEGER, primary key"));
  g_assert_nonnull (strstr (summary, "customer_id INTEGER → customers(id)"));
  g_assert_nonnull (strstr (summary, "alice@example.com"));
  g_assert_null (strstr (summary, "run_sql"));

  /* Schema only: names, types, keys, rows; never a value. */
  {
    g_autofree char *schema = assay_dataset_describe_schema_for_prompt (dataset, NULL, 1);

    g_assert_nonnull (strstr (schema, "email TEXT"));
    g_assert_nonnull (strstr (schema, "(table, 3 rows)"));
    g_assert_null (strstr (schema, "alice"));
    g_assert_null (strstr (schema, "Oslo"));
  }
}

static void
test_budget (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "wide.db", NULL);
  g_autoptr(AssayDataset) dataset = NULL;
  sqlite3 *db = open_db (path);

  exec_ok (db, "BEGIN");
  for (guint t = 0; t < 120; t++)
    {
      g_autofree char *sql = g_strdup_printf ("CREATE TABLE measurements_%03u (id INTEGER PRIMARY KEY, station TEXT, "
                                              "reading REAL, taken TIMESTAMP, note TEXT);"
                                              "INSERT INTO measurements_%03u VALUES (1, 'station-%u', 1.5, "
                                              "'2024-03-01 10:00:00', 'a fairly long note about the reading');",
                                              t, t, t);
      exec_ok (db, sql);
    }
  exec_ok (db, "COMMIT");
  sqlite3_close (db);

  dataset = assay_dataset_open (path, NULL, NULL);
  g_assert_nonnull (dataset);
  for (gsize budget = 600; budget <= 12000; budget *= 2)
    {
      g_autofree char *summary = assay_dataset_describe_for_model (dataset, budget);

      g_assert_cmpuint (strlen (summary), <=, budget);
      /* How to open it always comes first, whatever the budget. */
      g_assert_nonnull (strstr (summary, "immutable=1"));
      g_assert_true (g_str_has_prefix (summary, "File wide.db: an SQLite database, at /data/wide.db"));
    }
  {
    g_autofree char *summary = assay_dataset_describe_for_model (dataset, 3000);

    g_assert_nonnull (strstr (summary, "more table"));
  }
}

static void
test_masking (void)
{
  g_autofree char *shop = make_shop ("masked.db");
  g_autoptr(AssayDataset) dataset = assay_dataset_open (shop, NULL, NULL);
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *masked = NULL;

  g_assert_nonnull (dataset);
  /* As a connection's: "DATABASE.TABLE", then the column. */
  g_assert_true (assay_masker_add_dataset_column (masker, "masked.db.customers", dataset, "email", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (assay_masker_get_n_values (masker), ==, 3);
  g_assert_false (assay_masker_add_dataset_column (masker, "masked.db.nothing", dataset, "email", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (assay_masker_add_dataset_column (masker, "masked.db.customers", dataset, "phone", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  /* What the agent sends: the summary, masked. */
  summary = assay_dataset_describe_for_model (dataset, 4000);
  g_assert_nonnull (strstr (summary, "bob@example.com"));
  masked = assay_masker_mask (masker, summary);
  g_assert_null (strstr (masked, "@example.com"));
  g_assert_nonnull (strstr (masked, "⟨email"));
  g_assert_nonnull (strstr (masked, "Oslo"));

  /* The schema's own description marks them masked when given the masker. */
  {
    g_autofree char *text = assay_source_schema_describe_file (assay_dataset_get_schema (dataset), "masked.db", "Its ",
                                                               masker, FALSE, 4000);

    g_assert_nonnull (strstr (text, "email TEXT, not null — masked, e.g. ⟨email"));
    g_assert_null (strstr (text, "@example.com"));
  }
}

static void
expect_refused (const char *name,
                const char *contents,
                gssize      length,
                const char *words)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, length, NULL));
  dataset = assay_dataset_open (path, NULL, &error);
  g_assert_null (dataset);
  g_assert_nonnull (error);
  g_test_message ("%s: %s", name, error->message);
  g_assert_nonnull (strstr (error->message, words));
  g_assert_nonnull (strstr (error->message, name));
}

static void
test_bad_files (void)
{
  g_autofree char *shop = make_shop ("whole.db");
  g_autofree char *contents = NULL;
  gsize length;
  char random[4096];

  g_assert_true (g_file_get_contents (shop, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 4096);

  expect_refused ("empty.db", "", 0, "empty");
  for (gsize i = 0; i < sizeof random; i++)
    random[i] = (char) g_test_rand_int_range (0, 256);
  random[0] = 'x';
  expect_refused ("secret.db", random, sizeof random, "encrypted");
  expect_refused ("header.db", contents, 60, "cut short");
  expect_refused ("half.db", contents, (gssize) length / 2, "cut short");
  /* The header is whole, the pages behind it are noise. */
  memcpy (random, contents, 100);
  random[28] = random[29] = random[30] = random[31] = 0;
  expect_refused ("noise.db", random, sizeof random, "damaged");
}

/* A WAL database with committed rows still in its WAL and a writer holding an open
 * transaction: the session's copy has every committed row, none of the open transaction's,
 * is a rollback-journal file on its own, and is hashed as added. */
static void
test_backup_wal (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "live.db", NULL);
  g_autofree char *session_dir = g_build_filename (tmpdir, "session-wal", NULL);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(GError) error = NULL;
  const AssaySessionDataset *added;
  g_autofree char *copy = NULL;
  g_autofree char *copy_wal = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *sha = NULL;
  gsize length;
  sqlite3 *writer = open_db (path);
  sqlite3 *check;
  sqlite3_stmt *stmt;
  GStatBuf st;

  exec_ok (writer, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
                   "CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
                   "INSERT INTO events SELECT i, 'committed ' || i FROM n;");
  /* The committed rows are in the WAL only: the main file alone would lack them. */
  g_assert_cmpint (g_stat (wal, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 0);
  exec_ok (writer, "BEGIN; INSERT INTO events VALUES (9999999, 'not committed');");

  session = assay_session_new (session_dir, &error);
  g_assert_no_error (error);
  added = assay_session_add_dataset (session, path, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (added);
  exec_ok (writer, "ROLLBACK");
  sqlite3_close (writer);

  copy = assay_session_resolve (session, added->path);
  copy_wal = g_strconcat (copy, "-wal", NULL);
  g_assert_false (g_file_test (copy_wal, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (copy, &bytes, &length, NULL));
  g_assert_true (assay_sqlite_file_has_header (bytes, length));
  /* Bytes 18 and 19: 1 is a rollback journal, 2 is WAL. */
  g_assert_cmpint (bytes[18], ==, 1);
  g_assert_cmpint (bytes[19], ==, 1);
  sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) bytes, length);
  g_assert_cmpstr (added->sha256, ==, sha);
  g_assert_cmpint (added->bytes, ==, (gint64) length);

  g_assert_cmpint (sqlite3_open_v2 (copy, &check, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (check, "SELECT count(*), max(id) FROM events", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int (stmt, 0), ==, 5000);
  g_assert_cmpint (sqlite3_column_int (stmt, 1), ==, 5000);
  sqlite3_finalize (stmt);
  sqlite3_close (check);

  /* The copy reads as a dataset too. */
  {
    g_autoptr(AssayDataset) dataset = assay_dataset_open (copy, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (assay_dataset_get_n_rows (dataset), ==, 5000);
  }
}

static void
test_backup_refuses (void)
{
  g_autofree char *shop = make_shop ("cut.db");
  g_autofree char *contents = NULL;
  g_autofree char *target = g_build_filename (tmpdir, "cut-copy.db", NULL);
  g_autoptr(GError) error = NULL;
  gsize length;

  /* A file SQLite cannot read is refused by the copy, in words, and leaves nothing. */
  g_assert_true (g_file_get_contents (shop, &contents, &length, NULL));
  memset (contents + 100, 0xA5, length - 100);
  g_assert_true (g_file_set_contents (shop, contents, length, NULL));
  g_assert_true (g_file_set_contents (target, "", 0, NULL));
  if (assay_sqlite_file_backup (shop, target, NULL, &error))
    {
      /* SQLite copies pages without reading them: the damage shows when they are read. */
      g_autoptr(AssayDataset) dataset = assay_dataset_open (target, NULL, &error);

      g_assert_null (dataset);
    }
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
}

static void
test_rerun_compare (void)
{
  g_autofree char *before = make_shop ("before.db");
  g_autofree char *after = make_shop ("after.db");
  AssayRerunDataset *compared;
  g_autoptr(GError) error = NULL;
  sqlite3 *db = open_db (after);

  exec_ok (db, "ALTER TABLE customers DROP COLUMN city; ALTER TABLE customers ADD COLUMN country TEXT;"
               "DROP VIEW big_orders; ALTER TABLE orders DROP COLUMN placed; ALTER TABLE orders ADD COLUMN placed TEXT;");
  sqlite3_close (db);

  compared = assay_rerun_compare ("shop.db", before, after, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compared);
  g_assert_false (assay_rerun_dataset_matches (compared));
  {
    gboolean city = FALSE, view = FALSE, country = FALSE, placed = FALSE;

    for (guint i = 0; i < compared->missing->len; i++)
      {
        city |= g_str_equal (g_ptr_array_index (compared->missing, i), "customers.city");
        view |= g_str_equal (g_ptr_array_index (compared->missing, i), "big_orders.amount");
      }
    for (guint i = 0; i < compared->added->len; i++)
      country |= g_str_equal (g_ptr_array_index (compared->added, i), "customers.country");
    for (guint i = 0; i < compared->retyped->len; i++)
      placed |= g_str_has_prefix (g_ptr_array_index (compared->retyped, i), "orders.placed: date → text");
    g_assert_true (city);
    g_assert_true (view);
    g_assert_true (country);
    g_assert_true (placed);
  }
  assay_rerun_dataset_free (compared);

  compared = assay_rerun_compare ("shop.db", before, before, &error);
  g_assert_no_error (error);
  g_assert_true (assay_rerun_dataset_matches (compared));
  assay_rerun_dataset_free (compared);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("assay-sqlite-dataset-XXXXXX", NULL);

  g_test_add_func ("/sqlite-dataset/header", test_header);
  g_test_add_func ("/sqlite-dataset/schema", test_schema);
  g_test_add_func ("/sqlite-dataset/budget", test_budget);
  g_test_add_func ("/sqlite-dataset/masking", test_masking);
  g_test_add_func ("/sqlite-dataset/bad-files", test_bad_files);
  g_test_add_func ("/sqlite-dataset/backup-wal", test_backup_wal);
  g_test_add_func ("/sqlite-dataset/backup-refuses", test_backup_refuses);
  g_test_add_func ("/sqlite-dataset/rerun-compare", test_rerun_compare);
  status = g_test_run ();

  {
    g_autofree char *command = g_strdup_printf ("rm -rf '%s'", tmpdir);

    if (system (command) != 0)
      g_warning ("could not remove %s", tmpdir);
  }
  return status;
}
