/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reports' appendix "What was sent to the model": off by default; when asked for, in the
 * HTML, the notebook (read back as JSON) and the PDF (read back with poppler), one entry per
 * recorded request with only what it added to the conversation, for OpenAI chat-completions
 * and Anthropic messages bodies, as assay-session-requests reads and labels them; the system
 * prompt, the dataset summary and the tools once each; hostile text escaped; a body not kept
 * or damaged said so; long conversations cut; `assay-cli export --with-requests`. */
#include "config.h"

#include <glib/gstdio.h>
#include <poppler.h>
#include <string.h>
#include <sys/stat.h>

#include "assay-json.h"
#include "assay-report.h"
#include "assay-session.h"
#include "session-fixture.h"

#define SENT_AT  G_GINT64_CONSTANT (1719835200000000)   /* 2024-07-01 12:00:00 UTC */
#define SYSTEM   "You are Assay's analyst. Answer with numbers."
#define TRIMMED  "[This output was removed to keep the conversation within the model's context; " \
                 "run the code again if you need it.]"

/* ---- bodies as the providers write them ------------------------------------------------- */

static JsonNode *
object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

static JsonNode *
string_node (const char *text)
{
  return json_node_init_string (json_node_alloc (), text);
}

static JsonNode *
message (const char *role,
         const char *content)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "role", role);
  json_object_set_string_member (object, "content", content);
  return object_node (object);
}

static char *
arguments (const char *code)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "code", code);
  json_object_set_string_member (object, "description", "Sum July");
  node = object_node (object);
  return json_to_string (node, FALSE);
}

static JsonNode *
openai_call (const char *id,
             const char *code)
{
  g_autofree char *written = arguments (code);
  JsonObject *object = json_object_new ();
  JsonObject *call = json_object_new ();
  JsonObject *function = json_object_new ();
  JsonArray *calls = json_array_new ();

  json_object_set_string_member (function, "name", "execute_python");
  json_object_set_string_member (function, "arguments", written);
  json_object_set_string_member (call, "id", id);
  json_object_set_string_member (call, "type", "function");
  json_object_set_object_member (call, "function", function);
  json_array_add_object_element (calls, call);
  json_object_set_string_member (object, "role", "assistant");
  json_object_set_null_member (object, "content");
  json_object_set_array_member (object, "tool_calls", calls);
  return object_node (object);
}

static JsonNode *
openai_tool (const char *id,
             const char *content)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "role", "tool");
  json_object_set_string_member (object, "tool_call_id", id);
  json_object_set_string_member (object, "content", content);
  return object_node (object);
}

/* ROOT's text; takes ROOT. */
static GBytes *
to_bytes (JsonNode *root)
{
  char *text = json_to_string (root, FALSE);

  json_node_unref (root);
  return g_bytes_new_take (text, strlen (text));
}

/* A chat-completions body: the system message, then the messages (taken), NULL-terminated. */
static GBytes *
openai_body (const char *system,
             ...)
{
  JsonObject *body = json_object_new ();
  JsonArray *messages = json_array_new ();
  JsonNode *node;
  va_list args;

  json_object_set_string_member (body, "model", "gpt-test");
  json_array_add_element (messages, message ("system", system));
  va_start (args, system);
  while ((node = va_arg (args, JsonNode *)) != NULL)
    json_array_add_element (messages, node);
  va_end (args);
  json_object_set_array_member (body, "messages", messages);
  json_object_set_boolean_member (body, "stream", TRUE);
  return to_bytes (object_node (body));
}

static JsonNode *
text_block (const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  return object_node (block);
}

static JsonNode *
tool_use_block (const char *id,
                const char *code)
{
  JsonObject *block = json_object_new ();
  JsonObject *input = json_object_new ();

  json_object_set_string_member (input, "code", code);
  json_object_set_string_member (block, "type", "tool_use");
  json_object_set_string_member (block, "id", id);
  json_object_set_string_member (block, "name", "execute_python");
  json_object_set_object_member (block, "input", input);
  return object_node (block);
}

static JsonNode *
tool_result_block (const char *id,
                   JsonNode   *content,
                   gboolean    is_error)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "tool_result");
  json_object_set_string_member (block, "tool_use_id", id);
  json_object_set_member (block, "content", content);
  if (is_error)
    json_object_set_boolean_member (block, "is_error", TRUE);
  return object_node (block);
}

/* An Anthropic message of ROLE with the blocks (taken), NULL-terminated. */
static JsonNode *
anthropic_message (const char *role,
                   ...)
{
  JsonObject *object = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonNode *node;
  va_list args;

  va_start (args, role);
  while ((node = va_arg (args, JsonNode *)) != NULL)
    json_array_add_element (content, node);
  va_end (args);
  json_object_set_string_member (object, "role", role);
  json_object_set_array_member (object, "content", content);
  return object_node (object);
}

/* A messages body: SYSTEM (a string or text blocks, taken), then the messages (taken). */
static GBytes *
anthropic_body (JsonNode *system,
                ...)
{
  JsonObject *body = json_object_new ();
  JsonArray *messages = json_array_new ();
  JsonNode *node;
  va_list args;

  json_object_set_string_member (body, "model", "claude-test");
  json_object_set_int_member (body, "max_tokens", 4096);
  json_object_set_member (body, "system", system);
  va_start (args, system);
  while ((node = va_arg (args, JsonNode *)) != NULL)
    json_array_add_element (messages, node);
  va_end (args);
  json_object_set_array_member (body, "messages", messages);
  return to_bytes (object_node (body));
}

