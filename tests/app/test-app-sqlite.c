/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An SQLite file dropped on the window (issue 16): it is added like a CSV (copied into the
 * session with the backup API, described for the model by its schema), and the Data page
 * shows its tables and views with their rows, each table's columns with types and keys, and
 * a chosen table's first rows, read in a worker. */
#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "assay-chat-view.h"
#include "assay-column-profile-panel.h"
#include "assay-dataset-page.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

static GSettings *settings;

static void
close_db (gpointer db)
{
  sqlite3_close (db);
}

static char *
make_shop (const char *dir)
{
  char *path = g_build_filename (dir, "shop.db", NULL);
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "PRAGMA journal_mode = WAL;"
                                 "CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL, city TEXT);"
                                 "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), "
                                 "  amount NUMERIC(10,2), placed DATE);"
                                 "CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 100;"
                                 "INSERT INTO customers VALUES (1, 'alice@example.com', 'Oslo'), "
                                 "  (2, 'bob@example.com', 'Riga'), (3, 'carol@example.com', 'Tartu');"
                                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) "
                                 "INSERT INTO orders SELECT i, 1 + i % 3, i * 7.5, '2024-01-' || printf('%02d', 1 + i % 28) FROM n;",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  /* Left open: its rows are in the WAL, and the window must copy them all the same. */
  g_object_set_data_full (G_OBJECT (settings), "db", db, close_db);
  return path;
}

static AssayDatasetPage *
selected_page (AssayWindow *window)
{
  return assay_data_preview_get_selected_page (assay_window_get_data_preview (window));
}

static gboolean
schema_shown (gpointer data)
{
  AssayDatasetPage *page = selected_page (data);

  return page != NULL && g_strcmp0 (assay_dataset_page_get_state (page), "database") == 0;
}

typedef struct
{
  AssayWindow *window;
  guint        n;
} RowsWanted;

static gboolean
rows_shown (gpointer data)
{
  RowsWanted *wanted = data;
  AssayDatasetPage *page = selected_page (wanted->window);
  GListModel *rows = page != NULL ? assay_dataset_page_get_table_rows (page) : NULL;

  return rows != NULL && g_list_model_get_n_items (rows) == wanted->n;
}

static gboolean
datasets_described (gpointer data)
{
  return assay_window_get_datasets_described (data);
}

static const char *
cell (GListModel *rows,
      guint       row,
      guint       column)
{
  g_autoptr(GtkStringList) item = g_list_model_get_item (rows, row);

  /* The store holds the item: the string outlives this reference. */
  return gtk_string_list_get_string (item, column);
}

static GtkWidget *
find_table_row (GtkWidget  *list,
                const char *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (ADW_IS_EXPANDER_ROW (child) && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child)), name) == 0)
      return child;
  return NULL;
}

