/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <string.h>

#include "assay-sandbox-backend.h"

G_DEFINE_INTERFACE (AssaySandboxBackend, assay_sandbox_backend, G_TYPE_OBJECT)

static void
assay_sandbox_backend_default_init (AssaySandboxBackendInterface *iface)
{
}

const char *
assay_sandbox_backend_get_name (AssaySandboxBackend *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_BACKEND (self), NULL);

  return ASSAY_SANDBOX_BACKEND_GET_IFACE (self)->get_name (self);
}

gboolean
assay_sandbox_backend_probe (AssaySandboxBackend  *self,
                             char                **reason,
                             GCancellable         *cancellable)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_BACKEND (self), FALSE);

  return ASSAY_SANDBOX_BACKEND_GET_IFACE (self)->probe (self, reason, cancellable);
}

AssaySandboxInstance *
assay_sandbox_backend_launch (AssaySandboxBackend     *self,
                              const AssaySandboxSpec  *spec,
                              GCancellable            *cancellable,
                              GError                 **error)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_BACKEND (self), NULL);
  g_return_val_if_fail (spec != NULL, NULL);

  return ASSAY_SANDBOX_BACKEND_GET_IFACE (self)->launch (self, spec, cancellable, error);
}

guint
assay_sandbox_backend_remove_leftovers (AssaySandboxBackend *self,
                                        GCancellable        *cancellable)
{
  AssaySandboxBackendInterface *iface;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_BACKEND (self), 0);

  iface = ASSAY_SANDBOX_BACKEND_GET_IFACE (self);
  return iface->remove_leftovers ? iface->remove_leftovers (self, cancellable) : 0;
}

char *
assay_sandbox_read_process_start_time (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/stat", pid);
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;
  const char *end_of_name;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;

  /* The command name (field 2) may contain spaces and parentheses. */
  end_of_name = strrchr (contents, ')');
  if (end_of_name == NULL || end_of_name[1] != ' ')
    return NULL;

  fields = g_strsplit (end_of_name + 2, " ", 21);
  if (g_strv_length (fields) < 20 || fields[19][0] == '\0')
    return NULL;

  for (const char *c = fields[19]; *c != '\0'; c++)
    if (!g_ascii_isdigit (*c))
      return NULL;

  return g_strdup (fields[19]);
}
