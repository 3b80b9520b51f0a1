/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What several parts of the window read the same way: the sandbox the settings ask for, and
 * the files the app opens as data. */
#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-settings.h"

AssaySandboxSpec *
assay_app_sandbox_spec_new (GSettings *settings)
{
  AssaySandboxSpec *spec = assay_sandbox_spec_new ();

  spec->limits.memory_bytes = (guint64) g_settings_get_uint (settings, "memory-mb") * 1024 * 1024;
  spec->limits.cpus = g_settings_get_double (settings, "cpus");
  spec->limits.timeout_ms = g_settings_get_uint (settings, "cell-timeout") * 1000;
  return spec;
}

void
assay_app_add_data_filter (GtkFileChooser *chooser)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Tables and SQLite databases (CSV, TSV, TXT, XLSX, DB, SQLite)"));
  gtk_file_filter_add_suffix (filter, "csv");
  gtk_file_filter_add_suffix (filter, "tsv");
  gtk_file_filter_add_suffix (filter, "txt");
  gtk_file_filter_add_suffix (filter, "xlsx");
  gtk_file_filter_add_suffix (filter, "db");
  gtk_file_filter_add_suffix (filter, "db3");
  gtk_file_filter_add_suffix (filter, "sqlite");
  gtk_file_filter_add_suffix (filter, "sqlite3");
  gtk_file_filter_add_mime_type (filter, "application/vnd.sqlite3");
  gtk_file_filter_add_mime_type (filter, "application/x-sqlite3");
  gtk_file_chooser_add_filter (chooser, filter);
}
