/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <string.h>

#include "assay-data-text.h"

static gboolean
assay_data_text_is_hidden_char (gunichar c)
{
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
         (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
         c == 0x200e || c == 0x200f || c == 0x061c || c == 0xfeff;
}

char *
assay_data_sanitize (const char *text,
                     gssize      len,
                     gsize       max_chars)
{
  GString *out;
  const char *p;
  const char *end;
  gsize chars = 0;

  if (text == NULL)
    return g_strdup ("");
  if (len < 0)
    len = strlen (text);

  out = g_string_sized_new (MIN ((gsize) len, 256));
  p = text;
  end = text + len;
  while (p < end)
    {
      const char *run = p;
      gunichar c;
      gsize step;

      /* Printable ASCII, nearly all of a table, is copied a run at a time. */
      while (p < end && (guchar) *p >= 0x20 && (guchar) *p < 0x7f)
        p++;
      if (p > run)
        {
          gsize n = p - run;

          if (max_chars > 0 && chars + n > max_chars)
            {
              n = chars < max_chars ? max_chars - chars : 0;
              p = run + n;
            }
          g_string_append_len (out, run, n);
          chars += n;
          if (n > 0 || p == end)
            continue;
        }

      c = g_utf8_get_char_validated (p, end - p);

      if (max_chars > 0 && chars >= max_chars)
        {
          g_string_append (out, "\xE2\x80\xA6"); /* … */
          break;
        }
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append (out, "\xEF\xBF\xBD");
          p++;
          chars++;
          continue;
        }
      step = g_utf8_next_char (p) - p;
      if (c == '\t' || c == '\n' || c == '\r')
        {
          g_string_append_c (out, ' ');
          chars++;
        }
      else if (!assay_data_text_is_hidden_char (c))
        {
          g_string_append_len (out, p, step);
          chars++;
        }
      p += step;
    }
  return g_string_free (out, FALSE);
}

gsize
assay_data_utf8_invalid_at (const char *data,
                            gsize       len,
                            gboolean    truncated_ok)
{
  gsize i = 0;

  while (i < len)
    {
      if (i + 8 <= len)
        {
          guint64 word;

          memcpy (&word, data + i, 8);
          if ((word & G_GUINT64_CONSTANT (0x8080808080808080)) == 0)
            {
              i += 8;
              continue;
            }
        }
      if ((guchar) data[i] < 0x80)
        {
          i++;
          continue;
        }
      else
        {
          gunichar c = g_utf8_get_char_validated (data + i, len - i);

          if (c == (gunichar) -2 && truncated_ok)
            return len;
          if (c == (gunichar) -1 || c == (gunichar) -2)
            return i;
          i = g_utf8_next_char (data + i) - data;
        }
    }
  return len;
}

GBytes *
assay_data_convert_to_utf8 (const char  *data,
                            gsize        len,
                            const char  *encoding,
                            GError     **error)
{
  GIConv cd = g_iconv_open ("UTF-8", encoding);
  GByteArray *out;
  char *in = (char *) data;
  gsize in_left = len;
  gsize unit = 1;
  char buffer[64 * 1024];

  if (cd == (GIConv) -1)
    {
      g_set_error (error, G_CONVERT_ERROR, G_CONVERT_ERROR_NO_CONVERSION,
                   _("cannot convert from %s"), encoding);
      return NULL;
    }
  if (g_str_has_prefix (encoding, "UTF-16") || g_str_has_prefix (encoding, "utf-16"))
    unit = 2;
  else if (g_str_has_prefix (encoding, "UTF-32") || g_str_has_prefix (encoding, "utf-32"))
    unit = 4;

  out = g_byte_array_sized_new (len + len / 4 + 16);
  while (in_left > 0)
    {
      char *outp = buffer;
      gsize out_left = sizeof buffer;
      gsize r = g_iconv (cd, &in, &in_left, &outp, &out_left);

      g_byte_array_append (out, (const guint8 *) buffer, outp - buffer);
      if (r == (gsize) -1)
        {
          if (errno == E2BIG)
            continue;
          /* EILSEQ or a sequence cut by the end: replace one unit and go on. */
          g_byte_array_append (out, (const guint8 *) "\xEF\xBF\xBD", 3);
          if (errno == EINVAL && in_left < 4)
            break;
          gsize skip = MIN (unit, in_left);
          in += skip;
          in_left -= skip;
        }
    }
  g_iconv_close (cd);
  return g_byte_array_free_to_bytes (out);
}

