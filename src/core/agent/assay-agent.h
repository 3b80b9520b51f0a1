/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-types.h"
#include "assay-kernel-session.h"
#include "assay-llm-provider.h"
#include "assay-session.h"
#include "assay-masker.h"
#include "assay-prices.h"
#include "assay-source.h"
#include "assay-openai-container.h"

G_BEGIN_DECLS

/* Whether each proposed cell waits for the analyst. */
typedef enum
{
  ASSAY_APPROVAL_POLICY_ASK,    /* the default */
  ASSAY_APPROVAL_POLICY_AUTO,
} AssayApprovalPolicy;

/* The analyst's answer to ::approval-needed. */
typedef enum
{
  ASSAY_APPROVAL_RUN,           /* run the code as proposed */
  ASSAY_APPROVAL_EDIT,          /* run TEXT instead; the model is told and sees it */
  ASSAY_APPROVAL_REJECT,        /* do not run; TEXT (the reason) goes back to the model */
  ASSAY_APPROVAL_STOP,          /* do not run, and end the question here */
} AssayApprovalResponse;

/* How a question ended. */
typedef enum
{
  ASSAY_AGENT_ANSWERED,         /* the model gave a final answer */
  ASSAY_AGENT_STEP_LIMIT,       /* the step limit came first; results so far are kept */
  ASSAY_AGENT_MODEL_ERROR,      /* the provider failed (after its own retries) */
  ASSAY_AGENT_SANDBOX_ERROR,    /* the sandbox could not run a cell */
  ASSAY_AGENT_CANCELLED,        /* the cancellable was cancelled */
  ASSAY_AGENT_STOPPED,          /* the analyst answered ASSAY_APPROVAL_STOP */
  ASSAY_AGENT_BUDGET,           /* the next request would have gone over the session's budget */
} AssayAgentOutcome;

/* "answered", "step-limit", "model-error", "sandbox-error", "cancelled", "stopped", "budget". */
const char *assay_agent_outcome_to_string (AssayAgentOutcome outcome);

#define ASSAY_AGENT_TOOL_NAME        "execute_python"
/* The tool the model queries a connected database with (see assay_agent_add_source). */
#define ASSAY_AGENT_SQL_TOOL_NAME    "run_sql"
#define ASSAY_AGENT_DEFAULT_MAX_STEPS 8

#define ASSAY_TYPE_AGENT (assay_agent_get_type ())

G_DECLARE_FINAL_TYPE (AssayAgent, assay_agent, ASSAY, AGENT, GObject)

/* The question → code → approval → run → fix loop. It drives PROVIDER, runs cells in KERNEL
 * and records everything in SESSION (saved after every event that matters).
 *
 * Signals, all emitted on the thread-default main context of the assay_agent_ask_async()
 * caller:
 *
 *   ::step (guint n, guint max)                       a model turn begins
 *   ::text-delta (const char *text)                   a piece of the model's text
 *   ::code-delta (guint index, const char *call_id, const char *text)
 *       a piece of tool call INDEX's code, decoded, while the model still writes it
 *   ::retrying (guint attempt, guint delay_ms, const char *reason)
 *       the provider retries the turn: drop the text and code shown for it
 *   ::approval-needed (const char *cell_id, const char *code, const char *description)
 *       policy ask: the loop waits for assay_agent_respond(); for run_sql CODE is the SQL (the
 *       session's cell says which: its kind, the database and the DataFrame's name)
 *   ::cell-started (const char *cell_id, const char *code)   the code that really runs
 *   ::output (const char *cell_id, JsonObject *output)       an nbformat output, live
 *   ::artifact-added (const char *cell_id, const char *name, const char *path)
 *   ::cell-finished (const char *cell_id, AssayCellResult *result)
 *   ::restoring (guint done, guint total)   replaying a resumed session's successful cells
 *   ::checking (const char *numbers)        the answer went back to the model: NUMBERS (as it
 *       wrote them, ", "-separated) appear in no output; the next ::step is its second try
 *   ::error (const char *message)           something went wrong, in words for the analyst
 *   ::done (int outcome, const char *text)  the answer, or why it stopped; then the task ends
 */
AssayAgent        *assay_agent_new                  (AssayLlmProvider     *provider,
                                                     AssayKernelSession   *kernel,
                                                     AssaySession         *session);
