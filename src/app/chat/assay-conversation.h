/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-agent.h"
#include "assay-artifact-list.h"
#include "assay-connection.h"
#include "assay-llm-provider.h"
#include "assay-session-store.h"

G_BEGIN_DECLS

/* The question's flow for one window, without a widget: the current session, the provider
 * (its key from the keyring, the model from GSettings), the sandbox backend (chosen in a
 * worker), the kernel and the agent, wired as `assay-cli ask` wires them.
 *
 * The views bind to it: the chat view and the code review follow the agent through the
 * "agent" property (a GSignalGroup on it), and the conversation's own signals and
 * properties; the window relays nothing.
 *
 * Properties (read-only unless said): "session" (AssaySession, NULL before the first file or
 * question), "artifacts" (the session's AssayArtifactList, for the gallery), "agent" (NULL
 * until the first question, and again when settings change), "busy" (a question is in
 * progress), "waiting" (the id of the cell waiting for approval, or NULL), "exportable" (a
 * question answered or a cell finished), "recorded" (the provider is a recorded demo),
 * "auto-run" (read-write: cells run without asking; starts from the approval-policy
 * setting, again for every session), "privacy-mode" (what the model may see of the session's
 * data: "full", "masked" or "schema"; "full" without a session), "fixed-provider" (the
 * AssayLlmProvider the caller set instead of the settings', or NULL), "server-problem" (why
 * the last question stopped at the model server: refused connection, refused key, no such
 * model, server errors after the retries, a reply that is not the OpenAI or Anthropic API;
 * in words for the analyst, NULL otherwise; cleared by the next question or session).
 *
 * Signals:
 *   ::asked (const char *question)         a question was accepted and starts now
 *   ::finished (int outcome, const char *text)
 *                                          the question ended (AssayAgentOutcome): the answer,
 *                                          a notice, or why it failed (NULL: the agent's
 *                                          ::error said it already)
 *   ::needs-model ()                       a question came before any model was chosen
 *   ::responded (const char *cell_id, int response, const char *text)
 *                                          the analyst's answer to a cell went to the agent
 *   ::error (const char *message)          something outside a question failed (a save), or
 *                                          a warning (the prices file cannot be read)
 *   ::privacy-changed ()                   the session's privacy mode or masked columns
 *                                          changed (not when another session comes) */
#define ASSAY_TYPE_CONVERSATION (assay_conversation_get_type ())

G_DECLARE_FINAL_TYPE (AssayConversation, assay_conversation, ASSAY, CONVERSATION, GObject)

/* SETTINGS: org.assay.Assay; sessions are saved in turn through STORE. */
AssayConversation *assay_conversation_new              (GSettings          *settings,
                                                        AssaySessionStore  *store);
AssaySession      *assay_conversation_get_session      (AssayConversation  *self);
AssayArtifactList *assay_conversation_get_artifacts    (AssayConversation  *self);
AssayAgent        *assay_conversation_get_agent        (AssayConversation  *self);
gboolean           assay_conversation_get_busy         (AssayConversation  *self);
const char        *assay_conversation_get_waiting      (AssayConversation  *self);
gboolean           assay_conversation_get_exportable   (AssayConversation  *self);
gboolean           assay_conversation_get_recorded     (AssayConversation  *self);
/* The provider set by assay_conversation_set_provider () (the demo, tests), with its model
 * in *MODEL; NULL while the settings' provider is used (the "fixed-provider" property). */
AssayLlmProvider  *assay_conversation_get_fixed_provider (AssayConversation *self,
                                                          const char       **model);
gboolean           assay_conversation_get_auto_run     (AssayConversation  *self);
void               assay_conversation_set_auto_run     (AssayConversation  *self,
                                                        gboolean            auto_run);
/* The step limit a question has (the max-steps setting). */
guint              assay_conversation_get_max_steps    (AssayConversation  *self);
/* Why this sandbox backend was chosen, once one was. */
const char        *assay_conversation_get_backend_reason (AssayConversation *self);
const char        *assay_conversation_get_sandbox        (AssayConversation *self);
/* An opened session's queries asked again of their databases at the next question, instead of
 * loading their cached results ("requery"); offered while "can-requery". */
gboolean           assay_conversation_get_can_requery    (AssayConversation *self);
gboolean           assay_conversation_get_requery        (AssayConversation *self);
void               assay_conversation_set_requery        (AssayConversation *self,
                                                          gboolean           requery);
