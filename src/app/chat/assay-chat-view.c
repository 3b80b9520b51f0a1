/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-changes-card.h"
#include "assay-chat-view.h"
#include "assay-comfort-bin.h"
#include "assay-conversation.h"
#include "assay-session-outline.h"
#include "assay-markdown-view.h"
#include "assay-revealer.h"
#include "assay-step-card.h"
#include "assay-usage.h"

/* The chat reads well from this width on; narrower beside the code pane, the window shows
 * the code as a page of its own (an AdwLeaflet folds). */
#define CHAT_COMFORT_WIDTH 440

struct _AssayChatView
{
  GtkWidget          parent_instance;

  GtkRevealer       *retry_revealer;
  GtkLabel          *retry_label;
  GtkRevealer       *server_revealer;
  GtkLabel          *server_label;
  GtkStack          *content_stack;
  GtkScrolledWindow *scroller;
  GtkBox            *messages_box;
  GtkSpinner        *loading_spinner;
  GtkWidget         *empty_page;
  GtkFlowBox        *sources_box;
  GtkWidget         *composer_box;
  GtkTextView       *composer_view;
  GtkWidget         *stop_button;
  GtkWidget         *send_button;
  GtkWidget         *usage_bar;
  GtkLabel          *question_usage_label;
  GtkLabel          *session_usage_label;

  AssayStepCard     *current_card;
  GPtrArray         *cards;          /* AssayStepCard*, not owned */
  guint              retry_source;
  gint64             retry_deadline_us;
  char              *retry_reason;
  gboolean           stick_to_bottom;
  guint              follow_tick;    /* on the scroller: to the bottom at the next frame */
  guint              question_first_step;  /* the current question's first step in the session */

  AssayConversation *conversation;
  GSignalGroup      *agent_signals;        /* on the conversation's agent */
  GSignalGroup      *conversation_signals;
  GBinding          *agent_binding;

  GtkWidget         *changes_card;         /* "What Changed" of a session run again, or NULL */
};

G_DEFINE_FINAL_TYPE (AssayChatView, assay_chat_view, GTK_TYPE_WIDGET)

static void
assay_chat_view_append_message (AssayChatView *self,
                                GtkWidget     *widget)
{
  gtk_widget_set_visible (self->empty_page, FALSE);
  gtk_widget_set_vexpand (widget, FALSE);
  gtk_box_append (self->messages_box, widget);
  self->stick_to_bottom = TRUE;
}

void
assay_chat_view_clear (AssayChatView *self)
{
  GtkWidget *child;

  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  while ((child = gtk_widget_get_last_child (GTK_WIDGET (self->messages_box))) != self->empty_page)
    gtk_box_remove (self->messages_box, child);
  gtk_widget_set_visible (self->empty_page, TRUE);
  g_ptr_array_set_size (self->cards, 0);
  self->current_card = NULL;
  self->changes_card = NULL;
  assay_chat_view_hide_retry (self);
  gtk_widget_set_visible (self->usage_bar, FALSE);
}

void
assay_chat_view_add_question (AssayChatView *self,
                              const char    *text)
{
  GtkWidget *label;

  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  label = gtk_label_new (text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_halign (label, GTK_ALIGN_END);
  gtk_widget_add_css_class (label, "question");
  assay_chat_view_append_message (self, label);
  self->current_card = NULL;
}

AssayStepCard *
assay_chat_view_begin_step (AssayChatView *self,
                            guint          step,
                            guint          max_steps)
{
  GtkWidget *card;

  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  if (self->current_card != NULL)
    assay_step_card_set_working (self->current_card, FALSE);
  card = assay_step_card_new (step, max_steps);
  assay_chat_view_append_message (self, card);
  g_ptr_array_add (self->cards, card);
  self->current_card = ASSAY_STEP_CARD (card);
  return self->current_card;
}

AssayStepCard *
assay_chat_view_get_current_card (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  return self->current_card;
}

AssayStepCard *
assay_chat_view_find_cell_card (AssayChatView *self,
                                const char    *cell_id)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  for (guint i = self->cards->len; i-- > 0;)
    if (assay_step_card_has_cell (g_ptr_array_index (self->cards, i), cell_id))
      return g_ptr_array_index (self->cards, i);
  return NULL;
}

/* A number of an answer was activated: the cell's output that printed it, opened at its line. */
static void
assay_chat_view_number_activated_cb (AssayStepCard *card,
                                     guint          index,
                                     AssayChatView *self)
{
  const AssayProvenance *provenance = assay_markdown_view_get_provenance (assay_step_card_get_text_view (card));
  const AssayTracedNumber *number;
  AssayStepCard *source;

  if (provenance == NULL || index >= provenance->numbers->len)
    return;
  number = g_ptr_array_index (provenance->numbers, index);
  if (!number->found || (source = assay_chat_view_find_cell_card (self, number->cell_id)) == NULL)
    return;
  assay_step_card_reveal_output_line (source, number->cell_id, number->line_text);
}

void
assay_chat_view_add_answer (AssayChatView         *self,
                            const char            *markdown,
                            const AssayProvenance *provenance)
{
  AssayStepCard *card;

  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));

  /* The final turn streamed into a card of its own: that card becomes the answer. */
  if (self->current_card != NULL && assay_step_card_get_n_cells (self->current_card) == 0)
    card = self->current_card;
  else
    card = assay_chat_view_begin_step (self, 0, 0);
  assay_step_card_set_text (card, markdown);
  assay_step_card_set_answer (card);
  assay_step_card_set_working (card, FALSE);
  if (provenance != NULL)
    {
      assay_step_card_set_provenance (card, provenance);
      g_signal_connect_object (card, "number-activated", G_CALLBACK (assay_chat_view_number_activated_cb), self, 0);
    }
  self->current_card = NULL;
}

