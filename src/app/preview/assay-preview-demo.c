/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assay-preview-demo FILE...: the data preview alone in a window (not installed). */
#define G_LOG_DOMAIN "Assay-Preview"

#include "config.h"

#include <adwaita.h>
#include <stdlib.h>

#include "assay-data-preview.h"

/* ASSAY_PREVIEW_DEMO_SCREENSHOT=FILE.png: saves the window after a few seconds, then quits
 * (to look at the widget on a headless display). */
static gboolean
assay_preview_demo_save_screenshot (gpointer user_data)
{
  GtkWidget *window = user_data;
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (window), height = gtk_widget_get_height (window);

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node != NULL)
    {
      texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                             &GRAPHENE_RECT_INIT (0, 0, width, height));
      gdk_texture_save_to_png (texture, g_getenv ("ASSAY_PREVIEW_DEMO_SCREENSHOT"));
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return G_SOURCE_REMOVE;
}

static void
assay_preview_demo_activate (GtkApplication *app,
                             gpointer        user_data)
{
  const char * const *paths = user_data;
  GtkWidget *window = adw_application_window_new (app);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *preview = assay_data_preview_new ();

  gtk_widget_set_vexpand (preview, TRUE);
  gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
  gtk_box_append (GTK_BOX (box), preview);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), box);
  gtk_window_set_title (GTK_WINDOW (window), "Data Preview");
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 760);
  assay_data_preview_set_files (ASSAY_DATA_PREVIEW (preview), paths);
  gtk_window_present (GTK_WINDOW (window));
  if (g_getenv ("ASSAY_PREVIEW_DEMO_SCREENSHOT") != NULL)
    g_timeout_add_seconds (g_getenv ("ASSAY_PREVIEW_DEMO_DELAY") != NULL ? atoi (g_getenv ("ASSAY_PREVIEW_DEMO_DELAY")) : 3,
                           assay_preview_demo_save_screenshot, window);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AdwApplication) app = NULL;
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (argv[i]);
      g_ptr_array_add (paths, g_file_get_path (file));
    }
  g_ptr_array_add (paths, NULL);
  app = adw_application_new ("org.assay.Assay.PreviewDemo", G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (assay_preview_demo_activate), paths->pdata);
  return g_application_run (G_APPLICATION (app), 1, argv);
}
