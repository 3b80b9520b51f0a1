/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Connect to a Database". The fields make a connection URL (assay-source-url reads and
 * writes it: a URL pasted is read into the fields, its password into the password row); Test
 * Connection opens an AssaySource with them and lists its tables in workers (the source's
 * own); Connect hands the tested source to the conversation. What was tested is kept with
 * the URL and password it was tested with: change either and Connect waits for another
 * test. Passwords are wiped from memory when let go of. */
#define G_LOG_DOMAIN "Assay-Databases"

#include "config.h"

#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include <string.h>

#include "assay-connect-dialog.h"
#include "assay-conversation.h"
#include "assay-keyring.h"
#include "assay-source-url.h"

/* A table or view the test listed, with the check that picks it. */
typedef struct
{
  char           *qualified;
  GtkWidget      *row;
  GtkCheckButton *check;
} TableRow;

struct _AssayConnectDialog
{
  AdwWindow            parent_instance;

  AdwWindowTitle      *window_title;
  GtkWidget           *connect_button;
  GtkScrolledWindow   *scroller;
  AdwComboRow         *kind_row;
  AdwEntryRow         *host_row;
  AdwEntryRow         *port_row;
  AdwEntryRow         *database_row;
  AdwEntryRow         *user_row;
  AdwEntryRow         *password_row;
  AdwComboRow         *tls_row;
  AdwActionRow        *file_row;
  AdwEntryRow         *name_row;
  AdwEntryRow         *url_row;
  GtkWidget           *test_button;
  GtkSpinner          *spinner;
  GtkLabel            *status_label;
  GtkCheckButton      *risk_check;
  AdwPreferencesGroup *tables_group;
  GtkListBox          *tables_list;

  AssayConversation   *conversation;
  AssayConnection     *editing;          /* the connection edited, or NULL */
  GFile               *file;             /* the SQLite file */
  GPtrArray           *extra_keys;       /* a pasted URL's parameters that no field shows */
  GPtrArray           *extra_values;
  GPtrArray           *tables;           /* TableRow* */
  char               **picked_before;    /* editing: the tables picked before (NULL: all) */
  guint                n_more;           /* tables there beyond those listed */

  GCancellable        *test_cancellable; /* the test in flight */
  AssaySource         *candidate;        /* being tested */
  char                *candidate_url;
  char                *candidate_typed;  /* the password typed for it; "" none */
  char                *candidate_password; /* what it connects with (typed, or the keyring's) */
  AssaySource         *tested;           /* passed the test as the fields stood then */
  char                *tested_url;
  char                *tested_typed;
  char                *tested_password;
  gboolean             testing;
  gboolean             status_error;
  gboolean             filling;          /* the fields are set by the dialog, not typed */
  gboolean             name_edited;      /* the analyst typed a name: it stays */
  GtkNativeDialog     *chooser;          /* GTK 4.8: the file chooser shown, or NULL */
  gboolean             choosing;         /* GTK 4.10: GtkFileDialog is open */
  GCancellable        *file_cancellable; /* closes it with the dialog */
  guint                reveal_tick;      /* the tables scrolled into sight at the next frame */
  guint                reveal_frames;
};

G_DEFINE_FINAL_TYPE (AssayConnectDialog, assay_connect_dialog, ADW_TYPE_WINDOW)

static void assay_connect_dialog_update (AssayConnectDialog *self);

static void
table_row_free (TableRow *table)
{
  g_free (table->qualified);
  g_free (table);
}

/* A password let go of is wiped first. */
static void
assay_connect_dialog_forget_password (char **password)
{
  g_clear_pointer (password, secret_password_free);
}

static AssaySourceKind
assay_connect_dialog_get_kind (AssayConnectDialog *self)
{
  switch (adw_combo_row_get_selected (self->kind_row))
    {
    case 1: return ASSAY_SOURCE_MYSQL;
    case 2: return ASSAY_SOURCE_SQLITE;
    case 0:
    default:
      return ASSAY_SOURCE_POSTGRESQL;
    }
}

static const char *
assay_connect_dialog_text (AdwEntryRow *row)
{
  return gtk_editable_get_text (GTK_EDITABLE (row));
}

static void
assay_connect_dialog_set_text (AssayConnectDialog *self,
                               AdwEntryRow        *row,
                               const char         *text)
{
  self->filling = TRUE;
  gtk_editable_set_text (GTK_EDITABLE (row), text != NULL ? text : "");
  self->filling = FALSE;
}

/* ---- TLS: one list of modes, each server's spelling ------------------------------------- */

static const char *const pg_tls_modes[] = { NULL, "disable", "prefer", "require", "verify-ca", "verify-full" };
static const char *const mysql_tls_modes[] = { NULL, "disabled", "preferred", "required", "verify_ca",
                                               "verify_identity" };

static guint
assay_connect_dialog_tls_from_param (const char *value)
{
  static const char *const other[] = { NULL, "disabled", "allow", "required", "verify-ca", "verify_full" };

  for (guint i = 1; value != NULL && i < G_N_ELEMENTS (pg_tls_modes); i++)
    if (g_ascii_strcasecmp (value, pg_tls_modes[i]) == 0 || g_ascii_strcasecmp (value, mysql_tls_modes[i]) == 0 ||
        g_ascii_strcasecmp (value, other[i]) == 0)
      return i;
  return 0;
}

/* ---- the URL ------------------------------------------------------------------------------ */

static gboolean
assay_connect_dialog_is_tls_key (const char *key)
{
  return g_strcmp0 (key, "sslmode") == 0 || g_strcmp0 (key, "ssl-mode") == 0;
}

