/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "assay-column-profile.h"
#include "assay-csv-dialect.h"
#include "assay-csv-reader.h"
#include "assay-csv-value.h"
#include "assay-data-text.h"

static char *
field (AssayCsvReader *reader,
       guint           i)
{
  g_autoptr(GString) scratch = g_string_new (NULL);
  gsize len;
  const char *s = assay_csv_reader_field_text (reader, &reader->fields[i], scratch, &len);

  return g_strndup (s, len);
}

static void
test_reader_quotes (void)
{
  const char *text = "a,\"b\"\"c\",d\r\n\"x\ny\",2,\n\n  \n\"q\"tail,\"\",last";
  AssayCsvReader reader;
  g_autoptr(GError) error = NULL;
  g_autofree char *f1 = NULL, *f2 = NULL, *f3 = NULL, *f4 = NULL, *f5 = NULL;

  assay_csv_reader_init (&reader, text, strlen (text), ',', '"', FALSE);
  g_assert_true (assay_csv_reader_next (&reader, &error));
  g_assert_cmpuint (reader.n_fields, ==, 3);
  f1 = field (&reader, 1);
  g_assert_cmpstr (f1, ==, "b\"c");

  g_assert_true (assay_csv_reader_next (&reader, &error));
  g_assert_cmpuint (reader.record_line, ==, 2);
  g_assert_cmpuint (reader.n_fields, ==, 3);   /* the trailing delimiter adds an empty field */
  f2 = field (&reader, 0);
  g_assert_cmpstr (f2, ==, "x\ny");
  g_assert_cmpuint (reader.fields[2].len, ==, 0);

  g_assert_true (assay_csv_reader_next (&reader, &error));
  g_assert_cmpuint (reader.record_line, ==, 6);  /* blank and whitespace-only lines skipped */
  g_assert_cmpuint (reader.blank_lines, ==, 2);
  f3 = field (&reader, 0);
  g_assert_cmpstr (f3, ==, "qtail");
  f4 = field (&reader, 1);
  g_assert_cmpstr (f4, ==, "");
  f5 = field (&reader, 2);
  g_assert_cmpstr (f5, ==, "last");
  g_assert_false (assay_csv_reader_next (&reader, &error));
  g_assert_no_error (error);
  assay_csv_reader_clear (&reader);
}

static void
test_reader_unterminated (void)
{
  const char *text = "a,b\n1,2\n3,\"open\n4,5\n";
  AssayCsvReader reader;
  g_autoptr(GError) error = NULL;

  assay_csv_reader_init (&reader, text, strlen (text), ',', '"', FALSE);
  g_assert_true (assay_csv_reader_next (&reader, &error));
  g_assert_true (assay_csv_reader_next (&reader, &error));
  g_assert_false (assay_csv_reader_next (&reader, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "line 3"));
  assay_csv_reader_clear (&reader);
}

static void
test_reader_backslash (void)
{
  const char *text = "1,\"say \\\"hi\\\", ok\",2\n";
  AssayCsvReader reader;
  g_autofree char *f = NULL;

  assay_csv_reader_init (&reader, text, strlen (text), ',', '"', TRUE);
  g_assert_true (assay_csv_reader_next (&reader, NULL));
  g_assert_cmpuint (reader.n_fields, ==, 3);
  f = field (&reader, 1);
  g_assert_cmpstr (f, ==, "say \"hi\", ok");
  assay_csv_reader_clear (&reader);
}

