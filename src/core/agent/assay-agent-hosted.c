/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Runs on OpenAI" (assay_agent_new_hosted): no kernel here; the model runs its code with the
 * Responses API's code_interpreter tool in an OpenAI container. Before a question the
 * container is made and the datasets it lacks uploaded; each code_interpreter_call of a turn
 * becomes a cell run on OpenAI (never approved), its logs the cell's output, its images and
 * the files the answer cites fetched into the artifacts, in workers. The loop itself is
 * assay-agent.c's. */
#define G_LOG_DOMAIN "Assay-Agent"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>

#include "assay-agent-state.h"
#include "assay-json.h"
#include "assay-openai-container.h"

/* The Responses API says an expired container in words ("Container is expired", a 404 of the
 * container) with a 400 or 404. */
gboolean
assay_agent_hosted_is_expiry (const GError *error)
{
  g_autofree char *lower = NULL;

  if (error == NULL)
    return FALSE;
  if (g_error_matches (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_EXPIRED))
    return TRUE;
  if (error->domain != ASSAY_LLM_ERROR ||
      (error->code != ASSAY_LLM_ERROR_BAD_REQUEST && error->code != ASSAY_LLM_ERROR_NOT_FOUND))
    return FALSE;
  lower = g_ascii_strdown (error->message, -1);
  return strstr (lower, "container") != NULL &&
         (strstr (lower, "expired") != NULL || strstr (lower, "not found") != NULL);
}

/* Writes DATA into DIR, the session's artifacts, under NAME (made safe, never over a file
 * there, never through a link); the artifact, or NULL with ERROR. Runs in a worker. */
static AssayArtifact *
assay_agent_hosted_store (const char  *dir,
                          const char  *name,
                          const char  *fallback,
                          GBytes      *data,
                          GError     **error)
{
  g_autofree char *safe = assay_openai_container_safe_name (name, fallback);
  g_autofree char *path = NULL;
  g_autofree char *stored_name = NULL;
  g_autofree char *type = NULL;
  gsize len = 0;
  const guint8 *bytes = g_bytes_get_data (data, &len);
  AssayArtifact *artifact;
  int fd = -1;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("The session's artifacts folder cannot be made: %s"), g_strerror (saved));
      return NULL;
    }
  for (guint n = 1; n < 1000 && fd < 0; n++)
    {
      g_free (stored_name);
      if (n == 1)
        stored_name = g_strdup (safe);
      else
        {
          const char *dot = strrchr (safe, '.');

          stored_name = dot != NULL && dot != safe
                        ? g_strdup_printf ("%.*s-%u%s", (int) (dot - safe), safe, n, dot)
                        : g_strdup_printf ("%s-%u", safe, n);
        }
      g_free (path);
      path = g_build_filename (dir, stored_name, NULL);
      fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("The file %s cannot be written in the session's artifacts: %s"), safe, g_strerror (saved));
      return NULL;
    }
  for (gsize done = 0; done < len;)
    {
      gssize n = write (fd, bytes + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;

          close (fd);
          g_unlink (path);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("The file %s cannot be written in the session's artifacts: %s"), safe, g_strerror (saved));
          return NULL;
        }
      done += (gsize) n;
    }
  close (fd);

  type = g_content_type_guess (stored_name, bytes, MIN (len, 4096), NULL);
  artifact = g_new0 (AssayArtifact, 1);
  artifact->name = g_steal_pointer (&stored_name);
  artifact->path = g_steal_pointer (&path);
  artifact->bytes = len;
  artifact->mime = g_content_type_get_mime_type (type);
  return artifact;
}

/* An image output's bytes: a data: URL, or a file of the container named by its content URL.
 * Any other URL is not followed (the key would go with it). Runs in a worker. */
