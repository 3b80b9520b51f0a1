/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sandbox end to end, on both backends, with the real engine, real bubblewrap and the
 * built image: state, outputs, artifacts, limits, and code that tries to get out. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include <sqlite3.h>

#include "assay-dataset.h"
#include "assay-session.h"
#include "sandbox-harness.h"

typedef struct
{
  const char         *backend;
  char               *out_dir;
  AssaySandboxSpec   *spec;
  AssayKernelSession *session;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->backend = data;
  fixture->out_dir = g_dir_make_tmp ("assay-test-XXXXXX", NULL);
  fixture->spec = assay_sandbox_spec_new ();
  fixture->spec->limits.timeout_ms = 20 * 1000;
  fixture->spec->limits.grace_ms = 2000;
}

static void
start_session (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;

  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  harness_start (fixture->session, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  const char *argv[] = { "rm", "-rf", fixture->out_dir, NULL };

  if (fixture->session != NULL)
    {
      gpointer weak = fixture->session;

      harness_close_and_check (fixture->session, fixture->backend);
      /* A worker of the close (the channel's reaper) hands the session back on this main
       * context: it is let run, then the session must be gone. */
      g_object_add_weak_pointer (G_OBJECT (fixture->session), &weak);
      g_object_unref (fixture->session);
      {
        gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

        while (weak != NULL && g_get_monotonic_time () < deadline)
          if (!g_main_context_iteration (NULL, FALSE))
            g_usleep (1000);
      }
      g_assert_null (weak);
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free (fixture->out_dir);
  assay_sandbox_spec_free (fixture->spec);
}

#define RUN(code) harness_run (fixture->session, (code))

static void
assert_status (AssayCellResult *result,
               AssayCellStatus  status)
{
  if (assay_cell_result_get_status (result) != status)
    {
      g_autofree char *out = harness_stream_text (result, "stdout");
      g_autofree char *err = harness_stream_text (result, "stderr");
      g_test_message ("status %s (%s), expected %s; stdout: %.2000s; stderr: %.2000s",
                      assay_cell_status_to_string (assay_cell_result_get_status (result)),
                      assay_cell_result_get_reason (result),
                      assay_cell_status_to_string (status), out, err);
    }
  g_assert_cmpstr (assay_cell_status_to_string (assay_cell_result_get_status (result)), ==,
                   assay_cell_status_to_string (status));
}

static void
assert_stdout (AssayCellResult *result,
               const char      *expected)
{
  g_autofree char *out = harness_stream_text (result, "stdout");
  g_assert_cmpstr (out, ==, expected);
}

/* ---- the basics ----------------------------------------------------------------------- */

static void
test_state (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(AssayCellResult) first = NULL;
  g_autoptr(AssayCellResult) second = NULL;

  start_session (fixture);
  first = RUN ("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3]})\nx = 41\n");
  assert_status (first, ASSAY_CELL_OK);
  second = RUN ("print(x + 1, df.shape)");
  assert_status (second, ASSAY_CELL_OK);
  assert_stdout (second, "42 (3, 1)\n");
  g_assert_cmpint (assay_cell_result_get_execution_count (second), ==, 2);
  g_assert_cmpint (assay_cell_result_get_elapsed_ms (second), >=, 0);
}

static void
test_boot_failure (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  const char *command[] = { "sh", "-c", "echo 'kernel exploded' >&2; exit 4", NULL };

  /* A kernel that dies before it is ready: the start fails and says why. */
  fixture->spec->command = g_strdupv ((char **) command);
  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  g_assert_false (harness_start (fixture->session, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "exit code 4"));
  g_assert_nonnull (strstr (error->message, "kernel exploded"));
}

typedef struct
{
  GMainLoop *loop;
  GPtrArray *results;
  guint      expected;   /* 0: 3 */
} Queued;

static void
queued_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Queued *queued = user_data;
  g_autoptr(GError) error = NULL;
  AssayCellResult *cell = assay_kernel_session_execute_finish (ASSAY_KERNEL_SESSION (source), result, &error);

  g_assert_no_error (error);
  g_ptr_array_add (queued->results, cell);
  if (queued->results->len == (queued->expected ? queued->expected : 3))
    g_main_loop_quit (queued->loop);
}

static void
closed_execute_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Queued *queued = user_data;
  g_autoptr(GError) error = NULL;
  AssayCellResult *cell = assay_kernel_session_execute_finish (ASSAY_KERNEL_SESSION (source), result, &error);

  g_assert_null (cell);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  g_main_loop_quit (queued->loop);
}

static void
test_queued_before_start (Fixture       *fixture,
                          gconstpointer  data)
{
  Queued queued = { g_main_loop_new (NULL, FALSE), g_ptr_array_new_with_free_func (g_object_unref), 3 };

  /* Cells sent before the sandbox is up wait for it and run in order. */
  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  assay_kernel_session_execute_async (fixture->session, "n = 1", NULL, queued_cb, &queued);
  assay_kernel_session_execute_async (fixture->session, "n *= 10", NULL, queued_cb, &queued);
  assay_kernel_session_execute_async (fixture->session, "print(n + 1)", NULL, queued_cb, &queued);
  g_main_loop_run (queued.loop);

  for (guint i = 0; i < 3; i++)
    assert_status (g_ptr_array_index (queued.results, i), ASSAY_CELL_OK);
  assert_stdout (g_ptr_array_index (queued.results, 2), "11\n");
  g_ptr_array_unref (queued.results);
  g_main_loop_unref (queued.loop);
}

static gboolean
cancel_soon_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
test_cancelled_while_starting (Fixture       *fixture,
                               gconstpointer  data)
{
  Queued queued = { g_main_loop_new (NULL, FALSE), g_ptr_array_new_with_free_func (g_object_unref), 2 };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  gint64 began;

  /* Stop pressed while the sandbox is still starting: the waiting cell never runs (it would
   * sleep a minute), the next cell runs in the same kernel, without the first cell's state. */
  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  began = g_get_monotonic_time ();
  assay_kernel_session_execute_async (fixture->session,
                                      "import time\nmarker = 1\ntime.sleep(60)",
                                      cancellable, queued_cb, &queued);
  g_idle_add (cancel_soon_cb, cancellable);
  assay_kernel_session_execute_async (fixture->session, "print('marker' in globals())", NULL,
                                      queued_cb, &queued);
  g_main_loop_run (queued.loop);

  assert_status (g_ptr_array_index (queued.results, 0), ASSAY_CELL_CANCELLED);
  assert_status (g_ptr_array_index (queued.results, 1), ASSAY_CELL_OK);
  assert_stdout (g_ptr_array_index (queued.results, 1), "False\n");
  /* Nowhere near the minute the cancelled cell would have slept. */
  g_assert_cmpint (g_get_monotonic_time () - began, <, 30 * G_USEC_PER_SEC);

  /* Already cancelled when it is sent: nothing runs either. */
  {
    g_autoptr(GCancellable) done = g_cancellable_new ();
    Queued one = { g_main_loop_new (NULL, FALSE), g_ptr_array_new_with_free_func (g_object_unref), 1 };

    g_cancellable_cancel (done);
    assay_kernel_session_execute_async (fixture->session, "print('ran')", done, queued_cb, &one);
    g_main_loop_run (one.loop);
    assert_status (g_ptr_array_index (one.results, 0), ASSAY_CELL_CANCELLED);
    g_ptr_array_unref (one.results);
    g_main_loop_unref (one.loop);
  }
  g_ptr_array_unref (queued.results);
  g_main_loop_unref (queued.loop);
}

