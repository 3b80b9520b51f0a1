/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which sandbox backend to use, shared by assay-cli and the app. */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <glib/gstdio.h>

#include "assay-bwrap-backend.h"
#include "assay-docker-backend.h"
#include "assay-docker-client.h"
#include "assay-docker-endpoint.h"
#include "assay-e2b-backend.h"
#include "assay-sandbox-choice.h"

#define DOCKER_SOCKET        "/var/run/docker.sock"
#define PODMAN_SOCKET        "/run/podman/podman.sock"

static gboolean
assay_sandbox_choice_is_socket (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 && S_ISSOCK (st.st_mode);
}

GPtrArray *
assay_sandbox_list_engines (void)
{
  GPtrArray *engines = g_ptr_array_new_with_free_func (g_object_unref);
  const char *runtime_dir = g_getenv ("XDG_RUNTIME_DIR");
  g_autofree char *rootless = NULL;

  /* The user named an engine: that one, or none. */
  if (assay_docker_host_is_set ())
    {
      g_ptr_array_add (engines, assay_docker_backend_new (NULL));
      return engines;
    }

  g_ptr_array_add (engines, assay_docker_backend_new (DOCKER_SOCKET));
  if (assay_sandbox_choice_is_socket (PODMAN_SOCKET))
    g_ptr_array_add (engines, assay_docker_backend_new (PODMAN_SOCKET));
  if (runtime_dir != NULL && g_path_is_absolute (runtime_dir))
    {
      rootless = g_build_filename (runtime_dir, "podman", "podman.sock", NULL);
      if (!g_str_equal (rootless, PODMAN_SOCKET) && assay_sandbox_choice_is_socket (rootless))
        g_ptr_array_add (engines, assay_docker_backend_new (rootless));
    }
  return engines;
}

char *
assay_sandbox_describe_engine (AssayDockerBackend *backend)
{
  AssayDockerClient *client = assay_docker_backend_get_client (backend);
  const char *remote = assay_docker_client_get_remote_host (client);
  const char *socket_path = remote != NULL ? remote : assay_docker_client_get_socket_path (client);
  g_autofree char *engine = assay_docker_client_describe_engine (client);

  if (socket_path == NULL)
    {
      g_autoptr(AssayDockerEndpoint) endpoint = assay_docker_endpoint_resolve ();

      return g_strdup (endpoint != NULL && endpoint->host != NULL ? endpoint->host : "?");
    }
  if (engine == NULL)
    return g_strdup (socket_path);
  /* TRANSLATORS: an engine and its socket or address, e.g. "Podman 4.3.1 at /run/podman/podman.sock"
   * or "Docker 24.0.7 at ssh://alice@build-server" */
  return g_strdup_printf (_("%s at %s"), engine, socket_path);
}

char *
assay_sandbox_describe_backend (AssaySandboxBackend *backend)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_BACKEND (backend), NULL);

  if (ASSAY_IS_DOCKER_BACKEND (backend))
    return assay_sandbox_describe_engine (ASSAY_DOCKER_BACKEND (backend));
  if (ASSAY_IS_E2B_BACKEND (backend))
    return assay_e2b_backend_describe (ASSAY_E2B_BACKEND (backend));
  return g_strdup (_("bubblewrap on this machine"));
}

/* The first engine that answers, can hold the limits and has the image. ENGINE_PRESENT: one
 * was named (DOCKER_HOST) or has a socket here, whatever became of it. */
