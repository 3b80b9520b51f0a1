/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-agent.h"

G_BEGIN_DECLS

/* The pieces of the loop that are plain functions, shared with the tests. */

/* What the model reads about a cell: status, text outputs trimmed to BUDGET characters
 * (head and tail, with a note saying what was cut), errors with their traceback, images
 * and files named, never inlined. */
char      *assay_agent_format_result        (AssayCellResult *result,
                                             gsize            budget);
/* The same in schema-only mode: no value from the data. The status, the time, the type of
 * the error (never its message, which quotes values), the shapes of the DataFrames the
 * cell made, how many lines it printed and files it saved. */
char      *assay_agent_format_result_schema (AssayCellResult *result);
/* TEXT cut to about BUDGET characters: the head and the tail, with a note in between. */
char      *assay_agent_trim_middle          (const char      *text,
                                             gsize            budget);
/* The ```python blocks of TEXT joined, or NULL when it has none. */
char      *assay_agent_extract_fenced_code  (const char      *text);
/* A copy of MESSAGES that fits BUDGET characters, the oldest tool outputs emptied first
 * (those answering the last assistant turn are kept). */
GPtrArray *assay_agent_fit_messages         (GPtrArray       *messages,
                                             gsize            budget);

G_END_DECLS
