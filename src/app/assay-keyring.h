/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <libsecret/secret.h>

G_BEGIN_DECLS

/* API keys live in the desktop keyring (libsecret), never in GSettings or a session file:
 * schema "org.assay.Assay.ApiKey", attributes provider ("openai", "anthropic") and base-url
 * ("" for the vendor's own server). */
const SecretSchema *assay_keyring_get_schema   (void);
void                assay_keyring_store_async  (const char          *provider,
                                                const char          *base_url,
                                                const char          *key,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean            assay_keyring_store_finish (GAsyncResult        *result,
                                                GError             **error);
void                assay_keyring_lookup_async (const char          *provider,
                                                const char          *base_url,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
/* The key, or NULL (and no error) when none is stored. Free with secret_password_free. */
char               *assay_keyring_lookup_finish (GAsyncResult       *result,
                                                 GError            **error);

/* Database passwords, the same way: schema "org.assay.Assay.Database", one item per
 * connection, its attribute url the connection's URL without a password (as the session
 * records it: "postgresql://reader@db.example.com:5432/shop"). */
const SecretSchema *assay_keyring_get_database_schema   (void);
void                assay_keyring_store_password_async  (const char          *url,
                                                         const char          *password,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
gboolean            assay_keyring_store_password_finish (GAsyncResult        *result,
                                                         GError             **error);
void                assay_keyring_lookup_password_async (const char          *url,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
/* The password, or NULL (and no error) when none is stored. Free with secret_password_free. */
char               *assay_keyring_lookup_password_finish (GAsyncResult       *result,
                                                          GError            **error);

G_END_DECLS
