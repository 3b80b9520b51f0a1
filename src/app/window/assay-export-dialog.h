/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-report.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_EXPORT_DIALOG (assay_export_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AssayExportDialog, assay_export_dialog, ASSAY, EXPORT_DIALOG, AdwMessageDialog)

/* "Export Report": the format (PDF, HTML, Jupyter notebook, Excel workbook, reproducible
 * bundle), "Only Successful Steps", "Include Code" and "Include What Was Sent to the Model",
 * starting from what OPTIONS say; Export… and Cancel; modal on PARENT. */
AssayExportDialog *assay_export_dialog_new        (GtkWindow                *parent,
                                                   const AssayReportOptions *options);
void               assay_export_dialog_run_async  (AssayExportDialog        *self,
                                                   GCancellable             *cancellable,
                                                   GAsyncReadyCallback       callback,
                                                   gpointer                  user_data);
/* TRUE with the choices in OPTIONS (format, only_successful, include_code, include_requests;
 * the rest as given to new) when Export was chosen; FALSE with G_IO_ERROR_CANCELLED
 * otherwise. */
gboolean           assay_export_dialog_run_finish (AssayExportDialog        *self,
                                                   GAsyncResult             *result,
                                                   AssayReportOptions       *options,
                                                   GError                  **error);

G_END_DECLS
