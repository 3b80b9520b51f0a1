/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The loop. One question at a time:
 *
 *   step n: stream a model turn (text, tool calls) → for each call, in order: check it,
 *   ask the analyst (policy ask), run it in the kernel, answer it with a tool result →
 *   step n+1, until the model answers with text alone or the step limit comes.
 *
 * A provider retries inside stream_async, before any cell runs, so a cell never runs twice.
 * The session is saved after every event that matters; a step counts as finished once every
 * call it made has its answer, which is what a crashed session comes back to. */
#define G_LOG_DOMAIN "Assay-Agent"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <string.h>

#include "assay-agent-private.h"
#include "assay-approval.h"
#include "assay-agent-state.h"
#include "assay-code-extractor.h"
#include "assay-json.h"
#include "assay-sandbox-choice.h"
#include "assay-sql-check.h"
#include "assay-openai-container.h"

#define DEFAULT_OUTPUT_BUDGET   6000
#define DEFAULT_CONTEXT_TOKENS  100000
#define CHARS_PER_TOKEN         4

#define TOOL_DESCRIPTION \
  "Run Python code in the analyst's stateful Jupyter-like kernel (variables persist between " \
  "calls) and get back its printed output, the value of the last expression, errors with " \
  "their traceback, and the names of the files it saved in /workspace."

#define TOOL_PARAMETERS \
  "{\"type\":\"object\"," \
  " \"properties\":{" \
  "  \"code\":{\"type\":\"string\",\"description\":\"The Python code to run.\"}," \
  "  \"description\":{\"type\":\"string\",\"description\":\"A few words saying what the code does, for the analyst.\"}}," \
  " \"required\":[\"code\"]}"

#define SQL_TOOL_DESCRIPTION \
  "Run one read-only SQL query on a connected database (see Databases) and get its result in the " \
  "kernel as a pandas DataFrame named `name`, with typed columns. The analyst approves it first."

#define SQL_TOOL_PARAMETERS \
  "{\"type\":\"object\"," \
  " \"properties\":{" \
  "  \"sql\":{\"type\":\"string\",\"description\":\"One query that only reads: SELECT, WITH … SELECT or VALUES, in the database's dialect.\"}," \
  "  \"name\":{\"type\":\"string\",\"description\":\"The Python name the result's DataFrame gets in the kernel, e.g. orders_by_month.\"}," \
  "  \"description\":{\"type\":\"string\",\"description\":\"A few words saying what the query does, for the analyst.\"}," \
  "  \"database\":{\"type\":\"string\",\"description\":\"The database to query, by its name under Databases (needed when there are several).\"}}," \
  " \"required\":[\"sql\",\"name\"]}"

G_DEFINE_FINAL_TYPE (AssayAgent, assay_agent, G_TYPE_OBJECT)

guint assay_agent_signals[ASSAY_AGENT_N_SIGNALS];

static void assay_agent_answer_next_call  (AssayAgent *self);

const char *
assay_agent_outcome_to_string (AssayAgentOutcome outcome)
{
  switch (outcome)
    {
    case ASSAY_AGENT_ANSWERED: return "answered";
    case ASSAY_AGENT_STEP_LIMIT: return "step-limit";
    case ASSAY_AGENT_MODEL_ERROR: return "model-error";
    case ASSAY_AGENT_SANDBOX_ERROR: return "sandbox-error";
    case ASSAY_AGENT_CANCELLED: return "cancelled";
    case ASSAY_AGENT_STOPPED: return "stopped";
    case ASSAY_AGENT_BUDGET: return "budget";
    default: return "unknown";
    }
}

static void
assay_agent_string_free (gpointer data)
{
  g_string_free (data, TRUE);
}

static void
assay_agent_source_free (gpointer data)
{
  Source *source = data;

  g_object_unref (source->source);
  g_free (source->description);
  g_free (source);
}

static Source *
assay_agent_find_source (AssayAgent *self,
                         const char *name)
{
  for (guint i = 0; i < self->sources->len; i++)
    {
      Source *source = g_ptr_array_index (self->sources, i);

      if (g_strcmp0 (assay_source_get_name (source->source), name) == 0)
        return source;
    }
  return NULL;
}

static void
assay_agent_dataset_free (gpointer data)
{
  Dataset *dataset = data;

  g_free (dataset->name);
  g_free (dataset->description);
  g_free (dataset);
}

/* ---- saving ------------------------------------------------------------------------------ */

static void
assay_agent_saved_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(AssayAgent) self = user_data;
  g_autoptr(GError) error = NULL;
  GApplication *application = g_application_get_default ();

  if (!assay_session_save_finish (ASSAY_SESSION (source), result, &error))
    g_signal_emit (self, assay_agent_signals[ERROR], 0, error->message);
  if (application != NULL)
    g_application_release (application);
  if (--self->pending_saves == 0 && self->finished_task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->finished_task);

      g_task_return_int (task, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "outcome")));
    }
}

/* In the background (the window), the record is written by a worker, in order, and a
 * question is over only once every save of it has landed; the application is held until
 * then. Otherwise (the CLI) the caller's thread writes it. */
void
assay_agent_save (AssayAgent *self)
{
  g_autoptr(GError) error = NULL;
  GApplication *application;

  if (!self->background_saves)
    {
      if (!assay_session_save (self->session, &error))
        g_signal_emit (self, assay_agent_signals[ERROR], 0, error->message);
      return;
    }
  if ((application = g_application_get_default ()) != NULL)
    g_application_hold (application);
  self->pending_saves++;
  assay_session_save_async (self->session, NULL, assay_agent_saved_cb, g_object_ref (self));
}

/* ---- streaming --------------------------------------------------------------------------- */

/* With masked columns, what streams is unmasked before anyone sees it. A placeholder may be
 * cut between two pieces: the text from an opening bracket without its closing one (or a
 * bracket's first bytes) waits for the next piece. Returns what can be shown now. */
static char *
assay_agent_unmask_piece (AssayAgent *self,
                          GString    *held,
                          const char *piece,
                          gboolean    last)
{
  gsize keep = held->len + (piece != NULL ? strlen (piece) : 0);
  g_autofree char *ready = NULL;
  char *shown;

  if (piece != NULL)
    g_string_append (held, piece);
  if (!last)
    {
      const char *open = g_strrstr (held->str, "\xe2\x9f\xa8");
      gsize n = held->len;

      keep = n;
      if (open != NULL && strstr (open, "\xe2\x9f\xa9") == NULL && held->str + n - open < 300)
        keep = open - held->str;
      else if (n >= 1 && (guint8) held->str[n - 1] == 0xe2)
        keep = n - 1;
      else if (n >= 2 && (guint8) held->str[n - 2] == 0xe2 && (guint8) held->str[n - 1] == 0x9f)
        keep = n - 2;
    }
  ready = g_strndup (held->str, keep);
  g_string_erase (held, 0, keep);
  shown = assay_masker_unmask (self->masker, ready);
  return shown;
}

static void
assay_agent_text_delta_cb (AssayLlmProvider *provider,
                           const char       *text,
                           AssayAgent       *self)
{
  g_autofree char *shown = NULL;

  if (!self->streaming)
    return;
  if (self->masker == NULL)
    {
      g_signal_emit (self, assay_agent_signals[TEXT_DELTA], 0, text);
      return;
    }
  shown = assay_agent_unmask_piece (self, self->text_held, text, FALSE);
  if (*shown != '\0')
    g_signal_emit (self, assay_agent_signals[TEXT_DELTA], 0, shown);
}

static void
assay_agent_tool_call_delta_cb (AssayLlmProvider *provider,
                                guint             index,
                                const char       *id,
                                const char       *name,
                                const char       *fragment,
                                AssayAgent       *self)
{
  g_autofree char *code = NULL;

  if (!self->streaming || index > 1024)
    return;
  /* OpenAI's code interpreter streams the code itself, not JSON arguments. */
  if (g_strcmp0 (name, ASSAY_LLM_HOSTED_TOOL_NAME) == 0)
    {
      if (self->container != NULL && fragment != NULL && fragment[0] != '\0')
        g_signal_emit (self, assay_agent_signals[CODE_DELTA], 0, index, id, fragment);
      return;
    }
  while (self->extractors->len <= index)
    g_ptr_array_add (self->extractors, assay_code_extractor_new ());
  code = assay_code_extractor_feed (g_ptr_array_index (self->extractors, index), fragment, -1);
  if (self->masker != NULL && code[0] != '\0')
    {
      g_autofree char *masked = g_steal_pointer (&code);

      while (self->code_held->len <= index)
        g_ptr_array_add (self->code_held, g_string_new (NULL));
      code = assay_agent_unmask_piece (self, g_ptr_array_index (self->code_held, index), masked, FALSE);
    }
  if (code[0] != '\0' && g_strcmp0 (name, ASSAY_AGENT_TOOL_NAME) == 0)
    g_signal_emit (self, assay_agent_signals[CODE_DELTA], 0, index, id, code);
}

static void
assay_agent_retrying_cb (AssayLlmProvider *provider,
                         guint             attempt,
                         guint             delay_ms,
                         const char       *reason,
                         AssayAgent       *self)
{
  if (!self->streaming)
    return;
  /* Whatever streamed for this turn is void. */
  g_ptr_array_set_size (self->extractors, 0);
  g_ptr_array_set_size (self->code_held, 0);
  g_string_truncate (self->text_held, 0);
  g_signal_emit (self, assay_agent_signals[RETRYING], 0, attempt, delay_ms, reason);
}

static void
assay_agent_kernel_output_cb (AssayKernelSession *kernel,
                              const char         *kernel_cell_id,
                              JsonObject         *output,
                              AssayAgent         *self)
{
  /* Cells run one at a time: an output belongs to the cell we started. */
  if (self->cell != NULL && self->cell->status == ASSAY_CELL_RUNNING)
    g_signal_emit (self, assay_agent_signals[OUTPUT], 0, self->cell->id, output);
}

/* ---- the system prompt ------------------------------------------------------------------- */

