/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <string.h>
#include <uchardet.h>

#include "assay-csv-dialect.h"
#include "assay-csv-reader.h"
#include "assay-data-text.h"

#define SAMPLE_BYTES     (64 * 1024)
#define MAX_SAMPLE_BYTES (16 * 1024 * 1024)
#define SAMPLE_RECORDS   400

G_DEFINE_BOXED_TYPE (AssayCsvDialect, assay_csv_dialect, assay_csv_dialect_copy, assay_csv_dialect_free)

AssayCsvDialect *
assay_csv_dialect_copy (const AssayCsvDialect *dialect)
{
  AssayCsvDialect *copy = g_memdup2 (dialect, sizeof *dialect);

  copy->encoding = g_strdup (dialect->encoding);
  copy->python_encoding = g_strdup (dialect->python_encoding);
  return copy;
}

void
assay_csv_dialect_free (AssayCsvDialect *dialect)
{
  if (dialect == NULL)
    return;
  g_free (dialect->encoding);
  g_free (dialect->python_encoding);
  g_free (dialect);
}

void
assay_csv_dialect_get_value_format (const AssayCsvDialect *dialect,
                                    AssayValueFormat      *format)
{
  memset (format, 0, sizeof *format);
  format->decimal = dialect->decimal;
  format->thousands_len = strlen (dialect->thousands);
  memcpy (format->thousands, dialect->thousands, sizeof format->thousands);
}

/* ---- Encoding ---------------------------------------------------------------------- */

static void
assay_csv_dialect_set_encoding (AssayCsvDialect *dialect,
                                const char      *iana,
                                const char      *python,
                                gsize            bom_len)
{
  g_free (dialect->encoding);
  g_free (dialect->python_encoding);
  dialect->encoding = g_strdup (iana);
  dialect->python_encoding = g_strdup (python);
  dialect->bom_len = bom_len;
}

static const char *
assay_csv_dialect_binary_kind (const guchar *d,
                               gsize         len)
{
  static const struct { const char *magic; gsize len; const char *what; } magics[] = {
    { "%PDF", 4, N_("a PDF document") },
    { "\x89PNG", 4, N_("a PNG image") },
    { "GIF8", 4, N_("a GIF image") },
    { "\xFF\xD8\xFF", 3, N_("a JPEG image") },
    { "\x7F" "ELF", 4, N_("a program (ELF)") },
    { "SQLite format 3", 15, N_("an SQLite database") },
    { "\x1F\x8B", 2, N_("a gzip-compressed file; decompress it first") },
    { "BZh", 3, N_("a bzip2-compressed file; decompress it first") },
    { "\xFD" "7zXZ", 5, N_("an xz-compressed file; decompress it first") },
    { "PAR1", 4, N_("a Parquet file, which is not supported yet (pandas.read_parquet can read it)") },
    { "\xD0\xCF\x11\xE0", 4, N_("an old Excel .xls (or other OLE) file, which is not supported; save it as .xlsx or CSV") },
    { "PK\x03\x04", 4, N_("a zip archive") },
    { "7z\xBC\xAF", 4, N_("a 7-Zip archive") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (magics); i++)
    if (len >= magics[i].len && memcmp (d, magics[i].magic, magics[i].len) == 0)
      return magics[i].what;
  return NULL;
}

static guint64
assay_csv_dialect_count_lines_before (const char *data,
                                      gsize       offset)
{
  guint64 lines = 1;
  const char *p = data;
  const char *end = data + offset;

  while (p < end && (p = memchr (p, '\n', end - p)) != NULL)
    {
      lines++;
      p++;
    }
  return lines;
}

static void
assay_csv_dialect_map_charset (const char      *name,
                               const char      *data,
                               gsize            len,
                               AssayCsvDialect *dialect)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);
  gboolean c1 = FALSE;

  for (gsize i = 0; i < len && !c1; i++)
    c1 = (guchar) data[i] >= 0x80 && (guchar) data[i] <= 0x9f;

  if (g_str_equal (lower, "windows-1251"))
    assay_csv_dialect_set_encoding (dialect, "windows-1251", "cp1251", 0);
  else if (g_str_equal (lower, "koi8-r"))
    assay_csv_dialect_set_encoding (dialect, "koi8-r", "koi8_r", 0);
  else if (g_str_equal (lower, "ibm866"))
    assay_csv_dialect_set_encoding (dialect, "ibm866", "cp866", 0);
  else if (g_str_equal (lower, "mac-cyrillic"))
    assay_csv_dialect_set_encoding (dialect, "x-mac-cyrillic", "mac_cyrillic", 0);
  else if (g_str_equal (lower, "iso-8859-1") && c1)
    assay_csv_dialect_set_encoding (dialect, "windows-1252", "cp1252", 0);
  else if (g_str_equal (lower, "iso-8859-1"))
    assay_csv_dialect_set_encoding (dialect, "iso-8859-1", "latin-1", 0);
  else if (g_str_has_prefix (lower, "windows-"))
    {
      g_autofree char *python = g_strconcat ("cp", lower + 8, NULL);
      assay_csv_dialect_set_encoding (dialect, lower, python, 0);
    }
  else
    assay_csv_dialect_set_encoding (dialect, lower, lower, 0);
}

