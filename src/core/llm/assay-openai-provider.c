/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The OpenAI provider, for OpenAI and the servers that copy its API (Ollama's /v1,
 * llama.cpp's llama-server, vLLM, ...), in one of two wire formats: Chat Completions, here,
 * or the Responses API (assay-openai-responses.c), which OpenAI's newer models favour.
 * ASSAY_OPENAI_API_AUTO is Responses for api.openai.com and Chat Completions for every
 * other server, since the servers that copy OpenAI's API copy Chat Completions.
 *
 * Chat Completions: the request streams
 * (stream: true, stream_options.include_usage) and the differences between the servers are
 * handled in the decoder:
 *
 *  - OpenAI and llama.cpp send a tool call's id and name once, then its arguments in
 *    fragments keyed by "index". Ollama sends each call whole, every one with index 0: a
 *    new id at an index already in use starts another call.
 *  - The finish reason comes in its own chunk; usage in a last chunk with "choices": [],
 *    llama.cpp adding "timings" (ignored, like every unknown field); then "data: [DONE]".
 *  - Errors in the stream are {"error": {...}} with "code" a string, an integer or null
 *    (llama.cpp sends one and stops). A stream that stops without [DONE] or a finish
 *    reason was cut: the transport retries it, it is never taken as an answer. */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-llm-http.h"
#include "assay-llm-provider.h"
#include "assay-json.h"

#define DEFAULT_BASE_URL "https://api.openai.com/v1"

struct _AssayOpenaiProvider
{
  AssayLlmProvider  parent_instance;

  char             *base_url;
  char             *api_key;
  AssayOpenaiApi    api;    /* CHAT or RESPONSES, never AUTO */
};

G_DECLARE_FINAL_TYPE (AssayOpenaiProvider, assay_openai_provider, ASSAY, OPENAI_PROVIDER, AssayLlmProvider)
G_DEFINE_FINAL_TYPE (AssayOpenaiProvider, assay_openai_provider, ASSAY_TYPE_LLM_PROVIDER)

/* ------------------------------------------------------------------------------------ */
/* The decoder (runs in the transport's worker thread). */

static AssayLlmStopReason
assay_openai_provider_stop_reason_from_openai (const char *reason)
{
  if (g_strcmp0 (reason, "stop") == 0)
    return ASSAY_LLM_STOP_END_TURN;
  if (g_strcmp0 (reason, "tool_calls") == 0 || g_strcmp0 (reason, "function_call") == 0)
    return ASSAY_LLM_STOP_TOOL_USE;
  if (g_strcmp0 (reason, "length") == 0)
    return ASSAY_LLM_STOP_MAX_TOKENS;
  return ASSAY_LLM_STOP_OTHER;
}

static gboolean
assay_openai_provider_set_stream_error (JsonNode  *error_node,
                                        GError   **error)
{
  AssayLlmError code = ASSAY_LLM_ERROR_SERVER;
  g_autofree char *message = NULL;
  JsonObject *object = NULL;
  const char *text = NULL;
  const char *code_text;
  const char *type;
  gint64 status;

  if (JSON_NODE_HOLDS_OBJECT (error_node))
    {
      object = json_node_get_object (error_node);
      text = assay_json_get_string (object, "message");
    }
  else if (JSON_NODE_HOLDS_VALUE (error_node) && json_node_get_value_type (error_node) == G_TYPE_STRING)
    text = json_node_get_string (error_node);

  /* "code" is an HTTP-like status (llama.cpp), a word (OpenAI) or null. */
  if (assay_json_get_int (object, "code", &status) && status >= 400 && status < 600)
    code = assay_llm_error_from_status ((guint) status);
  else
    {
      code_text = assay_json_get_string (object, "code");
      type = assay_json_get_string (object, "type");
      if (g_strcmp0 (code_text, "rate_limit_exceeded") == 0 || g_strcmp0 (type, "rate_limit_error") == 0 ||
          g_strcmp0 (type, "rate_limit_exceeded") == 0)
        code = ASSAY_LLM_ERROR_RATE_LIMITED;
      else if (g_strcmp0 (type, "overloaded_error") == 0)
        code = ASSAY_LLM_ERROR_OVERLOADED;
      else if (g_strcmp0 (type, "invalid_request_error") == 0)
        code = ASSAY_LLM_ERROR_BAD_REQUEST;
    }

  message = assay_llm_sanitize_message (text != NULL ? text : "no reason given", -1);
  g_set_error (error, ASSAY_LLM_ERROR, code,
               _("The model server reported an error in the middle of its reply: %s"), message);
  return FALSE;
}

static char *
assay_openai_provider_arguments_to_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  /* Some servers send the arguments as an object instead of its text. */
  return json_to_string (node, FALSE);
}