char *
assay_agent_build_system_prompt (AssayAgent *self)
{
  GString *prompt = g_string_new (NULL);

  g_return_val_if_fail (ASSAY_IS_AGENT (self), NULL);

  if (self->container != NULL)
    {
      g_string_append (prompt,
        "You are Assay, a careful data analyst. The analyst asking you wants answers they can trust.\n"
        "\n"
        "How to work:\n"
        "- Compute, never estimate: every number in your answer comes from code you ran with the "
        "python tool (the code interpreter). Print the numbers you will name.\n"
        "- Look at the data before relying on it: columns, types, a few rows, missing values.\n"
        "- Keep outputs short: print summaries, not whole tables.\n"
        "- Save the files the analyst should keep (charts, tables) in /mnt/data and cite them in "
        "your answer: cited files come back to the analyst.\n"
        "- When you have the answer, reply with text: the answer, the numbers behind it, and the "
        "files you saved.\n");
      if (self->state_lost)
        g_string_append (prompt,
          "\nThe container of the earlier questions is gone (it expired, or the session was closed): "
          "this is a new one. Variables and files of earlier code are gone; the datasets were uploaded "
          "again.\n");
      g_string_append (prompt, "\nDatasets (read-only copies, in /mnt/data):\n");
      if (self->datasets->len == 0)
        g_string_append (prompt, "- none: the analyst gave no file.\n");
      for (guint i = 0; i < self->datasets->len; i++)
        {
          Dataset *dataset = g_ptr_array_index (self->datasets, i);

          g_string_append_printf (prompt, "- /mnt/data/%s\n", dataset->name);
          if (dataset->description != NULL && *dataset->description != '\0')
            {
              g_autofree char *moved = NULL;
              g_auto(GStrv) lines = NULL;
              g_auto(GStrv) parts = g_strsplit (dataset->description, "/data/", -1);

              moved = g_strjoinv ("/mnt/data/", parts);
              lines = g_strsplit (moved, "\n", -1);
              for (guint j = 0; lines[j] != NULL; j++)
                if (*lines[j] != '\0')
                  g_string_append_printf (prompt, "  %s\n", lines[j]);
            }
        }
      return g_string_free (prompt, FALSE);
    }

  g_string_append (prompt,
    "You are Assay, a careful data analyst. The analyst asking you wants answers they can trust.\n"
    "\n"
    "How to work:\n"
    "- Compute, never estimate: every number in your answer comes from code you ran. Never guess "
    "a value you could compute.\n"
    "- Run Python with the execute_python tool (arguments: \"code\", the Python to run, and "
    "\"description\", a few words saying what it does). The kernel is stateful: variables, imports "
    "and loaded data stay between calls.\n"
    "- Look at the data before relying on it: columns, types, a few rows, missing values.\n"
    "- Read every output. When a cell fails, read the traceback, find the cause and fix it; do not "
    "work around an error you have not understood.\n"
    "- Keep outputs short: print summaries, not whole tables.\n"
    "- The working directory is /workspace. Save files the analyst should keep there (charts with "
    "plt.savefig(\"/workspace/name.png\"), tables, reports): every file saved in /workspace becomes "
    "an artifact the analyst sees. Images are not shown to you; describe them from the numbers.\n"
    "- The analyst may edit or reject a cell before it runs; follow their reasons.\n");
  if (self->sources->len > 0)
    g_string_append (prompt,
      "- Query the databases below with the run_sql tool (arguments: \"sql\", one read-only query in the "
      "database's own dialect; \"name\", the Python name its result gets; \"description\"; and \"database\" "
      "when there are several). It runs on the server in a read-only transaction with a timeout and a row "
      "cap, and the result arrives in the kernel as a pandas DataFrame: integers as Int64, booleans as "
      "boolean, timestamps with a time zone as datetime64[ns, UTC], dates and other timestamps as "
      "datetime64[ns], numeric/decimal as exact decimal.Decimal objects (use .astype(float) to compute "
      "fast), text as str. Join, filter and aggregate in SQL when tables are large; then go on in Python. "
      "The kernel itself cannot reach the databases.\n");
  g_string_append (prompt,
    "- When you have the answer, reply with text only (no tool call): the answer, the numbers "
    "behind it, and the files you saved.\n"
    "\n"
    "The sandbox: Python 3 with pandas, numpy, matplotlib, scipy, scikit-learn, statsmodels, "
    "seaborn, openpyxl, xlsxwriter, reportlab, tabulate and PIL (Pillow). There is no network "
    "and nothing can be installed (no pip).\n");

  if (self->restore_notes->len > 0)
    g_string_append_printf (prompt, "\nThe session was opened again and its kernel rebuilt:\n%s",
                            self->restore_notes->str);

  switch (assay_session_get_privacy_mode (self->session))
    {
    case ASSAY_PRIVACY_SCHEMA:
      g_string_append (prompt,
        "\nSchema-only mode: you never see the data or any output. You know the datasets' columns, "
        "types and row counts; of each cell you run you are told its status, the type of its error "
        "(not the message) and the shapes of the DataFrames it made. The analyst sees every output. "
        "Write code that prints the results the analyst asked for, check your work through statuses "
        "and shapes, and in the answer say what the cells computed and where to read it, without "
        "numbers you have not been told.\n");
      break;
    case ASSAY_PRIVACY_MASKED:
      if (self->masker != NULL && assay_masker_get_n_columns (self->masker) > 0)
        g_string_append (prompt,
          "\nSome columns are masked: their values reach you as placeholders such as "
          "⟨customer_id 17⟩, the same placeholder for the same value everywhere. To use a value in "
          "code, write its placeholder where the value goes (df[df.customer_id == ⟨customer_id 17⟩]); "
          "Assay puts the real value in before the code runs. Do not try to reveal masked values.\n");
      break;
    case ASSAY_PRIVACY_FULL:
    default:
      break;
    }

  if (self->sources->len > 0)
    {
      g_string_append (prompt, "\nDatabases (read-only, through run_sql):\n");
      for (guint i = 0; i < self->sources->len; i++)
        {
          Source *source = g_ptr_array_index (self->sources, i);
          const char *description = source->description;
          g_autofree char *fallback = NULL;
          g_autofree char *masked = NULL;

          if (description == NULL || *description == '\0')
            description = fallback = g_strdup_printf ("Database \"%s\" (%s).",
                                                      assay_source_get_name (source->source),
                                                      assay_source_kind_get_label (assay_source_get_kind (source->source)));
          masked = self->masker != NULL ? assay_masker_mask (self->masker, description) : g_strdup (description);
          g_string_append (prompt, masked);
          if (prompt->str[prompt->len - 1] != '\n')
            g_string_append_c (prompt, '\n');
        }
    }

  g_string_append (prompt, "\nDatasets (read-only):\n");
  if (self->datasets->len == 0)
    g_string_append (prompt, self->sources->len > 0 ? "- none: the data is in the databases above.\n"
                                                    : "- none: the analyst gave no file.\n");
  for (guint i = 0; i < self->datasets->len; i++)
    {
      Dataset *dataset = g_ptr_array_index (self->datasets, i);

      g_string_append_printf (prompt, "- /data/%s\n", dataset->name);
      /* ---- DATASET DESCRIPTION -------------------------------------------------------------
       * The datasets module (CSV sniffing) hands its summary to assay_agent_add_dataset():
       * dialect (delimiter, decimal, encoding, header) and schema (columns, types, rows), so
       * that the model's first read_csv is right. Without one, the path alone is given. */
      if (dataset->description != NULL && *dataset->description != '\0')
        {
          g_autofree char *masked = self->masker != NULL ? assay_masker_mask (self->masker, dataset->description)
                                                         : g_strdup (dataset->description);
          g_auto(GStrv) lines = g_strsplit (masked, "\n", -1);

          for (guint j = 0; lines[j] != NULL; j++)
            if (*lines[j] != '\0')
              g_string_append_printf (prompt, "  %s\n", lines[j]);
        }
    }
  return g_string_free (prompt, FALSE);
}

/* ---- finishing --------------------------------------------------------------------------- */

static void
assay_agent_clear_run (AssayAgent *self)
{
  if (self->cancel_handler != 0)
    g_cancellable_disconnect (self->cancellable, self->cancel_handler);
  self->cancel_handler = 0;
  g_clear_object (&self->cancellable);
  self->streaming = FALSE;
  self->awaiting_approval = FALSE;
  self->cell = NULL;
  self->assistant = NULL;
  self->call_index = 0;
  g_ptr_array_set_size (self->extractors, 0);
}

void
assay_agent_finish (AssayAgent        *self,
                    AssayAgentOutcome  outcome,
                    const char        *text)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->task);

  g_return_if_fail (task != NULL);

  assay_agent_clear_run (self);
  /* A repair's last word is not the session's answer: the run again goes on after it. */
  if (!self->repairing || outcome != ASSAY_AGENT_ANSWERED)
    assay_session_set_outcome (self->session, assay_agent_outcome_to_string (outcome), text);
  assay_agent_save (self);
  if (outcome == ASSAY_AGENT_MODEL_ERROR || outcome == ASSAY_AGENT_SANDBOX_ERROR)
    g_signal_emit (self, assay_agent_signals[ERROR], 0, text);
  g_signal_emit (self, assay_agent_signals[DONE], 0, (int) outcome, text);

  g_task_set_task_data (task, g_strdup (text), g_free);
  /* What the server did, for a caller that offers to fix it (another server, another key). */
  g_object_set_data (G_OBJECT (task), "assay-model-error-code", GINT_TO_POINTER (self->model_error_code));
  if (self->pending_saves > 0)
    {
      g_object_set_data (G_OBJECT (task), "outcome", GINT_TO_POINTER (outcome));
      self->finished_task = g_steal_pointer (&task);
      return;
    }
  g_task_return_int (task, outcome);
}

/* Every call of the turn gets an answer, even those that will not run: the conversation must
 * stay well-formed for the next question. */
static void
assay_agent_answer_remaining_calls (AssayAgent *self,
                                    const char *why)
{
  for (; self->assistant != NULL && self->call_index < self->assistant->tool_calls->len; self->call_index++)
    {
      AssayLlmToolCall *call = g_ptr_array_index (self->assistant->tool_calls, self->call_index);

      assay_session_append_message (self->session, assay_llm_message_new_tool (call->id, why, TRUE));
    }
}

static void
assay_agent_end_during_step (AssayAgent        *self,
                             AssayAgentOutcome  outcome,
                             const char        *message)
{
  assay_agent_answer_remaining_calls (self, message);
  if (self->assistant != NULL)
    assay_session_finish_step (self->session);
  assay_agent_finish (self, outcome, message);
}

/* ---- running a cell ---------------------------------------------------------------------- */

static void
assay_agent_add_tool_result (AssayAgent *self,
                             const char *text,
                             gboolean    is_error)
{
  AssayLlmToolCall *call = g_ptr_array_index (self->assistant->tool_calls, self->call_index);

  assay_session_append_message (self->session, assay_llm_message_new_tool (call->id, text, is_error));
  self->call_index++;
}

static gboolean
assay_agent_continue_idle_cb (gpointer user_data)
{
  AssayAgent *self = user_data;

  if (self->task != NULL)
    assay_agent_answer_next_call (self);
  return G_SOURCE_REMOVE;
}

/* Later, on our context: the caller may be inside a signal handler of ours. */
static void
assay_agent_continue_later (AssayAgent *self)
{
  GSource *source = g_idle_source_new ();

  /* Not at the idle priority: below GDK_PRIORITY_REDRAW, it waits for as long as frames
   * follow each other (a spinner on software GL), and the question stalls. */
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, assay_agent_continue_idle_cb, g_object_ref (self), g_object_unref);
  g_source_set_static_name (source, "[assay] agent continue");
  g_source_attach (source, self->context);
  g_source_unref (source);
}

static void
assay_agent_executed_cb (GObject      *source,
                         GAsyncResult *res,
                         gpointer      user_data)
{
  g_autoptr(AssayAgent) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCellResult) result = NULL;
  g_autofree char *formatted = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  AssaySessionCell *cell = self->cell;
  AssayCellStatus status;
  GPtrArray *artifacts;

  result = assay_kernel_session_execute_finish (ASSAY_KERNEL_SESSION (source), res, &error);
  if (self->task == NULL)
    return;

  if (result == NULL)
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_autofree char *message = NULL;

      cell->status = cancelled ? ASSAY_CELL_CANCELLED : ASSAY_CELL_SANDBOX_ERROR;
      cell->status_reason = g_strdup (error->message);
      cell->finished_at = g_get_real_time ();
      if (cancelled)
        message = g_strdup ("The analyst cancelled the question; the cell did not finish.");
      else
        message = g_strdup_printf ("The sandbox could not run the cell: %s", error->message);
      self->cell = NULL;
      assay_agent_end_during_step (self,
                                   cancelled ? ASSAY_AGENT_CANCELLED : ASSAY_AGENT_SANDBOX_ERROR,
                                   message);
      return;
    }

  assay_session_record_result (self->session, cell, result);
  self->cell = NULL;
  self->timing.cell_us += assay_cell_result_get_elapsed_us (result);
  self->timing.code_us += assay_cell_result_get_code_us (result);

  artifacts = assay_cell_result_get_artifacts (result);
  for (guint i = 0; i < artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (artifacts, i);

      g_signal_emit (self, assay_agent_signals[ARTIFACT_ADDED], 0, cell->id, artifact->name, artifact->path);
    }
  g_signal_emit (self, assay_agent_signals[CELL_FINISHED], 0, cell->id, result);

  status = assay_cell_result_get_status (result);
  if (cell->kind == ASSAY_CELL_KIND_SQL)
    {
      /* The query's time is part of the cell's: the kernel only loaded its result. */
      cell->elapsed_ms += cell->query != NULL ? cell->query->query_ms : 0;
      if (cell->decision == ASSAY_DECISION_EDITED)
        g_string_append_printf (text,
                                "The analyst edited your SQL before running it. The SQL that ran:\n"
                                "```sql\n%s\n```\n", cell->code);
      if (self->query_summary != NULL)
        g_string_append (text, self->query_summary);
      g_clear_pointer (&self->query_summary, g_free);
      g_string_append (text, status == ASSAY_CELL_OK ? "Loading it in the kernel printed:\n"
                                                     : "Loading it in the kernel failed:\n");
    }
  else if (cell->decision == ASSAY_DECISION_EDITED)
    g_string_append_printf (text,
                            "The analyst edited your code before running it. The code that ran:\n"
                            "```python\n%s\n```\n", cell->code);
  formatted = assay_session_get_privacy_mode (self->session) == ASSAY_PRIVACY_SCHEMA
              ? assay_agent_format_result_schema (result)
              : assay_agent_format_result (result, self->output_budget);
  /* Tracing reads the answer's numbers in what the model read, not what it never saw. */
  cell->model_read = self->output_budget;
  g_string_append (text, formatted);

  if (status == ASSAY_CELL_CANCELLED &&
      self->cancellable != NULL && g_cancellable_is_cancelled (self->cancellable))
    {
      assay_agent_add_tool_result (self, text->str, TRUE);
      assay_agent_end_during_step (self, ASSAY_AGENT_CANCELLED,
                                   "The analyst cancelled the question; the cell was interrupted.");
      return;
    }

  assay_agent_add_tool_result (self, text->str, status != ASSAY_CELL_OK);
  assay_agent_save (self);
  assay_agent_answer_next_call (self);
}

