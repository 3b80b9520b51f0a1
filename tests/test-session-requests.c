/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reading of a request's body as parts (assay-session-requests): the three body shapes, what
 * a request added to the one before and whether it went on from it, the parts' labels and
 * cells, Assay's check of an answer, bodies that are broken, not kept or no longer what was
 * sent, and the walk over all of a session's requests that reads each body once. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "assay-session.h"
#include "assay-session-requests.h"

static char *tmpdir;

#define SYSTEM_PROMPT "You are Assay.\\n\\nHow to work:\\n- Compute.\\n\\nDatasets (read-only):\\n- /data/sales.csv\\n  rows: 12"
#define TOOLS "[{\"type\":\"function\",\"function\":{\"name\":\"execute_python\",\"description\":\"Runs Python\"," \
              "\"parameters\":{\"type\":\"object\"}}}]"

/* Three requests of one question as chat completions: the question; then the reply, its call
 * and the result; then again with the old output emptied and a second call and result. */
static const char *openai_1 =
  "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"},"
  "{\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"}],\"tools\":" TOOLS ",\"stream\":true}";
static const char *openai_2 =
  "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"},"
  "{\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"},"
  "{\"role\":\"assistant\",\"content\":\"Let me look.\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
  "\"function\":{\"name\":\"execute_python\",\"arguments\":\"{\\\"code\\\":\\\"import pandas\\\\nprint(1)\\\","
  "\\\"description\\\":\\\"Look\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"Status: ok\\n1\"}],\"tools\":" TOOLS ",\"stream\":true}";
static const char *openai_3 =
  "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"},"
  "{\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"},"
  "{\"role\":\"assistant\",\"content\":\"Let me look.\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
  "\"function\":{\"name\":\"execute_python\",\"arguments\":\"{\\\"code\\\":\\\"import pandas\\\\nprint(1)\\\","
  "\\\"description\\\":\\\"Look\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"[This output was removed]\"},"
  "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
  "\"function\":{\"name\":\"execute_python\",\"arguments\":\"{\\\"code\\\":\\\"print(2)\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"Status: ok\\n2\"}],\"tools\":" TOOLS ",\"stream\":true}";

/* The same conversation's second request as Anthropic messages, with a check of the answer
 * after a reply: tool results and the next user text share one user message. */
static const char *anthropic_1 =
  "{\"model\":\"claude-test\",\"max_tokens\":4096,\"system\":\"" SYSTEM_PROMPT "\","
  "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is the <b>total</b> revenue?\"}]}],"
  "\"tools\":[{\"name\":\"execute_python\",\"description\":\"Runs Python\",\"input_schema\":{\"type\":\"object\"}}]}";
static const char *anthropic_2 =
  "{\"model\":\"claude-test\",\"max_tokens\":4096,\"system\":\"" SYSTEM_PROMPT "\","
  "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is the <b>total</b> revenue?\"}]},"
  "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Let me look.\"},"
  "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"execute_python\",\"input\":{\"code\":\"print(1)\"}}]},"
  "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"Status: error\","
  "\"is_error\":true},{\"type\":\"image\",\"source\":{}}]},"
  "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"It is 42.\"}]},"
  "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Check 42.\"}]}],"
  "\"tools\":[{\"name\":\"execute_python\",\"description\":\"Runs Python\",\"input_schema\":{\"type\":\"object\"}}]}";

/* The same question through OpenAI's Responses API: the system prompt in "instructions",
 * flat tools, and input items; the second request carries the reasoning of both replies
 * (one with a summary) and a question in content parts. */
static const char *responses_1 =
  "{\"model\":\"gpt-5-test\",\"instructions\":\"" SYSTEM_PROMPT "\","
  "\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"}],"
  "\"tools\":[{\"type\":\"function\",\"name\":\"execute_python\",\"description\":\"Runs Python\","
  "\"parameters\":{\"type\":\"object\"},\"strict\":false}],\"stream\":true,\"store\":false,"
  "\"include\":[\"reasoning.encrypted_content\"]}";