static AssaySandboxBackend *
assay_sandbox_choice_use_docker (AssaySandboxImage  *image,
                                 AssaySandboxSpec   *spec,
                                 char              **used,
                                 gboolean           *engine_present,
                                 GError            **error)
{
  g_autoptr(GPtrArray) engines = assay_sandbox_list_engines ();
  g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *joined = NULL;
  gboolean missing_image = FALSE;

  *engine_present = assay_docker_host_is_set ();
  for (guint i = 0; i < engines->len; i++)
    {
      AssayDockerBackend *backend = g_ptr_array_index (engines, i);
      AssayDockerClient *client = assay_docker_backend_get_client (backend);
      const char *socket_path = assay_docker_client_get_socket_path (client);
      g_autofree char *reason = NULL;
      g_autofree char *where = NULL;

      if (socket_path != NULL && assay_sandbox_choice_is_socket (socket_path))
        *engine_present = TRUE;
      if (!assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (backend), &reason, NULL))
        {
          g_ptr_array_add (reasons, g_steal_pointer (&reason));
          continue;
        }
      where = assay_sandbox_describe_engine (backend);
      if (!assay_sandbox_image_has_docker (image, client, NULL))
        {
          missing_image = TRUE;
          g_ptr_array_add (reasons, g_strdup_printf (_("%s has no sandbox image %s (run “assay-cli sandbox build”)"),
                                                     where, assay_sandbox_image_get_docker_ref (image)));
          continue;
        }
      g_free (spec->image_ref);
      spec->image_ref = g_strdup (assay_sandbox_image_get_docker_ref (image));
      if (used != NULL)
        *used = g_steal_pointer (&where);
      return ASSAY_SANDBOX_BACKEND (g_object_ref (backend));
    }

  if (reasons->len == 1 && missing_image)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("the Docker image %s is missing (run “assay-cli sandbox build”)"),
                   assay_sandbox_image_get_docker_ref (image));
      return NULL;
    }
  g_ptr_array_add (reasons, NULL);
  joined = g_strjoinv ("; ", (char **) reasons->pdata);
  g_set_error (error, G_IO_ERROR, missing_image ? G_IO_ERROR_NOT_FOUND : G_IO_ERROR_NOT_SUPPORTED,
               _("the Docker backend cannot be used: %s"), joined);
  return NULL;
}

AssayDockerBackend *
assay_sandbox_find_engine (char **reason)
{
  g_autoptr(GPtrArray) engines = assay_sandbox_list_engines ();
  g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < engines->len; i++)
    {
      AssayDockerBackend *backend = g_ptr_array_index (engines, i);
      g_autofree char *why = NULL;

      if (assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (backend), &why, NULL))
        return g_object_ref (backend);
      g_ptr_array_add (reasons, g_steal_pointer (&why));
    }
  g_ptr_array_add (reasons, NULL);
  if (reason != NULL)
    *reason = g_strjoinv ("; ", (char **) reasons->pdata);
  return NULL;
}

static AssaySandboxBackend *
assay_sandbox_choice_use_bwrap (AssaySandboxImage  *image,
                                AssaySandboxSpec   *spec,
                                GError            **error)
{
  g_autoptr(AssayBwrapBackend) backend = assay_bwrap_backend_new ();
  g_autofree char *reason = NULL;

  if (!assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (backend), &reason, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("the bubblewrap backend cannot be used: %s"), reason);
      return NULL;
    }
  if (!assay_sandbox_image_has_tree (image))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("the sandbox tree %s is missing (run “assay-cli sandbox build”)"),
                   assay_sandbox_image_get_tree_dir (image));
      return NULL;
    }
  g_free (spec->rootfs_dir);
  spec->rootfs_dir = g_strdup (assay_sandbox_image_get_tree_dir (image));
  return ASSAY_SANDBOX_BACKEND (g_steal_pointer (&backend));
}

AssaySandboxBackend *
assay_sandbox_choose_backend (const char         *name,
                              AssaySandboxImage  *image,
                              AssaySandboxSpec   *spec,
                              char              **reason,
                              GError            **error)
{
  return assay_sandbox_choose_backend_full (name, image, spec, reason, NULL, error);
}

AssaySandboxBackend *
assay_sandbox_choose_backend_full (const char         *name,
                                   AssaySandboxImage  *image,
                                   AssaySandboxSpec   *spec,
                                   char              **reason,
                                   gboolean           *fell_back,
                                   GError            **error)
{
  return assay_sandbox_choose_backend_e2b (name, NULL, image, spec, reason, fell_back, error);
}

