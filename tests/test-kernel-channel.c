/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "assay-kernel-channel.h"

typedef struct
{
  GPtrArray *lines;
} Collected;

static gboolean
collect_line (const char  *line,
              gsize        len,
              gpointer     user_data,
              GError     **error)
{
  Collected *collected = user_data;

  g_assert_cmpuint (strlen (line), ==, len);
  g_ptr_array_add (collected->lines, g_strndup (line, len));
  return TRUE;
}

static void
test_splitter_byte_by_byte (void)
{
  const char *input = "{\"a\":1}\n\nsecond line\nthird";
  Collected collected = { g_ptr_array_new_with_free_func (g_free) };
  AssayLineSplitter splitter;
  g_autoptr(GError) error = NULL;

  for (gsize chunk = 1; chunk <= strlen (input); chunk++)
    {
      g_ptr_array_set_size (collected.lines, 0);
      assay_line_splitter_init (&splitter, 64);
      for (gsize pos = 0; pos < strlen (input); pos += chunk)
        g_assert_true (assay_line_splitter_feed (&splitter, (const guint8 *) input + pos,
                                                 MIN (chunk, strlen (input) - pos),
                                                 collect_line, &collected, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (collected.lines->len, ==, 3);
      g_assert_cmpstr (g_ptr_array_index (collected.lines, 0), ==, "{\"a\":1}");
      g_assert_cmpstr (g_ptr_array_index (collected.lines, 1), ==, "");
      g_assert_cmpstr (g_ptr_array_index (collected.lines, 2), ==, "second line");
      /* The unterminated tail stays buffered. */
      g_assert_false (assay_line_splitter_is_empty (&splitter));
      assay_line_splitter_clear (&splitter);
    }
  g_ptr_array_unref (collected.lines);
}

static void
test_splitter_caps_lines (void)
{
  Collected collected = { g_ptr_array_new_with_free_func (g_free) };
  AssayLineSplitter splitter;
  g_autoptr(GError) error = NULL;
  char big[100];

  memset (big, 'x', sizeof big);
  assay_line_splitter_init (&splitter, 64);
  /* Fed in small pieces, the cap still holds: memory never grows past it. */
  for (guint i = 0; i < 10 && error == NULL; i++)
    assay_line_splitter_feed (&splitter, (const guint8 *) big, 10, collect_line, &collected, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_cmpuint (collected.lines->len, ==, 0);
  g_clear_error (&error);
  /* Once failed, it stays failed. */
  g_assert_false (assay_line_splitter_feed (&splitter, (const guint8 *) "\n", 1, collect_line, &collected, &error));
  assay_line_splitter_clear (&splitter);
  g_ptr_array_unref (collected.lines);
}

static void
test_sanitize (void)
{
  static const struct { const char *in; gssize len; const char *out; } cases[] = {
    { "plain\ttext\nline\r\n", -1, "plain\ttext\nline\r\n" },
    { "\033[31mred\033[0m", -1, "red" },
    { "\033]0;title\007after", -1, "after" },
    { "\033]8;;http://x\033\\link", -1, "link" },
    { "bell\007 back\b", -1, "bell back" },
    { "nul\0byte", 8, "nulbyte" },
    { "bad \xff utf8", -1, "bad \xEF\xBF\xBD utf8" },
    { "кириллица ✓", -1, "кириллица ✓" },
    { "c1 \xc2\x9b" "31m", -1, "c1 31m" },
    { "\033", -1, "" },
    { "\033[", -1, "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *clean = assay_sanitize_text (cases[i].in, cases[i].len);
      g_assert_cmpstr (clean, ==, cases[i].out);
    }
}

static JsonObject *
parse (const char  *line,
       GError     **error)
{
  return assay_kernel_message_parse (line, strlen (line), error);
}

static void
test_parse_valid (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) ready = parse ("{\"type\":\"ready\",\"protocol\":1,\"python\":\"3.11.2\",\"extra\":[1]}", &error);
  g_autoptr(JsonObject) stream = NULL;
  g_autoptr(JsonObject) display = NULL;
  g_autoptr(JsonObject) done = NULL;
  JsonObject *output;

  g_assert_no_error (error);
  g_assert_nonnull (ready);
  g_assert_cmpint (json_object_get_int_member (ready, "protocol"), ==, 1);
  /* Unknown fields are dropped. */
  g_assert_false (json_object_has_member (ready, "extra"));

  stream = parse ("{\"type\":\"output\",\"id\":\"c1\",\"output\":{\"output_type\":\"stream\","
                  "\"name\":\"stdout\",\"text\":\"a\\u001b[1mb\\u0000c\\n\"}}", &error);
  g_assert_no_error (error);
  output = json_object_get_object_member (stream, "output");
  g_assert_cmpstr (json_object_get_string_member (output, "text"), ==, "abc\n");

  display = parse ("{\"type\":\"output\",\"id\":\"c1\",\"output\":{\"output_type\":\"display_data\","
                   "\"data\":{\"image/png\":\"iVBORw0K\",\"text/plain\":\"<Figure>\",\"bad mime\":\"x\","
                   "\"application/json\":{\"not\":\"a string\"}},\"metadata\":{\"x\":1}}}", &error);
  g_assert_no_error (error);
  output = json_object_get_object_member (display, "output");
  g_assert_true (json_object_has_member (json_object_get_object_member (output, "data"), "image/png"));
  g_assert_false (json_object_has_member (json_object_get_object_member (output, "data"), "bad mime"));
  g_assert_false (json_object_has_member (json_object_get_object_member (output, "data"), "application/json"));

  done = parse ("{\"type\":\"done\",\"id\":\"c1\",\"status\":\"error\",\"reason\":\"boom\",\"execution_count\":3}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (done, "status"), ==, "error");
  g_assert_cmpint (json_object_get_int_member (done, "execution_count"), ==, 3);
}

static void
test_parse_invalid (void)
{
  static const char *lines[] = {
    "",
    "not json",
    "[1,2]",
    "{\"type\":\"unknown\"}",
    "{\"type\":\"done\",\"id\":\"c1\",\"status\":\"pwned\"}",
    "{\"type\":\"done\",\"id\":\"../x\",\"status\":\"ok\"}",
    "{\"type\":\"done\",\"id\":7,\"status\":\"ok\"}",
    "{\"type\":\"output\",\"id\":\"c1\",\"output\":{\"output_type\":\"stream\",\"name\":\"stdin\",\"text\":\"x\"}}",
    "{\"type\":\"output\",\"id\":\"c1\",\"output\":{\"output_type\":\"display_data\",\"data\":{}}}",
    "{\"type\":\"output\",\"id\":\"c1\",\"output\":\"text\"}",
    "{\"type\":\"artifact_begin\",\"id\":\"c1\",\"seq\":-1,\"name\":\"x\",\"bytes\":1}",
    "{\"type\":\"artifact_data\",\"id\":\"c1\",\"seq\":1,\"data\":\"not base64!\"}",
    "{\"type\":\"ready\",\"protocol\":\"1\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonObject) message = parse (lines[i], &error);

      g_assert_null (message);
      g_assert_nonnull (error);
    }
}

typedef struct
{
  GMainLoop *loop;
  GPtrArray *types;
  gboolean   closed;
  GError    *error;
} ChannelState;

static void
on_message (AssayKernelChannel *channel,
            JsonObject         *message,
            ChannelState       *state)
{
  g_ptr_array_add (state->types, g_strdup (json_object_get_string_member (message, "type")));
}

static void
on_closed (AssayKernelChannel *channel,
           const GError       *error,
           ChannelState       *state)
{
  state->closed = TRUE;
  state->error = error ? g_error_copy (error) : NULL;
  g_main_loop_quit (state->loop);
}

static void
run_channel (const char   *input,
             ChannelState *state)
{
  g_autoptr(GInputStream) in = g_memory_input_stream_new_from_data (g_strdup (input), strlen (input), g_free);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(AssayKernelChannel) channel = assay_kernel_channel_new (in, out);
  g_autoptr(JsonObject) message = json_object_new ();

  state->loop = g_main_loop_new (NULL, FALSE);
  state->types = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (channel, "message", G_CALLBACK (on_message), state);
  g_signal_connect (channel, "closed", G_CALLBACK (on_closed), state);
  json_object_set_string_member (message, "type", "interrupt");
  assay_kernel_channel_send (channel, message);
  assay_kernel_channel_start (channel);
  g_main_loop_run (state->loop);
  g_main_loop_unref (state->loop);
}

static void
test_channel_clean_end (void)
{
  ChannelState state = { 0 };

  run_channel ("{\"type\":\"ready\",\"protocol\":1}\n{\"type\":\"log\",\"text\":\"hi\"}\n", &state);
  g_assert_true (state.closed);
  g_assert_no_error (state.error);
  g_assert_cmpuint (state.types->len, ==, 2);
  g_ptr_array_unref (state.types);
}

static void
test_channel_protocol_error (void)
{
  ChannelState state = { 0 };

  /* A forged or broken line ends the channel: the sandbox is no longer trusted. */
  run_channel ("{\"type\":\"ready\",\"protocol\":1}\ngarbage\n{\"type\":\"log\",\"text\":\"never\"}\n", &state);
  g_assert_true (state.closed);
  g_assert_error (state.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpuint (state.types->len, ==, 1);
  g_clear_error (&state.error);
  g_ptr_array_unref (state.types);
}

static void
test_channel_cut_message (void)
{
  ChannelState state = { 0 };

  run_channel ("{\"type\":\"ready\",\"protocol\":1}\n{\"type\":\"lo", &state);
  g_assert_error (state.error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT);
  g_clear_error (&state.error);
  g_ptr_array_unref (state.types);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/assay/kernel-channel/splitter/byte-by-byte", test_splitter_byte_by_byte);
  g_test_add_func ("/assay/kernel-channel/splitter/caps-lines", test_splitter_caps_lines);
  g_test_add_func ("/assay/kernel-channel/sanitize", test_sanitize);
  g_test_add_func ("/assay/kernel-channel/parse/valid", test_parse_valid);
  g_test_add_func ("/assay/kernel-channel/parse/invalid", test_parse_invalid);
  g_test_add_func ("/assay/kernel-channel/channel/clean-end", test_channel_clean_end);
  g_test_add_func ("/assay/kernel-channel/channel/protocol-error", test_channel_protocol_error);
  g_test_add_func ("/assay/kernel-channel/channel/cut-message", test_channel_cut_message);

  return g_test_run ();
}
