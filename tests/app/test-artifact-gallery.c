/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The artifact gallery and viewers on a real session: `assay-cli ask` with the recorded
 * model runs the reference sales case in the real sandbox (3 PNG charts and a PDF report),
 * then a second question adds a CSV table and a text file. Runs under Xvfb. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <poppler.h>
#include <unistd.h>

#include "assay-artifact-dnd.h"
#include "assay-artifact-gallery.h"
#include "assay-artifact-viewer.h"
#include "assay-session.h"
#include "assay-toast-queue.h"

static char *tmp_dir;
static char *session_dir;

/* Spins the main loop until EXPR holds, failing after 30 s. */
#define WAIT_UNTIL(expr)                                                        \
  G_STMT_START {                                                                \
    gint64 wait_end_ = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;           \
    while (!(expr))                                                             \
      {                                                                         \
        if (g_get_monotonic_time () > wait_end_)                                \
          g_error ("Timed out waiting for %s", #expr);                          \
        if (!g_main_context_iteration (NULL, FALSE))                            \
          g_usleep (2000);                                                      \
      }                                                                         \
  } G_STMT_END

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (2000);
}

static void
run (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  /* The CLI's own leaks are its tests' business, not this one's. */
  g_auto(GStrv) env = g_environ_setenv (g_get_environ (), "ASAN_OPTIONS", "detect_leaks=0", TRUE);

  g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed:\n%s\n%s", argv[0], out, err);
}

/* The session every test reads; made once, for real. */
static void
make_session (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *csv = NULL;

  tmp_dir = g_dir_make_tmp ("assay-test-gallery-XXXXXX", &error);
  g_assert_no_error (error);
  data_dir = g_build_filename (tmp_dir, "data", NULL);
  g_assert_cmpint (g_mkdir (data_dir, 0700), ==, 0);
  csv = g_build_filename (data_dir, "sales.csv", NULL);
  session_dir = g_build_filename (tmp_dir, "session", NULL);

  run ((const char *[]) { PYTHON3, MAKE_SALES_CSV, csv, NULL });
  run ((const char *[]) { ASSAY_CLI, "ask", "--provider", "recorded", "--transcript", SALES_TRANSCRIPT,
                          "--data", csv, "--yes", "--backend", "bwrap", "--out", session_dir,
                          "Analyse Q3 sales", NULL });
  /* Its answer's "25 rows, 4 columns" were printed by no cell: no second try is scripted. */
  run ((const char *[]) { ASSAY_CLI, "ask", "--provider", "recorded", "--transcript", TABLE_TRANSCRIPT,
                          "--yes", "--no-check-numbers", "--backend", "bwrap", "--resume", session_dir,
                          "Write the monthly totals as a table", NULL });
}

static void
remove_tmp (void)
{
  g_autofree char *command = g_strdup_printf ("rm -rf '%s'", tmp_dir);

  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
}

static AssayArtifactList *
load_list (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);

  g_assert_no_error (error);
  return assay_artifact_list_new_for_session (session);
}

static AssayArtifactItem *
find_item (AssayArtifactList *list,
           const char        *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (list)); i++)
    {
      g_autoptr(AssayArtifactItem) item = g_list_model_get_item (G_LIST_MODEL (list), i);

      if (g_str_equal (assay_artifact_item_get_name (item), name))
        return item;   /* the list keeps it */
    }
  g_error ("No artifact %s", name);
}

static GtkWindow *
show_in_window (GtkWidget *widget,
                int        width,
                int        height)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, width, height);
  gtk_window_set_child (window, widget);
  gtk_window_present (window);
  WAIT_UNTIL (gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0);
  return window;
}

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_descendant (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* ---- the list ---------------------------------------------------------------------------- */

static void
test_list (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  static const struct { const char *name; AssayArtifactKind kind; const char *cell; } expected[] = {
    { "table.csv", ASSAY_ARTIFACT_KIND_TABLE, "c7" },
    { "notes.txt", ASSAY_ARTIFACT_KIND_OTHER, "c7" },
    { "sales_report.pdf", ASSAY_ARTIFACT_KIND_DOCUMENT, "c6" },
    { "funnel.png", ASSAY_ARTIFACT_KIND_FIGURE, "c5" },
    { "abc_pareto.png", ASSAY_ARTIFACT_KIND_FIGURE, "c4" },
    { "monthly_sales.png", ASSAY_ARTIFACT_KIND_FIGURE, "c3" },
  };

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(AssayArtifactItem) item = g_list_model_get_item (G_LIST_MODEL (list), i);
      g_autofree char *prefix = g_strconcat (session_dir, "/artifacts/", NULL);

      g_assert_cmpstr (assay_artifact_item_get_name (item), ==, expected[i].name);
      g_assert_cmpint (assay_artifact_item_get_kind (item), ==, expected[i].kind);
      g_assert_cmpstr (assay_artifact_item_get_cell_id (item), ==, expected[i].cell);
      g_assert_true (g_str_has_prefix (assay_artifact_item_get_path (item), prefix));
      g_assert_cmpuint (assay_artifact_item_get_order (item), ==, G_N_ELEMENTS (expected) - 1 - i);
      g_assert_cmpuint (assay_artifact_item_get_bytes (item), >, 0);
    }
  g_assert_finalize_object (g_steal_pointer (&list));
}

