/* SPDX-License-Identifier: GPL-3.0-or-later */
/* OpenAI's Containers API client and the Responses API's code_interpreter events, against
 * tests/llm/fake_llm_server.py (which checks the documented request shapes and runs the
 * container's code with python3); and the safe names of cited files. */
#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "assay-agent.h"
#include "assay-llm-provider.h"
#include "assay-openai-container.h"

#define TEST_KEY "sk-test-SECRET1234567890"

typedef struct
{
  GSubprocess *process;
  char        *dir;
  char        *base_url;
} FakeServer;

static FakeServer *
fake_server_start (const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *script_path = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *port = NULL;
  FakeServer *server = g_new0 (FakeServer, 1);

  server->dir = g_dir_make_tmp ("assay-hosted-XXXXXX", &error);
  g_assert_no_error (error);
  script_path = g_build_filename (server->dir, "script.json", NULL);
  log_path = g_build_filename (server->dir, "requests.jsonl", NULL);
  g_file_set_contents (script_path, script, -1, &error);
  g_assert_no_error (error);
  server->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                      PYTHON3, FAKE_LLM_SERVER, script_path, log_path, NULL);
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
  g_autofree char *log_path = g_build_filename (server->dir, "requests.jsonl", NULL);

  g_autoptr(GSubprocess) remove = NULL;

  g_subprocess_force_exit (server->process);
  g_subprocess_wait (server->process, NULL, NULL);
  g_object_unref (server->process);
  g_unlink (script_path);
  g_unlink (log_path);
  /* The fake's containers are folders beside its log. */
  remove = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, NULL, PYTHON3, "-c",
                             "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)",
                             server->dir, NULL);
  if (remove != NULL)
    g_subprocess_wait (remove, NULL, NULL);
  g_free (server->dir);
  g_free (server->base_url);
  g_free (server);
}

static void
test_safe_name (void)
{
  struct { const char *in; const char *out; } cases[] = {
    { "summary.csv", "summary.csv" },
    { "../../x", "x" },
    { "/mnt/data/../../etc/passwd", "passwd" },
    { "..", "fallback" },
    { "", "fallback" },
    { NULL, "fallback" },
    { ".hidden", "hidden" },
    { "a\\b.csv", "b.csv" },
    { "evil\x1b[31m\r\nname.csv", "evil_[31m__name.csv" },
    { "right\xe2\x80\xaeto-left.csv", "right_to-left.csv" },
    { "bad\xff" "utf8.csv", "bad\xef\xbf\xbdutf8.csv" },
  };
  g_autofree char *long_name = g_strnfill (300, 'n');
  g_autofree char *long_csv = g_strconcat (long_name, ".csv", NULL);
  g_autofree char *cut = NULL;
  g_autofree char *cyrillic = NULL;
  GString *many = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *safe = assay_openai_container_safe_name (cases[i].in, "fallback");

      g_assert_cmpstr (safe, ==, cases[i].out);
    }
  cut = assay_openai_container_safe_name (long_csv, "fallback");
  g_assert_cmpuint (strlen (cut), ==, 120);
  g_assert_true (g_str_has_suffix (cut, ".csv"));
  /* Cut on a character, never in the middle of one. */
  for (guint i = 0; i < 100; i++)
    g_string_append (many, "д");
  cyrillic = assay_openai_container_safe_name (many->str, "fallback");
  g_assert_true (g_utf8_validate (cyrillic, -1, NULL));
  g_assert_cmpuint (strlen (cyrillic), <=, 120);
  g_string_free (many, TRUE);
}