/* A notice the analyst must not miss before signing off (numbers not traced, stale): a
 * warning with its icon, on the warning colour, not the small grey text of a remark. The icon
 * lies over the label's margin rather than beside it in a box: a box asks a wrapped label how
 * wide it must be for its height, which GTK answers by laying the text out a dozen times, and
 * a long list of numbers made every frame of the conversation take 100 ms. */
static void
assay_chat_view_add_warning (AssayChatView *self,
                             const char    *text)
{
  GtkWidget *notice = gtk_overlay_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_set_halign (icon, GTK_ALIGN_START);
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_widget_add_css_class (icon, "warning");
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Warning"), -1);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_width_chars (GTK_LABEL (label), 16);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_start (label, 24);
  gtk_overlay_set_child (GTK_OVERLAY (notice), label);
  gtk_overlay_add_overlay (GTK_OVERLAY (notice), icon);
  gtk_widget_add_css_class (notice, "warning-notice");
  assay_chat_view_append_message (self, notice);
}

/* Under an answer: the numbers in it that no output of its question printed. */
static void
assay_chat_view_add_untraced_notice (AssayChatView         *self,
                                     const AssayProvenance *provenance)
{
  g_autoptr(GString) stale = g_string_new (NULL);
  g_autoptr(GString) missing = g_string_new (NULL);
  g_autoptr(GString) weak = g_string_new (NULL);
  guint n_stale = 0, n_missing = 0, n_weak = 0;

  if (provenance == NULL)
    return;
  /* Stale numbers (a run on new data could not find them again) are said apart. */
  for (guint i = 0; i < provenance->numbers->len; i++)
    {
      const AssayTracedNumber *number = g_ptr_array_index (provenance->numbers, i);
      GString *list = number->stale ? stale : number->weak ? weak : missing;

      if (number->found)
        continue;
      if (list->len > 0)
        g_string_append (list, ", ");
      g_string_append (list, number->text);
      if (number->stale)
        n_stale++;
      else if (number->weak)
        n_weak++;
      else
        n_missing++;
    }
  if (n_weak > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u number in this answer is not traced: it matches only "
                                                            "among many numbers an output printed near it: %s",
                                                            "%u numbers in this answer are not traced: they match only "
                                                            "among many numbers an output printed near them: %s",
                                                            n_weak),
                                               n_weak, weak->str);

      assay_chat_view_add_warning (self, text);
    }
  if (n_missing > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u number in this answer was not found in any output: %s",
                                                            "%u numbers in this answer were not found in any output: %s",
                                                            n_missing),
                                               n_missing, missing->str);

      assay_chat_view_add_warning (self, text);
    }
  if (n_stale > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u number in this answer is stale, not found again on the "
                                                            "new data (the old text is kept): %s",
                                                            "%u numbers in this answer are stale, not found again on the "
                                                            "new data (the old text is kept): %s",
                                                            n_stale),
                                               n_stale, stale->str);

      assay_chat_view_add_warning (self, text);
    }
}

/* In place of a draft answer Assay sent back (the draft itself is kept in the record and the
 * reports' audit of what was sent, not shown as an answer). */
static void
assay_chat_view_add_check_notice (AssayChatView *self,
                                  const char    *numbers)
{
  g_autofree char *text = g_strdup_printf (_("A draft answer named numbers no output printed (%s): it went back to "
                                             "the model to compute or correct them."), numbers);

  assay_chat_view_add_notice (self, text, FALSE);
}

void
assay_chat_view_add_notice (AssayChatView *self,
                            const char    *text,
                            gboolean       error)
{
  GtkWidget *label;

  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  label = gtk_label_new (text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "notice");
  gtk_widget_add_css_class (label, error ? "error" : "dim-label");
  assay_chat_view_append_message (self, label);
}

static gboolean
assay_chat_view_retry_tick_cb (gpointer user_data)
{
  AssayChatView *self = user_data;
  gint64 left_us = self->retry_deadline_us - g_get_monotonic_time ();
  guint seconds = left_us > 0 ? (guint) ((left_us + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC) : 0;
  g_autofree char *text = NULL;

  if (seconds > 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "The model server is busy, retrying in %u s (%s)",
                                         "The model server is busy, retrying in %u s (%s)", seconds),
                            seconds, self->retry_reason);
  else
    text = g_strdup_printf (_("The model server is busy, retrying now (%s)"), self->retry_reason);
  gtk_label_set_text (self->retry_label, text);
  if (seconds == 0)
    {
      self->retry_source = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

void
assay_chat_view_show_retry (AssayChatView *self,
                            guint          attempt,
                            guint          delay_ms,
                            const char    *reason)
{
  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  g_free (self->retry_reason);
  self->retry_reason = g_strdup (reason ? reason : _("no reason given"));
  self->retry_deadline_us = g_get_monotonic_time () + (gint64) delay_ms * 1000;
  g_clear_handle_id (&self->retry_source, g_source_remove);
  assay_chat_view_retry_tick_cb (self);
  self->retry_source = g_timeout_add (250, assay_chat_view_retry_tick_cb, self);
  gtk_revealer_set_reveal_child (self->retry_revealer, TRUE);
  if (self->current_card != NULL)
    assay_step_card_clear (self->current_card);
}

void
assay_chat_view_hide_retry (AssayChatView *self)
{
  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  g_clear_handle_id (&self->retry_source, g_source_remove);
  gtk_revealer_set_reveal_child (self->retry_revealer, FALSE);
}

gboolean
assay_chat_view_get_retry_visible (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), FALSE);
  return gtk_revealer_get_reveal_child (self->retry_revealer);
}

