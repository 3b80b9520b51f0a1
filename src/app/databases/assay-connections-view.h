/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-connection.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CONNECTIONS_VIEW (assay_connections_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayConnectionsView, assay_connections_view, ASSAY, CONNECTIONS_VIEW, GtkWidget)

/* The session's databases on the data page, beside its datasets: a row per AssayConnection of
 * MODEL (its name; kind, where it is and the tables the model sees; connecting, connected to
 * which server, or why not), each with Edit (win.edit-database) and Remove
 * (win.remove-database), the connection's name as their target. Shown only while MODEL has
 * items. */
GtkWidget  *assay_connections_view_new        (void);
void        assay_connections_view_set_model  (AssayConnectionsView *self,
                                               GListModel           *model);
/* For tests: the row of the connection NAME, or NULL. */
/* "Ask the session's queries again at the next question", which the window binds to the
 * conversation's "requery" (shown while "can-requery"). */
GtkCheckButton *assay_connections_view_get_requery_check (AssayConnectionsView *self);
AdwActionRow *assay_connections_view_get_row  (AssayConnectionsView *self,
                                               const char           *name);

G_END_DECLS
