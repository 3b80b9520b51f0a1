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
/* A hosted turn's code and outputs, and how many calls and cited files it may have. */
#define MAX_HOSTED_BYTES             (16 * 1024 * 1024)
#define MAX_HOSTED_CALLS             64
#define MAX_CITATIONS                64

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

/* A code_interpreter_call that ran on OpenAI goes back as that item, with its logs (the tool
 * message that follows it in Assay's conversation) as its outputs. */
static void
assay_openai_responses_add_hosted_call (JsonBuilder           *builder,
                                        const AssayLlmRequest *request,
                                        guint                  index,
                                        const AssayLlmToolCall *call,
                                        GHashTable            *hosted_ids)
{
  g_autoptr(JsonNode) arguments = assay_json_from_untrusted (call->arguments != NULL ? call->arguments : "{}", NULL);
  JsonObject *object = arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments) ? json_node_get_object (arguments) : NULL;
  const char *code = assay_json_get_string (object, "code");
  const char *container = assay_json_get_string (object, "container_id");
  const char *logs = NULL;

  for (guint i = index + 1; i < request->messages->len; i++)
    {
      const AssayLlmMessage *message = g_ptr_array_index (request->messages, i);

      if (message->role == ASSAY_LLM_ROLE_TOOL && g_strcmp0 (message->tool_call_id, call->id) == 0)
        {
          logs = message->text;
          break;
        }
    }
  g_hash_table_add (hosted_ids, g_strdup (call->id != NULL ? call->id : ""));

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "code_interpreter_call");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, call->id != NULL ? call->id : "");
  json_builder_set_member_name (builder, "code");
  json_builder_add_string_value (builder, code != NULL ? code : "");
  json_builder_set_member_name (builder, "container_id");
  json_builder_add_string_value (builder, container != NULL ? container
                                          : (request->hosted_container != NULL ? request->hosted_container : ""));
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, "completed");
  json_builder_set_member_name (builder, "outputs");
  json_builder_begin_array (builder);
  if (logs != NULL && logs[0] != '\0')
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "logs");
      json_builder_set_member_name (builder, "logs");
      json_builder_add_string_value (builder, logs);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

JsonNode *
_assay_openai_responses_build_body (const AssayLlmRequest *request)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GHashTable) hosted_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

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

      /* A hosted call's result went into its code_interpreter_call item. */
      if (message->role == ASSAY_LLM_ROLE_TOOL && g_hash_table_contains (hosted_ids, message->tool_call_id))
        continue;

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

              if (g_strcmp0 (call->name, ASSAY_LLM_HOSTED_TOOL_NAME) == 0)
                {
                  assay_openai_responses_add_hosted_call (builder, request, i, call, hosted_ids);
                  continue;
                }
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

  if (request->tools->len > 0 || request->hosted_container != NULL)
    {
      json_builder_set_member_name (builder, "tools");
      json_builder_begin_array (builder);
      if (request->hosted_container != NULL)
        {
          /* OpenAI runs the code in the session's container, without asking anyone. */
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "code_interpreter");
          json_builder_set_member_name (builder, "container");
          json_builder_add_string_value (builder, request->hosted_container);
          json_builder_end_object (builder);
        }
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
  if (request->hosted_container != NULL)
    json_builder_add_string_value (builder, "code_interpreter_call.outputs");
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

/* A code_interpreter_call as it ended: its code, status, container and outputs, kept for
 * the agent to record as a cell. */
static gboolean
assay_openai_responses_keep_hosted_call (AssayLlmTurn  *turn,
                                         JsonObject    *item,
                                         GError       **error)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), item);
  g_autofree char *text = json_to_string (node, FALSE);
  const char *id = assay_json_get_string (item, "id");

  if (id == NULL)
    return TRUE;
  turn->hosted_bytes += strlen (text);
  if (turn->hosted_bytes > MAX_HOSTED_BYTES ||
      (turn->hosted_calls != NULL && json_array_get_length (turn->hosted_calls) >= MAX_HOSTED_CALLS))
    {
      g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                           _("The model server sent more code and output of its code interpreter than Assay reads in one reply"));
      return FALSE;
    }
  if (turn->hosted_calls == NULL)
    turn->hosted_calls = json_array_new ();
  json_array_add_element (turn->hosted_calls, json_node_copy (node));
  return TRUE;
}

