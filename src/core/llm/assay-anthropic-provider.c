/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Anthropic Messages API provider. The reply streams as named events:
 *
 *   message_start (usage.input_tokens)  →  per content block: content_block_start (text or
 *   tool_use with id and name)  →  content_block_delta (text_delta, or input_json_delta:
 *   fragments of the tool input, joined and checked at content_block_stop)  →
 *   content_block_stop  →  message_delta (stop_reason, usage.output_tokens)  →  message_stop
 *
 * with ping anywhere and "event: error" (overloaded_error, ...) instead of the rest when the
 * server fails mid-way. The system prompt goes in "system"; tool results go back as
 * tool_result blocks, all the results for one assistant turn in one user message. */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-llm-http.h"
#include "assay-llm-provider.h"
#include "assay-json.h"

#define DEFAULT_BASE_URL   "https://api.anthropic.com/v1"
#define API_VERSION        "2023-06-01"
#define DEFAULT_MAX_TOKENS 4096

struct _AssayAnthropicProvider
{
  AssayLlmProvider  parent_instance;

  char             *base_url;
  char             *api_key;
};

G_DECLARE_FINAL_TYPE (AssayAnthropicProvider,
                      assay_anthropic_provider,
                      ASSAY,
                      ANTHROPIC_PROVIDER,
                      AssayLlmProvider)
G_DEFINE_FINAL_TYPE (AssayAnthropicProvider, assay_anthropic_provider, ASSAY_TYPE_LLM_PROVIDER)

/* ------------------------------------------------------------------------------------ */
/* The decoder (runs in the transport's worker thread). */

static AssayLlmStopReason
assay_anthropic_provider_stop_reason_from_anthropic (const char *reason)
{
  if (g_strcmp0 (reason, "end_turn") == 0 || g_strcmp0 (reason, "stop_sequence") == 0)
    return ASSAY_LLM_STOP_END_TURN;
  if (g_strcmp0 (reason, "tool_use") == 0)
    return ASSAY_LLM_STOP_TOOL_USE;
  if (g_strcmp0 (reason, "max_tokens") == 0)
    return ASSAY_LLM_STOP_MAX_TOKENS;
  return ASSAY_LLM_STOP_OTHER;
}

static void
assay_anthropic_provider_read_usage (AssayLlmTurn *turn,
                                     JsonObject   *usage)
{
  gint64 tokens;

  if (assay_json_get_int (usage, "input_tokens", &tokens))
    turn->input_tokens = tokens;
  if (assay_json_get_int (usage, "output_tokens", &tokens))
    turn->output_tokens = tokens;
  if (assay_json_get_int (usage, "cache_read_input_tokens", &tokens))
    turn->cached_input_tokens = tokens;
  if (assay_json_get_int (usage, "cache_creation_input_tokens", &tokens))
    turn->cache_write_tokens = tokens;
  turn->input_excludes_cache = TRUE;
}

static gboolean
assay_anthropic_provider_set_stream_error (JsonObject  *object,
                                           GError     **error)
{
  JsonObject *error_object = assay_json_get_object (object, "error");
  const char *type = assay_json_get_string (error_object, "type");
  const char *text = assay_json_get_string (error_object, "message");
  g_autofree char *message = assay_llm_sanitize_message (text != NULL ? text : "no reason given", -1);
  AssayLlmError code = ASSAY_LLM_ERROR_SERVER;

  if (g_strcmp0 (type, "overloaded_error") == 0)
    code = ASSAY_LLM_ERROR_OVERLOADED;
  else if (g_strcmp0 (type, "rate_limit_error") == 0)
    code = ASSAY_LLM_ERROR_RATE_LIMITED;
  else if (g_strcmp0 (type, "authentication_error") == 0 || g_strcmp0 (type, "permission_error") == 0)
    code = ASSAY_LLM_ERROR_AUTH;
  else if (g_strcmp0 (type, "invalid_request_error") == 0 || g_strcmp0 (type, "request_too_large") == 0)
    code = ASSAY_LLM_ERROR_BAD_REQUEST;
  else if (g_strcmp0 (type, "not_found_error") == 0)
    code = ASSAY_LLM_ERROR_NOT_FOUND;

  if (code == ASSAY_LLM_ERROR_OVERLOADED)
    g_set_error (error, ASSAY_LLM_ERROR, code, _("The model server is overloaded: %s"), message);
  else
    g_set_error (error, ASSAY_LLM_ERROR, code,
                 _("The model server reported an error in the middle of its reply: %s"), message);
  return FALSE;
}

