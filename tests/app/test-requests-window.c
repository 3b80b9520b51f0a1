/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Sent to the Model": the viewer of a session's requests on a session that recorded three,
 * the parts each added marked and the repeated ones collapsed, the raw body exactly as sent,
 * text from a body shown as text (never markup), a body that was not kept; and how the
 * window opens it, from its menu's action and from a step card's button. */
#include "config.h"

#include <string.h>

#include <gtksourceview/gtksource.h>

#include "assay-llm-provider.h"
#include "assay-requests-window.h"
#include "assay-session-requests.h"
#include "assay-step-card.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

#define SYSTEM_PROMPT "You are Assay.\\n\\nDatasets (read-only):\\n- /data/sales.csv"

static const char *bodies[] = {
  "{\"model\":\"<b>gpt</b>-test\",\"messages\":[{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"},"
  "{\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"}],\"stream\":true}",

  "{\"model\":\"<b>gpt</b>-test\",\"messages\":[{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"},"
  "{\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"},"
  "{\"role\":\"assistant\",\"content\":\"Let me look.\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
  "\"function\":{\"name\":\"execute_python\",\"arguments\":\"{\\\"code\\\":\\\"print(1)\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"Status: ok\\n1\"}],\"stream\":true}",

  "{\"model\":\"<b>gpt</b>-test\",\"messages\":[{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"},"
  "{\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"},"
  "{\"role\":\"assistant\",\"content\":\"Let me look.\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
  "\"function\":{\"name\":\"execute_python\",\"arguments\":\"{\\\"code\\\":\\\"print(1)\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"Status: ok\\n1\"},"
  "{\"role\":\"assistant\",\"content\":\"Thinking.\"}],\"stream\":true}",
};

/* A session that asked one question in three steps (a cell, then the answer) and recorded
 * a request for each; saved under the default folder. */
static AssaySession *
make_session (void)
{
  g_autoptr(GError) error = NULL;
  AssaySession *session = assay_session_create (NULL, &error);
  AssayLlmMessage *assistant;
  AssaySessionCell *cell;

  g_assert_no_error (error);
  assay_session_set_title (session, "Requests");
  assay_session_append_message (session, assay_llm_message_new_user ("What is the <b>total</b> revenue?"));
  assay_session_finish_question (session);
  for (guint i = 0; i < G_N_ELEMENTS (bodies); i++)
    {
      g_autoptr(AssayLlmResponse) response = assay_llm_response_new ();

      response->request_body = g_bytes_new (bodies[i], strlen (bodies[i]));
      response->request_host = g_strdup ("api.example.com");
      response->input_tokens = 100 * (i + 1);
      response->cached_input_tokens = i > 0 ? 90 : -1;
      response->output_tokens = 20;
      response->bytes_in = 512;
      response->sent_at = g_get_real_time ();
      g_assert_true (assay_session_record_request (session, i + 1, "<b>gpt</b>-test", response, 0.0125, &error));
      g_assert_no_error (error);

      if (i == 0)
        {
          assistant = assay_llm_message_new_assistant ("Let me look.");
          g_ptr_array_add (assistant->tool_calls, assay_llm_tool_call_new ("call_1", "execute_python",
                                                                          "{\"code\":\"print(1)\"}"));
          assay_session_append_message (session, assistant);
          cell = assay_session_add_cell (session, assay_session_cell_new ("c1", 1, "call_1", NULL, "print(1)"));
          cell->code = g_strdup ("print(1)");
          cell->decision = ASSAY_DECISION_AUTO;
          cell->status = ASSAY_CELL_OK;
          assay_session_append_message (session, assay_llm_message_new_tool ("call_1", "Status: ok\n1", FALSE));
        }
      else if (i == 1)
        assay_session_append_message (session, assay_llm_message_new_assistant ("Thinking."));
      else
        assay_session_append_message (session, assay_llm_message_new_assistant ("The total is 1."));
      assay_session_finish_step (session);
    }
  assay_session_set_outcome (session, "answered", "The total is 1.");
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return session;
}

