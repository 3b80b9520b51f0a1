/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Provenance"

#include "config.h"

#include <math.h>
#include <string.h>

#include "assay-number.h"

/* Digits beyond these are not a number anyone reads; the token is skipped. */
#define MAX_DIGITS 40

typedef struct
{
  const char           *text;
  gsize                 length;
  AssayNumberScanFlags  flags;
} Scanner;

static inline gboolean
assay_number_is_digit (const Scanner *s,
                       gsize          i)
{
  return i < s->length && g_ascii_isdigit (s->text[i]);
}

/* The character at I and its length in bytes; an invalid byte reads as itself, one byte. */
static gunichar
assay_number_char_at (const Scanner *s,
                      gsize          i,
                      guint         *len)
{
  gunichar c;
  gsize left;

  if (i >= s->length)
    {
      *len = 0;
      return 0;
    }
  if ((guchar) s->text[i] < 0x80)
    {
      *len = 1;
      return (guchar) s->text[i];
    }
  left = MIN (s->length - i, 6);
  c = g_utf8_get_char_validated (s->text + i, (gssize) left);
  if (c == (gunichar) -1 || c == (gunichar) -2)
    {
      *len = 1;
      return 0xFFFD;
    }
  *len = (guint) g_utf8_skip[(guchar) s->text[i]];
  return c;
}

/* The character before I, and where it starts. */
static gunichar
assay_number_char_before (const Scanner *s,
                          gsize          i,
                          gsize         *at)
{
  gsize j = i;
  guint len;

  if (i == 0)
    {
      *at = 0;
      return 0;
    }
  j = i - 1;
  while (j > 0 && i - j < 4 && ((guchar) s->text[j] & 0xC0) == 0x80)
    j--;
  *at = j;
  return assay_number_char_at (s, j, &len);
}

static gboolean
assay_number_is_word_char (gunichar c)
{
  return c == '_' || g_unichar_isalnum (c);
}

/* A space that may group digits: space, NBSP, narrow NBSP, thin space. */
static guint
assay_number_group_space_at (const Scanner *s,
                             gsize          i)
{
  guint len;
  gunichar c = assay_number_char_at (s, i, &len);

  if (c == ' ' && (s->flags & ASSAY_NUMBER_SCAN_OUTPUT) == 0)
    return len;
  if (c == 0x00A0 || c == 0x202F || c == 0x2009)
    return len;
  return 0;
}

/* The thousands separator at I, if it is one there: the separator, then three digits that are
 * not followed by another. */
static guint
assay_number_group_at (const Scanner *s,
                       gsize          i,
                       gunichar      *separator)
{
  guint len = 0;
  gunichar c = assay_number_char_at (s, i, &len);

  if (c == ',' || c == '\'' || c == 0x2019 || c == '.')
    ;
  else if ((len = assay_number_group_space_at (s, i)) > 0)
    c = ' ';
  else
    return 0;

  if (*separator != 0 && *separator != c)
    return 0;
  if (!assay_number_is_digit (s, i + len) || !assay_number_is_digit (s, i + len + 1) ||
      !assay_number_is_digit (s, i + len + 2) || assay_number_is_digit (s, i + len + 3))
    return 0;
  /* A comma is the decimal separator where that is the custom. */
  if (c == ',' && (s->flags & ASSAY_NUMBER_SCAN_DECIMAL_COMMA) != 0)
    return 0;
  *separator = c;
  return len;
}

/* "2024-03-15", "2024-03-15T10:00:00", "15.03.2024", "03/15/24", "2024/03", "14:30",
 * "14:30:05". Returns the end of the date at I, or 0. */
