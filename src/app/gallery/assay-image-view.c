/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include <math.h>

#include "assay-app-types.h"
#include "assay-image-view.h"
#include "assay-zoom-canvas.h"

/* Bigger figures are not decoded: a chart is never this large. */
#define MAX_IMAGE_BYTES (256 * 1024 * 1024)
#define ZOOM_STEP 1.25

struct _AssayImageView
{
  GtkWidget          parent_instance;

  GtkScrolledWindow *scroller;
  AssayZoomCanvas   *canvas;

  AssayArtifactItem *item;
  GCancellable      *cancellable;
  GdkTexture        *texture;
  char              *error;
  gboolean           loading;

  gboolean           fit;
  double             zoom;

  /* The texture point kept under (view_x, view_y) once the new size is laid out. */
  gboolean           anchor_h;
  gboolean           anchor_v;
  double             anchor_x;
  double             anchor_y;
  double             view_x;
  double             view_y;

  double             pointer_x;
  double             pointer_y;
  double             drag_start_h;
  double             drag_start_v;
  double             pinch_start_zoom;
};

G_DEFINE_FINAL_TYPE (AssayImageView, assay_image_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  PROP_TEXTURE,
  PROP_LOADING,
  PROP_ERROR,
  PROP_ZOOM,
  PROP_FIT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
assay_image_view_set_loading (AssayImageView *self,
                              gboolean        loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
assay_image_view_set_error (AssayImageView *self,
                            const char     *error)
{
  if (g_strcmp0 (self->error, error) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (error);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
assay_image_view_apply_fit (AssayImageView *self,
                            gboolean        fit)
{
  GtkPolicyType policy = fit ? GTK_POLICY_NEVER : GTK_POLICY_AUTOMATIC;

  gtk_scrolled_window_set_policy (self->scroller, policy, policy);
  assay_zoom_canvas_set_fit (self->canvas, fit);
  if (self->fit != fit)
    {
      self->fit = fit;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIT]);
    }
}

static void
assay_image_view_load_worker (GTask        *task,
                              gpointer      source_object,
                              gpointer      task_data,
                              GCancellable *cancellable)
{
  AssayArtifactItem *item = task_data;
  g_autoptr(GBytes) bytes = NULL;
  GdkTexture *texture;
  GError *error = NULL;

  bytes = assay_artifact_item_load_bytes (item, MAX_IMAGE_BYTES, cancellable, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  texture = gdk_texture_new_from_bytes (bytes, &error);
  if (texture == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, texture, g_object_unref);
}

/* SELF is not referenced by the task: dispose cancels it, and a cancelled task always
 * reports the cancellation, so SELF is only used when it is alive. */
static void
assay_image_view_load_done (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  AssayImageView *self = user_data;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;

  texture = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  assay_image_view_set_loading (self, FALSE);
  if (texture == NULL)
    {
      assay_image_view_set_error (self, error->message);
      return;
    }
  g_set_object (&self->texture, texture);
  assay_zoom_canvas_set_texture (self->canvas, texture);
  assay_image_view_apply_fit (self, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXTURE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

void
assay_image_view_set_item (AssayImageView    *self,
                           AssayArtifactItem *item)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_IMAGE_VIEW (self));
  g_return_if_fail (item == NULL || ASSAY_IS_ARTIFACT_ITEM (item));

  if (self->item == item)
    return;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_set_object (&self->item, item);
  g_clear_object (&self->texture);
  assay_zoom_canvas_set_texture (self->canvas, NULL);
  assay_image_view_apply_fit (self, TRUE);
  assay_image_view_set_error (self, NULL);
  assay_image_view_set_loading (self, item != NULL);

  if (item != NULL)
    {
      self->cancellable = g_cancellable_new ();
      task = g_task_new (NULL, self->cancellable, assay_image_view_load_done, self);
      g_task_set_source_tag (task, assay_image_view_set_item);
      g_task_set_task_data (task, g_object_ref (item), g_object_unref);
      g_task_run_in_thread (task, assay_image_view_load_worker);
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXTURE]);
}

/* Zooms to ZOOM keeping what is under (X, Y) of the view where it is. */
static void
assay_image_view_zoom_at (AssayImageView *self,
                          double          zoom,
                          double          x,
                          double          y)
{
  double current = assay_image_view_get_zoom (self);
  graphene_point_t point;

  if (self->texture == NULL)
    return;
  zoom = CLAMP (zoom, ASSAY_IMAGE_VIEW_MIN_ZOOM, ASSAY_IMAGE_VIEW_MAX_ZOOM);
  if (!self->fit && fabs (zoom - current) < 1e-9)
    return;

  if (!self->fit &&
      gtk_widget_compute_point (GTK_WIDGET (self), GTK_WIDGET (self->canvas),
                                &GRAPHENE_POINT_INIT (x, y), &point))
    {
      self->anchor_x = point.x / current;
      self->anchor_y = point.y / current;
    }
  else
    {
      self->anchor_x = gdk_texture_get_width (self->texture) / 2.0;
      self->anchor_y = gdk_texture_get_height (self->texture) / 2.0;
      x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
    }
  self->view_x = x;
  self->view_y = y;
  self->anchor_h = self->anchor_v = TRUE;

  self->zoom = zoom;
  assay_zoom_canvas_set_size (self->canvas,
                              (int) round (gdk_texture_get_width (self->texture) * zoom),
                              (int) round (gdk_texture_get_height (self->texture) * zoom));
  assay_image_view_apply_fit (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

/* The viewport configures the adjustments for the new size: put the anchor back. */
static void
assay_image_view_hadjustment_changed_cb (GtkAdjustment  *adjustment,
                                         AssayImageView *self)
{
  if (!self->anchor_h)
    return;
  self->anchor_h = FALSE;
  gtk_adjustment_set_value (adjustment, self->anchor_x * self->zoom - self->view_x);
}

static void
assay_image_view_vadjustment_changed_cb (GtkAdjustment  *adjustment,
                                         AssayImageView *self)
{
  if (!self->anchor_v)
    return;
  self->anchor_v = FALSE;
  gtk_adjustment_set_value (adjustment, self->anchor_y * self->zoom - self->view_y);
}

static gboolean
assay_image_view_scroll_cb (GtkEventControllerScroll *controller,
                            double                    dx,
                            double                    dy,
                            AssayImageView           *self)
{
  GdkModifierType state;

  state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  if ((state & GDK_CONTROL_MASK) == 0 || self->texture == NULL)
    return FALSE;
  assay_image_view_zoom_at (self, assay_image_view_get_zoom (self) * pow (1.1, -dy),
                            self->pointer_x, self->pointer_y);
  return TRUE;
}

static void
assay_image_view_motion_cb (GtkEventControllerMotion *controller,
                            double                    x,
                            double                    y,
                            AssayImageView           *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

static void
assay_image_view_drag_begin_cb (GtkGestureDrag *gesture,
                                double          x,
                                double          y,
                                AssayImageView *self)
{
  self->drag_start_h = gtk_adjustment_get_value (gtk_scrolled_window_get_hadjustment (self->scroller));
  self->drag_start_v = gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (self->scroller));
  if (!self->fit)
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
}

static void
assay_image_view_drag_update_cb (GtkGestureDrag *gesture,
                                 double          offset_x,
                                 double          offset_y,
                                 AssayImageView *self)
{
  gtk_adjustment_set_value (gtk_scrolled_window_get_hadjustment (self->scroller),
                            self->drag_start_h - offset_x);
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->scroller),
                            self->drag_start_v - offset_y);
}

static void
assay_image_view_drag_end_cb (GtkGestureDrag *gesture,
                              double          offset_x,
                              double          offset_y,
                              AssayImageView *self)
{
  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);
}

static void
assay_image_view_pinch_begin_cb (GtkGesture       *gesture,
                                 GdkEventSequence *sequence,
                                 AssayImageView   *self)
{
  self->pinch_start_zoom = assay_image_view_get_zoom (self);
}

static void
assay_image_view_pinch_scale_changed_cb (GtkGestureZoom *gesture,
                                         double          scale,
                                         AssayImageView *self)
{
  double x, y;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y))
    x = y = 0;
  assay_image_view_zoom_at (self, self->pinch_start_zoom * scale, x, y);
}