static GBytes *
assay_agent_hosted_fetch_image (AssayOpenaiContainer  *container,
                                const char            *url,
                                const char            *container_id,
                                GCancellable          *cancellable,
                                GError               **error)
{
  const char *files;

  if (g_str_has_prefix (url, "data:image/"))
    {
      const char *comma = strchr (url, ',');
      gsize len = 0;
      guchar *decoded;

      if (comma == NULL || strstr (url, ";base64,") == NULL ||
          strlen (comma + 1) > (gsize) ASSAY_OPENAI_CONTAINER_MAX_FILE / 3 * 4 + 4)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("The image is not a base64 data URL Assay takes"));
          return NULL;
        }
      decoded = g_base64_decode (comma + 1, &len);
      return g_bytes_new_take (decoded, len);
    }
  files = strstr (url, "/files/");
  if (files != NULL && g_str_has_suffix (url, "/content"))
    {
      g_autofree char *file_id = g_strndup (files + strlen ("/files/"),
                                            strlen (files) - strlen ("/files/") - strlen ("/content"));

      if (file_id[0] != '\0' && strchr (file_id, '/') == NULL)
        return assay_openai_container_download (container, container_id, file_id,
                                                ASSAY_OPENAI_CONTAINER_MAX_FILE, cancellable, error);
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("The image's address is not one of OpenAI's container files; it was not fetched"));
  return NULL;
}

static void
assay_agent_hosted_note (AssayCellResult *result,
                         const char      *text)
{
  g_autoptr(JsonObject) output = json_object_new ();
  g_autofree char *line = g_strconcat (text, "\n", NULL);

  json_object_set_string_member (output, "output_type", "stream");
  json_object_set_string_member (output, "name", "stderr");
  json_object_set_string_member (output, "text", line);
  assay_cell_result_add_output (result, output);
}

/* One file to bring back from the container: an image output, or a file the answer cites. */
typedef struct
{
  guint          cell;          /* its cell, by position in the turn */
  gboolean       citation;
  char          *url;           /* an image's */
  char          *file_id;       /* a citation's */
  char          *container_id;
  char          *name;          /* as the server named it; may be NULL */
  char          *fallback;
  AssayArtifact *artifact;      /* what was stored, or */
  char          *problem;       /* why not */
} HostedFetch;

static void
hosted_fetch_free (HostedFetch *fetch)
{
  g_free (fetch->url);
  g_free (fetch->file_id);
  g_free (fetch->container_id);
  g_free (fetch->name);
  g_free (fetch->fallback);
  g_clear_pointer (&fetch->artifact, assay_artifact_free);
  g_free (fetch->problem);
  g_free (fetch);
}

/* A turn whose code ran on OpenAI, between its stream and its record. */
typedef struct
{
  AssayLlmResponse     *response;
  GPtrArray            *cells;       /* AssaySessionCell*, the session's */
  GPtrArray            *results;     /* AssayCellResult*, by cell */
  AssayLlmMessage      *calls;       /* the assistant message with the calls */
  GPtrArray            *tool_messages;
  GPtrArray            *fetches;     /* HostedFetch* */
  AssayOpenaiContainer *container;
  char                 *artifact_dir;
} Hosted;

static void
hosted_free (Hosted *hosted)
{
  assay_llm_response_free (hosted->response);
  g_ptr_array_unref (hosted->cells);
  g_ptr_array_unref (hosted->results);
  g_clear_pointer (&hosted->calls, assay_llm_message_free);
  g_ptr_array_unref (hosted->tool_messages);
  g_ptr_array_unref (hosted->fetches);
  assay_openai_container_unref (hosted->container);
  g_free (hosted->artifact_dir);
  g_free (hosted);
}

/* The worker: every file fetched and stored, or the reason it was not. */
static void
assay_agent_hosted_fetch_thread (GTask        *task,
                                 gpointer      source,
                                 gpointer      task_data,
                                 GCancellable *cancellable)
{
  Hosted *hosted = task_data;

  for (guint i = 0; i < hosted->fetches->len; i++)
    {
      HostedFetch *fetch = g_ptr_array_index (hosted->fetches, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) data = NULL;

      if (fetch->citation)
        data = assay_openai_container_download (hosted->container, fetch->container_id, fetch->file_id,
                                                ASSAY_OPENAI_CONTAINER_MAX_FILE, cancellable, &error);
      else if (fetch->url != NULL)
        data = assay_agent_hosted_fetch_image (hosted->container, fetch->url, fetch->container_id,
                                               cancellable, &error);
      else
        g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("it had no address"));
      if (data != NULL)
        fetch->artifact = assay_agent_hosted_store (hosted->artifact_dir, fetch->name, fetch->fallback, data, &error);
      if (fetch->artifact == NULL)
        fetch->problem = g_strdup (error != NULL ? error->message : "?");
    }
  g_task_return_boolean (task, TRUE);
}

