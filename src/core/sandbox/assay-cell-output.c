/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include "assay-cell-output.h"
#include "assay-json.h"

AssayCellOutput *
assay_cell_output_read_object (JsonObject *object)
{
  AssayCellOutput *output;
  const char *type;

  if (object == NULL)
    return NULL;
  output = g_new0 (AssayCellOutput, 1);
  type = assay_json_get_string (object, "output_type");
  if (g_strcmp0 (type, "stream") == 0)
    {
      output->kind = ASSAY_CELL_OUTPUT_STREAM;
      output->is_stderr = g_strcmp0 (assay_json_get_string (object, "name"), "stderr") == 0;
      output->text = assay_json_dup_text (json_object_get_member (object, "text"));
      if (output->text == NULL)
        output->text = g_strdup ("");
    }
  else if (g_strcmp0 (type, "execute_result") == 0 || g_strcmp0 (type, "display_data") == 0)
    {
      output->kind = g_str_equal (type, "execute_result") ? ASSAY_CELL_OUTPUT_RESULT
                                                         : ASSAY_CELL_OUTPUT_DISPLAY;
      output->data = assay_json_get_object (object, "data");
      if (output->data != NULL)
        {
          output->plain = assay_json_dup_text (json_object_get_member (output->data, "text/plain"));
          output->html = assay_json_dup_text (json_object_get_member (output->data, "text/html"));
          output->png_base64 = assay_json_dup_text (json_object_get_member (output->data, "image/png"));
          output->has_image = output->png_base64 != NULL ||
                              json_object_has_member (output->data, "image/jpeg") ||
                              json_object_has_member (output->data, "image/svg+xml");
        }
    }
  else if (g_strcmp0 (type, "error") == 0)
    {
      JsonArray *lines = assay_json_get_array (object, "traceback");

      output->kind = ASSAY_CELL_OUTPUT_ERROR;
      output->ename = g_strdup (assay_json_get_string (object, "ename") ?: "Error");
      output->evalue = g_strdup (assay_json_get_string (object, "evalue") ?: "");
      output->traceback = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; lines != NULL && i < json_array_get_length (lines); i++)
        {
          JsonNode *line = json_array_get_element (lines, i);

          if (JSON_NODE_HOLDS_VALUE (line) && json_node_get_value_type (line) == G_TYPE_STRING)
            g_ptr_array_add (output->traceback, g_strdup (json_node_get_string (line)));
        }
    }
  return output;
}

AssayCellOutput *
assay_cell_output_read (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return assay_cell_output_read_object (json_node_get_object (node));
}

char *
assay_cell_output_dup_text (const AssayCellOutput *output)
{
  GString *text;

  switch (output->kind)
    {
    case ASSAY_CELL_OUTPUT_STREAM:
      return g_strdup (output->text);
    case ASSAY_CELL_OUTPUT_RESULT:
    case ASSAY_CELL_OUTPUT_DISPLAY:
      return g_strdup (output->plain);
    case ASSAY_CELL_OUTPUT_ERROR:
      text = g_string_new (NULL);
      for (guint i = 0; i < output->traceback->len; i++)
        {
          const char *line = g_ptr_array_index (output->traceback, i);

          g_string_append (text, line);
          if (text->len > 0 && text->str[text->len - 1] != '\n')
            g_string_append_c (text, '\n');
        }
      if (text->len == 0)
        g_string_append_printf (text, "%s: %s\n", output->ename, output->evalue);
      return g_string_free (text, FALSE);
    case ASSAY_CELL_OUTPUT_OTHER:
    default:
      return NULL;
    }
}

void
assay_cell_output_free (AssayCellOutput *output)
{
  if (output == NULL)
    return;
  g_free (output->text);
  g_free (output->plain);
  g_free (output->html);
  g_free (output->png_base64);
  g_free (output->ename);
  g_free (output->evalue);
  g_clear_pointer (&output->traceback, g_ptr_array_unref);
  g_free (output);
}

