/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A result as typed columns, and the file the kernel loads it from.
 *
 * The file ("ASSAYQR1"): the magic, a little-endian u64 header length, the header (JSON,
 * padded with spaces to 8 bytes), then the arrays, each at an offset that is a multiple of 8:
 *
 *   {"version":1, "rows":N, "columns":[{"name", "kind", "type", "nulls", "lost",
 *     "values":[offset,bytes],        fixed-width values (8 bytes, 1 for bool)
 *     "valid":[offset,bytes] | null,  one byte per row, 0 for missing; null: none missing
 *     "data":[offset,bytes],          text/decimal/bytes: the values, each followed by a NUL
 *     "offsets":[offset,bytes] | null}]}  n+1 int64 starts in data, when a value holds a NUL
 *
 * Missing dates and times are written as NaT (INT64_MIN), missing floats as NaN, so numpy
 * reads them without a mask. */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "assay-query-result.h"

#define NAT G_MININT64
#define CAP_CHECK_ROWS 1024

typedef struct
{
  char            *name;
  char            *db_type;
  AssayColumnKind  kind;
  AssayColumnHint  hint;
  gboolean         maybe_bool;
  GArray          *fixed;      /* gint64/double, or guint8 for bool */
  GByteArray      *valid;
  GByteArray      *data;       /* var-width values, each followed by a NUL */
  GArray          *offsets;    /* gint64 starts in data, n+1 */
  GByteArray      *classes;    /* AUTO: 'n', 'i', 'f', 't', 'b' per row */
  guint64          nulls;
  guint64          lost;
  gboolean         has_nul;
  gboolean         appended;   /* this row has its value */
} Column;

struct _AssayQueryResult
{
  GPtrArray *columns;          /* Column* */
  guint64    n_rows;
};

static const char *kind_names[] = {
  "int64", "uint64", "float64", "bool", "decimal", "date", "timestamp", "timestamptz", "text", "bytes", "auto",
};
static const char *kind_dtypes[] = {
  "Int64", "UInt64", "float64", "boolean", "Decimal", "datetime64[ns]", "datetime64[ns]",
  "datetime64[ns, UTC]", "str", "bytes", "?",
};

const char *
assay_column_kind_to_string (AssayColumnKind kind)
{
  return (guint) kind < G_N_ELEMENTS (kind_names) ? kind_names[kind] : "text";
}

const char *
assay_column_kind_get_dtype (AssayColumnKind kind)
{
  return (guint) kind < G_N_ELEMENTS (kind_dtypes) ? kind_dtypes[kind] : "str";
}

static gboolean
kind_is_var (AssayColumnKind kind)
{
  return kind == ASSAY_COLUMN_TEXT || kind == ASSAY_COLUMN_DECIMAL || kind == ASSAY_COLUMN_BYTES ||
         kind == ASSAY_COLUMN_AUTO;
}

static Column *
column_new (const char      *name,
            AssayColumnKind  kind,
            const char      *db_type)
{
  Column *column = g_new0 (Column, 1);

  column->name = g_strdup (name != NULL ? name : "");
  column->db_type = g_strdup (db_type);
  column->kind = kind;
  column->fixed = g_array_new (FALSE, FALSE, kind == ASSAY_COLUMN_BOOL ? 1 : 8);
  column->valid = g_byte_array_new ();
  if (kind_is_var (kind))
    {
      gint64 zero = 0;

      column->data = g_byte_array_new ();
      column->offsets = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_array_append_val (column->offsets, zero);
    }
  if (kind == ASSAY_COLUMN_AUTO)
    column->classes = g_byte_array_new ();
  return column;
}

static void
column_free (gpointer data)
{
  Column *column = data;

  g_free (column->name);
  g_free (column->db_type);
  g_array_unref (column->fixed);
  g_byte_array_unref (column->valid);
  if (column->data != NULL)
    g_byte_array_unref (column->data);
  if (column->offsets != NULL)
    g_array_unref (column->offsets);
  if (column->classes != NULL)
    g_byte_array_unref (column->classes);
  g_free (column);
}

AssayQueryResult *
assay_query_result_new (void)
{
  AssayQueryResult *self = g_new0 (AssayQueryResult, 1);

  self->columns = g_ptr_array_new_with_free_func (column_free);
  return self;
}

void
assay_query_result_free (AssayQueryResult *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->columns);
  g_free (self);
}

guint
assay_query_result_add_column (AssayQueryResult *self,
                               const char       *name,
                               AssayColumnKind   kind,
                               const char       *db_type)
{
  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (self->n_rows == 0, 0);

  g_ptr_array_add (self->columns, column_new (name, kind, db_type));
  return self->columns->len - 1;
}

#define COLUMN(self, i) ((Column *) g_ptr_array_index ((self)->columns, (i)))

void
assay_query_result_set_column_hint (AssayQueryResult *self,
                                    guint             column,
                                    AssayColumnHint   hint)
{
  g_return_if_fail (column < self->columns->len);
  COLUMN (self, column)->hint = hint;
}

void
assay_query_result_set_maybe_bool (AssayQueryResult *self,
                                   guint             column)
{
  g_return_if_fail (column < self->columns->len);
  COLUMN (self, column)->maybe_bool = TRUE;
}

