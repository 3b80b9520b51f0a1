/* SPDX-License-Identifier: GPL-3.0-or-later */
/* E2B in the window (issue 17, item 3), against tests/e2b/fake_e2b_server.py (a stand-in
 * written from E2B's published API and SDK sources; no E2B server is reachable here), whose
 * sandboxes really run the code in bubblewrap on this machine's sandbox tree. With E2B chosen
 * in Preferences and no key stored, a question fails saying so and runs nothing here; the key
 * set in Preferences → Sandbox goes to the real keyring (a gnome-keyring-daemon on a private
 * D-Bus session), never to GSettings or the session folder, and the survey's E2B row turns
 * usable and in use; the next question's cell runs on the fake E2B, the destination popover and the
 * record say E2B; switching to another session pauses the sandbox (kept, not ended) and the
 * record names it; opening the session again resumes it, a variable defined before still
 * there. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "assay-chat-view.h"
#include "assay-keyring.h"
#include "assay-preferences.h"
#include "assay-session-cell.h"
#include "assay-window-private.h"
#include "assay-rerun-dialog.h"
#include "gui-test-util.h"

#define E2B_KEY "e2b_gui_test_5a1f0c3d9e7b"

static GSettings *settings;
typedef struct
{
  GSubprocess *process;
  char        *state;
  char        *url;
} Fake;

/* Started before GTK (its threads), since it sets the environment. */
static Fake fake;

typedef struct
{
  gboolean  done;
  char     *key;
} Lookup;

static gboolean
is_done (gpointer data)
{
  return ((Lookup *) data)->done;
}

static void
looked_up_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(GError) error = NULL;

  ((Lookup *) data)->key = assay_keyring_lookup_finish (result, &error);
  g_assert_no_error (error);
  ((Lookup *) data)->done = TRUE;
}

static char *
lookup_e2b_key (void)
{
  Lookup lookup = { 0 };

  assay_keyring_lookup_async ("e2b", "", NULL, looked_up_cb, &lookup);
  gui_wait (is_done, &lookup, 20, "the keyring lookup");
  return lookup.key;
}

/* A complete sandbox tree of this machine, for the fake's bubblewrap; the test fails
 * without one (nothing is skipped). */
static char *
find_tree (void)
{
  const char *store = g_getenv ("ASSAY_SANDBOX_STORE");
  g_autoptr(GDir) dir = g_dir_open (store != NULL ? store : "/var/lib/assay/sandbox", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *tree = g_build_filename (store != NULL ? store : "/var/lib/assay/sandbox", name, NULL);
      g_autofree char *complete = g_build_filename (tree, ".assay-complete", NULL);

      if (g_str_has_prefix (name, "tree-") && g_file_test (complete, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&tree);
    }
  return NULL;
}

static void
fake_start (Fake *fake)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree char *tree = find_tree ();
  g_autofree char *port_file = NULL;
  g_autofree char *port = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (tree);   /* assay-cli sandbox build --backend bwrap makes one */
  fake->state = g_dir_make_tmp ("assay-gui-e2b-XXXXXX", NULL);
  port_file = g_build_filename (fake->state, "port", NULL);
  gui_launcher_die_with_test (launcher);
  fake->process = g_subprocess_launcher_spawn (launcher, &error, PYTHON3, FAKE_E2B_SERVER,
                                               "--port-file", port_file, "--state", fake->state,
                                               "--key", E2B_KEY, "--rootfs", tree, NULL);
  g_assert_no_error (error);
  for (guint i = 0; i < 200 && !g_file_get_contents (port_file, &port, NULL, NULL); i++)
    g_usleep (G_USEC_PER_SEC / 20);
  g_assert_nonnull (port);
  fake->url = g_strdup_printf ("http://127.0.0.1:%s", port);
  /* The SDKs' own overrides of where E2B is: the key is never in the environment here. */
  g_setenv ("E2B_API_URL", fake->url, TRUE);
  g_setenv ("E2B_SANDBOX_URL", fake->url, TRUE);
  g_unsetenv ("E2B_API_KEY");
  g_unsetenv ("E2B_DOMAIN");
  g_unsetenv ("E2B_TEMPLATE");
}

