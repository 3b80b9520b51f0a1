/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shows the artifact gallery of a session folder, and an artifact large when activated:
 *
 *   assay-gallery-demo SESSION-DIR [ARTIFACT-NAME]
 *
 * With a name, that artifact opens at once. With ASSAY_GALLERY_DEMO_SCREENSHOT=FILE.png in the
 * environment, the window is saved there after three seconds and the demo quits. */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include <adwaita.h>

#include "assay-artifact-gallery.h"
#include "assay-artifact-viewer.h"
#include "assay-session.h"

typedef struct
{
  AssaySession      *session;
  AssayArtifactList *list;
  char              *open_name;
  GtkStack          *stack;
  GtkWidget         *back;
  GtkWidget         *viewer;
} Demo;

static void
assay_gallery_demo_show_viewer (Demo              *demo,
                                AssayArtifactItem *item)
{
  assay_artifact_viewer_set_item (ASSAY_ARTIFACT_VIEWER (demo->viewer), item);
  gtk_stack_set_visible_child_name (demo->stack, "viewer");
  gtk_widget_set_visible (demo->back, TRUE);
}

static void
assay_gallery_demo_activated_cb (AssayArtifactGallery *gallery,
                                 AssayArtifactItem    *item,
                                 Demo                 *demo)
{
  assay_gallery_demo_show_viewer (demo, item);
}

static void
assay_gallery_demo_back_cb (GtkButton *button,
                            Demo      *demo)
{
  assay_artifact_viewer_set_item (ASSAY_ARTIFACT_VIEWER (demo->viewer), NULL);
  gtk_stack_set_visible_child_name (demo->stack, "gallery");
  gtk_widget_set_visible (demo->back, FALSE);
}

static gboolean
assay_gallery_demo_take_screenshot (gpointer data)
{
  GtkWidget *window = data;
  const char *path = g_getenv ("ASSAY_GALLERY_DEMO_SCREENSHOT");
  int width = gtk_widget_get_width (window);
  int height = gtk_widget_get_height (window);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node != NULL)
    {
      texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                             &GRAPHENE_RECT_INIT (0, 0, width, height));
      if (!gdk_texture_save_to_png (texture, path))
        g_printerr ("Cannot save %s\n", path);
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return G_SOURCE_REMOVE;
}

static void
assay_gallery_demo_activate_cb (GtkApplication *app,
                                Demo           *demo)
{
  GtkWidget *window = adw_application_window_new (app);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *gallery = assay_artifact_gallery_new ();
  g_autofree char *title = g_strdup_printf ("Artifacts — %s", assay_session_get_title (demo->session)
                                            ? assay_session_get_title (demo->session) : "session");

  demo->back = gtk_button_new_from_icon_name ("go-previous-symbolic");
  gtk_widget_set_visible (demo->back, FALSE);
  g_signal_connect (demo->back, "clicked", G_CALLBACK (assay_gallery_demo_back_cb), demo);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), demo->back);

  demo->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (demo->stack), TRUE);
  demo->viewer = assay_artifact_viewer_new ();
  gtk_stack_add_named (demo->stack, gallery, "gallery");
  gtk_stack_add_named (demo->stack, demo->viewer, "viewer");
  assay_artifact_gallery_set_model (ASSAY_ARTIFACT_GALLERY (gallery), demo->list);
  g_signal_connect (gallery, "artifact-activated", G_CALLBACK (assay_gallery_demo_activated_cb), demo);

  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (demo->stack));
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), box);
  gtk_window_set_title (GTK_WINDOW (window), title);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);

  if (demo->open_name != NULL)
    {
      for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (demo->list)); i++)
        {
          g_autoptr(AssayArtifactItem) item = g_list_model_get_item (G_LIST_MODEL (demo->list), i);

          if (g_str_equal (assay_artifact_item_get_name (item), demo->open_name))
            assay_gallery_demo_show_viewer (demo, item);
        }
    }
  gtk_window_present (GTK_WINDOW (window));
  if (g_getenv ("ASSAY_GALLERY_DEMO_SCREENSHOT") != NULL)
    g_timeout_add_seconds (3, assay_gallery_demo_take_screenshot, window);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AdwApplication) app = NULL;
  g_autoptr(GError) error = NULL;
  Demo demo = { 0 };
  int status;

  if (argc < 2)
    {
      g_printerr ("Usage: %s SESSION-DIR [ARTIFACT-NAME]\n", argv[0]);
      return 2;
    }
  demo.session = assay_session_load (argv[1], &error);
  if (demo.session == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  demo.list = assay_artifact_list_new_for_session (demo.session);
  demo.open_name = argc > 2 ? g_strdup (argv[2]) : NULL;

  app = adw_application_new ("org.assay.Assay.GalleryDemo", G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (assay_gallery_demo_activate_cb), &demo);
  status = g_application_run (G_APPLICATION (app), 1, argv);

  g_clear_object (&demo.list);
  g_clear_object (&demo.session);
  g_free (demo.open_name);
  return status;
}
