/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "assay-docker-archive.h"
#include "assay-docker-demux.h"
#include "assay-docker-instance.h"
#include "assay-json.h"
#include "assay-sandbox-backend.h"

#define STDERR_TAIL_BYTES (64 * 1024)
/* The kernel's exit code when its worker was killed by the OOM killer (PROTOCOL.md). */
#define KERNEL_EXIT_OUT_OF_MEMORY 4

/* The kernel's stdout: the attach connection, demultiplexed. stderr frames are
 * kept as a bounded tail for diagnostics, stdin echo frames are dropped. */
#define ASSAY_TYPE_DOCKER_STDOUT_STREAM (assay_docker_stdout_stream_get_type ())

G_DECLARE_FINAL_TYPE (AssayDockerStdoutStream,
                      assay_docker_stdout_stream,
                      ASSAY,
                      DOCKER_STDOUT_STREAM,
                      GInputStream)

struct _AssayDockerStdoutStream
{
  GInputStream      parent_instance;

  /* Keeps the socket open while the stream lives. */
  GIOStream        *connection;
  GInputStream     *base;
  AssayDockerDemux  demux;

  GMutex            stderr_mutex;
  GByteArray       *stderr_tail;
};

G_DEFINE_FINAL_TYPE (AssayDockerStdoutStream, assay_docker_stdout_stream, G_TYPE_INPUT_STREAM)

typedef struct
{
  AssayDockerStdoutStream *stream;
  guint8                  *out;
  gsize                    out_len;
} DemuxTarget;

static void
assay_docker_stdout_stream_append_stderr (AssayDockerStdoutStream *self,
                                          const guint8            *data,
                                          gsize                    len)
{
  g_mutex_lock (&self->stderr_mutex);

  if (len >= STDERR_TAIL_BYTES)
    {
      g_byte_array_set_size (self->stderr_tail, 0);
      g_byte_array_append (self->stderr_tail, data + len - STDERR_TAIL_BYTES, STDERR_TAIL_BYTES);
    }
  else
    {
      g_byte_array_append (self->stderr_tail, data, len);
      /* Trimmed in batches so that a chatty stderr does not memmove per frame. */
      if (self->stderr_tail->len >= 2 * STDERR_TAIL_BYTES)
        g_byte_array_remove_range (self->stderr_tail, 0,
                                   self->stderr_tail->len - STDERR_TAIL_BYTES);
    }

  g_mutex_unlock (&self->stderr_mutex);
}

static void
assay_docker_instance_demux_payload_cb (int           stream,
                                        const guint8 *payload,
                                        gsize         len,
                                        gpointer      user_data)
{
  DemuxTarget *target = user_data;

  switch (stream)
    {
    case ASSAY_DOCKER_STREAM_STDOUT:
      /* Payload is compacted in place: it never lies before what was written,
       * since headers only ever shrink the data. */
      memmove (target->out + target->out_len, payload, len);
      target->out_len += len;
      break;

    case ASSAY_DOCKER_STREAM_STDERR:
      assay_docker_stdout_stream_append_stderr (target->stream, payload, len);
      break;

    default:
      break;
    }
}

static gssize
assay_docker_stdout_stream_read (GInputStream  *stream,
                                 void          *buffer,
                                 gsize          count,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  AssayDockerStdoutStream *self = ASSAY_DOCKER_STDOUT_STREAM (stream);

  if (count == 0)
    return 0;

  /* The caller's buffer doubles as the read buffer: frames are read into it and
   * the stdout payload is moved to its front. */
  for (;;)
    {
      DemuxTarget target = { self, buffer, 0 };
      gssize n;

      n = g_input_stream_read (self->base, buffer, count, cancellable, error);
      if (n < 0)
        return -1;

      if (n == 0)
        {
          if (!assay_docker_demux_is_idle (&self->demux))
            {
              g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT,
                                   "The sandbox's output ended in the middle of a frame");
              return -1;
            }

          return 0;
        }

      if (!assay_docker_demux_feed (&self->demux,
                                    buffer,
                                    n,
                                    assay_docker_instance_demux_payload_cb,
                                    &target,
                                    error))
        return -1;

      if (target.out_len > 0)
        return target.out_len;
    }
}

