/* SPDX-License-Identifier: GPL-3.0-or-later */
/* OpenAI's Responses API (POST /v1/responses) as a wire format for Assay's own tool loop:
 * the request body and the decoder of its streamed events. The provider, the transport and
 * the retries are the Chat Completions provider's (assay-openai-provider.c).
 *
 * Assay keeps the conversation itself, so every request carries all of it ("store": false)
 * as input items: messages, "function_call" and "function_call_output" items, and the
 * "reasoning" items of earlier turns with their "encrypted_content", which the server only
 * sends when asked ("include": ["reasoning.encrypted_content"]) and which a reasoning model
 * needs back to go on from where it was after a tool call. A function_call goes back without
 * its item id, so a conversation whose reasoning was not kept (a session from before) is
 * still accepted.
 *
 * The stream is named events whose data repeats the name in "type", each with a
 * "sequence_number": response.created, response.in_progress, then per output item
 * response.output_item.added, its deltas (response.output_text.delta,
 * response.function_call_arguments.delta and .done, response.reasoning_summary_text.delta)
 * and response.output_item.done; the end is response.completed (with "usage"),
 * response.incomplete (incomplete_details.reason) or response.failed (response.error), and
 * an "error" event may come instead. There is no [DONE]: a stream without one of the three
 * ends was cut. */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-llm-turn-private.h"
#include "assay-json.h"

/* The encrypted reasoning of one turn goes back with every later request: a server that
 * sends more than this is not followed. */
#define MAX_REASONING_BYTES          (4 * 1024 * 1024)
#define MAX_REASONING_SUMMARY_CHARS  (64 * 1024)

/* ------------------------------------------------------------------------------------ */
/* The request. */

static void
assay_openai_responses_add_message (JsonBuilder *builder,
                                    const char  *role,
                                    const char  *text)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "message");
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, role);
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
}

/* The reasoning items a turn came with, as they came; text that is not an array of objects
 * (a record edited by hand) is left out rather than sent. */
static void
assay_openai_responses_add_reasoning (JsonBuilder *builder,
                                      const char  *reasoning)
{
  g_autoptr(JsonNode) node = NULL;
  JsonArray *items;

  if (reasoning == NULL || reasoning[0] == '\0')
    return;
  node = assay_json_from_untrusted (reasoning, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  items = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonNode *item = json_array_get_element (items, i);

      if (JSON_NODE_HOLDS_OBJECT (item) &&
          g_strcmp0 (assay_json_get_string (json_node_get_object (item), "type"), "reasoning") == 0)
        json_builder_add_value (builder, json_node_copy (item));
    }
}