/* ---- running a query --------------------------------------------------------------------- */

/* The name a query's result has under /data: hidden, so no glob of the datasets lists it. */
static char *
assay_agent_result_file_name (const AssaySessionCell *cell)
{
  return g_strdup_printf (".assay-query-%s.aqr", cell->id);
}

/* The cached result of CELL made visible to the kernel; the Python that loads it, or NULL. */
static char *
assay_agent_expose_result (AssayAgent              *self,
                           const AssaySessionCell  *cell,
                           GError                 **error)
{
  g_autofree char *path = NULL;
  g_autofree char *name = assay_agent_result_file_name (cell);
  g_autofree char *sandbox_path = NULL;

  if (cell->query == NULL || cell->query->result == NULL || cell->query->frame == NULL ||
      (path = assay_session_resolve (self->session, cell->query->result)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "The result of %s is not in the session", cell->id);
      return NULL;
    }
  if (!assay_kernel_session_add_hidden_file (self->kernel, path, name, error))
    return NULL;
  sandbox_path = g_build_filename ("/data", name, NULL);
  return assay_query_result_loader_code (cell->query->frame, sandbox_path);
}

/* What the model reads of a query that failed: the server's words, so it can fix its SQL. In
 * schema-only mode a data error's message is withheld, since it quotes the values it met. */
static char *
assay_agent_format_query_error (AssayAgent             *self,
                                const AssaySessionCell *cell,
                                const GError           *error)
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (cell->decision == ASSAY_DECISION_EDITED)
    g_string_append_printf (text, "The analyst edited your SQL before running it. The SQL that ran:\n"
                                  "```sql\n%s\n```\n", cell->code);
  if (g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED))
    g_string_append_printf (text, "Error: the SQL was refused before it reached the database. %s", error->message);
  else if (g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_DATA) &&
           assay_session_get_privacy_mode (self->session) == ASSAY_PRIVACY_SCHEMA)
    g_string_append (text, "Error: the database failed the query with a data error (a value it could not convert "
                           "or compute). Its message quotes the data, so it is withheld in schema-only mode.");
  else
    g_string_append_printf (text, "Error: %s", error->message);
  g_string_append_printf (text, "\nNothing was loaded into the kernel%s%s%s.",
                          cell->query != NULL && cell->query->frame != NULL ? ": `" : "",
                          cell->query != NULL && cell->query->frame != NULL ? cell->query->frame : "",
                          cell->query != NULL && cell->query->frame != NULL ? "` is unchanged" : "");
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
assay_agent_query_failed (AssayAgent   *self,
                          const GError *error,
                          gint64        query_us)
{
  AssaySessionCell *cell = self->cell;
  g_autoptr(AssayCellResult) result = assay_cell_result_new (cell->id, cell->code);
  g_autofree char *text = assay_agent_format_query_error (self, cell, error);
  AssayCellStatus status = ASSAY_CELL_ERROR;

  if (g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TIMEOUT))
    status = ASSAY_CELL_TIMEOUT;
  else if (g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TOO_LARGE))
    status = ASSAY_CELL_LIMIT;
  assay_cell_result_set_status (result, status, error->message);
  assay_cell_result_set_elapsed_us (result, query_us);
  assay_session_record_result (self->session, cell, result);
  if (cell->query != NULL)
    cell->query->query_ms = query_us / 1000;
  self->cell = NULL;
  self->timing.cell_us += query_us;
  g_signal_emit (self, assay_agent_signals[CELL_FINISHED], 0, cell->id, result);
  if (self->task == NULL)
    return;
  assay_agent_add_tool_result (self, text, TRUE);
  assay_agent_save (self);
  /* Later: a refused edit fails here inside assay_agent_respond (). */
  assay_agent_continue_later (self);
}

static void
assay_agent_queried_cb (GObject      *source,
                        GAsyncResult *res,
                        gpointer      user_data)
{
  g_autoptr(AssayAgent) self = user_data;
  g_autoptr(AssayQueryResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *queries = NULL;
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;
  g_autofree char *loader = NULL;
  g_autofree char *columns = NULL;
  AssaySessionCell *cell = self->cell;
  gint64 query_us;
  guint64 rows;

  result = assay_source_query_finish (ASSAY_SOURCE (source), res, &error);
  query_us = g_get_monotonic_time () - self->query_started_at;
  if (self->task == NULL || cell == NULL)
    return;

  if (result == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autoptr(AssayCellResult) cancelled = assay_cell_result_new (cell->id, cell->code);

      /* Said like a cell the kernel interrupted, so a view stops showing it running. */
      assay_cell_result_set_status (cancelled, ASSAY_CELL_CANCELLED, error->message);
      assay_cell_result_set_elapsed_us (cancelled, query_us);
      assay_session_record_result (self->session, cell, cancelled);
      if (cell->query != NULL)
        cell->query->query_ms = query_us / 1000;
      self->cell = NULL;
      g_signal_emit (self, assay_agent_signals[CELL_FINISHED], 0, cell->id, cancelled);
      assay_agent_end_during_step (self, ASSAY_AGENT_CANCELLED,
                                   "The analyst cancelled the question; the query was stopped on the server.");
      return;
    }
  if (result == NULL)
    {
      assay_agent_query_failed (self, error, query_us);
      return;
    }

  /* The result stays with the session (what a reopened session loads again), and the
   * sandbox reads it from there through /data. */
  file = g_strdup_printf ("%s.aqr", cell->id);
  if ((queries = assay_session_get_queries_dir (self->session, &error)) == NULL)
    {
      assay_agent_query_failed (self, error, query_us);
      return;
    }
  path = g_build_filename (queries, file, NULL);
  if (!assay_query_result_write (result, path, &error))
    {
      assay_agent_query_failed (self, error, query_us);
      return;
    }
  rows = assay_query_result_get_n_rows (result);
  cell->query->rows = (gint64) rows;
  cell->query->bytes = (gint64) assay_query_result_get_n_bytes (result);
  cell->query->query_ms = query_us / 1000;
  json_array_unref (cell->query->columns);
  cell->query->columns = assay_query_result_columns_to_json (result);
  g_free (cell->query->result);
  cell->query->result = g_build_filename ("queries", file, NULL);
  self->timing.cell_us += query_us;

  loader = assay_agent_expose_result (self, cell, &error);
  if (loader == NULL)
    {
      assay_agent_query_failed (self, error, query_us);
      return;
    }
  columns = assay_query_result_describe_columns (result);
  g_free (self->query_summary);
  self->query_summary =
    g_strdup_printf ("The query ran on %s in %" G_GINT64_FORMAT " ms and returned %" G_GUINT64_FORMAT " row%s × %u "
                     "column%s, now the DataFrame `%s` in the kernel (pandas dtypes, with the server's types):\n%s",
                     cell->query->database, query_us / 1000, rows, rows == 1 ? "" : "s",
                     assay_query_result_get_n_columns (result),
                     assay_query_result_get_n_columns (result) == 1 ? "" : "s", cell->query->frame, columns);
  assay_agent_save (self);
  assay_kernel_session_execute_async (self->kernel, loader, self->cancellable,
                                      assay_agent_executed_cb, g_object_ref (self));
}

static void
assay_agent_run_query (AssayAgent *self)
{
  AssaySessionCell *cell = self->cell;
  Source *source = assay_agent_find_source (self, cell->query->database);
  g_autoptr(GError) error = NULL;
  g_autofree char *checked = NULL;

  if (source == NULL)
    {
      g_set_error (&error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_CONNECT,
                   "The database %s is not connected in this session.", cell->query->database);
      assay_agent_query_failed (self, error, 0);
      return;
    }
  /* The analyst may have edited it: checked again, before anything reaches the server. */
  checked = assay_sql_check_read_only (cell->code, assay_source_get_syntax (source->source), &error);
  if (checked == NULL)
    {
      assay_agent_query_failed (self, error, 0);
      return;
    }
  self->query_started_at = g_get_monotonic_time ();
  assay_source_query_async (source->source, cell->code, self->cancellable,
                            assay_agent_queried_cb, g_object_ref (self));
}

static void
assay_agent_run_cell (AssayAgent *self,
                      const char *code)
{
  AssaySessionCell *cell = self->cell;

  g_free (cell->code);
  cell->code = g_strdup (code);
  cell->status = ASSAY_CELL_RUNNING;
  cell->started_at = g_get_real_time ();
  /* What the analyst (or their policy) approved is sealed: an edit of the record later is
   * seen before the code runs again. */
  if (cell->decision == ASSAY_DECISION_AUTO || cell->decision == ASSAY_DECISION_APPROVED ||
      cell->decision == ASSAY_DECISION_EDITED)
    {
      g_autoptr(GError) error = NULL;

      if (!assay_approval_seal (cell, &error))
        g_warning ("cell %s is not sealed: %s", cell->id, error->message);
    }
  assay_agent_save (self);

  g_signal_emit (self, assay_agent_signals[CELL_STARTED], 0, cell->id, cell->code);
  if (cell->kind == ASSAY_CELL_KIND_SQL)
    {
      if (self->task != NULL && self->cell == cell)
        assay_agent_run_query (self);
      return;
    }
  assay_kernel_session_execute_async (self->kernel, cell->code, self->cancellable,
                                      assay_agent_executed_cb, g_object_ref (self));
}

/* ---- answering the model's calls --------------------------------------------------------- */

static gboolean
assay_agent_is_blank (const char *text)
{
  for (; *text != '\0'; text++)
    if (!g_ascii_isspace (*text))
      return FALSE;
  return TRUE;
}

/* The code and description of a call, or an error message for the model. */
static gboolean
assay_agent_parse_call (AssayLlmToolCall  *call,
                        gboolean           with_sql,
                        char             **code,
                        char             **description,
                        char             **problem)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  JsonNode *member;

  if (g_strcmp0 (call->name, ASSAY_AGENT_TOOL_NAME) != 0)
    {
      *problem = g_strdup_printf ("Error: there is no tool named “%s”. The tools are "
                                  "execute_python, with arguments {\"code\": \"...\", "
                                  "\"description\": \"...\"}%s. Nothing ran.",
                                  call->name ? call->name : "",
                                  with_sql ? ", and run_sql, with {\"sql\": \"...\", \"name\": \"...\", "
                                             "\"description\": \"...\", \"database\": \"...\"}" : "");
      return FALSE;
    }

  node = assay_json_from_untrusted (call->arguments ? call->arguments : "", &error);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      *problem = g_strdup_printf ("Error: the arguments of execute_python were not a valid JSON "
                                  "object (%s). Send {\"code\": \"...\", \"description\": \"...\"}, "
                                  "with the code as a JSON string. Nothing ran.",
                                  error ? error->message : "not an object");
      return FALSE;
    }
  object = json_node_get_object (node);
  member = json_object_get_member (object, "code");
  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) ||
      json_node_get_value_type (member) != G_TYPE_STRING ||
      assay_agent_is_blank (json_node_get_string (member)))
    {
      *problem = g_strdup ("Error: execute_python needs a non-empty string argument “code”. "
                           "Nothing ran.");
      return FALSE;
    }
  *code = g_strdup (json_node_get_string (member));
  member = json_object_get_member (object, "description");
  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
      json_node_get_value_type (member) == G_TYPE_STRING)
    *description = g_strdup (json_node_get_string (member));
  return TRUE;
}

