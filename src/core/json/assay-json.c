/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <gio/gio.h>

#include "assay-json.h"

guint
assay_json_nesting_depth (const char *data,
                          gssize      len,
                          guint       max_depth)
{
  const char *p;
  const char *end;
  guint depth = 0;
  guint deepest = 0;
  gboolean in_string = FALSE;

  g_return_val_if_fail (data != NULL || len == 0, 0);

  if (len < 0)
    len = (gssize) strlen (data);
  end = data + len;
  for (p = data; p < end; p++)
    {
      char c = *p;

      if (in_string)
        {
          if (c == '\\')
            p++;   /* whatever is escaped, it cannot end the string */
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '[':
        case '{':
          if (++depth > deepest)
            {
              deepest = depth;
              if (deepest > max_depth)
                return max_depth + 1;
            }
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        default:
          break;
        }
    }
  return deepest;
}

gboolean
assay_json_parser_load_untrusted (JsonParser  *parser,
                                  const char  *data,
                                  gssize       len,
                                  GError     **error)
{
  g_return_val_if_fail (JSON_IS_PARSER (parser), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (assay_json_nesting_depth (data, len, ASSAY_JSON_MAX_DEPTH) > ASSAY_JSON_MAX_DEPTH)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "JSON nested deeper than %d levels", ASSAY_JSON_MAX_DEPTH);
      return FALSE;
    }
  return json_parser_load_from_data (parser, data != NULL ? data : "", len, error);
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