/* A container_file_citation: a file the model's code wrote in its container, named by the
 * answer. Each file once. */
static void
assay_openai_responses_keep_citation (AssayLlmTurn *turn,
                                      JsonObject   *annotation)
{
  const char *file_id = assay_json_get_string (annotation, "file_id");

  if (g_strcmp0 (assay_json_get_string (annotation, "type"), "container_file_citation") != 0 || file_id == NULL)
    return;
  if (turn->citations == NULL)
    turn->citations = json_array_new ();
  if (json_array_get_length (turn->citations) >= MAX_CITATIONS)
    return;
  for (guint i = 0; i < json_array_get_length (turn->citations); i++)
    if (g_strcmp0 (assay_json_get_string (json_array_get_object_element (turn->citations, i), "file_id"), file_id) == 0)
      return;
  json_array_add_object_element (turn->citations, json_object_ref (annotation));
}

static gboolean
assay_openai_responses_item_added (AssayLlmTurn  *turn,
                                   JsonObject    *object,
                                   gboolean       done,
                                   GError       **error)
{
  JsonObject *item = assay_json_get_object (object, "item");
  const char *type = assay_json_get_string (item, "type");
  gint64 output_index;

  if (item == NULL)
    return TRUE;
  if (g_strcmp0 (type, "code_interpreter_call") == 0)
    {
      if (done)
        return assay_openai_responses_keep_hosted_call (turn, item, error);
      return TRUE;
    }
  if (g_strcmp0 (type, "message") == 0 && done)
    {
      /* The message's annotations again, whole: a citation not announced is kept here. */
      JsonArray *content = assay_json_get_array (item, "content");

      for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
        {
          JsonNode *part = json_array_get_element (content, i);
          JsonArray *annotations = JSON_NODE_HOLDS_OBJECT (part)
                                   ? assay_json_get_array (json_node_get_object (part), "annotations") : NULL;

          for (guint j = 0; annotations != NULL && j < json_array_get_length (annotations); j++)
            {
              JsonNode *annotation = json_array_get_element (annotations, j);

              if (JSON_NODE_HOLDS_OBJECT (annotation))
                assay_openai_responses_keep_citation (turn, json_node_get_object (annotation));
            }
        }
      return TRUE;
    }
  if (g_strcmp0 (type, "reasoning") == 0)
    {
      if (done)
        assay_openai_responses_keep_reasoning (turn, item);
      return TRUE;
    }
  if (g_strcmp0 (type, "function_call") != 0 ||
      !assay_json_get_int (object, "output_index", &output_index) || output_index < 0 || output_index > G_MAXUINT)
    return TRUE;

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
  return TRUE;
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
    return assay_openai_responses_item_added (turn, object, FALSE, error);
  else if (g_str_equal (type, "response.output_item.done"))
    return assay_openai_responses_item_added (turn, object, TRUE, error);
  else if (g_str_equal (type, "response.code_interpreter_call_code.delta"))
    {
      /* The code comes whole in the item's .done, which is what is kept; the pieces are
       * counted, so a server streaming without end is stopped. */
      const char *delta = assay_json_get_string (object, "delta");

      gint64 output_index;

      turn->hosted_bytes += delta != NULL ? strlen (delta) : 0;
      if (turn->hosted_bytes > MAX_HOSTED_BYTES)
        {
          g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                               _("The model server sent more code and output of its code interpreter than Assay reads in one reply"));
          return FALSE;
        }
      /* Shown while it streams, as a call of the hosted tool whose fragments are the code. */
      if (delta != NULL && turn->emit != NULL && g_utf8_validate (delta, -1, NULL) &&
          assay_json_get_int (object, "output_index", &output_index) && output_index >= 0 && output_index <= 1024)
        turn->emit ((int) output_index, assay_json_get_string (object, "item_id"), ASSAY_LLM_HOSTED_TOOL_NAME,
                    delta, turn->emit_data);
    }
  else if (g_str_equal (type, "response.output_text.annotation.added"))
    {
      JsonObject *annotation = assay_json_get_object (object, "annotation");

      if (annotation != NULL)
        assay_openai_responses_keep_citation (turn, annotation);
    }
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
  /* response.created, .in_progress, .content_part.*, .output_text.done,
   * .code_interpreter_call.in_progress, .interpreting, .completed, _code.done and every event
   * Assay does not use are ignored. */
  return TRUE;
}
