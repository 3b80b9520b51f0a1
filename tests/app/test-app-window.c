/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window without a sandbox: it opens and goes without leaks, the onboarding finds a
 * local server, unsupported files get a toast, the sessions sidebar lists, searches, reopens,
 * renames and deletes sessions; opening a long session off the main thread, the latest of
 * two opens winning, a damaged one leaving the current session be; the Markdown view and the
 * diff. */
#include "config.h"

#include <unistd.h>

#include <glib/gstdio.h>
#include <string.h>

#include "assay-chat-view.h"
#include "assay-markdown-view.h"
#include "assay-sandbox-image.h"
#include "assay-onboarding.h"
#include "assay-preferences.h"
#include "assay-sandbox-banner.h"
#include "assay-session.h"
#include "assay-sessions-sidebar.h"
#include "assay-step-card.h"
#include "assay-artifact-gallery.h"
#include "assay-code-review.h"
#include <gtksourceview/gtksource.h>
#include "assay-window-private.h"
#include "gui-test-util.h"
#include "session-fixture.h"

static GSettings *settings;

static AssayWindow *
open_window (void)
{
  AssayWindow *window = g_object_ref (assay_window_new (NULL));

  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  return window;
}

static void
ready_cb (GtkWidget *banner,
          gboolean  *ready)
{
  *ready = TRUE;
}

static gboolean
is_true (gpointer data)
{
  return *(gboolean *) data;
}

static gboolean
source_languages_set (gpointer data)
{
  GPtrArray *views = data;

  for (guint i = 0; i < views->len; i++)
    if (gtk_source_buffer_get_language (GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (g_ptr_array_index (views, i)))) == NULL)
      return FALSE;
  return TRUE;
}

static void
test_finalize (void)
{
  AssayWindow *window;
  AssaySandboxBanner *banner;
  gboolean ready = FALSE;
  g_autoptr(GPtrArray) views = g_ptr_array_new ();
  g_autoptr(GString) languages = g_string_new (NULL);

  g_settings_set_string (settings, "provider", "openai");
  /* The code pane's languages are loaded after the first frame (GtkSourceView reads every
   * language file then), not while the window is made. */
  window = g_object_ref (assay_window_new (NULL));
  gui_collect (GTK_WIDGET (assay_window_get_code_review (window)), GTK_SOURCE_TYPE_VIEW, views);
  g_assert_cmpuint (views->len, ==, 2);
  g_assert_false (source_languages_set (views));
  gtk_window_present (GTK_WINDOW (window));
  gui_wait (source_languages_set, views, 20, "the code pane's languages");
  for (guint i = 0; i < views->len; i++)
    g_string_append_printf (languages, "%s ", gtk_source_language_get_id (gtk_source_buffer_get_language (
                              GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (g_ptr_array_index (views, i))))));
  g_assert_true (g_str_equal (languages->str, "python3 diff ") || g_str_equal (languages->str, "diff python3 "));
  g_assert_cmpstr (assay_code_review_get_language (assay_window_get_code_review (window)), ==, "python3");
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  /* The Files and Data pages are made when first shown (test-app-privacy), and the
   * onboarding when needed: not here. */
  g_assert_null (gui_find (GTK_WIDGET (window), ASSAY_TYPE_DATA_PREVIEW, NULL));
  g_assert_null (gui_find (GTK_WIDGET (window), ASSAY_TYPE_ONBOARDING, NULL));
  /* The sandbox image is there (the sandbox suite built it): no banner. */
  banner = ASSAY_SANDBOX_BANNER (gui_find (GTK_WIDGET (window), ASSAY_TYPE_SANDBOX_BANNER, NULL));
  g_signal_connect (banner, "ready", G_CALLBACK (ready_cb), &ready);
  assay_sandbox_banner_check (banner);
  gui_wait (is_true, &ready, 20, "the sandbox check");
  g_assert_false (assay_sandbox_banner_get_shown (banner));
  gui_close_window (window);
  g_settings_reset (settings, "provider");
}

/* Whether NODE or a node under it is an inset shadow covering AREA or more. */
static gboolean
has_large_inset_shadow (GskRenderNode *node,
                        double         area)
{
  graphene_rect_t bounds;

  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_INSET_SHADOW_NODE:
      gsk_render_node_get_bounds (node, &bounds);
      return bounds.size.width * bounds.size.height >= area;
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        if (has_large_inset_shadow (gsk_container_node_get_child (node, i), area))
          return TRUE;
      return FALSE;
    case GSK_TRANSFORM_NODE:
      return has_large_inset_shadow (gsk_transform_node_get_child (node), area);
    case GSK_CLIP_NODE:
      return has_large_inset_shadow (gsk_clip_node_get_child (node), area);
    case GSK_DEBUG_NODE:
      return has_large_inset_shadow (gsk_debug_node_get_child (node), area);
    default:
      return FALSE;
    }
}

/* The pixel at X, Y of TEXTURE (BGRA as GdkTexture downloads), as 0xRRGGBB. */
static guint32
pixel_at (GdkTexture *texture,
          int         x,
          int         y)
{
  int width = gdk_texture_get_width (texture);
  g_autofree guchar *pixels = g_malloc ((gsize) width * gdk_texture_get_height (texture) * 4);
  const guchar *p;

  gdk_texture_download (texture, pixels, (gsize) width * 4);
  p = pixels + ((gsize) y * width + x) * 4;
  return (guint32) p[2] << 16 | (guint32) p[1] << 8 | p[0];
}

/* With no compositor (this X server has none) the window's solid frame is drawn at its edge,
 * not as inset shadows over the whole window (the GL renderer shaded every pixel for each,
 * every frame), and looks as Adwaita's own frame does on a window of the same size. */
static void
test_solid_frame (void)
{
  AssayWindow *window;
  GtkWidget *plain = adw_window_new ();
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) ours = NULL;
  g_autoptr(GdkTexture) adwaita = NULL;
  GtkSnapshot *snapshot;
  int width, height;

  g_settings_set_string (settings, "provider", "openai");
  window = open_window ();
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "solid-csd"));
  width = gtk_widget_get_width (GTK_WIDGET (window));
  height = gtk_widget_get_height (GTK_WIDGET (window));
  paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  g_assert_false (has_large_inset_shadow (node, width * height / 2.0));

  /* Adwaita's frame, on a plain window of the same size. */
  {
    int default_width, default_height;

    gtk_window_get_default_size (GTK_WINDOW (window), &default_width, &default_height);
    gtk_window_set_default_size (GTK_WINDOW (plain), default_width, default_height);
  }
  adw_window_set_content (ADW_WINDOW (plain), gtk_label_new (NULL));
  gtk_window_present (GTK_WINDOW (plain));
  gui_spin (300);
  ours = gui_render (GTK_WIDGET (window));
  adwaita = gui_render (plain);
  width = gdk_texture_get_width (ours);
  height = gdk_texture_get_height (ours);
  g_assert_cmpint (gdk_texture_get_width (adwaita), ==, width);
  g_assert_cmpint (gdk_texture_get_height (adwaita), ==, height);
  for (int d = 0; d < 5; d++)
    {
      /* Left, top, right and bottom edges, D pixels in. */
      int points[4][2] = { { d, height / 2 }, { width / 2, d }, { width - 1 - d, height / 2 }, { width / 2, height - 1 - d } };

      for (guint i = 0; i < G_N_ELEMENTS (points); i++)
        {
          guint32 a = pixel_at (ours, points[i][0], points[i][1]);
          guint32 b = pixel_at (adwaita, points[i][0], points[i][1]);

          for (int shift = 0; shift < 24; shift += 8)
            g_assert_cmpint (ABS ((int) ((a >> shift) & 0xff) - (int) ((b >> shift) & 0xff)), <=, 2);
        }
    }
  gtk_window_destroy (GTK_WINDOW (plain));
  gui_close_window (window);
  g_settings_reset (settings, "provider");
}

