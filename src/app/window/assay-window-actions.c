/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every win.* action, and the one function that decides which are enabled. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-settings.h"
#include "assay-connect-dialog.h"
#include "assay-preferences.h"
#include "assay-requests-window.h"
#include "assay-rerun-dialog.h"
#include "assay-window-private.h"

/* Whether SESSION can be run again on new data: it has datasets or queries, and a cell that
 * succeeded. */
static gboolean
assay_window_session_can_rerun (AssaySession *session)
{
  if (session == NULL ||
      (assay_session_get_datasets (session)->len == 0 && !assay_rerun_dialog_session_queries (session)))
    return FALSE;
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    if (assay_session_get_cell (session, i)->status == ASSAY_CELL_OK)
      return TRUE;
  return FALSE;
}

/* Whether SESSION is a run again whose summary the model can reword. */
static gboolean
assay_window_session_can_rewrite (AssaySession *session)
{
  const char *answer = session != NULL ? assay_session_get_answer (session) : NULL;

  return session != NULL && assay_session_get_rerun_of (session) != NULL && answer != NULL && *answer != '\0';
}

/* The one function that decides which actions are enabled. */
void
assay_window_update_actions (AssayWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean exporting = self->export_cancellable != NULL;
  gboolean opening = self->opening_dir != NULL;
  gboolean busy = assay_conversation_get_busy (self->conversation);

  /* While a session opens, nothing goes into the one it replaces. */
  gtk_widget_action_set_enabled (widget, "win.send", !busy && !opening);
  gtk_widget_action_set_enabled (widget, "win.open-data", !opening);
  gtk_widget_action_set_enabled (widget, "win.stop", busy);
  gtk_widget_action_set_enabled (widget, "win.try-again",
                                 !busy && !opening && assay_conversation_get_server_problem (self->conversation) != NULL);
  gtk_widget_action_set_enabled (widget, "win.new-session", !busy);
  gtk_widget_action_set_enabled (widget, "win.try-demo", !busy);
  gtk_widget_action_set_enabled (widget, "win.open-session", !busy);
  gtk_widget_action_set_enabled (widget, "win.delete-session", !busy);
  gtk_widget_action_set_enabled (widget, "win.privacy-mode", !busy && !opening);
  /* The session's databases change between questions, as its datasets do. */
  gtk_widget_action_set_enabled (widget, "win.connect-database", !busy && !opening);
  gtk_widget_action_set_enabled (widget, "win.edit-database", !busy && !opening);
  gtk_widget_action_set_enabled (widget, "win.remove-database", !busy && !opening);
  gtk_widget_action_set_enabled (widget,
                                 "win.export",
                                 !exporting && assay_conversation_get_exportable (self->conversation));
  gtk_widget_action_set_enabled (widget, "win.cancel-export", exporting);
  gtk_widget_action_set_enabled (widget, "win.rerun",
                                 !busy && !opening && assay_window_session_can_rerun (assay_window_current_session (self)));
  gtk_widget_action_set_enabled (widget, "win.rewrite-summary",
                                 !busy && !opening && assay_window_session_can_rewrite (assay_window_current_session (self)));
  /* What was sent to the model: the current session's requests. */
  gtk_widget_action_set_enabled (widget, "win.show-requests",
                                 !opening && assay_window_current_session (self) != NULL);
  gtk_widget_action_set_enabled (widget, "win.show-step-requests",
                                 !opening && assay_window_current_session (self) != NULL);
  gtk_widget_action_set_enabled (widget, "win.artifacts-back",
                                 g_strcmp0 (assay_window_get_artifacts_page (self), "viewer") == 0);
  /* Folded apart: the chat page's two pages. */
  gtk_widget_action_set_enabled (widget, "win.show-conversation",
                                 self->code_back != NULL && gtk_widget_get_visible (self->code_back));
  gtk_widget_action_set_enabled (widget, "win.show-code",
                                 self->code_button != NULL && gtk_widget_get_visible (self->code_button));
}

