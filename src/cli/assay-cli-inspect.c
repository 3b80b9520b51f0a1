/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include <stdio.h>

#include "assay-cli.h"
#include "assay-data-text.h"
#include "assay-dataset.h"

int
assay_cli_inspect (int   argc,
                   char *argv[])
{
  g_auto(GStrv) files = NULL;
  gboolean json = FALSE;
  int model_chars = 0;
  g_autofree char *db_url = NULL;
  g_autofree char *db_tables = NULL;
  gboolean schema_only = FALSE;
  gboolean accept_risk = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON object per file (an array for several)"), NULL },
    { "model", 0, 0, G_OPTION_ARG_INT, &model_chars, N_("Print the summary the model gets, in at most N characters"), "N" },
    { "db", 0, 0, G_OPTION_ARG_STRING, &db_url, N_("Describe a database instead, as the model reads it (the URL's password is never printed)"), "URL" },
    { "db-tables", 0, 0, G_OPTION_ARG_STRING, &db_tables, N_("With --db: only these tables and views"), "T1,T2" },
    { "schema-only", 0, 0, G_OPTION_ARG_NONE, &schema_only, N_("With --db: no sample values, as in schema-only mode"), NULL },
    { "accept-risk", 0, 0, G_OPTION_ARG_NONE, &accept_risk, N_("With --db: connect although the login can do more than read"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("FILE… — read data files: dialect, schema and profile"));
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) results = json_array_new ();
  guint n_files;
  int status = 0;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Exit status: 0 read; 1 a file cannot be read; 2 usage (a bad option or URL, a table that is\n"
      "not there); 7 the --db database cannot be reached, refused the login, or the login can do\n"
      "more than read (--accept-risk to use it anyway).\n"
      "\n"
      "--db URL: postgresql://…, mysql://…, mariadb://… or sqlite:///path/file.db. Passwords come\n"
      "from PGPASSWORD, ~/.pgpass, MYSQL_PWD or ~/.my.cnf; one written in the URL is used, never shown."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "assay-cli inspect: %s\n", error->message);
      return 2;
    }
  if (db_url != NULL)
    {
      if (files != NULL && files[0] != NULL)
        {
          fprintf (stderr, _("assay-cli inspect: give --db or files, not both\n"));
          return 2;
        }
      return assay_cli_inspect_db (db_url, db_tables, json, model_chars, schema_only, accept_risk);
    }
  if (files == NULL || files[0] == NULL)
    {
      fprintf (stderr, _("assay-cli inspect: no file given\n"));
      return 2;
    }
  n_files = g_strv_length (files);

  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr(AssayDataset) dataset = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *shown = assay_data_sanitize (files[i], -1, 0);

      dataset = assay_dataset_open (files[i], NULL, &local_error);
      if (dataset == NULL)
        {
          g_autofree char *reason = assay_data_sanitize (local_error->message, -1, 0);
          assay_cli_print (stderr, "assay-cli inspect: %s: %s\n", shown, reason);
          status = 1;
          continue;
        }
      if (json)
        json_array_add_object_element (results, assay_dataset_to_json (dataset));
      else
        {
          g_autofree char *text = model_chars > 0
                                    ? assay_dataset_describe_for_model (dataset, model_chars)
                                    : assay_dataset_describe_for_human (dataset);
          printf ("%s%s", i > 0 ? "\n" : "", text);
        }
    }

  if (json && (n_files > 1 || json_array_get_length (results) == 1))
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
      g_autofree char *text = NULL;

      if (n_files == 1)
        node = (json_node_unref (node),
                json_node_init_object (json_node_alloc (), json_array_get_object_element (results, 0)));
      else
        json_node_set_array (node, results);
      text = json_to_string (node, TRUE);
      printf ("%s\n", text);
    }
  fflush (stdout);
  return status;
}
