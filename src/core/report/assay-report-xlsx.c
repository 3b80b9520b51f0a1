/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Excel export, written with libxlsxwriter: a summary (the datasets, each question and
 * its answer, the tables' sheets and, for a session that ran another again, what changed),
 * one sheet for each table an output showed, with its numbers and dates typed, the figures,
 * and the cells. Everything in it came from the session and is untrusted: every text is
 * written as a string (never a formula), without control characters, cut at what a cell
 * holds. libxlsxwriter writes to a file name only, so the workbook is made in a private
 * temporary folder and copied into the stream. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <xlsxwriter.h>

#include "assay-cell-output.h"
#include "assay-markdown.h"
#include "assay-report-private.h"

#define REPORT_XLSX_MAX_CELL_UNITS     32767   /* what a cell holds, in UTF-16 units as Excel counts */
#define REPORT_XLSX_MAX_SHEET_NAME     31
#define REPORT_XLSX_MAX_COLUMN_WIDTH   60
#define REPORT_XLSX_MAX_SHORT_TEXT     1000    /* a description, a status reason, a caption */
#define REPORT_XLSX_MAX_TABLE_SHEETS   500
#define REPORT_XLSX_FIGURE_WIDTH       800     /* pixels a wider figure is scaled down to */
#define REPORT_XLSX_ROW_PIXELS         20      /* of a row of the default height */
#define REPORT_XLSX_MAX_SIGNIFICANT    15      /* the digits a double keeps; longer stays text */
#define REPORT_XLSX_MAX_DECIMALS       20

typedef struct
{
  AssayReport   *report;
  lxw_workbook  *workbook;
  GHashTable    *sheet_names;     /* the names given out, case-folded */
  GHashTable    *number_formats;  /* Excel's number format → lxw_format*, the workbook's */
  GPtrArray     *tables;          /* TableSheet*: the sheets of tables, for the summary */
  guint          n_tables_left_out;
  lxw_format    *title;
  lxw_format    *heading;
  lxw_format    *header;          /* a table's header: bold, filled, a line below */
  lxw_format    *wrap;
  lxw_format    *code;
  lxw_format    *note;
  lxw_format    *date;
  lxw_format    *datetime;
} XlsxWriter;

typedef struct
{
  char *name;
  char *cell_id;
  char *description;
} TableSheet;

static void
assay_report_xlsx_table_sheet_free (TableSheet *sheet)
{
  g_free (sheet->name);
  g_free (sheet->cell_id);
  g_free (sheet->description);
  g_free (sheet);
}

/* ---- texts -------------------------------------------------------------------------------- */

static gboolean
assay_report_xlsx_is_control (gunichar c)
{
  return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0) || c == 0xfffe || c == 0xffff;
}

/* TEXT as a cell may hold it: valid UTF-8 without control characters (but tab and line
 * feed), at most MAX_UNITS UTF-16 units, ending in "…" when it was cut (then *CUT is set). */
static char *
assay_report_xlsx_clean (const char *text,
                         gsize       max_units,
                         gboolean   *cut)
{
  g_autofree char *valid = NULL;
  GString *clean;
  gsize units = 0, keep = 0;

  if (text == NULL)
    return g_strdup ("");
  valid = g_utf8_make_valid (text, -1);
  clean = g_string_sized_new (MIN (strlen (valid), max_units * 3) + 4);
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      gsize width = c > 0xffff ? 2 : 1;

      if (assay_report_xlsx_is_control (c))
        continue;
      if (units + width > max_units)
        {
          /* Room for the ellipsis: back to where the text still left one unit. */
          g_string_truncate (clean, keep);
          g_string_append (clean, "…");
          if (cut != NULL)
            *cut = TRUE;
          break;
        }
      g_string_append_unichar (clean, c);
      units += width;
      if (units < max_units)
        keep = clean->len;
    }
  return g_string_free (clean, FALSE);
}

/* The display width of TEXT, in characters: its longest line. */
static guint
assay_report_xlsx_text_width (const char *text)
{
  guint width = 0, line = 0;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      if (*p == '\n')
        line = 0;
      else if (++line > width)
        width = line;
    }
  return width;
}

/* Whether a link to HREF says where it points by its TEXT alone: an address written out
 * ("sales@example.org" to mailto:sales@example.org, "example.org/x" to https://example.org/x). */
static gboolean
assay_report_xlsx_link_is_text (const char *href,
                                const char *text)
{
  static const char *schemes[] = { "mailto:", "https://", "http://" };

  if (href == NULL || *href == '\0' || g_strcmp0 (href, text) == 0)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    if (g_str_has_prefix (href, schemes[i]) && g_strcmp0 (href + strlen (schemes[i]), text) == 0)
      return TRUE;
  return FALSE;
}

static void
assay_report_xlsx_append_spans (GString   *text,
                                GPtrArray *spans)
{
  for (guint i = 0; spans != NULL && i < spans->len; i++)
    {
      const AssayMdSpan *span = g_ptr_array_index (spans, i);

      g_string_append (text, span->text);
      /* A link keeps where it pointed, as text: a cell never becomes a hyperlink. */
      if ((span->style & ASSAY_MD_LINK) && !assay_report_xlsx_link_is_text (span->href, span->text))
        g_string_append_printf (text, " (%s)", span->href);
    }
}

/* A block of the model's Markdown as plain text: a list item with its marker, code as it
 * was; a table's rows are not one block's text (see assay_report_xlsx_write_answer). */
static char *
assay_report_xlsx_block_text (const AssayMdBlock *block)
{
  GString *text = g_string_new (NULL);

  switch (block->kind)
    {
    case ASSAY_MD_BLOCK_HEADING:
      assay_report_xlsx_append_spans (text, block->spans);
      break;
    case ASSAY_MD_BLOCK_PARAGRAPH:
      for (guint level = 0; level < MIN (block->level, 8); level++)
        g_string_append (text, "   ");
      assay_report_xlsx_append_spans (text, block->spans);
      break;
    case ASSAY_MD_BLOCK_LIST_ITEM:
      for (guint level = 1; level < MIN (block->level, 8); level++)
        g_string_append (text, "   ");
      if (block->ordinal > 0)
        g_string_append_printf (text, "%u. ", block->ordinal);
      else
        g_string_append (text, "• ");
      assay_report_xlsx_append_spans (text, block->spans);
      break;
    case ASSAY_MD_BLOCK_CODE:
      g_string_append (text, block->code != NULL ? block->code : "");
      break;
    case ASSAY_MD_BLOCK_RULE:
      g_string_append (text, "———");
      break;
    default:
      break;
    }
  return g_string_free (text, FALSE);
}

/* ---- values ------------------------------------------------------------------------------- */

