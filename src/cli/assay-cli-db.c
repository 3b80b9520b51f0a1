/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Databases on the command line: `ask --db NAME=URL [--db-tables NAME=t1,t2]` and
 * `inspect --db URL`. Passwords come from the environment and the client libraries' own
 * files (PGPASSWORD, ~/.pgpass, MYSQL_PWD, ~/.my.cnf); a URL's password is used but never
 * printed or saved. */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include <stdio.h>
#include <string.h>

#include "assay-cli.h"
#include "assay-source-url.h"

/* Distinct values read from a masked database column at most: a column with more is a key
 * of a large table, and the masker says so. */
#define MAX_MASKED_VALUES 200000

GPtrArray *
assay_cli_db_make_sources (char  **specs,
                           char  **table_specs,
                           int     timeout_s,
                           gint64  max_rows,
                           GError **error)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func (g_object_unref);
  AssayQueryLimits limits;

  assay_query_limits_init (&limits);
  if (timeout_s > 0)
    limits.timeout_ms = (guint) MIN (timeout_s, 24 * 3600) * 1000;
  if (max_rows > 0)
    limits.max_rows = (guint64) max_rows;

  for (guint i = 0; specs != NULL && specs[i] != NULL; i++)
    {
      const char *equals = strchr (specs[i], '=');
      g_autofree char *name = NULL;
      AssaySource *source;

      if (equals == NULL || equals == specs[i])
        {
          g_autofree char *shown = assay_source_url_strip_password (specs[i]);

          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--db takes NAME=URL (e.g. shop=postgresql://reader@localhost/shop), not “%s”"), shown);
          return NULL;
        }
      name = g_strndup (specs[i], equals - specs[i]);
      for (guint j = 0; j < sources->len; j++)
        if (g_str_equal (assay_source_get_name (g_ptr_array_index (sources, j)), name))
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--db %s is given twice"), name);
            return NULL;
          }
      source = assay_source_new (name, equals + 1, error);
      if (source == NULL)
        return NULL;
      assay_source_set_limits (source, &limits);
      g_ptr_array_add (sources, source);
    }

  for (guint i = 0; table_specs != NULL && table_specs[i] != NULL; i++)
    {
      const char *equals = strchr (table_specs[i], '=');
      g_autofree char *name = equals != NULL ? g_strndup (table_specs[i], equals - table_specs[i]) : NULL;
      AssaySource *found = NULL;
      g_auto(GStrv) tables = NULL;
      g_autoptr(GPtrArray) kept = g_ptr_array_new ();

      for (guint j = 0; name != NULL && j < sources->len; j++)
        if (g_str_equal (assay_source_get_name (g_ptr_array_index (sources, j)), name))
          found = g_ptr_array_index (sources, j);
      if (found == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--db-tables takes NAME=TABLE,TABLE… for a NAME given to --db, not “%s”"), table_specs[i]);
          return NULL;
        }
      tables = g_strsplit (equals + 1, ",", -1);
      for (guint j = 0; tables[j] != NULL; j++)
        if (*g_strstrip (tables[j]) != '\0')
          g_ptr_array_add (kept, tables[j]);
      g_ptr_array_add (kept, NULL);
      assay_source_set_tables (found, (const char * const *) kept->pdata);
    }
  return g_steal_pointer (&sources);
}

gboolean
assay_cli_db_add_recorded (GPtrArray     *sources,
                           AssaySession  *session,
                           int            timeout_seconds,
                           gint64         max_rows,
                           GError       **error)
{
  for (guint i = 0; i < assay_session_get_sources (session)->len; i++)
    {
      const AssaySessionSource *recorded = g_ptr_array_index (assay_session_get_sources (session), i);
      g_autofree char *spec = NULL;
      g_autoptr(GPtrArray) made = NULL;
      char *specs[2] = { NULL, NULL };
      gboolean queried = FALSE;

      for (guint j = 0; j < assay_session_get_n_cells (session) && !queried; j++)
        {
          const AssaySessionCell *cell = assay_session_get_cell (session, j);

          queried = cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL &&
                    g_strcmp0 (cell->query->database, recorded->name) == 0 && assay_session_cell_succeeded (cell);
        }
      if (!queried || assay_cli_db_find (sources, recorded->name) != NULL)
        continue;
      spec = g_strdup_printf ("%s=%s", recorded->name, recorded->url);
      specs[0] = spec;
      made = assay_cli_db_make_sources (specs, NULL, timeout_seconds, max_rows, error);
      if (made == NULL)
        return FALSE;
      assay_session_source_apply_risk (recorded, g_ptr_array_index (made, 0));
      g_ptr_array_add (sources, g_object_ref (g_ptr_array_index (made, 0)));
    }
  return TRUE;
}

