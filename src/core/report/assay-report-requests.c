/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The appendix "What was sent to the model": the bodies the session kept of its requests,
 * read as OpenAI chat-completions or Anthropic messages bodies and each reduced to what it
 * added to the conversation the one before had sent. A session may come from someone else's
 * machine, so a body is parsed only after assay-json's checks and every member is read by
 * its type; nothing of it is trusted to be what Assay's providers write. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "assay-prices.h"
#include "assay-json.h"
#include "assay-report-private.h"
#include "assay-session.h"

/* One part of a conversation as it was sent, whole: what two requests are compared by. */
typedef struct
{
  char *label;
  char *text;
} Part;

static void
assay_report_requests_part_free (gpointer data)
{
  Part *part = data;

  g_free (part->label);
  g_free (part->text);
  g_free (part);
}

static void
assay_report_requests_entry_free (gpointer data)
{
  ReportRequestEntry *entry = data;

  if (entry == NULL)
    return;
  g_free (entry->label);
  g_free (entry->head);
  g_free (entry->cut_note);
  g_free (entry->tail);
  g_free (entry);
}

static void
assay_report_requests_request_free (gpointer data)
{
  ReportRequest *request = data;

  g_free (request->heading);
  g_free (request->meta);
  g_free (request->tokens);
  g_free (request->problem);
  assay_report_requests_entry_free (request->system);
  g_free (request->system_note);
  g_free (request->added_note);
  g_ptr_array_unref (request->entries);
  g_free (request);
}

/* TEXT as valid UTF-8 without control characters (a shared session can hold terminal
 * escapes, which a PDF would draw as boxes); with SINGLE_LINE, line ends become spaces. */
static char *
assay_report_requests_clean (const char *text,
                             gboolean    single_line)
{
  g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);
  GString *clean = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '\r')
        continue;
      if ((c == '\n' || c == '\t') && single_line)
        g_string_append_c (clean, ' ');
      else if (c == '\n' || c == '\t')
        g_string_append_c (clean, (char) c);
      else if (c < 0x20 || c == 0x7f)
        g_string_append (clean, "\xef\xbf\xbd");   /* U+FFFD REPLACEMENT CHARACTER */
      else
        g_string_append_c (clean, (char) c);
    }
  return g_string_free (clean, FALSE);
}

static void
assay_report_requests_add_part (GPtrArray  *parts,
                                char       *label,
                                const char *text)
{
  Part *part = g_new0 (Part, 1);

  part->label = label;
  part->text = assay_report_requests_clean (text, FALSE);
  g_ptr_array_add (parts, part);
}

/* A content member as text: a string, or the text of an array of parts ("text" blocks of
 * either API, strings); what cannot be shown as text is named. NULL when there is none. */
static char *
assay_report_requests_content_text (JsonNode *content)
{
  GString *text;
  JsonArray *array;

  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (content))
    return json_node_get_value_type (content) == G_TYPE_STRING ? g_strdup (json_node_get_string (content)) : NULL;
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return NULL;

  array = json_node_get_array (content);
  text = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *type;

      if (text->len > 0)
        g_string_append (text, "\n");
      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        {
          g_string_append (text, json_node_get_string (element));
          continue;
        }
      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      type = assay_json_get_string (json_node_get_object (element), "type");
      if (g_strcmp0 (type, "text") == 0)
        g_string_append (text, assay_json_get_string (json_node_get_object (element), "text") ?: "");
      else
        g_string_append_printf (text, _("(a “%s” part, not shown)"), type != NULL ? type : "?");
    }
  return g_string_free (text, FALSE);
}

/* A call's arguments as a reader takes them in: each member on its own line, a string as
 * it is (the code, with its line ends) rather than as a JSON literal. Arguments that are not
 * a JSON object are shown as the model wrote them. */