static void
assay_window_send_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  g_autofree char *text = assay_chat_view_get_composer_text (self->chat_view);

  g_strstrip (text);
  if (assay_conversation_get_busy (self->conversation) || *text == '\0')
    return;
  /* A session that stayed on this computer goes elsewhere only once the analyst says so. */
  if (assay_window_destination_holds_send (self))
    return;
  if (!assay_window_ensure_session (self))
    return;
  assay_chat_view_set_composer_text (self->chat_view, "");
  assay_conversation_ask (self->conversation, text, NULL);
}

/* The banner of a question stopped at the model server: the setting that fixes it. */
static void
assay_window_change_server_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  gtk_window_present (GTK_WINDOW (assay_preferences_new (GTK_WINDOW (self),
                                                         assay_window_get_backend_reason (self))));
}

static void
assay_window_try_again_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  /* A server elsewhere, chosen since: the analyst says first whether the session goes there. */
  assay_model_destination_check_now (self->destination);
  if (assay_model_destination_get_pending_host (self->destination) != NULL)
    {
      assay_window_destination_ask (self);
      return;
    }
  assay_conversation_try_again (self->conversation);
}

static void
assay_window_stop_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  assay_conversation_stop (ASSAY_WINDOW (widget)->conversation);
}

static void
assay_window_run_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  if (assay_code_review_get_waiting (self->code_review))
    gtk_widget_activate_action (GTK_WIDGET (self->code_review), "review.run", NULL);
}

static void
assay_window_open_session_action (GtkWidget  *widget,
                                  const char *action_name,
                                  GVariant   *parameter)
{
  assay_window_session_activated (ASSAY_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

static void
assay_window_session_renamed_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  AssayWindow *self = ASSAY_WINDOW (source);
  g_autoptr(GError) error = NULL;

  if (!assay_window_rename_session_finish (self, result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
      !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *text = g_strdup_printf (_("The session could not be renamed: %s"), error->message);

      assay_window_show_toast (self, text);
    }
}

static void
assay_window_session_deleted_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  AssayWindow *self = ASSAY_WINDOW (source);
  g_autoptr(GError) error = NULL;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;
  if (!assay_window_delete_session_finish (self, result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        assay_window_show_toast (self, error->message);
    }
  else
    assay_window_show_toast (self, _("Session deleted"));
}

static void
assay_window_new_session_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *parameter)
{
  assay_window_new_session (ASSAY_WINDOW (widget));
}

static void
assay_window_toggle_sidebar_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, !adw_flap_get_reveal_flap (self->flap));
}

static void
assay_window_open_response_cb (GtkNativeDialog *dialog,
                               int              response,
                               AssayWindow     *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GPtrArray) array = g_ptr_array_new_with_free_func (g_object_unref);

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        g_ptr_array_add (array, g_list_model_get_item (files, i));
      assay_window_add_files (self, (GFile **) array->pdata, array->len);
    }
  g_object_unref (dialog);
}

