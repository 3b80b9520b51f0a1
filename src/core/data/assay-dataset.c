/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <string.h>

#include "assay-column-profile.h"
#include "assay-csv-reader.h"
#include "assay-data-text.h"
#include "assay-dataset.h"
#include "assay-mapped.h"
#include "assay-source-schema.h"
#include "assay-sql-check.h"
#include "assay-sqlite-file.h"
#include "assay-xlsx.h"

#include <sqlite3.h>

#define MAX_LINES_KEPT     5
#define HUGE_FIELD_BYTES   (1024 * 1024)
#define PARALLEL_MIN_BYTES (8 * 1024 * 1024)
#define MAX_CHUNKS         8
#define MAX_NAMED_COLUMNS  50

struct _AssayDataset
{
  GObject          parent_instance;

  char            *path;
  char            *basename;
  AssayMapped     *mapped;
  GBytes          *converted;
  const char      *text;
  gsize            text_len;
  AssayCsvDialect *dialect;

  GPtrArray       *names;      /* column names as pandas will see them */
  GStrv            names_strv; /* the same, NULL-terminated, made when first asked for */
  GPtrArray       *profiles;   /* AssayColumnProfile */
  guint64          n_rows;
  GPtrArray       *warnings;   /* in English: for the model and the JSON */
  GPtrArray       *warnings_human; /* the same, in the user's language */
  char            *read_call;
  gboolean         trailing_delimiter;
  gsize            data_start; /* the first data record, past the header */
  guint64          data_line;

  GPtrArray       *sheets;     /* AssayXlsxSheet, for a workbook */

  /* An SQLite database: its schema; names holds "table.column", these the two parts. */
  AssaySourceSchema *schema;
  GPtrArray       *column_tables;   /* char*, borrowed from schema */
  GPtrArray       *column_columns;  /* AssaySourceColumn*, borrowed from schema */
  char            *connect_call;

  AssayDatasetMaskFunc mask_func;
  gpointer         mask_data;
  GDestroyNotify   mask_destroy;
};

G_DEFINE_FINAL_TYPE (AssayDataset, assay_dataset, G_TYPE_OBJECT)

static void
assay_dataset_finalize (GObject *object)
{
  AssayDataset *self = ASSAY_DATASET (object);

  g_clear_pointer (&self->names, g_ptr_array_unref);
  g_clear_pointer (&self->names_strv, g_strfreev);
  g_clear_pointer (&self->profiles, g_ptr_array_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->warnings_human, g_ptr_array_unref);
  g_clear_pointer (&self->sheets, g_ptr_array_unref);
  g_clear_pointer (&self->column_tables, g_ptr_array_unref);
  g_clear_pointer (&self->column_columns, g_ptr_array_unref);
  g_clear_pointer (&self->schema, assay_source_schema_free);
  if (self->mask_destroy != NULL)
    self->mask_destroy (self->mask_data);
  g_free (self->connect_call);
  g_clear_pointer (&self->dialect, assay_csv_dialect_free);
  g_clear_pointer (&self->converted, g_bytes_unref);
  g_clear_pointer (&self->mapped, assay_mapped_free);
  g_free (self->read_call);
  g_free (self->path);
  g_free (self->basename);

  G_OBJECT_CLASS (assay_dataset_parent_class)->finalize (object);
}

static void
assay_dataset_class_init (AssayDatasetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_dataset_finalize;
}

static void
assay_dataset_init (AssayDataset *self)
{
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  self->warnings_human = g_ptr_array_new_with_free_func (g_free);
  self->names = g_ptr_array_new_with_free_func (g_free);
  self->profiles = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_column_profile_free);
}

/* A warning is kept twice: in English for the model and the JSON (which are never
 * translated), and in the user's language for the human summary. english and human take the
 * same arguments. */
static void
assay_dataset_add_warning_full (AssayDataset *self,
                                const char   *english,
                                const char   *human,
                                va_list       args)
{
  va_list copy;
  g_autofree char *text = NULL;
  g_autofree char *human_text = NULL;

  /* Both formats are literals of this file, with the same conversions: one in English for
   * the model and the JSON, one translated for the analyst. */
  va_copy (copy, args);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  text = g_strdup_vprintf (english, args);
  human_text = g_strdup_vprintf (human, copy);
#pragma GCC diagnostic pop
  va_end (copy);
  g_ptr_array_add (self->warnings, assay_data_sanitize (text, -1, 400));
  g_ptr_array_add (self->warnings_human, assay_data_sanitize (human_text, -1, 400));
}

/* format is marked with N_(). */
static void
assay_dataset_add_warning (AssayDataset *self,
                           const char   *format,
                           ...) G_GNUC_PRINTF (2, 3);

static void
assay_dataset_add_warning (AssayDataset *self,
                           const char   *format,
                           ...)
{
  va_list args;

  va_start (args, format);
  assay_dataset_add_warning_full (self, format, _(format), args);
  va_end (args);
}

/* A warning with a count: human is the translation, chosen by the count with g_dngettext (). */
static void
assay_dataset_add_warning_n (AssayDataset *self,
                             const char   *english,
                             const char   *human,
                             ...) G_GNUC_PRINTF (2, 4);

static void
assay_dataset_add_warning_n (AssayDataset *self,
                             const char   *english,
                             const char   *human,
                             ...)
{
  va_list args;

  va_start (args, human);
  assay_dataset_add_warning_full (self, english, human, args);
  va_end (args);
}

/* ---- One pass over a part of the text ----------------------------------------------- */

typedef struct
{
  /* In. */
  const char            *text;
  gsize                  len;
  gsize                  start;
  gsize                  stop;           /* rows starting at or after this are left */
  guint64                start_line;
  const AssayCsvDialect *dialect;
  AssayValueFormat       format;
  guint                  n_columns;
  gboolean               trailing_delimiter;
  guint                  bound;
  GCancellable          *cancellable;

  /* Out. */
  AssayColumnProfile   **profiles;
  guint64                rows;
  guint64                long_rows, short_rows;
  guint64                long_lines[MAX_LINES_KEPT], short_lines[MAX_LINES_KEPT];
  guint64                blank_lines;
  gsize                  huge_field;
  guint64                huge_field_line;
  guint                  huge_field_column;
  gboolean               speculative;    /* starts at a guessed record boundary */
  gsize                  first_record;   /* where the first record of the part started */
  guint64                first_record_line;
  gsize                  end;            /* where the part stopped */
  guint64                end_line;
  GError                *error;
} Part;

static void
assay_dataset_part_clear (Part *part)
{
  if (part->profiles != NULL)
    for (guint c = 0; c < part->n_columns; c++)
      assay_column_profile_free (part->profiles[c]);
  g_clear_pointer (&part->profiles, g_free);
  g_clear_error (&part->error);
}