/* wyhash's mixing: one 64×64→128-bit multiply folds two words. */
static inline guint64
assay_data_text_mix (guint64 a,
                     guint64 b)
{
  unsigned __int128 r = (unsigned __int128) a * b;
  return (guint64) r ^ (guint64) (r >> 64);
}

static inline guint64
assay_data_text_read64 (const char *p)
{
  guint64 v;
  memcpy (&v, p, 8);
  return v;
}

static inline guint64
assay_data_text_read32 (const char *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return v;
}

guint64
assay_data_hash (const char *data,
                 gsize       len)
{
  const guint64 s0 = G_GUINT64_CONSTANT (0xa0761d6478bd642f);
  const guint64 s1 = G_GUINT64_CONSTANT (0xe7037ed1a0b428db);
  const guint64 s2 = G_GUINT64_CONSTANT (0x8ebc6af09c88c6e3);
  guint64 seed = s0 ^ assay_data_text_mix (len ^ s0, s1);
  guint64 a, b;

  if (len <= 16)
    {
      if (len >= 4)
        {
          gsize mid = (len >> 3) << 2;
          a = (assay_data_text_read32 (data) << 32) | assay_data_text_read32 (data + mid);
          b = (assay_data_text_read32 (data + len - 4) << 32) | assay_data_text_read32 (data + len - 4 - mid);
        }
      else if (len > 0)
        {
          a = ((guint64) (guchar) data[0] << 16) | ((guint64) (guchar) data[len >> 1] << 8) |
              (guchar) data[len - 1];
          b = 0;
        }
      else
        a = b = 0;
    }
  else
    {
      gsize i = len;
      const char *p = data;

      while (i > 16)
        {
          seed = assay_data_text_mix (assay_data_text_read64 (p) ^ s1, assay_data_text_read64 (p + 8) ^ seed);
          p += 16;
          i -= 16;
        }
      a = assay_data_text_read64 (data + len - 16);
      b = assay_data_text_read64 (data + len - 8);
    }
  return assay_data_text_mix (s1 ^ len, assay_data_text_mix (a ^ s1, b ^ seed) ^ s2);
}

gboolean
assay_data_counts_rows (const char *path)
{
  static const char *suffixes[] = { ".csv", ".tsv", ".txt", ".tab", ".psv" };
  g_autofree char *lower = g_ascii_strdown (path, -1);

  for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (lower, suffixes[i]))
      return TRUE;
  return FALSE;
}

void
assay_row_counter_init (AssayRowCounter *counter)
{
  counter->lines = 0;
  counter->quoted = FALSE;
  counter->last_newline = TRUE;
  counter->any = FALSE;
}

void
assay_row_counter_feed (AssayRowCounter *counter,
                        const guint8    *data,
                        gsize            len)
{
  for (gsize i = 0; i < len; i++)
    {
      if (data[i] == '"')
        counter->quoted = !counter->quoted;
      else if (data[i] == '\n' && !counter->quoted)
        counter->lines++;
      counter->last_newline = data[i] == '\n';
    }
  counter->any = counter->any || len > 0;
}

gint64
assay_row_counter_finish (AssayRowCounter *counter)
{
  gint64 lines = counter->lines + (counter->any && !counter->last_newline ? 1 : 0);

  return MAX (lines - 1, 0);
}
