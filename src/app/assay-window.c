/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The main window, a view: the question's flow lives in AssayConversation, which the chat
 * and the code review follow; the saved sessions and their jobs in AssaySessionStore, which
 * the sidebar shows. The window turns actions, drops and dialogs into calls on them. */
#include "config.h"

#include <glib/gi18n.h>

#include "assay-artifact-gallery.h"
#include "assay-artifact-list.h"
#include "assay-artifact-viewer.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-conversation.h"
#include "assay-data-preview.h"
#include "assay-keyring.h"
#include "assay-model-choice.h"
#include "assay-onboarding.h"
#include "assay-report.h"
#include "assay-sandbox-banner.h"
#include "assay-session-store.h"
#include "assay-sessions-sidebar.h"
#include "assay-toast-queue.h"
#include "assay-window.h"

struct _AssayWindow
{
  AdwApplicationWindow  parent_instance;

  AdwToastOverlay      *toast_overlay;
  GtkStack             *main_stack;
  AdwFlap              *flap;
  AssaySessionsSidebar *sidebar;
  AssaySandboxBanner   *sandbox_banner;
  GtkRevealer          *demo_revealer;
  AdwViewStack         *view_stack;
  AssayChatView        *chat_view;
  AssayCodeReview      *code_review;
  AssayOnboarding      *onboarding;
  GtkWidget            *artifacts_back;
  GtkStack             *artifacts_stack;
  AssayArtifactGallery *gallery;
  AssayArtifactViewer  *viewer;
  AssayDataPreview     *data_preview;
  GtkRevealer          *export_revealer;
  GtkLabel             *export_label;
  GtkProgressBar       *export_progress;

  GSettings            *settings;
  GCancellable         *cancellable;      /* the window's life */
  guint                 adding_files;     /* batches of dropped files being copied in */

  /* The question's flow and the current session; the views follow it. */
  AssayConversation    *conversation;
  /* The saved sessions, and the jobs that open, rename, delete and save them. */
  AssaySessionStore    *store;
  char                 *opening_dir;      /* the open asked for last, until it is shown */
  guint                 open_serial;      /* of the open asked for last */
  GCancellable         *export_cancellable; /* the export in progress */
  AssayToastQueue      *toasts;           /* feeds toast_overlay one toast at a time */
  /* What the export dialog offered last time. */
  AssayReportFormat     export_format;
  gboolean              export_only_successful;
  gboolean              export_include_code;
  gboolean              closing;
  char                 *last_toast;
};

G_DEFINE_FINAL_TYPE (AssayWindow, assay_window, ADW_TYPE_APPLICATION_WINDOW)

enum { PROP_0, PROP_BUSY, PROP_OPENING, N_PROPS };
static GParamSpec *properties[N_PROPS];

enum { SESSION_OPENED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
show_toast (AssayWindow *self,
            const char  *text)
{
  AdwToast *toast = adw_toast_new (text);

  g_free (self->last_toast);
  self->last_toast = g_strdup (text);
  adw_toast_set_timeout (toast, 5);
  assay_toast_queue_add (self->toasts, toast);
}

void
assay_window_dismiss_toast (AssayWindow *self)
{
  g_return_if_fail (ASSAY_IS_WINDOW (self));
  assay_toast_queue_dismiss_all (self->toasts);
}

/* The one function that decides which actions are enabled. */
static void
update_actions (AssayWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean exporting = self->export_cancellable != NULL;
  gboolean opening = self->opening_dir != NULL;
  gboolean busy = assay_conversation_get_busy (self->conversation);

  /* While a session opens, nothing goes into the one it replaces. */
  gtk_widget_action_set_enabled (widget, "win.send", !busy && !opening);
  gtk_widget_action_set_enabled (widget, "win.open-data", !opening);
  gtk_widget_action_set_enabled (widget, "win.stop", busy);
  gtk_widget_action_set_enabled (widget, "win.new-session", !busy);
  gtk_widget_action_set_enabled (widget, "win.try-demo", !busy);
  gtk_widget_action_set_enabled (widget, "win.open-session", !busy);
  gtk_widget_action_set_enabled (widget, "win.delete-session", !busy);
  gtk_widget_action_set_enabled (widget, "win.export", !exporting && assay_conversation_get_exportable (self->conversation));
  gtk_widget_action_set_enabled (widget, "win.cancel-export", exporting);
  gtk_widget_action_set_enabled (widget, "win.artifacts-back",
                                 g_strcmp0 (gtk_stack_get_visible_child_name (self->artifacts_stack), "viewer") == 0);
}

/* ---- the question ------------------------------------------------------------------------ */

/* The conversation owns the question's flow; the window follows its state. */
static void
conversation_busy_cb (AssayWindow *self)
{
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* A cell waits for approval: the code review is on the chat page. */
static void
conversation_waiting_cb (AssayWindow *self)
{
  if (assay_conversation_get_waiting (self->conversation) != NULL)
    adw_view_stack_set_visible_child_name (self->view_stack, "chat");
}

static void
conversation_recorded_cb (AssayWindow *self)
{
  gtk_revealer_set_reveal_child (self->demo_revealer, assay_conversation_get_recorded (self->conversation));
}

static void
conversation_needs_model_cb (AssayWindow *self)
{
  gtk_stack_set_visible_child_name (self->main_stack, "onboarding");
}

static void
conversation_error_cb (AssayWindow *self,
                       const char  *message)
{
  show_toast (self, message);
}

static gboolean
ensure_session (AssayWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (assay_conversation_get_session (self->conversation) != NULL)
    return TRUE;
  if (!assay_conversation_ensure_session (self->conversation, &error))
    {
      g_autofree char *text = g_strdup_printf (_("The session could not be created: %s"), error->message);

      show_toast (self, text);
      return FALSE;
    }
  assay_sessions_sidebar_select (self->sidebar, assay_session_get_dir (assay_conversation_get_session (self->conversation)));
  return TRUE;
}

static void
send_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  g_autofree char *text = assay_chat_view_get_composer_text (self->chat_view);

  g_strstrip (text);
  if (assay_conversation_get_busy (self->conversation) || *text == '\0')
    return;
  if (!ensure_session (self))
    return;
  assay_chat_view_set_composer_text (self->chat_view, "");
  assay_conversation_ask (self->conversation, text, NULL);
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  assay_conversation_stop (ASSAY_WINDOW (widget)->conversation);
}

static void
run_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  if (assay_code_review_get_waiting (self->code_review))
    gtk_widget_activate_action (GTK_WIDGET (self->code_review), "review.run", NULL);
}

