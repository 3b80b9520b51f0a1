/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "assay-cell-output.h"
#include "assay-dataframe-view.h"
#include "assay-markdown-view.h"
#include "assay-output-view.h"
#include "assay-step-card.h"
#include "assay-table-scroller.h"

/* Output longer than this starts collapsed. */
#define LONG_OUTPUT_LINES 15
#define LONG_OUTPUT_CHARS 2000
/* What a card keeps of one cell's text output; the session record has all of it. */
#define MAX_OUTPUT_CHARS (256 * 1024)

typedef struct
{
  char      *id;
  AssayCellStatus status;
  GtkWidget *box;
  GtkWidget *status_icon;
  GtkWidget *status_label;
  GtkWidget *header;
  GtkWidget *edited_label;   /* "Edited by you", made when the analyst edited the code */
  GtkWidget *description_label;
  GtkWidget *checks_label;   /* what the kernel saw the cell do to its data */
  GtkWidget *query_view;     /* run_sql: the SQL, highlighted */
  GtkWidget *query_label;    /* where it ran, and what it returned */
  GtkWidget *expander;
  GtkWidget *earlier_label;  /* "… N earlier lines" while a long output runs */
  GtkWidget *output_view;
  GtkWidget *figures;
  GString   *output;
  guint      n_newlines;     /* in output */
  gsize      shown;          /* bytes of output in the view's buffer */
  guint      dropped;        /* lines at the start of output not in the buffer */
  gint64     started_us;
  guint      tick_source;
  guint      output_source;  /* a pending redraw of the output */
  gboolean   running;
} CellRow;

struct _AssayStepCard
{
  GtkWidget          parent_instance;

  GtkWidget         *box;
  GtkLabel          *title_label;
  GtkSpinner        *spinner;
  GtkWidget         *requests_button;  /* "Sent to the Model": the step's request */
  AssayMarkdownView *text_view;
  GtkBox            *cells_box;
  GtkLabel          *usage_label;      /* the step's tokens and cost */

  guint              step;
  guint              session_step;
  guint              max_steps;
  GString           *text;
  guint              render_source;
  GPtrArray         *cells;  /* CellRow* */
  GCancellable      *cancellable;  /* figures being read, made on the first one */
};

G_DEFINE_FINAL_TYPE (AssayStepCard, assay_step_card, GTK_TYPE_WIDGET)

enum
{
  NUMBER_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
assay_step_card_cell_row_free (CellRow *row)
{
  g_clear_handle_id (&row->tick_source, g_source_remove);
  g_clear_handle_id (&row->output_source, g_source_remove);
  g_free (row->id);
  g_string_free (row->output, TRUE);
  g_free (row);
}

static CellRow *
assay_step_card_find_cell (AssayStepCard *self,
                           const char    *cell_id)
{
  for (guint i = 0; i < self->cells->len; i++)
    {
      CellRow *row = g_ptr_array_index (self->cells, i);

      if (g_strcmp0 (row->id, cell_id) == 0)
        return row;
    }
  return NULL;
}

static void
assay_step_card_set_status (CellRow         *row,
                            AssayCellStatus  status,
                            const char      *icon,
                            const char      *text,
                            const char      *css_class)
{
  static const char *classes[] = { "success", "error", "warning", "dim-label", "accent" };

  row->status = status;
  gtk_image_set_from_icon_name (GTK_IMAGE (row->status_icon), icon);
  gtk_label_set_text (GTK_LABEL (row->status_label), text);
  /* The icon in the text's colour: a symbolic icon takes its widget's. */
  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      gtk_widget_remove_css_class (row->status_label, classes[i]);
      gtk_widget_remove_css_class (row->status_icon, classes[i]);
    }
  if (css_class != NULL)
    {
      gtk_widget_add_css_class (row->status_label, css_class);
      gtk_widget_add_css_class (row->status_icon, css_class);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (row->status_icon),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

static void
assay_step_card_update_title (AssayStepCard *self)
{
  g_autofree char *title = NULL;

  if (self->max_steps == 0)
    title = g_strdup (_("Answer"));
  else if (self->step >= self->max_steps)
    /* Translators: the last step the setting "max-steps" allows; why a question stopped
     * there is said below the card. */
    title = g_strdup_printf (_("Step %u, the last allowed"), self->step);
  else
    /* Not "of N": the limit is a ceiling, not a plan. */
    title = g_strdup_printf (_("Step %u"), self->step);
  gtk_label_set_text (self->title_label, title);
}

static gboolean
assay_step_card_render_cb (gpointer user_data)
{
  AssayStepCard *self = user_data;

  self->render_source = 0;
  assay_markdown_view_set_markdown_streaming (self->text_view, self->text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->text_view), self->text->len > 0);
  return G_SOURCE_REMOVE;
}

/* The text is complete: its exact rendering, keeping the blocks already shown (rebuilding
 * a long answer's hundreds of labels would stall the window as the answer ends). */
static void
assay_step_card_render_final (AssayStepCard *self)
{
  g_clear_handle_id (&self->render_source, g_source_remove);
  assay_markdown_view_finish_streaming (self->text_view, self->text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->text_view), self->text->len > 0);
}

/* Text streams in small pieces: parse at most every 60 ms. */
static void
assay_step_card_queue_render (AssayStepCard *self)
{
  if (self->render_source == 0)
    self->render_source = g_timeout_add (60, assay_step_card_render_cb, self);
}

guint
assay_step_card_get_step (AssayStepCard *self)
{
  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), 0);
  return self->step;
}

