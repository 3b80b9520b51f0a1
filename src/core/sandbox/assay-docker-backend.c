/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "assay-docker-backend.h"
#include "assay-docker-instance.h"
#include "assay-docker-limits.h"
#include "assay-json.h"

#define KERNEL_PATH        "/opt/assay/kernel/assay_kernel.py"
/* Not 1000: without user namespaces the container's uid is the host's, and per-user kernel
 * quotas (inotify instances, the bytes of message queues) would be shared with the desktop
 * user who is usually 1000. Nor one uid for every sandbox, or one hostile cell could spend
 * them for all the others: each draws its own from ids no account, system user or
 * subordinate range uses (above systemd's foreign range, below 2^31 where Docker stops). */
#define SANDBOX_UID_FIRST  2147420000
#define SANDBOX_UID_LAST   2147483646
/* A rootless engine maps only a subordinate range (usually 65536 ids) into its user
 * namespace: there uid 1000 inside is one of those subordinate ids outside, not the user's. */
#define ROOTLESS_USER      "1000:1000"
#define SANDBOX_NOFILE     1024
#define LABEL_SESSION      "assay.session"
#define LABEL_PID          "assay.pid"
#define LABEL_PID_START    "assay.pid-start"
#define LABEL_BOOT_ID      "assay.boot-id"
#define LABEL_UID          "assay.uid"
#define LABEL_SANDBOX_UID  "assay.sandbox-uid"

struct _AssayDockerBackend
{
  GObject            parent_instance;

  AssayDockerClient *client;
};

static void assay_docker_backend_sandbox_backend_iface_init (AssaySandboxBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AssayDockerBackend, assay_docker_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ASSAY_TYPE_SANDBOX_BACKEND,
                                                      assay_docker_backend_sandbox_backend_iface_init))

static char *
assay_docker_backend_read_boot_id (void)
{
  g_autofree char *contents = NULL;

  if (!g_file_get_contents ("/proc/sys/kernel/random/boot_id", &contents, NULL, NULL))
    return NULL;

  return g_strdup (g_strstrip (contents));
}

static gboolean
assay_docker_backend_is_valid_session_id (const char *session_id)
{
  gsize len = 0;

  if (session_id == NULL)
    return FALSE;

  for (const char *c = session_id; *c != '\0'; c++, len++)
    if (!(g_ascii_islower (*c) || g_ascii_isdigit (*c) || *c == '-'))
      return FALSE;

  /* Docker names are at most 253 characters; ours add about 15. */
  return len > 0 && len <= 128;
}

static gboolean
assay_docker_backend_is_valid_container_id (const char *id)
{
  gsize len = 0;

  for (const char *c = id; *c != '\0'; c++, len++)
    if (!g_ascii_isxdigit (*c))
      return FALSE;

  return len >= 12 && len <= 64;
}

