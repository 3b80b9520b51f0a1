/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-artifact-list.h"
#include "assay-csv-view.h"
#include "assay-file-view.h"
#include "assay-image-view.h"
#include "assay-pdf-view.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_ARTIFACT_VIEWER (assay_artifact_viewer_get_type ())

G_DECLARE_FINAL_TYPE (AssayArtifactViewer, assay_artifact_viewer, ASSAY, ARTIFACT_VIEWER, GtkWidget)

/* One artifact, large, in the view for its kind: AssayImageView (figures), AssayPdfView
 * (PDF), AssayCsvView (CSV/TSV tables) or AssayFileView (the rest). A toolbar holds the
 * page and zoom controls and the actions, which are installed on the widget:
 *
 *   viewer.save-as        Ctrl+S      a file chooser, then assay_artifact_viewer_save_async
 *   viewer.open-with                  an application chooser
 *   viewer.copy           Ctrl+C      the image (or the PDF page) to the clipboard
 *   viewer.zoom-in        Ctrl+plus
 *   viewer.zoom-out       Ctrl+minus
 *   viewer.zoom-reset     Ctrl+0      100 %
 *   viewer.zoom-fit                   fit the view (a PDF page: its width)
 *   viewer.next-page      Page Down
 *   viewer.previous-page  Page Up
 *
 * Setting another item or disposing the viewer cancels what its views were loading. */
GtkWidget         *assay_artifact_viewer_new         (void);
void               assay_artifact_viewer_set_item    (AssayArtifactViewer *self,
                                                      AssayArtifactItem   *item);
AssayArtifactItem *assay_artifact_viewer_get_item    (AssayArtifactViewer *self);
/* "empty", "image", "pdf", "csv", "file" or "error". */
const char        *assay_artifact_viewer_get_page    (AssayArtifactViewer *self);
AssayImageView    *assay_artifact_viewer_get_image_view (AssayArtifactViewer *self);
AssayPdfView      *assay_artifact_viewer_get_pdf_view   (AssayArtifactViewer *self);
AssayCsvView      *assay_artifact_viewer_get_csv_view   (AssayArtifactViewer *self);
AssayFileView     *assay_artifact_viewer_get_file_view  (AssayArtifactViewer *self);

/* What Save As does once the analyst picked DESTINATION. */
void               assay_artifact_viewer_save_async  (AssayArtifactViewer *self,
                                                      GFile               *destination,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
gboolean           assay_artifact_viewer_save_finish (AssayArtifactViewer *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);
/* The texture shown (image, or PDF page), NULL otherwise. */
GdkTexture        *assay_artifact_viewer_get_texture (AssayArtifactViewer *self);
/* What Copy does: the texture shown to the clipboard. */
gboolean           assay_artifact_viewer_copy        (AssayArtifactViewer *self);

G_END_DECLS
