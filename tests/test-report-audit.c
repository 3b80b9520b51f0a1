/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What an analyst signing off on a report reads: the audit trail (every proposed cell, in
 * order: run as proposed, run without asking, edited with what changed, rejected with the
 * reason, never decided, with the times) in the PDF (read back with poppler), the HTML, the
 * notebook and the workbook (read back with openpyxl); a rejected cell said where it was
 * proposed; a cell's printed lines one block however many pieces the record keeps them in;
 * a figure not named again as text. */
#include "config.h"

#include <glib/gstdio.h>
#include <poppler.h>
#include <string.h>

#include "assay-json.h"
#include "assay-report.h"
#include "assay-session.h"

#define AT(seconds) (G_GINT64_CONSTANT (1719835200000000) + (gint64) (seconds) * G_USEC_PER_SEC) /* 2024-07-01 12:00:00 UTC */
#define REASON      "Use the cleaned file, not the raw one"
/* A 1 × 1 PNG. */
#define PNG_BASE64  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

static char *tmpdir;

static void
add_stream (AssaySessionCell *cell,
            const char       *name,
            const char       *text)
{
  JsonObject *output = json_object_new ();

  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", name);
  json_object_set_string_member (output, "text", text);
  json_array_add_object_element (cell->outputs, output);
}

static void
add_figure (AssaySessionCell *cell)
{
  JsonObject *output = json_object_new ();
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "text/plain", "<Figure size 640x480 with 1 Axes>");
  json_object_set_string_member (data, "image/png", PNG_BASE64);
  json_object_set_string_member (output, "output_type", "display_data");
  json_object_set_object_member (output, "data", data);
  json_object_set_object_member (output, "metadata", json_object_new ());
  json_array_add_object_element (cell->outputs, output);
}

static AssayLlmMessage *
reply (AssaySession *session,
       const char   *text,
       const char   *call_1,
       const char   *call_2)
{
  AssayLlmMessage *message = assay_llm_message_new_assistant (text);

  if (call_1 != NULL)
    g_ptr_array_add (message->tool_calls, assay_llm_tool_call_new (call_1, "execute_python", "{}"));
  if (call_2 != NULL)
    g_ptr_array_add (message->tool_calls, assay_llm_tool_call_new (call_2, "execute_python", "{}"));
  assay_session_append_message (session, message);
  return message;
}

static AssaySessionCell *
propose (AssaySession  *session,
         const char    *id,
         guint          step,
         const char    *call_id,
         const char    *description,
         const char    *code,
         AssayDecision  decision,
         guint          at)
{
  AssaySessionCell *cell = assay_session_add_cell (session, assay_session_cell_new (id, step, call_id,
                                                                                    description, code));

  cell->decision = decision;
  cell->proposed_at = AT (at);
  return cell;
}

static void
ran (AssaySession     *session,
     AssaySessionCell *cell,
     const char       *code,
     guint             at)
{
  cell->code = g_strdup (code);
  cell->started_at = AT (at);
  cell->finished_at = AT (at + 1);
  cell->status = ASSAY_CELL_OK;
  cell->elapsed_ms = 20;
  assay_session_append_message (session, assay_llm_message_new_tool (cell->call_id, "Status: ok", FALSE));
}

/* Question 1: step 1 proposes two cells, c1 (approved; its printed lines kept in pieces, as
 * an older record has them, and a figure) and c2 (rejected); step 2 an edited one (c3),
 * step 3 one run without asking (c4), then the answer. Question 2: a cell never decided,
 * in the step Assay was closed in. Saved and read back. */
