/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The conversation renders right at every width and on every renderer (issue 18): a Markdown
 * table is as tall as its rows and leaves the wheel to the chat; a running cell's output is
 * shown whole while frames follow each other as on software GL; step text stays inside its
 * card when the width changes; the answer is shown and reachable once the question ends (and
 * the recorded demo's); the agent goes on while a spinner turns on slow frames; a DataFrame is
 * a table with Copy as CSV; a cell's status icon is symbolic and in its text's colour. The
 * same tests run on the cairo renderer and on GTK's default one (GL, llvmpipe under Xvfb);
 * screenshots at 800 and 1200 px, light and dark. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-conversation.h"
#include "assay-markdown-view.h"
#include "assay-session.h"
#include "assay-step-card.h"
#include "assay-table-scroller.h"
#include "assay-window-private.h"
#include "gui-test-util.h"
#include "session-fixture.h"

static GSettings *settings;
static char *work_dir;
static char *csv_path;

#define PARAGRAPH "The **north region** leads the quarter with 120 units sold, well above the median of the other " \
                  "regions; the south follows with 80 units and the west trails with only 45, so the spread is wide."

/* ---- helpers ----------------------------------------------------------------------------- */

static const char *
renderer_suffix (void)
{
  return g_getenv ("GSK_RENDERER") != NULL ? g_getenv ("GSK_RENDERER") : "default";
}

/* NAME-RENDERER.png in the screenshots folder, light then dark: NAME-light-..., NAME-dark-... */
static void
shots (GtkWidget  *window,
       const char *name)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *light = g_strdup_printf ("%s-light-%s.png", name, renderer_suffix ());
  g_autofree char *dark = g_strdup_printf ("%s-dark-%s.png", name, renderer_suffix ());

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  gui_save_screenshot (window, light);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  gui_save_screenshot (window, dark);
  gui_assert_laid_out (window);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

static GtkWidget *
chat_window (int         width,
             int         height,
             GtkWidget **chat)
{
  GtkWidget *window = gtk_window_new ();

  *chat = assay_chat_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), *chat);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (100);
  return window;
}

/* Folded, the conversation shown and the code review unmapped. */
static gboolean
folded_to_chat (gpointer data)
{
  AssayWindow *window = data;

  return adw_leaflet_get_folded (window->chat_leaflet) &&
         adw_leaflet_get_visible_child (window->chat_leaflet) == GTK_WIDGET (assay_window_get_chat_view (window)) &&
         !gtk_widget_get_mapped (GTK_WIDGET (assay_window_get_code_review (window)));
}

static void
resize (GtkWidget *window,
        int        width,
        int        height)
{
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gui_spin (500);
}

/* The height of one line of WIDGET's font. */
static int
line_height (GtkWidget *widget)
{
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, "Xg");
  int height = 0;

  pango_layout_get_pixel_size (layout, NULL, &height);
  return height;
}

/* The child of ANCESTOR that WIDGET is in. */
static GtkWidget *
child_of (GtkWidget *ancestor,
          GtkWidget *widget)
{
  while (widget != NULL && gtk_widget_get_parent (widget) != ancestor)
    widget = gtk_widget_get_parent (widget);
  return widget;
}

static void
output_line (AssayStepCard *card,
             const char    *cell_id,
             const char    *text)
{
  g_autoptr(JsonObject) output = json_object_new ();

  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", "stdout");
  json_object_set_string_member (output, "text", text);
  assay_step_card_cell_output (card, cell_id, output);
}

/* A session of two steps (long text, a list, a cell each) and an answer with a table of
 * COLUMNS columns, under the work folder. */
static AssaySession *
write_session (const char *name,
               guint       columns)
{
  g_autofree char *dir = g_build_filename (work_dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) answer = g_string_new ("## Sales by region\n\n" PARAGRAPH "\n\n|");
  g_autoptr(GString) rule = g_string_new ("|");
  const char *step_text = PARAGRAPH "\n\n- a first point, long enough to wrap in a narrow chat window\n- a second\n\n" PARAGRAPH;
  AssaySession *session = assay_session_new (dir, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < columns; i++)
    {
      g_string_append_printf (answer, " quarterly column %u |", i);
      g_string_append (rule, "---:|");
    }
  g_string_append_printf (answer, "\n%s\n", rule->str);
  for (guint row = 0; row < 3; row++)
    {
      g_string_append (answer, "|");
      for (guint i = 0; i < columns; i++)
        g_string_append_printf (answer, " %u |", 100 * row + i);
      g_string_append (answer, "\n");
    }
  for (guint i = 0; i < 16; i++)
    g_string_append (answer, "\n" PARAGRAPH "\n");

  session_fixture_ask (session, "How are sales by region?");
  session_fixture_reply (session, step_text, 1, "call_1");
  session_fixture_run_cell (session, "c1", 1, "call_1", "rows 3", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, step_text, 1, "call_2");
  session_fixture_run_cell (session, "c2", 2, "call_2", "12345.6", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, answer->str, 0);
  assay_session_finish_step (session);
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return session;
}

/* ---- the default renderer really runs ----------------------------------------------------- */