char *
assay_connect_dialog_dup_url (AssayConnectDialog  *self,
                              GError             **error)
{
  g_autoptr(AssaySourceUrl) url = g_new0 (AssaySourceUrl, 1);
  g_autofree char *host = g_strstrip (g_strdup (assay_connect_dialog_text (self->host_row)));
  g_autofree char *port = g_strstrip (g_strdup (assay_connect_dialog_text (self->port_row)));
  g_autofree char *database = g_strstrip (g_strdup (assay_connect_dialog_text (self->database_row)));
  g_autofree char *user = g_strstrip (g_strdup (assay_connect_dialog_text (self->user_row)));
  guint tls = adw_combo_row_get_selected (self->tls_row);

  g_return_val_if_fail (ASSAY_IS_CONNECT_DIALOG (self), NULL);

  url->kind = assay_connect_dialog_get_kind (self);
  url->keys = g_ptr_array_new_with_free_func (g_free);
  url->values = g_ptr_array_new_with_free_func (g_free);
  if (url->kind == ASSAY_SOURCE_SQLITE)
    {
      url->scheme = g_strdup ("sqlite");
      url->path = self->file != NULL ? g_file_get_path (self->file) : NULL;
      if (url->path == NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Choose the SQLite file first"));
          return NULL;
        }
      return assay_source_url_to_display (url);
    }

  url->scheme = g_strdup (url->kind == ASSAY_SOURCE_MYSQL ? "mysql" : "postgresql");
  if (*port != '\0' && !g_ascii_string_to_unsigned (port, 10, 1, 65535, NULL, NULL))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The port is a number from 1 to 65535, or empty for the default"));
      return NULL;
    }
  if (*database == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Name the database to connect to"));
      return NULL;
    }
  url->user = *user != '\0' ? g_strdup (user) : NULL;
  url->database = g_strdup (database);
  /* A folder (PostgreSQL) or socket file (MySQL) of a server on this computer. */
  if (host[0] == '/')
    {
      g_ptr_array_add (url->keys, g_strdup (url->kind == ASSAY_SOURCE_MYSQL ? "socket" : "host"));
      g_ptr_array_add (url->values, g_strdup (host));
      if (*port != '\0' && url->kind == ASSAY_SOURCE_POSTGRESQL)
        {
          g_ptr_array_add (url->keys, g_strdup ("port"));
          g_ptr_array_add (url->values, g_strdup (port));
        }
    }
  else
    {
      url->host = *host != '\0' ? g_strdup (host) : NULL;
      url->port = *port != '\0' ? g_strdup (port) : NULL;
    }
  if (tls > 0 && tls < G_N_ELEMENTS (pg_tls_modes))
    {
      g_ptr_array_add (url->keys, g_strdup (url->kind == ASSAY_SOURCE_MYSQL ? "ssl-mode" : "sslmode"));
      g_ptr_array_add (url->values, g_strdup (url->kind == ASSAY_SOURCE_MYSQL ? mysql_tls_modes[tls]
                                                                               : pg_tls_modes[tls]));
    }
  for (guint i = 0; i < self->extra_keys->len; i++)
    {
      g_ptr_array_add (url->keys, g_strdup (g_ptr_array_index (self->extra_keys, i)));
      g_ptr_array_add (url->values, g_strdup (g_ptr_array_index (self->extra_values, i)));
    }
  return assay_source_url_to_display (url);
}

/* A name the model can write in run_sql, from the database's or the file's. */
static char *
assay_connect_dialog_suggest_name (const char *from)
{
  GString *name = g_string_new (NULL);

  for (const char *p = from; p != NULL && *p != '\0' && name->len < 40; p++)
    {
      if (g_ascii_isalnum (*p))
        g_string_append_c (name, g_ascii_tolower (*p));
      else if (name->len > 0 && name->str[name->len - 1] != '_')
        g_string_append_c (name, '_');
    }
  while (name->len > 0 && name->str[name->len - 1] == '_')
    g_string_truncate (name, name->len - 1);
  if (name->len == 0)
    g_string_assign (name, "db");
  else if (g_ascii_isdigit (name->str[0]))
    g_string_prepend (name, "db_");
  return g_string_free (name, FALSE);
}

static void
assay_connect_dialog_suggest (AssayConnectDialog *self)
{
  g_autofree char *stem = NULL;
  g_autofree char *name = NULL;

  if (self->name_edited || self->editing != NULL)
    return;
  if (assay_connect_dialog_get_kind (self) == ASSAY_SOURCE_SQLITE)
    {
      g_autofree char *base = self->file != NULL ? g_file_get_basename (self->file) : NULL;
      char *dot = base != NULL ? strrchr (base, '.') : NULL;

      if (dot != NULL && dot != base)
        *dot = '\0';
      stem = g_steal_pointer (&base);
    }
  else
    stem = g_strdup (assay_connect_dialog_text (self->database_row));
  if (stem == NULL || *stem == '\0')
    return;
  name = assay_connect_dialog_suggest_name (stem);
  assay_connect_dialog_set_text (self, self->name_row, name);
}