static char *
write_session (void)
{
  static guint n_written;
  g_autofree char *name = g_strdup_printf ("audit-%u", ++n_written);
  g_autofree char *dir = g_build_filename (tmpdir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  AssaySessionCell *cell;

  g_assert_no_error (error);
  assay_session_set_title (session, "Audited");
  assay_session_append_message (session, assay_llm_message_new_user ("What is the total?"));
  assay_session_finish_question (session);

  reply (session, "Looking at the file first.", "call_1", "call_2");
  cell = propose (session, "c1", 1, "call_1", "Print the rows", "for i in range(5):\n    print('line', i + 1)\n",
                  ASSAY_DECISION_APPROVED, 1);
  ran (session, cell, cell->proposed_code, 2);
  for (guint i = 1; i <= 5; i++)
    {
      g_autofree char *line = g_strdup_printf ("line %u\n", i);

      add_stream (cell, "stdout", line);
    }
  add_stream (cell, "stderr", "a warning\n");
  add_figure (cell);
  cell = propose (session, "c2", 1, "call_2", "Read the raw file", "df = pd.read_csv('/data/raw.csv')\n",
                  ASSAY_DECISION_REJECTED, 3);
  cell->status = ASSAY_CELL_REJECTED;
  cell->reason = g_strdup (REASON);
  cell->finished_at = AT (10);
  assay_session_append_message (session, assay_llm_message_new_tool ("call_2", "The analyst rejected this cell", TRUE));
  assay_session_finish_step (session);

  reply (session, "Now the total.", "call_3", NULL);
  cell = propose (session, "c3", 2, "call_3", "Sum", "total = 41.987\nprint(total)\n", ASSAY_DECISION_EDITED, 20);
  ran (session, cell, "total = 41.987\nprint(round(total, 2))\n", 30);
  add_stream (cell, "stdout", "41.99\n");
  assay_session_finish_step (session);

  reply (session, "A last look.", "call_4", NULL);
  cell = propose (session, "c4", 3, "call_4", "Count", "print(5)\n", ASSAY_DECISION_AUTO, 40);
  ran (session, cell, cell->proposed_code, 40);
  add_stream (cell, "stdout", "5\n");
  assay_session_finish_step (session);
  reply (session, "The total is 41.99.", NULL, NULL);
  assay_session_finish_step (session);

  assay_session_append_message (session, assay_llm_message_new_user ("And by region?"));
  assay_session_finish_question (session);
  reply (session, "Grouping.", "call_5", NULL);
  cell = propose (session, "c5", 5, "call_5", "Group", "print('grouped')\n", ASSAY_DECISION_PENDING, 50);
  cell->status = ASSAY_CELL_PROPOSED;
  assay_session_set_outcome (session, "answered", "The total is 41.99.");
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&dir);
}