/* TEXT as a number, when it is one as a table prints it: a sign (+, - or U+2212), digits
 * perhaps grouped by commas ("1,234"), decimals, an exponent, a percent sign. Numbers that a
 * double cannot keep (more than 15 significant digits) and integers with leading zeros (codes,
 * identifiers) stay text. FORMAT gets Excel's number format that shows it as written. */
static gboolean
assay_report_xlsx_read_number (const char *text,
                               double     *value,
                               GString    *format)
{
  g_autoptr(GString) digits = g_string_new (NULL);
  const char *p = text;
  gboolean negative = FALSE, grouped = FALSE, percent = FALSE, exponent = FALSE;
  guint int_digits = 0, decimals = 0, significant = 0;
  gboolean leading = TRUE;
  double parsed;

  if (*p == '+' || *p == '-')
    negative = *p++ == '-';
  else if (g_str_has_prefix (p, "\xe2\x88\x92"))   /* U+2212 MINUS SIGN */
    {
      negative = TRUE;
      p += 3;
    }
  if (!g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++, int_digits++)
    g_string_append_c (digits, *p);
  if (*p == ',')
    {
      if (int_digits > 3)
        return FALSE;
      while (p[0] == ',' && g_ascii_isdigit (p[1]) && g_ascii_isdigit (p[2]) && g_ascii_isdigit (p[3]) &&
             !g_ascii_isdigit (p[4]))
        {
          g_string_append_len (digits, p + 1, 3);
          int_digits += 3;
          grouped = TRUE;
          p += 4;
        }
      if (*p == ',')
        return FALSE;
    }
  if (digits->str[0] == '0' && int_digits > 1)
    return FALSE;
  if (*p == '.')
    {
      p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      g_string_append_c (digits, '.');
      for (; g_ascii_isdigit (*p); p++, decimals++)
        g_string_append_c (digits, *p);
    }
  for (const char *d = digits->str; *d != '\0'; d++)
    if (g_ascii_isdigit (*d) && (*d != '0' || !leading))
      {
        leading = FALSE;
        significant++;
      }
  if ((*p == 'e' || *p == 'E') && (g_ascii_isdigit (p[1]) ||
                                   ((p[1] == '+' || p[1] == '-') && g_ascii_isdigit (p[2]))))
    {
      guint exponent_digits = 0;

      g_string_append_c (digits, 'e');
      p++;
      if (*p == '+' || *p == '-')
        g_string_append_c (digits, *p++);
      for (; g_ascii_isdigit (*p); p++, exponent_digits++)
        g_string_append_c (digits, *p);
      if (exponent_digits > 3)
        return FALSE;
      exponent = TRUE;
    }
  if (p[0] == '%' || (p[0] == ' ' && p[1] == '%'))
    {
      percent = TRUE;
      p += p[0] == '%' ? 1 : 2;
    }
  if (*p != '\0' || significant > REPORT_XLSX_MAX_SIGNIFICANT || decimals > REPORT_XLSX_MAX_DECIMALS)
    return FALSE;
  parsed = g_ascii_strtod (digits->str, NULL);
  if (!isfinite (parsed))
    return FALSE;
  *value = (negative ? -parsed : parsed) / (percent ? 100.0 : 1.0);

  g_string_assign (format, exponent ? "0" : grouped ? "#,##0" : "0");
  if (decimals > 0)
    {
      g_string_append_c (format, '.');
      for (guint i = 0; i < decimals; i++)
        g_string_append_c (format, '0');
    }
  if (exponent)
    g_string_append (format, "E+00");
  else if (percent)
    g_string_append_c (format, '%');
  return TRUE;
}

static gboolean
assay_report_xlsx_read_digits (const char **p,
                               guint        n,
                               int         *value)
{
  *value = 0;
  for (guint i = 0; i < n; i++)
    {
      if (!g_ascii_isdigit ((*p)[i]))
        return FALSE;
      *value = *value * 10 + ((*p)[i] - '0');
    }
  *p += n;
  return TRUE;
}

/* TEXT as a date ("2024-03-15") or a date and time ("2024-03-15 14:30:00", a "T" between
 * them, seconds and fractions optional), as pandas prints them; a time zone stays text. */
static gboolean
assay_report_xlsx_read_date (const char   *text,
                             lxw_datetime *datetime,
                             gboolean     *with_time)
{
  const char *p = text;
  int second = 0;

  memset (datetime, 0, sizeof *datetime);
  *with_time = FALSE;
  if (!assay_report_xlsx_read_digits (&p, 4, &datetime->year) || *p++ != '-' ||
      !assay_report_xlsx_read_digits (&p, 2, &datetime->month) || *p++ != '-' ||
      !assay_report_xlsx_read_digits (&p, 2, &datetime->day))
    return FALSE;
  if (datetime->year < 1900 || datetime->year > 9999 ||
      !g_date_valid_dmy (datetime->day, datetime->month, datetime->year))
    return FALSE;
  if (*p == '\0')
    return TRUE;
  if (*p != ' ' && *p != 'T')
    return FALSE;
  p++;
  if (!assay_report_xlsx_read_digits (&p, 2, &datetime->hour) || *p++ != ':' ||
      !assay_report_xlsx_read_digits (&p, 2, &datetime->min))
    return FALSE;
  if (*p == ':')
    {
      p++;
      if (!assay_report_xlsx_read_digits (&p, 2, &second))
        return FALSE;
      datetime->sec = second;
      if (*p == '.')
        {
          double fraction = 0, scale = 0.1;

          p++;
          if (!g_ascii_isdigit (*p))
            return FALSE;
          for (; g_ascii_isdigit (*p); p++, scale /= 10)
            fraction += (*p - '0') * scale;
          datetime->sec += fraction;
        }
    }
  if (*p != '\0' || datetime->hour > 23 || datetime->min > 59 || second > 59)
    return FALSE;
  *with_time = TRUE;
  return TRUE;
}

/* The format showing a number as NUM_FORMAT says, made once. */
static lxw_format *
assay_report_xlsx_number_format (XlsxWriter *self,
                                 const char *num_format)
{
  lxw_format *format = g_hash_table_lookup (self->number_formats, num_format);

  if (format == NULL)
    {
      format = workbook_add_format (self->workbook);
      format_set_num_format (format, num_format);
      format_set_align (format, LXW_ALIGN_VERTICAL_TOP);
      g_hash_table_insert (self->number_formats, g_strdup (num_format), format);
    }
  return format;
}

/* Always a string, whatever it starts with: worksheet_write_string never makes a formula. */
static guint
assay_report_xlsx_write_text (lxw_worksheet *sheet,
                              lxw_row_t      row,
                              lxw_col_t      column,
                              const char    *text,
                              gsize          max_units,
                              lxw_format    *format,
                              gboolean      *cut)
{
  g_autofree char *clean = assay_report_xlsx_clean (text, max_units, cut);

  if (*clean != '\0')
    worksheet_write_string (sheet, row, column, clean, format);
  else if (format != NULL)
    worksheet_write_blank (sheet, row, column, format);
  return assay_report_xlsx_text_width (clean);
}

