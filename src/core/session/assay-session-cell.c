/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include "assay-session-cell.h"
#include "assay-json.h"

static const char *decision_names[] = { "pending", "auto", "approved", "edited", "rejected", "hosted" };

const char *
assay_decision_to_string (AssayDecision decision)
{
  if ((guint) decision >= G_N_ELEMENTS (decision_names))
    return "pending";
  return decision_names[decision];
}

AssayDecision
assay_decision_from_string (const char *text)
{
  for (guint i = 0; i < G_N_ELEMENTS (decision_names); i++)
    if (g_strcmp0 (text, decision_names[i]) == 0)
      return (AssayDecision) i;
  return ASSAY_DECISION_PENDING;
}

AssaySessionQuery *
assay_session_query_new (const char *database,
                         const char *frame)
{
  AssaySessionQuery *query = g_new0 (AssaySessionQuery, 1);

  query->database = g_strdup (database);
  query->frame = g_strdup (frame);
  query->rows = -1;
  query->columns = json_array_new ();
  return query;
}

void
assay_session_query_free (AssaySessionQuery *query)
{
  if (query == NULL)
    return;
  g_free (query->database);
  g_free (query->frame);
  json_array_unref (query->columns);
  g_free (query->result);
  g_free (query);
}

static void
assay_session_cell_artifact_free (gpointer data)
{
  assay_artifact_free (data);
}

AssaySessionCell *
assay_session_cell_new (const char *id,
                        guint       step,
                        const char *call_id,
                        const char *description,
                        const char *proposed_code)
{
  AssaySessionCell *cell = g_new0 (AssaySessionCell, 1);

  cell->id = g_strdup (id);
  cell->step = step;
  cell->call_id = g_strdup (call_id);
  cell->description = g_strdup (description);
  cell->proposed_code = g_strdup (proposed_code);
  cell->status = ASSAY_CELL_PROPOSED;
  cell->outputs = json_array_new ();
  cell->artifacts = g_ptr_array_new_with_free_func (assay_session_cell_artifact_free);
  return cell;
}

static AssayArtifact *
assay_session_cell_artifact_copy (const AssayArtifact *artifact)
{
  AssayArtifact *copy = g_new0 (AssayArtifact, 1);

  copy->name = g_strdup (artifact->name);
  copy->path = g_strdup (artifact->path);
  copy->bytes = artifact->bytes;
  copy->mime = g_strdup (artifact->mime);
  copy->truncated = artifact->truncated;
  return copy;
}

AssaySessionCell *
assay_session_cell_copy (const AssaySessionCell *cell)
{
  g_autoptr(JsonNode) node = assay_session_cell_to_json (cell);

  return assay_session_cell_from_json (node);
}

void
assay_session_cell_free (AssaySessionCell *cell)
{
  if (cell == NULL)
    return;
  g_free (cell->id);
  g_free (cell->call_id);
  g_free (cell->description);
  g_free (cell->proposed_code);
  g_free (cell->code);
  g_free (cell->reason);
  g_free (cell->status_reason);
  g_free (cell->approval);
  g_clear_pointer (&cell->outputs, json_array_unref);
  g_clear_pointer (&cell->artifacts, g_ptr_array_unref);
  g_clear_pointer (&cell->checks, assay_cell_checks_free);
  g_clear_pointer (&cell->query, assay_session_query_free);
  g_free (cell);
}

gboolean
assay_session_cell_succeeded (const AssaySessionCell *cell)
{
  return cell->code != NULL && cell->status == ASSAY_CELL_OK;
}