guint
assay_query_result_get_n_columns (AssayQueryResult *self)
{
  return self->columns->len;
}

const char *
assay_query_result_get_column_name (AssayQueryResult *self,
                                    guint             column)
{
  g_return_val_if_fail (column < self->columns->len, NULL);
  return COLUMN (self, column)->name;
}

AssayColumnKind
assay_query_result_get_column_kind (AssayQueryResult *self,
                                    guint             column)
{
  g_return_val_if_fail (column < self->columns->len, ASSAY_COLUMN_TEXT);
  return COLUMN (self, column)->kind;
}

const char *
assay_query_result_get_column_type (AssayQueryResult *self,
                                    guint             column)
{
  g_return_val_if_fail (column < self->columns->len, NULL);
  return COLUMN (self, column)->db_type;
}

void
assay_query_result_set_column_type (AssayQueryResult *self,
                                    guint             column,
                                    const char       *db_type)
{
  g_return_if_fail (column < self->columns->len);
  g_free (COLUMN (self, column)->db_type);
  COLUMN (self, column)->db_type = g_strdup (db_type);
}

guint64
assay_query_result_get_n_rows (AssayQueryResult *self)
{
  return self->n_rows;
}

guint64
assay_query_result_get_n_nulls (AssayQueryResult *self,
                                guint             column)
{
  g_return_val_if_fail (column < self->columns->len, 0);
  return COLUMN (self, column)->nulls;
}

guint64
assay_query_result_get_n_lost (AssayQueryResult *self,
                               guint             column)
{
  g_return_val_if_fail (column < self->columns->len, 0);
  return COLUMN (self, column)->lost;
}

guint64
assay_query_result_get_n_bytes (AssayQueryResult *self)
{
  guint64 bytes = 0;

  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *column = COLUMN (self, i);

      bytes += (guint64) column->fixed->len * g_array_get_element_size (column->fixed) + column->valid->len;
      if (column->data != NULL)
        bytes += column->data->len + (guint64) column->offsets->len * sizeof (gint64);
    }
  return bytes;
}

/* ---- storing values ---------------------------------------------------------------------- */

static void
store_fixed (Column *column,
             gint64  bits,
             gboolean valid)
{
  guint8 flag = valid ? 1 : 0;

  if (column->kind == ASSAY_COLUMN_BOOL)
    {
      guint8 byte = bits != 0;

      g_array_append_val (column->fixed, byte);
    }
  else
    g_array_append_val (column->fixed, bits);
  g_byte_array_append (column->valid, &flag, 1);
  if (!valid)
    column->nulls++;
  column->appended = TRUE;
}

static void
store_var (Column     *column,
           const char *data,
           gsize       length,
           gboolean    valid,
           guint8      klass)
{
  static const guint8 nul = 0;
  guint8 flag = valid ? 1 : 0;
  gint64 end;

  if (length > 0)
    {
      if (!column->has_nul && memchr (data, '\0', length) != NULL)
        column->has_nul = TRUE;
      g_byte_array_append (column->data, (const guint8 *) data, length);
    }
  g_byte_array_append (column->data, &nul, 1);
  end = column->data->len;
  g_array_append_val (column->offsets, end);
  g_byte_array_append (column->valid, &flag, 1);
  if (column->classes != NULL)
    g_byte_array_append (column->classes, &klass, 1);
  if (!valid)
    column->nulls++;
  column->appended = TRUE;
}

/* A missing value of COLUMN's kind; LOST: it was a value pandas cannot hold. */
static void
store_missing (Column   *column,
               gboolean  lost)
{
  if (lost)
    column->lost++;
  switch (column->kind)
    {
    case ASSAY_COLUMN_FLOAT64:
      {
        double nan = NAN;
        gint64 bits;

        memcpy (&bits, &nan, sizeof bits);
        store_fixed (column, bits, FALSE);
      }
      break;
    case ASSAY_COLUMN_DATE:
    case ASSAY_COLUMN_TIMESTAMP:
    case ASSAY_COLUMN_TIMESTAMPTZ:
      store_fixed (column, NAT, FALSE);
      break;
    case ASSAY_COLUMN_INT64:
    case ASSAY_COLUMN_UINT64:
    case ASSAY_COLUMN_BOOL:
      store_fixed (column, 0, FALSE);
      break;
    default:
      store_var (column, NULL, 0, FALSE, 'n');
      break;
    }
}

void
assay_query_result_append_null (AssayQueryResult *self,
                                guint             column)
{
  g_return_if_fail (column < self->columns->len);
  store_missing (COLUMN (self, column), FALSE);
}

/* ---- reading the servers' text ----------------------------------------------------------- */

