/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The OpenAI and Anthropic providers against tests/llm/fake_llm_server.py, which speaks
 * the wire formats of OpenAI (Chat Completions and the Responses API), Ollama, llama.cpp and
 * Anthropic byte for byte. */
#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "assay-llm-provider.h"

#define TEST_KEY      "sk-test-SECRET1234567890"
#define RETRY_SCALE   0.01

/* ------------------------------------------------------------------------------------ */
/* The fake server. */

typedef struct
{
  GSubprocess *process;
  char        *dir;
  char        *log_path;
  char        *base_url;
} FakeServer;

static FakeServer *
fake_server_start (const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *script_path = NULL;
  g_autofree char *port = NULL;
  FakeServer *server = g_new0 (FakeServer, 1);

  server->dir = g_dir_make_tmp ("assay-llm-XXXXXX", &error);
  g_assert_no_error (error);
  script_path = g_build_filename (server->dir, "script.json", NULL);
  server->log_path = g_build_filename (server->dir, "requests.jsonl", NULL);
  g_file_set_contents (script_path, script, -1, &error);
  g_assert_no_error (error);

  server->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                      PYTHON3, FAKE_LLM_SERVER, script_path, server->log_path,
                                      NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (server->process));
  port = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (port);
  server->base_url = g_strdup_printf ("http://127.0.0.1:%s/v1", port);
  return server;
}

static void
fake_server_stop (FakeServer *server)
{
  g_autofree char *script_path = g_build_filename (server->dir, "script.json", NULL);

  g_subprocess_force_exit (server->process);
  g_subprocess_wait (server->process, NULL, NULL);
  g_object_unref (server->process);
  g_unlink (script_path);
  g_unlink (server->log_path);
  g_rmdir (server->dir);
  g_free (server->dir);
  g_free (server->log_path);
  g_free (server->base_url);
  g_free (server);
}

/* The requests the server got, as JSON objects, in order. */
static GPtrArray *
fake_server_requests (FakeServer *server)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (!g_file_get_contents (server->log_path, &contents, NULL, NULL))
    return requests;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      JsonNode *node;

      if (lines[i][0] == '\0')
        continue;
      node = json_from_string (lines[i], &error);
      g_assert_no_error (error);
      g_ptr_array_add (requests, node);
    }
  return requests;
}

static JsonObject *
request_object (GPtrArray *requests,
                guint      i)
{
  return json_node_get_object (g_ptr_array_index (requests, i));
}

static const char *
request_header (GPtrArray  *requests,
                guint       i,
                const char *name)
{
  JsonObject *headers = json_object_get_object_member (request_object (requests, i), "headers");

  return json_object_get_string_member_with_default (headers, name, NULL);
}

static JsonObject *
request_body (GPtrArray *requests,
              guint      i)
{
  return json_object_get_object_member (request_object (requests, i), "body");
}

/* ------------------------------------------------------------------------------------ */
/* Running a provider and recording what it emitted. */

typedef struct
{
  char    *id;
  char    *name;
  GString *arguments;
} SeenCall;

static void
seen_call_free (SeenCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

typedef struct
{
  GMainLoop        *loop;
  GString          *text;
  GPtrArray        *calls;            /* SeenCall*, by index */
  GArray           *retry_delays;     /* guint */
  GPtrArray        *retry_reasons;
  guint             retry_attempt_last;
  AssayLlmResponse *response;
  GStrv             models;
  GError           *error;
  gboolean          done;

  GCancellable     *cancellable;
  gboolean          cancel_on_text;
  gboolean          cancel_on_retry;
  gint64            cancelled_at;
  gint64            finished_at;
} Run;

static void
run_init (Run *run)
{
  memset (run, 0, sizeof *run);
  run->loop = g_main_loop_new (NULL, FALSE);
  run->text = g_string_new (NULL);
  run->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) seen_call_free);
  run->retry_delays = g_array_new (FALSE, FALSE, sizeof (guint));
  run->retry_reasons = g_ptr_array_new_with_free_func (g_free);
  run->cancellable = g_cancellable_new ();
}

static void
run_clear (Run *run)
{
  g_main_loop_unref (run->loop);
  g_string_free (run->text, TRUE);
  g_ptr_array_unref (run->calls);
  g_array_unref (run->retry_delays);
  g_ptr_array_unref (run->retry_reasons);
  g_clear_pointer (&run->response, assay_llm_response_free);
  g_clear_pointer (&run->models, g_strfreev);
  g_clear_error (&run->error);
  g_clear_object (&run->cancellable);
}

static void
cancel_now (Run *run)
{
  if (run->cancelled_at == 0)
    {
      run->cancelled_at = g_get_monotonic_time ();
      g_cancellable_cancel (run->cancellable);
    }
}

static void
on_text_delta (AssayLlmProvider *provider,
               const char       *text,
               Run              *run)
{
  g_assert_false (run->done);
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_string_append (run->text, text);
  if (run->cancel_on_text)
    cancel_now (run);
}

static void
on_tool_call_delta (AssayLlmProvider *provider,
                    guint             index,
                    const char       *id,
                    const char       *name,
                    const char       *fragment,
                    Run              *run)
{
  SeenCall *call;

  g_assert_false (run->done);
  g_assert_cmpuint (index, <=, run->calls->len);
  if (index == run->calls->len)
    {
      call = g_new0 (SeenCall, 1);
      call->id = g_strdup (id);
      call->name = g_strdup (name);
      call->arguments = g_string_new (NULL);
      g_ptr_array_add (run->calls, call);
    }
  call = g_ptr_array_index (run->calls, index);
  /* id and name are repeated with every piece. */
  g_assert_cmpstr (call->id, ==, id);
  g_assert_cmpstr (call->name, ==, name);
  g_string_append (call->arguments, fragment);
}

static void
on_retrying (AssayLlmProvider *provider,
             guint             attempt,
             guint             delay_ms,
             const char       *reason,
             Run              *run)
{
  g_assert_false (run->done);
  g_assert_cmpuint (attempt, ==, run->retry_delays->len + 1);
  g_array_append_val (run->retry_delays, delay_ms);
  g_ptr_array_add (run->retry_reasons, g_strdup (reason));
  /* This turn's partial stream is void. */
  g_string_truncate (run->text, 0);
  g_ptr_array_set_size (run->calls, 0);
  if (run->cancel_on_retry)
    cancel_now (run);
}

static void
on_stream_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;

  run->response = assay_llm_provider_stream_finish (ASSAY_LLM_PROVIDER (source), result, &run->error);
  run->done = TRUE;
  run->finished_at = g_get_monotonic_time ();
  g_main_loop_quit (run->loop);
}

static void
on_models_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;

  run->models = assay_llm_provider_list_models_finish (ASSAY_LLM_PROVIDER (source), result, &run->error);
  run->done = TRUE;
  g_main_loop_quit (run->loop);
}

static gboolean
on_timeout (gpointer user_data)
{
  g_error ("the provider did not finish in time");
  return G_SOURCE_REMOVE;
}

