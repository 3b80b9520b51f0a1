/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Run Again with New Data" and "What Changed", for real: a question answered in the window
 * with the recorded provider and the real sandbox (bubblewrap) makes the origin; win.rerun
 * opens the dialog, the new file is set on the dataset's row the way a drop does, compared
 * in a worker (rows before and now), then Run runs the cell again and the window opens the new
 * session on its "What Changed" card, whose rows are the session's changes with the new
 * answer's numbers. A renamed column keeps Run off and the row names it; a cell that fails on
 * the new data is named, with what ran opened from the dialog.
 * Screenshots: rerun-dialog.png, rerun-changes.png, rerun-missing-column.png,
 * rerun-cell-failed.png. */
#include "config.h"

#include <string.h>

#include "assay-changes-card.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-rerun.h"
#include "assay-rerun-dialog.h"
#include "assay-session-store.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

#define CELL_SUM "import pandas as pd\\ndf = pd.read_csv('/data/sales.csv')\\n" \
                 "assert len(df) < 5, 'too many regions'\\n" \
                 "print('total', df.amount.sum())\\nprint('share', df.amount.max() / df.amount.sum())\\n"
#define ANSWER "The total amount is 3, and the largest region has 66.7% of it."

static const char *transcript =
  "{\"format\": \"assay-transcript\", \"model\": \"recorded-gui\", \"turns\": ["
  "{\"text\": \"Summing.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"" CELL_SUM "\", \"description\": \"Sum the amounts\"}}]},"
  "{\"text\": \"" ANSWER "\"}]}";

static GSettings *settings;
static char *work_dir;

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static gboolean
not_comparing (gpointer data)
{
  return !assay_rerun_dialog_get_comparing (data);
}

static gboolean
not_running (gpointer data)
{
  return !assay_rerun_dialog_get_running (data);
}

static char *
write_csv (const char *folder,
           const char *contents)
{
  g_autofree char *dir = g_build_filename (work_dir, folder, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  return gui_write_file (dir, "sales.csv", contents);
}

/* The window, with a session that asked QUESTION with TRANSCRIPT_JSON and ran its cells on
 * the old file FOLDER/sales.csv (CONTENTS); its answer must be ANSWER. */
static AssayWindow *
open_origin_with (const char  *transcript_json,
                  const char  *folder,
                  const char  *contents,
                  const char  *question,
                  const char  *answer,
                  char       **origin_dir)
{
  g_autofree char *csv = write_csv (folder, contents);
  AssayWindow *window = gui_open_recorded_window (work_dir, transcript_json, csv, 1280, 800);
  AssaySession *session = assay_window_get_session (window);

  /* No cell has run yet: nothing to run again, and no dialog opens. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.rerun", NULL);
  gui_spin (100);

  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 180, "the question to end");
  g_assert_cmpstr (assay_session_get_status (session), ==, "answered");
  g_assert_cmpstr (assay_session_get_answer (session), ==, answer);
  *origin_dir = g_strdup (assay_session_get_dir (session));
  return window;
}

static AssayWindow *
open_origin (char **origin_dir)
{
  return open_origin_with (transcript, "old", "region,amount\nnorth,1\nsouth,2\n", "What is the total?", ANSWER,
                           origin_dir);
}

static AssayRerunDialog *
find_rerun_dialog (void)
{
  return (AssayRerunDialog *) gui_find_toplevel (ASSAY_TYPE_RERUN_DIALOG);
}

/* FILE dropped on the row of the dataset NAME, through the row's own drop target. */
static void
drop_file (AssayRerunDialog *dialog,
           const char       *name,
           GFile            *file)
{
  GtkWidget *row = gui_find (GTK_WIDGET (dialog), ADW_TYPE_PREFERENCES_ROW, name);
  g_autoptr(GListModel) controllers = NULL;
  GdkFileList *list;
  GSList *files = g_slist_prepend (NULL, file);
  GValue value = G_VALUE_INIT;
  gboolean dropped = FALSE;
  guint n_targets = 0;

  g_assert_nonnull (row);
  list = gdk_file_list_new_from_list (files);
  g_slist_free (files);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, list);
  controllers = gtk_widget_observe_controllers (row);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        {
          g_signal_emit_by_name (controller, "drop", &value, 10.0, 10.0, &dropped);
          n_targets++;
        }
    }
  g_value_unset (&value);
  g_assert_cmpuint (n_targets, ==, 1);
  g_assert_true (dropped);
}

