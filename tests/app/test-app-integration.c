/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window's artifacts page and its report export, after a real question: the recorded
 * provider, the real sandbox (bubblewrap), a cell that saves a PNG. The gallery lists the
 * figure, a tile and the chat's thumbnail open the viewer, the session exports to PDF, HTML
 * and a notebook through assay_window_export_async (what win.export does once its dialog and
 * the file chooser are answered), and win.export is off while there is nothing to export.
 * Screenshots: artifacts.png (the gallery) and artifact-viewer.png (the figure open). */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "assay-artifact-gallery.h"
#include "assay-artifact-viewer.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-report.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

static GSettings *settings;
static char *work_dir;
static char *csv_path;

#define CELL_LOOK "import pandas as pd\\ndf = pd.read_csv('/data/regions.csv')\\nprint(df.shape)\\nprint(df.to_string(index=False))\\n"
#define CELL_CHART "import matplotlib\\nmatplotlib.use('Agg')\\nimport matplotlib.pyplot as plt\\nfig, ax = plt.subplots(figsize=(4, 3))\\nax.bar(df['region'], df['amount'])\\nfig.savefig('/workspace/regions.png')\\nplt.close(fig)\\nprint('chart saved')\\n"
#define ANSWER "## Sales by region\\n\\nThe **north region leads** with 120 units.\\n"

static const char *two_cells =
  "{\"format\": \"assay-transcript\", \"model\": \"recorded-gui\", \"turns\": ["
  "{\"text\": \"Let me look at the file.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"" CELL_LOOK "\", \"description\": \"Load the file\"}}]},"
  "{\"text\": \"Now a chart.\", \"tool_calls\": [{\"id\": \"call_2\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"" CELL_CHART "\", \"description\": \"Bar chart\"}}]},"
  "{\"text\": \"" ANSWER "\"}]}";

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static AdwViewStack *
view_stack (AssayWindow *window)
{
  GtkWidget *stack = gui_find (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK, NULL);

  g_assert_nonnull (stack);
  return ADW_VIEW_STACK (stack);
}

static GtkWidget *
back_button (AssayWindow *window)
{
  GtkWidget *found = NULL;
  GtkWidget *root = GTK_WIDGET (window);
  g_autoptr(GQueue) queue = g_queue_new ();

  /* The header's back button: the GtkButton whose action is win.artifacts-back. */
  g_queue_push_tail (queue, root);
  while (found == NULL && !g_queue_is_empty (queue))
    {
      GtkWidget *widget = g_queue_pop_head (queue);

      if (GTK_IS_BUTTON (widget) &&
          g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.artifacts-back") == 0)
        found = widget;
      for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
        g_queue_push_tail (queue, child);
    }
  g_assert_nonnull (found);
  return found;
}

static GtkWidget *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* transfer none */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) widget = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (widget) && gtk_widget_get_visible (widget))
        return widget;
    }
  return NULL;
}

static void
screenshot (GtkWidget  *widget,
            const char *name)
{
  if (ASSAY_IS_WINDOW (widget))
    assay_window_dismiss_toast (ASSAY_WINDOW (widget));
  gui_save_screenshot (widget, name);
}

typedef struct
{
  AssayWindow  *window;
  AssayArtifactItem *item;
  gboolean      done;
  gboolean      ok;
  GError       *error;
} Export;

static void
exported_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Export *export = user_data;

  export->ok = assay_window_export_finish (ASSAY_WINDOW (source), result, &export->error);
  export->done = TRUE;
}

static gboolean
export_done (gpointer data)
{
  return ((Export *) data)->done;
}