static gint64
days_from_civil (gint64 year,
                 guint  month,
                 guint  day)
{
  gint64 era, yoe, doy, doe;

  year -= month <= 2;
  era = (year >= 0 ? year : year - 399) / 400;
  yoe = year - era * 400;
  doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static gboolean
read_digits (const char **p,
             const char  *end,
             guint        min,
             guint        max,
             gint64      *value)
{
  guint n = 0;

  *value = 0;
  while (*p < end && n < max && g_ascii_isdigit (**p))
    {
      *value = *value * 10 + (**p - '0');
      (*p)++;
      n++;
    }
  return n >= min;
}

/* The days since 1970-01-01 of "YYYY-MM-DD" at *P (PostgreSQL may add " BC"). */
static gboolean
read_date (const char **p,
           const char  *end,
           gint64      *days)
{
  gint64 year, month, day;

  if (!read_digits (p, end, 4, 7, &year) || *p >= end || **p != '-')
    return FALSE;
  (*p)++;
  if (!read_digits (p, end, 1, 2, &month) || *p >= end || **p != '-')
    return FALSE;
  (*p)++;
  if (!read_digits (p, end, 1, 2, &day))
    return FALSE;
  if (month < 1 || month > 12 || day < 1 || day > 31)
    return FALSE;
  if (end - *p >= 3 && memcmp (end - 3, " BC", 3) == 0)
    year = 1 - year;
  *days = days_from_civil (year, (guint) month, (guint) day);
  return TRUE;
}

/* Nanoseconds into the day of "HH:MM[:SS[.fffffffff]]" at *P. */
static gboolean
read_time (const char **p,
           const char  *end,
           gint64      *ns)
{
  gint64 hour, minute, second = 0, fraction = 0;
  guint digits = 0;

  if (!read_digits (p, end, 1, 2, &hour) || *p >= end || **p != ':')
    return FALSE;
  (*p)++;
  if (!read_digits (p, end, 2, 2, &minute))
    return FALSE;
  if (*p < end && **p == ':')
    {
      (*p)++;
      if (!read_digits (p, end, 2, 2, &second))
        return FALSE;
    }
  if (*p < end && **p == '.')
    {
      (*p)++;
      while (*p < end && g_ascii_isdigit (**p))
        {
          if (digits < 9)
            {
              fraction = fraction * 10 + (**p - '0');
              digits++;
            }
          (*p)++;
        }
      for (; digits < 9; digits++)
        fraction *= 10;
    }
  if (hour > 24 || minute > 59 || second > 60)
    return FALSE;
  *ns = ((hour * 60 + minute) * 60 + second) * G_GINT64_CONSTANT (1000000000) + fraction;
  return TRUE;
}

/* Seconds east of UTC of "+HH[:MM[:SS]]", "+HHMM" or "Z" at *P. */
static gboolean
read_offset (const char **p,
             const char  *end,
             gint64      *seconds,
             gboolean    *found)
{
  gint64 hours, minutes = 0, secs = 0;
  int sign;

  *found = FALSE;
  *seconds = 0;
  while (*p < end && **p == ' ')
    (*p)++;
  if (*p >= end)
    return TRUE;
  if (**p == 'Z' || **p == 'z')
    {
      (*p)++;
      *found = TRUE;
      return TRUE;
    }
  if (**p != '+' && **p != '-')
    return TRUE;
  sign = **p == '-' ? -1 : 1;
  (*p)++;
  if (!read_digits (p, end, 2, 2, &hours))
    return FALSE;
  if (*p < end && **p == ':')
    (*p)++;
  if (*p < end && g_ascii_isdigit (**p) && !read_digits (p, end, 2, 2, &minutes))
    return FALSE;
  if (*p < end && **p == ':')
    {
      (*p)++;
      if (!read_digits (p, end, 2, 2, &secs))
        return FALSE;
    }
  *seconds = sign * (hours * 3600 + minutes * 60 + secs);
  *found = TRUE;
  return TRUE;
}

typedef enum
{
  TIME_OK,
  TIME_UNREADABLE,
  TIME_OUT_OF_RANGE,
} TimeRead;

/* TEXT as nanoseconds since 1970 in UTC: a date, a timestamp, or one with its offset
 * (WANT_OFFSET: an offset is read and applied; HAS_OFFSET says whether there was one). */
static TimeRead
read_timestamp (const char *text,
                gsize       length,
                gboolean    date_only,
                gint64     *ns,
                gboolean   *has_offset)
{
  const char *p = text, *end = text + length;
  gint64 days, time_ns = 0, offset = 0, seconds;
  gboolean found = FALSE;

  *has_offset = FALSE;
  if (length >= 8 && (g_ascii_strncasecmp (text, "infinity", 8) == 0 ||
                      g_ascii_strncasecmp (text, "-infinity", 9) == 0))
    return TIME_OUT_OF_RANGE;
  if (length >= 10 && memcmp (text, "0000-00-00", 10) == 0)
    return TIME_OUT_OF_RANGE;   /* MySQL's zero date */
  if (!read_date (&p, end, &days))
    return TIME_UNREADABLE;
  if (!date_only && p < end && (*p == ' ' || *p == 'T' || *p == 't'))
    {
      p++;
      if (!read_time (&p, end, &time_ns))
        return TIME_UNREADABLE;
      if (!read_offset (&p, end, &offset, &found))
        return TIME_UNREADABLE;
    }
  if (end - p == 3 && memcmp (p, " BC", 3) == 0)
    p = end;
  while (p < end && *p == ' ')
    p++;
  if (p != end)
    return TIME_UNREADABLE;
  *has_offset = found;
  /* datetime64[ns] holds 1677-09-21 to 2262-04-11. */
  if (days < -106751 || days > 106750)
    return TIME_OUT_OF_RANGE;
  seconds = days * 86400 - offset;
  if (__builtin_mul_overflow (seconds, G_GINT64_CONSTANT (1000000000), ns))
    return TIME_OUT_OF_RANGE;
  if (*ns > G_MAXINT64 - time_ns || *ns + time_ns == NAT)
    return TIME_OUT_OF_RANGE;
  *ns += time_ns;
  return TIME_OK;
}

static gboolean
parse_int64 (const char *text,
             gsize       length,
             gint64     *value)
{
  char buffer[32];
  char *end = NULL;

  if (length == 0 || length >= sizeof buffer)
    return FALSE;
  memcpy (buffer, text, length);
  buffer[length] = '\0';
  errno = 0;
  *value = g_ascii_strtoll (buffer, &end, 10);
  return errno == 0 && end == buffer + length;
}

static gboolean
parse_uint64 (const char *text,
              gsize       length,
              guint64    *value)
{
  char buffer[32];
  char *end = NULL;

  if (length == 0 || length >= sizeof buffer || text[0] == '-')
    return FALSE;
  memcpy (buffer, text, length);
  buffer[length] = '\0';
  errno = 0;
  *value = g_ascii_strtoull (buffer, &end, 10);
  return errno == 0 && end == buffer + length;
}

static gboolean
parse_double (const char *text,
              gsize       length,
              double     *value)
{
  char buffer[64];
  char *end = NULL;

  if (length == 0 || length >= sizeof buffer)
    return FALSE;
  memcpy (buffer, text, length);
  buffer[length] = '\0';
  if (g_ascii_strcasecmp (buffer, "NaN") == 0)
    *value = NAN;
  else if (g_ascii_strcasecmp (buffer, "Infinity") == 0 || g_ascii_strcasecmp (buffer, "inf") == 0)
    *value = INFINITY;
  else if (g_ascii_strcasecmp (buffer, "-Infinity") == 0 || g_ascii_strcasecmp (buffer, "-inf") == 0)
    *value = -INFINITY;
  else
    {
      *value = g_ascii_strtod (buffer, &end);
      return end == buffer + length;
    }
  return TRUE;
}

/* The shortest text that reads back as VALUE, as Python's repr writes it. */
static char *
format_double (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    return g_strdup ("nan");
  if (isinf (value))
    return g_strdup (value > 0 ? "inf" : "-inf");
  for (int precision = 15; precision <= 17; precision++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buffer, sizeof buffer, format, value);
      if (g_ascii_strtod (buffer, NULL) == value)
        break;
    }
  if (strpbrk (buffer, ".eEn") == NULL)
    return g_strconcat (buffer, ".0", NULL);
  return g_strdup (buffer);
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

void
assay_query_result_append_text (AssayQueryResult *self,
                                guint             index,
                                const char       *text,
                                gssize            length_in)
{
  Column *column;
  gsize length;

  g_return_if_fail (index < self->columns->len);
  column = COLUMN (self, index);
  length = length_in < 0 ? strlen (text) : (gsize) length_in;

  switch (column->kind)
    {
    case ASSAY_COLUMN_INT64:
      {
        gint64 value;

        if (parse_int64 (text, length, &value))
          store_fixed (column, value, TRUE);
        else if (length == 1 && (text[0] == 't' || text[0] == 'f'))
          store_fixed (column, text[0] == 't', TRUE);
        else
          store_missing (column, TRUE);
      }
      return;
    case ASSAY_COLUMN_UINT64:
      {
        guint64 value;

        if (parse_uint64 (text, length, &value))
          store_fixed (column, (gint64) value, TRUE);
        else
          store_missing (column, TRUE);
      }
      return;
    case ASSAY_COLUMN_FLOAT64:
      {
        double value;
        gint64 bits;

        if (!parse_double (text, length, &value))
          {
            store_missing (column, TRUE);
            return;
          }
        memcpy (&bits, &value, sizeof bits);
        store_fixed (column, bits, TRUE);
      }
      return;
    case ASSAY_COLUMN_BOOL:
      if (length >= 1 && (text[0] == 't' || text[0] == 'T' || text[0] == '1' || text[0] == 'y'))
        store_fixed (column, 1, TRUE);
      else if (length >= 1 && (text[0] == 'f' || text[0] == 'F' || text[0] == '0' || text[0] == 'n'))
        store_fixed (column, 0, TRUE);
      else
        store_missing (column, TRUE);
      return;
    case ASSAY_COLUMN_DATE:
    case ASSAY_COLUMN_TIMESTAMP:
    case ASSAY_COLUMN_TIMESTAMPTZ:
      {
        gint64 ns = 0;
        gboolean has_offset;

        if (read_timestamp (text, length, column->kind == ASSAY_COLUMN_DATE, &ns, &has_offset) == TIME_OK)
          store_fixed (column, ns, TRUE);
        else
          store_missing (column, TRUE);
      }
      return;
    case ASSAY_COLUMN_BYTES:
      /* PostgreSQL's hex form, \x…; anything else is the bytes themselves. */
      if (length >= 2 && text[0] == '\\' && text[1] == 'x' && length % 2 == 0)
        {
          g_autofree guint8 *bytes = g_malloc ((length - 2) / 2 + 1);
          gsize n = 0;

          for (gsize i = 2; i + 1 < length; i += 2)
            {
              int high = hex_value (text[i]), low = hex_value (text[i + 1]);

              if (high < 0 || low < 0)
                {
                  store_var (column, text, length, TRUE, 'b');
                  return;
                }
              bytes[n++] = (guint8) (high << 4 | low);
            }
          store_var (column, (const char *) bytes, n, TRUE, 'b');
        }
      else
        store_var (column, text, length, TRUE, 'b');
      return;
    case ASSAY_COLUMN_TEXT:
    case ASSAY_COLUMN_DECIMAL:
    case ASSAY_COLUMN_AUTO:
    default:
      if (!g_utf8_validate_len (text, length, NULL))
        {
          g_autofree char *valid = g_utf8_make_valid (text, length);

          store_var (column, valid, strlen (valid), TRUE, 't');
        }
      else
        store_var (column, text, length, TRUE, 't');
      return;
    }
}

void
assay_query_result_append_int (AssayQueryResult *self,
                               guint             index,
                               gint64            value)
{
  Column *column;

  g_return_if_fail (index < self->columns->len);
  column = COLUMN (self, index);
  switch (column->kind)
    {
    case ASSAY_COLUMN_INT64:
    case ASSAY_COLUMN_BOOL:
      store_fixed (column, column->kind == ASSAY_COLUMN_BOOL ? value != 0 : value, TRUE);
      return;
    case ASSAY_COLUMN_UINT64:
      if (value < 0)
        store_missing (column, TRUE);
      else
        store_fixed (column, value, TRUE);
      return;
    case ASSAY_COLUMN_FLOAT64:
      assay_query_result_append_double (self, index, (double) value);
      return;
    case ASSAY_COLUMN_AUTO:
      {
        g_array_append_val (column->fixed, value);
        store_var (column, NULL, 0, TRUE, 'i');
      }
      return;
    case ASSAY_COLUMN_DATE:
    case ASSAY_COLUMN_TIMESTAMP:
    case ASSAY_COLUMN_TIMESTAMPTZ:
    case ASSAY_COLUMN_BYTES:
      store_missing (column, TRUE);
      return;
    default:
      {
        char buffer[32];

        g_snprintf (buffer, sizeof buffer, "%" G_GINT64_FORMAT, value);
        store_var (column, buffer, strlen (buffer), TRUE, 't');
      }
      return;
    }
}

void
assay_query_result_append_double (AssayQueryResult *self,
                                  guint             index,
                                  double            value)
{
  Column *column;

  g_return_if_fail (index < self->columns->len);
  column = COLUMN (self, index);
  switch (column->kind)
    {
    case ASSAY_COLUMN_FLOAT64:
      {
        gint64 bits;

        memcpy (&bits, &value, sizeof bits);
        store_fixed (column, bits, TRUE);
      }
      return;
    case ASSAY_COLUMN_INT64:
    case ASSAY_COLUMN_BOOL:
      if (value == floor (value) && fabs (value) < 9.0e18)
        assay_query_result_append_int (self, index, (gint64) value);
      else
        store_missing (column, TRUE);
      return;
    case ASSAY_COLUMN_AUTO:
      {
        gint64 bits;

        memcpy (&bits, &value, sizeof bits);
        g_array_append_val (column->fixed, bits);
        store_var (column, NULL, 0, TRUE, 'f');
      }
      return;
    case ASSAY_COLUMN_TEXT:
    case ASSAY_COLUMN_DECIMAL:
      {
        g_autofree char *text = format_double (value);

        store_var (column, text, strlen (text), TRUE, 't');
      }
      return;
    default:
      store_missing (column, TRUE);
      return;
    }
}

void
assay_query_result_append_bytes (AssayQueryResult *self,
                                 guint             index,
                                 const void       *data,
                                 gsize             length)
{
  Column *column;

  g_return_if_fail (index < self->columns->len);
  column = COLUMN (self, index);
  if (column->kind == ASSAY_COLUMN_BYTES || column->kind == ASSAY_COLUMN_AUTO)
    store_var (column, data, length, TRUE, 'b');
  else if (column->kind == ASSAY_COLUMN_TEXT && !g_utf8_validate_len (data, length, NULL))
    {
      /* Bytes in a text column are shown as Python shows bytes, escaped. */
      g_autoptr(GString) text = g_string_new ("b'");

      for (gsize i = 0; i < length; i++)
        {
          guint8 c = ((const guint8 *) data)[i];

          if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            g_string_append_c (text, (char) c);
          else
            g_string_append_printf (text, "\\x%02x", c);
        }
      g_string_append_c (text, '\'');
      store_var (column, text->str, text->len, TRUE, 't');
    }
  else
    assay_query_result_append_text (self, index, data, length);
}

gboolean
assay_query_result_end_row (AssayQueryResult        *self,
                            const AssayQueryLimits  *limits,
                            GError                 **error)
{
  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *column = COLUMN (self, i);

      if (!column->appended)
        store_missing (column, FALSE);
      column->appended = FALSE;
    }
  self->n_rows++;
  if (limits == NULL)
    return TRUE;
  if (limits->max_rows > 0 && self->n_rows > limits->max_rows)
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TOO_LARGE,
                   "The result has more than %" G_GUINT64_FORMAT " rows (the row cap), so nothing was loaded. "
                   "Aggregate or filter in SQL, or add a LIMIT.", limits->max_rows);
      return FALSE;
    }
  if (limits->max_bytes > 0 && self->n_rows % CAP_CHECK_ROWS == 0 &&
      assay_query_result_get_n_bytes (self) > limits->max_bytes)
    {
      g_set_error (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TOO_LARGE,
                   "The result is larger than %" G_GUINT64_FORMAT " MB (the size cap) after %" G_GUINT64_FORMAT
                   " rows, so nothing was loaded. Select fewer columns, aggregate or filter in SQL, or add a LIMIT.",
                   limits->max_bytes / (1024 * 1024), self->n_rows);
      return FALSE;
    }
  return TRUE;
}