/* win.rerun's dialog, referenced, with the new file NEW_CSV set on the row (dropped on it when
 * DROP) and compared. */
static AssayRerunDialog *
open_dialog_with (AssayWindow *window,
                  const char  *new_csv,
                  gboolean     drop)
{
  g_autoptr(GFile) file = g_file_new_for_path (new_csv);
  g_autofree char *text = NULL;
  AssayRerunDialog *dialog;

  g_assert_null (find_rerun_dialog ());
  gtk_widget_activate_action (GTK_WIDGET (window), "win.rerun", NULL);
  dialog = find_rerun_dialog ();
  g_assert_nonnull (dialog);
  g_object_ref (dialog);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));

  /* One row per dataset, with its rows, and no file yet: Run is off. */
  text = assay_rerun_dialog_dup_dataset_text (dialog, "sales.csv");
  g_assert_nonnull (strstr (text, "sales.csv"));
  g_assert_nonnull (strstr (text, " rows; no new file chosen"));
  g_assert_false (assay_rerun_dialog_get_can_run (dialog));
  g_assert_nonnull (gui_find (GTK_WIDGET (dialog), GTK_TYPE_BUTTON, NULL));

  if (drop)
    drop_file (dialog, "sales.csv", file);
  else
    assay_rerun_dialog_set_file (dialog, "sales.csv", file);
  gui_wait (not_comparing, dialog, 60, "the new file to be compared");
  return dialog;
}

typedef struct
{
  AssayWindow *window;
  char        *dir;        /* what the dialog asked the window to open */
  gboolean     changes;
} Opened;

static void
open_session_cb (AssayRerunDialog *dialog,
                 const char       *dir,
                 gboolean          changes,
                 Opened           *opened)
{
  g_free (opened->dir);
  opened->dir = g_strdup (dir);
  opened->changes = changes;
}

static gboolean
rerun_shown (gpointer data)
{
  Opened *opened = data;
  AssaySession *session = assay_window_get_session (opened->window);

  return opened->dir != NULL && !assay_window_get_opening (opened->window) && session != NULL &&
         g_strcmp0 (assay_session_get_dir (session), opened->dir) == 0;
}

static gboolean
store_lists (gpointer data)
{
  Opened *opened = data;

  return assay_session_store_lookup (assay_window_get_session_store (opened->window), opened->dir) != NULL;
}

