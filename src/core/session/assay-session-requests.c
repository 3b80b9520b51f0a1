/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a request's body carried, read as parts, and what it added to the request before. */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-json.h"
#include "assay-session-requests.h"

/* Where the agent's system prompt starts describing the datasets (assay-agent.c). */
#define DATASETS_HEADING "Datasets (read-only):"

static void
assay_request_part_free (gpointer data)
{
  AssayRequestPart *part = data;

  g_free (part->label);
  g_free (part->role);
  g_free (part->text);
  g_free (part->tool_name);
  g_free (part->call_id);
  g_free (part->cell_id);
  g_free (part);
}

void
assay_request_reading_free (AssayRequestReading *reading)
{
  if (reading == NULL)
    return;
  g_free (reading->model);
  g_ptr_array_unref (reading->parts);
  g_free (reading);
}

/* TEXT as valid UTF-8 without control characters: a shared session can hold terminal
 * escapes and NULs. Line ends and tabs stay (SINGLE_LINE: they become spaces); a carriage
 * return goes. */
static char *
assay_request_clean (const char *text,
                     gsize       length,
                     gboolean    single_line)
{
  g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", text != NULL ? (gssize) length : 0);
  GString *clean = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '\r')
        continue;
      if (c == '\n' || c == '\t')
        g_string_append_c (clean, single_line ? ' ' : (char) c);
      else if (c < 0x20 || c == 0x7f)
        g_string_append (clean, "\xef\xbf\xbd");   /* U+FFFD REPLACEMENT CHARACTER */
      else
        g_string_append_c (clean, (char) c);
    }
  return g_string_free (clean, FALSE);
}

char *
assay_request_clean_text (const char *text,
                          gboolean    single_line)
{
  return assay_request_clean (text, text != NULL ? strlen (text) : 0, single_line);
}

const char *
assay_request_part_kind_label (AssayRequestPartKind kind)
{
  switch (kind)
    {
    case ASSAY_REQUEST_PART_SYSTEM:
      return _("System prompt");
    case ASSAY_REQUEST_PART_DATASETS:
      return _("Dataset summary");
    case ASSAY_REQUEST_PART_TOOLS:
      return _("Tools offered");
    case ASSAY_REQUEST_PART_QUESTION:
      return _("Question");
    case ASSAY_REQUEST_PART_CHECK:
      return _("Assay’s check of the answer");
    case ASSAY_REQUEST_PART_REPLY:
      return _("Model’s reply");
    case ASSAY_REQUEST_PART_DRAFT:
      return _("Draft answer, sent back by the number check");
    case ASSAY_REQUEST_PART_TOOL_CALL:
      return _("Tool call");
    case ASSAY_REQUEST_PART_TOOL_RESULT:
      return _("Tool result");
    case ASSAY_REQUEST_PART_OTHER:
    default:
      return _("Other part");
    }
}

/* A call's and a result's label name its cell once it is known, else the tool. */
static void
assay_request_part_update_label (AssayRequestPart *part)
{
  char *label = NULL;

  if (part->kind == ASSAY_REQUEST_PART_TOOL_CALL)
    {
      if (part->cell_id != NULL)
        /* Translators: the arguments of the model's tool call that became cell c3. */
        label = g_strdup_printf (_("Tool call (cell %s)"), part->cell_id);
      else if (part->tool_name != NULL && *part->tool_name != '\0')
        /* Translators: the arguments of a tool call that became no cell; %s is the tool. */
        label = g_strdup_printf (_("Tool call: %s"), part->tool_name);
    }
  else if (part->kind == ASSAY_REQUEST_PART_TOOL_RESULT)
    {
      if (part->cell_id != NULL && part->is_error)
        label = g_strdup_printf (_("Tool result (cell %s, an error)"), part->cell_id);
      else if (part->cell_id != NULL)
        /* Translators: what the model was told of cell c3's run. */
        label = g_strdup_printf (_("Tool result (cell %s)"), part->cell_id);
      else if (part->is_error)
        label = g_strdup (_("Tool result (an error)"));
    }
  else if (part->kind != ASSAY_REQUEST_PART_OTHER)
    label = g_strdup (assay_request_part_kind_label (part->kind));

  if (label == NULL && part->label == NULL)
    label = g_strdup (assay_request_part_kind_label (part->kind));
  if (label != NULL)
    {
      g_free (part->label);
      part->label = label;
    }
}

/* Takes TEXT (cleaned) and LABEL (NULL: the kind's). */
static AssayRequestPart *
assay_request_add_part (GPtrArray            *parts,
                        AssayRequestPartKind  kind,
                        const char           *role,
                        char                 *text,
                        char                 *label,
                        guint                 step)
{
  AssayRequestPart *part = g_new0 (AssayRequestPart, 1);

  part->kind = kind;
  part->change = ASSAY_REQUEST_PART_ADDED;
  part->role = g_strdup (role);
  part->text = text != NULL ? text : g_strdup ("");
  part->label = label;
  part->step = step;
  g_ptr_array_add (parts, part);
  assay_request_part_update_label (part);
  return part;
}

