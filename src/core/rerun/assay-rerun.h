/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-agent.h"
#include "assay-csv-dialect.h"
#include "assay-kernel-session.h"
#include "assay-session.h"

G_BEGIN_DECLS

/*
 * Runs an approved analysis again on new data, without a model.
 *
 * Each of the session's datasets is paired with a new file and compared with it through the
 * datasets module: columns by name and type, dialect, rows. A column the new file lacks, or
 * whose type changed, stops the run (ASSAY_RERUN_ERROR_DATA) with the differences said; a
 * file in another dialect (encoding, delimiter, decimal separator) is written in the old
 * one first, and the new session's notes say so. Then
 * the session's successful cells run in order in a fresh sandbox, and a new session records
 * them: the same questions and replies, the new outputs and artifacts, and each answer with
 * its traced numbers followed by their labels into the new outputs of the same cell (see
 * assay-anchor.h) and written the way the answer wrote them; the new answer's provenance
 * traces each to the line it was read in, and vouches for nothing else. A number whose label
 * cannot be followed keeps its old text and is marked stale; a change each, named by its
 * label and the sentence it sits in; a note when the rows read came in another order. A cell that fails stops the run there
 * (ASSAY_RERUN_ERROR_CELL); what ran is kept.
 */

#define ASSAY_RERUN_ERROR (assay_rerun_error_quark ())
GQuark assay_rerun_error_quark (void);

typedef enum
{
  ASSAY_RERUN_ERROR_DATA,   /* a new file does not match its dataset */
  ASSAY_RERUN_ERROR_CELL,   /* a cell failed on the new data */
  ASSAY_RERUN_ERROR_UNAPPROVED, /* a cell's code is not what was approved (assay-approval.h): nothing ran */
} AssayRerunError;

/* How a new file compares with the dataset it stands in for. */
typedef struct
{
  char      *name;          /* the dataset's name, /data/<name> */
  char      *new_path;
  gint64     old_rows;
  gint64     new_rows;
  GPtrArray *missing;       /* char*: columns the new file lacks */
  GPtrArray *retyped;       /* char*: "amount: float → text" */
  GPtrArray *added;         /* char*: columns only the new file has */
  GPtrArray *notes;         /* char*: other differences (encoding, delimiter, decimal) */
  /* The dialect differs: the new file is written in the old one before the run (and
   * NOTES says so); TO is the old dialect, NUMERIC marks the new file's number columns. */
  gboolean   convert;
  gboolean   incompatible;  /* one is a workbook and the other is not: it cannot run */
  AssayCsvDialect *to;
  AssayCsvDialect *from;    /* the new file's */
  gboolean  *numeric;
  guint      n_numeric;
} AssayRerunDataset;

/* One traced number of an answer, before and after (kept in the new session). */
typedef AssaySessionChange AssayRerunChange;

typedef struct
{
  AssaySession *session;    /* the new session; NULL when the data did not match */
  GPtrArray    *datasets;   /* AssayRerunDataset* */
  GPtrArray    *changes;    /* AssayRerunChange*, every traced number of every answer */
  char         *failed_cell;   /* the cell that failed, or NULL */
  GPtrArray    *repaired;      /* char*: the cells the model wrote in place of failed ones */
  guint         n_cells;       /* cells that ran */
} AssayRerunResult;

void              assay_rerun_result_free (AssayRerunResult   *result);

/* A change as the tables show it: the difference written the way the answer wrote the number,
 * signed ("+37,014", "−1.2%"), and the relative change ("+7.8 %"); "—" when there is none
 * (stale, or nothing to compare with). */
/* What the model is asked for a rewrite of a run's summary (ANSWER, its numbers updated one by
 * one): sent after the new session's conversation, once, with no tool. */
char             *assay_rerun_rewrite_instruction (const char          *answer);

char             *assay_rerun_format_delta   (const AssaySessionChange *change);
char             *assay_rerun_format_percent (const AssaySessionChange *change);
/* Compares NEW_PATH with the dataset NAME's file OLD_PATH. */
AssayRerunDataset *assay_rerun_compare    (const char         *name,
                                           const char         *old_path,
                                           const char         *new_path,
                                           GError            **error);
gboolean          assay_rerun_dataset_matches (const AssayRerunDataset *dataset);
void              assay_rerun_dataset_free    (AssayRerunDataset       *dataset);

/* Where a run is: a cell starting (STATUS ASSAY_CELL_RUNNING) or done. */
typedef struct
{
  guint            index;        /* from 1 */
  guint            total;        /* cells that will run */
  const char      *cell_id;
  const char      *description;
  AssayCellStatus  status;
  gint64           elapsed_us;   /* when done */
} AssayRerunStep;

typedef void (*AssayRerunProgressFunc) (const AssayRerunStep *step,
                                        gpointer              user_data);

/* NEW_FILES: dataset name → the new file's path, for every dataset of ORIGIN. The new session
 * is made in OUT_DIR (NULL: a new folder beside ORIGIN's). KERNEL is a kernel session not
 * started yet, without datasets: the new files are added to it. ORIGIN is linked to the new
 * session and saved. On ASSAY_RERUN_ERROR_DATA or _CELL the result is still returned (through
 * RESULT) with what is known. PROGRESS, when given, is called on the caller's main context as
 * each cell starts and ends. */
void              assay_rerun_async       (AssaySession        *origin,
                                           GHashTable          *new_files,
                                           AssayKernelSession  *kernel,
                                           const char          *out_dir,
                                           AssayRerunProgressFunc progress,
                                           gpointer             progress_data,
                                           GDestroyNotify       progress_destroy,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
/* For a repair: an agent on SESSION and KERNEL (the run's, in the state of the cells before
 * the one that failed), set up as for a question: provider, model, approval, masker, prices,
 * budget, a few steps. NULL: no repair, the run stops. */
typedef AssayAgent *(*AssayRerunAgentFunc) (AssaySession       *session,
                                            AssayKernelSession *kernel,
                                            gpointer            user_data);

/* The same; SOURCES (AssaySource*, open or not; may be NULL) are the databases the session's
 * SQL cells query again, by name: each successful query of the origin runs again there (checked
 * read-only again), its result cached in the new session and loaded into the kernel as before;
 * a database not given is an error before anything runs (G_IO_ERROR_INVALID_ARGUMENT). When a
 * cell fails and MAKE_AGENT is given, the model is asked to fix only that
 * cell (assay_agent_repair_async) and, once a fixed cell ran, the run goes on with the cells
 * after it, the answer's numbers read in the fixed cell's output (at most 3 repairs). */
void              assay_rerun_async_full  (AssaySession        *origin,
                                           GHashTable          *new_files,
                                           GPtrArray           *sources,
                                           AssayKernelSession  *kernel,
                                           const char          *out_dir,
                                           AssayRerunProgressFunc progress,
                                           gpointer             progress_data,
                                           GDestroyNotify       progress_destroy,
                                           AssayRerunAgentFunc  make_agent,
                                           gpointer             agent_data,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
AssayRerunResult *assay_rerun_finish      (GAsyncResult        *result,
                                           GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayRerunResult, assay_rerun_result_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayRerunDataset, assay_rerun_dataset_free)

G_END_DECLS
