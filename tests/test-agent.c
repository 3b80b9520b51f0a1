/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The agent loop against the recorded provider and a real kernel (bubblewrap). */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "assay-agent-private.h"
#include "assay-code-extractor.h"
#include "sandbox-harness.h"

static AssayKernelSession *kernel;   /* one warm kernel for every test: starting one costs */
static char *work_dir;

typedef struct
{
  AssayApprovalResponse response;
  const char           *text;
} Answer;

typedef struct
{
  AssayAgent        *agent;
  AssaySession      *session;
  GMainLoop         *loop;
  GPtrArray         *events;       /* char*, consecutive duplicates folded */
  GString           *code[4];      /* code-delta text by call index, per step */
  const Answer      *answers;      /* for policy ask, in order */
  guint              n_answered;
  AssayAgentOutcome  outcome;
  char              *text;
  gboolean           done;
  GCancellable      *cancellable;
  guint              cancel_after_ms;
} Run;

static void
event (Run        *run,
       const char *format,
       ...) G_GNUC_PRINTF (2, 3);

static void
event (Run        *run,
       const char *format,
       ...)
{
  va_list args;
  char *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  if (run->events->len > 0 && g_str_equal (g_ptr_array_index (run->events, run->events->len - 1), text))
    g_free (text);
  else
    g_ptr_array_add (run->events, text);
}

static void
step_cb (AssayAgent *agent, guint n, guint max, Run *run)
{
  event (run, "step %u/%u", n, max);
  for (guint i = 0; i < G_N_ELEMENTS (run->code); i++)
    g_string_truncate (run->code[i], 0);
}

static void
text_delta_cb (AssayAgent *agent, const char *text, Run *run)
{
  g_assert_true (g_utf8_validate (text, -1, NULL));
  event (run, "text");
}

static void
code_delta_cb (AssayAgent *agent, guint index, const char *call_id, const char *text, Run *run)
{
  g_assert_cmpuint (index, <, G_N_ELEMENTS (run->code));
  g_string_append (run->code[index], text);
  event (run, "code");
}

static void
approval_cb (AssayAgent *agent, const char *cell_id, const char *code, const char *description, Run *run)
{
  const Answer *answer;

  event (run, "approval %s", cell_id);
  g_assert_nonnull (run->answers);
  answer = &run->answers[run->n_answered++];
  assay_agent_respond (agent, cell_id, answer->response, answer->text);
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
cell_started_cb (AssayAgent *agent, const char *cell_id, const char *code, Run *run)
{
  event (run, "started %s", cell_id);
  if (run->cancel_after_ms > 0)
    g_timeout_add_full (G_PRIORITY_DEFAULT, run->cancel_after_ms, cancel_cb,
                        g_object_ref (run->cancellable), g_object_unref);
}

static void
output_cb (AssayAgent *agent, const char *cell_id, JsonObject *output, Run *run)
{
  event (run, "output %s", cell_id);
}

static void
artifact_cb (AssayAgent *agent, const char *cell_id, const char *name, const char *path, Run *run)
{
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  event (run, "artifact %s %s", cell_id, name);
}

static void
finished_cb (AssayAgent *agent, const char *cell_id, AssayCellResult *result, Run *run)
{
  event (run, "finished %s %s", cell_id, assay_cell_status_to_string (assay_cell_result_get_status (result)));
}

static void
error_cb (AssayAgent *agent, const char *message, Run *run)
{
  event (run, "error");
}

static void
done_cb (AssayAgent *agent, int outcome, const char *text, Run *run)
{
  event (run, "done %s", assay_agent_outcome_to_string (outcome));
}

static void
asked_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *run = user_data;

  run->outcome = assay_agent_ask_finish (ASSAY_AGENT (source), result, &run->text, NULL);
  run->done = TRUE;
  g_main_loop_quit (run->loop);
}

/* A transcript file from JSON text (single quotes stand for double quotes, for legibility
 * in C; write \\' for a real one). */
static char *
write_transcript (const char *json)
{
  static guint counter;
  g_autofree char *name = g_strdup_printf ("transcript-%u.json", ++counter);
  char *path = g_build_filename (work_dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, json, -1, &error));
  g_assert_no_error (error);
  return path;
}

