/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "assay-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AssayApplication) application = NULL;

  setlocale (LC_ALL, "");
#if defined(GETTEXT_PACKAGE) && defined(LOCALEDIR)
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
#endif

  application = assay_application_new ();
  return g_application_run (G_APPLICATION (application), argc, argv);
}