static gpointer
assay_dataset_profile_part (gpointer data)
{
  Part *part = data;
  AssayCsvReader reader;
  GString *scratch = g_string_sized_new (256);
  const guint n_columns = part->n_columns;
  gboolean first = TRUE;

  part->profiles = g_new0 (AssayColumnProfile *, n_columns);
  for (guint c = 0; c < n_columns; c++)
    part->profiles[c] = assay_column_profile_new (part->bound);

  assay_csv_reader_init (&reader, part->text, part->len, part->dialect->delimiter,
                         part->dialect->quote, part->dialect->backslash_escape);
  reader.pos = part->start;
  reader.line = part->start_line;
  part->first_record = part->end = part->start;

  for (;;)
    {
      guint n;

      if (!assay_csv_reader_next (&reader, &part->error))
        {
          part->end = reader.pos;
          break;
        }
      if (reader.record_start >= part->stop)
        {
          /* The blank lines before it stay counted here; the next part skips its own. */
          part->end = reader.record_start;
          reader.line = reader.record_line;
          break;
        }
      if (first)
        {
          part->first_record = reader.record_start;
          part->first_record_line = reader.record_line;
          if (part->speculative)
            reader.blank_lines = 0;
          first = FALSE;
        }

      n = reader.n_fields;
      if (n > n_columns)
        {
          if (part->trailing_delimiter && n == n_columns + 1)
            n = n_columns;
          else
            {
              if (part->long_rows < MAX_LINES_KEPT)
                part->long_lines[part->long_rows] = reader.record_line;
              part->long_rows++;
              continue;
            }
        }
      else if (n < n_columns)
        {
          if (part->short_rows < MAX_LINES_KEPT)
            part->short_lines[part->short_rows] = reader.record_line;
          part->short_rows++;
        }

      for (guint c = 0; c < n; c++)
        {
          const AssayCsvField *field = &reader.fields[c];

          if (G_UNLIKELY (field->len > part->huge_field))
            {
              part->huge_field = field->len;
              part->huge_field_line = reader.record_line;
              part->huge_field_column = c;
            }
          if (G_LIKELY (!(field->flags & ASSAY_CSV_FIELD_ENCODED)))
            assay_column_profile_add (part->profiles[c], part->text + field->start, field->len,
                                      TRUE, &part->format);
          else
            {
              gsize len;
              const char *s;

              g_string_truncate (scratch, 0);
              s = assay_csv_reader_field_text (&reader, field, scratch, &len);
              assay_column_profile_add (part->profiles[c], s, len, FALSE, &part->format);
            }
        }
      for (guint c = n; c < n_columns; c++)
        assay_column_profile_add_null (part->profiles[c]);

      part->rows++;
      if (G_UNLIKELY (part->rows % 65536 == 0) &&
          g_cancellable_set_error_if_cancelled (part->cancellable, &part->error))
        break;
    }
  part->end_line = reader.line;
  part->blank_lines = reader.blank_lines;
  assay_csv_reader_clear (&reader);
  g_string_free (scratch, TRUE);
  return NULL;
}

static void
assay_dataset_merge_part (Part *into,
                          Part *from)
{
  for (guint c = 0; c < into->n_columns; c++)
    assay_column_profile_merge (into->profiles[c], from->profiles[c]);
  for (guint i = 0; i < from->long_rows && into->long_rows + i < MAX_LINES_KEPT && i < MAX_LINES_KEPT; i++)
    into->long_lines[into->long_rows + i] = from->long_lines[i];
  for (guint i = 0; i < from->short_rows && into->short_rows + i < MAX_LINES_KEPT && i < MAX_LINES_KEPT; i++)
    into->short_lines[into->short_rows + i] = from->short_lines[i];
  into->rows += from->rows;
  into->long_rows += from->long_rows;
  into->short_rows += from->short_rows;
  into->blank_lines += from->blank_lines;
  if (from->huge_field > into->huge_field)
    {
      into->huge_field = from->huge_field;
      into->huge_field_line = from->huge_field_line;
      into->huge_field_column = from->huge_field_column;
    }
  into->end = from->end;
  into->end_line = from->end_line;
}

/* Profiles the data rows in parallel parts. A part after the first starts at a line break
 * and is only kept when the part before it ended exactly where it started (no quoted line
 * break crossed the split); otherwise it is read again from where the previous one ended. */
static gboolean
assay_dataset_profile_rows (AssayDataset  *self,
                            Part          *result,
                            gsize          data_start,
                            guint64        data_line,
                            GCancellable  *cancellable,
                            GError       **error)
{
  Part parts[MAX_CHUNKS] = { 0 };
  GThread *threads[MAX_CHUNKS] = { NULL };
  guint n_parts = 1;
  gsize body = self->text_len - data_start;

  if (body >= PARALLEL_MIN_BYTES)
    n_parts = CLAMP (g_get_num_processors (), 1, MAX_CHUNKS);

  for (guint i = 0; i < n_parts; i++)
    {
      Part *part = &parts[i];

      part->text = self->text;
      part->len = self->text_len;
      part->dialect = self->dialect;
      assay_csv_dialect_get_value_format (self->dialect, &part->format);
      part->n_columns = self->names->len;
      part->trailing_delimiter = self->trailing_delimiter;
      part->bound = MIN (10000, MAX (256, 2000000 / MAX (part->n_columns, 1)));
      part->cancellable = cancellable;
      part->start = data_start + body / n_parts * i;
      part->start_line = i == 0 ? data_line : 1;
      part->speculative = i > 0;
      part->stop = i + 1 < n_parts ? data_start + body / n_parts * (i + 1) : G_MAXSIZE;
      if (i > 0)
        {
          const char *nl = memchr (self->text + part->start, '\n', self->text_len - part->start);
          part->start = nl != NULL ? (gsize) (nl - self->text) + 1 : self->text_len;
        }
    }
  for (guint i = 0; i + 1 < n_parts; i++)
    parts[i].stop = parts[i + 1].start;

  for (guint i = 1; i < n_parts; i++)
    threads[i] = g_thread_new ("assay-profile", assay_dataset_profile_part, &parts[i]);
  assay_dataset_profile_part (&parts[0]);
  for (guint i = 1; i < n_parts; i++)
    g_thread_join (threads[i]);

  for (guint i = 1; i < n_parts && parts[0].error == NULL; i++)
    {
      Part *part = &parts[i];
      guint64 line_offset = parts[0].end_line - part->first_record_line;

      if (part->error != NULL || part->first_record != parts[0].end || part->start < parts[0].end)
        {
          /* The split fell inside a quoted field (or the guess failed): read it again. */
          Part again = *part;

          again.profiles = NULL;
          again.error = NULL;
          again.rows = again.long_rows = again.short_rows = again.blank_lines = 0;
          again.huge_field = 0;
          again.start = parts[0].end;
          again.start_line = parts[0].end_line;
          again.speculative = FALSE;
          assay_dataset_part_clear (part);
          *part = again;
          assay_dataset_profile_part (part);
          line_offset = 0;
        }
      for (guint k = 0; k < MIN (part->long_rows, MAX_LINES_KEPT); k++)
        part->long_lines[k] += line_offset;
      for (guint k = 0; k < MIN (part->short_rows, MAX_LINES_KEPT); k++)
        part->short_lines[k] += line_offset;
      part->huge_field_line += line_offset;
      part->end_line += line_offset;
      assay_dataset_merge_part (&parts[0], part);
      if (part->error != NULL)
        {
          parts[0].error = g_steal_pointer (&part->error);
          break;
        }
    }

  for (guint i = 1; i < n_parts; i++)
    assay_dataset_part_clear (&parts[i]);
  *result = parts[0];
  if (result->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&result->error));
      return FALSE;
    }
  return TRUE;
}

/* ---- The pandas call ---------------------------------------------------------------- */

static void
assay_dataset_append_python_string (GString    *out,
                                    const char *text)
{
  g_string_append_c (out, '\'');
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '\\' || c == '\'')
        g_string_append_printf (out, "\\%c", (char) c);
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
        g_string_append_printf (out, "\\x%02x", c);
      else if (c == 0xa0 || c == 0x202f || (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
               (c >= 0x2066 && c <= 0x2069) || c == 0xfeff)
        g_string_append_printf (out, c < 0x100 ? "\\x%02x" : "\\u%04x", c);
      else
        g_string_append_unichar (out, c);
    }
  g_string_append_c (out, '\'');
}

static char *
assay_dataset_sandbox_path (AssayDataset *self)
{
  return g_strconcat ("/data/", self->basename, NULL);
}