static void
fake_stop (Fake *fake)
{
  g_autofree char *command = g_strdup_printf ("rm -rf '%s'", fake->state);

  g_subprocess_send_signal (fake->process, SIGTERM);
  g_subprocess_wait (fake->process, NULL, NULL);
  g_clear_object (&fake->process);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
  g_free (fake->state);
  g_free (fake->url);
}

/* GET PATH of the fake (its control plane with the key, or a test hook). */
static JsonNode *
fake_get (Fake       *fake,
          const char *path)
{
  g_autofree char *url = g_strconcat (fake->url, path, NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "curl", "-s", "-H", "X-API-Key: " E2B_KEY, url, NULL };
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  return json_from_string (out, &error);
}

static gboolean
fake_saw (Fake       *fake,
          const char *method,
          const char *path_prefix)
{
  g_autoptr(JsonNode) requests = fake_get (fake, "/_fake/requests");
  JsonArray *array = json_node_get_array (requests);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *request = json_array_get_object_element (array, i);

      if (g_str_equal (json_object_get_string_member (request, "method"), method) &&
          g_str_has_prefix (json_object_get_string_member (request, "path"), path_prefix))
        return TRUE;
    }
  return FALSE;
}

/* gui_find reads an entry row's text, not its title. */
static GtkWidget *
find_row (GtkWidget  *root,
          GType       type,
          const char *title)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_row (child, type, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char *
row_status (GtkWidget *row)
{
  const char *states[] = { "In Use", "Ready", "Not Usable", "Not Prepared", NULL };

  if (GTK_IS_LABEL (row) && g_strv_contains (states, gtk_label_get_text (GTK_LABEL (row))))
    return gtk_label_get_text (GTK_LABEL (row));
  for (GtkWidget *child = gtk_widget_get_first_child (row); child; child = gtk_widget_get_next_sibling (child))
    {
      const char *found = row_status (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
e2b_row_is (gpointer data)
{
  GtkWidget *preferences = ((gpointer *) data)[0];
  const char *status = ((gpointer *) data)[1];
  GtkWidget *searching = find_row (preferences, ADW_TYPE_ACTION_ROW, "Looking for engines…");
  GtkWidget *group = searching != NULL ? gtk_widget_get_ancestor (searching, ADW_TYPE_PREFERENCES_GROUP) : NULL;
  GtkWidget *row = group != NULL ? find_row (group, ADW_TYPE_ACTION_ROW, "E2B") : NULL;

  return searching != NULL && !gtk_widget_get_visible (searching) && row != NULL &&
         g_strcmp0 (row_status (row), status) == 0;
}

/* Preferences → Sandbox opened with BASE_URL set (NULL: OpenAI's own): the row of OpenAI's
 * hosted interpreter reads STATUS, its subtitle WHY. */
static void
check_hosted_row (AssayWindow *window,
                  const char  *base_url,
                  const char  *status,
                  const char  *why)
{
  GtkWidget *preferences;
  GtkWidget *row;
  gpointer wait[2];

  g_settings_set_string (settings, "base-url", base_url != NULL ? base_url : "");
  preferences = assay_preferences_new (GTK_WINDOW (window), NULL);
  gtk_window_present (GTK_WINDOW (preferences));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (preferences), "sandbox");
  wait[0] = preferences;
  wait[1] = (gpointer) "In Use";
  gui_wait (e2b_row_is, wait, 60, "the engines listed");
  row = find_row (preferences, ADW_TYPE_ACTION_ROW, "OpenAI (hosted)");
  g_assert_nonnull (row);
  g_assert_cmpstr (row_status (row), ==, status);
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), why));
  gtk_window_destroy (GTK_WINDOW (preferences));
  g_settings_reset (settings, "base-url");
  gui_spin (50);
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data) && assay_window_get_send_dialog (data) == NULL;
}