static void
run_stream (AssayLlmProvider      *provider,
            const AssayLlmRequest *request,
            Run                   *run)
{
  gulong handlers[3];
  guint timeout = g_timeout_add_seconds (60, on_timeout, NULL);

  handlers[0] = g_signal_connect (provider, "text-delta", G_CALLBACK (on_text_delta), run);
  handlers[1] = g_signal_connect (provider, "tool-call-delta", G_CALLBACK (on_tool_call_delta), run);
  handlers[2] = g_signal_connect (provider, "retrying", G_CALLBACK (on_retrying), run);
  assay_llm_provider_stream_async (provider, request, run->cancellable, on_stream_done, run);
  g_main_loop_run (run->loop);
  for (guint i = 0; i < G_N_ELEMENTS (handlers); i++)
    g_signal_handler_disconnect (provider, handlers[i]);
  g_source_remove (timeout);

  /* What was streamed is what was returned. */
  if (run->response != NULL)
    {
      g_assert_cmpstr (run->text->str, ==, run->response->text);
      g_assert_cmpuint (run->calls->len, ==, run->response->tool_calls->len);
      for (guint i = 0; i < run->calls->len; i++)
        {
          SeenCall *seen = g_ptr_array_index (run->calls, i);
          AssayLlmToolCall *call = g_ptr_array_index (run->response->tool_calls, i);

          g_assert_cmpstr (seen->id, ==, call->id);
          g_assert_cmpstr (seen->name, ==, call->name);
          g_assert_cmpstr (seen->arguments->str, ==, call->arguments);
        }
      g_assert_cmpuint (run->response->attempts, ==, run->retry_delays->len + 1);
    }
}

static void
run_list_models (AssayLlmProvider *provider,
                 Run              *run)
{
  guint timeout = g_timeout_add_seconds (60, on_timeout, NULL);

  assay_llm_provider_list_models_async (provider, run->cancellable, on_models_done, run);
  g_main_loop_run (run->loop);
  g_source_remove (timeout);
}

/* A conversation with everything the wire formats must carry: a system prompt, a user
 * question, an assistant turn with two calls (one with invalid arguments), both results
 * (one an error), and the next question. */
static AssayLlmRequest *
make_request (void)
{
  AssayLlmRequest *request = assay_llm_request_new ();
  AssayLlmMessage *assistant;

  request->model = g_strdup ("test-model");
  request->system = g_strdup ("You are Assay, a careful analyst.");
  g_ptr_array_add (request->messages, assay_llm_message_new_user ("How many rows are there?"));
  assistant = assay_llm_message_new_assistant ("Let me look.");
  g_ptr_array_add (assistant->tool_calls,
                   assay_llm_tool_call_new ("call_1", "execute_python", "{\"code\": \"len(df)\"}"));
  g_ptr_array_add (assistant->tool_calls,
                   assay_llm_tool_call_new ("call_2", "execute_python", "{not json"));
  g_ptr_array_add (request->messages, assistant);
  g_ptr_array_add (request->messages, assay_llm_message_new_tool ("call_1", "1000", FALSE));
  g_ptr_array_add (request->messages, assay_llm_message_new_tool ("call_2", "invalid arguments", TRUE));
  g_ptr_array_add (request->messages, assay_llm_message_new_user ("And the columns?"));
  g_ptr_array_add (request->tools,
                   assay_llm_tool_new ("execute_python", "Run Python in the sandbox",
                                       "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\"}},"
                                       "\"required\":[\"code\"]}"));
  return request;
}

static AssayLlmProvider *
make_provider (const char *flavor,
               FakeServer *server,
               const char *key)
{
  if (g_str_equal (flavor, "anthropic"))
    return assay_anthropic_provider_new (server->base_url, key);
  if (g_str_equal (flavor, "responses"))
    return assay_openai_provider_new_for_api (server->base_url, key, ASSAY_OPENAI_API_RESPONSES);
  return assay_openai_provider_new (server->base_url, key);
}

/* Runs one request of FLAVOR against SCRIPT; the caller owns RUN and the requests. */
static GPtrArray *
stream_once (const char *flavor,
             const char *key,
             const char *script,
             Run        *run)
{
  FakeServer *server = fake_server_start (script);
  g_autoptr(AssayLlmProvider) provider = make_provider (flavor, server, key);
  g_autoptr(AssayLlmRequest) request = make_request ();
  GPtrArray *requests;

  run_stream (provider, request, run);
  requests = fake_server_requests (server);
  fake_server_stop (server);
  return requests;
}

static void
assert_call (AssayLlmResponse *response,
             guint             i,
             const char       *name,
             const char       *arguments)
{
  AssayLlmToolCall *call;

  g_assert_cmpuint (i, <, response->tool_calls->len);
  call = g_ptr_array_index (response->tool_calls, i);
  g_assert_cmpstr (call->name, ==, name);
  g_assert_cmpstr (call->arguments, ==, arguments);
}

/* ------------------------------------------------------------------------------------ */

#define TWO_CALLS \
  "\"tool_calls\": [{\"name\": \"execute_python\", \"arguments\": \"{\\\"code\\\": \\\"df = pd.read_csv('sales.csv')\\\\nprint(len(df))\\\"}\"}," \
  "                 {\"name\": \"list_files\", \"arguments\": \"{}\"}]"
#define CALL0_ARGS "{\"code\": \"df = pd.read_csv('sales.csv')\\nprint(len(df))\"}"

static void
test_openai_text (void)
{
  Run run;
  g_autoptr(GPtrArray) requests = NULL;
  JsonObject *body;
  JsonArray *messages;
  JsonObject *message;
  JsonObject *tool;

  run_init (&run);
  requests = stream_once ("openai", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"openai\", \"turn\": {\"text\": \"There are "
                          "1000 rows — and “quotes” too.\", \"usage\": {\"input\": 120, \"output\": 9}}}]}",
                          &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "There are 1000 rows — and “quotes” too.");
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_END_TURN);
  g_assert_cmpstr (run.response->stop_reason_raw, ==, "stop");
  g_assert_cmpint (run.response->input_tokens, ==, 120);
  g_assert_cmpint (run.response->output_tokens, ==, 9);
  g_assert_cmpuint (run.response->attempts, ==, 1);
  g_assert_cmpuint (run.response->tool_calls->len, ==, 0);

  /* What was sent. */
  g_assert_cmpuint (requests->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (request_object (requests, 0), "path"), ==,
                   "/v1/chat/completions");
  g_assert_cmpstr (request_header (requests, 0, "authorization"), ==, "Bearer " TEST_KEY);
  g_assert_null (request_header (requests, 0, "x-api-key"));
  g_assert_cmpstr (request_header (requests, 0, "content-type"), ==, "application/json");
  body = request_body (requests, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "test-model");
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (body, "stream_options"),
                                                 "include_usage"));
  g_assert_false (json_object_has_member (body, "max_tokens"));
  g_assert_false (json_object_has_member (body, "temperature"));
  g_assert_false (json_object_has_member (body, "system"));

  messages = json_object_get_array_member (body, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 6);
  message = json_array_get_object_element (messages, 0);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "system");
  g_assert_cmpstr (json_object_get_string_member (message, "content"), ==, "You are Assay, a careful analyst.");
  message = json_array_get_object_element (messages, 1);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "user");
  message = json_array_get_object_element (messages, 2);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (message, "content"), ==, "Let me look.");
  {
    JsonArray *calls = json_object_get_array_member (message, "tool_calls");
    JsonObject *call = json_array_get_object_element (calls, 1);
    JsonObject *function = json_object_get_object_member (call, "function");

    g_assert_cmpuint (json_array_get_length (calls), ==, 2);
    g_assert_cmpstr (json_object_get_string_member (call, "id"), ==, "call_2");
    g_assert_cmpstr (json_object_get_string_member (call, "type"), ==, "function");
    g_assert_cmpstr (json_object_get_string_member (function, "name"), ==, "execute_python");
    /* Arguments go back as the text the model wrote, invalid or not. */
    g_assert_cmpstr (json_object_get_string_member (function, "arguments"), ==, "{not json");
  }
  message = json_array_get_object_element (messages, 3);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "tool");
  g_assert_cmpstr (json_object_get_string_member (message, "tool_call_id"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (message, "content"), ==, "1000");
  message = json_array_get_object_element (messages, 4);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "tool");
  g_assert_cmpstr (json_object_get_string_member (message, "tool_call_id"), ==, "call_2");
  message = json_array_get_object_element (messages, 5);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (message, "content"), ==, "And the columns?");

  tool = json_array_get_object_element (json_object_get_array_member (body, "tools"), 0);
  g_assert_cmpstr (json_object_get_string_member (tool, "type"), ==, "function");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (tool, "function"), "name"),
                   ==, "execute_python");
  g_assert_true (json_object_has_member (json_object_get_object_member (tool, "function"), "parameters"));
  run_clear (&run);
}

