/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-session-cell.h"

G_BEGIN_DECLS

/*
 * The seal of approved code. When a cell runs as the analyst approved it (or their policy
 * did), the record keeps a keyed hash (HMAC-SHA256) of what ran: its kind and its code. The
 * key is the user's, in a private file (ASSAY_APPROVAL_KEY_FILE, else
 * $XDG_DATA_HOME/assay/approval-key: 32 random bytes, mode 0600, made on first use), never in
 * a session. Whoever edits an approved cell's code in session.json cannot make the seal
 * match: a run again, a resume and the window refuse the cell, naming it, until the analyst
 * approves it again (assay-cli session approve). A session from another user or machine is
 * not sealed with this user's key: its cells are approved here before they run here.
 */

/* Seals CELL's code (its approval field). FALSE, with ERROR, when the key cannot be read or
 * made. */
gboolean assay_approval_seal   (AssaySessionCell        *cell,
                                GError                 **error);
/* Whether CELL's seal is this user's seal of its code as it is now. */
gboolean assay_approval_check  (const AssaySessionCell  *cell);

/* The same seal for another of the analyst's decisions, a list of texts (KIND names what is
 * decided, e.g. "accept-risk"; FIELDS the texts it covers, NULL-terminated). */
char    *assay_approval_seal_fields  (const char               *kind,
                                      const char * const       *fields,
                                      GError                  **error);
gboolean assay_approval_check_fields (const char               *kind,
                                      const char * const       *fields,
                                      const char               *seal);

G_END_DECLS
