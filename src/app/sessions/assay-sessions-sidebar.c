/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sessions"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "assay-session-store.h"
#include "assay-sessions-sidebar.h"

/* What a row shows of a saved session: its title ("New session" when it has none), and the
 * date it was last saved with its datasets' names. */
static char *
assay_sessions_sidebar_row_subtitle (AssaySessionSummary *summary)
{
  const char * const *datasets = assay_session_summary_get_datasets (summary);
  g_autoptr(GDateTime) updated = g_date_time_new_from_unix_local (assay_session_summary_get_updated (summary) / G_USEC_PER_SEC);
  g_autofree char *names = g_strjoinv (", ", (char **) datasets);
  g_autofree char *date = NULL;

  if (updated == NULL)
    updated = g_date_time_new_now_local ();
  date = g_date_time_format (updated, "%x %H:%M");
  return *names != '\0' ? g_strdup_printf ("%s · %s", date, names) : g_steal_pointer (&date);
}

/* ---- the sidebar ----------------------------------------------------------------------- */

struct _AssaySessionsSidebar
{
  GtkWidget           parent_instance;

  GtkListBox         *list_box;
  GtkSearchEntry     *search_entry;
  GtkStack           *stack;

  AssaySessionStore  *store;
  GtkCustomFilter    *filter;
  GtkFilterListModel *filtered;
  char               *search;
  char               *selected_dir;
};

G_DEFINE_FINAL_TYPE (AssaySessionsSidebar, assay_sessions_sidebar, GTK_TYPE_WIDGET)

enum { SESSION_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static gboolean
assay_sessions_sidebar_filter_cb (gpointer item,
                                  gpointer user_data)
{
  AssaySessionsSidebar *self = user_data;

  return assay_session_summary_matches (item, self->search);
}

static GtkWidget *
assay_sessions_sidebar_create_row (gpointer item,
                                   gpointer user_data)
{
  AssaySessionSummary *session = item;
  const char *dir = assay_session_summary_get_dir (session);
  const char *title = assay_session_summary_get_title (session);
  g_autofree char *subtitle = assay_sessions_sidebar_row_subtitle (session);
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *menu_button = gtk_menu_button_new ();
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenuItem) rename = g_menu_item_new (_("_Rename…"), NULL);
  g_autoptr(GMenuItem) delete = g_menu_item_new (_("_Delete"), NULL);
  g_autofree char *escaped = g_markup_escape_text (*title != '\0' ? title : _("New session"), -1);
  g_autofree char *escaped_subtitle = g_markup_escape_text (subtitle, -1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), escaped_subtitle);
  adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 2);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  g_object_set_data_full (G_OBJECT (row), "dir", g_strdup (dir), g_free);

  g_menu_item_set_action_and_target (rename, "win.rename-session", "s", dir);
  g_menu_item_set_action_and_target (delete, "win.delete-session", "s", dir);
  g_menu_append_item (menu, rename);
  g_menu_append_item (menu, delete);
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu_button), G_MENU_MODEL (menu));
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu_button), "view-more-symbolic");
  gtk_widget_set_valign (menu_button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (menu_button, "flat");
  gtk_widget_set_tooltip_text (menu_button, _("Session Menu"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Session menu"), -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), menu_button);
  return row;
}

static void
assay_sessions_sidebar_update_selection (AssaySessionsSidebar *self)
{
  GtkListBoxRow *row;

  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->list_box, i)) != NULL; i++)
    if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "dir"), self->selected_dir) == 0)
      {
        gtk_list_box_select_row (self->list_box, row);
        return;
      }
  gtk_list_box_unselect_all (self->list_box);
}

static void
assay_sessions_sidebar_update_stack (AssaySessionsSidebar *self)
{
  gboolean empty = self->store == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->store)) == 0;

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "list");
}

static void
assay_sessions_sidebar_store_changed_cb (AssaySessionsSidebar *self)
{
  assay_sessions_sidebar_update_stack (self);
  assay_sessions_sidebar_update_selection (self);
}

