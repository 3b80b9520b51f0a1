/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What several parts of the window read the same way: the sandbox the settings ask for, and
 * the files the app opens as data. */
#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-settings.h"
#include "assay-keyring.h"
#include "assay-llm-provider.h"
#include "assay-model-choice.h"

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

static void
assay_app_e2b_key_found_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AssayE2bSettings *e2b = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  char *key = assay_keyring_lookup_finish (result, &error);

  if (error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  e2b->api_key = g_strdup (key);
  secret_password_free (key);
  g_task_return_pointer (task, assay_e2b_settings_copy (e2b), (GDestroyNotify) assay_e2b_settings_free);
}

void
assay_app_e2b_settings_lookup_async (GSettings           *settings,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  AssayE2bSettings *e2b = g_new0 (AssayE2bSettings, 1);

  g_task_set_source_tag (task, assay_app_e2b_settings_lookup_async);
  e2b->domain = g_settings_get_string (settings, "e2b-domain");
  e2b->template_id = g_settings_get_string (settings, "e2b-template");
  g_strstrip (e2b->domain);
  g_strstrip (e2b->template_id);
  g_task_set_task_data (task, e2b, (GDestroyNotify) assay_e2b_settings_free);
  assay_keyring_lookup_async ("e2b", e2b->domain, cancellable, assay_app_e2b_key_found_cb, task);
}

AssayE2bSettings *
assay_app_e2b_settings_lookup_finish (GAsyncResult  *result,
                                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
assay_app_settings_speak_responses (GSettings *settings)
{
  g_autofree char *provider = g_settings_get_string (settings, "provider");
  g_autofree char *base_url = NULL;
  g_autofree char *api = NULL;
  g_autoptr(AssayLlmProvider) llm = NULL;
  const char *server;

  if (!g_str_equal (provider, "openai"))
    return FALSE;
  base_url = g_settings_get_string (settings, "base-url");
  api = g_settings_get_string (settings, "openai-api");
  server = *base_url != '\0' ? base_url : assay_model_choice_get_cloud_base_url (provider);
  llm = assay_llm_provider_new_for_name_and_api ("openai", server, NULL, api, NULL);
  return llm != NULL && g_strcmp0 (assay_llm_provider_get_wire_format (llm), "responses") == 0;
}
