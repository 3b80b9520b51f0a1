/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "assay-types.h"
#include "assay-cell-result.h"
#include "assay-sandbox-backend.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_KERNEL_SESSION (assay_kernel_session_get_type ())

G_DECLARE_FINAL_TYPE (AssayKernelSession, assay_kernel_session, ASSAY, KERNEL_SESSION, GObject)

/* One analyst's session: a warm, stateful kernel in a sandbox, fed one cell at a time.
 *
 * When the sandbox dies (a hang killed after its grace period, out of memory, a crash),
 * the session starts a fresh one; with replay-on-restart it then runs the session's
 * successful cells again to restore the state, before the next cell. */
AssayKernelSession *assay_kernel_session_new                    (AssaySandboxBackend     *backend,
                                                                 const AssaySandboxSpec  *spec,
                                                                 const char              *artifact_dir);
const char         *assay_kernel_session_get_id                 (AssayKernelSession      *self);
const char         *assay_kernel_session_get_data_dir           (AssayKernelSession      *self);
AssaySandboxBackend *assay_kernel_session_get_backend           (AssayKernelSession      *self);
/* Whether the kernel reports each cell's checks (what it read, merged, dropped); on by
 * default. Off, for a benchmark's baseline. */
void                assay_kernel_session_set_checks             (AssayKernelSession      *self,
                                                                 gboolean                 enabled);
const char         *assay_kernel_session_get_artifact_dir       (AssayKernelSession      *self);
void                assay_kernel_session_set_artifact_dir       (AssayKernelSession      *self,
                                                                 const char              *artifact_dir);
void                assay_kernel_session_set_replay_on_restart  (AssayKernelSession      *self,
                                                                 gboolean                 replay);
gboolean            assay_kernel_session_get_replay_on_restart  (AssayKernelSession      *self);
/* Makes FILE visible read-only at /data/<its name>, even after the kernel started. */
gboolean            assay_kernel_session_add_dataset            (AssayKernelSession      *self,
                                                                 const char              *path,
                                                                 GError                 **error);
/* Makes FILE visible read-only at /data/NAME, NAME a plain file name starting with a dot (so
 * no dataset has it, and globs of /data leave it out): a query's result for the kernel to
 * load. Linked when it can be, else copied. */
gboolean            assay_kernel_session_add_hidden_file        (AssayKernelSession      *self,
                                                                 const char              *path,
                                                                 const char              *name,
                                                                 GError                 **error);
void                assay_kernel_session_start_async            (AssayKernelSession      *self,
                                                                 GCancellable            *cancellable,
                                                                 GAsyncReadyCallback      callback,
                                                                 gpointer                 user_data);
gboolean            assay_kernel_session_start_finish           (AssayKernelSession      *self,
                                                                 GAsyncResult            *result,
                                                                 GError                 **error);
/* Cancelling interrupts the cell (status cancelled); the state is kept when it yields. */
void                assay_kernel_session_execute_async          (AssayKernelSession      *self,
                                                                 const char              *code,
                                                                 GCancellable            *cancellable,
                                                                 GAsyncReadyCallback      callback,
                                                                 gpointer                 user_data);
AssayCellResult    *assay_kernel_session_execute_finish         (AssayKernelSession      *self,
                                                                 GAsyncResult            *result,
                                                                 GError                 **error);
/* Before the start (FALSE once started): the sandbox a backend kept for later (assay_kernel_session_dup_resume_id
 * of an earlier session; E2B's paused sandbox) is resumed instead of a new one started, its
 * kernel's state with it. After the start, get_resumed tells whether it was; when it was not
 * (gone, expired), get_resume_note says why in words for the analyst, and the caller rebuilds
 * the state (replays the cells). */
gboolean            assay_kernel_session_set_resume_id          (AssayKernelSession      *self,
                                                                 const char              *resume_id);
/* The id to resume at the start, while it has not started; else NULL. */
const char         *assay_kernel_session_get_resume_id          (AssayKernelSession      *self);
gboolean            assay_kernel_session_get_resumed            (AssayKernelSession      *self);
const char         *assay_kernel_session_get_resume_note        (AssayKernelSession      *self);
/* With KEEP, closing an idle session keeps its sandbox for later (E2B: pauses it) where the
 * backend can, instead of removing it; dup_resume_id is what to record to resume it (an id,
 * never a secret; NULL when the sandbox cannot be kept or none runs). */
void                assay_kernel_session_set_keep_on_close      (AssayKernelSession      *self,
                                                                 gboolean                 keep);
char               *assay_kernel_session_dup_resume_id          (AssayKernelSession      *self);
/* Ends the kernel and removes the sandbox; blocks for at most a few seconds. */
void                assay_kernel_session_close                  (AssayKernelSession      *self);
/* The same without blocking: the session is closed at once (cells waiting fail with
 * G_IO_ERROR_CLOSED), the sandbox is removed in a worker; the task completes once it is
 * gone. A window uses this; a program about to exit waits for it (or calls close). */
void                assay_kernel_session_close_async            (AssayKernelSession      *self,
                                                                 GAsyncReadyCallback      callback,
                                                                 gpointer                 user_data);
gboolean            assay_kernel_session_close_finish           (AssayKernelSession      *self,
                                                                 GAsyncResult            *result,
                                                                 GError                 **error);

/* The name FILE_NAME (a file's base name) has under /data: letters, digits, ".", "-", "_"
 * and spaces kept, anything else "_", no leading dot, at most 100 bytes. The session records
 * its datasets under this name, so that the model is told the path the sandbox shows. */
char *assay_kernel_session_data_name (const char *file_name);

G_END_DECLS