static void
assay_dataset_build_read_call (AssayDataset *self,
                               guint64       long_rows)
{
  GString *call = g_string_new ("pd.read_csv(");
  g_autofree char *path = assay_dataset_sandbox_path (self);
  char sep[2] = { self->dialect->delimiter, 0 };
  char quote[2] = { self->dialect->quote, 0 };
  char decimal[2] = { self->dialect->decimal, 0 };
  g_autoptr(GPtrArray) date_columns = g_ptr_array_new ();
  gboolean day_first = FALSE;
  gboolean python_engine = FALSE;

  assay_dataset_append_python_string (call, path);
  g_string_append (call, ", sep=");
  assay_dataset_append_python_string (call, sep);
  g_string_append (call, ", encoding=");
  assay_dataset_append_python_string (call, self->dialect->python_encoding);
  if (self->dialect->decimal != '.')
    {
      g_string_append (call, ", decimal=");
      assay_dataset_append_python_string (call, decimal);
    }
  if (self->dialect->thousands[0] != '\0')
    {
      g_string_append (call, ", thousands=");
      assay_dataset_append_python_string (call, self->dialect->thousands);
      python_engine = (guchar) self->dialect->thousands[0] >= 0x80;
    }
  if (self->dialect->preamble_len > 0)
    g_string_append (call, ", skiprows=1");
  if (!self->dialect->header)
    {
      g_string_append (call, ", header=None");
      /* Our generated names, so that the model and the profile agree. */
      if (self->names->len <= MAX_NAMED_COLUMNS)
        {
          g_string_append (call, ", names=[");
          for (guint c = 0; c < self->names->len; c++)
            {
              if (c > 0)
                g_string_append (call, ", ");
              assay_dataset_append_python_string (call, g_ptr_array_index (self->names, c));
            }
          g_string_append_c (call, ']');
        }
    }
  if (self->dialect->quote != '"')
    {
      g_string_append (call, ", quotechar=");
      assay_dataset_append_python_string (call, quote);
    }
  if (self->dialect->backslash_escape)
    g_string_append (call, ", escapechar='\\\\', doublequote=False");

  for (guint c = 0; c < self->profiles->len; c++)
    {
      AssayColumnProfile *profile = g_ptr_array_index (self->profiles, c);
      AssayColumnType type = assay_column_profile_get_type_kind (profile);

      if (type == ASSAY_COLUMN_DATE || type == ASSAY_COLUMN_DATETIME)
        {
          g_ptr_array_add (date_columns, GUINT_TO_POINTER (c));
          day_first = day_first || assay_column_profile_is_day_first (profile);
        }
    }
  if (date_columns->len > 0 && date_columns->len <= 50)
    {
      g_string_append (call, ", parse_dates=[");
      for (guint i = 0; i < date_columns->len; i++)
        {
          guint c = GPOINTER_TO_UINT (g_ptr_array_index (date_columns, i));

          if (i > 0)
            g_string_append (call, ", ");
          if (self->dialect->header || self->names->len <= MAX_NAMED_COLUMNS)
            assay_dataset_append_python_string (call, g_ptr_array_index (self->names, c));
          else
            g_string_append_printf (call, "%u", c);
        }
      g_string_append_c (call, ']');
      if (day_first)
        g_string_append (call, ", dayfirst=True");
    }
  if (long_rows > 0)
    g_string_append (call, ", on_bad_lines='skip'");
  if (self->trailing_delimiter)
    g_string_append (call, ", index_col=False");
  if (python_engine)
    g_string_append (call, ", engine='python'");
  g_string_append_c (call, ')');
  self->read_call = g_string_free (call, FALSE);
}

/* ---- Opening ------------------------------------------------------------------------ */

static char *
assay_dataset_format_lines (const guint64 *lines,
                            guint64        count)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < MIN (count, MAX_LINES_KEPT); i++)
    g_string_append_printf (out, "%s%" G_GUINT64_FORMAT, i > 0 ? ", " : "", lines[i]);
  if (count > MAX_LINES_KEPT)
    g_string_append (out, ", …");
  return g_string_free (out, FALSE);
}

static gboolean
assay_dataset_open_workbook (AssayDataset  *self,
                             const char    *data,
                             gsize          len,
                             GError       **error)
{
  self->sheets = assay_xlsx_list_sheets (data, len, error);
  if (self->sheets == NULL)
    return FALSE;
  {
    GString *call = g_string_new ("pd.read_excel(");
    g_autofree char *path = assay_dataset_sandbox_path (self);
    AssayXlsxSheet *first = g_ptr_array_index (self->sheets, 0);

    assay_dataset_append_python_string (call, path);
    g_string_append (call, ", sheet_name=");
    assay_dataset_append_python_string (call, first->name);
    g_string_append (call, ")");
    self->read_call = g_string_free (call, FALSE);
  }
  assay_dataset_add_warning (self, N_("Excel workbook: only the sheet names and sizes are read here, not the "
                                      "cells; no column types or profile. Formulas come back as their last "
                                      "saved values; charts, pivot tables and macros are not read."));
  return TRUE;
}

/* Opens the file read-only as SQLite would, so that a file that is no database (or is
 * damaged) is refused in SQLite's words made plain. */
static gboolean
assay_dataset_check_sqlite (AssayDataset  *self,
                            GError       **error)
{
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2 (self->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_exec (db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      int code = db != NULL ? sqlite3_extended_errcode (db) & 0xff : rc;

      if (code == SQLITE_NOTADB)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("%s starts like an SQLite database but SQLite cannot read it: it is damaged or encrypted"),
                     self->basename);
      else if (code == SQLITE_CORRUPT)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("%s is a damaged SQLite database (it may be cut short)"), self->basename);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("SQLite cannot open %s: %s"), self->basename,
                     db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      sqlite3_close_v2 (db);
      return FALSE;
    }
  sqlite3_close_v2 (db);
  return TRUE;
}

static gboolean
assay_dataset_open_sqlite (AssayDataset  *self,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *uri = NULL;
  GString *call;

  if (!assay_dataset_check_sqlite (self, error))
    return FALSE;
  self->schema = assay_sqlite_file_read_schema (self->path, cancellable, &local_error);
  if (self->schema == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot read the tables of %s: %s"), self->basename,
                     local_error->message);
      return FALSE;
    }
  g_free (self->schema->database);
  self->schema->database = g_strdup (self->basename);

  self->column_tables = g_ptr_array_new ();
  self->column_columns = g_ptr_array_new ();
  for (guint i = 0; i < self->schema->tables->len; i++)
    {
      AssaySourceTable *table = g_ptr_array_index (self->schema->tables, i);

      if (!table->view && table->rows > 0)
        self->n_rows += (guint64) table->rows;
      for (guint j = 0; j < table->columns->len; j++)
        {
          AssaySourceColumn *column = g_ptr_array_index (table->columns, j);

          g_ptr_array_add (self->names, g_strconcat (table->name, ".", column->name, NULL));
          g_ptr_array_add (self->column_tables, table->name);
          g_ptr_array_add (self->column_columns, column);
        }
    }

  uri = assay_sqlite_file_sandbox_uri (self->basename);
  call = g_string_new ("sqlite3.connect(");
  assay_dataset_append_python_string (call, uri);
  g_string_append (call, ", uri=True)");
  self->connect_call = g_string_free (call, FALSE);
  {
    AssaySourceTable *first = NULL;
    g_autofree char *quoted = NULL;
    g_autofree char *sql = NULL;

    /* The first table, else the first view. */
    for (guint i = 0; i < self->schema->tables->len && first == NULL; i++)
      if (!((AssaySourceTable *) g_ptr_array_index (self->schema->tables, i))->view)
        first = g_ptr_array_index (self->schema->tables, i);
    if (first == NULL && self->schema->tables->len > 0)
      first = g_ptr_array_index (self->schema->tables, 0);
    quoted = assay_sql_quote_identifier (ASSAY_SQL_SQLITE, first != NULL ? first->name : "sqlite_schema");
    sql = g_strdup_printf ("SELECT * FROM %s", quoted);
    call = g_string_new ("pd.read_sql(");
    assay_dataset_append_python_string (call, sql);
    g_string_append (call, ", con)");
    self->read_call = g_string_free (call, FALSE);
  }
  if (self->schema->tables->len == 0)
    assay_dataset_add_warning (self, N_("The database holds no table or view."));
  return TRUE;
}

