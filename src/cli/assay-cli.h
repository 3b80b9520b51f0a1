/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <stdio.h>

#include "assay-sandbox-backend.h"
#include "assay-sandbox-image.h"

G_BEGIN_DECLS

int assay_cli_ask     (int argc, char **argv);
int assay_cli_exec    (int argc, char **argv);
int assay_cli_export  (int argc, char **argv);
int assay_cli_session (int argc, char **argv);
int assay_cli_sandbox (int argc, char **argv);
int assay_cli_inspect (int argc, char **argv);
int assay_cli_rerun   (int argc, char **argv);

/* Picks the backend: NAME when given ("docker" or "bwrap"), else Docker when it answers
 * and has the image, else bubblewrap. Fills the spec's image fields. */
AssaySandboxBackend *assay_cli_choose_backend (const char         *name,
                                               AssaySandboxImage  *image,
                                               AssaySandboxSpec   *spec,
                                               GError            **error);

/* fprintf for text that carries what came from outside (the model, the sandbox, a session
 * record, a server): the whole line is written without terminal escapes (OSC 52 clipboard,
 * OSC 8 links, titles, clear-screen) or other controls but tab, newline and return. */
void assay_cli_print (FILE       *stream,
                      const char *format,
                      ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
