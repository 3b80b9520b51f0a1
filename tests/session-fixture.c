/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Session folders for the tests of opening sessions: long ones and damaged ones. */
#include "config.h"

#include <string.h>
#include <unistd.h>

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
      cell->status = ASSAY_CELL_OK;
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

AssaySessionCell *
session_fixture_run_cell (AssaySession *session,
          const char   *id,
          guint         step,
          const char   *call_id,
          const char   *printed,
          gboolean      edited)
{
  g_autofree char *code = g_strdup_printf ("print('%s')", printed);
  g_autofree char *text = g_strdup_printf ("%s\n", printed);
  g_autoptr(AssayCellResult) result = assay_cell_result_new (id, code);
  g_autoptr(JsonObject) output = json_object_new ();
  AssaySessionCell *cell;

  cell = assay_session_add_cell (session, assay_session_cell_new (id, step, call_id, printed,
                                                                  edited ? "print('as proposed')" : code));
  cell->code = g_strdup (code);
  cell->decision = edited ? ASSAY_DECISION_EDITED : ASSAY_DECISION_APPROVED;
  cell->started_at = g_get_real_time ();
  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", "stdout");
  json_object_set_string_member (output, "text", text);
  assay_cell_result_add_output (result, output);
  /* A table too: the reports' bodies show tables and figures in place (text goes to the
   * appendix), so this is what shows where a report filed the cell. */
  {
    g_autoptr(JsonObject) rich = json_object_new ();
    JsonObject *data = json_object_new ();
    g_autofree char *table = g_strdup_printf ("<table class=\"dataframe\"><thead><tr><th>value</th></tr></thead>"
                                              "<tbody><tr><td>%s</td></tr></tbody></table>", printed);

    json_object_set_string_member (rich, "output_type", "execute_result");
    json_object_set_string_member (data, "text/plain", printed);
    json_object_set_string_member (data, "text/html", table);
    json_object_set_object_member (rich, "data", data);
    json_object_set_object_member (rich, "metadata", json_object_new ());
    json_object_set_int_member (rich, "execution_count", 1);
    assay_cell_result_add_output (result, rich);
  }
  assay_cell_result_set_status (result, ASSAY_CELL_OK, NULL);
  assay_cell_result_set_elapsed_ms (result, 5);
  assay_session_record_result (session, cell, result);
  assay_session_append_message (session, assay_llm_message_new_tool (call_id, text, FALSE));
  return cell;
}

void
session_fixture_ask (AssaySession *session,
                     const char   *question)
{
  assay_session_append_message (session, assay_llm_message_new_user (question));
  assay_session_finish_question (session);
}

AssayLlmMessage *
session_fixture_reply (AssaySession *session,
                       const char   *text,
                       ...)
{
  AssayLlmMessage *message = assay_llm_message_new_assistant (text);
  va_list args;
  const char *call_id;
  guint n;

  va_start (args, text);
  n = va_arg (args, guint);
  for (guint i = 0; i < n; i++)
    {
      call_id = va_arg (args, const char *);
      g_ptr_array_add (message->tool_calls, assay_llm_tool_call_new (call_id, "execute_python", "{}"));
    }
  va_end (args);
  assay_session_append_message (session, message);
  return message;
}

char *
session_fixture_write_repeated_ids (const char *parent)
{
  static guint n_written;
  g_autofree char *name = g_strdup_printf ("repeated-ids-%u-%d", ++n_written, (int) getpid ());
  g_autofree char *dir = parent != NULL ? g_build_filename (parent, name, NULL) : NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = dir != NULL ? assay_session_new (dir, &error)
                                                : assay_session_create (NULL, &error);
  AssaySessionCell *cell;

  g_assert_no_error (error);
  assay_session_set_title (session, "Repeated call ids");

  session_fixture_ask (session, "Question one?");
  session_fixture_reply (session, "Looking at one.", 1, "call_1");
  session_fixture_run_cell (session, "c1", 1, "call_1", "first-output", FALSE);
  assay_session_finish_step (session);
  /* A call whose arguments were not JSON: the model was told, no cell was made. A reading
   * by call id alone hands it the next question's call_1 cell. */
  session_fixture_reply (session, "Once more.", 1, "call_1");
  assay_session_append_message (session, assay_llm_message_new_tool ("call_1", "the arguments are not JSON", TRUE));
  assay_session_finish_step (session);
  session_fixture_reply (session, "Answer one.", 0);
  assay_session_finish_step (session);

  /* The same call id again, as a server that numbers its calls per turn sends. */
  session_fixture_ask (session, "Question two?");
  session_fixture_reply (session, "Looking at two.", 1, "call_1");
  session_fixture_run_cell (session, "c2", 4, "call_1", "second-output", TRUE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "Answer two.", 0);
  assay_session_finish_step (session);

  /* One reply names an id twice, and a call has none. */
  session_fixture_ask (session, "Question three?");
  session_fixture_reply (session, "Two at once.", 3, "call_x", "call_x", NULL);
  session_fixture_run_cell (session, "c3", 6, "call_x", "third-output", FALSE);
  session_fixture_run_cell (session, "c4", 6, "call_x", "fourth-output", FALSE);
  session_fixture_run_cell (session, "c5", 6, NULL, "fifth-output", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "Answer three.", 0);
  assay_session_finish_step (session);

  /* Assay closed in the middle of a step. */
  session_fixture_ask (session, "Question four?");
  session_fixture_reply (session, "Running long.", 1, "call_1");
  cell = assay_session_add_cell (session, assay_session_cell_new ("c6", 8, "call_1", "sixth", "print('sixth-output')"));
  cell->status = ASSAY_CELL_RUNNING;
  assay_session_set_outcome (session, "answered", "Answer three.");

  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return g_strdup (assay_session_get_dir (session));
}
