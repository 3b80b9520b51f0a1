/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Databases in the window, against a real PostgreSQL 15 this test starts (db-server.py, on
 * tests/sources/dbservers.py), a real keyring (gnome-keyring-daemon on a private D-Bus
 * session), the fake model server and the real sandbox (bubblewrap):
 *
 * - "Connect to a Database": a refused connection, a wrong password, an unknown database and
 *   TLS the server does not offer get the server's plain message, never the password; the right one lists the tables, three are picked,
 *   Connect; the data page lists the connection (URL without password, its tables, the
 *   server); the keyring holds the password, the session and GSettings do not.
 * - A question whose model calls run_sql: the code review highlights the SQL, it is
 *   approved, the step card shows the query (highlighted), rows × columns and time, the
 *   result in the kernel; the model was told of the picked tables only. Stop during a long
 *   query stops it on the server (pg_stat_activity). The password is nowhere in the session
 *   folder (compressed requests included) or in what the model server received.
 * - The session opened again reconnects with the keyring's password, says its query result
 *   is cached, and the next question restores the DataFrame from the cache; the connection is
 *   edited and removed. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "assay-agent.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-connect-dialog.h"
#include "assay-connections-view.h"
#include "assay-conversation.h"
#include "assay-keyring.h"
#include "assay-rerun-dialog.h"
#include "assay-llm-provider.h"
#include "assay-step-card.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

#define JOIN_SQL "SELECT c.city, sum(i.quantity * i.unit_price) AS revenue FROM customers c " \
                 "JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id " \
                 "GROUP BY c.city ORDER BY revenue DESC"
#define EDITED_SQL "SELECT c.city, sum(i.quantity * i.unit_price) AS revenue FROM customers c " \
                   "JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id " \
                   "GROUP BY c.city ORDER BY c.city"
#define SLOW_SQL "SELECT pg_sleep(60) AS slept"

static GSettings *settings;
static GSubprocess *db_server;
static GDataInputStream *db_out;
static GOutputStream *db_in;
static gint64 db_port;
static gint64 refused_port;
static char *reader_password;
static char *sqlite_path;

static GSubprocess *model_server;
static char *model_url;
static char *model_log;

static AssayWindow *window;
static char *session_dir;
static char *connection_url;

/* ---- the database server ------------------------------------------------------------------ */

static JsonNode *
db_read_line (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_utf8 (db_out, NULL, NULL, &error);
  JsonNode *node;

  g_assert_no_error (error);
  g_assert_nonnull (line);
  node = json_from_string (line, &error);
  g_assert_no_error (error);
  return node;
}

static void
db_server_start (void)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;

  gui_launcher_die_with_test (launcher);
  db_server = g_subprocess_launcher_spawn (launcher, &error, PYTHON3, DB_SERVER, NULL);
  g_assert_no_error (error);
  db_out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (db_server));
  db_in = g_object_ref (g_subprocess_get_stdin_pipe (db_server));
  node = db_read_line ();
  object = json_node_get_object (node);
  db_port = json_object_get_int_member (object, "port");
  refused_port = json_object_get_int_member (object, "refused_port");
  reader_password = g_strdup (json_object_get_string_member (object, "reader_password"));
  sqlite_path = g_strdup (json_object_get_string_member (object, "sqlite_path"));
  g_assert_cmpint (db_port, >, 0);
}

/* What the server answers to SQL (one line), as the superuser. */
static char *
db_query (const char *sql)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strdup_printf ("%s\n", sql);
  g_autoptr(JsonNode) node = NULL;

  g_output_stream_write_all (db_in, line, strlen (line), NULL, NULL, &error);
  g_assert_no_error (error);
  node = db_read_line ();
  return g_strdup (json_node_get_string (node));
}

static int
db_running (const char *needle)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                                          "AND pid <> pg_backend_pid() AND query LIKE '%%%s%%'", needle);
  g_autofree char *count = db_query (sql);

  return atoi (count);
}

static void
db_server_stop (void)
{
  g_output_stream_close (db_in, NULL, NULL);
  g_subprocess_wait (db_server, NULL, NULL);
  g_clear_object (&db_in);
  g_clear_object (&db_out);
  g_clear_object (&db_server);
}

/* ---- the model server ---------------------------------------------------------------------- */

static void
add_tool_turn (JsonBuilder *builder,
               const char  *tool,
               const char  *first_key,
               ...)
{
  g_autoptr(JsonBuilder) arguments = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  const char *key;
  va_list args;

  json_builder_begin_object (arguments);
  va_start (args, first_key);
  for (key = first_key; key != NULL; key = va_arg (args, const char *))
    {
      json_builder_set_member_name (arguments, key);
      json_builder_add_string_value (arguments, va_arg (args, const char *));
    }
  va_end (args);
  json_builder_end_object (arguments);
  node = json_builder_get_root (arguments);
  text = json_to_string (node, FALSE);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "flavor");
  json_builder_add_string_value (builder, "openai");
  json_builder_set_member_name (builder, "turn");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, "");
  json_builder_set_member_name (builder, "tool_calls");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, tool);
  json_builder_set_member_name (builder, "arguments");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

