/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include "assay-sandbox-instance.h"

G_DEFINE_ABSTRACT_TYPE (AssaySandboxInstance, assay_sandbox_instance, G_TYPE_OBJECT)

static void
assay_sandbox_instance_class_init (AssaySandboxInstanceClass *klass)
{
}

static void
assay_sandbox_instance_init (AssaySandboxInstance *self)
{
}

GOutputStream *
assay_sandbox_instance_get_stdin (AssaySandboxInstance *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), NULL);

  return ASSAY_SANDBOX_INSTANCE_GET_CLASS (self)->get_stdin (self);
}

GInputStream *
assay_sandbox_instance_get_stdout (AssaySandboxInstance *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), NULL);

  return ASSAY_SANDBOX_INSTANCE_GET_CLASS (self)->get_stdout (self);
}

void
assay_sandbox_instance_kill (AssaySandboxInstance *self)
{
  g_return_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self));

  ASSAY_SANDBOX_INSTANCE_GET_CLASS (self)->kill (self);
}

gboolean
assay_sandbox_instance_wait (AssaySandboxInstance *self,
                             AssaySandboxExit     *exit_out,
                             GCancellable         *cancellable,
                             GError              **error)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), FALSE);
  g_return_val_if_fail (exit_out != NULL, FALSE);

  return ASSAY_SANDBOX_INSTANCE_GET_CLASS (self)->wait (self, exit_out, cancellable, error);
}

void
assay_sandbox_instance_destroy (AssaySandboxInstance *self)
{
  g_return_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self));

  ASSAY_SANDBOX_INSTANCE_GET_CLASS (self)->destroy (self);
}

char *
assay_sandbox_instance_dup_stderr_tail (AssaySandboxInstance *self)
{
  AssaySandboxInstanceClass *klass;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), NULL);

  klass = ASSAY_SANDBOX_INSTANCE_GET_CLASS (self);
  return klass->dup_stderr_tail ? klass->dup_stderr_tail (self) : NULL;
}

gboolean
assay_sandbox_instance_add_file (AssaySandboxInstance  *self,
                                 const char            *name,
                                 GError               **error)
{
  AssaySandboxInstanceClass *klass;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  klass = ASSAY_SANDBOX_INSTANCE_GET_CLASS (self);
  return klass->add_file != NULL ? klass->add_file (self, name, error) : TRUE;
}
