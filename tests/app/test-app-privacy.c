/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What leaves the machine, in the window: the data page's "Never Send Values to the Model"
 * switch masks a column of the session (session.json says so, the header is marked); a
 * question asked with a masked column sends none of its values to the fake model server
 * (which logs every request body) while the step card shows them; schema-only is refused for
 * a session that has sent messages, and a session without any gets the schema-only
 * description of its data; the budget setting stops a question against a server that is not
 * on loopback; Preferences edits a model's price, adds a model and resets to the shipped
 * prices, in the user's prices file. The real sandbox (bubblewrap) runs the cells. */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "assay-agent.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-column-profile-panel.h"
#include "assay-dataset.h"
#include "assay-preferences.h"
#include "assay-prices.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

static GSettings *settings;
static char *work_dir;
static char *csv_path;
static char *config_dir;

/* The values that must never reach the model, and one that may. */
static const char * const customers[] = { "ACME-7731", "ZETA-0042", "OMNI-5150", NULL };
#define CSV "customer,amount\nACME-7731,1234\nZETA-0042,80\nOMNI-5150,17\nACME-7731,5\n"
#define DATASET "customers.csv"

static const char *hello =
  "{\"format\": \"assay-transcript\", \"model\": \"recorded-gui\", \"turns\": [{\"text\": \"Hello.\"}]}";

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static void
wait_idle (AssayWindow *window)
{
  gui_wait (is_idle, window, 120, "the question to end");
}

static void
send (AssayWindow *window,
      const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
}

static gboolean
has_columns (gpointer data)
{
  AssayDatasetPage *page = assay_data_preview_get_selected_page (data);

  return page != NULL && assay_dataset_page_get_n_columns (page) == 2;
}

static AssayDatasetPage *
wait_for_page (AssayWindow *window)
{
  AssayDataPreview *preview = assay_window_get_data_preview (window);

  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  gui_wait (has_columns, preview, 30, "the data page's columns");
  return assay_data_preview_get_selected_page (preview);
}

static GtkSwitch *
mask_switch (AssayWindow *window)
{
  AssayColumnProfilePanel *panel = assay_data_preview_get_panel (assay_window_get_data_preview (window));
  GtkWidget *found = gui_find (GTK_WIDGET (panel), GTK_TYPE_SWITCH, NULL);

  g_assert_nonnull (found);
  return GTK_SWITCH (found);
}

/* The analyst selects COLUMN on the data page and flips the switch. */
static void
toggle_mask (AssayWindow *window,
             guint        column,
             gboolean     masked)
{
  AssayDatasetPage *page = wait_for_page (window);
  AssayColumnProfilePanel *panel = assay_data_preview_get_panel (assay_window_get_data_preview (window));
  GtkSwitch *toggle;

  assay_dataset_page_select_column (page, column);
  g_assert_cmpstr (assay_column_profile_panel_get_column_name (panel), ==,
                   assay_dataset_page_get_column_name (page, column));
  toggle = mask_switch (window);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (toggle)));
  gtk_switch_set_active (toggle, masked);
}

/* session.json on disk masks DATASET:COLUMN. */
typedef struct
{
  const char *dir;
  const char *column;
  gboolean    masked;
} MaskOnDisk;

