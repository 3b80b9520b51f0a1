/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Provenance"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <md4c.h>

#include "assay-cell-output.h"
#include "assay-html-table.h"
#include "assay-json.h"
#include "assay-anchor.h"
#include "assay-provenance.h"

/* An answer longer than this is not read past it. */
#define MAX_ANSWER_BYTES (4 * 1024 * 1024)
/* A record holds at most this many numbers per answer. */
#define MAX_NUMBERS 10000

/* ---- the claims of an answer ------------------------------------------------------------ */

typedef struct
{
  const char           *doc;
  gsize                 size;
  AssayNumberScanFlags  flags;
  GArray               *numbers;
  guint                 skip_depth;    /* inside code, an image, math */
  gboolean              run_open;
  gsize                 run_start;
  gsize                 run_end;
  gboolean              run_starts_block;
  gboolean              block_starts;  /* the next run is the first text of a block */
  gboolean              in_link;
  const char           *href;
  gsize                 href_size;
} ClaimWalk;

static void
assay_provenance_flush_run (ClaimWalk *walk)
{
  if (!walk->run_open)
    return;
  walk->run_open = FALSE;
  assay_number_scan (walk->doc + walk->run_start,
                     walk->run_end - walk->run_start,
                     walk->flags | (walk->run_starts_block ? ASSAY_NUMBER_SCAN_BLOCK_START : 0),
                     (guint) walk->run_start,
                     walk->numbers);
}

static int
assay_provenance_enter_block_cb (MD_BLOCKTYPE  type,
                                 void         *detail,
                                 void         *user_data)
{
  ClaimWalk *walk = user_data;

  assay_provenance_flush_run (walk);
  if (type == MD_BLOCK_CODE || type == MD_BLOCK_HTML)
    walk->skip_depth++;
  walk->block_starts = TRUE;
  return 0;
}

static int
assay_provenance_leave_block_cb (MD_BLOCKTYPE  type,
                                 void         *detail,
                                 void         *user_data)
{
  ClaimWalk *walk = user_data;

  assay_provenance_flush_run (walk);
  if ((type == MD_BLOCK_CODE || type == MD_BLOCK_HTML) && walk->skip_depth > 0)
    walk->skip_depth--;
  return 0;
}

static gboolean
assay_provenance_is_skipped_span (MD_SPANTYPE type)
{
  return type == MD_SPAN_CODE || type == MD_SPAN_IMG || type == MD_SPAN_LATEXMATH ||
         type == MD_SPAN_LATEXMATH_DISPLAY || type == MD_SPAN_WIKILINK;
}

static int
assay_provenance_enter_span_cb (MD_SPANTYPE  type,
                                void        *detail,
                                void        *user_data)
{
  ClaimWalk *walk = user_data;

  assay_provenance_flush_run (walk);
  if (assay_provenance_is_skipped_span (type))
    walk->skip_depth++;
  else if (type == MD_SPAN_A)
    {
      MD_SPAN_A_DETAIL *a = detail;

      walk->in_link = TRUE;
      walk->href = a->href.text;
      walk->href_size = a->href.size;
    }
  return 0;
}

static int
assay_provenance_leave_span_cb (MD_SPANTYPE  type,
                                void        *detail,
                                void        *user_data)
{
  ClaimWalk *walk = user_data;

  if (type == MD_SPAN_A && walk->run_open && walk->href != NULL)
    {
      /* A bare link ("https://example.com/2024/report-7") shows its own address. */
      gsize n = walk->run_end - walk->run_start;
      const char *text = walk->doc + walk->run_start;

      if (walk->href_size >= n && n > 0 &&
          memcmp (walk->href + walk->href_size - n, text, n) == 0)
        walk->run_open = FALSE;
    }
  assay_provenance_flush_run (walk);
  if (assay_provenance_is_skipped_span (type) && walk->skip_depth > 0)
    walk->skip_depth--;
  if (type == MD_SPAN_A)
    {
      walk->in_link = FALSE;
      walk->href = NULL;
    }
  return 0;
}

static int
assay_provenance_text_cb (MD_TEXTTYPE    type,
                          const MD_CHAR *text,
                          MD_SIZE        size,
                          void          *user_data)
{
  ClaimWalk *walk = user_data;
  gsize at;

  if (walk->skip_depth > 0 ||
      (type != MD_TEXT_NORMAL && type != MD_TEXT_SOFTBR && type != MD_TEXT_BR) ||
      text < walk->doc || text + size > walk->doc + walk->size)
    {
      assay_provenance_flush_run (walk);
      return 0;
    }

  at = (gsize) (text - walk->doc);
  if (walk->run_open && at == walk->run_end)
    {
      walk->run_end += size;
      return 0;
    }
  assay_provenance_flush_run (walk);
  walk->run_open = TRUE;
  walk->run_start = at;
  walk->run_end = at + size;
  walk->run_starts_block = walk->block_starts;
  walk->block_starts = FALSE;
  return 0;
}

GArray *
assay_provenance_find_claims (const char *answer,
                              gssize      length)
{
  GArray *numbers = g_array_new (FALSE, TRUE, sizeof (AssayNumber));
  gsize size;
  ClaimWalk walk = { 0 };
  MD_PARSER parser = {
    .abi_version = 0,
    .flags = MD_DIALECT_GITHUB | MD_FLAG_NOHTML,
    .enter_block = assay_provenance_enter_block_cb,
    .leave_block = assay_provenance_leave_block_cb,
    .enter_span = assay_provenance_enter_span_cb,
    .leave_span = assay_provenance_leave_span_cb,
    .text = assay_provenance_text_cb,
  };

  if (answer == NULL)
    return numbers;
  size = MIN (length < 0 ? strlen (answer) : (gsize) length, MAX_ANSWER_BYTES);
  if (size == 0)
    return numbers;

  walk.doc = answer;
  walk.size = size;
  walk.numbers = numbers;
  walk.flags = ASSAY_NUMBER_SCAN_PROSE;
  if (assay_number_prefers_decimal_comma (answer, size))
    walk.flags |= ASSAY_NUMBER_SCAN_DECIMAL_COMMA;
  md_parse (answer, (MD_SIZE) size, &parser, &walk);
  assay_provenance_flush_run (&walk);
  if (numbers->len > MAX_NUMBERS)
    g_array_set_size (numbers, MAX_NUMBERS);
  return numbers;
}

/* ---- what the cells printed ------------------------------------------------------------- */