static void
add_answer (JsonBuilder *builder,
            const char  *text)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "flavor");
  json_builder_add_string_value (builder, "openai");
  json_builder_set_member_name (builder, "turn");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  json_builder_set_member_name (builder, "finish");
  json_builder_add_string_value (builder, "stop");
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

/* The model of the three questions: a join through run_sql and an answer; a query that
 * sleeps (stopped); a cell on the DataFrame the reopened session restored, and an answer. */
static void
model_server_start (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *script = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "responses");
  json_builder_begin_array (builder);
  add_tool_turn (builder, "run_sql", "sql", JOIN_SQL, "name", "revenue", "description", "Revenue by city",
                 "database", "shop", NULL);
  add_answer (builder, "Berlin brings the most revenue.");
  add_tool_turn (builder, "run_sql", "sql", SLOW_SQL, "name", "slow", "description", "A slow query", NULL);
  add_tool_turn (builder, "execute_python", "code", "print(revenue.shape)\nprint(revenue['city'].tolist())\n",
                 "description", "The restored DataFrame", NULL);
  add_answer (builder, "The DataFrame came back.");
  add_tool_turn (builder, "execute_python", "code", "print(revenue.shape)\n",
                 "description", "The DataFrame asked again", NULL);
  add_answer (builder, "The DataFrame was asked again.");
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  script = json_to_string (root, FALSE);
  model_server = gui_fake_server_start (script, &model_url, &model_log);
}

/* ---- helpers ------------------------------------------------------------------------------- */

static gboolean
not_testing (gpointer data)
{
  return !assay_connect_dialog_get_testing (data);
}

static AssayConnectDialog *waited_dialog;

/* Not testing, and the status no longer the one given (a test ran since). */
static gboolean
dialog_tested (gpointer data)
{
  const char *status = assay_connect_dialog_get_status (waited_dialog, NULL);

  return !assay_connect_dialog_get_testing (waited_dialog) && g_strcmp0 (status, data) != 0;
}

static void
dialog_test (AssayConnectDialog *dialog)
{
  gtk_widget_activate_action (GTK_WIDGET (dialog), "connect.test", NULL);
  g_assert_true (assay_connect_dialog_get_testing (dialog));
  gui_wait (not_testing, dialog, 60, "the connection test");
}

static void
set_entry (AssayConnectDialog *dialog,
           const char         *field,
           const char         *text)
{
  gtk_editable_set_text (assay_connect_dialog_get_entry (dialog, field), text);
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
send (const char *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
}

static AssayStepCard *
card_of (const char *cell_id)
{
  AssayStepCard *card = assay_chat_view_find_cell_card (assay_window_get_chat_view (window), cell_id);

  g_assert_nonnull (card);
  return card;
}

static const char *
language_of (GtkTextView *view)
{
  GtkSourceLanguage *language = gtk_source_buffer_get_language (GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (view)));

  return language != NULL ? gtk_source_language_get_id (language) : NULL;
}

typedef struct
{
  gboolean done;
  char    *password;
} Lookup;

static void
looked_up_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  Lookup *lookup = data;
  g_autoptr(GError) error = NULL;

  lookup->password = assay_keyring_lookup_password_finish (result, &error);
  g_assert_no_error (error);
  lookup->done = TRUE;
}

static gboolean
lookup_done (gpointer data)
{
  return ((Lookup *) data)->done;
}

static char *
keyring_password (const char *url)
{
  Lookup lookup = { 0 };

  assay_keyring_lookup_password_async (url, NULL, looked_up_cb, &lookup);
  gui_wait (lookup_done, &lookup, 20, "the keyring");
  return lookup.password;
}

/* SECRET is in no file under DIR; compressed requests are read decompressed. */
static void
assert_not_in_folder (const char *dir,
                      const char *secret)
{
  g_autoptr(GDir) folder = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (folder);
  while ((name = g_dir_read_name (folder)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;
      g_autoptr(GError) read_error = NULL;
      gsize length = 0;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          assert_not_in_folder (path, secret);
          continue;
        }
      /* A save's temporary file, renamed meanwhile, is read as the record it became. */
      if (!g_file_get_contents (path, &contents, &length, &read_error))
        {
          g_assert_error (read_error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
          continue;
        }
      g_assert_null (g_strstr_len (contents, length, secret));
      if (g_str_has_suffix (name, ".gz"))
        {
          g_autoptr(GFile) file = g_file_new_for_path (path);
          g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, NULL));
          g_autoptr(GZlibDecompressor) decompressor = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
          g_autoptr(GInputStream) plain = g_converter_input_stream_new (raw, G_CONVERTER (decompressor));
          g_autoptr(GOutputStream) memory = g_memory_output_stream_new_resizable ();
          g_autoptr(GError) error = NULL;

          g_output_stream_splice (memory, plain, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (memory)), >, 0);
          g_assert_null (g_strstr_len (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (memory)),
                                       g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (memory)),
                                       secret));
        }
    }
}

static AssayConnection *
connection (const char *name)
{
  return assay_conversation_find_connection (assay_window_get_conversation (window), name);
}

