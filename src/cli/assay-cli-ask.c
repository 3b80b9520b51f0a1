/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `assay-cli ask`: one question to the agent, in a terminal or a script. Progress (steps,
 * code, outputs, retries) goes to stderr, the answer to stdout. */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "assay-sqlite-file.h"
#include "assay-agent.h"
#include "assay-cli.h"
#include <math.h>

#include "assay-dataset.h"
#include "assay-kernel-session.h"
#include "assay-session.h"
#include "assay-cell-output.h"

enum {
  EXIT_ANSWERED = 0,
  EXIT_FAILURE_OTHER = 1,
  EXIT_USAGE = 2,
  EXIT_MODEL = 3,
  EXIT_STEP_LIMIT = 4,
  EXIT_SANDBOX = 5,
  EXIT_CANCELLED = 6,
  EXIT_DATABASE = ASSAY_CLI_EXIT_DATABASE,
  EXIT_BUDGET = 9,
};

#define EXIT_CODES_HELP \
  N_("Exit status:\n" \
  "  0  the model gave a final answer (printed on stdout)\n" \
  "  1  another failure (the session folder cannot be written, ...)\n" \
  "  2  usage: bad options, a missing data file, --out already holding a session\n" \
  "  3  the model or its provider failed (key refused, server down, transcript exhausted)\n" \
  "  4  the step limit came before a final answer (results so far are kept)\n" \
  "  5  the sandbox cannot be used\n" \
  "  6  cancelled: SIGINT/SIGTERM, or the analyst stopped (EOF at the approval prompt);\n" \
  "     the session is saved\n" \
  "  7  a --db database cannot be reached, refused the login, its login can do more than\n" \
  "     read (superuser, server files, signals; --db-accept-risk NAME to use it anyway), or\n" \
  "     its schema cannot be read\n" \
  "  9  stopped before a request that would have gone over --budget (the session is saved)\n" \
  "\n" \
  "Databases (--db NAME=URL, repeatable): postgresql://[user@]host[:port]/db?sslmode=…\n" \
  "(host=/socket/dir for a unix socket), mysql:// or mariadb://[user@]host[:port]/db\n" \
  "(socket=/path/to/mysqld.sock, ssl-mode=…), sqlite:///absolute/path/file.db. The model\n" \
  "gets the schema (--db-tables NAME=T1,T2 to show only those) and a run_sql tool; each\n" \
  "query is shown and approved like a cell, checked to be one read-only statement, run in a\n" \
  "read-only transaction with a timeout and a row cap, and its result becomes a DataFrame\n" \
  "in the sandbox, which never connects itself. Passwords come from the environment or the\n" \
  "client's files (PGPASSWORD, ~/.pgpass; MYSQL_PWD, ~/.my.cnf). A password written in the\n" \
  "URL is used but never printed or saved: the session keeps the URL without it.\n" \
  "--mask NAME.TABLE:COLUMN masks a database column (and FILE.TABLE:COLUMN a table's column\n" \
  "of an SQLite file given to --data).\n" \
  "\n" \
  "What the model sees (--privacy): full (everything), masked (the --mask columns' values\n" \
  "replaced by placeholders such as ⟨customer_id 17⟩ in everything sent; placeholders in its\n" \
  "code are mapped back before the cell runs), schema (names, types and row counts; of each\n" \
  "cell only its status, error type and the shapes of the DataFrames it made). A session\n" \
  "keeps its mode and masked columns; --mask alone means masked. Prices come from the\n" \
  "shipped table and ~/.config/assay/prices.json; a server on this computer costs nothing.\n" \
  "\n" \
  "Keys come from the environment only: OPENAI_API_KEY (openai), ANTHROPIC_API_KEY\n" \
  "(anthropic) or ASSAY_API_KEY (either); a server without auth (Ollama) needs none.\n" \
  "--provider recorded replays a transcript (--transcript FILE or ASSAY_TRANSCRIPT).\n" \
  "\n" \
  "Without --yes, each cell waits for an answer on the terminal (or one line on stdin):\n" \
  "  y            run it\n" \
  "  e            edit it in $EDITOR, then run the edited code\n" \
  "  n REASON     do not run it; the reason goes back to the model\n" \
  "  end of input stops the question (exit 6).")

typedef struct
{
  GMainLoop         *loop;
  AssayAgent        *agent;
  GCancellable      *cancellable;
  GDataInputStream  *input;
  gboolean           interactive;
  GString           *turn_text;
  char              *waiting_cell;
  char              *waiting_code;
  gboolean           done;
  AssayAgentOutcome  outcome;
  char              *text;
} Ask;

static void
assay_cli_ask_flush_turn_text (Ask *ask)
{
  if (ask->turn_text->len > 0)
    {
      assay_cli_print (stderr, "%s%s", ask->turn_text->str,
               ask->turn_text->str[ask->turn_text->len - 1] == '\n' ? "" : "\n");
      g_string_truncate (ask->turn_text, 0);
    }
}

static void
assay_cli_ask_print_code (const char *cell_id,
                          const char *code,
                          const char *description)
{
  g_auto(GStrv) lines = g_strsplit (code, "\n", -1);

  assay_cli_print (stderr,
                   "── cell %s%s%s\n",
                   cell_id,
                   description ? ": " : "",
                   description ? description : "");
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i + 1] != NULL || *lines[i] != '\0')
      assay_cli_print (stderr, "  │ %s\n", lines[i]);
}

/* A SQL cell's header says where it runs and what it makes. */
static void
assay_cli_ask_print_cell (AssayAgent *agent,
                          const char *cell_id,
                          const char *code,
                          const char *description)
{
  AssaySessionCell *cell = assay_session_find_cell (assay_agent_get_session (agent), cell_id);
  g_auto(GStrv) lines = NULL;

  if (cell == NULL || cell->kind != ASSAY_CELL_KIND_SQL || cell->query == NULL)
    {
      assay_cli_ask_print_code (cell_id, code, description);
      return;
    }
  lines = g_strsplit (code, "\n", -1);
  assay_cli_print (stderr, _("── query %s on %s → DataFrame %s%s%s\n"), cell_id, cell->query->database,
                   cell->query->frame, description ? ": " : "", description ? description : "");
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i + 1] != NULL || *lines[i] != '\0')
      assay_cli_print (stderr, "  │ %s\n", lines[i]);
}

static void
assay_cli_ask_step_cb (AssayAgent *agent, guint n, guint max, Ask *ask)
{
  g_string_truncate (ask->turn_text, 0);
  fprintf (stderr, _("── step %u of %u\n"), n, max);
}

static void
assay_cli_ask_text_delta_cb (AssayAgent *agent, const char *text, Ask *ask)
{
  g_string_append (ask->turn_text, text);
}

static void
assay_cli_ask_retrying_cb (AssayAgent *agent, guint attempt, guint delay_ms, const char *reason, Ask *ask)
{
  g_string_truncate (ask->turn_text, 0);
  assay_cli_print (stderr,
                   _("model: %s; retrying in %.1f s (attempt %u)\n"),
                   reason,
                   delay_ms / 1000.0,
                   attempt + 1);
}

