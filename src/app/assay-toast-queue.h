/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_TOAST_QUEUE (assay_toast_queue_get_type ())

G_DECLARE_FINAL_TYPE (AssayToastQueue, assay_toast_queue, ASSAY, TOAST_QUEUE, GObject)

/* Hands toasts to an AdwToastOverlay one at a time: the next only once the previous one has
 * left the screen entirely (the overlay let go of it).
 *
 * libadwaita 1.2 (Debian 12) frees a toast's bookkeeping when its hide animation ends, then
 * touches it again when its show animation ends (fixed in 1.3 by 1674ebc9). A toast that
 * replaces one still hiding is shown with a longer animation than its hide, so dismissing it
 * soon after (its close button, or a window switching pages) crashed the window. Shown one at
 * a time, a toast's show animation always ends before its hide animation can. */
AssayToastQueue *assay_toast_queue_new        (AdwToastOverlay *overlay);
/* Takes TOAST (transfer full, like adw_toast_overlay_add_toast) and shows it after those
 * already queued. */
void             assay_toast_queue_add        (AssayToastQueue *self,
                                               AdwToast        *toast);
/* Drops the queued toasts and dismisses the one on screen. */
void             assay_toast_queue_dismiss_all (AssayToastQueue *self);
/* The toast on screen or hiding, if any (not a reference). */
AdwToast        *assay_toast_queue_get_shown  (AssayToastQueue *self);

G_END_DECLS
