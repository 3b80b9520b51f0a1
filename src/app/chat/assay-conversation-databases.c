/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The session's databases, as `assay-cli ask --db` wires them: each an AssayConnection in the
 * "connections" list (which the data page binds to) holding its AssaySource. A connection the
 * connect dialog tested joins the session here: recorded without its password, the password
 * kept in the keyring under the connection's URL. A session opened again lists its recorded
 * databases and connects each in a worker with the password from the keyring. Before each
 * question the prepare job (assay-conversation-privacy.c) describes them for the model under
 * the session's mode and hands them to the agent, so run_sql reaches them. */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-conversation-private.h"
#include "assay-keyring.h"
#include "assay-source-url.h"

/* ---- the list --------------------------------------------------------------------------- */

GListModel *
assay_conversation_get_connections (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  return G_LIST_MODEL (self->connections);
}

AssayConnection *
assay_conversation_find_connection (AssayConversation *self,
                                    const char        *name)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), NULL);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->connections)); i++)
    {
      g_autoptr(AssayConnection) connection = g_list_model_get_item (G_LIST_MODEL (self->connections), i);

      if (g_strcmp0 (assay_connection_get_name (connection), name) == 0)
        return connection; /* the list holds it */
    }
  return NULL;
}

static gboolean
assay_conversation_find_connection_position (AssayConversation *self,
                                             const char        *name,
                                             guint             *position)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->connections)); i++)
    {
      g_autoptr(AssayConnection) connection = g_list_model_get_item (G_LIST_MODEL (self->connections), i);

      if (g_strcmp0 (assay_connection_get_name (connection), name) == 0)
        {
          *position = i;
          return TRUE;
        }
    }
  return FALSE;
}

AssaySource *
assay_conversation_find_source (AssayConversation *self,
                                const char        *name)
{
  AssayConnection *connection = assay_conversation_find_connection (self, name);

  if (connection == NULL || assay_connection_get_status (connection) != ASSAY_CONNECTION_CONNECTED)
    return NULL;
  return assay_connection_get_source (connection);
}

gboolean
assay_conversation_get_connecting (AssayConversation *self)
{
  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->connections)); i++)
    {
      g_autoptr(AssayConnection) connection = g_list_model_get_item (G_LIST_MODEL (self->connections), i);

      if (assay_connection_get_status (connection) == ASSAY_CONNECTION_CONNECTING)
        return TRUE;
    }
  return FALSE;
}

/* ---- connecting --------------------------------------------------------------------------- */

/* One connection being connected: the conversation may be gone by the time it answers, and
 * the session changed (the cancellable then says so). */
typedef struct
{
  GWeakRef         conversation;
  AssayConnection *connection;
  GCancellable    *cancellable;
} ConnectData;

static ConnectData *
assay_conversation_connect_data_new (AssayConversation *self,
                                     AssayConnection   *connection)
{
  ConnectData *data = g_new0 (ConnectData, 1);

  g_weak_ref_init (&data->conversation, self);
  data->connection = g_object_ref (connection);
  data->cancellable = g_object_ref (self->connections_cancellable);
  return data;
}

static void
assay_conversation_connect_data_free (ConnectData *data)
{
  g_weak_ref_clear (&data->conversation);
  g_clear_object (&data->connection);
  g_clear_object (&data->cancellable);
  g_free (data);
}

/* A question that waited for the connections goes on once none is still connecting. */
static void
assay_conversation_connection_settled (AssayConversation *self)
{
  if (!self->question_waits_connections || assay_conversation_get_connecting (self))
    return;
  self->question_waits_connections = FALSE;
  if (self->busy && self->agent != NULL && !self->closing)
    assay_conversation_prepare_question (self);
}

static void
assay_conversation_source_opened_cb (GObject      *source,
                                     GAsyncResult *result,
                                     gpointer      user_data)
{
  ConnectData *data = user_data;
  g_autoptr(AssayConversation) self = g_weak_ref_get (&data->conversation);
  g_autoptr(GError) error = NULL;
  gboolean opened = assay_source_open_finish (ASSAY_SOURCE (source), result, &error);

  /* Another session came meanwhile, or this connection was edited or removed. */
  if (self == NULL || g_cancellable_is_cancelled (data->cancellable) ||
      assay_connection_get_source (data->connection) != ASSAY_SOURCE (source))
    goto out;
  if (opened)
    assay_connection_set_status (data->connection, ASSAY_CONNECTION_CONNECTED, NULL);
  else
    assay_connection_set_status (data->connection, ASSAY_CONNECTION_FAILED, error->message);
  assay_conversation_connection_settled (self);

out:
  assay_conversation_connect_data_free (data);
}

static void
assay_conversation_open_connection (AssayConversation *self,
                                    AssayConnection   *connection)
{
  assay_connection_set_status (connection, ASSAY_CONNECTION_CONNECTING, NULL);
  assay_source_open_async (assay_connection_get_source (connection), self->connections_cancellable,
                           assay_conversation_source_opened_cb,
                           assay_conversation_connect_data_new (self, connection));
}

