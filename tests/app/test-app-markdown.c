/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An answer's Markdown in a real X server on the renderer under test: what it renders,
 * whole and streamed a piece at a time, and with its provenance each traced number's
 * underline as drawn, and the numbers made links where the answer stands (a frame's worth
 * at a time, those in view first). */
#include "config.h"

#include <string.h>

#include "assay-markdown-view.h"
#include "assay-provenance.h"
#include "gui-test-util.h"

/* ---- what is rendered, whole and streamed ---------------------------------------------------- */

static void
test_markdown (void)
{
  GtkWidget *view = g_object_ref_sink (assay_markdown_view_new ());
  GtkWidget *grid;

  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (view),
                                    "# Title\n\nSome **bold** and *emphasis* and `code` <script>alert(1)</script> & more.\n\n"
                                    "- one\n- two\n\n1. first\n2. second\n\n"
                                    "| a | b |\n|---|--:|\n| x<y | 2 |\n\n"
                                    "```python\nprint('<hi>')\n```\n\n[site](https://example.com) [bad](javascript:alert)\n");
  g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "Some bold and emphasis and code <script>alert(1)</script> & more."));
  g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "• one"));
  g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "2. second"));
  g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "print('<hi>')"));
  g_assert_true (gtk_widget_has_css_class (gui_find (view, GTK_TYPE_LABEL, "Title"), "title-1"));
  grid = gui_find (view, GTK_TYPE_GRID, NULL);
  g_assert_nonnull (grid);
  g_assert_nonnull (gui_find (grid, GTK_TYPE_LABEL, "x<y"));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (gui_find (view, GTK_TYPE_LABEL, "site"))), "href=\"https://example.com\""));
  g_assert_null (strstr (gtk_label_get_label (GTK_LABEL (gui_find (view, GTK_TYPE_LABEL, "bad"))), "javascript"));

  /* Cut mid-stream: still renders, no warnings. */
  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (view), "| a | b |\n|---|---|\n| 1 ");
  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (view), "**bold without end\n\n```py\nx = 1");
  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (view), "bad utf8 \xff\xfe here");
  g_assert_finalize_object (view);
}

/* The labels' texts and the grids of a markdown view, in order, as one string. */
/* The blocks of a markdown view, in order (the boxes a streamed view packs settled blocks
 * into are looked through). */
static void
describe_blocks (GtkWidget *view,
                 GString   *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child))
        g_string_append_printf (out, "[%s]", gtk_label_get_label (GTK_LABEL (child)));
      else if (GTK_IS_BOX (child))
        describe_blocks (child, out);
      else
        g_string_append_printf (out, "[%s]", G_OBJECT_TYPE_NAME (child));
    }
}

static char *
describe_view (GtkWidget *view)
{
  GString *out = g_string_new (NULL);

  describe_blocks (view, out);
  return g_string_free (out, FALSE);
}

