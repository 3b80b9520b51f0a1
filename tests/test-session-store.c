/* SPDX-License-Identifier: GPL-3.0-or-later */
/* AssaySessionStore without a display: the list of saved sessions (search, reload), and the
 * jobs that open, rename, delete and save them, one at a time in the order asked for, the
 * latest open winning, and what a shutdown keeps (saves) and drops (the rest). */
#include "config.h"

#include <glib/gstdio.h>

#include "assay-session-store.h"

static char *parent;

typedef struct
{
  gboolean           done;
  gboolean           ok;
  GError            *error;
  AssaySession      *session;
  AssayArtifactList *artifacts;
  guint              order;     /* when it was answered, counting from 1 */
} Answer;

static guint answers;

static void
answer_clear (Answer *answer)
{
  g_clear_error (&answer->error);
  g_clear_object (&answer->session);
  g_clear_object (&answer->artifacts);
  *answer = (Answer) { 0, };
}

static void
opened_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Answer *answer = user_data;

  answer->session = assay_session_store_open_finish (ASSAY_SESSION_STORE (source), result,
                                                     &answer->artifacts, &answer->error);
  answer->ok = answer->session != NULL;
  answer->done = TRUE;
  answer->order = ++answers;
}

static void
renamed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Answer *answer = user_data;

  answer->ok = assay_session_store_rename_finish (ASSAY_SESSION_STORE (source), result, &answer->error);
  answer->done = TRUE;
  answer->order = ++answers;
}

static void
deleted_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Answer *answer = user_data;

  answer->ok = assay_session_store_delete_finish (ASSAY_SESSION_STORE (source), result, &answer->error);
  answer->done = TRUE;
  answer->order = ++answers;
}

static void
saved_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  Answer *answer = user_data;

  answer->ok = assay_session_store_save_finish (ASSAY_SESSION_STORE (source), result, &answer->error);
  answer->done = TRUE;
  answer->order = ++answers;
}

static void
wait_for (gboolean *flag)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!*flag)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
}

static void
reloaded_cb (AssaySessionStore *store,
             gboolean          *flag)
{
  *flag = TRUE;
}

static void
reload_and_wait (AssaySessionStore *store)
{
  gboolean reloaded = FALSE;
  gulong handler = g_signal_connect (store, "reloaded", G_CALLBACK (reloaded_cb), &reloaded);

  assay_session_store_reload (store);
  wait_for (&reloaded);
  g_signal_handler_disconnect (store, handler);
}

/* A saved session titled TITLE with one dataset named DATASET (or none). */
static char *
make_session (const char *title,
              const char *dataset)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_create (parent, &error);

  g_assert_no_error (error);
  assay_session_set_title (session, title);
  if (dataset != NULL)
    {
      g_autofree char *path = g_build_filename (parent, dataset, NULL);

      g_assert_true (g_file_set_contents (path, "a,b\n1,2\n", -1, NULL));
      g_assert_nonnull (assay_session_add_dataset (session, path, NULL, &error));
      g_assert_no_error (error);
      g_unlink (path);
    }
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  /* The list is ordered by when a session was saved: the next one is later. */
  g_usleep (2000);
  return g_strdup (assay_session_get_dir (session));
}

static void
delete_all (void)
{
  g_autoptr(GPtrArray) sessions = assay_session_list (parent, NULL);

  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    g_assert_true (assay_session_delete (assay_session_get_dir (g_ptr_array_index (sessions, i)), NULL));
}

static char *
title_on_disk (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);

  g_assert_no_error (error);
  return g_strdup (assay_session_get_title (session));
}

