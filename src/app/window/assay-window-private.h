/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the window's files (assay-window.c, -actions.c, -dnd.c, -export.c) share, and the
 * hooks the GUI tests use. Not for the rest of the app. */
#pragma once

#include "assay-artifact-gallery.h"
#include "assay-artifact-viewer.h"
#include "assay-chat-view.h"
#include "assay-code-review.h"
#include "assay-connections-view.h"
#include "assay-conversation.h"
#include "assay-data-preview.h"
#include "assay-delete-dialog.h"
#include "assay-destination-button.h"
#include "assay-export-dialog.h"
#include "assay-model-destination.h"
#include "assay-onboarding.h"
#include "assay-rename-dialog.h"
#include "assay-report.h"
#include "assay-sandbox-banner.h"
#include "assay-send-session-dialog.h"
#include "assay-session-store.h"
#include "assay-sessions-sidebar.h"
#include "assay-toast-queue.h"
#include "assay-window.h"

G_BEGIN_DECLS

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
  AdwLeaflet           *chat_leaflet;     /* the chat and the code, folded apart when narrow */
  AssayChatView        *chat_view;
  AssayCodeReview      *code_review;
  GtkWidget            *code_back;
  GtkWidget            *code_button;
  guint                 chat_buttons_idle; /* the buttons above follow the leaflet after its layout */
  GtkCssProvider       *toast_css;         /* toasts above the composer (its height changes) */
  int                   toast_margin;
  GtkBox               *onboarding_box;
  AssayOnboarding      *onboarding;       /* NULL until the onboarding page is first shown */
  GtkWidget            *artifacts_back;
  /* The Files and Data pages: NULL until first shown or asked for (assay-window-pages.c). */
  AdwBin               *files_bin;
  AdwBin               *data_bin;
  GtkStack             *artifacts_stack;
  AssayArtifactGallery *gallery;
  AssayArtifactViewer  *viewer;
  GtkStack             *data_stack;       /* "empty" or "content": the databases and datasets */
  AssayConnectionsView *connections_view;
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
  const AssayReportFormat *export_format;
  gboolean              export_only_successful;
  gboolean              export_include_code;
  gboolean              export_include_requests;
  gboolean              closing;
  char                 *last_toast;

  /* Where the data goes (assay-window-destination.c): the header's indicator, and the
   * question asked before a session that stayed on this computer goes elsewhere. */
  AssayDestinationButton *destination_button;
  AdwViewSwitcherTitle   *switcher_title;    /* its subtitle says it where the header is narrow */
  AssayModelDestination  *destination;
  AssaySendSessionDialog *send_dialog;       /* shown, or NULL */
  gboolean                send_dialog_dropped; /* closed by the window, not answered */
  AdwMessageDialog       *hosted_dialog;     /* "Run This Session's Code on OpenAI?", or NULL */
  AdwMessageDialog       *approval_dialog;   /* "Approve Changed Code?", or NULL */
  gboolean                send_when_confirmed; /* win.send waits for the answer */

  GtkWindow              *connect_dialog;      /* "Connect to a Database", while shown */
};

/* assay-window.c */
void          assay_window_show_toast          (AssayWindow       *self,
                                                const char        *text);
AssaySession *assay_window_current_session     (AssayWindow       *self);
gboolean      assay_window_is_current_session  (AssayWindow       *self,
                                                const char        *dir);
/* Makes a session for a question or a file unless there is one; FALSE (a toast says why)
 * when it cannot be made. */
gboolean      assay_window_ensure_session      (AssayWindow       *self);
/* The sidebar's row (or win.open-session) for DIR: opened, and the sidebar folds away. */
void          assay_window_session_activated   (AssayWindow       *self,
                                                const char        *dir);
void          assay_window_show_gallery        (AssayWindow       *self);
void          assay_window_update_pages        (AssayWindow       *self);
void          assay_window_reset_data_preview  (AssayWindow       *self);
void          assay_window_show_artifact       (AssayWindow       *self,
                                                AssayArtifactItem *item);

/* assay-window-pages.c */
void          assay_window_ensure_files_page   (AssayWindow       *self);
void          assay_window_ensure_data_page    (AssayWindow       *self);

/* assay-window-actions.c */
void          assay_window_class_init_actions  (GtkWidgetClass    *widget_class);
void          assay_window_init_narrow_keys    (AssayWindow       *self);
/* The one function that decides which actions are enabled. */
void          assay_window_update_actions      (AssayWindow       *self);

/* The data page shows its content while the session has a dataset or a database, else how to
 * add them. */