static Run *
run_new (const char *transcript_json)
{
  Run *run = g_new0 (Run, 1);
  g_autofree char *transcript = write_transcript (transcript_json);
  g_autofree char *sales = g_build_filename (work_dir, "sales.csv", NULL);
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  provider = assay_recorded_provider_new (transcript, &error);
  g_assert_no_error (error);
  run->session = assay_session_create (work_dir, &error);
  g_assert_no_error (error);
  run->agent = assay_agent_new (provider, kernel, run->session);
  g_assert_true (assay_agent_add_dataset (run->agent, sales, NULL, &error));
  g_assert_no_error (error);
  assay_agent_set_approval_policy (run->agent, ASSAY_APPROVAL_POLICY_AUTO);

  run->loop = g_main_loop_new (NULL, FALSE);
  run->events = g_ptr_array_new_with_free_func (g_free);
  run->cancellable = g_cancellable_new ();
  for (guint i = 0; i < G_N_ELEMENTS (run->code); i++)
    run->code[i] = g_string_new (NULL);

  g_signal_connect (run->agent, "step", G_CALLBACK (step_cb), run);
  g_signal_connect (run->agent, "text-delta", G_CALLBACK (text_delta_cb), run);
  g_signal_connect (run->agent, "code-delta", G_CALLBACK (code_delta_cb), run);
  g_signal_connect (run->agent, "approval-needed", G_CALLBACK (approval_cb), run);
  g_signal_connect (run->agent, "cell-started", G_CALLBACK (cell_started_cb), run);
  g_signal_connect (run->agent, "output", G_CALLBACK (output_cb), run);
  g_signal_connect (run->agent, "artifact-added", G_CALLBACK (artifact_cb), run);
  g_signal_connect (run->agent, "cell-finished", G_CALLBACK (finished_cb), run);
  g_signal_connect (run->agent, "error", G_CALLBACK (error_cb), run);
  g_signal_connect (run->agent, "done", G_CALLBACK (done_cb), run);
  return run;
}

static void
run_ask (Run        *run,
         const char *question)
{
  assay_agent_ask_async (run->agent, question, run->cancellable, asked_cb, run);
  g_main_loop_run (run->loop);
  g_assert_true (run->done);
}

