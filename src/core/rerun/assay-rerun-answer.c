/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An answer's numbers read again on a run's new outputs: each follows its label (see
 * assay-anchor.h) or is kept, stale; the new answer's provenance, its changes named and placed
 * in their sentences, and the note when a ranking may have changed. */
#define G_LOG_DOMAIN "Assay-Rerun"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "assay-anchor.h"
#include "assay-number.h"
#include "assay-provenance.h"
#include "assay-rerun.h"
#include "assay-rerun-private.h"

struct _AssayRerunAnswers
{
  AssaySession *origin;    /* borrowed */
  GHashTable   *outputs;   /* borrowed: cell id → JsonArray*, the new run's outputs */
  GHashTable   *anchors;   /* "cell\nview" → Anchors: the old and new outputs read for anchors */
};

/* A cell's outputs in one view, then and now. */
typedef struct
{
  AssayAnchorTexts *old;
  AssayAnchorTexts *new;
  char             *cell_id;
  GArray           *places;   /* guint pairs: the output and line (of OLD) each number was read in */
} Anchors;

static void
assay_rerun_anchors_free (Anchors *anchors)
{
  assay_anchor_texts_free (anchors->old);
  assay_anchor_texts_free (anchors->new);
  g_free (anchors->cell_id);
  g_array_unref (anchors->places);
  g_free (anchors);
}

static AssayAnchorTexts *
assay_rerun_view_texts (JsonArray  *outputs,
                        const char *view)
{
  guint n = outputs != NULL ? json_array_get_length (outputs) : 0;
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (texts, assay_provenance_dup_view_text (outputs, i, view));
  return assay_anchor_texts_new ((const char * const *) texts->pdata, texts->len, g_str_equal (view, "text/html"));
}

static JsonArray *
assay_rerun_origin_outputs (AssayRerunAnswers *self,
                            const char *cell_id)
{
  for (guint i = 0; i < assay_session_get_n_cells (self->origin); i++)
    {
      const AssaySessionCell *cell = assay_session_get_cell (self->origin, i);

      if (g_strcmp0 (cell->id, cell_id) == 0)
        return cell->outputs;
    }
  return NULL;
}

/* The outputs of CELL_ID in VIEW, then and now, read once a run; NULL when it did not run
 * again. */
static Anchors *
assay_rerun_anchors (AssayRerunAnswers *self,
                     const char *cell_id,
                     const char *view)
{
  g_autofree char *key = g_strdup_printf ("%s\n%s", cell_id, view);
  Anchors *anchors = g_hash_table_lookup (self->anchors, key);
  JsonArray *outputs;

  if (anchors != NULL)
    return anchors;
  outputs = g_hash_table_lookup (self->outputs, cell_id);
  if (outputs == NULL)
    return NULL;
  anchors = g_new0 (Anchors, 1);
  anchors->old = assay_rerun_view_texts (assay_rerun_origin_outputs (self, cell_id), view);
  anchors->new = assay_rerun_view_texts (outputs, view);
  anchors->cell_id = g_strdup (cell_id);
  anchors->places = g_array_new (FALSE, FALSE, sizeof (guint));
  g_hash_table_insert (self->anchors, g_steal_pointer (&key), anchors);
  return anchors;
}

/* The new value of TRACED: the number its label stands next to in the new outputs (see
 * assay-anchor.h), turned into what the answer wrote the way the old one was (its negative,
 * or a fraction as a percentage). MATCH says where, or why not. */
