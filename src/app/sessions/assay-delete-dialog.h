/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_DELETE_DIALOG (assay_delete_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AssayDeleteDialog, assay_delete_dialog, ASSAY, DELETE_DIALOG, AdwMessageDialog)

/* "Delete Session?", saying what goes and that the original files stay; Delete (destructive)
 * and Cancel; modal on PARENT. */
AssayDeleteDialog *assay_delete_dialog_new        (GtkWindow          *parent);
void               assay_delete_dialog_run_async  (AssayDeleteDialog  *self,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
/* TRUE when Delete was chosen; FALSE with G_IO_ERROR_CANCELLED otherwise. */
gboolean           assay_delete_dialog_run_finish (AssayDeleteDialog  *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);

G_END_DECLS