static void
test_renderer (void)
{
  GtkWidget *chat;
  GtkWidget *window = chat_window (800, 600, &chat);
  const char *requested = g_getenv ("GSK_RENDERER");

  /* Without GSK_RENDERER, GTK 4.8 draws with GL; here that is Mesa's llvmpipe under Xvfb. A
   * fallback to cairo would make the "default renderer" runs test cairo twice. */
  g_test_message ("renderer: %s", gui_renderer_name (window));
  if (requested == NULL || g_ascii_strcasecmp (requested, "gl") == 0)
    g_assert_cmpstr (gui_renderer_name (window), ==, "GskGLRenderer");
  else if (g_ascii_strcasecmp (requested, "cairo") == 0)
    g_assert_cmpstr (gui_renderer_name (window), ==, "GskCairoRenderer");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- a Markdown table ---------------------------------------------------------------------- */

static void
test_markdown_table (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = assay_markdown_view_new ();
  GtkWidget *grid, *table, *label;
  int one_line;

  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_present (GTK_WINDOW (window));
  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (view),
                                    "Before.\n\n| region | amount | note |\n|---|---:|---|\n"
                                    "| north region | 120 | the best region of all by far this quarter |\n"
                                    "| south | 80 | second |\n\nAfter.\n");
  gui_spin (300);

  /* As tall as its three rows, each cell one line: no blank hole under it. */
  grid = gui_find (view, GTK_TYPE_GRID, NULL);
  g_assert_nonnull (grid);
  table = child_of (view, grid);
  label = gui_find (grid, GTK_TYPE_LABEL, "north region");
  one_line = line_height (label);
  for (GtkWidget *cell = gtk_widget_get_first_child (grid); cell; cell = gtk_widget_get_next_sibling (cell))
    g_assert_cmpint (gtk_widget_get_height (cell), <, 2 * one_line);
  g_assert_cmpint (gtk_widget_get_height (table), <=, gtk_widget_get_height (grid) + 16);
  g_assert_cmpint (gtk_widget_get_height (table), <, 3 * (one_line + 4) + 40);
  gui_assert_laid_out (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The wheel over a table wider than the chat scrolls the chat; Shift and the wheel scroll the
 * table sideways. Real wheel events from the X server. */
static void
test_markdown_table_wheel (void)
{
  g_autoptr(AssaySession) session = write_session ("wheel", 20);
  GtkWidget *chat;
  GtkWidget *window = chat_window (800, 600, &chat);
  GtkScrolledWindow *scroller;
  GtkAdjustment *vadjustment;
  GtkWidget *grid, *table, *label;
  graphene_rect_t bounds;
  graphene_point_t at;
  double before;

  assay_chat_view_show_session (ASSAY_CHAT_VIEW (chat), session, 0);
  gui_spin (500);
  /* The answer's table (the steps' lists are grids too, and outputs have tables). */
  label = gui_find (chat, GTK_TYPE_LABEL, "quarterly column 0");
  g_assert_nonnull (label);
  table = gtk_widget_get_ancestor (label, ASSAY_TYPE_TABLE_SCROLLER);
  g_assert_nonnull (table);
  grid = assay_table_scroller_get_child (ASSAY_TABLE_SCROLLER (table));
  g_assert_true (GTK_IS_GRID (grid));
  /* Wider than the chat: it scrolls sideways. */
  g_assert_cmpint (gtk_widget_get_width (grid), >, gtk_widget_get_width (table));

  /* The table in the middle of the chat. */
  scroller = GTK_SCROLLED_WINDOW (gui_find (chat, GTK_TYPE_SCROLLED_WINDOW, NULL));
  vadjustment = gtk_scrolled_window_get_vadjustment (scroller);
  /* In the content's coordinates (the viewport's child), not the viewport's. */
  g_assert_true (gtk_widget_compute_point (table, gtk_widget_get_first_child (gtk_scrolled_window_get_child (scroller)),
                                           &GRAPHENE_POINT_INIT (0, 0), &at));
  gtk_adjustment_set_value (vadjustment, at.y - 100);
  gui_spin (300);
  before = gtk_adjustment_get_value (vadjustment);
  g_assert_cmpfloat (before, <, gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment) - 100);

  gui_wheel (table, 3, FALSE);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadjustment), >, before + 20);

  g_assert_true (gtk_widget_compute_bounds (grid, table, &bounds));
  g_assert_cmpfloat (bounds.origin.x, ==, 0);
  before = gtk_adjustment_get_value (vadjustment);
  gui_wheel (table, 3, TRUE);
  g_assert_true (gtk_widget_compute_bounds (grid, table, &bounds));
  g_assert_cmpfloat (bounds.origin.x, <, -20);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadjustment), ==, before);
  gtk_adjustment_set_value (vadjustment, at.y - 100);
  shots (window, "chat-table-scrolled");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- a running cell's output while frames are slow --------------------------------------- */

static void
test_running_output (void)
{
  GtkWidget *chat;
  GtkWidget *window = chat_window (800, 900, &chat);
  AssayStepCard *card;
  GtkWidget *output;
  guint slow;

  assay_chat_view_add_question (ASSAY_CHAT_VIEW (chat), "What is in the file?");
  card = assay_chat_view_begin_step (ASSAY_CHAT_VIEW (chat), 1, 8);
  assay_step_card_set_working (card, TRUE);
  assay_step_card_append_text (card, "Let me look at the file.");
  gui_spin (200);

  /* Frames of 30 ms, back to back, the spinner turning: as on llvmpipe. */
  slow = gui_slow_frames (chat, 30);
  assay_step_card_add_cell (card, "c1", "Load the file");
  assay_step_card_cell_started (card, "c1");
  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *line = g_strdup_printf ("line %u of what the cell printed\n", i);

      output_line (card, "c1", line);
      gui_spin (20);
    }
  gui_spin (1000);

  /* All ten lines are shown (and the empty one after the last newline), not a line and a half. */
  output = gui_find (GTK_WIDGET (card), GTK_TYPE_TEXT_VIEW, "line 9");
  g_assert_nonnull (output);
  g_assert_cmpint (gtk_widget_get_height (output), >=, 11 * line_height (output) + 12);
  shots (window, "chat-running-output");
  gtk_widget_remove_tick_callback (GTK_WIDGET (gtk_widget_get_root (chat)), slow);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- a cell's status icon ----------------------------------------------------------------- */

/* The icon before a cell's status, a symbolic one of the theme or the bundle, in the status
 * text's colour. */
static void
assert_status_icon (GtkWidget  *card,
                    const char *text,
                    const char *css_class)
{
  GtkWidget *label = gui_find (card, GTK_TYPE_LABEL, text);
  GtkWidget *icon = label != NULL ? gtk_widget_get_prev_sibling (label) : NULL;
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (card));
  const char *name;
  g_autoptr(GtkIconPaintable) paintable = NULL;

  g_assert_true (GTK_IS_IMAGE (icon));
  name = gtk_image_get_icon_name (GTK_IMAGE (icon));
  g_assert_true (gtk_icon_theme_has_icon (theme, name));
  paintable = gtk_icon_theme_lookup_icon (theme, name, NULL, 16, 1, GTK_TEXT_DIR_NONE, 0);
  g_assert_true (gtk_icon_paintable_is_symbolic (paintable));
  g_assert_true (gtk_widget_has_css_class (label, css_class));
  g_assert_true (gtk_widget_has_css_class (icon, css_class));
}

static void
test_status_icons (void)
{
  GtkWidget *chat;
  GtkWidget *window = chat_window (800, 600, &chat);
  AssayStepCard *card;
  GtkWidget *icon;

  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gtk_widget_get_display (window)),
                                    "/org/assay/Assay/icons");
  card = assay_chat_view_begin_step (ASSAY_CHAT_VIEW (chat), 1, 8);
  assay_step_card_add_cell (card, "c1", "Load the file");
  assert_status_icon (GTK_WIDGET (card), "Waiting for your approval", "accent");
  /* Adwaita 43's question mark in a circle reads as the replacement character "�". */
  icon = gtk_widget_get_prev_sibling (gui_find (GTK_WIDGET (card), GTK_TYPE_LABEL, "Waiting for your approval"));
  g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (icon)), !=, "dialog-question-symbolic");
  shots (window, "chat-waiting");
  assay_step_card_cell_finished (card, "c1", ASSAY_CELL_OK, NULL, 1200);
  assert_status_icon (GTK_WIDGET (card), "Ran in 1.2 s", "success");
  /* One colour class at a time. */
  g_assert_false (gtk_widget_has_css_class (icon, "accent"));
  assay_step_card_add_cell (card, "c2", NULL);
  assay_step_card_cell_rejected (card, "c2", "not this");
  assert_status_icon (GTK_WIDGET (card), "Rejected: not this", "dim-label");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- a DataFrame ----------------------------------------------------------------------------- */

