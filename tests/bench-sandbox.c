/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Benchmark (not a test): the reference design's per-call cost — a fresh hardened sandbox
 * that imports pandas, reads a 45k-row CSV and prints its shape — against a warm session
 * doing the same read once and then cheap cells, and the first cell of a new session when a
 * pre-warmed sandbox waits. All on the same image, in one run; figures are ratios against
 * the baseline measured here. */
#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "assay-sandbox-pool.h"
#include "sandbox-harness.h"

#define REFERENCE_RUNS 5
#define WARM_CELLS 50
#define PREWARM_RUNS 5

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *values,
        guint   n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static double
percentile (double *values,
            guint   n,
            double  p)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return values[MIN (n - 1, (guint) (p * n))];
}

static char *
write_sales_csv (const char *dir)
{
  g_autoptr(GString) csv = g_string_new ("date,region,product,quantity,price\n");
  static const char *regions[] = { "North", "South", "East", "West", "Центр" };
  char *path = g_build_filename (dir, "sales.csv", NULL);
  GRand *rand = g_rand_new_with_seed (42);

  for (guint i = 0; i < 45000; i++)
    g_string_append_printf (csv, "2024-%02u-%02u,%s,P%03u,%u,%.2f\n",
                            g_rand_int_range (rand, 1, 13), g_rand_int_range (rand, 1, 29),
                            regions[g_rand_int_range (rand, 0, 5)], g_rand_int_range (rand, 0, 500),
                            g_rand_int_range (rand, 1, 100), g_rand_double_range (rand, 1, 1000));
  g_rand_free (rand);
  g_assert_true (g_file_set_contents (path, csv->str, csv->len, NULL));
  return path;
}

/* The reference design: one fresh sandbox per call, same hardening, same image. */
static double
reference_call (const char *backend_name,
                const char *data_dir)
{
  g_autoptr(AssaySandboxSpec) spec = assay_sandbox_spec_new ();
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  const char *command[] = {
    "python3", "-c",
    "import pandas as pd, matplotlib\n"
    "df = pd.read_csv('/data/sales.csv')\n"
    "print(df.shape)",
    NULL
  };
  AssaySandboxExit exit_status;
  gint64 start;
  double elapsed;

  spec->session_id = g_strdup ("bench-ref");
  spec->data_dir = g_strdup (data_dir);
  spec->command = g_strdupv ((char **) command);
  backend = harness_backend (backend_name, spec);

  start = g_get_monotonic_time ();
  instance = assay_sandbox_backend_launch (backend, spec, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (assay_sandbox_instance_get_stdin (instance), NULL, NULL);
  g_output_stream_splice (out, assay_sandbox_instance_get_stdout (instance),
                          G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  assay_sandbox_instance_wait (instance, &exit_status, NULL, &error);
  assay_sandbox_instance_destroy (instance);
  elapsed = (g_get_monotonic_time () - start) / 1000.0;

  g_assert_no_error (error);
  if (!g_strstr_len (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                     g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)),
                     "(45000, 5)"))
    g_error ("the reference call printed no shape");
  return elapsed;
}