static void
test_container_lifecycle (void)
{
  FakeServer *server = fake_server_start ("{\"responses\": [], \"containers\": {\"create_statuses\": [429]}}");
  g_autoptr(AssayOpenaiContainer) container = assay_openai_container_new (server->base_url, TEST_KEY);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (server->dir, "data.csv", NULL);
  g_autofree char *file_id = NULL;
  g_autoptr(GBytes) back = NULL;
  g_autoptr(GBytes) none = NULL;

  g_file_set_contents (path, "a,b\n1,2\n", -1, &error);
  g_assert_no_error (error);
  g_assert_null (assay_openai_container_get_id (container));
  /* The 429 is retried. */
  g_assert_true (assay_openai_container_create (container, "assay-test", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (assay_openai_container_get_id (container), "cntr_"));

  g_assert_true (assay_openai_container_upload (container, path, "data.csv", &file_id, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (file_id, "cfile_"));
  back = assay_openai_container_download (container, NULL, file_id, 1024, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (back, NULL), g_bytes_get_size (back), "a,b\n1,2\n", 8);

  /* Over the cap: refused, not cut. */
  none = assay_openai_container_download (container, NULL, file_id, 4, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_TOO_LARGE);
  g_clear_error (&error);
  /* A file that is not there. */
  none = assay_openai_container_download (container, NULL, "cfile_missing", 1024, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_FAILED);
  g_clear_error (&error);
  /* A dataset that is not a file. */
  g_assert_false (assay_openai_container_upload (container, server->dir, "dir", NULL, NULL, &error));
  g_assert_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_FAILED);
  g_clear_error (&error);

  {
    g_autofree char *id = g_strdup (assay_openai_container_get_id (container));

    g_assert_true (assay_openai_container_delete (container, NULL, &error));
    g_assert_no_error (error);
    g_assert_null (assay_openai_container_get_id (container));
    g_assert_true (assay_openai_container_create (container, "again", NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpstr (assay_openai_container_get_id (container), !=, id);
  }
  g_unlink (path);
  fake_server_stop (server);
}

static void
test_container_expired (void)
{
  FakeServer *server = fake_server_start ("{\"responses\": []}");
  g_autoptr(AssayOpenaiContainer) container = assay_openai_container_new (server->base_url, TEST_KEY);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (server->dir, "data.csv", NULL);
  g_autofree char *url = NULL;
  g_autofree char *file_id = NULL;
  g_autoptr(GSubprocess) expire = NULL;

  g_file_set_contents (path, "a\n1\n", -1, &error);
  g_assert_true (assay_openai_container_create (container, "assay-test", NULL, &error));
  g_assert_no_error (error);
  /* Gone behind the client's back, as an expiry does. */
  url = g_strdup_printf ("%s/containers/%s", server->base_url, assay_openai_container_get_id (container));
  expire = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, PYTHON3, "-c",
                             "import sys, urllib.request; urllib.request.urlopen("
                             "urllib.request.Request(sys.argv[1], method='DELETE'))", url, NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_wait_check (expire, NULL, &error));
  g_assert_no_error (error);

  g_assert_false (assay_openai_container_upload (container, path, "data.csv", &file_id, NULL, &error));
  g_assert_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_EXPIRED);
  g_assert_null (strstr (error->message, TEST_KEY));
  g_clear_error (&error);
  /* Removing a container already gone is not an error. */
  g_assert_true (assay_openai_container_delete (container, NULL, &error));
  g_assert_no_error (error);
  g_unlink (path);
  fake_server_stop (server);
}

/* ---- the code_interpreter tool through the Responses provider ---------------------------- */

typedef struct
{
  GMainLoop        *loop;
  AssayLlmResponse *response;
  GError           *error;
  GString          *code;
} Stream;

static void
on_code_delta (AssayLlmProvider *provider,
               guint             index,
               const char       *id,
               const char       *name,
               const char       *fragment,
               Stream           *stream)
{
  g_assert_cmpstr (name, ==, "code_interpreter");
  g_assert_true (g_str_has_prefix (id, "ci_"));
  g_string_append (stream->code, fragment);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Stream *stream = user_data;

  stream->response = assay_llm_provider_stream_finish (ASSAY_LLM_PROVIDER (source), result, &stream->error);
  g_main_loop_quit (stream->loop);
}

static void
test_code_interpreter_turn (void)
{
  FakeServer *server = fake_server_start (
    "{\"responses\": [{\"flavor\": \"responses\", \"turn\": {"
    "\"code_interpreter\": [{\"code\": \"open('/mnt/data/out.csv', 'w').write('x\\\\n1\\\\n')\\nprint(6 * 7)\\n\"}],"
    "\"cite\": [{\"file\": \"out.csv\", \"filename\": \"../out.csv\"}],"
    "\"text\": \"It is 42.\"}}]}");
  g_autoptr(AssayOpenaiContainer) container = assay_openai_container_new (server->base_url, TEST_KEY);
  g_autoptr(AssayLlmProvider) provider = assay_openai_provider_new_for_api (server->base_url, TEST_KEY,
                                                                            ASSAY_OPENAI_API_RESPONSES);
  g_autoptr(AssayLlmRequest) request = assay_llm_request_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) body = NULL;
  Stream stream = { g_main_loop_new (NULL, FALSE), NULL, NULL, g_string_new (NULL) };
  JsonObject *call, *citation, *object;
  JsonArray *outputs, *tools, *include;

  g_assert_true (assay_openai_container_create (container, "assay-test", NULL, &error));
  g_assert_no_error (error);
  request->model = g_strdup ("gpt-5");
  request->hosted_container = g_strdup (assay_openai_container_get_id (container));
  g_ptr_array_add (request->messages, assay_llm_message_new_user ("Six times seven?"));
  g_signal_connect (provider, "tool-call-delta", G_CALLBACK (on_code_delta), &stream);
  assay_llm_provider_stream_async (provider, request, NULL, on_done, &stream);
  g_main_loop_run (stream.loop);
  g_assert_no_error (stream.error);
  g_assert_nonnull (stream.response);
  g_assert_cmpstr (stream.response->text, ==, "It is 42.");
  g_assert_cmpuint (stream.response->tool_calls->len, ==, 0);
  g_assert_nonnull (stream.response->hosted_calls);
  g_assert_cmpuint (json_array_get_length (stream.response->hosted_calls), ==, 1);
  call = json_array_get_object_element (stream.response->hosted_calls, 0);
  g_assert_cmpstr (json_object_get_string_member (call, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (call, "code"), ==, stream.code->str);
  g_assert_cmpstr (json_object_get_string_member (call, "container_id"), ==, request->hosted_container);
  outputs = json_object_get_array_member (call, "outputs");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (outputs, 0), "logs"), ==, "42\n");
  /* Announced and repeated in the message item: kept once. */
  g_assert_cmpuint (json_array_get_length (stream.response->citations), ==, 1);
  citation = json_array_get_object_element (stream.response->citations, 0);
  g_assert_cmpstr (json_object_get_string_member (citation, "type"), ==, "container_file_citation");
  g_assert_cmpstr (json_object_get_string_member (citation, "filename"), ==, "../out.csv");
  {
    g_autoptr(GBytes) file = assay_openai_container_download (container, json_object_get_string_member (citation, "container_id"),
                                                              json_object_get_string_member (citation, "file_id"),
                                                              1024, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (file, NULL), g_bytes_get_size (file), "x\n1\n", 4);
  }

  /* What was sent: the tool with the container, its outputs asked for. */
  body = json_from_string (g_bytes_get_data (stream.response->request_body, NULL), &error);
  g_assert_no_error (error);
  object = json_node_get_object (body);
  tools = json_object_get_array_member (object, "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "type"), ==, "code_interpreter");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "container"), ==,
                   request->hosted_container);
  include = json_object_get_array_member (object, "include");
  g_assert_cmpstr (json_array_get_string_element (include, 1), ==, "code_interpreter_call.outputs");

  /* The call goes back as a code_interpreter_call item with its logs, not as a function call. */
  {
    AssayLlmMessage *assistant = assay_llm_message_new_assistant ("");
    g_autofree char *arguments = g_strdup_printf ("{\"code\": \"print(6 * 7)\", \"container_id\": \"%s\"}",
                                                  request->hosted_container);
    g_autoptr(AssayLlmRequest) next = assay_llm_request_new ();
    g_autoptr(JsonNode) sent = NULL;
    JsonArray *input;
    JsonObject *item;

    g_ptr_array_add (assistant->tool_calls, assay_llm_tool_call_new ("ci_1", "code_interpreter", arguments));
    next->model = g_strdup ("gpt-5");
    next->hosted_container = g_strdup (request->hosted_container);
    g_ptr_array_add (next->messages, assay_llm_message_new_user ("Six times seven?"));
    g_ptr_array_add (next->messages, assistant);
    g_ptr_array_add (next->messages, assay_llm_message_new_tool ("ci_1", "42\n", FALSE));
    g_ptr_array_add (next->messages, assay_llm_message_new_assistant ("It is 42."));
    g_ptr_array_add (next->messages, assay_llm_message_new_user ("And halved?"));
    g_clear_pointer (&stream.response, assay_llm_response_free);
    assay_llm_provider_stream_async (provider, next, NULL, on_done, &stream);
    g_main_loop_run (stream.loop);
    g_clear_error (&stream.error);
    /* The script has one turn, so this one repeats it: only the body matters here. */
    g_assert_nonnull (stream.response);
    sent = json_from_string (g_bytes_get_data (stream.response->request_body, NULL), &error);
    g_assert_no_error (error);
    input = json_object_get_array_member (json_node_get_object (sent), "input");
    g_assert_cmpuint (json_array_get_length (input), ==, 4);
    item = json_array_get_object_element (input, 1);
    g_assert_cmpstr (json_object_get_string_member (item, "type"), ==, "code_interpreter_call");
    g_assert_cmpstr (json_object_get_string_member (item, "id"), ==, "ci_1");
    g_assert_cmpstr (json_object_get_string_member (item, "code"), ==, "print(6 * 7)");
    g_assert_cmpstr (json_object_get_string_member (item, "container_id"), ==, request->hosted_container);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (item, "outputs"), 0),
                                                    "logs"), ==, "42\n");
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (input, 2), "role"), ==, "assistant");
  }

  g_clear_pointer (&stream.response, assay_llm_response_free);
  g_main_loop_unref (stream.loop);
  g_string_free (stream.code, TRUE);
  fake_server_stop (server);
}

