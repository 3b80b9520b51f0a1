/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* What every provider speaks, whatever its wire format: a conversation of messages,
 * the tools the model may call, and the reply it streamed. */

#define ASSAY_LLM_ERROR (assay_llm_error_quark ())
GQuark assay_llm_error_quark (void);

/* Every error message is written for an analyst ("the API key was refused"), and names
 * the server's own reason when it gave one. Cancellation is G_IO_ERROR_CANCELLED. */
typedef enum
{
  ASSAY_LLM_ERROR_AUTH,          /* 401, 403: key missing, refused, or not allowed */
  ASSAY_LLM_ERROR_NOT_FOUND,     /* 404: no such model or endpoint */
  ASSAY_LLM_ERROR_BAD_REQUEST,   /* 400, 413, 422: the server rejected the request */
  ASSAY_LLM_ERROR_RATE_LIMITED,  /* 429 after the retries ran out */
  ASSAY_LLM_ERROR_OVERLOADED,    /* 529 / overloaded_error after the retries */
  ASSAY_LLM_ERROR_SERVER,        /* 5xx, 408, 409 after the retries */
  ASSAY_LLM_ERROR_NETWORK,       /* could not connect, connection cut, after the retries */
  ASSAY_LLM_ERROR_PROTOCOL,      /* malformed stream, stream ended without a finish */
  ASSAY_LLM_ERROR_EXHAUSTED,     /* the recorded transcript has no more turns */
} AssayLlmError;

typedef enum
{
  ASSAY_LLM_ROLE_USER,
  ASSAY_LLM_ROLE_ASSISTANT,
  ASSAY_LLM_ROLE_TOOL,           /* the result of one tool call */
} AssayLlmRole;

typedef enum
{
  ASSAY_LLM_STOP_END_TURN,       /* a final answer (OpenAI "stop", Anthropic "end_turn") */
  ASSAY_LLM_STOP_TOOL_USE,       /* it wants tools run ("tool_calls", "tool_use") */
  ASSAY_LLM_STOP_MAX_TOKENS,     /* cut at the output limit ("length", "max_tokens") */
  ASSAY_LLM_STOP_OTHER,          /* anything else the server said (content filter, ...) */
} AssayLlmStopReason;

typedef struct
{
  char *id;          /* the provider's call id, as sent */
  char *name;        /* the tool's name, as the model wrote it (may be unknown to us) */
  char *arguments;   /* the arguments' JSON text, joined, as the model wrote it (may be invalid) */
} AssayLlmToolCall;

AssayLlmToolCall *assay_llm_tool_call_new  (const char       *id,
                                            const char       *name,
                                            const char       *arguments);
AssayLlmToolCall *assay_llm_tool_call_copy (const AssayLlmToolCall *call);
void              assay_llm_tool_call_free (AssayLlmToolCall *call);

typedef struct
{
  AssayLlmRole  role;
  char         *text;          /* user/assistant text, or a tool result's content; may be NULL */
  GPtrArray    *tool_calls;    /* assistant: AssayLlmToolCall*, never NULL (maybe empty) */
  char         *tool_call_id;  /* tool: the call this answers */
  gboolean      is_error;      /* tool: the result is an error (Anthropic's is_error) */
  gboolean      is_check;      /* user: Assay asked the model to check its answer, not the analyst */
  gboolean      is_repair;     /* user: Assay asked the model to repair a cell that failed when the
                                * analysis ran again on new data, not the analyst */
  char         *reasoning;     /* assistant: what the server needs back of its reasoning before
                                * this turn, as the JSON text of an array of its items (the
                                * Responses API's "reasoning" items with their encrypted_content),
                                * opaque to Assay and sent back as they came; NULL when none */
} AssayLlmMessage;