/* Back on the caller's thread: the files into their cells, the cells recorded, the calls and
 * their logs into the conversation as a finished step; then the answer, as any turn's. */
static void
assay_agent_hosted_fetched_cb (GObject      *source,
                               GAsyncResult *res,
                               gpointer      user_data)
{
  g_autoptr(AssayAgent) self = ASSAY_AGENT (source);
  Hosted *hosted = g_task_get_task_data (G_TASK (res));
  AssayLlmResponse *response;

  for (guint i = 0; i < hosted->fetches->len; i++)
    {
      HostedFetch *fetch = g_ptr_array_index (hosted->fetches, i);
      AssayCellResult *result = g_ptr_array_index (hosted->results, fetch->cell);

      if (fetch->artifact == NULL)
        {
          g_autofree char *shown = assay_openai_container_safe_name (fetch->name, fetch->fallback);
          g_autofree char *note = fetch->citation
            ? g_strdup_printf (_("Assay did not bring back the cited file %s: %s"), shown, fetch->problem)
            : g_strdup_printf (_("Assay did not bring back an image of this cell: %s"), fetch->problem);

          assay_agent_hosted_note (result, note);
          if (fetch->citation)
            g_signal_emit (self, assay_agent_signals[ERROR], 0, note);
          continue;
        }
      if (!fetch->citation)
        {
          g_autoptr(JsonObject) display = json_object_new ();
          JsonObject *bundle = json_object_new ();

          json_object_set_string_member (bundle, "text/plain", fetch->artifact->name);
          json_object_set_string_member (display, "output_type", "display_data");
          json_object_set_object_member (display, "data", bundle);
          json_object_set_object_member (display, "metadata", json_object_new ());
          assay_cell_result_add_output (result, display);
        }
      assay_cell_result_add_artifact (result, g_steal_pointer (&fetch->artifact));
    }

  for (guint i = 0; i < hosted->cells->len; i++)
    {
      AssaySessionCell *cell = g_ptr_array_index (hosted->cells, i);
      AssayCellResult *result = g_ptr_array_index (hosted->results, i);
      GPtrArray *artifacts = assay_cell_result_get_artifacts (result);

      assay_session_record_result (self->session, cell, result);
      for (guint j = 0; j < artifacts->len; j++)
        {
          AssayArtifact *artifact = g_ptr_array_index (artifacts, j);

          g_signal_emit (self, assay_agent_signals[ARTIFACT_ADDED], 0, cell->id, artifact->name, artifact->path);
        }
      g_signal_emit (self, assay_agent_signals[CELL_FINISHED], 0, cell->id, result);
    }

  /* The calls and their results are a finished step; the answer is the next. */
  assay_session_append_message (self->session, g_steal_pointer (&hosted->calls));
  for (guint i = 0; i < hosted->tool_messages->len; i++)
    assay_session_append_message (self->session,
                                  assay_llm_message_copy (g_ptr_array_index (hosted->tool_messages, i)));
  assay_agent_finish_step (self);
  assay_agent_save (self);
  self->timing.step = assay_session_get_n_steps (self->session) + 1;
  self->step_started_at = g_get_monotonic_time ();

  if (self->task == NULL)
    return;
  if (self->cancellable != NULL && g_cancellable_is_cancelled (self->cancellable))
    {
      assay_agent_finish (self, ASSAY_AGENT_CANCELLED,
                          _("The analyst cancelled the question while its files came back from OpenAI."));
      return;
    }
  response = g_steal_pointer (&hosted->response);
  assay_agent_handle_response (self, response, NULL);
  assay_llm_response_free (response);
}

/* Each code_interpreter_call of RESPONSE (taken) becomes a cell of a step of its own (run on
 * OpenAI, never approved), its logs a stream output; its images and the files the answer
 * cites are fetched in a worker into the session's artifacts. In the conversation: an
 * assistant message with the calls and their logs as results, so the next request sends
 * them back. */