static gboolean
not_loading (gpointer data)
{
  return !assay_requests_window_get_loading (data);
}

/* The part of the viewer whose header is LABEL. */
static GtkWidget *
find_part (AssayRequestsWindow *viewer,
           const char          *label)
{
  GtkWidget *widget = gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, label);

  while (widget != NULL && !gtk_widget_has_css_class (widget, "request-part"))
    widget = gtk_widget_get_parent (widget);
  if (widget == NULL)
    g_error ("the viewer shows no part “%s”", label);
  return widget;
}

static gboolean
part_expanded (GtkWidget *part)
{
  GtkWidget *expander = gtk_widget_get_first_child (part);

  g_assert_true (GTK_IS_EXPANDER (expander));
  return gtk_expander_get_expanded (GTK_EXPANDER (expander));
}

static GtkToggleButton *
raw_toggle (AssayRequestsWindow *viewer)
{
  GtkWidget *label = gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "Show Raw Body");
  GtkWidget *toggle = label != NULL ? gtk_widget_get_ancestor (label, GTK_TYPE_TOGGLE_BUTTON) : NULL;

  g_assert_nonnull (toggle);
  return GTK_TOGGLE_BUTTON (toggle);
}

static void
select_request (AssayRequestsWindow *viewer,
                guint                number)
{
  g_assert_true (assay_requests_window_select_request (viewer, number));
  g_assert_cmpuint (assay_requests_window_get_selected (viewer), ==, number);
  gui_wait (not_loading, viewer, 30, "the body to be read");
  gui_spin (50);
}

