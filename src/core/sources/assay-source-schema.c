/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A connection's schema and what the model reads of it. The description is English for the
 * model, never translated. */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <string.h>

#include "assay-source-schema.h"

#define SAMPLE_CHARS 40

void
assay_schema_options_init (AssaySchemaOptions *options)
{
  options->tables = NULL;
  options->samples = ASSAY_SCHEMA_DEFAULT_SAMPLES;
  options->max_tables = ASSAY_SCHEMA_DEFAULT_MAX_TABLES;
}

static void
column_free (gpointer data)
{
  AssaySourceColumn *column = data;

  g_free (column->name);
  g_free (column->type);
  g_free (column->comment);
  g_ptr_array_unref (column->samples);
  g_free (column);
}

static void
foreign_key_free (gpointer data)
{
  AssaySourceForeignKey *key = data;

  g_ptr_array_unref (key->columns);
  g_free (key->table);
  g_ptr_array_unref (key->ref_columns);
  g_free (key);
}

static void
table_free (gpointer data)
{
  AssaySourceTable *table = data;

  g_free (table->schema);
  g_free (table->name);
  g_free (table->qualified);
  g_free (table->comment);
  g_ptr_array_unref (table->columns);
  g_ptr_array_unref (table->foreign_keys);
  g_free (table);
}

AssaySourceSchema *
assay_source_schema_new (void)
{
  AssaySourceSchema *schema = g_new0 (AssaySourceSchema, 1);

  schema->tables = g_ptr_array_new_with_free_func (table_free);
  return schema;
}

void
assay_source_schema_free (AssaySourceSchema *schema)
{
  if (schema == NULL)
    return;
  g_free (schema->server);
  g_free (schema->database);
  g_ptr_array_unref (schema->tables);
  g_free (schema);
}

AssaySourceTable *
assay_source_table_new (const char *schema,
                        const char *name,
                        const char *qualified)
{
  AssaySourceTable *table = g_new0 (AssaySourceTable, 1);

  table->schema = g_strdup (schema);
  table->name = g_strdup (name);
  table->qualified = g_strdup (qualified != NULL ? qualified : name);
  table->rows = -1;
  table->columns = g_ptr_array_new_with_free_func (column_free);
  table->foreign_keys = g_ptr_array_new_with_free_func (foreign_key_free);
  return table;
}

AssaySourceColumn *
assay_source_column_new (const char *name,
                         const char *type)
{
  AssaySourceColumn *column = g_new0 (AssaySourceColumn, 1);

  column->name = g_strdup (name);
  column->type = g_strdup (type);
  column->samples = g_ptr_array_new_with_free_func (g_free);
  return column;
}

AssaySourceForeignKey *
assay_source_foreign_key_new (const char *table)
{
  AssaySourceForeignKey *key = g_new0 (AssaySourceForeignKey, 1);

  key->table = g_strdup (table);
  key->columns = g_ptr_array_new_with_free_func (g_free);
  key->ref_columns = g_ptr_array_new_with_free_func (g_free);
  return key;
}

AssaySourceTable *
assay_source_schema_find_table (AssaySourceSchema *schema,
                                const char        *name)
{
  for (guint i = 0; i < schema->tables->len; i++)
    {
      AssaySourceTable *table = g_ptr_array_index (schema->tables, i);

      if (g_strcmp0 (table->qualified, name) == 0 || g_strcmp0 (table->name, name) == 0)
        return table;
    }
  return NULL;
}

AssaySourceColumn *
assay_source_table_find_column (AssaySourceTable *table,
                                const char       *name)
{
  for (guint i = 0; i < table->columns->len; i++)
    {
      AssaySourceColumn *column = g_ptr_array_index (table->columns, i);

      if (g_strcmp0 (column->name, name) == 0)
        return column;
    }
  return NULL;
}

char *
assay_source_mask_dataset_name (const char *source_name,
                                const char *table)
{
  return g_strdup_printf ("%s.%s", source_name, table);
}

/* ---- the description --------------------------------------------------------------------- */

typedef enum
{
  LEVEL_FULL,
  LEVEL_NO_SAMPLES,
  LEVEL_NO_COMMENTS,
  LEVEL_COMPACT,
} Level;

