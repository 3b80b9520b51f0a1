/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Presents DIALOG and answers once with its first response: the response's id, or
 * G_IO_ERROR_CANCELLED when it was the close response, the dialog was closed or destroyed,
 * or CANCELLABLE was cancelled (which closes it). The task's source object is DIALOG, and
 * SOURCE_TAG its tag. A dialog reads its widgets in its own ::response handler, connected
 * before this runs (handlers run in the order they were connected). */
void   assay_dialog_run_async  (AdwMessageDialog    *dialog,
                                gpointer             source_tag,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
char  *assay_dialog_run_finish (AdwMessageDialog    *dialog,
                                gpointer             source_tag,
                                GAsyncResult        *result,
                                GError             **error);

G_END_DECLS
