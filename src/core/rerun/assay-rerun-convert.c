/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A new file written in its dataset's old dialect, so that the approved code reads it
 * unchanged: the encoding, the delimiter, the quote, the line ends, and in number columns
 * the decimal separator (thousands separators dropped). */
#define G_LOG_DOMAIN "Assay-Rerun"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <string.h>

#include "assay-csv-dialect.h"
#include "assay-csv-reader.h"
#include "assay-mapped.h"
#include "assay-rerun-private.h"

#define CONVERT_CHUNK (1024 * 1024)

static char *
assay_rerun_convert_iconv_name (const char *encoding)
{
  g_autofree char *name = g_ascii_strup (encoding, -1);

  if (g_str_equal (name, "X-MAC-CYRILLIC"))
    return g_strdup ("MAC-CYRILLIC");
  return g_steal_pointer (&name);
}

/* Writes the UTF-8 in BUFFER in the old encoding, then empties it. */
static gboolean
assay_rerun_convert_flush (GOutputStream  *out,
                           GString        *buffer,
                           const char     *iconv_name,
                           guint64         line,
                           GError        **error)
{
  gboolean ok;

  if (buffer->len == 0)
    return TRUE;
  if (iconv_name == NULL)
    ok = g_output_stream_write_all (out, buffer->str, buffer->len, NULL, NULL, error);
  else
    {
      g_autoptr(GError) local_error = NULL;
      gsize written = 0;
      g_autofree char *encoded = g_convert (buffer->str, buffer->len, iconv_name, "UTF-8", NULL, &written,
                                            &local_error);

      if (encoded == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("the new file has characters that %s cannot hold (before line %llu), "
                         "so it cannot be written the way the old one was"),
                       iconv_name, (unsigned long long) line);
          return FALSE;
        }
      ok = g_output_stream_write_all (out, encoded, written, NULL, NULL, error);
    }
  g_string_truncate (buffer, 0);
  return ok;
}

/* A number as the old dialect writes it: the new thousands separator dropped, the new
 * decimal separator made the old one. Anything else (a blank, "NA") stays as it is. */
static void
assay_rerun_convert_number (GString               *out,
                            const char            *text,
                            gsize                  len,
                            const AssayCsvDialect *from,
                            const AssayCsvDialect *to)
{
  gsize thousands_len = strlen (from->thousands);

  for (gsize i = 0; i < len; i++)
    {
      if (thousands_len > 0 && i + thousands_len <= len && memcmp (text + i, from->thousands, thousands_len) == 0)
        {
          i += thousands_len - 1;
          continue;
        }
      if (text[i] == from->decimal)
        g_string_append_c (out, to->decimal);
      else
        g_string_append_c (out, text[i]);
    }
}

static void
assay_rerun_convert_field (GString               *out,
                           const char            *text,
                           gsize                  len,
                           const AssayCsvDialect *to)
{
  gboolean quote = FALSE;

  for (gsize i = 0; i < len && !quote; i++)
    quote = text[i] == to->delimiter || text[i] == '\n' || text[i] == '\r' ||
            (to->quote != '\0' && text[i] == to->quote) || (to->backslash_escape && text[i] == '\\');
  if (!quote || to->quote == '\0')
    {
      g_string_append_len (out, text, len);
      return;
    }
  g_string_append_c (out, to->quote);
  for (gsize i = 0; i < len; i++)
    {
      if (text[i] == to->quote || (to->backslash_escape && text[i] == '\\'))
        g_string_append_c (out, to->backslash_escape ? '\\' : to->quote);
      g_string_append_c (out, text[i]);
    }
  g_string_append_c (out, to->quote);
}