/* ---- sessions --------------------------------------------------------------------------- */

static AssaySession *
current_session (AssayWindow *self)
{
  return assay_conversation_get_session (self->conversation);
}

/* No session: the chat, the code review, the gallery and the data page follow. */
static void
forget_session (AssayWindow *self)
{
  assay_conversation_set_session (self->conversation, NULL, NULL);
}

static gboolean
is_current_session (AssayWindow *self,
                    const char  *dir)
{
  return current_session (self) != NULL && g_strcmp0 (assay_session_get_dir (current_session (self)), dir) == 0;
}

/* Opening, renaming, deleting and the window's own saves are the store's jobs, run in
 * workers one at a time in the order asked for (AssaySessionStore). The window tracks only
 * the open it asked for last: each request has a serial, and a result is shown only when
 * its serial is still the one wanted (the latest request wins, even over a result already
 * on its way). */
typedef struct
{
  GWeakRef window;
  guint    serial;
} OpenRequest;

static void
set_opening (AssayWindow *self,
             const char  *dir)
{
  gboolean was_opening = self->opening_dir != NULL;

  g_free (self->opening_dir);
  self->opening_dir = g_strdup (dir);
  if (was_opening != (dir != NULL))
    {
      update_actions (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPENING]);
    }
}

/* The open asked for last is not wanted any more. The chat keeps showing it is opening:
 * the caller says what comes instead (see abandon_open). */
static void
cancel_open (AssayWindow *self)
{
  if (self->opening_dir == NULL)
    return;
  assay_session_store_cancel_open (self->store);
  set_opening (self, NULL);
}

/* Back to the current session, as it was before the open was asked for. */
static void
abandon_open (AssayWindow *self)
{
  if (self->opening_dir == NULL)
    return;
  cancel_open (self);
  assay_chat_view_set_loading (self->chat_view, FALSE);
  assay_sessions_sidebar_select (self->sidebar,
                                 current_session (self) != NULL ? assay_session_get_dir (current_session (self)) : NULL);
}

/* What the analyst reads when a session cannot be opened. */
static char *
open_error_text (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return g_strdup (_("The session could not be opened: it was moved or deleted."));
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
    return g_strdup (_("The session could not be opened: its saved record is damaged."));
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    return g_strdup (_("The session could not be opened: it was saved by a newer version of Assay."));
  return g_strdup_printf (_("The session could not be opened: %s"), error->message);
}

static void
session_opened_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  OpenRequest *request = user_data;
  g_autoptr(AssayWindow) self = g_weak_ref_get (&request->window);
  g_autoptr(AssayArtifactList) artifacts = NULL;
  g_autoptr(AssaySession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  guint serial = request->serial;

  g_weak_ref_clear (&request->window);
  g_free (request);
  session = assay_session_store_open_finish (ASSAY_SESSION_STORE (source), result, &artifacts, &error);
  /* Superseded or abandoned: a newer request shows what it shows. */
  if (self == NULL || gtk_widget_in_destruction (GTK_WIDGET (self)) ||
      self->opening_dir == NULL || serial != self->open_serial)
    return;
  if (session == NULL)
    {
      g_autofree char *text = open_error_text (error);

      abandon_open (self);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_toast (self, text);
      return;
    }

  /* No question can have started meanwhile: win.send waits for the session. The views
   * follow the conversation to it. */
  dir = g_strdup (self->opening_dir);
  assay_conversation_set_session (self->conversation, session, artifacts);
  assay_chat_view_set_loading (self->chat_view, FALSE);
  assay_sessions_sidebar_select (self->sidebar, dir);
  g_signal_emit (self, signals[SESSION_OPENED], 0, dir);
  set_opening (self, NULL);
}

void
assay_window_new_session (AssayWindow *self)
{
  g_return_if_fail (ASSAY_IS_WINDOW (self));
  if (assay_conversation_get_busy (self->conversation))
    return;
  abandon_open (self);
  forget_session (self);
  assay_sessions_sidebar_select (self->sidebar, NULL);
  assay_chat_view_focus_composer (self->chat_view);
}

