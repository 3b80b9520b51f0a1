/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The data preview on a 1,000,000-row file (argv[1], from tests/data/make-rows.py) and, when
 * the disk allows, a ~1 GB file made from it under argv[2] and deleted afterwards: time to the
 * first rows on screen, items-changed batches, and what a scroll jump costs the main thread.
 *
 * A jump sets the view's vertical adjustment (what dragging the scrollbar, Page Down or
 * Ctrl+End do) and runs the main loop until the frame clock painted a frame that started
 * after it. Per jump:
 *   work     main-thread CPU from the jump to that frame's ::after-paint;
 *   handler  of which in the adjustment's value-changed handlers (GTK 4.8 makes and binds
 *            the new rows' widgets there, before any frame);
 *   frame    of which in that frame, ::before-paint to ::after-paint (measure, allocate,
 *            snapshot, render), and its wall time;
 *   stall    the longest the main loop was busy without a break (the jump's handler or one
 *            dispatch, wall), i.e. how long input waited;
 *   next     main-thread CPU of the frame after it (work the jump left for later; the
 *            preview's header strip ticks every frame, a plain view has no such frame).
 * Baselines in the same run, same window and targets: one-row steps in the same preview, and
 * a plain GtkColumnView with the same columns, widths and texts over a 1,000,000-item model,
 * its cells GtkLabels or GtkInscriptions and nothing else (what GTK 4.8 itself costs).
 * WORKDIR "-" skips the ~1 GB file. Prints numbers; never fails on timings. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#include "assay-data-preview.h"
#include "preview-rows.h"

#define WINDOW_WIDTH    1400
#define WINDOW_HEIGHT   900
#define N_JUMPS         100
#define N_WARMUP_JUMPS  5
#define JUMP_SEED       20240601
/* As the preview's columns (assay-dataset-page.c). */
#define ROW_NUMBER_WIDTH 72
#define COLUMN_WIDTH     150

static gint64
anon_kb (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, "RssAnon:");
  return line != NULL ? g_ascii_strtoll (line + 8, NULL, 10) : 0;
}

/* CPU time of the calling thread (the main thread lays out and draws), in ns: other processes
 * on the machine do not count, unlike wall time. */
static gint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static void
iterate (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
}

/* The text a table cell shows, whichever widget shows it. */
static const char *
cell_text (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget))
    return gtk_label_get_label (GTK_LABEL (widget));
  if (GTK_IS_INSCRIPTION (widget))
    return gtk_inscription_get_text (GTK_INSCRIPTION (widget));
  return NULL;
}

static gboolean
first_row_visible (GtkWidget *widget)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  if (gtk_widget_has_css_class (widget, "row-number") && g_strcmp0 (cell_text (widget), "1") == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (first_row_visible (child))
      return TRUE;
  return FALSE;
}

static double
raw_index_seconds (const char *path)
{
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr(AssayCsvIndex) index = assay_csv_index_new (path, &error);

  g_assert_no_error (error);
  g_assert_true (assay_csv_index_build (index, NULL, &error));
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* ---- Frames -------------------------------------------------------------------------- */

typedef struct
{
  gint64  start_wall;       /* µs, at ::before-paint of the frame in progress */
  gint64  start_cpu;        /* ns */
  guint64 n_frames;         /* ::after-paint so far */
  gint64  last_start_wall;  /* the last finished frame: when it began, */
  gint64  last_wall;        /* how long it took (µs), */
  gint64  last_cpu;         /* the main-thread CPU it took (ns), */
  gint64  last_end_cpu;     /* and the thread's CPU clock when it ended */
} FrameProbe;

static void
before_paint (GdkFrameClock *clock,
              FrameProbe    *probe)
{
  probe->start_wall = g_get_monotonic_time ();
  probe->start_cpu = thread_cpu_ns ();
}

static void
after_paint (GdkFrameClock *clock,
             FrameProbe    *probe)
{
  probe->last_end_cpu = thread_cpu_ns ();
  probe->last_start_wall = probe->start_wall;
  probe->last_wall = g_get_monotonic_time () - probe->start_wall;
  probe->last_cpu = probe->last_end_cpu - probe->start_cpu;
  probe->n_frames++;
}

static void
probe_attach (FrameProbe *probe,
              GtkWidget  *window)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);

  memset (probe, 0, sizeof *probe);
  g_assert_nonnull (clock);
  g_signal_connect (clock, "before-paint", G_CALLBACK (before_paint), probe);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint), probe);
}

