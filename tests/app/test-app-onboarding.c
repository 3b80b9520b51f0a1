/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The onboarding page with a pasted cloud key, driven through its widgets against the fake
 * model server speaking OpenAI's and Anthropic's GET /v1/models (ASSAY_OPENAI_BASE_URL and
 * ASSAY_ANTHROPIC_BASE_URL point the vendors there), with a real keyring (a private
 * gnome-keyring on a private D-Bus session): a good key lists the models with a chat model
 * preselected and the one chosen lands in GSettings; a refused key shows an error under the
 * entry and stores nothing; an unreachable vendor offers Continue Anyway; leaving the page
 * stops the check. "Another Server" is checked the same way (its address, an optional key):
 * a refused connection, a missing or wrong key and a server that is not OpenAI's API each get
 * their message, its models a combo row, its key the keyring. Preferences names the
 * providers and offers the server's models. A question that stops at the model server shows
 * Change Server and Try Again, and Try Again goes on once the server answers. */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "assay-chat-view.h"
#include "assay-keyring.h"
#include "assay-model-choice.h"
#include "assay-onboarding.h"
#include "assay-preferences.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

#define OPENAI_KEY     "sk-proj-good-7a1c55e2b04d9f31"
#define WRONG_KEY      "sk-proj-wrong-0b9e4471c2d8aa56"
#define ANTHROPIC_KEY  "sk-ant-api03-good-5c7d13e9a0f2"

static GSettings *settings;

/* ---- the keyring ---------------------------------------------------------------------- */

typedef struct
{
  gboolean  done;
  char     *key;
} Lookup;

static gboolean
lookup_done (gpointer data)
{
  return ((Lookup *) data)->done;
}

static void
looked_up_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  g_autoptr(GError) error = NULL;

  ((Lookup *) data)->key = assay_keyring_lookup_finish (result, &error);
  g_assert_no_error (error);
  ((Lookup *) data)->done = TRUE;
}

/* The key stored for PROVIDER's own server, or NULL. */
static char *
stored_key (const char *provider)
{
  Lookup lookup = { 0 };

  assay_keyring_lookup_async (provider, NULL, NULL, looked_up_cb, &lookup);
  gui_wait (lookup_done, &lookup, 20, "the keyring lookup");
  return lookup.key;
}

typedef struct
{
  const char *provider;
  const char *key;
} Expected;

static gboolean
key_is_stored (gpointer data)
{
  Expected *expected = data;
  g_autofree char *key = stored_key (expected->provider);

  return g_strcmp0 (key, expected->key) == 0;
}

/* The key stored for an OpenAI-compatible server at BASE_URL, or NULL. */
static char *
stored_server_key (const char *base_url)
{
  Lookup lookup = { 0 };

  assay_keyring_lookup_async ("openai", base_url, NULL, looked_up_cb, &lookup);
  gui_wait (lookup_done, &lookup, 20, "the keyring lookup");
  return lookup.key;
}

static void
stored_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_keyring_store_finish (result, &error));
  g_assert_no_error (error);
  *(gboolean *) data = TRUE;
}

static gboolean
store_done (gpointer data)
{
  return *(gboolean *) data;
}

static void
store_server_key (const char *base_url,
                  const char *key)
{
  gboolean done = FALSE;

  assay_keyring_store_async ("openai", base_url, key, NULL, stored_cb, &done);
  gui_wait (store_done, &done, 20, "the key stored");
}

static void
forget_keys (void)
{
  g_autoptr(GError) error = NULL;

  secret_password_clear_sync (assay_keyring_get_schema (), NULL, &error,
                              "provider", "openai", "base-url", "", NULL);
  g_assert_no_error (error);
  secret_password_clear_sync (assay_keyring_get_schema (), NULL, &error,
                              "provider", "anthropic", "base-url", "", NULL);
  g_assert_no_error (error);
}

/* ---- the page ------------------------------------------------------------------------- */

/* One vendor's part of the page, found the way an analyst sees it: by its labels. */
typedef struct
{
  GtkWidget *group;
  GtkWidget *key_row;
  GtkWidget *spinner;
  GtkWidget *model_row;
  GtkWidget *status;
  GtkWidget *continue_button;
  GtkWidget *anyway_button;
} Section;

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

static Section
find_section (AssayWindow *window,
              const char  *key_title)
{
  Section section = { 0 };

  section.key_row = find_row (GTK_WIDGET (assay_window_get_onboarding (window)),
                              ADW_TYPE_PASSWORD_ENTRY_ROW, key_title);
  g_assert_nonnull (section.key_row);
  section.group = gtk_widget_get_ancestor (section.key_row, ADW_TYPE_PREFERENCES_GROUP);
  g_assert_nonnull (section.group);
  section.spinner = gui_find (section.key_row, GTK_TYPE_SPINNER, NULL);
  section.model_row = find_row (section.group, ADW_TYPE_COMBO_ROW, "Model");
  section.continue_button = find_button (section.group, "Continue");
  section.anyway_button = find_button (section.group, "Continue Anyway");
  g_assert_nonnull (section.continue_button);
  /* The label under the rows, above the buttons. */
  section.status = gtk_widget_get_prev_sibling (gtk_widget_get_parent (section.continue_button));
  g_assert_true (GTK_IS_LABEL (section.status));
  g_assert_nonnull (section.spinner);
  g_assert_nonnull (section.model_row);
  g_assert_nonnull (section.status);
  g_assert_nonnull (section.continue_button);
  g_assert_nonnull (section.anyway_button);
  return section;
}

/* Enter in the entry: GtkText binds the key to its ::activate. */
static void
press_enter (Section *section)
{
  GtkWidget *text = gui_find (section->key_row, GTK_TYPE_TEXT, NULL);

  g_assert_nonnull (text);
  g_signal_emit_by_name (text, "activate");
}

static void
paste_key_and_enter (Section    *section,
                     const char *key)
{
  gtk_editable_set_text (GTK_EDITABLE (section->key_row), key);
  press_enter (section);
}

/* What a click ends in (GtkButton's ::activate only emits ::clicked after an animation). */
static void
click (GtkWidget *button)
{
  g_assert_true (gtk_widget_is_sensitive (button));
  g_assert_true (gtk_widget_get_visible (button));
  g_signal_emit_by_name (button, "clicked");
}