JsonNode *
_assay_openai_responses_build_body (const AssayLlmRequest *request)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, request->model);

  if (request->system != NULL && request->system[0] != '\0')
    {
      json_builder_set_member_name (builder, "instructions");
      json_builder_add_string_value (builder, request->system);
    }

  json_builder_set_member_name (builder, "input");
  json_builder_begin_array (builder);
  for (guint i = 0; i < request->messages->len; i++)
    {
      const AssayLlmMessage *message = g_ptr_array_index (request->messages, i);
      const char *text = message->text != NULL ? message->text : "";

      switch (message->role)
        {
        case ASSAY_LLM_ROLE_USER:
          assay_openai_responses_add_message (builder, "user", text);
          break;

        case ASSAY_LLM_ROLE_ASSISTANT:
          assay_openai_responses_add_reasoning (builder, message->reasoning);
          if (text[0] != '\0' || message->tool_calls->len == 0)
            assay_openai_responses_add_message (builder, "assistant", text);
          for (guint j = 0; j < message->tool_calls->len; j++)
            {
              const AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, j);

              json_builder_begin_object (builder);
              json_builder_set_member_name (builder, "type");
              json_builder_add_string_value (builder, "function_call");
              json_builder_set_member_name (builder, "call_id");
              json_builder_add_string_value (builder, call->id != NULL ? call->id : "");
              json_builder_set_member_name (builder, "name");
              json_builder_add_string_value (builder, call->name != NULL ? call->name : "");
              json_builder_set_member_name (builder, "arguments");
              json_builder_add_string_value (builder,
                                             call->arguments != NULL && call->arguments[0] != '\0'
                                             ? call->arguments : "{}");
              json_builder_end_object (builder);
            }
          break;

        case ASSAY_LLM_ROLE_TOOL:
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "function_call_output");
          json_builder_set_member_name (builder, "call_id");
          json_builder_add_string_value (builder, message->tool_call_id != NULL ? message->tool_call_id : "");
          json_builder_set_member_name (builder, "output");
          json_builder_add_string_value (builder, text);
          json_builder_end_object (builder);
          break;

        default:
          g_assert_not_reached ();
        }
    }
  json_builder_end_array (builder);

  if (request->tools->len > 0)
    {
      json_builder_set_member_name (builder, "tools");
      json_builder_begin_array (builder);
      for (guint i = 0; i < request->tools->len; i++)
        {
          const AssayLlmTool *tool = g_ptr_array_index (request->tools, i);

          /* Flat, unlike Chat Completions' {"type", "function": {...}}. Not strict: strict
           * schemas need every property required, and the tools' descriptions are optional. */
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "function");
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, tool->name);
          json_builder_set_member_name (builder, "description");
          json_builder_add_string_value (builder, tool->description != NULL ? tool->description : "");
          json_builder_set_member_name (builder, "parameters");
          json_builder_add_value (builder, json_node_copy (tool->parameters));
          json_builder_set_member_name (builder, "strict");
          json_builder_add_boolean_value (builder, FALSE);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }

  json_builder_set_member_name (builder, "stream");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "store");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_set_member_name (builder, "include");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "reasoning.encrypted_content");
  json_builder_end_array (builder);

  if (request->max_tokens > 0)
    {
      json_builder_set_member_name (builder, "max_output_tokens");
      json_builder_add_int_value (builder, request->max_tokens);
    }
  if (request->temperature >= 0)
    {
      json_builder_set_member_name (builder, "temperature");
      json_builder_add_double_value (builder, request->temperature);
    }
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/* ------------------------------------------------------------------------------------ */
/* The decoder (runs in the transport's worker thread). */

/* An error the server reported in the stream: an "error" event ({"code", "message"}) or
 * response.failed's response.error. */
static gboolean
assay_openai_responses_set_error (JsonObject  *object,
                                  gboolean     failed,
                                  GError     **error)
{
  const char *code_text = assay_json_get_string (object, "code");
  const char *type = assay_json_get_string (object, "type");
  const char *text = assay_json_get_string (object, "message");
  g_autofree char *message = NULL;
  AssayLlmError code = ASSAY_LLM_ERROR_SERVER;
  gint64 status;

  if (assay_json_get_int (object, "code", &status) && status >= 400 && status < 600)
    code = assay_llm_error_from_status ((guint) status);
  else if (g_strcmp0 (code_text, "rate_limit_exceeded") == 0 || g_strcmp0 (type, "rate_limit_exceeded") == 0)
    code = ASSAY_LLM_ERROR_RATE_LIMITED;
  else if (g_strcmp0 (code_text, "server_is_overloaded") == 0 || g_strcmp0 (code_text, "overloaded") == 0)
    code = ASSAY_LLM_ERROR_OVERLOADED;
  else if (g_strcmp0 (code_text, "invalid_prompt") == 0 || g_strcmp0 (code_text, "context_length_exceeded") == 0 ||
           g_strcmp0 (code_text, "invalid_request_error") == 0 || g_strcmp0 (type, "invalid_request_error") == 0 ||
           g_strcmp0 (code_text, "insufficient_quota") == 0)
    code = ASSAY_LLM_ERROR_BAD_REQUEST;
  else if (g_strcmp0 (code_text, "invalid_api_key") == 0)
    code = ASSAY_LLM_ERROR_AUTH;
  else if (g_strcmp0 (code_text, "model_not_found") == 0)
    code = ASSAY_LLM_ERROR_NOT_FOUND;

  message = assay_llm_sanitize_message (text != NULL ? text : (code_text != NULL ? code_text : "no reason given"), -1);
  if (failed)
    g_set_error (error, ASSAY_LLM_ERROR, code, _("The model server could not finish its reply: %s"), message);
  else
    g_set_error (error, ASSAY_LLM_ERROR, code,
                 _("The model server reported an error in the middle of its reply: %s"), message);
  return FALSE;
}

