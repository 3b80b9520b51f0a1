/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The data preview widget (src/app), in a real display server (Xvfb). argv[1] is the
 * 1,000,000-row file of tests/data/make-rows.py. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "assay-column-header-strip.h"
#include "assay-data-preview.h"
#include "preview-rows.h"

static const char *rows_path;
static char *tmpdir;

static char *
write_file (const char *name,
            const char *contents,
            gssize      len)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  return path;
}

static void
iterate (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
}

typedef gboolean (*Condition) (gpointer data);

static void
wait_for (Condition condition,
          gpointer  data,
          guint     timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!condition (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
}

static gboolean
page_not_loading (gpointer data)
{
  return !g_str_equal (assay_dataset_page_get_state (data), "loading");
}

static gboolean
page_has_dataset (gpointer data)
{
  return assay_dataset_page_get_dataset (data) != NULL;
}

static gboolean
page_model_complete (gpointer data)
{
  AssayRowModel *model = assay_dataset_page_get_row_model (data);
  return model != NULL && assay_row_model_is_complete (model);
}

static GtkWidget *
new_window (GtkWidget **preview)
{
  GtkWidget *window = gtk_window_new ();

  *preview = assay_data_preview_new ();
  gtk_window_set_child (GTK_WINDOW (window), *preview);
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 700);
  gtk_window_present (GTK_WINDOW (window));
  /* The first frame loads fonts and themes; the window is up before files come. */
  while (!gtk_widget_get_mapped (*preview))
    g_main_context_iteration (NULL, TRUE);
  iterate (100);
  return window;
}

static void
destroy_window (GtkWidget *window,
                GtkWidget *preview)
{
  g_object_ref (preview);
  gtk_window_destroy (GTK_WINDOW (window));
  iterate (20);
  g_assert_finalize_object (preview);
}

/* The text a label or a table cell (a GtkInscription) shows; NULL for other widgets. */
static const char *
shown_text (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget))
    return gtk_label_get_label (GTK_LABEL (widget));
  if (GTK_IS_INSCRIPTION (widget))
    {
      const char *text = gtk_inscription_get_text (GTK_INSCRIPTION (widget));
      return text != NULL ? text : "";
    }
  return NULL;
}

/* The data column a table cell shows (0-based), or -1 for the row number and other widgets. */
static int
cell_column (GtkWidget *widget)
{
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), "column")) - 1;
}

/* Every mapped label and table cell under WIDGET, in tree order, appended to OUT with
 * newlines. */
static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  if (shown_text (widget) != NULL)
    g_string_append_printf (out, "%s\n", shown_text (widget));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_labels (child, out);
}

/* The row numbers of the row-number cells visible in the scrolled window. */
static void
visible_row_numbers (GtkWidget *widget,
                     GtkWidget *viewport,
                     guint64   *min,
                     guint64   *max)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  if (shown_text (widget) != NULL && gtk_widget_has_css_class (widget, "row-number"))
    {
      graphene_rect_t bounds;

      if (gtk_widget_compute_bounds (widget, viewport, &bounds) &&
          bounds.origin.y + bounds.size.height > 0 &&
          bounds.origin.y < gtk_widget_get_height (viewport))
        {
          guint64 n = g_ascii_strtoull (shown_text (widget), NULL, 10);
          *min = MIN (*min, n);
          *max = MAX (*max, n);
        }
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    visible_row_numbers (child, viewport, min, max);
}

