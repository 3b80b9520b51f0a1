/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A Docker engine elsewhere, reached through a private unix socket of this process: the rest
 * of the Docker code (libcurl on a unix socket, the hijacked attach stream) stays as it is.
 * Each connection made to the socket is carried to the engine:
 *
 *   ssh://[USER@]HOST[:PORT]  by the system's ssh client running `docker system dial-stdio` on
 *                             the far side, as the docker CLI does (BatchMode: keys or an agent,
 *                             never a password prompt; ASSAY_SSH_COMMAND replaces "ssh", e.g.
 *                             "ssh -F FILE");
 *   tcp://HOST:PORT + TLS     DOCKER_TLS_VERIFY set: the engine's certificate verified against
 *                             ca.pem and its name, this side's cert.pem and key.pem given, from
 *                             DOCKER_CERT_PATH (else ~/.docker);
 *   tcp://HOST:PORT           without TLS only on this machine (loopback).
 *
 * The socket is in a folder only this user can open, made when the first client asks for it
 * and kept for the process's life; its connections are carried by a thread of its own, so
 * callers that block on their thread (the CLI) are served too. */

/* Whether DOCKER_HOST is one the tunnel carries (with the TLS settings of the environment);
 * if not and ERROR is given, why not, in words (NULL error: just asking). */
gboolean  assay_docker_tunnel_supports   (const char  *docker_host,
                                          char       **why_not);
/* The socket for DOCKER_HOST, started on the first call; NULL with ERROR when the settings
 * cannot work (a certificate missing or unreadable). */
char     *assay_docker_tunnel_get_socket (const char  *docker_host,
                                          GError     **error);
/* What went wrong last reaching DOCKER_HOST (ssh's last words, the TLS or connection
 * error), or NULL: added to the message of a request that failed. */
char     *assay_docker_tunnel_last_error (const char  *docker_host);

G_END_DECLS