gboolean
assay_csv_detect_encoding (const char       *data,
                           gsize             len,
                           AssayCsvDialect  *dialect,
                           GError          **error)
{
  const guchar *d = (const guchar *) data;
  gsize sample = MIN (len, 1024 * 1024);
  gsize zeros[4] = { 0 };
  gsize controls = 0;
  gsize nuls = 0;
  gsize probe = MIN (len, 4096) & ~(gsize) 3;
  const char *kind;
  const char *nul;

  g_clear_pointer (&dialect->encoding, g_free);
  g_clear_pointer (&dialect->python_encoding, g_free);
  dialect->bom_len = 0;
  if (len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("the file is empty"));
      return FALSE;
    }

  /* Byte-order marks; UTF-32LE's starts like UTF-16LE's, so it comes first. */
  if (len >= 4 && memcmp (d, "\xFF\xFE\x00\x00", 4) == 0)
    assay_csv_dialect_set_encoding (dialect, "utf-32le", "utf-32", 4);
  else if (len >= 4 && memcmp (d, "\x00\x00\xFE\xFF", 4) == 0)
    assay_csv_dialect_set_encoding (dialect, "utf-32be", "utf-32", 4);
  else if (len >= 3 && memcmp (d, "\xEF\xBB\xBF", 3) == 0)
    assay_csv_dialect_set_encoding (dialect, "utf-8", "utf-8-sig", 3);
  else if (len >= 2 && memcmp (d, "\xFF\xFE", 2) == 0)
    assay_csv_dialect_set_encoding (dialect, "utf-16le", "utf-16", 2);
  else if (len >= 2 && memcmp (d, "\xFE\xFF", 2) == 0)
    assay_csv_dialect_set_encoding (dialect, "utf-16be", "utf-16", 2);
  if (dialect->encoding != NULL)
    {
      if (len == dialect->bom_len)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("the file is empty (only a byte-order mark)"));
          return FALSE;
        }
      return TRUE;
    }

  if ((kind = assay_csv_dialect_binary_kind (d, len)) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("this is not a text table: it looks like %s"), _(kind));
      return FALSE;
    }

  /* UTF-32 and UTF-16 without a BOM: text in them has zero bytes in a regular pattern. */
  for (gsize i = 0; i < probe; i++)
    zeros[i % 4] += d[i] == 0;
  if (probe >= 8)
    {
      gsize quarter = probe / 4;

      if (zeros[1] > quarter * 9 / 10 && zeros[2] > quarter * 9 / 10 && zeros[3] > quarter * 9 / 10 &&
          zeros[0] < quarter / 10)
        {
          assay_csv_dialect_set_encoding (dialect, "utf-32le", "utf-32-le", 0);
          return TRUE;
        }
      if (zeros[0] > quarter * 9 / 10 && zeros[1] > quarter * 9 / 10 && zeros[2] > quarter * 9 / 10 &&
          zeros[3] < quarter / 10)
        {
          assay_csv_dialect_set_encoding (dialect, "utf-32be", "utf-32-be", 0);
          return TRUE;
        }
      if (zeros[1] + zeros[3] > probe * 2 / 10 && zeros[0] + zeros[2] < probe / 50)
        {
          assay_csv_dialect_set_encoding (dialect, "utf-16le", "utf-16-le", 0);
          return TRUE;
        }
      if (zeros[0] + zeros[2] > probe * 2 / 10 && zeros[1] + zeros[3] < probe / 50)
        {
          assay_csv_dialect_set_encoding (dialect, "utf-16be", "utf-16-be", 0);
          return TRUE;
        }
    }

  for (gsize i = 0; i < MIN (sample, 64 * 1024); i++)
    {
      controls += (d[i] > 0 && d[i] < 0x20 && d[i] != '\t' && d[i] != '\n' && d[i] != '\r' &&
                   d[i] != '\f' && d[i] != 0x1a && d[i] != 0x1b) || d[i] == 0x7f;
      nuls += d[i] == 0;
    }
  if (controls > MIN (sample, 64 * 1024) / 20 || (nuls > 4 && nuls > MIN (sample, 64 * 1024) / 10))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("this is not a text table: it looks like a binary file "
                     "(%zu control bytes in the first %zu)"),
                   controls + nuls, MIN (sample, 64 * 1024));
      return FALSE;
    }
  if ((nul = memchr (data, '\0', sample)) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("the file contains NUL bytes (the first at line %llu"
                     ", byte %zu); it is not a text table"),
                   (unsigned long long) assay_csv_dialect_count_lines_before (data, nul - data), (gsize) (nul - data));
      return FALSE;
    }

  if (assay_data_utf8_invalid_at (data, sample, sample < len) == sample)
    {
      assay_csv_dialect_set_encoding (dialect, "utf-8", "utf-8", 0);
      return TRUE;
    }

  assay_csv_detect_legacy_encoding (data, len, dialect);
  return TRUE;
}