/* A content member as text: a string, or the text of an array of parts (strings and "text"
 * blocks of either API); what is not text is named. NULL when there is none. */
static char *
assay_request_content_text (JsonNode *content)
{
  GString *text;
  JsonArray *array;

  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (content))
    return json_node_get_value_type (content) == G_TYPE_STRING
           ? assay_request_clean_text (json_node_get_string (content), FALSE) : NULL;
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return NULL;

  array = json_node_get_array (content);
  text = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *piece = NULL;
      const char *type;

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        piece = assay_request_clean_text (json_node_get_string (element), FALSE);
      else if (JSON_NODE_HOLDS_OBJECT (element))
        {
          type = assay_json_get_string (json_node_get_object (element), "type");
          if (g_strcmp0 (type, "text") == 0 || g_strcmp0 (type, "input_text") == 0 ||
              g_strcmp0 (type, "output_text") == 0)
            piece = assay_request_clean_text (assay_json_get_string (json_node_get_object (element), "text"), FALSE);
          else
            {
              g_autofree char *clean_type = assay_request_clean_text (type != NULL ? type : "?", TRUE);

              piece = g_strdup_printf (_("(a “%s” part, not shown)"), clean_type);
            }
        }
      if (piece == NULL)
        continue;
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, piece);
    }
  return g_string_free (text, FALSE);
}

/* A call's arguments as a reader takes them in: each member on a line of its own, a string
 * as it is (the code with its line ends) rather than as a JSON literal. Arguments that are
 * not a JSON object are shown as the model wrote them. */
static char *
assay_request_arguments_text (JsonNode *arguments)
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
        return assay_request_clean_text (written, FALSE);
      arguments = parsed;
    }
  if (!JSON_NODE_HOLDS_OBJECT (arguments))
    {
      g_autofree char *json = json_to_string (arguments, FALSE);

      return assay_request_clean_text (json, FALSE);
    }

  object = json_node_get_object (arguments);
  members = json_object_get_members (object);
  if (members == NULL)
    return g_strdup ("{}");
  text = g_string_new (NULL);
  for (GList *l = members; l != NULL; l = l->next)
    {
      g_autofree char *name = assay_request_clean_text (l->data, TRUE);
      JsonNode *value = json_object_get_member (object, l->data);
      g_autofree char *shown = NULL;

      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
        shown = assay_request_clean_text (json_node_get_string (value), FALSE);
      else
        {
          g_autofree char *json = json_to_string (value, FALSE);

          shown = assay_request_clean_text (json, FALSE);
        }
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, strchr (shown, '\n') != NULL ? "%s:\n%s" : "%s: %s", name, shown);
    }
  return g_string_free (text, FALSE);
}

static void
assay_request_add_call (GPtrArray  *parts,
                        const char *role,
                        guint       step,
                        const char *id,
                        const char *name,
                        JsonNode   *arguments)
{
  AssayRequestPart *part;

  part = assay_request_add_part (parts, ASSAY_REQUEST_PART_TOOL_CALL, role,
                                 assay_request_arguments_text (arguments), NULL, step);
  part->call_id = id != NULL ? assay_request_clean_text (id, TRUE) : NULL;
  part->tool_name = name != NULL ? assay_request_clean_text (name, TRUE) : NULL;
  assay_request_part_update_label (part);
}

static void
assay_request_add_result (GPtrArray  *parts,
                          const char *role,
                          guint       step,
                          const char *id,
                          JsonNode   *content,
                          gboolean    is_error)
{
  AssayRequestPart *part;

  part = assay_request_add_part (parts, ASSAY_REQUEST_PART_TOOL_RESULT, role,
                                 assay_request_content_text (content), NULL, step);
  part->call_id = id != NULL ? assay_request_clean_text (id, TRUE) : NULL;
  part->is_error = is_error;
  assay_request_part_update_label (part);
}

static void
assay_request_add_other (GPtrArray  *parts,
                         const char *role,
                         guint       step,
                         const char *type)
{
  g_autofree char *clean_type = assay_request_clean_text (type != NULL ? type : "?", TRUE);

  assay_request_add_part (parts, ASSAY_REQUEST_PART_OTHER, role,
                          g_strdup_printf (_("(a “%s” part, not shown)"), clean_type),
                          /* Translators: a part of a request of a type Assay does not send. */
                          g_strdup_printf (_("Part of type “%s”"), clean_type), step);
}