const char *
assay_chat_view_get_retry_text (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  return gtk_label_get_text (self->retry_label);
}

void
assay_chat_view_set_busy (AssayChatView *self,
                          gboolean       busy)
{
  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  gtk_widget_set_visible (self->stop_button, busy);
  gtk_widget_set_visible (self->send_button, !busy);
  if (!busy)
    {
      assay_chat_view_hide_retry (self);
      if (self->current_card != NULL)
        assay_step_card_set_working (self->current_card, FALSE);
    }
}

void
assay_chat_view_set_loading (AssayChatView *self,
                             gboolean       loading)
{
  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  gtk_spinner_set_spinning (self->loading_spinner, loading);
  gtk_stack_set_visible_child_name (self->content_stack, loading ? "loading" : "conversation");
}

gboolean
assay_chat_view_get_loading (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), FALSE);
  return g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "loading") == 0;
}

char *
assay_chat_view_get_composer_text (AssayChatView *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  buffer = gtk_text_view_get_buffer (self->composer_view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

GtkWidget *
assay_chat_view_get_foot (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->sources_box)) ? GTK_WIDGET (self->sources_box) : self->composer_box;
}

void
assay_chat_view_set_sources (AssayChatView       *self,
                             const char * const  *names,
                             const char * const  *targets,
                             const char * const  *icons)
{
  GtkWidget *child;
  guint n = names != NULL ? g_strv_length ((char **) names) : 0;

  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sources_box))) != NULL)
    gtk_flow_box_remove (self->sources_box, child);
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *button = gtk_button_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *label = gtk_label_new (names[i]);
      /* Translators: the tooltip of a dataset's or database's chip above the composer. */
      g_autofree char *tooltip = g_strdup_printf (_("Show %s on the Data page"), names[i]);

      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 28);
      gtk_box_append (GTK_BOX (box), gtk_image_new_from_icon_name (icons[i]));
      gtk_box_append (GTK_BOX (box), label);
      gtk_button_set_child (GTK_BUTTON (button), box);
      gtk_widget_set_tooltip_text (button, tooltip);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.show-data");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", targets[i]);
      gtk_widget_add_css_class (button, "session-source");
      gtk_flow_box_append (self->sources_box, button);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->sources_box), n > 0);
  /* The empty conversation says what it has to ask about. */
  if (n > 0)
    adw_status_page_set_description (ADW_STATUS_PAGE (self->empty_page),
                                     _("Ask a question about the data below. Each piece of code and each query "
                                       "waits for your approval before it runs. Drop more files here, or "
                                       "connect a database."));
  else
    adw_status_page_set_description (ADW_STATUS_PAGE (self->empty_page),
                                     _("Drop CSV, TSV, TXT or XLSX files here, open them with Ctrl+O or connect to "
                                       "a database, then ask a question. Each piece of code and each query waits "
                                       "for your approval before it runs."));
}

void
assay_chat_view_set_composer_text (AssayChatView *self,
                                   const char    *text)
{
  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->composer_view), text ? text : "", -1);
}

void
assay_chat_view_focus_composer (AssayChatView *self)
{
  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  gtk_widget_grab_focus (GTK_WIDGET (self->composer_view));
}

static gboolean
assay_chat_view_composer_key_pressed_cb (GtkEventControllerKey *controller,
                                         guint                  keyval,
                                         guint                  keycode,
                                         GdkModifierType        state,
                                         AssayChatView         *self)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter) &&
      (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) == 0)
    {
      gtk_widget_activate_action (GTK_WIDGET (self), "win.send", NULL);
      return TRUE;
    }
  return FALSE;
}

static gboolean
assay_chat_view_follow_cb (GtkWidget     *scroller,
                           GdkFrameClock *clock,
                           gpointer       user_data)
{
  AssayChatView *self = user_data;
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);

  self->follow_tick = 0;
  if (self->stick_to_bottom)
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment) -
                                          gtk_adjustment_get_page_size (adjustment));
  return G_SOURCE_REMOVE;
}

/* Keeps the newest message in sight while the conversation grows: at the next frame, before
 * its layout. Not here: the viewport changes the range while it lays the messages out, and
 * a value set then is not the one it placed them at (the adjustment said "at the bottom",
 * the answer lay below it out of reach until the window was resized). */
static void
assay_chat_view_adjustment_changed_cb (GtkAdjustment *adjustment,
                                       AssayChatView *self)
{
  if (self->stick_to_bottom && self->follow_tick == 0)
    self->follow_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self->scroller), assay_chat_view_follow_cb,
                                                      self, NULL);
}

static void
assay_chat_view_adjustment_value_changed_cb (GtkAdjustment *adjustment,
                                             AssayChatView *self)
{
  double bottom = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

  self->stick_to_bottom = gtk_adjustment_get_value (adjustment) >= bottom - 24;
}

static char *
assay_chat_view_artifact_path (AssaySession        *session,
                               const AssayArtifact *artifact)
{
  return assay_session_resolve (session, artifact->path);
}

/* A query of a session opened again: its result comes back from the session's cache at the
 * next question (the agent restores it), never from the database. */
static void
assay_chat_view_show_query (AssayStepCard    *card,
                            AssaySession     *session,
                            AssaySessionCell *cell)
{
  g_autofree char *path = NULL;
  const char *note = NULL;

  assay_step_card_cell_query (card, cell->id, cell->code != NULL ? cell->code : cell->proposed_code,
                              cell->query->database, cell->query->frame);
  if (!assay_session_cell_succeeded (cell))
    return;
  if (cell->query->result != NULL && (path = assay_session_resolve (session, cell->query->result)) != NULL &&
      g_file_test (path, G_FILE_TEST_IS_REGULAR))
    note = _("Its result is cached in the session: the next question restores the DataFrame from it, without "
             "querying the database.");
  else
    note = _("Its cached result is missing from the session: the DataFrame comes back only if the query runs "
             "again.");
  assay_step_card_cell_query_result (card, cell->id, cell->query, note);
}