static void
ask (AssayWindow *window,
     const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 180, "the question to end");
}

/* What the cell printed, its streams joined. */
static char *
cell_stdout (AssaySessionCell *cell)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (cell->outputs); i++)
    {
      JsonObject *output = json_array_get_object_element (cell->outputs, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (output, "output_type", ""), "stream") == 0)
        g_string_append (text, json_object_get_string_member_with_default (output, "text", ""));
    }
  return g_string_free (text, FALSE);
}

/* No file under DIR holds TEXT. */
static void
assert_not_in_folder (const char *dir,
                      const char *text)
{
  g_autoptr(GDir) folder = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (folder);
  while ((name = g_dir_read_name (folder)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;
      gsize length;

      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          assert_not_in_folder (path, text);
          continue;
        }
      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      g_assert_null (g_strstr_len (contents, length, text));
    }
}

static AssayRerunDialog *
find_rerun_dialog (void)
{
  return (AssayRerunDialog *) gui_find_toplevel (ASSAY_TYPE_RERUN_DIALOG);
}

static gboolean
not_comparing (gpointer data)
{
  return !assay_rerun_dialog_get_comparing (data);
}

static void
rerun_opened_cb (AssayRerunDialog *dialog,
                 const char       *dir,
                 gboolean          changes,
                 char            **opened)
{
  g_free (*opened);
  *opened = g_strdup (dir);
}

/* DATA: the window and the folder the dialog asked it to open. */
static gboolean
rerun_shown (gpointer data)
{
  gpointer *wait = data;
  AssayWindow *window = wait[0];
  char **opened = wait[1];
  AssaySession *session = assay_window_get_session (window);

  return *opened != NULL && !assay_window_get_opening (window) && session != NULL &&
         g_strcmp0 (assay_session_get_dir (session), *opened) == 0;
}