/* Removes a container and its anonymous volumes, killing it first if needed. */
static gboolean
assay_docker_backend_remove_container (AssayDockerClient  *client,
                                       const char         *container_id,
                                       GError            **error)
{
  g_autofree char *escaped = assay_docker_escape_path_segment (container_id);
  g_autofree char *path = g_strdup_printf ("/containers/%s?force=1&v=1", escaped);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;

  /* Never cancellable: this is the cleanup. Docker and Podman may refuse to remove a
   * container that is stopping at that moment; they can once it stopped. */
  node = assay_docker_client_request (client, "DELETE", path, NULL, NULL, NULL, &local_error);
  for (guint attempt = 0; attempt < 20 && node == NULL && assay_docker_error_is_stopping_race (local_error); attempt++)
    {
      g_clear_error (&local_error);
      g_usleep (50 * G_TIME_SPAN_MILLISECOND);
      node = assay_docker_client_request (client, "DELETE", path, NULL, NULL, NULL, &local_error);
    }
  if (node != NULL ||
      g_error_matches (local_error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

static const char *
assay_docker_backend_get_name (AssaySandboxBackend *backend)
{
  return "docker";
}

/* Why an identified engine cannot hold the sandbox's limits, or NULL. A rootless engine on
 * cgroup v1 has no cgroup of its own to limit: Podman then drops the memory, process and CPU
 * limits without a word (a memory bomb ran unbounded). On cgroup v2 it needs the controllers
 * delegated to it. The limits are read back after every create as well. */
static char *
assay_docker_backend_check_engine (AssayDockerClient *client)
{
  g_autofree char *engine = assay_docker_client_describe_engine (client);
  const char *cgroup_version = assay_docker_client_get_cgroup_version (client);
  const char * const *controllers = assay_docker_client_get_cgroup_controllers (client);
  static const char *const needed[] = { "memory", "pids", "cpu", NULL };

  if (!assay_docker_client_is_rootless (client))
    return NULL;
  if (g_strcmp0 (cgroup_version, "1") == 0)
    return g_strdup_printf (_("%s on cgroup v1 cannot limit the sandbox's memory, processes or CPU "
                              "(it would run without them); use a rootful engine, or cgroup v2 "
                              "with the controllers delegated to your user"), engine);
  for (guint i = 0; controllers != NULL && needed[i] != NULL; i++)
    if (!g_strv_contains (controllers, needed[i]))
      return g_strdup_printf (_("%s may not use the %s cgroup controller, so it cannot limit the "
                                "sandbox (delegate memory, pids and cpu to your user: systemd's "
                                "Delegate=)"), engine, needed[i]);
  return NULL;
}

static gboolean
assay_docker_backend_probe (AssaySandboxBackend  *backend,
                            char                **reason,
                            GCancellable         *cancellable)
{
  AssayDockerBackend *self = ASSAY_DOCKER_BACKEND (backend);
  const char *socket_path = assay_docker_client_get_socket_path (self->client);
  g_autoptr(GError) error = NULL;
  g_autofree char *why = NULL;
  GStatBuf st;

  if (socket_path == NULL)
    {
      /* The client's error says what is wrong with $DOCKER_HOST. */
      assay_docker_client_ping (self->client, cancellable, &error);
      why = g_strdup (error != NULL ? error->message : _("DOCKER_HOST is not supported"));
    }
  else if (assay_docker_client_get_remote_host (self->client) != NULL)
    {
      /* Elsewhere: the tunnel's socket is ours; what counts is whether the engine answers
       * through it, and the client's error says why not (ssh, TLS). */
      if (!assay_docker_client_ping (self->client, cancellable, &error))
        why = g_strdup (error->message);
      else if (!assay_docker_client_identify (self->client, cancellable, &error))
        why = g_strdup_printf (_("the engine at %s does not say what it is: %s"),
                               assay_docker_client_get_remote_host (self->client), error->message);
      else
        why = assay_docker_backend_check_engine (self->client);
    }
  else if (g_stat (socket_path, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == EACCES || saved_errno == EPERM)
        why = g_strdup_printf (_("no permission to use %s (add your user to the docker group)"),
                               socket_path);
      else
        why = g_strdup_printf (_("no Docker socket at %s (is the Docker daemon running?)"),
                               socket_path);
    }
  else if (!S_ISSOCK (st.st_mode))
    why = g_strdup_printf (_("no Docker socket at %s (is the Docker daemon running?)"),
                           socket_path);
  else if (access (socket_path, R_OK | W_OK) != 0 && (errno == EACCES || errno == EPERM))
    why = g_strdup_printf (_("no permission to use %s (add your user to the docker group)"),
                           socket_path);
  else if (!assay_docker_client_ping (self->client, cancellable, &error))
    {
      if (g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_PERMISSION_DENIED))
        why = g_strdup_printf (_("no permission to use %s (add your user to the docker group)"),
                               socket_path);
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        why = g_strdup (_("the check was cancelled"));
      else if (g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_UNREACHABLE))
        why = g_strdup_printf (_("the Docker daemon at %s does not answer"), socket_path);
      else
        why = g_strdup_printf (_("the Docker daemon at %s refuses to work with Assay: %s"),
                               socket_path, error->message);
    }
  else if (!assay_docker_client_identify (self->client, cancellable, &error))
    why = g_strdup_printf (_("the engine at %s does not say what it is: %s"), socket_path, error->message);
  else
    why = assay_docker_backend_check_engine (self->client);

  if (why == NULL)
    return TRUE;

  if (reason != NULL)
    *reason = g_steal_pointer (&why);

  return FALSE;
}

static void
assay_docker_backend_add_string_array (JsonBuilder        *builder,
                                       const char         *name,
                                       const char * const *values)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; values[i] != NULL; i++)
    json_builder_add_string_value (builder, values[i]);
  json_builder_end_array (builder);
}

static void
assay_docker_backend_add_ulimit (JsonBuilder *builder,
                                 const char  *name,
                                 gint64       value)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Name");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "Soft");
  json_builder_add_int_value (builder, value);
  json_builder_set_member_name (builder, "Hard");
  json_builder_add_int_value (builder, value);
  json_builder_end_object (builder);
}

