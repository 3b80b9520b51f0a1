/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AssaySource        AssaySource;
typedef struct _AssaySourceSchema  AssaySourceSchema;
typedef struct _AssayQueryResult   AssayQueryResult;

/* The errors of a connection, in words for the analyst (connections) or the model (queries:
 * the server's own message after a colon, so the model can fix its SQL). */
#define ASSAY_SOURCE_ERROR (assay_source_error_quark ())
GQuark assay_source_error_quark (void);

typedef enum
{
  ASSAY_SOURCE_ERROR_URL,           /* the connection URL cannot be used */
  ASSAY_SOURCE_ERROR_CONNECT,       /* the server cannot be reached */
  ASSAY_SOURCE_ERROR_AUTH,          /* the server refused the login */
  ASSAY_SOURCE_ERROR_REFUSED,       /* the statement is not one read-only query */
  ASSAY_SOURCE_ERROR_SERVER,        /* the server refused or failed the query */
  ASSAY_SOURCE_ERROR_DATA,          /* a value could not be computed (a failed cast, a division by
                                     * zero): the message may quote the data */
  ASSAY_SOURCE_ERROR_TIMEOUT,       /* the statement timeout came first */
  ASSAY_SOURCE_ERROR_TOO_LARGE,     /* more rows or bytes than the caps */
  ASSAY_SOURCE_ERROR_NOT_FOUND,     /* a table the analyst named is not there */
  ASSAY_SOURCE_ERROR_PRIVILEGED,    /* the login can do more than read, and the analyst has not
                                     * accepted the risk (assay_source_set_accept_risk ()) */
} AssaySourceError;

/* Which server a connection talks to. */
typedef enum
{
  ASSAY_SOURCE_POSTGRESQL,
  ASSAY_SOURCE_MYSQL,               /* MySQL or MariaDB, through libmariadb */
  ASSAY_SOURCE_SQLITE,
} AssaySourceKind;

/* "postgresql", "mysql", "sqlite". */
const char *assay_source_kind_to_string (AssaySourceKind kind);
/* "PostgreSQL", "MySQL/MariaDB", "SQLite". */
const char *assay_source_kind_get_label (AssaySourceKind kind);

/* What one query may take. */
typedef struct
{
  guint   timeout_ms;               /* the statement timeout; 0: none */
  guint64 max_rows;                 /* more is refused; 0: no cap */
  guint64 max_bytes;                /* of the result as Assay holds it; 0: no cap */
} AssayQueryLimits;

#define ASSAY_QUERY_DEFAULT_TIMEOUT_MS  (120 * 1000)
#define ASSAY_QUERY_DEFAULT_MAX_ROWS    G_GUINT64_CONSTANT (5000000)
#define ASSAY_QUERY_DEFAULT_MAX_BYTES   (G_GUINT64_CONSTANT (512) * 1024 * 1024)

void assay_query_limits_init (AssayQueryLimits *limits);

G_END_DECLS