static void
assay_cli_ask_checking_cb (AssayAgent *agent,
                           const char *numbers,
                           Ask        *ask)
{
  /* The draft the model wrote, then why it goes back. */
  assay_cli_ask_flush_turn_text (ask);
  assay_cli_print (stderr, _("Not found in any output: %s — the model is asked to check them.\n"), numbers);
}

/* A sandbox that can be kept for later (E2B's, paused) is kept, and the session records it:
 * `ask --resume` then finds the kernel as it was, without replaying the cells. */
static void
assay_cli_ask_close_kernel (AssayKernelSession *kernel,
                            AssaySession       *session)
{
  g_autofree char *resume_id = assay_kernel_session_dup_resume_id (kernel);
  g_autoptr(GError) error = NULL;

  assay_kernel_session_set_keep_on_close (kernel, resume_id != NULL);
  if (resume_id == NULL && assay_session_get_sandbox_resume_id (session) == NULL)
    {
      assay_kernel_session_close (kernel);
      return;
    }
  assay_session_set_sandbox_resume_id (session, resume_id);
  if (!assay_session_save (session, &error))
    assay_cli_print (stderr, _("assay-cli ask: the session could not be saved: %s\n"), error->message);
  assay_kernel_session_close (kernel);
}

static void
assay_cli_ask_restoring_cb (AssayAgent *agent, guint done, guint total, Ask *ask)
{
  if (done == 0)
    fprintf (stderr, ngettext ("Restoring the session: running its %u successful cell again…\n",
                               "Restoring the session: running its %u successful cells again…\n", total),
             total);
  else if (done == total)
    fprintf (stderr, _("Restored.\n"));
}

static void
assay_cli_ask_requeried_cb (AssayAgent *agent,
                            const char *cell_id,
                            gint64      rows,
                            const char *problem,
                            Ask        *ask)
{
  if (problem != NULL)
    assay_cli_print (stderr, _("The query of cell %s could not be asked again (%s): its cached result is loaded.\n"),
                     cell_id, problem);
  else
    {
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, rows);

      assay_cli_print (stderr, g_dngettext (GETTEXT_PACKAGE, "The query of cell %s was asked again: %s row.\n",
                                            "The query of cell %s was asked again: %s rows.\n",
                                            (gulong) MIN (rows, G_MAXLONG)),
                       cell_id, count);
    }
}

static void assay_cli_ask_prompt (Ask *ask);

static char *
assay_cli_ask_edit_in_editor (const char  *code,
                              GError     **error)
{
  const char *editor = g_getenv ("VISUAL");
  g_autofree char *path = NULL;
  g_autofree char *edited = NULL;
  int fd;
  int status = 0;
  const char *argv[] = { "/bin/sh", "-c", "exec $ASSAY_EDITOR \"$1\"", "sh", NULL, NULL };
  g_auto(GStrv) envp = g_get_environ ();

  if (editor == NULL || *editor == '\0')
    editor = g_getenv ("EDITOR");
  if (editor == NULL || *editor == '\0')
    editor = "vi";

  fd = g_file_open_tmp ("assay-cell-XXXXXX.py", &path, error);
  if (fd < 0)
    return NULL;
  close (fd);
  if (!g_file_set_contents (path, code, -1, error))
    return NULL;

  /* Through the shell: EDITOR may carry arguments ("code --wait"). */
  envp = g_environ_setenv (envp, "ASSAY_EDITOR", editor, TRUE);
  argv[4] = path;
  if (!g_spawn_sync (NULL, (char **) argv, envp,
                     G_SPAWN_CHILD_INHERITS_STDIN | G_SPAWN_CHILD_INHERITS_STDOUT | G_SPAWN_CHILD_INHERITS_STDERR,
                     NULL, NULL, NULL, NULL, &status, error) ||
      !g_spawn_check_wait_status (status, error))
    {
      g_unlink (path);
      g_prefix_error (error, _("The editor (%s) failed: "), editor);
      return NULL;
    }
  if (!g_file_get_contents (path, &edited, NULL, error))
    return NULL;
  g_unlink (path);
  return g_steal_pointer (&edited);
}

static void
assay_cli_ask_line_read_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  Ask *ask = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *cell_id = NULL;
  g_autofree char *code = NULL;
  char *reason;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, NULL, &error);
  if (ask->waiting_cell == NULL)
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* the agent ends the question itself */

  cell_id = g_steal_pointer (&ask->waiting_cell);
  code = g_steal_pointer (&ask->waiting_code);

  if (line == NULL)
    {
      fprintf (stderr, _("\nEnd of input: the cell is not run and the question stops.\n"));
      assay_agent_respond (ask->agent, cell_id, ASSAY_APPROVAL_STOP, "end of input at the approval prompt");
      return;
    }

  g_strstrip (line);
  if (!ask->interactive)
    fprintf (stderr, "%s\n", line);
  if (g_str_equal (line, "y") || g_str_equal (line, "yes"))
    {
      assay_agent_respond (ask->agent, cell_id, ASSAY_APPROVAL_RUN, NULL);
      return;
    }
  if (g_str_equal (line, "e") || g_str_equal (line, "edit"))
    {
      g_autofree char *edited = assay_cli_ask_edit_in_editor (code, &error);

      if (edited == NULL)
        fprintf (stderr, "%s\n", error->message);
      else
        {
          assay_agent_respond (ask->agent, cell_id, ASSAY_APPROVAL_EDIT, edited);
          return;
        }
    }
  else if (line[0] == 'n' && (line[1] == '\0' || line[1] == ' ' ||
                              g_str_has_prefix (line, "no ") || g_str_equal (line, "no")))
    {
      reason = line + (g_str_has_prefix (line, "no") ? 2 : 1);
      reason = g_strstrip (reason);
      assay_agent_respond (ask->agent, cell_id, ASSAY_APPROVAL_REJECT, *reason ? reason : NULL);
      return;
    }
  else
    fprintf (stderr, _("Answer y, e, or n followed by a reason.\n"));

  ask->waiting_cell = g_steal_pointer (&cell_id);
  ask->waiting_code = g_steal_pointer (&code);
  assay_cli_ask_prompt (ask);
}

static void
assay_cli_ask_prompt (Ask *ask)
{
  fprintf (stderr, _("Run cell %s? [y]es, [e]dit, [n]o REASON: "), ask->waiting_cell);
  fflush (stderr);
  g_data_input_stream_read_line_async (ask->input, G_PRIORITY_DEFAULT, ask->cancellable,
                                       assay_cli_ask_line_read_cb, ask);
}

static void
assay_cli_ask_approval_cb (AssayAgent *agent,
                           const char *cell_id,
                           const char *code,
                           const char *description,
                           Ask *ask)
{
  assay_cli_ask_flush_turn_text (ask);
  assay_cli_ask_print_cell (agent, cell_id, code, description);
  if (assay_session_get_privacy_mode (assay_agent_get_session (agent)) != ASSAY_PRIVACY_FULL)
    assay_cli_print (stderr, _("  (what the model saw: %s)\n"),
                     assay_privacy_mode_get_label (assay_session_get_privacy_mode (assay_agent_get_session (agent))));
  g_free (ask->waiting_cell);
  ask->waiting_cell = g_strdup (cell_id);
  g_free (ask->waiting_code);
  ask->waiting_code = g_strdup (code);
  assay_cli_ask_prompt (ask);
}