static gint64
assay_docker_backend_clamp_to_int64 (guint64 value)
{
  return (gint64) MIN (value, (guint64) G_MAXINT64);
}

/* Podman gives a container RLIMIT_NPROC 1048576 unless told otherwise, which an engine
 * without CAP_SYS_RESOURCE may not set ("error setting rlimit type 6": runc fails the start).
 * The real bound is the pids cgroup; this one counts the processes of the sandbox's uid over
 * the whole host, so it only has to be allowed and high: this process's own (a local engine
 * was started with the same limits, or as root may set any), at most 32768. */
static gint64
assay_docker_backend_process_rlimit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return 32768;
  return (gint64) CLAMP (limit.rlim_cur, 1, 32768);
}

/* The container's "uid:gid": one no other sandbox of this engine has (their labels say which
 * they have; one created at the same moment may draw the same, a chance of 1 in 63,647).
 * A rootless engine's containers all count against the user who runs it whatever their uid. */
static char *
assay_docker_backend_pick_user (AssayDockerClient *client,
                                GCancellable      *cancellable)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(JsonNode) listed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *filters = NULL;
  g_autofree char *path = NULL;
  guint uid = 0;

  if (assay_docker_client_is_rootless (client))
    return g_strdup (ROOTLESS_USER);

  filters = g_uri_escape_string ("{\"label\":[\"" LABEL_SANDBOX_UID "\"]}", NULL, FALSE);
  path = g_strdup_printf ("/containers/json?all=1&filters=%s", filters);
  listed = assay_docker_client_request (client, "GET", path, NULL, NULL, cancellable, &error);
  if (listed == NULL)
    g_debug ("Cannot list the sandboxes' uids: %s", error->message);
  else if (JSON_NODE_HOLDS_ARRAY (listed))
    {
      JsonArray *containers = json_node_get_array (listed);

      for (guint i = 0; i < json_array_get_length (containers); i++)
        {
          JsonNode *element = json_array_get_element (containers, i);
          JsonObject *labels;
          const char *taken;

          if (!JSON_NODE_HOLDS_OBJECT (element))
            continue;
          labels = assay_json_get_object (json_node_get_object (element), "Labels");
          taken = labels != NULL ? assay_json_get_string (labels, LABEL_SANDBOX_UID) : NULL;
          if (taken != NULL)
            g_hash_table_add (used, g_strdup (taken));
        }
    }

  for (guint attempt = 0; attempt < 64; attempt++)
    {
      g_autofree char *text = NULL;

      uid = (guint) g_random_int_range (SANDBOX_UID_FIRST, SANDBOX_UID_LAST + 1);
      text = g_strdup_printf ("%u", uid);
      if (!g_hash_table_contains (used, text))
        break;
    }
  return g_strdup_printf ("%u:%u", uid, uid);
}

/* The container's whole configuration. Nothing comes from the host's
 * environment; every limit is a hard cap. The engine must be identified: Docker and Podman
 * differ in a few options. */