/* A table's cell: a number, a date or a string, as its text reads. Returns its width. */
static guint
assay_report_xlsx_write_value (XlsxWriter    *self,
                               lxw_worksheet *sheet,
                               lxw_row_t      row,
                               lxw_col_t      column,
                               const char    *text,
                               gboolean      *cut)
{
  g_autoptr(GString) num_format = g_string_new (NULL);
  lxw_datetime datetime;
  gboolean with_time;
  double number;

  if (assay_report_xlsx_read_number (text, &number, num_format))
    {
      worksheet_write_number (sheet, row, column, number,
                              assay_report_xlsx_number_format (self, num_format->str));
      return g_utf8_strlen (text, -1);
    }
  if (assay_report_xlsx_read_date (text, &datetime, &with_time))
    {
      worksheet_write_datetime (sheet, row, column, &datetime, with_time ? self->datetime : self->date);
      return with_time ? 19 : 10;
    }
  return assay_report_xlsx_write_text (sheet, row, column, text, REPORT_XLSX_MAX_CELL_UNITS, NULL, cut);
}

static void
assay_report_xlsx_write_note (XlsxWriter    *self,
                              lxw_worksheet *sheet,
                              lxw_row_t      row,
                              const char    *text)
{
  if (row < LXW_ROW_MAX)
    assay_report_xlsx_write_text (sheet, row, 0, text, REPORT_XLSX_MAX_CELL_UNITS, self->note, NULL);
}

static void
assay_report_xlsx_write_cut_note (XlsxWriter    *self,
                                  lxw_worksheet *sheet,
                                  lxw_row_t      row)
{
  g_autofree char *note = g_strdup_printf (_("Texts longer than a cell holds (%'u characters) were cut; "
                                             "they end with “…”."), REPORT_XLSX_MAX_CELL_UNITS);

  assay_report_xlsx_write_note (self, sheet, row, note);
}

/* A row of bold headers over COLUMNS, NULL-terminated. */
static void
assay_report_xlsx_write_header (XlsxWriter    *self,
                                lxw_worksheet *sheet,
                                lxw_row_t      row,
                                const char   **columns)
{
  for (lxw_col_t c = 0; columns[c] != NULL; c++)
    worksheet_write_string (sheet, row, c, columns[c], self->header);
}

/* Rows the answer of a question takes at most: the rest is cut, and the cut is noted. */
#define REPORT_XLSX_MAX_ANSWER_ROWS 2000

/* The answer's Markdown from ROW down in COLUMN: a block (a heading, a paragraph, a list item,
 * code) a row, a table's rows as rows whose cells are cells (numbers as numbers, its first row
 * as a header), so that an analyst can sort, sum and copy them. Returns the row after it. */
static lxw_row_t
assay_report_xlsx_write_answer (XlsxWriter    *self,
                                lxw_worksheet *sheet,
                                lxw_row_t      row,
                                lxw_col_t      column,
                                const char    *markdown,
                                gboolean      *cut)
{
  g_autoptr(GPtrArray) blocks = assay_markdown_parse (markdown != NULL ? markdown : "", -1);
  lxw_row_t first = row;

  for (guint i = 0; i < blocks->len; i++)
    {
      const AssayMdBlock *block = g_ptr_array_index (blocks, i);

      if (row - first >= REPORT_XLSX_MAX_ANSWER_ROWS)
        {
          *cut = TRUE;
          break;
        }
      if (block->kind == ASSAY_MD_BLOCK_TABLE)
        {
          for (guint r = 0; block->rows != NULL && r < block->rows->len; r++)
            {
              GPtrArray *cells = g_ptr_array_index (block->rows, r);

              if (row - first >= REPORT_XLSX_MAX_ANSWER_ROWS)
                {
                  *cut = TRUE;
                  break;
                }
              for (guint c = 0; c < cells->len && column + c < LXW_COL_MAX; c++)
                {
                  g_autoptr(GString) cell = g_string_new (NULL);

                  assay_report_xlsx_append_spans (cell, g_ptr_array_index (cells, c));
                  if (r == 0)
                    assay_report_xlsx_write_text (sheet, row, column + c, cell->str, REPORT_XLSX_MAX_SHORT_TEXT,
                                                  self->header, cut);
                  else
                    assay_report_xlsx_write_value (self, sheet, row, column + c, cell->str, cut);
                }
              row++;
            }
        }
      else
        {
          g_autofree char *text = assay_report_xlsx_block_text (block);

          assay_report_xlsx_write_text (sheet, row, column, text, REPORT_XLSX_MAX_CELL_UNITS,
                                        block->kind == ASSAY_MD_BLOCK_HEADING ? self->heading :
                                        block->kind == ASSAY_MD_BLOCK_CODE ? self->code : self->wrap, cut);
          row++;
        }
    }
  return MAX (row, first + 1);
}

/* ---- sheets ------------------------------------------------------------------------------- */

/* The byte length of TEXT's first MAX_UNITS UTF-16 units. */
static gsize
assay_report_xlsx_prefix_length (const char *text,
                                 guint       max_units)
{
  const char *p = text;
  guint units = 0;

  while (*p != '\0')
    {
      guint width = g_utf8_get_char (p) > 0xffff ? 2 : 1;

      if (units + width > max_units)
        break;
      units += width;
      p = g_utf8_next_char (p);
    }
  return p - text;
}

/* A sheet name Excel takes, from WANTED: without []:*?/\ and control characters, at most 31
 * units, not starting or ending with an apostrophe, not "History", and unlike every name
 * given out before, whatever the case ("c3 table 1 (2)" otherwise). */
static char *
assay_report_xlsx_sheet_name (XlsxWriter *self,
                              const char *wanted)
{
  g_autofree char *clean = assay_report_xlsx_clean (wanted, 4 * REPORT_XLSX_MAX_SHEET_NAME, NULL);
  g_autoptr(GString) base = g_string_new (NULL);

  for (const char *p = clean; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x80 && strchr ("[]:*?/\\", (int) c) != NULL)
        c = '_';
      else if (c == '\n' || c == '\t')
        c = ' ';
      g_string_append_unichar (base, c);
    }
  while (base->len > 0 && (base->str[0] == '\'' || base->str[0] == ' '))
    g_string_erase (base, 0, 1);
  g_string_truncate (base, assay_report_xlsx_prefix_length (base->str, REPORT_XLSX_MAX_SHEET_NAME));
  while (base->len > 0 && (base->str[base->len - 1] == '\'' || base->str[base->len - 1] == ' '))
    g_string_truncate (base, base->len - 1);
  if (base->len == 0)
    g_string_assign (base, "Sheet");

  for (guint n = 1; n < G_MAXUINT; n++)
    {
      g_autofree char *suffix = n > 1 ? g_strdup_printf (" (%u)", n) : g_strdup ("");
      gsize keep = assay_report_xlsx_prefix_length (base->str, REPORT_XLSX_MAX_SHEET_NAME - strlen (suffix));
      g_autofree char *head = g_strndup (base->str, keep);
      g_autofree char *candidate = NULL;
      g_autofree char *key = NULL;

      g_strchomp (head);
      while (*head != '\0' && head[strlen (head) - 1] == '\'')
        head[strlen (head) - 1] = '\0';
      candidate = g_strconcat (*head != '\0' ? head : "Sheet", suffix, NULL);
      key = g_utf8_casefold (candidate, -1);
      if (g_hash_table_contains (self->sheet_names, key) || g_ascii_strcasecmp (candidate, "History") == 0 ||
          workbook_validate_sheet_name (self->workbook, candidate) != LXW_NO_ERROR)
        continue;
      g_hash_table_add (self->sheet_names, g_steal_pointer (&key));
      return g_steal_pointer (&candidate);
    }
  g_return_val_if_reached (NULL);
}