static void
probe_detach (FrameProbe *probe,
              GtkWidget  *window)
{
  g_signal_handlers_disconnect_by_data (gtk_widget_get_frame_clock (window), probe);
}

/* Runs the main loop until a frame that began at NOT_BEFORE or later has been painted,
 * without ever blocking in poll, so that each dispatch's wall time is time the main thread
 * was busy. Returns the longest dispatch (µs), or -1 when no frame came within TIMEOUT_MS
 * (nothing asked for one). */
static gint64
dispatch_until_frame (FrameProbe *probe,
                      gint64      not_before,
                      guint       timeout_ms)
{
  gint64 longest = 0;
  gint64 deadline = g_get_monotonic_time () + timeout_ms * 1000;

  while (probe->n_frames == 0 || probe->last_start_wall < not_before)
    {
      gint64 t = g_get_monotonic_time ();
      gboolean dispatched = g_main_context_iteration (NULL, FALSE);

      longest = MAX (longest, g_get_monotonic_time () - t);
      if (!dispatched)
        g_usleep (200);
      if (g_get_monotonic_time () > deadline)
        return -1;
    }
  return longest;
}

typedef struct
{
  double work;    /* ms */
  double handler;
  double frame_cpu;
  double frame;
  double stall;
  double next;
} JumpCost;

static JumpCost
jump_to (FrameProbe    *probe,
         GtkAdjustment *adjustment,
         double         value)
{
  JumpCost cost;
  gint64 cpu0 = thread_cpu_ns ();
  gint64 wall0 = g_get_monotonic_time ();
  gint64 wall1, stall;

  gtk_adjustment_set_value (adjustment, value);
  wall1 = g_get_monotonic_time ();
  cost.handler = (thread_cpu_ns () - cpu0) / 1e6;
  stall = dispatch_until_frame (probe, wall1, 2000);
  if (stall < 0)
    fprintf (stderr, "no frame painted within 2 s of a jump\n");
  stall = MAX (wall1 - wall0, stall);
  cost.work = (probe->last_end_cpu - cpu0) / 1e6;
  cost.frame_cpu = probe->last_cpu / 1e6;
  cost.frame = probe->last_wall / 1e3;
  cost.stall = stall / 1e3;
  /* The frame after it, if any: work the jump left for later shows here. Then one more, so
   * the next jump starts from a quiet view. */
  cost.next = dispatch_until_frame (probe, g_get_monotonic_time (), 50) >= 0 ? probe->last_cpu / 1e6 : 0;
  dispatch_until_frame (probe, g_get_monotonic_time (), 50);
  return cost;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

typedef struct
{
  double median, p95, max;
} Spread;

static Spread
spread (GArray *costs,
        gsize   offset)
{
  g_autofree double *values = g_new (double, costs->len);
  Spread s;

  for (guint i = 0; i < costs->len; i++)
    values[i] = G_STRUCT_MEMBER (double, &g_array_index (costs, JumpCost, i), offset);
  qsort (values, costs->len, sizeof (double), compare_doubles);
  s.median = values[costs->len / 2];
  s.p95 = values[MIN (costs->len - 1, (guint) (costs->len * 0.95))];
  s.max = values[costs->len - 1];
  return s;
}

typedef enum
{
  JUMP_FAR,        /* anywhere in the file, as dragging the scrollbar does */
  JUMP_ONE_ROW,    /* one row down, as a wheel notch nearly does */
} JumpKind;

typedef struct
{
  const char *name;
  Spread      work, handler, frame_cpu, frame, stall, next;
} Series;

static void
print_series_header (void)
{
  printf ("  %-42s %-17s %-17s %-17s %-17s %-17s %s\n", "ms per jump: median p95 max",
          "work (CPU)", "handler (CPU)", "frame (CPU)", "frame (wall)", "stall (wall)", "next frame (CPU)");
}

static void
print_spread (const Spread *s)
{
  printf (" %5.1f %5.1f %5.1f", s->median, s->p95, s->max);
}

static void
print_series (const Series *s)
{
  printf ("  %-42s", s->name);
  print_spread (&s->work);
  print_spread (&s->handler);
  print_spread (&s->frame_cpu);
  print_spread (&s->frame);
  print_spread (&s->stall);
  print_spread (&s->next);
  printf ("\n");
}

/* N jumps of KIND in the scrolled view of WINDOW. Far jumps go to the same pseudo-random
 * places in every series (one seed), so the preview and the plain view are compared on the
 * same rows. */
static Series
run_jumps (const char    *name,
           GtkWidget     *window,
           GtkAdjustment *adjustment,
           guint          n_rows,
           JumpKind       kind,
           guint          n_jumps,
           gint64        *mem_peak_kb,
           guint         *alive_peak)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (JUMP_SEED);
  g_autoptr(GArray) costs = g_array_new (FALSE, FALSE, sizeof (JumpCost));
  FrameProbe probe;
  double row_height = gtk_adjustment_get_upper (adjustment) / MAX (n_rows, 1);
  Series s = { name };

  probe_attach (&probe, window);
  if (kind == JUMP_ONE_ROW)
    jump_to (&probe, adjustment, gtk_adjustment_get_upper (adjustment) / 2);
  for (guint i = 0; i < N_WARMUP_JUMPS + n_jumps; i++)
    {
      double last = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);
      double target = kind == JUMP_FAR ? g_rand_double_range (rand, 0, last)
                                       : gtk_adjustment_get_value (adjustment) + row_height;
      JumpCost cost = jump_to (&probe, adjustment, MIN (target, last));

      if (i >= N_WARMUP_JUMPS)
        g_array_append_val (costs, cost);
      if (mem_peak_kb != NULL)
        *mem_peak_kb = MAX (*mem_peak_kb, anon_kb ());
      if (alive_peak != NULL)
        *alive_peak = MAX (*alive_peak, assay_row_get_n_alive ());
    }
  probe_detach (&probe, window);
  s.work = spread (costs, G_STRUCT_OFFSET (JumpCost, work));
  s.handler = spread (costs, G_STRUCT_OFFSET (JumpCost, handler));
  s.frame_cpu = spread (costs, G_STRUCT_OFFSET (JumpCost, frame_cpu));
  s.frame = spread (costs, G_STRUCT_OFFSET (JumpCost, frame));
  s.stall = spread (costs, G_STRUCT_OFFSET (JumpCost, stall));
  s.next = spread (costs, G_STRUCT_OFFSET (JumpCost, next));
  print_series (&s);
  return s;
}