static void
assay_chat_view_show_cell (AssayStepCard    *card,
                           AssaySession     *session,
                           AssaySessionCell *cell)
{
  assay_step_card_add_cell (card, cell->id, cell->description);
  if (cell->decision == ASSAY_DECISION_EDITED)
    assay_step_card_cell_edited (card, cell->id);
  if (cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL)
    assay_chat_view_show_query (card, session, cell);
  if (cell->decision == ASSAY_DECISION_REJECTED)
    {
      assay_step_card_cell_rejected (card, cell->id, cell->reason);
      return;
    }
  for (guint k = 0; k < json_array_get_length (cell->outputs); k++)
    {
      JsonNode *node = json_array_get_element (cell->outputs, k);

      if (JSON_NODE_HOLDS_OBJECT (node))
        assay_step_card_cell_output (card, cell->id, json_node_get_object (node));
    }
  for (guint k = 0; k < cell->artifacts->len; k++)
    {
      AssayArtifact *artifact = g_ptr_array_index (cell->artifacts, k);
      g_autofree char *path = assay_chat_view_artifact_path (session, artifact);

      assay_step_card_cell_artifact (card, cell->id, artifact->name, path);
    }
  if (cell->status == ASSAY_CELL_REJECTED)
    assay_step_card_cell_rejected (card, cell->id, cell->reason);
  else if (cell->status != ASSAY_CELL_PROPOSED && cell->status != ASSAY_CELL_RUNNING)
    assay_step_card_cell_finished (card, cell->id, cell->status, cell->status_reason, cell->elapsed_ms);
  assay_step_card_cell_checks (card, cell->id, cell->checks);
}

/* ---- tokens and cost ------------------------------------------------------------------- */

static void
assay_chat_view_set_usage_label (GtkLabel   *label,
                                 const char *text)
{
  if (g_strcmp0 (gtk_label_get_text (label), text != NULL ? text : "") != 0)
    gtk_label_set_text (label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (label), text != NULL);
}

void
assay_chat_view_update_usage (AssayChatView *self,
                              AssaySession  *session)
{
  g_autofree char *question_text = NULL;
  g_autofree char *session_text = NULL;
  g_autofree char *question_line = NULL;
  g_autofree char *session_line = NULL;
  AssayUsage question, all;

  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  g_return_if_fail (session == NULL || ASSAY_IS_SESSION (session));

  if (session == NULL)
    {
      gtk_widget_set_visible (self->usage_bar, FALSE);
      return;
    }
  for (guint i = 0; i < self->cards->len; i++)
    {
      AssayStepCard *card = g_ptr_array_index (self->cards, i);
      guint step = assay_step_card_get_session_step (card);
      g_autofree char *text = NULL;
      AssayUsage usage;

      if (step == 0)
        continue;
      assay_usage_init_for_steps (&usage, session, step, step);
      text = assay_usage_format (&usage);
      assay_step_card_set_usage (card, text);
    }

  assay_usage_init_for_steps (&all, session, 1, G_MAXUINT);
  assay_usage_init_for_steps (&question, session, MAX (self->question_first_step, 1), G_MAXUINT);
  session_text = assay_usage_format (&all);
  question_text = assay_usage_format (&question);
  /* Translators: over the chat, what the current question's requests to the model used and
   * cost so far: "This question: 1,240 tokens in · 310 out · $0.0043". */
  if (question_text != NULL && question.n_requests < all.n_requests)
    question_line = g_strdup_printf (_("This question: %s"), question_text);
  /* Translators: the same for the whole session. */
  if (session_text != NULL)
    session_line = g_strdup_printf (_("This session: %s"), session_text);
  assay_chat_view_set_usage_label (self->question_usage_label, question_line);
  assay_chat_view_set_usage_label (self->session_usage_label, session_line);
  gtk_widget_set_visible (self->usage_bar, session_line != NULL);
}

const char *
assay_chat_view_get_question_usage (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->question_usage_label))
         ? gtk_label_get_text (self->question_usage_label) : NULL;
}

const char *
assay_chat_view_get_session_usage (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  return gtk_widget_get_visible (self->usage_bar) ? gtk_label_get_text (self->session_usage_label) : NULL;
}

/* A request was recorded meanwhile (a step's reply came before its cells, its approval or
 * the next step), or the question ended. */
static void
assay_chat_view_usage_changed_cb (AssayChatView *self)
{
  assay_chat_view_update_usage (self, self->conversation != NULL ? assay_conversation_get_session (self->conversation)
                                                                 : NULL);
}

/* A new question: its steps are the session's from the next one on. */
static void
assay_chat_view_question_usage_cb (AssayChatView *self)
{
  AssaySession *session = assay_conversation_get_session (self->conversation);

  self->question_first_step = session != NULL ? assay_session_get_n_steps (session) + 1 : 1;
  assay_chat_view_update_usage (self, session);
}

/* Whether SESSION kept a request for its step STEP: a reply replayed from a recording, or one
 * from before requests were kept, has none to show. */
static gboolean
assay_chat_view_step_has_request (AssaySession *session,
                                  guint         step)
{
  GPtrArray *requests = assay_session_get_requests (session);

  for (guint i = 0; requests != NULL && i < requests->len; i++)
    if (((AssaySessionRequest *) g_ptr_array_index (requests, i))->step == step)
      return TRUE;
  return FALSE;
}

