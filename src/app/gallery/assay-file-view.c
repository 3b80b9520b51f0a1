/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include <glib/gi18n.h>

#include <adwaita.h>

#include "assay-app-types.h"
#include "assay-artifact-dnd.h"
#include "assay-file-view.h"

struct _AssayFileView
{
  GtkWidget          parent_instance;

  AdwStatusPage     *status;

  AssayArtifactItem *item;
  char              *details;
};

G_DEFINE_FINAL_TYPE (AssayFileView, assay_file_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GdkContentProvider *
assay_file_view_drag_prepare_cb (GtkDragSource *source,
                                 double         x,
                                 double         y,
                                 AssayFileView *self)
{
  if (self->item == NULL)
    return NULL;
  return assay_artifact_content_provider_new (self->item);
}

void
assay_file_view_set_item (AssayFileView     *self,
                          AssayArtifactItem *item)
{
  g_autofree char *icon_name = NULL;
  g_autofree char *size = NULL;

  g_return_if_fail (ASSAY_IS_FILE_VIEW (self));
  g_return_if_fail (item == NULL || ASSAY_IS_ARTIFACT_ITEM (item));

  if (!g_set_object (&self->item, item))
    return;

  g_clear_pointer (&self->details, g_free);
  if (item != NULL)
    {
      size = g_format_size_full (assay_artifact_item_get_bytes (item), G_FORMAT_SIZE_LONG_FORMAT);
      /* Translators: the size, the MIME type and the cell id that wrote the file. */
      self->details = g_strdup_printf (_("%s · %s · from cell %s"), size,
                                       assay_artifact_item_get_mime (item),
                                       assay_artifact_item_get_cell_id (item));
      icon_name = assay_artifact_icon_name (item);
    }
  adw_status_page_set_icon_name (self->status, icon_name != NULL ? icon_name : "text-x-generic");
  adw_status_page_set_title (self->status, item != NULL ? assay_artifact_item_get_name (item) : "");
  adw_status_page_set_description (self->status, self->details);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

static void
assay_file_view_dispose (GObject *object)
{
  AssayFileView *self = ASSAY_FILE_VIEW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_FILE_VIEW);
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  g_clear_object (&self->item);
  g_clear_pointer (&self->details, g_free);

  G_OBJECT_CLASS (assay_file_view_parent_class)->dispose (object);
}

static void
assay_file_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, ASSAY_FILE_VIEW (object)->item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_file_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_ITEM:
      assay_file_view_set_item (ASSAY_FILE_VIEW (object), g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_file_view_class_init (AssayFileViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_file_view_dispose;
  object_class->get_property = assay_file_view_get_property;
  object_class->set_property = assay_file_view_set_property;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, ASSAY_TYPE_ARTIFACT_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/assay/Assay/ui/assay-file-view.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayFileView, status);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "assay-file-view");
}

static void
assay_file_view_init (AssayFileView *self)
{
  GtkDragSource *source;

  gtk_widget_init_template (GTK_WIDGET (self));

  source = gtk_drag_source_new ();
  gtk_drag_source_set_actions (source, GDK_ACTION_COPY);
  g_signal_connect (source, "prepare", G_CALLBACK (assay_file_view_drag_prepare_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->status), GTK_EVENT_CONTROLLER (source));
}

GtkWidget *
assay_file_view_new (void)
{
  return g_object_new (ASSAY_TYPE_FILE_VIEW, NULL);
}

AssayArtifactItem *
assay_file_view_get_item (AssayFileView *self)
{
  g_return_val_if_fail (ASSAY_IS_FILE_VIEW (self), NULL);
  return self->item;
}

const char *
assay_file_view_get_details (AssayFileView *self)
{
  g_return_val_if_fail (ASSAY_IS_FILE_VIEW (self), NULL);
  return self->details;
}
