/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "assay-docker-backend.h"
#include "assay-docker-client.h"
#include "assay-docker-instance.h"
#include "assay-kernel-session.h"
#include "assay-sandbox-limits.h"

/* These tests run against the real Docker engine at $DOCKER_HOST or
 * /var/run/docker.sock, with the sandbox image built beforehand (CI does).
 * A missing image is a failure, not a skip. $ASSAY_TEST_DOCKER_IMAGE names
 * another image with the kernel at /opt/assay/kernel. */

#define DEFAULT_IMAGE     "assay-sandbox:latest"
#define WATCHDOG_SECONDS  120
#define HOST_ENV_MARKER   "ASSAY_TEST_HOST_SECRET"

static const char *
test_image (void)
{
  const char *image = g_getenv ("ASSAY_TEST_DOCKER_IMAGE");

  return image != NULL && image[0] != '\0' ? image : DEFAULT_IMAGE;
}

/* Cancels a cancellable when a test hangs, so blocking reads return. */
typedef struct
{
  GMutex        mutex;
  GCond         cond;
  gboolean      stopped;
  GCancellable *cancellable;
  GThread      *thread;
} Watchdog;

static gpointer
watchdog_thread (gpointer data)
{
  Watchdog *watchdog = data;
  gint64 end_time = g_get_monotonic_time () + WATCHDOG_SECONDS * G_TIME_SPAN_SECOND;
  gboolean fired = FALSE;

  g_mutex_lock (&watchdog->mutex);
  while (!watchdog->stopped && !fired)
    if (!g_cond_wait_until (&watchdog->cond, &watchdog->mutex, end_time))
      fired = TRUE;
  g_mutex_unlock (&watchdog->mutex);

  if (fired)
    g_cancellable_cancel (watchdog->cancellable);

  return NULL;
}

static Watchdog *
watchdog_start (void)
{
  Watchdog *watchdog = g_new0 (Watchdog, 1);

  g_mutex_init (&watchdog->mutex);
  g_cond_init (&watchdog->cond);
  watchdog->cancellable = g_cancellable_new ();
  watchdog->thread = g_thread_new ("watchdog", watchdog_thread, watchdog);

  return watchdog;
}

static void
watchdog_stop (Watchdog *watchdog)
{
  g_mutex_lock (&watchdog->mutex);
  watchdog->stopped = TRUE;
  g_cond_signal (&watchdog->cond);
  g_mutex_unlock (&watchdog->mutex);

  g_thread_join (watchdog->thread);
  g_clear_object (&watchdog->cancellable);
  g_mutex_clear (&watchdog->mutex);
  g_cond_clear (&watchdog->cond);
  g_free (watchdog);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Watchdog, watchdog_stop)

static char *
new_session_id (void)
{
  return g_strdup_printf ("test-%08x", g_random_int ());
}

static gboolean
require_image (AssayDockerClient *client)
{
  g_autoptr(GError) error = NULL;
  gboolean exists;

  exists = assay_docker_client_image_exists (client, test_image (), NULL, &error);
  g_assert_no_error (error);

  if (!exists)
    g_test_fail_printf ("The sandbox image %s does not exist. Build it before running "
                        "these tests (set ASSAY_TEST_DOCKER_IMAGE to use another image).",
                        test_image ());

  return exists;
}

static AssaySandboxSpec *
new_spec (void)
{
  AssaySandboxSpec *spec = assay_sandbox_spec_new ();

  spec->session_id = new_session_id ();
  spec->image_ref = g_strdup (test_image ());
  spec->limits.memory_bytes = 768 * 1024 * 1024;
  spec->limits.pids = 128;
  spec->limits.cpus = 1.5;

  return spec;
}

static JsonNode *
inspect_container (AssayDockerClient  *client,
                   const char         *container_id,
                   GError            **error)
{
  g_autofree char *path = g_strdup_printf ("/containers/%s/json", container_id);

  return assay_docker_client_request (client, "GET", path, NULL, NULL, NULL, error);
}