/* Whether NAME can name the result's DataFrame: an ASCII Python identifier that is no keyword
 * and does not hide what cells rely on. */
static gboolean
assay_agent_frame_name_is_valid (const char *name)
{
  static const char *const taken[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
    "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    "pd", "np", "plt", "display", "assay_frames", "print", "len", "list", "dict", "str", "int", "float",
    NULL
  };

  if (name == NULL || name[0] == '\0' || name[0] == '_' || g_ascii_isdigit (name[0]) || strlen (name) > 64)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return !g_strv_contains (taken, name);
}

static const char *
assay_agent_string_member (JsonObject *object,
                           const char *name)
{
  JsonNode *member = json_object_get_member (object, name);

  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (member);
}

/* The SQL, the DataFrame's name, the database and the description of a run_sql call; or an
 * error message for the model. The statement is checked here, before the analyst sees it. */
static gboolean
assay_agent_parse_sql_call (AssayAgent        *self,
                            AssayLlmToolCall  *call,
                            char             **sql,
                            char             **frame,
                            Source           **source,
                            char             **description,
                            char             **problem)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *checked = NULL;
  JsonObject *object;
  const char *text, *name, *database;

  node = assay_json_from_untrusted (call->arguments ? call->arguments : "", &error);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      *problem = g_strdup_printf ("Error: the arguments of run_sql were not a valid JSON object (%s). Send "
                                  "{\"sql\": \"...\", \"name\": \"...\", \"description\": \"...\"}. Nothing ran.",
                                  error ? error->message : "not an object");
      return FALSE;
    }
  object = json_node_get_object (node);
  text = assay_agent_string_member (object, "sql");
  name = assay_agent_string_member (object, "name");
  database = assay_agent_string_member (object, "database");
  if (text == NULL || assay_agent_is_blank (text))
    {
      *problem = g_strdup ("Error: run_sql needs a non-empty string argument “sql”. Nothing ran.");
      return FALSE;
    }
  if (!assay_agent_frame_name_is_valid (name))
    {
      *problem = g_strdup_printf ("Error: run_sql's “name” (%s) must be a Python identifier of ASCII letters, digits "
                                  "and “_”, not starting with a digit or “_”, and not a keyword or a name cells rely "
                                  "on (pd, np, plt, display, builtins). Nothing ran.", name != NULL ? name : "missing");
      return FALSE;
    }
  if (database == NULL && self->sources->len == 1)
    *source = g_ptr_array_index (self->sources, 0);
  else
    *source = assay_agent_find_source (self, database);
  if (*source == NULL)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < self->sources->len; i++)
        g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                                assay_source_get_name (((Source *) g_ptr_array_index (self->sources, i))->source));
      if (database != NULL)
        *problem = g_strdup_printf ("Error: there is no database named “%s”; run_sql's “database” is one of: %s. "
                                    "Nothing ran.", database, names->str);
      else
        *problem = g_strdup_printf ("Error: run_sql needs “database”, one of: %s. Nothing ran.", names->str);
      return FALSE;
    }
  checked = assay_sql_check_read_only (text, assay_source_get_syntax ((*source)->source), &error);
  if (checked == NULL)
    {
      *problem = g_strdup_printf ("Error: the SQL was refused before it reached the database. %s Nothing ran.",
                                  error->message);
      return FALSE;
    }
  *sql = g_strdup (text);
  *frame = g_strdup (name);
  if ((text = assay_agent_string_member (object, "description")) != NULL)
    *description = g_strdup (text);
  return TRUE;
}

/* The step is finished: it survives a crash from now on, with where its time went. */
void
assay_agent_finish_step (AssayAgent *self)
{
  self->timing.wall_us = g_get_monotonic_time () - self->step_started_at;
  assay_session_add_step_timing (self->session, &self->timing);
  assay_session_finish_step (self->session);
}

static void
assay_agent_answer_next_call (AssayAgent *self)
{
  AssayLlmToolCall *call;
  g_autofree char *code = NULL;
  g_autofree char *description = NULL;
  g_autofree char *problem = NULL;
  g_autofree char *cell_id = NULL;
  g_autofree char *frame = NULL;
  const char *database = NULL;

  if (self->cancellable != NULL && g_cancellable_is_cancelled (self->cancellable))
    {
      assay_agent_end_during_step (self, ASSAY_AGENT_CANCELLED,
                                   "The analyst cancelled the question; this cell did not run.");
      return;
    }

  if (self->call_index >= self->assistant->tool_calls->len)
    {
      /* Every call answered: the step is finished and survives a crash from now on. */
      assay_agent_finish_step (self);
      assay_agent_save (self);
      self->assistant = NULL;
      if (self->step >= self->max_steps)
        {
          g_autofree char *message =
            g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "Stopped after %u step without a final answer (the step limit). "
                                          "The cells that ran and their results are kept in the session; "
                                          "ask again to continue.",
                                          "Stopped after %u steps without a final answer (the step limit). "
                                          "The cells that ran and their results are kept in the session; "
                                          "ask again to continue.", self->max_steps),
                             self->max_steps);
          assay_agent_finish (self, ASSAY_AGENT_STEP_LIMIT, message);
        }
      else
        assay_agent_start_step (self);
      return;
    }

  call = g_ptr_array_index (self->assistant->tool_calls, self->call_index);
  if (self->sources->len > 0 && g_strcmp0 (call->name, ASSAY_AGENT_SQL_TOOL_NAME) == 0)
    {
      Source *source = NULL;

      if (!assay_agent_parse_sql_call (self, call, &code, &frame, &source, &description, &problem))
        {
          assay_agent_add_tool_result (self, problem, TRUE);
          assay_agent_save (self);
          assay_agent_answer_next_call (self);
          return;
        }
      database = assay_source_get_name (source->source);
    }
  else if (!assay_agent_parse_call (call, self->sources->len > 0, &code, &description, &problem))
    {
      assay_agent_add_tool_result (self, problem, TRUE);
      assay_agent_save (self);
      assay_agent_answer_next_call (self);
      return;
    }

  cell_id = assay_session_next_cell_id (self->session);
  self->cell = assay_session_add_cell (self->session,
                                       assay_session_cell_new (cell_id,
                                                               assay_session_get_n_steps (self->session) + 1,
                                                               call->id, description, code));
  if (frame != NULL)
    {
      self->cell->kind = ASSAY_CELL_KIND_SQL;
      self->cell->query = assay_session_query_new (database, frame);
    }
  if (self->policy == ASSAY_APPROVAL_POLICY_AUTO)
    {
      self->cell->decision = ASSAY_DECISION_AUTO;
      assay_agent_run_cell (self, code);
      return;
    }

  assay_agent_save (self);
  self->awaiting_approval = TRUE;
  self->approval_asked_at = g_get_monotonic_time ();
  g_signal_emit (self, assay_agent_signals[APPROVAL_NEEDED], 0, self->cell->id, code, description);
}

void
assay_agent_respond (AssayAgent            *self,
                     const char            *cell_id,
                     AssayApprovalResponse  response,
                     const char            *text)
{
  AssaySessionCell *cell;

  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (self->awaiting_approval && self->cell != NULL);
  g_return_if_fail (g_strcmp0 (cell_id, self->cell->id) == 0);
  g_return_if_fail (response != ASSAY_APPROVAL_EDIT || text != NULL);

  cell = self->cell;
  self->awaiting_approval = FALSE;
  self->timing.approval_us += g_get_monotonic_time () - self->approval_asked_at;

  switch (response)
    {
    case ASSAY_APPROVAL_RUN:
      cell->decision = ASSAY_DECISION_APPROVED;
      assay_agent_run_cell (self, cell->proposed_code);
      return;

    case ASSAY_APPROVAL_EDIT:
      cell->decision = g_str_equal (text, cell->proposed_code) ? ASSAY_DECISION_APPROVED
                                                                : ASSAY_DECISION_EDITED;
      assay_agent_run_cell (self, text);
      return;

    case ASSAY_APPROVAL_REJECT:
    case ASSAY_APPROVAL_STOP:
      {
        g_autofree char *result = NULL;
        const char *reason = (text != NULL && *text != '\0') ? text : NULL;

        cell->decision = ASSAY_DECISION_REJECTED;
        g_free (cell->reason);
        cell->reason = g_strdup (reason);
        cell->status = ASSAY_CELL_REJECTED;
        cell->finished_at = g_get_real_time ();
        self->cell = NULL;
        result = g_strdup_printf ("The analyst rejected this cell; it did not run. Reason: %s",
                                  reason ? reason : "none given.");
        assay_agent_add_tool_result (self, result, TRUE);
        if (response == ASSAY_APPROVAL_STOP)
          {
            assay_agent_end_during_step (self, ASSAY_AGENT_STOPPED,
                                         "The analyst stopped the question before this cell ran.");
            return;
          }
        assay_agent_save (self);
        assay_agent_continue_later (self);
        return;
      }

    default:
      g_return_if_reached ();
    }
}

/* ---- what leaves, and what it costs ----------------------------------------------------- */

/* Every string of a tool call's arguments masked (the JSON stays valid); text that is not
 * JSON is masked as it is. */
static char *
assay_agent_map_arguments (AssayAgent *self,
                           const char *arguments,
                           gboolean    mask)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;
  g_autoptr(GList) members = NULL;

  if (arguments == NULL)
    return NULL;
  node = assay_json_from_untrusted (arguments, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return mask ? assay_masker_mask (self->masker, arguments) : assay_masker_unmask (self->masker, arguments);

  object = json_node_get_object (node);
  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *member = json_object_get_member (object, l->data);
      g_autofree char *mapped = NULL;

      if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING)
        continue;
      if (mask)
        mapped = assay_masker_mask (self->masker, json_node_get_string (member));
      else if (g_str_equal (l->data, "code"))
        mapped = assay_masker_unmask_code (self->masker, json_node_get_string (member));
      else if (g_str_equal (l->data, "sql") && self->sources->len > 0)
        {
          /* Placeholders become literals the way the database reads them. */
          Source *source = assay_agent_find_source (self, assay_agent_string_member (object, "database"));

          if (source == NULL)
            source = g_ptr_array_index (self->sources, 0);
          mapped = assay_sql_unmask (self->masker, json_node_get_string (member),
                                     assay_source_get_syntax (source->source));
        }
      else
        mapped = assay_masker_unmask (self->masker, json_node_get_string (member));
      json_object_set_string_member (object, l->data, mapped);
    }
  return json_to_string (node, FALSE);
}

static char *
assay_agent_unmask_arguments (AssayAgent *self,
                              const char *arguments)
{
  return assay_agent_map_arguments (self, arguments, FALSE);
}

static void
assay_agent_mask_message (AssayAgent      *self,
                          AssayLlmMessage *message)
{
  if (message->text != NULL)
    {
      char *masked = assay_masker_mask (self->masker, message->text);

      g_free (message->text);
      message->text = masked;
    }
  for (guint i = 0; i < message->tool_calls->len; i++)
    {
      AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, i);
      char *masked = assay_agent_map_arguments (self, call->arguments, TRUE);

      g_free (call->arguments);
      call->arguments = masked;
    }
}

