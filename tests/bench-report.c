/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What an export costs: a synthetic session of about 20 pages with 10 figures, exported as
 * PDF, HTML and notebook, against a baseline measured in the same run: merely loading the
 * session record and decoding its PNGs. Prints the figures; never fails on timing. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>
#include <glib/gstdio.h>

#include "assay-report.h"
#include "assay-session.h"

#define N_QUESTIONS        5
#define CELLS_PER_QUESTION 2
#define ROUNDS             5

static void
write_figure (const char *path,
              guint       seed)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 960, 540);
  cairo_t *cr = cairo_create (surface);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  for (guint i = 0; i < 24; i++)
    {
      double height = 80 + 380 * fabs (sin (seed * 1.7 + i * 0.45));

      cairo_set_source_rgb (cr, 0.23, 0.46, 0.69 - 0.02 * (i % 8));
      cairo_rectangle (cr, 40 + i * 37, 500 - height, 28, height);
      cairo_fill (cr);
    }
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_line_width (cr, 2);
  cairo_move_to (cr, 30, 500);
  cairo_line_to (cr, 940, 500);
  cairo_stroke (cr);
  cairo_surface_write_to_png (surface, path);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static JsonObject *
stream_output (const char *text)
{
  JsonObject *output = json_object_new ();

  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", "stdout");
  json_object_set_string_member (output, "text", text);
  return output;
}

static JsonObject *
table_output (guint seed)
{
  JsonObject *output = json_object_new ();
  JsonObject *data = json_object_new ();
  GString *html = g_string_new ("<table border=\"1\" class=\"dataframe\"><thead><tr><th></th>"
                                "<th>region</th><th>orders</th><th>revenue</th><th>avg_order</th>"
                                "<th>customers</th><th>growth_pct</th></tr></thead><tbody>");
  GString *plain = g_string_new ("   region  orders  revenue\n");

  for (guint r = 0; r < 10; r++)
    {
      g_string_append_printf (html, "<tr><th>%u</th><td>Region %u</td><td>%u</td><td>%.2f</td>"
                                    "<td>%.1f</td><td>%u</td><td>%+.1f</td></tr>",
                              r, r + seed, 1000 + r * 37, 47504.3 * (r + 1), 300.5 + r, 1448 + r,
                              (double) r - 7.5);
      g_string_append_printf (plain, "%u  Region %u  %u\n", r, r + seed, 1000 + r * 37);
    }
  g_string_append (html, "</tbody></table>");
  json_object_set_string_member (data, "text/html", html->str);
  json_object_set_string_member (data, "text/plain", plain->str);
  json_object_set_string_member (output, "output_type", "execute_result");
  json_object_set_int_member (output, "execution_count", seed);
  json_object_set_object_member (output, "data", data);
  json_object_set_object_member (output, "metadata", json_object_new ());
  g_string_free (html, TRUE);
  g_string_free (plain, TRUE);
  return output;
}

static const char paragraph[] =
  "The clean data covers **1 July to 30 September**. Revenue grew in August and held flat in "
  "September, while the number of orders kept rising slightly; the average order fell from "
  "EUR 314 to EUR 309. Выручка за квартал выросла, а средний чек немного снизился. The biggest "
  "loss in the funnel is between visit and cart, where 44% of visitors leave. ";