static lxw_worksheet *
assay_report_xlsx_add_sheet (XlsxWriter *self,
                             const char *name)
{
  lxw_worksheet *sheet = workbook_add_worksheet (self->workbook, name);

  if (sheet != NULL)
    worksheet_set_default_row (sheet, LXW_DEF_ROW_HEIGHT, LXW_FALSE);
  return sheet;
}

/* One sheet for one table of CELL's outputs: the header rows bold and frozen, an autofilter,
 * every body cell typed, the columns as wide as their texts (within reason). */
static void
assay_report_xlsx_write_table (XlsxWriter       *self,
                               const ReportCell *cell,
                               guint             number,
                               const AssayTable *table)
{
  g_autofree char *wanted = g_strdup_printf (_("%s table %u"), cell->id != NULL ? cell->id : "", number);
  g_autofree char *name = assay_report_xlsx_sheet_name (self, wanted);
  lxw_col_t n_columns = MIN (table->n_columns, LXW_COL_MAX);
  /* Excel's 1,048,576 rows, less the last ones, kept for the notes. */
  lxw_row_t n_rows = MIN (table->rows->len, LXW_ROW_MAX - 3);
  lxw_row_t n_header_rows = MIN (table->n_header_rows, n_rows);
  g_autofree guint *widths = g_new0 (guint, MAX (n_columns, 1));
  gboolean cut = FALSE;
  lxw_worksheet *sheet;
  TableSheet *entry;

  sheet = assay_report_xlsx_add_sheet (self, name);
  if (sheet == NULL)
    return;
  for (lxw_row_t r = 0; r < n_rows; r++)
    {
      GPtrArray *row = g_ptr_array_index (table->rows, r);

      for (lxw_col_t c = 0; c < n_columns; c++)
        {
          const char *text = c < row->len ? g_ptr_array_index (row, c) : "";
          guint width;

          if (r < n_header_rows)
            width = assay_report_xlsx_write_text (sheet, r, c, text, REPORT_XLSX_MAX_CELL_UNITS,
                                                  self->header, &cut) + 3;   /* the filter's button */
          else if (*text != '\0')
            width = assay_report_xlsx_write_value (self, sheet, r, c, text, &cut);
          else
            width = 0;
          widths[c] = MAX (widths[c], width);
        }
    }
  for (lxw_col_t c = 0; c < n_columns; c++)
    worksheet_set_column (sheet, c, c, CLAMP (widths[c] + 2, 8, REPORT_XLSX_MAX_COLUMN_WIDTH), NULL);
  if (n_header_rows > 0 && n_columns > 0)
    {
      worksheet_freeze_panes (sheet, n_header_rows, 0);
      worksheet_autofilter (sheet, n_header_rows - 1, 0, n_rows - 1, n_columns - 1);
    }
  if (table->truncated || table->rows->len > n_rows)
    {
      g_autofree char *note = g_strdup_printf (_("This table was cut: Assay keeps at most %u rows and %u columns "
                                                 "of a table and %u bytes of each cell."),
                                               ASSAY_TABLE_MAX_ROWS, ASSAY_TABLE_MAX_COLUMNS,
                                               ASSAY_TABLE_MAX_CELL);

      assay_report_xlsx_write_note (self, sheet, n_rows + 1, note);
    }
  if (cut)
    assay_report_xlsx_write_cut_note (self, sheet, n_rows + 2);

  entry = g_new0 (TableSheet, 1);
  entry->name = g_steal_pointer (&name);
  entry->cell_id = g_strdup (cell->id);
  entry->description = g_strdup (cell->description);
  g_ptr_array_add (self->tables, entry);
}

static gboolean
assay_report_xlsx_write_tables (XlsxWriter    *self,
                                GCancellable  *cancellable,
                                GError       **error)
{
  AssayReport *report = self->report;

  for (guint i = 0; i < report->cells->len; i++)
    {
      const ReportCell *cell = g_ptr_array_index (report->cells, i);
      guint number = 0;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      for (guint j = 0; j < json_array_get_length (cell->outputs); j++)
        {
          g_autoptr(AssayCellOutput) output = assay_cell_output_read (json_array_get_element (cell->outputs, j));
          g_autoptr(AssayTable) table = NULL;

          if (output == NULL || (table = report_output_table (output)) == NULL)
            continue;
          number++;
          if (self->tables->len >= REPORT_XLSX_MAX_TABLE_SHEETS)
            {
              self->n_tables_left_out++;
              continue;
            }
          assay_report_xlsx_write_table (self, cell, number, table);
        }
      assay_report_progress (report, 0.1 + 0.5 * (i + 1) / report->cells->len, _("Writing the workbook"));
    }
  return TRUE;
}

/* The density a PNG says it has (its pHYs chunk), as libxlsxwriter reads it: it draws an
 * image of 300 dpi at a third of its pixels. 96 without one. */
static void
assay_report_xlsx_png_dpi (GBytes *png,
                           double *x_dpi,
                           double *y_dpi)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (png, &size);
  gsize at = 8;

  *x_dpi = *y_dpi = 96;
  while (at + 12 <= size)
    {
      const guint8 *type = data + at + 4;
      guint32 length;

      memcpy (&length, data + at, sizeof length);
      length = GUINT32_FROM_BE (length);
      if (memcmp (type, "IDAT", 4) == 0 || memcmp (type, "IEND", 4) == 0 || length > size - at - 12)
        return;
      if (memcmp (type, "pHYs", 4) == 0 && length >= 9)
        {
          guint32 be[2];

          memcpy (be, data + at + 8, sizeof be);
          if (data[at + 16] == 1 && be[0] != 0 && be[1] != 0)
            {
              *x_dpi = GUINT32_FROM_BE (be[0]) * 0.0254;
              *y_dpi = GUINT32_FROM_BE (be[1]) * 0.0254;
            }
          if (*x_dpi < 1 || *y_dpi < 1)
            *x_dpi = *y_dpi = 96;
          return;
        }
      at += 12 + (gsize) length;
    }
}