/* ---- sessions -------------------------------------------------------------------------- */

/* Keeps BODY (taken) as the request of STEP, as the agent does with a response. */
static void
record (AssaySession *session,
        guint         step,
        const char   *host,
        const char   *model,
        GBytes       *body,
        gint64        input_tokens,
        gint64        cached_input_tokens,
        gint64        output_tokens,
        gint64        reasoning_tokens)
{
  g_autoptr(AssayLlmResponse) response = assay_llm_response_new ();
  g_autoptr(GError) error = NULL;

  response->request_body = body;
  response->request_host = g_strdup (host);
  response->bytes_in = 512;
  response->sent_at = SENT_AT + step * G_USEC_PER_SEC;
  response->input_tokens = input_tokens;
  response->cached_input_tokens = cached_input_tokens;
  response->output_tokens = output_tokens;
  response->reasoning_tokens = reasoning_tokens;
  /* The first request of each session priced; the others of unknown price. */
  g_assert_true (assay_session_record_request (session, step, model, response,
                                               assay_session_get_requests (session)->len == 0 ? 0.0123 : -1,
                                               &error));
  g_assert_no_error (error);
}

static AssaySession *
new_session (const char *parent,
             const char *name,
             const char *title)
{
  g_autofree char *dir = g_build_filename (parent, name, NULL);
  g_autoptr(GError) error = NULL;
  AssaySession *session = assay_session_new (dir, &error);

  g_assert_no_error (error);
  assay_session_set_title (session, title);
  session_fixture_ask (session, "Revenue in July?");
  session_fixture_reply (session, "Summing.", 1, "call_1");
  session_fixture_run_cell (session, "c1", 1, "call_1", "475046", FALSE);
  assay_session_finish_step (session);
  session_fixture_reply (session, "Revenue was 475,046.", 0);
  assay_session_finish_step (session);
  assay_session_set_outcome (session, "answered", "Revenue was 475,046.");
  return session;
}

/* A tool output far over the cap: its head, a middle, its end. */
static char *
long_output (void)
{
  GString *text = g_string_new ("HEAD-OF-OUTPUT\n");

  for (guint i = 0; i < 300; i++)
    g_string_append_printf (text, "row %3u: 0.125 0.250 0.375 0.500%s\n", i, i == 150 ? " MIDDLE-MARKER" : "");
  g_string_append (text, "END-OF-OUTPUT");
  return g_string_free (text, FALSE);
}

/* Six requests in chat-completions bodies: the question (with a script tag), the call and
 * its long output, the answer (with a run of four backticks) and the next question; then a
 * request whose body was not kept, one whose body is damaged, and one where Assay shortened
 * the old output to fit and added another call. Returns the folder. */
static char *
write_openai_session (const char *parent)
{
  g_autoptr(AssaySession) session = new_session (parent, "openai", "Requests, OpenAI");
  g_autoptr(GError) error = NULL;
  g_autofree char *output = long_output ();
  g_autofree char *dir = g_strdup (assay_session_get_dir (session));
  const char *question = "REQ-Q1 Revenue in July? <script>alert(1)</script>";
  const char *answer = "REQ-A1 Revenue was 475,046. ````not a fence```` end";

  record (session, 1, "api.openai.com", "gpt-test",
          openai_body (SYSTEM, message ("user", question), NULL),
          1200, 1000, 30, -1);
  record (session, 2, "api.openai.com", "gpt-test",
          openai_body (SYSTEM, message ("user", question), openai_call ("call_1", "print(475046)\n"),
                       openai_tool ("call_1", output), NULL),
          2400, -1, 40, 12);
  record (session, 3, "api.openai.com", "gpt-test",
          openai_body (SYSTEM, message ("user", question), openai_call ("call_1", "print(475046)\n"),
                       openai_tool ("call_1", output), message ("assistant", answer),
                       message ("user", "REQ-Q2 And in August?"), NULL),
          -1, -1, -1, -1);
  record (session, 4, "api.openai.com", "gpt-test",
          openai_body (SYSTEM, message ("user", "REQ-LOST never shown"), NULL), -1, -1, -1, -1);
  record (session, 4, "api.openai.com", "gpt-test",
          openai_body (SYSTEM, message ("user", "REQ-DAMAGED never shown"), NULL), -1, -1, -1, -1);
  record (session, 5, "api.openai.com", "gpt-test",
          openai_body (SYSTEM, message ("user", question), openai_call ("call_1", "print(475046)\n"),
                       openai_tool ("call_1", TRIMMED), message ("assistant", answer),
                       message ("user", "REQ-Q2 And in August?"), openai_call ("call_2", "print(512000)\n"),
                       openai_tool ("call_2", "REQ-R2 512000"), NULL),
          -1, -1, -1, -1);
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);

  /* Request 4's body beyond the session's cap (the record names no file); request 5's file
   * replaced by another body, which its SHA-256 gives away. */
  {
    g_autofree char *record_path = g_build_filename (dir, "session.json", NULL);
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(JsonGenerator) generator = json_generator_new ();
    g_autofree char *first = g_build_filename (dir, "requests", "0001.json.gz", NULL);
    g_autofree char *fifth = g_build_filename (dir, "requests", "0005.json.gz", NULL);
    g_autofree char *contents = NULL;
    gsize length;
    JsonArray *requests;

    g_assert_true (json_parser_load_from_file (parser, record_path, &error));
    g_assert_no_error (error);
    requests = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "requests");
    g_assert_cmpuint (json_array_get_length (requests), ==, 6);
    json_object_remove_member (json_array_get_object_element (requests, 3), "file");
    json_generator_set_root (generator, json_parser_get_root (parser));
    g_assert_true (json_generator_to_file (generator, record_path, &error));
    g_assert_no_error (error);

    g_assert_true (g_file_get_contents (first, &contents, &length, &error));
    g_assert_true (g_file_set_contents (fifth, contents, length, &error));
    g_assert_no_error (error);
  }
  return g_steal_pointer (&dir);
}

