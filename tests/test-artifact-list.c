/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assay-artifact-list.h"
#include "assay-session.h"

typedef struct
{
  char         *dir;      /* the session folder */
  char         *outside;  /* a secret next to it */
  AssaySession *session;
} Fixture;

static void
add_artifact (AssaySessionCell *cell,
              const char       *name,
              const char       *path,
              const char       *mime)
{
  AssayArtifact *artifact = g_new0 (AssayArtifact, 1);

  artifact->name = g_strdup (name);
  artifact->path = g_strdup (path);
  artifact->mime = g_strdup (mime);
  g_ptr_array_add (cell->artifacts, artifact);
}

static void
write_file (const char *dir,
            const char *relative,
            const char *contents)
{
  g_autofree char *path = g_build_filename (dir, relative, NULL);

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = g_dir_make_tmp ("assay-test-artifacts-XXXXXX", &error);
  g_autofree char *link = NULL;
  g_autofree char *link_dir = NULL;
  g_autofree char *fifo = NULL;
  AssaySessionCell *cell;

  g_assert_no_error (error);
  fixture->dir = g_build_filename (parent, "session", NULL);
  fixture->outside = g_build_filename (parent, "secret.png", NULL);
  g_assert_true (g_file_set_contents (fixture->outside, "secret", -1, NULL));
  fixture->session = assay_session_new (fixture->dir, &error);
  g_assert_no_error (error);

  write_file (fixture->dir, "artifacts/c1-chart.png", "png bytes");
  write_file (fixture->dir, "artifacts/c1-table.csv", "a,b\n1,2\n");
  write_file (fixture->dir, "artifacts/c2-report.pdf", "%PDF-1.4 not really");
  write_file (fixture->dir, "artifacts/c3-model.bin", "\x01\x02\x03");
  link = g_build_filename (fixture->dir, "artifacts", "c3-link.png", NULL);
  g_assert_cmpint (symlink (fixture->outside, link), ==, 0);
  link_dir = g_build_filename (fixture->dir, "artifacts", "c3-dir", NULL);
  g_assert_cmpint (symlink (parent, link_dir), ==, 0);
  fifo = g_build_filename (fixture->dir, "artifacts", "c3-fifo.csv", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  cell = assay_session_add_cell (fixture->session, assay_session_cell_new ("c1", 1, "call_1", NULL, "x"));
  add_artifact (cell, "chart.png", "artifacts/c1-chart.png", "image/png");
  add_artifact (cell, "table.csv", "artifacts/c1-table.csv", "text/csv");
  cell = assay_session_add_cell (fixture->session, assay_session_cell_new ("c2", 2, "call_2", NULL, "x"));
  add_artifact (cell, "report.pdf", "artifacts/c2-report.pdf", "application/pdf");
  /* Hostile entries, as a tampered session.json could hold them. */
  add_artifact (cell, "passwd", "../../etc/passwd", "text/plain");
  add_artifact (cell, "secret.png", "artifacts/../../secret.png", "image/png");
  add_artifact (cell, "abs", "/etc/passwd", "text/plain");
  cell = assay_session_add_cell (fixture->session, assay_session_cell_new ("c3", 4, "call_3", NULL, "x"));
  add_artifact (cell, "model.bin", "artifacts/c3-model.bin", NULL);
  add_artifact (cell, "link.png", "artifacts/c3-link.png", "image/png");
  add_artifact (cell, "through-dir", "artifacts/c3-dir/secret.png", "image/png");
  add_artifact (cell, "fifo.csv", "artifacts/c3-fifo.csv", "text/csv");
  add_artifact (cell, "missing.png", "artifacts/none.png", "image/png");
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *parent = g_path_get_dirname (fixture->dir);
  g_autofree char *command = g_strdup_printf ("rm -rf '%s'", parent);

  g_assert_finalize_object (fixture->session);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
  g_free (fixture->dir);
  g_free (fixture->outside);
}

static void
test_kind_guess (void)
{
  g_assert_cmpint (assay_artifact_kind_guess ("image/png", "x"), ==, ASSAY_ARTIFACT_KIND_FIGURE);
  g_assert_cmpint (assay_artifact_kind_guess ("image/svg+xml", NULL), ==, ASSAY_ARTIFACT_KIND_FIGURE);
  g_assert_cmpint (assay_artifact_kind_guess ("text/csv", "t.csv"), ==, ASSAY_ARTIFACT_KIND_TABLE);
  g_assert_cmpint (assay_artifact_kind_guess ("application/octet-stream", "T.XLSX"), ==,
                   ASSAY_ARTIFACT_KIND_TABLE);
  g_assert_cmpint (assay_artifact_kind_guess ("application/pdf", "r"), ==, ASSAY_ARTIFACT_KIND_DOCUMENT);
  g_assert_cmpint (assay_artifact_kind_guess (NULL, "notes.md"), ==, ASSAY_ARTIFACT_KIND_DOCUMENT);
  g_assert_cmpint (assay_artifact_kind_guess ("text/plain", "notes.txt"), ==, ASSAY_ARTIFACT_KIND_OTHER);
  g_assert_cmpint (assay_artifact_kind_guess (NULL, "Makefile"), ==, ASSAY_ARTIFACT_KIND_OTHER);
}

static AssayArtifactItem *
item_at (GListModel *model,
         guint       position)
{
  AssayArtifactItem *item = g_list_model_get_item (model, position);

  g_assert_nonnull (item);
  g_object_unref (item);   /* the list keeps it */
  return item;
}

static void
test_from_session (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(AssayArtifactList) list = assay_artifact_list_new_for_session (fixture->session);
  GListModel *model = G_LIST_MODEL (list);
  g_autofree char *expected_path = g_build_filename (fixture->dir, "artifacts", "c1-chart.png", NULL);
  AssayArtifactItem *item;
  AssayArtifactKind kind;
  g_autofree char *cell_id = NULL;

  g_assert_true (g_list_model_get_item_type (model) == ASSAY_TYPE_ARTIFACT_ITEM);
  /* Only the four sound entries; newest first. */
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 4);
  g_assert_null (g_list_model_get_item (model, 4));

  item = item_at (model, 0);
  g_assert_cmpstr (assay_artifact_item_get_name (item), ==, "model.bin");
  g_assert_cmpint (assay_artifact_item_get_kind (item), ==, ASSAY_ARTIFACT_KIND_OTHER);
  g_assert_cmpuint (assay_artifact_item_get_step (item), ==, 4);
  g_assert_cmpuint (assay_artifact_item_get_bytes (item), ==, 3);
  g_assert_cmpuint (assay_artifact_item_get_order (item), ==, 3);
  g_assert_nonnull (assay_artifact_item_get_mime (item));

  item = item_at (model, 1);
  g_assert_cmpstr (assay_artifact_item_get_name (item), ==, "report.pdf");
  g_assert_cmpint (assay_artifact_item_get_kind (item), ==, ASSAY_ARTIFACT_KIND_DOCUMENT);
  item = item_at (model, 2);
  g_assert_cmpstr (assay_artifact_item_get_name (item), ==, "table.csv");
  g_assert_cmpint (assay_artifact_item_get_kind (item), ==, ASSAY_ARTIFACT_KIND_TABLE);

  item = item_at (model, 3);
  g_assert_cmpstr (assay_artifact_item_get_name (item), ==, "chart.png");
  g_assert_cmpstr (assay_artifact_item_get_path (item), ==, expected_path);
  g_assert_cmpstr (assay_artifact_item_get_relative_path (item), ==, "artifacts/c1-chart.png");
  g_assert_cmpstr (assay_artifact_item_get_mime (item), ==, "image/png");
  g_assert_cmpuint (assay_artifact_item_get_order (item), ==, 0);
  g_object_get (item, "kind", &kind, "cell-id", &cell_id, NULL);
  g_assert_cmpint (kind, ==, ASSAY_ARTIFACT_KIND_FIGURE);
  g_assert_cmpstr (cell_id, ==, "c1");
  g_assert_true (assay_artifact_list_get_session (list) == fixture->session);

  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  guint      *calls)
{
  g_assert_cmpuint (position, ==, 0);
  g_assert_cmpuint (removed, ==, 0);
  g_assert_cmpuint (added, ==, 1);
  (*calls)++;
}