gboolean
assay_window_open_session (AssayWindow  *self,
                           const char   *dir,
                           GError      **error)
{
  g_autofree char *canonical = NULL;
  OpenRequest *request;

  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);
  if (assay_conversation_get_busy (self->conversation))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, _("A question is in progress"));
      return FALSE;
    }
  canonical = g_canonicalize_filename (dir, NULL);
  if (g_strcmp0 (self->opening_dir, canonical) == 0)
    return TRUE;
  /* The latest request wins. */
  if (is_current_session (self, canonical))
    {
      abandon_open (self);
      return TRUE;
    }
  request = g_new0 (OpenRequest, 1);
  g_weak_ref_init (&request->window, self);
  request->serial = ++self->open_serial;
  assay_chat_view_set_loading (self->chat_view, TRUE);
  assay_sessions_sidebar_select (self->sidebar, canonical);
  set_opening (self, canonical);
  assay_session_store_open_async (self->store, canonical, session_opened_cb, request);
  return TRUE;
}

gboolean
assay_window_get_opening (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return self->opening_dir != NULL;
}

static void
store_job_done_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) caller = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_error (caller, error);
  else
    g_task_return_boolean (caller, TRUE);
}

void
assay_window_rename_session_async (AssayWindow         *self,
                                   const char          *dir,
                                   const char          *title,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autofree char *canonical = NULL;
  GTask *caller;

  g_return_if_fail (ASSAY_IS_WINDOW (self));
  g_return_if_fail (dir != NULL);

  caller = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (caller, assay_window_rename_session_async);
  canonical = g_canonicalize_filename (dir, NULL);
  /* The open session is renamed in memory as well: the window writes it from then on. */
  assay_session_store_rename_async (self->store, canonical, title,
                                    is_current_session (self, canonical) ? current_session (self) : NULL,
                                    store_job_done_cb, caller);
}

gboolean
assay_window_rename_session_finish (AssayWindow   *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
assay_window_delete_session_async (AssayWindow         *self,
                                   const char          *dir,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autofree char *canonical = NULL;
  GTask *caller;

  g_return_if_fail (ASSAY_IS_WINDOW (self));
  g_return_if_fail (dir != NULL);

  caller = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (caller, assay_window_delete_session_async);
  if (assay_conversation_get_busy (self->conversation))
    {
      g_task_return_new_error (caller, G_IO_ERROR, G_IO_ERROR_BUSY, _("A question is in progress"));
      g_object_unref (caller);
      return;
    }
  canonical = g_canonicalize_filename (dir, NULL);
  /* Not opened only to be deleted; the current one is let go of first (nothing can start a
   * question in it once it is gone from the window). */
  if (g_strcmp0 (self->opening_dir, canonical) == 0)
    abandon_open (self);
  if (is_current_session (self, canonical))
    {
      forget_session (self);
      assay_sessions_sidebar_select (self->sidebar, NULL);
    }
  assay_session_store_delete_async (self->store, canonical, store_job_done_cb, caller);
}

gboolean
assay_window_delete_session_finish (AssayWindow   *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

AssaySessionStore *
assay_window_get_session_store (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->store;
}

static void
session_activated_cb (AssayWindow *self,
                      const char  *dir)
{
  g_autoptr(GError) error = NULL;

  if (!assay_window_open_session (self, dir, &error))
    show_toast (self, error->message);
  else if (adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, FALSE);
}

static void
open_session_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  session_activated_cb (ASSAY_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

static void
session_renamed_cb (GObject      *source,
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

      show_toast (self, text);
    }
}

static void
rename_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    AssayWindow      *self)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (dialog), "entry");
  const char *dir = g_object_get_data (G_OBJECT (dialog), "dir");

  if (g_str_equal (response, "rename"))
    assay_window_rename_session_async (self, dir, gtk_editable_get_text (entry), session_renamed_cb, NULL);
}

