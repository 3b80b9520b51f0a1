/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-llm-provider.h"
#include "assay-llm-turn-private.h"

G_BEGIN_DECLS

/* The transport both providers share: one HTTP request over libcurl in a worker thread,
 * retried by the policy below, with the streamed events decoded in the worker and the
 * provider's signals emitted, in order, on the main context of the caller.
 *
 * Retry policy: 408, 409, 429, 5xx, 529, an error the server reports inside the stream
 * (overloaded, rate limited, server error), a connection cut or silent for 120 s, and a
 * stream that ends before its finish are retried up to ASSAY_LLM_MAX_RETRIES times. The
 * wait is the server's retry-after-ms, else its Retry-After (seconds or an HTTP date);
 * a server asking for more than 120 s is not waited for. Without either, the wait is
 * 0.5 s doubling per retry, capped at 8 s, with jitter (between half and all of it).
 * 400, 401, 403, 404 (and other 4xx) are never retried, nor is a refused connection.
 *
 * ::retrying reports the wait as the server or the policy asked for it. The environment
 * variable ASSAY_LLM_RETRY_SCALE (a number between 0 and 1, for tests) shortens the
 * actual wait by that factor without changing what is reported. */

#define ASSAY_LLM_MAX_RETRIES          3
#define ASSAY_LLM_MAX_RETRY_AFTER_MS   (120 * 1000)
#define ASSAY_LLM_BACKOFF_BASE_MS      500
#define ASSAY_LLM_BACKOFF_CAP_MS       8000

typedef struct _AssayLlmHttpRequest AssayLlmHttpRequest;

/* BASE_URL without a trailing slash; PATH like "/chat/completions". API_KEY is used only
 * to keep it out of error messages: the caller adds the header that carries it. */
AssayLlmHttpRequest *assay_llm_http_request_new        (AssayLlmFlavor        flavor,
                                                        const char           *base_url,
                                                        const char           *path,
                                                        const char           *api_key,
                                                        const char           *model);
void                 assay_llm_http_request_free       (AssayLlmHttpRequest  *request);
void                 assay_llm_http_request_add_header (AssayLlmHttpRequest  *request,
                                                        const char           *name,
                                                        const char           *value);
/* Makes it a POST of this JSON body. */
void                 assay_llm_http_request_set_json   (AssayLlmHttpRequest  *request,
                                                        JsonNode             *body);

/* POSTs REQUEST (taken) and decodes its event stream into a response. */
void              assay_llm_http_stream_async       (AssayLlmProvider     *provider,
                                                     AssayLlmHttpRequest  *request,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
AssayLlmResponse *assay_llm_http_stream_finish      (AssayLlmProvider     *provider,
                                                     GAsyncResult         *result,
                                                     GError              **error);
/* GETs REQUEST (taken), a model list: the ids in data[].id, sorted (Anthropic: as listed,
 * newest first). */
void              assay_llm_http_list_models_async  (AssayLlmProvider     *provider,
                                                     AssayLlmHttpRequest  *request,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
GStrv             assay_llm_http_list_models_finish (AssayLlmProvider     *provider,
                                                     GAsyncResult         *result,
                                                     GError              **error);

/* Joins a base URL and a path with exactly one slash; NULL base means DEFAULT_BASE. */
char             *assay_llm_http_build_base         (const char           *base_url,
                                                     const char           *default_base);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayLlmHttpRequest, assay_llm_http_request_free)

G_END_DECLS