static gboolean
connected (gpointer data)
{
  AssayConnection *found = connection (data);

  return found != NULL && assay_connection_get_status (found) != ASSAY_CONNECTION_CONNECTING;
}

static gboolean
dialog_gone (gpointer data)
{
  return assay_window_get_connect_dialog (window) == NULL;
}

/* ---- the tests ------------------------------------------------------------------------------ */


/* The Data page's "empty" or "content"; the page is made as it is first asked for. */
static const char *
data_page (AssayWindow *window)
{
  assay_window_get_connections_view (window);
  return gtk_stack_get_visible_child_name (window->data_stack);
}

static void
test_connect_dialog (void)
{
  AssayConnectDialog *dialog;
  g_autofree char *port = g_strdup_printf ("%" G_GINT64_FORMAT, db_port);
  g_autofree char *refused = g_strdup_printf ("%" G_GINT64_FORMAT, refused_port);
  g_autofree char *stored = NULL;
  g_autofree char *record_path = NULL;
  g_autofree char *record = NULL;
  g_auto(GStrv) tables = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *status_text = NULL;
  const AssaySessionSource *recorded;
  const char *status;
  gboolean error;
  AdwActionRow *row;

  window = g_object_ref (assay_window_new (NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  {
    g_autoptr(AssayLlmProvider) provider = assay_openai_provider_new (model_url, NULL);

    assay_window_set_provider (window, provider, "fake-model", FALSE);
  }
  /* No data yet: the data page says how to add some, a database among them. */
  g_assert_cmpstr (data_page (window), ==, "empty");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.connect-database", NULL);
  dialog = ASSAY_CONNECT_DIALOG (assay_window_get_connect_dialog (window));
  g_assert_nonnull (dialog);
  g_assert_false (assay_connect_dialog_get_can_connect (dialog));

  /* Nothing listens on that port: the plain "refused". */
  set_entry (dialog, "host", "127.0.0.1");
  set_entry (dialog, "port", refused);
  set_entry (dialog, "database", "shop");
  set_entry (dialog, "user", "reader");
  set_entry (dialog, "password", reader_password);
  g_assert_cmpstr (gtk_editable_get_text (assay_connect_dialog_get_entry (dialog, "name")), ==, "shop");
  dialog_test (dialog);
  status = assay_connect_dialog_get_status (dialog, &error);
  g_assert_true (error);
  g_assert_nonnull (strstr (status, "refused"));
  g_assert_null (strstr (status, reader_password));
  g_assert_false (assay_connect_dialog_get_can_connect (dialog));

  /* The right port, a wrong password: the server's own words, and neither password. */
  set_entry (dialog, "port", port);
  set_entry (dialog, "password", "not-the-password-42");
  dialog_test (dialog);
  status = assay_connect_dialog_get_status (dialog, &error);
  g_assert_true (error);
  g_assert_nonnull (strstr (status, "password authentication failed"));
  g_assert_null (strstr (status, "not-the-password-42"));
  g_assert_null (strstr (status, reader_password));
  g_assert_false (assay_connect_dialog_get_can_connect (dialog));

  /* A URL pasted with its password: the fields filled, the password out of sight at once. */
  {
    g_autofree char *pasted = g_strdup_printf ("postgresql://reader:%s@127.0.0.1:%s/shop?connect_timeout=5",
                                               reader_password, port);
    const char *shown;

    set_entry (dialog, "host", "");
    set_entry (dialog, "password", "");
    set_entry (dialog, "url", pasted);
    shown = gtk_editable_get_text (assay_connect_dialog_get_entry (dialog, "url"));
    g_assert_null (strstr (shown, reader_password));
    g_assert_nonnull (strstr (shown, "postgresql://reader@127.0.0.1:"));
    g_assert_cmpstr (gtk_editable_get_text (assay_connect_dialog_get_entry (dialog, "password")), ==, reader_password);
    g_assert_cmpstr (gtk_editable_get_text (assay_connect_dialog_get_entry (dialog, "host")), ==, "127.0.0.1");
    g_assert_cmpstr (gtk_editable_get_text (assay_connect_dialog_get_entry (dialog, "port")), ==, port);
    /* Its other parameters stay in the URL the fields make; another URL replaces them. */
    {
      g_autofree char *made = assay_connect_dialog_dup_url (dialog, NULL);
      g_autofree char *plain = g_strdup_printf ("postgresql://reader@127.0.0.1:%s/shop", port);

      g_assert_nonnull (strstr (made, "connect_timeout=5"));
      set_entry (dialog, "url", plain);
      /* What the row's apply button does. */
      g_signal_emit_by_name (assay_connect_dialog_get_entry (dialog, "url"), "apply");
      g_free (made);
      made = assay_connect_dialog_dup_url (dialog, NULL);
      g_assert_cmpstr (made, ==, plain);
    }
  }

  /* A database that is not there, and TLS the server does not offer: its words again. */
  set_entry (dialog, "password", reader_password);
  set_entry (dialog, "database", "nowhere");
  dialog_test (dialog);
  status = assay_connect_dialog_get_status (dialog, &error);
  g_assert_true (error);
  g_assert_nonnull (strstr (status, "database \"nowhere\" does not exist"));
  set_entry (dialog, "database", "shop");
  assay_connect_dialog_set_tls (dialog, 3 /* required */);
  {
    g_autofree char *url = assay_connect_dialog_dup_url (dialog, NULL);

    g_assert_nonnull (strstr (url, "sslmode=require"));
  }
  dialog_test (dialog);
  status = assay_connect_dialog_get_status (dialog, &error);
  g_assert_true (error);
  g_assert_nonnull (strstr (status, "SSL"));
  assay_connect_dialog_set_tls (dialog, 0 /* the client's default */);

  /* A login that can do more than read is refused, naming what it can do; the analyst may
   * accept the risk (a real click), which tests again and connects; taking it back refuses
   * again. */
  {
    g_autofree char *made = db_query ("CREATE ROLE boss LOGIN SUPERUSER PASSWORD 'b0ss-S3cret-pw'");
    GtkWidget *risk = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (dialog), ASSAY_TYPE_CONNECT_DIALOG,
                                                                   "risk_check"));

    g_assert_null (strstr (made, "error"));
    g_assert_false (gtk_widget_get_visible (risk));
    set_entry (dialog, "user", "boss");
    set_entry (dialog, "password", "b0ss-S3cret-pw");
    dialog_test (dialog);
    status = assay_connect_dialog_get_status (dialog, &error);
    g_assert_true (error);
    g_assert_nonnull (strstr (status, "can do more than read"));
    g_assert_nonnull (strstr (status, "superuser"));
    g_assert_false (assay_connect_dialog_get_can_connect (dialog));
    g_assert_true (gtk_widget_get_visible (risk));
    gui_spin (200);
    waited_dialog = dialog;
    {
      g_autofree char *before = g_strdup (status);

      gui_click (risk);
      gui_wait (dialog_tested, before, 30, "the test with the risk accepted");
    }
    status = assay_connect_dialog_get_status (dialog, &error);
    g_assert_false (error);
    g_assert_nonnull (strstr (status, "Connected to PostgreSQL 15"));
    g_assert_nonnull (strstr (status, "risk accepted"));
    g_assert_nonnull (strstr (status, "superuser"));
    g_assert_true (assay_connect_dialog_get_can_connect (dialog));
    gui_save_screenshot (GTK_WIDGET (dialog), "connect-dialog-risk.png");
    {
      g_autofree char *before = g_strdup (status);

      gui_click (risk);
      gui_wait (dialog_tested, before, 30, "the test with the risk withdrawn");
    }
    status = assay_connect_dialog_get_status (dialog, &error);
    g_assert_true (error);
    g_assert_nonnull (strstr (status, "can do more than read"));
    g_assert_false (assay_connect_dialog_get_can_connect (dialog));
    set_entry (dialog, "user", "reader");
    set_entry (dialog, "password", reader_password);
  }

  /* The right one: the server and every table and view the login reads. */
  dialog_test (dialog);
  status = assay_connect_dialog_get_status (dialog, &error);
  g_assert_false (error);
  g_assert_nonnull (strstr (status, "Connected to PostgreSQL 15"));
  g_assert_null (strstr (status, "risk"));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (dialog),
                                                                                     ASSAY_TYPE_CONNECT_DIALOG,
                                                                                     "risk_check"))));
  tables = assay_connect_dialog_dup_tables (dialog);
  for (const char *const *name = (const char * const[]) { "customers", "orders", "order_items", "products",
                                                          "events", "big_spenders", NULL }; *name; name++)
    g_assert_true (g_strv_contains ((const char * const *) tables, *name));
  /* What the model sees: three of them. */
  for (guint i = 0; tables[i] != NULL; i++)
    assay_connect_dialog_set_picked (dialog, tables[i],
                                     g_str_equal (tables[i], "customers") || g_str_equal (tables[i], "orders") ||
                                     g_str_equal (tables[i], "order_items"));
  g_assert_true (assay_connect_dialog_get_can_connect (dialog));
  gui_save_screenshot (GTK_WIDGET (dialog), "connect-dialog.png");
  /* Narrow, everything still in its place. */
  gtk_window_set_default_size (GTK_WINDOW (dialog), 360, 640);
  gui_spin (500);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (dialog)), <=, 360);
  gui_assert_laid_out (GTK_WIDGET (dialog));
  gui_save_screenshot (GTK_WIDGET (dialog), "connect-dialog-360.png");
  /* Any change to what was tested waits for another test. */
  set_entry (dialog, "port", "1");
  g_assert_false (assay_connect_dialog_get_can_connect (dialog));
  set_entry (dialog, "port", port);
  g_assert_true (assay_connect_dialog_get_can_connect (dialog));

  gtk_widget_activate_action (GTK_WIDGET (dialog), "connect.connect", NULL);
  gui_wait (dialog_gone, NULL, 10, "the dialog to close");

  /* The data page: the connection, without its password. */
  g_assert_cmpstr (data_page (window), ==, "content");
  gui_wait (connected, "shop", 30, "the connection");
  g_assert_cmpuint (assay_connection_get_status (connection ("shop")), ==, ASSAY_CONNECTION_CONNECTED);
  row = assay_connections_view_get_row (assay_window_get_connections_view (window), "shop");
  g_assert_nonnull (row);
  connection_url = g_strdup_printf ("postgresql://reader@127.0.0.1:%" G_GINT64_FORMAT "/shop", db_port);
  summary = assay_connection_dup_summary (connection ("shop"));
  status_text = assay_connection_dup_status_text (connection ("shop"));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (row), summary));
  g_assert_nonnull (strstr (summary, "reader@127.0.0.1"));
  g_assert_nonnull (strstr (summary, "customers, "));
  g_assert_nonnull (strstr (summary, "order_items"));
  g_assert_null (strstr (summary, "events"));
  g_assert_nonnull (strstr (status_text, "Connected to PostgreSQL 15"));
  g_assert_null (strstr (adw_action_row_get_subtitle (row), reader_password));
  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  gui_save_screenshot (GTK_WIDGET (window), "data-databases.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 800);
  gui_spin (500);
  gui_assert_laid_out (GTK_WIDGET (window));
  gui_save_screenshot (GTK_WIDGET (window), "data-databases-360.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gui_spin (500);
  adw_view_stack_set_visible_child_name (window->view_stack, "chat");

  /* An SQLite file too: its name must be another than the session's "shop". */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.connect-database", NULL);
  dialog = ASSAY_CONNECT_DIALOG (assay_window_get_connect_dialog (window));
  assay_connect_dialog_set_kind (dialog, ASSAY_SOURCE_SQLITE);
  {
    g_autoptr(GFile) file = g_file_new_for_path (sqlite_path);

    assay_connect_dialog_set_file (dialog, file);
  }
  g_assert_cmpstr (gtk_editable_get_text (assay_connect_dialog_get_entry (dialog, "name")), ==, "shop");
  dialog_test (dialog);
  status = assay_connect_dialog_get_status (dialog, &error);
  g_assert_false (error);
  g_assert_nonnull (strstr (status, "Connected to SQLite 3."));
  g_strfreev (tables);
  tables = assay_connect_dialog_dup_tables (dialog);
  g_assert_true (g_strv_contains ((const char * const *) tables, "typed"));
  gtk_widget_activate_action (GTK_WIDGET (dialog), "connect.connect", NULL);
  status = assay_connect_dialog_get_status (dialog, &error);
  g_assert_true (error);
  g_assert_nonnull (strstr (status, "has a database named shop already"));
  set_entry (dialog, "name", "local");
  gtk_widget_activate_action (GTK_WIDGET (dialog), "connect.connect", NULL);
  gui_wait (dialog_gone, NULL, 10, "the dialog to close");
  gui_wait (connected, "local", 30, "the SQLite file");
  g_assert_cmpuint (assay_connection_get_status (connection ("local")), ==, ASSAY_CONNECTION_CONNECTED);
  g_assert_cmpuint (assay_session_get_sources (assay_window_get_session (window))->len, ==, 2);
  /* And removed again: the session keeps only the shop. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-database", "s", "local");
  g_assert_null (connection ("local"));
  g_assert_cmpuint (assay_session_get_sources (assay_window_get_session (window))->len, ==, 1);

  /* The password: in the keyring, under the connection's URL; not in the record or settings. */
  stored = keyring_password (connection_url);
  g_assert_cmpstr (stored, ==, reader_password);
  recorded = g_ptr_array_index (assay_session_get_sources (assay_window_get_session (window)), 0);
  g_assert_cmpstr (recorded->name, ==, "shop");
  g_assert_cmpstr (recorded->url, ==, connection_url);
  g_assert_cmpuint (g_strv_length (recorded->tables), ==, 3);
  session_dir = g_strdup (assay_session_get_dir (assay_window_get_session (window)));
  record_path = g_build_filename (session_dir, "session.json", NULL);
  {
    g_autoptr(GError) load_error = NULL;

    g_assert_true (g_file_get_contents (record_path, &record, NULL, &load_error));
  }
  g_assert_nonnull (strstr (record, connection_url));
  g_assert_null (strstr (record, reader_password));
  gui_assert_not_in_settings (settings, reader_password);
}

static gboolean
cell_running (gpointer data)
{
  AssayStepCard *card = assay_chat_view_find_cell_card (assay_window_get_chat_view (window), data);

  return card != NULL && g_strcmp0 (assay_step_card_get_cell_status (card, data), "running") == 0;
}

static gboolean
query_running (gpointer data)
{
  return db_running (data) > 0;
}

static gboolean
query_gone (gpointer data)
{
  return db_running (data) == 0;
}

static void
test_run_sql (void)
{
  AssayCodeReview *review = assay_window_get_code_review (window);
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  g_autofree char *code = NULL;
  g_autofree char *cell_id = NULL;
  g_autofree char *slow_id = NULL;
  g_autofree char *requests = NULL;
  g_autofree char *query_text = NULL;
  GtkTextView *query_view;
  GtkWidget *source_view;
  AssaySessionCell *cell;

  g_assert_nonnull (window);
  send ("Which city brings the most revenue?");
  gui_wait (is_waiting, window, 120, "the query waiting for approval");

  /* The code review: the SQL, highlighted as SQL. */
  cell_id = g_strdup (assay_code_review_get_cell_id (review));
  code = assay_code_review_get_code (review);
  g_assert_cmpstr (code, ==, JOIN_SQL);
  g_assert_cmpstr (assay_code_review_get_language (review), ==, "sql");
  /* Its card: the query, highlighted, where it runs. */
  query_view = assay_step_card_get_query_view (card_of (cell_id), cell_id);
  g_assert_nonnull (query_view);
  g_assert_cmpstr (language_of (query_view), ==, "sql");
  g_assert_nonnull (gui_find (GTK_WIDGET (query_view), GTK_TYPE_TEXT_VIEW, "JOIN order_items"));
  g_assert_nonnull (strstr (assay_step_card_get_query_text (card_of (cell_id), cell_id), "into the DataFrame revenue"));
  gui_save_screenshot (GTK_WIDGET (window), "run-sql-approval.png");

  /* Edited, as a cell is: the SQL that runs is checked again, and the card shows it. */
  gtk_widget_activate_action (GTK_WIDGET (review), "review.edit", NULL);
  source_view = gui_find (GTK_WIDGET (review), GTK_SOURCE_TYPE_VIEW, NULL);
  g_assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (source_view)));
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (source_view)), EDITED_SQL, -1);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL);
  gui_wait (is_idle, window, 120, "the answer");
  g_assert_cmpstr (assay_step_card_get_cell_status (card_of (cell_id), cell_id), ==, "ok");
  g_assert_nonnull (gui_find (GTK_WIDGET (query_view), GTK_TYPE_TEXT_VIEW, "ORDER BY c.city"));
  g_assert_nonnull (gui_find (GTK_WIDGET (card_of (cell_id)), GTK_TYPE_LABEL, "Edited by you"));
  query_text = g_strdup (assay_step_card_get_query_text (card_of (cell_id), cell_id));
  g_assert_nonnull (strstr (query_text, "5 rows × 2 columns in "));
  g_assert_nonnull (strstr (query_text, "on shop, now the DataFrame revenue"));
  g_assert_nonnull (strstr (query_text, "city (text)"));
  /* The rows, as the kernel loaded them. */
  g_assert_nonnull (gui_find (GTK_WIDGET (card_of (cell_id)), GTK_TYPE_TEXT_VIEW, "Tallinn"));
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Berlin brings the most revenue."));
  cell = assay_session_find_cell (assay_window_get_session (window), cell_id);
  g_assert_cmpint (cell->kind, ==, ASSAY_CELL_KIND_SQL);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_EDITED);
  g_assert_cmpstr (cell->code, ==, EDITED_SQL);
  g_assert_cmpint (cell->query->rows, ==, 5);
  assay_window_dismiss_toast (window);
  gui_save_screenshot (GTK_WIDGET (window), "databases.png");

  /* The model was told of the picked tables and offered run_sql; not of the others. */
  g_assert_true (g_file_get_contents (model_log, &requests, NULL, NULL));
  g_assert_nonnull (strstr (requests, "run_sql"));
  g_assert_nonnull (strstr (requests, "order_items"));
  g_assert_null (strstr (requests, "big_spenders"));
  g_assert_null (strstr (requests, "happened_at"));
  g_assert_null (strstr (requests, "category"));

  /* A long query, stopped: the server no longer runs it. */
  send ("How long does a slow query take?");
  gui_wait (is_waiting, window, 120, "the slow query waiting for approval");
  slow_id = g_strdup (assay_code_review_get_cell_id (review));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL);
  gui_wait (cell_running, slow_id, 30, "the slow query to run");
  gui_wait (query_running, "pg_sleep(60)", 30, "the slow query on the server");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL);
  gui_wait (is_idle, window, 30, "the question to stop");
  g_assert_cmpstr (assay_step_card_get_cell_status (card_of (slow_id), slow_id), ==, "cancelled");
  /* Well before the minute it sleeps. */
  gui_wait (query_gone, "pg_sleep(60)", 20, "the server to stop the query");
  g_assert_cmpstr (assay_session_get_status (assay_window_get_session (window)), ==, "cancelled");

  /* No password anywhere: the session folder, the requests, what the model server got. */
  g_free (requests);
  g_assert_true (g_file_get_contents (model_log, &requests, NULL, NULL));
  g_assert_null (strstr (requests, reader_password));
  assert_not_in_folder (session_dir, reader_password);
}

