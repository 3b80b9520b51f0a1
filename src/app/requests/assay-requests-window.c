/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Requests"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "assay-prices.h"
#include "assay-masker.h"
#include "assay-requests-window.h"

/* What one part, or the raw body, shows of its text: past it GTK lays out text slowly enough
 * to be felt, and a note says what was left out (Copy Raw Body copies all of it). */
#define MAX_SHOWN_CHARS 200000

struct _AssayRequestsWindow
{
  AdwWindow            parent_instance;

  AdwLeaflet          *leaflet;
  GtkWidget           *sidebar;
  GtkWidget           *separator;
  GtkWidget           *content;
  GtkStack            *list_stack;
  GtkListBox          *request_list;
  GtkLabel            *total_label;
  AdwWindowTitle      *content_title;
  GtkWidget           *copy_button;
  GtkToggleButton     *raw_toggle;
  GtkStack            *content_stack;
  AdwStatusPage       *none_page;
  GtkSpinner          *spinner;
  GtkLabel            *problem_meta_label;
  AdwStatusPage       *problem_page;
  GtkScrolledWindow   *parts_scroller;
  GtkLabel            *meta_label;
  GtkLabel            *summary_label;
  GtkBox              *parts_box;
  GtkLabel            *raw_note_label;
  GtkSourceView       *raw_view;

  AssaySession        *session;
  guint                n_listed;    /* of the session's requests, in the list */
  guint                shown;       /* the index of the request shown; G_MAXUINT: none */
  GBytes              *body;        /* its body as sent; NULL: not read */
  AssayRequestReading *reading;     /* its reading; NULL: not (yet) read */
  GCancellable        *cancellable; /* the reading in flight */
};

G_DEFINE_FINAL_TYPE (AssayRequestsWindow, assay_requests_window, ADW_TYPE_WINDOW)

enum
{
  PROP_0,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- text from the record ----------------------------------------------------------------- */

/* TEXT (LENGTH bytes; -1: to its NUL) as valid UTF-8 for a label or a buffer: a record from
 * someone else's machine may hold anything. With SINGLE_LINE, control characters and line
 * ends become spaces. */
static char *
assay_requests_window_clean (const char *text,
                             gssize      length,
                             gboolean    single_line)
{
  char *valid;

  if (text == NULL)
    return g_strdup ("");
  valid = g_utf8_make_valid (text, length);
  if (single_line)
    for (char *p = valid; *p != '\0'; p++)
      if ((guchar) *p < 0x20 || *p == 0x7f)
        *p = ' ';
  return valid;
}

/* TEXT cut after MAX_SHOWN_CHARS characters; *N_CHARS: how many it has. */
static char *
assay_requests_window_cap (const char *text,
                           glong      *n_chars)
{
  *n_chars = g_utf8_strlen (text, -1);
  if (*n_chars <= MAX_SHOWN_CHARS)
    return g_strdup (text);
  return g_strndup (text, g_utf8_offset_to_pointer (text, MAX_SHOWN_CHARS) - text);
}

static char *
assay_requests_window_cut_note (glong n_chars)
{
  /* Translators: a text shown in part; the raw body and Copy Raw Body have all of it. */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "Showing the first %'d of %'ld character. Copy Raw Body copies all of it.",
                                       "Showing the first %'d of %'ld characters. Copy Raw Body copies all of it.",
                                       (gulong) n_chars),
                          MAX_SHOWN_CHARS, n_chars);
}

static char *
assay_requests_window_format_time (gint64      sent_at,
                                   const char *format)
{
  g_autoptr(GDateTime) time = sent_at > 0 ? g_date_time_new_from_unix_local (sent_at / G_USEC_PER_SEC) : NULL;

  return time != NULL ? g_date_time_format (time, format) : g_strdup ("");
}

