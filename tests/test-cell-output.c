/* SPDX-License-Identifier: GPL-3.0-or-later */
/* AssayCellOutput: the one reading of an nbformat output, against well-formed outputs and
 * the ones a hand-edited session record can hold (members of the wrong type). */
#include "config.h"

#include "assay-cell-checks.h"
#include "assay-cell-output.h"
#include "assay-json.h"

static GPtrArray *nodes;

static AssayCellOutput *
read_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = assay_json_from_untrusted (text, &error);

  g_assert_no_error (error);
  /* The output borrows its bundle: the node is kept for the test's life. */
  g_ptr_array_add (nodes, node);
  return assay_cell_output_read (node);
}

static void
test_stream (void)
{
  g_autoptr(AssayCellOutput) joined = read_json ("{\"output_type\":\"stream\",\"name\":\"stderr\",\"text\":[\"a\\n\",\"b\",7]}");
  g_autoptr(AssayCellOutput) plain = read_json ("{\"output_type\":\"stream\",\"text\":\"x\"}");
  g_autoptr(AssayCellOutput) wrong = read_json ("{\"output_type\":\"stream\",\"name\":[1],\"text\":{\"a\":1}}");
  g_autofree char *text = NULL;

  g_assert_cmpint (joined->kind, ==, ASSAY_CELL_OUTPUT_STREAM);
  g_assert_true (joined->is_stderr);
  g_assert_cmpstr (joined->text, ==, "a\nb");
  g_assert_false (plain->is_stderr);
  text = assay_cell_output_dup_text (plain);
  g_assert_cmpstr (text, ==, "x");
  /* A record that says otherwise reads as an empty stdout, not a crash or a warning. */
  g_assert_cmpint (wrong->kind, ==, ASSAY_CELL_OUTPUT_STREAM);
  g_assert_false (wrong->is_stderr);
  g_assert_cmpstr (wrong->text, ==, "");
}

static void
test_rich (void)
{
  g_autoptr(AssayCellOutput) result = read_json ("{\"output_type\":\"execute_result\",\"data\":{\"text/plain\":[\"  a\\n\",\"0 1\"],"
                                                 "\"text/html\":\"<table></table>\"}}");
  g_autoptr(AssayCellOutput) figure = read_json ("{\"output_type\":\"display_data\",\"data\":{\"image/png\":\"iVBORw0KGgo=\",\"text/plain\":\"<Figure>\"}}");
  g_autoptr(AssayCellOutput) svg = read_json ("{\"output_type\":\"display_data\",\"data\":{\"image/svg+xml\":\"<svg/>\"}}");
  g_autoptr(AssayCellOutput) no_data = read_json ("{\"output_type\":\"display_data\",\"data\":[1,2]}");
  g_autoptr(AssayCellOutput) bad_member = read_json ("{\"output_type\":\"execute_result\",\"data\":{\"text/plain\":{\"x\":1},\"image/png\":5}}");

  g_assert_cmpint (result->kind, ==, ASSAY_CELL_OUTPUT_RESULT);
  g_assert_cmpstr (result->plain, ==, "  a\n0 1");
  g_assert_cmpstr (result->html, ==, "<table></table>");
  g_assert_null (result->png_base64);
  g_assert_false (result->has_image);
  g_assert_cmpint (figure->kind, ==, ASSAY_CELL_OUTPUT_DISPLAY);
  g_assert_cmpstr (figure->png_base64, ==, "iVBORw0KGgo=");
  g_assert_true (figure->has_image);
  g_assert_true (svg->has_image);
  g_assert_null (svg->png_base64);
  g_assert_null (no_data->data);
  g_assert_null (no_data->plain);
  g_assert_null (assay_cell_output_dup_text (no_data));
  g_assert_nonnull (bad_member->data);
  g_assert_null (bad_member->plain);
  g_assert_null (bad_member->png_base64);
}

static void
test_error (void)
{
  g_autoptr(AssayCellOutput) traced = read_json ("{\"output_type\":\"error\",\"ename\":\"KeyError\",\"evalue\":\"'x'\","
                                                 "\"traceback\":[\"Traceback\",{\"no\":1},\"KeyError: 'x'\\n\"]}");
  g_autoptr(AssayCellOutput) bare = read_json ("{\"output_type\":\"error\",\"ename\":3,\"traceback\":\"not a list\"}");
  g_autofree char *text = assay_cell_output_dup_text (traced);
  g_autofree char *bare_text = assay_cell_output_dup_text (bare);

  g_assert_cmpint (traced->kind, ==, ASSAY_CELL_OUTPUT_ERROR);
  g_assert_cmpuint (traced->traceback->len, ==, 2);
  g_assert_cmpstr (text, ==, "Traceback\nKeyError: 'x'\n");
  g_assert_cmpstr (bare->ename, ==, "Error");
  g_assert_cmpstr (bare->evalue, ==, "");
  g_assert_cmpuint (bare->traceback->len, ==, 0);
  g_assert_cmpstr (bare_text, ==, "Error: \n");
}

static void
test_other (void)
{
  g_autoptr(AssayCellOutput) unknown = read_json ("{\"output_type\":\"update_display_data\"}");
  g_autoptr(AssayCellOutput) typeless = read_json ("{\"output_type\":1}");
  g_autoptr(JsonNode) array = json_from_string ("[1]", NULL);

  g_assert_cmpint (unknown->kind, ==, ASSAY_CELL_OUTPUT_OTHER);
  g_assert_cmpint (typeless->kind, ==, ASSAY_CELL_OUTPUT_OTHER);
  g_assert_null (assay_cell_output_dup_text (unknown));
  g_assert_null (assay_cell_output_read (array));
  g_assert_null (assay_cell_output_read (NULL));
}