static gboolean
check_ended (gpointer data)
{
  Section *section = data;

  return !gtk_widget_get_visible (section->spinner) &&
         (gtk_widget_get_visible (section->model_row) ||
          (gtk_widget_get_visible (section->status) && gtk_widget_has_css_class (section->status, "error")));
}

static void
assert_checking (Section    *section,
                 const char *vendor)
{
  g_autofree char *text = g_strdup_printf ("Checking the key with %s", vendor);

  g_assert_true (gtk_widget_get_visible (section->spinner));
  g_assert_true (gtk_spinner_get_spinning (GTK_SPINNER (section->spinner)));
  g_assert_false (gtk_widget_get_sensitive (section->continue_button));
  g_assert_true (gtk_widget_get_visible (section->status));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (section->status)), text));
}

static void
assert_refused (AssayWindow *window,
                Section     *section,
                const char  *vendor,
                const char  *key)
{
  g_autofree char *refused = g_strdup_printf ("The key was refused by %s", vendor);
  const char *text = gtk_label_get_text (GTK_LABEL (section->status));

  g_assert_true (gtk_widget_get_visible (section->status));
  g_assert_true (gtk_widget_has_css_class (section->status, "error"));
  g_assert_nonnull (strstr (text, refused));
  g_assert_null (strstr (text, key));
  g_assert_null (strstr (text, key + strlen (key) - 4));
  g_assert_false (gtk_widget_get_visible (section->model_row));
  g_assert_false (gtk_widget_get_visible (section->anyway_button));
  g_assert_false (gtk_widget_get_visible (section->spinner));
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");
}

static char **
combo_strings (GtkWidget *combo)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (combo));
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkStringObject) item = g_list_model_get_item (model, i);

      g_strv_builder_add (builder, gtk_string_object_get_string (item));
    }
  return g_strv_builder_end (builder);
}

static const char *
combo_selected (GtkWidget *combo)
{
  GtkStringObject *item = adw_combo_row_get_selected_item (ADW_COMBO_ROW (combo));

  return item != NULL ? gtk_string_object_get_string (item) : NULL;
}

static gboolean
window_is_1200_by_800 (gpointer window)
{
  /* What the window asked for, less its client-side shadow. */
  return ABS (gtk_widget_get_width (window) - 1200) <= 10 && ABS (gtk_widget_get_height (window) - 800) <= 10;
}

static AssayWindow *
open_onboarding (void)
{
  AssayWindow *window;

  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
  forget_keys ();
  window = g_object_ref (assay_window_new (NULL));
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");
  return window;
}

static GPtrArray *
read_requests (const char *log_path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (!g_file_get_contents (log_path, &text, NULL, NULL))
    return requests;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      {
        g_autoptr(GError) error = NULL;
        JsonNode *node = json_from_string (lines[i], &error);

        g_assert_no_error (error);
        g_ptr_array_add (requests, node);
      }
  return requests;
}

static const char *
request_string (GPtrArray  *requests,
                guint       i,
                const char *member,
                const char *header)
{
  JsonObject *object = json_node_get_object (g_ptr_array_index (requests, i));

  if (header != NULL)
    object = json_object_get_object_member (object, "headers");
  return json_object_has_member (object, member) ? json_object_get_string_member (object, member) : NULL;
}

static void
stop_server (GSubprocess *server,
             const char  *log_path)
{
  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
  g_unlink (log_path);
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

/* ---- the tests ------------------------------------------------------------------------ */

static void
test_openai_key (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *stored = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *url = NULL;
  g_autofree char *model = NULL;
  g_auto(GStrv) shown = NULL;
  Expected expected = { "openai", OPENAI_KEY };
  AssayWindow *window;
  Section section;

  server = gui_fake_server_start ("{\"responses\": [{\"flavor\": \"openai\", \"turn\": {\"text\": \"Hello from the checked key.\", \"finish\": \"stop\"}}],"
                                  " \"models\": {\"flavor\": \"openai\", \"key\": \"" OPENAI_KEY "\","
                                  " \"ids\": [\"whisper-1\", \"gpt-4o-mini\", \"dall-e-3\", \"gpt-4.1\", \"text-embedding-3-small\", \"tts-1\", \"o3-mini\"]}}",
                                  &base_url, &log_path);
  g_setenv ("ASSAY_OPENAI_BASE_URL", base_url, TRUE);
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  window = open_onboarding ();
  section = find_section (window, "OpenAI API key");
  g_assert_false (gtk_widget_get_visible (section.model_row));
  g_assert_false (gtk_widget_get_visible (section.status));
  g_assert_false (gtk_widget_get_sensitive (section.continue_button));

  /* A wrong key: checked (a spinner meanwhile), refused under the entry, nothing kept. */
  paste_key_and_enter (&section, WRONG_KEY);
  assert_checking (&section, "OpenAI");
  gui_wait (check_ended, &section, 20, "the check of the wrong key");
  assert_refused (window, &section, "OpenAI", WRONG_KEY);
  gui_save_screenshot (GTK_WIDGET (window), "onboarding-refused.png");
  stored = stored_key ("openai");
  g_assert_null (stored);
  provider = g_settings_get_string (settings, "provider");
  g_assert_cmpstr (provider, ==, "");
  g_clear_pointer (&provider, g_free);

  /* Editing the key clears the error. */
  gtk_editable_set_text (GTK_EDITABLE (section.key_row), OPENAI_KEY "\n");
  g_assert_false (gtk_widget_get_visible (section.status));
  g_assert_true (gtk_widget_get_sensitive (section.continue_button));

  /* The right key (as pasted, with a line break): the server's chat models, the default
   * preselected; not stored until the analyst finishes. */
  click (section.continue_button);
  assert_checking (&section, "OpenAI");
  gui_wait (check_ended, &section, 20, "the check of the key");
  g_assert_true (gtk_widget_get_visible (section.model_row));
  g_assert_false (gtk_widget_get_visible (section.status));
  g_assert_false (gtk_widget_get_visible (section.anyway_button));
  shown = combo_strings (section.model_row);
  g_assert_cmpstrv (shown, ((const char *[]) { "gpt-4.1", "gpt-4o-mini", "o3-mini", NULL }));
  g_assert_cmpstr (combo_selected (section.model_row), ==, ASSAY_DEFAULT_OPENAI_MODEL);
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");
  stored = stored_key ("openai");
  g_assert_null (stored);
  gui_save_screenshot (GTK_WIDGET (window), "onboarding-models.png");

  requests = read_requests (log_path);
  g_assert_cmpuint (requests->len, ==, 2);
  g_assert_cmpstr (request_string (requests, 0, "method", NULL), ==, "GET");
  g_assert_cmpstr (request_string (requests, 0, "path", NULL), ==, "/v1/models");
  g_assert_cmpstr (request_string (requests, 0, "authorization", "headers"), ==, "Bearer " WRONG_KEY);
  g_assert_cmpstr (request_string (requests, 1, "authorization", "headers"), ==, "Bearer " OPENAI_KEY);
  g_clear_pointer (&requests, g_ptr_array_unref);

  /* Another model, then Continue: the choice is in GSettings, the key in the keyring. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (section.model_row), 1);
  click (section.continue_button);
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  provider = g_settings_get_string (settings, "provider");
  url = g_settings_get_string (settings, "base-url");
  model = g_settings_get_string (settings, "model");
  g_assert_cmpstr (provider, ==, "openai");
  g_assert_cmpstr (url, ==, "");
  g_assert_cmpstr (model, ==, "gpt-4o-mini");
  gui_wait (key_is_stored, &expected, 20, "the key in the keyring");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (section.key_row)), ==, "");
  gui_assert_not_in_settings (settings, OPENAI_KEY);

  /* A question goes to that model with that key. */
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Hello?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 60, "the answer");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                              "Hello from the checked key."));
  requests = read_requests (log_path);
  g_assert_cmpuint (requests->len, ==, 3);
  g_assert_cmpstr (request_string (requests, 2, "path", NULL), ==, "/v1/chat/completions");
  g_assert_cmpstr (request_string (requests, 2, "authorization", "headers"), ==, "Bearer " OPENAI_KEY);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_node_get_object (g_ptr_array_index (requests, 2)), "body"), "model"),
                   ==, "gpt-4o-mini");

  gui_close_window (window);
  stop_server (server, log_path);
  g_unsetenv ("ASSAY_OPENAI_BASE_URL");
  g_settings_reset (settings, "sandbox-backend");
}