void
assay_chat_view_show_session (AssayChatView *self,
                              AssaySession  *session,
                              guint          max_steps)
{
  g_autoptr(AssaySessionOutline) outline = NULL;

  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  g_return_if_fail (ASSAY_IS_SESSION (session));

  assay_chat_view_clear (self);
  /* A session run again on new data starts with what changed. */
  if (assay_session_get_rerun_of (session) != NULL)
    {
      self->changes_card = assay_changes_card_new (session);
      assay_chat_view_append_message (self, self->changes_card);
    }
  for (guint i = 0; i < assay_session_get_datasets (session)->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (assay_session_get_datasets (session), i);

      if (dataset->changed)
        {
          g_autofree char *text = g_strdup_printf (_("%s changed on disk since it was added to this session: "
                                                     "the results below may not match it."), dataset->name);

          assay_chat_view_add_notice (self, text, TRUE);
        }
    }
  outline = assay_session_outline_new (session);
  self->question_first_step = 1;
  for (guint i = 0; i < outline->questions->len; i++)
    {
      AssayOutlineQuestion *question = g_ptr_array_index (outline->questions, i);

      /* The last question's steps are "this question" in the header. */
      self->question_first_step = question->steps->len > 0
                                  ? ((AssayOutlineStep *) g_ptr_array_index (question->steps, 0))->number
                                  : assay_session_get_n_steps (session) + 1;
      if (question->text != NULL)
        assay_chat_view_add_question (self, question->text);
      for (guint j = 0; j < question->steps->len; j++)
        {
          AssayOutlineStep *step = g_ptr_array_index (question->steps, j);
          guint number = step->number_in_question;
          AssayStepCard *card;

          /* A draft Assay sent back (no cells): a line, not a card. */
          if (step->checked && step->cells->len == 0)
            {
              g_autofree char *numbers = step->provenance != NULL ? assay_provenance_dup_untraced (step->provenance)
                                                                  : NULL;

              if (numbers != NULL)
                assay_chat_view_add_check_notice (self, numbers);
              continue;
            }
          card = assay_chat_view_begin_step (self, number, MAX (max_steps, number));
          assay_step_card_set_session_step (card, assay_chat_view_step_has_request (session, step->number)
                                                  ? step->number : 0);
          if (!step->interrupted && !step->is_answer)
            assay_step_card_set_text (card, step->text);
          if (step->checked && step->provenance != NULL)
            {
              /* The draft Assay sent back, its numbers marked. */
              assay_step_card_set_provenance (card, step->provenance);
              g_autofree char *numbers = assay_provenance_dup_untraced (step->provenance);

              if (numbers != NULL)
                assay_chat_view_add_check_notice (self, numbers);
            }
          for (guint k = 0; k < step->cells->len; k++)
            {
              AssaySessionCell *cell = g_ptr_array_index (step->cells, k);

              assay_chat_view_show_cell (card, session, cell);
              /* A step that never finished (Assay was closed in the middle of it). */
              if (step->interrupted)
                assay_step_card_cell_finished (card,
                                               cell->id,
                                               ASSAY_CELL_INTERRUPTED,
                                               NULL,
                                               cell->elapsed_ms);
            }
          if (step->is_answer)
            {
              assay_chat_view_add_answer (self, step->text ? step->text : "", step->provenance);
              assay_chat_view_add_untraced_notice (self, step->provenance);
            }
        }
    }
  self->current_card = NULL;
  assay_chat_view_update_usage (self, session);
}

AssayChangesCard *
assay_chat_view_get_changes_card (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  return self->changes_card != NULL ? ASSAY_CHANGES_CARD (self->changes_card) : NULL;
}

gboolean
assay_chat_view_reveal_changes (AssayChatView *self)
{
  GtkAdjustment *adjustment;

  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), FALSE);
  if (self->changes_card == NULL)
    return FALSE;
  /* The card is the first message: the top, and the view stops following the bottom (set
   * after the value, whose change would otherwise decide it from the old layout). */
  adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_lower (adjustment));
  self->stick_to_bottom = FALSE;
  gtk_widget_grab_focus (self->changes_card);
  return TRUE;
}

/* ---- following the conversation -------------------------------------------------------- */

static AssayStepCard *
assay_chat_view_card_for_cell (AssayChatView *self,
                               AssayAgent    *agent,
                               const char    *cell_id)
{
  AssayStepCard *card = assay_chat_view_find_cell_card (self, cell_id);

  if (card == NULL)
    card = self->current_card;
  if (card == NULL)
    card = assay_chat_view_begin_step (self, 1, assay_agent_get_max_steps (agent));
  return card;
}

static void
assay_chat_view_agent_step_cb (AssayChatView *self,
                               guint          n,
                               guint          max,
                               AssayAgent    *agent)
{
  AssayStepCard *card = assay_chat_view_begin_step (self, n, max);
  AssaySession *session = self->conversation != NULL ? assay_conversation_get_session (self->conversation) : NULL;

  assay_step_card_set_working (card, TRUE);
  /* The agent numbers steps across the session, the finished ones and this one. A recorded
   * demo sends nothing to a model server. */
  if (session != NULL && !assay_conversation_get_recorded (self->conversation))
    assay_step_card_set_session_step (card, assay_session_get_n_steps (session) + 1);
}

static void
assay_chat_view_agent_text_delta_cb (AssayChatView *self,
                                     const char    *text,
                                     AssayAgent    *agent)
{
  assay_chat_view_hide_retry (self);
  if (self->current_card != NULL)
    assay_step_card_append_text (self->current_card, text);
}

static void
assay_chat_view_agent_code_delta_cb (AssayChatView *self,
                                     guint          index,
                                     const char    *call_id,
                                     const char    *text,
                                     AssayAgent    *agent)
{
  assay_chat_view_hide_retry (self);
}

