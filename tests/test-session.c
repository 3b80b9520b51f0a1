/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <utime.h>

#include "assay-session.h"
#include "session-fixture.h"

static char *
make_tmp (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("assay-test-session-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_tmp (const char *dir)
{
  g_autofree char *command = g_strdup_printf ("rm -rf '%s'", dir);

  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
}

/* A session with a finished step (a cell that ran) and a step in progress. */
static AssaySession *
make_session (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = g_build_filename (dir, "..", "sales-for-session.csv", NULL);
  AssaySession *session = assay_session_new (dir, &error);
  g_autoptr(AssayCellResult) result = assay_cell_result_new ("k1", "print(1)");
  g_autoptr(JsonObject) output = json_object_new ();
  AssayLlmMessage *assistant;
  AssaySessionCell *cell;
  AssayArtifact *artifact = g_new0 (AssayArtifact, 1);
  g_autofree char *artifact_dir = NULL;
  g_autofree char *artifact_path = NULL;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (csv, "a,b\n1,2\n", -1, NULL));
  g_assert_nonnull (assay_session_add_dataset (session, csv, "comma, header", &error));
  g_assert_no_error (error);
  g_unlink (csv);
  assay_session_set_provider (session, "openai", "gpt-test");
  assay_session_set_title (session, "Sales “total”");

  assay_session_append_message (session, assay_llm_message_new_user ("What is the total?"));
  assay_session_finish_question (session);
  assistant = assay_llm_message_new_assistant ("Computing.");
  g_ptr_array_add (assistant->tool_calls, assay_llm_tool_call_new ("call_1", "execute_python", "{\"code\":\"print(1)\"}"));
  assay_session_append_message (session, assistant);

  cell = assay_session_add_cell (session, assay_session_cell_new ("c1", 1, "call_1", "print", "print(1)"));
  cell->code = g_strdup ("print(1)");
  cell->decision = ASSAY_DECISION_APPROVED;
  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", "stdout");
  json_object_set_string_member (output, "text", "1\n");
  assay_cell_result_add_output (result, output);
  assay_cell_result_set_status (result, ASSAY_CELL_OK, NULL);
  assay_cell_result_set_elapsed_ms (result, 12);
  artifact_dir = assay_session_get_artifact_dir (session);
  artifact_path = g_build_filename (artifact_dir, "plot.png", NULL);
  g_assert_true (g_file_set_contents (artifact_path, "png", 3, NULL));
  artifact->name = g_strdup ("plot.png");
  artifact->path = g_strdup (artifact_path);
  artifact->bytes = 3;
  artifact->mime = g_strdup ("image/png");
  assay_cell_result_add_artifact (result, artifact);
  assay_session_record_result (session, cell, result);
  assay_session_append_message (session, assay_llm_message_new_tool ("call_1", "Status: ok\n1\n", FALSE));
  assay_session_finish_step (session);

  /* Step 2, in progress: proposed, not answered. */
  assistant = assay_llm_message_new_assistant (NULL);
  g_ptr_array_add (assistant->tool_calls, assay_llm_tool_call_new ("call_2", "execute_python", "{\"code\":\"sleep\"}"));
  assay_session_append_message (session, assistant);
  cell = assay_session_add_cell (session, assay_session_cell_new ("c2", 2, "call_2", NULL, "import time"));
  cell->status = ASSAY_CELL_RUNNING;
  return session;
}

/* A dataset is recorded under the name the sandbox shows it by (a ':' or '?' becomes '_'),
 * so that the model is told a path that exists under /data. */
static void
test_dataset_sandbox_name (void)
{
  g_autofree char *dir = make_tmp ();
  g_autofree char *source = g_build_filename (dir, "regions:q3?.csv", NULL);
  g_autofree char *session_dir = g_build_filename (dir, "s", NULL);
  g_autofree char *copy = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = NULL;
  const AssaySessionDataset *dataset;

  g_assert_true (g_file_set_contents (source, "a,b\n1,2\n", -1, &error));
  session = assay_session_new (session_dir, &error);
  g_assert_no_error (error);
  dataset = assay_session_add_dataset (session, source, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dataset->name, ==, "regions_q3_.csv");
  g_assert_cmpstr (dataset->path, ==, "data/regions_q3_.csv");
  copy = g_build_filename (session_dir, "data", "regions_q3_.csv", NULL);
  g_assert_true (g_file_test (copy, G_FILE_TEST_IS_REGULAR));
  remove_tmp (dir);
}

static void
test_round_trip (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *dir = g_build_filename (parent, "s1", NULL);
  g_autoptr(AssaySession) session = make_session (dir);
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *record = NULL;
  g_autofree char *text = NULL;
  AssaySessionCell *cell;
  AssayLlmMessage *message;
  AssaySessionDataset *dataset;
  AssayArtifact *artifact;

  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);

  /* Never a key, and a format version. */
  record = g_build_filename (dir, "session.json", NULL);
  g_assert_true (g_file_get_contents (record, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"format_version\" : 2"));
  g_assert_null (strstr (text, "api_key"));

  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_id (loaded), ==, assay_session_get_id (session));
  g_assert_cmpstr (assay_session_get_title (loaded), ==, "Sales “total”");
  g_assert_cmpstr (assay_session_get_provider (loaded), ==, "openai");
  g_assert_cmpstr (assay_session_get_model (loaded), ==, "gpt-test");
  g_assert_cmpint (assay_session_get_created (loaded), ==, assay_session_get_created (session));

  dataset = g_ptr_array_index (assay_session_get_datasets (loaded), 0);
  g_assert_cmpstr (dataset->name, ==, "sales-for-session.csv");
  g_assert_cmpstr (dataset->description, ==, "comma, header");
  {
    /* Self-contained: the copy survives the original. */
    g_autofree char *copy = assay_session_resolve (loaded, dataset->path);
    g_autofree char *contents = NULL;
    g_assert_true (g_file_get_contents (copy, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "a,b\n1,2\n");
  }

  /* Up to the last finished step; the step in progress is kept apart. */
  g_assert_cmpuint (assay_session_get_n_steps (loaded), ==, 1);
  g_assert_cmpuint (assay_session_get_messages (loaded)->len, ==, 3);
  message = g_ptr_array_index (assay_session_get_messages (loaded), 1);
  g_assert_cmpint (message->role, ==, ASSAY_LLM_ROLE_ASSISTANT);
  g_assert_cmpstr (message->text, ==, "Computing.");
  g_assert_cmpuint (message->tool_calls->len, ==, 1);
  g_assert_cmpstr (((AssayLlmToolCall *) g_ptr_array_index (message->tool_calls, 0))->arguments, ==,
                   "{\"code\":\"print(1)\"}");
  message = g_ptr_array_index (assay_session_get_messages (loaded), 2);
  g_assert_cmpint (message->role, ==, ASSAY_LLM_ROLE_TOOL);
  g_assert_cmpstr (message->tool_call_id, ==, "call_1");

  g_assert_cmpuint (assay_session_get_n_cells (loaded), ==, 1);
  cell = assay_session_get_cell (loaded, 0);
  g_assert_cmpstr (cell->id, ==, "c1");
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_OK);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_APPROVED);
  g_assert_cmpint (cell->elapsed_ms, ==, 12);
  g_assert_cmpuint (json_array_get_length (cell->outputs), ==, 1);
  g_assert_true (assay_session_cell_succeeded (cell));
  artifact = g_ptr_array_index (cell->artifacts, 0);
  g_assert_cmpstr (artifact->path, ==, "artifacts/plot.png");
  g_assert_cmpstr (artifact->mime, ==, "image/png");

  g_assert_cmpuint (assay_session_get_interrupted_cells (loaded)->len, ==, 1);
  cell = g_ptr_array_index (assay_session_get_interrupted_cells (loaded), 0);
  g_assert_cmpstr (cell->id, ==, "c2");
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_INTERRUPTED);
  {
    g_autofree char *next = assay_session_next_cell_id (loaded);
    g_assert_cmpstr (next, ==, "c3");
  }

  /* Saving the loaded session keeps the interrupted cells. */
  g_assert_true (assay_session_save (loaded, &error));
  g_clear_object (&session);
  session = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_session_get_interrupted_cells (session)->len, ==, 1);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);

  /* A folder that already holds a session is not taken over. */
  g_assert_null (assay_session_new (dir, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  remove_tmp (parent);
}

static void
test_atomic_write (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *dir = g_build_filename (parent, "s1", NULL);
  g_autoptr(AssaySession) session = make_session (dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *record = g_build_filename (dir, "session.json", NULL);
  g_autofree char *huge = g_strnfill (256 * 1024, 'x');
  struct rlimit old_limit, limit;
  void (*old_handler) (int);
  g_autoptr(GDir) listing = NULL;
  const char *name;
  guint entries = 0;

  g_assert_true (assay_session_save (session, &error));
  g_assert_true (g_file_get_contents (record, &before, NULL, NULL));

  /* A write that fails half-way (the file size limit: EFBIG after 64 KiB). */
  assay_session_append_message (session, assay_llm_message_new_user (huge));
  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  limit = old_limit;
  limit.rlim_cur = 64 * 1024;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  g_assert_false (assay_session_save (session, &error));
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  signal (SIGXFSZ, old_handler);
  g_assert_nonnull (error);
  g_test_message ("failed as expected: %s", error->message);
  g_clear_error (&error);

  /* The old record is whole and no temporary file is left. */
  g_assert_true (g_file_get_contents (record, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  listing = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (listing)))
    {
      g_test_message ("entry: %s", name);
      g_assert_true (g_str_equal (name, "session.json") || g_str_equal (name, "data") ||
                     g_str_equal (name, "artifacts"));
      entries++;
    }
  g_assert_cmpuint (entries, ==, 3);
  remove_tmp (parent);
}

static void
test_list_rename_delete (void)
{
  g_autofree char *parent = make_tmp ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) first = assay_session_create (parent, &error);
  g_autoptr(AssaySession) second = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autofree char *junk = g_build_filename (parent, "not-a-session", NULL);
  g_autofree char *second_dir = NULL;

  g_assert_no_error (error);
  assay_session_set_title (first, "first");
  g_assert_true (assay_session_save (first, &error));
  g_usleep (2000);
  second = assay_session_create (parent, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_dir (first), !=, assay_session_get_dir (second));
  assay_session_set_title (second, "second");
  g_assert_true (assay_session_save (second, &error));
  g_assert_cmpint (g_mkdir (junk, 0755), ==, 0);

  list = assay_session_list (parent, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpstr (assay_session_get_title (g_ptr_array_index (list, 0)), ==, "second");
  g_assert_cmpstr (assay_session_get_title (g_ptr_array_index (list, 1)), ==, "first");
  g_clear_pointer (&list, g_ptr_array_unref);

  g_usleep (2000);
  g_assert_true (assay_session_rename (first, "renamed", &error));
  list = assay_session_list (parent, &error);
  g_assert_cmpstr (assay_session_get_title (g_ptr_array_index (list, 0)), ==, "renamed");
  g_clear_pointer (&list, g_ptr_array_unref);

  second_dir = g_strdup (assay_session_get_dir (second));
  g_assert_true (assay_session_delete (second_dir, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (second_dir, G_FILE_TEST_EXISTS));
  list = assay_session_list (parent, &error);
  g_assert_cmpuint (list->len, ==, 1);

  /* A folder without a record is not deleted. */
  g_assert_false (assay_session_delete (junk, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_file_test (junk, G_FILE_TEST_IS_DIR));
  g_clear_error (&error);

  /* An empty parent, or none at all, lists nothing. */
  {
    g_autofree char *missing = g_build_filename (parent, "nope", NULL);
    g_autoptr(GPtrArray) none = assay_session_list (missing, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (none->len, ==, 0);
  }
  remove_tmp (parent);
}

static void
test_delete_never_follows_links (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *outside = g_build_filename (parent, "outside", NULL);
  g_autofree char *precious = g_build_filename (outside, "precious.txt", NULL);
  g_autofree char *dir = g_build_filename (parent, "s1", NULL);
  g_autofree char *link_dir = g_build_filename (dir, "artifacts", "escape", NULL);
  g_autofree char *link_file = g_build_filename (dir, "data", "escape.txt", NULL);
  g_autofree char *session_link = g_build_filename (parent, "link-to-session", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);

  g_assert_no_error (error);
  g_assert_true (assay_session_save (session, &error));
  g_assert_cmpint (g_mkdir (outside, 0755), ==, 0);
  g_assert_true (g_file_set_contents (precious, "keep me", -1, NULL));
  g_assert_cmpint (symlink (outside, link_dir), ==, 0);
  g_assert_cmpint (symlink (precious, link_file), ==, 0);
  g_assert_cmpint (symlink (dir, session_link), ==, 0);

  /* A link to a session is not a session folder. */
  g_assert_false (assay_session_delete (session_link, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));

  g_assert_true (assay_session_delete (dir, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (precious, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (outside, G_FILE_TEST_IS_DIR));
  remove_tmp (parent);
}

static void
test_load_rejects_bad_records (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *record = g_build_filename (parent, "session.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = NULL;

  g_assert_true (g_file_set_contents (record, "[1, 2]", -1, NULL));
  g_assert_null (assay_session_load (parent, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (record, "{\"format_version\": 99}", -1, NULL));
  g_assert_null (assay_session_load (parent, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);

  /* Wrong types are ignored member by member, not trusted. */
  g_assert_true (g_file_set_contents (record,
                                      "{\"format_version\": 1, \"title\": 5, \"messages\": {\"x\": 1},"
                                      " \"cells\": [1, {\"id\": \"c1\", \"outputs\": \"no\"}],"
                                      " \"finished\": {\"cells\": 9, \"messages\": \"x\"}}", -1, NULL));
  session = assay_session_load (parent, &error);
  g_assert_no_error (error);
  g_assert_null (assay_session_get_title (session));
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);
  g_assert_cmpuint (assay_session_get_messages (session)->len, ==, 0);
  remove_tmp (parent);
}

typedef struct
{
  AssaySession *session;
  GError       *error;
  guint         calls;
  GThread      *thread;
} Loaded;

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Loaded *loaded = user_data;

  g_assert_null (source);
  loaded->calls++;
  loaded->thread = g_thread_self ();
  loaded->session = assay_session_load_finish (result, &loaded->error);
}

static gboolean
tick_cb (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

static void
wait_loaded (Loaded       *loaded,
             GMainContext *context)
{
  while (loaded->calls == 0)
    g_main_context_iteration (context, TRUE);
}

/* A long session (200 steps, about 3 MB of outputs) read in a worker: the caller's main loop
 * keeps turning meanwhile, and what comes back is what the synchronous load reads. */
static void
test_load_async (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *dir = session_fixture_write_long (parent, "How do the rows grow?", 200, 16 * 1024);
  g_autoptr(AssaySession) expected = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GSource) ticker = g_timeout_source_new (1);
  Loaded loaded = { 0, };
  guint ticks = 0;
  gint64 started, blocking_us, asking_us;
  AssaySessionCell *last;

  started = g_get_monotonic_time ();
  expected = assay_session_load (dir, &error);
  blocking_us = g_get_monotonic_time () - started;
  g_assert_no_error (error);
  g_assert_cmpuint (assay_session_get_n_cells (expected), ==, 200);

  /* From a context of the caller's own: the callback comes there, in this thread. */
  g_main_context_push_thread_default (context);
  g_source_set_callback (ticker, tick_cb, &ticks, NULL);
  g_source_attach (ticker, context);
  started = g_get_monotonic_time ();
  assay_session_load_async (dir, NULL, loaded_cb, &loaded);
  asking_us = g_get_monotonic_time () - started;
  g_assert_cmpuint (loaded.calls, ==, 0);
  wait_loaded (&loaded, context);
  g_source_destroy (ticker);
  g_main_context_pop_thread_default (context);
  g_test_message ("asking took %" G_GINT64_FORMAT " ms, loaded in %" G_GINT64_FORMAT " ms "
                  "(%" G_GINT64_FORMAT " ms blocking), %u ticks meanwhile", asking_us / 1000,
                  (g_get_monotonic_time () - started) / 1000, blocking_us / 1000, ticks);

  g_assert_no_error (loaded.error);
  g_assert_nonnull (loaded.session);
  g_assert_true (loaded.thread == g_thread_self ());
  /* The caller's loop turned while the worker read. */
  g_assert_cmpuint (ticks, >=, 1);
  g_assert_cmpstr (assay_session_get_title (loaded.session), ==, "How do the rows grow?");
  g_assert_cmpstr (assay_session_get_dir (loaded.session), ==, assay_session_get_dir (expected));
  g_assert_cmpuint (assay_session_get_n_steps (loaded.session), ==, assay_session_get_n_steps (expected));
  g_assert_cmpuint (assay_session_get_messages (loaded.session)->len, ==,
                    assay_session_get_messages (expected)->len);
  g_assert_cmpuint (assay_session_get_n_cells (loaded.session), ==, 200);
  last = assay_session_get_cell (loaded.session, 199);
  g_assert_cmpstr (last->code, ==, "print('step 200')\n");
  g_assert_cmpuint (json_array_get_length (last->outputs), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (last->outputs, 0), "text"), ==,
                   json_object_get_string_member (json_array_get_object_element (assay_session_get_cell (expected, 199)->outputs, 0), "text"));
  g_assert_cmpstr (assay_session_get_status (loaded.session), ==, "answered");
  g_clear_object (&loaded.session);
  remove_tmp (parent);
}

/* Cancelled before, during and after the worker read the record: never a session. Missing
 * and damaged records say which they are. */
static void
test_load_async_cancel_and_errors (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *long_dir = session_fixture_write_long (parent, "Long", 200, 16 * 1024);
  g_autofree char *short_dir = session_fixture_write_long (parent, "Short", 1, 16);
  g_autofree char *damaged_dir = session_fixture_write_damaged (parent);
  g_autofree char *missing_dir = g_build_filename (parent, "gone", NULL);
  g_autoptr(GCancellable) cancellable = NULL;

  /* Before it starts. */
  {
    Loaded loaded = { 0, };

    cancellable = g_cancellable_new ();
    g_cancellable_cancel (cancellable);
    assay_session_load_async (long_dir, cancellable, loaded_cb, &loaded);
    wait_loaded (&loaded, NULL);
    g_assert_error (loaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_null (loaded.session);
    g_clear_error (&loaded.error);
    g_clear_object (&cancellable);
  }

  /* While the worker reads a long record. */
  {
    Loaded loaded = { 0, };

    cancellable = g_cancellable_new ();
    assay_session_load_async (long_dir, cancellable, loaded_cb, &loaded);
    g_cancellable_cancel (cancellable);
    wait_loaded (&loaded, NULL);
    g_assert_error (loaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_null (loaded.session);
    g_clear_error (&loaded.error);
    g_clear_object (&cancellable);
    /* Exactly one answer. */
    g_main_context_iteration (NULL, FALSE);
    g_assert_cmpuint (loaded.calls, ==, 1);
  }

  /* After the worker is done but before the answer was delivered: the result is stale. */
  {
    Loaded loaded = { 0, };

    cancellable = g_cancellable_new ();
    assay_session_load_async (short_dir, cancellable, loaded_cb, &loaded);
    g_usleep (500 * 1000);
    g_cancellable_cancel (cancellable);
    wait_loaded (&loaded, NULL);
    g_assert_error (loaded.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_null (loaded.session);
    g_clear_error (&loaded.error);
    g_clear_object (&cancellable);
  }

  /* Not cancelled: the short one loads. */
  {
    Loaded loaded = { 0, };

    assay_session_load_async (short_dir, NULL, loaded_cb, &loaded);
    wait_loaded (&loaded, NULL);
    g_assert_no_error (loaded.error);
    g_assert_cmpstr (assay_session_get_title (loaded.session), ==, "Short");
    g_clear_object (&loaded.session);
  }

  {
    Loaded loaded = { 0, };

    assay_session_load_async (damaged_dir, NULL, loaded_cb, &loaded);
    wait_loaded (&loaded, NULL);
    g_assert_error (loaded.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_null (loaded.session);
    g_test_message ("damaged: %s", loaded.error->message);
    g_clear_error (&loaded.error);
  }

  {
    Loaded loaded = { 0, };

    assay_session_load_async (missing_dir, NULL, loaded_cb, &loaded);
    wait_loaded (&loaded, NULL);
    g_assert_error (loaded.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
    g_assert_null (loaded.session);
    g_clear_error (&loaded.error);
  }
  remove_tmp (parent);
}

static void
saved_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_session_save_finish (ASSAY_SESSION (source), result, &error));
  g_assert_no_error (error);
  (*(guint *) user_data)++;
}

static GMutex gate_lock;
static GCond gate_cond;
static gboolean gate_open;

static void
blocker_worker (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  g_mutex_lock (&gate_lock);
  while (!gate_open)
    g_cond_wait (&gate_cond, &gate_lock);
  g_mutex_unlock (&gate_lock);
  g_task_return_boolean (task, TRUE);
}

static void
blocker_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  (*(guint *) user_data)++;
}

/* Saves from workers land in the order asked for: a later synchronous save is never
 * overwritten by an earlier asynchronous one still being written, and none leaves a
 * temporary file behind. */
static void
test_save_async_order (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *dir = session_fixture_write_long (parent, "Order", 200, 16 * 1024);
  g_autoptr(AssaySession) session = assay_session_load (dir, NULL);
  g_autoptr(AssaySession) reread = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  const char *name;
  guint saved = 0;
  guint blocked = 0;

  g_assert_nonnull (session);
  assay_session_set_title (session, "Alone");
  assay_session_save_async (session, NULL, saved_cb, &saved);
  while (saved < 1)
    g_main_context_iteration (NULL, TRUE);
  reread = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_title (reread), ==, "Alone");
  g_clear_object (&reread);

  /* The worker pool is held busy, so the save asked for first is still waiting when the
   * synchronous one lands; once the pool is let go it must not put the older record back. */
  g_mutex_lock (&gate_lock);
  gate_open = FALSE;
  g_mutex_unlock (&gate_lock);
  for (guint i = 0; i < 16; i++)
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, blocker_done_cb, &blocked);

      g_task_run_in_thread (task, blocker_worker);
    }
  assay_session_set_title (session, "Older");
  assay_session_save_async (session, NULL, saved_cb, &saved);
  assay_session_set_title (session, "Final");
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  g_mutex_lock (&gate_lock);
  gate_open = TRUE;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
  while (saved < 2 || blocked < 16)
    g_main_context_iteration (NULL, TRUE);

  reread = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_title (reread), ==, "Final");
  listing = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (listing)))
    g_assert_true (g_str_equal (name, "session.json") || g_str_equal (name, "data") ||
                   g_str_equal (name, "artifacts"));
  remove_tmp (parent);
}

/* The record is read in the worker, after asking returned: with the worker pool held busy,
 * a record replaced after asking is the one that comes back (a load done in the call would
 * return the one before). */
static void
test_load_async_reads_later (void)
{
  g_autofree char *parent = make_tmp ();
  g_autofree char *dir = session_fixture_write_long (parent, "Before", 20, 1024);
  g_autoptr(AssaySession) writer = assay_session_load (dir, NULL);
  g_autoptr(GError) error = NULL;
  Loaded loaded = { 0, };
  guint blocked = 0;

  g_assert_nonnull (writer);
  g_mutex_lock (&gate_lock);
  gate_open = FALSE;
  g_mutex_unlock (&gate_lock);
  for (guint i = 0; i < 16; i++)
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, blocker_done_cb, &blocked);

      g_task_run_in_thread (task, blocker_worker);
    }
  assay_session_load_async (dir, NULL, loaded_cb, &loaded);
  g_assert_cmpuint (loaded.calls, ==, 0);
  assay_session_set_title (writer, "After");
  g_assert_true (assay_session_save (writer, &error));
  g_assert_no_error (error);
  g_mutex_lock (&gate_lock);
  gate_open = TRUE;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
  while (loaded.calls == 0 || blocked < 16)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (loaded.error);
  g_assert_nonnull (loaded.session);
  g_assert_cmpstr (assay_session_get_title (loaded.session), ==, "After");
  g_clear_object (&loaded.session);
  remove_tmp (parent);
}


/* The cell status is one enum everywhere; the record keeps its words, and a word this
 * version does not know (a newer Assay's) reads as an error, never as a success. */
static void
test_cell_status (void)
{
  for (AssayCellStatus status = ASSAY_CELL_OK; status <= ASSAY_CELL_INTERRUPTED; status++)
    {
      AssaySessionCell *cell = assay_session_cell_new ("c1", 1, "call_1", NULL, "print(1)");
      g_autoptr(JsonNode) node = NULL;
      AssaySessionCell *back;
      AssayCellStatus parsed = ASSAY_CELL_CRASHED;

      g_assert_true (assay_cell_status_from_string (assay_cell_status_to_string (status), &parsed));
      g_assert_cmpint (parsed, ==, status);
      cell->status = status;
      node = assay_session_cell_to_json (cell);
      back = assay_session_cell_from_json (node);
      g_assert_nonnull (back);
      g_assert_cmpint (back->status, ==, status);
      g_assert_cmpint (assay_cell_status_is_finished (status), ==,
                       status != ASSAY_CELL_PROPOSED && status != ASSAY_CELL_RUNNING &&
                       status != ASSAY_CELL_REJECTED && status != ASSAY_CELL_INTERRUPTED);
      assay_session_cell_free (back);
      assay_session_cell_free (cell);
    }

  {
    AssaySessionCell *cell = assay_session_cell_new ("c1", 1, "call_1", NULL, "print(1)");
    g_autoptr(JsonNode) node = assay_session_cell_to_json (cell);
    AssaySessionCell *back;
    AssayCellStatus parsed = ASSAY_CELL_OK;

    json_object_set_string_member (json_node_get_object (node), "status", "superseded-in-v9");
    back = assay_session_cell_from_json (node);
    g_assert_nonnull (back);
    g_assert_cmpint (back->status, ==, ASSAY_CELL_ERROR);
    g_assert_false (assay_session_cell_succeeded (back));
    g_assert_false (assay_cell_status_from_string ("superseded-in-v9", &parsed));
    g_assert_cmpint (parsed, ==, ASSAY_CELL_OK);
    json_object_remove_member (json_node_get_object (node), "status");
    assay_session_cell_free (back);
    back = assay_session_cell_from_json (node);
    g_assert_cmpint (back->status, ==, ASSAY_CELL_PROPOSED);
    assay_session_cell_free (back);
    assay_session_cell_free (cell);
  }
}

/* Each dataset's SHA-256, size and rows are recorded when it is added (by copy_in in a
 * worker, or by add_dataset itself); a load notices a copy that is not what was added. */
static void
copied_in_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **copy = user_data;
  g_autoptr(GError) error = NULL;

  *copy = assay_session_copy_in_finish (ASSAY_SESSION (source), result, &error);
  g_assert_no_error (error);
}