/* "1,234 in (1,000 cached) · 56 out (20 reasoning)"; what the server did not say is "?". */
static char *
assay_requests_window_tokens_text (const AssaySessionRequest *request,
                                   gboolean                   detailed)
{
  GString *text = g_string_new (NULL);

  if (request->input_tokens >= 0)
    /* Translators: input tokens of a request, "1,234 in". */
    g_string_append_printf (text, _("%'lld in"), (long long) request->input_tokens);
  else
    g_string_append (text, _("? in"));
  if (detailed && request->cached_input_tokens > 0 && request->cache_write_tokens > 0)
    g_string_append_printf (text, _(" (%'lld cached, %'lld written to the cache)"),
                            (long long) request->cached_input_tokens, (long long) request->cache_write_tokens);
  else if (detailed && request->cached_input_tokens > 0)
    g_string_append_printf (text, _(" (%'lld cached)"), (long long) request->cached_input_tokens);
  g_string_append (text, " · ");
  if (request->output_tokens >= 0)
    /* Translators: output tokens of a request, "56 out". */
    g_string_append_printf (text, _("%'lld out"), (long long) request->output_tokens);
  else
    g_string_append (text, _("? out"));
  if (detailed && request->reasoning_tokens > 0)
    g_string_append_printf (text, _(" (%'lld reasoning)"), (long long) request->reasoning_tokens);
  return g_string_free (text, FALSE);
}

static const char *
assay_requests_window_mode_label (const char *mode)
{
  AssayPrivacyMode privacy;

  if (!assay_privacy_mode_from_string (mode, &privacy))
    return _("Not recorded");
  return assay_privacy_mode_get_label (privacy);
}

/* Everything the session recorded of REQUEST but its body, in a few lines. */
static char *
assay_requests_window_meta_text (const AssaySessionRequest *request)
{
  g_autofree char *host = assay_requests_window_clean (request->host, -1, TRUE);
  g_autofree char *model = assay_requests_window_clean (request->model, -1, TRUE);
  g_autofree char *time = assay_requests_window_format_time (request->sent_at, "%Y-%m-%d %H:%M:%S");
  g_autofree char *sent = g_format_size (request->bytes_out);
  g_autofree char *received = request->bytes_in >= 0 ? g_format_size (request->bytes_in) : g_strdup ("?");
  g_autofree char *tokens = assay_requests_window_tokens_text (request, TRUE);
  g_autofree char *cost = assay_price_format_cost (request->cost);

  /* Translators: a request's figures: the server, the model, when, the bytes sent and
   * received; then the tokens, the cost and what the model was let see of the data. */
  return g_strdup_printf (_("%s · %s · %s · %s sent · %s received\nTokens: %s · Cost: %s · Data: %s"),
                          host, *model != '\0' ? model : _("unknown model"), time, sent, received,
                          tokens, cost, assay_requests_window_mode_label (request->mode));
}

/* ---- the list ----------------------------------------------------------------------------- */

static GtkWidget *
assay_requests_window_label_new (const char *text,
                                 const char *css_class,
                                 gboolean    ellipsize)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (ellipsize)
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

static GtkWidget *
assay_requests_window_row_new (const AssaySessionRequest *request)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  g_autofree char *title = g_strdup_printf (_("Request %u"), request->number);
  g_autofree char *time = assay_requests_window_format_time (request->sent_at, "%H:%M:%S");
  g_autofree char *host = assay_requests_window_clean (request->host, -1, TRUE);
  g_autofree char *model = assay_requests_window_clean (request->model, -1, TRUE);
  g_autofree char *where = NULL;
  g_autofree char *tokens = assay_requests_window_tokens_text (request, FALSE);
  g_autofree char *cost = assay_price_format_cost (request->cost);
  g_autofree char *figures = NULL;
  GtkWidget *label;

  if (request->step > 0)
    /* Translators: a request's step, server and model: "Step 2 · api.openai.com · gpt-4o". */
    where = g_strdup_printf (_("Step %u · %s · %s"), request->step, host, model);
  else
    where = g_strdup_printf ("%s · %s", host, model);
  figures = g_strdup_printf ("%s · %s · %s", tokens, cost, assay_requests_window_mode_label (request->mode));

  gtk_widget_add_css_class (box, "request-row");
  label = assay_requests_window_label_new (title, "heading", FALSE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (top), label);
  gtk_box_append (GTK_BOX (top), assay_requests_window_label_new (time, "numeric", FALSE));
  gtk_box_append (GTK_BOX (box), top);
  gtk_box_append (GTK_BOX (box), assay_requests_window_label_new (where, NULL, TRUE));
  label = assay_requests_window_label_new (figures, "caption", TRUE);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (box), label);
  if (request->file == NULL)
    {
      label = assay_requests_window_label_new (_("Body not kept"), "caption", TRUE);
      gtk_widget_add_css_class (label, "warning");
      gtk_box_append (GTK_BOX (box), label);
    }
  return box;
}