static void
assay_chat_view_agent_checking_cb (AssayChatView *self,
                                   const char    *numbers,
                                   AssayAgent    *agent)
{
  /* The draft is not an answer: its card goes, a line says what happened. */
  if (self->current_card != NULL)
    {
      assay_step_card_set_working (self->current_card, FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->current_card), FALSE);
    }
  self->current_card = NULL;
  assay_chat_view_add_check_notice (self, numbers);
}

static void
assay_chat_view_agent_retrying_cb (AssayChatView *self,
                                   guint          attempt,
                                   guint          delay_ms,
                                   const char    *reason,
                                   AssayAgent    *agent)
{
  assay_chat_view_show_retry (self, attempt, delay_ms, reason);
}

/* A run_sql cell shows its SQL in its card, highlighted: what is approved, then what runs. */
static void
assay_chat_view_show_running_query (AssayStepCard *card,
                                    AssayAgent    *agent,
                                    const char    *cell_id,
                                    const char    *sql)
{
  AssaySessionCell *cell = assay_session_find_cell (assay_agent_get_session (agent), cell_id);

  if (cell != NULL && cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL)
    assay_step_card_cell_query (card, cell_id, sql, cell->query->database, cell->query->frame);
}

static void
assay_chat_view_agent_approval_needed_cb (AssayChatView *self,
                                          const char    *cell_id,
                                          const char    *code,
                                          const char    *description,
                                          AssayAgent    *agent)
{
  AssayStepCard *card = assay_chat_view_card_for_cell (self, agent, cell_id);

  assay_step_card_add_cell (card, cell_id, description);
  assay_chat_view_show_running_query (card, agent, cell_id, code);
}

static void
assay_chat_view_agent_cell_started_cb (AssayChatView *self,
                                       const char    *cell_id,
                                       const char    *code,
                                       AssayAgent    *agent)
{
  AssaySessionCell *cell = assay_session_find_cell (assay_agent_get_session (agent), cell_id);
  AssayStepCard *card = assay_chat_view_card_for_cell (self, agent, cell_id);

  assay_step_card_add_cell (card, cell_id, cell ? cell->description : NULL);
  if (cell != NULL && cell->decision == ASSAY_DECISION_EDITED)
    assay_step_card_cell_edited (card, cell_id);
  assay_step_card_cell_started (card, cell_id);
  assay_chat_view_show_running_query (card, agent, cell_id, code);
}

static void
assay_chat_view_agent_output_cb (AssayChatView *self,
                                 const char    *cell_id,
                                 JsonObject    *output,
                                 AssayAgent    *agent)
{
  assay_step_card_cell_output (assay_chat_view_card_for_cell (self, agent, cell_id), cell_id, output);
}

static void
assay_chat_view_agent_artifact_added_cb (AssayChatView *self,
                                         const char    *cell_id,
                                         const char    *name,
                                         const char    *path,
                                         AssayAgent    *agent)
{
  assay_step_card_cell_artifact (assay_chat_view_card_for_cell (self, agent, cell_id), cell_id, name, path);
}

static void
assay_chat_view_agent_cell_finished_cb (AssayChatView   *self,
                                        const char      *cell_id,
                                        AssayCellResult *result,
                                        AssayAgent      *agent)
{
  AssayStepCard *card = assay_chat_view_card_for_cell (self, agent, cell_id);
  AssaySessionCell *cell = assay_session_find_cell (assay_agent_get_session (agent), cell_id);
  gint64 elapsed_ms = assay_cell_result_get_elapsed_ms (result);
  gboolean query = cell != NULL && cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL;

  /* A query's time is the server's and the kernel's load of its result, as the record has it. */
  if (query && assay_cell_result_get_status (result) == ASSAY_CELL_OK)
    elapsed_ms += MAX (cell->query->query_ms, 0);
  assay_step_card_cell_finished (card, cell_id,
                                 assay_cell_result_get_status (result),
                                 assay_cell_result_get_reason (result),
                                 elapsed_ms);
  assay_step_card_cell_checks (card, cell_id, assay_cell_result_get_checks (result));
  /* A query: the rows, columns and time of its result. */
  if (query)
    assay_step_card_cell_query_result (card, cell_id, cell->query, NULL);
}

static void
assay_chat_view_agent_restoring_cb (AssayChatView *self,
                                    guint          done,
                                    guint          total,
                                    AssayAgent    *agent)
{
  AssaySession *session = assay_agent_get_session (agent);
  g_autofree char *text = NULL;
  guint queries = 0;

  if (done != 0)
    return;
  /* The queries' DataFrames come back from their cached results, not from the databases. */
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);

      g_autofree char *path = NULL;

      if (cell->kind == ASSAY_CELL_KIND_SQL && assay_session_cell_succeeded (cell) && cell->query != NULL &&
          cell->query->result != NULL && (path = assay_session_resolve (session, cell->query->result)) != NULL &&
          g_file_test (path, G_FILE_TEST_IS_REGULAR))
        queries++;
    }
  queries = MIN (queries, total);
  if (total > queries)
    {
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "Restoring the session: running its %u successful cell again…",
                                           "Restoring the session: running its %u successful cells again…",
                                           total - queries), total - queries);
      assay_chat_view_add_notice (self, text, FALSE);
      g_clear_pointer (&text, g_free);
    }
  if (queries > 0 && assay_agent_get_requery (agent))
    {
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "Restoring the session: its %u query is asked again of its database…",
                                           "Restoring the session: its %u queries are asked again of their databases…",
                                           queries), queries);
      assay_chat_view_add_notice (self, text, FALSE);
    }
  else if (queries > 0)
    {
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "Restoring the session: %u query result comes back from the session’s "
                                           "cached results, without querying the database…",
                                           "Restoring the session: %u query results come back from the session’s "
                                           "cached results, without querying the databases…",
                                           queries), queries);
      assay_chat_view_add_notice (self, text, FALSE);
    }
}

