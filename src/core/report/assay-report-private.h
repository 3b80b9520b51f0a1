/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-cell-output.h"
#include "assay-html-table.h"
#include "assay-cell-result.h"
#include "assay-report.h"
#include "assay-provenance.h"
#include "assay-session.h"
#include "assay-session-outline.h"

G_BEGIN_DECLS

/* What every format writes: a snapshot of the session, taken on the caller's thread, that
 * the writers read from a worker. */

#define REPORT_MAX_IMAGE_BYTES   (32 * 1024 * 1024)
#define REPORT_MAX_IMAGE_SIDE    10000
#define REPORT_MAX_OUTPUT_LINES  200     /* a text output is cut beyond this (PDF, HTML) */
#define REPORT_MAX_OUTPUT_BYTES  (64 * 1024)

typedef struct
{
  guint  number;        /* Figure N, from 1 across the report */
  char  *caption;
  char  *path;          /* an artifact, absolute; or NULL */
  char  *base64;        /* an image/png output; or NULL */
} ReportFigure;

typedef struct
{
  char       *id;
  guint       execution_count;   /* from 1, over the cells in the report */
  char       *description;
  char       *code;
  AssayCellStatus status;
  char       *status_reason;
  gboolean    succeeded;
  gint64      elapsed_ms;
  JsonArray  *outputs;
  GPtrArray  *figures;           /* ReportFigure*: image/png outputs first, then artifacts */
  GPtrArray  *files;             /* char*: names of other artifacts */
  AssayCellChecks *checks;       /* what it read, merged, dropped; or NULL */
  AssayDecision decision;        /* how it came to run (auto, approved, edited) */
  AssayCellKind kind;            /* SQL: CODE is the query, run on DATABASE */
  char       *database;          /* SQL: the connection's name */
  char       *frame;             /* SQL: the DataFrame the kernel loaded its result as */
  gint64      query_rows;        /* SQL: rows of the result; -1: none */
  char       *query_result;      /* SQL: the cached result, absolute, inside the session; or NULL */
} ReportCell;

/* The audit trail: every cell the model proposed, in the order it was proposed, and what
 * became of it, whether or not the report shows it (only successful cells, a step Assay was
 * closed in). Times are wall-clock microseconds; 0: not recorded. The record names no
 * person: a decision is the analyst's, or nobody's (policy auto). */
typedef struct
{
  char            *id;
  guint            question;     /* its question's number, from 1 */
  guint            step;         /* its step in that question, from 1 */
  char            *description;  /* may be NULL */
  AssayCellKind    kind;
  AssayDecision    decision;
  AssayCellStatus  status;
  char            *proposed_code;
  char            *code;         /* what ran; NULL when it did not */
  char            *diff;         /* an edit: the proposed code against what ran; else NULL */
  guint            changed_lines; /* lines the edit changed, added or removed */
  char            *reason;       /* a rejection's reason; NULL: none given, or not rejected */
  gint64           proposed_at;
  gint64           decided_at;   /* rejected: when; run: when it started */
  const ReportCell *cell;        /* in the report's cells, or NULL */
} ReportProposal;

typedef enum
{
  REPORT_ITEM_TEXT,      /* the assistant's words between steps (Markdown) */
  REPORT_ITEM_ANSWER,    /* the final answer (Markdown) */
  REPORT_ITEM_CELL,
  REPORT_ITEM_REJECTED,  /* a cell the analyst rejected, where it was proposed */
} ReportItemKind;

typedef struct
{
  ReportItemKind  kind;
  char           *text;
  ReportCell     *cell;          /* REPORT_ITEM_CELL, owned by the report */
  AssayProvenance *provenance;   /* REPORT_ITEM_ANSWER: its numbers traced, or NULL */
  const ReportProposal *proposal; /* REPORT_ITEM_REJECTED, in the report's proposals */
} ReportItem;

typedef struct
{
  guint      number;             /* from 1 */
  char      *text;
  GPtrArray *items;              /* ReportItem* */
} ReportQuestion;

typedef struct
{
  char   *name;
  char   *path;                  /* absolute */
  gint64  rows;                  /* -1: not counted (not a text table) */
  gint64  bytes;
  char   *sha256;                /* as recorded when it was added; NULL for older records */
  gboolean changed;              /* the session's copy is no longer what was added */
} ReportDataset;

/* A database the session queried, as its record names it (never a password). */
typedef struct
{
  char *name;
  char *kind;                    /* "postgresql", "mysql", "sqlite" */
  char *url;                     /* without a password */
} ReportSource;

/* The appendix "What was sent to the model": every request the session recorded, read by
 * assay-session-requests on the caller's thread with the rest of the snapshot and reduced to
 * what a reader needs, so that the three writers say the same things in the same words. A
 * body repeats the whole conversation, so a request shows only what it added to the last one
 * whose body read back. */