static void
assay_requests_window_update_total (AssayRequestsWindow *self)
{
  gint64 input = 0, output = 0;
  guint unpriced = 0;
  double cost = assay_session_get_cost (self->session, &input, &output, &unpriced);
  g_autofree char *cost_text = assay_price_format_cost (cost);
  g_autofree char *text = NULL;

  if (unpriced > 0)
    {
      g_autofree char *known = g_steal_pointer (&cost_text);

      cost_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s and %u of unknown price",
                                                "%s and %u of unknown price", unpriced),
                                   known, unpriced);
    }
  /* Translators: under the list: "3 requests · 1,234 tokens in, 56 out · $0.0123". */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u request · %'lld tokens in, %'lld out · %s",
                                       "%u requests · %'lld tokens in, %'lld out · %s", self->n_listed),
                          self->n_listed, (long long) input, (long long) output, cost_text);
  gtk_label_set_text (self->total_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->total_label), self->n_listed > 0);
}

/* ---- the request shown -------------------------------------------------------------------- */

static const AssaySessionRequest *
assay_requests_window_request_at (AssayRequestsWindow *self,
                                  guint                index)
{
  GPtrArray *requests = assay_session_get_requests (self->session);

  return requests != NULL && index < requests->len ? g_ptr_array_index (requests, index) : NULL;
}

static void
assay_requests_window_clear_shown (AssayRequestsWindow *self)
{
  GtkWidget *child;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  /* The part widgets point into the reading: they go first. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->parts_box))) != NULL)
    gtk_box_remove (self->parts_box, child);
  g_clear_pointer (&self->reading, assay_request_reading_free);
  g_clear_pointer (&self->body, g_bytes_unref);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->raw_view)), "", 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->raw_toggle), FALSE);
  gtk_widget_set_sensitive (self->copy_button, FALSE);
  gtk_spinner_stop (self->spinner);
  self->shown = G_MAXUINT;
}

/* The page for what is known of the request shown: its raw body when asked for, else its
 * parts, or why there are none. */
static void
assay_requests_window_update_page (AssayRequestsWindow *self)
{
  const char *page;

  if (self->shown == G_MAXUINT)
    page = "none";
  else if (self->body != NULL && gtk_toggle_button_get_active (self->raw_toggle))
    page = "raw";
  else if (self->reading != NULL)
    page = "parts";
  else if (self->cancellable != NULL)
    page = "loading";
  else
    page = "problem";
  gtk_stack_set_visible_child_name (self->content_stack, page);
}

static void
assay_requests_window_show_problem (AssayRequestsWindow *self,
                                    const char          *title,
                                    const char          *description)
{
  /* A status page's description is markup; the reason may quote the body. */
  g_autofree char *escaped = g_markup_escape_text (description, -1);

  adw_status_page_set_title (self->problem_page, title);
  adw_status_page_set_description (self->problem_page, escaped);
  assay_requests_window_update_page (self);
}

static const char *
assay_requests_window_change_class (AssayRequestPartChange change)
{
  switch (change)
    {
    case ASSAY_REQUEST_PART_REPEATED:
      return "repeated";
    case ASSAY_REQUEST_PART_CHANGED:
      return "changed";
    case ASSAY_REQUEST_PART_ADDED:
    default:
      return "added";
    }
}

static char *
assay_requests_window_change_text (const AssayRequestPart *part,
                                   guint                   compared_with)
{
  switch (part->change)
    {
    case ASSAY_REQUEST_PART_REPEATED:
      return g_strdup_printf (_("Repeated from request %u"), compared_with);
    case ASSAY_REQUEST_PART_CHANGED:
      return g_strdup_printf (_("Changed since request %u"), compared_with);
    case ASSAY_REQUEST_PART_ADDED:
    default:
      return g_strdup (compared_with > 0 ? _("Added in this request") : _("Sent"));
    }
}

/* GtkTextView gives as its height that of its text at the width it had before (at first, a
 * character to a line): once it has a new width, it is measured again, and the frames stop
 * once the width holds. */
static gboolean
assay_requests_window_text_width_tick_cb (GtkWidget     *view,
                                          GdkFrameClock *clock,
                                          gpointer       user_data)
{
  int width = gtk_widget_get_width (view);
  int measured = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (view), "assay-measured-width"));

  if (width <= 0)
    return G_SOURCE_CONTINUE;
  if (width != measured)
    {
      g_object_set_data (G_OBJECT (view), "assay-measured-width", GINT_TO_POINTER (width));
      gtk_widget_queue_resize (view);
      return G_SOURCE_CONTINUE;
    }
  g_object_set_data (G_OBJECT (view), "assay-width-tick", NULL);
  return G_SOURCE_REMOVE;
}

