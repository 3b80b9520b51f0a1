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

/* A volume for a sandbox's /data on an engine elsewhere, labelled as SESSION_ID's (a crashed
 * run's is found among the leftovers); removed (when no container uses it any more). */
gboolean              assay_docker_instance_create_volume    (AssayDockerClient   *client,
                                                              const char          *volume,
                                                              const char          *session_id,
                                                              GCancellable        *cancellable,
                                                              GError             **error);
void                  assay_docker_instance_remove_volume    (AssayDockerClient   *client,
                                                              const char          *volume);
/* How the datasets reach an engine elsewhere: an uploader, a container created from IMAGE_REF
 * with VOLUME writable at /data and never started, labelled as SESSION_ID's (so a crashed run's
 * is found among the leftovers); its name. Files of DIR (NAMES, or all) are sent through it
 * with the archive endpoint; it is removed before the volume. */
char                 *assay_docker_instance_create_uploader  (AssayDockerClient   *client,
                                                              const char          *image_ref,
                                                              const char          *session_id,
                                                              const char          *volume,
                                                              GCancellable        *cancellable,
                                                              GError             **error);
gboolean              assay_docker_instance_upload           (AssayDockerClient   *client,
                                                              const char          *uploader,
                                                              const char          *dir,
                                                              const char * const  *names,
                                                              GCancellable        *cancellable,
                                                              GError             **error);
void                  assay_docker_instance_remove_uploader  (AssayDockerClient   *client,
                                                              const char          *uploader);
/* /data is VOLUME, filled from DATA_DIR: a file added there later is sent too (add_file). */
void                  assay_docker_instance_set_data_volume  (AssayDockerInstance *self,
                                                              const char          *volume,
                                                              const char          *uploader,
                                                              const char          *image_ref,
                                                              const char          *session_id,
                                                              const char          *data_dir);

G_END_DECLS
