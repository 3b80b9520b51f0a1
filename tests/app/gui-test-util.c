/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include <glib/gstdio.h>
#include <string.h>

#include <dlfcn.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>

#include <gdk/x11/gdkx.h>
#include <X11/XKBlib.h>

#include "assay-app-types.h"
#include "assay-llm-provider.h"
#include "assay-window-private.h"
#include "gui-test-util.h"

/* GTK's "Trying to snapshot GtkBox 0x… without a current allocation" names a widget nobody
 * can find: the widget it names (alive: it is being drawn) is said with its ancestors, their
 * sizes and CSS names, before the warning fails the test. */
static GLogWriterOutput
gui_log_writer (GLogLevelFlags   level,
                const GLogField *fields,
                gsize            n_fields,
                gpointer         data)
{
  for (gsize i = 0; i < n_fields; i++)
    {
      const char *message = fields[i].value;
      const char *at;
      gpointer widget = NULL;

      if (g_strcmp0 (fields[i].key, "MESSAGE") != 0 || fields[i].length != -1 ||
          strstr (message, "without a current allocation") == NULL || (at = strstr (message, " 0x")) == NULL ||
          sscanf (at + 1, "%p", &widget) != 1)
        continue;
      for (GtkWidget *w = widget; GTK_IS_WIDGET (w); w = gtk_widget_get_parent (w))
        g_printerr ("#   in %s %p (%s) %d×%d%s%s\n", G_OBJECT_TYPE_NAME (w), (gpointer) w, gtk_widget_get_css_name (w),
                    gtk_widget_get_width (w), gtk_widget_get_height (w),
                    gtk_widget_get_visible (w) ? "" : ", hidden", gtk_widget_get_child_visible (w) ? "" : ", not child-visible");
    }
  return g_log_writer_default (level, fields, n_fields, data);
}

void
gui_test_init (int    *argc,
               char ***argv)
{
  g_test_init (argc, argv, NULL);
  g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

  g_log_set_writer_func (gui_log_writer, NULL, NULL);

  adw_init ();
  assay_app_ensure_resources ();
  /* AdwApplication loads the app's CSS; the tests have no application. */
  gtk_css_provider_load_from_resource (css, "/org/assay/Assay/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

void
gui_wait (GuiCondition  condition,
          gpointer      data,
          guint         timeout_s,
          const char   *what)
{
  gboolean timed_out = FALSE;
  guint source = g_timeout_add_seconds (timeout_s, timeout_cb, &timed_out);

  while (!condition (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (timed_out)
    g_error ("timed out after %u s waiting for %s", timeout_s, what);
  g_source_remove (source);
}

void
gui_spin (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
not_opening (gpointer data)
{
  return !assay_window_get_opening (data);
}

void
gui_open_session (AssayWindow *window,
                  const char  *dir)
{
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-session", "s", dir);
  gui_wait (not_opening, window, 60, "the session to open");
}

GtkWidget *
gui_find_toplevel (GType type)
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

static const char *
widget_text (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget))
    return gtk_label_get_text (GTK_LABEL (widget));
  if (GTK_IS_EDITABLE (widget))
    return gtk_editable_get_text (GTK_EDITABLE (widget));
  if (ADW_IS_PREFERENCES_ROW (widget))
    return adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget));
  if (GTK_IS_TEXT_VIEW (widget))
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
      GtkTextIter start, end;
      char *text;

      gtk_text_buffer_get_bounds (buffer, &start, &end);
      text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
      g_object_set_data_full (G_OBJECT (widget), "gui-test-text", text, g_free);
      return text;
    }
  return NULL;
}

const char *
gui_text (GtkWidget *widget)
{
  return widget != NULL ? widget_text (widget) : NULL;
}

GtkWidget *
gui_find (GtkWidget  *root,
          GType       type,
          const char *text)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    {
      const char *have = widget_text (root);

      if (text == NULL || (have != NULL && strstr (have, text) != NULL))
        return root;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = gui_find (child, type, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

void
gui_assert_not_ellipsized (GtkWidget *root)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  gui_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkLabel *label = g_ptr_array_index (labels, i);

      if (gtk_widget_get_mapped (GTK_WIDGET (label)) && gtk_widget_get_width (GTK_WIDGET (label)) > 0 &&
          pango_layout_is_ellipsized (gtk_label_get_layout (label)))
        g_error ("“%s” is cut short (%d px wide)", gtk_label_get_text (label), gtk_widget_get_width (GTK_WIDGET (label)));
    }
}

