/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window driving the agent: the recorded provider, the real sandbox (bubblewrap). Type a
 * question, send, review the code (Run, Edit, Reject and its reason with real clicks and keys,
 * the text cursor blinking, at 1400 and 400 px), run without asking, stop; the step cards,
 * outputs, figure thumbnails and the Markdown answer; reopening the session (and not while a
 * question runs); the retry banner against the fake model server. Screenshots of the window
 * in light and dark, and of each step of the review. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "assay-agent.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-step-card.h"
#include "assay-window-private.h"
#include "gui-test-util.h"
#include "session-fixture.h"

static GSettings *settings;
static char *work_dir;
static char *csv_path;

#define CELL_LOOK "import pandas as pd\\ndf = pd.read_csv('/data/regions.csv')\\nprint(df.shape)\\nprint(df.to_string())\\n"
#define CELL_CHART "import matplotlib\\nmatplotlib.use('Agg')\\nimport matplotlib.pyplot as plt\\nfig, ax = plt.subplots(figsize=(4, 3))\\nax.bar(df['region'], df['amount'])\\nfig.savefig('/workspace/regions.png')\\nplt.close(fig)\\nprint('chart saved')\\n"
#define ANSWER "## Sales by region\\n\\nThe **north region leads** with 120 units.\\n\\n| region | amount |\\n|---|---:|\\n| north | 120 |\\n| south | 80 |\\n"

static const char *two_cells =
  "{\"format\": \"assay-transcript\", \"model\": \"recorded-gui\", \"turns\": ["
  "{\"text\": \"Let me look at the file.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"" CELL_LOOK "\", \"description\": \"Load the file\"}}]},"
  "{\"text\": \"Now a chart.\", \"tool_calls\": [{\"id\": \"call_2\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"" CELL_CHART "\", \"description\": \"Bar chart\"}}]},"
  "{\"text\": \"" ANSWER "\"}]}";

static const char *one_cell =
  "{\"format\": \"assay-transcript\", \"turns\": ["
  "{\"text\": \"A first look.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"print('original')\\n\", \"description\": \"Print\"}}]},"
  "{\"text\": \"Done: **finished**.\"}]}";

static const char *sleeping_cell =
  "{\"format\": \"assay-transcript\", \"turns\": ["
  "{\"text\": \"This takes a while.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"import time\\nprint('start', flush=True)\\ntime.sleep(60)\\n\"}}]},"
  "{\"text\": \"Never reached.\"}]}";

static void
send (AssayWindow *window,
      const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
}

static gboolean
has_paintable (gpointer data)
{
  return gtk_picture_get_paintable (data) != NULL;
}

static gboolean
is_waiting (gpointer data)
{
  return assay_code_review_get_waiting (assay_window_get_code_review (data));
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static void
wait_for_approval (AssayWindow *window)
{
  gui_wait (is_waiting, window, 90, "a cell waiting for approval");
}

static void
wait_idle (AssayWindow *window)
{
  gui_wait (is_idle, window, 120, "the question to end");
}

static const char *
cell_status (AssayWindow *window,
             const char  *cell_id)
{
  AssayStepCard *card = assay_chat_view_find_cell_card (assay_window_get_chat_view (window), cell_id);

  g_assert_nonnull (card);
  return assay_step_card_get_cell_status (card, cell_id);
}

/* The review's button for ACTION ("review.run"). */
static GtkWidget *
review_button (AssayCodeReview *review,
               const char      *action)
{
  GtkWidget *button = gui_find_button (GTK_WIDGET (review), action);

  g_assert_nonnull (button);
  return button;
}

/* The review is driven as the analyst drives it: clicks and keys from the X server, with
 * GTK's own settings, where the text cursor blinks. After each step the main loop runs for
 * two blinks and more, so a blink timeout left pending by the step fires (GTK asserts in it
 * that the cursor is shown: the app would abort here). */
static void
let_cursor_blink (GtkWidget *widget)
{
  gboolean blink;
  int blink_time;

  g_object_get (gtk_widget_get_settings (widget), "gtk-cursor-blink", &blink,
                "gtk-cursor-blink-time", &blink_time, NULL);
  g_assert_true (blink);
  gui_spin (2 * blink_time + 600);
}

/* A screenshot for the AppStream metainfo and the README (build-aux/update-screenshots.sh
 * copies them into data/screenshots). */
static void
shot (AssayWindow *window,
      const char  *name)
{
  assay_window_dismiss_toast (window);
  gui_save_screenshot (GTK_WIDGET (window), name);
}

static void
screenshots (AssayWindow *window)
{
  const char *dir = g_getenv ("ASSAY_SCREENSHOT_DIR");
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *light = NULL;
  g_autofree char *dark = NULL;

  if (dir == NULL)
    return;
  light = g_build_filename (dir, "window-light.png", NULL);
  dark = g_build_filename (dir, "window-dark.png", NULL);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  gui_spin (300);
  gui_screenshot (GTK_WIDGET (window), light);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  gui_spin (300);
  gui_screenshot (GTK_WIDGET (window), dark);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  g_assert_true (g_file_test (light, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (dark, G_FILE_TEST_IS_REGULAR));
}

static void
check_answer (GtkWidget *chat)
{
  GtkWidget *grid;

  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "The north region leads with 120 units."));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (gui_find (chat, GTK_TYPE_LABEL, "The north region leads"))),
                            "<b>north region leads</b>"));
  grid = gui_find (chat, GTK_TYPE_GRID, NULL);
  g_assert_nonnull (grid);
  g_assert_true (gtk_widget_has_css_class (grid, "markdown-table"));
  g_assert_nonnull (gui_find (grid, GTK_TYPE_LABEL, "south"));
}