static gboolean
found_one (gpointer data)
{
  return assay_onboarding_get_n_found (data) >= 1;
}

static void
test_onboarding (void)
{
  g_autofree char *base_url = NULL;
  g_autofree char *log_path = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *url = NULL;
  g_autofree char *model = NULL;
  AssayWindow *window;
  AssayOnboarding *onboarding;
  const char *urls[2] = { NULL, NULL };
  const char *names[] = { "Fake llama.cpp", NULL };

  server = gui_fake_server_start ("{\"responses\": [], \"models\": {\"flavor\": \"llamacpp\", \"ids\": [\"qwen2.5-coder\", \"llama3\"]}}",
                                  &base_url, &log_path);
  g_settings_reset (settings, "provider");
  window = open_window ();
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");

  onboarding = assay_window_get_onboarding (window);
  urls[0] = base_url;
  assay_onboarding_detect (onboarding, urls, names);
  gui_wait (found_one, onboarding, 20, "the local server to be found");
  g_assert_nonnull (gui_find (GTK_WIDGET (onboarding), ADW_TYPE_COMBO_ROW, "Fake llama.cpp"));
  assay_onboarding_use_found (onboarding, 0);

  provider = g_settings_get_string (settings, "provider");
  url = g_settings_get_string (settings, "base-url");
  model = g_settings_get_string (settings, "model");
  g_assert_cmpstr (provider, ==, "openai");
  g_assert_cmpstr (url, ==, base_url);
  g_assert_cmpstr (model, ==, "llama3");
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  gui_close_window (window);

  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
  g_unlink (log_path);
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

static void
test_unsupported_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-XXXXXX", NULL);
  g_autofree char *pdf = gui_write_file (dir, "report.pdf", "%PDF-1.4");
  g_autofree char *csv = gui_write_file (dir, "small.csv", "a,b\n1,2\n");
  g_autoptr(GFile) pdf_file = g_file_new_for_path (pdf);
  g_autoptr(GFile) csv_file = g_file_new_for_path (csv);
  AssayWindow *window;
  AssaySession *session;

  g_settings_set_string (settings, "provider", "openai");
  window = open_window ();
  assay_window_add_files (window, &pdf_file, 1);
  g_assert_nonnull (strstr (assay_window_get_last_toast (window), "report.pdf"));
  g_assert_nonnull (strstr (assay_window_get_last_toast (window), "CSV, TSV, TXT and XLSX"));
  g_assert_null (assay_window_get_session (window));

  /* The same through the window's drop target, as a drag from the file manager. */
  {
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
    GtkDropTarget *target = NULL;
    GSList *list = g_slist_prepend (NULL, pdf_file);
    GValue value = G_VALUE_INIT;
    gboolean accepted = FALSE;

    for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
      {
        g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

        if (GTK_IS_DROP_TARGET (controller))
          target = GTK_DROP_TARGET (controller);
      }
    g_assert_nonnull (target);
    g_value_init (&value, GDK_TYPE_FILE_LIST);
    g_value_take_boxed (&value, gdk_file_list_new_from_list (list));
    g_signal_emit_by_name (target, "drop", &value, 0.0, 0.0, &accepted);
    g_assert_true (accepted);
    g_value_unset (&value);
    g_slist_free (list);
    g_assert_nonnull (strstr (assay_window_get_last_toast (window), "report.pdf"));
    g_assert_null (assay_window_get_session (window));
  }

  gui_add_files (window, &csv_file, 1);
  session = assay_window_get_session (window);
  g_assert_nonnull (session);
  g_assert_cmpuint (assay_session_get_datasets (session)->len, ==, 1);
  g_assert_nonnull (strstr (assay_window_get_last_toast (window), "Added small.csv"));
  gui_close_window (window);

  g_unlink (pdf);
  g_unlink (csv);
  g_rmdir (dir);
  g_settings_reset (settings, "provider");
}

static void delete_all_sessions (void);

static void
test_demo (void)
{
  AssayWindow *window;
  AssaySession *session;
  GPtrArray *datasets;
  g_autofree char *question = NULL;

  g_settings_reset (settings, "provider");
  window = open_window ();
  g_assert_cmpstr (assay_window_get_page (window), ==, "onboarding");
  g_signal_emit_by_name (assay_window_get_onboarding (window), "demo-requested");
  g_assert_cmpstr (assay_window_get_page (window), ==, "main");
  gui_wait_files_added (window);
  session = assay_window_get_session (window);
  g_assert_nonnull (session);
  datasets = assay_session_get_datasets (session);
  g_assert_cmpuint (datasets->len, ==, 1);
  g_assert_cmpstr (((AssaySessionDataset *) g_ptr_array_index (datasets, 0))->name, ==, "sales.csv");
  question = assay_chat_view_get_composer_text (assay_window_get_chat_view (window));
  g_assert_nonnull (strstr (question, "Analyse Q3 sales"));
  g_assert_nonnull (gui_find (GTK_WIDGET (window), GTK_TYPE_LABEL, "Demo: the model's answers are recorded"));
  /* The file shows in the conversation: a chip above the composer, and the empty state no
   * longer asks for files. A click on the chip shows it on the Data page. */
  {
    GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
    GtkWidget *chip_label = gui_find (chat, GTK_TYPE_LABEL, "sales.csv");
    AssayDatasetPage *page;

    g_assert_nonnull (chip_label);
    g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "Drop CSV, TSV"));
    g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Ask a question about the data below"));
    gui_spin (300);
    gui_save_screenshot (GTK_WIDGET (window), "demo-chips.png");
    gui_click (gtk_widget_get_ancestor (chip_label, GTK_TYPE_BUTTON));
    gui_spin (300);
    g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "data");
    page = assay_data_preview_get_selected_page (assay_window_get_data_preview (window));
    g_assert_nonnull (page);
    g_assert_true (g_str_has_suffix (assay_dataset_page_get_path (page), "sales.csv"));
    adw_view_stack_set_visible_child_name (window->view_stack, "chat");
    gui_spin (300);
  }
  gui_close_window (window);
}

/* 1400 → 400 → 1024 → 400 → 1400 px on the demo's session: every width shows the conversation
 * (mapped, laid out, with a size), and GTK warns of nothing (the tests run with warnings
 * fatal: "Trying to snapshot … without a current allocation" would end it). */