/* The kind of a message's text by its role. */
static AssayRequestPartKind
assay_request_text_kind (const char *role)
{
  if (g_str_equal (role, "user"))
    return ASSAY_REQUEST_PART_QUESTION;
  if (g_str_equal (role, "assistant"))
    return ASSAY_REQUEST_PART_REPLY;
  return ASSAY_REQUEST_PART_OTHER;
}

static void
assay_request_add_text (GPtrArray  *parts,
                        const char *role,
                        guint       step,
                        char       *text)
{
  AssayRequestPartKind kind = assay_request_text_kind (role);
  char *label = NULL;

  if (kind == ASSAY_REQUEST_PART_OTHER)
    /* Translators: a message of a role Assay does not send; %s is the role as sent. */
    label = g_strdup_printf (_("Message (%s)"), role);
  assay_request_add_part (parts, kind, role, text, label, step);
}

/* An Anthropic content block, or an OpenAI content part (Responses: input_text, output_text). */
static void
assay_request_read_block (GPtrArray  *parts,
                          const char *role,
                          guint       step,
                          JsonNode   *node)
{
  JsonObject *block;
  const char *type;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      assay_request_add_text (parts, role, step, assay_request_clean_text (json_node_get_string (node), FALSE));
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  block = json_node_get_object (node);
  type = assay_json_get_string (block, "type");
  if (g_strcmp0 (type, "text") == 0 || g_strcmp0 (type, "input_text") == 0 || g_strcmp0 (type, "output_text") == 0)
    assay_request_add_text (parts, role, step, assay_request_clean_text (assay_json_get_string (block, "text"), FALSE));
  else if (g_strcmp0 (type, "tool_use") == 0)
    assay_request_add_call (parts, role, step, assay_json_get_string (block, "id"),
                            assay_json_get_string (block, "name"), json_object_get_member (block, "input"));
  else if (g_strcmp0 (type, "tool_result") == 0)
    assay_request_add_result (parts, role, step, assay_json_get_string (block, "tool_use_id"),
                              json_object_get_member (block, "content"),
                              assay_json_get_boolean_or (block, "is_error", FALSE));
  else
    assay_request_add_other (parts, role, step, type);
}

/* One message of any of the APIs; *N_REPLIES counts the assistant messages so far (the steps).
 * Leading system (or developer) messages are the system prompt of chat completions: they go
 * to SYSTEM. */
static void
assay_request_read_message (GPtrArray *parts,
                            GString   *system,
                            guint     *n_replies,
                            JsonNode  *node)
{
  g_autofree char *role = NULL;
  JsonObject *message;
  JsonNode *content;
  JsonArray *calls;
  guint n_before = parts->len;
  guint step;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  message = json_node_get_object (node);
  role = assay_request_clean_text (assay_json_get_string (message, "role") ?: "?", TRUE);
  content = json_object_get_member (message, "content");

  if ((g_str_equal (role, "system") || g_str_equal (role, "developer")) && parts->len == 0)
    {
      g_autofree char *text = assay_request_content_text (content);

      if (text != NULL && *text != '\0')
        g_string_append_printf (system, "%s%s", system->len > 0 ? "\n\n" : "", text);
      return;
    }

  /* A reply is its step's; what follows it (results, the next question) is the next's. */
  if (g_str_equal (role, "assistant"))
    (*n_replies)++;
  step = MAX (*n_replies, 1);

  if (g_str_equal (role, "tool"))
    {
      assay_request_add_result (parts, role, step, assay_json_get_string (message, "tool_call_id"), content, FALSE);
      return;
    }

  if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *blocks = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (blocks); i++)
        assay_request_read_block (parts, role, step, json_array_get_element (blocks, i));
    }
  else
    {
      char *text = assay_request_content_text (content);

      if (text != NULL && *text != '\0')
        assay_request_add_text (parts, role, step, text);
      else
        g_free (text);
    }

  calls = assay_json_get_array (message, "tool_calls");
  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonNode *call_node = json_array_get_element (calls, i);
      JsonObject *call = JSON_NODE_HOLDS_OBJECT (call_node) ? json_node_get_object (call_node) : NULL;
      JsonObject *function = assay_json_get_object (call, "function");

      if (call == NULL)
        continue;
      assay_request_add_call (parts, role, step, assay_json_get_string (call, "id"),
                              assay_json_get_string (function, "name"),
                              function != NULL ? json_object_get_member (function, "arguments") : NULL);
    }

  /* An empty message was sent too. */
  if (parts->len == n_before)
    assay_request_add_text (parts, role, step, g_strdup (""));
}

/* A reasoning item of the Responses API: its summary, if any; the encrypted content is the
 * server's, unreadable here, and only said to be there. */