static void
test_markdown_streaming (void)
{
  static const char *text =
    "# Monthly sales\n\nRevenue grew **24%** in August.\n\n"
    "- July: 475,046\n- August: 588,967\n\n- September: 587,580\n\n"
    "1. first\n2. second\n\n3. third\n\n"
    "```python\nx = 1\n\ny = 2\n```\n\n"
    "| month | revenue |\n|---|--:|\n| July | 475,046 |\n\n"
    "> a quote\n\nThe end, with `code`.\n";
  GtkWidget *streamed = g_object_ref_sink (assay_markdown_view_new ());
  GtkWidget *whole = g_object_ref_sink (assay_markdown_view_new ());
  gsize length = strlen (text);
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;
  GtkWidget *first = NULL;

  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (whole), text);
  expected = describe_view (whole);

  /* Fed in growing prefixes, as the model writes: the view ends up the same, and blocks
   * already shown are kept, not rebuilt. */
  for (gsize n = 1; n <= length; n += 7)
    {
      g_autofree char *prefix = g_strndup (text, n);

      assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (streamed), prefix);
      if (n > 40 && first == NULL)
        first = gtk_widget_get_first_child (streamed);
      if (first != NULL)
        g_assert_true (gtk_widget_get_first_child (streamed) == first);
    }
  assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (streamed), text);
  got = describe_view (streamed);
  g_assert_cmpstr (got, ==, expected);
  /* Blocks after the settled ones are kept too when they did not change: a list item or a
   * table row that is complete keeps its widget while the next one is written. */
  {
    GtkWidget *view = g_object_ref_sink (assay_markdown_view_new ());
    GtkWidget *item;

    assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (view), "Intro.\n\n- one\n- tw");
    item = gui_find (view, GTK_TYPE_LABEL, "• one");
    g_assert_nonnull (item);
    assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (view), "Intro.\n\n- one\n- two\n- thr");
    g_assert_true (gui_find (view, GTK_TYPE_LABEL, "• one") == item);
    g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "• two"));
    g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "• thr"));
    g_assert_null (gui_find (view, GTK_TYPE_LABEL, "• tw\n"));
    g_assert_cmpuint (gui_count (view, GTK_TYPE_LABEL), ==, 4);
    /* A change earlier in the unsettled text replaces what follows it. */
    assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (view), "Intro.\n\n- one\n- two\n- three\n\n| a |\n|---|\n| 1 |\n");
    g_assert_true (gui_find (view, GTK_TYPE_LABEL, "• one") == item);
    g_assert_cmpuint (gui_count (view, GTK_TYPE_GRID), ==, 1);
    g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "1"));
    g_assert_finalize_object (view);
  }

  /* A long answer: settled blocks are packed into boxes, and the blocks are still the same. */
  {
    g_autoptr(GString) long_text = g_string_new (NULL);
    GtkWidget *a = g_object_ref_sink (assay_markdown_view_new ());
    GtkWidget *b = g_object_ref_sink (assay_markdown_view_new ());
    g_autofree char *want = NULL;
    g_autofree char *have = NULL;
    guint direct = 0;

    for (guint i = 0; i < 100; i++)
      g_string_append_printf (long_text, "Paragraph %u has **bold** text.\n\n", i);
    assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (a), long_text->str);
    want = describe_view (a);
    for (gsize n = 1; n <= long_text->len; n += 11)
      {
        g_autofree char *prefix = g_strndup (long_text->str, n);

        assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (b), prefix);
      }
    assay_markdown_view_finish_streaming (ASSAY_MARKDOWN_VIEW (b), long_text->str);
    have = describe_view (b);
    g_assert_cmpstr (have, ==, want);
    for (GtkWidget *child = gtk_widget_get_first_child (b); child != NULL; child = gtk_widget_get_next_sibling (child))
      direct++;
    g_assert_cmpuint (direct, <, 40);
    g_assert_cmpuint (gui_count (b, GTK_TYPE_BOX), >=, 3);
    g_assert_finalize_object (a);
    g_assert_finalize_object (b);
  }

  /* Finished: the same, and nothing is rebuilt. */
  assay_markdown_view_finish_streaming (ASSAY_MARKDOWN_VIEW (streamed), text);
  g_assert_true (gtk_widget_get_first_child (streamed) == first);
  g_free (got);
  got = describe_view (streamed);
  g_assert_cmpstr (got, ==, expected);

  /* A link reference defined after its use can only be resolved by the whole text. */
  {
    static const char *with_ref = "See [the docs][docs] first.\n\nThen more.\n\n[docs]: https://example.org/docs\n";
    GtkWidget *view = g_object_ref_sink (assay_markdown_view_new ());

    for (gsize n = 1; n <= strlen (with_ref); n += 5)
      {
        g_autofree char *prefix = g_strndup (with_ref, n);

        assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (view), prefix);
      }
    assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (view), with_ref);
    g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "[the docs][docs]"));
    assay_markdown_view_finish_streaming (ASSAY_MARKDOWN_VIEW (view), with_ref);
    g_assert_null (gui_find (view, GTK_TYPE_LABEL, "[the docs][docs]"));
    g_assert_nonnull (gui_find (view, GTK_TYPE_LABEL, "See the docs first."));
    g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (gui_find (view, GTK_TYPE_LABEL, "See the docs"))),
                              "https://example.org/docs"));
    g_assert_finalize_object (view);
  }

  /* A retry voids the text: what is shown starts again. */
  assay_markdown_view_set_markdown_streaming (ASSAY_MARKDOWN_VIEW (streamed), "Other text");
  g_assert_nonnull (gui_find (streamed, GTK_TYPE_LABEL, "Other text"));
  g_assert_null (gui_find (streamed, GTK_TYPE_LABEL, "Monthly sales"));
  g_assert_finalize_object (streamed);
  g_assert_finalize_object (whole);
}