/* The fields from URL; its password goes to the password row. */
static void
assay_connect_dialog_fill (AssayConnectDialog   *self,
                           const AssaySourceUrl *url)
{
  const char *host = url->host;
  const char *port = url->port;
  guint tls = 0;

  g_ptr_array_set_size (self->extra_keys, 0);
  g_ptr_array_set_size (self->extra_values, 0);
  self->filling = TRUE;
  adw_combo_row_set_selected (self->kind_row, url->kind == ASSAY_SOURCE_MYSQL ? 1 :
                                              url->kind == ASSAY_SOURCE_SQLITE ? 2 : 0);
  self->filling = FALSE;
  if (url->kind == ASSAY_SOURCE_SQLITE)
    {
      g_autoptr(GFile) file = url->path != NULL ? g_file_new_for_path (url->path) : NULL;

      assay_connect_dialog_set_file (self, file);
      return;
    }
  for (guint i = 0; i < url->keys->len; i++)
    {
      const char *key = g_ptr_array_index (url->keys, i);
      const char *value = g_ptr_array_index (url->values, i);

      if ((g_str_equal (key, "host") || g_str_equal (key, "socket")) && value[0] == '/')
        host = value;
      else if (g_str_equal (key, "port") && url->kind == ASSAY_SOURCE_POSTGRESQL)
        port = value;
      else if (assay_connect_dialog_is_tls_key (key))
        tls = assay_connect_dialog_tls_from_param (value);
      else
        {
          g_ptr_array_add (self->extra_keys, g_strdup (key));
          g_ptr_array_add (self->extra_values, g_strdup (value));
        }
    }
  assay_connect_dialog_set_text (self, self->host_row, host);
  assay_connect_dialog_set_text (self, self->port_row, port);
  assay_connect_dialog_set_text (self, self->user_row, url->user);
  assay_connect_dialog_set_text (self, self->database_row, url->database);
  if (url->password != NULL)
    assay_connect_dialog_set_text (self, self->password_row, url->password);
  self->filling = TRUE;
  adw_combo_row_set_selected (self->tls_row, tls);
  self->filling = FALSE;
  assay_connect_dialog_suggest (self);
  assay_connect_dialog_update (self);
}

static void
assay_connect_dialog_set_status (AssayConnectDialog *self,
                                 const char         *text,
                                 gboolean            error)
{
  self->status_error = error;
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "warning");
  gtk_label_set_text (self->status_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), text != NULL);
  if (error)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "success");
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "success");
    }
}

static void
assay_connect_dialog_url_applied_cb (AssayConnectDialog *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySourceUrl) url = assay_source_url_parse (assay_connect_dialog_text (self->url_row), &error);
  g_autofree char *shown = NULL;

  if (url == NULL)
    {
      assay_connect_dialog_set_status (self, error->message, TRUE);
      return;
    }
  assay_connect_dialog_fill (self, url);
  /* The password is in its own row now, shown as dots; the URL row keeps the rest. */
  shown = assay_source_url_to_display (url);
  assay_connect_dialog_set_text (self, self->url_row, shown);
  assay_connect_dialog_set_status (self, NULL, FALSE);
}

/* A URL pasted with its password is read at once: the password leaves the screen for the
 * password row's dots. */
static void
assay_connect_dialog_url_changed_cb (AssayConnectDialog *self)
{
  g_autoptr(AssaySourceUrl) url = NULL;

  if (self->filling || strstr (assay_connect_dialog_text (self->url_row), "://") == NULL)
    return;
  url = assay_source_url_parse (assay_connect_dialog_text (self->url_row), NULL);
  if (url != NULL && url->password != NULL)
    assay_connect_dialog_url_applied_cb (self);
}

/* ---- what the fields show --------------------------------------------------------------- */

static void
assay_connect_dialog_show_kind (AssayConnectDialog *self)
{
  gboolean file = assay_connect_dialog_get_kind (self) == ASSAY_SOURCE_SQLITE;

  gtk_widget_set_visible (GTK_WIDGET (self->host_row), !file);
  gtk_widget_set_visible (GTK_WIDGET (self->port_row), !file);
  gtk_widget_set_visible (GTK_WIDGET (self->database_row), !file);
  gtk_widget_set_visible (GTK_WIDGET (self->user_row), !file);
  gtk_widget_set_visible (GTK_WIDGET (self->password_row), !file);
  gtk_widget_set_visible (GTK_WIDGET (self->tls_row), !file);
  gtk_widget_set_visible (GTK_WIDGET (self->file_row), file);
}

static gboolean
assay_connect_dialog_any_picked (AssayConnectDialog *self)
{
  for (guint i = 0; i < self->tables->len; i++)
    if (gtk_check_button_get_active (((TableRow *) g_ptr_array_index (self->tables, i))->check))
      return TRUE;
  return FALSE;
}

/* The one place that decides what can be done. */
static void
assay_connect_dialog_update (AssayConnectDialog *self)
{
  g_autofree char *url = assay_connect_dialog_dup_url (self, NULL);
  const char *typed = assay_connect_dialog_text (self->password_row);
  gboolean current = self->tested != NULL && url != NULL && g_strcmp0 (url, self->tested_url) == 0 &&
                     g_strcmp0 (typed, self->tested_typed) == 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "connect.test", !self->testing && url != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "connect.connect",
                                 !self->testing && current && assay_connect_dialog_any_picked (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "connect.pick-all", self->tables->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), self->testing);
  gtk_spinner_set_spinning (self->spinner, self->testing);
}

static void
assay_connect_dialog_field_changed_cb (AssayConnectDialog *self)
{
  if (!self->filling)
    assay_connect_dialog_suggest (self);
  assay_connect_dialog_update (self);
}

static void
assay_connect_dialog_name_changed_cb (AssayConnectDialog *self)
{
  if (!self->filling)
    self->name_edited = TRUE;
}

static void
assay_connect_dialog_kind_changed_cb (AssayConnectDialog *self)
{
  assay_connect_dialog_show_kind (self);
  if (!self->filling)
    assay_connect_dialog_suggest (self);
  assay_connect_dialog_update (self);
}

void
assay_connect_dialog_set_file (AssayConnectDialog *self,
                               GFile              *file)
{
  g_autofree char *path = NULL;

  g_return_if_fail (ASSAY_IS_CONNECT_DIALOG (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));
  g_set_object (&self->file, file);
  path = file != NULL ? g_file_get_path (file) : NULL;
  adw_action_row_set_subtitle (self->file_row, path != NULL ? path : _("None chosen"));
  assay_connect_dialog_suggest (self);
  assay_connect_dialog_update (self);
}

/* ---- the tables ------------------------------------------------------------------------- */

