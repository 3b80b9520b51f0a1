/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-types.h"
#include "assay-cell-result.h"
#include "assay-llm-types.h"

G_BEGIN_DECLS

/* What the analyst decided about a proposed cell. */
typedef enum
{
  ASSAY_DECISION_PENDING,    /* not decided yet (the step was interrupted) */
  ASSAY_DECISION_AUTO,       /* run without asking (policy auto) */
  ASSAY_DECISION_APPROVED,
  ASSAY_DECISION_EDITED,     /* run after the analyst changed the code */
  ASSAY_DECISION_REJECTED,   /* not run; the reason went back to the model */
  ASSAY_DECISION_HOSTED,     /* run by OpenAI's hosted code interpreter: nobody could approve it */
} AssayDecision;

const char    *assay_decision_to_string   (AssayDecision  decision);
AssayDecision  assay_decision_from_string (const char    *text);

/* What a cell runs: Python in the kernel, or (run_sql) a query on a connected database
 * whose result the kernel loads as a DataFrame. */
typedef enum
{
  ASSAY_CELL_KIND_PYTHON,
  ASSAY_CELL_KIND_SQL,
} AssayCellKind;

/* What a SQL cell asked and got. */
typedef struct
{
  char      *database;      /* the connection's name */
  char      *frame;         /* the DataFrame's name in the kernel */
  gint64     rows;          /* -1: no result */
  JsonArray *columns;       /* [{"name", "type" (the server's), "dtype"}], never NULL */
  gint64     bytes;         /* of the result as Assay held it */
  gint64     query_ms;      /* the server's part: from the statement to its last row */
  char      *result;        /* the cached result, "queries/c3.aqr" in the session; may be NULL */
} AssaySessionQuery;

AssaySessionQuery *assay_session_query_new  (const char        *database,
                                             const char        *frame);
void               assay_session_query_free (AssaySessionQuery *query);

/* One cell of a session, as recorded: what the model proposed, what the analyst decided,
 * what ran and what came out. Times are wall-clock microseconds (0 = not yet). A SQL cell's
 * code is its SQL (the record of old sessions, without "kind", reads as Python). */
typedef struct
{
  char          *id;             /* "c1", "c2", ... in the session */
  guint          step;           /* the step that proposed it, from 1 */
  char          *call_id;        /* the model's tool call id */
  char          *description;    /* the model's short description; may be NULL */
  char          *proposed_code;  /* as the model wrote it */
  char          *code;           /* what ran (differs when edited); NULL when it did not run */
  AssayDecision  decision;
  char          *reason;         /* the rejection reason; may be NULL */
  AssayCellStatus status;
  char          *status_reason;  /* the sandbox's words for a non-ok status */
  JsonArray     *outputs;        /* nbformat outputs, never NULL */
  GPtrArray     *artifacts;      /* AssayArtifact*, path relative to the session folder */
  AssayCellChecks *checks;       /* what the kernel saw it do to its data; may be NULL */
  gint64         proposed_at;
  gint64         started_at;
  gint64         finished_at;
  gint64         elapsed_ms;
  AssayCellKind  kind;
  AssaySessionQuery *query;      /* kind SQL; NULL otherwise */
  /* How much of its text outputs the model read: bytes of their head and tail
   * (assay_cell_output_cut_middle over assay_cell_outputs_read_text); 0: all, or not known. */
  gsize          model_read;
  char          *approval;       /* the seal of the code approved (assay-approval.h); may be NULL */
} AssaySessionCell;

AssaySessionCell *assay_session_cell_new       (const char             *id,
                                                guint                   step,
                                                const char             *call_id,
                                                const char             *description,
                                                const char             *proposed_code);
AssaySessionCell *assay_session_cell_copy      (const AssaySessionCell *cell);
void              assay_session_cell_free      (AssaySessionCell       *cell);
gboolean          assay_session_cell_succeeded (const AssaySessionCell *cell);
JsonNode         *assay_session_cell_to_json   (const AssaySessionCell *cell);
AssaySessionCell *assay_session_cell_from_json (JsonNode               *node);

/* The provider-independent conversation, as JSON. */
JsonNode         *assay_llm_message_to_json    (const AssayLlmMessage  *message);
AssayLlmMessage  *assay_llm_message_from_json  (JsonNode               *node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssaySessionCell, assay_session_cell_free)

G_END_DECLS
