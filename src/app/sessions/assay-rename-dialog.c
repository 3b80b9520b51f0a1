/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sessions"

#include "config.h"

#include "assay-app-types.h"
#include "assay-dialog-run.h"
#include "assay-rename-dialog.h"

struct _AssayRenameDialog
{
  AdwMessageDialog  parent_instance;

  GtkEntry         *entry;
  char             *title;   /* what the entry held when Rename was chosen */
};

G_DEFINE_FINAL_TYPE (AssayRenameDialog, assay_rename_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* Connected first: the entry is read before the dialog closes. */
static void
assay_rename_dialog_response_cb (AssayRenameDialog *self,
                                 const char        *response)
{
  if (g_str_equal (response, "rename"))
    {
      g_free (self->title);
      self->title = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->entry)));
    }
}

static void
assay_rename_dialog_finalize (GObject *object)
{
  g_free (ASSAY_RENAME_DIALOG (object)->title);
  G_OBJECT_CLASS (assay_rename_dialog_parent_class)->finalize (object);
}

static void
assay_rename_dialog_class_init (AssayRenameDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = assay_rename_dialog_finalize;
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-rename-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayRenameDialog, entry);
}

static void
assay_rename_dialog_init (AssayRenameDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self, "response", G_CALLBACK (assay_rename_dialog_response_cb), NULL);
}

AssayRenameDialog *
assay_rename_dialog_new (GtkWindow  *parent,
                         const char *title)
{
  AssayRenameDialog *self = g_object_new (ASSAY_TYPE_RENAME_DIALOG, "transient-for", parent, NULL);

  gtk_editable_set_text (GTK_EDITABLE (self->entry), title != NULL ? title : "");
  return self;
}

GtkEditable *
assay_rename_dialog_get_entry (AssayRenameDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_RENAME_DIALOG (self), NULL);
  return GTK_EDITABLE (self->entry);
}

void
assay_rename_dialog_run_async (AssayRenameDialog   *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (ASSAY_IS_RENAME_DIALOG (self));
  assay_dialog_run_async (ADW_MESSAGE_DIALOG (self), assay_rename_dialog_run_async,
                          cancellable, callback, user_data);
}

char *
assay_rename_dialog_run_finish (AssayRenameDialog  *self,
                                GAsyncResult       *result,
                                GError            **error)
{
  g_autofree char *response = assay_dialog_run_finish (ADW_MESSAGE_DIALOG (self), assay_rename_dialog_run_async,
                                                       result, error);

  if (response == NULL)
    return NULL;
  return g_strdup (self->title != NULL ? self->title : "");
}
