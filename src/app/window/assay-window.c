/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The main window, a view: the question's flow lives in AssayConversation, which the chat
 * and the code review follow; the saved sessions and their jobs in AssaySessionStore, which
 * the sidebar shows. The window turns actions, drops and dialogs into calls on them. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-revealer.h"
#include "assay-window-private.h"


G_DEFINE_FINAL_TYPE (AssayWindow, assay_window, ADW_TYPE_APPLICATION_WINDOW)

enum { PROP_0, PROP_BUSY, PROP_OPENING, PROP_PRIVACY_MODE, N_PROPS };
static GParamSpec *properties[N_PROPS];

enum { SESSION_OPENED, N_SIGNALS };
static guint signals[N_SIGNALS];

void
assay_window_show_toast (AssayWindow *self,
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

/* ---- the question ------------------------------------------------------------------------ */

/* The conversation owns the question's flow; the window follows its state. */
static void
assay_window_conversation_busy_cb (AssayWindow *self)
{
  assay_window_update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* A cell waits for approval: the code review is on the chat page, and where the window is
 * too narrow for both side by side, it is the page shown; once the cell is answered the
 * conversation is shown again, to follow the run. */
static void
assay_window_conversation_waiting_cb (AssayWindow *self)
{
  if (assay_conversation_get_waiting (self->conversation) != NULL)
    {
      adw_view_stack_set_visible_child_name (self->view_stack, "chat");
      adw_leaflet_set_visible_child (self->chat_leaflet, GTK_WIDGET (self->code_review));
    }
  else
    adw_leaflet_set_visible_child (self->chat_leaflet, GTK_WIDGET (self->chat_view));
}

static void
assay_window_conversation_recorded_cb (AssayWindow *self)
{
  gtk_revealer_set_reveal_child (self->demo_revealer, assay_conversation_get_recorded (self->conversation));
}

static void
assay_window_conversation_needs_model_cb (AssayWindow *self)
{
  assay_window_show_onboarding (self);
}

static void
assay_window_conversation_error_cb (AssayWindow *self,
                                    const char  *message)
{
  assay_window_show_toast (self, message);
}

gboolean
assay_window_ensure_session (AssayWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (assay_conversation_get_session (self->conversation) != NULL)
    return TRUE;
  if (!assay_conversation_ensure_session (self->conversation, &error))
    {
      g_autofree char *text = g_strdup_printf (_("The session could not be created: %s"), error->message);

      assay_window_show_toast (self, text);
      return FALSE;
    }
  assay_sessions_sidebar_select (self->sidebar,
                                 assay_session_get_dir (assay_conversation_get_session (self->conversation)));
  return TRUE;
}

/* ---- sessions --------------------------------------------------------------------------- */

AssaySession *
assay_window_current_session (AssayWindow *self)
{
  return assay_conversation_get_session (self->conversation);
}

/* No session: the chat, the code review, the gallery and the data page follow. */
static void
assay_window_forget_session (AssayWindow *self)
{
  assay_conversation_set_session (self->conversation, NULL, NULL);
}

gboolean
assay_window_is_current_session (AssayWindow *self,
                                 const char  *dir)
{
  return assay_window_current_session (self) != NULL && g_strcmp0 (assay_session_get_dir (assay_window_current_session (self)), dir) == 0;
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
assay_window_set_opening (AssayWindow *self,
                          const char  *dir)
{
  gboolean was_opening = self->opening_dir != NULL;

  g_free (self->opening_dir);
  self->opening_dir = g_strdup (dir);
  if (was_opening != (dir != NULL))
    {
      assay_window_update_actions (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPENING]);
    }
}

/* The open asked for last is not wanted any more. The chat keeps showing it is opening:
 * the caller says what comes instead (see assay_window_abandon_open). */
static void
assay_window_cancel_open (AssayWindow *self)
{
  if (self->opening_dir == NULL)
    return;
  assay_session_store_cancel_open (self->store);
  assay_window_set_opening (self, NULL);
}

/* Back to the current session, as it was before the open was asked for. */
static void
assay_window_abandon_open (AssayWindow *self)
{
  if (self->opening_dir == NULL)
    return;
  assay_window_cancel_open (self);
  assay_chat_view_set_loading (self->chat_view, FALSE);
  assay_sessions_sidebar_select (self->sidebar,
                                 assay_window_current_session (self) != NULL ? assay_session_get_dir (assay_window_current_session (self)) : NULL);
}

/* What the analyst reads when a session cannot be opened. */
static char *
assay_window_open_error_text (const GError *error)
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
assay_window_session_opened_cb (GObject      *source,
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
      g_autofree char *text = assay_window_open_error_text (error);

      assay_window_abandon_open (self);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        assay_window_show_toast (self, text);
      return;
    }

  /* No question can have started meanwhile: win.send waits for the session. The views
   * follow the conversation to it. */
  dir = g_strdup (self->opening_dir);
  assay_conversation_set_session (self->conversation, session, artifacts);
  assay_chat_view_set_loading (self->chat_view, FALSE);
  assay_sessions_sidebar_select (self->sidebar, dir);
  g_signal_emit (self, signals[SESSION_OPENED], 0, dir);
  assay_window_set_opening (self, NULL);
}

void
assay_window_new_session (AssayWindow *self)
{
  g_return_if_fail (ASSAY_IS_WINDOW (self));
  if (assay_conversation_get_busy (self->conversation))
    return;
  assay_window_abandon_open (self);
  assay_window_forget_session (self);
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
  if (assay_window_is_current_session (self, canonical))
    {
      assay_window_abandon_open (self);
      return TRUE;
    }
  request = g_new0 (OpenRequest, 1);
  g_weak_ref_init (&request->window, self);
  request->serial = ++self->open_serial;
  assay_chat_view_set_loading (self->chat_view, TRUE);
  assay_sessions_sidebar_select (self->sidebar, canonical);
  assay_window_set_opening (self, canonical);
  assay_session_store_open_async (self->store, canonical, assay_window_session_opened_cb, request);
  return TRUE;
}

gboolean
assay_window_get_opening (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return self->opening_dir != NULL;
}

static void
assay_window_store_job_done_cb (GObject      *source,
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
                                    assay_window_is_current_session (self,
                                                                     canonical) ? assay_window_current_session (self) : NULL,
                                    assay_window_store_job_done_cb, caller);
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
    assay_window_abandon_open (self);
  if (assay_window_is_current_session (self, canonical))
    {
      assay_window_forget_session (self);
      assay_sessions_sidebar_select (self->sidebar, NULL);
    }
  assay_session_store_delete_async (self->store, canonical, assay_window_store_job_done_cb, caller);
}