static void
assay_connect_dialog_clear_tables (AssayConnectDialog *self)
{
  for (guint i = 0; i < self->tables->len; i++)
    gtk_list_box_remove (self->tables_list, ((TableRow *) g_ptr_array_index (self->tables, i))->row);
  g_ptr_array_set_size (self->tables, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->tables_group), FALSE);
}

static gboolean
assay_connect_dialog_was_picked (AssayConnectDialog     *self,
                                 const AssaySourceTable *table)
{
  if (self->picked_before == NULL)
    return TRUE;
  for (guint i = 0; self->picked_before[i] != NULL; i++)
    if (g_strcmp0 (self->picked_before[i], table->qualified) == 0 ||
        g_strcmp0 (self->picked_before[i], table->name) == 0)
      return TRUE;
  return FALSE;
}

static char *
assay_connect_dialog_describe_table (const AssaySourceTable *table)
{
  g_autofree char *rows = NULL;
  g_autofree char *count = NULL;
  const char *kind = table->view ? _("view") : _("table");
  guint n_columns = table->columns->len;

  if (table->rows >= 0)
    {
      gulong n = (gulong) table->rows;

      count = g_strdup_printf ("%'" G_GINT64_FORMAT, table->rows);
      rows = table->rows_exact
             ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s row", "%s rows", n), count)
             : g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "about %s row", "about %s rows", n), count);
    }
  /* Translators: a table in the connect dialog: "table · about 2,000 rows · 4 columns". */
  return rows != NULL
         ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %s · %u column", "%s · %s · %u columns", n_columns),
                            kind, rows, n_columns)
         : g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %u column", "%s · %u columns", n_columns),
                            kind, n_columns);
}

static void
assay_connect_dialog_check_toggled_cb (AssayConnectDialog *self)
{
  assay_connect_dialog_update (self);
}

static void
assay_connect_dialog_show_tables (AssayConnectDialog *self,
                                  AssaySourceSchema  *schema)
{
  assay_connect_dialog_clear_tables (self);
  self->n_more = schema->n_more;
  for (guint i = 0; i < schema->tables->len; i++)
    {
      const AssaySourceTable *source_table = g_ptr_array_index (schema->tables, i);
      TableRow *table = g_new0 (TableRow, 1);
      g_autofree char *subtitle = assay_connect_dialog_describe_table (source_table);

      table->qualified = g_strdup (source_table->qualified);
      table->row = adw_action_row_new ();
      /* Names from the server are text, never markup. */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (table->row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (table->row), source_table->qualified);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (table->row), subtitle);
      table->check = GTK_CHECK_BUTTON (gtk_check_button_new ());
      gtk_widget_set_valign (GTK_WIDGET (table->check), GTK_ALIGN_CENTER);
      gtk_check_button_set_active (table->check, assay_connect_dialog_was_picked (self, source_table));
      gtk_accessible_update_property (GTK_ACCESSIBLE (table->check), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      source_table->qualified, -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (table->row), GTK_WIDGET (table->check));
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (table->row), GTK_WIDGET (table->check));
      g_signal_connect_object (table->check, "toggled", G_CALLBACK (assay_connect_dialog_check_toggled_cb), self,
                               G_CONNECT_SWAPPED);
      gtk_list_box_append (self->tables_list, table->row);
      g_ptr_array_add (self->tables, table);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->tables_group), TRUE);
}

/* ---- testing ------------------------------------------------------------------------------ */

static void
assay_connect_dialog_end_test (AssayConnectDialog *self)
{
  self->testing = FALSE;
  g_clear_object (&self->test_cancellable);
  g_clear_object (&self->candidate);
  g_clear_pointer (&self->candidate_url, g_free);
  assay_connect_dialog_forget_password (&self->candidate_typed);
  assay_connect_dialog_forget_password (&self->candidate_password);
  assay_connect_dialog_update (self);
}

/* The status line and the tables at the top of the view, as far as it scrolls. */
static gboolean
assay_connect_dialog_reveal_cb (GtkWidget     *scroller,
                                GdkFrameClock *clock,
                                gpointer       user_data)
{
  AssayConnectDialog *self = user_data;
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);
  GtkWidget *content = gtk_scrolled_window_get_child (self->scroller);
  double bottom = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);
  graphene_point_t top;

  if (content == NULL || !gtk_widget_get_visible (GTK_WIDGET (self->status_label)) ||
      !gtk_widget_compute_point (GTK_WIDGET (self->status_label), content, &GRAPHENE_POINT_INIT (0, 0), &top))
    {
      self->reveal_tick = 0;
      return G_SOURCE_REMOVE;
    }
  gtk_adjustment_set_value (adjustment, MIN (top.y - 12, bottom));
  /* A tick comes before its frame's layout: the list just shown may not be in the range yet,
   * so again at the next frame until it is (a few at most). */
  if (top.y - 12 > bottom && ++self->reveal_frames < 10)
    return G_SOURCE_CONTINUE;
  self->reveal_tick = 0;
  return G_SOURCE_REMOVE;
}

static void
assay_connect_dialog_reveal (AssayConnectDialog *self)
{
  self->reveal_frames = 0;
  if (self->reveal_tick == 0)
    self->reveal_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self->scroller), assay_connect_dialog_reveal_cb,
                                                      self, NULL);
}

