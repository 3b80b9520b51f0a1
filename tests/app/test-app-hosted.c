/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Runs on OpenAI" in the window (issue 17, item 4), against tests/llm/fake_llm_server.py,
 * which speaks the Responses API's streamed code_interpreter events and OpenAI's Containers
 * API, its containers really running the code with this machine's python3 (no OpenAI server
 * is reachable here). The switch in the destination popover asks first, with the plain
 * statement, and refuses (saying why) where the settings or the session do not allow it; the
 * question then makes a container with the key from the keyring, uploads the dataset, shows
 * the streamed code in the code view and the cited file and the image in the gallery, and
 * runs nothing on this computer; a dataset added later is uploaded before the next question;
 * a masked column stops the next question with the reason; another session is back on this
 * computer and the container is removed. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-keyring.h"
#include "assay-session-cell.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

#define OPENAI_KEY "sk-hosted-gui-test-4b7e21"

static GSettings *settings;

/* The hosted code: csv, as this machine's python3 has no pandas; a PNG written by hand. */
#define CODE_TOTAL "import csv\\nrows = list(csv.DictReader(open('/mnt/data/sales.csv')))\\n" \
  "total = sum(float(r['amount']) for r in rows)\\nprint('total amount', total)\\n" \
  "w = csv.writer(open('/mnt/data/summary.csv', 'w', newline=''))\\nw.writerow(['rows', 'total'])\\n" \
  "w.writerow([len(rows), total])\\n" \
  "import struct, zlib\\n" \
  "def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))\\n" \
  "raw = b''.join(b'\\\\x00' + b'\\\\xff\\\\x00\\\\x00' * 4 for _ in range(4))\\n" \
  "png = b'\\\\x89PNG\\\\r\\\\n\\\\x1a\\\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0))" \
  " + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')\\n" \
  "open('/mnt/data/chart.png', 'wb').write(png)\\n"
#define CODE_COSTS "import csv\\nrows = list(csv.DictReader(open('/mnt/data/costs.csv')))\\n" \
  "print('costs', sum(float(r['cost']) for r in rows))\\n"

static const char *script =
  "{\"responses\": ["
  " {\"flavor\": \"responses\", \"turn\": {\"text\": \"The total amount is 30.5.\","
  "   \"code_interpreter\": [{\"code\": \"" CODE_TOTAL "\"}],"
  "   \"cite\": [{\"file\": \"summary.csv\", \"filename\": \"summary.csv\"}]}},"
  " {\"flavor\": \"responses\", \"turn\": {\"text\": \"The costs are 7.0.\","
  "   \"code_interpreter\": [{\"code\": \"" CODE_COSTS "\"}]}},"
  " {\"flavor\": \"responses\", \"turn\": {\"text\": \"Nothing more.\"}}]}";

typedef struct
{
  gboolean done;
} Stored;

static gboolean
is_stored (gpointer data)
{
  return ((Stored *) data)->done;
}

static void
stored_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_keyring_store_finish (result, &error));
  g_assert_no_error (error);
  ((Stored *) data)->done = TRUE;
}

static void
store_key (const char *base_url)
{
  Stored stored = { 0 };

  assay_keyring_store_async ("openai", base_url, OPENAI_KEY, NULL, stored_cb, &stored);
  gui_wait (is_stored, &stored, 20, "the key stored in the keyring");
}

/* The requests the fake logged: {"method", "path", "headers", "body"}. */
static GPtrArray *
read_requests (const char *log_path)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (!g_file_get_contents (log_path, &contents, NULL, NULL))
    return requests;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      JsonNode *node;

      if (lines[i][0] == '\0')
        continue;
      node = json_from_string (lines[i], NULL);
      if (node != NULL)
        g_ptr_array_add (requests, node);
    }
  return requests;
}

/* How many requests of METHOD had a path that starts with PREFIX and ends with SUFFIX. */
static guint
count_requests (const char *log_path,
                const char *method,
                const char *prefix,
                const char *suffix)
{
  g_autoptr(GPtrArray) requests = read_requests (log_path);
  guint n = 0;

  for (guint i = 0; i < requests->len; i++)
    {
      JsonObject *request = json_node_get_object (g_ptr_array_index (requests, i));
      const char *path = json_object_get_string_member (request, "path");

      if (g_str_equal (json_object_get_string_member (request, "method"), method) &&
          g_str_has_prefix (path, prefix) && g_str_has_suffix (path, suffix))
        n++;
    }
  return n;
}