static void
assay_chat_view_agent_requeried_cb (AssayChatView *self,
                                    const char    *cell_id,
                                    gint64         rows,
                                    const char    *problem,
                                    AssayAgent    *agent)
{
  g_autofree char *text = NULL;

  if (problem != NULL)
    text = g_strdup_printf (_("The query of cell %s could not be asked again (%s): its cached result is used."),
                            cell_id, problem);
  else
    {
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, rows);

      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "The query of cell %s was asked again: %s row now.",
                                           "The query of cell %s was asked again: %s rows now.",
                                           (gulong) MIN (rows, G_MAXLONG)),
                              cell_id, count);
    }
  assay_chat_view_add_notice (self, text, problem != NULL);
}

static void
assay_chat_view_agent_error_cb (AssayChatView *self,
                                const char    *message,
                                AssayAgent    *agent)
{
  assay_chat_view_add_notice (self, message, TRUE);
}

static void
assay_chat_view_conversation_asked_cb (AssayChatView *self,
                                       const char    *question)
{
  assay_chat_view_add_question (self, question);
}

static void
assay_chat_view_conversation_finished_cb (AssayChatView *self,
                                          int            outcome,
                                          const char    *text)
{
  if (outcome == ASSAY_AGENT_ANSWERED)
    {
      AssaySession *session = assay_conversation_get_session (self->conversation);
      GPtrArray *messages = session != NULL ? assay_session_get_messages (session) : NULL;
      const AssayProvenance *provenance = messages != NULL && messages->len > 0
                                          ? assay_session_get_provenance (session, messages->len - 1) : NULL;

      assay_chat_view_add_answer (self, text != NULL ? text : "", provenance);
      assay_chat_view_add_untraced_notice (self, provenance);
    }
  else if (text != NULL)
    assay_chat_view_add_notice (self, text,
                                outcome == ASSAY_AGENT_MODEL_ERROR || outcome == ASSAY_AGENT_SANDBOX_ERROR);
}

static void
assay_chat_view_conversation_rewritten_cb (AssayChatView *self,
                                           const char    *rewrite)
{
  if (self->changes_card != NULL)
    assay_changes_card_show_rewrite (ASSAY_CHANGES_CARD (self->changes_card), rewrite);
}

static void
assay_chat_view_conversation_responded_cb (AssayChatView *self,
                                           const char    *cell_id,
                                           int            response,
                                           const char    *text)
{
  AssayAgent *agent = assay_conversation_get_agent (self->conversation);

  if (response == ASSAY_APPROVAL_REJECT && agent != NULL)
    assay_step_card_cell_rejected (assay_chat_view_card_for_cell (self, agent, cell_id), cell_id, text);
}

/* A question that stopped at the model server: what happened, with Change Server and Try
 * Again (the window's actions), until the next question or session. */
static void
assay_chat_view_conversation_server_problem_cb (AssayChatView *self)
{
  const char *problem = self->conversation != NULL ? assay_conversation_get_server_problem (self->conversation)
                                                   : NULL;

  if (problem != NULL)
    gtk_label_set_text (self->server_label, problem);
  gtk_revealer_set_reveal_child (self->server_revealer, problem != NULL);
}

gboolean
assay_chat_view_get_server_problem_visible (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), FALSE);
  return gtk_revealer_get_reveal_child (self->server_revealer);
}

static void
assay_chat_view_conversation_busy_cb (AssayChatView *self)
{
  assay_chat_view_set_busy (self, assay_conversation_get_busy (self->conversation));
}

/* A new session (or none): the conversation shows what it has recorded. */
static void
assay_chat_view_conversation_session_cb (AssayChatView *self)
{
  AssaySession *session = assay_conversation_get_session (self->conversation);

  if (session == NULL)
    assay_chat_view_clear (self);
  else
    assay_chat_view_show_session (self, session, assay_conversation_get_max_steps (self->conversation));
}

void
assay_chat_view_set_conversation (AssayChatView     *self,
                                  AssayConversation *conversation)
{
  g_return_if_fail (ASSAY_IS_CHAT_VIEW (self));
  g_return_if_fail (conversation == NULL || ASSAY_IS_CONVERSATION (conversation));

  if (self->conversation == conversation)
    return;
  g_clear_pointer (&self->agent_binding, g_binding_unbind);
  g_signal_group_set_target (self->agent_signals, NULL);
  g_signal_group_set_target (self->conversation_signals, conversation);
  g_set_object (&self->conversation, conversation);
  assay_chat_view_conversation_server_problem_cb (self);
  if (conversation == NULL)
    return;
  self->agent_binding = g_object_bind_property (conversation, "agent", self->agent_signals, "target",
                                                G_BINDING_SYNC_CREATE);
  assay_chat_view_conversation_busy_cb (self);
}

AssayConversation *
assay_chat_view_get_conversation (AssayChatView *self)
{
  g_return_val_if_fail (ASSAY_IS_CHAT_VIEW (self), NULL);
  return self->conversation;
}

