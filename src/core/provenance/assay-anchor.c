/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Provenance"

#include "config.h"

#include <string.h>

#include "assay-anchor.h"
#include "assay-number.h"

typedef struct
{
  guint text;         /* which text */
  guint line;         /* from 1, in that text */
  guint start;        /* bytes in the text */
  guint length;
  guint first_number; /* in numbers */
  guint n_numbers;
  guint block_first;  /* the index (in lines) of the first line of its block: no blank line between */
} Line;

struct _AssayAnchorTexts
{
  GPtrArray  *texts;     /* char*, may hold NULL */
  GArray     *lines;     /* Line, every text's in order */
  GArray     *numbers;   /* AssayNumber, spans in bytes of their line */
  GHashTable *labels;    /* level-0 label → count (lazy) */
  GPtrArray  *label_of;  /* char*: each line's level-0 label (lazy) */
  gboolean    cells;     /* lines are a table's rows, cells two spaces apart (text/html) */
};

static gboolean
is_blank (const char *s,
          gsize       length)
{
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_isspace (s[i]))
      return FALSE;
  return TRUE;
}

AssayAnchorTexts *
assay_anchor_texts_new (const char * const *texts,
                        guint               n,
                        gboolean            cells)
{
  AssayAnchorTexts *self = g_new0 (AssayAnchorTexts, 1);

  self->cells = cells;
  self->texts = g_ptr_array_new_with_free_func (g_free);
  self->lines = g_array_new (FALSE, FALSE, sizeof (Line));
  self->numbers = g_array_new (FALSE, FALSE, sizeof (AssayNumber));
  for (guint t = 0; t < n; t++)
    {
      const char *text = texts[t];
      gsize at = 0, length;
      guint number = 1, block_first = G_MAXUINT;

      g_ptr_array_add (self->texts, g_strdup (text));
      if (text == NULL)
        continue;
      length = strlen (text);
      while (at < length)
        {
          const char *end = memchr (text + at, '\n', length - at);
          gsize line_length = end != NULL ? (gsize) (end - (text + at)) : length - at;
          Line line = { t, number++, (guint) at, (guint) line_length, self->numbers->len, 0, 0 };

          if (line_length > 0 && text[at + line_length - 1] == '\r')
            line.length--;
          if (is_blank (text + at, line.length))
            block_first = G_MAXUINT;
          else if (block_first == G_MAXUINT)
            block_first = self->lines->len;
          line.block_first = block_first == G_MAXUINT ? self->lines->len : block_first;
          assay_number_scan (text + at, line.length, ASSAY_NUMBER_SCAN_OUTPUT, 0, self->numbers);
          line.n_numbers = self->numbers->len - line.first_number;
          g_array_append_val (self->lines, line);
          at += line_length + 1;
        }
    }
  return self;
}

void
assay_anchor_texts_free (AssayAnchorTexts *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->texts);
  g_array_unref (self->lines);
  g_array_unref (self->numbers);
  g_clear_pointer (&self->labels, g_hash_table_unref);
  g_clear_pointer (&self->label_of, g_ptr_array_unref);
  g_free (self);
}

void
assay_anchor_match_clear (AssayAnchorMatch *match)
{
  g_clear_pointer (&match->line_text, g_free);
}

static const char *
line_start (AssayAnchorTexts *self,
            const Line       *line)
{
  return (const char *) g_ptr_array_index (self->texts, line->text) + line->start;
}

static const AssayNumber *
nth_number (AssayAnchorTexts *self,
            const Line       *line,
            guint             k)
{
  return &g_array_index (self->numbers, AssayNumber, line->first_number + k);
}

