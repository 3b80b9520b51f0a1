/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `assay-cli export`: a session as a PDF report, an HTML page, a Jupyter notebook, an Excel
 * workbook or a reproducible bundle. */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include <stdio.h>
#include <string.h>

#include "assay-cli.h"
#include "assay-report.h"
#include "assay-session.h"

static void
assay_cli_export_progress_cb (double      fraction,
                              const char *message,
                              gpointer    user_data)
{
  if (*(gboolean *) user_data)
    fprintf (stderr, "%3.0f%% %s\n", fraction * 100, message);
}

int
assay_cli_export (int   argc,
                  char *argv[])
{
  g_autofree char *format_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *title = NULL;
  g_auto(GStrv) rest = NULL;
  gboolean only_successful = FALSE, no_code = FALSE, with_requests = FALSE, verbose = FALSE;
  gboolean with_data = FALSE;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, NULL, "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write to FILE"), "FILE" },
    { "only-successful", 0, 0, G_OPTION_ARG_NONE, &only_successful,
      N_("Leave out the steps that failed"), NULL },
    { "no-code", 0, 0, G_OPTION_ARG_NONE, &no_code,
      N_("Leave out the code (a notebook keeps it, folded away)"), NULL },
    { "with-requests", 0, 0, G_OPTION_ARG_NONE, &with_requests,
      N_("End with what was sent to the model: every request the session recorded, what it added"), NULL },
    { "with-data", 0, 0, G_OPTION_ARG_NONE, &with_data,
      N_("Put the datasets in the bundle (bundle only)"), NULL },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title, N_("The report's title (default: the session's)"), "TITLE" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, N_("Say how far the export is"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (N_("SESSION_DIR -o FILE — export a session as a report or a notebook"));
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = NULL;
  g_autofree char *names = assay_report_format_list (FALSE, ", ");
  g_autofree char *extensions = assay_report_format_list (TRUE, ", ");
  g_autofree char *format_help = NULL;
  AssayReportOptions options;
  gint64 start;

  /* The report's format table names them. */
  format_help = g_strdup_printf (_("One of %s (default: from the extension of FILE)"), names);
  entries[0].description = format_help;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    N_("Exit status: 0 written, 1 the session cannot be read or the file cannot be written, 2 usage."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      assay_cli_print (stderr, "assay-cli export: %s\n", error->message);
      return 2;
    }
  if (rest == NULL || rest[0] == NULL || rest[1] != NULL)
    {
      fprintf (stderr,
               _("assay-cli export: give one session folder (assay-cli export SESSION_DIR -o FILE)\n"));
      return 2;
    }
  if (output == NULL)
    {
      fprintf (stderr, _("assay-cli export: say where to write the export with -o FILE\n"));
      return 2;
    }

  assay_report_options_init (&options);
  if (format_name)
    {
      options.format = assay_report_format_lookup (format_name);
      if (options.format == NULL)
        {
          fprintf (stderr, _("assay-cli export: unknown format “%s” (one of %s)\n"), format_name, names);
          return 2;
        }
    }
  else if ((options.format = assay_report_format_for_path (output)) == NULL)
    {
      fprintf (stderr, _("assay-cli export: cannot tell the format from “%s”: "
                         "name it %s, or give --format\n"), output, extensions);
      return 2;
    }
  options.include_code = !no_code;
  options.only_successful = only_successful;
  options.include_requests = with_requests;
  options.include_data = with_data;
  options.title = title;

  session = assay_session_load (rest[0], &error);
  if (session == NULL)
    {
      assay_cli_print (stderr, "assay-cli export: %s\n", error->message);
      return 1;
    }

  start = g_get_monotonic_time ();
  if (!assay_report_export (session, &options, output, assay_cli_export_progress_cb, &verbose, NULL, &error))
    {
      assay_cli_print (stderr, "assay-cli export: %s\n", error->message);
      return 1;
    }
  if (verbose)
    fprintf (stderr, _("Wrote %s (%s) in %.0f ms\n"), output, assay_report_format_get_name (options.format),
             (g_get_monotonic_time () - start) / 1000.0);
  options.title = NULL;
  return 0;
}
