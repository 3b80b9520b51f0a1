/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include "assay-toast-queue.h"

struct _AssayToastQueue
{
  GObject          parent_instance;

  GWeakRef         overlay;
  GQueue           pending;    /* AdwToast*, owned */
  AdwToast        *shown;      /* not owned: the overlay holds it until it has hidden */
  guint            next_id;    /* idle that shows the next toast */
};

G_DEFINE_FINAL_TYPE (AssayToastQueue, assay_toast_queue, G_TYPE_OBJECT)

static void assay_toast_queue_shown_finalized_cb (gpointer  data,
                                                  GObject  *where_the_toast_was);

static gboolean
assay_toast_queue_show_next_cb (gpointer data)
{
  AssayToastQueue *self = data;
  g_autoptr(AdwToastOverlay) overlay = g_weak_ref_get (&self->overlay);
  AdwToast *toast;

  self->next_id = 0;
  if (self->shown != NULL || overlay == NULL)
    return G_SOURCE_REMOVE;
  toast = g_queue_pop_head (&self->pending);
  if (toast == NULL)
    return G_SOURCE_REMOVE;

  /* The overlay's last reference goes when the toast's hide animation has ended; only then
   * does the next one come, so the overlay never shows one toast while another is hiding. */
  self->shown = toast;
  g_object_weak_ref (G_OBJECT (toast), assay_toast_queue_shown_finalized_cb, self);
  adw_toast_overlay_add_toast (overlay, toast);   /* takes our reference */
  return G_SOURCE_REMOVE;
}

static void
assay_toast_queue_schedule_next (AssayToastQueue *self)
{
  if (self->next_id == 0 && self->shown == NULL && !g_queue_is_empty (&self->pending))
    self->next_id = g_idle_add (assay_toast_queue_show_next_cb, self);
}

static void
assay_toast_queue_shown_finalized_cb (gpointer  data,
                                      GObject  *where_the_toast_was)
{
  AssayToastQueue *self = data;

  self->shown = NULL;
  /* Not from here: this runs inside the overlay's own bookkeeping. */
  assay_toast_queue_schedule_next (self);
}

static void
assay_toast_queue_dispose (GObject *object)
{
  AssayToastQueue *self = ASSAY_TOAST_QUEUE (object);

  g_clear_handle_id (&self->next_id, g_source_remove);
  if (self->shown != NULL)
    {
      g_object_weak_unref (G_OBJECT (self->shown), assay_toast_queue_shown_finalized_cb, self);
      self->shown = NULL;
    }
  g_queue_clear_full (&self->pending, g_object_unref);
  G_OBJECT_CLASS (assay_toast_queue_parent_class)->dispose (object);
}

static void
assay_toast_queue_finalize (GObject *object)
{
  AssayToastQueue *self = ASSAY_TOAST_QUEUE (object);

  g_weak_ref_clear (&self->overlay);
  G_OBJECT_CLASS (assay_toast_queue_parent_class)->finalize (object);
}

static void
assay_toast_queue_class_init (AssayToastQueueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = assay_toast_queue_dispose;
  object_class->finalize = assay_toast_queue_finalize;
}

static void
assay_toast_queue_init (AssayToastQueue *self)
{
  g_weak_ref_init (&self->overlay, NULL);
  g_queue_init (&self->pending);
}

AssayToastQueue *
assay_toast_queue_new (AdwToastOverlay *overlay)
{
  AssayToastQueue *self;

  g_return_val_if_fail (ADW_IS_TOAST_OVERLAY (overlay), NULL);

  self = g_object_new (ASSAY_TYPE_TOAST_QUEUE, NULL);
  g_weak_ref_set (&self->overlay, overlay);
  return self;
}

void
assay_toast_queue_add (AssayToastQueue *self,
                       AdwToast        *toast)
{
  g_return_if_fail (ASSAY_IS_TOAST_QUEUE (self));
  g_return_if_fail (ADW_IS_TOAST (toast));

  g_queue_push_tail (&self->pending, toast);
  assay_toast_queue_schedule_next (self);
}

void
assay_toast_queue_dismiss_all (AssayToastQueue *self)
{
  g_return_if_fail (ASSAY_IS_TOAST_QUEUE (self));

  g_queue_clear_full (&self->pending, g_object_unref);
  g_clear_handle_id (&self->next_id, g_source_remove);
  if (self->shown != NULL)
    adw_toast_dismiss (self->shown);
}

AdwToast *
assay_toast_queue_get_shown (AssayToastQueue *self)
{
  g_return_val_if_fail (ASSAY_IS_TOAST_QUEUE (self), NULL);
  return self->shown;
}