/* ---- traced numbers are underlined on every renderer ------------------------------------------ */

/* Of columns X0..X1 of PIXELS (BGRA premultiplied, as GdkTexture downloads, seen over
 * white), how many have a pixel darker than DARK in rows Y0..Y1. */
static guint
dark_columns (const guchar *pixels,
              gsize         stride,
              int           x0,
              int           x1,
              int           y0,
              int           y1,
              int           dark)
{
  guint n = 0;

  for (int x = x0; x <= x1; x++)
    for (int y = y0; y <= y1; y++)
      {
        const guchar *p = pixels + y * stride + x * 4;

        /* Over white: the view draws no background of its own. */
        if ((p[0] + p[1] + p[2]) / 3 + (255 - p[3]) < dark)
          {
            n++;
            break;
          }
      }
  return n;
}

/* Each traced number of an answer carries its underline, drawn: on GL (llvmpipe) the
 * theme's thin underline fell between pixel rows and vanished on most numbers. Read from
 * the pixels the window's own renderer draws, under each number's glyphs; and nothing under
 * a word that is not a number (the check can see an underline's absence). */
static void
test_traced_underlines (void)
{
  static const char *answer = "Revenue was 12480 in July and 9310 in August, from 3872 customers; "
                               "class B makes up a further slice of the products and of the revenue, "
                               "and class C the rest: 151 products, 21 regions, 46 stores.";
  static const char *numbers[] = { "12480", "9310", "3872", "151", "21", "46" };
  AssayProvenance *provenance = assay_provenance_new ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = assay_markdown_view_new ();
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  GtkSnapshot *snapshot;
  GtkWidget *label;
  PangoLayout *layout;
  int width, height, lx, ly;
  graphene_point_t origin;
  AdwStyleManager *style = adw_style_manager_get_default ();

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      AssayTracedNumber *number = g_new0 (AssayTracedNumber, 1);
      const char *at = strstr (answer, numbers[i]);

      number->start = at - answer;
      number->end = number->start + strlen (numbers[i]);
      number->text = g_strdup (numbers[i]);
      number->value = g_ascii_strtod (numbers[i], NULL);
      number->found = TRUE;
      number->cell_id = g_strdup ("c1");
      number->view = g_strdup ("stream");
      number->line = i + 1;
      number->line_text = g_strdup_printf ("total: %s", numbers[i]);
      number->number_in_line = 0;
      g_ptr_array_add (provenance->numbers, number);
    }
  assay_markdown_view_set_provenance (ASSAY_MARKDOWN_VIEW (view), provenance);
  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (view), answer);
  assay_provenance_free (provenance);
  gtk_widget_set_margin_start (view, 16);
  gtk_widget_set_margin_top (view, 16);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_set_default_size (GTK_WINDOW (window), 720, 120);
  gtk_window_present (GTK_WINDOW (window));
  gui_spin (500);

  width = gtk_widget_get_width (view);
  height = gtk_widget_get_height (view);
  paintable = gtk_widget_paintable_new (view);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  pixels = g_malloc (width * height * 4);
  gdk_texture_download (texture, pixels, width * 4);
  g_test_message ("renderer %s", gui_renderer_name (window));

  label = gui_find (view, GTK_TYPE_LABEL, "Revenue was");
  g_assert_nonnull (label);
  layout = gtk_label_get_layout (GTK_LABEL (label));
  gtk_label_get_layout_offsets (GTK_LABEL (label), &lx, &ly);
  g_assert_true (gtk_widget_compute_point (label, view, &GRAPHENE_POINT_INIT (0, 0), &origin));
  for (guint i = 0; i <= G_N_ELEMENTS (numbers); i++)
    {
      const char *word = i < G_N_ELEMENTS (numbers) ? numbers[i] : "Revenue";
      int start = strstr (gtk_label_get_text (GTK_LABEL (label)), word) - gtk_label_get_text (GTK_LABEL (label));
      PangoRectangle from, to;
      int baseline, x0, x1, y0, y1;
      PangoLayoutIter *iter = pango_layout_get_iter (layout);
      guint dark, columns;

      {
        int line_no = 0, x_pos = 0;

        /* The baseline of the line the word is on (the paragraph wraps). */
        pango_layout_index_to_line_x (layout, start, FALSE, &line_no, &x_pos);
        for (int l = 0; l < line_no; l++)
          pango_layout_iter_next_line (iter);
      }
      baseline = pango_layout_iter_get_baseline (iter) / PANGO_SCALE;
      pango_layout_iter_free (iter);
      pango_layout_index_to_pos (layout, start, &from);
      pango_layout_index_to_pos (layout, start + strlen (word) - 1, &to);
      x0 = origin.x + lx + from.x / PANGO_SCALE + 2;
      x1 = origin.x + lx + (to.x + to.width) / PANGO_SCALE - 2;
      /* Below the digits' baseline, above the next line: where an underline is. */
      y0 = origin.y + ly + baseline + 1;
      y1 = MIN (origin.y + ly + (from.y + from.height) / PANGO_SCALE + 1, height - 1);
      g_assert_cmpint (x1, >, x0);
      g_assert_cmpint (x1, <, width);
      columns = x1 - x0 + 1;
      dark = dark_columns (pixels, width * 4, x0, x1, y0, y1, 200);
      g_test_message ("%s: %u of %u columns marked below the baseline (rows %d..%d, x %d..%d)", word, dark, columns, y0, y1, x0, x1);
      if (i < G_N_ELEMENTS (numbers))
        g_assert_cmpuint (dark, >=, columns * 9 / 10);
      else
        g_assert_cmpuint (dark, ==, 0);
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- an answer's numbers made links where it stands ------------------------------------------ */

static gboolean
markdown_settled (gpointer view)
{
  return assay_markdown_view_is_settled (view);
}

/* The labels of VIEW in order, as "markup" strings joined by newlines. */
static char *
labels_markup (GtkWidget *view)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  GString *text = g_string_new (NULL);

  gui_collect (view, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    g_string_append_printf (text, "%s\n", gtk_label_get_label (g_ptr_array_index (labels, i)));
  return g_string_free (text, FALSE);
}

static void
count_activation_cb (guint *activated)
{
  (*activated)++;
}

static guint
count_substrings (const char *text,
                  const char *needle)
{
  guint n = 0;

  for (const char *at = strstr (text, needle); at != NULL; at = strstr (at + 1, needle))
    n++;
  return n;
}

/* A 60-paragraph answer, each paragraph with a number the provenance marks as traced. */
static AssayProvenance *
long_answer (char **markdown)
{
  AssayProvenance *provenance = assay_provenance_new ();
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *value = g_strdup_printf ("%u", 1000 + 7 * i);
      AssayTracedNumber *number = g_new0 (AssayTracedNumber, 1);

      g_string_append_printf (text, "Paragraph %u of the report: region %u sold ", i, i);
      number->start = text->len;
      g_string_append (text, value);
      number->end = text->len;
      g_string_append (text, " units this quarter, about the same as the quarter before it and "
                             "a little more than the plan expected for the region.\n\n");
      number->text = g_strdup (value);
      number->value = g_ascii_strtod (value, NULL);
      number->found = TRUE;
      number->cell_id = g_strdup ("c1");
      number->view = g_strdup ("stream");
      number->line = i + 1;
      number->line_text = g_strdup_printf ("region %u: %s", i, value);
      g_ptr_array_add (provenance->numbers, number);
    }
  *markdown = g_string_free (text, FALSE);
  return provenance;
}