static void
test_new_data (void)
{
  g_autofree char *origin_dir = NULL;
  AssayWindow *window = open_origin (&origin_dir);
  g_autofree char *new_csv = write_csv ("new", "region,amount\nnorth,10\nsouth,25\neast,5\n");
  AssayRerunDialog *dialog = open_dialog_with (window, new_csv, FALSE);
  g_autofree char *text = assay_rerun_dialog_dup_dataset_text (dialog, "sales.csv");
  g_autoptr(AssaySession) origin = NULL;
  g_autoptr(GError) error = NULL;
  Opened opened = { window, NULL, FALSE };
  AssayChatView *chat = assay_window_get_chat_view (window);
  AssayChangesCard *card;
  AssaySession *session;
  GPtrArray *changes;
  GtkWidget *focus;

  /* The comparison: rows before and now, every column there. */
  g_assert_nonnull (strstr (text, "2 rows before, 3 now"));
  g_assert_nonnull (strstr (text, "It has every column the session used"));
  g_assert_null (strstr (text, "Missing column"));
  g_assert_true (assay_rerun_dialog_get_can_run (dialog));
  gui_save_screenshot (GTK_WIDGET (dialog), "rerun-dialog.png");

  g_signal_connect (dialog, "open-session", G_CALLBACK (open_session_cb), &opened);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "rerun.run", NULL);
  g_assert_true (assay_rerun_dialog_get_running (dialog));
  g_assert_false (assay_rerun_dialog_get_can_run (dialog));
  gui_wait (rerun_shown, &opened, 180, "the new session to be opened");

  /* The dialog closed on success, having listed the one cell it ran. */
  g_assert_true (opened.changes);
  g_assert_null (find_rerun_dialog ());
  g_assert_cmpuint (assay_rerun_dialog_get_n_cells (dialog), ==, 1);
  g_assert_null (assay_rerun_dialog_get_message (dialog));
  g_signal_handlers_disconnect_by_data (dialog, &opened);
  g_assert_finalize_object (dialog);

  /* The new session, linked to the old one, in the sidebar's list. */
  session = assay_window_get_session (window);
  g_assert_cmpstr (assay_session_get_rerun_of (session), ==, origin_dir);
  g_assert_cmpstr (assay_session_get_status (session), ==, "answered");
  g_assert_cmpstr (assay_session_get_answer (session), ==,
                   "The total amount is 40, and the largest region has 62.5% of it.");
  gui_wait (store_lists, &opened, 30, "the sessions list to show the new session");
  origin = assay_session_load (origin_dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_session_get_reruns (origin)->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (assay_session_get_reruns (origin), 0), ==, opened.dir);

  /* "What Changed" first, focused: one row per change, After as the new answer writes it. */
  card = assay_chat_view_get_changes_card (chat);
  g_assert_nonnull (card);
  g_assert_true (gtk_widget_get_prev_sibling (GTK_WIDGET (card)) == NULL ||
                 !gtk_widget_get_visible (gtk_widget_get_prev_sibling (GTK_WIDGET (card))));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == GTK_WIDGET (card) || (focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (card))));
  changes = assay_session_get_changes (session);
  g_assert_cmpuint (changes->len, ==, 2);
  g_assert_cmpuint (assay_changes_card_get_n_rows (card), ==, changes->len);
  for (guint i = 0; i < changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (changes, i);
      g_autofree char *delta = assay_rerun_format_delta (change);
      g_autofree char *percent = assay_rerun_format_percent (change);

      g_assert_false (change->stale);
      g_assert_false (assay_changes_card_get_row_stale (card, i));
      g_assert_cmpstr (assay_changes_card_get_text (card, i, ASSAY_CHANGES_COLUMN_BEFORE), ==, change->before_text);
      g_assert_cmpstr (assay_changes_card_get_text (card, i, ASSAY_CHANGES_COLUMN_AFTER), ==, change->after_text);
      g_assert_nonnull (strstr (assay_session_get_answer (session), change->after_text));
      g_assert_cmpstr (assay_changes_card_get_text (card, i, ASSAY_CHANGES_COLUMN_CHANGE), ==, delta);
      g_assert_cmpstr (assay_changes_card_get_text (card, i, ASSAY_CHANGES_COLUMN_PERCENT), ==, percent);
      /* Each number named by its line, not by the question. */
      g_assert_nonnull (strstr (assay_changes_card_get_text (card, i, ASSAY_CHANGES_COLUMN_NUMBER),
                                i == 0 ? "total" : "share"));
      g_assert_null (strstr (assay_changes_card_get_text (card, i, ASSAY_CHANGES_COLUMN_NUMBER), "What is the total?"));
    }
  g_assert_cmpstr (assay_changes_card_get_text (card, 0, ASSAY_CHANGES_COLUMN_BEFORE), ==, "3");
  g_assert_cmpstr (assay_changes_card_get_text (card, 0, ASSAY_CHANGES_COLUMN_AFTER), ==, "40");
  g_assert_cmpstr (assay_changes_card_get_text (card, 1, ASSAY_CHANGES_COLUMN_AFTER), ==, "62.5%");
  g_assert_null (assay_changes_card_get_text (card, changes->len, ASSAY_CHANGES_COLUMN_AFTER));
  /* Its origin is there: the card offers to open it. */
  g_assert_cmpstr (assay_changes_card_get_origin_dir (card), ==, origin_dir);
  g_assert_nonnull (gui_find (GTK_WIDGET (card), GTK_TYPE_LABEL, "Run again on new data from “What is the total?”"));
  assay_window_dismiss_toast (window);
  gui_save_screenshot (GTK_WIDGET (window), "rerun-changes.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 700);
  gui_save_screenshot (GTK_WIDGET (window), "rerun-changes-800.png");

  /* A session run again can be run again. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.rerun", NULL);
  dialog = find_rerun_dialog ();
  g_assert_nonnull (dialog);
  gtk_window_destroy (GTK_WINDOW (dialog));
  gui_spin (50);

  g_free (opened.dir);
  gui_close_window (window);
}

static void
test_renamed_column (void)
{
  g_autofree char *origin_dir = NULL;
  AssayWindow *window = open_origin (&origin_dir);
  g_autofree char *renamed_csv = write_csv ("renamed", "region,value\nnorth,10\nsouth,25\n");
  AssayRerunDialog *dialog = open_dialog_with (window, renamed_csv, TRUE);
  g_autofree char *text = assay_rerun_dialog_dup_dataset_text (dialog, "sales.csv");
  GtkWidget *missing;

  /* The missing column blocks the run, in error style; the new one only informs. */
  g_assert_nonnull (strstr (text, "2 rows before, 2 now"));
  g_assert_nonnull (strstr (text, "Missing column: amount"));
  g_assert_nonnull (strstr (text, "New column, not used: value"));
  g_assert_null (strstr (text, "It has every column"));
  missing = gui_find (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "Missing column: amount");
  g_assert_nonnull (missing);
  g_assert_true (gtk_widget_has_css_class (missing, "error"));
  g_assert_true (gtk_widget_has_css_class (gui_find (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "New column, not used: value"),
                                           "dim-label"));
  g_assert_false (assay_rerun_dialog_get_can_run (dialog));
  gtk_widget_activate_action (GTK_WIDGET (dialog), "rerun.run", NULL);
  g_assert_false (assay_rerun_dialog_get_running (dialog));
  gui_save_screenshot (GTK_WIDGET (dialog), "rerun-missing-column.png");

  /* Another file, in another dialect: the difference is converted, said as information. */
  {
    g_autofree char *semicolons_csv = write_csv ("semicolons", "region;amount\nnorth;10\nsouth;25\n");
    g_autoptr(GFile) semicolons = g_file_new_for_path (semicolons_csv);
    g_autofree char *converted = NULL;
    GtkWidget *note;

    assay_rerun_dialog_set_file (dialog, "sales.csv", semicolons);
    gui_wait (not_comparing, dialog, 60, "the other file to be compared");
    converted = assay_rerun_dialog_dup_dataset_text (dialog, "sales.csv");
    g_assert_null (strstr (converted, "Missing column"));
    note = gui_find (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "Format: ");
    g_assert_nonnull (note);
    g_assert_true (gtk_widget_has_css_class (note, "dim-label"));
    g_assert_true (assay_rerun_dialog_get_can_run (dialog));
  }

  /* Nothing was made: the window still shows the origin. */
  g_assert_cmpstr (assay_session_get_dir (assay_window_get_session (window)), ==, origin_dir);
  gtk_window_close (GTK_WINDOW (dialog));
  gui_spin (50);
  g_assert_finalize_object (dialog);
  gui_close_window (window);
}