/* The labels under WIDGET whose text starts with PREFIX. */
static guint
count_labels (GtkWidget  *widget,
              const char *prefix)
{
  guint n = GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), prefix) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    n += count_labels (child, prefix);
  return n;
}

/* ---- run again: the queries asked again of the database ----------------------------------- */

static AssayRerunDialog *
find_rerun_dialog (void)
{
  return (AssayRerunDialog *) gui_find_toplevel (ASSAY_TYPE_RERUN_DIALOG);
}

static gboolean
rerun_can_run (gpointer data)
{
  return assay_rerun_dialog_get_can_run (data);
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

static gboolean
rerun_shown (gpointer data)
{
  char **opened = data;
  AssaySession *session = assay_window_get_session (window);

  return *opened != NULL && !assay_window_get_opening (window) && session != NULL &&
         g_strcmp0 (assay_session_get_dir (session), *opened) == 0;
}

static void
test_rerun (void)
{
  g_autofree char *opened = NULL;
  g_autofree char *out = NULL;
  AssayRerunDialog *dialog;
  AssaySession *session;
  const AssaySessionCell *cell = NULL;

  g_assert_nonnull (window);
  /* A session of queries only, no dataset: it can be run again, its database asked again. */
  g_assert_cmpuint (assay_session_get_datasets (assay_window_get_session (window))->len, ==, 0);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.rerun", NULL);
  dialog = find_rerun_dialog ();
  g_assert_nonnull (dialog);
  g_object_ref (dialog);
  g_assert_nonnull (assay_rerun_dialog_get_source_status (dialog, "shop"));
  gui_wait (rerun_can_run, dialog, 30, "the database's password from the keyring");
  g_assert_cmpstr (assay_rerun_dialog_get_source_status (dialog, "shop"), ==,
                   "Asked again with its password from the keyring");
  {
    GtkWidget *row = gui_find (GTK_WIDGET (dialog), ADW_TYPE_ACTION_ROW, "shop");

    g_assert_nonnull (row);
    g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, connection_url);
  }
  gui_save_screenshot (GTK_WIDGET (dialog), "rerun-databases.png");

  /* A sixth city since the question: the run asks the database, not the cache. */
  out = db_query ("INSERT INTO customers VALUES (9001, 'New', NULL, 'Vilnius'); "
                  "INSERT INTO orders VALUES (9001, 9001, now(), 'paid'); "
                  "INSERT INTO order_items VALUES (9001, 1, 1, 1.25)");
  g_assert_null (strstr (out, "error"));
  g_signal_connect (dialog, "open-session", G_CALLBACK (rerun_opened_cb), &opened);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "rerun.run", NULL);
  g_assert_true (assay_rerun_dialog_get_running (dialog));
  gui_wait (rerun_shown, &opened, 180, "the new session to be opened");
  g_assert_null (assay_rerun_dialog_get_message (dialog));
  g_signal_handlers_disconnect_by_data (dialog, &opened);
  g_object_unref (dialog);

  session = assay_window_get_session (window);
  g_assert_cmpstr (assay_session_get_rerun_of (session), ==, session_dir);
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    if (assay_session_get_cell (session, i)->kind == ASSAY_CELL_KIND_SQL)
      cell = assay_session_get_cell (session, i);
  g_assert_nonnull (cell);
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_OK);
  g_assert_cmpstr (cell->code, ==, EDITED_SQL);
  g_assert_cmpint (cell->query->rows, ==, 6);
  g_assert_cmpuint (assay_session_get_sources (session)->len, ==, 1);
  assert_not_in_folder (assay_session_get_dir (session), reader_password);

  g_free (out);
  out = db_query ("DELETE FROM order_items WHERE order_id = 9001; DELETE FROM orders WHERE id = 9001; "
                  "DELETE FROM customers WHERE id = 9001");
  g_assert_null (strstr (out, "error"));
}