gboolean
_assay_anthropic_feed_event (AssayLlmTurn  *turn,
                             const char    *event,
                             JsonNode      *root,
                             GError       **error)
{
  JsonObject *object = json_node_get_object (root);
  const char *type = assay_json_get_string (object, "type");
  gint64 index = -1;

  if (type == NULL)
    type = event;
  assay_json_get_int (object, "index", &index);

  if (g_strcmp0 (type, "message_start") == 0)
    assay_anthropic_provider_read_usage (turn, assay_json_get_object (assay_json_get_object (object, "message"),
                                                                          "usage"));
  else if (g_strcmp0 (type, "content_block_start") == 0)
    {
      JsonObject *block = assay_json_get_object (object, "content_block");
      const char *block_type = assay_json_get_string (block, "type");

      if (index < 0 || index > G_MAXINT)
        goto bad;
      if (g_strcmp0 (block_type, "text") == 0)
        assay_llm_turn_add_text (turn, assay_json_get_string (block, "text"));
      else if (g_strcmp0 (block_type, "tool_use") == 0)
        {
          AssayLlmTurnCall *call;
          JsonObject *input = assay_json_get_object (block, "input");

          call = assay_llm_turn_start_call (turn, (guint) index,
                                            assay_json_get_string (block, "id"),
                                            assay_json_get_string (block, "name"));
          if (input != NULL && json_object_get_size (input) > 0)
            call->initial_input = json_to_string (json_object_get_member (block, "input"), FALSE);
        }
      /* Thinking and other blocks are not part of the answer. */
    }
  else if (g_strcmp0 (type, "content_block_delta") == 0)
    {
      JsonObject *delta = assay_json_get_object (object, "delta");
      const char *delta_type = assay_json_get_string (delta, "type");

      if (g_strcmp0 (delta_type, "text_delta") == 0)
        assay_llm_turn_add_text (turn, assay_json_get_string (delta, "text"));
      else if (g_strcmp0 (delta_type, "input_json_delta") == 0)
        {
          AssayLlmTurnCall *call = index >= 0 && index <= G_MAXINT
                                   ? assay_llm_turn_find_call (turn, (guint) index) : NULL;
          const char *fragment = assay_json_get_string (delta, "partial_json");

          if (call == NULL)
            goto bad;
          assay_llm_turn_add_arguments (turn, call, fragment);
        }
    }
  else if (g_strcmp0 (type, "content_block_stop") == 0)
    {
      AssayLlmTurnCall *call = index >= 0 && index <= G_MAXINT
                               ? assay_llm_turn_find_call (turn, (guint) index) : NULL;

      /* A call without input fragments has its input in content_block_start, or none.
       * Invalid JSON is kept as the model wrote it: the agent tells the model. */
      if (call != NULL && call->arguments->len == 0)
        {
          g_autofree char *input = g_strdup (call->initial_input != NULL ? call->initial_input : "{}");

          call->announced = FALSE;
          assay_llm_turn_add_arguments (turn, call, input);
        }
    }
  else if (g_strcmp0 (type, "message_delta") == 0)
    {
      const char *stop = assay_json_get_string (assay_json_get_object (object, "delta"),
                                                    "stop_reason");

      if (stop != NULL)
        {
          g_free (turn->stop_reason_raw);
          turn->stop_reason_raw = g_strdup (stop);
          turn->stop_reason = assay_anthropic_provider_stop_reason_from_anthropic (stop);
          turn->finished = TRUE;
        }
      assay_anthropic_provider_read_usage (turn, assay_json_get_object (object, "usage"));
    }
  else if (g_strcmp0 (type, "message_stop") == 0)
    turn->done = TRUE;
  else if (g_strcmp0 (type, "error") == 0)
    return assay_anthropic_provider_set_stream_error (object, error);
  /* ping and anything new are ignored. */

  return TRUE;

bad:
  g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
               _("The model server sent a “%s” event that does not fit its reply"), type);
  return FALSE;
}

/* ------------------------------------------------------------------------------------ */
/* The request. */

/* A tool_use input must be an object: the model's own text when it is one, otherwise the
 * text kept under a key, so the request stays valid and the model can see what it wrote. */