static void
assay_cli_ask_cell_started_cb (AssayAgent *agent, const char *cell_id, const char *code, Ask *ask)
{
  if (assay_agent_get_approval_policy (agent) == ASSAY_APPROVAL_POLICY_AUTO)
    {
      assay_cli_ask_flush_turn_text (ask);
      assay_cli_ask_print_cell (agent, cell_id, code, NULL);
    }
  fprintf (stderr, _("── cell %s running\n"), cell_id);
  fflush (stderr);
}

static void
assay_cli_ask_output_cb (AssayAgent *agent, const char *cell_id, JsonObject *object, Ask *ask)
{
  g_autoptr(AssayCellOutput) output = assay_cell_output_read_object (object);
  g_autofree char *text = NULL;

  if (output->kind == ASSAY_CELL_OUTPUT_STREAM || output->kind == ASSAY_CELL_OUTPUT_ERROR)
    {
      text = assay_cell_output_dup_text (output);
      assay_cli_print (stderr, "%s", text);
    }
  else if (output->png_base64 != NULL)
    fprintf (stderr, "[figure: image/png]\n");
  else if (output->plain != NULL)
    assay_cli_print (stderr, "%s\n", output->plain);
  fflush (stderr);
}

static void
assay_cli_ask_artifact_cb (AssayAgent *agent,
                           const char *cell_id,
                           const char *name,
                           const char *path,
                           Ask *ask)
{
  assay_cli_print (stderr, _("artifact: %s → %s\n"), name, path);
}

static void
assay_cli_ask_cell_finished_cb (AssayAgent *agent, const char *cell_id, AssayCellResult *result, Ask *ask)
{
  AssayCellStatus status = assay_cell_result_get_status (result);

  g_autofree char *checks = assay_cell_checks_describe (assay_cell_result_get_checks (result), FALSE);

  assay_cli_print (stderr, "── cell %s: %s in %" G_GINT64_FORMAT " ms%s%s\n", cell_id,
           assay_cell_status_to_string (status), assay_cell_result_get_elapsed_ms (result),
           status != ASSAY_CELL_OK ? " — " : "",
           status != ASSAY_CELL_OK ? assay_cell_result_get_reason (result) : "");
  if (checks != NULL)
    assay_cli_print (stderr, _("   checks: %s\n"), checks);
  {
    AssaySessionCell *cell = assay_session_find_cell (assay_agent_get_session (agent), cell_id);

    if (cell != NULL && cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL && cell->query->rows >= 0)
      {
        g_autofree char *rows = g_strdup_printf ("%" G_GINT64_FORMAT, cell->query->rows);
        g_autofree char *ms = g_strdup_printf ("%" G_GINT64_FORMAT, cell->query->query_ms);

        assay_cli_print (stderr, _("  query on %s → %s: %s rows × %u columns in %s ms\n"),
                         cell->query->database, cell->query->frame, rows,
                         json_array_get_length (cell->query->columns), ms);
      }
  }
}

static void
assay_cli_ask_error_cb (AssayAgent *agent, const char *message, Ask *ask)
{
  assay_cli_print (stderr, "assay-cli ask: %s\n", message);
}

static void
assay_cli_ask_asked_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  Ask *ask = user_data;

  ask->outcome = assay_agent_ask_finish (ASSAY_AGENT (source), result, &ask->text, NULL);
  ask->done = TRUE;
  g_main_loop_quit (ask->loop);
}

static gboolean
assay_cli_ask_interrupted_cb (gpointer user_data)
{
  Ask *ask = user_data;

  if (!g_cancellable_is_cancelled (ask->cancellable))
    fprintf (stderr, _("\nInterrupted: cancelling and saving the session…\n"));
  g_cancellable_cancel (ask->cancellable);
  return G_SOURCE_CONTINUE;
}

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
} Wait;

static void
assay_cli_ask_started_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = assay_kernel_session_start_finish (ASSAY_KERNEL_SESSION (source), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

/* The provenance of the question's answer: the session's last message, when it is one. */
static const AssayProvenance *
assay_cli_ask_answer_provenance (AssaySession *session)
{
  GPtrArray *messages = assay_session_get_messages (session);

  if (messages->len == 0)
    return NULL;
  return assay_session_get_provenance (session, messages->len - 1);
}

static JsonNode *
assay_cli_ask_result_json (Ask          *ask,
                           AssaySession *session)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "answer");
  if (ask->outcome == ASSAY_AGENT_ANSWERED)
    json_builder_add_string_value (builder, ask->text);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, assay_agent_outcome_to_string (ask->outcome));
  json_builder_set_member_name (builder, "message");
  json_builder_add_string_value (builder, ask->text);
  json_builder_set_member_name (builder, "steps");
  json_builder_add_int_value (builder, assay_session_get_n_steps (session));
  json_builder_set_member_name (builder, "session_dir");
  json_builder_add_string_value (builder, assay_session_get_dir (session));
  json_builder_set_member_name (builder, "privacy");
  json_builder_add_string_value (builder, assay_privacy_mode_to_string (assay_session_get_privacy_mode (session)));
  {
    gint64 tokens_in = 0, tokens_out = 0;
    guint unpriced = 0;
    double cost = assay_session_get_cost (session, &tokens_in, &tokens_out, &unpriced);

    json_builder_set_member_name (builder, "input_tokens");
    json_builder_add_int_value (builder, tokens_in);
    json_builder_set_member_name (builder, "output_tokens");
    json_builder_add_int_value (builder, tokens_out);
    json_builder_set_member_name (builder, "cost_usd");
    if (unpriced > 0 && cost == 0)
      json_builder_add_null_value (builder);
    else
      json_builder_add_double_value (builder, cost);
  }
  /* Each number of the answer and the cell output that printed it. */
  json_builder_set_member_name (builder, "provenance");
  if (ask->outcome == ASSAY_AGENT_ANSWERED && assay_cli_ask_answer_provenance (session) != NULL)
    json_builder_add_value (builder, assay_provenance_to_json (assay_cli_ask_answer_provenance (session)));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "cells");
  json_builder_begin_array (builder);
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, cell->id);
      json_builder_set_member_name (builder, "step");
      json_builder_add_int_value (builder, cell->step);
      json_builder_set_member_name (builder, "status");
      json_builder_add_string_value (builder, assay_cell_status_to_string (cell->status));
      json_builder_set_member_name (builder, "decision");
      json_builder_add_string_value (builder, assay_decision_to_string (cell->decision));
      json_builder_set_member_name (builder, "reason");
      if (cell->reason)
        json_builder_add_string_value (builder, cell->reason);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "code");
      if (cell->code)
        json_builder_add_string_value (builder, cell->code);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "elapsed_ms");
      json_builder_add_int_value (builder, cell->elapsed_ms);
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, cell->kind == ASSAY_CELL_KIND_SQL ? "sql" : "python");
      if (cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL)
        {
          json_builder_set_member_name (builder, "query");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "database");
          json_builder_add_string_value (builder, cell->query->database);
          json_builder_set_member_name (builder, "frame");
          json_builder_add_string_value (builder, cell->query->frame);
          json_builder_set_member_name (builder, "rows");
          json_builder_add_int_value (builder, cell->query->rows);
          json_builder_set_member_name (builder, "query_ms");
          json_builder_add_int_value (builder, cell->query->query_ms);
          json_builder_set_member_name (builder, "columns");
          json_builder_add_value (builder, json_node_init_array (json_node_alloc (), cell->query->columns));
          json_builder_end_object (builder);
        }
      json_builder_set_member_name (builder, "artifacts");
      json_builder_begin_array (builder);
      for (guint j = 0; j < cell->artifacts->len; j++)
        {
          AssayArtifact *artifact = g_ptr_array_index (cell->artifacts, j);
          g_autofree char *path = assay_session_resolve (session, artifact->path);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, artifact->name);
          json_builder_set_member_name (builder, "path");
          if (path != NULL)
            json_builder_add_string_value (builder, path);
          else
            json_builder_add_null_value (builder);
          json_builder_set_member_name (builder, "bytes");
          json_builder_add_int_value (builder, (gint64) artifact->bytes);
          json_builder_set_member_name (builder, "mime");
          json_builder_add_string_value (builder, artifact->mime);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static int
