/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include "assay-llm-provider.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

G_DEFINE_ABSTRACT_TYPE (AssayLlmProvider, assay_llm_provider, G_TYPE_OBJECT)

enum {
  SIGNAL_TEXT_DELTA,
  SIGNAL_TOOL_CALL_DELTA,
  SIGNAL_RETRYING,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
assay_llm_provider_class_init (AssayLlmProviderClass *klass)
{
  signals[SIGNAL_TEXT_DELTA] =
    g_signal_new ("text-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_TOOL_CALL_DELTA] =
    g_signal_new ("tool-call-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                  G_TYPE_UINT, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_RETRYING] =
    g_signal_new ("retrying", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_UINT, G_TYPE_UINT, G_TYPE_STRING);
}

static void
assay_llm_provider_init (AssayLlmProvider *self)
{
}

const char *
assay_llm_provider_get_name (AssayLlmProvider *self)
{
  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (self), NULL);
  return ASSAY_LLM_PROVIDER_GET_CLASS (self)->get_name (self);
}

const char *
assay_llm_provider_get_base_url (AssayLlmProvider *self)
{
  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (self), NULL);
  if (ASSAY_LLM_PROVIDER_GET_CLASS (self)->get_base_url == NULL)
    return NULL;
  return ASSAY_LLM_PROVIDER_GET_CLASS (self)->get_base_url (self);
}

const char *
assay_llm_provider_get_wire_format (AssayLlmProvider *self)
{
  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (self), NULL);
  if (ASSAY_LLM_PROVIDER_GET_CLASS (self)->get_wire_format == NULL)
    return NULL;
  return ASSAY_LLM_PROVIDER_GET_CLASS (self)->get_wire_format (self);
}

gboolean
assay_llm_provider_is_local (AssayLlmProvider *self)
{
  const char *url;

  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (self), TRUE);
  url = assay_llm_provider_get_base_url (self);
  return url == NULL || assay_llm_url_is_local (url);
}

void
assay_llm_provider_stream_async (AssayLlmProvider      *self,
                                 const AssayLlmRequest *request,
                                 GCancellable          *cancellable,
                                 GAsyncReadyCallback    callback,
                                 gpointer               user_data)
{
  g_return_if_fail (ASSAY_IS_LLM_PROVIDER (self));
  g_return_if_fail (request != NULL);
  ASSAY_LLM_PROVIDER_GET_CLASS (self)->stream_async (self, request, cancellable, callback, user_data);
}

AssayLlmResponse *
assay_llm_provider_stream_finish (AssayLlmProvider  *self,
                                  GAsyncResult      *result,
                                  GError           **error)
{
  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (self), NULL);
  return ASSAY_LLM_PROVIDER_GET_CLASS (self)->stream_finish (self, result, error);
}

void
assay_llm_provider_list_models_async (AssayLlmProvider    *self,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (ASSAY_IS_LLM_PROVIDER (self));
  ASSAY_LLM_PROVIDER_GET_CLASS (self)->list_models_async (self, cancellable, callback, user_data);
}

GStrv
assay_llm_provider_list_models_finish (AssayLlmProvider  *self,
                                       GAsyncResult      *result,
                                       GError           **error)
{
  g_return_val_if_fail (ASSAY_IS_LLM_PROVIDER (self), NULL);
  return ASSAY_LLM_PROVIDER_GET_CLASS (self)->list_models_finish (self, result, error);
}

void
assay_llm_provider_emit_text_delta (AssayLlmProvider *self,
                                    const char       *text)
{
  g_signal_emit (self, signals[SIGNAL_TEXT_DELTA], 0, text);
}

void
assay_llm_provider_emit_tool_call_delta (AssayLlmProvider *self,
                                         guint             index,
                                         const char       *id,
                                         const char       *name,
                                         const char       *fragment)
{
  g_signal_emit (self, signals[SIGNAL_TOOL_CALL_DELTA], 0, index, id, name, fragment);
}

void
assay_llm_provider_emit_retrying (AssayLlmProvider *self,
                                  guint             attempt,
                                  guint             delay_ms,
                                  const char       *reason)
{
  g_signal_emit (self, signals[SIGNAL_RETRYING], 0, attempt, delay_ms, reason);
}

gboolean
assay_openai_api_from_string (const char     *name,
                              AssayOpenaiApi *api)
{
  AssayOpenaiApi found;

  if (name == NULL || name[0] == '\0' || g_str_equal (name, "auto"))
    found = ASSAY_OPENAI_API_AUTO;
  else if (g_str_equal (name, "chat") || g_str_equal (name, "chat-completions"))
    found = ASSAY_OPENAI_API_CHAT;
  else if (g_str_equal (name, "responses"))
    found = ASSAY_OPENAI_API_RESPONSES;
  else
    return FALSE;
  if (api != NULL)
    *api = found;
  return TRUE;
}

AssayLlmProvider *
assay_llm_provider_new_for_name (const char  *name,
                                 const char  *base_url,
                                 const char  *api_key,
                                 GError     **error)
{
  return assay_llm_provider_new_for_name_and_api (name, base_url, api_key, NULL, error);
}

AssayLlmProvider *
assay_llm_provider_new_for_name_and_api (const char  *name,
                                         const char  *base_url,
                                         const char  *api_key,
                                         const char  *api,
                                         GError     **error)
{
  AssayOpenaiApi openai_api = ASSAY_OPENAI_API_AUTO;

  g_return_val_if_fail (name != NULL, NULL);

  if (!assay_openai_api_from_string (api, &openai_api))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("unknown API “%s” (use responses, chat or auto)"), api);
      return NULL;
    }
  if (g_str_equal (name, "openai"))
    return assay_openai_provider_new_for_api (base_url, api_key, openai_api);
  if (g_str_equal (name, "anthropic") && openai_api != ASSAY_OPENAI_API_AUTO)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("the API “%s” is OpenAI’s: Anthropic speaks its own"), api);
      return NULL;
    }
  if (g_str_equal (name, "anthropic"))
    return assay_anthropic_provider_new (base_url, api_key);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               _("unknown provider “%s” (use openai or anthropic)"), name);
  return NULL;
}