static gboolean
assay_agent_is_local (AssayAgent *self)
{
  return assay_llm_provider_is_local (self->provider);
}

static const AssayPrice *
assay_agent_price (AssayAgent *self)
{
  return self->prices != NULL && self->model != NULL
         ? assay_price_table_lookup (self->prices, self->model, 0) : NULL;
}

/* US dollars, 0 on this computer, -1 when no price is known. */
static double
assay_agent_cost_of (AssayAgent             *self,
                     const AssayLlmResponse *response)
{
  AssayTokenUsage usage = {
    response->input_tokens, response->cached_input_tokens,
    response->cache_write_tokens, response->output_tokens,
  };

  if (response->request_host != NULL ? assay_llm_host_is_local (response->request_host)
                                     : assay_agent_is_local (self))
    return 0;
  return assay_price_cost (assay_agent_price (self), &usage);
}

/* Why REQUEST must not be sent (in words for the analyst), or NULL. Its input is counted at
 * four characters a token and its output at the most the model may write (the request's
 * max_tokens, else the providers' default of 4096): the request is held back whenever it
 * could take the session over the budget. */
static char *
assay_agent_check_budget (AssayAgent            *self,
                          const AssayLlmRequest *request)
{
  const AssayPrice *price;
  double spent, estimate;
  gsize chars;
  guint unpriced = 0;
  g_autofree char *spent_text = NULL;
  g_autofree char *budget_text = NULL;
  g_autofree char *estimate_text = NULL;

  if (self->budget <= 0 || assay_agent_is_local (self))
    return NULL;
  spent = assay_session_get_cost (self->session, NULL, NULL, &unpriced);
  price = assay_agent_price (self);
  budget_text = assay_price_format_cost (self->budget);
  if (price == NULL)
    return g_strdup_printf (_("Stopped before asking the model: Assay knows no price for %s, so it cannot keep "
                              "this session within its budget of %s. Add the model’s price in Preferences, or "
                              "remove the budget."),
                            self->model != NULL ? self->model : "?", budget_text);

  chars = request->system != NULL ? strlen (request->system) : 0;
  for (guint i = 0; i < request->messages->len; i++)
    {
      const AssayLlmMessage *message = g_ptr_array_index (request->messages, i);

      chars += message->text != NULL ? strlen (message->text) : 0;
      for (guint j = 0; j < message->tool_calls->len; j++)
        {
          const AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, j);

          chars += call->arguments != NULL ? strlen (call->arguments) : 0;
        }
    }
  estimate = (price->input * (double) (chars / CHARS_PER_TOKEN) +
              price->output * (double) (request->max_tokens > 0 ? request->max_tokens : 4096)) / 1e6;
  if (spent < self->budget && spent + estimate <= self->budget)
    return NULL;

  spent_text = assay_price_format_cost (spent);
  estimate_text = assay_price_format_cost (estimate);
  return g_strdup_printf (_("Stopped before the next request to the model: the session has spent %s of its "
                            "budget of %s, and the next request could cost up to %s more. The session is saved; "
                            "raise the budget to go on."),
                          spent_text, budget_text, estimate_text);
}

/* ---- a model turn ------------------------------------------------------------------------ */


/* The answer names numbers no cell printed: the model gets one more turn to compute them or
 * correct it, told which they are. The draft stays in the record, marked by the request. */
static void
assay_agent_check_answer (AssayAgent            *self,
                          const AssayProvenance *provenance)
{
  g_autofree char *untraced = assay_provenance_dup_untraced (provenance);
  g_autofree char *text = NULL;
  AssayLlmMessage *check;

  g_autofree char *weak = assay_provenance_dup_weak (provenance);

  text = g_strdup_printf ("Before this answer is shown to the analyst: these numbers in it appear in no "
                          "output of the cells you ran: %s.%s%s%s Compute each of them with code, or correct "
                          "the answer; then give the final answer again.", untraced,
                          weak != NULL ? " Of these, " : "", weak != NULL ? weak : "",
                          weak != NULL ? " match only among many numbers an output printed near them, which "
                                         "proves nothing: print each on a line of its own, with what it is." : "");
  check = assay_llm_message_new_user (text);
  check->is_check = TRUE;
  self->checked = TRUE;
  assay_agent_finish_step (self);
  assay_session_append_message (self->session, check);
  assay_agent_save (self);
  g_signal_emit (self, assay_agent_signals[CHECKING], 0, untraced);
  if (self->task == NULL)
    return;
  assay_agent_start_step (self);
}

static void
assay_agent_streamed_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(AssayAgent) self = user_data;
  g_autoptr(AssayLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *fenced = NULL;

  response = assay_llm_provider_stream_finish (ASSAY_LLM_PROVIDER (source), result, &error);
  self->streaming = FALSE;
  self->timing.model_us += g_get_monotonic_time () - self->model_started_at;
  if (self->task == NULL)
    return;

  if (response == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        assay_agent_finish (self,
                            ASSAY_AGENT_CANCELLED,
                            _("The analyst cancelled the question while the model was writing."));
      else
        {
          g_autofree char *message = NULL;

          if (self->container != NULL && assay_agent_hosted_is_expiry (error))
            {
              /* The kernel's state went with it; the next question starts a new container. */
              self->container_lost = TRUE;
              message = g_strdup_printf (_("OpenAI's container of this session has expired (%s): the variables "
                                           "and files of its code are lost. Ask again: a new container is made "
                                           "and the datasets are uploaded again."), error->message);
            }
          else
            message = g_strdup_printf (_("The model could not answer: %s"), error->message);
          self->model_error_code = error->domain == ASSAY_LLM_ERROR ? error->code : ASSAY_LLM_ERROR_PROTOCOL;
          assay_agent_finish (self, ASSAY_AGENT_MODEL_ERROR, message);
        }
      return;
    }

  /* What was sent, exactly, kept with the session (its failure does not stop the question). */
  {
    g_autoptr(GError) record_error = NULL;

    if (!assay_session_record_request (self->session, self->timing.step, self->model, response,
                                       assay_agent_cost_of (self, response), &record_error))
      g_debug ("the request was not recorded: %s", record_error->message);
  }

  /* The model wrote placeholders; the analyst and the record see the values. */
  if (self->masker != NULL)
    {
      g_autofree char *held = assay_agent_unmask_piece (self, self->text_held, NULL, TRUE);
      g_autofree char *fenced_masked = assay_agent_extract_fenced_code (response->text);
      char *text;

      if (*held != '\0')
        g_signal_emit (self, assay_agent_signals[TEXT_DELTA], 0, held);
      if (fenced_masked != NULL)
        fenced = assay_masker_unmask_code (self->masker, fenced_masked);
      text = assay_masker_unmask (self->masker, response->text);
      g_free (response->text);
      response->text = text;
      for (guint i = 0; i < response->tool_calls->len; i++)
        {
          AssayLlmToolCall *call = g_ptr_array_index (response->tool_calls, i);
          char *arguments = assay_agent_unmask_arguments (self, call->arguments);

          g_free (call->arguments);
          call->arguments = arguments;
        }
    }
  g_string_truncate (self->text_held, 0);
  g_ptr_array_set_size (self->code_held, 0);

  /* The code OpenAI ran for this turn: cells of their own step (their files fetched in a
   * worker), then the answer. */
  if (self->container != NULL && response->hosted_calls != NULL && json_array_get_length (response->hosted_calls) > 0)
    {
      assay_agent_record_hosted_async (self, g_steal_pointer (&response));
      return;
    }
  assay_agent_handle_response (self, response, g_steal_pointer (&fenced));
}

/* A turn streamed (and unmasked): its calls answered, or its answer checked and given.
 * FENCED (taken) is the code block of its text, unmasked; NULL when none was looked for. */
void
assay_agent_handle_response (AssayAgent       *self,
                             AssayLlmResponse *response,
                             char             *fenced_in)
{
  g_autofree char *fenced = fenced_in;
  AssayLlmMessage *assistant;

  assistant = assay_llm_message_new_assistant (response->text);
  /* The Responses API's reasoning goes back with the next request, as it came. */
  assistant->reasoning = g_strdup (response->reasoning);
  for (guint i = 0; i < response->tool_calls->len; i++)
    g_ptr_array_add (assistant->tool_calls,
                     assay_llm_tool_call_copy (g_ptr_array_index (response->tool_calls, i)));

  /* A model that writes its code in the reply instead of calling the tool meant to run it. */
  if (fenced == NULL && self->masker == NULL)
    fenced = assay_agent_extract_fenced_code (response->text);
  if (assistant->tool_calls->len == 0 && self->fenced_fallback && fenced != NULL && self->container == NULL)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *arguments = NULL;
      g_autofree char *id = g_strdup_printf ("fenced_%u", assay_session_get_n_steps (self->session) + 1);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "code");
      json_builder_add_string_value (builder, fenced);
      json_builder_set_member_name (builder, "description");
      json_builder_add_string_value (builder, "the code block of the reply");
      json_builder_end_object (builder);
      node = json_builder_get_root (builder);
      arguments = json_to_string (node, FALSE);
      g_ptr_array_add (assistant->tool_calls,
                       assay_llm_tool_call_new (id, ASSAY_AGENT_TOOL_NAME, arguments));
    }

  assay_session_append_message (self->session, assistant);

  if (assistant->tool_calls->len == 0)
    {
      /* Which of the answer's numbers the cells printed, kept with the record. */
      const AssayProvenance *provenance =
        assay_session_trace_answer (self->session, assay_session_get_messages (self->session)->len - 1);

      if (self->check_numbers && !self->checked && self->step < self->max_steps &&
          provenance != NULL && assay_provenance_count_untraced (provenance) > 0)
        {
          assay_agent_check_answer (self, provenance);
          return;
        }
      assay_agent_finish_step (self);
      assay_agent_finish (self, ASSAY_AGENT_ANSWERED, response->text);
      return;
    }

  self->assistant = assistant;
  self->call_index = 0;
  assay_agent_save (self);
  assay_agent_answer_next_call (self);
}

void
assay_agent_start_step (AssayAgent *self)
{
  g_autoptr(AssayLlmRequest) request = assay_llm_request_new ();
  g_autoptr(GPtrArray) messages = NULL;

  self->step++;
  memset (&self->timing, 0, sizeof self->timing);
  self->timing.step = assay_session_get_n_steps (self->session) + 1;
  self->step_started_at = g_get_monotonic_time ();
  g_signal_emit (self, assay_agent_signals[STEP], 0, self->step, self->max_steps);
  if (self->task == NULL)
    return;

  request->model = g_strdup (self->model);
  request->system = assay_agent_build_system_prompt (self);
  messages = assay_agent_fit_messages (assay_session_get_messages (self->session),
                                       self->context_tokens * CHARS_PER_TOKEN);
  for (guint i = 0; i < messages->len; i++)
    {
      AssayLlmMessage *message = assay_llm_message_copy (g_ptr_array_index (messages, i));

      if (self->masker != NULL)
        assay_agent_mask_message (self, message);
      g_ptr_array_add (request->messages, message);
    }
  if (self->container != NULL)
    request->hosted_container = g_strdup (assay_openai_container_get_id (self->container));
  else
    g_ptr_array_add (request->tools, assay_llm_tool_new (ASSAY_AGENT_TOOL_NAME, TOOL_DESCRIPTION,
                                                         TOOL_PARAMETERS));
  if (self->sources->len > 0 && self->container == NULL)
    g_ptr_array_add (request->tools, assay_llm_tool_new (ASSAY_AGENT_SQL_TOOL_NAME, SQL_TOOL_DESCRIPTION,
                                                         SQL_TOOL_PARAMETERS));

  {
    g_autofree char *over = assay_agent_check_budget (self, request);

    if (over != NULL)
      {
        assay_agent_finish (self, ASSAY_AGENT_BUDGET, over);
        return;
      }
  }

  g_ptr_array_set_size (self->extractors, 0);
  self->streaming = TRUE;
  self->model_started_at = g_get_monotonic_time ();
  assay_llm_provider_stream_async (self->provider, request, self->cancellable,
                                   assay_agent_streamed_cb, g_object_ref (self));
}