void
gui_collect (GtkWidget *root,
             GType      type,
             GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    g_ptr_array_add (found, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    gui_collect (child, type, found);
}

guint
gui_count (GtkWidget *root,
           GType      type)
{
  guint n = G_TYPE_CHECK_INSTANCE_TYPE (root, type) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    n += gui_count (child, type);
  return n;
}

GdkTexture *
gui_render (GtkWidget *widget)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GskRenderNode) node = NULL;
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  graphene_rect_t bounds;
  int width, height;

  g_assert_nonnull (renderer);
  /* Drawn at its own size, pixel for pixel: a window's bounds take in its frame's shadow, and
   * squeezed into its width the picture was scaled by 0.99, which moved lines a pixel thick
   * between pixel rows (on GL they vanished from the picture, not from the window). */
  g_assert_true (gtk_widget_compute_bounds (widget, widget, &bounds));
  width = ceil (bounds.size.width);
  height = ceil (bounds.size.height);
  g_assert_cmpint (width, >, 0);
  /* A widget waiting for its layout (the next frame, which on software GL can take a while
   * after a theme change) draws nothing yet. */
  for (guint attempt = 0; node == NULL && attempt < 100; attempt++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();

      if (attempt > 0)
        gui_spin (100);
      gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
      node = gtk_snapshot_free_to_node (snapshot);
    }
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

void
gui_screenshot (GtkWidget  *widget,
                const char *path)
{
  g_autoptr(GdkTexture) texture = gui_render (widget);
  g_autofree char *dir = g_path_get_dirname (path);

  g_mkdir_with_parents (dir, 0755);
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

char *
gui_write_file (const char *dir,
                const char *name,
                const char *contents)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return path;
}

static void
gui_die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

void
gui_launcher_die_with_test (GSubprocessLauncher *launcher)
{
  g_subprocess_launcher_set_child_setup (launcher, gui_die_with_parent, NULL, NULL);
}

GSubprocess *
gui_fake_server_start (const char  *script,
                       char       **base_url,
                       char       **log_path)
{
  return gui_fake_server_start_on (NULL, script, base_url, log_path);
}

GSubprocess *
gui_fake_server_start_on (const char  *address,
                          const char  *script,
                          char       **base_url,
                          char       **log_path)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *dir = g_dir_make_tmp ("assay-gui-llm-XXXXXX", &error);
  g_autofree char *script_path = NULL;
  g_autofree char *port = NULL;
  GSubprocess *process;

  g_assert_no_error (error);
  script_path = gui_write_file (dir, "script.json", script);
  *log_path = g_build_filename (dir, "requests.jsonl", NULL);
  /* A test that fails leaves no server behind holding its output open. */
  gui_launcher_die_with_test (launcher);
  if (address != NULL)
    g_subprocess_launcher_setenv (launcher, "FAKE_LLM_BIND", address, TRUE);
  process = g_subprocess_launcher_spawn (launcher, &error, PYTHON3, FAKE_LLM_SERVER, script_path, *log_path, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  port = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (port);
  *base_url = g_strdup_printf ("http://%s:%s/v1", address != NULL ? address : "127.0.0.1", port);
  return process;
}

void
gui_fake_server_stop (GSubprocess *server,
                      const char  *log_path)
{
  g_autofree char *dir = g_path_get_dirname (log_path);
  g_autofree char *script = g_build_filename (dir, "script.json", NULL);

  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
  g_unlink (log_path);
  g_unlink (script);
  g_rmdir (dir);
}

void
gui_save_screenshot (GtkWidget  *widget,
                     const char *name)
{
  const char *dir = g_getenv ("ASSAY_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  path = g_build_filename (dir, name, NULL);
  gui_spin (600);
  gui_screenshot (widget, path);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
}

void
gui_assert_not_in_settings (GSettings  *settings,
                            const char *secret)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (settings, keys[i]);
      g_autofree char *text = g_variant_print (value, FALSE);

      g_assert_null (strstr (text, secret));
    }
}