AssayLlmMessage *assay_llm_message_new_user      (const char       *text);
AssayLlmMessage *assay_llm_message_new_assistant (const char       *text);   /* add calls after */
AssayLlmMessage *assay_llm_message_new_tool      (const char       *tool_call_id,
                                                  const char       *content,
                                                  gboolean          is_error);
AssayLlmMessage *assay_llm_message_copy          (const AssayLlmMessage *message);
void             assay_llm_message_free          (AssayLlmMessage  *message);

typedef struct
{
  char     *name;
  char     *description;
  JsonNode *parameters;    /* a JSON Schema object */
} AssayLlmTool;

AssayLlmTool *assay_llm_tool_new  (const char *name,
                                   const char *description,
                                   const char *parameters_json);
void          assay_llm_tool_free (AssayLlmTool *tool);

typedef struct
{
  char      *model;
  char      *system;          /* the system prompt */
  GPtrArray *messages;        /* AssayLlmMessage*, oldest first */
  GPtrArray *tools;           /* AssayLlmTool* */
  guint      max_tokens;      /* 0: the provider's default (4096) */
  double     temperature;     /* negative: the server's default */
  char      *hosted_container; /* Responses API only: the model runs its code on OpenAI's side
                                * in this container ("cntr_…") with the code_interpreter tool;
                                * NULL: Assay runs it. */
} AssayLlmRequest;

/* The name an assistant message's tool call has when it was OpenAI's code_interpreter_call
 * (ran on OpenAI, never approved); its arguments are {"code", "container_id"}. */
#define ASSAY_LLM_HOSTED_TOOL_NAME "code_interpreter"

AssayLlmRequest *assay_llm_request_new  (void);
void             assay_llm_request_free (AssayLlmRequest *request);

typedef struct
{
  char               *text;         /* all text of the turn, joined (never NULL) */
  GPtrArray          *tool_calls;   /* AssayLlmToolCall*, in order (never NULL) */
  AssayLlmStopReason  stop_reason;
  char               *stop_reason_raw;
  gint64              input_tokens;  /* -1 when the server did not say */
  gint64              output_tokens;
  gint64              cached_input_tokens;  /* of the input, read from the server's cache; -1 */
  gint64              cache_write_tokens;   /* of the input, written to the server's cache; -1 */
  gint64              reasoning_tokens;     /* of the output, spent reasoning; -1 */
  char               *reasoning;    /* the turn's reasoning items to carry into the next request
                                     * (see AssayLlmMessage.reasoning); NULL when none */
  guint               attempts;      /* 1 + the retries it took */
  /* What went to the server, exactly (no header, so no key), and what came back. */
  GBytes             *request_body;
  char               *request_host;  /* "api.openai.com" or "127.0.0.1:11434" */
  gint64              bytes_in;      /* of the answer that was used */
  gint64              sent_at;       /* µs since the epoch */
  /* The Responses API with a hosted container: the turn's code_interpreter_call items as the
   * server sent them in response.output_item.done (untrusted: read with the checked getters),
   * and the container_file_citation annotations of its text; both NULL when none. */
  JsonArray          *hosted_calls;
  JsonArray          *citations;
} AssayLlmResponse;

/* Whether a model server stays on this computer: HOST ("127.0.0.1:11434", "localhost",
 * "::1") or the host of URL is a loopback name or address. Anything else, unix sockets
 * aside, is another machine, where the data goes. */
gboolean          assay_llm_host_is_local (const char *host);
gboolean          assay_llm_url_is_local  (const char *url);
/* The host (with its port when not the scheme's) of URL; NULL when it has none. */
char             *assay_llm_url_dup_host  (const char *url);

AssayLlmResponse *assay_llm_response_new  (void);
void              assay_llm_response_free (AssayLlmResponse *response);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayLlmToolCall, assay_llm_tool_call_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayLlmMessage, assay_llm_message_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayLlmTool, assay_llm_tool_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayLlmRequest, assay_llm_request_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayLlmResponse, assay_llm_response_free)

G_END_DECLS