static JsonObject *
object_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_get_object (node);
}

/* Reads one line of the kernel's stdout as a JSON object. */
static JsonObject *
read_message (GDataInputStream *input,
              GCancellable     *cancellable)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  JsonNode *root;
  gsize len = 0;

  line = g_data_input_stream_read_line_utf8 (input, &len, cancellable, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);

  g_assert_true (json_parser_load_from_data (parser, line, len, &error));
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));

  return json_object_ref (json_node_get_object (root));
}

/* Runs a cell and returns everything it printed or returned as text. */
static char *
execute_cell (AssaySandboxInstance *instance,
              GDataInputStream     *input,
              const char           *id,
              const char           *code,
              GCancellable         *cancellable)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) request = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *line = NULL;
  GOutputStream *stdin_stream = assay_sandbox_instance_get_stdin (instance);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "execute");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, id);
  json_builder_set_member_name (builder, "code");
  json_builder_add_string_value (builder, code);
  json_builder_end_object (builder);
  request = json_builder_get_root (builder);
  json = json_to_string (request, FALSE);
  line = g_strconcat (json, "\n", NULL);

  g_assert_true (g_output_stream_write_all (stdin_stream, line, strlen (line), NULL,
                                            cancellable, &error));
  g_assert_no_error (error);

  for (;;)
    {
      g_autoptr(JsonObject) message = read_message (input, cancellable);
      const char *type = json_object_get_string_member_with_default (message, "type", "");

      if (g_str_equal (type, "output"))
        {
          JsonObject *output = object_member (message, "output");
          const char *output_type = json_object_get_string_member_with_default (output, "output_type", "");

          if (g_str_equal (output_type, "stream"))
            g_string_append (text, json_object_get_string_member_with_default (output, "text", ""));
          else if (g_str_equal (output_type, "execute_result"))
            g_string_append (text, json_object_get_string_member_with_default (object_member (output, "data"),
                                                                              "text/plain", ""));
          else if (g_str_equal (output_type, "error"))
            g_string_append_printf (text, "%s: %s",
                                    json_object_get_string_member_with_default (output, "ename", ""),
                                    json_object_get_string_member_with_default (output, "evalue", ""));
        }
      else if (g_str_equal (type, "done"))
        {
          g_assert_cmpstr (json_object_get_string_member_with_default (message, "id", ""), ==, id);
          g_assert_cmpstr (json_object_get_string_member_with_default (message, "status", ""), ==, "ok");
          break;
        }
      else
        g_assert_cmpstr (type, !=, "fatal");
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static gboolean
container_exists (AssayDockerClient *client,
                  const char        *container_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = inspect_container (client, container_id, &error);

  if (node != NULL)
    return TRUE;

  g_assert_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND);
  return FALSE;
}

static void
test_probe (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  g_autofree char *reason = NULL;
  gboolean ok;

  ok = assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (backend), &reason, NULL);
  g_assert_cmpstr (reason, ==, NULL);
  g_assert_true (ok);
  g_assert_cmpstr (assay_sandbox_backend_get_name (ASSAY_SANDBOX_BACKEND (backend)), ==, "docker");
}

static void
test_probe_missing_socket (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-docker-XXXXXX", NULL);
  g_autofree char *socket_path = g_build_filename (dir, "docker.sock", NULL);
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (socket_path);
  g_autofree char *expected = NULL;
  g_autofree char *reason = NULL;

  g_assert_false (assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (backend), &reason, NULL));
  expected = g_strdup_printf ("no Docker socket at %s (is the Docker daemon running?)", socket_path);
  g_assert_cmpstr (reason, ==, expected);

  g_rmdir (dir);
}