static void
test_openai_fragmented_calls (void)
{
  Run run;
  g_autoptr(GPtrArray) requests = NULL;

  run_init (&run);
  requests = stream_once ("openai", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"openai\", \"turn\": {\"text\": \"Reading it.\", "
                          TWO_CALLS "}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Reading it.");
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_TOOL_USE);
  g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
  assert_call (run.response, 0, "execute_python", CALL0_ARGS);
  assert_call (run.response, 1, "list_files", "{}");
  for (guint i = 0; i < 2; i++)
    {
      AssayLlmToolCall *call = g_ptr_array_index (run.response->tool_calls, i);

      g_assert_true (g_str_has_prefix (call->id, "call_"));
      g_assert_cmpuint (strlen (call->id), ==, 29);
    }
  /* Fragmented: many pieces were emitted for the first call's arguments. */
  g_assert_cmpuint (run.calls->len, ==, 2);
  g_assert_cmpuint (requests->len, ==, 1);
  run_clear (&run);
}

static void
test_ollama_whole_calls (void)
{
  Run run;
  g_autoptr(GPtrArray) requests = NULL;

  run_init (&run);
  /* No key: Ollama needs none. Two calls, both at index 0, each whole in one chunk. */
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"ollama\", \"turn\": {" TWO_CALLS ", "
                          "\"usage\": {\"input\": 33, \"output\": 44}}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "");
  g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
  assert_call (run.response, 0, "execute_python", CALL0_ARGS);
  assert_call (run.response, 1, "list_files", "{}");
  for (guint i = 0; i < 2; i++)
    {
      AssayLlmToolCall *call = g_ptr_array_index (run.response->tool_calls, i);

      g_assert_true (g_str_has_prefix (call->id, "call_"));
      g_assert_cmpuint (strlen (call->id), ==, 13);
    }
  g_assert_cmpstr (((AssayLlmToolCall *) g_ptr_array_index (run.response->tool_calls, 0))->id, !=,
                   ((AssayLlmToolCall *) g_ptr_array_index (run.response->tool_calls, 1))->id);
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_TOOL_USE);
  g_assert_cmpint (run.response->input_tokens, ==, 33);
  g_assert_cmpint (run.response->output_tokens, ==, 44);
  g_assert_null (request_header (requests, 0, "authorization"));
  run_clear (&run);
}

static void
test_llamacpp_fragments (void)
{
  Run run;
  g_autoptr(GPtrArray) requests = NULL;

  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"llamacpp\", \"turn\": {\"text\": \"Let me "
                          "check.\", " TWO_CALLS ", \"usage\": {\"input\": 5, \"output\": 6}}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Let me check.");
  g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
  assert_call (run.response, 0, "execute_python", CALL0_ARGS);
  assert_call (run.response, 1, "list_files", "{}");
  g_assert_cmpuint (strlen (((AssayLlmToolCall *) g_ptr_array_index (run.response->tool_calls, 0))->id), ==, 32);
  g_assert_cmpint (run.response->input_tokens, ==, 5);
  g_assert_cmpint (run.response->output_tokens, ==, 6);
  run_clear (&run);
}

static void
test_anthropic_tool_use (void)
{
  Run run;
  g_autoptr(GPtrArray) requests = NULL;
  JsonObject *body;
  JsonArray *messages;
  JsonObject *message;
  JsonArray *content;
  JsonObject *block;

  run_init (&run);
  requests = stream_once ("anthropic", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"anthropic\", \"turn\": {\"text\": \"I will "
                          "read the file.\", " TWO_CALLS ", \"usage\": {\"input\": 250, \"output\": 77}}}]}",
                          &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "I will read the file.");
  g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
  assert_call (run.response, 0, "execute_python", CALL0_ARGS);
  assert_call (run.response, 1, "list_files", "{}");
  g_assert_true (g_str_has_prefix (((AssayLlmToolCall *) g_ptr_array_index (run.response->tool_calls, 0))->id,
                                   "toolu_01"));
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_TOOL_USE);
  g_assert_cmpstr (run.response->stop_reason_raw, ==, "tool_use");
  g_assert_cmpint (run.response->input_tokens, ==, 250);
  g_assert_cmpint (run.response->output_tokens, ==, 77);

  g_assert_cmpuint (requests->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (request_object (requests, 0), "path"), ==, "/v1/messages");
  g_assert_cmpstr (request_header (requests, 0, "x-api-key"), ==, TEST_KEY);
  g_assert_cmpstr (request_header (requests, 0, "anthropic-version"), ==, "2023-06-01");
  g_assert_null (request_header (requests, 0, "authorization"));
  body = request_body (requests, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "system"), ==, "You are Assay, a careful analyst.");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 4096);
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  block = json_array_get_object_element (json_object_get_array_member (body, "tools"), 0);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "execute_python");
  g_assert_true (json_object_has_member (block, "input_schema"));

  /* user, assistant (text + 2 tool_use), user (2 tool_result + the question). */
  messages = json_object_get_array_member (body, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 3);
  message = json_array_get_object_element (messages, 0);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "user");
  message = json_array_get_object_element (messages, 1);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "assistant");
  content = json_object_get_array_member (message, "content");
  g_assert_cmpuint (json_array_get_length (content), ==, 3);
  block = json_array_get_object_element (content, 1);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "tool_use");
  g_assert_cmpstr (json_object_get_string_member (block, "id"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (block, "input"), "code"),
                   ==, "len(df)");
  /* Invalid arguments still make a valid request: an object keeping the text. */
  block = json_array_get_object_element (content, 2);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (block, "input")));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (block, "input"),
                                                  "invalid_json_arguments"), ==, "{not json");

  message = json_array_get_object_element (messages, 2);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "user");
  content = json_object_get_array_member (message, "content");
  g_assert_cmpuint (json_array_get_length (content), ==, 3);
  block = json_array_get_object_element (content, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (block, "tool_use_id"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (block, "content"), ==, "1000");
  g_assert_false (json_object_has_member (block, "is_error"));
  block = json_array_get_object_element (content, 1);
  g_assert_cmpstr (json_object_get_string_member (block, "tool_use_id"), ==, "call_2");
  g_assert_true (json_object_get_boolean_member (block, "is_error"));
  block = json_array_get_object_element (content, 2);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "text");
  g_assert_cmpstr (json_object_get_string_member (block, "text"), ==, "And the columns?");
  run_clear (&run);
}

/* Malformed arguments, a tool we do not have, and code in a fenced block instead of a call
 * are the agent's business: the provider passes them through as they came. */
