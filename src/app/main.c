/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "assay-application.h"

/* GTK 4.8 sets OpenGL up as it opens the display, to pick the window's visual, whatever
 * renderer then draws: Mesa and llvmpipe's LLVM were loaded and linked at every start, a
 * fifth of it. With the cairo renderer nothing draws with GL, so GDK is told to leave it
 * ("gl-disable", a key of GDK_DEBUG that release builds honour, added to the user's own).
 * Measured on GTK 4.8; later versions, whose keys moved, are left as they are. */
static void
assay_skip_gl_for_cairo (void)
{
  const char *debug = g_getenv ("GDK_DEBUG");
  g_autofree char *keys = NULL;

  if (g_strcmp0 (g_getenv ("GSK_RENDERER"), "cairo") != 0 ||
      gtk_get_major_version () != 4 || gtk_get_minor_version () >= 10)
    return;
  keys = debug != NULL && *debug != '\0' ? g_strconcat (debug, ",gl-disable", NULL) : g_strdup ("gl-disable");
  g_setenv ("GDK_DEBUG", keys, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AssayApplication) application = NULL;
  const char *localedir = g_getenv ("ASSAY_LOCALEDIR");

  assay_skip_gl_for_cairo ();
  setlocale (LC_ALL, "");
  /* ASSAY_LOCALEDIR lets the tests use the catalogs compiled in the build tree. */
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL && *localedir != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  application = assay_application_new ();
  return g_application_run (G_APPLICATION (application), argc, argv);
}