static void
test_drop_sqlite (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-sqlite-XXXXXX", NULL);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  AssayWindow *window;
  AssaySession *session;
  const AssaySessionDataset *dataset;
  AssayDatasetPage *page;
  GtkWidget *list;
  GtkWidget *orders;
  GtkWidget *customers;
  GtkWidget *view;
  GListModel *rows;
  RowsWanted wanted;

  g_settings_set_string (settings, "provider", "openai");
  path = make_shop (dir);
  file = g_file_new_for_path (path);
  window = g_object_ref (assay_window_new (NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);

  /* Through the window's drop target, as a drag from the file manager. */
  {
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
    GtkDropTarget *target = NULL;
    GSList *files = g_slist_prepend (NULL, file);
    GValue value = G_VALUE_INIT;
    gboolean accepted = FALSE;

    for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
      {
        g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

        if (GTK_IS_DROP_TARGET (controller))
          target = GTK_DROP_TARGET (controller);
      }
    g_assert_nonnull (target);
    g_value_init (&value, GDK_TYPE_FILE_LIST);
    g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
    g_signal_emit_by_name (target, "drop", &value, 0.0, 0.0, &accepted);
    g_assert_true (accepted);
    g_value_unset (&value);
    g_slist_free (files);
  }
  gui_wait_files_added (window);
  session = assay_window_get_session (window);
  g_assert_nonnull (session);
  g_assert_cmpuint (assay_session_get_datasets (session)->len, ==, 1);
  dataset = g_ptr_array_index (assay_session_get_datasets (session), 0);
  g_assert_cmpstr (dataset->name, ==, "shop.db");
  g_assert_nonnull (strstr (assay_window_get_last_toast (window), "Added shop.db"));

  /* The model is told its schema and how to open it read-only. */
  gui_wait (datasets_described, window, 60, "the dataset's description");
  dataset = g_ptr_array_index (assay_session_get_datasets (session), 0);
  g_assert_nonnull (strstr (dataset->description, "an SQLite database, at /data/shop.db"));
  g_assert_nonnull (strstr (dataset->description, "immutable=1"));

  /* The Data page: tables and views with their rows, columns with types and keys. */
  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  gui_wait (schema_shown, window, 60, "the database's schema on the Data page");
  page = selected_page (window);
  list = GTK_WIDGET (assay_dataset_page_get_tables_list (page));
  g_assert_cmpuint (gui_count (list, ADW_TYPE_EXPANDER_ROW), ==, 3);
  g_assert_nonnull (gui_find (GTK_WIDGET (page), GTK_TYPE_LABEL, "database: 2 tables, 1 view"));
  orders = find_table_row (list, "orders");
  customers = find_table_row (list, "customers");
  g_assert_nonnull (orders);
  g_assert_nonnull (customers);
  g_assert_nonnull (find_table_row (list, "big_orders"));
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (orders)), ==, "Table · 50 rows");
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (customers)), ==, "Table · 3 rows");
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (find_table_row (list, "big_orders"))), ==, "View");
  {
    GtkWidget *column = gui_find (orders, ADW_TYPE_ACTION_ROW, "customer_id");

    g_assert_nonnull (column);
    g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (column)), ==, "INTEGER · → customers(id)");
    column = gui_find (orders, ADW_TYPE_ACTION_ROW, "amount");
    g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (column)), ==, "NUMERIC(10,2)");
    column = gui_find (customers, ADW_TYPE_ACTION_ROW, "id");
    g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (column)), ==, "INTEGER · primary key");
    column = gui_find (customers, ADW_TYPE_ACTION_ROW, "email");
    g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (column)), ==, "TEXT · not null");
  }

  /* The first table's first rows come at once, read in a worker. */
  g_assert_cmpstr (assay_dataset_page_get_shown_table (page), ==, "customers");
  wanted.window = window;
  wanted.n = 3;
  gui_wait (rows_shown, &wanted, 60, "the first table's rows");
  rows = assay_dataset_page_get_table_rows (page);
  g_assert_cmpstr (cell (rows, 0, 0), ==, "1");
  g_assert_cmpstr (cell (rows, 0, 1), ==, "alice@example.com");
  g_assert_cmpstr (cell (rows, 2, 2), ==, "Tartu");

  /* Choosing another table (its "Show Rows" button) shows its rows. */
  {
    GtkWidget *button = gui_find (orders, GTK_TYPE_BUTTON, NULL);

    g_assert_nonnull (button);
    g_signal_emit_by_name (button, "clicked");
  }
  g_assert_cmpstr (assay_dataset_page_get_shown_table (page), ==, "orders");
  wanted.n = 50;
  gui_wait (rows_shown, &wanted, 60, "the orders' rows");
  rows = assay_dataset_page_get_table_rows (page);
  g_assert_cmpstr (cell (rows, 49, 0), ==, "50");
  g_assert_cmpstr (cell (rows, 0, 2), ==, "7.5");
  view = GTK_WIDGET (assay_dataset_page_get_table_rows_view (page));
  /* The table's four columns, then the empty rest of the width. */
  {
    GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));
    const char *titles[] = { "id", "customer_id", "amount", "placed", NULL };

    g_assert_cmpuint (g_list_model_get_n_items (columns), ==, 5);
    for (guint c = 0; c < 5; c++)
      {
        g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);

        g_assert_cmpstr (gtk_column_view_column_get_title (column), ==, titles[c]);
        g_assert_true (gtk_column_view_column_get_expand (column) == (titles[c] == NULL));
      }
  }
  g_assert_true (gui_find (GTK_WIDGET (page), GTK_TYPE_LABEL, "orders: 50 rows") != NULL);

  /* The column panel profiles a text file's column: a database has its own schema instead. */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (assay_data_preview_get_panel (assay_window_get_data_preview (window)))));

  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (orders), TRUE);
  assay_window_dismiss_toast (window);
  gui_save_screenshot (GTK_WIDGET (window), "sqlite.png");

  gui_close_window (window);
  g_object_set_data (G_OBJECT (settings), "db", NULL);
  g_settings_reset (settings, "provider");
}

static char *
json_literal (const char *text)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);

  return json_to_string (node, FALSE);
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

/* Each request body the fake server logged, as JSON text. */
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