/* ---- restoring a resumed session's kernel ------------------------------------------------ */

static void assay_agent_restore_next (AssayAgent *self);

static void
assay_agent_restored_cell_cb (GObject      *source,
                              GAsyncResult *res,
                              gpointer      user_data)
{
  g_autoptr(AssayAgent) self = user_data;
  g_autoptr(AssayCellResult) result = NULL;
  g_autoptr(GError) error = NULL;

  result = assay_kernel_session_execute_finish (ASSAY_KERNEL_SESSION (source), res, &error);
  if (self->task == NULL)
    return;
  if (result == NULL)
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          assay_agent_finish (self,
                              ASSAY_AGENT_CANCELLED,
                              _("The analyst cancelled while the session was restored."));
          return;
        }
      message = g_strdup_printf (_("The sandbox could not restore the session: %s"), error->message);
      assay_agent_finish (self, ASSAY_AGENT_SANDBOX_ERROR, message);
      return;
    }
  self->restore_index++;
  assay_agent_restore_next (self);
}

static void
assay_agent_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        assay_agent_remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* The restore's code at its index, in the kernel (the step was announced already). */
static void
assay_agent_restore_run (AssayAgent *self)
{
  if (self->task == NULL)
    return;
  assay_kernel_session_execute_async (self->kernel,
                                      g_ptr_array_index (self->restore_codes, self->restore_index),
                                      self->cancellable, assay_agent_restored_cell_cb, g_object_ref (self));
}

/* A query asked again for the restore: its fresh result in the restore folder, loaded in place
 * of the cached one; when it cannot be asked, the cached one, said so. */
static void
assay_agent_requeried_cb (GObject      *source,
                          GAsyncResult *res,
                          gpointer      user_data)
{
  g_autoptr(AssayAgent) self = user_data;
  g_autoptr(AssayQueryResult) result = NULL;
  g_autoptr(GError) error = NULL;
  AssaySessionCell *cell;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *sandbox_path = NULL;

  result = assay_source_query_finish (ASSAY_SOURCE (source), res, &error);
  if (self->task == NULL)
    return;
  if (result == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      assay_agent_finish (self, ASSAY_AGENT_CANCELLED, _("The analyst cancelled while the session was restored."));
      return;
    }
  cell = g_ptr_array_index (self->restore_queries, self->restore_index);
  g_ptr_array_index (self->restore_queries, self->restore_index) = NULL;
  if (result != NULL)
    {
      name = g_strdup_printf (".assay-query-%s-again.aqr", cell->id);
      path = g_build_filename (self->restore_dir, name, NULL);
      if (assay_query_result_write (result, path, &error) &&
          assay_kernel_session_add_hidden_file (self->kernel, path, name, &error))
        {
          gint64 rows = (gint64) assay_query_result_get_n_rows (result);

          sandbox_path = g_build_filename ("/data", name, NULL);
          g_free (g_ptr_array_index (self->restore_codes, self->restore_index));
          g_ptr_array_index (self->restore_codes, self->restore_index) =
            assay_query_result_loader_code (cell->query->frame, sandbox_path);
          g_string_append_printf (self->restore_notes,
                                  "- The query of cell %s was asked again of %s: `%s` now holds its new result, "
                                  "%" G_GINT64_FORMAT " rows (%" G_GINT64_FORMAT " when it first ran). "
                                  "Outputs printed before this were made from the old result.\n",
                                  cell->id, cell->query->database, cell->query->frame, rows, cell->query->rows);
          g_signal_emit (self, assay_agent_signals[REQUERIED], 0, cell->id, rows, NULL);
          assay_agent_restore_run (self);
          return;
        }
    }
  g_string_append_printf (self->restore_notes,
                          "- The query of cell %s could not be asked again of %s; `%s` holds its cached result.\n",
                          cell->id, cell->query->database, cell->query->frame);
  g_signal_emit (self, assay_agent_signals[REQUERIED], 0, cell->id, (gint64) -1, error->message);
  assay_agent_restore_run (self);
}

static void
assay_agent_restore_next (AssayAgent *self)
{
  if (self->restore_index < self->restore_codes->len)
    {
      AssaySessionCell *query = g_ptr_array_index (self->restore_queries, self->restore_index);

      g_signal_emit (self, assay_agent_signals[RESTORING], 0, self->restore_index, self->restore_codes->len);
      if (self->task == NULL)
        return;
      if (query != NULL)
        {
          Source *source = assay_agent_find_source (self, query->query->database);
          g_autoptr(GError) error = NULL;
          g_autofree char *checked = NULL;

          /* Checked again, as any SQL is before it reaches the server. */
          if (source == NULL)
            g_set_error (&error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_CONNECT,
                         "The database %s is not connected in this session.", query->query->database);
          else if (self->restore_dir != NULL &&
                   (checked = assay_sql_check_read_only (query->code, assay_source_get_syntax (source->source),
                                                    &error)) != NULL)
            {
              assay_source_query_async (source->source, query->code, self->cancellable,
                                        assay_agent_requeried_cb, g_object_ref (self));
              return;
            }
          g_ptr_array_index (self->restore_queries, self->restore_index) = NULL;
          g_string_append_printf (self->restore_notes,
                                  "- The query of cell %s could not be asked again of %s; `%s` holds its cached result.\n",
                                  query->id, query->query->database, query->query->frame);
          g_signal_emit (self, assay_agent_signals[REQUERIED], 0, query->id, (gint64) -1,
                         error != NULL ? error->message : _("No folder for the new result"));
        }
      assay_agent_restore_run (self);
      return;
    }

  g_signal_emit (self, assay_agent_signals[RESTORING], 0, self->restore_codes->len, self->restore_codes->len);
  /* The files the replay wrote again are already in the session: drop the copies. */
  if (self->restore_dir != NULL)
    {
      g_autofree char *artifact_dir = assay_session_get_artifact_dir (self->session);

      assay_kernel_session_set_artifact_dir (self->kernel, artifact_dir);
      assay_agent_remove_tree (self->restore_dir);
      g_clear_pointer (&self->restore_dir, g_free);
    }
  g_clear_pointer (&self->restore_codes, g_ptr_array_unref);
  g_clear_pointer (&self->restore_queries, g_ptr_array_unref);
  self->needs_restore = FALSE;
  if (self->task != NULL)
    assay_agent_start_step (self);
}

static void
assay_agent_start_restore (AssayAgent *self)
{
  /* Only code as it was approved runs again: a cell whose record was changed since (or that
   * another user approved) is named, and nothing runs. */
  for (guint i = 0; i < assay_session_get_n_cells (self->session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (self->session, i);

      if (assay_session_cell_succeeded (cell) && !assay_approval_check (cell))
        {
          g_autofree char *message =
            g_strdup_printf (_("Cell %s is not the code that was approved here: the session's record was changed "
                               "since, or another user approved it. Nothing ran again. Read its code and approve it "
                               "again: assay-cli session approve %s %s"),
                             cell->id, assay_session_get_dir (self->session), cell->id);

          assay_agent_finish (self, ASSAY_AGENT_SANDBOX_ERROR, message);
          return;
        }
    }

  self->restore_codes = g_ptr_array_new_with_free_func (g_free);
  self->restore_queries = g_ptr_array_new ();
  self->restore_index = 0;
  g_string_truncate (self->restore_notes, 0);
  for (guint i = 0; i < assay_session_get_n_cells (self->session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (self->session, i);

      if (!assay_session_cell_succeeded (cell))
        continue;
      if (cell->kind == ASSAY_CELL_KIND_SQL)
        {
          /* A query's DataFrame comes back from its cached result, without the server. */
          g_autoptr(GError) error = NULL;
          char *loader = assay_agent_expose_result (self, cell, &error);

          if (loader != NULL)
            {
              g_ptr_array_add (self->restore_codes, loader);
              /* Asked again first when the analyst asked for it and the database is here. */
              g_ptr_array_add (self->restore_queries,
                               self->requery && cell->query->frame != NULL &&
                               assay_agent_find_source (self, cell->query->database) != NULL ? cell : NULL);
            }
          else
            g_debug ("the result of %s is not restored: %s", cell->id, error->message);
          continue;
        }
      g_ptr_array_add (self->restore_codes, g_strdup (cell->code));
      g_ptr_array_add (self->restore_queries, NULL);
    }
  self->restore_dir = g_dir_make_tmp ("assay-restore-XXXXXX", NULL);
  if (self->restore_dir != NULL)
    assay_kernel_session_set_artifact_dir (self->kernel, self->restore_dir);
  assay_agent_restore_next (self);
}

static void
assay_agent_resumed_cb (GObject      *source,
                        GAsyncResult *res,
                        gpointer      user_data)
{
  g_autoptr(AssayAgent) self = user_data;
  g_autoptr(GError) error = NULL;
  AssayKernelSession *kernel = ASSAY_KERNEL_SESSION (source);

  if (self->task == NULL)
    return;
  if (!assay_kernel_session_start_finish (kernel, res, &error))
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          assay_agent_finish (self, ASSAY_AGENT_CANCELLED,
                              _("The analyst cancelled while the session was restored."));
          return;
        }
      message = g_strdup_printf (_("The sandbox could not restore the session: %s"), error->message);
      assay_agent_finish (self, ASSAY_AGENT_SANDBOX_ERROR, message);
      return;
    }
  if (assay_kernel_session_get_resumed (kernel))
    {
      self->needs_restore = FALSE;
      assay_agent_start_step (self);
      return;
    }
  /* Gone or expired: the analyst is told, and the cells run again in the new sandbox. */
  if (assay_kernel_session_get_resume_note (kernel) != NULL)
    {
      g_autofree char *note = g_strdup_printf (_("%s The session's cells run again to restore its state."),
                                               assay_kernel_session_get_resume_note (kernel));

      g_signal_emit (self, assay_agent_signals[ERROR], 0, note);
    }
  if (self->task != NULL)
    assay_agent_start_restore (self);
}

/* ---- asking ------------------------------------------------------------------------------ */

static gboolean
assay_agent_cancelled_idle_cb (gpointer user_data)
{
  AssayAgent *self = user_data;

  /* Cells and streams end through their own cancellation; only a wait for the analyst
   * needs ending here. */
  if (self->task != NULL && self->awaiting_approval)
    {
      AssaySessionCell *cell = self->cell;

      self->awaiting_approval = FALSE;
      cell->status = ASSAY_CELL_CANCELLED;
      self->cell = NULL;
      assay_agent_end_during_step (self, ASSAY_AGENT_CANCELLED,
                                   "The analyst cancelled the question before the cell ran.");
    }
  return G_SOURCE_REMOVE;
}

static void
assay_agent_cancelled_cb (GCancellable *cancellable,
                          AssayAgent   *self)
{
  GSource *source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);   /* as above: never behind frames */
  g_source_set_callback (source, assay_agent_cancelled_idle_cb, g_object_ref (self), g_object_unref);
  g_source_set_static_name (source, "[assay] agent cancelled");
  g_source_attach (source, self->context);
  g_source_unref (source);
}

/* The part of a question, a repair and a continuation that is the same: MESSAGE is what the
 * model is told (NULL: nothing more, the conversation goes on as it stands). */
