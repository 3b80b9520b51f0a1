/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Masked columns: values found as whole tokens in every form Python prints them, replaced by
 * stable placeholders, and the placeholders the model writes mapped back (in code, into
 * literals that parse). */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "assay-dataset.h"
#include "assay-masker.h"

static AssayMasker *
make_masker (void)
{
  AssayMasker *masker = assay_masker_new ();
  guint ids = assay_masker_add_column (masker, "sales.csv", "customer_id");
  guint cities = assay_masker_add_column (masker, "sales.csv", "city");
  const char *id_values[] = { "C0012", "C00123", "17", "007", "12.50", "05.01.2024" };
  const char *city_values[] = { "New York", "New York City", "Ёжик", "O'Hare \"West\"", "C0012" };

  for (guint i = 0; i < G_N_ELEMENTS (id_values); i++)
    g_assert_true (assay_masker_add_value (masker, ids, id_values[i], strlen (id_values[i])));
  for (guint i = 0; i < G_N_ELEMENTS (city_values); i++)
    g_assert_true (assay_masker_add_value (masker, cities, city_values[i], strlen (city_values[i])));
  /* Repeats, blanks and missing-value markers are no new values. */
  g_assert_true (assay_masker_add_value (masker, ids, " C0012 ", 7));
  g_assert_true (assay_masker_add_value (masker, ids, "", 0));
  g_assert_true (assay_masker_add_value (masker, ids, "NA", 2));
  return masker;
}

static void
check_mask (AssayMasker *masker,
            const char  *text,
            const char  *expected)
{
  g_autofree char *masked = assay_masker_mask (masker, text);

  g_assert_cmpstr (masked, ==, expected);
}

static void
test_masker_tokens (void)
{
  g_autoptr(AssayMasker) masker = make_masker ();

  g_assert_cmpuint (assay_masker_get_n_values (masker), ==, 11);
  check_mask (masker, "customer C0012 bought", "customer ⟨customer_id 1⟩ bought");
  g_assert_cmpuint (assay_masker_get_last_count (masker), ==, 1);
  /* The longest value wins; a value inside a longer word or number is not that value. */
  check_mask (masker, "C00123 C001234 xC0012", "⟨customer_id 2⟩ C001234 xC0012");
  check_mask (masker, "17 of 2017, 1.17 and 17.5; -17", "⟨customer_id 3⟩ of 2017, 1.17 and 17.5; -⟨customer_id 3⟩");
  check_mask (masker, "New York City and New York.", "⟨city 2⟩ and ⟨city 1⟩.");
  check_mask (masker, "Ёжик, Ёжики", "⟨city 3⟩, Ёжики");
  check_mask (masker, "at O'Hare \"West\" gate", "at ⟨city 4⟩ gate");
  /* Python's forms: an integer without leading zeros (and as a float), a float in its
   * shortest form, a dd.mm.yyyy date as yyyy-mm-dd. */
  check_mask (masker, "id 7, 7.0, 007", "id ⟨customer_id 4⟩, ⟨customer_id 4⟩, ⟨customer_id 4⟩");
  check_mask (masker, "price 12.5 or 12.50", "price ⟨customer_id 5⟩ or ⟨customer_id 5⟩");
  check_mask (masker, "2024-01-05 00:00:00 and 05.01.2024", "⟨customer_id 6⟩ and ⟨customer_id 6⟩");
  /* A value longer than pandas shows in a table, cut as pandas cuts it. */
  {
    guint notes = assay_masker_add_column (masker, "sales.csv", "notes");
    const char *note = "Customer asked for a refund because the parcel arrived damaged twice";
    g_autofree char *shown = g_strdup_printf ("0    %.47s...\n", note);

    assay_masker_add_value (masker, notes, note, strlen (note));
    check_mask (masker, shown, "0    ⟨notes 1⟩\n");
  }
  /* A value in two columns keeps its first placeholder. */
  check_mask (masker, "| C0012 |", "| ⟨customer_id 1⟩ |");
  /* A placeholder already there is left alone (its number is no value). */
  check_mask (masker, "⟨customer_id 17⟩ and ⟨other 7⟩", "⟨customer_id 17⟩ and ⟨other 7⟩");
  check_mask (masker, "", "");
  check_mask (masker, "nothing here", "nothing here");
  g_assert_null (assay_masker_get_warning (masker));
  g_assert_true (assay_masker_has_column (masker, "sales.csv", "city"));
  g_assert_false (assay_masker_has_column (masker, "other.csv", "city"));
}