AssayWindow *
gui_open_recorded_window (const char *dir,
                          const char *transcript_json,
                          const char *csv_path,
                          int         width,
                          int         height)
{
  AssayWindow *window = g_object_ref (assay_window_new (NULL));
  g_autofree char *transcript = gui_write_file (dir, "transcript.json", transcript_json);
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) csv = g_file_new_for_path (csv_path);

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  provider = assay_recorded_provider_new (transcript, &error);
  g_assert_no_error (error);
  assay_window_set_provider (window, provider, "recorded-gui", FALSE);
  gui_add_files (window, &csv, 1);
  g_assert_nonnull (assay_window_get_session (window));
  return window;
}

static gboolean
files_added (gpointer data)
{
  return !assay_window_get_adding_files (data);
}

/* Adds files as a drop does and waits until they are copied into the session. */
void
gui_add_files (AssayWindow  *window,
               GFile       **files,
               guint         n_files)
{
  assay_window_add_files (window, files, n_files);
  gui_wait_files_added (window);
}

void
gui_wait_files_added (AssayWindow *window)
{
  gui_wait (files_added, window, 60, "the dropped files to be copied into the session");
}

void
gui_close_window (AssayWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  gui_spin (50);
  g_assert_finalize_object (window);
}

static gboolean
gui_address_can_bind (GInetAddress *address)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GSocketAddress) bind_address = g_inet_socket_address_new (address, 0);

  return socket != NULL && g_socket_bind (socket, bind_address, TRUE, NULL);
}

char *
gui_find_remote_address (void)
{
  struct ifaddrs *list = NULL;
  char *found = NULL;
  g_autoptr(GInetAddress) added = NULL;

  if (getifaddrs (&list) == 0)
    {
      for (struct ifaddrs *entry = list; entry != NULL && found == NULL; entry = entry->ifa_next)
        {
          g_autoptr(GInetAddress) address = NULL;

          if (entry->ifa_addr == NULL || entry->ifa_addr->sa_family != AF_INET)
            continue;
          address = g_inet_address_new_from_bytes ((const guint8 *) &((struct sockaddr_in *) entry->ifa_addr)->sin_addr,
                                                   G_SOCKET_FAMILY_IPV4);
          if (!g_inet_address_get_is_loopback (address) && gui_address_can_bind (address))
            found = g_inet_address_to_string (address);
        }
      freeifaddrs (list);
    }
  if (found != NULL)
    return found;

  /* TEST-NET-2, never routed: on the loopback interface it is this machine's own. */
  g_spawn_command_line_sync ("ip addr add 198.51.100.77/32 dev lo", NULL, NULL, NULL, NULL);
  added = g_inet_address_new_from_string ("198.51.100.77");
  return gui_address_can_bind (added) ? g_strdup ("198.51.100.77") : NULL;
}

static gboolean
gui_slow_frame_cb (GtkWidget     *widget,
                   GdkFrameClock *clock,
                   gpointer       data)
{
  g_usleep (GPOINTER_TO_UINT (data) * 1000);
  return G_SOURCE_CONTINUE;
}

guint
gui_slow_frames (GtkWidget *widget,
                 guint      ms)
{
  return gtk_widget_add_tick_callback (GTK_WIDGET (gtk_widget_get_root (widget)), gui_slow_frame_cb,
                                       GUINT_TO_POINTER (ms), NULL);
}

const char *
gui_renderer_name (GtkWidget *widget)
{
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));

  g_assert_nonnull (renderer);
  return G_OBJECT_TYPE_NAME (renderer);
}

/* libXtst without its headers (only its runtime is installed here): three calls. */
typedef int (*FakeButtonFunc) (Display *, unsigned int, Bool, unsigned long);
typedef int (*FakeMotionFunc) (Display *, int, int, int, unsigned long);
typedef int (*FakeKeyFunc)    (Display *, unsigned int, Bool, unsigned long);

typedef struct
{
  Display        *display;
  FakeButtonFunc  button;
  FakeMotionFunc  motion;
  FakeKeyFunc     key;
} XTest;

