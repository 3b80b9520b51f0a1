/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The recorded provider: replays the assistant turns of a transcript file, one turn per
 * request, streamed in small pieces like a real server would. The model's words are
 * recorded; the code it proposes still runs for real in the sandbox.
 *
 * A transcript is a JSON object:
 *
 *   {
 *     "format": "assay-transcript",
 *     "model": "recorded-demo",                 (optional; what the session records)
 *     "turns": [
 *       { "text": "Let me look at the file first.",
 *         "tool_calls": [
 *           { "id": "call_1",                   (optional; generated when absent)
 *             "name": "execute_python",
 *             "arguments": { "code": "...", "description": "..." } } ] },
 *       { "text": "The answer is 42." }
 *     ]
 *   }
 *
 * "arguments" may also be a string, sent as is: that is how a test replays a model that
 * writes invalid JSON. "stop_reason" ("end_turn", "tool_use", "max_tokens") overrides the
 * one implied by the presence of tool calls. */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-llm-provider.h"
#include "assay-json.h"

#define PIECE_BYTES 24

struct _AssayRecordedProvider
{
  AssayLlmProvider parent_instance;

  char      *model;
  JsonArray *turns;
  guint      next_turn;
  gboolean   busy;
};

G_DECLARE_FINAL_TYPE (AssayRecordedProvider,
                      assay_recorded_provider,
                      ASSAY,
                      RECORDED_PROVIDER,
                      AssayLlmProvider)
G_DEFINE_FINAL_TYPE (AssayRecordedProvider, assay_recorded_provider, ASSAY_TYPE_LLM_PROVIDER)

static const char *
assay_recorded_provider_get_name (AssayLlmProvider *provider)
{
  return "recorded";
}

/* Emits TEXT in pieces cut at character boundaries. */
static void
assay_recorded_provider_emit_in_pieces (AssayRecordedProvider *self,
                                        const char            *text,
                                        int                    call_index,
                                        const char            *id,
                                        const char            *name)
{
  const char *p = text;

  while (*p != '\0')
    {
      const char *end = p;
      g_autofree char *piece = NULL;

      while (*end != '\0' && end - p < PIECE_BYTES)
        end = g_utf8_next_char (end);
      piece = g_strndup (p, end - p);
      if (call_index < 0)
        assay_llm_provider_emit_text_delta (ASSAY_LLM_PROVIDER (self), piece);
      else
        assay_llm_provider_emit_tool_call_delta (ASSAY_LLM_PROVIDER (self), call_index, id, name, piece);
      p = end;
    }
}

static AssayLlmStopReason
assay_recorded_provider_stop_reason_from_string (const char *s)
{
  if (g_strcmp0 (s, "end_turn") == 0)
    return ASSAY_LLM_STOP_END_TURN;
  if (g_strcmp0 (s, "tool_use") == 0)
    return ASSAY_LLM_STOP_TOOL_USE;
  if (g_strcmp0 (s, "max_tokens") == 0)
    return ASSAY_LLM_STOP_MAX_TOKENS;
  return ASSAY_LLM_STOP_OTHER;
}

static gboolean
assay_recorded_provider_replay_turn (gpointer data)
{
  GTask *task = data;
  AssayRecordedProvider *self = g_task_get_source_object (task);
  g_autoptr(AssayLlmResponse) response = assay_llm_response_new ();
  JsonObject *turn;
  JsonArray *calls;
  const char *text;
  const char *stop;

  self->busy = FALSE;
  if (g_task_return_error_if_cancelled (task))
    return G_SOURCE_REMOVE;

  if (self->next_turn >= json_array_get_length (self->turns))
    {
      g_task_return_new_error (task, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_EXHAUSTED,
                               _("The recorded conversation has no more turns (it has %u)"),
                               json_array_get_length (self->turns));
      return G_SOURCE_REMOVE;
    }

  /* A transcript is a file anyone may hand over: every member is checked for its type. */
  {
    JsonNode *element = json_array_get_element (self->turns, self->next_turn++);

    turn = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
  }
  text = assay_json_get_string (turn, "text");
  if (text == NULL)
    text = "";
  assay_recorded_provider_emit_in_pieces (self, text, -1, NULL, NULL);
  g_free (response->text);
  response->text = g_strdup (text);

  calls = assay_json_get_array (turn, "tool_calls");
  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonNode *element = json_array_get_element (calls, i);
      JsonObject *call = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      JsonNode *args = call != NULL ? json_object_get_member (call, "arguments") : NULL;
      g_autofree char *id = NULL;
      g_autofree char *arguments = NULL;
      const char *name = assay_json_get_string (call, "name");

      if (call == NULL)
        continue;
      if (name == NULL)
        name = "";
      if (assay_json_get_string (call, "id") != NULL)
        id = g_strdup (assay_json_get_string (call, "id"));
      else
        id = g_strdup_printf ("rec_%u_%u", self->next_turn, i);

      if (args == NULL)
        arguments = g_strdup ("{}");
      else if (JSON_NODE_HOLDS_VALUE (args) && json_node_get_value_type (args) == G_TYPE_STRING)
        arguments = g_strdup (json_node_get_string (args));
      else
        arguments = json_to_string (args, FALSE);

      assay_recorded_provider_emit_in_pieces (self, arguments, i, id, name);
      g_ptr_array_add (response->tool_calls, assay_llm_tool_call_new (id, name, arguments));
    }

  stop = assay_json_get_string (turn, "stop_reason");
  if (stop != NULL)
    response->stop_reason = assay_recorded_provider_stop_reason_from_string (stop);
  else
    response->stop_reason = response->tool_calls->len > 0 ? ASSAY_LLM_STOP_TOOL_USE
                                                           : ASSAY_LLM_STOP_END_TURN;
  response->stop_reason_raw = g_strdup (stop != NULL ? stop
                                        : response->tool_calls->len > 0 ? "tool_use" : "end_turn");
  response->input_tokens = 0;
  response->output_tokens = 0;

  g_task_return_pointer (task, g_steal_pointer (&response), (GDestroyNotify) assay_llm_response_free);
  return G_SOURCE_REMOVE;
}

