/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-artifact-list.h"

G_BEGIN_DECLS

/* Thumbnails fit in this box (logical pixels); they are rendered at twice the size. */
#define ASSAY_ARTIFACT_GALLERY_THUMBNAIL_WIDTH  192
#define ASSAY_ARTIFACT_GALLERY_THUMBNAIL_HEIGHT 144

typedef enum
{
  ASSAY_GALLERY_FILTER_ALL,
  ASSAY_GALLERY_FILTER_FIGURES,
  ASSAY_GALLERY_FILTER_TABLES,
  ASSAY_GALLERY_FILTER_DOCUMENTS,
  ASSAY_GALLERY_FILTER_OTHER,
} AssayGalleryFilter;

#define ASSAY_TYPE_ARTIFACT_GALLERY (assay_artifact_gallery_get_type ())

G_DECLARE_FINAL_TYPE (AssayArtifactGallery, assay_artifact_gallery, ASSAY, ARTIFACT_GALLERY, GtkWidget)

/* Every artifact of a session as a grid of thumbnails, newest first, filtered by kind.
 * Thumbnails are made in workers when a tile is first shown (figures scaled, a PDF's first
 * page, an icon for the rest) and kept; disposing the gallery or changing the model cancels
 * those in flight. Activating a tile emits ::artifact-activated (AssayArtifactItem *item);
 * a tile can be dragged out into a file manager. */
GtkWidget         *assay_artifact_gallery_new           (void);
void               assay_artifact_gallery_set_model     (AssayArtifactGallery *self,
                                                         AssayArtifactList    *model);
AssayArtifactList *assay_artifact_gallery_get_model     (AssayArtifactGallery *self);
void               assay_artifact_gallery_set_filter    (AssayArtifactGallery *self,
                                                         AssayGalleryFilter    filter);
AssayGalleryFilter assay_artifact_gallery_get_filter    (AssayArtifactGallery *self);
/* The artifacts shown under the current filter. */
GListModel        *assay_artifact_gallery_get_visible   (AssayArtifactGallery *self);
/* ITEM's thumbnail once made, else NULL (not shown yet, still in the works, or an icon). */
GdkTexture        *assay_artifact_gallery_get_thumbnail (AssayArtifactGallery *self,
                                                         AssayArtifactItem    *item);
/* The thumbnail jobs still running (for tests). */
guint              assay_artifact_gallery_get_n_pending (AssayArtifactGallery *self);

G_END_DECLS
