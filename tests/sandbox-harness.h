/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-kernel-session.h"
#include "assay-sandbox-image.h"

G_BEGIN_DECLS

/* Shared by the sandbox tests and the benchmark: real backends, real image. */
AssaySandboxBackend *harness_backend        (const char          *name,
                                             AssaySandboxSpec    *spec);
AssayKernelSession  *harness_session_new    (const char          *backend_name,
                                             AssaySandboxSpec    *spec,
                                             const char          *artifact_dir);
gboolean             harness_start          (AssayKernelSession  *session,
                                             GError             **error);
AssayCellResult     *harness_run            (AssayKernelSession  *session,
                                             const char          *code);
char                *harness_stream_text    (AssayCellResult     *result,
                                             const char          *name);
JsonObject          *harness_find_output    (AssayCellResult     *result,
                                             const char          *output_type,
                                             const char          *mime);
/* How many sandboxes of this session still exist (containers or bubblewrap processes). */
guint                harness_count_leftovers (const char         *backend_name,
                                              const char         *session_id);
void                 harness_close_and_check (AssayKernelSession *session,
                                              const char         *backend_name);

G_END_DECLS
