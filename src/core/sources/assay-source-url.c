/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Connection URLs: read once, here, so that the password part is found in one place and never
 * reaches a record, a log or a message. */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-source-url.h"

G_DEFINE_QUARK (assay-source-error-quark, assay_source_error)

const char *
assay_source_kind_to_string (AssaySourceKind kind)
{
  switch (kind)
    {
    case ASSAY_SOURCE_POSTGRESQL: return "postgresql";
    case ASSAY_SOURCE_MYSQL: return "mysql";
    case ASSAY_SOURCE_SQLITE: return "sqlite";
    default: return "unknown";
    }
}

const char *
assay_source_kind_get_label (AssaySourceKind kind)
{
  switch (kind)
    {
    case ASSAY_SOURCE_POSTGRESQL: return "PostgreSQL";
    case ASSAY_SOURCE_MYSQL: return "MySQL/MariaDB";
    case ASSAY_SOURCE_SQLITE: return "SQLite";
    default: return "?";
    }
}

void
assay_query_limits_init (AssayQueryLimits *limits)
{
  limits->timeout_ms = ASSAY_QUERY_DEFAULT_TIMEOUT_MS;
  limits->max_rows = ASSAY_QUERY_DEFAULT_MAX_ROWS;
  limits->max_bytes = ASSAY_QUERY_DEFAULT_MAX_BYTES;
}

void
assay_source_url_free (AssaySourceUrl *url)
{
  if (url == NULL)
    return;
  g_free (url->scheme);
  g_free (url->user);
  if (url->password != NULL)
    {
      memset (url->password, 0, strlen (url->password));
      g_free (url->password);
    }
  g_free (url->host);
  g_free (url->port);
  g_free (url->database);
  g_free (url->path);
  g_ptr_array_unref (url->keys);
  g_ptr_array_unref (url->values);
  g_free (url);
}

AssaySourceUrl *
assay_source_url_copy (const AssaySourceUrl *url)
{
  AssaySourceUrl *copy = g_new0 (AssaySourceUrl, 1);

  copy->kind = url->kind;
  copy->scheme = g_strdup (url->scheme);
  copy->user = g_strdup (url->user);
  copy->password = g_strdup (url->password);
  copy->host = g_strdup (url->host);
  copy->port = g_strdup (url->port);
  copy->database = g_strdup (url->database);
  copy->path = g_strdup (url->path);
  copy->keys = g_ptr_array_new_with_free_func (g_free);
  copy->values = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < url->keys->len; i++)
    {
      g_ptr_array_add (copy->keys, g_strdup (g_ptr_array_index (url->keys, i)));
      g_ptr_array_add (copy->values, g_strdup (g_ptr_array_index (url->values, i)));
    }
  return copy;
}

static char *
decode (const char  *text,
        gssize       length,
        GError     **error)
{
  g_autofree char *piece = g_strndup (text, length < 0 ? strlen (text) : (gsize) length);
  char *decoded = g_uri_unescape_string (piece, NULL);

  if (decoded == NULL || !g_utf8_validate (decoded, -1, NULL))
    {
      g_free (decoded);
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                   _("The connection URL has a broken %%-escape or text that is not UTF-8"));
      return NULL;
    }
  return decoded;
}

const char *
assay_source_url_get_param (const AssaySourceUrl *url,
                            const char           *key)
{
  for (guint i = url->keys->len; i > 0; i--)
    if (g_str_equal (g_ptr_array_index (url->keys, i - 1), key))
      return g_ptr_array_index (url->values, i - 1);
  return NULL;
}

static gboolean
parse_query (AssaySourceUrl  *url,
             const char      *query,
             GError         **error)
{
  g_auto(GStrv) pairs = g_strsplit (query, "&", -1);

  for (guint i = 0; pairs[i] != NULL; i++)
    {
      const char *equals = strchr (pairs[i], '=');
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;

      if (*pairs[i] == '\0')
        continue;
      key = decode (pairs[i], equals != NULL ? equals - pairs[i] : -1, error);
      if (key == NULL)
        return FALSE;
      value = decode (equals != NULL ? equals + 1 : "", -1, error);
      if (value == NULL)
        return FALSE;
      if (g_str_equal (key, "password"))
        {
          g_free (url->password);
          url->password = g_steal_pointer (&value);
          continue;
        }
      g_ptr_array_add (url->keys, g_steal_pointer (&key));
      g_ptr_array_add (url->values, g_steal_pointer (&value));
    }
  return TRUE;
}

