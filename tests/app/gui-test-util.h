/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-app-types.h"

G_BEGIN_DECLS

typedef gboolean (*GuiCondition) (gpointer data);

void        gui_test_init            (int         *argc,
                                      char      ***argv);
/* Runs the main context until CONDITION holds; fails the test after TIMEOUT_S seconds. */
void        gui_wait                 (GuiCondition condition,
                                      gpointer     data,
                                      guint        timeout_s,
                                      const char  *what);
/* Runs the main context for MS milliseconds. */
void        gui_add_files            (AssayWindow  *window,
                                      GFile       **files,
                                      guint         n_files);
void        gui_wait_files_added     (AssayWindow  *window);
void        gui_spin                 (guint        ms);
/* The text a label, editable, preferences row or text view shows; owned by the widget. */
const char *gui_text                 (GtkWidget   *widget);
/* The first widget under ROOT (included) of TYPE whose text (gui_text) contains TEXT (NULL:
 * any). */
/* The visible toplevel window of TYPE (a dialog the window opened), or NULL. */
GtkWidget  *gui_find_toplevel        (GType        type);
GtkWidget  *gui_find                 (GtkWidget   *root,
                                      GType        type,
                                      const char  *text);
/* No label shown under ROOT is ellipsized ("Reproducible Bundle (…"): fails naming it. */
void        gui_assert_not_ellipsized (GtkWidget  *root);
/* Every widget of TYPE under ROOT (included), in order, added to FOUND. */
void        gui_collect              (GtkWidget   *root,
                                      GType        type,
                                      GPtrArray   *found);
guint       gui_count                (GtkWidget   *root,
                                      GType        type);
/* Renders WIDGET into a PNG. */
/* WIDGET drawn by its window's renderer, pixel for pixel (a window with its frame's shadow). */
GdkTexture *gui_render               (GtkWidget   *widget);
void        gui_screenshot           (GtkWidget   *widget,
                                      const char  *path);
char       *gui_write_file           (const char  *dir,
                                      const char  *name,
                                      const char  *contents);
/* Opens the session in DIR through win.open-session and runs the main context until the
 * window is no longer opening a session (shown, refused with a toast, or superseded). */
void        gui_open_session         (AssayWindow *window,
                                      const char  *dir);
/* A fake model server (tests/llm/fake_llm_server.py) with SCRIPT; its base URL in *BASE_URL. */
GSubprocess *gui_fake_server_start   (const char  *script,
                                      char       **base_url,
                                      char       **log_path);
/* The same bound to ADDRESS (NULL: 127.0.0.1), e.g. gui_find_remote_address (). */
GSubprocess *gui_fake_server_start_on (const char *address,
                                       const char  *script,
                                       char       **base_url,
                                       char       **log_path);
/* The processes LAUNCHER starts end with the test (SIGTERM when it dies, as a failed
 * assertion's abort does), so none is left holding the test's output open. */
void        gui_launcher_die_with_test (GSubprocessLauncher *launcher);
/* Ends SERVER and removes its folder (the script and LOG_PATH). */
void        gui_fake_server_stop     (GSubprocess *server,
                                      const char  *log_path);

/* With ASSAY_SCREENSHOT_DIR set, saves WIDGET there as NAME once its frames have settled
 * (build-aux/update-screenshots.sh picks the ones for the README and the metainfo). */
void        gui_save_screenshot      (GtkWidget   *widget,
                                      const char  *name);
/* No value of any key of SETTINGS contains SECRET. */
void        gui_assert_not_in_settings (GSettings *settings,
                                        const char *secret);

/* A window at WIDTH×HEIGHT answering from the recorded transcript TRANSCRIPT_JSON (written
 * into DIR), with the file CSV_PATH added to a new session. */
AssayWindow *gui_open_recorded_window (const char  *dir,
                                       const char  *transcript_json,
                                       const char  *csv_path,
                                       int          width,
                                       int          height);
/* An IPv4 address of this machine that is not loopback and that a server can bind: a model
 * server there is "sent to", not "stays on this computer". Without one, as root, one is added
 * to the loopback interface for the tests (as tests/agent/test_privacy.py does); NULL when
 * neither works (the caller fails: nothing is skipped). */
char       *gui_find_remote_address  (void);
/* Destroys WINDOW and asserts it is finalized (the caller's reference is dropped). */
void        gui_close_window         (AssayWindow *window);

/* Makes every frame of WIDGET's window take MS milliseconds, as a window's frames do on a
 * software GL renderer (llvmpipe): they follow each other, back to back, and what runs below
 * their priority (GDK_PRIORITY_REDRAW) waits. Returns the tick callback's id. */
guint        gui_slow_frames          (GtkWidget   *widget,
                                       guint        ms);
/* The name of the GSK renderer WIDGET's window draws with ("GskGLRenderer", ...). */
const char  *gui_renderer_name        (GtkWidget   *widget);
/* A real click (button 1, through XTest) at the middle of WIDGET, which must be on screen,
 * not covered and standing still (within 10 s: a widget just shown or sliding in is waited
 * for). */
void         gui_click                (GtkWidget   *widget);
/* A press on the middle of WIDGET, moved by DX, DY, released (a divider dragged). */
void         gui_drag                 (GtkWidget   *widget,
                                       int          dx,
                                       int          dy);
/* The same at X, Y of WIDGET (a word of a label). */
void         gui_click_at             (GtkWidget   *widget,
                                       double       x,
                                       double       y);
/* Real key presses from the X server (XTest) typing TEXT (printable ASCII, '\n' as Return)
 * into WIDGET, which must be on screen and have the keyboard focus (or hold it: an entry's
 * text), within 10 s. */
void         gui_type                 (GtkWidget   *widget,
                                       const char  *text);
/* A real press and release of KEYSYM (GDK_KEY_Return, GDK_KEY_a, ...) with MODIFIERS held
 * (GDK_CONTROL_MASK, GDK_SHIFT_MASK, GDK_ALT_MASK), sent to WIDGET, which must be on screen
 * and have the keyboard focus, within 10 s. */
void         gui_key                  (GtkWidget       *widget,
                                       guint            keysym,
                                       GdkModifierType  modifiers);
/* The button under ROOT (included) whose action is ACTION ("review.run"), or NULL. */
GtkWidget   *gui_find_button          (GtkWidget   *root,
                                       const char  *action);
/* Real wheel clicks from the X server (XTest) with the pointer over the middle of WIDGET:
 * CLICKS > 0 down, < 0 up; with SHIFT held, as an analyst scrolls sideways. */
void         gui_wheel                (GtkWidget   *widget,
                                       int          clicks,
                                       gboolean     shift);
/* Every widget under ROOT that is shown lies within its parent from top to bottom, and the
 * children of a vertical box do not overlap: nothing is drawn over what follows it. Fails
 * naming the first widget that does not. */
void         gui_assert_laid_out      (GtkWidget   *root);

G_END_DECLS
