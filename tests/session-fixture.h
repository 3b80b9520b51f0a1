/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "assay-session.h"

G_BEGIN_DECLS

/* A long session written through the core API under PARENT (NULL: the default folder):
 * QUESTION, then N_STEPS finished steps of one cell each (code "print('step N')", an "ok"
 * status and a stream output of about OUTPUT_BYTES), then the answer "Done after N steps.".
 * Returns its folder. */
char *session_fixture_write_long (const char *parent,
                                  const char *question,
                                  guint       n_steps,
                                  gsize       output_bytes);
/* A session folder under PARENT whose session.json is cut in the middle (not JSON). */
char *session_fixture_write_damaged (const char *parent);

/* The session that tells the readings of a record apart: four questions whose calls repeat
 * ids across questions ("call_1" in each) and within a reply ("call_x" twice), a call with
 * no id, an edited cell, and a last step that never finished (cell c6). Cell cN prints and
 * shows a table of its marker: first-output, second-output, ... Under PARENT (NULL: the
 * default folder); returns its folder. */
char *session_fixture_write_repeated_ids (const char *parent);

/* Building blocks: a question, a reply with N call ids (then N ids, NULL allowed), and a
 * cell that ran, printed PRINTED (as a stream and a one-cell table) and answered its call. */
void              session_fixture_ask      (AssaySession *session,
                                            const char   *question);
AssayLlmMessage  *session_fixture_reply    (AssaySession *session,
                                            const char   *text,
                                            ...);
AssaySessionCell *session_fixture_run_cell (AssaySession *session,
                                            const char   *id,
                                            guint         step,
                                            const char   *call_id,
                                            const char   *printed,
                                            gboolean      edited);

G_END_DECLS