static gboolean
assay_docker_stdout_stream_close (GInputStream  *stream,
                                  GCancellable  *cancellable,
                                  GError       **error)
{
  /* The connection belongs to the instance, which shuts it down. */
  return TRUE;
}

static void
assay_docker_stdout_stream_finalize (GObject *object)
{
  AssayDockerStdoutStream *self = (AssayDockerStdoutStream *) object;

  g_clear_object (&self->base);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->stderr_tail, g_byte_array_unref);
  g_mutex_clear (&self->stderr_mutex);

  G_OBJECT_CLASS (assay_docker_stdout_stream_parent_class)->finalize (object);
}

static void
assay_docker_stdout_stream_class_init (AssayDockerStdoutStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *input_stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = assay_docker_stdout_stream_finalize;

  input_stream_class->read_fn = assay_docker_stdout_stream_read;
  input_stream_class->close_fn = assay_docker_stdout_stream_close;
}

static void
assay_docker_stdout_stream_init (AssayDockerStdoutStream *self)
{
  g_mutex_init (&self->stderr_mutex);
  self->stderr_tail = g_byte_array_new ();
  assay_docker_demux_init (&self->demux);
}

static AssayDockerStdoutStream *
assay_docker_stdout_stream_new (GIOStream *connection)
{
  AssayDockerStdoutStream *self = g_object_new (ASSAY_TYPE_DOCKER_STDOUT_STREAM, NULL);

  self->connection = g_object_ref (connection);
  self->base = g_object_ref (g_io_stream_get_input_stream (connection));

  return self;
}

static char *
assay_docker_stdout_stream_dup_stderr_tail (AssayDockerStdoutStream *self)
{
  char *tail = NULL;
  gsize start = 0;

  g_mutex_lock (&self->stderr_mutex);

  if (self->stderr_tail->len > STDERR_TAIL_BYTES)
    start = self->stderr_tail->len - STDERR_TAIL_BYTES;

  /* The cut may fall inside a UTF-8 sequence; make_valid repairs that. */
  if (self->stderr_tail->len > start)
    tail = g_utf8_make_valid ((const char *) self->stderr_tail->data + start,
                              self->stderr_tail->len - start);

  g_mutex_unlock (&self->stderr_mutex);

  return tail;
}


struct _AssayDockerInstance
{
  AssaySandboxInstance     parent_instance;

  AssayDockerClient       *client;
  char                    *container_id;
  GSocketConnection       *connection;
  AssayDockerStdoutStream *stdout_stream;

  /* Serialises destroy(); killed is read without it. */
  GMutex                   mutex;
  int                      killed;
  int                      kill_requested; /* set before a kill or a removal is sent */
  gboolean                 removed;
  guint64                  memory_bytes;   /* the container's memory limit */
  gboolean                 runs_kernel;    /* not a test's or benchmark's command */

  /* An engine elsewhere: /data is this volume, and files added to data_dir are sent. */
  char                    *data_volume;
  char                    *uploader;     /* the container that sends files into it, or NULL */
  char                    *image_ref;
  char                    *session_id;
  char                    *data_dir;
};

G_DEFINE_FINAL_TYPE (AssayDockerInstance, assay_docker_instance, ASSAY_TYPE_SANDBOX_INSTANCE)

static GOutputStream *
assay_docker_instance_get_stdin (AssaySandboxInstance *instance)
{
  AssayDockerInstance *self = ASSAY_DOCKER_INSTANCE (instance);

  return g_io_stream_get_output_stream (G_IO_STREAM (self->connection));
}

static GInputStream *
assay_docker_instance_get_stdout (AssaySandboxInstance *instance)
{
  AssayDockerInstance *self = ASSAY_DOCKER_INSTANCE (instance);

  return G_INPUT_STREAM (self->stdout_stream);
}