/* ---- settling SQLite's columns ----------------------------------------------------------- */

static const char *
column_text_at (Column  *column,
                guint64  row,
                gsize   *length)
{
  gint64 start = g_array_index (column->offsets, gint64, row);
  gint64 end = g_array_index (column->offsets, gint64, row + 1);

  *length = (gsize) (end - start - 1);
  return (const char *) column->data->data + start;
}

/* COLUMN (AUTO) as a column of KIND, each value converted. */
static Column *
column_convert (Column          *column,
                AssayColumnKind  kind,
                guint64          n_rows)
{
  g_autoptr(AssayQueryResult) shell = assay_query_result_new ();
  Column *converted;

  guint fixed_index = 0;

  assay_query_result_add_column (shell, column->name, kind, column->db_type);
  for (guint64 row = 0; row < n_rows; row++)
    {
      guint8 klass = column->classes->data[row];
      gint64 bits = 0;
      gsize length = 0;
      const char *text = column_text_at (column, row, &length);

      /* The fixed array holds a value for each 'i' and 'f' row only, in order. */
      if (klass == 'i' || klass == 'f')
        bits = g_array_index (column->fixed, gint64, fixed_index++);
      switch (klass)
        {
        case 'i':
          assay_query_result_append_int (shell, 0, bits);
          break;
        case 'f':
          {
            double value;

            memcpy (&value, &bits, sizeof value);
            assay_query_result_append_double (shell, 0, value);
          }
          break;
        case 't':
          assay_query_result_append_text (shell, 0, text, length);
          break;
        case 'b':
          assay_query_result_append_bytes (shell, 0, text, length);
          break;
        default:
          assay_query_result_append_null (shell, 0);
          break;
        }
      assay_query_result_end_row (shell, NULL, NULL);
    }
  converted = g_ptr_array_steal_index (shell->columns, 0);
  return converted;
}