static void
test_probe_tcp_host (void)
{
  g_autofree char *saved = g_strdup (g_getenv ("DOCKER_HOST"));
  g_autoptr(AssayDockerBackend) backend = NULL;
  g_autoptr(AssayDockerBackend) explicit_backend = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *explicit_reason = NULL;

  g_setenv ("DOCKER_HOST", "tcp://127.0.0.1:2375", TRUE);
  backend = assay_docker_backend_new (NULL);
  /* An explicit socket wins over $DOCKER_HOST. */
  explicit_backend = assay_docker_backend_new ("/nonexistent/docker.sock");
  if (saved != NULL)
    g_setenv ("DOCKER_HOST", saved, TRUE);
  else
    g_unsetenv ("DOCKER_HOST");

  g_assert_false (assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (backend), &reason, NULL));
  /* Plain tcp:// on this machine goes through Assay's tunnel; nothing listens there. */
  g_assert_true (g_str_has_prefix (reason, "Cannot reach the Docker engine at tcp://127.0.0.1:2375: "));
  g_assert_nonnull (strstr (reason, "refused"));

  g_assert_false (assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (explicit_backend),
                                               &explicit_reason, NULL));
  g_assert_true (g_str_has_prefix (explicit_reason, "no Docker socket at /nonexistent/docker.sock"));
}

static void
test_execute (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(GDataInputStream) input = NULL;
  g_autoptr(JsonObject) ready = NULL;
  g_autoptr(Watchdog) watchdog = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *data_file = NULL;
  g_autofree char *output = NULL;

  if (!require_image (client))
    return;

  data_dir = g_dir_make_tmp ("assay-docker-data-XXXXXX", &error);
  g_assert_no_error (error);
  g_chmod (data_dir, 0755);
  data_file = g_build_filename (data_dir, "hello.txt", NULL);
  g_file_set_contents (data_file, "hello from the host", -1, &error);
  g_assert_no_error (error);
  g_chmod (data_file, 0644);
  spec->data_dir = g_strdup (data_dir);

  watchdog = watchdog_start ();
  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec,
                                           watchdog->cancellable, &error);
  g_assert_no_error (error);
  g_assert_nonnull (instance);

  input = g_data_input_stream_new (assay_sandbox_instance_get_stdout (instance));
  g_data_input_stream_set_newline_type (input, G_DATA_STREAM_NEWLINE_TYPE_LF);

  ready = read_message (input, watchdog->cancellable);
  g_assert_cmpstr (json_object_get_string_member_with_default (ready, "type", ""), ==, "ready");

  output = execute_cell (instance, input, "c1", "print(6*7)", watchdog->cancellable);
  g_assert_nonnull (strstr (output, "42"));
  g_clear_pointer (&output, g_free);

  /* The data folder is there and read-only; the rest of the file system too,
   * apart from /tmp and /workspace. */
  output = execute_cell (instance, input, "c2",
                         "import os\n"
                         "print(open('/data/hello.txt').read())\n"
                         "for p in ('/data/x', '/x', '/workspace/x', '/tmp/x'):\n"
                         "    try:\n"
                         "        open(p, 'w').close(); print(p, 'writable')\n"
                         "    except OSError:\n"
                         "        print(p, 'read-only')\n"
                         "print('uid', os.getuid(), os.getgid())\n"
                         "print('secret', os.environ.get('" HOST_ENV_MARKER "'))\n",
                         watchdog->cancellable);
  g_assert_nonnull (strstr (output, "hello from the host"));
  g_assert_nonnull (strstr (output, "/data/x read-only"));
  g_assert_nonnull (strstr (output, "/x read-only"));
  g_assert_nonnull (strstr (output, "/workspace/x writable"));
  g_assert_nonnull (strstr (output, "/tmp/x writable"));
  g_assert_true (g_regex_match_simple ("^uid (21474[2-8]\\d{4}) \\1$", output, G_REGEX_MULTILINE, 0));
  g_assert_nonnull (strstr (output, "secret None"));
  g_clear_pointer (&output, g_free);

  /* Megabytes of output go through the frames intact. */
  output = execute_cell (instance, input, "c3", "print('y' * 3000000)", watchdog->cancellable);
  g_assert_cmpuint (strspn (output, "y"), ==, 3000000);
  g_assert_cmpstr (output + 3000000, ==, "\n");

  assay_sandbox_instance_destroy (instance);

  g_unlink (data_file);
  g_rmdir (data_dir);
}