static void
rename_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  const char *dir = g_variant_get_string (parameter, NULL);
  const char *title;
  GtkWidget *dialog;
  GtkWidget *entry;

  /* The title as the window or the sidebar has it: nothing is read from disk for it. */
  if (is_current_session (self, dir))
    title = assay_session_get_title (current_session (self));
  else
    {
      AssaySessionSummary *summary = assay_session_store_lookup (self->store, dir);

      title = summary != NULL ? assay_session_summary_get_title (summary) : NULL;
    }
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Rename Session"), NULL);
  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), title != NULL ? title : "");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "rename", _("_Rename"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rename", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "entry", entry);
  g_object_set_data_full (G_OBJECT (dialog), "dir", g_strdup (dir), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (rename_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
session_deleted_cb (GObject      *source,
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
        show_toast (self, error->message);
    }
  else
    show_toast (self, _("Session deleted"));
}

static void
delete_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    AssayWindow      *self)
{
  const char *dir = g_object_get_data (G_OBJECT (dialog), "dir");

  if (g_str_equal (response, "delete"))
    assay_window_delete_session_async (self, dir, session_deleted_cb, NULL);
}

static void
delete_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Delete Session?"),
                                   _("Its conversation, code, results and copies of its datasets are removed. Your original files are not touched."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "delete", _("_Delete"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "delete", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "dir", g_strdup (g_variant_get_string (parameter, NULL)), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (delete_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
new_session_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  assay_window_new_session (ASSAY_WINDOW (widget));
}

static void
toggle_sidebar_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, !adw_flap_get_reveal_flap (self->flap));
}

/* ---- data files ----------------------------------------------------------------------- */

static gboolean
is_supported (const char *name)
{
  static const char *extensions[] = { ".csv", ".tsv", ".txt", ".xlsx" };
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (guint i = 0; i < G_N_ELEMENTS (extensions); i++)
    if (g_str_has_suffix (lower, extensions[i]))
      return TRUE;
  return FALSE;
}

/* For tests: whether every dataset of the current session has its description. */
gboolean
assay_window_get_datasets_described (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return assay_conversation_get_datasets_described (self->conversation);
}

AssayDataPreview *
assay_window_get_data_preview (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->data_preview;
}

/* Files dropped together: each is copied into the session in a worker (a large file must
 * not hold up the window), then recorded and described in the order they arrive. */
typedef struct
{
  AssayWindow  *self;       /* a strong reference while copies run */
  AssaySession *session;    /* the session they were dropped into */
  GString      *added;
  guint         pending;
} AddBatch;

static void
add_batch_finish (AddBatch *batch)
{
  AssayWindow *self = batch->self;

  if (batch->added->len > 0 && current_session (self) == batch->session &&
      !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *text = g_strdup_printf (_("Added %s to the session"), batch->added->str);

      show_toast (self, text);
      /* The agent saved it already; otherwise it is saved in turn, then listed. */
      if (assay_conversation_get_agent (self->conversation) != NULL)
        assay_session_store_reload (self->store);
      else
        assay_conversation_save (self->conversation);
      assay_chat_view_focus_composer (self->chat_view);
    }
  self->adding_files--;
  g_string_free (batch->added, TRUE);
  g_object_unref (batch->session);
  g_object_unref (batch->self);
  g_free (batch);
}

typedef struct
{
  AddBatch *batch;
  char     *name;
} AddFile;

static void
file_copied_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  AddFile *file = user_data;
  AddBatch *batch = file->batch;
  AssayWindow *self = batch->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = assay_session_copy_in_finish (ASSAY_SESSION (source), result, &error);
  g_autofree char *name = g_steal_pointer (&file->name);
  gboolean ok = FALSE;

  g_free (file);

  /* Another session was opened meanwhile (or the window closed): the copy stays in the
   * folder it was made for. */
  if (current_session (self) != batch->session || gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      if (--batch->pending == 0)
        add_batch_finish (batch);
      return;
    }
  /* Recorded (the model is told), then profiled for its prompt. */
  if (copy != NULL)
    ok = assay_conversation_add_dataset (self->conversation, copy, &error);
  if (!ok)
    {
      g_autofree char *text = NULL;

      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          text = g_strdup_printf (_("“%s” could not be added: %s"), name, error->message);
          show_toast (self, text);
        }
    }
  else
    {
      assay_data_preview_add_file (self->data_preview, copy);
      g_string_append_printf (batch->added, "%s%s", batch->added->len ? ", " : "", name);
    }
  if (--batch->pending == 0)
    add_batch_finish (batch);
}

gboolean
assay_window_get_adding_files (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return self->adding_files > 0;
}

void
assay_window_add_files (AssayWindow  *self,
                        GFile       **files,
                        guint         n_files)
{
  AddBatch *batch = NULL;

  g_return_if_fail (ASSAY_IS_WINDOW (self));

  if (self->opening_dir != NULL)
    {
      show_toast (self, _("A session is still opening; add the files once it is open"));
      return;
    }
  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);
      g_autofree char *name = g_file_get_basename (files[i]);

      if (path == NULL)
        {
          g_autofree char *text = g_strdup_printf (_("“%s” is not a file on this computer; Assay reads local files only"), name);

          show_toast (self, text);
          continue;
        }
      if (!is_supported (name))
        {
          g_autofree char *text = g_strdup_printf (_("“%s” cannot be used: Assay reads CSV, TSV, TXT and XLSX files"), name);

          show_toast (self, text);
          continue;
        }
      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          g_autofree char *text = g_strdup_printf (_("“%s” is not a readable file"), name);

          show_toast (self, text);
          continue;
        }
      if (!ensure_session (self))
        break;
      if (batch == NULL)
        {
          batch = g_new0 (AddBatch, 1);
          batch->self = g_object_ref (self);
          batch->session = g_object_ref (current_session (self));
          batch->added = g_string_new (NULL);
          self->adding_files++;
        }
      {
        AddFile *file = g_new0 (AddFile, 1);

        file->batch = batch;
        file->name = g_steal_pointer (&name);
        batch->pending++;
        assay_session_copy_in_async (current_session (self), path, self->cancellable, file_copied_cb, file);
      }
    }
}

static gboolean
drop_cb (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         AssayWindow   *self)
{
  GSList *list;
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  list = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = list; l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);
  assay_window_add_files (self, (GFile **) files->pdata, files->len);
  g_slist_free (list);
  return TRUE;
}