void
assay_step_card_set_session_step (AssayStepCard *self,
                                  guint          session_step)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  self->session_step = session_step;
  /* The target first: the action takes the step's number. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->requests_button), "u", session_step);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->requests_button), "win.show-step-requests");
  gtk_widget_set_visible (self->requests_button, session_step > 0);
}

guint
assay_step_card_get_session_step (AssayStepCard *self)
{
  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), 0);
  return self->session_step;
}

void
assay_step_card_set_usage (AssayStepCard *self,
                           const char    *text)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if (g_strcmp0 (gtk_label_get_text (self->usage_label), text != NULL ? text : "") != 0)
    gtk_label_set_text (self->usage_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->usage_label), text != NULL);
}

const char *
assay_step_card_get_usage (AssayStepCard *self)
{
  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->usage_label)) ? gtk_label_get_text (self->usage_label) : NULL;
}

void
assay_step_card_append_text (AssayStepCard *self,
                             const char    *text)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  g_string_append (self->text, text);
  assay_step_card_queue_render (self);
}

void
assay_step_card_set_text (AssayStepCard *self,
                          const char    *text)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  g_string_assign (self->text, text ? text : "");
  assay_step_card_render_final (self);
}

const char *
assay_step_card_get_text (AssayStepCard *self)
{
  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), NULL);
  return self->text->str;
}

void
assay_step_card_set_answer (AssayStepCard *self)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  self->max_steps = 0;
  assay_step_card_update_title (self);
  gtk_widget_add_css_class (self->box, "answer-card");
  g_clear_handle_id (&self->render_source, g_source_remove);
  assay_step_card_render_cb (self);
}

void
assay_step_card_set_working (AssayStepCard *self,
                             gboolean       working)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  gtk_spinner_set_spinning (self->spinner, working);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), working);
  if (!working)
    assay_step_card_render_final (self);
}

void
assay_step_card_clear (AssayStepCard *self)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  g_string_truncate (self->text, 0);
  g_clear_handle_id (&self->render_source, g_source_remove);
  assay_step_card_render_cb (self);
  for (guint i = 0; i < self->cells->len; i++)
    gtk_box_remove (self->cells_box, ((CellRow *) g_ptr_array_index (self->cells, i))->box);
  g_ptr_array_set_size (self->cells, 0);
}

guint
assay_step_card_get_n_cells (AssayStepCard *self)
{
  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), 0);
  return self->cells->len;
}

gboolean
assay_step_card_has_cell (AssayStepCard *self,
                          const char    *cell_id)
{
  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), FALSE);
  return assay_step_card_find_cell (self, cell_id) != NULL;
}

void
assay_step_card_add_cell (AssayStepCard *self,
                          const char    *cell_id,
                          const char    *description)
{
  CellRow *row;
  GtkWidget *header;
  GtkWidget *output_box;
  GtkWidget *output_view;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if (assay_step_card_find_cell (self, cell_id) != NULL)
    return;

  row = g_new0 (CellRow, 1);
  row->id = g_strdup (cell_id);
  row->output = g_string_new (NULL);
  row->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_add_css_class (row->box, "cell-row");

  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  row->status_icon = gtk_image_new ();
  row->status_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (row->status_label), 0.0);
  gtk_label_set_wrap (GTK_LABEL (row->status_label), TRUE);
  gtk_widget_set_hexpand (row->status_label, TRUE);
  gtk_box_append (GTK_BOX (header), row->status_icon);
  gtk_box_append (GTK_BOX (header), row->status_label);
  gtk_box_append (GTK_BOX (row->box), header);
  row->header = header;

  row->description_label = gtk_label_new (description);
  gtk_label_set_xalign (GTK_LABEL (row->description_label), 0.0);
  gtk_label_set_wrap (GTK_LABEL (row->description_label), TRUE);
  gtk_widget_add_css_class (row->description_label, "dim-label");
  gtk_widget_set_visible (row->description_label, description != NULL && *description != '\0');
  gtk_box_append (GTK_BOX (row->box), row->description_label);

  row->checks_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (row->checks_label), 0.0);
  gtk_label_set_wrap (GTK_LABEL (row->checks_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (row->checks_label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (row->checks_label), TRUE);
  gtk_widget_add_css_class (row->checks_label, "caption");
  gtk_widget_add_css_class (row->checks_label, "cell-checks");
  gtk_widget_set_visible (row->checks_label, FALSE);
  gtk_box_append (GTK_BOX (row->box), row->checks_label);

  /* A text view, not a label: output grows by appending, and a text view lays out only the
   * lines that changed, where a label lays out all of its text again, several times, on
   * every change. Inside an AssayOutputView, which makes it as tall as its text. */
  output_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  row->earlier_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (row->earlier_label), 0.0);
  gtk_widget_add_css_class (row->earlier_label, "dim-label");
  gtk_widget_add_css_class (row->earlier_label, "caption");
  gtk_widget_set_visible (row->earlier_label, FALSE);
  gtk_box_append (GTK_BOX (output_box), row->earlier_label);
  output_view = assay_output_view_new ();
  row->output_view = GTK_WIDGET (assay_output_view_get_text_view (ASSAY_OUTPUT_VIEW (output_view)));
  gtk_widget_add_css_class (row->output_view, "cell-output");
  gtk_accessible_update_property (GTK_ACCESSIBLE (row->output_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Cell output"), -1);
  /* Never wrapped: a line wider than the card scrolls sideways (Shift with the wheel, a
   * touchpad's swipe, the scrollbar); the wheel alone scrolls the conversation. */
  {
    GtkWidget *sideways = assay_table_scroller_new ();

    assay_table_scroller_set_child (ASSAY_TABLE_SCROLLER (sideways), output_view);
    gtk_box_append (GTK_BOX (output_box), sideways);
  }
  row->expander = gtk_expander_new (_("Output"));
  gtk_expander_set_expanded (GTK_EXPANDER (row->expander), TRUE);
  gtk_expander_set_child (GTK_EXPANDER (row->expander), output_box);
  gtk_widget_set_visible (row->expander, FALSE);
  gtk_box_append (GTK_BOX (row->box), row->expander);

  /* Charts one under the other, each as wide as the card (never wider than it was drawn):
   * an analyst reads their labels here, not in 200-pixel thumbnails. */
  row->figures = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_visible (row->figures, FALSE);
  gtk_box_append (GTK_BOX (row->box), row->figures);

  assay_step_card_set_status (row,
                              ASSAY_CELL_PROPOSED,
                              "assay-waiting-symbolic",
                              _("Waiting for your approval"),
                              "accent");
  gtk_box_append (self->cells_box, row->box);
  g_ptr_array_add (self->cells, row);
}

static gboolean
assay_step_card_tick_cb (gpointer user_data)
{
  CellRow *row = user_data;
  g_autofree char *text = NULL;
  gint64 seconds = (g_get_monotonic_time () - row->started_us) / G_USEC_PER_SEC;

  text = g_strdup_printf (_("Running… %lld s"), (long long) seconds);
  gtk_label_set_text (GTK_LABEL (row->status_label), text);
  return G_SOURCE_CONTINUE;
}

void
assay_step_card_cell_started (AssayStepCard *self,
                              const char    *cell_id)
{
  CellRow *row;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL)
    {
      assay_step_card_add_cell (self, cell_id, NULL);
      row = assay_step_card_find_cell (self, cell_id);
    }
  assay_step_card_set_status (row,
                              ASSAY_CELL_RUNNING,
                              "media-playback-start-symbolic",
                              _("Running… 0 s"),
                              NULL);
  row->running = TRUE;
  row->started_us = g_get_monotonic_time ();
  g_clear_handle_id (&row->tick_source, g_source_remove);
  row->tick_source = g_timeout_add_seconds (1, assay_step_card_tick_cb, row);
}

