/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-artifact-list.h"
#include "assay-session.h"

G_BEGIN_DECLS

/* What the list of saved sessions shows of one: read from its record in a worker, and not
 * changed after that (a reload makes new ones). */
#define ASSAY_TYPE_SESSION_SUMMARY (assay_session_summary_get_type ())

G_DECLARE_FINAL_TYPE (AssaySessionSummary, assay_session_summary, ASSAY, SESSION_SUMMARY, GObject)

/* The folder, canonical as AssaySession keeps it. */
const char         *assay_session_summary_get_dir      (AssaySessionSummary *self);
/* The title recorded ("" when it has none). */
const char         *assay_session_summary_get_title    (AssaySessionSummary *self);
/* When it was last saved, microseconds since the epoch. */
gint64              assay_session_summary_get_updated  (AssaySessionSummary *self);
/* The names of its datasets, in the order they were added. */
const char * const *assay_session_summary_get_datasets (AssaySessionSummary *self);
/* Whether QUERY (case-folded with g_utf8_casefold) is found in the title or a dataset's
 * name; an empty or NULL QUERY matches every session. */
gboolean            assay_session_summary_matches      (AssaySessionSummary *self,
                                                        const char          *query);

/* The saved sessions under one folder, and the jobs that read and write them.
 *
 * As a GListModel of AssaySessionSummary, most recently updated first. The list is read in
 * a worker: ::reloaded says when a new one is in; a reload asked for while another runs
 * replaces it, so an older list never lands after a newer one. Renames and deletes reload it
 * when they are done, and so do saves asked to.
 *
 * The jobs (open, rename, delete, save) run in workers one at a time, in the order they were
 * asked for: a rename or a save is on disk before the session is opened again, and a folder
 * is never deleted under a load. The latest open wins: asking for another cancels the open
 * in flight or drops the one still waiting, and its caller gets G_IO_ERROR_CANCELLED.
 * Nothing here touches a widget; the app's window and a test drive it the same way. */
#define ASSAY_TYPE_SESSION_STORE (assay_session_store_get_type ())

G_DECLARE_FINAL_TYPE (AssaySessionStore, assay_session_store, ASSAY, SESSION_STORE, GObject)

/* PARENT: the folder that holds the sessions (NULL: assay_session_default_parent ()). The
 * list starts empty; call assay_session_store_reload (). */
AssaySessionStore   *assay_session_store_new           (const char          *parent);
const char          *assay_session_store_get_parent    (AssaySessionStore   *self);
void                 assay_session_store_reload        (AssaySessionStore   *self);
/* The summary of the session in DIR as last listed, or NULL. */
AssaySessionSummary *assay_session_store_lookup        (AssaySessionStore   *self,
                                                        const char          *dir);

/* Reads DIR's record, then checks and lists its files (no links, regular files), both in
 * workers. The session returned belongs to the caller; so does *ARTIFACTS. Errors are those
 * of assay_session_load_async (); G_IO_ERROR_CANCELLED when a later open, cancel_open or
 * shutdown came first. */
void                 assay_session_store_open_async    (AssaySessionStore   *self,
                                                        const char          *dir,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
AssaySession        *assay_session_store_open_finish   (AssaySessionStore   *self,
                                                        GAsyncResult        *result,
                                                        AssayArtifactList  **artifacts,
                                                        GError             **error);
/* The folder of the open asked for last while it has not returned, or NULL ("opening"). */
const char          *assay_session_store_get_opening   (AssaySessionStore   *self);
/* The open asked for last is not wanted any more; FALSE when there was none. */
gboolean             assay_session_store_cancel_open   (AssaySessionStore   *self);

/* OPEN: the session of DIR if the caller holds it in memory; it is renamed there and saved
 * in turn (whoever holds a session writes it). Otherwise DIR is read, renamed and saved in
 * a worker. */
void                 assay_session_store_rename_async  (AssaySessionStore   *self,
                                                        const char          *dir,
                                                        const char          *title,
                                                        AssaySession        *open,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
gboolean             assay_session_store_rename_finish (AssaySessionStore   *self,
                                                        GAsyncResult        *result,
                                                        GError             **error);
/* Removes DIR (see assay_session_delete ()); a caller holding it lets it go first. */
void                 assay_session_store_delete_async  (AssaySessionStore   *self,
                                                        const char          *dir,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
gboolean             assay_session_store_delete_finish (AssaySessionStore   *self,
                                                        GAsyncResult        *result,
                                                        GError             **error);
/* Writes SESSION as it is when its turn comes; RELIST: the list is read again once it is on
 * disk. The default GApplication, if any, is held until it is written. */
void                 assay_session_store_save_async    (AssaySessionStore   *self,
                                                        AssaySession        *session,
                                                        gboolean             relist,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
gboolean             assay_session_store_save_finish   (AssaySessionStore   *self,
                                                        GAsyncResult        *result,
                                                        GError             **error);
/* The owner goes: the job running is cancelled, those waiting are dropped (their callers
 * get G_IO_ERROR_CANCELLED), except saves, which are still written. Later jobs fail at
 * once with G_IO_ERROR_CANCELLED. */
void                 assay_session_store_shutdown      (AssaySessionStore   *self);

G_END_DECLS
