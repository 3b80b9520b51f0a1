/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "assay-llm-turn-private.h"
#include "assay-sse-parser.h"

/* Feeds arbitrary bytes to the SSE parser, in pieces whose sizes come from the input, and
 * every event it yields to the Chat Completions, Anthropic or Responses decoder (the first
 * byte chooses).
 * Checks that the pieces do not change the events (against one whole feed), that text and
 * tool-call pieces add up to the response, and that nothing crashes or leaks. */

typedef struct
{
  guint64 hash;
  guint   count;
} Digest;

static void
digest_add (Digest     *digest,
            const char *data,
            gsize       len)
{
  for (gsize i = 0; i < len; i++)
    digest->hash = (digest->hash ^ (guint8) data[i]) * 1099511628211ull;
  digest->hash = (digest->hash ^ 0xff) * 1099511628211ull;
}

typedef struct
{
  Digest        digest;
  AssayLlmTurn *turn;
  gboolean      turn_failed;
  GString      *emitted_text;
  GPtrArray    *emitted_calls;   /* GString*, by index */
} Sink;

static gboolean
on_event (const char  *event,
          const char  *data,
          gsize        data_len,
          gpointer     user_data,
          GError     **error)
{
  Sink *sink = user_data;

  digest_add (&sink->digest, event, strlen (event));
  digest_add (&sink->digest, data, data_len);
  sink->digest.count++;

  if (sink->turn != NULL && !sink->turn_failed)
    {
      GError *local_error = NULL;

      if (!assay_llm_turn_feed_event (sink->turn, event, data, data_len, &local_error))
        {
          if (local_error == NULL || local_error->domain != ASSAY_LLM_ERROR)
            abort ();
          g_error_free (local_error);
          sink->turn_failed = TRUE;
        }
      else if (local_error != NULL)
        abort ();
    }
  return TRUE;
}

static void
on_emit (int         index,
         const char *id,
         const char *name,
         const char *text,
         gpointer    user_data)
{
  Sink *sink = user_data;

  if (text == NULL)
    abort ();
  if (index < 0)
    {
      g_string_append (sink->emitted_text, text);
      return;
    }
  if (id == NULL || name == NULL || (guint) index > sink->emitted_calls->len)
    abort ();
  if ((guint) index == sink->emitted_calls->len)
    g_ptr_array_add (sink->emitted_calls, g_string_new (NULL));
  g_string_append (g_ptr_array_index (sink->emitted_calls, index), text);
}

static void
string_free (gpointer data)
{
  g_string_free (data, TRUE);
}

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  AssaySseParser *parser;
  Sink whole = { { 14695981039346656037ull, 0 } };
  Sink pieces = { { 14695981039346656037ull, 0 } };
  AssayLlmFlavor flavor;
  gboolean whole_ok;
  gboolean pieces_ok = TRUE;
  GError *error = NULL;
  gsize pos = 1;

  if (size < 1)
    return 0;
  flavor = data[0] % 3 == 1 ? ASSAY_LLM_FLAVOR_ANTHROPIC
           : data[0] % 3 == 2 ? ASSAY_LLM_FLAVOR_OPENAI_RESPONSES : ASSAY_LLM_FLAVOR_OPENAI;

  /* Whole, through the decoder. */
  whole.emitted_text = g_string_new (NULL);
  whole.emitted_calls = g_ptr_array_new_with_free_func (string_free);
  whole.turn = assay_llm_turn_new (flavor, on_emit, &whole);
  parser = assay_sse_parser_new (64 * 1024);
  whole_ok = assay_sse_parser_feed (parser, (const char *) data + 1, size - 1, on_event, &whole, &error);
  if (whole_ok != (error == NULL))
    abort ();
  g_clear_error (&error);
  assay_sse_parser_free (parser);

  if (!whole.turn_failed)
    {
      gboolean complete = assay_llm_turn_check_complete (whole.turn, &error);

      if (complete != (error == NULL))
        abort ();
      g_clear_error (&error);

      /* Only a complete turn becomes a response; everything in it was signalled. */
      if (complete)
        {
          AssayLlmResponse *response = assay_llm_turn_to_response (whole.turn);

          if (strcmp (response->text, whole.emitted_text->str) != 0 ||
              response->tool_calls->len != whole.emitted_calls->len)
            abort ();
          for (guint i = 0; i < response->tool_calls->len; i++)
            {
              AssayLlmToolCall *call = g_ptr_array_index (response->tool_calls, i);
              GString *emitted = g_ptr_array_index (whole.emitted_calls, i);

              if (strcmp (call->arguments, emitted->str) != 0)
                abort ();
            }
          assay_llm_response_free (response);
        }
    }

  /* In pieces: the same events. */
  parser = assay_sse_parser_new (64 * 1024);
  while (pos < size && pieces_ok)
    {
      guint8 seed = data[pos];
      gsize piece = (seed & 0x80) ? 1 + (seed & 0x07) : 1 + (gsize) seed * 13;

      piece = MIN (piece, size - pos);
      pieces_ok = assay_sse_parser_feed (parser, (const char *) data + pos, piece, on_event, &pieces, &error);
      g_clear_error (&error);
      pos += piece;
    }
  assay_sse_parser_free (parser);

  /* The cap is per line and per event, so a failure does not depend on the pieces; before
   * it, the events are the same. */
  if (pieces_ok != whole_ok)
    abort ();
  if (pieces_ok && (pieces.digest.hash != whole.digest.hash || pieces.digest.count != whole.digest.count))
    abort ();

  assay_llm_turn_free (whole.turn);
  g_string_free (whole.emitted_text, TRUE);
  g_ptr_array_unref (whole.emitted_calls);
  return 0;
}
