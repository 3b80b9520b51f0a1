/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `assay-cli session`: list, show, rename and delete saved sessions. */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <unistd.h>

#include <glib/gi18n.h>

#include <stdio.h>
#include <string.h>

#include "assay-cli.h"
#include "assay-approval.h"
#include "assay-session.h"
#include "assay-prices.h"
#include "assay-session-outline.h"

static void
assay_cli_session_usage (FILE *out)
{
  fprintf (out,
           _("Usage:\n"
           "  assay-cli session list [--json] [DIR]        the sessions under DIR (default: %s)\n"
           "  assay-cli session show [--json] SESSION_DIR  the record, as restored from disk\n"
           "  assay-cli session rename SESSION_DIR TITLE\n"
           "  assay-cli session delete SESSION_DIR\n"
           "  assay-cli session requests [--json] SESSION_DIR  what was sent to the model, request by request\n"
           "  assay-cli session request SESSION_DIR N       the body of request N, exactly as it was sent\n"
           "  assay-cli session approve [--yes] SESSION_DIR [CELL…]  shows each cell whose code is not sealed as\n"
           "                                                approved here (named, or all) and asks to approve it\n"
           "\n"
           "Exit status: 0 done, 1 the session cannot be read or changed, 2 usage.\n"),
           "~/.local/share/assay/sessions");
}

static void
assay_cli_session_print_json (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  assay_cli_print (stdout, "%s\n", text);
}

static char *
assay_cli_session_format_time (gint64 usec)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);

  return time ? g_date_time_format (time, "%Y-%m-%d %H:%M") : g_strdup ("?");
}

static int
assay_cli_session_list (int   argc,
                        char *argv[],
                        gboolean json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = NULL;

  if (argc > 1)
    {
      assay_cli_session_usage (stderr);
      return 2;
    }
  sessions = assay_session_list (argc == 1 ? argv[0] : NULL, &error);
  if (sessions == NULL)
    {
      assay_cli_print (stderr, "assay-cli session list: %s\n", error->message);
      return 1;
    }

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) node = NULL;

      for (guint i = 0; i < sessions->len; i++)
        {
          AssaySession *session = g_ptr_array_index (sessions, i);
          JsonObject *item = json_object_new ();

          json_object_set_string_member (item, "id", assay_session_get_id (session));
          json_object_set_string_member (item, "dir", assay_session_get_dir (session));
          if (assay_session_get_title (session))
            json_object_set_string_member (item, "title", assay_session_get_title (session));
          else
            json_object_set_null_member (item, "title");
          json_object_set_string_member (item, "status", assay_session_get_status (session));
          json_object_set_int_member (item, "steps", assay_session_get_n_steps (session));
          json_object_set_int_member (item, "cells", assay_session_get_n_cells (session));
          json_object_set_int_member (item, "created_at", assay_session_get_created (session));
          json_object_set_int_member (item, "updated_at", assay_session_get_updated (session));
          json_array_add_object_element (array, item);
        }
      node = json_node_init_array (json_node_alloc (), array);
      assay_cli_session_print_json (node);
      return 0;
    }

  for (guint i = 0; i < sessions->len; i++)
    {
      AssaySession *session = g_ptr_array_index (sessions, i);
      g_autofree char *updated = assay_cli_session_format_time (assay_session_get_updated (session));

      /* Translators: the time, the status, the number of steps, the title, then the folder. */
      assay_cli_print (stdout, ngettext ("%s  %-12s %2u step   %s\n    %s\n", "%s  %-12s %2u steps  %s\n    %s\n",
                        assay_session_get_n_steps (session)),
              updated, assay_session_get_status (session),
              assay_session_get_n_steps (session),
              assay_session_get_title (session) ? assay_session_get_title (session) : _("(untitled)"),
              assay_session_get_dir (session));
    }
  if (sessions->len == 0)
    fprintf (stderr, _("No sessions.\n"));
  return 0;
}

