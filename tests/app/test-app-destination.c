/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where the data goes and what it cost: the header says "Stays on this computer" for a model
 * server on loopback and "Sent to <host>" for one elsewhere, with icons the app ships;
 * moving the setting of an open session from this computer to a server elsewhere asks
 * first (Cancel writes the old setting back, also when the question comes from win.send
 * while Preferences was in front); a question against the fake model server on a
 * non-loopback address with gpt-4.1 and scripted usage shows each step's tokens and cost
 * (the shipped prices) under its card and the totals over the chat, live and reopened; a
 * server on loopback costs $0. The real sandbox (bubblewrap) runs the cell. */
#include "config.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <glib/gstdio.h>

#include "assay-chat-view.h"
#include "assay-preferences.h"
#include "assay-step-card.h"
#include "assay-window-private.h"
#include "gui-test-util.h"
#include "session-fixture.h"

static GSettings *settings;

/* The scripted usage: 120,000 tokens in, 100,000 of them cached, 2,500 out. For gpt-4.1
 * ($2.00 input, $0.50 cached input, $8.00 output per million): 20,000 × 2.00 + 100,000 ×
 * 0.50 + 2,500 × 8.00 = 110,000 per million, $0.11 a request. */
#define USAGE "\"usage\": {\"input\": 120000, \"cached\": 100000, \"output\": 2500}"

static void
use_model (const char *base_url,
           const char *model)
{
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_string (settings, "base-url", base_url);
  g_settings_set_string (settings, "model", model);
}

static AssayWindow *
open_window (void)
{
  AssayWindow *window = g_object_ref (assay_window_new (NULL));

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  return window;
}

static const char *
header_title (AssayWindow *window)
{
  return assay_destination_button_get_title (assay_window_get_destination_button (window));
}

typedef struct
{
  AssayWindow *window;
  const char  *text;
} TitleWait;

static gboolean
title_is (gpointer data)
{
  TitleWait *wait = data;

  return g_strcmp0 (header_title (wait->window), wait->text) == 0;
}

static void
wait_title (AssayWindow *window,
            const char  *text)
{
  TitleWait wait = { window, text };

  gui_wait (title_is, &wait, 10, text);
}

static gboolean
is_asking (gpointer data)
{
  return assay_window_get_send_dialog (data) != NULL;
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data) && assay_window_get_send_dialog (data) == NULL;
}

static gboolean
base_url_is (gpointer data)
{
  g_autofree char *base_url = g_settings_get_string (settings, "base-url");

  return g_strcmp0 (base_url, data) == 0;
}

/* The button under ROOT whose label reads LABEL. */
static GtkWidget *
find_button (GtkWidget  *root,
             const char *label)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (root)), label) == 0 &&
      gtk_widget_get_ancestor (root, GTK_TYPE_BUTTON) != NULL)
    return gtk_widget_get_ancestor (root, GTK_TYPE_BUTTON);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Clicks the dialog's button labelled LABEL, as the analyst would. */
static void
click (AdwMessageDialog *dialog,
       const char       *label)
{
  GtkWidget *button = find_button (GTK_WIDGET (dialog), label);

  g_assert_nonnull (button);
  gtk_widget_activate (button);
}

