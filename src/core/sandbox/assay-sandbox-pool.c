/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include "assay-sandbox-pool.h"

struct _AssaySandboxPool
{
  GObject              parent_instance;

  AssaySandboxBackend *backend;
  AssaySandboxSpec    *spec;
  AssayKernelSession  *warming;
  AssayKernelSession  *warm;
  GCancellable        *cancellable;
};

G_DEFINE_FINAL_TYPE (AssaySandboxPool, assay_sandbox_pool, G_TYPE_OBJECT)

static void
assay_sandbox_pool_dispose (GObject *object)
{
  AssaySandboxPool *self = ASSAY_SANDBOX_POOL (object);

  g_cancellable_cancel (self->cancellable);
  if (self->warming != NULL)
    assay_kernel_session_close (self->warming);
  if (self->warm != NULL)
    assay_kernel_session_close (self->warm);
  g_clear_object (&self->warming);
  g_clear_object (&self->warm);
  g_clear_object (&self->backend);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (assay_sandbox_pool_parent_class)->dispose (object);
}

static void
assay_sandbox_pool_finalize (GObject *object)
{
  AssaySandboxPool *self = ASSAY_SANDBOX_POOL (object);

  assay_sandbox_spec_free (self->spec);

  G_OBJECT_CLASS (assay_sandbox_pool_parent_class)->finalize (object);
}

static void
assay_sandbox_pool_class_init (AssaySandboxPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = assay_sandbox_pool_dispose;
  object_class->finalize = assay_sandbox_pool_finalize;
}

static void
assay_sandbox_pool_init (AssaySandboxPool *self)
{
  self->cancellable = g_cancellable_new ();
}

AssaySandboxPool *
assay_sandbox_pool_new (AssaySandboxBackend    *backend,
                        const AssaySandboxSpec *spec)
{
  AssaySandboxPool *self;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_BACKEND (backend), NULL);
  g_return_val_if_fail (spec != NULL, NULL);

  self = g_object_new (ASSAY_TYPE_SANDBOX_POOL, NULL);
  self->backend = g_object_ref (backend);
  self->spec = assay_sandbox_spec_copy (spec);
  /* Every warm sandbox becomes a different session: its own id and data folder. */
  g_clear_pointer (&self->spec->session_id, g_free);
  g_clear_pointer (&self->spec->data_dir, g_free);
  return self;
}

static void
assay_sandbox_pool_warmed_cb (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  g_autoptr(AssaySandboxPool) self = user_data;
  g_autoptr(AssayKernelSession) session = ASSAY_KERNEL_SESSION (g_object_ref (source));
  g_autoptr(GError) error = NULL;

  if (!assay_kernel_session_start_finish (session, result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
        g_debug ("could not prepare a warm sandbox: %s", error->message);
      if (self->warming == session)
        g_clear_object (&self->warming);
      return;
    }

  if (self->warming != session)
    return;

  g_clear_object (&self->warming);
  g_set_object (&self->warm, session);
}

void
assay_sandbox_pool_prewarm (AssaySandboxPool *self)
{
  g_return_if_fail (ASSAY_IS_SANDBOX_POOL (self));

  if (self->warm != NULL || self->warming != NULL)
    return;

  self->warming = assay_kernel_session_new (self->backend, self->spec, NULL);
  assay_kernel_session_start_async (self->warming,
                                    self->cancellable,
                                    assay_sandbox_pool_warmed_cb,
                                    g_object_ref (self));
}

gboolean
assay_sandbox_pool_has_warm (AssaySandboxPool *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_POOL (self), FALSE);
  return self->warm != NULL;
}

const char *
assay_sandbox_pool_get_warm_id (AssaySandboxPool *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_POOL (self), NULL);
  return self->warm != NULL ? assay_kernel_session_get_id (self->warm) : NULL;
}

AssayKernelSession *
assay_sandbox_pool_take_session (AssaySandboxPool *self,
                                 const char       *artifact_dir)
{
  AssayKernelSession *session;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_POOL (self), NULL);

  if (self->warm != NULL)
    {
      session = g_steal_pointer (&self->warm);
      if (artifact_dir != NULL)
        assay_kernel_session_set_artifact_dir (session, artifact_dir);
      assay_sandbox_pool_prewarm (self);
      return session;
    }

  return assay_kernel_session_new (self->backend, self->spec, artifact_dir);
}

static void
assay_sandbox_pool_emptied_cb (GObject      *source,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  g_autoptr(GApplication) app = user_data;

  assay_kernel_session_close_finish (ASSAY_KERNEL_SESSION (source), result, NULL);
  if (app != NULL)
    g_application_release (app);
}

void
assay_sandbox_pool_empty (AssaySandboxPool *self)
{
  AssayKernelSession *sessions[2];

  g_return_if_fail (ASSAY_IS_SANDBOX_POOL (self));

  /* A start in flight is cancelled (its callback sees it is no longer the one warming). */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  sessions[0] = g_steal_pointer (&self->warming);
  sessions[1] = g_steal_pointer (&self->warm);
  for (guint i = 0; i < G_N_ELEMENTS (sessions); i++)
    {
      GApplication *app = g_application_get_default ();

      if (sessions[i] == NULL)
        continue;
      if (app != NULL)
        g_application_hold (app);
      assay_kernel_session_close_async (sessions[i],
                                        assay_sandbox_pool_emptied_cb,
                                        app != NULL ? g_object_ref (app) : NULL);
      g_object_unref (sessions[i]);
    }
}
