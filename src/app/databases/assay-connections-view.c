/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The data page's list of the session's databases: a GtkListBox bound to the conversation's
 * connections, each row following its connection's properties. */
#define G_LOG_DOMAIN "Assay-Databases"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-types.h"
#include "assay-connections-view.h"

struct _AssayConnectionsView
{
  GtkWidget   parent_instance;

  GtkListBox *list;
  GtkCheckButton *requery_check;
  GListModel *model;
};

G_DEFINE_FINAL_TYPE (AssayConnectionsView, assay_connections_view, GTK_TYPE_WIDGET)

typedef struct
{
  GtkWidget  *icon;
  GtkSpinner *spinner;
} RowParts;

static void
assay_connections_view_update_row (AdwActionRow    *row,
                                   GParamSpec      *pspec,
                                   AssayConnection *connection)
{
  RowParts *parts = g_object_get_data (G_OBJECT (row), "assay-row-parts");
  AssayConnectionStatus status = assay_connection_get_status (connection);
  g_autofree char *summary = assay_connection_dup_summary (connection);
  g_autofree char *status_text = assay_connection_dup_status_text (connection);
  g_autofree char *subtitle = g_strdup_printf ("%s\n%s", summary, status_text);
  g_autofree char *powers = assay_connection_dup_powers (connection);
  gboolean risky = status == ASSAY_CONNECTION_CONNECTED && powers != NULL;

  adw_action_row_set_subtitle (row, subtitle);
  gtk_widget_set_visible (GTK_WIDGET (parts->spinner), status == ASSAY_CONNECTION_CONNECTING);
  gtk_spinner_set_spinning (parts->spinner, status == ASSAY_CONNECTION_CONNECTING);
  gtk_widget_set_visible (parts->icon, status != ASSAY_CONNECTION_CONNECTING);
  gtk_image_set_from_icon_name (GTK_IMAGE (parts->icon),
                                status != ASSAY_CONNECTION_CONNECTED ? "dialog-error-symbolic"
                                : risky ? "dialog-warning-symbolic" : "assay-network-server-symbolic");
  if (status == ASSAY_CONNECTION_FAILED)
    gtk_widget_add_css_class (parts->icon, "error");
  else
    gtk_widget_remove_css_class (parts->icon, "error");
  if (risky)
    gtk_widget_add_css_class (parts->icon, "warning");
  else
    gtk_widget_remove_css_class (parts->icon, "warning");
  gtk_accessible_update_property (GTK_ACCESSIBLE (parts->icon), GTK_ACCESSIBLE_PROPERTY_LABEL, status_text, -1);
}

static GtkWidget *
assay_connections_view_button (const char *icon,
                               const char *tooltip,
                               const char *action,
                               const char *name)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  /* The target first: the action takes the connection's name. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", name);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  return button;
}

static GtkWidget *
assay_connections_view_create_row (gpointer item,
                                   gpointer user_data)
{
  AssayConnection *connection = item;
  const char *name = assay_connection_get_name (connection);
  GtkWidget *row = adw_action_row_new ();
  RowParts *parts = g_new0 (RowParts, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);

  /* A name, a URL and a server's message: text, never markup. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
  parts->icon = gtk_image_new ();
  parts->spinner = GTK_SPINNER (gtk_spinner_new ());
  gtk_box_append (GTK_BOX (box), parts->icon);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (parts->spinner));
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), box);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                             assay_connections_view_button ("document-edit-symbolic", _("Edit"),
                                                            "win.edit-database", name));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                             assay_connections_view_button ("user-trash-symbolic", _("Remove from the Session"),
                                                            "win.remove-database", name));
  g_object_set_data_full (G_OBJECT (row), "assay-row-parts", parts, g_free);
  g_object_set_data_full (G_OBJECT (row), "assay-connection-name", g_strdup (name), g_free);
  g_signal_connect_object (connection, "notify", G_CALLBACK (assay_connections_view_update_row), row,
                           G_CONNECT_SWAPPED);
  assay_connections_view_update_row (ADW_ACTION_ROW (row), NULL, connection);
  return row;
}

static void
assay_connections_view_items_changed_cb (AssayConnectionsView *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self), self->model != NULL && g_list_model_get_n_items (self->model) > 0);
}

void
assay_connections_view_set_model (AssayConnectionsView *self,
                                  GListModel           *model)
{
  g_return_if_fail (ASSAY_IS_CONNECTIONS_VIEW (self));
  g_return_if_fail (model == NULL || G_IS_LIST_MODEL (model));

  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  g_set_object (&self->model, model);
  gtk_list_box_bind_model (self->list, model, assay_connections_view_create_row, NULL, NULL);
  if (model != NULL)
    g_signal_connect_object (model, "items-changed", G_CALLBACK (assay_connections_view_items_changed_cb), self,
                             G_CONNECT_SWAPPED);
  assay_connections_view_items_changed_cb (self);
}

GtkCheckButton *
assay_connections_view_get_requery_check (AssayConnectionsView *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTIONS_VIEW (self), NULL);
  return self->requery_check;
}

AdwActionRow *
assay_connections_view_get_row (AssayConnectionsView *self,
                                const char           *name)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTIONS_VIEW (self), NULL);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (ADW_IS_ACTION_ROW (child) &&
        g_strcmp0 (g_object_get_data (G_OBJECT (child), "assay-connection-name"), name) == 0)
      return ADW_ACTION_ROW (child);
  return NULL;
}

static void
assay_connections_view_dispose (GObject *object)
{
  AssayConnectionsView *self = ASSAY_CONNECTIONS_VIEW (object);
  GtkWidget *child;

  if (self->list != NULL)
    gtk_list_box_bind_model (self->list, NULL, NULL, NULL, NULL);
  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  g_clear_object (&self->model);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_CONNECTIONS_VIEW);
  /* The template's root is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_connections_view_parent_class)->dispose (object);
}

static void
assay_connections_view_class_init (AssayConnectionsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_connections_view_dispose;

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-connections-view.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayConnectionsView, list);
  gtk_widget_class_bind_template_child (widget_class, AssayConnectionsView, requery_check);
  gtk_widget_class_set_css_name (widget_class, "connections");
}

static void
assay_connections_view_init (AssayConnectionsView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  assay_connections_view_items_changed_cb (self);
}

GtkWidget *
assay_connections_view_new (void)
{
  return g_object_new (ASSAY_TYPE_CONNECTIONS_VIEW, NULL);
}
