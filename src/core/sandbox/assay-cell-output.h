/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The one reading of a cell's nbformat output: a stream, a rich result (execute_result,
 * display_data), or an error. Outputs come from the kernel (cleaned by the channel) but also
 * from session records anyone may have edited, so every member is checked for its type; a
 * member of the wrong type reads as missing. Multi-line strings (a string or an array of
 * strings, as nbformat allows) are joined.
 *
 * The step card, the agent's report to the model, the three report writers and the CLI read
 * outputs through this and nothing else.
 */

typedef enum
{
  ASSAY_CELL_OUTPUT_OTHER,     /* no or an unknown output_type */
  ASSAY_CELL_OUTPUT_STREAM,
  ASSAY_CELL_OUTPUT_RESULT,    /* execute_result */
  ASSAY_CELL_OUTPUT_DISPLAY,   /* display_data */
  ASSAY_CELL_OUTPUT_ERROR,
} AssayCellOutputKind;

typedef struct
{
  AssayCellOutputKind  kind;
  /* STREAM */
  gboolean             is_stderr;
  char                *text;          /* never NULL for a stream */
  /* RESULT, DISPLAY */
  JsonObject          *data;          /* the MIME bundle, borrowed; NULL when missing */
  char                *plain;         /* text/plain, or NULL */
  char                *html;          /* text/html, or NULL */
  char                *png_base64;    /* image/png, or NULL */
  gboolean             has_image;     /* image/png, image/jpeg or image/svg+xml */
  /* ERROR */
  char                *ename;         /* never NULL for an error ("Error" when missing) */
  char                *evalue;        /* never NULL for an error */
  GPtrArray           *traceback;     /* char*, the string lines; never NULL for an error */
} AssayCellOutput;

/* NULL when NODE is not an object. */
AssayCellOutput *assay_cell_output_read      (JsonNode              *node);
AssayCellOutput *assay_cell_output_read_object (JsonObject          *object);
void             assay_cell_output_free      (AssayCellOutput       *output);
/* What the output shows as text: a stream's text; an error's traceback, one line each (or
 * "ename: evalue" without one); a rich output's text/plain. NULL when it has none. */
char            *assay_cell_output_dup_text  (const AssayCellOutput *output);

/* A new array of OUTPUTS (the other outputs' nodes copied with json_node_copy) with each run
 * of consecutive pieces of one stream joined into one stream output, as Jupyter shows them. The kernel session joins them
 * as they arrive (up to 64 KiB an output); older records and longer runs are joined here, for
 * what shows a cell whole (the reports). */
JsonArray       *assay_cell_output_join_streams (JsonArray          *outputs);

/* What the model reads of OUTPUTS, before its budget: each stream's text (stdout and stderr),
 * each error's traceback, each rich output's text/plain ("Out: " before a result's) unless it
 * shows an image, a note for a rich output with only HTML; figures are named in FIGURES (when
 * not NULL). STARTS (when not NULL) gets, per output, where its text (the stream's text, the
 * text/plain) starts in the returned text, or G_MAXSIZE when the model reads none of it. */
char            *assay_cell_outputs_read_text (JsonArray           *outputs,
                                               GString             *figures,
                                               GArray              *starts);

/* Where a text of LENGTH bytes is cut for a model that reads BUDGET bytes of it: the head
 * [0, *HEAD_END) and the tail [*TAIL_START, LENGTH) are read, at character boundaries. FALSE
 * (and all of it read) when it fits. */
gboolean         assay_cell_output_cut_middle (const char          *text,
                                               gsize                length,
                                               gsize                budget,
                                               gsize               *head_end,
                                               gsize               *tail_start);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayCellOutput, assay_cell_output_free)

G_END_DECLS