/* Lines of text, a final newline ending the last one rather than starting another. */
static guint
assay_step_card_count_lines (CellRow *row)
{
  return row->n_newlines + (row->output->len > 0 && row->output->str[row->output->len - 1] != '\n');
}

/* While a cell runs, only its last lines are shown: a cell printing thousands of lines must
 * not keep thousands of lines laid out. */
#define RUNNING_TAIL_LINES 60

static void
assay_step_card_update_output (CellRow *row)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (row->output_view));
  guint lines = assay_step_card_count_lines (row);
  g_autofree char *title = NULL;

  g_clear_handle_id (&row->output_source, g_source_remove);
  if (!row->running && row->dropped > 0)
    {
      /* All of it now, once. */
      gtk_text_buffer_set_text (buffer, row->output->str, row->output->len);
      row->shown = row->output->len;
      row->dropped = 0;
    }
  else if (row->shown < row->output->len)
    {
      GtkTextIter end;

      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert (buffer, &end, row->output->str + row->shown, row->output->len - row->shown);
      row->shown = row->output->len;
    }
  if (row->running)
    {
      int in_buffer = gtk_text_buffer_get_line_count (buffer);
      GtkTextIter start, cut;

      /* A final newline leaves an empty last line in the buffer. */
      if (row->output->len > 0 && row->output->str[row->output->len - 1] == '\n')
        in_buffer--;
      if (in_buffer > RUNNING_TAIL_LINES)
        {
          gtk_text_buffer_get_start_iter (buffer, &start);
          gtk_text_buffer_get_iter_at_line (buffer, &cut, in_buffer - RUNNING_TAIL_LINES);
          gtk_text_buffer_delete (buffer, &start, &cut);
          row->dropped += in_buffer - RUNNING_TAIL_LINES;
        }
    }
  if (row->dropped > 0)
    {
      g_autofree char *earlier = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… %u earlier line", "… %u earlier lines",
                                                               row->dropped), row->dropped);

      gtk_label_set_text (GTK_LABEL (row->earlier_label), earlier);
    }
  gtk_widget_set_visible (row->earlier_label, row->dropped > 0);
  gtk_widget_set_visible (row->expander, row->output->len > 0);
  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Output (%u line)", "Output (%u lines)", lines),
                           lines);
  gtk_expander_set_label (GTK_EXPANDER (row->expander), title);
}

static gboolean
assay_step_card_output_redraw_cb (gpointer data)
{
  CellRow *row = data;

  row->output_source = 0;
  assay_step_card_update_output (row);
  return G_SOURCE_REMOVE;
}

/* Outputs arrive in many small pieces: redraw at most ten times a second. */
static void
assay_step_card_queue_output_update (CellRow *row)
{
  if (row->output_source == 0)
    row->output_source = g_timeout_add (100, assay_step_card_output_redraw_cb, row);
}

