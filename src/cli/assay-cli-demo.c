/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `assay-cli demo`: the window's "Try the demo" on the terminal. The recorded model's words on
 * the demo's sales CSV, its code run for real in the sandbox; `setup-and-run` runs it when
 * there is no display. The demo's files come from the core (the build folder, or installed). */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-cli.h"
#include "assay-demo.h"

int
assay_cli_demo (int   argc,
                char *argv[])
{
  g_autofree char *out_dir = NULL;
  g_autofree char *backend_name = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out_dir, N_("Write the session folder to DIR (default: a new folder in ~/.local/share/assay/sessions)"), "DIR" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON object at the end (answer, status, steps, session_dir, provenance, cells)"), NULL },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_name, N_("Sandbox backend: docker or bwrap (default: docker when usable)"), "NAME" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("— the recorded demo: its code runs for real in the sandbox"));
  g_autoptr(GError) error = NULL;
  g_autofree char *transcript = assay_demo_find_file (ASSAY_DEMO_TRANSCRIPT);
  g_autofree char *dataset = assay_demo_find_file (ASSAY_DEMO_DATASET);
  g_autoptr(GPtrArray) ask_argv = g_ptr_array_new ();
  const char *missing = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "assay-cli demo: %s\n", error->message);
      return 2;
    }
  if (argc > 1)
    {
      assay_cli_print (stderr, _("assay-cli demo: unexpected argument “%s”\n"), argv[1]);
      return 2;
    }
  if (!g_file_test (transcript, G_FILE_TEST_IS_REGULAR))
    missing = transcript;
  else if (!g_file_test (dataset, G_FILE_TEST_IS_REGULAR))
    missing = dataset;
  if (missing != NULL)
    {
      assay_cli_print (stderr, _("assay-cli demo: the demo is not installed: %s is missing (build Assay, or install it)\n"),
                       missing);
      return 1;
    }

  g_ptr_array_add (ask_argv, (char *) "demo");
  g_ptr_array_add (ask_argv, (char *) "--provider=recorded");
  g_ptr_array_add (ask_argv, (char *) "--transcript");
  g_ptr_array_add (ask_argv, transcript);
  g_ptr_array_add (ask_argv, (char *) "--data");
  g_ptr_array_add (ask_argv, dataset);
  g_ptr_array_add (ask_argv, (char *) "--yes");
  if (out_dir != NULL)
    {
      g_ptr_array_add (ask_argv, (char *) "--out");
      g_ptr_array_add (ask_argv, out_dir);
    }
  if (backend_name != NULL)
    {
      g_ptr_array_add (ask_argv, (char *) "--backend");
      g_ptr_array_add (ask_argv, backend_name);
    }
  if (json)
    g_ptr_array_add (ask_argv, (char *) "--json");
  g_ptr_array_add (ask_argv, (char *) "--");
  g_ptr_array_add (ask_argv, (char *) assay_demo_question ());
  g_ptr_array_add (ask_argv, NULL);

  /* GOption may reorder or drop what it parsed: it gets a copy of the array. */
  {
    g_autofree char **copy = g_memdup2 (ask_argv->pdata, ask_argv->len * sizeof (char *));

    return assay_cli_ask (ask_argv->len - 1, copy);
  }
}
