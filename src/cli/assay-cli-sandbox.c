/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "assay-bwrap-backend.h"
#include "assay-cli.h"
#include "assay-docker-backend.h"
#include "assay-docker-client.h"
#include "assay-docker-endpoint.h"
#include "assay-e2b-backend.h"
#include "assay-sandbox-choice.h"

static void
assay_cli_sandbox_progress_cb (double      fraction,
                               const char *message,
                               gpointer    user_data)
{
  static char last[256];
  static int last_tenth = -1;
  gboolean tty = isatty (STDERR_FILENO);
  int tenth = (int) (fraction * 10);

  /* On a terminal, redraw one line; in a log, print each new step once, and again at every
   * tenth of the way (sending an image to an engine elsewhere takes a while). */
  if (tty)
    fprintf (stderr, "\r\033[K[%3d%%] %s", (int) (fraction * 100), message);
  else if (g_strcmp0 (last, message) != 0 || tenth != last_tenth)
    fprintf (stderr, "[%3d%%] %s\n", (int) (fraction * 100), message);
  g_strlcpy (last, message, sizeof last);
  last_tenth = tenth;
  fflush (stderr);
}

static int
assay_cli_sandbox_build (int   argc,
                         char *argv[])
{
  g_autofree char *which = NULL;
  GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &which,
      N_("What to prepare: docker, bwrap or all (default: all that can be used)"), "NAME" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("— build the sandbox image offline"));
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySandboxImage) image = NULL;
  g_autoptr(AssayDockerClient) client = NULL;
  g_autoptr(AssayDockerBackend) docker = NULL;
  g_autofree char *reason = NULL;
  gboolean want_docker;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "assay-cli sandbox build: %s\n", error->message);
      return 2;
    }
  if (which != NULL && !g_strv_contains ((const char *[]) { "docker", "bwrap", "all", NULL }, which))
    {
      fprintf (stderr, _("assay-cli sandbox build: unknown backend “%s”\n"), which);
      return 2;
    }

  image = assay_sandbox_image_new (NULL);
  want_docker = g_strcmp0 (which, "bwrap") != 0;
  /* DOCKER_HOST's engine, else the first of Docker's and Podman's sockets that answers. */
  if (want_docker && (docker = assay_sandbox_find_engine (&reason)) == NULL)
    {
      if (which != NULL && !g_str_equal (which, "bwrap"))
        {
          fprintf (stderr, _("assay-cli sandbox build: Docker cannot be used: %s\n"), reason);
          return 1;
        }
      fprintf (stderr, _("Docker cannot be used (%s); preparing bubblewrap only.\n"), reason);
      want_docker = FALSE;
    }
  if (want_docker)
    client = g_object_ref (assay_docker_backend_get_client (docker));

  fprintf (stderr, _("Sandbox image %s (recipe %s)\n"),
           assay_sandbox_image_get_hash (image), assay_sandbox_image_get_recipe_dir (image));
  if (want_docker)
    {
      g_autofree char *where = assay_sandbox_describe_engine (docker);

      assay_cli_print (stderr, _("Engine: %s\n"), where);
    }
  if (!assay_sandbox_image_build (image, client, assay_cli_sandbox_progress_cb, NULL, NULL, &error))
    {
      if (isatty (STDERR_FILENO))
        fputc ('\n', stderr);
      fprintf (stderr, "assay-cli sandbox build: %s\n", error->message);
      return 1;
    }
  if (isatty (STDERR_FILENO))
    fputc ('\n', stderr);
  printf ("tree: %s\n", assay_sandbox_image_get_tree_dir (image));
  if (want_docker)
    printf ("docker: %s and assay-sandbox:latest\n", assay_sandbox_image_get_docker_ref (image));
  return 0;
}

typedef struct
{
  gboolean  usable;
  gboolean  image;
  char     *reason;
  char     *where;
} EngineState;

static void
assay_cli_sandbox_clear_states (EngineState *states,
                                guint        n)
{
  for (guint i = 0; i < n; i++)
    {
      g_free (states[i].reason);
      g_free (states[i].where);
    }
  g_free (states);
}

