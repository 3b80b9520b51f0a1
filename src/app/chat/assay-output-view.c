/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <string.h>

#include "assay-output-view.h"

/* What GtkTextView keeps free after the widest line for the cursor. */
#define SPACE_FOR_CURSOR 1

typedef struct
{
  int width;
  int height;
} LineSize;

struct _AssayOutputView
{
  GtkWidget    parent_instance;

  GtkWidget   *text_view;
  /* The size of each line of text as the text view lays it out on its own (never wrapped:
   * the view scrolls sideways in an AssayTableScroller), in the font of context_serial: a
   * cell appends lines and drops the oldest, and only the new ones are laid out. */
  PangoLayout *layout;
  GHashTable  *lines;         /* char* → LineSize */
  guint        context_serial;
  LineSize     size;          /* of all of the text, while size_valid */
  gboolean     size_valid;
};

G_DEFINE_FINAL_TYPE (AssayOutputView, assay_output_view, GTK_TYPE_WIDGET)

/* Enough for every line of a cell's output (a card keeps 256 KiB of it). */
#define MAX_CACHED_LINES 16384

static void
assay_output_view_buffer_changed_cb (AssayOutputView *self)
{
  self->size_valid = FALSE;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/* The size of the text as the text view lays it out when it has got to every line: each
 * line on its own, as long as it is. */
static void
assay_output_view_text_size (AssayOutputView *self,
                             int             *width,
                             int             *height)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->text_view));
  guint serial = pango_context_get_serial (gtk_widget_get_pango_context (self->text_view));
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  if (self->size_valid && serial == self->context_serial)
    {
      *width = self->size.width;
      *height = self->size.height;
      return;
    }
  *width = *height = 0;
  if (self->layout == NULL)
    /* On the text view's own Pango context: its font. */
    self->layout = gtk_widget_create_pango_layout (self->text_view, NULL);
  if (serial != self->context_serial || g_hash_table_size (self->lines) > MAX_CACHED_LINES)
    {
      g_hash_table_remove_all (self->lines);
      self->context_serial = serial;
    }
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  /* A final newline ends a line, and the text view shows an empty one after it. */
  for (char *line = text; line != NULL;)
    {
      char *next = strchr (line, '\n');
      LineSize *size;

      if (next != NULL)
        *next = '\0';
      size = g_hash_table_lookup (self->lines, line);
      if (size == NULL)
        {
          size = g_new0 (LineSize, 1);
          pango_layout_set_text (self->layout, line, -1);
          pango_layout_get_pixel_size (self->layout, &size->width, &size->height);
          g_hash_table_insert (self->lines, g_strdup (line), size);
        }
      *width = MAX (*width, size->width);
      *height += size->height;
      line = next != NULL ? next + 1 : NULL;
    }
  self->size.width = *width;
  self->size.height = *height;
  self->size_valid = TRUE;
}

/* The text view's padding and border, which its measurements include. */
static GtkBorder
assay_output_view_text_view_frame (AssayOutputView *self)
{
  GtkStyleContext *style = gtk_widget_get_style_context (self->text_view);
  GtkBorder padding, border, frame;

  gtk_style_context_get_padding (style, &padding);
  gtk_style_context_get_border (style, &border);
  frame.left = padding.left + border.left;
  frame.right = padding.right + border.right;
  frame.top = padding.top + border.top;
  frame.bottom = padding.bottom + border.bottom;
  return frame;
}

static void
assay_output_view_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  AssayOutputView *self = ASSAY_OUTPUT_VIEW (widget);
  GtkTextView *view = GTK_TEXT_VIEW (self->text_view);
  GtkBorder frame = assay_output_view_text_view_frame (self);
  int text_width, text_height;

  gtk_widget_measure (self->text_view, orientation, for_size, minimum, natural, NULL, NULL);
  /* All of the text, each line as long as it is, as the text view lays it out once it has
   * got to every line (it does so lazily, a screenful at a time, and its own request grows
   * as it goes). */
  assay_output_view_text_size (self, &text_width, &text_height);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *natural = MAX (*natural, text_width + frame.left + frame.right + gtk_text_view_get_left_margin (view) +
                                gtk_text_view_get_right_margin (view) + SPACE_FOR_CURSOR);
      return;
    }
  text_height += frame.top + frame.bottom + gtk_text_view_get_top_margin (view) +
                 gtk_text_view_get_bottom_margin (view);
  *minimum = MAX (*minimum, text_height);
  *natural = MAX (*natural, text_height);
}

static void
assay_output_view_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  /* The text view lays out the lines its height shows as it is allocated: all of them. */
  gtk_widget_allocate (ASSAY_OUTPUT_VIEW (widget)->text_view, width, height, baseline, NULL);
}

static GtkSizeRequestMode
assay_output_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
assay_output_view_dispose (GObject *object)
{
  AssayOutputView *self = ASSAY_OUTPUT_VIEW (object);

  g_clear_pointer (&self->text_view, gtk_widget_unparent);
  g_clear_object (&self->layout);
  g_clear_pointer (&self->lines, g_hash_table_unref);
  G_OBJECT_CLASS (assay_output_view_parent_class)->dispose (object);
}

static void
assay_output_view_class_init (AssayOutputViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_output_view_dispose;
  widget_class->measure = assay_output_view_measure;
  widget_class->size_allocate = assay_output_view_size_allocate;
  widget_class->get_request_mode = assay_output_view_get_request_mode;
  gtk_widget_class_set_css_name (widget_class, "outputview");
}

static void
assay_output_view_init (AssayOutputView *self)
{
  self->lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

GtkWidget *
assay_output_view_new_with_view (GtkTextView *view)
{
  AssayOutputView *self;

  g_return_val_if_fail (GTK_IS_TEXT_VIEW (view), NULL);

  self = g_object_new (ASSAY_TYPE_OUTPUT_VIEW, NULL);
  self->text_view = GTK_WIDGET (view);
  gtk_text_view_set_editable (view, FALSE);
  gtk_text_view_set_cursor_visible (view, FALSE);
  /* pandas' frames and aligned columns stay aligned: a long line scrolls sideways. */
  gtk_text_view_set_wrap_mode (view, GTK_WRAP_NONE);
  gtk_text_view_set_monospace (view, TRUE);
  gtk_text_view_set_top_margin (view, 6);
  gtk_text_view_set_bottom_margin (view, 6);
  gtk_text_view_set_left_margin (view, 6);
  gtk_text_view_set_right_margin (view, 6);
  gtk_widget_set_parent (self->text_view, GTK_WIDGET (self));
  g_signal_connect_object (gtk_text_view_get_buffer (view), "changed",
                           G_CALLBACK (assay_output_view_buffer_changed_cb), self, G_CONNECT_SWAPPED);
  return GTK_WIDGET (self);
}

GtkWidget *
assay_output_view_new (void)
{
  return assay_output_view_new_with_view (GTK_TEXT_VIEW (gtk_text_view_new ()));
}

GtkTextView *
assay_output_view_get_text_view (AssayOutputView *self)
{
  g_return_val_if_fail (ASSAY_IS_OUTPUT_VIEW (self), NULL);
  return GTK_TEXT_VIEW (self->text_view);
}