static const char *responses_2 =
  "{\"model\":\"gpt-5-test\",\"instructions\":\"" SYSTEM_PROMPT "\","
  "\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":\"What is the <b>total</b> revenue?\"},"
  "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"Sum the\\u001b[2J column.\"}],"
  "\"encrypted_content\":\"gAAAAABsecret\"},"
  "{\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"execute_python\","
  "\"arguments\":\"{\\\"code\\\":\\\"print(1)\\\"}\"},"
  "{\"type\":\"function_call_output\",\"call_id\":\"call_1\",\"output\":\"Status: ok\\n1\"},"
  "{\"type\":\"reasoning\",\"id\":\"rs_2\",\"summary\":[],\"encrypted_content\":\"gAAAAABsecret2\"},"
  "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"It is 42.\"},"
  "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Check 42.\"}]},"
  "{\"type\":\"web_search_call\",\"id\":\"ws_1\"}],"
  "\"tools\":[{\"type\":\"function\",\"name\":\"execute_python\",\"description\":\"Runs Python\","
  "\"parameters\":{\"type\":\"object\"},\"strict\":false}],\"stream\":true,\"store\":false}";

/* "Runs on OpenAI": the code_interpreter tool, and a call that ran there sent back as its item. */
static const char *responses_hosted =
  "{\"model\":\"gpt-5-test\",\"instructions\":\"" SYSTEM_PROMPT "\","
  "\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":\"Total?\"},"
  "{\"type\":\"code_interpreter_call\",\"id\":\"ci_1\",\"code\":\"print(6 * 7)\","
  "\"container_id\":\"cntr_1\",\"status\":\"completed\",\"outputs\":[{\"type\":\"logs\",\"logs\":\"42\\n\"}]},"
  "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"It is 42.\"},"
  "{\"type\":\"message\",\"role\":\"user\",\"content\":\"Halved?\"}],"
  "\"tools\":[{\"type\":\"code_interpreter\",\"container\":\"cntr_1\"}],\"stream\":true,\"store\":false,"
  "\"include\":[\"reasoning.encrypted_content\",\"code_interpreter_call.outputs\"]}";

static AssayRequestReading *
read_text (const char *text)
{
  g_autoptr(GBytes) body = g_bytes_new (text, strlen (text));
  g_autoptr(GError) error = NULL;
  AssayRequestReading *reading = assay_request_reading_new (body, &error);

  g_assert_no_error (error);
  g_assert_nonnull (reading);
  return reading;
}

static const AssayRequestPart *
part (const AssayRequestReading *reading,
      guint                      index)
{
  g_assert_cmpuint (index, <, reading->parts->len);
  return g_ptr_array_index (reading->parts, index);
}

static void
assert_part (const AssayRequestReading *reading,
             guint                      index,
             AssayRequestPartKind       kind,
             AssayRequestPartChange     change,
             const char                *label,
             const char                *text)
{
  const AssayRequestPart *p = part (reading, index);

  g_assert_cmpint (p->kind, ==, kind);
  g_assert_cmpint (p->change, ==, change);
  g_assert_cmpstr (p->label, ==, label);
  if (text != NULL)
    g_assert_cmpstr (p->text, ==, text);
}

static void
test_openai (void)
{
  g_autoptr(AssayRequestReading) first = read_text (openai_1);
  g_autoptr(AssayRequestReading) second = read_text (openai_2);
  g_autoptr(AssayRequestReading) third = read_text (openai_3);

  g_assert_cmpint (first->format, ==, ASSAY_REQUEST_FORMAT_OPENAI);
  g_assert_cmpstr (first->model, ==, "gpt-test");
  g_assert_cmpuint (first->parts->len, ==, 4);
  assert_part (first, 0, ASSAY_REQUEST_PART_SYSTEM, ASSAY_REQUEST_PART_ADDED, "System prompt",
               "You are Assay.\n\nHow to work:\n- Compute.");
  assert_part (first, 1, ASSAY_REQUEST_PART_DATASETS, ASSAY_REQUEST_PART_ADDED, "Dataset summary",
               "Datasets (read-only):\n- /data/sales.csv\n  rows: 12");
  assert_part (first, 2, ASSAY_REQUEST_PART_TOOLS, ASSAY_REQUEST_PART_ADDED, "Tools offered",
               "execute_python: Runs Python");
  /* Text from a body is text: markup stays as it was written. */
  assert_part (first, 3, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_ADDED, "Question",
               "What is the <b>total</b> revenue?");
  assay_request_reading_compare (first, NULL, 0);
  g_assert_cmpuint (first->compared_with, ==, 0);
  g_assert_cmpuint (first->n_added, ==, 4);

  /* The second repeats the first and adds the reply, its call and the result. */
  assay_request_reading_compare (second, first, 1);
  g_assert_cmpuint (second->compared_with, ==, 1);
  g_assert_cmpuint (second->parts->len, ==, 7);
  g_assert_cmpuint (second->n_added, ==, 3);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpint (part (second, i)->change, ==, ASSAY_REQUEST_PART_REPEATED);
  assert_part (second, 4, ASSAY_REQUEST_PART_REPLY, ASSAY_REQUEST_PART_ADDED, "Model’s reply", "Let me look.");
  /* A call's arguments: each member on a line, the code with its line ends. */
  assert_part (second, 5, ASSAY_REQUEST_PART_TOOL_CALL, ASSAY_REQUEST_PART_ADDED, "Tool call: execute_python",
               "code:\nimport pandas\nprint(1)\ndescription: Look");
  g_assert_cmpstr (part (second, 5)->call_id, ==, "call_1");
  g_assert_cmpstr (part (second, 5)->tool_name, ==, "execute_python");
  g_assert_cmpuint (part (second, 5)->step, ==, 1);
  assert_part (second, 6, ASSAY_REQUEST_PART_TOOL_RESULT, ASSAY_REQUEST_PART_ADDED, "Tool result",
               "Status: ok\n1");
  g_assert_cmpuint (part (second, 6)->step, ==, 1);

  /* The third empties the old output in place (changed), repeats what follows it and adds
   * a second call with the same id, in step 2. */
  assay_request_reading_compare (third, second, 2);
  g_assert_cmpuint (third->parts->len, ==, 9);
  g_assert_cmpint (part (third, 5)->change, ==, ASSAY_REQUEST_PART_REPEATED);
  g_assert_cmpint (part (third, 6)->change, ==, ASSAY_REQUEST_PART_CHANGED);
  g_assert_cmpstr (part (third, 6)->text, ==, "[This output was removed]");
  assert_part (third, 7, ASSAY_REQUEST_PART_TOOL_CALL, ASSAY_REQUEST_PART_ADDED, "Tool call: execute_python",
               "code: print(2)");
  g_assert_cmpuint (part (third, 7)->step, ==, 2);
  assert_part (third, 8, ASSAY_REQUEST_PART_TOOL_RESULT, ASSAY_REQUEST_PART_ADDED, "Tool result", "Status: ok\n2");
  g_assert_cmpuint (third->n_added, ==, 3);

  g_assert_false (second->diverged);
  g_assert_false (third->diverged);

  /* A request that sends less than the one before adds nothing, and does not go on from it. */
  assay_request_reading_compare (first, third, 3);
  g_assert_cmpuint (first->n_added, ==, 0);
  g_assert_true (first->diverged);
  assay_request_reading_compare (first, NULL, 0);
  g_assert_false (first->diverged);
}

/* A conversation started again: another question where the first was is changed in place,
 * and the reply after the first is gone, so it does not go on from the one before. */
static void
test_diverged (void)
{
  static const char restarted[] =
    "{\"messages\":[{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"},"
    "{\"role\":\"user\",\"content\":\"Another question\"}]}";
  g_autoptr(AssayRequestReading) second = read_text (openai_2);
  g_autoptr(AssayRequestReading) reading = read_text (restarted);

  assay_request_reading_compare (reading, second, 2);
  g_assert_true (reading->diverged);
  assert_part (reading, 0, ASSAY_REQUEST_PART_SYSTEM, ASSAY_REQUEST_PART_REPEATED, "System prompt", NULL);
  assert_part (reading, 2, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_CHANGED, "Question", "Another question");
  g_assert_cmpuint (reading->n_added, ==, 1);
}