static void
assay_image_view_dispose (GObject *object)
{
  AssayImageView *self = ASSAY_IMAGE_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_IMAGE_VIEW);
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  g_clear_object (&self->item);
  g_clear_object (&self->texture);
  g_clear_pointer (&self->error, g_free);

  G_OBJECT_CLASS (assay_image_view_parent_class)->dispose (object);
}

static void
assay_image_view_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  AssayImageView *self = ASSAY_IMAGE_VIEW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    case PROP_TEXTURE:
      g_value_set_object (value, self->texture);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, assay_image_view_get_zoom (self));
      break;
    case PROP_FIT:
      g_value_set_boolean (value, self->fit);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_image_view_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  AssayImageView *self = ASSAY_IMAGE_VIEW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      assay_image_view_set_item (self, g_value_get_object (value));
      break;
    case PROP_ZOOM:
      assay_image_view_set_zoom (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_image_view_class_init (AssayImageViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags read_only = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = assay_image_view_dispose;
  object_class->get_property = assay_image_view_get_property;
  object_class->set_property = assay_image_view_set_property;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, ASSAY_TYPE_ARTIFACT_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TEXTURE] = g_param_spec_object ("texture", NULL, NULL, GDK_TYPE_TEXTURE, read_only);
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, read_only);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, read_only);
  properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, ASSAY_IMAGE_VIEW_MIN_ZOOM, ASSAY_IMAGE_VIEW_MAX_ZOOM, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FIT] = g_param_spec_boolean ("fit", NULL, NULL, TRUE, read_only);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (ASSAY_TYPE_ZOOM_CANVAS);
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/assay/Assay/ui/assay-image-view.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayImageView, scroller);
  gtk_widget_class_bind_template_child (widget_class, AssayImageView, canvas);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "assay-image-view");
}