static void
test_viewer (void)
{
  g_autoptr(AssaySession) session = make_session ();
  AssayRequestsWindow *viewer = g_object_ref (assay_requests_window_new (NULL, session));
  const AssayRequestReading *reading;
  GtkWidget *part;
  GtkWidget *label;
  GtkWidget *view;
  g_autofree char *raw = NULL;

  gtk_window_set_default_size (GTK_WINDOW (viewer), 1000, 700);
  gtk_window_present (GTK_WINDOW (viewer));
  gui_spin (100);

  /* The list: a row a request, its figures; the model's name as the record has it. */
  g_assert_nonnull (gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "Request 3"));
  label = gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "Step 2 · api.example.com · <b>gpt</b>-test");
  g_assert_nonnull (label);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_nonnull (gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "200 in · 20 out · $0.0125"));
  g_assert_nonnull (gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "3 requests"));

  /* The first: everything new, the question's markup shown as its characters. */
  select_request (viewer, 1);
  reading = assay_requests_window_get_reading (viewer);
  g_assert_nonnull (reading);
  g_assert_cmpuint (reading->compared_with, ==, 0);
  part = find_part (viewer, "Question");
  g_assert_true (gtk_widget_has_css_class (part, "added"));
  g_assert_true (part_expanded (part));
  view = gui_find (part, GTK_TYPE_TEXT_VIEW, NULL);
  g_assert_nonnull (view);
  g_assert_cmpstr (gui_text (view), ==, "What is the <b>total</b> revenue?");
  g_assert_true (gtk_widget_has_css_class (find_part (viewer, "Dataset summary"), "added"));
  g_assert_nonnull (gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "The session’s first request: its 3 parts were new."));

  /* The second: the reply, the call and the result added and marked, named by their cell;
   * what it repeated collapsed (its text not even made) and dimmed. */
  select_request (viewer, 2);
  reading = assay_requests_window_get_reading (viewer);
  g_assert_cmpuint (reading->compared_with, ==, 1);
  g_assert_cmpuint (reading->n_added, ==, 3);
  g_assert_nonnull (gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "3 parts added since request 1. "
                                                                   "The parts it repeated are collapsed."));
  for (guint i = 0; i < 3; i++)
    {
      const char *added[] = { "Model’s reply", "Tool call (cell c1)", "Tool result (cell c1)" };

      part = find_part (viewer, added[i]);
      g_assert_true (gtk_widget_has_css_class (part, "added"));
      g_assert_false (gtk_widget_has_css_class (part, "repeated"));
      g_assert_true (part_expanded (part));
    }
  g_assert_nonnull (gui_find (find_part (viewer, "Tool result (cell c1)"), GTK_TYPE_TEXT_VIEW, "Status: ok\n1"));
  part = find_part (viewer, "Question");
  g_assert_true (gtk_widget_has_css_class (part, "repeated"));
  g_assert_false (part_expanded (part));
  g_assert_null (gui_find (part, GTK_TYPE_TEXT_VIEW, NULL));
  g_assert_nonnull (gui_find (part, GTK_TYPE_LABEL, "Repeated from request 1"));
  /* Opened, a repeated part shows its text. */
  gtk_expander_set_expanded (GTK_EXPANDER (gtk_widget_get_first_child (part)), TRUE);
  g_assert_nonnull (gui_find (part, GTK_TYPE_TEXT_VIEW, "What is the <b>total</b> revenue?"));
  gui_save_screenshot (GTK_WIDGET (viewer), "requests-window.png");

  /* The raw body: exactly what was sent, in the JSON view. */
  gtk_toggle_button_set_active (raw_toggle (viewer), TRUE);
  gui_save_screenshot (GTK_WIDGET (viewer), "requests-window-raw.png");
  raw = assay_requests_window_dup_raw_text (viewer);
  g_assert_cmpstr (raw, ==, bodies[1]);
  view = gui_find (GTK_WIDGET (viewer), GTK_SOURCE_TYPE_VIEW, NULL);
  g_assert_nonnull (view);
  g_assert_true (gtk_widget_get_mapped (view));
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  g_assert_true (gtk_text_view_get_monospace (GTK_TEXT_VIEW (view)));
  g_assert_cmpstr (gtk_source_language_get_id (gtk_source_buffer_get_language (
                     GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view))))), ==, "json");
  gtk_toggle_button_set_active (raw_toggle (viewer), FALSE);
  g_clear_pointer (&raw, g_free);

  /* The third's body was not kept: it says so, and there is no raw body to show. */
  g_clear_pointer (&((AssaySessionRequest *) g_ptr_array_index (assay_session_get_requests (session), 2))->file,
                   g_free);
  select_request (viewer, 3);
  g_assert_null (assay_requests_window_get_reading (viewer));
  g_assert_nonnull (gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "Body Not Kept"));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (raw_toggle (viewer))));
  raw = assay_requests_window_dup_raw_text (viewer);
  g_assert_cmpstr (raw, ==, "");

  /* A step's request; a step without one says so. */
  g_assert_true (assay_requests_window_select_step (viewer, 2));
  g_assert_cmpuint (assay_requests_window_get_selected (viewer), ==, 2);
  gui_wait (not_loading, viewer, 30, "the body to be read");
  g_assert_false (assay_requests_window_select_step (viewer, 9));
  g_assert_cmpuint (assay_requests_window_get_selected (viewer), ==, 0);
  g_assert_nonnull (gui_find (GTK_WIDGET (viewer), GTK_TYPE_LABEL, "Nothing Recorded for This Step"));

  /* Narrow: the list and the request fold into one column. */
  g_assert_true (assay_requests_window_select_request (viewer, 2));
  gtk_window_set_default_size (GTK_WINDOW (viewer), 360, 600);
  gui_wait (not_loading, viewer, 30, "the body to be read");
  gui_spin (200);
  g_assert_true (adw_leaflet_get_folded (ADW_LEAFLET (gui_find (GTK_WIDGET (viewer), ADW_TYPE_LEAFLET, NULL))));
  gui_save_screenshot (GTK_WIDGET (viewer), "requests-window-narrow.png");

  gtk_window_destroy (GTK_WINDOW (viewer));
  gui_spin (50);
  g_assert_finalize_object (viewer);
  g_assert_true (assay_session_delete (assay_session_get_dir (session), NULL));
}