static void
test_anthropic_key (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *stored = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *model = NULL;
  g_auto(GStrv) shown = NULL;
  Expected expected = { "anthropic", ANTHROPIC_KEY };
  AssayWindow *window;
  Section section;
  Section openai;

  server = gui_fake_server_start ("{\"responses\": [], \"models\": {\"flavor\": \"anthropic\", \"key\": \"" ANTHROPIC_KEY "\","
                                  " \"ids\": [\"claude-opus-4-1-20250805\", \"claude-sonnet-4-5-20250929\", \"claude-3-5-haiku-20241022\"]}}",
                                  &base_url, &log_path);
  g_setenv ("ASSAY_ANTHROPIC_BASE_URL", base_url, TRUE);
  window = open_onboarding ();
  section = find_section (window, "Anthropic API key");
  openai = find_section (window, "OpenAI API key");

  paste_key_and_enter (&section, WRONG_KEY);
  assert_checking (&section, "Anthropic");
  /* The other vendor's part is untouched. */
  g_assert_false (gtk_widget_get_visible (openai.spinner));
  gui_wait (check_ended, &section, 20, "the check of the wrong key");
  assert_refused (window, &section, "Anthropic", WRONG_KEY);
  stored = stored_key ("anthropic");
  g_assert_null (stored);

  /* Continue with the refused key still there asks again, and is refused again. */
  click (section.continue_button);
  assert_checking (&section, "Anthropic");
  gui_wait (check_ended, &section, 20, "the second check of the wrong key");
  assert_refused (window, &section, "Anthropic", WRONG_KEY);

  paste_key_and_enter (&section, ANTHROPIC_KEY);
  gui_wait (check_ended, &section, 20, "the check of the key");
  g_assert_true (gtk_widget_get_visible (section.model_row));
  /* Anthropic's order (newest first), the default's dated id preselected. */
  shown = combo_strings (section.model_row);
  g_assert_cmpstrv (shown, ((const char *[]) { "claude-opus-4-1-20250805", "claude-sonnet-4-5-20250929",
                                               "claude-3-5-haiku-20241022", NULL }));
  g_assert_cmpstr (combo_selected (section.model_row), ==, "claude-sonnet-4-5-20250929");
  stored = stored_key ("anthropic");
  g_assert_null (stored);

  requests = read_requests (log_path);
  g_assert_cmpuint (requests->len, ==, 3);
  for (guint i = 0; i < requests->len; i++)
    {
      g_assert_true (g_str_has_prefix (request_string (requests, i, "path", NULL), "/v1/models"));
      g_assert_cmpstr (request_string (requests, i, "anthropic-version", "headers"), ==, "2023-06-01");
      g_assert_null (request_string (requests, i, "authorization", "headers"));
    }
  g_assert_cmpstr (request_string (requests, 0, "x-api-key", "headers"), ==, WRONG_KEY);
  g_assert_cmpstr (request_string (requests, 2, "x-api-key", "headers"), ==, ANTHROPIC_KEY);

  /* Enter again finishes with the preselected model. */
  press_enter (&section);
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  provider = g_settings_get_string (settings, "provider");
  model = g_settings_get_string (settings, "model");
  g_assert_cmpstr (provider, ==, "anthropic");
  g_assert_cmpstr (model, ==, "claude-sonnet-4-5-20250929");
  gui_wait (key_is_stored, &expected, 20, "the key in the keyring");
  stored = stored_key ("openai");
  g_assert_null (stored);
  gui_assert_not_in_settings (settings, ANTHROPIC_KEY);

  gui_close_window (window);
  stop_server (server, log_path);
  g_unsetenv ("ASSAY_ANTHROPIC_BASE_URL");
}