static char *
export (AssaySession      *session,
        const AssayReportFormat *format,
        gboolean           include_code,
        gboolean           only_successful)
{
  g_autofree char *path = g_strdup_printf ("%s/report-%d-%d.%s", tmpdir, include_code, only_successful,
                                           assay_report_format_get_name (format));
  g_autoptr(GError) error = NULL;
  AssayReportOptions options;

  assay_report_options_init (&options);
  options.format = format;
  options.include_code = include_code;
  options.only_successful = only_successful;
  g_assert_true (assay_report_export (session, &options, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static char *
read_text (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* Each of NEEDLES in TEXT, in this order. */
static void
assert_in_order (const char        *what,
                 const char        *text,
                 const char *const *needles)
{
  const char *at = text;

  for (guint i = 0; needles[i] != NULL; i++)
    {
      const char *found = strstr (at, needles[i]);

      if (found == NULL)
        g_error ("%s: “%s” is missing after “%s”", what, needles[i], i > 0 ? needles[i - 1] : "the start");
      at = found + strlen (needles[i]);
    }
}

static guint
count (const char *text,
       const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* ---- PDF --------------------------------------------------------------------------------- */

/* All pages' text with every run of white space one space (lines wrap where they will). */
static char *
pdf_text (PopplerDocument *document)
{
  GString *all = g_string_new (NULL);

  for (int p = 0; p < poppler_document_get_n_pages (document); p++)
    {
      PopplerPage *page = poppler_document_get_page (document, p);
      g_autofree char *text = poppler_page_get_text (page);

      for (const char *c = text; *c != '\0'; c++)
        {
          if (g_ascii_isspace (*c))
            {
              if (all->len > 0 && all->str[all->len - 1] != ' ')
                g_string_append_c (all, ' ');
            }
          else
            g_string_append_c (all, *c);
        }
      g_string_append_c (all, ' ');
      g_object_unref (page);
    }
  return g_string_free (all, FALSE);
}

static void
test_pdf (void)
{
  g_autofree char *dir = write_session ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  g_autofree char *path = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *text = NULL;
  PopplerDocument *document;
  static const char *const order[] = {
    "Question 1",
    "Looking at the file first.",
    "The analyst rejected cell c2 (Read the raw file), so it did not run. Reason: “" REASON "”",
    "Answer", "The total is 41.99.",
    "Question 2",
    "Appendix: the code and its output",
    "Cell c3 [2]: Sum", "Edited by the analyst before it ran: the change is in the audit trail.",
    "Audit trail",
    "Cell c1 · question 1, step 1: Print the rows",
    "Proposed 2024-07-01 12:00:01 · approved by the analyst and run as proposed at 2024-07-01 12:00:02",
    "Cell c2 · question 1, step 1: Read the raw file",
    "Proposed 2024-07-01 12:00:03 · rejected by the analyst at 2024-07-01 12:00:10; it did not run",
    "Reason: “" REASON "”",
    "The code as proposed:", "df = pd.read_csv('/data/raw.csv')",
    "Cell c3 · question 1, step 2: Sum",
    "Proposed 2024-07-01 12:00:20 · edited by the analyst, then run at 2024-07-01 12:00:30",
    "-print(total)", "+print(round(total, 2))",
    "Cell c4 · question 1, step 3: Count",
    "run without asking (automatic approval) at 2024-07-01 12:00:40",
    "Cell c5 · question 2, step 1: Group",
    "never decided: the session ended while it waited for the analyst",
    NULL
  };

  g_assert_no_error (error);
  path = export (session, assay_report_format_lookup ("pdf"), TRUE, FALSE);
  uri = g_filename_to_uri (path, NULL, NULL);
  document = poppler_document_new_from_file (uri, NULL, &error);
  g_assert_no_error (error);
  text = pdf_text (document);
  assert_in_order (path, text, order);
  g_object_unref (document);
}

static void
test_pdf_streams (void)
{
  g_autofree char *dir = write_session ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  g_autofree char *path = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *text = NULL;
  PopplerDocument *document;
  double tops[5] = { 0 }, height = 0;
  guint found = 0;

  g_assert_no_error (error);
  path = export (session, assay_report_format_lookup ("pdf"), TRUE, FALSE);
  uri = g_filename_to_uri (path, NULL, NULL);
  document = poppler_document_new_from_file (uri, NULL, &error);
  g_assert_no_error (error);
  text = pdf_text (document);

  /* The five printed lines are one block: each line right under the one before, not in a
   * box of its own. */
  for (int p = 0; p < poppler_document_get_n_pages (document); p++)
    {
      PopplerPage *page = poppler_document_get_page (document, p);

      for (guint i = 0; i < G_N_ELEMENTS (tops); i++)
        {
          g_autofree char *line = g_strdup_printf ("line %u", i + 1);
          GList *rectangles = poppler_page_find_text (page, line);

          /* The code prints "line" too: the output is the one on its own line. */
          for (GList *l = rectangles; l != NULL; l = l->next)
            {
              PopplerRectangle *rectangle = l->data;

              tops[i] = rectangle->y2;
              height = rectangle->y2 - rectangle->y1;
              found |= 1u << i;
            }
          g_list_free_full (rectangles, (GDestroyNotify) poppler_rectangle_free);
        }
      g_object_unref (page);
    }
  g_assert_cmpuint (found, ==, 0x1f);
  for (guint i = 1; i < G_N_ELEMENTS (tops); i++)
    {
      double gap = tops[i - 1] - tops[i];

      /* poppler's y grows upwards: each line is one line height lower. */
      g_assert_cmpfloat (gap, >, 0);
      g_assert_cmpfloat (gap, <, 1.6 * height);
    }
  g_object_unref (document);
  /* The figure is a figure, not its Python name as well. */
  g_assert_null (strstr (text, "<Figure size"));
  g_assert_nonnull (strstr (text, "Figure 1: output of cell c1 (shown above)"));
}

/* ---- HTML -------------------------------------------------------------------------------- */

/* The text between the first FROM and the next TO. */
static char *
between (const char *text,
         const char *from,
         const char *to)
{
  const char *start = strstr (text, from);
  const char *end = start != NULL ? strstr (start, to) : NULL;

  g_assert_nonnull (end);
  return g_strndup (start, end - start);
}

static void
test_html (void)
{
  g_autofree char *dir = write_session ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  g_autofree char *path = NULL;
  g_autofree char *html = NULL;
  g_autofree char *audit = NULL;
  static const char *const order[] = {
    "<section id=\"q1\">",
    "<p class=\"rejected\">The analyst rejected cell c2 (Read the raw file), so it did not run. Reason: “"
    REASON "”</p>",
    "<h3>Answer</h3>",
    "<section id=\"appendix\">",
    "<p class=\"decision\">Edited by the analyst before it ran: the change is in the audit trail.</p>",
    "<section id=\"audit\">",
    "<div class=\"proposal\" data-decision=\"approved\">\n<h3>Cell c1 · question 1, step 1: Print the rows</h3>",
    "<div class=\"proposal\" data-decision=\"rejected\">\n<h3>Cell c2 · question 1, step 1: Read the raw file</h3>",
    "<p class=\"decision\">Proposed 2024-07-01 12:00:03 · rejected by the analyst at 2024-07-01 12:00:10; it did not run</p>",
    "<p class=\"reason\">Reason: “" REASON "”</p>",
    "<pre class=\"code\">df = pd.read_csv(&#39;/data/raw.csv&#39;)</pre>",
    "<div class=\"proposal\" data-decision=\"edited\">",
    "<pre class=\"diff\">--- as proposed\n+++ as run\n@@ -1,2 +1,2 @@\n total = 41.987\n-print(total)\n+print(round(total, 2))</pre>",
    "<div class=\"proposal\" data-decision=\"auto\">",
    "<div class=\"proposal\" data-decision=\"pending\">",
    NULL
  };

  g_assert_no_error (error);
  path = export (session, assay_report_format_lookup ("html"), TRUE, FALSE);
  html = read_text (path);
  assert_in_order (path, html, order);
  g_assert_nonnull (strstr (html, "<a href=\"#audit\">Audit trail</a>"));
  audit = between (html, "<section id=\"audit\">", "</section>");
  g_assert_cmpuint (count (audit, "<div class=\"proposal\""), ==, 5);

  /* Without the code: the trail still says what was decided, the edit in words. */
  {
    g_autofree char *no_code_path = export (session, assay_report_format_lookup ("html"), FALSE, FALSE);
    g_autofree char *no_code = read_text (no_code_path);
    g_autofree char *trail = between (no_code, "<section id=\"audit\">", "</section>");

    g_assert_null (strstr (trail, "raw.csv"));
    g_assert_null (strstr (trail, "print(round"));
    g_assert_nonnull (strstr (trail, "The analyst changed 1 line of the code (the code is left out of this report)."));
    g_assert_nonnull (strstr (trail, "Reason: “" REASON "”"));
  }
  /* Only the successful cells: the body leaves the rejection out, the trail keeps it. */
  {
    g_autofree char *ok_path = export (session, assay_report_format_lookup ("html"), TRUE, TRUE);
    g_autofree char *ok = read_text (ok_path);

    g_assert_null (strstr (ok, "<p class=\"rejected\">"));
    g_assert_nonnull (strstr (ok, "<div class=\"proposal\" data-decision=\"rejected\">"));
  }
}

static void
test_html_streams (void)
{
  g_autofree char *dir = write_session ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  g_autofree char *path = NULL;
  g_autofree char *html = NULL;
  g_autofree char *c1 = NULL;

  g_assert_no_error (error);
  path = export (session, assay_report_format_lookup ("html"), TRUE, FALSE);
  html = read_text (path);
  /* c1's printed lines: one block for stdout, one for stderr; none for the figure's name. */
  c1 = between (html, "<div class=\"cell\" id=\"cell-1\">", "</div>");
  g_assert_cmpuint (count (c1, "<pre class=\"output\">"), ==, 2);
  g_assert_nonnull (strstr (c1, "<pre class=\"output\">line 1\nline 2\nline 3\nline 4\nline 5</pre>"));
  g_assert_nonnull (strstr (c1, "<pre class=\"output\">a warning</pre>"));
  g_assert_null (strstr (html, "&lt;Figure size"));
}

/* ---- notebook ---------------------------------------------------------------------------- */

static char *
cell_source (JsonObject *cell)
{
  return assay_json_dup_text (json_object_get_member (cell, "source"));
}

static void
test_ipynb (void)
{
  g_autofree char *dir = write_session ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GString) sources = g_string_new (NULL);
  JsonArray *cells;
  gboolean edited_seen = FALSE;
  static const char *const order[] = {
    "Looking at the file first.",
    "*The analyst rejected cell c2 (Read the raw file), so it did not run. Reason: “" REASON "”*\n\n```\n"
    "df = pd.read_csv('/data/raw.csv')\n```",
    "### Answer",
    "## Audit trail",
    "**Cell c1 · question 1, step 1: Print the rows**",
    "**Cell c2 · question 1, step 1: Read the raw file**  \nProposed 2024-07-01 12:00:03 · rejected by the analyst at "
    "2024-07-01 12:00:10; it did not run  \nReason: “" REASON "”",
    "**Cell c3 · question 1, step 2: Sum**",
    "-print(total)\n+print(round(total, 2))",
    "**Cell c4",
    "**Cell c5",
    NULL
  };

  g_assert_no_error (error);
  path = export (session, assay_report_format_lookup ("ipynb"), TRUE, FALSE);
  text = read_text (path);
  root = assay_json_from_untrusted (text, &error);
  g_assert_no_error (error);
  cells = json_object_get_array_member (json_node_get_object (root), "cells");
  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);
      g_autofree char *source = cell_source (cell);
      const char *type = json_object_get_string_member (cell, "cell_type");

      g_string_append_printf (sources, "%s\n", source);
      if (g_str_equal (type, "code"))
        {
          JsonObject *assay = assay_json_get_object (json_object_get_object_member (cell, "metadata"), "assay");

          /* The rejected code is never a cell that runs. */
          g_assert_null (strstr (source, "raw.csv"));
          if (assay != NULL && g_strcmp0 (assay_json_get_string (assay, "cell"), "c3") == 0)
            {
              g_autofree char *before = cell_source (json_array_get_object_element (cells, i - 1));

              g_assert_cmpstr (assay_json_get_string (assay, "decision"), ==, "edited");
              g_assert_cmpstr (before, ==, "*Edited by the analyst before it ran: the change is in the audit trail.*");
              edited_seen = TRUE;
            }
        }
    }
  g_assert_true (edited_seen);
  assert_in_order (path, sources->str, order);
}

/* ---- workbook ---------------------------------------------------------------------------- */

static void
test_xlsx (void)
{
  g_autofree char *dir = write_session ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  g_autofree char *path = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;
  const char *script =
    "import sys, datetime, openpyxl\n"
    "wb = openpyxl.load_workbook(sys.argv[1])\n"
    "assert 'Audit Trail' in wb.sheetnames, wb.sheetnames\n"
    "ws = wb['Audit Trail']\n"
    "head = [c.value for c in ws[1]]\n"
    "assert head == ['Cell', 'Question', 'Step', 'Description', 'Proposed', 'Decision', 'By', 'Decided',\n"
    "                'Reason', 'Code as proposed', 'Change'], head\n"
    "rows = [[c.value for c in row] for row in ws.iter_rows(min_row=2)]\n"
    "assert [r[0] for r in rows] == ['c1', 'c2', 'c3', 'c4', 'c5'], rows\n"
    "assert [r[1] for r in rows] == [1, 1, 1, 1, 2], rows\n"
    "assert [r[2] for r in rows] == [1, 1, 2, 3, 1], rows\n"
    "assert [r[5] for r in rows] == ['approved', 'rejected', 'edited, then run', 'run without asking',\n"
    "                                'never decided'], [r[5] for r in rows]\n"
    "assert [r[6] for r in rows] == ['the analyst', 'the analyst', 'the analyst', 'automatic approval', None], rows\n"
    "assert rows[1][4] == datetime.datetime(2024, 7, 1, 12, 0, 3), rows[1][4]\n"
    "assert rows[1][7] == datetime.datetime(2024, 7, 1, 12, 0, 10), rows[1][7]\n"
    "assert rows[4][7] is None, rows[4][7]\n"
    "assert rows[1][8] == '" REASON "', rows[1][8]\n"
    "assert rows[1][9] == \"df = pd.read_csv('/data/raw.csv')\\n\", rows[1][9]\n"
    "assert '-print(total)\\n+print(round(total, 2))' in rows[2][10], rows[2][10]\n"
    "assert ws.freeze_panes == 'A2', ws.freeze_panes\n";

  g_assert_no_error (error);
  path = export (session, assay_report_format_lookup ("xlsx"), TRUE, FALSE);
  {
    const char *argv[] = { "/usr/bin/python3", "-c", script, path, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
    g_assert_no_error (error);
    if (!g_spawn_check_wait_status (status, NULL))
      g_error ("the workbook's audit trail: %s%s", out, err);
  }
}

int
main (int   argc,
      char *argv[])
{
  int status;
  g_autofree char *command = NULL;

  /* The trail's times are local: read them in UTC. */
  g_setenv ("TZ", "UTC", TRUE);
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("assay-report-audit-XXXXXX", NULL);
  g_test_add_func ("/assay/report/streams/pdf", test_pdf_streams);
  g_test_add_func ("/assay/report/streams/html", test_html_streams);
  g_test_add_func ("/assay/report/audit/pdf", test_pdf);
  g_test_add_func ("/assay/report/audit/html", test_html);
  g_test_add_func ("/assay/report/audit/ipynb", test_ipynb);
  g_test_add_func ("/assay/report/audit/xlsx", test_xlsx);
  status = g_test_run ();
  command = g_strdup_printf ("rm -rf '%s'", tmpdir);
  g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL);
  return status;
}
