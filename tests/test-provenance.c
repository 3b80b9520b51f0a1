/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Number provenance (src/core/provenance): the number reader, the corpus of answers and
 * outputs in English and Russian formats with precision and recall, the session record. */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "assay-json.h"
#include "assay-provenance.h"
#include "assay-session.h"
#include "assay-session-outline.h"
#include "session-fixture.h"

/* ---- the reader ------------------------------------------------------------------------- */

typedef struct
{
  const char *text;
  AssayNumberScanFlags flags;
  const char *expect;   /* the spans found, "|"-separated; "" for none */
  double first_value;
  double first_tolerance;
} ScanCase;

static void
test_scan (void)
{
  static const ScanCase cases[] = {
    { "EUR 475,046.", ASSAY_NUMBER_SCAN_PROSE, "475,046", 475046, 0.5 },
    { "1.65M and 12 тыс.", ASSAY_NUMBER_SCAN_PROSE, "1.65M|12 тыс.", 1650000, 5000 },
    { "24.0% of it", ASSAY_NUMBER_SCAN_PROSE, "24.0%", 24, 0.05 },
    { "\xe2\x88\x92" "5.2 %", ASSAY_NUMBER_SCAN_PROSE, "\xe2\x88\x92" "5.2 %", -5.2, 0.05 },
    { "37,4 руб.", ASSAY_NUMBER_SCAN_PROSE | ASSAY_NUMBER_SCAN_DECIMAL_COMMA, "37,4", 37.4, 0.05 },
    { "37,4 rub", ASSAY_NUMBER_SCAN_PROSE, "37|4", 37, 0.5 },
    { "1.234.567,5", ASSAY_NUMBER_SCAN_PROSE | ASSAY_NUMBER_SCAN_DECIMAL_COMMA, "1.234.567,5", 1234567.5, 0.05 },
    { "1.234", ASSAY_NUMBER_SCAN_PROSE, "1.234", 1.234, 0.0005 },
    { "3\xe2\x80\x93" "5%", ASSAY_NUMBER_SCAN_PROSE, "3|5%", 3, 0.5 },
    { "on 2024-03-15 at 14:30, in 2023, v2.1.4, c4, COVID-19, 3rd, step 2", ASSAY_NUMBER_SCAN_PROSE, "", 0, 0 },
    { "1. Overview", ASSAY_NUMBER_SCAN_PROSE | ASSAY_NUMBER_SCAN_BLOCK_START, "", 0, 0 },
    { "1. Overview", ASSAY_NUMBER_SCAN_PROSE, "1", 1, 0.5 },
    /* Output: exponents; a space never groups (columns). */
    { "A  7  1.651593e+06", ASSAY_NUMBER_SCAN_OUTPUT, "7|1.651593e+06", 7, 0.5 },
    { "12 345", ASSAY_NUMBER_SCAN_OUTPUT, "12|345", 12, 0.5 },
    { "dtype: float64, int32 x_1", ASSAY_NUMBER_SCAN_OUTPUT, "", 0, 0 },
    /* No digits beyond what anyone reads; invalid UTF-8 does not stop the reader. */
    { "\xff\xfe 12 \xc3", ASSAY_NUMBER_SCAN_PROSE, "12", 12, 0.5 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GArray) numbers = g_array_new (FALSE, TRUE, sizeof (AssayNumber));
      g_autoptr(GString) spans = g_string_new (NULL);

      assay_number_scan (cases[i].text, strlen (cases[i].text), cases[i].flags, 0, numbers);
      for (guint k = 0; k < numbers->len; k++)
        {
          const AssayNumber *number = &g_array_index (numbers, AssayNumber, k);

          if (k > 0)
            g_string_append_c (spans, '|');
          g_string_append_len (spans, cases[i].text + number->start, number->end - number->start);
        }
      {
        /* Escaped: TAP lines must be valid UTF-8, and some cases are not. */
        g_autofree char *shown = g_strescape (cases[i].text, NULL);
        g_autofree char *found = g_strescape (spans->str, NULL);

        g_test_message ("%s -> %s", shown, found);
      }
      g_assert_cmpstr (spans->str, ==, cases[i].expect);
      if (numbers->len > 0)
        {
          const AssayNumber *first = &g_array_index (numbers, AssayNumber, 0);

          g_assert_cmpfloat_with_epsilon (first->value, cases[i].first_value, 1e-9 * MAX (1, fabs (first->value)));
          g_assert_cmpfloat_with_epsilon (first->tolerance, cases[i].first_tolerance, 1e-12 * MAX (1, first->tolerance));
        }
    }

  /* Forty digits are the most a number may have. */
  {
    g_autoptr(GArray) numbers = g_array_new (FALSE, TRUE, sizeof (AssayNumber));
    g_autofree char *long_digits = g_strnfill (5000, '7');

    assay_number_scan (long_digits, 5000, ASSAY_NUMBER_SCAN_PROSE, 0, numbers);
    g_assert_cmpuint (numbers->len, ==, 0);
  }
}