static void
test_anthropic (void)
{
  g_autoptr(AssayRequestReading) first = read_text (anthropic_1);
  g_autoptr(AssayRequestReading) second = read_text (anthropic_2);

  g_assert_cmpint (second->format, ==, ASSAY_REQUEST_FORMAT_ANTHROPIC);
  g_assert_cmpstr (second->model, ==, "claude-test");
  assay_request_reading_compare (second, first, 4);
  g_assert_cmpuint (second->compared_with, ==, 4);
  g_assert_cmpuint (second->parts->len, ==, 10);
  assert_part (second, 0, ASSAY_REQUEST_PART_SYSTEM, ASSAY_REQUEST_PART_REPEATED, "System prompt", NULL);
  assert_part (second, 1, ASSAY_REQUEST_PART_DATASETS, ASSAY_REQUEST_PART_REPEATED, "Dataset summary", NULL);
  assert_part (second, 2, ASSAY_REQUEST_PART_TOOLS, ASSAY_REQUEST_PART_REPEATED, "Tools offered", NULL);
  assert_part (second, 3, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_REPEATED, "Question",
               "What is the <b>total</b> revenue?");
  assert_part (second, 4, ASSAY_REQUEST_PART_REPLY, ASSAY_REQUEST_PART_ADDED, "Model’s reply", "Let me look.");
  assert_part (second, 5, ASSAY_REQUEST_PART_TOOL_CALL, ASSAY_REQUEST_PART_ADDED, "Tool call: execute_python",
               "code: print(1)");
  g_assert_cmpstr (part (second, 5)->call_id, ==, "toolu_1");
  assert_part (second, 6, ASSAY_REQUEST_PART_TOOL_RESULT, ASSAY_REQUEST_PART_ADDED, "Tool result (an error)",
               "Status: error");
  g_assert_true (part (second, 6)->is_error);
  g_assert_cmpstr (part (second, 6)->call_id, ==, "toolu_1");
  assert_part (second, 7, ASSAY_REQUEST_PART_OTHER, ASSAY_REQUEST_PART_ADDED, "Part of type “image”",
               "(a “image” part, not shown)");
  assert_part (second, 8, ASSAY_REQUEST_PART_REPLY, ASSAY_REQUEST_PART_ADDED, "Model’s reply", "It is 42.");
  g_assert_cmpuint (part (second, 8)->step, ==, 2);
  assert_part (second, 9, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_ADDED, "Question", "Check 42.");
  g_assert_cmpuint (second->n_added, ==, 6);
}

