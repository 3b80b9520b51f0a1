/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <string.h>

#include "assay-kernel-channel.h"
#include "assay-cell-checks.h"
#include "assay-json.h"

#define READ_CHUNK (64 * 1024)
#define MAX_MIME_TYPES 16
#define MAX_TRACEBACK_LINES 500

/* ---- line splitting ------------------------------------------------------------------ */

void
assay_line_splitter_init (AssayLineSplitter *splitter,
                          gsize              max_line)
{
  splitter->buffer = g_byte_array_new ();
  splitter->max_line = max_line;
  splitter->failed = FALSE;
}

void
assay_line_splitter_clear (AssayLineSplitter *splitter)
{
  g_clear_pointer (&splitter->buffer, g_byte_array_unref);
}

gboolean
assay_line_splitter_is_empty (const AssayLineSplitter *splitter)
{
  return splitter->buffer == NULL || splitter->buffer->len == 0;
}

gboolean
assay_line_splitter_feed (AssayLineSplitter *splitter,
                          const guint8      *data,
                          gsize              len,
                          AssayLineFunc      func,
                          gpointer           user_data,
                          GError           **error)
{
  gsize pos = 0;

  if (splitter->failed)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "the kernel channel already failed");
      return FALSE;
    }

  while (pos < len)
    {
      const guint8 *newline = memchr (data + pos, '\n', len - pos);
      gsize piece = newline ? (gsize) (newline - (data + pos)) : len - pos;

      if (splitter->buffer->len + piece > splitter->max_line)
        {
          splitter->failed = TRUE;
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                       "the kernel sent a message longer than %" G_GSIZE_FORMAT " bytes",
                       splitter->max_line);
          return FALSE;
        }

      if (newline == NULL)
        {
          g_byte_array_append (splitter->buffer, data + pos, piece);
          break;
        }

      if (splitter->buffer->len == 0)
        {
          /* The common case: the whole line is in this chunk; copy only to terminate it. */
          g_autofree char *line = g_strndup ((const char *) data + pos, piece);

          if (!func (line, piece, user_data, error))
            {
              splitter->failed = TRUE;
              return FALSE;
            }
        }
      else
        {
          gsize line_len;

          g_byte_array_append (splitter->buffer, data + pos, piece);
          line_len = splitter->buffer->len;
          g_byte_array_append (splitter->buffer, (const guint8 *) "", 1);
          if (!func ((const char *) splitter->buffer->data, line_len, user_data, error))
            {
              splitter->failed = TRUE;
              return FALSE;
            }
          g_byte_array_set_size (splitter->buffer, 0);
        }

      pos += piece + 1;
    }

  return TRUE;
}

/* ---- text sanitising ------------------------------------------------------------------ */

char *
assay_sanitize_text (const char *text,
                     gssize      len)
{
  GString *out;
  const char *p;
  const char *end;

  if (text == NULL)
    return g_strdup ("");
  if (len < 0)
    len = strlen (text);

  out = g_string_sized_new (len);
  p = text;
  end = text + len;

  while (p < end)
    {
      gunichar c;

      if (*p == '\0')
        {
          p++;
          continue;
        }

      c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append (out, "\xEF\xBF\xBD"); /* U+FFFD */
          p++;
          continue;
        }

      if (c == 0x1B)
        {
          /* Skip a whole escape sequence: CSI (ESC [ ... final byte), OSC (ESC ] ... BEL
           * or ST) or a two-byte escape. */
          p++;
          if (p < end && *p == '[')
            {
              p++;
              while (p < end && !((guchar) *p >= 0x40 && (guchar) *p <= 0x7E))
                p++;
              if (p < end)
                p++;
            }
          else if (p < end && *p == ']')
            {
              p++;
              while (p < end && *p != '\a' && !(*p == 0x1B && p + 1 < end && p[1] == '\\'))
                p++;
              if (p < end)
                p += (*p == '\a') ? 1 : 2;
            }
          else if (p < end)
            p++;
          continue;
        }

      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F ||
          (c >= 0x80 && c < 0xA0))
        {
          p = g_utf8_next_char (p);
          continue;
        }

      g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }

  return g_string_free (out, FALSE);
}

/* ---- message validation --------------------------------------------------------------- */