static void
assay_step_card_append_output (CellRow    *row,
                               const char *text)
{
  gsize from = row->output->len;

  if (text == NULL || row->output->len >= MAX_OUTPUT_CHARS)
    return;
  g_string_append (row->output, text);
  if (row->output->len >= MAX_OUTPUT_CHARS)
    {
      g_string_truncate (row->output, MAX_OUTPUT_CHARS);
      /* Cut at a character boundary. */
      while (row->output->len > from && !g_utf8_validate (row->output->str + from, row->output->len - from, NULL))
        g_string_truncate (row->output, row->output->len - 1);
      g_string_append (row->output, _("\n… (the rest is in the session record)"));
    }
  for (const char *p = row->output->str + from; *p; p++)
    row->n_newlines += *p == '\n';
}

/* A chart as wide as the card, its height keeping the chart's shape, never wider than it
 * was drawn (a small chart is not blown up): the picture fills a clamp as wide as the chart.
 * On a HiDPI screen the card's width in device pixels is still about the PNG's (matplotlib
 * draws 640 to 1,200 pixels wide). The chart's width is known once it is read. */
static void
assay_step_card_figure_fit (GtkWidget    *picture,
                            GdkPaintable *paintable)
{
  GtkWidget *clamp = gtk_widget_get_ancestor (picture, ADW_TYPE_CLAMP);
  int width = paintable != NULL ? gdk_paintable_get_intrinsic_width (paintable) : 0;

  if (clamp != NULL && width > 0)
    {
      adw_clamp_set_maximum_size (ADW_CLAMP (clamp), width);
      adw_clamp_set_tightening_threshold (ADW_CLAMP (clamp), width);
    }
}

/* A chart's picture, shrinking to the width it is given, its shape kept. */
static GtkWidget *
assay_step_card_figure_picture (GdkPaintable *paintable,
                                const char   *text)
{
  GtkWidget *picture = gtk_picture_new_for_paintable (paintable);

  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
  gtk_widget_add_css_class (picture, "figure");
  gtk_picture_set_alternative_text (GTK_PICTURE (picture), text);
  return picture;
}

/* CHILD (the picture itself, or a button around it) in a clamp, under the cell's figures. */
static void
assay_step_card_add_figure (CellRow   *row,
                            GtkWidget *child,
                            GtkWidget *picture)
{
  GtkWidget *clamp = adw_clamp_new ();

  adw_clamp_set_child (ADW_CLAMP (clamp), child);
  gtk_box_append (GTK_BOX (row->figures), clamp);
  assay_step_card_figure_fit (picture, gtk_picture_get_paintable (GTK_PICTURE (picture)));
  gtk_widget_set_visible (row->figures, TRUE);
}

/* Inline figures are decoded here, on the main thread: cap what a cell can make it do. */
#define MAX_INLINE_FIGURE_BYTES (8 * 1024 * 1024)

static void
assay_step_card_add_inline_figure (CellRow    *row,
                                   const char *base64)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *picture;
  guchar *png;
  gsize length;

  if (strlen (base64) > MAX_INLINE_FIGURE_BYTES / 3 * 4 + 4)
    return;
  png = g_base64_decode (base64, &length);
  if (length < 8 || memcmp (png, "\x89PNG\r\n\x1a\n", 8) != 0)
    {
      g_free (png);
      return;
    }
  bytes = g_bytes_new_take (png, length);
  texture = gdk_texture_new_from_bytes (bytes, &error);
  if (texture == NULL)
    return;

  picture = assay_step_card_figure_picture (GDK_PAINTABLE (texture), _("Figure"));
  assay_step_card_add_figure (row, picture, picture);
}

void
assay_step_card_cell_output (AssayStepCard *self,
                             const char    *cell_id,
                             JsonObject    *object)
{
  g_autoptr(AssayCellOutput) output = NULL;
  g_autoptr(AssayTable) table = NULL;
  g_autofree char *text = NULL;
  CellRow *row;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL || object == NULL)
    return;

  output = assay_cell_output_read_object (object);
  switch (output->kind)
    {
    case ASSAY_CELL_OUTPUT_STREAM:
      assay_step_card_append_output (row, output->text);
      break;
    case ASSAY_CELL_OUTPUT_ERROR:
      text = assay_cell_output_dup_text (output);
      assay_step_card_append_output (row, text);
      break;
    case ASSAY_CELL_OUTPUT_RESULT:
    case ASSAY_CELL_OUTPUT_DISPLAY:
      /* A figure the kernel captured (plt.show(), an open figure): a thumbnail like a saved
       * one; the text form stands for anything else. */
      if (output->png_base64 != NULL)
        assay_step_card_add_inline_figure (row, output->png_base64);
      else if (output->html != NULL &&
               (table = assay_html_table_extract (output->html, strlen (output->html))) != NULL)
        /* A DataFrame: a table, not its text form cut to fit ("[3 rows x 5 columns]"). */
        gtk_widget_insert_before (assay_dataframe_view_new (table, output->plain), row->box, row->figures);
      else if (output->plain != NULL)
        {
          assay_step_card_append_output (row, output->plain);
          assay_step_card_append_output (row, "\n");
        }
      break;
    case ASSAY_CELL_OUTPUT_OTHER:
    default:
      break;
    }
  if (row->running)
    assay_step_card_queue_output_update (row);
  else
    assay_step_card_update_output (row);
}

static gboolean
assay_step_card_is_figure (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return g_str_has_suffix (lower, ".png") || g_str_has_suffix (lower, ".jpg") ||
         g_str_has_suffix (lower, ".jpeg") || g_str_has_suffix (lower, ".svg");
}

/* A figure file is read and decoded in a worker: a session with many of them opens without
 * reading them on the main thread. The picture may be gone by then (the card cleared). */
