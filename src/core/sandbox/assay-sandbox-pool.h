/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-kernel-session.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_SANDBOX_POOL (assay_sandbox_pool_get_type ())

G_DECLARE_FINAL_TYPE (AssaySandboxPool, assay_sandbox_pool, ASSAY, SANDBOX_POOL, GObject)

/* Keeps one sandbox started, with pandas and matplotlib imported, for the next session,
 * so that its first cell pays neither for the container nor for the imports. */
AssaySandboxPool   *assay_sandbox_pool_new           (AssaySandboxBackend     *backend,
                                                      const AssaySandboxSpec  *spec);
/* Starts a warm sandbox unless one is ready or starting. */
void                assay_sandbox_pool_prewarm       (AssaySandboxPool        *self);
gboolean            assay_sandbox_pool_has_warm      (AssaySandboxPool        *self);
/* The id of the warm sandbox (its processes carry ASSAY_SESSION=<id>), or NULL. */
const char         *assay_sandbox_pool_get_warm_id   (AssaySandboxPool        *self);
/* A session for a new analysis: the warm one when ready (another is then started), else a
 * new one that starts on its first cell. */
AssayKernelSession *assay_sandbox_pool_take_session  (AssaySandboxPool        *self,
                                                      const char              *artifact_dir);

/* Lets go of the warm sandbox and the one starting, closed off the calling thread (the default
 * GApplication held until they are gone); the next prewarm starts again. For settings that
 * change what a sandbox is. */
void                assay_sandbox_pool_empty         (AssaySandboxPool        *self);

G_END_DECLS