static gboolean
assay_kernel_channel_is_cell_id (const char *id)
{
  if (id == NULL || *id == '\0' || strlen (id) > 64)
    return FALSE;
  for (const char *p = id; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
assay_kernel_channel_is_mime_type (const char *mime)
{
  gsize len = strlen (mime);

  if (len == 0 || len > 100 || strchr (mime, '/') == NULL)
    return FALSE;
  for (const char *p = mime; *p; p++)
    if (!g_ascii_isalnum (*p) && strchr ("/+-.", *p) == NULL)
      return FALSE;
  return TRUE;
}

static void
assay_kernel_channel_set_sanitized (JsonObject *target,
                                    const char *member,
                                    const char *text)
{
  g_autofree char *clean = assay_sanitize_text (text, -1);

  json_object_set_string_member (target, member, clean);
}

static JsonObject *
assay_kernel_channel_parse_mime_bundle (JsonObject  *data,
                                        GError     **error)
{
  g_autoptr(JsonObject) clean = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (data);
  guint count = 0;

  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *mime = l->data;
      const char *value = assay_json_get_string (data, mime);

      if (!assay_kernel_channel_is_mime_type (mime) || value == NULL)
        continue;
      if (++count > MAX_MIME_TYPES)
        break;

      /* Images travel as base64 and HTML is escaped where it is shown; plain text is what
       * ends up in terminals and reports, so that is where escapes are removed. */
      if (g_str_has_prefix (mime, "text/plain"))
        assay_kernel_channel_set_sanitized (clean, mime, value);
      else
        json_object_set_string_member (clean, mime, value);
    }

  if (json_object_get_size (clean) == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "display data without any known MIME type");
      return NULL;
    }

  return g_steal_pointer (&clean);
}

static JsonObject *
assay_kernel_channel_parse_output (JsonObject  *output,
                                   GError     **error)
{
  const char *output_type = assay_json_get_string (output, "output_type");
  g_autoptr(JsonObject) clean = json_object_new ();

  if (g_strcmp0 (output_type, "stream") == 0)
    {
      const char *name = assay_json_get_string (output, "name");
      const char *text = assay_json_get_string (output, "text");

      if ((g_strcmp0 (name, "stdout") != 0 && g_strcmp0 (name, "stderr") != 0) || text == NULL)
        goto invalid;
      json_object_set_string_member (clean, "output_type", "stream");
      json_object_set_string_member (clean, "name", name);
      assay_kernel_channel_set_sanitized (clean, "text", text);
    }
  else if (g_strcmp0 (output_type, "display_data") == 0 ||
           g_strcmp0 (output_type, "execute_result") == 0)
    {
      JsonNode *data = json_object_get_member (output, "data");
      JsonObject *bundle;
      gint64 count = 0;

      if (data == NULL || !JSON_NODE_HOLDS_OBJECT (data))
        goto invalid;
      if (!(bundle = assay_kernel_channel_parse_mime_bundle (json_node_get_object (data), error)))
        return NULL;
      json_object_set_string_member (clean, "output_type", output_type);
      if (g_strcmp0 (output_type, "execute_result") == 0)
        {
          if (!assay_json_get_int (output, "execution_count", &count) || count < 0)
            count = 0;
          json_object_set_int_member (clean, "execution_count", count);
        }
      json_object_set_object_member (clean, "data", bundle);
      json_object_set_object_member (clean, "metadata", json_object_new ());
    }
  else if (g_strcmp0 (output_type, "error") == 0)
    {
      const char *ename = assay_json_get_string (output, "ename");
      const char *evalue = assay_json_get_string (output, "evalue");
      JsonNode *traceback = json_object_get_member (output, "traceback");
      JsonArray *lines = json_array_new ();

      json_object_set_string_member (clean, "output_type", "error");
      assay_kernel_channel_set_sanitized (clean, "ename", ename ? ename : "Error");
      assay_kernel_channel_set_sanitized (clean, "evalue", evalue ? evalue : "");
      if (traceback != NULL && JSON_NODE_HOLDS_ARRAY (traceback))
        {
          JsonArray *array = json_node_get_array (traceback);
          guint n = MIN (json_array_get_length (array), MAX_TRACEBACK_LINES);

          for (guint i = 0; i < n; i++)
            {
              JsonNode *line = json_array_get_element (array, i);

              if (JSON_NODE_HOLDS_VALUE (line) &&
                  json_node_get_value_type (line) == G_TYPE_STRING)
                {
                  g_autofree char *text = assay_sanitize_text (json_node_get_string (line), -1);
                  json_array_add_string_element (lines, text);
                }
            }
        }
      json_object_set_array_member (clean, "traceback", lines);
    }
  else
    goto invalid;

  return g_steal_pointer (&clean);

invalid:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "the kernel sent an output of unknown type “%s”",
               output_type ? output_type : "(none)");
  return NULL;
}