void
assay_sessions_sidebar_set_store (AssaySessionsSidebar *self,
                                  AssaySessionStore    *store)
{
  g_return_if_fail (ASSAY_IS_SESSIONS_SIDEBAR (self));
  g_return_if_fail (store == NULL || ASSAY_IS_SESSION_STORE (store));

  if (self->store == store)
    return;
  if (self->store != NULL)
    g_signal_handlers_disconnect_by_data (self->store, self);
  g_set_object (&self->store, store);
  if (store != NULL)
    g_signal_connect_swapped (store,
                              "items-changed",
                              G_CALLBACK (assay_sessions_sidebar_store_changed_cb),
                              self);
  gtk_filter_list_model_set_model (self->filtered, G_LIST_MODEL (store));
  assay_sessions_sidebar_store_changed_cb (self);
}

GListModel *
assay_sessions_sidebar_get_model (AssaySessionsSidebar *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSIONS_SIDEBAR (self), NULL);
  return G_LIST_MODEL (self->filtered);
}

void
assay_sessions_sidebar_set_search (AssaySessionsSidebar *self,
                                   const char           *text)
{
  g_return_if_fail (ASSAY_IS_SESSIONS_SIDEBAR (self));
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text ? text : "");
  g_free (self->search);
  self->search = text ? g_utf8_casefold (text, -1) : NULL;
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
assay_sessions_sidebar_search_changed_cb (AssaySessionsSidebar *self)
{
  g_free (self->search);
  self->search = g_utf8_casefold (gtk_editable_get_text (GTK_EDITABLE (self->search_entry)), -1);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

void
assay_sessions_sidebar_select (AssaySessionsSidebar *self,
                               const char           *dir)
{
  g_return_if_fail (ASSAY_IS_SESSIONS_SIDEBAR (self));
  g_free (self->selected_dir);
  self->selected_dir = g_strdup (dir);
  assay_sessions_sidebar_update_selection (self);
}

static void
assay_sessions_sidebar_row_activated_cb (AssaySessionsSidebar *self,
                                         GtkListBoxRow        *row)
{
  const char *dir = g_object_get_data (G_OBJECT (row), "dir");

  if (dir != NULL)
    g_signal_emit (self, signals[SESSION_ACTIVATED], 0, dir);
}

static void
assay_sessions_sidebar_dispose (GObject *object)
{
  AssaySessionsSidebar *self = ASSAY_SESSIONS_SIDEBAR (object);
  GtkWidget *child;

  if (self->store != NULL)
    g_signal_handlers_disconnect_by_data (self->store, self);
  g_clear_object (&self->store);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_SESSIONS_SIDEBAR);
  /* The template's root box is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->filtered);
  G_OBJECT_CLASS (assay_sessions_sidebar_parent_class)->dispose (object);
}

static void
assay_sessions_sidebar_finalize (GObject *object)
{
  AssaySessionsSidebar *self = ASSAY_SESSIONS_SIDEBAR (object);

  g_free (self->search);
  g_free (self->selected_dir);
  G_OBJECT_CLASS (assay_sessions_sidebar_parent_class)->finalize (object);
}

static void
assay_sessions_sidebar_class_init (AssaySessionsSidebarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_sessions_sidebar_dispose;
  object_class->finalize = assay_sessions_sidebar_finalize;

  signals[SESSION_ACTIVATED] = g_signal_new ("session-activated", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_STRING);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-sessions-sidebar.ui");
  gtk_widget_class_bind_template_child (widget_class, AssaySessionsSidebar, list_box);
  gtk_widget_class_bind_template_child (widget_class, AssaySessionsSidebar, search_entry);
  gtk_widget_class_bind_template_child (widget_class, AssaySessionsSidebar, stack);
  gtk_widget_class_bind_template_callback (widget_class, assay_sessions_sidebar_search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_sessions_sidebar_row_activated_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
assay_sessions_sidebar_init (AssaySessionsSidebar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->filter = gtk_custom_filter_new (assay_sessions_sidebar_filter_cb, self, NULL);
  /* The filter model owns the filter; the store comes from the window. */
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->filter));
  gtk_list_box_bind_model (self->list_box,
                           G_LIST_MODEL (self->filtered),
                           assay_sessions_sidebar_create_row,
                           self,
                           NULL);
  assay_sessions_sidebar_update_stack (self);
}

GtkWidget *
assay_sessions_sidebar_new (void)
{
  return g_object_new (ASSAY_TYPE_SESSIONS_SIDEBAR, NULL);
}
