/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "assay-types.h"

G_BEGIN_DECLS

#define ASSAY_DOCKER_ERROR (assay_docker_error_quark ())

typedef enum
{
  ASSAY_DOCKER_ERROR_UNREACHABLE,       /* no daemon at the socket, or it does not answer */
  ASSAY_DOCKER_ERROR_PERMISSION_DENIED, /* the socket may not be used by this user */
  ASSAY_DOCKER_ERROR_NOT_FOUND,         /* HTTP 404: no such container or image */
  ASSAY_DOCKER_ERROR_CONFLICT,          /* HTTP 409: e.g. the container is not running */
  ASSAY_DOCKER_ERROR_FAILED,            /* any other failure */
} AssayDockerError;

GQuark assay_docker_error_quark (void);

/* Whether ERROR, the answer to a forced removal, is the engine's race with a container that
 * stopped by itself at that moment: Docker's 500 "Could not kill running container …, cannot
 * remove - Container … is not running", Podman 4.3's "container state improper". Asked again
 * once it has stopped, the removal goes through. */
gboolean assay_docker_error_is_stopping_race (const GError *error);

/* Which program answers on the socket: both speak Docker's Engine API, with differences
 * (tmpfs options, rlimits, import tags, kill statuses) that the backend adapts to. */
typedef enum
{
  ASSAY_DOCKER_ENGINE_UNKNOWN,          /* not identified yet */
  ASSAY_DOCKER_ENGINE_DOCKER,
  ASSAY_DOCKER_ENGINE_PODMAN,
} AssayDockerEngine;

#define ASSAY_TYPE_DOCKER_CLIENT (assay_docker_client_get_type ())

G_DECLARE_FINAL_TYPE (AssayDockerClient, assay_docker_client, ASSAY, DOCKER_CLIENT, GObject)

/* A client of Docker's Engine API (v1.41) on a unix socket: Docker's, or Podman's
 * compatible service.
 *
 * Every call blocks and may be made from any thread: each one uses its own
 * connection. Calls honour their GCancellable (within about a second while
 * waiting on the daemon). Response bodies are capped, so a misbehaving daemon
 * cannot exhaust our memory. */
AssayDockerClient *assay_docker_client_new             (const char             *socket_path);
const char        *assay_docker_client_get_socket_path (AssayDockerClient      *self);
/* DOCKER_HOST when the engine is elsewhere (ssh://, tcp://: reached through a tunnel, its
 * socket the one above, and it sees none of this machine's files), else NULL. */
const char        *assay_docker_client_get_remote_host (AssayDockerClient      *self);
gboolean           assay_docker_client_ping            (AssayDockerClient      *self,
                                                        GCancellable           *cancellable,
                                                        GError                **error);
JsonNode          *assay_docker_client_request         (AssayDockerClient      *self,
                                                        const char             *method,
                                                        const char             *path,
                                                        JsonNode               *body,
                                                        guint                  *status_out,
                                                        GCancellable           *cancellable,
                                                        GError                **error);
JsonNode          *assay_docker_client_inspect_image   (AssayDockerClient      *self,
                                                        const char             *image_ref,
                                                        GCancellable           *cancellable,
                                                        GError                **error);
gboolean           assay_docker_client_image_exists    (AssayDockerClient      *self,
                                                        const char             *image_ref,
                                                        GCancellable           *cancellable,
                                                        GError                **error);
gboolean           assay_docker_client_import_image    (AssayDockerClient      *self,
                                                        GInputStream           *tar,
                                                        guint64                 total_bytes,
                                                        const char             *repo,
                                                        const char             *tag,
                                                        AssayProgressFunc       progress,
                                                        gpointer                progress_data,
                                                        GCancellable           *cancellable,
                                                        GError                **error);
gboolean           assay_docker_client_tag_image       (AssayDockerClient      *self,
                                                        const char             *image_ref,
                                                        const char             *repo,
                                                        const char             *tag,
                                                        GCancellable           *cancellable,
                                                        GError                **error);
GIOStream         *assay_docker_client_attach          (AssayDockerClient      *self,
                                                        const char             *container_id,
                                                        GCancellable           *cancellable,
                                                        GError                **error);

/* Asks the engine what it is (GET /version; for Podman also its libpod info: rootless or
 * not, the cgroup version and the controllers it may use). Done once; the getters below
 * answer from what it learnt (UNKNOWN, NULL, FALSE before). */
gboolean           assay_docker_client_identify        (AssayDockerClient      *self,
                                                        GCancellable           *cancellable,
                                                        GError                **error);
AssayDockerEngine  assay_docker_client_get_engine      (AssayDockerClient      *self);
const char        *assay_docker_client_get_engine_version (AssayDockerClient   *self);
/* Whether the engine runs as a user other than root, in a user namespace of its own. */
gboolean           assay_docker_client_is_rootless     (AssayDockerClient      *self);
/* "1" or "2"; NULL when the engine did not say. */
const char        *assay_docker_client_get_cgroup_version (AssayDockerClient   *self);
/* The cgroup controllers a rootless Podman may use (its delegated ones); NULL when the
 * engine did not say (Docker; rootful Podman, which has them all). */
const char * const *assay_docker_client_get_cgroup_controllers (AssayDockerClient *self);
/* "Docker 20.10.24" or "Podman 4.3.1", with "rootless" when it is; NULL before identify. */
char              *assay_docker_client_describe_engine (AssayDockerClient      *self);

/* Whether $DOCKER_HOST is set (to anything): the user named an engine. */
gboolean           assay_docker_host_is_set            (void);

char              *assay_docker_escape_path_segment    (const char             *segment);

/* Unpacks TAR into PATH of the container ID (PUT /containers/ID/archive); the container need
 * not run. How files reach an engine elsewhere. */
gboolean           assay_docker_client_put_archive     (AssayDockerClient      *self,
                                                        const char             *id,
                                                        const char             *path,
                                                        GInputStream           *tar,
                                                        GCancellable           *cancellable,
                                                        GError                **error);

G_END_DECLS