static void
append_count (GString *out,
              gint64   n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GINT64_FORMAT, n);
  gsize length = strlen (digits);

  for (gsize i = 0; i < length; i++)
    {
      if (i > 0 && (length - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
}

/* TEXT on one line, cut at LIMIT characters. */
static void
append_short (GString    *out,
              const char *text,
              glong       limit)
{
  g_autofree char *flat = g_strdup (text);

  for (char *p = flat; *p != '\0'; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t')
      *p = ' ';
  if (g_utf8_strlen (flat, -1) > limit)
    {
      g_autofree char *cut = g_utf8_substring (flat, 0, limit);

      g_string_append (out, cut);
      g_string_append (out, "…");
    }
  else
    g_string_append (out, flat);
}

static const AssaySourceForeignKey *
single_column_key (AssaySourceTable *table,
                   const char       *column)
{
  for (guint i = 0; i < table->foreign_keys->len; i++)
    {
      const AssaySourceForeignKey *key = g_ptr_array_index (table->foreign_keys, i);

      if (key->columns->len == 1 && g_str_equal (g_ptr_array_index (key->columns, 0), column))
        return key;
    }
  return NULL;
}

static void
append_key_target (GString                     *out,
                   const AssaySourceForeignKey *key)
{
  g_string_append_printf (out, "%s(", key->table);
  for (guint i = 0; i < key->ref_columns->len; i++)
    g_string_append_printf (out, "%s%s", i > 0 ? ", " : "", (char *) g_ptr_array_index (key->ref_columns, i));
  g_string_append_c (out, ')');
}

static gboolean
looks_like_number (const char *text)
{
  char *end = NULL;

  if (g_str_equal (text, "True") || g_str_equal (text, "False"))
    return TRUE;
  if (*text == '\0' || g_ascii_isspace (*text))
    return FALSE;
  g_ascii_strtod (text, &end);
  return end != NULL && *end == '\0' && strpbrk (text, "xXnNiI") == NULL;
}

static void
append_samples (GString           *out,
                AssaySourceColumn *column,
                AssayMasker       *masker,
                const char        *dataset)
{
  gboolean masked = masker != NULL && assay_masker_has_column (masker, dataset, column->name);

  if (column->samples->len == 0)
    return;
  g_string_append (out, masked ? " — masked, e.g. " : " — e.g. ");
  for (guint i = 0; i < column->samples->len; i++)
    {
      const char *value = g_ptr_array_index (column->samples, i);

      if (i > 0)
        g_string_append (out, ", ");
      if (masked)
        {
          /* The whole value is looked up, never a cut of it. */
          g_autofree char *placeholder = assay_masker_mask (masker, value);

          g_string_append (out, placeholder);
        }
      else if (looks_like_number (value))
        g_string_append (out, value);
      else
        {
          /* Quoted as Python writes a str, so commas and spaces inside read as the value's. */
          g_autoptr(GString) quoted = g_string_new (NULL);

          for (const char *p = value; *p != '\0'; p++)
            {
              if (*p == '\'' || *p == '\\')
                g_string_append_c (quoted, '\\');
              g_string_append_c (quoted, *p);
            }
          g_string_append_c (out, '\'');
          append_short (out, quoted->str, SAMPLE_CHARS);
          g_string_append_c (out, '\'');
        }
    }
}

static void
describe_table (GString          *out,
                AssaySourceTable *table,
                const char       *name,
                AssayMasker      *masker,
                Level             level)
{
  g_autofree char *dataset = assay_source_mask_dataset_name (name, table->qualified);
  gboolean multi = FALSE;

  g_string_append_printf (out, "- %s (%s", table->qualified, table->view ? "view" : "table");
  if (table->rows >= 0)
    {
      g_string_append (out, table->rows_exact ? ", " : ", about ");
      append_count (out, table->rows);
      g_string_append (out, table->rows_capped ? "+ rows" : (table->rows == 1 ? " row" : " rows"));
    }
  g_string_append_c (out, ')');
  if (level < LEVEL_NO_COMMENTS && table->comment != NULL && *table->comment != '\0')
    {
      g_string_append (out, ": ");
      append_short (out, table->comment, 200);
    }
  g_string_append_c (out, '\n');

  if (level == LEVEL_COMPACT)
    g_string_append (out, "  ");
  for (guint i = 0; i < table->columns->len; i++)
    {
      AssaySourceColumn *column = g_ptr_array_index (table->columns, i);
      const AssaySourceForeignKey *key = single_column_key (table, column->name);

      if (level == LEVEL_COMPACT)
        g_string_append (out, i > 0 ? "; " : "");
      else
        g_string_append (out, "  - ");
      g_string_append_printf (out, "%s %s", column->name, column->type != NULL ? column->type : "?");
      if (column->primary_key)
        g_string_append (out, level == LEVEL_COMPACT ? " PK" : ", primary key");
      else if (column->not_null && level != LEVEL_COMPACT)
        g_string_append (out, ", not null");
      if (key != NULL)
        {
          g_string_append (out, " → ");
          append_key_target (out, key);
        }
      if (level < LEVEL_NO_COMMENTS && column->comment != NULL && *column->comment != '\0')
        {
          g_string_append (out, ": ");
          append_short (out, column->comment, 120);
        }
      if (level == LEVEL_FULL)
        append_samples (out, column, masker, dataset);
      if (level != LEVEL_COMPACT)
        g_string_append_c (out, '\n');
    }
  if (level == LEVEL_COMPACT)
    g_string_append_c (out, '\n');
  for (guint i = 0; i < table->foreign_keys->len; i++)
    {
      const AssaySourceForeignKey *key = g_ptr_array_index (table->foreign_keys, i);

      if (key->columns->len <= 1)
        continue;
      if (!multi)
        g_string_append (out, "  foreign keys: ");
      else
        g_string_append (out, "; ");
      multi = TRUE;
      g_string_append_c (out, '(');
      for (guint j = 0; j < key->columns->len; j++)
        g_string_append_printf (out, "%s%s", j > 0 ? ", " : "", (char *) g_ptr_array_index (key->columns, j));
      g_string_append (out, ") → ");
      append_key_target (out, key);
    }
  if (multi)
    g_string_append_c (out, '\n');
}

static char *
describe (AssaySourceSchema *schema,
          const char        *name,
          const char        *intro,
          AssaySourceKind    kind,
          AssayMasker       *masker,
          Level              level,
          guint              n_tables)
{
  GString *out = g_string_new (NULL);
  guint n_views = 0;
  guint left_out = schema->tables->len - n_tables + schema->n_more;

  for (guint i = 0; i < schema->tables->len; i++)
    n_views += ((AssaySourceTable *) g_ptr_array_index (schema->tables, i))->view;
  if (intro != NULL)
    g_string_append_printf (out, "%s%u table%s", intro, schema->tables->len - n_views,
                            schema->tables->len - n_views == 1 ? "" : "s");
  else
    g_string_append_printf (out, "Database \"%s\" (%s%s%s), read-only: query it with run_sql, "
                            "database \"%s\". %u table%s",
                            name, schema->server != NULL ? schema->server : assay_source_kind_get_label (kind),
                            schema->database != NULL ? ", database " : "",
                            schema->database != NULL ? schema->database : "",
                            name, schema->tables->len - n_views, schema->tables->len - n_views == 1 ? "" : "s");
  if (n_views > 0)
    g_string_append_printf (out, " and %u view%s", n_views, n_views == 1 ? "" : "s");
  g_string_append (out, ":\n");
  for (guint i = 0; i < n_tables; i++)
    describe_table (out, g_ptr_array_index (schema->tables, i), name, masker, level);
  if (left_out > 0)
    g_string_append_printf (out, "- … and %u more table%s or view%s not described here (list them from "
                            "information_schema%s).\n", left_out, left_out == 1 ? "" : "s",
                            left_out == 1 ? "" : "s", kind == ASSAY_SOURCE_SQLITE ? ", or sqlite_schema" : "");
  if (schema->tables->len == 0)
    g_string_append (out, "- no table or view that this login may read.\n");
  return g_string_free (out, FALSE);
}

static char *
describe_within (AssaySourceSchema *schema,
                 const char        *name,
                 const char        *intro,
                 AssaySourceKind    kind,
                 AssayMasker       *masker,
                 gboolean           schema_only,
                 gsize              budget)
{

  for (Level level = schema_only ? LEVEL_NO_SAMPLES : LEVEL_FULL; level <= LEVEL_COMPACT; level++)
    {
      char *text = describe (schema, name, intro, kind, masker, level, schema->tables->len);

      if (strlen (text) <= budget || level == LEVEL_COMPACT)
        {
          guint n_tables = schema->tables->len;

          /* The last resort: the tables from the end are left out, and said to be. */
          while (strlen (text) > budget && n_tables > 0)
            {
              g_free (text);
              text = describe (schema, name, intro, kind, masker, level, --n_tables);
            }
          return text;
        }
      g_free (text);
    }
  g_return_val_if_reached (NULL);
}

char *
assay_source_schema_describe (AssaySourceSchema *schema,
                              const char        *name,
                              AssaySourceKind    kind,
                              AssayMasker       *masker,
                              gboolean           schema_only,
                              gsize              budget)
{
  g_return_val_if_fail (schema != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return describe_within (schema, name, NULL, kind, masker, schema_only, budget);
}

char *
assay_source_schema_describe_file (AssaySourceSchema *schema,
                                   const char        *name,
                                   const char        *intro,
                                   AssayMasker       *masker,
                                   gboolean           schema_only,
                                   gsize              budget)
{
  gsize intro_len;
  char *text;

  g_return_val_if_fail (schema != NULL, NULL);
  g_return_val_if_fail (name != NULL && intro != NULL, NULL);

  intro_len = strlen (intro);
  text = describe_within (schema, name, intro, ASSAY_SOURCE_SQLITE, masker, schema_only,
                          budget > intro_len ? budget : intro_len + 1);
  return text;
}

JsonNode *
assay_source_schema_to_json (AssaySourceSchema *schema)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "server");
  json_builder_add_string_value (builder, schema->server != NULL ? schema->server : "");
  json_builder_set_member_name (builder, "database");
  if (schema->database != NULL)
    json_builder_add_string_value (builder, schema->database);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "tables");
  json_builder_begin_array (builder);
  for (guint i = 0; i < schema->tables->len; i++)
    {
      AssaySourceTable *table = g_ptr_array_index (schema->tables, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, table->qualified);
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, table->view ? "view" : "table");
      json_builder_set_member_name (builder, "rows");
      if (table->rows >= 0)
        json_builder_add_int_value (builder, table->rows);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "rows_exact");
      json_builder_add_boolean_value (builder, table->rows_exact && !table->rows_capped);
      json_builder_set_member_name (builder, "comment");
      if (table->comment != NULL)
        json_builder_add_string_value (builder, table->comment);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "columns");
      json_builder_begin_array (builder);
      for (guint j = 0; j < table->columns->len; j++)
        {
          AssaySourceColumn *column = g_ptr_array_index (table->columns, j);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, column->name);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, column->type != NULL ? column->type : "");
          json_builder_set_member_name (builder, "not_null");
          json_builder_add_boolean_value (builder, column->not_null);
          json_builder_set_member_name (builder, "primary_key");
          json_builder_add_boolean_value (builder, column->primary_key);
          json_builder_set_member_name (builder, "comment");
          if (column->comment != NULL)
            json_builder_add_string_value (builder, column->comment);
          else
            json_builder_add_null_value (builder);
          json_builder_set_member_name (builder, "samples");
          json_builder_begin_array (builder);
          for (guint k = 0; k < column->samples->len; k++)
            json_builder_add_string_value (builder, g_ptr_array_index (column->samples, k));
          json_builder_end_array (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "foreign_keys");
      json_builder_begin_array (builder);
      for (guint j = 0; j < table->foreign_keys->len; j++)
        {
          AssaySourceForeignKey *key = g_ptr_array_index (table->foreign_keys, j);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "columns");
          json_builder_begin_array (builder);
          for (guint k = 0; k < key->columns->len; k++)
            json_builder_add_string_value (builder, g_ptr_array_index (key->columns, k));
          json_builder_end_array (builder);
          json_builder_set_member_name (builder, "table");
          json_builder_add_string_value (builder, key->table);
          json_builder_set_member_name (builder, "ref_columns");
          json_builder_begin_array (builder);
          for (guint k = 0; k < key->ref_columns->len; k++)
            json_builder_add_string_value (builder, g_ptr_array_index (key->ref_columns, k));
          json_builder_end_array (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "more_tables");
  json_builder_add_int_value (builder, schema->n_more);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}