static void
test_resize_round_trip (void)
{
  AssayWindow *window;
  GtkWidget *chat;
  int widths[] = { 1400, 400, 1024, 400, 1400 };

  g_settings_reset (settings, "provider");
  window = open_window ();
  g_signal_emit_by_name (assay_window_get_onboarding (window), "demo-requested");
  gui_wait_files_added (window);
  chat = GTK_WIDGET (assay_window_get_chat_view (window));
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      g_autofree char *name = g_strdup_printf ("resize-%u-%d.png", i, widths[i]);

      gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 800);
      gui_spin (600);
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, widths[i] + 1);
      g_assert_true (gtk_widget_get_mapped (chat));
      g_assert_cmpint (gtk_widget_get_width (chat), >, 200);
      g_assert_cmpint (gtk_widget_get_height (chat), >, 200);
      gui_assert_laid_out (GTK_WIDGET (window));
      gui_save_screenshot (GTK_WIDGET (window), name);
    }
  gui_close_window (window);
}

/* The one toast shown stands above the conversation's foot (chips, composer, send button). */
static gboolean
toast_above_foot (gpointer data)
{
  AssayWindow *window = data;
  GtkWidget *foot = assay_chat_view_get_foot (assay_window_get_chat_view (window));
  g_autoptr(GPtrArray) toasts = g_ptr_array_new ();
  graphene_rect_t toast_bounds, foot_bounds;

  gui_collect (GTK_WIDGET (window), g_type_from_name ("AdwToastWidget"), toasts);
  return toasts->len == 1 &&
         gtk_widget_compute_bounds (g_ptr_array_index (toasts, 0), GTK_WIDGET (window), &toast_bounds) &&
         gtk_widget_compute_bounds (foot, GTK_WIDGET (window), &foot_bounds) &&
         toast_bounds.origin.y + toast_bounds.size.height <= foot_bounds.origin.y + 1 &&
         toast_bounds.origin.y + toast_bounds.size.height >= foot_bounds.origin.y - 40;
}

/* The same round trip on each page (the Data page's tabs, column strip and profile panel
 * resize with it, the Files page's gallery): every page comes back drawn, nothing left without
 * an allocation (G_DEBUG=fatal-warnings makes GTK's "snapshot without a current allocation"
 * fail the test). */
static void
test_resize_pages (void)
{
  static const char *pages[] = { "artifacts", "chat", "data" };
  int widths[] = { 1400, 400, 1024, 400, 1400 };
  AssayWindow *window;

  g_settings_reset (settings, "provider");
  window = open_window ();
  g_signal_emit_by_name (assay_window_get_onboarding (window), "demo-requested");
  gui_wait_files_added (window);
  for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
    {
      GtkWidget *stack = GTK_WIDGET (window->view_stack);

      adw_view_stack_set_visible_child_name (ADW_VIEW_STACK (stack), pages[p]);
      for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
        {
          g_autofree char *name = g_strdup_printf ("resize-%s-%u-%d.png", pages[p], i, widths[i]);
          GtkWidget *visible;

          g_test_message ("%s at %d px", pages[p], widths[i]);
          gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 800);
          gui_spin (400);
          visible = adw_view_stack_get_visible_child (ADW_VIEW_STACK (stack));
          g_assert_true (gtk_widget_get_mapped (visible));
          g_assert_cmpint (gtk_widget_get_width (visible), >, 200);
          g_assert_cmpint (gtk_widget_get_height (visible), >, 200);
          gui_assert_laid_out (GTK_WIDGET (window));
          /* A toast stands above the data's chips, the composer and its send button (taller
           * when narrow, the page switcher under them), never over them. */
          if (g_strcmp0 (pages[p], "chat") == 0)
            {
              g_autofree char *text = g_strdup_printf ("A toast at %d px", widths[i]);

              assay_window_dismiss_toast (window);
              assay_window_show_toast (window, text);
              /* Once it has slid in (slow frames on software GL). */
              gui_wait (toast_above_foot, window, 20, "the toast to stand above the composer");
            }
          gui_save_screenshot (GTK_WIDGET (window), name);
        }
    }
  /* Hidden and shown again (its surface made anew): the toasts are placed again too. */
  adw_view_stack_set_visible_child_name (window->view_stack, "chat");
  gtk_widget_set_visible (GTK_WIDGET (window), FALSE);
  gtk_widget_unrealize (GTK_WIDGET (window));
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (400);
  assay_window_dismiss_toast (window);
  assay_window_show_toast (window, "A toast after the window came back");
  gui_wait (toast_above_foot, window, 20, "the toast to stand above the composer in the window shown again");
  gui_close_window (window);
}

static char *
make_session (const char *question,
              const char *answer)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_create (NULL, &error);
  AssayLlmMessage *message;

  g_assert_no_error (error);
  message = g_new0 (AssayLlmMessage, 1);
  message->role = ASSAY_LLM_ROLE_USER;
  message->text = g_strdup (question);
  message->tool_calls = g_ptr_array_new ();
  assay_session_append_message (session, message);
  message = g_new0 (AssayLlmMessage, 1);
  message->role = ASSAY_LLM_ROLE_ASSISTANT;
  message->text = g_strdup (answer);
  message->tool_calls = g_ptr_array_new ();
  assay_session_append_message (session, message);
  assay_session_set_title (session, question);
  assay_session_finish_step (session);
  assay_session_set_outcome (session, "answered", answer);
  assay_session_save (session, &error);
  g_assert_no_error (error);
  return g_strdup (assay_session_get_dir (session));
}

typedef struct
{
  AssaySessionsSidebar *sidebar;
  guint                 n;
} Count;

static gboolean
has_n_rows (gpointer data)
{
  Count *count = data;

  return g_list_model_get_n_items (assay_sessions_sidebar_get_model (count->sidebar)) == count->n;
}

static char *
row_title (AssaySessionsSidebar *sidebar,
           guint                 i)
{
  g_autoptr(GObject) item = g_list_model_get_item (assay_sessions_sidebar_get_model (sidebar), i);
  char *title = NULL;

  g_object_get (item, "title", &title, NULL);
  return title;
}

static void
delete_all_sessions (void)
{
  g_autoptr(GPtrArray) sessions = assay_session_list (NULL, NULL);

  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    g_assert_true (assay_session_delete (assay_session_get_dir (g_ptr_array_index (sessions, i)), NULL));
}

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Answer;

static void
answered_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Answer *answer = user_data;

  answer->ok = assay_window_rename_session_finish (ASSAY_WINDOW (source), result, &answer->error);
  answer->done = TRUE;
}

static void
deleted_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Answer *answer = user_data;

  answer->ok = assay_window_delete_session_finish (ASSAY_WINDOW (source), result, &answer->error);
  answer->done = TRUE;
}

static gboolean
is_answered (gpointer data)
{
  return ((Answer *) data)->done;
}

static void
wait_answer (Answer *answer)
{
  gui_wait (is_answered, answer, 30, "the session job");
}