static AssayColumnKind
column_settle_kind (Column  *column,
                    guint64  n_rows)
{
  gboolean ints = FALSE, floats = FALSE, texts = FALSE, blobs = FALSE;
  gboolean all_bool = TRUE;
  guint fixed_index = 0;

  for (guint64 row = 0; row < n_rows; row++)
    switch (column->classes->data[row])
      {
      case 'i':
        ints = TRUE;
        if (g_array_index (column->fixed, gint64, fixed_index) != 0 &&
            g_array_index (column->fixed, gint64, fixed_index) != 1)
          all_bool = FALSE;
        fixed_index++;
        break;
      case 'f':
        floats = TRUE;
        fixed_index++;
        break;
      case 't':
        texts = TRUE;
        break;
      case 'b':
        blobs = TRUE;
        break;
      default:
        break;
      }

  if (blobs && !texts && !ints && !floats)
    return ASSAY_COLUMN_BYTES;
  if (texts || blobs)
    {
      if (!ints && !floats && !blobs &&
          (column->hint == ASSAY_COLUMN_HINT_DATE || column->hint == ASSAY_COLUMN_HINT_TIMESTAMP))
        {
          gboolean with_offset = FALSE, without_offset = FALSE, times = FALSE;

          for (guint64 row = 0; row < n_rows; row++)
            {
              gsize length;
              const char *text;
              gint64 ns;
              gboolean has_offset;

              if (column->classes->data[row] != 't')
                continue;
              text = column_text_at (column, row, &length);
              if (read_timestamp (text, length, FALSE, &ns, &has_offset) == TIME_UNREADABLE)
                return ASSAY_COLUMN_TEXT;
              if (has_offset)
                with_offset = TRUE;
              else
                without_offset = TRUE;
              if (length > 10)
                times = TRUE;
            }
          if (with_offset && without_offset)
            return ASSAY_COLUMN_TEXT;
          if (with_offset)
            return ASSAY_COLUMN_TIMESTAMPTZ;
          return times || column->hint == ASSAY_COLUMN_HINT_TIMESTAMP ? ASSAY_COLUMN_TIMESTAMP : ASSAY_COLUMN_DATE;
        }
      return ASSAY_COLUMN_TEXT;
    }
  if (floats)
    return ASSAY_COLUMN_FLOAT64;
  if (ints)
    return column->hint == ASSAY_COLUMN_HINT_BOOL && all_bool ? ASSAY_COLUMN_BOOL : ASSAY_COLUMN_INT64;
  /* Only NULLs: the declared type says. */
  switch (column->hint)
    {
    case ASSAY_COLUMN_HINT_BOOL: return ASSAY_COLUMN_BOOL;
    case ASSAY_COLUMN_HINT_DATE: return ASSAY_COLUMN_DATE;
    case ASSAY_COLUMN_HINT_TIMESTAMP: return ASSAY_COLUMN_TIMESTAMP;
    default: return ASSAY_COLUMN_TEXT;
    }
}