static JsonNode *
assay_docker_backend_build_create_body (const AssaySandboxSpec *spec,
                                        AssayDockerClient      *client,
                                        const char             *user,
                                        const char             *data_volume)
{
  gboolean podman = assay_docker_client_get_engine (client) == ASSAY_DOCKER_ENGINE_PODMAN;
  g_autofree char *uid_part = g_strndup (user, strcspn (user, ":"));
  const AssaySandboxLimits *limits = &spec->limits;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree char *threads_env = NULL;
  g_autofree char *omp_env = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *pid_start = assay_sandbox_read_process_start_time ("self");
  g_autofree char *boot_id = assay_docker_backend_read_boot_id ();
  g_autofree char *uid = g_strdup_printf ("%u", (guint) getuid ());
  g_autofree char *tmp_options = NULL;
  g_autofree char *workspace_options = NULL;
  const char *cmd[] = { "python3", "-I", KERNEL_PATH, NULL };
  const char *cap_drop[] = { "ALL", NULL };
  const char *security_opt[] = { "no-new-privileges", NULL };
  guint threads;

  /* ceil (cpus), at least one; no libm for one rounding. */
  threads = limits->cpus > 0 ? (guint) limits->cpus : 1;
  if (limits->cpus > threads)
    threads++;
  threads = MAX (threads, 1);
  threads_env = g_strdup_printf ("OPENBLAS_NUM_THREADS=%u", threads);
  omp_env = g_strdup_printf ("OMP_NUM_THREADS=%u", threads);

  tmp_options = g_strdup_printf ("rw,nosuid,nodev,size=%" G_GUINT64_FORMAT, limits->tmp_bytes);
  /* /workspace belongs to the sandbox's user. Docker hands uid= and gid= to the kernel;
   * Podman refuses them ("unknown mount option") and has U, which chowns the tmpfs to the
   * container's user, and which Docker refuses in turn. */
  if (podman)
    workspace_options = g_strdup_printf ("rw,nosuid,nodev,size=%" G_GUINT64_FORMAT ",U,mode=0755",
                                         limits->workspace_bytes);
  else
    workspace_options = g_strdup_printf ("rw,nosuid,nodev,size=%" G_GUINT64_FORMAT
                                         ",uid=%s,gid=%s,mode=0755", limits->workspace_bytes,
                                         uid_part, uid_part);

  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "Image");
  json_builder_add_string_value (builder, spec->image_ref);
  assay_docker_backend_add_string_array (builder,
                                         "Cmd",
                                         spec->command ? (const char * const *) spec->command : cmd);
  json_builder_set_member_name (builder, "Entrypoint");
  json_builder_begin_array (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "User");
  json_builder_add_string_value (builder, user);
  json_builder_set_member_name (builder, "WorkingDir");
  json_builder_add_string_value (builder, "/workspace");
  json_builder_set_member_name (builder, "Hostname");
  json_builder_add_string_value (builder, "sandbox");

  {
    const char *env[] = {
      "PATH=/usr/local/bin:/usr/bin:/bin",
      "HOME=/tmp",
      "LANG=C.UTF-8",
      "MPLBACKEND=Agg",
      "MPLCONFIGDIR=/tmp/matplotlib",
      "PYTHONDONTWRITEBYTECODE=1",
      threads_env,
      omp_env,
      NULL
    };

    assay_docker_backend_add_string_array (builder, "Env", env);
  }

  json_builder_set_member_name (builder, "OpenStdin");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "StdinOnce");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_set_member_name (builder, "AttachStdin");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStdout");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStderr");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Tty");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_set_member_name (builder, "NetworkDisabled");
  json_builder_add_boolean_value (builder, TRUE);

  /* Who owns the container, so remove_leftovers can tell a crashed run's
   * sandboxes from those of a run that is still alive. */
  json_builder_set_member_name (builder, "Labels");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, LABEL_SESSION);
  json_builder_add_string_value (builder, spec->session_id);
  json_builder_set_member_name (builder, LABEL_PID);
  json_builder_add_string_value (builder, pid);
  json_builder_set_member_name (builder, LABEL_PID_START);
  json_builder_add_string_value (builder, pid_start != NULL ? pid_start : "");
  if (boot_id != NULL)
    {
      json_builder_set_member_name (builder, LABEL_BOOT_ID);
      json_builder_add_string_value (builder, boot_id);
    }
  json_builder_set_member_name (builder, LABEL_UID);
  json_builder_add_string_value (builder, uid);
  json_builder_set_member_name (builder, LABEL_SANDBOX_UID);
  json_builder_add_string_value (builder, uid_part);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "HostConfig");
  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "NetworkMode");
  json_builder_add_string_value (builder, "none");
  json_builder_set_member_name (builder, "IpcMode");
  json_builder_add_string_value (builder, "private");

  /* MemorySwap == Memory: no swap on top of the RAM cap. */
  json_builder_set_member_name (builder, "Memory");
  json_builder_add_int_value (builder, assay_docker_backend_clamp_to_int64 (limits->memory_bytes));
  json_builder_set_member_name (builder, "MemorySwap");
  json_builder_add_int_value (builder, assay_docker_backend_clamp_to_int64 (limits->memory_bytes));
  if (limits->cpus > 0)
    {
      json_builder_set_member_name (builder, "NanoCpus");
      json_builder_add_int_value (builder, (gint64) (limits->cpus * 1e9));
    }
  json_builder_set_member_name (builder, "PidsLimit");
  json_builder_add_int_value (builder, limits->pids);

  json_builder_set_member_name (builder, "ReadonlyRootfs");
  json_builder_add_boolean_value (builder, TRUE);
  assay_docker_backend_add_string_array (builder, "CapDrop", cap_drop);
  assay_docker_backend_add_string_array (builder, "SecurityOpt", security_opt);
  /* The kernel is the container's init itself: its supervisor reaps orphans and sweeps
   * what a cell leaves behind, and, being non-dumpable, its descriptors cannot be opened
   * through /proc/1/fd by the user code it runs. Under docker-init, PID 1 would hold the
   * attach pipes open to anyone of the sandbox's uid, and a cell could forge the channel.
   * Other commands (tests) get docker-init to reap for them. */
  json_builder_set_member_name (builder, "Init");
  json_builder_add_boolean_value (builder, spec->command != NULL);

  json_builder_set_member_name (builder, "Tmpfs");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "/tmp");
  json_builder_add_string_value (builder, tmp_options);
  json_builder_set_member_name (builder, "/workspace");
  json_builder_add_string_value (builder, workspace_options);
  json_builder_end_object (builder);

  /* No daemon-side copy of the output: it would grow without bound. */
  json_builder_set_member_name (builder, "LogConfig");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Type");
  json_builder_add_string_value (builder, "none");
  json_builder_set_member_name (builder, "Config");
  json_builder_begin_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  if (spec->data_dir != NULL && data_volume != NULL)
    {
      /* An engine elsewhere sees none of this machine's files: a volume of this sandbox's,
       * which the files were sent to through the archive endpoint
       * (assay_docker_instance_upload, through an uploader container kept for files added
       * later), removed with it. */
      json_builder_set_member_name (builder, "Mounts");
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "Type");
      json_builder_add_string_value (builder, "volume");
      json_builder_set_member_name (builder, "Source");
      json_builder_add_string_value (builder, data_volume);
      json_builder_set_member_name (builder, "Target");
      json_builder_add_string_value (builder, "/data");
      json_builder_set_member_name (builder, "ReadOnly");
      json_builder_add_boolean_value (builder, TRUE);
      json_builder_end_object (builder);
      json_builder_end_array (builder);
    }
  else if (spec->data_dir != NULL)
    {
      /* A Mount, not a "src:dst:ro" bind string: a path with ':' or ','
       * cannot be misparsed, and a missing folder is an error instead of being
       * created (as root) by the daemon. */
      json_builder_set_member_name (builder, "Mounts");
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "Type");
      json_builder_add_string_value (builder, "bind");
      json_builder_set_member_name (builder, "Source");
      json_builder_add_string_value (builder, spec->data_dir);
      json_builder_set_member_name (builder, "Target");
      json_builder_add_string_value (builder, "/data");
      json_builder_set_member_name (builder, "ReadOnly");
      json_builder_add_boolean_value (builder, TRUE);
      json_builder_end_object (builder);
      json_builder_end_array (builder);
    }

  json_builder_set_member_name (builder, "Ulimits");
  json_builder_begin_array (builder);
  assay_docker_backend_add_ulimit (builder,
                                   "fsize",
                                   assay_docker_backend_clamp_to_int64 (limits->file_bytes));
  assay_docker_backend_add_ulimit (builder, "nofile", SANDBOX_NOFILE);
  assay_docker_backend_add_ulimit (builder, "core", 0);   /* no core dumps of the sandbox's memory on the host */
  if (podman)
    assay_docker_backend_add_ulimit (builder, "nproc", assay_docker_backend_process_rlimit ());
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "RestartPolicy");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Name");
  json_builder_add_string_value (builder, "no");
  json_builder_end_object (builder);

  json_builder_end_object (builder);

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/* Docker creates a container with a limit "discarded" when the kernel lacks
 * the cgroup for it; such a sandbox must not run. */