static void
test_dataframe (void)
{
  static const char *html =
    "<div><style scoped>.dataframe tbody tr th { vertical-align: top; }</style>"
    "<table border=\"1\" class=\"dataframe\"><thead><tr style=\"text-align: right;\">"
    "<th></th><th>region</th><th>amount</th><th>note</th><th>quarter one revenue</th><th>quarter two revenue</th>"
    "<th>quarter three revenue</th><th>quarter four revenue</th><th>share of the year</th></tr></thead><tbody>"
    "<tr><th>0</th><td>north</td><td>1,200.5</td><td>a, b</td><td>300</td><td>310</td><td>320</td><td>330</td><td>41%</td></tr>"
    "<tr><th>1</th><td>south &amp; east</td><td>-80</td><td>say \"hi\"<script>alert(1)</script></td>"
    "<td>20</td><td>21</td><td>22</td><td>23</td><td>3%</td></tr>"
    "<tr><th>2</th><td>west</td><td>NaN</td><td></td><td>1</td><td>2</td><td>3</td><td>4</td><td>0%</td></tr>"
    "</tbody></table><p>3 rows × 8 columns</p></div>";
  GtkWidget *chat;
  GtkWidget *window = chat_window (800, 600, &chat);
  g_autoptr(JsonObject) output = json_object_new ();
  JsonObject *data = json_object_new ();
  AssayStepCard *card;
  GtkWidget *grid, *scroller, *cell, *expander;
  GdkContentProvider *content;
  g_auto(GValue) value = G_VALUE_INIT;
  g_autoptr(GError) error = NULL;

  json_object_set_string_member (data, "text/plain", "  region  amount\n0  north  1,200.5\n...\n\n[3 rows x 8 columns]");
  json_object_set_string_member (data, "text/html", html);
  json_object_set_string_member (output, "output_type", "execute_result");
  json_object_set_object_member (output, "data", data);
  card = assay_chat_view_begin_step (ASSAY_CHAT_VIEW (chat), 1, 8);
  assay_step_card_add_cell (card, "c1", "The table by region");
  assay_step_card_cell_started (card, "c1");
  assay_step_card_cell_output (card, "c1", output);
  assay_step_card_cell_finished (card, "c1", ASSAY_CELL_OK, NULL, 300);
  gui_spin (300);

  /* A table of its cells, not the text form. */
  grid = gui_find (GTK_WIDGET (card), GTK_TYPE_GRID, NULL);
  g_assert_nonnull (grid);
  g_assert_nonnull (gui_find (grid, GTK_TYPE_LABEL, "south & east"));
  g_assert_nonnull (gui_find (grid, GTK_TYPE_LABEL, "quarter four revenue"));
  g_assert_null (gui_find (GTK_WIDGET (card), GTK_TYPE_LABEL, "alert(1)"));
  expander = gui_find (GTK_WIDGET (card), GTK_TYPE_EXPANDER, NULL);
  g_assert_true (expander == NULL || !gtk_widget_get_visible (expander));
  g_assert_nonnull (gui_find (GTK_WIDGET (card), GTK_TYPE_LABEL, "3 rows × 8 columns"));
  /* Numbers right-aligned, text left; every cell on one line (its column is as wide as it). */
  cell = gui_find (grid, GTK_TYPE_LABEL, "1,200.5");
  g_assert_cmpfloat (gtk_label_get_xalign (GTK_LABEL (cell)), ==, 1.0);
  g_assert_cmpfloat (gtk_label_get_xalign (GTK_LABEL (gui_find (grid, GTK_TYPE_LABEL, "north"))), ==, 0.0);
  for (GtkWidget *child = gtk_widget_get_first_child (grid); child; child = gtk_widget_get_next_sibling (child))
    g_assert_cmpint (gtk_widget_get_height (child), <, 2 * line_height (child));
  /* Wider than the chat at 800 px: it scrolls sideways, inside the card. */
  scroller = gtk_widget_get_parent (grid);
  g_assert_cmpint (gtk_widget_get_width (grid), >, gtk_widget_get_width (scroller));
  gui_assert_laid_out (window);
  shots (window, "chat-dataframe");

  /* Copy as CSV: every row, quoted where it must be. */
  g_assert_true (gtk_widget_activate_action (gtk_widget_get_ancestor (grid, g_type_from_name ("AssayDataframeView")),
                                             "dataframe.copy-csv", NULL));
  content = gdk_clipboard_get_content (gtk_widget_get_clipboard (window));
  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  g_assert_true (gdk_content_provider_get_value (content, &value, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (g_value_get_string (&value), ==,
                   ",region,amount,note,quarter one revenue,quarter two revenue,quarter three revenue,"
                   "quarter four revenue,share of the year\r\n"
                   "0,north,\"1,200.5\",\"a, b\",300,310,320,330,41%\r\n"
                   "1,south & east,-80,\"say \"\"hi\"\"\",20,21,22,23,3%\r\n"
                   "2,west,NaN,,1,2,3,4,0%\r\n");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- the width changes ------------------------------------------------------------------- */

static void
test_width_change (void)
{
  g_autoptr(AssaySession) session = write_session ("widths", 3);
  GtkWidget *chat;
  GtkWidget *window = chat_window (1200, 900, &chat);
  AssayStepCard *card;
  GtkWidget *output;
  int wide_height;

  /* A saved conversation, then a question still running: its step's text streamed in while
   * the card was first shown empty. */
  assay_chat_view_show_session (ASSAY_CHAT_VIEW (chat), session, 0);
  assay_chat_view_add_question (ASSAY_CHAT_VIEW (chat), "And by month?");
  card = assay_chat_view_begin_step (ASSAY_CHAT_VIEW (chat), 1, 8);
  assay_step_card_set_working (card, TRUE);
  gui_spin (200);
  assay_step_card_append_text (card, PARAGRAPH "\n\n- one point\n- another\n\n" PARAGRAPH);
  gui_spin (300);
  assay_step_card_add_cell (card, "c9", "By month");
  assay_step_card_cell_started (card, "c9");
  for (guint i = 0; i < 6; i++)
    output_line (card, "c9", "a line the cell printed that is long enough to wrap once the chat is narrower than now\n");
  gui_spin (500);
  gui_assert_laid_out (window);
  shots (window, "chat-1200");
  output = gui_find (chat, GTK_TYPE_TEXT_VIEW, "a line the cell printed");
  g_assert_nonnull (output);
  wide_height = gtk_widget_get_height (output);

  resize (window, 800, 900);
  gui_assert_laid_out (window);
  shots (window, "chat-800");

  resize (window, 360, 900);
  gui_assert_laid_out (window);
  shots (window, "chat-360");
  /* Output is never wrapped (pandas' columns stay aligned): as tall as at 1200 px, wider than
   * the card, which scrolls it sideways. */
  g_assert_cmpint (gtk_widget_get_height (output), ==, wide_height);
  g_assert_cmpint (gtk_widget_get_width (output), >,
                   gtk_widget_get_width (gtk_widget_get_ancestor (output, ASSAY_TYPE_TABLE_SCROLLER)));
  /* Focused (a click to select in it), the wide output stays where it is: its lines' starts. */
  gtk_widget_grab_focus (output);
  gui_spin (200);
  g_assert_cmpfloat (gtk_adjustment_get_value (assay_table_scroller_get_hadjustment (
                       ASSAY_TABLE_SCROLLER (gtk_widget_get_ancestor (output, ASSAY_TYPE_TABLE_SCROLLER)))), ==, 0);

  resize (window, 1200, 900);
  gui_assert_laid_out (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- the answer of a question that ran -------------------------------------------------- */

/* No numbers: a number no cell printed makes Assay send the answer back to the model. */
#define WORDS "The **north region** leads the quarter, well above the median of the other regions; the south " \
              "follows and the west trails behind, so the spread between them is wide."
#define ANSWER "## Sales by region\\n\\n" WORDS "\\n\\n| region | rank |\\n|---|---|\\n| north | first |\\n" \
               "| south | second |\\n\\n" WORDS "\\n\\n" WORDS "\\n\\nThe **last line** of the answer."

static const char *answer_only =
  "{\"format\": \"assay-transcript\", \"turns\": [{\"text\": \"" ANSWER "\"}]}";

static const char *one_cell =
  "{\"format\": \"assay-transcript\", \"turns\": ["
  "{\"text\": \"A first look.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"print('original')\\n\", \"description\": \"Print\"}}]},"
  "{\"text\": \"" ANSWER "\"}]}";

static void
send (AssayWindow *window,
      const char  *question)
{
  assay_chat_view_set_composer_text (assay_window_get_chat_view (window), question);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL);
  g_assert_true (assay_window_get_busy (window));
}

static gboolean
is_idle (gpointer data)
{
  return !assay_window_get_busy (data);
}

static gboolean
is_waiting (gpointer data)
{
  return assay_code_review_get_waiting (assay_window_get_code_review (data));
}

static gboolean
is_scrolled_to_end (gpointer data)
{
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (data));
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (gui_find (chat, GTK_TYPE_SCROLLED_WINDOW, NULL));
  GtkAdjustment *vadjustment = gtk_scrolled_window_get_vadjustment (scroller);

  return gtk_adjustment_get_value (vadjustment) ==
         gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment);
}

/* The answer is the chat's last card, all of it laid out, and the chat scrolled to its end
 * shows its last line. The scroll follows the layout at the next frame, and the figures of an
 * answer are laid out as they load: wait for it (a chat that never gets there fails). */
static void
assert_answer_shown (AssayWindow *window,
                     const char  *last_line)
{
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (gui_find (chat, GTK_TYPE_SCROLLED_WINDOW, NULL));
  GtkAdjustment *vadjustment = gtk_scrolled_window_get_vadjustment (scroller);
  GtkWidget *last = gui_find (chat, GTK_TYPE_LABEL, last_line);
  GtkWidget *card;
  graphene_rect_t bounds;

  gui_wait (is_scrolled_to_end, window, 30, "the chat to follow the answer to its end");
  g_assert_nonnull (last);
  card = gtk_widget_get_ancestor (last, ASSAY_TYPE_STEP_CARD);
  g_assert_nonnull (card);
  g_assert_nonnull (gui_find (card, GTK_TYPE_LABEL, "Answer"));
  g_assert_true (gtk_widget_get_mapped (last));
  gui_assert_laid_out (chat);

  /* The chat followed the conversation to its end: the answer's last line is in sight,
   * where the scroll range ends (nothing is below it that the analyst cannot reach). */
  g_assert_cmpfloat (gtk_adjustment_get_value (vadjustment), ==,
                     gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment));
  g_assert_true (gtk_widget_compute_bounds (last, GTK_WIDGET (scroller), &bounds));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, gtk_widget_get_height (GTK_WIDGET (scroller)));
}