/* How many rows and cells the list has made (GTK 4.8 makes rows for more than the screen). */
static void
count_rows (GtkColumnView *view,
            guint         *rows,
            guint         *cells)
{
  *rows = *cells = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view)); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      for (GtkWidget *row = gtk_widget_get_first_child (child); row != NULL; row = gtk_widget_get_next_sibling (row))
        {
          (*rows)++;
          for (GtkWidget *cell = gtk_widget_get_first_child (row); cell != NULL; cell = gtk_widget_get_next_sibling (cell))
            (*cells)++;
        }
}

/* ---- The baseline: a plain GtkColumnView --------------------------------------------- */

/* N items, each a GtkStringObject holding its position, made when asked for. */
#define BENCH_TYPE_ROWS (bench_rows_get_type ())
G_DECLARE_FINAL_TYPE (BenchRows, bench_rows, BENCH, ROWS, GObject)

struct _BenchRows
{
  GObject parent_instance;
  guint   n_items;
};

static GType
bench_rows_get_item_type (GListModel *model)
{
  return GTK_TYPE_STRING_OBJECT;
}

static guint
bench_rows_get_n_items (GListModel *model)
{
  return BENCH_ROWS (model)->n_items;
}

static gpointer
bench_rows_get_item (GListModel *model,
                     guint       position)
{
  char text[16];

  if (position >= BENCH_ROWS (model)->n_items)
    return NULL;
  g_snprintf (text, sizeof text, "%u", position);
  return gtk_string_object_new (text);
}

static void
bench_rows_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = bench_rows_get_item_type;
  iface->get_n_items = bench_rows_get_n_items;
  iface->get_item = bench_rows_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (BenchRows, bench_rows, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, bench_rows_list_model_init))

static void
bench_rows_class_init (BenchRowsClass *klass)
{
}

static void
bench_rows_init (BenchRows *self)
{
}

static void
plain_setup (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  inscription)
{
  GtkWidget *cell;

  if (inscription != NULL)
    {
      cell = gtk_inscription_new (NULL);
      gtk_inscription_set_text_overflow (GTK_INSCRIPTION (cell), GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
    }
  else
    {
      cell = gtk_label_new (NULL);
      gtk_label_set_ellipsize (GTK_LABEL (cell), PANGO_ELLIPSIZE_END);
      gtk_label_set_single_line_mode (GTK_LABEL (cell), TRUE);
      gtk_label_set_width_chars (GTK_LABEL (cell), 3);
      gtk_label_set_xalign (GTK_LABEL (cell), 0);
    }
  gtk_list_item_set_child (item, cell);
}

static void
plain_bind (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  inscription)
{
  int column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "column"));
  guint64 row = g_ascii_strtoull (gtk_string_object_get_string (gtk_list_item_get_item (item)), NULL, 10);
  g_autofree char *text = column < 0 ? g_strdup_printf ("%" G_GUINT64_FORMAT, row + 1)
                                     : preview_rows_expected (row, column);

  if (inscription != NULL)
    gtk_inscription_set_text (GTK_INSCRIPTION (gtk_list_item_get_child (item)), text);
  else
    gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

