/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-source.h"
#include "assay-source-url.h"

G_BEGIN_DECLS

/* For the backends. */

AssaySource     *assay_pg_source_new                (void);
AssaySource     *assay_mysql_source_new             (void);
AssaySource     *assay_sqlite_source_new            (void);

/* The URL, password included (memory only). */
const AssaySourceUrl *assay_source_get_url          (AssaySource          *self);
/* The password to use: set_password's, else the URL's, else NULL (the library's own). */
const char      *assay_source_get_password          (AssaySource          *self);
void             assay_source_set_server            (AssaySource          *self,
                                                     const char           *server);
void             assay_source_set_syntax            (AssaySource          *self,
                                                     const AssaySqlSyntax *syntax);
/* "Cannot connect to NAME (URL): REASON", the reason redacted and on one line. */
void             assay_source_set_connect_error     (AssaySource          *self,
                                                     GError              **error,
                                                     AssaySourceError      code,
                                                     const char           *reason);
/* A server's message cut to its first lines, trimmed, redacted. */
char            *assay_source_clean_message         (AssaySource          *self,
                                                     const char           *message);

/* Whether TABLE (schema, name, qualified) is one the analyst picked; marks it found. */
gboolean         assay_source_table_is_picked       (const char * const   *picked,
                                                     gboolean             *found,
                                                     const char           *schema,
                                                     const char           *name,
                                                     const char           *qualified);
/* NOT_FOUND for the first picked name that matched no table. */
gboolean         assay_source_check_picked          (const char * const   *picked,
                                                     const gboolean       *found,
                                                     GError              **error);
/* Up to N distinct, non-empty values from the text of column COLUMN of RESULT's rows, cut
 * at 200 bytes, into SAMPLES. */
void             assay_source_collect_samples       (AssayQueryResult     *result,
                                                     guint                 column,
                                                     guint                 n,
                                                     GPtrArray            *samples);

G_END_DECLS