static void
assay_openai_responses_read_usage (AssayLlmTurn *turn,
                                   JsonObject   *response)
{
  JsonObject *usage = assay_json_get_object (response, "usage");
  gint64 tokens;

  if (usage == NULL)
    return;
  /* Like Chat Completions: the input counts its cached tokens, the output its reasoning. */
  if (assay_json_get_int (usage, "input_tokens", &tokens) && tokens >= 0)
    turn->input_tokens = tokens;
  if (assay_json_get_int (usage, "output_tokens", &tokens) && tokens >= 0)
    turn->output_tokens = tokens;
  if (assay_json_get_int (assay_json_get_object (usage, "input_tokens_details"), "cached_tokens", &tokens) &&
      tokens >= 0)
    turn->cached_input_tokens = tokens;
  if (assay_json_get_int (assay_json_get_object (usage, "output_tokens_details"), "reasoning_tokens", &tokens) &&
      tokens >= 0)
    turn->reasoning_tokens = tokens;
}

static void
assay_openai_responses_finish (AssayLlmTurn       *turn,
                               AssayLlmStopReason  reason,
                               const char         *raw)
{
  g_free (turn->stop_reason_raw);
  turn->stop_reason_raw = g_strdup (raw);
  turn->stop_reason = reason;
  /* A reply cut at its limit in the middle of a call is not a call to run. */
  if (reason == ASSAY_LLM_STOP_END_TURN && turn->calls->len > 0)
    turn->stop_reason = ASSAY_LLM_STOP_TOOL_USE;
  turn->finished = TRUE;
  turn->done = TRUE;
}

/* Keeps what goes back of a reasoning item: its id, summary and encrypted content. */
static void
assay_openai_responses_keep_reasoning (AssayLlmTurn *turn,
                                       JsonObject   *item)
{
  g_autoptr(JsonObject) kept = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  const char *id = assay_json_get_string (item, "id");
  const char *encrypted = assay_json_get_string (item, "encrypted_content");
  JsonArray *summary = assay_json_get_array (item, "summary");

  if (id == NULL || !g_utf8_validate (id, -1, NULL))
    return;
  json_object_set_string_member (kept, "type", "reasoning");
  json_object_set_string_member (kept, "id", id);
  json_object_set_array_member (kept, "summary", summary != NULL ? json_array_ref (summary) : json_array_new ());
  if (encrypted != NULL)
    json_object_set_string_member (kept, "encrypted_content", encrypted);

  node = json_node_init_object (json_node_alloc (), kept);
  text = json_to_string (node, FALSE);
  if (turn->reasoning_bytes + strlen (text) > MAX_REASONING_BYTES)
    {
      g_debug ("a reasoning item of %zu bytes is not carried: too large", strlen (text));
      return;
    }
  turn->reasoning_bytes += strlen (text);
  if (turn->reasoning_items == NULL)
    turn->reasoning_items = json_array_new ();
  json_array_add_element (turn->reasoning_items, g_steal_pointer (&node));
}

static AssayLlmTurnCall *
assay_openai_responses_call_of (AssayLlmTurn *turn,
                                JsonObject   *object)
{
  gint64 output_index;

  if (!assay_json_get_int (object, "output_index", &output_index) || output_index < 0 || output_index > G_MAXUINT)
    return NULL;
  return assay_llm_turn_find_call (turn, (guint) output_index);
}

static void
assay_openai_responses_item_added (AssayLlmTurn *turn,
                                   JsonObject   *object,
                                   gboolean      done)
{
  JsonObject *item = assay_json_get_object (object, "item");
  const char *type = assay_json_get_string (item, "type");
  gint64 output_index;

  if (item == NULL)
    return;
  if (g_strcmp0 (type, "reasoning") == 0)
    {
      if (done)
        assay_openai_responses_keep_reasoning (turn, item);
      return;
    }
  if (g_strcmp0 (type, "function_call") != 0 ||
      !assay_json_get_int (object, "output_index", &output_index) || output_index < 0 || output_index > G_MAXUINT)
    return;

  {
    AssayLlmTurnCall *call = assay_llm_turn_find_call (turn, (guint) output_index);
    const char *arguments = assay_json_get_string (item, "arguments");

    if (call == NULL)
      call = assay_llm_turn_start_call (turn, (guint) output_index, assay_json_get_string (item, "call_id"),
                                        assay_json_get_string (item, "name"));
    /* A call that came whole (in .added, or only in .done) has its arguments here. */
    if (call->arguments->len == 0 && arguments != NULL)
      assay_llm_turn_add_arguments (turn, call, arguments);
  }
}