static void
add_plain_column (GtkColumnView *view,
                  const char    *title,
                  int            column,
                  int            width,
                  gboolean       inscription)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *c;

  g_object_set_data (G_OBJECT (factory), "column", GINT_TO_POINTER (column));
  g_signal_connect (factory, "setup", G_CALLBACK (plain_setup), GINT_TO_POINTER (inscription));
  g_signal_connect (factory, "bind", G_CALLBACK (plain_bind), GINT_TO_POINTER (inscription));
  c = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_fixed_width (c, width);
  gtk_column_view_append_column (view, c);
  g_object_unref (c);
}

static Series
measure_plain (gboolean inscription,
               guint    n_rows,
               int      table_height)
{
  static const char * const titles[PREVIEW_ROWS_COLUMNS] = { "id", "name", "value", "category", "note" };
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkColumnView *view;
  BenchRows *rows = g_object_new (BENCH_TYPE_ROWS, NULL);
  Series s;

  rows->n_items = n_rows;
  view = GTK_COLUMN_VIEW (gtk_column_view_new (GTK_SELECTION_MODEL (gtk_no_selection_new (G_LIST_MODEL (rows)))));
  gtk_column_view_set_show_column_separators (view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (view), "data-table");   /* the preview's row height */
  add_plain_column (view, "#", -1, ROW_NUMBER_WIDTH, inscription);
  for (int c = 0; c < PREVIEW_ROWS_COLUMNS; c++)
    add_plain_column (view, titles[c], c, COLUMN_WIDTH, inscription);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (view));
  /* As tall as the preview's table, so that as many rows are on screen. */
  gtk_widget_set_size_request (scroller, -1, table_height);
  gtk_widget_set_valign (scroller, GTK_ALIGN_START);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), WINDOW_WIDTH, WINDOW_HEIGHT);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (GTK_WIDGET (view)))
    g_main_context_iteration (NULL, TRUE);
  iterate (300);

  if (!inscription)
    {
      GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
      guint n_widgets, n_cells;

      count_rows (view, &n_widgets, &n_cells);
      printf ("  (plain views: the same columns, widths, texts and row height, %.0f rows on screen, "
              "%u row widgets with %u cells)\n",
              gtk_adjustment_get_page_size (vadjustment) / (gtk_adjustment_get_upper (vadjustment) / n_rows),
              n_widgets, n_cells);
    }
  s = run_jumps (inscription ? "plain GtkColumnView, GtkInscription cells" : "plain GtkColumnView, GtkLabel cells",
                 window, gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view)), n_rows, JUMP_FAR, N_JUMPS,
                 NULL, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
  iterate (50);
  return s;
}

/* ---- The preview ---------------------------------------------------------------------- */