static gboolean
assay_dataset_open_table (AssayDataset           *self,
                          const char             *data,
                          gsize                   len,
                          const AssayCsvDialect  *override,
                          GCancellable           *cancellable,
                          GError                **error)
{
  AssayCsvReader reader;
  g_autoptr(GString) scratch = g_string_new (NULL);
  g_autoptr(GHashTable) seen_names = g_hash_table_new (g_str_hash, g_str_equal);
  gsize data_start = 0;
  guint64 data_line = 1;
  guint n_columns;
  Part result = { 0 };
  gboolean day_first_hint;

  self->dialect = assay_csv_dialect_sniff_with_override (data, len, TRUE, override, &self->converted,
                                                         &self->text, &self->text_len, error);
  if (self->dialect == NULL)
    return FALSE;

  /* The first record: the header, or the width of a headerless table. */
  assay_csv_reader_init (&reader, self->text, self->text_len, self->dialect->delimiter,
                         self->dialect->quote, self->dialect->backslash_escape);
  if (self->dialect->preamble_len > 0)
    {
      reader.pos = data_start = self->dialect->preamble_len;
      reader.line = data_line = 2;
    }
  if (!assay_csv_reader_next (&reader, error))
    {
      assay_csv_reader_clear (&reader);
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the file has no rows");
      return FALSE;
    }
  n_columns = reader.n_fields;
  /* Every column gets a profile (a few KiB each): 150,000 columns took over a gigabyte. */
  if (n_columns > ASSAY_DATASET_MAX_COLUMNS)
    {
      assay_csv_reader_clear (&reader);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("the table has %u columns; Assay reads tables of at most %u columns"),
                   n_columns, ASSAY_DATASET_MAX_COLUMNS);
      return FALSE;
    }
  for (guint c = 0; c < n_columns; c++)
    {
      char *name;

      if (self->dialect->header)
        {
          gsize n;
          const char *s;
          g_autofree char *clean = NULL;

          g_string_truncate (scratch, 0);
          s = assay_csv_reader_field_text (&reader, &reader.fields[c], scratch, &n);
          clean = assay_data_sanitize (s, n, 0);
          if (clean[0] == '\0')
            name = g_strdup_printf ("Unnamed: %u", c);
          else
            name = g_steal_pointer (&clean);
          /* pandas renames duplicates a, a.1, a.2 */
          for (guint k = 1; g_hash_table_contains (seen_names, name); k++)
            {
              g_autofree char *base = g_steal_pointer (&name);
              g_autofree char *original = g_strndup (base, strrchr (base, '.') != NULL && k > 1
                                                             ? (gsize) (strrchr (base, '.') - base)
                                                             : strlen (base));
              name = g_strdup_printf ("%s.%u", original, k);
            }
        }
      else
        name = g_strdup_printf ("column_%u", c + 1);
      g_ptr_array_add (self->names, name);
      g_hash_table_add (seen_names, name);
    }
  if (self->dialect->header)
    {
      data_start = reader.pos;
      data_line = reader.line;
      /* pandas reads a first data row one field wider than the header as an index column
       * (files whose lines end with a delimiter); index_col=False keeps the columns. */
      if (assay_csv_reader_next (&reader, NULL) && reader.n_fields == n_columns + 1)
        self->trailing_delimiter = TRUE;
    }
  assay_csv_reader_clear (&reader);
  self->data_start = data_start;
  self->data_line = data_line;

  if (!assay_dataset_profile_rows (self, &result, data_start, data_line, cancellable, error))
    {
      assay_dataset_part_clear (&result);
      return FALSE;
    }
  self->n_rows = result.rows;
  day_first_hint = self->dialect->delimiter == ';' || self->dialect->decimal == ',';
  for (guint c = 0; c < n_columns; c++)
    {
      assay_column_profile_finish (result.profiles[c], day_first_hint);
      g_ptr_array_add (self->profiles, result.profiles[c]);
      result.profiles[c] = NULL;
    }

  /* Warnings, most useful first. */
  if (result.long_rows > 0)
    {
      g_autofree char *lines = assay_dataset_format_lines (result.long_lines, result.long_rows);
      /* TRANSLATORS: the English has one form for every count; the translation has its plural forms. */
      assay_dataset_add_warning_n (self, "%llu rows have more fields than the %u columns (lines %s); "
                                   "they are skipped, as read_csv(on_bad_lines='skip') does",
                                   g_dngettext (GETTEXT_PACKAGE,
                                                "%llu rows have more fields than the %u columns (lines %s); "
                                                "they are skipped, as read_csv(on_bad_lines='skip') does",
                                                "%llu rows have more fields than the %u columns (lines %s); "
                                                "they are skipped, as read_csv(on_bad_lines='skip') does",
                                                result.long_rows),
                                   (unsigned long long) result.long_rows, n_columns, lines);
    }
  if (result.short_rows > 0)
    {
      g_autofree char *lines = assay_dataset_format_lines (result.short_lines, result.short_rows);
      /* TRANSLATORS: the English has one form for every count; the translation has its plural forms. */
      assay_dataset_add_warning_n (self, "%llu rows have fewer fields than the %u columns (lines %s); "
                                   "the missing cells are empty",
                                   g_dngettext (GETTEXT_PACKAGE,
                                                "%llu rows have fewer fields than the %u columns (lines %s); "
                                                "the missing cells are empty",
                                                "%llu rows have fewer fields than the %u columns (lines %s); "
                                                "the missing cells are empty",
                                                result.short_rows),
                                   (unsigned long long) result.short_rows, n_columns, lines);
    }
  if (self->dialect->preamble_len > 0)
    assay_dataset_add_warning (self, N_("the first line “sep=%c” is Excel's delimiter hint, not data; skiprows=1 skips it"),
                               self->dialect->delimiter);
  if (self->trailing_delimiter)
    assay_dataset_add_warning (self, N_("the data lines end with a delimiter; index_col=False keeps pandas from "
                                        "using the first column as the index"));
  if (result.huge_field >= HUGE_FIELD_BYTES)
    assay_dataset_add_warning (self, N_("a very large field: %.1f MB in column %u at line %llu"
                                        "; previews cut it"), result.huge_field / 1e6, result.huge_field_column + 1,
                               (unsigned long long) result.huge_field_line);
  if (result.blank_lines > self->dialect->trailing_blank_lines)
    /* TRANSLATORS: the English has one form for every count; the translation has its plural forms. */
    assay_dataset_add_warning_n (self, "%llu blank lines inside the table are skipped",
                                 g_dngettext (GETTEXT_PACKAGE, "%llu blank lines inside the table are skipped",
                                              "%llu blank lines inside the table are skipped",
                                              result.blank_lines - self->dialect->trailing_blank_lines),
                                 (unsigned long long) (result.blank_lines - self->dialect->trailing_blank_lines));
  if (self->dialect->trailing_blank_lines > 0)
    /* TRANSLATORS: the English has one form for every count; the translation has its plural forms. */
    assay_dataset_add_warning_n (self, "%u blank lines at the end of the file are skipped",
                                 g_dngettext (GETTEXT_PACKAGE, "%u blank lines at the end of the file are skipped",
                                              "%u blank lines at the end of the file are skipped",
                                              self->dialect->trailing_blank_lines),
                                 self->dialect->trailing_blank_lines);
  if (self->converted != NULL &&
      memmem (self->text, self->text_len, "\xEF\xBF\xBD", 3) != NULL &&
      memmem (data, MIN (len, 3), "\xEF\xBF\xBD", 3) == NULL)
    assay_dataset_add_warning (self,
                               N_("some bytes are not valid %s; they read as U+FFFD"),
                               self->dialect->encoding);
  if (self->n_rows == 0)
    assay_dataset_add_warning (self, N_("the table has a header but no data rows"));

  for (guint c = 0; c < n_columns; c++)
    {
      AssayColumnProfile *profile = g_ptr_array_index (self->profiles, c);
      const char *name = g_ptr_array_index (self->names, c);
      guint flags = assay_column_profile_get_value_flags (profile);
      AssayColumnType type = assay_column_profile_get_type_kind (profile);

      if ((type == ASSAY_COLUMN_INTEGER || type == ASSAY_COLUMN_FLOAT) && (flags & ASSAY_VALUE_HAS_CURRENCY))
        assay_dataset_add_warning (self, N_("column “%s” has numbers with a currency sign; pandas reads it as text: "
                                            "strip the sign, then pd.to_numeric"), name);
      if (type == ASSAY_COLUMN_INTEGER && (flags & ASSAY_VALUE_LEADING_ZERO))
        assay_dataset_add_warning (self, N_("column “%s” has integers with leading zeros (codes?); "
                                            "dtype={'%s': str} keeps them"), name, name);
      if ((type == ASSAY_COLUMN_DATE || type == ASSAY_COLUMN_DATETIME) && assay_column_profile_is_ambiguous (profile))
        assay_dataset_add_warning_n (self, "column “%s”: every date fits both dd/mm/yyyy and mm/dd/yyyy; read as %s",
                                     assay_column_profile_is_day_first (profile)
                                       ? _("column “%s”: every date fits both dd/mm/yyyy and mm/dd/yyyy; read as day first")
                                       : _("column “%s”: every date fits both dd/mm/yyyy and mm/dd/yyyy; read as month first"),
                                     name, assay_column_profile_is_day_first (profile) ? "day first" : "month first");
      if (type == ASSAY_COLUMN_DATETIME && (flags & ASSAY_VALUE_HAS_TIMEZONE) && (flags & ASSAY_VALUE_NO_TIMEZONE))
        assay_dataset_add_warning (self, N_("column “%s” mixes times with and without a time zone"), name);
    }
  if (n_columns > 1000)
    /* TRANSLATORS: the English has one form for every count; the translation has its plural forms. */
    assay_dataset_add_warning_n (self, "a wide table: %u columns",
                                 g_dngettext (GETTEXT_PACKAGE,
                                              "a wide table: %u columns",
                                              "a wide table: %u columns",
                                              n_columns),
                                 n_columns);

  assay_dataset_build_read_call (self, result.long_rows);
  assay_dataset_part_clear (&result);
  return TRUE;
}