static JsonNode *
assay_anthropic_provider_tool_input (const char *arguments)
{
  g_autoptr(JsonObject) wrapper = NULL;
  JsonNode *node;

  if (arguments == NULL || arguments[0] == '\0')
    return json_node_init_object (json_node_alloc (), json_object_new ());

  node = assay_json_from_untrusted (arguments, NULL);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return node;
  g_clear_pointer (&node, json_node_unref);

  wrapper = json_object_new ();
  json_object_set_string_member (wrapper, "invalid_json_arguments", arguments);
  return json_node_init_object (json_node_alloc (), wrapper);
}

static JsonObject *
assay_anthropic_provider_text_block (const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  return block;
}

/* Adds BLOCK to the last message when it has ROLE (Anthropic wants user and assistant
 * turns to alternate: tool results and the next question share one user message). */
static void
assay_anthropic_provider_add_block (JsonArray  *messages,
                                    const char *role,
                                    JsonObject *block)
{
  guint len = json_array_get_length (messages);
  JsonObject *last = len > 0 ? json_array_get_object_element (messages, len - 1) : NULL;

  if (last == NULL || g_strcmp0 (json_object_get_string_member (last, "role"), role) != 0)
    {
      last = json_object_new ();
      json_object_set_string_member (last, "role", role);
      json_object_set_array_member (last, "content", json_array_new ());
      json_array_add_object_element (messages, last);
    }
  json_array_add_object_element (json_object_get_array_member (last, "content"), block);
}

static JsonNode *
assay_anthropic_provider_build_body (const AssayLlmRequest *request)
{
  g_autoptr(JsonObject) body = json_object_new ();
  JsonArray *messages = json_array_new ();

  json_object_set_string_member (body, "model", request->model);
  json_object_set_int_member (body, "max_tokens",
                              request->max_tokens > 0 ? request->max_tokens : DEFAULT_MAX_TOKENS);
  if (request->system != NULL && request->system[0] != '\0')
    json_object_set_string_member (body, "system", request->system);

  for (guint i = 0; i < request->messages->len; i++)
    {
      const AssayLlmMessage *message = g_ptr_array_index (request->messages, i);
      gboolean has_text = message->text != NULL && message->text[0] != '\0';

      switch (message->role)
        {
        case ASSAY_LLM_ROLE_USER:
          /* The API refuses empty text blocks. */
          if (has_text)
            assay_anthropic_provider_add_block (messages,
                                                "user",
                                                assay_anthropic_provider_text_block (message->text));
          break;

        case ASSAY_LLM_ROLE_ASSISTANT:
          if (has_text)
            assay_anthropic_provider_add_block (messages,
                                                "assistant",
                                                assay_anthropic_provider_text_block (message->text));
          for (guint j = 0; j < message->tool_calls->len; j++)
            {
              const AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, j);
              JsonObject *block = json_object_new ();

              json_object_set_string_member (block, "type", "tool_use");
              json_object_set_string_member (block, "id", call->id != NULL ? call->id : "");
              json_object_set_string_member (block, "name", call->name != NULL ? call->name : "");
              json_object_set_member (block, "input", assay_anthropic_provider_tool_input (call->arguments));
              assay_anthropic_provider_add_block (messages, "assistant", block);
            }
          break;

        case ASSAY_LLM_ROLE_TOOL:
          {
            JsonObject *block = json_object_new ();

            json_object_set_string_member (block, "type", "tool_result");
            json_object_set_string_member (block, "tool_use_id",
                                           message->tool_call_id != NULL ? message->tool_call_id : "");
            if (has_text)
              json_object_set_string_member (block, "content", message->text);
            if (message->is_error)
              json_object_set_boolean_member (block, "is_error", TRUE);
            assay_anthropic_provider_add_block (messages, "user", block);
          }
          break;

        default:
          g_assert_not_reached ();
        }
    }
  json_object_set_array_member (body, "messages", messages);

  if (request->tools->len > 0)
    {
      JsonArray *tools = json_array_new ();

      for (guint i = 0; i < request->tools->len; i++)
        {
          const AssayLlmTool *tool = g_ptr_array_index (request->tools, i);
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "name", tool->name);
          json_object_set_string_member (object, "description",
                                         tool->description != NULL ? tool->description : "");
          json_object_set_member (object, "input_schema", json_node_copy (tool->parameters));
          json_array_add_object_element (tools, object);
        }
      json_object_set_array_member (body, "tools", tools);
    }

  json_object_set_boolean_member (body, "stream", TRUE);
  if (request->temperature >= 0)
    json_object_set_double_member (body, "temperature", request->temperature);

  return json_node_init_object (json_node_alloc (), body);
}

