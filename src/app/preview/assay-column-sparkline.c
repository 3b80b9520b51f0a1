/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Preview"

#include "config.h"

#include "assay-column-sparkline.h"

struct _AssayColumnSparkline
{
  GtkWidget  parent_instance;

  double    *values;
  guint      n_values;
  double     max;
};

G_DEFINE_FINAL_TYPE (AssayColumnSparkline, assay_column_sparkline, GTK_TYPE_WIDGET)

static void
assay_column_sparkline_get_foreground (GtkWidget *widget,
                                       GdkRGBA   *color)
{
#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, color);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), color);
#endif
}

static void
assay_column_sparkline_snapshot (GtkWidget   *widget,
                                 GtkSnapshot *snapshot)
{
  AssayColumnSparkline *self = ASSAY_COLUMN_SPARKLINE (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GdkRGBA color;
  cairo_t *cr;
  double bar;

  if (self->n_values == 0 || width <= 0 || height <= 0)
    return;

  assay_column_sparkline_get_foreground (widget, &color);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));

  /* A hairline baseline, then one bar per value; a non-zero bin is at least one pixel high
   * so a rare value stays visible. */
  cairo_set_source_rgba (cr, color.red, color.green, color.blue, color.alpha * 0.25);
  cairo_rectangle (cr, 0, height - 1, width, 1);
  cairo_fill (cr);

  cairo_set_source_rgba (cr, color.red, color.green, color.blue, color.alpha * 0.7);
  bar = (double) width / self->n_values;
  for (guint i = 0; i < self->n_values; i++)
    {
      double h = self->max > 0 ? self->values[i] / self->max * (height - 1) : 0;

      if (self->values[i] > 0 && h < 1)
        h = 1;
      cairo_rectangle (cr, i * bar + (bar > 3 ? 0.5 : 0), height - 1 - h,
                       MAX (bar - (bar > 3 ? 1 : 0), 0.5), h);
    }
  cairo_fill (cr);
  cairo_destroy (cr);
}

static void
assay_column_sparkline_measure (GtkWidget      *widget,
                                GtkOrientation  orientation,
                                int             for_size,
                                int            *minimum,
                                int            *natural,
                                int            *minimum_baseline,
                                int            *natural_baseline)
{
  /* Any width fits; a header strip decides it. */
  *minimum = 0;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 64 : 18;
}

static void
assay_column_sparkline_finalize (GObject *object)
{
  AssayColumnSparkline *self = ASSAY_COLUMN_SPARKLINE (object);

  g_free (self->values);

  G_OBJECT_CLASS (assay_column_sparkline_parent_class)->finalize (object);
}

static void
assay_column_sparkline_class_init (AssayColumnSparklineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = assay_column_sparkline_finalize;
  widget_class->snapshot = assay_column_sparkline_snapshot;
  widget_class->measure = assay_column_sparkline_measure;
  gtk_widget_class_set_css_name (widget_class, "sparkline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
assay_column_sparkline_init (AssayColumnSparkline *self)
{
}

GtkWidget *
assay_column_sparkline_new (void)
{
  return g_object_new (ASSAY_TYPE_COLUMN_SPARKLINE, NULL);
}

void
assay_column_sparkline_set_values (AssayColumnSparkline *self,
                                   const double         *values,
                                   guint                 n_values)
{
  g_return_if_fail (ASSAY_IS_COLUMN_SPARKLINE (self));

  g_clear_pointer (&self->values, g_free);
  self->n_values = n_values;
  self->max = 0;
  if (n_values > 0)
    {
      self->values = g_memdup2 (values, n_values * sizeof (double));
      for (guint i = 0; i < n_values; i++)
        self->max = MAX (self->max, values[i]);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
assay_column_sparkline_get_n_values (AssayColumnSparkline *self)
{
  g_return_val_if_fail (ASSAY_IS_COLUMN_SPARKLINE (self), 0);
  return self->n_values;
}