static void
test_responses (void)
{
  g_autoptr(AssayRequestReading) first = read_text (responses_1);
  g_autoptr(AssayRequestReading) second = read_text (responses_2);
  const AssayRequestPart *reasoning;

  g_assert_cmpint (first->format, ==, ASSAY_REQUEST_FORMAT_OPENAI_RESPONSES);
  g_assert_cmpstr (first->model, ==, "gpt-5-test");
  g_assert_cmpuint (first->parts->len, ==, 4);
  assert_part (first, 0, ASSAY_REQUEST_PART_SYSTEM, ASSAY_REQUEST_PART_ADDED, "System prompt",
               "You are Assay.\n\nHow to work:\n- Compute.");
  assert_part (first, 1, ASSAY_REQUEST_PART_DATASETS, ASSAY_REQUEST_PART_ADDED, "Dataset summary", NULL);
  assert_part (first, 2, ASSAY_REQUEST_PART_TOOLS, ASSAY_REQUEST_PART_ADDED, "Tools offered",
               "execute_python: Runs Python");
  assert_part (first, 3, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_ADDED, "Question",
               "What is the <b>total</b> revenue?");

  assay_request_reading_compare (second, first, 1);
  g_assert_cmpuint (second->parts->len, ==, 11);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpint (part (second, i)->change, ==, ASSAY_REQUEST_PART_REPEATED);
  /* The reasoning by its summary, escapes taken out; the encrypted content never shown. */
  reasoning = part (second, 4);
  assert_part (second, 4, ASSAY_REQUEST_PART_OTHER, ASSAY_REQUEST_PART_ADDED, "Model’s reasoning", NULL);
  g_assert_true (g_str_has_prefix (reasoning->text, "Sum the\xef\xbf\xbd[2J column.\n\n"));
  g_assert_null (strstr (reasoning->text, "gAAAA"));
  g_assert_cmpuint (reasoning->step, ==, 1);
  assert_part (second, 5, ASSAY_REQUEST_PART_TOOL_CALL, ASSAY_REQUEST_PART_ADDED, "Tool call: execute_python",
               "code: print(1)");
  g_assert_cmpstr (part (second, 5)->call_id, ==, "call_1");
  g_assert_cmpuint (part (second, 5)->step, ==, 1);
  assert_part (second, 6, ASSAY_REQUEST_PART_TOOL_RESULT, ASSAY_REQUEST_PART_ADDED, "Tool result", "Status: ok\n1");
  g_assert_cmpstr (part (second, 6)->call_id, ==, "call_1");
  g_assert_cmpuint (part (second, 6)->step, ==, 1);
  /* The second reply (its reasoning, then its text) is step 2, counted once. */
  assert_part (second, 7, ASSAY_REQUEST_PART_OTHER, ASSAY_REQUEST_PART_ADDED, "Model’s reasoning", NULL);
  g_assert_cmpuint (part (second, 7)->step, ==, 2);
  assert_part (second, 8, ASSAY_REQUEST_PART_REPLY, ASSAY_REQUEST_PART_ADDED, "Model’s reply", "It is 42.");
  g_assert_cmpuint (part (second, 8)->step, ==, 2);
  assert_part (second, 9, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_ADDED, "Question", "Check 42.");
  g_assert_cmpuint (part (second, 9)->step, ==, 2);
  assert_part (second, 10, ASSAY_REQUEST_PART_OTHER, ASSAY_REQUEST_PART_ADDED, "Part of type “web_search_call”", NULL);
  g_assert_cmpuint (second->n_added, ==, 7);
  g_assert_false (second->diverged);
}

