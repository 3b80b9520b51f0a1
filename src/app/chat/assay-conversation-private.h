/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What assay-conversation.c (the state) and assay-conversation-question.c (the question's
 * path) share. */
#pragma once

#include "assay-connection.h"
#include "assay-conversation.h"
#include "assay-dataset.h"
#include "assay-kernel-session.h"
#include "assay-masker.h"
#include "assay-openai-container.h"
#include "assay-sandbox-limits.h"
#include "assay-sandbox-pool.h"

G_BEGIN_DECLS

struct _AssayConversation
{
  GObject               parent_instance;

  GSettings            *settings;
  AssaySessionStore    *store;
  GCancellable         *cancellable;      /* the conversation's life */

  AssaySession         *session;
  AssayArtifactList    *artifacts;
  AssayLlmProvider     *provider;
  char                 *model;
  gboolean              provider_fixed;   /* set by the caller or the demo, not the settings */
  gboolean              recorded;
  AssaySandboxBackend  *backend;
  AssaySandboxSpec     *spec;
  char                 *backend_reason;
  char                 *backend_where;   /* where the chosen backend runs cells, in words */
  guint                 backend_serial;   /* bumped when the settings change the sandbox */
  gboolean              choosing;         /* a backend is being chosen in a worker */
  gboolean              question_waits;   /* for that choice */
  GPtrArray            *unsealed;         /* cells changed since approved: the question waits */
  gboolean              awaiting_model;   /* no provider chosen: the question waits for one */
  AssaySandboxPool     *pool;             /* a warm sandbox for the next session's first cell */
  gboolean              want_warm;        /* a session got a dataset, or a model was set */
  AssayKernelSession   *kernel;
  AssayAgent           *agent;
  gboolean              auto_run;
  gboolean              requery;          /* the opened session's queries asked again, not cached */
  /* "Runs on OpenAI" (assay-conversation-hosted.c): chosen for this session; the container
   * made with the key, until the agent takes it. */
  gboolean              runs_on_openai;
  char                 *hosted_session_id; /* the session it was chosen for (NULL: the next made) */
  AssayOpenaiContainer *container;

  /* What leaves the machine (assay-conversation-privacy.c). */
  AssayMasker          *masker;           /* the session's masked columns, made in a worker */
  char                 *masker_key;       /* the columns and files it was made for */
  GHashTable           *described;        /* dataset name → the mode its description was made for + 1 */
  char                 *price_warning;    /* the last said, so a broken prices file is said once */

  GCancellable         *ask_cancellable;  /* the question in progress */
  char                 *question;         /* until the agent has it */
  char                 *waiting;          /* the cell waiting for approval */
  gboolean              busy;
  gboolean              asking;           /* assay_agent_ask_async is in flight */
  gboolean              continuing;       /* Try Again: the question goes on, nothing added */
  gboolean              rewriting;        /* not a question: a run's summary rewritten from its outputs */
  char                 *server_problem;   /* why the last question stopped at the model server */
  gboolean              exportable;
  /* Closed while a question runs: the kernel is closed once the agent has recorded how it
   * ended (or after a grace period), and the application held until then. */
  gboolean              closing;
  GApplication         *held;
  guint                 close_grace_source;

  /* The session's databases (assay-conversation-databases.c). */
  GListStore           *connections;      /* AssayConnection*, in the session's order */
  GCancellable         *connections_cancellable;  /* this session's keyring lookups and connects */
  gboolean              question_waits_connections;  /* until none is still connecting */
};

/* assay-conversation.c: the state, with the notifications that go with it */
void assay_conversation_set_busy_internal      (AssayConversation *self,
                                                gboolean           busy);
void assay_conversation_set_waiting_internal   (AssayConversation *self,
                                                const char        *cell_id);
void assay_conversation_set_recorded_internal  (AssayConversation *self,
                                                gboolean           recorded);
void assay_conversation_update_exportable      (AssayConversation *self);
/* The "server-problem" property (NULL: none). */
void assay_conversation_set_server_problem_internal (AssayConversation *self,
                                                     const char        *problem);
/* The notification of "fixed-provider" (the caller set a provider, or let go of it). */
void assay_conversation_notify_fixed_provider_internal (AssayConversation *self);