typedef struct
{
  GWeakRef  picture;
  char     *path;
} FigureLoad;

static void
assay_step_card_figure_load_free (FigureLoad *load)
{
  g_weak_ref_clear (&load->picture);
  g_free (load->path);
  g_free (load);
}

static void
assay_step_card_figure_worker (GTask        *task,
                               gpointer      source_object,
                               gpointer      task_data,
                               GCancellable *cancellable)
{
  FigureLoad *load = task_data;
  g_autoptr(GFile) file = g_file_new_for_path (load->path);
  g_autoptr(GBytes) bytes = NULL;
  GdkTexture *texture = NULL;
  GError *error = NULL;

  bytes = g_file_load_bytes (file, cancellable, NULL, &error);
  if (bytes != NULL)
    texture = gdk_texture_new_from_bytes (bytes, &error);
  if (texture == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, texture, g_object_unref);
}

static void
assay_step_card_figure_loaded_cb (GObject      *source,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  FigureLoad *load = g_task_get_task_data (G_TASK (result));
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GtkPicture) picture = NULL;
  g_autoptr(GError) error = NULL;

  texture = g_task_propagate_pointer (G_TASK (result), &error);
  if (texture == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("No thumbnail for %s: %s", load->path, error->message);
      return;
    }
  if ((picture = g_weak_ref_get (&load->picture)) != NULL)
    {
      gtk_picture_set_paintable (picture, GDK_PAINTABLE (texture));
      assay_step_card_figure_fit (GTK_WIDGET (picture), GDK_PAINTABLE (texture));
    }
}

static void
assay_step_card_load_figure (AssayStepCard *self,
                             GtkWidget     *picture,
                             const char    *path)
{
  g_autoptr(GTask) task = NULL;
  FigureLoad *load = g_new0 (FigureLoad, 1);

  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();
  g_weak_ref_init (&load->picture, picture);
  load->path = g_strdup (path);
  task = g_task_new (NULL, self->cancellable, assay_step_card_figure_loaded_cb, NULL);
  g_task_set_source_tag (task, assay_step_card_load_figure);
  g_task_set_task_data (task, load, (GDestroyNotify) assay_step_card_figure_load_free);
  g_task_run_in_thread (task, assay_step_card_figure_worker);
}

void
assay_step_card_cell_artifact (AssayStepCard *self,
                               const char    *cell_id,
                               const char    *name,
                               const char    *path)
{
  CellRow *row;
  GtkWidget *picture;
  GtkWidget *button;
  g_autofree char *tooltip = NULL;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL || name == NULL || path == NULL || !assay_step_card_is_figure (name))
    return;

  picture = assay_step_card_figure_picture (NULL, name);
  assay_step_card_load_figure (self, picture, path);
  /* A click (or Enter) opens it in the window's artifact viewer, zoomable; outside a window
   * that has win.show-artifact the button does nothing. */
  button = gtk_button_new ();
  gtk_button_set_child (GTK_BUTTON (button), picture);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "figure-button");
  tooltip = g_strdup_printf (_("Figure %s"), name);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.show-artifact");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", path);
  assay_step_card_add_figure (row, button, picture);
}

void
assay_step_card_cell_finished (AssayStepCard   *self,
                               const char      *cell_id,
                               AssayCellStatus  status,
                               const char      *reason,
                               gint64           elapsed_ms)
{
  CellRow *row;
  g_autofree char *text = NULL;
  const char *icon = "dialog-error-symbolic";
  const char *css = "error";
  guint lines;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL)
    return;
  g_clear_handle_id (&row->tick_source, g_source_remove);
  /* All of the output now, once. */
  row->running = FALSE;
  assay_step_card_update_output (row);

  switch (status)
    {
    case ASSAY_CELL_OK:
      text = g_strdup_printf (_("Ran in %.1f s"), elapsed_ms / 1000.0);
      icon = "object-select-symbolic";
      css = "success";
      break;
    case ASSAY_CELL_ERROR:
      text = g_strdup_printf (_("Failed with an error after %.1f s"), elapsed_ms / 1000.0);
      break;
    case ASSAY_CELL_TIMEOUT:
      text = g_strdup_printf (_("Timed out after %.0f s"), elapsed_ms / 1000.0);
      break;
    case ASSAY_CELL_OOM:
      text = g_strdup (_("Ran out of memory"));
      break;
    case ASSAY_CELL_CANCELLED:
      text = g_strdup (_("Stopped"));
      css = "warning";
      break;
    case ASSAY_CELL_INTERRUPTED:
      text = g_strdup (_("Interrupted (Assay was closed)"));
      css = "warning";
      break;
    case ASSAY_CELL_LIMIT:
    case ASSAY_CELL_CRASHED:
    case ASSAY_CELL_SANDBOX_ERROR:
    case ASSAY_CELL_PROPOSED:
    case ASSAY_CELL_RUNNING:
    case ASSAY_CELL_REJECTED:
    default:
      text = g_strdup_printf (_("Did not finish (%s)"), assay_cell_status_to_string (status));
      break;
    }

  if (reason != NULL && *reason != '\0' && status != ASSAY_CELL_OK)
    {
      char *with_reason = g_strdup_printf ("%s: %s", text, reason);

      g_free (text);
      text = with_reason;
    }
  assay_step_card_set_status (row, status, icon, text, css);

  lines = assay_step_card_count_lines (row);
  if (lines > LONG_OUTPUT_LINES || row->output->len > LONG_OUTPUT_CHARS)
    gtk_expander_set_expanded (GTK_EXPANDER (row->expander), FALSE);
}

