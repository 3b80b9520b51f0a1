/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-source-types.h"

G_BEGIN_DECLS

/* SQLite database files dropped as datasets: recognised by their header, never by their name. */

#define ASSAY_SQLITE_HEADER     "SQLite format 3"   /* and its NUL: 16 bytes */
#define ASSAY_SQLITE_HEADER_LEN 16

/* TRUE when DATA starts with SQLite's 16-byte header. */
gboolean assay_sqlite_file_has_header (const char    *data,
                                       gsize          len);
/* Whether the file at PATH starts with the header (FALSE on a read error, ERROR unset). */
gboolean assay_sqlite_file_is_database (const char   *path);
/* Checks what the first 100 bytes say against the file's size: page size, the page count
 * of a header that keeps it, a file cut short. The reason in plain words otherwise. DATA is
 * the whole file (LEN bytes) or at least its header. */
gboolean assay_sqlite_file_check_header (const char  *data,
                                         gsize        len,
                                         guint64      file_size,
                                         const char  *name,
                                         GError     **error);
/* The reason a file named NAME that does not start with the header is refused when its
 * name says it is a database (.db, .sqlite, .sqlite3, .db3): it is none, or it is
 * encrypted. NULL for other names (they are read as text). */
char    *assay_sqlite_file_explain_not_database (const char *name,
                                                 const char *data,
                                                 gsize       len);

/* Copies the database at SOURCE into the new file DESTINATION with SQLite's online backup
 * API: one consistent snapshot of what was committed (the pages of a WAL file included),
 * never a page torn by a program writing it meanwhile. The copy is a self-contained file
 * in rollback-journal mode, so it can be opened on a read-only folder. */
gboolean assay_sqlite_file_backup (const char    *source,
                                   const char    *destination,
                                   GCancellable  *cancellable,
                                   GError       **error);

/* The tables and views of the database at PATH, their columns, keys, rows and a few values
 * of each column, read through AssaySqliteSource (read-only, defensive). */
AssaySourceSchema *assay_sqlite_file_read_schema (const char    *path,
                                                  GCancellable  *cancellable,
                                                  GError       **error);

/* The first MAX_ROWS rows of TABLE, each a GStrv of its values as text (sanitised, cut at 200
 * characters; NULL as "", a blob as its size), and the column names into COLUMN_NAMES. Read
 * read-only; cancelling stops SQLite. For the window's preview, from a worker. */
GPtrArray *assay_sqlite_file_read_rows (const char    *path,
                                        const char    *table,
                                        guint          max_rows,
                                        GStrv         *column_names,
                                        GCancellable  *cancellable,
                                        GError       **error);

/* The URI that opens /data/NAME read-only in the sandbox, whose folder cannot be written:
 * "file:/data/NAME?mode=ro&immutable=1" (NAME percent-encoded). */
char    *assay_sqlite_file_sandbox_uri (const char *name);

G_END_DECLS