/* assay-conversation.c: profiles the dataset NAME (its copy at PATH) in a worker and tells
 * the model (through the agent, or the session until there is one) what the session's mode
 * lets it know: assay_dataset_describe_schema_for_prompt () in schema-only mode. */
void assay_conversation_describe_dataset       (AssayConversation *self,
                                                const char        *name,
                                                const char        *path);
/* The signal "privacy-changed" and the notification of "privacy-mode". */
void assay_conversation_privacy_changed_internal (AssayConversation *self);

/* assay-conversation-privacy.c */
/* What the model may be told of DATASET (NULL: ERROR says why) under the session's mode. */
char *assay_conversation_make_description      (AssaySession      *session,
                                                AssayDataset      *dataset,
                                                const GError      *error);
/* The description of NAME was made for MODE. */
void assay_conversation_note_described         (AssayConversation *self,
                                                const char        *name,
                                                AssayPrivacyMode   mode);
/* Another session: its masker and what its descriptions were made for are not known. */
void assay_conversation_forget_privacy         (AssayConversation *self);
/* Before each question, once the agent is made: the masker of the session's masked columns
 * and the descriptions its mode wants (made in a worker from the session's own copies), the
 * prices and the budget go to the agent, then assay_conversation_ask_agent (); or the
 * question fails, saying why. */
void assay_conversation_prepare_question       (AssayConversation *self);

/* assay-conversation-databases.c */
void assay_conversation_init_databases         (AssayConversation *self);
/* Another session (or none): its recorded databases are listed and connected again, their
 * passwords from the keyring. */
void assay_conversation_load_connections       (AssayConversation *self);
/* Whether a connection is still connecting (a question waits for it: prepare_question is
 * called again once none is). */
gboolean assay_conversation_get_connecting     (AssayConversation *self);
/* The source of the connected database NAME, for the masks of "NAME.TABLE" columns. */
AssaySource *assay_conversation_find_source    (AssayConversation *self,
                                                const char        *name);

/* A connected database as a question's prepare job takes it: the worker describes it for the
 * model when its description was made under another mode or other masked columns. */
typedef struct
{
  char        *name;
  AssaySource *source;
  gboolean     describe;
  char        *description;   /* made by the worker */
  GError      *error;         /* why it could not be */
} DatabaseSpec;

void assay_conversation_database_spec_free     (DatabaseSpec      *spec);
/* The connected databases (DatabaseSpec*), each marked for describing unless its
 * description was made under KEY. */
GPtrArray *assay_conversation_collect_databases (AssayConversation *self,
                                                 const char        *key);
/* In the worker: the descriptions, masked by MASKER (NULL: none) in MODE. */
void assay_conversation_describe_databases     (GPtrArray         *databases,
                                                AssayMasker       *masker,
                                                AssayPrivacyMode   mode,
                                                GCancellable      *cancellable);
/* After it, on the conversation's thread: the descriptions to the connections and every
 * connected database to the agent (a failure said with ::error, that database left out). */
void assay_conversation_apply_databases        (AssayConversation *self,
                                                GPtrArray         *databases,
                                                const char        *key);

/* assay-conversation-question.c */
/* The question (self->question) goes to the agent. */
void assay_conversation_ask_agent              (AssayConversation *self);
void assay_conversation_fail_question          (AssayConversation *self,
                                                AssayAgentOutcome  outcome,
                                                const char        *message);
/* Lets go of the agent; its kernel is closed here, or off the main thread (the default
 * application held until it is gone). */
void assay_conversation_close_agent            (AssayConversation *self);
void assay_conversation_close_agent_async      (AssayConversation *self);
/* Closing: the agent has ended (or the grace period is over); the sandbox goes. */
void assay_conversation_finish_closing         (AssayConversation *self);

void assay_conversation_notify_sandbox (AssayConversation *self);
/* The notification of "runs-on-openai". */
void assay_conversation_notify_runs_on_openai_internal (AssayConversation *self);

/* assay-conversation-hosted.c */
/* Removes CONTAINER (when it was made) in a worker, the default application held until then. */
void assay_conversation_delete_container       (AssayOpenaiContainer *container);

G_END_DECLS