static void
test_cell_fails (void)
{
  g_autofree char *origin_dir = NULL;
  AssayWindow *window = open_origin (&origin_dir);
  g_autofree char *big_csv = write_csv ("big", "region,amount\na,1\nb,1\nc,1\nd,1\ne,1\nf,1\n");
  AssayRerunDialog *dialog = open_dialog_with (window, big_csv, FALSE);
  Opened opened = { window, NULL, FALSE };
  AssaySession *session;

  g_assert_true (assay_rerun_dialog_get_can_run (dialog));
  gtk_widget_activate_action (GTK_WIDGET (dialog), "rerun.run", NULL);
  gui_wait (not_running, dialog, 180, "the run to end");

  /* The dialog stays, naming the cell and why; what ran can be opened. */
  g_assert_cmpstr (assay_rerun_dialog_get_failed_cell (dialog), ==, "c1");
  g_assert_nonnull (strstr (assay_rerun_dialog_get_message (dialog), "Cell c1 failed on the new data"));
  g_assert_nonnull (gui_find (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "Cell c1 failed on the new data"));
  g_assert_cmpuint (assay_rerun_dialog_get_n_cells (dialog), ==, 1);
  g_assert_true (find_rerun_dialog () == dialog);
  gui_save_screenshot (GTK_WIDGET (dialog), "rerun-cell-failed.png");

  g_signal_connect (dialog, "open-session", G_CALLBACK (open_session_cb), &opened);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "rerun.open-what-ran", NULL);
  g_assert_false (opened.changes);
  gui_wait (rerun_shown, &opened, 60, "what ran to be opened");
  g_signal_handlers_disconnect_by_data (dialog, &opened);
  g_assert_finalize_object (dialog);
  session = assay_window_get_session (window);
  g_assert_cmpstr (assay_session_get_rerun_of (session), ==, origin_dir);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);
  g_assert_cmpint (assay_session_get_cell (session, 0)->status, ==, ASSAY_CELL_ERROR);
  g_assert_nonnull (assay_chat_view_get_changes_card (assay_window_get_chat_view (window)));

  g_free (opened.dir);
  gui_close_window (window);
}