/* Appends S to OUT with runs of spaces made one (a leading one dropped). */
static void
append_collapsed (GString    *out,
                  const char *s,
                  gsize       length)
{
  for (gsize i = 0; i < length; i++)
    {
      if (g_ascii_isspace (s[i]))
        {
          if (out->len > 0 && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
        }
      else
        g_string_append_c (out, s[i]);
    }
}

static gboolean
is_whole (const AssayNumber *number)
{
  return number->decimals == 0 &&
         (number->flags & (ASSAY_NUMBER_EXPONENT | ASSAY_NUMBER_MAGNITUDE | ASSAY_NUMBER_PERCENT)) == 0;
}

static gsize
digits (const char *s,
        gsize       at,
        gsize       end)
{
  gsize n = 0;

  while (at + n < end && g_ascii_isdigit (s[at + n]))
    n++;
  return n;
}

/* The length of a date or a time written at S[AT] ("2026-07-01", "2026-07-01 08:15:00",
 * "2026-07-01T08:15", "01.07.2026", "7/1/2026", "08:15"), 0 when none starts there. */
static gsize
date_length (const char *s,
             gsize       at,
             gsize       end)
{
  gsize n = digits (s, at, end), p;

  if (n == 0 || (at > 0 && (g_ascii_isalnum (s[at - 1]) || s[at - 1] == '.' || s[at - 1] == '_')))
    return 0;
  p = at + n;
  if (n == 4 && p < end && s[p] == '-' && digits (s, p + 1, end) == 2 && p + 3 < end && s[p + 3] == '-' &&
      digits (s, p + 4, end) == 2)
    {
      p += 6;
      /* A time after it. */
      if (p + 1 < end && (s[p] == ' ' || s[p] == 'T') && digits (s, p + 1, end) == 2 && p + 3 < end && s[p + 3] == ':')
        p += 1 + date_length (s, p + 1, end);
      return p - at;
    }
  if (n <= 2 && p < end && (s[p] == '.' || s[p] == '/'))
    {
      char separator = s[p];
      gsize m = digits (s, p + 1, end);

      if (m >= 1 && m <= 2 && p + 1 + m < end && s[p + 1 + m] == separator)
        {
          gsize y = digits (s, p + 2 + m, end);

          if (y == 2 || y == 4)
            return p + 2 + m + y - at;
        }
      return 0;
    }
  if (n <= 2 && p < end && s[p] == ':' && digits (s, p + 1, end) == 2)
    {
      p += 3;
      if (p < end && s[p] == ':' && digits (s, p + 1, end) == 2)
        p += 3;
      while (p < end && (s[p] == '.' || g_ascii_isdigit (s[p])))
        p++;
      return p - at;
    }
  return 0;
}

/* S with runs of spaces made one, and (unless KEEP_DATES) its dates and times as '#'. */
static void
append_text (GString    *out,
             const char *s,
             gsize       length,
             gboolean    keep_dates)
{
  gsize i = 0;

  while (i < length)
    {
      gsize date = keep_dates ? 0 : date_length (s, i, length);

      if (date > 0)
        {
          g_string_append_c (out, '#');
          i += date;
          continue;
        }
      append_collapsed (out, s + i, 1);
      i++;
    }
}

/* A line's label. Level 0: its text with its numbers, dates and times as '#'. Level 1: the
 * whole numbers before the K-th, and the dates and times, as written. */
static char *
line_label (AssayAnchorTexts *self,
            const Line       *line,
            guint             level,
            guint             k)
{
  guint keep = level > 0 ? k : 0;
  const char *s = line_start (self, line);
  GString *out = g_string_new (NULL);
  guint at = 0;

  for (guint i = 0; i < line->n_numbers; i++)
    {
      const AssayNumber *number = nth_number (self, line, i);

      append_text (out, s + at, number->start - at, level > 0);
      if (i < keep && is_whole (number))
        g_string_append_len (out, s + number->start, number->end - number->start);
      else
        g_string_append_c (out, '#');
      at = number->end;
    }
  append_text (out, s + at, line->length - at, level > 0);
  while (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

static void
ensure_labels (AssayAnchorTexts *self)
{
  if (self->labels != NULL)
    return;
  self->labels = g_hash_table_new (g_str_hash, g_str_equal);
  self->label_of = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < self->lines->len; i++)
    {
      char *label = line_label (self, &g_array_index (self->lines, Line, i), 0, 0);
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (self->labels, label));

      g_ptr_array_add (self->label_of, label);
      g_hash_table_insert (self->labels, label, GUINT_TO_POINTER (count + 1));
    }
}

/* The lines whose level-0 label is LABEL0 and, when LABEL1 is given, whose level-1 label for
 * the K-th number is LABEL1: their count, and the last one's index. */
static guint
count_label (AssayAnchorTexts *self,
             const char       *label0,
             const char       *label1,
             guint             k,
             guint            *last)
{
  guint count;

  ensure_labels (self);
  count = GPOINTER_TO_UINT (g_hash_table_lookup (self->labels, label0));
  if (count == 0 || (label1 == NULL && count > 1))
    return count;
  count = 0;
  for (guint i = 0; i < self->lines->len; i++)
    {
      g_autofree char *other = NULL;

      if (!g_str_equal (g_ptr_array_index (self->label_of, i), label0))
        continue;
      if (label1 != NULL)
        {
          other = line_label (self, &g_array_index (self->lines, Line, i), 1, k);
          if (!g_str_equal (other, label1))
            continue;
        }
      count++;
      *last = i;
    }
  return count;
}

/* Whether LINE has letters outside its numbers: names and values, a row ("  0  North  12"),
 * not a header of names or of numbers alone. */
static gboolean
has_letters_between_numbers (AssayAnchorTexts *self,
                             const Line       *line)
{
  const char *s = line_start (self, line);
  guint at = 0;

  for (guint i = 0; i <= line->n_numbers; i++)
    {
      guint end = i < line->n_numbers ? nth_number (self, line, i)->start : line->length;

      for (; at < end; at++)
        if (g_ascii_isalpha (s[at]) || (guchar) s[at] >= 0x80)
          return TRUE;
      if (i < line->n_numbers)
        at = nth_number (self, line, i)->end;
    }
  return FALSE;
}

/* The column of the K-th number of line INDEX in a table: the header (the first line of its
 * block, no blank line between; printed, one that is indented or followed by the index's
 * name) above it. In a table's cells (text/html), the header's cell
 * at the number's place; in printed text, the header's word that ends where the number ends
 * (pandas right-aligns its columns). NULL when the line is no table's row (or the first line
 * is a row like it). */
static char *
column_of (AssayAnchorTexts *self,
           guint             index,
           guint             k)
{
  const Line *line = &g_array_index (self->lines, Line, index);
  const AssayNumber *number = nth_number (self, line, k);
  const char *s = line_start (self, line);
  const Line *first;
  const char *header;
  guint header_index = line->block_first;

  /* A title just above the table ("Class A products:", "3 rows × 2 columns") is not its
   * header: a line that is not indented, over an indented line of names (a DataFrame's
   * header over its index; a row of numbers under a title is no header). */
  while (header_index + 1 < index)
    {
      const Line *title = &g_array_index (self->lines, Line, header_index);
      const Line *next = &g_array_index (self->lines, Line, header_index + 1);
      const char *text = line_start (self, title);
      const char *next_text = line_start (self, next);

      if (title->length == 0 || g_ascii_isspace (text[0]) ||
          next->n_numbers > 0 || next->length == 0 || !g_ascii_isspace (next_text[0]))
        break;
      header_index++;
    }
  if (header_index == index)
    return NULL;
  /* A first line like the others ("rank 1: #" over "rank 2: #") is a row, not a header. */
  {
    g_autofree char *header_label = line_label (self, &g_array_index (self->lines, Line, header_index), 0, 0);
    g_autofree char *row_label = line_label (self, line, 0, 0);

    if (g_str_equal (header_label, row_label))
      return NULL;
  }
  first = &g_array_index (self->lines, Line, header_index);
  header = line_start (self, first);
  /* Printed, a DataFrame's header is indented (over the index), or followed by the line that
   * names the index (no number in it); a first line that is neither is a row like the others. */
  if (!self->cells)
    {
      const Line *second = &g_array_index (self->lines, Line, header_index + 1);
      gboolean indented = first->length > 0 && g_ascii_isspace (header[0]) &&
                          !(first->n_numbers > 0 && has_letters_between_numbers (self, first));
      gboolean named_index = header_index + 1 < index && second->n_numbers == 0;

      if (!indented && !named_index)
        return NULL;
    }
  if (self->cells)
    {
      guint cell = 0, at = 0;
      const char *h = header, *end = header + first->length;

      for (const char *p = s; p + 1 < s + number->start; p++)
        if (p[0] == ' ' && p[1] == ' ')
          {
            cell++;
            p++;
          }
      /* The header's cell at that place. */
      for (; at < cell && h < end; h++)
        if (h + 1 < end && h[0] == ' ' && h[1] == ' ')
          {
            at++;
            h++;
          }
      if (at < cell || h >= end)
        return NULL;
      {
        const char *stop = g_strstr_len (h, end - h, "  ");

        return g_strstrip (g_strndup (h, (stop != NULL ? stop : end) - h));
      }
    }
  else
    {
      glong column = g_utf8_pointer_to_offset (s, s + number->end);
      const char *h = header, *end = header + first->length;

      if (!g_utf8_validate (s, line->length, NULL) || !g_utf8_validate (header, first->length, NULL))
        return NULL;
      while (h < end)
        {
          const char *word;

          while (h < end && g_ascii_isspace (*h))
            h++;
          word = h;
          while (h < end && !g_ascii_isspace (*h))
            h++;
          if (h > word && g_utf8_pointer_to_offset (header, h) == column)
            return g_strndup (word, h - word);
        }
      return NULL;
    }
}

/* Lines are in order of their text, then their number: a binary search. */
static const Line *
find_line (AssayAnchorTexts *self,
           guint             text,
           guint             number,
           guint            *index)
{
  guint lo = 0, hi = self->lines->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const Line *line = &g_array_index (self->lines, Line, mid);

      if (line->text < text || (line->text == text && line->line < number))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < self->lines->len)
    {
      const Line *line = &g_array_index (self->lines, Line, lo);

      if (line->text == text && line->line == number)
        {
          *index = lo;
          return line;
        }
    }
  return NULL;
}