static void
test_responses_hosted (void)
{
  g_autoptr(AssayRequestReading) reading = read_text (responses_hosted);

  g_assert_cmpuint (reading->parts->len, ==, 8);
  assert_part (reading, 2, ASSAY_REQUEST_PART_TOOLS, ASSAY_REQUEST_PART_ADDED, "Tools offered", NULL);
  g_assert_true (g_str_has_prefix (part (reading, 2)->text, "code_interpreter"));
  assert_part (reading, 4, ASSAY_REQUEST_PART_TOOL_CALL, ASSAY_REQUEST_PART_ADDED, "Tool call: code_interpreter",
               "code: print(6 * 7)");
  g_assert_cmpstr (part (reading, 4)->call_id, ==, "ci_1");
  g_assert_cmpuint (part (reading, 4)->step, ==, 1);
  assert_part (reading, 5, ASSAY_REQUEST_PART_TOOL_RESULT, ASSAY_REQUEST_PART_ADDED, "Tool result", "42\n");
  g_assert_cmpstr (part (reading, 5)->call_id, ==, "ci_1");
  /* The answer after the call is the same reply's. */
  assert_part (reading, 6, ASSAY_REQUEST_PART_REPLY, ASSAY_REQUEST_PART_ADDED, "Model’s reply", "It is 42.");
  g_assert_cmpuint (part (reading, 6)->step, ==, 1);
  assert_part (reading, 7, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_ADDED, "Question", "Halved?");
}

static void
test_hostile_text (void)
{
  /* Control characters and an invalid sequence in a part become replacement characters;
   * line ends and tabs stay, carriage returns go. */
  static const char body[] =
    "{\"messages\":[{\"role\":\"user\",\"content\":\"a\\u001b[31mred\\r\\n\\tb\\u0007\"},"
    "{\"role\":\"wizard\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":[]}]}";
  g_autoptr(AssayRequestReading) reading = read_text (body);

  g_assert_cmpuint (reading->parts->len, ==, 3);
  g_assert_cmpstr (part (reading, 0)->text, ==, "a\xef\xbf\xbd[31mred\n\tb\xef\xbf\xbd");
  assert_part (reading, 1, ASSAY_REQUEST_PART_OTHER, ASSAY_REQUEST_PART_ADDED, "Message (wizard)", "hi");
  /* An empty message is shown, empty. */
  assert_part (reading, 2, ASSAY_REQUEST_PART_REPLY, ASSAY_REQUEST_PART_ADDED, "Model’s reply", "");

  /* The same cleaning for what is recorded beside a body. */
  {
    g_autofree char *multi = assay_request_clean_text ("host\x1b\r\n\tname", FALSE);
    g_autofree char *single = assay_request_clean_text ("host\x1b\r\n\tname", TRUE);
    g_autofree char *none = assay_request_clean_text (NULL, TRUE);
    g_autofree char *invalid = assay_request_clean_text ("a\xff" "b", TRUE);

    g_assert_cmpstr (multi, ==, "host\xef\xbf\xbd\n\tname");
    g_assert_cmpstr (single, ==, "host\xef\xbf\xbd  name");
    g_assert_cmpstr (none, ==, "");
    g_assert_cmpstr (invalid, ==, "a\xef\xbf\xbd" "b");
  }
}

static void
assert_refused (const char *data,
                gssize      length)
{
  g_autoptr(GBytes) body = g_bytes_new (data, length >= 0 ? (gsize) length : strlen (data));
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayRequestReading) reading = assay_request_reading_new (body, &error);

  g_assert_null (reading);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (error->message, !=, "");
}