static void
open_response_cb (GtkNativeDialog *dialog,
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
open_data_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Open Data"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  gtk_file_filter_set_name (filter, _("Tables (CSV, TSV, TXT, XLSX)"));
  gtk_file_filter_add_suffix (filter, "csv");
  gtk_file_filter_add_suffix (filter, "tsv");
  gtk_file_filter_add_suffix (filter, "txt");
  gtk_file_filter_add_suffix (filter, "xlsx");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_signal_connect_object (chooser, "response", G_CALLBACK (open_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- artifacts ------------------------------------------------------------------------- */

static void
update_back_button (AssayWindow *self)
{
  gboolean viewer;

  if (self->artifacts_stack == NULL || self->view_stack == NULL || self->artifacts_back == NULL)
    return;
  viewer = g_strcmp0 (gtk_stack_get_visible_child_name (self->artifacts_stack), "viewer") == 0;
  gtk_widget_set_visible (self->artifacts_back,
                          viewer && g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "artifacts") == 0);
  update_actions (self);
}

static void
view_stack_notify_cb (AssayWindow *self)
{
  update_back_button (self);
}

static void
show_gallery (AssayWindow *self)
{
  gtk_stack_set_visible_child_name (self->artifacts_stack, "gallery");
  /* The viewer lets go of the file and of what it was loading. */
  assay_artifact_viewer_set_item (self->viewer, NULL);
  update_back_button (self);
}

/* The data page shows the current session's datasets (its own copies under data/). */
static void
reset_data_preview (AssayWindow *self)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  if (current_session (self) != NULL)
    {
      GPtrArray *datasets = assay_session_get_datasets (current_session (self));

      for (guint i = 0; i < datasets->len; i++)
        {
          AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);
          char *path = assay_session_resolve (current_session (self), dataset->path);

          if (path != NULL)
            g_ptr_array_add (paths, path);
        }
    }
  g_ptr_array_add (paths, NULL);
  assay_data_preview_set_files (self->data_preview, (const char * const *) paths->pdata);
}

/* The gallery follows the conversation's artifact list. */
static void
conversation_artifacts_cb (AssayWindow *self)
{
  show_gallery (self);
  assay_artifact_gallery_set_model (self->gallery, assay_conversation_get_artifacts (self->conversation));
}

/* Another session (or none): the data page shows its datasets, the gallery its files. */
static void
conversation_session_cb (AssayWindow *self)
{
  reset_data_preview (self);
  conversation_artifacts_cb (self);
  update_actions (self);
}

static void
show_artifact (AssayWindow       *self,
               AssayArtifactItem *item)
{
  assay_artifact_viewer_set_item (self->viewer, item);
  gtk_stack_set_visible_child_name (self->artifacts_stack, "viewer");
  adw_view_stack_set_visible_child_name (self->view_stack, "artifacts");
  update_back_button (self);
}

static void
gallery_activated_cb (AssayWindow       *self,
                      AssayArtifactItem *item)
{
  show_artifact (self, item);
}

static void
artifacts_back_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  show_gallery (ASSAY_WINDOW (widget));
}

/* The chat's figure thumbnails open the same viewer; the target is the file's path. */
static void
show_artifact_action (GtkWidget  *widget,
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
          show_artifact (self, item);
          return;
        }
    }
  show_toast (self, _("This file is not among the session’s files"));
}

/* ---- export ------------------------------------------------------------------------------ */

static void
export_progress_cb (double      fraction,
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
exported_cb (GObject      *source,
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
          update_actions (self);
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            show_toast (self, _("Export cancelled"));
          else
            {
              g_autofree char *text = g_strdup_printf (_("The report could not be exported: %s"), error->message);

              show_toast (self, text);
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
      update_actions (self);
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
  update_actions (self);
  /* The task holds the window until the export is done. */
  assay_report_export_async (current_session (self), options, path,
                             export_progress_cb, g_object_ref (self), g_object_unref,
                             self->export_cancellable, exported_cb, g_steal_pointer (&task));
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

static const char *
format_extension (AssayReportFormat format)
{
  return format == ASSAY_REPORT_FORMAT_IPYNB ? "ipynb" : assay_report_format_to_string (format);
}

/* The session's title as a file name: no folder separators, no leading dot. */
static char *
suggested_file_name (AssaySession      *session,
                     AssayReportFormat  format)
{
  const char *title = assay_session_get_title (session);
  g_autoptr(GString) name = g_string_new (NULL);

  for (const char *p = title != NULL ? title : ""; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '/' || c == '\\' || c == ':' || g_unichar_iscntrl (c))
        c = '-';
      if (name->len == 0 && (c == '.' || g_unichar_isspace (c)))
        continue;
      g_string_append_unichar (name, c);
    }
  while (name->len > 0 && g_ascii_isspace (name->str[name->len - 1]))
    g_string_truncate (name, name->len - 1);
  if (name->len > 120)
    {
      const char *end = g_utf8_find_prev_char (name->str, name->str + 120);

      g_string_truncate (name, end != NULL ? (gsize) (end - name->str) : 120);
    }
  if (name->len == 0)
    g_string_assign (name, _("Report"));
  g_string_append_printf (name, ".%s", format_extension (format));
  return g_string_free (g_steal_pointer (&name), FALSE);
}

static void
export_chooser_response_cb (GtkNativeDialog *chooser,
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
      if (file != NULL)
        assay_window_export_async (self, file, &options, NULL, NULL);
    }
  g_object_unref (chooser);
}

static void
export_dialog_response_cb (AdwMessageDialog *dialog,
                           const char       *response,
                           AssayWindow      *self)
{
  AdwComboRow *format_row = g_object_get_data (G_OBJECT (dialog), "format");
  GtkSwitch *successful = g_object_get_data (G_OBJECT (dialog), "only-successful");
  GtkSwitch *code = g_object_get_data (G_OBJECT (dialog), "include-code");
  static const char *names[] = { N_("PDF documents"), N_("Web pages"), N_("Jupyter notebooks") };
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  GtkFileChooserNative *chooser;

  if (!g_str_equal (response, "export") || current_session (self) == NULL)
    return;
  self->export_format = (AssayReportFormat) MIN (adw_combo_row_get_selected (format_row), ASSAY_REPORT_FORMAT_IPYNB);
  self->export_only_successful = gtk_switch_get_active (successful);
  self->export_include_code = gtk_switch_get_active (code);

  chooser = gtk_file_chooser_native_new (_("Export Report"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  name = suggested_file_name (current_session (self), self->export_format);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  gtk_file_filter_set_name (filter, _(names[self->export_format]));
  gtk_file_filter_add_suffix (filter, format_extension (self->export_format));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_signal_connect_object (chooser, "response", G_CALLBACK (export_chooser_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static GtkWidget *
switch_row (GtkWidget  *list,
            const char *title,
            const char *subtitle,
            gboolean    active)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();

  gtk_switch_set_active (GTK_SWITCH (toggle), active);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  gtk_list_box_append (GTK_LIST_BOX (list), row);
  return toggle;
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  const char *formats[] = { _("PDF"), _("HTML"), _("Jupyter Notebook"), NULL };
  g_autoptr(GtkStringList) model = gtk_string_list_new (formats);
  GtkWidget *dialog;
  GtkWidget *list;
  GtkWidget *format_row;
  GtkWidget *successful;
  GtkWidget *code;

  if (!assay_conversation_get_exportable (self->conversation) || self->export_cancellable != NULL)
    return;
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Export Report"),
                                   _("The conversation, its steps, results and figures in one file."));
  list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");

  format_row = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (format_row), _("Format"));
  adw_combo_row_set_model (ADW_COMBO_ROW (format_row), G_LIST_MODEL (model));
  adw_combo_row_set_selected (ADW_COMBO_ROW (format_row), self->export_format);
  gtk_list_box_append (GTK_LIST_BOX (list), format_row);
  successful = switch_row (list, _("Only Successful Steps"),
                           _("Leave out cells that failed or did not run"), self->export_only_successful);
  code = switch_row (list, _("Include Code"),
                     _("Show the code of every cell"), self->export_include_code);

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), list);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "export", _("_Export…"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "export", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "export");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "format", format_row);
  g_object_set_data (G_OBJECT (dialog), "only-successful", successful);
  g_object_set_data (G_OBJECT (dialog), "include-code", code);
  g_signal_connect_object (dialog, "response", G_CALLBACK (export_dialog_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
cancel_export_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  if (self->export_cancellable != NULL)
    g_cancellable_cancel (self->export_cancellable);
}

static void
report_launched_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(AssayWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error) &&
      !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *text = g_strdup_printf (_("The report could not be opened: %s"), error->message);

      show_toast (self, text);
    }
}

