/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "What Changed": a session run again on new data, read once when the card is made (the
 * changes, the notes and the origin are what the record says; nothing here changes after). */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-types.h"
#include "assay-changes-card.h"
#include "assay-rerun.h"
#include "assay-session-outline.h"

struct _AssayChangesCard
{
  GtkWidget  parent_instance;

  GtkLabel  *origin_label;
  GtkWidget *origin_button;
  GtkLabel  *summary_label;
  GtkBox    *notes_box;
  GtkWidget *rewrite_row;
  GtkWidget *rewrite_box;
  GtkLabel  *rewrite_label;
  GtkGrid   *table;

  guint      n_rows;
  GArray    *stale;        /* gboolean per row */
  char      *origin_dir;   /* offered to open, or NULL */
};

G_DEFINE_FINAL_TYPE (AssayChangesCard, assay_changes_card, GTK_TYPE_WIDGET)

static GtkWidget *
assay_changes_card_cell (const char *text,
                         gboolean    number)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), number ? 1.0 : 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (number)
    {
      /* Digits of one width, so the columns line up. */
      PangoAttrList *attributes = pango_attr_list_new ();

      pango_attr_list_insert (attributes, pango_attr_font_features_new ("tnum"));
      gtk_label_set_attributes (GTK_LABEL (label), attributes);
      pango_attr_list_unref (attributes);
    }
  return label;
}

