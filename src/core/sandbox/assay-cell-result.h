/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "assay-types.h"
#include "assay-cell-checks.h"

G_BEGIN_DECLS

/* A cell's status, the one type for it everywhere: what a run ended with (OK … CRASHED, the
 * sandbox's outcomes), and where a recorded cell stands otherwise. The record and the wire
 * keep the words of assay_cell_status_to_string (). */
typedef enum
{
  ASSAY_CELL_OK,
  ASSAY_CELL_ERROR,
  ASSAY_CELL_TIMEOUT,
  ASSAY_CELL_OOM,
  ASSAY_CELL_LIMIT,
  ASSAY_CELL_CANCELLED,
  ASSAY_CELL_CRASHED,
  ASSAY_CELL_SANDBOX_ERROR,   /* the sandbox could not run it at all */
  ASSAY_CELL_PROPOSED,        /* waiting for the analyst */
  ASSAY_CELL_RUNNING,
  ASSAY_CELL_REJECTED,
  ASSAY_CELL_INTERRUPTED,     /* Assay stopped while it was proposed or running */
} AssayCellStatus;

/* "ok", "error", "timeout", "oom", "limit", "cancelled", "crashed", "sandbox-error",
 * "proposed", "running", "rejected", "interrupted". */
const char *assay_cell_status_to_string   (AssayCellStatus  status);
/* FALSE (STATUS untouched) for a word that is none of those. */
gboolean    assay_cell_status_from_string (const char      *text,
                                           AssayCellStatus *status);
/* Whether the cell ran to an outcome (not proposed, running, rejected or interrupted). */
gboolean    assay_cell_status_is_finished (AssayCellStatus  status);

/* A file a cell produced, stored by the host under a name it chose itself. */
typedef struct
{
  char    *name;       /* the (sanitised) path relative to /workspace */
  char    *path;       /* where the host stored it */
  guint64  bytes;
  char    *mime;
  gboolean truncated;
} AssayArtifact;

void assay_artifact_free (AssayArtifact *artifact);

#define ASSAY_TYPE_CELL_RESULT (assay_cell_result_get_type ())

G_DECLARE_FINAL_TYPE (AssayCellResult, assay_cell_result, ASSAY, CELL_RESULT, GObject)

AssayCellResult *assay_cell_result_new                (const char      *cell_id,
                                                       const char      *code);
const char      *assay_cell_result_get_cell_id        (AssayCellResult *self);
const char      *assay_cell_result_get_code           (AssayCellResult *self);
AssayCellStatus  assay_cell_result_get_status         (AssayCellResult *self);
void             assay_cell_result_set_status         (AssayCellResult *self,
                                                       AssayCellStatus  status,
                                                       const char      *reason);
const char      *assay_cell_result_get_reason         (AssayCellResult *self);
JsonArray       *assay_cell_result_get_outputs        (AssayCellResult *self);
void             assay_cell_result_add_output         (AssayCellResult *self,
                                                       JsonObject      *output);
GPtrArray       *assay_cell_result_get_artifacts      (AssayCellResult *self);
void             assay_cell_result_add_artifact       (AssayCellResult *self,
                                                       AssayArtifact   *artifact);
gint64           assay_cell_result_get_elapsed_ms     (AssayCellResult *self);
void             assay_cell_result_set_elapsed_ms     (AssayCellResult *self,
                                                       gint64           elapsed_ms);
/* The same, in microseconds, for benchmarks. */
gint64           assay_cell_result_get_elapsed_us     (AssayCellResult *self);
void             assay_cell_result_set_elapsed_us     (AssayCellResult *self,
                                                       gint64           elapsed_us);
/* How long the user code itself ran, as the kernel measured it (0 when unknown): the rest
 * of elapsed_us is what the sandbox and the channel add. */
gint64           assay_cell_result_get_code_us        (AssayCellResult *self);
/* What the kernel saw the cell do to its data; NULL when nothing. set takes CHECKS. */
const AssayCellChecks *assay_cell_result_get_checks   (AssayCellResult *self);
void             assay_cell_result_set_checks         (AssayCellResult *self,
                                                       AssayCellChecks *checks);
void             assay_cell_result_set_code_us        (AssayCellResult *self,
                                                       gint64           code_us);
guint            assay_cell_result_get_execution_count (AssayCellResult *self);
void             assay_cell_result_set_execution_count (AssayCellResult *self,
                                                        guint            count);
gboolean         assay_cell_result_get_state_lost     (AssayCellResult *self);
void             assay_cell_result_set_state_lost     (AssayCellResult *self,
                                                       gboolean         state_lost);
guint            assay_cell_result_get_replayed       (AssayCellResult *self);
void             assay_cell_result_set_replayed       (AssayCellResult *self,
                                                       guint            replayed);
/* The object `assay-cli exec --json` prints for this cell. */
JsonObject      *assay_cell_result_to_json            (AssayCellResult *self);

G_END_DECLS
