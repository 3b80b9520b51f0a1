/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "assay-agent.h"
#include "assay-code-review.h"
#include "assay-comfort-bin.h"
#include "assay-conversation.h"
#include "assay-diff.h"

/* The code pane reads well from this width on (about 50 characters of code); narrower,
 * the window shows it as a page of its own (an AdwLeaflet folds). */
#define CODE_COMFORT_WIDTH 400

struct _AssayCodeReview
{
  GtkWidget      parent_instance;

  GtkLabel      *title_label;
  GtkLabel      *description_label;
  GtkLabel      *privacy_label;
  GtkStack      *stack;
  GtkSourceView *source_view;
  GtkSourceView *diff_view;
  /* The languages are loaded after the window's first frame (GtkSourceView reads every
   * language file then, a tenth of Assay's start-up), or when code first comes. */
  gboolean       languages_set;
  guint          languages_idle;
  GtkRevealer   *reject_revealer;
  GtkEntry      *reason_entry;
  GtkSwitch     *auto_switch;
  GtkWidget     *run_button;

  char          *cell_id;        /* the cell waiting for approval, or NULL */
  char          *proposed_code;  /* as the model wrote it */
  char          *previous_code;  /* the attempt before, for the diff */
  char          *diff;
  gboolean       editing;
  gboolean       show_diff;
  gboolean       streaming;      /* code of the current turn is arriving */
  gboolean       stale;          /* what is shown belongs to an earlier turn */

  AssayConversation *conversation;
  GSignalGroup  *agent_signals;  /* on the conversation's agent */
  GSignalGroup  *conversation_signals;
  GBinding      *agent_binding;
  GBinding      *auto_run_binding;
};

G_DEFINE_FINAL_TYPE (AssayCodeReview, assay_code_review, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_AUTO_RUN,
  PROP_EDITING,
  PROP_SHOW_DIFF,
  N_PROPS
};

enum {
  RESPOND,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static GtkSourceBuffer *
assay_code_review_code_buffer (AssayCodeReview *self)
{
  return GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view)));
}

char *
assay_code_review_get_code (AssayCodeReview *self)
{
  GtkTextIter start, end;
  GtkTextBuffer *buffer;

  g_return_val_if_fail (ASSAY_IS_CODE_REVIEW (self), NULL);
  buffer = GTK_TEXT_BUFFER (assay_code_review_code_buffer (self));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* Python for the code (until a cell says otherwise), and the diff of attempts. */
static void
assay_code_review_ensure_languages (AssayCodeReview *self)
{
  GtkSourceLanguageManager *languages;
  GtkTextBuffer *diff_buffer;

  g_clear_handle_id (&self->languages_idle, g_source_remove);
  if (self->languages_set)
    return;
  self->languages_set = TRUE;
  languages = gtk_source_language_manager_get_default ();
  if (gtk_source_buffer_get_language (assay_code_review_code_buffer (self)) == NULL)
    gtk_source_buffer_set_language (assay_code_review_code_buffer (self),
                                    gtk_source_language_manager_get_language (languages, "python3"));
  diff_buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->diff_view));
  gtk_source_buffer_set_language (GTK_SOURCE_BUFFER (diff_buffer),
                                  gtk_source_language_manager_get_language (languages, "diff"));
}

static gboolean
assay_code_review_languages_idle_cb (gpointer user_data)
{
  AssayCodeReview *self = user_data;

  self->languages_idle = 0;
  assay_code_review_ensure_languages (self);
  return G_SOURCE_REMOVE;
}

static void
assay_code_review_after_first_paint_cb (GdkFrameClock   *clock,
                                        AssayCodeReview *self)
{
  g_signal_handlers_disconnect_by_func (clock, assay_code_review_after_first_paint_cb, self);
  if (!self->languages_set && self->languages_idle == 0)
    self->languages_idle = g_idle_add (assay_code_review_languages_idle_cb, self);
}