static gboolean
assay_docker_backend_check_create_warnings (JsonObject  *created,
                                            GError     **error)
{
  JsonNode *warnings = json_object_get_member (created, "Warnings");
  JsonArray *array;

  if (warnings == NULL || !JSON_NODE_HOLDS_ARRAY (warnings))
    return TRUE;

  array = json_node_get_array (warnings);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *warning;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        continue;

      warning = json_node_get_string (element);
      if (strstr (warning, "discarded") != NULL)
        {
          g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                       _("Docker cannot enforce the sandbox's limits: %s"), warning);
          return FALSE;
        }

      g_debug ("Docker: %s", warning);
    }

  return TRUE;
}

/* What the engine made of the create, read back: an engine may take a limit and drop it
 * without a word (rootless Podman on cgroup v1 answers with no warning at all). Podman's own
 * inspection has BoundingCaps, its compatible one only the capabilities it dropped. */
static gboolean
assay_docker_backend_read_back (AssayDockerBackend      *self,
                                const char              *container_id,
                                const AssaySandboxSpec  *spec,
                                const char              *user,
                                GCancellable            *cancellable,
                                GError                 **error)
{
  gboolean podman = assay_docker_client_get_engine (self->client) == ASSAY_DOCKER_ENGINE_PODMAN;
  g_autofree char *escaped = assay_docker_escape_path_segment (container_id);
  g_autofree char *path = g_strdup_printf (podman ? "/libpod/containers/%s/json" : "/containers/%s/json",
                                           escaped);
  g_autofree char *engine = assay_docker_client_describe_engine (self->client);
  g_autoptr(JsonNode) inspected = NULL;
  g_autoptr(GError) local_error = NULL;
  AssayDockerHardening hardening = {
    .user = user,
    .open_files = SANDBOX_NOFILE,
  };

  inspected = assay_docker_client_request (self->client, "GET", path, NULL, NULL, cancellable, &local_error);
  if (inspected == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  _("Cannot read the sandbox container's limits back: "));
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (inspected))
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           _("Cannot read the sandbox container's limits back: the engine sent no object"));
      return FALSE;
    }
  if (!assay_docker_check_hardening (json_node_get_object (inspected), spec, &hardening, &local_error))
    {
      g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                   _("%s does not enforce the sandbox's limits, so it was not started (%s)"),
                   engine, local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* What a failed launch sent its datasets through and into, removed in that order (NULLs skipped). */
static void
assay_docker_backend_remove_data (AssayDockerClient *client,
                                  const char        *uploader,
                                  const char        *volume)
{
  if (uploader != NULL)
    assay_docker_instance_remove_uploader (client, uploader);
  if (volume != NULL)
    assay_docker_instance_remove_volume (client, volume);
}

static AssaySandboxInstance *
assay_docker_backend_launch (AssaySandboxBackend     *backend,
                             const AssaySandboxSpec  *spec,
                             GCancellable            *cancellable,
                             GError                 **error)
{
  AssayDockerBackend *self = ASSAY_DOCKER_BACKEND (backend);
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonNode) created = NULL;
  g_autoptr(JsonNode) started = NULL;
  g_autoptr(GIOStream) connection = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *escaped_name = NULL;
  g_autofree char *escaped_id = NULL;
  g_autofree char *path = NULL;
  g_autofree char *container_id = NULL;
  g_autofree char *volume = NULL;
  g_autofree char *uploader = NULL;
  g_autofree char *user = NULL;
  AssaySandboxInstance *instance;
  const char *id;

  if (!assay_docker_backend_is_valid_session_id (spec->session_id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Invalid sandbox session id “%s”", spec->session_id ? spec->session_id : "");
      return NULL;
    }

  if (spec->image_ref == NULL || spec->image_ref[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "No sandbox image to run");
      return NULL;
    }

  if (!assay_docker_client_identify (self->client, cancellable, &local_error))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "Cannot tell which engine answers: ");
      return NULL;
    }

  name = g_strdup_printf ("assay-%s-%08x", spec->session_id, g_random_int ());
  escaped_name = g_uri_escape_string (name, NULL, FALSE);
  path = g_strdup_printf ("/containers/create?name=%s", escaped_name);
  /* The datasets, sent to an engine elsewhere before the sandbox is created. */
  if (assay_docker_client_get_remote_host (self->client) != NULL && spec->data_dir != NULL)
    {
      volume = g_strdup_printf ("%s-data", name);
      if (!assay_docker_instance_create_volume (self->client, volume, spec->session_id, cancellable, &local_error) ||
          (uploader = assay_docker_instance_create_uploader (self->client, spec->image_ref, spec->session_id,
                                                             volume, cancellable, &local_error)) == NULL ||
          !assay_docker_instance_upload (self->client, uploader, spec->data_dir, NULL, cancellable, &local_error))
        {
          assay_docker_backend_remove_data (self->client, uploader, volume);
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                      _("Cannot send the datasets to the Docker engine: "));
          return NULL;
        }
    }
  user = assay_docker_backend_pick_user (self->client, cancellable);
  body = assay_docker_backend_build_create_body (spec, self->client, user, volume);

  created = assay_docker_client_request (self->client, "POST", path, body, NULL,
                                         cancellable, &local_error);
  if (created == NULL)
    {
      /* Debian's podman does not pull catatonit in when tini is installed; only commands
       * other than the kernel (benchmarks, tests) ask for an init. */
      if (local_error->domain == ASSAY_DOCKER_ERROR && strstr (local_error->message, "container-init") != NULL)
        g_prefix_error (&local_error, _("Podman has no init for the container: install catatonit "
                                        "(Debian's podman does not bring it in when tini is installed): "));
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "Cannot create the sandbox container: ");
      assay_docker_backend_remove_data (self->client, uploader, volume);
      return NULL;
    }

  id = JSON_NODE_HOLDS_OBJECT (created)
         ? assay_json_get_string (json_node_get_object (created), "Id") : NULL;
  if (id == NULL || !assay_docker_backend_is_valid_container_id (id))
    {
      /* We cannot remove what we cannot name; try the name we chose. */
      assay_docker_backend_remove_container (self->client, name, NULL);
      assay_docker_backend_remove_data (self->client, uploader, volume);
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           "The Docker daemon sent an invalid container id");
      return NULL;
    }

  container_id = g_strdup (id);

  if (!assay_docker_backend_check_create_warnings (json_node_get_object (created), &local_error))
    goto fail;

  if (!assay_docker_backend_read_back (self, container_id, spec, user, cancellable, &local_error))
    goto fail;

  /* Attached before the start, so no output of the kernel is missed. */
  connection = assay_docker_client_attach (self->client, container_id, cancellable, &local_error);
  if (connection == NULL)
    {
      g_prefix_error (&local_error, _("Cannot attach to the sandbox container: "));
      goto fail;
    }

  g_free (path);
  escaped_id = assay_docker_escape_path_segment (container_id);
  path = g_strdup_printf ("/containers/%s/start", escaped_id);
  started = assay_docker_client_request (self->client, "POST", path, NULL, NULL,
                                         cancellable, &local_error);
  if (started == NULL)
    {
      if (strstr (local_error->message, "error setting rlimit") != NULL)
        g_prefix_error (&local_error, _("the engine may not set the sandbox's rlimits: "));
      g_prefix_error (&local_error, _("Cannot start the sandbox container: "));
      goto fail;
    }

  instance = assay_docker_instance_new (self->client, container_id,
                                        G_SOCKET_CONNECTION (connection), spec->limits.memory_bytes,
                                        spec->command == NULL);
  if (volume != NULL)
    assay_docker_instance_set_data_volume (ASSAY_DOCKER_INSTANCE (instance), volume, uploader, spec->image_ref,
                                           spec->session_id, spec->data_dir);
  return instance;

