/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-sandbox-limits.h"

G_BEGIN_DECLS

/* What a sandbox container must have, besides the spec's limits. */
typedef struct
{
  const char *user;           /* "uid:gid" the kernel runs as */
  gint64      open_files;     /* RLIMIT_NOFILE */
} AssayDockerHardening;

/* Reads a created container's inspection back (Docker's GET /containers/ID/json or
 * Podman's /libpod/containers/ID/json, whose BoundingCaps say which capabilities are left)
 * and checks that every limit and protection Assay asked for is in force: memory and swap,
 * processes, CPU, read-only root, no network, no capabilities, no-new-privileges, the user,
 * the file size, core and open-file rlimits, sized tmpfs for /tmp and /workspace, /data
 * read-only. An engine may accept a limit and drop it without a word (rootless Podman on
 * cgroup v1 does). FALSE with every one that is not in force, in words, in ERROR
 * ("memory: asked 2.0 GiB, in force none; processes: …"). */
gboolean assay_docker_check_hardening (JsonObject                 *inspected,
                                       const AssaySandboxSpec     *spec,
                                       const AssayDockerHardening *hardening,
                                       GError                    **error);

G_END_DECLS