static void
test_run (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, two_cells, csv_path, 1400, 900);
  AssayCodeReview *review = assay_window_get_code_review (window);
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *code = NULL;
  g_autofree char *dir = NULL;
  AssaySession *session;
  GtkWidget *picture;

  send (window, "Which region sells most?");
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Which region sells most?"));

  wait_for_approval (window);
  first_id = g_strdup (assay_code_review_get_cell_id (review));
  code = assay_code_review_get_code (review);
  g_assert_nonnull (strstr (code, "pd.read_csv('/data/regions.csv')"));
  g_assert_null (assay_code_review_get_diff (review));
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Step 1"));
  g_assert_cmpstr (cell_status (window, first_id), ==, "proposed");

  /* Run, clicked: the code as proposed runs. */
  gui_click (review_button (review, "review.run"));
  let_cursor_blink (GTK_WIDGET (review));
  wait_for_approval (window);
  second_id = g_strdup (assay_code_review_get_cell_id (review));
  g_assert_cmpstr (second_id, !=, first_id);
  g_assert_cmpstr (cell_status (window, first_id), ==, "ok");
  g_assert_cmpint (assay_session_get_cell (assay_window_get_session (window), 0)->decision, ==,
                   ASSAY_DECISION_APPROVED);
  g_assert_nonnull (gui_find (chat, GTK_TYPE_TEXT_VIEW, "(2, 2)"));
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Step 2"));
  /* The second attempt: a diff against the first is one click away. */
  g_assert_nonnull (assay_code_review_get_diff (review));
  g_assert_nonnull (strstr (assay_code_review_get_diff (review), "+fig.savefig('/workspace/regions.png')"));
  gtk_widget_activate_action (GTK_WIDGET (review), "review.toggle-diff", NULL);
  gtk_widget_activate_action (GTK_WIDGET (review), "review.toggle-diff", NULL);
  shot (window, "approval.png");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL);
  wait_idle (window);
  g_assert_cmpstr (cell_status (window, second_id), ==, "ok");
  picture = gui_find (chat, GTK_TYPE_PICTURE, NULL);
  g_assert_nonnull (picture);
  /* The figure file is read in a worker. */
  gui_wait (has_paintable, picture, 10, "the figure thumbnail");
  check_answer (chat);

  session = assay_window_get_session (window);
  g_assert_cmpstr (assay_session_get_status (session), ==, "answered");
  g_assert_cmpint (assay_session_get_cell (session, 0)->decision, ==, ASSAY_DECISION_APPROVED);
  shot (window, "main.png");
  screenshots (window);

  /* Reopening restores the conversation: cards, outputs, the figure, the answer. */
  dir = g_strdup (assay_session_get_dir (session));
  assay_window_new_session (window);
  g_assert_null (gui_find (chat, GTK_TYPE_PICTURE, NULL));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", dir);
  /* Read in a worker: the chat says it is opening, nothing of the session is shown yet. */
  g_assert_true (assay_window_get_opening (window));
  g_assert_true (assay_chat_view_get_loading (assay_window_get_chat_view (window)));
  g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "Which region sells most?"));
  gui_open_session (window, dir);
  g_assert_false (assay_chat_view_get_loading (assay_window_get_chat_view (window)));
  g_assert_cmpstr (assay_session_get_dir (assay_window_get_session (window)), ==, dir);
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Which region sells most?"));
  picture = gui_find (chat, GTK_TYPE_PICTURE, NULL);
  g_assert_nonnull (picture);
  gui_wait (has_paintable, picture, 10, "the figure thumbnail of the reopened session");
  g_assert_nonnull (gui_find (chat, GTK_TYPE_TEXT_VIEW, "(2, 2)"));
  g_assert_cmpstr (cell_status (window, first_id), ==, "ok");
  check_answer (chat);

  /* A follow-up in the reopened session: its kernel state is rebuilt first (the successful
   * cells run again), so `df` still exists. */
  {
    g_autofree char *transcript = gui_write_file (work_dir, "follow-up.json",
      "{\"format\": \"assay-transcript\", \"turns\": ["
      "{\"text\": \"Checking.\", \"tool_calls\": [{\"id\": \"call_9\", \"name\": \"execute_python\","
      "  \"arguments\": {\"code\": \"print('rows again:', len(df))\\n\"}}]},"
      "{\"text\": \"Still *two* rows.\"}]}");
    g_autoptr(GError) error = NULL;
    g_autoptr(AssayLlmProvider) provider = assay_recorded_provider_new (transcript, &error);

    g_assert_no_error (error);
    assay_window_set_provider (window, provider, "recorded-gui", FALSE);
    assay_code_review_set_auto_run (review, TRUE);
    send (window, "How many rows now?");
    wait_idle (window);
    g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Restoring the session"));
    g_assert_nonnull (gui_find (chat, GTK_TYPE_TEXT_VIEW, "rows again: 2"));
    g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Still two rows."));
  }
  gui_close_window (window);
}