static void
assay_cli_sandbox_add_engine_json (JsonBuilder        *builder,
                                   AssayDockerBackend *engine,
                                   const EngineState  *state,
                                   AssaySandboxImage  *image)
{
  AssayDockerClient *client = assay_docker_backend_get_client (engine);
  AssayDockerEngine kind = assay_docker_client_get_engine (client);
  const char *socket_path = assay_docker_client_get_socket_path (client);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "usable");
  json_builder_add_boolean_value (builder, state->usable);
  json_builder_set_member_name (builder, "reason");
  json_builder_add_string_value (builder, state->usable ? "" : state->reason);
  json_builder_set_member_name (builder, "image_present");
  json_builder_add_boolean_value (builder, state->image);
  json_builder_set_member_name (builder, "image");
  json_builder_add_string_value (builder, assay_sandbox_image_get_docker_ref (image));
  json_builder_set_member_name (builder, "socket");
  if (socket_path != NULL && assay_docker_client_get_remote_host (client) == NULL)
    json_builder_add_string_value (builder, socket_path);
  else
    json_builder_add_null_value (builder);
  /* An engine elsewhere: DOCKER_HOST, reached over ssh or TLS. */
  json_builder_set_member_name (builder, "remote");
  if (assay_docker_client_get_remote_host (client) != NULL)
    json_builder_add_string_value (builder, assay_docker_client_get_remote_host (client));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "engine");
  if (kind == ASSAY_DOCKER_ENGINE_UNKNOWN)
    json_builder_add_null_value (builder);
  else
    json_builder_add_string_value (builder, kind == ASSAY_DOCKER_ENGINE_PODMAN ? "podman" : "docker");
  json_builder_set_member_name (builder, "version");
  if (assay_docker_client_get_engine_version (client) != NULL)
    json_builder_add_string_value (builder, assay_docker_client_get_engine_version (client));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "rootless");
  json_builder_add_boolean_value (builder, assay_docker_client_is_rootless (client));
  json_builder_end_object (builder);
}