static void
test_unreachable (void)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *stored = NULL;
  g_autofree char *model = NULL;
  Expected expected = { "openai", WRONG_KEY };
  AssayWindow *window;
  Section section;
  const char *text;

  /* A port that was free a moment ago and has nobody listening. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  address = g_inet_socket_address_new (loopback, 0);
  g_assert_true (g_socket_bind (socket, address, FALSE, &error));
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  url = g_strdup_printf ("http://127.0.0.1:%u/v1", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  g_socket_close (socket, NULL);
  g_setenv ("ASSAY_OPENAI_BASE_URL", url, TRUE);

  window = open_onboarding ();
  section = find_section (window, "OpenAI API key");
  paste_key_and_enter (&section, WRONG_KEY);
  gui_wait (check_ended, &section, 30, "the check against nobody");
  text = gtk_label_get_text (GTK_LABEL (section.status));
  g_assert_nonnull (strstr (text, "The key could not be checked"));
  g_assert_nonnull (strstr (text, "Cannot reach"));
  g_assert_nonnull (strstr (text, ASSAY_DEFAULT_OPENAI_MODEL));
  g_assert_null (strstr (text, WRONG_KEY));
  g_assert_true (gtk_widget_get_visible (section.anyway_button));
  g_assert_false (gtk_widget_get_visible (section.model_row));
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");
  stored = stored_key ("openai");
  g_assert_null (stored);
  gui_save_screenshot (GTK_WIDGET (window), "onboarding-unreachable.png");

  click (section.anyway_button);
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  model = g_settings_get_string (settings, "model");
  g_assert_cmpstr (model, ==, ASSAY_DEFAULT_OPENAI_MODEL);
  gui_wait (key_is_stored, &expected, 20, "the key kept without a check");

  gui_close_window (window);
  g_unsetenv ("ASSAY_OPENAI_BASE_URL");
}

/* A port that was free a moment ago and has nobody listening. */
static char *
refused_url (void)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GError) error = NULL;

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  address = g_inet_socket_address_new (loopback, 0);
  g_assert_true (g_socket_bind (socket, address, FALSE, &error));
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  g_socket_close (socket, NULL);
  return g_strdup_printf ("http://127.0.0.1:%u/v1", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
}

#define SERVER_KEY   "sk-local-good-4e1f09a7c3"
#define URL_TITLE    "OpenAI-compatible URL, e.g. http://host:8000/v1"

/* "Another Server", found by its labels. */
static Section
find_other_section (AssayWindow *window,
                    GtkWidget  **url_row)
{
  Section section = { 0 };

  *url_row = find_row (GTK_WIDGET (assay_window_get_onboarding (window)), ADW_TYPE_ENTRY_ROW, URL_TITLE);
  g_assert_nonnull (*url_row);
  section.key_row = find_row (GTK_WIDGET (assay_window_get_onboarding (window)), ADW_TYPE_PASSWORD_ENTRY_ROW,
                              "API key, if the server needs one");
  g_assert_nonnull (section.key_row);
  section.group = gtk_widget_get_ancestor (*url_row, ADW_TYPE_PREFERENCES_GROUP);
  g_assert_true (section.group == gtk_widget_get_ancestor (section.key_row, ADW_TYPE_PREFERENCES_GROUP));
  section.spinner = gui_find (*url_row, GTK_TYPE_SPINNER, NULL);
  section.model_row = find_row (section.group, ADW_TYPE_COMBO_ROW, "Model");
  section.continue_button = find_button (section.group, "Continue");
  g_assert_nonnull (section.spinner);
  g_assert_nonnull (section.model_row);
  g_assert_nonnull (section.continue_button);
  section.status = gtk_widget_get_prev_sibling (gtk_widget_get_parent (section.continue_button));
  g_assert_true (GTK_IS_LABEL (section.status));
  return section;
}

/* The address (and key) typed, then Enter in the address: the check, with its spinner. */
static void
check_server (Section    *section,
              GtkWidget  *url_row,
              const char *url,
              const char *key)
{
  GtkWidget *text;

  gtk_editable_set_text (GTK_EDITABLE (url_row), url);
  gtk_editable_set_text (GTK_EDITABLE (section->key_row), key);
  text = gui_find (url_row, GTK_TYPE_TEXT, NULL);
  g_assert_nonnull (text);
  g_signal_emit_by_name (text, "activate");
  g_assert_true (gtk_widget_get_visible (section->spinner));
  g_assert_false (gtk_widget_get_sensitive (section->continue_button));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (section->status)), "for its models"));
  gui_wait (check_ended, section, 30, "the check of the server");
}

static void
assert_server_error (Section    *section,
                     const char *expected)
{
  const char *text = gtk_label_get_text (GTK_LABEL (section->status));

  g_assert_true (gtk_widget_get_visible (section->status));
  g_assert_true (gtk_widget_has_css_class (section->status, "error"));
  if (strstr (text, expected) == NULL)
    g_error ("“%s” does not say “%s”", text, expected);
  g_assert_null (strstr (text, SERVER_KEY));
  g_assert_false (gtk_widget_get_visible (section->model_row));
  g_assert_false (gtk_widget_get_visible (section->spinner));
  /* Continue checks again. */
  g_assert_true (gtk_widget_get_sensitive (section->continue_button));
}

