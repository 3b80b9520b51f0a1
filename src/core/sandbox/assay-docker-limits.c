/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The limits of a created container, read back before it may run anything. */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-docker-client.h"
#include "assay-docker-limits.h"
#include "assay-json.h"

static char *
assay_docker_limits_format_bytes (gint64 bytes)
{
  if (bytes <= 0)
    return g_strdup (_("none"));
  return g_format_size_full ((guint64) bytes, G_FORMAT_SIZE_IEC_UNITS);
}

static void
assay_docker_limits_add (GPtrArray  *missing,
                         const char *what,
                         const char *asked,
                         const char *got)
{
  /* TRANSLATORS: e.g. "memory: asked 2.0 GiB, in force none" */
  g_ptr_array_add (missing, g_strdup_printf (_("%s: asked %s, in force %s"), what, asked, got));
}

static void
assay_docker_limits_add_number (GPtrArray  *missing,
                                const char *what,
                                gint64      asked,
                                gint64      got,
                                gboolean    got_any)
{
  g_autofree char *asked_text = g_strdup_printf ("%" G_GINT64_FORMAT, asked);
  g_autofree char *got_text = got_any ? g_strdup_printf ("%" G_GINT64_FORMAT, got) : g_strdup (_("none"));

  assay_docker_limits_add (missing, what, asked_text, got_text);
}

static void
assay_docker_limits_check_bytes (GPtrArray   *missing,
                                 JsonObject  *host_config,
                                 const char  *member,
                                 const char  *what,
                                 guint64      asked)
{
  gint64 got = assay_json_get_int_or (host_config, member, 0);
  g_autofree char *asked_text = NULL;
  g_autofree char *got_text = NULL;

  if (got > 0 && (guint64) got == asked)
    return;
  asked_text = assay_docker_limits_format_bytes ((gint64) MIN (asked, (guint64) G_MAXINT64));
  got_text = assay_docker_limits_format_bytes (got);
  assay_docker_limits_add (missing, what, asked_text, got_text);
}

static gboolean
assay_docker_limits_array_has_string (JsonArray  *array,
                                      const char *const *accepted)
{
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        for (guint j = 0; accepted[j] != NULL; j++)
          if (g_ascii_strcasecmp (json_node_get_string (element), accepted[j]) == 0)
            return TRUE;
    }
  return FALSE;
}

static gboolean
assay_docker_limits_array_is_empty (JsonObject *object,
                                    const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  return JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) == 0;
}

/* No capability left: Docker reports CapDrop ["ALL"]; Podman's compatible inspection lists
 * the default capabilities it dropped instead, and its own says BoundingCaps is empty. */
static gboolean
assay_docker_limits_has_no_capabilities (JsonObject *inspected,
                                         JsonObject *host_config)
{
  static const char *const all[] = { "ALL", "CAP_ALL", NULL };

  if (json_object_has_member (inspected, "BoundingCaps"))
    return assay_docker_limits_array_is_empty (inspected, "BoundingCaps");
  return assay_docker_limits_array_has_string (assay_json_get_array (host_config, "CapDrop"), all) &&
         assay_docker_limits_array_is_empty (host_config, "CapAdd");
}

/* The ulimit NAME ("fsize"; Podman writes "RLIMIT_FSIZE") as soft and hard, or FALSE. */
static gboolean
assay_docker_limits_find_ulimit (JsonObject *host_config,
                                 const char *name,
                                 gint64     *soft,
                                 gint64     *hard)
{
  JsonArray *ulimits = assay_json_get_array (host_config, "Ulimits");
  g_autofree char *rlimit_name = g_strconcat ("RLIMIT_", name, NULL);

  for (guint i = 0; ulimits != NULL && i < json_array_get_length (ulimits); i++)
    {
      JsonNode *element = json_array_get_element (ulimits, i);
      JsonObject *ulimit;
      const char *ulimit_name;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      ulimit = json_node_get_object (element);
      ulimit_name = assay_json_get_string (ulimit, "Name");
      if (ulimit_name == NULL ||
          (g_ascii_strcasecmp (ulimit_name, name) != 0 && g_ascii_strcasecmp (ulimit_name, rlimit_name) != 0))
        continue;
      return assay_json_get_int (ulimit, "Soft", soft) && assay_json_get_int (ulimit, "Hard", hard);
    }
  return FALSE;
}

static void
assay_docker_limits_check_ulimit (GPtrArray  *missing,
                                  JsonObject *host_config,
                                  const char *name,
                                  const char *what,
                                  gint64      asked)
{
  gint64 soft = 0;
  gint64 hard = 0;

  if (!assay_docker_limits_find_ulimit (host_config, name, &soft, &hard))
    assay_docker_limits_add_number (missing, what, asked, 0, FALSE);
  else if (hard != asked || soft != asked)
    assay_docker_limits_add_number (missing, what, asked, hard, TRUE);
}

static void
assay_docker_limits_check_tmpfs (GPtrArray  *missing,
                                 JsonObject *host_config,
                                 const char *target)
{
  JsonObject *tmpfs = assay_json_get_object (host_config, "Tmpfs");
  const char *options = tmpfs != NULL ? assay_json_get_string (tmpfs, target) : NULL;
  g_auto(GStrv) parts = options != NULL ? g_strsplit (options, ",", -1) : NULL;

  for (guint i = 0; parts != NULL && parts[i] != NULL; i++)
    if (g_str_has_prefix (parts[i], "size=") && parts[i][5] != '\0' && !g_str_equal (parts[i], "size=0"))
      return;
  g_ptr_array_add (missing, g_strdup_printf (_("%s: no size-capped tmpfs"), target));
}

