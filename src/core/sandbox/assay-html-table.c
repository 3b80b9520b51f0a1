/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <string.h>

#include "assay-html-table.h"

typedef struct
{
  AssayTable *table;
  GPtrArray  *row;            /* the open row, or NULL */
  GString    *cell;           /* the open cell's text, or NULL */
  gboolean    cell_is_header;
  gboolean    row_all_header;
  gboolean    in_head;
  gboolean    leading_header; /* still in the leading rows made of <th> only */
  guint       head_rows;
  guint       depth;          /* nested tables: only the outermost is read */
} Extractor;

void
assay_table_free (AssayTable *table)
{
  if (table == NULL)
    return;
  g_ptr_array_unref (table->rows);
  g_free (table);
}

static void
assay_html_table_cell_append (Extractor  *extractor,
                              const char *text,
                              gsize       length)
{
  GString *cell = extractor->cell;

  if (cell == NULL)
    return;
  for (gsize i = 0; i < length; i++)
    {
      char c = text[i];

      if (cell->len >= ASSAY_TABLE_MAX_CELL)
        {
          extractor->table->truncated = TRUE;
          return;
        }
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f')
        {
          if (cell->len > 0 && cell->str[cell->len - 1] != ' ')
            g_string_append_c (cell, ' ');
        }
      else if (c != '\0')
        g_string_append_c (cell, c);
    }
}

static void
assay_html_table_close_cell (Extractor *extractor)
{
  GString *cell = extractor->cell;
  char *text;

  if (cell == NULL)
    return;
  extractor->cell = NULL;
  if (cell->len > 0 && cell->str[cell->len - 1] == ' ')
    g_string_truncate (cell, cell->len - 1);
  text = g_utf8_make_valid (cell->str, cell->len);
  g_string_free (cell, TRUE);
  /* Each invalid byte became a three-byte U+FFFD: cut again, on a character. */
  if (strlen (text) > ASSAY_TABLE_MAX_CELL)
    {
      *g_utf8_find_prev_char (text, text + ASSAY_TABLE_MAX_CELL + 1) = '\0';
      extractor->table->truncated = TRUE;
    }
  if (extractor->row == NULL || extractor->row->len >= ASSAY_TABLE_MAX_COLUMNS)
    {
      extractor->table->truncated = TRUE;
      g_free (text);
      return;
    }
  g_ptr_array_add (extractor->row, text);
  if (!extractor->cell_is_header)
    extractor->row_all_header = FALSE;
}

static void
assay_html_table_close_row (Extractor *extractor)
{
  assay_html_table_close_cell (extractor);
  if (extractor->row == NULL)
    return;
  if (extractor->row->len == 0)
    g_ptr_array_unref (extractor->row);
  else
    {
      AssayTable *table = extractor->table;

      table->n_columns = MAX (table->n_columns, extractor->row->len);
      if (extractor->in_head)
        extractor->head_rows++;
      if (!(extractor->leading_header && extractor->row_all_header))
        extractor->leading_header = FALSE;
      else if (!extractor->in_head && extractor->head_rows == 0)
        table->n_header_rows++;
      g_ptr_array_add (table->rows, extractor->row);
    }
  extractor->row = NULL;
}

static void
assay_html_table_open_row (Extractor *extractor)
{
  assay_html_table_close_row (extractor);
  if (extractor->table->rows->len >= ASSAY_TABLE_MAX_ROWS)
    {
      extractor->table->truncated = TRUE;
      return;
    }
  extractor->row = g_ptr_array_new_with_free_func (g_free);
  extractor->row_all_header = TRUE;
}

static void
assay_html_table_open_cell (Extractor *extractor,
                            gboolean   header)
{
  assay_html_table_close_cell (extractor);
  if (extractor->row == NULL)
    {
      /* A cell outside a row starts one, as browsers do; none after the row cap. */
      if (extractor->table->rows->len >= ASSAY_TABLE_MAX_ROWS)
        return;
      assay_html_table_open_row (extractor);
    }
  extractor->cell = g_string_new (NULL);
  extractor->cell_is_header = header;
}

/* &amp; &lt; &gt; &quot; &#39; &#NNN; &#xHH; &nbsp; — others stay as written. Returns the
 * bytes consumed. */
static gsize
assay_html_table_decode_entity (Extractor  *extractor,
                                const char *p,
                                const char *end)
{
  static const struct { const char *name; const char *value; } named[] = {
    { "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" }, { "apos", "'" },
    { "nbsp", " " }, { "minus", "\xe2\x88\x92" }, { "hellip", "\xe2\x80\xa6" },
  };
  const char *semi;
  gsize name_len;

  for (semi = p + 1; semi < end && semi - p <= 10 && *semi != ';'; semi++)
    ;
  if (semi >= end || *semi != ';')
    {
      assay_html_table_cell_append (extractor, "&", 1);
      return 1;
    }
  name_len = semi - (p + 1);
  if (name_len >= 2 && p[1] == '#')
    {
      gboolean hex = p[2] == 'x' || p[2] == 'X';
      g_autofree char *digits = g_strndup (p + (hex ? 3 : 2), semi - p - (hex ? 3 : 2));
      char *digits_end = NULL;
      guint64 value = g_ascii_strtoull (digits, &digits_end, hex ? 16 : 10);
      char utf8[8];
      int n;

      if (*digits == '\0' || digits_end == NULL || *digits_end != '\0' || value == 0
          || value > 0x10ffff || !g_unichar_validate ((gunichar) value))
        value = 0xfffd;
      n = g_unichar_to_utf8 ((gunichar) value, utf8);
      assay_html_table_cell_append (extractor, utf8, n);
      return semi - p + 1;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (named); i++)
    if (strlen (named[i].name) == name_len && strncmp (p + 1, named[i].name, name_len) == 0)
      {
        assay_html_table_cell_append (extractor, named[i].value, strlen (named[i].value));
        return semi - p + 1;
      }
  assay_html_table_cell_append (extractor, p, semi - p + 1);
  return semi - p + 1;
}