gboolean
assay_cli_db_connect (GPtrArray  *sources,
                      GError    **error)
{
  for (guint i = 0; i < sources->len; i++)
    {
      AssaySource *source = g_ptr_array_index (sources, i);

      g_autofree char *powers = NULL;

      if (!assay_source_open_sync (source, NULL, error))
        return FALSE;
      powers = assay_source_dup_powers (source);
      if (powers != NULL)
        assay_cli_print (stderr, _("Database %s: %s (%s), read-only transactions, but the login can do more "
                                   "than read (%s): risk accepted\n"), assay_source_get_name (source),
                         assay_source_get_display_url (source), assay_source_get_server (source), powers);
      else
        assay_cli_print (stderr, _("Database %s: %s (%s), read-only\n"), assay_source_get_name (source),
                         assay_source_get_display_url (source), assay_source_get_server (source));
    }
  return TRUE;
}

gboolean
assay_cli_db_accept_risk (GPtrArray  *sources,
                          char      **names,
                          GError    **error)
{
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      AssaySource *source = assay_cli_db_find (sources, names[i]);

      if (source == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--db-accept-risk takes the NAME of a --db NAME=URL, not “%s”"), names[i]);
          return FALSE;
        }
      assay_source_set_accept_risk (source, TRUE);
    }
  return TRUE;
}

void
assay_cli_db_apply_recorded_risk (GPtrArray    *sources,
                                  AssaySession *session)
{
  for (guint i = 0; i < sources->len; i++)
    assay_session_apply_recorded_risk (session, g_ptr_array_index (sources, i));
}

AssaySource *
assay_cli_db_find (GPtrArray  *sources,
                   const char *name)
{
  for (guint i = 0; sources != NULL && i < sources->len; i++)
    if (g_str_equal (assay_source_get_name (g_ptr_array_index (sources, i)), name))
      return g_ptr_array_index (sources, i);
  return NULL;
}

gboolean
assay_cli_db_parse_mask (GPtrArray   *sources,
                         const char  *spec,
                         char       **dataset,
                         char       **column)
{
  const char *colon = strrchr (spec, ':');
  const char *dot = strchr (spec, '.');
  g_autofree char *name = NULL;

  if (colon == NULL || dot == NULL || dot > colon || colon[1] == '\0' || dot + 1 == colon)
    return FALSE;
  name = g_strndup (spec, dot - spec);
  if (assay_cli_db_find (sources, name) == NULL)
    return FALSE;
  *dataset = g_strndup (spec, colon - spec);
  *column = g_strdup (colon + 1);
  return TRUE;
}

gboolean
assay_cli_db_mask_columns (AssaySession  *session,
                           GPtrArray     *sources,
                           AssayMasker   *masker,
                           GError       **error)
{
  GPtrArray *masked = assay_session_get_masked_columns (session);

  for (guint i = 0; i < masked->len; i++)
    {
      const AssaySessionMask *mask = g_ptr_array_index (masked, i);
      const char *dot = strchr (mask->dataset, '.');
      g_autofree char *name = dot != NULL ? g_strndup (mask->dataset, dot - mask->dataset) : NULL;
      AssaySource *source = name != NULL ? assay_cli_db_find (sources, name) : NULL;
      g_autoptr(GPtrArray) values = NULL;
      guint column;

      if (source == NULL || assay_masker_has_column (masker, mask->dataset, mask->column))
        continue;
      values = assay_source_read_distinct_sync (source, dot + 1, mask->column, MAX_MASKED_VALUES, NULL, error);
      if (values == NULL)
        {
          g_prefix_error (error, _("--mask %s:%s: "), mask->dataset, mask->column);
          return FALSE;
        }
      column = assay_masker_add_column (masker, mask->dataset, mask->column);
      for (guint j = 0; j < values->len; j++)
        {
          const char *value = g_ptr_array_index (values, j);

          if (!assay_masker_add_value (masker, column, value, strlen (value)))
            break;
        }
      if (values->len >= MAX_MASKED_VALUES)
        assay_cli_print (stderr, _("Warning: %s:%s has more than %u distinct values; only the first %u are masked\n"),
                         mask->dataset, mask->column, MAX_MASKED_VALUES, MAX_MASKED_VALUES);
    }
  return TRUE;
}

