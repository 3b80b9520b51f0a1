/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one reading of a session record (questions → steps → cells), and everything that
 * shows a session through it: the three report formats and `assay-cli session show`. The
 * session repeats call ids across questions and within a reply, has a call with no id, an
 * edited cell and a step that never finished. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "assay-report.h"
#include "assay-session.h"
#include "assay-session-outline.h"
#include "session-fixture.h"

static char *tmpdir;

/* Saved and read back: the outline is of the record, not of what the agent held. */
static AssaySession *
write_session (void)
{
  g_autofree char *dir = session_fixture_write_repeated_ids (tmpdir);
  g_autoptr(GError) error = NULL;
  AssaySession *loaded = assay_session_load (dir, &error);

  g_assert_no_error (error);
  return loaded;
}

static const char *
cell_id (const AssayOutlineStep *step,
         guint                   i)
{
  return ((AssaySessionCell *) g_ptr_array_index (step->cells, i))->id;
}

static void
test_outline (void)
{
  g_autoptr(AssaySession) session = write_session ();
  g_autoptr(AssaySessionOutline) outline = assay_session_outline_new (session);
  const AssayOutlineQuestion *question;
  const AssayOutlineStep *step;

  g_assert_cmpuint (outline->questions->len, ==, 4);

  question = g_ptr_array_index (outline->questions, 0);
  g_assert_cmpstr (question->text, ==, "Question one?");
  g_assert_cmpuint (question->steps->len, ==, 3);
  step = g_ptr_array_index (question->steps, 0);
  g_assert_cmpuint (step->number, ==, 1);
  g_assert_cmpuint (step->number_in_question, ==, 1);
  g_assert_cmpstr (step->text, ==, "Looking at one.");
  g_assert_false (step->is_answer);
  g_assert_cmpuint (step->cells->len, ==, 1);
  g_assert_cmpstr (cell_id (step, 0), ==, "c1");
  step = g_ptr_array_index (question->steps, 1);
  g_assert_false (step->is_answer);
  g_assert_cmpuint (step->cells->len, ==, 0);
  step = g_ptr_array_index (question->steps, 2);
  g_assert_true (step->is_answer);
  g_assert_cmpstr (step->text, ==, "Answer one.");
  g_assert_cmpuint (step->cells->len, ==, 0);

  question = g_ptr_array_index (outline->questions, 1);
  g_assert_cmpuint (question->steps->len, ==, 2);
  step = g_ptr_array_index (question->steps, 0);
  g_assert_cmpuint (step->number, ==, 4);
  g_assert_cmpuint (step->number_in_question, ==, 1);
  g_assert_cmpuint (step->cells->len, ==, 1);
  g_assert_cmpstr (cell_id (step, 0), ==, "c2");
  g_assert_cmpint (((AssaySessionCell *) g_ptr_array_index (step->cells, 0))->decision, ==, ASSAY_DECISION_EDITED);

  question = g_ptr_array_index (outline->questions, 2);
  step = g_ptr_array_index (question->steps, 0);
  g_assert_cmpuint (step->cells->len, ==, 3);
  g_assert_cmpstr (cell_id (step, 0), ==, "c3");
  g_assert_cmpstr (cell_id (step, 1), ==, "c4");
  g_assert_cmpstr (cell_id (step, 2), ==, "c5");
  g_assert_true (assay_session_outline_find_cell (outline, g_ptr_array_index (step->cells, 2), NULL) == question);

  question = g_ptr_array_index (outline->questions, 3);
  g_assert_cmpstr (question->text, ==, "Question four?");
  g_assert_cmpuint (question->steps->len, ==, 1);
  step = g_ptr_array_index (question->steps, 0);
  g_assert_true (step->interrupted);
  g_assert_cmpuint (step->cells->len, ==, 1);
  g_assert_cmpstr (cell_id (step, 0), ==, "c6");
}

/* Steps counted otherwise (an older record): the call id alone places the cells, in the
 * order they ran, each once. */
static void
test_outline_unnumbered_steps (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "unnumbered", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssaySessionOutline) outline = NULL;
  const AssayOutlineQuestion *question;

  session_fixture_ask (session, "First?");
  session_fixture_reply (session, NULL, 1, "call_1");
  session_fixture_run_cell (session, "c1", 0, "call_1", "one", FALSE);
  assay_session_finish_step (session);
  session_fixture_ask (session, "Second?");
  session_fixture_reply (session, NULL, 1, "call_1");
  session_fixture_run_cell (session, "c2", 0, "call_1", "two", FALSE);
  assay_session_finish_step (session);
  /* A cell no call names (nothing matches it): after the last step. */
  session_fixture_run_cell (session, "c3", 0, "orphan", "three", FALSE);

  outline = assay_session_outline_new (session);
  g_assert_cmpuint (outline->questions->len, ==, 2);
  question = g_ptr_array_index (outline->questions, 0);
  g_assert_cmpstr (cell_id (g_ptr_array_index (question->steps, 0), 0), ==, "c1");
  question = g_ptr_array_index (outline->questions, 1);
  g_assert_cmpuint (((AssayOutlineStep *) g_ptr_array_index (question->steps, 0))->cells->len, ==, 2);
  g_assert_cmpstr (cell_id (g_ptr_array_index (question->steps, 0), 0), ==, "c2");
  g_assert_cmpstr (cell_id (g_ptr_array_index (question->steps, 0), 1), ==, "c3");
}

/* A cell repaired when the analysis ran again: the repair is no question, its cells are the
 * question's, its last word is no answer; saved and read back. */