/* Case-insensitive search for NEEDLE in [P, END). */
static const char *
assay_html_table_find_ci (const char *p,
                          const char *end,
                          const char *needle)
{
  gsize n = strlen (needle);

  for (; p + n <= end; p++)
    if (g_ascii_strncasecmp (p, needle, n) == 0)
      return p;
  return NULL;
}

AssayTable *
assay_html_table_extract (const char *html,
                          gsize       length)
{
  Extractor extractor = { 0 };
  const char *p = html, *end = html + length;
  gboolean started = FALSE, finished = FALSE;

  if (html == NULL)
    return NULL;
  extractor.table = g_new0 (AssayTable, 1);
  extractor.table->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  extractor.leading_header = TRUE;

  while (p < end && !finished)
    {
      if (*p == '&' && started)
        {
          p += assay_html_table_decode_entity (&extractor, p, end);
          continue;
        }
      if (*p != '<')
        {
          const char *next = memchr (p, '<', end - p);
          const char *amp;

          if (next == NULL)
            next = end;
          amp = started ? memchr (p, '&', next - p) : NULL;
          if (amp)
            next = amp;
          if (started)
            assay_html_table_cell_append (&extractor, p, next - p);
          p = next;
          continue;
        }

      /* A tag, a comment or a stray '<'. */
      if (end - p >= 4 && strncmp (p, "<!--", 4) == 0)
        {
          const char *close = assay_html_table_find_ci (p + 4, end, "-->");

          p = close ? close + 3 : end;
          continue;
        }
      {
        const char *q = p + 1;
        gboolean closing = FALSE;
        char name[12];
        gsize name_len = 0;
        char quote = 0;

        if (q < end && *q == '/')
          closing = TRUE, q++;
        while (q < end && g_ascii_isalnum (*q))
          {
            if (name_len < sizeof name - 1)
              name[name_len++] = g_ascii_tolower (*q);
            q++;
          }
        name[name_len] = '\0';
        if (name_len == 0)
          {
            if (started)
              assay_html_table_cell_append (&extractor, "<", 1);
            p++;
            continue;
          }
        /* Skip the attributes, minding quotes. */
        for (; q < end; q++)
          {
            if (quote)
              {
                if (*q == quote)
                  quote = 0;
              }
            else if (*q == '"' || *q == '\'')
              quote = *q;
            else if (*q == '>')
              break;
          }
        p = q < end ? q + 1 : end;

        if (!closing && (g_str_equal (name, "script") || g_str_equal (name, "style")))
          {
            g_autofree char *close_tag = g_strconcat ("</", name, NULL);
            const char *close = assay_html_table_find_ci (p, end, close_tag);
            const char *gt = close ? memchr (close, '>', end - close) : NULL;

            p = gt ? gt + 1 : end;
            continue;
          }

        if (g_str_equal (name, "table"))
          {
            if (!closing)
              {
                if (started)
                  extractor.depth++;
                started = TRUE;
              }
            else if (started)
              {
                if (extractor.depth == 0)
                  finished = TRUE;
                else
                  extractor.depth--;
              }
            continue;
          }
        if (!started || extractor.depth > 0)
          {
            if (started && g_str_equal (name, "br"))
              assay_html_table_cell_append (&extractor, " ", 1);
            continue;
          }
        if (g_str_equal (name, "thead"))
          {
            if (closing)
              assay_html_table_close_row (&extractor);
            extractor.in_head = !closing;
          }
        else if (g_str_equal (name, "tr"))
          {
            if (closing)
              assay_html_table_close_row (&extractor);
            else
              assay_html_table_open_row (&extractor);
          }
        else if (g_str_equal (name, "th") || g_str_equal (name, "td"))
          {
            if (closing)
              assay_html_table_close_cell (&extractor);
            else
              assay_html_table_open_cell (&extractor, name[1] == 'h');
          }
        else if (g_str_equal (name, "br"))
          assay_html_table_cell_append (&extractor, " ", 1);
        else if (g_str_equal (name, "tbody") || g_str_equal (name, "tfoot"))
          assay_html_table_close_row (&extractor);
      }
    }
  assay_html_table_close_row (&extractor);

  if (extractor.head_rows > 0)
    extractor.table->n_header_rows = extractor.head_rows;
  extractor.table->n_header_rows = MIN (extractor.table->n_header_rows, extractor.table->rows->len);
  if (extractor.table->rows->len == 0)
    {
      assay_table_free (extractor.table);
      return NULL;
    }
  return extractor.table;
}
