/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The price table: the shipped data/prices.json, lookups by name, snapshot, router prefix and
 * date, a request's cost against figures worked out by hand, the analyst's overrides in the
 * config folder, broken tables refused in words, saving and reading back, and how a cost is
 * written. Each test runs with its own XDG_CONFIG_HOME (G_TEST_OPTION_ISOLATE_DIRS). */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "assay-prices.h"

/* Every model the shipped table must price. */
static const char * const shipped_models[] = {
  "gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "o3", "o4-mini",
  "gpt-5", "gpt-5-mini", "claude-opus-4-1", "claude-sonnet-4-5", "claude-sonnet-4",
  "claude-3-5-haiku", "claude-haiku-4-5",
};

static gint64
utc (int year,
     int month,
     int day,
     int hour,
     int minute,
     int second)
{
  g_autoptr(GDateTime) when = g_date_time_new_utc (year, month, day, hour, minute, second);

  return g_date_time_to_unix (when) * G_USEC_PER_SEC;
}

static AssayPriceTable *
shipped_table (void)
{
  g_autoptr(GError) error = NULL;
  AssayPriceTable *table = assay_price_table_new_shipped (&error);

  g_assert_no_error (error);
  g_assert_nonnull (table);
  return table;
}

static void
write_user_file (const char *contents)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = assay_price_table_get_user_path ();
  g_autofree char *folder = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static void
assert_price (const AssayPrice *price,
              const char       *model,
              double            input)
{
  g_assert_nonnull (price);
  g_assert_cmpstr (price->model, ==, model);
  g_assert_cmpfloat_with_epsilon (price->input, input, 1e-9);
}

static void
test_shipped (void)
{
  g_autoptr(AssayPriceTable) table = shipped_table ();
  g_autoptr(GPtrArray) prices = assay_price_table_get_prices (table);
  const char *updated = assay_price_table_get_updated (table);

  g_assert_cmpstr (g_getenv ("ASSAY_PRICES_FILE"), ==, PRICES_FILE);
  g_assert_nonnull (updated);
  g_assert_true (g_regex_match_simple ("^20[0-9]{2}-[0-9]{2}-[0-9]{2}$", updated, 0, 0));

  for (guint i = 0; i < G_N_ELEMENTS (shipped_models); i++)
    {
      const AssayPrice *price = assay_price_table_lookup (table, shipped_models[i], 0);

      g_assert_nonnull (price);
      g_assert_cmpstr (price->model, ==, shipped_models[i]);
      g_assert_cmpfloat (price->input, >, 0);
      g_assert_cmpfloat (price->output, >=, price->input);
      /* A cache read is the cheapest input; a cache write, where one is priced, costs more. */
      g_assert_cmpfloat (price->cached_input, <, price->input);
      if (g_str_has_prefix (shipped_models[i], "claude-"))
        g_assert_cmpfloat (price->cache_write, >, price->input);
      else
        g_assert_cmpfloat (price->cache_write, <, 0);
    }

  /* Sorted by model, then since with the undated entry first. */
  g_assert_cmpuint (prices->len, >=, G_N_ELEMENTS (shipped_models));
  for (guint i = 1; i < prices->len; i++)
    {
      const AssayPrice *a = g_ptr_array_index (prices, i - 1);
      const AssayPrice *b = g_ptr_array_index (prices, i);
      int order = strcmp (a->model, b->model);

      g_assert_cmpint (order, <=, 0);
      if (order == 0)
        {
          g_assert_nonnull (b->since);
          g_assert_true (a->since == NULL || strcmp (a->since, b->since) < 0);
        }
    }
}

