/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-E2B"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>
#include <unistd.h>

#include "assay-e2b-backend.h"
#include "assay-e2b-instance.h"
#include "assay-json.h"

/* A sandbox outlives its cell's timeout by this much, and is extended before each cell: an
 * idle session's sandbox ends on E2B's side (its state is then lost, and the session says so). */
#define IDLE_LIFETIME_S (15 * 60)
#define METADATA_OWNER "assay.owner"

struct _AssayE2bBackend
{
  GObject         parent_instance;

  AssayE2bClient *client;
};

static void  assay_e2b_backend_iface_init (AssaySandboxBackendInterface *iface);
static char *assay_e2b_backend_dup_owner  (void);

G_DEFINE_FINAL_TYPE_WITH_CODE (AssayE2bBackend, assay_e2b_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ASSAY_TYPE_SANDBOX_BACKEND, assay_e2b_backend_iface_init))

static const char *
assay_e2b_backend_get_name (AssaySandboxBackend *backend)
{
  return "e2b";
}

static gboolean
assay_e2b_backend_probe (AssaySandboxBackend  *backend,
                         char                **reason,
                         GCancellable         *cancellable)
{
  AssayE2bBackend *self = ASSAY_E2B_BACKEND (backend);
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autoptr(GError) error = NULL;

  if (!assay_e2b_client_has_key (self->client))
    {
      if (reason != NULL)
        *reason = g_strdup (_("no E2B key: add it in Preferences → Sandbox, or set E2B_API_KEY in the environment"));
      return FALSE;
    }
  /* Listing the running sandboxes checks the address and the key, and starts nothing. */
  if (!assay_e2b_client_api_request (self->client, "GET", "/sandboxes", NULL, &response, cancellable, &error))
    {
      if (reason != NULL)
        *reason = g_strdup (error->message);
      return FALSE;
    }
  if (response.status == 401 || response.status == 403)
    {
      if (reason != NULL)
        *reason = g_strdup_printf (_("the E2B key was refused at %s"), assay_e2b_client_get_api_url (self->client));
      return FALSE;
    }
  if (response.status != 200)
    {
      if (reason != NULL)
        *reason = assay_e2b_describe_error (&response);
      return FALSE;
    }
  return TRUE;
}

static AssaySandboxInstance *
assay_e2b_backend_launch (AssaySandboxBackend     *backend,
                          const AssaySandboxSpec  *spec,
                          GCancellable            *cancellable,
                          GError                 **error)
{
  AssayE2bBackend *self = ASSAY_E2B_BACKEND (backend);
  g_autoptr(JsonObject) metadata = json_object_new ();
  g_autofree char *owner = NULL;
  g_autofree char *resume_note = NULL;
  AssayE2bSandbox *sandbox;
  guint lifetime_s;

  if (spec->command != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("an E2B sandbox runs cells only, not another program"));
      return NULL;
    }
  lifetime_s = (spec->limits.timeout_ms + spec->limits.grace_ms) / 1000 + IDLE_LIFETIME_S;
  if (spec->session_id != NULL)
    json_object_set_string_member (metadata, "assay.session", spec->session_id);
  if ((owner = assay_e2b_backend_dup_owner ()) != NULL)
    json_object_set_string_member (metadata, METADATA_OWNER, owner);
  /* A sandbox paused for later is resumed, its kernel's state with it; when E2B no longer
   * has it (paused sandboxes are kept for a time only), a new one starts and the instance
   * says why, for the analyst. */
  if (spec->resume_id != NULL)
    {
      g_autoptr(GError) resume_error = NULL;

      sandbox = assay_e2b_client_resume_sandbox (self->client, spec->resume_id, lifetime_s, &resume_error);
      if (sandbox != NULL)
        {
          AssaySandboxInstance *instance;

          g_debug ("E2B sandbox %s resumed", sandbox->id);
          instance = ASSAY_SANDBOX_INSTANCE (assay_e2b_instance_new (self->client, sandbox, spec, lifetime_s));
          assay_sandbox_instance_set_resumed (instance, TRUE, NULL);
          return instance;
        }
      resume_note = g_strdup_printf (_("The session's paused E2B sandbox could not be resumed (%s); "
                                       "a new one was started."), resume_error->message);
      g_debug ("%s", resume_note);
    }
  if (!(sandbox = assay_e2b_client_create_sandbox (self->client, lifetime_s, metadata, cancellable, error)))
    return NULL;
  g_debug ("E2B sandbox %s started from %s", sandbox->id, assay_e2b_client_get_template (self->client));
  {
    AssaySandboxInstance *instance =
      ASSAY_SANDBOX_INSTANCE (assay_e2b_instance_new (self->client, sandbox, spec, lifetime_s));

    if (resume_note != NULL)
      assay_sandbox_instance_set_resumed (instance, FALSE, resume_note);
    return instance;
  }
}

/* Who started a sandbox: this boot of this machine (its random boot id), the process and its
 * start time. Only sandboxes of this boot are ever judged: another machine's, or one from
 * before a reboot, end at their timeout on E2B's side. */
static char *
assay_e2b_backend_dup_owner (void)
{
  g_autofree char *boot_id = NULL;
  g_autofree char *start = assay_sandbox_read_process_start_time ("self");

  if (!g_file_get_contents ("/proc/sys/kernel/random/boot_id", &boot_id, NULL, NULL) || start == NULL)
    return NULL;
  return g_strdup_printf ("%s/%d/%s", g_strstrip (boot_id), (int) getpid (), start);
}