static gboolean
assay_kernel_channel_is_base64 (const char *text)
{
  for (const char *p = text; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '+' && *p != '/' && *p != '=')
      return FALSE;
  return TRUE;
}

/* json-glib hands strings over as C strings, so a \u0000 escape would cut the text short:
 * drop those escapes (and only real escapes, not an escaped backslash followed by "u0000")
 * before parsing. */
static char *
assay_kernel_channel_strip_nul_escapes (const char *line,
                                        gsize       len,
                                        gsize      *out_len)
{
  char *out = g_malloc (len + 1);
  gsize o = 0;

  for (gsize i = 0; i < len; i++)
    {
      if (line[i] == '\\' && i + 1 < len)
        {
          if (line[i + 1] == 'u' && i + 5 < len && memcmp (line + i + 2, "0000", 4) == 0)
            {
              i += 5;
              continue;
            }
          out[o++] = line[i++];
        }
      out[o++] = line[i];
    }
  out[o] = '\0';
  *out_len = o;
  return out;
}

JsonObject *
assay_kernel_message_parse (const char  *line,
                            gsize        len,
                            GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(JsonObject) clean = json_object_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *stripped = NULL;
  JsonObject *message;
  JsonNode *root;
  const char *type;
  const char *id;
  gint64 seq = 0;
  gint64 number = 0;

  if (len > ASSAY_KERNEL_MAX_LINE || memchr (line, '\0', len) != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "the kernel sent a malformed line");
      return NULL;
    }

  if (memmem (line, len, "\\u0000", 6) != NULL)
    {
      stripped = assay_kernel_channel_strip_nul_escapes (line, len, &len);
      line = stripped;
    }

  if (!assay_json_parser_load_untrusted (parser, line, len, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the kernel sent invalid JSON: %s", local_error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "the kernel sent something that is not a JSON object");
      return NULL;
    }

  message = json_node_get_object (root);
  type = assay_json_get_string (message, "type");
  id = assay_json_get_string (message, "id");

  if (g_strcmp0 (type, "ready") == 0)
    {
      const char *python = assay_json_get_string (message, "python");

      if (!assay_json_get_int (message, "protocol", &number))
        goto invalid;
      json_object_set_int_member (clean, "protocol", number);
      assay_kernel_channel_set_sanitized (clean, "python", python ? python : "");
    }
  else if (g_strcmp0 (type, "output") == 0)
    {
      JsonNode *output = json_object_get_member (message, "output");
      JsonObject *parsed;

      if (!assay_kernel_channel_is_cell_id (id) || output == NULL || !JSON_NODE_HOLDS_OBJECT (output))
        goto invalid;
      if (!(parsed = assay_kernel_channel_parse_output (json_node_get_object (output), error)))
        return NULL;
      json_object_set_string_member (clean, "id", id);
      json_object_set_object_member (clean, "output", parsed);
    }
  else if (g_strcmp0 (type, "artifact_begin") == 0)
    {
      const char *name = assay_json_get_string (message, "name");

      if (!assay_kernel_channel_is_cell_id (id) || !assay_json_get_int (message, "seq", &seq) || seq < 0 ||
          name == NULL || !assay_json_get_int (message, "bytes", &number) || number < 0)
        goto invalid;
      json_object_set_string_member (clean, "id", id);
      json_object_set_int_member (clean, "seq", seq);
      assay_kernel_channel_set_sanitized (clean, "name", name);
      json_object_set_int_member (clean, "bytes", number);
    }
  else if (g_strcmp0 (type, "artifact_data") == 0)
    {
      const char *data = assay_json_get_string (message, "data");

      if (!assay_kernel_channel_is_cell_id (id) || !assay_json_get_int (message, "seq", &seq) || seq < 0 ||
          data == NULL || !assay_kernel_channel_is_base64 (data))
        goto invalid;
      json_object_set_string_member (clean, "id", id);
      json_object_set_int_member (clean, "seq", seq);
      json_object_set_string_member (clean, "data", data);
    }
  else if (g_strcmp0 (type, "artifact_end") == 0)
    {
      JsonNode *truncated = json_object_get_member (message, "truncated");

      if (!assay_kernel_channel_is_cell_id (id) || !assay_json_get_int (message, "seq", &seq) || seq < 0)
        goto invalid;
      json_object_set_string_member (clean, "id", id);
      json_object_set_int_member (clean, "seq", seq);
      json_object_set_boolean_member (clean, "truncated",
                                      truncated != NULL && JSON_NODE_HOLDS_VALUE (truncated) &&
                                      json_node_get_value_type (truncated) == G_TYPE_BOOLEAN &&
                                      json_node_get_boolean (truncated));
    }
  else if (g_strcmp0 (type, "done") == 0)
    {
      static const char *statuses[] = { "ok", "error", "interrupted", "oom", "limit", NULL };
      const char *status = assay_json_get_string (message, "status");
      const char *reason = assay_json_get_string (message, "reason");

      if (!assay_kernel_channel_is_cell_id (id) || status == NULL || !g_strv_contains (statuses, status))
        goto invalid;
      json_object_set_string_member (clean, "id", id);
      json_object_set_string_member (clean, "status", status);
      if (reason != NULL)
        assay_kernel_channel_set_sanitized (clean, "reason", reason);
      if (!assay_json_get_int (message, "execution_count", &number) || number < 0)
        number = 0;
      json_object_set_int_member (clean, "execution_count", number);
      if (!assay_json_get_int (message, "code_us", &number) || number < 0)
        number = 0;
      json_object_set_int_member (clean, "code_us", number);
      /* The checks, reduced to what the protocol allows. */
      {
        g_autoptr(AssayCellChecks) checks = assay_cell_checks_from_json (json_object_get_member (message, "checks"));

        if (checks != NULL)
          json_object_set_member (clean, "checks", assay_cell_checks_to_json (checks));
      }
    }
  else if (g_strcmp0 (type, "log") == 0 || g_strcmp0 (type, "fatal") == 0)
    {
      const char *text = assay_json_get_string (message, g_str_equal (type, "log") ? "text" : "reason");

      assay_kernel_channel_set_sanitized (clean,
                                          g_str_equal (type, "log") ? "text" : "reason",
                                          text ? text : "");
    }
  else
    goto invalid;

  json_object_set_string_member (clean, "type", type);
  return g_steal_pointer (&clean);

invalid:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "the kernel sent an invalid “%s” message", type ? type : "(untyped)");
  return NULL;
}