AssayDataset *
assay_dataset_open (const char    *path,
                    GCancellable  *cancellable,
                    GError       **error)
{
  return assay_dataset_open_with_dialect (path, NULL, cancellable, error);
}

AssayDataset *
assay_dataset_open_with_dialect (const char             *path,
                                 const AssayCsvDialect  *override,
                                 GCancellable           *cancellable,
                                 GError                **error)
{
  g_autoptr(AssayDataset) self = NULL;
  const char *data;
  gsize len;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (ASSAY_TYPE_DATASET, NULL);
  self->path = g_strdup (path);
  self->basename = g_path_get_basename (path);
  self->mapped = assay_mapped_new (path, error);
  if (self->mapped == NULL)
    return NULL;
  data = assay_mapped_get_data (self->mapped);
  len = assay_mapped_get_length (self->mapped);
  if (data == NULL)
    data = "";

  if (assay_sqlite_file_has_header (data, len))
    {
      /* SQLite reads it itself: the mapping only told what it is. */
      if (!assay_sqlite_file_check_header (data, len, len, self->basename, error))
        return NULL;
      g_clear_pointer (&self->mapped, assay_mapped_free);
      if (!assay_dataset_open_sqlite (self, cancellable, error))
        return NULL;
      return g_steal_pointer (&self);
    }
  if (assay_xlsx_looks_like_zip (data, len))
    {
      if (!assay_dataset_open_workbook (self, data, len, error))
        return NULL;
    }
  else
    {
      g_autoptr(GError) local_error = NULL;

      if (!assay_dataset_open_table (self, data, len, override, cancellable, &local_error))
        {
          /* A file named like a database that is none says so, not that it is odd text. */
          g_autofree char *reason = assay_sqlite_file_explain_not_database (self->basename, data, len);

          if (reason != NULL && !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, reason);
          else
            g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
    }
  if (!assay_mapped_check (self->mapped, path, error))
    return NULL;
  return g_steal_pointer (&self);
}

typedef struct
{
  char            *path;
  AssayCsvDialect *override;   /* NULL, or what the analyst corrected */
} OpenData;

static void
assay_dataset_open_data_free (OpenData *data)
{
  g_free (data->path);
  if (data->override != NULL)
    {
      assay_csv_dialect_clear_override (data->override);
      g_free (data->override);
    }
  g_free (data);
}

static void
assay_dataset_open_worker (GTask        *task,
                           gpointer      source,
                           gpointer      task_data,
                           GCancellable *cancellable)
{
  OpenData *data = task_data;
  GError *error = NULL;
  AssayDataset *dataset = assay_dataset_open_with_dialect (data->path, data->override,
                                                           cancellable, &error);

  if (dataset == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, dataset, g_object_unref);
}

void
assay_dataset_open_async (const char          *path,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  OpenData *data = g_new0 (OpenData, 1);

  g_task_set_source_tag (task, assay_dataset_open_async);
  data->path = g_strdup (path);
  g_task_set_task_data (task, data, (GDestroyNotify) assay_dataset_open_data_free);
  g_task_run_in_thread (task, assay_dataset_open_worker);
}

void
assay_dataset_open_with_dialect_async (const char             *path,
                                       const AssayCsvDialect  *override,
                                       GCancellable           *cancellable,
                                       GAsyncReadyCallback     callback,
                                       gpointer                user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  OpenData *data = g_new0 (OpenData, 1);

  /* Same source tag: assay_dataset_open_finish () finishes both. */
  g_task_set_source_tag (task, assay_dataset_open_async);
  data->path = g_strdup (path);
  if (override != NULL)
    {
      data->override = g_new0 (AssayCsvDialect, 1);
      assay_csv_dialect_init_override (data->override);
      data->override->encoding = g_strdup (override->encoding);
      data->override->delimiter = override->delimiter;
      data->override->quote = override->quote;
      data->override->decimal = override->decimal;
      data->override->header = override->header;
    }
  g_task_set_task_data (task, data, (GDestroyNotify) assay_dataset_open_data_free);
  g_task_run_in_thread (task, assay_dataset_open_worker);
}

AssayDataset *
assay_dataset_open_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Accessors ---------------------------------------------------------------------- */

const char *
assay_dataset_get_path (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return self->path;
}

gboolean
assay_dataset_is_workbook (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), FALSE);
  return self->sheets != NULL;
}

gboolean
assay_dataset_is_database (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), FALSE);
  return self->schema != NULL;
}

AssaySourceSchema *
assay_dataset_get_schema (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return self->schema;
}

const char *
assay_dataset_get_connect_call (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return self->connect_call;
}

int
assay_dataset_find_table_column (AssayDataset *self,
                                 const char   *table,
                                 const char   *column)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), -1);

  if (self->schema == NULL)
    return -1;
  for (guint c = 0; c < self->names->len; c++)
    if (g_strcmp0 (g_ptr_array_index (self->column_tables, c), table) == 0 &&
        g_strcmp0 (((AssaySourceColumn *) g_ptr_array_index (self->column_columns, c))->name, column) == 0)
      return (int) c;
  return -1;
}