gboolean
assay_window_delete_session_finish (AssayWindow   *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

AssayConversation *
assay_window_get_conversation (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->conversation;
}

AssaySessionStore *
assay_window_get_session_store (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->store;
}

void
assay_window_session_activated (AssayWindow *self,
                                const char  *dir)
{
  g_autoptr(GError) error = NULL;

  if (!assay_window_open_session (self, dir, &error))
    assay_window_show_toast (self, error->message);
  else if (adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, FALSE);
}

/* ---- data files ----------------------------------------------------------------------- */

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
  assay_window_ensure_data_page (self);
  return self->data_preview;
}

AssayConnectionsView *
assay_window_get_connections_view (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  assay_window_ensure_data_page (self);
  return self->connections_view;
}

GtkWindow *
assay_window_get_connect_dialog (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  return self->connect_dialog;
}

/* ---- artifacts ------------------------------------------------------------------------- */

static void
assay_window_update_back_button (AssayWindow *self)
{
  gboolean viewer;

  if (self->view_stack == NULL || self->artifacts_back == NULL)
    return;
  viewer = self->artifacts_stack != NULL &&
           g_strcmp0 (gtk_stack_get_visible_child_name (self->artifacts_stack), "viewer") == 0;
  gtk_widget_set_visible (self->artifacts_back,
                          viewer && g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "artifacts") == 0);
  assay_window_update_actions (self);
}