void
assay_csv_detect_legacy_encoding (const char      *data,
                                  gsize            len,
                                  AssayCsvDialect *dialect)
{
  /* Ask uchardet, with as much text as we have. */
  uchardet_t detector = uchardet_new ();
  const char *charset;
  gsize n = MIN (len, 4 * 1024 * 1024);

  uchardet_handle_data (detector, data, n);
  uchardet_data_end (detector);
  charset = uchardet_get_charset (detector);
  if (charset == NULL || charset[0] == '\0' || g_ascii_strcasecmp (charset, "ascii") == 0 ||
      g_ascii_strcasecmp (charset, "utf-8") == 0)
    assay_csv_dialect_set_encoding (dialect, "windows-1252", "cp1252", 0);
  else
    assay_csv_dialect_map_charset (charset, data, n, dialect);
  uchardet_delete (detector);
}

/* ---- Delimiter and quoting ---------------------------------------------------------- */

typedef struct
{
  char     delimiter;
  char     quote;
  gboolean backslash;
  double   consistency;
  guint    columns;
  guint    records;
  gboolean failed;
} Candidate;

static void
assay_csv_dialect_score_candidate (const char *text,
                                   gsize       len,
                                   gboolean    truncated,
                                   Candidate  *c)
{
  AssayCsvReader reader;
  g_autoptr(GHashTable) counts = g_hash_table_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  guint best = 0, best_count = 0;
  GHashTableIter iter;
  gpointer key, value;

  assay_csv_reader_init (&reader, text, len, c->delimiter, c->quote, c->backslash);
  while (c->records < SAMPLE_RECORDS && assay_csv_reader_next (&reader, &error))
    {
      guint n = reader.n_fields;
      /* The last record of a cut sample may be cut too. */
      if (truncated && reader.pos >= len)
        break;
      g_hash_table_insert (counts, GUINT_TO_POINTER (n),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, GUINT_TO_POINTER (n))) + 1));
      c->records++;
    }
  if (error != NULL && !truncated)
    c->failed = TRUE;
  assay_csv_reader_clear (&reader);

  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint n = GPOINTER_TO_UINT (key), count = GPOINTER_TO_UINT (value);
      if (count > best_count || (count == best_count && n > best))
        {
          best = n;
          best_count = count;
        }
    }
  c->columns = best;
  c->consistency = c->records > 0 ? (double) best_count / c->records : 0;
  if (c->failed)
    c->consistency *= 0.5;
}

static gboolean
assay_csv_dialect_sample_has_field_start (const char *text,
                                          gsize       len,
                                          char        quote)
{
  for (gsize i = 0; i < len; i++)
    if (text[i] == quote && (i == 0 || strchr (",;\t|:^~\n\r", text[i - 1]) != NULL))
      return TRUE;
  return FALSE;
}

/* ---- Numbers ------------------------------------------------------------------------ */

typedef struct
{
  guint decimal_dot, decimal_comma;
  guint ambiguous_comma, ambiguous_dot;   /* 1,234 or 1.234 */
  guint thousands[5];                      /* , . space nbsp ' */
} NumberVotes;

static const char *const thousands_seps[] = { ",", ".", " ", "\xC2\xA0", "'" };