static void
open_report_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  g_autoptr(GdkAppLaunchContext) context = gdk_display_get_app_launch_context (gtk_widget_get_display (widget));

  g_app_info_launch_default_for_uri_async (g_variant_get_string (parameter, NULL), G_APP_LAUNCH_CONTEXT (context),
                                           self->cancellable, report_launched_cb, g_object_ref (self));
}

/* ---- first run and the demo ------------------------------------------------------------- */

static char *
find_demo_file (const char *name)
{
  const char *env = g_getenv ("ASSAY_DEMO_DIR");
  g_autofree char *installed = g_build_filename (ASSAY_PKGDATADIR, "demo", name, NULL);

  if (env != NULL)
    return g_build_filename (env, name, NULL);
  if (g_file_test (installed, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&installed);
#ifdef ASSAY_BUILD_DEMO_DIR
  return g_build_filename (ASSAY_BUILD_DEMO_DIR, name, NULL);
#else
  return g_steal_pointer (&installed);
#endif
}

void
assay_window_start_demo (AssayWindow *self)
{
  g_autofree char *transcript = find_demo_file ("sales-transcript.json");
  g_autofree char *csv = find_demo_file ("sales.csv");
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;

  g_return_if_fail (ASSAY_IS_WINDOW (self));
  if (assay_conversation_get_busy (self->conversation))
    return;
  provider = assay_recorded_provider_new (transcript, &error);
  if (provider == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The demo is not installed: %s"), error->message);

      show_toast (self, text);
      return;
    }
  abandon_open (self);
  forget_session (self);
  assay_window_set_provider (self, provider, "recorded", TRUE);
  gtk_stack_set_visible_child_name (self->main_stack, "main");
  file = g_file_new_for_path (csv);
  assay_window_add_files (self, &file, 1);
  assay_chat_view_set_composer_text (self->chat_view,
                                     "Analyse Q3 sales: check the structure, clean the data, show the monthly "
                                     "dynamics, an ABC analysis, the conversion funnel, and make a PDF report.");
}

static void
try_demo_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  assay_window_start_demo (ASSAY_WINDOW (widget));
}

static void
onboarding_demo_cb (AssayWindow *self)
{
  assay_window_start_demo (self);
}

static void
key_stored_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(AssayWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!assay_keyring_store_finish (result, &error) && !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *text = g_strdup_printf (_("The key could not be stored in the keyring: %s"), error->message);

      show_toast (self, text);
    }
}

static void
onboarding_configured_cb (AssayWindow *self,
                          const char  *provider,
                          const char  *base_url,
                          const char  *model,
                          const char  *key)
{
  if (model == NULL)
    model = g_str_equal (provider, "anthropic") || base_url == NULL
            ? assay_model_choice_get_default (provider) : "";
  g_settings_set_string (self->settings, "provider", provider);
  g_settings_set_string (self->settings, "base-url", base_url ? base_url : "");
  g_settings_set_string (self->settings, "model", model);
  if (key != NULL && *key != '\0')
    assay_keyring_store_async (provider, base_url, key, self->cancellable, key_stored_cb, g_object_ref (self));
  assay_conversation_forget_provider (self->conversation);
  gtk_stack_set_visible_child_name (self->main_stack, "main");
  assay_chat_view_focus_composer (self->chat_view);
}