/* The dialog of TYPE shown over the windows, or NULL. */
static GtkWidget *
find_dialog (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* transfer none */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) widget = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && gtk_widget_get_visible (widget))
        return widget;
    }
  return NULL;
}

static gboolean
no_dialog (gpointer data)
{
  return find_dialog (GPOINTER_TO_SIZE (data)) == NULL;
}

/* Answers DIALOG with RESPONSE the way a click does: the response, then the dialog closes. */
static void
answer_dialog (GtkWidget  *dialog,
               const char *response)
{
  GType type = G_OBJECT_TYPE (dialog);

  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), response);
  gtk_window_close (GTK_WINDOW (dialog));
  gui_wait (no_dialog, GSIZE_TO_POINTER (type), 10, "the dialog to close");
}

static gboolean
title_is (gpointer data)
{
  const char **dir_and_title = data;
  g_autoptr(AssaySession) session = assay_session_load (dir_and_title[0], NULL);

  return session != NULL && g_strcmp0 (assay_session_get_title (session), dir_and_title[1]) == 0;
}

static gboolean
is_gone (gpointer data)
{
  return !g_file_test (data, G_FILE_TEST_EXISTS);
}

static void
test_sessions (void)
{
  g_autofree char *first = (delete_all_sessions (), make_session ("Which region sells most?", "The **north** sells most."));
  g_autofree char *second = make_session ("How many orders in July?", "There were *1,204* orders.");
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  AssayWindow *window;
  AssaySessionsSidebar *sidebar;
  GtkWidget *chat;
  Count count;
  Answer answer = { 0, };

  g_settings_set_string (settings, "provider", "openai");
  window = open_window ();
  sidebar = assay_window_get_sidebar (window);
  count = (Count) { sidebar, 2 };
  gui_wait (has_n_rows, &count, 10, "two sessions in the sidebar");

  /* Search. */
  assay_sessions_sidebar_set_search (sidebar, "REGION");
  g_assert_cmpuint (g_list_model_get_n_items (assay_sessions_sidebar_get_model (sidebar)), ==, 1);
  title = row_title (sidebar, 0);
  g_assert_cmpstr (title, ==, "Which region sells most?");
  assay_sessions_sidebar_set_search (sidebar, "");
  g_assert_cmpuint (g_list_model_get_n_items (assay_sessions_sidebar_get_model (sidebar)), ==, 2);

  /* Reopen: the conversation comes back, the answer as Markdown. */
  gui_open_session (window, first);
  g_assert_cmpstr (assay_session_get_dir (assay_window_get_session (window)), ==, first);
  chat = GTK_WIDGET (assay_window_get_chat_view (window));
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "Which region sells most?"));
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "The north sells most."));

  gui_open_session (window, second);
  g_assert_null (gui_find (chat, GTK_TYPE_LABEL, "Which region sells most?"));
  g_assert_nonnull (gui_find (chat, GTK_TYPE_LABEL, "There were 1,204 orders."));

  /* Rename one that is not open: read, renamed and saved in a worker. */
  assay_window_rename_session_async (window, first, "Regions", answered_cb, &answer);
  wait_answer (&answer);
  g_assert_no_error (answer.error);
  g_assert_true (answer.ok);
  assay_sessions_sidebar_set_search (sidebar, "regions");
  count.n = 1;
  gui_wait (has_n_rows, &count, 10, "the renamed session");
  g_free (title);
  title = row_title (sidebar, 0);
  g_assert_cmpstr (title, ==, "Regions");
  assay_sessions_sidebar_set_search (sidebar, NULL);
  g_assert_cmpstr (assay_session_summary_get_title (assay_session_store_lookup (assay_window_get_session_store (window), first)), ==, "Regions");
  g_assert_null (assay_session_store_lookup (assay_window_get_session_store (window), "/nonexistent"));

  /* Rename the open one: in memory and on disk. */
  answer = (Answer) { 0, };
  assay_window_rename_session_async (window, second, "July orders", answered_cb, &answer);
  wait_answer (&answer);
  g_assert_no_error (answer.error);
  g_assert_cmpstr (assay_session_get_title (assay_window_get_session (window)), ==, "July orders");
  {
    g_autoptr(AssaySession) reread = assay_session_load (second, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (assay_session_get_title (reread), ==, "July orders");
  }

  /* The rename dialog (win.rename-session): it starts from the title the window has; Cancel
   * changes nothing, Rename renames. */
  {
    const char *wanted[] = { first, "Sales by region", NULL };
    GtkWidget *dialog;

    gtk_widget_activate_action (GTK_WIDGET (window), "win.rename-session", "s", first);
    dialog = find_dialog (ASSAY_TYPE_RENAME_DIALOG);
    g_assert_nonnull (dialog);
    g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
    g_assert_cmpstr (gtk_editable_get_text (assay_rename_dialog_get_entry (ASSAY_RENAME_DIALOG (dialog))), ==, "Regions");
    gtk_editable_set_text (assay_rename_dialog_get_entry (ASSAY_RENAME_DIALOG (dialog)), "Not this");
    answer_dialog (dialog, "cancel");
    gtk_widget_activate_action (GTK_WIDGET (window), "win.rename-session", "s", first);
    dialog = find_dialog (ASSAY_TYPE_RENAME_DIALOG);
    g_assert_nonnull (dialog);
    gtk_editable_set_text (assay_rename_dialog_get_entry (ASSAY_RENAME_DIALOG (dialog)), "Sales by region");
    answer_dialog (dialog, "rename");
    gui_wait (title_is, wanted, 10, "the title from the dialog");
  }

  /* Delete through the dialog (the open one: the window starts afresh); Cancel keeps it. */
  {
    GtkWidget *dialog;

    gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", second);
    dialog = find_dialog (ASSAY_TYPE_DELETE_DIALOG);
    g_assert_nonnull (dialog);
    answer_dialog (dialog, "cancel");
    gui_spin (100);
    g_assert_true (g_file_test (second, G_FILE_TEST_IS_DIR));
    g_assert_nonnull (assay_window_get_session (window));
    gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", second);
    dialog = find_dialog (ASSAY_TYPE_DELETE_DIALOG);
    g_assert_nonnull (dialog);
    answer_dialog (dialog, "delete");
    gui_wait (is_gone, second, 10, "the deleted session's folder to go");
    g_assert_null (assay_window_get_session (window));
  }
  count.n = 1;
  gui_wait (has_n_rows, &count, 10, "one session left");
  answer = (Answer) { 0, };
  assay_window_delete_session_async (window, first, deleted_cb, &answer);
  wait_answer (&answer);
  g_assert_true (answer.ok);
  count.n = 0;
  gui_wait (has_n_rows, &count, 10, "no session left");
  gui_close_window (window);
  g_settings_reset (settings, "provider");
}

/* What the window did while sessions opened: the main loop's ticks, the sessions shown. */
typedef struct
{
  guint      ticks;
  guint      ticks_when_opened;
  GPtrArray *opened;   /* the dirs of ::session-opened, in order */
  gulong     handler;
  guint      ticker;
} Watch;

static gboolean
watch_tick_cb (gpointer data)
{
  ((Watch *) data)->ticks++;
  return G_SOURCE_CONTINUE;
}