typedef struct
{
  guint  source;           /* index in the sources: later ran later */
  guint  output;
  const char *view;        /* static */
  char  *text;
  gsize  length;
  gsize  read_to;          /* the model read [0, READ_TO) and [READ_FROM, LENGTH) */
  gsize  read_from;
  GArray *values;          /* double: every number read in it (how crowded it is), sorted when asked */
  gboolean sorted;
  AssayAnchorTexts *anchors; /* its labels, read when needed */
} View;

typedef struct
{
  double  value;
  guint   view;
  guint   start;
  guint   end;
  gboolean integral;       /* printed without a fraction or an exponent */
} Printed;

static void
assay_provenance_view_clear (gpointer data)
{
  View *view = data;
  g_free (view->text);
  g_clear_pointer (&view->values, g_array_unref);
  g_clear_pointer (&view->anchors, assay_anchor_texts_free);
}

static int
assay_provenance_compare_printed (gconstpointer a,
                                  gconstpointer b)
{
  const Printed *x = a, *y = b;

  if (x->value < y->value)
    return -1;
  if (x->value > y->value)
    return 1;
  return 0;
}

/* A DataFrame's table as text: one line a row, cells two spaces apart. */
static char *
assay_provenance_table_text (const char *html,
                             gsize      *length)
{
  g_autoptr(AssayTable) table = assay_html_table_extract (html, strlen (html));
  GString *text;

  if (table == NULL)
    return NULL;
  text = g_string_new (NULL);
  for (guint r = 0; r < table->rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (table->rows, r);

      for (guint c = 0; c < row->len; c++)
        {
          if (c > 0)
            g_string_append (text, "  ");
          g_string_append (text, g_ptr_array_index (row, c));
        }
      g_string_append_c (text, '\n');
    }
  *length = text->len;
  return g_string_free (text, FALSE);
}

static void
assay_provenance_add_view (GArray     *views,
                           gsize      *budget,
                           guint       source,
                           guint       output,
                           const char *kind,
                           char       *text,
                           gsize       length,
                           gsize       read_to,
                           gsize       read_from)
{
  View view = { source, output, kind, text, length, 0, 0, NULL, FALSE, NULL };

  if (text == NULL)
    return;
  if (*budget == 0)
    {
      g_free (text);
      return;
    }
  view.length = MIN (length, *budget);
  view.read_to = MIN (read_to, view.length);
  view.read_from = MIN (read_from, view.length);
  view.values = g_array_new (FALSE, FALSE, sizeof (double));
  *budget -= view.length;
  g_array_append_val (views, view);
}

/* The views tracing reads of an output: a stream's stdout, a result's text/plain, and the
 * table of its text/html. */
static const char * const view_names[] = { "stream", "text/plain", "text/html" };

/* The text of VIEW of OUTPUT, or NULL when it has none. */
static char *
assay_provenance_view_of (const AssayCellOutput *output,
                          const char            *view,
                          gsize                 *length)
{
  char *text = NULL;

  if (g_str_equal (view, "stream") && output->kind == ASSAY_CELL_OUTPUT_STREAM && !output->is_stderr)
    text = g_strdup (output->text);
  else if (output->kind != ASSAY_CELL_OUTPUT_RESULT && output->kind != ASSAY_CELL_OUTPUT_DISPLAY)
    return NULL;
  else if (g_str_equal (view, "text/plain"))
    text = g_strdup (output->plain);
  else if (g_str_equal (view, "text/html") && output->html != NULL)
    return assay_provenance_table_text (output->html, length);
  if (text != NULL)
    *length = strlen (text);
  return text;
}

char *
assay_provenance_dup_view_text (JsonArray  *outputs,
                                guint       index,
                                const char *view)
{
  g_autoptr(AssayCellOutput) output = NULL;
  gsize length;

  if (outputs == NULL || index >= json_array_get_length (outputs) || view == NULL)
    return NULL;
  output = assay_cell_output_read (json_array_get_element (outputs, index));
  return output != NULL ? assay_provenance_view_of (output, view, &length) : NULL;
}

/* What the model read of SOURCE's outputs, in each output's own text: STARTS[k] is where
 * output K's text starts in what it was given (G_MAXSIZE: none of it); [0, HEAD) and
 * [TAIL, its length) of that were read. */
typedef struct
{
  GArray *starts;
  gsize   head;
  gsize   tail;
} ReadRanges;

static void
assay_provenance_read_ranges (const AssayProvenanceSource *source,
                              ReadRanges                  *read)
{
  g_autofree char *body = NULL;

  read->starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  body = assay_cell_outputs_read_text (source->outputs, NULL, read->starts);
  assay_cell_output_cut_middle (body, strlen (body), source->model_read, &read->head, &read->tail);
}

static void
assay_provenance_collect_views (const AssayProvenanceSource *sources,
                                guint                        n_sources,
                                GArray                      *views)
{
  gsize budget = ASSAY_PROVENANCE_MAX_OUTPUT_BYTES;

  for (guint s = 0; s < n_sources; s++)
    {
      JsonArray *outputs = sources[s].outputs;
      guint n = outputs != NULL ? json_array_get_length (outputs) : 0;
      ReadRanges read = { NULL, 0, 0 };

      if (sources[s].model_read > 0 && n > 0)
        assay_provenance_read_ranges (&sources[s], &read);

      for (guint k = 0; k < n; k++)
        {
          g_autoptr(AssayCellOutput) output = assay_cell_output_read (json_array_get_element (outputs, k));
          gsize start = read.starts != NULL ? g_array_index (read.starts, gsize, k) : 0;

          /* The model read text/plain, never a table's HTML, and not what was cut. */
          if (read.starts != NULL && start == G_MAXSIZE)
            continue;
          for (gsize v = 0; output != NULL && v < G_N_ELEMENTS (view_names); v++)
            {
              gsize length = 0;
              gsize read_to = G_MAXSIZE, read_from = G_MAXSIZE;
              char *text;

              if (read.starts != NULL && g_str_equal (view_names[v], "text/html"))
                continue;
              text = assay_provenance_view_of (output, view_names[v], &length);
              if (text != NULL && read.starts != NULL)
                {
                  read_to = read.head > start ? read.head - start : 0;
                  read_from = read.tail > start ? read.tail - start : 0;
                }
              assay_provenance_add_view (views, &budget, s, k, view_names[v], text, length,
                                         read_to, read_from);
            }
        }
      g_clear_pointer (&read.starts, g_array_unref);
    }
}

static gboolean assay_provenance_in_union (GArray *merged, double value);