static void
assay_connect_dialog_described_cb (GObject      *object,
                                   GAsyncResult *result,
                                   gpointer      user_data)
{
  g_autoptr(AssayConnectDialog) self = user_data;
  g_autoptr(AssaySourceSchema) schema = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *powers = NULL;
  guint n;

  schema = assay_source_describe_finish (ASSAY_SOURCE (object), result, &error);
  if (self->candidate != ASSAY_SOURCE (object) || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (schema == NULL)
    {
      assay_connect_dialog_set_status (self, error->message, TRUE);
      assay_connect_dialog_end_test (self);
      return;
    }
  /* What passed, as the fields stood. */
  g_set_object (&self->tested, self->candidate);
  g_free (self->tested_url);
  self->tested_url = g_strdup (self->candidate_url);
  assay_connect_dialog_forget_password (&self->tested_typed);
  self->tested_typed = g_strdup (self->candidate_typed);
  assay_connect_dialog_forget_password (&self->tested_password);
  self->tested_password = g_strdup (self->candidate_password);

  n = schema->tables->len + schema->n_more;
  if (n == 0)
    /* Translators: %s is the server, "PostgreSQL 15.4". */
    text = g_strdup_printf (_("Connected to %s, but this login sees no table or view"),
                            assay_source_get_server (self->tested));
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected to %s: %u table or view",
                                         "Connected to %s: %u tables and views", n),
                            assay_source_get_server (self->tested), n);
  powers = assay_source_dup_powers (self->tested);
  if (powers != NULL)
    {
      g_autofree char *plain = g_steal_pointer (&text);

      /* Translators: after "Connected to PostgreSQL 15.4: 7 tables and views"; %s is what the
       * login can do beyond reading, "superuser". */
      text = g_strdup_printf (_("%s. This login can do more than read (%s): risk accepted"), plain, powers);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->risk_check), powers != NULL);
  assay_connect_dialog_set_status (self, text, FALSE);
  if (powers != NULL)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "success");
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "warning");
    }
  assay_connect_dialog_show_tables (self, schema);
  assay_connect_dialog_end_test (self);
  /* On to the pick: in sight once the list is laid out. */
  if (self->tables->len > 0)
    gtk_widget_grab_focus (GTK_WIDGET (((TableRow *) g_ptr_array_index (self->tables, 0))->check));
  assay_connect_dialog_reveal (self);
}

static void
assay_connect_dialog_opened_cb (GObject      *object,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  g_autoptr(AssayConnectDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean opened = assay_source_open_finish (ASSAY_SOURCE (object), result, &error);

  if (self->candidate != ASSAY_SOURCE (object) || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (!opened)
    {
      /* The server's own words: refused, wrong password, unknown database, TLS. */
      assay_connect_dialog_set_status (self, error->message, TRUE);
      /* A login that can do more than read: the analyst may still choose it, knowingly. */
      if (g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_PRIVILEGED))
        {
          gtk_widget_set_visible (GTK_WIDGET (self->risk_check), TRUE);
          assay_connect_dialog_reveal (self);
        }
      assay_connect_dialog_end_test (self);
      return;
    }
  /* Every table and view the login may read, without values: the analyst picks. */
  assay_source_set_tables (self->candidate, NULL);
  assay_source_describe_async (self->candidate, 0, self->test_cancellable, assay_connect_dialog_described_cb,
                               g_object_ref (self));
}

static void
assay_connect_dialog_open_candidate (AssayConnectDialog *self)
{
  assay_source_set_password (self->candidate, self->candidate_password);
  assay_source_open_async (self->candidate, self->test_cancellable, assay_connect_dialog_opened_cb,
                           g_object_ref (self));
}

static void
assay_connect_dialog_password_found_cb (GObject      *object,
                                        GAsyncResult *result,
                                        gpointer      user_data)
{
  g_autoptr(AssayConnectDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  char *password = assay_keyring_lookup_password_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->candidate == NULL)
    {
      secret_password_free (password);
      return;
    }
  if (error != NULL)
    g_debug ("no password from the keyring: %s", error->message);
  self->candidate_password = password;
  assay_connect_dialog_open_candidate (self);
}

static void
assay_connect_dialog_test (AssayConnectDialog *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  const char *name = assay_connect_dialog_text (self->name_row);
  const char *typed = assay_connect_dialog_text (self->password_row);

  if (self->test_cancellable != NULL)
    g_cancellable_cancel (self->test_cancellable);
  assay_connect_dialog_end_test (self);
  url = assay_connect_dialog_dup_url (self, &error);
  if (url == NULL)
    {
      assay_connect_dialog_set_status (self, error->message, TRUE);
      return;
    }
  self->candidate = assay_source_new (assay_source_name_is_valid (name) ? name : "db", url, &error);
  if (self->candidate == NULL)
    {
      assay_connect_dialog_set_status (self, error->message, TRUE);
      return;
    }
  assay_source_set_accept_risk (self->candidate, gtk_widget_get_visible (GTK_WIDGET (self->risk_check)) &&
                                                gtk_check_button_get_active (self->risk_check));
  self->candidate_url = g_steal_pointer (&url);
  self->candidate_typed = g_strdup (typed);
  self->test_cancellable = g_cancellable_new ();
  self->testing = TRUE;
  /* Translators: while Test Connection runs. */
  assay_connect_dialog_set_status (self, _("Connecting…"), FALSE);
  assay_connect_dialog_update (self);
  if (*typed != '\0' || assay_source_get_kind (self->candidate) == ASSAY_SOURCE_SQLITE)
    {
      self->candidate_password = *typed != '\0' ? g_strdup (typed) : NULL;
      assay_connect_dialog_open_candidate (self);
      return;
    }
  /* Nothing typed: the keyring's, when this connection has one. */
  assay_keyring_lookup_password_async (assay_source_get_display_url (self->candidate), self->test_cancellable,
                                       assay_connect_dialog_password_found_cb, g_object_ref (self));
}

/* Accepting the risk tests the connection again with it; withdrawing it forgets the test. */
static void
assay_connect_dialog_risk_toggled_cb (AssayConnectDialog *self)
{
  if (!gtk_widget_get_visible (GTK_WIDGET (self->risk_check)))
    return;
  /* What was tested under the other choice cannot be connected any more. */
  g_clear_object (&self->tested);
  assay_connect_dialog_test (self);
}

static void
assay_connect_dialog_test_action (GtkWidget  *widget,
                                  const char *action_name,
                                  GVariant   *parameter)
{
  assay_connect_dialog_test (ASSAY_CONNECT_DIALOG (widget));
}

/* ---- connecting ----------------------------------------------------------------------------- */

static void
assay_connect_dialog_connect_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *parameter)
{
  AssayConnectDialog *self = ASSAY_CONNECT_DIALOG (widget);
  g_autoptr(GPtrArray) picked = g_ptr_array_new ();
  g_autoptr(AssaySource) source = NULL;
  g_autoptr(GError) error = NULL;
  const char *name = assay_connect_dialog_text (self->name_row);
  const char *typed;
  AssayConnection *existing;
  gboolean all = self->n_more == 0;

  if (self->tested == NULL || self->testing)
    return;
  if (!assay_source_name_is_valid (name))
    {
      assay_connect_dialog_set_status (self, _("The name for the model takes letters, digits and underscores, and "
                                               "does not start with a digit"), TRUE);
      gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
      return;
    }
  existing = assay_conversation_find_connection (self->conversation, name);
  if (existing != NULL && existing != self->editing)
    {
      g_autofree char *text = g_strdup_printf (_("The session has a database named %s already; choose another "
                                                 "name"), name);

      assay_connect_dialog_set_status (self, text, TRUE);
      gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
      return;
    }

  for (guint i = 0; i < self->tables->len; i++)
    {
      TableRow *table = g_ptr_array_index (self->tables, i);

      if (gtk_check_button_get_active (table->check))
        g_ptr_array_add (picked, table->qualified);
      else
        all = FALSE;
    }
  g_ptr_array_add (picked, NULL);

  /* The source tested carries the name it was tested under. */
  if (g_str_equal (assay_source_get_name (self->tested), name))
    source = g_object_ref (self->tested);
  else
    {
      source = assay_source_new (name, self->tested_url, &error);
      if (source == NULL)
        {
          assay_connect_dialog_set_status (self, error->message, TRUE);
          return;
        }
      assay_source_set_password (source, self->tested_password);
      assay_source_set_accept_risk (source, assay_source_get_accept_risk (self->tested));
    }
  /* Every table listed picked: all of them, also those made later. */
  assay_source_set_tables (source, all ? NULL : (const char * const *) picked->pdata);

  /* A password typed is kept in the keyring; one that came from there is there already. */
  typed = self->tested_typed != NULL && *self->tested_typed != '\0' ? self->tested_typed : NULL;
  if (!assay_conversation_add_source (self->conversation, source, typed, &error))
    {
      assay_connect_dialog_set_status (self, error->message, TRUE);
      return;
    }
  gtk_window_close (GTK_WINDOW (self));
}

