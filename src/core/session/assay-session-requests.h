/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-session.h"

G_BEGIN_DECLS

/*
 * The one reading of what a request to a model server carried, as parts a person reads: the
 * system prompt and the dataset summary at its end, the tools offered, then each message of
 * the conversation as it was sent (the analyst's questions, the model's replies, the
 * arguments of its tool calls, the tool results). The three body shapes Assay sends: OpenAI
 * chat completions ("messages" with system, user, assistant and tool roles and "tool_calls"),
 * Anthropic messages ("system", and "messages" of text, tool_use and tool_result blocks) and
 * OpenAI's Responses API ("instructions", and "input" items: messages, function_call,
 * function_call_output, and reasoning items, shown by their summary, never their encrypted
 * content).
 *
 * Every request repeats the conversation so far, so a reading compared with the one before
 * it marks each part added, repeated, or changed in place (Assay empties old outputs to fit
 * the model's context). The window's "Sent to the Model" and the reports' appendix "What was
 * sent to the model" both read bodies this way.
 *
 * A body may come from someone else's machine: it is parsed only after assay-json's checks,
 * every member is read by its type, and every text is made valid UTF-8 without control
 * characters other than line ends and tabs. No text is markup.
 *
 * Reading and comparing touch no session, so they may run in a worker; naming the cells
 * reads the session, on the session's thread.
 */

typedef enum
{
  ASSAY_REQUEST_FORMAT_OPENAI,       /* chat completions */
  ASSAY_REQUEST_FORMAT_ANTHROPIC,    /* messages */
  ASSAY_REQUEST_FORMAT_OPENAI_RESPONSES,  /* the Responses API */
} AssayRequestFormat;

typedef enum
{
  ASSAY_REQUEST_PART_SYSTEM,         /* the system prompt, up to the datasets */
  ASSAY_REQUEST_PART_DATASETS,       /* the system prompt from "Datasets (read-only):" on */
  ASSAY_REQUEST_PART_TOOLS,          /* the tools offered: names and descriptions */
  ASSAY_REQUEST_PART_QUESTION,       /* the text of a user message */
  ASSAY_REQUEST_PART_CHECK,          /* a user message Assay wrote to check an answer (once named) */
  ASSAY_REQUEST_PART_REPLY,          /* the text of an assistant message */
  ASSAY_REQUEST_PART_DRAFT,          /* a reply Assay's check sent back: a draft, not the answer (once named) */
  ASSAY_REQUEST_PART_TOOL_CALL,      /* the arguments of a call the model made */
  ASSAY_REQUEST_PART_TOOL_RESULT,    /* what a call got back */
  ASSAY_REQUEST_PART_OTHER,          /* what Assay does not send: an image, another role, ... */
} AssayRequestPartKind;

typedef enum
{
  ASSAY_REQUEST_PART_ADDED,          /* not in the request compared with (or none was) */
  ASSAY_REQUEST_PART_REPEATED,       /* sent the same in it */
  ASSAY_REQUEST_PART_CHANGED,        /* in it at the same place, with other text */
} AssayRequestPartChange;

typedef struct
{
  AssayRequestPartKind    kind;
  AssayRequestPartChange  change;
  char                   *label;      /* "Question", "Tool result (cell c3)", ...: translated */
  char                   *role;       /* as sent ("system", "user", "assistant", "tool"), cleaned */
  char                   *text;       /* whole, never NULL */
  char                   *tool_name;  /* a call: the tool as the model named it; else NULL */
  char                   *call_id;    /* a call or a result: the call's id as sent; else NULL */
  char                   *cell_id;    /* a call or a result: its cell, once named; else NULL */
  guint                   step;       /* the step of the reply it is or follows, counted in the body from 1 */
  gboolean                is_error;   /* a result the body marks as an error */
} AssayRequestPart;