static int
assay_provenance_compare_doubles (gconstpointer a,
                                  gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static GArray *
assay_provenance_collect_printed (GArray *views,
                                  GArray *wanted)
{
  GArray *printed = g_array_new (FALSE, FALSE, sizeof (Printed));
  g_autoptr(GArray) numbers = g_array_new (FALSE, FALSE, sizeof (AssayNumber));

  for (guint v = 0; v < views->len; v++)
    {
      View *view = &g_array_index (views, View, v);

      g_array_set_size (numbers, 0);
      /* What the model read: the head, and the tail when the middle was cut. */
      assay_number_scan (view->text, MIN (view->read_to, view->length), ASSAY_NUMBER_SCAN_OUTPUT, 0, numbers);
      if (view->read_from < view->length && view->read_from >= view->read_to)
        assay_number_scan (view->text + view->read_from, view->length - view->read_from, ASSAY_NUMBER_SCAN_OUTPUT,
                           (guint) view->read_from, numbers);
      for (guint i = 0; i < numbers->len; i++)
        {
          const AssayNumber *number = &g_array_index (numbers, AssayNumber, i);
          Printed entry;

          /* Not what was cut from the middle for the model. */
          if (number->end > view->read_to && number->start < view->read_from)
            continue;
          g_array_append_val (view->values, number->value);
          if (!assay_provenance_in_union (wanted, number->value))
            continue;
          entry = (Printed) {
            .value = number->value,
            .view = v,
            .start = number->start,
            .end = number->end,
            .integral = number->decimals == 0 && (number->flags & ASSAY_NUMBER_EXPONENT) == 0 &&
                        (number->flags & ASSAY_NUMBER_MAGNITUDE) == 0,
          };
          g_array_append_val (printed, entry);
        }
    }
  g_array_sort (printed, assay_provenance_compare_printed);
  return printed;
}

/* ---- matching ----------------------------------------------------------------------------- */

static gsize
assay_provenance_lower_bound (GArray *printed,
                              double  value)
{
  gsize lo = 0, hi = printed->len;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (g_array_index (printed, Printed, mid).value < value)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The values a claim may have been printed as: itself; its negative when it is written
 * without a sign ("fell by 5.2%"); a percentage's fraction. */
typedef struct
{
  double   low;
  double   high;
  double   target;
  gboolean exact_integer;
} Range;

static guint
assay_provenance_claim_ranges (const AssayNumber *claim,
                               Range              ranges[4])
{
  gboolean unsigned_ = (claim->flags & ASSAY_NUMBER_SIGNED) == 0 && claim->value > 0;
  gboolean exact_integer = claim->decimals == 0 && fabs (claim->value) < 10 &&
                           (claim->flags & (ASSAY_NUMBER_PERCENT | ASSAY_NUMBER_MAGNITUDE)) == 0;
  double values[4];
  double tolerances[4];
  gboolean exact[4];
  guint n = 0;

  values[n] = claim->value, tolerances[n] = claim->tolerance, exact[n++] = exact_integer;
  if (unsigned_)
    values[n] = -claim->value, tolerances[n] = claim->tolerance, exact[n++] = exact_integer;
  if ((claim->flags & ASSAY_NUMBER_PERCENT) != 0)
    {
      values[n] = claim->value / 100, tolerances[n] = claim->tolerance / 100, exact[n++] = FALSE;
      if (unsigned_)
        values[n] = -claim->value / 100, tolerances[n] = claim->tolerance / 100, exact[n++] = FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      /* Room for the binary representation: 0.2398 * 100 is not quite 23.98. */
      double slack = tolerances[i] * 1e-9 + fabs (values[i]) * 1e-12;

      ranges[i].low = values[i] - tolerances[i] - slack;
      ranges[i].high = values[i] + tolerances[i] + slack;
      ranges[i].target = values[i];
      ranges[i].exact_integer = exact[i];
    }
  return n;
}

/* A printed number a claim may be, with what it is to that claim. */
typedef struct
{
  const Printed *entry;
  guint          source;
  double         error;      /* relative to the claim's value */
  double         target;     /* the value of the claim it is near (the claim, a fraction, …) */
  double         tolerance;
  guint          group;      /* which label, among the candidates */
  guint          line;       /* its line, once its label is read */
} Candidate;

/* The latest cell first; within it the closest value, then the first view and place. */
static int
assay_provenance_compare_candidates (gconstpointer a,
                                     gconstpointer b)
{
  const Candidate *x = a, *y = b;

  if (x->source != y->source)
    return x->source > y->source ? -1 : 1;
  if (x->error != y->error)
    return x->error < y->error ? -1 : 1;
  if (x->entry->view != y->entry->view)
    return x->entry->view < y->entry->view ? -1 : 1;
  return x->entry->start < y->entry->start ? -1 : x->entry->start > y->entry->start;
}

static void
assay_provenance_candidates (const AssayNumber *claim,
                             GArray            *printed,
                             GArray            *views,
                             GArray            *candidates)
{
  Range ranges[4];
  guint n = assay_provenance_claim_ranges (claim, ranges);

  for (guint r = 0; r < n; r++)
    for (gsize i = assay_provenance_lower_bound (printed, ranges[r].low); i < printed->len; i++)
      {
        const Printed *entry = &g_array_index (printed, Printed, i);
        Candidate candidate;

        if (entry->value > ranges[r].high)
          break;
        if (ranges[r].exact_integer && (!entry->integral || entry->value != ranges[r].target))
          continue;
        candidate = (Candidate) {
          .entry = entry,
          .source = g_array_index (views, View, entry->view).source,
          .error = fabs (entry->value - ranges[r].target) / MAX (fabs (ranges[r].target), 1e-300),
          .target = ranges[r].target,
          .tolerance = (ranges[r].high - ranges[r].low) / 2,
        };
        g_array_append_val (candidates, candidate);
      }
  g_array_sort (candidates, assay_provenance_compare_candidates);

  /* A table's HTML and its text/plain are one place. */
  for (guint i = candidates->len; i-- > 0;)
    {
      const View *view = &g_array_index (views, View, g_array_index (candidates, Candidate, i).entry->view);
      gboolean twin = FALSE;

      if (!g_str_equal (view->view, "text/html"))
        continue;
      for (guint j = 0; j < candidates->len && !twin; j++)
        {
          const View *other = &g_array_index (views, View, g_array_index (candidates, Candidate, j).entry->view);

          twin = j != i && other->source == view->source && other->output == view->output &&
                 !g_str_equal (other->view, "text/html");
        }
      if (twin)
        g_array_remove_index (candidates, i);
    }
}

/* ---- telling places apart ------------------------------------------------------------------ */

/* Candidates whose labels are read; with more, none is chosen by its words. */
#define MAX_LABELLED 16
/* A crowd: this many distinct values within CROWD_STEPS steps of the claim's precision. */
#define CROWD_STEPS 100
#define CROWD_WEAK 20

/* A word of a label or of the answer: letters and digits with at least one letter, casefolded
 * (a single letter kept as written: "A" is a region, "a" an article). */
typedef struct
{
  gsize  start;
  gsize  end;
  char  *word;
} Word;

static void
assay_provenance_word_clear (gpointer data)
{
  g_free (((Word *) data)->word);
}

static GArray *
assay_provenance_words (const char *text,
                        gsize       length)
{
  GArray *words = g_array_new (FALSE, FALSE, sizeof (Word));
  const char *p = text, *end = text + length;

  g_array_set_clear_func (words, assay_provenance_word_clear);
  while (p < end)
    {
      const char *from = p;
      gboolean letter = FALSE;
      guint n_chars = 0;

      while (p < end)
        {
          gunichar c = g_utf8_get_char_validated (p, end - p);

          if (c == (gunichar) -1 || c == (gunichar) -2 || !g_unichar_isalnum (c))
            break;
          letter |= g_unichar_isalpha (c);
          n_chars++;
          p = g_utf8_next_char (p);
        }
      if (p == from)
        {
          gunichar c = g_utf8_get_char_validated (p, end - p);

          p = c == (gunichar) -1 || c == (gunichar) -2 ? p + 1 : g_utf8_next_char (p);
          continue;
        }
      if (letter)
        {
          Word word = { (gsize) (from - text), (gsize) (p - text),
                        n_chars == 1 ? g_strndup (from, p - from) : g_utf8_casefold (from, p - from) };
          g_array_append_val (words, word);
        }
    }
  return words;
}

/* Whether the label's WORDS name the answer's WORD: the same, or (unless EXACT) the start of
 * it when four letters or longer ("visit" names "visits"). */
static gboolean
assay_provenance_has_word (GArray     *words,
                           const char *word,
                           gboolean    exact)
{
  for (guint i = 0; i < words->len; i++)
    {
      const char *have = g_array_index (words, Word, i).word;

      if (g_str_equal (have, word) || (!exact && g_utf8_strlen (have, -1) >= 4 && g_str_has_prefix (word, have)))
        return TRUE;
    }
  return FALSE;
}

/* Whether every word of a label (at least one) is named in the SENTENCE's words. */
static gboolean
assay_provenance_fully_named (GArray *label,
                              GArray *sentence)
{
  if (label->len == 0)
    return FALSE;
  for (guint i = 0; i < label->len; i++)
    {
      g_autoptr(GArray) one = g_array_new (FALSE, FALSE, sizeof (Word));
      gboolean found = FALSE;

      g_array_append_val (one, g_array_index (label, Word, i));
      for (guint j = 0; j < sentence->len && !found; j++)
        found = assay_provenance_has_word (one, g_array_index (sentence, Word, j).word, FALSE);
      if (!found)
        return FALSE;
    }
  return TRUE;
}

/* The sentence of the answer the claim [START, END) is in: up to a line's end or a full stop
 * ("." "!" "?" ";" before a space). */
static void
assay_provenance_sentence (const char *answer,
                           gsize       length,
                           gsize       start,
                           gsize       end,
                           gsize      *from,
                           gsize      *to)
{
  gsize f = start, t = end;

  while (f > 0 && answer[f - 1] != '\n' &&
         !(strchr (".!?;", answer[f - 1]) != NULL && g_ascii_isspace (answer[f])))
    f--;
  while (t < length && answer[t] != '\n' &&
         !(strchr (".!?;", answer[t]) != NULL && (t + 1 >= length || g_ascii_isspace (answer[t + 1]))))
    t++;
  *from = f;
  *to = t;
}

/* The words of the line AT is on, before its first number that follows a word (a table's
 * row label, after its index). */
static char *
assay_provenance_row_label (const View *view,
                            gsize       at)
{
  g_autoptr(GArray) numbers = g_array_new (FALSE, FALSE, sizeof (AssayNumber));
  gsize line_start = at, line_end = at, label_from, label_to;

  while (line_start > 0 && view->text[line_start - 1] != '\n')
    line_start--;
  while (line_end < view->length && view->text[line_end] != '\n')
    line_end++;
  assay_number_scan (view->text + line_start, line_end - line_start, ASSAY_NUMBER_SCAN_OUTPUT, 0, numbers);

  /* Leading numbers (an index) are skipped; the label ends at the next number. */
  label_from = 0;
  label_to = line_end - line_start;
  for (guint i = 0; i < numbers->len; i++)
    {
      const AssayNumber *number = &g_array_index (numbers, AssayNumber, i);
      gboolean words_before = FALSE;

      for (gsize j = label_from; j < number->start && !words_before; j++)
        words_before = g_ascii_isalpha (view->text[line_start + j]) || (guchar) view->text[line_start + j] >= 0x80;
      if (words_before)
        {
          label_to = number->start;
          break;
        }
      label_from = number->end;
    }
  return g_strndup (view->text + line_start + label_from, label_to > label_from ? label_to - label_from : 0);
}

static int
assay_provenance_compare_words (gconstpointer a,
                                gconstpointer b)
{
  return strcmp (((const Word *) a)->word, ((const Word *) b)->word);
}

/* The words of what the printed number stands for: in a table's row, its row label and its
 * column ("North", "revenue"); else its line's words ("West", "Top customer egor with").
 * KEY: them sorted, one string: two labels of the same words are one. LINE_OUT: its line
 * (from 1; 0 when unknown). UNIQUE: whether no other line of its output has its label. */
static GArray *
assay_provenance_label_of (View          *view,
                           const Printed *entry,
                           char         **key,
                           guint         *line_out,
                           gboolean      *unique)
{
  g_autofree char *label = NULL;
  g_autofree char *row_label = NULL;
  const char *column;
  GArray *words;
  GString *sorted = g_string_new (NULL);
  guint line = 0, k = G_MAXUINT;

  if (view->anchors == NULL)
    {
      g_autofree char *text = g_strndup (view->text, view->length);
      const char *texts[] = { text };

      /* What the model did not read is blank (its lines kept, so places stay where they are). */
      for (gsize i = MIN (view->read_to, view->length); i < MIN (view->read_from, view->length); i++)
        if (text[i] != '\n')
          text[i] = ' ';
      view->anchors = assay_anchor_texts_new (texts, 1, g_str_equal (view->view, "text/html"));
    }
  if (assay_anchor_texts_locate (view->anchors, 0, entry->start, &line, &k))
    label = assay_anchor_texts_describe (view->anchors, 0, line, k);
  /* Asked only of a crowded number's one label: it reads every line's label. */
  if (unique != NULL)
    *unique = label != NULL && assay_anchor_texts_count_like (view->anchors, 0, line) == 1;
  if (label == NULL)
    label = g_strdup ("");

  /* A table's row ("… · column"): its label is the row's, not every word of the row (a class
   * "A" in a product's row does not make it class A's). */
  column = g_strrstr (label, " · ");
  if (column != NULL)
    {
      g_autofree char *both = NULL;

      row_label = assay_provenance_row_label (view, entry->start);
      both = g_strconcat (row_label, " ", column + strlen (" · "), NULL);

      words = assay_provenance_words (both, strlen (both));
    }
  else
    words = assay_provenance_words (label, strlen (label));
  *line_out = line;

  {
    g_autoptr(GArray) copy = g_array_copy (words);

    g_array_sort (copy, assay_provenance_compare_words);
    for (guint i = 0; i < copy->len; i++)
      {
        g_string_append (sorted, g_array_index (copy, Word, i).word);
        g_string_append_c (sorted, ' ');
      }
    /* The copy shares the words' strings. */
    g_array_set_clear_func (copy, NULL);
  }
  *key = g_string_free (sorted, FALSE);
  return words;
}

/* How many distinct values VIEW printed within CROWD_STEPS steps of the claim's precision of
 * TARGET (at most a few more than CROWD_WEAK are counted). */
static guint
assay_provenance_crowd (View   *view,
                        double  target,
                        double  tolerance)
{
  double reach = CROWD_STEPS * 2 * MAX (tolerance, 1e-300);
  gsize lo = 0, hi = view->values->len;
  guint distinct = 0;
  double last = 0;

  if (!view->sorted)
    {
      g_array_sort (view->values, assay_provenance_compare_doubles);
      view->sorted = TRUE;
    }
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (g_array_index (view->values, double, mid) < target - reach)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (gsize i = lo; i < view->values->len && distinct < 10 * CROWD_WEAK; i++)
    {
      double value = g_array_index (view->values, double, i);

      if (value > target + reach)
        break;
      if (distinct == 0 || value != last)
        distinct++;
      last = value;
    }
  return distinct;
}

typedef struct
{
  const Candidate *chosen;
  guint            groups;     /* distinct labels among the candidates */
  gboolean         named;      /* the sentence names the chosen one's label */
  guint            crowd;
} Choice;

/* How close (bytes) to the claim the sentence names a word of GROUP's label that not every
 * label has (ALL: any of its words); G_MAXSIZE when it names none. */
static gsize
assay_provenance_distance (GPtrArray *group_words,
                           guint      group,
                           gboolean   all,
                           GArray    *sentence,
                           gsize      claim_start,
                           gsize      claim_end)
{
  GArray *words = g_ptr_array_index (group_words, group);
  gsize best = G_MAXSIZE;

  for (guint i = 0; i < sentence->len; i++)
    {
      const Word *word = &g_array_index (sentence, Word, i);
      gboolean everywhere = TRUE;
      gboolean exact;
      gsize distance;

      if (word->end > claim_start && word->start < claim_end)
        continue;
      if (!(exact = assay_provenance_has_word (words, word->word, TRUE)) &&
          !assay_provenance_has_word (words, word->word, FALSE))
        continue;
      /* A word every label names as well tells none apart. */
      for (guint g = 0; g < group_words->len && everywhere && !all; g++)
        {
          GArray *other = g_ptr_array_index (group_words, g);

          everywhere = exact ? assay_provenance_has_word (other, word->word, TRUE)
                             : assay_provenance_has_word (other, word->word, FALSE) &&
                               !assay_provenance_has_word (other, word->word, TRUE);
        }
      if (everywhere && !all)
        continue;
      /* In bytes, twice, and one more for a word named by its start only: the same word
       * named as close wins. */
      distance = 2 * (word->end <= claim_start ? claim_start - word->end : word->start - claim_end) + !exact;
      best = MIN (best, distance);
    }
  return best;
}

static void
assay_provenance_choose (const char        *answer,
                         gsize              length,
                         const AssayNumber *claim,
                         GArray            *candidates,
                         GArray            *views,
                         Choice            *choice)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) group_words = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GArray) sentence = NULL;
  guint n = candidates->len;
  gsize from, to, best = G_MAXSIZE;
  guint n_best = 0;
  gboolean chosen_unique = FALSE;
  View *view;

  *choice = (Choice) { &g_array_index (candidates, Candidate, 0), 1, FALSE, 0 };
  view = &g_array_index (views, View, choice->chosen->entry->view);
  choice->crowd = assay_provenance_crowd (view, choice->chosen->target, choice->chosen->tolerance);

  /* One place, in an output that does not crowd it: nothing to tell apart. */
  if (candidates->len == 1 && choice->crowd < CROWD_WEAK)
    return;
  /* Too many places for words to pick one: ambiguous (or weak, when crowded). */
  if (candidates->len > MAX_LABELLED)
    {
      choice->groups = candidates->len;
      return;
    }

  /* The candidates' labels, grouped. */
  for (guint i = 0; i < n; i++)
    {
      Candidate *candidate = &g_array_index (candidates, Candidate, i);
      g_autofree char *key = NULL;
      guint line = 0;
      g_autoptr(GArray) words = assay_provenance_label_of (&g_array_index (views, View, candidate->entry->view),
                                                           candidate->entry, &key, &line, NULL);
      guint g;

      /* Numbers of one line are places apart, though their words are the same. */
      for (guint j = 0; j < i; j++)
        {
          const Candidate *other = &g_array_index (candidates, Candidate, j);

          if (other->entry->view == candidate->entry->view && other->line == line && line != 0 &&
              other->entry->start != candidate->entry->start)
            {
              char *apart = g_strdup_printf ("%s#%u", key, candidate->entry->start);

              g_free (key);
              key = apart;
              break;
            }
        }
      candidate->line = line;
      for (g = 0; g < labels->len && !g_str_equal (g_ptr_array_index (labels, g), key); g++)
        ;
      if (g == labels->len)
        {
          g_ptr_array_add (group_words, g_steal_pointer (&words));
          g_ptr_array_add (labels, g_steal_pointer (&key));
        }
      candidate->group = g;
    }
  choice->groups = labels->len;

  assay_provenance_sentence (answer, length, claim->start, claim->end, &from, &to);
  {
    g_autoptr(GArray) words = assay_provenance_words (answer + from, to - from);

    for (guint i = 0; i < words->len; i++)
      {
        g_array_index (words, Word, i).start += from;
        g_array_index (words, Word, i).end += from;
      }
    sentence = g_steal_pointer (&words);
  }

  /* One label: named only when no other line of the output has it ("Total: …" among the
   * days; not "value: …" on every line). */
  if (choice->groups == 1)
    {
      if (choice->crowd >= CROWD_WEAK)
        {
          g_autofree char *key = NULL;
          guint line;
          g_autoptr(GArray) words = assay_provenance_label_of (view, choice->chosen->entry, &key, &line,
                                                               &chosen_unique);
        }
      choice->named = chosen_unique &&
                      assay_provenance_distance (group_words, 0, TRUE, sentence,
                                                 claim->start, claim->end) != G_MAXSIZE;
      return;
    }

  /* Several labels: the one the sentence names closest to the number. */
  for (guint g = 0; g < labels->len; g++)
    {
      gsize distance = assay_provenance_distance (group_words, g, FALSE, sentence, claim->start, claim->end);

      if (distance < best)
        best = distance, n_best = 1;
      else if (distance == best && distance != G_MAXSIZE)
        n_best++;
    }
  if (best == G_MAXSIZE || n_best != 1)
    {
      /* No word tells one apart: the one label the sentence names whole ("Riga brings the
       * most" names "Riga …", not "Riga · revenue"), if there is one. */
      guint named = G_MAXUINT, n_named = 0;

      for (guint g = 0; g < labels->len; g++)
        if (assay_provenance_fully_named (g_ptr_array_index (group_words, g), sentence))
          {
            named = g;
            n_named++;
          }
      if (n_named != 1)
        return;
      for (guint i = 0; i < n; i++)
        {
          const Candidate *candidate = &g_array_index (candidates, Candidate, i);

          if (candidate->group == named)
            {
              choice->chosen = candidate;
              choice->groups = 1;
              choice->named = TRUE;
              view = &g_array_index (views, View, candidate->entry->view);
              choice->crowd = assay_provenance_crowd (view, candidate->target, candidate->tolerance);
              return;
            }
        }
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      const Candidate *candidate = &g_array_index (candidates, Candidate, i);

      if (assay_provenance_distance (group_words, candidate->group, FALSE, sentence,
                                     claim->start, claim->end) == best)
        {
          choice->chosen = candidate;
          choice->groups = 1;
          choice->named = TRUE;
          view = &g_array_index (views, View, candidate->entry->view);
          choice->crowd = assay_provenance_crowd (view, candidate->target, candidate->tolerance);
          return;
        }
    }
}