static void
assay_code_review_realize_cb (AssayCodeReview *self)
{
  if (!self->languages_set)
    g_signal_connect_object (gtk_widget_get_frame_clock (GTK_WIDGET (self)), "after-paint",
                             G_CALLBACK (assay_code_review_after_first_paint_cb), self, 0);
}

/* Python for a cell, SQL for a run_sql query (the session's cell says which). */
static void
assay_code_review_set_kind (AssayCodeReview *self,
                            AssayCellKind    kind)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  const char *id = kind == ASSAY_CELL_KIND_SQL ? "sql" : "python3";
  GtkSourceLanguage *current;

  assay_code_review_ensure_languages (self);
  current = gtk_source_buffer_get_language (assay_code_review_code_buffer (self));
  if (current != NULL && g_strcmp0 (gtk_source_language_get_id (current), id) == 0)
    return;
  gtk_source_buffer_set_language (assay_code_review_code_buffer (self),
                                  gtk_source_language_manager_get_language (languages, id));
  /* A query is often one long line: wrapped, it is read whole; Python keeps its lines. */
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (self->source_view),
                               kind == ASSAY_CELL_KIND_SQL ? GTK_WRAP_WORD_CHAR : GTK_WRAP_NONE);
}

/* The kind of the session's cell CELL_ID (Python when it is not known). */
static AssayCellKind
assay_code_review_cell_kind (AssayCodeReview   *self,
                             const char        *cell_id,
                             AssaySessionCell **found)
{
  AssaySession *session = self->conversation != NULL ? assay_conversation_get_session (self->conversation) : NULL;
  AssaySessionCell *cell = session != NULL && cell_id != NULL ? assay_session_find_cell (session, cell_id) : NULL;

  if (found != NULL)
    *found = cell;
  return cell != NULL ? cell->kind : ASSAY_CELL_KIND_PYTHON;
}

const char *
assay_code_review_get_language (AssayCodeReview *self)
{
  GtkSourceLanguage *language;

  g_return_val_if_fail (ASSAY_IS_CODE_REVIEW (self), NULL);
  assay_code_review_ensure_languages (self);
  language = gtk_source_buffer_get_language (assay_code_review_code_buffer (self));
  return language != NULL ? gtk_source_language_get_id (language) : NULL;
}

/* The code's text cursor is shown while it is edited. GTK 4.8 leaves the cursor's blink
 * running when the view loses the focus with the cursor shown (a click on Run or Reject takes
 * the focus first), until the blink times out seconds later; it looks at the blink again only
 * when the cursor is shown or hidden while the view has the focus. A blink that finds the
 * cursor hidden aborts the app (gtktextview.c, blink_cb: "assertion failed:
 * (cursor_visible (text_view))"). So the cursor is hidden only while the view has the focus,
 * which stops the blink; a view without it keeps its cursor (it draws none unfocused) until
 * it gets the focus again. */
static void
assay_code_review_update_cursor (AssayCodeReview *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (self->source_view);
  gboolean shown = self->cell_id != NULL && self->editing;

  if (shown || gtk_widget_has_focus (GTK_WIDGET (view)))
    gtk_text_view_set_cursor_visible (view, shown);
}

/* The one place that decides which actions are enabled. */
static void
assay_code_review_update_actions (AssayCodeReview *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (assay_code_review_code_buffer (self));
  gboolean waiting = self->cell_id != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "review.run", waiting);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "review.edit", waiting);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "review.reject", waiting);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "review.confirm-reject", waiting);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "review.copy",
                                 gtk_text_buffer_get_char_count (buffer) > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "review.toggle-diff", self->diff != NULL);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->source_view), waiting && self->editing);
  assay_code_review_update_cursor (self);
  if (!waiting)
    gtk_revealer_set_reveal_child (self->reject_revealer, FALSE);
}

