/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "assay-sse-parser.h"

/* Events as "event|data" strings, one per dispatch. */
static gboolean
collect (const char  *event,
         const char  *data,
         gsize        data_len,
         gpointer     user_data,
         GError     **error)
{
  GPtrArray *events = user_data;

  g_assert_cmpuint (strlen (data), ==, data_len);
  g_ptr_array_add (events, g_strdup_printf ("%s|%s", event, data));
  return TRUE;
}

static GPtrArray *
parse_in_pieces (const char *stream,
                 gsize       len,
                 gsize       piece)
{
  g_autoptr(AssaySseParser) parser = assay_sse_parser_new (0);
  GPtrArray *events = g_ptr_array_new_with_free_func (g_free);

  for (gsize pos = 0; pos < len; pos += piece)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (assay_sse_parser_feed (parser, stream + pos, MIN (piece, len - pos),
                                            collect, events, &error));
      g_assert_no_error (error);
    }
  return events;
}

static void
assert_events (GPtrArray          *events,
               const char * const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (n, events->len); i++)
    g_assert_cmpstr (g_ptr_array_index (events, i), ==, expected[i]);
  g_assert_cmpuint (events->len, ==, n);
}

/* A stream with every feature: BOM, comments, CR, LF and CRLF endings, multi-line data,
 * empty data, named events, a field without a colon, id and retry, no space after colon,
 * an event with no data (not dispatched) and an unterminated last event (discarded). */
static const char varied[] =
  "\xEF\xBB\xBF: a comment first\r\n"
  "data: {\"a\":1}\n\n"
  "event: message_start\r\ndata: one\r\ndata: two\r\n\r\n"
  "data:no-space\r\r"
  "id: 7\nretry: 100\ndata\n\n"
  "event: ping\n\n"
  "data: \n\n"
  ": keep-alive\n"
  "event: content_block_delta\ndata: {\"text\":\"é\"}\nunknown: x\n\n"
  "data: [DONE]\n\n"
  "data: never ended";

static const char * const varied_expected[] = {
  "message|{\"a\":1}",
  "message_start|one\ntwo",
  "message|no-space",
  "message|",
  "message|",
  "content_block_delta|{\"text\":\"é\"}",
  "message|[DONE]",
  NULL
};

static void
test_byte_by_byte (void)
{
  g_autoptr(GPtrArray) whole = parse_in_pieces (varied, sizeof varied - 1, sizeof varied);
  g_autoptr(GPtrArray) bytes = parse_in_pieces (varied, sizeof varied - 1, 1);

  assert_events (whole, varied_expected);
  assert_events (bytes, varied_expected);

  for (gsize piece = 2; piece < 17; piece++)
    {
      g_autoptr(GPtrArray) events = parse_in_pieces (varied, sizeof varied - 1, piece);

      assert_events (events, varied_expected);
    }
}

static void
test_line_endings (void)
{
  static const char * const expected[] = { "message|a\nb", "x|c", NULL };
  const char *streams[] = {
    "data: a\ndata: b\n\nevent: x\ndata: c\n\n",
    "data: a\rdata: b\r\revent: x\rdata: c\r\r",
    "data: a\r\ndata: b\r\n\r\nevent: x\r\ndata: c\r\n\r\n",
    "data: a\r\ndata: b\n\revent: x\rdata: c\n\r\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (streams); i++)
    for (gsize piece = 1; piece <= strlen (streams[i]); piece++)
      {
        g_autoptr(GPtrArray) events = parse_in_pieces (streams[i], strlen (streams[i]), piece);

        assert_events (events, expected);
      }
}

/* A CRLF cut between two pieces is one line end, not two (which would end the event). */
static void
test_split_crlf (void)
{
  g_autoptr(AssaySseParser) parser = assay_sse_parser_new (0);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func (g_free);
  static const char * const expected[] = { "message|a\nb", NULL };

  g_assert_true (assay_sse_parser_feed (parser, "data: a\r", 8, collect, events, NULL));
  g_assert_true (assay_sse_parser_feed (parser, "\ndata: b\r", 9, collect, events, NULL));
  g_assert_cmpuint (events->len, ==, 0);
  g_assert_true (assay_sse_parser_feed (parser, "\n\r", 2, collect, events, NULL));
  g_assert_true (assay_sse_parser_feed (parser, "\n", 1, collect, events, NULL));
  assert_events (events, expected);
}

static void
test_bom_only_at_start (void)
{
  g_autoptr(AssaySseParser) parser = assay_sse_parser_new (0);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func (g_free);
  static const char * const expected[] = { "message|x", "message|\xEF\xBB\xBFy", NULL };

  /* Split BOM, then a BOM inside a value is text. */
  g_assert_true (assay_sse_parser_feed (parser, "\xEF", 1, collect, events, NULL));
  g_assert_true (assay_sse_parser_feed (parser, "\xBB\xBF" "data: x\n\n", 11, collect, events, NULL));
  g_assert_true (assay_sse_parser_feed (parser, "data: \xEF\xBB\xBFy\n\n", 12, collect, events, NULL));
  assert_events (events, expected);
}

static void
test_oversize (void)
{
  g_autoptr(AssaySseParser) parser = assay_sse_parser_new (64);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *long_line = g_strnfill (100, 'x');

  /* A long line fails even when it comes in small pieces. */
  for (guint i = 0; i < 100 && error == NULL; i += 10)
    assay_sse_parser_feed (parser, long_line + i, 10, collect, events, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_clear_error (&error);

  /* Once failed, it stays failed. */
  g_assert_false (assay_sse_parser_feed (parser, "\n\n", 2, collect, events, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* Many short data lines that add up to too much fail too. */
  assay_sse_parser_reset (parser);
  for (guint i = 0; i < 20 && error == NULL; i++)
    assay_sse_parser_feed (parser, "data: 0123456789\n", 17, collect, events, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_cmpuint (events->len, ==, 0);
}

static gboolean
refuse (const char  *event,
        const char  *data,
        gsize        data_len,
        gpointer     user_data,
        GError     **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "no");
  return FALSE;
}

static void
test_callback_stops (void)
{
  g_autoptr(AssaySseParser) parser = assay_sse_parser_new (0);
  g_autoptr(GError) error = NULL;

  g_assert_false (assay_sse_parser_feed (parser, "data: 1\n\ndata: 2\n\n", 18, refuse, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/assay/sse/byte-by-byte", test_byte_by_byte);
  g_test_add_func ("/assay/sse/line-endings", test_line_endings);
  g_test_add_func ("/assay/sse/split-crlf", test_split_crlf);
  g_test_add_func ("/assay/sse/bom", test_bom_only_at_start);
  g_test_add_func ("/assay/sse/oversize", test_oversize);
  g_test_add_func ("/assay/sse/callback-stops", test_callback_stops);

  return g_test_run ();
}