static void
gui_xtest_load (GdkDisplay *display,
                XTest      *xtest)
{
  static void *library;

  g_assert_true (GDK_IS_X11_DISPLAY (display));
  if (library == NULL)
    library = dlopen ("libXtst.so.6", RTLD_NOW);
  g_assert_nonnull (library);
  xtest->button = (FakeButtonFunc) dlsym (library, "XTestFakeButtonEvent");
  xtest->motion = (FakeMotionFunc) dlsym (library, "XTestFakeMotionEvent");
  xtest->key = (FakeKeyFunc) dlsym (library, "XTestFakeKeyEvent");
  g_assert_true (xtest->button != NULL && xtest->motion != NULL && xtest->key != NULL);
  xtest->display = gdk_x11_display_get_xdisplay (display);
}

/* The middle of WIDGET in its window's coordinates, when WIDGET is mapped and that point is
 * inside the window and lands on WIDGET: what the analyst can click. */
static gboolean
gui_middle_on_screen (GtkWidget        *widget,
                      graphene_point_t *point)
{
  GtkWidget *native = GTK_WIDGET (gtk_widget_get_native (widget));
  GtkWidget *picked;

  if (native == NULL || !gtk_widget_get_mapped (widget) ||
      !gtk_widget_compute_point (widget, native,
                                 &GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                                       gtk_widget_get_height (widget) / 2.0),
                                 point) ||
      point->x < 0 || point->y < 0 ||
      point->x >= gtk_widget_get_width (native) || point->y >= gtk_widget_get_height (native))
    return FALSE;
  picked = gtk_widget_pick (native, point->x, point->y, GTK_PICK_DEFAULT);
  return picked == widget || (picked != NULL && gtk_widget_is_ancestor (picked, widget));
}

static gboolean
gui_clickable (gpointer data)
{
  graphene_point_t point;

  return gui_middle_on_screen (data, &point);
}

/* XTest, and the pointer moved to the middle of WIDGET (or to AT, in WIDGET's coordinates)
 * on the X screen (which must show it: inside its window, and not scrolled out of view). */
static void
gui_xtest_point_at (GtkWidget              *widget,
                    gboolean                strict,
                    const graphene_point_t *at,
                    XTest                  *xtest)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  GtkNative *native = gtk_widget_get_native (widget);
  graphene_point_t point, target;
  double surface_x, surface_y;
  int root_x, root_y;
  Window child;

  gui_xtest_load (display, xtest);
  target = at != NULL ? *at : GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                                   gtk_widget_get_height (widget) / 2.0);
  /* A click lands on what the analyst sees: on screen, not covered, and standing still (a
   * widget just shown, or sliding in with its page, is given the frames that lay it out and
   * move it: its middle stays put for half a second first). */
  if (strict)
    {
      gboolean timed_out = FALSE;
      guint source = g_timeout_add_seconds (10, timeout_cb, &timed_out);
      graphene_point_t last = GRAPHENE_POINT_INIT (-1, -1);
      guint still = 0;
      GtkWidget *picked;

      while (still < 2 && !timed_out)
        {
          if (gui_middle_on_screen (widget, &point))
            {
              still = graphene_point_equal (&point, &last) ? still + 1 : 0;
              last = point;
            }
          else
            still = 0;
          gui_spin (250);
        }
      if (!timed_out)
        g_source_remove (source);
      g_assert_true (gtk_widget_get_mapped (widget));
      g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &target, &point));
      g_assert_true (point.x >= 0 && point.y >= 0 &&
                     point.x < gtk_widget_get_width (GTK_WIDGET (native)) &&
                     point.y < gtk_widget_get_height (GTK_WIDGET (native)));
      picked = gtk_widget_pick (GTK_WIDGET (native), point.x, point.y, GTK_PICK_DEFAULT);
      if (picked != widget && (picked == NULL || !gtk_widget_is_ancestor (picked, widget)))
        g_error ("the pointer at %s of %s lands on %s", at != NULL ? "a point" : "the middle", G_OBJECT_TYPE_NAME (widget),
                 picked != NULL ? G_OBJECT_TYPE_NAME (picked) : "nothing");
    }
  else
    g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &target, &point));
  gtk_native_get_surface_transform (native, &surface_x, &surface_y);
  XTranslateCoordinates (xtest->display, gdk_x11_surface_get_xid (gtk_native_get_surface (native)),
                         DefaultRootWindow (xtest->display), (int) (point.x + surface_x), (int) (point.y + surface_y),
                         &root_x, &root_y, &child);
  xtest->motion (xtest->display, -1, root_x, root_y, 0);
  XSync (xtest->display, False);
  gui_spin (50);
}