static char *
assay_report_requests_arguments_text (JsonNode *arguments)
{
  g_autoptr(JsonNode) parsed = NULL;
  g_autoptr(GList) members = NULL;
  JsonObject *object;
  GString *text;

  if (arguments == NULL || JSON_NODE_HOLDS_NULL (arguments))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (arguments) && json_node_get_value_type (arguments) == G_TYPE_STRING)
    {
      const char *written = json_node_get_string (arguments);

      parsed = assay_json_from_untrusted (written, NULL);
      if (parsed == NULL || !JSON_NODE_HOLDS_OBJECT (parsed))
        return g_strdup (written);
      arguments = parsed;
    }
  if (!JSON_NODE_HOLDS_OBJECT (arguments))
    return json_to_string (arguments, FALSE);

  object = json_node_get_object (arguments);
  members = json_object_get_members (object);
  if (members == NULL)
    return g_strdup ("{}");
  text = g_string_new (NULL);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (object, name);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
        {
          const char *string = json_node_get_string (value);

          g_string_append_printf (text, strchr (string, '\n') != NULL ? "%s:\n%s" : "%s: %s", name, string);
        }
      else
        {
          g_autofree char *json = json_to_string (value, FALSE);

          g_string_append_printf (text, "%s: %s", name, json);
        }
    }
  return g_string_free (text, FALSE);
}

static void
assay_report_requests_add_call (GPtrArray  *parts,
                                const char *role,
                                const char *id,
                                const char *name,
                                JsonNode   *arguments)
{
  g_autofree char *text = assay_report_requests_arguments_text (arguments);
  g_autofree char *clean_name = assay_report_requests_clean (name != NULL ? name : "?", TRUE);
  g_autofree char *clean_id = assay_report_requests_clean (id, TRUE);
  char *label;

  if (*clean_id != '\0')
    /* Translators: a tool call in a request: the role that made it ("assistant"), the tool
     * and the call's id. */
    label = g_strdup_printf (_("%s calls %s (%s)"), role, clean_name, clean_id);
  else
    label = g_strdup_printf (_("%s calls %s"), role, clean_name);
  assay_report_requests_add_part (parts, label, text);
}

static void
assay_report_requests_add_result (GPtrArray  *parts,
                                  const char *id,
                                  JsonNode   *content,
                                  gboolean    is_error)
{
  g_autofree char *text = assay_report_requests_content_text (content);
  g_autofree char *clean_id = assay_report_requests_clean (id != NULL && *id != '\0' ? id : "?", TRUE);
  char *label;

  if (is_error)
    label = g_strdup_printf (_("tool result for %s (an error)"), clean_id);
  else
    label = g_strdup_printf (_("tool result for %s"), clean_id);
  assay_report_requests_add_part (parts, label, text != NULL ? text : "");
}

/* An Anthropic content block, or an OpenAI content part. */
static void
assay_report_requests_read_block (GPtrArray  *parts,
                                  const char *role,
                                  JsonNode   *node)
{
  JsonObject *block;
  const char *type;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      assay_report_requests_add_part (parts, g_strdup (role), json_node_get_string (node));
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  block = json_node_get_object (node);
  type = assay_json_get_string (block, "type");
  if (g_strcmp0 (type, "text") == 0)
    assay_report_requests_add_part (parts, g_strdup (role), assay_json_get_string (block, "text"));
  else if (g_strcmp0 (type, "tool_use") == 0)
    assay_report_requests_add_call (parts, role, assay_json_get_string (block, "id"),
                                    assay_json_get_string (block, "name"), json_object_get_member (block, "input"));
  else if (g_strcmp0 (type, "tool_result") == 0)
    assay_report_requests_add_result (parts, assay_json_get_string (block, "tool_use_id"),
                                      json_object_get_member (block, "content"),
                                      assay_json_get_boolean_or (block, "is_error", FALSE));
  else
    {
      g_autofree char *note = NULL;
      g_autofree char *clean_type = assay_report_requests_clean (type != NULL ? type : "?", TRUE);

      note = g_strdup_printf (_("(a “%s” part, not shown)"), clean_type);
      assay_report_requests_add_part (parts, g_strdup (role), note);
    }
}

/* One message of either API. The system prompt of chat completions is its leading system
 * (or developer) messages; they go to SYSTEM, not to PARTS. */