gboolean
assay_anchor_texts_locate (AssayAnchorTexts *self,
                           guint             text,
                           gsize             offset,
                           guint            *line_no,
                           guint            *k)
{
  guint lo = 0, hi = self->lines->len;
  const Line *line;

  g_return_val_if_fail (self != NULL, FALSE);

  /* The last line of TEXT that starts at or before OFFSET. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const Line *at = &g_array_index (self->lines, Line, mid);

      if (at->text < text || (at->text == text && at->start <= offset))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return FALSE;
  line = &g_array_index (self->lines, Line, lo - 1);
  if (line->text != text || offset > (gsize) line->start + line->length)
    return FALSE;
  *line_no = line->line;
  *k = G_MAXUINT;
  for (guint i = 0; i < line->n_numbers; i++)
    if (line->start + nth_number (self, line, i)->start == offset)
      *k = i;
  return *k != G_MAXUINT;
}

guint
assay_anchor_texts_count_like (AssayAnchorTexts *self,
                               guint             text,
                               guint             line_no)
{
  guint index = 0;

  g_return_val_if_fail (self != NULL, 0);

  if (find_line (self, text, line_no, &index) == NULL)
    return 0;
  ensure_labels (self);
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->labels, g_ptr_array_index (self->label_of, index)));
}

gboolean
assay_anchor_follow (AssayAnchorTexts *old,
                     guint             old_text,
                     guint             old_line,
                     guint             k,
                     AssayAnchorTexts *new,
                     AssayAnchorMatch *match)
{
  const Line *line;
  guint index = 0;
  g_autofree char *label0 = NULL;
  g_autofree char *label1 = NULL;

  g_return_val_if_fail (old != NULL && new != NULL && match != NULL, FALSE);

  memset (match, 0, sizeof *match);
  match->status = ASSAY_ANCHOR_INVALID;
  line = find_line (old, old_text, old_line, &index);
  if (line == NULL || k >= line->n_numbers)
    return FALSE;

  label0 = line_label (old, line, 0, 0);
  label1 = line_label (old, line, 1, k);
  for (guint level = 0; level < 2; level++)
    {
      const char *finer = level == 0 ? NULL : label1;
      g_autofree char *old_column = NULL;
      g_autofree char *new_column = NULL;
      guint last = 0, count;
      const Line *found;
      const AssayNumber *number;

      /* Lines alike but for their dates, times or the whole numbers before K ("rank 1: #"). */
      if (level == 1 && g_str_equal (label0, label1))
        break;
      if (count_label (old, label0, finer, k, &last) != 1)
        {
          match->status = ASSAY_ANCHOR_AMBIGUOUS;
          continue;
        }
      count = count_label (new, label0, finer, k, &last);
      if (count == 0)
        {
          match->status = ASSAY_ANCHOR_GONE;
          return FALSE;
        }
      if (count > 1)
        {
          match->status = ASSAY_ANCHOR_AMBIGUOUS;
          continue;
        }
      found = &g_array_index (new->lines, Line, last);
      /* The same count of numbers; in a table's row, under the same column. */
      if (found->n_numbers != line->n_numbers)
        {
          match->status = ASSAY_ANCHOR_RESHAPED;
          return FALSE;
        }
      old_column = column_of (old, index, k);
      if (old_column != NULL && g_strcmp0 (old_column, new_column = column_of (new, last, k)) != 0)
        {
          match->status = ASSAY_ANCHOR_RESHAPED;
          return FALSE;
        }
      number = nth_number (new, found, k);
      match->status = ASSAY_ANCHOR_FOUND;
      match->text = found->text;
      match->line = found->line;
      match->line_text = g_strndup (line_start (new, found), found->length);
      match->match_start = number->start;
      match->match_end = number->end;
      match->number_in_line = k;
      match->value = number->value;
      match->old_value = nth_number (old, line, k)->value;
      return TRUE;
    }
  return FALSE;
}