/* Edit, the code typed over, Run clicked, in a window WIDTH wide: narrow, the code is a page
 * of its own and Run goes back to the conversation. */
static void
edit_and_run (int width,
              int height)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, one_cell, csv_path, width, height);
  AssayCodeReview *review = assay_window_get_code_review (window);
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  g_autofree char *proposed = g_strdup_printf ("review-proposed-%d.png", width);
  g_autofree char *edited = g_strdup_printf ("review-edited-%d.png", width);
  g_autofree char *ran = g_strdup_printf ("review-edited-ran-%d.png", width);
  GtkWidget *view;
  GtkWidget *mark;
  AssaySessionCell *cell;

  send (window, "Print something");
  wait_for_approval (window);
  view = gui_find (GTK_WIDGET (review), GTK_SOURCE_TYPE_VIEW, NULL);
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  shot (window, proposed);
  /* Edit, clicked: the code takes the keys; all of it selected and typed over. */
  gui_click (review_button (review, "review.edit"));
  gui_key (view, GDK_KEY_a, GDK_CONTROL_MASK);
  g_assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  g_assert_true (gtk_widget_has_focus (view));
  gui_type (view, "print('edited by the analyst')\n");
  g_assert_cmpstr (gui_text (view), ==, "print('edited by the analyst')\n");
  shot (window, edited);
  g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "Edited by you"));
  /* Run, clicked while the view has the focus and its cursor blinks. */
  gui_click (review_button (review, "review.run"));
  let_cursor_blink (view);
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  wait_idle (window);
  let_cursor_blink (view);
  shot (window, ran);
  /* The code that ran, clicked (to select from it): read-only, without a cursor. Narrow,
   * the conversation is the page shown now. */
  if (gtk_widget_get_mapped (view))
    {
      gui_click (view);
      g_assert_true (gtk_widget_has_focus (view));
      g_assert_false (gtk_text_view_get_cursor_visible (GTK_TEXT_VIEW (view)));
      let_cursor_blink (view);
    }

  g_assert_nonnull (gui_find (chat, GTK_TYPE_TEXT_VIEW, "edited by the analyst"));
  /* The step card says whose code ran, then and when the session is shown again. */
  mark = gui_find (chat, GTK_TYPE_LABEL, "Edited by you");
  g_assert_nonnull (mark);
  g_assert_true (gtk_widget_is_drawable (mark));
  assay_chat_view_show_session (ASSAY_CHAT_VIEW (chat), assay_window_get_session (window), 8);
  wait_idle (window);
  mark = gui_find (chat, GTK_TYPE_LABEL, "Edited by you");
  g_assert_nonnull (mark);
  g_assert_true (gtk_widget_is_drawable (mark));
  g_assert_null (gui_find (chat, GTK_TYPE_TEXT_VIEW, "original"));
  g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "original"));
  cell = assay_session_get_cell (assay_window_get_session (window), 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_EDITED);
  g_assert_cmpstr (cell->code, ==, "print('edited by the analyst')\n");
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_OK);
  gui_close_window (window);
}

