/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "assay-cli.h"
#include "assay-kernel-channel.h"

static void
assay_cli_usage (FILE *out)
{
  fprintf (out,
           _("Usage: assay-cli COMMAND [OPTIONS]\n"
           "\n"
           "Commands:\n"
           "  ask [OPTIONS] QUESTION      ask the model; it answers by running Python in the sandbox\n"
           "  demo [--out DIR] [--json]   the recorded demo on a sample sales CSV, its code run for real\n"
           "  exec [OPTIONS] CELL.py...   run files as successive cells of one sandboxed session\n"
           "  export SESSION_DIR -o FILE  a session as a report, a notebook, a workbook or a bundle\n"
           "  rerun SESSION_DIR --data NAME=FILE...   its approved cells again on new data, no model\n"
           "  sandbox build [--backend docker|bwrap|all]   prepare the sandbox image\n"
           "  sandbox status [--json]     say which sandbox backends work here, and why not\n"
           "  session list|show|rename|delete   saved sessions (see “assay-cli session --help”)\n"
           "  inspect [--json] FILE...    read data files: dialect, schema, profile, read_csv call\n"
           "  inspect --db URL            a database's schema, as the model reads it\n"
           "\n"
           "Run “assay-cli COMMAND --help” for a command's options.\n"));
}

void
assay_cli_print (FILE       *stream,
                 const char *format,
                 ...)
{
  g_autofree char *text = NULL;
  g_autofree char *safe = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  safe = assay_sanitize_text (text, -1);
  fputs (safe, stream);
}

int
main (int   argc,
      char *argv[])
{
  const char *localedir = g_getenv ("ASSAY_LOCALEDIR");

  setlocale (LC_ALL, "");
  /* ASSAY_LOCALEDIR lets the tests use the catalogs compiled in the build tree. */
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL && *localedir != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      assay_cli_usage (stderr);
      return 2;
    }

  if (g_str_equal (argv[1], "ask"))
    return assay_cli_ask (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "session"))
    return assay_cli_session (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "exec"))
    return assay_cli_exec (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "inspect"))
    return assay_cli_inspect (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "export"))
    return assay_cli_export (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "sandbox"))
    return assay_cli_sandbox (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "rerun"))
    return assay_cli_rerun (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "demo"))
    return assay_cli_demo (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "help"))
    {
      assay_cli_usage (stdout);
      return 0;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      printf ("assay-cli %s\n", PACKAGE_VERSION);
      return 0;
    }

  fprintf (stderr, _("assay-cli: unknown command “%s”\n"), argv[1]);
  assay_cli_usage (stderr);
  return 2;
}