static void
assay_cli_session_print_cell (AssaySession     *session,
                              AssaySessionCell *cell)
{
  g_auto(GStrv) lines = g_strsplit (cell->code ? cell->code : cell->proposed_code ? cell->proposed_code : "", "\n", -1);

  assay_cli_print (stdout, _("── cell %s (step %u): %s, %s"), cell->id, cell->step, assay_cell_status_to_string (cell->status),
          assay_decision_to_string (cell->decision));
  if (cell->reason)
    assay_cli_print (stdout, " — %s", cell->reason);
  assay_cli_print (stdout, "\n");
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i + 1] != NULL || *lines[i] != '\0')
      assay_cli_print (stdout, "  │ %s\n", lines[i]);
  if (cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL && cell->query->rows >= 0)
    {
      g_autofree char *rows = g_strdup_printf ("%" G_GINT64_FORMAT, cell->query->rows);
      g_autofree char *ms = g_strdup_printf ("%" G_GINT64_FORMAT, cell->query->query_ms);

      /* Translators: the database, the DataFrame, rows, columns, milliseconds. */
      assay_cli_print (stdout, _("  query on %s → %s: %s rows × %u columns in %s ms\n"),
                       cell->query->database, cell->query->frame, rows,
                       json_array_get_length (cell->query->columns), ms);
    }
  {
    g_autofree char *checks = assay_cell_checks_describe (cell->checks, FALSE);

    if (checks != NULL)
      assay_cli_print (stdout, _("  checks: %s\n"), checks);
  }
  for (guint i = 0; i < cell->artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (cell->artifacts, i);
      g_autofree char *path = assay_session_resolve (session, artifact->path);

      assay_cli_print (stdout, _("  artifact: %s → %s\n"), artifact->name,
              path != NULL ? path : _("(outside the session folder, not opened)"));
    }
}

