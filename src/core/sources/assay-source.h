/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-query-result.h"
#include "assay-source-schema.h"
#include "assay-source-types.h"
#include "assay-sql-check.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_SOURCE (assay_source_get_type ())

G_DECLARE_DERIVABLE_TYPE (AssaySource, assay_source, ASSAY, SOURCE, GObject)

/* A database the analyst connected: PostgreSQL (libpq), MySQL or MariaDB (libmariadb) or an
 * SQLite file (libsqlite3), given as a URL (see assay-source-url.h).
 *
 * Every call that talks to the server runs in a worker thread (GTask), one at a time per
 * source; the _sync variants run the same worker on the caller's thread (the CLI, tests).
 * A query:
 *
 *   1. is checked to be one statement that only reads (assay_sql_check_read_only);
 *   2. runs in a read-only transaction with a statement timeout (PostgreSQL: BEGIN READ ONLY,
 *      SET LOCAL statement_timeout, the statement in a cursor fetched in batches; MariaDB:
 *      START TRANSACTION READ ONLY, max_statement_time; MySQL: max_execution_time; SQLite:
 *      opened read-only, PRAGMA query_only, an authorizer that allows only reads, a progress
 *      handler for the timeout);
 *   3. stops at the row and byte caps (ASSAY_SOURCE_ERROR_TOO_LARGE, nothing kept);
 *   4. stops on the server when its cancellable is cancelled (PQcancel, KILL QUERY from a
 *      second connection, sqlite3_interrupt; sent again until the query has stopped).
 *
 * Passwords: the URL's, assay_source_set_password's, or what the client library finds itself
 * (PGPASSWORD and ~/.pgpass for libpq; MYSQL_PWD and the [client] group of the option files
 * for libmariadb). A password is never part of the display URL, the record, a log or a
 * message: messages are also cleaned of it. */

struct _AssaySourceClass
{
  GObjectClass parent_class;

  /* All but interrupt run in a worker, one at a time (the source's lock is held). */
  gboolean              (*open)      (AssaySource               *self,
                                      GCancellable              *cancellable,
                                      GError                   **error);
  void                  (*close)     (AssaySource               *self);
  AssaySourceSchema    *(*describe)  (AssaySource               *self,
                                      const AssaySchemaOptions  *options,
                                      GCancellable              *cancellable,
                                      GError                   **error);
  /* SQL has passed the check. */
  AssayQueryResult     *(*query)     (AssaySource               *self,
                                      const char                *sql,
                                      const AssayQueryLimits    *limits,
                                      GCancellable              *cancellable,
                                      GError                   **error);
  /* Up to MAX distinct values of TABLE.COLUMN as text, for the masker. */
  GPtrArray            *(*distinct)  (AssaySource               *self,
                                      const char                *table,
                                      const char                *column,
                                      guint                      max,
                                      GCancellable              *cancellable,
                                      GError                   **error);
  /* From any thread while query runs: asks the server to stop; never blocks. */
  void                  (*interrupt) (AssaySource               *self);
  /* Run once per connection, after open: what the login can do beyond reading, in the
   * server's own words ("superuser", "pg_signal_backend", "FILE"), an empty array when
   * nothing; NULL and ERROR when that cannot be read (the connection is then refused unless
   * the risk is accepted). NULL: the source has no such powers (SQLite). */
  GPtrArray            *(*powers)    (AssaySource               *self,
                                      GCancellable              *cancellable,
                                      GError                   **error);
};

/* NAME is how the analyst and the model call it (a Python identifier's letters: it names
 * the database in run_sql). Nothing is contacted yet. */
AssaySource         *assay_source_new              (const char          *name,
                                                    const char          *url,
                                                    GError             **error);
/* Whether NAME may name a connection: letters, digits and "_", not starting with a digit. */
gboolean             assay_source_name_is_valid    (const char          *name);
const char          *assay_source_get_name         (AssaySource         *self);
AssaySourceKind      assay_source_get_kind         (AssaySource         *self);
/* The URL without any password: what is saved and shown. */
const char          *assay_source_get_display_url  (AssaySource         *self);
/* A password from elsewhere (the keyring), kept in memory only; NULL forgets it. */
void                 assay_source_set_password     (AssaySource         *self,
                                                    const char          *password);