/* ---- the corpus ------------------------------------------------------------------------- */

/* "stdout:…", "stderr:…", "plain:…", "html:…", "error:…" as an nbformat output. */
static JsonNode *
output_from_spec (const char *spec)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const char *text = strchr (spec, ':') + 1;

  json_builder_begin_object (builder);
  if (g_str_has_prefix (spec, "stdout:") || g_str_has_prefix (spec, "stderr:"))
    {
      json_builder_set_member_name (builder, "output_type");
      json_builder_add_string_value (builder, "stream");
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, g_str_has_prefix (spec, "stdout:") ? "stdout" : "stderr");
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, text);
    }
  else if (g_str_has_prefix (spec, "error:"))
    {
      json_builder_set_member_name (builder, "output_type");
      json_builder_add_string_value (builder, "error");
      json_builder_set_member_name (builder, "ename");
      json_builder_add_string_value (builder, "ValueError");
      json_builder_set_member_name (builder, "evalue");
      json_builder_add_string_value (builder, text);
      json_builder_set_member_name (builder, "traceback");
      json_builder_begin_array (builder);
      json_builder_add_string_value (builder, text);
      json_builder_end_array (builder);
    }
  else
    {
      json_builder_set_member_name (builder, "output_type");
      json_builder_add_string_value (builder, "execute_result");
      json_builder_set_member_name (builder, "data");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, g_str_has_prefix (spec, "html:") ? "text/html" : "text/plain");
      json_builder_add_string_value (builder, text);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static void