static gboolean
mask_on_disk (gpointer data)
{
  MaskOnDisk *check = data;
  g_autofree char *path = g_build_filename (check->dir, "session.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *privacy;
  JsonArray *masked;
  gboolean found = FALSE;

  if (!json_parser_load_from_file (parser, path, NULL) || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return FALSE;
  root = json_node_get_object (json_parser_get_root (parser));
  if (!json_object_has_member (root, "privacy"))
    return FALSE;
  privacy = json_object_get_object_member (root, "privacy");
  masked = json_object_get_array_member (privacy, "masked");
  for (guint i = 0; masked != NULL && i < json_array_get_length (masked); i++)
    {
      JsonObject *mask = json_array_get_object_element (masked, i);

      if (g_strcmp0 (json_object_get_string_member (mask, "dataset"), DATASET) == 0 &&
          g_strcmp0 (json_object_get_string_member (mask, "column"), check->column) == 0)
        found = TRUE;
    }
  return found == check->masked &&
         g_strcmp0 (json_object_get_string_member (privacy, "mode"), "masked") == 0;
}

/* Each request body the fake server logged, as JSON text (non-ASCII as it is). */
static GPtrArray *
logged_bodies (const char *log_path)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *bodies = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (log_path, &contents, NULL, NULL))
    return bodies;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *entry;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      entry = json_node_get_object (json_parser_get_root (parser));
      if (g_strcmp0 (json_object_get_string_member (entry, "method"), "POST") != 0)
        continue;
      g_ptr_array_add (bodies, json_to_string (json_object_get_member (entry, "body"), FALSE));
    }
  return bodies;
}

static AssayWindow *
open_window_with_server (const char *base_url,
                         const char *model)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, hello, csv_path, 1400, 900);
  g_autoptr(AssayLlmProvider) provider = assay_openai_provider_new (base_url, NULL);

  assay_window_set_provider (window, provider, model, FALSE);
  assay_conversation_set_auto_run (assay_window_get_conversation (window), TRUE);
  return window;
}

/* ---- (a) the switch masks the column in the session --------------------------------------- */

/* The data page is made the first time it is shown: a column masked before that is marked
 * in it as one masked after (the state is the session's, not the page's). */
static void
test_data_page_made_late (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, hello, csv_path, 1400, 900);
  AssayConversation *conversation = assay_window_get_conversation (window);
  g_autoptr(GError) error = NULL;
  AssayDatasetPage *page;
  AssayColumnProfilePanel *panel;
  GtkWidget *switcher = gui_find (GTK_WIDGET (window), ADW_TYPE_VIEW_SWITCHER_TITLE, NULL);

  /* Neither the Files nor the Data page, nor the onboarding, was made at start. */
  g_assert_null (window->data_preview);
  g_assert_null (gui_find (GTK_WIDGET (window), ASSAY_TYPE_DATA_PREVIEW, NULL));
  g_assert_null (gui_find (GTK_WIDGET (window), ASSAY_TYPE_ARTIFACT_GALLERY, NULL));
  g_assert_null (gui_find (GTK_WIDGET (window), ASSAY_TYPE_ONBOARDING, NULL));
  g_assert_true (assay_conversation_set_column_masked (conversation, DATASET, "customer", TRUE, &error));
  g_assert_no_error (error);
  g_assert_null (window->data_preview);

  /* The analyst clicks "Data" above the window. */
  g_assert_nonnull (switcher);
  gui_click (gui_find (switcher, GTK_TYPE_LABEL, "Data"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "data");
  g_assert_nonnull (window->data_preview);
  gui_wait (has_columns, window->data_preview, 30, "the data page's columns");
  g_assert_cmpuint (assay_data_preview_get_n_files (window->data_preview), ==, 1);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->data_stack), ==, "content");
  page = assay_data_preview_get_selected_page (window->data_preview);
  g_assert_true (assay_dataset_page_get_header_masked (page, 0));
  g_assert_false (assay_dataset_page_get_header_masked (page, 1));
  panel = assay_data_preview_get_panel (window->data_preview);
  assay_dataset_page_select_column (page, 0);
  g_assert_true (assay_column_profile_panel_get_masked (panel));
  g_assert_true (gtk_switch_get_active (mask_switch (window)));

  /* Files: the gallery over the session's artifacts. */
  gui_click (gui_find (switcher, GTK_TYPE_LABEL, "Files"));
  g_assert_nonnull (window->gallery);
  g_assert_true (assay_artifact_gallery_get_model (window->gallery) == assay_conversation_get_artifacts (conversation));
  gui_close_window (window);
}