static gsize
assay_number_date_at (const Scanner *s,
                      gsize          i)
{
  gsize j = i;
  guint n1 = 0, n2 = 0, n3 = 0;
  char sep1, sep2 = 0;

  while (assay_number_is_digit (s, j) && n1 < 5)
    j++, n1++;
  if (j >= s->length || n1 == 0 || n1 > 4)
    return 0;
  sep1 = s->text[j];
  if (sep1 != '-' && sep1 != '.' && sep1 != '/' && sep1 != ':')
    return 0;
  j++;
  while (assay_number_is_digit (s, j) && n2 < 3)
    j++, n2++;
  if (n2 == 0 || n2 > 2)
    return 0;

  if (sep1 == ':')
    {
      /* A time: 1–2 digits of hours, 2 of minutes, maybe seconds. */
      if (n1 > 2 || n2 != 2)
        return 0;
      if (j + 2 < s->length && s->text[j] == ':' && assay_number_is_digit (s, j + 1) &&
          assay_number_is_digit (s, j + 2))
        j += 3;
      return j;
    }

  if (j < s->length && s->text[j] == sep1)
    {
      gsize k = j + 1;

      while (assay_number_is_digit (s, k) && n3 < 5)
        k++, n3++;
      if (n3 >= 1 && n3 <= 4 && (n1 == 4 ? n3 <= 2 : (n3 == 2 || n3 == 4)))
        {
          sep2 = sep1;
          j = k;
        }
    }

  if (sep2 == 0)
    {
      /* Two parts: "2024-03" or "2024/03" is a month; "3.14" is not a date, nor "3/4". */
      if (n1 != 4 || sep1 == '.')
        return 0;
    }
  else if (n1 != 4 && n1 > 2)
    return 0;

  /* A time after an ISO date. */
  if (n1 == 4 && j + 3 < s->length && (s->text[j] == 'T' || s->text[j] == ' ') &&
      assay_number_is_digit (s, j + 1) && assay_number_is_digit (s, j + 2) && s->text[j + 3] == ':')
    {
      gsize end = assay_number_date_at (s, j + 1);
      if (end > 0)
        j = end;
    }
  return j;
}

/* Words that may follow a number with a space: magnitudes and "percent". */
typedef struct
{
  const char *word;
  double      magnitude;   /* 0: percent */
} Suffix;

static const Suffix word_suffixes[] = {
  { "thousand", 1e3 }, { "thousands", 1e3 },
  { "million", 1e6 }, { "millions", 1e6 }, { "mln", 1e6 }, { "mn", 1e6 },
  { "billion", 1e9 }, { "billions", 1e9 }, { "bn", 1e9 }, { "trillion", 1e12 },
  { "тыс.", 1e3 }, { "тыс", 1e3 }, { "тысяч", 1e3 }, { "тысячи", 1e3 }, { "тысяча", 1e3 },
  { "млн.", 1e6 }, { "млн", 1e6 }, { "миллиона", 1e6 }, { "миллионов", 1e6 }, { "миллион", 1e6 },
  { "млрд.", 1e9 }, { "млрд", 1e9 }, { "миллиарда", 1e9 }, { "миллиардов", 1e9 }, { "миллиард", 1e9 },
  { "трлн.", 1e12 }, { "трлн", 1e12 },
  { "percent", 0 }, { "per cent", 0 }, { "pct", 0 },
  { "процента", 0 }, { "процентов", 0 }, { "процент", 0 },
};

/* Letters that may follow the digits directly. */
static const Suffix attached_suffixes[] = {
  { "bn", 1e9 }, { "mn", 1e6 }, { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "B", 1e9 }, { "T", 1e12 },
};

static gboolean
assay_number_suffix_matches (const Scanner *s,
                             gsize          i,
                             const char    *word,
                             gboolean       case_sensitive,
                             gsize         *end)
{
  gsize n = strlen (word);
  guint len;

  if (i + n > s->length)
    return FALSE;
  if (case_sensitive ? memcmp (s->text + i, word, n) != 0
                     : g_ascii_strncasecmp (s->text + i, word, n) != 0)
    return FALSE;
  /* "тыс." ends with its dot; other words must end where a word ends. */
  if (word[n - 1] != '.' && assay_number_is_word_char (assay_number_char_at (s, i + n, &len)))
    return FALSE;
  *end = i + n;
  return TRUE;
}

static const char * const ordinal_suffixes[] = { "st", "nd", "rd", "th", "-st", "-th", "-й", "-я", "-е", "-го" };

/* Words after which a number names a step, a cell, a figure, a section: not a claim. */
static const char * const reference_words[] = {
  "step", "steps", "cell", "cells", "figure", "fig", "section", "part", "item", "question",
  "line", "lines", "row", "version", "chapter", "page", "no", "n", "nr",
  "шаг", "шага", "шаге", "шаги", "ячейка", "ячейке", "ячейки", "ячейку", "рисунок", "рис",
  "раздел", "разделе", "пункт", "пункте", "вопрос", "вопросе", "строка", "строке", "строки",
  "часть", "глава", "страница", "версия",
};