fail:
  if (connection != NULL)
    g_io_stream_close (connection, NULL, NULL);

  {
    g_autoptr(GError) remove_error = NULL;

    if (!assay_docker_backend_remove_container (self->client, container_id, &remove_error))
      g_warning ("Cannot remove the sandbox container %.12s after a failed launch: %s",
                 container_id, remove_error->message);
    assay_docker_backend_remove_data (self->client, uploader, volume);
  }

  g_propagate_error (error, g_steal_pointer (&local_error));
  return NULL;
}

/* Whether a container labelled by some run of Assay belongs to a run that is
 * gone. A run that is alive, ours or another, keeps its sandboxes. */
static gboolean
assay_docker_backend_is_leftover (JsonObject *labels,
                                  const char *our_boot_id,
                                  const char *our_uid)
{
  const char *pid = assay_json_get_string (labels, LABEL_PID);
  const char *pid_start = assay_json_get_string (labels, LABEL_PID_START);
  const char *boot_id = assay_json_get_string (labels, LABEL_BOOT_ID);
  const char *uid = assay_json_get_string (labels, LABEL_UID);
  g_autofree char *current_start = NULL;
  guint64 pid_value = 0;

  /* Another user's run: its processes may be hidden from us (hidepid), so we
   * cannot tell whether it is alive. Its own next run cleans up. */
  if (uid != NULL && our_uid != NULL && !g_str_equal (uid, our_uid))
    return FALSE;

  if (pid == NULL || !g_ascii_string_to_unsigned (pid, 10, 1, G_MAXINT32, &pid_value, NULL))
    return TRUE;

  if (boot_id != NULL && our_boot_id != NULL && !g_str_equal (boot_id, our_boot_id))
    return TRUE;

  current_start = assay_sandbox_read_process_start_time (pid);
  if (current_start == NULL)
    return TRUE;

  return pid_start == NULL || !g_str_equal (current_start, pid_start);
}