static void
assay_chat_view_setup_signal_groups (AssayChatView *self)
{
  static const char * const usage_signals[] = { "step", "approval-needed", "cell-started", "checking" };

  self->agent_signals = g_signal_group_new (ASSAY_TYPE_AGENT);
  g_signal_group_connect_object (self->agent_signals,
                                 "step",
                                 G_CALLBACK (assay_chat_view_agent_step_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "text-delta",
                                 G_CALLBACK (assay_chat_view_agent_text_delta_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "checking",
                                 G_CALLBACK (assay_chat_view_agent_checking_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "code-delta",
                                 G_CALLBACK (assay_chat_view_agent_code_delta_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "retrying",
                                 G_CALLBACK (assay_chat_view_agent_retrying_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "approval-needed",
                                 G_CALLBACK (assay_chat_view_agent_approval_needed_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "cell-started",
                                 G_CALLBACK (assay_chat_view_agent_cell_started_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "output",
                                 G_CALLBACK (assay_chat_view_agent_output_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "artifact-added",
                                 G_CALLBACK (assay_chat_view_agent_artifact_added_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "cell-finished",
                                 G_CALLBACK (assay_chat_view_agent_cell_finished_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "restoring",
                                 G_CALLBACK (assay_chat_view_agent_restoring_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "requeried",
                                 G_CALLBACK (assay_chat_view_agent_requeried_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "error",
                                 G_CALLBACK (assay_chat_view_agent_error_cb),
                                 self,
                                 G_CONNECT_SWAPPED);

  /* The tokens and cost of each step, once its request is recorded. */
  for (guint i = 0; i < G_N_ELEMENTS (usage_signals); i++)
    g_signal_group_connect_object (self->agent_signals,
                                   usage_signals[i],
                                   G_CALLBACK (assay_chat_view_usage_changed_cb),
                                   self,
                                   G_CONNECT_SWAPPED | G_CONNECT_AFTER);

  self->conversation_signals = g_signal_group_new (ASSAY_TYPE_CONVERSATION);
  g_signal_group_connect_object (self->conversation_signals,
                                 "asked",
                                 G_CALLBACK (assay_chat_view_conversation_asked_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->conversation_signals,
                                 "finished",
                                 G_CALLBACK (assay_chat_view_conversation_finished_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->conversation_signals,
                                 "rewritten",
                                 G_CALLBACK (assay_chat_view_conversation_rewritten_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->conversation_signals,
                                 "finished",
                                 G_CALLBACK (assay_chat_view_usage_changed_cb),
                                 self,
                                 G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_group_connect_object (self->conversation_signals,
                                 "asked",
                                 G_CALLBACK (assay_chat_view_question_usage_cb),
                                 self,
                                 G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_group_connect_object (self->conversation_signals,
                                 "responded",
                                 G_CALLBACK (assay_chat_view_conversation_responded_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->conversation_signals,
                                 "notify::server-problem",
                                 G_CALLBACK (assay_chat_view_conversation_server_problem_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->conversation_signals,
                                 "notify::busy",
                                 G_CALLBACK (assay_chat_view_conversation_busy_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->conversation_signals,
                                 "notify::session",
                                 G_CALLBACK (assay_chat_view_conversation_session_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
}

static void
assay_chat_view_dispose (GObject *object)
{
  AssayChatView *self = ASSAY_CHAT_VIEW (object);
  GtkWidget *child;

  assay_chat_view_set_conversation (self, NULL);
  g_clear_object (&self->agent_signals);
  g_clear_object (&self->conversation_signals);
  g_clear_handle_id (&self->retry_source, g_source_remove);
  if (self->follow_tick != 0 && self->scroller != NULL)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->scroller), self->follow_tick);
  self->follow_tick = 0;
  if (self->cards != NULL)
    g_ptr_array_set_size (self->cards, 0);
  self->current_card = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_CHAT_VIEW);
  /* The template's root box is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_chat_view_parent_class)->dispose (object);
}

static void
assay_chat_view_finalize (GObject *object)
{
  AssayChatView *self = ASSAY_CHAT_VIEW (object);

  g_ptr_array_unref (self->cards);
  g_free (self->retry_reason);
  G_OBJECT_CLASS (assay_chat_view_parent_class)->finalize (object);
}

static void
assay_chat_view_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  assay_comfort_bin_measure (widget, CHAT_COMFORT_WIDTH, orientation, for_size, minimum, natural,
                             minimum_baseline, natural_baseline);
}

static void
assay_chat_view_class_init (AssayChatViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_chat_view_dispose;
  object_class->finalize = assay_chat_view_finalize;

  assay_app_ensure_resources ();
  g_type_ensure (ASSAY_TYPE_STEP_CARD);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-chat-view.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, retry_revealer);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, retry_label);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, server_revealer);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, server_label);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, content_stack);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, scroller);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, loading_spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, messages_box);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, empty_page);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, sources_box);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, composer_box);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, composer_view);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, stop_button);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, send_button);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, usage_bar);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, question_usage_label);
  gtk_widget_class_bind_template_child (widget_class, AssayChatView, session_usage_label);
  widget_class->get_request_mode = assay_comfort_bin_get_request_mode;
  widget_class->measure = assay_chat_view_measure;
  widget_class->size_allocate = assay_comfort_bin_size_allocate;
}

static void
assay_chat_view_init (AssayChatView *self)
{
  GtkEventController *keys;
  GtkAdjustment *adjustment;

  gtk_widget_init_template (GTK_WIDGET (self));
  assay_revealer_hide_child_when_closed (self->retry_revealer);
  assay_revealer_hide_child_when_closed (self->server_revealer);
  self->cards = g_ptr_array_new ();
  assay_chat_view_setup_signal_groups (self);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (assay_chat_view_composer_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->composer_view), keys);

  adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);
  g_signal_connect_object (adjustment,
                           "changed",
                           G_CALLBACK (assay_chat_view_adjustment_changed_cb),
                           self,
                           0);
  g_signal_connect_object (adjustment,
                           "value-changed",
                           G_CALLBACK (assay_chat_view_adjustment_value_changed_cb),
                           self,
                           0);
}

GtkWidget *
assay_chat_view_new (void)
{
  return g_object_new (ASSAY_TYPE_CHAT_VIEW, NULL);
}