/* ---- public ----------------------------------------------------------------------------- */

void
assay_window_set_provider (AssayWindow      *self,
                           AssayLlmProvider *provider,
                           const char       *model,
                           gboolean          recorded)
{
  g_return_if_fail (ASSAY_IS_WINDOW (self));
  g_return_if_fail (!assay_conversation_get_busy (self->conversation));

  assay_conversation_set_provider (self->conversation, provider, model, recorded);
  if (provider != NULL)
    gtk_stack_set_visible_child_name (self->main_stack, "main");
}

AssaySession *
assay_window_get_session (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return current_session (self);
}

gboolean
assay_window_get_busy (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return assay_conversation_get_busy (self->conversation);
}

const char *
assay_window_get_backend_reason (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return assay_conversation_get_backend_reason (self->conversation);
}

const char *
assay_window_get_page (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->main_stack);
}

const char *
assay_window_get_last_toast (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->last_toast;
}

AssayChatView *
assay_window_get_chat_view (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->chat_view;
}

AssayCodeReview *
assay_window_get_code_review (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->code_review;
}

AssaySessionsSidebar *
assay_window_get_sidebar (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->sidebar;
}

AssayOnboarding *
assay_window_get_onboarding (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->onboarding;
}

AssayArtifactGallery *
assay_window_get_gallery (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->gallery;
}

AssayArtifactViewer *
assay_window_get_viewer (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->viewer;
}

const char *
assay_window_get_artifacts_page (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->artifacts_stack);
}

const char *
assay_window_get_kernel_id (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return assay_conversation_get_kernel_id (self->conversation);
}

/* ---- GObject ------------------------------------------------------------------------------ */

/* The window closes (close-request, or gtk_window_destroy, which unrealizes it): what runs
 * stops. The conversation cancels a question in flight like win.stop does and closes the
 * kernel once the agent has recorded how it ended, holding the application until then; the
 * store drops its waiting jobs but for saves. Nothing here waits. */
static void
shut_down (AssayWindow *self)
{
  if (self->closing)
    return;
  self->closing = TRUE;
  g_cancellable_cancel (self->cancellable);
  if (self->store != NULL)
    assay_session_store_shutdown (self->store);
  if (self->export_cancellable != NULL)
    g_cancellable_cancel (self->export_cancellable);
  if (self->conversation != NULL)
    assay_conversation_close (self->conversation,
                              G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
}

static void
assay_window_unrealize (GtkWidget *widget)
{
  shut_down (ASSAY_WINDOW (widget));
  GTK_WIDGET_CLASS (assay_window_parent_class)->unrealize (widget);
}

static gboolean
assay_window_close_request (GtkWindow *window)
{
  AssayWindow *self = ASSAY_WINDOW (window);
  int width, height;

  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  shut_down (self);
  return GTK_WINDOW_CLASS (assay_window_parent_class)->close_request (window);
}

static void
assay_window_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, assay_conversation_get_busy (ASSAY_WINDOW (object)->conversation));
      break;
    case PROP_OPENING:
      g_value_set_boolean (value, ASSAY_WINDOW (object)->opening_dir != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_window_dispose (GObject *object)
{
  AssayWindow *self = ASSAY_WINDOW (object);

  /* Never realized, or destroyed without closing: the same as closing. */
  shut_down (self);
  if (self->conversation != NULL)
    g_signal_handlers_disconnect_by_data (self->conversation, self);
  g_clear_object (&self->toasts);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_WINDOW);
  g_clear_object (&self->conversation);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (assay_window_parent_class)->dispose (object);
}

static void
assay_window_finalize (GObject *object)
{
  AssayWindow *self = ASSAY_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->export_cancellable);
  g_free (self->last_toast);
  g_free (self->opening_dir);
  G_OBJECT_CLASS (assay_window_parent_class)->finalize (object);
}

/* ASSAY_REPORT_FIRST_FRAME=1 prints the monotonic time (g_get_monotonic_time, CLOCK_MONOTONIC)
 * of the window's first painted frame to stderr; ASSAY_QUIT_AFTER_FIRST_FRAME=1 also quits
 * the application then. For the start-up benchmark (tests/bench-app.py). */
static void
first_frame_painted_cb (GdkFrameClock *clock,
                        AssayWindow   *self)
{
  GApplication *application = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));

  g_signal_handlers_disconnect_by_func (clock, first_frame_painted_cb, self);
  g_printerr ("assay-first-frame-us %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  if (g_strcmp0 (g_getenv ("ASSAY_QUIT_AFTER_FIRST_FRAME"), "1") == 0 && application != NULL)
    g_application_quit (application);
}

static void
first_frame_realize_cb (AssayWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  g_signal_handlers_disconnect_by_func (self, first_frame_realize_cb, NULL);
  if (clock != NULL)
    g_signal_connect_object (clock, "after-paint", G_CALLBACK (first_frame_painted_cb), self, 0);
}