/* The Authorization header of the first request of METHOD to PATH. */
static char *
request_authorization (const char *log_path,
                       const char *method,
                       const char *path)
{
  g_autoptr(GPtrArray) requests = read_requests (log_path);

  for (guint i = 0; i < requests->len; i++)
    {
      JsonObject *request = json_node_get_object (g_ptr_array_index (requests, i));

      if (g_str_equal (json_object_get_string_member (request, "method"), method) &&
          g_str_equal (json_object_get_string_member (request, "path"), path))
        return g_strdup (json_object_get_string_member_with_default (json_object_get_object_member (request, "headers"),
                                                                    "authorization", ""));
    }
  return NULL;
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static void
ask (AssayWindow *window,
     const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
  gui_wait (is_idle, window, 120, "the question to end");
}

static char *
cell_stdout (const AssaySessionCell *cell)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; cell->outputs != NULL && i < json_array_get_length (cell->outputs); i++)
    {
      JsonObject *output = json_array_get_object_element (cell->outputs, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (output, "output_type", ""), "stream") == 0)
        g_string_append (text, json_object_get_string_member_with_default (output, "text", ""));
    }
  return g_string_free (text, FALSE);
}

/* An artifact named NAME, or (NAME starting with '.') whose name ends with it. */
static gboolean
has_artifact (AssayConversation *conversation,
              const char        *name)
{
  GListModel *list = G_LIST_MODEL (assay_conversation_get_artifacts (conversation));

  for (guint i = 0; list != NULL && i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(AssayArtifactItem) item = g_list_model_get_item (list, i);

      if (name[0] == '.' ? g_str_has_suffix (assay_artifact_item_get_name (item), name)
                         : g_strcmp0 (assay_artifact_item_get_name (item), name) == 0)
        return TRUE;
    }
  return FALSE;
}

static GtkSwitch *
hosted_switch (AssayWindow *window)
{
  return assay_destination_button_get_hosted_switch (assay_window_get_destination_button (window));
}

/* Turns the switch on as a click does; the statement (or the refusal) is shown. */
static AdwMessageDialog *
switch_on (AssayWindow *window)
{
  AdwMessageDialog *dialog;

  gtk_switch_set_active (hosted_switch (window), TRUE);
  dialog = assay_window_get_hosted_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (dialog)));
  /* Nothing is decided before the answer. */
  g_assert_false (assay_conversation_get_runs_on_openai (assay_window_get_conversation (window)));
  return dialog;
}

static void
answer (AssayWindow      *window,
        AdwMessageDialog *dialog,
        const char       *response)
{
  adw_message_dialog_response (dialog, response);
  gui_spin (50);
  g_assert_null (assay_window_get_hosted_dialog (window));
}

typedef struct
{
  guint deltas;
} Streamed;

static void
code_delta_cb (AssayAgent *agent, guint index, const char *id, const char *text, Streamed *streamed)
{
  streamed->deltas++;
}

static void
agent_cb (AssayConversation *conversation, GParamSpec *pspec, Streamed *streamed)
{
  AssayAgent *agent = assay_conversation_get_agent (conversation);

  if (agent != NULL)
    g_signal_connect (agent, "code-delta", G_CALLBACK (code_delta_cb), streamed);
}