/* ---- the gallery ------------------------------------------------------------------------- */

static void
test_gallery (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  AssayArtifactGallery *gallery = g_object_ref_sink (ASSAY_ARTIFACT_GALLERY (assay_artifact_gallery_new ()));
  GtkWindow *window = show_in_window (GTK_WIDGET (gallery), 1200, 900);
  GListModel *visible = assay_artifact_gallery_get_visible (gallery);
  const char *with_thumbnails[] = { "sales_report.pdf", "funnel.png", "abc_pareto.png", "monthly_sales.png" };
  GdkTexture *texture;
  AssayArtifactItem *activated = NULL;
  GtkWidget *grid;

  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 0);
  assay_artifact_gallery_set_model (gallery, list);
  g_assert_true (assay_artifact_gallery_get_model (gallery) == list);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 6);

  /* Thumbnails are made off the main thread for the tiles on screen. */
  for (guint i = 0; i < G_N_ELEMENTS (with_thumbnails); i++)
    {
      AssayArtifactItem *item = find_item (list, with_thumbnails[i]);

      WAIT_UNTIL (assay_artifact_gallery_get_thumbnail (gallery, item) != NULL);
      texture = assay_artifact_gallery_get_thumbnail (gallery, item);
      g_assert_cmpint (gdk_texture_get_width (texture), <=, 2 * ASSAY_ARTIFACT_GALLERY_THUMBNAIL_WIDTH);
      g_assert_cmpint (gdk_texture_get_height (texture), <=, 2 * ASSAY_ARTIFACT_GALLERY_THUMBNAIL_HEIGHT);
    }
  /* 960 x 540 scaled into 384 x 288 keeps its aspect; A4's first page too. */
  texture = assay_artifact_gallery_get_thumbnail (gallery, find_item (list, "monthly_sales.png"));
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 384);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, 216);
  texture = assay_artifact_gallery_get_thumbnail (gallery, find_item (list, "sales_report.pdf"));
  g_assert_cmpfloat_with_epsilon ((double) gdk_texture_get_width (texture) / gdk_texture_get_height (texture),
                                  595.276 / 841.89, 0.01);
  /* Tables and other files show an icon. */
  g_assert_null (assay_artifact_gallery_get_thumbnail (gallery, find_item (list, "table.csv")));
  g_assert_null (assay_artifact_gallery_get_thumbnail (gallery, find_item (list, "notes.txt")));
  WAIT_UNTIL (assay_artifact_gallery_get_n_pending (gallery) == 0);

  /* Filters. */
  assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_FIGURES);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(AssayArtifactItem) item = g_list_model_get_item (visible, i);

      g_assert_cmpint (assay_artifact_item_get_kind (item), ==, ASSAY_ARTIFACT_KIND_FIGURE);
    }
  assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_TABLES);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 1);
  assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_DOCUMENTS);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 1);
  assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_OTHER);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 1);
  assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_ALL);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 6);

  /* Where the buttons do not fit, the same filters are a drop-down, kept in step with them. */
  {
    GtkDropDown *dropdown = GTK_DROP_DOWN (gtk_widget_get_template_child (GTK_WIDGET (gallery), ASSAY_TYPE_ARTIFACT_GALLERY,
                                                                          "filter_dropdown"));
    GtkToggleButton *tables = GTK_TOGGLE_BUTTON (gtk_widget_get_template_child (GTK_WIDGET (gallery),
                                                                                ASSAY_TYPE_ARTIFACT_GALLERY,
                                                                                "filter_tables"));

    g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, ASSAY_GALLERY_FILTER_ALL);
    gtk_drop_down_set_selected (dropdown, ASSAY_GALLERY_FILTER_TABLES);
    g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 1);
    g_assert_true (gtk_toggle_button_get_active (tables));
    assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_FIGURES);
    g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, ASSAY_GALLERY_FILTER_FIGURES);
    gtk_drop_down_set_selected (dropdown, ASSAY_GALLERY_FILTER_ALL);
    g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 6);
  }

  /* Activating a tile names its artifact; the newest is first. */
  g_signal_connect_swapped (gallery, "artifact-activated", G_CALLBACK (g_set_object), &activated);
  grid = find_descendant (GTK_WIDGET (gallery), GTK_TYPE_GRID_VIEW);
  g_assert_nonnull (grid);
  /* As a click on the first tile would. */
  g_signal_emit_by_name (grid, "activate", 0);
  g_assert_nonnull (activated);
  g_assert_cmpstr (assay_artifact_item_get_name (activated), ==, "table.csv");
  g_clear_object (&activated);

  gtk_window_destroy (window);
  g_assert_finalize_object (gallery);
  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