static void
test_mask_switch (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, hello, csv_path, 1400, 900);
  AssaySession *session = assay_window_get_session (window);
  AssayDatasetPage *page = wait_for_page (window);
  AssayColumnProfilePanel *panel = assay_data_preview_get_panel (assay_window_get_data_preview (window));
  MaskOnDisk check = { assay_session_get_dir (session), "customer", TRUE };

  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_FULL);
  g_assert_false (assay_dataset_page_get_header_masked (page, 0));
  /* The mark's icon comes with the app, whatever the theme has. */
  g_assert_true (g_resources_get_info ("/org/assay/Assay/icons/scalable/actions/view-conceal-symbolic.svg",
                                       G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL));
  g_assert_true (gtk_icon_theme_has_icon (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                          "view-conceal-symbolic"));

  toggle_mask (window, 0, TRUE);
  g_assert_true (assay_session_is_column_masked (session, DATASET, "customer"));
  g_assert_false (assay_session_is_column_masked (session, DATASET, "amount"));
  /* Masking a column of a session in full mode makes it masked; the window says so. */
  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_MASKED);
  g_assert_nonnull (strstr (assay_window_get_last_toast (window), "masks columns"));
  g_assert_cmpstr (assay_window_get_privacy_mode_name (window), ==, "masked");
  /* The header and the panel show it; another column is not masked. */
  g_assert_true (assay_dataset_page_get_header_masked (page, 0));
  g_assert_false (assay_dataset_page_get_header_masked (page, 1));
  g_assert_true (assay_column_profile_panel_get_masked (panel));
  g_assert_true (gtk_switch_get_active (mask_switch (window)));
  /* A real click on the next column's name in the table's header picks it, as its histogram
   * does. */
  {
    GtkWidget *table = gui_find (GTK_WIDGET (page), GTK_TYPE_COLUMN_VIEW, NULL);
    GtkWidget *header = gtk_widget_get_first_child (table);
    GtkWidget *name = gui_find (header, GTK_TYPE_LABEL, assay_dataset_page_get_column_name (page, 1));

    g_assert_nonnull (name);
    gui_click (name);
    g_assert_cmpint (assay_dataset_page_get_selected_column (page), ==, 1);
    g_assert_cmpstr (assay_column_profile_panel_get_column_name (panel), ==, assay_dataset_page_get_column_name (page, 1));
  }
  g_assert_false (assay_column_profile_panel_get_masked (panel));
  g_assert_false (gtk_switch_get_active (mask_switch (window)));
  gui_wait (mask_on_disk, &check, 20, "session.json with the masked column");
  assay_dataset_page_select_column (page, 0);
  assay_window_dismiss_toast (window);
  gui_save_screenshot (GTK_WIDGET (window), "privacy-data.png");

  /* Reopened, the session still masks it, and the data page marks it. */
  {
    g_autofree char *dir = g_strdup (assay_session_get_dir (session));

    assay_window_new_session (window);
    gui_open_session (window, dir);
    session = assay_window_get_session (window);
    g_assert_true (assay_session_is_column_masked (session, DATASET, "customer"));
    page = wait_for_page (window);
    g_assert_true (assay_dataset_page_get_header_masked (page, 0));
    check.dir = assay_session_get_dir (session);
  }

  /* Off again: the column is no longer masked; the mode stays what it is. */
  toggle_mask (window, 0, FALSE);
  g_assert_false (assay_session_is_column_masked (session, DATASET, "customer"));
  g_assert_false (assay_dataset_page_get_header_masked (page, 0));
  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_MASKED);
  check.masked = FALSE;
  gui_wait (mask_on_disk, &check, 20, "session.json without the masked column");
  gui_close_window (window);
}

/* ---- (b) a question with a masked column ---------------------------------------------------- */

