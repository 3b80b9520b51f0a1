/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The Docker engine the user named, read as the docker CLI reads it: $DOCKER_HOST (with
 * $DOCKER_TLS_VERIFY and $DOCKER_CERT_PATH) first; else the CLI context named by
 * $DOCKER_CONTEXT or by "currentContext" in config.json ($DOCKER_CONFIG, else ~/.docker),
 * whose endpoint is contexts/meta/<sha256 of its name>/meta.json and whose certificates are
 * in contexts/tls/<sha256>/docker/. The "default" context names nothing. */
typedef struct
{
  char     *host;      /* "tcp://build:2376", "ssh://alice@build", "unix:///…"; NULL: see error */
  char     *context;   /* the context's name, or NULL when from the environment */
  gboolean  tls;       /* verify the engine's certificate and show ours */
  char     *cert_dir;  /* ca.pem, cert.pem and key.pem */
  char     *error;     /* why the named context cannot be used, or NULL */
} AssayDockerEndpoint;

/* NULL when no engine is named: the local sockets are tried. */
AssayDockerEndpoint *assay_docker_endpoint_resolve (void);
void                 assay_docker_endpoint_free    (AssayDockerEndpoint *endpoint);
/* "DOCKER_HOST" or "docker context “build”", for messages. */
char                *assay_docker_endpoint_describe_source (const AssayDockerEndpoint *endpoint);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayDockerEndpoint, assay_docker_endpoint_free)

G_END_DECLS