/* The tables and views the model is shown (NULL: all the login may read). */
void                 assay_source_set_tables       (AssaySource         *self,
                                                    const char * const  *tables);
const char * const  *assay_source_get_tables       (AssaySource         *self);
void                 assay_source_set_limits       (AssaySource         *self,
                                                    const AssayQueryLimits *limits);
const AssayQueryLimits *assay_source_get_limits    (AssaySource         *self);
/* How the server reads SQL (MySQL's sql_mode is read when the connection opens). */
const AssaySqlSyntax *assay_source_get_syntax      (AssaySource         *self);
/* "PostgreSQL 15.4", …, once open; NULL before. */
const char          *assay_source_get_server       (AssaySource         *self);
/* TEXT with the source's password, if any, replaced: for messages from servers and
 * libraries, which never print it, but might. */
char                *assay_source_redact           (AssaySource         *self,
                                                    const char          *text);

/* A login that can do more than read (a superuser; PostgreSQL's pg_read_server_files,
 * pg_write_server_files, pg_execute_server_program and pg_signal_backend, also through a
 * role it is a member of; MySQL's and MariaDB's FILE, SUPER, PROCESS or any other privilege
 * on *.*) is refused when it connects (ASSAY_SOURCE_ERROR_PRIVILEGED, naming the powers):
 * the read-only transaction does not stop signals, locks, the server's files or a second,
 * writable connection, and the statement check would be the only wall left. ACCEPT lets
 * such a login connect; the analyst chose it, and the row that shows the connection says so. */
void                 assay_source_set_accept_risk  (AssaySource         *self,
                                                    gboolean             accept);
gboolean             assay_source_get_accept_risk  (AssaySource         *self);
/* The risk the analyst accepted earlier, as recorded (POWERS as assay_source_dup_powers ()
 * said then): a login with those powers or fewer connects, one with more is refused, naming
 * what is new. NULL: nothing accepted. */
void                 assay_source_set_accepted_powers (AssaySource      *self,
                                                       const char       *powers);
/* Once connected: the login's powers beyond reading, joined with ", " ("superuser",
 * "pg_signal_backend, FILE"); NULL when it has none or has not connected yet. */
char                *assay_source_dup_powers       (AssaySource         *self);

/* Connects (a test of the connection); the others connect first when needed. */
void                 assay_source_open_async       (AssaySource         *self,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
gboolean             assay_source_open_finish      (AssaySource         *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);
gboolean             assay_source_open_sync        (AssaySource         *self,
                                                    GCancellable        *cancellable,
                                                    GError             **error);

/* The analyst's tables (or all), with SAMPLES values per column (0 in schema-only mode). */
void                 assay_source_describe_async   (AssaySource         *self,
                                                    guint                samples,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
AssaySourceSchema   *assay_source_describe_finish  (AssaySource         *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);
AssaySourceSchema   *assay_source_describe_sync    (AssaySource         *self,
                                                    guint                samples,
                                                    GCancellable        *cancellable,
                                                    GError             **error);

void                 assay_source_query_async      (AssaySource         *self,
                                                    const char          *sql,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
/* The result, settled; errors in ASSAY_SOURCE_ERROR (the server's message after a colon),
 * G_IO_ERROR_CANCELLED once cancelled. */
AssayQueryResult    *assay_source_query_finish     (AssaySource         *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);
AssayQueryResult    *assay_source_query_sync       (AssaySource         *self,
                                                    const char          *sql,
                                                    GCancellable        *cancellable,
                                                    GError             **error);

/* Up to MAX distinct values of TABLE.COLUMN, for masking it. */
GPtrArray           *assay_source_read_distinct_sync (AssaySource       *self,
                                                      const char        *table,
                                                      const char        *column,
                                                      guint              max,
                                                      GCancellable      *cancellable,
                                                      GError           **error);

/* Closes the connection (in the caller's thread, after any call in flight). */
void                 assay_source_close            (AssaySource         *self);

G_END_DECLS