static gboolean
assay_report_xlsx_write_figures (XlsxWriter    *self,
                                 const char    *name,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  AssayReport *report = self->report;
  lxw_worksheet *sheet = assay_report_xlsx_add_sheet (self, name);
  lxw_row_t row = 0;
  guint done = 0;

  if (sheet == NULL)
    return TRUE;
  worksheet_set_column (sheet, 0, 0, 80, NULL);
  for (guint i = 0; i < report->cells->len; i++)
    {
      const ReportCell *cell = g_ptr_array_index (report->cells, i);

      for (guint j = 0; j < cell->figures->len && row + 2 < LXW_ROW_MAX; j++)
        {
          const ReportFigure *figure = g_ptr_array_index (cell->figures, j);
          g_autoptr(GError) local_error = NULL;
          g_autoptr(GBytes) png = NULL;
          g_autofree char *caption = assay_report_xlsx_clean (figure->caption, REPORT_XLSX_MAX_SHORT_TEXT, NULL);
          guint width = 0, height = 0;
          double x_dpi, y_dpi, scale, shown_height;
          lxw_image_options options = { 0 };

          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            return FALSE;
          worksheet_write_string (sheet, row++, 0, caption, self->heading);
          png = report_figure_load (figure, &width, &height, &local_error);
          if (png != NULL)
            {
              assay_report_xlsx_png_dpi (png, &x_dpi, &y_dpi);
              scale = MIN (1.0, REPORT_XLSX_FIGURE_WIDTH / (width * 96.0 / x_dpi));
              shown_height = height * 96.0 / y_dpi * scale;
              options.x_scale = options.y_scale = scale;
              options.object_position = LXW_OBJECT_MOVE_DONT_SIZE;
              options.description = caption;
              if (worksheet_insert_image_buffer_opt (sheet, row, 0, g_bytes_get_data (png, NULL),
                                                     g_bytes_get_size (png), &options) == LXW_NO_ERROR)
                {
                  row += (lxw_row_t) MIN (ceil (shown_height / REPORT_XLSX_ROW_PIXELS) + 1, 10000);
                  done++;
                  continue;
                }
              g_set_error (&local_error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                           _("the image is not a PNG file"));
            }
          {
            g_autofree char *note = g_strdup_printf (_("The figure cannot be shown: %s."), local_error->message);

            assay_report_xlsx_write_note (self, sheet, row, note);
            row += 2;
          }
        }
      assay_report_progress (report, 0.6 + 0.2 * (i + 1) / report->cells->len, _("Writing the workbook"));
    }
  g_debug ("%u of %u figures in the workbook", done, report->n_figures);
  return TRUE;
}

static void
assay_report_xlsx_write_cells (XlsxWriter *self,
                               const char *name)
{
  AssayReport *report = self->report;
  lxw_worksheet *sheet = assay_report_xlsx_add_sheet (self, name);
  const char *columns[] = { "#", _("Cell"), _("Description"), _("Status"), _("Reason"), _("Time (ms)"),
                            report->options.include_code ? _("Code") : NULL, NULL };
  gboolean cut = FALSE;
  lxw_row_t row = 1;

  if (sheet == NULL)
    return;
  assay_report_xlsx_write_header (self, sheet, 0, columns);
  worksheet_set_column (sheet, 0, 0, 6, NULL);
  worksheet_set_column (sheet, 1, 1, 10, NULL);
  worksheet_set_column (sheet, 2, 2, 40, self->wrap);
  worksheet_set_column (sheet, 3, 3, 12, NULL);
  worksheet_set_column (sheet, 4, 4, 40, self->wrap);
  worksheet_set_column (sheet, 5, 5, 12, NULL);
  if (report->options.include_code)
    worksheet_set_column (sheet, 6, 6, 100, self->code);
  for (guint i = 0; i < report->cells->len && row < LXW_ROW_MAX - 2; i++, row++)
    {
      const ReportCell *cell = g_ptr_array_index (report->cells, i);

      worksheet_write_number (sheet, row, 0, cell->execution_count, assay_report_xlsx_number_format (self, "0"));
      assay_report_xlsx_write_text (sheet, row, 1, cell->id, REPORT_XLSX_MAX_SHORT_TEXT, self->wrap, &cut);
      assay_report_xlsx_write_text (sheet, row, 2, cell->description, REPORT_XLSX_MAX_SHORT_TEXT, self->wrap, &cut);
      assay_report_xlsx_write_text (sheet, row, 3, assay_cell_status_to_string (cell->status),
                                    REPORT_XLSX_MAX_SHORT_TEXT, self->wrap, &cut);
      assay_report_xlsx_write_text (sheet, row, 4, cell->status_reason, REPORT_XLSX_MAX_SHORT_TEXT, self->wrap, &cut);
      worksheet_write_number (sheet, row, 5, (double) cell->elapsed_ms, assay_report_xlsx_number_format (self, "#,##0"));
      if (report->options.include_code)
        assay_report_xlsx_write_text (sheet, row, 6, cell->code, REPORT_XLSX_MAX_CELL_UNITS, self->code, &cut);
    }
  worksheet_freeze_panes (sheet, 1, 0);
  worksheet_autofilter (sheet, 0, 0, row - 1, report->options.include_code ? 6 : 5);
  if (cut)
    assay_report_xlsx_write_cut_note (self, sheet, row + 1);
}

/* ---- the audit trail ---------------------------------------------------------------------- */

static void
assay_report_xlsx_write_time (XlsxWriter    *self,
                              lxw_worksheet *sheet,
                              lxw_row_t      row,
                              lxw_col_t      column,
                              gint64         usec)
{
  g_autoptr(GDateTime) time = usec > 0 ? g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC) : NULL;
  lxw_datetime datetime;

  if (time == NULL)
    return;
  datetime.year = g_date_time_get_year (time);
  datetime.month = g_date_time_get_month (time);
  datetime.day = g_date_time_get_day_of_month (time);
  datetime.hour = g_date_time_get_hour (time);
  datetime.min = g_date_time_get_minute (time);
  datetime.sec = g_date_time_get_second (time);
  worksheet_write_datetime (sheet, row, column, &datetime, self->datetime);
}