/* ---- a ranking that changed (issue 32) ----------------------------------------------------- */

#define CELL_RANKING "import pandas as pd\\ndf = pd.read_csv('/data/sales.csv')\\n" \
                     "rev = df.groupby('region')['amount'].sum().sort_values(ascending=False)\\n" \
                     "for region, r in rev.items():\\n    print(f'{region}: {r:.2f}')\\n"
#define RANKING_ANSWER "north sells most with 20.50, then south with 10.25 and east with 5.75."

static const char *ranking_transcript =
  "{\"format\": \"assay-transcript\", \"model\": \"recorded-gui\", \"turns\": ["
  "{\"text\": \"Ranking.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"" CELL_RANKING "\", \"description\": \"Revenue per region\"}}]},"
  "{\"text\": \"" RANKING_ANSWER "\"}]}";

#define REWRITE "South now sells most with 30.00; north follows with 12.00."

static const char *rewrite_transcript =
  "{\"format\": \"assay-transcript\", \"model\": \"recorded-gui\", \"turns\": ["
  "{\"text\": \"" REWRITE "\"}]}";

static gboolean
rewritten (gpointer data)
{
  return assay_changes_card_get_rewrite (data) != NULL;
}

/* The regions' ranking changes and east is gone: through the dialog, each number of the new
 * answer is its own region's (south 30.00, north 12.00, as the new file sums them) or stale
 * (east), never another region's; What Changed names each by its line and says the order
 * changed. */