/* The union of the values the claims may have been printed as, as sorted disjoint intervals:
 * a printed number outside them matches nothing and is not kept. */
static int
assay_provenance_compare_ranges (gconstpointer a,
                                 gconstpointer b)
{
  const Range *x = a, *y = b;
  return x->low < y->low ? -1 : x->low > y->low;
}

static GArray *
assay_provenance_claim_union (GArray *claims)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (Range));
  GArray *merged = g_array_new (FALSE, FALSE, sizeof (Range));

  for (guint i = 0; i < claims->len; i++)
    {
      Range ranges[4];
      guint n = assay_provenance_claim_ranges (&g_array_index (claims, AssayNumber, i), ranges);
      g_array_append_vals (all, ranges, n);
    }
  g_array_sort (all, assay_provenance_compare_ranges);
  for (guint i = 0; i < all->len; i++)
    {
      const Range *range = &g_array_index (all, Range, i);
      Range *last = merged->len > 0 ? &g_array_index (merged, Range, merged->len - 1) : NULL;

      if (last != NULL && range->low <= last->high)
        last->high = MAX (last->high, range->high);
      else
        g_array_append_val (merged, *range);
    }
  return merged;
}

static gboolean
assay_provenance_in_union (GArray *merged,
                           double  value)
{
  gsize lo = 0, hi = merged->len;

  /* The last interval that starts at or below VALUE. */
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (g_array_index (merged, Range, mid).low <= value)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 && value <= g_array_index (merged, Range, lo - 1).high;
}