/* Selecting another request while a body is read: the first reading is dropped. */
static void
test_switch_while_reading (void)
{
  g_autoptr(AssaySession) session = make_session ();
  AssayRequestsWindow *viewer = g_object_ref (assay_requests_window_new (NULL, session));

  gtk_window_present (GTK_WINDOW (viewer));
  g_assert_true (assay_requests_window_select_request (viewer, 1));
  g_assert_true (assay_requests_window_select_request (viewer, 2));
  g_assert_true (assay_requests_window_select_request (viewer, 3));
  gui_wait (not_loading, viewer, 30, "the body to be read");
  gui_spin (50);
  g_assert_cmpuint (assay_requests_window_get_reading (viewer)->compared_with, ==, 2);
  /* Closed while a body is read: the task finds the window gone and does nothing. */
  g_assert_true (assay_requests_window_select_request (viewer, 1));
  gtk_window_destroy (GTK_WINDOW (viewer));
  gui_spin (100);
  g_assert_finalize_object (viewer);
  g_assert_true (assay_session_delete (assay_session_get_dir (session), NULL));
}

static AssayRequestsWindow *
find_viewer (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* transfer none */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) widget = g_list_model_get_item (toplevels, i);

      if (ASSAY_IS_REQUESTS_WINDOW (widget) && gtk_widget_get_visible (widget))
        return ASSAY_REQUESTS_WINDOW (widget);
    }
  return NULL;
}

static GtkWidget *
find_step_button (GtkWidget *root,
                  guint      session_step)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)),
                                         "win.show-step-requests") == 0)
    {
      GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (root));

      if (target != NULL && g_variant_get_uint32 (target) == session_step && gtk_widget_get_visible (root))
        return root;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_step_button (child, session_step);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
close_viewer (AssayRequestsWindow *viewer)
{
  g_object_ref (viewer);
  gtk_window_destroy (GTK_WINDOW (viewer));
  gui_spin (50);
  g_assert_finalize_object (viewer);
}