static void
test_list (void)
{
  g_autofree char *first = (delete_all (), make_session ("Which region sells most?", "regions.csv"));
  g_autofree char *second = make_session ("How many orders in July?", "Orders_July.csv");
  g_autofree char *third = make_session (NULL, NULL);
  g_autoptr(AssaySessionStore) store = assay_session_store_new (parent);
  g_autofree char *query = g_utf8_casefold ("ORDERS_j", -1);
  AssaySessionSummary *summary;
  g_autoptr(AssaySessionSummary) item = NULL;
  guint matching = 0;

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store)), ==, 0);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (store)) == ASSAY_TYPE_SESSION_SUMMARY);
  reload_and_wait (store);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store)), ==, 3);

  /* Most recently saved first. */
  item = g_list_model_get_item (G_LIST_MODEL (store), 0);
  g_assert_cmpstr (assay_session_summary_get_dir (item), ==, third);
  g_assert_cmpstr (assay_session_summary_get_title (item), ==, "");
  g_assert_cmpuint (g_strv_length ((char **) assay_session_summary_get_datasets (item)), ==, 0);
  g_clear_object (&item);
  item = g_list_model_get_item (G_LIST_MODEL (store), 2);
  g_assert_cmpstr (assay_session_summary_get_dir (item), ==, first);
  g_assert_null (g_list_model_get_item (G_LIST_MODEL (store), 3));

  summary = assay_session_store_lookup (store, second);
  g_assert_nonnull (summary);
  g_assert_cmpstr (assay_session_summary_get_title (summary), ==, "How many orders in July?");
  g_assert_cmpstrv (assay_session_summary_get_datasets (summary), ((const char *[]) { "Orders_July.csv", NULL }));
  g_assert_cmpint (assay_session_summary_get_updated (summary), >, 0);
  g_assert_null (assay_session_store_lookup (store, "/nonexistent"));

  /* The search finds a dataset's name, whatever the case. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(AssaySessionSummary) row = g_list_model_get_item (G_LIST_MODEL (store), i);

      if (assay_session_summary_matches (row, query))
        {
          matching++;
          g_assert_cmpstr (assay_session_summary_get_dir (row), ==, second);
        }
      g_assert_true (assay_session_summary_matches (row, ""));
      g_assert_true (assay_session_summary_matches (row, NULL));
    }
  g_assert_cmpuint (matching, ==, 1);

  /* A folder without a readable record is left out; a new session comes in on reload. */
  {
    g_autofree char *junk = g_build_filename (parent, "not-a-session", NULL);
    g_autofree char *fourth = NULL;

    g_assert_cmpint (g_mkdir (junk, 0700), ==, 0);
    fourth = make_session ("Fourth", NULL);
    reload_and_wait (store);
    g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store)), ==, 4);
    g_assert_nonnull (assay_session_store_lookup (store, fourth));
    g_assert_cmpint (g_rmdir (junk), ==, 0);
  }
}

static void
test_rename_and_delete (void)
{
  g_autofree char *closed = (delete_all (), make_session ("Regions", NULL));
  g_autofree char *open_dir = make_session ("Orders", NULL);
  g_autoptr(AssaySessionStore) store = assay_session_store_new (parent);
  g_autoptr(AssaySession) open = assay_session_load (open_dir, NULL);
  g_autofree char *title = NULL;
  gboolean reloaded = FALSE;
  Answer answer = { 0, };

  reload_and_wait (store);

  /* One that is not held: read, renamed and saved in a worker; the list follows. */
  g_signal_connect (store, "reloaded", G_CALLBACK (reloaded_cb), &reloaded);
  assay_session_store_rename_async (store, closed, "Sales by region", NULL, renamed_cb, &answer);
  wait_for (&answer.done);
  g_assert_no_error (answer.error);
  g_assert_true (answer.ok);
  title = title_on_disk (closed);
  g_assert_cmpstr (title, ==, "Sales by region");
  wait_for (&reloaded);
  g_assert_cmpstr (assay_session_summary_get_title (assay_session_store_lookup (store, closed)), ==, "Sales by region");

  /* The one held in memory: renamed there, and written. */
  answer_clear (&answer);
  reloaded = FALSE;
  assay_session_store_rename_async (store, open_dir, "July orders", open, renamed_cb, &answer);
  wait_for (&answer.done);
  g_assert_true (answer.ok);
  g_assert_cmpstr (assay_session_get_title (open), ==, "July orders");
  g_free (title);
  title = title_on_disk (open_dir);
  g_assert_cmpstr (title, ==, "July orders");
  wait_for (&reloaded);

  /* Delete: the folder goes, and so does its row. */
  answer_clear (&answer);
  reloaded = FALSE;
  assay_session_store_delete_async (store, closed, deleted_cb, &answer);
  wait_for (&answer.done);
  g_assert_no_error (answer.error);
  g_assert_true (answer.ok);
  g_assert_false (g_file_test (closed, G_FILE_TEST_EXISTS));
  wait_for (&reloaded);
  g_assert_null (assay_session_store_lookup (store, closed));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store)), ==, 1);

  /* A folder that is not a session is not deleted. */
  answer_clear (&answer);
  assay_session_store_delete_async (store, parent, deleted_cb, &answer);
  wait_for (&answer.done);
  g_assert_false (answer.ok);
  g_assert_nonnull (answer.error);
  g_assert_true (g_file_test (open_dir, G_FILE_TEST_IS_DIR));
  answer_clear (&answer);
  g_signal_handlers_disconnect_by_data (store, &reloaded);
}

