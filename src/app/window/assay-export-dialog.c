/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include "assay-app-types.h"
#include "assay-dialog-run.h"
#include "assay-export-dialog.h"

struct _AssayExportDialog
{
  AdwMessageDialog    parent_instance;

  AdwComboRow        *format_row;
  GtkSwitch          *only_successful;
  GtkSwitch          *include_code;
  GtkSwitch          *include_requests;
  AssayReportOptions  options;   /* as given, then as chosen */
};

G_DEFINE_FINAL_TYPE (AssayExportDialog, assay_export_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* Connected first: the choices are read before the dialog closes. */
static void
assay_export_dialog_response_cb (AssayExportDialog *self,
                                 const char        *response)
{
  if (!g_str_equal (response, "export"))
    return;
  /* The rows are the format table's, in its order. */
  if (adw_combo_row_get_selected (self->format_row) < assay_report_get_n_formats ())
    self->options.format = assay_report_get_format (adw_combo_row_get_selected (self->format_row));
  self->options.only_successful = gtk_switch_get_active (self->only_successful);
  self->options.include_code = gtk_switch_get_active (self->include_code);
  self->options.include_requests = gtk_switch_get_active (self->include_requests);
}

static void
assay_export_dialog_class_init (AssayExportDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-export-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayExportDialog, format_row);
  gtk_widget_class_bind_template_child (widget_class, AssayExportDialog, only_successful);
  gtk_widget_class_bind_template_child (widget_class, AssayExportDialog, include_code);
  gtk_widget_class_bind_template_child (widget_class, AssayExportDialog, include_requests);
}

static void
assay_export_dialog_init (AssayExportDialog *self)
{
  g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);

  gtk_widget_init_template (GTK_WIDGET (self));
  for (guint i = 0; i < assay_report_get_n_formats (); i++)
    gtk_string_list_append (labels, assay_report_format_get_label (assay_report_get_format (i)));
  adw_combo_row_set_model (self->format_row, G_LIST_MODEL (labels));
  assay_report_options_init (&self->options);
  g_signal_connect (self, "response", G_CALLBACK (assay_export_dialog_response_cb), NULL);
}

AssayExportDialog *
assay_export_dialog_new (GtkWindow                *parent,
                         const AssayReportOptions *options)
{
  AssayExportDialog *self = g_object_new (ASSAY_TYPE_EXPORT_DIALOG, "transient-for", parent, NULL);

  if (options != NULL)
    self->options = *options;
  for (guint i = 0; i < assay_report_get_n_formats (); i++)
    if (assay_report_get_format (i) == self->options.format)
      adw_combo_row_set_selected (self->format_row, i);
  gtk_switch_set_active (self->only_successful, self->options.only_successful);
  gtk_switch_set_active (self->include_code, self->options.include_code);
  gtk_switch_set_active (self->include_requests, self->options.include_requests);
  return self;
}

void
assay_export_dialog_run_async (AssayExportDialog   *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (ASSAY_IS_EXPORT_DIALOG (self));
  assay_dialog_run_async (ADW_MESSAGE_DIALOG (self), assay_export_dialog_run_async,
                          cancellable, callback, user_data);
}

gboolean
assay_export_dialog_run_finish (AssayExportDialog   *self,
                                GAsyncResult        *result,
                                AssayReportOptions  *options,
                                GError             **error)
{
  g_autofree char *response = assay_dialog_run_finish (ADW_MESSAGE_DIALOG (self), assay_export_dialog_run_async,
                                                       result, error);

  if (response == NULL)
    return FALSE;
  if (options != NULL)
    *options = self->options;
  return TRUE;
}