static void
test_outline_repair (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "repair", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(AssaySessionOutline) outline = NULL;
  AssayLlmMessage *repair = assay_llm_message_new_user ("Cell c1 failed on the new data. Fix only that cell.");
  const AssayOutlineQuestion *question;
  const AssayOutlineStep *step;

  session_fixture_ask (session, "Total?");
  session_fixture_reply (session, NULL, 1, "call_1");
  session_fixture_run_cell (session, "c1", 1, "call_1", "one", FALSE);
  assay_session_finish_step (session);
  repair->is_repair = TRUE;
  assay_session_append_message (session, repair);
  session_fixture_reply (session, "Fixing.", 1, "call_r");
  session_fixture_run_cell (session, "c2", 2, "call_r", "fixed", FALSE);
  assay_session_finish_step (session);
  assay_session_append_message (session, assay_llm_message_new_assistant ("I removed the assertion."));
  assay_session_finish_step (session);
  assay_session_append_message (session, assay_llm_message_new_assistant ("The total is 6."));
  assay_session_finish_step (session);
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);

  outline = assay_session_outline_new (loaded);
  g_assert_cmpuint (outline->questions->len, ==, 1);
  question = g_ptr_array_index (outline->questions, 0);
  g_assert_cmpuint (question->steps->len, ==, 4);
  step = g_ptr_array_index (question->steps, 0);
  g_assert_null (step->repair);
  g_assert_cmpstr (cell_id (step, 0), ==, "c1");
  step = g_ptr_array_index (question->steps, 1);
  g_assert_cmpstr (step->repair, ==, "Cell c1 failed on the new data. Fix only that cell.");
  g_assert_cmpstr (cell_id (step, 0), ==, "c2");
  step = g_ptr_array_index (question->steps, 2);
  g_assert_nonnull (step->repair);
  g_assert_false (step->is_answer);
  step = g_ptr_array_index (question->steps, 3);
  g_assert_null (step->repair);
  g_assert_true (step->is_answer);
  g_assert_cmpstr (step->text, ==, "The total is 6.");
}

static const char *const in_order[] = {
  "Question one?", "first-output", "Answer one.",
  "Question two?", "second-output", "Answer two.",
  "Question three?", "third-output", "fourth-output", "fifth-output", "Answer three.",
  "Question four?",
};

static void
assert_in_order (const char *what,
                 const char *text)
{
  const char *at = text;

  for (guint i = 0; i < G_N_ELEMENTS (in_order); i++)
    {
      const char *found = strstr (at, in_order[i]);

      if (found == NULL)
        g_error ("%s: “%s” is missing after “%s”:\n%s", what, in_order[i],
                 i > 0 ? in_order[i - 1] : "the start", text);
      at = found + strlen (in_order[i]);
    }
  /* The interrupted cell is not in a report of what ran. */
}

/* Nothing of UNWANTED between the first FROM and the first TO after it. */
static void
assert_not_between (const char *what,
                    const char *text,
                    const char *from,
                    const char *to,
                    const char *unwanted)
{
  const char *start = strstr (text, from);
  const char *end = start != NULL ? strstr (start, to) : NULL;
  const char *found;

  g_assert_nonnull (end);
  found = strstr (start, unwanted);
  if (found != NULL && found < end)
    g_error ("%s: “%s” is filed between “%s” and “%s”", what, unwanted, from, to);
}

static void
test_reports (void)
{
  g_autoptr(AssaySession) session = write_session ();
  const AssayReportFormat *formats[] = { assay_report_format_lookup ("ipynb"), assay_report_format_lookup ("html"), assay_report_format_lookup ("pdf") };

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/report.%s", tmpdir, assay_report_format_get_name (formats[i]));
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;
      AssayReportOptions options;

      assay_report_options_init (&options);
      options.format = formats[i];
      g_assert_true (assay_report_export (session, &options, path, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
      if (formats[i] == assay_report_format_lookup ("pdf"))
        {
          const char *argv[] = { "pdftotext", path, "-", NULL };
          int status;

          g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                                       NULL, NULL, &text, NULL, &status, &error));
          g_assert_no_error (error);
          g_assert_true (g_spawn_check_wait_status (status, NULL));
        }
      else
        g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      assert_in_order (path, text);
      assert_not_between (path, text, "Question one?", "Question two?", "second-output");
      assert_not_between (path, text, "Question two?", "Question three?", "first-output");
      assert_not_between (path, text, "Question three?", "Question four?", "first-output");
      assert_not_between (path, text, "Question three?", "Question four?", "second-output");
      g_assert_null (strstr (text, "sixth-output"));
    }
}

static void
test_cli_show (void)
{
  g_autoptr(AssaySession) session = write_session ();
  const char *argv[] = { ASSAY_CLI, "session", "show", assay_session_get_dir (session), NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  assert_in_order ("session show", out);
  assert_not_between ("session show", out, "Question two?", "Question three?", "first-output");
  /* The interrupted cell is listed after the last question, as interrupted. */
  g_assert_nonnull (strstr (strstr (out, "Question four?"), "Interrupted"));
  g_assert_nonnull (strstr (strstr (out, "Interrupted"), "cell c6"));
}

int
main (int   argc,
      char *argv[])
{
  int status;
  g_autofree char *command = NULL;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("assay-outline-XXXXXX", NULL);
  g_test_add_func ("/assay/session/outline/repeated-ids", test_outline);
  g_test_add_func ("/assay/session/outline/unnumbered-steps", test_outline_unnumbered_steps);
  g_test_add_func ("/assay/session/outline/repair", test_outline_repair);
  g_test_add_func ("/assay/session/outline/reports", test_reports);
  g_test_add_func ("/assay/session/outline/cli-show", test_cli_show);
  status = g_test_run ();
  command = g_strdup_printf ("rm -rf '%s'", tmpdir);
  g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL);
  return status;
}