/* 1. The header, for each kind of server; and the icons it uses are the app's own. */
static void
test_header (void)
{
  g_autofree char *remote = gui_find_remote_address ();
  g_autofree char *remote_url = g_strdup_printf ("http://%s:8000/v1", remote ? remote : "192.0.2.1");
  g_autofree char *remote_host = g_strdup_printf ("%s:8000", remote ? remote : "192.0.2.1");
  g_autofree char *sent = g_strdup_printf ("Sent to %s", remote_host);
  g_autofree char *transcript = NULL;
  g_autoptr(AssayLlmProvider) recorded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-destination-XXXXXX", NULL);
  AssayDestinationButton *button;
  AssayModelDestination *destination;
  GtkIconTheme *theme;
  AssayWindow *window;

  use_model ("http://127.0.0.1:11434/v1", "llama3.2");
  window = open_window ();
  button = assay_window_get_destination_button (window);
  destination = assay_window_get_destination (window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (button)));
  g_assert_cmpstr (header_title (window), ==, "Stays on this computer");
  g_assert_nonnull (gui_find (GTK_WIDGET (window), GTK_TYPE_LABEL, "Stays on this computer"));
  g_assert_nonnull (gui_find (GTK_WIDGET (button), GTK_TYPE_LABEL, "llama3.2"));
  g_assert_true (assay_model_destination_get_local (destination));
  g_assert_nonnull (strstr (assay_destination_button_get_description (button), "llama3.2"));
  g_assert_nonnull (strstr (assay_destination_button_get_description (button), "127.0.0.1:11434"));
  g_assert_cmpstr (assay_model_destination_get_icon_name (destination), ==, "assay-computer-symbolic");
  gui_save_screenshot (GTK_WIDGET (window), "destination-local.png");

  /* The icons come with the app: a theme without them still shows them. */
  theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());
  g_assert_true (gtk_icon_theme_has_icon (theme, "assay-computer-symbolic"));
  g_assert_true (gtk_icon_theme_has_icon (theme, "assay-network-server-symbolic"));
  g_assert_true (g_resources_get_info ("/org/assay/Assay/icons/scalable/actions/assay-computer-symbolic.svg",
                                       G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL));
  g_assert_true (g_resources_get_info ("/org/assay/Assay/icons/scalable/actions/assay-network-server-symbolic.svg",
                                       G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL));

  /* "localhost" and ::1 are this computer too. */
  g_settings_set_string (settings, "base-url", "http://localhost:8080/v1");
  gui_spin (50);
  g_assert_cmpstr (header_title (window), ==, "Stays on this computer");
  g_settings_set_string (settings, "base-url", "http://[::1]:8080/v1");
  gui_spin (50);
  g_assert_cmpstr (header_title (window), ==, "Stays on this computer");

  /* No session has messages: the header follows at once, nothing asks. */
  g_settings_set_string (settings, "base-url", remote_url);
  wait_title (window, sent);
  g_assert_false (assay_model_destination_get_local (destination));
  g_assert_cmpstr (assay_model_destination_get_host (destination), ==, remote_host);
  g_assert_cmpstr (assay_model_destination_get_icon_name (destination), ==, "assay-network-server-symbolic");
  /* Where the header is narrow, the title says it under "Assay". */
  g_assert_nonnull (gui_find (GTK_WIDGET (window), GTK_TYPE_LABEL, sent));
  g_assert_nonnull (strstr (assay_destination_button_get_description (button), sent));
  g_assert_nonnull (strstr (assay_destination_button_get_description (button), "llama3.2"));
  gui_spin (600);
  g_assert_null (assay_window_get_send_dialog (window));
  gui_save_screenshot (GTK_WIDGET (window), "destination-remote.png");

  /* A real click opens the popover: its description is there to read (and select), not
   * opened highlighted as if selected for the analyst. */
  {
    GtkWidget *menu_button = gui_find (GTK_WIDGET (button), GTK_TYPE_MENU_BUTTON, NULL);
    GtkPopover *popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button));
    GtkWidget *description;
    int start = -1, end = -1;

    gui_click (menu_button);
    gui_wait ((GuiCondition) gtk_widget_get_mapped, popover, 10, "the destination's popover to open");
    gui_spin (100);
    description = gui_find (GTK_WIDGET (popover), GTK_TYPE_LABEL, assay_destination_button_get_description (button));
    g_assert_nonnull (description);
    g_assert_true (gtk_label_get_selectable (GTK_LABEL (description)));
    g_assert_false (gtk_label_get_selection_bounds (GTK_LABEL (description), &start, &end));
    gui_save_screenshot (GTK_WIDGET (window), "destination-popover.png");
    gtk_popover_popdown (popover);
    gui_spin (100);
  }

  /* The vendor's own server when base-url is empty. */
  g_settings_set_string (settings, "base-url", "");
  g_settings_set_string (settings, "model", "gpt-4.1");
  wait_title (window, "Sent to api.openai.com");
  g_assert_nonnull (gui_find (GTK_WIDGET (button), GTK_TYPE_LABEL, "gpt-4.1"));
  g_settings_set_string (settings, "provider", "anthropic");
  g_settings_set_string (settings, "model", "");
  wait_title (window, "Sent to api.anthropic.com");

  /* At any width the header keeps it: the label ellipsizes (the tooltip says it in full), so
   * the button asks for little more than its icon. */
  {
    int minimum, natural;

    gtk_widget_measure (GTK_WIDGET (button), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
    g_assert_cmpint (minimum, <=, 80);
    g_assert_cmpint (natural, >, minimum);
  }

  /* A recorded demo sends nothing. */
  transcript = gui_write_file (dir, "transcript.json",
                               "{\"format\": \"assay-transcript\", \"turns\": [{\"text\": \"Hello.\"}]}");
  recorded = assay_recorded_provider_new (transcript, &error);
  g_assert_no_error (error);
  assay_window_set_provider (window, recorded, "recorded", TRUE);
  wait_title (window, "Stays on this computer");
  g_assert_nonnull (gui_find (GTK_WIDGET (button), GTK_TYPE_LABEL, "Recorded demo"));
  assay_window_set_provider (window, NULL, NULL, FALSE);
  wait_title (window, "Sent to api.anthropic.com");

  /* No model chosen: nothing to say. */
  g_settings_set_string (settings, "provider", "");
  gui_spin (50);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (button)));
  gui_close_window (window);
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