static int
assay_csv_dialect_thousands_index (const char *p,
                                   const char *end,
                                   gsize      *len)
{
  for (guint i = 0; i < G_N_ELEMENTS (thousands_seps); i++)
    {
      gsize n = strlen (thousands_seps[i]);
      if ((gsize) (end - p) >= n && memcmp (p, thousands_seps[i], n) == 0)
        {
          *len = n;
          return i;
        }
    }
  return -1;
}

/* Looks at the separators in a token made of digit groups, e.g. 1 234,56 or 1,234.5. */
static void
assay_csv_dialect_vote_number (const char  *s,
                               gsize        len,
                               NumberVotes *votes)
{
  const char *p = s, *end = s + len;
  int seps[8];
  guint group_len[9];
  guint n_seps = 0, n_groups = 0, digits = 0;

  while (p < end && (*p == '-' || *p == '+' || *p == '$' || *p == ' '))
    p++;
  while (end > p && (end[-1] == ' ' || end[-1] == '%'))
    end--;
  if (p >= end || *p < '0' || *p > '9')
    return;
  while (p < end)
    {
      gsize n;
      int k;

      if (*p >= '0' && *p <= '9')
        {
          digits++;
          p++;
          continue;
        }
      k = assay_csv_dialect_thousands_index (p, end, &n);
      if (k < 0 || digits == 0 || n_seps == G_N_ELEMENTS (seps))
        return;
      seps[n_seps++] = k;
      group_len[n_groups++] = digits;
      digits = 0;
      p += n;
    }
  if (digits == 0)
    return;
  group_len[n_groups++] = digits;
  if (n_seps == 0)
    return;

  {
    int last = seps[n_seps - 1];
    gboolean same = TRUE;

    for (guint i = 0; i < n_seps; i++)
      same = same && seps[i] == seps[0];

    if (!same)
      {
        /* 1.234,56: the last separator is the decimal one, the others group thousands. */
        if (last > 1)
          return;
        for (guint i = 1; i + 1 < n_groups; i++)
          if (group_len[i] != 3)
            return;
        if (last == 0)
          votes->decimal_comma++;
        else
          votes->decimal_dot++;
        votes->thousands[seps[0]]++;
        return;
      }
    if (n_seps > 1)
      {
        for (guint i = 1; i < n_groups; i++)
          if (group_len[i] != 3)
            return;
        if (group_len[0] <= 3)
          votes->thousands[seps[0]]++;
        return;
      }
    /* One separator. */
    if (last >= 2)
      {
        if (group_len[1] == 3 && group_len[0] <= 3)
          votes->thousands[last]++;
        return;
      }
    if (group_len[1] != 3 || group_len[0] > 3 || (group_len[0] == 1 && s[0] == '0'))
      {
        if (last == 0)
          votes->decimal_comma++;
        else
          votes->decimal_dot++;
      }
    else if (last == 0)
      votes->ambiguous_comma++;
    else
      votes->ambiguous_dot++;
  }
}

static void
assay_csv_dialect_choose_number_format (NumberVotes     *votes,
                                        char             forced_decimal,
                                        AssayCsvDialect *dialect)
{
  int best = -1;

  if (forced_decimal != '\0')
    dialect->decimal = forced_decimal;
  else if (votes->decimal_comma > votes->decimal_dot ||
      (votes->decimal_comma == 0 && votes->decimal_dot == 0 && votes->ambiguous_comma > 0 &&
       dialect->delimiter != ',' && votes->ambiguous_dot == 0 && votes->thousands[2] + votes->thousands[3] == 0))
    dialect->decimal = ',';
  else
    dialect->decimal = '.';

  if (dialect->decimal == ',')
    votes->thousands[1] += votes->ambiguous_dot;
  else
    votes->thousands[0] += votes->ambiguous_comma;
  votes->thousands[dialect->decimal == ',' ? 0 : 1] = 0;
  for (guint i = 0; i < G_N_ELEMENTS (votes->thousands); i++)
    if (votes->thousands[i] > 0 && (best < 0 || votes->thousands[i] > votes->thousands[best]))
      best = i;
  dialect->thousands[0] = '\0';
  if (best >= 0)
    g_strlcpy (dialect->thousands, thousands_seps[best], sizeof dialect->thousands);
}

/* ---- Header ------------------------------------------------------------------------- */

