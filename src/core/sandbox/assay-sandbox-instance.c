/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include "assay-sandbox-instance.h"

typedef struct
{
  gboolean  resumed;
  char     *resume_note;
} AssaySandboxInstancePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AssaySandboxInstance, assay_sandbox_instance, G_TYPE_OBJECT)

static void
assay_sandbox_instance_finalize (GObject *object)
{
  AssaySandboxInstancePrivate *priv =
    assay_sandbox_instance_get_instance_private (ASSAY_SANDBOX_INSTANCE (object));

  g_free (priv->resume_note);

  G_OBJECT_CLASS (assay_sandbox_instance_parent_class)->finalize (object);
}

static void
assay_sandbox_instance_class_init (AssaySandboxInstanceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_sandbox_instance_finalize;
}

static void
assay_sandbox_instance_init (AssaySandboxInstance *self)
{
}

gboolean
assay_sandbox_instance_suspend (AssaySandboxInstance  *self,
                                GError               **error)
{
  AssaySandboxInstanceClass *klass;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), FALSE);

  klass = ASSAY_SANDBOX_INSTANCE_GET_CLASS (self);
  if (klass->suspend == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "this sandbox cannot be kept for later");
      return FALSE;
    }
  return klass->suspend (self, error);
}

char *
assay_sandbox_instance_dup_resume_id (AssaySandboxInstance *self)
{
  AssaySandboxInstanceClass *klass;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), NULL);

  klass = ASSAY_SANDBOX_INSTANCE_GET_CLASS (self);
  return klass->dup_resume_id != NULL ? klass->dup_resume_id (self) : NULL;
}

void
assay_sandbox_instance_set_resumed (AssaySandboxInstance *self,
                                    gboolean              resumed,
                                    const char           *note)
{
  AssaySandboxInstancePrivate *priv;

  g_return_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self));

  priv = assay_sandbox_instance_get_instance_private (self);
  priv->resumed = !!resumed;
  g_free (priv->resume_note);
  priv->resume_note = g_strdup (note);
}

gboolean
assay_sandbox_instance_get_resumed (AssaySandboxInstance *self)
{
  AssaySandboxInstancePrivate *priv;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), FALSE);

  priv = assay_sandbox_instance_get_instance_private (self);
  return priv->resumed;
}

const char *
assay_sandbox_instance_get_resume_note (AssaySandboxInstance *self)
{
  AssaySandboxInstancePrivate *priv;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_INSTANCE (self), NULL);

  priv = assay_sandbox_instance_get_instance_private (self);
  return priv->resume_note;
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