static void
test_passthrough (void)
{
  const char *flavors[] = { "openai", "ollama", "llamacpp", "anthropic" };

  for (guint i = 0; i < G_N_ELEMENTS (flavors); i++)
    {
      g_autofree char *script = g_strdup_printf (
        "{\"responses\": [{\"flavor\": \"%s\", \"turn\": {\"text\": \"Here:\\n```python\\nprint(df.head())\\n```\", "
        "\"tool_calls\": [{\"name\": \"execute_python\", \"arguments\": \"{\\\"code\\\": \\\"print(1)\"}, "
        "{\"name\": \"delete_everything\", \"arguments\": \"{\\\"path\\\": \\\"/\\\"}\"}]}}]}", flavors[i]);
      g_autoptr(GPtrArray) requests = NULL;
      Run run;

      run_init (&run);
      requests = stream_once (g_str_equal (flavors[i], "anthropic") ? "anthropic" : "openai",
                              NULL, script, &run);
      g_assert_no_error (run.error);
      g_assert_cmpstr (run.response->text, ==, "Here:\n```python\nprint(df.head())\n```");
      g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
      assert_call (run.response, 0, "execute_python", "{\"code\": \"print(1)");
      assert_call (run.response, 1, "delete_everything", "{\"path\": \"/\"}");
      run_clear (&run);
    }
}

static void
test_retry_429 (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  run_init (&run);
  requests = stream_once ("openai", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"openai\", \"status\": 429, \"headers\": "
                          "{\"retry-after\": \"3\"}, \"message\": \"Rate limit reached\"},"
                          "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Done.\"}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Done.");
  g_assert_cmpuint (run.response->attempts, ==, 2);
  g_assert_cmpuint (run.retry_delays->len, ==, 1);
  /* The server's Retry-After, as it asked (the wait itself is scaled for the test). */
  g_assert_cmpuint (g_array_index (run.retry_delays, guint, 0), ==, 3000);
  g_assert_cmpstr (g_ptr_array_index (run.retry_reasons, 0), ==, "rate limited");
  g_assert_cmpuint (requests->len, ==, 2);
  run_clear (&run);

  /* retry-after-ms wins over retry-after. */
  run_init (&run);
  g_clear_pointer (&requests, g_ptr_array_unref);
  requests = stream_once ("anthropic", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"anthropic\", \"status\": 429, \"headers\": "
                          "{\"retry-after-ms\": \"1500\", \"retry-after\": \"2\"}},"
                          "{\"flavor\": \"anthropic\", \"turn\": {\"text\": \"Done.\"}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpuint (g_array_index (run.retry_delays, guint, 0), ==, 1500);
  g_assert_cmpuint (requests->len, ==, 2);
  run_clear (&run);
}

/* Retry-After may be an HTTP date. */
static void
test_retry_after_date (void)
{
  static const char *days[] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };
  static const char *months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
                                  "Sep", "Oct", "Nov", "Dec" };
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) when = g_date_time_add_seconds (now, 3);
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *date = NULL;
  g_autofree char *script = NULL;
  guint delay;
  Run run;

  date = g_strdup_printf ("%s, %02d %s %d %02d:%02d:%02d GMT",
                          days[g_date_time_get_day_of_week (when) - 1],
                          g_date_time_get_day_of_month (when),
                          months[g_date_time_get_month (when) - 1],
                          g_date_time_get_year (when), g_date_time_get_hour (when),
                          g_date_time_get_minute (when), g_date_time_get_second (when));
  script = g_strdup_printf ("{\"responses\": [{\"flavor\": \"openai\", \"status\": 503, \"headers\": "
                            "{\"Retry-After\": \"%s\"}},"
                            "{\"flavor\": \"openai\", \"turn\": {\"text\": \"ok\"}}]}", date);
  run_init (&run);
  requests = stream_once ("openai", NULL, script, &run);
  g_assert_no_error (run.error);
  delay = g_array_index (run.retry_delays, guint, 0);
  g_assert_cmpuint (delay, >=, 1000);
  g_assert_cmpuint (delay, <=, 3000);
  g_assert_cmpuint (delay % 1000, ==, 0);
  run_clear (&run);
}

static void
test_retry_500_then_success (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;
  guint delay;

  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"llamacpp\", \"status\": 500},"
                          "{\"flavor\": \"llamacpp\", \"turn\": {\"text\": \"Fine now.\"}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Fine now.");
  g_assert_cmpuint (run.response->attempts, ==, 2);
  /* No Retry-After: 0.5 s with jitter, between half and all of it. */
  delay = g_array_index (run.retry_delays, guint, 0);
  g_assert_cmpuint (delay, >=, 250);
  g_assert_cmpuint (delay, <=, 500);
  g_assert_cmpstr (g_ptr_array_index (run.retry_reasons, 0), ==, "server error");
  run_clear (&run);
}

static void
test_retry_overloaded (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  /* HTTP 529, then overloaded_error in the stream after some text, then the answer. */
  run_init (&run);
  requests = stream_once ("anthropic", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"anthropic\", \"status\": 529, \"message\": \"Overloaded\"},"
                          "{\"flavor\": \"anthropic\", \"turn\": {\"text\": \"Partial answer that is void\"}, "
                          "\"end_after_events\": 4, \"error_event\": true},"
                          "{\"flavor\": \"anthropic\", \"turn\": {\"text\": \"The real answer.\"}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "The real answer.");
  g_assert_cmpuint (run.response->attempts, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (run.retry_reasons, 0), ==, "overloaded");
  g_assert_cmpstr (g_ptr_array_index (run.retry_reasons, 1), ==, "overloaded");
  g_assert_cmpuint (requests->len, ==, 3);
  run_clear (&run);
}

static void
assert_gives_up (const char   *flavor,
                 const char   *script,
                 AssayLlmError code,
                 const char   *words)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  run_init (&run);
  requests = stream_once (flavor, TEST_KEY, script, &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, (int) code);
  g_test_message ("%s", run.error->message);
  g_assert_nonnull (strstr (run.error->message, words));
  g_assert_true (g_str_has_suffix (run.error->message, "(gave up after 4 attempts)"));
  g_assert_null (run.response);
  g_assert_cmpuint (run.retry_delays->len, ==, 3);
  g_assert_cmpuint (requests->len, ==, 4);
  run_clear (&run);
}

static void
test_retries_run_out (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  assert_gives_up ("openai",
                   "{\"responses\": [{\"flavor\": \"openai\", \"status\": 429, \"headers\": {\"retry-after\": \"1\"}, "
                   "\"message\": \"Rate limit reached for gpt-4o\"}]}",
                   ASSAY_LLM_ERROR_RATE_LIMITED, "Rate limit reached for gpt-4o");
  assert_gives_up ("anthropic",
                   "{\"responses\": [{\"flavor\": \"anthropic\", \"status\": 529, \"message\": \"Overloaded\"}]}",
                   ASSAY_LLM_ERROR_OVERLOADED, "overloaded");
  assert_gives_up ("openai",
                   "{\"responses\": [{\"flavor\": \"ollama\", \"status\": 503, \"message\": \"server busy\"}]}",
                   ASSAY_LLM_ERROR_SERVER, "internal error (HTTP 503): server busy");

  /* The backoff doubles: 0.5 s, 1 s, 2 s, each with jitter. */
  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"openai\", \"status\": 502}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_SERVER);
  g_assert_cmpuint (run.retry_delays->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      guint delay = g_array_index (run.retry_delays, guint, i);

      g_assert_cmpuint (delay, >=, 250u << i);
      g_assert_cmpuint (delay, <=, 500u << i);
    }
  run_clear (&run);

  /* A server asking for more than two minutes is not waited for. */
  run_init (&run);
  g_clear_pointer (&requests, g_ptr_array_unref);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"openai\", \"status\": 429, \"headers\": "
                          "{\"retry-after\": \"3600\"}, \"message\": \"quota\"}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_RATE_LIMITED);
  g_assert_nonnull (strstr (run.error->message, "60 minutes"));
  g_assert_cmpuint (run.retry_delays->len, ==, 0);
  g_assert_cmpuint (requests->len, ==, 1);
  run_clear (&run);
}

