/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Not a GtkScrolledWindow: one measures a child's height with no width given (at the child's
 * minimum width: a table's cells one word a line, a tall blank hole once it is laid out
 * wider), and it stops every wheel event once it can scroll at all, so the conversation
 * under the pointer no longer moves. */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <math.h>

#include "assay-table-scroller.h"

struct _AssayTableScroller
{
  GtkWidget      parent_instance;

  GtkWidget     *child;
  GtkWidget     *scrollbar;
  GtkAdjustment *adjustment;
  GtkRoot       *root;          /* while mapped: its focus is followed */
  gulong         focus_handler;
};

G_DEFINE_FINAL_TYPE (AssayTableScroller, assay_table_scroller, GTK_TYPE_WIDGET)

/* The width the child is laid out at when the scroller is WIDTH wide (-1: as wide as it
 * wants): never less than its natural width. Measuring and allocating both use it, so the
 * height asked for is the height of the layout shown. */
static int
assay_table_scroller_child_width (AssayTableScroller *self,
                                  int                 width)
{
  int natural = 0;

  gtk_widget_measure (self->child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  return MAX (width, natural);
}

static int
assay_table_scroller_scrollbar_height (AssayTableScroller *self)
{
  int height = 0;

  gtk_widget_measure (self->scrollbar, GTK_ORIENTATION_VERTICAL, -1, &height, NULL, NULL, NULL);
  return height;
}

static void
assay_table_scroller_measure (GtkWidget      *widget,
                              GtkOrientation  orientation,
                              int             for_size,
                              int            *minimum,
                              int            *natural,
                              int            *minimum_baseline,
                              int            *natural_baseline)
{
  AssayTableScroller *self = ASSAY_TABLE_SCROLLER (widget);

  *minimum = *natural = 0;
  if (self->child == NULL || !gtk_widget_get_visible (self->child))
    return;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      int scrollbar_min = 0;

      /* As narrow as the chat needs; as wide as the table, if it can be. */
      gtk_widget_measure (self->scrollbar, GTK_ORIENTATION_HORIZONTAL, -1, &scrollbar_min, NULL, NULL, NULL);
      gtk_widget_measure (self->child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, natural, NULL, NULL);
      *minimum = scrollbar_min;
      *natural = MAX (*natural, scrollbar_min);
    }
  else
    {
      int child_width = assay_table_scroller_child_width (self, for_size);
      int child_min = 0, child_nat = 0;

      gtk_widget_measure (self->child, GTK_ORIENTATION_VERTICAL, child_width, &child_min, &child_nat, NULL, NULL);
      *minimum = child_min;
      *natural = child_nat;
      if (for_size >= 0 && child_width > for_size)
        {
          *minimum += assay_table_scroller_scrollbar_height (self);
          *natural += assay_table_scroller_scrollbar_height (self);
        }
    }
}

/* Scrolled: the child moves. A resize, not an allocation: GTK lays out a queued allocation
 * without measuring the window again, and a text view in the child that measures lines it
 * has not laid out yet (an output that grew) then asks for a size up to the window, which
 * nothing lays out before the frame is drawn (a blank conversation for a frame, "snapshot
 * without a current allocation"). */
static void
assay_table_scroller_value_changed_cb (AssayTableScroller *self)
{
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static void
assay_table_scroller_size_allocate (GtkWidget *widget,
                                    int        width,
                                    int        height,
                                    int        baseline)
{
  AssayTableScroller *self = ASSAY_TABLE_SCROLLER (widget);
  int child_width, child_height;
  gboolean overflows;
  double value;

  if (self->child == NULL || !gtk_widget_get_visible (self->child))
    {
      gtk_widget_set_child_visible (self->scrollbar, FALSE);
      return;
    }
  child_width = assay_table_scroller_child_width (self, width);
  overflows = child_width > width;
  child_height = height - (overflows ? assay_table_scroller_scrollbar_height (self) : 0);
  value = CLAMP (gtk_adjustment_get_value (self->adjustment), 0, MAX (0, child_width - width));
  /* Not a change to lay out again: this is the layout. */
  g_signal_handlers_block_by_func (self->adjustment, assay_table_scroller_value_changed_cb, self);
  gtk_adjustment_configure (self->adjustment, value, 0, child_width, width * 0.1, width * 0.9, width);
  g_signal_handlers_unblock_by_func (self->adjustment, assay_table_scroller_value_changed_cb, self);

  gtk_widget_allocate (self->child, child_width, MAX (child_height, 0), -1,
                       gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (-round (value), 0)));
  gtk_widget_set_child_visible (self->scrollbar, overflows);
  if (overflows)
    gtk_widget_allocate (self->scrollbar, width, height - child_height, -1,
                         gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, child_height)));
}

/* Sideways only: a vertical wheel or swipe is left to the conversation's scroller. */
static gboolean
assay_table_scroller_scroll_cb (GtkEventControllerScroll *controller,
                                double                    dx,
                                double                    dy,
                                AssayTableScroller       *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  double page = gtk_adjustment_get_page_size (self->adjustment);
  double delta;

  if ((state & GDK_SHIFT_MASK) != 0)
    delta = dy != 0 ? dy : dx;
  else if (fabs (dx) > fabs (dy))
    delta = dx;
  else
    return GDK_EVENT_PROPAGATE;
  if (gtk_adjustment_get_upper (self->adjustment) <= page)
    return GDK_EVENT_PROPAGATE;
  /* The steps GtkScrolledWindow takes. */
  if (gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL)
    delta *= pow (page, 2.0 / 3.0);
  else
    delta *= 2.5;
  gtk_adjustment_set_value (self->adjustment, gtk_adjustment_get_value (self->adjustment) + delta);
  return GDK_EVENT_STOP;
}