/* /data, when there is one, is mounted read-only. */
static void
assay_docker_limits_check_data (GPtrArray  *missing,
                                JsonObject *inspected)
{
  JsonArray *mounts = assay_json_get_array (inspected, "Mounts");

  for (guint i = 0; mounts != NULL && i < json_array_get_length (mounts); i++)
    {
      JsonNode *element = json_array_get_element (mounts, i);
      JsonObject *mount;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      mount = json_node_get_object (element);
      if (g_strcmp0 (assay_json_get_string (mount, "Destination"), "/data") != 0)
        continue;
      if (assay_json_get_boolean_or (mount, "RW", TRUE))
        g_ptr_array_add (missing, g_strdup (_("/data: writable")));
      return;
    }
  g_ptr_array_add (missing, g_strdup (_("/data: not mounted")));
}

static void
assay_docker_limits_check_cpus (GPtrArray  *missing,
                                JsonObject *host_config,
                                double      asked)
{
  gint64 nano_cpus = assay_json_get_int_or (host_config, "NanoCpus", 0);
  gint64 quota = assay_json_get_int_or (host_config, "CpuQuota", 0);
  gint64 period = assay_json_get_int_or (host_config, "CpuPeriod", 0);
  g_autofree char *asked_text = g_strdup_printf ("%.2f", asked);
  g_autofree char *got_text = NULL;
  double got = 0;

  /* Docker keeps NanoCpus; Podman turns it into a CFS quota over a period as well. */
  if (nano_cpus > 0)
    got = (double) nano_cpus / 1e9;
  else if (quota > 0 && period > 0)
    got = (double) quota / (double) period;

  if (got > 0 && got - asked < 0.01 && asked - got < 0.01)
    return;
  got_text = got > 0 ? g_strdup_printf ("%.2f", got) : g_strdup (_("none"));
  assay_docker_limits_add (missing, _("CPU"), asked_text, got_text);
}

gboolean
assay_docker_check_hardening (JsonObject                 *inspected,
                              const AssaySandboxSpec     *spec,
                              const AssayDockerHardening *hardening,
                              GError                    **error)
{
  static const char *const no_new_privileges[] = {
    "no-new-privileges", "no-new-privileges:true", "no-new-privileges=true", NULL
  };
  const AssaySandboxLimits *limits;
  g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *list = NULL;
  JsonObject *host_config;
  JsonObject *config;
  gint64 pids;
  const char *text;

  g_return_val_if_fail (inspected != NULL, FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail (hardening != NULL, FALSE);

  limits = &spec->limits;
  host_config = assay_json_get_object (inspected, "HostConfig");
  config = assay_json_get_object (inspected, "Config");
  if (host_config == NULL || config == NULL)
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           _("the engine did not describe the container's configuration"));
      return FALSE;
    }

  assay_docker_limits_check_bytes (missing, host_config, "Memory", _("memory"), limits->memory_bytes);
  assay_docker_limits_check_bytes (missing, host_config, "MemorySwap", _("memory with swap"),
                                   limits->memory_bytes);

  pids = assay_json_get_int_or (host_config, "PidsLimit", 0);
  if (pids != limits->pids)
    assay_docker_limits_add_number (missing, _("processes"), limits->pids, pids, pids > 0);

  if (limits->cpus > 0)
    assay_docker_limits_check_cpus (missing, host_config, limits->cpus);

  if (!assay_json_get_boolean_or (host_config, "ReadonlyRootfs", FALSE))
    g_ptr_array_add (missing, g_strdup (_("read-only root: off")));
  text = assay_json_get_string (host_config, "NetworkMode");
  if (g_strcmp0 (text, "none") != 0)
    g_ptr_array_add (missing, g_strdup_printf (_("network: “%s” instead of none"), text ? text : ""));
  if (assay_json_get_boolean_or (host_config, "Privileged", TRUE))
    g_ptr_array_add (missing, g_strdup (_("privileged")));
  if (!assay_docker_limits_has_no_capabilities (inspected, host_config))
    g_ptr_array_add (missing, g_strdup (_("capabilities: not all dropped")));
  if (!assay_docker_limits_array_has_string (assay_json_get_array (host_config, "SecurityOpt"), no_new_privileges))
    g_ptr_array_add (missing, g_strdup (_("no-new-privileges: off")));
  text = assay_json_get_string (host_config, "PidMode");
  if (g_strcmp0 (text, "host") == 0)
    g_ptr_array_add (missing, g_strdup (_("processes: the host's are shared")));
  text = assay_json_get_string (host_config, "IpcMode");
  if (g_strcmp0 (text, "host") == 0)
    g_ptr_array_add (missing, g_strdup (_("IPC: the host's is shared")));

  text = assay_json_get_string (config, "User");
  if (g_strcmp0 (text, hardening->user) != 0)
    assay_docker_limits_add (missing, _("user"), hardening->user, text != NULL && text[0] != '\0' ? text : _("none"));

  assay_docker_limits_check_ulimit (missing, host_config, "fsize", _("file size"),
                                    (gint64) MIN (limits->file_bytes, (guint64) G_MAXINT64));
  assay_docker_limits_check_ulimit (missing, host_config, "core", _("core dumps"), 0);
  assay_docker_limits_check_ulimit (missing, host_config, "nofile", _("open files"), hardening->open_files);

  assay_docker_limits_check_tmpfs (missing, host_config, "/tmp");
  assay_docker_limits_check_tmpfs (missing, host_config, "/workspace");
  if (spec->data_dir != NULL)
    assay_docker_limits_check_data (missing, inspected);

  if (missing->len == 0)
    return TRUE;

  g_ptr_array_add (missing, NULL);
  list = g_strjoinv ("; ", (char **) missing->pdata);
  g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED, list);
  return FALSE;
}