static gboolean
assay_rerun_read_again (AssayRerunAnswers       *self,
                        const AssayTracedNumber *traced,
                        AssayAnchorMatch        *match,
                        guint                   *number_in_line,
                        double                  *value)
{
  g_autoptr(GArray) old_line = g_array_new (FALSE, FALSE, sizeof (AssayNumber));
  static const double factors[] = { 1, -1, 100, -100 };
  double printed = 0;
  guint k = G_MAXUINT;
  double factor = 1, best = INFINITY;
  Anchors *anchors;

  memset (match, 0, sizeof *match);
  match->status = ASSAY_ANCHOR_INVALID;
  if (!traced->found || traced->cell_id == NULL || traced->line_text == NULL || traced->view == NULL)
    return FALSE;
  /* Printed under several labels, the answer naming none: which one to follow is not known. */
  if (traced->ambiguous)
    {
      match->status = ASSAY_ANCHOR_AMBIGUOUS;
      *number_in_line = traced->number_in_line;
      return FALSE;
    }
  anchors = assay_rerun_anchors (self, traced->cell_id, traced->view);
  if (anchors == NULL)
    return FALSE;

  /* What it printed, and which number of its line it was (the record says; for a record that
   * does not, the line kept is the whole line unless it was long). */
  assay_number_scan (traced->line_text, strlen (traced->line_text), ASSAY_NUMBER_SCAN_OUTPUT, 0, old_line);
  for (guint i = 0; i < old_line->len; i++)
    if (g_array_index (old_line, AssayNumber, i).start == traced->match_start)
      {
        k = i;
        printed = g_array_index (old_line, AssayNumber, i).value;
      }
  if (k == G_MAXUINT)
    return FALSE;
  if (traced->number_in_line != G_MAXUINT)
    k = traced->number_in_line;
  *number_in_line = k;
  g_array_append_vals (anchors->places, (guint[]) { traced->output, traced->line }, 2);
  if (!assay_anchor_follow (anchors->old, traced->output, traced->line, k, anchors->new, match))
    return FALSE;
  /* The record's place must hold what the record says was printed there. */
  if (fabs (match->old_value - printed) > 1e-9 * MAX (1.0, fabs (printed)))
    {
      match->status = ASSAY_ANCHOR_INVALID;
      return FALSE;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (factors); i++)
    {
      double error = fabs (traced->value - factors[i] * printed);

      if (error < best)
        {
          best = error;
          factor = factors[i];
        }
    }
  *value = factor * match->value;
  return isfinite (*value);
}

/* The sentence of TEXT around [START, END) (a Markdown table's row, a list item's line),
 * for What changed: at most 300 characters. */