static void
assay_cell_output_flush_stream (JsonArray   *joined,
                                GString    **text,
                                const char  *name)
{
  JsonObject *stream;

  if (*text == NULL)
    return;
  stream = json_object_new ();
  json_object_set_string_member (stream, "output_type", "stream");
  json_object_set_string_member (stream, "name", name);
  json_object_set_string_member (stream, "text", (*text)->str);
  json_array_add_object_element (joined, stream);
  g_string_free (*text, TRUE);
  *text = NULL;
}

JsonArray *
assay_cell_output_join_streams (JsonArray *outputs)
{
  JsonArray *joined = json_array_new ();
  GString *text = NULL;
  const char *name = NULL;

  for (guint i = 0; outputs != NULL && i < json_array_get_length (outputs); i++)
    {
      JsonNode *node = json_array_get_element (outputs, i);
      g_autoptr(AssayCellOutput) output = assay_cell_output_read (node);

      if (output != NULL && output->kind == ASSAY_CELL_OUTPUT_STREAM)
        {
          const char *stream = output->is_stderr ? "stderr" : "stdout";

          if (text != NULL && !g_str_equal (name, stream))
            assay_cell_output_flush_stream (joined, &text, name);
          if (text == NULL)
            {
              text = g_string_new (NULL);
              name = stream;
            }
          g_string_append (text, output->text);
          continue;
        }
      assay_cell_output_flush_stream (joined, &text, name);
      json_array_add_element (joined, json_node_copy (node));
    }
  assay_cell_output_flush_stream (joined, &text, name);
  return joined;
}

static void
assay_cell_output_read_one (GString               *body,
                            GString               *figures,
                            const AssayCellOutput *output,
                            gsize                 *start)
{
  g_autofree char *text = NULL;

  *start = G_MAXSIZE;
  switch (output->kind)
    {
    case ASSAY_CELL_OUTPUT_STREAM:
      *start = body->len;
      g_string_append (body, output->text);
      break;
    case ASSAY_CELL_OUTPUT_ERROR:
      if (body->len > 0 && body->str[body->len - 1] != '\n')
        g_string_append_c (body, '\n');
      text = assay_cell_output_dup_text (output);
      g_string_append (body, text);
      break;
    case ASSAY_CELL_OUTPUT_RESULT:
    case ASSAY_CELL_OUTPUT_DISPLAY:
      if (output->has_image)
        {
          if (figures != NULL)
            g_string_append_printf (figures, "a figure%s; ",
                                    output->png_base64 != NULL ? " (image/png)" : " (image)");
        }
      else if (output->plain != NULL)
        {
          if (output->kind == ASSAY_CELL_OUTPUT_RESULT)
            g_string_append (body, "Out: ");
          *start = body->len;
          g_string_append (body, output->plain);
          g_string_append_c (body, '\n');
        }
      else if (output->html != NULL)
        g_string_append (body, "[an HTML output, shown to the analyst]\n");
      break;
    case ASSAY_CELL_OUTPUT_OTHER:
    default:
      break;
    }
}

char *
assay_cell_outputs_read_text (JsonArray *outputs,
                              GString   *figures,
                              GArray    *starts)
{
  GString *body = g_string_new (NULL);

  for (guint i = 0; outputs != NULL && i < json_array_get_length (outputs); i++)
    {
      g_autoptr(AssayCellOutput) output = assay_cell_output_read (json_array_get_element (outputs, i));
      gsize start = G_MAXSIZE;

      if (output != NULL)
        assay_cell_output_read_one (body, figures, output, &start);
      if (starts != NULL)
        g_array_append_val (starts, start);
    }
  return g_string_free (body, FALSE);
}

gboolean
assay_cell_output_cut_middle (const char *text,
                              gsize       length,
                              gsize       budget,
                              gsize      *head_end,
                              gsize      *tail_start)
{
  const char *head;
  gsize tail;

  *head_end = length;
  *tail_start = length;
  if (length <= budget)
    return FALSE;

  /* Half each side, moved back to character boundaries. */
  head = g_utf8_find_prev_char (text, text + budget / 2 + 1);
  *head_end = head != NULL ? (gsize) (head - text) : 0;
  tail = length - budget / 2;
  while (tail > 0 && tail < length && ((guchar) text[tail] & 0xC0) == 0x80)
    tail++;
  *tail_start = tail;
  return TRUE;
}