void
assay_query_result_finish (AssayQueryResult *self)
{
  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *column = COLUMN (self, i);

      if (column->kind == ASSAY_COLUMN_AUTO)
        {
          AssayColumnKind kind = column_settle_kind (column, self->n_rows);

          /* Only the declared type could say otherwise: a column of integers stays one. */
          if (kind == ASSAY_COLUMN_TEXT && column->nulls == self->n_rows)
            kind = ASSAY_COLUMN_TEXT;
          g_ptr_array_index (self->columns, i) = column_convert (column, kind, self->n_rows);
          column_free (column);
        }
      else if (column->kind == ASSAY_COLUMN_INT64 && column->maybe_bool)
        {
          gboolean all_bool = TRUE;

          for (guint64 row = 0; row < self->n_rows && all_bool; row++)
            if (column->valid->data[row] && g_array_index (column->fixed, gint64, row) != 0 &&
                g_array_index (column->fixed, gint64, row) != 1)
              all_bool = FALSE;
          if (all_bool)
            {
              GArray *bytes = g_array_sized_new (FALSE, FALSE, 1, (guint) self->n_rows);

              for (guint64 row = 0; row < self->n_rows; row++)
                {
                  guint8 value = g_array_index (column->fixed, gint64, row) != 0;

                  g_array_append_val (bytes, value);
                }
              g_array_unref (column->fixed);
              column->fixed = bytes;
              column->kind = ASSAY_COLUMN_BOOL;
            }
        }
    }
}

