/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "assay-bwrap-backend.h"
#include "assay-e2b-backend.h"
#include "assay-docker-backend.h"
#include "assay-docker-client.h"
#include "assay-docker-endpoint.h"
#include "assay-sandbox-choice.h"
#include "assay-sandbox-survey.h"

void
assay_sandbox_place_free (AssaySandboxPlace *place)
{
  if (place == NULL)
    return;
  g_free (place->kind);
  g_free (place->title);
  g_free (place->where);
  g_free (place->detail);
  g_free (place);
}

static AssaySandboxPlace *
assay_sandbox_survey_engine (AssayDockerBackend *engine,
                             AssaySandboxImage  *image)
{
  AssaySandboxPlace *place = g_new0 (AssaySandboxPlace, 1);
  AssayDockerClient *client = assay_docker_backend_get_client (engine);
  g_autoptr(AssayDockerEndpoint) endpoint = assay_docker_endpoint_resolve ();
  g_autofree char *reason = NULL;
  gboolean podman;

  place->usable = assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (engine), &reason, NULL);
  if (place->usable)
    place->ready = assay_sandbox_image_has_docker (image, client, NULL);
  place->where = assay_sandbox_describe_engine (engine);
  podman = assay_docker_client_get_engine (client) == ASSAY_DOCKER_ENGINE_PODMAN ||
           (assay_docker_client_get_engine (client) == ASSAY_DOCKER_ENGINE_UNKNOWN &&
            strstr (place->where, "podman") != NULL);
  place->kind = g_strdup (podman ? "podman" : "docker");
  /* Elsewhere: reached over ssh or TCP, or named so by DOCKER_HOST even when refused. */
  if (assay_docker_client_get_remote_host (client) != NULL ||
      (endpoint != NULL && (endpoint->host == NULL || !g_str_has_prefix (endpoint->host, "unix://"))))
    place->title = g_strdup (podman ? _("Podman Elsewhere") : _("Docker Elsewhere"));
  else
    place->title = g_strdup (podman ? (assay_docker_client_is_rootless (client) ? _("Podman (Rootless)")
                                                                                : "Podman")
                                    : "Docker");
  if (!place->usable)
    place->detail = g_steal_pointer (&reason);
  else if (!place->ready)
    place->detail = g_strdup_printf (_("The sandbox image %s is missing: run “assay-cli sandbox build”"),
                                     assay_sandbox_image_get_docker_ref (image));
  else
    place->detail = g_strdup_printf (_("Ready: image %s"), assay_sandbox_image_get_docker_ref (image));
  return place;
}

GPtrArray *
assay_sandbox_survey (char **chosen_reason)
{
  return assay_sandbox_survey_full (NULL, chosen_reason);
}

