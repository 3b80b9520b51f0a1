/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Docker"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <json-glib/json-glib.h>
#include <string.h>

#include "assay-docker-endpoint.h"
#include "assay-json.h"

/* A config.json or meta.json larger than this is not the docker CLI's. */
#define MAX_CONFIG_BYTES (1024 * 1024)

void
assay_docker_endpoint_free (AssayDockerEndpoint *endpoint)
{
  if (endpoint == NULL)
    return;
  g_free (endpoint->host);
  g_free (endpoint->context);
  g_free (endpoint->cert_dir);
  g_free (endpoint->error);
  g_free (endpoint);
}

static char *
config_dir (void)
{
  const char *dir = g_getenv ("DOCKER_CONFIG");

  if (dir != NULL && dir[0] != '\0')
    return g_strdup (dir);
  return g_build_filename (g_get_home_dir (), ".docker", NULL);
}

/* A small JSON file's root object, or NULL (missing, too large, not an object). */
static JsonNode *
read_object (const char  *path,
             GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  JsonNode *root;

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  if (length > MAX_CONFIG_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("%s is too large"), path);
      return NULL;
    }
  root = assay_json_from_untrusted (contents, error);
  if (root != NULL && !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_clear_pointer (&root, json_node_unref);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s is not a JSON object"), path);
    }
  return root;
}

/* The context config.json names, or NULL ("default", none, or no config). */
static char *
current_context (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autoptr(JsonNode) root = read_object (path, NULL);
  const char *name;

  if (root == NULL)
    return NULL;
  name = assay_json_get_string (json_node_get_object (root), "currentContext");
  return name != NULL && name[0] != '\0' ? g_strdup (name) : NULL;
}

static AssayDockerEndpoint *
from_context (const char *dir,
              const char *name)
{
  AssayDockerEndpoint *endpoint = g_new0 (AssayDockerEndpoint, 1);
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, name, -1);
  g_autofree char *meta = g_build_filename (dir, "contexts", "meta", digest, "meta.json", NULL);
  g_autofree char *tls_dir = g_build_filename (dir, "contexts", "tls", digest, "docker", NULL);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *endpoints, *docker;
  const char *host;

  endpoint->context = g_strdup (name);
  root = read_object (meta, &error);
  if (root == NULL)
    {
      endpoint->error = g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
                        ? g_strdup_printf (_("there is no docker context “%s” (no %s)"), name, meta)
                        : g_strdup_printf (_("the docker context “%s” cannot be read: %s"), name, error->message);
      return endpoint;
    }
  endpoints = assay_json_get_object (json_node_get_object (root), "Endpoints");
  docker = endpoints != NULL ? assay_json_get_object (endpoints, "docker") : NULL;
  host = docker != NULL ? assay_json_get_string (docker, "Host") : NULL;
  if (host == NULL || host[0] == '\0' || strlen (host) > 2048)
    {
      endpoint->error = g_strdup_printf (_("the docker context “%s” names no Docker endpoint"), name);
      return endpoint;
    }
  /* Assay never talks to an engine whose certificate it did not check. */
  if (assay_json_get_boolean_or (docker, "SkipTLSVerify", FALSE))
    {
      endpoint->error = g_strdup_printf (_("the docker context “%s” skips the check of the engine's "
                                           "certificate (SkipTLSVerify), which Assay does not do"), name);
      return endpoint;
    }
  endpoint->host = g_strdup (host);
  endpoint->tls = g_file_test (tls_dir, G_FILE_TEST_IS_DIR);
  endpoint->cert_dir = g_steal_pointer (&tls_dir);
  return endpoint;
}

AssayDockerEndpoint *
assay_docker_endpoint_resolve (void)
{
  const char *host = g_getenv ("DOCKER_HOST");
  const char *named = g_getenv ("DOCKER_CONTEXT");
  g_autofree char *dir = config_dir ();
  g_autofree char *current = NULL;

  /* As the docker CLI: DOCKER_HOST first, then DOCKER_CONTEXT, then config.json. */
  if (host != NULL && host[0] != '\0')
    {
      AssayDockerEndpoint *endpoint = g_new0 (AssayDockerEndpoint, 1);
      const char *verify = g_getenv ("DOCKER_TLS_VERIFY");
      const char *path = g_getenv ("DOCKER_CERT_PATH");

      endpoint->host = g_strdup (host);
      endpoint->tls = verify != NULL && verify[0] != '\0' && !g_str_equal (verify, "0");
      endpoint->cert_dir = path != NULL && path[0] != '\0' ? g_strdup (path) : g_strdup (dir);
      return endpoint;
    }
  if (named != NULL && named[0] != '\0')
    current = g_strdup (named);
  else
    current = current_context (dir);
  if (current == NULL || g_str_equal (current, "default"))
    return NULL;
  return from_context (dir, current);
}

char *
assay_docker_endpoint_describe_source (const AssayDockerEndpoint *endpoint)
{
  g_return_val_if_fail (endpoint != NULL, NULL);
  if (endpoint->context == NULL)
    return g_strdup ("DOCKER_HOST");
  /* TRANSLATORS: where the engine's address came from, e.g. docker context “build” */
  return g_strdup_printf (_("docker context “%s”"), endpoint->context);
}
