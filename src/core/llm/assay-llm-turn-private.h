/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-json.h"
#include "assay-llm-types.h"

G_BEGIN_DECLS

/* One assistant turn as it streams in: the decoders of both wire formats turn events into
 * text and tool-call pieces here, and the turn hands each piece to an emit function (the
 * HTTP transport queues them for the caller's main context; the fuzzer drops them).
 *
 * Everything here runs in the transport's worker thread and sees only its own data. */

typedef enum
{
  ASSAY_LLM_FLAVOR_OPENAI,
  ASSAY_LLM_FLAVOR_ANTHROPIC,
  ASSAY_LLM_FLAVOR_OPENAI_RESPONSES,  /* OpenAI's Responses API (POST /responses) */
} AssayLlmFlavor;

/* INDEX is -1 for text; otherwise the call's position in the turn, with its ID and NAME. */
typedef void (*AssayLlmEmitFunc) (int         index,
                                  const char *id,
                                  const char *name,
                                  const char *text,
                                  gpointer    user_data);

typedef struct
{
  guint    wire_index;     /* OpenAI's "index", Anthropic's content block index, or the
                            * Responses API's output_index */
  gboolean id_from_server;
  char    *id;
  char    *name;
  GString *arguments;
  gboolean announced;      /* a tool-call-delta was emitted for it */
  char    *initial_input;  /* Anthropic: content_block_start's input, when not empty */
} AssayLlmTurnCall;

typedef struct
{
  AssayLlmFlavor      flavor;
  AssayLlmEmitFunc    emit;
  gpointer            emit_data;

  GString            *text;
  GPtrArray          *calls;          /* AssayLlmTurnCall* */
  char               *stop_reason_raw;
  AssayLlmStopReason  stop_reason;
  gint64              input_tokens;
  gint64              output_tokens;
  gint64              cached_input_tokens;
  gint64              cache_write_tokens;
  gboolean            input_excludes_cache; /* Anthropic counts cache reads and writes apart */
  gint64              reasoning_tokens;
  gboolean            finished;       /* a finish reason arrived */
  gboolean            done;           /* [DONE] or message_stop arrived */
  int                 anthropic_text_block;
  JsonArray          *reasoning_items; /* Responses: the turn's reasoning items, as they go back */
  gsize               reasoning_bytes;
  gsize               reasoning_summary_chars;
  JsonArray          *hosted_calls;    /* Responses: code_interpreter_call items, when done */
  JsonArray          *citations;       /* Responses: container_file_citation annotations */
  gsize               hosted_bytes;    /* of the code and outputs streamed, to stop a flood */
} AssayLlmTurn;

AssayLlmTurn     *assay_llm_turn_new        (AssayLlmFlavor    flavor,
                                             AssayLlmEmitFunc  emit,
                                             gpointer          emit_data);
void              assay_llm_turn_free       (AssayLlmTurn     *turn);
/* Forgets everything streamed so far (before a retry). */
void              assay_llm_turn_reset      (AssayLlmTurn     *turn);
/* Handles one server-sent event. Errors are in ASSAY_LLM_ERROR: an error the server
 * reported in the stream, or PROTOCOL for data that is not what the format promises. */
gboolean          assay_llm_turn_feed_event (AssayLlmTurn     *turn,
                                             const char       *event,
                                             const char       *data,
                                             gsize             data_len,
                                             GError          **error);
/* At the end of the stream: whether the turn is complete (PROTOCOL error if not). */
gboolean          assay_llm_turn_check_complete (AssayLlmTurn  *turn,
                                                 GError       **error);
AssayLlmResponse *assay_llm_turn_to_response (AssayLlmTurn    *turn);

/* Shared by the decoders. */
void              assay_llm_turn_add_text   (AssayLlmTurn     *turn,
                                             const char       *text);
AssayLlmTurnCall *assay_llm_turn_find_call  (AssayLlmTurn     *turn,
                                             guint             wire_index);
AssayLlmTurnCall *assay_llm_turn_start_call (AssayLlmTurn     *turn,
                                             guint             wire_index,
                                             const char       *id,
                                             const char       *name);
void              assay_llm_turn_add_arguments (AssayLlmTurn     *turn,
                                                AssayLlmTurnCall *call,
                                                const char       *fragment);

/* The per-format decoders (in assay-openai-provider.c, assay-anthropic-provider.c). */
gboolean          _assay_openai_feed_event    (AssayLlmTurn  *turn,
                                               JsonNode      *root,
                                               GError       **error);
gboolean          _assay_anthropic_feed_event (AssayLlmTurn  *turn,
                                               const char    *event,
                                               JsonNode      *root,
                                               GError       **error);

/* The Responses API (assay-openai-responses.c): the request body, and one streamed event. */
JsonNode         *_assay_openai_responses_build_body (const AssayLlmRequest *request);
gboolean          _assay_openai_responses_feed_event (AssayLlmTurn  *turn,
                                                      const char    *event,
                                                      JsonNode      *root,
                                                      GError       **error);

/* Text from a server, made fit for an error message: valid UTF-8, bounded, trimmed. */
char             *assay_llm_sanitize_message (const char      *text,
                                              gssize           len);
/* The error code an error type or HTTP-like status names. */
AssayLlmError     assay_llm_error_from_status (guint           status);

G_END_DECLS
