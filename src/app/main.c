/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "assay-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AssayApplication) application = NULL;
  const char *localedir = g_getenv ("ASSAY_LOCALEDIR");

  setlocale (LC_ALL, "");
  /* ASSAY_LOCALEDIR lets the tests use the catalogs compiled in the build tree. */
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL && *localedir != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  application = assay_application_new ();
  return g_application_run (G_APPLICATION (application), argc, argv);
}