static void
assay_report_requests_read_message (GPtrArray *parts,
                                    GString   *system,
                                    JsonNode  *node)
{
  g_autofree char *role = NULL;
  JsonObject *message;
  JsonNode *content;
  JsonArray *calls;
  guint n_before = parts->len;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  message = json_node_get_object (node);
  role = assay_report_requests_clean (assay_json_get_string (message, "role") ?: "?", TRUE);
  content = json_object_get_member (message, "content");

  if ((g_str_equal (role, "system") || g_str_equal (role, "developer")) && parts->len == 0)
    {
      g_autofree char *text = assay_report_requests_content_text (content);

      if (text != NULL && *text != '\0')
        g_string_append_printf (system, "%s%s", system->len > 0 ? "\n\n" : "", text);
      return;
    }
  if (g_str_equal (role, "tool"))
    {
      assay_report_requests_add_result (parts, assay_json_get_string (message, "tool_call_id"), content, FALSE);
      return;
    }

  if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *blocks = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (blocks); i++)
        assay_report_requests_read_block (parts, role, json_array_get_element (blocks, i));
    }
  else
    {
      g_autofree char *text = assay_report_requests_content_text (content);

      if (text != NULL && *text != '\0')
        assay_report_requests_add_part (parts, g_strdup (role), text);
    }

  calls = assay_json_get_array (message, "tool_calls");
  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonNode *call_node = json_array_get_element (calls, i);
      JsonObject *call = JSON_NODE_HOLDS_OBJECT (call_node) ? json_node_get_object (call_node) : NULL;
      JsonObject *function = assay_json_get_object (call, "function");

      if (call == NULL)
        continue;
      assay_report_requests_add_call (parts, role, assay_json_get_string (call, "id"),
                                      assay_json_get_string (function, "name"),
                                      function != NULL ? json_object_get_member (function, "arguments") : NULL);
    }

  /* An empty message was sent too. */
  if (parts->len == n_before)
    assay_report_requests_add_part (parts, g_strdup (role), "");
}

/* BODY as its system prompt (NULL: none) and its conversation in PARTS. */
static gboolean
assay_report_requests_read_body (GBytes     *body,
                                 char      **system,
                                 GPtrArray  *parts,
                                 GError    **error)
{
  g_autoptr(GString) system_text = g_string_new (NULL);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  const char *data = g_bytes_get_data (body, &length);
  JsonObject *object;
  JsonArray *messages;

  /* A NUL would end the text early and let its start be read as the whole. */
  if (length > 0 && memchr (data, '\0', length) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("it holds a NUL byte"));
      return FALSE;
    }
  text = g_strndup (data != NULL ? data : "", length);
  root = assay_json_from_untrusted (text, &local_error);
  if (root == NULL)
    {
      if (local_error != NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("it is empty"));
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("it is not a JSON object"));
      return FALSE;
    }
  object = json_node_get_object (root);
  messages = assay_json_get_array (object, "messages");
  if (messages == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("it holds no “messages” list"));
      return FALSE;
    }

  /* Anthropic's system prompt: a string, or text blocks. */
  {
    g_autofree char *anthropic = assay_report_requests_content_text (json_object_get_member (object, "system"));

    if (anthropic != NULL && *anthropic != '\0')
      g_string_append (system_text, anthropic);
  }
  for (guint i = 0; i < json_array_get_length (messages); i++)
    assay_report_requests_read_message (parts, system_text, json_array_get_element (messages, i));

  *system = system_text->len > 0 ? assay_report_requests_clean (system_text->str, FALSE) : NULL;
  return TRUE;
}

/* Where the head of TEXT ends: after at most MAX_CHARS characters, before its MAX_LINES-th
 * line end. */
static const char *
assay_report_requests_head_end (const char *text,
                                guint       max_chars,
                                guint       max_lines)
{
  const char *p = text;
  guint chars = 0, lines = 0;

  while (*p != '\0' && chars < max_chars)
    {
      if (*p == '\n' && ++lines >= max_lines)
        break;
      p = g_utf8_next_char (p);
      chars++;
    }
  return p;
}