static void
iterate_until (gboolean (*done) (gpointer), gpointer data)
{
  while (!done (data))
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
pool_ready (gpointer data)
{
  return assay_sandbox_pool_has_warm (data);
}

static void
bench_backend (const char *backend_name,
               const char *csv)
{
  g_autofree double *reference = g_new0 (double, REFERENCE_RUNS);
  g_autofree double *warm = g_new0 (double, WARM_CELLS);
  g_autofree double *prewarmed = g_new0 (double, PREWARM_RUNS);
  g_autofree double *prewarmed_wall = g_new0 (double, PREWARM_RUNS);
  g_autofree char *data_dir = g_path_get_dirname (csv);
  g_autofree char *out_dir = g_dir_make_tmp ("assay-bench-XXXXXX", NULL);
  g_autoptr(AssayKernelSession) session = NULL;
  g_autoptr(AssayCellResult) first = NULL;
  g_autoptr(AssaySandboxSpec) spec = assay_sandbox_spec_new ();
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(AssaySandboxPool) pool = NULL;
  g_autoptr(GError) error = NULL;
  double cold_start_ms, ref_median, warm_median;
  gint64 t0;

  printf ("\n== %s ==\n", backend_name);

  for (guint i = 0; i < REFERENCE_RUNS; i++)
    reference[i] = reference_call (backend_name, data_dir);
  ref_median = median (reference, REFERENCE_RUNS);
  printf ("reference (fresh sandbox per call, import pandas + read 45k rows): median %.0f ms, min %.0f ms, max %.0f ms over %d calls\n",
          ref_median, reference[0], reference[REFERENCE_RUNS - 1], REFERENCE_RUNS);

  /* A warm session: the read once, then cheap cells. */
  t0 = g_get_monotonic_time ();
  session = harness_session_new (backend_name, NULL, out_dir);
  g_assert_true (assay_kernel_session_add_dataset (session, csv, &error));
  harness_start (session, &error);
  g_assert_no_error (error);
  cold_start_ms = (g_get_monotonic_time () - t0) / 1000.0;
  first = harness_run (session, "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\nprint(df.shape)");
  g_assert_cmpint (assay_cell_result_get_status (first), ==, ASSAY_CELL_OK);
  printf ("warm session: start (sandbox + kernel ready) %.0f ms; first cell (read 45k rows) %" G_GINT64_FORMAT " ms\n",
          cold_start_ms, assay_cell_result_get_elapsed_ms (first));

  for (guint i = 0; i < WARM_CELLS; i++)
    {
      g_autoptr(AssayCellResult) cell = harness_run (session, "print(df.shape)");
      g_autofree char *out = harness_stream_text (cell, "stdout");

      g_assert_cmpstr (out, ==, "(45000, 5)\n");
      warm[i] = assay_cell_result_get_elapsed_us (cell) / 1000.0;
    }
  warm_median = median (warm, WARM_CELLS);
  printf ("warm cell print(df.shape): median %.1f ms, p95 %.1f ms, max %.1f ms over %d cells (host-measured, send to done)\n",
          warm_median, percentile (warm, WARM_CELLS, 0.95), warm[WARM_CELLS - 1], WARM_CELLS);
  printf ("ratio reference / warm cell: %.0fx\n", ref_median / warm_median);
  harness_close_and_check (session, backend_name);

  /* The first cell of a new session, with a pre-warmed sandbox waiting. */
  g_object_unref (harness_backend (backend_name, spec));
  backend = harness_backend (backend_name, spec);
  pool = assay_sandbox_pool_new (backend, spec);
  for (guint i = 0; i < PREWARM_RUNS; i++)
    {
      g_autoptr(AssayKernelSession) fresh = NULL;
      g_autoptr(AssayCellResult) cell = NULL;

      assay_sandbox_pool_prewarm (pool);
      iterate_until (pool_ready, pool);
      t0 = g_get_monotonic_time ();
      fresh = assay_sandbox_pool_take_session (pool, out_dir);
      g_assert_true (assay_kernel_session_add_dataset (fresh, csv, &error));
      cell = harness_run (fresh, "import pandas as pd, matplotlib.pyplot as plt\nprint(pd.__version__)");
      prewarmed_wall[i] = (g_get_monotonic_time () - t0) / 1000.0;
      prewarmed[i] = assay_cell_result_get_elapsed_us (cell) / 1000.0;
      g_assert_cmpint (assay_cell_result_get_status (cell), ==, ASSAY_CELL_OK);
      harness_close_and_check (fresh, backend_name);
    }
  printf ("first cell of a new session with a pre-warmed sandbox: median %.1f ms (send to done), %.1f ms wall (take + dataset + cell), over %d sessions\n",
          median (prewarmed, PREWARM_RUNS), median (prewarmed_wall, PREWARM_RUNS), PREWARM_RUNS);
  printf ("ratio cold start / pre-warmed first cell: %.0fx\n",
          cold_start_ms / MAX (median (prewarmed_wall, PREWARM_RUNS), 1.0));
  g_clear_object (&pool);

  {
    const char *argv[] = { "rm", "-rf", out_dir, NULL };
    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = g_dir_make_tmp ("assay-bench-data-XXXXXX", NULL);
  g_autofree char *csv = NULL;
  const char *only = g_getenv ("ASSAY_BENCH_BACKEND");

  g_chmod (dir, 0755);
  csv = write_sales_csv (dir);
  g_chmod (csv, 0644);
  printf ("Assay sandbox benchmark: 45,000-row CSV, same image for every figure\n");
  if (only == NULL || g_str_equal (only, "docker"))
    bench_backend ("docker", csv);
  if (only == NULL || g_str_equal (only, "bwrap"))
    bench_backend ("bwrap", csv);
  g_unlink (csv);
  g_rmdir (dir);
  return 0;
}