static void
test_another_server (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *nobody = refused_url ();
  g_autofree char *html_url = NULL;
  g_autofree char *html_log = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GSubprocess) html_server = NULL;
  g_autofree char *stored = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *url = NULL;
  g_autofree char *model = NULL;
  g_autofree char *with_slash = NULL;
  g_auto(GStrv) shown = NULL;
  AssayWindow *window;
  GtkWidget *url_row;
  Section section;

  server = gui_fake_server_start ("{\"responses\": [], \"models\": {\"flavor\": \"llamacpp\", \"key\": \"" SERVER_KEY "\","
                                  " \"ids\": [\"qwen2.5-coder-32b\", \"llama-3.3-70b\"]}}",
                                  &base_url, &log_path);
  /* A server that answers, but not with OpenAI's API (its /models is an error page). */
  html_server = gui_fake_server_start ("{\"responses\": [], \"models\": {\"status\": 404, \"message\": \"Not Found\"}}",
                                       &html_url, &html_log);
  window = open_onboarding ();
  section = find_other_section (window, &url_row);
  g_assert_false (gtk_widget_get_sensitive (section.continue_button));
  g_assert_false (gtk_widget_get_visible (section.model_row));

  /* Nobody listens there. */
  check_server (&section, url_row, nobody, "");
  assert_server_error (&section, "connection refused");
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");
  gui_save_screenshot (section.group, "onboarding-server-refused.png");

  /* Not an address. */
  gtk_editable_set_text (GTK_EDITABLE (url_row), "host:8000/v1");
  click (section.continue_button);
  assert_server_error (&section, "http://");

  /* Not an OpenAI-compatible server. */
  check_server (&section, url_row, html_url, "");
  assert_server_error (&section, "does not answer as an OpenAI-compatible server");

  /* The server wants a key: none given, then a wrong one. */
  check_server (&section, url_row, base_url, "");
  assert_server_error (&section, "needs an API key (HTTP 401)");
  check_server (&section, url_row, base_url, WRONG_KEY);
  assert_server_error (&section, "refused the API key (HTTP 401)");
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (section.status)), WRONG_KEY));
  stored = stored_server_key (base_url);
  g_assert_null (stored);

  /* The right key: the server's models, to choose from (the address as typed, with a last
   * slash). */
  with_slash = g_strconcat (base_url, "/", NULL);
  check_server (&section, url_row, with_slash, SERVER_KEY);
  g_assert_true (gtk_widget_get_visible (section.model_row));
  g_assert_false (gtk_widget_get_visible (section.status));
  shown = combo_strings (section.model_row);
  g_assert_cmpstrv (shown, ((const char *[]) { "llama-3.3-70b", "qwen2.5-coder-32b", NULL }));
  gui_save_screenshot (section.group, "onboarding-server-models.png");
  adw_combo_row_set_selected (ADW_COMBO_ROW (section.model_row), 1);
  click (section.continue_button);

  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  provider = g_settings_get_string (settings, "provider");
  url = g_settings_get_string (settings, "base-url");
  model = g_settings_get_string (settings, "model");
  g_assert_cmpstr (provider, ==, "openai");
  g_assert_cmpstr (url, ==, base_url);
  g_assert_cmpstr (model, ==, "qwen2.5-coder-32b");
  /* The key is in the keyring for that server, and nowhere in the settings. */
  for (guint i = 0; i < 100 && stored == NULL; i++)
    {
      stored = stored_server_key (base_url);
      if (stored == NULL)
        gui_spin (100);
    }
  g_assert_cmpstr (stored, ==, SERVER_KEY);
  gui_assert_not_in_settings (settings, SERVER_KEY);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (section.key_row)), ==, "");

  gui_close_window (window);
  stop_server (server, log_path);
  stop_server (html_server, html_log);
}

/* ---- Preferences ------------------------------------------------------------------------- */

static gboolean
models_listed (gpointer data)
{
  GtkWidget *spinner = gui_find (data, GTK_TYPE_SPINNER, NULL);

  return spinner != NULL && !gtk_widget_get_visible (spinner);
}

/* Preferences → Sandbox lists every place the model's code can run, with its state and the
 * reason when it cannot be used (issue 17, item 5): the machine's Docker engine and
 * bubblewrap, then an engine DOCKER_HOST names that Assay refuses. */
static gboolean
engines_listed (gpointer data)
{
  GtkWidget *group = data;
  GtkWidget *searching = find_row (group, ADW_TYPE_ACTION_ROW, "Looking for engines…");

  return searching != NULL && !gtk_widget_get_visible (searching) &&
         find_row (group, ADW_TYPE_ACTION_ROW, "bubblewrap") != NULL;
}

/* The state a row shows at its end: a label of exactly one of these words. */
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

static GtkWidget *
find_by_tooltip (GtkWidget  *root,
                 const char *tooltip)
{
  if (g_strcmp0 (gtk_widget_get_tooltip_text (root), tooltip) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_by_tooltip (child, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_preferences_engines (void)
{
  GtkWidget *preferences;
  GtkWidget *group;
  GtkWidget *docker;
  GtkWidget *bwrap;
  GtkWidget *e2b;
  GtkWidget *refresh;

  g_unsetenv ("DOCKER_HOST");
  g_unsetenv ("E2B_API_KEY");
  preferences = assay_preferences_new (NULL, NULL);
  gtk_window_present (GTK_WINDOW (preferences));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (preferences), "sandbox");
  group = gtk_widget_get_ancestor (find_row (preferences, ADW_TYPE_ACTION_ROW, "Looking for engines…"),
                                   ADW_TYPE_PREFERENCES_GROUP);
  g_assert_nonnull (group);
  gui_wait (engines_listed, group, 60, "the engines to be listed");

  /* This machine's Docker answers and has the image: new sessions use it. */
  docker = find_row (group, ADW_TYPE_ACTION_ROW, "Docker");
  bwrap = find_row (group, ADW_TYPE_ACTION_ROW, "bubblewrap");
  g_assert_nonnull (docker);
  g_assert_nonnull (bwrap);
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (docker)), "/var/run/docker.sock"));
  g_test_message ("docker: %s; bwrap: %s", adw_action_row_get_subtitle (ADW_ACTION_ROW (docker)),
                  adw_action_row_get_subtitle (ADW_ACTION_ROW (bwrap)));
  g_assert_cmpstr (row_status (docker), ==, "In Use");
  g_assert_cmpstr (row_status (bwrap), ==, "Ready");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (bwrap)), "limits enforced with"));
  g_assert_nonnull (find_row (group, ADW_TYPE_ACTION_ROW, "New Sessions"));
  /* E2B is listed too, never in use unless named; without a key it says what is missing. */
  e2b = find_row (group, ADW_TYPE_ACTION_ROW, "E2B");
  g_assert_nonnull (e2b);
  g_assert_cmpstr (row_status (e2b), ==, "Not Usable");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (e2b)), "E2B_API_KEY"));
  gui_save_screenshot (preferences, "preferences-sandbox-engines.png");

  /* An engine elsewhere without TLS: listed, not usable, with the reason; bubblewrap in use. */
  g_setenv ("DOCKER_HOST", "tcp://198.51.100.1:2375", TRUE);
  refresh = find_by_tooltip (group, "Look Again");
  g_assert_nonnull (refresh);
  g_assert_true (gtk_widget_get_sensitive (refresh));
  g_signal_emit_by_name (refresh, "clicked");
  gui_wait (engines_listed, group, 60, "the engines to be listed again");
  g_assert_null (find_row (group, ADW_TYPE_ACTION_ROW, "Docker"));
  docker = find_row (group, ADW_TYPE_ACTION_ROW, "Docker Elsewhere");
  g_assert_nonnull (docker);
  g_assert_cmpstr (row_status (docker), ==, "Not Usable");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (docker)), "neither encrypted nor authenticated"));
  g_assert_cmpstr (row_status (find_row (group, ADW_TYPE_ACTION_ROW, "bubblewrap")), ==, "In Use");
  g_unsetenv ("DOCKER_HOST");
  gtk_window_destroy (GTK_WINDOW (preferences));
}

