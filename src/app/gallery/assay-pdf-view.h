/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include <poppler.h>

#include "assay-artifact-list.h"

G_BEGIN_DECLS

#define ASSAY_PDF_VIEW_MIN_ZOOM 0.1
#define ASSAY_PDF_VIEW_MAX_ZOOM 8.0
/* Rendered pages kept, across pages and zoom levels. */
#define ASSAY_PDF_VIEW_CACHE_SIZE 12

#define ASSAY_TYPE_PDF_VIEW (assay_pdf_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayPdfView, assay_pdf_view, ASSAY, PDF_VIEW, GtkWidget)

/* A PDF, one page at a time. The document is parsed and each page rendered by poppler in a
 * worker (one at a time: poppler documents are not thread-safe), into a cairo image surface
 * that becomes the texture without a copy. Rendered pages are cached. Turning the page or
 * zooming cancels the render in flight; disposing the view cancels everything.
 * Zoom 1.0 shows the page at 96 dpi. */
GtkWidget         *assay_pdf_view_new               (void);
void               assay_pdf_view_set_item          (AssayPdfView      *self,
                                                     AssayArtifactItem *item);
AssayArtifactItem *assay_pdf_view_get_item          (AssayPdfView      *self);
gboolean           assay_pdf_view_get_loading       (AssayPdfView      *self);
const char        *assay_pdf_view_get_error         (AssayPdfView      *self);
/* The texture of the current page at the current zoom; NULL until it is rendered. */
GdkTexture        *assay_pdf_view_get_texture       (AssayPdfView      *self);
/* For tests: the document while the view holds it. */
PopplerDocument   *assay_pdf_view_get_document      (AssayPdfView      *self);

int                assay_pdf_view_get_n_pages       (AssayPdfView      *self);
/* From 0. */
int                assay_pdf_view_get_page          (AssayPdfView      *self);
void               assay_pdf_view_set_page          (AssayPdfView      *self,
                                                     int                page);
void               assay_pdf_view_next_page         (AssayPdfView      *self);
void               assay_pdf_view_previous_page     (AssayPdfView      *self);
double             assay_pdf_view_get_zoom          (AssayPdfView      *self);
void               assay_pdf_view_set_zoom          (AssayPdfView      *self,
                                                     double             zoom);
void               assay_pdf_view_zoom_in           (AssayPdfView      *self);
void               assay_pdf_view_zoom_out          (AssayPdfView      *self);
/* The page as wide as the view. */
void               assay_pdf_view_zoom_to_fit       (AssayPdfView      *self);

/* Renders PAGE into a WIDTH x HEIGHT texture on a white background. Any thread; the caller
 * holds whatever lock guards PAGE's document. */
GdkTexture        *assay_pdf_render_page            (PopplerPage       *page,
                                                     int                width,
                                                     int                height,
                                                     GCancellable      *cancellable,
                                                     GError           **error);

G_END_DECLS