/* Folded, the chat page shows the conversation or the code: the header's buttons go from
 * one to the other. */
static void
assay_window_update_chat_buttons (AssayWindow *self)
{
  gboolean folded, on_chat, code_shown;

  if (self->chat_leaflet == NULL || self->view_stack == NULL || self->code_back == NULL || self->code_button == NULL)
    return;
  folded = adw_leaflet_get_folded (self->chat_leaflet);
  on_chat = g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "chat") == 0;
  code_shown = adw_leaflet_get_visible_child (self->chat_leaflet) == GTK_WIDGET (self->code_review);
  gtk_widget_set_visible (self->code_back, folded && on_chat && code_shown);
  gtk_widget_set_visible (self->code_button, folded && on_chat && !code_shown);
  assay_window_update_actions (self);
}

/* The view stack's page, or the Files page's, changed: a page is made as it is first shown. */
void
assay_window_update_pages (AssayWindow *self)
{
  const char *name = adw_view_stack_get_visible_child_name (self->view_stack);

  if (g_strcmp0 (name, "artifacts") == 0)
    assay_window_ensure_files_page (self);
  else if (g_strcmp0 (name, "data") == 0)
    assay_window_ensure_data_page (self);
  /* The page now shown was not laid out while hidden. A stack only queues an allocation for
   * it: GTK then lays it out without measuring the window again, and a text view on the page
   * that measures its lines as it is allocated asks for a new size up to the window, which
   * nothing lays out before the frame is drawn ("snapshot without a current allocation", a
   * blank window until the next frame). A resize lays the window out from the top. */
  gtk_widget_queue_resize (GTK_WIDGET (self->view_stack));
  assay_window_update_back_button (self);
  assay_window_update_chat_buttons (self);
}

static gboolean
assay_window_chat_buttons_idle_cb (gpointer user_data)
{
  AssayWindow *self = user_data;

  self->chat_buttons_idle = 0;
  assay_window_update_chat_buttons (self);
  return G_SOURCE_REMOVE;
}

/* The leaflet folds while it is laid out: the header's buttons change after that, not in the
 * middle of the window's layout (a header bar then drawn without its allocation). */
static void
assay_window_chat_leaflet_notify_cb (AssayWindow *self)
{
  if (self->chat_buttons_idle == 0)
    self->chat_buttons_idle = g_idle_add_full (G_PRIORITY_DEFAULT, assay_window_chat_buttons_idle_cb, self, NULL);
}

void
assay_window_show_gallery (AssayWindow *self)
{
  if (self->artifacts_stack == NULL)
    return;
  gtk_stack_set_visible_child_name (self->artifacts_stack, "gallery");
  /* The viewer lets go of the file and of what it was loading. */
  assay_artifact_viewer_set_item (self->viewer, NULL);
  assay_window_update_back_button (self);
}

/* The data page shows the current session's datasets (its own copies under data/). */
void
assay_window_reset_data_preview (AssayWindow *self)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  if (self->data_preview == NULL)
    {
      assay_window_update_data_page (self);
      return;
    }
  if (assay_window_current_session (self) != NULL)
    {
      GPtrArray *datasets = assay_session_get_datasets (assay_window_current_session (self));

      for (guint i = 0; i < datasets->len; i++)
        {
          AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);
          char *path = assay_session_resolve (assay_window_current_session (self), dataset->path);

          if (path != NULL)
            g_ptr_array_add (paths, path);
        }
    }
  g_ptr_array_add (paths, NULL);
  assay_data_preview_set_files (self->data_preview, (const char * const *) paths->pdata);
  assay_window_update_data_page (self);
}

/* The chips above the composer: the session's datasets (targets their copies' paths) and
 * databases ("db:NAME"). */
