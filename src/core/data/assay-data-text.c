/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "assay-data-text.h"

static gboolean
is_hidden_char (gunichar c)
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
      gunichar c = g_utf8_get_char_validated (p, end - p);
      gsize step;

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
      else if (!is_hidden_char (c))
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
                   "cannot convert from %s", encoding);
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

static inline guint64
mix64 (guint64 h)
{
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  h ^= h >> 33;
  return h;
}

guint64
assay_data_hash (const char *data,
                 gsize       len)
{
  guint64 h = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) ^ (len * G_GUINT64_CONSTANT (0x100000001b3));
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 word;

      memcpy (&word, data + i, 8);
      h = (h ^ mix64 (word)) * G_GUINT64_CONSTANT (0x9fb21c651e98df25);
    }
  if (i < len)
    {
      guint64 word = 0;

      memcpy (&word, data + i, len - i);
      h = (h ^ mix64 (word ^ 0xff)) * G_GUINT64_CONSTANT (0x9fb21c651e98df25);
    }
  return mix64 (h);
}
