/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include "assay-zoom-canvas.h"

struct _AssayZoomCanvas
{
  GtkWidget   parent_instance;

  GdkTexture *texture;
  gboolean    fit;
  int         width;
  int         height;
};

G_DEFINE_FINAL_TYPE (AssayZoomCanvas, assay_zoom_canvas, GTK_TYPE_WIDGET)

/* Where the texture goes inside the allocation. */
static graphene_rect_t
assay_zoom_canvas_texture_bounds (AssayZoomCanvas *self)
{
  double width = gtk_widget_get_width (GTK_WIDGET (self));
  double height = gtk_widget_get_height (GTK_WIDGET (self));
  double texture_width, texture_height, scale;

  if (self->texture == NULL)
    return GRAPHENE_RECT_INIT (0, 0, 0, 0);
  if (!self->fit)
    return GRAPHENE_RECT_INIT (0, 0, width, height);

  texture_width = gdk_texture_get_width (self->texture);
  texture_height = gdk_texture_get_height (self->texture);
  scale = MIN (1.0, MIN (width / texture_width, height / texture_height));
  return GRAPHENE_RECT_INIT ((width - texture_width * scale) / 2,
                             (height - texture_height * scale) / 2,
                             texture_width * scale, texture_height * scale);
}

static void
assay_zoom_canvas_snapshot (GtkWidget   *widget,
                            GtkSnapshot *snapshot)
{
  AssayZoomCanvas *self = ASSAY_ZOOM_CANVAS (widget);
  graphene_rect_t bounds = assay_zoom_canvas_texture_bounds (self);

  if (self->texture != NULL && bounds.size.width > 0 && bounds.size.height > 0)
    gtk_snapshot_append_texture (snapshot, self->texture, &bounds);
}

static void
assay_zoom_canvas_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  AssayZoomCanvas *self = ASSAY_ZOOM_CANVAS (widget);

  if (self->fit)
    {
      *minimum = 0;
      if (self->texture == NULL)
        *natural = 0;
      else if (orientation == GTK_ORIENTATION_HORIZONTAL)
        *natural = gdk_texture_get_width (self->texture);
      else
        *natural = gdk_texture_get_height (self->texture);
    }
  else
    *minimum = *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? self->width : self->height;
}

static GtkSizeRequestMode
assay_zoom_canvas_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_CONSTANT_SIZE;
}

static void
assay_zoom_canvas_dispose (GObject *object)
{
  AssayZoomCanvas *self = ASSAY_ZOOM_CANVAS (object);

  g_clear_object (&self->texture);

  G_OBJECT_CLASS (assay_zoom_canvas_parent_class)->dispose (object);
}

static void
assay_zoom_canvas_class_init (AssayZoomCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_zoom_canvas_dispose;
  widget_class->snapshot = assay_zoom_canvas_snapshot;
  widget_class->measure = assay_zoom_canvas_measure;
  widget_class->get_request_mode = assay_zoom_canvas_get_request_mode;
}

static void
assay_zoom_canvas_init (AssayZoomCanvas *self)
{
  self->fit = TRUE;
  self->width = self->height = 1;
}

GtkWidget *
assay_zoom_canvas_new (void)
{
  return g_object_new (ASSAY_TYPE_ZOOM_CANVAS, NULL);
}

void
assay_zoom_canvas_set_texture (AssayZoomCanvas *self,
                               GdkTexture      *texture)
{
  g_return_if_fail (ASSAY_IS_ZOOM_CANVAS (self));

  if (!g_set_object (&self->texture, texture))
    return;
  if (self->fit)
    gtk_widget_queue_resize (GTK_WIDGET (self));
  else
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

GdkTexture *
assay_zoom_canvas_get_texture (AssayZoomCanvas *self)
{
  g_return_val_if_fail (ASSAY_IS_ZOOM_CANVAS (self), NULL);
  return self->texture;
}

void
assay_zoom_canvas_set_fit (AssayZoomCanvas *self,
                           gboolean         fit)
{
  g_return_if_fail (ASSAY_IS_ZOOM_CANVAS (self));

  fit = !!fit;
  if (self->fit == fit)
    return;
  self->fit = fit;
  /* Fitting fills the viewport and centres inside; a fixed size is centred by the viewport. */
  gtk_widget_set_halign (GTK_WIDGET (self), fit ? GTK_ALIGN_FILL : GTK_ALIGN_CENTER);
  gtk_widget_set_valign (GTK_WIDGET (self), fit ? GTK_ALIGN_FILL : GTK_ALIGN_CENTER);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
assay_zoom_canvas_set_size (AssayZoomCanvas *self,
                            int              width,
                            int              height)
{
  g_return_if_fail (ASSAY_IS_ZOOM_CANVAS (self));

  if (self->width == width && self->height == height)
    return;
  self->width = MAX (width, 1);
  self->height = MAX (height, 1);
  if (!self->fit)
    gtk_widget_queue_resize (GTK_WIDGET (self));
}

double
assay_zoom_canvas_get_scale (AssayZoomCanvas *self)
{
  graphene_rect_t bounds;

  g_return_val_if_fail (ASSAY_IS_ZOOM_CANVAS (self), 1.0);

  if (self->texture == NULL)
    return 1.0;
  if (!self->fit)
    return (double) self->width / gdk_texture_get_width (self->texture);
  bounds = assay_zoom_canvas_texture_bounds (self);
  if (bounds.size.width <= 0)
    return 1.0;
  return bounds.size.width / gdk_texture_get_width (self->texture);
}
