/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include "assay-cli.h"
#include "assay-sandbox-choice.h"

AssaySandboxBackend *
assay_cli_choose_backend (const char         *name,
                          AssaySandboxImage  *image,
                          AssaySandboxSpec   *spec,
                          GError            **error)
{
  return assay_sandbox_choose_backend (name, image, spec, NULL, error);
}