/* "Runs on OpenAI": no kernel here; the model runs its code with the Responses API's
 * code_interpreter tool in CONTAINER (made before the first question, and again after one
 * expired, with the session's datasets uploaded), each call recorded as a cell run on OpenAI
 * and never approved (ASSAY_DECISION_HOSTED), its logs and images as outputs and artifacts,
 * the files the answer cites fetched into the artifacts (size-capped, names made safe).
 * PROVIDER must speak the Responses API. Databases are not offered; the container is not
 * removed here (assay_openai_container_delete when the session ends). The container is made,
 * the datasets uploaded and the files fetched in workers, never on the caller's thread. */
AssayAgent        *assay_agent_new_hosted           (AssayLlmProvider     *provider,
                                                     AssayOpenaiContainer *container,
                                                     AssaySession         *session);
/* The container of a hosted agent, or NULL. */
AssayOpenaiContainer *assay_agent_get_container     (AssayAgent           *self);
AssaySession      *assay_agent_get_session          (AssayAgent           *self);
/* Another server or key for the next question (not while one runs): the session and the
 * kernel stay as they are. */
void               assay_agent_set_provider         (AssayAgent           *self,
                                                     AssayLlmProvider     *provider);
void               assay_agent_set_model            (AssayAgent           *self,
                                                     const char           *model);
const char        *assay_agent_get_model            (AssayAgent           *self);
void               assay_agent_set_max_steps        (AssayAgent           *self,
                                                     guint                 max_steps);
guint              assay_agent_get_max_steps        (AssayAgent           *self);
void               assay_agent_set_approval_policy  (AssayAgent           *self,
                                                     AssayApprovalPolicy   policy);
AssayApprovalPolicy assay_agent_get_approval_policy (AssayAgent           *self);
/* A reply with a ```python block and no tool call runs that block (on by default). */
void               assay_agent_set_fenced_code_fallback (AssayAgent       *self,
                                                         gboolean          enabled);
gboolean           assay_agent_get_fenced_code_fallback (AssayAgent       *self);
/* An answer naming numbers that no cell of its question printed goes back to the model once,
 * with those numbers, while steps remain (on by default; ::checking says so). */
void               assay_agent_set_check_numbers    (AssayAgent           *self,
                                                     gboolean              enabled);
gboolean           assay_agent_get_check_numbers    (AssayAgent           *self);
/* Off by default: the session record is written on the caller's thread after every event
 * that matters. On, it is written by a worker (in order; a question finishes once all of
 * its saves have landed, and the default GApplication is held until they do): for a GUI,
 * whose main thread must not wait on fsync. */
void               assay_agent_set_background_saves (AssayAgent           *self,
                                                     gboolean              background);
/* Whether saves are still being written. */
gboolean           assay_agent_get_saving           (AssayAgent           *self);
/* The columns whose values never reach the model (the session's privacy mode says whether
 * they are masked): every text of a request is rewritten by MASKER, and the placeholders in
 * the model's replies are mapped back before anyone sees them (NULL: none). In schema-only
 * mode the model gets no output at all, only each cell's status, error type and the shapes
 * of the DataFrames it made; the callers give it the datasets' schema-only descriptions. */
void               assay_agent_set_masker           (AssayAgent           *self,
                                                     AssayMasker          *masker);
AssayMasker       *assay_agent_get_masker           (AssayAgent           *self);
/* What each request costs: PRICES (NULL: unknown, shown as such), with a server on this
 * computer costing nothing. */
void               assay_agent_set_prices           (AssayAgent           *self,
                                                     AssayPriceTable      *prices);
/* A budget for the whole session in US dollars (0: none): a question stops with
 * ASSAY_AGENT_BUDGET before a request that would take the session's cost over it, or
 * whose cost cannot be known. */
void               assay_agent_set_budget           (AssayAgent           *self,
                                                     double                usd);
double             assay_agent_get_budget           (AssayAgent           *self);
/* Characters of a cell's text output the model sees (head and tail kept). */
void               assay_agent_set_output_budget    (AssayAgent           *self,
                                                     gsize                 chars);
/* The model's context in tokens; the oldest tool outputs are trimmed to stay within it. */
void               assay_agent_set_context_budget   (AssayAgent           *self,
                                                     gsize                 tokens);
/* For a resumed session: its successful queries are asked again of their databases (those
 * added with assay_agent_add_source) when the kernel is rebuilt, instead of loading the cached
 * results; ::requeried says each, and the model is told. A query that cannot be asked again
 * loads its cached result. The cached results stay what they were. */