/* A sandbox at its memory limit with a fork bomb inside dies slowly: each of its hundreds of
 * processes must get out of memory reclaim to take its SIGKILL, on the CPU share the limit
 * leaves them (over a minute, measured). Loosened for the kill (all CPUs, twice the memory)
 * they are gone within a second. Nothing of the user code runs on: the kill follows at once. */
static void
assay_docker_instance_loosen_limits_for_kill (AssayDockerInstance *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *escaped = assay_docker_escape_path_segment (self->container_id);
  g_autofree char *path = g_strdup_printf ("/containers/%s/update", escaped);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "NanoCpus");
  json_builder_add_int_value (builder, (gint64) g_get_num_processors () * 1000000000);
  if (self->memory_bytes > 0 && self->memory_bytes < G_MAXINT64 / 2)
    {
      json_builder_set_member_name (builder, "Memory");
      json_builder_add_int_value (builder, (gint64) self->memory_bytes * 2);
      json_builder_set_member_name (builder, "MemorySwap");
      json_builder_add_int_value (builder, (gint64) self->memory_bytes * 2);
    }
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);
  node = assay_docker_client_request (self->client, "POST", path, body, NULL, NULL, &error);
  if (node == NULL)
    g_debug ("Cannot loosen the limits of %.12s before killing it: %s",
             self->container_id, error->message);
}

/* Whether the container still runs: FALSE once it has stopped or is gone, TRUE when it runs
 * or the engine cannot tell. */
static gboolean
assay_docker_instance_is_running (AssayDockerInstance *self)
{
  g_autofree char *escaped = assay_docker_escape_path_segment (self->container_id);
  g_autofree char *path = g_strdup_printf ("/containers/%s/json", escaped);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) inspected = NULL;
  JsonObject *state;

  inspected = assay_docker_client_request (self->client, "GET", path, NULL, NULL, NULL, &error);
  if (inspected == NULL)
    return !g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND);
  if (!JSON_NODE_HOLDS_OBJECT (inspected) ||
      (state = assay_json_get_object (json_node_get_object (inspected), "State")) == NULL)
    return TRUE;
  return assay_json_get_boolean_or (state, "Running", TRUE);
}

static void
assay_docker_instance_kill_container (AssayDockerInstance *self)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;

  if (g_atomic_int_get (&self->killed))
    return;

  g_atomic_int_set (&self->kill_requested, TRUE);
  assay_docker_instance_loosen_limits_for_kill (self);
  escaped = assay_docker_escape_path_segment (self->container_id);
  path = g_strdup_printf ("/containers/%s/kill?signal=SIGKILL", escaped);
  node = assay_docker_client_request (self->client, "POST", path, NULL, NULL, NULL, &error);

  /* 404: gone already; 409: not running. Both mean there is nothing to kill. Podman answers
   * 500 where Docker answers 409, saying "container state improper" (libpod's word for a
   * container that is not running: it stopped by itself meanwhile); else its state says. */
  if (node != NULL ||
      g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND) ||
      g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_CONFLICT) ||
      strstr (error->message, "container state improper") != NULL ||
      !assay_docker_instance_is_running (self))
    g_atomic_int_set (&self->killed, TRUE);
  else
    g_warning ("Cannot kill the sandbox container %.12s: %s", self->container_id, error->message);
}

static void
assay_docker_instance_kill_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  assay_docker_instance_kill_container (ASSAY_DOCKER_INSTANCE (source_object));
  g_task_return_boolean (task, TRUE);
}

/* The engine answers a kill once the container is gone, which may take a moment: the
 * caller (a timeout on the window's main thread, say) does not wait for it. The session
 * learns of the end from the attach stream. */
static void
assay_docker_instance_kill (AssaySandboxInstance *instance)
{
  g_autoptr(GTask) task = NULL;

  if (g_atomic_int_get (&ASSAY_DOCKER_INSTANCE (instance)->killed))
    return;
  task = g_task_new (instance, NULL, NULL, NULL);
  g_task_set_source_tag (task, assay_docker_instance_kill);
  g_task_run_in_thread (task, assay_docker_instance_kill_worker);
}