/* A recorded database: its source made from the record's URL, with the keyring's password. */
static void
assay_conversation_password_found_cb (GObject      *object,
                                      GAsyncResult *result,
                                      gpointer      user_data)
{
  ConnectData *data = user_data;
  g_autoptr(AssayConversation) self = g_weak_ref_get (&data->conversation);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySource) source = NULL;
  char *password = assay_keyring_lookup_password_finish (result, &error);

  if (self == NULL || g_cancellable_is_cancelled (data->cancellable) ||
      assay_connection_get_source (data->connection) != NULL)
    goto out;
  /* No keyring, or nothing in it: the client library's own files may still know it. */
  if (error != NULL)
    g_debug ("no password from the keyring for %s: %s", assay_connection_get_url (data->connection),
             error->message);
  g_clear_error (&error);
  source = assay_source_new (assay_connection_get_name (data->connection),
                             assay_connection_get_url (data->connection), &error);
  if (source == NULL)
    {
      assay_connection_set_status (data->connection, ASSAY_CONNECTION_FAILED, error->message);
      assay_conversation_connection_settled (self);
      goto out;
    }
  assay_source_set_password (source, password);
  assay_source_set_tables (source, assay_connection_get_tables (data->connection));
  /* A login the analyst let in earlier, under their seal, as long as it can do no more. */
  assay_session_apply_recorded_risk (self->session, source);
  assay_connection_set_source (data->connection, source);
  assay_conversation_open_connection (self, data->connection);

out:
  secret_password_free (password);
  assay_conversation_connect_data_free (data);
}

void
assay_conversation_load_connections (AssayConversation *self)
{
  GPtrArray *recorded;

  g_cancellable_cancel (self->connections_cancellable);
  g_clear_object (&self->connections_cancellable);
  self->connections_cancellable = g_cancellable_new ();
  self->question_waits_connections = FALSE;
  g_list_store_remove_all (self->connections);
  if (self->session == NULL)
    return;

  recorded = assay_session_get_sources (self->session);
  for (guint i = 0; i < recorded->len; i++)
    {
      const AssaySessionSource *source = g_ptr_array_index (recorded, i);
      g_autoptr(AssayConnection) connection = NULL;
      g_autoptr(AssaySourceUrl) url = assay_source_url_parse (source->url, NULL);

      connection = assay_connection_new (source->name, url != NULL ? url->kind : ASSAY_SOURCE_POSTGRESQL,
                                         source->url, (const char * const *) source->tables);
      assay_connection_set_status (connection, ASSAY_CONNECTION_CONNECTING, NULL);
      g_list_store_append (self->connections, connection);
      assay_keyring_lookup_password_async (source->url, self->connections_cancellable,
                                           assay_conversation_password_found_cb,
                                           assay_conversation_connect_data_new (self, connection));
    }
}

/* ---- the analyst's changes ---------------------------------------------------------------- */

static void
assay_conversation_password_stored_cb (GObject      *object,
                                       GAsyncResult *result,
                                       gpointer      user_data)
{
  g_autoptr(AssayConversation) self = g_weak_ref_get (user_data);
  g_autoptr(GError) error = NULL;

  g_weak_ref_clear (user_data);
  g_free (user_data);
  if (assay_keyring_store_password_finish (result, &error))
    return;
  if (self != NULL && !self->closing && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The password could not be kept in the keyring, so it will be "
                                                 "asked for when the session is opened again: %s"),
                                               error->message);

      g_signal_emit_by_name (self, "error", text);
    }
}

gboolean
assay_conversation_add_source (AssayConversation  *self,
                               AssaySource        *source,
                               const char         *password,
                               GError            **error)
{
  AssayConnection *connection;
  const char *name;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (ASSAY_IS_SOURCE (source), FALSE);

  if (self->busy)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                   _("A question is in progress; connect databases once it has ended"));
      return FALSE;
    }
  if (!assay_conversation_ensure_session (self, error))
    return FALSE;

  name = assay_source_get_name (source);
  if (password != NULL && *password != '\0')
    {
      GWeakRef *ref = g_new0 (GWeakRef, 1);

      g_weak_ref_init (ref, self);
      assay_keyring_store_password_async (assay_source_get_display_url (source), password, self->cancellable,
                                          assay_conversation_password_stored_cb, ref);
    }

  connection = assay_conversation_find_connection (self, name);
  if (connection != NULL && g_strcmp0 (assay_connection_get_url (connection),
                                       assay_source_get_display_url (source)) == 0)
    {
      /* Edited: the same database, maybe other tables or another password. */
      assay_connection_set_tables (connection, assay_source_get_tables (source));
      assay_connection_set_source (connection, source);
      g_object_ref (connection);
    }
  else
    {
      guint position;

      connection = assay_connection_new (name, assay_source_get_kind (source), assay_source_get_display_url (source),
                                         assay_source_get_tables (source));
      assay_connection_set_source (connection, source);
      if (assay_conversation_find_connection_position (self, name, &position))
        g_list_store_splice (self->connections, position, 1, (gpointer *) &connection, 1);
      else
        g_list_store_append (self->connections, connection);
    }

  /* In the record at once (without a password, and without a description until the next
   * question makes one under the session's mode); the agent gets it then. */
  assay_session_record_source (self->session, source, NULL);
  assay_conversation_save (self);
  /* Tested by the dialog, so this returns at once; a source from elsewhere connects now. */
  assay_conversation_open_connection (self, connection);
  g_object_unref (connection);
  return TRUE;
}