test_gallery_empty_and_live (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_build_filename (tmp_dir, "empty-session", NULL);
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssayArtifactList) list = NULL;
  AssayArtifactGallery *gallery = g_object_ref_sink (ASSAY_ARTIFACT_GALLERY (assay_artifact_gallery_new ()));
  GtkWindow *window = show_in_window (GTK_WIDGET (gallery), 800, 600);
  g_autofree char *chart = NULL;
  g_autofree char *source = g_build_filename (session_dir, "artifacts", "c5-funnel.png", NULL);
  g_autofree char *contents = NULL;
  /* The gallery's own stack (the filters' drop-down has one too). */
  GtkStack *stack = GTK_STACK (gtk_widget_get_template_child (GTK_WIDGET (gallery), ASSAY_TYPE_ARTIFACT_GALLERY,
                                                              "stack"));
  gsize length;

  g_assert_no_error (error);
  list = assay_artifact_list_new_for_session (session);
  assay_artifact_gallery_set_model (gallery, list);
  g_assert_cmpuint (g_list_model_get_n_items (assay_artifact_gallery_get_visible (gallery)), ==, 0);
  /* An empty session says so. */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "empty");

  /* The window adds what the agent reports while it runs. */
  g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
  chart = g_build_filename (dir, "artifacts", "c1-funnel.png", NULL);
  g_assert_true (g_file_set_contents (chart, contents, length, NULL));
  g_assert_true (assay_artifact_list_add (list, "c1", "funnel.png", chart, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (assay_artifact_gallery_get_visible (gallery)), ==, 1);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "grid");
  /* A filter that matches nothing says so too. */
  assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_TABLES);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "empty");
  assay_artifact_gallery_set_filter (gallery, ASSAY_GALLERY_FILTER_ALL);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "grid");
  WAIT_UNTIL (assay_artifact_gallery_get_thumbnail (gallery, find_item (list, "funnel.png")) != NULL);

  /* Closing with work in flight: a new model, then at once the window. */
  assay_artifact_gallery_set_model (gallery, NULL);
  assay_artifact_gallery_set_model (gallery, list);
  gtk_window_destroy (window);
  g_assert_finalize_object (gallery);
  spin (200);
  g_assert_finalize_object (g_steal_pointer (&list));
}

/* ---- the viewers ------------------------------------------------------------------------- */