static void
test_add (Fixture       *fixture,
          gconstpointer  data)
{
  g_autoptr(AssayArtifactList) list = assay_artifact_list_new_for_session (fixture->session);
  GListModel *model = G_LIST_MODEL (list);
  g_autofree char *absolute = g_build_filename (fixture->dir, "artifacts", "c4-more.svg", NULL);
  g_autofree char *link_inside = g_build_filename (fixture->dir, "artifacts", "c4-link.csv", NULL);
  g_autofree char *absolute_link = g_build_filename (fixture->dir, "artifacts", "c3-dir", "secret.png", NULL);
  const char *hostile[] = {
    "../../etc/passwd", "/etc/passwd", "artifacts/c3-link.png", "artifacts/c3-dir/secret.png",
    "artifacts/../../secret.png", "artifacts/c3-fifo.csv", "artifacts", "", "artifacts//c1-chart.png",
    "./artifacts/c1-chart.png", "artifacts/c4-link.csv", absolute_link, "artifacts/absent.png",
  };
  guint calls = 0;
  AssayArtifactItem *item;
  g_autoptr(GError) error = NULL;

  g_signal_connect (list, "items-changed", G_CALLBACK (on_items_changed), &calls);

  write_file (fixture->dir, "artifacts/c4-more.svg", "<svg/>");
  g_assert_true (assay_artifact_list_add (list, "c3", "more.svg", absolute, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 5);
  item = item_at (model, 0);
  g_assert_cmpstr (assay_artifact_item_get_name (item), ==, "more.svg");
  g_assert_cmpstr (assay_artifact_item_get_relative_path (item), ==, "artifacts/c4-more.svg");
  g_assert_cmpint (assay_artifact_item_get_kind (item), ==, ASSAY_ARTIFACT_KIND_FIGURE);
  g_assert_cmpuint (assay_artifact_item_get_step (item), ==, 4);
  g_assert_cmpuint (assay_artifact_item_get_order (item), ==, 4);

  /* Twice the same file: listed once. */
  g_assert_true (assay_artifact_list_add (list, "c3", "more.svg", "artifacts/c4-more.svg", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 1);

  /* A symbolic link inside pointing inside is refused too: links are never followed. */
  g_assert_cmpint (symlink ("c1-chart.png", link_inside), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_test_message ("hostile: %s", hostile[i]);
      g_assert_false (assay_artifact_list_add (list, "c3", "x", hostile[i], &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
    }
  g_assert_cmpuint (calls, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 5);

  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
on_saved (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static void
test_read_and_save (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(AssayArtifactList) list = assay_artifact_list_new_for_session (fixture->session);
  AssayArtifactItem *item = item_at (G_LIST_MODEL (list), 2);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *copy_path = g_build_filename (fixture->dir, "..", "copy.csv", NULL);
  g_autoptr(GFile) copy = g_file_new_for_path (copy_path);
  g_autofree char *contents = NULL;
  g_autofree char *link = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  bytes = assay_artifact_item_load_bytes (item, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "a,b\n1,2\n", 8);
  g_assert_null (assay_artifact_item_load_bytes (item, 4, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_clear_error (&error);
  g_cancellable_cancel (cancellable);
  g_assert_null (assay_artifact_item_load_bytes (item, 0, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  assay_artifact_item_save_async (item, copy, NULL, on_saved, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (assay_artifact_item_save_finish (item, result, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (copy_path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "a,b\n1,2\n");

  /* Replaced by a link after it was listed: opening refuses it. */
  link = g_build_filename (fixture->dir, "artifacts", "c1-table.csv", NULL);
  g_assert_cmpint (g_unlink (link), ==, 0);
  g_assert_cmpint (symlink (fixture->outside, link), ==, 0);
  g_assert_null (assay_artifact_item_load_bytes (item, 0, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_assert_null (assay_artifact_item_open (item, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_clear_object (&result);
  assay_artifact_item_save_async (item, copy, NULL, on_saved, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (assay_artifact_item_save_finish (item, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (copy_path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "a,b\n1,2\n");

  g_assert_finalize_object (g_steal_pointer (&list));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/assay/artifact-list/kind", test_kind_guess);
  g_test_add ("/assay/artifact-list/from-session", Fixture, NULL,
              fixture_setup, test_from_session, fixture_teardown);
  g_test_add ("/assay/artifact-list/add", Fixture, NULL,
              fixture_setup, test_add, fixture_teardown);
  g_test_add ("/assay/artifact-list/read-and-save", Fixture, NULL,
              fixture_setup, test_read_and_save, fixture_teardown);

  return g_test_run ();
}