/* ---- the channel object --------------------------------------------------------------- */

struct _AssayKernelChannel
{
  GObject            parent_instance;

  GInputStream      *input;
  GOutputStream     *output;
  GCancellable      *cancellable;
  AssayLineSplitter  splitter;
  GQueue             pending_writes;   /* GBytes */
  GBytes            *in_flight;        /* the message being written */
  guint8            *read_buffer;
  guint              writing : 1;
  guint              closed : 1;
  guint              started : 1;
};

G_DEFINE_FINAL_TYPE (AssayKernelChannel, assay_kernel_channel, G_TYPE_OBJECT)

enum {
  MESSAGE,
  CLOSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void assay_kernel_channel_read_next (AssayKernelChannel *self);

static void
assay_kernel_channel_close_with_error (AssayKernelChannel *self,
                                       const GError       *error)
{
  if (self->closed)
    return;

  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
  g_signal_emit (self, signals[CLOSED], 0, error);
}

static gboolean
assay_kernel_channel_handle_line (const char  *line,
                                  gsize        len,
                                  gpointer     user_data,
                                  GError     **error)
{
  AssayKernelChannel *self = user_data;
  g_autoptr(JsonObject) message = NULL;

  if (len == 0)
    return TRUE;

  if (!(message = assay_kernel_message_parse (line, len, error)))
    return FALSE;

  g_signal_emit (self, signals[MESSAGE], 0, message);
  return !self->closed;
}

static void
assay_kernel_channel_read_cb (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  g_autoptr(AssayKernelChannel) self = user_data;
  g_autoptr(GError) error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  if (self->closed)
    return;

  if (n < 0)
    {
      assay_kernel_channel_close_with_error (self, error);
      return;
    }

  if (n == 0)
    {
      if (!assay_line_splitter_is_empty (&self->splitter))
        {
          g_autoptr(GError) cut = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT,
                                                       "the kernel's last message was cut off");
          assay_kernel_channel_close_with_error (self, cut);
        }
      else
        assay_kernel_channel_close_with_error (self, NULL);
      return;
    }

  if (!assay_line_splitter_feed (&self->splitter, self->read_buffer, n,
                                 assay_kernel_channel_handle_line, self, &error))
    {
      if (error != NULL)
        assay_kernel_channel_close_with_error (self, error);
      return;
    }