static void
assay_request_add_reasoning (GPtrArray  *parts,
                             guint       step,
                             JsonObject *item)
{
  JsonArray *summary = assay_json_get_array (item, "summary");
  GString *text = g_string_new (NULL);

  for (guint i = 0; summary != NULL && i < json_array_get_length (summary); i++)
    {
      JsonNode *node = json_array_get_element (summary, i);
      g_autofree char *piece = JSON_NODE_HOLDS_OBJECT (node)
                               ? assay_request_clean_text (assay_json_get_string (json_node_get_object (node), "text"), FALSE)
                               : NULL;

      if (piece == NULL || *piece == '\0')
        continue;
      if (text->len > 0)
        g_string_append (text, "\n\n");
      g_string_append (text, piece);
    }
  if (assay_json_get_string (item, "encrypted_content") != NULL)
    {
      if (text->len > 0)
        g_string_append (text, "\n\n");
      g_string_append (text, _("(its reasoning itself, encrypted by the server, carried back unread)"));
    }
  /* Translators: the model's reasoning of an earlier turn, sent back with the request. */
  assay_request_add_part (parts, ASSAY_REQUEST_PART_OTHER, "reasoning", g_string_free (text, FALSE),
                          g_strdup (_("Model’s reasoning")), step);
}

/* One input item of the Responses API. A reply (its reasoning, text and calls, in any order
 * and any of them alone) is its step's; *IN_REPLY says whether the item before was part of
 * one, so a reply counts once. */
static void
assay_request_read_item (GPtrArray *parts,
                         GString   *system,
                         guint     *n_replies,
                         gboolean  *in_reply,
                         JsonNode  *node)
{
  JsonObject *item;
  const char *type;
  const char *role;
  gboolean reply_item;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  item = json_node_get_object (node);
  type = assay_json_get_string (item, "type");
  role = assay_json_get_string (item, "role");
  if (type == NULL && role != NULL)
    type = "message";

  reply_item = g_strcmp0 (type, "function_call") == 0 || g_strcmp0 (type, "reasoning") == 0 ||
               g_strcmp0 (type, "code_interpreter_call") == 0 ||
               (g_strcmp0 (type, "message") == 0 && g_strcmp0 (role, "assistant") == 0);
  if (reply_item && !*in_reply)
    (*n_replies)++;
  *in_reply = reply_item;

  if (g_strcmp0 (type, "message") == 0)
    {
      /* Its role and content read as a chat message's, but a reply was counted here. */
      if (g_strcmp0 (role, "assistant") == 0)
        (*n_replies)--;
      assay_request_read_message (parts, system, n_replies, node);
      return;
    }
  if (g_strcmp0 (type, "function_call") == 0)
    {
      assay_request_add_call (parts, "assistant", MAX (*n_replies, 1), assay_json_get_string (item, "call_id"),
                              assay_json_get_string (item, "name"), json_object_get_member (item, "arguments"));
      return;
    }
  if (g_strcmp0 (type, "code_interpreter_call") == 0)
    {
      /* Code that ran on OpenAI ("Runs on OpenAI"): its code as a call, its logs as its result. */
      g_autoptr(JsonObject) arguments = json_object_new ();
      g_autoptr(JsonNode) node_arguments = NULL;
      g_autoptr(GString) logs = g_string_new (NULL);
      g_autoptr(JsonNode) node_logs = NULL;
      JsonArray *outputs = assay_json_get_array (item, "outputs");
      const char *code = assay_json_get_string (item, "code");
      const char *id = assay_json_get_string (item, "id");

      json_object_set_string_member (arguments, "code", code != NULL ? code : "");
      node_arguments = json_node_init_object (json_node_alloc (), arguments);
      assay_request_add_call (parts, "assistant", MAX (*n_replies, 1), id, "code_interpreter", node_arguments);
      for (guint i = 0; outputs != NULL && i < json_array_get_length (outputs); i++)
        {
          JsonNode *output = json_array_get_element (outputs, i);
          const char *text = JSON_NODE_HOLDS_OBJECT (output)
                             ? assay_json_get_string (json_node_get_object (output), "logs") : NULL;

          if (text != NULL)
            g_string_append (logs, text);
        }
      node_logs = json_node_init_string (json_node_alloc (), logs->str);
      assay_request_add_result (parts, "tool", MAX (*n_replies, 1), id, node_logs, FALSE);
      return;
    }
  if (g_strcmp0 (type, "function_call_output") == 0)
    {
      assay_request_add_result (parts, "tool", MAX (*n_replies, 1), assay_json_get_string (item, "call_id"),
                                json_object_get_member (item, "output"), FALSE);
      return;
    }
  if (g_strcmp0 (type, "reasoning") == 0)
    {
      assay_request_add_reasoning (parts, MAX (*n_replies, 1), item);
      return;
    }
  assay_request_add_other (parts, role != NULL ? role : "?", MAX (*n_replies, 1), type);
}