void
assay_agent_record_hosted_async (AssayAgent       *self,
                                 AssayLlmResponse *response)
{
  g_autoptr(GTask) task = NULL;
  Hosted *hosted = g_new0 (Hosted, 1);
  guint n = json_array_get_length (response->hosted_calls);
  guint step = assay_session_get_n_steps (self->session) + 1;

  hosted->response = response;
  hosted->cells = g_ptr_array_new ();
  hosted->results = g_ptr_array_new_with_free_func (g_object_unref);
  hosted->calls = assay_llm_message_new_assistant ("");
  hosted->calls->reasoning = g_strdup (response->reasoning);
  hosted->tool_messages = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_message_free);
  hosted->fetches = g_ptr_array_new_with_free_func ((GDestroyNotify) hosted_fetch_free);
  hosted->container = assay_openai_container_ref (self->container);
  hosted->artifact_dir = assay_session_get_artifact_dir (self->session);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (response->hosted_calls, i);
      JsonObject *item = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *id = assay_json_get_string (item, "id");
      const char *code = assay_json_get_string (item, "code");
      const char *status = assay_json_get_string (item, "status");
      const char *container_id = assay_json_get_string (item, "container_id");
      JsonArray *outputs = assay_json_get_array (item, "outputs");
      g_autofree char *cell_id = NULL;
      g_autofree char *arguments = NULL;
      g_autofree char *reason = NULL;
      AssayCellResult *result;
      g_autoptr(GString) logs = g_string_new (NULL);
      g_autoptr(JsonObject) args = json_object_new ();
      g_autoptr(JsonNode) args_node = NULL;
      AssaySessionCell *cell;
      AssayCellStatus cell_status;
      guint n_images = 0;

      if (id == NULL || !g_utf8_validate (id, -1, NULL) || strlen (id) > 256)
        continue;
      if (code == NULL || !g_utf8_validate (code, -1, NULL))
        code = "";
      if (container_id == NULL || !g_str_is_ascii (container_id) || strlen (container_id) > 128)
        container_id = assay_openai_container_get_id (self->container);

      cell_id = assay_session_next_cell_id (self->session);
      cell = assay_session_add_cell (self->session,
                                     assay_session_cell_new (cell_id, step, id,
                                                             _("Ran on OpenAI's hosted code interpreter"), code));
      cell->decision = ASSAY_DECISION_HOSTED;
      cell->code = g_strdup (code);
      cell->started_at = g_get_real_time ();
      g_signal_emit (self, assay_agent_signals[CELL_STARTED], 0, cell->id, code);

      cell_status = g_strcmp0 (status, "completed") == 0 ? ASSAY_CELL_OK
                    : g_strcmp0 (status, "failed") == 0 ? ASSAY_CELL_ERROR
                    : ASSAY_CELL_SANDBOX_ERROR;
      result = assay_cell_result_new (cell->id, code);
      if (cell_status != ASSAY_CELL_OK)
        {
          g_autofree char *shown = assay_openai_container_safe_name (status != NULL && strlen (status) < 64
                                                                     ? status : NULL, "?");

          reason = g_strdup_printf (_("OpenAI's code interpreter ended the call as “%s”"), shown);
        }
      assay_cell_result_set_status (result, cell_status, reason);
      for (guint j = 0; outputs != NULL && j < json_array_get_length (outputs); j++)
        {
          JsonNode *output_node = json_array_get_element (outputs, j);
          JsonObject *output = JSON_NODE_HOLDS_OBJECT (output_node) ? json_node_get_object (output_node) : NULL;
          const char *type = assay_json_get_string (output, "type");

          if (g_strcmp0 (type, "logs") == 0)
            {
              const char *text = assay_json_get_string (output, "logs");
              g_autoptr(JsonObject) stream = json_object_new ();
              g_autofree char *valid = NULL;

              if (text == NULL)
                continue;
              valid = g_utf8_make_valid (text, -1);
              g_string_append (logs, valid);
              json_object_set_string_member (stream, "output_type", "stream");
              json_object_set_string_member (stream, "name", "stdout");
              json_object_set_string_member (stream, "text", valid);
              assay_cell_result_add_output (result, stream);
              g_signal_emit (self, assay_agent_signals[OUTPUT], 0, cell->id, stream);
            }
          else if (g_strcmp0 (type, "image") == 0)
            {
              HostedFetch *fetch = g_new0 (HostedFetch, 1);

              fetch->cell = hosted->cells->len;
              fetch->url = g_strdup (assay_json_get_string (output, "url"));
              fetch->container_id = g_strdup (container_id);
              fetch->fallback = g_strdup_printf ("%s-image-%u.png", cell->id, ++n_images);
              fetch->name = g_strdup (fetch->fallback);
              g_ptr_array_add (hosted->fetches, fetch);
            }
        }

      json_object_set_string_member (args, "code", code);
      json_object_set_string_member (args, "container_id", container_id != NULL ? container_id : "");
      args_node = json_node_init_object (json_node_alloc (), args);
      arguments = json_to_string (args_node, FALSE);
      g_ptr_array_add (hosted->calls->tool_calls, assay_llm_tool_call_new (id, ASSAY_LLM_HOSTED_TOOL_NAME, arguments));
      g_ptr_array_add (hosted->tool_messages, assay_llm_message_new_tool (id, logs->str, cell_status != ASSAY_CELL_OK));
      g_ptr_array_add (hosted->cells, cell);
      g_ptr_array_add (hosted->results, result);
    }

  /* The files the answer cites, into the last cell's artifacts. */
  for (guint i = 0; hosted->cells->len > 0 && response->citations != NULL &&
                    i < json_array_get_length (response->citations); i++)
    {
      JsonObject *citation = json_array_get_object_element (response->citations, i);
      const char *file_id = assay_json_get_string (citation, "file_id");
      const char *container_id = assay_json_get_string (citation, "container_id");
      const char *filename = assay_json_get_string (citation, "filename");
      AssaySessionCell *last = g_ptr_array_index (hosted->cells, hosted->cells->len - 1);
      HostedFetch *fetch;

      if (file_id == NULL || !g_str_is_ascii (file_id) || strlen (file_id) > 128)
        continue;
      if (container_id != NULL && (!g_str_is_ascii (container_id) || strlen (container_id) > 128))
        container_id = NULL;
      fetch = g_new0 (HostedFetch, 1);
      fetch->cell = hosted->cells->len - 1;
      fetch->citation = TRUE;
      fetch->file_id = g_strdup (file_id);
      fetch->container_id = g_strdup (container_id);
      fetch->name = g_strdup (filename);
      fetch->fallback = g_strdup_printf ("%s-file-%u", last->id, i + 1);
      g_ptr_array_add (hosted->fetches, fetch);
    }

  if (hosted->cells->len == 0)
    {
      /* No call could be read: the turn is an answer like any other. */
      hosted->response = NULL;
      hosted_free (hosted);
      assay_agent_handle_response (self, response, NULL);
      assay_llm_response_free (response);
      return;
    }
  assay_agent_save (self);
  task = g_task_new (g_object_ref (self), self->cancellable, assay_agent_hosted_fetched_cb, NULL);
  g_task_set_source_tag (task, assay_agent_record_hosted_async);
  g_task_set_task_data (task, hosted, (GDestroyNotify) hosted_free);
  g_task_run_in_thread (task, assay_agent_hosted_fetch_thread);
}