static void
test_answer_shown (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, answer_only, csv_path, 1200, 800);

  send (window, "How are sales by region?");
  gui_wait (is_idle, window, 60, "the question to end");
  gui_spin (300);
  assert_answer_shown (window, "The last line of the answer.");
  gui_close_window (window);
}

/* ---- a draft answer Assay sent back -------------------------------------------------------- */

static const char *with_draft =
  "{\"format\": \"assay-transcript\", \"turns\": ["
  "{\"text\": \"Counting.\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"print(475046.3)\\n\", \"description\": \"Revenue\"}}]},"
  "{\"text\": \"Draft: revenue was EUR 475,046 from 12,480 orders.\"},"
  "{\"text\": \"Counting the orders.\", \"tool_calls\": [{\"id\": \"call_2\", \"name\": \"execute_python\","
  "  \"arguments\": {\"code\": \"print('orders', 12408)\\n\", \"description\": \"Orders\"}}]},"
  "{\"text\": \"Revenue was EUR 475,046 from 12,408 orders.\"}]}";

/* Whether a label of ROOT that the analyst can see holds TEXT. */
static gboolean
shown_label_with (GtkWidget  *root,
                  const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      if (GTK_IS_LABEL (child) && strstr (gtk_label_get_text (GTK_LABEL (child)), text) != NULL)
        return TRUE;
      if (shown_label_with (child, text))
        return TRUE;
    }
  return FALSE;
}

/* The draft whose numbers no output printed is no answer: a line says it went back, while it
 * runs and when the session is opened again; the answer is shown once (issue 32). */
static void
test_draft_not_shown (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, with_draft, csv_path, 1200, 800);
  GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
  g_autofree char *dir = NULL;

  assay_conversation_set_auto_run (assay_window_get_conversation (window), TRUE);
  send (window, "Revenue and orders?");
  gui_wait (is_idle, window, 60, "the question to end");
  gui_spin (300);
  g_assert_false (shown_label_with (chat, "Draft: revenue was"));
  g_assert_true (shown_label_with (chat, "A draft answer named numbers no output printed (12,480)"));
  g_assert_true (shown_label_with (chat, "from 12,408 orders"));
  shots (GTK_WIDGET (window), "chat-draft-sent-back");

  dir = g_strdup (assay_session_get_dir (assay_window_get_session (window)));
  assay_window_new_session (window);
  gui_spin (200);
  gui_open_session (window, dir);
  gui_spin (300);
  g_assert_false (shown_label_with (chat, "Draft: revenue was"));
  g_assert_true (shown_label_with (chat, "A draft answer named numbers no output printed (12,480)"));
  g_assert_true (shown_label_with (chat, "from 12,408 orders"));
  gui_close_window (window);
}