/* "Runs on OpenAI" for this session ("runs-on-openai"): the model's code runs in OpenAI's
 * hosted code interpreter, the datasets uploaded to OpenAI, nothing waiting for approval.
 * Chosen knowingly (the caller says so first), never carried to another session. Refused
 * (ERROR, in words) while busy or when assay_conversation_dup_hosted_refusal () says why; a
 * question asked once the settings no longer allow it fails saying so, and never runs here
 * instead. */
gboolean           assay_conversation_get_runs_on_openai (AssayConversation *self);
gboolean           assay_conversation_set_runs_on_openai (AssayConversation *self,
                                                          gboolean           runs_on_openai,
                                                          GError           **error);
/* Why this session cannot run its code on OpenAI now, or NULL: the settings' provider is not
 * OpenAI's Responses API, the provider is fixed (the demo), the session hides values (masked
 * columns, schema only) or queries databases. */
char              *assay_conversation_dup_hosted_refusal (AssayConversation *self);
/* The id of the current kernel (its sandbox processes carry ASSAY_SESSION=<id>), or NULL. */
const char        *assay_conversation_get_kernel_id    (AssayConversation  *self);

/* Makes a new session (saved in turn) unless there is one. */
gboolean           assay_conversation_ensure_session   (AssayConversation  *self,
                                                        GError            **error);
/* Writes the current session in turn with the store's jobs, and lists it once written (the
 * agent saves it itself during a question). */
void               assay_conversation_save             (AssayConversation  *self);
/* SESSION (with its ARTIFACTS, listed in a worker) becomes the current one, or none; the
 * kernel of the one before is closed off the main thread. A recorded provider goes with the
 * session it was set for. Not while busy. */
void               assay_conversation_set_session      (AssayConversation  *self,
                                                        AssaySession       *session,
                                                        AssayArtifactList  *artifacts);
/* QUESTION goes to the agent (a session is made first if there is none): ::asked, then the
 * key, the backend and the agent, then ::finished. FALSE while busy or for an empty question;
 * ERROR when no session could be made. */
gboolean           assay_conversation_ask              (AssayConversation  *self,
                                                        const char         *question,
                                                        GError            **error);
/* A session run again on new data: its summary (updated number by number) goes to the model
 * once, after the new outputs, with no tool; its rewrite is kept in the session beside the
 * summary (which stays the answer), then ::rewritten, or ::finished with the error. The key,
 * the backend and the masker as for a question; no ::asked. FALSE while busy, or when the
 * session is no run again or has no summary. */
gboolean           assay_conversation_rewrite          (AssayConversation  *self);
/* With no model chosen, a question waits (busy) after ::needs-model; once the settings name
 * one, this makes the provider again and the waiting question goes on (assay_conversation_stop ()
 * drops it). */
void               assay_conversation_model_chosen     (AssayConversation  *self);
gboolean           assay_conversation_get_awaiting_model (AssayConversation *self);
/* A question on an opened session whose approved code was changed since (its seal no longer
 * matches, assay-approval.h) waits, busy, after ::unsealed-cells (a GPtrArray of the
 * session's AssaySessionCell): APPROVE seals them as the analyst's and the question goes on;
 * otherwise it ends with the reason, and nothing runs. */
void               assay_conversation_approve_unsealed (AssayConversation  *self,
                                                        gboolean            approve);
gboolean           assay_conversation_get_awaiting_approval (AssayConversation *self);
/* Why the last question stopped at the model server, or NULL ("server-problem"). */
const char        *assay_conversation_get_server_problem (AssayConversation *self);
/* After a question stopped at the model server: the question goes on from where it stopped
 * (nothing is added to the conversation; no ::asked), with the provider made again from the
 * settings and the keyring (another server, model or key may have been set meanwhile).
 * FALSE while busy or when the last question did not stop at the server. */
gboolean           assay_conversation_try_again        (AssayConversation  *self);
/* The cell waiting for approval is answered "stop"; otherwise the question is cancelled. */
void               assay_conversation_stop             (AssayConversation  *self);
/* RESPONSE (AssayApprovalResponse) to CELL_ID, with TEXT (the edited code or the reason). */
void               assay_conversation_respond          (AssayConversation  *self,
                                                        const char         *cell_id,
                                                        int                 response,
                                                        const char         *text);
/* PROVIDER (and MODEL) for the next questions instead of the settings' (NULL: the settings'
 * again); RECORDED: a recorded demo. Not while busy. */
void               assay_conversation_set_provider     (AssayConversation  *self,
                                                        AssayLlmProvider   *provider,
                                                        const char         *model,
                                                        gboolean            recorded);
/* The provider made from the settings is made again for the next question (a key was
 * stored); a provider set by the caller stays. */
