/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <stdio.h>

#include "assay-agent.h"
#include "assay-kernel-session.h"
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

/* How `rerun --repair` makes its agent, the way `ask` does. */
typedef struct
{
  const char *provider;     /* NULL: the session's, else openai */
  const char *base_url;
  const char *transcript;   /* --provider recorded */
  const char *model;        /* NULL: the session's */
  guint       max_steps;    /* 0: the default */
  gboolean    yes;          /* run the model's cells without asking */
  double      budget;       /* US dollars, 0: none */
} AssayCliAgentSettings;

/* An agent on SESSION and KERNEL set up as `ask` sets one up: provider, model, approval on
 * the terminal (or none with YES), the session's masked columns, prices and budget; what it
 * does is printed on stderr. NULL with ERROR when the provider cannot be made. */
AssayAgent *assay_cli_make_agent (AssaySession                *session,
                                  AssayKernelSession          *kernel,
                                  const AssayCliAgentSettings *settings,
                                  GError                     **error);

/* "What changed:" and a table of CHANGES (AssaySessionChange*) on stdout; nothing when empty. */
void assay_cli_print_changes (GPtrArray *changes);

/* fprintf for text that carries what came from outside (the model, the sandbox, a session
 * record, a server): the whole line is written without terminal escapes (OSC 52 clipboard,
 * OSC 8 links, titles, clear-screen) or other controls but tab, newline and return. */
void assay_cli_print (FILE       *stream,
                      const char *format,
                      ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
