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
int assay_cli_demo    (int argc, char **argv);

/* Picks the backend: NAME when given ("docker" or "bwrap"), else Docker or Podman when one
 * answers and has the image, else bubblewrap, said on stderr when an engine was named
 * (DOCKER_HOST) or found but cannot be used. Fills the spec's image fields. */
AssaySandboxBackend *assay_cli_choose_backend (const char         *name,
                                               AssaySandboxImage  *image,
                                               AssaySandboxSpec   *spec,
                                               GError            **error);

/* How `rerun --repair` makes its agent, the way `ask` does. */
typedef struct
{
  const char *provider;     /* NULL: the session's, else openai */
  const char *base_url;
  const char *api;          /* OpenAI's API: responses, chat, or NULL/auto (by the server) */
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

/* Databases (assay-cli-db.c). The exit status of a command whose database cannot be reached
 * or refuses the login. */
#define ASSAY_CLI_EXIT_DATABASE 7

/* The AssaySource* of each --db NAME=URL, with the --db-tables NAME=T1,T2 picks and the
 * limits (0: the defaults); G_OPTION_ERROR or ASSAY_SOURCE_ERROR_URL for a bad one. */
GPtrArray   *assay_cli_db_make_sources      (char             **specs,
                                             char             **table_specs,
                                             int                timeout_s,
                                             gint64             max_rows,
                                             GError           **error);
/* Opens each (a test of the connection), saying so on stderr. */
/* Adds to SOURCES each database SESSION recorded that a successful SQL cell queried and that
 * SOURCES does not name yet, at its recorded URL (its password from the environment, .pgpass
 * or an option file). */
gboolean     assay_cli_db_add_recorded      (GPtrArray         *sources,
                                             AssaySession      *session,
                                             int                timeout_seconds,
                                             gint64             max_rows,
                                             GError           **error);
gboolean     assay_cli_db_connect           (GPtrArray         *sources,
                                             GError           **error);
/* --db-accept-risk NAME: database NAME's login may connect although it can do more than
 * read. G_OPTION_ERROR for a NAME not given to --db. */
gboolean     assay_cli_db_accept_risk       (GPtrArray         *sources,
                                             char             **names,
                                             GError           **error);
/* Each of SOURCES that SESSION recorded under its name and URL connects with the powers the
 * analyst accepted then (under their seal). */
void         assay_cli_db_apply_recorded_risk (GPtrArray       *sources,
                                               AssaySession    *session);
AssaySource *assay_cli_db_find              (GPtrArray         *sources,
                                             const char        *name);
/* --mask NAME.TABLE:COLUMN for a --db NAME. */
gboolean     assay_cli_db_parse_mask        (GPtrArray         *sources,
                                             const char        *spec,
                                             char             **dataset,
                                             char             **column);
/* The session's masked database columns, their distinct values read into MASKER. */
gboolean     assay_cli_db_mask_columns      (AssaySession      *session,
                                             GPtrArray         *sources,
                                             AssayMasker       *masker,
                                             GError           **error);
/* Whether DATASET (of a masked column) names a table of a database: one of SOURCES (may be
 * NULL) or one the session recorded. */
gboolean     assay_cli_db_is_masked_dataset (AssaySession      *session,
                                             GPtrArray         *sources,
                                             const char        *dataset);
/* The schema as the model reads it in MODE (samples masked, none in schema-only mode). */
char        *assay_cli_db_describe          (AssaySource       *source,
                                             AssayPrivacyMode   mode,
                                             AssayMasker       *masker,
                                             gsize              budget,
                                             GError           **error);
/* 2 for a bad URL or table, else ASSAY_CLI_EXIT_DATABASE. */
int          assay_cli_db_exit_code         (const GError      *error);
int          assay_cli_inspect_db           (const char        *url,
                                             const char        *tables,
                                             gboolean           json,
                                             int                model_chars,
                                             gboolean           schema_only,
                                             gboolean           accept_risk);

/* fprintf for text that carries what came from outside (the model, the sandbox, a session
 * record, a server): the whole line is written without terminal escapes (OSC 52 clipboard,
 * OSC 8 links, titles, clear-screen) or other controls but tab, newline and return. */
void assay_cli_print (FILE       *stream,
                      const char *format,
                      ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