static int
assay_cli_session_show (int       argc,
                        char     *argv[],
                        gboolean  json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(AssaySessionOutline) outline = NULL;
  const char *last_answer = NULL;

  if (argc != 1)
    {
      assay_cli_session_usage (stderr);
      return 2;
    }
  session = assay_session_load (argv[0], &error);
  if (session == NULL)
    {
      assay_cli_print (stderr, "assay-cli session show: %s\n", error->message);
      return 1;
    }

  if (json)
    {
      g_autoptr(JsonNode) node = assay_session_to_json (session);
      JsonObject *object = json_node_get_object (node);

      JsonArray *datasets = json_object_get_array_member (object, "datasets");

      json_object_set_string_member (object, "dir", assay_session_get_dir (session));
      /* What load found: the copy in data/ is not what was added. */
      for (guint i = 0; i < json_array_get_length (datasets) && i < assay_session_get_datasets (session)->len; i++)
        json_object_set_boolean_member (json_array_get_object_element (datasets, i), "changed",
                                        ((AssaySessionDataset *) g_ptr_array_index (assay_session_get_datasets (session), i))->changed);
      assay_cli_session_print_json (node);
      return 0;
    }

  assay_cli_print (stdout,
                   "%s\n",
                   assay_session_get_title (session) ? assay_session_get_title (session) : _("(untitled)"));
  assay_cli_print (stdout, _("folder:   %s\n"), assay_session_get_dir (session));
  assay_cli_print (stdout, ngettext ("status:   %s after %u step\n", "status:   %s after %u steps\n", assay_session_get_n_steps (session)),
          assay_session_get_status (session), assay_session_get_n_steps (session));
  if (assay_session_get_sandbox (session) != NULL)
    assay_cli_print (stdout, _("sandbox:  %s\n"), assay_session_get_sandbox_where (session) != NULL
                                                   ? assay_session_get_sandbox_where (session)
                                                   : assay_session_get_sandbox (session));
  assay_cli_print (stdout, _("model:    %s%s%s\n"), assay_session_get_provider (session) ? assay_session_get_provider (session) : "?",
          assay_session_get_model (session) ? " " : "",
          assay_session_get_model (session) ? assay_session_get_model (session) : "");
  for (guint i = 0; i < assay_session_get_datasets (session)->len; i++)
    {
      AssaySessionDataset *dataset = g_ptr_array_index (assay_session_get_datasets (session), i);

      assay_cli_print (stdout, _("dataset:  /data/%s\n"), dataset->name);
      if (dataset->sha256 != NULL)
        {
          g_autofree char *size = g_format_size (dataset->bytes);

          if (dataset->rows >= 0)
            assay_cli_print (stdout, ngettext ("          %'lld row, %s, SHA-256 %s\n", "          %'lld rows, %s, SHA-256 %s\n",
                                               dataset->rows),
                             (long long) dataset->rows, size, dataset->sha256);
          else
            assay_cli_print (stdout, _("          %s, SHA-256 %s\n"), size, dataset->sha256);
        }
      if (dataset->changed)
        assay_cli_print (stdout, _("          changed on disk since it was added to the session: "
                                   "the results may not match it\n"));
    }
  /* A run again: where from, what it said of its data, and what changed. */
  if (assay_session_get_rerun_of (session) != NULL)
    {
      GPtrArray *notes = assay_session_get_rerun_notes (session);

      assay_cli_print (stdout, _("run again of: %s (%s)\n"),
                       assay_session_get_rerun_of_title (session) != NULL ? assay_session_get_rerun_of_title (session)
                                                                          : _("(untitled)"),
                       assay_session_get_rerun_of (session));
      for (guint i = 0; i < notes->len; i++)
        assay_cli_print (stdout, _("note:     %s\n"), (char *) g_ptr_array_index (notes, i));
      assay_cli_print_changes (assay_session_get_changes (session));
      if (assay_session_get_rewrite (session) != NULL)
        assay_cli_print (stdout, _("The summary as the model rewrote it (the answer below is the one updated "
                                   "number by number):\n%s\n"), assay_session_get_rewrite (session));
    }
  for (guint i = 0; i < assay_session_get_reruns (session)->len; i++)
    assay_cli_print (stdout, _("run again in: %s\n"), (char *) g_ptr_array_index (assay_session_get_reruns (session), i));
  /* Each question with its cells and its answer, read the way the window and the reports
   * read them. */
  outline = assay_session_outline_new (session);
  for (guint i = 0; i < outline->questions->len; i++)
    {
      const AssayOutlineQuestion *question = g_ptr_array_index (outline->questions, i);

      if (question->text != NULL)
        assay_cli_print (stdout, _("question: %s\n"), question->text);
      for (guint j = 0; j < question->steps->len; j++)
        {
          const AssayOutlineStep *step = g_ptr_array_index (question->steps, j);

          if (step->interrupted)
            assay_cli_print (stdout, _("Interrupted (in a step that never finished):\n"));
          for (guint k = 0; k < step->cells->len; k++)
            assay_cli_session_print_cell (session, g_ptr_array_index (step->cells, k));
          if (step->is_answer && step->text != NULL)
            {
              g_autofree char *untraced = step->provenance != NULL
                                          ? assay_provenance_dup_untraced (step->provenance) : NULL;

              assay_cli_print (stdout, "\n%s\n\n", step->text);
              if (untraced != NULL)
                assay_cli_print (stdout, _("Not found in any output: %s\n\n"), untraced);
              last_answer = step->text;
            }
        }
    }
  /* The outcome's words when the last question ended without a reply (stopped, failed). */
  if (assay_session_get_answer (session) != NULL &&
      g_strcmp0 (assay_session_get_answer (session), last_answer) != 0)
    assay_cli_print (stdout, "\n%s\n", assay_session_get_answer (session));
  return 0;
}

static char *
assay_cli_session_count (gint64 value)
{
  return value >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, value) : g_strdup ("—");
}

