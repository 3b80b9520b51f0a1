/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assay-csv-value.h"

gboolean
assay_value_is_null (const char *s,
                     gsize       len)
{
  static const struct { const char *text; gsize len; } markers[] = {
#define M(x) { x, sizeof x - 1 }
    M ("#N/A"), M ("#N/A N/A"), M ("#NA"), M ("-1.#IND"), M ("-1.#QNAN"), M ("-NaN"), M ("-nan"),
    M ("1.#IND"), M ("1.#QNAN"), M ("<NA>"), M ("N/A"), M ("NA"), M ("NULL"), M ("NaN"), M ("None"),
    M ("n/a"), M ("nan"), M ("null"),
#undef M
  };

  if (len == 0)
    return TRUE;
  if (len > 8)
    return FALSE;
  switch (s[0])
    {
    case '#': case '<': case 'N': case 'n':
      break;
    case '-': case '1':
      if (len < 4 || (s[1] != '1' && s[1] != '.' && s[1] != 'N' && s[1] != 'n'))
        return FALSE;
      break;
    default:
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (markers); i++)
    if (markers[i].len == len && memcmp (markers[i].text, s, len) == 0)
      return TRUE;
  return FALSE;
}

/* Currency signs written before or after a number. */
static gsize
assay_csv_value_match_currency (const char *s,
                                gsize       len)
{
  static const struct { const char *text; gsize len; } signs[] = {
#define M(x) { x, sizeof x - 1 }
    M ("\xE2\x82\xAC") /* € */, M ("\xC2\xA3") /* £ */, M ("\xC2\xA5") /* ¥ */,
    M ("\xE2\x82\xBD") /* ₽ */, M ("\xE2\x82\xB9") /* ₹ */, M ("\xE2\x82\xB4") /* ₴ */,
    M ("\xE2\x82\xA9") /* ₩ */, M ("\xE2\x82\xBA") /* ₺ */, M ("\xE2\x82\xAA") /* ₪ */,
#undef M
  };

  if (len == 0)
    return 0;
  if (s[0] == '$')
    return 1;
  if ((guchar) s[0] != 0xC2 && (guchar) s[0] != 0xE2)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (signs); i++)
    if (signs[i].len <= len && memcmp (s, signs[i].text, signs[i].len) == 0)
      return signs[i].len;
  return 0;
}