const char *
assay_dataset_get_mask_table (AssayDataset *self,
                              const char   *dataset_name,
                              const char   *mask_name)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);

  if (self->schema == NULL || dataset_name == NULL || mask_name == NULL)
    return NULL;
  for (guint i = 0; i < self->schema->tables->len; i++)
    {
      AssaySourceTable *table = g_ptr_array_index (self->schema->tables, i);
      g_autofree char *name = assay_source_mask_dataset_name (dataset_name, table->name);

      if (g_str_equal (name, mask_name))
        return table->name;
    }
  return NULL;
}

/* Every non-null value of one column of an SQLite dataset, as text. */
static gboolean
assay_dataset_foreach_sqlite_value (AssayDataset          *self,
                                    guint                  column,
                                    AssayDatasetValueFunc  func,
                                    gpointer               user_data,
                                    GCancellable          *cancellable,
                                    GError               **error)
{
  g_autofree char *table = assay_sql_quote_identifier (ASSAY_SQL_SQLITE, g_ptr_array_index (self->column_tables, column));
  g_autofree char *name = assay_sql_quote_identifier (ASSAY_SQL_SQLITE,
                                                      ((AssaySourceColumn *) g_ptr_array_index (self->column_columns, column))->name);
  g_autofree char *sql = g_strdup_printf ("SELECT %s FROM %s WHERE %s IS NOT NULL", name, table, name);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  guint64 rows = 0;
  int rc = sqlite3_open_v2 (self->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL);

  if (rc == SQLITE_OK)
    {
      sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
      sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
      rc = sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL);
    }
  while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *text = (const char *) sqlite3_column_text (stmt, 0);

      rc = SQLITE_OK;
      if (text != NULL && !func (text, (gsize) sqlite3_column_bytes (stmt, 0), user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
      if (G_UNLIKELY (++rows % 65536 == 0) && g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          sqlite3_finalize (stmt);
          sqlite3_close_v2 (db);
          return FALSE;
        }
    }
  if (rc != SQLITE_DONE)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot read %s of %s: %s"),
                 (char *) g_ptr_array_index (self->names, column), self->basename,
                 db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
  sqlite3_finalize (stmt);
  sqlite3_close_v2 (db);
  return rc == SQLITE_DONE;
}

const AssayCsvDialect *
assay_dataset_get_dialect (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return self->dialect;
}

guint64
assay_dataset_get_n_rows (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), 0);
  return self->n_rows;
}

guint
assay_dataset_get_n_columns (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), 0);
  return self->names->len;
}

const char *
assay_dataset_get_read_call (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return self->read_call;
}

GPtrArray *
assay_dataset_get_warnings (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return self->warnings;
}

const char * const *
assay_dataset_get_column_names (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  if (self->names_strv == NULL)
    {
      self->names_strv = g_new0 (char *, self->names->len + 1);
      for (guint c = 0; c < self->names->len; c++)
        self->names_strv[c] = g_strdup (g_ptr_array_index (self->names, c));
    }
  return (const char * const *) self->names_strv;
}

int
assay_dataset_find_column (AssayDataset *self,
                           const char   *name)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), -1);

  for (guint c = 0; c < self->names->len; c++)
    if (g_strcmp0 (g_ptr_array_index (self->names, c), name) == 0)
      return (int) c;
  return -1;
}

gboolean
assay_dataset_foreach_value (AssayDataset          *self,
                             guint                  column,
                             AssayDatasetValueFunc  func,
                             gpointer               user_data,
                             GCancellable          *cancellable,
                             GError               **error)
{
  AssayCsvReader reader;
  g_autoptr(GString) scratch = g_string_sized_new (256);
  g_autoptr(GError) local_error = NULL;
  guint64 rows = 0;

  g_return_val_if_fail (ASSAY_IS_DATASET (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (self->schema != NULL && column < self->names->len)
    return assay_dataset_foreach_sqlite_value (self, column, func, user_data, cancellable, error);
  if (self->dialect == NULL || column >= self->names->len)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s has no column %u"), self->basename, column + 1);
      return FALSE;
    }

  assay_csv_reader_init (&reader, self->text, self->text_len, self->dialect->delimiter,
                         self->dialect->quote, self->dialect->backslash_escape);
  reader.pos = self->data_start;
  reader.line = self->data_line;
  while (assay_csv_reader_next (&reader, &local_error))
    {
      const char *s;
      gsize len;

      if (column < reader.n_fields)
        {
          g_string_truncate (scratch, 0);
          s = assay_csv_reader_field_text (&reader, &reader.fields[column], scratch, &len);
          if (!func (s, len, user_data))
            break;
        }
      if (G_UNLIKELY (++rows % 65536 == 0) &&
          g_cancellable_set_error_if_cancelled (cancellable, &local_error))
        break;
    }
  assay_csv_reader_clear (&reader);
  if (local_error == NULL && self->mapped != NULL && assay_mapped_is_damaged (self->mapped))
    g_set_error (&local_error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 _("%s was cut short while it was read"), self->basename);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return TRUE;
}

JsonObject *
assay_dataset_get_column_json (AssayDataset *self,
                               guint         column)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  if (self->schema != NULL && column < self->names->len)
    {
      AssaySourceColumn *entry = g_ptr_array_index (self->column_columns, column);
      JsonObject *object = json_object_new ();
      g_autofree char *type = g_ascii_strdown (entry->type != NULL ? entry->type : "", -1);

      json_object_set_string_member (object, "name", g_ptr_array_index (self->names, column));
      json_object_set_string_member (object, "table", g_ptr_array_index (self->column_tables, column));
      json_object_set_string_member (object, "column", entry->name);
      json_object_set_string_member (object, "type", type);
      return object;
    }
  if (column >= self->profiles->len)
    return NULL;
  return assay_column_profile_to_json (g_ptr_array_index (self->profiles, column),
                                       g_ptr_array_index (self->names, column));
}

/* ---- Output ------------------------------------------------------------------------- */