static void
assay_window_open_data_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Open Data"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  assay_app_add_data_filter (GTK_FILE_CHOOSER (chooser));
  g_signal_connect_object (chooser, "response", G_CALLBACK (assay_window_open_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- databases ------------------------------------------------------------------------------- */

static void
assay_window_show_connect_dialog (AssayWindow     *self,
                                  AssayConnection *editing)
{
  AssayConnectDialog *dialog;

  if (self->connect_dialog != NULL)
    {
      gtk_window_present (self->connect_dialog);
      return;
    }
  dialog = assay_connect_dialog_new (GTK_WINDOW (self), self->conversation, editing);
  g_set_weak_pointer (&self->connect_dialog, GTK_WINDOW (dialog));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
assay_window_connect_database_action (GtkWidget  *widget,
                                      const char *action_name,
                                      GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  if (!assay_conversation_get_busy (self->conversation))
    assay_window_show_connect_dialog (self, NULL);
}

static void
assay_window_edit_database_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  AssayConnection *connection = assay_conversation_find_connection (self->conversation,
                                                                    g_variant_get_string (parameter, NULL));

  if (connection != NULL && !assay_conversation_get_busy (self->conversation))
    assay_window_show_connect_dialog (self, connection);
}

static void
assay_window_remove_database_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  const char *name = g_variant_get_string (parameter, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!assay_conversation_remove_source (self->conversation, name, &error))
    {
      assay_window_show_toast (self, error->message);
      return;
    }
  /* Translators: a toast; its queries and their results stay in the session. */
  text = g_strdup_printf (_("%s was removed from the session"), name);
  assay_window_show_toast (self, text);
}

static void
assay_window_artifacts_back_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *parameter)
{
  assay_window_show_gallery (ASSAY_WINDOW (widget));
}

static void
assay_window_show_conversation_action (GtkWidget  *widget,
                                       const char *action_name,
                                       GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  adw_leaflet_set_visible_child (self->chat_leaflet, GTK_WIDGET (self->chat_view));
}

static void
assay_window_show_code_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  adw_leaflet_set_visible_child (self->chat_leaflet, GTK_WIDGET (self->code_review));
}

/* A chip above the composer: the Data page, at that file (or the databases, "db:NAME"). */
static void
assay_window_show_data_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  const char *target = g_variant_get_string (parameter, NULL);

  adw_view_stack_set_visible_child_name (self->view_stack, "data");
  assay_window_ensure_data_page (self);
  if (!g_str_has_prefix (target, "db:"))
    assay_data_preview_select_file (self->data_preview, target);
}

/* The chat's charts open the same viewer; the target is the file's path. */
static void
assay_window_show_artifact_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  AssayArtifactList *artifacts = assay_conversation_get_artifacts (self->conversation);
  const char *path = g_variant_get_string (parameter, NULL);
  gboolean absolute = g_path_is_absolute (path);
  guint n;

  if (artifacts == NULL)
    return;
  n = g_list_model_get_n_items (G_LIST_MODEL (artifacts));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(AssayArtifactItem) item = g_list_model_get_item (G_LIST_MODEL (artifacts), i);
      const char *candidate = absolute ? assay_artifact_item_get_path (item)
                                       : assay_artifact_item_get_relative_path (item);

      if (g_strcmp0 (candidate, path) == 0)
        {
          assay_window_show_artifact (self, item);
          return;
        }
    }
  assay_window_show_toast (self, _("This file is not among the session’s files"));
}

static void
assay_window_cancel_export_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  if (self->export_cancellable != NULL)
    g_cancellable_cancel (self->export_cancellable);
}

static void
assay_window_report_launched_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(AssayWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error) &&
      !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *text = g_strdup_printf (_("The report could not be opened: %s"), error->message);

      assay_window_show_toast (self, text);
    }
}

static void
assay_window_open_report_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  g_autoptr(GdkAppLaunchContext) context = gdk_display_get_app_launch_context (gtk_widget_get_display (widget));

  g_app_info_launch_default_for_uri_async (g_variant_get_string (parameter, NULL), G_APP_LAUNCH_CONTEXT (context),
                                           self->cancellable, assay_window_report_launched_cb, g_object_ref (self));
}

static void
assay_window_try_demo_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  assay_window_start_demo (ASSAY_WINDOW (widget));
}

/* ---- the session dialogs ------------------------------------------------------------------ */

typedef struct
{
  AssayWindow *self;   /* a strong reference while the dialog is up */
  char        *dir;
} DialogData;

static void
assay_window_dialog_data_free (DialogData *data)
{
  g_object_unref (data->self);
  g_free (data->dir);
  g_free (data);
}

static DialogData *
assay_window_dialog_data_new (AssayWindow *self,
                              const char  *dir)
{
  DialogData *data = g_new0 (DialogData, 1);

  data->self = g_object_ref (self);
  data->dir = g_strdup (dir);
  return data;
}