AssaySourceUrl *
assay_source_url_parse (const char  *text,
                        GError     **error)
{
  g_autoptr(AssaySourceUrl) url = NULL;
  const char *colon, *rest, *authority_end, *query;
  g_autofree char *authority = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  url = g_new0 (AssaySourceUrl, 1);
  url->keys = g_ptr_array_new_with_free_func (g_free);
  url->values = g_ptr_array_new_with_free_func (g_free);

  colon = strchr (text, ':');
  if (colon == NULL)
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                   _("A database is given as a URL: postgresql://…, mysql://…, mariadb://… or sqlite:///path/to/file.db"));
      return NULL;
    }
  url->scheme = g_ascii_strdown (text, colon - text);
  if (g_str_equal (url->scheme, "postgresql") || g_str_equal (url->scheme, "postgres"))
    url->kind = ASSAY_SOURCE_POSTGRESQL;
  else if (g_str_equal (url->scheme, "mysql") || g_str_equal (url->scheme, "mariadb"))
    url->kind = ASSAY_SOURCE_MYSQL;
  else if (g_str_equal (url->scheme, "sqlite") || g_str_equal (url->scheme, "sqlite3"))
    url->kind = ASSAY_SOURCE_SQLITE;
  else
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                   _("Assay cannot connect to “%s:” databases: use postgresql://, mysql://, mariadb:// or sqlite:///"),
                   url->scheme);
      return NULL;
    }

  rest = colon + 1;
  if (url->kind == ASSAY_SOURCE_SQLITE)
    {
      /* sqlite:///abs/path, sqlite:/abs/path; the query is not part of the file name. */
      query = strchr (rest, '?');
      if (g_str_has_prefix (rest, "//"))
        rest += 2;
      url->path = decode (rest, query != NULL ? query - rest : -1, error);
      if (url->path == NULL)
        return NULL;
      if (!g_path_is_absolute (url->path))
        {
          g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                       _("An SQLite database is given by its absolute path: sqlite:///path/to/file.db"));
          return NULL;
        }
      if (query != NULL && !parse_query (url, query + 1, error))
        return NULL;
      return g_steal_pointer (&url);
    }

  if (!g_str_has_prefix (rest, "//"))
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                   _("The connection URL must start with %s://"), url->scheme);
      return NULL;
    }
  rest += 2;
  authority_end = rest + strcspn (rest, "/?");
  authority = g_strndup (rest, authority_end - rest);
  {
    char *at = strrchr (authority, '@');
    const char *hosts = authority;

    if (at != NULL)
      {
        char *separator;

        *at = '\0';
        separator = strchr (authority, ':');
        if (separator != NULL)
          {
            *separator = '\0';
            url->password = decode (separator + 1, -1, error);
            if (url->password == NULL)
              return NULL;
          }
        if (*authority != '\0' && (url->user = decode (authority, -1, error)) == NULL)
          return NULL;
        hosts = at + 1;
      }
    /* One host and port are split for MySQL; PostgreSQL's list goes to libpq as written. */
    if (*hosts != '\0')
      {
        const char *bracket = strrchr (hosts, ']');
        const char *port = strrchr (hosts, ':');

        if (url->kind == ASSAY_SOURCE_MYSQL && port != NULL && (bracket == NULL || port > bracket))
          {
            url->host = g_strndup (hosts, port - hosts);
            url->port = g_strdup (port + 1);
          }
        else if (url->kind == ASSAY_SOURCE_POSTGRESQL && strchr (hosts, ',') == NULL &&
                 port != NULL && (bracket == NULL || port > bracket))
          {
            url->host = g_strndup (hosts, port - hosts);
            url->port = g_strdup (port + 1);
          }
        else
          url->host = g_strdup (hosts);
        if (url->host != NULL && url->host[0] == '[' && url->host[strlen (url->host) - 1] == ']' &&
            strchr (url->host, ',') == NULL)
          {
            char *inner = g_strndup (url->host + 1, strlen (url->host) - 2);

            g_free (url->host);
            url->host = inner;
          }
        if (url->host != NULL && *url->host == '\0')
          g_clear_pointer (&url->host, g_free);
        if (url->port != NULL && *url->port == '\0')
          g_clear_pointer (&url->port, g_free);
        if (url->host != NULL)
          {
            char *decoded = decode (url->host, -1, error);

            if (decoded == NULL)
              return NULL;
            g_free (url->host);
            url->host = decoded;
          }
      }
  }

  rest = authority_end;
  query = strchr (rest, '?');
  path = g_strndup (rest, query != NULL ? (gsize) (query - rest) : strlen (rest));
  if (path[0] == '/' && path[1] != '\0')
    {
      url->database = decode (path + 1, -1, error);
      if (url->database == NULL)
        return NULL;
    }
  if (query != NULL && !parse_query (url, query + 1, error))
    return NULL;

  if (url->port != NULL)
    {
      g_auto(GStrv) ports = g_strsplit (url->port, ",", -1);

      for (guint i = 0; ports[i] != NULL; i++)
        {
          guint64 port = 0;

          if (*ports[i] != '\0' && (!g_ascii_string_to_unsigned (ports[i], 10, 1, 65535, &port, NULL)))
            {
              g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL,
                           _("The connection URL's port “%s” is not a number from 1 to 65535"), ports[i]);
              return NULL;
            }
        }
    }
  return g_steal_pointer (&url);
}