/* Untrusted output as one line of plain text: valid UTF-8, no control characters. */
static char *
assay_provenance_clean_line (const char *text,
                             gsize       length)
{
  g_autofree char *valid = g_utf8_make_valid (text, (gssize) length);

  for (char *p = valid; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      *p = ' ';
  return g_steal_pointer (&valid);
}

static void
assay_provenance_fill_place (AssayTracedNumber *traced,
                             const View        *view,
                             const Printed     *entry)
{
  const char *text = view->text;
  gsize line_start = entry->start, line_end = entry->end;
  gsize from, to;
  guint line = 1;

  for (const char *p = text; (p = memchr (p, '\n', entry->start - (gsize) (p - text))) != NULL; p++)
    line++;
  while (line_start > 0 && text[line_start - 1] != '\n')
    line_start--;
  while (line_end < view->length && text[line_end] != '\n')
    line_end++;
  if (line_end > line_start && text[line_end - 1] == '\r')
    line_end--;

  /* A window of the line around the match, cut at character boundaries. */
  from = line_start;
  to = line_end;
  if (to - from > ASSAY_PROVENANCE_MAX_LINE)
    {
      gsize room = ASSAY_PROVENANCE_MAX_LINE - MIN (entry->end - entry->start, ASSAY_PROVENANCE_MAX_LINE);

      from = entry->start > line_start + room / 2 ? entry->start - room / 2 : line_start;
      to = MIN (line_end, MAX (entry->end, from + ASSAY_PROVENANCE_MAX_LINE));
      while (from > line_start && ((guchar) text[from] & 0xC0) == 0x80)
        from--;
      while (to < line_end && ((guchar) text[to] & 0xC0) == 0x80)
        to++;
    }

  /* Which number of the whole line it is: the place a run on new data reads again. */
  {
    g_autoptr(GArray) numbers = g_array_new (FALSE, FALSE, sizeof (AssayNumber));

    traced->number_in_line = G_MAXUINT;
    assay_number_scan (text + line_start, line_end - line_start, ASSAY_NUMBER_SCAN_OUTPUT, 0, numbers);
    for (guint i = 0; i < numbers->len; i++)
      if (g_array_index (numbers, AssayNumber, i).start == entry->start - line_start)
        traced->number_in_line = i;
  }

  traced->found = TRUE;
  traced->output = view->output;
  traced->view = g_strdup (view->view);
  traced->line = line;
  traced->line_text = assay_provenance_clean_line (text + from, to - from);
  traced->match_start = (guint) (entry->start - from);
  traced->match_end = (guint) (entry->end - from);
  /* make_valid may have changed the length before the match (invalid bytes). */
  if (traced->match_end > strlen (traced->line_text))
    {
      traced->match_start = 0;
      traced->match_end = 0;
    }
}

static void
assay_traced_number_free (AssayTracedNumber *traced)
{
  g_free (traced->text);
  g_free (traced->cell_id);
  g_free (traced->view);
  g_free (traced->line_text);
  g_free (traced);
}

static AssayTracedNumber *
assay_traced_number_copy (const AssayTracedNumber *traced)
{
  AssayTracedNumber *copy = g_memdup2 (traced, sizeof *traced);

  copy->text = g_strdup (traced->text);
  copy->cell_id = g_strdup (traced->cell_id);
  copy->view = g_strdup (traced->view);
  copy->line_text = g_strdup (traced->line_text);
  return copy;
}

AssayProvenance *
assay_provenance_new (void)
{
  AssayProvenance *provenance = g_new0 (AssayProvenance, 1);

  provenance->numbers = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_traced_number_free);
  return provenance;
}