/* The switch of a table's column on the Data page masks it in the session ("shop.db.customers",
 * "email", as for a connection), and a question then sends none of its values, whatever the
 * cell printed with pd.read_sql, while the analyst's record keeps them. */
static void
test_masked_question (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-sqlite-XXXXXX", NULL);
  g_autofree char *path = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *code = NULL;
  g_autofree char *arguments = NULL;
  g_autofree char *script = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GPtrArray) bodies = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  AssayWindow *window;
  AssaySession *session;
  GtkWidget *customers;
  GtkWidget *email;
  GtkWidget *toggle;
  gboolean placeholder = FALSE;

  code = json_literal ("import sqlite3\nimport pandas as pd\n"
                       "con = sqlite3.connect('file:/data/shop.db?mode=ro&immutable=1', uri=True)\n"
                       "print(pd.read_sql('SELECT email, city FROM customers', con).to_string())\n");
  {
    g_autofree char *inner = g_strdup_printf ("{\"code\": %s, \"description\": \"Look\"}", code);

    arguments = json_literal (inner);
  }
  script = g_strdup_printf ("{\"responses\": ["
                            "{\"flavor\": \"openai\", \"turn\": {\"tool_calls\": [{\"name\": \"execute_python\", "
                            "\"arguments\": %s}]}},"
                            "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Three customers.\"}}]}", arguments);
  server = gui_fake_server_start_on (NULL, script, &base_url, &log_path);

  g_settings_set_string (settings, "provider", "openai");
  path = make_shop (dir);
  file = g_file_new_for_path (path);
  window = g_object_ref (assay_window_new (NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  provider = assay_openai_provider_new (base_url, NULL);
  assay_window_set_provider (window, provider, "fake-model", FALSE);
  gui_add_files (window, &file, 1);
  session = assay_window_get_session (window);
  g_assert_nonnull (session);
  assay_conversation_set_auto_run (assay_window_get_conversation (window), TRUE);

  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  gui_wait (schema_shown, window, 60, "the database's schema on the Data page");
  customers = find_table_row (GTK_WIDGET (assay_dataset_page_get_tables_list (selected_page (window))), "customers");
  email = gui_find (customers, ADW_TYPE_ACTION_ROW, "email");
  g_assert_nonnull (email);
  toggle = gui_find (email, GTK_TYPE_SWITCH, NULL);
  g_assert_nonnull (toggle);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (toggle)));
  gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
  g_assert_true (assay_session_is_column_masked (session, "shop.db.customers", "email"));
  g_assert_false (assay_session_is_column_masked (session, "shop.db.customers", "city"));
  g_assert_cmpint (assay_session_get_privacy_mode (session), ==, ASSAY_PRIVACY_MASKED);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (toggle)));

  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), "Who are the customers?");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  gui_wait (is_idle, window, 120, "the question to end");

  bodies = logged_bodies (log_path);
  g_assert_cmpuint (bodies->len, ==, 2);
  for (guint i = 0; i < bodies->len; i++)
    {
      const char *body = g_ptr_array_index (bodies, i);

      if (strstr (body, "@example.com") != NULL)
        g_error ("request %u holds a masked email: %s", i + 1, body);
      placeholder |= strstr (body, "⟨email") != NULL;
    }
  g_assert_true (placeholder);
  /* The city may go, and does. */
  g_assert_nonnull (strstr (g_ptr_array_index (bodies, 1), "Tartu"));
  /* The analyst's record has the real values. */
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);

  gui_close_window (window);
  gui_fake_server_stop (server, log_path);
  g_object_set_data (G_OBJECT (settings), "db", NULL);
  g_settings_reset (settings, "provider");
}

static gboolean
page_settled (gpointer data)
{
  const char *state = assay_dataset_page_get_state (data);

  return g_strcmp0 (state, "database") == 0 || g_strcmp0 (state, "error") == 0;
}

/* By its header, whatever its name: a database without an extension is taken; a file named
 * .db that is none is refused on its page, in words. */