/* Three requests in messages bodies: the question; the assistant's words and its call with
 * the result (no cell answered it); a failed call (cell c2), its error and the next question
 * in one user message, under a changed system prompt written as text blocks. */
static char *
write_anthropic_session (const char *parent)
{
  g_autoptr(AssaySession) session = new_session (parent, "anthropic", "Requests, Anthropic");
  g_autoptr(GError) error = NULL;
  JsonArray *changed = json_array_new ();
  JsonNode *changed_node = json_node_new (JSON_NODE_ARRAY);

  session_fixture_run_cell (session, "c2", 2, "toolu_2", "0", FALSE);
  assay_session_finish_step (session);

  {
    JsonNode *block = text_block ("You are Assay's analyst (Anthropic). Be brief.");

    json_object_set_object_member (json_node_get_object (block), "cache_control", json_object_new ());
    json_array_add_element (changed, block);
    json_node_take_array (changed_node, changed);
  }

  record (session, 1, "api.anthropic.com", "claude-test",
          anthropic_body (string_node ("You are Assay's analyst (Anthropic)."),
                          anthropic_message ("user", text_block ("ANT-Q1 Revenue in July?"), NULL), NULL),
          900, 0, 20, -1);
  record (session, 2, "api.anthropic.com", "claude-test",
          anthropic_body (string_node ("You are Assay's analyst (Anthropic)."),
                          anthropic_message ("user", text_block ("ANT-Q1 Revenue in July?"), NULL),
                          anthropic_message ("assistant", text_block ("ANT-A1 Summing."),
                                             tool_use_block ("toolu_1", "print(475046)"), NULL),
                          anthropic_message ("user", tool_result_block ("toolu_1", string_node ("ANT-R1 475046"), FALSE),
                                             NULL),
                          NULL),
          1000, 900, 25, -1);
  {
    JsonArray *parts = json_array_new ();
    JsonNode *content = json_node_new (JSON_NODE_ARRAY);

    json_array_add_element (parts, text_block ("ANT-R2 ZeroDivisionError: division by zero"));
    json_node_take_array (content, parts);
    record (session, 3, "api.anthropic.com", "claude-test",
            anthropic_body (changed_node,
                            anthropic_message ("user", text_block ("ANT-Q1 Revenue in July?"), NULL),
                            anthropic_message ("assistant", text_block ("ANT-A1 Summing."),
                                               tool_use_block ("toolu_1", "print(475046)"), NULL),
                            anthropic_message ("user", tool_result_block ("toolu_1", string_node ("ANT-R1 475046"), FALSE),
                                               NULL),
                            anthropic_message ("assistant", tool_use_block ("toolu_2", "1/0"), NULL),
                            anthropic_message ("user", tool_result_block ("toolu_2", content, TRUE),
                                               text_block ("ANT-Q2 And in August?"), NULL),
                            NULL),
            1100, 1000, 30, 5);
  }
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return g_strdup (assay_session_get_dir (session));
}

/* Four requests of bodies as Assay writes them, with the datasets at the end of the system
 * prompt and the tools: the question; its answer; a dataset added and the conversation
 * started again; the same again. */
static char *
write_preamble_session (const char *parent)
{
  g_autoptr(AssaySession) session = new_session (parent, "preamble", "Requests, preamble");
  g_autoptr(GError) error = NULL;
  const char *one = "You are Assay.\n\nDatasets (read-only):\n- /data/sales.csv";
  const char *two = "You are Assay.\n\nDatasets (read-only):\n- /data/sales.csv\n- /data/costs.csv";
  const char *conversations[] = {
    "{\"role\":\"user\",\"content\":\"PRE-Q1\"}",
    "{\"role\":\"user\",\"content\":\"PRE-Q1\"},{\"role\":\"assistant\",\"content\":\"PRE-A1\"}",
    "{\"role\":\"user\",\"content\":\"PRE-Q2\"}",
    "{\"role\":\"user\",\"content\":\"PRE-Q2\"}",
  };
  const char *tools = "[{\"type\":\"function\",\"function\":{\"name\":\"execute_python\","
                      "\"description\":\"PRE-TOOL Runs Python\",\"parameters\":{\"type\":\"object\"}}}]";

  for (guint i = 0; i < G_N_ELEMENTS (conversations); i++)
    {
      char *body = g_strdup_printf ("{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"system\",\"content\":\"%s\"},"
                                    "%s],\"tools\":%s}", i < 2 ? one : two, conversations[i], tools);

      record (session, i + 1, "api.openai.com", "gpt-test", g_bytes_new_take (body, strlen (body)), -1, -1, -1, -1);
    }
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return g_strdup (assay_session_get_dir (session));
}