/* Where the tail of TEXT (ending at END) starts, the same from the end. */
static const char *
assay_report_requests_tail_start (const char *text,
                                  const char *end,
                                  guint       max_chars,
                                  guint       max_lines)
{
  const char *p = end;
  guint chars = 0, lines = 0;

  while (p > text && chars < max_chars)
    {
      const char *previous = g_utf8_prev_char (p);

      if (*previous == '\n' && ++lines >= max_lines)
        break;
      p = previous;
      chars++;
    }
  return p;
}

/* TEXT under LABEL, cut in the middle when long: its head and tail stay, since the head
 * says what a message is and the tail where it ended (a traceback's last line). */
static ReportRequestEntry *
assay_report_requests_entry_new (const char *label,
                                 const char *text)
{
  ReportRequestEntry *entry = g_new0 (ReportRequestEntry, 1);
  gsize length = strlen (text);
  glong n_chars = g_utf8_strlen (text, length);
  guint n_lines = 1;
  const char *head_end, *tail_start;
  gulong cut;

  for (const char *p = text; (p = strchr (p, '\n')) != NULL; p++)
    n_lines++;
  entry->label = g_strdup (label);
  if (n_chars <= REPORT_REQUEST_MAX_CHARS && n_lines <= REPORT_REQUEST_MAX_LINES)
    {
      entry->head = g_strdup (text);
      return entry;
    }
  head_end = assay_report_requests_head_end (text, REPORT_REQUEST_MAX_CHARS / 2, REPORT_REQUEST_MAX_LINES / 2);
  tail_start = assay_report_requests_tail_start (text, text + length, REPORT_REQUEST_MAX_CHARS / 2,
                                                 REPORT_REQUEST_MAX_LINES / 2);
  if (tail_start < head_end)
    tail_start = head_end;
  cut = (gulong) g_utf8_strlen (head_end, tail_start - head_end);
  entry->head = g_strndup (text, head_end - text);
  entry->tail = g_strdup (tail_start);
  entry->cut_note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "[… %'lu character left out …]",
                                                  "[… %'lu characters left out …]", cut), cut);
  return entry;
}

static char *
assay_report_requests_meta (const AssaySessionRequest *source)
{
  g_autoptr(GPtrArray) pieces = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *host = assay_report_requests_clean (source->host != NULL ? source->host : "?", TRUE);
  g_autofree char *sent = g_format_size (source->bytes_out);

  if (source->step > 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("step %u"), source->step));
  g_ptr_array_add (pieces, g_steal_pointer (&host));
  if (source->model != NULL && *source->model != '\0')
    {
      g_autofree char *model = assay_report_requests_clean (source->model, TRUE);

      g_ptr_array_add (pieces, g_strdup_printf (_("model %s"), model));
    }
  if (source->sent_at > 0)
    {
      g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (source->sent_at / G_USEC_PER_SEC);

      if (time != NULL)
        g_ptr_array_add (pieces, g_date_time_format (time, "%Y-%m-%d %H:%M:%S"));
    }
  /* Translators: the size of a request's body, "12.3 kB sent". */
  g_ptr_array_add (pieces, g_strdup_printf (_("%s sent"), sent));
  if (source->bytes_in >= 0)
    {
      g_autofree char *received = g_format_size (source->bytes_in);

      /* Translators: the size of the server's answer, "4.5 kB received". */
      g_ptr_array_add (pieces, g_strdup_printf (_("%s received"), received));
    }
  g_ptr_array_add (pieces, NULL);
  return g_strjoinv (" · ", (char **) pieces->pdata);
}