AssayProvenance *
assay_provenance_copy (const AssayProvenance *provenance)
{
  AssayProvenance *copy = assay_provenance_new ();

  for (guint i = 0; i < provenance->numbers->len; i++)
    g_ptr_array_add (copy->numbers, assay_traced_number_copy (g_ptr_array_index (provenance->numbers, i)));
  return copy;
}

void
assay_provenance_free (AssayProvenance *provenance)
{
  if (provenance == NULL)
    return;
  g_ptr_array_unref (provenance->numbers);
  g_free (provenance);
}

guint
assay_provenance_count_untraced (const AssayProvenance *provenance)
{
  guint count = 0;

  g_return_val_if_fail (provenance != NULL, 0);

  for (guint i = 0; i < provenance->numbers->len; i++)
    if (!((AssayTracedNumber *) g_ptr_array_index (provenance->numbers, i))->found)
      count++;
  return count;
}

char *
assay_provenance_dup_untraced (const AssayProvenance *provenance)
{
  GString *list = NULL;

  g_return_val_if_fail (provenance != NULL, NULL);

  for (guint i = 0; i < provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (provenance->numbers, i);

      if (traced->found)
        continue;
      if (list == NULL)
        list = g_string_new (NULL);
      else
        g_string_append (list, ", ");
      g_string_append (list, traced->text);
    }
  return list != NULL ? g_string_free (list, FALSE) : NULL;
}

