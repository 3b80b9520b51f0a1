/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assay-cli rerun: a session's approved cells again on new data, without a model; the
 * answers' numbers re-read, and what changed. Made to be called from cron or a timer. */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <math.h>

#include "assay-cli.h"
#include "assay-kernel-session.h"
#include "assay-diff.h"
#include "assay-report.h"
#include "assay-rerun.h"

#define EXIT_OK         0
#define EXIT_FAILURE_   1
#define EXIT_USAGE      2
#define EXIT_SANDBOX    5
#define EXIT_DATA       7
#define EXIT_CELL       8
#define EXIT_DATABASE   9
#define EXIT_REWRITE    3
#define EXIT_UNAPPROVED 10

#define USAGE_EXIT_CODES \
  "Exit codes:\n" \
  "  0  every cell ran; the new session holds the updated answers\n" \
  "  1  anything else (the session could not be read or written, nor the --report)\n" \
  "  2  usage error\n" \
  "  3  every cell ran, but the model could not rewrite the summary (--rewrite)\n" \
  "  5  the sandbox could not be started\n" \
  "  7  a new file does not match its dataset (a column is missing or its type changed)\n" \
  "  8  a cell failed on the new data (what ran before it is kept); with --repair, the model\n" \
  "     could not fix it\n" \
  "  9  a database the session queries cannot be reached or refuses the login\n" \
  " 10  a cell's code is not the code that was approved here (the record was edited, or another\n" \
  "     user approved it): nothing ran; assay-cli session approve shows it and asks\n" \
  "\n" \
  "--rewrite sends the new session's conversation (the new outputs) and its updated summary\n" \
  "to the model once, with no tool; its rewrite is kept beside the summary updated number\n" \
  "by number, which stays the answer, and printed as a diff against it.\n" \
  "--repair asks the model to fix only a cell that failed, with approval on the terminal\n" \
  "as in `ask` (--yes runs its code unasked); the session's privacy mode and masked columns\n" \
  "apply, and the requests are kept in the new session. Keys come from the environment\n" \
  "(OPENAI_API_KEY, ANTHROPIC_API_KEY or ASSAY_API_KEY).\n"

typedef struct
{
  GMainLoop        *loop;
  AssayRerunResult *result;
  GError           *error;
  AssayCliAgentSettings settings;
  char             *rewrite;
} Wait;

