/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sessions"

#include "config.h"

#include "assay-app-types.h"
#include "assay-delete-dialog.h"
#include "assay-dialog-run.h"

struct _AssayDeleteDialog
{
  AdwMessageDialog parent_instance;
};

G_DEFINE_FINAL_TYPE (AssayDeleteDialog, assay_delete_dialog, ADW_TYPE_MESSAGE_DIALOG)

static void
assay_delete_dialog_class_init (AssayDeleteDialogClass *klass)
{
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (GTK_WIDGET_CLASS (klass), "/org/assay/Assay/ui/assay-delete-dialog.ui");
}

static void
assay_delete_dialog_init (AssayDeleteDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

AssayDeleteDialog *
assay_delete_dialog_new (GtkWindow *parent)
{
  return g_object_new (ASSAY_TYPE_DELETE_DIALOG, "transient-for", parent, NULL);
}

void
assay_delete_dialog_run_async (AssayDeleteDialog   *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (ASSAY_IS_DELETE_DIALOG (self));
  assay_dialog_run_async (ADW_MESSAGE_DIALOG (self), assay_delete_dialog_run_async,
                          cancellable, callback, user_data);
}

gboolean
assay_delete_dialog_run_finish (AssayDeleteDialog  *self,
                                GAsyncResult       *result,
                                GError            **error)
{
  g_autofree char *response = assay_dialog_run_finish (ADW_MESSAGE_DIALOG (self), assay_delete_dialog_run_async,
                                                       result, error);

  return g_strcmp0 (response, "delete") == 0;
}
