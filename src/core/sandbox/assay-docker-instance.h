/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-docker-client.h"
#include "assay-sandbox-instance.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_DOCKER_INSTANCE (assay_docker_instance_get_type ())

G_DECLARE_FINAL_TYPE (AssayDockerInstance, assay_docker_instance, ASSAY, DOCKER_INSTANCE, AssaySandboxInstance)

/* One container of AssayDockerBackend, created and attached, with the kernel's
 * stdio over the hijacked attach connection (RUNS_KERNEL: Assay's kernel, not a command of
 * the spec, so its exit codes mean what PROTOCOL.md says). Made by the backend only. The
 * streams from get_stdin/get_stdout are valid while the instance lives. */
AssaySandboxInstance *assay_docker_instance_new              (AssayDockerClient   *client,
                                                              const char          *container_id,
                                                              GSocketConnection   *attach_connection,
                                                              guint64              memory_bytes,
                                                              gboolean             runs_kernel);
const char           *assay_docker_instance_get_container_id (AssayDockerInstance *self);

G_END_DECLS
