/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The read-back of a created container's limits (assay-docker-limits) against inspections
 * recorded from real engines (tests/engines/): Docker 20.10, rootful Podman 4.3, and rootless
 * Podman 4.3 on cgroup v1, which took every limit and dropped it without a warning; and the
 * recorded ones doctored, one limit at a time. No engine is needed. */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "assay-docker-client.h"
#include "assay-docker-limits.h"
#include "assay-json.h"

#define SANDBOX_USER  "2147480000:2147480000"
#define ROOTLESS_USER "1000:1000"

static JsonNode *
load_inspection (const char *name)
{
  g_autofree char *path = g_build_filename (ENGINES_DIR, name, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;
  JsonNode *node;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  node = assay_json_from_untrusted (contents, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return node;
}

/* The spec the recordings were made with: `assay-cli exec --data FILE`'s defaults. */
static AssaySandboxSpec *
recorded_spec (void)
{
  AssaySandboxSpec *spec = assay_sandbox_spec_new ();

  spec->session_id = g_strdup ("recorded");
  spec->data_dir = g_strdup ("/data-on-the-host");
  return spec;
}

static gboolean
check (JsonNode    *inspected,
       const char  *user,
       GError     **error)
{
  g_autoptr(AssaySandboxSpec) spec = recorded_spec ();
  AssayDockerHardening hardening = { .user = user, .open_files = 1024 };

  return assay_docker_check_hardening (json_node_get_object (inspected), spec, &hardening, error);
}

static void
test_recorded_docker (void)
{
  g_autoptr(JsonNode) inspected = load_inspection ("docker-20.10-inspect.json");
  g_autoptr(GError) error = NULL;

  g_assert_true (check (inspected, SANDBOX_USER, &error));
  g_assert_no_error (error);
}

static void
test_recorded_podman_rootful (void)
{
  g_autoptr(JsonNode) inspected = load_inspection ("podman-4.3-rootful-inspect.json");
  g_autoptr(GError) error = NULL;

  /* CapDrop lists the default capabilities one by one here; BoundingCaps is what counts. */
  g_assert_true (check (inspected, SANDBOX_USER, &error));
  g_assert_no_error (error);
}

static void
test_recorded_podman_rootless_cgroup_v1 (void)
{
  g_autoptr(JsonNode) inspected = load_inspection ("podman-4.3-rootless-cgroupv1-inspect.json");
  g_autoptr(GError) error = NULL;

  /* The create answered 201 with "Warnings": [] and this is what it made. */
  g_assert_false (check (inspected, ROOTLESS_USER, &error));
  g_assert_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "memory: asked 2.0"));
  g_assert_nonnull (strstr (error->message, "in force none"));
  g_assert_nonnull (strstr (error->message, "processes: asked 256, in force none"));
  g_assert_nonnull (strstr (error->message, "CPU: asked 1.00, in force none"));
  g_assert_nonnull (strstr (error->message, "file size"));
  /* What it did keep is not listed. */
  g_assert_null (strstr (error->message, "read-only"));
  g_assert_null (strstr (error->message, "network"));
  g_assert_null (strstr (error->message, "capabilities"));
}

typedef struct
{
  const char *name;
  void      (*doctor) (JsonObject *inspected, JsonObject *host_config);
  const char *expected;   /* in the message */
} Doctoring;

