/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

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

G_END_DECLS
