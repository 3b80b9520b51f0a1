/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Measures the datasets module on one file: the first screen of rows from the row index
 * while it is still being built, the full profile, and the memory the profile needs beyond
 * the mapped file (peak anonymous RSS above the starting point). Prints key=value lines. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "assay-csv-index.h"
#include "assay-dataset.h"

static gint stop_sampling;
static gint64 peak_anon_kb;

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

static gpointer
sample_memory (gpointer data)
{
  while (!g_atomic_int_get (&stop_sampling))
    {
      gint64 kb = anon_kb ();
      if (kb > peak_anon_kb)
        peak_anon_kb = kb;
      g_usleep (2000);
    }
  return NULL;
}

static void
built (GObject      *source,
       GAsyncResult *result,
       gpointer      user_data)
{
  *(gboolean *) user_data = TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  gint64 t0, t_screen = 0, t_window = 0, t_done;
  guint64 window_at = 0;
  gboolean done = FALSE;
  gsize size;

  if (argc != 3)
    {
      fprintf (stderr, "usage: bench-data screen|profile FILE\n");
      return 2;
    }
  {
    g_autoptr(GMappedFile) mapped = g_mapped_file_new (argv[2], FALSE, &error);
    if (mapped == NULL)
      {
        fprintf (stderr, "%s\n", error->message);
        return 1;
      }
    size = g_mapped_file_get_length (mapped);
  }
  printf ("file_mb=%.1f\n", size / 1e6);

  if (g_str_equal (argv[1], "screen"))
    {
      g_autoptr(AssayCsvIndex) index = NULL;

      t0 = g_get_monotonic_time ();
      index = assay_csv_index_new (argv[2], &error);
      if (index == NULL)
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      assay_csv_index_build_async (index, NULL, built, &done);
      /* The first screen: 50 rows. */
      while (assay_csv_index_get_n_rows_indexed (index) < 50 && !assay_csv_index_is_complete (index))
        g_usleep (100);
      for (guint i = 0; i < 50; i++)
        {
          g_auto(GStrv) row = assay_csv_index_get_row (index, i);
          g_assert_true (row != NULL);
        }
      t_screen = g_get_monotonic_time () - t0;
      /* A window deep in the part already indexed, while indexing goes on. */
      g_usleep (200000);
      window_at = assay_csv_index_get_n_rows_indexed (index) / 2;
      {
        gint64 t1 = g_get_monotonic_time ();
        for (guint i = 0; i < 50; i++)
          {
            g_auto(GStrv) row = assay_csv_index_get_row (index, window_at + i);
            g_assert_true (row != NULL);
          }
        t_window = g_get_monotonic_time () - t1;
      }
      printf ("still_indexing_at_window=%s\n", assay_csv_index_is_complete (index) ? "no" : "yes");
      while (!done)
        g_main_context_iteration (NULL, TRUE);
      t_done = g_get_monotonic_time () - t0;
      printf ("first_screen_ms=%.2f\n", t_screen / 1000.0);
      printf ("window_rows_from=%" G_GUINT64_FORMAT "\nwindow_ms=%.2f\n", window_at, t_window / 1000.0);
      printf ("index_complete_s=%.3f\nindexed_rows=%" G_GUINT64_FORMAT "\n", t_done / 1e6,
              assay_csv_index_get_n_rows_indexed (index));
    }
  else
    {
      g_autoptr(AssayDataset) dataset = NULL;
      GThread *sampler;
      gint64 base_kb = anon_kb ();

      peak_anon_kb = base_kb;
      sampler = g_thread_new ("sampler", sample_memory, NULL);
      t0 = g_get_monotonic_time ();
      dataset = assay_dataset_open (argv[2], NULL, &error);
      t_done = g_get_monotonic_time () - t0;
      g_atomic_int_set (&stop_sampling, 1);
      g_thread_join (sampler);
      if (dataset == NULL)
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      printf ("profile_s=%.3f\nrows=%" G_GUINT64_FORMAT "\ncolumns=%u\n", t_done / 1e6,
              assay_dataset_get_n_rows (dataset), assay_dataset_get_n_columns (dataset));
      printf ("extra_memory_mb=%.1f\nextra_memory_fraction=%.3f\n", (peak_anon_kb - base_kb) / 1024.0,
              (peak_anon_kb - base_kb) * 1024.0 / size);
    }
  return 0;
}