static void
assay_connect_dialog_pick_all_action (GtkWidget  *widget,
                                      const char *action_name,
                                      GVariant   *parameter)
{
  AssayConnectDialog *self = ASSAY_CONNECT_DIALOG (widget);

  for (guint i = 0; i < self->tables->len; i++)
    gtk_check_button_set_active (((TableRow *) g_ptr_array_index (self->tables, i))->check, TRUE);
}

/* ---- the SQLite file ------------------------------------------------------------------------ */

#if !GTK_CHECK_VERSION (4, 10, 0)
static void
assay_connect_dialog_chooser_response_cb (GtkNativeDialog    *chooser,
                                          int                 response,
                                          AssayConnectDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      if (file != NULL)
        assay_connect_dialog_set_file (self, file);
    }
  gtk_native_dialog_destroy (chooser);
  g_clear_object (&self->chooser);
}
#endif

static void
assay_connect_dialog_file_filters (GtkFileFilter **sqlite,
                                   GtkFileFilter **any)
{
  *sqlite = gtk_file_filter_new ();
  gtk_file_filter_set_name (*sqlite, _("SQLite databases"));
  gtk_file_filter_add_mime_type (*sqlite, "application/vnd.sqlite3");
  gtk_file_filter_add_mime_type (*sqlite, "application/x-sqlite3");
  gtk_file_filter_add_suffix (*sqlite, "sqlite");
  gtk_file_filter_add_suffix (*sqlite, "sqlite3");
  gtk_file_filter_add_suffix (*sqlite, "db");
  *any = gtk_file_filter_new ();
  gtk_file_filter_set_name (*any, _("All files"));
  gtk_file_filter_add_pattern (*any, "*");
}

#if GTK_CHECK_VERSION (4, 10, 0)
static void
assay_connect_dialog_file_chosen_cb (GObject      *object,
                                     GAsyncResult *result,
                                     gpointer      user_data)
{
  g_autoptr(AssayConnectDialog) self = user_data;
  g_autoptr(GFile) file = gtk_file_dialog_open_finish (GTK_FILE_DIALOG (object), result, NULL);

  self->choosing = FALSE;
  if (file != NULL && !gtk_widget_in_destruction (GTK_WIDGET (self)))
    assay_connect_dialog_set_file (self, file);
}
#endif

static void
assay_connect_dialog_choose_file_action (GtkWidget  *widget,
                                         const char *action_name,
                                         GVariant   *parameter)
{
  AssayConnectDialog *self = ASSAY_CONNECT_DIALOG (widget);
  g_autoptr(GtkFileFilter) sqlite = NULL;
  g_autoptr(GtkFileFilter) any = NULL;

  if (self->chooser != NULL || self->choosing)
    return;
  assay_connect_dialog_file_filters (&sqlite, &any);
#if GTK_CHECK_VERSION (4, 10, 0)
  {
    g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
    g_autoptr(GListStore) filters = g_list_store_new (GTK_TYPE_FILE_FILTER);

    g_list_store_append (filters, sqlite);
    g_list_store_append (filters, any);
    gtk_file_dialog_set_title (dialog, _("Choose an SQLite File"));
    gtk_file_dialog_set_accept_label (dialog, _("_Choose"));
    gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (filters));
    self->choosing = TRUE;
    gtk_file_dialog_open (dialog, GTK_WINDOW (self), self->file_cancellable, assay_connect_dialog_file_chosen_cb,
                          g_object_ref (self));
  }