/* The tools offered, one a line: "name: description" (either API's shape). */
static char *
assay_request_tools_text (JsonArray *tools)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonObject *tool = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonObject *function = assay_json_get_object (tool, "function");
      g_autofree char *name = NULL;
      g_autofree char *description = NULL;

      if (tool == NULL)
        continue;
      if (function != NULL)
        tool = function;
      name = assay_request_clean_text (assay_json_get_string (tool, "name") ?: assay_json_get_string (tool, "type") ?: "?",
                                       TRUE);
      description = assay_request_clean_text (assay_json_get_string (tool, "description"), FALSE);
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, name);
      if (*description != '\0')
        g_string_append_printf (text, ": %s", description);
    }
  return g_string_free (text, FALSE);
}

/* The system prompt as Assay writes it, with the datasets at its end. */
static void
assay_request_add_system (GPtrArray  *parts,
                          const char *role,
                          const char *system)
{
  const char *datasets = NULL;

  if (g_str_has_prefix (system, DATASETS_HEADING))
    datasets = system;
  else
    {
      const char *found = strstr (system, "\n" DATASETS_HEADING);

      datasets = found != NULL ? found + 1 : NULL;
    }

  if (datasets == NULL)
    {
      assay_request_add_part (parts, ASSAY_REQUEST_PART_SYSTEM, role, g_strdup (system), NULL, 0);
      return;
    }
  if (datasets > system)
    {
      g_autofree char *before = g_strndup (system, datasets - system);

      g_strchomp (before);
      assay_request_add_part (parts, ASSAY_REQUEST_PART_SYSTEM, role, g_strdup (before), NULL, 0);
    }
  assay_request_add_part (parts, ASSAY_REQUEST_PART_DATASETS, role, g_strchomp (g_strdup (datasets)), NULL, 0);
}

static gboolean
assay_request_is_anthropic (JsonObject *object,
                            JsonArray  *messages)
{
  if (json_object_has_member (object, "system"))
    return TRUE;
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonArray *blocks = JSON_NODE_HOLDS_OBJECT (node)
                          ? assay_json_get_array (json_node_get_object (node), "content") : NULL;

      for (guint j = 0; blocks != NULL && j < json_array_get_length (blocks); j++)
        {
          JsonNode *block = json_array_get_element (blocks, j);
          const char *type = JSON_NODE_HOLDS_OBJECT (block)
                             ? assay_json_get_string (json_node_get_object (block), "type") : NULL;

          if (g_strcmp0 (type, "tool_use") == 0 || g_strcmp0 (type, "tool_result") == 0)
            return TRUE;
        }
    }
  return FALSE;
}

AssayRequestReading *
assay_request_reading_new (GBytes  *body,
                           GError **error)
{
  g_autoptr(AssayRequestReading) reading = NULL;
  g_autoptr(GString) system = g_string_new (NULL);
  g_autoptr(GPtrArray) conversation = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  const char *data;
  JsonObject *object;
  JsonArray *messages;
  JsonArray *input;
  JsonArray *tools;
  guint n_replies = 0;

  g_return_val_if_fail (body != NULL, NULL);

  data = g_bytes_get_data (body, &length);
  /* A NUL would end the text early and let its start be read as the whole. */
  if (length > 0 && memchr (data, '\0', length) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The body holds a NUL byte"));
      return NULL;
    }
  text = g_strndup (data != NULL ? data : "", length);
  root = assay_json_from_untrusted (text, &local_error);
  if (root == NULL)
    {
      if (local_error != NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The body is not JSON: %s"), local_error->message);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The body is empty"));
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The body is not a JSON object"));
      return NULL;
    }
  object = json_node_get_object (root);
  messages = assay_json_get_array (object, "messages");
  input = assay_json_get_array (object, "input");
  if (messages == NULL && input != NULL)
    {
      gboolean in_reply = FALSE;

      /* The Responses API: the system prompt in "instructions", the conversation as items. */
      reading = g_new0 (AssayRequestReading, 1);
      reading->parts = g_ptr_array_new_with_free_func (assay_request_part_free);
      reading->format = ASSAY_REQUEST_FORMAT_OPENAI_RESPONSES;
      if (assay_json_get_string (object, "model") != NULL)
        reading->model = assay_request_clean_text (assay_json_get_string (object, "model"), TRUE);
      {
        g_autofree char *instructions = assay_request_content_text (json_object_get_member (object, "instructions"));

        if (instructions != NULL)
          g_string_append (system, instructions);
      }
      conversation = g_ptr_array_new_with_free_func (assay_request_part_free);
      for (guint i = 0; i < json_array_get_length (input); i++)
        assay_request_read_item (conversation, system, &n_replies, &in_reply, json_array_get_element (input, i));
      if (system->len > 0)
        assay_request_add_system (reading->parts, "system", system->str);
      tools = assay_json_get_array (object, "tools");
      if (tools != NULL && json_array_get_length (tools) > 0)
        assay_request_add_part (reading->parts, ASSAY_REQUEST_PART_TOOLS, "tools",
                                assay_request_tools_text (tools), NULL, 0);
      g_ptr_array_extend_and_steal (reading->parts, g_steal_pointer (&conversation));
      return g_steal_pointer (&reading);
    }
  if (messages == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The body holds no “messages” list"));
      return NULL;
    }

  reading = g_new0 (AssayRequestReading, 1);
  reading->parts = g_ptr_array_new_with_free_func (assay_request_part_free);
  reading->format = assay_request_is_anthropic (object, messages) ? ASSAY_REQUEST_FORMAT_ANTHROPIC
                                                                  : ASSAY_REQUEST_FORMAT_OPENAI;
  if (assay_json_get_string (object, "model") != NULL)
    reading->model = assay_request_clean_text (assay_json_get_string (object, "model"), TRUE);

  /* Anthropic's system prompt: a string, or text blocks. */
  {
    g_autofree char *anthropic = assay_request_content_text (json_object_get_member (object, "system"));

    if (anthropic != NULL)
      g_string_append (system, anthropic);
  }
  conversation = g_ptr_array_new_with_free_func (assay_request_part_free);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    assay_request_read_message (conversation, system, &n_replies, json_array_get_element (messages, i));

  /* What every request carries first: the prompt, the datasets, the tools. */
  if (system->len > 0)
    assay_request_add_system (reading->parts, "system", system->str);
  tools = assay_json_get_array (object, "tools");
  if (tools != NULL && json_array_get_length (tools) > 0)
    assay_request_add_part (reading->parts, ASSAY_REQUEST_PART_TOOLS, "tools",
                            assay_request_tools_text (tools), NULL, 0);
  g_ptr_array_extend_and_steal (reading->parts, g_steal_pointer (&conversation));
  return g_steal_pointer (&reading);
}