static void
test_million_rows (void)
{
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  gint64 t0 = g_get_monotonic_time ();
  AssayDatasetPage *page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), rows_path);
  GtkColumnView *view;
  GtkScrollable *scrollable;
  GtkAdjustment *vadjustment;
  guint64 min = G_MAXUINT64, max = 0;
  guint alive_max = 0;
  gboolean saw_partial = FALSE;
  gboolean items_while_indexing;

  g_assert_nonnull (page);
  g_assert_true (assay_data_preview_get_selected_page (ASSAY_DATA_PREVIEW (preview)) == page);
  wait_for (page_not_loading, page, 10000);
  g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "table");
  g_test_message ("table after %.0f ms, %u rows", (g_get_monotonic_time () - t0) / 1000.0,
                  g_list_model_get_n_items (G_LIST_MODEL (assay_dataset_page_get_row_model (page))));

  /* The first rows show before the index is complete. */
  view = assay_dataset_page_get_column_view (page);
  {
    gint64 longest = 0;
    while (g_list_model_get_n_items (G_LIST_MODEL (assay_dataset_page_get_row_model (page))) == 0)
      {
        gint64 before = g_get_monotonic_time ();
        g_main_context_iteration (NULL, TRUE);
        longest = MAX (longest, g_get_monotonic_time () - before);
      }
    g_test_message ("longest main loop iteration before the first items: %.0f ms", longest / 1000.0);
  }
  items_while_indexing = !assay_row_model_is_complete (assay_dataset_page_get_row_model (page));
  g_test_message ("first items after %.0f ms, %u rows", (g_get_monotonic_time () - t0) / 1000.0,
                  g_list_model_get_n_items (G_LIST_MODEL (assay_dataset_page_get_row_model (page))));
  while (min == G_MAXUINT64)
    {
      g_main_context_iteration (NULL, TRUE);
      visible_row_numbers (GTK_WIDGET (view), GTK_WIDGET (view), &min, &max);
      if (min != G_MAXUINT64 && !assay_row_model_is_complete (assay_dataset_page_get_row_model (page)))
        saw_partial = TRUE;
    }
  g_test_message ("first rows visible after %.0f ms, %s; indexed %u rows",
                  (g_get_monotonic_time () - t0) / 1000.0,
                  saw_partial ? "while indexing" : "after indexing",
                  g_list_model_get_n_items (G_LIST_MODEL (assay_dataset_page_get_row_model (page))));
  g_assert_cmpuint (min, ==, 1);
  /* Whether the model had rows before the index was complete depends on the machine's load
   * (a starved main loop may first run after the worker has finished): reported here, and
   * asserted deterministically on the index itself (test-dataset, /assay/data/index/
   * incremental reads rows while the build runs); the benchmark measures the time. */
  g_test_message ("items while indexing: %s", items_while_indexing ? "yes" : "no");
  g_assert_cmpuint (assay_dataset_page_get_n_columns (page), ==, PREVIEW_ROWS_COLUMNS);

  wait_for (page_model_complete, page, 60000);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (assay_dataset_page_get_row_model (page))), ==, 1000000);
  g_assert_cmpuint (assay_row_model_get_n_batches (assay_dataset_page_get_row_model (page)), <, 200);

  /* Scroll through the whole file in steps, then to the end. */
  scrollable = GTK_SCROLLABLE (view);
  vadjustment = gtk_scrollable_get_vadjustment (scrollable);
  for (guint step = 1; step <= 50; step++)
    {
      double upper = gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment);
      gtk_adjustment_set_value (vadjustment, upper * step / 50);
      iterate (20);
      alive_max = MAX (alive_max, assay_row_get_n_alive ());
    }
  gtk_adjustment_set_value (vadjustment, gtk_adjustment_get_upper (vadjustment));
  iterate (200);
  min = G_MAXUINT64;
  max = 0;
  visible_row_numbers (GTK_WIDGET (view), GTK_WIDGET (view), &min, &max);
  g_test_message ("visible rows at the end: %" G_GUINT64_FORMAT "…%" G_GUINT64_FORMAT
                  ", at most %u rows alive while scrolling", min, max, alive_max);
  g_assert_cmpuint (max, ==, 1000000);
  g_assert_cmpuint (min, >, 999000);
  g_assert_cmpuint (alive_max, <, 2000);

  /* The headers: type and null share once profiled (note is empty every tenth row). */
  wait_for (page_has_dataset, page, 60000);
  g_assert_cmpstr (assay_dataset_page_get_header_text (page, 0), ==, "integer · 0.0% null");
  g_assert_cmpstr (assay_dataset_page_get_header_text (page, 2), ==, "float · 0.0% null");
  g_assert_cmpstr (assay_dataset_page_get_header_text (page, 4), ==, "string · 10.0% null");
  iterate (100);
  /* Numbers are right-aligned once the profile says they are numbers. */
  {
    GtkWidget *w = GTK_WIDGET (view);
    guint numeric = 0, text = 0;
    GPtrArray *stack = g_ptr_array_new ();

    g_ptr_array_add (stack, w);
    while (stack->len > 0)
      {
        w = g_ptr_array_steal_index (stack, stack->len - 1);
        if (GTK_IS_INSCRIPTION (w) && cell_column (w) >= 0 && gtk_widget_get_mapped (w))
          {
            int c = cell_column (w);
            if (c == 0 || c == 2)
              numeric += gtk_inscription_get_xalign (GTK_INSCRIPTION (w)) == 1.0f;
            else
              text += gtk_inscription_get_xalign (GTK_INSCRIPTION (w)) == 0.0f;
          }
        for (GtkWidget *child = gtk_widget_get_first_child (w); child != NULL; child = gtk_widget_get_next_sibling (child))
          g_ptr_array_add (stack, child);
      }
    g_ptr_array_unref (stack);
    g_assert_cmpuint (numeric, >, 10);
    g_assert_cmpuint (text, >, 10);
  }
  {
    AssayColumnHeaderStrip *strip = ASSAY_COLUMN_HEADER_STRIP (gtk_widget_get_parent (assay_dataset_page_get_header (page, 0)));
    graphene_rect_t first, second;

    g_assert_true (assay_column_header_strip_get_slot (strip, 0, &first));
    g_assert_true (assay_column_header_strip_get_slot (strip, 1, &second));
    g_test_message ("header slots: %.0f+%.0f, %.0f+%.0f", first.origin.x, first.size.width,
                    second.origin.x, second.size.width);
    g_assert_cmpfloat (first.size.width, >, 50);
    g_assert_cmpfloat (second.origin.x, >=, first.origin.x + first.size.width - 1);
  }

  destroy_window (window, preview);
}

