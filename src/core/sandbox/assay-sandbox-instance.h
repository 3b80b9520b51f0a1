/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-types.h"

G_BEGIN_DECLS

/* How a sandbox ended, as far as the backend can tell. */
typedef struct
{
  gboolean exited;      /* it has ended (FALSE when still unknown) */
  int      exit_code;   /* when it exited normally, else -1 */
  int      signal;      /* the signal that killed it, else 0 */
  gboolean oom_killed;  /* only when the engine or the cgroup says so */
} AssaySandboxExit;

#define ASSAY_TYPE_SANDBOX_INSTANCE (assay_sandbox_instance_get_type ())

G_DECLARE_DERIVABLE_TYPE (AssaySandboxInstance, assay_sandbox_instance, ASSAY, SANDBOX_INSTANCE, GObject)

/* One running sandbox with the kernel in it. Backends subclass it.
 *
 * get_stdin/get_stdout are the kernel's own stdio (for Docker, stdout is already
 * demultiplexed). kill() is immediate, idempotent and safe from any thread.
 * wait() blocks until the sandbox has ended. destroy() removes what the sandbox left
 * (container, cgroup, folders); it kills first when needed and is idempotent. */
struct _AssaySandboxInstanceClass
{
  GObjectClass parent_class;

  GOutputStream *(*get_stdin)       (AssaySandboxInstance *self);
  GInputStream  *(*get_stdout)      (AssaySandboxInstance *self);
  void           (*kill)            (AssaySandboxInstance *self);
  gboolean       (*wait)            (AssaySandboxInstance *self,
                                     AssaySandboxExit     *exit_out,
                                     GCancellable         *cancellable,
                                     GError              **error);
  void           (*destroy)         (AssaySandboxInstance *self);
  char          *(*dup_stderr_tail) (AssaySandboxInstance *self);
  /* NAME was added to the data folder while the sandbox runs: one that does not see the
   * folder (an engine elsewhere) gets it now. NULL: nothing to do. */
  gboolean       (*add_file)        (AssaySandboxInstance *self,
                                     const char           *name,
                                     GError              **error);
  /* Keeps the sandbox for later instead of removing it (E2B: pauses it, its kernel's state
   * with it), after the kernel was told to shut down; the instance is then ended as by
   * destroy, without removing the sandbox. FALSE with the reason when it could not (the
   * caller then destroys). NULL: the backend cannot. */
  gboolean       (*suspend)         (AssaySandboxInstance *self,
                                     GError              **error);
  /* What a later launch names in AssaySandboxSpec.resume_id to resume this sandbox (an id,
   * never a secret), or NULL when it cannot be kept. */
  char          *(*dup_resume_id)   (AssaySandboxInstance *self);

  gpointer padding[5];
};

GOutputStream *assay_sandbox_instance_get_stdin       (AssaySandboxInstance *self);
GInputStream  *assay_sandbox_instance_get_stdout      (AssaySandboxInstance *self);
void           assay_sandbox_instance_kill            (AssaySandboxInstance *self);
gboolean       assay_sandbox_instance_wait            (AssaySandboxInstance *self,
                                                       AssaySandboxExit     *exit_out,
                                                       GCancellable         *cancellable,
                                                       GError              **error);
void           assay_sandbox_instance_destroy         (AssaySandboxInstance *self);
char          *assay_sandbox_instance_dup_stderr_tail (AssaySandboxInstance *self);
gboolean       assay_sandbox_instance_add_file        (AssaySandboxInstance *self,
                                                       const char           *name,
                                                       GError              **error);

gboolean       assay_sandbox_instance_suspend         (AssaySandboxInstance *self,
                                                       GError              **error);
char          *assay_sandbox_instance_dup_resume_id   (AssaySandboxInstance *self);
/* Set by the backend's launch when it was asked to resume a sandbox: RESUMED when that
 * sandbox is this one (its kernel's state kept), else NOTE says in words why a new one was
 * started instead. */
void           assay_sandbox_instance_set_resumed     (AssaySandboxInstance *self,
                                                       gboolean              resumed,
                                                       const char           *note);
gboolean       assay_sandbox_instance_get_resumed     (AssaySandboxInstance *self);
const char    *assay_sandbox_instance_get_resume_note (AssaySandboxInstance *self);

G_END_DECLS