static void
watch_opened_cb (AssayWindow *window,
                 const char  *dir,
                 Watch       *watch)
{
  watch->ticks_when_opened = watch->ticks;
  g_ptr_array_add (watch->opened, g_strdup (dir));
}

static void
watch_start (Watch       *watch,
             AssayWindow *window)
{
  watch->ticks = watch->ticks_when_opened = 0;
  watch->opened = g_ptr_array_new_with_free_func (g_free);
  watch->handler = g_signal_connect (window, "session-opened", G_CALLBACK (watch_opened_cb), watch);
  watch->ticker = g_timeout_add (1, watch_tick_cb, watch);
}

static void
watch_stop (Watch       *watch,
            AssayWindow *window)
{
  g_clear_signal_handler (&watch->handler, window);
  g_clear_handle_id (&watch->ticker, g_source_remove);
  g_clear_pointer (&watch->opened, g_ptr_array_unref);
}

static gboolean
not_opening (gpointer data)
{
  return !assay_window_get_opening (data);
}

static void
wait_not_opening (AssayWindow *window)
{
  gui_wait (not_opening, window, 60, "the session to open");
}

static guint
count_cards (AssayWindow *window)
{
  return gui_count (GTK_WIDGET (assay_window_get_chat_view (window)), ASSAY_TYPE_STEP_CARD);
}

static const char *
current_dir (AssayWindow *window)
{
  AssaySession *session = assay_window_get_session (window);

  return session != NULL ? assay_session_get_dir (session) : NULL;
}

/* A long session (200 steps, about 6 MB of outputs) is read in a worker: asking returns at
 * once, the chat says it is opening, the current session stays until the new one is in, and
 * the main loop keeps turning meanwhile; then every step is back and the code view shows the
 * last cell. */
static void
test_open_long_session (void)
{
  g_autofree char *small = (delete_all_sessions (), make_session ("Which region sells most?", "The north."));
  g_autofree char *long_dir = session_fixture_write_long (NULL, "How do the rows grow?", 200, 32 * 1024);
  g_autofree char *code = NULL;
  AssayWindow *window;
  AssayChatView *chat;
  Watch watch = { 0, };
  gint64 started, blocking_us, asking_us;

  g_settings_set_string (settings, "provider", "openai");
  window = open_window ();
  chat = assay_window_get_chat_view (window);
  gui_open_session (window, small);
  g_assert_cmpstr (current_dir (window), ==, small);
  g_assert_false (assay_chat_view_get_loading (chat));

  /* What reading it on the main thread would cost. */
  {
    g_autoptr(AssaySession) blocking = NULL;

    started = g_get_monotonic_time ();
    blocking = assay_session_load (long_dir, NULL);
    blocking_us = g_get_monotonic_time () - started;
    g_assert_nonnull (blocking);
  }

  watch_start (&watch, window);
  started = g_get_monotonic_time ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", long_dir);
  asking_us = g_get_monotonic_time () - started;
  /* A figure, not an assertion: under load the two times say little (a loaded run saw 14 ms
   * against 23). That the call returned before the read is what follows: the window is
   * still opening and still shows the session it had. */
  g_test_message ("asking took %" G_GINT64_FORMAT " ms; a blocking load takes %" G_GINT64_FORMAT " ms",
                  asking_us / 1000, blocking_us / 1000);
  g_assert_true (assay_window_get_opening (window));
  g_assert_true (assay_chat_view_get_loading (chat));
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "Opening Session…"));
  g_assert_cmpstr (current_dir (window), ==, small);
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "Which region sells most?"));

  wait_not_opening (window);
  g_test_message ("%u ticks of 1 ms before the long session was shown", watch.ticks_when_opened);
  g_assert_cmpuint (watch.opened->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (watch.opened, 0), ==, long_dir);
  /* Read on the main thread, it would have been shown before the loop turned at all. How
   * often it turned depends on the machine's load and on drawing the window meanwhile. */
  g_assert_cmpuint (watch.ticks_when_opened, >=, 1);
  g_assert_false (assay_chat_view_get_loading (chat));
  g_assert_cmpstr (current_dir (window), ==, long_dir);
  g_assert_cmpuint (assay_session_get_n_cells (assay_window_get_session (window)), ==, 200);
  /* 200 steps and the answer. */
  g_assert_cmpuint (count_cards (window), ==, 201);
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "How do the rows grow?"));
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "Done after 200 steps."));
  g_assert_null (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "Which region sells most?"));
  code = assay_code_review_get_code (assay_window_get_code_review (window));
  g_assert_cmpstr (code, ==, "print('step 200')\n");

  watch_stop (&watch, window);
  gui_close_window (window);
  delete_all_sessions ();
  g_settings_reset (settings, "provider");
}

/* Two quick opens: only the second is ever shown, whichever is slower to read. Going back
 * to the session on screen, or starting a new one, drops an open in flight too. */
static void
test_open_latest_wins (void)
{
  g_autofree char *current = (delete_all_sessions (), make_session ("The current question?", "Current answer."));
  g_autofree char *long_dir = session_fixture_write_long (NULL, "The long question?", 200, 16 * 1024);
  g_autofree char *small = make_session ("The small question?", "Small answer.");
  AssayWindow *window;
  AssayChatView *chat;
  Watch watch = { 0, };

  g_settings_set_string (settings, "provider", "openai");
  window = open_window ();
  chat = assay_window_get_chat_view (window);
  gui_open_session (window, current);
  watch_start (&watch, window);

  /* The long one first, the small one second. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", long_dir);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", small);
  g_assert_true (assay_window_get_opening (window));
  wait_not_opening (window);
  gui_spin (500);
  g_assert_cmpuint (watch.opened->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (watch.opened, 0), ==, small);
  g_assert_cmpstr (current_dir (window), ==, small);
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "The small question?"));
  g_assert_null (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "The long question?"));
  g_assert_cmpuint (count_cards (window), ==, 1);

  /* The small one first, the long one second. */
  g_ptr_array_set_size (watch.opened, 0);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", current);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", long_dir);
  wait_not_opening (window);
  gui_spin (500);
  g_assert_cmpuint (watch.opened->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (watch.opened, 0), ==, long_dir);
  g_assert_cmpstr (current_dir (window), ==, long_dir);
  g_assert_null (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "The current question?"));
  g_assert_cmpuint (count_cards (window), ==, 201);

  /* Back to the session on screen while another opens: it stays, nothing else comes. */
  g_ptr_array_set_size (watch.opened, 0);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", small);
  g_assert_true (assay_chat_view_get_loading (chat));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", long_dir);
  g_assert_false (assay_window_get_opening (window));
  g_assert_false (assay_chat_view_get_loading (chat));
  gui_spin (500);
  g_assert_cmpuint (watch.opened->len, ==, 0);
  g_assert_cmpstr (current_dir (window), ==, long_dir);

  /* A new session wins over an open in flight. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", small);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-session", NULL);
  g_assert_false (assay_window_get_opening (window));
  g_assert_false (assay_chat_view_get_loading (chat));
  gui_spin (500);
  g_assert_cmpuint (watch.opened->len, ==, 0);
  g_assert_null (assay_window_get_session (window));
  g_assert_cmpuint (count_cards (window), ==, 0);

  watch_stop (&watch, window);
  gui_close_window (window);
  delete_all_sessions ();
  g_settings_reset (settings, "provider");
}

/* A damaged record, or a folder that is gone: a toast in plain words, and the session on
 * screen stays as it was. */
