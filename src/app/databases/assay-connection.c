/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A database of the session as the window shows it. State only: the conversation changes it,
 * the data page's rows follow its properties. */
#define G_LOG_DOMAIN "Assay-Databases"

#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "assay-connection.h"
#include "assay-source-url.h"

/* A summary names the tables picked up to this many, then counts them. */
#define MAX_TABLES_NAMED 4

struct _AssayConnection
{
  GObject                parent_instance;

  char                  *name;
  AssaySourceKind        kind;
  char                  *url;
  char                 **tables;
  AssayConnectionStatus  status;
  char                  *message;
  AssaySource           *source;
  char                  *description;
  char                  *description_key;
};

G_DEFINE_FINAL_TYPE (AssayConnection, assay_connection, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_NAME,
  PROP_KIND,
  PROP_URL,
  PROP_TABLES,
  PROP_STATUS,
  PROP_MESSAGE,
  PROP_SERVER,
  PROP_SOURCE,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

static void
assay_connection_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  AssayConnection *self = ASSAY_CONNECTION (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_KIND:
      g_value_set_uint (value, self->kind);
      break;
    case PROP_URL:
      g_value_set_string (value, self->url);
      break;
    case PROP_TABLES:
      g_value_set_boxed (value, self->tables);
      break;
    case PROP_STATUS:
      g_value_set_uint (value, self->status);
      break;
    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;
    case PROP_SERVER:
      g_value_set_string (value, assay_connection_get_server (self));
      break;
    case PROP_SOURCE:
      g_value_set_object (value, self->source);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_connection_finalize (GObject *object)
{
  AssayConnection *self = ASSAY_CONNECTION (object);

  g_free (self->name);
  g_free (self->url);
  g_strfreev (self->tables);
  g_free (self->message);
  g_clear_object (&self->source);
  g_free (self->description);
  g_free (self->description_key);
  G_OBJECT_CLASS (assay_connection_parent_class)->finalize (object);
}

static void
assay_connection_class_init (AssayConnectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = assay_connection_finalize;
  object_class->get_property = assay_connection_get_property;

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  properties[PROP_KIND] = g_param_spec_uint ("kind", NULL, NULL, 0, ASSAY_SOURCE_SQLITE, 0, ro);
  properties[PROP_URL] = g_param_spec_string ("url", NULL, NULL, NULL, ro);
  properties[PROP_TABLES] = g_param_spec_boxed ("tables", NULL, NULL, G_TYPE_STRV, ro);
  properties[PROP_STATUS] = g_param_spec_uint ("status", NULL, NULL, 0, ASSAY_CONNECTION_FAILED, 0, ro);
  properties[PROP_MESSAGE] = g_param_spec_string ("message", NULL, NULL, NULL, ro);
  properties[PROP_SERVER] = g_param_spec_string ("server", NULL, NULL, NULL, ro);
  properties[PROP_SOURCE] = g_param_spec_object ("source", NULL, NULL, ASSAY_TYPE_SOURCE, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
assay_connection_init (AssayConnection *self)
{
}

AssayConnection *
assay_connection_new (const char         *name,
                      AssaySourceKind     kind,
                      const char         *url,
                      const char * const *tables)
{
  AssayConnection *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (url != NULL, NULL);

  self = g_object_new (ASSAY_TYPE_CONNECTION, NULL);
  self->name = g_strdup (name);
  self->kind = kind;
  /* Whatever the caller passes, no password is kept here. */
  self->url = assay_source_url_strip_password (url);
  self->tables = tables != NULL && tables[0] != NULL ? g_strdupv ((char **) tables) : NULL;
  return self;
}

const char *
assay_connection_get_name (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  return self->name;
}

AssaySourceKind
assay_connection_get_kind (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), ASSAY_SOURCE_POSTGRESQL);
  return self->kind;
}

const char *
assay_connection_get_url (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  return self->url;
}

const char * const *
assay_connection_get_tables (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  return (const char * const *) self->tables;
}

AssayConnectionStatus
assay_connection_get_status (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), ASSAY_CONNECTION_FAILED);
  return self->status;
}

const char *
assay_connection_get_message (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  return self->message;
}

const char *
assay_connection_get_server (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  return self->source != NULL && self->status == ASSAY_CONNECTION_CONNECTED
         ? assay_source_get_server (self->source) : NULL;
}