static void
assay_agent_begin (AssayAgent          *self,
                   GTask               *task_in,
                   AssayLlmMessage     *message,
                   gboolean             repair,
                   GCancellable        *cancellable)
{
  g_autoptr(GTask) task = task_in;

  /* A cancelled question still has an outcome, and the session to show for it. */
  g_task_set_check_cancellable (task, FALSE);
  if (self->task != NULL || self->finished_task != NULL)
    {
      assay_llm_message_free (message);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY,
                               _("A question is already being answered"));
      return;
    }
  /* Code that ran on OpenAI was never approved here: it is neither replayed in this
   * computer's kernel nor handed to a loop without the code interpreter. */
  if (self->container == NULL && assay_session_ran_hosted (self->session))
    {
      const char *text = _("This session's code ran in OpenAI's hosted code interpreter and was never approved "
                           "here: it goes on there only (Run the Code on OpenAI in the window, or assay-cli ask "
                           "--runs-on openai), or start a new session.");

      assay_llm_message_free (message);
      g_signal_emit (self, assay_agent_signals[ERROR], 0, text);
      g_task_set_task_data (task, g_strdup (text), g_free);
      g_task_return_int (task, ASSAY_AGENT_SANDBOX_ERROR);
      return;
    }

  g_clear_pointer (&self->context, g_main_context_unref);
  self->context = g_main_context_ref_thread_default ();
  self->task = g_steal_pointer (&task);
  self->step = 0;
  /* A repair's last word names no number to check. */
  self->checked = repair;
  self->repairing = repair;
  self->model_error_code = ASSAY_LLM_ERROR_PROTOCOL;
  self->cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  self->cancel_handler = g_cancellable_connect (self->cancellable,
                                                G_CALLBACK (assay_agent_cancelled_cb),
                                                self,
                                                NULL);

  if (message != NULL && !repair && assay_session_get_title (self->session) == NULL)
    {
      g_autofree char *title = g_utf8_substring (message->text, 0, MIN (g_utf8_strlen (message->text, -1), 80));

      assay_session_set_title (self->session, g_strstrip (title));
    }
  assay_session_set_provider (self->session, assay_llm_provider_get_name (self->provider), self->model);
  if (self->container != NULL)
    {
      if (message != NULL)
        assay_session_append_message (self->session, message);
      if (message != NULL && !repair)
        assay_session_finish_question (self->session);
      assay_session_set_outcome (self->session, "running", NULL);
      self->needs_restore = FALSE;
      assay_agent_hosted_prepare_async (self);
      return;
    }
  {
    AssaySandboxBackend *backend = assay_kernel_session_get_backend (self->kernel);
    g_autofree char *where = assay_sandbox_describe_backend (backend);

    assay_session_set_sandbox (self->session, assay_sandbox_backend_get_name (backend), where);
  }
  /* The question is settled as soon as it is asked: a crash keeps it. */
  if (message != NULL)
    assay_session_append_message (self->session, message);
  if (message != NULL && !repair)
    assay_session_finish_question (self->session);
  assay_session_set_outcome (self->session, "running", NULL);
  assay_agent_save (self);

  /* A repair runs in the kernel as it is: the cells before the one that failed ran there. A
   * sandbox kept for later is resumed first: when it comes back, its state needs no replay. */
  if (self->needs_restore && !repair)
    assay_kernel_session_start_async (self->kernel, self->cancellable, assay_agent_resumed_cb, g_object_ref (self));
  else
    {
      self->needs_restore = FALSE;
      assay_agent_start_step (self);
    }
}

void
assay_agent_ask_async (AssayAgent          *self,
                       const char          *question,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (question != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_agent_ask_async);
  assay_agent_begin (self, task, assay_llm_message_new_user (question), FALSE, cancellable);
}

void
assay_agent_continue_async (AssayAgent          *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (ASSAY_IS_AGENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_agent_ask_async);
  assay_agent_begin (self, task, NULL, FALSE, cancellable);
}

void
assay_agent_repair_async (AssayAgent              *self,
                          const AssaySessionCell  *failed,
                          const char              *what_changed,
                          GCancellable            *cancellable,
                          GAsyncReadyCallback      callback,
                          gpointer                 user_data)
{
  GTask *task;
  AssayLlmMessage *message;
  g_autoptr(GString) text = g_string_new (NULL);

  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (failed != NULL);

  /* What the model is told, in the words the tool results use; the masker and schema-only
   * mode apply to it as to every message. */
  g_string_append_printf (text,
                          "This analysis was approved by the analyst and is now running again, without changes, "
                          "on new data. Cell %s (the last tool call above) failed on the new data",
                          failed->id);
  if (failed->status_reason != NULL && assay_session_get_privacy_mode (self->session) != ASSAY_PRIVACY_SCHEMA)
    g_string_append_printf (text, ": %s", failed->status_reason);
  g_string_append (text, ".\n");
  if (what_changed != NULL && *what_changed != '\0')
    g_string_append_printf (text, "How the new data differs from the old: %s\n", what_changed);
  g_string_append (text,
                   "Fix only that cell: call execute_python once with the corrected code of that cell, doing what "
                   "it did and keeping the names it defined, so that the cells after it run unchanged. Do not "
                   "answer the question again. When the cell runs, reply in one sentence saying what you changed.");
  message = assay_llm_message_new_user (text->str);
  message->is_repair = TRUE;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_agent_ask_async);
  assay_agent_begin (self, task, message, TRUE, cancellable);
}

/* ---- a side request: the conversation read again, no tool, nothing added ---------------- */

static void
assay_agent_rewritten_cb (GObject      *source,
                          GAsyncResult *res,
                          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AssayAgent *self = g_task_get_source_object (task);
  g_autoptr(AssayLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) record_error = NULL;

  response = assay_llm_provider_stream_finish (ASSAY_LLM_PROVIDER (source), res, &error);
  if (response == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!assay_session_record_request (self->session, assay_session_get_n_steps (self->session), self->model,
                                     response, assay_agent_cost_of (self, response), &record_error))
    g_debug ("the request was not recorded: %s", record_error->message);
  if (!assay_session_save (self->session, &record_error))
    g_debug ("the session was not saved: %s", record_error->message);
  if (response->text == NULL || *g_strstrip (response->text) == '\0')
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The model's reply had no text"));
      return;
    }
  g_task_return_pointer (task,
                         self->masker != NULL ? assay_masker_unmask (self->masker, response->text)
                                              : g_strdup (response->text),
                         g_free);
}

void
assay_agent_rewrite_async (AssayAgent          *self,
                           const char          *instruction,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(AssayLlmRequest) request = assay_llm_request_new ();
  g_autoptr(GPtrArray) messages = NULL;
  AssayLlmMessage *asked;

  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (instruction != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_agent_rewrite_async);
  if (self->task != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY, _("A question is already being answered"));
      return;
    }
  /* The outputs are what it reads: schema-only mode sends none. */
  if (assay_session_get_privacy_mode (self->session) == ASSAY_PRIVACY_SCHEMA)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                               _("In schema-only mode the model reads no output, so it cannot write from them"));
      return;
    }

  request->model = g_strdup (self->model);
  request->system = assay_agent_build_system_prompt (self);
  messages = assay_agent_fit_messages (assay_session_get_messages (self->session),
                                       self->context_tokens * CHARS_PER_TOKEN);
  for (guint i = 0; i < messages->len; i++)
    {
      AssayLlmMessage *message = assay_llm_message_copy (g_ptr_array_index (messages, i));

      if (self->masker != NULL)
        assay_agent_mask_message (self, message);
      g_ptr_array_add (request->messages, message);
    }
  asked = assay_llm_message_new_user (instruction);
  if (self->masker != NULL)
    assay_agent_mask_message (self, asked);
  g_ptr_array_add (request->messages, asked);
  {
    g_autofree char *over = assay_agent_check_budget (self, request);

    if (over != NULL)
      {
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "%s", over);
        return;
      }
  }
  assay_llm_provider_stream_async (self->provider, request, cancellable, assay_agent_rewritten_cb,
                                   g_steal_pointer (&task));
}

char *
assay_agent_rewrite_finish (AssayAgent    *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

AssayAgentOutcome
assay_agent_ask_finish (AssayAgent    *self,
                        GAsyncResult  *result,
                        char         **text,
                        GError       **error)
{
  GTask *task = G_TASK (result);
  g_autoptr(GError) local_error = NULL;
  gssize outcome;

  g_return_val_if_fail (g_task_is_valid (result, self), ASSAY_AGENT_MODEL_ERROR);

  outcome = g_task_propagate_int (task, &local_error);
  if (outcome < 0)
    {
      if (text != NULL)
        *text = g_strdup (local_error->message);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return ASSAY_AGENT_MODEL_ERROR;
    }
  if (text != NULL)
    *text = g_strdup (g_task_get_task_data (task));
  if (error != NULL && (outcome == ASSAY_AGENT_MODEL_ERROR || outcome == ASSAY_AGENT_SANDBOX_ERROR))
    g_set_error_literal (error, outcome == ASSAY_AGENT_MODEL_ERROR ? ASSAY_LLM_ERROR : G_IO_ERROR,
                         outcome == ASSAY_AGENT_MODEL_ERROR
                         ? GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "assay-model-error-code"))
                         : G_IO_ERROR_FAILED,
                         g_task_get_task_data (task));
  return (AssayAgentOutcome) outcome;
}

/* ---- the object -------------------------------------------------------------------------- */

static void
assay_agent_dispose (GObject *object)
{
  AssayAgent *self = ASSAY_AGENT (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (self->provider_handlers); i++)
    g_clear_signal_handler (&self->provider_handlers[i], self->provider);
  g_clear_signal_handler (&self->output_handler, self->kernel);
  G_OBJECT_CLASS (assay_agent_parent_class)->dispose (object);
}

static void
assay_agent_finalize (GObject *object)
{
  AssayAgent *self = ASSAY_AGENT (object);

  assay_agent_clear_run (self);
  g_clear_object (&self->provider);
  g_clear_object (&self->kernel);
  g_clear_pointer (&self->container, assay_openai_container_unref);
  g_clear_pointer (&self->uploaded, g_hash_table_unref);
  g_clear_object (&self->session);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self->model);
  g_ptr_array_unref (self->datasets);
  g_ptr_array_unref (self->sources);
  g_free (self->query_summary);
  g_clear_object (&self->masker);
  g_clear_pointer (&self->prices, assay_price_table_unref);
  g_string_free (self->text_held, TRUE);
  g_string_free (self->restore_notes, TRUE);
  g_clear_pointer (&self->restore_queries, g_ptr_array_unref);
  g_ptr_array_unref (self->code_held);
  g_ptr_array_unref (self->extractors);
  g_clear_pointer (&self->restore_codes, g_ptr_array_unref);
  g_free (self->restore_dir);
  G_OBJECT_CLASS (assay_agent_parent_class)->finalize (object);
}

