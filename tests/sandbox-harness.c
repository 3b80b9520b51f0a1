/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "assay-bwrap-backend.h"
#include "assay-docker-backend.h"
#include "assay-docker-client.h"
#include "sandbox-harness.h"

AssaySandboxBackend *
harness_backend (const char       *name,
                 AssaySandboxSpec *spec)
{
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  g_autofree char *reason = NULL;
  AssaySandboxBackend *backend;

  if (g_str_equal (name, "docker"))
    {
      g_autoptr(AssayDockerClient) client = assay_docker_client_new (NULL);

      backend = ASSAY_SANDBOX_BACKEND (assay_docker_backend_new (NULL));
      if (!assay_sandbox_backend_probe (backend, &reason, NULL))
        g_error ("Docker is not usable: %s", reason);
      if (!assay_sandbox_image_has_docker (image, client, NULL))
        g_error ("the Docker image %s is missing; run assay-cli sandbox build",
                 assay_sandbox_image_get_docker_ref (image));
      g_free (spec->image_ref);
      spec->image_ref = g_strdup (assay_sandbox_image_get_docker_ref (image));
    }
  else
    {
      backend = ASSAY_SANDBOX_BACKEND (assay_bwrap_backend_new ());
      if (!assay_sandbox_backend_probe (backend, &reason, NULL))
        g_error ("bubblewrap is not usable: %s", reason);
      if (!assay_sandbox_image_has_tree (image))
        g_error ("the sandbox tree %s is missing; run assay-cli sandbox build",
                 assay_sandbox_image_get_tree_dir (image));
      g_free (spec->rootfs_dir);
      spec->rootfs_dir = g_strdup (assay_sandbox_image_get_tree_dir (image));
    }
  return backend;
}

AssayKernelSession *
harness_session_new (const char       *backend_name,
                     AssaySandboxSpec *spec,
                     const char       *artifact_dir)
{
  g_autoptr(AssaySandboxSpec) own = spec ? assay_sandbox_spec_copy (spec) : assay_sandbox_spec_new ();
  g_autoptr(AssaySandboxBackend) backend = harness_backend (backend_name, own);

  return assay_kernel_session_new (backend, own, artifact_dir);
}

typedef struct
{
  GMainLoop       *loop;
  gboolean         ok;
  GError          *error;
  AssayCellResult *result;
} Wait;

static void
started_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = assay_kernel_session_start_finish (ASSAY_KERNEL_SESSION (source), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

gboolean
harness_start (AssayKernelSession  *session,
               GError             **error)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait wait = { loop };

  assay_kernel_session_start_async (session, NULL, started_cb, &wait);
  g_main_loop_run (loop);
  if (!wait.ok)
    g_propagate_error (error, wait.error);
  return wait.ok;
}

static void
executed_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = assay_kernel_session_execute_finish (ASSAY_KERNEL_SESSION (source), result,
                                                      &wait->error);
  g_main_loop_quit (wait->loop);
}

AssayCellResult *
harness_run (AssayKernelSession *session,
             const char         *code)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait wait = { loop };

  assay_kernel_session_execute_async (session, code, NULL, executed_cb, &wait);
  g_main_loop_run (loop);
  g_assert_no_error (wait.error);
  g_assert_nonnull (wait.result);
  return wait.result;
}

char *
harness_stream_text (AssayCellResult *result,
                     const char      *name)
{
  JsonArray *outputs = assay_cell_result_get_outputs (result);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (outputs); i++)
    {
      JsonObject *output = json_array_get_object_element (outputs, i);

      if (g_str_equal (json_object_get_string_member (output, "output_type"), "stream") &&
          g_str_equal (json_object_get_string_member (output, "name"), name))
        g_string_append (text, json_object_get_string_member (output, "text"));
    }
  return g_string_free (text, FALSE);
}

JsonObject *
harness_find_output (AssayCellResult *result,
                     const char      *output_type,
                     const char      *mime)
{
  JsonArray *outputs = assay_cell_result_get_outputs (result);

  for (guint i = 0; i < json_array_get_length (outputs); i++)
    {
      JsonObject *output = json_array_get_object_element (outputs, i);

      if (!g_str_equal (json_object_get_string_member (output, "output_type"), output_type))
        continue;
      if (mime == NULL ||
          (json_object_has_member (output, "data") &&
           json_object_has_member (json_object_get_object_member (output, "data"), mime)))
        return output;
    }
  return NULL;
}

guint
harness_count_leftovers (const char *backend_name,
                         const char *session_id)
{
  guint count = 0;

  if (g_str_equal (backend_name, "docker"))
    {
      g_autoptr(AssayDockerClient) client = assay_docker_client_new (NULL);
      g_autofree char *filter = g_strdup_printf ("{\"label\":[\"assay.session=%s\"]}", session_id);
      g_autofree char *escaped = g_uri_escape_string (filter, NULL, FALSE);
      g_autofree char *path = g_strdup_printf ("/containers/json?all=1&filters=%s", escaped);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = assay_docker_client_request (client, "GET", path, NULL, NULL,
                                                              NULL, &error);

      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
      count = json_array_get_length (json_node_get_array (node));
    }
  else
    {
      /* Any process of this session: bubblewrap marks them with ASSAY_SESSION. */
      g_autofree char *marker = g_strdup_printf ("ASSAY_SESSION=%s", session_id);
      g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
      const char *name;

      while (dir && (name = g_dir_read_name (dir)))
        {
          g_autofree char *path = NULL;
          g_autofree char *cmdline = NULL;
          gsize len;

          if (!g_ascii_isdigit (name[0]))
            continue;
          path = g_build_filename ("/proc", name, "environ", NULL);
          if (!g_file_get_contents (path, &cmdline, &len, NULL))
            continue;
          for (gsize i = 0; i < len; i += strlen (cmdline + i) + 1)
            if (g_str_equal (cmdline + i, marker))
              {
                count++;
                break;
              }
        }
    }
  return count;
}

void
harness_close_and_check (AssayKernelSession *session,
                         const char         *backend_name)
{
  g_autofree char *id = g_strdup (assay_kernel_session_get_id (session));

  assay_kernel_session_close (session);
  /* The sandbox is gone at once: container removed, processes reaped. */
  for (guint i = 0; i < 50 && harness_count_leftovers (backend_name, id) > 0; i++)
    g_usleep (100 * 1000);
  g_assert_cmpuint (harness_count_leftovers (backend_name, id), ==, 0);
}