static void
assay_requests_window_watch_text_width (GtkWidget *view)
{
  if (g_object_get_data (G_OBJECT (view), "assay-width-tick") != NULL)
    return;
  g_object_set_data (G_OBJECT (view), "assay-width-tick",
                     GUINT_TO_POINTER (gtk_widget_add_tick_callback (view, assay_requests_window_text_width_tick_cb,
                                                                     NULL, NULL)));
}

/* The page's width changed: every part's text is measured again. */
static void
assay_requests_window_parts_width_cb (AssayRequestsWindow *self,
                                      GtkAdjustment       *adjustment)
{
  for (GtkWidget *part = gtk_widget_get_first_child (GTK_WIDGET (self->parts_box));
       part != NULL;
       part = gtk_widget_get_next_sibling (part))
    {
      GtkWidget *expander = gtk_widget_get_first_child (part);
      GtkWidget *box = GTK_IS_EXPANDER (expander) ? gtk_expander_get_child (GTK_EXPANDER (expander)) : NULL;

      if (box != NULL && GTK_IS_TEXT_VIEW (gtk_widget_get_last_child (box)))
        assay_requests_window_watch_text_width (gtk_widget_get_last_child (box));
    }
}

/* The text of a part, made when the part is first opened: a long conversation repeated in
 * full costs its headers only. */
static void
assay_requests_window_fill_part (GtkExpander            *expander,
                                 const AssayRequestPart *part)
{
  GtkWidget *box;
  GtkWidget *view;
  g_autofree char *shown = NULL;
  glong n_chars = 0;

  if (gtk_expander_get_child (expander) != NULL)
    return;
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  shown = assay_requests_window_cap (part->text, &n_chars);
  if (n_chars > MAX_SHOWN_CHARS)
    {
      g_autofree char *note = assay_requests_window_cut_note (n_chars);
      GtkWidget *label = assay_requests_window_label_new (note, "request-note", FALSE);

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_box_append (GTK_BOX (box), label);
    }
  view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view),
                               part->kind == ASSAY_REQUEST_PART_TOOL_CALL ||
                               part->kind == ASSAY_REQUEST_PART_TOOL_RESULT ||
                               part->kind == ASSAY_REQUEST_PART_DATASETS);
  gtk_widget_add_css_class (view, "request-part-text");
  /* As tall as its text, not the rest of the page: the parts after it stay in view. */
  gtk_widget_set_vexpand (view, FALSE);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), shown, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, part->label, -1);
  gtk_box_append (GTK_BOX (box), view);
  gtk_expander_set_child (expander, box);
  assay_requests_window_watch_text_width (view);
}

static void
assay_requests_window_part_expanded_cb (GtkExpander *expander,
                                        GParamSpec  *pspec,
                                        gpointer     user_data)
{
  if (gtk_expander_get_expanded (expander))
    assay_requests_window_fill_part (expander, user_data);
}

