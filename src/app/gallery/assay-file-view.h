/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-artifact-list.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_FILE_VIEW (assay_file_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayFileView, assay_file_view, ASSAY, FILE_VIEW, GtkWidget)

/* Any other file: its type's icon, its name, size and type, and "Open With…" (the viewer's
 * viewer.open-with action). The icon can be dragged out like a gallery thumbnail. */
GtkWidget         *assay_file_view_new         (void);
void               assay_file_view_set_item    (AssayFileView     *self,
                                                AssayArtifactItem *item);
AssayArtifactItem *assay_file_view_get_item    (AssayFileView     *self);
/* "29 bytes · text/plain · from cell c7", as shown. */
const char        *assay_file_view_get_details (AssayFileView     *self);

G_END_DECLS