static void
assay_window_class_init (AssayWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = assay_window_dispose;
  object_class->finalize = assay_window_finalize;
  object_class->get_property = assay_window_get_property;
  window_class->close_request = assay_window_close_request;
  widget_class->unrealize = assay_window_unrealize;

  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* A session is being opened (read in a worker); the chat says so meanwhile. */
  properties[PROP_OPENING] = g_param_spec_boolean ("opening", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The session in DIR was opened and is shown (emitted before "opening" goes FALSE). */
  signals[SESSION_OPENED] = g_signal_new ("session-opened", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_STRING);

  assay_app_ensure_resources ();
  g_type_ensure (ASSAY_TYPE_CHAT_VIEW);
  g_type_ensure (ASSAY_TYPE_CODE_REVIEW);
  g_type_ensure (ASSAY_TYPE_ONBOARDING);
  g_type_ensure (ASSAY_TYPE_SANDBOX_BANNER);
  g_type_ensure (ASSAY_TYPE_SESSIONS_SIDEBAR);
  g_type_ensure (ASSAY_TYPE_ARTIFACT_GALLERY);
  g_type_ensure (ASSAY_TYPE_ARTIFACT_VIEWER);
  g_type_ensure (ASSAY_TYPE_DATA_PREVIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-window.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, flap);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, sandbox_banner);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, demo_revealer);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, chat_view);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, code_review);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, onboarding);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, artifacts_back);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, artifacts_stack);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, gallery);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, viewer);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, data_preview);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, export_revealer);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, export_label);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, export_progress);
  gtk_widget_class_bind_template_callback (widget_class, session_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, onboarding_configured_cb);
  gtk_widget_class_bind_template_callback (widget_class, onboarding_demo_cb);
  gtk_widget_class_bind_template_callback (widget_class, view_stack_notify_cb);
  gtk_widget_class_bind_template_callback (widget_class, gallery_activated_cb);

  gtk_widget_class_install_action (widget_class, "win.send", NULL, send_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "win.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "win.new-session", NULL, new_session_action);
  gtk_widget_class_install_action (widget_class, "win.open-data", NULL, open_data_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-sidebar", NULL, toggle_sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.try-demo", NULL, try_demo_action);
  gtk_widget_class_install_action (widget_class, "win.open-session", "s", open_session_action);
  gtk_widget_class_install_action (widget_class, "win.rename-session", "s", rename_session_action);
  gtk_widget_class_install_action (widget_class, "win.delete-session", "s", delete_session_action);
  gtk_widget_class_install_action (widget_class, "win.show-artifact", "s", show_artifact_action);
  gtk_widget_class_install_action (widget_class, "win.artifacts-back", NULL, artifacts_back_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-export", NULL, cancel_export_action);
  gtk_widget_class_install_action (widget_class, "win.open-report", "s", open_report_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.artifacts-back", NULL);
}

static void
assay_window_init (AssayWindow *self)
{
  GtkDropTarget *drop;
  g_autofree char *provider = NULL;
  static const char * const local_urls[] = { "http://localhost:11434/v1", "http://localhost:8080/v1", NULL };
  static const char * const local_names[] = { "Ollama", "llama.cpp", NULL };

  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->store = assay_session_store_new (NULL);
  assay_sessions_sidebar_set_store (self->sidebar, self->store);
  self->toasts = assay_toast_queue_new (self->toast_overlay);
  self->export_format = ASSAY_REPORT_FORMAT_PDF;
  self->export_include_code = TRUE;
  self->settings = g_settings_new ("org.assay.Assay");

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  g_settings_bind (self->settings, "sidebar-visible", self->flap, "reveal-flap", G_SETTINGS_BIND_DEFAULT);
  self->conversation = assay_conversation_new (self->settings, self->store);
  g_signal_connect_swapped (self->conversation, "notify::busy", G_CALLBACK (conversation_busy_cb), self);
  g_signal_connect_swapped (self->conversation, "notify::exportable", G_CALLBACK (update_actions), self);
  g_signal_connect_swapped (self->conversation, "notify::waiting", G_CALLBACK (conversation_waiting_cb), self);
  g_signal_connect_swapped (self->conversation, "notify::recorded", G_CALLBACK (conversation_recorded_cb), self);
  g_signal_connect_swapped (self->conversation, "notify::session", G_CALLBACK (conversation_session_cb), self);
  g_signal_connect_swapped (self->conversation, "notify::artifacts", G_CALLBACK (conversation_artifacts_cb), self);
  g_signal_connect_swapped (self->conversation, "needs-model", G_CALLBACK (conversation_needs_model_cb), self);
  g_signal_connect_swapped (self->conversation, "error", G_CALLBACK (conversation_error_cb), self);
  assay_chat_view_set_conversation (self->chat_view, self->conversation);
  assay_code_review_set_conversation (self->code_review, self->conversation);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  provider = g_settings_get_string (self->settings, "provider");
  if (*provider == '\0')
    {
      gtk_stack_set_visible_child_name (self->main_stack, "onboarding");
      if (g_getenv ("ASSAY_NO_LOCAL_DETECT") == NULL)
        assay_onboarding_detect (self->onboarding, local_urls, local_names);
    }
  else
    gtk_stack_set_visible_child_name (self->main_stack, "main");

  assay_session_store_reload (self->store);
  assay_sandbox_banner_check (self->sandbox_banner);
  update_actions (self);

  if (g_strcmp0 (g_getenv ("ASSAY_REPORT_FIRST_FRAME"), "1") == 0 ||
      g_strcmp0 (g_getenv ("ASSAY_QUIT_AFTER_FIRST_FRAME"), "1") == 0)
    g_signal_connect_after (self, "realize", G_CALLBACK (first_frame_realize_cb), NULL);
}

AssayWindow *
assay_window_new (GtkApplication *application)
{
  return g_object_new (ASSAY_TYPE_WINDOW, "application", application, NULL);
}
