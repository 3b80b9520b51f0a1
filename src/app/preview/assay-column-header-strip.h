/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_COLUMN_HEADER_STRIP (assay_column_header_strip_get_type ())

G_DECLARE_FINAL_TYPE (AssayColumnHeaderStrip, assay_column_header_strip, ASSAY, COLUMN_HEADER_STRIP, GtkWidget)

/* A row of rich column headers above a GtkColumnView, each placed over its column. GTK 4.8
 * column headers are titles only, so the strip follows the titles: while they may move (the
 * view scrolled sideways, a column resized or added, the strip laid out anew) it reads where
 * each title is on every frame (gtk_widget_compute_bounds) and moves its children when that
 * changed, until two frames found them all in place. Child N sits over column
 * N + FIRST_COLUMN. */
GtkWidget *assay_column_header_strip_new        (GtkColumnView          *view,
                                                 guint                   first_column);
void       assay_column_header_strip_append     (AssayColumnHeaderStrip *self,
                                                 GtkWidget              *header);
void       assay_column_header_strip_remove_all (AssayColumnHeaderStrip *self);
/* Whether the strip reads the titles' places on every frame now (they may be moving). */
gboolean   assay_column_header_strip_is_following (AssayColumnHeaderStrip *self);
/* Where child N is, relative to the strip, as last placed; FALSE when not placed. */
gboolean   assay_column_header_strip_get_slot   (AssayColumnHeaderStrip *self,
                                                 guint                   n,
                                                 graphene_rect_t        *slot);

G_END_DECLS