char *
assay_provenance_dup_weak (const AssayProvenance *provenance)
{
  GString *list = NULL;

  g_return_val_if_fail (provenance != NULL, NULL);

  for (guint i = 0; i < provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (provenance->numbers, i);

      if (traced->found || !traced->weak)
        continue;
      if (list == NULL)
        list = g_string_new (NULL);
      else
        g_string_append (list, ", ");
      g_string_append (list, traced->text);
    }
  return list != NULL ? g_string_free (list, FALSE) : NULL;
}

AssayProvenance *
assay_provenance_trace (const char                  *answer,
                        gssize                       length,
                        const AssayProvenanceSource *sources,
                        guint                        n_sources)
{
  AssayProvenance *provenance = assay_provenance_new ();
  g_autoptr(GArray) claims = NULL;
  g_autoptr(GArray) views = NULL;
  g_autoptr(GArray) printed = NULL;
  g_autoptr(GArray) wanted = NULL;

  g_return_val_if_fail (sources != NULL || n_sources == 0, provenance);

  if (answer == NULL)
    return provenance;
  if (length < 0)
    length = (gssize) strlen (answer);

  claims = assay_provenance_find_claims (answer, length);
  if (claims->len == 0)
    return provenance;

  views = g_array_new (FALSE, FALSE, sizeof (View));
  g_array_set_clear_func (views, assay_provenance_view_clear);
  assay_provenance_collect_views (sources, n_sources, views);
  wanted = assay_provenance_claim_union (claims);
  printed = assay_provenance_collect_printed (views, wanted);

  for (guint i = 0; i < claims->len; i++)
    {
      const AssayNumber *claim = &g_array_index (claims, AssayNumber, i);
      AssayTracedNumber *traced = g_new0 (AssayTracedNumber, 1);
      g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));
      Choice choice;

      traced->number_in_line = G_MAXUINT;
      traced->start = claim->start;
      traced->end = claim->end;
      traced->text = assay_provenance_clean_line (answer + claim->start, claim->end - claim->start);
      traced->value = claim->value;
      traced->percent = (claim->flags & ASSAY_NUMBER_PERCENT) != 0;

      assay_provenance_candidates (claim, printed, views, candidates);
      if (candidates->len > 0)
        {
          const View *view;

          assay_provenance_choose (answer, (gsize) length, claim, candidates, views, &choice);
          view = &g_array_index (views, View, choice.chosen->entry->view);
          traced->cell_id = g_strdup (sources[view->source].cell_id);
          assay_provenance_fill_place (traced, view, choice.chosen->entry);
          traced->places = choice.groups;
          traced->crowd = choice.crowd;
          /* Among many numbers near it, a match proves nothing unless its label is named. */
          if (choice.crowd >= CROWD_WEAK && !choice.named)
            {
              traced->found = FALSE;
              traced->weak = TRUE;
            }
          else
            traced->ambiguous = choice.groups > 1;
        }
      g_ptr_array_add (provenance->numbers, traced);
    }
  return provenance;
}

/* ---- the record ------------------------------------------------------------------------- */