/* 2. An open session moved from this computer to a server elsewhere: asked first. */
static void
test_ask_before_sending (void)
{
  g_autofree char *remote = gui_find_remote_address ();
  g_autofree char *dir = session_fixture_write_long (NULL, "How many rows are there?", 1, 200);
  const char *local_url = "http://127.0.0.1:9/v1";
  g_autofree char *remote_url = NULL;
  g_autofree char *other_url = NULL;
  g_autofree char *heading = NULL;
  g_autofree char *composer = NULL;
  AssayModelDestination *destination;
  GtkWidget *preferences;
  AdwMessageDialog *dialog;
  AssayWindow *window;

  g_assert_nonnull (remote);
  remote_url = g_strdup_printf ("http://%s:9/v1", remote);
  other_url = g_strdup_printf ("http://%s:10/v1", remote);
  use_model (local_url, "llama3.2");
  window = open_window ();
  destination = assay_window_get_destination (window);
  gui_open_session (window, dir);
  g_assert_true (assay_window_is_current_session (window, dir));

  /* Cancel: the setting is what it was. */
  g_settings_set_string (settings, "base-url", remote_url);
  gui_wait (is_asking, window, 10, "the question before sending the session");
  dialog = assay_window_get_send_dialog (window);
  heading = g_strdup_printf ("Send This Session to %s:9?", remote);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, heading);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), remote));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "data summaries"));
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), ==, "cancel");
  gui_save_screenshot (GTK_WIDGET (dialog), "destination-ask.png");
  click (dialog, "Cancel");
  gui_wait (base_url_is, (gpointer) local_url, 10, "the old setting back");
  gui_wait (is_idle, window, 10, "the dialog to go");
  g_assert_null (assay_model_destination_get_pending_host (destination));
  wait_title (window, "Stays on this computer");
  gui_spin (600);
  g_assert_null (assay_window_get_send_dialog (window));

  /* Moving back before answering: nothing to ask any more. */
  g_settings_set_string (settings, "base-url", remote_url);
  gui_wait (is_asking, window, 10, "the question again");
  g_settings_set_string (settings, "base-url", local_url);
  gui_wait (is_idle, window, 10, "the question dropped");
  g_assert_null (assay_model_destination_get_pending_host (destination));

  /* While Preferences is in front (an address being typed), the question waits; a question
   * sent meanwhile asks it, and Cancel leaves the question unsent. */
  preferences = assay_preferences_new (GTK_WINDOW (window), NULL);
  gtk_window_present (GTK_WINDOW (preferences));
  gui_spin (100);
  g_settings_set_string (settings, "base-url", remote_url);
  gui_spin (800);
  g_assert_cmpstr (assay_model_destination_get_pending_host (destination), !=, NULL);
  g_assert_null (assay_window_get_send_dialog (window));
  gtk_window_destroy (GTK_WINDOW (preferences));
  gui_spin (50);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "And the columns?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_nonnull (assay_window_get_send_dialog (window));
  g_assert_false (assay_window_get_busy (window));
  click (assay_window_get_send_dialog (window), "Cancel");
  gui_wait (base_url_is, (gpointer) local_url, 10, "the old setting back");
  gui_wait (is_idle, window, 10, "the dialog to go");
  composer = assay_chat_view_get_composer_text (assay_window_get_chat_view (window));
  g_assert_cmpstr (composer, ==, "And the columns?");

  /* Send: the new setting holds; from there another server elsewhere asks nothing. */
  g_settings_set_string (settings, "base-url", remote_url);
  gui_wait (is_asking, window, 10, "the question before sending the session");
  click (assay_window_get_send_dialog (window), "Send");
  gui_wait (is_idle, window, 10, "the dialog to go");
  g_assert_true (base_url_is ((gpointer) remote_url));
  g_assert_null (assay_model_destination_get_pending_host (destination));
  g_settings_set_string (settings, "base-url", other_url);
  gui_spin (800);
  g_assert_null (assay_window_get_send_dialog (window));
  g_assert_true (base_url_is (other_url));

  /* A new session has nothing to send yet. */
  g_settings_set_string (settings, "base-url", local_url);
  gui_spin (600);
  assay_window_new_session (window);
  g_settings_set_string (settings, "base-url", remote_url);
  gui_spin (800);
  g_assert_null (assay_window_get_send_dialog (window));
  g_assert_true (base_url_is (remote_url));

  gui_close_window (window);
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

