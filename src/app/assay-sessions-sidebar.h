/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_SESSIONS_SIDEBAR (assay_sessions_sidebar_get_type ())

G_DECLARE_FINAL_TYPE (AssaySessionsSidebar, assay_sessions_sidebar, ASSAY, SESSIONS_SIDEBAR, GtkWidget)

/* Past sessions, most recent first: title (the first question), date, datasets; a search;
 * each row's menu renames (win.rename-session) or deletes (win.delete-session) it; activating
 * a row emits ::session-activated (const char *dir). The list is read in a worker thread;
 * ::reloaded says when it is in (a reload asked for while another runs replaces it). */
GtkWidget  *assay_sessions_sidebar_new          (void);
void        assay_sessions_sidebar_reload       (AssaySessionsSidebar *self);
/* The rows shown (after the search), as a list model of GObjects with the string properties
 * "dir", "title" and "subtitle". */
GListModel *assay_sessions_sidebar_get_model    (AssaySessionsSidebar *self);
/* The title recorded for the session in DIR as last listed ("" when it has none; the row
 * says "New session"), or NULL when DIR is not listed. The string belongs to the sidebar
 * until its next reload. */
const char *assay_sessions_sidebar_get_title    (AssaySessionsSidebar *self,
                                                 const char           *dir);
void        assay_sessions_sidebar_set_search   (AssaySessionsSidebar *self,
                                                 const char           *text);
void        assay_sessions_sidebar_select       (AssaySessionsSidebar *self,
                                                 const char           *dir);

G_END_DECLS