static void
test_window (void)
{
  g_autoptr(AssaySession) session = make_session ();
  g_autofree char *dir = g_strdup (assay_session_get_dir (session));
  AssayWindow *window = g_object_ref (assay_window_new (NULL));
  AssayRequestsWindow *viewer;
  GtkWidget *button;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  /* No session yet: nothing to show. */
  g_assert_null (assay_window_get_session (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-requests", NULL);
  g_assert_null (find_viewer ());
  gui_open_session (window, dir);
  g_assert_nonnull (assay_window_get_session (window));

  /* The menu's item: the whole session, on the last request. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-requests", NULL);
  viewer = find_viewer ();
  g_assert_nonnull (viewer);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (viewer)) == GTK_WINDOW (window));
  g_assert_cmpuint (assay_requests_window_get_selected (viewer), ==, 3);
  gui_wait (not_loading, viewer, 30, "the body to be read");
  close_viewer (viewer);

  /* A step card's button: its step's request. The cards of the session shown number their
   * steps across the session. */
  button = find_step_button (GTK_WIDGET (assay_window_get_chat_view (window)), 2);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  viewer = find_viewer ();
  g_assert_nonnull (viewer);
  g_assert_cmpuint (assay_requests_window_get_selected (viewer), ==, 2);
  gui_wait (not_loading, viewer, 30, "the body to be read");
  g_assert_nonnull (find_part (viewer, "Model’s reply"));
  close_viewer (viewer);

  gui_close_window (window);
  g_assert_true (assay_session_delete (dir, NULL));
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

/* The SHA-256 of the chat completion the fake server received (its log, one JSON a line). */
static char *
received_sha256 (const char *log_path)
{
  g_autofree char *log = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (log_path, &log, NULL, NULL));
  lines = g_strsplit (log, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = *lines[i] != '\0' ? json_from_string (lines[i], NULL) : NULL;
      JsonObject *entry = node != NULL ? json_node_get_object (node) : NULL;

      if (entry != NULL && g_str_has_suffix (json_object_get_string_member (entry, "path"), "/chat/completions"))
        return g_strdup (json_object_get_string_member (entry, "body_sha256"));
    }
  return NULL;
}

/* A question asked for real (the fake OpenAI server): its step card opens the request the
 * agent recorded, as the server received it. */
static void
test_live (void)
{
  g_autofree char *work_dir = g_dir_make_tmp ("assay-gui-requests-XXXXXX", NULL);
  g_autofree char *csv_path = gui_write_file (work_dir, "regions.csv", "region,amount\nnorth,120\nsouth,80\n");
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *sha256 = NULL;
  g_autofree char *raw = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(GSettings) settings = g_settings_new ("org.assay.Assay");
  AssayRequestsWindow *viewer;
  const AssayRequestReading *reading;
  AssayWindow *window;
  GtkWidget *button;
  GtkWidget *part;

  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  server = gui_fake_server_start ("{\"responses\": [{\"flavor\": \"openai\", \"turn\": "
                                  "{\"text\": \"The total is <b>large</b>.\", \"finish\": \"stop\"}}]}",
                                  &base_url, &log_path);
  window = gui_open_recorded_window (work_dir, "{\"format\": \"assay-transcript\", \"turns\": []}", csv_path,
                                     1000, 700);
  provider = assay_openai_provider_new (base_url, NULL);
  assay_window_set_provider (window, provider, "fake-model", FALSE);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "What is the <b>total</b>?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 60, "the answer");
  g_assert_cmpuint (assay_session_get_requests (assay_window_get_session (window))->len, ==, 1);

  button = find_step_button (GTK_WIDGET (assay_window_get_chat_view (window)), 1);
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  viewer = find_viewer ();
  g_assert_nonnull (viewer);
  g_assert_cmpuint (assay_requests_window_get_selected (viewer), ==, 1);
  gui_wait (not_loading, viewer, 30, "the body to be read");
  reading = assay_requests_window_get_reading (viewer);
  g_assert_nonnull (reading);
  g_assert_cmpint (reading->format, ==, ASSAY_REQUEST_FORMAT_OPENAI);
  part = find_part (viewer, "Dataset summary");
  g_assert_true (gtk_widget_has_css_class (part, "added"));
  g_assert_nonnull (gui_find (part, GTK_TYPE_TEXT_VIEW, "/data/regions.csv"));
  part = find_part (viewer, "Question");
  g_assert_nonnull (gui_find (part, GTK_TYPE_TEXT_VIEW, "What is the <b>total</b>?"));
  /* The raw body is what the server received, byte for byte. */
  raw = assay_requests_window_dup_raw_text (viewer);
  sha256 = received_sha256 (log_path);
  g_assert_nonnull (sha256);
  g_assert_cmpstr (g_compute_checksum_for_string (G_CHECKSUM_SHA256, raw, -1), ==, sha256);
  close_viewer (viewer);

  gui_close_window (window);
  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
  g_settings_reset (settings, "provider");
}

static void
test_icon (void)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());

  /* The application adds its resources' icons to the theme; the tests have no application. */
  gtk_icon_theme_add_resource_path (theme, "/org/assay/Assay/icons");
  g_assert_true (gtk_icon_theme_has_icon (theme, "assay-sent-to-model-symbolic"));
}

int
main (int   argc,
      char *argv[])
{
  gui_test_init (&argc, &argv);
  g_test_add_func ("/assay/app/requests/icon", test_icon);
  g_test_add_func ("/assay/app/requests/viewer", test_viewer);
  g_test_add_func ("/assay/app/requests/switch-while-reading", test_switch_while_reading);
  g_test_add_func ("/assay/app/requests/window", test_window);
  g_test_add_func ("/assay/app/requests/live", test_live);
  return g_test_run ();
}
