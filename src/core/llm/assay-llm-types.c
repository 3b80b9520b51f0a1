/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <string.h>

#include "assay-llm-types.h"

G_DEFINE_QUARK (assay-llm-error-quark, assay_llm_error)

AssayLlmToolCall *
assay_llm_tool_call_new (const char *id,
                         const char *name,
                         const char *arguments)
{
  AssayLlmToolCall *call = g_new0 (AssayLlmToolCall, 1);

  call->id = g_strdup (id);
  call->name = g_strdup (name);
  call->arguments = g_strdup (arguments);
  return call;
}

AssayLlmToolCall *
assay_llm_tool_call_copy (const AssayLlmToolCall *call)
{
  return assay_llm_tool_call_new (call->id, call->name, call->arguments);
}

void
assay_llm_tool_call_free (AssayLlmToolCall *call)
{
  if (call == NULL)
    return;
  g_free (call->id);
  g_free (call->name);
  g_free (call->arguments);
  g_free (call);
}

static AssayLlmMessage *
assay_llm_types_message_new (AssayLlmRole  role,
                             const char   *text)
{
  AssayLlmMessage *message = g_new0 (AssayLlmMessage, 1);

  message->role = role;
  message->text = g_strdup (text);
  message->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_tool_call_free);
  return message;
}

AssayLlmMessage *
assay_llm_message_new_user (const char *text)
{
  return assay_llm_types_message_new (ASSAY_LLM_ROLE_USER, text);
}

AssayLlmMessage *
assay_llm_message_new_assistant (const char *text)
{
  return assay_llm_types_message_new (ASSAY_LLM_ROLE_ASSISTANT, text);
}

AssayLlmMessage *
assay_llm_message_new_tool (const char *tool_call_id,
                            const char *content,
                            gboolean    is_error)
{
  AssayLlmMessage *message = assay_llm_types_message_new (ASSAY_LLM_ROLE_TOOL, content);

  message->tool_call_id = g_strdup (tool_call_id);
  message->is_error = is_error;
  return message;
}

AssayLlmMessage *
assay_llm_message_copy (const AssayLlmMessage *message)
{
  AssayLlmMessage *copy = assay_llm_types_message_new (message->role, message->text);

  for (guint i = 0; i < message->tool_calls->len; i++)
    g_ptr_array_add (copy->tool_calls, assay_llm_tool_call_copy (g_ptr_array_index (message->tool_calls, i)));
  copy->tool_call_id = g_strdup (message->tool_call_id);
  copy->is_error = message->is_error;
  copy->is_check = message->is_check;
  copy->is_repair = message->is_repair;
  copy->reasoning = g_strdup (message->reasoning);
  return copy;
}

void
assay_llm_message_free (AssayLlmMessage *message)
{
  if (message == NULL)
    return;
  g_free (message->text);
  g_ptr_array_unref (message->tool_calls);
  g_free (message->tool_call_id);
  g_free (message->reasoning);
  g_free (message);
}

AssayLlmTool *
assay_llm_tool_new (const char *name,
                    const char *description,
                    const char *parameters_json)
{
  AssayLlmTool *tool = g_new0 (AssayLlmTool, 1);
  g_autoptr(GError) error = NULL;

  tool->name = g_strdup (name);
  tool->description = g_strdup (description);
  tool->parameters = json_from_string (parameters_json, &error);
  /* The schemas are ours, written in the source: a broken one is a programming error. */
  g_assert_no_error (error);
  return tool;
}

void
assay_llm_tool_free (AssayLlmTool *tool)
{
  if (tool == NULL)
    return;
  g_free (tool->name);
  g_free (tool->description);
  g_clear_pointer (&tool->parameters, json_node_unref);
  g_free (tool);
}

AssayLlmRequest *
assay_llm_request_new (void)
{
  AssayLlmRequest *request = g_new0 (AssayLlmRequest, 1);

  request->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_message_free);
  request->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_tool_free);
  request->temperature = -1;
  return request;
}

void
assay_llm_request_free (AssayLlmRequest *request)
{
  if (request == NULL)
    return;
  g_free (request->model);
  g_free (request->system);
  g_free (request->hosted_container);
  g_ptr_array_unref (request->messages);
  g_ptr_array_unref (request->tools);
  g_free (request);
}

AssayLlmResponse *
assay_llm_response_new (void)
{
  AssayLlmResponse *response = g_new0 (AssayLlmResponse, 1);

  response->text = g_strdup ("");
  response->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_tool_call_free);
  response->stop_reason = ASSAY_LLM_STOP_OTHER;
  response->input_tokens = -1;
  response->output_tokens = -1;
  response->cached_input_tokens = -1;
  response->cache_write_tokens = -1;
  response->reasoning_tokens = -1;
  response->bytes_in = -1;
  response->attempts = 1;
  return response;
}

void
assay_llm_response_free (AssayLlmResponse *response)
{
  if (response == NULL)
    return;
  g_free (response->text);
  g_ptr_array_unref (response->tool_calls);
  g_free (response->stop_reason_raw);
  g_clear_pointer (&response->request_body, g_bytes_unref);
  g_free (response->request_host);
  g_free (response->reasoning);
  g_clear_pointer (&response->hosted_calls, json_array_unref);
  g_clear_pointer (&response->citations, json_array_unref);
  g_free (response);
}

gboolean
assay_llm_host_is_local (const char *host)
{
  g_autofree char *name = NULL;
  const char *colon;
  GInetAddress *address;
  gboolean local;

  if (host == NULL || *host == '\0')
    return FALSE;
  /* "[::1]:8080", "::1", "127.0.0.1:11434", "localhost:8080" */
  if (host[0] == '[')
    {
      const char *close = strchr (host, ']');

      if (close == NULL)
        return FALSE;
      name = g_strndup (host + 1, close - host - 1);
    }
  else if ((colon = strchr (host, ':')) != NULL && strchr (colon + 1, ':') == NULL)
    name = g_strndup (host, colon - host);
  else
    name = g_strdup (host);

  if (g_ascii_strcasecmp (name, "localhost") == 0 ||
      g_str_has_suffix (name, ".localhost") || g_str_has_suffix (name, ".localhost."))
    return TRUE;
  address = g_inet_address_new_from_string (name);
  if (address == NULL)
    return FALSE;
  local = g_inet_address_get_is_loopback (address);
  g_object_unref (address);
  return local;
}

char *
assay_llm_url_dup_host (const char *url)
{
  g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;
  const char *host;

  if (uri == NULL || (host = g_uri_get_host (uri)) == NULL || *host == '\0')
    return NULL;
  if (g_uri_get_port (uri) > 0)
    return strchr (host, ':') != NULL ? g_strdup_printf ("[%s]:%d", host, g_uri_get_port (uri))
                                      : g_strdup_printf ("%s:%d", host, g_uri_get_port (uri));
  return g_strdup (host);
}

gboolean
assay_llm_url_is_local (const char *url)
{
  g_autofree char *host = assay_llm_url_dup_host (url);

  return assay_llm_host_is_local (host);
}