static void
assert_string_array (JsonObject         *object,
                     const char         *name,
                     const char * const *expected)
{
  JsonArray *array = json_object_get_array_member (object, name);

  g_assert_nonnull (array);
  g_assert_cmpuint (json_array_get_length (array), ==, g_strv_length ((char **) expected));
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (json_array_get_string_element (array, i), ==, expected[i]);
}

static void
test_hardening (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(JsonNode) inspected = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  const char *expected_env[] = {
    "PATH=/usr/local/bin:/usr/bin:/bin",
    "HOME=/tmp",
    "LANG=C.UTF-8",
    "MPLBACKEND=Agg",
    "MPLCONFIGDIR=/tmp/matplotlib",
    "PYTHONDONTWRITEBYTECODE=1",
    "OPENBLAS_NUM_THREADS=2",
    "OMP_NUM_THREADS=2",
    NULL
  };
  const char *all[] = { "ALL", NULL };
  const char *no_new_privileges[] = { "no-new-privileges", NULL };
  const char *cmd[] = { "python3", "-I", "/opt/assay/kernel/assay_kernel.py", NULL };
  JsonObject *config;
  JsonObject *host_config;
  JsonObject *labels;
  JsonObject *tmpfs;
  JsonArray *ulimits;
  const char *container_id;

  if (!require_image (client))
    return;

  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec, NULL, &error);
  g_assert_no_error (error);
  container_id = assay_docker_instance_get_container_id (ASSAY_DOCKER_INSTANCE (instance));

  inspected = inspect_container (client, container_id, &error);
  g_assert_no_error (error);
  config = object_member (json_node_get_object (inspected), "Config");
  host_config = object_member (json_node_get_object (inspected), "HostConfig");

  g_assert_true (g_str_has_prefix (json_object_get_string_member (json_node_get_object (inspected), "Name"),
                                   "/assay-test-"));
  /* Not the desktop user's uid nor another sandbox's: kernel quotas per user would be shared
   * with them. The label says which it drew. */
  {
    const char *user = json_object_get_string_member (config, "User");
    g_autofree char *uid = g_strndup (user, strcspn (user, ":"));
    g_autofree char *gid = g_strconcat (":", uid, NULL);
    guint64 value = 0;

    g_assert_true (g_ascii_string_to_unsigned (uid, 10, 2147420000, 2147483646, &value, NULL));
    g_assert_cmpstr (user + strlen (uid), ==, gid);
    g_assert_cmpstr (json_object_get_string_member (object_member (config, "Labels"), "assay.sandbox-uid"), ==, uid);
  }
  g_assert_cmpstr (json_object_get_string_member (config, "WorkingDir"), ==, "/workspace");
  g_assert_cmpstr (json_object_get_string_member (config, "Image"), ==, test_image ());
  assert_string_array (config, "Cmd", cmd);
  /* Nothing of the host's environment, only the fixed list (the image adds none). */
  assert_string_array (config, "Env", expected_env);
  g_assert_true (json_object_get_boolean_member (config, "OpenStdin"));
  g_assert_false (json_object_get_boolean_member (config, "StdinOnce"));
  g_assert_false (json_object_get_boolean_member (config, "Tty"));
  g_assert_true (json_object_get_boolean_member (config, "NetworkDisabled"));

  labels = object_member (config, "Labels");
  g_assert_cmpstr (json_object_get_string_member (labels, "assay.session"), ==, spec->session_id);
  g_assert_cmpstr (json_object_get_string_member (labels, "assay.pid"), ==, pid);
  g_assert_cmpstr (json_object_get_string_member_with_default (labels, "assay.pid-start", ""), !=, "");

  g_assert_cmpstr (json_object_get_string_member (host_config, "NetworkMode"), ==, "none");
  g_assert_cmpstr (json_object_get_string_member (host_config, "IpcMode"), ==, "private");
  g_assert_true (json_object_get_boolean_member (host_config, "ReadonlyRootfs"));
  /* The kernel is PID 1 itself: docker-init would hold the channel's pipes where user code
   * of the same uid can open them (/proc/1/fd/1). */
  g_assert_false (json_object_get_boolean_member (host_config, "Init"));
  g_assert_false (json_object_get_boolean_member (host_config, "Privileged"));
  assert_string_array (host_config, "CapDrop", all);
  g_assert_null (json_object_get_array_member (host_config, "CapAdd"));
  assert_string_array (host_config, "SecurityOpt", no_new_privileges);
  g_assert_cmpint (json_object_get_int_member (host_config, "Memory"), ==, spec->limits.memory_bytes);
  g_assert_cmpint (json_object_get_int_member (host_config, "MemorySwap"), ==, spec->limits.memory_bytes);
  g_assert_cmpint (json_object_get_int_member (host_config, "NanoCpus"), ==, 1500000000);
  g_assert_cmpint (json_object_get_int_member (host_config, "PidsLimit"), ==, spec->limits.pids);
  g_assert_cmpstr (json_object_get_string_member (object_member (host_config, "LogConfig"), "Type"), ==, "none");
  g_assert_null (json_object_get_array_member (host_config, "Binds"));

  tmpfs = object_member (host_config, "Tmpfs");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (tmpfs, "/tmp"), "rw,nosuid,nodev,size="));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (tmpfs, "/workspace"), "rw,nosuid,nodev,size="));

  ulimits = json_object_get_array_member (host_config, "Ulimits");
  g_assert_cmpuint (json_array_get_length (ulimits), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *ulimit = json_array_get_object_element (ulimits, i);
      const char *name = json_object_get_string_member (ulimit, "Name");
      gint64 expected = g_str_equal (name, "fsize") ? (gint64) spec->limits.file_bytes
                        : g_str_equal (name, "core") ? 0 : 1024;

      g_assert_true (g_str_equal (name, "fsize") || g_str_equal (name, "nofile") ||
                     g_str_equal (name, "core"));
      g_assert_cmpint (json_object_get_int_member (ulimit, "Soft"), ==, expected);
      g_assert_cmpint (json_object_get_int_member (ulimit, "Hard"), ==, expected);
    }

  assay_sandbox_instance_destroy (instance);
  g_assert_false (container_exists (client, container_id));
}

