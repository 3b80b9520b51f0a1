/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-dialog-run.h"

typedef struct
{
  GTask  *task;          /* NULL once answered */
  gulong  response_id;
  gulong  destroy_id;
  gulong  cancelled_id;
} Run;

static void
assay_dialog_run_answer (Run        *run,
                         const char *response)
{
  g_autoptr(GTask) task = g_steal_pointer (&run->task);
  AdwMessageDialog *dialog;

  if (task == NULL)
    return;
  dialog = g_task_get_source_object (task);
  g_clear_signal_handler (&run->response_id, dialog);
  g_clear_signal_handler (&run->destroy_id, dialog);
  g_cancellable_disconnect (g_task_get_cancellable (task), run->cancelled_id);
  run->cancelled_id = 0;
  if (response != NULL && g_strcmp0 (response, adw_message_dialog_get_close_response (dialog)) != 0)
    g_task_return_pointer (task, g_strdup (response), g_free);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The dialog was cancelled"));
}

static void
assay_dialog_run_response_cb (AdwMessageDialog *dialog,
                              const char       *response,
                              Run              *run)
{
  assay_dialog_run_answer (run, response);
}

static void
assay_dialog_run_destroy_cb (GtkWidget *dialog,
                             Run       *run)
{
  assay_dialog_run_answer (run, NULL);
}

static gboolean
assay_dialog_run_close_idle_cb (gpointer data)
{
  g_autoptr(GtkWindow) dialog = data;

  gtk_window_close (dialog);
  return G_SOURCE_REMOVE;
}

static void
assay_dialog_run_cancelled_cb (GCancellable *cancellable,
                               Run          *run)
{
  /* May run in any thread, and inside g_cancellable_disconnect: close from the main loop. */
  if (run->task != NULL)
    g_idle_add (assay_dialog_run_close_idle_cb, g_object_ref (g_task_get_source_object (run->task)));
}

void
assay_dialog_run_async (AdwMessageDialog    *dialog,
                        gpointer             source_tag,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  Run *run;

  g_return_if_fail (ADW_IS_MESSAGE_DIALOG (dialog));

  run = g_new0 (Run, 1);
  run->task = g_task_new (dialog, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, source_tag);
  /* The run lives as long as the task's data; the handlers are gone before it. */
  g_task_set_task_data (run->task, run, g_free);
  run->response_id = g_signal_connect (dialog, "response", G_CALLBACK (assay_dialog_run_response_cb), run);
  run->destroy_id = g_signal_connect (dialog, "destroy", G_CALLBACK (assay_dialog_run_destroy_cb), run);
  if (cancellable != NULL)
    run->cancelled_id = g_cancellable_connect (cancellable,
                                               G_CALLBACK (assay_dialog_run_cancelled_cb),
                                               run,
                                               NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

char *
assay_dialog_run_finish (AdwMessageDialog  *dialog,
                         gpointer           source_tag,
                         GAsyncResult      *result,
                         GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, dialog), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
