/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_RENAME_DIALOG (assay_rename_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AssayRenameDialog, assay_rename_dialog, ASSAY, RENAME_DIALOG, AdwMessageDialog)

/* "Rename Session": an entry holding TITLE, Rename and Cancel; modal on PARENT. */
AssayRenameDialog *assay_rename_dialog_new        (GtkWindow          *parent,
                                                   const char         *title);
/* Presents the dialog; the answer comes once a response is chosen. Cancelling CANCELLABLE
 * closes it. */
void               assay_rename_dialog_run_async  (AssayRenameDialog  *self,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
/* The new title, or NULL with G_IO_ERROR_CANCELLED when the dialog was cancelled or closed. */
char              *assay_rename_dialog_run_finish (AssayRenameDialog  *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);
GtkEditable       *assay_rename_dialog_get_entry  (AssayRenameDialog  *self);

G_END_DECLS
