/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "assay-csv-index.h"
#include "assay-dataset.h"
#include "assay-session.h"

static char *tmpdir;

static char *
write_file (const char *name,
            const char *contents,
            gssize      len)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  return path;
}

/* ROWS rows of "i,"text i",i*0.5"; every 1000th text has a quoted line break, and row
 * LONG_ROW (when not 0) has a field too many. */
static char *
write_rows (const char *name,
            guint       rows,
            guint       long_row)
{
  GString *s = g_string_new ("n,text,half\n");
  g_autofree char *contents = NULL;
  gsize len;

  for (guint i = 0; i < rows; i++)
    g_string_append_printf (s, "%u,\"%s %u\",%.1f%s\n", i, i % 1000 == 0 ? "two\nlines" : "t", i, i * 0.5,
                            long_row != 0 && i == long_row ? ",extra" : "");
  len = s->len;
  contents = g_string_free (s, FALSE);
  return write_file (name, contents, len);
}

static void
index_built (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_csv_index_build_finish (ASSAY_CSV_INDEX (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static void
test_index_incremental (void)
{
  g_autofree char *path = write_rows ("index.csv", 300000, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) index = assay_csv_index_new (path, &error);
  gboolean done = FALSE;
  guint checks = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (assay_csv_index_get_n_columns (index), ==, 3);
  g_assert_cmpstr (assay_csv_index_get_column_names (index)[1], ==, "text");
  g_assert_null (assay_csv_index_get_row (index, 0));  /* not indexed yet */

  assay_csv_index_build_async (index, NULL, index_built, &done);
  while (!done)
    {
      guint64 n = assay_csv_index_get_n_rows_indexed (index);

      /* Rows already indexed can be read while the rest is indexed. */
      if (n > 0)
        {
          g_auto(GStrv) row = assay_csv_index_get_row (index, n - 1);
          g_autofree char *want = g_strdup_printf ("%" G_GUINT64_FORMAT, n - 1);

          g_assert_nonnull (row);
          g_assert_cmpstr (row[0], ==, want);
          checks++;
        }
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_true (assay_csv_index_is_complete (index));
  g_assert_cmpuint (assay_csv_index_get_n_rows_indexed (index), ==, 300000);
  g_assert_cmpfloat (assay_csv_index_get_progress (index), ==, 1.0);
  {
    g_auto(GStrv) row = assay_csv_index_get_row (index, 299999);
    g_auto(GStrv) quoted = assay_csv_index_get_row (index, 1000);

    g_assert_cmpstr (row[0], ==, "299999");
    g_assert_cmpstr (row[2], ==, "149999.5");
    /* Line breaks inside a field are shown as spaces. */
    g_assert_cmpstr (quoted[1], ==, "two lines 1000");
    g_assert_null (assay_csv_index_get_row (index, 300000));
  }
  g_test_message ("read %u rows during indexing", checks);
}

static void
check_converted_index (const char *name,
                       const char *encoding,
                       const char *bom,
                       gsize       bom_len)
{
  GString *s = g_string_new ("Город\tСумма\n");
  g_autofree char *utf8 = NULL;
  g_autofree char *converted = NULL;
  g_autofree char *path = NULL;
  g_autofree char *file = NULL;
  g_autoptr(AssayCsvIndex) index = NULL;
  g_autoptr(GError) error = NULL;
  gsize len, utf8_len;

  for (guint i = 0; i < 120000; i++)
    g_string_append_printf (s, "%s %u\t%u\n", i % 2 ? "Москва" : "Казань", i, i * 3);
  utf8_len = s->len;
  utf8 = g_string_free (s, FALSE);
  converted = g_convert (utf8, utf8_len, encoding, "UTF-8", NULL, &len, &error);
  g_assert_no_error (error);
  file = g_malloc (len + bom_len);
  memcpy (file, bom, bom_len);
  memcpy (file + bom_len, converted, len);
  path = write_file (name, file, len + bom_len);

  index = assay_csv_index_new (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_csv_index_get_column_names (index)[0], ==, "Город");
  g_assert_true (assay_csv_index_build (index, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (assay_csv_index_get_n_rows_indexed (index), ==, 120000);
  {
    g_auto(GStrv) last = assay_csv_index_get_row (index, 119999);
    g_auto(GStrv) middle = assay_csv_index_get_row (index, 70000);

    g_assert_cmpstr (last[0], ==, "Москва 119999");
    g_assert_cmpstr (last[1], ==, "359997");
    g_assert_cmpstr (middle[0], ==, "Казань 70000");
  }
}

static void
test_index_converted (void)
{
  /* The worker converts these to UTF-8 while it indexes, over several chunks. */
  check_converted_index ("utf16.txt", "UTF-16LE", "\xFF\xFE", 2);
  check_converted_index ("cp1251.txt", "WINDOWS-1251", "", 0);
}

static void
test_parallel_profile (void)
{
  /* Over 8 MB, so the profile runs in parts; quoted line breaks may straddle a split. */
  g_autofree char *path = write_rows ("big.csv", 500001, 450000);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayDataset) dataset = assay_dataset_open (path, NULL, &error);
  g_autoptr(JsonObject) json = NULL;
  JsonArray *columns;
  JsonObject *n;

  g_assert_no_error (error);
  g_assert_cmpuint (assay_dataset_get_n_rows (dataset), ==, 500000);
  json = assay_dataset_to_json (dataset);
  columns = json_object_get_array_member (json, "columns");
  n = json_array_get_object_element (columns, 0);
  g_assert_cmpstr (json_object_get_string_member (n, "type"), ==, "integer");
  g_assert_cmpint (json_object_get_int_member (n, "min"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (n, "max"), ==, 500000);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (n, "mean"), 249999.6, 1e-6);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (n, "histogram")), ==, 16);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (columns, 2), "type"), ==, "float");
  /* Row 450000 sits on line 450002 + 450 quoted line breaks before it; it is skipped. */
  {
    JsonArray *warnings = json_object_get_array_member (json, "warnings");

    g_assert_cmpuint (json_array_get_length (warnings), ==, 1);
    g_assert_nonnull (strstr (json_array_get_string_element (warnings, 0), "(lines 450452)"));
    g_assert_nonnull (strstr (assay_dataset_get_read_call (dataset), "on_bad_lines='skip'"));
  }
}

static void
test_parallel_straddle (void)
{
  /* A quoted field full of lines that look like rows sits where the file is split: the part
   * that starts inside it must be read again from where the first part ended. */
  GString *s = g_string_new ("a,b,c\n");
  g_autofree char *contents = NULL;
  g_autofree char *path = NULL;
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  for (guint i = 0; i < 400000; i++)
    g_string_append_printf (s, "%u,x,%u\n", i, i);
  g_string_append (s, "-1,\"");
  for (guint i = 0; i < 300000; i++)
    g_string_append (s, "9,9,9,9\n");
  g_string_append (s, "\",-1\n");
  for (guint i = 0; i < 400000; i++)
    g_string_append_printf (s, "%u,y,%u\n", i, i);
  len = s->len;
  contents = g_string_free (s, FALSE);
  path = write_file ("straddle.csv", contents, len);

  dataset = assay_dataset_open (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_dataset_get_n_rows (dataset), ==, 800001);
  g_assert_cmpuint (assay_dataset_get_warnings (dataset)->len, ==, 1);  /* the very large field */
}

static void
test_describe_budget (void)
{
  GString *s = g_string_new (NULL);
  g_autofree char *contents = NULL;
  g_autofree char *path = NULL;
  g_autoptr(AssayDataset) dataset = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *small = NULL;
  gsize len;

  for (guint c = 0; c < 400; c++)
    g_string_append_printf (s, "%scol_%u", c ? "," : "", c);
  g_string_append_c (s, '\n');
  for (guint r = 0; r < 20; r++)
    {
      for (guint c = 0; c < 400; c++)
        g_string_append_printf (s, "%s%u", c ? "," : "", r * c);
      g_string_append_c (s, '\n');
    }
  len = s->len;
  contents = g_string_free (s, FALSE);
  path = write_file ("wide table.csv", contents, len);
  dataset = assay_dataset_open (path, NULL, NULL);
  g_assert_nonnull (dataset);

  summary = assay_dataset_describe_for_model (dataset, 2000);
  g_assert_cmpuint (strlen (summary), <=, 2000);
  g_assert_nonnull (strstr (summary, "/data/wide table.csv"));
  g_assert_nonnull (strstr (summary, "pd.read_csv('/data/wide table.csv', sep=','"));
  g_assert_nonnull (strstr (summary, "20 rows × 400 columns"));
  g_assert_nonnull (strstr (summary, "- col_9: integer"));
  g_assert_null (strstr (summary, "- col_10: integer"));
  g_assert_nonnull (strstr (summary, "col_20 (integer)"));
  g_assert_nonnull (strstr (summary, " more columns: "));

  small = assay_dataset_describe_for_model (dataset, 300);
  g_assert_cmpuint (strlen (small), <=, 300);
}

static void
test_hostile_names (void)
{
  g_autofree char *path = write_file ("evil.csv", "\x1b]0;pwned\x07name,\xE2\x80\xAE" "b\n1,2\n3,4\n", -1);
  g_autoptr(AssayDataset) dataset = assay_dataset_open (path, NULL, NULL);
  g_autoptr(JsonObject) json = assay_dataset_to_json (dataset);
  JsonArray *columns = json_object_get_array_member (json, "columns");
  const char *first = json_object_get_string_member (json_array_get_object_element (columns, 0), "name");
  const char *second = json_object_get_string_member (json_array_get_object_element (columns, 1), "name");
  g_autofree char *summary = assay_dataset_describe_for_model (dataset, 4000);

  g_assert_null (strchr (first, '\x1b'));
  g_assert_null (strchr (first, '\x07'));
  g_assert_cmpstr (second, ==, "b");
  g_assert_null (strchr (summary, '\x1b'));
}

static void
opened (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  AssayDataset **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = assay_dataset_open_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_open_async (void)
{
  g_autofree char *path = write_file ("async.csv", "a;b\n1;x\n2;y\n", -1);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.csv", NULL);
  AssayDataset *dataset = NULL;
  g_autoptr(GError) error = NULL;

  assay_dataset_open_async (path, NULL, opened, &dataset);
  while (dataset == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (assay_dataset_get_n_rows (dataset), ==, 2);
  g_assert_cmpint (assay_dataset_get_dialect (dataset)->delimiter, ==, ';');
  g_assert_finalize_object (dataset);

  g_assert_null (assay_dataset_open (missing, NULL, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

/* A file cut short while it is mapped (another program saving over it) faulted every
 * reader with SIGBUS: the window and `inspect` died. Now the missing pages read as zeroes
 * and the reader fails with a reason. */
static void
test_index_truncated_underneath (void)
{
  g_autofree char *path = write_rows ("cut-short.csv", 400000, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) index = assay_csv_index_new (path, &error);
  g_auto(GStrv) row = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (truncate (path, 4096), ==, 0);
  g_assert_false (assay_csv_index_build (index, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "cut short"));
  /* What was indexed can still be asked for; rows past the cut are empty, not a crash. */
  row = assay_csv_index_get_row (index, 0);
  g_assert_nonnull (row);
  g_assert_cmpstr (row[0], ==, "0");
  g_clear_pointer (&row, g_strfreev);
  row = assay_csv_index_get_row (index, assay_csv_index_get_n_rows_indexed (index) - 1);
}

/* A dataset added to a session is a copy of its own: the original changing (or shrinking)
 * later changes nothing the session reads, and both can be edited apart. */
static void
test_session_copy_is_own (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "copy-session", NULL);
  g_autofree char *original = write_rows ("original.csv", 1000, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  const AssaySessionDataset *dataset;
  g_autofree char *copy = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  GStatBuf a, b;

  g_assert_no_error (error);
  dataset = assay_session_add_dataset (session, original, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dataset);
  copy = g_build_filename (dir, "data", "original.csv", NULL);
  g_assert_cmpint (g_stat (original, &a), ==, 0);
  g_assert_cmpint (g_stat (copy, &b), ==, 0);
  g_assert_false (a.st_ino == b.st_ino && a.st_dev == b.st_dev);
  g_assert_true (g_file_get_contents (copy, &before, NULL, NULL));
  g_assert_cmpint (truncate (original, 10), ==, 0);
  g_assert_true (g_file_get_contents (copy, &after, NULL, NULL));
  g_assert_cmpstr (before, ==, after);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("assay-data-XXXXXX", NULL);
  g_test_add_func ("/assay/data/index/incremental", test_index_incremental);
  g_test_add_func ("/assay/data/index/converted", test_index_converted);
  g_test_add_func ("/assay/data/dataset/parallel", test_parallel_profile);
  g_test_add_func ("/assay/data/dataset/parallel-straddle", test_parallel_straddle);
  g_test_add_func ("/assay/data/dataset/describe-budget", test_describe_budget);
  g_test_add_func ("/assay/data/dataset/hostile-names", test_hostile_names);
  g_test_add_func ("/assay/data/dataset/open-async", test_open_async);
  g_test_add_func ("/assay/data/index/truncated-underneath", test_index_truncated_underneath);
  g_test_add_func ("/assay/data/session-copy-is-own", test_session_copy_is_own);
  status = g_test_run ();
  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmpdir, name, NULL);
        g_unlink (p);
      }
    g_rmdir (tmpdir);
  }
  return status;
}