static void
test_values (void)
{
  AssayValueFormat eu = { ',', "\xC2\xA0", 2 };
  AssayValueFormat us = { '.', ",", 1 };
  AssayValue v;

  g_assert_cmpuint (assay_value_classify ("1\xC2\xA0" "234,5", 8, &eu, ASSAY_VALUE_ANY, &v), ==, ASSAY_VALUE_FLOAT);
  g_assert_cmpfloat_with_epsilon (v.number, 1234.5, 1e-9);
  g_assert_cmpuint (assay_value_classify ("$1,234", 6, &us, ASSAY_VALUE_ANY, &v), ==,
                    ASSAY_VALUE_INTEGER | ASSAY_VALUE_FLOAT);
  g_assert_true (v.flags & ASSAY_VALUE_HAS_CURRENCY);
  g_assert_cmpfloat (v.number, ==, 1234);
  g_assert_cmpuint (assay_value_classify ("-12.5e3", 7, &us, ASSAY_VALUE_ANY, &v), ==, ASSAY_VALUE_FLOAT);
  g_assert_cmpfloat_with_epsilon (v.number, -12500, 1e-9);
  g_assert_cmpuint (assay_value_classify ("1,23", 4, &us, ASSAY_VALUE_ANY, &v), ==, 0);
  g_assert_cmpuint (assay_value_classify ("12:30", 5, &us, ASSAY_VALUE_ANY, &v), ==, 0);
  g_assert_cmpuint (assay_value_classify ("TRUE", 4, &us, ASSAY_VALUE_ANY, &v), ==, ASSAY_VALUE_BOOLEAN);
  g_assert_cmpuint (assay_value_classify ("2024-02-29", 10, &us, ASSAY_VALUE_ANY, &v), ==,
                    ASSAY_VALUE_DATE | ASSAY_VALUE_DATETIME);
  g_assert_cmpuint (assay_value_classify ("2023-02-29", 10, &us, ASSAY_VALUE_ANY, &v), ==, 0);
  g_assert_cmpuint (assay_value_classify ("31.12.2023", 10, &us, ASSAY_VALUE_ANY, &v), ==,
                    ASSAY_VALUE_DATE | ASSAY_VALUE_DATETIME);
  g_assert_true (v.flags & ASSAY_VALUE_DOT_DATE);
  g_assert_cmpuint (assay_value_classify ("2024-01-01T00:30:00+03:00", 25, &us, ASSAY_VALUE_ANY, &v), ==,
                    ASSAY_VALUE_DATETIME);
  g_assert_cmpfloat (v.number, ==, 1704058200.0);  /* 2023-12-31T21:30:00Z */
  g_assert_cmpuint (assay_value_classify ("13/01/2024", 10, &us, ASSAY_VALUE_ANY, &v), !=, 0);
  g_assert_cmpuint (v.flags & (ASSAY_VALUE_MDY_VALID | ASSAY_VALUE_DMY_VALID), ==, ASSAY_VALUE_DMY_VALID);
  g_assert_true (assay_value_is_null ("NA", 2));
  g_assert_true (assay_value_is_null ("", 0));
  g_assert_false (assay_value_is_null ("-", 1));
}

static void
test_sniff (void)
{
  const char *text = "Имя;Сумма;Дата\r\nАнна;1 234,50;01.02.2024\r\nБорис;7,25;15.03.2024\r\n\r\n";
  g_autoptr(AssayCsvDialect) dialect = g_new0 (AssayCsvDialect, 1);
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_csv_sniff_text (text, strlen (text), dialect, &error));
  g_assert_no_error (error);
  g_assert_cmpint (dialect->delimiter, ==, ';');
  g_assert_cmpint (dialect->decimal, ==, ',');
  g_assert_cmpstr (dialect->thousands, ==, " ");
  g_assert_true (dialect->header);
  g_assert_cmpstr (dialect->line_ending, ==, "\r\n");
  g_assert_cmpuint (dialect->trailing_blank_lines, ==, 1);
  g_assert_cmpuint (dialect->n_columns, ==, 3);
}