/* A cell reached with the keyboard is scrolled into sight. */
static void
assay_table_scroller_focus_cb (AssayTableScroller *self)
{
  GtkWidget *focus = gtk_root_get_focus (self->root);
  graphene_rect_t bounds;
  double value = gtk_adjustment_get_value (self->adjustment);
  double page = gtk_adjustment_get_page_size (self->adjustment);

  if (focus == NULL || self->child == NULL || !gtk_widget_is_ancestor (focus, self->child) ||
      !gtk_widget_compute_bounds (focus, self->child, &bounds))
    return;
  /* Wider than the scroller (a whole output): left where it is while any of it shows. */
  if (bounds.size.width > page)
    {
      if (bounds.origin.x + bounds.size.width <= value || bounds.origin.x >= value + page)
        gtk_adjustment_set_value (self->adjustment, bounds.origin.x);
    }
  else if (bounds.origin.x < value)
    gtk_adjustment_set_value (self->adjustment, bounds.origin.x);
  else if (bounds.origin.x + bounds.size.width > value + page)
    gtk_adjustment_set_value (self->adjustment, bounds.origin.x + bounds.size.width - page);
}

static void
assay_table_scroller_map (GtkWidget *widget)
{
  AssayTableScroller *self = ASSAY_TABLE_SCROLLER (widget);

  GTK_WIDGET_CLASS (assay_table_scroller_parent_class)->map (widget);
  self->root = gtk_widget_get_root (widget);
  if (self->root != NULL)
    self->focus_handler = g_signal_connect_object (self->root, "notify::focus-widget",
                                                   G_CALLBACK (assay_table_scroller_focus_cb), self,
                                                   G_CONNECT_SWAPPED);
}

static void
assay_table_scroller_unmap (GtkWidget *widget)
{
  AssayTableScroller *self = ASSAY_TABLE_SCROLLER (widget);

  if (self->root != NULL)
    g_clear_signal_handler (&self->focus_handler, self->root);
  self->root = NULL;
  GTK_WIDGET_CLASS (assay_table_scroller_parent_class)->unmap (widget);
}

static GtkSizeRequestMode
assay_table_scroller_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
assay_table_scroller_dispose (GObject *object)
{
  AssayTableScroller *self = ASSAY_TABLE_SCROLLER (object);

  g_clear_pointer (&self->child, gtk_widget_unparent);
  g_clear_pointer (&self->scrollbar, gtk_widget_unparent);
  G_OBJECT_CLASS (assay_table_scroller_parent_class)->dispose (object);
}

static void
assay_table_scroller_finalize (GObject *object)
{
  g_clear_object (&ASSAY_TABLE_SCROLLER (object)->adjustment);
  G_OBJECT_CLASS (assay_table_scroller_parent_class)->finalize (object);
}

static void
assay_table_scroller_class_init (AssayTableScrollerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_table_scroller_dispose;
  object_class->finalize = assay_table_scroller_finalize;
  widget_class->measure = assay_table_scroller_measure;
  widget_class->size_allocate = assay_table_scroller_size_allocate;
  widget_class->get_request_mode = assay_table_scroller_get_request_mode;
  widget_class->map = assay_table_scroller_map;
  widget_class->unmap = assay_table_scroller_unmap;
  gtk_widget_class_set_css_name (widget_class, "tablescroller");
}

static void
assay_table_scroller_init (AssayTableScroller *self)
{
  GtkEventController *scroll;

  self->adjustment = g_object_ref_sink (gtk_adjustment_new (0, 0, 0, 0, 0, 0));
  g_signal_connect_object (self->adjustment, "value-changed",
                           G_CALLBACK (assay_table_scroller_value_changed_cb), self, G_CONNECT_SWAPPED);
  self->scrollbar = gtk_scrollbar_new (GTK_ORIENTATION_HORIZONTAL, self->adjustment);
  gtk_widget_set_parent (self->scrollbar, GTK_WIDGET (self));
  gtk_widget_set_child_visible (self->scrollbar, FALSE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (scroll, "scroll", G_CALLBACK (assay_table_scroller_scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
}

GtkWidget *
assay_table_scroller_new (void)
{
  return g_object_new (ASSAY_TYPE_TABLE_SCROLLER, NULL);
}

void
assay_table_scroller_set_child (AssayTableScroller *self,
                                GtkWidget          *child)
{
  g_return_if_fail (ASSAY_IS_TABLE_SCROLLER (self));
  g_return_if_fail (child == NULL || GTK_IS_WIDGET (child));

  if (self->child == child)
    return;
  g_clear_pointer (&self->child, gtk_widget_unparent);
  if (child != NULL)
    {
      self->child = child;
      gtk_widget_insert_before (child, GTK_WIDGET (self), self->scrollbar);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

GtkWidget *
assay_table_scroller_get_child (AssayTableScroller *self)
{
  g_return_val_if_fail (ASSAY_IS_TABLE_SCROLLER (self), NULL);
  return self->child;
}

GtkAdjustment *
assay_table_scroller_get_hadjustment (AssayTableScroller *self)
{
  g_return_val_if_fail (ASSAY_IS_TABLE_SCROLLER (self), NULL);
  return self->adjustment;
}