static void
test_e2b (void)
{
  const char *transcript =
    "{\"format\": \"assay-transcript\", \"model\": \"recorded-gui\", \"turns\": ["
    " {\"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\", \"arguments\":"
    "   {\"code\": \"import secrets\\nstamp = secrets.token_hex(8)\\nprint('stamp', stamp)\", \"description\": \"a stamp\"}}]},"
    " {\"text\": \"Stamped.\"},"
    " {\"tool_calls\": [{\"id\": \"call_2\", \"name\": \"execute_python\", \"arguments\":"
    "   {\"code\": \"print('again', stamp)\", \"description\": \"the stamp again\"}}]},"
    " {\"text\": \"The same stamp.\"}]}";
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-e2b-session-XXXXXX", NULL);
  g_autofree char *csv = gui_write_file (dir, "sales.csv", "region,amount\nnorth,1\nsouth,2\n");
  g_autofree char *session_dir = NULL;
  g_autofree char *stored = NULL;
  g_autofree char *expected_where = NULL;
  g_autofree char *resume_path = NULL;
  g_autofree char *sandbox_path = NULL;
  g_autofree char *stamp = NULL;
  g_autofree char *again = NULL;
  g_autoptr(JsonNode) sandbox = NULL;
  GtkWidget *preferences;
  GtkWidget *key_row;
  AssaySession *session;
  AssayWindow *window;
  const char *sandbox_label;
  const char *resume_id;
  gpointer wait[2];

  g_settings_set_enum (settings, "approval-policy", 1 /* auto */);
  g_settings_set_string (settings, "sandbox-backend", "e2b");
  window = gui_open_recorded_window (dir, transcript, csv, 1200, 800);

  /* 1. E2B chosen, no key stored: the question fails saying so; nothing ran anywhere. */
  ask (window, "Stamp it");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                              "no E2B key is stored"));
  g_assert_false (fake_saw (&fake, "POST", "/sandboxes"));
  session = assay_window_get_session (window);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 0);
  g_assert_cmpstr (assay_session_get_sandbox (session), !=, "bwrap");

  /* 2. The key set in Preferences → Sandbox: in the keyring, and E2B is usable. */
  preferences = assay_preferences_new (GTK_WINDOW (window), NULL);
  gtk_window_present (GTK_WINDOW (preferences));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (preferences), "sandbox");
  wait[0] = preferences;
  wait[1] = (gpointer) "Not Usable";
  gui_wait (e2b_row_is, wait, 60, "E2B listed as not usable without a key");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (find_row (preferences, ADW_TYPE_ACTION_ROW,
                                                                                   "New Sessions"))),
                            "E2B is chosen but cannot be used"));
  key_row = find_row (preferences, ADW_TYPE_PASSWORD_ENTRY_ROW, "E2B API Key");
  g_assert_nonnull (key_row);
  gtk_editable_set_text (GTK_EDITABLE (key_row), E2B_KEY);
  g_signal_emit_by_name (key_row, "apply");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (key_row)), ==, "");
  wait[1] = (gpointer) "In Use";
  gui_wait (e2b_row_is, wait, 60, "E2B usable with the key from the keyring, and in use");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (find_row (preferences, ADW_TYPE_ACTION_ROW, "New Sessions"))),
                   ==, "E2B, as chosen: the cells and the datasets go to E2B.");
  stored = lookup_e2b_key ();
  g_assert_cmpstr (stored, ==, E2B_KEY);
  gui_assert_not_in_settings (settings, E2B_KEY);
  gui_save_screenshot (preferences, "preferences-e2b.png");
  gtk_window_destroy (GTK_WINDOW (preferences));
  gui_spin (50);
  /* OpenAI's hosted interpreter (it said "Ready" whatever the provider, server and key):
   * not usable without OpenAI's Responses API, not prepared without an OpenAI key. */
  check_hosted_row (window, NULL, "Not Usable", "Responses API");
  g_settings_set_string (settings, "provider", "openai");
  check_hosted_row (window, NULL, "Not Prepared", "No OpenAI API key");
  check_hosted_row (window, "http://127.0.0.1:9/v1", "Not Usable", "Responses API");
  g_settings_reset (settings, "provider");

  /* 3. The cell runs on E2B; the popover and the record say so. */
  ask (window, "Stamp it again");
  g_assert_true (fake_saw (&fake, "POST", "/sandboxes"));
  g_assert_true (fake_saw (&fake, "POST", "/execute"));
  session = assay_window_get_session (window);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);
  g_assert_true (assay_session_cell_succeeded (assay_session_get_cell (session, 0)));
  g_assert_cmpstr (assay_session_get_sandbox (session), ==, "e2b");
  expected_where = g_strdup_printf ("E2B (template code-interpreter-v1 at %s)", fake.url);
  g_assert_cmpstr (assay_session_get_sandbox_where (session), ==, expected_where);
  sandbox_label = assay_destination_button_get_sandbox (assay_window_get_destination_button (window));
  g_assert_nonnull (sandbox_label);
  g_assert_nonnull (strstr (sandbox_label, expected_where));
  session_dir = g_strdup (assay_session_get_dir (session));
  stamp = cell_stdout (assay_session_get_cell (session, 0));
  g_assert_true (g_str_has_prefix (stamp, "stamp ") && strlen (stamp) == strlen ("stamp ") + 16 + 1);

  /* 4. Another session: the sandbox is paused, not ended, and the record names it. */
  assay_window_new_session (window);
  gui_spin (200);
  {
    g_autoptr(AssaySession) reloaded = NULL;

    for (guint i = 0; i < 100; i++)
      {
        g_clear_object (&reloaded);
        reloaded = assay_session_load (session_dir, NULL);
        if (reloaded != NULL && assay_session_get_sandbox_resume_id (reloaded) != NULL)
          break;
        gui_spin (100);
      }
    g_assert_nonnull (reloaded);
    resume_id = assay_session_get_sandbox_resume_id (reloaded);
    g_assert_nonnull (resume_id);
    sandbox_path = g_strdup_printf ("/sandboxes/%s", resume_id);
    resume_path = g_strdup_printf ("/sandboxes/%s/connect", resume_id);
  }
  {
    g_autofree char *pause_path = g_strconcat (sandbox_path, "/pause", NULL);

    for (guint i = 0; i < 100 && !fake_saw (&fake, "POST", pause_path); i++)
      gui_spin (100);
    g_assert_true (fake_saw (&fake, "POST", pause_path));
  }
  g_assert_false (fake_saw (&fake, "DELETE", sandbox_path));
  sandbox = fake_get (&fake, sandbox_path);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (sandbox), "state"), ==, "paused");
  assert_not_in_folder (session_dir, E2B_KEY);

  /* 5. Opened again: resumed, the stamp of the first cell still defined, nothing replayed. */
  gui_open_session (window, session_dir);
  g_assert_true (assay_window_is_current_session (window, session_dir));
  ask (window, "The stamp again?");
  g_assert_true (fake_saw (&fake, "POST", resume_path));
  session = assay_window_get_session (window);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 2);
  g_assert_true (assay_session_cell_succeeded (assay_session_get_cell (session, 1)));
  again = cell_stdout (assay_session_get_cell (session, 1));
  g_assert_cmpstr (again + strlen ("again "), ==, stamp + strlen ("stamp "));
  g_assert_null (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                           "could not be resumed"));
  assert_not_in_folder (session_dir, E2B_KEY);

  /* 6. Run Again on new data: the new sandbox on E2B too, with the key from the keyring. */
  {
    g_autofree char *new_dir = g_build_filename (dir, "new", NULL);
    g_autofree char *new_csv = NULL;
    g_autoptr(GFile) file = NULL;
    g_autofree char *opened = NULL;
    AssayRerunDialog *dialog;

    g_assert_cmpint (g_mkdir_with_parents (new_dir, 0700), ==, 0);
    new_csv = gui_write_file (new_dir, "sales.csv", "region,amount\nnorth,5\nsouth,7\neast,1\n");
    file = g_file_new_for_path (new_csv);
    gtk_widget_activate_action (GTK_WIDGET (window), "win.rerun", NULL);
    dialog = find_rerun_dialog ();
    g_assert_nonnull (dialog);
    g_object_ref (dialog);
    assay_rerun_dialog_set_file (dialog, "sales.csv", file);
    gui_wait (not_comparing, dialog, 60, "the new file to be compared");
    g_assert_true (assay_rerun_dialog_get_can_run (dialog));
    g_signal_connect (dialog, "open-session", G_CALLBACK (rerun_opened_cb), &opened);
    gtk_widget_activate_action (GTK_WIDGET (dialog), "rerun.run", NULL);
    wait[0] = window;
    wait[1] = &opened;
    gui_wait (rerun_shown, wait, 180, "the run again to open its session");
    g_assert_null (assay_rerun_dialog_get_message (dialog));
    g_signal_handlers_disconnect_by_data (dialog, &opened);
    g_object_unref (dialog);
    session = assay_window_get_session (window);
    g_assert_cmpstr (assay_session_get_rerun_of (session), ==, session_dir);
    g_assert_cmpstr (assay_session_get_sandbox (session), ==, "e2b");
    g_assert_cmpuint (assay_session_get_n_cells (session), ==, 2);
    g_assert_true (assay_session_cell_succeeded (assay_session_get_cell (session, 1)));
    assert_not_in_folder (opened, E2B_KEY);
  }

  gui_close_window (window);
  gui_spin (200);
  g_settings_reset (settings, "sandbox-backend");
  g_settings_reset (settings, "approval-policy");
}

int
main (int   argc,
      char *argv[])
{
  int status;

  fake_start (&fake);
  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_test_add_func ("/assay/app/e2b/window", test_e2b);
  status = g_test_run ();
  g_object_unref (settings);
  fake_stop (&fake);
  return status;
}
