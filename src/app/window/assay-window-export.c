/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Exporting the current session as a report: the banner with its progress, the toast with
 * Open, and the file chooser win.export leads to. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-window-private.h"

static void
assay_window_export_progress_cb (double      fraction,
                                 const char *message,
                                 gpointer    user_data)
{
  AssayWindow *self = user_data;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;
  gtk_progress_bar_set_fraction (self->export_progress, CLAMP (fraction, 0.0, 1.0));
  if (message != NULL && *message != '\0')
    gtk_label_set_text (self->export_label, message);
}

static void
assay_window_exported_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AssayWindow *self = g_task_get_source_object (task);
  GFile *file = g_task_get_task_data (task);
  GError *error = NULL;

  g_clear_object (&self->export_cancellable);
  if (!assay_report_export_finish (ASSAY_SESSION (source), result, &error))
    {
      if (!gtk_widget_in_destruction (GTK_WIDGET (self)))
        {
          gtk_revealer_set_reveal_child (self->export_revealer, FALSE);
          assay_window_update_actions (self);
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            assay_window_show_toast (self, _("Export cancelled"));
          else
            {
              g_autofree char *text = g_strdup_printf (_("The report could not be exported: %s"), error->message);

              assay_window_show_toast (self, text);
            }
        }
      g_task_return_error (task, error);
      return;
    }
  if (!gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *uri = g_file_get_uri (file);
      g_autofree char *text = g_strdup_printf (_("Exported “%s”"), name);
      AdwToast *toast = adw_toast_new (text);

      gtk_revealer_set_reveal_child (self->export_revealer, FALSE);
      assay_window_update_actions (self);
      g_free (self->last_toast);
      self->last_toast = g_strdup (text);
      adw_toast_set_timeout (toast, 10);
      adw_toast_set_button_label (toast, _("_Open"));
      adw_toast_set_action_name (toast, "win.open-report");
      adw_toast_set_action_target_value (toast, g_variant_new_string (uri));
      assay_toast_queue_add (self->toasts, toast);
    }
  g_task_return_boolean (task, TRUE);
}

void
assay_window_export_async (AssayWindow              *self,
                           GFile                    *file,
                           const AssayReportOptions *options,
                           GAsyncReadyCallback       callback,
                           gpointer                  user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *path = NULL;

  g_return_if_fail (ASSAY_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (options != NULL);

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, assay_window_export_async);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  if (self->export_cancellable != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING, _("An export is already in progress"));
      return;
    }
  if (!assay_conversation_get_exportable (self->conversation))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("There is nothing to export yet: ask a question first"));
      return;
    }
  if ((path = g_file_get_path (file)) == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("Reports can only be written to a folder on this computer"));
      return;
    }

  self->export_cancellable = g_cancellable_new ();
  gtk_progress_bar_set_fraction (self->export_progress, 0.0);
  gtk_label_set_text (self->export_label, _("Exporting the report…"));
  gtk_revealer_set_reveal_child (self->export_revealer, TRUE);
  assay_window_update_actions (self);
  /* The task holds the window until the export is done. */
  assay_report_export_async (assay_window_current_session (self), options, path,
                             assay_window_export_progress_cb, g_object_ref (self), g_object_unref,
                             self->export_cancellable, assay_window_exported_cb, g_steal_pointer (&task));
}

gboolean
assay_window_export_finish (AssayWindow   *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
assay_window_get_can_export (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return self->export_cancellable == NULL && assay_conversation_get_exportable (self->conversation);
}

gboolean
assay_window_get_exporting (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return self->export_cancellable != NULL;
}

static void
assay_window_export_chooser_response_cb (GtkNativeDialog *chooser,
                                         int              response,
                                         AssayWindow     *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      AssayReportOptions options;

      assay_report_options_init (&options);
      options.format = self->export_format;
      options.only_successful = self->export_only_successful;
      options.include_code = self->export_include_code;
      options.include_requests = self->export_include_requests;
      if (file != NULL)
        assay_window_export_async (self, file, &options, NULL, NULL);
    }
  g_object_unref (chooser);
}

/* What the export dialog chose: remembered for next time, then where the file goes. */
void
assay_window_choose_export_file (AssayWindow              *self,
                                 const AssayReportOptions *options)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  GtkFileChooserNative *chooser;

  if (assay_window_current_session (self) == NULL)
    return;
  self->export_format = options->format;
  self->export_only_successful = options->only_successful;
  self->export_include_code = options->include_code;
  self->export_include_requests = options->include_requests;

  chooser = gtk_file_chooser_native_new (_("Export Report"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  name = assay_report_suggest_file_name (assay_session_get_title (assay_window_current_session (self)),
                                         self->export_format);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  gtk_file_filter_set_name (filter, assay_report_format_get_files_label (self->export_format));
  gtk_file_filter_add_suffix (filter, assay_report_format_get_extension (self->export_format));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_signal_connect_object (chooser,
                           "response",
                           G_CALLBACK (assay_window_export_chooser_response_cb),
                           self,
                           0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}