static void
test_kill_wait_destroy (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(Watchdog) watchdog = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *container_id = NULL;
  g_autofree char *tail = NULL;
  AssaySandboxExit exit_status;
  char buffer[4096];
  gssize n;

  if (!require_image (client))
    return;

  watchdog = watchdog_start ();
  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec,
                                           watchdog->cancellable, &error);
  g_assert_no_error (error);
  container_id = g_strdup (assay_docker_instance_get_container_id (ASSAY_DOCKER_INSTANCE (instance)));
  g_assert_true (container_exists (client, container_id));

  assay_sandbox_instance_kill (instance);
  assay_sandbox_instance_kill (instance);

  g_assert_true (assay_sandbox_instance_wait (instance, &exit_status, watchdog->cancellable, &error));
  g_assert_no_error (error);
  g_assert_true (exit_status.exited);
  g_assert_cmpint (exit_status.signal, ==, 9);
  g_assert_cmpint (exit_status.exit_code, ==, -1);
  g_assert_false (exit_status.oom_killed);

  /* The daemon closes the stream once the container is dead: stdout ends. */
  do
    n = g_input_stream_read (assay_sandbox_instance_get_stdout (instance), buffer, sizeof buffer,
                             watchdog->cancellable, &error);
  while (n > 0);
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, 0);

  tail = assay_sandbox_instance_dup_stderr_tail (instance);
  g_test_message ("stderr tail: %s", tail ? tail : "(none)");

  assay_sandbox_instance_destroy (instance);
  g_assert_false (container_exists (client, container_id));

  /* Idempotent, and kill after destroy is harmless. */
  assay_sandbox_instance_destroy (instance);
  assay_sandbox_instance_kill (instance);

  /* Writing to a destroyed sandbox fails instead of raising SIGPIPE. */
  g_assert_false (g_output_stream_write_all (assay_sandbox_instance_get_stdin (instance), "x\n", 2,
                                             NULL, NULL, &error));
  g_assert_nonnull (error);
}

