/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-session.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_RERUN_DIALOG (assay_rerun_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AssayRerunDialog, assay_rerun_dialog, ASSAY, RERUN_DIALOG, AdwWindow)

/* "Run Again with New Data": one row per dataset of ORIGIN, where the analyst chooses or drops
 * the file that stands in for it; each file is compared with the dataset in a worker (rows
 * before and now; missing and retyped columns block the run, new columns and format notes
 * only inform). Run, once every dataset has a matching file, runs ORIGIN's successful cells
 * again in a new sandbox (the backend and limits SETTINGS name) with each cell's progress
 * listed; Stop cancels. Modal on PARENT.
 *
 * Signals: ::session-made (dir) when a run ended with a new session on disk (the sessions
 * list should be read again); ::open-session (dir, changes) when the analyst should see it:
 * at once on success (CHANGES TRUE: on its "What Changed" card; the dialog then closes), or
 * from "Open What Ran" after a cell failed or the run was stopped. */
AssayRerunDialog *assay_rerun_dialog_new             (GtkWindow        *parent,
                                                      AssaySession     *origin,
                                                      GSettings        *settings);
/* The new file for the dataset NAME, as the file chooser and a drop on its row give it. */
void              assay_rerun_dialog_set_file        (AssayRerunDialog *self,
                                                      const char       *name,
                                                      GFile            *file);
/* Run, as its button does; nothing unless get_can_run. */
void              assay_rerun_dialog_run             (AssayRerunDialog *self);
/* Stop, as its button does. */
void              assay_rerun_dialog_stop            (AssayRerunDialog *self);

/* For tests. */
/* A comparison is running in a worker. */
gboolean          assay_rerun_dialog_get_comparing   (AssayRerunDialog *self);
/* Every dataset has a file that matches it, and nothing runs. */
gboolean          assay_rerun_dialog_get_can_run     (AssayRerunDialog *self);
gboolean          assay_rerun_dialog_get_running     (AssayRerunDialog *self);
/* What the row of the dataset NAME says, its lines joined by newlines. */
char             *assay_rerun_dialog_dup_dataset_text (AssayRerunDialog *self,
                                                       const char       *name);
/* After a run that did not succeed: why (NULL: no run, or it succeeded), and the cell that
 * failed (NULL: none). */
const char       *assay_rerun_dialog_get_message     (AssayRerunDialog *self);
/* What the row of the database NAME says of its password; NULL: no such row. */
const char       *assay_rerun_dialog_get_source_status (AssayRerunDialog *self,
                                                       const char       *name);
/* Whether SESSION has a SQL cell that ran: its databases are asked again. */
gboolean          assay_rerun_dialog_session_queries (AssaySession     *session);
const char       *assay_rerun_dialog_get_failed_cell (AssayRerunDialog *self);
/* The cells listed while running (started or done). */
guint             assay_rerun_dialog_get_n_cells     (AssayRerunDialog *self);

G_END_DECLS
