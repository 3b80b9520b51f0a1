/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-e2b-client.h"
#include "assay-sandbox-instance.h"
#include "assay-sandbox-limits.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_E2B_INSTANCE (assay_e2b_instance_get_type ())

G_DECLARE_FINAL_TYPE (AssayE2bInstance, assay_e2b_instance, ASSAY, E2B_INSTANCE, AssaySandboxInstance)

/* One E2B sandbox, seen by the session as a sandbox whose kernel speaks Assay's protocol:
 * the instance is the far end of the kernel's stdin and stdout. It reads the session's
 * execute/interrupt/shutdown messages and answers with ready/output/artifact/done/fatal
 * ones, doing the work over HTTP: the datasets uploaded to /data through envd, each cell
 * POSTed to the code interpreter's /execute and its NDJSON events turned into nbformat
 * outputs as they stream, an interrupt by closing that request (the interpreter then
 * interrupts its kernel), new and changed files under /workspace listed and downloaded as
 * artifacts, kill and destroy as DELETE /sandboxes/{id}. The session keeps its own timeouts,
 * caps and restarts. Takes SANDBOX (created by the backend). */
AssayE2bInstance *assay_e2b_instance_new    (AssayE2bClient          *client,
                                             AssayE2bSandbox         *sandbox,
                                             const AssaySandboxSpec  *spec,
                                             guint                    lifetime_s);
const char       *assay_e2b_instance_get_sandbox_id (AssayE2bInstance *self);

G_END_DECLS