static void
assay_openai_provider_handle_tool_call_delta (AssayLlmTurn *turn,
                                              JsonObject   *delta,
                                              guint         position)
{
  JsonObject *function = assay_json_get_object (delta, "function");
  const char *id = assay_json_get_string (delta, "id");
  const char *name = assay_json_get_string (function, "name");
  g_autofree char *arguments = assay_openai_provider_arguments_to_text (function != NULL
                                                                        ? json_object_get_member (function, "arguments")
                                                                        : NULL);
  AssayLlmTurnCall *call;
  gint64 wire_index;

  if (!assay_json_get_int (delta, "index", &wire_index) || wire_index < 0 || wire_index > G_MAXUINT)
    wire_index = position;

  call = assay_llm_turn_find_call (turn, (guint) wire_index);
  if (call == NULL ||
      (id != NULL && id[0] != '\0' && call->id_from_server && strcmp (id, call->id) != 0))
    call = assay_llm_turn_start_call (turn, (guint) wire_index, id, name);
  else
    {
      if (id != NULL && id[0] != '\0' && !call->id_from_server)
        {
          g_free (call->id);
          call->id = g_strdup (id);
          call->id_from_server = TRUE;
        }
      if (name != NULL && call->name[0] == '\0')
        {
          g_free (call->name);
          call->name = g_strdup (name);
        }
    }

  assay_llm_turn_add_arguments (turn, call, arguments);
}

gboolean
_assay_openai_feed_event (AssayLlmTurn  *turn,
                          JsonNode      *root,
                          GError       **error)
{
  JsonObject *object = json_node_get_object (root);
  JsonNode *error_node = json_object_get_member (object, "error");
  JsonObject *usage;
  JsonArray *choices;

  if (error_node != NULL && !JSON_NODE_HOLDS_NULL (error_node))
    return assay_openai_provider_set_stream_error (error_node, error);

  choices = assay_json_get_array (object, "choices");
  for (guint i = 0; choices != NULL && i < json_array_get_length (choices); i++)
    {
      JsonNode *choice_node = json_array_get_element (choices, i);
      JsonObject *choice;
      JsonObject *delta;
      JsonObject *function_call;
      JsonArray *tool_calls;
      const char *finish;
      gint64 index = 0;

      if (!JSON_NODE_HOLDS_OBJECT (choice_node))
        continue;
      choice = json_node_get_object (choice_node);
      /* We ask for one choice; anything else is not ours. */
      if (assay_json_get_int (choice, "index", &index) && index != 0)
        continue;

      delta = assay_json_get_object (choice, "delta");
      assay_llm_turn_add_text (turn, assay_json_get_string (delta, "content"));

      tool_calls = assay_json_get_array (delta, "tool_calls");
      for (guint j = 0; tool_calls != NULL && j < json_array_get_length (tool_calls); j++)
        {
          JsonNode *call_node = json_array_get_element (tool_calls, j);

          if (JSON_NODE_HOLDS_OBJECT (call_node))
            assay_openai_provider_handle_tool_call_delta (turn, json_node_get_object (call_node), j);
        }

      /* The deprecated single function call, still sent by some servers. */
      function_call = assay_json_get_object (delta, "function_call");
      if (function_call != NULL)
        {
          g_autoptr(JsonObject) wrapper = json_object_new ();

          json_object_set_object_member (wrapper, "function", json_object_ref (function_call));
          json_object_set_int_member (wrapper, "index", 0);
          assay_openai_provider_handle_tool_call_delta (turn, wrapper, 0);
        }

      finish = assay_json_get_string (choice, "finish_reason");
      if (finish != NULL)
        {
          g_free (turn->stop_reason_raw);
          turn->stop_reason_raw = g_strdup (finish);
          turn->stop_reason = assay_openai_provider_stop_reason_from_openai (finish);
          turn->finished = TRUE;
        }
    }

  /* Older Ollama says "stop" after tool calls: calls mean the model wants them run. */
  if (turn->finished && turn->stop_reason == ASSAY_LLM_STOP_END_TURN && turn->calls->len > 0)
    turn->stop_reason = ASSAY_LLM_STOP_TOOL_USE;

  usage = assay_json_get_object (object, "usage");
  if (usage != NULL)
    {
      gint64 tokens;

      if (assay_json_get_int (usage, "prompt_tokens", &tokens))
        turn->input_tokens = tokens;
      if (assay_json_get_int (usage, "completion_tokens", &tokens))
        turn->output_tokens = tokens;
      if (assay_json_get_int (assay_json_get_object (usage, "prompt_tokens_details"), "cached_tokens", &tokens))
        turn->cached_input_tokens = tokens;
      if (assay_json_get_int (assay_json_get_object (usage, "completion_tokens_details"), "reasoning_tokens", &tokens))
        turn->reasoning_tokens = tokens;
    }

  return TRUE;
}