static void
gui_click_point (GtkWidget              *widget,
                 const graphene_point_t *at)
{
  XTest xtest;

  gui_xtest_point_at (widget, TRUE, at, &xtest);
  xtest.button (xtest.display, 1, True, 0);
  XSync (xtest.display, False);
  gui_spin (50);
  xtest.button (xtest.display, 1, False, 0);
  XSync (xtest.display, False);
  gui_spin (200);
}

void
gui_click (GtkWidget *widget)
{
  gui_click_point (widget, NULL);
}

void
gui_click_at (GtkWidget *widget,
              double     x,
              double     y)
{
  gui_click_point (widget, &GRAPHENE_POINT_INIT (x, y));
}

void
gui_drag (GtkWidget *widget,
          int        dx,
          int        dy)
{
  XTest xtest;
  int x, y;
  Window root, child;
  int root_x, root_y, win_x, win_y;
  unsigned int mask;

  gui_xtest_point_at (widget, TRUE, NULL, &xtest);
  XQueryPointer (xtest.display, DefaultRootWindow (xtest.display), &root, &child, &root_x, &root_y,
                 &win_x, &win_y, &mask);
  xtest.button (xtest.display, 1, True, 0);
  XSync (xtest.display, False);
  gui_spin (100);
  /* In steps, as a hand moves: a gesture starts after a few pixels. */
  for (int i = 1; i <= 10; i++)
    {
      x = root_x + dx * i / 10;
      y = root_y + dy * i / 10;
      xtest.motion (xtest.display, -1, x, y, 0);
      XSync (xtest.display, False);
      gui_spin (30);
    }
  xtest.button (xtest.display, 1, False, 0);
  XSync (xtest.display, False);
  gui_spin (300);
}

void
gui_wheel (GtkWidget *widget,
           int        clicks,
           gboolean   shift)
{
  XTest xtest;
  KeyCode shift_key;

  gui_xtest_point_at (widget, FALSE, NULL, &xtest);
  shift_key = XKeysymToKeycode (xtest.display, XK_Shift_L);
  if (shift)
    xtest.key (xtest.display, shift_key, True, 0);
  for (int i = 0; i < ABS (clicks); i++)
    {
      xtest.button (xtest.display, clicks > 0 ? 5 : 4, True, 0);
      xtest.button (xtest.display, clicks > 0 ? 5 : 4, False, 0);
    }
  if (shift)
    xtest.key (xtest.display, shift_key, False, 0);
  XSync (xtest.display, False);
  gui_spin (300);
}

/* The keyboard focus of WIDGET's window is WIDGET or within it (an entry's text). */
static gboolean
gui_has_focus_within (GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (widget));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

static gboolean
gui_ready_for_keys (gpointer data)
{
  return gui_has_focus_within (data) && gui_clickable (data);
}

/* The analyst types into what they see and what has the focus: a click that gives WIDGET the
 * focus, or a field being revealed, is given its frames first. */
static void
gui_wait_ready_for_keys (GtkWidget *widget)
{
  gboolean timed_out = FALSE;
  guint source = g_timeout_add_seconds (10, timeout_cb, &timed_out);

  while (!gui_ready_for_keys (widget) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (timed_out)
    {
      GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (widget));

      g_error ("keys for %s (%s) would go to %s", G_OBJECT_TYPE_NAME (widget),
               gui_clickable (widget) ? "on screen" : "not on screen",
               focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "no widget");
    }
  g_source_remove (source);
}

/* Presses and releases KEYSYM with the modifiers of MODIFIERS (GDK_SHIFT_MASK,
 * GDK_CONTROL_MASK, GDK_ALT_MASK) held, and with Shift when the keyboard map has KEYSYM on
 * a key's shifted level. */