/* The /data volumes of an engine elsewhere that a crashed run left (after its containers:
 * a volume in use cannot be removed). */
static void
assay_docker_backend_remove_leftover_volumes (AssayDockerBackend *self,
                                              const char         *boot_id,
                                              const char         *uid,
                                              GCancellable       *cancellable)
{
  g_autofree char *filters = g_uri_escape_string ("{\"label\":[\"" LABEL_SESSION "\"]}", NULL, FALSE);
  g_autofree char *path = g_strdup_printf ("/volumes?filters=%s", filters);
  g_autoptr(JsonNode) listed = assay_docker_client_request (self->client, "GET", path, NULL, NULL, cancellable, NULL);
  JsonArray *volumes;

  if (listed == NULL || !JSON_NODE_HOLDS_OBJECT (listed))
    return;
  volumes = assay_json_get_array (json_node_get_object (listed), "Volumes");
  for (guint i = 0; volumes != NULL && i < json_array_get_length (volumes); i++)
    {
      JsonNode *element = json_array_get_element (volumes, i);
      JsonObject *volume = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      JsonObject *labels = volume != NULL ? assay_json_get_object (volume, "Labels") : NULL;
      const char *name = volume != NULL ? assay_json_get_string (volume, "Name") : NULL;

      if (name == NULL || !g_str_has_prefix (name, "assay-") || labels == NULL ||
          assay_json_get_string (labels, LABEL_SESSION) == NULL || !assay_docker_backend_is_leftover (labels, boot_id, uid))
        continue;
      assay_docker_instance_remove_volume (self->client, name);
    }
}