/* Checks every row the list shows, whole or in part: its cells must show what make-rows.py
 * wrote in that row. Returns the first and last row numbers seen and how many rows and cells
 * were checked. */
typedef struct
{
  guint64 min, max;
  guint   n_rows, n_cells;
} CheckedRows;

static void
collect_cells (GtkWidget  *widget,
               GtkWidget **row_number,
               GPtrArray  *cells)
{
  if (GTK_IS_INSCRIPTION (widget) || GTK_IS_LABEL (widget))
    {
      if (gtk_widget_has_css_class (widget, "row-number"))
        *row_number = widget;
      else if (cell_column (widget) >= 0)
        g_ptr_array_add (cells, widget);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_cells (child, row_number, cells);
}

static void
check_shown_rows (GtkColumnView *view,
                  CheckedRows   *checked)
{
  GtkWidget *list = NULL;

  memset (checked, 0, sizeof *checked);
  checked->min = G_MAXUINT64;
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view)); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      list = child;
  g_assert_nonnull (list);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      g_autoptr(GPtrArray) cells = g_ptr_array_new ();
      GtkWidget *row_number = NULL;
      graphene_rect_t bounds;
      guint64 n;

      if (!gtk_widget_get_mapped (row) || !gtk_widget_compute_bounds (row, list, &bounds) ||
          bounds.origin.y + bounds.size.height <= 0 || bounds.origin.y >= gtk_widget_get_height (list))
        continue;
      collect_cells (row, &row_number, cells);
      g_assert_nonnull (row_number);
      n = g_ascii_strtoull (shown_text (row_number), NULL, 10);
      g_assert_cmpuint (n, >=, 1);
      for (guint i = 0; i < cells->len; i++)
        {
          GtkWidget *cell = g_ptr_array_index (cells, i);
          g_autofree char *expected = preview_rows_expected (n - 1, cell_column (cell));

          g_assert_cmpstr (shown_text (cell), ==, expected);
        }
      checked->min = MIN (checked->min, n);
      checked->max = MAX (checked->max, n);
      checked->n_rows++;
      checked->n_cells += cells->len;
    }
}