static char *
export_to (AssayWindow       *window,
           const AssayReportFormat *format,
           const char        *name,
           gboolean           expect_ok)
{
  g_autofree char *path = g_build_filename (work_dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  AssayReportOptions options;
  Export export = { window, NULL, FALSE, FALSE, NULL };

  assay_report_options_init (&options);
  options.format = format;
  options.include_code = TRUE;
  options.only_successful = TRUE;
  assay_window_export_async (window, file, &options, exported_cb, &export);
  if (!export.done)
    {
      /* Running: the banner shows it, a second export is refused, win.export is off. */
      g_assert_true (assay_window_get_exporting (window));
      g_assert_false (assay_window_get_can_export (window));
    }
  gui_wait (export_done, &export, 120, "the export to end");
  if (expect_ok)
    {
      g_assert_no_error (export.error);
      g_assert_true (export.ok);
      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
      g_assert_nonnull (strstr (assay_window_get_last_toast (window), name));
    }
  else
    {
      g_assert_false (export.ok);
      g_assert_nonnull (export.error);
      g_clear_error (&export.error);
    }
  g_assert_false (assay_window_get_exporting (window));
  return g_steal_pointer (&path);
}

static gboolean
thumbnail_ready (gpointer data)
{
  AssayWindow *window = data;
  AssayArtifactGallery *gallery = assay_window_get_gallery (window);
  g_autoptr(AssayArtifactItem) item = g_list_model_get_item (G_LIST_MODEL (assay_artifact_gallery_get_model (gallery)), 0);

  return assay_artifact_gallery_get_n_pending (gallery) == 0 &&
         assay_artifact_gallery_get_thumbnail (gallery, item) != NULL;
}

static gboolean
viewer_ready (gpointer data)
{
  return assay_artifact_viewer_get_texture (assay_window_get_viewer (data)) != NULL;
}

static void
test_empty (void)
{
  AssayWindow *window = g_object_ref (assay_window_new (NULL));
  g_autoptr(GFile) csv = g_file_new_for_path (csv_path);
  AssayArtifactList *model;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_null (assay_window_get_session (window));
  g_assert_false (assay_window_get_can_export (window));
  g_assert_null (assay_artifact_gallery_get_model (assay_window_get_gallery (window)));

  /* Data but no question yet: still nothing to export, and the gallery is the session's. */
  gui_add_files (window, &csv, 1);
  g_assert_nonnull (assay_window_get_session (window));
  g_assert_false (assay_window_get_can_export (window));
  model = assay_artifact_gallery_get_model (assay_window_get_gallery (window));
  g_assert_nonnull (model);
  g_assert_true (assay_artifact_list_get_session (model) == assay_window_get_session (window));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 0);

  /* The disabled action opens no dialog. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.export", NULL);
  gui_spin (100);
  g_assert_null (find_message_dialog ());
  gui_close_window (window);
}

static void
test_artifacts_and_export (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, two_cells, csv_path, 1280, 800);
  AssayArtifactGallery *gallery = assay_window_get_gallery (window);
  AssayArtifactViewer *viewer = assay_window_get_viewer (window);
  AdwViewStack *stack = view_stack (window);
  g_autoptr(AssayArtifactItem) item = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *pdf = NULL;
  g_autofree char *html = NULL;
  g_autofree char *ipynb = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  GListModel *model;
  GtkWidget *dialog;
  GtkWidget *child;
  gsize length;

  assay_code_review_set_auto_run (assay_window_get_code_review (window), TRUE);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Which region sells most?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_false (assay_window_get_can_export (window));
  gui_wait (is_idle, window, 180, "the question to end");
  g_assert_cmpstr (assay_session_get_status (assay_window_get_session (window)), ==, "answered");
  g_assert_true (assay_window_get_can_export (window));

  /* The gallery got the figure live, from ::artifact-added. */
  model = G_LIST_MODEL (assay_artifact_gallery_get_model (gallery));
  g_assert_nonnull (model);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  item = g_list_model_get_item (model, 0);
  g_assert_cmpstr (assay_artifact_item_get_name (item), ==, "regions.png");
  g_assert_cmpint (assay_artifact_item_get_kind (item), ==, ASSAY_ARTIFACT_KIND_FIGURE);
  g_assert_true (g_file_test (assay_artifact_item_get_path (item), G_FILE_TEST_IS_REGULAR));

  adw_view_stack_set_visible_child_name (stack, "artifacts");
  g_assert_cmpstr (assay_window_get_artifacts_page (window), ==, "gallery");
  g_assert_false (gtk_widget_get_visible (back_button (window)));
  gui_wait (thumbnail_ready, window, 30, "the thumbnail");
  screenshot (GTK_WIDGET (window), "artifacts.png");

  /* A tile opens the viewer; back returns to the gallery. */
  g_signal_emit_by_name (gallery, "artifact-activated", item);
  g_assert_cmpstr (assay_window_get_artifacts_page (window), ==, "viewer");
  g_assert_true (assay_artifact_viewer_get_item (viewer) == item);
  g_assert_cmpstr (assay_artifact_viewer_get_page (viewer), ==, "image");
  g_assert_true (gtk_widget_get_visible (back_button (window)));
  gui_wait (viewer_ready, window, 30, "the figure in the viewer");
  screenshot (GTK_WIDGET (window), "artifact-viewer.png");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.artifacts-back", NULL);
  g_assert_cmpstr (assay_window_get_artifacts_page (window), ==, "gallery");
  g_assert_null (assay_artifact_viewer_get_item (viewer));
  g_assert_false (gtk_widget_get_visible (back_button (window)));

  /* The chat's thumbnail opens the same viewer on the same artifact. */
  adw_view_stack_set_visible_child_name (stack, "chat");
  child = gui_find_button (GTK_WIDGET (assay_window_get_chat_view (window)), "win.show-artifact");
  g_assert_nonnull (child);
  /* Scrolled into sight as the keyboard would, then a real click. */
  gtk_widget_grab_focus (child);
  gui_spin (300);
  gui_click (child);
  gui_wait (viewer_ready, window, 30, "the figure in the viewer, from the chat");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "artifacts");
  g_assert_cmpstr (assay_window_get_artifacts_page (window), ==, "viewer");
  g_assert_true (assay_artifact_viewer_get_item (viewer) == item);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.artifacts-back", NULL);

  /* win.export asks for the format and the options first. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.export", NULL);
  gui_spin (100);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  g_assert_nonnull (gui_find (dialog, ADW_TYPE_COMBO_ROW, NULL));
  g_assert_cmpuint (gui_count (dialog, GTK_TYPE_SWITCH), ==, 3);
  /* The dialog lists the report's format table, in its order, every name read in full
   * ("Reproducible Bundle (…" was cut). */
  g_assert_cmpuint (g_list_model_get_n_items (adw_combo_row_get_model (ADW_COMBO_ROW (gui_find (dialog, ADW_TYPE_COMBO_ROW, NULL)))),
                    ==, assay_report_get_n_formats ());
  for (guint i = 0; i < assay_report_get_n_formats (); i++)
    {
      GListModel *labels = adw_combo_row_get_model (ADW_COMBO_ROW (gui_find (dialog, ADW_TYPE_COMBO_ROW, NULL)));

      g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (labels), i), ==,
                       assay_report_format_get_label (assay_report_get_format (i)));
      adw_combo_row_set_selected (ADW_COMBO_ROW (gui_find (dialog, ADW_TYPE_COMBO_ROW, NULL)), i);
      gui_spin (100);
      gui_assert_not_ellipsized (dialog);
    }
  adw_combo_row_set_selected (ADW_COMBO_ROW (gui_find (dialog, ADW_TYPE_COMBO_ROW, NULL)), 0);
  /* What was sent to the model is left out unless asked for. */
  {
    GtkWidget *row = gui_find (dialog, ADW_TYPE_ACTION_ROW, "Include What Was Sent to the Model");

    g_assert_nonnull (row);
    g_assert_false (gtk_switch_get_active (GTK_SWITCH (gui_find (row, GTK_TYPE_SWITCH, NULL))));
  }
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  gtk_window_close (GTK_WINDOW (dialog));  /* what a click on a response does after it */
  gui_spin (100);
  g_assert_null (find_message_dialog ());

  /* The three formats. */
  pdf = export_to (window, assay_report_format_lookup ("pdf"), "report.pdf", TRUE);
  g_assert_true (g_file_get_contents (pdf, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 4);
  g_assert_true (memcmp (contents, "%PDF", 4) == 0);
  g_clear_pointer (&contents, g_free);

  html = export_to (window, assay_report_format_lookup ("html"), "report.html", TRUE);
  g_assert_true (g_file_get_contents (html, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "<html"));
  g_assert_nonnull (strstr (contents, "data:image/png;base64,"));
  g_clear_pointer (&contents, g_free);

  ipynb = export_to (window, assay_report_format_lookup ("ipynb"), "report.ipynb", TRUE);
  json_parser_load_from_file (parser, ipynb, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (json_parser_get_root (parser)), "nbformat"), ==, 4);

  /* A folder that does not exist: the export fails, a toast says why. */
  {
    g_autofree char *missing = g_build_filename ("missing-folder", "report.pdf", NULL);
    g_autofree char *ignored = export_to (window, assay_report_format_lookup ("pdf"), missing, FALSE);

    g_assert_nonnull (strstr (assay_window_get_last_toast (window), "could not be exported"));
    g_assert_false (g_file_test (ignored, G_FILE_TEST_EXISTS));
  }
  g_assert_true (assay_window_get_can_export (window));

  /* A new session has no files and nothing to export; reopening brings both back. */
  dir = g_strdup (assay_session_get_dir (assay_window_get_session (window)));
  assay_window_new_session (window);
  g_assert_null (assay_artifact_gallery_get_model (gallery));
  g_assert_false (assay_window_get_can_export (window));
  gui_open_session (window, dir);
  model = G_LIST_MODEL (assay_artifact_gallery_get_model (gallery));
  g_assert_nonnull (model);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  g_assert_true (assay_window_get_can_export (window));
  gui_close_window (window);
}