static void
test_edit (void)
{
  edit_and_run (1400, 900);
}

static void
test_edit_narrow (void)
{
  edit_and_run (400, 800);
}

/* Edit clicked on, typed into, clicked off (the button takes the focus from the blinking
 * cursor) and on again: the code stays as typed, takes the keys again, and Ctrl+A typed over
 * it is what runs. */
static void
test_edit_off (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, one_cell, csv_path, 1400, 900);
  AssayCodeReview *review = assay_window_get_code_review (window);
  GtkWidget *view;
  AssaySessionCell *cell;

  send (window, "Print something");
  wait_for_approval (window);
  view = gui_find (GTK_WIDGET (review), GTK_SOURCE_TYPE_VIEW, NULL);
  gui_click (review_button (review, "review.edit"));
  gui_key (view, GDK_KEY_End, GDK_CONTROL_MASK);
  gui_type (view, "print('typed')\n");
  gui_click (review_button (review, "review.edit"));
  let_cursor_blink (view);
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  g_assert_cmpstr (gui_text (view), ==, "print('original')\nprint('typed')\n");
  gui_click (review_button (review, "review.edit"));
  gui_key (view, GDK_KEY_a, GDK_CONTROL_MASK);
  g_assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  g_assert_true (gtk_widget_has_focus (view));
  gui_type (view, "print('typed again')\n");
  gui_click (review_button (review, "review.run"));
  let_cursor_blink (view);
  wait_idle (window);
  cell = assay_session_get_cell (assay_window_get_session (window), 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_EDITED);
  g_assert_cmpstr (cell->code, ==, "print('typed again')\n");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_TEXT_VIEW, "typed again"));
  gui_close_window (window);
}

/* Edit turned off after typing, then Run: the code shown is the code that runs (it ran the
 * model's code while showing the analyst's). */
static void
test_edit_off_run (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, one_cell, csv_path, 1400, 900);
  AssayCodeReview *review = assay_window_get_code_review (window);
  GtkWidget *view;
  AssaySessionCell *cell;

  send (window, "Print something");
  wait_for_approval (window);
  view = gui_find (GTK_WIDGET (review), GTK_SOURCE_TYPE_VIEW, NULL);
  gui_click (review_button (review, "review.edit"));
  gui_key (view, GDK_KEY_End, GDK_CONTROL_MASK);
  gui_type (view, "print('kept')\n");
  gui_click (review_button (review, "review.edit"));
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  gui_click (review_button (review, "review.run"));
  let_cursor_blink (view);
  wait_idle (window);
  cell = assay_session_get_cell (assay_window_get_session (window), 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_EDITED);
  g_assert_cmpstr (cell->code, ==, "print('original')\nprint('kept')\n");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_TEXT_VIEW, "kept"));
  gui_close_window (window);
}