test_corpus (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *cases;
  guint n_expected = 0, n_claims = 0, n_claims_right = 0;
  guint n_found = 0, n_found_right = 0, n_traceable = 0, n_invented = 0, n_invented_traced = 0;
  guint n_cases_exact = 0, n_english = 0, n_russian = 0;
  guint n_kinds = 0, n_kinds_right = 0, n_unexpected_kinds = 0;
  double claim_precision, claim_recall, precision, recall;

  json_parser_load_from_file (parser, PROVENANCE_CORPUS, &error);
  g_assert_no_error (error);
  cases = assay_json_get_array (json_node_get_object (json_parser_get_root (parser)), "cases");
  g_assert_nonnull (cases);
  g_assert_cmpuint (json_array_get_length (cases), >=, 80);

  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *item = json_array_get_object_element (cases, c);
      const char *name = json_object_get_string_member (item, "name");
      const char *answer = json_object_get_string_member (item, "answer");
      JsonArray *cells = json_object_get_array_member (item, "cells");
      JsonArray *expected = json_object_get_array_member (item, "numbers");
      g_autoptr(GArray) sources = g_array_new (FALSE, FALSE, sizeof (AssayProvenanceSource));
      g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
      g_autoptr(AssayProvenance) provenance = NULL;
      gboolean exact = TRUE;
      guint next = 0;

      if (g_str_has_prefix (name, "ru "))
        n_russian++;
      else
        n_english++;

      for (guint k = 0; k < json_array_get_length (cells); k++)
        {
          JsonArray *cell = json_array_get_array_element (cells, k);
          JsonArray *specs = json_array_get_array_element (cell, 1);
          JsonArray *outputs = json_array_new ();
          AssayProvenanceSource source = { 0 };

          for (guint o = 0; o < json_array_get_length (specs); o++)
            json_array_add_element (outputs, output_from_spec (json_array_get_string_element (specs, o)));
          g_ptr_array_add (keep, outputs);
          source.cell_id = json_array_get_string_element (cell, 0);
          source.outputs = outputs;
          /* A third member: how much of its output the model read. */
          if (json_array_get_length (cell) > 2)
            source.model_read = (gsize) json_array_get_int_element (cell, 2);
          g_array_append_val (sources, source);
        }

      provenance = assay_provenance_trace (answer, -1, (AssayProvenanceSource *) (gpointer) sources->data,
                                           sources->len);

      /* Claims: the expected numbers, in order, matched by their text. */
      n_expected += json_array_get_length (expected);
      n_claims += provenance->numbers->len;
      for (guint k = 0; k < provenance->numbers->len; k++)
        {
          const AssayTracedNumber *traced = g_ptr_array_index (provenance->numbers, k);
          JsonArray *want = NULL;
          const char *want_cell = NULL;

          g_assert_cmpuint (traced->end, <=, strlen (answer));
          g_assert_cmpint (strncmp (answer + traced->start, traced->text, traced->end - traced->start), ==, 0);

          for (guint w = next; w < json_array_get_length (expected); w++)
            {
              JsonArray *candidate = json_array_get_array_element (expected, w);
              if (g_strcmp0 (json_array_get_string_element (candidate, 0), traced->text) == 0)
                {
                  want = candidate;
                  next = w + 1;
                  break;
                }
            }
          if (want == NULL)
            {
              g_test_message ("%s: “%s” is not a claim here", name, traced->text);
              exact = FALSE;
              if (traced->found)
                {
                  /* Traced, but to a number the corpus does not count: neither right nor an
                   * invention. */
                  n_found++;
                }
              continue;
            }
          n_claims_right++;
          if (!JSON_NODE_HOLDS_NULL (json_array_get_element (want, 1)))
            want_cell = json_array_get_string_element (want, 1);
          if (want_cell != NULL)
            n_traceable++;
          else
            n_invented++;
          if (traced->found)
            {
              n_found++;
              if (g_strcmp0 (traced->cell_id, want_cell) == 0)
                n_found_right++;
              if (want_cell == NULL)
                n_invented_traced++;
            }
          /* A third member: "ambiguous", "weak" (not found, matched only among many numbers),
           * or "line N" (the line of the label the answer names). */
          if (json_array_get_length (want) > 2)
            {
              const char *kind = json_array_get_string_element (want, 2);
              gboolean right;

              if (g_str_equal (kind, "ambiguous"))
                right = traced->found && traced->ambiguous;
              else if (g_str_equal (kind, "weak"))
                right = !traced->found && traced->weak;
              else
                right = traced->found && !traced->ambiguous &&
                        traced->line == (guint) g_ascii_strtoull (kind + strlen ("line "), NULL, 10);
              n_kinds++;
              if (right)
                n_kinds_right++;
              else
                {
                  g_test_message ("%s: “%s” expected %s: found %d, ambiguous %d, weak %d, line %u", name,
                                  traced->text, kind, traced->found, traced->ambiguous, traced->weak, traced->line);
                  exact = FALSE;
                }
            }
          else if (traced->ambiguous || traced->weak)
            n_unexpected_kinds++;
          if (g_strcmp0 (traced->found ? traced->cell_id : NULL, want_cell) != 0)
            {
              g_test_message ("%s: “%s” traced to %s (line “%s”), expected %s", name, traced->text,
                              traced->found ? traced->cell_id : "nothing",
                              traced->found ? traced->line_text : "",
                              want_cell != NULL ? want_cell : "nothing");
              exact = FALSE;
            }
        }
      if (next < json_array_get_length (expected) ||
          json_array_get_length (expected) != provenance->numbers->len)
        {
          if (provenance->numbers->len < json_array_get_length (expected))
            g_test_message ("%s: %u claims expected, %u found", name,
                            json_array_get_length (expected), provenance->numbers->len);
          exact = FALSE;
        }
      if (exact)
        n_cases_exact++;
    }

  /* Invented numbers (the corpus's "nothing") count among the claims. */
  claim_precision = n_claims > 0 ? (double) n_claims_right / n_claims : 1;
  claim_recall = n_expected > 0 ? (double) n_claims_right / n_expected : 1;
  precision = n_found > 0 ? (double) n_found_right / n_found : 1;
  recall = n_traceable > 0 ? (double) n_found_right / n_traceable : 1;
  g_test_message ("corpus: %u cases (%u English, %u Russian), %u exactly right",
                  json_array_get_length (cases), n_english, n_russian, n_cases_exact);
  g_test_message ("claims: %u expected, %u found; precision %.3f, recall %.3f",
                  n_expected, n_claims, claim_precision, claim_recall);
  g_test_message ("tracing: %u traceable, %u invented; precision %.3f, recall %.3f; invented traced: %u",
                  n_traceable, n_invented, precision, recall, n_invented_traced);

  g_test_message ("places: %u ambiguous, weak or label cases, %u right; %u numbers ambiguous or weak elsewhere",
                  n_kinds, n_kinds_right, n_unexpected_kinds);

  g_assert_cmpuint (n_russian, >=, 15);
  /* Which label, ambiguous, weak: each case as written. */
  g_assert_cmpuint (n_kinds, >=, 12);
  g_assert_cmpuint (n_kinds_right, ==, n_kinds);
  g_assert_cmpuint (n_invented, >=, 15);
  /* An invented number is never reported as traced. */
  g_assert_cmpuint (n_invented_traced, ==, 0);
  g_assert_cmpfloat (precision, >=, 0.99);
  g_assert_cmpfloat (recall, >=, 0.95);
  g_assert_cmpfloat (claim_precision, >=, 0.95);
  g_assert_cmpfloat (claim_recall, >=, 0.95);
}

