/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The seal of approved code (src/core/session/assay-approval.c): what it vouches for, the key
 * it refuses, and two processes that make the key at once. */
#include "config.h"

#include <glib/gstdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "assay-approval.h"

static char *tmpdir;

static AssaySessionCell *
new_cell (const char *code)
{
  AssaySessionCell *cell = assay_session_cell_new ("c1", 1, "call_1", NULL, code);

  cell->code = g_strdup (code);
  cell->decision = ASSAY_DECISION_APPROVED;
  return cell;
}

static void
use_key (const char *name)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);

  g_setenv ("ASSAY_APPROVAL_KEY_FILE", path, TRUE);
}

static void
test_seal (void)
{
  g_autoptr(AssaySessionCell) cell = new_cell ("print(1)\n");
  g_autoptr(GError) error = NULL;
  g_autofree char *seal = NULL;

  use_key ("seal-key");
  g_assert_false (assay_approval_check (cell));
  g_assert_true (assay_approval_seal (cell, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (cell->approval), ==, 64);
  g_assert_true (assay_approval_check (cell));
  seal = g_strdup (cell->approval);

  /* Another code, kind or database under the same seal: not what was approved. */
  g_free (cell->code);
  cell->code = g_strdup ("print(1)\nimport os; os.system('id')\n");
  g_assert_false (assay_approval_check (cell));
  g_free (cell->code);
  cell->code = g_strdup ("print(1)\n");
  g_assert_true (assay_approval_check (cell));
  cell->kind = ASSAY_CELL_KIND_SQL;
  g_assert_false (assay_approval_check (cell));
  cell->kind = ASSAY_CELL_KIND_PYTHON;
  cell->approval[0] = cell->approval[0] == '0' ? '1' : '0';
  g_assert_false (assay_approval_check (cell));
  g_free (cell->approval);
  cell->approval = g_strdup ("short");
  g_assert_false (assay_approval_check (cell));

  /* Another user's key: nothing of this one's is vouched for. */
  g_free (cell->approval);
  cell->approval = g_strdup (seal);
  use_key ("other-key");
  g_assert_false (assay_approval_check (cell));
}

/* A key anyone may read, or a link, is not used. */
static void
test_key_refused (void)
{
  g_autoptr(AssaySessionCell) cell = new_cell ("print(2)\n");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "open-key", NULL);
  g_autofree char *link = g_build_filename (tmpdir, "link-key", NULL);

  g_assert_true (g_file_set_contents (path, "0123456789abcdef0123456789abcdef", 32, NULL));
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  use_key ("open-key");
  g_assert_false (assay_approval_seal (cell, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  g_assert_cmpint (symlink (path, link), ==, 0);
  use_key ("link-key");
  g_assert_false (assay_approval_seal (cell, &error));
  g_assert_nonnull (error);
}

/* Eight processes seal at once with no key yet: one key is made, whole, and all agree. */
static void
test_key_race (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "race-key", NULL);
  pid_t children[8];
  g_autofree char *first = NULL;
  struct stat st;

  use_key ("race-key");
  for (guint i = 0; i < G_N_ELEMENTS (children); i++)
    {
      children[i] = fork ();
      g_assert_cmpint (children[i], >=, 0);
      if (children[i] == 0)
        {
          g_autoptr(AssaySessionCell) cell = new_cell ("print(3)\n");
          g_autofree char *out = g_strdup_printf ("%s/race-%u", tmpdir, i);

          _exit (assay_approval_seal (cell, NULL) && g_file_set_contents (out, cell->approval, -1, NULL) ? 0 : 1);
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (children); i++)
    {
      int status = 0;
      g_autofree char *out = g_strdup_printf ("%s/race-%u", tmpdir, i);
      g_autofree char *seal = NULL;

      g_assert_cmpint (waitpid (children[i], &status, 0), ==, children[i]);
      g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
      g_assert_true (g_file_get_contents (out, &seal, NULL, NULL));
      if (first == NULL)
        first = g_strdup (seal);
      g_assert_cmpstr (seal, ==, first);
    }
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 32);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
}

int
main (int   argc,
      char *argv[])
{
  int status;
  g_autofree char *command = NULL;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("assay-approval-XXXXXX", NULL);
  g_test_add_func ("/assay/approval/seal", test_seal);
  g_test_add_func ("/assay/approval/key-refused", test_key_refused);
  g_test_add_func ("/assay/approval/key-race", test_key_race);
  status = g_test_run ();
  command = g_strdup_printf ("rm -rf '%s'", tmpdir);
  g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL);
  g_free (tmpdir);
  return status;
}