static void
run_free (Run *run)
{
  g_signal_handlers_disconnect_by_data (run->agent, run);
  /* A cancellation's idle may still hold the agent when the cell's end came first. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (run->agent);
  g_object_unref (run->session);
  g_main_loop_unref (run->loop);
  g_ptr_array_unref (run->events);
  g_object_unref (run->cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (run->code); i++)
    g_string_free (run->code[i], TRUE);
  g_free (run->text);
  g_free (run);
}

static char *
events_string (Run *run)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < run->events->len; i++)
    g_string_append_printf (text, "%s%s", i ? " | " : "", (char *) g_ptr_array_index (run->events, i));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static AssayLlmMessage *
message (Run   *run,
         guint  index)
{
  GPtrArray *messages = assay_agent_get_messages (run->agent);

  g_assert_cmpuint (index, <, messages->len);
  return g_ptr_array_index (messages, index);
}

/* ---- tests ------------------------------------------------------------------------------- */

#define SUM_CODE "import pandas as pd\\ndf = pd.read_csv(\\\"/data/sales.csv\\\")\\nprint(\\\"total\\\", df[\\\"amount\\\"].sum())"
#define PLOT_CODE "import matplotlib\\nmatplotlib.use(\\\"Agg\\\")\\nimport matplotlib.pyplot as plt\\n" \
                  "plt.bar([\\\"n\\\", \\\"s\\\"], [1, 2])\\nplt.savefig(\\\"/workspace/plot.png\\\")\\nplt.close()\\nprint(\\\"saved\\\")"

static void
test_happy_path (void)
{
  Run *run = run_new (
    "{\"format\":\"assay-transcript\",\"turns\":["
    " {\"text\":\"Let me load the file.\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"execute_python\","
    "   \"arguments\":{\"code\":\"" SUM_CODE "\",\"description\":\"sum the amounts\"}}]},"
    " {\"text\":\"Now a chart.\",\"tool_calls\":[{\"id\":\"call_2\",\"name\":\"execute_python\","
    "   \"arguments\":{\"code\":\"" PLOT_CODE "\",\"description\":\"plot\"}}]},"
    " {\"text\":\"The total amount is 3; the chart is plot.png.\"}]}");
  g_autofree char *events = NULL;
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  AssaySessionCell *cell;
  AssayLlmMessage *m;
  g_autofree char *png = NULL;

  run_ask (run, "What is the total amount?");
  events = events_string (run);
  g_test_message ("events: %s", events);
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  g_assert_cmpstr (run->text, ==, "The total amount is 3; the chart is plot.png.");
  g_assert_cmpstr (events, ==,
                   "step 1/8 | text | code | started c1 | output c1 | finished c1 ok | "
                   "step 2/8 | text | code | started c2 | output c2 | artifact c2 plot.png | finished c2 ok | "
                   "step 3/8 | text | done answered");

  /* The conversation the next request carries: the outputs went back to the model. */
  g_assert_cmpuint (assay_agent_get_messages (run->agent)->len, ==, 6);
  g_assert_cmpint (message (run, 0)->role, ==, ASSAY_LLM_ROLE_USER);
  m = message (run, 1);
  g_assert_cmpint (m->role, ==, ASSAY_LLM_ROLE_ASSISTANT);
  g_assert_cmpuint (m->tool_calls->len, ==, 1);
  m = message (run, 2);
  g_assert_cmpint (m->role, ==, ASSAY_LLM_ROLE_TOOL);
  g_assert_cmpstr (m->tool_call_id, ==, "call_1");
  g_assert_false (m->is_error);
  g_assert_nonnull (strstr (m->text, "total 3"));
  m = message (run, 4);
  g_assert_cmpstr (m->tool_call_id, ==, "call_2");
  g_assert_nonnull (strstr (m->text, "plot.png"));
  g_assert_null (strstr (m->text, "iVBOR")); /* named, never inlined */
  g_assert_cmpstr (message (run, 5)->text, ==, run->text);

  /* The session on disk has it all. */
  loaded = assay_session_load (assay_session_get_dir (run->session), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_session_get_n_steps (loaded), ==, 3);
  g_assert_cmpuint (assay_session_get_n_cells (loaded), ==, 2);
  g_assert_cmpstr (assay_session_get_status (loaded), ==, "answered");
  g_assert_cmpstr (assay_session_get_answer (loaded), ==, run->text);
  g_assert_cmpstr (assay_session_get_provider (loaded), ==, "recorded");
  cell = assay_session_get_cell (loaded, 1);
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_OK);
  g_assert_cmpstr (cell->description, ==, "plot");
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_AUTO);
  g_assert_cmpuint (cell->artifacts->len, >=, 1);
  png = assay_session_resolve (loaded, ((AssayArtifact *) g_ptr_array_index (cell->artifacts, 0))->path);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_str_has_prefix (png, assay_session_get_dir (loaded)));
  g_assert_cmpuint (assay_session_get_messages (loaded)->len, ==, 6);
  {
    g_autofree char *copy = g_build_filename (assay_session_get_dir (loaded), "data", "sales.csv", NULL);
    g_assert_true (g_file_test (copy, G_FILE_TEST_IS_REGULAR));
  }
  run_free (run);
}

static void
saving_at_done_cb (AssayAgent *agent,
                   int         outcome,
                   const char *text,
                   gboolean   *saving)
{
  *saving = assay_agent_get_saving (agent);
}

/* With background saves (the window's), the record is written by workers: at the done
 * signal its last save is still on its way, and the question is over only once it has
 * landed, with the same record a synchronous save would have left. */
static void
test_background_saves (void)
{
  Run *run = run_new (
    "{\"format\":\"assay-transcript\",\"turns\":["
    " {\"text\":\"Summing.\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"execute_python\","
    "   \"arguments\":{\"code\":\"" SUM_CODE "\",\"description\":\"sum\"}}]},"
    " {\"text\":\"The total amount is 3.\"}]}");
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  gboolean saving_at_done = FALSE;

  assay_agent_set_background_saves (run->agent, TRUE);
  g_signal_connect (run->agent, "done", G_CALLBACK (saving_at_done_cb), &saving_at_done);
  run_ask (run, "What is the total amount?");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  g_assert_true (saving_at_done);
  g_assert_false (assay_agent_get_saving (run->agent));

  loaded = assay_session_load (assay_session_get_dir (run->session), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_status (loaded), ==, "answered");
  g_assert_cmpstr (assay_session_get_answer (loaded), ==, "The total amount is 3.");
  g_assert_cmpuint (assay_session_get_n_cells (loaded), ==, 1);
  g_assert_cmpint (assay_session_get_cell (loaded, 0)->status, ==, ASSAY_CELL_OK);
  run_free (run);
}