gboolean
assay_rerun_convert (const char            *new_path,
                     const AssayCsvDialect *to,
                     const gboolean        *numeric,
                     guint                  n_numeric,
                     const char            *out_path,
                     GError               **error)
{
  g_autoptr(AssayMapped) mapped = NULL;
  g_autoptr(AssayCsvDialect) from = NULL;
  g_autoptr(GBytes) converted = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GString) buffer = g_string_sized_new (CONVERT_CHUNK + 4096);
  g_autoptr(GString) scratch = g_string_new (NULL);
  g_autoptr(GString) number = g_string_new (NULL);
  g_autofree char *iconv_name = NULL;
  g_autoptr(GError) local_error = NULL;
  AssayCsvReader reader;
  const char *text;
  gsize text_len;
  gboolean first = TRUE, ok = TRUE;

  mapped = assay_mapped_new (new_path, error);
  if (mapped == NULL)
    return FALSE;
  from = assay_csv_dialect_sniff (assay_mapped_get_data (mapped), assay_mapped_get_length (mapped), TRUE,
                                  &converted, &text, &text_len, error);
  if (from == NULL)
    return FALSE;

  if (!g_str_equal (to->encoding, "utf-8"))
    iconv_name = assay_rerun_convert_iconv_name (to->encoding);
  file = g_file_new_for_path (out_path);
  stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_PRIVATE, NULL, error);
  if (stream == NULL)
    return FALSE;

  /* The old file's byte-order mark, when it had one. */
  if (to->bom_len > 0 && g_str_equal (to->encoding, "utf-8"))
    g_string_append (buffer, "\xEF\xBB\xBF");
  else if (to->bom_len > 0)
    {
      const char *bom = g_str_equal (to->encoding, "utf-16be") ? "\xFE\xFF" : "\xFF\xFE";

      if (!g_output_stream_write_all (G_OUTPUT_STREAM (stream), bom, 2, NULL, NULL, error))
        return FALSE;
    }

  assay_csv_reader_init (&reader, text, text_len, from->delimiter, from->quote, from->backslash_escape);
  reader.pos = MIN (from->preamble_len, text_len);
  while (ok && assay_csv_reader_next (&reader, &local_error))
    {
      /* The header keeps its names; in the rows, number columns get the old separators. */
      gboolean header = first && from->header;

      for (guint i = 0; i < reader.n_fields; i++)
        {
          gsize len;
          const char *field;

          g_string_truncate (scratch, 0);
          field = assay_csv_reader_field_text (&reader, &reader.fields[i], scratch, &len);
          if (i > 0)
            g_string_append_c (buffer, to->delimiter);
          if (!header && i < n_numeric && numeric[i])
            {
              g_string_truncate (number, 0);
              assay_rerun_convert_number (number, field, len, from, to);
              assay_rerun_convert_field (buffer, number->str, number->len, to);
            }
          else
            assay_rerun_convert_field (buffer, field, len, to);
        }
      g_string_append (buffer, to->line_ending != NULL ? to->line_ending : "\n");
      first = FALSE;
      if (buffer->len >= CONVERT_CHUNK)
        ok = assay_rerun_convert_flush (G_OUTPUT_STREAM (stream), buffer, iconv_name, reader.line, error);
    }
  assay_csv_reader_clear (&reader);
  if (ok && local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      ok = FALSE;
    }
  if (ok)
    ok = assay_rerun_convert_flush (G_OUTPUT_STREAM (stream), buffer, iconv_name, reader.line, error);
  if (ok && !assay_mapped_check (mapped, new_path, error))
    ok = FALSE;
  if (!g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, ok ? error : NULL))
    ok = FALSE;
  if (!ok)
    g_unlink (out_path);
  return ok;
}

char *
assay_rerun_describe_dialect (const AssayCsvDialect *dialect)
{
  g_autoptr(GString) text = g_string_new (dialect->encoding);

  if (dialect->delimiter == '\t')
    g_string_append (text, _(", tab-separated"));
  else
    g_string_append_printf (text, _(", “%c” between fields"), dialect->delimiter);
  g_string_append_printf (text, _(", decimal “%c”"), dialect->decimal);
  return g_string_free (g_steal_pointer (&text), FALSE);
}