typedef struct
{
  AssaySandboxInstance *instance;
  GCancellable         *cancellable;
  gsize                 bytes;
  gboolean              ended;
} Reader;

static gpointer
reader_thread (gpointer data)
{
  Reader *reader = data;
  GInputStream *stdout_stream = assay_sandbox_instance_get_stdout (reader->instance);
  char buffer[4096];
  gssize n;

  /* Until end of file or an error: both mean the sandbox is gone. */
  while ((n = g_input_stream_read (stdout_stream, buffer, sizeof buffer,
                                   reader->cancellable, NULL)) > 0)
    reader->bytes += n;

  reader->ended = TRUE;
  return NULL;
}

static void
test_destroy_unblocks_reader (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(Watchdog) watchdog = NULL;
  g_autoptr(GError) error = NULL;
  Reader reader = { 0 };
  GThread *thread;

  if (!require_image (client))
    return;

  watchdog = watchdog_start ();
  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec,
                                           watchdog->cancellable, &error);
  g_assert_no_error (error);

  reader.instance = instance;
  reader.cancellable = watchdog->cancellable;
  thread = g_thread_new ("reader", reader_thread, &reader);

  /* Let the reader block in read() (after the "ready" line, if it comes). */
  g_usleep (G_USEC_PER_SEC / 2);

  /* From another thread than the reader's, with the read pending. */
  assay_sandbox_instance_destroy (instance);
  g_thread_join (thread);

  g_assert_true (reader.ended);
  g_assert_false (g_cancellable_is_cancelled (watchdog->cancellable));
}

typedef struct
{
  GCancellable *cancellable;
  guint         delay_ms;
} DelayedCancel;

static gpointer
cancel_later_thread (gpointer data)
{
  DelayedCancel *delayed = data;

  g_usleep (delayed->delay_ms * 1000);
  g_cancellable_cancel (delayed->cancellable);
  return NULL;
}

static void
test_wait_cancel (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  DelayedCancel delayed = { cancellable, 300 };
  AssaySandboxExit exit_status;
  GThread *thread;
  gint64 start;
  gint64 elapsed;

  if (!require_image (client))
    return;

  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec, NULL, &error);
  g_assert_no_error (error);

  /* The kernel waits for cells forever: only the cancellable ends this wait. */
  thread = g_thread_new ("cancel", cancel_later_thread, &delayed);
  start = g_get_monotonic_time ();
  g_assert_false (assay_sandbox_instance_wait (instance, &exit_status, cancellable, &error));
  elapsed = g_get_monotonic_time () - start;
  g_thread_join (thread);

  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (exit_status.exited);
  g_test_message ("wait returned %" G_GINT64_FORMAT " ms after the cancel", elapsed / 1000 - delayed.delay_ms);
  g_assert_cmpint (elapsed, <, 5 * G_TIME_SPAN_SECOND);

  assay_sandbox_instance_destroy (instance);
}

static void
test_missing_image (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(JsonNode) listed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *filters = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;

  g_free (spec->image_ref);
  spec->image_ref = g_strdup ("assay-test-no-such-image:none");

  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec, NULL, &error);
  g_assert_null (instance);
  g_assert_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "assay-test-no-such-image"));
  g_clear_error (&error);

  /* Nothing is left behind under this session. */
  filters = g_strdup_printf ("{\"label\":[\"assay.session=%s\"]}", spec->session_id);
  escaped = g_uri_escape_string (filters, NULL, FALSE);
  path = g_strdup_printf ("/containers/json?all=1&filters=%s", escaped);
  listed = assay_docker_client_request (client, "GET", path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (listed));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (listed)), ==, 0);
}

