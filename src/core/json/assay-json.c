/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Json"

#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gio.h>

#include "assay-json.h"

typedef struct
{
  const guchar *p;
  const guchar *end;
  const guchar *start;
} Cursor;

static gboolean
assay_json_fail (Cursor      *cursor,
                 GError     **error,
                 const char  *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "not strict JSON at byte %" G_GSIZE_FORMAT ": %s",
               (gsize) (cursor->p - cursor->start), what);
  return FALSE;
}

static void
assay_json_skip_space (Cursor *cursor)
{
  while (cursor->p < cursor->end &&
         (*cursor->p == ' ' || *cursor->p == '\t' || *cursor->p == '\n' || *cursor->p == '\r'))
    cursor->p++;
}

static int
assay_json_hex4 (const guchar *p)
{
  int value = 0;

  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (p[i]);

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }
  return value;
}

/* At the opening quote; leaves the cursor after the closing one. */
static gboolean
assay_json_scan_string (Cursor  *cursor,
                        GError **error)
{
  cursor->p++;
  while (cursor->p < cursor->end)
    {
      guchar c = *cursor->p;

      if (c == '"')
        {
          cursor->p++;
          return TRUE;
        }
      if (c == '\0')
        return assay_json_fail (cursor, error, "a NUL in a string");
      if (c != '\\')
        {
          cursor->p++;
          continue;
        }
      if (cursor->end - cursor->p < 2)
        break;
      c = cursor->p[1];
      if (strchr ("\"\\/bfnrt", c) != NULL)
        {
          cursor->p += 2;
          continue;
        }
      if (c != 'u')
        return assay_json_fail (cursor, error, "an unknown escape");
      if (cursor->end - cursor->p < 6)
        break;
      {
        int unit = assay_json_hex4 (cursor->p + 2);

        if (unit < 0)
          return assay_json_fail (cursor, error, "a \\u escape without four hex digits");
        cursor->p += 6;
        /* json-glib reads on past a lone surrogate, into what follows the string. */
        if (unit >= 0xDC00 && unit <= 0xDFFF)
          return assay_json_fail (cursor, error, "a lone low surrogate");
        if (unit >= 0xD800 && unit <= 0xDBFF)
          {
            int low;

            if (cursor->end - cursor->p < 6 || cursor->p[0] != '\\' || cursor->p[1] != 'u' ||
                (low = assay_json_hex4 (cursor->p + 2)) < 0xDC00 || low > 0xDFFF)
              return assay_json_fail (cursor, error, "a high surrogate without its low half");
            cursor->p += 6;
          }
      }
    }
  return assay_json_fail (cursor, error, "an unterminated string");
}

static gboolean
assay_json_scan_number (Cursor  *cursor,
                        GError **error)
{
  const guchar *p = cursor->p;
  const guchar *end = cursor->end;

  if (p < end && *p == '-')
    p++;
  if (p < end && *p == '0')
    p++;
  else if (p < end && *p >= '1' && *p <= '9')
    while (p < end && g_ascii_isdigit (*p))
      p++;
  else
    return assay_json_fail (cursor, error, "a malformed number");
  if (p < end && *p == '.')
    {
      p++;
      if (p >= end || !g_ascii_isdigit (*p))
        return assay_json_fail (cursor, error, "a malformed number");
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      if (p >= end || !g_ascii_isdigit (*p))
        return assay_json_fail (cursor, error, "a malformed number");
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }
  cursor->p = p;
  return TRUE;
}

static gboolean
assay_json_scan_word (Cursor      *cursor,
                      const char  *word,
                      GError     **error)
{
  gsize n = strlen (word);

  if ((gsize) (cursor->end - cursor->p) < n || memcmp (cursor->p, word, n) != 0)
    return assay_json_fail (cursor, error, "an unexpected character");
  cursor->p += n;
  return TRUE;
}

gboolean
assay_json_check (const char  *data,
                  gssize       len,
                  guint        max_depth,
                  guint       *depth_out,
                  GError     **error)
{
  Cursor cursor;
  /* One bit per open container, object (1) or array (0): the whole parser state. */
  g_autofree guint8 *kinds = NULL;
  guint depth = 0;
  guint deepest = 0;
  guchar closing;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (len < 0)
    len = (gssize) strlen (data);
  cursor.start = cursor.p = (const guchar *) data;
  cursor.end = cursor.p + len;
  kinds = g_malloc0 (max_depth / 8 + 1);
  if (depth_out != NULL)
    *depth_out = 0;

  assay_json_skip_space (&cursor);
  if (cursor.p == cursor.end)
    return TRUE;

value:
  assay_json_skip_space (&cursor);
  if (cursor.p == cursor.end)
    return assay_json_fail (&cursor, error, "the text ends where a value should be");
  switch (*cursor.p)
    {
    case '{':
    case '[':
      if (depth == max_depth)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "JSON nested deeper than %u levels", max_depth);
          return FALSE;
        }
      if (*cursor.p == '{')
        kinds[depth / 8] |= (guint8) (1u << (depth % 8));
      else
        kinds[depth / 8] &= (guint8) ~(1u << (depth % 8));
      depth++;
      deepest = MAX (deepest, depth);
      closing = *cursor.p == '{' ? '}' : ']';
      cursor.p++;
      assay_json_skip_space (&cursor);
      if (cursor.p < cursor.end && *cursor.p == closing)
        {
          cursor.p++;
          depth--;
          goto after_value;
        }
      if (kinds[(depth - 1) / 8] & (1u << ((depth - 1) % 8)))
        goto key;
      goto value;
    case '"':
      if (!assay_json_scan_string (&cursor, error))
        return FALSE;
      goto after_value;
    case 't':
      if (!assay_json_scan_word (&cursor, "true", error))
        return FALSE;
      goto after_value;
    case 'f':
      if (!assay_json_scan_word (&cursor, "false", error))
        return FALSE;
      goto after_value;
    case 'n':
      if (!assay_json_scan_word (&cursor, "null", error))
        return FALSE;
      goto after_value;
    default:
      if (!assay_json_scan_number (&cursor, error))
        return FALSE;
      goto after_value;
    }