static void
test_open_damaged (void)
{
  g_autofree char *current = (delete_all_sessions (), make_session ("Still here?", "Yes."));
  g_autofree char *damaged = session_fixture_write_damaged (NULL);
  g_autofree char *parent = assay_session_default_parent ();
  g_autofree char *missing = g_build_filename (parent, "20200101-000000-gone00", NULL);
  AssayWindow *window;
  AssayChatView *chat;
  AssaySession *session;
  Watch watch = { 0, };

  g_settings_set_string (settings, "provider", "openai");
  window = open_window ();
  chat = assay_window_get_chat_view (window);
  gui_open_session (window, current);
  session = assay_window_get_session (window);
  watch_start (&watch, window);

  gui_open_session (window, damaged);
  g_assert_cmpstr (assay_window_get_last_toast (window), ==,
                   "The session could not be opened: its saved record is damaged.");
  g_assert_true (assay_window_get_session (window) == session);
  g_assert_cmpstr (current_dir (window), ==, current);
  g_assert_false (assay_chat_view_get_loading (chat));
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "Still here?"));
  g_assert_cmpuint (count_cards (window), ==, 1);
  g_assert_cmpuint (watch.opened->len, ==, 0);

  gui_open_session (window, missing);
  g_assert_cmpstr (assay_window_get_last_toast (window), ==,
                   "The session could not be opened: it was moved or deleted.");
  g_assert_true (assay_window_get_session (window) == session);
  g_assert_nonnull (gui_find (GTK_WIDGET (chat), GTK_TYPE_LABEL, "Still here?"));
  g_assert_cmpuint (watch.opened->len, ==, 0);

  /* Nothing is stuck: the next open works. */
  assay_window_new_session (window);
  gui_open_session (window, current);
  g_assert_cmpuint (watch.opened->len, ==, 1);
  g_assert_cmpstr (current_dir (window), ==, current);

  watch_stop (&watch, window);
  gui_close_window (window);
  g_assert_true (assay_session_delete (damaged, NULL));
  delete_all_sessions ();
  g_settings_reset (settings, "provider");
}

static void
test_preferences_and_shortcuts (void)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/org/assay/Assay/gtk/help-overlay.ui");
  GtkWidget *preferences;
  GtkSpinButton *spin;

  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (gtk_builder_get_object (builder, "help_overlay")));
  /* Each shortcut shows keys an analyst reads: "Ctrl Enter", never a keysym's name such as
   * "KP_Enter" (win.run's second accelerator showed so). */
  {
    g_autoptr(GSList) objects = gtk_builder_get_objects (builder);
    gboolean run_seen = FALSE;

    for (GSList *l = objects; l != NULL; l = l->next)
      {
        g_autofree char *title = NULL;
        g_autofree char *accelerator = NULL;
        g_autofree char *action = NULL;

        if (!GTK_IS_SHORTCUTS_SHORTCUT (l->data))
          continue;
        g_object_get (l->data, "title", &title, "accelerator", &accelerator, "action-name", &action, NULL);
        g_assert_true (accelerator == NULL || strstr (accelerator, "KP_") == NULL);
        if (g_strcmp0 (title, "Run the proposed code") == 0)
          {
            run_seen = TRUE;
            g_assert_cmpstr (accelerator, ==, "<Control>Return");
            g_assert_null (action);
          }
      }
    g_assert_true (run_seen);
  }
  gtk_window_destroy (GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay")));

  preferences = g_object_ref (assay_preferences_new (NULL, "bubblewrap, because Docker is not running."));
  gtk_window_present (GTK_WINDOW (preferences));
  gui_spin (50);
  g_assert_nonnull (gui_find (preferences, ADW_TYPE_ACTION_ROW, "In use"));
  /* The rows read in full at the window's own size. */
  gui_assert_not_ellipsized (preferences);
  spin = GTK_SPIN_BUTTON (gui_find (preferences, GTK_TYPE_SPIN_BUTTON, "2048"));
  g_assert_nonnull (spin);
  gtk_spin_button_set_value (spin, 4096);
  g_assert_cmpuint (g_settings_get_uint (settings, "memory-mb"), ==, 4096);
  g_settings_reset (settings, "memory-mb");
  gtk_window_destroy (GTK_WINDOW (preferences));
  gui_spin (50);
  g_assert_finalize_object (preferences);
}

static const char *prepare_store;

static gboolean
building (gpointer data)
{
  GtkWidget *bar = gui_find (data, GTK_TYPE_PROGRESS_BAR, NULL);
  g_autoptr(GDir) dir = g_dir_open (prepare_store, 0, NULL);
  const char *name;
  gboolean unpacking = FALSE;

  /* Under way: the tree is being unpacked into the store. */
  while (dir != NULL && (name = g_dir_read_name (dir)))
    unpacking |= g_str_has_suffix (name, ".partial");
  return bar != NULL && gtk_widget_get_visible (bar) && unpacking;
}

static gboolean
not_building (gpointer data)
{
  GtkWidget *bar = gui_find (data, GTK_TYPE_PROGRESS_BAR, NULL);

  return bar != NULL && !gtk_widget_get_visible (bar);
}