gboolean
assay_conversation_remove_source (AssayConversation  *self,
                                  const char         *name,
                                  GError            **error)
{
  guint position;

  g_return_val_if_fail (ASSAY_IS_CONVERSATION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (self->busy)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                   _("A question is in progress; remove databases once it has ended"));
      return FALSE;
    }
  if (self->session == NULL || !assay_conversation_find_connection_position (self, name, &position))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("The session has no database %s"), name);
      return FALSE;
    }
  /* Its cells and their cached results stay with the session. */
  if (self->agent == NULL || !assay_agent_remove_source (self->agent, name))
    assay_session_remove_source (self->session, name);
  g_list_store_remove (self->connections, position);
  assay_conversation_save (self);
  return TRUE;
}

/* ---- before a question --------------------------------------------------------------------- */

void
assay_conversation_database_spec_free (DatabaseSpec *spec)
{
  g_free (spec->name);
  g_clear_object (&spec->source);
  g_free (spec->description);
  g_clear_error (&spec->error);
  g_free (spec);
}

GPtrArray *
assay_conversation_collect_databases (AssayConversation *self,
                                      const char        *key)
{
  GPtrArray *databases = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_conversation_database_spec_free);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->connections)); i++)
    {
      g_autoptr(AssayConnection) connection = g_list_model_get_item (G_LIST_MODEL (self->connections), i);
      const char *made_for = NULL;
      const char *description = assay_connection_get_description (connection, &made_for);
      DatabaseSpec *spec;

      if (assay_connection_get_status (connection) != ASSAY_CONNECTION_CONNECTED)
        continue;
      spec = g_new0 (DatabaseSpec, 1);
      spec->name = g_strdup (assay_connection_get_name (connection));
      spec->source = g_object_ref (assay_connection_get_source (connection));
      spec->describe = description == NULL || g_strcmp0 (made_for, key) != 0;
      g_ptr_array_add (databases, spec);
    }
  return databases;
}

void
assay_conversation_describe_databases (GPtrArray        *databases,
                                       AssayMasker      *masker,
                                       AssayPrivacyMode  mode,
                                       GCancellable     *cancellable)
{
  gboolean schema_only = mode == ASSAY_PRIVACY_SCHEMA;

  for (guint i = 0; i < databases->len; i++)
    {
      DatabaseSpec *spec = g_ptr_array_index (databases, i);
      g_autoptr(AssaySourceSchema) schema = NULL;

      if (!spec->describe)
        continue;
      /* Schema-only mode: not one sample value is read. */
      schema = assay_source_describe_sync (spec->source, schema_only ? 0 : ASSAY_SCHEMA_DEFAULT_SAMPLES,
                                           cancellable, &spec->error);
      if (schema != NULL)
        spec->description = assay_source_schema_describe (schema, spec->name, assay_source_get_kind (spec->source),
                                                          mode == ASSAY_PRIVACY_FULL ? NULL : masker, schema_only,
                                                          ASSAY_SCHEMA_DEFAULT_BUDGET);
    }
}

void
assay_conversation_apply_databases (AssayConversation *self,
                                    GPtrArray         *databases,
                                    const char        *key)
{
  for (guint i = 0; i < databases->len; i++)
    {
      DatabaseSpec *spec = g_ptr_array_index (databases, i);
      AssayConnection *connection = assay_conversation_find_connection (self, spec->name);
      const char *description;

      /* Removed or replaced meanwhile (not while busy, but a session may have come). */
      if (connection == NULL || assay_connection_get_source (connection) != spec->source)
        continue;
      if (spec->error != NULL)
        {
          g_autofree char *text = g_strdup_printf (_("The database %s is left out of this question: %s"),
                                                   spec->name, spec->error->message);

          assay_connection_set_status (connection, ASSAY_CONNECTION_FAILED, spec->error->message);
          g_signal_emit_by_name (self, "error", text);
          continue;
        }
      if (spec->describe)
        assay_connection_set_description (connection, spec->description, key);
      description = assay_connection_get_description (connection, NULL);
      /* The agent is told once, and again when the description changed. */
      if (assay_agent_get_source (self->agent, spec->name) != spec->source || spec->describe)
        assay_agent_add_source (self->agent, spec->source, description);
    }
}

void
assay_conversation_init_databases (AssayConversation *self)
{
  self->connections = g_list_store_new (ASSAY_TYPE_CONNECTION);
  self->connections_cancellable = g_cancellable_new ();
}