static void
test_json_getters (void)
{
  g_autoptr(JsonNode) node = json_from_string ("{\"s\":\"x\",\"n\":12,\"f\":12.0,\"big\":1e300,\"b\":true,"
                                               "\"o\":{},\"a\":[],\"null\":null}", NULL);
  JsonObject *object = json_node_get_object (node);
  gint64 value = -1;

  g_assert_cmpstr (assay_json_get_string (object, "s"), ==, "x");
  g_assert_null (assay_json_get_string (object, "n"));
  g_assert_null (assay_json_get_string (object, "o"));
  g_assert_null (assay_json_get_string (object, "null"));
  g_assert_null (assay_json_get_string (NULL, "s"));
  g_assert_nonnull (assay_json_get_object (object, "o"));
  g_assert_null (assay_json_get_object (object, "a"));
  g_assert_nonnull (assay_json_get_array (object, "a"));
  g_assert_null (assay_json_get_array (object, "s"));
  g_assert_true (assay_json_get_int (object, "n", &value));
  g_assert_cmpint (value, ==, 12);
  g_assert_true (assay_json_get_int (object, "f", &value));
  g_assert_cmpint (value, ==, 12);
  g_assert_false (assay_json_get_int (object, "big", &value));
  g_assert_false (assay_json_get_int (object, "s", &value));
  g_assert_cmpint (assay_json_get_int_or (object, "missing", 7), ==, 7);
  g_assert_true (assay_json_get_boolean_or (object, "b", FALSE));
  g_assert_true (assay_json_get_boolean_or (object, "s", TRUE));
  g_assert_false (assay_json_get_boolean_or (object, "n", FALSE));
}

/* A cell's checks come from the sandbox (and from records): only what the protocol allows. */
static void
test_checks_untrusted (void)
{
  g_autoptr(GString) json = g_string_new ("{\"items\": [");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(AssayCellChecks) checks = NULL;
  g_autoptr(AssayCellChecks) copy = NULL;
  g_autofree char *described = NULL;
  const AssayCheck *check;

  g_string_append (json, "{\"kind\": \"read\", \"file\": \"a\\u001b[2Jb.csv\", \"rows\": 3, \"columns\": -4},");
  g_string_append (json, "{\"kind\": \"merge\", \"how\": \"sideways\", \"left\": 5, \"right\": 2, \"rows\": 5,"
                         " \"left_unmatched\": \"many\", \"many_to_many\": true},");
  g_string_append (json, "{\"kind\": \"rm -rf\", \"rows\": 1}, {\"kind\": \"dropna\", \"rows\": 2},");
  g_string_append (json, "{\"kind\": \"read\", \"rows\": 9}, 7, null");
  for (int i = 0; i < 200; i++)
    g_string_append (json, ", {\"kind\": \"drop_duplicates\", \"before\": 2, \"rows\": 1}");
  g_string_append (json, "], \"files\": [\"x.csv\", 3, \"\"]}");
  g_assert_true (json_parser_load_from_data (parser, json->str, -1, NULL));

  checks = assay_cell_checks_from_json (json_parser_get_root (parser));
  g_assert_nonnull (checks);
  g_assert_cmpuint (checks->items->len, ==, ASSAY_CELL_CHECKS_MAX);
  check = g_ptr_array_index (checks->items, 0);
  g_assert_cmpint (check->kind, ==, ASSAY_CHECK_READ);
  g_assert_cmpstr (check->file, ==, "a?[2Jb.csv");          /* no escape reaches a terminal */
  g_assert_cmpint (check->columns, ==, -1);                  /* negative: unknown */
  check = g_ptr_array_index (checks->items, 1);
  g_assert_cmpint (check->kind, ==, ASSAY_CHECK_MERGE);
  g_assert_null (check->how);
  g_assert_cmpint (check->left_unmatched, ==, -1);
  g_assert_cmpint (check->many_to_many, ==, 1);
  /* The unknown kind, the dropna without "before" and the read of no file are gone. */
  check = g_ptr_array_index (checks->items, 2);
  g_assert_cmpint (check->kind, ==, ASSAY_CHECK_DROP_DUPLICATES);
  g_assert_cmpuint (checks->files->len, ==, 1);

  copy = assay_cell_checks_copy (checks);
  g_assert_cmpuint (copy->items->len, ==, checks->items->len);
  described = assay_cell_checks_describe (copy, TRUE);
  g_assert_true (g_str_has_prefix (described, "read a?[2Jb.csv (rows: 3, columns: 0); merge (inner): rows 5 and 2 → 5, "
                                              "keys repeated on both sides (many-to-many); drop_duplicates: rows 2 → 1 (removed: 1)"));
  g_assert_true (g_str_has_suffix (described, "; opened /data/x.csv"));

  /* Nothing to say: NULL. */
  g_assert_true (json_parser_load_from_data (parser, "{\"items\": [{\"kind\": \"x\"}], \"files\": []}", -1, NULL));
  g_assert_null (assay_cell_checks_from_json (json_parser_get_root (parser)));
  g_assert_null (assay_cell_checks_from_json (NULL));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_test_add_func ("/assay/cell-output/stream", test_stream);
  g_test_add_func ("/assay/cell-output/rich", test_rich);
  g_test_add_func ("/assay/cell-output/error", test_error);
  g_test_add_func ("/assay/cell-output/other", test_other);
  g_test_add_func ("/assay/json/getters", test_json_getters);
  g_test_add_func ("/assay/cell-checks/untrusted", test_checks_untrusted);
  status = g_test_run ();
  g_ptr_array_unref (nodes);
  return status;
}