static void
test_broken (void)
{
  GString *deep = g_string_new ("{\"messages\":");

  assert_refused ("", -1);
  assert_refused ("   ", -1);
  assert_refused ("{\"messages\": [", -1);
  assert_refused ("[1, 2]", -1);
  assert_refused ("{\"model\": \"x\"}", -1);
  assert_refused ("{\"messages\": 3}", -1);
  assert_refused ("{'messages': []}", -1);
  assert_refused ("{\"messages\": []}\0{\"x\":1}", 25);
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  assert_refused (deep->str, deep->len);
  g_string_free (deep, TRUE);
}

/* A session that recorded the OpenAI requests above, with the cell of step 1 (call_1) and the
 * cell of step 2 (call_1 again). */
static AssaySession *
session_with_requests (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "session", NULL);
  g_autoptr(GError) error = NULL;
  AssaySession *session;
  const char *bodies[] = { openai_1, openai_2, openai_3 };

  session = assay_session_new (dir, &error);
  g_assert_no_error (error);
  assay_session_append_message (session, assay_llm_message_new_user ("What is the <b>total</b> revenue?"));
  assay_session_add_cell (session, assay_session_cell_new ("c1", 1, "call_1", "Look", "import pandas\nprint(1)"));
  assay_session_add_cell (session, assay_session_cell_new ("c2", 2, "call_1", NULL, "print(2)"));
  for (guint i = 0; i < G_N_ELEMENTS (bodies); i++)
    {
      g_autoptr(AssayLlmResponse) response = assay_llm_response_new ();

      response->request_body = g_bytes_new (bodies[i], strlen (bodies[i]));
      response->request_host = g_strdup ("api.example.com");
      response->input_tokens = 100 * (i + 1);
      response->output_tokens = 10;
      response->sent_at = g_get_real_time ();
      g_assert_true (assay_session_record_request (session, i + 1, "gpt-test", response, 0.01, &error));
      g_assert_no_error (error);
    }
  return session;
}