static void
assay_code_review_set_editing (AssayCodeReview *self,
                               gboolean         editing)
{
  if (self->editing == editing)
    return;
  self->editing = editing;
  if (editing)
    {
      gtk_stack_set_visible_child_name (self->stack, "code");
      gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
    }
  assay_code_review_update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITING]);
}

static void
assay_code_review_set_show_diff (AssayCodeReview *self,
                                 gboolean         show_diff)
{
  show_diff = show_diff && self->diff != NULL;
  if (self->show_diff == show_diff)
    return;
  self->show_diff = show_diff;
  gtk_stack_set_visible_child_name (self->stack, show_diff ? "diff" : "code");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_DIFF]);
}

static void
assay_code_review_set_code (AssayCodeReview *self,
                            const char      *code)
{
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (assay_code_review_code_buffer (self)), code ? code : "", -1);
  gtk_stack_set_visible_child_name (self->stack, self->show_diff ? "diff" : "code");
}

void
assay_code_review_begin (AssayCodeReview *self)
{
  g_return_if_fail (ASSAY_IS_CODE_REVIEW (self));
  g_clear_pointer (&self->cell_id, g_free);
  assay_code_review_set_editing (self, FALSE);
  /* The last cell stays in sight until the model starts writing the next one; a retry
   * voids what streamed of this turn. */
  if (self->streaming)
    assay_code_review_set_code (self, "");
  self->streaming = FALSE;
  self->stale = TRUE;
  assay_code_review_update_actions (self);
}

void
assay_code_review_append_code (AssayCodeReview *self,
                               const char      *text)
{
  GtkTextIter end;
  GtkTextBuffer *buffer;

  g_return_if_fail (ASSAY_IS_CODE_REVIEW (self));
  if (self->stale)
    {
      self->stale = FALSE;
      assay_code_review_set_show_diff (self, FALSE);
      assay_code_review_set_code (self, "");
      gtk_label_set_text (self->title_label, _("The model is writing code…"));
      gtk_widget_set_visible (GTK_WIDGET (self->description_label), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->privacy_label), FALSE);
    }
  self->streaming = TRUE;
  /* Only execute_python's code streams. */
  assay_code_review_set_kind (self, ASSAY_CELL_KIND_PYTHON);
  buffer = GTK_TEXT_BUFFER (assay_code_review_code_buffer (self));
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, text, -1);
  gtk_stack_set_visible_child_name (self->stack, "code");
  assay_code_review_update_actions (self);
}

static void
assay_code_review_remember_attempt (AssayCodeReview *self,
                                    const char      *code)
{
  g_autofree char *diff = NULL;

  g_clear_pointer (&self->diff, g_free);
  if (self->previous_code != NULL && g_strcmp0 (self->previous_code, code) != 0)
    {
      diff = assay_diff_unified (self->previous_code, code, _("previous attempt"), _("this attempt"), 3);
      self->diff = g_steal_pointer (&diff);
      assay_code_review_ensure_languages (self);
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->diff_view)), self->diff, -1);
    }
  g_free (self->previous_code);
  self->previous_code = g_strdup (code);
}

void
assay_code_review_request (AssayCodeReview *self,
                           const char      *cell_id,
                           const char      *code,
                           const char      *description)
{
  g_return_if_fail (ASSAY_IS_CODE_REVIEW (self));
  g_free (self->cell_id);
  self->cell_id = g_strdup (cell_id);
  g_free (self->proposed_code);
  self->proposed_code = g_strdup (code);
  assay_code_review_remember_attempt (self, code);
  self->streaming = FALSE;
  self->stale = FALSE;
  assay_code_review_set_editing (self, FALSE);
  assay_code_review_set_show_diff (self, FALSE);
  assay_code_review_set_code (self, code);
  gtk_label_set_text (self->title_label, _("Run this code?"));
  gtk_label_set_text (self->description_label, description ? description : "");
  gtk_widget_set_visible (GTK_WIDGET (self->description_label), description && *description);
  gtk_editable_set_text (GTK_EDITABLE (self->reason_entry), "");
  assay_code_review_update_actions (self);
  gtk_widget_grab_focus (self->run_button);
}