char *
assay_query_result_dup_text (AssayQueryResult *self,
                             guint             index,
                             guint64           row)
{
  Column *column;
  gsize length;
  const char *text;

  g_return_val_if_fail (index < self->columns->len, NULL);
  column = COLUMN (self, index);
  if (row >= self->n_rows || !column->valid->data[row])
    return NULL;
  switch (column->kind)
    {
    case ASSAY_COLUMN_TEXT:
    case ASSAY_COLUMN_DECIMAL:
    case ASSAY_COLUMN_AUTO:
      text = column_text_at (column, row, &length);
      return g_strndup (text, length);
    case ASSAY_COLUMN_BYTES:
      return NULL;
    case ASSAY_COLUMN_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, g_array_index (column->fixed, gint64, row));
    case ASSAY_COLUMN_UINT64:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) g_array_index (column->fixed, gint64, row));
    case ASSAY_COLUMN_FLOAT64:
      {
        double value;

        memcpy (&value, &g_array_index (column->fixed, gint64, row), sizeof value);
        return format_double (value);
      }
    case ASSAY_COLUMN_BOOL:
      return g_strdup (g_array_index (column->fixed, guint8, row) ? "True" : "False");
    case ASSAY_COLUMN_DATE:
    case ASSAY_COLUMN_TIMESTAMP:
    case ASSAY_COLUMN_TIMESTAMPTZ:
      {
        gint64 ns = g_array_index (column->fixed, gint64, row);
        g_autoptr(GDateTime) time = g_date_time_new_from_unix_utc (ns / G_GINT64_CONSTANT (1000000000));

        if (time == NULL)
          return NULL;
        if (column->kind == ASSAY_COLUMN_DATE)
          return g_date_time_format (time, "%Y-%m-%d");
        return g_date_time_format (time, column->kind == ASSAY_COLUMN_TIMESTAMPTZ ? "%Y-%m-%d %H:%M:%S+00:00"
                                                                                  : "%Y-%m-%d %H:%M:%S");
      }
    default:
      return NULL;
    }
}

/* ---- the file ---------------------------------------------------------------------------- */

typedef struct
{
  const void *data;
  gsize       length;
} Blob;

static JsonArray *
place (GArray     *blobs,
       guint64    *offset,
       const void *data,
       gsize       length)
{
  JsonArray *where = json_array_new ();
  Blob blob = { data, length };

  json_array_add_int_element (where, (gint64) *offset);
  json_array_add_int_element (where, (gint64) length);
  g_array_append_val (blobs, blob);
  *offset += (length + 7) & ~(guint64) 7;
  return where;
}

static gboolean
write_all (int          fd,
           const void  *data,
           gsize        length,
           GError     **error)
{
  const guint8 *p = data;

  while (length > 0)
    {
      gssize n = write (fd, p, MIN (length, 64 * 1024 * 1024));

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot write the query's result: %s", g_strerror (saved));
          return FALSE;
        }
      p += n;
      length -= n;
    }
  return TRUE;
}

