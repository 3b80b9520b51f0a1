/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The check in front of every untrusted JSON text, and the readers it guards: a 300,000-deep
 * text from the kernel, a model server, a session record or a transcript is an error in
 * words, not a stack overflow in json-glib. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "assay-json.h"
#include "assay-kernel-channel.h"
#include "assay-llm-turn-private.h"
#include "assay-session.h"

#define DEEP 300000

static char *
nested (guint       depth,
        const char *open,
        const char *inner,
        const char *close)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (text, open);
  g_string_append (text, inner);
  for (guint i = 0; i < depth; i++)
    g_string_append (text, close);
  return g_string_free (text, FALSE);
}

static gboolean
check (const char *text,
       guint      *depth)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = assay_json_check (text, -1, ASSAY_JSON_MAX_DEPTH, depth, &error);

  g_assert_true (ok == (error == NULL));
  return ok;
}

static void
test_check_valid (void)
{
  static const struct { const char *text; guint depth; } cases[] = {
    { "", 0 }, { " \n\t\r ", 0 }, { "1", 0 }, { "-0.5e+3", 0 }, { "\"x\"", 0 }, { "null", 0 },
    { "[]", 1 }, { "{}", 1 }, { "{  }", 1 }, { "[ \n ]", 1 }, { "{\"a\": {  }, \"b\": [ ]}", 2 }, { "[1, [2, {\"a\": [true, false, null]}]]", 4 },
    /* Brackets inside strings are text, escapes included. */
    { "[\"[[[[[\\\"[[[\", \"]]\"]", 1 },
    { "{\"k\\u0041\": \"\\ud83d\\ude00 \\/ \\b\\f\\n\\r\\t\"}", 1 },
    /* A raw tab or newline in a string changes no structure. */
    { "[\"a\tb\nc\"]", 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint depth = 99;

      g_assert_true (check (cases[i].text, &depth));
      g_assert_cmpuint (depth, ==, cases[i].depth);
    }
}

static void
test_check_refused (void)
{
  /* What json-glib's scanner takes but a plain reading does not: each would let it see
   * brackets that the check counted as text, or none at all. */
  static const char * const cases[] = {
    "/* \" */ [1]", "['\"', 1]", "{'a': 1}", "[\"\\ud800\", 1]", "[\"\\udc00\"]",
    "[\"\\ud800\\u0041\"]", "[\"\\x41\"]", "[\"\\101\"]", "[1,]", "[1 2]", "{\"a\" 1}",
    "{1: 2}", "[01]", "[1.]", "[.5]", "[+1]", "[tru]", "[nul]", "NaN", "[1] [2]", "[",
    "]", "[\"open", "{\"a\":}", "x",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      if (check (cases[i], NULL))
        g_error ("accepted %s", cases[i]);
    }
  /* A NUL, even after a complete value. */
  g_assert_false (assay_json_check ("[1]\0[[[", 7, ASSAY_JSON_MAX_DEPTH, NULL, NULL));
  g_assert_false (assay_json_check ("[\"a\0\"]", 6, ASSAY_JSON_MAX_DEPTH, NULL, NULL));
}

static void
test_check_depth (void)
{
  g_autofree char *at_cap = nested (ASSAY_JSON_MAX_DEPTH, "[", "1", "]");
  g_autofree char *over = nested (ASSAY_JSON_MAX_DEPTH + 1, "{\"a\":", "1", "}");
  g_autofree char *deep = nested (DEEP, "[", "", "]");
  g_autofree char *comment_bypass = g_strconcat ("/* \" */ ", deep, NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  guint depth = 0;

  g_assert_true (check (at_cap, &depth));
  g_assert_cmpuint (depth, ==, ASSAY_JSON_MAX_DEPTH);
  g_assert_false (check (over, NULL));
  g_assert_false (check (deep, NULL));
  g_assert_false (check (comment_bypass, NULL));

  g_assert_false (assay_json_parser_load_untrusted (parser, deep, -1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "nested deeper than 128"));
  g_clear_error (&error);
  g_assert_null (assay_json_from_untrusted (comment_bypass, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

static void
test_kernel_message (void)
{
  g_autofree char *inner = nested (DEEP, "[", "", "]");
  g_autofree char *line = g_strdup_printf ("{\"type\":\"log\",\"text\":%s}", inner);
  g_autoptr(GError) error = NULL;

  g_assert_null (assay_kernel_message_parse (line, strlen (line), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

static void
ignore_emit (int         index,
             const char *id,
             const char *name,
             const char *text,
             gpointer    user_data)
{
}

static void
test_model_event (void)
{
  g_autofree char *inner = nested (DEEP, "[", "", "]");
  g_autofree char *event = g_strdup_printf ("{\"choices\":%s}", inner);

  static const AssayLlmFlavor flavors[] = { ASSAY_LLM_FLAVOR_OPENAI, ASSAY_LLM_FLAVOR_ANTHROPIC,
                                            ASSAY_LLM_FLAVOR_OPENAI_RESPONSES };
  static const char *names[] = { "message", "message_start", "response.output_item.done" };

  for (guint flavor = 0; flavor < G_N_ELEMENTS (flavors); flavor++)
    {
      AssayLlmTurn *turn = assay_llm_turn_new (flavors[flavor], ignore_emit, NULL);
      g_autoptr(GError) error = NULL;

      g_assert_false (assay_llm_turn_feed_event (turn, names[flavor], event, strlen (event), &error));
      g_assert_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL);
      assay_llm_turn_free (turn);
    }
}

static void
test_session_record (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-json-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "session.json", NULL);
  g_autofree char *inner = nested (DEEP, "[", "", "]");
  g_autofree char *record = g_strdup_printf ("{\"format_version\":1,\"id\":\"x\",\"title\":%s}", inner);
  g_autoptr(GError) error = NULL;
  AssaySession *session;

  g_assert_true (g_file_set_contents (path, record, -1, NULL));
  session = assay_session_load (dir, &error);
  g_assert_null (session);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/json/check/valid", test_check_valid);
  g_test_add_func ("/assay/json/check/refused", test_check_refused);
  g_test_add_func ("/assay/json/check/depth", test_check_depth);
  g_test_add_func ("/assay/json/kernel-message", test_kernel_message);
  g_test_add_func ("/assay/json/model-event", test_model_event);
  g_test_add_func ("/assay/json/session-record", test_session_record);
  return g_test_run ();
}