void
assay_code_review_show (AssayCodeReview *self,
                        const char      *code)
{
  g_return_if_fail (ASSAY_IS_CODE_REVIEW (self));
  /* An approved cell was remembered already; an automatic one is remembered here. */
  if (self->cell_id == NULL && g_strcmp0 (code, self->previous_code) != 0 &&
      g_strcmp0 (self->proposed_code, code) != 0)
    assay_code_review_remember_attempt (self, code);
  g_clear_pointer (&self->cell_id, g_free);
  self->streaming = FALSE;
  self->stale = FALSE;
  assay_code_review_set_editing (self, FALSE);
  assay_code_review_set_code (self, code);
  gtk_label_set_text (self->title_label, _("Ran"));
  assay_code_review_update_actions (self);
}

void
assay_code_review_reset (AssayCodeReview *self)
{
  g_return_if_fail (ASSAY_IS_CODE_REVIEW (self));
  g_clear_pointer (&self->cell_id, g_free);
  g_clear_pointer (&self->proposed_code, g_free);
  g_clear_pointer (&self->previous_code, g_free);
  g_clear_pointer (&self->diff, g_free);
  self->streaming = FALSE;
  self->stale = FALSE;
  assay_code_review_set_editing (self, FALSE);
  assay_code_review_set_show_diff (self, FALSE);
  assay_code_review_set_code (self, "");
  gtk_stack_set_visible_child_name (self->stack, "empty");
  gtk_label_set_text (self->title_label, _("Code"));
  gtk_widget_set_visible (GTK_WIDGET (self->description_label), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->privacy_label), FALSE);
  assay_code_review_update_actions (self);
}

const char *
assay_code_review_get_cell_id (AssayCodeReview *self)
{
  g_return_val_if_fail (ASSAY_IS_CODE_REVIEW (self), NULL);
  return self->cell_id;
}

gboolean
assay_code_review_get_waiting (AssayCodeReview *self)
{
  g_return_val_if_fail (ASSAY_IS_CODE_REVIEW (self), FALSE);
  return self->cell_id != NULL;
}

const char *
assay_code_review_get_diff (AssayCodeReview *self)
{
  g_return_val_if_fail (ASSAY_IS_CODE_REVIEW (self), NULL);
  return self->diff;
}

gboolean
assay_code_review_get_auto_run (AssayCodeReview *self)
{
  g_return_val_if_fail (ASSAY_IS_CODE_REVIEW (self), FALSE);
  return gtk_switch_get_active (self->auto_switch);
}

void
assay_code_review_set_auto_run (AssayCodeReview *self,
                                gboolean         auto_run)
{
  g_return_if_fail (ASSAY_IS_CODE_REVIEW (self));
  gtk_switch_set_active (self->auto_switch, auto_run);
}

static void
assay_code_review_respond (AssayCodeReview *self,
                           int              response,
                           const char      *text)
{
  g_autofree char *cell_id = g_steal_pointer (&self->cell_id);

  if (cell_id == NULL)
    return;
  assay_code_review_set_editing (self, FALSE);
  gtk_label_set_text (self->title_label, response == ASSAY_APPROVAL_REJECT ? _("Rejected") : _("Code"));
  assay_code_review_update_actions (self);
  g_signal_emit (self, signals[RESPOND], 0, cell_id, response, text);
  if (self->conversation != NULL)
    assay_conversation_respond (self->conversation, cell_id, response, text);
}

static void
assay_code_review_run_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (widget);
  g_autofree char *code = assay_code_review_get_code (self);

  /* What runs is the code shown: edits stay edits after Edit is turned off. */
  if (g_strcmp0 (code, self->proposed_code) != 0)
    assay_code_review_respond (self, ASSAY_APPROVAL_EDIT, code);
  else
    assay_code_review_respond (self, ASSAY_APPROVAL_RUN, NULL);
}