static gboolean
has_letter (const char *label)
{
  for (const char *p = label; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_isalpha (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

/* Whether line I names something: a label with words and a number, there once. */
static gboolean
is_named_row (AssayAnchorTexts *self,
              guint             i)
{
  const char *label = g_ptr_array_index (self->label_of, i);

  return GPOINTER_TO_UINT (g_hash_table_lookup (self->labels, label)) == 1 && strchr (label, '#') != NULL &&
         has_letter (label);
}

gboolean
assay_anchor_order_changed (AssayAnchorTexts *old,
                            AssayAnchorTexts *new,
                            const guint      *places,
                            guint             n_places)
{
  g_autoptr(GHashTable) old_blocks = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) new_blocks = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) old_labels = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) before = g_ptr_array_new ();
  g_autoptr(GPtrArray) after = g_ptr_array_new ();

  g_return_val_if_fail (old != NULL && new != NULL, FALSE);

  ensure_labels (old);
  ensure_labels (new);
  /* The old blocks the places are in (all of them without places) ... */
  for (guint i = 0; i < old->lines->len; i++)
    {
      const Line *line = &g_array_index (old->lines, Line, i);
      gboolean wanted = places == NULL;

      for (guint p = 0; p < n_places && !wanted; p++)
        wanted = line->text == places[2 * p] && line->line == places[2 * p + 1];
      if (wanted)
        g_hash_table_add (old_blocks, GUINT_TO_POINTER (line->block_first + 1));
    }
  for (guint i = 0; i < old->lines->len; i++)
    if (g_hash_table_contains (old_blocks, GUINT_TO_POINTER (g_array_index (old->lines, Line, i).block_first + 1)) &&
        is_named_row (old, i))
      {
        g_ptr_array_add (before, g_ptr_array_index (old->label_of, i));
        g_hash_table_add (old_labels, g_ptr_array_index (old->label_of, i));
      }
  /* ... and the new blocks that hold any of their rows. */
  for (guint i = 0; i < new->lines->len; i++)
    if (g_hash_table_contains (old_labels, g_ptr_array_index (new->label_of, i)))
      g_hash_table_add (new_blocks, GUINT_TO_POINTER (g_array_index (new->lines, Line, i).block_first + 1));
  for (guint i = 0; i < new->lines->len; i++)
    if (g_hash_table_contains (new_blocks, GUINT_TO_POINTER (g_array_index (new->lines, Line, i).block_first + 1)) &&
        is_named_row (new, i))
      g_ptr_array_add (after, g_ptr_array_index (new->label_of, i));

  if (before->len != after->len)
    return TRUE;
  for (guint i = 0; i < before->len; i++)
    if (!g_str_equal (g_ptr_array_index (before, i), g_ptr_array_index (after, i)))
      return TRUE;
  return FALSE;
}