#else
  {
    GtkFileChooserNative *chooser = gtk_file_chooser_native_new (_("Choose an SQLite File"), GTK_WINDOW (self),
                                                                 GTK_FILE_CHOOSER_ACTION_OPEN, _("_Choose"),
                                                                 _("_Cancel"));

    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), sqlite);
    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), any);
    self->chooser = GTK_NATIVE_DIALOG (chooser);
    g_signal_connect_object (chooser, "response", G_CALLBACK (assay_connect_dialog_chooser_response_cb), self, 0);
    gtk_native_dialog_show (self->chooser);
  }
#endif
}

/* ---- GObject ------------------------------------------------------------------------------- */

static void
assay_connect_dialog_map (GtkWidget *widget)
{
  AssayConnectDialog *self = ASSAY_CONNECT_DIALOG (widget);

  GTK_WIDGET_CLASS (assay_connect_dialog_parent_class)->map (widget);
  /* Editing: its tables listed (and its pick checked) at once. */
  if (self->editing != NULL && self->tested == NULL && !self->testing)
    assay_connect_dialog_test (self);
}

static void
assay_connect_dialog_dispose (GObject *object)
{
  AssayConnectDialog *self = ASSAY_CONNECT_DIALOG (object);

  if (self->test_cancellable != NULL)
    g_cancellable_cancel (self->test_cancellable);
  g_cancellable_cancel (self->file_cancellable);
  if (self->reveal_tick != 0 && self->scroller != NULL)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->scroller), self->reveal_tick);
  self->reveal_tick = 0;
  if (self->chooser != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->chooser, self);
      gtk_native_dialog_destroy (self->chooser);
      g_clear_object (&self->chooser);
    }
  /* What was typed goes with the dialog. */
  if (self->password_row != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->password_row), "");
  if (self->url_row != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->url_row), "");
  g_clear_object (&self->candidate);
  g_clear_object (&self->tested);
  g_clear_object (&self->conversation);
  g_clear_object (&self->editing);
  g_clear_object (&self->file);
  G_OBJECT_CLASS (assay_connect_dialog_parent_class)->dispose (object);
}

static void
assay_connect_dialog_finalize (GObject *object)
{
  AssayConnectDialog *self = ASSAY_CONNECT_DIALOG (object);

  g_clear_object (&self->test_cancellable);
  g_clear_object (&self->file_cancellable);
  g_ptr_array_unref (self->tables);
  g_ptr_array_unref (self->extra_keys);
  g_ptr_array_unref (self->extra_values);
  g_strfreev (self->picked_before);
  g_free (self->candidate_url);
  g_free (self->tested_url);
  assay_connect_dialog_forget_password (&self->candidate_typed);
  assay_connect_dialog_forget_password (&self->candidate_password);
  assay_connect_dialog_forget_password (&self->tested_typed);
  assay_connect_dialog_forget_password (&self->tested_password);
  G_OBJECT_CLASS (assay_connect_dialog_parent_class)->finalize (object);
}