static void
append_escaped (GString    *out,
                const char *text,
                const char *allowed)
{
  g_autofree char *escaped = g_uri_escape_string (text, allowed, FALSE);

  g_string_append (out, escaped);
}

char *
assay_source_url_to_display (const AssaySourceUrl *url)
{
  GString *out = g_string_new (url->scheme);

  g_return_val_if_fail (url != NULL, NULL);

  if (url->kind == ASSAY_SOURCE_SQLITE)
    {
      g_string_append (out, "://");
      append_escaped (out, url->path, "/");
    }
  else
    {
      g_string_append (out, "://");
      if (url->user != NULL)
        {
          append_escaped (out, url->user, NULL);
          g_string_append_c (out, '@');
        }
      if (url->host != NULL)
        {
          if (strchr (url->host, ':') != NULL && strchr (url->host, ',') == NULL && url->host[0] != '[')
            g_string_append_printf (out, "[%s]", url->host);
          else
            append_escaped (out, url->host, ",:[]");
        }
      if (url->port != NULL)
        g_string_append_printf (out, ":%s", url->port);
      if (url->database != NULL)
        {
          g_string_append_c (out, '/');
          append_escaped (out, url->database, NULL);
        }
    }
  for (guint i = 0; i < url->keys->len; i++)
    {
      g_string_append_c (out, i == 0 ? '?' : '&');
      append_escaped (out, g_ptr_array_index (url->keys, i), NULL);
      g_string_append_c (out, '=');
      append_escaped (out, g_ptr_array_index (url->values, i), "/");
    }
  return g_string_free (out, FALSE);
}

char *
assay_source_url_strip_password (const char *text)
{
  g_autoptr(AssaySourceUrl) url = assay_source_url_parse (text, NULL);

  if (url == NULL)
    {
      /* Not a URL we read: still never repeat what looks like user:password@. */
      const char *scheme_end = strstr (text, "://");
      const char *at = scheme_end != NULL ? strchr (scheme_end + 3, '@') : NULL;
      const char *colon = scheme_end != NULL ? strchr (scheme_end + 3, ':') : NULL;

      if (at != NULL && colon != NULL && colon < at)
        return g_strdup_printf ("%.*s@%s", (int) (colon - text), text, at + 1);
      return g_strdup (text);
    }
  return assay_source_url_to_display (url);
}