static void
test_masker_unmask (void)
{
  g_autoptr(AssayMasker) masker = make_masker ();
  g_autofree char *text = NULL;
  g_autofree char *code = NULL;
  g_autofree char *round = NULL;

  text = assay_masker_unmask (masker, "⟨customer_id 1⟩ in ⟨city 2⟩; ⟨city 99⟩ and ⟨nope 1⟩ stay");
  g_assert_cmpstr (text, ==, "C0012 in New York City; ⟨city 99⟩ and ⟨nope 1⟩ stay");

  /* Outside a literal: a quoted string, or the number; inside one: escaped for it. */
  code = assay_masker_unmask_code (masker,
                                   "df[df.customer_id == ⟨customer_id 1⟩]\n"
                                   "n = ⟨customer_id 3⟩ + 1\n"
                                   "s = '⟨city 4⟩'\n"
                                   "t = \"⟨city 4⟩ ok\"\n"
                                   "u = r'⟨city 1⟩'\n"
                                   "v = \"\"\"a ⟨city 4⟩ b\"\"\"\n"
                                   "# about ⟨city 4⟩\n"
                                   "w = ⟨customer_id 4⟩\n"
                                   "x = 'it''s ⟨city 3⟩'\n");
  g_assert_cmpstr (code, ==,
                   "df[df.customer_id == 'C0012']\n"
                   "n = 17 + 1\n"
                   "s = 'O\\'Hare \"West\"'\n"
                   "t = \"O'Hare \\\"West\\\" ok\"\n"
                   "u = r'New York'\n"
                   "v = \"\"\"a O'Hare \\\"West\\\" b\"\"\"\n"
                   "# about O'Hare \"West\"\n"
                   "w = '007'\n"
                   "x = 'it''s Ёжик'\n");

  /* Masking the mapped text gives the model's text back. */
  round = assay_masker_mask (masker, text);
  g_assert_cmpstr (round, ==, "⟨customer_id 1⟩ in ⟨city 2⟩; ⟨city 99⟩ and ⟨nope 1⟩ stay");
}

static void
test_masker_labels (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint a = assay_masker_add_column (masker, "a.csv", "id");
  guint b = assay_masker_add_column (masker, "b.csv", "id");
  g_autofree char *masked = NULL;

  g_assert_cmpuint (assay_masker_add_column (masker, "a.csv", "id"), ==, a);
  assay_masker_add_value (masker, a, "X1", 2);
  assay_masker_add_value (masker, b, "Y1", 2);
  masked = assay_masker_mask (masker, "X1 Y1");
  g_assert_cmpstr (masked, ==, "⟨a.csv:id 1⟩ ⟨b.csv:id 1⟩");
}

static void
test_masker_cap (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint column = assay_masker_add_column (masker, "a.csv", "id");
  g_autofree char *long_value = g_strnfill (ASSAY_MASKER_MAX_VALUE_BYTES + 1, 'z');
  guint added = 0;

  assay_masker_set_max_bytes (masker, 256 * 1024);
  for (guint i = 0; i < 100000; i++)
    {
      char value[32];

      g_snprintf (value, sizeof value, "K%06u", i);
      if (!assay_masker_add_value (masker, column, value, strlen (value)))
        break;
      added++;
    }
  g_assert_cmpuint (added, >, 100);
  g_assert_cmpuint (added, <, 100000);
  g_assert_cmpuint (assay_masker_get_memory (masker), <=, 256 * 1024);
  g_assert_nonnull (assay_masker_get_warning (masker));
  g_assert_nonnull (strstr (assay_masker_get_warning (masker), "not masked"));

  g_clear_object (&masker);
  masker = assay_masker_new ();
  column = assay_masker_add_column (masker, "a.csv", "notes");
  g_assert_true (assay_masker_add_value (masker, column, long_value, strlen (long_value)));
  g_assert_cmpuint (assay_masker_get_n_values (masker), ==, 0);
  g_assert_nonnull (assay_masker_get_warning (masker));
}