static const char * const month_words[] = {
  "january", "february", "march", "april", "may", "june", "july", "august", "september",
  "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
  "sept", "oct", "nov", "dec",
  "января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября",
  "октября", "ноября", "декабря", "январь", "февраль", "март", "апрель", "май", "июнь", "июль",
  "август", "сентябрь", "октябрь", "ноябрь", "декабрь", "янв", "фев", "мар", "апр", "июн",
  "июл", "авг", "сен", "окт", "ноя", "дек",
};

static gboolean
assay_number_word_in (const char         *word,
                      gsize               n,
                      const char * const *list,
                      gsize               n_list)
{
  g_autofree char *folded = NULL;

  if (n == 0 || n > 40)
    return FALSE;
  folded = g_utf8_casefold (word, (gssize) n);
  for (gsize i = 0; i < n_list; i++)
    if (strcmp (folded, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The word that ends right before I, after at most one space (and a dot: "Fig. 3"). */
static gboolean
assay_number_previous_word_in (const Scanner      *s,
                               gsize               i,
                               const char * const *list,
                               gsize               n_list)
{
  gsize at, end, start;
  gunichar c = assay_number_char_before (s, i, &at);

  if (c != ' ' && c != 0x00A0)
    return FALSE;
  c = assay_number_char_before (s, at, &at);
  if (c == '.')
    {
      end = at;
      c = assay_number_char_before (s, at, &at);
    }
  else
    end = at + (at < s->length ? g_utf8_skip[(guchar) s->text[at]] : 0);
  if (!g_unichar_isalpha (c))
    return FALSE;
  start = at;
  while (start > 0)
    {
      gsize before;
      gunichar p = assay_number_char_before (s, start, &before);

      if (!g_unichar_isalpha (p))
        break;
      start = before;
    }
  return assay_number_word_in (s->text + start, end - start, list, n_list);
}

/* The word that starts after at most one space at I. */
static gboolean
assay_number_next_word_in (const Scanner      *s,
                           gsize               i,
                           const char * const *list,
                           gsize               n_list)
{
  guint len;
  gsize start, end;
  gunichar c = assay_number_char_at (s, i, &len);

  if (c != ' ' && c != 0x00A0)
    return FALSE;
  start = end = i + len;
  while (end < s->length)
    {
      gunichar w = assay_number_char_at (s, end, &len);
      if (!g_unichar_isalpha (w))
        break;
      end += len;
    }
  return assay_number_word_in (s->text + start, end - start, list, n_list);
}

/* Skips the rest of a word or identifier from I. */
static gsize
assay_number_skip_token (const Scanner *s,
                         gsize          i)
{
  while (i < s->length)
    {
      guint len;
      gunichar c = assay_number_char_at (s, i, &len);

      if (!assay_number_is_word_char (c) && c != '.' && c != '-' && c != ',')
        break;
      if ((c == '.' || c == '-' || c == ',') &&
          !assay_number_is_word_char (assay_number_char_at (s, i + 1, &len)))
        break;
      i += MAX (len, 1);
    }
  return i;
}

static const double powers_of_ten[] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* DIGITS: the integer digits, maybe a '.' and the fraction's, maybe 'e' and an exponent.
 * Up to 15 significant digits the value is exact but for one rounding (both the mantissa and
 * the power of ten are exact doubles); beyond, strtod. */
static double
assay_number_parse_digits (const char *digits,
                           guint       n_int,
                           guint       n_frac)
{
  guint64 mantissa = 0;
  const char *p = digits;

  if (n_int + n_frac > 15 || strchr (digits, 'e') != NULL)
    return g_ascii_strtod (digits, NULL);
  for (; *p != '\0'; p++)
    if (*p != '.')
      mantissa = mantissa * 10 + (guint64) (*p - '0');
  return (double) mantissa / powers_of_ten[n_frac];
}

/* Reads the number that starts at I (its sign or its first digit). Returns where scanning
 * goes on; fills NUMBER and returns TRUE in *found when it is one to report. */
static gsize
assay_number_read (const Scanner *s,
                   gsize          i,
                   AssayNumber   *number,
                   gboolean      *found)
{
  char digits[MAX_DIGITS * 2 + 16];
  gsize n = 0;
  gsize start = i, j = i, at;
  guint len, n_int = 0, n_frac = 0, n_all = 0;
  gunichar separator = 0, before, c;
  gboolean negative = FALSE, signed_ = FALSE, grouped = FALSE;
  gboolean prose = (s->flags & ASSAY_NUMBER_SCAN_PROSE) != 0;
  double magnitude = 1;
  AssayNumberFlags flags = 0;

  *found = FALSE;

  c = assay_number_char_at (s, j, &len);
  if (c == '-' || c == '+' || c == 0x2212)
    {
      negative = c != '+';
      signed_ = TRUE;
      j += len;
    }

  /* What stands before it: a letter or a joiner makes it part of an identifier. */
  before = assay_number_char_before (s, start, &at);
  if (assay_number_is_word_char (before) || before == '#' || before == 0x2116 || before == '@' ||
      before == '\\')
    return assay_number_skip_token (s, j);
  if (before == ' ' || before == 0x00A0)
    {
      /* "№ 5", "# 3" */
      gunichar before2 = assay_number_char_before (s, at, &at);
      if (before2 == '#' || before2 == 0x2116)
        return assay_number_skip_token (s, j);
    }
  else if (before == '-' || before == '.' || before == '/' || before == ':' || before == '^')
    {
      gunichar before2 = assay_number_char_before (s, at, &at);
      if (g_unichar_isalpha (before2) || before2 == '_' ||
          (before != '-' && g_unichar_isdigit (before2)))
        return assay_number_skip_token (s, j);
    }

  /* Dates and times are no claims, in prose or in output. */
  if (!signed_)
    {
      gsize end = assay_number_date_at (s, j);
      if (end > 0)
        return end;
    }

  /* The integer part and its groups. */
  while (assay_number_is_digit (s, j))
    {
      if (n_int < MAX_DIGITS)
        digits[n++] = s->text[j];
      n_int++;
      j++;
    }
  if (n_int > MAX_DIGITS)
    return j;
  if (n_int <= 3)
    {
      for (;;)
        {
          gunichar tried = separator;
          guint group = assay_number_group_at (s, j, &tried);

          if (group == 0)
            break;
          if (tried == '.')
            {
              /* A dot groups only when it does so twice, or before a decimal comma:
               * "1.234.567", "1.234,5"; "1.234" is a decimal. */
              gsize k = j + group + 3;
              gboolean twice = k + 3 < s->length && s->text[k] == '.' &&
                               assay_number_is_digit (s, k + 1) && assay_number_is_digit (s, k + 2) &&
                               assay_number_is_digit (s, k + 3) && !assay_number_is_digit (s, k + 4);
              gboolean comma = (s->flags & ASSAY_NUMBER_SCAN_DECIMAL_COMMA) != 0 && k + 1 < s->length &&
                               s->text[k] == ',' && assay_number_is_digit (s, k + 1);
              if (separator != '.' && !twice && !comma)
                break;
            }
          separator = tried;
          grouped = TRUE;
          j += group;
          for (int k = 0; k < 3; k++)
            digits[n++] = s->text[j++];
          n_int += 3;
          if (n_int > MAX_DIGITS)
            return j;
        }
    }

  /* The fraction. */
  if (j + 1 < s->length && assay_number_is_digit (s, j + 1) &&
      ((s->text[j] == '.' && separator != '.') ||
       (s->text[j] == ',' && separator != ',' && (s->flags & ASSAY_NUMBER_SCAN_DECIMAL_COMMA) != 0)))
    {
      digits[n++] = '.';
      j++;
      while (assay_number_is_digit (s, j))
        {
          if (n_frac < MAX_DIGITS)
            digits[n++] = s->text[j];
          n_frac++;
          j++;
        }
      if (n_frac > MAX_DIGITS)
        return j;
    }
  n_all = n_int + n_frac;

  /* "3.1.4" or "1.2.3.4" (versions, addresses) are not a number. */
  if (j + 1 < s->length && s->text[j] == '.' && n_frac > 0 && assay_number_is_digit (s, j + 1))
    return assay_number_skip_token (s, j);

  /* An exponent, in output. */
  if ((s->flags & ASSAY_NUMBER_SCAN_OUTPUT) != 0 && j + 1 < s->length &&
      (s->text[j] == 'e' || s->text[j] == 'E'))
    {
      gsize k = j + 1;
      if (k < s->length && (s->text[k] == '+' || s->text[k] == '-'))
        k++;
      if (assay_number_is_digit (s, k))
        {
          digits[n++] = 'e';
          if (s->text[j + 1] == '-')
            digits[n++] = '-';
          while (assay_number_is_digit (s, k) && n < sizeof digits - 2)
            digits[n++] = s->text[k++];
          j = k;
          flags |= ASSAY_NUMBER_EXPONENT;
        }
    }
  digits[n] = '\0';

  /* What follows the digits. */
  c = assay_number_char_at (s, j, &len);
  if (c == '%')
    {
      flags |= ASSAY_NUMBER_PERCENT;
      j += len;
    }
  else if (g_unichar_isalpha (c) || c == '_')
    {
      gsize end = 0;
      gboolean matched = FALSE;

      for (gsize k = 0; k < G_N_ELEMENTS (attached_suffixes) && !matched; k++)
        if (assay_number_suffix_matches (s, j, attached_suffixes[k].word, TRUE, &end))
          {
            magnitude = attached_suffixes[k].magnitude;
            flags |= ASSAY_NUMBER_MAGNITUDE;
            matched = TRUE;
          }
      if (!matched && (c == 'x' || c == 0xD7))
        matched = assay_number_suffix_matches (s, j, c == 'x' ? "x" : "\xc3\x97", TRUE, &end);
      if (!matched && (flags & ASSAY_NUMBER_EXPONENT) == 0)
        {
          /* Ordinals ("4th") and identifiers ("3D", "mp4"): not a claim. */
          for (gsize k = 0; k < G_N_ELEMENTS (ordinal_suffixes); k++)
            if (assay_number_suffix_matches (s, j, ordinal_suffixes[k], FALSE, &end))
              return end;
          return assay_number_skip_token (s, j);
        }
      if (!matched)
        return assay_number_skip_token (s, j);
      j = end;
    }
  else if (c == '-' && prose)
    {
      /* "-й", "-th": an ordinal; "-fold" and the like: part of a word. */
      guint len2;
      gunichar next = assay_number_char_at (s, j + 1, &len2);
      if (g_unichar_isalpha (next))
        return assay_number_skip_token (s, j + 1);
    }
  else
    {
      /* A space, then "%" or a word: "24 %", "12 тыс.", "3 million". */
      guint space = assay_number_group_space_at (s, j);

      if (space == 0 && c == ' ')
        space = 1;
      if (space > 0)
        {
          gsize k = j + space, end = 0;
          guint len2;
          gunichar next = assay_number_char_at (s, k, &len2);

          if (next == '%')
            {
              flags |= ASSAY_NUMBER_PERCENT;
              j = k + len2;
            }
          else if (g_unichar_isalpha (next))
            for (gsize m = 0; m < G_N_ELEMENTS (word_suffixes); m++)
              if (assay_number_suffix_matches (s, k, word_suffixes[m].word, FALSE, &end))
                {
                  if (word_suffixes[m].magnitude == 0)
                    flags |= ASSAY_NUMBER_PERCENT;
                  else
                    {
                      magnitude = word_suffixes[m].magnitude;
                      flags |= ASSAY_NUMBER_MAGNITUDE;
                    }
                  j = end;
                  break;
                }
        }
    }

  if (prose)
    {
      /* Years: four digits from 1900 to 2100 with nothing around them that makes a quantity. */
      if (!signed_ && !grouped && n_int == 4 && n_frac == 0 &&
          (flags & (ASSAY_NUMBER_PERCENT | ASSAY_NUMBER_MAGNITUDE)) == 0)
        {
          int year = atoi (digits);
          if (year >= 1900 && year <= 2100)
            return j;
        }
      /* "15 March", "March 15", "Step 2", "cell 4". */
      if (n_frac == 0 && n_int <= 2 && !signed_ && (flags & ASSAY_NUMBER_PERCENT) == 0 &&
          (assay_number_next_word_in (s, j, month_words, G_N_ELEMENTS (month_words)) ||
           assay_number_previous_word_in (s, start, month_words, G_N_ELEMENTS (month_words))))
        return j;
      if (!signed_ && (flags & ASSAY_NUMBER_PERCENT) == 0 &&
          assay_number_previous_word_in (s, start, reference_words, G_N_ELEMENTS (reference_words)))
        return j;
      /* "1. Overview", "2) Method" at the start of a block. */
      if ((s->flags & ASSAY_NUMBER_SCAN_BLOCK_START) != 0 && n_frac == 0 && !grouped && !signed_ &&
          flags == 0 && j + 1 < s->length && (s->text[j] == '.' || s->text[j] == ')'))
        {
          gboolean at_start = TRUE;
          for (gsize k = 0; k < start; k++)
            if (!g_ascii_isspace (s->text[k]) && s->text[k] != '#')
              at_start = FALSE;
          if (at_start && (s->text[j + 1] == ' ' || s->text[j + 1] == '\t'))
            return j + 1;
        }
    }

  if (n_all == 0)
    return j;

  number->start = (guint) start;
  number->end = (guint) j;
  number->value = assay_number_parse_digits (digits, n_int, n_frac) * magnitude * (negative ? -1 : 1);
  number->magnitude = magnitude;
  number->decimals = (guint8) MIN (n_frac, 255);
  number->tolerance = 0.5 * (n_frac < G_N_ELEMENTS (powers_of_ten) ? 1 / powers_of_ten[n_frac]
                                                                    : pow (10, -(double) n_frac)) * magnitude;
  number->flags = flags | (signed_ ? ASSAY_NUMBER_SIGNED : 0) | (grouped ? ASSAY_NUMBER_GROUPED : 0);
  *found = isfinite (number->value);
  return j;
}

/* "3–5%": the first end takes the unit and magnitude the second is written with. */
static void
assay_number_join_ranges (const Scanner *s,
                          GArray        *numbers,
                          guint          first,
                          guint          offset)
{
  for (guint k = first; k + 1 < numbers->len; k++)
    {
      AssayNumber *a = &g_array_index (numbers, AssayNumber, k);
      AssayNumber *b = &g_array_index (numbers, AssayNumber, k + 1);
      gsize i = a->end - offset, e = b->start - offset;
      guint len;
      gunichar c;

      if (i < s->length && s->text[i] == ' ')
        i++;
      c = assay_number_char_at (s, i, &len);
      if (c != '-' && c != 0x2013 && c != 0x2014)
        continue;
      i += len;
      if (i < s->length && s->text[i] == ' ')
        i++;
      if (i != e || (b->flags & ASSAY_NUMBER_SIGNED) != 0)
        continue;
      a->flags |= ASSAY_NUMBER_RANGE;
      b->flags |= ASSAY_NUMBER_RANGE;
      if ((a->flags & (ASSAY_NUMBER_PERCENT | ASSAY_NUMBER_MAGNITUDE)) == 0)
        {
          a->flags |= b->flags & (ASSAY_NUMBER_PERCENT | ASSAY_NUMBER_MAGNITUDE);
          a->value *= b->magnitude;
          a->tolerance *= b->magnitude;
          a->magnitude = b->magnitude;
        }
    }
}

void
assay_number_scan (const char           *text,
                   gsize                 length,
                   AssayNumberScanFlags  flags,
                   guint                 offset,
                   GArray               *numbers)
{
  Scanner s = { text, length, flags };
  guint first = numbers->len;
  gsize i = 0;

  g_return_if_fail (text != NULL || length == 0);
  g_return_if_fail (numbers != NULL);

  while (i < length)
    {
      guchar c = (guchar) text[i];
      gboolean starts = g_ascii_isdigit (c);

      if (!starts && (c == '-' || c == '+') && i + 1 < length && g_ascii_isdigit (text[i + 1]))
        starts = TRUE;
      else if (!starts && c == 0xE2 && i + 3 < length && (guchar) text[i + 1] == 0x88 &&
               (guchar) text[i + 2] == 0x92 && g_ascii_isdigit (text[i + 3]))
        starts = TRUE;   /* U+2212 MINUS SIGN */

      if (starts && (c == '-' || c == '+' || c == 0xE2))
        {
          /* A sign only where a number may begin: not "3-5", "x-1". */
          gsize at;
          gunichar before = assay_number_char_before (&s, i, &at);
          if (assay_number_is_word_char (before) || before == ')' || before == '.')
            starts = FALSE;
        }

      if (starts)
        {
          AssayNumber number = { 0 };
          gboolean found = FALSE;
          gsize next = assay_number_read (&s, i, &number, &found);

          if (found)
            {
              number.start += offset;
              number.end += offset;
              g_array_append_val (numbers, number);
            }
          i = MAX (next, i + 1);
          continue;
        }

      if (c < 0x80)
        i++;
      else
        {
          guint len;
          assay_number_char_at (&s, i, &len);
          i += MAX (len, 1);
        }
    }

  assay_number_join_ranges (&s, numbers, first, offset);
}

gboolean
assay_number_prefers_decimal_comma (const char *text,
                                    gsize       length)
{
  gsize cyrillic = 0, latin = 0;
  const char *p = text, *end = text + length;

  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          p++;
          continue;
        }
      if (c >= 0x0400 && c <= 0x04FF)
        cyrillic++;
      else if (c < 0x80 && g_ascii_isalpha (c))
        latin++;
      p = g_utf8_next_char (p);
    }
  return cyrillic > latin / 4 && cyrillic > 0;
}

char *
assay_number_format_like (double             value,
                          const char        *written,
                          const AssayNumber *number)
{
  g_autofree char *digits = NULL;
  GString *out = g_string_new (NULL);
  const char *p = written, *end = written + strlen (written);
  const char *first_digit = NULL, *last_digit = NULL;
  const char *group = NULL, *decimal = ".";
  gsize group_len = 0, decimal_len = 1;
  gboolean minus_sign_u2212 = FALSE, plus = FALSE;
  double shown;
  char *dot;

  g_return_val_if_fail (written != NULL && number != NULL, NULL);

  for (const char *q = written; q < end; q++)
    if (g_ascii_isdigit (*q))
      {
        if (first_digit == NULL)
          first_digit = q;
        last_digit = q;
      }
  if (first_digit == NULL)
    return g_strdup (written);
  minus_sign_u2212 = strstr (written, "\xe2\x88\x92") != NULL;
  plus = first_digit > written && memchr (written, '+', first_digit - written) != NULL;

  /* The separators: a decimal one before the last DECIMALS digits, a group one between. */
  if (number->decimals > 0)
    {
      const char *q = last_digit + 1;
      guint seen = 0;

      while (q > first_digit && seen < number->decimals)
        {
          q--;
          if (g_ascii_isdigit (*q))
            seen++;
        }
      /* q is the first fraction digit; the separator is the character before it. */
      decimal = g_utf8_find_prev_char (first_digit, q);
      decimal_len = decimal != NULL ? (gsize) (q - decimal) : 0;
      if (decimal == NULL)
        decimal = ".", decimal_len = 1;
    }
  if ((number->flags & ASSAY_NUMBER_GROUPED) != 0)
    for (const char *q = first_digit; q < last_digit; q = g_utf8_next_char (q))
      if (!g_ascii_isdigit (*q))
        {
          group = q;
          group_len = g_utf8_next_char (q) - q;
          break;
        }

  /* The sign and what comes before the digits, then the digits, then the unit after them. */
  p = written;
  while (p < first_digit && (*p == '-' || *p == '+' || g_str_has_prefix (p, "\xe2\x88\x92")))
    p += *p == '-' || *p == '+' ? 1 : 3;
  if (value < 0 && (number->flags & ASSAY_NUMBER_SIGNED) != 0)
    g_string_append (out, minus_sign_u2212 ? "\xe2\x88\x92" : "-");
  else if (value < 0)
    g_string_append_c (out, '-');
  else if (plus)
    g_string_append_c (out, '+');
  g_string_append_len (out, p, first_digit - p);

  shown = fabs (value) / (number->magnitude > 0 ? number->magnitude : 1);
  digits = g_strdup_printf ("%.*f", (int) number->decimals, shown);
  dot = strchr (digits, '.');
  {
    gsize n_int = dot != NULL ? (gsize) (dot - digits) : strlen (digits);

    for (gsize i = 0; i < n_int; i++)
      {
        if (group != NULL && i > 0 && (n_int - i) % 3 == 0)
          g_string_append_len (out, group, group_len);
        g_string_append_c (out, digits[i]);
      }
    if (dot != NULL)
      {
        g_string_append_len (out, decimal, decimal_len);
        g_string_append (out, dot + 1);
      }
  }
  g_string_append (out, last_digit + 1);
  return g_string_free (out, FALSE);
}