static GtkWidget *
assay_requests_window_part_new (const AssayRequestPart *part,
                                guint                   compared_with)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *expander = gtk_expander_new (NULL);
  GtkWidget *label;
  g_autofree char *change = assay_requests_window_change_text (part, compared_with);
  g_autofree char *size = NULL;
  glong n_chars = g_utf8_strlen (part->text, -1);

  gtk_widget_add_css_class (box, "request-part");
  gtk_widget_add_css_class (box, assay_requests_window_change_class (part->change));

  /* The label whole (it says what the part is), wrapped when narrow; the rest gives way. */
  label = assay_requests_window_label_new (part->label, "heading", FALSE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_box_append (GTK_BOX (header), label);
  label = assay_requests_window_label_new (change, "caption", TRUE);
  gtk_widget_add_css_class (label, "request-part-badge");
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (header), label);
  size = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%'ld character", "%'ld characters", (gulong) n_chars),
                          n_chars);
  label = assay_requests_window_label_new (size, "caption", FALSE);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "numeric");
  gtk_box_append (GTK_BOX (header), label);

  gtk_expander_set_label_widget (GTK_EXPANDER (expander), header);
  /* The widget holds PART of the window's reading, which outlives it. */
  g_signal_connect (expander, "notify::expanded", G_CALLBACK (assay_requests_window_part_expanded_cb),
                    (gpointer) part);
  gtk_expander_set_expanded (GTK_EXPANDER (expander), part->change != ASSAY_REQUEST_PART_REPEATED);
  gtk_box_append (GTK_BOX (box), expander);
  return box;
}

static void
assay_requests_window_show_reading (AssayRequestsWindow *self)
{
  const AssayRequestReading *reading = self->reading;
  GString *summary = g_string_new (NULL);
  guint n = reading->parts->len;
  guint n_repeated = n - reading->n_added;

  if (reading->compared_with > 0 && reading->n_added == 0)
    g_string_printf (summary, _("Nothing added since request %u."), reading->compared_with);
  else if (reading->compared_with > 0)
    g_string_printf (summary, g_dngettext (GETTEXT_PACKAGE, "%u part added since request %u.",
                                           "%u parts added since request %u.", reading->n_added),
                     reading->n_added, reading->compared_with);
  else if (self->shown == 0)
    g_string_printf (summary, g_dngettext (GETTEXT_PACKAGE, "The session’s first request: its %u part was new.",
                                           "The session’s first request: its %u parts were new.", n), n);
  else
    g_string_printf (summary, g_dngettext (GETTEXT_PACKAGE,
                                           "No earlier body to compare with: its %u part is shown as new.",
                                           "No earlier body to compare with: its %u parts are shown as new.", n),
                     n);
  if (n_repeated > 0)
    g_string_append_printf (summary, " %s",
                            g_dngettext (GETTEXT_PACKAGE, "The part it repeated is collapsed.",
                                         "The parts it repeated are collapsed.", n_repeated));
  gtk_label_set_text (self->summary_label, summary->str);
  g_string_free (summary, TRUE);

  for (guint i = 0; i < n; i++)
    gtk_box_append (self->parts_box,
                    assay_requests_window_part_new (g_ptr_array_index (reading->parts, i), reading->compared_with));
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->parts_scroller), 0);
  assay_requests_window_update_page (self);
}

static void
assay_requests_window_read_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  GBytes **bodies = task_data;   /* the body, the previous body (may be NULL) */
  guint previous_number = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (task), "previous-number"));
  GError *error = NULL;
  AssayRequestReading *reading;

  reading = assay_request_reading_new_compared (bodies[0], bodies[1], previous_number, &error);
  if (reading == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, reading, (GDestroyNotify) assay_request_reading_free);
}

static void
assay_requests_window_bodies_free (gpointer data)
{
  GBytes **bodies = data;

  g_clear_pointer (&bodies[0], g_bytes_unref);
  g_clear_pointer (&bodies[1], g_bytes_unref);
  g_free (bodies);
}

/* A task holds no reference to the window: dispose cancels, and a cancelled task only
 * reports that. */
static void
assay_requests_window_read_done_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  AssayRequestsWindow *self;
  g_autoptr(GError) error = NULL;
  AssayRequestReading *reading = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = user_data;
  g_clear_object (&self->cancellable);
  gtk_spinner_stop (self->spinner);
  if (reading == NULL)
    {
      assay_requests_window_show_problem (self, _("Not a Request Assay Can Read"), error->message);
      return;
    }
  /* The cells are the session's, read on its thread. */
  assay_request_reading_name_cells (reading, self->session);
  self->reading = reading;
  assay_requests_window_show_reading (self);
}