/* One request that sends 50 messages at once (a resumed session). */
static char *
write_long_conversation_session (const char *parent)
{
  g_autoptr(AssaySession) session = new_session (parent, "long", "Requests, long");
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) body = g_string_new ("{\"model\":\"gpt-test\",\"messages\":[");

  for (guint i = 1; i <= 50; i++)
    g_string_append_printf (body, "%s{\"role\":\"%s\",\"content\":\"LONG-%02u\"}", i > 1 ? "," : "",
                            i % 2 == 1 ? "user" : "assistant", i);
  g_string_append (body, "]}");
  record (session, 1, "api.openai.com", "gpt-test", g_bytes_new (body->str, body->len), -1, -1, -1, -1);
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return g_strdup (assay_session_get_dir (session));
}

/* ---- exports ---------------------------------------------------------------------------- */

static char *
export (const char        *dir,
        const AssayReportFormat *format,
        gboolean           include_requests,
        const char        *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  AssayReportOptions options;
  char *text = NULL;

  g_assert_no_error (error);
  assay_report_options_init (&options);
  g_assert_false (options.include_requests);
  options.format = format;
  options.include_requests = include_requests;
  g_assert_true (assay_report_export (session, &options, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static guint
count (const char *text,
       const char *needle)
{
  guint n = 0;

  for (const char *p = text; (p = strstr (p, needle)) != NULL; p += strlen (needle))
    n++;
  return n;
}

static char *
pdf_text (const char *path)
{
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  g_autoptr(GError) error = NULL;
  PopplerDocument *document = poppler_document_new_from_file (uri, NULL, &error);
  GString *text = g_string_new (NULL);

  g_assert_no_error (error);
  for (int p = 0; p < poppler_document_get_n_pages (document); p++)
    {
      PopplerPage *page = poppler_document_get_page (document, p);
      g_autofree char *page_text = poppler_page_get_text (page);

      g_string_append (text, page_text);
      g_string_append_c (text, '\n');
      g_object_unref (page);
    }
  g_object_unref (document);
  return g_string_free (text, FALSE);
}

/* The notebook's markdown cells, their sources joined. */
static GPtrArray *
notebook_markdown (const char *ipynb)
{
  g_autoptr(JsonNode) root = assay_json_from_untrusted (ipynb, NULL);
  GPtrArray *cells = g_ptr_array_new_with_free_func (g_free);
  JsonArray *array;

  g_assert_nonnull (root);
  array = json_object_get_array_member (json_node_get_object (root), "cells");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *cell = json_array_get_object_element (array, i);

      if (g_str_equal (json_object_get_string_member (cell, "cell_type"), "markdown"))
        g_ptr_array_add (cells, assay_json_dup_text (json_object_get_member (cell, "source")));
    }
  return cells;
}

/* The markdown cell that starts with PREFIX, or NULL. */
static const char *
find_cell (GPtrArray  *cells,
           const char *prefix)
{
  for (guint i = 0; i < cells->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (cells, i), prefix))
      return g_ptr_array_index (cells, i);
  return NULL;
}

static char *
local_time (guint step)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local ((SENT_AT + step * G_USEC_PER_SEC) / G_USEC_PER_SEC);

  return g_date_time_format (time, "%Y-%m-%d %H:%M:%S");
}