void               assay_conversation_forget_provider  (AssayConversation  *self);
/* COPY, a file already in the session's data/, is recorded (through the agent when there is
 * one, so the model is told), then profiled in a worker for the model's prompt. */
gboolean           assay_conversation_add_dataset      (AssayConversation  *self,
                                                        const char         *copy,
                                                        GError            **error);
/* Whether every dataset of the session has its description (for tests). */
gboolean           assay_conversation_get_datasets_described (AssayConversation *self);
/* Starts a sandbox (choosing the backend first if need be) so that the first cell of the
 * next session does not wait for one; the pool is refilled each time its sandbox is taken,
 * and emptied when the sandbox settings change. The conversation calls it when a session
 * gets its first dataset and when a model is configured. */
void               assay_conversation_prewarm          (AssayConversation  *self);
/* Whether a warm sandbox is ready, and its id (for tests and benchmarks). */
gboolean           assay_conversation_get_warm         (AssayConversation  *self);
const char        *assay_conversation_get_warm_id      (AssayConversation  *self);
/* The sandbox settings changed: the backend is chosen again, the warm sandbox closed. */
void               assay_conversation_forget_backend   (AssayConversation  *self);
/* The window closes: what runs stops. A question in flight is cancelled the way stop does,
 * so the agent records how it ended; the kernel is closed once it has (or after a grace
 * period), and APPLICATION (NULL: the default one) is held until then. Nothing here waits. */
void               assay_conversation_close            (AssayConversation  *self,
                                                        GApplication       *application);

/* The session's databases (AssayConnection), as `assay-cli ask --db` gives them to the agent:
 * the data page binds to this list. A session opened again connects its recorded databases
 * (in workers, each password from the keyring); a question waits until none is still
 * connecting, then tells the model of each one connected (its schema described under the
 * session's privacy mode) and offers run_sql. */
GListModel        *assay_conversation_get_connections  (AssayConversation  *self);
AssayConnection   *assay_conversation_find_connection  (AssayConversation  *self,
                                                        const char         *name);
/* SOURCE (its name, URL, password in memory and tables set; the connect dialog opened it)
 * joins the session's databases, or replaces the one of its name: recorded without password
 * (a session is made first if there is none; saved in turn), PASSWORD (NULL: none typed)
 * stored in the keyring under its URL. Not while busy. */
gboolean           assay_conversation_add_source       (AssayConversation  *self,
                                                        AssaySource        *source,
                                                        const char         *password,
                                                        GError            **error);
/* The database NAME leaves the session (its SQL cells and cached results stay). Not while
 * busy. */
gboolean           assay_conversation_remove_source    (AssayConversation  *self,
                                                        const char         *name,
                                                        GError            **error);

/* What leaves the machine, by the rules `assay-cli ask` follows. The session's privacy mode
 * (FULL without a session). Each question gets the masker of the session's masked columns
 * (made in a worker from the session's own copies; in force in MASKED and SCHEMA), the
 * datasets described as the mode wants, the prices and the budget (the session-budget
 * setting). */
AssayPrivacyMode   assay_conversation_get_privacy_mode (AssayConversation  *self);
/* A session is made first if there is none. Not while busy; SCHEMA is refused for a session
 * that has already sent values to the model (G_IO_ERROR_PERMISSION_DENIED, saying why). */
gboolean           assay_conversation_set_privacy_mode (AssayConversation  *self,
                                                        AssayPrivacyMode    mode,
                                                        GError            **error);
/* Whether SCHEMA may be chosen for the current session. */
gboolean           assay_conversation_get_can_use_schema_only (AssayConversation *self);
/* Marks COLUMN of the session's DATASET (as the sandbox names it) masked, or no longer; a
 * column masked in a session in FULL mode makes it MASKED. Not while busy. Saved in turn. */
gboolean           assay_conversation_set_column_masked (AssayConversation *self,
                                                         const char        *dataset,
                                                         const char        *column,
                                                         gboolean           masked,
                                                         GError           **error);
/* DATASET's masked columns, NULL-terminated (never NULL; g_strfreev). */
char             **assay_conversation_dup_masked_columns (AssayConversation *self,
                                                          const char        *dataset);
/* The name of the session's dataset whose copy is the file at PATH, or NULL. */
char              *assay_conversation_dup_dataset_name (AssayConversation  *self,
                                                        const char         *path);
/* The masker the last question was given, or NULL (for tests). */
AssayMasker       *assay_conversation_get_masker       (AssayConversation  *self);

G_END_DECLS
