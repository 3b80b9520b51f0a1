/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-sandbox-backend.h"
#include "assay-sandbox-image.h"

G_BEGIN_DECLS

int assay_cli_ask     (int argc, char **argv);
int assay_cli_exec    (int argc, char **argv);
int assay_cli_export  (int argc, char **argv);
int assay_cli_session (int argc, char **argv);
int assay_cli_sandbox (int argc, char **argv);
int assay_cli_inspect (int argc, char **argv);

/* Picks the backend: NAME when given ("docker" or "bwrap"), else Docker when it answers
 * and has the image, else bubblewrap. Fills the spec's image fields. */
AssaySandboxBackend *assay_cli_choose_backend (const char         *name,
                                               AssaySandboxImage  *image,
                                               AssaySandboxSpec   *spec,
                                               GError            **error);

G_END_DECLS
