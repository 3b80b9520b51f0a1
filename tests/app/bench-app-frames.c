/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-app, the frame part (run by tests/bench-app.py under Xvfb): the real AssayWindow at
 * 1280×800 against the fake OpenAI-compatible server at BASE_URL, whose script streams a long
 * Markdown answer to the first question and, to the second, a cell that prints continuously
 * (run without asking), then a short answer.
 *
 *     bench-app-frames BASE_URL
 *
 * For each phase (idle window: the baseline; the answer streaming; the cell printing) it
 * records, with the frame clock kept running (gdk_frame_clock_begin_updating, so an idle
 * window paints at the display's rate too):
 *   - frame intervals: the monotonic time between consecutive after-paint signals;
 *   - frame work: from the frame's "update" phase to its after-paint (layout, snapshot,
 *     render);
 *   - main-loop stalls: the gaps between ticks of a 1 ms timeout source.
 * Prints one "BENCH {json}" line per phase and the memory of this process at the end.
 * Figures only: nothing here fails on a timing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-llm-provider.h"
#include "assay-session.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

typedef struct
{
  GArray  *intervals;   /* gint64 µs */
  GArray  *work;
  GArray  *gaps;
  gint64   last_paint;
  gint64   frame_start;
  gint64   last_tick;
  gboolean recording;
} Recorder;

static Recorder rec;

static void
update_cb (GdkFrameClock *clock,
           gpointer       data)
{
  if (rec.recording)
    rec.frame_start = g_get_monotonic_time ();
}

static void
after_paint_cb (GdkFrameClock *clock,
                gpointer       data)
{
  gint64 now = g_get_monotonic_time ();

  if (!rec.recording)
    return;
  if (rec.last_paint != 0)
    g_array_append_val (rec.intervals, (gint64) { now - rec.last_paint });
  if (rec.frame_start != 0)
    g_array_append_val (rec.work, (gint64) { now - rec.frame_start });
  rec.last_paint = now;
  rec.frame_start = 0;
}

static gboolean
tick_cb (gpointer data)
{
  static int stalls = -1;
  gint64 now = g_get_monotonic_time ();

  if (rec.recording && rec.last_tick != 0)
    g_array_append_val (rec.gaps, (gint64) { now - rec.last_tick });
  if (stalls < 0)
    stalls = g_getenv ("BENCH_STALLS") != NULL;
  if (stalls && rec.recording && rec.last_tick != 0 && now - rec.last_tick > 50000)
    g_printerr ("STALL %.1f ms at %.3f s\n", (now - rec.last_tick) / 1000.0, now / 1e6);
  rec.last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void
recorder_start (void)
{
  g_clear_pointer (&rec.intervals, g_array_unref);
  g_clear_pointer (&rec.work, g_array_unref);
  g_clear_pointer (&rec.gaps, g_array_unref);
  rec.intervals = g_array_new (FALSE, FALSE, sizeof (gint64));
  rec.work = g_array_new (FALSE, FALSE, sizeof (gint64));
  rec.gaps = g_array_new (FALSE, FALSE, sizeof (gint64));
  rec.last_paint = rec.frame_start = rec.last_tick = 0;
  rec.recording = TRUE;
}

static int
cmp_gint64 (gconstpointer a,
            gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile, in ms. */
static double
percentile (GArray *sorted,
            double  p)
{
  guint rank;

  if (sorted->len == 0)
    return 0;
  rank = (guint) (p / 100.0 * sorted->len + 0.999999);
  rank = CLAMP (rank, 1, sorted->len);
  return g_array_index (sorted, gint64, rank - 1) / 1000.0;
}

static void
append_stats (GString    *json,
              const char *name,
              GArray     *values,
              gint64      over_us)
{
  guint over = 0;

  g_array_sort (values, cmp_gint64);
  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, gint64, i) > over_us)
      over++;
  g_string_append_printf (json, "\"%s\": {\"count\": %u, \"median\": %.2f, \"p95\": %.2f, \"p99\": %.2f, "
                          "\"max\": %.2f, \"over\": %u, \"over_ms\": %.0f}",
                          name, values->len, percentile (values, 50), percentile (values, 95),
                          percentile (values, 99), percentile (values, 100), over, over_us / 1000.0);
}