/* ---- the agent: an expired container, then the next question in a new one ---------------- */

typedef struct
{
  GMainLoop         *loop;
  AssayAgentOutcome  outcome;
  char              *text;
  GString           *code;
} Asked;

static void
on_asked (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  Asked *asked = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&asked->text, g_free);
  asked->outcome = assay_agent_ask_finish (ASSAY_AGENT (source), result, &asked->text, &error);
  g_main_loop_quit (asked->loop);
}

static void
on_agent_code (AssayAgent *agent,
               guint       index,
               const char *id,
               const char *text,
               Asked      *asked)
{
  g_string_append (asked->code, text);
}

/* The requests the fake got, as JSON text, one a line. */
static char *
fake_server_log (FakeServer *server)
{
  g_autofree char *log_path = g_build_filename (server->dir, "requests.jsonl", NULL);
  char *contents = NULL;

  g_file_get_contents (log_path, &contents, NULL, NULL);
  return contents != NULL ? contents : g_strdup ("");
}

static guint
count (const char *haystack,
       const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
test_agent_expired_then_new (void)
{
  FakeServer *server = fake_server_start (
    "{\"responses\": [{\"flavor\": \"responses\", \"expire_container\": true, \"turn\": {\"text\": \"x\"}},"
    "{\"flavor\": \"responses\", \"turn\": {\"code_interpreter\": [{\"code\": \"print(len(open('/mnt/data/d.csv').readlines()))\"}],"
    "\"text\": \"It has 3 lines.\"}}]}");
  g_autoptr(AssayOpenaiContainer) container = assay_openai_container_new (server->base_url, TEST_KEY);
  g_autoptr(AssayLlmProvider) provider = assay_openai_provider_new_for_api (server->base_url, TEST_KEY,
                                                                            ASSAY_OPENAI_API_RESPONSES);
  g_autofree char *session_dir = g_build_filename (server->dir, "session", NULL);
  g_autofree char *data = g_build_filename (server->dir, "d.csv", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(AssayAgent) agent = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *log = NULL;
  g_autofree char *output = NULL;
  Asked asked = { g_main_loop_new (NULL, FALSE), 0, NULL, g_string_new (NULL) };
  AssaySessionCell *cell;

  g_file_set_contents (data, "a\n1\n2\n", -1, &error);
  session = assay_session_new (session_dir, &error);
  g_assert_no_error (error);
  agent = assay_agent_new_hosted (provider, container, session);
  assay_agent_set_model (agent, "gpt-5");
  assay_agent_set_check_numbers (agent, FALSE);
  g_assert_true (assay_agent_add_dataset (agent, data, NULL, &error));
  g_assert_no_error (error);
  g_signal_connect (agent, "code-delta", G_CALLBACK (on_agent_code), &asked);

  assay_agent_ask_async (agent, "How many lines?", NULL, on_asked, &asked);
  g_main_loop_run (asked.loop);
  g_assert_cmpint (asked.outcome, ==, ASSAY_AGENT_MODEL_ERROR);
  g_assert_nonnull (strstr (asked.text, "expired"));
  g_assert_nonnull (strstr (asked.text, "lost"));
  first_id = g_strdup (assay_openai_container_get_id (container));
  g_assert_nonnull (strstr (assay_session_get_sandbox_where (session), first_id));

  /* The next question: a new container, the dataset uploaded again, the model told. */
  assay_agent_ask_async (agent, "How many lines now?", NULL, on_asked, &asked);
  g_main_loop_run (asked.loop);
  g_assert_cmpint (asked.outcome, ==, ASSAY_AGENT_ANSWERED);
  g_assert_cmpstr (asked.text, ==, "It has 3 lines.");
  g_assert_cmpstr (assay_openai_container_get_id (container), !=, first_id);
  g_assert_nonnull (strstr (assay_session_get_sandbox_where (session), assay_openai_container_get_id (container)));
  g_assert_cmpuint (assay_session_get_n_cells (session), ==, 1);
  cell = assay_session_get_cell (session, 0);
  g_assert_cmpint (cell->decision, ==, ASSAY_DECISION_HOSTED);
  g_assert_cmpint (cell->status, ==, ASSAY_CELL_OK);
  /* The code streamed as it was written, then recorded whole. */
  g_assert_cmpstr (asked.code->str, ==, cell->code);
  output = json_to_string (json_array_get_element (cell->outputs, 0), FALSE);
  g_assert_nonnull (strstr (output, "3\\n"));
  log = fake_server_log (server);
  g_assert_cmpuint (count (log, "\"filename\": \"d.csv\""), ==, 2);
  g_assert_nonnull (strstr (log, "this is a new one"));

  g_main_loop_unref (asked.loop);
  g_string_free (asked.code, TRUE);
  g_free (asked.text);
  g_clear_object (&agent);
  fake_server_stop (server);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("ASSAY_LLM_RETRY_SCALE", "0.01", TRUE);
  g_test_add_func ("/hosted/safe-name", test_safe_name);
  g_test_add_func ("/hosted/container-lifecycle", test_container_lifecycle);
  g_test_add_func ("/hosted/container-expired", test_container_expired);
  g_test_add_func ("/hosted/code-interpreter-turn", test_code_interpreter_turn);
  g_test_add_func ("/hosted/agent-expired-then-new", test_agent_expired_then_new);
  return g_test_run ();
}