static gboolean
has_text_view (gpointer data)
{
  return gui_find (GTK_WIDGET (assay_window_get_chat_view (data)), GTK_TYPE_TEXT_VIEW, "ACME-7731") != NULL;
}

static void
test_masked_question (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) bodies = NULL;
  AssayWindow *window;
  AssayConversation *conversation;
  AssayMasker *masker;
  GtkWidget *chat;
  gboolean placeholder = FALSE, amount = FALSE;

  server = gui_fake_server_start_on (NULL, "{\"responses\": ["
                         "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Looking.\", \"tool_calls\": [{\"name\": \"execute_python\","
                         "  \"arguments\": \"{\\\"code\\\": \\\"import pandas as pd\\\\ndf = pd.read_csv('/data/" DATASET "')\\\\n"
                         "print(df.to_string())\\\\nprint(df['customer'].value_counts())\\\\n\\\", \\\"description\\\": \\\"Look\\\"}\"}]}},"
                         "{\"flavor\": \"openai\", \"turn\": {\"text\": \"The biggest order is 1234.\"}}]}",
                                   &base_url, &log_path);
  window = open_window_with_server (base_url, "fake-model");
  conversation = assay_window_get_conversation (window);
  chat = GTK_WIDGET (assay_window_get_chat_view (window));
  toggle_mask (window, 0, TRUE);
  g_assert_true (assay_session_is_column_masked (assay_window_get_session (window), DATASET, "customer"));

  send (window, "Which customer ordered most?");
  wait_idle (window);
  masker = assay_conversation_get_masker (conversation);
  g_assert_nonnull (masker);
  g_assert_cmpuint (assay_masker_get_n_values (masker), ==, 3);
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "The biggest order is 1234."));

  /* Every request: no value of the masked column; placeholders in their place; the other
   * column's values do go. */
  bodies = logged_bodies (log_path);
  g_assert_cmpuint (bodies->len, ==, 2);
  for (guint i = 0; i < bodies->len; i++)
    {
      const char *body = g_ptr_array_index (bodies, i);

      for (guint j = 0; customers[j] != NULL; j++)
        if (strstr (body, customers[j]) != NULL)
          g_error ("request %u holds the masked value %s: %s", i + 1, customers[j], body);
      placeholder |= strstr (body, "⟨customer 1⟩") != NULL;
      amount |= strstr (body, "1234") != NULL;
    }
  g_assert_true (placeholder);
  g_assert_true (amount);

  /* The analyst sees the real values in the step card. */
  gui_wait (has_text_view, window, 10, "the cell's output with the real values");
  g_assert_nonnull (gui_find (chat, GTK_TYPE_TEXT_VIEW, "ZETA-0042"));
  g_assert_cmpuint (assay_session_get_n_cells (assay_window_get_session (window)), ==, 1);
  g_assert_nonnull (strstr (assay_session_get_cell (assay_window_get_session (window), 0)->code, "read_csv"));

  gui_close_window (window);
  gui_fake_server_stop (server, log_path);
}

/* A masked column of multi-line notes: the summary would show a note with its line break
 * made a space, which no masking of the summary's text finds; its samples become
 * placeholders before. The file replaced by one with another note: read again (the new
 * note is masked too, in the summary and in a cell's output). */
static const char * const note_lines[] = { "Calls ok", "No Monday", "Ring 1st", "Then mail", "Fax only",
                                           "No calls", "Tel only", "No fax", NULL };
#define NOTES "note,amount\n\"Calls ok\nNo Monday\",1\n\"Ring 1st\nThen mail\",2\n\"Fax only\nNo calls\",3\n"

static void
assert_no_note (const char *body)
{
  for (guint i = 0; note_lines[i] != NULL; i++)
    if (strstr (body, note_lines[i]) != NULL)
      g_error ("the request holds the masked note's line %s: %s", note_lines[i], body);
}