void               assay_agent_set_requery          (AssayAgent           *self,
                                                     gboolean              requery);
gboolean           assay_agent_get_requery          (AssayAgent           *self);
/* Makes PATH available at /data/<name> (copied into the session) and describes it in the
 * system prompt. DESCRIPTION (dialect, schema summary) may be NULL: the path alone. */
gboolean           assay_agent_add_dataset          (AssayAgent           *self,
                                                     const char           *path,
                                                     const char           *description,
                                                     GError              **error);
char              *assay_agent_build_system_prompt  (AssayAgent           *self);
/* The conversation so far (AssayLlmMessage*), as the next request will carry it. */
GPtrArray         *assay_agent_get_messages         (AssayAgent           *self);

void               assay_agent_ask_async            (AssayAgent           *self,
                                                     const char           *question,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
/* After a question ended without an answer (the model server failed: MODEL_ERROR), asks the
 * model again from where the session's conversation stands, adding nothing to it: the "Try
 * Again" of a question. Finish with assay_agent_ask_finish (). */
void               assay_agent_continue_async       (AssayAgent           *self,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
/* The outcome; the answer (or why it stopped) in TEXT. MODEL_ERROR and SANDBOX_ERROR also
 * set ERROR: for MODEL_ERROR in ASSAY_LLM_ERROR with the provider's code (AUTH, NOT_FOUND,
 * NETWORK, SERVER, ...; PROTOCOL when nothing more is known). */
AssayAgentOutcome  assay_agent_ask_finish           (AssayAgent           *self,
                                                     GAsyncResult         *result,
                                                     char                **text,
                                                     GError              **error);
/* After FAILED failed when the session ran again on new data (the session holds the
 * conversation up to it and its tool result; the kernel holds the state of the cells before
 * it): asks the model to fix only that cell, with the same approval, masking, record and
 * budget as a question. The request is marked is_repair in the record; no question is added
 * and the session's answer is left as it is. WHAT_CHANGED (may be NULL) says how the data
 * differs. Finish with assay_agent_ask_finish (): ANSWERED once a cell ran and the model said
 * what it changed; the cells it ran are the session's last. */
void               assay_agent_repair_async         (AssayAgent           *self,
                                                     const AssaySessionCell *failed,
                                                     const char           *what_changed,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
/* One request, no tool offered and nothing added to the conversation: the session's
 * messages and INSTRUCTION, masked, within the budget, recorded with the session. Gives the
 * model's text, unmasked (G_IO_ERROR_PERMISSION_DENIED in schema-only mode, which sends no
 * output to read). For `rerun --rewrite`. */
void               assay_agent_rewrite_async        (AssayAgent           *self,
                                                     const char           *instruction,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
char              *assay_agent_rewrite_finish       (AssayAgent           *self,
                                                     GAsyncResult         *result,
                                                     GError              **error);
/* Answers ::approval-needed for CELL_ID. TEXT: the edited code, or the rejection reason. */
void               assay_agent_respond              (AssayAgent           *self,
                                                     const char           *cell_id,
                                                     AssayApprovalResponse response,
                                                     const char           *text);

/* Connects SOURCE (assay-source.h): the model gets the run_sql tool {sql, name, description,
 * database} and DESCRIPTION (the schema, assay_source_schema_describe) in the system prompt;
 * the session records the connection without its password. A run_sql call is checked (one
 * read-only statement) before the analyst is asked, approved like a cell, run by SOURCE in a
 * worker (Stop cancels it on the server), and its result written to the session's queries/
 * and loaded by the kernel as the DataFrame NAME; errors go back to the model as the tool
 * result. */
void                assay_agent_add_source   (AssayAgent  *self,
                                              AssaySource *source,
                                              const char  *description);
/* Disconnects the database NAME: the model is no longer told of it and run_sql no longer
 * reaches it (from the next request on); the session forgets it, its SQL cells stay. FALSE
 * when no database of that name is connected. */
gboolean            assay_agent_remove_source (AssayAgent  *self,
                                               const char  *name);
/* The connected database NAME, or NULL. */
AssaySource        *assay_agent_get_source   (AssayAgent  *self,
                                              const char  *name);

/* What the model is told about the dataset NAME (the datasets module's summary), when it
 * comes after the file was added (the window profiles files off the main thread). The next
 * step's system prompt has it; the session records it. */
void                assay_agent_set_dataset_description (AssayAgent  *self,
                                                         const char  *name,
                                                         const char  *description);

G_END_DECLS
