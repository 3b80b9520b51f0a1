/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <string.h>

#include "assay-output-view.h"

/* What GtkTextView keeps free after the widest line for the cursor. */
#define SPACE_FOR_CURSOR 1

struct _AssayOutputView
{
  GtkWidget    parent_instance;

  GtkWidget   *text_view;
  /* The height of each line of text (a paragraph, as the text view lays it out on its own)
   * at each width asked for (GTK asks for a few), in the font of context_serial: a cell
   * appends lines and drops the oldest, and only the new ones are laid out again. */
  PangoLayout *layout;
  GHashTable  *widths;        /* width → GHashTable of char* → height in pixels */
  guint        n_cached;      /* lines in all of them */
  guint        context_serial;
};

G_DEFINE_FINAL_TYPE (AssayOutputView, assay_output_view, GTK_TYPE_WIDGET)

/* Enough for every line of a cell's output (a card keeps 256 KiB of it) at a few widths. */
#define MAX_CACHED_LINES 16384
#define MAX_CACHED_WIDTHS 4

static void
assay_output_view_buffer_changed_cb (AssayOutputView *self)
{
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/* The height of the text at WIDTH pixels, as the text view lays it out when it has got to
 * every line: each line on its own, wrapped at any character. */
static int
assay_output_view_text_height (AssayOutputView *self,
                               int              width)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->text_view));
  guint serial = pango_context_get_serial (gtk_widget_get_pango_context (self->text_view));
  g_autofree char *text = NULL;
  GHashTable *line_heights;
  GtkTextIter start, end;
  int height = 0;

  if (self->layout == NULL)
    {
      /* On the text view's own Pango context: its font. */
      self->layout = gtk_widget_create_pango_layout (self->text_view, NULL);
      pango_layout_set_wrap (self->layout, PANGO_WRAP_CHAR);
    }
  if (serial != self->context_serial || self->n_cached > MAX_CACHED_LINES ||
      (g_hash_table_size (self->widths) >= MAX_CACHED_WIDTHS &&
       !g_hash_table_contains (self->widths, GINT_TO_POINTER (width))))
    {
      g_hash_table_remove_all (self->widths);
      self->n_cached = 0;
      self->context_serial = serial;
    }
  line_heights = g_hash_table_lookup (self->widths, GINT_TO_POINTER (width));
  if (line_heights == NULL)
    {
      line_heights = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert (self->widths, GINT_TO_POINTER (width), line_heights);
    }
  pango_layout_set_width (self->layout, width * PANGO_SCALE);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  /* A final newline ends a line, and the text view shows an empty one after it. */
  for (char *line = text; line != NULL;)
    {
      char *next = strchr (line, '\n');
      gpointer cached;

      if (next != NULL)
        *next = '\0';
      if (g_hash_table_lookup_extended (line_heights, line, NULL, &cached))
        height += GPOINTER_TO_INT (cached);
      else
        {
          int line_height = 0;

          pango_layout_set_text (self->layout, line, -1);
          pango_layout_get_pixel_size (self->layout, NULL, &line_height);
          g_hash_table_insert (line_heights, g_strdup (line), GINT_TO_POINTER (line_height));
          self->n_cached++;
          height += line_height;
        }
      line = next != NULL ? next + 1 : NULL;
    }
  return height;
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
  GtkBorder frame;
  int text_height = 0;

  gtk_widget_measure (self->text_view, orientation, for_size, minimum, natural, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    return;

  /* All of the text at this width, as the text view lays it out once it has got to every
   * line: wrapped at any character, inside its margins. */
  frame = assay_output_view_text_view_frame (self);
  if (for_size >= 0)
    text_height = assay_output_view_text_height (self, MAX (for_size - frame.left - frame.right -
                                                            gtk_text_view_get_left_margin (view) -
                                                            gtk_text_view_get_right_margin (view) -
                                                            SPACE_FOR_CURSOR, 1));
  else
    {
      /* No width given (the window's own size request): nothing wraps, one line of the
       * font per line of text. Not laid out for that: GTK asks on every resize, and the
       * text changes ten times a second while a cell prints. */
      g_autoptr(PangoLayout) line = gtk_widget_create_pango_layout (self->text_view, "X");
      int line_height = 0;

      pango_layout_get_pixel_size (line, NULL, &line_height);
      text_height = line_height * gtk_text_buffer_get_line_count (gtk_text_view_get_buffer (view));
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
  g_clear_pointer (&self->widths, g_hash_table_unref);
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
  self->widths = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_hash_table_unref);
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
  gtk_text_view_set_wrap_mode (view, GTK_WRAP_CHAR);
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