static gboolean
has_four_rows (gpointer data)
{
  const AssaySessionDataset *dataset = g_ptr_array_index (assay_session_get_datasets (data), 0);

  return dataset->description != NULL && strstr (dataset->description, "4 rows") != NULL;
}

static void
test_masked_summary (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *notes = gui_write_file (work_dir, "notes.csv", NOTES);
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) bodies = NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  AssayWindow *window;

  server = gui_fake_server_start_on (NULL, "{\"responses\": ["
                         "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Noted.\"}},"
                         "{\"flavor\": \"openai\", \"turn\": {\"tool_calls\": [{\"name\": \"execute_python\","
                         "  \"arguments\": \"{\\\"code\\\": \\\"import pandas as pd\\\\n"
                         "print(pd.read_csv('/data/notes.csv')['note'].tolist())\\\\n\\\", \\\"description\\\": \\\"Notes\\\"}\"}]}},"
                         "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Done.\"}}]}",
                                     &base_url, &log_path);
  window = gui_open_recorded_window (work_dir, hello, notes, 1400, 900);
  provider = assay_openai_provider_new (base_url, NULL);
  assay_window_set_provider (window, provider, "fake-model", FALSE);
  assay_conversation_set_auto_run (assay_window_get_conversation (window), TRUE);
  toggle_mask (window, 0, TRUE);
  send (window, "What do the notes say?");
  wait_idle (window);

  bodies = logged_bodies (log_path);
  g_assert_cmpuint (bodies->len, ==, 1);
  assert_no_note (g_ptr_array_index (bodies, 0));
  g_assert_nonnull (strstr (g_ptr_array_index (bodies, 0), "“⟨note 1⟩”"));

  /* The file again, with a fourth note. */
  g_free (gui_write_file (work_dir, "notes.csv", NOTES "\"Tel only\nNo fax\",4\n"));
  g_assert_true (assay_conversation_add_dataset (assay_window_get_conversation (window), notes, &error));
  g_assert_no_error (error);
  gui_wait (has_four_rows, assay_window_get_session (window), 30, "the new file's summary");
  send (window, "And now?");
  wait_idle (window);

  g_clear_pointer (&bodies, g_ptr_array_unref);
  bodies = logged_bodies (log_path);
  g_assert_cmpuint (bodies->len, ==, 3);
  for (guint i = 1; i < bodies->len; i++)
    assert_no_note (g_ptr_array_index (bodies, i));
  g_assert_nonnull (strstr (g_ptr_array_index (bodies, 2), "⟨note 4⟩"));

  gui_close_window (window);
  gui_fake_server_stop (server, log_path);
}

/* ---- (c) schema-only, and refused once values were sent -------------------------------------- */

static gboolean
datasets_described (gpointer data)
{
  return assay_window_get_datasets_described (data);
}

typedef struct
{
  AssaySession *session;
  const char   *expected;
} DescriptionCheck;

static gboolean
description_is (gpointer data)
{
  DescriptionCheck *check = data;
  const AssaySessionDataset *dataset = g_ptr_array_index (assay_session_get_datasets (check->session), 0);

  return g_strcmp0 (dataset->description, check->expected) == 0;
}