/* ---- comparing ---------------------------------------------------------------------------- */

static gboolean
assay_request_part_is_preamble (const AssayRequestPart *part)
{
  return part->kind == ASSAY_REQUEST_PART_SYSTEM || part->kind == ASSAY_REQUEST_PART_DATASETS ||
         part->kind == ASSAY_REQUEST_PART_TOOLS;
}

/* Two parts at the same place are the same part (perhaps with other text) when they are of
 * one kind, role and call: a question named a check is still a user's text. */
static gboolean
assay_request_part_same_slot (const AssayRequestPart *a,
                              const AssayRequestPart *b)
{
  AssayRequestPartKind kind_a = a->kind == ASSAY_REQUEST_PART_CHECK ? ASSAY_REQUEST_PART_QUESTION
                                : a->kind == ASSAY_REQUEST_PART_DRAFT ? ASSAY_REQUEST_PART_REPLY : a->kind;
  AssayRequestPartKind kind_b = b->kind == ASSAY_REQUEST_PART_CHECK ? ASSAY_REQUEST_PART_QUESTION
                                : b->kind == ASSAY_REQUEST_PART_DRAFT ? ASSAY_REQUEST_PART_REPLY : b->kind;

  return kind_a == kind_b && g_strcmp0 (a->role, b->role) == 0 && g_strcmp0 (a->call_id, b->call_id) == 0 &&
         (a->kind != ASSAY_REQUEST_PART_OTHER || g_strcmp0 (a->label, b->label) == 0);
}

void
assay_request_reading_compare (AssayRequestReading       *self,
                               const AssayRequestReading *previous,
                               guint                      previous_number)
{
  g_autoptr(GPtrArray) earlier = g_ptr_array_new ();   /* the previous conversation, borrowed */
  gboolean intact = previous != NULL;
  guint index = 0;
  guint n_in_place = 0;   /* of the previous conversation, the parts found at their place */

  g_return_if_fail (self != NULL);

  self->compared_with = previous != NULL ? previous_number : 0;
  self->n_added = 0;
  self->diverged = FALSE;
  for (guint i = 0; previous != NULL && i < previous->parts->len; i++)
    {
      AssayRequestPart *part = g_ptr_array_index (previous->parts, i);

      if (!assay_request_part_is_preamble (part))
        g_ptr_array_add (earlier, part);
    }

  for (guint i = 0; i < self->parts->len; i++)
    {
      AssayRequestPart *part = g_ptr_array_index (self->parts, i);

      part->change = ASSAY_REQUEST_PART_ADDED;
      if (assay_request_part_is_preamble (part))
        {
          /* The prompt, the datasets and the tools by their kind: a dataset added later
           * changes the summary, not the prompt. */
          for (guint j = 0; previous != NULL && j < previous->parts->len; j++)
            {
              const AssayRequestPart *before = g_ptr_array_index (previous->parts, j);

              if (before->kind == part->kind)
                {
                  part->change = g_str_equal (before->text, part->text) ? ASSAY_REQUEST_PART_REPEATED
                                                                        : ASSAY_REQUEST_PART_CHANGED;
                  break;
                }
            }
        }
      else
        {
          /* The conversation in order: repeated while it follows the one before, a part at
           * its place with other text changed (an old output emptied), added from where
           * the two part on. */
          if (intact && index < earlier->len &&
              assay_request_part_same_slot (g_ptr_array_index (earlier, index), part))
            {
              part->change = g_str_equal (((AssayRequestPart *) g_ptr_array_index (earlier, index))->text, part->text)
                             ? ASSAY_REQUEST_PART_REPEATED : ASSAY_REQUEST_PART_CHANGED;
              n_in_place++;
            }
          else
            intact = FALSE;
          index++;
        }
      if (part->change != ASSAY_REQUEST_PART_REPEATED)
        self->n_added++;
    }
  /* Going on from the previous conversation keeps every part of it at its place; anything
   * else (a part dropped, another in its place, less sent) is a conversation of its own. */
  self->diverged = previous != NULL && n_in_place < earlier->len;
}

