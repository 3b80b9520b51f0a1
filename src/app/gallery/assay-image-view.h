/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-artifact-list.h"

G_BEGIN_DECLS

#define ASSAY_IMAGE_VIEW_MIN_ZOOM 0.05
#define ASSAY_IMAGE_VIEW_MAX_ZOOM 20.0

#define ASSAY_TYPE_IMAGE_VIEW (assay_image_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayImageView, assay_image_view, ASSAY, IMAGE_VIEW, GtkWidget)

/* A figure, large: fitted to the view at first; zoom with Ctrl+scroll, a pinch or the
 * zoom functions, pan by dragging. The file is decoded in a worker; changing the item or
 * disposing the view cancels it. */
GtkWidget         *assay_image_view_new             (void);
void               assay_image_view_set_item        (AssayImageView    *self,
                                                     AssayArtifactItem *item);
AssayArtifactItem *assay_image_view_get_item        (AssayImageView    *self);
GdkTexture        *assay_image_view_get_texture     (AssayImageView    *self);
gboolean           assay_image_view_get_loading     (AssayImageView    *self);
const char        *assay_image_view_get_error       (AssayImageView    *self);

/* The scale the image is shown at (1.0 = 100 %), fitted or not. */
double             assay_image_view_get_zoom        (AssayImageView    *self);
void               assay_image_view_set_zoom        (AssayImageView    *self,
                                                     double             zoom);
gboolean           assay_image_view_get_fit         (AssayImageView    *self);
void               assay_image_view_zoom_to_fit     (AssayImageView    *self);
void               assay_image_view_zoom_in         (AssayImageView    *self);
void               assay_image_view_zoom_out        (AssayImageView    *self);
/* Pans by DX, DY pixels, as a drag does. */
void               assay_image_view_scroll_by       (AssayImageView    *self,
                                                     double             dx,
                                                     double             dy);
GtkAdjustment     *assay_image_view_get_hadjustment (AssayImageView    *self);
GtkAdjustment     *assay_image_view_get_vadjustment (AssayImageView    *self);

G_END_DECLS