static void
closed_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_kernel_session_close_finish (ASSAY_KERNEL_SESSION (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static gboolean
count_tick (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

static void
test_close_async (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  g_autofree char *id = NULL;
  gboolean done = FALSE;
  guint ticks = 0;
  guint tick_source;
  Queued late = { g_main_loop_new (NULL, FALSE), g_ptr_array_new_with_free_func (g_object_unref), 1 };

  start_session (fixture);
  result = RUN ("x = 1");
  assert_status (result, ASSAY_CELL_OK);
  id = g_strdup (assay_kernel_session_get_id (fixture->session));

  /* The session is closed at once; the sandbox goes away in a worker while the caller's
   * main loop keeps turning. */
  tick_source = g_timeout_add (5, count_tick, &ticks);
  assay_kernel_session_close_async (fixture->session, closed_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick_source);
  g_assert_cmpuint (harness_count_leftovers (fixture->backend, id), ==, 0);
  g_test_message ("main loop ticks while the sandbox was removed: %u", ticks);

  /* Nothing runs in a closed session. */
  assay_kernel_session_execute_async (fixture->session, "print(1)", NULL, closed_execute_cb, &late);
  g_main_loop_run (late.loop);
  g_ptr_array_unref (late.results);
  g_main_loop_unref (late.loop);
}

static void
test_rich_outputs (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(AssayCellResult) figure = NULL;
  g_autoptr(AssayCellResult) table = NULL;
  g_autoptr(AssayCellResult) error = NULL;
  JsonObject *output;
  g_autofree guchar *png = NULL;
  gsize len;

  start_session (fixture);

  /* No savefig, no show: the open figure is still captured. */
  figure = RUN ("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [4, 1, 9])\nplt.title('Продажи')\n"
                "None");
  assert_status (figure, ASSAY_CELL_OK);
  output = harness_find_output (figure, "display_data", "image/png");
  g_assert_nonnull (output);
  png = g_base64_decode (json_object_get_string_member (json_object_get_object_member (output, "data"),
                                                        "image/png"), &len);
  g_assert_cmpuint (len, >, 1000);
  g_assert_cmpmem (png, 8, "\x89PNG\r\n\x1a\n", 8);

  table = RUN ("import pandas as pd\npd.DataFrame({'город': ['Москва', 'Казань'], 'n': [1, 2]})");
  assert_status (table, ASSAY_CELL_OK);
  output = harness_find_output (table, "execute_result", "text/html");
  g_assert_nonnull (output);
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (output, "data"),
                                                           "text/html"), "<table"));
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (output, "data"),
                                                           "text/plain"), "Москва"));

  error = RUN ("def f():\n    return 1 / 0\nf()");
  assert_status (error, ASSAY_CELL_ERROR);
  output = harness_find_output (error, "error", NULL);
  g_assert_nonnull (output);
  g_assert_cmpstr (json_object_get_string_member (output, "ename"), ==, "ZeroDivisionError");
  {
    JsonArray *traceback = json_object_get_array_member (output, "traceback");
    g_autoptr(GString) all = g_string_new (NULL);

    for (guint i = 0; i < json_array_get_length (traceback); i++)
      g_string_append (all, json_array_get_string_element (traceback, i));
    g_assert_null (strchr (all->str, '\033'));
    g_assert_nonnull (strstr (all->str, "1 / 0"));
    g_assert_null (strstr (all->str, "assay_worker"));
  }
}

static void
count_stream_cb (AssayKernelSession *session,
                 const char         *cell_id,
                 JsonObject         *output,
                 guint              *streams)
{
  if (g_str_equal (json_object_get_string_member (output, "output_type"), "stream"))
    (*streams)++;
}

static void
test_streaming (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  JsonArray *outputs;
  guint streams = 0;

  start_session (fixture);
  /* Printed output arrives while the cell runs, in several messages, not one at the end. */
  g_signal_connect (fixture->session, "output", G_CALLBACK (count_stream_cb), &streams);
  result = RUN ("import time, sys\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.3)\n");
  g_signal_handlers_disconnect_by_func (fixture->session, count_stream_cb, &streams);
  assert_status (result, ASSAY_CELL_OK);
  assert_stdout (result, "0\n1\n2\n");
  g_assert_cmpuint (streams, >=, 3);
  /* The result keeps them joined: one stream output, not one per print. */
  outputs = assay_cell_result_get_outputs (result);
  g_assert_cmpuint (json_array_get_length (outputs), ==, 1);
}

static void
test_artifacts (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  GPtrArray *artifacts;
  gboolean saw_csv = FALSE, saw_png = FALSE;

  start_session (fixture);
  result = RUN ("import pandas as pd, matplotlib.pyplot as plt\n"
                "pd.DataFrame({'a': range(100)}).to_csv('/workspace/out.csv', index=False)\n"
                "fig, ax = plt.subplots()\nax.bar(['a', 'b'], [3, 5])\n"
                "import os\nos.makedirs('/workspace/plots', exist_ok=True)\n"
                "fig.savefig('/workspace/plots/bar.png')\nplt.close(fig)\n");
  assert_status (result, ASSAY_CELL_OK);
  artifacts = assay_cell_result_get_artifacts (result);
  g_assert_cmpuint (artifacts->len, ==, 2);
  for (guint i = 0; i < artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (artifacts, i);
      g_autofree char *contents = NULL;
      gsize len;

      g_assert_true (g_str_has_prefix (artifact->path, fixture->out_dir));
      g_assert_true (g_file_get_contents (artifact->path, &contents, &len, NULL));
      g_assert_cmpuint (len, ==, artifact->bytes);
      if (g_str_equal (artifact->name, "out.csv"))
        {
          saw_csv = TRUE;
          g_assert_cmpstr (artifact->mime, ==, "text/csv");
          g_assert_true (g_str_has_prefix (contents, "a\n0\n1\n"));
        }
      else if (g_str_equal (artifact->name, "plots/bar.png"))
        {
          saw_png = TRUE;
          g_assert_cmpstr (artifact->mime, ==, "image/png");
          g_assert_cmpmem (contents, 4, "\x89PNG", 4);
        }
    }
  g_assert_true (saw_csv);
  g_assert_true (saw_png);

  /* Unchanged files are not sent again. */
  {
    g_autoptr(AssayCellResult) again = RUN ("x = 1");
    g_assert_cmpuint (assay_cell_result_get_artifacts (again)->len, ==, 0);
  }
}

/* How many image/png outputs a cell has, and whether NAME is among its artifacts. */
static guint
count_inline_figures (AssayCellResult *result)
{
  JsonArray *outputs = assay_cell_result_get_outputs (result);
  guint n = 0;

  for (guint i = 0; i < json_array_get_length (outputs); i++)
    {
      JsonObject *output = json_array_get_object_element (outputs, i);
      JsonObject *bundle = json_object_has_member (output, "data")
                           ? json_object_get_object_member (output, "data") : NULL;

      n += bundle != NULL && json_object_has_member (bundle, "image/png");
    }
  return n;
}