static void
test_preferences (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *nobody = refused_url ();
  g_autofree char *model = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_auto(GStrv) shown = NULL;
  GtkWidget *preferences;
  GtkWidget *provider_row;
  GtkWidget *model_choice;
  GtkWidget *model_entry;
  GtkWidget *model_group;
  GListModel *providers;

  server = gui_fake_server_start ("{\"responses\": [], \"models\": {\"flavor\": \"openai\", \"key\": \"" SERVER_KEY "\","
                                  " \"ids\": [\"mistral-small\", \"llama-3.3-70b\"]}}",
                                  &base_url, &log_path);
  forget_keys ();
  store_server_key (base_url, SERVER_KEY);
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_string (settings, "base-url", base_url);
  g_settings_set_string (settings, "model", "llama-3.3-70b");

  preferences = assay_preferences_new (NULL, NULL);
  gtk_window_present (GTK_WINDOW (preferences));
  provider_row = find_row (preferences, ADW_TYPE_COMBO_ROW, "Provider");
  g_assert_nonnull (provider_row);
  /* The providers by their names, not their ids. */
  providers = adw_combo_row_get_model (ADW_COMBO_ROW (provider_row));
  g_assert_cmpuint (g_list_model_get_n_items (providers), ==, 2);
  g_assert_cmpstr (combo_selected (provider_row), ==, "OpenAI");
  shown = combo_strings (provider_row);
  g_assert_cmpstrv (shown, ((const char *[]) { "OpenAI", "Anthropic", NULL }));
  g_clear_pointer (&shown, g_strfreev);

  /* The model: a choice among the server's models (listed with the key from the keyring). */
  model_group = gtk_widget_get_ancestor (provider_row, ADW_TYPE_PREFERENCES_GROUP);
  model_choice = find_row (model_group, ADW_TYPE_COMBO_ROW, "Model");
  model_entry = find_row (model_group, ADW_TYPE_ENTRY_ROW, "Model");
  g_assert_nonnull (model_choice);
  g_assert_nonnull (model_entry);
  gui_wait (models_listed, model_group, 20, "the server's models");
  g_assert_true (gtk_widget_get_visible (model_choice));
  g_assert_false (gtk_widget_get_visible (model_entry));
  shown = combo_strings (model_choice);
  g_assert_cmpstrv (shown, ((const char *[]) { "llama-3.3-70b", "mistral-small", NULL }));
  g_assert_cmpstr (combo_selected (model_choice), ==, "llama-3.3-70b");
  gui_save_screenshot (preferences, "preferences-server-models.png");
  adw_combo_row_set_selected (ADW_COMBO_ROW (model_choice), 1);
  model = g_settings_get_string (settings, "model");
  g_assert_cmpstr (model, ==, "mistral-small");

  /* Which of OpenAI's APIs: automatic by default, a choice written to openai-api, and no
   * question for Anthropic. */
  {
    GtkWidget *api_row = find_row (model_group, ADW_TYPE_COMBO_ROW, "API");
    g_autofree char *api = NULL;

    g_assert_nonnull (api_row);
    g_assert_true (gtk_widget_get_visible (api_row));
    g_assert_cmpstr (combo_selected (api_row), ==, "Automatic");
    shown = combo_strings (api_row);
    g_assert_cmpstrv (shown, ((const char *[]) { "Automatic", "Responses", "Chat Completions", NULL }));
    g_clear_pointer (&shown, g_strfreev);
    adw_combo_row_set_selected (ADW_COMBO_ROW (api_row), 1);
    api = g_settings_get_string (settings, "openai-api");
    g_assert_cmpstr (api, ==, "responses");
    g_settings_set_string (settings, "openai-api", "chat");
    g_assert_cmpstr (combo_selected (api_row), ==, "Chat Completions");
    g_settings_set_string (settings, "provider", "anthropic");
    g_assert_false (gtk_widget_get_visible (api_row));
    g_settings_set_string (settings, "provider", "openai");
    g_assert_true (gtk_widget_get_visible (api_row));
    g_settings_reset (settings, "openai-api");
    gui_wait (models_listed, model_group, 20, "the server's models again");
  }

  /* A server that cannot list: the model is typed, and the analyst is told why. */
  g_settings_set_string (settings, "base-url", nobody);
  gui_wait (models_listed, model_group, 20, "the failed listing");
  g_assert_false (gtk_widget_get_visible (model_choice));
  g_assert_true (gtk_widget_get_visible (model_entry));
  g_assert_nonnull (gui_find (model_group, GTK_TYPE_LABEL, "connection refused"));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (model_entry)), ==, "mistral-small");

  gtk_window_destroy (GTK_WINDOW (preferences));
  gui_spin (100);
  forget_keys ();
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
  stop_server (server, log_path);
}

/* ---- a question that stops at the model server ------------------------------------------ */

static gboolean
server_problem_shown (gpointer data)
{
  return !assay_window_get_busy (data) &&
         assay_chat_view_get_server_problem_visible (assay_window_get_chat_view (data));
}

static GtkWidget *
find_preferences (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (ASSAY_IS_PREFERENCES (item) && gtk_widget_get_visible (GTK_WIDGET (item)))
        return GTK_WIDGET (item);
    }
  return NULL;
}