/* Before a question: a container when there is none (the first question, or the one before
 * expired), the session's datasets uploaded into it; in a worker. */
typedef struct
{
  AssayOpenaiContainer *container;
  char                 *name;
  gboolean              create;  /* a new container, or more datasets for the one there is */
  GPtrArray            *paths;   /* char*: the datasets' copies in the session, */
  GPtrArray            *names;   /* and their names */
} HostedPrepare;

static void
hosted_prepare_free (HostedPrepare *prepare)
{
  assay_openai_container_unref (prepare->container);
  g_free (prepare->name);
  g_ptr_array_unref (prepare->paths);
  g_ptr_array_unref (prepare->names);
  g_free (prepare);
}

static void
assay_agent_hosted_prepare_thread (GTask        *task,
                                   gpointer      source,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  HostedPrepare *prepare = task_data;
  GError *error = NULL;

  if (prepare->create && !assay_openai_container_create (prepare->container, prepare->name, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < prepare->paths->len; i++)
    {
      const char *path = g_ptr_array_index (prepare->paths, i);
      const char *name = g_ptr_array_index (prepare->names, i);
      g_autoptr(GError) upload_error = NULL;

      if (path == NULL ||
          !assay_openai_container_upload (prepare->container, path, name, NULL, cancellable, &upload_error))
        {
          g_task_return_new_error (task, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_FAILED,
                                   _("The dataset %s could not be uploaded to OpenAI's container: %s"), name,
                                   upload_error != NULL ? upload_error->message
                                                        : _("its copy leads out of the session folder"));
          return;
        }
    }
  g_task_return_boolean (task, TRUE);
}

static void
assay_agent_hosted_prepared_cb (GObject      *source,
                                GAsyncResult *res,
                                gpointer      user_data)
{
  g_autoptr(AssayAgent) self = ASSAY_AGENT (source);
  g_autoptr(GError) error = NULL;
  g_autofree char *where = NULL;
  HostedPrepare *prepare = g_task_get_task_data (G_TASK (res));

  if (!g_task_propagate_boolean (G_TASK (res), &error))
    {
      g_autofree char *text = NULL;

      /* The next question tries again from a new container. */
      self->container_lost = TRUE;
      if (self->task == NULL)
        return;
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          assay_agent_finish (self, ASSAY_AGENT_CANCELLED,
                              _("The analyst cancelled the question while OpenAI's container was made."));
          return;
        }
      text = g_strdup_printf (_("The question was not sent: %s"), error->message);
      assay_agent_finish (self, ASSAY_AGENT_SANDBOX_ERROR, text);
      return;
    }
  self->container_lost = FALSE;
  for (guint i = 0; i < prepare->names->len; i++)
    g_hash_table_add (self->uploaded, g_strdup (g_ptr_array_index (prepare->names, i)));
  where = g_strdup_printf (_("OpenAI's hosted code interpreter (container %s)"),
                           assay_openai_container_get_id (self->container));
  assay_session_set_sandbox (self->session, "openai-hosted", where);
  if (self->task == NULL)
    return;
  assay_agent_save (self);
  assay_agent_start_step (self);
}