static void
collect_cards (GtkWidget *root,
               GPtrArray *cards)
{
  if (ASSAY_IS_STEP_CARD (root))
    g_ptr_array_add (cards, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    collect_cards (child, cards);
}

static GPtrArray *
step_cards (AssayWindow *window)
{
  GPtrArray *cards = g_ptr_array_new ();

  collect_cards (GTK_WIDGET (assay_window_get_chat_view (window)), cards);
  return cards;
}

static char *
usage_text (gint64      input,
            gint64      output,
            const char *cost)
{
  /* Grouped as the locale groups digits, the way the chat writes them. */
  return g_strdup_printf ("%'lld tokens in · %'lld out · %s", (long long) input, (long long) output, cost);
}

static void
ask_question (AssayWindow *window,
              const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
}

static void
wait_idle (AssayWindow *window)
{
  gui_wait (is_idle, window, 180, "the question to end");
}

/* The footers of the cards and the header, as a question against gpt-4.1 left them: one
 * step with a cell, then the answer, $0.11 each. */
static void
check_first_question (AssayWindow *window)
{
  AssayChatView *chat = assay_window_get_chat_view (window);
  g_autoptr(GPtrArray) cards = step_cards (window);
  g_autofree char *step = usage_text (120000, 2500, "$0.11");
  g_autofree char *total = usage_text (240000, 5000, "$0.22");
  g_autofree char *session_line = g_strdup_printf ("This session: %s", total);

  g_assert_cmpuint (cards->len, ==, 2);
  g_assert_cmpuint (assay_step_card_get_n_cells (g_ptr_array_index (cards, 0)), ==, 1);
  g_assert_cmpstr (assay_step_card_get_usage (g_ptr_array_index (cards, 0)), ==, step);
  g_assert_cmpstr (assay_step_card_get_usage (g_ptr_array_index (cards, 1)), ==, step);
  g_assert_nonnull (gui_find (GTK_WIDGET (g_ptr_array_index (cards, 0)), GTK_TYPE_LABEL, step));
  g_assert_cmpstr (assay_chat_view_get_session_usage (chat), ==, session_line);
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, session_line));
  /* One question: its total is the session's, said once. */
  g_assert_null (assay_chat_view_get_question_usage (chat));
}