static char *
assay_rerun_sentence (const char *text,
                      gsize       start,
                      gsize       end)
{
  gsize length = strlen (text), from = start, to = end, line_from = start, line_to = end;
  g_autoptr(GString) out = g_string_new (NULL);

  while (line_from > 0 && text[line_from - 1] != '\n')
    line_from--;
  while (line_to < length && text[line_to] != '\n')
    line_to++;
  while (line_from < line_to && g_ascii_isspace (text[line_from]))
    line_from++;
  if (line_from < line_to && text[line_from] == '|')
    {
      /* A table's row: its cells. */
      g_autofree char *row = g_strndup (text + line_from, line_to - line_from);
      g_auto(GStrv) cells = g_strsplit (row, "|", -1);

      for (guint i = 0; cells[i] != NULL; i++)
        {
          g_strstrip (cells[i]);
          if (*cells[i] == '\0')
            continue;
          if (out->len > 0)
            g_string_append (out, " · ");
          g_string_append (out, cells[i]);
        }
    }
  else
    {
      while (from > line_from && !((text[from - 1] == '.' || text[from - 1] == '!' || text[from - 1] == '?' ||
                                    text[from - 1] == ';') && g_ascii_isspace (text[from])))
        from--;
      while (to < line_to && !((text[to] == '.' || text[to] == '!' || text[to] == '?' || text[to] == ';') &&
                               (to + 1 >= line_to || g_ascii_isspace (text[to + 1]))))
        to++;
      if (to < line_to)
        to++;
      g_string_append_len (out, text + from, to - from);
      g_strstrip (out->str);
      g_string_set_size (out, strlen (out->str));
    }
  if (!g_utf8_validate (out->str, -1, NULL))
    return NULL;
  if (g_utf8_strlen (out->str, -1) > 300)
    {
      g_string_truncate (out, g_utf8_offset_to_pointer (out->str, 299) - out->str);
      g_string_append (out, "…");
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* A number of a new answer: where it stands in it, and where it was read (or why not). */
typedef struct
{
  guint                    start;
  guint                    end;
  const AssayTracedNumber *traced;   /* the old answer's */
  AssayRerunChange        *change;
  AssayAnchorMatch         match;
  guint                    number_in_line;
} Placed;

static void
assay_rerun_placed_clear (Placed *placed)
{
  assay_anchor_match_clear (&placed->match);
}

/* ANSWER with each traced number of PROVENANCE replaced by its new value (or kept, stale);
 * a change each in CHANGES, and in PLACED (Placed) where each stands now. */
static char *
assay_rerun_update_answer (AssayRerunAnswers     *self,
                           const char            *answer,
                           const AssayProvenance *provenance,
                           guint                  question,
                           GPtrArray             *changes,
                           GArray                *placed)
{
  GString *out = g_string_new (NULL);
  gsize at = 0, length = strlen (answer);
  AssayNumberScanFlags flags = ASSAY_NUMBER_SCAN_PROSE;

  if (assay_number_prefers_decimal_comma (answer, length))
    flags |= ASSAY_NUMBER_SCAN_DECIMAL_COMMA;
  for (guint i = 0; provenance != NULL && i < provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (provenance->numbers, i);
      AssayRerunChange *change;
      g_autoptr(GArray) claim = g_array_new (FALSE, FALSE, sizeof (AssayNumber));
      Placed place = { 0 };
      double value;

      if (!traced->found || traced->start < at || traced->end > length)
        continue;
      change = g_new0 (AssayRerunChange, 1);
      change->question = question;
      change->before_text = g_strdup (traced->text);
      change->before = traced->value;
      change->cell_id = g_strdup (traced->cell_id);
      assay_number_scan (traced->text, strlen (traced->text), flags, 0, claim);
      g_string_append_len (out, answer + at, traced->start - at);
      place.traced = traced;
      place.change = change;
      place.number_in_line = G_MAXUINT;
      if (claim->len > 0 && assay_rerun_read_again (self, traced, &place.match, &place.number_in_line, &value))
        {
          change->after = value;
          change->after_text = assay_number_format_like (value, traced->text, &g_array_index (claim, AssayNumber, 0));
        }
      else
        {
          change->stale = TRUE;
          change->after = traced->value;
          change->after_text = g_strdup (traced->text);
        }
      /* What it is: its line's words then (its row and column in a table), in the old outputs
       * the anchors read already. */
      if (place.number_in_line != G_MAXUINT)
        change->label = assay_anchor_texts_describe (assay_rerun_anchors (self, traced->cell_id, traced->view)->old,
                                                     traced->output, traced->line, place.number_in_line);
      place.start = out->len;
      g_string_append (out, change->after_text);
      place.end = out->len;
      at = traced->end;
      g_array_append_val (placed, place);
      g_ptr_array_add (changes, change);
    }
  g_string_append_len (out, answer + at, length - at);
  for (guint i = 0; i < placed->len; i++)
    {
      Placed *place = &g_array_index (placed, Placed, i);

      place->change->sentence = assay_rerun_sentence (out->str, place->start, place->end);
    }
  return g_string_free (out, FALSE);
}

/* The line kept for a traced number: at most ASSAY_PROVENANCE_MAX_LINE bytes around the
 * number, cut between characters; MATCH's span moved into it. */
static char *
assay_rerun_cut_line (const AssayAnchorMatch *match,
                      guint                  *match_start,
                      guint                  *match_end)
{
  gsize length = strlen (match->line_text), from = 0, to = length;

  *match_start = match->match_start;
  *match_end = match->match_end;
  if (length <= ASSAY_PROVENANCE_MAX_LINE)
    return g_strdup (match->line_text);
  from = match->match_start > ASSAY_PROVENANCE_MAX_LINE / 2 ? match->match_start - ASSAY_PROVENANCE_MAX_LINE / 2 : 0;
  while (from > 0 && (match->line_text[from] & 0xC0) == 0x80)
    from--;
  to = MIN (length, from + ASSAY_PROVENANCE_MAX_LINE);
  while (to < length && to > match->match_end && (match->line_text[to] & 0xC0) == 0x80)
    to--;
  to = MAX (to, match->match_end);
  *match_start -= from;
  *match_end -= from;
  return g_strndup (match->line_text + from, to - from);
}

/* The new answer's provenance: each number that was followed is traced to the line it was
 * read from, a stale one is not found (and says so), and a number the old answer did not
 * trace is not vouched for now either, whatever value an output happens to print. */
static void
assay_rerun_trace_answer (AssaySession *session,
                          guint         message,
                          GArray       *placed)
{
  const AssayProvenance *traced = assay_session_trace_answer (session, message);
  AssayProvenance *provenance;

  if (traced == NULL)
    return;
  provenance = assay_provenance_copy (traced);
  for (guint i = 0; i < provenance->numbers->len; i++)
    {
      AssayTracedNumber *number = g_ptr_array_index (provenance->numbers, i);
      const Placed *place = NULL;

      for (guint j = 0; j < placed->len && place == NULL; j++)
        if (g_array_index (placed, Placed, j).start == number->start &&
            g_array_index (placed, Placed, j).end == number->end)
          place = &g_array_index (placed, Placed, j);
      g_clear_pointer (&number->cell_id, g_free);
      g_clear_pointer (&number->view, g_free);
      g_clear_pointer (&number->line_text, g_free);
      number->found = FALSE;
      number->stale = FALSE;
      number->ambiguous = number->weak = FALSE;
      number->places = number->crowd = 0;
      number->number_in_line = G_MAXUINT;
      if (place == NULL)
        continue;
      if (place->change->stale || place->match.status != ASSAY_ANCHOR_FOUND)
        {
          number->stale = TRUE;
          continue;
        }
      number->found = TRUE;
      number->cell_id = g_strdup (place->traced->cell_id);
      number->output = place->match.text;
      number->view = g_strdup (place->traced->view);
      number->line = place->match.line;
      number->line_text = assay_rerun_cut_line (&place->match, &number->match_start, &number->match_end);
      number->number_in_line = place->number_in_line;
    }
  assay_session_set_provenance (session, message, provenance);
}

/* Cell ids in the order the cells ran: "c2" before "c10". */
static int
assay_rerun_compare_cell_ids (gconstpointer a,
                              gconstpointer b)
{
  const char *x = *(const char * const *) a, *y = *(const char * const *) b;
  guint64 nx = x[0] == 'c' ? g_ascii_strtoull (x + 1, NULL, 10) : 0;
  guint64 ny = y[0] == 'c' ? g_ascii_strtoull (y + 1, NULL, 10) : 0;

  return nx != ny ? (nx < ny ? -1 : 1) : g_strcmp0 (x, y);
}

/* A note when the rows of a table the answers' numbers were read in came in another order (or
 * came or went): their wording may no longer hold. */
void
assay_rerun_answers_note_reordered (AssayRerunAnswers *self,
                                    AssaySession      *session)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new ();
  g_autofree char *list = NULL;
  g_autofree char *note = NULL;
  GHashTableIter iter;
  Anchors *anchors;

  if (session == NULL)
    return;
  g_hash_table_iter_init (&iter, self->anchors);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &anchors))
    if (anchors->places->len > 0 &&
        assay_anchor_order_changed (anchors->old, anchors->new, (const guint *) (gpointer) anchors->places->data,
                                    anchors->places->len / 2))
      {
        gboolean seen = FALSE;

        for (guint i = 0; i < cells->len && !seen; i++)
          seen = g_str_equal (g_ptr_array_index (cells, i), anchors->cell_id);
        if (!seen)
          g_ptr_array_add (cells, anchors->cell_id);
      }
  if (cells->len == 0)
    return;
  g_ptr_array_sort (cells, (GCompareFunc) assay_rerun_compare_cell_ids);
  g_ptr_array_add (cells, NULL);
  list = g_strjoinv (", ", (char **) cells->pdata);
  note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "The rows the answer's numbers were read in (cell %s) came in another order "
                                       "on the new data, or rows came or went: words such as “most”, “top” or "
                                       "“first” may no longer hold (Rewrite Summary, or assay-cli rerun --rewrite, has "
                                       "the model reword the summary from the new outputs).",
                                       "The rows the answers' numbers were read in (cells %s) came in another order "
                                       "on the new data, or rows came or went: words such as “most”, “top” or "
                                       "“first” may no longer hold (Rewrite Summary, or assay-cli rerun --rewrite, has "
                                       "the model reword the summary from the new outputs).",
                                       cells->len - 1),
                          list);
  assay_session_add_rerun_note (session, note);
}