#define REPORT_REQUEST_MAX_CHARS    4000   /* of one message shown: its head and its tail */
#define REPORT_REQUEST_MAX_LINES    100
#define REPORT_REQUEST_MAX_ENTRIES  40     /* of one request: the first and the last */
#define REPORT_REQUEST_MAX_LABEL    200    /* characters of a part's label (a role, a tool's name) */
#define REPORT_REQUESTS_MAX_BYTES   (8 * 1024 * 1024)  /* of all the requests' text shown */

typedef struct
{
  char *label;       /* the part's label as assay-session-requests gives it ("Question", "Tool
                      * call (cell c1)", "System prompt"), perhaps "(changed since request 2)";
                      * NULL: HEAD is a note of ours (messages left out) */
  char *head;        /* the text, or its beginning when it was cut */
  char *cut_note;    /* "[… 1,234 characters left out …]", or NULL */
  char *tail;        /* its end when it was cut, else NULL */
} ReportRequestEntry;

typedef struct
{
  guint      number;
  char      *heading;       /* "Request 3" */
  char      *meta;          /* step, host, model, local time, bytes sent and received */
  char      *tokens;        /* the token counts the server reported; NULL: none */
  char      *problem;       /* the body was not kept or cannot be read, and why; or NULL */
  char      *system_note;   /* the preamble it repeated: "System prompt: same as request 1.
                             * Tools offered: same as request 1.", or NULL */
  char      *added_note;    /* "What it sent:", "Added since request 2:", ...; NULL with PROBLEM */
  GPtrArray *entries;       /* ReportRequestEntry*: what it added or changed, in order */
} ReportRequest;

typedef struct
{
  AssayReportOptions  options;
  char               *title;
  char               *session_dir;
  gint64              created;   /* µs since the epoch */
  char               *status;
  char               *ran_in;    /* where the cells ran: "Docker 28.2.2 at /var/run/docker.sock", or NULL */
  GPtrArray          *datasets;  /* ReportDataset* */
  GPtrArray          *sources;   /* ReportSource*: the databases its SQL cells queried */
  GPtrArray          *questions; /* ReportQuestion* */
  GPtrArray          *cells;     /* ReportCell*, in the order they ran */
  GPtrArray          *proposals; /* ReportProposal*, every cell proposed, in order */
  guint               n_figures;
  GPtrArray          *requests;  /* ReportRequest*; NULL unless options.include_requests */
  /* A session that ran another again: "What changed". */
  char               *rerun_of_title; /* the origin's title, or its folder's name; NULL: not a run again */
  GPtrArray          *changes;   /* AssaySessionChange*, every traced number; may be empty */
  GPtrArray          *rerun_notes; /* char*: what the run again said of its data */

  AssayProgressFunc   progress;
  gpointer            progress_data;
} AssayReport;

AssayReport *assay_report_new_from_session (AssaySession             *session,
                                            const AssayReportOptions *options);
void         assay_report_free             (AssayReport              *report);
void         assay_report_progress         (AssayReport              *report,
                                            double                    fraction,
                                            const char               *message);

/* The requests SESSION recorded (ReportRequest*), bodies read and compared. */
GPtrArray   *report_requests_snapshot      (AssaySession             *session);
/* The appendix's title and the paragraph under it. */
const char  *report_requests_title         (void);
const char  *report_requests_intro         (const AssayReport        *report);

/* The audit trail (assay-report-audit.c): REPORT's proposals, every cell of OUTLINE in its
 * order, each tied to its cell in the report (REPORT_CELLS: session cell → ReportCell);
 * returns session cell → its ReportProposal. Then the words every writer uses. */
GHashTable  *report_audit_snapshot         (AssayReport              *report,
                                            const AssaySessionOutline *outline,
                                            GHashTable               *report_cells);
void         report_proposal_free          (ReportProposal           *proposal);
const char  *report_audit_title            (void);
const char  *report_audit_intro            (void);
/* "Cell c3 · question 1, step 2: Load the file" */
char        *report_proposal_heading       (const ReportProposal     *proposal);
/* "Proposed 2024-07-01 12:00:05 · rejected by the analyst at 2024-07-01 12:00:40" */
char        *report_proposal_decision      (const ReportProposal     *proposal);
/* "Reason: “…”", "No reason was given."; NULL unless rejected. */
char        *report_proposal_reason        (const ReportProposal     *proposal);
/* "The code as proposed:", or "The SQL as proposed:" for a query. */
const char  *report_proposal_code_label    (const ReportProposal     *proposal);
/* What the body says where a rejected cell was proposed. */
char        *report_rejected_note          (const ReportProposal     *proposal);
/* The appendix's mark on a cell the analyst edited, or NULL. */
const char  *report_cell_decision_note     (const ReportCell         *cell);
/* Whether CELL ran as the analyst approved it (or their policy did): its code may be run again.
 * Cells of OpenAI's hosted interpreter, rejected or undecided ones are not. */