/* 3. Tokens and cost: live, reopened, and a second question's own total. */
static void
test_usage (void)
{
  g_autofree char *remote = gui_find_remote_address ();
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *sent = NULL;
  g_autofree char *step = usage_text (120000, 2500, "$0.11");
  g_autofree char *question_line = NULL;
  g_autofree char *session_line = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  AssaySession *session;
  GPtrArray *requests;
  AssayWindow *window;

  g_assert_nonnull (remote);
  server = gui_fake_server_start_on (remote,
                         "{\"responses\": ["
                         "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Let me compute it.\", \"tool_calls\": "
                         "  [{\"name\": \"execute_python\", \"arguments\": \"{\\\"code\\\": \\\"print(6*7)\\\", "
                         "  \\\"description\\\": \\\"Multiply\\\"}\"}], " USAGE "}},"
                         "{\"flavor\": \"openai\", \"turn\": {\"text\": \"It is **42**.\", " USAGE "}}]}",
                         &base_url, &log_path);
  use_model (base_url, "gpt-4.1");
  g_settings_set_enum (settings, "approval-policy", 1 /* auto */);
  window = open_window ();
  sent = g_strdup_printf ("Sent to %s", strstr (base_url, "//") + 2);
  *strrchr (sent, '/') = '\0';
  g_assert_cmpstr (header_title (window), ==, sent);

  ask_question (window, "What is six times seven?");
  wait_idle (window);
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL, "It is 42."));
  session = assay_window_get_session (window);
  /* Where the code ran, beside where the data went, and in the record (issue 17, item 5). */
  g_assert_cmpstr (assay_destination_button_get_sandbox (assay_window_get_destination_button (window)), ==,
                   "The code runs in bubblewrap on this machine.");
  g_assert_cmpstr (assay_session_get_sandbox (session), ==, "bwrap");
  g_assert_cmpstr (assay_session_get_sandbox_where (session), ==, "bubblewrap on this machine");
  requests = assay_session_get_requests (session);
  g_assert_cmpuint (requests->len, ==, 2);
  for (guint i = 0; i < requests->len; i++)
    {
      const AssaySessionRequest *request = g_ptr_array_index (requests, i);

      g_assert_cmpuint (request->step, ==, i + 1);
      g_assert_cmpfloat_with_epsilon (request->cost, 0.11, 1e-9);
    }
  check_first_question (window);
  gui_save_screenshot (GTK_WIDGET (window), "destination-usage.png");

  /* Reopened from its record: the same figures. */
  dir = g_strdup (assay_session_get_dir (session));
  assay_window_new_session (window);
  gui_spin (100);
  g_assert_null (assay_chat_view_get_session_usage (assay_window_get_chat_view (window)));
  gui_open_session (window, dir);
  g_assert_true (assay_window_is_current_session (window, dir));
  check_first_question (window);

  /* A second question (the server repeats its answer, whose 42 no cell of this question
   * printed: not sent back to be checked here): its own total, and the session's. */
  g_settings_set_boolean (settings, "check-numbers", FALSE);
  ask_question (window, "And six times seven again?");
  wait_idle (window);
  cards = step_cards (window);
  g_assert_cmpuint (cards->len, ==, 3);
  g_assert_cmpstr (assay_step_card_get_usage (g_ptr_array_index (cards, 2)), ==, step);
  question_line = g_strdup_printf ("This question: %s", step);
  {
    g_autofree char *total = usage_text (360000, 7500, "$0.33");

    session_line = g_strdup_printf ("This session: %s", total);
  }
  g_assert_cmpstr (assay_chat_view_get_question_usage (assay_window_get_chat_view (window)), ==, question_line);
  g_assert_cmpstr (assay_chat_view_get_session_usage (assay_window_get_chat_view (window)), ==, session_line);

  gui_close_window (window);
  gui_fake_server_stop (server, log_path);
  g_settings_reset (settings, "approval-policy");
  g_settings_reset (settings, "check-numbers");
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

/* 4. The same model on a server on loopback costs nothing. */
static void
test_usage_local (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *step = usage_text (120000, 2500, "$0");
  g_autofree char *session_line = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  AssayWindow *window;

  server = gui_fake_server_start_on (NULL, "{\"responses\": [{\"flavor\": \"openai\", \"turn\": {\"text\": \"Six sevens.\", " USAGE "}}]}",
                         &base_url, &log_path);
  use_model (base_url, "gpt-4.1");
  window = open_window ();
  g_assert_cmpstr (header_title (window), ==, "Stays on this computer");
  ask_question (window, "What is six times seven?");
  wait_idle (window);
  cards = step_cards (window);
  g_assert_cmpuint (cards->len, ==, 1);
  g_assert_cmpstr (assay_step_card_get_usage (g_ptr_array_index (cards, 0)), ==, step);
  session_line = g_strdup_printf ("This session: %s", step);
  g_assert_cmpstr (assay_chat_view_get_session_usage (assay_window_get_chat_view (window)), ==, session_line);
  gui_close_window (window);
  gui_fake_server_stop (server, log_path);
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  g_test_add_func ("/assay/app/destination/header", test_header);
  g_test_add_func ("/assay/app/destination/ask-before-sending", test_ask_before_sending);
  g_test_add_func ("/assay/app/destination/usage", test_usage);
  g_test_add_func ("/assay/app/destination/usage-local", test_usage_local);
  status = g_test_run ();
  g_object_unref (settings);
  return status;
}