void
assay_step_card_cell_rejected (AssayStepCard *self,
                               const char    *cell_id,
                               const char    *reason)
{
  CellRow *row;
  g_autofree char *text = NULL;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL)
    {
      assay_step_card_add_cell (self, cell_id, NULL);
      row = assay_step_card_find_cell (self, cell_id);
    }
  if (reason != NULL && *reason != '\0')
    text = g_strdup_printf (_("Rejected: %s"), reason);
  else
    text = g_strdup (_("Rejected"));
  assay_step_card_set_status (row, ASSAY_CELL_REJECTED, "action-unavailable-symbolic", text, "dim-label");
}

void
assay_step_card_cell_edited (AssayStepCard *self,
                             const char    *cell_id)
{
  CellRow *row;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL || row->edited_label != NULL)
    return;
  /* What ran is not what the model proposed: the analyst reading the card should see it. */
  row->edited_label = gtk_label_new (_("Edited by you"));
  gtk_widget_set_valign (row->edited_label, GTK_ALIGN_BASELINE);
  gtk_widget_add_css_class (row->edited_label, "caption");
  gtk_widget_add_css_class (row->edited_label, "dim-label");
  gtk_widget_set_tooltip_text (row->edited_label, _("You changed the code before it ran"));
  gtk_box_append (GTK_BOX (row->header), row->edited_label);
}

/* ---- run_sql ------------------------------------------------------------------------------ */

/* What a card shows of a result's column names, which come from the server. */
#define MAX_QUERY_COLUMNS_SHOWN 24
#define MAX_COLUMN_NAME_CHARS   64

static void
assay_step_card_update_query_style (GtkSourceBuffer *buffer)
{
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  const char *id = adw_style_manager_get_dark (adw_style_manager_get_default ()) ? "Adwaita-dark" : "Adwaita";

  gtk_source_buffer_set_style_scheme (buffer, gtk_source_style_scheme_manager_get_scheme (schemes, id));
}

void
assay_step_card_cell_query (AssayStepCard *self,
                            const char    *cell_id,
                            const char    *sql,
                            const char    *database,
                            const char    *frame)
{
  g_autofree char *where = NULL;
  CellRow *row;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL)
    {
      assay_step_card_add_cell (self, cell_id, NULL);
      row = assay_step_card_find_cell (self, cell_id);
    }
  if (row->query_view == NULL)
    {
      GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
      g_autoptr(GtkSourceBuffer) buffer = NULL;
      GtkWidget *wrapper;

      gtk_source_init ();
      buffer = gtk_source_buffer_new_with_language (gtk_source_language_manager_get_language (languages, "sql"));
      gtk_source_buffer_set_highlight_matching_brackets (buffer, FALSE);
      assay_step_card_update_query_style (buffer);
      g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                               G_CALLBACK (assay_step_card_update_query_style), buffer, G_CONNECT_SWAPPED);
      row->query_view = gtk_source_view_new_with_buffer (buffer);
      gtk_widget_add_css_class (row->query_view, "cell-output");
      gtk_widget_add_css_class (row->query_view, "cell-query");
      gtk_accessible_update_property (GTK_ACCESSIBLE (row->query_view),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("The query"), -1);
      /* As tall as all of its lines, like an output. */
      wrapper = assay_table_scroller_new ();
      assay_table_scroller_set_child (ASSAY_TABLE_SCROLLER (wrapper),
                                      assay_output_view_new_with_view (GTK_TEXT_VIEW (row->query_view)));
      gtk_box_insert_child_after (GTK_BOX (row->box), wrapper, row->checks_label);

      row->query_label = gtk_label_new (NULL);
      gtk_label_set_xalign (GTK_LABEL (row->query_label), 0.0);
      gtk_label_set_wrap (GTK_LABEL (row->query_label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (row->query_label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_selectable (GTK_LABEL (row->query_label), TRUE);
      gtk_widget_add_css_class (row->query_label, "caption");
      gtk_widget_add_css_class (row->query_label, "cell-checks");
      gtk_box_insert_child_after (GTK_BOX (row->box), row->query_label, wrapper);
    }
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (row->query_view)), sql != NULL ? sql : "", -1);
  /* Translators: under a query: the database it runs on, the DataFrame its result becomes. */
  where = g_strdup_printf (_("Read-only on %s, into the DataFrame %s"), database != NULL ? database : "?",
                           frame != NULL ? frame : "?");
  gtk_label_set_text (GTK_LABEL (row->query_label), where);
}

static char *
assay_step_card_format_ms (gint64 ms)
{
  if (ms < 1000)
    return g_strdup_printf (_("%lld ms"), (long long) ms);
  return g_strdup_printf (_("%.1f s"), ms / 1000.0);
}