static void
assay_window_update_sources (AssayWindow *self)
{
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) targets = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) icons = g_strv_builder_new ();
  GListModel *connections = assay_conversation_get_connections (self->conversation);
  AssaySession *session = assay_window_current_session (self);
  g_auto(GStrv) name_list = NULL;
  g_auto(GStrv) target_list = NULL;
  g_auto(GStrv) icon_list = NULL;

  for (guint i = 0; session != NULL && i < assay_session_get_datasets (session)->len; i++)
    {
      AssaySessionDataset *dataset = g_ptr_array_index (assay_session_get_datasets (session), i);
      g_autofree char *path = assay_session_resolve (session, dataset->path);

      if (path == NULL)
        continue;
      g_strv_builder_add (names, dataset->name);
      g_strv_builder_add (targets, path);
      g_strv_builder_add (icons, "x-office-spreadsheet-symbolic");
    }
  for (guint i = 0; i < g_list_model_get_n_items (connections); i++)
    {
      g_autoptr(AssayConnection) connection = g_list_model_get_item (connections, i);
      g_autofree char *target = g_strconcat ("db:", assay_connection_get_name (connection), NULL);

      g_strv_builder_add (names, assay_connection_get_name (connection));
      g_strv_builder_add (targets, target);
      g_strv_builder_add (icons, "assay-network-server-symbolic");
    }
  name_list = g_strv_builder_end (names);
  target_list = g_strv_builder_end (targets);
  icon_list = g_strv_builder_end (icons);
  assay_chat_view_set_sources (self->chat_view, (const char * const *) name_list, (const char * const *) target_list,
                               (const char * const *) icon_list);
}

void
assay_window_update_data_page (AssayWindow *self)
{
  gboolean any;

  /* The conversation lets go of its databases as the window goes. */
  if (self->conversation == NULL)
    return;
  if (self->data_stack == NULL)
    {
      assay_window_update_sources (self);
      return;
    }
  any = assay_data_preview_get_n_files (self->data_preview) > 0 ||
                 g_list_model_get_n_items (assay_conversation_get_connections (self->conversation)) > 0;

  gtk_stack_set_visible_child_name (self->data_stack, any ? "content" : "empty");
  assay_window_update_sources (self);
  /* Databases alone: no empty preview under them. */
  gtk_widget_set_visible (GTK_WIDGET (self->data_preview), assay_data_preview_get_n_files (self->data_preview) > 0);
}

/* The gallery follows the conversation's artifact list. */
static void
assay_window_conversation_artifacts_cb (AssayWindow *self)
{
  if (self->gallery == NULL)
    return;
  assay_window_show_gallery (self);
  assay_artifact_gallery_set_model (self->gallery, assay_conversation_get_artifacts (self->conversation));
}

/* Another session (or none): the data page shows its datasets, the gallery its files. */
static void
assay_window_conversation_session_cb (AssayWindow *self)
{
  assay_window_reset_data_preview (self);
  assay_window_update_masks (self);
  assay_window_conversation_artifacts_cb (self);
  assay_window_update_actions (self);
}

void
assay_window_show_artifact (AssayWindow       *self,
                            AssayArtifactItem *item)
{
  assay_window_ensure_files_page (self);
  assay_artifact_viewer_set_item (self->viewer, item);
  gtk_stack_set_visible_child_name (self->artifacts_stack, "viewer");
  adw_view_stack_set_visible_child_name (self->view_stack, "artifacts");
  assay_window_update_back_button (self);
}

/* ---- export ------------------------------------------------------------------------------ */

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
  return assay_window_current_session (self);
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

/* The onboarding page's content, made the first time it is asked for. */
AssayOnboarding *
assay_window_get_onboarding (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);

  if (self->onboarding == NULL)
    {
      self->onboarding = g_object_new (ASSAY_TYPE_ONBOARDING, "vexpand", TRUE, NULL);
      g_signal_connect_swapped (self->onboarding, "configured",
                                G_CALLBACK (assay_window_onboarding_configured), self);
      g_signal_connect_swapped (self->onboarding, "demo-requested",
                                G_CALLBACK (assay_window_onboarding_demo), self);
      gtk_box_append (self->onboarding_box, GTK_WIDGET (self->onboarding));
    }
  return self->onboarding;
}