static void
assay_code_review_reject_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *parameter)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (widget);

  gtk_revealer_set_reveal_child (self->reject_revealer, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->reason_entry));
}

static void
assay_code_review_confirm_reject_action (GtkWidget  *widget,
                                         const char *action_name,
                                         GVariant   *parameter)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (widget);
  g_autofree char *reason = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->reason_entry)));

  g_strstrip (reason);
  gtk_revealer_set_reveal_child (self->reject_revealer, FALSE);
  assay_code_review_respond (self, ASSAY_APPROVAL_REJECT, *reason ? reason : NULL);
}

static void
assay_code_review_reason_activate_cb (AssayCodeReview *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "review.confirm-reject", NULL);
}

static void
assay_code_review_copy_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (widget);
  g_autofree char *code = assay_code_review_get_code (self);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), code);
}

static void
assay_code_review_update_style_scheme (AssayCodeReview *self)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  const char *id = adw_style_manager_get_dark (manager) ? "Adwaita-dark" : "Adwaita";
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (schemes, id);
  GtkTextBuffer *diff_buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->diff_view));

  gtk_source_buffer_set_style_scheme (assay_code_review_code_buffer (self), scheme);
  gtk_source_buffer_set_style_scheme (GTK_SOURCE_BUFFER (diff_buffer), scheme);
}

static void
assay_code_review_buffer_changed_cb (AssayCodeReview *self)
{
  assay_code_review_update_actions (self);
}