static JsonNode *
assay_docker_instance_get_member_of_type (JsonObject  *object,
                                          const char  *name,
                                          JsonNodeType type)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, name)) == NULL)
    return NULL;

  return JSON_NODE_TYPE (node) == type ? node : NULL;
}

static gboolean
assay_docker_instance_wait (AssaySandboxInstance  *instance,
                            AssaySandboxExit      *exit_out,
                            GCancellable          *cancellable,
                            GError               **error)
{
  AssayDockerInstance *self = ASSAY_DOCKER_INSTANCE (instance);
  g_autoptr(JsonNode) waited = NULL;
  g_autoptr(JsonNode) inspected = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  JsonObject *state = NULL;
  JsonNode *oom;
  gint64 code = -1;

  exit_out->exited = FALSE;
  exit_out->exit_code = -1;
  exit_out->signal = 0;
  exit_out->oom_killed = FALSE;

  escaped = assay_docker_escape_path_segment (self->container_id);
  path = g_strdup_printf ("/containers/%s/wait?condition=not-running", escaped);
  waited = assay_docker_client_request (self->client, "POST", path, NULL, NULL, cancellable, error);
  if (waited == NULL)
    return FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (waited) ||
      !assay_json_get_int (json_node_get_object (waited), "StatusCode", &code))
    {
      g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                   "The Docker daemon sent an unexpected answer while waiting for container %.12s",
                   self->container_id);
      return FALSE;
    }

  /* The wait answer has no OOM flag; the container's state has. If the
   * container is gone in between, we only know the code. */
  g_free (path);
  path = g_strdup_printf ("/containers/%s/json", escaped);
  inspected = assay_docker_client_request (self->client, "GET", path, NULL, NULL, cancellable, NULL);
  if (inspected != NULL && JSON_NODE_HOLDS_OBJECT (inspected))
    {
      JsonNode *state_node = assay_docker_instance_get_member_of_type (json_node_get_object (inspected), "State",
                                                                       JSON_NODE_OBJECT);

      if (state_node != NULL)
        state = json_node_get_object (state_node);
    }

  if (state != NULL)
    {
      assay_json_get_int (state, "ExitCode", &code);

      oom = assay_docker_instance_get_member_of_type (state, "OOMKilled", JSON_NODE_VALUE);
      if (oom != NULL && json_node_get_value_type (oom) == G_TYPE_BOOLEAN)
        exit_out->oom_killed = json_node_get_boolean (oom);
    }

  /* Podman 4.3 on cgroup v1 never sets OOMKilled. The kernel says so by its exit code when the
   * OOM killer took its worker; and a PID 1 dead of SIGKILL that Assay did not kill can only
   * have been killed by the OOM killer (signals from inside its namespace cannot kill it). */
  if (!exit_out->oom_killed && self->runs_kernel && code == KERNEL_EXIT_OUT_OF_MEMORY)
    exit_out->oom_killed = TRUE;
  if (!exit_out->oom_killed && code == 128 + 9 && !g_atomic_int_get (&self->kill_requested) &&
      assay_docker_client_get_engine (self->client) == ASSAY_DOCKER_ENGINE_PODMAN)
    exit_out->oom_killed = TRUE;

  exit_out->exited = TRUE;

  /* docker-init (PID 1) and the shell convention report death by signal N as
   * 128 + N. */
  if (code > 128 && code <= 128 + 64)
    exit_out->signal = (int) (code - 128);
  else
    exit_out->exit_code = (int) CLAMP (code, G_MININT, G_MAXINT);

  return TRUE;
}

