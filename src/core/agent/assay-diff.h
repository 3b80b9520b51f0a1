/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A unified diff of OLD_TEXT against NEW_TEXT, line by line, with CONTEXT lines around each
 * change; "" when they are equal. */
char *assay_diff_unified (const char *old_text,
                          const char *new_text,
                          const char *old_label,
                          const char *new_label,
                          guint       context);

G_END_DECLS