static void
test_code_delta_shows_code (void)
{
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":[{\"name\":\"execute_python\",\"arguments\":{\"description\":\"d\",\"code\":\"print(\\\"h\\u00e9\\\")\\nx = 1\"}}]},"
    " {\"text\":\"done\"}]}");

  assay_agent_set_max_steps (run->agent, 1);
  run_ask (run, "q");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_STEP_LIMIT);
  g_assert_cmpstr (run->code[0]->str, ==, "print(\"hé\")\nx = 1");
  run_free (run);
}

static void
test_error_then_fix (void)
{
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":[{\"id\":\"a\",\"name\":\"execute_python\",\"arguments\":{\"code\":\"def f():\\n    raise ValueError(\\\"bad value\\\")\\nf()\"}}]},"
    " {\"text\":\"I see the error.\",\"tool_calls\":[{\"id\":\"b\",\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(2 + 2)\"}}]},"
    " {\"text\":\"4\"}]}");
  AssayLlmMessage *m;

  run_ask (run, "q");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  m = message (run, 2);
  g_assert_true (m->is_error);
  g_assert_nonnull (strstr (m->text, "Status: error"));
  g_assert_nonnull (strstr (m->text, "Traceback"));
  g_assert_nonnull (strstr (m->text, "ValueError"));
  g_assert_nonnull (strstr (m->text, "bad value"));
  g_assert_nonnull (strstr (m->text, "in f"));
  m = message (run, 4);
  g_assert_false (m->is_error);
  g_assert_nonnull (strstr (m->text, "4"));
  g_assert_cmpint (assay_session_get_cell (run->session, 0)->status, ==, ASSAY_CELL_ERROR);
  g_assert_cmpint (assay_session_get_cell (run->session, 1)->status, ==, ASSAY_CELL_OK);
  run_free (run);
}

static void
test_reject (void)
{
  static const Answer answers[] = { { ASSAY_APPROVAL_REJECT, "too slow, use a sample" } };
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":[{\"id\":\"a\",\"name\":\"execute_python\",\"arguments\":{\"code\":\"open(\\\"/workspace/ran.txt\\\", \\\"w\\\").write(\\\"x\\\")\"}}]},"
    " {\"text\":\"Understood.\"}]}");
  g_autofree char *events = NULL;
  AssaySessionCell *cell;
  AssayLlmMessage *m;

  assay_agent_set_approval_policy (run->agent, ASSAY_APPROVAL_POLICY_ASK);
  run->answers = answers;
  run_ask (run, "q");
  events = events_string (run);
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  g_assert_cmpstr (events, ==, "step 1/8 | code | approval c1 | step 2/8 | text | done answered");
  m = message (run, 2);
  g_assert_true (m->is_error);
  g_assert_nonnull (strstr (m->text, "too slow, use a sample"));
  g_assert_nonnull (strstr (m->text, "did not run"));
  cell = assay_session_get_cell (run->session, 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_REJECTED);
  g_assert_cmpstr (cell->reason, ==, "too slow, use a sample");
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_REJECTED);
  g_assert_null (cell->code);
  g_assert_cmpuint (cell->artifacts->len, ==, 0);
  run_free (run);
}

static void
test_edit (void)
{
  static const Answer answers[] = { { ASSAY_APPROVAL_EDIT, "print(\"edited by the analyst\")" } };
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":[{\"id\":\"a\",\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(\\\"original\\\")\"}}]},"
    " {\"text\":\"ok\"}]}");
  AssaySessionCell *cell;
  AssayLlmMessage *m;

  assay_agent_set_approval_policy (run->agent, ASSAY_APPROVAL_POLICY_ASK);
  run->answers = answers;
  run_ask (run, "q");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  m = message (run, 2);
  g_assert_nonnull (strstr (m->text, "The analyst edited your code"));
  g_assert_nonnull (strstr (m->text, "print(\"edited by the analyst\")"));
  g_assert_nonnull (strstr (m->text, "edited by the analyst\n"));
  g_assert_null (strstr (m->text, "original"));
  cell = assay_session_get_cell (run->session, 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_EDITED);
  g_assert_cmpstr (cell->proposed_code, ==, "print(\"original\")");
  g_assert_cmpstr (cell->code, ==, "print(\"edited by the analyst\")");
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_OK);
  run_free (run);
}

