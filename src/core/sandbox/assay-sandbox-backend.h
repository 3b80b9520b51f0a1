/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-types.h"
#include "assay-sandbox-instance.h"
#include "assay-sandbox-limits.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_SANDBOX_BACKEND (assay_sandbox_backend_get_type ())

G_DECLARE_INTERFACE (AssaySandboxBackend, assay_sandbox_backend, ASSAY, SANDBOX_BACKEND, GObject)

/* A way to run the kernel in isolation: Docker's Engine API or bubblewrap.
 * Every method may block; the session calls them from worker threads. */
struct _AssaySandboxBackendInterface
{
  GTypeInterface parent_iface;

  const char           *(*get_name)          (AssaySandboxBackend     *self);
  /* Whether the backend can be used here; when not, why, in words for a person. */
  gboolean              (*probe)             (AssaySandboxBackend     *self,
                                              char                   **reason,
                                              GCancellable            *cancellable);
  /* Starts the sandbox with the kernel running in it (not waiting for "ready"). */
  AssaySandboxInstance *(*launch)            (AssaySandboxBackend     *self,
                                              const AssaySandboxSpec  *spec,
                                              GCancellable            *cancellable,
                                              GError                 **error);
  /* Removes sandboxes a crashed run of Assay left behind; returns how many. */
  guint                 (*remove_leftovers)  (AssaySandboxBackend     *self,
                                              GCancellable            *cancellable);
};

const char           *assay_sandbox_backend_get_name         (AssaySandboxBackend     *self);
gboolean              assay_sandbox_backend_probe            (AssaySandboxBackend     *self,
                                                              char                   **reason,
                                                              GCancellable            *cancellable);
AssaySandboxInstance *assay_sandbox_backend_launch           (AssaySandboxBackend     *self,
                                                              const AssaySandboxSpec  *spec,
                                                              GCancellable            *cancellable,
                                                              GError                 **error);
guint                 assay_sandbox_backend_remove_leftovers (AssaySandboxBackend     *self,
                                                              GCancellable            *cancellable);

/* Field 22 of /proc/PID/stat ("self" for this process): its start time in clock ticks after
 * boot, which with the pid names one process for the whole uptime, even when pids wrap. NULL
 * when there is no such process. Leftovers of crashed runs are told apart by it. */
char *assay_sandbox_read_process_start_time (const char *pid);

G_END_DECLS