static void
assay_connect_dialog_class_init (AssayConnectDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_connect_dialog_dispose;
  object_class->finalize = assay_connect_dialog_finalize;
  widget_class->map = assay_connect_dialog_map;

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-connect-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, window_title);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, connect_button);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, scroller);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, kind_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, host_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, port_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, database_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, user_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, password_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, tls_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, file_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, name_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, url_row);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, test_button);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, status_label);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, risk_check);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, tables_group);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectDialog, tables_list);
  gtk_widget_class_bind_template_callback (widget_class, assay_connect_dialog_url_applied_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_connect_dialog_risk_toggled_cb);

  gtk_widget_class_install_action (widget_class, "connect.test", NULL, assay_connect_dialog_test_action);
  gtk_widget_class_install_action (widget_class, "connect.connect", NULL, assay_connect_dialog_connect_action);
  gtk_widget_class_install_action (widget_class, "connect.pick-all", NULL, assay_connect_dialog_pick_all_action);
  gtk_widget_class_install_action (widget_class, "connect.choose-file", NULL,
                                   assay_connect_dialog_choose_file_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
assay_connect_dialog_init (AssayConnectDialog *self)
{
  AdwEntryRow *fields[4];

  self->tables = g_ptr_array_new_with_free_func ((GDestroyNotify) table_row_free);
  self->file_cancellable = g_cancellable_new ();
  self->extra_keys = g_ptr_array_new_with_free_func (g_free);
  self->extra_values = g_ptr_array_new_with_free_func (g_free);
  gtk_widget_init_template (GTK_WIDGET (self));

  fields[0] = self->host_row;
  fields[1] = self->port_row;
  fields[2] = self->database_row;
  fields[3] = self->user_row;
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    g_signal_connect_object (fields[i], "changed", G_CALLBACK (assay_connect_dialog_field_changed_cb), self,
                             G_CONNECT_SWAPPED);
  g_signal_connect_object (self->password_row, "changed", G_CALLBACK (assay_connect_dialog_update), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->name_row, "changed", G_CALLBACK (assay_connect_dialog_name_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->url_row, "changed", G_CALLBACK (assay_connect_dialog_url_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->kind_row, "notify::selected", G_CALLBACK (assay_connect_dialog_kind_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->tls_row, "notify::selected", G_CALLBACK (assay_connect_dialog_update), self,
                           G_CONNECT_SWAPPED);
  assay_connect_dialog_show_kind (self);
  assay_connect_dialog_update (self);
}

AssayConnectDialog *
assay_connect_dialog_new (GtkWindow         *parent,
                          AssayConversation *conversation,
                          AssayConnection   *editing)
{
  AssayConnectDialog *self;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (conversation), NULL);
  g_return_val_if_fail (editing == NULL || ASSAY_IS_CONNECTION (editing), NULL);

  self = g_object_new (ASSAY_TYPE_CONNECT_DIALOG, "transient-for", parent, NULL);
  self->conversation = g_object_ref (conversation);
  if (editing != NULL)
    {
      g_autoptr(AssaySourceUrl) url = assay_source_url_parse (assay_connection_get_url (editing), NULL);

      self->editing = g_object_ref (editing);
      self->picked_before = g_strdupv ((char **) assay_connection_get_tables (editing));
      if (url != NULL)
        assay_connect_dialog_fill (self, url);
      assay_connect_dialog_set_text (self, self->name_row, assay_connection_get_name (editing));
      /* Its name is how the session's cells name it. */
      gtk_editable_set_editable (GTK_EDITABLE (self->name_row), FALSE);
      gtk_widget_set_sensitive (GTK_WIDGET (self->kind_row), FALSE);
      gtk_window_set_title (GTK_WINDOW (self), _("Edit the Database"));
      adw_window_title_set_title (self->window_title, _("Edit the Database"));
      adw_window_title_set_subtitle (self->window_title, assay_connection_get_name (editing));
      gtk_button_set_label (GTK_BUTTON (self->connect_button), _("_Save"));
    }
  assay_connect_dialog_update (self);
  return self;
}

/* ---- for tests ---------------------------------------------------------------------------- */

GtkEditable *
assay_connect_dialog_get_entry (AssayConnectDialog *self,
                                const char         *field)
{
  g_return_val_if_fail (ASSAY_IS_CONNECT_DIALOG (self), NULL);
  if (g_strcmp0 (field, "host") == 0)
    return GTK_EDITABLE (self->host_row);
  if (g_strcmp0 (field, "port") == 0)
    return GTK_EDITABLE (self->port_row);
  if (g_strcmp0 (field, "database") == 0)
    return GTK_EDITABLE (self->database_row);
  if (g_strcmp0 (field, "user") == 0)
    return GTK_EDITABLE (self->user_row);
  if (g_strcmp0 (field, "password") == 0)
    return GTK_EDITABLE (self->password_row);
  if (g_strcmp0 (field, "name") == 0)
    return GTK_EDITABLE (self->name_row);
  if (g_strcmp0 (field, "url") == 0)
    return GTK_EDITABLE (self->url_row);
  g_return_val_if_reached (NULL);
}

void
assay_connect_dialog_set_kind (AssayConnectDialog *self,
                               AssaySourceKind     kind)
{
  g_return_if_fail (ASSAY_IS_CONNECT_DIALOG (self));
  adw_combo_row_set_selected (self->kind_row, kind == ASSAY_SOURCE_MYSQL ? 1 : kind == ASSAY_SOURCE_SQLITE ? 2 : 0);
}

void
assay_connect_dialog_set_tls (AssayConnectDialog *self,
                              guint               mode)
{
  g_return_if_fail (ASSAY_IS_CONNECT_DIALOG (self));
  adw_combo_row_set_selected (self->tls_row, MIN (mode, G_N_ELEMENTS (pg_tls_modes) - 1));
}

gboolean
assay_connect_dialog_get_testing (AssayConnectDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECT_DIALOG (self), FALSE);
  return self->testing;
}

const char *
assay_connect_dialog_get_status (AssayConnectDialog *self,
                                 gboolean           *error)
{
  g_return_val_if_fail (ASSAY_IS_CONNECT_DIALOG (self), NULL);
  if (error != NULL)
    *error = self->status_error;
  return gtk_widget_get_visible (GTK_WIDGET (self->status_label)) ? gtk_label_get_text (self->status_label) : NULL;
}

char **
assay_connect_dialog_dup_tables (AssayConnectDialog *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (ASSAY_IS_CONNECT_DIALOG (self), NULL);
  for (guint i = 0; i < self->tables->len; i++)
    g_strv_builder_add (builder, ((TableRow *) g_ptr_array_index (self->tables, i))->qualified);
  return g_strv_builder_end (builder);
}

static TableRow *
assay_connect_dialog_find_table (AssayConnectDialog *self,
                                 const char         *table)
{
  for (guint i = 0; i < self->tables->len; i++)
    if (g_strcmp0 (((TableRow *) g_ptr_array_index (self->tables, i))->qualified, table) == 0)
      return g_ptr_array_index (self->tables, i);
  return NULL;
}

void
assay_connect_dialog_set_picked (AssayConnectDialog *self,
                                 const char         *table,
                                 gboolean            picked)
{
  TableRow *row;

  g_return_if_fail (ASSAY_IS_CONNECT_DIALOG (self));
  row = assay_connect_dialog_find_table (self, table);
  g_return_if_fail (row != NULL);
  gtk_check_button_set_active (row->check, picked);
}

gboolean
assay_connect_dialog_get_picked (AssayConnectDialog *self,
                                 const char         *table)
{
  TableRow *row;

  g_return_val_if_fail (ASSAY_IS_CONNECT_DIALOG (self), FALSE);
  row = assay_connect_dialog_find_table (self, table);
  return row != NULL && gtk_check_button_get_active (row->check);
}

gboolean
assay_connect_dialog_get_can_connect (AssayConnectDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECT_DIALOG (self), FALSE);
  return gtk_widget_is_sensitive (self->connect_button);
}