AssaySource *
assay_connection_get_source (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  return self->source;
}

char *
assay_connection_dup_summary (AssayConnection *self)
{
  const char *where;
  g_autofree char *tables = NULL;

  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  /* The URL without its scheme, which the kind says already. */
  where = strstr (self->url, "://");
  where = where != NULL ? where + 3 : self->url;
  if (self->kind == ASSAY_SOURCE_SQLITE && where[0] == '/' && where[1] == '/')
    where++;
  if (self->tables == NULL)
    tables = g_strdup (_("all tables"));
  else if (g_strv_length (self->tables) <= MAX_TABLES_NAMED)
    tables = g_strjoinv (", ", self->tables);
  else
    tables = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tables", "%u tables", g_strv_length (self->tables)),
                              g_strv_length (self->tables));
  /* Translators: a database on the data page: its kind, where it is, what the model sees. */
  return g_strdup_printf (_("%s · %s · %s"), assay_source_kind_get_label (self->kind), where, tables);
}

char *
assay_connection_dup_status_text (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  switch (self->status)
    {
    case ASSAY_CONNECTION_CONNECTING:
      return g_strdup (_("Connecting…"));
    case ASSAY_CONNECTION_CONNECTED:
      {
        g_autofree char *powers = assay_connection_dup_powers (self);

        if (powers != NULL)
          /* Translators: %s is the server, "PostgreSQL 15.4", then what the login can do
           * beyond reading: "superuser", "FILE, PROCESS". */
          return g_strdup_printf (_("Connected to %s in read-only transactions, but this login can do more "
                                    "than read (%s): risk accepted"),
                                  assay_connection_get_server (self) != NULL ? assay_connection_get_server (self) : "",
                                  powers);
      }
      if (assay_connection_get_server (self) != NULL)
        /* Translators: %s is the server, "PostgreSQL 15.4". */
        return g_strdup_printf (_("Connected to %s, read-only"), assay_connection_get_server (self));
      return g_strdup (_("Connected, read-only"));
    case ASSAY_CONNECTION_FAILED:
    default:
      return g_strdup (self->message != NULL ? self->message : _("Not connected"));
    }
}

char *
assay_connection_dup_powers (AssayConnection *self)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  return self->source != NULL ? assay_source_dup_powers (self->source) : NULL;
}

void
assay_connection_set_tables (AssayConnection    *self,
                             const char * const *tables)
{
  g_return_if_fail (ASSAY_IS_CONNECTION (self));
  g_strfreev (self->tables);
  self->tables = tables != NULL && tables[0] != NULL ? g_strdupv ((char **) tables) : NULL;
  /* What the model was told named the tables before. */
  g_clear_pointer (&self->description, g_free);
  g_clear_pointer (&self->description_key, g_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TABLES]);
}

void
assay_connection_set_source (AssayConnection *self,
                             AssaySource     *source)
{
  g_return_if_fail (ASSAY_IS_CONNECTION (self));
  g_return_if_fail (source == NULL || ASSAY_IS_SOURCE (source));
  if (!g_set_object (&self->source, source))
    return;
  g_clear_pointer (&self->description, g_free);
  g_clear_pointer (&self->description_key, g_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVER]);
}

void
assay_connection_set_status (AssayConnection       *self,
                             AssayConnectionStatus  status,
                             const char            *message)
{
  gboolean changed;

  g_return_if_fail (ASSAY_IS_CONNECTION (self));
  changed = self->status != status;
  self->status = status;
  if (g_strcmp0 (self->message, message) != 0)
    {
      g_free (self->message);
      self->message = g_strdup (message);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
    }
  if (changed)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVER]);
    }
}

const char *
assay_connection_get_description (AssayConnection  *self,
                                  const char      **key)
{
  g_return_val_if_fail (ASSAY_IS_CONNECTION (self), NULL);
  if (key != NULL)
    *key = self->description_key;
  return self->description;
}

void
assay_connection_set_description (AssayConnection *self,
                                  const char      *description,
                                  const char      *key)
{
  g_return_if_fail (ASSAY_IS_CONNECTION (self));
  g_free (self->description);
  self->description = g_strdup (description);
  g_free (self->description_key);
  self->description_key = g_strdup (key);
}