static void
assay_requests_window_set_raw_body (AssayRequestsWindow *self)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (self->body, &length);
  g_autofree char *text = assay_requests_window_clean (data != NULL ? data : "", (gssize) length, FALSE);
  g_autofree char *shown = NULL;
  glong n_chars = 0;

  shown = assay_requests_window_cap (text, &n_chars);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->raw_view)), shown, -1);
  if (n_chars > MAX_SHOWN_CHARS)
    {
      g_autofree char *note = assay_requests_window_cut_note (n_chars);

      gtk_label_set_text (self->raw_note_label, note);
      gtk_widget_add_css_class (GTK_WIDGET (self->raw_note_label), "warning");
    }
  else
    {
      gtk_label_set_text (self->raw_note_label, _("The body exactly as it was sent."));
      gtk_widget_remove_css_class (GTK_WIDGET (self->raw_note_label), "warning");
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->raw_toggle), TRUE);
  gtk_widget_set_sensitive (self->copy_button, TRUE);
}

static void
assay_requests_window_show_request (AssayRequestsWindow *self,
                                    guint                index)
{
  const AssaySessionRequest *request = assay_requests_window_request_at (self, index);
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *meta = NULL;
  GBytes **bodies;
  guint previous_number = 0;

  assay_requests_window_clear_shown (self);
  if (request == NULL)
    {
      adw_window_title_set_title (self->content_title, _("Sent to the Model"));
      adw_window_title_set_subtitle (self->content_title, "");
      assay_requests_window_update_page (self);
      return;
    }
  self->shown = index;
  title = g_strdup_printf (_("Request %u"), request->number);
  subtitle = request->step > 0 ? g_strdup_printf (_("Step %u"), request->step) : g_strdup ("");
  adw_window_title_set_title (self->content_title, title);
  adw_window_title_set_subtitle (self->content_title, subtitle);
  meta = assay_requests_window_meta_text (request);
  gtk_label_set_text (self->meta_label, meta);
  gtk_label_set_text (self->problem_meta_label, meta);

  if (request->file == NULL)
    {
      g_autofree char *cap = g_format_size_full (ASSAY_SESSION_REQUESTS_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *why = g_strdup_printf (_("The session keeps %s of request bodies, and that was reached "
                                                "before this request: only its figures were recorded."), cap);

      assay_requests_window_show_problem (self, _("Body Not Kept"), why);
      return;
    }
  /* The body on the session's thread (checked against its SHA-256), parsed in a worker. */
  self->body = assay_session_read_request_body (self->session, request, &error);
  if (self->body == NULL)
    {
      assay_requests_window_show_problem (self, _("Body Cannot Be Read"), error->message);
      return;
    }
  assay_requests_window_set_raw_body (self);

  bodies = g_new0 (GBytes *, 2);
  bodies[0] = g_bytes_ref (self->body);
  bodies[1] = assay_session_requests_read_previous_body (self->session, index, &previous_number);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (NULL, self->cancellable, assay_requests_window_read_done_cb, self);
  g_task_set_source_tag (task, assay_requests_window_show_request);
  g_task_set_task_data (task, bodies, assay_requests_window_bodies_free);
  g_object_set_data (G_OBJECT (task), "previous-number", GUINT_TO_POINTER (previous_number));
  g_task_run_in_thread (task, assay_requests_window_read_worker);
  gtk_spinner_start (self->spinner);
  assay_requests_window_update_page (self);
}

/* ---- callbacks ---------------------------------------------------------------------------- */

static void
assay_requests_window_row_selected_cb (AssayRequestsWindow *self,
                                       GtkListBoxRow       *row,
                                       GtkListBox          *list)
{
  guint index = row != NULL ? (guint) gtk_list_box_row_get_index (row) : G_MAXUINT;

  if (index != self->shown)
    assay_requests_window_show_request (self, index);
}

static void
assay_requests_window_row_activated_cb (AssayRequestsWindow *self,
                                        GtkListBoxRow       *row,
                                        GtkListBox          *list)
{
  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

static void
assay_requests_window_back_clicked_cb (AssayRequestsWindow *self,
                                       GtkButton           *button)
{
  adw_leaflet_set_visible_child (self->leaflet, self->sidebar);
}

static void
assay_requests_window_raw_toggled_cb (AssayRequestsWindow *self,
                                      GParamSpec          *pspec,
                                      GtkToggleButton     *toggle)
{
  assay_requests_window_update_page (self);
}

static void
assay_requests_window_copy_clicked_cb (AssayRequestsWindow *self,
                                       GtkButton           *button)
{
  gsize length = 0;
  const char *data;
  g_autofree char *text = NULL;

  if (self->body == NULL)
    return;
  data = g_bytes_get_data (self->body, &length);
  text = assay_requests_window_clean (data != NULL ? data : "", (gssize) length, FALSE);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
}

static void
assay_requests_window_update_style_scheme (AssayRequestsWindow *self)
{
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  const char *id = adw_style_manager_get_dark (adw_style_manager_get_default ()) ? "Adwaita-dark" : "Adwaita";
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->raw_view));

  gtk_source_buffer_set_style_scheme (GTK_SOURCE_BUFFER (buffer),
                                      gtk_source_style_scheme_manager_get_scheme (schemes, id));
}