static void
test_jump_to_end (void)
{
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  AssayDatasetPage *page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), rows_path);
  GtkColumnView *view;
  GtkAdjustment *vadjustment;
  CheckedRows checked;

  wait_for (page_not_loading, page, 10000);
  wait_for (page_model_complete, page, 60000);
  iterate (100);
  view = assay_dataset_page_get_column_view (page);
  vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  check_shown_rows (view, &checked);
  g_assert_cmpuint (checked.min, ==, 1);

  /* One jump from the top to the end, as Ctrl+End or dragging the scrollbar down does. */
  gtk_adjustment_set_value (vadjustment, gtk_adjustment_get_upper (vadjustment));
  iterate (100);
  check_shown_rows (view, &checked);
  g_test_message ("after the jump to the end: rows %" G_GUINT64_FORMAT "…%" G_GUINT64_FORMAT ", %u rows, %u cells checked",
                  checked.min, checked.max, checked.n_rows, checked.n_cells);
  g_assert_cmpuint (checked.max, ==, 1000000);
  g_assert_cmpuint (checked.n_rows, >, 10);
  g_assert_cmpuint (checked.max - checked.min + 1, ==, checked.n_rows);
  g_assert_cmpuint (checked.n_cells, ==, checked.n_rows * PREVIEW_ROWS_COLUMNS);

  /* Back to the middle, and one row down from there. */
  gtk_adjustment_set_value (vadjustment, (gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment)) / 2);
  iterate (100);
  check_shown_rows (view, &checked);
  g_assert_cmpuint (checked.min, <=, 500001);
  g_assert_cmpuint (checked.max, >=, 500001);
  gtk_adjustment_set_value (vadjustment, gtk_adjustment_get_value (vadjustment) +
                            gtk_adjustment_get_upper (vadjustment) / 1000000);
  iterate (100);
  check_shown_rows (view, &checked);
  g_assert_cmpuint (checked.n_cells, ==, checked.n_rows * PREVIEW_ROWS_COLUMNS);
  destroy_window (window, preview);
}

/* GTK 4.8 draws a table narrower than its view as if overscrolled to the right; the page hides
 * the left and right glows then, and only then. */
static void
test_narrow_table (void)
{
  g_autoptr(GString) wide = g_string_new (NULL);
  g_autofree char *narrow_path = write_file ("narrow.csv", "a,b\n1,2\n3,4\n", -1);
  g_autofree char *wide_path = NULL;
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  AssayDatasetPage *narrow, *wide_page;

  /* 20 columns of 150 px: wider than the 1200 px window. */
  for (guint r = 0; r < 3; r++)
    for (guint c = 0; c < 20; c++)
      g_string_append_printf (wide, "%s%s%u%s", c > 0 ? "," : "", r == 0 ? "column" : "", c, c == 19 ? "\n" : "");
  wide_path = write_file ("wide.csv", wide->str, -1);

  narrow = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), narrow_path);
  wait_for (page_model_complete, narrow, 10000);
  iterate (100);
  g_assert_true (gtk_widget_has_css_class (gtk_widget_get_parent (GTK_WIDGET (assay_dataset_page_get_column_view (narrow))),
                                           "narrow-table"));
  wide_page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), wide_path);
  wait_for (page_model_complete, wide_page, 10000);
  iterate (100);
  g_assert_cmpuint (assay_dataset_page_get_n_columns (wide_page), ==, 20);
  g_assert_false (gtk_widget_has_css_class (gtk_widget_get_parent (GTK_WIDGET (assay_dataset_page_get_column_view (wide_page))),
                                            "narrow-table"));
  destroy_window (window, preview);
}

static void
count_frame (GdkFrameClock *clock,
             guint         *frames)
{
  (*frames)++;
}

/* The header strip follows its titles while they move (here: the table scrolled sideways) and
 * stops reading them once they stay put, so an idle preview paints no frames. */