/* Edit begun, then Reject clicked, the reason typed and Enter, in a window WIDTH wide. */
static void
edit_and_reject (int width,
                 int height)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, one_cell, csv_path, width, height);
  AssayCodeReview *review = assay_window_get_code_review (window);
  g_autofree char *reason_shot = g_strdup_printf ("review-reason-%d.png", width);
  g_autofree char *rejected_shot = g_strdup_printf ("review-rejected-%d.png", width);
  g_autofree char *record_path = NULL;
  g_autofree char *record = NULL;
  AssaySessionCell *cell;
  GtkWidget *entry;
  GtkWidget *view;

  send (window, "Print something");
  wait_for_approval (window);
  /* The analyst starts to edit, then thinks better of it: Reject, clicked (it takes the
   * focus from the code while its cursor blinks), the reason typed, Enter. */
  view = gui_find (GTK_WIDGET (review), GTK_SOURCE_TYPE_VIEW, NULL);
  gui_click (review_button (review, "review.edit"));
  gui_key (view, GDK_KEY_End, GDK_CONTROL_MASK);
  gui_type (view, "print('and more')\n");
  gui_click (review_button (review, "review.reject"));
  entry = gui_find (GTK_WIDGET (review), GTK_TYPE_ENTRY, NULL);
  gui_type (entry, "do not print, just count the rows");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "do not print, just count the rows");
  shot (window, reason_shot);
  gui_key (entry, GDK_KEY_Return, 0);
  let_cursor_blink (entry);
  wait_idle (window);
  let_cursor_blink (entry);
  shot (window, rejected_shot);
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));

  cell = assay_session_get_cell (assay_window_get_session (window), 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_REJECTED);
  g_assert_cmpstr (cell->reason, ==, "do not print, just count the rows");
  g_assert_cmpstr (cell_status (window, cell->id), ==, "rejected");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                              "Rejected: do not print, just count the rows"));
  record_path = g_build_filename (assay_session_get_dir (assay_window_get_session (window)), "session.json", NULL);
  g_assert_true (g_file_get_contents (record_path, &record, NULL, NULL));
  g_assert_nonnull (strstr (record, "do not print, just count the rows"));
  gui_close_window (window);
}

static void
test_reject (void)
{
  edit_and_reject (1400, 900);
}

static void
test_reject_narrow (void)
{
  edit_and_reject (400, 800);
}

static void
test_auto (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, two_cells, csv_path, 1400, 900);
  AssayCodeReview *review = assay_window_get_code_review (window);
  AssaySession *session;
  g_autofree char *code = NULL;

  assay_code_review_set_auto_run (review, TRUE);
  send (window, "Which region sells most?");
  wait_idle (window);
  session = assay_window_get_session (window);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 2);
  g_assert_cmpint (assay_session_get_cell (session, 0)->decision, ==, ASSAY_DECISION_AUTO);
  g_assert_cmpint (assay_session_get_cell (session, 1)->decision, ==, ASSAY_DECISION_AUTO);
  check_answer (GTK_WIDGET (assay_window_get_chat_view (window)));
  /* The code that ran is in the view. */
  code = assay_code_review_get_code (review);
  g_assert_nonnull (strstr (code, "savefig"));
  gui_close_window (window);
}

static gboolean
is_warm (gpointer data)
{
  return assay_conversation_get_warm (assay_window_get_conversation (data));
}

/* The pool, wired in: the session's first dataset starts a sandbox, the first cell runs in
 * it, the pool is refilled with another, and a change to the sandbox settings empties it
 * (then refills it under the new ones). */
static void
test_warm_sandbox (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, two_cells, csv_path, 1400, 900);
  AssayConversation *conversation = assay_window_get_conversation (window);
  g_autofree char *warm = NULL;
  g_autofree char *refilled = NULL;
  AssaySession *session;

  gui_wait (is_warm, window, 120, "a warm sandbox after the first dataset");
  warm = g_strdup (assay_conversation_get_warm_id (conversation));
  g_assert_nonnull (warm);
  g_assert_null (assay_window_get_kernel_id (window));

  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  send (window, "Which region sells most?");
  wait_idle (window);
  session = assay_window_get_session (window);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 2);
  g_assert_cmpint (assay_session_get_cell (session, 0)->status, ==, ASSAY_CELL_OK);
  /* The cells ran in the sandbox that was warm. */
  g_assert_cmpstr (assay_window_get_kernel_id (window), ==, warm);

  gui_wait (is_warm, window, 120, "the pool refilled");
  refilled = g_strdup (assay_conversation_get_warm_id (conversation));
  g_assert_cmpstr (refilled, !=, warm);

  g_settings_set_uint (settings, "memory-mb", g_settings_get_uint (settings, "memory-mb") + 1);
  g_assert_null (assay_conversation_get_warm_id (conversation));
  gui_wait (is_warm, window, 120, "the pool refilled under the new settings");
  g_assert_cmpstr (assay_conversation_get_warm_id (conversation), !=, refilled);
  g_settings_reset (settings, "memory-mb");
  gui_close_window (window);
}

