/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-keyring.h"

const SecretSchema *
assay_keyring_get_schema (void)
{
  static const SecretSchema schema = {
    "org.assay.Assay.ApiKey", SECRET_SCHEMA_NONE,
    {
      { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "base-url", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
  };
  return &schema;
}

void
assay_keyring_store_async (const char          *provider,
                           const char          *base_url,
                           const char          *key,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autofree char *label = NULL;

  g_return_if_fail (provider != NULL);
  g_return_if_fail (key != NULL);

  label = base_url && *base_url
    ? g_strdup_printf (_("Assay: API key for %s at %s"), provider, base_url)
    : g_strdup_printf (_("Assay: API key for %s"), provider);
  secret_password_store (assay_keyring_get_schema (), SECRET_COLLECTION_DEFAULT, label, key,
                         cancellable, callback, user_data,
                         "provider", provider,
                         "base-url", base_url ? base_url : "",
                         NULL);
}

gboolean
assay_keyring_store_finish (GAsyncResult  *result,
                            GError       **error)
{
  return secret_password_store_finish (result, error);
}

void
assay_keyring_lookup_async (const char          *provider,
                            const char          *base_url,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (provider != NULL);
  secret_password_lookup (assay_keyring_get_schema (), cancellable, callback, user_data,
                          "provider", provider,
                          "base-url", base_url ? base_url : "",
                          NULL);
}

char *
assay_keyring_lookup_finish (GAsyncResult  *result,
                             GError       **error)
{
  return secret_password_lookup_finish (result, error);
}

const SecretSchema *
assay_keyring_get_database_schema (void)
{
  static const SecretSchema schema = {
    "org.assay.Assay.Database", SECRET_SCHEMA_NONE,
    {
      { "url", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
  };
  return &schema;
}

void
assay_keyring_store_password_async (const char          *url,
                                    const char          *password,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autofree char *label = NULL;

  g_return_if_fail (url != NULL);
  g_return_if_fail (password != NULL);

  /* Translators: the keyring item's name, with the database's URL (no password in it). */
  label = g_strdup_printf (_("Assay: database password for %s"), url);
  secret_password_store (assay_keyring_get_database_schema (), SECRET_COLLECTION_DEFAULT, label, password,
                         cancellable, callback, user_data,
                         "url", url,
                         NULL);
}

gboolean
assay_keyring_store_password_finish (GAsyncResult  *result,
                                     GError       **error)
{
  return secret_password_store_finish (result, error);
}

void
assay_keyring_lookup_password_async (const char          *url,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_return_if_fail (url != NULL);
  secret_password_lookup (assay_keyring_get_database_schema (), cancellable, callback, user_data,
                          "url", url,
                          NULL);
}

char *
assay_keyring_lookup_password_finish (GAsyncResult  *result,
                                      GError       **error)
{
  return secret_password_lookup_finish (result, error);
}