static guint
assay_docker_backend_remove_leftovers (AssaySandboxBackend *backend,
                                       GCancellable        *cancellable)
{
  AssayDockerBackend *self = ASSAY_DOCKER_BACKEND (backend);
  g_autoptr(JsonNode) listed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *filters = NULL;
  g_autofree char *path = NULL;
  g_autofree char *boot_id = assay_docker_backend_read_boot_id ();
  g_autofree char *uid = g_strdup_printf ("%u", (guint) getuid ());
  JsonArray *containers;
  guint removed = 0;

  filters = g_uri_escape_string ("{\"label\":[\"" LABEL_SESSION "\"]}", NULL, FALSE);
  path = g_strdup_printf ("/containers/json?all=1&filters=%s", filters);

  listed = assay_docker_client_request (self->client, "GET", path, NULL, NULL, cancellable, &error);
  if (listed == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Cannot list leftover sandboxes: %s", error->message);
      return 0;
    }

  if (!JSON_NODE_HOLDS_ARRAY (listed))
    return 0;

  containers = json_node_get_array (listed);
  for (guint i = 0; i < json_array_get_length (containers); i++)
    {
      JsonNode *element = json_array_get_element (containers, i);
      g_autoptr(GError) remove_error = NULL;
      JsonObject *container;
      JsonObject *labels;
      const char *id;

      if (g_cancellable_is_cancelled (cancellable))
        break;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;

      container = json_node_get_object (element);
      id = assay_json_get_string (container, "Id");
      labels = assay_json_get_object (container, "Labels");

      /* The filter is the daemon's; check the label ourselves as well. */
      if (id == NULL || !assay_docker_backend_is_valid_container_id (id) || labels == NULL ||
          assay_json_get_string (labels, LABEL_SESSION) == NULL)
        continue;

      if (!assay_docker_backend_is_leftover (labels, boot_id, uid))
        continue;

      if (assay_docker_backend_remove_container (self->client, id, &remove_error))
        removed++;
      else
        g_debug ("Cannot remove leftover sandbox %.12s: %s", id, remove_error->message);
    }

  assay_docker_backend_remove_leftover_volumes (self, boot_id, uid, cancellable);
  return removed;
}

static void
assay_docker_backend_sandbox_backend_iface_init (AssaySandboxBackendInterface *iface)
{
  iface->get_name = assay_docker_backend_get_name;
  iface->probe = assay_docker_backend_probe;
  iface->launch = assay_docker_backend_launch;
  iface->remove_leftovers = assay_docker_backend_remove_leftovers;
}

static void
assay_docker_backend_dispose (GObject *object)
{
  AssayDockerBackend *self = (AssayDockerBackend *) object;

  g_clear_object (&self->client);

  G_OBJECT_CLASS (assay_docker_backend_parent_class)->dispose (object);
}

static void
assay_docker_backend_class_init (AssayDockerBackendClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = assay_docker_backend_dispose;
}

static void
assay_docker_backend_init (AssayDockerBackend *self)
{
}

AssayDockerBackend *
assay_docker_backend_new (const char *socket_path)
{
  AssayDockerBackend *self = g_object_new (ASSAY_TYPE_DOCKER_BACKEND, NULL);

  self->client = assay_docker_client_new (socket_path);

  return self;
}

AssayDockerClient *
assay_docker_backend_get_client (AssayDockerBackend *self)
{
  g_return_val_if_fail (ASSAY_IS_DOCKER_BACKEND (self), NULL);

  return self->client;
}