/* ---- public ------------------------------------------------------------------------------- */

void
assay_requests_window_reload (AssayRequestsWindow *self)
{
  GPtrArray *requests;
  guint shown;

  g_return_if_fail (ASSAY_IS_REQUESTS_WINDOW (self));

  requests = assay_session_get_requests (self->session);
  shown = self->shown;
  /* Requests are only ever added: the rows listed stay, the new ones follow. */
  for (guint i = self->n_listed; requests != NULL && i < requests->len; i++)
    gtk_list_box_append (self->request_list, assay_requests_window_row_new (g_ptr_array_index (requests, i)));
  self->n_listed = requests != NULL ? requests->len : 0;
  gtk_stack_set_visible_child_name (self->list_stack, self->n_listed > 0 ? "list" : "empty");
  assay_requests_window_update_total (self);
  if (shown == G_MAXUINT)
    assay_requests_window_update_page (self);
}

gboolean
assay_requests_window_select_request (AssayRequestsWindow *self,
                                      guint                number)
{
  g_return_val_if_fail (ASSAY_IS_REQUESTS_WINDOW (self), FALSE);

  for (guint i = 0; i < self->n_listed; i++)
    {
      const AssaySessionRequest *request = assay_requests_window_request_at (self, i);

      if (request != NULL && request->number == number)
        {
          GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->request_list, (int) i);

          gtk_list_box_select_row (self->request_list, row);
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
assay_requests_window_select_step (AssayRequestsWindow *self,
                                   guint                step)
{
  g_autofree char *note = NULL;

  g_return_val_if_fail (ASSAY_IS_REQUESTS_WINDOW (self), FALSE);

  for (guint i = 0; i < self->n_listed; i++)
    {
      const AssaySessionRequest *request = assay_requests_window_request_at (self, i);

      if (request != NULL && request->step == step)
        {
          assay_requests_window_select_request (self, request->number);
          adw_leaflet_set_visible_child (self->leaflet, self->content);
          return TRUE;
        }
    }
  gtk_list_box_unselect_all (self->request_list);
  note = g_strdup_printf (_("No request is recorded for step %u: its reply was replayed from a recording, "
                            "or the session was made before Assay kept its requests."), step);
  adw_status_page_set_title (self->none_page, _("Nothing Recorded for This Step"));
  adw_status_page_set_description (self->none_page, note);
  return FALSE;
}

guint
assay_requests_window_get_selected (AssayRequestsWindow *self)
{
  const AssaySessionRequest *request;

  g_return_val_if_fail (ASSAY_IS_REQUESTS_WINDOW (self), 0);
  request = self->shown != G_MAXUINT ? assay_requests_window_request_at (self, self->shown) : NULL;
  return request != NULL ? request->number : 0;
}

gboolean
assay_requests_window_get_loading (AssayRequestsWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_REQUESTS_WINDOW (self), FALSE);
  return self->cancellable != NULL;
}

const AssayRequestReading *
assay_requests_window_get_reading (AssayRequestsWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_REQUESTS_WINDOW (self), NULL);
  return self->reading;
}

