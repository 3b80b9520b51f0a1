/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-sandbox-backend.h"
#include "assay-sandbox-image.h"
#include "assay-sandbox-limits.h"

G_BEGIN_DECLS

/* Picks the backend: NAME when given ("docker" or "bwrap"; NULL or "auto" chooses), else
 * Docker when it answers and has the image, else bubblewrap. Fills the spec's image fields.
 * REASON (may be NULL) says in plain words why this backend was chosen. Blocking (it probes
 * the Docker socket): call it from a worker thread in a GUI. */
AssaySandboxBackend *assay_sandbox_choose_backend (const char         *name,
                                                   AssaySandboxImage  *image,
                                                   AssaySandboxSpec   *spec,
                                                   char              **reason,
                                                   GError            **error);

/* The same in a worker, for the window: the image's recipe is found there too, and the
 * chosen backend's leftovers of crashed runs are removed before it returns. SPEC is copied;
 * finish hands back the filled copy (*SPEC) and the reason. */
void                 assay_sandbox_choose_backend_async  (const char              *name,
                                                          const AssaySandboxSpec  *spec,
                                                          GCancellable            *cancellable,
                                                          GAsyncReadyCallback      callback,
                                                          gpointer                 user_data);
AssaySandboxBackend *assay_sandbox_choose_backend_finish (GAsyncResult            *result,
                                                          AssaySandboxSpec       **spec,
                                                          char                   **reason,
                                                          GError                 **error);

G_END_DECLS