static void
test_ranking (void)
{
  g_autofree char *origin_dir = NULL;
  AssayWindow *window = open_origin_with (ranking_transcript, "rank-old",
                                          "region,amount\nnorth,20.50\nsouth,10.25\neast,5.75\n",
                                          "Which region sells most?", RANKING_ANSWER, &origin_dir);
  g_autofree char *new_csv = write_csv ("rank-new", "region,amount\nnorth,12\nsouth,10\nsouth,20\n");
  AssayRerunDialog *dialog = open_dialog_with (window, new_csv, TRUE);
  Opened opened = { window, NULL, FALSE };
  AssayChangesCard *card;
  AssaySession *session;
  const AssayProvenance *provenance;
  GPtrArray *changes, *notes;
  guint stale = 0;

  g_signal_connect (dialog, "open-session", G_CALLBACK (open_session_cb), &opened);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "rerun.run", NULL);
  gui_wait (rerun_shown, &opened, 180, "the new session to be opened");
  g_signal_handlers_disconnect_by_data (dialog, &opened);
  g_object_unref (dialog);

  session = assay_window_get_session (window);
  g_assert_cmpstr (assay_session_get_answer (session), ==,
                   "north sells most with 12.00, then south with 30.00 and east with 5.75.");
  changes = assay_session_get_changes (session);
  g_assert_cmpuint (changes->len, ==, 3);
  card = assay_chat_view_get_changes_card (assay_window_get_chat_view (window));
  g_assert_nonnull (card);
  for (guint i = 0; i < changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (changes, i);
      const char *label = assay_changes_card_get_text (card, i, ASSAY_CHANGES_COLUMN_NUMBER);
      const char *region = i == 0 ? "north" : i == 1 ? "south" : "east";

      g_assert_nonnull (strstr (label, region));
      g_assert_cmpint (change->stale, ==, i == 2);
      g_assert_cmpint (assay_changes_card_get_row_stale (card, i), ==, i == 2);
      stale += change->stale;
    }
  g_assert_cmpuint (stale, ==, 1);
  /* The new answer's provenance: north and south traced to their own lines, east not. */
  provenance = assay_session_get_provenance (session, assay_session_get_messages (session)->len - 1);
  g_assert_nonnull (provenance);
  g_assert_cmpuint (provenance->numbers->len, ==, 3);
  g_assert_cmpstr (((AssayTracedNumber *) g_ptr_array_index (provenance->numbers, 0))->line_text, ==, "north: 12.00");
  g_assert_cmpstr (((AssayTracedNumber *) g_ptr_array_index (provenance->numbers, 1))->line_text, ==, "south: 30.00");
  g_assert_false (((AssayTracedNumber *) g_ptr_array_index (provenance->numbers, 2))->found);
  g_assert_true (((AssayTracedNumber *) g_ptr_array_index (provenance->numbers, 2))->stale);
  notes = assay_session_get_rerun_notes (session);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), "another order"));

  /* The order changed: Rewrite Summary, clicked, has the model reword the summary from the new
   * outputs; the rewrite is shown and kept beside the summary, which stays the answer. */
  {
    g_autofree char *path = gui_write_file (work_dir, "rewrite.json", rewrite_transcript);
    g_autoptr(AssayLlmProvider) provider = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(AssaySession) reopened = NULL;
    GtkWidget *label, *button;

    provider = assay_recorded_provider_new (path, &error);
    g_assert_no_error (error);
    assay_window_set_provider (window, provider, "recorded-gui", FALSE);
    g_assert_null (assay_changes_card_get_rewrite (card));
    g_assert_true (assay_chat_view_reveal_changes (assay_window_get_chat_view (window)));
    gui_spin (300);
    /* The button's own label (the note names it too). */
    label = gui_find (GTK_WIDGET (card), GTK_TYPE_LABEL, "Rewrite Summary");
    while (label != NULL && gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON) == NULL)
      {
        GtkWidget *next = label;

        /* The next label with that text, after this one. */
        label = NULL;
        for (GtkWidget *w = next; w != NULL && label == NULL; w = gtk_widget_get_parent (w))
          for (GtkWidget *sibling = gtk_widget_get_next_sibling (w); sibling != NULL && label == NULL;
               sibling = gtk_widget_get_next_sibling (sibling))
            label = gui_find (sibling, GTK_TYPE_LABEL, "Rewrite Summary");
      }
    g_assert_nonnull (label);
    button = gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON);
    gui_click (button);
    gui_wait (rewritten, card, 120, "the model's rewrite to be shown");
    gui_wait (is_idle, window, 60, "the rewrite to end");
    g_assert_cmpstr (assay_changes_card_get_rewrite (card), ==, REWRITE);
    g_assert_cmpstr (assay_session_get_rewrite (session), ==, REWRITE);
    g_assert_cmpstr (assay_session_get_answer (session), ==,
                     "north sells most with 12.00, then south with 30.00 and east with 5.75.");
    reopened = assay_session_load (assay_session_get_dir (session), &error);
    g_assert_no_error (error);
    g_assert_cmpstr (assay_session_get_rewrite (reopened), ==, REWRITE);
  }
  gui_save_screenshot (GTK_WIDGET (window), "rerun-ranking.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 800);
  gui_spin (500);
  gui_save_screenshot (GTK_WIDGET (window), "rerun-ranking-400.png");
  gui_close_window (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;
  g_autofree char *command = NULL;

  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  work_dir = g_dir_make_tmp ("assay-gui-rerun-XXXXXX", NULL);

  g_test_add_func ("/assay/app/rerun/new-data", test_new_data);
  g_test_add_func ("/assay/app/rerun/renamed-column", test_renamed_column);
  g_test_add_func ("/assay/app/rerun/cell-fails", test_cell_fails);
  g_test_add_func ("/assay/app/rerun/ranking", test_ranking);
  status = g_test_run ();

  command = g_strdup_printf ("rm -rf '%s'", work_dir);
  g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL);
  g_object_unref (settings);
  g_free (work_dir);
  return status;
}
