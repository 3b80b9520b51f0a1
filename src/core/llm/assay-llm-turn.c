/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-llm-turn-private.h"
#include "assay-json.h"

#define MAX_MESSAGE_CHARS 500

static void
assay_llm_turn_call_free (AssayLlmTurnCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call->initial_input);
  g_free (call);
}

AssayLlmTurn *
assay_llm_turn_new (AssayLlmFlavor    flavor,
                    AssayLlmEmitFunc  emit,
                    gpointer          emit_data)
{
  AssayLlmTurn *turn = g_new0 (AssayLlmTurn, 1);

  turn->flavor = flavor;
  turn->emit = emit;
  turn->emit_data = emit_data;
  turn->text = g_string_new (NULL);
  turn->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_turn_call_free);
  assay_llm_turn_reset (turn);
  return turn;
}

void
assay_llm_turn_free (AssayLlmTurn *turn)
{
  if (turn == NULL)
    return;
  g_string_free (turn->text, TRUE);
  g_ptr_array_unref (turn->calls);
  g_free (turn->stop_reason_raw);
  g_clear_pointer (&turn->reasoning_items, json_array_unref);
  g_clear_pointer (&turn->hosted_calls, json_array_unref);
  g_clear_pointer (&turn->citations, json_array_unref);
  g_free (turn);
}

void
assay_llm_turn_reset (AssayLlmTurn *turn)
{
  g_string_truncate (turn->text, 0);
  g_ptr_array_set_size (turn->calls, 0);
  g_clear_pointer (&turn->stop_reason_raw, g_free);
  turn->stop_reason = ASSAY_LLM_STOP_OTHER;
  turn->input_tokens = -1;
  turn->output_tokens = -1;
  turn->cached_input_tokens = -1;
  turn->cache_write_tokens = -1;
  turn->reasoning_tokens = -1;
  turn->finished = FALSE;
  turn->done = FALSE;
  turn->anthropic_text_block = -1;
  g_clear_pointer (&turn->reasoning_items, json_array_unref);
  turn->reasoning_bytes = 0;
  turn->reasoning_summary_chars = 0;
  g_clear_pointer (&turn->hosted_calls, json_array_unref);
  g_clear_pointer (&turn->citations, json_array_unref);
  turn->hosted_bytes = 0;
}

void
assay_llm_turn_add_text (AssayLlmTurn *turn,
                         const char   *text)
{
  if (text == NULL || text[0] == '\0')
    return;
  g_string_append (turn->text, text);
  if (turn->emit != NULL)
    turn->emit (-1, NULL, NULL, text, turn->emit_data);
}

/* The latest call with that wire index: a new id at the same index starts another call. */
AssayLlmTurnCall *
assay_llm_turn_find_call (AssayLlmTurn *turn,
                          guint         wire_index)
{
  for (guint i = turn->calls->len; i > 0; i--)
    {
      AssayLlmTurnCall *call = g_ptr_array_index (turn->calls, i - 1);

      if (call->wire_index == wire_index)
        return call;
    }
  return NULL;
}

AssayLlmTurnCall *
assay_llm_turn_start_call (AssayLlmTurn *turn,
                           guint         wire_index,
                           const char   *id,
                           const char   *name)
{
  AssayLlmTurnCall *call = g_new0 (AssayLlmTurnCall, 1);

  call->wire_index = wire_index;
  call->id_from_server = (id != NULL && id[0] != '\0');
  /* Both APIs need an id to answer a call; a server that sends none gets ours. */
  call->id = call->id_from_server ? g_strdup (id)
                                  : g_strdup_printf ("call_assay_%u", turn->calls->len);
  call->name = g_strdup (name != NULL ? name : "");
  call->arguments = g_string_new (NULL);
  g_ptr_array_add (turn->calls, call);
  /* Announced at once, so the signalled indices always come in order. */
  assay_llm_turn_add_arguments (turn, call, "");
  return call;
}

void
assay_llm_turn_add_arguments (AssayLlmTurn     *turn,
                              AssayLlmTurnCall *call,
                              const char       *fragment)
{
  guint position = 0;

  if (fragment == NULL)
    fragment = "";
  if (fragment[0] == '\0' && call->announced)
    return;

  g_string_append (call->arguments, fragment);
  call->announced = TRUE;
  g_ptr_array_find (turn->calls, call, &position);
  if (turn->emit != NULL)
    turn->emit ((int) position, call->id, call->name, fragment, turn->emit_data);
}