static void
test_invalid_session_id (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(GError) error = NULL;

  g_free (spec->session_id);
  spec->session_id = g_strdup ("Bad/../id");

  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec, NULL, &error);
  g_assert_null (instance);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

static char *
own_start_time (void)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;
  const char *end;

  g_assert_true (g_file_get_contents ("/proc/self/stat", &contents, NULL, NULL));
  end = strrchr (contents, ')');
  g_assert_nonnull (end);
  fields = g_strsplit (end + 2, " ", -1);
  g_assert_cmpuint (g_strv_length (fields), >=, 20);

  return g_strdup (fields[19]);
}

/* A stopped container carrying the labels a run of Assay puts on its sandboxes. */
static char *
create_labelled_container (AssayDockerClient *client,
                           const char        *pid,
                           const char        *pid_start,
                           const char        *uid)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonNode) created = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = new_session_id ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Image");
  json_builder_add_string_value (builder, test_image ());
  json_builder_set_member_name (builder, "Cmd");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "true");
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "Labels");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "assay.session");
  json_builder_add_string_value (builder, session_id);
  json_builder_set_member_name (builder, "assay.pid");
  json_builder_add_string_value (builder, pid);
  json_builder_set_member_name (builder, "assay.pid-start");
  json_builder_add_string_value (builder, pid_start);
  if (uid != NULL)
    {
      json_builder_set_member_name (builder, "assay.uid");
      json_builder_add_string_value (builder, uid);
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "HostConfig");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "NetworkMode");
  json_builder_add_string_value (builder, "none");
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  created = assay_docker_client_request (client, "POST", "/containers/create", body, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (created));

  return g_strdup (json_object_get_string_member (json_node_get_object (created), "Id"));
}

static void
remove_if_exists (AssayDockerClient *client,
                  const char        *container_id)
{
  g_autofree char *path = g_strdup_printf ("/containers/%s?force=1", container_id);
  g_autoptr(JsonNode) node = NULL;

  node = assay_docker_client_request (client, "DELETE", path, NULL, NULL, NULL, NULL);
}

static void
test_remove_leftovers (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(AssaySandboxInstance) instance = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *own_pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *own_start = own_start_time ();
  g_autofree char *other_uid = g_strdup_printf ("%u", (guint) getuid () + 1);
  g_autofree char *dead = NULL;
  g_autofree char *reused_pid = NULL;
  g_autofree char *alive = NULL;
  g_autofree char *other_user = NULL;
  const char *launched;
  guint removed;

  if (!require_image (client))
    return;

  /* Pids are always below pid_max, which is at most 2^22: this one is dead. */
  dead = create_labelled_container (client, "4194999", "12345", NULL);
  /* Our pid, but another start time: a dead run whose pid we reuse. */
  reused_pid = create_labelled_container (client, own_pid, "1", NULL);
  alive = create_labelled_container (client, own_pid, own_start, NULL);
  other_user = create_labelled_container (client, "4194999", "12345", other_uid);
  /* A running sandbox of this very process. */
  instance = assay_sandbox_backend_launch (ASSAY_SANDBOX_BACKEND (backend), spec, NULL, &error);
  g_assert_no_error (error);
  launched = assay_docker_instance_get_container_id (ASSAY_DOCKER_INSTANCE (instance));

  /* No check of the count: a test run in parallel may remove our dead ones
   * first, or leave its own for us to count. */
  removed = assay_sandbox_backend_remove_leftovers (ASSAY_SANDBOX_BACKEND (backend), NULL);
  g_test_message ("removed %u leftover sandboxes", removed);

  g_assert_false (container_exists (client, dead));
  g_assert_false (container_exists (client, reused_pid));
  g_assert_true (container_exists (client, alive));
  g_assert_true (container_exists (client, other_user));
  g_assert_true (container_exists (client, launched));

  assay_sandbox_instance_destroy (instance);
  remove_if_exists (client, alive);
  remove_if_exists (client, other_user);
}