static void
recorder_report (const char *phase,
                 double      seconds)
{
  g_autoptr(GString) json = g_string_new (NULL);

  rec.recording = FALSE;
  g_string_append_printf (json, "{\"phase\": \"%s\", \"seconds\": %.2f, ", phase, seconds);
  append_stats (json, "interval", rec.intervals, 17 * 1000);
  g_string_append (json, ", ");
  append_stats (json, "work", rec.work, 16 * 1000);
  g_string_append (json, ", ");
  append_stats (json, "stall", rec.gaps, 16 * 1000);
  g_string_append (json, "}");
  g_print ("BENCH %s\n", json->str);
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static void
send (AssayWindow *window,
      const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
}

/* Questions of the first-cell phase, each kind; the script of bench-app.py has as many. */
#define FIRST_CELL_RUNS 3

static void
measure_question (AssayWindow *window,
                  const char  *phase,
                  const char  *question)
{
  gint64 began;

  recorder_start ();
  began = g_get_monotonic_time ();
  if (g_getenv ("BENCH_STALLS"))
    g_printerr ("PHASE %s began at %.3f s\n", phase, began / 1e6);
  send (window, question);
  gui_wait (is_idle, window, 600, phase);
  if (g_getenv ("BENCH_STALLS"))
    g_printerr ("PHASE %s idle at %.3f s\n", phase, g_get_monotonic_time () / 1e6);
  /* And the second after it: the answer's final rendering belongs to the phase. */
  gui_spin (1000);
  recorder_report (phase, (g_get_monotonic_time () - began) / 1e6);
}

/* ---- the first cell of a new session: from Run (the cell starts; cells run without asking)
 * to its first output, with the sandbox started then (cold) or waiting in the pool (warm). */

typedef struct
{
  gint64  started;
  gint64  first_output;
} FirstCell;

static FirstCell first_cell;

static void
cell_started_cb (AssayAgent *agent,
                 const char *cell_id,
                 const char *code)
{
  if (first_cell.started == 0)
    first_cell.started = g_get_monotonic_time ();
}

static void
output_cb (AssayAgent *agent,
           const char *cell_id,
           JsonObject *output)
{
  if (first_cell.started != 0 && first_cell.first_output == 0)
    first_cell.first_output = g_get_monotonic_time ();
}

static void
agent_notify_cb (AssayConversation *conversation)
{
  AssayAgent *agent = assay_conversation_get_agent (conversation);

  if (agent != NULL)
    {
      g_signal_connect (agent, "cell-started", G_CALLBACK (cell_started_cb), NULL);
      g_signal_connect (agent, "output", G_CALLBACK (output_cb), NULL);
    }
}

static gboolean
is_warm (gpointer data)
{
  return assay_conversation_get_warm (data);
}

static void
measure_first_cell (AssayWindow *window,
                    const char  *kind)
{
  AssayConversation *conversation = assay_window_get_conversation (window);

  assay_window_new_session (window);
  /* A new session starts from the approval setting: its cells run without asking here. */
  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  if (g_str_equal (kind, "warm"))
    {
      /* What the first dataset of a session does. */
      assay_conversation_prewarm (conversation);
      gui_wait (is_warm, conversation, 120, "a warm sandbox");
    }
  first_cell = (FirstCell) { 0, };
  send (window, "Print the first line");
  gui_wait (is_idle, window, 300, "the first cell");
  g_assert_cmpint (first_cell.first_output, >, 0);
  g_print ("BENCH {\"first_cell\": \"%s\", \"ms\": %.1f}\n", kind,
           (first_cell.first_output - first_cell.started) / 1000.0);
}

static void
print_memory (const char *what)
{
  g_autofree char *status = NULL;
  g_autofree char *rollup = NULL;
  const char *rss = NULL, *pss = NULL;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    rss = strstr (status, "VmRSS:");
  if (g_file_get_contents ("/proc/self/smaps_rollup", &rollup, NULL, NULL))
    pss = strstr (rollup, "\nPss:");
  g_print ("BENCH {\"memory\": \"%s\", \"rss_kb\": %ld, \"pss_kb\": %ld}\n", what,
           rss ? strtol (rss + strlen ("VmRSS:"), NULL, 10) : -1L,
           pss ? strtol (pss + strlen ("\nPss:"), NULL, 10) : -1L);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  AssayWindow *window;
  GdkFrameClock *clock;
  AssaySession *session;
  gint64 began;

  gui_test_init (&argc, &argv);
  if (argc < 2)
    {
      g_printerr ("usage: bench-app-frames BASE_URL\n");
      return 2;
    }
  settings = g_settings_new ("org.assay.Assay");
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  /* The scripted answers name numbers no cell printed; no second try is scripted. */
  g_settings_set_boolean (settings, "check-numbers", FALSE);

  window = g_object_ref (assay_window_new (NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  provider = assay_openai_provider_new (argv[1], NULL);
  assay_window_set_provider (window, provider, "fake-model", FALSE);
  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  gui_spin (1000);

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_assert_nonnull (clock);
  g_signal_connect (clock, "update", G_CALLBACK (update_cb), NULL);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), NULL);
  g_timeout_add (1, tick_cb, NULL);
  gdk_frame_clock_begin_updating (clock);
  gui_spin (500);
  print_memory ("window open, no session");

  /* The baseline: the same window, nothing happening. */
  recorder_start ();
  began = g_get_monotonic_time ();
  gui_spin (4000);
  recorder_report ("idle", (g_get_monotonic_time () - began) / 1e6);

  measure_question (window, "stream", "Write the long report");
  session = assay_window_get_session (window);
  g_assert_cmpstr (assay_session_get_status (session), ==, "answered");

  measure_question (window, "cell", "Print a lot");
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);
  g_assert_cmpint (assay_session_get_cell (session, 0)->status, ==, ASSAY_CELL_OK);

  gui_spin (2000);
  print_memory ("after both phases (long answer and 400 printed lines in the chat)");

  g_signal_connect (assay_window_get_conversation (window), "notify::agent", G_CALLBACK (agent_notify_cb), NULL);
  for (guint i = 0; i < FIRST_CELL_RUNS; i++)
    measure_first_cell (window, "cold");
  for (guint i = 0; i < FIRST_CELL_RUNS; i++)
    measure_first_cell (window, "warm");

  gdk_frame_clock_end_updating (clock);
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
  return 0;
}