static void
test_pdf (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  AssayArtifactItem *item = find_item (list, "sales_report.pdf");
  AssayArtifactViewer *viewer = g_object_ref_sink (ASSAY_ARTIFACT_VIEWER (assay_artifact_viewer_new ()));
  GtkWindow *window = show_in_window (GTK_WIDGET (viewer), 900, 700);
  AssayPdfView *view = assay_artifact_viewer_get_pdf_view (viewer);
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = g_filename_to_uri (assay_artifact_item_get_path (item), NULL, NULL);
  PopplerDocument *reference = poppler_document_new_from_file (uri, NULL, &error);
  PopplerPage *page;
  double page_width, page_height;
  GdkTexture *first, *second;
  gpointer document, texture_weak;
  int width;

  g_assert_no_error (error);
  page = poppler_document_get_page (reference, 0);
  poppler_page_get_size (page, &page_width, &page_height);
  g_object_unref (page);
  g_object_unref (reference);

  assay_artifact_viewer_set_item (viewer, item);
  g_assert_cmpstr (assay_artifact_viewer_get_page (viewer), ==, "pdf");
  WAIT_UNTIL (assay_pdf_view_get_texture (view) != NULL);
  g_assert_cmpint (assay_pdf_view_get_n_pages (view), ==, 2);
  g_assert_cmpint (assay_pdf_view_get_page (view), ==, 0);
  first = assay_pdf_view_get_texture (view);
  /* Page 1 at 96 dpi (zoom 1), the page's aspect. */
  width = gdk_texture_get_width (first);
  g_assert_cmpint (abs (width - (int) (page_width * 96 / 72 * gtk_widget_get_scale_factor (GTK_WIDGET (view)))), <=, 1);
  g_assert_cmpfloat_with_epsilon ((double) width / gdk_texture_get_height (first),
                                  page_width / page_height, 0.005);
  g_assert_true (assay_artifact_viewer_get_texture (viewer) == first);
  gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.previous-page", NULL);
  g_assert_cmpint (assay_pdf_view_get_page (view), ==, 0);

  /* The next page. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.next-page", NULL));
  g_assert_cmpint (assay_pdf_view_get_page (view), ==, 1);
  WAIT_UNTIL (assay_pdf_view_get_texture (view) != NULL && assay_pdf_view_get_texture (view) != first);
  second = assay_pdf_view_get_texture (view);
  g_assert_cmpint (gdk_texture_get_width (second), ==, width);

  /* Zooming renders bigger. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-in", NULL));
  g_assert_cmpfloat_with_epsilon (assay_pdf_view_get_zoom (view), 1.25, 1e-9);
  WAIT_UNTIL (assay_pdf_view_get_texture (view) != second);
  g_assert_cmpint (abs (gdk_texture_get_width (assay_pdf_view_get_texture (view)) - (int) (width * 1.25)), <=, 2);

  /* Back to page 1 at 100 %: straight from the cache, no render. */
  assay_pdf_view_set_zoom (view, 1.0);
  assay_pdf_view_set_page (view, 0);
  g_assert_true (assay_pdf_view_get_texture (view) == first);
  g_assert_false (assay_pdf_view_get_loading (view));

  /* Closing while a render is in flight cancels it and leaks nothing: the view goes at
   * once, and the worker's reference to the document is dropped when it stops. */
  document = assay_pdf_view_get_document (view);
  g_assert_nonnull (document);
  g_object_add_weak_pointer (document, &document);
  texture_weak = first;
  g_object_add_weak_pointer (texture_weak, &texture_weak);
  assay_pdf_view_set_zoom (view, 3.0);
  assay_pdf_view_next_page (view);
  g_assert_true (assay_pdf_view_get_loading (view));
  gtk_window_destroy (window);
  g_assert_finalize_object (viewer);
  WAIT_UNTIL (document == NULL);
  g_assert_null (texture_weak);
  spin (100);
  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
test_image (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  AssayArtifactViewer *viewer = g_object_ref_sink (ASSAY_ARTIFACT_VIEWER (assay_artifact_viewer_new ()));
  GtkWindow *window = show_in_window (GTK_WIDGET (viewer), 600, 450);
  AssayImageView *view = assay_artifact_viewer_get_image_view (viewer);
  GtkAdjustment *hadjustment = assay_image_view_get_hadjustment (view);
  GtkAdjustment *vadjustment = assay_image_view_get_vadjustment (view);
  GdkClipboard *clipboard;
  double h, v;

  assay_artifact_viewer_set_item (viewer, find_item (list, "monthly_sales.png"));
  g_assert_cmpstr (assay_artifact_viewer_get_page (viewer), ==, "image");
  WAIT_UNTIL (assay_image_view_get_texture (view) != NULL);
  g_assert_cmpint (gdk_texture_get_width (assay_image_view_get_texture (view)), ==, 960);
  g_assert_cmpint (gdk_texture_get_height (assay_image_view_get_texture (view)), ==, 540);

  /* Fitted at first: smaller than 100 % in a 600 px wide window. */
  g_assert_true (assay_image_view_get_fit (view));
  spin (100);
  g_assert_cmpfloat (assay_image_view_get_zoom (view), <, 1.0);
  g_assert_cmpfloat (assay_image_view_get_zoom (view), >, 0.3);

  /* 100 %, then zoomed in: the content is larger than the view. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-reset", NULL));
  g_assert_false (assay_image_view_get_fit (view));
  g_assert_cmpfloat_with_epsilon (assay_image_view_get_zoom (view), 1.0, 1e-9);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-in", NULL));
  g_assert_cmpfloat_with_epsilon (assay_image_view_get_zoom (view), 1.25, 1e-9);
  WAIT_UNTIL (gtk_adjustment_get_upper (hadjustment) >= 1199);
  g_assert_cmpfloat (gtk_adjustment_get_upper (hadjustment), >, gtk_adjustment_get_page_size (hadjustment));
  g_assert_cmpfloat (gtk_adjustment_get_upper (vadjustment), >, gtk_adjustment_get_page_size (vadjustment));
  /* Zoomed about the centre: the view is scrolled to the middle. */
  g_assert_cmpfloat (gtk_adjustment_get_value (hadjustment), >, 0);

  /* Panning moves the adjustments. */
  assay_image_view_scroll_by (view, -1e6, -1e6);
  g_assert_cmpfloat (gtk_adjustment_get_value (hadjustment), ==, 0);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadjustment), ==, 0);
  assay_image_view_scroll_by (view, 40, 30);
  h = gtk_adjustment_get_value (hadjustment);
  v = gtk_adjustment_get_value (vadjustment);
  g_assert_cmpfloat (h, ==, 40);
  g_assert_cmpfloat (v, ==, 30);

  /* Zooming out again, then fitting. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-out", NULL));
  g_assert_cmpfloat_with_epsilon (assay_image_view_get_zoom (view), 1.0, 1e-9);
  WAIT_UNTIL (gtk_adjustment_get_upper (hadjustment) <= 961);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (viewer), "viewer.zoom-fit", NULL));
  g_assert_true (assay_image_view_get_fit (view));

  /* Copy puts the image on the clipboard. */
  g_assert_true (assay_artifact_viewer_copy (viewer));
  clipboard = gtk_widget_get_clipboard (GTK_WIDGET (viewer));
  g_assert_true (gdk_content_formats_contain_gtype (gdk_clipboard_get_formats (clipboard), GDK_TYPE_TEXTURE));
  gdk_clipboard_set_content (clipboard, NULL);

  gtk_window_destroy (window);
  g_assert_finalize_object (viewer);
  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