  assay_kernel_channel_read_next (self);
}

static void
assay_kernel_channel_read_next (AssayKernelChannel *self)
{
  if (self->closed)
    return;

  g_input_stream_read_async (self->input, self->read_buffer, READ_CHUNK,
                             G_PRIORITY_DEFAULT, self->cancellable,
                             assay_kernel_channel_read_cb, g_object_ref (self));
}

static void assay_kernel_channel_write_next (AssayKernelChannel *self);

static void
assay_kernel_channel_write_cb (GObject      *source,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  g_autoptr(AssayKernelChannel) self = user_data;
  g_autoptr(GError) error = NULL;

  self->writing = FALSE;
  g_clear_pointer (&self->in_flight, g_bytes_unref);

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      assay_kernel_channel_close_with_error (self, error);
      return;
    }

  assay_kernel_channel_write_next (self);
}

static void
assay_kernel_channel_write_next (AssayKernelChannel *self)
{
  GBytes *bytes;
  gsize size;
  gconstpointer data;

  if (self->writing || self->closed)
    return;

  if (!(bytes = g_queue_pop_head (&self->pending_writes)))
    return;

  self->writing = TRUE;
  data = g_bytes_get_data (bytes, &size);
  /* The bytes must outlive the write. */
  g_clear_pointer (&self->in_flight, g_bytes_unref);
  self->in_flight = bytes;
  g_output_stream_write_all_async (self->output, data, size, G_PRIORITY_DEFAULT,
                                   self->cancellable, assay_kernel_channel_write_cb, g_object_ref (self));
}

static void
assay_kernel_channel_dispose (GObject *object)
{
  AssayKernelChannel *self = ASSAY_KERNEL_CHANNEL (object);

  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
  g_queue_clear_full (&self->pending_writes, (GDestroyNotify) g_bytes_unref);
  g_clear_object (&self->input);
  g_clear_object (&self->output);

  G_OBJECT_CLASS (assay_kernel_channel_parent_class)->dispose (object);
}

static void
assay_kernel_channel_finalize (GObject *object)
{
  AssayKernelChannel *self = ASSAY_KERNEL_CHANNEL (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->in_flight, g_bytes_unref);
  assay_line_splitter_clear (&self->splitter);
  g_free (self->read_buffer);

  G_OBJECT_CLASS (assay_kernel_channel_parent_class)->finalize (object);
}

static void
assay_kernel_channel_class_init (AssayKernelChannelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = assay_kernel_channel_dispose;
  object_class->finalize = assay_kernel_channel_finalize;

  signals[MESSAGE] =
    g_signal_new ("message",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT);

  signals[CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
assay_kernel_channel_init (AssayKernelChannel *self)
{
  self->cancellable = g_cancellable_new ();
  self->read_buffer = g_malloc (READ_CHUNK);
  assay_line_splitter_init (&self->splitter, ASSAY_KERNEL_MAX_LINE);
  g_queue_init (&self->pending_writes);
}

AssayKernelChannel *
assay_kernel_channel_new (GInputStream  *input,
                          GOutputStream *output)
{
  AssayKernelChannel *self;

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);

  self = g_object_new (ASSAY_TYPE_KERNEL_CHANNEL, NULL);
  self->input = g_object_ref (input);
  self->output = g_object_ref (output);
  return self;
}

void
assay_kernel_channel_start (AssayKernelChannel *self)
{
  g_return_if_fail (ASSAY_IS_KERNEL_CHANNEL (self));
  g_return_if_fail (!self->started);

  self->started = TRUE;
  assay_kernel_channel_read_next (self);
}

void
assay_kernel_channel_send (AssayKernelChannel *self,
                           JsonObject         *message)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  gsize len;

  g_return_if_fail (ASSAY_IS_KERNEL_CHANNEL (self));
  g_return_if_fail (message != NULL);

  if (self->closed)
    return;

  node = json_node_init_object (json_node_alloc (), message);
  text = json_to_string (node, FALSE);
  len = strlen (text);
  text = g_realloc (text, len + 2);
  text[len] = '\n';
  text[len + 1] = '\0';

  g_queue_push_tail (&self->pending_writes, g_bytes_new_take (g_steal_pointer (&text), len + 1));
  assay_kernel_channel_write_next (self);
}

void
assay_kernel_channel_stop (AssayKernelChannel *self)
{
  g_return_if_fail (ASSAY_IS_KERNEL_CHANNEL (self));

  if (self->closed)
    return;
  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
}
