/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "assay-source-types.h"

G_BEGIN_DECLS

/* A connection URL, read:
 *
 *   postgresql://[user[:password]@][host][:port][,host2[:port2]…][/database][?key=value&…]
 *     (also postgres://; host=/a/socket/dir among the parameters for a unix socket)
 *   mysql:// or mariadb://[user[:password]@][host][:port][/database][?key=value&…]
 *     (socket=/path/to/mysqld.sock, or host=/path/to/mysqld.sock)
 *   sqlite:///absolute/path/to/file.db
 *
 * Percent-escapes are decoded in the user, the password, the database and the parameters.
 * A password in the URL (user:password@ or password=) is kept only in memory, for the
 * connection: assay_source_url_to_display () never writes it, and nothing saved or printed
 * holds anything else. */
typedef struct
{
  AssaySourceKind  kind;
  char            *scheme;      /* as written, lower case */
  char            *user;        /* NULL: the server's or the library's default */
  char            *password;    /* memory only; NULL: none given */
  char            *host;        /* the host list as written (PostgreSQL may list several) */
  char            *port;        /* as written; NULL: the default */
  char            *database;
  char            *path;        /* SQLite: the file */
  GPtrArray       *keys;        /* char*, the parameters in order, password left out */
  GPtrArray       *values;      /* char*, decoded */
} AssaySourceUrl;

AssaySourceUrl *assay_source_url_parse      (const char           *url,
                                             GError              **error);
void            assay_source_url_free       (AssaySourceUrl       *url);
AssaySourceUrl *assay_source_url_copy       (const AssaySourceUrl *url);
/* The value of the parameter KEY (the last one given), or NULL. */
const char     *assay_source_url_get_param  (const AssaySourceUrl *url,
                                             const char           *key);
/* The URL as it may be saved and shown: no password, ever. */
char           *assay_source_url_to_display (const AssaySourceUrl *url);
/* The URL's password part (user:password@ or password=) taken out of TEXT, for anything that
 * quotes a URL the analyst typed; TEXT itself when it holds none. */
char           *assay_source_url_strip_password (const char       *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssaySourceUrl, assay_source_url_free)

G_END_DECLS
