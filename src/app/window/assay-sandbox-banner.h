/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_SANDBOX_BANNER (assay_sandbox_banner_get_type ())

G_DECLARE_FINAL_TYPE (AssaySandboxBanner, assay_sandbox_banner, ASSAY, SANDBOX_BANNER, GtkWidget)

/* Shown when the sandbox image is missing: Prepare builds it in a worker thread
 * (AssaySandboxImage), with a progress bar and Cancel. ::ready when it is there. */
GtkWidget *assay_sandbox_banner_new       (void);
/* Looks for the image in a worker thread; reveals the banner if it is missing. */
void       assay_sandbox_banner_check     (AssaySandboxBanner *self);
gboolean   assay_sandbox_banner_get_shown (AssaySandboxBanner *self);

G_END_DECLS