static gboolean
datasets_described (gpointer data)
{
  return assay_window_get_datasets_described (data);
}

static gboolean
row_model_complete (gpointer data)
{
  AssayDatasetPage *page = assay_data_preview_get_selected_page (data);
  AssayRowModel *model = page != NULL ? assay_dataset_page_get_row_model (page) : NULL;

  return model != NULL && g_list_model_get_n_items (G_LIST_MODEL (model)) == 2;
}

static void
test_data_page (void)
{
  AssayDatasetPage *page;
  AssayWindow *window = gui_open_recorded_window (work_dir, two_cells, csv_path, 1280, 800);
  AssaySession *session = assay_window_get_session (window);
  AssaySessionDataset *dataset;
  AssayDataPreview *preview = assay_window_get_data_preview (window);
  g_autofree char *dir = NULL;

  /* The file is profiled off the main thread; the model's prompt gets its dialect, schema and
   * the read_csv call that reads it. */
  gui_wait (datasets_described, window, 30, "the dataset's description");
  dataset = g_ptr_array_index (assay_session_get_datasets (session), 0);
  g_assert_nonnull (strstr (dataset->description, "/data/regions.csv"));
  g_assert_nonnull (strstr (dataset->description, "read_csv"));
  g_assert_nonnull (strstr (dataset->description, "amount: integer"));

  /* The data page shows the session's copy with its rows, and follows the session. */
  g_assert_cmpuint (assay_data_preview_get_n_files (preview), ==, 1);
  gui_wait (row_model_complete, preview, 30, "the preview's rows");
  page = assay_data_preview_get_selected_page (preview);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (assay_dataset_page_get_row_model (page))), ==, 2);
  g_assert_cmpuint (assay_dataset_page_get_n_columns (page), ==, 2);
  g_assert_cmpstr (assay_dataset_page_get_column_name (page, 0), ==, "region");
  adw_view_stack_set_visible_child_name (view_stack (window), "data");
  if (g_getenv ("ASSAY_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("ASSAY_SCREENSHOT_DIR"), "data.png", NULL);

      assay_window_dismiss_toast (window);
      gui_spin (1500);
      gui_screenshot (GTK_WIDGET (window), path);
    }
  dir = g_strdup (assay_session_get_dir (session));
  assay_window_new_session (window);
  g_assert_cmpuint (assay_data_preview_get_n_files (preview), ==, 0);
  gui_open_session (window, dir);
  g_assert_cmpuint (assay_data_preview_get_n_files (preview), ==, 1);
  /* The description was saved with the session. */
  dataset = g_ptr_array_index (assay_session_get_datasets (assay_window_get_session (window)), 0);
  g_assert_nonnull (dataset->description);
  g_assert_nonnull (strstr (dataset->description, "read_csv"));
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
  work_dir = g_dir_make_tmp ("assay-gui-integration-XXXXXX", NULL);
  csv_path = gui_write_file (work_dir, "regions.csv", "region,amount\nnorth,120\nsouth,80\n");

  g_test_add_func ("/assay/app/integration/empty", test_empty);
  g_test_add_func ("/assay/app/integration/artifacts-and-export", test_artifacts_and_export);
  g_test_add_func ("/assay/app/integration/data-page", test_data_page);
  status = g_test_run ();

  g_object_unref (settings);
  return status;
}
