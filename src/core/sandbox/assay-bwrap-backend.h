/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-sandbox-backend.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_BWRAP_BACKEND (assay_bwrap_backend_get_type ())

G_DECLARE_FINAL_TYPE (AssayBwrapBackend, assay_bwrap_backend, ASSAY, BWRAP_BACKEND, GObject)

/* Runs the kernel with bubblewrap in the unpacked image tree. Limits come from a cgroup
 * when one can be created (cgroup v2 delegated to the user, or v1/v2 as root), from
 * rlimits otherwise. */
AssayBwrapBackend *assay_bwrap_backend_new            (void);
/* How limits are enforced here, for `assay-cli sandbox status`. */
char              *assay_bwrap_backend_describe_limits (AssayBwrapBackend *self);

G_END_DECLS
