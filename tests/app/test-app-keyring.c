/* SPDX-License-Identifier: GPL-3.0-or-later */
/* (This file runs with a private D-Bus session: the application tests need one too.)
 * API keys go to the keyring (a real gnome-keyring-daemon on a private D-Bus session) and come
 * back from it to the provider; they are never written to GSettings or a session file. The
 * application's accelerators: Ctrl+Enter runs an edited cell. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "assay-application.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-keyring.h"
#include "assay-onboarding.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

#define SECRET_KEY "sk-test-3f9a1c77e2b04d55"

typedef struct
{
  gboolean  done;
  gboolean  stored;
  char     *key;
} Result;

static gboolean
is_done (gpointer data)
{
  return ((Result *) data)->done;
}

static void
stored_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(GError) error = NULL;

  ((Result *) data)->stored = assay_keyring_store_finish (result, &error);
  g_assert_no_error (error);
  ((Result *) data)->done = TRUE;
}

static void
looked_up_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(GError) error = NULL;

  ((Result *) data)->key = assay_keyring_lookup_finish (result, &error);
  g_assert_no_error (error);
  ((Result *) data)->done = TRUE;
}

static char *
lookup (const char *provider,
        const char *base_url)
{
  Result result = { 0 };

  assay_keyring_lookup_async (provider, base_url, NULL, looked_up_cb, &result);
  gui_wait (is_done, &result, 20, "the keyring lookup");
  return result.key;
}

static void
test_store_and_lookup (void)
{
  Result result = { 0 };
  g_autofree char *key = NULL;
  g_autofree char *other = NULL;

  assay_keyring_store_async ("anthropic", NULL, "sk-ant-test-key", NULL, stored_cb, &result);
  gui_wait (is_done, &result, 20, "the keyring store");
  g_assert_true (result.stored);
  key = lookup ("anthropic", NULL);
  g_assert_cmpstr (key, ==, "sk-ant-test-key");
  other = lookup ("anthropic", "http://elsewhere/v1");
  g_assert_null (other);
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static gboolean
key_is_stored (gpointer data)
{
  g_autofree char *key = lookup ("openai", data);

  return g_strcmp0 (key, SECRET_KEY) == 0;
}

static void
test_onboarding_key (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.assay.Assay");
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *requests = NULL;
  g_autofree char *record_path = NULL;
  g_autofree char *record = NULL;
  g_autoptr(GSubprocess) server = NULL;
  AssayWindow *window;

  server = gui_fake_server_start ("{\"responses\": [{\"flavor\": \"openai\", \"turn\": {\"text\": \"Hello from the **server**.\", \"finish\": \"stop\"}}]}",
                                  &base_url, &log_path);
  g_settings_reset (settings, "provider");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  window = g_object_ref (assay_window_new (NULL));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");

  /* What the onboarding page emits when a key is pasted for a server. */
  g_signal_emit_by_name (assay_window_get_onboarding (window), "configured",
                         "openai", base_url, "fake-model", SECRET_KEY);
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  gui_wait (key_is_stored, base_url, 20, "the key in the keyring");
  gui_assert_not_in_settings (settings, SECRET_KEY);

  /* A question: the provider gets its key from the keyring. */
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Hello?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 60, "the answer");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                              "Hello from the server."));
  g_assert_true (g_file_get_contents (log_path, &requests, NULL, NULL));
  g_assert_nonnull (strstr (requests, "Bearer " SECRET_KEY));

  record_path = g_build_filename (assay_session_get_dir (assay_window_get_session (window)), "session.json", NULL);
  g_assert_true (g_file_get_contents (record_path, &record, NULL, NULL));
  g_assert_null (strstr (record, SECRET_KEY));
  g_assert_null (strstr (record, "sk-test"));
  gui_assert_not_in_settings (settings, SECRET_KEY);

  gtk_window_destroy (GTK_WINDOW (window));
  gui_spin (50);
  g_assert_finalize_object (window);
  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
  g_unlink (log_path);
}