static gboolean
has_artifact (AssayCellResult *result,
              const char      *name)
{
  GPtrArray *artifacts = assay_cell_result_get_artifacts (result);

  for (guint i = 0; i < artifacts->len; i++)
    if (g_str_equal (((AssayArtifact *) g_ptr_array_index (artifacts, i))->name, name))
      return TRUE;
  return FALSE;
}

/* A figure the cell saved to a PNG in the workspace is that file, its artifact: plt.show(),
 * display() or the capture at the end of the cell do not send it again as an image. A figure
 * changed after it was saved, saved elsewhere or in another format still is shown. */
static void
test_figure_saved_once (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(AssayCellResult) shown = NULL;
  g_autoptr(AssayCellResult) captured = NULL;
  g_autoptr(AssayCellResult) displayed = NULL;
  g_autoptr(AssayCellResult) changed = NULL;
  g_autoptr(AssayCellResult) elsewhere = NULL;

  start_session (fixture);
  shown = RUN ("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.bar(['a', 'b'], [3, 5])\n"
               "fig.savefig('/workspace/shown.png', dpi=80)\nplt.show()\nprint('saved')\n");
  assert_status (shown, ASSAY_CELL_OK);
  assert_stdout (shown, "saved\n");
  g_assert_true (has_artifact (shown, "shown.png"));
  g_assert_cmpuint (count_inline_figures (shown), ==, 0);

  /* plt.savefig with a relative name, the figure left open for the end of the cell. */
  captured = RUN ("plt.plot([1, 2, 3])\nplt.title('Open')\nplt.savefig('captured.png')\n");
  assert_status (captured, ASSAY_CELL_OK);
  g_assert_true (has_artifact (captured, "captured.png"));
  g_assert_cmpuint (count_inline_figures (captured), ==, 0);

  displayed = RUN ("fig, ax = plt.subplots()\nax.plot([3, 1])\nfig.savefig('/workspace/displayed.png')\nfig");
  assert_status (displayed, ASSAY_CELL_OK);
  g_assert_true (has_artifact (displayed, "displayed.png"));
  g_assert_cmpuint (count_inline_figures (displayed), ==, 0);

  /* Changed after it was saved: what the file holds is not what is shown. */
  changed = RUN ("fig, ax = plt.subplots()\nax.plot([1, 2])\nfig.savefig('/workspace/before.png')\n"
                 "ax.set_title('After the save')\nplt.show()\n");
  assert_status (changed, ASSAY_CELL_OK);
  g_assert_true (has_artifact (changed, "before.png"));
  g_assert_cmpuint (count_inline_figures (changed), ==, 1);

  /* Outside the workspace (no artifact), as a PDF (no figure in a report), a file deleted. */
  elsewhere = RUN ("import os\n"
                   "a, ax = plt.subplots()\nax.plot([1])\na.savefig('/tmp/elsewhere.png')\n"
                   "b, ax = plt.subplots()\nax.plot([2])\nb.savefig('/workspace/figure.pdf')\n"
                   "c, ax = plt.subplots()\nax.plot([3])\nc.savefig('/workspace/gone.png')\n"
                   "os.remove('/workspace/gone.png')\nplt.show()\n");
  assert_status (elsewhere, ASSAY_CELL_OK);
  g_assert_true (has_artifact (elsewhere, "figure.pdf"));
  g_assert_cmpuint (count_inline_figures (elsewhere), ==, 3);
}

/* A dataset added while the sandbox runs is there for the next cell, read-only (an engine
 * elsewhere gets it sent, as the first ones were). */
static void
test_datasets_added_later (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(AssayCellResult) first = NULL;
  g_autoptr(AssayCellResult) second = NULL;
  g_autoptr(AssayCellResult) write = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *a = g_build_filename (fixture->out_dir, "a.csv", NULL);
  g_autofree char *b = g_build_filename (fixture->out_dir, "b.csv", NULL);

  g_assert_true (g_file_set_contents (a, "x\n1\n", -1, NULL));
  g_assert_true (g_file_set_contents (b, "y\n2\n3\n", -1, NULL));
  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  g_assert_true (assay_kernel_session_add_dataset (fixture->session, a, &error));
  g_assert_no_error (error);
  harness_start (fixture->session, &error);
  g_assert_no_error (error);

  first = RUN ("import os\nprint(sorted(os.listdir('/data')))");
  assert_status (first, ASSAY_CELL_OK);
  assert_stdout (first, "['a.csv']\n");
  g_assert_true (assay_kernel_session_add_dataset (fixture->session, b, &error));
  g_assert_no_error (error);
  second = RUN ("print(sorted(os.listdir('/data')), open('/data/b.csv').read().split())");
  assert_status (second, ASSAY_CELL_OK);
  assert_stdout (second, "['a.csv', 'b.csv'] ['y', '2', '3']\n");
  write = RUN ("open('/data/b.csv', 'a').write('x')");
  assert_status (write, ASSAY_CELL_ERROR);
}

/* Security issue 33, item 1: inotify instances and the bytes of POSIX message queues are
 * counted per uid. One sandbox that takes all of them must leave the other sandboxes theirs:
 * bubblewrap refuses both calls outright; Docker gives each sandbox a uid of its own. */
