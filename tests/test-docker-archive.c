/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The tar stream an engine elsewhere gets instead of a bind mount of /data: unpacked by the
 * system's tar (GNU tar reads ustar and pax as Docker's archive endpoint does), regular files
 * only, long names whole, read-only for everyone; a file changed while sent is an error. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "assay-docker-archive.h"

static char *
write_archive (GInputStream *stream,
               const char   *dir,
               GError      **error)
{
  char *path = g_build_filename (dir, "out.tar", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileOutputStream) out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, error);

  if (out == NULL || g_output_stream_splice (G_OUTPUT_STREAM (out), stream,
                                             G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, error) < 0)
    g_clear_pointer (&path, g_free);
  return path;
}

static void
test_unpacked_by_tar (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-archive-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (dir, "data", NULL);
  g_autofree char *unpacked = g_build_filename (dir, "unpacked", NULL);
  g_autofree char *long_name = g_strnfill (150, 'x');
  g_autofree char *long_file = NULL;
  g_autofree char *long_path = NULL;
  g_autofree char *path = NULL;
  g_autofree char *tar = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *command = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;
  guint64 total = 0;
  int status = -1;

  g_assert_cmpint (g_mkdir (data, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (unpacked, 0755), ==, 0);
  path = g_build_filename (data, "продажи.csv", NULL);
  g_assert_true (g_file_set_contents (path, "регион,сумма\nСевер,1\n", -1, NULL));
  long_file = g_strconcat (long_name, ".csv", NULL);
  long_path = g_build_filename (data, long_file, NULL);
  g_assert_true (g_file_set_contents (long_path, "a\n1\n", -1, NULL));
  g_free (path);
  path = g_build_filename (data, "link.csv", NULL);
  g_assert_cmpint (symlink ("/etc/passwd", path), ==, 0);
  g_free (path);
  path = g_build_filename (data, "pipe.csv", NULL);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);

  stream = assay_docker_archive_new (data, NULL, &total, &error);
  g_assert_no_error (error);
  tar = write_archive (stream, dir, &error);
  g_assert_no_error (error);
  g_assert_true (g_stat (tar, &st) == 0);
  g_assert_cmpuint (total, ==, (guint64) st.st_size);

  command = g_strdup_printf ("tar -xf %s -C %s", tar, unpacked);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  g_free (path);
  path = g_build_filename (unpacked, "продажи.csv", NULL);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "регион,сумма\nСевер,1\n");
  g_assert_true (g_stat (path, &st) == 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0444);
  g_free (path);
  path = g_build_filename (unpacked, long_file, NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_free (path);
  path = g_build_filename (unpacked, "link.csv", NULL);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK));
  g_free (path);
  path = g_build_filename (unpacked, "pipe.csv", NULL);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  g_free (command);
  command = g_strdup_printf ("rm -rf %s", dir);
  g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL);
}

static void
test_changed_while_sent (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-archive-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "big.csv", NULL);
  g_autofree char *command = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  const char *names[] = { "big.csv", NULL };
  const char *outside[] = { "../big.csv", NULL };
  char buffer[1024];
  gssize n;

  g_assert_true (g_file_set_contents (path, "0123456789\n", -1, NULL));
  /* Only plain names of the folder. */
  g_assert_null (assay_docker_archive_new (dir, outside, NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  stream = assay_docker_archive_new (dir, names, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, "01\n", -1, NULL));
  do
    n = g_input_stream_read (G_INPUT_STREAM (stream), buffer, sizeof buffer, NULL, &error);
  while (n > 0);
  g_assert_cmpint (n, <, 0);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);

  command = g_strdup_printf ("rm -rf %s", dir);
  g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/docker/archive/unpacked-by-tar", test_unpacked_by_tar);
  g_test_add_func ("/assay/docker/archive/changed-while-sent", test_changed_while_sent);
  return g_test_run ();
}