static void
assay_session_cell_set_optional_string (JsonObject *object,
                                        const char *name,
                                        const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

JsonNode *
assay_session_cell_to_json (const AssaySessionCell *cell)
{
  g_autoptr(JsonObject) object = json_object_new ();
  JsonArray *artifacts = json_array_new ();

  json_object_set_string_member (object, "id", cell->id);
  json_object_set_int_member (object, "step", cell->step);
  assay_session_cell_set_optional_string (object, "call_id", cell->call_id);
  assay_session_cell_set_optional_string (object, "description", cell->description);
  assay_session_cell_set_optional_string (object, "proposed_code", cell->proposed_code);
  assay_session_cell_set_optional_string (object, "code", cell->code);
  json_object_set_string_member (object, "decision", assay_decision_to_string (cell->decision));
  assay_session_cell_set_optional_string (object, "reason", cell->reason);
  json_object_set_string_member (object, "status", assay_cell_status_to_string (cell->status));
  assay_session_cell_set_optional_string (object, "status_reason", cell->status_reason);
  json_object_set_array_member (object, "outputs", json_array_ref (cell->outputs));
  for (guint i = 0; i < cell->artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (cell->artifacts, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", artifact->name);
      json_object_set_string_member (item, "path", artifact->path);
      json_object_set_int_member (item, "bytes", (gint64) artifact->bytes);
      assay_session_cell_set_optional_string (item, "mime", artifact->mime);
      json_object_set_boolean_member (item, "truncated", artifact->truncated);
      json_array_add_object_element (artifacts, item);
    }
  json_object_set_array_member (object, "artifacts", artifacts);
  if (cell->checks != NULL)
    json_object_set_member (object, "checks", assay_cell_checks_to_json (cell->checks));
  json_object_set_int_member (object, "proposed_at", cell->proposed_at);
  json_object_set_int_member (object, "started_at", cell->started_at);
  json_object_set_int_member (object, "finished_at", cell->finished_at);
  json_object_set_int_member (object, "elapsed_ms", cell->elapsed_ms);
  if (cell->model_read > 0)
    json_object_set_int_member (object, "model_read", (gint64) cell->model_read);
  assay_session_cell_set_optional_string (object, "approval", cell->approval);
  if (cell->kind == ASSAY_CELL_KIND_SQL)
    {
      JsonObject *query = json_object_new ();

      json_object_set_string_member (object, "kind", "sql");
      if (cell->query != NULL)
        {
          assay_session_cell_set_optional_string (query, "database", cell->query->database);
          assay_session_cell_set_optional_string (query, "frame", cell->query->frame);
          json_object_set_int_member (query, "rows", cell->query->rows);
          json_object_set_array_member (query, "columns", json_array_ref (cell->query->columns));
          json_object_set_int_member (query, "bytes", cell->query->bytes);
          json_object_set_int_member (query, "query_ms", cell->query->query_ms);
          assay_session_cell_set_optional_string (query, "result", cell->query->result);
        }
      json_object_set_object_member (object, "query", query);
    }
  return json_node_init_object (json_node_alloc (), object);
}

/* Reading never trusts the file: every member is checked for its type. */
AssaySessionCell *
assay_session_cell_from_json (JsonNode *node)
{
  JsonObject *object;
  JsonNode *member;
  AssaySessionCell *cell;
  g_autofree char *id = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  id = assay_json_dup_string (object, "id");
  if (id == NULL)
    return NULL;

  cell = assay_session_cell_new (id, (guint) assay_json_get_int_or (object, "step", 0), NULL, NULL, NULL);
  cell->call_id = assay_json_dup_string (object, "call_id");
  cell->description = assay_json_dup_string (object, "description");
  cell->proposed_code = assay_json_dup_string (object, "proposed_code");
  cell->code = assay_json_dup_string (object, "code");
  {
    g_autofree char *decision = assay_json_dup_string (object, "decision");
    cell->decision = assay_decision_from_string (decision);
  }
  cell->reason = assay_json_dup_string (object, "reason");
  /* A word a newer Assay wrote reads as an error: the cell did not end as this one knows. */
  cell->status = ASSAY_CELL_PROPOSED;
  if (assay_json_get_string (object, "status") != NULL &&
      !assay_cell_status_from_string (assay_json_get_string (object, "status"), &cell->status))
    cell->status = ASSAY_CELL_ERROR;
  cell->status_reason = assay_json_dup_string (object, "status_reason");

  member = json_object_get_member (object, "outputs");
  if (member != NULL && JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *outputs = json_node_get_array (member);

      for (guint i = 0; i < json_array_get_length (outputs); i++)
        {
          JsonNode *output = json_array_get_element (outputs, i);

          if (JSON_NODE_HOLDS_OBJECT (output))
            json_array_add_element (cell->outputs, json_node_copy (output));
        }
    }

  member = json_object_get_member (object, "artifacts");
  if (member != NULL && JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *artifacts = json_node_get_array (member);

      for (guint i = 0; i < json_array_get_length (artifacts); i++)
        {
          JsonNode *item = json_array_get_element (artifacts, i);
          AssayArtifact artifact = { 0 };
          JsonObject *item_object;

          if (!JSON_NODE_HOLDS_OBJECT (item))
            continue;
          item_object = json_node_get_object (item);
          artifact.name = assay_json_dup_string (item_object, "name");
          artifact.path = assay_json_dup_string (item_object, "path");
          artifact.mime = assay_json_dup_string (item_object, "mime");
          artifact.bytes = (guint64) MAX (assay_json_get_int_or (item_object, "bytes", 0), 0);
          if (json_object_has_member (item_object, "truncated"))
            artifact.truncated = assay_json_get_boolean_or (item_object, "truncated", FALSE);
          if (artifact.name != NULL && artifact.path != NULL)
            g_ptr_array_add (cell->artifacts, assay_session_cell_artifact_copy (&artifact));
          g_free (artifact.name);
          g_free (artifact.path);
          g_free (artifact.mime);
        }
    }

  cell->checks = assay_cell_checks_from_json (json_object_get_member (object, "checks"));
  cell->proposed_at = assay_json_get_int_or (object, "proposed_at", 0);
  cell->started_at = assay_json_get_int_or (object, "started_at", 0);
  cell->finished_at = assay_json_get_int_or (object, "finished_at", 0);
  cell->elapsed_ms = assay_json_get_int_or (object, "elapsed_ms", 0);
  cell->model_read = (gsize) CLAMP (assay_json_get_int_or (object, "model_read", 0), 0, G_MAXINT32);
  cell->approval = assay_json_dup_string (object, "approval");
  /* Records from before run_sql have no kind: Python. */
  if (g_strcmp0 (assay_json_get_string (object, "kind"), "sql") == 0)
    {
      JsonNode *query = json_object_get_member (object, "query");

      cell->kind = ASSAY_CELL_KIND_SQL;
      cell->query = assay_session_query_new (NULL, NULL);
      if (query != NULL && JSON_NODE_HOLDS_OBJECT (query))
        {
          JsonObject *item = json_node_get_object (query);
          JsonNode *columns = json_object_get_member (item, "columns");

          cell->query->database = assay_json_dup_string (item, "database");
          cell->query->frame = assay_json_dup_string (item, "frame");
          cell->query->rows = assay_json_get_int_or (item, "rows", -1);
          cell->query->bytes = assay_json_get_int_or (item, "bytes", 0);
          cell->query->query_ms = assay_json_get_int_or (item, "query_ms", 0);
          cell->query->result = assay_json_dup_string (item, "result");
          if (columns != NULL && JSON_NODE_HOLDS_ARRAY (columns))
            for (guint i = 0; i < json_array_get_length (json_node_get_array (columns)); i++)
              {
                JsonNode *column = json_array_get_element (json_node_get_array (columns), i);

                if (JSON_NODE_HOLDS_OBJECT (column))
                  json_array_add_element (cell->query->columns, json_node_copy (column));
              }
        }
    }
  return cell;
}

static const char *role_names[] = { "user", "assistant", "tool" };

JsonNode *
assay_llm_message_to_json (const AssayLlmMessage *message)
{
  g_autoptr(JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "role", role_names[message->role]);
  assay_session_cell_set_optional_string (object, "text", message->text);
  if (message->role == ASSAY_LLM_ROLE_ASSISTANT)
    {
      JsonArray *calls = json_array_new ();

      for (guint i = 0; i < message->tool_calls->len; i++)
        {
          AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, i);
          JsonObject *item = json_object_new ();

          assay_session_cell_set_optional_string (item, "id", call->id);
          assay_session_cell_set_optional_string (item, "name", call->name);
          assay_session_cell_set_optional_string (item, "arguments", call->arguments);
          json_array_add_object_element (calls, item);
        }
      json_object_set_array_member (object, "tool_calls", calls);
      /* Opaque to Assay (the Responses API's encrypted reasoning), kept so that a resumed
       * session sends it back too. */
      if (message->reasoning != NULL)
        json_object_set_string_member (object, "reasoning", message->reasoning);
    }
  if (message->role == ASSAY_LLM_ROLE_USER && message->is_check)
    json_object_set_boolean_member (object, "check", TRUE);
  if (message->role == ASSAY_LLM_ROLE_USER && message->is_repair)
    json_object_set_boolean_member (object, "repair", TRUE);
  if (message->role == ASSAY_LLM_ROLE_TOOL)
    {
      assay_session_cell_set_optional_string (object, "tool_call_id", message->tool_call_id);
      json_object_set_boolean_member (object, "is_error", message->is_error);
    }
  return json_node_init_object (json_node_alloc (), object);
}

AssayLlmMessage *
assay_llm_message_from_json (JsonNode *node)
{
  JsonObject *object;
  g_autofree char *role = NULL;
  g_autofree char *text = NULL;
  AssayLlmMessage *message;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  role = assay_json_dup_string (object, "role");
  text = assay_json_dup_string (object, "text");

  if (g_strcmp0 (role, "user") == 0)
    {
      message = assay_llm_message_new_user (text);
      message->is_check = assay_json_get_boolean_or (object, "check", FALSE);
      message->is_repair = assay_json_get_boolean_or (object, "repair", FALSE);
      return message;
    }
  if (g_strcmp0 (role, "tool") == 0)
    {
      g_autofree char *call_id = assay_json_dup_string (object, "tool_call_id");
      gboolean is_error = FALSE;
      JsonNode *member = json_object_get_member (object, "is_error");

      if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
          json_node_get_value_type (member) == G_TYPE_BOOLEAN)
        is_error = json_node_get_boolean (member);
      return assay_llm_message_new_tool (call_id, text, is_error);
    }
  if (g_strcmp0 (role, "assistant") != 0)
    return NULL;

  message = assay_llm_message_new_assistant (text);
  message->reasoning = assay_json_dup_string (object, "reasoning");
  node = json_object_get_member (object, "tool_calls");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *calls = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (calls); i++)
        {
          JsonNode *item = json_array_get_element (calls, i);
          g_autofree char *id = NULL;
          g_autofree char *name = NULL;
          g_autofree char *arguments = NULL;

          if (!JSON_NODE_HOLDS_OBJECT (item))
            continue;
          id = assay_json_dup_string (json_node_get_object (item), "id");
          name = assay_json_dup_string (json_node_get_object (item), "name");
          arguments = assay_json_dup_string (json_node_get_object (item), "arguments");
          g_ptr_array_add (message->tool_calls, assay_llm_tool_call_new (id, name, arguments));
        }
    }
  return message;
}