static char *
make_session (const char *dir)
{
  g_autofree char *session_dir = g_build_filename (dir, "session", NULL);
  g_autofree char *csv = g_build_filename (dir, "sales.csv", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (session_dir, &error);
  g_autoptr(GString) rows = g_string_new ("date,region,amount\n");
  guint figure = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (rows, "2026-07-%02u,Region %u,%u.50\n", 1 + i % 28, i % 12, 10 + i % 900);
  g_assert_true (g_file_set_contents (csv, rows->str, rows->len, NULL));
  g_assert_nonnull (assay_session_add_dataset (session, csv, NULL, &error));
  assay_session_set_title (session, "Quarterly sales: a benchmark report");

  for (guint q = 0; q < N_QUESTIONS; q++)
    {
      g_autofree char *question = g_strdup_printf ("Question %u about the quarter's sales, by region and month?", q + 1);
      g_autoptr(GString) answer = g_string_new ("## Summary\n\n");

      assay_session_append_message (session, assay_llm_message_new_user (question));
      for (guint c = 0; c < CELLS_PER_QUESTION; c++)
        {
          g_autofree char *id = assay_session_next_cell_id (session);
          g_autofree char *call_id = g_strdup_printf ("call_%s", id);
          g_autofree char *png_name = g_strdup_printf ("%s-chart.png", id);
          g_autofree char *png_rel = g_build_filename ("artifacts", png_name, NULL);
          g_autofree char *png_path = g_build_filename (session_dir, png_rel, NULL);
          g_autoptr(GString) code = g_string_new ("import pandas as pd\nimport matplotlib.pyplot as plt\n\n");
          g_autoptr(GString) out = g_string_new (NULL);
          AssayLlmMessage *message;
          AssaySessionCell *cell;
          AssayArtifact *artifact;
          g_autofree char *text = g_strdup_printf ("%s%s", paragraph, paragraph);

          for (guint l = 0; l < 12; l++)
            g_string_append_printf (code, "step_%u = df.groupby(\"region\")[\"amount\"].agg([\"sum\", \"mean\", \"count\"])  # line %u\n", l, l);
          for (guint l = 0; l < 16; l++)
            g_string_append_printf (out, "Region %-3u orders %6u  revenue %12.2f  share %5.1f%%\n", l, 100 + l * 7, 1234.5 * (l + 1), 3.3);

          message = assay_llm_message_new_assistant (text);
          g_ptr_array_add (message->tool_calls, assay_llm_tool_call_new (call_id, "execute_python", "{}"));
          assay_session_append_message (session, message);

          cell = assay_session_cell_new (id, q * CELLS_PER_QUESTION + c + 1, call_id,
                                         "Revenue per region with a chart", code->str);
          cell->code = g_strdup (code->str);
          cell->decision = ASSAY_DECISION_AUTO;
          cell->status = ASSAY_CELL_OK;
          cell->started_at = g_get_real_time ();
          cell->finished_at = cell->started_at + 100000;
          cell->elapsed_ms = 100;
          json_array_add_object_element (cell->outputs, stream_output (out->str));
          json_array_add_object_element (cell->outputs, table_output (++figure));
          write_figure (png_path, figure);
          artifact = g_new0 (AssayArtifact, 1);
          artifact->name = g_strdup ("chart.png");
          artifact->path = g_strdup (png_rel);
          artifact->mime = g_strdup ("image/png");
          g_ptr_array_add (cell->artifacts, artifact);
          assay_session_add_cell (session, cell);
          assay_session_append_message (session, assay_llm_message_new_tool (call_id, "Status: ok", FALSE));
        }
      g_string_append (answer, paragraph);
      g_string_append (answer, "\n\n| Month | Orders | Revenue |\n| --- | ---: | ---: |\n"
                               "| July | 1,610 | 475,046 |\n| August | 1,898 | 588,967 |\n| September | 1,927 | 587,580 |\n\n"
                               "- visits to carts: 55.7%\n- carts to checkouts: 64.0%\n- checkouts to purchases: 75.2%\n");
      assay_session_append_message (session, assay_llm_message_new_assistant (answer->str));
      assay_session_finish_step (session);
    }
  assay_session_set_outcome (session, "answered", "done");
  g_assert_true (assay_session_save (session, &error));
  return g_steal_pointer (&session_dir);
}

static guint
pdf_pages (const char *path)
{
  g_autofree char *contents = NULL;
  gsize length;
  guint pages = 0;

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return 0;
  /* The page tree's /Count; cairo writes one /Pages object. */
  for (const char *p = contents;
       (p = memmem (p, length - (p - contents), "/Type /Pages", 12)) != NULL; p++)
    {
      const char *count = memmem (p, MIN (4096, length - (p - contents)), "/Count ", 7);

      if (count)
        pages = MAX (pages, (guint) g_ascii_strtoull (count + 7, NULL, 10));
    }
  return pages;
}

static double
baseline_ms (const char *session_dir)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (session_dir, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);

      for (guint j = 0; j < cell->artifacts->len; j++)
        {
          AssayArtifact *artifact = g_ptr_array_index (cell->artifacts, j);
          g_autofree char *path = assay_session_resolve (session, artifact->path);
          cairo_surface_t *image = cairo_image_surface_create_from_png (path);

          g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
          cairo_surface_destroy (image);
        }
    }
  return (g_get_monotonic_time () - start) / 1000.0;
}

static double
export_ms (const char        *session_dir,
           const AssayReportFormat *format,
           const char        *path)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (session_dir, &error);
  AssayReportOptions options;

  g_assert_no_error (error);
  assay_report_options_init (&options);
  options.format = format;
  g_assert_true (assay_report_export (session, &options, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  return (g_get_monotonic_time () - start) / 1000.0;
}

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
  return values[n / 2];
}

int
main (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-bench-report-XXXXXX", NULL);
  g_autofree char *session_dir = make_session (dir);
  const AssayReportFormat *formats[] = { assay_report_format_lookup ("pdf"), assay_report_format_lookup ("html"),
                                               assay_report_format_lookup ("ipynb") };
  double base[ROUNDS], times[G_N_ELEMENTS (formats)][ROUNDS];
  double base_median;
  g_autofree char *pdf = g_build_filename (dir, "report.pdf", NULL);

  /* Warm the font caches once, as the app would have. */
  export_ms (session_dir, assay_report_format_lookup ("pdf"), pdf);
  for (guint r = 0; r < ROUNDS; r++)
    {
      base[r] = baseline_ms (session_dir);
      for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
        {
          g_autofree char *name = g_strdup_printf ("report.%s", assay_report_format_get_name (formats[f]));
          g_autofree char *path = g_build_filename (dir, name, NULL);

          times[f][r] = export_ms (session_dir, formats[f], path);
        }
    }
  base_median = median (base, ROUNDS);
  printf ("# bench-report: %u questions, %u cells, %u figures; median of %u runs\n",
          N_QUESTIONS, N_QUESTIONS * CELLS_PER_QUESTION, N_QUESTIONS * CELLS_PER_QUESTION, ROUNDS);
  printf ("baseline (load the record, decode the 10 PNGs): %.1f ms\n", base_median);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autofree char *name = g_strdup_printf ("report.%s", assay_report_format_get_name (formats[f]));
      g_autofree char *path = g_build_filename (dir, name, NULL);
      GStatBuf st;
      double ms = median (times[f], ROUNDS);

      g_stat (path, &st);
      printf ("%-5s export: %7.1f ms (%.1f× the baseline), %lld KiB",
              assay_report_format_get_name (formats[f]), ms, ms / base_median,
              (long long) st.st_size / 1024);
      if (formats[f] == assay_report_format_lookup ("pdf"))
        printf (", %u pages%s", pdf_pages (path), ms < 1000 ? ", under 1 s" : ", OVER 1 s");
      printf ("\n");
      g_unlink (path);
    }

  {
    g_autoptr(GError) error = NULL;

    assay_session_delete (session_dir, &error);
    g_unlink (g_build_filename (dir, "sales.csv", NULL));
    g_rmdir (dir);
  }
  return 0;
}