static void
remove_all (const char *parent)
{
  g_autoptr(GDir) dir = g_dir_open (parent, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (parent, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        g_assert_true (assay_session_delete (path, NULL));
      else
        g_unlink (path);
    }
  g_rmdir (parent);
}

static void
test_off_by_default (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_openai_session (parent);
  g_autofree char *html_path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *ipynb_path = g_build_filename (parent, "report.ipynb", NULL);
  g_autofree char *pdf_path = g_build_filename (parent, "report.pdf", NULL);
  g_autofree char *html = export (dir, assay_report_format_lookup ("html"), FALSE, html_path);
  g_autofree char *ipynb = export (dir, assay_report_format_lookup ("ipynb"), FALSE, ipynb_path);
  g_autofree char *pdf = NULL;
  g_autofree char *text = NULL;

  pdf = export (dir, assay_report_format_lookup ("pdf"), FALSE, pdf_path);
  text = pdf_text (pdf_path);
  g_assert_null (strstr (html, "What was sent to the model"));
  g_assert_null (strstr (html, "REQ-Q1"));
  g_assert_null (strstr (ipynb, "What was sent to the model"));
  g_assert_null (strstr (ipynb, "REQ-Q1"));
  g_assert_null (strstr (text, "What was sent to the model"));
  g_assert_null (strstr (text, "REQ-Q1"));
  remove_all (parent);
}

static void
test_openai_html (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_openai_session (parent);
  g_autofree char *path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *html = export (dir, assay_report_format_lookup ("html"), TRUE, path);
  g_autofree char *time = local_time (1);
  const char *request_1 = strstr (html, "<div class=\"request\" id=\"request-1\">");
  const char *request_2 = strstr (html, "<div class=\"request\" id=\"request-2\">");

  g_assert_nonnull (strstr (html, "<li><a href=\"#requests\">What was sent to the model</a></li>"));
  g_assert_nonnull (strstr (html, "<section id=\"requests\">\n<h2>What was sent to the model</h2>"));
  g_assert_nonnull (request_1);
  g_assert_nonnull (request_2);
  g_assert_cmpuint (count (html, "<div class=\"request\" id=\"request-"), ==, 6);

  /* Step, host, model, local time, bytes; the tokens the server reported, no others. */
  {
    g_autofree char *start = g_strdup_printf ("<p class=\"meta\">step 1 · api.openai.com · model gpt-test · %s · ", time);

    g_assert_nonnull (strstr (request_1, start));
    g_assert_nonnull (strstr (request_1, " sent · 512 bytes received</p>"));
  }
  g_assert_nonnull (strstr (request_1, "<p class=\"meta\">input tokens: 1200 · cached input tokens: 1000 · "
                                       "output tokens: 30 · cost: $0.0123 · the model saw: Full</p>"));
  g_assert_nonnull (strstr (request_2, "<p class=\"meta\">input tokens: 2400 · output tokens: 40 · "
                                       "reasoning tokens: 12 · the model saw: Full</p>"));

  /* The system prompt once, then "the same". */
  g_assert_cmpuint (count (html, "Answer with numbers."), ==, 1);
  g_assert_nonnull (strstr (request_1, "<p class=\"label\">System prompt</p>"));
  g_assert_cmpuint (count (html, "System prompt: same as request 1."), ==, 3);

  /* Each message once: the requests that repeat the conversation show what they added. */
  g_assert_cmpuint (count (html, "REQ-Q1"), ==, 1);
  g_assert_cmpuint (count (html, "REQ-A1"), ==, 1);
  g_assert_cmpuint (count (html, "REQ-Q2"), ==, 1);
  g_assert_cmpuint (count (html, "HEAD-OF-OUTPUT"), ==, 1);
  g_assert_nonnull (strstr (request_1, "<p class=\"meta\">What it sent:</p>"));
  g_assert_nonnull (strstr (request_2, "<p class=\"meta\">Added since request 1:</p>"));
  /* Labelled as the session's reading labels them: a call and its result by their cell. */
  g_assert_nonnull (strstr (html, "<p class=\"label\">Tool call (cell c1)</p>\n"
                                  "<pre class=\"request-text\">code:\nprint(475046)\n\ndescription: Sum July</pre>"));
  g_assert_nonnull (strstr (html, "<p class=\"label\">Tool result (cell c1)</p>"));
  g_assert_nonnull (strstr (request_1, "<p class=\"label\">Question</p>"));

  /* A script tag in a message is text. */
  g_assert_nonnull (strstr (html, "REQ-Q1 Revenue in July? &lt;script&gt;alert(1)&lt;/script&gt;"));
  g_assert_null (strstr (html, "<script"));

  /* The long output cut in the middle, with a note. */
  g_assert_nonnull (strstr (html, "END-OF-OUTPUT"));
  g_assert_null (strstr (html, "MIDDLE-MARKER"));
  g_assert_nonnull (strstr (html, "characters left out …]</span>"));

  /* A body not kept, a damaged one: said, and nothing of them shown. */
  g_assert_nonnull (strstr (html, "<p class=\"note status-error\">Its body was not kept: the session keeps "
                                  "64.0\xc2\xa0MiB of them, and that was reached."));
  g_assert_nonnull (strstr (html, "<p class=\"note status-error\">The body of request 5 is not what was sent "
                                  "(its SHA-256 differs).</p>"));
  g_assert_null (strstr (html, "REQ-LOST"));
  g_assert_null (strstr (html, "REQ-DAMAGED"));

  /* The last one against the last one read: the output Assay shortened, then what it added. */
  {
    const char *request_6 = strstr (html, "<div class=\"request\" id=\"request-6\">");

    g_assert_nonnull (request_6);
    g_assert_nonnull (strstr (request_6, "<p class=\"meta\">Added since request 3:</p>"));
    g_assert_nonnull (strstr (request_6, "<p class=\"label\">Tool result (cell c1) — changed since request 3</p>\n"
                                         "<pre class=\"request-text\">[This output was removed"));
    /* No cell answered call_2: its call is named by its tool. */
    g_assert_nonnull (strstr (request_6, "<p class=\"label\">Tool call: execute_python</p>\n"
                                         "<pre class=\"request-text\">code:\nprint(512000)\n"));
    g_assert_nonnull (strstr (request_6, "REQ-R2 512000"));
  }
  remove_all (parent);
}

static void
test_openai_ipynb_pdf (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_openai_session (parent);
  g_autofree char *ipynb_path = g_build_filename (parent, "report.ipynb", NULL);
  g_autofree char *pdf_path = g_build_filename (parent, "report.pdf", NULL);
  g_autofree char *ipynb = export (dir, assay_report_format_lookup ("ipynb"), TRUE, ipynb_path);
  g_autofree char *pdf = export (dir, assay_report_format_lookup ("pdf"), TRUE, pdf_path);
  g_autoptr(GPtrArray) cells = notebook_markdown (ipynb);
  g_autofree char *text = pdf_text (pdf_path);
  const char *cell;

  g_assert_true (g_str_has_prefix (pdf, "%PDF-"));

  /* The notebook: a markdown cell for the appendix, then one per request. */
  g_assert_nonnull (find_cell (cells, "## What was sent to the model\n\nEvery request Assay sent"));
  cell = find_cell (cells, "### Request 1\n");
  g_assert_nonnull (cell);
  /* Our text escaped as Markdown; what was sent in fenced blocks, so a tag stays text. */
  g_assert_nonnull (strstr (cell, "step 1 · api.openai.com · model gpt-test · "));
  g_assert_nonnull (strstr (cell, "**System prompt**\n\n```\nYou are Assay's analyst. Answer with numbers.\n```"));
  g_assert_nonnull (strstr (cell, "**Question**\n\n```\nREQ-Q1 Revenue in July? <script>alert(1)</script>\n```"));
  cell = find_cell (cells, "### Request 2\n");
  g_assert_nonnull (cell);
  g_assert_nonnull (strstr (cell, "*System prompt: same as request 1.*"));
  g_assert_nonnull (strstr (cell, "*Added since request 1:*"));
  g_assert_null (strstr (cell, "REQ-Q1"));
  g_assert_nonnull (strstr (cell, "HEAD-OF-OUTPUT"));
  g_assert_nonnull (strstr (cell, "characters left out …\\]*"));
  /* A run of four backticks inside: the fence is five long. */
  cell = find_cell (cells, "### Request 3\n");
  g_assert_nonnull (cell);
  g_assert_nonnull (strstr (cell, "**Model’s reply**\n\n`````\nREQ-A1 Revenue was 475,046. ````not a fence```` end\n`````"));
  cell = find_cell (cells, "### Request 4\n");
  g_assert_nonnull (cell);
  g_assert_nonnull (strstr (cell, "**Its body was not kept"));

  /* The PDF, read back. */
  g_assert_nonnull (strstr (text, "What was sent to the model"));
  g_assert_nonnull (strstr (text, "Request 6"));
  g_assert_nonnull (strstr (text, "System prompt: same as request 1."));
  g_assert_nonnull (strstr (text, "REQ-Q1 Revenue in July? <script>alert(1)</script>"));
  g_assert_cmpuint (count (text, "REQ-Q1"), ==, 1);
  g_assert_cmpuint (count (text, "HEAD-OF-OUTPUT"), ==, 1);
  g_assert_null (strstr (text, "MIDDLE-MARKER"));
  g_assert_nonnull (strstr (text, "Its body was not kept"));
  g_assert_nonnull (strstr (text, "The body of request 5 is not what was sent"));
  g_assert_nonnull (strstr (text, "Tool result (cell c1) — changed since request 3"));
  g_assert_nonnull (strstr (text, "input tokens: 1200"));
  remove_all (parent);
}

static void
test_anthropic (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_anthropic_session (parent);
  g_autofree char *html_path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *pdf_path = g_build_filename (parent, "report.pdf", NULL);
  g_autofree char *html = export (dir, assay_report_format_lookup ("html"), TRUE, html_path);
  g_autofree char *pdf = export (dir, assay_report_format_lookup ("pdf"), TRUE, pdf_path);
  g_autofree char *text = pdf_text (pdf_path);
  const char *request_2 = strstr (html, "<div class=\"request\" id=\"request-2\">");
  const char *request_3 = strstr (html, "<div class=\"request\" id=\"request-3\">");

  g_assert_true (g_str_has_prefix (pdf, "%PDF-"));

  g_assert_nonnull (request_2);
  g_assert_nonnull (request_3);
  g_assert_nonnull (strstr (html, "<p class=\"label\">System prompt</p>\n<pre class=\"request-text\">"
                                  "You are Assay&#39;s analyst (Anthropic).</pre>"));
  g_assert_nonnull (strstr (request_2, "System prompt: same as request 1."));
  g_assert_nonnull (strstr (request_2, "<p class=\"meta\">step 2 · api.anthropic.com · model claude-test · "));
  g_assert_nonnull (strstr (request_2, "<p class=\"meta\">input tokens: 1000 · cached input tokens: 900 · "
                                       "output tokens: 25 · the model saw: Full</p>"));
  g_assert_nonnull (strstr (request_2, "<p class=\"label\">Model’s reply</p>\n<pre class=\"request-text\">ANT-A1 Summing.</pre>"));
  /* No cell answered toolu_1: its call is named by its tool, its result is just a result. */
  g_assert_nonnull (strstr (request_2, "<p class=\"label\">Tool call: execute_python</p>\n"
                                       "<pre class=\"request-text\">code: print(475046)</pre>"));
  g_assert_nonnull (strstr (request_2, "<p class=\"label\">Tool result</p>\n"
                                       "<pre class=\"request-text\">ANT-R1 475046</pre>"));
  /* Text blocks with a cache marker are the same prompt's text, changed. */
  g_assert_nonnull (strstr (request_3, "<p class=\"label\">System prompt — changed since request 2</p>\n"
                                       "<pre class=\"request-text\">"
                                       "You are Assay&#39;s analyst (Anthropic). Be brief.</pre>"));
  g_assert_nonnull (strstr (request_3, "<p class=\"meta\">Added since request 2:</p>"));
  g_assert_null (strstr (request_3, "System prompt: same as"));
  g_assert_nonnull (strstr (request_3, "<p class=\"label\">Tool call (cell c2)</p>\n<pre class=\"request-text\">code: 1/0</pre>"));
  g_assert_nonnull (strstr (request_3, "<p class=\"label\">Tool result (cell c2, an error)</p>\n"
                                       "<pre class=\"request-text\">ANT-R2 ZeroDivisionError"));
  g_assert_nonnull (strstr (request_3, "<p class=\"label\">Question</p>\n<pre class=\"request-text\">ANT-Q2 And in August?</pre>"));
  g_assert_cmpuint (count (html, "ANT-Q1"), ==, 1);
  g_assert_cmpuint (count (html, "ANT-A1"), ==, 1);
  g_assert_cmpuint (count (html, "ANT-R1"), ==, 1);

  g_assert_nonnull (strstr (text, "Tool result (cell c2, an error)"));
  g_assert_cmpuint (count (text, "ANT-Q1"), ==, 1);
  remove_all (parent);
}

/* The system prompt, the dataset summary and the tools each shown once, then said to be the
 * same as where they were last shown; a conversation started again said to differ. */
static void
test_preamble (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_preamble_session (parent);
  g_autofree char *path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *html = export (dir, assay_report_format_lookup ("html"), TRUE, path);
  const char *request_1 = strstr (html, "<div class=\"request\" id=\"request-1\">");
  const char *request_2 = strstr (html, "<div class=\"request\" id=\"request-2\">");
  const char *request_3 = strstr (html, "<div class=\"request\" id=\"request-3\">");
  const char *request_4 = strstr (html, "<div class=\"request\" id=\"request-4\">");

  g_assert_nonnull (request_1);
  g_assert_nonnull (request_2);
  g_assert_nonnull (request_3);
  g_assert_nonnull (request_4);
  g_assert_nonnull (strstr (request_1, "<p class=\"meta\">What it sent:</p>\n"
                                       "<p class=\"label\">System prompt</p>\n<pre class=\"request-text\">You are Assay.</pre>\n"
                                       "<p class=\"label\">Dataset summary</p>\n<pre class=\"request-text\">"
                                       "Datasets (read-only):\n- /data/sales.csv</pre>\n"
                                       "<p class=\"label\">Tools offered</p>\n<pre class=\"request-text\">"
                                       "execute_python: PRE-TOOL Runs Python</pre>\n"
                                       "<p class=\"label\">Question</p>\n<pre class=\"request-text\">PRE-Q1</pre>"));
  g_assert_cmpuint (count (html, "PRE-TOOL"), ==, 1);
  g_assert_cmpuint (count (html, "PRE-Q1"), ==, 1);
  g_assert_nonnull (strstr (request_2, "<p class=\"note\">System prompt: same as request 1. Dataset summary: same as "
                                       "request 1. Tools offered: same as request 1.</p>\n"
                                       "<p class=\"meta\">Added since request 1:</p>\n"
                                       "<p class=\"label\">Model’s reply</p>\n<pre class=\"request-text\">PRE-A1</pre>\n"
                                       "</div>"));
  /* A dataset added: the summary changed, the rest of the prompt not; the conversation
   * started again (another question where the first was, no reply after it) is not what
   * request 2 sent, continued. */
  g_assert_nonnull (strstr (request_3, "<p class=\"note\">System prompt: same as request 1. Tools offered: same as "
                                       "request 1.</p>\n"
                                       "<p class=\"meta\">Different from request 2 from here on:</p>\n"
                                       "<p class=\"label\">Dataset summary — changed since request 2</p>\n"
                                       "<pre class=\"request-text\">Datasets (read-only):\n- /data/sales.csv\n"
                                       "- /data/costs.csv</pre>\n"
                                       "<p class=\"label\">Question — changed since request 2</p>\n"
                                       "<pre class=\"request-text\">PRE-Q2</pre>\n</div>"));
  g_assert_nonnull (strstr (request_4, "<p class=\"note\">System prompt: same as request 1. Dataset summary: same as "
                                       "request 3. Tools offered: same as request 1.</p>\n"
                                       "<p class=\"meta\">Nothing added since request 3.</p>\n</div>"));
  remove_all (parent);
}

/* Of a request that sends more than 40 messages, the first 20 and the last 20. */
static void
test_long_conversation (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_long_conversation_session (parent);
  g_autofree char *path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *html = export (dir, assay_report_format_lookup ("html"), TRUE, path);

  g_assert_nonnull (strstr (html, "<pre class=\"request-text\">LONG-20</pre>\n"
                                  "<p class=\"note\">… 10 more messages not shown …</p>\n"
                                  "<p class=\"label\">Question</p>\n<pre class=\"request-text\">LONG-31</pre>"));
  g_assert_nonnull (strstr (html, "LONG-01"));
  g_assert_nonnull (strstr (html, "LONG-50"));
  g_assert_null (strstr (html, "LONG-21"));
  g_assert_null (strstr (html, "LONG-30"));
  remove_all (parent);
}

/* Bodies a record may hold that were never sent (issue 33): a role of 50,000 characters, 45
 * messages of 10,000 in each of 60 requests. What the report shows stays capped: labels cut,
 * at most 8 MiB of text in all, then a note. */
static void
test_hostile_bodies (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autoptr(AssaySession) session = new_session (parent, "hostile", "Hostile bodies");
  g_autofree char *dir = g_strdup (assay_session_get_dir (session));
  g_autofree char *path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *role = g_strnfill (50000, 'r');
  g_autofree char *content = g_strnfill (10000, 'y');
  g_autofree char *long_label = g_strnfill (300, 'r');
  g_autofree char *html = NULL;
  g_autoptr(GError) error = NULL;

  for (guint r = 1; r <= 60; r++)
    {
      JsonObject *body = json_object_new ();
      JsonArray *messages = json_array_new ();

      json_object_set_string_member (body, "model", "gpt-test");
      for (guint m = 0; m < 45; m++)
        {
          g_autofree char *text = g_strdup_printf ("R%u-M%u %s", r, m, content);

          json_array_add_element (messages, message (m % 2 == 0 ? role : "user", text));
        }
      json_object_set_array_member (body, "messages", messages);
      record (session, r, "127.0.0.1:1", "gpt-test", to_bytes (object_node (body)), -1, -1, -1, -1);
    }
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  html = export (dir, assay_report_format_lookup ("html"), TRUE, path);
  /* At most 8 MiB of text shown, escaped in HTML. */
  g_assert_cmpuint (strlen (html), <, 16 * 1024 * 1024);
  g_assert_nonnull (strstr (html, "Not shown: a report shows at most 8.0"));
  g_assert_null (strstr (html, long_label));
  g_assert_nonnull (strstr (html, "R1-M0"));
  g_assert_null (strstr (html, "R60-M0"));
  remove_all (parent);
}

/* A FIFO planted where a body was kept neither blocks reading it nor the report (issue 33). */
static void
test_fifo_body (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_openai_session (parent);
  g_autofree char *body = g_build_filename (dir, "requests", "0001.json.gz", NULL);
  g_autofree char *path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *html = NULL;
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(GBytes) read = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_unlink (body), ==, 0);
  g_assert_cmpint (mkfifo (body, 0600), ==, 0);
  session = assay_session_load (dir, &error);
  g_assert_no_error (error);
  read = assay_session_read_request_body (session, g_ptr_array_index (assay_session_get_requests (session), 0),
                                          &error);
  g_assert_null (read);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  html = export (dir, assay_report_format_lookup ("html"), TRUE, path);
  g_assert_nonnull (strstr (html, "is not a regular file"));
  remove_all (parent);
}