/* ---- a session closed while its sandbox is being launched ------------------------------ */

typedef struct
{
  AssayDockerBackend *backend;
  AssaySandboxSpec   *spec;
  AssayKernelSession *kernel;
  GError             *error;
} Launching;

static void
launching_started_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      data)
{
  Launching *launching = data;

  g_assert_false (assay_kernel_session_start_finish (ASSAY_KERNEL_SESSION (source), result, &launching->error));
}

static void
launching_activate_cb (GApplication *app,
                       Launching    *launching)
{
  launching->kernel = assay_kernel_session_new (ASSAY_SANDBOX_BACKEND (launching->backend), launching->spec, NULL);
  assay_kernel_session_start_async (launching->kernel, NULL, launching_started_cb, launching);
  /* Closed at once, the window gone say, the launch still in its worker. */
  assay_kernel_session_close (launching->kernel);
}

/* The application does not end while a sandbox is being launched: once it has, the sandbox
 * launched for the closed session has been removed, not left "Created" behind. */
static void
test_closed_while_launching (void)
{
  g_autoptr(AssayDockerClient) client = assay_docker_client_new (NULL);
  g_autoptr(GApplication) app = g_application_new ("org.assay.Assay.TestLaunch", G_APPLICATION_NON_UNIQUE);
  g_autoptr(AssaySandboxSpec) spec = new_spec ();
  g_autoptr(JsonNode) listed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *filters = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  Launching launching = { assay_docker_backend_new (NULL), spec, NULL, NULL };
  int status;

  g_signal_connect (app, "activate", G_CALLBACK (launching_activate_cb), &launching);
  status = g_application_run (app, 0, NULL);
  g_assert_cmpint (status, ==, 0);
  /* The start ended with the close. */
  g_assert_error (launching.error, G_IO_ERROR, G_IO_ERROR_CLOSED);

  /* A launch the application had not waited for would finish in its worker meanwhile. */
  g_usleep (3 * G_USEC_PER_SEC);
  filters = g_strdup_printf ("{\"label\":[\"assay.session=%s\"]}", assay_kernel_session_get_id (launching.kernel));
  escaped = g_uri_escape_string (filters, NULL, FALSE);
  path = g_strdup_printf ("/containers/json?all=1&filters=%s", escaped);
  listed = assay_docker_client_request (client, "GET", path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (listed));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (listed)), ==, 0);
  g_clear_error (&launching.error);
  g_clear_object (&launching.kernel);
  g_clear_object (&launching.backend);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* Must not reach the sandbox (checked in /assay/docker/backend/execute). */
  g_setenv (HOST_ENV_MARKER, "do-not-leak", TRUE);

  g_test_add_func ("/assay/docker/backend/probe", test_probe);
  g_test_add_func ("/assay/docker/backend/probe-missing-socket", test_probe_missing_socket);
  g_test_add_func ("/assay/docker/backend/probe-tcp-host", test_probe_tcp_host);
  g_test_add_func ("/assay/docker/backend/execute", test_execute);
  g_test_add_func ("/assay/docker/backend/hardening", test_hardening);
  g_test_add_func ("/assay/docker/backend/kill-wait-destroy", test_kill_wait_destroy);
  g_test_add_func ("/assay/docker/backend/destroy-unblocks-reader", test_destroy_unblocks_reader);
  g_test_add_func ("/assay/docker/backend/wait-cancel", test_wait_cancel);
  g_test_add_func ("/assay/docker/backend/missing-image", test_missing_image);
  g_test_add_func ("/assay/docker/backend/invalid-session-id", test_invalid_session_id);
  g_test_add_func ("/assay/docker/backend/remove-leftovers", test_remove_leftovers);
  g_test_add_func ("/assay/docker/backend/closed-while-launching", test_closed_while_launching);

  return g_test_run ();
}