gboolean
assay_llm_turn_feed_event (AssayLlmTurn  *turn,
                           const char    *event,
                           const char    *data,
                           gsize          data_len,
                           GError       **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  if (turn->flavor == ASSAY_LLM_FLAVOR_OPENAI)
    {
      if (data_len == 6 && memcmp (data, "[DONE]", 6) == 0)
        {
          turn->done = TRUE;
          return TRUE;
        }
    }

  /* Anthropic's ping may come with any data; nothing in it matters. */
  if (g_strcmp0 (event, "ping") == 0)
    return TRUE;

  parser = json_parser_new ();
  if (!assay_json_parser_load_untrusted (parser, data, data_len, &local_error) ||
      (root = json_parser_get_root (parser)) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                           _("The model server sent a piece of its answer that is not a JSON object"));
      return FALSE;
    }

  if (turn->flavor == ASSAY_LLM_FLAVOR_OPENAI)
    return _assay_openai_feed_event (turn, root, error);
  if (turn->flavor == ASSAY_LLM_FLAVOR_OPENAI_RESPONSES)
    return _assay_openai_responses_feed_event (turn, event, root, error);
  return _assay_anthropic_feed_event (turn, event, root, error);
}

gboolean
assay_llm_turn_check_complete (AssayLlmTurn  *turn,
                               GError       **error)
{
  /* OpenAI-style servers end with [DONE]; some (Ollama on an error) just stop, so a finish
   * reason is enough. Anthropic always ends with message_stop, the Responses API with
   * response.completed or response.incomplete. Anything else was cut. */
  if (turn->done || (turn->flavor == ASSAY_LLM_FLAVOR_OPENAI && turn->finished))
    {
      /* Every call in the response was signalled: a tool_use block the server never
       * closed gets its input now. */
      for (guint i = 0; i < turn->calls->len; i++)
        {
          AssayLlmTurnCall *call = g_ptr_array_index (turn->calls, i);

          if (call->arguments->len == 0)
            {
              g_autofree char *input = g_strdup (call->initial_input != NULL ? call->initial_input
                                                                             : "{}");

              call->announced = FALSE;
              assay_llm_turn_add_arguments (turn, call, input);
            }
        }
      return TRUE;
    }

  g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                       _("The model server stopped answering in the middle of its reply"));
  return FALSE;
}

AssayLlmResponse *
assay_llm_turn_to_response (AssayLlmTurn *turn)
{
  AssayLlmResponse *response = assay_llm_response_new ();

  g_free (response->text);
  response->text = g_strndup (turn->text->str, turn->text->len);
  for (guint i = 0; i < turn->calls->len; i++)
    {
      AssayLlmTurnCall *call = g_ptr_array_index (turn->calls, i);

      g_ptr_array_add (response->tool_calls,
                       assay_llm_tool_call_new (call->id, call->name, call->arguments->str));
    }
  response->stop_reason = turn->stop_reason;
  response->stop_reason_raw = g_strdup (turn->stop_reason_raw);
  response->input_tokens = turn->input_tokens;
  response->output_tokens = turn->output_tokens;
  response->cached_input_tokens = turn->cached_input_tokens;
  response->cache_write_tokens = turn->cache_write_tokens;
  /* One meaning for every provider: the input counts all its tokens, cached ones too. */
  if (turn->input_excludes_cache && response->input_tokens >= 0)
    response->input_tokens += MAX (turn->cached_input_tokens, 0) + MAX (turn->cache_write_tokens, 0);
  response->reasoning_tokens = turn->reasoning_tokens;
  if (turn->reasoning_items != NULL && json_array_get_length (turn->reasoning_items) > 0)
    {
      g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), turn->reasoning_items);

      response->reasoning = json_to_string (node, FALSE);
    }
  if (turn->hosted_calls != NULL)
    response->hosted_calls = json_array_ref (turn->hosted_calls);
  if (turn->citations != NULL)
    response->citations = json_array_ref (turn->citations);
  return response;
}

char *
assay_llm_sanitize_message (const char *text,
                            gssize      len)
{
  g_autofree char *valid = NULL;
  GString *out;

  if (text == NULL)
    return NULL;
  if (len < 0)
    len = strlen (text);
  valid = g_utf8_make_valid (text, len);
  out = g_string_new (NULL);
  for (const char *p = valid; *p != '\0' && g_utf8_strlen (out->str, -1) < MAX_MESSAGE_CHARS;
       p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      /* No terminal escapes or line noise in a message shown to the analyst. */
      if (g_unichar_iscntrl (c))
        g_string_append_c (out, ' ');
      else
        g_string_append_unichar (out, c);
    }
  return g_strstrip (g_string_free (out, FALSE));
}

AssayLlmError
assay_llm_error_from_status (guint status)
{
  switch (status)
    {
    case 401:
    case 403:
      return ASSAY_LLM_ERROR_AUTH;
    case 404:
      return ASSAY_LLM_ERROR_NOT_FOUND;
    case 400:
    case 413:
    case 422:
      return ASSAY_LLM_ERROR_BAD_REQUEST;
    case 429:
      return ASSAY_LLM_ERROR_RATE_LIMITED;
    case 529:
      return ASSAY_LLM_ERROR_OVERLOADED;
    default:
      return status >= 400 && status < 500 && status != 408 && status != 409
             ? ASSAY_LLM_ERROR_BAD_REQUEST : ASSAY_LLM_ERROR_SERVER;
    }
}
