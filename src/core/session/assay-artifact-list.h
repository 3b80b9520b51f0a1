/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-types.h"

G_BEGIN_DECLS

/* What an artifact is, for the gallery's filter and the viewer's choice of view. */
typedef enum
{
  ASSAY_ARTIFACT_KIND_FIGURE,
  ASSAY_ARTIFACT_KIND_TABLE,
  ASSAY_ARTIFACT_KIND_DOCUMENT,
  ASSAY_ARTIFACT_KIND_OTHER,
} AssayArtifactKind;

#define ASSAY_TYPE_ARTIFACT_KIND (assay_artifact_kind_get_type ())
GType             assay_artifact_kind_get_type (void) G_GNUC_CONST;

/* From the MIME type first, then the file name's extension. */
AssayArtifactKind assay_artifact_kind_guess    (const char *mime,
                                                const char *name);

#define ASSAY_TYPE_ARTIFACT_ITEM (assay_artifact_item_get_type ())

G_DECLARE_FINAL_TYPE (AssayArtifactItem, assay_artifact_item, ASSAY, ARTIFACT_ITEM, GObject)

/* One file a session produced. Immutable once built, so workers may read it. */
const char       *assay_artifact_item_get_name          (AssayArtifactItem  *self);
/* Absolute. */
const char       *assay_artifact_item_get_path          (AssayArtifactItem  *self);
/* Relative to the session folder ("artifacts/c3-chart.png"). */
const char       *assay_artifact_item_get_relative_path (AssayArtifactItem  *self);
const char       *assay_artifact_item_get_cell_id       (AssayArtifactItem  *self);
guint             assay_artifact_item_get_step          (AssayArtifactItem  *self);
const char       *assay_artifact_item_get_mime          (AssayArtifactItem  *self);
guint64           assay_artifact_item_get_bytes         (AssayArtifactItem  *self);
AssayArtifactKind assay_artifact_item_get_kind          (AssayArtifactItem  *self);
/* 0 for the session's first artifact, growing with each one added. */
guint             assay_artifact_item_get_order         (AssayArtifactItem  *self);
GFile            *assay_artifact_item_get_file          (AssayArtifactItem  *self);

/* Opens the artifact for reading without following a symbolic link anywhere below the
 * session folder; refuses what is not a regular file. Any thread. */
GInputStream     *assay_artifact_item_open              (AssayArtifactItem  *self,
                                                         GCancellable       *cancellable,
                                                         GError            **error);
/* Reads it whole (refused when bigger than MAX_BYTES; 0: no limit). Any thread. */
GBytes           *assay_artifact_item_load_bytes        (AssayArtifactItem  *self,
                                                         gsize               max_bytes,
                                                         GCancellable       *cancellable,
                                                         GError            **error);
/* Copies it to DESTINATION (replaced if it exists), through assay_artifact_item_open. */
void              assay_artifact_item_save_async        (AssayArtifactItem  *self,
                                                         GFile              *destination,
                                                         GCancellable       *cancellable,
                                                         GAsyncReadyCallback callback,
                                                         gpointer            user_data);
gboolean          assay_artifact_item_save_finish       (AssayArtifactItem  *self,
                                                         GAsyncResult       *result,
                                                         GError            **error);

#define ASSAY_TYPE_ARTIFACT_LIST (assay_artifact_list_get_type ())

G_DECLARE_FINAL_TYPE (AssayArtifactList, assay_artifact_list, ASSAY, ARTIFACT_LIST, GObject)

/* A GListModel of AssayArtifactItem, newest first: every artifact SESSION's cells recorded.
 * Entries whose path leaves the session folder, passes through a symbolic link or is not a
 * regular file are left out. */
AssayArtifactList *assay_artifact_list_new_for_session (AssaySession       *session);
AssaySession      *assay_artifact_list_get_session     (AssayArtifactList  *self);
/* Adds an artifact at the top (the agent's ::artifact-added gives these three). PATH is
 * relative to the session folder or absolute inside it. Refused (FALSE with ERROR) when it
 * leaves the folder, passes through a symbolic link or is not a regular file; an artifact
 * already listed is not added twice (TRUE). */
gboolean           assay_artifact_list_add             (AssayArtifactList  *self,
                                                        const char         *cell_id,
                                                        const char         *name,
                                                        const char         *path,
                                                        GError            **error);

G_END_DECLS