static guint
count_questions (AssayWindow *window)
{
  GPtrArray *messages = assay_session_get_messages (assay_conversation_get_session (assay_window_get_conversation (window)));
  guint n = 0;

  for (guint i = 0; i < messages->len; i++)
    if (((AssayLlmMessage *) g_ptr_array_index (messages, i))->role == ASSAY_LLM_ROLE_USER)
      n++;
  return n;
}

/* ---- a model chosen after the demo (issue 34) -------------------------------------------- */

static gboolean
demo_idle (gpointer data)
{
  return !assay_window_get_busy (data) && !assay_window_get_adding_files (data);
}

/* The demo first (no provider chosen), then a model and a server set in Preferences: the
 * provider shown there is chosen with them, and a question goes to that server (it said
 * "Choose a model first." and sent the analyst to onboarding). With no provider at all, a
 * question waits on the onboarding page and is sent once a model is chosen there: no error
 * left in the conversation, the question asked once. */
static void
test_after_demo (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *provider = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  GtkWidget *preferences;
  GtkWidget *chat;
  AssayWindow *window;

  server = gui_fake_server_start ("{\"responses\": ["
                                  "{\"flavor\": \"openai\", \"turn\": {\"text\": \"First answer.\", \"finish\": \"stop\"}},"
                                  "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Second answer.\", \"finish\": \"stop\"}}],"
                                  " \"models\": {\"flavor\": \"openai\", \"key\": \"" SERVER_KEY "\","
                                  " \"ids\": [\"mistral-small\"]}}",
                                  &base_url, &log_path);
  forget_keys ();
  store_server_key (base_url, SERVER_KEY);
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  window = open_onboarding ();
  chat = GTK_WIDGET (assay_window_get_chat_view (window));
  /* At 1200×800 the demo is in sight without scrolling (it was below four groups of
   * fields), and a real click starts it. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gui_wait (window_is_1200_by_800, window, 10, "the window to be 1200×800");
  gui_spin (100);
  {
    GtkWidget *demo = gui_find_button (GTK_WIDGET (assay_window_get_onboarding (window)), "onboarding.demo");
    graphene_rect_t bounds;

    g_assert_nonnull (demo);
    g_assert_true (gtk_widget_compute_bounds (demo, GTK_WIDGET (window), &bounds));
    g_assert_cmpfloat (bounds.origin.y, >, 0);
    g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, gtk_widget_get_height (GTK_WIDGET (window)));
    gui_save_screenshot (GTK_WIDGET (window), "onboarding-1200x800.png");
    gui_click (demo);
  }
  gui_wait (demo_idle, window, 60, "the demo's file");
  assay_window_new_session (window);

  /* Preferences: a server and a model typed; the provider the row shows is chosen too. */
  preferences = assay_preferences_new (GTK_WINDOW (window), NULL);
  gtk_window_present (GTK_WINDOW (preferences));
  gtk_editable_set_text (GTK_EDITABLE (find_row (preferences, ADW_TYPE_ENTRY_ROW,
                                                    "Base URL (empty: the vendor's own)")), base_url);
  gtk_editable_set_text (GTK_EDITABLE (find_row (preferences, ADW_TYPE_ENTRY_ROW, "Model")), "mistral-small");
  provider = g_settings_get_string (settings, "provider");
  g_assert_cmpstr (provider, ==, "openai");
  gtk_window_destroy (GTK_WINDOW (preferences));
  gui_spin (100);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Hello?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 60, "the first answer");
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "First answer."));
  g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "Choose a model first"));

  /* No provider at all: the question waits while the analyst chooses one, then goes. */
  g_settings_reset (settings, "provider");
  assay_window_new_session (window);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Again?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");
  g_assert_true (assay_window_get_busy (window));
  assay_window_onboarding_configured (window, "openai", base_url, "mistral-small", NULL);
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  gui_wait (is_idle, window, 60, "the second answer");
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Second answer."));
  g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "Choose a model first"));
  g_assert_cmpuint (count_questions (window), ==, 1);
  requests = read_requests (log_path);
  g_assert_cmpstr (request_string (requests, requests->len - 1, "path", NULL), ==, "/v1/chat/completions");

  gui_close_window (window);
  forget_keys ();
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
  g_settings_reset (settings, "sandbox-backend");
  stop_server (server, log_path);
}