void          assay_window_update_data_page    (AssayWindow       *self);

/* assay-window-dnd.c */
void          assay_window_init_dnd            (AssayWindow       *self);

/* assay-window-onboarding.c: the onboarding page's ::configured and ::demo-requested */
void          assay_window_onboarding_configured (AssayWindow *self,
                                                  const char  *provider,
                                                  const char  *base_url,
                                                  const char  *model,
                                                  const char  *key);
void          assay_window_onboarding_demo     (AssayWindow       *self);
/* assay-window.c: the onboarding page, its content made the first time. */
void          assay_window_show_onboarding     (AssayWindow       *self);

/* assay-window-privacy.c: the privacy mode ("privacy-mode", win.privacy-mode) and the data
 * page's masked columns */
void          assay_window_init_privacy        (AssayWindow       *self);
void          assay_window_watch_data_preview  (AssayWindow       *self);
/* The data page marks the session's masked columns. */
void          assay_window_update_masks        (AssayWindow       *self);
const char   *assay_window_get_privacy_mode_name (AssayWindow     *self);
void          assay_window_set_privacy_mode_name (AssayWindow     *self,
                                                  const char      *name);

/* assay-window-destination.c */
void          assay_window_init_destination    (AssayWindow       *self);
/* assay-window-approval.c: code changed since approved is read and approved again. */
void          assay_window_init_approval       (AssayWindow       *self);
/* Before a question: TRUE when the model setting's move to a server elsewhere waits for the
 * analyst (who is asked now; the question goes once they say Send). */
gboolean      assay_window_destination_holds_send (AssayWindow    *self);
/* Asks "Send This Session to <host>?" when the setting moved the session's destination. */
void          assay_window_destination_ask     (AssayWindow       *self);

/* assay-window-export.c */
void          assay_window_choose_export_file  (AssayWindow              *self,
                                                const AssayReportOptions *options);

/* For tests. */
void                  assay_window_dismiss_toast          (AssayWindow *self);
/* The text of the last toast shown. */
const char           *assay_window_get_last_toast         (AssayWindow *self);
/* "main" or "onboarding". */
const char           *assay_window_get_page               (AssayWindow *self);
AssayChatView        *assay_window_get_chat_view          (AssayWindow *self);
AssayCodeReview      *assay_window_get_code_review        (AssayWindow *self);
AssaySessionsSidebar *assay_window_get_sidebar            (AssayWindow *self);
AssayOnboarding      *assay_window_get_onboarding         (AssayWindow *self);
/* The "artifacts" page: the gallery over the current session's AssayArtifactList, and the
 * viewer that activating a tile (or a figure in the chat) opens. */
AssayArtifactGallery *assay_window_get_gallery            (AssayWindow *self);
AssayArtifactViewer  *assay_window_get_viewer             (AssayWindow *self);
/* "gallery" or "viewer". */
const char           *assay_window_get_artifacts_page     (AssayWindow *self);
AssayDataPreview     *assay_window_get_data_preview       (AssayWindow *self);
/* The data page's list of the session's databases, and the connect dialog while it is shown
 * (else NULL). */
AssayConnectionsView *assay_window_get_connections_view   (AssayWindow *self);
GtkWindow            *assay_window_get_connect_dialog     (AssayWindow *self);
/* Whether every dataset of the current session has its description. */
gboolean              assay_window_get_datasets_described (AssayWindow *self);
/* Whether dropped files are still being copied into the session. */
gboolean              assay_window_get_adding_files       (AssayWindow *self);
/* The id of the current kernel (its sandbox processes carry ASSAY_SESSION=<id>); NULL when
 * no kernel was started yet. */
const char           *assay_window_get_kernel_id          (AssayWindow *self);
AssaySessionStore    *assay_window_get_session_store      (AssayWindow *self);
AssayConversation    *assay_window_get_conversation       (AssayWindow *self);
/* Where the data goes, its indicator in the header, and the "Send This Session to <host>?"
 * dialog while it is shown (else NULL). */
AssayModelDestination  *assay_window_get_destination        (AssayWindow *self);
AssayDestinationButton *assay_window_get_destination_button (AssayWindow *self);
AdwMessageDialog       *assay_window_get_send_dialog        (AssayWindow *self);
/* The statement asked before a session's code runs on OpenAI (or why it cannot), or NULL. */
AdwMessageDialog       *assay_window_get_hosted_dialog      (AssayWindow *self);
AdwMessageDialog       *assay_window_get_approval_dialog    (AssayWindow *self);

G_END_DECLS