gboolean
_assay_openai_responses_feed_event (AssayLlmTurn  *turn,
                                    const char    *event,
                                    JsonNode      *root,
                                    GError       **error)
{
  JsonObject *object = json_node_get_object (root);
  const char *type = assay_json_get_string (object, "type");

  if (type == NULL)
    type = event;
  if (type == NULL)
    return TRUE;

  if (g_str_equal (type, "response.output_text.delta") || g_str_equal (type, "response.refusal.delta"))
    assay_llm_turn_add_text (turn, assay_json_get_string (object, "delta"));
  else if (g_str_equal (type, "response.output_item.added"))
    assay_openai_responses_item_added (turn, object, FALSE);
  else if (g_str_equal (type, "response.output_item.done"))
    assay_openai_responses_item_added (turn, object, TRUE);
  else if (g_str_equal (type, "response.function_call_arguments.delta"))
    {
      AssayLlmTurnCall *call = assay_openai_responses_call_of (turn, object);

      if (call != NULL)
        assay_llm_turn_add_arguments (turn, call, assay_json_get_string (object, "delta"));
    }
  else if (g_str_equal (type, "response.function_call_arguments.done"))
    {
      AssayLlmTurnCall *call = assay_openai_responses_call_of (turn, object);
      const char *arguments = assay_json_get_string (object, "arguments");

      if (call != NULL && call->arguments->len == 0 && arguments != NULL)
        assay_llm_turn_add_arguments (turn, call, arguments);
    }
  else if (g_str_equal (type, "response.reasoning_summary_text.delta"))
    {
      /* The summary comes whole in the reasoning item's .done, which is what is kept; the
       * pieces are only counted, so a server streaming without end is stopped. */
      const char *delta = assay_json_get_string (object, "delta");

      turn->reasoning_summary_chars += delta != NULL ? strlen (delta) : 0;
      if (turn->reasoning_summary_chars > MAX_REASONING_SUMMARY_CHARS)
        {
          g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                               _("The model server sent a summary of its reasoning too long to read"));
          return FALSE;
        }
    }
  else if (g_str_equal (type, "response.completed"))
    {
      JsonObject *response = assay_json_get_object (object, "response");

      assay_openai_responses_read_usage (turn, response);
      assay_openai_responses_finish (turn, ASSAY_LLM_STOP_END_TURN, "completed");
    }
  else if (g_str_equal (type, "response.incomplete"))
    {
      JsonObject *response = assay_json_get_object (object, "response");
      const char *reason = assay_json_get_string (assay_json_get_object (response, "incomplete_details"), "reason");
      g_autofree char *raw = NULL;

      assay_openai_responses_read_usage (turn, response);
      raw = assay_llm_sanitize_message (reason != NULL ? reason : "incomplete", -1);
      assay_openai_responses_finish (turn,
                                     g_strcmp0 (reason, "max_output_tokens") == 0 ? ASSAY_LLM_STOP_MAX_TOKENS
                                                                                  : ASSAY_LLM_STOP_OTHER,
                                     raw);
    }
  else if (g_str_equal (type, "response.failed"))
    {
      JsonObject *response = assay_json_get_object (object, "response");
      JsonObject *failure = assay_json_get_object (response, "error");
      g_autoptr(JsonObject) empty = json_object_new ();

      return assay_openai_responses_set_error (failure != NULL ? failure : empty, TRUE, error);
    }
  else if (g_str_equal (type, "error"))
    {
      /* {"type": "error", "code", "message", "param"}; some servers nest it in "error". */
      JsonObject *nested = assay_json_get_object (object, "error");

      return assay_openai_responses_set_error (nested != NULL ? nested : object, FALSE, error);
    }
  /* response.created, .in_progress, .content_part.*, .output_text.done and every event
   * Assay does not use are ignored. */
  return TRUE;
}