/* ---- what the sandbox printed is not trusted ---------------------------------------------- */

static void
test_hostile_output (void)
{
  g_autofree char *padding = g_strnfill (100000, 'x');
  g_autofree char *line = g_strdup_printf ("\x1b]52;c;AAAA\x07 %s 9321.5 \x1b[2J\xff %s\n", padding, padding);
  g_autoptr(JsonArray) outputs = json_array_new ();
  g_autoptr(JsonNode) stream = NULL;
  g_autoptr(AssayProvenance) provenance = NULL;
  const AssayTracedNumber *traced;
  AssayProvenanceSource source = { 0 };

  /* The number sits in a 200 KB line with escapes; "xxx 9321.5" is not an identifier. */
  stream = output_from_spec ("stdout:x");
  json_object_set_string_member (json_node_get_object (stream), "text", line);
  json_array_add_element (outputs, g_steal_pointer (&stream));
  source.cell_id = "c1";
  source.outputs = outputs;

  provenance = assay_provenance_trace ("The total is 9,321.5.", -1, &source, 1);
  g_assert_cmpuint (provenance->numbers->len, ==, 1);
  traced = g_ptr_array_index (provenance->numbers, 0);
  g_assert_true (traced->found);
  g_assert_cmpuint (strlen (traced->line_text), <=, ASSAY_PROVENANCE_MAX_LINE + 4);
  g_assert_true (g_utf8_validate (traced->line_text, -1, NULL));
  g_assert_null (strchr (traced->line_text, '\x1b'));
  g_assert_cmpuint (traced->match_end, <=, strlen (traced->line_text));
  g_assert_cmpint (strncmp (traced->line_text + traced->match_start, "9321.5", 6), ==, 0);
}

/* ---- the session record ----------------------------------------------------------------- */

