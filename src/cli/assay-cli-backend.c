/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-cli.h"
#include "assay-sandbox-choice.h"

AssaySandboxBackend *
assay_cli_choose_backend (const char         *name,
                          AssaySandboxImage  *image,
                          AssaySandboxSpec   *spec,
                          GError            **error)
{
  g_autofree char *reason = NULL;
  gboolean fell_back = FALSE;
  AssaySandboxBackend *backend;

  backend = assay_sandbox_choose_backend_full (name, image, spec, &reason, &fell_back, error);
  /* An engine was named or is here but cannot be used: the cells run elsewhere than the
   * user may think, so say where and why (--backend docker refuses instead). */
  if (backend != NULL && fell_back)
    assay_cli_print (stderr, _("assay-cli: the sandbox runs on %s (use --backend docker to refuse "
                               "instead, or --backend bwrap to choose bubblewrap)\n"), reason);
  return backend;
}
