/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "assay-session.h"
#include "assay-sessions-sidebar.h"

/* ---- one row's data ------------------------------------------------------------------ */

#define ASSAY_TYPE_SESSION_ITEM (assay_session_item_get_type ())
G_DECLARE_FINAL_TYPE (AssaySessionItem, assay_session_item, ASSAY, SESSION_ITEM, GObject)

struct _AssaySessionItem
{
  GObject  parent_instance;
  char    *dir;
  char    *title;        /* as shown: "New session" when it has none */
  char    *own_title;    /* as recorded: NULL when it has none */
  char    *subtitle;
  char    *search_text;  /* title and dataset names, folded */
};

G_DEFINE_FINAL_TYPE (AssaySessionItem, assay_session_item, G_TYPE_OBJECT)

enum { ITEM_PROP_0, ITEM_PROP_DIR, ITEM_PROP_TITLE, ITEM_PROP_SUBTITLE, ITEM_N_PROPS };
static GParamSpec *item_properties[ITEM_N_PROPS];

static void
assay_session_item_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  AssaySessionItem *self = ASSAY_SESSION_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_DIR: g_value_set_string (value, self->dir); break;
    case ITEM_PROP_TITLE: g_value_set_string (value, self->title); break;
    case ITEM_PROP_SUBTITLE: g_value_set_string (value, self->subtitle); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_session_item_finalize (GObject *object)
{
  AssaySessionItem *self = ASSAY_SESSION_ITEM (object);

  g_free (self->dir);
  g_free (self->title);
  g_free (self->own_title);
  g_free (self->subtitle);
  g_free (self->search_text);
  G_OBJECT_CLASS (assay_session_item_parent_class)->finalize (object);
}

static void
assay_session_item_class_init (AssaySessionItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = assay_session_item_get_property;
  object_class->finalize = assay_session_item_finalize;
  item_properties[ITEM_PROP_DIR] = g_param_spec_string ("dir", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  item_properties[ITEM_PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  item_properties[ITEM_PROP_SUBTITLE] = g_param_spec_string ("subtitle", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, ITEM_N_PROPS, item_properties);
}

static void
assay_session_item_init (AssaySessionItem *self)
{
}

/* Runs in the worker: reads only the session it is given. */
static AssaySessionItem *
assay_session_item_new (AssaySession *session)
{
  AssaySessionItem *self = g_object_new (ASSAY_TYPE_SESSION_ITEM, NULL);
  GPtrArray *datasets = assay_session_get_datasets (session);
  g_autoptr(GString) names = g_string_new (NULL);
  g_autoptr(GDateTime) updated = NULL;
  g_autofree char *date = NULL;
  g_autofree char *search = NULL;
  const char *title = assay_session_get_title (session);

  self->dir = g_strdup (assay_session_get_dir (session));
  self->title = g_strdup (title && *title ? title : _("New session"));
  self->own_title = g_strdup (title);
  for (guint i = 0; datasets != NULL && i < datasets->len; i++)
    {
      AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);

      g_string_append_printf (names, "%s%s", names->len ? ", " : "", dataset->name);
    }
  updated = g_date_time_new_from_unix_local (assay_session_get_updated (session) / G_USEC_PER_SEC);
  if (updated == NULL)
    updated = g_date_time_new_now_local ();
  date = g_date_time_format (updated, "%x %H:%M");
  self->subtitle = names->len ? g_strdup_printf ("%s · %s", date, names->str) : g_strdup (date);
  search = g_strdup_printf ("%s %s", self->title, names->str);
  self->search_text = g_utf8_casefold (search, -1);
  return self;
}

/* ---- the sidebar ----------------------------------------------------------------------- */

struct _AssaySessionsSidebar
{
  GtkWidget           parent_instance;

  GtkListBox         *list_box;
  GtkSearchEntry     *search_entry;
  GtkStack           *stack;

  GListStore         *store;
  GtkCustomFilter    *filter;
  GtkFilterListModel *filtered;
  char               *search;
  char               *selected_dir;
  GCancellable       *cancellable;   /* the reload in flight */
};

G_DEFINE_FINAL_TYPE (AssaySessionsSidebar, assay_sessions_sidebar, GTK_TYPE_WIDGET)

enum { SESSION_ACTIVATED, RELOADED, N_SIGNALS };
static guint signals[N_SIGNALS];

static gboolean
filter_cb (gpointer item,
           gpointer user_data)
{
  AssaySessionsSidebar *self = user_data;

  return self->search == NULL || *self->search == '\0' ||
         strstr (ASSAY_SESSION_ITEM (item)->search_text, self->search) != NULL;
}

static GtkWidget *
create_row (gpointer item,
            gpointer user_data)
{
  AssaySessionItem *session = item;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *menu_button = gtk_menu_button_new ();
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenuItem) rename = g_menu_item_new (_("_Rename…"), NULL);
  g_autoptr(GMenuItem) delete = g_menu_item_new (_("_Delete"), NULL);
  g_autofree char *escaped = g_markup_escape_text (session->title, -1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), session->subtitle);
  adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 2);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  g_object_set_data_full (G_OBJECT (row), "dir", g_strdup (session->dir), g_free);

  g_menu_item_set_action_and_target (rename, "win.rename-session", "s", session->dir);
  g_menu_item_set_action_and_target (delete, "win.delete-session", "s", session->dir);
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
update_selection (AssaySessionsSidebar *self)
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
update_stack (AssaySessionsSidebar *self)
{
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->store)) == 0;

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "list");
}

