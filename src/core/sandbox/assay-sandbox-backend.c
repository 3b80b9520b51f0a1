/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

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
