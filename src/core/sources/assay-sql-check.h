/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "assay-masker.h"

G_BEGIN_DECLS

/* Whose SQL a text is: the lexical rules (quotes, comments, dollar quoting) and the
 * functions that must not be called differ. */
typedef enum
{
  ASSAY_SQL_POSTGRESQL,
  ASSAY_SQL_MYSQL,          /* MySQL and MariaDB */
  ASSAY_SQL_SQLITE,
} AssaySqlDialect;

typedef struct
{
  AssaySqlDialect dialect;
  /* MySQL's sql_mode: without NO_BACKSLASH_ESCAPES a backslash escapes in strings; without
   * ANSI_QUOTES "..." is a string, not an identifier. Ignored for the others. */
  gboolean        backslash_escapes;
  gboolean        double_quoted_strings;
} AssaySqlSyntax;

/* The rules of DIALECT as its server runs by default. */
void   assay_sql_syntax_init           (AssaySqlSyntax        *syntax,
                                        AssaySqlDialect        dialect);

/* Checks that SQL is one statement that only reads: SELECT, WITH … SELECT, VALUES, TABLE
 * (PostgreSQL), maybe in parentheses, ended by at most one ";". Comments, quoted
 * strings and identifiers and dollar-quoted text are read the way the server reads them, so
 * a ";" or a keyword inside them counts for nothing. Refused: a second statement,
 * transaction control, SET, COPY, DO, CALL and every other statement; INSERT, UPDATE,
 * DELETE, MERGE (data-modifying WITH); SELECT … INTO (a new table, a file or a variable);
 * FOR UPDATE/SHARE and LOCK IN SHARE MODE; MySQL's executable comments; the functions that
 * change settings, write or read server files, take locks or reach other servers
 * (set_config, lo_export, pg_read_file, dblink, load_file, load_extension, …).
 *
 * The statement is also run in a read-only transaction: the check says early, in words the
 * model can act on, what the server would refuse anyway, and closes what a read-only
 * transaction lets through (settings, locks, files).
 *
 * Returns the statement without its ";" and what follows it (comments, blanks), or NULL
 * with ERROR (ASSAY_SOURCE_ERROR_REFUSED) saying why, for the model. */
char  *assay_sql_check_read_only       (const char            *sql,
                                        const AssaySqlSyntax  *syntax,
                                        GError               **error);

/* The placeholders of MASKER that the model wrote in SQL turned back into the values: a
 * placeholder inside a quoted string becomes the value escaped for that string, elsewhere
 * a literal (a number as it is, else a quoted string); in comments the value as it is. */
char  *assay_sql_unmask                (AssayMasker           *masker,
                                        const char            *sql,
                                        const AssaySqlSyntax  *syntax);

/* NAME quoted as an identifier of DIALECT ("a""b", `a``b`). */
char  *assay_sql_quote_identifier      (AssaySqlDialect        dialect,
                                        const char            *name);

G_END_DECLS