/* A long answer's numbers become links a frame's worth at a time, those in view first (the
 * conversation is scrolled to its end): at once they stalled the window for a fifth of a
 * second. Once settled, the view shows exactly what the same answer rendered from nothing
 * does; the provenance set again halfway through ends the same. */
static void
test_provenance_in_place (void)
{
  g_autofree char *markdown = NULL;
  AssayProvenance *provenance = long_answer (&markdown);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *view = assay_markdown_view_new ();
  GtkWidget *fresh = assay_markdown_view_new ();
  GtkAdjustment *adjustment;
  GtkWidget *first, *last;
  g_autofree char *shown = NULL;
  g_autofree char *expected = NULL;

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), 700, 400);
  gtk_window_present (GTK_WINDOW (window));
  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (view), markdown);
  gui_spin (300);
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  gui_spin (200);

  assay_markdown_view_set_provenance (ASSAY_MARKDOWN_VIEW (view), provenance);
  g_assert_false (assay_markdown_view_is_settled (ASSAY_MARKDOWN_VIEW (view)));
  first = gui_find (view, GTK_TYPE_LABEL, "Paragraph 0 ");
  last = gui_find (view, GTK_TYPE_LABEL, "Paragraph 59 ");
  g_assert_nonnull (first);
  g_assert_nonnull (last);
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (last)), "assay-number:"));
  g_assert_null (strstr (gtk_label_get_label (GTK_LABEL (first)), "assay-number:"));
  shown = labels_markup (view);
  g_assert_cmpuint (count_substrings (shown, "assay-number:"), <, 30);
  g_clear_pointer (&shown, g_free);
  gui_wait (markdown_settled, view, 10, "the answer's numbers made links");

  /* What the same answer and provenance show rendered from nothing. */
  assay_markdown_view_set_provenance (ASSAY_MARKDOWN_VIEW (fresh), provenance);
  assay_markdown_view_set_markdown (ASSAY_MARKDOWN_VIEW (fresh), markdown);
  g_object_ref_sink (fresh);
  expected = labels_markup (fresh);
  shown = labels_markup (view);
  g_assert_cmpstr (shown, ==, expected);
  g_assert_cmpuint (count_substrings (shown, "assay-number:"), ==, 60);
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (gui_find (view, GTK_TYPE_LABEL, "Paragraph 0 "))),
                            "assay-number:"));

  /* Without provenance, then with it again, interrupted: the end is the same. */
  assay_markdown_view_set_provenance (ASSAY_MARKDOWN_VIEW (view), NULL);
  gui_wait (markdown_settled, view, 10, "the links taken away");
  assay_markdown_view_set_provenance (ASSAY_MARKDOWN_VIEW (view), provenance);
  gui_spin (40);
  assay_markdown_view_set_provenance (ASSAY_MARKDOWN_VIEW (view), provenance);
  gui_wait (markdown_settled, view, 10, "the links made again");
  g_clear_pointer (&shown, g_free);
  shown = labels_markup (view);
  g_assert_cmpstr (shown, ==, expected);
  gui_assert_laid_out (window);

  /* A number of a block not yet swapped leads nowhere: its link is the old provenance's. */
  {
    AssayProvenance *untraced = assay_provenance_copy (provenance);
    guint activated = 0;
    gboolean handled = FALSE;

    for (guint i = 0; i < untraced->numbers->len; i++)
      ((AssayTracedNumber *) g_ptr_array_index (untraced->numbers, i))->found = FALSE;
    g_signal_connect_swapped (view, "number-activated", G_CALLBACK (count_activation_cb), &activated);
    assay_markdown_view_set_provenance (ASSAY_MARKDOWN_VIEW (view), untraced);
    first = gui_find (view, GTK_TYPE_LABEL, "Paragraph 0 ");
    g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (first)), "From cell c1"));
    g_signal_emit_by_name (first, "activate-link", "assay-number:0", &handled);
    g_assert_true (handled);
    g_assert_cmpuint (activated, ==, 0);
    gui_wait (markdown_settled, view, 10, "the numbers made untraced");
    first = gui_find (view, GTK_TYPE_LABEL, "Paragraph 0 ");
    g_assert_null (strstr (gtk_label_get_label (GTK_LABEL (first)), "From cell c1"));
    g_signal_emit_by_name (first, "activate-link", "assay-number:0", &handled);
    g_assert_cmpuint (activated, ==, 1);
    assay_provenance_free (untraced);
  }

  assay_provenance_free (provenance);
  g_object_unref (fresh);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  gui_test_init (&argc, &argv);
  g_test_add_func ("/assay/app/markdown", test_markdown);
  g_test_add_func ("/assay/app/markdown-streaming", test_markdown_streaming);
  g_test_add_func ("/assay/app/chat/traced-underlines", test_traced_underlines);
  g_test_add_func ("/assay/app/chat/provenance-in-place", test_provenance_in_place);
  return g_test_run ();
}