static void
test_stream_cut (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  /* Cut once in the middle of a tool call: retried, and the answer is the second one. */
  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"openai\", \"turn\": {\"text\": \"First try\", "
                          TWO_CALLS "}, \"cut_after_events\": 6},"
                          "{\"flavor\": \"openai\", \"turn\": {\"text\": \"Second try\", " TWO_CALLS "}}]}",
                          &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Second try");
  g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
  g_assert_cmpuint (run.response->attempts, ==, 2);
  g_assert_cmpuint (requests->len, ==, 2);
  run_clear (&run);

  /* Always cut: an error, never an answer. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("anthropic", NULL,
                          "{\"responses\": [{\"flavor\": \"anthropic\", \"turn\": {\"text\": \"Never finished\"}, "
                          "\"cut_after_events\": 4}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK);
  g_assert_null (run.response);
  g_assert_cmpuint (requests->len, ==, 4);
  run_clear (&run);

  /* Ollama ends cleanly without [DONE] or a finish reason on an error: also not an answer. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"ollama\", \"turn\": {\"text\": \"Never finished at all\"}, "
                          "\"end_after_events\": 2}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL);
  g_assert_cmpuint (requests->len, ==, 4);
  run_clear (&run);

  /* A finish reason without [DONE] is an answer (usage may be missing). */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"raw\", \"raw\": \"data: {\\\"choices\\\":[{\\\"index\\\":0,"
                          "\\\"delta\\\":{\\\"content\\\":\\\"ok\\\"},\\\"finish_reason\\\":\\\"length\\\"}]}\\n\\n\"}]}",
                          &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "ok");
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_MAX_TOKENS);
  g_assert_cmpint (run.response->input_tokens, ==, -1);
  run_clear (&run);
}

static void
test_llamacpp_error_event (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"llamacpp\", \"turn\": {\"text\": \"Some words here\"}, "
                          "\"end_after_events\": 2, \"error_event\": true}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_SERVER);
  g_assert_nonnull (strstr (run.error->message, "the model crashed while decoding"));
  g_assert_cmpuint (requests->len, ==, 4);
  run_clear (&run);

  /* An error event whose code is a string or null is an error too. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"raw\", \"raw\": \"data: {\\\"error\\\": {\\\"message\\\": "
                          "\\\"bad things\\\", \\\"type\\\": \\\"invalid_request_error\\\", \\\"code\\\": \\\"context_length_exceeded\\\"}}\\n\\n\"}]}",
                          &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_BAD_REQUEST);
  g_assert_cmpuint (requests->len, ==, 1);
  run_clear (&run);
}

static void
test_auth (void)
{
  const char *flavors[] = { "openai", "anthropic" };

  for (guint i = 0; i < G_N_ELEMENTS (flavors); i++)
    {
      g_autofree char *script = g_strdup_printf (
        "{\"responses\": [{\"flavor\": \"%s\", \"status\": 401, \"message\": "
        "\"Incorrect API key provided: " TEST_KEY ". You can find your key at https://example.com (key sk-t***7890, "
        "SECRET1234567890).\"}]}", flavors[i]);
      g_autoptr(GPtrArray) requests = NULL;
      Run run;

      run_init (&run);
      requests = stream_once (flavors[i], TEST_KEY, script, &run);
      g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_AUTH);
      g_test_message ("%s", run.error->message);
      g_assert_nonnull (strstr (run.error->message, "refused the API key (HTTP 401)"));
      g_assert_nonnull (strstr (run.error->message, "Incorrect API key provided"));
      g_assert_null (strstr (run.error->message, "SECRET"));
      g_assert_null (strstr (run.error->message, TEST_KEY));
      g_assert_cmpuint (run.retry_delays->len, ==, 0);
      g_assert_cmpuint (requests->len, ==, 1);
      run_clear (&run);
    }
}

static void
test_not_retried (void)
{
  struct { int status; AssayLlmError code; const char *words; } cases[] = {
    { 400, ASSAY_LLM_ERROR_BAD_REQUEST, "rejected the request (HTTP 400): something failed" },
    { 403, ASSAY_LLM_ERROR_AUTH, "(HTTP 403)" },
    { 404, ASSAY_LLM_ERROR_NOT_FOUND, "no model “test-model” (HTTP 404)" },
    { 422, ASSAY_LLM_ERROR_BAD_REQUEST, "(HTTP 422)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *script = g_strdup_printf ("{\"responses\": [{\"flavor\": \"openai\", \"status\": %d}]}",
                                                 cases[i].status);
      g_autoptr(GPtrArray) requests = NULL;
      Run run;

      run_init (&run);
      requests = stream_once ("openai", NULL, script, &run);
      g_assert_error (run.error, ASSAY_LLM_ERROR, (int) cases[i].code);
      g_assert_nonnull (strstr (run.error->message, cases[i].words));
      g_assert_cmpuint (run.retry_delays->len, ==, 0);
      g_assert_cmpuint (requests->len, ==, 1);
      run_clear (&run);
    }
}

static void
test_cancel_stream (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  run_init (&run);
  run.cancel_on_text = TRUE;
  requests = stream_once ("openai", NULL,
                          "{\"responses\": [{\"flavor\": \"openai\", \"turn\": {\"text\": \"A long answer that stops\"}, "
                          "\"hang_after_events\": 3}]}", &run);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (run.cancelled_at, >, 0);
  g_assert_cmpint (run.finished_at - run.cancelled_at, <, G_USEC_PER_SEC);
  run_clear (&run);
}

static void
test_cancel_retry_wait (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  /* 110 s scaled for the test is still a 1.1 s wait; cancelling must not sit it out. */
  run_init (&run);
  run.cancel_on_retry = TRUE;
  requests = stream_once ("anthropic", NULL,
                          "{\"responses\": [{\"flavor\": \"anthropic\", \"status\": 429, \"headers\": "
                          "{\"retry-after\": \"110\"}}]}", &run);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (g_array_index (run.retry_delays, guint, 0), ==, 110000);
  g_assert_cmpint (run.finished_at - run.cancelled_at, <, G_USEC_PER_SEC / 2);
  g_assert_cmpuint (requests->len, ==, 1);
  run_clear (&run);
}

