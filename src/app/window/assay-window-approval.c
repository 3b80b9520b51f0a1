/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Code changed since it was approved: before an opened session's cells run again, the
 * analyst reads each changed cell and approves it again, or nothing runs (assay-approval.h). */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "assay-window-private.h"

static void
assay_window_approval_response_cb (AdwMessageDialog *dialog,
                                   const char       *response,
                                   AssayWindow      *self)
{
  if (self->approval_dialog == dialog)
    self->approval_dialog = NULL;
  assay_conversation_approve_unsealed (self->conversation, g_strcmp0 (response, "approve") == 0);
}

/* The cells' code, read-only, as the step cards show code. */
static GtkWidget *
assay_window_approval_code (GPtrArray *cells)
{
  g_autoptr(GString) text = g_string_new (NULL);
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer = gtk_source_buffer_new (NULL);
  GtkWidget *view = gtk_source_view_new_with_buffer (buffer);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  gboolean sql = FALSE;

  for (guint i = 0; i < cells->len; i++)
    {
      const AssaySessionCell *cell = g_ptr_array_index (cells, i);
      gboolean is_sql = cell->kind == ASSAY_CELL_KIND_SQL;
      /* Translators: a comment above a cell's code; %s is the cell, "c2". */
      g_autofree char *heading = g_strdup_printf (_("Cell %s"), cell->id);

      sql = sql || is_sql;
      g_string_append_printf (text, "%s%s %s\n%s\n", i > 0 ? "\n" : "", is_sql ? "--" : "#", heading,
                              cell->code != NULL ? cell->code : "");
    }
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (buffer), text->str, -1);
  gtk_source_buffer_set_language (buffer, gtk_source_language_manager_get_language (languages,
                                                                                    sql && cells->len == 1 ? "sql"
                                                                                                           : "python3"));
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_NONE);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 120);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 320);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_widget_add_css_class (scroller, "card");
  gtk_widget_set_overflow (scroller, GTK_OVERFLOW_HIDDEN);
  g_object_unref (buffer);
  return scroller;
}

static void
assay_window_unsealed_cells_cb (AssayWindow *self,
                                GPtrArray   *cells)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *body = NULL;
  AdwMessageDialog *dialog;

  for (guint i = 0; i < cells->len; i++)
    g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", ((AssaySessionCell *) g_ptr_array_index (cells, i))->id);
  body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "The code of cell %s is not the code approved here: the session's record was "
                                       "changed since, or another user approved it. Before the session's cells run "
                                       "again, read it below. Only code you approve runs.",
                                       "The code of cells %s is not the code approved here: the session's record was "
                                       "changed since, or another user approved it. Before the session's cells run "
                                       "again, read them below. Only code you approve runs.", cells->len),
                          names->str);
  if (self->approval_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->approval_dialog));
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Approve Changed Code?"), body));
  adw_message_dialog_set_extra_child (dialog, assay_window_approval_code (cells));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Don't Run"), "approve", _("_Approve and Run"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "approve", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  g_signal_connect_object (dialog, "response", G_CALLBACK (assay_window_approval_response_cb), self, 0);
  self->approval_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}

void
assay_window_init_approval (AssayWindow *self)
{
  g_signal_connect_object (self->conversation, "unsealed-cells",
                           G_CALLBACK (assay_window_unsealed_cells_cb), self, G_CONNECT_SWAPPED);
}

AdwMessageDialog *
assay_window_get_approval_dialog (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->approval_dialog;
}