assay_cli_ask_exit_code (AssayAgentOutcome outcome)
{
  switch (outcome)
    {
    case ASSAY_AGENT_ANSWERED: return EXIT_ANSWERED;
    case ASSAY_AGENT_STEP_LIMIT: return EXIT_STEP_LIMIT;
    case ASSAY_AGENT_MODEL_ERROR: return EXIT_MODEL;
    case ASSAY_AGENT_SANDBOX_ERROR: return EXIT_SANDBOX;
    case ASSAY_AGENT_CANCELLED:
    case ASSAY_AGENT_STOPPED: return EXIT_CANCELLED;
    case ASSAY_AGENT_BUDGET: return EXIT_BUDGET;
    default: return EXIT_FAILURE_OTHER;
    }
}

static AssayLlmProvider *
assay_cli_ask_make_provider (const char  *name,
                             const char  *base_url,
                             const char  *api,
                             const char  *transcript,
                             GError     **error)
{
  const char *key = NULL;
  AssayLlmProvider *provider = NULL;

  if (g_str_equal (name, "recorded"))
    {
      if (transcript == NULL)
        transcript = g_getenv ("ASSAY_TRANSCRIPT");
      if (transcript == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--provider recorded needs --transcript FILE (or ASSAY_TRANSCRIPT)"));
          return NULL;
        }
      provider = assay_recorded_provider_new (transcript, error);
      if (provider != NULL)
        fprintf (stderr, _("The model's words are recorded (%s); the code runs for real in the sandbox.\n"),
                 transcript);
      return provider;
    }

  /* The key comes from the environment: the vendor's variable, else ASSAY_API_KEY. */
  key = g_getenv (g_str_equal (name, "anthropic") ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  if (key == NULL || *key == '\0')
    key = g_getenv ("ASSAY_API_KEY");
  if (!g_str_equal (name, "openai") && !g_str_equal (name, "anthropic"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("unknown provider “%s” (use openai, anthropic or recorded)"), name);
      return NULL;
    }
  if (!assay_openai_api_from_string (api, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("unknown API “%s” (use responses, chat or auto)"), api);
      return NULL;
    }
  if (g_str_equal (name, "anthropic") && api != NULL && !g_str_equal (api, "auto"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--api is for OpenAI’s servers: Anthropic speaks its own"));
      return NULL;
    }
  return assay_llm_provider_new_for_name_and_api (name, base_url, key, api, error);
}

static char *
assay_cli_ask_describe_dataset (const char      *path,
                                guint            n_datasets,
                                AssayPrivacyMode mode)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayDataset) dataset = assay_dataset_open (path, NULL, &error);

  if (mode == ASSAY_PRIVACY_SCHEMA)
    return assay_dataset_describe_schema_for_prompt (dataset, error, n_datasets);
  return assay_dataset_describe_for_prompt (dataset, error, n_datasets);
}

/* The summaries of the datasets with masked columns made again, their samples masked
 * before they are cut or their line breaks made spaces. */
static void
assay_cli_ask_describe_masked (AssayAgent   *agent,
                               AssaySession *session,
                               AssayMasker  *masker,
                               guint         n_datasets)
{
  GPtrArray *datasets = assay_session_get_datasets (session);
  GPtrArray *masked = assay_session_get_masked_columns (session);

  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *stored = g_ptr_array_index (datasets, i);
      g_autofree char *path = NULL;
      g_autofree char *description = NULL;
      g_autoptr(AssayDataset) dataset = NULL;
      g_autoptr(GError) error = NULL;
      gboolean has_mask = FALSE;

      for (guint j = 0; j < masked->len && !has_mask; j++)
        has_mask = g_strcmp0 (((const AssaySessionMask *) g_ptr_array_index (masked, j))->dataset, stored->name) == 0;
      if (!has_mask || (path = assay_session_resolve (session, stored->path)) == NULL)
        continue;
      dataset = assay_dataset_open (path, NULL, &error);
      if (dataset != NULL)
        assay_masker_mask_samples (masker, dataset, stored->name);
      description = assay_dataset_describe_for_prompt (dataset, error, MAX (n_datasets, datasets->len));
      assay_agent_set_dataset_description (agent, stored->name, description);
    }
}

/* The session's masked columns, each read from its dataset's copy in the session: every
 * distinct value gets its placeholder. */
static AssayMasker *
assay_cli_ask_make_masker (AssaySession  *session,
                           GPtrArray     *sources,
                           GError       **error)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  GPtrArray *masked = assay_session_get_masked_columns (session);
  GPtrArray *datasets = assay_session_get_datasets (session);

  for (guint i = 0; i < masked->len; i++)
    {
      const AssaySessionMask *mask = g_ptr_array_index (masked, i);
      const AssaySessionDataset *found = NULL;
      g_autofree char *path = NULL;
      g_autoptr(AssayDataset) dataset = NULL;

      /* A database's column: its values are read from the database, below. */
      if (assay_cli_db_is_masked_dataset (session, sources, mask->dataset))
        continue;
      for (guint j = 0; j < datasets->len && found == NULL; j++)
        if (g_strcmp0 (((const AssaySessionDataset *) g_ptr_array_index (datasets, j))->name, mask->dataset) == 0)
          found = g_ptr_array_index (datasets, j);
      /* An SQLite dataset's column: "DATABASE.TABLE", as for a connection. */
      for (guint j = 0; j < datasets->len && found == NULL; j++)
        {
          const AssaySessionDataset *candidate = g_ptr_array_index (datasets, j);
          gsize length = candidate->name != NULL ? strlen (candidate->name) : 0;

          if (length > 0 && strncmp (mask->dataset, candidate->name, length) == 0 && mask->dataset[length] == '.')
            {
              g_autofree char *candidate_path = assay_session_resolve (session, candidate->path);

              if (candidate_path != NULL && assay_sqlite_file_is_database (candidate_path))
                found = candidate;
            }
        }
      if (found == NULL || (path = assay_session_resolve (session, found->path)) == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("--mask %s:%s: the session has no dataset %s"), mask->dataset, mask->column, mask->dataset);
          return NULL;
        }
      dataset = assay_dataset_open (path, NULL, error);
      if (dataset == NULL ||
          !assay_masker_add_dataset_column (masker, mask->dataset, dataset, mask->column, NULL, error))
        return NULL;
    }
  if (sources != NULL && !assay_cli_db_mask_columns (session, sources, masker, error))
    return NULL;
  return g_steal_pointer (&masker);
}