gboolean     report_cell_approved          (const ReportCell         *cell);
/* Why CELL's code is kept as comments (not approved), or NULL. */
const char  *report_cell_unapproved_note   (const ReportCell         *cell);
/* A SQL cell's line: its database, rows and DataFrame; NULL for Python. */
char        *report_cell_query_note        (const ReportCell         *cell);
/* Where an edit's diff stands when the code is left out: "3 lines changed". */
char        *report_proposal_changed_note  (const ReportProposal     *proposal);

/* Helpers shared by the writers. */
/* The line a step shows in the body for a cell that did not succeed. */
char        *report_cell_status_note       (const ReportCell         *cell);
/* The HTML table of an execute_result/display_data output, or NULL. */
AssayTable  *report_output_table           (const AssayCellOutput    *output);
/* TABLE as a plain HTML table of our own, every cell escaped; nothing of the HTML it was
 * read from is copied. */
void         report_append_table_html      (GString                  *html,
                                            const AssayTable         *table);
/* TEXT cut to REPORT_MAX_OUTPUT_LINES lines / bytes; *CUT says how many lines went. */
char        *report_truncate_text          (const char               *text,
                                            guint                    *cut_lines);
/* The PNG's bytes, checked: a PNG signature, sane dimensions, under the byte cap. */
GBytes      *report_figure_load            (const ReportFigure       *figure,
                                            guint                    *width,
                                            guint                    *height,
                                            GError                  **error);
char        *report_format_date            (gint64                    usec);
char        *report_dataset_summary        (const ReportDataset      *dataset);
/* The cell called ID, or NULL. */
const ReportCell *report_find_cell         (const AssayReport        *report,
                                            const char               *id);
/* The footnote of each of PROVENANCE's numbers: from 1 for an untraced one, 0 for a traced
 * one; their count in *N_UNTRACED. */
guint       *report_footnotes              (const AssayProvenance    *provenance,
                                            guint                    *n_untraced);
/* Where a number came from, as a tooltip or footnote says it. */
char        *report_traced_title           (const AssayTracedNumber  *traced);
/* The footnote of a number not traced: found nowhere, or stale after a run on new data. */
char        *report_untraced_note          (const AssayTracedNumber  *traced);

/* A row of the format table: what a format is called and the function that writes it. */
struct _AssayReportFormat
{
  const char  *name;         /* --format's, and what `export` prints */
  const char  *extension;    /* its files' */
  const char  *alias;        /* another name or extension it answers to, or NULL */
  const char  *label;        /* the export dialog's, marked for translation */
  const char  *files_label;  /* the file chooser's filter's, marked too */
  gboolean   (*write)        (AssayReport              *report,
                              GOutputStream            *out,
                              GCancellable             *cancellable,
                              GError                  **error);
};

gboolean     assay_report_write_html       (AssayReport              *report,
                                            GOutputStream            *out,
                                            GCancellable             *cancellable,
                                            GError                  **error);
gboolean     assay_report_write_ipynb      (AssayReport              *report,
                                            GOutputStream            *out,
                                            GCancellable             *cancellable,
                                            GError                  **error);
/* "What changed" as every writer says it. */
const char  *report_changes_title          (void);
char        *report_changes_intro          (const AssayReport        *report);
/* The change column ("+1,234.5", "stale") and the percent column ("+12.3 %", "—"). */
char        *report_change_delta           (const AssaySessionChange *change);
/* What the number is ("West: …", "North · revenue"); for a record without labels, its
 * answer's number. */
char        *report_change_label           (const AssaySessionChange *change);
char        *report_change_percent         (const AssaySessionChange *change);

gboolean     assay_report_write_xlsx       (AssayReport              *report,
                                            GOutputStream            *out,
                                            GCancellable             *cancellable,
                                            GError                  **error);
/* A zip: the notebook, analysis.py, datasets' SHA-256, the sandbox's package versions, the
 * PDF report and a README. */
gboolean     assay_report_write_bundle     (AssayReport              *report,
                                            GOutputStream            *out,
                                            GCancellable             *cancellable,
                                            GError                  **error);
gboolean     assay_report_write_pdf        (AssayReport              *report,
                                            GOutputStream            *out,
                                            GCancellable             *cancellable,
                                            GError                  **error);

/* Where a table of N_ROWS rows (HEIGHTS, the first N_HEADER of them its header, repeated at
 * the top of each page) starting at Y on a page whose body runs from TOP to BOTTOM goes on to
 * a new page: BREAKS[r] is TRUE when row r starts a page (BREAKS[0]: the whole table moves
 * down). Never the header and a single row at the foot of a page, never the last row alone on
 * a page, where the page can take more. */
void         report_pdf_table_breaks       (const double             *heights,
                                            guint                     n_rows,
                                            guint                     n_header,
                                            double                    y,
                                            double                    top,
                                            double                    bottom,
                                            gboolean                 *breaks);

G_END_DECLS
