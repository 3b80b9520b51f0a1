/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-app-types.h"
#include "assay-connection.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CONNECT_DIALOG (assay_connect_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AssayConnectDialog, assay_connect_dialog, ASSAY, CONNECT_DIALOG, AdwWindow)

/* "Connect to a Database": the kind (PostgreSQL, MySQL/MariaDB, an SQLite file), host, port,
 * database, user, password and TLS mode, or a pasted URL (its password moved to the password
 * row, never left on the screen); Test Connection connects in a worker with a spinner and
 * says the server's own error (refused, wrong password, unknown database, TLS) or the
 * server's version and its tables and views, which the analyst picks: what the model sees.
 * Connect (once the connection as it stands was tested) hands it to CONVERSATION
 * (assay_conversation_add_source), which keeps the typed password in the keyring. An empty
 * password is looked up in the keyring for the connection's URL. With EDITING, the dialog
 * edits that connection of the session (its name stays) and tests it at once. Modal on
 * PARENT. */
AssayConnectDialog *assay_connect_dialog_new           (GtkWindow          *parent,
                                                        AssayConversation  *conversation,
                                                        AssayConnection    *editing);
/* The SQLite file, as the file chooser gives it. */
void                assay_connect_dialog_set_file      (AssayConnectDialog *self,
                                                        GFile              *file);

/* For tests. */
/* The entry of FIELD: "host", "port", "database", "user", "password", "name" or "url". */
GtkEditable        *assay_connect_dialog_get_entry     (AssayConnectDialog *self,
                                                        const char         *field);
void                assay_connect_dialog_set_kind      (AssayConnectDialog *self,
                                                        AssaySourceKind     kind);
/* 0: the client's default, 1 off, 2 when offered, 3 required, 4 verify CA, 5 verify host. */
void                assay_connect_dialog_set_tls       (AssayConnectDialog *self,
                                                        guint               mode);
/* The URL the fields make (never with a password), or NULL with ERROR. */
char               *assay_connect_dialog_dup_url       (AssayConnectDialog *self,
                                                        GError            **error);
gboolean            assay_connect_dialog_get_testing   (AssayConnectDialog *self);
/* What the line under Test Connection says, and whether it is an error. */
const char         *assay_connect_dialog_get_status    (AssayConnectDialog *self,
                                                        gboolean           *error);
/* The tables and views the test listed (NULL-terminated), and the analyst's pick. */
char              **assay_connect_dialog_dup_tables    (AssayConnectDialog *self);
void                assay_connect_dialog_set_picked    (AssayConnectDialog *self,
                                                        const char         *table,
                                                        gboolean            picked);
gboolean            assay_connect_dialog_get_picked    (AssayConnectDialog *self,
                                                        const char         *table);
gboolean            assay_connect_dialog_get_can_connect (AssayConnectDialog *self);

G_END_DECLS