static void
test_dataset_identity (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = g_build_filename (tmp, "s", NULL);
  g_autofree char *csv = g_build_filename (tmp, "sales.csv", NULL);
  g_autofree char *xlsx = g_build_filename (tmp, "book.bin", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssaySession) loaded = NULL;
  const char *text = "region,note\nnorth,\"two\nlines\"\nsouth,plain\n";
  const AssaySessionDataset *dataset;
  struct utimbuf times;
  GStatBuf st;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (csv, text, -1, NULL));
  g_assert_true (g_file_set_contents (xlsx, "PK\x03\x04 not a table", -1, NULL));
  expected = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);

  /* Through copy_in (the window's way): measured in the worker. */
  assay_session_copy_in_async (session, csv, NULL, copied_in_cb, &copy);
  while (copy == NULL)
    g_main_context_iteration (NULL, TRUE);
  dataset = assay_session_add_dataset (session, copy, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dataset->sha256, ==, expected);
  g_assert_cmpint (dataset->bytes, ==, strlen (text));
  g_assert_cmpint (dataset->rows, ==, 2);          /* a quoted line end is no row */
  g_assert_false (dataset->changed);
  /* Directly (the CLI's way); not a text table: no rows. */
  dataset = assay_session_add_dataset (session, xlsx, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dataset->rows, ==, -1);
  g_assert_nonnull (dataset->sha256);
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);

  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  dataset = g_ptr_array_index (assay_session_get_datasets (loaded), 0);
  g_assert_cmpstr (dataset->sha256, ==, expected);
  g_assert_cmpint (dataset->rows, ==, 2);
  g_assert_false (dataset->changed);
  g_clear_object (&loaded);

  /* The same bytes written again (a new modification time): hashed, still the same. */
  g_clear_pointer (&copy, g_free);
  copy = g_build_filename (dir, "data", "sales.csv", NULL);
  g_assert_true (g_file_set_contents (copy, text, -1, NULL));
  g_assert_cmpint (g_stat (copy, &st), ==, 0);
  times.actime = times.modtime = st.st_mtime + 10;
  g_assert_cmpint (utime (copy, &times), ==, 0);
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_false (((AssaySessionDataset *) g_ptr_array_index (assay_session_get_datasets (loaded), 0))->changed);
  g_clear_object (&loaded);

  /* Other bytes of the same size: changed. Then a missing file: changed. */
  data = g_strdup (text);
  data[0] = 'R';
  g_assert_true (g_file_set_contents (copy, data, -1, NULL));
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_true (((AssaySessionDataset *) g_ptr_array_index (assay_session_get_datasets (loaded), 0))->changed);
  g_assert_false (((AssaySessionDataset *) g_ptr_array_index (assay_session_get_datasets (loaded), 1))->changed);
  g_clear_object (&loaded);
  g_assert_cmpint (g_unlink (copy), ==, 0);
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_true (((AssaySessionDataset *) g_ptr_array_index (assay_session_get_datasets (loaded), 0))->changed);
  g_clear_object (&loaded);

  remove_tmp (tmp);
}

