/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Session folders for the tests of opening sessions: long ones and damaged ones. */
#include "config.h"

#include <string.h>

#include "assay-session.h"
#include "session-fixture.h"

char *
session_fixture_write_long (const char *parent,
                            const char *question,
                            guint       n_steps,
                            gsize       output_bytes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_create (parent, &error);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *answer = g_strdup_printf ("Done after %u steps.", n_steps);

  g_assert_no_error (error);
  assay_session_set_title (session, question);
  assay_session_append_message (session, assay_llm_message_new_user (question));
  assay_session_finish_question (session);

  for (guint line = 0; text->len < output_bytes; line++)
    g_string_append_printf (text, "row %6u: %s\n", line,
                            "0.125 0.250 0.375 0.500 0.625 0.750 0.875 1.000 1.125 1.250");

  for (guint step = 1; step <= n_steps; step++)
    {
      g_autofree char *call_id = g_strdup_printf ("call_%u", step);
      g_autofree char *cell_id = g_strdup_printf ("c%u", step);
      g_autofree char *code = g_strdup_printf ("print('step %u')\n", step);
      g_autofree char *arguments = NULL;
      g_autofree char *words = g_strdup_printf ("Step %u: looking further.", step);
      g_autoptr(JsonObject) output = json_object_new ();
      AssayLlmMessage *assistant = assay_llm_message_new_assistant (words);
      AssaySessionCell *cell;

      {
        g_autoptr(JsonBuilder) builder = json_builder_new ();
        g_autoptr(JsonGenerator) generator = json_generator_new ();
        g_autoptr(JsonNode) root = NULL;

        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "code");
        json_builder_add_string_value (builder, code);
        json_builder_end_object (builder);
        root = json_builder_get_root (builder);
        json_generator_set_root (generator, root);
        arguments = json_generator_to_data (generator, NULL);
      }
      g_ptr_array_add (assistant->tool_calls, assay_llm_tool_call_new (call_id, "execute_python", arguments));
      assay_session_append_message (session, assistant);

      cell = assay_session_add_cell (session, assay_session_cell_new (cell_id, step, call_id, NULL, code));
      cell->code = g_strdup (code);
      cell->decision = ASSAY_DECISION_AUTO;
      g_free (cell->status);
      cell->status = g_strdup ("ok");
      cell->elapsed_ms = 10;
      json_object_set_string_member (output, "output_type", "stream");
      json_object_set_string_member (output, "name", "stdout");
      json_object_set_string_member (output, "text", text->str);
      json_array_add_object_element (cell->outputs, json_object_ref (output));

      assay_session_append_message (session, assay_llm_message_new_tool (call_id, "Status: ok", FALSE));
      assay_session_finish_step (session);
    }

  assay_session_append_message (session, assay_llm_message_new_assistant (answer));
  assay_session_finish_step (session);
  assay_session_set_outcome (session, "answered", answer);
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return g_strdup (assay_session_get_dir (session));
}

char *
session_fixture_write_damaged (const char *parent)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_create (parent, &error);
  g_autofree char *record = NULL;
  g_autofree char *text = NULL;
  gsize length;

  g_assert_no_error (error);
  assay_session_set_title (session, "Damaged");
  g_assert_true (assay_session_save (session, &error));
  record = g_build_filename (assay_session_get_dir (session), "session.json", NULL);
  g_assert_true (g_file_get_contents (record, &text, &length, NULL));
  g_assert_true (g_file_set_contents (record, text, length / 2, &error));
  g_assert_no_error (error);
  return g_strdup (assay_session_get_dir (session));
}