static void no_memory (JsonObject *i, JsonObject *h) { json_object_set_int_member (h, "Memory", 0); }
static void other_memory (JsonObject *i, JsonObject *h) { json_object_set_int_member (h, "Memory", 4294967296); }
static void unlimited_swap (JsonObject *i, JsonObject *h) { json_object_set_int_member (h, "MemorySwap", -1); }
static void no_pids (JsonObject *i, JsonObject *h) { json_object_remove_member (h, "PidsLimit"); }
static void pids_null (JsonObject *i, JsonObject *h) { json_object_set_null_member (h, "PidsLimit"); }
static void no_cpu (JsonObject *i, JsonObject *h)
{
  json_object_set_int_member (h, "NanoCpus", 0);
  json_object_set_int_member (h, "CpuQuota", 0);
}
static void writable_root (JsonObject *i, JsonObject *h) { json_object_set_boolean_member (h, "ReadonlyRootfs", FALSE); }
static void network (JsonObject *i, JsonObject *h) { json_object_set_string_member (h, "NetworkMode", "bridge"); }
static void privileged (JsonObject *i, JsonObject *h) { json_object_set_boolean_member (h, "Privileged", TRUE); }
static void capabilities_kept (JsonObject *i, JsonObject *h) { json_object_set_array_member (h, "CapDrop", json_array_new ()); }
static void capability_added (JsonObject *i, JsonObject *h)
{
  JsonArray *added = json_array_new ();

  json_array_add_string_element (added, "SYS_ADMIN");
  json_object_set_array_member (h, "CapAdd", added);
}
static void new_privileges (JsonObject *i, JsonObject *h) { json_object_set_array_member (h, "SecurityOpt", json_array_new ()); }
static void host_pids (JsonObject *i, JsonObject *h) { json_object_set_string_member (h, "PidMode", "host"); }
static void root_user (JsonObject *i, JsonObject *h)
{
  json_object_set_string_member (json_object_get_object_member (i, "Config"), "User", "");
}
static void no_open_files (JsonObject *i, JsonObject *h)
{
  JsonArray *ulimits = json_object_get_array_member (h, "Ulimits");

  for (guint n = 0; n < json_array_get_length (ulimits); n++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (ulimits, n), "Name"), "nofile"))
      json_array_remove_element (ulimits, n);
}
static void unsized_workspace (JsonObject *i, JsonObject *h)
{
  json_object_set_string_member (json_object_get_object_member (h, "Tmpfs"), "/workspace", "rw,nosuid,nodev");
}
static void writable_data (JsonObject *i, JsonObject *h)
{
  JsonArray *mounts = json_object_get_array_member (i, "Mounts");

  for (guint n = 0; n < json_array_get_length (mounts); n++)
    json_object_set_boolean_member (json_array_get_object_element (mounts, n), "RW", TRUE);
}
static void no_data (JsonObject *i, JsonObject *h) { json_object_set_array_member (i, "Mounts", json_array_new ()); }

static const Doctoring doctorings[] = {
  { "no-memory", no_memory, "memory: asked 2.0" },
  { "other-memory", other_memory, "in force 4.0" },
  { "unlimited-swap", unlimited_swap, "memory with swap" },
  { "no-pids", no_pids, "processes: asked 256, in force none" },
  { "pids-null", pids_null, "processes: asked 256, in force none" },
  { "no-cpu", no_cpu, "CPU: asked 1.00, in force none" },
  { "writable-root", writable_root, "read-only root: off" },
  { "network", network, "network: “bridge” instead of none" },
  { "privileged", privileged, "privileged" },
  { "capabilities-kept", capabilities_kept, "capabilities: not all dropped" },
  { "capability-added", capability_added, "capabilities: not all dropped" },
  { "new-privileges", new_privileges, "no-new-privileges: off" },
  { "host-pids", host_pids, "the host's are shared" },
  { "root-user", root_user, "user: asked 2147480000:2147480000, in force none" },
  { "no-open-files", no_open_files, "open files: asked 1024, in force none" },
  { "unsized-workspace", unsized_workspace, "/workspace: no size-capped tmpfs" },
  { "writable-data", writable_data, "/data: writable" },
  { "no-data", no_data, "/data: not mounted" },
};

static void
test_doctored (gconstpointer data)
{
  const Doctoring *doctoring = data;
  g_autoptr(JsonNode) inspected = load_inspection ("docker-20.10-inspect.json");
  JsonObject *object = json_node_get_object (inspected);
  g_autoptr(GError) error = NULL;

  doctoring->doctor (object, json_object_get_object_member (object, "HostConfig"));
  g_assert_false (check (inspected, SANDBOX_USER, &error));
  g_assert_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, doctoring->expected));
  /* Only what was doctored. */
  g_assert_null (strstr (error->message, "; "));
}