typedef struct
{
  AssayRequestFormat  format;
  char               *model;          /* the body's "model", cleaned; may be NULL */
  GPtrArray          *parts;          /* AssayRequestPart*, in the order they were sent */
  guint               compared_with;  /* the number of the request compared with; 0: none */
  guint               n_added;        /* parts added or changed */
  gboolean            diverged;       /* the conversation does not go on from the one compared
                                       * with: a part of that one is not at its place here (or
                                       * this one is shorter), and from there on all is added */
} AssayRequestReading;

/* BODY read as a request; NULL with G_IO_ERROR_INVALID_DATA (and the reason) when it is not
 * a JSON object with a "messages" list. Every part starts ADDED. */
AssayRequestReading *assay_request_reading_new        (GBytes                    *body,
                                                       GError                   **error);
void                 assay_request_reading_free       (AssayRequestReading       *reading);
/* Marks each part of SELF repeated, changed or added against PREVIOUS, what request
 * PREVIOUS_NUMBER sent (NULL: nothing to compare with, all added). */
void                 assay_request_reading_compare    (AssayRequestReading       *self,
                                                       const AssayRequestReading *previous,
                                                       guint                      previous_number);
/* Names the cells of SESSION that the calls and results of SELF were ("Tool result (cell
 * c3)"), by step and call id first, then by call id alone, and Assay's checks of an answer
 * among the user messages. On the session's thread. */
void                 assay_request_reading_name_cells (AssayRequestReading       *self,
                                                       AssaySession              *session);

/* BODY read and compared with PREVIOUS_BODY, what request PREVIOUS_NUMBER sent (NULL, or a
 * body that is not a request: nothing to compare with). Touches no session: a worker may
 * call it with bodies the session's thread read. */
AssayRequestReading *assay_request_reading_new_compared (GBytes                  *body,
                                                         GBytes                  *previous_body,
                                                         guint                    previous_number,
                                                         GError                 **error);

/* The body of the nearest request before INDEX of SESSION's requests whose body was kept
 * and is what was sent, and its number in *NUMBER; NULL (and 0) when there is none: what
 * request INDEX is compared with. On the session's thread. */
GBytes              *assay_session_requests_read_previous_body (AssaySession     *session,
                                                                guint             index,
                                                                guint            *number);
/* The request at INDEX of SESSION's requests read, compared with the previous body above,
 * and its cells named: what the window's viewer shows. NULL with the session's error when
 * its body was not kept (G_IO_ERROR_NOT_FOUND) or is not what was sent, or with
 * G_IO_ERROR_INVALID_DATA when it is not a request. On the session's thread. */
AssayRequestReading *assay_session_requests_read      (AssaySession              *session,
                                                       guint                      index,
                                                       GError                   **error);

/* What assay_session_requests_foreach () is given for each request: its INDEX among
 * SESSION's requests and its READING, which is the callee's to look at during the call only;
 * or NULL and the ERROR assay_session_requests_read () would have set. */
typedef void (*AssaySessionRequestsFunc) (AssaySession              *session,
                                          guint                      index,
                                          const AssayRequestReading *reading,
                                          const GError              *error,
                                          gpointer                   user_data);

/* Each of SESSION's requests in order, read and compared as assay_session_requests_read ()
 * reads it, but each body read back and parsed once and at most two readings held at a
 * time: for what shows every request (the reports' appendix). On the session's thread. */
void                 assay_session_requests_foreach   (AssaySession              *session,
                                                       AssaySessionRequestsFunc   func,
                                                       gpointer                   user_data);

/* The label of a part of KIND with no cell ("Question", "Model's reply", ...). */
const char          *assay_request_part_kind_label    (AssayRequestPartKind       kind);
/* TEXT cleaned as a part's text is: valid UTF-8 without control characters, line ends and
 * tabs kept (SINGLE_LINE: made spaces), carriage returns dropped. For what a session records
 * beside a body (its host, its model) and for errors that quote it. NULL reads as "". */
char                *assay_request_clean_text         (const char                *text,
                                                       gboolean                   single_line);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayRequestReading, assay_request_reading_free)

G_END_DECLS
