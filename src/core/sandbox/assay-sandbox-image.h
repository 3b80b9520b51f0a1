/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_SANDBOX_IMAGE (assay_sandbox_image_get_type ())

G_DECLARE_FINAL_TYPE (AssaySandboxImage, assay_sandbox_image, ASSAY, SANDBOX_IMAGE, GObject)

/* The analyst's Python environment: built offline from sandbox/packages.txt and the kernel
 * (the recipe) with mmdebstrap, unpacked for bubblewrap and imported into Docker as
 * assay-sandbox:<hash of the recipe> and assay-sandbox:latest. */
AssaySandboxImage *assay_sandbox_image_new             (const char         *recipe_dir);
const char        *assay_sandbox_image_get_recipe_dir  (AssaySandboxImage  *self);
/* Hash of packages.txt and the builder's options: names the cached root filesystem. */
const char        *assay_sandbox_image_get_base_hash   (AssaySandboxImage  *self);
/* The cached root filesystem tar the tree is unpacked from. */
const char         *assay_sandbox_image_get_base_tar     (AssaySandboxImage  *self);
/* Hash of the whole recipe (packages and kernel): names the image and the tree. */
const char        *assay_sandbox_image_get_hash        (AssaySandboxImage  *self);
const char        *assay_sandbox_image_get_docker_ref  (AssaySandboxImage  *self);
const char        *assay_sandbox_image_get_tree_dir    (AssaySandboxImage  *self);
gboolean           assay_sandbox_image_has_tree        (AssaySandboxImage  *self);
gboolean           assay_sandbox_image_has_docker      (AssaySandboxImage  *self,
                                                        AssayDockerClient  *docker,
                                                        GCancellable       *cancellable);
/* Builds what is missing; blocking. DOCKER may be NULL to prepare bubblewrap only. */
gboolean           assay_sandbox_image_build           (AssaySandboxImage  *self,
                                                        AssayDockerClient  *docker,
                                                        AssayProgressFunc   progress,
                                                        gpointer            user_data,
                                                        GCancellable       *cancellable,
                                                        GError            **error);

/* Where the recipe is: $ASSAY_SANDBOX_DIR, the installed copy, or the source tree. */
char              *assay_sandbox_find_recipe_dir       (void);

G_END_DECLS