void
assay_agent_hosted_prepare_async (AssayAgent *self)
{
  GPtrArray *datasets = assay_session_get_datasets (self->session);
  HostedPrepare *prepare;
  g_autoptr(GTask) task = NULL;
  gboolean create = assay_openai_container_get_id (self->container) == NULL || self->container_lost;

  if (create)
    {
      self->state_lost = self->state_lost || self->container_lost;
      g_hash_table_remove_all (self->uploaded);
    }
  prepare = g_new0 (HostedPrepare, 1);
  prepare->container = assay_openai_container_ref (self->container);
  prepare->name = g_strdup_printf ("assay-%s", assay_session_get_id (self->session));
  prepare->create = create;
  prepare->paths = g_ptr_array_new_with_free_func (g_free);
  prepare->names = g_ptr_array_new_with_free_func (g_free);
  /* Every dataset the container lacks: all of them in a new one, and those the analyst added
   * since the last question. */
  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);

      if (g_hash_table_contains (self->uploaded, dataset->name))
        continue;
      g_ptr_array_add (prepare->paths, assay_session_resolve (self->session, dataset->path));
      g_ptr_array_add (prepare->names, g_strdup (dataset->name));
    }
  if (!create && prepare->names->len == 0)
    {
      hosted_prepare_free (prepare);
      assay_agent_save (self);
      assay_agent_start_step (self);
      return;
    }
  assay_agent_save (self);
  task = g_task_new (g_object_ref (self), self->cancellable, assay_agent_hosted_prepared_cb, NULL);
  g_task_set_source_tag (task, assay_agent_hosted_prepare_async);
  g_task_set_task_data (task, prepare, (GDestroyNotify) hosted_prepare_free);
  g_task_run_in_thread (task, assay_agent_hosted_prepare_thread);
}