#define FENCED_TRANSCRIPT \
  "{\"turns\":[" \
  " {\"text\":\"Let me compute it:\\n```python\\nprint(6 * 7)\\n```\\n\"}," \
  " {\"text\":\"It is 42.\"}]}"

static void
test_fenced_on (void)
{
  Run *run = run_new (FENCED_TRANSCRIPT);
  AssayLlmMessage *m;

  run_ask (run, "q");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  g_assert_cmpstr (run->text, ==, "It is 42.");
  g_assert_cmpuint (assay_session_get_n_cells (run->session), ==, 1);
  g_assert_cmpstr (assay_session_get_cell (run->session, 0)->code, ==, "print(6 * 7)\n");
  m = message (run, 1);
  g_assert_cmpuint (m->tool_calls->len, ==, 1);
  m = message (run, 2);
  g_assert_cmpint (m->role, ==, ASSAY_LLM_ROLE_TOOL);
  g_assert_nonnull (strstr (m->text, "42"));
  run_free (run);
}

static void
test_fenced_off (void)
{
  Run *run = run_new (FENCED_TRANSCRIPT);

  assay_agent_set_fenced_code_fallback (run->agent, FALSE);
  run_ask (run, "q");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  g_assert_nonnull (strstr (run->text, "```python"));
  g_assert_cmpuint (assay_session_get_n_cells (run->session), ==, 0);
  run_free (run);
}

static void
test_bad_calls (void)
{
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":["
    "   {\"id\":\"bad_json\",\"name\":\"execute_python\",\"arguments\":\"{\\\"code\\\": \\\"print(1\"},"
    "   {\"id\":\"bad_tool\",\"name\":\"run_sql\",\"arguments\":{\"query\":\"select 1\"}},"
    "   {\"id\":\"no_code\",\"name\":\"execute_python\",\"arguments\":{\"description\":\"nothing\"}}]},"
    " {\"tool_calls\":[{\"id\":\"good\",\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(5)\"}}]},"
    " {\"text\":\"5\"}]}");
  AssayLlmMessage *m;

  run_ask (run, "q");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  m = message (run, 2);
  g_assert_cmpstr (m->tool_call_id, ==, "bad_json");
  g_assert_true (m->is_error);
  g_assert_nonnull (strstr (m->text, "not a valid JSON"));
  m = message (run, 3);
  g_assert_cmpstr (m->tool_call_id, ==, "bad_tool");
  g_assert_true (m->is_error);
  g_assert_nonnull (strstr (m->text, "no tool named “run_sql”"));
  m = message (run, 4);
  g_assert_cmpstr (m->tool_call_id, ==, "no_code");
  g_assert_true (m->is_error);
  m = message (run, 6);
  g_assert_cmpstr (m->tool_call_id, ==, "good");
  g_assert_false (m->is_error);
  g_assert_cmpuint (assay_session_get_n_cells (run->session), ==, 1);
  run_free (run);
}

static GError *ask_error;

static void
asked_with_error_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Run *run = user_data;

  g_clear_error (&ask_error);
  g_clear_pointer (&run->text, g_free);
  run->outcome = assay_agent_ask_finish (ASSAY_AGENT (source), result, &run->text, &ask_error);
  run->done = TRUE;
  g_main_loop_quit (run->loop);
}

/* A question that stops at the model server goes on, from where it stopped, with another
 * provider: nothing is added to the conversation, and the error says what the server did. */
static void
test_continue_after_model_error (void)
{
  Run *run = run_new ("{\"turns\":[{\"text\":\"The first answer.\"}]}");
  g_autofree char *transcript = write_transcript ("{\"turns\":[{\"text\":\"The answer after trying again.\"}]}");
  g_autoptr(AssayLlmProvider) other = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *messages;
  guint users = 0;

  run_ask (run, "q1");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);

  run->done = FALSE;
  assay_agent_ask_async (run->agent, "q2", run->cancellable, asked_with_error_cb, run);
  g_main_loop_run (run->loop);
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_MODEL_ERROR);
  /* The provider's own code, not a generic one. */
  g_assert_error (ask_error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_EXHAUSTED);
  g_assert_cmpstr (assay_session_get_status (run->session), ==, "model-error");

  other = assay_recorded_provider_new (transcript, &error);
  g_assert_no_error (error);
  assay_agent_set_provider (run->agent, other);
  run->done = FALSE;
  assay_agent_continue_async (run->agent, run->cancellable, asked_with_error_cb, run);
  g_main_loop_run (run->loop);
  g_assert_no_error (ask_error);
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_ANSWERED);
  g_assert_cmpstr (run->text, ==, "The answer after trying again.");
  g_assert_cmpstr (assay_session_get_status (run->session), ==, "answered");

  messages = assay_agent_get_messages (run->agent);
  for (guint i = 0; i < messages->len; i++)
    if (((AssayLlmMessage *) g_ptr_array_index (messages, i))->role == ASSAY_LLM_ROLE_USER)
      users++;
  g_assert_cmpuint (users, ==, 2);
  g_assert_cmpstr (message (run, messages->len - 2)->text, ==, "q2");
  g_assert_cmpint (message (run, messages->len - 1)->role, ==, ASSAY_LLM_ROLE_ASSISTANT);
  run_free (run);
}

