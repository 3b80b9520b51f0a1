/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the loop (assay-agent.c) and its "Runs on OpenAI" half (assay-agent-hosted.c) share:
 * the agent's state, its signals, and the steps each calls of the other. Not for tests or
 * callers: they have assay-agent.h and assay-agent-private.h. */
#pragma once

#include "assay-agent.h"
#include "assay-openai-container.h"

G_BEGIN_DECLS

typedef struct
{
  char *name;          /* as the sandbox shows it, under /data */
  char *description;   /* may be NULL */
} Dataset;

typedef struct
{
  AssaySource *source;
  char        *description;   /* its schema for the prompt; may be NULL */
} Source;

struct _AssayAgent
{
  GObject              parent_instance;

  AssayLlmProvider    *provider;
  AssayKernelSession  *kernel;
  AssaySession        *session;
  GMainContext        *context;
  gulong               provider_handlers[3];
  gulong               output_handler;

  char                *model;
  guint                max_steps;
  AssayApprovalPolicy  policy;
  gboolean             fenced_fallback;
  gboolean             check_numbers;    /* send an answer with untraced numbers back once */
  gboolean             checked;          /* this question's answer was sent back */
  gboolean             background_saves;
  guint                pending_saves;    /* asynchronous saves not landed yet */
  GTask               *finished_task;    /* a finished question waiting for them */
  gsize                output_budget;
  gsize                context_tokens;
  GPtrArray           *datasets;         /* Dataset* */
  GPtrArray           *sources;          /* Source*: the connected databases */
  AssayMasker         *masker;           /* masked columns, or NULL */
  AssayPriceTable     *prices;
  double               budget;           /* US dollars for the session; 0: none */
  GString             *text_held;        /* streamed text not shown yet: a placeholder may go on */
  GPtrArray           *code_held;        /* GString*, the same per tool call */
  gboolean             needs_restore;    /* a resumed session: replay its good cells first */
  int                  model_error_code; /* ASSAY_LLM_ERROR's code of the provider's failure */
  gboolean             repairing;        /* the run is a repair, not a question */

  /* The question being answered. */
  GTask               *task;
  GCancellable        *cancellable;
  gulong               cancel_handler;
  guint                step;
  gboolean             streaming;
  GPtrArray           *extractors;       /* AssayCodeExtractor*, by tool call index */
  AssayLlmMessage     *assistant;        /* the turn whose calls are being answered */
  guint                call_index;
  AssaySessionCell    *cell;             /* the cell waiting for approval or running */
  gboolean             awaiting_approval;
  AssayStepTiming      timing;           /* the step in progress; monotonic times */
  gint64               step_started_at;
  gint64               model_started_at;
  gint64               approval_asked_at;
  gint64               query_started_at;
  char                *query_summary;    /* what the model is told of the query that loads */
  GPtrArray           *restore_codes;
  GPtrArray           *restore_queries;  /* AssaySessionCell* asked again first, or NULL; by code */
  guint                restore_index;
  char                *restore_dir;
  gboolean             requery;          /* a resumed session's queries asked again, not cached */
  GString             *restore_notes;    /* what the model is told of queries asked again */

  /* "Runs on OpenAI": the model's code runs in this container with the Responses API's
   * code_interpreter tool, no kernel here and no approval possible (NULL: Assay runs it). */
  AssayOpenaiContainer *container;
  gboolean             container_lost;   /* the container expired: the next question makes another */
  gboolean             state_lost;       /* a new container after one was lost: the model is told */
  GHashTable          *uploaded;         /* dataset names in the container: the others go before a question */
};

enum {
  STEP,
  TEXT_DELTA,
  CODE_DELTA,
  RETRYING,
  APPROVAL_NEEDED,
  CELL_STARTED,
  OUTPUT,
  ARTIFACT_ADDED,
  CELL_FINISHED,
  RESTORING,
  REQUERIED,
  CHECKING,
  ERROR,
  DONE,
  ASSAY_AGENT_N_SIGNALS
};

/* The agent's signals, by the enum above (assay-agent.c installs them). */
G_GNUC_INTERNAL extern guint assay_agent_signals[ASSAY_AGENT_N_SIGNALS];

/* assay-agent.c */
/* The record written (by a worker in the background, else here). */
G_GNUC_INTERNAL void assay_agent_save            (AssayAgent        *self);
/* The question ends with OUTCOME and TEXT. */
G_GNUC_INTERNAL void assay_agent_finish          (AssayAgent        *self,
                                                  AssayAgentOutcome  outcome,
                                                  const char        *text);
/* The step is finished: it survives a crash from now on. */
G_GNUC_INTERNAL void assay_agent_finish_step     (AssayAgent        *self);
/* The next model turn is asked for. */
G_GNUC_INTERNAL void assay_agent_start_step      (AssayAgent        *self);
/* A turn streamed: its calls answered, or its answer checked and given (FENCED taken). */
G_GNUC_INTERNAL void assay_agent_handle_response (AssayAgent        *self,
                                                  AssayLlmResponse  *response,
                                                  char              *fenced);

/* assay-agent-hosted.c */
/* An error of the Responses API that says the container expired. */
G_GNUC_INTERNAL gboolean assay_agent_hosted_is_expiry     (const GError     *error);
/* The code interpreter's calls of RESPONSE (taken) recorded as cells, their files fetched
 * in a worker; then the response is handled as any turn. */
G_GNUC_INTERNAL void     assay_agent_record_hosted_async  (AssayAgent       *self,
                                                           AssayLlmResponse *response);
/* Before a question: a container when there is none, and the datasets it lacks uploaded (in
 * a worker); then the step starts. */
G_GNUC_INTERNAL void     assay_agent_hosted_prepare_async (AssayAgent       *self);

G_END_DECLS
