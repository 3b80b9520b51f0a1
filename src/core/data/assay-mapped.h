/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * A read-only mapping of a data file that survives the file shrinking underneath it.
 *
 * A mapped page whose file was truncated raises SIGBUS on access, which would take the
 * window (or `inspect`) down with it. A guarded mapping is registered with a SIGBUS
 * handler that replaces such a page with zeroes and marks the mapping damaged; readers see
 * NUL bytes where the text was and check assay_mapped_is_damaged () when they finish.
 */
typedef struct _AssayMapped AssayMapped;

AssayMapped *assay_mapped_new        (const char   *path,
                                      GError      **error);
/* The same over FD, an open regular file (not closed here); PATH names it in messages. */
AssayMapped *assay_mapped_new_for_fd (int           fd,
                                      const char   *path,
                                      GError      **error);
const char  *assay_mapped_get_data   (AssayMapped  *self);
gsize        assay_mapped_get_length (AssayMapped  *self);
gboolean     assay_mapped_is_damaged (AssayMapped  *self);
gboolean     assay_mapped_check      (AssayMapped  *self,
                                      const char   *path,
                                      GError      **error);
void         assay_mapped_free       (AssayMapped  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayMapped, assay_mapped_free)

G_END_DECLS