static void
test_lookup (void)
{
  g_autoptr(AssayPriceTable) table = shipped_table ();
  static const struct { const char *asked; const char *found; double input; } cases[] = {
    /* Exact names. */
    { "gpt-4.1", "gpt-4.1", 2.00 },
    { "claude-sonnet-4-5", "claude-sonnet-4-5", 3.00 },
    /* Dated snapshots find their model... */
    { "gpt-4.1-2025-04-14", "gpt-4.1", 2.00 },
    { "claude-3-5-haiku-20241022", "claude-3-5-haiku", 0.80 },
    { "claude-haiku-4-5-20251001", "claude-haiku-4-5", 1.00 },
    /* ...the longest name they start with: not "gpt-4.1", "claude-sonnet-4" or
     * "claude-opus-4", which they also start with. */
    { "gpt-4.1-mini-2025-04-14", "gpt-4.1-mini", 0.40 },
    { "gpt-4o-mini-2024-07-18", "gpt-4o-mini", 0.15 },
    { "claude-sonnet-4-5-20250929", "claude-sonnet-4-5", 3.00 },
    { "claude-sonnet-4-20250514", "claude-sonnet-4", 3.00 },
    { "claude-opus-4-1-20250805", "claude-opus-4-1", 15.00 },
    /* An exact entry beats the prefix: the first gpt-4o snapshot kept its launch price. */
    { "gpt-4o-2024-05-13", "gpt-4o-2024-05-13", 5.00 },
    { "gpt-4o-2024-08-06", "gpt-4o", 2.50 },
    /* A router's provider prefix is ignored. */
    { "openai/gpt-4o-mini", "gpt-4o-mini", 0.15 },
    { "anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5", 3.00 },
  };
  static const char * const unknown[] = {
    "llama3.1:8b", "gpt", "gpt-4", "gpt-4.10", "gpt-4.1x", "claude", "mistral/gpt-4.1",
    "", "openai/", "GPT-4.1",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_price (assay_price_table_lookup (table, cases[i].asked, 0), cases[i].found, cases[i].input);
  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    g_assert_null (assay_price_table_lookup (table, unknown[i], 0));
  g_assert_null (assay_price_table_lookup (table, NULL, 0));

  {
    g_autoptr(AssayPriceTable) empty = assay_price_table_new ();

    g_assert_null (assay_price_table_lookup (empty, "gpt-4.1", 0));
    g_assert_null (assay_price_table_get_updated (empty));
  }
}

static void
test_since (void)
{
  g_autoptr(AssayPriceTable) table = assay_price_table_new ();
  g_autoptr(AssayPriceTable) shipped = shipped_table ();
  g_autoptr(GError) error = NULL;
  /* Out of order on purpose: the table sorts them. */
  const char *json =
    "{\"models\": ["
    " {\"model\": \"m\", \"since\": \"2025-06-10\", \"input\": 3, \"output\": 3},"
    " {\"model\": \"m\", \"input\": 1, \"output\": 1},"
    " {\"model\": \"m\", \"since\": \"2025-03-01\", \"input\": 2, \"output\": 2},"
    " {\"model\": \"dated\", \"since\": \"2025-03-01\", \"input\": 4, \"output\": 4},"
    " {\"model\": \"dated\", \"since\": \"2025-09-01\", \"input\": 5, \"output\": 5}"
    "]}";

  assay_price_table_load_data (table, json, -1, &error);
  g_assert_no_error (error);

  assert_price (assay_price_table_lookup (table, "m", utc (2024, 12, 31, 23, 59, 59)), "m", 1);
  assert_price (assay_price_table_lookup (table, "m", utc (2025, 3, 1, 0, 0, 0)), "m", 2);
  assert_price (assay_price_table_lookup (table, "m", utc (2025, 6, 9, 23, 59, 59)), "m", 2);
  assert_price (assay_price_table_lookup (table, "m", utc (2025, 6, 10, 0, 0, 0)), "m", 3);
  assert_price (assay_price_table_lookup (table, "m-2025-01-01", utc (2025, 6, 10, 12, 0, 0)), "m", 3);
  /* 0 is now, after every date. */
  assert_price (assay_price_table_lookup (table, "m", 0), "m", 3);
  g_assert_cmpstr (assay_price_table_lookup (table, "m", 0)->since, ==, "2025-06-10");
  g_assert_null (assay_price_table_lookup (table, "m", utc (2025, 1, 1, 0, 0, 0))->since);

  /* Before the first date of a model without an undated entry: its first price. */
  assert_price (assay_price_table_lookup (table, "dated", utc (2024, 1, 1, 0, 0, 0)), "dated", 4);
  assert_price (assay_price_table_lookup (table, "dated", utc (2025, 8, 31, 0, 0, 0)), "dated", 4);
  assert_price (assay_price_table_lookup (table, "dated", utc (2025, 9, 1, 0, 0, 0)), "dated", 5);

  /* The shipped o3: $10/$40 at launch on 2025-04-16, $2/$8 from 2025-06-10. */
  assert_price (assay_price_table_lookup (shipped, "o3-2025-04-16", utc (2025, 5, 1, 9, 0, 0)), "o3", 10.00);
  assert_price (assay_price_table_lookup (shipped, "o3", utc (2025, 7, 1, 9, 0, 0)), "o3", 2.00);
  assert_price (assay_price_table_lookup (shipped, "o3", 0), "o3", 2.00);
  /* o3-mini is its own model, not a snapshot of o3. */
  assert_price (assay_price_table_lookup (shipped, "o3-mini-2025-01-31", 0), "o3-mini", 1.10);
}

static void
test_cost (void)
{
  g_autoptr(AssayPriceTable) table = shipped_table ();
  const AssayPrice *gpt = assay_price_table_lookup (table, "gpt-4.1-2025-04-14", 0);
  const AssayPrice *sonnet = assay_price_table_lookup (table, "claude-sonnet-4-5-20250929", 0);
  const AssayPrice *old_gpt_4o = assay_price_table_lookup (table, "gpt-4o-2024-05-13", 0);

  g_assert_nonnull (gpt);
  g_assert_nonnull (sonnet);
  g_assert_nonnull (old_gpt_4o);

  /* OpenAI, gpt-4.1 at $2.00 input, $0.50 cached input, $8.00 output per 1M tokens:
   * 120,000 input tokens of which 100,000 cached, 2,500 output (OpenAI reports no writes):
   *   (120,000 - 100,000) × 2.00 = 40,000
   *              100,000  × 0.50 = 50,000
   *                2,500  × 8.00 = 20,000
   *   110,000 / 1e6 = $0.11 */
  {
    AssayTokenUsage usage = { 120000, 100000, -1, 2500 };

    g_assert_cmpfloat_with_epsilon (assay_price_cost (gpt, &usage), 0.11, 1e-12);
  }

  /* Anthropic, claude-sonnet-4-5 at $3.00 input, $0.30 cache read, $3.75 cache write,
   * $15.00 output: the server's input_tokens 10,000 + cache_read_input_tokens 40,000 +
   * cache_creation_input_tokens 10,000 = 60,000 input tokens in all; 1,500 output:
   *   (60,000 - 40,000 - 10,000) × 3.00 = 30,000
   *                       40,000 × 0.30 = 12,000
   *                       10,000 × 3.75 = 37,500
   *                        1,500 × 15.00 = 22,500
   *   102,000 / 1e6 = $0.102 */
  {
    AssayTokenUsage usage = { 60000, 40000, 10000, 1500 };

    g_assert_cmpfloat_with_epsilon (assay_price_cost (sonnet, &usage), 0.102, 1e-12);
  }

  /* Unknown cache counts are 0: all 120,000 input tokens at $2.00, 2,500 output at $8.00:
   * 240,000 + 20,000 = 260,000 / 1e6 = $0.26. */
  {
    AssayTokenUsage usage = { 120000, -1, -1, 2500 };

    g_assert_cmpfloat_with_epsilon (assay_price_cost (gpt, &usage), 0.26, 1e-12);
  }
  /* Input unknown, 1,000 output at $8.00: $0.008; output unknown, 1,000 input at $2.00:
   * $0.002; both unknown: nothing known. */
  {
    AssayTokenUsage output_only = { -1, -1, -1, 1000 };
    AssayTokenUsage input_only = { 1000, -1, -1, -1 };
    AssayTokenUsage nothing = { -1, -1, -1, -1 };
    AssayTokenUsage zero = { 0, 0, 0, 0 };

    g_assert_cmpfloat_with_epsilon (assay_price_cost (gpt, &output_only), 0.008, 1e-12);
    g_assert_cmpfloat_with_epsilon (assay_price_cost (gpt, &input_only), 0.002, 1e-12);
    g_assert_cmpfloat (assay_price_cost (gpt, &nothing), ==, -1);
    g_assert_cmpfloat (assay_price_cost (gpt, &zero), ==, 0);
    g_assert_cmpfloat (assay_price_cost (NULL, &zero), ==, -1);
  }
  /* A model without a cached price (the first gpt-4o snapshot, $5.00 input): cached input
   * costs as much as the rest: 1,000 × 5.00 / 1e6 = $0.005. */
  {
    AssayTokenUsage usage = { 1000, 500, -1, 0 };

    g_assert_cmpfloat (old_gpt_4o->cached_input, <, 0);
    g_assert_cmpfloat_with_epsilon (assay_price_cost (old_gpt_4o, &usage), 0.005, 1e-12);
  }
  /* Counts that do not add up (more cached than input) never cost less than nothing:
   * 0 uncached, 200 cached × 0.50 = 100 / 1e6 = $0.0001. */
  {
    AssayTokenUsage usage = { 100, 200, -1, 0 };

    g_assert_cmpfloat_with_epsilon (assay_price_cost (gpt, &usage), 0.0001, 1e-12);
  }
}

static void
test_merge (void)
{
  g_autoptr(AssayPriceTable) table = assay_price_table_new ();
  g_autoptr(GPtrArray) prices = NULL;
  g_autoptr(GError) error = NULL;

  assay_price_table_load_data (table,
                               "{\"updated\": \"2025-01-01\", \"models\": ["
                               " {\"model\": \"x\", \"input\": 1, \"output\": 2},"
                               " {\"model\": \"x\", \"input\": 3, \"output\": 4},"
                               " {\"model\": \"x\", \"since\": \"2025-05-01\", \"input\": 5.5, \"output\": 6},"
                               " {\"model\": \" openai/y \", \"input\": 0, \"output\": 0}]}",
                               -1, &error);
  g_assert_no_error (error);
  /* Later entries of the same model and date replace earlier ones, in one text and across
   * texts; a router's prefix and surrounding spaces are not part of a name. */
  assay_price_table_load_data (table,
                               "{\"updated\": \"2030-01-01\", \"models\": ["
                               " {\"model\": \"x\", \"since\": \"2025-05-01\", \"input\": 7, \"output\": 8}]}",
                               -1, &error);
  g_assert_no_error (error);

  prices = assay_price_table_get_prices (table);
  g_assert_cmpuint (prices->len, ==, 3);
  assert_price (g_ptr_array_index (prices, 0), "x", 3);
  g_assert_null (((AssayPrice *) g_ptr_array_index (prices, 0))->since);
  assert_price (g_ptr_array_index (prices, 1), "x", 7);
  g_assert_cmpstr (((AssayPrice *) g_ptr_array_index (prices, 1))->since, ==, "2025-05-01");
  assert_price (g_ptr_array_index (prices, 2), "y", 0);
  /* The first date stays the table's. */
  g_assert_cmpstr (assay_price_table_get_updated (table), ==, "2025-01-01");

  /* LENGTH counts bytes: what follows is not read. */
  {
    const char *text = "{\"models\": [{\"model\": \"z\", \"input\": 1, \"output\": 1}]}trailing";

    assay_price_table_load_data (table, text, strlen (text) - strlen ("trailing"), &error);
    g_assert_no_error (error);
    assert_price (assay_price_table_lookup (table, "z", 0), "z", 1);
  }
}

static void
test_user_overrides (void)
{
  g_autoptr(AssayPriceTable) shipped = shipped_table ();
  g_autoptr(AssayPriceTable) table = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = assay_price_table_get_user_path ();
  g_autofree char *expected = g_build_filename (g_get_user_config_dir (), "assay", "prices.json", NULL);
  const AssayPrice *price;

  /* The test's own config folder (G_TEST_OPTION_ISOLATE_DIRS gives each test a new
   * XDG_CONFIG_HOME under a temporary folder), never the developer's. */
  g_assert_cmpstr (path, ==, expected);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* No user file: the shipped table alone. */
  table = assay_price_table_new_default (&error);
  g_assert_no_error (error);
  g_assert_nonnull (table);
  assert_price (assay_price_table_lookup (table, "gpt-4.1", 0), "gpt-4.1", 2.00);
  g_clear_pointer (&table, assay_price_table_unref);

  write_user_file ("{\"updated\": \"2031-01-01\", \"models\": ["
                   " {\"model\": \"gpt-4.1\", \"input\": 1.5, \"output\": 6},"
                   " {\"model\": \"gpt-4.1\", \"since\": \"2030-01-01\", \"input\": 5, \"output\": 20},"
                   " {\"model\": \"anthropic/claude-sonnet-4-5\", \"input\": 2.7, \"cached_input\": 0.27,"
                   "  \"cache_write\": 3.375, \"output\": 13.5},"
                   " {\"model\": \"qwen2.5-coder\", \"input\": 0, \"output\": 0}]}");
  table = assay_price_table_new_default (&error);
  g_assert_no_error (error);
  g_assert_nonnull (table);

  /* The user's gpt-4.1 replaces the shipped one whole: no cached price of its own, so cached
   * input costs as much as the rest. */
  price = assay_price_table_lookup (table, "gpt-4.1-2025-04-14", 0);
  assert_price (price, "gpt-4.1", 1.5);
  g_assert_cmpfloat (price->cached_input, <, 0);
  g_assert_cmpfloat_with_epsilon (price->output, 6, 1e-9);
  assert_price (assay_price_table_lookup (table, "gpt-4.1", utc (2030, 6, 1, 0, 0, 0)), "gpt-4.1", 5);
  assert_price (assay_price_table_lookup (table, "claude-sonnet-4-5-20250929", 0), "claude-sonnet-4-5", 2.7);
  assert_price (assay_price_table_lookup (table, "qwen2.5-coder-7b", 0), "qwen2.5-coder", 0);
  /* What the user did not touch is the shipped figure. */
  assert_price (assay_price_table_lookup (table, "gpt-4.1-mini", 0), "gpt-4.1-mini", 0.40);
  assert_price (assay_price_table_lookup (table, "claude-haiku-4-5", 0), "claude-haiku-4-5", 1.00);
  /* The date is the shipped table's, not the user file's. */
  g_assert_cmpstr (assay_price_table_get_updated (table), ==, assay_price_table_get_updated (shipped));
  {
    g_autoptr(GPtrArray) before = assay_price_table_get_prices (shipped);
    g_autoptr(GPtrArray) after = assay_price_table_get_prices (table);

    g_assert_cmpuint (after->len, ==, before->len + 2);
  }
}

static void
test_broken_user_file (void)
{
  static const struct { const char *contents; const char *says; } cases[] = {
    { "{\"models\": [{\"model\": \"gpt-4.1\", \"input\": -1, \"output\": 1}]}", "entry 1 (“gpt-4.1”): “input”" },
    { "{\"models\": [", "not valid JSON" },
    { "", "not valid JSON" },
  };
  g_autofree char *path = assay_price_table_get_user_path ();
  g_autofree char *display = g_filename_display_name (path);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(AssayPriceTable) table = NULL;

      write_user_file (cases[i].contents);
      table = assay_price_table_new_default (&error);
      g_assert_null (table);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, display));
      g_assert_nonnull (strstr (error->message, cases[i].says));
    }

  /* A shipped table that cannot be read is an error too. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *missing = g_build_filename (g_get_tmp_dir (), "assay-no-such-prices.json", NULL);

    g_setenv ("ASSAY_PRICES_FILE", missing, TRUE);
    g_assert_null (assay_price_table_new_default (&error));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
    g_setenv ("ASSAY_PRICES_FILE", PRICES_FILE, TRUE);
  }
}

static void
test_refused (void)
{
  static const struct { const char *json; const char *says; } cases[] = {
    { "[]", "not a price table" },
    { "{}", "no “models” list" },
    { "{\"models\": {}}", "no “models” list" },
    { "{\"models\": [1]}", "entry 1 of “models” is not an object" },
    { "{\"models\": [{\"input\": 1, \"output\": 1}]}", "entry 1 has no model name" },
    { "{\"models\": [{\"model\": \"\", \"input\": 1, \"output\": 1}]}", "entry 1 has no model name" },
    { "{\"models\": [{\"model\": \"   \", \"input\": 1, \"output\": 1}]}", "entry 1 has no model name" },
    { "{\"models\": [{\"model\": 7, \"input\": 1, \"output\": 1}]}", "entry 1 has no model name" },
    { "{\"models\": [{\"model\": \"a\\nb\", \"input\": 1, \"output\": 1}]}", "entry 1 has no model name" },
    { "{\"models\": [{\"model\": \"ok\", \"input\": 1, \"output\": 1},"
      " {\"model\": \"m\", \"since\": \"2025-02-30\", \"input\": 1, \"output\": 1}]}",
      "entry 2 (“m”): “since” must be a date" },
    { "{\"models\": [{\"model\": \"m\", \"since\": \"2025-2-3\", \"input\": 1, \"output\": 1}]}", "“since” must be a date" },
    { "{\"models\": [{\"model\": \"m\", \"since\": 20250203, \"input\": 1, \"output\": 1}]}", "“since” must be a date" },
    { "{\"models\": [{\"model\": \"m\", \"input\": \"1\", \"output\": 1}]}", "entry 1 (“m”): “input” must be a price" },
    { "{\"models\": [{\"model\": \"m\", \"input\": 10000, \"output\": 1}]}", "“input” must be a price" },
    { "{\"models\": [{\"model\": \"m\", \"input\": 1e999, \"output\": 1}]}", "“input” must be a price" },
    { "{\"models\": [{\"model\": \"m\", \"input\": 1, \"output\": -0.01}]}", "“output” must be a price" },
    { "{\"models\": [{\"model\": \"m\", \"input\": 1, \"cached_input\": [], \"output\": 1}]}", "“cached_input” must be a price" },
    { "{\"models\": [{\"model\": \"m\", \"input\": 1, \"cache_write\": true, \"output\": 1}]}", "“cache_write” must be a price" },
    { "{\"models\": [{\"model\": \"m\", \"input\": 1}]}", "entry 1 (“m”) has no “output” price" },
    { "{\"currency\": \"EUR\", \"models\": []}", "US dollars" },
    { "{\"unit\": \"per 1K tokens\", \"models\": []}", "per million tokens" },
    { "{\"updated\": \"yesterday\", \"models\": []}", "“updated” must be a date" },
    { "{\"models\": [] /* comment */}", "not valid JSON" },
    { "{\"models\": [{\"model\": 'm', \"input\": 1, \"output\": 1}]}", "not valid JSON" },
  };
  g_autoptr(AssayPriceTable) table = assay_price_table_new ();
  g_autofree char *long_name = g_strnfill (ASSAY_PRICE_MODEL_MAX + 1, 'a');
  g_autofree char *long_json = NULL;
  g_autofree char *longest_json = NULL;
  g_autoptr(GError) error = NULL;

  assay_price_table_load_data (table, "{\"models\": [{\"model\": \"kept\", \"input\": 1, \"output\": 1}]}", -1, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) case_error = NULL;

      g_assert_false (assay_price_table_load_data (table, cases[i].json, -1, &case_error));
      g_assert_error (case_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      if (strstr (case_error->message, cases[i].says) == NULL)
        g_error ("case %u: “%s” does not say “%s”", i, case_error->message, cases[i].says);
    }

  long_json = g_strdup_printf ("{\"models\": [{\"model\": \"%s\", \"input\": 1, \"output\": 1}]}", long_name);
  g_assert_false (assay_price_table_load_data (table, long_json, -1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  /* 200 characters, not bytes: 200 Cyrillic letters are 400 bytes. */
  {
    GString *name = g_string_new (NULL);

    for (guint i = 0; i < ASSAY_PRICE_MODEL_MAX; i++)
      g_string_append (name, "ж");
    longest_json = g_strdup_printf ("{\"models\": [{\"model\": \"%s\", \"input\": 9999.99, \"output\": 0}]}", name->str);
    g_string_free (name, TRUE);
  }
  g_assert_true (assay_price_table_load_data (table, longest_json, -1, &error));
  g_assert_no_error (error);

  /* A NUL inside the given length. */
  g_assert_false (assay_price_table_load_data (table, "{\"models\": []}\0x", 16, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Nothing of a refused text is merged, not even its good entries before the bad one. */
  g_assert_false (assay_price_table_load_data (table,
                                               "{\"models\": [{\"model\": \"kept\", \"input\": 2, \"output\": 2},"
                                               " {\"model\": \"bad\", \"input\": -2, \"output\": 2}]}",
                                               -1, &error));
  g_clear_error (&error);
  assert_price (assay_price_table_lookup (table, "kept", 0), "kept", 1);
  g_assert_null (assay_price_table_lookup (table, "bad", 0));

  /* A broken file is named in the message. */
  {
    g_autofree char *path = g_build_filename (g_get_user_config_dir (), "broken prices.json", NULL);
    g_autofree char *display = NULL;

    g_assert_cmpint (g_mkdir_with_parents (g_get_user_config_dir (), 0700), ==, 0);
    g_file_set_contents (path, "{\"models\": [{\"model\": \"m\", \"input\": 1, \"output\": 99999}]}", -1, &error);
    g_assert_no_error (error);
    display = g_filename_display_name (path);
    g_assert_false (assay_price_table_load_file (table, path, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_nonnull (strstr (error->message, display));
    g_assert_nonnull (strstr (error->message, "entry 1 (“m”): “output”"));
    g_clear_error (&error);
  }
}

static void
assert_same_prices (AssayPriceTable *a,
                    AssayPriceTable *b)
{
  g_autoptr(GPtrArray) pa = assay_price_table_get_prices (a);
  g_autoptr(GPtrArray) pb = assay_price_table_get_prices (b);

  g_assert_cmpuint (pa->len, ==, pb->len);
  for (guint i = 0; i < pa->len; i++)
    {
      const AssayPrice *x = g_ptr_array_index (pa, i);
      const AssayPrice *y = g_ptr_array_index (pb, i);

      g_assert_cmpstr (x->model, ==, y->model);
      g_assert_cmpstr (x->since, ==, y->since);
      /* Exactly: the JSON is written so that each figure reads back as the same double. */
      g_assert_cmpfloat (x->input, ==, y->input);
      g_assert_cmpfloat (x->cached_input, ==, y->cached_input);
      g_assert_cmpfloat (x->cache_write, ==, y->cache_write);
      g_assert_cmpfloat (x->output, ==, y->output);
    }
}

static void
test_save_user (void)
{
  g_autoptr(AssayPriceTable) shipped = shipped_table ();
  g_autoptr(AssayPriceTable) reread = assay_price_table_new ();
  g_autoptr(AssayPriceTable) table = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = assay_price_table_to_json (shipped);
  g_autofree char *path = assay_price_table_get_user_path ();
  g_autofree char *folder = g_path_get_dirname (path);
  g_autofree char *saved = NULL;
  g_autofree char *edited = NULL;
  GStatBuf st;

  /* Written as people write prices, not as 0.074999999999999997. */
  g_assert_nonnull (strstr (json, "\"input\": 0.15, \"cached_input\": 0.075, \"output\": 0.60}"));
  g_assert_nonnull (strstr (json, "\"since\": \"2025-06-10\""));
  g_assert_null (strstr (json, "99999"));
  assay_price_table_load_data (reread, json, -1, &error);
  g_assert_no_error (error);
  assert_same_prices (shipped, reread);
  g_assert_cmpstr (assay_price_table_get_updated (reread), ==, assay_price_table_get_updated (shipped));

  /* The folder is made, private. */
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
  assay_price_table_save_user (json, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (folder, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  g_file_get_contents (path, &saved, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (saved, ==, json);

  table = assay_price_table_new_default (&error);
  g_assert_no_error (error);
  assert_same_prices (shipped, table);
  g_clear_pointer (&table, assay_price_table_unref);

  /* An edit saved and read back. */
  edited = g_strdup ("{\"models\": [{\"model\": \"gpt-5\", \"input\": 1, \"cached_input\": 0.1, \"output\": 9}]}");
  assay_price_table_save_user (edited, &error);
  g_assert_no_error (error);
  table = assay_price_table_new_default (&error);
  g_assert_no_error (error);
  assert_price (assay_price_table_lookup (table, "gpt-5-2025-08-07", 0), "gpt-5", 1);

  /* A refused text leaves the saved file as it was. */
  g_assert_false (assay_price_table_save_user ("{\"models\": [{\"model\": \"gpt-5\", \"input\": \"cheap\", \"output\": 9}]}", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_clear_pointer (&saved, g_free);
  g_file_get_contents (path, &saved, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (saved, ==, edited);

  /* An empty table writes and reads back too. */
  {
    g_autoptr(AssayPriceTable) empty = assay_price_table_new ();
    g_autoptr(AssayPriceTable) empty_again = assay_price_table_new ();
    g_autofree char *empty_json = assay_price_table_to_json (empty);

    assay_price_table_load_data (empty_again, empty_json, -1, &error);
    g_assert_no_error (error);
    assert_same_prices (empty, empty_again);
  }
}

static void
test_format_cost (void)
{
  static const struct { double usd; const char *text; } cases[] = {
    { 0, "$0" },
    { 0.0123, "$0.0123" },
    { 1.2, "$1.20" },
    { 0.00004, "<$0.0001" },
    { 1e-12, "<$0.0001" },
    { 0.0001, "$0.0001" },
    { 0.11, "$0.11" },
    { 0.102, "$0.102" },
    { 0.5, "$0.50" },
    { 0.01, "$0.01" },
    { 0.99999, "$1.00" },
    { 1, "$1.00" },
    { 1234.5, "$1234.50" },
    { -1, "—" },
    { NAN, "—" },
    { INFINITY, "—" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = assay_price_format_cost (cases[i].usd);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int   argc,
      char *argv[])
{
  /* The shipped table from the source tree, as an uninstalled run finds it. */
  g_setenv ("ASSAY_PRICES_FILE", PRICES_FILE, TRUE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/assay/prices/shipped", test_shipped);
  g_test_add_func ("/assay/prices/lookup", test_lookup);
  g_test_add_func ("/assay/prices/since", test_since);
  g_test_add_func ("/assay/prices/cost", test_cost);
  g_test_add_func ("/assay/prices/merge", test_merge);
  g_test_add_func ("/assay/prices/user-overrides", test_user_overrides);
  g_test_add_func ("/assay/prices/broken-user-file", test_broken_user_file);
  g_test_add_func ("/assay/prices/refused", test_refused);
  g_test_add_func ("/assay/prices/save-user", test_save_user);
  g_test_add_func ("/assay/prices/format-cost", test_format_cost);
  return g_test_run ();
}