static const double powers_of_ten[] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static guint
assay_csv_value_classify_number (const char             *s,
                                 gsize                   len,
                                 const AssayValueFormat *format,
                                 AssayValue             *value)
{
  const char *p = s;
  const char *end = s + len;
  gboolean negative = FALSE;
  gboolean currency = FALSE;
  gboolean thousands = FALSE;
  guint64 mantissa = 0;
  int digits = 0;
  int int_digits = 0;
  int frac_digits = 0;
  int dropped = 0;
  int group = 0;
  int exponent = 0;
  gboolean is_float = FALSE;
  gsize n;
  double number;

  while (p < end && *p == ' ')
    p++;
  while (end > p && end[-1] == ' ')
    end--;
  if (p < end && (*p == '-' || *p == '+'))
    negative = *p++ == '-';
  if ((n = assay_csv_value_match_currency (p, end - p)) > 0)
    {
      currency = TRUE;
      p += n;
      while (p < end && *p == ' ')
        p++;
      if (!negative && p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';
    }

  /* Integer part, with thousands separators between groups of three. */
  while (p < end)
    {
      if (*p >= '0' && *p <= '9')
        {
          if (digits < 19)
            mantissa = mantissa * 10 + (guint64) (*p - '0');
          else
            dropped++;
          if (digits == 0 && *p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9')
            value->flags |= ASSAY_VALUE_LEADING_ZERO;
          digits++;
          int_digits++;
          group++;
          p++;
        }
      else if (format->thousands_len > 0 && int_digits > 0 &&
               (gsize) (end - p) > format->thousands_len &&
               memcmp (p, format->thousands, format->thousands_len) == 0)
        {
          if (group > 3 || (thousands && group != 3))
            return 0;
          thousands = TRUE;
          group = 0;
          p += format->thousands_len;
          if (!(p < end && *p >= '0' && *p <= '9'))
            return 0;
        }
      else
        break;
    }
  if (thousands && group != 3)
    return 0;

  if (p < end && *p == format->decimal)
    {
      p++;
      is_float = TRUE;
      while (p < end && *p >= '0' && *p <= '9')
        {
          if (digits < 19)
            {
              mantissa = mantissa * 10 + (guint64) (*p - '0');
              frac_digits++;
            }
          digits++;
          p++;
        }
    }
  if (digits == 0)
    return 0;
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      gboolean exp_negative = FALSE;
      int exp_digits = 0;

      p++;
      if (p < end && (*p == '-' || *p == '+'))
        exp_negative = *p++ == '-';
      while (p < end && *p >= '0' && *p <= '9')
        {
          if (exponent < 10000)
            exponent = exponent * 10 + (*p - '0');
          exp_digits++;
          p++;
        }
      if (exp_digits == 0)
        return 0;
      if (exp_negative)
        exponent = -exponent;
      is_float = TRUE;
    }
  if (p < end && !currency)
    {
      const char *q = p;
      while (q < end && *q == ' ')
        q++;
      if ((n = assay_csv_value_match_currency (q, end - q)) > 0 && q + n == end)
        {
          currency = TRUE;
          p = end;
        }
    }
  if (p != end)
    return 0;

  exponent += dropped - frac_digits;
  number = (double) mantissa;
  if (exponent != 0)
    {
      if (exponent > 0 && exponent < (int) G_N_ELEMENTS (powers_of_ten))
        number *= powers_of_ten[exponent];
      else if (exponent < 0 && -exponent < (int) G_N_ELEMENTS (powers_of_ten))
        number /= powers_of_ten[-exponent];
      else
        number *= pow (10.0, exponent);
    }
  value->number = negative ? -number : number;
  if (currency)
    value->flags |= ASSAY_VALUE_HAS_CURRENCY;
  if (thousands)
    value->flags |= ASSAY_VALUE_HAS_THOUSANDS;
  if (is_float || int_digits > 18)
    return ASSAY_VALUE_FLOAT;
  return ASSAY_VALUE_INTEGER | ASSAY_VALUE_FLOAT;
}

/* Days from 1970-01-01 (Howard Hinnant's assay_csv_value_days_from_civil). */
static gint64
assay_csv_value_days_from_civil (gint64 y,
                                 guint  m,
                                 guint  d)
{
  gint64 era;
  guint yoe, doy, doe;

  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = (guint) (y - era * 400);
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (gint64) doe - 719468;
}

static gboolean
assay_csv_value_valid_date (guint y,
                            guint m,
                            guint d)
{
  static const guint8 days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > days[m - 1])
    return FALSE;
  if (m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
    return FALSE;
  return TRUE;
}

/* Reads 1..MAX digits. */
static gboolean
assay_csv_value_read_digits (const char **p,
                             const char  *end,
                             guint        min,
                             guint        max,
                             guint       *out)
{
  guint n = 0;
  guint v = 0;

  while (*p < end && n < max && **p >= '0' && **p <= '9')
    {
      v = v * 10 + (guint) (**p - '0');
      (*p)++;
      n++;
    }
  if (n < min || (*p < end && **p >= '0' && **p <= '9'))
    return FALSE;
  *out = v;
  return TRUE;
}

/* [T ]hh:mm[:ss[.fff]][ AM|PM][Z|±hh[:mm]]; returns seconds into the day in UTC (which
 * may be negative), NAN when invalid. */
static double
assay_csv_value_read_time (const char **pp,
                           const char  *end,
                           guint       *flags)
{
  const char *p = *pp;
  guint h, m, s = 0;
  double frac = 0;
  int tz = 0;

  if (!assay_csv_value_read_digits (&p, end, 1, 2, &h) || p >= end || *p != ':')
    return NAN;
  p++;
  if (!assay_csv_value_read_digits (&p, end, 2, 2, &m))
    return NAN;
  if (p < end && *p == ':')
    {
      p++;
      if (!assay_csv_value_read_digits (&p, end, 2, 2, &s))
        return NAN;
      if (p < end && (*p == '.' || *p == ','))
        {
          double scale = 0.1;
          p++;
          if (p >= end || *p < '0' || *p > '9')
            return NAN;
          while (p < end && *p >= '0' && *p <= '9')
            {
              frac += (*p - '0') * scale;
              scale /= 10;
              p++;
            }
        }
    }
  if (end - p >= 3 && p[0] == ' ' && (p[1] == 'A' || p[1] == 'P' || p[1] == 'a' || p[1] == 'p') &&
      (p[2] == 'M' || p[2] == 'm'))
    {
      if (h < 1 || h > 12)
        return NAN;
      h = h % 12 + ((p[1] == 'P' || p[1] == 'p') ? 12 : 0);
      p += 3;
    }
  if (h > 23 || m > 59 || s > 60)
    return NAN;
  if (p < end && (*p == 'Z' || *p == 'z'))
    {
      *flags |= ASSAY_VALUE_HAS_TIMEZONE;
      p++;
    }
  else if (p < end && (*p == '+' || *p == '-' || (*p == ' ' && end - p > 1 && (p[1] == '+' || p[1] == '-'))))
    {
      int sign;
      guint th, tm = 0;

      if (*p == ' ')
        p++;
      sign = *p++ == '-' ? -1 : 1;
      if (!assay_csv_value_read_digits (&p, end, 2, 2, &th))
        return NAN;
      if (p < end && *p == ':')
        p++;
      if (p < end && !assay_csv_value_read_digits (&p, end, 2, 2, &tm))
        return NAN;
      if (th > 14 || tm > 59)
        return NAN;
      tz = sign * (int) (th * 3600 + tm * 60);
      *flags |= ASSAY_VALUE_HAS_TIMEZONE;
    }
  else
    *flags |= ASSAY_VALUE_NO_TIMEZONE;
  *pp = p;
  return h * 3600.0 + m * 60.0 + s + frac - tz;
}

static guint
assay_csv_value_classify_date (const char *s,
                               gsize       len,
                               AssayValue *value)
{
  const char *p = s;
  const char *end = s + len;
  guint a, b, c;
  char sep;
  double seconds = 0;
  guint time_flags = 0;

  if (len < 8 || len > 40 || !(*s >= '0' && *s <= '9'))
    return 0;
  if (!assay_csv_value_read_digits (&p, end, 1, 4, &a) || p >= end)
    return 0;
  sep = *p++;
  if (sep != '-' && sep != '.' && sep != '/')
    return 0;
  if (!assay_csv_value_read_digits (&p, end, 1, 2, &b) || p >= end || *p != sep)
    return 0;
  p++;
  if (!assay_csv_value_read_digits (&p, end, 1, 4, &c))
    return 0;

  if (p < end)
    {
      if (*p != 'T' && *p != ' ')
        return 0;
      p++;
      seconds = assay_csv_value_read_time (&p, end, &time_flags);
      if (isnan (seconds) || p != end)
        return 0;
    }

  if (a >= 1000 && (sep == '-' || sep == '/'))
    {
      /* yyyy-mm-dd */
      if (!assay_csv_value_valid_date (a, b, c) || c > 31)
        return 0;
      value->number = assay_csv_value_days_from_civil (a, b, c) * 86400.0 + seconds;
      value->flags |= ASSAY_VALUE_ISO_DATE;
    }
  else if (c >= 1000 && sep == '.')
    {
      if (!assay_csv_value_valid_date (c, b, a))
        return 0;
      value->number = assay_csv_value_days_from_civil (c, b, a) * 86400.0 + seconds;
      value->flags |= ASSAY_VALUE_DOT_DATE;
    }
  else if (c >= 1000 && (sep == '/' || sep == '-'))
    {
      gboolean mdy = assay_csv_value_valid_date (c, a, b);
      gboolean dmy = assay_csv_value_valid_date (c, b, a);

      if (!mdy && !dmy)
        return 0;
      value->flags |= ASSAY_VALUE_SLASH_DATE;
      if (mdy)
        {
          value->flags |= ASSAY_VALUE_MDY_VALID;
          value->number = assay_csv_value_days_from_civil (c, a, b) * 86400.0 + seconds;
        }
      if (dmy)
        {
          value->flags |= ASSAY_VALUE_DMY_VALID;
          value->number_dmy = assay_csv_value_days_from_civil (c, b, a) * 86400.0 + seconds;
        }
      value->first = a;
      value->second = b;
    }
  else
    return 0;

  value->flags |= time_flags;
  if (time_flags == 0)
    return ASSAY_VALUE_DATE | ASSAY_VALUE_DATETIME;
  return ASSAY_VALUE_DATETIME;
}

static gboolean
assay_csv_value_is_boolean (const char *s,
                            gsize       len)
{
  return (len == 4 && (memcmp (s, "true", 4) == 0 || memcmp (s, "True", 4) == 0 || memcmp (s, "TRUE", 4) == 0)) ||
         (len == 5 && (memcmp (s, "false", 5) == 0 || memcmp (s, "False", 5) == 0 || memcmp (s, "FALSE", 5) == 0));
}

guint
assay_value_classify (const char             *s,
                      gsize                   len,
                      const AssayValueFormat *format,
                      guint                   wanted,
                      AssayValue             *value)
{
  guint kinds = 0;

  value->flags = 0;
  value->kinds = 0;
  if (wanted & (ASSAY_VALUE_DATE | ASSAY_VALUE_DATETIME))
    kinds = assay_csv_value_classify_date (s, len, value) & wanted;
  if (kinds == 0 && (wanted & (ASSAY_VALUE_INTEGER | ASSAY_VALUE_FLOAT)))
    kinds = assay_csv_value_classify_number (s, len, format, value) & wanted;
  if (kinds == 0 && (wanted & ASSAY_VALUE_BOOLEAN) && assay_csv_value_is_boolean (s, len))
    {
      kinds = ASSAY_VALUE_BOOLEAN;
      value->number = (s[0] == 't' || s[0] == 'T') ? 1 : 0;
    }
  value->kinds = kinds;
  return kinds;
}

char *
assay_value_format_time (double   seconds,
                         gboolean with_time)
{
  g_autoptr(GDateTime) dt = NULL;

  if (!isfinite (seconds))
    return NULL;
  dt = g_date_time_new_from_unix_utc ((gint64) floor (seconds));
  if (dt == NULL)
    return NULL;
  return g_date_time_format (dt, with_time ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d");
}