/* A text's words made short for a label: at most 80 characters. */
static char *
shorten (GString *text)
{
  while (text->len > 0 && (text->str[text->len - 1] == ' ' || text->str[text->len - 1] == ':' ||
                           text->str[text->len - 1] == '='))
    g_string_truncate (text, text->len - 1);
  if (g_utf8_strlen (text->str, -1) > 80)
    {
      const char *cut = g_utf8_offset_to_pointer (text->str, 79);

      g_string_truncate (text, cut - text->str);
      g_string_append (text, "…");
    }
  return g_string_free (text, FALSE);
}

/* Whether WORD is how pandas writes a missing value. */
static gboolean
is_missing (const char *word,
            gsize       length)
{
  static const char * const missing[] = { "NaN", "nan", "<NA>", "None", "NaT", "inf", "-inf" };

  for (gsize i = 0; i < G_N_ELEMENTS (missing); i++)
    if (strlen (missing[i]) == length && memcmp (word, missing[i], length) == 0)
      return TRUE;
  return FALSE;
}

/* The words of S that are not missing values, one space apart. */
static void
append_words (GString    *out,
              const char *s,
              gsize       length)
{
  gsize i = 0;

  while (i < length)
    {
      gsize start;

      while (i < length && g_ascii_isspace (s[i]))
        i++;
      start = i;
      while (i < length && !g_ascii_isspace (s[i]))
        i++;
      if (i > start && !is_missing (s + start, i - start))
        {
          if (out->len > 0)
            g_string_append_c (out, ' ');
          g_string_append_len (out, s + start, i - start);
        }
    }
}

