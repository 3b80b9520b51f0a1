/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Masking 100 KB of cell output (DataFrame-like rows naming customers and products) with
 * 100,000 masked values (the figure: at most 5 ms). The baseline, measured in the
 * same run, is what any pass over the text costs: checking it is UTF-8 and copying it.
 * Then the same rows as to_json writes them (\u00fc escapes, \/): text the masker reads
 * twice, decoded and as it is. Prints figures; never fails on them. */
#include "config.h"

#include <string.h>

#include "assay-masker.h"

#define N_VALUES 100000
#define TEXT_BYTES (100 * 1024)
#define ROUNDS 21

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

static void
time_masking (AssayMasker *masker,
              GString     *text,
              const char  *what)
{
  g_autoptr(GArray) baseline = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) masking = g_array_new (FALSE, FALSE, sizeof (double));
  guint replaced = 0;
  double base_ms, mask_ms;

  for (guint r = 0; r < ROUNDS; r++)
    {
      g_autofree char *copy = NULL;
      g_autofree char *masked = NULL;
      gint64 start;
      double ms;

      start = g_get_monotonic_time ();
      if (g_utf8_validate (text->str, text->len, NULL))
        copy = g_strndup (text->str, text->len);
      ms = (g_get_monotonic_time () - start) / 1000.0;
      g_array_append_val (baseline, ms);

      start = g_get_monotonic_time ();
      masked = assay_masker_mask (masker, text->str);
      ms = (g_get_monotonic_time () - start) / 1000.0;
      g_array_append_val (masking, ms);
      replaced = assay_masker_get_last_count (masker);
    }
  base_ms = median (baseline);
  mask_ms = median (masking);
  g_print ("# %s: %zu bytes of output, %u values replaced\n", what, text->len, replaced);
  g_print ("%s: baseline (validate + copy): %.3f ms\n", what, base_ms);
  g_print ("%s: masking: %.3f ms per 100 KB with %u masked values (target: at most 5 ms)\n", what,
           mask_ms * TEXT_BYTES / text->len, assay_masker_get_n_values (masker));
  g_print ("%s: ratio masking / baseline: %.1f\n", what, base_ms > 0 ? mask_ms / base_ms : 0);
}

int
main (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  GRand *rand = g_rand_new_with_seed (7);
  guint customers = assay_masker_add_column (masker, "sales.csv", "customer_id");
  guint names = assay_masker_add_column (masker, "sales.csv", "name");
  gint64 start;

  start = g_get_monotonic_time ();
  for (guint i = 0; i < N_VALUES / 2; i++)
    {
      char value[64];

      g_snprintf (value, sizeof value, "CUST-%06u", 100000 + i);
      assay_masker_add_value (masker, customers, value, strlen (value));
      g_snprintf (value, sizeof value, "Person %u Surname%c", i, 'A' + i % 26);
      assay_masker_add_value (masker, names, value, strlen (value));
    }
  g_print ("# %u masked values collected in %.1f ms, %.1f MB of memory\n", assay_masker_get_n_values (masker),
           (g_get_monotonic_time () - start) / 1000.0, assay_masker_get_memory (masker) / 1e6);

  /* Rows as print(df) writes them: an index, a customer, a name, numbers, a date. */
  while (text->len < TEXT_BYTES)
    {
      guint i = g_rand_int_range (rand, 0, N_VALUES / 2);

      g_string_append_printf (text, "%6u  CUST-%06u  %-24s  %10.2f  2026-%02d-%02d  %s\n",
                              (guint) (text->len / 80), 100000 + (g_rand_int_range (rand, 0, 3) ? i : N_VALUES + i),
                              g_rand_boolean (rand) ? "Someone Else" : "Person 17 SurnameR",
                              g_rand_double_range (rand, 0, 1e5), g_rand_int_range (rand, 1, 13),
                              g_rand_int_range (rand, 1, 29), g_rand_boolean (rand) ? "purchase" : "visit");
    }

  time_masking (masker, text, "print(df)");

  /* The same rows as df.to_json (orient='records') writes them: every name's non-ASCII
   * letter a \u escape, every / of a URL \/ (the masker reads such text twice). */
  g_string_truncate (text, 0);
  while (text->len < TEXT_BYTES)
    {
      guint i = g_rand_int_range (rand, 0, N_VALUES / 2);

      g_string_append_printf (text, "{\"customer_id\":\"CUST-%06u\",\"name\":\"%s\",\"city\":\"M\\u00fcnchen\","
                              "\"url\":\"https:\\/\\/shop.example.org\\/c\\/%u\",\"amount\":%.2f},",
                              100000 + (g_rand_int_range (rand, 0, 3) ? i : N_VALUES + i),
                              g_rand_boolean (rand) ? "Someone Else" : "Person 17 SurnameR",
                              i, g_rand_double_range (rand, 0, 1e5));
    }
  time_masking (masker, text, "to_json");
  g_rand_free (rand);
  return 0;
}