static void
assay_window_rename_dialog_done_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  DialogData *data = user_data;
  g_autofree char *title = assay_rename_dialog_run_finish (ASSAY_RENAME_DIALOG (source), result, NULL);

  if (title != NULL && !gtk_widget_in_destruction (GTK_WIDGET (data->self)))
    assay_window_rename_session_async (data->self, data->dir, title, assay_window_session_renamed_cb, NULL);
  assay_window_dialog_data_free (data);
}

static void
assay_window_rename_session_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  const char *dir = g_variant_get_string (parameter, NULL);
  const char *title = NULL;
  AssayRenameDialog *dialog;

  /* The title as the window or the store's list has it: nothing is read from disk for it. */
  if (assay_window_is_current_session (self, dir))
    title = assay_session_get_title (assay_window_current_session (self));
  else
    {
      AssaySessionSummary *summary = assay_session_store_lookup (self->store, dir);

      title = summary != NULL ? assay_session_summary_get_title (summary) : NULL;
    }
  dialog = assay_rename_dialog_new (GTK_WINDOW (self), title);
  assay_rename_dialog_run_async (dialog,
                                 self->cancellable,
                                 assay_window_rename_dialog_done_cb,
                                 assay_window_dialog_data_new (self, dir));
}

static void
assay_window_delete_dialog_done_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  DialogData *data = user_data;

  if (assay_delete_dialog_run_finish (ASSAY_DELETE_DIALOG (source), result, NULL) &&
      !gtk_widget_in_destruction (GTK_WIDGET (data->self)))
    assay_window_delete_session_async (data->self, data->dir, assay_window_session_deleted_cb, NULL);
  assay_window_dialog_data_free (data);
}

static void
assay_window_delete_session_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  AssayDeleteDialog *dialog = assay_delete_dialog_new (GTK_WINDOW (self));

  assay_delete_dialog_run_async (dialog, self->cancellable, assay_window_delete_dialog_done_cb,
                                 assay_window_dialog_data_new (self, g_variant_get_string (parameter, NULL)));
}

static void
assay_window_export_dialog_done_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  DialogData *data = user_data;
  AssayReportOptions options;

  if (assay_export_dialog_run_finish (ASSAY_EXPORT_DIALOG (source), result, &options, NULL) &&
      !gtk_widget_in_destruction (GTK_WIDGET (data->self)))
    assay_window_choose_export_file (data->self, &options);
  assay_window_dialog_data_free (data);
}

static void
assay_window_export_action (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  AssayReportOptions options;
  AssayExportDialog *dialog;

  if (!assay_window_get_can_export (self))
    return;
  assay_report_options_init (&options);
  options.format = self->export_format;
  options.only_successful = self->export_only_successful;
  options.include_code = self->export_include_code;
  options.include_requests = self->export_include_requests;
  dialog = assay_export_dialog_new (GTK_WINDOW (self), &options);
  assay_export_dialog_run_async (dialog,
                                 self->cancellable,
                                 assay_window_export_dialog_done_cb,
                                 assay_window_dialog_data_new (self, NULL));
}

/* ---- run again with new data -------------------------------------------------------------- */

typedef struct
{
  char   *dir;       /* the session opened from the dialog, canonical */
  gulong  handler;
} RevealChanges;

static void
assay_window_reveal_changes_free (gpointer data,
                                  GClosure *closure)
{
  RevealChanges *reveal = data;

  g_free (reveal->dir);
  g_free (reveal);
}

/* The session the dialog made is shown: on its "What Changed" card. Any other open that came
 * first superseded it; either way this waits no longer. */
