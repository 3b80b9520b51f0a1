/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Approved code changed behind the analyst's back (issue 33): a session's record is edited
 * after its cell ran as approved; opened again in the window, the next question asks first.
 * "Approve Changed Code?" shows the changed code; Approve and Run (a real click) seals it and
 * the session is restored with it, Don't Run (a real click) runs nothing and says why. The
 * recorded provider and the real sandbox (bubblewrap). */
#include "config.h"

#include <string.h>

#include "assay-approval.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

static GSettings *settings;
static char *work_dir;
static char *csv_path;

static const char *one_cell =
  "{\"format\": \"assay-transcript\", \"turns\": ["
  "{\"text\": \"A sum.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"total = 40 + 2\\nprint('total', total)\\n\", \"description\": \"Sum\"}}]},"
  "{\"text\": \"The total is 42.\"}]}";

static const char *follow_up =
  "{\"format\": \"assay-transcript\", \"turns\": ["
  "{\"text\": \"Again.\", \"tool_calls\": [{\"id\": \"call_9\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"print('restored total', total)\\n\"}}]},"
  "{\"text\": \"Restored.\"}]}";

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static gboolean
asks_approval (gpointer data)
{
  return assay_window_get_approval_dialog (data) != NULL &&
         gtk_widget_get_mapped (GTK_WIDGET (assay_window_get_approval_dialog (data)));
}

static void
send (AssayWindow *window,
      const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
}

/* The button of the dialog whose label reads TEXT. */
static GtkWidget *
dialog_button (AdwMessageDialog *dialog,
               const char       *text)
{
  GtkWidget *label = gui_find (GTK_WIDGET (dialog), GTK_TYPE_LABEL, text);
  GtkWidget *button = label != NULL ? gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON) : NULL;

  g_assert_nonnull (button);
  return button;
}

/* The session's cell c1 edited in session.json, as someone with the folder could. */
static void
edit_record (const char *dir,
             const char *from,
             const char *to)
{
  g_autofree char *path = g_build_filename (dir, "session.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GString) edited = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_nonnull (strstr (text, from));
  edited = g_string_new (text);
  g_string_replace (edited, from, to, 0);
  g_assert_true (g_file_set_contents (path, edited->str, edited->len, &error));
}

static AssayWindow *
answered_session (char **dir)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, one_cell, csv_path, 1400, 900);

  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  send (window, "What is the total?");
  gui_wait (is_idle, window, 120, "the question to end");
  g_assert_true (assay_approval_check (assay_session_get_cell (assay_window_get_session (window), 0)));
  *dir = g_strdup (assay_session_get_dir (assay_window_get_session (window)));
  assay_window_new_session (window);
  return window;
}

static void
ask_follow_up (AssayWindow *window)
{
  g_autofree char *transcript = gui_write_file (work_dir, "follow-up.json", follow_up);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayLlmProvider) provider = assay_recorded_provider_new (transcript, &error);

  g_assert_no_error (error);
  assay_window_set_provider (window, provider, "recorded-gui", FALSE);
  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  send (window, "And now?");
  gui_wait (asks_approval, window, 60, "“Approve Changed Code?”");
  /* Nothing was sent or run meanwhile: the question waits. */
  g_assert_true (assay_window_get_busy (window));
}

static void
test_approve_again (void)
{
  g_autofree char *dir = NULL;
  AssayWindow *window = answered_session (&dir);
  AdwMessageDialog *dialog;
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  AssaySession *session;

  edit_record (dir, "total = 40 + 2", "total = 40 + 3");
  gui_open_session (window, dir);
  ask_follow_up (window);
  dialog = assay_window_get_approval_dialog (window);
  g_assert_nonnull (gui_find (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "cell c1"));
  g_assert_nonnull (gui_find (GTK_WIDGET (dialog), GTK_TYPE_TEXT_VIEW, "total = 40 + 3"));
  gui_spin (300);
  gui_save_screenshot (GTK_WIDGET (dialog), "approve-changed-code.png");
  gui_click (dialog_button (dialog, "Approve and Run"));
  gui_wait (is_idle, window, 120, "the question to end");
  g_assert_null (assay_window_get_approval_dialog (window));
  /* The approved (edited) code rebuilt the kernel; its seal is the analyst's now. */
  g_assert_nonnull (gui_find (chat, GTK_TYPE_TEXT_VIEW, "restored total 43"));
  session = assay_window_get_session (window);
  g_assert_true (assay_approval_check (assay_session_get_cell (session, 0)));
  gui_close_window (window);
}

static void
test_refuse (void)
{
  g_autofree char *dir = NULL;
  AssayWindow *window = answered_session (&dir);
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  AssaySession *session;

  edit_record (dir, "total = 40 + 2", "total = 40 + 5");
  gui_open_session (window, dir);
  ask_follow_up (window);
  gui_spin (300);
  gui_click (dialog_button (assay_window_get_approval_dialog (window), "Don't Run"));
  gui_wait (is_idle, window, 60, "the question to end");
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Nothing ran: the code of c1 is not the code approved here"));
  g_assert_null (gui_find (chat, GTK_TYPE_TEXT_VIEW, "restored total"));
  session = assay_window_get_session (window);
  g_assert_false (assay_approval_check (assay_session_get_cell (session, 0)));
  gui_close_window (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  work_dir = g_dir_make_tmp ("assay-gui-approval-XXXXXX", NULL);
  csv_path = gui_write_file (work_dir, "numbers.csv", "n\n1\n2\n");

  g_test_add_func ("/assay/app/approval/approve-again", test_approve_again);
  g_test_add_func ("/assay/app/approval/refuse", test_refuse);
  status = g_test_run ();

  g_object_unref (settings);
  return status;
}