char *
assay_requests_window_dup_raw_text (AssayRequestsWindow *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (ASSAY_IS_REQUESTS_WINDOW (self), NULL);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->raw_view));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
}

/* ---- the class ---------------------------------------------------------------------------- */

static void
assay_requests_window_constructed (GObject *object)
{
  AssayRequestsWindow *self = ASSAY_REQUESTS_WINDOW (object);

  G_OBJECT_CLASS (assay_requests_window_parent_class)->constructed (object);
  assay_requests_window_reload (self);
}

static void
assay_requests_window_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  AssayRequestsWindow *self = ASSAY_REQUESTS_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      self->session = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_requests_window_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  AssayRequestsWindow *self = ASSAY_REQUESTS_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_requests_window_dispose (GObject *object)
{
  AssayRequestsWindow *self = ASSAY_REQUESTS_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  /* The list empties itself as the window goes, selecting nothing on the way. */
  if (self->request_list != NULL)
    g_signal_handlers_disconnect_by_data (self->request_list, self);
  G_OBJECT_CLASS (assay_requests_window_parent_class)->dispose (object);
}

static void
assay_requests_window_finalize (GObject *object)
{
  AssayRequestsWindow *self = ASSAY_REQUESTS_WINDOW (object);

  g_clear_pointer (&self->reading, assay_request_reading_free);
  g_clear_pointer (&self->body, g_bytes_unref);
  g_clear_object (&self->session);
  G_OBJECT_CLASS (assay_requests_window_parent_class)->finalize (object);
}

static void
assay_requests_window_class_init (AssayRequestsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = assay_requests_window_constructed;
  object_class->set_property = assay_requests_window_set_property;
  object_class->get_property = assay_requests_window_get_property;
  object_class->dispose = assay_requests_window_dispose;
  object_class->finalize = assay_requests_window_finalize;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, ASSAY_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  assay_app_ensure_resources ();
  /* GtkSourceView's languages and style schemes, before the template makes a view. */
  gtk_source_init ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-requests-window.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, separator);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, content);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, list_stack);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, request_list);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, total_label);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, content_title);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, copy_button);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, raw_toggle);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, none_page);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, problem_meta_label);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, problem_page);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, parts_scroller);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, meta_label);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, parts_box);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, raw_note_label);
  gtk_widget_class_bind_template_child (widget_class, AssayRequestsWindow, raw_view);
  gtk_widget_class_bind_template_callback (widget_class, assay_requests_window_row_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_requests_window_row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_requests_window_back_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_requests_window_raw_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_requests_window_copy_clicked_cb);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
assay_requests_window_init (AssayRequestsWindow *self)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkTextBuffer *buffer;

  self->shown = G_MAXUINT;
  gtk_widget_init_template (GTK_WIDGET (self));
  adw_leaflet_page_set_navigatable (adw_leaflet_get_page (self->leaflet, self->separator), FALSE);
  g_signal_connect_object (gtk_scrolled_window_get_hadjustment (self->parts_scroller), "changed",
                           G_CALLBACK (assay_requests_window_parts_width_cb), self, G_CONNECT_SWAPPED);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->raw_view));
  gtk_source_buffer_set_language (GTK_SOURCE_BUFFER (buffer),
                                  gtk_source_language_manager_get_language (languages, "json"));
  gtk_source_buffer_set_highlight_syntax (GTK_SOURCE_BUFFER (buffer), TRUE);
  assay_requests_window_update_style_scheme (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (assay_requests_window_update_style_scheme), self, G_CONNECT_SWAPPED);
}

AssayRequestsWindow *
assay_requests_window_new (GtkWindow    *parent,
                           AssaySession *session)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);

  return g_object_new (ASSAY_TYPE_REQUESTS_WINDOW,
                       "transient-for", parent,
                       "session", session,
                       NULL);
}