gboolean
assay_query_result_write (AssayQueryResult  *self,
                          const char        *path,
                          GError           **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GArray) blobs = g_array_new (FALSE, FALSE, sizeof (Blob));
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *header = NULL;
  g_autofree char *temporary = NULL;
  GString *padded;
  guint64 offset = 0, header_length, position;
  static const guint8 zeroes[8] = { 0 };
  int fd;
  gboolean ok = TRUE;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, "rows");
  json_builder_add_int_value (builder, (gint64) self->n_rows);
  json_builder_set_member_name (builder, "columns");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *column = COLUMN (self, i);
      gboolean any_missing = column->nulls > 0;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, column->name);
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, assay_column_kind_to_string (column->kind));
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, column->db_type != NULL ? column->db_type : "");
      json_builder_set_member_name (builder, "nulls");
      json_builder_add_int_value (builder, (gint64) column->nulls);
      json_builder_set_member_name (builder, "lost");
      json_builder_add_int_value (builder, (gint64) column->lost);
      if (kind_is_var (column->kind))
        {
          json_builder_set_member_name (builder, "data");
          json_builder_add_value (builder, json_node_init_array (json_node_alloc (),
                                  place (blobs, &offset, column->data->data, column->data->len)));
          json_builder_set_member_name (builder, "offsets");
          if (column->has_nul || column->kind == ASSAY_COLUMN_BYTES)
            json_builder_add_value (builder, json_node_init_array (json_node_alloc (),
                                    place (blobs, &offset, column->offsets->data,
                                           column->offsets->len * sizeof (gint64))));
          else
            json_builder_add_null_value (builder);
        }
      else
        {
          json_builder_set_member_name (builder, "values");
          json_builder_add_value (builder, json_node_init_array (json_node_alloc (),
                                  place (blobs, &offset, column->fixed->data,
                                         column->fixed->len * g_array_get_element_size (column->fixed))));
        }
      json_builder_set_member_name (builder, "valid");
      if (any_missing)
        json_builder_add_value (builder, json_node_init_array (json_node_alloc (),
                                place (blobs, &offset, column->valid->data, column->valid->len)));
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  header = json_generator_to_data (generator, NULL);

  /* Offsets in the header are from the end of the header: its own length moves them. */
  padded = g_string_new (header);
  while ((16 + padded->len) % 8 != 0)
    g_string_append_c (padded, ' ');
  header_length = padded->len;

  temporary = g_strdup_printf ("%s.%u.tmp", path, (guint) getpid ());
  fd = g_open (temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    {
      int saved = errno;

      g_string_free (padded, TRUE);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write the query's result to %s: %s", temporary, g_strerror (saved));
      return FALSE;
    }
  fchmod (fd, 0644);
  {
    guint64 le = GUINT64_TO_LE (header_length);

    ok = write_all (fd, "ASSAYQR1", 8, error) && write_all (fd, &le, 8, error) &&
         write_all (fd, padded->str, padded->len, error);
  }
  g_string_free (padded, TRUE);
  position = 0;
  for (guint i = 0; ok && i < blobs->len; i++)
    {
      const Blob *blob = &g_array_index (blobs, Blob, i);
      gsize pad = ((blob->length + 7) & ~(gsize) 7) - blob->length;

      ok = write_all (fd, blob->data, blob->length, error) && write_all (fd, zeroes, pad, error);
      position += blob->length + pad;
    }
  if (close (fd) != 0 && ok)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write the query's result: %s", g_strerror (saved));
      ok = FALSE;
    }
  if (ok && g_rename (temporary, path) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write the query's result to %s: %s", path, g_strerror (saved));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (temporary);
  g_assert (!ok || position == offset);
  return ok;
}

JsonArray *
assay_query_result_columns_to_json (AssayQueryResult *self)
{
  JsonArray *columns = json_array_new ();

  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *column = COLUMN (self, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", column->name);
      json_object_set_string_member (item, "type", column->db_type != NULL ? column->db_type : "");
      json_object_set_string_member (item, "dtype", assay_column_kind_get_dtype (column->kind));
      json_array_add_object_element (columns, item);
    }
  return columns;
}

char *
assay_query_result_describe_columns (AssayQueryResult *self)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *column = COLUMN (self, i);

      g_string_append_printf (text, "- %s: %s", column->name, assay_column_kind_get_dtype (column->kind));
      if (column->db_type != NULL && *column->db_type != '\0')
        g_string_append_printf (text, " (%s)", column->db_type);
      if (column->nulls > column->lost && column->nulls > 0)
        g_string_append_printf (text, ", %" G_GUINT64_FORMAT " NULL", column->nulls - column->lost);
      if (column->lost > 0)
        g_string_append_printf (text, ", %" G_GUINT64_FORMAT " value%s pandas cannot hold (outside "
                                "1677–2262, infinite or unreadable) made missing",
                                column->lost, column->lost == 1 ? "" : "s");
      g_string_append_c (text, '\n');
    }
  return g_string_free (text, FALSE);
}

char *
assay_query_result_loader_code (const char *name,
                                const char *path)
{
  g_autoptr(GString) literal = g_string_new ("'");

  for (const char *p = path; *p != '\0'; p++)
    {
      if (*p == '\\' || *p == '\'')
        g_string_append_c (literal, '\\');
      g_string_append_c (literal, *p);
    }
  g_string_append_c (literal, '\'');
  return g_strdup_printf ("%s = __import__(\"assay_frames\").load(%s)\n"
                          "__import__(\"assay_frames\").show(%s)\n",
                          name, literal->str, name);
}