static void
assay_agent_class_init (AssayAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);

  object_class->dispose = assay_agent_dispose;
  object_class->finalize = assay_agent_finalize;

  assay_agent_signals[STEP] = g_signal_new ("step", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  assay_agent_signals[TEXT_DELTA] = g_signal_new ("text-delta", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 1, G_TYPE_STRING);
  assay_agent_signals[CODE_DELTA] = g_signal_new ("code-delta", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_STRING, G_TYPE_STRING);
  assay_agent_signals[RETRYING] = g_signal_new ("retrying", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_STRING);
  assay_agent_signals[APPROVAL_NEEDED] = g_signal_new ("approval-needed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  assay_agent_signals[CELL_STARTED] = g_signal_new ("cell-started", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  assay_agent_signals[OUTPUT] = g_signal_new ("output", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 2, G_TYPE_STRING, JSON_TYPE_OBJECT);
  assay_agent_signals[ARTIFACT_ADDED] = g_signal_new ("artifact-added", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  assay_agent_signals[CELL_FINISHED] = g_signal_new ("cell-finished", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, G_TYPE_STRING, ASSAY_TYPE_CELL_RESULT);
  assay_agent_signals[RESTORING] = g_signal_new ("restoring", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                     G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  /* A resumed session's query asked again (assay_agent_set_requery): the cell, its rows now
   * (-1 when it could not be asked, its cached result used) and why not, or NULL. */
  assay_agent_signals[REQUERIED] = g_signal_new ("requeried", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                     G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_INT64, G_TYPE_STRING);
  assay_agent_signals[CHECKING] = g_signal_new ("checking", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 1, G_TYPE_STRING);
  assay_agent_signals[ERROR] = g_signal_new ("error", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_STRING);
  assay_agent_signals[DONE] = g_signal_new ("done", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void
assay_agent_init (AssayAgent *self)
{
  self->max_steps = ASSAY_AGENT_DEFAULT_MAX_STEPS;
  self->policy = ASSAY_APPROVAL_POLICY_ASK;
  self->fenced_fallback = TRUE;
  self->check_numbers = TRUE;
  self->output_budget = DEFAULT_OUTPUT_BUDGET;
  self->context_tokens = DEFAULT_CONTEXT_TOKENS;
  self->datasets = g_ptr_array_new_with_free_func (assay_agent_dataset_free);
  self->uploaded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->sources = g_ptr_array_new_with_free_func (assay_agent_source_free);
  self->text_held = g_string_new (NULL);
  self->restore_notes = g_string_new (NULL);
  self->code_held = g_ptr_array_new_with_free_func (assay_agent_string_free);
  self->extractors = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_code_extractor_free);
  self->context = g_main_context_ref_thread_default ();
}

static void
assay_agent_connect_provider (AssayAgent *self)
{
  self->provider_handlers[0] = g_signal_connect (self->provider,
                                                 "text-delta",
                                                 G_CALLBACK (assay_agent_text_delta_cb),
                                                 self);
  self->provider_handlers[1] = g_signal_connect (self->provider,
                                                 "tool-call-delta",
                                                 G_CALLBACK (assay_agent_tool_call_delta_cb),
                                                 self);
  self->provider_handlers[2] = g_signal_connect (self->provider,
                                                 "retrying",
                                                 G_CALLBACK (assay_agent_retrying_cb),
                                                 self);
}

void
assay_agent_set_provider (AssayAgent       *self,
                          AssayLlmProvider *provider)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (ASSAY_IS_LLM_PROVIDER (provider));
  g_return_if_fail (self->task == NULL);

  if (self->provider == provider)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (self->provider_handlers); i++)
    g_clear_signal_handler (&self->provider_handlers[i], self->provider);
  g_set_object (&self->provider, provider);
  assay_agent_connect_provider (self);
}

AssayAgent *
assay_agent_new (AssayLlmProvider   *provider,
                 AssayKernelSession *kernel,
                 AssaySession       *session)
{
  AssayAgent *self;
  g_autofree char *artifact_dir = NULL;
  GPtrArray *datasets;

  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (provider), NULL);
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (kernel), NULL);
  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);

  self = g_object_new (ASSAY_TYPE_AGENT, NULL);
  self->provider = g_object_ref (provider);
  self->kernel = g_object_ref (kernel);
  self->session = g_object_ref (session);
  self->model = g_strdup (assay_session_get_model (session));

  assay_agent_connect_provider (self);
  self->output_handler = g_signal_connect (kernel, "output", G_CALLBACK (assay_agent_kernel_output_cb), self);

  /* Artifacts land in the session folder directly. */
  artifact_dir = assay_session_get_artifact_dir (session);
  assay_kernel_session_set_artifact_dir (kernel, artifact_dir);

  /* A resumed session brings its datasets and, in a fresh kernel, its state to rebuild. */
  datasets = assay_session_get_datasets (session);
  for (guint i = 0; i < datasets->len; i++)
    {
      AssaySessionDataset *stored = g_ptr_array_index (datasets, i);
      g_autofree char *path = assay_session_resolve (session, stored->path);
      Dataset *dataset;

      /* A link planted in the session's data/ leads out of it: not a dataset. */
      if (path == NULL)
        {
          g_debug ("the dataset %s of the session leads out of its folder", stored->path);
          continue;
        }
      dataset = g_new0 (Dataset, 1);
      dataset->name = g_strdup (stored->name);
      dataset->description = g_strdup (stored->description);
      g_ptr_array_add (self->datasets, dataset);
      if (!assay_kernel_session_add_dataset (kernel, path, NULL))
        g_debug ("the dataset %s of the session is missing", path);
    }
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    if (assay_session_cell_succeeded (assay_session_get_cell (session, i)))
      self->needs_restore = TRUE;
  /* Its sandbox kept for later, when the kernel runs where it was kept. */
  if (assay_session_get_sandbox_resume_id (session) != NULL &&
      g_strcmp0 (assay_session_get_sandbox (session),
                 assay_sandbox_backend_get_name (assay_kernel_session_get_backend (kernel))) == 0)
    assay_kernel_session_set_resume_id (kernel, assay_session_get_sandbox_resume_id (session));
  return self;
}

void
assay_agent_set_requery (AssayAgent *self,
                         gboolean    requery)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  self->requery = requery;
}

gboolean
assay_agent_get_requery (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), FALSE);
  return self->requery;
}

AssayAgent *
assay_agent_new_hosted (AssayLlmProvider     *provider,
                        AssayOpenaiContainer *container,
                        AssaySession         *session)
{
  AssayAgent *self;
  GPtrArray *datasets;

  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (provider), NULL);
  g_return_val_if_fail (container != NULL, NULL);
  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);

  self = g_object_new (ASSAY_TYPE_AGENT, NULL);
  self->provider = g_object_ref (provider);
  self->container = assay_openai_container_ref (container);
  self->session = g_object_ref (session);
  self->model = g_strdup (assay_session_get_model (session));
  /* Nothing here can stop OpenAI's code before it runs. */
  self->policy = ASSAY_APPROVAL_POLICY_AUTO;
  self->fenced_fallback = FALSE;
  assay_agent_connect_provider (self);

  datasets = assay_session_get_datasets (session);
  for (guint i = 0; i < datasets->len; i++)
    {
      AssaySessionDataset *stored = g_ptr_array_index (datasets, i);
      Dataset *dataset = g_new0 (Dataset, 1);

      dataset->name = g_strdup (stored->name);
      dataset->description = g_strdup (stored->description);
      g_ptr_array_add (self->datasets, dataset);
    }
  /* A resumed session's earlier cells ran in a container that is gone (or will be made again). */
  if (assay_session_get_n_cells (session) > 0)
    self->state_lost = TRUE;
  return self;
}

AssayOpenaiContainer *
assay_agent_get_container (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), NULL);
  return self->container;
}

gboolean
assay_agent_add_dataset (AssayAgent  *self,
                         const char  *path,
                         const char  *description,
                         GError     **error)
{
  const AssaySessionDataset *stored;
  g_autofree char *copy = NULL;
  Dataset *dataset = NULL;

  g_return_val_if_fail (ASSAY_IS_AGENT (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  stored = assay_session_add_dataset (self->session, path, description, error);
  if (stored == NULL)
    return FALSE;
  copy = assay_session_resolve (self->session, stored->path);
  if (copy == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The copy of “%s” leads out of the session folder"), stored->name);
      return FALSE;
    }
  if (self->kernel != NULL && !assay_kernel_session_add_dataset (self->kernel, copy, error))
    return FALSE;

  for (guint i = 0; i < self->datasets->len; i++)
    if (g_str_equal (((Dataset *) g_ptr_array_index (self->datasets, i))->name, stored->name))
      dataset = g_ptr_array_index (self->datasets, i);
  if (dataset == NULL)
    {
      dataset = g_new0 (Dataset, 1);
      dataset->name = g_strdup (stored->name);
      g_ptr_array_add (self->datasets, dataset);
    }
  g_free (dataset->description);
  dataset->description = g_strdup (stored->description);
  assay_agent_save (self);
  return TRUE;
}

void
assay_agent_add_source (AssayAgent  *self,
                        AssaySource *source,
                        const char  *description)
{
  Source *entry;

  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (ASSAY_IS_SOURCE (source));

  entry = assay_agent_find_source (self, assay_source_get_name (source));
  if (entry == NULL)
    {
      entry = g_new0 (Source, 1);
      g_ptr_array_add (self->sources, entry);
    }
  else
    g_clear_object (&entry->source);
  entry->source = g_object_ref (source);
  g_free (entry->description);
  entry->description = g_strdup (description);
  assay_session_record_source (self->session, source, description);
  assay_agent_save (self);
}

gboolean
assay_agent_remove_source (AssayAgent *self,
                           const char *name)
{
  Source *entry;

  g_return_val_if_fail (ASSAY_IS_AGENT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  entry = assay_agent_find_source (self, name);
  if (entry == NULL)
    return FALSE;
  /* A query in flight holds its own reference to the source. */
  g_ptr_array_remove (self->sources, entry);
  assay_session_remove_source (self->session, name);
  assay_agent_save (self);
  return TRUE;
}

AssaySource *
assay_agent_get_source (AssayAgent *self,
                        const char *name)
{
  Source *source;

  g_return_val_if_fail (ASSAY_IS_AGENT (self), NULL);
  source = assay_agent_find_source (self, name);
  return source != NULL ? source->source : NULL;
}

AssaySession *
assay_agent_get_session (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), NULL);
  return self->session;
}

void
assay_agent_set_model (AssayAgent *self,
                       const char *model)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_free (self->model);
  self->model = g_strdup (model);
}

const char *
assay_agent_get_model (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), NULL);
  return self->model;
}

void
assay_agent_set_max_steps (AssayAgent *self,
                           guint       max_steps)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (max_steps > 0);
  self->max_steps = max_steps;
}

guint
assay_agent_get_max_steps (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), 0);
  return self->max_steps;
}

void
assay_agent_set_approval_policy (AssayAgent          *self,
                                 AssayApprovalPolicy  policy)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  self->policy = policy;
}

AssayApprovalPolicy
assay_agent_get_approval_policy (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), ASSAY_APPROVAL_POLICY_ASK);
  return self->policy;
}

void
assay_agent_set_fenced_code_fallback (AssayAgent *self,
                                      gboolean    enabled)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  self->fenced_fallback = !!enabled;
}

void
assay_agent_set_background_saves (AssayAgent *self,
                                  gboolean    background)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  self->background_saves = !!background;
}

gboolean
assay_agent_get_saving (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), FALSE);
  return self->pending_saves > 0;
}

gboolean
assay_agent_get_fenced_code_fallback (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), FALSE);
  return self->fenced_fallback;
}

void
assay_agent_set_check_numbers (AssayAgent *self,
                               gboolean    enabled)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));

  self->check_numbers = !!enabled;
}

gboolean
assay_agent_get_check_numbers (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), FALSE);

  return self->check_numbers;
}

void
assay_agent_set_output_budget (AssayAgent *self,
                               gsize       chars)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (chars >= 64);
  self->output_budget = chars;
}

void
assay_agent_set_context_budget (AssayAgent *self,
                                gsize       tokens)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (tokens > 0);
  self->context_tokens = tokens;
}

GPtrArray *
assay_agent_get_messages (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), NULL);
  return assay_session_get_messages (self->session);
}

void
assay_agent_set_dataset_description (AssayAgent *self,
                                     const char *name,
                                     const char *description)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (name != NULL);

  if (!assay_session_set_dataset_description (self->session, name, description))
    return;
  for (guint i = 0; i < self->datasets->len; i++)
    {
      Dataset *dataset = g_ptr_array_index (self->datasets, i);

      if (g_str_equal (dataset->name, name))
        {
          g_free (dataset->description);
          dataset->description = g_strdup (description);
        }
    }
  assay_agent_save (self);
}

void
assay_agent_set_masker (AssayAgent  *self,
                        AssayMasker *masker)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  g_return_if_fail (masker == NULL || ASSAY_IS_MASKER (masker));
  g_set_object (&self->masker, masker);
}

AssayMasker *
assay_agent_get_masker (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), NULL);
  return self->masker;
}

void
assay_agent_set_prices (AssayAgent      *self,
                        AssayPriceTable *prices)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  if (prices != NULL)
    assay_price_table_ref (prices);
  g_clear_pointer (&self->prices, assay_price_table_unref);
  self->prices = prices;
}

void
assay_agent_set_budget (AssayAgent *self,
                        double      usd)
{
  g_return_if_fail (ASSAY_IS_AGENT (self));
  self->budget = isfinite (usd) && usd > 0 ? usd : 0;
}

double
assay_agent_get_budget (AssayAgent *self)
{
  g_return_val_if_fail (ASSAY_IS_AGENT (self), 0);
  return self->budget;
}