/* win.send is on once the window is ready (the demo's provider, its file). */
static gboolean
send_when_ready (gpointer data)
{
  if (!assay_window_get_busy (data))
    gtk_widget_activate_action (GTK_WIDGET (data), "win.send", NULL);
  return assay_window_get_busy (data);
}

/* ---- an answer's numbers: where they came from, in the window ------------------------- */

static GtkLabel *
find_label_with_markup (GtkWidget  *root,
                        const char *needle)
{
  if (GTK_IS_LABEL (root) && strstr (gtk_label_get_label (GTK_LABEL (root)), needle) != NULL)
    return GTK_LABEL (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label_with_markup (child, needle);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_provenance (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-gui-provenance-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (parent, "s", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *chat = assay_chat_view_new ();
  AssayStepCard *source;
  GtkLabel *label;
  gboolean handled = FALSE;
  g_autofree char *selected = NULL;

  g_assert_no_error (error);
  /* Two cells in two steps; the answer's 12,346 was printed by c2, its 999 by nothing. */
  session_fixture_ask (session, "How much?");
  session_fixture_reply (session, "Looking.", 1, "call_1");
  session_fixture_run_cell (session, "c1", 1, "call_1", "rows 3", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "Summing.", 1, "call_2");
  session_fixture_run_cell (session, "c2", 2, "call_2", "12345.6", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "The total is **12,346**; 999 were invented.", 0);
  assay_session_finish_step (session);
  g_assert_nonnull (assay_session_trace_answer (session, assay_session_get_messages (session)->len - 1));
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);

  gtk_window_set_child (GTK_WINDOW (window), chat);
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  gtk_window_present (GTK_WINDOW (window));
  assay_chat_view_show_session (ASSAY_CHAT_VIEW (chat), session, 0);
  gui_spin (100);

  /* Hovering: the traced number is a link whose tooltip names the cell and the line; the
   * untraced one is marked and says so. */
  label = find_label_with_markup (chat, "href=\"assay-number:0\"");
  g_assert_nonnull (label);
  g_assert_nonnull (strstr (gtk_label_get_label (label), "title=\"From cell c2, line 1: 12345.6\""));
  g_assert_nonnull (strstr (gtk_label_get_label (label), "href=\"assay-number:1\" title=\"Not found in any output"));
  g_assert_nonnull (strstr (gtk_label_get_label (label), "underline=\"error\""));
  g_assert_nonnull (find_label_with_markup (chat, "1 number in this answer was not found in any output: 999"));

  /* Clicking: c2's card opens its output and selects the line that printed it. */
  source = assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c2");
  g_assert_nonnull (source);
  g_assert_null (assay_step_card_dup_selected_output (source, "c2"));
  g_signal_emit_by_name (label, "activate-link", "assay-number:0", &handled);
  g_assert_true (handled);
  gui_spin (50);
  g_assert_true (assay_step_card_get_output_expanded (source, "c2"));
  selected = assay_step_card_dup_selected_output (source, "c2");
  g_assert_cmpstr (selected, ==, "12345.6");
  gui_save_screenshot (window, "provenance.png");
  g_assert_null (assay_step_card_dup_selected_output (assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c1"), "c1"));

  /* The untraced number leads nowhere (and opens nothing). */
  g_free (selected);
  g_signal_emit_by_name (label, "activate-link", "assay-number:1", &handled);
  g_assert_true (handled);
  selected = assay_step_card_dup_selected_output (source, "c2");
  g_assert_cmpstr (selected, ==, "12345.6");

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_true (assay_session_delete (dir, NULL));
  g_rmdir (parent);
}

/* ---- a traced number whose output is folded ---------------------------------------------- */

/* Pixels of TEXTURE inside RECT (in its coordinates) that differ from the rectangle's first
 * one: text drawn there, or nothing (a blank). */
static guint
count_inked (GdkTexture            *texture,
             const graphene_rect_t *rect)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guchar *pixels = g_malloc ((gsize) width * height * 4);
  int x0 = MAX (0, (int) rect->origin.x), y0 = MAX (0, (int) rect->origin.y);
  int x1 = MIN (width, (int) (rect->origin.x + rect->size.width));
  int y1 = MIN (height, (int) (rect->origin.y + rect->size.height));
  guint32 background;
  guint inked = 0;

  gdk_texture_download (texture, pixels, width * 4);
  if (x0 >= x1 || y0 >= y1)
    return 0;
  memcpy (&background, pixels + ((gsize) y0 * width + x0) * 4, 4);
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 pixel;

        memcpy (&pixel, pixels + ((gsize) y * width + x) * 4, 4);
        inked += pixel != background;
      }
  return inked;
}

typedef struct
{
  AssayStepCard *card;
  const char    *cell_id;
} CellRef;

static gboolean
output_line_selected (gpointer data)
{
  CellRef *ref = data;
  g_autofree char *selected = assay_step_card_dup_selected_output (ref->card, ref->cell_id);

  return assay_step_card_get_output_expanded (ref->card, ref->cell_id) && selected != NULL;
}

/* Clicks NUMBER in LABEL for real (scrolled into sight first, as the analyst would), then:
 * CELL_ID's output in SOURCE is open, LINE_TEXT selected, in sight in the conversation and
 * drawn there. */
static void
click_traced_number (GtkWidget     *label,
                     const char    *number,
                     AssayStepCard *source,
                     const char    *cell_id,
                     const char    *line_text,
                     const char    *shot)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (label, GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *vadjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (label));
  const char *text = pango_layout_get_text (layout);
  const char *at = strstr (text, number);
  CellRef ref = { source, cell_id };
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *selected = NULL;
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  GtkWidget *output;
  PangoRectangle pos;
  GdkRectangle line;
  graphene_rect_t bounds;
  graphene_point_t top;
  int lx, ly, wx, wy;

  g_assert_nonnull (at);
  g_assert_true (gtk_widget_compute_bounds (label, scroller, &bounds));
  gtk_adjustment_set_value (vadjustment, gtk_adjustment_get_value (vadjustment) + bounds.origin.y - 40);
  gui_spin (300);
  pango_layout_index_to_pos (layout, at - text, &pos);
  gtk_label_get_layout_offsets (GTK_LABEL (label), &lx, &ly);
  gui_click_at (label, lx + (pos.x + pango_units_from_double (3)) / (double) PANGO_SCALE,
                ly + (pos.y + pos.height / 2) / (double) PANGO_SCALE);
  gui_wait (output_line_selected, &ref, 10, "the output to open at its line");
  gui_spin (500);
  gui_assert_laid_out (gtk_widget_get_ancestor (label, GTK_TYPE_WINDOW));
  shots (gtk_widget_get_ancestor (label, GTK_TYPE_WINDOW), shot);

  selected = assay_step_card_dup_selected_output (source, cell_id);
  g_assert_cmpstr (selected, ==, line_text);
  output = gui_find (GTK_WIDGET (source), GTK_TYPE_TEXT_VIEW, line_text);
  g_assert_nonnull (output);
  /* As tall as its lines: nothing scrolled inside it. */
  g_assert_cmpfloat (gtk_adjustment_get_value (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (output))), ==, 0);

  /* The line is in sight in the conversation... */
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (output));
  g_assert_true (gtk_text_buffer_get_selection_bounds (buffer, &start, &end));
  gtk_text_view_get_iter_location (GTK_TEXT_VIEW (output), &start, &line);
  gtk_text_view_buffer_to_window_coords (GTK_TEXT_VIEW (output), GTK_TEXT_WINDOW_WIDGET, line.x, line.y, &wx, &wy);
  g_assert_true (gtk_widget_compute_point (output, scroller, &GRAPHENE_POINT_INIT (wx, wy), &top));
  g_test_message ("the selected line at %.0f of a conversation %d px tall", top.y, gtk_widget_get_height (scroller));
  g_assert_cmpfloat (top.y, >=, 0);
  g_assert_cmpfloat (top.y + line.height, <=, gtk_widget_get_height (scroller));
  /* ... its start too, in the output's sideways scroller (focus scrolled it to the far end) ... */
  g_assert_true (gtk_widget_compute_point (output, gtk_widget_get_ancestor (output, ASSAY_TYPE_TABLE_SCROLLER),
                                           &GRAPHENE_POINT_INIT (wx, wy), &top));
  g_assert_cmpfloat (top.x, >=, 0);
  g_assert_cmpfloat (top.x, <, gtk_widget_get_width (gtk_widget_get_ancestor (output, ASSAY_TYPE_TABLE_SCROLLER)) / 2);

  /* ... and drawn: the output's pixels on that line are not one colour. */
  texture = gui_render (output);
  g_assert_cmpuint (count_inked (texture, &GRAPHENE_RECT_INIT (0, wy, gtk_widget_get_width (output), line.height)), >, 50);
}