static gboolean
assay_csv_dialect_detect_header (GPtrArray             *rows,
                                 const AssayValueFormat *format)
{
  GPtrArray *first;
  guint columns, typed_columns = 0, header_votes = 0;
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  if (rows->len == 0)
    return FALSE;
  first = g_ptr_array_index (rows, 0);
  columns = first->len;

  for (guint c = 0; c < columns; c++)
    {
      const char *name = g_ptr_array_index (first, c);
      guint mask = ASSAY_VALUE_ANY;
      guint seen = 0;
      AssayValue value;

      for (guint r = 1; r < rows->len; r++)
        {
          GPtrArray *row = g_ptr_array_index (rows, r);
          const char *s;

          if (c >= row->len)
            continue;
          s = g_ptr_array_index (row, c);
          if (assay_value_is_null (s, strlen (s)))
            continue;
          mask &= assay_value_classify (s, strlen (s), format, mask, &value);
          seen++;
        }
      if (seen == 0 || mask == 0)
        continue;
      typed_columns++;
      if (!assay_value_is_null (name, strlen (name)) &&
          (assay_value_classify (name, strlen (name), format, mask, &value) & mask) == 0)
        header_votes++;
      else if (assay_value_is_null (name, strlen (name)) && name[0] != '\0')
        return FALSE;
    }
  if (typed_columns > 0)
    return header_votes * 2 >= typed_columns && header_votes > 0;

  /* Only text: a header has distinct names, none empty, and none of them typed. */
  for (guint c = 0; c < columns; c++)
    {
      const char *name = g_ptr_array_index (first, c);
      AssayValue value;

      if (name[0] == '\0' || !g_hash_table_add (names, (gpointer) name) ||
          assay_value_classify (name, strlen (name), format, ASSAY_VALUE_ANY, &value) != 0)
        return FALSE;
    }
  return TRUE;
}

/* ---- Not a table -------------------------------------------------------------------- */

static gboolean
assay_csv_dialect_check_table_shape (const char       *text,
                                     gsize             len,
                                     const Candidate  *best,
                                     GError          **error)
{
  const char *p = text, *end = text + len;
  gsize spaces = 0, lines = 0, line_chars = 0;

  while (p < end && g_ascii_isspace (*p))
    p++;
  while (end > p && g_ascii_isspace (end[-1]))
    end--;
  if (p < end && ((*p == '{' && end[-1] == '}') || (*p == '[' && end[-1] == ']')))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("this is not a table: it looks like JSON (pandas.read_json can read it)"));
      return FALSE;
    }
  if (p < end && *p == '<' && end - p > 1 && (g_ascii_isalpha (p[1]) || p[1] == '?' || p[1] == '!'))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("this is not a table: it looks like XML or HTML"));
      return FALSE;
    }
  if (best->records >= 4 && best->consistency < 0.5)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("this is not a table: no delimiter splits the lines into a steady number "
                     "of fields (with the best, “%s”, the commonest count, %u, fits only %.0f%% of the lines)"),
                   best->delimiter == '\t' ? "\\t" : (char[]) { best->delimiter, 0 },
                   best->columns, best->consistency * 100);
      return FALSE;
    }
  if (best->columns <= 1)
    {
      for (const char *q = text; q < text + len; q++)
        {
          if (*q == '\n')
            lines++;
          else
            {
              line_chars++;
              spaces += *q == ' ';
            }
        }
      lines = MAX (lines, 1);
      if (spaces / lines >= 6)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("this is not a table: no delimiter found, and the lines read like prose "
                         "(%zu spaces per line on average)"), spaces / lines);
          return FALSE;
        }
      if (line_chars / lines > 4096)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("this is not a table: no delimiter splits its lines, which are %zu"
                         " characters long on average (rows are limited to %u fields)"),
                       line_chars / lines, ASSAY_CSV_MAX_FIELDS);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
assay_csv_sniff_text (const char       *text,
                      gsize             len,
                      AssayCsvDialect  *dialect,
                      GError          **error)
{
  return assay_csv_sniff_text_with_override (text, len, NULL, dialect, error);
}

