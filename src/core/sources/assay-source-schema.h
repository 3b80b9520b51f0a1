/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "assay-masker.h"
#include "assay-source-types.h"

G_BEGIN_DECLS

/* What a connection holds, as the model is told it: the tables and views the analyst
 * picked, their columns, keys, row estimates, comments and a few values of each column. */

typedef struct
{
  char      *name;
  char      *type;           /* as the server names it: "numeric(20,4)", "varchar(80)" */
  gboolean   not_null;
  gboolean   primary_key;
  char      *comment;        /* may be NULL */
  GPtrArray *samples;        /* char*: a few distinct values, as the server writes them */
} AssaySourceColumn;

typedef struct
{
  GPtrArray *columns;        /* char* */
  char      *table;          /* the referenced table, as queries name it */
  GPtrArray *ref_columns;    /* char* */
} AssaySourceForeignKey;

typedef struct
{
  char      *schema;         /* NULL for SQLite and MySQL's current database */
  char      *name;
  char      *qualified;      /* how a query names it: "orders", or "sales.orders" */
  gboolean   view;
  gint64     rows;           /* an estimate (exact for SQLite up to the cap); -1: unknown */
  gboolean   rows_exact;
  gboolean   rows_capped;    /* more than rows */
  char      *comment;
  GPtrArray *columns;        /* AssaySourceColumn* */
  GPtrArray *foreign_keys;   /* AssaySourceForeignKey* */
} AssaySourceTable;

struct _AssaySourceSchema
{
  char      *server;         /* "PostgreSQL 15.4", "MariaDB 10.11.6", "SQLite 3.40.1" */
  char      *database;
  GPtrArray *tables;         /* AssaySourceTable* */
  guint      n_more;         /* tables there but beyond what was read (the analyst's list, the cap) */
};

/* How much to read. */
typedef struct
{
  const char * const *tables;  /* the analyst's tables and views ("orders", "sales.orders"); NULL: all */
  guint               samples; /* distinct values per column; 0: none (schema-only mode) */
  guint               max_tables;
} AssaySchemaOptions;

#define ASSAY_SCHEMA_DEFAULT_SAMPLES    3
#define ASSAY_SCHEMA_DEFAULT_MAX_TABLES 200
#define ASSAY_SCHEMA_DEFAULT_BUDGET     12000

void                   assay_schema_options_init       (AssaySchemaOptions *options);

AssaySourceSchema     *assay_source_schema_new         (void);
void                   assay_source_schema_free        (AssaySourceSchema  *schema);
AssaySourceTable      *assay_source_table_new          (const char         *schema,
                                                        const char         *name,
                                                        const char         *qualified);
AssaySourceColumn     *assay_source_column_new         (const char         *name,
                                                        const char         *type);
AssaySourceForeignKey *assay_source_foreign_key_new    (const char         *table);
AssaySourceTable      *assay_source_schema_find_table  (AssaySourceSchema  *schema,
                                                        const char         *name);
AssaySourceColumn     *assay_source_table_find_column  (AssaySourceTable   *table,
                                                        const char         *name);

/* The schema for the system prompt, within BUDGET characters: every table with its columns,
 * types, keys, row estimate and comments and SAMPLES values per column; when that is too
 * long, the samples go first, then the comments, then tables from the end (said so). NAME is
 * the connection's name, which run_sql's "database" argument takes. The sample values of a
 * column MASKER masks (as "NAME.TABLE", column) are its placeholders; with SCHEMA_ONLY none
 * are given at all. */
char                  *assay_source_schema_describe    (AssaySourceSchema  *schema,
                                                        const char         *name,
                                                        AssaySourceKind     kind,
                                                        AssayMasker        *masker,
                                                        gboolean            schema_only,
                                                        gsize               budget);
/* The same for an SQLite file dropped as a dataset: INTRO (how to open it) comes first in
 * place of the connection's line, and is counted in BUDGET; NAME is the dataset's name, its
 * masked columns' tables being "NAME.TABLE". */
char                  *assay_source_schema_describe_file (AssaySourceSchema *schema,
                                                          const char        *name,
                                                          const char        *intro,
                                                          AssayMasker       *masker,
                                                          gboolean           schema_only,
                                                          gsize              budget);
JsonNode              *assay_source_schema_to_json     (AssaySourceSchema  *schema);

/* The name a masked column's table has in the session's masked columns: "NAME.TABLE". */
char                  *assay_source_mask_dataset_name  (const char         *source_name,
                                                        const char         *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssaySourceSchema, assay_source_schema_free)

G_END_DECLS
