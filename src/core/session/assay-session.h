/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-types.h"
#include "assay-llm-types.h"
#include "assay-session-cell.h"
#include "assay-provenance.h"
#include "assay-masker.h"

G_BEGIN_DECLS

/* 2: the answers' provenance. Records of format 1 still open. */
#define ASSAY_SESSION_FORMAT_VERSION 2
#define ASSAY_SESSION_RECORD "session.json"

#define ASSAY_TYPE_SESSION (assay_session_get_type ())

G_DECLARE_FINAL_TYPE (AssaySession, assay_session, ASSAY, SESSION, GObject)

/* A session is a folder:
 *
 *   session.json   the record (conversation, cells, datasets, databases, provider and model;
 *                  never a key or a password)
 *   data/          copies (hard links when possible) of the datasets, so it is self-contained
 *   artifacts/     the files the cells produced
 *   queries/       the results of its SQL cells, as the kernel loaded them (when there are any)
 *
 * The record is replaced atomically (temporary file, fsync, rename) by every save. It holds
 * the steps that finished and, after them, the step in progress; loading restores the
 * finished steps and keeps the unfinished tail apart (assay_session_get_interrupted_cells).
 *
 * Threads: a session belongs to one thread at a time and is not locked. Building one (new,
 * create, load) touches no main context, no signal and no source, so a worker may build it
 * and hand it to another thread (load_async does), which owns it from then on. A session may
 * be finalized on any thread. Saves, sync or async, land in the order they were asked for:
 * a later save is never overwritten by an earlier one still being written. */

typedef struct
{
  char *name;          /* the file name, as the sandbox shows it under /data */
  char *path;          /* relative to the session folder ("data/sales.csv") */
  char *description;   /* what the datasets module found (dialect, schema); may be NULL */
  /* What the file was when it was added (sha256 NULL: a record from before this was kept). */
  char   *sha256;      /* lower-case hex */
  gint64  bytes;
  gint64  rows;        /* of a delimited text file, without its header; -1: not counted */
  gint64  mtime_us;    /* of the copy in data/, to notice a change without hashing */
  /* Set by load: the file in data/ is missing or is not what was added. */
  gboolean changed;
} AssaySessionDataset;

/* A database the session queries (run_sql). Never a password: the URL is kept without one. */
typedef struct
{
  char  *name;         /* what run_sql's "database" names */
  char  *kind;         /* "postgresql", "mysql", "sqlite" */
  char  *url;          /* the connection URL without its password */
  char **tables;       /* the tables and views the analyst picked; NULL: all */
  char  *description;  /* what the model was told of its schema; may be NULL */
  /* The analyst let a login that can do more than read connect: its powers as the server
   * named them, and the analyst's seal over name, URL and powers (assay-approval.h); NULL:
   * not accepted. */
  char  *accepted_risk;
  char  *risk_seal;
} AssaySessionSource;

/* Where sessions live by default: $XDG_DATA_HOME/assay/sessions. */
char          *assay_session_default_parent     (void);

/* Creates DIR (it must not hold a session yet) with its data/ and artifacts/ folders. */
AssaySession  *assay_session_new                (const char          *dir,
                                                 GError             **error);
/* A new session in a fresh folder named after a new id under PARENT (NULL: the default). */
AssaySession  *assay_session_create             (const char          *parent,
                                                 GError             **error);
/* Reads and parses DIR's record in the calling thread; the CLI and tests use it. */
AssaySession  *assay_session_load               (const char          *dir,
                                                 GError             **error);
/* The same in a worker thread; CALLBACK runs on the caller's thread-default main context.
 * Errors: G_IO_ERROR_NOT_FOUND (no folder or record), G_IO_ERROR_INVALID_DATA (not JSON, or
 * not a session record), G_IO_ERROR_NOT_SUPPORTED (written by a newer Assay),
 * G_IO_ERROR_CANCELLED once CANCELLABLE is cancelled, even if the record was read by then. */