gboolean
assay_cli_db_is_masked_dataset (AssaySession *session,
                                GPtrArray    *sources,
                                const char   *dataset)
{
  GPtrArray *recorded = assay_session_get_sources (session);
  const char *dot = strchr (dataset, '.');
  g_autofree char *name = dot != NULL ? g_strndup (dataset, dot - dataset) : NULL;

  if (name == NULL)
    return FALSE;
  if (assay_cli_db_find (sources, name) != NULL)
    return TRUE;
  for (guint i = 0; i < recorded->len; i++)
    if (g_str_equal (((const AssaySessionSource *) g_ptr_array_index (recorded, i))->name, name))
      return TRUE;
  return FALSE;
}

char *
assay_cli_db_describe (AssaySource       *source,
                       AssayPrivacyMode   mode,
                       AssayMasker       *masker,
                       gsize              budget,
                       GError           **error)
{
  g_autoptr(AssaySourceSchema) schema = NULL;
  gboolean schema_only = mode == ASSAY_PRIVACY_SCHEMA;

  schema = assay_source_describe_sync (source, schema_only ? 0 : ASSAY_SCHEMA_DEFAULT_SAMPLES, NULL, error);
  if (schema == NULL)
    return NULL;
  return assay_source_schema_describe (schema, assay_source_get_name (source), assay_source_get_kind (source),
                                       mode == ASSAY_PRIVACY_FULL ? NULL : masker, schema_only,
                                       budget > 0 ? budget : ASSAY_SCHEMA_DEFAULT_BUDGET);
}

int
assay_cli_db_exit_code (const GError *error)
{
  if (error->domain == G_OPTION_ERROR ||
      g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_URL) ||
      g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_NOT_FOUND))
    return 2;
  return ASSAY_CLI_EXIT_DATABASE;
}

int
assay_cli_inspect_db (const char *url,
                      const char *tables,
                      gboolean    json,
                      int         model_chars,
                      gboolean    schema_only,
                      gboolean    accept_risk)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySource) source = assay_source_new ("db", url, &error);
  g_autoptr(AssaySourceSchema) schema = NULL;
  g_auto(GStrv) names = NULL;

  if (source == NULL)
    {
      assay_cli_print (stderr, "assay-cli inspect: %s\n", error->message);
      return 2;
    }
  assay_source_set_accept_risk (source, accept_risk);
  if (tables != NULL)
    {
      g_autoptr(GPtrArray) kept = g_ptr_array_new ();

      names = g_strsplit (tables, ",", -1);
      for (guint i = 0; names[i] != NULL; i++)
        if (*g_strstrip (names[i]) != '\0')
          g_ptr_array_add (kept, names[i]);
      g_ptr_array_add (kept, NULL);
      assay_source_set_tables (source, (const char * const *) kept->pdata);
    }
  schema = assay_source_describe_sync (source, schema_only ? 0 : ASSAY_SCHEMA_DEFAULT_SAMPLES, NULL, &error);
  if (schema == NULL)
    {
      assay_cli_print (stderr, "assay-cli inspect: %s\n", error->message);
      return assay_cli_db_exit_code (error);
    }
  if (json)
    {
      g_autoptr(JsonNode) node = assay_source_schema_to_json (schema);
      g_autofree char *text = NULL;

      json_object_set_string_member (json_node_get_object (node), "url", assay_source_get_display_url (source));
      json_object_set_string_member (json_node_get_object (node), "kind",
                                     assay_source_kind_to_string (assay_source_get_kind (source)));
      text = json_to_string (node, TRUE);
      printf ("%s\n", text);
    }
  else
    {
      g_autofree char *text = assay_source_schema_describe (schema, "db", assay_source_get_kind (source), NULL,
                                                            schema_only,
                                                            model_chars > 0 ? (gsize) model_chars : G_MAXSIZE);

      assay_cli_print (stdout, "%s", text);
    }
  fflush (stdout);
  return 0;
}
