/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The data preview on a 1,000,000-row file (argv[1], from tests/data/make-rows.py) and, when
 * the disk allows, a ~1 GB file made from it under argv[2] and deleted afterwards: time to the
 * first rows on screen, items-changed batches, memory while scrolling through the whole
 * file, against the raw assay_csv_index_build () time measured in the same run. Prints
 * numbers; never fails on timings. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include "assay-data-preview.h"

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

/* CPU seconds of the main thread (the one that lays out and draws). */
static double
thread_cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_THREAD, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static void
iterate (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
}

static gboolean
first_row_visible (GtkWidget *widget)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "row-number") &&
      g_str_equal (gtk_label_get_label (GTK_LABEL (widget)), "1"))
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

static void
measure (const char *path,
         gboolean    scroll)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *preview = assay_data_preview_new ();
  AssayDatasetPage *page;
  AssayRowModel *model;
  gint64 t0, t_first, t_complete;
  gint64 mem_before, mem_peak;
  guint alive_peak = 0;
  struct stat st;

  g_stat (path, &st);
  gtk_window_set_child (GTK_WINDOW (window), preview);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
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

  if (scroll)
    {
      GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (assay_dataset_page_get_column_view (page)));
      guint steps = 200;
      gint64 t_scroll, longest = 0;
      double cpu;

      iterate (300);
      mem_before = mem_peak = anon_kb ();
      t_scroll = g_get_monotonic_time ();
      cpu = thread_cpu_seconds ();
      for (guint i = 1; i <= steps; i++)
        {
          double upper = gtk_adjustment_get_upper (vadjustment) - gtk_adjustment_get_page_size (vadjustment);
          gint64 before = g_get_monotonic_time ();

          gtk_adjustment_set_value (vadjustment, upper * i / steps);
          /* One frame's worth of main loop per step. */
          while (g_main_context_pending (NULL))
            g_main_context_iteration (NULL, FALSE);
          iterate (16);
          longest = MAX (longest, g_get_monotonic_time () - before - 16000);
          mem_peak = MAX (mem_peak, anon_kb ());
          alive_peak = MAX (alive_peak, assay_row_get_n_alive ());
        }
      cpu = thread_cpu_seconds () - cpu;
      printf ("  scrolling through the whole file in %u jumps: %.2f s wall, main thread CPU %.1f ms per jump "
              "(the 16 ms waits excluded: %.1f ms); slowest jump %.1f ms beyond its 16 ms\n",
              steps, (g_get_monotonic_time () - t_scroll) / 1e6, cpu * 1000 / steps,
              ((g_get_monotonic_time () - t_scroll) / 1e3 - steps * 16.0) / steps, longest / 1000.0);
      printf ("  memory while scrolling: %+.1f MB anonymous RSS at the peak, %+.1f MB at the end; "
              "at most %u row objects alive\n",
              (mem_peak - mem_before) / 1024.0, (anon_kb () - mem_before) / 1024.0, alive_peak);
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
  measure (argv[1], TRUE);

  /* ~1 GB: the same rows again and again, when the disk has room for it three times over. */
  big = g_build_filename (argv[2], "bench-preview-1g.csv", NULL);
  if (statvfs (argv[2], &fs) == 0 && (guint64) fs.f_bavail * fs.f_frsize > 3000000000ull)
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
      measure (big, FALSE);
      g_unlink (big);
    }
  else
    printf ("~1 GB file: skipped, not enough free disk under %s\n", argv[2]);
  return 0;
}