/* Every proposal, a row each: what was decided, by whom, when, why, and the code. */
static void
assay_report_xlsx_write_audit (XlsxWriter *self,
                               const char *name)
{
  AssayReport *report = self->report;
  lxw_worksheet *sheet = assay_report_xlsx_add_sheet (self, name);
  const char *columns[] = { _("Cell"), _("Question"), _("Step"), _("Description"), _("Proposed"),
                            _("Decision"), _("By"), _("Decided"), _("Reason"), _("Code as proposed"),
                            _("Change"), NULL };
  lxw_col_t change_column = report->options.include_code ? 10 : 9;
  gboolean cut = FALSE;
  lxw_row_t row = 1;

  if (sheet == NULL)
    return;
  if (!report->options.include_code)
    {
      /* The change is then said in words, without the code. */
      columns[9] = columns[10];
      columns[10] = NULL;
    }
  assay_report_xlsx_write_header (self, sheet, 0, columns);
  worksheet_set_column (sheet, 0, 0, 8, NULL);
  worksheet_set_column (sheet, 1, 2, 9, NULL);
  worksheet_set_column (sheet, 3, 3, 36, self->wrap);
  worksheet_set_column (sheet, 4, 4, 20, NULL);
  worksheet_set_column (sheet, 5, 5, 18, NULL);
  worksheet_set_column (sheet, 6, 6, 18, NULL);
  worksheet_set_column (sheet, 7, 7, 20, NULL);
  worksheet_set_column (sheet, 8, 8, 40, self->wrap);
  if (report->options.include_code)
    worksheet_set_column (sheet, 9, 10, 70, self->code);
  else
    worksheet_set_column (sheet, 9, 9, 40, self->wrap);
  for (guint i = 0; i < report->proposals->len && row < LXW_ROW_MAX - 2; i++, row++)
    {
      const ReportProposal *proposal = g_ptr_array_index (report->proposals, i);
      const char *decision, *by = NULL;

      switch (proposal->decision)
        {
        case ASSAY_DECISION_AUTO:
          decision = _("run without asking");
          by = _("automatic approval");
          break;
        case ASSAY_DECISION_HOSTED:
          decision = _("run on OpenAI without approval");
          by = _("OpenAI's hosted code interpreter");
          break;
        case ASSAY_DECISION_APPROVED:
          decision = _("approved");
          by = _("the analyst");
          break;
        case ASSAY_DECISION_EDITED:
          decision = _("edited, then run");
          by = _("the analyst");
          break;
        case ASSAY_DECISION_REJECTED:
          decision = _("rejected");
          by = _("the analyst");
          break;
        case ASSAY_DECISION_PENDING:
        default:
          decision = _("never decided");
          break;
        }
      assay_report_xlsx_write_text (sheet, row, 0, proposal->id, REPORT_XLSX_MAX_SHORT_TEXT, NULL, &cut);
      worksheet_write_number (sheet, row, 1, proposal->question, assay_report_xlsx_number_format (self, "0"));
      worksheet_write_number (sheet, row, 2, proposal->step, assay_report_xlsx_number_format (self, "0"));
      assay_report_xlsx_write_text (sheet, row, 3, proposal->description, REPORT_XLSX_MAX_SHORT_TEXT, self->wrap, &cut);
      assay_report_xlsx_write_time (self, sheet, row, 4, proposal->proposed_at);
      assay_report_xlsx_write_text (sheet, row, 5, decision, REPORT_XLSX_MAX_SHORT_TEXT, NULL, &cut);
      assay_report_xlsx_write_text (sheet, row, 6, by, REPORT_XLSX_MAX_SHORT_TEXT, NULL, &cut);
      assay_report_xlsx_write_time (self, sheet, row, 7, proposal->decided_at);
      assay_report_xlsx_write_text (sheet, row, 8, proposal->reason, REPORT_XLSX_MAX_SHORT_TEXT, self->wrap, &cut);
      if (report->options.include_code)
        {
          assay_report_xlsx_write_text (sheet, row, 9, proposal->proposed_code, REPORT_XLSX_MAX_CELL_UNITS,
                                        self->code, &cut);
          assay_report_xlsx_write_text (sheet, row, change_column, proposal->diff, REPORT_XLSX_MAX_CELL_UNITS,
                                        self->code, &cut);
        }
      else if (proposal->diff != NULL)
        {
          g_autofree char *note = report_proposal_changed_note (proposal);

          assay_report_xlsx_write_text (sheet, row, change_column, note, REPORT_XLSX_MAX_SHORT_TEXT, self->wrap, &cut);
        }
    }
  worksheet_freeze_panes (sheet, 1, 0);
  worksheet_autofilter (sheet, 0, 0, row - 1, change_column);
  if (cut)
    assay_report_xlsx_write_cut_note (self, sheet, row + 1);
}

/* ---- the summary -------------------------------------------------------------------------- */

/* The decimals VALUE has (up to 6): 1234 → 0, 66.7 → 1. */
static guint
assay_report_xlsx_decimals (double value)
{
  for (guint decimals = 0; decimals < 6; decimals++)
    {
      double scaled = value * pow (10, decimals);

      if (fabs (scaled - round (scaled)) < 1e-7 * MAX (1.0, fabs (scaled)))
        return decimals;
    }
  return 6;
}

static char *
assay_report_xlsx_grouped_format (guint       decimals,
                                  const char *sign)
{
  g_autoptr(GString) format = g_string_new ("#,##0");

  if (decimals > 0)
    {
      g_string_append_c (format, '.');
      for (guint i = 0; i < decimals; i++)
        g_string_append_c (format, '0');
    }
  if (sign == NULL)
    return g_string_free (g_steal_pointer (&format), FALSE);
  /* "+1,234.5", "-1,234.5", "0" */
  return g_strdup_printf ("%s%s;-%s;0", sign, format->str, format->str);
}