static void
test_order (void)
{
  g_autofree char *dir = (delete_all (), make_session ("Before", NULL));
  g_autoptr(AssaySessionStore) store = assay_session_store_new (parent);
  g_autoptr(AssaySession) held = assay_session_load (dir, NULL);
  g_autoptr(GError) error = NULL;
  Answer saved = { 0, }, renamed = { 0, }, opened = { 0, }, deleted = { 0, }, late = { 0, };

  /* Asked for in one go: each lands before the next starts. */
  assay_session_set_title (held, "Saved in memory");
  assay_session_store_save_async (store, held, FALSE, saved_cb, &saved);
  assay_session_store_rename_async (store, dir, "Renamed", NULL, renamed_cb, &renamed);
  assay_session_store_open_async (store, dir, opened_cb, &opened);
  g_assert_cmpstr (assay_session_store_get_opening (store), ==, dir);
  assay_session_store_delete_async (store, dir, deleted_cb, &deleted);
  /* Deleting what is opening cancels the open: it is not opened only to be deleted. */
  g_assert_null (assay_session_store_get_opening (store));
  wait_for (&deleted.done);
  g_assert_true (saved.ok && renamed.ok && deleted.ok);
  g_assert_cmpuint (saved.order, <, renamed.order);
  g_assert_error (opened.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (opened.order, <, deleted.order);
  answer_clear (&opened);

  /* Again, without the delete: the open reads what was written before it. */
  g_clear_pointer (&dir, g_free);
  dir = make_session ("Before", NULL);
  g_clear_object (&held);
  held = assay_session_load (dir, &error);
  g_assert_no_error (error);
  answer_clear (&saved);
  answer_clear (&renamed);
  assay_session_set_title (held, "Saved in memory");
  assay_session_store_save_async (store, held, FALSE, saved_cb, &saved);
  assay_session_store_open_async (store, dir, opened_cb, &late);
  wait_for (&late.done);
  g_assert_no_error (late.error);
  g_assert_cmpuint (saved.order, <, late.order);
  g_assert_cmpstr (assay_session_get_title (late.session), ==, "Saved in memory");
  g_assert_nonnull (late.artifacts);
  g_assert_true (assay_artifact_list_get_session (late.artifacts) == late.session);
  g_assert_null (assay_session_store_get_opening (store));
  answer_clear (&late);
}

typedef struct
{
  guint calls, position, removed, added;
} Changes;

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Changes    *changes)
{
  changes->calls++;
  changes->position = position;
  changes->removed = removed;
  changes->added = added;
}

/* A reload changes only the part of the list that differs, and keeps the other items (a list
 * view keeps their rows); what it ends with is what a new store lists. */