test_csv (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  AssayArtifactViewer *viewer = g_object_ref_sink (ASSAY_ARTIFACT_VIEWER (assay_artifact_viewer_new ()));
  GtkWindow *window = show_in_window (GTK_WIDGET (viewer), 800, 600);
  AssayCsvView *view = assay_artifact_viewer_get_csv_view (viewer);
  GListModel *columns;
  g_autoptr(GtkColumnViewColumn) first = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) big = g_string_new ("id;name\n");
  g_autofree char *big_path = NULL;

  assay_artifact_viewer_set_item (viewer, find_item (list, "table.csv"));
  g_assert_cmpstr (assay_artifact_viewer_get_page (viewer), ==, "csv");
  WAIT_UNTIL (!assay_csv_view_get_loading (view));
  g_assert_null (assay_csv_view_get_error (view));
  WAIT_UNTIL (assay_csv_view_get_complete (view));
  g_assert_cmpuint (assay_csv_view_get_n_rows (view), ==, 25);
  g_assert_cmpuint (assay_csv_view_get_n_columns (view), ==, 4);
  g_assert_false (assay_csv_view_get_truncated (view));
  columns = gtk_column_view_get_columns (assay_csv_view_get_column_view (view));
  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, 4);
  first = g_list_model_get_item (columns, 0);
  g_assert_cmpstr (gtk_column_view_column_get_title (first), ==, "month");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (assay_csv_view_get_column_view (view)))), ==, 25);
  g_assert_cmpstr (assay_csv_view_get_cell (view, 0, 0), ==, "2024-01");
  g_assert_cmpstr (assay_csv_view_get_cell (view, 2, 3), ==, "has, comma");
  g_assert_cmpstr (assay_csv_view_get_cell (view, 24, 2), ==, "25012.50");
  g_assert_null (assay_csv_view_get_cell (view, 25, 0));

  /* Long: every row, read as the model indexes it (no cap). Semicolons, for the sniffer. */
  for (guint i = 0; i < 12050; i++)
    g_string_append_printf (big, "%u;\"row %u\"\r\n", i, i);
  big_path = g_build_filename (session_dir, "artifacts", "big.csv", NULL);
  g_assert_true (g_file_set_contents (big_path, big->str, big->len, NULL));
  g_assert_true (assay_artifact_list_add (list, "c7", "big.csv", big_path, &error));
  g_assert_no_error (error);
  assay_artifact_viewer_set_item (viewer, find_item (list, "big.csv"));
  WAIT_UNTIL (assay_csv_view_get_complete (view));
  g_assert_cmpuint (assay_csv_view_get_n_rows (view), ==, 12050);
  g_assert_cmpuint (assay_csv_view_get_total_rows (view), ==, 12050);
  g_assert_cmpuint (assay_csv_view_get_n_columns (view), ==, 2);
  g_assert_false (assay_csv_view_get_truncated (view));
  g_assert_cmpstr (assay_csv_view_get_cell (view, 12049, 1), ==, "row 12049");
  g_unlink (big_path);

  /* A Windows-1251 export with semicolons and decimal commas, as Excel writes it in Russia:
   * the core's sniffer reads it, so the names are Cyrillic, not replacement characters. */
  {
    static const char cp1251[] = "\xd0\xe5\xe3\xe8\xee\xed;\xd1\xf3\xec\xec\xe0\r\n"   /* Регион;Сумма */
                                 "\xd1\xe5\xe2\xe5\xf0;1234,50\r\n"                        /* Север;1234,50 */
                                 "\xde\xe3;99,90\r\n";                                      /* Юг;99,90 */
    g_autofree char *legacy_path = g_build_filename (session_dir, "artifacts", "regions-1251.csv", NULL);
    g_autoptr(GtkColumnViewColumn) region = NULL;

    g_assert_true (g_file_set_contents (legacy_path, cp1251, sizeof cp1251 - 1, NULL));
    g_assert_true (assay_artifact_list_add (list, "c8", "regions-1251.csv", legacy_path, &error));
    g_assert_no_error (error);
    assay_artifact_viewer_set_item (viewer, find_item (list, "regions-1251.csv"));
    WAIT_UNTIL (assay_csv_view_get_complete (view));
    g_assert_null (assay_csv_view_get_error (view));
    g_assert_cmpuint (assay_csv_view_get_n_columns (view), ==, 2);
    g_assert_cmpuint (assay_csv_view_get_n_rows (view), ==, 2);
    region = g_list_model_get_item (gtk_column_view_get_columns (assay_csv_view_get_column_view (view)), 0);
    g_assert_cmpstr (gtk_column_view_column_get_title (region), ==, "Регион");
    g_assert_cmpstr (assay_csv_view_get_cell (view, 0, 0), ==, "Север");
    g_assert_cmpstr (assay_csv_view_get_cell (view, 1, 0), ==, "Юг");
    g_assert_cmpstr (assay_csv_view_get_cell (view, 1, 1), ==, "99,90");
    g_unlink (legacy_path);
  }

  /* Not a table: the reason, not an empty grid. */
  {
    g_autofree char *binary_path = g_build_filename (session_dir, "artifacts", "binary.csv", NULL);

    g_assert_true (g_file_set_contents (binary_path, "PK\x03\x04\0\0\0\0\x01\x02", 10, NULL));
    g_assert_true (assay_artifact_list_add (list, "c9", "binary.csv", binary_path, &error));
    g_assert_no_error (error);
    assay_artifact_viewer_set_item (viewer, find_item (list, "binary.csv"));
    WAIT_UNTIL (!assay_csv_view_get_loading (view));
    g_assert_nonnull (assay_csv_view_get_error (view));
    g_assert_cmpuint (assay_csv_view_get_n_rows (view), ==, 0);
    g_unlink (binary_path);
  }

  gtk_window_destroy (window);
  g_assert_finalize_object (viewer);
  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