static void
test_quotas_per_sandbox (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(AssayKernelSession) other = NULL;
  g_autoptr(AssayCellResult) take = NULL;
  g_autoptr(AssayCellResult) look = NULL;
  g_autoptr(AssayCellResult) after = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *other_dir = g_dir_make_tmp ("assay-test-XXXXXX", NULL);
  g_autofree char *taken = NULL;
  g_autofree char *looked = NULL;
  const char *preamble =
    "import ctypes, errno, os\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def inotify():\n"
    "    fd = libc.inotify_init1(0)\n"
    "    return fd if fd >= 0 else -ctypes.get_errno()\n"
    "def mqueue(name):\n"
    "    fd = libc.mq_open(name.encode(), os.O_CREAT | os.O_RDWR, 0o600, None)\n"
    "    return fd if fd >= 0 else -ctypes.get_errno()\n";
  g_autofree char *take_code = NULL;
  g_autofree char *look_code = NULL;
  const char *rm_argv[] = { "rm", "-rf", other_dir, NULL };

  take_code = g_strconcat (preamble,
                           "held = []\n"
                           "for i in range(4096):\n"
                           "    fd = inotify()\n"
                           "    if fd < 0:\n"
                           "        break\n"
                           "    held.append(fd)\n"
                           "print('inotify', len(held), errno.errorcode[-fd])\n"
                           "for i in range(4096):\n"
                           "    fd = mqueue('/hog%d' % i)\n"
                           "    if fd < 0:\n"
                           "        break\n"
                           "    held.append(fd)\n"
                           "print('mqueue', i, errno.errorcode[-fd])\n", NULL);
  look_code = g_strconcat (preamble,
                           "fd = inotify()\n"
                           "print('inotify', 'ok' if fd >= 0 else errno.errorcode[-fd])\n"
                           "fd = mqueue('/mine')\n"
                           "print('mqueue', 'ok' if fd >= 0 else errno.errorcode[-fd])\n", NULL);

  start_session (fixture);
  other = harness_session_new (fixture->backend, fixture->spec, other_dir);
  harness_start (other, &error);
  g_assert_no_error (error);

  take = RUN (take_code);
  assert_status (take, ASSAY_CELL_OK);
  taken = harness_stream_text (take, "stdout");
  g_test_message ("the hostile sandbox: %s", taken);
  look = harness_run (other, look_code);
  assert_status (look, ASSAY_CELL_OK);
  looked = harness_stream_text (look, "stdout");
  g_test_message ("the other sandbox: %s", looked);

  if (g_str_equal (fixture->backend, "bwrap"))
    {
      assert_stdout (take, "inotify 0 EPERM\nmqueue 0 EPERM\n");
      assert_stdout (look, "inotify EPERM\nmqueue EPERM\n");
    }
  else
    {
      /* The hostile cell really ran out (so the other's were at stake)... */
      g_assert_true (g_str_has_prefix (taken, "inotify "));
      g_assert_nonnull (strstr (taken, " EMFILE\nmqueue "));
      g_assert_true (g_str_has_suffix (taken, " EMFILE\n"));
      /* ...and the other sandbox still has its own. */
      assert_stdout (look, "inotify ok\nmqueue ok\n");
    }
  after = harness_run (other, "print(6 * 7)");
  assert_status (after, ASSAY_CELL_OK);
  assert_stdout (after, "42\n");
  harness_close_and_check (other, fixture->backend);
  g_spawn_sync (NULL, (char **) rm_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

/* Security issue 19, item 18: /proc/self/mountinfo names the folder each bind mount came
 * from, and the model reads what cells print: the data folder must not be in the home or the
 * cache (whose paths name the user) nor where the dataset was found, and is gone after. */
static void
test_mountinfo_names_no_host_folder (Fixture       *fixture,
                                     gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = g_build_filename (fixture->out_dir, "sales.csv", NULL);
  g_autofree char *stage = NULL;
  g_autofree char *out = NULL;
  const char *named[] = { g_get_home_dir (), g_get_user_cache_dir (), g_get_user_data_dir (),
                          "/var/cache/assay", fixture->out_dir };

  g_assert_true (g_file_set_contents (csv, "x\n1\n", -1, NULL));
  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  g_assert_true (assay_kernel_session_add_dataset (fixture->session, csv, &error));
  g_assert_no_error (error);
  harness_start (fixture->session, &error);
  g_assert_no_error (error);
  stage = g_path_get_dirname (assay_kernel_session_get_data_dir (fixture->session));

  result = RUN ("print(open('/data/sales.csv').read().split())\n"
                "print(open('/proc/self/mountinfo').read())\n");
  assert_status (result, ASSAY_CELL_OK);
  out = harness_stream_text (result, "stdout");
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "['x', '1']"));
  /* A path that starts with the folder (an engine's own storage may have "root" or "home"
   * inside its own paths, as Podman's test storage does). */
  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    if (named[i] != NULL && strlen (named[i]) > 1)
      for (const char *at = strstr (out, named[i]); at != NULL; at = strstr (at + 1, named[i]))
        {
          char before = at == out ? ' ' : at[-1];
          char after = at[strlen (named[i])];

          if (strchr (" =:,\n", before) != NULL && (after == '/' || after == ' ' || after == '\0' || after == '\n'))
            g_error ("mountinfo names %s", named[i]);
        }
  g_assert_true (g_file_test (stage, G_FILE_TEST_IS_DIR));

  assay_kernel_session_close (fixture->session);
  g_assert_false (g_file_test (stage, G_FILE_TEST_EXISTS));
}