static gboolean
has_partial_or_tree (const char *store)
{
  g_autoptr(GDir) dir = g_dir_open (store, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    if (g_str_has_prefix (name, "tree-"))
      return TRUE;
  return FALSE;
}

/* The banner when the image is missing: Prepare shows progress, Cancel stops and leaves
 * nothing half-built, Prepare again finishes and the banner goes away. A private store
 * (ASSAY_SANDBOX_STORE) with the machine's cached root filesystem, so only the tree is built
 * and the image every other test uses is not touched. */
static void
test_sandbox_prepare (void)
{
  g_autofree char *store = g_dir_make_tmp ("assay-store-XXXXXX", NULL);
  g_autoptr(AssaySandboxImage) real = assay_sandbox_image_new (NULL);
  g_autofree char *base_name = g_path_get_basename (assay_sandbox_image_get_base_tar (real));
  g_autofree char *link = g_build_filename (store, base_name, NULL);
  AssaySandboxBanner *banner;
  AssayWindow *window;
  gboolean ready = FALSE;
  const char *argv[] = { "rm", "-rf", store, NULL };

  g_assert_true (g_file_test (assay_sandbox_image_get_base_tar (real), G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (symlink (assay_sandbox_image_get_base_tar (real), link), ==, 0);
  g_setenv ("ASSAY_SANDBOX_STORE", store, TRUE);
  prepare_store = store;
  /* No Docker engine for this test (Docker has this recipe's image already): only the
   * bubblewrap tree is missing, and only it is built. */
  g_setenv ("DOCKER_HOST", "unix:///nonexistent/docker.sock", TRUE);
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);

  window = open_window ();
  banner = ASSAY_SANDBOX_BANNER (gui_find (GTK_WIDGET (window), ASSAY_TYPE_SANDBOX_BANNER, NULL));
  g_signal_connect (banner, "ready", G_CALLBACK (ready_cb), &ready);
  assay_sandbox_banner_check (banner);
  gui_wait ((GuiCondition) assay_sandbox_banner_get_shown, banner, 20, "the banner");

  gtk_widget_activate_action (GTK_WIDGET (banner), "banner.prepare", NULL);
  gui_wait (building, banner, 60, "the progress of the build");
  gtk_widget_activate_action (GTK_WIDGET (banner), "banner.cancel", NULL);
  gui_wait (not_building, banner, 30, "the cancelled build");
  g_assert_nonnull (gui_find (GTK_WIDGET (banner), GTK_TYPE_LABEL, "Preparing the sandbox was cancelled."));
  g_assert_true (assay_sandbox_banner_get_shown (banner));
  g_assert_false (has_partial_or_tree (store));
  g_assert_false (ready);

  gtk_widget_activate_action (GTK_WIDGET (banner), "banner.prepare", NULL);
  gui_wait (is_true, &ready, 240, "the prepared sandbox");
  g_assert_false (assay_sandbox_banner_get_shown (banner));
  g_assert_true (has_partial_or_tree (store));

  gui_close_window (window);
  g_unsetenv ("ASSAY_SANDBOX_STORE");
  g_unsetenv ("DOCKER_HOST");
  g_settings_reset (settings, "sandbox-backend");
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

static gboolean
has_paintable (gpointer data)
{
  return gtk_picture_get_paintable (data) != NULL;
}

/* The pictures under ROOT, in order. */
static void
collect_pictures (GtkWidget *root,
                  GPtrArray *pictures)
{
  if (GTK_IS_PICTURE (root))
    g_ptr_array_add (pictures, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    collect_pictures (child, pictures);
}

static void
test_step_card (void)
{
  GtkWidget *card = g_object_ref_sink (assay_step_card_new (3, 8));
  AssayStepCard *step = ASSAY_STEP_CARD (card);
  g_autoptr(GString) long_text = g_string_new (NULL);
  g_autoptr(JsonObject) output = json_object_new ();
  GtkWidget *expander;

  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Step 3"));
  /* The limit is a ceiling, not a plan: no "of 8"; the last step allowed says so. */
  g_assert_null (gui_find (card, GTK_TYPE_LABEL, "of 8"));
  {
    GtkWidget *last = g_object_ref_sink (assay_step_card_new (8, 8));

    g_assert_nonnull (gui_find (last, GTK_TYPE_LABEL, "Step 8, the last allowed"));
    g_object_unref (last);
  }
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (long_text, "line %u\n", i);
  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", "stdout");
  json_object_set_string_member (output, "text", long_text->str);

  assay_step_card_add_cell (step, "c1", "Long output");
  assay_step_card_cell_started (step, "c1");
  g_assert_cmpstr (assay_step_card_get_cell_status (step, "c1"), ==, "running");
  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Running… 0 s"));
  assay_step_card_cell_output (step, "c1", output);
  /* While it runs, the output is redrawn a few times a second. */
  gui_spin (250);
  g_assert_nonnull (gui_find (card, GTK_TYPE_TEXT_VIEW, "line 39"));
  /* A long one shows its last lines until the cell ends. */
  {
    GtkWidget *other = g_object_ref_sink (assay_step_card_new (1, 8));
    g_autoptr(GString) many = g_string_new (NULL);
    g_autoptr(JsonObject) flood = json_object_new ();

    for (guint i = 0; i < 100; i++)
      g_string_append_printf (many, "row %u\n", i);
    json_object_set_string_member (flood, "output_type", "stream");
    json_object_set_string_member (flood, "name", "stdout");
    json_object_set_string_member (flood, "text", many->str);
    assay_step_card_add_cell (ASSAY_STEP_CARD (other), "c9", NULL);
    assay_step_card_cell_started (ASSAY_STEP_CARD (other), "c9");
    assay_step_card_cell_output (ASSAY_STEP_CARD (other), "c9", flood);
    gui_spin (250);
    g_assert_nonnull (gui_find (other, GTK_TYPE_LABEL, "… 40 earlier lines"));
    g_assert_true (g_str_has_prefix (gui_text (gui_find (other, GTK_TYPE_TEXT_VIEW, NULL)), "row 40\n"));
    g_assert_null (gui_find (other, GTK_TYPE_TEXT_VIEW, "row 0\n"));
    /* More output: appended, and the oldest lines leave the view. */
    {
      g_autoptr(JsonObject) more = json_object_new ();

      json_object_set_string_member (more, "output_type", "stream");
      json_object_set_string_member (more, "name", "stdout");
      json_object_set_string_member (more, "text", "more 1\nmore 2\nmore 3\nmore 4\nmore 5\n");
      assay_step_card_cell_output (ASSAY_STEP_CARD (other), "c9", more);
      gui_spin (250);
      g_assert_nonnull (gui_find (other, GTK_TYPE_LABEL, "… 45 earlier lines"));
      g_assert_true (g_str_has_prefix (gui_text (gui_find (other, GTK_TYPE_TEXT_VIEW, NULL)), "row 45\n"));
      g_assert_true (g_str_has_suffix (gui_text (gui_find (other, GTK_TYPE_TEXT_VIEW, NULL)), "row 99\nmore 1\nmore 2\nmore 3\nmore 4\nmore 5\n"));
      g_assert_nonnull (gui_find (other, GTK_TYPE_EXPANDER, NULL));
      g_assert_cmpstr (gtk_expander_get_label (GTK_EXPANDER (gui_find (other, GTK_TYPE_EXPANDER, NULL))), ==, "Output (105 lines)");
    }
    assay_step_card_cell_finished (ASSAY_STEP_CARD (other), "c9", ASSAY_CELL_OK, NULL, 10);
    /* Now all of it, in the (collapsed) expander. */
    {
      GtkWidget *child = gtk_expander_get_child (GTK_EXPANDER (gui_find (other, GTK_TYPE_EXPANDER, NULL)));
      GtkWidget *view = gui_find (child, GTK_TYPE_TEXT_VIEW, NULL);

      g_assert_nonnull (view);
      g_assert_true (g_str_has_prefix (gui_text (view), "row 0\n"));
      g_assert_nonnull (strstr (gui_text (view), "row 99\nmore 1\n"));
      g_assert_false (gtk_widget_get_visible (gui_find (child, GTK_TYPE_LABEL, "earlier lines")));
    }
    g_assert_finalize_object (other);
  }
  /* A figure the kernel captured (no file saved) gets a thumbnail too; a broken one none. */
  {
    g_autoptr(JsonObject) figure = json_object_new ();
    g_autoptr(JsonObject) broken = json_object_new ();
    JsonObject *data = json_object_new ();
    JsonObject *bad = json_object_new ();

    json_object_set_string_member (data, "image/png",
                                   "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=");
    json_object_set_string_member (figure, "output_type", "display_data");
    json_object_set_object_member (figure, "data", data);
    json_object_set_string_member (bad, "image/png", "bm90IGEgcG5n");
    json_object_set_string_member (broken, "output_type", "display_data");
    json_object_set_object_member (broken, "data", bad);
    assay_step_card_cell_output (step, "c1", broken);
    g_assert_null (gui_find (card, GTK_TYPE_PICTURE, NULL));
    assay_step_card_cell_output (step, "c1", figure);
    g_assert_nonnull (gui_find (card, GTK_TYPE_PICTURE, NULL));
  }
  /* A saved figure is read and decoded in a worker, not while the card is built; a file that
   * is gone leaves an empty frame. */
  {
    g_autofree char *dir = g_dir_make_tmp ("assay-gui-figure-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (dir, "plot.png", NULL);
    g_autofree char *missing = g_build_filename (dir, "gone.png", NULL);
    gsize length;
    g_autofree guchar *png = g_base64_decode ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
                                              &length);
    GtkWidget *other = g_object_ref_sink (assay_step_card_new (2, 8));
    g_autoptr(GPtrArray) pictures = g_ptr_array_new ();

    g_assert_true (g_file_set_contents (path, (const char *) png, length, NULL));
    assay_step_card_add_cell (ASSAY_STEP_CARD (other), "c7", NULL);
    assay_step_card_cell_artifact (ASSAY_STEP_CARD (other), "c7", "gone.png", missing);
    assay_step_card_cell_artifact (ASSAY_STEP_CARD (other), "c7", "plot.png", path);
    collect_pictures (other, pictures);
    g_assert_cmpuint (pictures->len, ==, 2);
    g_assert_null (gtk_picture_get_paintable (g_ptr_array_index (pictures, 1)));
    gui_wait (has_paintable, g_ptr_array_index (pictures, 1), 10, "the figure thumbnail");
    g_assert_null (gtk_picture_get_paintable (g_ptr_array_index (pictures, 0)));
    g_assert_finalize_object (other);
    g_unlink (path);
    g_rmdir (dir);
  }
  assay_step_card_cell_finished (step, "c1", ASSAY_CELL_OK, NULL, 1500);
  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Ran in 1.5 s"));
  expander = gui_find (card, GTK_TYPE_EXPANDER, NULL);
  g_assert_nonnull (expander);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (expander)));
  g_assert_cmpstr (gtk_expander_get_label (GTK_EXPANDER (expander)), ==, "Output (40 lines)");

  assay_step_card_add_cell (step, "c2", NULL);
  assay_step_card_cell_started (step, "c2");
  assay_step_card_cell_finished (step, "c2", ASSAY_CELL_TIMEOUT, "the cell ran longer than 120 s", 120000);
  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Timed out after 120 s: the cell ran longer than 120 s"));
  assay_step_card_add_cell (step, "c3", NULL);
  assay_step_card_cell_finished (step, "c3", ASSAY_CELL_OOM, NULL, 10);
  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Ran out of memory"));
  assay_step_card_add_cell (step, "c4", NULL);
  assay_step_card_cell_finished (step, "c4", ASSAY_CELL_ERROR, "NameError", 10);
  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Failed with an error after 0.0 s: NameError"));
  assay_step_card_cell_rejected (step, "c5", "use the clean table");
  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Rejected: use the clean table"));
  g_assert_cmpuint (assay_step_card_get_n_cells (step), ==, 5);

  assay_step_card_clear (step);
  g_assert_cmpuint (assay_step_card_get_n_cells (step), ==, 0);
  g_assert_finalize_object (card);
}

/* The chat view files each cell under the question whose reply proposed it, with call ids
 * repeated across questions and within a reply (the reports read the record the same way;
 * tests/test-session-outline.c). */
typedef struct
{
  guint       position;
  guint       marks[16];
  const char *texts[16];
  guint       n;
} Walk;

static void
walk_widgets (GtkWidget *widget,
              Walk      *walk)
{
  const char *text = gui_text (widget);

  walk->position++;
  for (guint i = 0; text != NULL && i < walk->n; i++)
    if (walk->marks[i] == 0 && strstr (text, walk->texts[i]) != NULL)
      walk->marks[i] = walk->position;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    walk_widgets (child, walk);
}

static void
test_repeated_call_ids (void)
{
  g_autofree char *dir = session_fixture_write_repeated_ids (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *chat = assay_chat_view_new ();
  const char *order[] = { "Question one?", "first-output", "Answer one.", "Question two?", "second-output",
                          "Answer two.", "Question three?", "third-output", "fourth-output", "fifth-output",
                          "Answer three.", "Question four?", "sixth" };
  Walk walk = { 0 };

  g_assert_no_error (error);
  gtk_window_set_child (GTK_WINDOW (window), chat);
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  gtk_window_present (GTK_WINDOW (window));
  assay_chat_view_show_session (ASSAY_CHAT_VIEW (chat), session, 0);
  gui_spin (100);

  walk.n = G_N_ELEMENTS (order);
  for (guint i = 0; i < walk.n; i++)
    walk.texts[i] = order[i];
  walk_widgets (chat, &walk);
  for (guint i = 0; i < walk.n; i++)
    {
      if (walk.marks[i] == 0)
        g_error ("the chat view does not show “%s”", order[i]);
      if (i > 0 && walk.marks[i] < walk.marks[i - 1])
        g_error ("the chat view shows “%s” before “%s”", order[i], order[i - 1]);
    }
  /* c3, c4 and c5 came from one reply: one card; the interrupted c6 has its own. */
  g_assert_true (assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c3") ==
                 assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c5"));
  g_assert_true (assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c1") !=
                 assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c2"));
  g_assert_nonnull (assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c6"));
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_true (assay_session_delete (dir, NULL));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_test_add_func ("/assay/app/window/finalize", test_finalize);
  g_test_add_func ("/assay/app/window/solid-frame", test_solid_frame);
  g_test_add_func ("/assay/app/window/onboarding", test_onboarding);
  g_test_add_func ("/assay/app/window/unsupported-file", test_unsupported_file);
  g_test_add_func ("/assay/app/window/sessions", test_sessions);
  g_test_add_func ("/assay/app/window/open-long-session", test_open_long_session);
  g_test_add_func ("/assay/app/window/open-latest-wins", test_open_latest_wins);
  g_test_add_func ("/assay/app/window/open-damaged", test_open_damaged);
  g_test_add_func ("/assay/app/window/demo", test_demo);
  g_test_add_func ("/assay/app/window/resize-round-trip", test_resize_round_trip);
  g_test_add_func ("/assay/app/window/resize-pages", test_resize_pages);
  g_test_add_func ("/assay/app/window/sandbox-prepare", test_sandbox_prepare);
  g_test_add_func ("/assay/app/preferences-and-shortcuts", test_preferences_and_shortcuts);
  g_test_add_func ("/assay/app/step-card", test_step_card);
  g_test_add_func ("/assay/app/chat/repeated-call-ids", test_repeated_call_ids);
  status = g_test_run ();
  g_object_unref (settings);
  return status;
}