static int
assay_cli_sandbox_status (int   argc,
                          char *argv[])
{
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON object"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("— say which sandbox backends work here"));
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySandboxImage) image = NULL;
  g_autoptr(GPtrArray) engines = NULL;
  g_autoptr(AssayBwrapBackend) bwrap = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree char *bwrap_reason = NULL;
  g_autofree char *limits = NULL;
  g_autoptr(AssayE2bBackend) e2b = NULL;
  g_autofree char *e2b_reason = NULL;
  g_autofree char *e2b_where = NULL;
  gboolean e2b_ok;
  const char *openai_key;
  gboolean openai_ok;
  g_autofree char *chosen_reason = NULL;
  g_autoptr(AssayDockerEndpoint) endpoint = assay_docker_endpoint_resolve ();
  g_autofree char *source = endpoint != NULL ? assay_docker_endpoint_describe_source (endpoint) : NULL;
  EngineState *states = NULL;
  gboolean bwrap_ok, tree, fell_back = FALSE;
  int first_usable = -1;
  guint shown;
  const char *chosen;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "assay-cli sandbox status: %s\n", error->message);
      return 2;
    }

  image = assay_sandbox_image_new (NULL);
  engines = assay_sandbox_list_engines ();
  bwrap = assay_bwrap_backend_new ();

  /* Each engine as sessions will try them; the first usable one stands for "docker". */
  states = g_new0 (EngineState, engines->len);
  for (guint i = 0; i < engines->len; i++)
    {
      AssayDockerBackend *engine = g_ptr_array_index (engines, i);

      states[i].usable = assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (engine), &states[i].reason, NULL);
      if (states[i].usable)
        states[i].image = assay_sandbox_image_has_docker (image, assay_docker_backend_get_client (engine), NULL);
      states[i].where = assay_sandbox_describe_engine (engine);
      if (states[i].usable && first_usable < 0)
        first_usable = (int) i;
    }
  shown = first_usable >= 0 ? (guint) first_usable : 0;
  bwrap_ok = assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (bwrap), &bwrap_reason, NULL);
  tree = assay_sandbox_image_has_tree (image);
  limits = assay_bwrap_backend_describe_limits (bwrap);
  e2b = assay_e2b_backend_new (NULL);
  e2b_where = assay_e2b_backend_describe (e2b);
  /* Without a key nothing is asked of E2B. */
  e2b_ok = assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (e2b), &e2b_reason, NULL);
  /* OpenAI's hosted code interpreter needs only OpenAI's key (nothing is asked of OpenAI). */
  openai_key = g_getenv ("OPENAI_API_KEY");
  if (openai_key == NULL || *openai_key == '\0')
    openai_key = g_getenv ("ASSAY_API_KEY");
  openai_ok = openai_key != NULL && *openai_key != '\0';

  /* What exec and ask would do, and why, with the same rules. */
  {
    g_autoptr(AssaySandboxSpec) spec = assay_sandbox_spec_new ();
    g_autoptr(AssaySandboxBackend) backend = NULL;
    g_autoptr(GError) choice_error = NULL;

    backend = assay_sandbox_choose_backend_full (NULL, image, spec, &chosen_reason, &fell_back, &choice_error);
    chosen = backend != NULL ? assay_sandbox_backend_get_name (backend) : NULL;
    if (backend == NULL)
      chosen_reason = g_strdup (choice_error->message);
  }

  if (json)
    {
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "image");
      json_builder_add_string_value (builder, assay_sandbox_image_get_hash (image));
      json_builder_set_member_name (builder, "recipe");
      json_builder_add_string_value (builder, assay_sandbox_image_get_recipe_dir (image));
      json_builder_set_member_name (builder, "backend");
      if (chosen)
        json_builder_add_string_value (builder, chosen);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "reason");
      json_builder_add_string_value (builder, chosen_reason);
      json_builder_set_member_name (builder, "fell_back");
      json_builder_add_boolean_value (builder, fell_back);
      json_builder_set_member_name (builder, "docker_host");
      if (endpoint != NULL && endpoint->host != NULL)
        json_builder_add_string_value (builder, endpoint->host);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "docker_context");
      if (endpoint != NULL && endpoint->context != NULL)
        json_builder_add_string_value (builder, endpoint->context);
      else
        json_builder_add_null_value (builder);

      json_builder_set_member_name (builder, "docker");
      assay_cli_sandbox_add_engine_json (builder, g_ptr_array_index (engines, shown), &states[shown], image);

      json_builder_set_member_name (builder, "engines");
      json_builder_begin_array (builder);
      for (guint i = 0; i < engines->len; i++)
        assay_cli_sandbox_add_engine_json (builder, g_ptr_array_index (engines, i), &states[i], image);
      json_builder_end_array (builder);

      json_builder_set_member_name (builder, "bwrap");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "usable");
      json_builder_add_boolean_value (builder, bwrap_ok);
      json_builder_set_member_name (builder, "reason");
      json_builder_add_string_value (builder, bwrap_ok ? "" : bwrap_reason);
      json_builder_set_member_name (builder, "tree_present");
      json_builder_add_boolean_value (builder, tree);
      json_builder_set_member_name (builder, "tree");
      json_builder_add_string_value (builder, assay_sandbox_image_get_tree_dir (image));
      json_builder_set_member_name (builder, "limits");
      json_builder_add_string_value (builder, limits);
      json_builder_end_object (builder);

      json_builder_set_member_name (builder, "e2b");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "usable");
      json_builder_add_boolean_value (builder, e2b_ok);
      json_builder_set_member_name (builder, "reason");
      json_builder_add_string_value (builder, e2b_ok ? "" : e2b_reason);
      json_builder_set_member_name (builder, "where");
      json_builder_add_string_value (builder, e2b_where);
      json_builder_end_object (builder);

      json_builder_set_member_name (builder, "openai_hosted");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "usable");
      json_builder_add_boolean_value (builder, openai_ok);
      json_builder_set_member_name (builder, "reason");
      json_builder_add_string_value (builder, openai_ok ? "" : "no OpenAI key: set OPENAI_API_KEY in the environment");
      json_builder_set_member_name (builder, "chosen_with");
      json_builder_add_string_value (builder, "ask --runs-on openai");
      json_builder_end_object (builder);
      json_builder_end_object (builder);

      root = json_builder_get_root (builder);
      text = json_to_string (root, TRUE);
      printf ("%s\n", text);
      assay_cli_sandbox_clear_states (states, engines->len);
      return 0;
    }

  printf (_("Sandbox image %s (recipe %s)\n"),
          assay_sandbox_image_get_hash (image), assay_sandbox_image_get_recipe_dir (image));
  for (guint i = 0; i < engines->len; i++)
    {
      AssayDockerClient *client = assay_docker_backend_get_client (g_ptr_array_index (engines, i));
      gboolean podman = assay_docker_client_get_engine (client) == ASSAY_DOCKER_ENGINE_PODMAN ||
                        (assay_docker_client_get_engine (client) == ASSAY_DOCKER_ENGINE_UNKNOWN &&
                         strstr (states[i].where, "podman") != NULL);

      printf (podman ? _("\nPodman:      %s\n") : _("\nDocker:      %s\n"),
              states[i].usable ? _("usable") : _("not usable"));
      assay_cli_print (stdout, "             %s%s%s%s\n", states[i].where,
                       source != NULL ? " (" : "", source != NULL ? source : "", source != NULL ? ")" : "");
      if (!states[i].usable)
        assay_cli_print (stdout, "             %s\n", states[i].reason);
      else
        printf (_("             image %s: %s\n"), assay_sandbox_image_get_docker_ref (image),
                states[i].image ? _("present") : _("missing (run “assay-cli sandbox build”)"));
    }
  printf (_("\nbubblewrap:  %s\n"), bwrap_ok ? _("usable") : _("not usable"));
  if (!bwrap_ok)
    printf ("             %s\n", bwrap_reason);
  printf (_("             tree %s: %s\n"), assay_sandbox_image_get_tree_dir (image),
          tree ? _("present") : _("missing (run “assay-cli sandbox build”)"));
  printf (_("             limits enforced with %s\n"), limits);
  printf (_("\nE2B:         %s\n"), e2b_ok ? _("usable (only when chosen: --backend e2b)") : _("not usable"));
  assay_cli_print (stdout, "             %s\n", e2b_where);
  if (!e2b_ok)
    assay_cli_print (stdout, "             %s\n", e2b_reason);
  printf (_("\nOpenAI:      %s\n"), openai_ok ? _("usable (only when chosen: ask --runs-on openai)") : _("not usable"));
  printf (_("             OpenAI's hosted code interpreter: the datasets and the code go to OpenAI and run "
            "there without approval\n"));
  if (!openai_ok)
    printf (_("             no OpenAI key: set OPENAI_API_KEY in the environment\n"));
  printf (_("\nSessions will use: %s\n"),
          chosen ? chosen : _("nothing — no backend is ready (see above)"));
  assay_cli_print (stdout, "             %s\n", chosen_reason);
  if (fell_back)
    printf (_("             exec and ask say so when they start; with --backend docker they "
              "refuse instead\n"));
  assay_cli_sandbox_clear_states (states, engines->len);
  return 0;
}

int
assay_cli_sandbox (int   argc,
                   char *argv[])
{
  if (argc < 2)
    {
      fprintf (stderr, _("Usage: assay-cli sandbox build|status [OPTIONS]\n"));
      return 2;
    }
  if (g_str_equal (argv[1], "build"))
    return assay_cli_sandbox_build (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "status"))
    return assay_cli_sandbox_status (argc - 1, argv + 1);

  fprintf (stderr, _("assay-cli sandbox: unknown command “%s”\n"), argv[1]);
  return 2;
}