static void
measure (const char *path,
         guint       n_jumps,
         gboolean    baselines)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *preview = assay_data_preview_new ();
  AssayDatasetPage *page;
  AssayRowModel *model;
  gint64 t0, t_first, t_complete;
  struct stat st;

  g_stat (path, &st);
  gtk_window_set_child (GTK_WINDOW (window), preview);
  gtk_window_set_default_size (GTK_WINDOW (window), WINDOW_WIDTH, WINDOW_HEIGHT);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (preview))
    g_main_context_iteration (NULL, TRUE);
  iterate (200);

  t0 = g_get_monotonic_time ();
  page = assay_data_preview_add_file (ASSAY_DATA_PREVIEW (preview), path);
  while (!first_row_visible (GTK_WIDGET (page)))
    g_main_context_iteration (NULL, TRUE);
  t_first = g_get_monotonic_time ();
  model = assay_dataset_page_get_row_model (page);
  printf ("file: %.1f MB\n", st.st_size / 1e6);
  printf ("  first rows on screen: %.0f ms (%u rows indexed by then, %s)\n", (t_first - t0) / 1000.0,
          g_list_model_get_n_items (G_LIST_MODEL (model)),
          assay_row_model_is_complete (model) ? "index complete" : "still indexing");
  while (!assay_row_model_is_complete (model))
    g_main_context_iteration (NULL, TRUE);
  t_complete = g_get_monotonic_time ();
  printf ("  index complete in the widget: %.2f s, %u rows, %u items-changed batches\n",
          (t_complete - t0) / 1e6, g_list_model_get_n_items (G_LIST_MODEL (model)),
          assay_row_model_get_n_batches (model));
  while (assay_dataset_page_get_dataset (page) == NULL &&
         g_str_equal (assay_dataset_page_get_state (page), "table"))
    g_main_context_iteration (NULL, TRUE);
  printf ("  profile (headers, side panel) ready: %.2f s\n", (g_get_monotonic_time () - t0) / 1e6);

  if (n_jumps > 0)
    {
      GtkColumnView *view = assay_dataset_page_get_column_view (page);
      GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
      guint n_rows = g_list_model_get_n_items (G_LIST_MODEL (model));
      gint64 mem_before, mem_peak, mem_after;
      guint alive_peak = 0, rows, cells;
      Series far, plain_label, plain_inscription;

      iterate (300);
      count_rows (view, &rows, &cells);
      printf ("  scroll jumps, %d×%d window: %u row widgets with %u cells made by the view, "
              "%.0f rows on screen; %u jumps each after %u warm-up jumps\n",
              WINDOW_WIDTH, WINDOW_HEIGHT, rows, cells,
              gtk_adjustment_get_page_size (vadjustment) / (gtk_adjustment_get_upper (vadjustment) / n_rows),
              n_jumps, N_WARMUP_JUMPS);
      print_series_header ();
      mem_before = mem_peak = anon_kb ();
      far = run_jumps ("preview, far jumps (random rows)", window, vadjustment, n_rows, JUMP_FAR, n_jumps,
                       &mem_peak, &alive_peak);
      run_jumps ("preview, one-row steps", window, vadjustment, n_rows, JUMP_ONE_ROW, n_jumps,
                 &mem_peak, &alive_peak);
      mem_after = anon_kb ();
      if (baselines)
        {
          int table_height = gtk_widget_get_height (gtk_widget_get_parent (GTK_WIDGET (view)));

          plain_label = measure_plain (FALSE, n_rows, table_height);
          plain_inscription = measure_plain (TRUE, n_rows, table_height);
        }
      printf ("  memory while jumping in the preview: %+.1f MB anonymous RSS at the peak, %+.1f MB after; "
              "at most %u row objects alive\n",
              (mem_peak - mem_before) / 1024.0, (mem_after - mem_before) / 1024.0, alive_peak);
      if (baselines)
        printf ("  preview far-jump work (median) / plain GtkLabel view: %.2f; / plain GtkInscription view: %.2f\n",
                far.work.median / plain_label.work.median, far.work.median / plain_inscription.work.median);
    }

  g_object_ref (preview);
  gtk_window_destroy (GTK_WINDOW (window));
  iterate (50);
  g_object_unref (preview);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *big = NULL;
  struct statvfs fs;

  gtk_init ();
  adw_init ();
  if (argc != 3)
    {
      fprintf (stderr, "usage: bench-preview ROWS.csv WORKDIR\n");
      return 2;
    }

  printf ("baseline: assay_csv_index_build on the 1,000,000-row file (best of 3): ");
  {
    double best = 1e9;
    for (guint i = 0; i < 3; i++)
      best = MIN (best, raw_index_seconds (argv[1]));
    printf ("%.3f s\n", best);
  }
  measure (argv[1], N_JUMPS, TRUE);

  /* ~1 GB: the same rows again and again, when the disk has room for it three times over. */
  big = g_build_filename (argv[2], "bench-preview-1g.csv", NULL);
  if (g_str_equal (argv[2], "-"))
    printf ("~1 GB file: skipped (WORKDIR -)\n");
  else if (statvfs (argv[2], &fs) == 0 && (guint64) fs.f_bavail * fs.f_frsize > 3000000000ull)
    {
      g_autofree char *contents = NULL;
      gsize len;
      FILE *out = fopen (big, "w");
      const char *body;

      g_assert_true (g_file_get_contents (argv[1], &contents, &len, NULL));
      body = strchr (contents, '\n') + 1;
      fwrite (contents, 1, len, out);
      for (gsize written = len; written < 1000000000; written += len - (body - contents))
        fwrite (body, 1, len - (body - contents), out);
      fclose (out);
      printf ("baseline: assay_csv_index_build on the ~1 GB file: %.3f s\n", raw_index_seconds (big));
      measure (big, N_JUMPS / 4, FALSE);
      g_unlink (big);
    }
  else
    printf ("~1 GB file: skipped, not enough free disk under %s\n", argv[2]);
  return 0;
}