AssaySandboxBackend *
assay_sandbox_choose_backend_e2b (const char              *name,
                                  const AssayE2bSettings  *e2b_settings,
                                  AssaySandboxImage       *image,
                                  AssaySandboxSpec        *spec,
                                  char                   **reason,
                                  gboolean                *fell_back,
                                  GError                 **error)
{
  g_autoptr(GError) docker_error = NULL;
  g_autoptr(GError) bwrap_error = NULL;
  g_autofree char *used = NULL;
  gboolean engine_present = FALSE;
  AssaySandboxBackend *backend;

  if (reason != NULL)
    *reason = NULL;
  if (fell_back != NULL)
    *fell_back = FALSE;
  if (g_strcmp0 (name, "auto") == 0)
    name = NULL;
  if (g_strcmp0 (name, "docker") == 0)
    {
      if ((backend = assay_sandbox_choice_use_docker (image, spec, &used, &engine_present, error)) &&
          reason != NULL)
        *reason = g_strdup_printf (_("%s, as chosen in the settings."), used);
      return backend;
    }
  if (g_strcmp0 (name, "bwrap") == 0 || g_strcmp0 (name, "bubblewrap") == 0)
    {
      if ((backend = assay_sandbox_choice_use_bwrap (image, spec, error)) && reason != NULL)
        *reason = g_strdup (_("bubblewrap, as chosen in the settings."));
      return backend;
    }
  /* E2B is never chosen for the analyst: the code and the data leave the machine. */
  if (g_strcmp0 (name, "e2b") == 0)
    {
      g_autoptr(AssayE2bBackend) e2b = assay_e2b_backend_new_with_settings (e2b_settings);
      g_autofree char *why = NULL;

      if (!assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (e2b), &why, NULL))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("E2B cannot be used: %s"), why);
          return NULL;
        }
      if (reason != NULL)
        {
          g_autofree char *where = assay_e2b_backend_describe (e2b);

          *reason = g_strdup_printf (_("%s, as chosen: the cells and the datasets go to E2B."), where);
        }
      return ASSAY_SANDBOX_BACKEND (g_steal_pointer (&e2b));
    }
  if (name != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("unknown backend “%s” (use docker, bwrap or e2b)"), name);
      return NULL;
    }

  if ((backend = assay_sandbox_choice_use_docker (image, spec, &used, &engine_present, &docker_error)))
    {
      if (reason != NULL)
        *reason = g_strdup_printf (_("%s answers and has the sandbox image."), used);
      return backend;
    }
  if ((backend = assay_sandbox_choice_use_bwrap (image, spec, &bwrap_error)))
    {
      if (reason != NULL)
        *reason = g_strdup_printf (_("bubblewrap, because %s."), docker_error->message);
      if (fell_back != NULL)
        *fell_back = engine_present;
      return backend;
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               _("no sandbox can be used: %s; %s"), docker_error->message, bwrap_error->message);
  return NULL;
}

typedef struct
{
  char                *name;
  AssayE2bSettings    *e2b;
  AssaySandboxSpec    *spec;
  AssaySandboxBackend *backend;
  char                *reason;
} Choice;

static void
assay_sandbox_choice_free (Choice *choice)
{
  g_free (choice->name);
  assay_e2b_settings_free (choice->e2b);
  g_clear_pointer (&choice->spec, assay_sandbox_spec_free);
  g_clear_object (&choice->backend);
  g_free (choice->reason);
  g_free (choice);
}

static void
assay_sandbox_choice_choose_worker (GTask        *task,
                                    gpointer      source_object,
                                    gpointer      task_data,
                                    GCancellable *cancellable)
{
  Choice *choice = task_data;
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  GError *error = NULL;

  choice->backend = assay_sandbox_choose_backend_e2b (choice->name, choice->e2b, image, choice->spec,
                                                     &choice->reason, NULL, &error);
  if (choice->backend == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  assay_sandbox_backend_remove_leftovers (choice->backend, NULL);
  g_task_return_boolean (task, TRUE);
}

void
assay_sandbox_choose_backend_async (const char             *name,
                                    const AssaySandboxSpec *spec,
                                    GCancellable           *cancellable,
                                    GAsyncReadyCallback     callback,
                                    gpointer                user_data)
{
  assay_sandbox_choose_backend_e2b_async (name, NULL, spec, cancellable, callback, user_data);
}

void
assay_sandbox_choose_backend_e2b_async (const char             *name,
                                        const AssayE2bSettings *e2b_settings,
                                        const AssaySandboxSpec *spec,
                                        GCancellable           *cancellable,
                                        GAsyncReadyCallback     callback,
                                        gpointer                user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  Choice *choice = g_new0 (Choice, 1);

  g_return_if_fail (spec != NULL);
  choice->name = g_strdup (name);
  choice->e2b = assay_e2b_settings_copy (e2b_settings);
  choice->spec = assay_sandbox_spec_copy (spec);
  g_task_set_source_tag (task, assay_sandbox_choose_backend_async);
  g_task_set_task_data (task, choice, (GDestroyNotify) assay_sandbox_choice_free);
  g_task_run_in_thread (task, assay_sandbox_choice_choose_worker);
}

AssaySandboxBackend *
assay_sandbox_choose_backend_finish (GAsyncResult      *result,
                                     AssaySandboxSpec **spec,
                                     char             **reason,
                                     GError           **error)
{
  Choice *choice;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == assay_sandbox_choose_backend_async, NULL);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  choice = g_task_get_task_data (G_TASK (result));
  if (spec != NULL)
    *spec = g_steal_pointer (&choice->spec);
  if (reason != NULL)
    *reason = g_steal_pointer (&choice->reason);
  return g_steal_pointer (&choice->backend);
}