/* The counts the server reported; the ones it did not (-1) are left out. */
static char *
assay_report_requests_tokens (const AssaySessionRequest *source)
{
  g_autoptr(GPtrArray) pieces = g_ptr_array_new_with_free_func (g_free);

  if (source->input_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("input tokens: %'lld"), (long long) source->input_tokens));
  if (source->cached_input_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("cached input tokens: %'lld"),
                                              (long long) source->cached_input_tokens));
  if (source->output_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("output tokens: %'lld"), (long long) source->output_tokens));
  if (source->reasoning_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("reasoning tokens: %'lld"), (long long) source->reasoning_tokens));
  if (source->cost >= 0)
    {
      g_autofree char *cost = assay_price_format_cost (source->cost);

      g_ptr_array_add (pieces, g_strdup_printf (_("cost: %s"), cost));
    }
  if (source->mode != NULL)
    {
      AssayPrivacyMode mode;

      if (assay_privacy_mode_from_string (source->mode, &mode))
        g_ptr_array_add (pieces, g_strdup_printf (_("the model saw: %s"), assay_privacy_mode_get_label (mode)));
    }
  if (pieces->len == 0)
    return NULL;
  g_ptr_array_add (pieces, NULL);
  return g_strjoinv (" · ", (char **) pieces->pdata);
}

static gboolean
assay_report_requests_part_equal (const Part *a,
                                  const Part *b)
{
  return g_str_equal (a->label, b->label) && g_str_equal (a->text, b->text);
}

/* What PARTS added to PREVIOUS (the conversation request PREVIOUS_NUMBER sent; NULL: none
 * was read). Assay only ever adds to a conversation, except that it shortens old outputs
 * in place to fit the model's context: a part at the same place under the same label with
 * other text is shown as changed. Anything else is shown from where the two part. */
static void
assay_report_requests_compare (ReportRequest *request,
                               GPtrArray     *previous,
                               guint          previous_number,
                               GPtrArray     *parts)
{
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();      /* Part*, borrowed */
  g_autoptr(GArray) changed = g_array_new (FALSE, TRUE, sizeof (gboolean));
  guint n_previous = previous != NULL ? previous->len : 0;
  guint common = 0;
  gboolean extends = parts->len >= n_previous;

  while (common < n_previous && common < parts->len &&
         assay_report_requests_part_equal (g_ptr_array_index (previous, common), g_ptr_array_index (parts, common)))
    common++;
  for (guint i = common; extends && i < n_previous; i++)
    if (!g_str_equal (((Part *) g_ptr_array_index (previous, i))->label,
                      ((Part *) g_ptr_array_index (parts, i))->label))
      extends = FALSE;

  for (guint i = common; i < parts->len; i++)
    {
      gboolean is_changed = previous != NULL && extends && i < n_previous;

      if (is_changed && assay_report_requests_part_equal (g_ptr_array_index (previous, i),
                                                          g_ptr_array_index (parts, i)))
        continue;
      g_ptr_array_add (shown, g_ptr_array_index (parts, i));
      g_array_append_val (changed, is_changed);
    }

  if (previous == NULL)
    request->added_note = g_strdup (_("The conversation it sent:"));
  else if (!extends)
    request->added_note = g_strdup_printf (_("Different from request %u from here on:"), previous_number);
  else if (shown->len == 0)
    request->added_note = g_strdup_printf (_("Nothing added since request %u."), previous_number);
  else
    request->added_note = g_strdup_printf (_("Added since request %u:"), previous_number);

  for (guint i = 0; i < shown->len; i++)
    {
      const Part *part = g_ptr_array_index (shown, i);
      guint half = REPORT_REQUEST_MAX_ENTRIES / 2;

      /* A conversation sent whole for the first time (a resumed session) can be long: its
       * first and last messages are what place it. */
      if (shown->len > REPORT_REQUEST_MAX_ENTRIES && i >= half && i < shown->len - half)
        {
          if (i == half)
            {
              ReportRequestEntry *note = g_new0 (ReportRequestEntry, 1);
              guint n = shown->len - 2 * half;

              note->head = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… %u more message not shown …",
                                                         "… %u more messages not shown …", n), n);
              g_ptr_array_add (request->entries, note);
            }
          continue;
        }
      if (g_array_index (changed, gboolean, i))
        {
          g_autofree char *label = g_strdup_printf (_("%s (changed since request %u)"), part->label, previous_number);

          g_ptr_array_add (request->entries, assay_report_requests_entry_new (label, part->text));
        }
      else
        g_ptr_array_add (request->entries, assay_report_requests_entry_new (part->label, part->text));
    }
}