static void
assay_cli_ask_free_terminal (Ask *ask)
{
  g_string_free (ask->turn_text, TRUE);
  g_clear_object (&ask->input);
  g_clear_object (&ask->cancellable);
  g_free (ask->waiting_cell);
  g_free (ask->waiting_code);
  g_free (ask->text);
  g_free (ask);
}

AssayAgent *
assay_cli_make_agent (AssaySession                  *session,
                      AssayKernelSession            *kernel,
                      const AssayCliAgentSettings   *settings,
                      GError                       **error)
{
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(AssayAgent) agent = NULL;
  g_autoptr(AssayPriceTable) prices = NULL;
  g_autoptr(GInputStream) stdin_stream = NULL;
  g_autoptr(GError) price_error = NULL;
  const char *name = settings->provider;
  Ask *ask;

  if (name == NULL)
    name = assay_session_get_provider (session) != NULL ? assay_session_get_provider (session) : "openai";
  provider = assay_cli_ask_make_provider (name, settings->base_url, settings->api, settings->transcript, error);
  if (provider == NULL)
    return NULL;
  agent = assay_agent_new (provider, kernel, session);
  if (settings->model != NULL)
    assay_agent_set_model (agent, settings->model);
  assay_agent_set_max_steps (agent, settings->max_steps > 0 ? settings->max_steps : ASSAY_AGENT_DEFAULT_MAX_STEPS);
  assay_agent_set_approval_policy (agent, settings->yes ? ASSAY_APPROVAL_POLICY_AUTO : ASSAY_APPROVAL_POLICY_ASK);
  if (assay_session_get_masked_columns (session)->len > 0 &&
      assay_session_get_privacy_mode (session) != ASSAY_PRIVACY_FULL)
    {
      g_autoptr(AssayMasker) masker = assay_cli_ask_make_masker (session, NULL, error);

      if (masker == NULL)
        return NULL;
      assay_agent_set_masker (agent, masker);
    }
  prices = assay_price_table_new_default (&price_error);
  assay_agent_set_prices (agent, prices);
  assay_agent_set_budget (agent, settings->budget);
  if (!assay_llm_provider_is_local (provider))
    {
      g_autofree char *host = assay_llm_url_dup_host (assay_llm_provider_get_base_url (provider));

      assay_cli_print (stderr, _("Sent to %s\n"), host != NULL ? host : "?");
    }

  /* The terminal's side of the approvals, for as long as the agent lives. */
  ask = g_new0 (Ask, 1);
  ask->agent = agent;
  ask->cancellable = g_cancellable_new ();
  ask->turn_text = g_string_new (NULL);
  ask->interactive = isatty (STDIN_FILENO);
  stdin_stream = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  ask->input = g_data_input_stream_new (stdin_stream);
  g_object_set_data_full (G_OBJECT (agent), "assay-cli-terminal", ask, (GDestroyNotify) assay_cli_ask_free_terminal);
  g_signal_connect (agent, "step", G_CALLBACK (assay_cli_ask_step_cb), ask);
  g_signal_connect (agent, "text-delta", G_CALLBACK (assay_cli_ask_text_delta_cb), ask);
  g_signal_connect (agent, "retrying", G_CALLBACK (assay_cli_ask_retrying_cb), ask);
  g_signal_connect (agent, "approval-needed", G_CALLBACK (assay_cli_ask_approval_cb), ask);
  g_signal_connect (agent, "cell-started", G_CALLBACK (assay_cli_ask_cell_started_cb), ask);
  g_signal_connect (agent, "output", G_CALLBACK (assay_cli_ask_output_cb), ask);
  g_signal_connect (agent, "artifact-added", G_CALLBACK (assay_cli_ask_artifact_cb), ask);
  g_signal_connect (agent, "cell-finished", G_CALLBACK (assay_cli_ask_cell_finished_cb), ask);
  g_signal_connect (agent, "error", G_CALLBACK (assay_cli_ask_error_cb), ask);
  return g_steal_pointer (&agent);
}

/* Splits FILE:COLUMN at the name of one of the session's datasets (either may hold ':'). */
static gboolean
assay_cli_ask_parse_mask (AssaySession  *session,
                          const char    *spec,
                          char         **dataset_name,
                          char         **column)
{
  GPtrArray *datasets = assay_session_get_datasets (session);

  for (guint j = 0; j < datasets->len; j++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (datasets, j);
      gsize length = strlen (dataset->name);
      g_autofree char *base = NULL;

      if (strncmp (spec, dataset->name, length) == 0 && spec[length] == ':' && spec[length + 1] != '\0')
        {
          *dataset_name = g_strdup (dataset->name);
          *column = g_strdup (spec + length + 1);
          return TRUE;
        }
      /* A table's column of an SQLite dataset: DATABASE.TABLE:COLUMN, as for a connection. */
      if (strncmp (spec, dataset->name, length) == 0 && spec[length] == '.' && strrchr (spec, ':') != NULL &&
          strrchr (spec, ':') > spec + length + 1 && strrchr (spec, ':')[1] != '\0')
        {
          g_autofree char *path = assay_session_resolve (session, dataset->path);

          if (path != NULL && assay_sqlite_file_is_database (path))
            {
              *dataset_name = g_strndup (spec, strrchr (spec, ':') - spec);
              *column = g_strdup (strrchr (spec, ':') + 1);
              return TRUE;
            }
        }
      /* The file as given to --data, by its path. */
      base = strrchr (spec, ':') != NULL ? g_strndup (spec, strrchr (spec, ':') - spec) : NULL;
      if (base != NULL)
        {
          g_autofree char *name = g_path_get_basename (base);

          if (g_str_equal (name, dataset->name) && strrchr (spec, ':')[1] != '\0')
            {
              *dataset_name = g_strdup (dataset->name);
              *column = g_strdup (strrchr (spec, ':') + 1);
              return TRUE;
            }
        }
    }
  return FALSE;
}

