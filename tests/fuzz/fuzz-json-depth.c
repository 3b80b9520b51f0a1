/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the strict check that guards every untrusted JSON text.
 *
 * For any bytes: the check never reads past them; what it lets through, json-glib parses
 * without crashing and to a tree exactly as deep as the check counted, so json-glib never
 * sees a structure the check did not (comments, single quotes, lone surrogates). A third of
 * the inputs get a prefix of opening brackets, so deep texts are common. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "assay-json.h"

static guint
tree_depth (JsonNode *node)
{
  guint deepest = 0;

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        deepest = MAX (deepest, tree_depth (json_array_get_element (array, i)));
      return deepest + 1;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, NULL, &member))
        deepest = MAX (deepest, tree_depth (member));
      return deepest + 1;
    }
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autofree char *text = NULL;
  gsize len = size;
  guint depth = 0;

  /* One leading byte may ask for a deep prefix: N opening brackets before the input. */
  if (size > 0 && data[0] % 3 == 0)
    {
      gsize prefix = (gsize) data[0] * 4;

      text = g_malloc (prefix + size);
      memset (text, '[', prefix);
      memcpy (text + prefix, data + 1, size - 1);
      len = prefix + size - 1;
    }
  else
    text = g_memdup2 (data, size);

  /* Whatever the check lets through parses without crashing, and as deep as it said. */
  if (assay_json_check (text, (gssize) len, ASSAY_JSON_MAX_DEPTH, &depth, NULL))
    {
      g_assert_cmpuint (depth, <=, ASSAY_JSON_MAX_DEPTH);
      if (json_parser_load_from_data (parser, text, (gssize) len, NULL) &&
          json_parser_get_root (parser) != NULL)
        g_assert_cmpuint (tree_depth (json_parser_get_root (parser)), ==, depth);
    }
  else
    g_assert_false (assay_json_parser_load_untrusted (parser, text, (gssize) len, NULL));

  /* Nothing json-glib writes is refused: what it read, written back plain and pretty, passes
   * the check with the tree's own depth. Only short texts are given to json-glib unchecked
   * here: 2 KiB cannot nest deep enough to exhaust the stack. */
  if (len <= 2048 && json_parser_load_from_data (parser, text, (gssize) len, NULL) &&
      json_parser_get_root (parser) != NULL &&
      tree_depth (json_parser_get_root (parser)) <= ASSAY_JSON_MAX_DEPTH)
    {
      JsonNode *root = json_parser_get_root (parser);

      for (int pretty = 0; pretty < 2; pretty++)
        {
          g_autofree char *written = json_to_string (root, pretty);
          g_autoptr(JsonParser) again = json_parser_new_immutable ();
          guint written_depth = 0;

          /* json-glib writes an infinite number as "inf", which nothing reads back. */
          if (!json_parser_load_from_data (again, written, -1, NULL))
            continue;
          g_assert_true (assay_json_check (written, -1, ASSAY_JSON_MAX_DEPTH, &written_depth, NULL));
          g_assert_cmpuint (written_depth, ==, tree_depth (root));
        }
    }
  return 0;
}