static void
assay_window_reveal_changes_cb (AssayWindow   *self,
                                const char    *dir,
                                RevealChanges *reveal)
{
  g_autofree char *canonical = g_canonicalize_filename (dir, NULL);

  if (g_strcmp0 (canonical, reveal->dir) == 0)
    assay_chat_view_reveal_changes (self->chat_view);
  g_signal_handler_disconnect (self, reveal->handler);
}

static void
assay_window_rerun_session_made_cb (AssayWindow *self,
                                    const char  *dir)
{
  assay_session_store_reload (self->store);
}

static void
assay_window_rerun_open_session_cb (AssayWindow *self,
                                    const char  *dir,
                                    gboolean     changes)
{
  g_autoptr(GError) error = NULL;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;
  if (changes)
    {
      RevealChanges *reveal = g_new0 (RevealChanges, 1);

      reveal->dir = g_canonicalize_filename (dir, NULL);
      reveal->handler = g_signal_connect_data (self, "session-opened", G_CALLBACK (assay_window_reveal_changes_cb),
                                               reveal, assay_window_reveal_changes_free, 0);
    }
  if (!assay_window_open_session (self, dir, &error))
    assay_window_show_toast (self, error->message);
}

static void
assay_window_rerun_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  AssaySession *session = assay_window_current_session (self);
  AssayRerunDialog *dialog;

  if (assay_conversation_get_busy (self->conversation) || !assay_window_session_can_rerun (session))
    return;
  dialog = assay_rerun_dialog_new (GTK_WINDOW (self), session, self->settings);
  g_signal_connect_object (dialog, "session-made", G_CALLBACK (assay_window_rerun_session_made_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (dialog, "open-session", G_CALLBACK (assay_window_rerun_open_session_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* A run's summary reworded by the model from the new outputs, kept beside it. */
static void
assay_window_rewrite_summary_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  if (!assay_window_session_can_rewrite (assay_window_current_session (self)))
    return;
  assay_conversation_rewrite (self->conversation);
}

/* ---- what was sent to the model ----------------------------------------------------------- */

/* The viewer of the current session's requests, on STEP's request (0: the last one sent). */
static void
assay_window_show_requests (AssayWindow *self,
                            guint        step)
{
  AssaySession *session = assay_window_current_session (self);
  AssayRequestsWindow *requests_window;
  GPtrArray *requests;

  if (session == NULL)
    return;
  requests_window = assay_requests_window_new (GTK_WINDOW (self), session);
  requests = assay_session_get_requests (session);
  if (step > 0)
    assay_requests_window_select_step (requests_window, step);
  else if (requests != NULL && requests->len > 0)
    assay_requests_window_select_request (requests_window,
                                          ((AssaySessionRequest *) g_ptr_array_index (requests, requests->len - 1))->number);
  gtk_window_present (GTK_WINDOW (requests_window));
}

static void
assay_window_show_requests_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  assay_window_show_requests (ASSAY_WINDOW (widget), 0);
}

/* A step card's "Sent to the Model": the target is the step's number in the session. */
static void
assay_window_show_step_requests_action (GtkWidget  *widget,
                                        const char *action_name,
                                        GVariant   *parameter)
{
  assay_window_show_requests (ASSAY_WINDOW (widget), g_variant_get_uint32 (parameter));
}

/* Alt+Left and Alt+Right where the window is too narrow for the conversation and the code
 * side by side: before the focused widget sees them (the code view, a GtkSourceView, takes
 * Alt+arrows to move words, so they did nothing from the code). Elsewhere they go on. */
static gboolean
assay_window_narrow_arrow_cb (GtkWidget *widget,
                              GVariant  *args,
                              gpointer   user_data)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  gboolean forward = GPOINTER_TO_INT (user_data);
  GtkWidget *target = forward ? GTK_WIDGET (self->code_review) : GTK_WIDGET (self->chat_view);

  if (!adw_leaflet_get_folded (self->chat_leaflet) ||
      g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "chat") != 0 ||
      adw_leaflet_get_visible_child (self->chat_leaflet) == target)
    return FALSE;
  adw_leaflet_set_visible_child (self->chat_leaflet, target);
  return TRUE;
}

