/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include "assay-cell-result.h"
#include "assay-cell-output.h"

struct _AssayCellResult
{
  GObject          parent_instance;

  char            *cell_id;
  char            *code;
  AssayCellStatus  status;
  char            *reason;
  JsonArray       *outputs;
  /* The stream output still growing: consecutive pieces of one stream are joined (a cell
   * printing a character at a time must not keep hundreds of thousands of objects). */
  GString         *stream_text;
  char            *stream_name;
  GPtrArray       *artifacts;
  gint64           elapsed_ms;
  gint64           elapsed_us;
  gint64           code_us;
  AssayCellChecks *checks;
  guint            execution_count;
  guint            replayed;
  gboolean         state_lost;
};

G_DEFINE_FINAL_TYPE (AssayCellResult, assay_cell_result, G_TYPE_OBJECT)

/* A joined stream output holds up to this much text; then the next one starts. */
#define STREAM_JOIN_BYTES (64 * 1024)

static void
assay_cell_result_flush_stream (AssayCellResult *self)
{
  JsonObject *output;

  if (self->stream_text == NULL)
    return;
  output = json_object_new ();
  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", self->stream_name);
  json_object_set_string_member (output, "text", self->stream_text->str);
  json_array_add_object_element (self->outputs, output);
  g_string_free (self->stream_text, TRUE);
  self->stream_text = NULL;
  g_clear_pointer (&self->stream_name, g_free);
}

const char *
assay_cell_status_to_string (AssayCellStatus status)
{
  switch (status)
    {
    case ASSAY_CELL_OK:        return "ok";
    case ASSAY_CELL_ERROR:     return "error";
    case ASSAY_CELL_TIMEOUT:   return "timeout";
    case ASSAY_CELL_OOM:       return "oom";
    case ASSAY_CELL_LIMIT:     return "limit";
    case ASSAY_CELL_CANCELLED: return "cancelled";
    case ASSAY_CELL_CRASHED:   return "crashed";
    case ASSAY_CELL_SANDBOX_ERROR: return "sandbox-error";
    case ASSAY_CELL_PROPOSED:  return "proposed";
    case ASSAY_CELL_RUNNING:   return "running";
    case ASSAY_CELL_REJECTED:  return "rejected";
    case ASSAY_CELL_INTERRUPTED: return "interrupted";
    default:                   g_return_val_if_reached ("crashed");
    }
}

gboolean
assay_cell_status_from_string (const char      *text,
                               AssayCellStatus *status)
{
  g_return_val_if_fail (status != NULL, FALSE);
  if (text == NULL)
    return FALSE;
  for (AssayCellStatus s = ASSAY_CELL_OK; s <= ASSAY_CELL_INTERRUPTED; s++)
    if (g_str_equal (text, assay_cell_status_to_string (s)))
      {
        *status = s;
        return TRUE;
      }
  return FALSE;
}

gboolean
assay_cell_status_is_finished (AssayCellStatus status)
{
  return status != ASSAY_CELL_PROPOSED && status != ASSAY_CELL_RUNNING &&
         status != ASSAY_CELL_REJECTED && status != ASSAY_CELL_INTERRUPTED;
}

void
assay_artifact_free (AssayArtifact *artifact)
{
  if (artifact == NULL)
    return;

  g_free (artifact->name);
  g_free (artifact->path);
  g_free (artifact->mime);
  g_free (artifact);
}

static void
assay_cell_result_finalize (GObject *object)
{
  AssayCellResult *self = ASSAY_CELL_RESULT (object);

  g_free (self->cell_id);
  g_free (self->code);
  g_free (self->reason);
  assay_cell_checks_free (self->checks);
  g_clear_pointer (&self->outputs, json_array_unref);
  if (self->stream_text != NULL)
    g_string_free (self->stream_text, TRUE);
  g_free (self->stream_name);
  g_clear_pointer (&self->artifacts, g_ptr_array_unref);

  G_OBJECT_CLASS (assay_cell_result_parent_class)->finalize (object);
}

static void
assay_cell_result_class_init (AssayCellResultClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_cell_result_finalize;
}

static void
assay_cell_result_init (AssayCellResult *self)
{
  self->outputs = json_array_new ();
  self->artifacts = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_artifact_free);
}

AssayCellResult *
assay_cell_result_new (const char *cell_id,
                       const char *code)
{
  AssayCellResult *self = g_object_new (ASSAY_TYPE_CELL_RESULT, NULL);

  self->cell_id = g_strdup (cell_id);
  self->code = g_strdup (code);
  return self;
}

const char *
assay_cell_result_get_cell_id (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), NULL);
  return self->cell_id;
}

const char *
assay_cell_result_get_code (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), NULL);
  return self->code;
}

AssayCellStatus
assay_cell_result_get_status (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), ASSAY_CELL_CRASHED);
  return self->status;
}

void
assay_cell_result_set_status (AssayCellResult *self,
                              AssayCellStatus  status,
                              const char      *reason)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));

  self->status = status;
  g_free (self->reason);
  self->reason = g_strdup (reason);
}