static void
test_record (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-provenance-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (parent, "s", NULL);
  g_autofree char *record = g_build_filename (dir, "session.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssaySession) loaded = NULL;
  g_autoptr(AssaySessionOutline) outline = NULL;
  g_autofree char *text = NULL;
  g_autofree char *tampered = NULL;
  g_autofree char *old = NULL;
  const AssayProvenance *provenance;
  const AssayTracedNumber *traced;
  const AssayOutlineStep *answer_step;
  guint answer_index;

  g_assert_no_error (error);
  /* Question one printed 475046.3 (cell c1); question two printed 1204 (cell c2). Its answer
   * is traced against its own cells only: c1's number does not count for it. */
  session_fixture_ask (session, "Revenue?");
  session_fixture_reply (session, "Summing.", 1, "call_1");
  session_fixture_run_cell (session, "c1", 1, "call_1", "475046.3", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "Revenue was EUR 475,046.", 0);
  assay_session_finish_step (session);
  provenance = assay_session_trace_answer (session, assay_session_get_messages (session)->len - 1);
  g_assert_nonnull (provenance);
  g_assert_cmpuint (assay_provenance_count_untraced (provenance), ==, 0);

  session_fixture_ask (session, "Rows?");
  session_fixture_reply (session, "Counting.", 1, "call_1");
  session_fixture_run_cell (session, "c2", 3, "call_1", "1204", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "There are 1,204 rows, and revenue was 475,046.", 0);
  assay_session_finish_step (session);
  answer_index = assay_session_get_messages (session)->len - 1;
  provenance = assay_session_trace_answer (session, answer_index);
  g_assert_cmpuint (provenance->numbers->len, ==, 2);
  traced = g_ptr_array_index (provenance->numbers, 0);
  g_assert_true (traced->found);
  g_assert_cmpstr (traced->cell_id, ==, "c2");
  traced = g_ptr_array_index (provenance->numbers, 1);
  g_assert_false (traced->found);
  g_assert_cmpuint (assay_provenance_count_untraced (provenance), ==, 1);
  /* Not an answer: a reply with calls, a question. */
  g_assert_null (assay_session_trace_answer (session, answer_index - 1));
  g_assert_null (assay_session_trace_answer (session, 0));
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_get_contents (record, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"format_version\" : 2"));
  g_assert_nonnull (strstr (text, "\"provenance\""));

  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  provenance = assay_session_get_provenance (loaded, answer_index);
  g_assert_nonnull (provenance);
  g_assert_cmpuint (provenance->numbers->len, ==, 2);
  traced = g_ptr_array_index (provenance->numbers, 0);
  g_assert_cmpstr (traced->text, ==, "1,204");
  g_assert_cmpstr (traced->cell_id, ==, "c2");
  g_assert_cmpstr (traced->view, ==, "stream");
  g_assert_cmpuint (traced->line, ==, 1);
  g_assert_cmpstr (traced->line_text, ==, "1204");

  outline = assay_session_outline_new (loaded);
  g_assert_cmpuint (outline->questions->len, ==, 2);
  answer_step = g_ptr_array_index (((AssayOutlineQuestion *) g_ptr_array_index (outline->questions, 1))->steps, 1);
  g_assert_true (answer_step->is_answer);
  g_assert_cmpuint (answer_step->message, ==, answer_index);
  g_assert_true (answer_step->provenance == provenance);
  g_clear_object (&loaded);

  /* A record whose span does not hold the number it names loses that entry only. */
  tampered = g_strdup (text);
  {
    char *at = strstr (tampered, "\"text\" : \"1,204\"");
    g_assert_nonnull (at);
    memcpy (at + strlen ("\"text\" : \""), "9,999", 5);
  }
  g_assert_true (g_file_set_contents (record, tampered, -1, NULL));
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  provenance = assay_session_get_provenance (loaded, answer_index);
  g_assert_cmpuint (provenance->numbers->len, ==, 1);
  g_clear_object (&loaded);

  /* A record of format 1 (no provenance) still opens. */
  old = g_strdup (text);
  {
    char *at = strstr (old, "\"format_version\" : 2");
    at[strlen ("\"format_version\" : ")] = '1';
    at = strstr (old, "\"provenance\"");
    g_assert_nonnull (at);
    memcpy (at, "\"ignored_ab\"", strlen ("\"provenance\""));
  }
  g_assert_true (g_file_set_contents (record, old, -1, NULL));
  loaded = assay_session_load (dir, &error);
  g_assert_no_error (error);
  g_assert_null (assay_session_get_provenance (loaded, answer_index));
  g_assert_cmpuint (assay_session_get_messages (loaded)->len, ==, answer_index + 1);
  g_clear_object (&loaded);

  g_assert_true (assay_session_delete (dir, &error));
  g_rmdir (parent);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/provenance/scan", test_scan);
  g_test_add_func ("/assay/provenance/corpus", test_corpus);
  g_test_add_func ("/assay/provenance/hostile-output", test_hostile_output);
  g_test_add_func ("/assay/provenance/record", test_record);
  return g_test_run ();
}