/* `assay sales.csv notes.pdf`: G_APPLICATION_HANDLES_OPEN gives the files to the window. */
static void
test_application_open (void)
{
  g_autoptr(AssayApplication) app = assay_application_new ();
  g_autoptr(GSettings) settings = g_settings_new ("org.assay.Assay");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-open-XXXXXX", NULL);
  g_autofree char *csv = gui_write_file (dir, "sales.csv", "a,b\n1,2\n");
  g_autofree char *pdf = gui_write_file (dir, "notes.pdf", "%PDF");
  GFile *files[2];
  GtkWindow *window;
  AssaySession *session;

  g_settings_set_string (settings, "provider", "openai");
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  files[0] = g_file_new_for_path (csv);
  files[1] = g_file_new_for_path (pdf);
  g_application_open (G_APPLICATION (app), &files[1], 1, "");
  window = gtk_application_get_active_window (GTK_APPLICATION (app));
  g_assert_true (ASSAY_IS_WINDOW (window));
  g_assert_nonnull (strstr (assay_window_get_last_toast (ASSAY_WINDOW (window)), "notes.pdf"));
  g_assert_null (assay_window_get_session (ASSAY_WINDOW (window)));
  g_application_open (G_APPLICATION (app), files, 2, "");
  g_assert_true (gtk_application_get_active_window (GTK_APPLICATION (app)) == window);
  gui_wait_files_added (ASSAY_WINDOW (window));
  session = assay_window_get_session (ASSAY_WINDOW (window));
  g_assert_nonnull (session);
  g_assert_cmpuint (assay_session_get_datasets (session)->len, ==, 1);
  g_assert_nonnull (strstr (assay_window_get_last_toast (ASSAY_WINDOW (window)), "Added sales.csv"));
  g_object_ref (window);
  gtk_window_destroy (window);
  gui_spin (50);
  g_assert_finalize_object (window);
  g_object_unref (files[0]);
  g_object_unref (files[1]);
  g_unlink (csv);
  g_unlink (pdf);
  g_rmdir (dir);
}

static gboolean
is_waiting (gpointer data)
{
  return assay_code_review_get_waiting (assay_window_get_code_review (data));
}

/* Edit, typed into, then Ctrl+Enter (the application's accelerator for win.run): the edited
 * code runs in the sandbox. Clicks and keys from the X server, GTK's own settings (the cursor
 * blinks), and time for a blink after the keys. */
static void
test_application_edit_ctrl_enter (void)
{
  g_autoptr(AssayApplication) app = assay_application_new ();
  g_autoptr(GSettings) settings = g_settings_new ("org.assay.Assay");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-keys-XXXXXX", NULL);
  g_autofree char *csv = gui_write_file (dir, "regions.csv", "region,amount\nnorth,120\n");
  g_autofree char *transcript = g_build_filename (dir, "transcript.json", NULL);
  AssayWindow *window;
  AssayCodeReview *review;
  AssaySessionCell *cell;
  GtkWidget *edit_button;
  GtkWidget *view;
  gboolean blink;
  int blink_time;

  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  /* The open test's application still holds the name and the object path on the bus. */
  g_application_set_application_id (G_APPLICATION (app), "org.assay.Assay.Keys");
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  window = gui_open_recorded_window (dir,
    "{\"format\": \"assay-transcript\", \"turns\": ["
    "{\"text\": \"A first look.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
    "  \"arguments\": {\"code\": \"print('original')\\n\", \"description\": \"Print\"}}]},"
    "{\"text\": \"Done.\"}]}",
    csv, 1400, 900);
  gtk_application_add_window (GTK_APPLICATION (app), GTK_WINDOW (window));
  review = assay_window_get_code_review (window);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Print something");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_waiting, window, 90, "a cell waiting for approval");

  view = gui_find (GTK_WIDGET (review), GTK_SOURCE_TYPE_VIEW, NULL);
  edit_button = gui_find_button (GTK_WIDGET (review), "review.edit");
  g_assert_nonnull (edit_button);
  gui_click (edit_button);
  gui_key (view, GDK_KEY_a, GDK_CONTROL_MASK);
  gui_type (view, "print('sent with the keys')\n");
  gui_key (view, GDK_KEY_Return, GDK_CONTROL_MASK);
  g_object_get (gtk_widget_get_settings (view), "gtk-cursor-blink", &blink,
                "gtk-cursor-blink-time", &blink_time, NULL);
  g_assert_true (blink);
  gui_spin (2 * blink_time + 600);
  gui_wait (is_idle, window, 120, "the question to end");
  gui_spin (2 * blink_time + 600);

  cell = assay_session_get_cell (assay_window_get_session (window), 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_EDITED);
  g_assert_cmpstr (cell->code, ==, "print('sent with the keys')\n");
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_OK);
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_TEXT_VIEW,
                              "sent with the keys"));
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  gui_save_screenshot (GTK_WIDGET (window), "review-ctrl-enter-1400.png");
  gui_close_window (window);
  g_settings_reset (settings, "sandbox-backend");
  g_unlink (csv);
  g_unlink (transcript);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  gui_test_init (&argc, &argv);
  g_test_add_func ("/assay/app/keyring/store-and-lookup", test_store_and_lookup);
  g_test_add_func ("/assay/app/keyring/onboarding-key", test_onboarding_key);
  g_test_add_func ("/assay/app/application/open", test_application_open);
  g_test_add_func ("/assay/app/application/edit-ctrl-enter", test_application_edit_ctrl_enter);
  return g_test_run ();
}
