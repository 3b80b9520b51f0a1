/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_ZOOM_CANVAS (assay_zoom_canvas_get_type ())

G_DECLARE_FINAL_TYPE (AssayZoomCanvas, assay_zoom_canvas, ASSAY, ZOOM_CANVAS, GtkWidget)

/* Draws a texture at a size of its caller's choosing, for a scrolled window: when fitting,
 * it asks for nothing and draws the texture as large as it fits (never enlarged); else it
 * asks for exactly WIDTH x HEIGHT and fills that. A texture of another size than the one
 * asked for (a page still rendering at the new zoom) is stretched meanwhile. */
GtkWidget  *assay_zoom_canvas_new          (void);
void        assay_zoom_canvas_set_texture  (AssayZoomCanvas *self,
                                            GdkTexture      *texture);
GdkTexture *assay_zoom_canvas_get_texture  (AssayZoomCanvas *self);
void        assay_zoom_canvas_set_fit      (AssayZoomCanvas *self,
                                            gboolean         fit);
void        assay_zoom_canvas_set_size     (AssayZoomCanvas *self,
                                            int              width,
                                            int              height);
/* The scale the texture is drawn at, against its own pixel size. */
double      assay_zoom_canvas_get_scale    (AssayZoomCanvas *self);

G_END_DECLS