/* The code itself runs: its first output is in. */
static gboolean
is_running (gpointer data)
{
  return gui_find (GTK_WIDGET (assay_window_get_chat_view (data)), GTK_TYPE_TEXT_VIEW, "start") != NULL;
}

static void
test_stop (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, sleeping_cell, csv_path, 1400, 900);
  gint64 started;

  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  send (window, "Sleep");
  gui_wait (is_running, window, 90, "the cell to run");
  /* Another session cannot be opened while the question runs: refused at once, nothing
   * starts loading, the session stays. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *other = session_fixture_write_long (NULL, "Another session", 2, 64);
    AssaySession *session = assay_window_get_session (window);

    g_assert_false (assay_window_open_session (window, other, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
    gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", other);
    g_assert_false (assay_window_get_opening (window));
    g_assert_false (assay_chat_view_get_loading (assay_window_get_chat_view (window)));
    g_assert_true (assay_window_get_session (window) == session);
    g_assert_true (assay_window_get_busy (window));
    g_assert_true (assay_session_delete (other, NULL));
  }
  started = g_get_monotonic_time ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL);
  wait_idle (window);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 30 * G_USEC_PER_SEC);
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL, "Stopped."));
  g_assert_cmpstr (assay_session_get_status (assay_window_get_session (window)), ==, "cancelled");
  gui_close_window (window);
}

static const char *sleeping_30 =
  "{\"format\": \"assay-transcript\", \"turns\": ["
  "{\"text\": \"A long wait.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"import time\\nprint('start', flush=True)\\ntime.sleep(30)\\n\", \"description\": \"Sleep\"}}]},"
  "{\"text\": \"Never reached.\"}]}";

/* Processes whose environment carries ASSAY_SESSION=ID: what bubblewrap marks the sandbox of
 * a kernel with. */
static guint
count_sandbox_processes (const char *id)
{
  g_autofree char *marker = g_strdup_printf ("ASSAY_SESSION=%s", id);
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint count = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *environ = NULL;
      gsize len;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "environ", NULL);
      if (!g_file_get_contents (path, &environ, &len, NULL))
        continue;
      for (gsize i = 0; i < len; i += strlen (environ + i) + 1)
        if (g_str_equal (environ + i, marker))
          {
            count++;
            break;
          }
    }
  return count;
}

typedef struct
{
  GObject *object;
} WeakWait;

static gboolean
finalized (gpointer data)
{
  return ((WeakWait *) data)->object == NULL;
}

/* Closing the window while a cell runs stops the cell, ends the sandbox and keeps the
 * session: the question and the interrupted cell are on disk. */
static gboolean
record_cancelled (gpointer data)
{
  g_autoptr(AssaySession) saved = assay_session_load (data, NULL);

  return saved != NULL && g_strcmp0 (assay_session_get_status (saved), "cancelled") == 0;
}