static void
test_step_limit (void)
{
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":[{\"name\":\"execute_python\",\"arguments\":{\"code\":\"a = 1\\nprint(a)\"}}]},"
    " {\"tool_calls\":[{\"name\":\"execute_python\",\"arguments\":{\"code\":\"b = a + 1\\nprint(b)\"}}]},"
    " {\"tool_calls\":[{\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(3)\"}}]},"
    " {\"text\":\"never reached\"}]}");
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(GError) error = NULL;

  assay_agent_set_max_steps (run->agent, 2);
  run_ask (run, "q");
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_STEP_LIMIT);
  g_assert_nonnull (strstr (run->text, "step limit"));
  g_assert_nonnull (strstr (run->text, "2 steps"));
  loaded = assay_session_load (assay_session_get_dir (run->session), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_status (loaded), ==, "step-limit");
  g_assert_cmpuint (assay_session_get_n_steps (loaded), ==, 2);
  g_assert_cmpuint (assay_session_get_n_cells (loaded), ==, 2);
  g_assert_cmpint (assay_session_get_cell (loaded, 1)->status, ==, ASSAY_CELL_OK);
  g_assert_cmpuint (assay_session_get_messages (loaded)->len, ==, 5);
  run_free (run);
}

static void
test_long_output_trimmed (void)
{
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":[{\"name\":\"execute_python\",\"arguments\":{\"code\":\"for i in range(5000):\\n    print(\\\"line\\\", i)\"}}]},"
    " {\"text\":\"done\"}]}");
  AssayLlmMessage *m;

  assay_agent_set_output_budget (run->agent, 400);
  run_ask (run, "q");
  m = message (run, 2);
  g_assert_nonnull (strstr (m->text, "line 0\n"));
  g_assert_nonnull (strstr (m->text, "line 4999\n"));
  g_assert_null (strstr (m->text, "line 2500\n"));
  g_assert_nonnull (strstr (m->text, "cut from the middle"));
  g_assert_cmpuint (strlen (m->text), <, 800);
  /* The session keeps every output whole. */
  g_assert_cmpuint (json_array_get_length (assay_session_get_cell (run->session, 0)->outputs), >, 0);
  run_free (run);
}

static void
test_cancel_mid_cell (void)
{
  Run *run = run_new (
    "{\"turns\":["
    " {\"tool_calls\":[{\"name\":\"execute_python\",\"arguments\":{\"code\":\"import time\\ntime.sleep(60)\"}},"
    "                 {\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(1)\"}}]},"
    " {\"text\":\"never\"}]}");
  gint64 start = g_get_monotonic_time ();
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCellResult) after = NULL;
  g_autofree char *text = NULL;

  run->cancel_after_ms = 700;
  run_ask (run, "q");
  {
    g_autofree char *events = events_string (run);
    g_test_message ("events: %s; %s", events, run->text);
  }
  g_assert_cmpint (run->outcome, ==, ASSAY_AGENT_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);
  g_assert_cmpuint (assay_session_get_n_cells (run->session), ==, 1);
  g_assert_cmpint (assay_session_get_cell (run->session, 0)->status, ==, ASSAY_CELL_CANCELLED);
  /* Every call got an answer; the second never ran. */
  g_assert_cmpuint (assay_agent_get_messages (run->agent)->len, ==, 4);
  g_assert_true (message (run, 3)->is_error);
  loaded = assay_session_load (assay_session_get_dir (run->session), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_session_get_status (loaded), ==, "cancelled");
  /* The kernel is still usable. */
  after = harness_run (kernel, "print('alive')");
  text = harness_stream_text (after, "stdout");
  g_assert_cmpstr (text, ==, "alive\n");
  run_free (run);
}