static void
test_header_strip_follows (void)
{
  g_autoptr(GString) wide = g_string_new (NULL);
  g_autofree char *path = NULL;
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  AssayDatasetPage *page;
  AssayColumnHeaderStrip *strip;
  GtkAdjustment *hadjustment;
  graphene_rect_t before, after;
  guint frames = 0;

  for (guint r = 0; r < 30; r++)
    for (guint c = 0; c < 20; c++)
      g_string_append_printf (wide, "%s%s%u%s", c > 0 ? "," : "", r == 0 ? "column" : "", r * c, c == 19 ? "\n" : "");
  path = write_file ("wide-strip.csv", wide->str, -1);
  page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), path);
  wait_for (page_has_dataset, page, 10000);
  wait_for (page_model_complete, page, 10000);
  iterate (300);
  strip = ASSAY_COLUMN_HEADER_STRIP (gtk_widget_get_parent (assay_dataset_page_get_header (page, 0)));
  g_assert_false (assay_column_header_strip_is_following (strip));
  g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint", G_CALLBACK (count_frame), &frames);
  iterate (300);
  g_assert_cmpuint (frames, ==, 0);

  g_assert_true (assay_column_header_strip_get_slot (strip, 3, &before));
  hadjustment = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (assay_dataset_page_get_column_view (page)));
  gtk_adjustment_set_value (hadjustment, 300);
  g_assert_true (assay_column_header_strip_is_following (strip));
  iterate (300);
  g_assert_true (assay_column_header_strip_get_slot (strip, 3, &after));
  g_test_message ("column 3's header: x %.0f, then %.0f after scrolling 300 px", before.origin.x, after.origin.x);
  g_assert_cmpfloat (fabs (after.origin.x - (before.origin.x - 300)), <, 1);
  g_assert_false (assay_column_header_strip_is_following (strip));
  g_signal_handlers_disconnect_by_data (gtk_widget_get_frame_clock (window), &frames);
  destroy_window (window, preview);
}

static void
test_side_panel (void)
{
  g_autofree char *path = write_file ("nulls.csv",
                                      "city,amount,code\n"
                                      "Oslo,10,a\n"
                                      "Rome,,b\n"
                                      "Oslo,30,\n"
                                      "Kyiv,,a\n", -1);
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  AssayDatasetPage *page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), path);
  AssayColumnProfilePanel *panel = assay_data_preview_get_panel (ASSAY_DATA_PREVIEW (preview));
  g_autoptr(GString) text = g_string_new (NULL);

  wait_for (page_has_dataset, page, 10000);
  iterate (50);
  g_assert_cmpstr (assay_dataset_page_get_header_text (page, 1), ==, "integer · 50.0% null");
  g_assert_cmpstr (assay_dataset_page_get_header_text (page, 2), ==, "string · 25.0% null");

  assay_dataset_page_select_column (page, 1);
  iterate (50);
  collect_labels (GTK_WIDGET (panel), text);
  g_assert_nonnull (strstr (text->str, "amount\n"));
  g_assert_nonnull (strstr (text->str, "integer\n"));
  g_assert_nonnull (strstr (text->str, "2 (50.0%)\n"));
  g_assert_nonnull (strstr (text->str, "10\n"));   /* min */
  g_assert_nonnull (strstr (text->str, "30\n"));   /* max */
  g_assert_nonnull (strstr (text->str, "20\n"));   /* mean */
  g_assert_nonnull (strstr (text->str, "utf-8\n"));
  g_assert_nonnull (strstr (text->str, "comma ( , )\n"));
  g_assert_nonnull (strstr (text->str, "LF (Unix)\n"));

  /* A text column: the top values with their counts. */
  assay_dataset_page_select_column (page, 0);
  iterate (50);
  g_string_truncate (text, 0);
  collect_labels (GTK_WIDGET (panel), text);
  g_assert_nonnull (strstr (text->str, "Oslo\n2\n"));

  /* Clicking a header selects its column. */
  g_assert_cmpint (assay_dataset_page_get_selected_column (page), ==, 0);
  destroy_window (window, preview);
}