/* What was sent to the model: the list (text or JSON), or one body as sent. */
static int
assay_cli_session_requests (GPtrArray *rest,
                            gboolean   json,
                            gboolean   one)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = NULL;
  GPtrArray *requests;
  guint64 number = 0;

  if (rest->len != (one ? 2u : 1u) ||
      (one && !g_ascii_string_to_unsigned (g_ptr_array_index (rest, 1), 10, 1, G_MAXUINT, &number, NULL)))
    {
      assay_cli_session_usage (stderr);
      return 2;
    }
  session = assay_session_load (g_ptr_array_index (rest, 0), &error);
  if (session == NULL)
    {
      assay_cli_print (stderr, "assay-cli session: %s\n", error->message);
      return 1;
    }
  requests = assay_session_get_requests (session);

  if (one)
    {
      g_autoptr(GBytes) body = NULL;

      if (number > requests->len)
        {
          fprintf (stderr, _("assay-cli session request: the session has %u requests\n"), requests->len);
          return 1;
        }
      body = assay_session_read_request_body (session, g_ptr_array_index (requests, number - 1), &error);
      if (body == NULL)
        {
          assay_cli_print (stderr, "assay-cli session request: %s\n", error->message);
          return 1;
        }
      /* As sent, byte for byte, into a pipe or a file; on a terminal without the controls its
       * strings may hold (the model's and the data's text). */
      if (isatty (fileno (stdout)))
        {
          g_autofree char *text = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));

          assay_cli_print (stdout, "%s\n", text);
        }
      else
        {
          fwrite (g_bytes_get_data (body, NULL), 1, g_bytes_get_size (body), stdout);
          fputc ('\n', stdout);
        }
      return 0;
    }

  if (json)
    {
      g_autoptr(JsonNode) node = assay_session_to_json (session);
      JsonNode *array = json_object_dup_member (json_node_get_object (node), "requests");

      assay_cli_session_print_json (array);
      json_node_unref (array);
      return 0;
    }

  assay_cli_print (stdout, "%-4s %-5s %-24s %-22s %10s %10s %9s %9s %9s %9s %9s %-7s\n", "#", _("step"), _("host"),
                   _("model"), _("bytes out"), _("bytes in"), _("input"), _("cached"), _("output"), _("reasoning"),
                   _("cost"), _("mode"));
  for (guint i = 0; i < requests->len; i++)
    {
      const AssaySessionRequest *request = g_ptr_array_index (requests, i);
      g_autofree char *in = assay_cli_session_count (request->bytes_in);
      g_autofree char *input = assay_cli_session_count (request->input_tokens);
      g_autofree char *cached = assay_cli_session_count (request->cached_input_tokens);
      g_autofree char *output = assay_cli_session_count (request->output_tokens);
      g_autofree char *reasoning = assay_cli_session_count (request->reasoning_tokens);
      g_autofree char *cost = assay_price_format_cost (request->cost);

      assay_cli_print (stdout, "%-4u %-5u %-24s %-22s %10" G_GINT64_FORMAT " %10s %9s %9s %9s %9s %9s %-7s%s\n",
                       request->number, request->step, request->host, request->model ? request->model : "?",
                       request->bytes_out, in, input, cached, output, reasoning, cost,
                       request->mode != NULL ? request->mode : "?",
                       request->file == NULL ? _(" (body not kept)") : "");
    }
  if (requests->len > 0)
    {
      gint64 tokens_in = 0, tokens_out = 0;
      guint unpriced = 0;
      double total = assay_session_get_cost (session, &tokens_in, &tokens_out, &unpriced);
      g_autofree char *total_text = assay_price_format_cost (unpriced == requests->len ? -1 : total);
      g_autofree char *in_text = g_strdup_printf ("%" G_GINT64_FORMAT, tokens_in);
      g_autofree char *out_text = g_strdup_printf ("%" G_GINT64_FORMAT, tokens_out);

      assay_cli_print (stdout, _("%u requests: %s tokens in, %s out, %s%s\n"),
                       requests->len, in_text, out_text, total_text,
                       unpriced > 0 && unpriced < requests->len ? _(" (some have no known price)") : "");
    }
  if (requests->len == 0)
    fprintf (stderr, _("Nothing was sent to a model server in this session.\n"));
  return 0;
}

/* The cells of a session whose code is not sealed as approved here (assay-approval.h), shown
 * and approved again on the terminal: then a run again, a resume and the window run them. */