static void
test_list_models (void)
{
  const char *flavors[] = { "openai", "ollama", "llamacpp", "anthropic" };

  for (guint i = 0; i < G_N_ELEMENTS (flavors); i++)
    {
      g_autofree char *script = g_strdup_printf (
        "{\"responses\": [], \"models\": {\"flavor\": \"%s\", \"ids\": [\"zeta-2\", \"alpha-1\", \"mid:latest\"]}}",
        flavors[i]);
      gboolean anthropic = g_str_equal (flavors[i], "anthropic");
      FakeServer *server = fake_server_start (script);
      g_autoptr(AssayLlmProvider) provider = make_provider (anthropic ? "anthropic" : "openai",
                                                            server, TEST_KEY);
      g_autoptr(GPtrArray) requests = NULL;
      const char *path;
      Run run;

      run_init (&run);
      run_list_models (provider, &run);
      g_assert_no_error (run.error);
      g_assert_cmpuint (g_strv_length (run.models), ==, 3);
      if (anthropic)
        {
          /* Anthropic lists the newest first: that order is kept. */
          g_assert_cmpstr (run.models[0], ==, "zeta-2");
          g_assert_cmpstr (run.models[1], ==, "alpha-1");
          g_assert_cmpstr (run.models[2], ==, "mid:latest");
        }
      else
        {
          g_assert_cmpstr (run.models[0], ==, "alpha-1");
          g_assert_cmpstr (run.models[1], ==, "mid:latest");
          g_assert_cmpstr (run.models[2], ==, "zeta-2");
        }

      requests = fake_server_requests (server);
      g_assert_cmpuint (requests->len, ==, 1);
      path = json_object_get_string_member (request_object (requests, 0), "path");
      g_assert_true (g_str_has_prefix (path, "/v1/models"));
      if (anthropic)
        {
          g_assert_cmpstr (request_header (requests, 0, "x-api-key"), ==, TEST_KEY);
          g_assert_cmpstr (request_header (requests, 0, "anthropic-version"), ==, "2023-06-01");
        }
      else
        g_assert_cmpstr (request_header (requests, 0, "authorization"), ==, "Bearer " TEST_KEY);
      run_clear (&run);
      fake_server_stop (server);
    }
}

static void
test_list_models_refused (void)
{
  FakeServer *server = fake_server_start ("{\"responses\": [], \"models\": {\"flavor\": \"openai\", \"status\": 401, "
                                          "\"message\": \"no key\"}}");
  g_autoptr(AssayLlmProvider) provider = assay_openai_provider_new (server->base_url, NULL);
  Run run;

  run_init (&run);
  run_list_models (provider, &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_AUTH);
  g_assert_nonnull (strstr (run.error->message, "needs an API key"));
  run_clear (&run);
  fake_server_stop (server);
}

/* A wrong key, in each vendor's own 401 body: an authentication error that never quotes the
 * key (OpenAI echoes its first and last characters back). */
static void
test_list_models_wrong_key (void)
{
  const char *flavors[] = { "openai", "anthropic" };

  for (guint i = 0; i < G_N_ELEMENTS (flavors); i++)
    {
      g_autofree char *script = g_strdup_printf (
        "{\"responses\": [], \"models\": {\"flavor\": \"%s\", \"key\": \"sk-right-key-0000\", "
        "\"ids\": [\"m-1\"]}}", flavors[i]);
      FakeServer *server = fake_server_start (script);
      g_autoptr(AssayLlmProvider) provider = make_provider (flavors[i], server, TEST_KEY);
      g_autoptr(AssayLlmProvider) right = make_provider (flavors[i], server, "sk-right-key-0000");
      Run run;

      run_init (&run);
      run_list_models (provider, &run);
      g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_AUTH);
      g_assert_nonnull (strstr (run.error->message, "refused the API key (HTTP 401)"));
      g_assert_null (strstr (run.error->message, TEST_KEY));
      g_assert_null (strstr (run.error->message, "1234567890"));
      g_assert_null (run.models);
      run_clear (&run);

      run_init (&run);
      run_list_models (right, &run);
      g_assert_no_error (run.error);
      g_assert_cmpstrv (run.models, ((const char *[]) { "m-1", NULL }));
      run_clear (&run);
      fake_server_stop (server);
    }
}

static void
test_connection_refused (void)
{
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(AssayLlmRequest) request = make_request ();
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autofree char *url = NULL;
  guint16 port;
  Run run;

  /* A port that was free a moment ago and has nobody listening. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  address = g_inet_socket_address_new (loopback, 0);
  g_assert_true (g_socket_bind (socket, address, TRUE, NULL));
  g_clear_object (&address);
  address = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address));
  g_socket_close (socket, NULL);

  url = g_strdup_printf ("http://127.0.0.1:%u/v1/", port);
  provider = assay_openai_provider_new (url, NULL);
  run_init (&run);
  run_stream (provider, request, &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK);
  g_test_message ("%s", run.error->message);
  g_assert_true (g_str_has_prefix (run.error->message, "Cannot reach the model server at http://127.0.0.1:"));
  g_assert_true (g_str_has_suffix (run.error->message, "/v1: connection refused"));
  g_assert_cmpuint (run.retry_delays->len, ==, 0);
  run_clear (&run);
}

/* ------------------------------------------------------------------------------------ */
/* OpenAI's Responses API. */

#define REASONING_TURN \
  "\"reasoning\": {\"summary\": \"The user wants a count; read the file first.\", " \
  "\"encrypted\": \"gAAAAABoEncryptedReasoning-1\"}"

static JsonObject *
input_item (JsonArray *input,
            guint      i)
{
  g_assert_cmpuint (i, <, json_array_get_length (input));
  return json_array_get_object_element (input, i);
}

static void
test_responses_tool_call (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  g_autoptr(JsonNode) reasoning = NULL;
  JsonObject *body;
  JsonArray *input;
  JsonArray *include;
  JsonObject *item;
  JsonObject *tool;
  JsonObject *kept;
  Run run;

  run_init (&run);
  requests = stream_once ("responses", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {" REASONING_TURN ", "
                          "\"text\": \"Reading it — “quoted”.\", " TWO_CALLS ", \"usage\": {\"input\": 1200, "
                          "\"cached\": 1024, \"output\": 300, \"reasoning\": 192}}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Reading it — “quoted”.");
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_TOOL_USE);
  g_assert_cmpstr (run.response->stop_reason_raw, ==, "completed");
  g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
  assert_call (run.response, 0, "execute_python", CALL0_ARGS);
  assert_call (run.response, 1, "list_files", "{}");
  /* The call_id, which function_call_output answers, not the item id (fc_…). */
  g_assert_true (g_str_has_prefix (((AssayLlmToolCall *) g_ptr_array_index (run.response->tool_calls, 0))->id,
                                   "call_"));
  g_assert_cmpint (run.response->input_tokens, ==, 1200);
  g_assert_cmpint (run.response->cached_input_tokens, ==, 1024);
  g_assert_cmpint (run.response->output_tokens, ==, 300);
  g_assert_cmpint (run.response->reasoning_tokens, ==, 192);

  /* The reasoning item, kept to go back: id, summary, encrypted content. */
  g_assert_nonnull (run.response->reasoning);
  reasoning = json_from_string (run.response->reasoning, NULL);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (reasoning));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (reasoning)), ==, 1);
  kept = json_array_get_object_element (json_node_get_array (reasoning), 0);
  g_assert_cmpstr (json_object_get_string_member (kept, "type"), ==, "reasoning");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (kept, "id"), "rs_"));
  g_assert_cmpstr (json_object_get_string_member (kept, "encrypted_content"), ==, "gAAAAABoEncryptedReasoning-1");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (kept, "summary")), ==, 1);

  /* What was sent. */
  g_assert_cmpuint (requests->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (request_object (requests, 0), "path"), ==, "/v1/responses");
  g_assert_cmpstr (request_header (requests, 0, "authorization"), ==, "Bearer " TEST_KEY);
  body = request_body (requests, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "test-model");
  g_assert_cmpstr (json_object_get_string_member (body, "instructions"), ==, "You are Assay, a careful analyst.");
  g_assert_false (json_object_has_member (body, "messages"));
  g_assert_false (json_object_has_member (body, "stream_options"));
  g_assert_false (json_object_has_member (body, "max_output_tokens"));
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_false (json_object_get_boolean_member (body, "store"));
  include = json_object_get_array_member (body, "include");
  g_assert_cmpuint (json_array_get_length (include), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (include, 0), ==, "reasoning.encrypted_content");

  input = json_object_get_array_member (body, "input");
  /* user, assistant text, two function_calls, two function_call_outputs, user. */
  g_assert_cmpuint (json_array_get_length (input), ==, 7);
  item = input_item (input, 0);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==, "message");
  g_assert_cmpstr (json_object_get_string_member (item, "role"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (item, "content"), ==, "How many rows are there?");
  item = input_item (input, 1);
  g_assert_cmpstr (json_object_get_string_member (item, "role"), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (item, "content"), ==, "Let me look.");
  item = input_item (input, 3);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==, "function_call");
  g_assert_cmpstr (json_object_get_string_member (item, "call_id"), ==, "call_2");
  g_assert_cmpstr (json_object_get_string_member (item, "name"), ==, "execute_python");
  g_assert_cmpstr (json_object_get_string_member (item, "arguments"), ==, "{not json");
  g_assert_false (json_object_has_member (item, "id"));
  item = input_item (input, 4);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==, "function_call_output");
  g_assert_cmpstr (json_object_get_string_member (item, "call_id"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (item, "output"), ==, "1000");
  item = input_item (input, 6);
  g_assert_cmpstr (json_object_get_string_member (item, "content"), ==, "And the columns?");

  /* Function tools are flat. */
  tool = json_array_get_object_element (json_object_get_array_member (body, "tools"), 0);
  g_assert_cmpstr (json_object_get_string_member (tool, "type"), ==, "function");
  g_assert_cmpstr (json_object_get_string_member (tool, "name"), ==, "execute_python");
  g_assert_true (json_object_has_member (tool, "parameters"));
  g_assert_false (json_object_get_boolean_member (tool, "strict"));
  g_assert_false (json_object_has_member (tool, "function"));
  run_clear (&run);
}