static void
test_datasets (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(AssayCellResult) read = NULL;
  g_autoptr(AssayCellResult) write = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = g_build_filename (fixture->out_dir, "продажи.csv", NULL);

  g_assert_true (g_file_set_contents (csv, "регион;сумма\nСевер;1,5\nЮг;2,25\n", -1, NULL));
  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  g_assert_true (assay_kernel_session_add_dataset (fixture->session, csv, &error));
  g_assert_no_error (error);
  harness_start (fixture->session, &error);
  g_assert_no_error (error);

  read = RUN ("import pandas as pd\ndf = pd.read_csv('/data/продажи.csv', sep=';', decimal=',')\n"
              "print(df['сумма'].sum())");
  assert_status (read, ASSAY_CELL_OK);
  assert_stdout (read, "3.75\n");

  write = RUN ("open('/data/продажи.csv', 'a').write('x')");
  assert_status (write, ASSAY_CELL_ERROR);
  {
    g_autofree char *contents = NULL;

    g_assert_true (g_file_get_contents (csv, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "регион;сумма\nСевер;1,5\nЮг;2,25\n");
  }
}

/* An SQLite file as the session copies it (the backup API, from a WAL database whose writer
 * still holds it open with committed rows in the WAL only): sqlite3 and pandas.read_sql open
 * it read-only through the URI the model is told, every committed row is there, and a write
 * fails. */
static const AssayCheck *
find_check (const AssayCellChecks *checks,
            AssayCheckKind         kind,
            guint                  nth)
{
  for (guint i = 0; checks != NULL && i < checks->items->len; i++)
    {
      const AssayCheck *check = g_ptr_array_index (checks->items, i);

      if (check->kind == kind && nth-- == 0)
        return check;
    }
  return NULL;
}

static void
test_sqlite_dataset (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(AssayCellResult) read = NULL;
  g_autoptr(AssayCellResult) pandas = NULL;
  g_autoptr(AssayCellResult) write = NULL;
  g_autoptr(AssaySession) record = NULL;
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *original = g_build_filename (fixture->out_dir, "живые.db", NULL);
  g_autofree char *record_dir = g_build_filename (fixture->out_dir, "record", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *code = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  const AssaySessionDataset *added;
  sqlite3 *writer = NULL;

  g_assert_cmpint (sqlite3_open (original, &writer), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (writer, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
                                         "CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT, amount REAL);"
                                         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
                                         "INSERT INTO sales SELECT i, CASE i % 2 WHEN 0 THEN 'Север' ELSE 'Юг' END, "
                                         "i * 0.5 FROM n;"
                                         "BEGIN; INSERT INTO sales VALUES (5000, 'uncommitted', 1e9);",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  record = assay_session_new (record_dir, &error);
  g_assert_no_error (error);
  added = assay_session_add_dataset (record, original, NULL, &error);
  g_assert_no_error (error);
  copy = assay_session_resolve (record, added->path);
  sqlite3_exec (writer, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close (writer);
  dataset = assay_dataset_open (copy, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (copy, &before, NULL, NULL));

  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  g_assert_true (assay_kernel_session_add_dataset (fixture->session, copy, &error));
  g_assert_no_error (error);
  harness_start (fixture->session, &error);
  g_assert_no_error (error);

  /* Exactly what the model is told. */
  code = g_strdup_printf ("import sqlite3\ncon = %s\n"
                          "print(con.execute('SELECT count(*), max(id), sum(amount) FROM sales').fetchone())",
                          assay_dataset_get_connect_call (dataset));
  read = RUN (code);
  assert_status (read, ASSAY_CELL_OK);
  assert_stdout (read, "(1000, 1000, 250250.0)\n");
  /* The checks see the file SQLite opened (in C, with a file: URI). */
  g_assert_nonnull (assay_cell_result_get_checks (read));
  g_assert_cmpuint (assay_cell_result_get_checks (read)->files->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (assay_cell_result_get_checks (read)->files, 0), ==, "живые.db");

  pandas = RUN ("import pandas as pd\n"
                "df = pd.read_sql('SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region', con)\n"
                "print(df.to_csv(index=False), end='')");
  assert_status (pandas, ASSAY_CELL_OK);
  assert_stdout (pandas, "region,total\nСевер,125250.0\nЮг,125000.0\n");
  /* read_sql on the dataset is a read of it, with the shape of what the query returned. */
  {
    const AssayCellChecks *checks = assay_cell_result_get_checks (pandas);
    const AssayCheck *check = find_check (checks, ASSAY_CHECK_READ, 0);

    g_assert_nonnull (check);
    g_assert_cmpstr (check->file, ==, "живые.db");
    g_assert_cmpint (check->rows, ==, 2);
    g_assert_cmpint (check->columns, ==, 2);
    g_assert_null (find_check (checks, ASSAY_CHECK_READ, 1));
  }

  write = RUN ("import sqlite3\n"
               "for uri in ['file:/data/живые.db?mode=ro&immutable=1', 'file:/data/живые.db']:\n"
               "    try:\n"
               "        c = sqlite3.connect(uri, uri=True)\n"
               "        c.execute(\"INSERT INTO sales VALUES (7000, 'x', 1)\")\n"
               "        c.commit()\n"
               "        print('WROTE', uri)\n"
               "    except sqlite3.Error as e:\n"
               "        print('refused:', type(e).__name__)\n"
               "import os\nprint(os.access('/data/живые.db', os.W_OK))");
  assert_status (write, ASSAY_CELL_OK);
  {
    g_autofree char *out = harness_stream_text (write, "stdout");

    g_test_message ("%s", out);
    g_assert_null (strstr (out, "WROTE"));
    g_assert_nonnull (strstr (out, "refused:"));
    g_assert_true (g_str_has_suffix (out, "False\n"));
  }
  g_assert_true (g_file_get_contents (copy, &after, NULL, NULL));
  g_assert_cmpstr (before, ==, after);
}

/* ---- checks: what a cell did to its data --------------------------------------------- */

static void
test_checks (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(AssayCellResult) read = NULL;
  g_autoptr(AssayCellResult) merged = NULL;
  g_autoptr(AssayCellResult) quiet = NULL;
  g_autoptr(AssayCellResult) off = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *orders = g_build_filename (fixture->out_dir, "orders.csv", NULL);
  g_autofree char *customers = g_build_filename (fixture->out_dir, "customers.csv", NULL);
  g_autofree char *described = NULL;
  const AssayCellChecks *checks;
  const AssayCheck *check;

  /* Order 4 twice (a duplicate), customer 99 and an empty customer match no customer, and
   * customer 13 has no order; a bad line with too many fields. */
  g_assert_true (g_file_set_contents (orders, "order_id,customer_id,amount\n1,10,5\n2,11,7\n3,12,9\n"
                                              "4,99,1\n4,99,1\n5,,3\n6,10,2,extra\n", -1, NULL));
  g_assert_true (g_file_set_contents (customers, "customer_id,name\n10,a\n11,b\n12,c\n13,d\n", -1, NULL));
  fixture->session = harness_session_new (fixture->backend, fixture->spec, fixture->out_dir);
  g_assert_true (assay_kernel_session_add_dataset (fixture->session, orders, &error));
  g_assert_true (assay_kernel_session_add_dataset (fixture->session, customers, &error));
  g_assert_no_error (error);
  harness_start (fixture->session, &error);
  g_assert_no_error (error);

  read = RUN ("import pandas as pd\n"
              "o = pd.read_csv('/data/orders.csv', on_bad_lines='skip')\n"
              "c = pd.read_csv('customers.csv'.join(['/data/', '']))\n"
              "d = o.drop_duplicates()\n"
              "o.dropna(inplace=True)\n"
              "print(len(o), len(d))");
  assert_status (read, ASSAY_CELL_OK);
  assert_stdout (read, "5 5\n");
  checks = assay_cell_result_get_checks (read);
  g_assert_nonnull (checks);
  check = find_check (checks, ASSAY_CHECK_READ, 0);
  g_assert_nonnull (check);
  g_assert_cmpstr (check->file, ==, "orders.csv");
  g_assert_cmpint (check->rows, ==, 6);
  g_assert_cmpint (check->columns, ==, 3);
  g_assert_cmpint (check->bad_lines, ==, 1);
  check = find_check (checks, ASSAY_CHECK_READ, 1);
  g_assert_cmpstr (check->file, ==, "customers.csv");
  g_assert_cmpint (check->bad_lines, ==, -1);
  check = find_check (checks, ASSAY_CHECK_DROP_DUPLICATES, 0);
  g_assert_cmpint (check->before, ==, 6);
  g_assert_cmpint (check->rows, ==, 5);
  check = find_check (checks, ASSAY_CHECK_DROPNA, 0);
  g_assert_cmpint (check->before, ==, 6);
  g_assert_cmpint (check->rows, ==, 5);   /* in place */
  g_assert_cmpuint (checks->files->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (checks->files, 0), ==, "orders.csv");
  /* o, c and d are new; o changed in place later, it is still the frame first bound. */
  g_assert_cmpuint (checks->frames->len, ==, 3);

  /* A lossy left merge and a many-to-many one. */
  merged = RUN ("m = d.merge(c, on='customer_id', how='left')\n"
                "dd = pd.concat([d, d])\nmm = pd.merge(dd, dd, on='customer_id')\n"
                "print(len(m), len(mm))");
  assert_status (merged, ASSAY_CELL_OK);
  checks = assay_cell_result_get_checks (merged);
  check = find_check (checks, ASSAY_CHECK_MERGE, 0);
  g_assert_nonnull (check);
  g_assert_cmpstr (check->how, ==, "left");
  g_assert_cmpint (check->left, ==, 5);
  g_assert_cmpint (check->right, ==, 4);
  g_assert_cmpint (check->rows, ==, 5);
  g_assert_cmpint (check->left_unmatched, ==, 2);   /* customer 99, and none */
  g_assert_cmpint (check->right_unmatched, ==, 1);  /* customer 13 */
  g_assert_cmpint (check->many_to_many, ==, 0);
  check = find_check (checks, ASSAY_CHECK_MERGE, 1);
  g_assert_nonnull (check);
  g_assert_cmpint (check->many_to_many, ==, 1);
  g_assert_cmpuint (checks->files->len, ==, 0);
  described = assay_cell_checks_describe (checks, TRUE);
  g_assert_nonnull (strstr (described, "merge (left): rows 5 and 4 → 5, rows whose key the other side lacks: 2 left, 1 right"));
  g_assert_nonnull (strstr (described, "many-to-many"));

  /* pandas calling itself is not the cell's doing; nor is anything with the checks off. */
  quiet = RUN ("x = d.describe()\ny = d.pivot_table(index='customer_id', values='amount')");
  assert_status (quiet, ASSAY_CELL_OK);
  checks = assay_cell_result_get_checks (quiet);
  g_assert_nonnull (checks);
  g_assert_cmpuint (checks->items->len, ==, 0);
  g_assert_cmpuint (checks->files->len, ==, 0);
  g_assert_null (assay_cell_checks_describe (checks, TRUE));
  /* The DataFrames it made, by name and shape (what schema-only mode tells the model). */
  g_assert_cmpuint (checks->frames->len, ==, 2);
  g_free (described);
  described = assay_cell_checks_describe_frames (checks);
  g_assert_cmpstr (described, ==, "x (8 rows × 3 columns), y (4 rows × 1 columns)");
  assay_kernel_session_set_checks (fixture->session, FALSE);
  off = RUN ("z = d.drop_duplicates()\nopen('/data/orders.csv').read()");
  assert_status (off, ASSAY_CELL_OK);
  g_assert_null (assay_cell_result_get_checks (off));
}

/* ---- interrupts, hangs, memory -------------------------------------------------------- */

static void
test_timeout_keeps_state (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(AssayCellResult) slow = NULL;
  g_autoptr(AssayCellResult) loop = NULL;
  g_autoptr(AssayCellResult) after = NULL;

  fixture->spec->limits.timeout_ms = 1500;
  start_session (fixture);
  slow = RUN ("import time\ny = 5\ntime.sleep(100)");
  assert_status (slow, ASSAY_CELL_TIMEOUT);
  g_assert_false (assay_cell_result_get_state_lost (slow));
  g_assert_cmpint (assay_cell_result_get_elapsed_ms (slow), <, 10000);

  loop = RUN ("y += 1\nwhile True:\n    pass");
  assert_status (loop, ASSAY_CELL_TIMEOUT);
  g_assert_false (assay_cell_result_get_state_lost (loop));

  after = RUN ("print(y)");
  assert_status (after, ASSAY_CELL_OK);
  assert_stdout (after, "6\n");
}

static void
test_hang_killed_and_replayed (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(AssayCellResult) setup = NULL;
  g_autoptr(AssayCellResult) hang = NULL;
  g_autoptr(AssayCellResult) after = NULL;

  fixture->spec->limits.timeout_ms = 1500;
  fixture->spec->limits.grace_ms = 1000;
  start_session (fixture);
  assay_kernel_session_set_replay_on_restart (fixture->session, TRUE);

  setup = RUN ("import pandas as pd\nx = 7\ndf = pd.DataFrame({'v': [1, 2]})");
  assert_status (setup, ASSAY_CELL_OK);
  /* Ignores SIGINT and SIGTERM: only killing the sandbox stops it. */
  hang = RUN ("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
              "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass");
  assert_status (hang, ASSAY_CELL_TIMEOUT);
  g_assert_true (assay_cell_result_get_state_lost (hang));
  g_assert_cmpuint (assay_cell_result_get_replayed (hang), ==, 1);

  after = RUN ("print(x, len(df))");
  assert_status (after, ASSAY_CELL_OK);
  assert_stdout (after, "7 2\n");
}

static void
test_oom (Fixture       *fixture,
          gconstpointer  data)
{
  g_autoptr(AssayCellResult) bomb = NULL;
  g_autoptr(AssayCellResult) after = NULL;

  fixture->spec->limits.memory_bytes = 400 * 1024 * 1024;
  start_session (fixture);
  /* Touches every page, so the memory is really used, not just reserved. */
  bomb = RUN ("import numpy as np\nblocks = []\nwhile True:\n    blocks.append(np.ones(16 * 1024 * 1024))\n");
  assert_status (bomb, ASSAY_CELL_OOM);

  after = RUN ("print('alive')");
  assert_status (after, ASSAY_CELL_OK);
  assert_stdout (after, "alive\n");
}

/* ---- hostile code --------------------------------------------------------------------- */

static void
test_fork_and_thread_bombs (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(AssayCellResult) forks = NULL;
  g_autoptr(AssayCellResult) threads = NULL;
  g_autoptr(AssayCellResult) after = NULL;

  fixture->spec->limits.timeout_ms = 3000;
  fixture->spec->limits.grace_ms = 1500;
  start_session (fixture);

  forks = RUN ("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n");
  g_assert_true (assay_cell_result_get_status (forks) == ASSAY_CELL_TIMEOUT ||
                 assay_cell_result_get_status (forks) == ASSAY_CELL_CRASHED);

  threads = RUN ("import threading, time\nts = []\nwhile True:\n"
                 "    t = threading.Thread(target=time.sleep, args=(60,), daemon=True)\n"
                 "    t.start()\n    ts.append(t)\n");
  g_assert_true (assay_cell_result_get_status (threads) == ASSAY_CELL_ERROR ||
                 assay_cell_result_get_status (threads) == ASSAY_CELL_TIMEOUT ||
                 assay_cell_result_get_status (threads) == ASSAY_CELL_CRASHED);

  /* The session recovers: at worst a fresh sandbox. */
  after = RUN ("print('alive')");
  assert_status (after, ASSAY_CELL_OK);
  assert_stdout (after, "alive\n");
}

static void
test_network_is_off (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GSocketService) service = g_socket_service_new ();
  g_autoptr(AssayCellResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;
  g_autofree char *out = NULL;
  guint16 port;

  /* A server on the host's loopback and on every address (the Docker bridge included). */
  port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (service), NULL, &error);
  g_assert_no_error (error);
  g_socket_service_start (service);

  start_session (fixture);
  code = g_strdup_printf (
    "import socket\n"
    "def attempt(name, fn):\n"
    "    try:\n"
    "        fn()\n"
    "        print(name, 'REACHED')\n"
    "    except Exception as e:\n"
    "        print(name, 'blocked', type(e).__name__)\n"
    "def tcp(host, port, family=socket.AF_INET):\n"
    "    s = socket.socket(family, socket.SOCK_STREAM)\n"
    "    s.settimeout(2)\n"
    "    s.connect((host, port))\n"
    "def udp():\n"
    "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
    "    s.sendto(b'x', ('1.1.1.1', 53))\n"
    "attempt('tcp-public', lambda: tcp('1.1.1.1', 443))\n"
    "attempt('udp-public', udp)\n"
    "attempt('dns', lambda: socket.getaddrinfo('deb.debian.org', 80))\n"
    "attempt('ipv6', lambda: tcp('2606:4700:4700::1111', 443, socket.AF_INET6))\n"
    "attempt('host-loopback', lambda: tcp('127.0.0.1', %u))\n"
    "attempt('docker-bridge', lambda: tcp('172.17.0.1', %u))\n"
    "import os\n"
    "print('interfaces', sorted(os.listdir('/sys/class/net')) if os.path.exists('/sys/class/net') else [])\n",
    port, port);
  result = RUN (code);
  assert_status (result, ASSAY_CELL_OK);
  out = harness_stream_text (result, "stdout");
  g_test_message ("%s", out);
  g_assert_null (strstr (out, "REACHED"));
  g_assert_nonnull (strstr (out, "host-loopback blocked"));
  g_assert_nonnull (strstr (out, "docker-bridge blocked"));
  g_socket_service_stop (service);
}

static void
test_host_is_invisible (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  g_autofree char *secret = g_build_filename (g_get_tmp_dir (), "assay-host-secret.txt", NULL);
  g_autofree char *code = NULL;
  g_autofree char *out = NULL;

  g_assert_true (g_file_set_contents (secret, "top secret", -1, NULL));
  g_setenv ("ASSAY_TEST_SECRET_KEY", "sk-should-never-leak", TRUE);
  start_session (fixture);

  code = g_strdup_printf (
    "import os\n"
    "print('env', sorted(os.environ))\n"
    "print('leak' if any('sk-should' in v for v in os.environ.values()) else 'clean')\n"
    "print('secret', os.path.exists(%s))\n"
    "for p in ['/var/run/docker.sock', '/run/docker.sock', '/root', '/home', '/run/user']:\n"
    "    try:\n"
    "        print(p, os.listdir(p) if os.path.isdir(p) else os.path.exists(p))\n"
    "    except OSError as e:\n"
    "        print(p, 'refused')\n"
    "print('uid', os.getuid(), os.geteuid())\n",
    "'/tmp/assay-host-secret.txt'");
  result = RUN (code);
  assert_status (result, ASSAY_CELL_OK);
  out = harness_stream_text (result, "stdout");
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "clean\n"));
  g_assert_null (strstr (out, "ASSAY_TEST_SECRET_KEY"));
  g_assert_null (strstr (out, "DOCKER_HOST"));
  g_assert_nonnull (strstr (out, "secret False"));
  g_assert_nonnull (strstr (out, "/var/run/docker.sock False"));
  g_assert_nonnull (strstr (out, "/run/docker.sock False"));
  /* Never root; under Docker (no user namespace) not the desktop user's uid either, whose
   * per-user kernel quotas it would share; bubblewrap's 1000 is in its own namespace. */
  if (g_str_equal (fixture->backend, "docker"))
    g_assert_true (g_regex_match_simple ("^uid (21474[2-8]\\d{4}) \\1$", out, G_REGEX_MULTILINE, 0));
  else
    g_assert_nonnull (strstr (out, "uid 1000 1000"));
  g_unsetenv ("ASSAY_TEST_SECRET_KEY");
  g_unlink (secret);
}

static void
test_writes_outside_workspace (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  g_autofree char *out = NULL;

  start_session (fixture);
  result = RUN ("import os\n"
                "for p in ['/usr/lib/evil', '/etc/passwd', '/opt/assay/kernel/assay_kernel.py', '/data/new.csv', '/evil']:\n"
                "    try:\n"
                "        open(p, 'a').write('x')\n"
                "        print(p, 'WRITTEN')\n"
                "    except OSError as e:\n"
                "        print(p, 'refused')\n");
  assert_status (result, ASSAY_CELL_OK);
  out = harness_stream_text (result, "stdout");
  g_assert_null (strstr (out, "WRITTEN"));
}

static void
test_hostile_artifacts (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  g_autofree char *err = NULL;
  GPtrArray *artifacts;

  start_session (fixture);
  result = RUN ("import os\n"
                "os.symlink('/etc/passwd', '/workspace/link.csv')\n"
                "os.symlink('/workspace', '/workspace/loop')\n"
                "os.mkfifo('/workspace/pipe.csv')\n"
                "names = ['a\\nb.csv', '..', '...csv', '-rf', 'x' * 250 + '.csv', 'back\\\\slash.txt',\n"
                "         '\\u202eevil.txt', 'тест.csv', '\\x1b[31mred.txt']\n"
                "for n in names:\n"
                "    try:\n"
                "        open(os.path.join('/workspace', n), 'w').write('ok')\n"
                "    except OSError as e:\n"
                "        print('skip', repr(n), e)\n");
  assert_status (result, ASSAY_CELL_OK);
  artifacts = assay_cell_result_get_artifacts (result);
  err = harness_stream_text (result, "stderr");
  g_test_message ("stderr: %s", err);
  g_assert_cmpuint (artifacts->len, >=, 7);
  for (guint i = 0; i < artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (artifacts, i);
      g_autofree char *dir = g_path_get_dirname (artifact->path);
      g_autofree char *contents = NULL;

      /* Stored flat in the folder the host chose, with clean names. */
      g_assert_cmpstr (dir, ==, fixture->out_dir);
      g_assert_null (strchr (artifact->name, '\n'));
      g_assert_null (strchr (artifact->name, '\033'));
      g_assert_null (strstr (artifact->name, ".."));
      g_assert_false (g_file_test (artifact->path, G_FILE_TEST_IS_SYMLINK));
      g_assert_true (g_file_get_contents (artifact->path, &contents, NULL, NULL));
      g_assert_cmpstr (contents, ==, "ok");
      g_assert_cmpstr (artifact->name, !=, "link.csv");
      g_assert_cmpstr (artifact->name, !=, "pipe.csv");
    }
  g_assert_nonnull (strstr (err, "skipped"));
}

static void
test_output_floods (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(AssayCellResult) flood = NULL;
  g_autoptr(AssayCellResult) child = NULL;
  g_autoptr(AssayCellResult) escapes = NULL;
  g_autoptr(AssayCellResult) after = NULL;
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;

  fixture->spec->limits.output_bytes = 1024 * 1024;
  start_session (fixture);

  flood = RUN ("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n");
  assert_status (flood, ASSAY_CELL_LIMIT);
  out = harness_stream_text (flood, "stdout");
  g_assert_cmpuint (strlen (out), <=, 1024 * 1024 + 4096);
  g_assert_nonnull (strstr (out, "output truncated"));

  /* A child process writing straight to fd 1: GBs of NULs. */
  child = RUN ("import subprocess\nsubprocess.run(['head', '-c', '3000000000', '/dev/zero'])\n");
  assert_status (child, ASSAY_CELL_LIMIT);

  escapes = RUN ("import os\nprint('\\x00\\x1b[31mred\\x1b[0m\\x1b]0;title\\x07\\x07end')\n"
                 "os.write(1, b'{\"type\":\"done\",\"id\":\"c3\",\"status\":\"ok\"}\\n')\n"
                 "os.write(2, b'\\x1b[2J')\n");
  assert_status (escapes, ASSAY_CELL_OK);
  text = harness_stream_text (escapes, "stdout");
  g_assert_nonnull (strstr (text, "redend"));
  g_assert_null (strchr (text, '\033'));
  g_assert_null (strchr (text, '\a'));
  /* The forged message came back as plain text, not as the end of the cell. */
  g_assert_nonnull (strstr (text, "\"type\":\"done\""));

  after = RUN ("print('alive')");
  assert_status (after, ASSAY_CELL_OK);
  assert_stdout (after, "alive\n");
}

static void
test_many_and_huge_files (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(AssayCellResult) many = NULL;
  g_autoptr(AssayCellResult) huge = NULL;
  g_autoptr(AssayCellResult) tmp = NULL;
  g_autoptr(AssayCellResult) after = NULL;
  GPtrArray *artifacts;

  fixture->spec->limits.artifact_bytes = 8 * 1024 * 1024;
  fixture->spec->limits.workspace_bytes = 512 * 1024 * 1024;
  fixture->spec->limits.tmp_bytes = 128 * 1024 * 1024;
  start_session (fixture);

  many = RUN ("import os\nos.makedirs('/workspace/many')\n"
              "for i in range(100000):\n    open(f'/workspace/many/{i}', 'w').close()\n");
  assert_status (many, ASSAY_CELL_LIMIT);
  g_assert_cmpuint (assay_cell_result_get_artifacts (many)->len, <=, 1000);
  {
    g_autoptr(AssayCellResult) cleanup = RUN ("import shutil\nshutil.rmtree('/workspace/many')");
    assert_status (cleanup, ASSAY_CELL_OK);
  }

  /* Several GB asked for: the workspace's size cap stops it, the artifact is cut. */
  huge = RUN ("f = open('/workspace/huge.bin', 'wb')\nblock = b'\\1' * (64 * 1024 * 1024)\n"
              "for i in range(64):\n    f.write(block)\n");
  g_assert_true (assay_cell_result_get_status (huge) == ASSAY_CELL_ERROR ||
                 assay_cell_result_get_status (huge) == ASSAY_CELL_LIMIT);
  artifacts = assay_cell_result_get_artifacts (huge);
  for (guint i = 0; i < artifacts->len; i++)
    g_assert_cmpuint (((AssayArtifact *) g_ptr_array_index (artifacts, i))->bytes, <=, 8 * 1024 * 1024);

  tmp = RUN ("f = open('/tmp/fill', 'wb')\nwhile True:\n    f.write(b'0' * 1048576)\n");
  assert_status (tmp, ASSAY_CELL_ERROR);

  after = RUN ("import os\nos.remove('/tmp/fill')\nprint('alive')");
  assert_status (after, ASSAY_CELL_OK);
}

static void
test_processes_do_not_outlive_cells (Fixture       *fixture,
                                     gconstpointer  data)
{
  g_autoptr(AssayCellResult) spawn = NULL;
  g_autoptr(AssayCellResult) check = NULL;
  g_autofree char *out = NULL;

  start_session (fixture);
  spawn = RUN ("import subprocess, os\n"
               "subprocess.Popen(['sleep', '1000'])\n"
               "subprocess.Popen(['sh', '-c', 'trap \"\" TERM INT HUP; setsid sleep 1000 & sleep 1000'])\n"
               "if os.fork() == 0:\n    os.setsid()\n    import time\n    time.sleep(1000)\n");
  assert_status (spawn, ASSAY_CELL_OK);
  check = RUN ("import os\n"
               "cmds = []\n"
               "for p in os.listdir('/proc'):\n"
               "    if p.isdigit():\n"
               "        try:\n"
               "            cmds.append(open(f'/proc/{p}/cmdline', 'rb').read().replace(b'\\0', b' ').decode())\n"
               "        except OSError:\n"
               "            pass\n"
               "print(sum('sleep' in c for c in cmds), len(cmds))\n");
  assert_status (check, ASSAY_CELL_OK);
  out = harness_stream_text (check, "stdout");
  g_test_message ("%s", out);
  g_assert_true (g_str_has_prefix (out, "0 "));
}

static void
test_privilege_syscalls (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(AssayCellResult) result = NULL;
  g_autofree char *out = NULL;

  start_session (fixture);
  result = RUN ("import os, ctypes\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "def attempt(name, fn):\n"
                "    try:\n"
                "        r = fn()\n"
                "        print(name, 'ALLOWED' if r in (0, None) else 'refused')\n"
                "    except Exception as e:\n"
                "        print(name, 'refused', type(e).__name__)\n"
                "attempt('setuid', lambda: os.setuid(0))\n"
                "attempt('setgid', lambda: os.setgid(0))\n"
                "attempt('userns', lambda: libc.unshare(0x10000000))\n"
                "attempt('netns', lambda: libc.unshare(0x40000000))\n"
                "attempt('mountns', lambda: libc.unshare(0x00020000))\n"
                "attempt('mount', lambda: libc.mount(b'none', b'/tmp', b'tmpfs', 0, None))\n"
                "attempt('chroot', lambda: os.chroot('/tmp'))\n"
                /* The supervisor owns the channel: it must be out of reach (non-dumpable). */
                "attempt('ptrace-supervisor', lambda: libc.ptrace(16, os.getppid(), None, None))\n"
                "attempt('supervisor-fds', lambda: os.listdir(f'/proc/{os.getppid()}/fd'))\n"
                "attempt('supervisor-mem', lambda: open(f'/proc/{os.getppid()}/mem', 'rb').close())\n");
  assert_status (result, ASSAY_CELL_OK);
  out = harness_stream_text (result, "stdout");
  g_test_message ("%s", out);
  g_assert_null (strstr (out, "ALLOWED"));
}

static void
test_sessions_are_isolated (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(AssayKernelSession) other = NULL;
  g_autoptr(AssayCellResult) plant = NULL;
  g_autoptr(AssayCellResult) look = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *other_dir = g_dir_make_tmp ("assay-test-XXXXXX", NULL);

  start_session (fixture);
  plant = RUN ("secret = 42\nopen('/workspace/secret.txt', 'w').write('s')\nopen('/tmp/secret', 'w').write('s')");
  assert_status (plant, ASSAY_CELL_OK);
  harness_close_and_check (fixture->session, fixture->backend);
  g_clear_object (&fixture->session);

  other = harness_session_new (fixture->backend, fixture->spec, other_dir);
  harness_start (other, &error);
  g_assert_no_error (error);
  look = harness_run (other, "import os\nprint('secret' in globals(), os.path.exists('/workspace/secret.txt'), "
                             "os.path.exists('/tmp/secret'))");
  assert_status (look, ASSAY_CELL_OK);
  assert_stdout (look, "False False False\n");
  harness_close_and_check (other, fixture->backend);
}

int
main (int   argc,
      char *argv[])
{
  static const char *backends[] = { "docker", "bwrap" };
  static const struct { const char *name; void (*func) (Fixture *, gconstpointer); } tests[] = {
    { "state", test_state },
    { "queued-before-start", test_queued_before_start },
    { "cancelled-while-starting", test_cancelled_while_starting },
    { "close-async", test_close_async },
    { "boot-failure", test_boot_failure },
    { "rich-outputs", test_rich_outputs },
    { "streaming", test_streaming },
    { "artifacts", test_artifacts },
    { "figure-saved-once", test_figure_saved_once },
    { "datasets", test_datasets },
    { "datasets-added-later", test_datasets_added_later },
    { "sqlite-dataset", test_sqlite_dataset },
    { "checks", test_checks },
    { "timeout-keeps-state", test_timeout_keeps_state },
    { "hang-killed-and-replayed", test_hang_killed_and_replayed },
    { "oom", test_oom },
    { "hostile/fork-and-thread-bombs", test_fork_and_thread_bombs },
    { "hostile/network", test_network_is_off },
    { "hostile/host-invisible", test_host_is_invisible },
    { "hostile/writes-outside-workspace", test_writes_outside_workspace },
    { "hostile/artifacts", test_hostile_artifacts },
    { "hostile/output-floods", test_output_floods },
    { "hostile/many-and-huge-files", test_many_and_huge_files },
    { "hostile/processes-outlive-cell", test_processes_do_not_outlive_cells },
    { "hostile/privilege-syscalls", test_privilege_syscalls },
    { "hostile/sessions-isolated", test_sessions_are_isolated },
    { "hostile/mountinfo-names-no-host-folder", test_mountinfo_names_no_host_folder },
    { "hostile/quotas-per-sandbox", test_quotas_per_sandbox },
  };
  const char *only = g_getenv ("ASSAY_TEST_BACKEND");

  g_test_init (&argc, &argv, NULL);

  for (guint b = 0; b < G_N_ELEMENTS (backends); b++)
    {
      if (only != NULL && !g_str_equal (only, backends[b]))
        continue;
      for (guint t = 0; t < G_N_ELEMENTS (tests); t++)
        {
          g_autofree char *path = g_strdup_printf ("/assay/sandbox/%s/%s", backends[b], tests[t].name);
          g_test_add (path, Fixture, backends[b], fixture_set_up, tests[t].func, fixture_tear_down);
        }
    }

  return g_test_run ();
}
