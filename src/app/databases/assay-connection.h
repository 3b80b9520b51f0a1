/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-app-types.h"
#include "assay-source.h"

G_BEGIN_DECLS

typedef enum
{
  ASSAY_CONNECTION_CONNECTING,  /* the keyring is asked, the server reached */
  ASSAY_CONNECTION_CONNECTED,   /* the model may query it */
  ASSAY_CONNECTION_FAILED,      /* "message" says why, in the server's words */
} AssayConnectionStatus;

#define ASSAY_TYPE_CONNECTION (assay_connection_get_type ())

G_DECLARE_FINAL_TYPE (AssayConnection, assay_connection, ASSAY, CONNECTION, GObject)

/* One database of the current session, as the data page lists it: no widget, and never a
 * password (the AssaySource holds that in memory, the keyring on disk). The conversation
 * makes and updates these (assay-conversation-databases.c); views bind to the properties:
 * "name", "kind" (AssaySourceKind), "url" (without password), "tables" (the analyst's pick,
 * NULL: all), "status" (AssayConnectionStatus), "message" (why it failed, or NULL), "server"
 * ("PostgreSQL 15.4" once connected), "source" (the live AssaySource, or NULL). */
AssayConnection     *assay_connection_new          (const char          *name,
                                                    AssaySourceKind      kind,
                                                    const char          *url,
                                                    const char * const  *tables);
const char          *assay_connection_get_name     (AssayConnection     *self);
AssaySourceKind      assay_connection_get_kind     (AssayConnection     *self);
const char          *assay_connection_get_url      (AssayConnection     *self);
const char * const  *assay_connection_get_tables   (AssayConnection     *self);
AssayConnectionStatus assay_connection_get_status  (AssayConnection     *self);
const char          *assay_connection_get_message  (AssayConnection     *self);
const char          *assay_connection_get_server   (AssayConnection     *self);
AssaySource         *assay_connection_get_source   (AssayConnection     *self);
/* "PostgreSQL · reader@db:5432/shop · 3 tables", and the status in words: for the rows that
 * show a connection and for tests. */
char                *assay_connection_dup_summary  (AssayConnection     *self);
char                *assay_connection_dup_status_text (AssayConnection  *self);
/* What its login can do beyond reading, once connected with the risk accepted; else NULL. */
char                *assay_connection_dup_powers   (AssayConnection     *self);

/* For the conversation. */
void                 assay_connection_set_tables   (AssayConnection     *self,
                                                    const char * const  *tables);
void                 assay_connection_set_source   (AssayConnection     *self,
                                                    AssaySource         *source);
void                 assay_connection_set_status   (AssayConnection     *self,
                                                    AssayConnectionStatus status,
                                                    const char          *message);
/* What the model was told of its schema, and under which privacy mode and masked columns
 * (KEY); NULL: not described yet. */
const char          *assay_connection_get_description (AssayConnection  *self,
                                                       const char      **key);
void                 assay_connection_set_description (AssayConnection  *self,
                                                       const char       *description,
                                                       const char       *key);

G_END_DECLS