JsonNode *
assay_provenance_to_json (const AssayProvenance *provenance)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (provenance != NULL, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "numbers");
  json_builder_begin_array (builder);
  for (guint i = 0; i < provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (provenance->numbers, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "start");
      json_builder_add_int_value (builder, traced->start);
      json_builder_set_member_name (builder, "end");
      json_builder_add_int_value (builder, traced->end);
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, traced->text);
      json_builder_set_member_name (builder, "value");
      json_builder_add_double_value (builder, traced->value);
      if (traced->percent)
        {
          json_builder_set_member_name (builder, "percent");
          json_builder_add_boolean_value (builder, TRUE);
        }
      json_builder_set_member_name (builder, "found");
      json_builder_add_boolean_value (builder, traced->found);
      if (traced->stale && !traced->found)
        {
          json_builder_set_member_name (builder, "stale");
          json_builder_add_boolean_value (builder, TRUE);
        }
      if (traced->found && traced->ambiguous)
        {
          json_builder_set_member_name (builder, "ambiguous");
          json_builder_add_boolean_value (builder, TRUE);
          json_builder_set_member_name (builder, "places");
          json_builder_add_int_value (builder, traced->places);
        }
      if (traced->weak && !traced->found)
        {
          json_builder_set_member_name (builder, "weak");
          json_builder_add_boolean_value (builder, TRUE);
          json_builder_set_member_name (builder, "crowd");
          json_builder_add_int_value (builder, traced->crowd);
        }
      if (traced->found || traced->weak)
        {
          json_builder_set_member_name (builder, "cell");
          json_builder_add_string_value (builder, traced->cell_id);
          json_builder_set_member_name (builder, "output");
          json_builder_add_int_value (builder, traced->output);
          json_builder_set_member_name (builder, "view");
          json_builder_add_string_value (builder, traced->view);
          json_builder_set_member_name (builder, "line");
          json_builder_add_int_value (builder, traced->line);
          json_builder_set_member_name (builder, "line_text");
          json_builder_add_string_value (builder, traced->line_text);
          json_builder_set_member_name (builder, "match_start");
          json_builder_add_int_value (builder, traced->match_start);
          json_builder_set_member_name (builder, "match_end");
          json_builder_add_int_value (builder, traced->match_end);
          if (traced->number_in_line != G_MAXUINT)
            {
              json_builder_set_member_name (builder, "number_in_line");
              json_builder_add_int_value (builder, traced->number_in_line);
            }
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static const char *
assay_provenance_known_view (const char *view)
{
  for (gsize i = 0; view != NULL && i < G_N_ELEMENTS (view_names); i++)
    if (strcmp (view, view_names[i]) == 0)
      return view_names[i];
  return NULL;
}

AssayProvenance *
assay_provenance_from_json (JsonNode   *node,
                            const char *answer)
{
  g_autoptr(AssayProvenance) provenance = NULL;
  gsize answer_length = answer != NULL ? strlen (answer) : 0;
  JsonObject *object;
  JsonArray *numbers;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  numbers = assay_json_get_array (object, "numbers");
  if (numbers == NULL)
    return NULL;

  provenance = assay_provenance_new ();
  for (guint i = 0; i < json_array_get_length (numbers) && i < MAX_NUMBERS; i++)
    {
      JsonNode *element = json_array_get_element (numbers, i);
      JsonObject *item;
      AssayTracedNumber *traced;
      gint64 start, end;
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      item = json_node_get_object (element);
      start = assay_json_get_int_or (item, "start", -1);
      end = assay_json_get_int_or (item, "end", -1);
      text = assay_json_get_string (item, "text");
      /* The span must hold, in this answer, the number it names. */
      if (start < 0 || end <= start || (gsize) end > answer_length || text == NULL ||
          strlen (text) != (gsize) (end - start) || memcmp (answer + start, text, (gsize) (end - start)) != 0)
        continue;

      traced = g_new0 (AssayTracedNumber, 1);
      traced->number_in_line = G_MAXUINT;
      traced->start = (guint) start;
      traced->end = (guint) end;
      traced->text = g_strdup (text);
      if (json_object_has_member (item, "value") &&
          JSON_NODE_HOLDS_VALUE (json_object_get_member (item, "value")) &&
          (json_node_get_value_type (json_object_get_member (item, "value")) == G_TYPE_DOUBLE ||
           json_node_get_value_type (json_object_get_member (item, "value")) == G_TYPE_INT64))
        traced->value = json_object_get_double_member (item, "value");
      traced->percent = assay_json_get_boolean_or (item, "percent", FALSE);
      traced->found = assay_json_get_boolean_or (item, "found", FALSE);
      traced->stale = !traced->found && assay_json_get_boolean_or (item, "stale", FALSE);
      traced->ambiguous = traced->found && assay_json_get_boolean_or (item, "ambiguous", FALSE);
      traced->places = traced->ambiguous ? (guint) CLAMP (assay_json_get_int_or (item, "places", 2), 2, G_MAXINT32) : 0;
      traced->weak = !traced->found && !traced->stale && assay_json_get_boolean_or (item, "weak", FALSE);
      traced->crowd = traced->weak ? (guint) CLAMP (assay_json_get_int_or (item, "crowd", 0), 0, G_MAXINT32) : 0;
      if (traced->found || traced->weak)
        {
          const char *line_text = assay_json_get_string (item, "line_text");
          gint64 match_start = assay_json_get_int_or (item, "match_start", 0);
          gint64 match_end = assay_json_get_int_or (item, "match_end", 0);
          gsize line_length;

          traced->cell_id = assay_json_dup_string (item, "cell");
          traced->output = (guint) CLAMP (assay_json_get_int_or (item, "output", 0), 0, G_MAXUINT);
          traced->view = g_strdup (assay_provenance_known_view (assay_json_get_string (item, "view")));
          traced->line = (guint) CLAMP (assay_json_get_int_or (item, "line", 1), 1, G_MAXUINT);
          traced->line_text = line_text != NULL
                              ? assay_provenance_clean_line (line_text, MIN (strlen (line_text), ASSAY_PROVENANCE_MAX_LINE * 2))
                              : g_strdup ("");
          line_length = strlen (traced->line_text);
          if (match_start < 0 || match_end < match_start || (gsize) match_end > line_length)
            match_start = match_end = 0;
          traced->match_start = (guint) match_start;
          traced->match_end = (guint) match_end;
          traced->number_in_line = (guint) CLAMP (assay_json_get_int_or (item, "number_in_line", G_MAXUINT), 0, G_MAXUINT);
          if (traced->cell_id == NULL || traced->view == NULL)
            {
              /* A place that names nothing is no place. */
              g_clear_pointer (&traced->cell_id, g_free);
              g_clear_pointer (&traced->view, g_free);
              g_clear_pointer (&traced->line_text, g_free);
              traced->found = FALSE;
              traced->ambiguous = traced->weak = FALSE;
            }
        }
      g_ptr_array_add (provenance->numbers, traced);
    }
  return g_steal_pointer (&provenance);
}