void
assay_window_init_narrow_keys (AssayWindow *self)
{
  GtkEventController *keys = gtk_shortcut_controller_new ();

  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Right, GDK_ALT_MASK),
                                                          gtk_callback_action_new (assay_window_narrow_arrow_cb,
                                                                                   GINT_TO_POINTER (TRUE), NULL)));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Left, GDK_ALT_MASK),
                                                          gtk_callback_action_new (assay_window_narrow_arrow_cb,
                                                                                   GINT_TO_POINTER (FALSE), NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

void
assay_window_class_init_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.send", NULL, assay_window_send_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, assay_window_stop_action);
  gtk_widget_class_install_action (widget_class, "win.change-server", NULL, assay_window_change_server_action);
  gtk_widget_class_install_action (widget_class, "win.try-again", NULL, assay_window_try_again_action);
  gtk_widget_class_install_action (widget_class, "win.run", NULL, assay_window_run_action);
  gtk_widget_class_install_action (widget_class, "win.new-session", NULL, assay_window_new_session_action);
  gtk_widget_class_install_action (widget_class, "win.open-data", NULL, assay_window_open_data_action);
  gtk_widget_class_install_action (widget_class,
                                   "win.toggle-sidebar",
                                   NULL,
                                   assay_window_toggle_sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.connect-database", NULL, assay_window_connect_database_action);
  gtk_widget_class_install_action (widget_class, "win.edit-database", "s", assay_window_edit_database_action);
  gtk_widget_class_install_action (widget_class, "win.remove-database", "s", assay_window_remove_database_action);
  gtk_widget_class_install_action (widget_class, "win.try-demo", NULL, assay_window_try_demo_action);
  gtk_widget_class_install_action (widget_class, "win.open-session", "s", assay_window_open_session_action);
  gtk_widget_class_install_action (widget_class,
                                   "win.rename-session",
                                   "s",
                                   assay_window_rename_session_action);
  gtk_widget_class_install_action (widget_class,
                                   "win.delete-session",
                                   "s",
                                   assay_window_delete_session_action);
  gtk_widget_class_install_action (widget_class, "win.show-artifact", "s", assay_window_show_artifact_action);
  /* A chip above the composer: the Data page, at that file (or the databases). */
  gtk_widget_class_install_action (widget_class, "win.show-data", "s", assay_window_show_data_action);
  gtk_widget_class_install_action (widget_class,
                                   "win.artifacts-back",
                                   NULL,
                                   assay_window_artifacts_back_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, assay_window_export_action);
  gtk_widget_class_install_action (widget_class,
                                   "win.cancel-export",
                                   NULL,
                                   assay_window_cancel_export_action);
  gtk_widget_class_install_action (widget_class, "win.open-report", "s", assay_window_open_report_action);
  /* The current session's successful cells again on new files, into a new session. */
  gtk_widget_class_install_action (widget_class, "win.rerun", NULL, assay_window_rerun_action);
  gtk_widget_class_install_action (widget_class, "win.rewrite-summary", NULL, assay_window_rewrite_summary_action);
  /* What the model sees of the current session: "full", "masked" or "schema". */
  gtk_widget_class_install_property_action (widget_class, "win.privacy-mode", "privacy-mode");
  gtk_widget_class_install_action (widget_class, "win.show-requests", NULL, assay_window_show_requests_action);
  gtk_widget_class_install_action (widget_class,
                                   "win.show-step-requests",
                                   "u",
                                   assay_window_show_step_requests_action);
  /* Where the window is too narrow for the chat and the code side by side. */
  gtk_widget_class_install_action (widget_class, "win.show-conversation", NULL, assay_window_show_conversation_action);
  gtk_widget_class_install_action (widget_class, "win.show-code", NULL, assay_window_show_code_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.artifacts-back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.show-conversation", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "win.show-code", NULL);
}
