/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: number provenance on arbitrary bytes. The input is an answer and, after
 * the first NUL, what a cell printed (as a stream, a text/plain result and a text/html table);
 * each traced number's place is checked to lie inside what was recorded, and the record
 * written and read back. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "assay-provenance.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *nul = memchr (data, '\0', size);
  gsize answer_length = nul != NULL ? (gsize) (nul - (const char *) data) : size;
  g_autofree char *answer = g_strndup ((const char *) data, answer_length);
  g_autofree char *printed = nul != NULL ? g_strndup (nul + 1, size - answer_length - 1) : g_strdup ("");
  g_autofree char *valid = g_utf8_make_valid (printed, -1);
  g_autoptr(JsonArray) outputs = json_array_new ();
  g_autoptr(AssayProvenance) provenance = NULL;
  g_autoptr(AssayProvenance) read_back = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *stream = json_object_new ();
  JsonObject *result = json_object_new ();
  JsonObject *bundle = json_object_new ();
  AssayProvenanceSource source = { "c1", outputs, 0 };

  json_object_set_string_member (stream, "output_type", "stream");
  json_object_set_string_member (stream, "name", "stdout");
  json_object_set_string_member (stream, "text", valid);
  json_array_add_object_element (outputs, stream);
  json_object_set_string_member (bundle, "text/plain", valid);
  json_object_set_string_member (bundle, "text/html", valid);
  json_object_set_string_member (result, "output_type", "execute_result");
  json_object_set_object_member (result, "data", bundle);
  json_array_add_object_element (outputs, result);

  provenance = assay_provenance_trace (answer, -1, &source, 1);
  for (guint i = 0; i < provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (provenance->numbers, i);

      g_assert_true (traced->start < traced->end && traced->end <= strlen (answer));
      if (traced->found)
        {
          g_assert_true (traced->match_start <= traced->match_end);
          g_assert_true (traced->match_end <= strlen (traced->line_text));
          g_assert_true (g_utf8_validate (traced->line_text, -1, NULL));
        }
    }

  node = assay_provenance_to_json (provenance);
  read_back = assay_provenance_from_json (node, answer);
  g_assert_nonnull (read_back);
  return 0;
}