key:
  assay_json_skip_space (&cursor);
  if (cursor.p == cursor.end || *cursor.p != '"')
    return assay_json_fail (&cursor, error, "an object key that is not a string");
  if (!assay_json_scan_string (&cursor, error))
    return FALSE;
  assay_json_skip_space (&cursor);
  if (cursor.p == cursor.end || *cursor.p != ':')
    return assay_json_fail (&cursor, error, "a key without ':'");
  cursor.p++;
  goto value;

after_value:
  assay_json_skip_space (&cursor);
  if (depth == 0)
    {
      if (cursor.p != cursor.end)
        return assay_json_fail (&cursor, error, "more after the value");
      if (depth_out != NULL)
        *depth_out = deepest;
      return TRUE;
    }
  if (cursor.p == cursor.end)
    return assay_json_fail (&cursor, error, "the text ends inside a container");
  {
    gboolean in_object = (kinds[(depth - 1) / 8] & (1u << ((depth - 1) % 8))) != 0;

    if (*cursor.p == ',')
      {
        cursor.p++;
        if (in_object)
          goto key;
        goto value;
      }
    if (*cursor.p == (in_object ? '}' : ']'))
      {
        cursor.p++;
        depth--;
        goto after_value;
      }
  }
  return assay_json_fail (&cursor, error, "an unexpected character");
}

gboolean
assay_json_parser_load_untrusted (JsonParser  *parser,
                                  const char  *data,
                                  gssize       len,
                                  GError     **error)
{
  g_return_val_if_fail (JSON_IS_PARSER (parser), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (data == NULL)
    data = "";
  if (!assay_json_check (data, len, ASSAY_JSON_MAX_DEPTH, NULL, error))
    return FALSE;
  return json_parser_load_from_data (parser, data, len, error);
}

JsonNode *
assay_json_from_untrusted (const char  *data,
                           GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonNode *root;

  g_return_val_if_fail (data != NULL, NULL);

  if (!assay_json_parser_load_untrusted (parser, data, -1, error))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "empty JSON text");
      return NULL;
    }
  return json_node_copy (root);
}

static JsonNode *
assay_json_get_value (JsonObject *object,
                      const char *member,
                      GType       type)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, member)) == NULL ||
      !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != type)
    return NULL;
  return node;
}

const char *
assay_json_get_string (JsonObject *object,
                       const char *member)
{
  JsonNode *node = assay_json_get_value (object, member, G_TYPE_STRING);

  return node != NULL ? json_node_get_string (node) : NULL;
}

char *
assay_json_dup_string (JsonObject *object,
                       const char *member)
{
  return g_strdup (assay_json_get_string (object, member));
}

JsonObject *
assay_json_get_object (JsonObject *object,
                       const char *member)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, member)) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

JsonArray *
assay_json_get_array (JsonObject *object,
                      const char *member)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, member)) == NULL ||
      !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  return json_node_get_array (node);
}

gboolean
assay_json_get_int (JsonObject *object,
                    const char *member,
                    gint64     *value)
{
  JsonNode *node;

  if ((node = assay_json_get_value (object, member, G_TYPE_INT64)) != NULL)
    {
      *value = json_node_get_int (node);
      return TRUE;
    }
  if ((node = assay_json_get_value (object, member, G_TYPE_DOUBLE)) != NULL)
    {
      double d = json_node_get_double (node);

      if (!(d >= -9.0e15 && d <= 9.0e15))
        return FALSE;
      *value = (gint64) d;
      return TRUE;
    }
  return FALSE;
}

gint64
assay_json_get_int_or (JsonObject *object,
                       const char *member,
                       gint64      fallback)
{
  gint64 value;

  return assay_json_get_int (object, member, &value) ? value : fallback;
}

double
assay_json_get_double_or (JsonObject *object,
                          const char *member,
                          double      fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;
  double value;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    value = json_node_get_double (node);
  else if (json_node_get_value_type (node) == G_TYPE_INT64)
    value = (double) json_node_get_int (node);
  else
    return fallback;
  return isfinite (value) ? value : fallback;
}

gboolean
assay_json_get_boolean_or (JsonObject *object,
                           const char *member,
                           gboolean    fallback)
{
  JsonNode *node = assay_json_get_value (object, member, G_TYPE_BOOLEAN);

  return node != NULL ? json_node_get_boolean (node) : fallback;
}

char *
assay_json_dup_text (JsonNode *node)
{
  JsonArray *array;
  GString *text;

  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  array = json_node_get_array (node);
  text = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_string_append (text, json_node_get_string (element));
    }
  return g_string_free (text, FALSE);
}