JsonObject *
assay_dataset_to_json (AssayDataset *self)
{
  JsonObject *object = json_object_new ();
  JsonArray *warnings = json_array_new ();
  g_autofree char *path = assay_data_sanitize (self->path, -1, 0);

  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);

  json_object_set_string_member (object, "path", path);
  json_object_set_string_member (object, "format", self->schema != NULL ? "sqlite" : self->sheets != NULL ? "xlsx" : "csv");
  if (self->schema != NULL)
    {
      JsonNode *schema = assay_source_schema_to_json (self->schema);
      JsonObject *schema_object = json_node_get_object (schema);

      json_object_set_string_member (object, "server", json_object_get_string_member (schema_object, "server"));
      json_object_set_int_member (object, "rows", (gint64) self->n_rows);
      json_object_set_member (object, "tables", json_node_ref (json_object_get_member (schema_object, "tables")));
      json_object_set_int_member (object, "more_tables", json_object_get_int_member (schema_object, "more_tables"));
      json_object_set_string_member (object, "connect", self->connect_call);
      json_object_set_string_member (object, "read_sql", self->read_call);
      json_object_set_null_member (object, "read_csv");
      json_node_unref (schema);
    }
  else if (self->sheets != NULL)
    {
      JsonArray *sheets = json_array_new ();

      for (guint i = 0; i < self->sheets->len; i++)
        {
          AssayXlsxSheet *sheet = g_ptr_array_index (self->sheets, i);
          JsonObject *entry = json_object_new ();
          g_autofree char *name = assay_data_sanitize (sheet->name, -1, 200);

          json_object_set_string_member (entry, "name", name);
          if (sheet->dimension != NULL)
            {
              g_autofree char *dimension = assay_data_sanitize (sheet->dimension, -1, 32);
              json_object_set_string_member (entry, "dimension", dimension);
            }
          else
            json_object_set_null_member (entry, "dimension");
          json_array_add_object_element (sheets, entry);
        }
      json_object_set_array_member (object, "sheets", sheets);
      json_object_set_string_member (object, "read_excel", self->read_call);
      json_object_set_null_member (object, "read_csv");
    }
  else
    {
      const AssayCsvDialect *d = self->dialect;
      char delimiter[2] = { d->delimiter, 0 }, quote[2] = { d->quote, 0 }, decimal[2] = { d->decimal, 0 };
      JsonArray *columns = json_array_new ();

      json_object_set_string_member (object, "encoding", d->encoding);
      json_object_set_boolean_member (object, "bom", d->bom_len > 0);
      json_object_set_string_member (object, "delimiter", delimiter);
      json_object_set_string_member (object, "quote", quote);
      json_object_set_string_member (object, "escape", d->backslash_escape ? "backslash" : "double");
      json_object_set_string_member (object, "decimal", decimal);
      if (d->thousands[0] != '\0')
        json_object_set_string_member (object, "thousands", d->thousands);
      else
        json_object_set_null_member (object, "thousands");
      json_object_set_boolean_member (object, "header", d->header);
      json_object_set_string_member (object, "line_ending",
                                     g_str_equal (d->line_ending, "\r\n") ? "crlf" :
                                     g_str_equal (d->line_ending, "\r") ? "cr" : "lf");
      json_object_set_int_member (object, "trailing_blank_lines", d->trailing_blank_lines);
      json_object_set_int_member (object, "rows", self->n_rows);
      for (guint c = 0; c < self->profiles->len; c++)
        json_array_add_object_element (columns,
                                       assay_column_profile_to_json (g_ptr_array_index (self->profiles, c),
                                                                     g_ptr_array_index (self->names, c)));
      json_object_set_array_member (object, "columns", columns);
      json_object_set_string_member (object, "read_csv", self->read_call);
    }
  for (guint i = 0; i < self->warnings->len; i++)
    json_array_add_string_element (warnings, g_ptr_array_index (self->warnings, i));
  json_object_set_array_member (object, "warnings", warnings);
  return object;
}

