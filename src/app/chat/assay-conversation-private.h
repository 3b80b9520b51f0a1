/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What assay-conversation.c (the state) and assay-conversation-question.c (the question's
 * path) share. */
#pragma once

#include "assay-conversation.h"
#include "assay-kernel-session.h"
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
  guint                 backend_serial;   /* bumped when the settings change the sandbox */
  gboolean              choosing;         /* a backend is being chosen in a worker */
  gboolean              question_waits;   /* for that choice */
  AssaySandboxPool     *pool;             /* a warm sandbox for the next session's first cell */
  gboolean              want_warm;        /* a session got a dataset, or a model was set */
  AssayKernelSession   *kernel;
  AssayAgent           *agent;
  gboolean              auto_run;

  GCancellable         *ask_cancellable;  /* the question in progress */
  char                 *question;         /* until the agent has it */
  char                 *waiting;          /* the cell waiting for approval */
  gboolean              busy;
  gboolean              asking;           /* assay_agent_ask_async is in flight */
  gboolean              exportable;
  /* Closed while a question runs: the kernel is closed once the agent has recorded how it
   * ended (or after a grace period), and the application held until then. */
  gboolean              closing;
  GApplication         *held;
  guint                 close_grace_source;
};

/* assay-conversation.c: the state, with the notifications that go with it */
void assay_conversation_set_busy_internal      (AssayConversation *self,
                                                gboolean           busy);
void assay_conversation_set_waiting_internal   (AssayConversation *self,
                                                const char        *cell_id);
void assay_conversation_set_recorded_internal  (AssayConversation *self,
                                                gboolean           recorded);
void assay_conversation_update_exportable      (AssayConversation *self);

/* assay-conversation-question.c */
/* Lets go of the agent; its kernel is closed here, or off the main thread (the default
 * application held until it is gone). */
void assay_conversation_close_agent            (AssayConversation *self);
void assay_conversation_close_agent_async      (AssayConversation *self);
/* Closing: the agent has ended (or the grace period is over); the sandbox goes. */
void assay_conversation_finish_closing         (AssayConversation *self);

G_END_DECLS