void
assay_step_card_cell_query_result (AssayStepCard           *self,
                                   const char              *cell_id,
                                   const AssaySessionQuery *query,
                                   const char              *note)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *count = NULL;
  g_autofree char *rows = NULL;
  g_autofree char *columns = NULL;
  g_autofree char *time = NULL;
  guint n_columns;
  CellRow *row;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  g_return_if_fail (query != NULL);
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL || row->query_label == NULL)
    return;
  /* No result (refused, failed, stopped): where it was to run stays said. */
  if (query->rows < 0)
    return;
  n_columns = json_array_get_length (query->columns);
  count = g_strdup_printf ("%'" G_GINT64_FORMAT, query->rows);
  rows = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s row", "%s rows", (gulong) query->rows), count);
  columns = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u column", "%u columns", n_columns), n_columns);
  time = assay_step_card_format_ms (query->query_ms);
  /* Translators: under a query that ran: "2,000 rows × 3 columns in 12 ms on shop, now the
   * DataFrame revenue". */
  g_string_printf (text, _("%s × %s in %s on %s, now the DataFrame %s"), rows, columns, time,
                   query->database != NULL ? query->database : "?", query->frame != NULL ? query->frame : "?");
  for (guint i = 0; i < n_columns && i < MAX_QUERY_COLUMNS_SHOWN; i++)
    {
      JsonNode *node = json_array_get_element (query->columns, i);
      JsonObject *column = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *name = column != NULL && json_object_has_member (column, "name") &&
                         JSON_NODE_HOLDS_VALUE (json_object_get_member (column, "name")) &&
                         json_node_get_value_type (json_object_get_member (column, "name")) == G_TYPE_STRING
                         ? json_object_get_string_member (column, "name") : "?";
      const char *type = column != NULL && json_object_has_member (column, "type") &&
                         JSON_NODE_HOLDS_VALUE (json_object_get_member (column, "type")) &&
                         json_node_get_value_type (json_object_get_member (column, "type")) == G_TYPE_STRING
                         ? json_object_get_string_member (column, "type") : NULL;
      g_autofree char *shown = g_utf8_substring (name, 0, MIN (g_utf8_strlen (name, -1), MAX_COLUMN_NAME_CHARS));

      g_string_append (text, i == 0 ? "\n" : " · ");
      g_string_append (text, shown);
      if (type != NULL)
        g_string_append_printf (text, " (%s)", type);
    }
  if (n_columns > MAX_QUERY_COLUMNS_SHOWN)
    g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, " · and %u more", " · and %u more",
                                               n_columns - MAX_QUERY_COLUMNS_SHOWN),
                            n_columns - MAX_QUERY_COLUMNS_SHOWN);
  if (note != NULL)
    g_string_append_printf (text, "\n%s", note);
  gtk_label_set_text (GTK_LABEL (row->query_label), text->str);
  gtk_widget_set_visible (row->query_label, TRUE);
}

const char *
assay_step_card_get_query_text (AssayStepCard *self,
                                const char    *cell_id)
{
  CellRow *row;

  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), NULL);
  row = assay_step_card_find_cell (self, cell_id);
  return row != NULL && row->query_label != NULL ? gtk_label_get_text (GTK_LABEL (row->query_label)) : NULL;
}

GtkTextView *
assay_step_card_get_query_view (AssayStepCard *self,
                                const char    *cell_id)
{
  CellRow *row;

  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), NULL);
  row = assay_step_card_find_cell (self, cell_id);
  return row != NULL && row->query_view != NULL ? GTK_TEXT_VIEW (row->query_view) : NULL;
}

const char *
assay_step_card_get_cell_status (AssayStepCard *self,
                                 const char    *cell_id)
{
  CellRow *row;

  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), NULL);
  row = assay_step_card_find_cell (self, cell_id);
  return row ? assay_cell_status_to_string (row->status) : NULL;
}

void
assay_step_card_cell_checks (AssayStepCard         *self,
                             const char            *cell_id,
                             const AssayCellChecks *checks)
{
  g_autofree char *described = NULL;
  g_autofree char *text = NULL;
  CellRow *row;

  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL)
    return;
  described = assay_cell_checks_describe (checks, FALSE);
  gtk_widget_set_visible (row->checks_label, described != NULL);
  if (described == NULL)
    return;
  /* Translators: a line under a cell, what the kernel saw it do to its data. */
  text = g_strdup_printf (_("Checks: %s"), described);
  gtk_label_set_text (GTK_LABEL (row->checks_label), text);
}

static void
assay_step_card_dispose (GObject *object)
{
  AssayStepCard *self = ASSAY_STEP_CARD (object);
  GtkWidget *child;

  g_clear_handle_id (&self->render_source, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_STEP_CARD);
  /* The template's root box is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_step_card_parent_class)->dispose (object);
}

static void
assay_step_card_finalize (GObject *object)
{
  AssayStepCard *self = ASSAY_STEP_CARD (object);

  g_string_free (self->text, TRUE);
  g_ptr_array_unref (self->cells);
  G_OBJECT_CLASS (assay_step_card_parent_class)->finalize (object);
}

static void
assay_step_card_class_init (AssayStepCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_step_card_dispose;
  object_class->finalize = assay_step_card_finalize;

  assay_app_ensure_resources ();
  g_type_ensure (ASSAY_TYPE_MARKDOWN_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-step-card.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayStepCard, box);
  gtk_widget_class_bind_template_child (widget_class, AssayStepCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, AssayStepCard, spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayStepCard, requests_button);
  gtk_widget_class_bind_template_child (widget_class, AssayStepCard, text_view);
  gtk_widget_class_bind_template_child (widget_class, AssayStepCard, cells_box);
  gtk_widget_class_bind_template_child (widget_class, AssayStepCard, usage_label);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);

  /* ::number-activated (guint index): a number of the card's text (an answer) was clicked. */
  signals[NUMBER_ACTIVATED] = g_signal_new ("number-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                            0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
assay_step_card_number_activated_cb (AssayStepCard *self,
                                     guint          index)
{
  g_signal_emit (self, signals[NUMBER_ACTIVATED], 0, index);
}

static void
assay_step_card_init (AssayStepCard *self)
{
  self->text = g_string_new (NULL);
  self->cells = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_step_card_cell_row_free);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self->text_view), FALSE);
  g_signal_connect_object (self->text_view, "number-activated",
                           G_CALLBACK (assay_step_card_number_activated_cb), self, G_CONNECT_SWAPPED);
}

