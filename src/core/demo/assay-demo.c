/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Demo"

#include "config.h"

#include "assay-demo.h"

char *
assay_demo_find_file (const char *name)
{
  const char *env = g_getenv ("ASSAY_DEMO_DIR");

  g_return_val_if_fail (name != NULL, NULL);

  if (env != NULL && *env != '\0')
    return g_build_filename (env, name, NULL);
#ifdef ASSAY_BUILD_DEMO_DIR
  /* A build's own files first, as the sandbox's recipe is taken from the source tree: an
   * uninstalled build does not use another version's installed demo. */
  {
    g_autofree char *built = g_build_filename (ASSAY_BUILD_DEMO_DIR, name, NULL);

    if (g_file_test (built, G_FILE_TEST_IS_REGULAR))
      return g_steal_pointer (&built);
  }
#endif
  return g_build_filename (ASSAY_PKGDATADIR, "demo", name, NULL);
}

const char *
assay_demo_question (void)
{
  return "Analyse Q3 sales: check the structure, clean the data, show the monthly dynamics, "
         "an ABC analysis, the conversion funnel, and make a PDF report.";
}