static void
test_reload_keeps_items (void)
{
  g_autofree char *dirs[6] = { NULL, };
  g_autoptr(AssaySessionStore) store = assay_session_store_new (parent);
  g_autoptr(AssaySessionStore) fresh = assay_session_store_new (parent);
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(GError) error = NULL;
  GObject *kept[6] = { NULL, };
  Changes changes = { 0, };
  g_autoptr(GObject) top = NULL;

  delete_all ();
  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *title = g_strdup_printf ("Question %u", i);
      dirs[i] = make_session (title, i % 2 ? "orders.csv" : NULL);
    }
  reload_and_wait (store);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store)), ==, 6);
  for (guint i = 0; i < 6; i++)
    {
      kept[i] = g_list_model_get_item (G_LIST_MODEL (store), i);
      g_object_unref (kept[i]);
    }
  g_signal_connect (store, "items-changed", G_CALLBACK (items_changed_cb), &changes);

  /* Nothing changed: no change. */
  reload_and_wait (store);
  g_assert_cmpuint (changes.calls, ==, 0);

  /* The third most recent (Question 3) is saved again: it moves to the top; the two below
   * where it was keep their items. */
  session = assay_session_load (dirs[3], &error);
  g_assert_no_error (error);
  assay_session_set_title (session, "Question 3, asked again");
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  reload_and_wait (store);
  g_assert_cmpuint (changes.calls, ==, 1);
  g_assert_cmpuint (changes.position, ==, 0);
  g_assert_cmpuint (changes.removed, ==, 3);
  g_assert_cmpuint (changes.added, ==, 3);
  top = g_list_model_get_item (G_LIST_MODEL (store), 0);
  g_assert_cmpstr (assay_session_summary_get_title (ASSAY_SESSION_SUMMARY (top)), ==, "Question 3, asked again");
  for (guint i = 3; i < 6; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (store), i);
      g_assert_true (item == kept[i]);
    }

  /* A session deleted from the middle: only its place changes. */
  changes.calls = 0;
  g_assert_true (assay_session_delete (dirs[1], NULL));
  reload_and_wait (store);
  g_assert_cmpuint (changes.calls, ==, 1);
  g_assert_cmpuint (changes.position, ==, 4);
  g_assert_cmpuint (changes.removed, ==, 1);
  g_assert_cmpuint (changes.added, ==, 0);

  /* The same list as a store that reads it from nothing. */
  reload_and_wait (fresh);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store)), ==, g_list_model_get_n_items (G_LIST_MODEL (fresh)));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (fresh)); i++)
    {
      g_autoptr(AssaySessionSummary) a = g_list_model_get_item (G_LIST_MODEL (store), i);
      g_autoptr(AssaySessionSummary) b = g_list_model_get_item (G_LIST_MODEL (fresh), i);

      g_assert_cmpstr (assay_session_summary_get_dir (a), ==, assay_session_summary_get_dir (b));
      g_assert_cmpstr (assay_session_summary_get_title (a), ==, assay_session_summary_get_title (b));
      g_assert_cmpint (assay_session_summary_get_updated (a), ==, assay_session_summary_get_updated (b));
      g_assert_cmpstrv (assay_session_summary_get_datasets (a), assay_session_summary_get_datasets (b));
    }
}