/* Enough values for the tables to grow many times over. */
static void
test_masker_many (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint column = assay_masker_add_column (masker, "a.csv", "id");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *masked = NULL;

  for (guint i = 0; i < 50000; i++)
    {
      char value[32];

      g_snprintf (value, sizeof value, "CUST-%06u", 100000 + i);
      g_assert_true (assay_masker_add_value (masker, column, value, strlen (value)));
    }
  for (guint i = 0; i < 50000; i += 997)
    {
      g_string_append_printf (text, "'CUST-%06u' ", 100000 + i);
      g_string_append_printf (expected, "'⟨id %u⟩' ", i + 1);
    }
  masked = assay_masker_mask (masker, text->str);
  g_assert_cmpstr (masked, ==, expected->str);
  g_assert_cmpuint (assay_masker_get_last_count (masker), ==, 51);
}

static void
test_masker_dataset (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-masker-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "people.csv", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  g_autofree char *masked = NULL;

  g_assert_true (g_file_set_contents (path,
                                      "name;amount;city\n"
                                      "\"Smith; John\";1,5;Paris\n"
                                      "Anna;2,25;\"Saint \"\"Petersburg\"\"\"\n"
                                      "\"Smith; John\";3;Paris\n", -1, &error));
  g_assert_no_error (error);
  dataset = assay_dataset_open (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (assay_masker_add_dataset_column (masker, "people.csv", dataset, "name", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (assay_masker_add_dataset_column (masker, "people.csv", dataset, "city", NULL, &error));
  g_assert_no_error (error);
  /* Twice is once. */
  g_assert_true (assay_masker_add_dataset_column (masker, "people.csv", dataset, "name", NULL, &error));
  g_assert_cmpuint (assay_masker_get_n_values (masker), ==, 4);
  masked = assay_masker_mask (masker, "Smith; John (Paris), Anna in Saint \"Petersburg\"");
  g_assert_cmpstr (masked, ==, "⟨name 1⟩ (⟨city 1⟩), ⟨name 2⟩ in ⟨city 2⟩");

  g_assert_false (assay_masker_add_dataset_column (masker, "people.csv", dataset, "nope", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "nope"));

  g_unlink (path);
  g_rmdir (dir);
}

/* What JSON and Python's repr make of a value: \uXXXX (a surrogate pair past U+FFFF), \/,
 * \n, \', \\, \xNN; the text around a value stays as it was, byte for byte. */
static void
test_masker_escapes (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint names = assay_masker_add_column (masker, "p.csv", "name");
  guint urls = assay_masker_add_column (masker, "p.csv", "url");
  guint notes = assay_masker_add_column (masker, "p.csv", "note");
  const char *name_values[] = { "Jürgen Groß", "Zoë 😀 Ødegård", "O'Brien \"Jr\"", "C:\\temp\\new", "Tab\there" };
  const char *url = "https://ex.org/u/jg?ref=a1";
  const char *note = "Called twice\nAsked for a refund";

  for (guint i = 0; i < G_N_ELEMENTS (name_values); i++)
    assay_masker_add_value (masker, names, name_values[i], strlen (name_values[i]));
  assay_masker_add_value (masker, urls, url, strlen (url));
  assay_masker_add_value (masker, notes, note, strlen (note));

  /* to_json and json.dumps */
  check_mask (masker, "{\"name\":\"J\\u00fcrgen Gro\\u00df\",\"url\":\"https:\\/\\/ex.org\\/u\\/jg?ref=a1\"}",
              "{\"name\":\"⟨name 1⟩\",\"url\":\"⟨url 1⟩\"}");
  g_assert_cmpuint (assay_masker_get_last_count (masker), ==, 2);
  check_mask (masker, "[\"Zo\\u00eb \\ud83d\\ude00 \\u00d8deg\\u00e5rd\", \"J\\u00FCrgen Gro\\u00DF\"]",
              "[\"⟨name 2⟩\", \"⟨name 1⟩\"]");
  check_mask (masker, "{\"note\": \"Called twice\\nAsked for a refund\", \"n\": \"O'Brien \\\"Jr\\\"\"}",
              "{\"note\": \"⟨note 1⟩\", \"n\": \"⟨name 3⟩\"}");
  /* repr, a traceback's KeyError, pandas' table of a multi-line string */
  check_mask (masker, "['Called twice\\nAsked for a refund', 'O\\'Brien \"Jr\"', 'C:\\\\temp\\\\new', 'Tab\\there']",
              "['⟨note 1⟩', '⟨name 3⟩', '⟨name 4⟩', '⟨name 5⟩']");
  check_mask (masker, "KeyError: 'Called twice\\nAsked for a refund'", "KeyError: '⟨note 1⟩'");
  check_mask (masker, "{'n': 'Zo\\xeb \\U0001f600 \\xd8deg\\xe5rd'}", "{'n': '⟨name 2⟩'}");
  check_mask (masker, "0    Called twice\\nAsked for a refund\nName: note", "0    ⟨note 1⟩\nName: note");
  /* A database's error quotes a literal with its quotes doubled. */
  check_mask (masker, "near \"'O''Brien \"Jr\"'\": syntax error", "near \"'⟨name 3⟩'\": syntax error");
  /* A value printed as it is, backslashes and all; a line break a program wrote. */
  check_mask (masker, "path C:\\temp\\new here", "path ⟨name 4⟩ here");
  check_mask (masker, "x\\nJürgen Groß\\n", "x\\n⟨name 1⟩\\n");
  /* Escapes that stand for nothing, or for a NUL, stay; text with no value stays whole. */
  check_mask (masker, "\\d+ \\u00 \\ud83d \\x00 \\u0000 \\", "\\d+ \\u00 \\ud83d \\x00 \\u0000 \\");
  g_assert_cmpuint (assay_masker_get_last_count (masker), ==, 0);
  /* Not inside a longer word once decoded. */
  check_mask (masker, "\"J\\u00fcrgen Gro\\u00dfe\"", "\"J\\u00fcrgen Gro\\u00dfe\"");
}

/* Dates and times as pandas, numpy and str () print them, from ISO with a T or a space. */
static void
test_masker_times (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint times = assay_masker_add_column (masker, "p.csv", "when");
  guint days = assay_masker_add_column (masker, "p.csv", "day");
  guint zoned = assay_masker_add_column (masker, "p.csv", "zoned");

  assay_masker_add_value (masker, times, "1984-03-05T08:15:00", 19);
  assay_masker_add_value (masker, times, "1991-11-23 17:40:05", 19);
  assay_masker_add_value (masker, days, "2003-07-14", 10);
  assay_masker_add_value (masker, zoned, "2010-01-02T03:04:05+02:00", 25);

  check_mask (masker, "Timestamp('1984-03-05 08:15:00') 1984-03-05T08:15:00.000000000",
              "Timestamp('⟨when 1⟩') ⟨when 1⟩");
  check_mask (masker, "{\"when\":\"1984-03-05T08:15:00.000\",\"t\":447322500000}", "{\"when\":\"⟨when 1⟩\",\"t\":⟨when 1⟩}");
  check_mask (masker, "1991-11-23T17:40:05 and 1991-11-23 17:40:05, 1991-11-23T17:40:05.000000000",
              "⟨when 2⟩ and ⟨when 2⟩, ⟨when 2⟩");
  check_mask (masker, "2003-07-14 00:00:00|2003-07-14T00:00:00.000|1058140800000|2003-07-14",
              "⟨day 1⟩|⟨day 1⟩|⟨day 1⟩|⟨day 1⟩");
  /* Another time of that day is no value of theirs; a zoned time is found as written. */
  check_mask (masker, "1984-03-05 08:15:01 1984-03-05", "1984-03-05 08:15:01 1984-03-05");
  check_mask (masker, "2010-01-02T03:04:05+02:00 2010-01-02 03:04:05", "⟨zoned 1⟩ 2010-01-02 03:04:05");
}

/* pandas cuts a long string at 46 of its characters after a cell's space (and escapes line
 * breaks first). */
static void
test_masker_cut (void)
{
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  guint notes = assay_masker_add_column (masker, "p.csv", "note");
  const char *note = "Called twice about the parcel\nAsked for a refund by mail";
  const char *history = "Account history: opened at branch 17 of the northern region, migrated twice";

  assay_masker_add_value (masker, notes, note, strlen (note));
  assay_masker_add_value (masker, notes, history, strlen (history));
  check_mask (masker, "0    Called twice about the parcel\\nAsked for a ref...\n",
              "0    ⟨note 1⟩\n");
  /* to_markdown's rows of one cell's lines. */
  check_mask (masker, "| Called twice about the parcel |\n|  Asked for a refund by mail  |\n",
              "| ⟨note 1⟩ |\n|  ⟨note 1⟩  |\n");
  check_mask (masker, "0    Account history: opened at branch 17 of the no...\n"
                      "top  Account history: opened at branch 17 of the nor...\n",
              "0    ⟨note 2⟩\ntop  ⟨note 2⟩\n");
}

/* The summary for the model shows a masked column's samples as placeholders, found whole
 * before the summary cuts them at 30 characters and makes their line breaks spaces. */
static void
test_masker_samples (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-masker-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "people.csv", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(AssayMasker) masker = assay_masker_new ();
  g_autofree char *plain = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *masked = NULL;

  g_assert_true (g_file_set_contents (path,
                                      "note,long,city,n\n"
                                      "\"Called twice\nAsked for a refund\",Account history: opened at branch 17 of the north,Paris,1\n"
                                      "\"Calls ok\nNo Monday\",Account history: reopened after a dormant period,Lyon,2\n"
                                      "\"Moved in March\nNew address pending\",Account history: transferred from a partner bank,Nice,3\n",
                                      -1, &error));
  g_assert_no_error (error);
  dataset = assay_dataset_open (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (assay_masker_add_dataset_column (masker, "people.csv", dataset, "note", NULL, &error));
  g_assert_true (assay_masker_add_dataset_column (masker, "people.csv", dataset, "long", NULL, &error));
  g_assert_no_error (error);

  /* Without it the summary holds what no masking of its text can find. */
  plain = assay_dataset_describe_for_prompt (dataset, NULL, 1);
  g_assert_nonnull (strstr (plain, "Calls ok No Monday"));
  masked = assay_masker_mask (masker, plain);
  g_assert_nonnull (strstr (masked, "Calls ok No Monday"));

  assay_masker_mask_samples (masker, dataset, "people.csv");
  summary = assay_dataset_describe_for_prompt (dataset, NULL, 1);
  g_assert_null (strstr (summary, "Called twice"));
  g_assert_null (strstr (summary, "Calls ok"));
  g_assert_null (strstr (summary, "Account history"));
  g_assert_nonnull (strstr (summary, "“⟨note 1⟩”"));
  g_assert_nonnull (strstr (summary, "“⟨long 1⟩”"));
  /* Columns not masked keep their samples. */
  g_assert_nonnull (strstr (summary, "Paris"));
  /* The human summary is the analyst's: values as they are. */
  g_clear_pointer (&plain, g_free);
  plain = assay_dataset_describe_for_human (dataset);
  g_assert_nonnull (strstr (plain, "Called twice"));

  g_clear_object (&dataset);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_masker_modes (void)
{
  AssayPrivacyMode mode = ASSAY_PRIVACY_FULL;

  g_assert_true (assay_privacy_mode_from_string ("schema", &mode));
  g_assert_cmpint (mode, ==, ASSAY_PRIVACY_SCHEMA);
  g_assert_cmpstr (assay_privacy_mode_to_string (ASSAY_PRIVACY_MASKED), ==, "masked");
  g_assert_false (assay_privacy_mode_from_string ("none", &mode));
  g_assert_cmpint (mode, ==, ASSAY_PRIVACY_SCHEMA);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/privacy/masker/tokens", test_masker_tokens);
  g_test_add_func ("/assay/privacy/masker/unmask", test_masker_unmask);
  g_test_add_func ("/assay/privacy/masker/labels", test_masker_labels);
  g_test_add_func ("/assay/privacy/masker/cap", test_masker_cap);
  g_test_add_func ("/assay/privacy/masker/many", test_masker_many);
  g_test_add_func ("/assay/privacy/masker/dataset", test_masker_dataset);
  g_test_add_func ("/assay/privacy/masker/escapes", test_masker_escapes);
  g_test_add_func ("/assay/privacy/masker/times", test_masker_times);
  g_test_add_func ("/assay/privacy/masker/cut", test_masker_cut);
  g_test_add_func ("/assay/privacy/masker/samples", test_masker_samples);
  g_test_add_func ("/assay/privacy/masker/modes", test_masker_modes);
  return g_test_run ();
}
