/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-artifact-list.h"

G_BEGIN_DECLS

/* What dragging ITEM out of the window offers: the file, as a GdkFileList and a GFile
 * (file managers read text/uri-list from either). */
GdkContentProvider *assay_artifact_content_provider_new (AssayArtifactItem *item);

/* The icon name for ITEM's type. */
char               *assay_artifact_icon_name            (AssayArtifactItem *item);

G_END_DECLS