/* The reasoning a turn came with goes back in the next request, before that turn's calls,
 * exactly as it came. */
static void
test_responses_reasoning_carried (void)
{
  FakeServer *server = fake_server_start ("{\"responses\": [{\"flavor\": \"responses\", \"turn\": {"
                                          REASONING_TURN ", " TWO_CALLS "}},"
                                          "{\"flavor\": \"responses\", \"turn\": {\"text\": \"1000 rows.\"}}]}");
  g_autoptr(AssayLlmProvider) provider = assay_openai_provider_new_for_api (server->base_url, NULL,
                                                                            ASSAY_OPENAI_API_RESPONSES);
  g_autoptr(AssayLlmRequest) request = assay_llm_request_new ();
  g_autoptr(GPtrArray) requests = NULL;
  AssayLlmMessage *assistant;
  JsonArray *input;
  JsonObject *item;
  Run run;

  request->model = g_strdup ("gpt-5-mini");
  g_ptr_array_add (request->messages, assay_llm_message_new_user ("How many rows?"));
  run_init (&run);
  run_stream (provider, request, &run);
  g_assert_no_error (run.error);
  g_assert_nonnull (run.response->reasoning);

  /* What the agent does with a turn: the assistant message keeps its reasoning. */
  assistant = assay_llm_message_new_assistant (run.response->text);
  assistant->reasoning = g_strdup (run.response->reasoning);
  for (guint i = 0; i < run.response->tool_calls->len; i++)
    g_ptr_array_add (assistant->tool_calls,
                     assay_llm_tool_call_copy (g_ptr_array_index (run.response->tool_calls, i)));
  g_ptr_array_add (request->messages, assistant);
  for (guint i = 0; i < run.response->tool_calls->len; i++)
    g_ptr_array_add (request->messages,
                     assay_llm_message_new_tool (((AssayLlmToolCall *) g_ptr_array_index (run.response->tool_calls, i))->id,
                                                 "1000", FALSE));
  /* A copy (the agent masks a copy of each message) keeps it too. */
  {
    AssayLlmMessage *copy = assay_llm_message_copy (assistant);

    g_assert_cmpstr (copy->reasoning, ==, assistant->reasoning);
    assay_llm_message_free (copy);
  }
  run_clear (&run);

  run_init (&run);
  run_stream (provider, request, &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "1000 rows.");
  g_assert_null (run.response->reasoning);
  requests = fake_server_requests (server);
  g_assert_cmpuint (requests->len, ==, 2);
  input = json_object_get_array_member (request_body (requests, 1), "input");
  /* user, reasoning, two function_calls (no text), two outputs. */
  g_assert_cmpuint (json_array_get_length (input), ==, 6);
  item = input_item (input, 1);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==, "reasoning");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (item, "id"), "rs_"));
  g_assert_cmpstr (json_object_get_string_member (item, "encrypted_content"), ==, "gAAAAABoEncryptedReasoning-1");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (item, "summary"), 0),
                                                  "text"), ==, "The user wants a count; read the file first.");
  g_assert_false (json_object_has_member (item, "status"));
  g_assert_cmpstr (json_object_get_string_member (input_item (input, 2), "type"), ==, "function_call");
  g_assert_cmpstr (json_object_get_string_member (input_item (input, 4), "type"), ==, "function_call_output");
  run_clear (&run);
  fake_server_stop (server);
}