static void
test_podman_bounding_caps (void)
{
  g_autoptr(JsonNode) inspected = load_inspection ("podman-4.3-rootful-inspect.json");
  g_autoptr(GError) error = NULL;
  JsonArray *caps = json_array_new ();

  json_array_add_string_element (caps, "CAP_NET_RAW");
  json_object_set_array_member (json_node_get_object (inspected), "BoundingCaps", caps);
  g_assert_false (check (inspected, SANDBOX_USER, &error));
  g_assert_nonnull (strstr (error->message, "capabilities: not all dropped"));
}

static void
test_podman_cpu_quota (void)
{
  g_autoptr(JsonNode) inspected = load_inspection ("podman-4.3-rootful-inspect.json");
  JsonObject *host_config = json_object_get_object_member (json_node_get_object (inspected), "HostConfig");
  g_autoptr(GError) error = NULL;

  /* A quota over a period is as good as NanoCpus; half a core is not one. */
  json_object_set_int_member (host_config, "NanoCpus", 0);
  g_assert_true (check (inspected, SANDBOX_USER, NULL));
  json_object_set_int_member (host_config, "CpuQuota", 50000);
  g_assert_false (check (inspected, SANDBOX_USER, &error));
  g_assert_nonnull (strstr (error->message, "CPU: asked 1.00, in force 0.50"));
}

static void
test_no_configuration (void)
{
  g_autoptr(JsonNode) inspected = json_from_string ("{\"Id\":\"abc\"}", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (check (inspected, SANDBOX_USER, &error));
  g_assert_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED);
}

/* A forced removal that races a container stopping by itself: retried, not a failure. The
 * messages as Docker 20.10 (seen under load in CI) and Podman 4.3 answer. */
static void
test_stopping_race (void)
{
  g_autoptr(GError) docker = g_error_new_literal (ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                                                  "Could not kill running container bf344de683c9, cannot remove - "
                                                  "Container bf344de683c9 is not running");
  g_autoptr(GError) podman = g_error_new_literal (ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                                                  "could not be stopped: container state improper: stopped");
  g_autoptr(GError) other = g_error_new_literal (ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                                                 "driver failed removing the root file system");
  g_autoptr(GError) missing = g_error_new_literal (ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND,
                                                   "No such container: is not running");

  g_assert_true (assay_docker_error_is_stopping_race (docker));
  g_assert_true (assay_docker_error_is_stopping_race (podman));
  g_assert_false (assay_docker_error_is_stopping_race (other));
  g_assert_false (assay_docker_error_is_stopping_race (missing));
  g_assert_false (assay_docker_error_is_stopping_race (NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/assay/docker/limits/recorded/docker-20.10", test_recorded_docker);
  g_test_add_func ("/assay/docker/limits/recorded/podman-4.3-rootful", test_recorded_podman_rootful);
  g_test_add_func ("/assay/docker/limits/recorded/podman-4.3-rootless-cgroup-v1",
                   test_recorded_podman_rootless_cgroup_v1);
  for (guint i = 0; i < G_N_ELEMENTS (doctorings); i++)
    {
      g_autofree char *path = g_strdup_printf ("/assay/docker/limits/doctored/%s", doctorings[i].name);

      g_test_add_data_func (path, &doctorings[i], test_doctored);
    }
  g_test_add_func ("/assay/docker/limits/podman-bounding-caps", test_podman_bounding_caps);
  g_test_add_func ("/assay/docker/limits/podman-cpu-quota", test_podman_cpu_quota);
  g_test_add_func ("/assay/docker/limits/no-configuration", test_no_configuration);
  g_test_add_func ("/assay/docker/removal/stopping-race", test_stopping_race);

  return g_test_run ();
}