static void
assay_docker_instance_shutdown_streams (AssayDockerInstance *self)
{
  GSocket *socket = g_socket_connection_get_socket (self->connection);

  /* shutdown() rather than close(): it wakes a reader or a writer blocked in
   * another thread (end of file, EPIPE) without freeing the fd under it, and
   * it needs none of the stream's state, which belongs to the thread using
   * it. The fd is closed when the last reference to the connection goes. */
  g_socket_shutdown (socket, TRUE, TRUE, NULL);
}

static void
assay_docker_instance_destroy (AssaySandboxInstance *instance)
{
  AssayDockerInstance *self = ASSAY_DOCKER_INSTANCE (instance);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;

  g_mutex_lock (&self->mutex);

  if (!self->removed)
    {
      g_atomic_int_set (&self->kill_requested, TRUE);
      if (!g_atomic_int_get (&self->killed))
        assay_docker_instance_loosen_limits_for_kill (self);
      escaped = assay_docker_escape_path_segment (self->container_id);
      path = g_strdup_printf ("/containers/%s?force=1&v=1", escaped);
      node = assay_docker_client_request (self->client, "DELETE", path, NULL, NULL, NULL, &error);
      /* Docker and Podman may answer 500 to a forced removal of a container that is stopping at
       * that moment; once it has stopped, the removal goes through. */
      for (guint attempt = 0; attempt < 20 && node == NULL && assay_docker_error_is_stopping_race (error); attempt++)
        {
          g_clear_error (&error);
          g_usleep (50 * G_TIME_SPAN_MILLISECOND);
          node = assay_docker_client_request (self->client, "DELETE", path, NULL, NULL, NULL, &error);
        }

      /* 409 is "removal already in progress". */
      if (node != NULL ||
          g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND) ||
          g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_CONFLICT))
        {
          self->removed = TRUE;
          g_atomic_int_set (&self->killed, TRUE);
        }
      else
        g_warning ("Cannot remove the sandbox container %.12s: %s",
                   self->container_id, error->message);
      /* The uploader first: a volume still mounted in a container cannot be removed. */
      if (self->removed && self->uploader != NULL)
        assay_docker_instance_remove_uploader (self->client, self->uploader);
      g_clear_pointer (&self->uploader, g_free);
      if (self->removed && self->data_volume != NULL)
        assay_docker_instance_remove_volume (self->client, self->data_volume);

      assay_docker_instance_shutdown_streams (self);
    }

  g_mutex_unlock (&self->mutex);
}

static gboolean
assay_docker_instance_add_file (AssaySandboxInstance  *instance,
                                const char            *name,
                                GError               **error)
{
  AssayDockerInstance *self = ASSAY_DOCKER_INSTANCE (instance);
  const char *names[] = { name, NULL };

  gboolean ok;

  /* A local engine sees the folder itself. */
  if (self->data_volume == NULL)
    return TRUE;
  /* The uploader made at the launch, kept for this: one archive call, no container made. */
  g_mutex_lock (&self->mutex);
  if (self->uploader == NULL && !self->removed)
    self->uploader = assay_docker_instance_create_uploader (self->client, self->image_ref, self->session_id,
                                                            self->data_volume, NULL, error);
  ok = self->uploader != NULL &&
       assay_docker_instance_upload (self->client, self->uploader, self->data_dir, names, NULL, error);
  if (self->uploader == NULL && self->removed)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "The sandbox is gone");
  g_mutex_unlock (&self->mutex);
  return ok;
}

static char *
assay_docker_instance_dup_stderr_tail (AssaySandboxInstance *instance)
{
  AssayDockerInstance *self = ASSAY_DOCKER_INSTANCE (instance);

  return assay_docker_stdout_stream_dup_stderr_tail (self->stdout_stream);
}

static void
assay_docker_instance_dispose (GObject *object)
{
  AssayDockerInstance *self = (AssayDockerInstance *) object;

  /* Never leave a container behind, even when the owner forgot destroy(). */
  if (self->client != NULL && !self->removed)
    assay_docker_instance_destroy (ASSAY_SANDBOX_INSTANCE (self));

  g_clear_object (&self->stdout_stream);
  g_clear_object (&self->connection);
  g_clear_object (&self->client);

  G_OBJECT_CLASS (assay_docker_instance_parent_class)->dispose (object);
}