static void
test_names (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-sqlite-XXXXXX", NULL);
  g_autofree char *shop = NULL;
  g_autofree char *plain = g_build_filename (dir, "export", NULL);
  g_autofree char *noise = g_build_filename (dir, "notes.db", NULL);
  g_autofree char *contents = NULL;
  gsize length;
  GFile *files[2];
  AssayWindow *window;
  AssaySession *session;
  AssayDataPreview *preview;
  AssayDatasetPage *page;
  char random[4096];

  g_settings_set_string (settings, "provider", "openai");
  shop = make_shop (dir);
  g_object_set_data (G_OBJECT (settings), "db", NULL);
  g_assert_true (g_file_get_contents (shop, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (plain, contents, (gssize) length, NULL));
  for (gsize i = 0; i < sizeof random; i++)
    random[i] = (char) (i * 7 + 3);
  g_assert_true (g_file_set_contents (noise, random, sizeof random, NULL));

  window = g_object_ref (assay_window_new (NULL));
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  files[0] = g_file_new_for_path (plain);
  files[1] = g_file_new_for_path (noise);
  gui_add_files (window, files, 2);
  session = assay_window_get_session (window);
  g_assert_nonnull (session);
  g_assert_cmpuint (assay_session_get_datasets (session)->len, ==, 2);

  preview = assay_window_get_data_preview (window);
  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  for (guint i = 0; i < 2; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (assay_session_get_datasets (session), i);
      g_autofree char *copy = assay_session_resolve (session, dataset->path);

      page = assay_data_preview_get_page (preview, copy);
      g_assert_nonnull (page);
      gui_wait (page_settled, page, 60, "the file to be read or refused");
      if (g_str_equal (dataset->name, "export"))
        g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "database");
      else
        {
          g_assert_cmpstr (dataset->name, ==, "notes.db");
          g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "error");
          g_test_message ("%s", assay_dataset_page_get_error_message (page));
          g_assert_nonnull (strstr (assay_dataset_page_get_error_message (page), "encrypted"));
        }
    }

  gui_close_window (window);
  g_object_unref (files[0]);
  g_object_unref (files[1]);
  g_settings_reset (settings, "provider");
}

/* The divider between the tables and the rows stays where the analyst dragged it: through
 * widths from 1400 to 400 px, page switches and a lower window (it moved by itself). */
static void
test_divider (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-sqlite-XXXXXX", NULL);
  g_autofree char *path = make_shop (dir);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  AssayWindow *window;
  GtkWidget *paned, *handle = NULL;
  int widths[] = { 1400, 400, 1024, 400, 1280 };
  int dragged;

  g_settings_set_string (settings, "provider", "openai");
  window = g_object_ref (assay_window_new (NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  gui_add_files (window, &file, 1);
  gui_wait_files_added (window);
  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  gui_wait (schema_shown, window, 60, "the database's schema on the Data page");
  gui_spin (500);
  paned = gui_find (GTK_WIDGET (selected_page (window)), GTK_TYPE_PANED, NULL);
  g_assert_nonnull (paned);
  for (GtkWidget *child = gtk_widget_get_first_child (paned); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (child != gtk_paned_get_start_child (GTK_PANED (paned)) && child != gtk_paned_get_end_child (GTK_PANED (paned)))
      handle = child;
  g_assert_nonnull (handle);

  dragged = gtk_paned_get_position (GTK_PANED (paned));
  gui_drag (handle, 0, 80);
  g_test_message ("divider at %d, dragged to %d", dragged, gtk_paned_get_position (GTK_PANED (paned)));
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (paned)), >=, dragged + 60);
  dragged = gtk_paned_get_position (GTK_PANED (paned));

  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 800);
      gui_spin (600);
      g_assert_cmpint (gtk_paned_get_position (GTK_PANED (paned)), ==, dragged);
    }
  adw_view_stack_set_visible_child_name (window->view_stack, "chat");
  gui_spin (400);
  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  gui_spin (400);
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (paned)), ==, dragged);
  /* Lower, then as high again: the rows gave way, the tables keep their height. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 620);
  gui_spin (600);
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (paned)), ==, dragged);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gui_spin (600);
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (paned)), ==, dragged);
  gui_assert_laid_out (GTK_WIDGET (window));
  gui_save_screenshot (GTK_WIDGET (window), "sqlite-divider.png");
  /* The rows fill their window's width: a scroll range that ended short of it left the
   * edge's overshoot glow drawn over the rows. */
  {
    GtkAdjustment *hadjustment = gtk_scrollable_get_hadjustment (
      GTK_SCROLLABLE (assay_dataset_page_get_table_rows_view (selected_page (window))));

    g_assert_cmpfloat (gtk_adjustment_get_upper (hadjustment), >=, gtk_adjustment_get_page_size (hadjustment));
  }

  gui_close_window (window);
}

int
main (int   argc,
      char *argv[])
{
  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_test_add_func ("/app/sqlite/drop", test_drop_sqlite);
  g_test_add_func ("/app/sqlite/masked-question", test_masked_question);
  g_test_add_func ("/app/sqlite/names", test_names);
  g_test_add_func ("/app/sqlite/divider", test_divider);
  {
    int status = g_test_run ();

    g_object_unref (settings);
    return status;
  }
}