/* The recorded demo, run without asking: its answer (a table, then the files it made) ends
 * the chat, laid out, and the chat scrolls down to its last line. */
static void
test_demo_answer (void)
{
  AssayWindow *window = g_object_ref (assay_window_new (NULL));
  AssayConversation *conversation;

  g_settings_reset (settings, "provider");
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_signal_emit_by_name (assay_window_get_onboarding (window), "demo-requested");
  gui_wait_files_added (window);
  conversation = assay_window_get_conversation (window);
  assay_conversation_set_auto_run (conversation, TRUE);
  gui_wait (send_when_ready, window, 30, "the demo's question to be sent");
  gui_wait (is_idle, window, 240, "the demo to end");
  gui_spin (500);
  assert_answer_shown (window, "2-page report with the key numbers, tables and the three charts");
  /* The charts are shown at the card's width, their labels readable (they were 200×130
   * thumbnails): each as wide as its card's content, or as it was drawn, its shape kept. */
  {
    GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
    g_autoptr(GPtrArray) pictures = g_ptr_array_new ();
    guint n = 0;

    gui_collect (chat, GTK_TYPE_PICTURE, pictures);
    for (guint i = 0; i < pictures->len; i++)
      {
        GtkWidget *picture = g_ptr_array_index (pictures, i);
        GdkPaintable *paintable = gtk_picture_get_paintable (GTK_PICTURE (picture));
        GtkWidget *card = gtk_widget_get_ancestor (picture, ASSAY_TYPE_STEP_CARD);
        int drawn_width, drawn_height, width;

        if (paintable == NULL || card == NULL || !gtk_widget_get_mapped (picture))
          continue;
        n++;
        drawn_width = gdk_paintable_get_intrinsic_width (paintable);
        drawn_height = gdk_paintable_get_intrinsic_height (paintable);
        width = gtk_widget_get_width (picture);
        g_assert_cmpint (width, >, 300);
        g_assert_cmpint (width, >=, MIN (drawn_width, gtk_widget_get_width (card) - 64));
        g_assert_cmpint (width, <=, drawn_width);
        g_test_message ("chart %d×%d drawn %d×%d in a card %d wide", width, gtk_widget_get_height (picture), drawn_width, drawn_height, gtk_widget_get_width (card));
        g_assert_cmpfloat (ABS ((double) gtk_widget_get_height (picture) / width - (double) drawn_height / drawn_width), <, 0.03);
      }
    g_assert_cmpuint (n, >=, 3);
    shots (GTK_WIDGET (window), "chat-demo-answer");
    /* Scrolled to the first one, as Tab would: the chart to look at. */
    gtk_widget_grab_focus (gui_find_button (chat, "win.show-artifact"));
    gui_spin (300);
    gui_save_screenshot (GTK_WIDGET (window), "chat-demo-chart.png");
  }
  /* A number whose cell's output is folded, clicked for real in the window: the output opens
   * at the line that printed it, drawn (it stayed blank on GL). */
  {
    GtkWidget *chat = GTK_WIDGET (assay_window_get_chat_view (window));
    AssayStepCard *answer = ASSAY_STEP_CARD (gtk_widget_get_ancestor (gui_find (chat, GTK_TYPE_LABEL, "2-page report"),
                                                                      ASSAY_TYPE_STEP_CARD));
    const AssayProvenance *provenance = assay_markdown_view_get_provenance (assay_step_card_get_text_view (answer));
    gboolean clicked = FALSE;

    g_assert_nonnull (provenance);
    for (guint i = 0; i < provenance->numbers->len && !clicked; i++)
      {
        const AssayTracedNumber *number = g_ptr_array_index (provenance->numbers, i);
        g_autofree char *href = g_strdup_printf ("href=\"assay-number:%u\"", i);
        AssayStepCard *source;
        GtkLabel *label;
        const char *text, *first;

        if (!number->found || (source = assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), number->cell_id)) == NULL ||
            assay_step_card_get_output_expanded (source, number->cell_id) ||
            (label = find_label_with_markup (GTK_WIDGET (answer), href)) == NULL)
          continue;
        /* A number its label shows once: the click lands on it. */
        text = pango_layout_get_text (gtk_label_get_layout (label));
        first = strstr (text, number->text);
        if (first == NULL || strstr (first + 1, number->text) != NULL)
          continue;
        g_test_message ("clicking %s, printed by %s: %s", number->text, number->cell_id, number->line_text);
        click_traced_number (GTK_WIDGET (label), number->text, source, number->cell_id, number->line_text,
                             "chat-demo-folded-click");
        clicked = TRUE;
      }
    g_assert_true (clicked);
  }
  gui_close_window (window);
  g_settings_set_string (settings, "provider", "openai");
}

