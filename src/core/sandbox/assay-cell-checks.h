/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * What a cell did to its data, as the kernel saw it (PROTOCOL.md, "checks"): the files it read
 * from /data and their shape, its merges and joins (rows on each side and in the result, keys
 * that match nothing, many-to-many keys), the rows drop_duplicates and dropna removed, and the
 * /data files it opened. Read from the kernel and from records anyone may have edited: every
 * member is checked, counts are never negative, names are capped.
 */

typedef enum
{
  ASSAY_CHECK_READ,
  ASSAY_CHECK_MERGE,
  ASSAY_CHECK_DROP_DUPLICATES,
  ASSAY_CHECK_DROPNA,
} AssayCheckKind;

typedef struct
{
  AssayCheckKind  kind;
  char           *file;            /* READ: the name under /data */
  char           *how;             /* MERGE: inner, left, right, outer, cross; NULL: not said */
  gint64          rows;            /* the frame read, the merge's result, the rows kept; -1 */
  gint64          columns;         /* READ; -1: unknown */
  gint64          left;            /* MERGE: rows on each side; -1 */
  gint64          right;
  gint64          left_unmatched;  /* MERGE: rows whose key the other side lacks; -1: not counted */
  gint64          right_unmatched;
  int             many_to_many;    /* MERGE: 1, 0, or -1 (not known) */
  gint64          before;          /* DROP_*: the rows before; -1 */
  gint64          bad_lines;       /* READ: lines not read although asked to skip; -1: not asked */
} AssayCheck;

/* A DataFrame the cell made: a name of the namespace bound to a new DataFrame. */
typedef struct
{
  char   *name;
  gint64  rows;
  gint64  columns;
} AssayCheckFrame;

typedef struct
{
  GPtrArray *items;    /* AssayCheck* */
  GPtrArray *files;    /* char*: names under /data the cell opened */
  GPtrArray *frames;   /* AssayCheckFrame*: the DataFrames it made (not in describe ()) */
} AssayCellChecks;

#define ASSAY_CELL_CHECKS_MAX 64

/* NULL when NODE holds no check. */
AssayCellChecks *assay_cell_checks_from_json (JsonNode              *node);
JsonNode        *assay_cell_checks_to_json   (const AssayCellChecks *checks);
AssayCellChecks *assay_cell_checks_copy      (const AssayCellChecks *checks);
void             assay_cell_checks_free      (AssayCellChecks       *checks);
/* One line, "read sales.csv: 45,162 rows × 5 columns; merge (left): …". FOR_MODEL: in English
 * (what the model reads is never translated), else in the analyst's language. */
char            *assay_cell_checks_describe  (const AssayCellChecks *checks,
                                              gboolean               for_model);

/* "sales (45,162 rows × 5 columns), by_region (4 rows × 2 columns)", in English, for the
 * model in schema-only mode; NULL when the cell made none. */
char            *assay_cell_checks_describe_frames (const AssayCellChecks *checks);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayCellChecks, assay_cell_checks_free)

G_END_DECLS