static void
assay_recorded_provider_stream_async (AssayLlmProvider      *provider,
                                      const AssayLlmRequest *request,
                                      GCancellable          *cancellable,
                                      GAsyncReadyCallback    callback,
                                      gpointer               user_data)
{
  AssayRecordedProvider *self = ASSAY_RECORDED_PROVIDER (provider);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GSource *source;

  g_task_set_source_tag (task, assay_recorded_provider_stream_async);
  g_return_if_fail (!self->busy);
  self->busy = TRUE;

  /* Stream on the caller's context, after this call returns, like a server would. */
  source = g_idle_source_new ();
  /* A server's reply comes at the default priority, not after every frame is drawn. */
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, assay_recorded_provider_replay_turn, task, g_object_unref);
  g_source_set_static_name (source, "[assay] recorded turn");
  g_source_attach (source, g_main_context_get_thread_default ());
  g_source_unref (source);
}

static AssayLlmResponse *
assay_recorded_provider_stream_finish (AssayLlmProvider  *provider,
                                       GAsyncResult      *result,
                                       GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
assay_recorded_provider_list_models_async (AssayLlmProvider    *provider,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data)
{
  AssayRecordedProvider *self = ASSAY_RECORDED_PROVIDER (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_strv_builder_add (builder, self->model);
  g_task_return_pointer (task, g_strv_builder_end (builder), (GDestroyNotify) g_strfreev);
}

static GStrv
assay_recorded_provider_list_models_finish (AssayLlmProvider  *provider,
                                            GAsyncResult      *result,
                                            GError           **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
assay_recorded_provider_finalize (GObject *object)
{
  AssayRecordedProvider *self = ASSAY_RECORDED_PROVIDER (object);

  g_free (self->model);
  g_clear_pointer (&self->turns, json_array_unref);
  G_OBJECT_CLASS (assay_recorded_provider_parent_class)->finalize (object);
}

static void
assay_recorded_provider_class_init (AssayRecordedProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AssayLlmProviderClass *provider_class = ASSAY_LLM_PROVIDER_CLASS (klass);

  object_class->finalize = assay_recorded_provider_finalize;
  provider_class->get_name = assay_recorded_provider_get_name;
  provider_class->stream_async = assay_recorded_provider_stream_async;
  provider_class->stream_finish = assay_recorded_provider_stream_finish;
  provider_class->list_models_async = assay_recorded_provider_list_models_async;
  provider_class->list_models_finish = assay_recorded_provider_list_models_finish;
}

static void
assay_recorded_provider_init (AssayRecordedProvider *self)
{
}

/* Checks the whole transcript up front so that a broken file fails at once, in words. */
static gboolean
assay_recorded_provider_validate_turns (JsonArray  *turns,
                                        GError    **error)
{
  for (guint i = 0; i < json_array_get_length (turns); i++)
    {
      JsonNode *node = json_array_get_element (turns, i);
      JsonObject *turn;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        goto bad;
      turn = json_node_get_object (node);
      if (json_object_has_member (turn, "text") &&
          json_node_get_value_type (json_object_get_member (turn, "text")) != G_TYPE_STRING)
        goto bad;
      if (json_object_has_member (turn, "tool_calls"))
        {
          JsonNode *calls = json_object_get_member (turn, "tool_calls");

          if (!JSON_NODE_HOLDS_ARRAY (calls))
            goto bad;
          for (guint j = 0; j < json_array_get_length (json_node_get_array (calls)); j++)
            {
              JsonNode *call = json_array_get_element (json_node_get_array (calls), j);

              if (!JSON_NODE_HOLDS_OBJECT (call) ||
                  !json_object_has_member (json_node_get_object (call), "name"))
                goto bad;
            }
        }
      continue;

    bad:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Turn %u of the transcript is not an object with “text” and “tool_calls”"), i + 1);
      return FALSE;
    }
  return TRUE;
}

AssayLlmProvider *
assay_recorded_provider_new (const char  *transcript_path,
                             GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(AssayRecordedProvider) self = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  JsonObject *root;
  JsonNode *turns;

  if (!g_file_get_contents (transcript_path, &text, &length, error) ||
      !assay_json_parser_load_untrusted (parser, text, (gssize) length, error))
    {
      g_prefix_error (error, _("Cannot read the transcript %s: "), transcript_path);
      return NULL;
    }
  if (json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    goto bad;
  root = json_node_get_object (json_parser_get_root (parser));
  turns = json_object_get_member (root, "turns");
  if (turns == NULL || !JSON_NODE_HOLDS_ARRAY (turns))
    goto bad;
  if (!assay_recorded_provider_validate_turns (json_node_get_array (turns), error))
    return NULL;

  self = g_object_new (assay_recorded_provider_get_type (), NULL);
  self->model = g_strdup (assay_json_get_string (root, "model") ? assay_json_get_string (root, "model") : "recorded");
  self->turns = json_array_ref (json_node_get_array (turns));
  return ASSAY_LLM_PROVIDER (g_steal_pointer (&self));

bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s is not a transcript: it needs a “turns” array"), transcript_path);
  return NULL;
}