char *
assay_rerun_rewrite_instruction (const char *answer)
{
  g_return_val_if_fail (answer != NULL, NULL);

  return g_strdup_printf ("This analysis ran again, unchanged, on new data: the tool results above are the "
                          "new outputs. Below is the final answer with its numbers updated one by one from "
                          "those outputs. Rewrite it so that it reads right for the new outputs: the same "
                          "structure and about the same length, every number taken from the outputs above, "
                          "no claim the outputs do not support. Reply with the answer's text only: no code, "
                          "no tool.\n\n<answer>\n%s\n</answer>", answer);
}


AssayRerunAnswers *
assay_rerun_answers_new (AssaySession *origin,
                         GHashTable   *outputs)
{
  AssayRerunAnswers *self = g_new0 (AssayRerunAnswers, 1);

  self->origin = origin;
  self->outputs = outputs;
  self->anchors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) assay_rerun_anchors_free);
  return self;
}

void
assay_rerun_answers_free (AssayRerunAnswers *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->anchors);
  g_free (self);
}

char *
assay_rerun_answers_update (AssayRerunAnswers     *self,
                            AssaySession          *session,
                            const char            *answer,
                            const AssayProvenance *provenance,
                            guint                  question,
                            GPtrArray             *changes)
{
  g_autoptr(GArray) placed = g_array_new (FALSE, TRUE, sizeof (Placed));
  char *updated;

  g_array_set_clear_func (placed, (GDestroyNotify) assay_rerun_placed_clear);
  updated = assay_rerun_update_answer (self, answer, provenance, question, changes, placed);
  assay_session_append_message (session, assay_llm_message_new_assistant (updated));
  assay_rerun_trace_answer (session, assay_session_get_messages (session)->len - 1, placed);
  return updated;
}