static void
test_schema_only (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, hello, csv_path, 1400, 900);
  AssayConversation *conversation = assay_window_get_conversation (window);
  AssaySession *session = assay_window_get_session (window);
  const AssaySessionDataset *dataset;
  g_autoptr(AssayDataset) opened = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *schema = NULL;
  g_autofree char *full = NULL;
  DescriptionCheck check = { session, NULL };

  /* A session that has sent nothing may become schema-only: its dataset is described to the
   * model by its schema alone from then on. */
  gui_wait (datasets_described, window, 30, "the dataset's description");
  dataset = g_ptr_array_index (assay_session_get_datasets (session), 0);
  copy = assay_session_resolve (session, dataset->path);
  opened = assay_dataset_open (copy, NULL, &error);
  g_assert_no_error (error);
  schema = assay_dataset_describe_schema_for_prompt (opened, NULL, 1);
  full = assay_dataset_describe_for_prompt (opened, NULL, 1);
  g_assert_cmpstr (schema, !=, full);
  g_assert_true (assay_conversation_get_can_use_schema_only (conversation));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.privacy-mode", "s", "schema");
  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_SCHEMA);
  g_assert_cmpstr (assay_window_get_privacy_mode_name (window), ==, "schema");
  check.expected = schema;
  gui_wait (description_is, &check, 30, "the schema-only description");
  /* And back: the full description again. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.privacy-mode", "s", "full");
  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_FULL);
  check.expected = full;
  gui_wait (description_is, &check, 30, "the full description");

  /* Once a question was answered, the session has sent values: schema-only is refused and
   * a toast says why. */
  send (window, "Hello?");
  wait_idle (window);
  g_assert_cmpuint (assay_session_get_messages (session)->len, >, 0);
  g_assert_false (assay_conversation_get_can_use_schema_only (conversation));
  assay_window_dismiss_toast (window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.privacy-mode", "s", "schema");
  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_FULL);
  g_assert_cmpstr (assay_window_get_privacy_mode_name (window), ==, "full");
  g_assert_nonnull (assay_window_get_last_toast (window));
  g_assert_nonnull (strstr (assay_window_get_last_toast (window), "already sent values"));
  g_assert_false (assay_conversation_set_privacy_mode (conversation, ASSAY_PRIVACY_SCHEMA, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  /* Masked columns still may. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.privacy-mode", "s", "masked");
  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_MASKED);
  gui_close_window (window);
}

/* ---- (d) the budget ------------------------------------------------------------------------- */

#define USAGE "\"usage\": {\"input\": 120000, \"cached\": 100000, \"output\": 2500}"

static void
test_budget (void)
{
  g_autofree char *address = gui_find_remote_address ();
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) bodies = NULL;
  AssayWindow *window;
  AssaySession *session;
  GtkWidget *chat;

  g_assert_nonnull (address);
  /* gpt-4.1: $2.00 input, $0.50 cached input, $8.00 output per million tokens: 20,000 × 2 +
   * 100,000 × 0.50 + 2,500 × 8 = $0.11 a request, over a budget of $0.10 after the first. */
  server = gui_fake_server_start_on (address, "{\"responses\": ["
                         "{\"flavor\": \"openai\", \"turn\": {\"tool_calls\": [{\"name\": \"execute_python\","
                         "  \"arguments\": \"{\\\"code\\\": \\\"print(6*7)\\\"}\"}], " USAGE "}},"
                         "{\"flavor\": \"openai\", \"turn\": {\"tool_calls\": [{\"name\": \"execute_python\","
                         "  \"arguments\": \"{\\\"code\\\": \\\"print(7*8)\\\"}\"}], " USAGE "}},"
                         "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Done.\", " USAGE "}}]}",
                                   &base_url, &log_path);
  g_settings_set_double (settings, "session-budget", 0.10);
  window = open_window_with_server (base_url, "gpt-4.1");
  session = assay_window_get_session (window);
  chat = GTK_WIDGET (assay_window_get_chat_view (window));

  send (window, "What is six times seven?");
  wait_idle (window);
  bodies = logged_bodies (log_path);
  g_assert_cmpuint (bodies->len, ==, 1);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);
  g_assert_nonnull (gui_find (chat, GTK_TYPE_TEXT_VIEW, "42"));
  /* The chat says why it stopped. */
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "budget of $0.10"));
  g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "Done."));
  g_assert_cmpfloat_with_epsilon (assay_session_get_cost (session, NULL, NULL, NULL), 0.11, 1e-9);

  gui_close_window (window);
  g_settings_reset (settings, "session-budget");
  gui_fake_server_stop (server, log_path);
}

/* ---- (e) preferences: the budget and the model prices --------------------------------------- */

