/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Preview"

#include "config.h"

#include "assay-column-header-strip.h"

struct _AssayColumnHeaderStrip
{
  GtkWidget      parent_instance;

  GtkColumnView *view;        /* weak: a sibling owned by the same parent */
  guint          first_column;
  GArray        *slots;       /* graphene_rect_t per child, x/width relative to the strip */
  guint          tick_id;
  guint          quiet_ticks; /* ticks in a row that found every title where it was */
  GtkAdjustment *hadjustment; /* the view's, watched */
  GListModel    *columns;     /* the view's, watched */
};

/* Ticks with nothing moved before the strip stops reading the titles every frame. Two: a title
 * moves in the layout after the tick that would see it. */
#define QUIET_TICKS 2

G_DEFINE_FINAL_TYPE (AssayColumnHeaderStrip, assay_column_header_strip, GTK_TYPE_WIDGET)

/* The column view's header row is its first child, holding one title per column. */
static GtkWidget *
assay_column_header_strip_nth_title (AssayColumnHeaderStrip *self,
                                     guint                   n)
{
  GtkWidget *header;
  GtkWidget *child;

  if (self->view == NULL)
    return NULL;
  header = gtk_widget_get_first_child (GTK_WIDGET (self->view));
  if (header == NULL)
    return NULL;
  child = gtk_widget_get_first_child (header);
  for (guint i = 0; child != NULL && i < n; i++)
    child = gtk_widget_get_next_sibling (child);
  return child;
}

static gboolean
assay_column_header_strip_update_slots (AssayColumnHeaderStrip *self)
{
  gboolean changed = FALSE;
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self));
       child != NULL;
       child = gtk_widget_get_next_sibling (child), n++)
    {
      GtkWidget *title = assay_column_header_strip_nth_title (self, n + self->first_column);
      graphene_rect_t rect = GRAPHENE_RECT_INIT (0, 0, -1, -1);

      if (title == NULL || !gtk_widget_compute_bounds (title, GTK_WIDGET (self), &rect))
        rect = GRAPHENE_RECT_INIT (0, 0, -1, -1);
      if (n >= self->slots->len)
        {
          g_array_append_val (self->slots, rect);
          changed = TRUE;
        }
      else if (!graphene_rect_equal (&g_array_index (self->slots, graphene_rect_t, n), &rect))
        {
          g_array_index (self->slots, graphene_rect_t, n) = rect;
          changed = TRUE;
        }
    }
  if (self->slots->len > n)
    g_array_set_size (self->slots, n);
  return changed;
}

static gboolean
assay_column_header_strip_tick_cb (GtkWidget     *widget,
                                   GdkFrameClock *clock,
                                   gpointer       user_data)
{
  AssayColumnHeaderStrip *self = ASSAY_COLUMN_HEADER_STRIP (widget);

  if (assay_column_header_strip_update_slots (self))
    {
      self->quiet_ticks = 0;
      gtk_widget_queue_allocate (widget);
    }
  else if (++self->quiet_ticks >= QUIET_TICKS)
    {
      self->tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* The titles may move (scrolled, resized, columns changed): follow them on every frame until
 * they stay put. A tick callback that never stops would keep the frame clock running, 60
 * frames a second, for as long as the table is shown. */
static void
assay_column_header_strip_follow_titles (AssayColumnHeaderStrip *self)
{
  self->quiet_ticks = 0;
  if (self->tick_id == 0 && gtk_widget_get_mapped (GTK_WIDGET (self)))
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self),
                                                  assay_column_header_strip_tick_cb,
                                                  NULL,
                                                  NULL);
}

static void
assay_column_header_strip_watch_columns (AssayColumnHeaderStrip *self)
{
  if (self->columns == NULL)
    return;
  for (guint i = 0; i < g_list_model_get_n_items (self->columns); i++)
    {
      g_autoptr(GObject) column = g_list_model_get_item (self->columns, i);

      g_signal_handlers_disconnect_by_func (column, assay_column_header_strip_follow_titles, self);
      g_signal_connect_object (column,
                               "notify",
                               G_CALLBACK (assay_column_header_strip_follow_titles),
                               self,
                               G_CONNECT_SWAPPED);
    }
}

static void
assay_column_header_strip_columns_changed (AssayColumnHeaderStrip *self)
{
  assay_column_header_strip_watch_columns (self);
  assay_column_header_strip_follow_titles (self);
}

static void
assay_column_header_strip_watch_hadjustment (AssayColumnHeaderStrip *self)
{
  GtkAdjustment *hadjustment = self->view != NULL ? gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (self->view)) : NULL;

  if (self->hadjustment == hadjustment)
    return;
  if (self->hadjustment != NULL)
    g_signal_handlers_disconnect_by_data (self->hadjustment, self);
  g_set_object (&self->hadjustment, hadjustment);
  if (hadjustment != NULL)
    {
      g_signal_connect_swapped (hadjustment,
                                "value-changed",
                                G_CALLBACK (assay_column_header_strip_follow_titles),
                                self);
      g_signal_connect_swapped (hadjustment,
                                "changed",
                                G_CALLBACK (assay_column_header_strip_follow_titles),
                                self);
    }
  assay_column_header_strip_follow_titles (self);
}

static void
assay_column_header_strip_measure (GtkWidget      *widget,
                                   GtkOrientation  orientation,
                                   int             for_size,
                                   int            *minimum,
                                   int            *natural,
                                   int            *minimum_baseline,
                                   int            *natural_baseline)
{
  *minimum = *natural = 0;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    return;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int min, nat;

      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, -1, &min, &nat, NULL, NULL);
      *minimum = MAX (*minimum, min);
      *natural = MAX (*natural, nat);
    }
}