/* An owner of this boot whose process is gone (or is another process now). */
static gboolean
assay_e2b_backend_owner_is_gone (const char *owner,
                                 const char *boot_id)
{
  g_auto(GStrv) fields = g_strsplit (owner, "/", 4);
  g_autofree char *start = NULL;
  guint64 pid;

  if (g_strv_length (fields) != 3 || !g_str_equal (fields[0], boot_id) ||
      !g_ascii_string_to_unsigned (fields[1], 10, 1, G_MAXINT32, &pid, NULL))
    return FALSE;
  start = assay_sandbox_read_process_start_time (fields[1]);
  return start == NULL || !g_str_equal (start, fields[2]);
}

static guint
assay_e2b_backend_remove_leftovers (AssaySandboxBackend *backend,
                                    GCancellable        *cancellable)
{
  AssayE2bBackend *self = ASSAY_E2B_BACKEND (backend);
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *owner = assay_e2b_backend_dup_owner ();
  g_auto(GStrv) own = owner != NULL ? g_strsplit (owner, "/", 2) : NULL;
  JsonArray *listed;
  const char *data;
  gsize len;
  guint removed = 0;

  if (own == NULL || !assay_e2b_client_has_key (self->client))
    return 0;
  if (!assay_e2b_client_api_request (self->client, "GET", "/sandboxes", NULL, &response, cancellable, &error) ||
      response.status != 200)
    return 0;
  data = g_bytes_get_data (response.body, &len);
  if (data == NULL || !assay_json_parser_load_untrusted (parser, data, len, NULL) ||
      !JSON_NODE_HOLDS_ARRAY (json_parser_get_root (parser)))
    return 0;
  listed = json_node_get_array (json_parser_get_root (parser));
  for (guint i = 0; i < json_array_get_length (listed) && !g_cancellable_is_cancelled (cancellable); i++)
    {
      JsonNode *node = json_array_get_element (listed, i);
      JsonObject *sandbox = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *id = assay_json_get_string (sandbox, "sandboxID");
      const char *sandbox_owner = assay_json_get_string (assay_json_get_object (sandbox, "metadata"), METADATA_OWNER);
      g_autoptr(GError) kill_error = NULL;

      /* A paused sandbox was kept on purpose: a session resumes it later. */
      if (g_strcmp0 (assay_json_get_string (sandbox, "state"), "paused") == 0)
        continue;
      if (id == NULL || sandbox_owner == NULL || !assay_e2b_backend_owner_is_gone (sandbox_owner, own[0]))
        continue;
      if (assay_e2b_client_kill_sandbox (self->client, id, &kill_error))
        removed++;
      else
        g_debug ("Cannot end the leftover E2B sandbox %s: %s", id, kill_error->message);
    }
  return removed;
}

static void
assay_e2b_backend_iface_init (AssaySandboxBackendInterface *iface)
{
  iface->get_name = assay_e2b_backend_get_name;
  iface->probe = assay_e2b_backend_probe;
  iface->launch = assay_e2b_backend_launch;
  iface->remove_leftovers = assay_e2b_backend_remove_leftovers;
}

static void
assay_e2b_backend_finalize (GObject *object)
{
  AssayE2bBackend *self = (AssayE2bBackend *) object;

  g_clear_object (&self->client);

  G_OBJECT_CLASS (assay_e2b_backend_parent_class)->finalize (object);
}

static void
assay_e2b_backend_class_init (AssayE2bBackendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_e2b_backend_finalize;
}

static void
assay_e2b_backend_init (AssayE2bBackend *self)
{
}

AssayE2bBackend *
assay_e2b_backend_new (const char *api_key)
{
  AssayE2bBackend *self = g_object_new (ASSAY_TYPE_E2B_BACKEND, NULL);

  self->client = assay_e2b_client_new_from_env (api_key);
  return self;
}

AssayE2bBackend *
assay_e2b_backend_new_with_settings (const AssayE2bSettings *settings)
{
  AssayE2bBackend *self = g_object_new (ASSAY_TYPE_E2B_BACKEND, NULL);

  self->client = assay_e2b_client_new_full (settings != NULL ? settings->api_key : NULL,
                                            settings != NULL ? settings->domain : NULL,
                                            settings != NULL ? settings->template_id : NULL);
  return self;
}

AssayE2bSettings *
assay_e2b_settings_copy (const AssayE2bSettings *settings)
{
  AssayE2bSettings *copy;

  if (settings == NULL)
    return NULL;
  copy = g_new0 (AssayE2bSettings, 1);
  copy->api_key = g_strdup (settings->api_key);
  copy->domain = g_strdup (settings->domain);
  copy->template_id = g_strdup (settings->template_id);
  return copy;
}

void
assay_e2b_settings_free (AssayE2bSettings *settings)
{
  if (settings == NULL)
    return;
  if (settings->api_key != NULL)
    memset (settings->api_key, 0, strlen (settings->api_key));
  g_free (settings->api_key);
  g_free (settings->domain);
  g_free (settings->template_id);
  g_free (settings);
}

AssayE2bClient *
assay_e2b_backend_get_client (AssayE2bBackend *self)
{
  g_return_val_if_fail (ASSAY_IS_E2B_BACKEND (self), NULL);

  return self->client;
}

char *
assay_e2b_backend_describe (AssayE2bBackend *self)
{
  g_return_val_if_fail (ASSAY_IS_E2B_BACKEND (self), NULL);

  return g_strdup_printf (_("E2B (template %s at %s)"), assay_e2b_client_get_template (self->client),
                          assay_e2b_client_get_api_url (self->client));
}