/* ---- the agent goes on while frames are slow -------------------------------------------- */

static void
test_agent_slow_frames (void)
{
  AssayWindow *window = gui_open_recorded_window (work_dir, one_cell, csv_path, 1400, 900);
  AssayCodeReview *review = assay_window_get_code_review (window);
  GtkWidget *entry;
  guint slow;

  /* Every frame 40 ms, back to back, a spinner turning on the step: the main loop never runs
   * out of frames to draw. The recorded reply, the agent's next step after Reject and the
   * question's end must not wait for frames to stop. */
  slow = gui_slow_frames (GTK_WIDGET (window), 40);
  send (window, "Print something");
  gui_wait (is_waiting, window, 30, "a cell waiting for approval while frames are slow");
  gtk_widget_activate_action (GTK_WIDGET (review), "review.reject", NULL);
  entry = gui_find (GTK_WIDGET (review), GTK_TYPE_ENTRY, NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), "do not print");
  gtk_widget_activate_action (GTK_WIDGET (review), "review.confirm-reject", NULL);
  gui_wait (is_idle, window, 30, "the question to end after Reject while frames are slow");
  gtk_widget_remove_tick_callback (GTK_WIDGET (window), slow);
  gui_spin (300);
  assert_answer_shown (window, "The last line of the answer.");
  gui_close_window (window);
}

/* ---- narrow windows -------------------------------------------------------------------- */

/* The button under ROOT that activates ACTION. */
static GtkWidget *
find_action_button (GtkWidget  *root,
                    const char *action)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)), action) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_action_button (child, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The leaflet shows CHILD and no transition moves its pages any more (software GL under load
 * draws a transition's frames slowly: the pages are offset until it ends). */
typedef struct
{
  AdwLeaflet *leaflet;
  GtkWidget  *child;
} LeafletAt;

static gboolean
leaflet_rests_on (gpointer data)
{
  const LeafletAt *at = data;

  return adw_leaflet_get_visible_child (at->leaflet) == at->child &&
         !adw_leaflet_get_child_transition_running (at->leaflet);
}

static void
wait_leaflet_rests_on (AdwLeaflet *leaflet,
                       GtkWidget  *child)
{
  LeafletAt at = { leaflet, child };

  gui_wait (leaflet_rests_on, &at, 60, "the leaflet to come to rest on its page");
}

static gboolean
at_most_360_wide (gpointer data)
{
  return gtk_widget_get_width (data) <= 360;
}

/* Where a widget lies in the window, within it. */
static void
assert_in_window (GtkWidget *widget,
                  GtkWidget *window)
{
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_get_mapped (widget));
  g_assert_true (gtk_widget_compute_bounds (widget, window, &bounds));
  g_assert_cmpfloat (bounds.origin.x, >=, 0);
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (window));
  g_assert_cmpfloat (bounds.size.width, >, 0);
}

/* The window goes down to 360 px. Side by side while the chat and the code both read well;
 * narrower, one page at a time: the code while a cell waits (with a way back to the chat and
 * to the code again), the conversation once the cell is answered. */
static void
test_narrow (void)
{
  g_autofree char *layout = NULL;
  AssayWindow *window;
  GtkWidget *widget;
  AdwLeaflet *leaflet;
  GtkWidget *chat, *review, *run_button;
  int minimum = 0;

  /* GNOME's window buttons (org.gnome.desktop.wm.preferences button-layout "appmenu:close"),
   * not GTK's fallback of three without a desktop's settings. */
  g_object_get (gtk_settings_get_default (), "gtk-decoration-layout", &layout, NULL);
  g_object_set (gtk_settings_get_default (), "gtk-decoration-layout", "appmenu:close", NULL);
  window = gui_open_recorded_window (work_dir, one_cell, csv_path, 1400, 900);
  widget = GTK_WIDGET (window);
  leaflet = window->chat_leaflet;
  chat = GTK_WIDGET (assay_window_get_chat_view (window));
  review = GTK_WIDGET (assay_window_get_code_review (window));

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  g_assert_cmpint (minimum, <=, 360);

  /* Wide: both, the chat at least as wide as it reads well. */
  adw_view_stack_set_visible_child_name (window->view_stack, "chat");
  gui_spin (300);
  g_assert_false (adw_leaflet_get_folded (leaflet));
  g_assert_true (gtk_widget_get_mapped (chat) && gtk_widget_get_mapped (review));
  g_assert_cmpint (gtk_widget_get_width (chat), >=, 440);
  g_assert_false (gtk_widget_get_visible (window->code_button));
  g_assert_false (gtk_widget_get_visible (window->code_back));

  /* 800 px: the conversation alone, as wide as the window leaves it (once the X server and
   * the renderer have caught up: slow frames on software GL). */
  resize (widget, 800, 700);
  gui_wait (folded_to_chat, window, 60, "the leaflet to fold to the conversation");
  g_assert_true (adw_leaflet_get_folded (leaflet));
  g_assert_true (adw_leaflet_get_visible_child (leaflet) == chat);
  g_assert_false (gtk_widget_get_mapped (review));
  g_assert_cmpint (gtk_widget_get_width (chat), >=, 440);
  g_assert_true (gtk_widget_get_visible (window->code_button));
  /* Alt+Right shows the code page before there is any code too (its empty state says what
   * comes there), Alt+Left comes back. */
  assay_chat_view_focus_composer (ASSAY_CHAT_VIEW (chat));
  gui_spin (100);
  gui_key (gtk_root_get_focus (GTK_ROOT (widget)), GDK_KEY_Right, GDK_ALT_MASK);
  wait_leaflet_rests_on (leaflet, review);
  gui_key (gtk_root_get_focus (GTK_ROOT (widget)), GDK_KEY_Left, GDK_ALT_MASK);
  wait_leaflet_rests_on (leaflet, chat);

  /* A cell waits: the code is the page shown, its Run button in the window. */
  send (window, "Print something");
  gui_wait (is_waiting, window, 30, "a cell waiting for approval");
  wait_leaflet_rests_on (leaflet, review);
  gui_spin (200);
  g_assert_true (adw_leaflet_get_visible_child (leaflet) == review);
  g_assert_true (gtk_widget_get_visible (window->code_back));
  g_assert_false (gtk_widget_get_visible (window->code_button));
  run_button = find_action_button (review, "review.run");
  g_assert_nonnull (run_button);
  assert_in_window (run_button, widget);
  gui_assert_laid_out (widget);
  shots (widget, "chat-narrow-800-code");

  /* 360 px: still laid out, the Run button still within reach. */
  resize (widget, 360, 700);
  gui_wait (at_most_360_wide, widget, 60, "the window to be 360 px wide");
  wait_leaflet_rests_on (leaflet, review);
  gui_spin (200);
  g_assert_cmpint (gtk_widget_get_width (widget), <=, 360);
  assert_in_window (run_button, widget);
  gui_assert_laid_out (widget);
  shots (widget, "chat-narrow-360-code");

  /* Back to the chat and to the code again with the keys the shortcuts window names: Alt+Left
   * from the code (the code view focused: a GtkSourceView, which takes Alt+arrows itself, and
   * then the Run button), Alt+Right from the composer. */
  {
    GtkWidget *code_view = gui_find (review, GTK_SOURCE_TYPE_VIEW, NULL);

    g_assert_nonnull (code_view);
    gtk_widget_grab_focus (code_view);
    gui_key (code_view, GDK_KEY_Left, GDK_ALT_MASK);
    wait_leaflet_rests_on (leaflet, chat);
    gtk_widget_activate_action (widget, "win.show-code", NULL);
    wait_leaflet_rests_on (leaflet, review);
  }
  gtk_widget_grab_focus (run_button);
  gui_key (run_button, GDK_KEY_Left, GDK_ALT_MASK);
  wait_leaflet_rests_on (leaflet, chat);
  gui_spin (200);
  g_assert_true (adw_leaflet_get_visible_child (leaflet) == chat);
  g_assert_true (gtk_widget_get_visible (window->code_button));
  gui_assert_laid_out (widget);
  shots (widget, "chat-narrow-360-chat");
  assay_chat_view_focus_composer (ASSAY_CHAT_VIEW (chat));
  gui_spin (100);
  gui_key (gtk_root_get_focus (GTK_ROOT (widget)), GDK_KEY_Right, GDK_ALT_MASK);
  wait_leaflet_rests_on (leaflet, review);
  g_assert_true (adw_leaflet_get_visible_child (leaflet) == review);

  /* Run: the conversation again, to follow the cell and read the answer. */
  gtk_widget_activate_action (review, "review.run", NULL);
  gui_wait (is_idle, window, 60, "the question to end");
  wait_leaflet_rests_on (leaflet, chat);
  gui_spin (200);
  g_assert_true (adw_leaflet_get_visible_child (leaflet) == chat);
  assert_answer_shown (window, "The last line of the answer.");
  shots (widget, "chat-narrow-360-answer");

  /* The other pages fit too: the files (their filters a drop-down) and the data. */
  adw_view_stack_set_visible_child_name (window->view_stack, "artifacts");
  gui_spin (500);
  g_assert_false (gtk_widget_get_visible (window->code_button));
  gui_assert_laid_out (widget);
  shots (widget, "chat-narrow-360-files");
  adw_view_stack_set_visible_child_name (window->view_stack, "data");
  gui_spin (500);
  gui_assert_laid_out (widget);
  shots (widget, "chat-narrow-360-data");
  adw_view_stack_set_visible_child_name (window->view_stack, "chat");

  /* Wide again: side by side. */
  resize (widget, 1400, 900);
  g_assert_false (adw_leaflet_get_folded (leaflet));
  g_assert_true (gtk_widget_get_mapped (chat) && gtk_widget_get_mapped (review));
  g_assert_false (gtk_widget_get_visible (window->code_back));
  gui_close_window (window);
  g_object_set (gtk_settings_get_default (), "gtk-decoration-layout", layout, NULL);
}


