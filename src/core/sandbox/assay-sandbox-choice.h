/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-docker-backend.h"
#include "assay-sandbox-backend.h"
#include "assay-sandbox-image.h"
#include "assay-sandbox-limits.h"

#include "assay-e2b-backend.h"

G_BEGIN_DECLS

/* The engines that speak Docker's Engine API to try, in order, as backends: the one
 * $DOCKER_HOST names when it is set (and no other), else Docker's socket
 * (/var/run/docker.sock), then rootful Podman's (/run/podman/podman.sock) and the user's
 * rootless Podman's ($XDG_RUNTIME_DIR/podman/podman.sock) when those sockets exist. */
GPtrArray           *assay_sandbox_list_engines        (void);
/* "Podman 4.3.1 at /run/podman/podman.sock" once probed; the socket or $DOCKER_HOST before. */
char                *assay_sandbox_describe_engine     (AssayDockerBackend *backend);
/* Where a backend runs the cells, for the record and the reports: the engine as above,
 * "E2B (template … at …)", or "bubblewrap on this machine". */
char                *assay_sandbox_describe_backend    (AssaySandboxBackend *backend);
/* The first of those engines that answers and can hold the sandbox's limits (the image
 * aside), for building the image into; NULL with each one's reason. Blocking. */
AssayDockerBackend  *assay_sandbox_find_engine         (char              **reason);

/* Picks the backend: NAME when given ("docker", any engine above, "bwrap", or "e2b", which is
 * never chosen otherwise since the code and the data then leave the machine; NULL or
 * "auto" chooses), else the first engine that answers and has the image, else bubblewrap.
 * Fills the spec's image fields. REASON (may be NULL) says in plain words why this backend
 * was chosen. Blocking (it probes the sockets): call it from a worker thread in a GUI. */
AssaySandboxBackend *assay_sandbox_choose_backend (const char         *name,
                                                   AssaySandboxImage  *image,
                                                   AssaySandboxSpec   *spec,
                                                   char              **reason,
                                                   GError            **error);
/* The same; FELL_BACK (may be NULL) is TRUE when bubblewrap was chosen although an engine
 * was named ($DOCKER_HOST) or has a socket here: it could not be used, and REASON says why.
 * The caller should say so rather than run elsewhere in silence. */
AssaySandboxBackend *assay_sandbox_choose_backend_full (const char         *name,
                                                        AssaySandboxImage  *image,
                                                        AssaySandboxSpec   *spec,
                                                        char              **reason,
                                                        gboolean           *fell_back,
                                                        GError            **error);

/* The same in a worker, for the window: the image's recipe is found there too, and the
 * chosen backend's leftovers of crashed runs are removed before it returns. SPEC is copied;
 * finish hands back the filled copy (*SPEC) and the reason. */
/* The same with E2B reached as E2B_SETTINGS say (the window's keyring and settings; NULL:
 * the environment). */
AssaySandboxBackend *assay_sandbox_choose_backend_e2b  (const char              *name,
                                                        const AssayE2bSettings  *e2b_settings,
                                                        AssaySandboxImage       *image,
                                                        AssaySandboxSpec        *spec,
                                                        char                   **reason,
                                                        gboolean                *fell_back,
                                                        GError                 **error);
void                 assay_sandbox_choose_backend_e2b_async (const char             *name,
                                                             const AssayE2bSettings *e2b_settings,
                                                             const AssaySandboxSpec *spec,
                                                             GCancellable           *cancellable,
                                                             GAsyncReadyCallback     callback,
                                                             gpointer                user_data);
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