/* ---- units ------------------------------------------------------------------------------- */

static void
check_extract (const char *json,
               const char *expected,
               gboolean    complete)
{
  g_autoptr(AssayCodeExtractor) extractor = assay_code_extractor_new ();
  g_autoptr(GString) joined = g_string_new (NULL);

  /* Byte by byte: every cut, even inside escapes and UTF-8 sequences. */
  for (const char *p = json; *p != '\0'; p++)
    {
      g_autofree char *piece = assay_code_extractor_feed (extractor, p, 1);

      g_assert_true (g_utf8_validate (piece, -1, NULL));
      g_string_append (joined, piece);
    }
  g_assert_cmpstr (joined->str, ==, expected);
  g_assert_cmpstr (assay_code_extractor_get_code (extractor), ==, expected);
  g_assert_cmpint (assay_code_extractor_is_complete (extractor), ==, complete);

  /* And in one go. */
  assay_code_extractor_reset (extractor);
  g_free (assay_code_extractor_feed (extractor, json, -1));
  g_assert_cmpstr (assay_code_extractor_get_code (extractor), ==, expected);
}

static void
test_extractor (void)
{
  check_extract ("{\"code\": \"print(1)\\nprint(2)\"}", "print(1)\nprint(2)", TRUE);
  check_extract ("{\"description\": \"has \\\"code\\\": \\\"x\\\" inside\", \"code\":\"a\\tb\\\\c\\/d\"}",
                 "a\tb\\c/d", TRUE);
  check_extract ("{\"code\":\"s = \\\"h\\u00e9\\\"\"}", "s = \"hé\"", TRUE);
  check_extract ("{\"code\":\"e = '\\ud83d\\ude00'\"}", "e = '😀'", TRUE);
  check_extract ("{\"code\":\"raw é 😀 ok\"}", "raw é 😀 ok", TRUE);
  check_extract ("{\"meta\":{\"code\":\"no\"},\"list\":[\"code\",\"x\"],\"code\":\"yes\"}", "yes", TRUE);
  check_extract ("{\"code\":\"lone \\ud83d then\"}", "lone \xef\xbf\xbd then", TRUE);
  check_extract ("{\"code\":\"unfinished \\u00", "unfinished ", FALSE);
  check_extract ("{\"code\": 42, \"x\": \"y\"}", "", FALSE);
  check_extract ("not json at all", "", FALSE);
}

static void
test_fenced_extract (void)
{
  g_autofree char *one = assay_agent_extract_fenced_code ("Text\n```python\nx = 1\n```\nmore\n```py\ny = 2\n```");
  g_autofree char *none = assay_agent_extract_fenced_code ("```\nplain\n```");

  g_assert_cmpstr (one, ==, "x = 1\ny = 2\n");
  g_assert_null (none);
}

static void
test_fit_messages (void)
{
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_message_free);
  g_autoptr(GPtrArray) fitted = NULL;
  g_autofree char *big = g_strnfill (5000, 'x');
  AssayLlmMessage *assistant;

  g_ptr_array_add (messages, assay_llm_message_new_user ("q"));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *id = g_strdup_printf ("c%u", i);

      assistant = assay_llm_message_new_assistant (NULL);
      g_ptr_array_add (assistant->tool_calls, assay_llm_tool_call_new (id, "execute_python", "{}"));
      g_ptr_array_add (messages, assistant);
      g_ptr_array_add (messages, assay_llm_message_new_tool (id, big, FALSE));
    }
  fitted = assay_agent_fit_messages (messages, 11000);
  g_assert_cmpuint (fitted->len, ==, messages->len);
  /* Oldest first, and only as many as needed; the last answer is kept. */
  g_assert_cmpuint (strlen (((AssayLlmMessage *) g_ptr_array_index (fitted, 2))->text), <, 200);
  g_assert_cmpuint (strlen (((AssayLlmMessage *) g_ptr_array_index (fitted, 4))->text), ==, 5000);
  g_assert_cmpuint (strlen (((AssayLlmMessage *) g_ptr_array_index (fitted, 6))->text), ==, 5000);
  /* The original is untouched. */
  g_assert_cmpuint (strlen (((AssayLlmMessage *) g_ptr_array_index (messages, 2))->text), ==, 5000);
}

