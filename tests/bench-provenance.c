/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Provenance of a 2,000-word answer against 50 cells holding 1 MB of output (DataFrame-like
 * tables and printed values), read whole (a record that does not say what the model read)
 * and as the agent's model reads it (6,000 bytes a cell, head and tail). Most of the answer's
 * percentages match a share only by chance among thousands: weak, found only after reading
 * the labels of every candidate. The baseline, measured in the same run, is reading the same
 * outputs through AssayCellOutput (what any use of them costs). Prints figures; never fails
 * on them. */
#include "config.h"

#include <string.h>

#include "assay-cell-output.h"
#include "assay-provenance.h"

#define N_CELLS 50
#define OUTPUT_BYTES (1024 * 1024)
#define ROUNDS 15

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (GArray *values)
{
  g_array_sort (values, compare_doubles);
  return g_array_index (values, double, values->len / 2);
}

int
main (void)
{
  g_autoptr(GPtrArray) outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  g_autoptr(GArray) sources = g_array_new (FALSE, FALSE, sizeof (AssayProvenanceSource));
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(GArray) baseline = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) traced = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) traced_read = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) read_sources = g_array_new (FALSE, FALSE, sizeof (AssayProvenanceSource));
  guint n_untraced_read = 0;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  GRand *rand = g_rand_new_with_seed (42);
  gsize total = 0;
  guint words = 0, n_numbers = 0, n_untraced = 0;

  /* 50 cells of about 20 KB each: tables of rows "idx  region  value  share". */
  for (guint c = 0; c < N_CELLS; c++)
    {
      JsonArray *array = json_array_new ();
      JsonObject *stream = json_object_new ();
      g_autoptr(GString) text = g_string_new (NULL);

      while (text->len < OUTPUT_BYTES / N_CELLS)
        g_string_append_printf (text, "%5u  region_%c  %12.2f  %6.4f\n", (guint) (text->len / 40),
                                'A' + g_rand_int_range (rand, 0, 26),
                                g_rand_double_range (rand, 0, 5e6), g_rand_double (rand));
      total += text->len;
      json_object_set_string_member (stream, "output_type", "stream");
      json_object_set_string_member (stream, "name", "stdout");
      json_object_set_string_member (stream, "text", text->str);
      json_array_add_object_element (array, stream);
      g_ptr_array_add (outputs, array);
      g_ptr_array_add (ids, g_strdup_printf ("c%u", c + 1));
    }
  for (guint c = 0; c < N_CELLS; c++)
    {
      AssayProvenanceSource source = { g_ptr_array_index (ids, c), g_ptr_array_index (outputs, c), 0 };
      AssayProvenanceSource read = { g_ptr_array_index (ids, c), g_ptr_array_index (outputs, c), 6000 };

      g_array_append_val (sources, source);
      g_array_append_val (read_sources, read);
    }

  /* 2,000 words of prose, one number in about eight words, half of them printed. */
  while (words < 2000)
    {
      if (words % 8 == 0)
        {
          if (g_rand_boolean (rand))
            g_string_append_printf (answer, "%s ", "EUR 1,234,567");
          else
            g_string_append_printf (answer, "%.1f%% ", g_rand_double_range (rand, 0, 100));
        }
      else
        g_string_append (answer, words % 17 == 0 ? "regions.\n\n" : "revenue ");
      words++;
    }

  for (guint round = 0; round < ROUNDS; round++)
    {
      gint64 start = g_get_monotonic_time ();
      gsize bytes = 0;

      for (guint c = 0; c < N_CELLS; c++)
        {
          JsonArray *array = g_ptr_array_index (outputs, c);
          for (guint k = 0; k < json_array_get_length (array); k++)
            {
              g_autoptr(AssayCellOutput) output = assay_cell_output_read (json_array_get_element (array, k));
              bytes += strlen (output->text);
            }
        }
      g_assert_cmpuint (bytes, ==, total);
      g_array_append_val (baseline, (double) { (g_get_monotonic_time () - start) / 1000.0 });

      start = g_get_monotonic_time ();
      {
        g_autoptr(AssayProvenance) provenance =
          assay_provenance_trace (answer->str, (gssize) answer->len,
                                  (AssayProvenanceSource *) (gpointer) sources->data, sources->len);
        double ms = (g_get_monotonic_time () - start) / 1000.0;

        g_array_append_val (traced, ms);
        n_numbers = provenance->numbers->len;
        n_untraced = assay_provenance_count_untraced (provenance);
      }
      start = g_get_monotonic_time ();
      {
        g_autoptr(AssayProvenance) provenance =
          assay_provenance_trace (answer->str, (gssize) answer->len,
                                  (AssayProvenanceSource *) (gpointer) read_sources->data, read_sources->len);
        double ms = (g_get_monotonic_time () - start) / 1000.0;

        g_array_append_val (traced_read, ms);
        n_untraced_read = assay_provenance_count_untraced (provenance);
      }
    }

  {
    double base = median (baseline), trace = median (traced), trace_read = median (traced_read);

    g_print ("provenance: answer %u words, %u numbers (%u untraced); %u cells, %.2f MB of output\n",
             words, n_numbers, n_untraced, N_CELLS, total / 1048576.0);
    g_print ("  baseline (read the outputs): median %.2f ms\n", base);
    g_print ("  trace the answer (all read): median %.2f ms  (%.1f× the baseline; goal ≤ 20 ms)\n",
             trace, base > 0 ? trace / base : 0);
    g_print ("  as the model read it:        median %.2f ms  (%.1f× the baseline; %u untraced; goal ≤ 20 ms)\n",
             trace_read, base > 0 ? trace_read / base : 0, n_untraced_read);
  }
  g_rand_free (rand);
  return 0;
}