static void
test_correct_delimiter (void)
{
  g_autofree char *path = write_file ("semicolons.csv",
                                      "city;amount;share\n"
                                      "Oslo;1,5;0,25\n"
                                      "Rome;2,25;0,5\n"
                                      "Kyiv;3,75;0,125\n", -1);
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  AssayDatasetPage *page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), path);
  AssayColumnProfilePanel *panel = assay_data_preview_get_panel (ASSAY_DATA_PREVIEW (preview));
  AssayCsvDialect override;

  wait_for (page_has_dataset, page, 10000);

  /* Mis-read it as commas, as a wrong guess would, through the panel's controls. */
  assay_csv_dialect_init_override (&override);
  override.delimiter = ',';
  override.decimal = '.';
  assay_column_profile_panel_set_correction (panel, &override);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "panel.apply", NULL));
  g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "loading");
  wait_for (page_has_dataset, page, 10000);
  g_assert_cmpint (assay_dataset_page_get_dialect (page)->delimiter, ==, ',');
  g_assert_cmpuint (assay_dataset_page_get_n_columns (page), !=, 3);

  /* Correct it: semicolons and decimal commas; the file is read again with 3 columns. */
  override.delimiter = ';';
  override.decimal = ',';
  assay_column_profile_panel_set_correction (panel, &override);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "panel.apply", NULL));
  wait_for (page_has_dataset, page, 10000);
  wait_for (page_not_loading, page, 10000);
  g_assert_cmpuint (assay_dataset_page_get_n_columns (page), ==, 3);
  g_assert_cmpint (assay_dataset_page_get_dialect (page)->delimiter, ==, ';');
  g_assert_cmpint (assay_dataset_page_get_dialect (page)->decimal, ==, ',');
  g_assert_cmpint (assay_dataset_page_get_override (page)->delimiter, ==, ';');
  iterate (50);
  g_assert_cmpstr (assay_dataset_page_get_header_text (page, 1), ==, "float · 0.0% null");

  /* Back to automatic. */
  assay_column_profile_panel_set_correction (panel, NULL);
  assay_column_profile_panel_apply (panel);
  wait_for (page_has_dataset, page, 10000);
  g_assert_null (assay_dataset_page_get_override (page));
  g_assert_cmpuint (assay_dataset_page_get_n_columns (page), ==, 3);
  destroy_window (window, preview);
}

static void
test_windows_1251 (void)
{
  /* "Город;Сумма\nМосква;1,5\nКиев;2,5\n…" in Windows-1251, enough text for uchardet. */
  g_autoptr(GString) utf8 = g_string_new ("Город;Сумма;Примечание\r\n");
  g_autofree char *cp1251 = NULL;
  g_autofree char *path = NULL;
  gsize len;
  GtkWidget *preview;
  GtkWidget *window;
  AssayDatasetPage *page;
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < 40; i++)
    g_string_append_printf (utf8, "%s;%u,5;Оплата получена полностью\r\n",
                            i % 2 ? "Москва" : "Санкт-Петербург", i);
  cp1251 = g_convert (utf8->str, utf8->len, "WINDOWS-1251", "UTF-8", NULL, &len, NULL);
  g_assert_nonnull (cp1251);
  path = write_file ("cp1251.csv", cp1251, len);

  window = new_window (&preview);
  page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), path);
  wait_for (page_has_dataset, page, 10000);
  wait_for (page_model_complete, page, 10000);
  iterate (100);
  g_assert_cmpstr (assay_dataset_page_get_dialect (page)->encoding, ==, "windows-1251");
  g_assert_cmpstr (assay_dataset_page_get_column_name (page, 0), ==, "Город");
  collect_labels (GTK_WIDGET (assay_dataset_page_get_column_view (page)), text);
  g_assert_nonnull (strstr (text->str, "Санкт-Петербург\n"));
  g_assert_nonnull (strstr (text->str, "Оплата получена полностью\n"));
  g_string_truncate (text, 0);
  collect_labels (GTK_WIDGET (assay_data_preview_get_panel (ASSAY_DATA_PREVIEW (preview))), text);
  g_assert_nonnull (strstr (text->str, "windows-1251\n"));
  g_assert_nonnull (strstr (text->str, "CRLF (Windows)\n"));
  destroy_window (window, preview);
}