static lxw_row_t
assay_report_xlsx_write_changes (XlsxWriter    *self,
                                 lxw_worksheet *sheet,
                                 lxw_row_t      row,
                                 gboolean      *cut)
{
  AssayReport *report = self->report;
  g_autofree char *intro = report_changes_intro (report);
  const char *columns[] = { _("Question"), _("Number"), _("Before"), _("After"), _("Change"), _("Change %"), _("Cell"),
                            _("In the answer"), NULL };

  worksheet_write_string (sheet, row++, 0, report_changes_title (), self->heading);
  assay_report_xlsx_write_text (sheet, row++, 0, intro, REPORT_XLSX_MAX_CELL_UNITS, NULL, cut);
  for (guint i = 0; i < report->rerun_notes->len; i++)
    assay_report_xlsx_write_text (sheet, row++, 0, g_ptr_array_index (report->rerun_notes, i),
                                  REPORT_XLSX_MAX_SHORT_TEXT, NULL, cut);
  if (report->changes->len == 0)
    return row + 1;
  assay_report_xlsx_write_header (self, sheet, row++, columns);
  for (guint i = 0; i < report->changes->len && row < LXW_ROW_MAX - 4; i++, row++)
    {
      const AssaySessionChange *change = g_ptr_array_index (report->changes, i);
      guint decimals = MAX (assay_report_xlsx_decimals (change->before), assay_report_xlsx_decimals (change->after));
      g_autofree char *plain = assay_report_xlsx_grouped_format (decimals, NULL);
      g_autofree char *signed_format = assay_report_xlsx_grouped_format (decimals, "+");
      double percent;

      g_autofree char *label = report_change_label (change);

      worksheet_write_number (sheet, row, 0, change->question, assay_report_xlsx_number_format (self, "0"));
      assay_report_xlsx_write_text (sheet, row, 1, label, REPORT_XLSX_MAX_SHORT_TEXT, NULL, cut);
      worksheet_write_number (sheet, row, 2, change->before, assay_report_xlsx_number_format (self, plain));
      worksheet_write_number (sheet, row, 3, change->after, assay_report_xlsx_number_format (self, plain));
      if (change->stale)
        {
          g_autofree char *stale = report_change_delta (change);
          g_autofree char *dash = report_change_percent (change);

          assay_report_xlsx_write_text (sheet, row, 4, stale, REPORT_XLSX_MAX_SHORT_TEXT, NULL, cut);
          assay_report_xlsx_write_text (sheet, row, 5, dash, REPORT_XLSX_MAX_SHORT_TEXT, NULL, cut);
        }
      else
        {
          worksheet_write_number (sheet, row, 4, change->after - change->before,
                                  assay_report_xlsx_number_format (self, signed_format));
          if (assay_session_change_percent (change, &percent))
            worksheet_write_number (sheet, row, 5, percent / 100.0,
                                    assay_report_xlsx_number_format (self, "+0.0%;-0.0%;0.0%"));
          else
            {
              g_autofree char *dash = report_change_percent (change);

              assay_report_xlsx_write_text (sheet, row, 5, dash, REPORT_XLSX_MAX_SHORT_TEXT, NULL, cut);
            }
        }
      if (change->cell_id != NULL)
        assay_report_xlsx_write_text (sheet, row, 6, change->cell_id, REPORT_XLSX_MAX_SHORT_TEXT, NULL, cut);
      if (change->sentence != NULL)
        assay_report_xlsx_write_text (sheet, row, 7, change->sentence, REPORT_XLSX_MAX_SHORT_TEXT, NULL, cut);
    }
  return row + 1;
}

static void
assay_report_xlsx_write_summary (XlsxWriter    *self,
                                 lxw_worksheet *sheet)
{
  AssayReport *report = self->report;
  g_autofree char *date = report_format_date (report->created);
  gboolean cut = FALSE;
  lxw_row_t row = 0;

  worksheet_set_column (sheet, 0, 0, 28, NULL);
  worksheet_set_column (sheet, 1, 1, 60, NULL);
  worksheet_set_column (sheet, 2, 2, 80, NULL);
  worksheet_set_column (sheet, 3, 5, 14, NULL);

  assay_report_xlsx_write_text (sheet, row++, 0, report->title, REPORT_XLSX_MAX_SHORT_TEXT, self->title, &cut);
  worksheet_write_string (sheet, row++, 0, date, NULL);
  if (report->ran_in != NULL)
    {
      g_autofree char *line = g_strdup_printf (_("The code ran in %s."), report->ran_in);

      assay_report_xlsx_write_text (sheet, row++, 0, line, REPORT_XLSX_MAX_SHORT_TEXT, NULL, &cut);
    }
  row++;

  if (report->datasets->len > 0)
    {
      const char *columns[] = { _("Dataset"), _("Rows"), "SHA-256", _("Note"), NULL };

      worksheet_write_string (sheet, row++, 0, _("Data"), self->heading);
      assay_report_xlsx_write_header (self, sheet, row++, columns);
      for (guint i = 0; i < report->datasets->len && row < 10000; i++, row++)
        {
          const ReportDataset *dataset = g_ptr_array_index (report->datasets, i);

          assay_report_xlsx_write_text (sheet, row, 0, dataset->name, REPORT_XLSX_MAX_SHORT_TEXT, NULL, &cut);
          if (dataset->rows >= 0)
            worksheet_write_number (sheet, row, 1, (double) dataset->rows,
                                    assay_report_xlsx_number_format (self, "#,##0"));
          if (dataset->sha256 != NULL)
            assay_report_xlsx_write_text (sheet, row, 2, dataset->sha256, 64, NULL, &cut);
          if (dataset->changed)
            worksheet_write_string (sheet, row, 3,
                                    _("changed on disk since it was added to the session: the results may not match it"),
                                    NULL);
        }
      row++;
    }

  if (report->questions->len > 0)
    {
      const char *columns[] = { "#", _("Question"), _("Answer"), NULL };

      worksheet_write_string (sheet, row++, 0, _("Questions"), self->heading);
      assay_report_xlsx_write_header (self, sheet, row++, columns);
      for (guint i = 0; i < report->questions->len && row < LXW_ROW_MAX / 2; i++, row++)
        {
          const ReportQuestion *question = g_ptr_array_index (report->questions, i);
          lxw_row_t next = row;

          worksheet_write_number (sheet, row, 0, question->number, assay_report_xlsx_number_format (self, "0"));
          assay_report_xlsx_write_text (sheet, row, 1, question->text, REPORT_XLSX_MAX_CELL_UNITS, self->wrap, &cut);
          /* The answer beside its question, a block a row. */
          for (guint j = 0; j < question->items->len; j++)
            {
              const ReportItem *item = g_ptr_array_index (question->items, j);

              if (item->kind == REPORT_ITEM_ANSWER)
                next = assay_report_xlsx_write_answer (self, sheet, next, 2, item->text, &cut);
            }
          row = MAX (next, row + 1) - 1;
        }
      row++;
    }

  if (report->rerun_of_title != NULL)
    row = assay_report_xlsx_write_changes (self, sheet, row, &cut);

  if (self->tables->len > 0)
    {
      const char *columns[] = { _("Sheet"), _("Cell"), _("Description"), NULL };

      worksheet_write_string (sheet, row++, 0, _("Tables"), self->heading);
      assay_report_xlsx_write_header (self, sheet, row++, columns);
      for (guint i = 0; i < self->tables->len && row < LXW_ROW_MAX - 4; i++, row++)
        {
          const TableSheet *entry = g_ptr_array_index (self->tables, i);

          worksheet_write_string (sheet, row, 0, entry->name, NULL);
          assay_report_xlsx_write_text (sheet, row, 1, entry->cell_id, REPORT_XLSX_MAX_SHORT_TEXT, NULL, &cut);
          assay_report_xlsx_write_text (sheet, row, 2, entry->description, REPORT_XLSX_MAX_SHORT_TEXT, NULL, &cut);
        }
      if (self->n_tables_left_out > 0)
        {
          g_autofree char *note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                                "%u more table was left out: a workbook holds %u of them.",
                                                                "%u more tables were left out: a workbook holds %u of them.",
                                                                self->n_tables_left_out),
                                                   self->n_tables_left_out, REPORT_XLSX_MAX_TABLE_SHEETS);

          assay_report_xlsx_write_note (self, sheet, row++, note);
        }
      row++;
    }
  if (cut)
    assay_report_xlsx_write_cut_note (self, sheet, row);
}