static AssayLlmHttpRequest *
assay_anthropic_provider_new_request (AssayAnthropicProvider *self,
                                      const char             *path,
                                      const char             *model)
{
  AssayLlmHttpRequest *request = assay_llm_http_request_new (ASSAY_LLM_FLAVOR_ANTHROPIC,
                                                             self->base_url, path,
                                                             self->api_key, model);

  if (self->api_key != NULL)
    assay_llm_http_request_add_header (request, "x-api-key", self->api_key);
  assay_llm_http_request_add_header (request, "anthropic-version", API_VERSION);
  return request;
}

static const char *
assay_anthropic_provider_get_base_url (AssayLlmProvider *provider)
{
  return ASSAY_ANTHROPIC_PROVIDER (provider)->base_url;
}

static const char *
assay_anthropic_provider_get_name (AssayLlmProvider *provider)
{
  return "anthropic";
}

static void
assay_anthropic_provider_stream_async (AssayLlmProvider      *provider,
                                       const AssayLlmRequest *request,
                                       GCancellable          *cancellable,
                                       GAsyncReadyCallback    callback,
                                       gpointer               user_data)
{
  AssayAnthropicProvider *self = ASSAY_ANTHROPIC_PROVIDER (provider);
  g_autoptr(AssayLlmHttpRequest) http = NULL;
  g_autoptr(JsonNode) body = NULL;

  if (request->model == NULL || request->model[0] == '\0')
    {
      g_task_report_new_error (self, callback, user_data, assay_anthropic_provider_stream_async,
                               ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_BAD_REQUEST,
                               "No model is chosen for the model server");
      return;
    }

  http = assay_anthropic_provider_new_request (self, "/messages", request->model);
  assay_llm_http_request_add_header (http, "Content-Type", "application/json");
  assay_llm_http_request_add_header (http, "Accept", "text/event-stream");
  body = assay_anthropic_provider_build_body (request);
  assay_llm_http_request_set_json (http, body);
  assay_llm_http_stream_async (provider, g_steal_pointer (&http), cancellable, callback, user_data);
}

static AssayLlmResponse *
assay_anthropic_provider_stream_finish (AssayLlmProvider  *provider,
                                        GAsyncResult      *result,
                                        GError           **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
assay_anthropic_provider_list_models_async (AssayLlmProvider    *provider,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  AssayAnthropicProvider *self = ASSAY_ANTHROPIC_PROVIDER (provider);

  /* The list is paged, 20 by default; 1000 is the most a page holds. */
  assay_llm_http_list_models_async (provider, assay_anthropic_provider_new_request (self, "/models?limit=1000", NULL),
                                    cancellable, callback, user_data);
}

static GStrv
assay_anthropic_provider_list_models_finish (AssayLlmProvider  *provider,
                                             GAsyncResult      *result,
                                             GError           **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
assay_anthropic_provider_finalize (GObject *object)
{
  AssayAnthropicProvider *self = ASSAY_ANTHROPIC_PROVIDER (object);

  g_free (self->base_url);
  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_free (self->api_key);
  G_OBJECT_CLASS (assay_anthropic_provider_parent_class)->finalize (object);
}

static const char *
assay_anthropic_provider_get_wire_format (AssayLlmProvider *provider)
{
  return "messages";
}

static void
assay_anthropic_provider_class_init (AssayAnthropicProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AssayLlmProviderClass *provider_class = ASSAY_LLM_PROVIDER_CLASS (klass);

  object_class->finalize = assay_anthropic_provider_finalize;
  provider_class->get_name = assay_anthropic_provider_get_name;
  provider_class->get_base_url = assay_anthropic_provider_get_base_url;
  provider_class->get_wire_format = assay_anthropic_provider_get_wire_format;
  provider_class->stream_async = assay_anthropic_provider_stream_async;
  provider_class->stream_finish = assay_anthropic_provider_stream_finish;
  provider_class->list_models_async = assay_anthropic_provider_list_models_async;
  provider_class->list_models_finish = assay_anthropic_provider_list_models_finish;
}

static void
assay_anthropic_provider_init (AssayAnthropicProvider *self)
{
}

AssayLlmProvider *
assay_anthropic_provider_new (const char *base_url,
                              const char *api_key)
{
  AssayAnthropicProvider *self = g_object_new (assay_anthropic_provider_get_type (), NULL);

  self->base_url = assay_llm_http_build_base (base_url, DEFAULT_BASE_URL);
  self->api_key = api_key != NULL && api_key[0] != '\0' ? g_strdup (api_key) : NULL;
  return ASSAY_LLM_PROVIDER (self);
}