static void
test_broken_and_workbook (void)
{
  static const char binary[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";
  g_autofree char *png = write_file ("image.csv", binary, sizeof binary - 1);
  g_autofree char *empty = write_file ("empty.csv", "", 0);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.csv", NULL);
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  const char *paths[] = { png, empty, missing, NULL };
  AssayDatasetPage *page;

  assay_data_preview_set_files (ASSAY_DATA_PREVIEW (preview), paths);
  g_assert_cmpuint (assay_data_preview_get_n_files (ASSAY_DATA_PREVIEW (preview)), ==, 3);

  page = assay_data_preview_get_page (ASSAY_DATA_PREVIEW (preview), png);
  wait_for (page_not_loading, page, 10000);
  g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "error");
  g_assert_nonnull (strstr (assay_dataset_page_get_error_message (page), "not a text table"));

  page = assay_data_preview_get_page (ASSAY_DATA_PREVIEW (preview), empty);
  wait_for (page_not_loading, page, 10000);
  g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "error");
  g_assert_cmpstr (assay_dataset_page_get_error_message (page), ==, "the file is empty");

  page = assay_data_preview_get_page (ASSAY_DATA_PREVIEW (preview), missing);
  wait_for (page_not_loading, page, 10000);
  g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "error");

  /* The status page says it in words. */
  {
    g_autoptr(GString) text = g_string_new (NULL);
    page = assay_data_preview_get_page (ASSAY_DATA_PREVIEW (preview), empty);
    adw_tab_view_set_selected_page (ADW_TAB_VIEW (gtk_widget_get_ancestor (GTK_WIDGET (page), ADW_TYPE_TAB_VIEW)),
                                    adw_tab_view_get_page (ADW_TAB_VIEW (gtk_widget_get_ancestor (GTK_WIDGET (page), ADW_TYPE_TAB_VIEW)), GTK_WIDGET (page)));
    iterate (50);
    collect_labels (GTK_WIDGET (page), text);
    g_assert_nonnull (strstr (text->str, "Cannot Read This File\n"));
    g_assert_nonnull (strstr (text->str, "The file is empty.\n"));
  }

  assay_data_preview_remove_file (ASSAY_DATA_PREVIEW (preview), missing);
  g_assert_cmpuint (assay_data_preview_get_n_files (ASSAY_DATA_PREVIEW (preview)), ==, 2);
  assay_data_preview_set_files (ASSAY_DATA_PREVIEW (preview), NULL);
  g_assert_cmpuint (assay_data_preview_get_n_files (ASSAY_DATA_PREVIEW (preview)), ==, 0);
  destroy_window (window, preview);
}