gboolean
assay_csv_sniff_text_with_override (const char            *text,
                                    gsize                  len,
                                    const AssayCsvDialect *override,
                                    AssayCsvDialect       *dialect,
                                    GError               **error)
{
  static const char delimiters[] = { '\t', ';', ',', '|', ':', '^', '~' };
  Candidate best = { 0 };
  gsize sample_len = MIN (len, SAMPLE_BYTES);
  gboolean truncated;
  gboolean try_single, try_backslash;
  gsize crlf = 0, lf = 0, cr = 0;
  AssayValueFormat format;
  NumberVotes votes = { 0 };
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  AssayCsvReader reader;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GString) scratch = g_string_new (NULL);
  char forced = 0;
  char forced_quote = 0;

  if (len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("the file is empty"));
      return FALSE;
    }

  /* Excel writes "sep=;" on the first line to name the delimiter: follow it, and skip it. */
  dialect->preamble_len = 0;
  if (len >= 5 && memcmp (text, "sep=", 4) == 0 && text[4] > ' ' && text[4] < 0x7f &&
      (len == 5 || text[5] == '\n' || text[5] == '\r'))
    {
      gsize p = 5;

      forced = text[4];
      if (p < len && text[p] == '\r')
        p++;
      if (p < len && text[p] == '\n')
        p++;
      dialect->preamble_len = p;
      text += p;
      len -= p;
      sample_len = MIN (len, SAMPLE_BYTES);
      if (len == 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("the file is empty (only Excel's “sep=” line)"));
          return FALSE;
        }
    }
  {
    gsize i = 0;
    while (i < len && g_ascii_isspace (text[i]))
      i++;
    if (i == len)
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("the file is empty (only blank lines)"));
        return FALSE;
      }
  }

  /* A sample that ends at a line break, grown until it holds a few lines. */
  for (;;)
    {
      gsize cut = sample_len;
      const char *first_break;

      truncated = sample_len < len;
      if (!truncated)
        break;
      while (cut > 0 && text[cut - 1] != '\n' && text[cut - 1] != '\r')
        cut--;
      first_break = cut > 1 ? memchr (text, '\n', cut - 1) : NULL;
      if (first_break != NULL || sample_len >= MAX_SAMPLE_BYTES)
        {
          if (cut > 0)
            sample_len = cut;
          break;
        }
      sample_len = MIN (len, sample_len * 4);
    }

  /* The analyst's corrections win over Excel's hint and over the votes. */
  if (override != NULL && override->delimiter != '\0')
    forced = override->delimiter;
  if (override != NULL && override->quote != '\0')
    forced_quote = override->quote;

  try_single = assay_csv_dialect_sample_has_field_start (text,
                                                         sample_len,
                                                         '\'') && !assay_csv_dialect_sample_has_field_start (text, sample_len, '"');
  try_backslash = g_strstr_len (text,
                                sample_len,
                                "\\\"") != NULL && g_strstr_len (text, sample_len, "\"\"") == NULL;

  for (guint i = 0; i < G_N_ELEMENTS (delimiters); i++)
    for (guint q = 0; q < (try_single ? 2u : 1u); q++)
      for (guint b = 0; b < (try_backslash ? 2u : 1u); b++)
        {
          Candidate c = { forced ? forced : delimiters[i], forced_quote ? forced_quote : q ? '\'' : '"', b == 1, 0, 0, 0, FALSE };
          double score, best_score;

          if (forced && i > 0)
            break;
          assay_csv_dialect_score_candidate (text, sample_len, truncated, &c);
          score = c.columns > 1 ? c.consistency : 0;
          best_score = best.columns > 1 ? best.consistency : 0;
          if (best.delimiter == 0 || score > best_score + 1e-9 ||
              (b == 1 && score >= best_score - 1e-9 && best.delimiter == c.delimiter))
            best = c;
        }
  if (best.columns <= 1 && !forced)
    {
      best.delimiter = ',';
      best.quote = '"';
      best.backslash = FALSE;
      best.records = 0;
      assay_csv_dialect_score_candidate (text, sample_len, truncated, &best);
    }
  /* A delimiter the analyst chose is taken even when it does not split the lines well. */
  if ((override == NULL || override->delimiter == '\0') &&
      !assay_csv_dialect_check_table_shape (text, sample_len, &best, error))
    return FALSE;

  dialect->delimiter = best.delimiter;
  dialect->quote = best.quote;
  dialect->backslash_escape = best.backslash;
  dialect->n_columns = best.columns;

  /* Line endings. */
  for (gsize i = 0; i < sample_len; i++)
    {
      if (text[i] == '\r')
        {
          if (i + 1 < len && text[i + 1] == '\n')
            {
              crlf++;
              i++;
            }
          else
            cr++;
        }
      else if (text[i] == '\n')
        lf++;
    }
  dialect->line_ending = crlf >= lf && crlf >= cr && crlf > 0 ? "\r\n" : cr > lf ? "\r" : "\n";

  /* Trailing blank lines, from the end of the whole text. */
  {
    gsize end = len;
    guint breaks = 0;

    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t'))
      {
        if (text[end - 1] == '\n' || (text[end - 1] == '\r' && (end == len || text[end] != '\n')))
          breaks++;
        end--;
      }
    dialect->trailing_blank_lines = breaks > 0 ? breaks - 1 : 0;
  }

  /* The sample's cells, for the number format and the header. */
  assay_csv_reader_init (&reader, text, sample_len, dialect->delimiter, dialect->quote,
                         dialect->backslash_escape);
  while (rows->len < SAMPLE_RECORDS && assay_csv_reader_next (&reader, &local_error))
    {
      GPtrArray *row = g_ptr_array_new_with_free_func (g_free);

      if (truncated && reader.pos >= sample_len && rows->len > 0)
        {
          g_ptr_array_unref (row);
          break;
        }
      for (guint f = 0; f < reader.n_fields; f++)
        {
          gsize n;
          const char *s;

          g_string_truncate (scratch, 0);
          s = assay_csv_reader_field_text (&reader, &reader.fields[f], scratch, &n);
          g_ptr_array_add (row, g_strndup (s, MIN (n, 256)));
          assay_csv_dialect_vote_number (s, MIN (n, 64), &votes);
        }
      g_ptr_array_add (rows, row);
    }
  assay_csv_reader_clear (&reader);

  /* Prose with a steady number of commas per line is still prose: every cell reads like a
   * sentence, even the would-be header. */
  {
    gsize cells = 0, wordy = 0;

    for (guint r = 0; r < rows->len; r++)
      {
        GPtrArray *row = g_ptr_array_index (rows, r);
        for (guint f = 0; f < row->len; f++)
          {
            const char *cell = g_ptr_array_index (row, f);
            guint spaces = 0;

            for (const char *c = cell; *c != '\0'; c++)
              spaces += *c == ' ';
            cells++;
            wordy += spaces >= 3;
          }
      }
    if (cells >= 8 && wordy == cells && dialect->n_columns <= 8 &&
        (override == NULL || override->delimiter == '\0'))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("this is not a table: every cell reads like prose (sentences, not values)"));
        return FALSE;
      }
  }

  assay_csv_dialect_choose_number_format (&votes, override != NULL ? override->decimal : '\0', dialect);
  assay_csv_dialect_get_value_format (dialect, &format);
  if (override != NULL && override->header != ASSAY_CSV_HEADER_DETECT)
    dialect->header = override->header != FALSE;
  else
    dialect->header = assay_csv_dialect_detect_header (rows, &format);
  return TRUE;
}