const char *
assay_cell_result_get_reason (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), NULL);
  return self->reason;
}

JsonArray *
assay_cell_result_get_outputs (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), NULL);
  assay_cell_result_flush_stream (self);
  return self->outputs;
}

void
assay_cell_result_add_output (AssayCellResult *self,
                              JsonObject      *output)
{
  g_autoptr(AssayCellOutput) read = NULL;

  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));

  read = assay_cell_output_read_object (output);
  if (read->kind == ASSAY_CELL_OUTPUT_STREAM)
    {
      const char *name = read->is_stderr ? "stderr" : "stdout";
      const char *text = read->text;

      if (self->stream_text != NULL &&
          (!g_str_equal (self->stream_name, name) || self->stream_text->len >= STREAM_JOIN_BYTES))
        assay_cell_result_flush_stream (self);
      if (self->stream_text == NULL)
        {
          self->stream_text = g_string_new (NULL);
          self->stream_name = g_strdup (name);
        }
      g_string_append (self->stream_text, text);
      return;
    }
  assay_cell_result_flush_stream (self);
  json_array_add_object_element (self->outputs, json_object_ref (output));
}

GPtrArray *
assay_cell_result_get_artifacts (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), NULL);
  return self->artifacts;
}

void
assay_cell_result_add_artifact (AssayCellResult *self,
                                AssayArtifact   *artifact)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  g_ptr_array_add (self->artifacts, artifact);
}

gint64
assay_cell_result_get_elapsed_ms (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), 0);
  return self->elapsed_ms;
}

void
assay_cell_result_set_elapsed_ms (AssayCellResult *self,
                                  gint64           elapsed_ms)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  self->elapsed_ms = elapsed_ms;
}

gint64
assay_cell_result_get_elapsed_us (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), 0);
  return self->elapsed_us;
}

void
assay_cell_result_set_elapsed_us (AssayCellResult *self,
                                  gint64           elapsed_us)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  self->elapsed_us = elapsed_us;
  self->elapsed_ms = elapsed_us / 1000;
}

gint64
assay_cell_result_get_code_us (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), 0);
  return self->code_us;
}

void
assay_cell_result_set_code_us (AssayCellResult *self,
                               gint64           code_us)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  self->code_us = MAX (code_us, 0);
}

const AssayCellChecks *
assay_cell_result_get_checks (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), NULL);
  return self->checks;
}

void
assay_cell_result_set_checks (AssayCellResult *self,
                              AssayCellChecks *checks)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  assay_cell_checks_free (self->checks);
  self->checks = checks;
}

guint
assay_cell_result_get_execution_count (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), 0);
  return self->execution_count;
}

void
assay_cell_result_set_execution_count (AssayCellResult *self,
                                       guint            count)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  self->execution_count = count;
}

gboolean
assay_cell_result_get_state_lost (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), FALSE);
  return self->state_lost;
}

void
assay_cell_result_set_state_lost (AssayCellResult *self,
                                  gboolean         state_lost)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  self->state_lost = !!state_lost;
}

guint
assay_cell_result_get_replayed (AssayCellResult *self)
{
  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), 0);
  return self->replayed;
}

void
assay_cell_result_set_replayed (AssayCellResult *self,
                                guint            replayed)
{
  g_return_if_fail (ASSAY_IS_CELL_RESULT (self));
  self->replayed = replayed;
}

JsonObject *
assay_cell_result_to_json (AssayCellResult *self)
{
  JsonObject *object;
  JsonArray *artifacts;

  g_return_val_if_fail (ASSAY_IS_CELL_RESULT (self), NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "id", self->cell_id);
  json_object_set_string_member (object, "status", assay_cell_status_to_string (self->status));
  if (self->status != ASSAY_CELL_OK)
    json_object_set_string_member (object, "reason", self->reason ? self->reason : "");
  assay_cell_result_flush_stream (self);
  json_object_set_array_member (object, "outputs", json_array_ref (self->outputs));

  artifacts = json_array_new ();
  for (guint i = 0; i < self->artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (self->artifacts, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", artifact->name);
      json_object_set_string_member (item, "path", artifact->path);
      json_object_set_int_member (item, "bytes", artifact->bytes);
      json_object_set_string_member (item, "mime", artifact->mime);
      if (artifact->truncated)
        json_object_set_boolean_member (item, "truncated", TRUE);
      json_array_add_object_element (artifacts, item);
    }
  json_object_set_array_member (object, "artifacts", artifacts);
  json_object_set_int_member (object, "elapsed_ms", self->elapsed_ms);
  json_object_set_int_member (object, "code_ms", self->code_us / 1000);
  json_object_set_int_member (object, "execution_count", self->execution_count);
  if (self->checks != NULL)
    json_object_set_member (object, "checks", assay_cell_checks_to_json (self->checks));
  if (self->state_lost)
    json_object_set_boolean_member (object, "state_lost", TRUE);
  if (self->replayed > 0)
    json_object_set_int_member (object, "replayed_cells", self->replayed);

  return object;
}