static void
assay_docker_instance_finalize (GObject *object)
{
  AssayDockerInstance *self = (AssayDockerInstance *) object;

  g_clear_pointer (&self->container_id, g_free);
  g_clear_pointer (&self->data_volume, g_free);
  g_clear_pointer (&self->uploader, g_free);
  g_clear_pointer (&self->image_ref, g_free);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->data_dir, g_free);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (assay_docker_instance_parent_class)->finalize (object);
}

static void
assay_docker_instance_class_init (AssayDockerInstanceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AssaySandboxInstanceClass *instance_class = ASSAY_SANDBOX_INSTANCE_CLASS (klass);

  object_class->dispose = assay_docker_instance_dispose;
  object_class->finalize = assay_docker_instance_finalize;

  instance_class->get_stdin = assay_docker_instance_get_stdin;
  instance_class->get_stdout = assay_docker_instance_get_stdout;
  instance_class->kill = assay_docker_instance_kill;
  instance_class->wait = assay_docker_instance_wait;
  instance_class->destroy = assay_docker_instance_destroy;
  instance_class->dup_stderr_tail = assay_docker_instance_dup_stderr_tail;
  instance_class->add_file = assay_docker_instance_add_file;
}

static void
assay_docker_instance_init (AssayDockerInstance *self)
{
  g_mutex_init (&self->mutex);
}

AssaySandboxInstance *
assay_docker_instance_new (AssayDockerClient *client,
                           const char        *container_id,
                           GSocketConnection *attach_connection,
                           guint64            memory_bytes,
                           gboolean           runs_kernel)
{
  AssayDockerInstance *self;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (client), NULL);
  g_return_val_if_fail (container_id != NULL && container_id[0] != '\0', NULL);
  g_return_val_if_fail (G_IS_SOCKET_CONNECTION (attach_connection), NULL);

  self = g_object_new (ASSAY_TYPE_DOCKER_INSTANCE, NULL);
  self->client = g_object_ref (client);
  self->container_id = g_strdup (container_id);
  self->memory_bytes = memory_bytes;
  self->runs_kernel = runs_kernel;
  self->connection = g_object_ref (attach_connection);
  self->stdout_stream = assay_docker_stdout_stream_new (G_IO_STREAM (attach_connection));

  return ASSAY_SANDBOX_INSTANCE (self);
}

void
assay_docker_instance_set_data_volume (AssayDockerInstance *self,
                                       const char          *volume,
                                       const char          *uploader,
                                       const char          *image_ref,
                                       const char          *session_id,
                                       const char          *data_dir)
{
  g_return_if_fail (ASSAY_IS_DOCKER_INSTANCE (self));

  g_free (self->uploader);
  self->uploader = g_strdup (uploader);
  g_free (self->data_volume);
  self->data_volume = g_strdup (volume);
  g_free (self->image_ref);
  self->image_ref = g_strdup (image_ref);
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  g_free (self->data_dir);
  self->data_dir = g_strdup (data_dir);
}

/* The labels of what this run creates: whose it is, so a crashed run's is found. */
static void
assay_docker_instance_add_labels (JsonBuilder *builder,
                                  const char  *session_id)
{
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *pid_start = assay_sandbox_read_process_start_time ("self");
  g_autofree char *uid = g_strdup_printf ("%u", (guint) getuid ());

  json_builder_set_member_name (builder, "Labels");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "assay.session");
  json_builder_add_string_value (builder, session_id);
  json_builder_set_member_name (builder, "assay.pid");
  json_builder_add_string_value (builder, pid);
  json_builder_set_member_name (builder, "assay.pid-start");
  json_builder_add_string_value (builder, pid_start != NULL ? pid_start : "");
  json_builder_set_member_name (builder, "assay.uid");
  json_builder_add_string_value (builder, uid);
  json_builder_end_object (builder);
}