/* A minimal workbook: a zip with xl/workbook.xml naming two sheets, stored (no compression). */
static GBytes *
make_workbook (void)
{
  static const char *names[] = { "[Content_Types].xml", "xl/workbook.xml" };
  static const char *bodies[] = {
    "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>",
    "<?xml version=\"1.0\"?><workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
    "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets>"
    "<sheet name=\"Sales\" sheetId=\"1\" r:id=\"rId1\"/><sheet name=\"Costs\" sheetId=\"2\" r:id=\"rId2\"/>"
    "</sheets></workbook>",
  };
  GByteArray *zip = g_byte_array_new ();
  GByteArray *central = g_byte_array_new ();
  guint32 offsets[2];

#define PUT16(a, v) G_STMT_START { guint16 x_ = GUINT16_TO_LE (v); g_byte_array_append (a, (guint8 *) &x_, 2); } G_STMT_END
#define PUT32(a, v) G_STMT_START { guint32 x_ = GUINT32_TO_LE (v); g_byte_array_append (a, (guint8 *) &x_, 4); } G_STMT_END
  for (guint i = 0; i < 2; i++)
    {
      guint32 crc = (guint32) crc32 (0, (const guint8 *) bodies[i], strlen (bodies[i]));
      offsets[i] = zip->len;
      PUT32 (zip, 0x04034b50); PUT16 (zip, 20); PUT16 (zip, 0); PUT16 (zip, 0); PUT16 (zip, 0); PUT16 (zip, 0);
      PUT32 (zip, crc); PUT32 (zip, strlen (bodies[i])); PUT32 (zip, strlen (bodies[i]));
      PUT16 (zip, strlen (names[i])); PUT16 (zip, 0);
      g_byte_array_append (zip, (const guint8 *) names[i], strlen (names[i]));
      g_byte_array_append (zip, (const guint8 *) bodies[i], strlen (bodies[i]));

      PUT32 (central, 0x02014b50); PUT16 (central, 20); PUT16 (central, 20); PUT16 (central, 0); PUT16 (central, 0);
      PUT16 (central, 0); PUT16 (central, 0); PUT32 (central, crc);
      PUT32 (central, strlen (bodies[i])); PUT32 (central, strlen (bodies[i]));
      PUT16 (central, strlen (names[i])); PUT16 (central, 0); PUT16 (central, 0); PUT16 (central, 0); PUT16 (central, 0);
      PUT32 (central, 0); PUT32 (central, offsets[i]);
      g_byte_array_append (central, (const guint8 *) names[i], strlen (names[i]));
    }
  {
    guint32 central_offset = zip->len, central_len = central->len;

    g_byte_array_append (zip, central->data, central->len);
    PUT32 (zip, 0x06054b50); PUT16 (zip, 0); PUT16 (zip, 0); PUT16 (zip, 2); PUT16 (zip, 2);
    PUT32 (zip, central_len); PUT32 (zip, central_offset); PUT16 (zip, 0);
  }
#undef PUT16
#undef PUT32
  g_byte_array_unref (central);
  return g_byte_array_free_to_bytes (zip);
}

static void
test_workbook (void)
{
  g_autoptr(GBytes) bytes = make_workbook ();
  g_autofree char *path = write_file ("book.xlsx", g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  GtkWidget *preview;
  GtkWidget *window = new_window (&preview);
  AssayDatasetPage *page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), path);
  g_autoptr(GString) text = g_string_new (NULL);

  wait_for (page_not_loading, page, 10000);
  if (g_str_equal (assay_dataset_page_get_state (page), "error"))
    g_test_message ("workbook error: %s", assay_dataset_page_get_error_message (page));
  g_assert_cmpstr (assay_dataset_page_get_state (page), ==, "workbook");
  iterate (50);
  collect_labels (GTK_WIDGET (page), text);
  g_assert_nonnull (strstr (text->str, "Sales"));
  g_assert_nonnull (strstr (text->str, "Costs"));
  g_assert_nonnull (strstr (text->str, "only the sheet names"));
  destroy_window (window, preview);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_assert_cmpint (argc, ==, 2);
  rows_path = argv[1];
  tmpdir = g_dir_make_tmp ("assay-preview-XXXXXX", NULL);

  g_test_add_func ("/assay/preview/million-rows", test_million_rows);
  g_test_add_func ("/assay/preview/jump-to-end", test_jump_to_end);
  g_test_add_func ("/assay/preview/narrow-table", test_narrow_table);
  g_test_add_func ("/assay/preview/header-strip-follows", test_header_strip_follows);
  g_test_add_func ("/assay/preview/side-panel", test_side_panel);
  g_test_add_func ("/assay/preview/correct-delimiter", test_correct_delimiter);
  g_test_add_func ("/assay/preview/windows-1251", test_windows_1251);
  g_test_add_func ("/assay/preview/broken-files", test_broken_and_workbook);
  g_test_add_func ("/assay/preview/workbook", test_workbook);
  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (tmpdir, name, NULL);
        g_unlink (child);
      }
    g_rmdir (tmpdir);
  }
  g_free (tmpdir);
  return status;
}
