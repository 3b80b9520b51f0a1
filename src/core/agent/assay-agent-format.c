/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the model reads: cell results turned into text within a budget, fenced code pulled
 * out of a reply, and the conversation fitted into the context. */
#define G_LOG_DOMAIN "Assay-Agent"

#include "config.h"

#include <string.h>

#include "assay-agent-private.h"
#include "assay-cell-output.h"

char *
assay_agent_trim_middle (const char *text,
                         gsize       budget)
{
  gsize length = strlen (text);
  gsize head_end, tail_start;
  guint cut_lines = 0;

  if (!assay_cell_output_cut_middle (text, length, budget, &head_end, &tail_start))
    return g_strdup (text);

  for (gsize i = head_end; i < tail_start; i++)
    if (text[i] == '\n')
      cut_lines++;

  return g_strdup_printf ("%.*s\n[… %ld characters (%u lines) cut from the middle of this output; "
                          "print less, or a summary, to see it …]\n%s",
                          (int) head_end, text,
                          g_utf8_strlen (text + head_end, (gssize) (tail_start - head_end)), cut_lines,
                          text + tail_start);
}

char *
assay_agent_format_result (AssayCellResult *result,
                           gsize            budget)
{
  AssayCellStatus status = assay_cell_result_get_status (result);
  JsonArray *outputs = assay_cell_result_get_outputs (result);
  GPtrArray *artifacts = assay_cell_result_get_artifacts (result);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *body = NULL;
  g_autoptr(GString) figures = g_string_new (NULL);
  g_autofree char *trimmed = NULL;
  const char *reason = assay_cell_result_get_reason (result);

  g_string_append_printf (text, "Status: %s (%" G_GINT64_FORMAT " ms)",
                          assay_cell_status_to_string (status),
                          assay_cell_result_get_elapsed_ms (result));
  if (status != ASSAY_CELL_OK && reason != NULL && *reason != '\0')
    g_string_append_printf (text, " — %s", reason);
  g_string_append_c (text, '\n');
  if (assay_cell_result_get_state_lost (result))
    g_string_append (text, "The kernel was restarted: variables and imports from earlier cells are gone"
                           " unless they were replayed.\n");

  body = assay_cell_outputs_read_text (outputs, figures, NULL);

  if (*body == '\0')
    g_string_append (text, "(no text output)\n");
  else
    {
      trimmed = assay_agent_trim_middle (body, budget);
      g_string_append (text, "Output:\n");
      g_string_append (text, trimmed);
      if (text->str[text->len - 1] != '\n')
        g_string_append_c (text, '\n');
    }

  if (figures->len > 0)
    {
      g_string_truncate (figures, figures->len - 2);
      g_string_append_printf (text, "Displayed to the analyst (not shown to you): %s.\n", figures->str);
    }

  if (artifacts->len > 0)
    {
      g_string_append (text, "Files saved in /workspace (the analyst has them):");
      for (guint i = 0; i < artifacts->len; i++)
        {
          AssayArtifact *artifact = g_ptr_array_index (artifacts, i);

          g_string_append_printf (text, "%s %s (%s, %" G_GUINT64_FORMAT " bytes%s)",
                                  i > 0 ? "," : "", artifact->name,
                                  artifact->mime ? artifact->mime : "unknown type",
                                  artifact->bytes, artifact->truncated ? ", cut at the size limit" : "");
        }
      g_string_append (text, ".\n");
    }

  /* What the kernel saw the cell do to its data, for the model to check its own work. */
  {
    g_autofree char *checks = assay_cell_checks_describe (assay_cell_result_get_checks (result), TRUE);

    if (checks != NULL)
      g_string_append_printf (text, "Checks: %s.\n", checks);
  }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

char *
assay_agent_format_result_schema (AssayCellResult *result)
{
  AssayCellStatus status = assay_cell_result_get_status (result);
  JsonArray *outputs = assay_cell_result_get_outputs (result);
  GPtrArray *artifacts = assay_cell_result_get_artifacts (result);
  const AssayCellChecks *checks = assay_cell_result_get_checks (result);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *frames = NULL;
  g_autofree char *error_type = NULL;
  guint lines = 0, figures = 0;

  for (guint i = 0; i < json_array_get_length (outputs); i++)
    {
      JsonNode *node = json_array_get_element (outputs, i);
      g_autoptr(AssayCellOutput) output = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      output = assay_cell_output_read_object (json_node_get_object (node));
      if (output->kind == ASSAY_CELL_OUTPUT_STREAM && output->text != NULL)
        {
          for (const char *p = output->text; *p != '\0'; p++)
            if (*p == '\n')
              lines++;
          if (*output->text != '\0' && output->text[strlen (output->text) - 1] != '\n')
            lines++;
        }
      else if (output->kind == ASSAY_CELL_OUTPUT_ERROR && error_type == NULL && output->ename != NULL)
        {
          /* An exception's class is a name the code chose, never a value: keep it only when
           * it reads as one. */
          gboolean identifier = *output->ename != '\0' && strlen (output->ename) <= 100;

          for (const char *p = output->ename; identifier && *p != '\0'; p++)
            identifier = g_ascii_isalnum (*p) || *p == '_' || *p == '.';
          error_type = g_strdup (identifier ? output->ename : "an exception");
        }
      else if (output->kind == ASSAY_CELL_OUTPUT_RESULT || output->kind == ASSAY_CELL_OUTPUT_DISPLAY)
        {
          if (output->has_image)
            figures++;
          else
            lines++;
        }
    }

  g_string_append_printf (text, "Status: %s (%" G_GINT64_FORMAT " ms)\n",
                          assay_cell_status_to_string (status), assay_cell_result_get_elapsed_ms (result));
  if (error_type != NULL)
    g_string_append_printf (text, "Error type: %s (its message is not shown: schema-only mode)\n", error_type);
  if (assay_cell_result_get_state_lost (result))
    g_string_append (text, "The kernel was restarted: variables and imports from earlier cells are gone"
                           " unless they were replayed.\n");
  frames = assay_cell_checks_describe_frames (checks);
  g_string_append_printf (text, "DataFrames made: %s\n", frames != NULL ? frames : "none");
  g_string_append_printf (text,
                          "Output: %u line%s and %u figure%s, shown to the analyst only (schema-only mode: "
                          "no value from the data reaches you).\n",
                          lines, lines == 1 ? "" : "s", figures, figures == 1 ? "" : "s");
  if (artifacts->len > 0)
    g_string_append_printf (text, "Files saved in /workspace: %u (the analyst has them).\n", artifacts->len);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

char *
assay_agent_extract_fenced_code (const char *text)
{
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(GMatchInfo) match = NULL;
  g_autoptr(GString) code = NULL;

  if (text == NULL)
    return NULL;

  regex = g_regex_new ("```(?:python3?|py)[ \\t]*\\r?\\n(.*?)```", G_REGEX_DOTALL, 0, NULL);
  g_assert (regex != NULL);
  if (!g_regex_match (regex, text, 0, &match))
    return NULL;

  code = g_string_new (NULL);
  while (g_match_info_matches (match))
    {
      g_autofree char *block = g_match_info_fetch (match, 1);

      if (code->len > 0 && code->str[code->len - 1] != '\n')
        g_string_append_c (code, '\n');
      g_string_append (code, block);
      g_match_info_next (match, NULL);
    }
  for (const char *p = code->str; *p != '\0'; p++)
    if (!g_ascii_isspace (*p))
      return g_string_free (g_steal_pointer (&code), FALSE);
  return NULL;
}

static gsize
assay_agent_format_message_size (const AssayLlmMessage *message)
{
  gsize size = message->text ? strlen (message->text) : 0;

  for (guint i = 0; i < message->tool_calls->len; i++)
    {
      AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, i);

      size += call->arguments ? strlen (call->arguments) : 0;
    }
  return size;
}

#define TRIMMED_NOTE "[This output was removed to keep the conversation within the model's context; " \
                     "run the code again if you need it.]"

GPtrArray *
assay_agent_fit_messages (GPtrArray *messages,
                          gsize      budget)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_message_free);
  gsize total = 0;
  guint last_assistant = 0;

  for (guint i = 0; i < messages->len; i++)
    {
      AssayLlmMessage *message = g_ptr_array_index (messages, i);

      g_ptr_array_add (copy, assay_llm_message_copy (message));
      total += assay_agent_format_message_size (message);
      if (message->role == ASSAY_LLM_ROLE_ASSISTANT)
        last_assistant = i;
    }

  for (guint i = 0; i < last_assistant && total > budget; i++)
    {
      AssayLlmMessage *message = g_ptr_array_index (copy, i);
      gsize size;

      if (message->role != ASSAY_LLM_ROLE_TOOL || message->text == NULL ||
          strlen (message->text) <= strlen (TRIMMED_NOTE))
        continue;
      size = strlen (message->text);
      g_free (message->text);
      message->text = g_strdup (TRIMMED_NOTE);
      total = total - size + strlen (TRIMMED_NOTE);
    }
  return copy;
}