/* ---- naming the cells --------------------------------------------------------------------- */

static AssaySessionCell *
assay_request_take_cell (AssaySession *session,
                         GHashTable   *used,
                         const char   *call_id,
                         guint         step,
                         gboolean      same_step)
{
  guint n = assay_session_get_n_cells (session);

  for (guint i = 0; i < n; i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);

      if (g_hash_table_contains (used, cell) || g_strcmp0 (cell->call_id, call_id) != 0 ||
          (same_step && cell->step != step))
        continue;
      g_hash_table_add (used, cell);
      return cell;
    }
  return NULL;
}

static void
assay_request_part_set_cell (AssayRequestPart       *part,
                             const AssaySessionCell *cell)
{
  if (cell == NULL || cell->id == NULL)
    return;
  g_free (part->cell_id);
  part->cell_id = assay_request_clean_text (cell->id, TRUE);
  assay_request_part_update_label (part);
}

void
assay_request_reading_name_cells (AssayRequestReading *self,
                                  AssaySession        *session)
{
  g_autoptr(GHashTable) used = g_hash_table_new (NULL, NULL);          /* AssaySessionCell* */
  g_autoptr(GHashTable) call_cells = g_hash_table_new (NULL, NULL);    /* call part → cell */
  g_autoptr(GHashTable) answered = g_hash_table_new (NULL, NULL);      /* call parts with a result */
  GPtrArray *messages;
  guint next_user = 0;

  g_return_if_fail (self != NULL);
  g_return_if_fail (ASSAY_IS_SESSION (session));

  /* The calls, as the outline matches them: the same call id in the same step first, so a
   * repeated id never takes another step's cell; then the same id anywhere, in order. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < self->parts->len; i++)
      {
        AssayRequestPart *part = g_ptr_array_index (self->parts, i);
        AssaySessionCell *cell;

        if (part->kind != ASSAY_REQUEST_PART_TOOL_CALL || part->call_id == NULL ||
            g_hash_table_contains (call_cells, part))
          continue;
        cell = assay_request_take_cell (session, used, part->call_id, part->step, pass == 0);
        if (cell == NULL)
          continue;
        g_hash_table_insert (call_cells, part, cell);
        assay_request_part_set_cell (part, cell);
      }

  /* A result is its call's: the first call of its id before it that has no result yet. */
  for (guint i = 0; i < self->parts->len; i++)
    {
      AssayRequestPart *part = g_ptr_array_index (self->parts, i);

      if (part->kind != ASSAY_REQUEST_PART_TOOL_RESULT || part->call_id == NULL)
        continue;
      for (guint j = 0; j < i; j++)
        {
          AssayRequestPart *call = g_ptr_array_index (self->parts, j);

          if (call->kind != ASSAY_REQUEST_PART_TOOL_CALL || g_strcmp0 (call->call_id, part->call_id) != 0 ||
              g_hash_table_contains (answered, call))
            continue;
          g_hash_table_add (answered, call);
          assay_request_part_set_cell (part, g_hash_table_lookup (call_cells, call));
          break;
        }
    }

  /* The user messages Assay wrote to check an answer, found among the session's own. */
  messages = assay_session_get_messages (session);
  for (guint i = 0; messages != NULL && i < self->parts->len; i++)
    {
      AssayRequestPart *part = g_ptr_array_index (self->parts, i);

      if (part->kind != ASSAY_REQUEST_PART_QUESTION)
        continue;
      for (guint j = next_user; j < messages->len; j++)
        {
          const AssayLlmMessage *message = g_ptr_array_index (messages, j);
          g_autofree char *text = NULL;

          if (message->role != ASSAY_LLM_ROLE_USER)
            continue;
          text = assay_request_clean_text (message->text, FALSE);
          if (!g_str_equal (text, part->text))
            continue;
          next_user = j + 1;
          if (message->is_check)
            {
              part->kind = ASSAY_REQUEST_PART_CHECK;
              assay_request_part_update_label (part);
              /* The reply it answers is the draft it sent back. */
              for (guint k = i; k-- > 0;)
                {
                  AssayRequestPart *reply = g_ptr_array_index (self->parts, k);

                  if (reply->kind == ASSAY_REQUEST_PART_QUESTION || reply->kind == ASSAY_REQUEST_PART_CHECK)
                    break;
                  if (reply->kind != ASSAY_REQUEST_PART_REPLY)
                    continue;
                  reply->kind = ASSAY_REQUEST_PART_DRAFT;
                  g_clear_pointer (&reply->label, g_free);
                  assay_request_part_update_label (reply);
                  break;
                }
            }
          break;
        }
    }
}

