/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <string.h>

#include "assay-csv-reader.h"

void
assay_csv_reader_init (AssayCsvReader *reader,
                       const char     *data,
                       gsize           len,
                       char            delimiter,
                       char            quote,
                       gboolean        backslash_escape)
{
  memset (reader, 0, sizeof *reader);
  reader->data = data;
  reader->len = len;
  reader->delimiter = delimiter;
  reader->quote = quote;
  reader->backslash_escape = backslash_escape;
  reader->line = 1;
  reader->stops[(guchar) delimiter] = 1;
  reader->stops['\n'] = 1;
  reader->stops['\r'] = 1;
  reader->fields_alloc = 64;
  reader->fields = g_new (AssayCsvField, reader->fields_alloc);
}

void
assay_csv_reader_clear (AssayCsvReader *reader)
{
  g_clear_pointer (&reader->fields, g_free);
  reader->n_fields = reader->fields_alloc = 0;
}

static inline gboolean
assay_csv_reader_push_field (AssayCsvReader  *reader,
                             gsize            start,
                             gsize            len,
                             guint            flags,
                             GError         **error)
{
  if (G_UNLIKELY (reader->n_fields == reader->fields_alloc))
    {
      if (reader->fields_alloc >= ASSAY_CSV_MAX_FIELDS)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("the row at line %llu has more than %u fields"),
                       (unsigned long long) reader->record_line, ASSAY_CSV_MAX_FIELDS);
          return FALSE;
        }
      reader->fields_alloc *= 2;
      reader->fields = g_renew (AssayCsvField, reader->fields, reader->fields_alloc);
    }
  reader->fields[reader->n_fields].start = start;
  reader->fields[reader->n_fields].len = len;
  reader->fields[reader->n_fields].flags = flags;
  reader->n_fields++;
  return TRUE;
}

/* Skips blank and whitespace-only lines; returns FALSE at the end of the data. */
static gboolean
assay_csv_reader_skip_blank_lines (AssayCsvReader *reader)
{
  const char *data = reader->data;
  gsize pos = reader->pos;

  reader->blank_run = 0;
  while (pos < reader->len)
    {
      gsize p = pos;

      while (p < reader->len && (data[p] == ' ' || data[p] == '\t') && data[p] != reader->delimiter)
        p++;
      if (p == reader->len)
        {
          if (p > pos)
            {
              reader->blank_lines++;
              reader->blank_run++;
            }
          pos = p;
          break;
        }
      if (data[p] == '\n' || data[p] == '\r')
        {
          if (data[p] == '\r' && p + 1 < reader->len && data[p + 1] == '\n')
            p++;
          pos = p + 1;
          reader->line++;
          reader->blank_lines++;
          reader->blank_run++;
          continue;
        }
      break;
    }
  reader->pos = pos;
  return pos < reader->len;
}

gboolean
assay_csv_reader_next (AssayCsvReader  *reader,
                       GError         **error)
{
  const char *data = reader->data;
  const gsize len = reader->len;
  const char delimiter = reader->delimiter;
  const char quote = reader->quote;
  gsize p;

  reader->n_fields = 0;
  if (!assay_csv_reader_skip_blank_lines (reader))
    return FALSE;

  p = reader->pos;
  reader->record_start = p;
  reader->record_line = reader->line;

  for (;;)
    {
      gsize start = p;
      guint flags = 0;

      if (quote != 0 && p < len && data[p] == quote)
        {
          gsize q = p + 1;
          guint64 newlines = 0;
          gboolean closed = FALSE;

          flags = ASSAY_CSV_FIELD_QUOTED;
          while (q < len)
            {
              const char *hit;
              gsize n = len - q;

              /* Find the next quote (or backslash); count the line breaks we pass. */
              hit = memchr (data + q, quote, n);
              if (reader->backslash_escape)
                {
                  const char *bs = memchr (data + q, '\\', hit != NULL ? (gsize) (hit - (data + q)) : n);
                  if (bs != NULL)
                    hit = bs;
                }
              if (hit == NULL)
                break;
              for (const char *c = data + q; c < hit; c++)
                newlines += (*c == '\n') || (*c == '\r' && (c + 1 >= data + len || c[1] != '\n'));
              q = hit - data;
              if (data[q] == '\\')
                {
                  flags |= ASSAY_CSV_FIELD_ENCODED;
                  q += 2;
                  continue;
                }
              if (!reader->backslash_escape && q + 1 < len && data[q + 1] == quote)
                {
                  flags |= ASSAY_CSV_FIELD_ENCODED;
                  q += 2;
                  continue;
                }
              closed = TRUE;
              break;
            }
          if (!closed)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("unterminated quote: the field that starts at line %llu"
                             " (byte %zu) is never closed"),
                           (unsigned long long) reader->line, start);
              return FALSE;
            }
          reader->line += newlines;
          p = q + 1;
          if (p < len && data[p] != delimiter && data[p] != '\n' && data[p] != '\r')
            {
              /* "ab"cd: pandas keeps the text after the quote. */
              flags |= ASSAY_CSV_FIELD_ENCODED;
              while (p < len && data[p] != delimiter && data[p] != '\n' && data[p] != '\r')
                p++;
            }
          if (flags & ASSAY_CSV_FIELD_ENCODED)
            {
              if (!assay_csv_reader_push_field (reader, start, p - start, flags, error))
                return FALSE;
            }
          else if (!assay_csv_reader_push_field (reader, start + 1, q - start - 1, flags, error))
            return FALSE;
        }
      else
        {
          const guint8 *stops = reader->stops;

          while (p < len && !stops[(guchar) data[p]])
            p++;
          if (!assay_csv_reader_push_field (reader, start, p - start, 0, error))
            return FALSE;
        }

      if (p >= len)
        break;
      if (data[p] == delimiter)
        {
          p++;
          if (p >= len || data[p] == '\n' || data[p] == '\r')
            {
              /* A trailing delimiter ends the record with an empty field. */
              if (!assay_csv_reader_push_field (reader, p, 0, 0, error))
                return FALSE;
              if (p >= len)
                break;
            }
          else
            continue;
        }
      /* A line break. */
      if (data[p] == '\r' && p + 1 < len && data[p + 1] == '\n')
        p++;
      p++;
      reader->line++;
      break;
    }

  reader->pos = p;
  return TRUE;
}

const char *
assay_csv_reader_field_text (const AssayCsvReader *reader,
                             const AssayCsvField  *field,
                             GString              *scratch,
                             gsize                *len)
{
  const char *s = reader->data + field->start;
  const char *end = s + field->len;
  gboolean in_quotes = FALSE;
  gsize before;

  if (!(field->flags & ASSAY_CSV_FIELD_ENCODED))
    {
      *len = field->len;
      return s;
    }

  before = scratch->len;
  if (s < end && *s == reader->quote)
    {
      in_quotes = TRUE;
      s++;
    }
  while (s < end)
    {
      if (in_quotes && reader->backslash_escape && *s == '\\' && s + 1 < end)
        {
          g_string_append_c (scratch, s[1]);
          s += 2;
        }
      else if (in_quotes && *s == reader->quote)
        {
          if (!reader->backslash_escape && s + 1 < end && s[1] == reader->quote)
            {
              g_string_append_c (scratch, reader->quote);
              s += 2;
            }
          else
            {
              in_quotes = FALSE;
              s++;
            }
        }
      else
        g_string_append_c (scratch, *s++);
    }
  *len = scratch->len - before;
  return scratch->str + before;
}
