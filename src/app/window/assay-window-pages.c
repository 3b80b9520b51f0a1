/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Files and Data pages, made the first time they are shown or asked for: most starts
 * show neither, and their widgets were a tenth of the window's start-up. Until then their
 * fields are NULL, and what they would show is in the conversation and its session. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include "assay-window-private.h"

#define PAGES_UI "/org/assay/Assay/ui/assay-window-pages.ui"

static GtkBuilder *
assay_window_build_page (const char *id)
{
  GtkBuilder *builder = gtk_builder_new ();
  g_autoptr(GError) error = NULL;
  const char *ids[] = { id, NULL };

  /* From the app's own resources: a failure is a build error. */
  if (!gtk_builder_add_objects_from_resource (builder, PAGES_UI, ids, &error))
    g_error ("%s: %s", PAGES_UI, error->message);
  return builder;
}

void
assay_window_ensure_files_page (AssayWindow *self)
{
  g_autoptr(GtkBuilder) builder = NULL;

  if (self->artifacts_stack != NULL)
    return;
  builder = assay_window_build_page ("artifacts_stack");
  self->artifacts_stack = GTK_STACK (gtk_builder_get_object (builder, "artifacts_stack"));
  self->gallery = ASSAY_ARTIFACT_GALLERY (gtk_builder_get_object (builder, "gallery"));
  self->viewer = ASSAY_ARTIFACT_VIEWER (gtk_builder_get_object (builder, "viewer"));
  g_signal_connect_object (self->artifacts_stack, "notify::visible-child",
                           G_CALLBACK (assay_window_update_pages), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->gallery, "artifact-activated",
                           G_CALLBACK (assay_window_show_artifact), self, G_CONNECT_SWAPPED);
  adw_bin_set_child (self->files_bin, GTK_WIDGET (self->artifacts_stack));
  assay_artifact_gallery_set_model (self->gallery, assay_conversation_get_artifacts (self->conversation));
}

void
assay_window_ensure_data_page (AssayWindow *self)
{
  g_autoptr(GtkBuilder) builder = NULL;
  GListModel *connections = assay_conversation_get_connections (self->conversation);

  if (self->data_stack != NULL)
    return;
  builder = assay_window_build_page ("data_stack");
  self->data_stack = GTK_STACK (gtk_builder_get_object (builder, "data_stack"));
  self->connections_view = ASSAY_CONNECTIONS_VIEW (gtk_builder_get_object (builder, "connections_view"));
  self->data_preview = ASSAY_DATA_PREVIEW (gtk_builder_get_object (builder, "data_preview"));
  adw_bin_set_child (self->data_bin, GTK_WIDGET (self->data_stack));

  /* The session's databases, which the conversation holds. */
  assay_connections_view_set_model (self->connections_view, connections);
  g_object_bind_property (self->conversation, "requery",
                          assay_connections_view_get_requery_check (self->connections_view), "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->conversation, "can-requery",
                          assay_connections_view_get_requery_check (self->connections_view), "visible",
                          G_BINDING_SYNC_CREATE);
  /* Its datasets, and their masked columns. */
  assay_window_watch_data_preview (self);
  assay_window_reset_data_preview (self);
  assay_window_update_masks (self);
}