/* ---- a session's request ------------------------------------------------------------------ */

AssayRequestReading *
assay_request_reading_new_compared (GBytes  *body,
                                    GBytes  *previous_body,
                                    guint    previous_number,
                                    GError **error)
{
  g_autoptr(AssayRequestReading) reading = NULL;
  g_autoptr(AssayRequestReading) previous = NULL;

  g_return_val_if_fail (body != NULL, NULL);

  reading = assay_request_reading_new (body, error);
  if (reading == NULL)
    return NULL;
  if (previous_body != NULL)
    previous = assay_request_reading_new (previous_body, NULL);
  assay_request_reading_compare (reading, previous, previous != NULL ? previous_number : 0);
  return g_steal_pointer (&reading);
}

GBytes *
assay_session_requests_read_previous_body (AssaySession *session,
                                           guint         index,
                                           guint        *number)
{
  GPtrArray *requests;

  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);

  if (number != NULL)
    *number = 0;
  requests = assay_session_get_requests (session);
  for (guint i = MIN (index, requests != NULL ? requests->len : 0); i-- > 0;)
    {
      const AssaySessionRequest *request = g_ptr_array_index (requests, i);
      GBytes *body;

      /* A body not kept is skipped without a look at the disk: once the session's cap is
       * reached, none of the later ones are. */
      if (request->file == NULL)
        continue;
      body = assay_session_read_request_body (session, request, NULL);
      if (body == NULL)
        continue;
      if (number != NULL)
        *number = request->number;
      return body;
    }
  return NULL;
}

void
assay_session_requests_foreach (AssaySession             *session,
                                AssaySessionRequestsFunc  func,
                                gpointer                  user_data)
{
  g_autoptr(AssayRequestReading) previous = NULL;
  guint previous_number = 0;
  GPtrArray *requests;

  g_return_if_fail (ASSAY_IS_SESSION (session));
  g_return_if_fail (func != NULL);

  requests = assay_session_get_requests (session);
  for (guint i = 0; requests != NULL && i < requests->len; i++)
    {
      const AssaySessionRequest *request = g_ptr_array_index (requests, i);
      g_autoptr(AssayRequestReading) reading = NULL;
      g_autoptr(GBytes) body = NULL;
      g_autoptr(GError) error = NULL;
      gboolean read_back;

      body = assay_session_read_request_body (session, request, &error);
      read_back = body != NULL;
      if (read_back)
        {
          reading = assay_request_reading_new (body, &error);
          g_clear_pointer (&body, g_bytes_unref);
        }
      if (reading != NULL)
        {
          assay_request_reading_compare (reading, previous, previous_number);
          assay_request_reading_name_cells (reading, session);
        }
      func (session, i, reading, error, user_data);

      /* The next is compared with this one whenever its body read back, a request or not,
       * as assay_session_requests_read_previous_body () finds it. Naming the cells changed
       * no part's place or text, so a named reading compares as an unnamed one would. */
      if (read_back)
        {
          g_clear_pointer (&previous, assay_request_reading_free);
          previous = g_steal_pointer (&reading);
          previous_number = request->number;
        }
    }
}

AssayRequestReading *
assay_session_requests_read (AssaySession  *session,
                             guint          index,
                             GError       **error)
{
  GPtrArray *requests;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GBytes) previous_body = NULL;
  AssayRequestReading *reading;
  guint previous_number = 0;

  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);
  requests = assay_session_get_requests (session);
  g_return_val_if_fail (requests != NULL && index < requests->len, NULL);

  body = assay_session_read_request_body (session, g_ptr_array_index (requests, index), error);
  if (body == NULL)
    return NULL;
  previous_body = assay_session_requests_read_previous_body (session, index, &previous_number);
  reading = assay_request_reading_new_compared (body, previous_body, previous_number, error);
  if (reading != NULL)
    assay_request_reading_name_cells (reading, session);
  return reading;
}