static void
test_sniff_sep_line (void)
{
  /* Excel's delimiter hint; the short one was found by the fuzzer (a sample longer than the
   * text after the hint). */
  const char *text = "sep=|\r\na|b\n1|2\n";
  const char *tiny = "sep=c\n1\n\x02";
  g_autoptr(AssayCsvDialect) dialect = g_new0 (AssayCsvDialect, 1);

  g_assert_true (assay_csv_sniff_text (text, strlen (text), dialect, NULL));
  g_assert_cmpint (dialect->delimiter, ==, '|');
  g_assert_cmpuint (dialect->preamble_len, ==, 7);
  g_assert_true (dialect->header);
  assay_csv_sniff_text (tiny, strlen (tiny), dialect, NULL);
}

static void
test_encoding (void)
{
  g_autoptr(AssayCsvDialect) dialect = g_new0 (AssayCsvDialect, 1);
  g_autoptr(GError) error = NULL;

  g_assert_false (assay_csv_detect_encoding ("", 0, dialect, &error));
  g_assert_nonnull (strstr (error->message, "empty"));
  g_clear_error (&error);
  g_assert_true (assay_csv_detect_encoding ("\xFF\xFE" "a\0,\0b\0", 8, dialect, &error));
  g_assert_cmpstr (dialect->encoding, ==, "utf-16le");
  g_assert_true (assay_csv_detect_encoding ("a,b\n\xC3\xA9,1\n", 9, dialect, &error));
  g_assert_cmpstr (dialect->encoding, ==, "utf-8");
  g_assert_false (assay_csv_detect_encoding ("a,b\n1,\0\n", 8, dialect, &error));
  g_assert_nonnull (strstr (error->message, "NUL"));
}

static void
test_sanitize (void)
{
  g_autofree char *a = assay_data_sanitize ("red\x1b[31m\tx\xff\xE2\x80\xAEy", -1, 0);
  g_autofree char *b = assay_data_sanitize ("abcdef", -1, 3);

  g_assert_cmpstr (a, ==, "red[31m x\xEF\xBF\xBDy");
  g_assert_cmpstr (b, ==, "abc\xE2\x80\xA6");
}

static void
test_distinct (void)
{
  AssayColumnProfile *small = assay_column_profile_new (10000);
  AssayColumnProfile *big = assay_column_profile_new (10000);
  AssayValueFormat format = { '.', "", 0 };
  gboolean exact;
  guint64 estimate;

  for (guint i = 0; i < 50000; i++)
    {
      char buffer[32];
      int n = g_snprintf (buffer, sizeof buffer, "v%u", i % 500);
      assay_column_profile_add (small, buffer, n, FALSE, &format);
      n = g_snprintf (buffer, sizeof buffer, "%u", i * 7919u);
      assay_column_profile_add (big, buffer, n, FALSE, &format);
    }
  assay_column_profile_finish (small, FALSE);
  assay_column_profile_finish (big, FALSE);
  g_assert_cmpuint (assay_column_profile_get_distinct (small, &exact), ==, 500);
  g_assert_true (exact);
  g_assert_cmpint (assay_column_profile_get_type_kind (small), ==, ASSAY_COLUMN_STRING);
  estimate = assay_column_profile_get_distinct (big, &exact);
  g_assert_false (exact);
  g_assert_cmpfloat (fabs ((double) estimate - 50000) / 50000, <, 0.05);
  g_assert_cmpint (assay_column_profile_get_type_kind (big), ==, ASSAY_COLUMN_INTEGER);
  assay_column_profile_free (small);
  assay_column_profile_free (big);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/data/reader/quotes", test_reader_quotes);
  g_test_add_func ("/assay/data/reader/unterminated", test_reader_unterminated);
  g_test_add_func ("/assay/data/reader/backslash", test_reader_backslash);
  g_test_add_func ("/assay/data/values", test_values);
  g_test_add_func ("/assay/data/sniff", test_sniff);
  g_test_add_func ("/assay/data/sniff-sep-line", test_sniff_sep_line);
  g_test_add_func ("/assay/data/encoding", test_encoding);
  g_test_add_func ("/assay/data/sanitize", test_sanitize);
  g_test_add_func ("/assay/data/distinct", test_distinct);
  return g_test_run ();
}
