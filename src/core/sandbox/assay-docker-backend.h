/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-docker-client.h"
#include "assay-sandbox-backend.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_DOCKER_BACKEND (assay_docker_backend_get_type ())

G_DECLARE_FINAL_TYPE (AssayDockerBackend, assay_docker_backend, ASSAY, DOCKER_BACKEND, GObject)

/* Runs the kernel in a locked-down Docker container (see launch in the .c for
 * the exact configuration). @socket_path: NULL for $DOCKER_HOST or the default. */
AssayDockerBackend *assay_docker_backend_new        (const char         *socket_path);
AssayDockerClient  *assay_docker_backend_get_client (AssayDockerBackend *self);

G_END_DECLS