static void
assay_changes_card_emphasise (GtkWidget *label)
{
  PangoAttrList *attributes = pango_attr_list_copy (gtk_label_get_attributes (GTK_LABEL (label)));

  if (attributes == NULL)
    attributes = pango_attr_list_new ();
  pango_attr_list_insert (attributes, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  gtk_label_set_attributes (GTK_LABEL (label), attributes);
  pango_attr_list_unref (attributes);
}

static const char *
assay_changes_card_question_text (const AssaySessionOutline *outline,
                                  guint                      number)
{
  for (guint i = 0; i < outline->questions->len; i++)
    {
      const AssayOutlineQuestion *question = g_ptr_array_index (outline->questions, i);

      if (question->number == number)
        return question->text;
    }
  return NULL;
}

static void
assay_changes_card_add_header (AssayChangesCard *self)
{
  const char *titles[ASSAY_CHANGES_N_COLUMNS] = {
    /* Translators: the column that says what each number is ("West: …", "North · revenue"). */
    _("Number"), _("Before"), _("After"),
    /* Translators: the column of the difference, after − before. */
    _("Change"),
    /* Translators: the column of the relative change. */
    _("Change %"),
  };

  for (guint column = 0; column < ASSAY_CHANGES_N_COLUMNS; column++)
    {
      GtkWidget *label = assay_changes_card_cell (titles[column], column != ASSAY_CHANGES_COLUMN_NUMBER);

      gtk_label_set_selectable (GTK_LABEL (label), FALSE);
      gtk_widget_add_css_class (label, "caption-heading");
      gtk_widget_add_css_class (label, "dim-label");
      gtk_grid_attach (self->table, label, column, 0, 1, 1);
    }
}

static void
assay_changes_card_add_row (AssayChangesCard          *self,
                            const AssaySessionOutline *outline,
                            const AssaySessionChange  *change)
{
  guint row = self->n_rows + 1;
  const char *question = assay_changes_card_question_text (outline, change->question);
  g_autofree char *question_text = question != NULL ? g_strdup_printf ("%u. %s", change->question, question)
                                                    : g_strdup_printf (_("Question %u"), change->question);
  /* What the number is; an older record without labels says its question. */
  const char *label = change->label != NULL && *change->label != '\0' ? change->label : question_text;
  /* On hover: the sentence of the answer it sits in, and its question. */
  g_autofree char *tooltip = change->sentence != NULL ? g_strdup_printf ("“%s”\n%s", change->sentence, question_text)
                                                      : g_strdup (question_text);
  g_autofree char *delta = NULL;
  g_autofree char *percent = NULL;
  gboolean changed = !change->stale && change->after != change->before;
  GtkWidget *cells[ASSAY_CHANGES_N_COLUMNS];

  delta = change->stale ? g_strdup (_("stale")) : assay_rerun_format_delta (change);
  percent = assay_rerun_format_percent (change);

  cells[ASSAY_CHANGES_COLUMN_NUMBER] = assay_changes_card_cell (label, FALSE);
  gtk_label_set_ellipsize (GTK_LABEL (cells[ASSAY_CHANGES_COLUMN_NUMBER]), PANGO_ELLIPSIZE_END);
  gtk_label_set_width_chars (GTK_LABEL (cells[ASSAY_CHANGES_COLUMN_NUMBER]), 8);
  gtk_label_set_max_width_chars (GTK_LABEL (cells[ASSAY_CHANGES_COLUMN_NUMBER]), 32);
  gtk_label_set_selectable (GTK_LABEL (cells[ASSAY_CHANGES_COLUMN_NUMBER]), FALSE);
  gtk_widget_set_hexpand (cells[ASSAY_CHANGES_COLUMN_NUMBER], TRUE);
  gtk_widget_set_tooltip_text (cells[ASSAY_CHANGES_COLUMN_NUMBER], tooltip);
  cells[ASSAY_CHANGES_COLUMN_BEFORE] = assay_changes_card_cell (change->before_text, TRUE);
  cells[ASSAY_CHANGES_COLUMN_AFTER] = assay_changes_card_cell (change->after_text, TRUE);
  cells[ASSAY_CHANGES_COLUMN_CHANGE] = assay_changes_card_cell (delta, TRUE);
  cells[ASSAY_CHANGES_COLUMN_PERCENT] = assay_changes_card_cell (percent, TRUE);

  if (change->stale)
    {
      /* The old text is kept where the number could not be found again. */
      gtk_widget_add_css_class (cells[ASSAY_CHANGES_COLUMN_AFTER], "warning");
      gtk_widget_add_css_class (cells[ASSAY_CHANGES_COLUMN_CHANGE], "warning");
      gtk_widget_set_tooltip_text (cells[ASSAY_CHANGES_COLUMN_AFTER],
                                   _("Not found again in the new output (its line is gone, on several lines, or its "
                                     "table changed): the old text is kept"));
    }
  else if (changed)
    {
      assay_changes_card_emphasise (cells[ASSAY_CHANGES_COLUMN_AFTER]);
      assay_changes_card_emphasise (cells[ASSAY_CHANGES_COLUMN_CHANGE]);
    }
  else
    {
      gtk_widget_add_css_class (cells[ASSAY_CHANGES_COLUMN_CHANGE], "dim-label");
      gtk_widget_add_css_class (cells[ASSAY_CHANGES_COLUMN_PERCENT], "dim-label");
    }
  for (guint column = 0; column < ASSAY_CHANGES_N_COLUMNS; column++)
    gtk_grid_attach (self->table, cells[column], column, row, 1, 1);
  g_array_append_val (self->stale, change->stale);
  self->n_rows++;
}

static void
assay_changes_card_set_session (AssayChangesCard *self,
                                AssaySession     *session)
{
  g_autoptr(AssaySessionOutline) outline = assay_session_outline_new (session);
  GPtrArray *changes = assay_session_get_changes (session);
  GPtrArray *notes = assay_session_get_rerun_notes (session);
  const char *origin = assay_session_get_rerun_of (session);
  g_autofree char *origin_title = assay_session_get_rerun_of_title (session) != NULL
                                  ? g_strdup (assay_session_get_rerun_of_title (session))
                                  : g_path_get_basename (origin);
  g_autofree char *origin_text = g_strdup_printf (_("Run again on new data from “%s”"), origin_title);
  g_autofree char *origin_record = g_build_filename (origin, "session.json", NULL);
  g_autofree char *summary = NULL;
  guint n_stale = 0, n_changed = 0;

  gtk_label_set_text (self->origin_label, origin_text);
  /* Offered while that session is still there. */
  if (g_file_test (origin_record, G_FILE_TEST_IS_REGULAR))
    {
      self->origin_dir = g_strdup (origin);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->origin_button), "win.open-session");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (self->origin_button), "s", origin);
      gtk_widget_set_visible (self->origin_button, TRUE);
    }

  for (guint i = 0; i < notes->len; i++)
    {
      GtkWidget *label = gtk_label_new (g_ptr_array_index (notes, i));

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_xalign (GTK_LABEL (label), 0.0);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (self->notes_box, label);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->notes_box), notes->len > 0);
  /* The summary reworded from the new outputs: offered when there is one to reword. */
  gtk_widget_set_visible (self->rewrite_row,
                          assay_session_get_answer (session) != NULL && *assay_session_get_answer (session) != '\0');
  if (assay_session_get_rewrite (session) != NULL)
    assay_changes_card_show_rewrite (self, assay_session_get_rewrite (session));

  for (guint i = 0; i < changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (changes, i);

      if (change->stale)
        n_stale++;
      else if (change->after != change->before)
        n_changed++;
    }
  if (changes->len == 0)
    summary = g_strdup (_("Its answers named no number that was traced to an output."));
  else
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "Of the %u traced number in its answers, %u changed and %u could not "
                                            "be found again (stale).",
                                            "Of the %u traced numbers in its answers, %u changed and %u could not "
                                            "be found again (stale).",
                                            changes->len),
                               changes->len, n_changed, n_stale);
  gtk_label_set_text (self->summary_label, summary);

  gtk_widget_set_visible (gtk_widget_get_parent (GTK_WIDGET (self->table)), changes->len > 0);
  if (changes->len == 0)
    return;
  assay_changes_card_add_header (self);
  for (guint i = 0; i < changes->len; i++)
    assay_changes_card_add_row (self, outline, g_ptr_array_index (changes, i));
}