static int
assay_cli_session_approve (GPtrArray *rest,
                           gboolean   yes)
{
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(GError) error = NULL;
  guint n_approved = 0, n_named = rest->len > 1 ? rest->len - 1 : 0;

  if (rest->len < 1)
    {
      assay_cli_session_usage (stderr);
      return 2;
    }
  session = assay_session_load (g_ptr_array_index (rest, 0), &error);
  if (session == NULL)
    {
      assay_cli_print (stderr, "assay-cli session approve: %s\n", error->message);
      return 1;
    }
  for (guint k = 1; k < rest->len; k++)
    {
      gboolean known = FALSE;

      for (guint i = 0; i < assay_session_get_n_cells (session) && !known; i++)
        known = g_strcmp0 (assay_session_get_cell (session, i)->id, g_ptr_array_index (rest, k)) == 0;
      if (!known)
        {
          assay_cli_print (stderr, _("assay-cli session approve: the session has no cell %s\n"),
                           (const char *) g_ptr_array_index (rest, k));
          return 2;
        }
    }
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);
      gboolean named = n_named == 0;
      char answer[16] = "";

      for (guint k = 1; k < rest->len && !named; k++)
        named = g_strcmp0 (cell->id, g_ptr_array_index (rest, k)) == 0;
      if (!named || !assay_session_cell_succeeded (cell) || assay_approval_check (cell))
        continue;
      if (cell->decision == ASSAY_DECISION_HOSTED)
        {
          assay_cli_print (stderr, _("Cell %s ran in OpenAI's hosted code interpreter: it is not approved here.\n"),
                           cell->id);
          continue;
        }
      assay_cli_print (stdout, _("Cell %s (%s):\n"), cell->id, cell->kind == ASSAY_CELL_KIND_SQL ? "SQL" : "Python");
      assay_cli_print (stdout, "%s\n", cell->code);
      if (!yes)
        {
          assay_cli_print (stderr, _("Approve cell %s as it is above? [y/N] "), cell->id);
          if (fgets (answer, sizeof answer, stdin) == NULL || (answer[0] != 'y' && answer[0] != 'Y'))
            {
              assay_cli_print (stderr, _("Cell %s is not approved.\n"), cell->id);
              continue;
            }
        }
      if (!assay_approval_seal (cell, &error))
        {
          assay_cli_print (stderr, "assay-cli session approve: %s\n", error->message);
          return 1;
        }
      n_approved++;
    }
  if (n_approved > 0 && !assay_session_save (session, &error))
    {
      assay_cli_print (stderr, "assay-cli session approve: %s\n", error->message);
      return 1;
    }
  assay_cli_print (stderr, g_dngettext (GETTEXT_PACKAGE, "%u cell approved.\n", "%u cells approved.\n", n_approved),
                   n_approved);
  return 0;
}

int
assay_cli_session (int   argc,
                   char *argv[])
{
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE, yes = FALSE;
  g_autoptr(GPtrArray) rest = g_ptr_array_new ();
  const char *command;

  if (argc < 2)
    {
      assay_cli_session_usage (stderr);
      return 2;
    }
  command = argv[1];
  if (g_str_equal (command, "--help") || g_str_equal (command, "-h"))
    {
      assay_cli_session_usage (stdout);
      return 0;
    }
  for (int i = 2; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--json"))
        json = TRUE;
      else if (g_str_equal (argv[i], "--yes") || g_str_equal (argv[i], "-y"))
        yes = TRUE;
      else if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h"))
        {
          assay_cli_session_usage (stdout);
          return 0;
        }
      else if (argv[i][0] == '-' && argv[i][1] != '\0')
        {
          fprintf (stderr, _("assay-cli session: unknown option “%s”\n"), argv[i]);
          return 2;
        }
      else
        g_ptr_array_add (rest, argv[i]);
    }

  if (g_str_equal (command, "list"))
    return assay_cli_session_list (rest->len, (char **) rest->pdata, json);
  if (g_str_equal (command, "show"))
    return assay_cli_session_show (rest->len, (char **) rest->pdata, json);
  if (g_str_equal (command, "rename"))
    {
      g_autoptr(AssaySession) session = NULL;

      if (rest->len != 2)
        {
          assay_cli_session_usage (stderr);
          return 2;
        }
      session = assay_session_load (g_ptr_array_index (rest, 0), &error);
      if (session == NULL || !assay_session_rename (session, g_ptr_array_index (rest, 1), &error))
        {
          assay_cli_print (stderr, "assay-cli session rename: %s\n", error->message);
          return 1;
        }
      return 0;
    }
  if (g_str_equal (command, "delete"))
    {
      if (rest->len != 1)
        {
          assay_cli_session_usage (stderr);
          return 2;
        }
      if (!assay_session_delete (g_ptr_array_index (rest, 0), &error))
        {
          assay_cli_print (stderr, "assay-cli session delete: %s\n", error->message);
          return 1;
        }
      return 0;
    }

  if (g_str_equal (command, "approve"))
    return assay_cli_session_approve (rest, yes);
  if (g_str_equal (command, "requests") || g_str_equal (command, "request"))
    return assay_cli_session_requests (rest, json, g_str_equal (command, "request"));

  fprintf (stderr, _("assay-cli session: unknown command “%s”\n"), command);
  assay_cli_session_usage (stderr);
  return 2;
}