/* ------------------------------------------------------------------------------------ */
/* The request. */

static JsonNode *
assay_openai_provider_build_body (const AssayLlmRequest *request)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, request->model);

  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  if (request->system != NULL && request->system[0] != '\0')
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, "system");
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, request->system);
      json_builder_end_object (builder);
    }
  for (guint i = 0; i < request->messages->len; i++)
    {
      const AssayLlmMessage *message = g_ptr_array_index (request->messages, i);
      const char *text = message->text != NULL ? message->text : "";

      json_builder_begin_object (builder);
      switch (message->role)
        {
        case ASSAY_LLM_ROLE_USER:
          json_builder_set_member_name (builder, "role");
          json_builder_add_string_value (builder, "user");
          json_builder_set_member_name (builder, "content");
          json_builder_add_string_value (builder, text);
          break;

        case ASSAY_LLM_ROLE_ASSISTANT:
          json_builder_set_member_name (builder, "role");
          json_builder_add_string_value (builder, "assistant");
          json_builder_set_member_name (builder, "content");
          if (text[0] == '\0' && message->tool_calls->len > 0)
            json_builder_add_null_value (builder);
          else
            json_builder_add_string_value (builder, text);
          if (message->tool_calls->len > 0)
            {
              json_builder_set_member_name (builder, "tool_calls");
              json_builder_begin_array (builder);
              for (guint j = 0; j < message->tool_calls->len; j++)
                {
                  const AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, j);

                  json_builder_begin_object (builder);
                  json_builder_set_member_name (builder, "id");
                  json_builder_add_string_value (builder, call->id != NULL ? call->id : "");
                  json_builder_set_member_name (builder, "type");
                  json_builder_add_string_value (builder, "function");
                  json_builder_set_member_name (builder, "function");
                  json_builder_begin_object (builder);
                  json_builder_set_member_name (builder, "name");
                  json_builder_add_string_value (builder, call->name != NULL ? call->name : "");
                  json_builder_set_member_name (builder, "arguments");
                  json_builder_add_string_value (builder,
                                                 call->arguments != NULL && call->arguments[0] != '\0'
                                                 ? call->arguments : "{}");
                  json_builder_end_object (builder);
                  json_builder_end_object (builder);
                }
              json_builder_end_array (builder);
            }
          break;

        case ASSAY_LLM_ROLE_TOOL:
          json_builder_set_member_name (builder, "role");
          json_builder_add_string_value (builder, "tool");
          json_builder_set_member_name (builder, "tool_call_id");
          json_builder_add_string_value (builder, message->tool_call_id != NULL
                                                  ? message->tool_call_id : "");
          json_builder_set_member_name (builder, "content");
          json_builder_add_string_value (builder, text);
          break;

        default:
          g_assert_not_reached ();
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  if (request->tools->len > 0)
    {
      json_builder_set_member_name (builder, "tools");
      json_builder_begin_array (builder);
      for (guint i = 0; i < request->tools->len; i++)
        {
          const AssayLlmTool *tool = g_ptr_array_index (request->tools, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "function");
          json_builder_set_member_name (builder, "function");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, tool->name);
          json_builder_set_member_name (builder, "description");
          json_builder_add_string_value (builder, tool->description != NULL ? tool->description : "");
          json_builder_set_member_name (builder, "parameters");
          json_builder_add_value (builder, json_node_copy (tool->parameters));
          json_builder_end_object (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }

  json_builder_set_member_name (builder, "stream");
  json_builder_add_boolean_value (builder, TRUE);
  /* Servers that do not know it ignore it; OpenAI then sends usage in a last chunk. */
  json_builder_set_member_name (builder, "stream_options");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "include_usage");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_end_object (builder);

  if (request->max_tokens > 0)
    {
      json_builder_set_member_name (builder, "max_tokens");
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

static AssayLlmHttpRequest *
assay_openai_provider_new_request (AssayOpenaiProvider *self,
                                   AssayLlmFlavor       flavor,
                                   const char          *path,
                                   const char          *model)
{
  AssayLlmHttpRequest *request = assay_llm_http_request_new (flavor,
                                                             self->base_url, path,
                                                             self->api_key, model);

  if (self->api_key != NULL)
    {
      g_autofree char *bearer = g_strconcat ("Bearer ", self->api_key, NULL);

      assay_llm_http_request_add_header (request, "Authorization", bearer);
      memset (bearer, 0, strlen (bearer));
    }
  return request;
}

static const char *
assay_openai_provider_get_base_url (AssayLlmProvider *provider)
{
  return ASSAY_OPENAI_PROVIDER (provider)->base_url;
}

static const char *
assay_openai_provider_get_name (AssayLlmProvider *provider)
{
  return "openai";
}

static const char *
assay_openai_provider_get_wire_format (AssayLlmProvider *provider)
{
  return ASSAY_OPENAI_PROVIDER (provider)->api == ASSAY_OPENAI_API_RESPONSES ? "responses"
                                                                            : "chat-completions";
}

static void
assay_openai_provider_stream_async (AssayLlmProvider      *provider,
                                    const AssayLlmRequest *request,
                                    GCancellable          *cancellable,
                                    GAsyncReadyCallback    callback,
                                    gpointer               user_data)
{
  AssayOpenaiProvider *self = ASSAY_OPENAI_PROVIDER (provider);
  g_autoptr(AssayLlmHttpRequest) http = NULL;
  g_autoptr(JsonNode) body = NULL;

  if (request->model == NULL || request->model[0] == '\0')
    {
      g_task_report_new_error (self, callback, user_data, assay_openai_provider_stream_async,
                               ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_BAD_REQUEST,
                               "No model is chosen for the model server");
      return;
    }

  if (self->api == ASSAY_OPENAI_API_RESPONSES)
    {
      http = assay_openai_provider_new_request (self, ASSAY_LLM_FLAVOR_OPENAI_RESPONSES, "/responses",
                                                request->model);
      body = _assay_openai_responses_build_body (request);
    }
  else
    {
      http = assay_openai_provider_new_request (self, ASSAY_LLM_FLAVOR_OPENAI, "/chat/completions",
                                                request->model);
      body = assay_openai_provider_build_body (request);
    }
  assay_llm_http_request_add_header (http, "Content-Type", "application/json");
  assay_llm_http_request_add_header (http, "Accept", "text/event-stream");
  assay_llm_http_request_set_json (http, body);
  assay_llm_http_stream_async (provider, g_steal_pointer (&http), cancellable, callback, user_data);
}

static AssayLlmResponse *
assay_openai_provider_stream_finish (AssayLlmProvider  *provider,
                                     GAsyncResult      *result,
                                     GError           **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
assay_openai_provider_list_models_async (AssayLlmProvider    *provider,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  AssayOpenaiProvider *self = ASSAY_OPENAI_PROVIDER (provider);

  assay_llm_http_list_models_async (provider,
                                    assay_openai_provider_new_request (self, ASSAY_LLM_FLAVOR_OPENAI, "/models", NULL),
                                    cancellable, callback, user_data);
}

static GStrv
assay_openai_provider_list_models_finish (AssayLlmProvider  *provider,
                                          GAsyncResult      *result,
                                          GError           **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
assay_openai_provider_finalize (GObject *object)
{
  AssayOpenaiProvider *self = ASSAY_OPENAI_PROVIDER (object);

  g_free (self->base_url);
  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_free (self->api_key);
  G_OBJECT_CLASS (assay_openai_provider_parent_class)->finalize (object);
}

static void
assay_openai_provider_class_init (AssayOpenaiProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AssayLlmProviderClass *provider_class = ASSAY_LLM_PROVIDER_CLASS (klass);

  object_class->finalize = assay_openai_provider_finalize;
  provider_class->get_name = assay_openai_provider_get_name;
  provider_class->get_base_url = assay_openai_provider_get_base_url;
  provider_class->get_wire_format = assay_openai_provider_get_wire_format;
  provider_class->stream_async = assay_openai_provider_stream_async;
  provider_class->stream_finish = assay_openai_provider_stream_finish;
  provider_class->list_models_async = assay_openai_provider_list_models_async;
  provider_class->list_models_finish = assay_openai_provider_list_models_finish;
}

static void
assay_openai_provider_init (AssayOpenaiProvider *self)
{
}

AssayLlmProvider *
assay_openai_provider_new (const char *base_url,
                           const char *api_key)
{
  return assay_openai_provider_new_for_api (base_url, api_key, ASSAY_OPENAI_API_AUTO);
}

AssayLlmProvider *
assay_openai_provider_new_for_api (const char     *base_url,
                                   const char     *api_key,
                                   AssayOpenaiApi  api)
{
  AssayOpenaiProvider *self = g_object_new (assay_openai_provider_get_type (), NULL);

  self->base_url = assay_llm_http_build_base (base_url, DEFAULT_BASE_URL);
  self->api_key = api_key != NULL && api_key[0] != '\0' ? g_strdup (api_key) : NULL;
  if (api == ASSAY_OPENAI_API_AUTO)
    {
      g_autofree char *host = assay_llm_url_dup_host (self->base_url);

      api = g_strcmp0 (host, "api.openai.com") == 0 ? ASSAY_OPENAI_API_RESPONSES : ASSAY_OPENAI_API_CHAT;
    }
  self->api = api;
  return ASSAY_LLM_PROVIDER (self);
}