void
assay_changes_card_show_rewrite (AssayChangesCard *self,
                                 const char       *rewrite)
{
  g_return_if_fail (ASSAY_IS_CHANGES_CARD (self));

  gtk_label_set_text (self->rewrite_label, rewrite != NULL ? rewrite : "");
  gtk_widget_set_visible (self->rewrite_box, rewrite != NULL);
}

const char *
assay_changes_card_get_rewrite (AssayChangesCard *self)
{
  g_return_val_if_fail (ASSAY_IS_CHANGES_CARD (self), NULL);
  return gtk_widget_get_visible (self->rewrite_box) ? gtk_label_get_text (self->rewrite_label) : NULL;
}

guint
assay_changes_card_get_n_rows (AssayChangesCard *self)
{
  g_return_val_if_fail (ASSAY_IS_CHANGES_CARD (self), 0);
  return self->n_rows;
}

const char *
assay_changes_card_get_text (AssayChangesCard   *self,
                             guint               row,
                             AssayChangesColumn  column)
{
  GtkWidget *label;

  g_return_val_if_fail (ASSAY_IS_CHANGES_CARD (self), NULL);
  g_return_val_if_fail (column < ASSAY_CHANGES_N_COLUMNS, NULL);
  if (row >= self->n_rows)
    return NULL;
  label = gtk_grid_get_child_at (self->table, column, row + 1);
  return label != NULL ? gtk_label_get_text (GTK_LABEL (label)) : NULL;
}

gboolean
assay_changes_card_get_row_stale (AssayChangesCard *self,
                                  guint             row)
{
  g_return_val_if_fail (ASSAY_IS_CHANGES_CARD (self), FALSE);
  return row < self->stale->len && g_array_index (self->stale, gboolean, row);
}

const char *
assay_changes_card_get_origin_dir (AssayChangesCard *self)
{
  g_return_val_if_fail (ASSAY_IS_CHANGES_CARD (self), NULL);
  return self->origin_dir;
}

static void
assay_changes_card_dispose (GObject *object)
{
  AssayChangesCard *self = ASSAY_CHANGES_CARD (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_CHANGES_CARD);
  /* The template's root box is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_changes_card_parent_class)->dispose (object);
}

static void
assay_changes_card_finalize (GObject *object)
{
  AssayChangesCard *self = ASSAY_CHANGES_CARD (object);

  g_array_unref (self->stale);
  g_free (self->origin_dir);
  G_OBJECT_CLASS (assay_changes_card_parent_class)->finalize (object);
}

static void
assay_changes_card_class_init (AssayChangesCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_changes_card_dispose;
  object_class->finalize = assay_changes_card_finalize;

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-changes-card.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, origin_label);
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, origin_button);
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, summary_label);
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, notes_box);
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, rewrite_row);
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, rewrite_box);
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, rewrite_label);
  gtk_widget_class_bind_template_child (widget_class, AssayChangesCard, table);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "changes-card");
}

static void
assay_changes_card_init (AssayChangesCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->stale = g_array_new (FALSE, FALSE, sizeof (gboolean));
}

GtkWidget *
assay_changes_card_new (AssaySession *session)
{
  AssayChangesCard *self;

  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);
  g_return_val_if_fail (assay_session_get_rerun_of (session) != NULL, NULL);

  self = g_object_new (ASSAY_TYPE_CHANGES_CARD, NULL);
  assay_changes_card_set_session (self, session);
  return GTK_WIDGET (self);
}
