/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-destination-button.h"

struct _AssayDestinationButton
{
  GtkWidget              parent_instance;

  GtkMenuButton         *menu_button;
  GtkImage              *icon;
  GtkImage              *short_icon;
  GtkImage              *narrow_icon;
  GtkImage              *icon_only;
  GtkLabel              *title_label;
  GtkLabel              *short_title_label;
  GtkLabel              *narrow_title_label;
  GtkLabel              *model_label;
  GtkLabel              *description_label;
  GtkLabel              *sandbox_label;
  GtkWidget             *hosted_row;
  GtkSwitch             *hosted_switch;

  AssayModelDestination *destination;
  GBindingGroup         *bindings;
};

G_DEFINE_FINAL_TYPE (AssayDestinationButton, assay_destination_button, GTK_TYPE_WIDGET)

/* A screen reader reads the button as the tooltip says it: in full. */
static void
assay_destination_button_description_cb (AssayDestinationButton *self)
{
  const char *description = self->destination != NULL
                            ? assay_model_destination_get_description (self->destination) : NULL;

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->menu_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, description != NULL ? description : "",
                                  -1);
}

void
assay_destination_button_set_destination (AssayDestinationButton *self,
                                          AssayModelDestination  *destination)
{
  g_return_if_fail (ASSAY_IS_DESTINATION_BUTTON (self));
  g_return_if_fail (destination == NULL || ASSAY_IS_MODEL_DESTINATION (destination));

  if (self->destination == destination)
    return;
  if (self->destination != NULL)
    g_signal_handlers_disconnect_by_data (self->destination, self);
  g_set_object (&self->destination, destination);
  g_binding_group_set_source (self->bindings, destination);
  if (destination != NULL)
    g_signal_connect_swapped (destination, "notify::description",
                              G_CALLBACK (assay_destination_button_description_cb), self);
  else
    gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  assay_destination_button_description_cb (self);
}

/* Where the model's code runs, under where the data goes: "The code runs in Docker 28.2.2 at
 * /var/run/docker.sock." NULL hides it. */
void
assay_destination_button_set_sandbox (AssayDestinationButton *self,
                                      const char             *where)
{
  g_autofree char *text = NULL;

  g_return_if_fail (ASSAY_IS_DESTINATION_BUTTON (self));
  if (where != NULL)
    text = g_strdup_printf (_("The code runs in %s."), where);
  gtk_label_set_text (self->sandbox_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->sandbox_label), text != NULL);
}

const char *
assay_destination_button_get_sandbox (AssayDestinationButton *self)
{
  g_return_val_if_fail (ASSAY_IS_DESTINATION_BUTTON (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->sandbox_label)) ? gtk_label_get_text (self->sandbox_label) : NULL;
}

GtkSwitch *
assay_destination_button_get_hosted_switch (AssayDestinationButton *self)
{
  g_return_val_if_fail (ASSAY_IS_DESTINATION_BUTTON (self), NULL);
  return self->hosted_switch;
}

void
assay_destination_button_set_hosted_offered (AssayDestinationButton *self,
                                             gboolean                offered)
{
  g_return_if_fail (ASSAY_IS_DESTINATION_BUTTON (self));
  gtk_widget_set_visible (self->hosted_row, offered);
}

const char *
assay_destination_button_get_title (AssayDestinationButton *self)
{
  g_return_val_if_fail (ASSAY_IS_DESTINATION_BUTTON (self), NULL);
  return gtk_label_get_text (self->title_label);
}

const char *
assay_destination_button_get_description (AssayDestinationButton *self)
{
  g_return_val_if_fail (ASSAY_IS_DESTINATION_BUTTON (self), NULL);
  return gtk_widget_get_tooltip_text (GTK_WIDGET (self->menu_button));
}

static void
assay_destination_button_dispose (GObject *object)
{
  AssayDestinationButton *self = ASSAY_DESTINATION_BUTTON (object);
  GtkWidget *child;

  if (self->destination != NULL)
    g_signal_handlers_disconnect_by_data (self->destination, self);
  if (self->bindings != NULL)
    g_binding_group_set_source (self->bindings, NULL);
  g_clear_object (&self->bindings);
  g_clear_object (&self->destination);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_DESTINATION_BUTTON);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_destination_button_parent_class)->dispose (object);
}

/* The app's own symbolic icons, where no GtkApplication added them (tests, demos). */
static void
assay_destination_button_ensure_icons (void)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());
  g_auto(GStrv) paths = gtk_icon_theme_get_resource_path (theme);

  if (paths == NULL || !g_strv_contains ((const char * const *) paths, "/org/assay/Assay/icons"))
    gtk_icon_theme_add_resource_path (theme, "/org/assay/Assay/icons");
}

/* The popover gives its first label the focus, and a label that gets the focus selects all
 * of its text: the description opened highlighted. It stays selectable (a host to copy),
 * unselected until the analyst selects. */
static void
assay_destination_button_popover_shown_cb (AssayDestinationButton *self)
{
  GtkLabel *labels[] = { self->description_label, self->sandbox_label };

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (gtk_widget_has_focus (GTK_WIDGET (labels[i])))
      gtk_label_select_region (labels[i], 0, 0);
}

static void
assay_destination_button_class_init (AssayDestinationButtonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_destination_button_dispose;

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-destination-button.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, menu_button);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, icon);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, short_icon);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, narrow_icon);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, icon_only);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, title_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, short_title_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, narrow_title_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, model_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, description_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, sandbox_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, hosted_row);
  gtk_widget_class_bind_template_child (widget_class, AssayDestinationButton, hosted_switch);
  gtk_widget_class_bind_template_callback (widget_class, assay_destination_button_popover_shown_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
assay_destination_button_init (AssayDestinationButton *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  assay_destination_button_ensure_icons ();
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);

  self->bindings = g_binding_group_new ();
  g_binding_group_bind (self->bindings, "configured", self, "visible", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "icon-name", self->icon, "icon-name", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "icon-name", self->short_icon, "icon-name", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "icon-name", self->narrow_icon, "icon-name", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "icon-name", self->icon_only, "icon-name", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "title", self->title_label, "label", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "title", self->short_title_label, "label", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "short-title", self->narrow_title_label, "label", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "model", self->model_label, "label", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "description", self->description_label, "label", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "description", self->menu_button, "tooltip-text", G_BINDING_SYNC_CREATE);
}

GtkWidget *
assay_destination_button_new (void)
{
  return g_object_new (ASSAY_TYPE_DESTINATION_BUTTON, NULL);
}