char *
assay_anchor_describe (const char *text,
                       gboolean    cells,
                       guint       line_no,
                       guint       k)
{
  const char *texts[] = { text };
  g_autoptr(AssayAnchorTexts) self = NULL;

  if (text == NULL)
    return NULL;
  self = assay_anchor_texts_new (texts, 1, cells);
  return assay_anchor_texts_describe (self, 0, line_no, k);
}

char *
assay_anchor_texts_describe (AssayAnchorTexts *self,
                             guint             text,
                             guint             line_no,
                             guint             k)
{
  const Line *line;
  const char *s;
  GString *out;
  guint index = 0, at = 0;

  g_return_val_if_fail (self != NULL, NULL);

  line = find_line (self, text, line_no, &index);
  if (line == NULL || k >= line->n_numbers)
    return NULL;
  s = line_start (self, line);
  out = g_string_new (NULL);

  /* A table's row: its words and its column's header. */
  {
    g_autofree char *column = column_of (self, index, k);

    if (column != NULL)
      {
        for (guint i = 0; i < line->n_numbers; i++)
          {
            const AssayNumber *number = nth_number (self, line, i);

            append_words (out, s + at, number->start - at);
            at = number->end;
          }
        append_words (out, s + at, line->length - at);
        if (out->len > 0)
          {
            g_string_append (out, " · ");
            g_string_append (out, column);
            return shorten (out);
          }
        g_string_truncate (out, 0);
        at = 0;
      }
  }

  /* A line: its text with the number as "…". */
  for (guint i = 0; i < line->n_numbers; i++)
    {
      const AssayNumber *number = nth_number (self, line, i);

      append_collapsed (out, s + at, number->start - at);
      if (i == k)
        g_string_append (out, "…");
      else
        g_string_append_len (out, s + number->start, number->end - number->start);
      at = number->end;
    }
  append_collapsed (out, s + at, line->length - at);
  return shorten (out);
}