static void
assay_image_view_init (AssayImageView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->fit = TRUE;
  self->zoom = 1.0;
  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect_object (gtk_scrolled_window_get_hadjustment (self->scroller), "changed",
                           G_CALLBACK (assay_image_view_hadjustment_changed_cb), self, 0);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "changed",
                           G_CALLBACK (assay_image_view_vadjustment_changed_cb), self, 0);

  /* Before the scrolled window, which would scroll instead. */
  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect (controller, "scroll", G_CALLBACK (assay_image_view_scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "enter", G_CALLBACK (assay_image_view_motion_cb), self);
  g_signal_connect (controller, "motion", G_CALLBACK (assay_image_view_motion_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (assay_image_view_drag_begin_cb), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (assay_image_view_drag_update_cb), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (assay_image_view_drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (assay_image_view_pinch_begin_cb), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (assay_image_view_pinch_scale_changed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}

GtkWidget *
assay_image_view_new (void)
{
  return g_object_new (ASSAY_TYPE_IMAGE_VIEW, NULL);
}

AssayArtifactItem *
assay_image_view_get_item (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), NULL);
  return self->item;
}

GdkTexture *
assay_image_view_get_texture (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), NULL);
  return self->texture;
}

gboolean
assay_image_view_get_loading (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), FALSE);
  return self->loading;
}

const char *
assay_image_view_get_error (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), NULL);
  return self->error;
}

double
assay_image_view_get_zoom (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), 1.0);

  if (self->fit)
    return assay_zoom_canvas_get_scale (self->canvas);
  return self->zoom;
}

void
assay_image_view_set_zoom (AssayImageView *self,
                           double          zoom)
{
  g_return_if_fail (ASSAY_IS_IMAGE_VIEW (self));

  assay_image_view_zoom_at (self, zoom,
                            gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
                            gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

gboolean
assay_image_view_get_fit (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), TRUE);
  return self->fit;
}

void
assay_image_view_zoom_to_fit (AssayImageView *self)
{
  g_return_if_fail (ASSAY_IS_IMAGE_VIEW (self));

  assay_image_view_apply_fit (self, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

void
assay_image_view_zoom_in (AssayImageView *self)
{
  g_return_if_fail (ASSAY_IS_IMAGE_VIEW (self));
  assay_image_view_set_zoom (self, assay_image_view_get_zoom (self) * ZOOM_STEP);
}

void
assay_image_view_zoom_out (AssayImageView *self)
{
  g_return_if_fail (ASSAY_IS_IMAGE_VIEW (self));
  assay_image_view_set_zoom (self, assay_image_view_get_zoom (self) / ZOOM_STEP);
}

void
assay_image_view_scroll_by (AssayImageView *self,
                            double          dx,
                            double          dy)
{
  GtkAdjustment *hadjustment, *vadjustment;

  g_return_if_fail (ASSAY_IS_IMAGE_VIEW (self));

  hadjustment = gtk_scrolled_window_get_hadjustment (self->scroller);
  vadjustment = gtk_scrolled_window_get_vadjustment (self->scroller);
  gtk_adjustment_set_value (hadjustment, gtk_adjustment_get_value (hadjustment) + dx);
  gtk_adjustment_set_value (vadjustment, gtk_adjustment_get_value (vadjustment) + dy);
}

GtkAdjustment *
assay_image_view_get_hadjustment (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), NULL);
  return gtk_scrolled_window_get_hadjustment (self->scroller);
}

GtkAdjustment *
assay_image_view_get_vadjustment (AssayImageView *self)
{
  g_return_val_if_fail (ASSAY_IS_IMAGE_VIEW (self), NULL);
  return gtk_scrolled_window_get_vadjustment (self->scroller);
}