test_file (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  AssayArtifactViewer *viewer = g_object_ref_sink (ASSAY_ARTIFACT_VIEWER (assay_artifact_viewer_new ()));
  GtkWindow *window = show_in_window (GTK_WIDGET (viewer), 800, 600);
  AssayFileView *view = assay_artifact_viewer_get_file_view (viewer);

  assay_artifact_viewer_set_item (viewer, find_item (list, "notes.txt"));
  g_assert_cmpstr (assay_artifact_viewer_get_page (viewer), ==, "file");
  g_assert_nonnull (strstr (assay_file_view_get_details (view), "29 bytes"));
  g_assert_nonnull (strstr (assay_file_view_get_details (view), "text/plain"));
  g_assert_null (assay_artifact_viewer_get_texture (viewer));
  g_assert_false (assay_artifact_viewer_copy (viewer));

  assay_artifact_viewer_set_item (viewer, NULL);
  g_assert_cmpstr (assay_artifact_viewer_get_page (viewer), ==, "empty");

  gtk_window_destroy (window);
  g_assert_finalize_object (viewer);
  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
on_saved (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static void
test_save_as (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  AssayArtifactItem *item = find_item (list, "sales_report.pdf");
  AssayArtifactViewer *viewer = g_object_ref_sink (ASSAY_ARTIFACT_VIEWER (assay_artifact_viewer_new ()));
  g_autofree char *copy_path = g_build_filename (tmp_dir, "saved copy.pdf", NULL);
  g_autoptr(GFile) copy = g_file_new_for_path (copy_path);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *original = NULL;
  g_autofree char *saved = NULL;
  gsize original_length, saved_length;

  assay_artifact_viewer_set_item (viewer, item);
  assay_artifact_viewer_save_async (viewer, copy, NULL, on_saved, &result);
  WAIT_UNTIL (result != NULL);
  g_assert_true (assay_artifact_viewer_save_finish (viewer, result, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (assay_artifact_item_get_path (item), &original, &original_length, NULL));
  g_assert_true (g_file_get_contents (copy_path, &saved, &saved_length, NULL));
  g_assert_cmpmem (original, original_length, saved, saved_length);
  g_clear_object (&result);

  assay_artifact_viewer_set_item (viewer, NULL);
  g_assert_finalize_object (viewer);
  g_assert_finalize_object (g_steal_pointer (&list));
}

static void
test_drag (void)
{
  g_autoptr(AssayArtifactList) list = load_list (session_dir);
  AssayArtifactItem *item = find_item (list, "funnel.png");
  g_autoptr(GdkContentProvider) provider = assay_artifact_content_provider_new (item);
  g_autoptr(GdkContentFormats) formats = gdk_content_provider_ref_formats (provider);
  g_auto(GValue) value = G_VALUE_INIT;
  g_auto(GValue) list_value = G_VALUE_INIT;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  GSList *files;

  g_assert_true (gdk_content_formats_contain_gtype (formats, G_TYPE_FILE));
  g_assert_true (gdk_content_formats_contain_gtype (formats, GDK_TYPE_FILE_LIST));

  g_value_init (&value, G_TYPE_FILE);
  g_assert_true (gdk_content_provider_get_value (provider, &value, &error));
  g_assert_no_error (error);
  path = g_file_get_path (g_value_get_object (&value));
  g_assert_cmpstr (path, ==, assay_artifact_item_get_path (item));

  g_value_init (&list_value, GDK_TYPE_FILE_LIST);
  g_assert_true (gdk_content_provider_get_value (provider, &list_value, &error));
  g_assert_no_error (error);
  files = gdk_file_list_get_files (g_value_get_boxed (&list_value));
  g_assert_cmpuint (g_slist_length (files), ==, 1);
  g_clear_pointer (&path, g_free);
  path = g_file_get_path (files->data);
  g_assert_cmpstr (path, ==, assay_artifact_item_get_path (item));
  g_slist_free (files);

  g_assert_finalize_object (g_steal_pointer (&provider));
  g_assert_finalize_object (g_steal_pointer (&list));
}

/* ---- hostile entries --------------------------------------------------------------------- */

static void
add_record_entry (JsonArray  *artifacts,
                  const char *name,
                  const char *path)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "name", name);
  json_object_set_string_member (entry, "path", path);
  json_object_set_int_member (entry, "bytes", 10);
  json_object_set_string_member (entry, "mime", "image/png");
  json_object_set_boolean_member (entry, "truncated", FALSE);
  json_array_add_object_element (artifacts, entry);
}

static void
test_hostile (void)
{
  g_autofree char *copy = g_build_filename (tmp_dir, "tampered", NULL);
  g_autofree char *command = g_strdup_printf ("cp -a '%s' '%s'", session_dir, copy);
  g_autofree char *record = g_build_filename (copy, "session.json", NULL);
  g_autofree char *evil = g_build_filename (copy, "artifacts", "c3-evil.png", NULL);
  g_autofree char *chart = g_build_filename (copy, "artifacts", "c3-monthly_sales.png", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayArtifactList) list = NULL;
  JsonArray *cells;
  AssayArtifactViewer *viewer;
  GtkWindow *window;

  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
  g_assert_cmpint (symlink ("/etc/passwd", evil), ==, 0);

  /* A record that names files outside the folder and through a link. */
  g_assert_true (json_parser_load_from_file (parser, record, &error));
  g_assert_no_error (error);
  cells = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cells");
  {
    JsonObject *cell = json_array_get_object_element (cells, 2);
    JsonArray *artifacts = json_object_get_array_member (cell, "artifacts");

    add_record_entry (artifacts, "passwd", "../../etc/passwd");
    add_record_entry (artifacts, "absolute", "/etc/passwd");
    add_record_entry (artifacts, "evil.png", "artifacts/c3-evil.png");
  }
  json_generator_set_root (generator, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (generator, record, &error));
  g_assert_no_error (error);

  list = load_list (copy);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 6);
  for (guint i = 0; i < 6; i++)
    {
      g_autoptr(AssayArtifactItem) item = g_list_model_get_item (G_LIST_MODEL (list), i);

      g_assert_cmpstr (assay_artifact_item_get_name (item), !=, "passwd");
      g_assert_cmpstr (assay_artifact_item_get_name (item), !=, "evil.png");
    }

  /* As live additions. */
  g_assert_false (assay_artifact_list_add (list, "c3", "passwd", "../../etc/passwd", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_assert_false (assay_artifact_list_add (list, "c3", "evil.png", evil, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_assert_false (assay_artifact_list_add (list, "c3", "passwd", "/etc/passwd", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 6);

  /* A listed file swapped for a link afterwards: the viewer refuses to read it. */
  g_assert_cmpint (g_unlink (chart), ==, 0);
  g_assert_cmpint (symlink ("/etc/passwd", chart), ==, 0);
  viewer = g_object_ref_sink (ASSAY_ARTIFACT_VIEWER (assay_artifact_viewer_new ()));
  window = show_in_window (GTK_WIDGET (viewer), 600, 400);
  assay_artifact_viewer_set_item (viewer, find_item (list, "monthly_sales.png"));
  WAIT_UNTIL (!assay_image_view_get_loading (assay_artifact_viewer_get_image_view (viewer)));
  g_assert_null (assay_image_view_get_texture (assay_artifact_viewer_get_image_view (viewer)));
  g_assert_nonnull (strstr (assay_image_view_get_error (assay_artifact_viewer_get_image_view (viewer)),
                            "symbolic link"));
  g_assert_cmpstr (assay_artifact_viewer_get_page (viewer), ==, "error");

  gtk_window_destroy (window);
  g_assert_finalize_object (viewer);
  g_assert_finalize_object (g_steal_pointer (&list));
}

/* libadwaita 1.2 crashed when a toast that replaced one still hiding was dismissed during its
 * show animation (longer than the hide): the hide's end freed the toast's record and the
 * show's end touched it. The queue hands a toast to the overlay only once the previous one
 * is gone, and the sequence that crashed runs here. */
static void
test_toast_queue (void)
{
  AdwToastOverlay *overlay = ADW_TOAST_OVERLAY (adw_toast_overlay_new ());
  GtkWindow *window = show_in_window (GTK_WIDGET (overlay), 400, 300);
  g_autoptr(AssayToastQueue) queue = assay_toast_queue_new (overlay);
  AdwToast *first = adw_toast_new ("first");
  AdwToast *second = adw_toast_new ("second");
  AdwToast *third = adw_toast_new ("third");

  g_object_add_weak_pointer (G_OBJECT (first), (gpointer *) &first);
  g_object_add_weak_pointer (G_OBJECT (second), (gpointer *) &second);
  g_object_add_weak_pointer (G_OBJECT (third), (gpointer *) &third);

  assay_toast_queue_add (queue, first);
  assay_toast_queue_add (queue, second);
  WAIT_UNTIL (assay_toast_queue_get_shown (queue) != NULL);
  g_assert_true (assay_toast_queue_get_shown (queue) == first);
  spin (100);
  g_assert_true (assay_toast_queue_get_shown (queue) == first);   /* the second waits */

  adw_toast_dismiss (first);   /* what its close button does */
  WAIT_UNTIL (assay_toast_queue_get_shown (queue) == second);
  g_assert_null (first);       /* gone from the overlay before the second came */

  /* Dismissed at once, a third queued, the overlay unmapped in the middle of it all. */
  spin (30);
  assay_toast_queue_add (queue, third);
  adw_toast_dismiss (second);
  spin (30);
  gtk_widget_set_visible (GTK_WIDGET (window), FALSE);
  spin (100);
  gtk_widget_set_visible (GTK_WIDGET (window), TRUE);
  WAIT_UNTIL (second == NULL && assay_toast_queue_get_shown (queue) == third);

  /* Dismissing all drops what waits and dismisses what shows. */
  assay_toast_queue_add (queue, adw_toast_new ("never shown"));
  assay_toast_queue_dismiss_all (queue);
  WAIT_UNTIL (third == NULL);
  spin (100);
  g_assert_null (assay_toast_queue_get_shown (queue));
  gtk_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  make_session ();

  g_test_add_func ("/assay/gallery/list", test_list);
  g_test_add_func ("/assay/gallery/gallery", test_gallery);
  g_test_add_func ("/assay/gallery/empty-and-live", test_gallery_empty_and_live);
  g_test_add_func ("/assay/gallery/pdf", test_pdf);
  g_test_add_func ("/assay/gallery/image", test_image);
  g_test_add_func ("/assay/gallery/csv", test_csv);
  g_test_add_func ("/assay/gallery/file", test_file);
  g_test_add_func ("/assay/gallery/save-as", test_save_as);
  g_test_add_func ("/assay/gallery/drag", test_drag);
  g_test_add_func ("/assay/gallery/hostile", test_hostile);
  g_test_add_func ("/assay/gallery/toast-queue", test_toast_queue);

  status = g_test_run ();
  remove_tmp ();
  return status;
}