GPtrArray *
assay_sandbox_survey_full (const AssayE2bSettings  *e2b_settings,
                           char                   **chosen_reason)
{
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  g_autoptr(GPtrArray) engines = assay_sandbox_list_engines ();
  g_autoptr(AssayBwrapBackend) bwrap = assay_bwrap_backend_new ();
  g_autoptr(AssaySandboxSpec) spec = assay_sandbox_spec_new ();
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *bwrap_reason = NULL;
  GPtrArray *places = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_sandbox_place_free);
  AssaySandboxPlace *place;
  const char *chosen;
  gboolean marked = FALSE;

  for (guint i = 0; i < engines->len; i++)
    g_ptr_array_add (places, assay_sandbox_survey_engine (g_ptr_array_index (engines, i), image));

  place = g_new0 (AssaySandboxPlace, 1);
  place->kind = g_strdup ("bwrap");
  place->title = g_strdup ("bubblewrap");
  place->where = g_strdup (assay_sandbox_image_get_tree_dir (image));
  place->usable = assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (bwrap), &bwrap_reason, NULL);
  place->ready = place->usable && assay_sandbox_image_has_tree (image);
  if (!place->usable)
    place->detail = g_steal_pointer (&bwrap_reason);
  else if (!place->ready)
    place->detail = g_strdup (_("The sandbox tree is missing: run “assay-cli sandbox build”"));
  else
    {
      g_autofree char *limits = assay_bwrap_backend_describe_limits (bwrap);
      place->detail = g_strdup_printf (_("Ready: limits enforced with %s"), limits);
    }
  g_ptr_array_add (places, place);

  /* What new sessions would do, with the same rules as exec, ask and the window. */
  backend = assay_sandbox_choose_backend_full (NULL, image, spec, &reason, NULL, &error);
  chosen = backend != NULL ? assay_sandbox_backend_get_name (backend) : NULL;
  for (guint i = 0; chosen != NULL && i < places->len && !marked; i++)
    {
      AssaySandboxPlace *p = g_ptr_array_index (places, i);
      gboolean engine = g_str_equal (chosen, "docker") && !g_str_equal (p->kind, "bwrap");

      /* The first usable engine with the image is the one "docker" picks. */
      if ((engine && p->usable && p->ready) || (g_str_equal (chosen, "bwrap") && g_str_equal (p->kind, "bwrap")))
        p->chosen = marked = TRUE;
    }
  /* E2B last, and never in use for new sessions: only a session that names it runs there. */
  {
    g_autoptr(AssayE2bBackend) e2b = assay_e2b_backend_new_with_settings (e2b_settings);
    g_autofree char *e2b_reason = NULL;

    place = g_new0 (AssaySandboxPlace, 1);
    place->kind = g_strdup ("e2b");
    place->title = g_strdup ("E2B");
    place->where = assay_e2b_backend_describe (e2b);
    place->usable = place->ready = assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (e2b), &e2b_reason, NULL);
    place->detail = place->usable ? g_strdup (_("Hosted: the cells and the datasets go to E2B; only when chosen"))
                                  : g_steal_pointer (&e2b_reason);
    g_ptr_array_add (places, place);
  }
  /* OpenAI's hosted code interpreter: chosen per session, never for new sessions by default. */
  place = g_new0 (AssaySandboxPlace, 1);
  place->kind = g_strdup ("openai");
  place->title = g_strdup (_("OpenAI (hosted)"));
  place->where = g_strdup (_("OpenAI's hosted code interpreter (the Responses API's code_interpreter tool)"));
  place->usable = place->ready = TRUE;
  place->detail = g_strdup (_("Hosted: the datasets and the code go to OpenAI and run there without approval; only "
                              "for a session that chooses it (Run the Code on OpenAI in the window's destination "
                              "popover, or assay-cli ask --runs-on openai), with OpenAI's Responses API"));
  g_ptr_array_add (places, place);
  if (chosen_reason != NULL)
    *chosen_reason = backend != NULL ? g_steal_pointer (&reason) : g_strdup (error->message);
  return places;
}

typedef struct
{
  GPtrArray *places;
  char      *reason;
} Survey;

static void
survey_free (Survey *survey)
{
  g_clear_pointer (&survey->places, g_ptr_array_unref);
  g_free (survey->reason);
  g_free (survey);
}

static void
assay_sandbox_survey_worker (GTask        *task,
                             gpointer      source_object,
                             gpointer      task_data,
                             GCancellable *cancellable)
{
  Survey *survey = g_new0 (Survey, 1);

  survey->places = assay_sandbox_survey_full (task_data, &survey->reason);
  g_task_return_pointer (task, survey, (GDestroyNotify) survey_free);
}

void
assay_sandbox_survey_async (GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  assay_sandbox_survey_full_async (NULL, cancellable, callback, user_data);
}

void
assay_sandbox_survey_full_async (const AssayE2bSettings *e2b_settings,
                                 GCancellable           *cancellable,
                                 GAsyncReadyCallback     callback,
                                 gpointer                user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, assay_sandbox_survey_async);
  g_task_set_task_data (task, assay_e2b_settings_copy (e2b_settings), (GDestroyNotify) assay_e2b_settings_free);
  g_task_run_in_thread (task, assay_sandbox_survey_worker);
}

GPtrArray *
assay_sandbox_survey_finish (GAsyncResult  *result,
                             char         **chosen_reason,
                             GError       **error)
{
  Survey *survey = g_task_propagate_pointer (G_TASK (result), error);
  GPtrArray *places;

  if (survey == NULL)
    return NULL;
  places = g_steal_pointer (&survey->places);
  if (chosen_reason != NULL)
    *chosen_reason = g_steal_pointer (&survey->reason);
  survey_free (survey);
  return places;
}