static AdwActionRow *
find_row (GtkWidget  *root,
          const char *title)
{
  if (ADW_IS_ACTION_ROW (root) && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    return ADW_ACTION_ROW (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      AdwActionRow *found = find_row (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_named (GtkWidget  *root,
            const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_named (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_button (GtkWidget  *root,
             const char *label)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (root)), label) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static AdwMessageDialog *
find_message_dialog (void)
{
  g_autoptr(GList) toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

static void
click (GtkWidget *button)
{
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  gui_spin (50);
}

/* The dialog's RESPONSE, as its button gives it; then it is gone. */
static void
respond (AdwMessageDialog *dialog,
         const char       *response)
{
  g_object_ref (dialog);
  adw_message_dialog_response (dialog, response);
  gui_spin (50);
  if (gtk_widget_get_visible (GTK_WIDGET (dialog)))
    gtk_window_destroy (GTK_WINDOW (dialog));
  g_object_unref (dialog);
}

static void
set_price (AdwMessageDialog *dialog,
           const char       *name,
           double            value)
{
  GtkWidget *spin = find_named (GTK_WIDGET (dialog), name);

  g_assert_nonnull (spin);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
}

static const AssayPrice *
lookup (AssayPriceTable *table,
        const char      *model)
{
  const AssayPrice *price = assay_price_table_lookup (table, model, 0);

  g_assert_nonnull (price);
  return price;
}

static void
test_preferences (void)
{
  g_autofree char *user_path = assay_price_table_get_user_path ();
  g_autofree char *contents = NULL;
  GtkWidget *preferences;
  AdwActionRow *row;
  AdwMessageDialog *dialog;
  GtkWidget *spin;

  g_assert_true (g_str_has_prefix (user_path, config_dir));
  g_assert_false (g_file_test (user_path, G_FILE_TEST_EXISTS));
  preferences = g_object_ref (assay_preferences_new (NULL, NULL));
  gtk_window_present (GTK_WINDOW (preferences));
  gui_spin (50);

  /* The budget is a setting. */
  row = find_row (preferences, "Budget per session (US dollars)");
  g_assert_nonnull (row);
  spin = gui_find (GTK_WIDGET (row), GTK_TYPE_SPIN_BUTTON, NULL);
  g_assert_nonnull (spin);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 2.5);
  g_assert_cmpfloat_with_epsilon (g_settings_get_double (settings, "session-budget"), 2.5, 1e-9);
  g_settings_reset (settings, "session-budget");

  /* The table's date, and a row per model with its prices. */
  g_assert_nonnull (gui_find (preferences, GTK_TYPE_LABEL, "List prices of 30 November 2025"));
  row = find_row (preferences, "gpt-4.1");
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_action_row_get_subtitle (row), ==, "Input $2.00 · cached input $0.50 · output $8.00");
  g_assert_false (gtk_widget_get_sensitive (find_button (preferences, "_Reset to Shipped Prices")));

  /* Edit gpt-4.1's input price: saved in the user's prices file, the row says it is ours. */
  click (find_button (GTK_WIDGET (row), "_Edit…"));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  set_price (dialog, "input", 3.5);
  respond (dialog, "save");
  g_assert_true (g_file_test (user_path, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_get_contents (user_path, &contents, NULL, NULL));
  {
    /* The user's file holds the analyst's entries only, on top of the shipped ones. */
    g_autoptr(GError) error = NULL;
    g_autoptr(AssayPriceTable) own = assay_price_table_new ();
    g_autoptr(GPtrArray) entries = NULL;

    g_assert_true (assay_price_table_load_data (own, contents, -1, &error));
    g_assert_no_error (error);
    entries = assay_price_table_get_prices (own);
    g_assert_cmpuint (entries->len, ==, 1);
    g_assert_cmpstr (((AssayPrice *) g_ptr_array_index (entries, 0))->model, ==, "gpt-4.1");
    g_assert_cmpfloat (((AssayPrice *) g_ptr_array_index (entries, 0))->input, ==, 3.5);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(AssayPriceTable) table = assay_price_table_new_default (&error);

    g_assert_no_error (error);
    g_assert_cmpfloat (lookup (table, "gpt-4.1")->input, ==, 3.5);
    g_assert_cmpfloat (lookup (table, "gpt-4.1")->output, ==, 8.0);
    g_assert_cmpfloat (lookup (table, "gpt-4.1-mini")->input, ==, 0.4);
  }
  row = find_row (preferences, "gpt-4.1");
  g_assert_cmpstr (adw_action_row_get_subtitle (row), ==, "Your price: Input $3.50 · cached input $0.50 · output $8.00");
  g_assert_true (gtk_widget_get_sensitive (find_button (preferences, "_Reset to Shipped Prices")));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (preferences), "costs");
  gui_save_screenshot (preferences, "privacy-preferences.png");

  /* Add a model: its name first. */
  click (find_button (preferences, "_Add Model…"));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "save"));
  gtk_editable_set_text (GTK_EDITABLE (find_named (GTK_WIDGET (dialog), "model")), "acme-llm-1");
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "save"));
  set_price (dialog, "input", 1.25);
  set_price (dialog, "cached-input", 0.125);
  set_price (dialog, "output", 4);
  respond (dialog, "save");
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(AssayPriceTable) table = assay_price_table_new_default (&error);

    g_assert_no_error (error);
    g_assert_cmpfloat (lookup (table, "acme-llm-1")->input, ==, 1.25);
    g_assert_cmpfloat (lookup (table, "acme-llm-1")->cached_input, ==, 0.125);
    g_assert_cmpfloat (lookup (table, "acme-llm-1")->output, ==, 4);
    /* The first edit is kept. */
    g_assert_cmpfloat (lookup (table, "gpt-4.1")->input, ==, 3.5);
  }
  g_assert_nonnull (find_row (preferences, "acme-llm-1"));

  /* Reset: the user's file is gone, the shipped prices hold again. */
  click (find_button (preferences, "_Reset to Shipped Prices"));
  g_assert_false (g_file_test (user_path, G_FILE_TEST_EXISTS));
  g_assert_null (find_row (preferences, "acme-llm-1"));
  g_assert_cmpstr (adw_action_row_get_subtitle (find_row (preferences, "gpt-4.1")), ==,
                   "Input $2.00 · cached input $0.50 · output $8.00");
  g_assert_false (gtk_widget_get_sensitive (find_button (preferences, "_Reset to Shipped Prices")));

  gtk_window_destroy (GTK_WINDOW (preferences));
  gui_spin (50);
  g_assert_finalize_object (preferences);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  /* The user's prices file goes here, never into the prices of whoever runs the tests. */
  config_dir = g_dir_make_tmp ("assay-gui-privacy-config-XXXXXX", NULL);
  g_setenv ("XDG_CONFIG_HOME", config_dir, TRUE);
  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  work_dir = g_dir_make_tmp ("assay-gui-privacy-XXXXXX", NULL);
  csv_path = gui_write_file (work_dir, DATASET, CSV);

  g_test_add_func ("/assay/app/privacy/data-page-made-late", test_data_page_made_late);
  g_test_add_func ("/assay/app/privacy/mask-switch", test_mask_switch);
  g_test_add_func ("/assay/app/privacy/masked-question", test_masked_question);
  g_test_add_func ("/assay/app/privacy/masked-summary", test_masked_summary);
  g_test_add_func ("/assay/app/privacy/schema-only", test_schema_only);
  g_test_add_func ("/assay/app/privacy/budget", test_budget);
  g_test_add_func ("/assay/app/privacy/preferences", test_preferences);
  status = g_test_run ();

  g_object_unref (settings);
  return status;
}