static gboolean
not_waiting_connections (gpointer data)
{
  return !assay_window_get_opening (window) && connected (data);
}

static void
test_reopen (void)
{
  AssayCodeReview *review = assay_window_get_code_review (window);
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  AssaySession *session;
  AssayConnectDialog *dialog;
  g_autofree char *cell_id = NULL;
  const char *query_cell = "c1";

  g_assert_nonnull (window);
  /* Another session lists no database; this one again connects its own from the keyring. */
  assay_window_new_session (window);
  g_assert_cmpuint (g_list_model_get_n_items (assay_conversation_get_connections (assay_window_get_conversation (window))), ==, 0);
  g_assert_cmpstr (data_page (window), ==, "empty");
  gui_open_session (window, session_dir);
  gui_wait (not_waiting_connections, "shop", 30, "the session's database to connect");
  g_assert_cmpuint (assay_connection_get_status (connection ("shop")), ==, ASSAY_CONNECTION_CONNECTED);
  g_assert_cmpuint (g_strv_length ((char **) assay_connection_get_tables (connection ("shop"))), ==, 3);
  /* Its query is shown with its result, said to be cached. */
  g_assert_nonnull (strstr (assay_step_card_get_query_text (card_of (query_cell), query_cell),
                            "cached in the session"));
  g_assert_cmpstr (language_of (assay_step_card_get_query_view (card_of (query_cell), query_cell)), ==, "sql");

  /* The next question restores the DataFrame from the cache, and says so. */
  send ("Is the revenue table still there?");
  gui_wait (is_waiting, window, 120, "the cell waiting for approval");
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "1 query result comes back from the session’s cached results"));
  g_assert_cmpstr (assay_code_review_get_language (review), ==, "python3");
  cell_id = g_strdup (assay_code_review_get_cell_id (review));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL);
  gui_wait (is_idle, window, 120, "the answer");
  g_assert_nonnull (gui_find (GTK_WIDGET (card_of (cell_id)), GTK_TYPE_TEXT_VIEW, "(5, 2)"));
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "The DataFrame came back."));

  /* Edit: its tables are listed again with the pick checked, the password from the keyring. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.edit-database", "s", "shop");
  dialog = ASSAY_CONNECT_DIALOG (assay_window_get_connect_dialog (window));
  g_assert_nonnull (dialog);
  gui_wait (not_testing, dialog, 60, "the edited connection's test");
  g_assert_cmpstr (gtk_editable_get_text (assay_connect_dialog_get_entry (dialog, "password")), ==, "");
  g_assert_true (assay_connect_dialog_get_picked (dialog, "orders"));
  g_assert_false (assay_connect_dialog_get_picked (dialog, "events"));
  assay_connect_dialog_set_picked (dialog, "products", TRUE);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "connect.connect", NULL);
  gui_wait (dialog_gone, NULL, 10, "the dialog to close");
  gui_wait (connected, "shop", 30, "the edited connection");
  g_assert_cmpuint (g_strv_length ((char **) assay_connection_get_tables (connection ("shop"))), ==, 4);

  /* Opened again and asked to query again: the DataFrame holds the database's rows now, not the
   * cache's; the session's cached result stays what it was. */
  {
    AssayConversation *conversation = assay_window_get_conversation (window);
    GtkCheckButton *check = assay_connections_view_get_requery_check (assay_window_get_connections_view (window));
    g_autofree char *again_id = NULL;
    g_autofree char *out = NULL;
    g_autofree char *cache = g_build_filename (session_dir, "queries", "c1.aqr", NULL);
    g_autofree char *cache_before = NULL;
    g_autofree char *cache_after = NULL;
    gsize before_length = 0, after_length = 0;

    g_assert_false (gtk_widget_get_visible (GTK_WIDGET (check)));   /* the kernel is rebuilt already */
    assay_window_new_session (window);
    gui_open_session (window, session_dir);
    gui_wait (not_waiting_connections, "shop", 30, "the session's database to connect again");
    g_assert_true (gtk_widget_get_visible (GTK_WIDGET (check)));
    g_assert_false (gtk_check_button_get_active (check));
    gtk_check_button_set_active (check, TRUE);
    g_assert_true (assay_conversation_get_requery (conversation));
    g_assert_true (g_file_get_contents (cache, &cache_before, &before_length, NULL));
    out = db_query ("INSERT INTO customers VALUES (9002, 'New', NULL, 'Vilnius'); "
                    "INSERT INTO orders VALUES (9002, 9002, now(), 'paid'); "
                    "INSERT INTO order_items VALUES (9002, 1, 1, 1.25)");
    g_assert_null (strstr (out, "error"));
    send ("Is it still so?");
    gui_wait (is_waiting, window, 120, "the cell waiting for approval");
    g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Restoring the session: its 1 query is asked again of its database…"));
    g_assert_cmpuint (count_labels (chat, "Restoring the session: its"), ==, 1);
    g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "The query of cell c1 was asked again: 6 rows now."));
    g_assert_false (gtk_widget_get_visible (GTK_WIDGET (check)));
    again_id = g_strdup (assay_code_review_get_cell_id (review));
    gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL);
    gui_wait (is_idle, window, 120, "the answer");
    g_assert_nonnull (gui_find (GTK_WIDGET (card_of (again_id)), GTK_TYPE_TEXT_VIEW, "(6, 2)"));
    g_assert_true (g_file_get_contents (cache, &cache_after, &after_length, NULL));
    g_assert_true (before_length == after_length && memcmp (cache_before, cache_after, before_length) == 0);
    g_free (out);
    out = db_query ("DELETE FROM order_items WHERE order_id = 9002; DELETE FROM orders WHERE id = 9002; "
                    "DELETE FROM customers WHERE id = 9002");
    g_assert_null (strstr (out, "error"));
  }

  /* Removed: the session forgets it; its cells stay. */
  session = assay_window_get_session (window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-database", "s", "shop");
  g_assert_null (connection ("shop"));
  g_assert_cmpuint (assay_session_get_sources (session)->len, ==, 0);
  g_assert_nonnull (assay_session_find_cell (session, query_cell));
  g_assert_null (assay_connections_view_get_row (assay_window_get_connections_view (window), "shop"));
  g_assert_cmpstr (data_page (window), ==, "empty");

  assert_not_in_folder (session_dir, reader_password);
  gui_assert_not_in_settings (settings, reader_password);
  gui_close_window (g_steal_pointer (&window));
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
  db_server_start ();
  model_server_start ();

  g_test_add_func ("/assay/app/databases/connect-dialog", test_connect_dialog);
  g_test_add_func ("/assay/app/databases/run-sql", test_run_sql);
  g_test_add_func ("/assay/app/databases/rerun", test_rerun);
  g_test_add_func ("/assay/app/databases/reopen", test_reopen);
  status = g_test_run ();

  gui_fake_server_stop (model_server, model_log);
  db_server_stop ();
  g_object_unref (settings);
  return status;
}