static void
test_question_fails_on_server (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  AssayWindow *window;
  AssayChatView *chat;
  GtkWidget *change;
  GtkWidget *again;
  GtkWidget *preferences;
  const char *text;

  /* 401 first (not retried), then 503 until the retries run out, then the answer. */
  server = gui_fake_server_start ("{\"responses\": ["
                                  "{\"flavor\": \"openai\", \"status\": 401, \"message\": \"Invalid API key\"},"
                                  "{\"flavor\": \"openai\", \"status\": 503, \"message\": \"Loading model\"},"
                                  "{\"flavor\": \"openai\", \"status\": 503, \"message\": \"Loading model\"},"
                                  "{\"flavor\": \"openai\", \"status\": 503, \"message\": \"Loading model\"},"
                                  "{\"flavor\": \"openai\", \"status\": 503, \"message\": \"Loading model\"},"
                                  "{\"flavor\": \"openai\", \"turn\": {\"text\": \"The server answers now.\", \"finish\": \"stop\"}}],"
                                  " \"models\": {\"flavor\": \"openai\", \"ids\": [\"local-model\"]}}",
                                  &base_url, &log_path);
  g_setenv ("ASSAY_LLM_RETRY_SCALE", "0.01", TRUE);
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  forget_keys ();
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_string (settings, "base-url", base_url);
  g_settings_set_string (settings, "model", "local-model");
  window = g_object_ref (assay_window_new (NULL));
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  chat = assay_window_get_chat_view (window);
  change = find_button (GTK_WIDGET (chat), "C_hange Server");
  again = find_button (GTK_WIDGET (chat), "_Try Again");
  g_assert_nonnull (change);
  g_assert_nonnull (again);
  g_assert_false (assay_chat_view_get_server_problem_visible (chat));

  /* The key is refused: the banner says so, with the two ways on. */
  assay_chat_view_set_composer_text (chat, "How many rows?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (server_problem_shown, window, 60, "the banner after the 401");
  text = assay_conversation_get_server_problem (assay_window_get_conversation (window));
  g_assert_nonnull (strstr (text, "HTTP 401"));
  g_assert_true (gtk_widget_is_sensitive (again));
  g_assert_true (gtk_widget_is_sensitive (change));
  gui_save_screenshot (GTK_WIDGET (window), "chat-server-problem.png");

  /* Change Server opens the setting. */
  g_assert_null (find_preferences ());
  g_signal_emit_by_name (change, "clicked");
  preferences = find_preferences ();
  g_assert_nonnull (preferences);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (preferences)) == GTK_WINDOW (window));
  gtk_window_destroy (GTK_WINDOW (preferences));
  gui_spin (100);

  /* Try Again: now the server errs until the retries run out, a banner again. */
  g_signal_emit_by_name (again, "clicked");
  g_assert_true (assay_window_get_busy (window));
  g_assert_false (assay_chat_view_get_server_problem_visible (chat));
  gui_wait (server_problem_shown, window, 60, "the banner after the 503s");
  text = assay_conversation_get_server_problem (assay_window_get_conversation (window));
  g_assert_nonnull (strstr (text, "HTTP 503"));

  /* Try Again once more: the answer, and the question was asked once. */
  g_signal_emit_by_name (again, "clicked");
  gui_wait (is_idle, window, 60, "the answer");
  g_assert_false (assay_chat_view_get_server_problem_visible (chat));
  g_assert_null (assay_conversation_get_server_problem (assay_window_get_conversation (window)));
  g_assert_false (gtk_widget_is_sensitive (again));
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "The server answers now."));
  g_assert_cmpuint (count_questions (window), ==, 1);
  requests = read_requests (log_path);
  /* The questions' requests: Preferences, opened meanwhile, may have listed the models
   * (GET /models) before it closed, or not, as the keyring's lookups go. */
  for (guint i = requests->len; i-- > 0;)
    if (!g_str_has_suffix (request_string (requests, i, "path", NULL), "/chat/completions"))
      g_ptr_array_remove_index (requests, i);
  g_assert_cmpuint (requests->len, ==, 6);
  for (guint i = 0; i < requests->len; i++)
    {
      JsonObject *body = json_object_get_object_member (json_node_get_object (g_ptr_array_index (requests, i)), "body");
      JsonArray *messages = json_object_get_array_member (body, "messages");
      guint users = 0;

      for (guint j = 0; j < json_array_get_length (messages); j++)
        if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (messages, j), "role"), "user") == 0)
          users++;
      g_assert_cmpuint (users, ==, 1);
    }

  gui_close_window (window);
  stop_server (server, log_path);
  g_unsetenv ("ASSAY_LLM_RETRY_SCALE");
  g_settings_reset (settings, "sandbox-backend");
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

static gboolean
spinner_stopped (gpointer data)
{
  return !gtk_widget_get_visible (data);
}

static void
test_leaving_cancels (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *other_url = NULL;
  g_autofree char *stored = NULL;
  g_autofree char *url = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *other_log = NULL;
  g_autoptr(GSubprocess) other_server = NULL;
  AssayWindow *window;
  Section section;
  Section other;
  GtkWidget *url_row;
  gint64 started;

  server = gui_fake_server_start ("{\"responses\": [], \"models\": {\"flavor\": \"openai\", \"key\": \"" OPENAI_KEY "\","
                                  " \"delay_ms\": 3000, \"ids\": [\"gpt-4.1\"]}}",
                                  &base_url, &log_path);
  other_server = gui_fake_server_start ("{\"responses\": [], \"models\": {\"flavor\": \"ollama\", \"ids\": [\"qwen3:8b\"]}}",
                                        &other_url, &other_log);
  g_setenv ("ASSAY_OPENAI_BASE_URL", base_url, TRUE);
  window = open_onboarding ();
  section = find_section (window, "OpenAI API key");
  paste_key_and_enter (&section, OPENAI_KEY);
  assert_checking (&section, "OpenAI");
  started = g_get_monotonic_time ();

  /* The analyst picks another server (which answers at once) while the vendor is still
   * thinking. */
  other = find_other_section (window, &url_row);
  check_server (&other, url_row, other_url, "");
  g_assert_true (gtk_widget_get_visible (other.model_row));
  click (other.continue_button);
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  gui_wait (spinner_stopped, section.spinner, 10, "the check to stop");
  g_assert_cmpint (g_get_monotonic_time () - started, <, 2 * G_USEC_PER_SEC);

  /* Long after the vendor answered, nothing of the check shows or is kept. */
  gui_spin (3500);
  g_assert_false (gtk_widget_get_visible (section.model_row));
  g_assert_false (gtk_widget_get_visible (section.status));
  stored = stored_key ("openai");
  g_assert_null (stored);
  url = g_settings_get_string (settings, "base-url");
  g_assert_cmpstr (url, ==, other_url);
  requests = read_requests (log_path);
  g_assert_cmpuint (requests->len, ==, 1);

  gui_close_window (window);
  stop_server (server, log_path);
  stop_server (other_server, other_log);
  g_unsetenv ("ASSAY_OPENAI_BASE_URL");
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_test_add_func ("/assay/app/onboarding/openai-key", test_openai_key);
  g_test_add_func ("/assay/app/onboarding/anthropic-key", test_anthropic_key);
  g_test_add_func ("/assay/app/onboarding/unreachable", test_unreachable);
  g_test_add_func ("/assay/app/onboarding/leaving-cancels", test_leaving_cancels);
  g_test_add_func ("/assay/app/onboarding/another-server", test_another_server);
  g_test_add_func ("/assay/app/onboarding/preferences", test_preferences);
  g_test_add_func ("/assay/app/onboarding/preferences-engines", test_preferences_engines);
  g_test_add_func ("/assay/app/onboarding/question-fails-on-server", test_question_fails_on_server);
  g_test_add_func ("/assay/app/onboarding/after-demo", test_after_demo);
  status = g_test_run ();
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
  g_object_unref (settings);
  return status;
}