static void
test_responses_retry_429 (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  run_init (&run);
  requests = stream_once ("responses", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"responses\", \"status\": 429, \"headers\": "
                          "{\"retry-after\": \"2\"}, \"message\": \"Rate limit reached for gpt-5\"},"
                          "{\"flavor\": \"responses\", \"turn\": {\"text\": \"Done.\"}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Done.");
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_END_TURN);
  g_assert_cmpuint (run.response->attempts, ==, 2);
  g_assert_cmpuint (g_array_index (run.retry_delays, guint, 0), ==, 2000);
  g_assert_cmpstr (g_ptr_array_index (run.retry_reasons, 0), ==, "rate limited");
  g_assert_cmpuint (requests->len, ==, 2);
  run_clear (&run);

  /* 429 every time: the rate limit's code once the retries ran out. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("responses", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"responses\", \"status\": 429, \"headers\": "
                          "{\"retry-after\": \"1\"}}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_RATE_LIMITED);
  g_assert_cmpuint (requests->len, ==, 1 + 3);
  run_clear (&run);
}

static void
test_responses_stream_cut (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  /* Cut in the middle of a call's arguments: retried, the answer is the second one. */
  run_init (&run);
  requests = stream_once ("responses", NULL,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {\"text\": \"First try\", "
                          TWO_CALLS "}, \"cut_after_events\": 14},"
                          "{\"flavor\": \"responses\", \"turn\": {\"text\": \"Second try\", " TWO_CALLS "}}]}",
                          &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Second try");
  g_assert_cmpuint (run.response->tool_calls->len, ==, 2);
  assert_call (run.response, 0, "execute_python", CALL0_ARGS);
  g_assert_cmpuint (run.response->attempts, ==, 2);
  g_assert_cmpuint (requests->len, ==, 2);
  run_clear (&run);

  /* A body that ends cleanly before response.completed is not an answer either. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("responses", NULL,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {\"text\": \"Never finished\"}, "
                          "\"end_after_events\": 6}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL);
  g_assert_null (run.response);
  g_assert_cmpuint (requests->len, ==, 1 + 3);
  run_clear (&run);
}

static void
test_responses_failed (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  /* response.failed with a server error: retried, then an answer. */
  run_init (&run);
  requests = stream_once ("responses", NULL,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {\"text\": \"Partial\", "
                          "\"failed\": {\"code\": \"server_error\", \"message\": \"The model failed\\u001b[31m to "
                          "generate a response.\"}}},"
                          "{\"flavor\": \"responses\", \"turn\": {\"text\": \"Whole.\"}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Whole.");
  g_assert_cmpuint (run.response->attempts, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (run.retry_reasons, 0), ==, "server error");
  run_clear (&run);

  /* Always failing: SERVER, with the server's reason, its escape sequence taken out. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("responses", NULL,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {\"failed\": {\"code\": "
                          "\"server_error\", \"message\": \"The model failed\\u001b[31m to generate a response.\"}}}]}",
                          &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_SERVER);
  g_assert_nonnull (strstr (run.error->message, "The model failed [31m to generate a response."));
  g_assert_null (strchr (run.error->message, '\033'));
  g_assert_cmpuint (requests->len, ==, 1 + 3);
  run_clear (&run);

  /* A prompt the server will not take is not sent again. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("responses", NULL,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {\"failed\": {\"code\": "
                          "\"invalid_prompt\", \"message\": \"Invalid prompt: flagged.\"}}}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_BAD_REQUEST);
  g_assert_cmpuint (requests->len, ==, 1);
  run_clear (&run);

  /* An error event instead of the end. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("responses", NULL,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {\"text\": \"Cut short\"}, "
                          "\"end_after_events\": 4, \"error_event\": true},"
                          "{\"flavor\": \"responses\", \"turn\": {\"text\": \"After the error.\"}}]}", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "After the error.");
  g_assert_cmpuint (run.response->attempts, ==, 2);
  run_clear (&run);

  /* response.incomplete at the output limit: an answer cut short, said so. */
  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("responses", NULL,
                          "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {\"text\": \"Half an\", "
                          "\"incomplete\": \"max_output_tokens\", \"usage\": {\"input\": 5, \"output\": 4096}}}]}",
                          &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.response->text, ==, "Half an");
  g_assert_cmpint (run.response->stop_reason, ==, ASSAY_LLM_STOP_MAX_TOKENS);
  g_assert_cmpstr (run.response->stop_reason_raw, ==, "max_output_tokens");
  g_assert_cmpint (run.response->output_tokens, ==, 4096);
  run_clear (&run);
}

static void
test_responses_auth_not_found (void)
{
  g_autoptr(GPtrArray) requests = NULL;
  Run run;

  run_init (&run);
  requests = stream_once ("responses", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"responses\", \"status\": 401, \"message\": "
                          "\"Incorrect API key provided: sk-test-SECRET1234567890.\"}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_AUTH);
  g_assert_null (strstr (run.error->message, TEST_KEY));
  g_assert_cmpuint (requests->len, ==, 1);
  run_clear (&run);

  g_clear_pointer (&requests, g_ptr_array_unref);
  run_init (&run);
  requests = stream_once ("responses", TEST_KEY,
                          "{\"responses\": [{\"flavor\": \"responses\", \"status\": 404, \"message\": "
                          "\"The model `test-model` does not exist or you do not have access to it.\"}]}", &run);
  g_assert_error (run.error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NOT_FOUND);
  g_assert_cmpuint (requests->len, ==, 1);
  run_clear (&run);
}

/* Which API a provider speaks: Responses for OpenAI's own server, Chat Completions for the
 * servers that copy it, unless told. */
static void
test_responses_choice (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayLlmProvider) vendor = assay_openai_provider_new (NULL, "sk-x");
  g_autoptr(AssayLlmProvider) vendor_url = assay_openai_provider_new ("https://api.openai.com/v1/", "sk-x");
  g_autoptr(AssayLlmProvider) local = assay_openai_provider_new ("http://127.0.0.1:11434/v1", NULL);
  g_autoptr(AssayLlmProvider) chosen = NULL;
  g_autoptr(AssayLlmProvider) chat = NULL;
  g_autoptr(AssayLlmProvider) anthropic = NULL;

  g_assert_cmpstr (assay_llm_provider_get_wire_format (vendor), ==, "responses");
  g_assert_cmpstr (assay_llm_provider_get_wire_format (vendor_url), ==, "responses");
  g_assert_cmpstr (assay_llm_provider_get_wire_format (local), ==, "chat-completions");

  chosen = assay_llm_provider_new_for_name_and_api ("openai", "http://127.0.0.1:8080/v1", NULL, "responses", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_llm_provider_get_wire_format (chosen), ==, "responses");
  chat = assay_llm_provider_new_for_name_and_api ("openai", NULL, "sk-x", "chat", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_llm_provider_get_wire_format (chat), ==, "chat-completions");
  anthropic = assay_llm_provider_new_for_name_and_api ("anthropic", NULL, "sk-x", "auto", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_llm_provider_get_wire_format (anthropic), ==, "messages");

  g_assert_null (assay_llm_provider_new_for_name_and_api ("openai", NULL, NULL, "assistants", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (assay_llm_provider_new_for_name_and_api ("anthropic", NULL, NULL, "responses", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

int
main (int   argc,
      char *argv[])
{
  g_setenv ("ASSAY_LLM_RETRY_SCALE", G_STRINGIFY (RETRY_SCALE), TRUE);
  g_setenv ("no_proxy", "127.0.0.1,localhost", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/assay/llm/openai/text", test_openai_text);
  g_test_add_func ("/assay/llm/openai/fragmented-calls", test_openai_fragmented_calls);
  g_test_add_func ("/assay/llm/ollama/whole-calls", test_ollama_whole_calls);
  g_test_add_func ("/assay/llm/llamacpp/fragments", test_llamacpp_fragments);
  g_test_add_func ("/assay/llm/llamacpp/error-event", test_llamacpp_error_event);
  g_test_add_func ("/assay/llm/anthropic/tool-use", test_anthropic_tool_use);
  g_test_add_func ("/assay/llm/passthrough", test_passthrough);
  g_test_add_func ("/assay/llm/retry/429", test_retry_429);
  g_test_add_func ("/assay/llm/retry/500", test_retry_500_then_success);
  g_test_add_func ("/assay/llm/retry/after-date", test_retry_after_date);
  g_test_add_func ("/assay/llm/retry/overloaded", test_retry_overloaded);
  g_test_add_func ("/assay/llm/retry/run-out", test_retries_run_out);
  g_test_add_func ("/assay/llm/stream-cut", test_stream_cut);
  g_test_add_func ("/assay/llm/auth", test_auth);
  g_test_add_func ("/assay/llm/not-retried", test_not_retried);
  g_test_add_func ("/assay/llm/cancel/stream", test_cancel_stream);
  g_test_add_func ("/assay/llm/cancel/retry-wait", test_cancel_retry_wait);
  g_test_add_func ("/assay/llm/models", test_list_models);
  g_test_add_func ("/assay/llm/models-refused", test_list_models_refused);
  g_test_add_func ("/assay/llm/models-wrong-key", test_list_models_wrong_key);
  g_test_add_func ("/assay/llm/connection-refused", test_connection_refused);
  g_test_add_func ("/assay/llm/responses/tool-call", test_responses_tool_call);
  g_test_add_func ("/assay/llm/responses/reasoning-carried", test_responses_reasoning_carried);
  g_test_add_func ("/assay/llm/responses/retry-429", test_responses_retry_429);
  g_test_add_func ("/assay/llm/responses/stream-cut", test_responses_stream_cut);
  g_test_add_func ("/assay/llm/responses/failed", test_responses_failed);
  g_test_add_func ("/assay/llm/responses/auth-not-found", test_responses_auth_not_found);
  g_test_add_func ("/assay/llm/responses/choice", test_responses_choice);

  return g_test_run ();
}