/* The sandbox kept for later: an id only (anything else is not kept, also from a record
 * edited by hand), saved and read back, dropped when the session runs on another backend. */
static void
test_sandbox_resume_id (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-session-resume-XXXXXX", NULL);
  g_autofree char *record = g_build_filename (dir, "session.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) edited = NULL;

  session = assay_session_new (dir, &error);
  g_assert_no_error (error);
  assay_session_set_sandbox (session, "e2b", "E2B (template code-interpreter-v1 at https://api.e2b.app)");
  assay_session_set_sandbox_resume_id (session, "../evil");
  g_assert_null (assay_session_get_sandbox_resume_id (session));
  assay_session_set_sandbox_resume_id (session, "i7d2c0e5f1a9b3c4d");
  g_assert_cmpstr (assay_session_get_sandbox_resume_id (session), ==, "i7d2c0e5f1a9b3c4d");
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_sandbox_resume_id (loaded), ==, "i7d2c0e5f1a9b3c4d");
  g_clear_object (&loaded);

  /* Edited by hand: a path is not an id. */
  g_assert_true (g_file_get_contents (record, &text, NULL, NULL));
  edited = g_string_new (text);
  g_string_replace (edited, "i7d2c0e5f1a9b3c4d", "x/../../sandboxes", 0);
  g_assert_true (g_file_set_contents (record, edited->str, -1, NULL));
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_sandbox (loaded), ==, "e2b");
  g_assert_null (assay_session_get_sandbox_resume_id (loaded));

  /* The same backend keeps it; another cannot resume it. */
  assay_session_set_sandbox (session, "e2b", "E2B (template code-interpreter-v1 at https://api.e2b.app)");
  g_assert_cmpstr (assay_session_get_sandbox_resume_id (session), ==, "i7d2c0e5f1a9b3c4d");
  assay_session_set_sandbox (session, "bwrap", "bubblewrap on this machine");
  g_assert_null (assay_session_get_sandbox_resume_id (session));
  assay_session_delete (dir, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/assay/session/round-trip", test_round_trip);
  g_test_add_func ("/assay/session/dataset-sandbox-name", test_dataset_sandbox_name);
  g_test_add_func ("/assay/session/sandbox-resume-id", test_sandbox_resume_id);
  g_test_add_func ("/assay/session/dataset-identity", test_dataset_identity);
  g_test_add_func ("/assay/session/cell-status", test_cell_status);
  g_test_add_func ("/assay/session/atomic-write", test_atomic_write);
  g_test_add_func ("/assay/session/list-rename-delete", test_list_rename_delete);
  g_test_add_func ("/assay/session/delete-never-follows-links", test_delete_never_follows_links);
  g_test_add_func ("/assay/session/bad-records", test_load_rejects_bad_records);
  g_test_add_func ("/assay/session/load-async", test_load_async);
  g_test_add_func ("/assay/session/load-async-cancel-and-errors", test_load_async_cancel_and_errors);
  g_test_add_func ("/assay/session/save-async-order", test_save_async_order);
  g_test_add_func ("/assay/session/load-async-reads-later", test_load_async_reads_later);

  return g_test_run ();
}