static void
test_hosted (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-hosted-XXXXXX", NULL);
  g_autofree char *csv = gui_write_file (dir, "sales.csv", "region,amount\nnorth,10.25\nsouth,20.25\n");
  g_autofree char *costs = gui_write_file (dir, "costs.csv", "item,cost\nrent,4.5\npaper,2.5\n");
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *container_path = NULL;
  g_autofree char *session_dir = NULL;
  g_autofree char *authorization = NULL;
  g_autofree char *out = NULL;
  g_autofree char *code = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  AssayConversation *conversation;
  AdwMessageDialog *dialog;
  AssaySessionCell *cell;
  AssaySession *session;
  AssayWindow *window;
  Streamed streamed = { 0 };
  const char *label;

  server = gui_fake_server_start (script, &base_url, &log_path);
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_string (settings, "base-url", base_url);
  g_settings_set_string (settings, "model", "gpt-4.1");
  /* Chat Completions first: the code interpreter is a tool of the Responses API only. */
  g_settings_set_string (settings, "openai-api", "chat");
  store_key (base_url);

  window = g_object_ref (assay_window_new (NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  conversation = assay_window_get_conversation (window);
  g_signal_connect (conversation, "notify::agent", G_CALLBACK (agent_cb), &streamed);
  file = g_file_new_for_path (csv);
  gui_add_files (window, &file, 1);
  gui_wait_files_added (window);
  g_clear_object (&file);

  /* 1. Offered with OpenAI's model; refused, saying why, without its Responses API. */
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (GTK_WIDGET (hosted_switch (window)))));
  dialog = switch_on (window);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "The Code Cannot Run on OpenAI");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "Responses API"));
  answer (window, dialog, "close");
  g_assert_false (assay_conversation_get_runs_on_openai (conversation));
  g_assert_false (gtk_switch_get_active (hosted_switch (window)));

  /* 2. With it: the plain statement; Cancel leaves the session on this computer. */
  g_settings_set_string (settings, "openai-api", "responses");
  dialog = switch_on (window);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Run This Session's Code on OpenAI?");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "uploaded whole to OpenAI"));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "nothing waits for your approval"));
  answer (window, dialog, "cancel");
  g_assert_false (assay_conversation_get_runs_on_openai (conversation));
  g_assert_false (gtk_switch_get_active (hosted_switch (window)));

  /* 3. Chosen: the popover says where the code runs. */
  dialog = switch_on (window);
  answer (window, dialog, "run");
  g_assert_true (assay_conversation_get_runs_on_openai (conversation));
  g_assert_true (gtk_switch_get_active (hosted_switch (window)));
  g_assert_true (gtk_switch_get_state (hosted_switch (window)));
  label = assay_destination_button_get_sandbox (assay_window_get_destination_button (window));
  g_assert_cmpstr (label, ==, "The code runs in OpenAI's hosted code interpreter.");

  /* 4. A question: a container with the keyring's key, the dataset uploaded, the code run
   * there and streamed into the code view, the cited file and the image in the gallery, no
   * sandbox on this computer. */
  ask (window, "What is the total amount?");
  g_assert_cmpuint (count_requests (log_path, "POST", "/v1/containers", "/v1/containers"), ==, 1);
  authorization = request_authorization (log_path, "POST", "/v1/containers");
  g_assert_cmpstr (authorization, ==, "Bearer " OPENAI_KEY);
  g_assert_cmpuint (count_requests (log_path, "POST", "/v1/containers/", "/files"), ==, 1);
  session = assay_window_get_session (window);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);
  cell = assay_session_get_cell (session, 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_HOSTED);
  g_assert_true (assay_session_cell_succeeded (cell));
  out = cell_stdout (cell);
  g_assert_nonnull (strstr (out, "total amount 30.5"));
  g_assert_cmpstr (assay_session_get_sandbox (session), ==, "openai-hosted");
  g_assert_true (g_str_has_prefix (assay_session_get_sandbox_where (session), "OpenAI's hosted code interpreter (container "));
  g_assert_null (assay_conversation_get_kernel_id (conversation));
  g_assert_cmpuint (streamed.deltas, >, 0);
  code = assay_code_review_get_code (assay_window_get_code_review (window));
  g_assert_cmpstr (code, ==, cell->code);
  g_assert_nonnull (strstr (code, "total amount"));
  g_assert_true (has_artifact (conversation, "summary.csv"));
  /* The image, named by its container file. */
  g_assert_true (has_artifact (conversation, ".png"));
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                              "The total amount is 30.5."));
  container_path = g_strdup_printf ("/v1/containers/%s",
                                    strstr (assay_session_get_sandbox_where (session), "cntr_"));
  container_path[strlen (container_path) - 1] = '\0';   /* the ")" */

  /* 5. A dataset added since: uploaded into the same container before the next question. */
  file = g_file_new_for_path (costs);
  gui_add_files (window, &file, 1);
  gui_wait_files_added (window);
  ask (window, "And the costs?");
  g_assert_cmpuint (count_requests (log_path, "POST", "/v1/containers", "/v1/containers"), ==, 1);
  g_assert_cmpuint (count_requests (log_path, "POST", container_path, "/files"), ==, 2);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 2);
  g_clear_pointer (&out, g_free);
  out = cell_stdout (assay_session_get_cell (session, 1));
  g_assert_nonnull (strstr (out, "costs 7.0"));
  g_assert_null (assay_conversation_get_kernel_id (conversation));

  /* 6. A masked column since: the next question stops with the reason; nothing is sent. */
  g_assert_true (assay_conversation_set_column_masked (conversation, "sales.csv", "region", TRUE, &error));
  g_assert_no_error (error);
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Anything else?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 60, "the question to stop");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                              "This session's code runs on OpenAI, which cannot be done now"));
  g_assert_cmpuint (count_requests (log_path, "POST", "/v1/responses", "/v1/responses"), ==, 2);
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 2);
  g_assert_true (assay_conversation_get_runs_on_openai (conversation));

  /* 7. Another session: back on this computer, and OpenAI's container removed. */
  session_dir = g_strdup (assay_session_get_dir (session));
  assay_window_new_session (window);
  g_assert_false (assay_conversation_get_runs_on_openai (conversation));
  g_assert_false (gtk_switch_get_active (hosted_switch (window)));
  for (guint i = 0; i < 100 && count_requests (log_path, "DELETE", container_path, container_path) == 0; i++)
    gui_spin (100);
  g_assert_cmpuint (count_requests (log_path, "DELETE", container_path, container_path), ==, 1);
  label = assay_destination_button_get_sandbox (assay_window_get_destination_button (window));
  g_assert_true (label == NULL || strstr (label, "OpenAI") == NULL);

  /* 8. The session opened again: on this computer it is refused (its code was never
   * approved here) before anything is sent; chosen again, it goes on in a new container. */
  gui_open_session (window, session_dir);
  g_assert_true (assay_window_is_current_session (window, session_dir));
  g_assert_false (assay_conversation_get_runs_on_openai (conversation));
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Locally?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 60, "the question to be refused");
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL,
                              "was never approved here"));
  g_assert_cmpuint (count_requests (log_path, "POST", "/v1/responses", "/v1/responses"), ==, 2);
  g_assert_null (assay_conversation_get_kernel_id (conversation));
  g_assert_true (assay_conversation_set_column_masked (conversation, "sales.csv", "region", FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (assay_conversation_set_privacy_mode (conversation, ASSAY_PRIVACY_FULL, &error));
  g_assert_no_error (error);
  dialog = switch_on (window);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Run This Session's Code on OpenAI?");
  answer (window, dialog, "run");
  g_assert_true (assay_conversation_get_runs_on_openai (conversation));
  ask (window, "Anything more?");
  g_assert_cmpuint (count_requests (log_path, "POST", "/v1/responses", "/v1/responses"), ==, 3);
  g_assert_cmpuint (count_requests (log_path, "POST", "/v1/containers", "/v1/containers"), ==, 2);
  g_assert_nonnull (gui_find (GTK_WIDGET (assay_window_get_chat_view (window)), GTK_TYPE_LABEL, "Nothing more."));

  /* 9. Turned off: on this computer from the next question; the new container removed. */
  gtk_switch_set_active (hosted_switch (window), FALSE);
  g_assert_false (assay_conversation_get_runs_on_openai (conversation));
  g_assert_null (assay_window_get_hosted_dialog (window));
  for (guint i = 0; i < 100 && count_requests (log_path, "DELETE", "/v1/containers/", "") < 2; i++)
    gui_spin (100);
  g_assert_cmpuint (count_requests (log_path, "DELETE", "/v1/containers/", ""), ==, 2);

  /* 10. A model that is not OpenAI's: not offered. */
  g_settings_set_string (settings, "provider", "anthropic");
  gui_spin (50);
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_parent (GTK_WIDGET (hosted_switch (window)))));

  gui_close_window (window);
  gui_fake_server_stop (server, log_path);
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
  g_settings_reset (settings, "openai-api");
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  g_test_add_func ("/assay/app/hosted/window", test_hosted);
  status = g_test_run ();
  g_object_unref (settings);
  return status;
}