/* ---- the workbook ------------------------------------------------------------------------- */

static void
assay_report_xlsx_add_formats (XlsxWriter *self)
{
  self->title = workbook_add_format (self->workbook);
  format_set_bold (self->title);
  format_set_font_size (self->title, 16);
  self->heading = workbook_add_format (self->workbook);
  format_set_bold (self->heading);
  format_set_font_size (self->heading, 13);
  self->header = workbook_add_format (self->workbook);
  format_set_bold (self->header);
  format_set_pattern (self->header, LXW_PATTERN_SOLID);
  format_set_bg_color (self->header, 0xDDE6F0);
  format_set_bottom (self->header, LXW_BORDER_THIN);
  format_set_align (self->header, LXW_ALIGN_VERTICAL_TOP);
  self->wrap = workbook_add_format (self->workbook);
  format_set_text_wrap (self->wrap);
  format_set_align (self->wrap, LXW_ALIGN_VERTICAL_TOP);
  self->code = workbook_add_format (self->workbook);
  format_set_text_wrap (self->code);
  format_set_align (self->code, LXW_ALIGN_VERTICAL_TOP);
  format_set_font_name (self->code, "Courier New");
  self->note = workbook_add_format (self->workbook);
  format_set_italic (self->note);
  format_set_font_color (self->note, 0x595959);
  self->date = workbook_add_format (self->workbook);
  format_set_num_format (self->date, "yyyy-mm-dd");
  format_set_align (self->date, LXW_ALIGN_VERTICAL_TOP);
  self->datetime = workbook_add_format (self->workbook);
  format_set_num_format (self->datetime, "yyyy-mm-dd hh:mm:ss");
  format_set_align (self->datetime, LXW_ALIGN_VERTICAL_TOP);
}

/* Every sheet, in the workbook at PATH. The workbook is closed (written) or freed. */
static gboolean
assay_report_xlsx_write_workbook (AssayReport   *report,
                                  const char    *path,
                                  const char    *tmpdir,
                                  GCancellable  *cancellable,
                                  GError       **error)
{
  lxw_workbook_options options = { .constant_memory = LXW_FALSE, .tmpdir = (char *) tmpdir,
                                   .use_zip64 = LXW_FALSE };
  g_autofree char *title = assay_report_xlsx_clean (report->title, 255, NULL);
  g_autofree char *comments = g_strdup_printf ("Assay %s", PACKAGE_VERSION);
  lxw_doc_properties properties = { .title = title, .comments = comments };
  g_autofree char *figures_name = NULL;
  g_autofree char *cells_name = NULL;
  g_autofree char *audit_name = NULL;
  XlsxWriter self = { 0 };
  lxw_worksheet *summary;
  lxw_error status;
  gboolean ok = FALSE;
  int saved_errno;

  self.report = report;
  self.workbook = workbook_new_opt (path, &options);
  if (self.workbook == NULL)
    {
      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                   _("The workbook could not be started in %s"), tmpdir);
      return FALSE;
    }
  self.sheet_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self.number_formats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self.tables = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_report_xlsx_table_sheet_free);
  assay_report_xlsx_add_formats (&self);
  workbook_set_properties (self.workbook, &properties);

  /* The fixed sheets' names are taken first, so a cell's tables never take them. */
  {
    g_autofree char *summary_name = assay_report_xlsx_sheet_name (&self, _("Summary"));

    figures_name = assay_report_xlsx_sheet_name (&self, _("Figures"));
    cells_name = assay_report_xlsx_sheet_name (&self, _("Cells"));
    audit_name = assay_report_xlsx_sheet_name (&self, _("Audit Trail"));
    summary = assay_report_xlsx_add_sheet (&self, summary_name);
  }
  assay_report_progress (report, 0.1, _("Writing the workbook"));
  if (summary != NULL && assay_report_xlsx_write_tables (&self, cancellable, error) &&
      (report->n_figures == 0 || assay_report_xlsx_write_figures (&self, figures_name, cancellable, error)))
    {
      if (report->cells->len > 0)
        assay_report_xlsx_write_cells (&self, cells_name);
      if (report->proposals->len > 0)
        assay_report_xlsx_write_audit (&self, audit_name);
      assay_report_xlsx_write_summary (&self, summary);
      ok = !g_cancellable_set_error_if_cancelled (cancellable, error);
    }
  else if (summary == NULL)
    g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                 _("The workbook could not be started in %s"), tmpdir);

  g_hash_table_unref (self.sheet_names);
  g_hash_table_unref (self.number_formats);
  g_ptr_array_unref (self.tables);
  if (!ok)
    {
      lxw_workbook_free (self.workbook);
      return FALSE;
    }

  assay_report_progress (report, 0.85, _("Writing the workbook"));
  errno = 0;
  status = workbook_close (self.workbook);
  saved_errno = errno;
  if (status != LXW_NO_ERROR)
    {
      g_autofree char *parent = g_path_get_dirname (tmpdir);
      struct statvfs fs;
      gboolean full = saved_errno == ENOSPC || saved_errno == EDQUOT ||
                      (statvfs (tmpdir, &fs) == 0 && (guint64) fs.f_bavail * fs.f_frsize < 1024 * 1024);

      if (full)
        g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                     _("The disk is full: the workbook could not be written in %s"), parent);
      else
        g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                     _("The workbook could not be written in %s: %s"), parent, lxw_strerror (status));
      return FALSE;
    }
  return TRUE;
}

gboolean
assay_report_write_xlsx (AssayReport   *report,
                         GOutputStream *out,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *tmpdir = NULL;
  g_autofree char *path = NULL;
  gboolean ok = FALSE;
  int fd;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  /* A folder of our own (0700) in the temporary folder: the workbook and libxlsxwriter's
   * pieces of it are no one else's to read. */
  tmpdir = g_dir_make_tmp ("assay-xlsx-XXXXXX", &local_error);
  if (tmpdir == NULL)
    {
      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                   _("The workbook needs a temporary folder: %s"), local_error->message);
      return FALSE;
    }
  path = g_build_filename (tmpdir, "report.xlsx", NULL);
  fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                   _("The workbook could not be written in %s: %s"), tmpdir, g_strerror (saved));
      g_rmdir (tmpdir);
      return FALSE;
    }
  close (fd);

  if (assay_report_xlsx_write_workbook (report, path, tmpdir, cancellable, error))
    {
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GFileInputStream) in = g_file_read (file, cancellable, error);

      assay_report_progress (report, 0.95, _("Writing the workbook"));
      ok = in != NULL &&
           g_output_stream_splice (out, G_INPUT_STREAM (in), G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE,
                                   cancellable, error) >= 0;
    }
  g_unlink (path);
  g_rmdir (tmpdir);
  return ok;
}