static void
test_session (void)
{
  g_autoptr(AssaySession) session = session_with_requests ();
  g_autoptr(AssayRequestReading) first = NULL;
  g_autoptr(AssayRequestReading) third = NULL;
  g_autoptr(GError) error = NULL;

  first = assay_session_requests_read (session, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (first->compared_with, ==, 0);
  g_assert_cmpuint (first->n_added, ==, first->parts->len);

  /* Each call and result named by its cell: by step first, so the second call_1 is c2. */
  third = assay_session_requests_read (session, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (third->compared_with, ==, 2);
  assert_part (third, 5, ASSAY_REQUEST_PART_TOOL_CALL, ASSAY_REQUEST_PART_REPEATED, "Tool call (cell c1)", NULL);
  assert_part (third, 6, ASSAY_REQUEST_PART_TOOL_RESULT, ASSAY_REQUEST_PART_CHANGED, "Tool result (cell c1)", NULL);
  assert_part (third, 7, ASSAY_REQUEST_PART_TOOL_CALL, ASSAY_REQUEST_PART_ADDED, "Tool call (cell c2)", NULL);
  assert_part (third, 8, ASSAY_REQUEST_PART_TOOL_RESULT, ASSAY_REQUEST_PART_ADDED, "Tool result (cell c2)", NULL);
  g_assert_cmpstr (part (third, 8)->cell_id, ==, "c2");
}

static void
test_check_named (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "checked", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autoptr(AssayRequestReading) reading = read_text (anthropic_2);
  AssayLlmMessage *check = assay_llm_message_new_user ("Check 42.");

  g_assert_no_error (error);
  check->is_check = TRUE;
  assay_session_append_message (session, assay_llm_message_new_user ("What is the <b>total</b> revenue?"));
  assay_session_append_message (session, check);
  assay_request_reading_name_cells (reading, session);
  assert_part (reading, 3, ASSAY_REQUEST_PART_QUESTION, ASSAY_REQUEST_PART_ADDED, "Question", NULL);
  assert_part (reading, 9, ASSAY_REQUEST_PART_CHECK, ASSAY_REQUEST_PART_ADDED, "Assay’s check of the answer",
               "Check 42.");
  /* The reply it checked is marked as the draft it sent back, not an answer. */
  assert_part (reading, 8, ASSAY_REQUEST_PART_DRAFT, ASSAY_REQUEST_PART_ADDED,
               "Draft answer, sent back by the number check", "It is 42.");
  /* No cell was recorded for toolu_1: its parts keep the tool's name. */
  g_assert_cmpstr (part (reading, 5)->label, ==, "Tool call: execute_python");
  g_assert_null (part (reading, 5)->cell_id);
}

/* What a worker is handed: the body and the one before it, read on the session's thread. */
static void
test_compared (void)
{
  g_autoptr(GBytes) body = g_bytes_new_static (openai_2, strlen (openai_2));
  g_autoptr(GBytes) previous = g_bytes_new_static (openai_1, strlen (openai_1));
  g_autoptr(GBytes) broken = g_bytes_new_static ("{\"messages\": 1}", 15);
  g_autoptr(AssayRequestReading) reading = NULL;
  g_autoptr(GError) error = NULL;

  reading = assay_request_reading_new_compared (body, previous, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (reading->compared_with, ==, 7);
  g_assert_cmpuint (reading->n_added, ==, 3);
  g_clear_pointer (&reading, assay_request_reading_free);

  /* A previous body that is not a request: nothing to compare with. */
  reading = assay_request_reading_new_compared (body, broken, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (reading->compared_with, ==, 0);
  g_assert_cmpuint (reading->n_added, ==, reading->parts->len);
  g_clear_pointer (&reading, assay_request_reading_free);

  reading = assay_request_reading_new_compared (broken, previous, 7, &error);
  g_assert_null (reading);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

static void
assert_same_reading (const AssayRequestReading *a,
                     const AssayRequestReading *b)
{
  g_assert_cmpint (a->format, ==, b->format);
  g_assert_cmpuint (a->compared_with, ==, b->compared_with);
  g_assert_cmpuint (a->n_added, ==, b->n_added);
  g_assert_cmpint (a->diverged, ==, b->diverged);
  g_assert_cmpuint (a->parts->len, ==, b->parts->len);
  for (guint i = 0; i < a->parts->len; i++)
    {
      const AssayRequestPart *x = part (a, i);
      const AssayRequestPart *y = part (b, i);

      g_assert_cmpint (x->kind, ==, y->kind);
      g_assert_cmpint (x->change, ==, y->change);
      g_assert_cmpstr (x->label, ==, y->label);
      g_assert_cmpstr (x->text, ==, y->text);
      g_assert_cmpstr (x->cell_id, ==, y->cell_id);
    }
}

typedef struct
{
  guint      n_calls;
  GPtrArray *errors;    /* the error codes seen, as G_IO_ERROR_* + 1; 0: a reading */
} Walk;

/* Each request walked over is what assay_session_requests_read () reads of it. */
static void
walk_request (AssaySession              *session,
              guint                      index,
              const AssayRequestReading *reading,
              const GError              *error,
              gpointer                   user_data)
{
  Walk *walk = user_data;
  g_autoptr(AssayRequestReading) alone = NULL;
  g_autoptr(GError) alone_error = NULL;

  g_assert_cmpuint (index, ==, walk->n_calls);
  walk->n_calls++;
  alone = assay_session_requests_read (session, index, &alone_error);
  if (reading == NULL)
    {
      g_assert_nonnull (error);
      g_assert_null (alone);
      g_assert_error (alone_error, error->domain, error->code);
      g_assert_cmpstr (alone_error->message, ==, error->message);
      g_ptr_array_add (walk->errors, GUINT_TO_POINTER (error->code + 1));
      return;
    }
  g_assert_null (error);
  g_assert_no_error (alone_error);
  assert_same_reading (reading, alone);
  g_ptr_array_add (walk->errors, GUINT_TO_POINTER (0));
}

static void
test_foreach (void)
{
  g_autoptr(AssaySession) session = session_with_requests ();
  g_autoptr(GPtrArray) errors = g_ptr_array_new ();
  GPtrArray *requests = assay_session_get_requests (session);
  AssaySessionRequest *first = g_ptr_array_index (requests, 0);
  Walk walk = { 0, errors };
  g_autofree char *path = NULL;

  assay_session_requests_foreach (session, walk_request, &walk);
  g_assert_cmpuint (walk.n_calls, ==, 3);
  g_assert_cmpuint (errors->len, ==, 3);
  for (guint i = 0; i < errors->len; i++)
    g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (errors, i)), ==, 0);

  /* A body not kept, then one no longer what was sent (read first), and a body that is
   * what was sent but is no request: each compared as the viewer compares it. */
  {
    static const char not_a_request[] = "{\"model\":\"x\"}";
    g_autoptr(AssayLlmResponse) response = assay_llm_response_new ();
    g_autoptr(GError) error = NULL;

    response->request_body = g_bytes_new_static (not_a_request, strlen (not_a_request));
    response->request_host = g_strdup ("api.example.com");
    response->sent_at = g_get_real_time ();
    g_assert_true (assay_session_record_request (session, 4, "gpt-test", response, 0.01, &error));
    g_assert_no_error (error);
    g_bytes_unref (response->request_body);
    response->request_body = g_bytes_new_static (openai_3, strlen (openai_3));
    g_assert_true (assay_session_record_request (session, 5, "gpt-test", response, 0.01, &error));
    g_assert_no_error (error);
  }
  g_clear_pointer (&((AssaySessionRequest *) g_ptr_array_index (requests, 1))->file, g_free);
  path = assay_session_resolve (session, first->file);
  g_assert_true (g_file_set_contents (path, "not gzip", -1, NULL));

  walk.n_calls = 0;
  g_ptr_array_set_size (errors, 0);
  assay_session_requests_foreach (session, walk_request, &walk);
  g_assert_cmpuint (walk.n_calls, ==, 5);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (errors, 0)), !=, 0);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (errors, 1)), ==, G_IO_ERROR_NOT_FOUND + 1);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (errors, 2)), ==, 0);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (errors, 3)), ==, G_IO_ERROR_INVALID_DATA + 1);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (errors, 4)), ==, 0);
}

