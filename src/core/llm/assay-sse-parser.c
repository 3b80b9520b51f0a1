/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "assay-sse-parser.h"

struct _AssaySseParser
{
  gsize     max_bytes;
  GString  *line;
  GString  *event;
  GString  *data;
  gboolean  has_data;
  gboolean  after_cr;      /* the last piece ended in CR: a leading LF belongs to it */
  gboolean  at_start;      /* nothing seen yet: a BOM may follow */
  guint     bom_matched;   /* bytes of a BOM seen at the start so far */
  gboolean  failed;
};

static const char bom[] = "\xEF\xBB\xBF";

AssaySseParser *
assay_sse_parser_new (gsize max_bytes)
{
  AssaySseParser *parser = g_new0 (AssaySseParser, 1);

  parser->max_bytes = max_bytes > 0 ? max_bytes : ASSAY_SSE_DEFAULT_MAX_BYTES;
  parser->line = g_string_new (NULL);
  parser->event = g_string_new (NULL);
  parser->data = g_string_new (NULL);
  assay_sse_parser_reset (parser);
  return parser;
}

void
assay_sse_parser_reset (AssaySseParser *parser)
{
  g_string_truncate (parser->line, 0);
  g_string_truncate (parser->event, 0);
  g_string_truncate (parser->data, 0);
  parser->has_data = FALSE;
  parser->after_cr = FALSE;
  parser->at_start = TRUE;
  parser->bom_matched = 0;
  parser->failed = FALSE;
}

void
assay_sse_parser_free (AssaySseParser *parser)
{
  if (parser == NULL)
    return;
  g_string_free (parser->line, TRUE);
  g_string_free (parser->event, TRUE);
  g_string_free (parser->data, TRUE);
  g_free (parser);
}

static gboolean
assay_sse_parser_fail_too_large (AssaySseParser  *parser,
                                 GError         **error)
{
  parser->failed = TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
               "The server sent an event larger than %" G_GSIZE_FORMAT " MiB",
               parser->max_bytes / (1024 * 1024));
  return FALSE;
}

static gboolean
assay_sse_parser_dispatch (AssaySseParser     *parser,
                           AssaySseEventFunc   func,
                           gpointer            user_data,
                           GError            **error)
{
  gboolean ok = TRUE;

  if (parser->has_data)
    {
      /* The data buffer has a '\n' after every line: drop the last one. */
      if (parser->data->len > 0)
        g_string_truncate (parser->data, parser->data->len - 1);
      ok = func (parser->event->len > 0 ? parser->event->str : "message",
                 parser->data->str, parser->data->len, user_data, error);
    }

  g_string_truncate (parser->event, 0);
  g_string_truncate (parser->data, 0);
  parser->has_data = FALSE;
  if (!ok)
    parser->failed = TRUE;
  return ok;
}

static gboolean
assay_sse_parser_process_line (AssaySseParser     *parser,
                               AssaySseEventFunc   func,
                               gpointer            user_data,
                               GError            **error)
{
  const char *line = parser->line->str;
  gsize len = parser->line->len;
  const char *colon;
  gsize name_len;
  const char *value;
  gsize value_len;

  if (len == 0)
    return assay_sse_parser_dispatch (parser, func, user_data, error);

  if (line[0] == ':')
    return TRUE;

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      name_len = colon - line;
      value = colon + 1;
      value_len = len - name_len - 1;
      if (value_len > 0 && value[0] == ' ')
        {
          value++;
          value_len--;
        }
    }
  else
    {
      name_len = len;
      value = "";
      value_len = 0;
    }

  if (name_len == 4 && memcmp (line, "data", 4) == 0)
    {
      if (parser->data->len + value_len + 1 > parser->max_bytes)
        return assay_sse_parser_fail_too_large (parser, error);
      g_string_append_len (parser->data, value, value_len);
      g_string_append_c (parser->data, '\n');
      parser->has_data = TRUE;
    }
  else if (name_len == 5 && memcmp (line, "event", 5) == 0)
    {
      g_string_truncate (parser->event, 0);
      g_string_append_len (parser->event, value, value_len);
    }
  /* "id", "retry" and unknown fields are ignored. */

  return TRUE;
}

gboolean
assay_sse_parser_feed (AssaySseParser     *parser,
                       const char         *data,
                       gsize               len,
                       AssaySseEventFunc   func,
                       gpointer            user_data,
                       GError            **error)
{
  const char *p = data;
  const char *end = data + len;

  g_return_val_if_fail (parser != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (parser->failed)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "The event stream already failed");
      return FALSE;
    }

  /* A BOM may be split across pieces too; bytes that turn out not to be one are text. */
  while (parser->at_start && p < end)
    {
      if ((guchar) *p == (guchar) bom[parser->bom_matched])
        {
          parser->bom_matched++;
          p++;
          if (parser->bom_matched == 3)
            parser->at_start = FALSE;
          continue;
        }
      parser->at_start = FALSE;
      g_string_append_len (parser->line, bom, parser->bom_matched);
    }

  while (p < end)
    {
      const char *stop = p;

      if (parser->after_cr)
        {
          parser->after_cr = FALSE;
          if (*p == '\n')
            {
              p++;
              continue;
            }
        }

      while (stop < end && *stop != '\n' && *stop != '\r')
        stop++;

      if (parser->line->len + (stop - p) > parser->max_bytes)
        return assay_sse_parser_fail_too_large (parser, error);
      g_string_append_len (parser->line, p, stop - p);

      if (stop == end)
        break;

      parser->after_cr = (*stop == '\r');
      p = stop + 1;

      if (!assay_sse_parser_process_line (parser, func, user_data, error))
        {
          parser->failed = TRUE;
          return FALSE;
        }
      g_string_truncate (parser->line, 0);
    }

  return TRUE;
}
