/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-llm-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_LLM_PROVIDER (assay_llm_provider_get_type ())

G_DECLARE_DERIVABLE_TYPE (AssayLlmProvider, assay_llm_provider, ASSAY, LLM_PROVIDER, GObject)

/* A model server. One request streams at a time per provider object.
 *
 * While a request streams, the provider emits, on the thread-default main context of the
 * caller of assay_llm_provider_stream_async():
 *
 *   ::text-delta (const char *text)
 *       a piece of the assistant's text.
 *   ::tool-call-delta (guint index, const char *id, const char *name, const char *fragment)
 *       a piece of tool call INDEX's arguments JSON (id and name are repeated every time,
 *       known from the call's first piece on; a whole call arrives as one fragment).
 *   ::retrying (guint attempt, guint delay_ms, const char *reason)
 *       the attempt failed in a way worth retrying (429, 5xx, 529, a cut connection); the
 *       request is sent again after DELAY_MS. Everything streamed so far for this turn is
 *       void: a consumer throws its partial text and calls away.
 *
 * All signals are emitted before the task completes. Cancelling aborts the transfer and any
 * wait at once; the task then fails with G_IO_ERROR_CANCELLED. */
struct _AssayLlmProviderClass
{
  GObjectClass parent_class;

  const char       *(*get_name)          (AssayLlmProvider      *self);
  void              (*stream_async)      (AssayLlmProvider      *self,
                                          const AssayLlmRequest *request,
                                          GCancellable          *cancellable,
                                          GAsyncReadyCallback    callback,
                                          gpointer               user_data);
  AssayLlmResponse *(*stream_finish)     (AssayLlmProvider      *self,
                                          GAsyncResult          *result,
                                          GError               **error);
  void              (*list_models_async) (AssayLlmProvider      *self,
                                          GCancellable          *cancellable,
                                          GAsyncReadyCallback    callback,
                                          gpointer               user_data);
  GStrv             (*list_models_finish)(AssayLlmProvider      *self,
                                          GAsyncResult          *result,
                                          GError               **error);

  const char       *(*get_base_url)      (AssayLlmProvider      *self);
  const char       *(*get_wire_format)   (AssayLlmProvider      *self);
  gpointer padding[6];
};

/* The server's root URL ("https://api.openai.com/v1"), or NULL when there is no server
 * (a recorded transcript). */
const char       *assay_llm_provider_get_base_url       (AssayLlmProvider      *self);
/* Whether what is sent stays on this computer: no server, or one on a loopback address. */
gboolean          assay_llm_provider_is_local           (AssayLlmProvider      *self);
/* "openai", "anthropic" or "recorded". */
const char       *assay_llm_provider_get_name           (AssayLlmProvider      *self);
/* What its requests speak: "chat-completions" or "responses" (OpenAI's two APIs),
 * "messages" (Anthropic's), or NULL (a recorded transcript). */
const char       *assay_llm_provider_get_wire_format    (AssayLlmProvider      *self);
void              assay_llm_provider_stream_async       (AssayLlmProvider      *self,
                                                         const AssayLlmRequest *request,
                                                         GCancellable          *cancellable,
                                                         GAsyncReadyCallback    callback,
                                                         gpointer               user_data);
AssayLlmResponse *assay_llm_provider_stream_finish      (AssayLlmProvider      *self,
                                                         GAsyncResult          *result,
                                                         GError               **error);
/* The model ids the server offers (GET /v1/models): sorted for OpenAI-compatible servers,
 * in the server's order (newest first) for Anthropic. A refused key fails with
 * ASSAY_LLM_ERROR_AUTH, an unreachable server with ASSAY_LLM_ERROR_NETWORK. */
void              assay_llm_provider_list_models_async  (AssayLlmProvider      *self,
                                                         GCancellable          *cancellable,
                                                         GAsyncReadyCallback    callback,
                                                         gpointer               user_data);
GStrv             assay_llm_provider_list_models_finish (AssayLlmProvider      *self,
                                                         GAsyncResult          *result,
                                                         GError               **error);

/* For subclasses: emit the signals (call on the caller's context). */
void assay_llm_provider_emit_text_delta      (AssayLlmProvider *self,
                                              const char       *text);
void assay_llm_provider_emit_tool_call_delta (AssayLlmProvider *self,
                                              guint             index,
                                              const char       *id,
                                              const char       *name,
                                              const char       *fragment);
void assay_llm_provider_emit_retrying        (AssayLlmProvider *self,
                                              guint             attempt,
                                              guint             delay_ms,
                                              const char       *reason);

/* Which of OpenAI's APIs an OpenAI provider speaks. AUTO: the Responses API for
 * api.openai.com, Chat Completions for every other server (Ollama, llama.cpp, vLLM and the
 * others copy Chat Completions). */
typedef enum
{
  ASSAY_OPENAI_API_AUTO,
  ASSAY_OPENAI_API_CHAT,
  ASSAY_OPENAI_API_RESPONSES,
} AssayOpenaiApi;

/* "auto", "chat" (or "chat-completions") and "responses"; FALSE for anything else. */
gboolean          assay_openai_api_from_string (const char     *name,
                                                AssayOpenaiApi *api);

/* Constructors. BASE_URL is the server's root including the version path
 * ("https://api.openai.com/v1", "http://localhost:11434/v1", "https://api.anthropic.com/v1");
 * NULL means the vendor's own. API_KEY may be NULL for a server without auth. */
AssayLlmProvider *assay_openai_provider_new    (const char  *base_url,
                                                const char  *api_key);
AssayLlmProvider *assay_openai_provider_new_for_api (const char     *base_url,
                                                    const char     *api_key,
                                                    AssayOpenaiApi  api);
AssayLlmProvider *assay_anthropic_provider_new (const char  *base_url,
                                                const char  *api_key);
/* The provider a setting or a command line names: "openai" (OpenAI and every
 * OpenAI-compatible server: Ollama, llama.cpp, vLLM) or "anthropic". G_IO_ERROR_INVALID_ARGUMENT
 * for any other name. The window and the CLI both make their providers here. */
AssayLlmProvider *assay_llm_provider_new_for_name (const char  *name,
                                                   const char  *base_url,
                                                   const char  *api_key,
                                                   GError     **error);
/* The same, with the OpenAI API a setting or --api names (NULL or "auto": by the server);
 * G_IO_ERROR_INVALID_ARGUMENT for an unknown one, or one other than auto for Anthropic. */
AssayLlmProvider *assay_llm_provider_new_for_name_and_api (const char  *name,
                                                           const char  *base_url,
                                                           const char  *api_key,
                                                           const char  *api,
                                                           GError     **error);
/* Replays the assistant turns of a transcript file (format in assay-recorded-provider.c). */
AssayLlmProvider *assay_recorded_provider_new  (const char  *transcript_path,
                                                GError     **error);

G_END_DECLS