void
assay_window_show_onboarding (AssayWindow *self)
{
  assay_window_get_onboarding (self);
  gtk_stack_set_visible_child_name (self->main_stack, "onboarding");
}

AssayArtifactGallery *
assay_window_get_gallery (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  assay_window_ensure_files_page (self);
  return self->gallery;
}

AssayArtifactViewer *
assay_window_get_viewer (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  assay_window_ensure_files_page (self);
  return self->viewer;
}

const char *
assay_window_get_artifacts_page (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), NULL);
  /* Not made yet: the gallery is what it would show first. */
  if (self->artifacts_stack == NULL)
    return "gallery";
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
assay_window_shut_down (AssayWindow *self)
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

/* Toasts stand above what they would cover at the window's foot: the data's chips and the
 * composer with its send button (taller as a question grows, and at narrow widths, where the page switcher is
 * under it), or the page switcher alone. Measured after each frame is drawn; a change of
 * more than a few pixels restyles the toasts. */
static void
assay_window_place_toasts_cb (GdkFrameClock *clock,
                              AssayWindow   *self)
{
  GtkWidget *composer = assay_chat_view_get_foot (self->chat_view);
  GtkWidget *foot = gtk_widget_get_mapped (composer) ? composer : GTK_WIDGET (self->view_stack);
  graphene_rect_t bounds;
  int margin = 0;

  if (gtk_widget_compute_bounds (foot, GTK_WIDGET (self->toast_overlay), &bounds))
    margin = gtk_widget_get_height (GTK_WIDGET (self->toast_overlay)) -
             (int) (foot == composer ? bounds.origin.y : bounds.origin.y + bounds.size.height);
  margin = CLAMP (margin, 0, 400);
  if (ABS (margin - self->toast_margin) <= 2)
    return;
  self->toast_margin = margin;
  {
    g_autofree char *css = g_strdup_printf (".%s toast { margin-bottom: %dpx; }",
                                            (const char *) g_object_get_data (G_OBJECT (self), "assay-toast-class"),
                                            margin + 6);

    gtk_css_provider_load_from_data (self->toast_css, css, -1);
  }
}