static void
gui_xtest_key (XTest           *xtest,
               KeySym           keysym,
               GdkModifierType  modifiers)
{
  static const struct { GdkModifierType mask; KeySym keysym; } held[] = {
    { GDK_CONTROL_MASK, XK_Control_L },
    { GDK_ALT_MASK, XK_Alt_L },
    { GDK_SHIFT_MASK, XK_Shift_L },
  };
  KeyCode keycode = XKeysymToKeycode (xtest->display, keysym);

  g_assert_cmpuint (keycode, !=, 0);
  if (XkbKeycodeToKeysym (xtest->display, keycode, 0, 0) != keysym &&
      XkbKeycodeToKeysym (xtest->display, keycode, 0, 1) == keysym)
    modifiers |= GDK_SHIFT_MASK;
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    if (modifiers & held[i].mask)
      xtest->key (xtest->display, XKeysymToKeycode (xtest->display, held[i].keysym), True, 0);
  xtest->key (xtest->display, keycode, True, 0);
  xtest->key (xtest->display, keycode, False, 0);
  for (guint i = G_N_ELEMENTS (held); i > 0; i--)
    if (modifiers & held[i - 1].mask)
      xtest->key (xtest->display, XKeysymToKeycode (xtest->display, held[i - 1].keysym), False, 0);
  XSync (xtest->display, False);
}

void
gui_key (GtkWidget       *widget,
         guint            keysym,
         GdkModifierType  modifiers)
{
  XTest xtest;

  gui_wait_ready_for_keys (widget);
  gui_xtest_load (gtk_widget_get_display (widget), &xtest);
  gui_xtest_key (&xtest, keysym, modifiers);
  gui_spin (200);
}

void
gui_type (GtkWidget  *widget,
          const char *text)
{
  XTest xtest;

  gui_wait_ready_for_keys (widget);
  gui_xtest_load (gtk_widget_get_display (widget), &xtest);
  for (const char *c = text; *c != '\0'; c++)
    {
      /* Latin-1 keysyms are the characters' codes. */
      g_assert_true (g_ascii_isprint (*c) || *c == '\n');
      gui_xtest_key (&xtest, *c == '\n' ? XK_Return : (KeySym) *c, 0);
      gui_spin (20);
    }
  gui_spin (200);
}

GtkWidget *
gui_find_button (GtkWidget  *root,
                 const char *action)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)), action) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = gui_find_button (child, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static char *
gui_describe (GtkWidget *widget)
{
  const char *text = gui_text (widget);

  return g_strdup_printf ("%s%s%.40s%s", G_OBJECT_TYPE_NAME (widget), text != NULL ? " “" : "",
                          text != NULL ? text : "", text != NULL ? "”" : "");
}

void
gui_assert_laid_out (GtkWidget *root)
{
  graphene_rect_t previous = GRAPHENE_RECT_INIT (0, -1, 0, 0);
  gboolean stacked = GTK_IS_BOX (root) &&
                     gtk_orientable_get_orientation (GTK_ORIENTABLE (root)) == GTK_ORIENTATION_VERTICAL;
  /* A scroller's content is taller than the scroller, by design. */
  gboolean scrolls = GTK_IS_SCROLLED_WINDOW (root) || GTK_IS_VIEWPORT (root) || GTK_IS_TEXT_VIEW (root);
  graphene_rect_t own;

  if (!gtk_widget_compute_bounds (root, root, &own))
    return;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t bounds;

      /* A spinner's bounds turn with it; a scrollbar's slider may overshoot its trough, a
       * view switcher's badge its icon (GTK's and libadwaita's gizmos decorate). */
      if (!gtk_widget_get_mapped (child) || GTK_IS_NATIVE (child) || GTK_IS_SPINNER (child) ||
          GTK_IS_SCROLLBAR (child) || g_str_has_suffix (G_OBJECT_TYPE_NAME (child), "Gizmo") ||
          !gtk_widget_compute_bounds (child, root, &bounds))
        continue;
      if (!scrolls && (bounds.origin.y < own.origin.y - 1 ||
                       bounds.origin.y + bounds.size.height > own.origin.y + own.size.height + 1))
        {
          g_autofree char *what = gui_describe (child);
          g_autofree char *where = gui_describe (root);

          g_error ("%s (y %g, height %g) is drawn outside %s (y %g, height %g)", what, bounds.origin.y,
                   bounds.size.height, where, own.origin.y, own.size.height);
        }
      if (stacked && previous.origin.y >= 0 && bounds.origin.y < previous.origin.y + previous.size.height - 1)
        {
          g_autofree char *what = gui_describe (child);

          g_error ("%s (y %g) overlaps the widget above it (its bottom at %g)", what, bounds.origin.y,
                   previous.origin.y + previous.size.height);
        }
      if (bounds.size.height > 0)
        previous = bounds;
      gui_assert_laid_out (child);
    }
}
