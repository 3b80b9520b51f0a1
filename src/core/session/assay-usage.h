/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-session.h"

G_BEGIN_DECLS

/* What some of a session's requests to model servers used and cost, as the chat shows it
 * under a step card and in its header: the tokens in and out the servers reported (counts a
 * server did not report are left out) and the cost of those with a known price (0 on this
 * computer). */
typedef struct
{
  guint  n_requests;
  guint  n_unpriced;     /* with no known price */
  gint64 input_tokens;
  gint64 output_tokens;
  double cost;           /* US dollars, the priced ones */
} AssayUsage;

/* The requests of SESSION for its steps FIRST to LAST (the agent's step numbers, from 1
 * across the session; 1 and G_MAXUINT: all of them). */
void  assay_usage_init_for_steps (AssayUsage         *usage,
                                  AssaySession       *session,
                                  guint               first,
                                  guint               last);
/* "1,240 tokens in · 310 out · $0.0043" (the digits grouped as the locale groups them); the
 * cost "—" when no request had a known price, "$0.0043 and 1 of unknown price" when some
 * had none. NULL when there was no request. */
char *assay_usage_format         (const AssayUsage   *usage);

G_END_DECLS