static void
assay_window_realize (GtkWidget *widget)
{
  AssayWindow *self = ASSAY_WINDOW (widget);

  GTK_WIDGET_CLASS (assay_window_parent_class)->realize (widget);
  if (g_object_get_data (G_OBJECT (widget), "assay-toast-class") == NULL)
    {
      static guint n_windows;
      char *css_class = g_strdup_printf ("assay-toasts-%u", ++n_windows);

      /* This window's toasts only: another window's composer may be taller. */
      gtk_widget_add_css_class (widget, css_class);
      g_object_set_data_full (G_OBJECT (widget), "assay-toast-class", css_class, g_free);
    }
  if (self->toast_css == NULL)
    {
      self->toast_css = gtk_css_provider_new ();
      gtk_style_context_add_provider_for_display (gtk_widget_get_display (widget), GTK_STYLE_PROVIDER (self->toast_css),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
      /* A new provider has no margin yet: measured again after the next frame. */
      self->toast_margin = -1000;
    }
  g_signal_connect_object (gtk_widget_get_frame_clock (widget), "after-paint",
                           G_CALLBACK (assay_window_place_toasts_cb), self, 0);
}

static void
assay_window_unrealize (GtkWidget *widget)
{
  AssayWindow *self = ASSAY_WINDOW (widget);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);

  if (clock != NULL)
    g_signal_handlers_disconnect_by_func (clock, assay_window_place_toasts_cb, self);
  if (self->toast_css != NULL)
    {
      gtk_style_context_remove_provider_for_display (gtk_widget_get_display (widget),
                                                     GTK_STYLE_PROVIDER (self->toast_css));
      g_clear_object (&self->toast_css);
    }
  assay_window_shut_down (self);
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
  assay_window_shut_down (self);
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
    case PROP_PRIVACY_MODE:
      g_value_set_string (value, assay_window_get_privacy_mode_name (ASSAY_WINDOW (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_window_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_PRIVACY_MODE:
      assay_window_set_privacy_mode_name (ASSAY_WINDOW (object), g_value_get_string (value));
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
  assay_window_shut_down (self);
  g_clear_handle_id (&self->chat_buttons_idle, g_source_remove);
  if (self->connect_dialog != NULL)
    {
      GtkWindow *dialog = self->connect_dialog;

      g_clear_weak_pointer (&self->connect_dialog);
      gtk_window_destroy (dialog);
    }
  if (self->conversation != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->conversation, self);
      g_signal_handlers_disconnect_by_data (assay_conversation_get_connections (self->conversation), self);
    }
  g_clear_object (&self->toasts);
  /* Pages are made as they are shown: not as the stacks let go of them. */
  if (self->view_stack != NULL)
    g_signal_handlers_disconnect_by_func (self->view_stack, assay_window_update_pages, self);
  if (self->artifacts_stack != NULL)
    g_signal_handlers_disconnect_by_data (self->artifacts_stack, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_WINDOW);
  /* Those made after the template went with it. */
  self->onboarding = NULL;
  self->artifacts_stack = NULL;
  self->gallery = NULL;
  self->viewer = NULL;
  self->data_stack = NULL;
  self->connections_view = NULL;
  self->data_preview = NULL;
  g_clear_object (&self->destination);
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
 * of the window's first painted frame to stderr, and the page it shows (onboarding or main);
 * ASSAY_QUIT_AFTER_FIRST_FRAME=1 also quits the application then. For the start-up benchmark
 * (tests/bench-app.py) and the README command's test (tests/test-setup-and-run.sh). */
static void
assay_window_first_frame_painted_cb (GdkFrameClock *clock,
                                     AssayWindow   *self)
{
  GApplication *application = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));

  g_signal_handlers_disconnect_by_func (clock, assay_window_first_frame_painted_cb, self);
  g_printerr ("assay-first-frame-us %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_printerr ("assay-first-frame-page %s\n", gtk_stack_get_visible_child_name (self->main_stack));
  if (g_strcmp0 (g_getenv ("ASSAY_QUIT_AFTER_FIRST_FRAME"), "1") == 0 && application != NULL)
    g_application_quit (application);
}

static void
assay_window_first_frame_realize_cb (AssayWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  g_signal_handlers_disconnect_by_func (self, assay_window_first_frame_realize_cb, NULL);
  if (clock != NULL)
    g_signal_connect_object (clock, "after-paint", G_CALLBACK (assay_window_first_frame_painted_cb), self, 0);
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
  object_class->set_property = assay_window_set_property;
  window_class->close_request = assay_window_close_request;
  widget_class->realize = assay_window_realize;
  widget_class->unrealize = assay_window_unrealize;

  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* A session is being opened (read in a worker); the chat says so meanwhile. */
  properties[PROP_OPENING] = g_param_spec_boolean ("opening", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The current session's privacy mode ("full", "masked", "schema"), for win.privacy-mode:
   * the conversation decides whether a new one is taken. */
  properties[PROP_PRIVACY_MODE] = g_param_spec_string ("privacy-mode", NULL, NULL, "full",
                                                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
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
  g_type_ensure (ASSAY_TYPE_CONNECTIONS_VIEW);
  g_type_ensure (ASSAY_TYPE_DESTINATION_BUTTON);
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
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, chat_leaflet);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, code_back);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, code_button);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, onboarding_box);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, artifacts_back);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, files_bin);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, data_bin);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, export_revealer);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, export_label);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, export_progress);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, destination_button);
  gtk_widget_class_bind_template_child (widget_class, AssayWindow, switcher_title);
  gtk_widget_class_bind_template_callback_full (widget_class,
                                                "session_activated_cb",
                                                G_CALLBACK (assay_window_session_activated));
  gtk_widget_class_bind_template_callback (widget_class, assay_window_update_pages);
  gtk_widget_class_bind_template_callback (widget_class, assay_window_chat_leaflet_notify_cb);

  assay_window_class_init_actions (widget_class);
}