static void
assay_column_header_strip_size_allocate (GtkWidget *widget,
                                         int        width,
                                         int        height,
                                         int        baseline)
{
  AssayColumnHeaderStrip *self = ASSAY_COLUMN_HEADER_STRIP (widget);
  guint n = 0;

  assay_column_header_strip_update_slots (self);
  assay_column_header_strip_follow_titles (self);   /* the view may be laid out anew after the strip */
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child), n++)
    {
      graphene_rect_t *slot = &g_array_index (self->slots, graphene_rect_t, n);
      int min_width;

      if (slot->size.width < 0)
        {
          gtk_widget_set_child_visible (child, FALSE);
          continue;
        }
      gtk_widget_set_child_visible (child, TRUE);
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
      gtk_widget_size_allocate (child,
                                &(GtkAllocation) { (int) slot->origin.x, 0,
                                                   MAX ((int) slot->size.width, min_width), height },
                                -1);
    }
}

static void
assay_column_header_strip_map (GtkWidget *widget)
{
  AssayColumnHeaderStrip *self = ASSAY_COLUMN_HEADER_STRIP (widget);

  GTK_WIDGET_CLASS (assay_column_header_strip_parent_class)->map (widget);
  assay_column_header_strip_follow_titles (self);
}

static void
assay_column_header_strip_unmap (GtkWidget *widget)
{
  AssayColumnHeaderStrip *self = ASSAY_COLUMN_HEADER_STRIP (widget);

  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (widget, self->tick_id);
      self->tick_id = 0;
    }
  GTK_WIDGET_CLASS (assay_column_header_strip_parent_class)->unmap (widget);
}

static void
assay_column_header_strip_dispose (GObject *object)
{
  AssayColumnHeaderStrip *self = ASSAY_COLUMN_HEADER_STRIP (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  if (self->hadjustment != NULL)
    g_signal_handlers_disconnect_by_data (self->hadjustment, self);
  g_clear_object (&self->hadjustment);
  if (self->columns != NULL)
    g_signal_handlers_disconnect_by_data (self->columns, self);
  g_clear_object (&self->columns);
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_data (self->view, self);
  g_clear_weak_pointer (&self->view);

  G_OBJECT_CLASS (assay_column_header_strip_parent_class)->dispose (object);
}

static void
assay_column_header_strip_finalize (GObject *object)
{
  AssayColumnHeaderStrip *self = ASSAY_COLUMN_HEADER_STRIP (object);

  g_array_unref (self->slots);

  G_OBJECT_CLASS (assay_column_header_strip_parent_class)->finalize (object);
}

static void
assay_column_header_strip_class_init (AssayColumnHeaderStripClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_column_header_strip_dispose;
  object_class->finalize = assay_column_header_strip_finalize;
  widget_class->measure = assay_column_header_strip_measure;
  widget_class->size_allocate = assay_column_header_strip_size_allocate;
  widget_class->map = assay_column_header_strip_map;
  widget_class->unmap = assay_column_header_strip_unmap;
  gtk_widget_class_set_css_name (widget_class, "columnheaderstrip");
}

static void
assay_column_header_strip_init (AssayColumnHeaderStrip *self)
{
  self->slots = g_array_new (FALSE, TRUE, sizeof (graphene_rect_t));
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
}

GtkWidget *
assay_column_header_strip_new (GtkColumnView *view,
                               guint          first_column)
{
  AssayColumnHeaderStrip *self = g_object_new (ASSAY_TYPE_COLUMN_HEADER_STRIP, NULL);

  g_set_weak_pointer (&self->view, view);
  self->first_column = first_column;
  self->columns = g_object_ref (gtk_column_view_get_columns (view));
  g_signal_connect_swapped (self->columns,
                            "items-changed",
                            G_CALLBACK (assay_column_header_strip_columns_changed),
                            self);
  g_signal_connect_swapped (view,
                            "notify::hadjustment",
                            G_CALLBACK (assay_column_header_strip_watch_hadjustment),
                            self);
  assay_column_header_strip_watch_columns (self);
  assay_column_header_strip_watch_hadjustment (self);
  return GTK_WIDGET (self);
}

void
assay_column_header_strip_append (AssayColumnHeaderStrip *self,
                                  GtkWidget              *header)
{
  g_return_if_fail (ASSAY_IS_COLUMN_HEADER_STRIP (self));
  gtk_widget_set_parent (header, GTK_WIDGET (self));
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
assay_column_header_strip_remove_all (AssayColumnHeaderStrip *self)
{
  GtkWidget *child;

  g_return_if_fail (ASSAY_IS_COLUMN_HEADER_STRIP (self));
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_array_set_size (self->slots, 0);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

gboolean
assay_column_header_strip_is_following (AssayColumnHeaderStrip *self)
{
  g_return_val_if_fail (ASSAY_IS_COLUMN_HEADER_STRIP (self), FALSE);
  return self->tick_id != 0;
}

gboolean
assay_column_header_strip_get_slot (AssayColumnHeaderStrip *self,
                                    guint                   n,
                                    graphene_rect_t        *slot)
{
  g_return_val_if_fail (ASSAY_IS_COLUMN_HEADER_STRIP (self), FALSE);
  if (n >= self->slots->len || g_array_index (self->slots, graphene_rect_t, n).size.width < 0)
    return FALSE;
  *slot = g_array_index (self->slots, graphene_rect_t, n);
  return TRUE;
}