static void
test_close_while_running (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, sleeping_30, csv_path, 1400, 900);
  g_autofree char *dir = NULL;
  g_autofree char *kernel_id = NULL;
  g_autoptr(AssaySession) saved = NULL;
  g_autoptr(GError) error = NULL;
  AssaySessionCell *cell;
  WeakWait wait = { G_OBJECT (window) };
  gint64 started, blocked;
  gboolean has_question = FALSE;
  GPtrArray *messages;

  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  send (window, "Sleep for a while");
  gui_wait (is_running, window, 90, "the cell to run");
  dir = g_strdup (assay_session_get_dir (assay_window_get_session (window)));
  kernel_id = g_strdup (assay_window_get_kernel_id (window));
  g_assert_nonnull (kernel_id);
  g_assert_cmpuint (count_sandbox_processes (kernel_id), >, 0);
  g_assert_cmpstr (cell_status (window, "c1"), ==, "running");

  started = g_get_monotonic_time ();
  gtk_window_destroy (GTK_WINDOW (window));
  blocked = g_get_monotonic_time () - started;
  g_test_message ("gtk_window_destroy returned after %" G_GINT64_FORMAT " ms", blocked / 1000);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &wait.object);
  g_object_unref (window);
  gui_wait (finalized, &wait, 10, "the window to finalize");
  g_test_message ("the window finalized %" G_GINT64_FORMAT " ms after the close",
                  (g_get_monotonic_time () - started) / 1000);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 10 * G_USEC_PER_SEC);

  for (guint i = 0; i < 50 && count_sandbox_processes (kernel_id) > 0; i++)
    gui_spin (100);
  g_assert_cmpuint (count_sandbox_processes (kernel_id), ==, 0);

  /* The record is written by a worker; the application would be held until it lands. */
  gui_wait (record_cancelled, dir, 10, "the cancelled question's record");
  saved = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (saved);
  messages = assay_session_get_messages (saved);
  for (guint i = 0; i < messages->len; i++)
    {
      AssayLlmMessage *message = g_ptr_array_index (messages, i);

      if (message->role == ASSAY_LLM_ROLE_USER && g_strcmp0 (message->text, "Sleep for a while") == 0)
        has_question = TRUE;
    }
  g_assert_true (has_question);
  g_assert_cmpstr (assay_session_get_status (saved), ==, "cancelled");
  g_assert_cmpuint (assay_session_get_n_cells (saved), ==, 1);
  cell = assay_session_get_cell (saved, 0);
  g_assert_cmpstr (cell->id, ==, "c1");
  g_assert_nonnull (strstr (cell->code, "time.sleep(30)"));
  g_assert_true (cell->status == ASSAY_CELL_CANCELLED || cell->status == ASSAY_CELL_INTERRUPTED);
}

static gboolean
retry_shown (gpointer data)
{
  return assay_chat_view_get_retry_visible (assay_window_get_chat_view (data));
}

static void
test_retry_banner (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  AssayWindow *window;
  AssayChatView *chat;

  server = gui_fake_server_start ("{\"responses\": ["
                                  "{\"flavor\": \"openai\", \"status\": 429, \"message\": \"Rate limit reached\", \"headers\": {\"retry-after\": \"4\"}},"
                                  "{\"flavor\": \"openai\", \"turn\": {\"text\": \"The answer is **42**.\", \"finish\": \"stop\"}}]}",
                                  &base_url, &log_path);
  g_setenv ("ASSAY_LLM_RETRY_SCALE", "0.5", TRUE);
  window = gui_open_recorded_window (work_dir, one_cell, csv_path, 1400, 900);
  provider = assay_openai_provider_new (base_url, NULL);
  assay_window_set_provider (window, provider, "fake-model", FALSE);
  chat = assay_window_get_chat_view (window);

  send (window, "What is the answer?");
  gui_wait (retry_shown, window, 30, "the retry banner");
  g_assert_nonnull (strstr (assay_chat_view_get_retry_text (chat), "The model server is busy, retrying in"));
  g_assert_nonnull (strstr (assay_chat_view_get_retry_text (chat), " s "));
  wait_idle (window);
  g_assert_false (assay_chat_view_get_retry_visible (chat));
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "The answer is 42."));
  gui_close_window (window);

  g_unsetenv ("ASSAY_LLM_RETRY_SCALE");
  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
  g_unlink (log_path);
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
  work_dir = g_dir_make_tmp ("assay-gui-agent-XXXXXX", NULL);
  csv_path = gui_write_file (work_dir, "regions.csv", "region,amount\nnorth,120\nsouth,80\n");

  g_test_add_func ("/assay/app/agent/run", test_run);
  g_test_add_func ("/assay/app/agent/edit", test_edit);
  g_test_add_func ("/assay/app/agent/edit-narrow", test_edit_narrow);
  g_test_add_func ("/assay/app/agent/edit-off", test_edit_off);
  g_test_add_func ("/assay/app/agent/edit-off-run", test_edit_off_run);
  g_test_add_func ("/assay/app/agent/reject", test_reject);
  g_test_add_func ("/assay/app/agent/reject-narrow", test_reject_narrow);
  g_test_add_func ("/assay/app/agent/auto", test_auto);
  g_test_add_func ("/assay/app/agent/warm-sandbox", test_warm_sandbox);
  g_test_add_func ("/assay/app/agent/stop", test_stop);
  g_test_add_func ("/assay/app/agent/retry-banner", test_retry_banner);
  g_test_add_func ("/assay/app/agent/close-while-running", test_close_while_running);
  status = g_test_run ();

  g_object_unref (settings);
  return status;
}