static void
assay_window_init (AssayWindow *self)
{
  g_autofree char *provider = NULL;
  static const char * const local_urls[] = { "http://localhost:11434/v1", "http://localhost:8080/v1", NULL };
  static const char * const local_names[] = { "Ollama", "llama.cpp", NULL };

  gtk_widget_init_template (GTK_WIDGET (self));
  assay_revealer_hide_child_when_closed (self->demo_revealer);
  assay_revealer_hide_child_when_closed (self->export_revealer);
  assay_window_init_narrow_keys (self);
  self->cancellable = g_cancellable_new ();
  self->store = assay_session_store_new (NULL);
  assay_sessions_sidebar_set_store (self->sidebar, self->store);
  self->toasts = assay_toast_queue_new (self->toast_overlay);
  self->export_format = assay_report_get_format (0);
  self->export_include_code = TRUE;
  self->settings = g_settings_new ("org.assay.Assay");

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  g_settings_bind (self->settings, "sidebar-visible", self->flap, "reveal-flap", G_SETTINGS_BIND_DEFAULT);
  self->conversation = assay_conversation_new (self->settings, self->store);
  g_signal_connect_swapped (self->conversation,
                            "notify::busy",
                            G_CALLBACK (assay_window_conversation_busy_cb),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "notify::exportable",
                            G_CALLBACK (assay_window_update_actions),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "notify::server-problem",
                            G_CALLBACK (assay_window_update_actions),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "notify::waiting",
                            G_CALLBACK (assay_window_conversation_waiting_cb),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "notify::recorded",
                            G_CALLBACK (assay_window_conversation_recorded_cb),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "notify::session",
                            G_CALLBACK (assay_window_conversation_session_cb),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "notify::artifacts",
                            G_CALLBACK (assay_window_conversation_artifacts_cb),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "needs-model",
                            G_CALLBACK (assay_window_conversation_needs_model_cb),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "error",
                            G_CALLBACK (assay_window_conversation_error_cb),
                            self);
  g_signal_connect_object (assay_conversation_get_connections (self->conversation), "items-changed",
                           G_CALLBACK (assay_window_update_data_page), self, G_CONNECT_SWAPPED);
  assay_chat_view_set_conversation (self->chat_view, self->conversation);
  assay_window_init_destination (self);
  assay_window_init_approval (self);
  assay_code_review_set_conversation (self->code_review, self->conversation);

  assay_window_init_dnd (self);
  assay_window_init_privacy (self);

  provider = g_settings_get_string (self->settings, "provider");
  if (*provider == '\0')
    {
      assay_window_show_onboarding (self);
      if (g_getenv ("ASSAY_NO_LOCAL_DETECT") == NULL)
        assay_onboarding_detect (self->onboarding, local_urls, local_names);
    }
  else
    gtk_stack_set_visible_child_name (self->main_stack, "main");

  assay_session_store_reload (self->store);
  assay_sandbox_banner_check (self->sandbox_banner);
  assay_window_update_actions (self);

  if (g_strcmp0 (g_getenv ("ASSAY_REPORT_FIRST_FRAME"), "1") == 0 ||
      g_strcmp0 (g_getenv ("ASSAY_QUIT_AFTER_FIRST_FRAME"), "1") == 0)
    g_signal_connect_after (self, "realize", G_CALLBACK (assay_window_first_frame_realize_cb), NULL);
}

AssayWindow *
assay_window_new (GtkApplication *application)
{
  return g_object_new (ASSAY_TYPE_WINDOW, "application", application, NULL);
}