static void
assay_code_review_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (object);

  switch (prop_id)
    {
    case PROP_AUTO_RUN:
      g_value_set_boolean (value, assay_code_review_get_auto_run (self));
      break;
    case PROP_EDITING:
      g_value_set_boolean (value, self->editing);
      break;
    case PROP_SHOW_DIFF:
      g_value_set_boolean (value, self->show_diff);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_code_review_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (object);

  switch (prop_id)
    {
    case PROP_AUTO_RUN:
      assay_code_review_set_auto_run (self, g_value_get_boolean (value));
      break;
    case PROP_EDITING:
      assay_code_review_set_editing (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_DIFF:
      assay_code_review_set_show_diff (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_code_review_auto_switch_notify_cb (AssayCodeReview *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_RUN]);
  /* A cell waiting right now runs too: that is what the switch says. */
  if (gtk_switch_get_active (self->auto_switch) && self->cell_id != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "review.run", NULL);
}

/* ---- following the conversation -------------------------------------------------------- */

static void
assay_code_review_agent_step_cb (AssayCodeReview *self)
{
  assay_code_review_begin (self);
}

static void
assay_code_review_agent_code_delta_cb (AssayCodeReview *self,
                                       guint            index,
                                       const char      *call_id,
                                       const char      *text)
{
  assay_code_review_append_code (self, text);
}

static void
assay_code_review_agent_approval_needed_cb (AssayCodeReview *self,
                                            const char      *cell_id,
                                            const char      *code,
                                            const char      *description)
{
  AssaySession *session = self->conversation != NULL ? assay_conversation_get_session (self->conversation) : NULL;
  AssayPrivacyMode mode = session != NULL ? assay_session_get_privacy_mode (session) : ASSAY_PRIVACY_FULL;
  AssaySessionCell *cell = NULL;
  AssayCellKind kind = assay_code_review_cell_kind (self, cell_id, &cell);

  assay_code_review_set_kind (self, kind);
  assay_code_review_request (self, cell_id, code, description);
  if (kind == ASSAY_CELL_KIND_SQL && cell != NULL && cell->query != NULL)
    {
      /* Translators: over a query waiting for approval: the database, the DataFrame it makes. */
      g_autofree char *title = g_strdup_printf (_("Run this query on %s into %s?"), cell->query->database,
                                                cell->query->frame);

      gtk_label_set_text (self->title_label, title);
    }
  /* What the model wrote this code from: the analyst judges it knowing that. */
  if (mode == ASSAY_PRIVACY_MASKED)
    gtk_label_set_text (self->privacy_label,
                        _("Masked columns: the model saw placeholders for their values; the code shows the "
                          "real values it will run with."));
  else if (mode == ASSAY_PRIVACY_SCHEMA)
    gtk_label_set_text (self->privacy_label,
                        _("Schema only: the model saw the columns and the shapes of results, no value from "
                          "the data."));
  gtk_widget_set_visible (GTK_WIDGET (self->privacy_label), mode != ASSAY_PRIVACY_FULL);
}

static void
assay_code_review_agent_cell_started_cb (AssayCodeReview *self,
                                         const char      *cell_id,
                                         const char      *code)
{
  assay_code_review_set_kind (self, assay_code_review_cell_kind (self, cell_id, NULL));
  assay_code_review_show (self, code);
}

/* The cell is no longer waiting (stopped, the question ended): the view lets go of it. */
static void
assay_code_review_conversation_waiting_cb (AssayCodeReview *self)
{
  if (self->cell_id != NULL && assay_conversation_get_waiting (self->conversation) == NULL)
    assay_code_review_begin (self);
}

/* Another session: the view shows its last cell, as it was when the session was left. */
static void
assay_code_review_conversation_session_cb (AssayCodeReview *self)
{
  AssaySession *session = assay_conversation_get_session (self->conversation);
  guint n = session != NULL ? assay_session_get_n_cells (session) : 0;

  assay_code_review_reset (self);
  if (n > 0)
    {
      AssaySessionCell *last = assay_session_get_cell (session, n - 1);

      assay_code_review_set_kind (self, last->kind);
      assay_code_review_show (self, last->code != NULL ? last->code : last->proposed_code);
    }
}

void
assay_code_review_set_conversation (AssayCodeReview   *self,
                                    AssayConversation *conversation)
{
  g_return_if_fail (ASSAY_IS_CODE_REVIEW (self));
  g_return_if_fail (conversation == NULL || ASSAY_IS_CONVERSATION (conversation));

  if (self->conversation == conversation)
    return;
  g_clear_pointer (&self->agent_binding, g_binding_unbind);
  g_clear_pointer (&self->auto_run_binding, g_binding_unbind);
  g_signal_group_set_target (self->agent_signals, NULL);
  g_signal_group_set_target (self->conversation_signals, conversation);
  g_set_object (&self->conversation, conversation);
  if (conversation == NULL)
    return;
  self->agent_binding = g_object_bind_property (conversation, "agent", self->agent_signals, "target",
                                                G_BINDING_SYNC_CREATE);
  self->auto_run_binding = g_object_bind_property (conversation, "auto-run", self, "auto-run",
                                                   G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
}

static void
assay_code_review_setup_signal_groups (AssayCodeReview *self)
{
  self->agent_signals = g_signal_group_new (ASSAY_TYPE_AGENT);
  g_signal_group_connect_object (self->agent_signals,
                                 "step",
                                 G_CALLBACK (assay_code_review_agent_step_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "retrying",
                                 G_CALLBACK (assay_code_review_agent_step_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "code-delta",
                                 G_CALLBACK (assay_code_review_agent_code_delta_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "approval-needed",
                                 G_CALLBACK (assay_code_review_agent_approval_needed_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals,
                                 "cell-started",
                                 G_CALLBACK (assay_code_review_agent_cell_started_cb),
                                 self,
                                 G_CONNECT_SWAPPED);

  self->conversation_signals = g_signal_group_new (ASSAY_TYPE_CONVERSATION);
  g_signal_group_connect_object (self->conversation_signals,
                                 "notify::waiting",
                                 G_CALLBACK (assay_code_review_conversation_waiting_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->conversation_signals,
                                 "notify::session",
                                 G_CALLBACK (assay_code_review_conversation_session_cb),
                                 self,
                                 G_CONNECT_SWAPPED);
}

static void
assay_code_review_dispose (GObject *object)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (object);
  GtkWidget *child;

  assay_code_review_set_conversation (self, NULL);
  g_clear_handle_id (&self->languages_idle, g_source_remove);
  g_clear_object (&self->agent_signals);
  g_clear_object (&self->conversation_signals);
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_CODE_REVIEW);
  /* The template's root box is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_code_review_parent_class)->dispose (object);
}

static void
assay_code_review_finalize (GObject *object)
{
  AssayCodeReview *self = ASSAY_CODE_REVIEW (object);

  g_free (self->cell_id);
  g_free (self->proposed_code);
  g_free (self->previous_code);
  g_free (self->diff);
  G_OBJECT_CLASS (assay_code_review_parent_class)->finalize (object);
}

static void
assay_code_review_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  assay_comfort_bin_measure (widget, CODE_COMFORT_WIDTH, orientation, for_size, minimum, natural,
                             minimum_baseline, natural_baseline);
}

static void
assay_code_review_class_init (AssayCodeReviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_code_review_dispose;
  object_class->finalize = assay_code_review_finalize;
  object_class->get_property = assay_code_review_get_property;
  object_class->set_property = assay_code_review_set_property;

  properties[PROP_AUTO_RUN] =
    g_param_spec_boolean ("auto-run", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_EDITING] =
    g_param_spec_boolean ("editing", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_DIFF] =
    g_param_spec_boolean ("show-diff", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[RESPOND] = g_signal_new ("respond", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                   G_TYPE_STRING, G_TYPE_INT, G_TYPE_STRING);

  assay_app_ensure_resources ();
  /* GtkSourceView's languages and style schemes, before the template makes a view. */
  gtk_source_init ();
  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-code-review.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, title_label);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, description_label);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, privacy_label);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, stack);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, source_view);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, diff_view);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, reject_revealer);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, reason_entry);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, auto_switch);
  gtk_widget_class_bind_template_child (widget_class, AssayCodeReview, run_button);
  gtk_widget_class_bind_template_callback (widget_class, assay_code_review_reason_activate_cb);

  gtk_widget_class_install_action (widget_class, "review.run", NULL, assay_code_review_run_action);
  gtk_widget_class_install_property_action (widget_class, "review.edit", "editing");
  gtk_widget_class_install_action (widget_class, "review.reject", NULL, assay_code_review_reject_action);
  gtk_widget_class_install_action (widget_class,
                                   "review.confirm-reject",
                                   NULL,
                                   assay_code_review_confirm_reject_action);
  gtk_widget_class_install_action (widget_class, "review.copy", NULL, assay_code_review_copy_action);
  gtk_widget_class_install_property_action (widget_class, "review.toggle-diff", "show-diff");

  widget_class->get_request_mode = assay_comfort_bin_get_request_mode;
  widget_class->measure = assay_code_review_measure;
  widget_class->size_allocate = assay_comfort_bin_size_allocate;
}

static void
assay_code_review_init (AssayCodeReview *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  assay_code_review_setup_signal_groups (self);

  g_signal_connect (self, "realize", G_CALLBACK (assay_code_review_realize_cb), NULL);
  assay_code_review_update_style_scheme (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (assay_code_review_update_style_scheme), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (assay_code_review_code_buffer (self), "changed",
                           G_CALLBACK (assay_code_review_buffer_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->source_view, "notify::has-focus",
                           G_CALLBACK (assay_code_review_update_cursor), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->auto_switch, "notify::active",
                           G_CALLBACK (assay_code_review_auto_switch_notify_cb), self, G_CONNECT_SWAPPED);
  assay_code_review_reset (self);
}

GtkWidget *
assay_code_review_new (void)
{
  return g_object_new (ASSAY_TYPE_CODE_REVIEW, NULL);
}