static char *
assay_dataset_format_stat (JsonObject *column,
                           const char *member)
{
  JsonNode *node = json_object_get_member (column, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
  return g_strdup_printf ("%.6g", json_node_get_double (node));
}

/* The fixed words of the summary: English for the model, translated for a person. s is marked
 * with N_(). */
static const char *
assay_dataset_tr (gboolean    for_model,
                  const char *s) G_GNUC_FORMAT (2);

static const char *
assay_dataset_tr (gboolean    for_model,
                  const char *s)
{
  return for_model ? s : _(s);
}

void
assay_dataset_set_mask_func (AssayDataset         *self,
                             AssayDatasetMaskFunc  func,
                             gpointer              user_data,
                             GDestroyNotify        destroy)
{
  g_return_if_fail (ASSAY_IS_DATASET (self));

  if (self->mask_destroy != NULL)
    self->mask_destroy (self->mask_data);
  self->mask_func = func;
  self->mask_data = user_data;
  self->mask_destroy = destroy;
}

/* A value of COLUMN as the summary shows it: masked whole first, then made printable and cut. */
static char *
assay_dataset_show_value (AssayDataset *self,
                          gboolean      for_model,
                          const char   *column,
                          const char   *value)
{
  g_autofree char *masked = NULL;

  if (for_model && self->mask_func != NULL && value != NULL)
    masked = self->mask_func (column, value, self->mask_data);
  return assay_data_sanitize (masked != NULL ? masked : value, -1, 30);
}

static char *
assay_dataset_describe_column (AssayDataset *self,
                               gboolean      for_model,
                               guint         c,
                               JsonObject   *column)
{
  GString *line = g_string_new (NULL);
  AssayColumnProfile *profile = g_ptr_array_index (self->profiles, c);
  const char *type = json_object_get_string_member (column, "type");
  const char *name = json_object_get_string_member (column, "name");
  g_autofree char *min = assay_dataset_format_stat (column, "min");
  g_autofree char *max = assay_dataset_format_stat (column, "max");
  g_autofree char *mean = assay_dataset_format_stat (column, "mean");
  const char * const *samples = assay_column_profile_get_samples (profile);
  JsonArray *top = json_object_get_array_member (column, "top");
  gboolean exact;
  guint64 distinct = assay_column_profile_get_distinct (profile, &exact);

  g_string_append_printf (line, "- %s: %s", name, type);
  if (assay_column_profile_is_day_first (profile))
    g_string_append (line, assay_dataset_tr (for_model, N_(" (day first)")));
  g_string_append_printf (line, assay_dataset_tr (for_model, N_(", %lld nulls, %s%llu distinct")),
                          (long long) json_object_get_int_member (column, "nulls"), exact ? "" : "~",
                          (unsigned long long) distinct);
  if (min != NULL && max != NULL)
    g_string_append_printf (line, ", %s … %s", min, max);
  if (mean != NULL && g_strcmp0 (type, "date") != 0 && g_strcmp0 (type, "datetime") != 0)
    g_string_append_printf (line, assay_dataset_tr (for_model, N_(", mean %s")), mean);
  if (json_array_get_length (top) > 0 && distinct < self->n_rows)
    {
      g_string_append (line, assay_dataset_tr (for_model, N_("; top:")));
      for (guint i = 0; i < MIN (json_array_get_length (top), 3u); i++)
        {
          JsonObject *entry = json_array_get_object_element (top, i);
          g_autofree char *value = assay_dataset_show_value (self, for_model, name,
                                                             json_object_get_string_member (entry, "value"));
          g_string_append_printf (line, "%s “%s” ×%" G_GINT64_FORMAT, i > 0 ? "," : "", value,
                                  json_object_get_int_member (entry, "count"));
        }
    }
  else if (samples[0] != NULL)
    {
      g_string_append (line, assay_dataset_tr (for_model, N_("; e.g.")));
      for (guint i = 0; samples[i] != NULL; i++)
        {
          g_autofree char *value = assay_dataset_show_value (self, for_model, name, samples[i]);
          g_string_append_printf (line, "%s “%s”", i > 0 ? "," : "", value);
        }
    }
  g_string_append_c (line, '\n');
  return g_string_free (line, FALSE);
}

static char *
assay_dataset_describe (AssayDataset *self,
                        gboolean      for_model,
                        gboolean      schema_only,
                        gsize         max_chars)
{
  GString *out = g_string_new (NULL);
  g_autofree char *where = for_model ? assay_dataset_sandbox_path (self) : assay_data_sanitize (self->path, -1, 0);
  g_autofree char *name = assay_data_sanitize (self->basename, -1, 200);
  g_autoptr(JsonObject) json = assay_dataset_to_json (self);
  gsize reserve = 0;

  if (self->schema != NULL)
    {
      g_autoptr(GString) intro = g_string_new (NULL);
      g_autofree char *schema = NULL;

      g_string_append_printf (intro, assay_dataset_tr (for_model, N_("File %s: an SQLite database, at %s\n")), name, where);
      if (for_model)
        g_string_append_printf (intro,
                                "Open it read-only (the folder cannot be written: without immutable=1 SQLite may fail "
                                "creating its journal): import sqlite3; con = %s; then df = %s. Its ",
                                self->connect_call, self->read_call);
      schema = assay_source_schema_describe_file (self->schema, self->basename, intro->str, NULL, schema_only,
                                                  max_chars);
      g_string_append (out, schema);
    }
  else if (self->sheets != NULL)
    {
      g_string_append_printf (out, assay_dataset_tr (for_model, N_("File %s: an Excel workbook, at %s\nSheets (%u):\n")), name, where,
                              self->sheets->len);
      for (guint i = 0; i < self->sheets->len && out->len < max_chars; i++)
        {
          AssayXlsxSheet *sheet = g_ptr_array_index (self->sheets, i);
          g_autofree char *sheet_name = assay_data_sanitize (sheet->name, -1, 80);
          g_string_append_printf (out, "- %s%s%s%s\n", sheet_name, sheet->dimension ? assay_dataset_tr (for_model, N_(" (cells ")) : "",
                                  sheet->dimension ? sheet->dimension : "", sheet->dimension ? ")" : "");
        }
      g_string_append_printf (out, assay_dataset_tr (for_model, N_("Read a sheet with: df = %s (needs openpyxl; sheet_name=None reads all)\n")),
                              self->read_call);
    }
  else
    {
      const AssayCsvDialect *d = self->dialect;
      JsonArray *columns = json_object_get_array_member (json, "columns");
      guint n_columns = json_array_get_length (columns);
      guint detailed = 0;
      guint counts[6] = { 0 };

      g_string_append_printf (out, assay_dataset_tr (for_model, N_("File %s, at %s\n")), name, where);
      g_string_append_printf (out,
                              assay_dataset_tr (for_model, N_("Read it with: df = %s\n")),
                              self->read_call);
      g_string_append_printf (out, assay_dataset_tr (for_model, N_("%llu rows × %u columns; encoding %s%s, delimiter %s, "
                                                                   "decimal '%c'%s%s%s\n")),
                              (unsigned long long) self->n_rows, n_columns, d->encoding,
                              d->bom_len > 0 ? assay_dataset_tr (for_model, N_(" with BOM")) : "",
                              d->delimiter == '\t' ? assay_dataset_tr (for_model, N_("tab"))
                                                   : (char[]) { '\'', d->delimiter, '\'', 0 },
                              d->decimal, d->thousands[0] ? assay_dataset_tr (for_model, N_(", thousands separator ")) : "",
                              g_str_equal (d->thousands,
                                           "\xC2\xA0") ? assay_dataset_tr (for_model, N_("no-break space")) :
                              g_str_equal (d->thousands, " ") ? assay_dataset_tr (for_model, N_("space")) :
                              g_str_equal (d->thousands, ",") ? "','" :
                              g_str_equal (d->thousands, ".") ? "'.'" :
                              g_str_equal (d->thousands,
                                           "'") ? assay_dataset_tr (for_model, N_("apostrophe")) : "",
                              d->header ? "" : n_columns <= MAX_NAMED_COLUMNS
                                                 ? assay_dataset_tr (for_model, N_(", no header row (read_csv names the columns)"))
                                                 : assay_dataset_tr (for_model, N_(", no header row (pandas numbers the columns from 0)")));

      /* Warnings matter more than the last columns: keep room for them. */
      for (guint i = 0; i < self->warnings->len; i++)
        reserve += strlen (g_ptr_array_index (self->warnings, i)) + 3;
      reserve = MIN (reserve + 12, max_chars / 3);

      g_string_append (out, assay_dataset_tr (for_model, N_("Columns:\n")));
      for (guint c = 0; c < n_columns; c++)
        {
          g_autofree char *line = NULL;

          /* A wide table gets a few columns in full and the rest by name. */
          if (c >= (n_columns > 30 ? 10u : 30u))
            break;
          if (schema_only)
            {
              JsonObject *column = json_array_get_object_element (columns, c);

              line = g_strdup_printf ("- %s (%s)\n", json_object_get_string_member (column, "name"),
                                      json_object_get_string_member (column, "type"));
            }
          else
            line = assay_dataset_describe_column (self,
                                                  for_model,
                                                  c,
                                                  json_array_get_object_element (columns, c));
          if (out->len + strlen (line) + reserve + 80 > max_chars)
            break;
          g_string_append (out, line);
          detailed++;
        }
      if (detailed < n_columns)
        {
          guint listed = detailed;

          g_string_append (out, "- ");
          for (guint c = detailed; c < n_columns; c++)
            {
              JsonObject *column = json_array_get_object_element (columns, c);
              g_autofree char *entry = g_strdup_printf ("%s%s (%s)", c > detailed ? ", " : "",
                                                        json_object_get_string_member (column, "name"),
                                                        json_object_get_string_member (column, "type"));
              if (out->len + strlen (entry) + reserve + 80 > max_chars)
                break;
              g_string_append (out, entry);
              listed++;
            }
          for (guint c = listed; c < n_columns; c++)
            counts[assay_column_profile_get_type_kind (g_ptr_array_index (self->profiles, c))]++;
          if (listed < n_columns)
            {
              if (for_model)
                g_string_append_printf (out, "%s%u more column%s:", listed > detailed ? ", and " : "",
                                        n_columns - listed, n_columns - listed > 1 ? "s" : "");
              else
                g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "%s%u more column:",
                                                          "%s%u more columns:", n_columns - listed),
                                        listed > detailed ? _(", and ") : "", n_columns - listed);
              for (guint t = 0; t < G_N_ELEMENTS (counts); t++)
                if (counts[t] > 0)
                  g_string_append_printf (out, " %u %s", counts[t], assay_column_type_to_string (t));
            }
          g_string_append_c (out, '\n');
        }
    }

  /* Warnings quote values. */
  if (self->warnings->len > 0 && !schema_only)
    {
      GPtrArray *warnings = for_model ? self->warnings : self->warnings_human;

      g_string_append (out, assay_dataset_tr (for_model, N_("Warnings:\n")));
      for (guint i = 0; i < warnings->len; i++)
        {
          const char *warning = g_ptr_array_index (warnings, i);
          if (out->len + strlen (warning) + 3 > max_chars)
            break;
          g_string_append_printf (out, "- %s\n", warning);
        }
    }

  if (out->len > max_chars)
    {
      /* Cut on a character boundary. */
      gsize cut = max_chars;
      while (cut > 0 && (out->str[cut] & 0xc0) == 0x80)
        cut--;
      g_string_truncate (out, cut);
    }
  return g_string_free (out, FALSE);
}

char *
assay_dataset_describe_for_model (AssayDataset *self,
                                  gsize         max_chars)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return assay_dataset_describe (self, TRUE, FALSE, MAX (max_chars, 64));
}

char *
assay_dataset_describe_for_human (AssayDataset *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET (self), NULL);
  return assay_dataset_describe (self, FALSE, FALSE, G_MAXSIZE / 2);
}

/* The whole prompt's room for datasets, shared between them, never below a useful minimum. */
#define PROMPT_DATASETS_CHARS 12000
#define PROMPT_DATASET_MIN_CHARS 600

char *
assay_dataset_describe_for_prompt (AssayDataset *dataset,
                                   const GError *error,
                                   guint         n_datasets)
{
  g_return_val_if_fail (dataset == NULL || ASSAY_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (dataset != NULL || error != NULL, NULL);

  if (dataset == NULL)
    return g_strdup_printf ("Assay could not read this file as a table: %s", error->message);
  return assay_dataset_describe_for_model (dataset, MAX (PROMPT_DATASETS_CHARS / MAX (n_datasets, 1),
                                                         PROMPT_DATASET_MIN_CHARS));
}

char *
assay_dataset_describe_schema_for_prompt (AssayDataset *dataset,
                                          const GError *error,
                                          guint         n_datasets)
{
  g_return_val_if_fail (dataset == NULL || ASSAY_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (dataset != NULL || error != NULL, NULL);

  /* The reason a file was not read may quote it. */
  if (dataset == NULL)
    return g_strdup ("Assay could not read this file as a table.");
  return assay_dataset_describe (dataset, TRUE, TRUE,
                                 MAX (PROMPT_DATASETS_CHARS / MAX (n_datasets, 1), PROMPT_DATASET_MIN_CHARS));
}