void
assay_step_card_set_provenance (AssayStepCard         *self,
                                const AssayProvenance *provenance)
{
  g_return_if_fail (ASSAY_IS_STEP_CARD (self));
  assay_markdown_view_set_provenance (self->text_view, provenance);
}

typedef struct
{
  guint frames;
  guint still;
} ScrollToSelection;

/* Each frame, until the selected line of OUTPUT_VIEW stands still a third of the way down
 * the conversation (an output just opened is laid out over the next frames; two seconds at
 * most): the conversation scrolled to it, and the sideways scroller to its start. */
static gboolean
assay_step_card_scroll_to_selection_cb (GtkWidget     *output_view,
                                        GdkFrameClock *clock,
                                        gpointer       data)
{
  ScrollToSelection *state = data;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (output_view));
  GtkWidget *scroller = gtk_widget_get_ancestor (output_view, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *sideways = gtk_widget_get_ancestor (output_view, ASSAY_TYPE_TABLE_SCROLLER);
  GtkAdjustment *vadjustment;
  GtkTextIter start, end;
  GdkRectangle line;
  graphene_point_t at;
  double value;
  int x, y;

  if (scroller == NULL || ++state->frames > 120 || !gtk_text_buffer_get_selection_bounds (buffer, &start, &end))
    return G_SOURCE_REMOVE;
  if (!gtk_widget_get_mapped (output_view))
    return G_SOURCE_CONTINUE;
  gtk_text_view_get_iter_location (GTK_TEXT_VIEW (output_view), &start, &line);
  gtk_text_view_buffer_to_window_coords (GTK_TEXT_VIEW (output_view), GTK_TEXT_WINDOW_WIDGET, line.x, line.y, &x, &y);
  if (!gtk_widget_compute_point (output_view, scroller, &GRAPHENE_POINT_INIT (x, y), &at))
    return G_SOURCE_CONTINUE;
  vadjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  value = gtk_adjustment_get_value (vadjustment);
  gtk_adjustment_set_value (vadjustment, value + at.y - gtk_widget_get_height (scroller) / 3.0);
  if (sideways != NULL)
    {
      GtkAdjustment *hadjustment = assay_table_scroller_get_hadjustment (ASSAY_TABLE_SCROLLER (sideways));
      double page = gtk_adjustment_get_page_size (hadjustment);

      gtk_adjustment_set_value (hadjustment, x + line.width < page ? 0 : x - 24);
    }
  /* Where it was a frame ago, and no layout is pending: done. */
  state->still = gtk_adjustment_get_value (vadjustment) == value ? state->still + 1 : 0;
  return state->still < 3 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

gboolean
assay_step_card_reveal_output_line (AssayStepCard *self,
                                    const char    *cell_id,
                                    const char    *line_text)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, match_start, match_end;
  CellRow *row;

  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), FALSE);
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL)
    return FALSE;
  gtk_expander_set_expanded (GTK_EXPANDER (row->expander), TRUE);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (row->output_view));
  gtk_text_buffer_get_start_iter (buffer, &start);
  if (line_text != NULL && *line_text != '\0' &&
      gtk_text_iter_forward_search (&start, line_text, GTK_TEXT_SEARCH_TEXT_ONLY, &match_start, &match_end, NULL))
    {
      gtk_text_buffer_select_range (buffer, &match_start, &match_end);
      gtk_widget_grab_focus (row->output_view);
      /* Not gtk_text_view_scroll_to_iter: the view is as tall as its lines and has nothing
       * to scroll (asked while the output was still folded, it moved its lines out of its
       * own box: a blank output); the conversation and the sideways scroller move. */
      gtk_widget_add_tick_callback (row->output_view, assay_step_card_scroll_to_selection_cb,
                                    g_new0 (ScrollToSelection, 1), g_free);
    }
  else
    gtk_widget_grab_focus (row->expander);
  return TRUE;
}

char *
assay_step_card_dup_selected_output (AssayStepCard *self,
                                     const char    *cell_id)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  CellRow *row;

  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), NULL);
  if ((row = assay_step_card_find_cell (self, cell_id)) == NULL)
    return NULL;
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (row->output_view));
  if (!gtk_text_buffer_get_selection_bounds (buffer, &start, &end))
    return NULL;
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

gboolean
assay_step_card_get_output_expanded (AssayStepCard *self,
                                     const char    *cell_id)
{
  CellRow *row;

  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), FALSE);
  row = assay_step_card_find_cell (self, cell_id);
  return row != NULL && gtk_expander_get_expanded (GTK_EXPANDER (row->expander));
}

AssayMarkdownView *
assay_step_card_get_text_view (AssayStepCard *self)
{
  g_return_val_if_fail (ASSAY_IS_STEP_CARD (self), NULL);
  return self->text_view;
}

GtkWidget *
assay_step_card_new (guint step,
                     guint max_steps)
{
  AssayStepCard *self = g_object_new (ASSAY_TYPE_STEP_CARD, NULL);

  self->step = step;
  self->max_steps = max_steps;
  assay_step_card_update_title (self);
  return GTK_WIDGET (self);
}