void           assay_session_load_async         (const char          *dir,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
AssaySession  *assay_session_load_finish        (GAsyncResult        *result,
                                                 GError             **error);
gboolean       assay_session_save               (AssaySession        *self,
                                                 GError             **error);
/* Takes the record's text now, on the owner's thread, and writes it (temporary file, fsync,
 * rename) in a worker that sees nothing else of the session. Superseded by any later save:
 * if that one lands first, this one is dropped and still reports success. */
void           assay_session_save_async         (AssaySession        *self,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
gboolean       assay_session_save_finish        (AssaySession        *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);
/* The sessions under PARENT (NULL: the default), most recently updated first. Folders
 * without a readable record are skipped. */
GPtrArray     *assay_session_list               (const char          *parent,
                                                 GError             **error);
gboolean       assay_session_rename             (AssaySession        *self,
                                                 const char          *title,
                                                 GError             **error);
/* Removes DIR and what it holds. Symbolic links are removed, never followed; DIR must be a
 * real folder holding a session record. */
gboolean       assay_session_delete             (const char          *dir,
                                                 GError             **error);
/* The record as JSON, exactly what save writes. */
JsonNode      *assay_session_to_json            (AssaySession        *self);

const char    *assay_session_get_dir            (AssaySession        *self);
const char    *assay_session_get_id             (AssaySession        *self);
const char    *assay_session_get_title          (AssaySession        *self);
void           assay_session_set_title          (AssaySession        *self,
                                                 const char          *title);
const char    *assay_session_get_provider       (AssaySession        *self);
const char    *assay_session_get_model          (AssaySession        *self);
void           assay_session_set_provider       (AssaySession        *self,
                                                 const char          *provider,
                                                 const char          *model);
void           assay_session_set_sandbox        (AssaySession        *self,
                                                 const char          *backend,
                                                 const char          *where);
const char    *assay_session_get_sandbox        (AssaySession        *self);
const char    *assay_session_get_sandbox_where  (AssaySession        *self);
void           assay_session_set_sandbox_resume_id (AssaySession     *self,
                                                    const char       *resume_id);
const char    *assay_session_get_sandbox_resume_id (AssaySession     *self);
gint64         assay_session_get_created        (AssaySession        *self);
gint64         assay_session_get_updated        (AssaySession        *self);
/* "new", "running", "answered", "step-limit", "model-error", "sandbox-error", "cancelled",
 * "stopped". */
const char    *assay_session_get_status         (AssaySession        *self);
const char    *assay_session_get_answer         (AssaySession        *self);
void           assay_session_set_outcome        (AssaySession        *self,
                                                 const char          *status,
                                                 const char          *answer);
char          *assay_session_get_artifact_dir   (AssaySession        *self);
char          *assay_session_get_data_dir       (AssaySession        *self);
/* Resolves a path stored relative to the session folder; NULL when it would lead out of it
 * (absolute, "..", or through a symbolic link below the folder). */
char          *assay_session_resolve            (AssaySession        *self,
                                                 const char          *relative);

/* The databases the session queries, in the order they were added (AssaySessionSource*). */
GPtrArray     *assay_session_get_sources        (AssaySession        *self);
/* Records a database NAME (again: replaces what was recorded under NAME). URL loses its
 * password here, whatever the caller passed. */
const AssaySessionSource *assay_session_add_source (AssaySession       *self,
                                                    const char         *name,
                                                    const char         *kind,
                                                    const char         *url,
                                                    const char * const *tables,
                                                    const char         *description);
/* Records that the analyst accepted the risk of database NAME's login, which can do POWERS
 * (assay_source_dup_powers ()), sealed with their key; NULL POWERS forgets it. FALSE, with
 * ERROR, when NAME is not recorded or the key cannot be read. */
gboolean       assay_session_set_source_risk    (AssaySession       *self,
                                                 const char         *name,
                                                 const char         *powers,
                                                 GError            **error);
/* Records the live SOURCE (assay_session_add_source ()) and, once it has connected with
 * powers beyond reading that the analyst accepted, that risk (sealed). */
const AssaySessionSource *assay_session_record_source (AssaySession   *self,
                                                       AssaySource    *source,
                                                       const char     *description);
/* Lets SOURCE connect with the powers RECORDED's analyst accepted, when the seal is theirs. */
void           assay_session_source_apply_risk  (const AssaySessionSource *recorded,
                                                 AssaySource              *source);
/* The same for the database the session recorded under SOURCE's name and URL, if any. */
void           assay_session_apply_recorded_risk (AssaySession            *self,
                                                  AssaySource             *source);
/* Whether SOURCE's risk was accepted by this user (its seal is theirs, over what is
 * recorded now): a session from elsewhere, or edited, accepts nothing. */
gboolean       assay_session_source_risk_accepted (const AssaySessionSource *source);
/* Forgets the database NAME (its SQL cells and their cached results stay); FALSE when the
 * session has none of that name. */
gboolean       assay_session_remove_source      (AssaySession       *self,
                                                 const char         *name);
/* queries/ in the folder, made when missing: the SQL cells' cached results. */
char          *assay_session_get_queries_dir    (AssaySession        *self,
                                                 GError             **error);

/* Copies FILE into data/ (its own copy, never a link to the original) in a worker and
 * returns the copy's path; assay_session_add_dataset () on that path records it without
 * copying again. For the window, where a large file must not block. */
void           assay_session_copy_in_async      (AssaySession        *self,
                                                 const char          *path,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
char          *assay_session_copy_in_finish     (AssaySession        *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);
/* Copies FILE into data/ (its own copy, never a link to the original) and records it. */
const AssaySessionDataset *assay_session_add_dataset (AssaySession   *self,
                                                      const char     *path,
                                                      const char     *description,
                                                      GError        **error);
/* The same, named NAME in the session (/data/<NAME>) whatever FILE is called. */
const AssaySessionDataset *assay_session_add_dataset_as (AssaySession   *self,
                                                         const char     *path,
                                                         const char     *name,
                                                         const char     *description,
                                                         GError        **error);
GPtrArray     *assay_session_get_datasets       (AssaySession        *self);
/* Sets what the datasets module found about the dataset NAME; FALSE when there is none. */
gboolean       assay_session_set_dataset_description (AssaySession   *self,
                                                      const char     *name,
                                                      const char     *description);

/* The conversation (AssayLlmMessage*, owned by the session), finished steps and the
 * step in progress. */
GPtrArray     *assay_session_get_messages       (AssaySession        *self);
void           assay_session_append_message     (AssaySession        *self,
                                                 AssayLlmMessage     *message);
/* Cells (AssaySessionCell*, owned by the session). */
guint          assay_session_get_n_cells        (AssaySession        *self);
AssaySessionCell *assay_session_get_cell        (AssaySession        *self,
                                                 guint                index);
AssaySessionCell *assay_session_find_cell       (AssaySession        *self,
                                                 const char          *id);
/* A cell of the session ran in OpenAI's hosted code interpreter (decision "hosted"). */
gboolean       assay_session_ran_hosted         (AssaySession        *self);
/* The cells that ran (and were approved here once) whose code is not sealed with this user's
 * key as it is now (assay-approval.h): a resume or a run again refuses them until they are
 * approved again. Cells of the hosted interpreter are left out (never approved here). The
 * array holds the session's own cells. */
GPtrArray     *assay_session_dup_unsealed_cells (AssaySession        *self);
/* Seals CELLS (from assay_session_dup_unsealed_cells ()) as approved now, and saves. */
gboolean       assay_session_approve_cells      (AssaySession        *self,
                                                 GPtrArray           *cells,
                                                 GError             **error);
/* Takes CELL. */
AssaySessionCell *assay_session_add_cell        (AssaySession        *self,
                                                 AssaySessionCell    *cell);
char          *assay_session_next_cell_id       (AssaySession        *self);
/* Ids from next_cell_id are numbered above FLOOR from now on ("c" FLOOR+1 …): a run again
 * keeps its origin's ids free for the cells still to come. Not kept in the record. */
void           assay_session_set_cell_id_floor  (AssaySession        *self,
                                                 guint                floor);
/* Stores RESULT in CELL: status, outputs, timings; moves its artifacts under artifacts/
 * when they are elsewhere and records them relative to the folder. */
void           assay_session_record_result      (AssaySession        *self,
                                                 AssaySessionCell    *cell,
                                                 AssayCellResult     *result);

/* The question just appended is kept by a crash, though no step finished yet. */
void           assay_session_finish_question    (AssaySession        *self);
/* Steps: a step is finished when everything the model asked for in it was answered. */
guint          assay_session_get_n_steps        (AssaySession        *self);
void           assay_session_finish_step        (AssaySession        *self);
/* Where a finished step's time went, for the benchmark and the analyst's curiosity: the
 * step's wall time, and the parts of it that were the model's (streaming its turn), the
 * sandbox's (running cells, of which code_us is the user code itself) and the analyst's
 * (deciding on an approval). What is left is what Assay itself added. */
typedef struct
{
  guint  step;
  gint64 wall_us;
  gint64 model_us;
  gint64 cell_us;
  gint64 code_us;
  gint64 approval_us;
} AssayStepTiming;

void           assay_session_add_step_timing    (AssaySession          *self,
                                                 const AssayStepTiming *timing);
/* The timings of the finished steps, in order (AssayStepTiming). */
GArray        *assay_session_get_step_timings   (AssaySession          *self);
/* Cells of a step that never finished (the process was killed), restored by load. */
GPtrArray     *assay_session_get_interrupted_cells (AssaySession     *self);

/* Where the numbers of an answer (the assistant message at MESSAGE, one without tool calls)
 * came from, or NULL when it was not traced. */
const AssayProvenance *assay_session_get_provenance (AssaySession   *self,
                                                     guint           message);
/* Traces the answer at MESSAGE against the outputs of its question's cells and keeps the
 * result; NULL when MESSAGE is not an answer. */
const AssayProvenance *assay_session_trace_answer   (AssaySession   *self,
                                                     guint           message);
/* Keeps PROVENANCE (taken) as the answer's at MESSAGE: a run again's, whose numbers were
 * followed to their new lines rather than looked up by value. */
void                   assay_session_set_provenance (AssaySession    *self,
                                                     guint            message,
                                                     AssayProvenance *provenance);

/* What was sent to a model server, one request each: kept in requests/ compressed, exactly
 * as sent (a body never holds a key: keys go in headers, which are not kept), within
 * ASSAY_SESSION_REQUESTS_MAX_BYTES of compressed bodies per session; beyond that only the
 * figures are kept (file NULL). */
#define ASSAY_SESSION_REQUESTS_MAX_BYTES (64 * 1024 * 1024)

typedef struct
{
  guint   number;               /* from 1 */
  guint   step;                 /* the step it asked for */
  char   *host;
  char   *model;
  gint64  sent_at;              /* µs since the epoch */
  gint64  bytes_out;
  gint64  bytes_in;             /* -1: not known */
  gint64  input_tokens;         /* as the server reported them (all input, cached too); -1: it did not */
  gint64  cached_input_tokens;
  gint64  cache_write_tokens;
  gint64  output_tokens;
  gint64  reasoning_tokens;
  double  cost;                 /* US dollars; 0 on a local server; -1: no price known */
  char   *mode;                 /* what the model was let see: "full", "masked", "schema" */
  char   *sha256;               /* of the body as sent */
  char   *file;                 /* "requests/0001.json.gz", or NULL */
} AssaySessionRequest;

/* Keeps RESPONSE's request (its body, host, sizes and usage) for STEP, with its COST (US
 * dollars, -1 unknown) and the session's privacy mode. */
gboolean       assay_session_record_request     (AssaySession            *self,
                                                 guint                    step,
                                                 const char              *model,
                                                 const AssayLlmResponse  *response,
                                                 double                   cost,
                                                 GError                 **error);
/* What the requests so far cost (US dollars, those of unknown price left out) and their
 * tokens; UNPRICED: how many had no known price. */
double         assay_session_get_cost           (AssaySession            *self,
                                                 gint64                  *input_tokens,
                                                 gint64                  *output_tokens,
                                                 guint                   *unpriced);

/* What the model may see of this session's data (see AssayPrivacyMode): the mode and the
 * columns whose values never reach it. Saved with the session. */
AssayPrivacyMode assay_session_get_privacy_mode (AssaySession            *self);
void           assay_session_set_privacy_mode   (AssaySession            *self,
                                                 AssayPrivacyMode         mode);
typedef struct
{
  char *dataset;                /* as the sandbox names it */
  char *column;
} AssaySessionMask;
/* AssaySessionMask*, in the order they were masked. */
GPtrArray     *assay_session_get_masked_columns (AssaySession            *self);
void           assay_session_set_column_masked  (AssaySession            *self,
                                                 const char              *dataset,
                                                 const char              *column,
                                                 gboolean                 masked);
gboolean       assay_session_is_column_masked   (AssaySession            *self,
                                                 const char              *dataset,
                                                 const char              *column);
/* AssaySessionRequest*, in the order they were sent. */
GPtrArray     *assay_session_get_requests       (AssaySession            *self);
/* The body as it was sent, checked against its SHA-256. */
GBytes        *assay_session_read_request_body  (AssaySession            *self,
                                                 const AssaySessionRequest *request,
                                                 GError                 **error);

/* Runs again: the folder of the session this one ran again on new data (NULL: none) and
 * its title then, and the folders of the sessions that ran this one again. */
const char    *assay_session_get_rerun_of       (AssaySession        *self);
const char    *assay_session_get_rerun_of_title (AssaySession        *self);
void           assay_session_set_rerun_of       (AssaySession        *self,
                                                 const char          *dir,
                                                 const char          *title);
GPtrArray     *assay_session_get_reruns         (AssaySession        *self);
void           assay_session_add_rerun          (AssaySession        *self,
                                                 const char          *dir);

/* What changed, in a session that ran another again: each traced number of each answer,
 * before and after. */
typedef struct
{
  guint      question;      /* from 1 */
  char      *before_text;   /* as the old answer wrote it */
  char      *after_text;    /* as the new answer writes it; the old text when stale */
  double     before;
  double     after;
  gboolean   stale;         /* not found again: its label gone, on several lines, or its table changed */
  char      *cell_id;       /* the cell that printed it; may be NULL */
  char      *label;         /* what it is: its line's words, a table's row and column ("West:
                             * …", "North · revenue"); may be NULL (an older record) */
  char      *sentence;      /* the answer's sentence (or table row) it sits in; may be NULL */
} AssaySessionChange;

AssaySessionChange *assay_session_change_copy   (const AssaySessionChange *change);
void           assay_session_change_free        (AssaySessionChange  *change);
/* AFTER − BEFORE relative to |BEFORE|, in percent; FALSE when it has none (stale, or BEFORE
 * is 0). */
gboolean       assay_session_change_percent     (const AssaySessionChange *change,
                                                 double              *percent);
/* AssaySessionChange*, in the order of the answers; empty unless this session ran another
 * again. */
GPtrArray     *assay_session_get_changes        (AssaySession        *self);
/* Takes a copy of CHANGES (AssaySessionChange*). */
void           assay_session_set_changes        (AssaySession        *self,
                                                 GPtrArray           *changes);
/* What a run again said of its data, one sentence each ("sales.csv was converted from
 * Windows-1251 …"); empty when nothing needed saying. */
GPtrArray     *assay_session_get_rerun_notes    (AssaySession        *self);
/* `rerun --rewrite`: the summary as the model rewrote it from the new outputs, beside the
 * answer updated number by number (which stays the answer); NULL: none. */
const char    *assay_session_get_rewrite        (AssaySession        *self);
void           assay_session_set_rewrite        (AssaySession        *self,
                                                 const char          *text);
void           assay_session_add_rerun_note     (AssaySession        *self,
                                                 const char          *note);

G_END_DECLS