static void
test_latest_open_wins (void)
{
  g_autofree char *first = (delete_all (), make_session ("First", NULL));
  g_autofree char *second = make_session ("Second", NULL);
  g_autofree char *third = make_session ("Third", NULL);
  g_autoptr(AssaySessionStore) store = assay_session_store_new (parent);
  Answer a = { 0, }, b = { 0, }, c = { 0, }, missing = { 0, }, damaged = { 0, };
  g_autofree char *record = NULL;
  g_autofree char *gone = NULL;

  /* The first starts reading at once; the second waits, then is replaced by the third. */
  assay_session_store_open_async (store, first, opened_cb, &a);
  assay_session_store_open_async (store, second, opened_cb, &b);
  g_assert_cmpstr (assay_session_store_get_opening (store), ==, second);
  assay_session_store_open_async (store, third, opened_cb, &c);
  g_assert_cmpstr (assay_session_store_get_opening (store), ==, third);
  /* The waiting one is dropped at once; the running one when it returns. */
  wait_for (&b.done);
  g_assert_false (c.done);
  g_assert_error (b.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  wait_for (&c.done);
  wait_for (&a.done);
  g_assert_error (a.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (a.session);
  g_assert_no_error (c.error);
  g_assert_cmpstr (assay_session_get_title (c.session), ==, "Third");
  g_assert_null (assay_session_store_get_opening (store));
  g_assert_false (assay_session_store_cancel_open (store));

  /* cancel_open on one waiting behind a save. */
  answer_clear (&a);
  answer_clear (&b);
  assay_session_store_save_async (store, c.session, FALSE, saved_cb, &b);
  assay_session_store_open_async (store, first, opened_cb, &a);
  g_assert_true (assay_session_store_cancel_open (store));
  wait_for (&a.done);
  g_assert_error (a.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  wait_for (&b.done);
  g_assert_true (b.ok);

  /* What cannot be opened says why. */
  gone = g_build_filename (parent, "gone", NULL);
  assay_session_store_open_async (store, gone, opened_cb, &missing);
  wait_for (&missing.done);
  g_assert_error (missing.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  record = g_build_filename (second, "session.json", NULL);
  g_assert_true (g_file_set_contents (record, "{\"version\": 1, \"id\": ", -1, NULL));
  assay_session_store_open_async (store, second, opened_cb, &damaged);
  wait_for (&damaged.done);
  g_assert_error (damaged.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_null (damaged.artifacts);

  answer_clear (&a);
  answer_clear (&b);
  answer_clear (&c);
  answer_clear (&missing);
  answer_clear (&damaged);
}

static void
test_shutdown (void)
{
  g_autofree char *first = (delete_all (), make_session ("First", NULL));
  g_autofree char *second = make_session ("Second", NULL);
  g_autoptr(AssaySessionStore) store = assay_session_store_new (parent);
  g_autoptr(AssaySession) held = assay_session_load (second, NULL);
  g_autoptr(GApplication) app = g_application_new (NULL, G_APPLICATION_DEFAULT_FLAGS);
  g_autofree char *title = NULL;
  Answer renamed = { 0, }, opened = { 0, }, saved = { 0, }, deleted = { 0, }, after = { 0, };

  /* The saves hold the default application until they are written. */
  g_application_set_default (app);
  assay_session_store_rename_async (store, first, "Renamed", NULL, renamed_cb, &renamed);
  assay_session_store_open_async (store, first, opened_cb, &opened);
  assay_session_set_title (held, "Written anyway");
  assay_session_store_save_async (store, held, TRUE, saved_cb, &saved);
  assay_session_store_delete_async (store, second, deleted_cb, &deleted);
  assay_session_store_shutdown (store);

  /* Waiting: dropped at once, but for the save. */
  wait_for (&opened.done);
  g_assert_error (opened.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  wait_for (&deleted.done);
  g_assert_error (deleted.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (assay_session_store_get_opening (store));
  wait_for (&saved.done);
  g_assert_true (saved.ok);
  wait_for (&renamed.done);
  title = title_on_disk (second);
  g_assert_cmpstr (title, ==, "Written anyway");
  g_assert_true (g_file_test (second, G_FILE_TEST_IS_DIR));

  /* After it: jobs fail at once, a save is still written. */
  assay_session_store_open_async (store, first, opened_cb, &after);
  wait_for (&after.done);
  g_assert_error (after.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  answer_clear (&saved);
  assay_session_set_title (held, "Later still");
  assay_session_store_save_async (store, held, FALSE, saved_cb, &saved);
  wait_for (&saved.done);
  g_assert_true (saved.ok);
  g_free (title);
  title = title_on_disk (second);
  g_assert_cmpstr (title, ==, "Later still");
  g_application_set_default (NULL);

  answer_clear (&renamed);
  answer_clear (&opened);
  answer_clear (&saved);
  answer_clear (&deleted);
  answer_clear (&after);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  parent = g_dir_make_tmp ("assay-session-store-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/assay/session/store/list", test_list);
  g_test_add_func ("/assay/session/store/rename-and-delete", test_rename_and_delete);
  g_test_add_func ("/assay/session/store/order", test_order);
  g_test_add_func ("/assay/session/store/reload-keeps-items", test_reload_keeps_items);
  g_test_add_func ("/assay/session/store/latest-open-wins", test_latest_open_wins);
  g_test_add_func ("/assay/session/store/shutdown", test_shutdown);
  status = g_test_run ();

  delete_all ();
  g_rmdir (parent);
  g_free (parent);
  return status;
}