static void
test_missing (void)
{
  g_autoptr(AssaySession) session = session_with_requests ();
  GPtrArray *requests = assay_session_get_requests (session);
  AssaySessionRequest *second = g_ptr_array_index (requests, 1);
  AssaySessionRequest *third = g_ptr_array_index (requests, 2);
  g_autoptr(AssayRequestReading) reading = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  /* The second's body was not kept (the session's cap): it says so, and the third is
   * compared with the first. */
  g_clear_pointer (&second->file, g_free);
  {
    guint number = 99;
    g_autoptr(GBytes) previous = assay_session_requests_read_previous_body (session, 2, &number);

    g_assert_nonnull (previous);
    g_assert_cmpuint (number, ==, 1);
    g_assert_cmpmem (g_bytes_get_data (previous, NULL), g_bytes_get_size (previous), openai_1, strlen (openai_1));
    g_clear_pointer (&previous, g_bytes_unref);
    previous = assay_session_requests_read_previous_body (session, 0, &number);
    g_assert_null (previous);
    g_assert_cmpuint (number, ==, 0);
  }
  reading = assay_session_requests_read (session, 1, &error);
  g_assert_null (reading);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  reading = assay_session_requests_read (session, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (reading->compared_with, ==, 1);
  /* Against the first, everything after the question is new. */
  g_assert_cmpuint (reading->n_added, ==, 5);
  g_clear_pointer (&reading, assay_request_reading_free);

  /* A body that is no longer what was sent is refused by the session's check. */
  path = assay_session_resolve (session, third->file);
  g_assert_true (g_file_set_contents (path, "not gzip", -1, NULL));
  reading = assay_session_requests_read (session, 2, &error);
  g_assert_null (reading);
  g_assert_nonnull (error);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("assay-session-requests-XXXXXX", NULL);
  g_test_add_func ("/assay/session-requests/openai", test_openai);
  g_test_add_func ("/assay/session-requests/anthropic", test_anthropic);
  g_test_add_func ("/assay/session-requests/responses", test_responses);
  g_test_add_func ("/assay/session-requests/responses-hosted", test_responses_hosted);
  g_test_add_func ("/assay/session-requests/hostile-text", test_hostile_text);
  g_test_add_func ("/assay/session-requests/broken", test_broken);
  g_test_add_func ("/assay/session-requests/session", test_session);
  g_test_add_func ("/assay/session-requests/check-named", test_check_named);
  g_test_add_func ("/assay/session-requests/compared", test_compared);
  g_test_add_func ("/assay/session-requests/missing", test_missing);
  g_test_add_func ("/assay/session-requests/diverged", test_diverged);
  g_test_add_func ("/assay/session-requests/foreach", test_foreach);
  status = g_test_run ();
  {
    g_autofree char *command = g_strdup_printf ("rm -rf '%s'", tmpdir);

    if (system (command) != 0)
      g_printerr ("could not remove %s\n", tmpdir);
  }
  g_free (tmpdir);
  return status;
}