gboolean
assay_docker_instance_create_volume (AssayDockerClient  *client,
                                     const char         *volume,
                                     const char         *session_id,
                                     GCancellable       *cancellable,
                                     GError            **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonNode) created = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Name");
  json_builder_add_string_value (builder, volume);
  assay_docker_instance_add_labels (builder, session_id);
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);
  created = assay_docker_client_request (client, "POST", "/volumes/create", body, NULL, cancellable, error);
  return created != NULL;
}

void
assay_docker_instance_remove_volume (AssayDockerClient *client,
                                     const char        *volume)
{
  g_autofree char *escaped = assay_docker_escape_path_segment (volume);
  g_autofree char *path = g_strdup_printf ("/volumes/%s", escaped);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  node = assay_docker_client_request (client, "DELETE", path, NULL, NULL, NULL, &error);
  /* 409: still in use, by a sandbox of a run that is alive. */
  if (node == NULL && !g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND) &&
      !g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_CONFLICT))
    g_warning ("Cannot remove the sandbox's volume %s: %s", volume, error->message);
}

char *
assay_docker_instance_create_uploader (AssayDockerClient  *client,
                                       const char         *image_ref,
                                       const char         *session_id,
                                       const char         *volume,
                                       GCancellable       *cancellable,
                                       GError            **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonNode) created = NULL;
  g_autofree char *name = g_strdup_printf ("assay-%s-upload-%08x", session_id, g_random_int ());
  g_autofree char *escaped_name = g_uri_escape_string (name, NULL, FALSE);
  g_autofree char *create_path = g_strdup_printf ("/containers/create?name=%s", escaped_name);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Image");
  json_builder_add_string_value (builder, image_ref);
  json_builder_set_member_name (builder, "Cmd");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "true");
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "NetworkDisabled");
  json_builder_add_boolean_value (builder, TRUE);
  /* As the sandboxes are: a crashed run's is a leftover its next run removes. */
  assay_docker_instance_add_labels (builder, session_id);
  json_builder_set_member_name (builder, "HostConfig");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "NetworkMode");
  json_builder_add_string_value (builder, "none");
  json_builder_set_member_name (builder, "Mounts");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Type");
  json_builder_add_string_value (builder, "volume");
  json_builder_set_member_name (builder, "Source");
  json_builder_add_string_value (builder, volume);
  json_builder_set_member_name (builder, "Target");
  json_builder_add_string_value (builder, "/data");
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  created = assay_docker_client_request (client, "POST", create_path, body, NULL, cancellable, error);
  if (created == NULL)
    return NULL;
  return g_steal_pointer (&name);
}

gboolean
assay_docker_instance_upload (AssayDockerClient   *client,
                              const char          *uploader,
                              const char          *dir,
                              const char * const  *names,
                              GCancellable        *cancellable,
                              GError             **error)
{
  g_autoptr(GInputStream) tar = assay_docker_archive_new (dir, names, NULL, error);

  if (tar == NULL)
    return FALSE;
  return assay_docker_client_put_archive (client, uploader, "/data", tar, cancellable, error);
}

void
assay_docker_instance_remove_uploader (AssayDockerClient *client,
                                       const char        *uploader)
{
  g_autofree char *escaped_name = g_uri_escape_string (uploader, NULL, FALSE);
  g_autofree char *delete_path = g_strdup_printf ("/containers/%s?force=1", escaped_name);
  g_autoptr(JsonNode) removed = NULL;
  g_autoptr(GError) error = NULL;

  removed = assay_docker_client_request (client, "DELETE", delete_path, NULL, NULL, NULL, &error);
  if (removed == NULL && !g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND))
    g_warning ("Cannot remove the container %s that sent the datasets: %s", uploader, error->message);
}

const char *
assay_docker_instance_get_container_id (AssayDockerInstance *self)
{
  g_return_val_if_fail (ASSAY_IS_DOCKER_INSTANCE (self), NULL);

  return self->container_id;
}