static void
test_no_requests (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autoptr(AssaySession) session = new_session (parent, "none", "No requests");
  g_autofree char *dir = g_strdup (assay_session_get_dir (session));
  g_autofree char *path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *html = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  html = export (dir, assay_report_format_lookup ("html"), TRUE, path);
  g_assert_nonnull (strstr (html, "<h2>What was sent to the model</h2>\n<p class=\"note\">No request to a model "
                                  "server is recorded in this session"));
  g_assert_null (strstr (html, "<div class=\"request\""));
  remove_all (parent);
}

static void
test_cli (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-requests-XXXXXX", NULL);
  g_autofree char *dir = write_anthropic_session (parent);
  g_autofree char *path = g_build_filename (parent, "cli.html", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *html = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  const char *help[] = { ASSAY_CLI, "export", "--help", NULL };
  const char *with[] = { ASSAY_CLI, "export", dir, "--with-requests", "-o", path, NULL };
  const char *without[] = { ASSAY_CLI, "export", dir, "-o", path, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) help, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "--with-requests"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_true (g_spawn_sync (NULL, (char **) with, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &html, NULL, NULL));
  g_assert_nonnull (strstr (html, "<h2>What was sent to the model</h2>"));
  g_assert_nonnull (strstr (html, "ANT-Q2 And in August?"));
  g_clear_pointer (&html, g_free);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_true (g_spawn_sync (NULL, (char **) without, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &html, NULL, NULL));
  g_assert_null (strstr (html, "What was sent to the model"));
  remove_all (parent);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/report/requests/off-by-default", test_off_by_default);
  g_test_add_func ("/assay/report/requests/openai/html", test_openai_html);
  g_test_add_func ("/assay/report/requests/openai/ipynb-pdf", test_openai_ipynb_pdf);
  g_test_add_func ("/assay/report/requests/anthropic", test_anthropic);
  g_test_add_func ("/assay/report/requests/preamble", test_preamble);
  g_test_add_func ("/assay/report/requests/long-conversation", test_long_conversation);
  g_test_add_func ("/assay/report/requests/none", test_no_requests);
  g_test_add_func ("/assay/report/requests/hostile-bodies", test_hostile_bodies);
  g_test_add_func ("/assay/report/requests/fifo-body", test_fifo_body);
  g_test_add_func ("/assay/report/requests/cli", test_cli);
  return g_test_run ();
}
