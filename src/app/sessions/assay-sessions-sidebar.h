/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"
#include "assay-session-store.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_SESSIONS_SIDEBAR (assay_sessions_sidebar_get_type ())

G_DECLARE_FINAL_TYPE (AssaySessionsSidebar, assay_sessions_sidebar, ASSAY, SESSIONS_SIDEBAR, GtkWidget)

/* The saved sessions of an AssaySessionStore, most recent first: title (the first question),
 * date, datasets; a search over titles and dataset names; each row's menu renames
 * (win.rename-session) or deletes (win.delete-session) it; activating a row emits
 * ::session-activated (const char *dir). A view: the store reads and changes the list. */
GtkWidget  *assay_sessions_sidebar_new          (void);
void        assay_sessions_sidebar_set_store    (AssaySessionsSidebar *self,
                                                 AssaySessionStore    *store);
/* The rows shown (after the search): AssaySessionSummary items. */
GListModel *assay_sessions_sidebar_get_model    (AssaySessionsSidebar *self);
void        assay_sessions_sidebar_set_search   (AssaySessionsSidebar *self,
                                                 const char           *text);
void        assay_sessions_sidebar_select       (AssaySessionsSidebar *self,
                                                 const char           *dir);

G_END_DECLS