int
assay_cli_ask (int   argc,
               char *argv[])
{
  g_autofree char *provider_name = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *api = NULL;
  g_autofree char *model = NULL;
  g_autofree char *transcript = NULL;
  g_autofree char *out_dir = NULL;
  g_autofree char *resume_dir = NULL;
  g_autofree char *backend_name = NULL;
  g_autofree char *runs_on = NULL;
  g_auto(GStrv) data_files = NULL;
  g_auto(GStrv) words = NULL;
  int max_steps = ASSAY_AGENT_DEFAULT_MAX_STEPS;
  gboolean yes = FALSE;
  gboolean json = FALSE;
  gboolean no_check = FALSE;
  g_auto(GStrv) masks = NULL;
  g_autofree char *privacy_name = NULL;
  double budget = 0;
  g_auto(GStrv) db_specs = NULL;
  g_auto(GStrv) db_tables = NULL;
  g_auto(GStrv) db_accept_risk = NULL;
  int db_timeout = 0;
  gint64 db_max_rows = 0;
  g_autoptr(GPtrArray) sources = NULL;
  gboolean requery = FALSE;
  GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &provider_name, N_("The model server: openai (default), anthropic or recorded"), "NAME" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url, N_("The server's root, with its version path (e.g. http://localhost:11434/v1)"), "URL" },
    { "api", 0, 0, G_OPTION_ARG_STRING, &api, N_("For openai: responses or chat (default: responses for api.openai.com, chat for other servers)"), "NAME" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, N_("The model to ask"), "NAME" },
    { "transcript", 0, 0, G_OPTION_ARG_FILENAME, &transcript, N_("For --provider recorded: the transcript to replay"), "FILE" },
    { "data", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &data_files, N_("A dataset, readable at /data/<name> (repeatable)"), "FILE" },
    { "max-steps", 0, 0, G_OPTION_ARG_INT, &max_steps, N_("Model turns before giving up (default 8)"), "N" },
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &yes, N_("Run every cell without asking"), NULL },
    { "no-check-numbers", 0, 0, G_OPTION_ARG_NONE, &no_check, N_("Do not send back an answer whose numbers no output printed"), NULL },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out_dir, N_("Write the session folder to DIR (default: a new folder in ~/.local/share/assay/sessions)"), "DIR" },
    { "resume", 0, 0, G_OPTION_ARG_FILENAME, &resume_dir, N_("Continue the session in DIR (its kernel is rebuilt by replaying its successful cells)"), "DIR" },
    { "requery", 0, 0, G_OPTION_ARG_NONE, &requery, N_("With --resume: ask the session's queries again of their databases (--db, else where it queried them) instead of loading its cached results"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON object at the end (answer, status, steps, session_dir, provenance, cells)"), NULL },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_name, N_("Sandbox backend: docker, bwrap or e2b (default: docker when usable)"), "NAME" },
    { "runs-on", 0, 0, G_OPTION_ARG_STRING, &runs_on, N_("Where the code runs: sandbox (default, on this computer after approval) or openai (OpenAI's hosted code interpreter: the datasets and the code go to OpenAI, nothing is approved)"), "WHERE" },
    { "mask", 0, 0, G_OPTION_ARG_STRING_ARRAY, &masks, N_("Never send the values of this column to the model (repeatable)"), "FILE:COLUMN" },
    { "privacy", 0, 0, G_OPTION_ARG_STRING, &privacy_name, N_("What the model sees: full, masked or schema (default: the session's, else full)"), "MODE" },
    { "budget", 0, 0, G_OPTION_ARG_DOUBLE, &budget, N_("Stop before a request would take the session's cost over USD dollars"), "USD" },
    { "db", 0, 0, G_OPTION_ARG_STRING_ARRAY, &db_specs, N_("A database the model may query read-only with run_sql (repeatable; the URL's password is never saved or printed)"), "NAME=URL" },
    { "db-tables", 0, 0, G_OPTION_ARG_STRING_ARRAY, &db_tables, N_("Show the model only these tables and views of database NAME"), "NAME=T1,T2" },
    { "db-accept-risk", 0, 0, G_OPTION_ARG_STRING_ARRAY, &db_accept_risk, N_("Let database NAME's login connect although it can do more than read"), "NAME" },
    { "db-timeout", 0, 0, G_OPTION_ARG_INT, &db_timeout, N_("The statement timeout of each query (default 120)"), "SECONDS" },
    { "db-max-rows", 0, 0, G_OPTION_ARG_INT64, &db_max_rows, N_("Refuse results with more rows (default 5,000,000)"), "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &words, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("QUESTION — ask the model; it answers by running Python in the sandbox"));
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(AssaySandboxImage) image = NULL;
  g_autoptr(AssaySandboxSpec) spec = NULL;
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(AssayKernelSession) kernel = NULL;
  g_autoptr(AssayOpenaiContainer) container = NULL;
  gboolean hosted = FALSE;
  g_autoptr(AssayAgent) agent = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GInputStream) stdin_stream = NULL;
  g_autofree char *question = NULL;
  g_autofree char *artifact_dir = NULL;
  g_autoptr(AssayMasker) masker = NULL;
  g_autoptr(AssayPriceTable) prices = NULL;
  AssayPrivacyMode mode = ASSAY_PRIVACY_FULL;
  guint n_data;
  Ask ask = { 0 };
  Wait wait = { 0 };
  guint sigint_source, sigterm_source;
  int status;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_description (context, EXIT_CODES_HELP);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "assay-cli ask: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (words == NULL || words[0] == NULL)
    {
      fprintf (stderr, _("assay-cli ask: no question given\n"));
      return EXIT_USAGE;
    }
  question = g_strjoinv (" ", words);
  if (max_steps < 1)
    {
      fprintf (stderr, _("assay-cli ask: --max-steps must be at least 1\n"));
      return EXIT_USAGE;
    }
  if (privacy_name != NULL && !assay_privacy_mode_from_string (privacy_name, &mode))
    {
      fprintf (stderr, _("assay-cli ask: --privacy is full, masked or schema, not “%s”\n"), privacy_name);
      return EXIT_USAGE;
    }
  if (budget < 0 || !isfinite (budget))
    {
      fprintf (stderr, _("assay-cli ask: --budget must be a positive amount of dollars\n"));
      return EXIT_USAGE;
    }
  if (requery && resume_dir == NULL)
    {
      fprintf (stderr, _("assay-cli ask: --requery asks a resumed session's queries again; give --resume DIR\n"));
      return EXIT_USAGE;
    }
  if (runs_on != NULL && !g_str_equal (runs_on, "sandbox") && !g_str_equal (runs_on, "openai"))
    {
      assay_cli_print (stderr, _("assay-cli ask: --runs-on is sandbox or openai, not “%s”\n"), runs_on);
      return EXIT_USAGE;
    }
  hosted = runs_on != NULL && g_str_equal (runs_on, "openai");
  if (hosted && (backend_name != NULL || db_specs != NULL || masks != NULL || requery ||
                 (privacy_name != NULL && !g_str_equal (privacy_name, "full"))))
    {
      fprintf (stderr, _("assay-cli ask: --runs-on openai sends the datasets whole to OpenAI: it cannot be combined "
                         "with --backend, --db, --mask, --privacy or --requery\n"));
      return EXIT_USAGE;
    }
  if (resume_dir != NULL && out_dir != NULL)
    {
      fprintf (stderr, _("assay-cli ask: --resume writes to the session it resumes; drop --out\n"));
      return EXIT_USAGE;
    }
  for (guint i = 0; data_files != NULL && data_files[i] != NULL; i++)
    if (!g_file_test (data_files[i], G_FILE_TEST_IS_REGULAR))
      {
        fprintf (stderr, _("assay-cli ask: “%s” is not a readable file\n"), data_files[i]);
        return EXIT_USAGE;
      }

  sources = assay_cli_db_make_sources (db_specs, db_tables, db_timeout, db_max_rows, &error);
  if (sources == NULL || !assay_cli_db_accept_risk (sources, db_accept_risk, &error))
    {
      assay_cli_print (stderr, "assay-cli ask: %s\n", error->message);
      return EXIT_USAGE;
    }

  /* The session folder first: nothing is worth running if it cannot be written. */
  if (resume_dir != NULL)
    session = assay_session_load (resume_dir, &error);
  else if (out_dir != NULL)
    session = assay_session_new (out_dir, &error);
  else
    session = assay_session_create (NULL, &error);
  if (session == NULL)
    {
      fprintf (stderr, "assay-cli ask: %s\n", error->message);
      return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS) ? EXIT_USAGE : EXIT_FAILURE_OTHER;
    }
  for (guint i = 0; i < assay_session_get_datasets (session)->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (assay_session_get_datasets (session), i);

      if (dataset->changed)
        assay_cli_print (stderr, _("Warning: %s changed on disk since it was added to the session: "
                                   "earlier results may not match it.\n"), dataset->name);
    }

  if (provider_name == NULL)
    provider_name = g_strdup (resume_dir && assay_session_get_provider (session)
                              ? assay_session_get_provider (session) : "openai");
  if (model == NULL && resume_dir != NULL && assay_session_get_model (session) != NULL)
    model = g_strdup (assay_session_get_model (session));
  provider = assay_cli_ask_make_provider (provider_name, base_url, api, transcript, &error);
  if (provider == NULL)
    {
      fprintf (stderr, "assay-cli ask: %s\n", error->message);
      return error->domain == G_OPTION_ERROR ? EXIT_USAGE : EXIT_MODEL;
    }

  if (hosted)
    {
      const char *key = g_getenv ("OPENAI_API_KEY");

      if (!g_str_equal (provider_name, "openai") ||
          g_strcmp0 (assay_llm_provider_get_wire_format (provider), "responses") != 0)
        {
          fprintf (stderr, _("assay-cli ask: --runs-on openai needs OpenAI's Responses API (--provider openai, "
                             "--api responses), whose code_interpreter tool runs the code\n"));
          return EXIT_USAGE;
        }
      if (key == NULL || *key == '\0')
        key = g_getenv ("ASSAY_API_KEY");
      container = assay_openai_container_new (assay_llm_provider_get_base_url (provider), key);
      agent = assay_agent_new_hosted (provider, container, session);
    }
  else
    {
      spec = assay_sandbox_spec_new ();
      image = assay_sandbox_image_new (NULL);
      backend = assay_cli_choose_backend (backend_name, image, spec, &error);
      if (backend == NULL)
        {
          fprintf (stderr, "assay-cli ask: %s\n", error->message);
          return EXIT_SANDBOX;
        }
      assay_sandbox_backend_remove_leftovers (backend, NULL);
      artifact_dir = assay_session_get_artifact_dir (session);
      kernel = assay_kernel_session_new (backend, spec, artifact_dir);

      agent = assay_agent_new (provider, kernel, session);
    }
  if (model != NULL)
    assay_agent_set_model (agent, model);
  assay_agent_set_requery (agent, requery);
  assay_agent_set_max_steps (agent, (guint) max_steps);
  assay_agent_set_check_numbers (agent, !no_check);
  assay_agent_set_approval_policy (agent, yes ? ASSAY_APPROVAL_POLICY_AUTO : ASSAY_APPROVAL_POLICY_ASK);

  /* What the model may see: the session's mode unless asked for another; a session that
   * has sent values already cannot be made schema-only (its record holds them). */
  if (privacy_name == NULL)
    mode = assay_session_get_privacy_mode (session);
  if (mode == ASSAY_PRIVACY_FULL && masks != NULL && privacy_name == NULL)
    mode = ASSAY_PRIVACY_MASKED;
  if (mode == ASSAY_PRIVACY_SCHEMA && assay_session_get_privacy_mode (session) != ASSAY_PRIVACY_SCHEMA &&
      assay_session_get_messages (session)->len > 0)
    {
      fprintf (stderr, _("assay-cli ask: this session has already sent values to the model; start a new "
                         "session for schema-only mode\n"));
      return EXIT_USAGE;
    }
  assay_session_set_privacy_mode (session, mode);

  n_data = data_files != NULL ? g_strv_length (data_files) : 0;
  for (guint i = 0; i < n_data; i++)
    {
      g_autofree char *description = assay_cli_ask_describe_dataset (data_files[i], n_data, mode);

      if (!assay_agent_add_dataset (agent, data_files[i], description, &error))
        {
          fprintf (stderr, "assay-cli ask: %s\n", error->message);
          return EXIT_USAGE;
        }
    }
  for (guint i = 0; masks != NULL && masks[i] != NULL; i++)
    {
      g_autofree char *dataset_name = NULL;
      g_autofree char *column = NULL;

      if (!assay_cli_db_parse_mask (sources, masks[i], &dataset_name, &column) &&
          !assay_cli_ask_parse_mask (session, masks[i], &dataset_name, &column))
        {
          assay_cli_print (stderr, _("assay-cli ask: --mask %s names no dataset of the session (give FILE:COLUMN, "
                                     "FILE as given to --data or as it is named under /data)\n"), masks[i]);
          return EXIT_USAGE;
        }
      assay_session_set_column_masked (session, dataset_name, column, TRUE);
    }
  /* The databases are reached before anything goes to the model: a wrong password stops here. */
  if (resume_dir != NULL)
    assay_cli_db_apply_recorded_risk (sources, session);
  if (requery && !assay_cli_db_add_recorded (sources, session, db_timeout, db_max_rows, &error))
    {
      assay_cli_print (stderr, "assay-cli ask: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (!assay_cli_db_connect (sources, &error))
    {
      assay_cli_print (stderr, "assay-cli ask: %s\n", error->message);
      return assay_cli_db_exit_code (error);
    }
  if (assay_session_get_masked_columns (session)->len > 0)
    {
      GPtrArray *masked = assay_session_get_masked_columns (session);
      g_autoptr(GString) names = g_string_new (NULL);

      masker = assay_cli_ask_make_masker (session, sources, &error);
      if (masker == NULL)
        {
          assay_cli_print (stderr, "assay-cli ask: %s\n", error->message);
          return EXIT_USAGE;
        }
      for (guint i = 0; i < masked->len; i++)
        {
          const AssaySessionMask *mask = g_ptr_array_index (masked, i);

          g_string_append_printf (names, "%s%s:%s", i > 0 ? ", " : "", mask->dataset, mask->column);
        }
      if (mode != ASSAY_PRIVACY_FULL)
        {
          assay_agent_set_masker (agent, masker);
          if (mode == ASSAY_PRIVACY_MASKED)
            assay_cli_ask_describe_masked (agent, session, masker, n_data);
          assay_cli_print (stderr, g_dngettext (GETTEXT_PACKAGE,
                                                "Masked: %s (%u value never sent to the model)\n",
                                                "Masked: %s (%u values never sent to the model)\n",
                                                assay_masker_get_n_values (masker)),
                           names->str, assay_masker_get_n_values (masker));
        }
      else
        assay_cli_print (stderr, _("Warning: --privacy full sends the masked columns' values (%s) to the model\n"),
                         names->str);
      if (assay_masker_get_warning (masker) != NULL)
        assay_cli_print (stderr, _("Warning: %s\n"), assay_masker_get_warning (masker));
    }
  if (mode != ASSAY_PRIVACY_FULL)
    assay_cli_print (stderr, _("What the model sees: %s\n"), assay_privacy_mode_get_label (mode));
  for (guint i = 0; i < sources->len; i++)
    {
      AssaySource *source = g_ptr_array_index (sources, i);
      g_autofree char *description = assay_cli_db_describe (source, mode, masker, 0, &error);

      if (description == NULL)
        {
          assay_cli_print (stderr, "assay-cli ask: %s\n", error->message);
          return assay_cli_db_exit_code (error);
        }
      assay_agent_add_source (agent, source, description);
    }

  prices = assay_price_table_new_default (&error);
  if (prices == NULL)
    {
      assay_cli_print (stderr, _("Warning: the price table cannot be read: %s\n"), error->message);
      g_clear_error (&error);
    }
  assay_agent_set_prices (agent, prices);
  assay_agent_set_budget (agent, budget);

  if (!assay_session_save (session, &error))
    {
      fprintf (stderr, "assay-cli ask: %s\n", error->message);
      return EXIT_FAILURE_OTHER;
    }
  fprintf (stderr, _("Session: %s\n"), assay_session_get_dir (session));
  if (!assay_llm_provider_is_local (provider))
    {
      g_autofree char *host = assay_llm_url_dup_host (assay_llm_provider_get_base_url (provider));

      assay_cli_print (stderr, _("Sent to %s\n"), host != NULL ? host : "?");
    }

  if (hosted)
    assay_cli_print (stderr, _("Runs on OpenAI: the datasets of this session and the code the model writes go to "
                               "OpenAI and run there, in its hosted code interpreter. Nothing waits for your "
                               "approval.\n"));

  loop = g_main_loop_new (NULL, FALSE);
  wait.loop = loop;
  wait.ok = TRUE;
  if (kernel != NULL)
    {
      assay_kernel_session_start_async (kernel, cancellable, assay_cli_ask_started_cb, &wait);
      g_main_loop_run (loop);
    }
  if (!wait.ok)
    {
      assay_cli_print (stderr,
                       _("assay-cli ask: the sandbox could not be started: %s\n"),
                       wait.error->message);
      g_clear_error (&wait.error);
      assay_kernel_session_close (kernel);
      return EXIT_SANDBOX;
    }

  ask.loop = loop;
  ask.agent = agent;
  ask.cancellable = cancellable;
  ask.turn_text = g_string_new (NULL);
  ask.interactive = isatty (STDIN_FILENO);
  stdin_stream = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  ask.input = g_data_input_stream_new (stdin_stream);

  g_signal_connect (agent, "step", G_CALLBACK (assay_cli_ask_step_cb), &ask);
  g_signal_connect (agent, "text-delta", G_CALLBACK (assay_cli_ask_text_delta_cb), &ask);
  g_signal_connect (agent, "retrying", G_CALLBACK (assay_cli_ask_retrying_cb), &ask);
  g_signal_connect (agent, "restoring", G_CALLBACK (assay_cli_ask_restoring_cb), &ask);
  g_signal_connect (agent, "requeried", G_CALLBACK (assay_cli_ask_requeried_cb), &ask);
  g_signal_connect (agent, "checking", G_CALLBACK (assay_cli_ask_checking_cb), &ask);
  g_signal_connect (agent, "approval-needed", G_CALLBACK (assay_cli_ask_approval_cb), &ask);
  g_signal_connect (agent, "cell-started", G_CALLBACK (assay_cli_ask_cell_started_cb), &ask);
  g_signal_connect (agent, "output", G_CALLBACK (assay_cli_ask_output_cb), &ask);
  g_signal_connect (agent, "artifact-added", G_CALLBACK (assay_cli_ask_artifact_cb), &ask);
  g_signal_connect (agent, "cell-finished", G_CALLBACK (assay_cli_ask_cell_finished_cb), &ask);
  g_signal_connect (agent, "error", G_CALLBACK (assay_cli_ask_error_cb), &ask);
  sigint_source = g_unix_signal_add (SIGINT, assay_cli_ask_interrupted_cb, &ask);
  sigterm_source = g_unix_signal_add (SIGTERM, assay_cli_ask_interrupted_cb, &ask);

  assay_agent_ask_async (agent, question, cancellable, assay_cli_ask_asked_cb, &ask);
  g_main_loop_run (loop);

  g_source_remove (sigint_source);
  g_source_remove (sigterm_source);
  g_signal_handlers_disconnect_by_data (agent, &ask);
  if (kernel != NULL)
    assay_cli_ask_close_kernel (kernel, session);
  if (container != NULL)
    {
      /* The session ends with this command: its container goes (a --resume makes another). */
      g_autoptr(GError) delete_error = NULL;

      if (!assay_openai_container_delete (container, NULL, &delete_error))
        assay_cli_print (stderr, _("Warning: OpenAI's container was not removed (it expires by itself after "
                                   "%u minutes): %s\n"), ASSAY_OPENAI_CONTAINER_MINUTES, delete_error->message);
    }

  status = assay_cli_ask_exit_code (ask.outcome);
  if (json)
    {
      g_autoptr(JsonNode) node = assay_cli_ask_result_json (&ask, session);
      g_autofree char *text = json_to_string (node, FALSE);

      printf ("%s\n", text);
    }
  else if (ask.outcome == ASSAY_AGENT_ANSWERED)
    assay_cli_print (stdout, "%s\n", ask.text);
  if (ask.outcome == ASSAY_AGENT_ANSWERED && assay_cli_ask_answer_provenance (session) != NULL)
    {
      g_autofree char *untraced = assay_provenance_dup_untraced (assay_cli_ask_answer_provenance (session));

      if (untraced != NULL)
        assay_cli_print (stderr, _("Not found in any output: %s\n"), untraced);
    }
  {
    gint64 tokens_in = 0, tokens_out = 0;
    guint unpriced = 0;
    double cost = assay_session_get_cost (session, &tokens_in, &tokens_out, &unpriced);
    g_autofree char *cost_text = assay_price_format_cost (unpriced > 0 && cost == 0 ? -1 : cost);

    g_autofree char *in_text = g_strdup_printf ("%" G_GINT64_FORMAT, tokens_in);
    g_autofree char *out_text = g_strdup_printf ("%" G_GINT64_FORMAT, tokens_out);

    if (assay_session_get_requests (session)->len > 0)
      assay_cli_print (stderr, _("Tokens: %s in, %s out; cost %s%s\n"),
                       in_text, out_text, cost_text,
                       unpriced > 0 && cost > 0 ? _(" (some requests have no known price)") : "");
  }
  /* Provider and sandbox failures were said already, through ::error. */
  if (ask.outcome != ASSAY_AGENT_ANSWERED && ask.outcome != ASSAY_AGENT_MODEL_ERROR &&
      ask.outcome != ASSAY_AGENT_SANDBOX_ERROR)
    assay_cli_print (stderr, "assay-cli ask: %s\n", ask.text);
  fflush (stdout);

  g_string_free (ask.turn_text, TRUE);
  g_clear_object (&ask.input);
  g_free (ask.waiting_cell);
  g_free (ask.waiting_code);
  g_free (ask.text);
  return status;
}