/* The body's own words for why it cannot be shown, as a sentence. */
static char *
assay_report_requests_sentence (const char *message)
{
  g_autofree char *clean = assay_report_requests_clean (message, TRUE);
  gsize length = strlen (clean);

  return length > 0 && clean[length - 1] == '.' ? g_steal_pointer (&clean) : g_strconcat (clean, ".", NULL);
}

GPtrArray *
report_requests_snapshot (AssaySession *session)
{
  GPtrArray *sources = assay_session_get_requests (session);
  GPtrArray *requests = g_ptr_array_new_with_free_func (assay_report_requests_request_free);
  g_autoptr(GPtrArray) previous = NULL;   /* Part*: the conversation last read */
  guint previous_number = 0;
  g_autofree char *system_shown = NULL;
  guint system_number = 0;

  /* Read here, with the rest of the snapshot, because a session belongs to one thread and
   * only it reads its bodies back (checked against their SHA-256). Each body is let go once
   * it is reduced, so at most two conversations are held at a time. */
  for (guint i = 0; sources != NULL && i < sources->len; i++)
    {
      const AssaySessionRequest *source = g_ptr_array_index (sources, i);
      ReportRequest *request = g_new0 (ReportRequest, 1);
      g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (assay_report_requests_part_free);
      g_autoptr(GBytes) body = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *system = NULL;

      request->number = source->number;
      request->heading = g_strdup_printf (_("Request %u"), source->number);
      request->meta = assay_report_requests_meta (source);
      request->tokens = assay_report_requests_tokens (source);
      request->entries = g_ptr_array_new_with_free_func (assay_report_requests_entry_free);
      g_ptr_array_add (requests, request);

      if (source->file == NULL)
        {
          g_autofree char *cap = g_format_size_full (ASSAY_SESSION_REQUESTS_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);

          request->problem = g_strdup_printf (_("Its body was not kept: the session keeps %s of them, and that "
                                                "was reached. Only the figures above were recorded."), cap);
          continue;
        }
      body = assay_session_read_request_body (session, source, &error);
      if (body == NULL)
        {
          request->problem = assay_report_requests_sentence (error->message);
          continue;
        }
      if (!assay_report_requests_read_body (body, &system, parts, &error))
        {
          g_autofree char *reason = assay_report_requests_sentence (error->message);

          /* Translators: the reason is a sentence of its own ("it is not a JSON object."). */
          request->problem = g_strdup_printf (_("Its body cannot be read as a request: %s"), reason);
          continue;
        }
      g_clear_pointer (&body, g_bytes_unref);

      /* The system prompt once; again only when it changed. */
      if (system != NULL && system_shown != NULL && g_str_equal (system, system_shown))
        request->system_note = g_strdup_printf (_("System prompt: same as request %u."), system_number);
      else if (system != NULL)
        {
          request->system = assay_report_requests_entry_new (system_shown == NULL ? _("System prompt")
                                                                                  : _("System prompt (changed)"),
                                                             system);
          g_free (system_shown);
          system_shown = g_steal_pointer (&system);
          system_number = source->number;
        }

      assay_report_requests_compare (request, previous, previous_number, parts);
      g_clear_pointer (&previous, g_ptr_array_unref);
      previous = g_steal_pointer (&parts);
      previous_number = source->number;
    }
  return requests;
}

const char *
report_requests_title (void)
{
  return _("What was sent to the model");
}

const char *
report_requests_intro (const AssayReport *report)
{
  if (report->requests == NULL || report->requests->len == 0)
    return _("No request to a model server is recorded in this session: its answers were replayed "
             "from a recording, or it was made by an Assay that did not keep its requests yet.");
  return _("Every request Assay sent to a model server for this session, in order, as the session "
           "kept it. A request sends the whole conversation again, so each shows only what it added "
           "to the one before; long messages are cut in the middle. Keys go in headers, which are "
           "never kept.");
}