static void
assay_cli_rerun_rewritten_cb (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  Wait *wait = user_data;

  wait->rewrite = assay_agent_rewrite_finish (ASSAY_AGENT (source), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

/* One request: the summary rewritten from the new outputs, kept and shown as a diff. */
static gboolean
assay_cli_rerun_rewrite (Wait                *wait,
                         AssaySandboxBackend *backend,
                         AssaySandboxSpec    *spec)
{
  AssaySession *session = wait->result->session;
  const char *answer = assay_session_get_answer (session);
  g_autoptr(AssayKernelSession) idle = assay_kernel_session_new (backend, spec, NULL);
  g_autoptr(AssayAgent) agent = NULL;
  g_autofree char *instruction = NULL;
  g_autofree char *diff = NULL;
  g_autoptr(GError) error = NULL;

  if (answer == NULL || *answer == '\0')
    {
      fprintf (stderr, _("assay-cli rerun: --rewrite: the session has no summary to rewrite\n"));
      return FALSE;
    }
  /* No cell runs: the kernel is never started. */
  agent = assay_cli_make_agent (session, idle, &wait->settings, &error);
  if (agent == NULL)
    {
      assay_cli_print (stderr, _("assay-cli rerun: --rewrite: %s\n"), error->message);
      return FALSE;
    }
  instruction = assay_rerun_rewrite_instruction (answer);
  fprintf (stderr, _("Asking the model to rewrite the summary…\n"));
  assay_agent_rewrite_async (agent, instruction, NULL, assay_cli_rerun_rewritten_cb, wait);
  g_main_loop_run (wait->loop);
  if (wait->rewrite == NULL)
    {
      assay_cli_print (stderr, _("assay-cli rerun: --rewrite: %s\n"), wait->error->message);
      g_clear_error (&wait->error);
      return FALSE;
    }
  assay_session_set_rewrite (session, wait->rewrite);
  if (!assay_session_save (session, &error))
    {
      assay_cli_print (stderr, "assay-cli rerun: %s\n", error->message);
      return FALSE;
    }
  diff = assay_diff_unified (answer, wait->rewrite, _("updated number by number"), _("rewritten by the model"), 3);
  if (*diff == '\0')
    fprintf (stderr, _("The model's rewrite is the same as the updated summary.\n"));
  else
    assay_cli_print (stderr, _("The summary as the model rewrote it, against the one updated number by number "
                               "(which stays the answer):\n%s"), diff);
  return TRUE;
}

static AssayAgent *
assay_cli_rerun_make_agent_cb (AssaySession       *session,
                               AssayKernelSession *kernel,
                               gpointer            user_data)
{
  Wait *wait = user_data;
  g_autoptr(GError) error = NULL;
  AssayAgent *agent;

  fprintf (stderr, _("A cell failed on the new data: asking the model to repair it.\n"));
  agent = assay_cli_make_agent (session, kernel, &wait->settings, &error);
  if (agent == NULL)
    assay_cli_print (stderr, _("assay-cli rerun: cannot ask the model: %s\n"), error->message);
  return agent;
}

static void
assay_cli_rerun_done_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = assay_rerun_finish (result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static void
assay_cli_rerun_print_datasets (const AssayRerunResult *result)
{
  for (guint i = 0; result != NULL && i < result->datasets->len; i++)
    {
      const AssayRerunDataset *dataset = g_ptr_array_index (result->datasets, i);

      assay_cli_print (stderr, _("%s: %'lld rows before, %'lld now\n"), dataset->name,
                       (long long) dataset->old_rows, (long long) dataset->new_rows);
      for (guint j = 0; j < dataset->missing->len; j++)
        assay_cli_print (stderr, _("  missing column: %s\n"), (char *) g_ptr_array_index (dataset->missing, j));
      for (guint j = 0; j < dataset->retyped->len; j++)
        assay_cli_print (stderr, _("  column type changed: %s\n"), (char *) g_ptr_array_index (dataset->retyped, j));
      for (guint j = 0; j < dataset->added->len; j++)
        assay_cli_print (stderr, _("  new column (not used): %s\n"), (char *) g_ptr_array_index (dataset->added, j));
      for (guint j = 0; j < dataset->notes->len; j++)
        assay_cli_print (stderr, dataset->incompatible ? _("  cannot be read the same way: %s\n")
                                                       : _("  converted to the old file's format: %s\n"),
                         (char *) g_ptr_array_index (dataset->notes, j));
    }
}

/* TEXT and spaces to WIDTH characters (not bytes: "−" is three). */
static void
assay_cli_rerun_pad (GString    *line,
                     const char *text,
                     guint       width)
{
  glong length = g_utf8_strlen (text, -1);

  g_string_append (line, text);
  for (glong i = length; i < (glong) width; i++)
    g_string_append_c (line, ' ');
  g_string_append_c (line, ' ');
}

void
assay_cli_print_changes (GPtrArray *changes)
{
  g_autoptr(GString) line = g_string_new (NULL);

  if (changes->len == 0)
    return;
  assay_cli_print (stdout, _("What changed:\n"));
  g_string_append (line, "  ");
  assay_cli_rerun_pad (line, "Q", 3);
  assay_cli_rerun_pad (line, _("before"), 18);
  assay_cli_rerun_pad (line, _("after"), 18);
  assay_cli_rerun_pad (line, _("change"), 14);
  assay_cli_rerun_pad (line, "%", 10);
  assay_cli_rerun_pad (line, _("cell"), 6);
  g_string_append (line, _("number"));
  assay_cli_print (stdout, "%s\n", line->str);
  for (guint i = 0; i < changes->len; i++)
    {
      const AssayRerunChange *change = g_ptr_array_index (changes, i);
      g_autofree char *question = g_strdup_printf ("%u", change->question);
      g_autofree char *delta = assay_rerun_format_delta (change);
      g_autofree char *percent = assay_rerun_format_percent (change);

      g_string_assign (line, "  ");
      assay_cli_rerun_pad (line, question, 3);
      assay_cli_rerun_pad (line, change->before_text, 18);
      if (change->stale)
        assay_cli_rerun_pad (line, _("(not found again)"), 18 + 14 + 10 + 2);
      else
        {
          assay_cli_rerun_pad (line, change->after_text, 18);
          assay_cli_rerun_pad (line, delta, 14);
          assay_cli_rerun_pad (line, percent, 10);
        }
      assay_cli_rerun_pad (line, change->cell_id != NULL ? change->cell_id : "", 6);
      if (change->label != NULL)
        g_string_append (line, change->label);
      assay_cli_print (stdout, "%s\n", line->str);
    }
}

static JsonNode *
assay_cli_rerun_json (const AssayRerunResult *result)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "session_dir");
  if (result->session != NULL)
    json_builder_add_string_value (builder, assay_session_get_dir (result->session));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "cells");
  json_builder_add_int_value (builder, result->n_cells);
  json_builder_set_member_name (builder, "rewrite");
  if (result->session != NULL && assay_session_get_rewrite (result->session) != NULL)
    json_builder_add_string_value (builder, assay_session_get_rewrite (result->session));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "repaired");
  json_builder_begin_array (builder);
  for (guint i = 0; i < result->repaired->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (result->repaired, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "failed_cell");
  if (result->failed_cell != NULL)
    json_builder_add_string_value (builder, result->failed_cell);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "datasets");
  json_builder_begin_array (builder);
  for (guint i = 0; i < result->datasets->len; i++)
    {
      const AssayRerunDataset *dataset = g_ptr_array_index (result->datasets, i);
      GPtrArray *lists[] = { dataset->missing, dataset->retyped, dataset->added, dataset->notes };
      const char *names[] = { "missing", "retyped", "added", "notes" };

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, dataset->name);
      json_builder_set_member_name (builder, "old_rows");
      json_builder_add_int_value (builder, dataset->old_rows);
      json_builder_set_member_name (builder, "new_rows");
      json_builder_add_int_value (builder, dataset->new_rows);
      json_builder_set_member_name (builder, "converted");
      json_builder_add_boolean_value (builder, dataset->convert && assay_rerun_dataset_matches (dataset));
      for (gsize l = 0; l < G_N_ELEMENTS (lists); l++)
        {
          json_builder_set_member_name (builder, names[l]);
          json_builder_begin_array (builder);
          for (guint j = 0; j < lists[l]->len; j++)
            json_builder_add_string_value (builder, g_ptr_array_index (lists[l], j));
          json_builder_end_array (builder);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "changes");
  json_builder_begin_array (builder);
  for (guint i = 0; i < result->changes->len; i++)
    {
      const AssayRerunChange *change = g_ptr_array_index (result->changes, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "question");
      json_builder_add_int_value (builder, change->question);
      json_builder_set_member_name (builder, "cell");
      json_builder_add_string_value (builder, change->cell_id);
      json_builder_set_member_name (builder, "before_text");
      json_builder_add_string_value (builder, change->before_text);
      json_builder_set_member_name (builder, "after_text");
      json_builder_add_string_value (builder, change->after_text);
      json_builder_set_member_name (builder, "before");
      json_builder_add_double_value (builder, change->before);
      json_builder_set_member_name (builder, "after");
      json_builder_add_double_value (builder, change->after);
      json_builder_set_member_name (builder, "stale");
      json_builder_add_boolean_value (builder, change->stale);
      json_builder_set_member_name (builder, "label");
      if (change->label != NULL)
        json_builder_add_string_value (builder, change->label);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "sentence");
      if (change->sentence != NULL)
        json_builder_add_string_value (builder, change->sentence);
      else
        json_builder_add_null_value (builder);
      {
        g_autofree char *delta = assay_rerun_format_delta (change);
        g_autofree char *percent = assay_rerun_format_percent (change);

        json_builder_set_member_name (builder, "change");
        json_builder_add_string_value (builder, delta);
        json_builder_set_member_name (builder, "change_percent");
        json_builder_add_string_value (builder, percent);
      }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "notes");
  json_builder_begin_array (builder);
  for (guint i = 0; result->session != NULL && i < assay_session_get_rerun_notes (result->session)->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (assay_session_get_rerun_notes (result->session), i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

int
assay_cli_rerun (int    argc,
                 char **argv)
{
  g_autofree char *out_dir = NULL;
  g_autofree char *backend_name = NULL;
  g_auto(GStrv) data = NULL;
  g_auto(GStrv) rest = NULL;
  gboolean json = FALSE, repair = FALSE, yes = FALSE, rewrite = FALSE;
  g_autofree char *report = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *model = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *api = NULL;
  g_autofree char *transcript = NULL;
  g_auto(GStrv) db_specs = NULL;
  g_auto(GStrv) db_accept_risk = NULL;
  g_autoptr(GPtrArray) sources = NULL;
  int db_timeout = 0;
  gint64 db_max_rows = 0;
  GOptionEntry entries[] = {
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report,
      N_("When every cell ran, export the new session to FILE (.pdf, .html, .ipynb or .xlsx)"), "FILE" },
    { "rewrite", 0, 0, G_OPTION_ARG_NONE, &rewrite,
      N_("Then ask the model (one request, no code) to rewrite the summary from the new outputs; shown as a diff"), NULL },
    { "repair", 0, 0, G_OPTION_ARG_NONE, &repair, N_("When a cell fails, ask the model to fix only that cell, then go on"), NULL },
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &yes, N_("Run the repaired code without asking"), NULL },
    { "provider", 0, 0, G_OPTION_ARG_STRING, &provider, N_("For --repair: openai, anthropic or recorded (default: the session's)"), "NAME" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, N_("For --repair: the model (default: the session's)"), "MODEL" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url, N_("For --repair: an OpenAI-compatible server's address"), "URL" },
    { "api", 0, 0, G_OPTION_ARG_STRING, &api, N_("For --repair with openai: responses or chat (default: by the server)"), "NAME" },
    { "transcript", 0, 0, G_OPTION_ARG_FILENAME, &transcript, N_("For --repair with --provider recorded"), "FILE" },
    { "data", 0, 0, G_OPTION_ARG_STRING_ARRAY, &data, N_("The new file for the dataset NAME (repeatable)"), "NAME=FILE" },
    { "db", 0, 0, G_OPTION_ARG_STRING_ARRAY, &db_specs,
      N_("Query the database NAME at URL again (default: where the session queried it)"), "NAME=URL" },
    { "db-accept-risk", 0, 0, G_OPTION_ARG_STRING_ARRAY, &db_accept_risk,
      N_("Let database NAME's login connect although it can do more than read"), "NAME" },
    { "db-timeout", 0, 0, G_OPTION_ARG_INT, &db_timeout, N_("The statement timeout of each query (default 120)"), "SECONDS" },
    { "db-max-rows", 0, 0, G_OPTION_ARG_INT64, &db_max_rows, N_("Refuse results with more rows (default 5,000,000)"), "N" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out_dir, N_("Write the new session to DIR (default: beside the old one)"), "DIR" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_name, N_("Sandbox backend: docker, bwrap or e2b"), "NAME" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON object at the end (session_dir, datasets, changes)"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SESSION_DIR — run a session's approved cells again on new data, without a model"));
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) origin = NULL;
  g_autoptr(AssaySandboxImage) image = NULL;
  g_autoptr(AssaySandboxSpec) spec = NULL;
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(AssayKernelSession) kernel = NULL;
  g_autoptr(GHashTable) files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GMainLoop) loop = NULL;
  AssayReportOptions report_options;
  Wait wait = { 0 };
  int status;

  assay_report_options_init (&report_options);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_description (context, _(USAGE_EXIT_CODES));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "assay-cli rerun: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (rest == NULL || rest[0] == NULL || rest[1] != NULL)
    {
      fprintf (stderr, _("assay-cli rerun: give one session folder\n"));
      return EXIT_USAGE;
    }
  for (guint i = 0; data != NULL && data[i] != NULL; i++)
    {
      const char *equals = strchr (data[i], '=');

      if (equals == NULL || equals == data[i] || equals[1] == '\0')
        {
          fprintf (stderr, _("assay-cli rerun: --data wants NAME=FILE, not “%s”\n"), data[i]);
          return EXIT_USAGE;
        }
      g_hash_table_replace (files, g_strndup (data[i], equals - data[i]), g_strdup (equals + 1));
    }

  if (report != NULL && (report_options.format = assay_report_format_for_path (report)) == NULL)
    {
      fprintf (stderr, _("assay-cli rerun: --report: name the file .pdf, .html, .ipynb or .xlsx\n"));
      return EXIT_USAGE;
    }

  origin = assay_session_load (rest[0], &error);
  if (origin == NULL)
    {
      assay_cli_print (stderr, "assay-cli rerun: %s\n", error->message);
      return EXIT_FAILURE_;
    }
  /* Its queries are asked again: of each database given with --db, else at the address the
   * session recorded (its password, never recorded, from the environment, .pgpass or an
   * option file). Each is opened before anything runs. */
  sources = assay_cli_db_make_sources (db_specs, NULL, db_timeout, db_max_rows, &error);
  if (sources == NULL || !assay_cli_db_accept_risk (sources, db_accept_risk, &error))
    {
      assay_cli_print (stderr, "assay-cli rerun: %s\n", error->message);
      return EXIT_USAGE;
    }
  assay_cli_db_apply_recorded_risk (sources, origin);
  if (!assay_cli_db_add_recorded (sources, origin, db_timeout, db_max_rows, &error))
    {
      assay_cli_print (stderr, "assay-cli rerun: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (!assay_cli_db_connect (sources, &error))
    {
      assay_cli_print (stderr, "assay-cli rerun: %s\n", error->message);
      return EXIT_DATABASE;
    }

  spec = assay_sandbox_spec_new ();
  image = assay_sandbox_image_new (NULL);
  backend = assay_cli_choose_backend (backend_name, image, spec, &error);
  if (backend == NULL)
    {
      fprintf (stderr, "assay-cli rerun: %s\n", error->message);
      return EXIT_SANDBOX;
    }
  assay_sandbox_backend_remove_leftovers (backend, NULL);
  kernel = assay_kernel_session_new (backend, spec, NULL);

  loop = g_main_loop_new (NULL, FALSE);
  wait.loop = loop;
  wait.settings.provider = provider;
  wait.settings.model = model;
  wait.settings.base_url = base_url;
  wait.settings.api = api;
  wait.settings.transcript = transcript;
  wait.settings.yes = yes;
  wait.settings.max_steps = 4;
  assay_rerun_async_full (origin, files, sources, kernel, out_dir, NULL, NULL, NULL,
                          repair ? assay_cli_rerun_make_agent_cb : NULL, &wait,
                          NULL, assay_cli_rerun_done_cb, &wait);
  g_main_loop_run (loop);

  assay_cli_rerun_print_datasets (wait.result);
  if (wait.result != NULL && wait.result->session != NULL)
    {
      GPtrArray *notes = assay_session_get_rerun_notes (wait.result->session);

      for (guint i = 0; i < notes->len; i++)
        assay_cli_print (stderr, _("Note: %s\n"), (char *) g_ptr_array_index (notes, i));
      fprintf (stderr, _("Session: %s\n"), assay_session_get_dir (wait.result->session));
    }
  if (wait.error != NULL)
    assay_cli_print (stderr, "assay-cli rerun: %s\n", wait.error->message);

  if (g_error_matches (wait.error, ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_DATA))
    status = EXIT_DATA;
  else if (g_error_matches (wait.error, ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_CELL))
    status = EXIT_CELL;
  else if (g_error_matches (wait.error, ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_UNAPPROVED))
    status = EXIT_UNAPPROVED;
  else if (wait.error != NULL && wait.error->domain == G_IO_ERROR &&
           wait.error->code == G_IO_ERROR_INVALID_ARGUMENT)
    status = EXIT_USAGE;
  else if (wait.error != NULL && wait.result == NULL)
    status = EXIT_SANDBOX;
  else
    status = wait.error != NULL ? EXIT_FAILURE_ : EXIT_OK;

  if (rewrite && status == EXIT_OK && !assay_cli_rerun_rewrite (&wait, backend, spec))
    status = EXIT_REWRITE;
  if (report != NULL && status == EXIT_OK)
    {
      if (assay_report_export (wait.result->session, &report_options, report, NULL, NULL, NULL, &error))
        fprintf (stderr, _("Report: %s\n"), report);
      else
        {
          assay_cli_print (stderr, "assay-cli rerun: %s\n", error->message);
          status = EXIT_FAILURE_;
        }
    }
  if (wait.result != NULL)
    {
      if (json)
        {
          g_autoptr(JsonNode) node = assay_cli_rerun_json (wait.result);
          g_autofree char *text = json_to_string (node, FALSE);

          printf ("%s\n", text);
        }
      else
        assay_cli_print_changes (wait.result->changes);
    }
  g_clear_error (&wait.error);
  g_clear_pointer (&wait.result, assay_rerun_result_free);
  g_free (wait.rewrite);
  return status;
}