static void
list_worker (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = assay_session_list (NULL, &error);
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    g_ptr_array_add (items, assay_session_item_new (g_ptr_array_index (sessions, i)));
  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_debug ("listing the sessions: %s", error->message);
  g_task_return_pointer (task, items, (GDestroyNotify) g_ptr_array_unref);
}

static void
list_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  AssaySessionsSidebar *self = ASSAY_SESSIONS_SIDEBAR (source);
  g_autoptr(GPtrArray) items = g_task_propagate_pointer (G_TASK (result), NULL);

  if (items == NULL)
    return;
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       items->pdata, items->len);
  update_stack (self);
  update_selection (self);
  g_signal_emit (self, signals[RELOADED], 0);
}

void
assay_sessions_sidebar_reload (AssaySessionsSidebar *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_SESSIONS_SIDEBAR (self));
  /* The latest reload wins: an earlier one finishing later would show an older list. */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, list_done_cb, NULL);
  g_task_set_source_tag (task, assay_sessions_sidebar_reload);
  g_task_run_in_thread (task, list_worker);
}

GListModel *
assay_sessions_sidebar_get_model (AssaySessionsSidebar *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSIONS_SIDEBAR (self), NULL);
  return G_LIST_MODEL (self->filtered);
}

const char *
assay_sessions_sidebar_get_title (AssaySessionsSidebar *self,
                                  const char           *dir)
{
  guint n;

  g_return_val_if_fail (ASSAY_IS_SESSIONS_SIDEBAR (self), NULL);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(AssaySessionItem) item = g_list_model_get_item (G_LIST_MODEL (self->store), i);

      if (g_strcmp0 (item->dir, dir) == 0)
        return item->own_title != NULL ? item->own_title : "";
    }
  return NULL;
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
search_changed_cb (AssaySessionsSidebar *self)
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
  update_selection (self);
}

static void
row_activated_cb (AssaySessionsSidebar *self,
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

  g_cancellable_cancel (self->cancellable);
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

  g_clear_object (&self->cancellable);
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
  signals[RELOADED] = g_signal_new ("reloaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-sessions-sidebar.ui");
  gtk_widget_class_bind_template_child (widget_class, AssaySessionsSidebar, list_box);
  gtk_widget_class_bind_template_child (widget_class, AssaySessionsSidebar, search_entry);
  gtk_widget_class_bind_template_child (widget_class, AssaySessionsSidebar, stack);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
assay_sessions_sidebar_init (AssaySessionsSidebar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->store = g_list_store_new (ASSAY_TYPE_SESSION_ITEM);
  self->filter = gtk_custom_filter_new (filter_cb, self, NULL);
  /* The filter model owns the store and the filter. */
  self->filtered = gtk_filter_list_model_new (G_LIST_MODEL (self->store), GTK_FILTER (self->filter));
  gtk_list_box_bind_model (self->list_box, G_LIST_MODEL (self->filtered), create_row, self, NULL);
  update_stack (self);
}

GtkWidget *
assay_sessions_sidebar_new (void)
{
  return g_object_new (ASSAY_TYPE_SESSIONS_SIDEBAR, NULL);
}