/* A number of the answer clicked for real, its cell's long output folded: the output opens,
 * its line is selected, in sight in the conversation and drawn (on GL it opened blank). */
static void
test_folded_output_click (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-gui-chat-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (parent, "s", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(GString) printed = g_string_new (NULL);
  GtkWidget *chat;
  GtkWidget *window;
  AssayStepCard *source;

  g_assert_no_error (error);
  for (guint i = 1; i <= 60; i++)
    if (i == 45)
      g_string_append (printed, "total: 12345.6\n");
    else
      g_string_append_printf (printed, "row %u: region %u sold %u units\n", i, i % 7, i * 37 % 1000);
  session_fixture_ask (session, "How much?");
  session_fixture_reply (session, "Summing.", 1, "call_1");
  session_fixture_run_cell (session, "c1", 1, "call_1", printed->str, FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "The total is **12,346**.", 0);
  assay_session_finish_step (session);
  g_assert_nonnull (assay_session_trace_answer (session, assay_session_get_messages (session)->len - 1));
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);

  window = chat_window (900, 700, &chat);
  assay_chat_view_show_session (ASSAY_CHAT_VIEW (chat), session, 0);
  gui_spin (500);
  source = assay_chat_view_find_cell_card (ASSAY_CHAT_VIEW (chat), "c1");
  g_assert_nonnull (source);
  g_assert_false (assay_step_card_get_output_expanded (source, "c1"));
  click_traced_number (gui_find (chat, GTK_TYPE_LABEL, "The total is"), "12,346", source, "c1",
                       "total: 12345.6", "chat-folded-output-click");

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_true (assay_session_delete (dir, NULL));
  g_rmdir (parent);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gui_test_init (&argc, &argv);
  settings = g_settings_new ("org.assay.Assay");
  g_settings_set_string (settings, "provider", "openai");
  g_settings_set_enum (settings, "sandbox-backend", 2 /* bwrap */);
  work_dir = g_dir_make_tmp ("assay-gui-chat-XXXXXX", NULL);
  csv_path = gui_write_file (work_dir, "regions.csv", "region,amount\nnorth,120\nsouth,80\n");

  g_test_add_func ("/assay/app/chat/renderer", test_renderer);
  g_test_add_func ("/assay/app/chat/markdown-table", test_markdown_table);
  g_test_add_func ("/assay/app/chat/markdown-table-wheel", test_markdown_table_wheel);
  g_test_add_func ("/assay/app/chat/running-output", test_running_output);
  g_test_add_func ("/assay/app/chat/status-icons", test_status_icons);
  g_test_add_func ("/assay/app/chat/dataframe", test_dataframe);
  g_test_add_func ("/assay/app/chat/width-change", test_width_change);
  g_test_add_func ("/assay/app/chat/answer-shown", test_answer_shown);
  g_test_add_func ("/assay/app/chat/demo-answer", test_demo_answer);
  g_test_add_func ("/assay/app/chat/draft-not-shown", test_draft_not_shown);
  g_test_add_func ("/assay/app/chat/agent-slow-frames", test_agent_slow_frames);
  g_test_add_func ("/assay/app/chat/narrow", test_narrow);
  g_test_add_func ("/assay/app/chat/provenance", test_provenance);
  g_test_add_func ("/assay/app/chat/folded-output-click", test_folded_output_click);
  status = g_test_run ();

  g_object_unref (settings);
  return status;
}