static void
test_system_prompt (void)
{
  Run *run = run_new ("{\"turns\":[]}");
  g_autofree char *prompt = NULL;
  g_autofree char *path = g_build_filename (work_dir, "sales.csv", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_agent_add_dataset (run->agent, path, "delimiter ',', header row\ncolumns: region (text), amount (int)", &error));
  prompt = assay_agent_build_system_prompt (run->agent);
  g_assert_nonnull (strstr (prompt, "Compute, never estimate"));
  g_assert_nonnull (strstr (prompt, "traceback"));
  g_assert_nonnull (strstr (prompt, "/workspace"));
  g_assert_nonnull (strstr (prompt, "statsmodels"));
  g_assert_nonnull (strstr (prompt, "no pip"));
  g_assert_nonnull (strstr (prompt, "- /data/sales.csv\n  delimiter ',', header row\n  columns: region"));
  run_free (run);
}

/* A database given, then taken back: the prompt, the tools and the record follow. */
static void
test_remove_source (void)
{
  Run *run = run_new ("{\"turns\":[]}");
  g_autofree char *path = g_build_filename (work_dir, "local.db", NULL);
  g_autofree char *url = g_strconcat ("sqlite://", path, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySource) source = assay_source_new ("local", url, &error);
  g_autofree char *with = NULL;
  g_autofree char *without = NULL;

  g_assert_no_error (error);
  assay_agent_add_source (run->agent, source, "Database \"local\" (SQLite)\n- orders: id integer");
  with = assay_agent_build_system_prompt (run->agent);
  g_assert_nonnull (strstr (with, "run_sql"));
  g_assert_nonnull (strstr (with, "- orders: id integer"));
  g_assert_cmpuint (assay_session_get_sources (run->session)->len, ==, 1);
  g_assert_true (assay_agent_get_source (run->agent, "local") == source);

  g_assert_true (assay_agent_remove_source (run->agent, "local"));
  without = assay_agent_build_system_prompt (run->agent);
  g_assert_null (strstr (without, "run_sql"));
  g_assert_null (strstr (without, "- orders: id integer"));
  g_assert_null (assay_agent_get_source (run->agent, "local"));
  g_assert_cmpuint (assay_session_get_sources (run->session)->len, ==, 0);
  g_assert_false (assay_agent_remove_source (run->agent, "local"));
  run_free (run);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *sales = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  work_dir = g_dir_make_tmp ("assay-test-agent-XXXXXX", &error);
  g_assert_no_error (error);
  sales = g_build_filename (work_dir, "sales.csv", NULL);
  g_assert_true (g_file_set_contents (sales, "region,amount\nnorth,1\nsouth,2\n", -1, NULL));

  kernel = harness_session_new ("bwrap", NULL, NULL);
  if (!harness_start (kernel, &error))
    g_error ("the kernel did not start: %s", error->message);

  g_test_add_func ("/assay/agent/extractor", test_extractor);
  g_test_add_func ("/assay/agent/fenced-extract", test_fenced_extract);
  g_test_add_func ("/assay/agent/fit-messages", test_fit_messages);
  g_test_add_func ("/assay/agent/system-prompt", test_system_prompt);
  g_test_add_func ("/assay/agent/remove-source", test_remove_source);
  g_test_add_func ("/assay/agent/happy-path", test_happy_path);
  g_test_add_func ("/assay/agent/background-saves", test_background_saves);
  g_test_add_func ("/assay/agent/code-delta", test_code_delta_shows_code);
  g_test_add_func ("/assay/agent/error-then-fix", test_error_then_fix);
  g_test_add_func ("/assay/agent/reject", test_reject);
  g_test_add_func ("/assay/agent/continue-after-model-error", test_continue_after_model_error);
  g_test_add_func ("/assay/agent/edit", test_edit);
  g_test_add_func ("/assay/agent/fenced-on", test_fenced_on);
  g_test_add_func ("/assay/agent/fenced-off", test_fenced_off);
  g_test_add_func ("/assay/agent/bad-calls", test_bad_calls);
  g_test_add_func ("/assay/agent/step-limit", test_step_limit);
  g_test_add_func ("/assay/agent/long-output", test_long_output_trimmed);
  g_test_add_func ("/assay/agent/cancel", test_cancel_mid_cell);

  status = g_test_run ();
  harness_close_and_check (kernel, "bwrap");
  g_object_unref (kernel);
  {
    g_autofree char *command = g_strdup_printf ("rm -rf '%s'", work_dir);
    g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL);
  }
  g_free (work_dir);
  return status;
}