AssayCsvDialect *
assay_csv_dialect_sniff (const char  *data,
                         gsize        len,
                         gboolean     check_all,
                         GBytes     **converted,
                         const char **text,
                         gsize       *text_len,
                         GError     **error)
{
  return assay_csv_dialect_sniff_with_override (data, len, check_all, NULL, converted,
                                                text, text_len, error);
}

AssayCsvDialect *
assay_csv_dialect_sniff_with_override (const char            *data,
                                       gsize                  len,
                                       gboolean               check_all,
                                       const AssayCsvDialect *override,
                                       GBytes               **converted,
                                       const char           **text,
                                       gsize                 *text_len,
                                       GError               **error)
{
  g_autoptr(AssayCsvDialect) dialect = g_new0 (AssayCsvDialect, 1);
  gboolean forced_encoding = override != NULL && override->encoding != NULL;

  *converted = NULL;
  if (forced_encoding)
    {
      if (!assay_csv_force_encoding (data, len, override->encoding, dialect, error))
        return NULL;
    }
  else if (!assay_csv_detect_encoding (data, len, dialect, error))
    return NULL;
  /* The encoding came from the first megabyte: a later NUL makes it binary, a later byte may
   * prove it was not UTF-8. */
  if (check_all && !forced_encoding && dialect->bom_len == 0 && !g_str_has_prefix (dialect->encoding, "utf-16") &&
      !g_str_has_prefix (dialect->encoding, "utf-32") && memchr (data, '\0', len) != NULL)
    {
      gsize at = (const char *) memchr (data, '\0', len) - data;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("the file contains NUL bytes (the first at line %llu"
                     ", byte %zu); it is not a text table"),
                   (unsigned long long) assay_csv_dialect_count_lines_before (data, at), at);
      return NULL;
    }
  /* The encoding came from the first megabyte; a later byte may prove it was not UTF-8. */
  if (check_all && !forced_encoding && dialect->bom_len == 0 && g_str_equal (dialect->encoding, "utf-8") &&
      assay_data_utf8_invalid_at (data, len, FALSE) != len)
    assay_csv_detect_legacy_encoding (data, len, dialect);

  if (g_str_equal (dialect->encoding, "utf-8"))
    {
      *text = data + dialect->bom_len;
      *text_len = len - dialect->bom_len;
    }
  else
    {
      g_autofree char *iconv_name = g_ascii_strup (dialect->encoding, -1);

      if (g_str_equal (iconv_name, "X-MAC-CYRILLIC"))
        {
          g_free (iconv_name);
          iconv_name = g_strdup ("MAC-CYRILLIC");
        }
      *converted = assay_data_convert_to_utf8 (data + dialect->bom_len, len - dialect->bom_len,
                                               iconv_name, error);
      if (*converted == NULL)
        return NULL;
      *text = g_bytes_get_data (*converted, text_len);
      if (*text_len == 0)
        {
          g_clear_pointer (converted, g_bytes_unref);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("the file is empty"));
          return NULL;
        }
      if (memchr (*text, '\0', *text_len) != NULL)
        {
          gsize at = (const char *) memchr (*text, '\0', *text_len) - *text;
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("the file contains NUL characters (the first at line %llu"
                         "); it is not a text table"), (unsigned long long) assay_csv_dialect_count_lines_before (*text, at));
          g_clear_pointer (converted, g_bytes_unref);
          return NULL;
        }
    }

  if (!assay_csv_sniff_text_with_override (*text, *text_len, override, dialect, error))
    {
      g_clear_pointer (converted, g_bytes_unref);
      return NULL;
    }
  return g_steal_pointer (&dialect);
}

/* ---- Corrections -------------------------------------------------------------------- */

void
assay_csv_dialect_init_override (AssayCsvDialect *override)
{
  memset (override, 0, sizeof *override);
  override->header = ASSAY_CSV_HEADER_DETECT;
}

void
assay_csv_dialect_clear_override (AssayCsvDialect *override)
{
  g_clear_pointer (&override->encoding, g_free);
  g_clear_pointer (&override->python_encoding, g_free);
}

gboolean
assay_csv_force_encoding (const char       *data,
                          gsize             len,
                          const char       *encoding,
                          AssayCsvDialect  *dialect,
                          GError          **error)
{
  g_autofree char *lower = g_ascii_strdown (encoding, -1);
  g_autofree char *iconv_name = NULL;
  GIConv cd;

  if (len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the file is empty");
      return FALSE;
    }
  if (g_str_equal (lower, "utf-8"))
    {
      gboolean bom = len >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0;
      assay_csv_dialect_set_encoding (dialect, "utf-8", bom ? "utf-8-sig" : "utf-8", bom ? 3 : 0);
      return TRUE;
    }
  if (g_str_equal (lower, "utf-16le") || g_str_equal (lower, "utf-16be"))
    {
      gboolean le = g_str_equal (lower, "utf-16le");
      gboolean bom = len >= 2 && memcmp (data, le ? "\xFF\xFE" : "\xFE\xFF", 2) == 0;
      assay_csv_dialect_set_encoding (dialect,
                                      lower,
                                      bom ? "utf-16" : le ? "utf-16-le" : "utf-16-be",
                                      bom ? 2 : 0);
    }
  else if (g_str_equal (lower, "iso-8859-1"))
    assay_csv_dialect_set_encoding (dialect, "iso-8859-1", "latin-1", 0);
  else if (g_str_equal (lower, "iso-8859-15"))
    assay_csv_dialect_set_encoding (dialect, "iso-8859-15", "iso8859_15", 0);
  else if (g_str_equal (lower, "shift_jis"))
    assay_csv_dialect_set_encoding (dialect, "shift_jis", "shift_jis", 0);
  else
    assay_csv_dialect_map_charset (lower, "", 0, dialect);

  iconv_name = g_ascii_strup (dialect->encoding, -1);
  if (g_str_equal (iconv_name, "X-MAC-CYRILLIC"))
    {
      g_free (iconv_name);
      iconv_name = g_strdup ("MAC-CYRILLIC");
    }
  cd = g_iconv_open ("UTF-8", iconv_name);
  if (cd == (GIConv) -1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "this system cannot read text in %s", dialect->encoding);
      return FALSE;
    }
  g_iconv_close (cd);
  return TRUE;
}
