/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Rerun"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "assay-agent-private.h"
#include "assay-anchor.h"
#include "assay-approval.h"
#include "assay-dataset.h"
#include "assay-number.h"
#include "assay-provenance.h"
#include "assay-rerun.h"
#include "assay-rerun-private.h"
#include "assay-sandbox-choice.h"
#include "assay-session-outline.h"
#include "assay-source.h"
#include "assay-sql-check.h"

/* What a run-again cell's tool result gives of its output (the model may read it later). */
#define RESULT_BUDGET 4000

G_DEFINE_QUARK (assay-rerun-error-quark, assay_rerun_error)

/* ---- comparing the data ---------------------------------------------------------------- */

void
assay_rerun_dataset_free (AssayRerunDataset *dataset)
{
  if (dataset == NULL)
    return;
  g_free (dataset->name);
  g_free (dataset->new_path);
  g_ptr_array_unref (dataset->missing);
  g_ptr_array_unref (dataset->retyped);
  g_ptr_array_unref (dataset->added);
  g_ptr_array_unref (dataset->notes);
  g_clear_pointer (&dataset->to, assay_csv_dialect_free);
  g_clear_pointer (&dataset->from, assay_csv_dialect_free);
  g_free (dataset->numeric);
  g_free (dataset);
}

gboolean
assay_rerun_dataset_matches (const AssayRerunDataset *dataset)
{
  return dataset->missing->len == 0 && dataset->retyped->len == 0 && !dataset->incompatible;
}

/* Types the approved code reads the same way: integers and decimals are both numbers. */
static const char *
assay_rerun_type_family (const char *type)
{
  if (g_strcmp0 (type, "integer") == 0 || g_strcmp0 (type, "float") == 0)
    return "number";
  return type != NULL ? type : "";
}

static char *
assay_rerun_column_type (AssayDataset *dataset,
                         guint         column)
{
  g_autoptr(JsonObject) json = assay_dataset_get_column_json (dataset, column);
  const char *type = json != NULL && json_object_has_member (json, "type")
                     ? json_object_get_string_member_with_default (json, "type", NULL) : NULL;

  return g_strdup (type != NULL ? type : "?");
}

AssayRerunDataset *
assay_rerun_compare (const char  *name,
                     const char  *old_path,
                     const char  *new_path,
                     GError     **error)
{
  g_autoptr(AssayDataset) before = NULL;
  g_autoptr(AssayDataset) after = NULL;
  AssayRerunDataset *dataset;
  const char * const *old_names;
  const char * const *new_names;
  const AssayCsvDialect *a, *b;

  before = assay_dataset_open (old_path, NULL, error);
  if (before == NULL)
    return NULL;
  after = assay_dataset_open (new_path, NULL, error);
  if (after == NULL)
    return NULL;

  dataset = g_new0 (AssayRerunDataset, 1);
  dataset->name = g_strdup (name);
  dataset->new_path = g_strdup (new_path);
  dataset->old_rows = (gint64) assay_dataset_get_n_rows (before);
  dataset->new_rows = (gint64) assay_dataset_get_n_rows (after);
  dataset->missing = g_ptr_array_new_with_free_func (g_free);
  dataset->retyped = g_ptr_array_new_with_free_func (g_free);
  dataset->added = g_ptr_array_new_with_free_func (g_free);
  dataset->notes = g_ptr_array_new_with_free_func (g_free);

  old_names = assay_dataset_get_column_names (before);
  new_names = assay_dataset_get_column_names (after);
  for (guint i = 0; old_names[i] != NULL; i++)
    {
      guint j;

      for (j = 0; new_names[j] != NULL && g_strcmp0 (new_names[j], old_names[i]) != 0; j++)
        ;
      if (new_names[j] == NULL)
        g_ptr_array_add (dataset->missing, g_strdup (old_names[i]));
      else
        {
          g_autofree char *old_type = assay_rerun_column_type (before, i);
          g_autofree char *new_type = assay_rerun_column_type (after, j);

          if (g_strcmp0 (assay_rerun_type_family (old_type), assay_rerun_type_family (new_type)) != 0)
            g_ptr_array_add (dataset->retyped, g_strdup_printf ("%s: %s → %s", old_names[i], old_type, new_type));
        }
    }
  for (guint j = 0; new_names[j] != NULL; j++)
    if (!g_strv_contains (old_names, new_names[j]))
      g_ptr_array_add (dataset->added, g_strdup (new_names[j]));

  /* The approved code reads the file with the old dialect's call: a new one is converted. */
  a = assay_dataset_get_dialect (before);
  b = assay_dataset_get_dialect (after);
  if (a != NULL && b != NULL)
    {
      if (g_strcmp0 (a->encoding, b->encoding) != 0)
        g_ptr_array_add (dataset->notes, g_strdup_printf (_("the encoding is %s, not %s"), b->encoding, a->encoding));
      if (a->delimiter != b->delimiter)
        g_ptr_array_add (dataset->notes, g_strdup_printf (_("the delimiter is “%c”, not “%c”"), b->delimiter, a->delimiter));
      if (a->decimal != b->decimal)
        g_ptr_array_add (dataset->notes, g_strdup_printf (_("the decimal separator is “%c”, not “%c”"),
                                                          b->decimal, a->decimal));
      if (g_strcmp0 (a->thousands, b->thousands) != 0 && b->thousands[0] != '\0')
        g_ptr_array_add (dataset->notes, g_strdup_printf (_("thousands are separated by “%s”"), b->thousands));
      if (a->quote != b->quote || a->backslash_escape != b->backslash_escape ||
          (a->bom_len > 0) != (b->bom_len > 0) || g_strcmp0 (a->line_ending, b->line_ending) != 0)
        dataset->convert = TRUE;
      if (dataset->notes->len > 0)
        dataset->convert = TRUE;
      if (dataset->convert)
        {
          guint n = assay_dataset_get_n_columns (after);

          dataset->to = assay_csv_dialect_copy (a);
          dataset->from = assay_csv_dialect_copy (b);
          dataset->numeric = g_new0 (gboolean, MAX (n, 1));
          dataset->n_numeric = n;
          for (guint j = 0; j < n; j++)
            {
              g_autofree char *type = assay_rerun_column_type (after, j);

              dataset->numeric[j] = g_strcmp0 (assay_rerun_type_family (type), "number") == 0;
            }
        }
    }
  else if ((a == NULL) != (b == NULL))
    {
      g_ptr_array_add (dataset->notes, g_strdup (_("one file is a workbook and the other is not")));
      dataset->incompatible = TRUE;
    }
  return dataset;
}

/* ---- a change, written ------------------------------------------------------------------ */

char *
assay_rerun_format_delta (const AssaySessionChange *change)
{
  g_autoptr(GArray) claim = g_array_new (FALSE, FALSE, sizeof (AssayNumber));
  AssayNumberScanFlags flags = ASSAY_NUMBER_SCAN_PROSE;
  double delta;
  g_autofree char *written = NULL;

  if (change->stale || change->after_text == NULL)
    return g_strdup ("—");
  delta = change->after - change->before;
  if (assay_number_prefers_decimal_comma (change->after_text, strlen (change->after_text)))
    flags |= ASSAY_NUMBER_SCAN_DECIMAL_COMMA;
  assay_number_scan (change->after_text, strlen (change->after_text), flags, 0, claim);
  if (claim->len == 0)
    written = g_strdup_printf ("%.6g", fabs (delta));
  else
    written = assay_number_format_like (fabs (delta), change->after_text, &g_array_index (claim, AssayNumber, 0));
  if (delta == 0)
    return g_steal_pointer (&written);
  /* The magnitude written the answer's way, without the sign it may carry, then our own. */
  {
    const char *magnitude = written;

    while (*magnitude == '+' || *magnitude == '-')
      magnitude++;
    if (g_str_has_prefix (magnitude, "−"))
      magnitude += strlen ("−");
    return g_strconcat (delta > 0 ? "+" : "−", magnitude, NULL);
  }
}

char *
assay_rerun_format_percent (const AssaySessionChange *change)
{
  double percent;

  if (!assay_session_change_percent (change, &percent))
    return g_strdup ("—");
  if (fabs (percent) < 0.05)
    return g_strdup ("0.0 %");
  return g_strdup_printf ("%s%.1f %%", percent > 0 ? "+" : "−", fabs (percent));
}

/* ---- the result ------------------------------------------------------------------------ */


void
assay_rerun_result_free (AssayRerunResult *result)
{
  if (result == NULL)
    return;
  g_clear_object (&result->session);
  g_ptr_array_unref (result->datasets);
  g_ptr_array_unref (result->changes);
  g_ptr_array_unref (result->repaired);
  g_free (result->failed_cell);
  g_free (result);
}

/* ---- the run --------------------------------------------------------------------------- */

typedef enum
{
  ITEM_QUESTION,   /* a question: a user message */
  ITEM_REPLY,      /* a reply with tool calls: the assistant message */
  ITEM_CELL,       /* a call whose cell succeeded: it runs again */
  ITEM_SKIP,       /* a call whose cell did not succeed (or had none): a tool result says so */
  ITEM_END_STEP,   /* every call of the reply is answered */
  ITEM_ANSWER,     /* an answer: its numbers re-read */
  ITEM_CELL_QUIET, /* a call after a repaired cell: its tool result was given before the repair */
  ITEM_NOTHING,    /* done already */
} ItemKind;

typedef struct
{
  ItemKind                kind;
  guint                   question;
  const AssayLlmMessage  *message;   /* REPLY, ANSWER: the origin's, borrowed */
  const char             *text;      /* QUESTION */
  const AssaySessionCell *cell;      /* CELL: the origin's, borrowed */
  const char             *call_id;   /* CELL, SKIP */
  const AssayProvenance  *provenance; /* ANSWER */
} Item;

typedef struct
{
  AssaySession        *origin;
  AssaySession        *session;
  AssayKernelSession  *kernel;
  AssaySessionOutline *outline;
  GArray              *items;       /* Item */
  guint                next;
  GHashTable          *outputs;     /* cell id → JsonArray* (the new run's outputs, borrowed) */
  AssayRerunResult    *result;
  AssayRerunProgressFunc progress;
  gpointer             progress_data;
  GDestroyNotify       progress_destroy;
  guint                n_planned;   /* cells that will run */
  gint64               cell_started;
  AssayRerunAgentFunc  make_agent;  /* for a repair; NULL: a failed cell stops the run */
  gpointer             agent_data;
  AssayAgent          *agent;       /* the repair under way */
  guint                n_repairs;
  guint                highest_cell; /* the highest cell number of the origin */
  const char          *failed_id;   /* the origin's id of the cell being repaired */
  GHashTable          *sources;     /* name → AssaySource*: the databases SQL cells query again */
  gint64               query_started;
  AssayRerunAnswers   *answers;     /* the answers' numbers read again in the new outputs */
} Run;

static void
assay_rerun_run_free (Run *run)
{
  g_clear_object (&run->origin);
  g_clear_object (&run->session);
  g_clear_object (&run->kernel);
  g_clear_pointer (&run->outline, assay_session_outline_free);
  g_clear_pointer (&run->items, g_array_unref);
  g_clear_pointer (&run->outputs, g_hash_table_unref);
  g_clear_pointer (&run->result, assay_rerun_result_free);
  g_clear_object (&run->agent);
  g_clear_pointer (&run->sources, g_hash_table_unref);
  g_clear_pointer (&run->answers, assay_rerun_answers_free);
  if (run->progress_destroy != NULL)
    run->progress_destroy (run->progress_data);
  g_free (run);
}

/* Cells repaired in one run at most: beyond this, the data has changed too much. */
#define MAX_REPAIRS 3

static void
assay_rerun_plan (Run *run)
{
  for (guint i = 0; i < assay_session_get_n_cells (run->origin); i++)
    {
      const AssaySessionCell *cell = assay_session_get_cell (run->origin, i);

      if (cell->id != NULL && cell->id[0] == 'c')
        run->highest_cell = MAX (run->highest_cell, (guint) g_ascii_strtoull (cell->id + 1, NULL, 10));
    }
  for (guint q = 0; q < run->outline->questions->len; q++)
    {
      const AssayOutlineQuestion *question = g_ptr_array_index (run->outline->questions, q);
      GPtrArray *messages = assay_session_get_messages (run->origin);

      if (question->text != NULL)
        {
          Item item = { ITEM_QUESTION, question->number };

          item.text = question->text;
          g_array_append_val (run->items, item);
        }
      for (guint s = 0; s < question->steps->len; s++)
        {
          const AssayOutlineStep *step = g_ptr_array_index (question->steps, s);
          const AssayLlmMessage *message;
          g_autoptr(GHashTable) used = g_hash_table_new (NULL, NULL);
          Item item = { 0 };

          /* A step that never finished, or a draft Assay sent back: not part of the analysis. */
          if (step->interrupted || step->checked || step->message >= messages->len)
            continue;
          message = g_ptr_array_index (messages, step->message);
          /* A repair's cells are part of the analysis; its word on what it changed is not. */
          if (step->repair != NULL && message->tool_calls->len == 0)
            continue;
          item.question = question->number;
          item.message = message;
          if (step->is_answer)
            {
              item.kind = ITEM_ANSWER;
              item.provenance = step->provenance;
              g_array_append_val (run->items, item);
              continue;
            }
          item.kind = ITEM_REPLY;
          g_array_append_val (run->items, item);
          for (guint c = 0; c < message->tool_calls->len; c++)
            {
              const AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, c);
              const AssaySessionCell *cell = NULL;
              Item call_item = { ITEM_SKIP, question->number };

              for (guint k = 0; k < step->cells->len && cell == NULL; k++)
                {
                  const AssaySessionCell *candidate = g_ptr_array_index (step->cells, k);

                  if (!g_hash_table_contains (used, candidate) && g_strcmp0 (candidate->call_id, call->id) == 0)
                    cell = candidate;
                }
              if (cell != NULL)
                g_hash_table_add (used, (gpointer) cell);
              call_item.call_id = call->id;
              if (cell != NULL && assay_session_cell_succeeded (cell))
                {
                  call_item.kind = ITEM_CELL;
                  call_item.cell = cell;
                  run->n_planned++;
                }
              g_array_append_val (run->items, call_item);
            }
          item.kind = ITEM_END_STEP;
          g_array_append_val (run->items, item);
        }
    }
}

/* The texts of VIEW of each of OUTPUTS, in order (NULL where an output has no such view). */
static void assay_rerun_next (GTask *task);

static void
assay_rerun_report (Run                    *run,
                    const AssaySessionCell *cell,
                    AssayCellStatus         status)
{
  AssayRerunStep step = { 0 };

  if (run->progress == NULL)
    return;
  step.index = run->result->n_cells + (status == ASSAY_CELL_RUNNING ? 1 : 0);
  step.total = run->n_planned;
  step.cell_id = cell->id;
  step.description = cell->description;
  step.status = status;
  step.elapsed_us = status == ASSAY_CELL_RUNNING ? 0 : g_get_monotonic_time () - run->cell_started;
  run->progress (&step, run->progress_data);
}

static void
assay_rerun_finish_with (GTask  *task,
                         GError *error)
{
  Run *run = g_task_get_task_data (task);
  g_autoptr(GError) save_error = NULL;

  assay_kernel_session_close (run->kernel);
  if (run->session != NULL)
    {
      assay_rerun_answers_note_reordered (run->answers, run->session);
      assay_session_set_changes (run->session, run->result->changes);
      if (!assay_session_save (run->session, &save_error) && error == NULL)
        error = g_steal_pointer (&save_error);
      assay_session_add_rerun (run->origin, assay_session_get_dir (run->session));
      if (!assay_session_save (run->origin, &save_error) && error == NULL)
        error = g_steal_pointer (&save_error);
      run->result->session = g_object_ref (run->session);
    }
  if (error != NULL)
    {
      g_object_set_data_full (G_OBJECT (task), "result", g_steal_pointer (&run->result),
                              (GDestroyNotify) assay_rerun_result_free);
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, g_steal_pointer (&run->result), (GDestroyNotify) assay_rerun_result_free);
  g_object_unref (task);
}

/* ---- a repair ----------------------------------------------------------------------------- */

/* How the new data differs, in a line for the model (no values: names and counts). */
static char *
assay_rerun_what_changed (Run *run)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < run->result->datasets->len; i++)
    {
      const AssayRerunDataset *dataset = g_ptr_array_index (run->result->datasets, i);

      if (text->len > 0)
        g_string_append (text, "; ");
      g_string_append_printf (text, "/data/%s has %" G_GINT64_FORMAT " rows (it had %" G_GINT64_FORMAT ")",
                              dataset->name, dataset->new_rows, dataset->old_rows);
      for (guint j = 0; j < dataset->added->len; j++)
        g_string_append_printf (text, "%s a new column \"%s\"", j == 0 ? "," : " and",
                                (char *) g_ptr_array_index (dataset->added, j));
      if (dataset->convert)
        g_string_append (text, ", converted into the old file's format");
    }
  return g_string_free (text, FALSE);
}

static void
assay_rerun_repaired_cb (GObject      *source,
                         GAsyncResult *res,
                         gpointer      user_data)
{
  GTask *task = user_data;
  Run *run = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  AssayAgentOutcome outcome;
  AssaySessionCell *repaired = NULL;
  guint first_new = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (task), "repair-first-cell"));

  outcome = assay_agent_ask_finish (ASSAY_AGENT (source), res, &text, &error);
  g_clear_object (&run->agent);
  /* The fixed cell: the last of the repair's cells that ran. */
  for (guint i = assay_session_get_n_cells (run->session); i > first_new; i--)
    {
      AssaySessionCell *cell = assay_session_get_cell (run->session, i - 1);

      if (assay_session_cell_succeeded (cell))
        {
          repaired = cell;
          break;
        }
    }
  if (outcome != ASSAY_AGENT_ANSWERED || repaired == NULL)
    {
      run->result->failed_cell = g_strdup (run->failed_id);
      assay_rerun_finish_with (task, g_error_new (ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_CELL,
                                                  _("Cell %s failed on the new data, and the repair did not "
                                                    "fix it: %s"), run->failed_id,
                                                  text != NULL ? text : _("no cell ran")));
      return;
    }

  {
    g_autofree char *note = g_strdup_printf (_("Cell %s failed on the new data; the model repaired it as cell %s "
                                               "(approved like any cell): %s"),
                                             run->failed_id, repaired->id, text != NULL ? text : "");

    assay_session_add_rerun_note (run->session, note);
  }
  g_ptr_array_add (run->result->repaired, g_strdup (repaired->id));
  /* The answer's numbers from the failed cell are read in the fixed one. */
  g_hash_table_replace (run->outputs, (gpointer) run->failed_id, repaired->outputs);
  run->failed_id = NULL;
  run->next++;
  assay_rerun_next (task);
}

/* CELL failed: the calls after it in its reply wait, its step ends, and the model is asked
 * to fix it in the same kernel; the run goes on once a fixed cell ran. */
static void
assay_rerun_repair (GTask            *task,
                    AssaySessionCell *cell)
{
  Run *run = g_task_get_task_data (task);
  const Item *failed = &g_array_index (run->items, Item, run->next);
  g_autofree char *what = NULL;

  /* Every call of the reply gets its tool result before the repair is asked for. */
  for (guint i = run->next + 1; i < run->items->len; i++)
    {
      Item *item = &g_array_index (run->items, Item, i);

      if (item->kind == ITEM_END_STEP)
        {
          item->kind = ITEM_NOTHING;
          break;
        }
      if (item->kind == ITEM_CELL || item->kind == ITEM_SKIP)
        {
          g_autofree char *why = g_strdup_printf ("Not run yet: cell %s failed before it; it runs after the "
                                                  "repair.", cell->id);

          assay_session_append_message (run->session, assay_llm_message_new_tool (item->call_id, why, TRUE));
          if (item->kind == ITEM_CELL)
            item->kind = ITEM_CELL_QUIET;
          else
            item->kind = ITEM_NOTHING;
        }
    }
  assay_session_finish_step (run->session);
  run->failed_id = failed->cell->id;
  run->agent = run->make_agent (run->session, run->kernel, run->agent_data);
  if (run->agent == NULL)
    {
      run->result->failed_cell = g_strdup (cell->id);
      assay_rerun_finish_with (task, g_error_new (ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_CELL,
                                                  _("Cell %s failed on the new data: %s"), cell->id,
                                                  cell->status_reason ? cell->status_reason
                                                                      : assay_cell_status_to_string (cell->status)));
      return;
    }
  g_object_set_data (G_OBJECT (task), "repair-first-cell", GUINT_TO_POINTER (assay_session_get_n_cells (run->session)));
  /* The model's cells are numbered past the origin's, which are still to come. */
  assay_session_set_cell_id_floor (run->session, run->highest_cell);
  what = assay_rerun_what_changed (run);
  assay_agent_repair_async (run->agent, cell, what, g_task_get_cancellable (task), assay_rerun_repaired_cb, task);
}

static void assay_rerun_cell_recorded (GTask            *task,
                                       AssaySessionCell *cell,
                                       AssayCellResult  *result);

static void
assay_rerun_cell_done_cb (GObject      *source,
                          GAsyncResult *res,
                          gpointer      user_data)
{
  GTask *task = user_data;
  Run *run = g_task_get_task_data (task);
  const Item *item = &g_array_index (run->items, Item, run->next);
  g_autoptr(AssayCellResult) result = NULL;
  g_autoptr(GError) error = NULL;
  AssaySessionCell *cell;

  result = assay_kernel_session_execute_finish (ASSAY_KERNEL_SESSION (source), res, &error);
  if (result == NULL)
    {
      assay_rerun_finish_with (task, g_steal_pointer (&error));
      return;
    }
  cell = assay_session_find_cell (run->session, item->cell->id);
  assay_session_record_result (run->session, cell, result);
  /* A query's time is part of its cell's: the kernel only loaded the result. */
  if (cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL)
    cell->elapsed_ms += cell->query->query_ms;
  assay_rerun_cell_recorded (task, cell, result);
}

/* CELL ran (or its query failed) and RESULT is recorded: its tool result, then the next item,
 * a repair, or the end of the run. */
static void
assay_rerun_cell_recorded (GTask           *task,
                           AssaySessionCell *cell,
                           AssayCellResult  *result)
{
  Run *run = g_task_get_task_data (task);
  const Item *item = &g_array_index (run->items, Item, run->next);
  g_autofree char *tool = NULL;

  run->result->n_cells++;
  assay_rerun_report (run, cell, cell->status);
  g_hash_table_replace (run->outputs, cell->id, cell->outputs);
  /* What a later question on this session would send: in schema-only mode, no value. */
  if (assay_session_get_privacy_mode (run->session) == ASSAY_PRIVACY_SCHEMA)
    tool = assay_agent_format_result_schema (result);
  else
    tool = assay_agent_format_result (result, RESULT_BUDGET);
  if (item->kind == ITEM_CELL)
    assay_session_append_message (run->session, assay_llm_message_new_tool (item->call_id, tool,
                                                                            cell->status != ASSAY_CELL_OK));
  if (cell->status != ASSAY_CELL_OK && run->make_agent != NULL && item->kind == ITEM_CELL && run->n_repairs++ < MAX_REPAIRS)
    {
      assay_rerun_repair (task, cell);
      return;
    }
  if (cell->status != ASSAY_CELL_OK)
    {
      run->result->failed_cell = g_strdup (cell->id);
      assay_session_finish_step (run->session);
      assay_rerun_finish_with (task, g_error_new (ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_CELL,
                                                  _("Cell %s failed on the new data: %s"), cell->id,
                                                  cell->status_reason ? cell->status_reason
                                                                      : assay_cell_status_to_string (cell->status)));
      return;
    }
  run->next++;
  assay_rerun_next (task);
}

/* ---- SQL cells: the database asked again ---------------------------------------------------- */

/* The query of CELL failed: recorded as the cell's result, as for a cell that failed. */
static void
assay_rerun_query_failed (GTask            *task,
                          AssaySessionCell *cell,
                          const GError     *error,
                          gint64            query_us)
{
  g_autoptr(AssayCellResult) result = assay_cell_result_new (cell->id, cell->code);
  AssayCellStatus status = ASSAY_CELL_ERROR;

  if (g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TIMEOUT))
    status = ASSAY_CELL_TIMEOUT;
  else if (g_error_matches (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_TOO_LARGE))
    status = ASSAY_CELL_LIMIT;
  assay_cell_result_set_status (result, status, error->message);
  assay_cell_result_set_elapsed_us (result, query_us);
  assay_session_record_result (((Run *) g_task_get_task_data (task))->session, cell, result);
  if (cell->query != NULL)
    cell->query->query_ms = query_us / 1000;
  assay_rerun_cell_recorded (task, cell, result);
}

static void
assay_rerun_queried_cb (GObject      *source,
                        GAsyncResult *res,
                        gpointer      user_data)
{
  GTask *task = user_data;
  Run *run = g_task_get_task_data (task);
  const Item *item = &g_array_index (run->items, Item, run->next);
  AssaySessionCell *cell = assay_session_find_cell (run->session, item->cell->id);
  g_autoptr(AssayQueryResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *queries = NULL;
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;
  g_autofree char *hidden = NULL;
  g_autofree char *sandbox_path = NULL;
  g_autofree char *loader = NULL;
  gint64 query_us = g_get_monotonic_time () - run->query_started;

  result = assay_source_query_finish (ASSAY_SOURCE (source), res, &error);
  if (result == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      assay_kernel_session_close (run->kernel);
      assay_rerun_finish_with (task, g_steal_pointer (&error));
      return;
    }
  if (result == NULL)
    {
      assay_rerun_query_failed (task, cell, error, query_us);
      return;
    }
  /* Kept with the new session, as a question's query is, and read by the kernel from /data. */
  file = g_strdup_printf ("%s.aqr", cell->id);
  hidden = g_strdup_printf (".assay-query-%s.aqr", cell->id);
  if ((queries = assay_session_get_queries_dir (run->session, &error)) == NULL ||
      !assay_query_result_write (result, (path = g_build_filename (queries, file, NULL)), &error) ||
      !assay_kernel_session_add_hidden_file (run->kernel, path, hidden, &error))
    {
      assay_rerun_query_failed (task, cell, error, query_us);
      return;
    }
  cell->query->rows = (gint64) assay_query_result_get_n_rows (result);
  cell->query->bytes = (gint64) assay_query_result_get_n_bytes (result);
  cell->query->query_ms = query_us / 1000;
  json_array_unref (cell->query->columns);
  cell->query->columns = assay_query_result_columns_to_json (result);
  g_free (cell->query->result);
  cell->query->result = g_build_filename ("queries", file, NULL);
  sandbox_path = g_build_filename ("/data", hidden, NULL);
  loader = assay_query_result_loader_code (cell->query->frame, sandbox_path);
  assay_kernel_session_execute_async (run->kernel, loader, g_task_get_cancellable (task),
                                      assay_rerun_cell_done_cb, task);
}

/* The SQL of CELL, checked again (it was approved, but the check is what keeps writes out),
 * on the database it named. */
static void
assay_rerun_query (GTask            *task,
                   AssaySessionCell *cell)
{
  Run *run = g_task_get_task_data (task);
  AssaySource *source = run->sources != NULL ? g_hash_table_lookup (run->sources, cell->query->database) : NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *checked = NULL;

  if (source == NULL)
    {
      g_set_error (&error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_CONNECT,
                   _("The database %s is not connected for this run"), cell->query->database);
      assay_rerun_query_failed (task, cell, error, 0);
      return;
    }
  checked = assay_sql_check_read_only (cell->code, assay_source_get_syntax (source), &error);
  if (checked == NULL)
    {
      assay_rerun_query_failed (task, cell, error, 0);
      return;
    }
  run->query_started = g_get_monotonic_time ();
  assay_source_query_async (source, cell->code, g_task_get_cancellable (task), assay_rerun_queried_cb, task);
}

static void
assay_rerun_next (GTask *task)
{
  Run *run = g_task_get_task_data (task);

  if (g_task_return_error_if_cancelled (task))
    {
      assay_kernel_session_close (run->kernel);
      g_object_unref (task);
      return;
    }
  for (; run->next < run->items->len; run->next++)
    {
      const Item *item = &g_array_index (run->items, Item, run->next);

      switch (item->kind)
        {
        case ITEM_QUESTION:
          assay_session_append_message (run->session, assay_llm_message_new_user (item->text));
          assay_session_finish_question (run->session);
          break;
        case ITEM_REPLY:
          assay_session_append_message (run->session, assay_llm_message_copy (item->message));
          break;
        case ITEM_SKIP:
          assay_session_append_message (run->session,
                                        assay_llm_message_new_tool (item->call_id,
                                                                    "Not run again: it did not succeed the first time.",
                                                                    TRUE));
          break;
        case ITEM_END_STEP:
          assay_session_finish_step (run->session);
          break;
        case ITEM_CELL:
        case ITEM_CELL_QUIET:
          {
            g_autofree char *id = g_strdup (item->cell->id);
            AssaySessionCell *cell = assay_session_cell_new (id, assay_session_get_n_steps (run->session) + 1,
                                                             item->call_id, item->cell->description,
                                                             item->cell->code);

            cell->decision = ASSAY_DECISION_APPROVED;
            cell->code = g_strdup (item->cell->code);
            /* The origin's seal, checked before the run: the same code, the same approval. */
            cell->approval = g_strdup (item->cell->approval);
            cell->status = ASSAY_CELL_RUNNING;
            cell->proposed_at = cell->started_at = g_get_real_time ();
            if (item->cell->kind == ASSAY_CELL_KIND_SQL && item->cell->query != NULL)
              {
                cell->kind = ASSAY_CELL_KIND_SQL;
                cell->query = assay_session_query_new (item->cell->query->database, item->cell->query->frame);
              }
            assay_session_add_cell (run->session, cell);
            run->cell_started = g_get_monotonic_time ();
            assay_rerun_report (run, cell, ASSAY_CELL_RUNNING);
            if (cell->kind == ASSAY_CELL_KIND_SQL)
              {
                assay_rerun_query (task, cell);
                return;
              }
            assay_kernel_session_execute_async (run->kernel, item->cell->code, g_task_get_cancellable (task),
                                                assay_rerun_cell_done_cb, task);
            return;
          }
        case ITEM_ANSWER:
          {
            g_autofree char *answer = NULL;

            answer = assay_rerun_answers_update (run->answers, run->session,
                                                 item->message->text ? item->message->text : "",
                                                 item->provenance, item->question, run->result->changes);
            assay_session_finish_step (run->session);
            assay_session_set_outcome (run->session, "answered", answer);
          }
          break;
        default:
          break;
        }
    }
  assay_rerun_finish_with (task, NULL);
}

static void
assay_rerun_started_cb (GObject      *source,
                        GAsyncResult *res,
                        gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!assay_kernel_session_start_finish (ASSAY_KERNEL_SESSION (source), res, &error))
    {
      assay_rerun_finish_with (task, error);
      return;
    }
  assay_rerun_next (task);
}

void
assay_rerun_async (AssaySession        *origin,
                   GHashTable          *new_files,
                   AssayKernelSession  *kernel,
                   const char          *out_dir,
                   AssayRerunProgressFunc progress,
                   gpointer             progress_data,
                   GDestroyNotify       progress_destroy,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  assay_rerun_async_full (origin, new_files, NULL, kernel, out_dir, progress, progress_data, progress_destroy, NULL, NULL,
                          cancellable, callback, user_data);
}

/* ---- before the first cell: in a worker ------------------------------------------------ */

/* What the worker reads of the origin, taken on the caller's thread, and what it makes. */
typedef struct
{
  char       *name;
  char       *old_path;      /* resolved in the origin's folder; NULL: it leads out of it */
  char       *new_path;
  char       *description;
  char       *copy;          /* made: the new session's copy, for the kernel */
} PrepDataset;

typedef struct
{
  GPtrArray        *datasets;   /* PrepDataset* */
  char             *origin_dir;
  char             *origin_title;
  char             *provider;
  char             *model;
  AssayPrivacyMode  privacy;
  GPtrArray        *masks;      /* AssaySessionMask*, copies */
  char             *out_dir;
  /* Made by the worker. */
  GPtrArray        *compared;   /* AssayRerunDataset* */
  gboolean          matches;
  AssaySession     *session;
} Prep;

static void
assay_rerun_prep_dataset_free (PrepDataset *dataset)
{
  g_free (dataset->name);
  g_free (dataset->old_path);
  g_free (dataset->new_path);
  g_free (dataset->description);
  g_free (dataset->copy);
  g_free (dataset);
}

static void
assay_rerun_mask_free (AssaySessionMask *mask)
{
  g_free (mask->dataset);
  g_free (mask->column);
  g_free (mask);
}

static void
assay_rerun_prep_free (Prep *prep)
{
  g_ptr_array_unref (prep->datasets);
  g_free (prep->origin_dir);
  g_free (prep->origin_title);
  g_free (prep->provider);
  g_free (prep->model);
  g_ptr_array_unref (prep->masks);
  g_free (prep->out_dir);
  g_clear_pointer (&prep->compared, g_ptr_array_unref);
  g_clear_object (&prep->session);
  g_free (prep);
}

/* Compares every file, then makes the new session: its record, the converted files, the
 * copies of the new data, saved. Touches neither the origin nor the kernel. */
static void
assay_rerun_prepare_worker (GTask        *task,
                            gpointer      source_object,
                            gpointer      task_data,
                            GCancellable *cancellable)
{
  Prep *prep = task_data;
  GError *error = NULL;
  g_autofree char *date = NULL;
  g_autofree char *title = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  prep->matches = TRUE;
  for (guint i = 0; i < prep->datasets->len; i++)
    {
      PrepDataset *dataset = g_ptr_array_index (prep->datasets, i);
      AssayRerunDataset *compared;

      if (g_cancellable_set_error_if_cancelled (cancellable, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      if (dataset->old_path == NULL ||
          (compared = assay_rerun_compare (dataset->name, dataset->old_path, dataset->new_path, &error)) == NULL)
        {
          if (error == NULL)
            error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("The dataset %s is missing from the session"),
                                 dataset->name);
          g_task_return_error (task, error);
          return;
        }
      prep->matches = prep->matches && assay_rerun_dataset_matches (compared);
      g_ptr_array_add (prep->compared, compared);
    }
  if (!prep->matches)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  /* The new session, beside the old one unless told where. */
  if (prep->out_dir != NULL)
    prep->session = assay_session_new (prep->out_dir, &error);
  else
    {
      g_autofree char *parent = g_path_get_dirname (prep->origin_dir);
      prep->session = assay_session_create (parent, &error);
    }
  if (prep->session == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  date = g_date_time_format (now, "%Y-%m-%d");
  /* Translators: the title of a session run again: the old title, then the date. */
  title = g_strdup_printf (_("%s — run again on %s"),
                           prep->origin_title != NULL ? prep->origin_title : _("(untitled)"), date);
  assay_session_set_title (prep->session, title);
  assay_session_set_provider (prep->session, prep->provider, prep->model);
  assay_session_set_rerun_of (prep->session, prep->origin_dir, prep->origin_title);
  /* What the model may see stays what the analyst chose, for whatever asks it next. */
  assay_session_set_privacy_mode (prep->session, prep->privacy);
  for (guint i = 0; i < prep->masks->len; i++)
    {
      const AssaySessionMask *mask = g_ptr_array_index (prep->masks, i);

      assay_session_set_column_masked (prep->session, mask->dataset, mask->column, TRUE);
    }
  for (guint i = 0; i < prep->datasets->len; i++)
    {
      PrepDataset *dataset = g_ptr_array_index (prep->datasets, i);
      const AssayRerunDataset *compared = g_ptr_array_index (prep->compared, i);
      const AssaySessionDataset *added;
      const char *source = dataset->new_path;
      g_autofree char *converted = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      /* In another dialect: written the old way first, beside the session's data. */
      if (compared->convert)
        {
          g_autofree char *data_dir = g_build_filename (assay_session_get_dir (prep->session), "data", NULL);
          g_autofree char *base = g_strdup_printf (".converting-%u.csv", i);
          g_autofree char *from = NULL, *to = NULL, *note = NULL;

          converted = g_build_filename (data_dir, base, NULL);
          if (!assay_rerun_convert (source, compared->to, compared->numeric, compared->n_numeric, converted, &error))
            {
              g_prefix_error (&error, _("Cannot convert %s into the old file's format: "), dataset->name);
              g_task_return_error (task, error);
              return;
            }
          from = assay_rerun_describe_dialect (compared->from);
          to = assay_rerun_describe_dialect (compared->to);
          /* Translators: a dataset's name, then two dialects. */
          note = g_strdup_printf (_("%s was converted from %s to %s, the format the approved code read."),
                                  dataset->name, from, to);
          assay_session_add_rerun_note (prep->session, note);
          source = converted;
        }

      /* The new file under the old name: the approved code reads /data/<old name>. */
      added = assay_session_add_dataset_as (prep->session, source, dataset->name, dataset->description, &error);
      if (converted != NULL)
        g_unlink (converted);
      dataset->copy = added != NULL ? assay_session_resolve (prep->session, added->path) : NULL;
      if (dataset->copy == NULL)
        {
          if (error == NULL)
            error = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot add %s to the new session"), dataset->name);
          g_task_return_error (task, error);
          return;
        }
    }
  if (!assay_session_save (prep->session, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
assay_rerun_prepared_cb (GObject      *source,
                         GAsyncResult *res,
                         gpointer      user_data)
{
  GTask *task = user_data;
  Run *run = g_task_get_task_data (task);
  Prep *prep = g_task_get_task_data (G_TASK (res));
  GError *error = NULL;

  /* What was compared is part of the result, whatever came of it. */
  g_ptr_array_extend_and_steal (run->result->datasets, g_steal_pointer (&prep->compared));
  prep->compared = g_ptr_array_new ();
  if (!g_task_propagate_boolean (G_TASK (res), &error))
    {
      assay_kernel_session_close (run->kernel);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (!prep->matches)
    {
      assay_kernel_session_close (run->kernel);
      g_object_set_data_full (G_OBJECT (task), "result", g_steal_pointer (&run->result),
                              (GDestroyNotify) assay_rerun_result_free);
      g_task_return_new_error (task, ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_DATA,
                               _("The new data does not match the session's"));
      g_object_unref (task);
      return;
    }

  /* The session built in the worker is this thread's from now on. */
  run->session = g_steal_pointer (&prep->session);
  /* Where its cells run, which every session says (its reports, session show, the window). */
  {
    AssaySandboxBackend *backend = assay_kernel_session_get_backend (run->kernel);
    g_autofree char *where = assay_sandbox_describe_backend (backend);

    assay_session_set_sandbox (run->session, assay_sandbox_backend_get_name (backend), where);
  }
  /* The databases it queries again, as the origin recorded them (never a password). */
  for (guint i = 0; i < assay_session_get_sources (run->origin)->len; i++)
    {
      const AssaySessionSource *old = g_ptr_array_index (assay_session_get_sources (run->origin), i);

      assay_session_add_source (run->session, old->name, old->kind, old->url,
                                (const char * const *) old->tables, old->description);
      /* The analyst's acceptance carries over only under their own seal. */
      if (assay_session_source_risk_accepted (old))
        assay_session_set_source_risk (run->session, old->name, old->accepted_risk, NULL);
    }
  {
    g_autofree char *artifacts = assay_session_get_artifact_dir (run->session);
    assay_kernel_session_set_artifact_dir (run->kernel, artifacts);
  }
  for (guint i = 0; i < prep->datasets->len; i++)
    {
      PrepDataset *dataset = g_ptr_array_index (prep->datasets, i);

      if (!assay_kernel_session_add_dataset (run->kernel, dataset->copy, &error))
        {
          assay_rerun_finish_with (task, error);
          return;
        }
    }
  run->outline = assay_session_outline_new (run->origin);
  assay_rerun_plan (run);
  assay_kernel_session_start_async (run->kernel, g_task_get_cancellable (task), assay_rerun_started_cb, task);
}

void
assay_rerun_async_full (AssaySession        *origin,
                        GHashTable          *new_files,
                        GPtrArray           *sources,
                        AssayKernelSession  *kernel,
                        const char          *out_dir,
                        AssayRerunProgressFunc progress,
                        gpointer             progress_data,
                        GDestroyNotify       progress_destroy,
                        AssayRerunAgentFunc  make_agent,
                        gpointer             agent_data,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task;
  g_autoptr(GTask) prepare = NULL;
  Run *run;
  Prep *prep;
  GPtrArray *datasets;

  g_return_if_fail (ASSAY_IS_SESSION (origin));
  g_return_if_fail (new_files != NULL);
  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (kernel));

  task = g_task_new (origin, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_rerun_async);
  run = g_new0 (Run, 1);
  run->origin = g_object_ref (origin);
  run->kernel = g_object_ref (kernel);
  run->items = g_array_new (FALSE, TRUE, sizeof (Item));
  run->outputs = g_hash_table_new (g_str_hash, g_str_equal);
  run->answers = assay_rerun_answers_new (run->origin, run->outputs);
  run->result = g_new0 (AssayRerunResult, 1);
  run->result->datasets = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_rerun_dataset_free);
  run->result->changes = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_session_change_free);
  run->result->repaired = g_ptr_array_new_with_free_func (g_free);
  run->make_agent = make_agent;
  run->agent_data = agent_data;
  run->progress = progress;
  run->progress_data = progress_data;
  run->progress_destroy = progress_destroy;
  g_task_set_task_data (task, run, (GDestroyNotify) assay_rerun_run_free);
  run->sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  for (guint i = 0; sources != NULL && i < sources->len; i++)
    {
      AssaySource *source = g_ptr_array_index (sources, i);

      g_hash_table_replace (run->sources, g_strdup (assay_source_get_name (source)), g_object_ref (source));
    }
  /* Code that ran on OpenAI was never approved: there is no approved analysis to run. */
  if (assay_session_ran_hosted (origin))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("This session's code ran in OpenAI's hosted code interpreter, never approved "
                                 "here: Run Again runs approved cells only"));
      g_object_unref (task);
      return;
    }
  /* Only code as it was approved runs again: an edited record is named, nothing runs. */
  for (guint i = 0; i < assay_session_get_n_cells (origin); i++)
    {
      const AssaySessionCell *cell = assay_session_get_cell (origin, i);

      if (assay_session_cell_succeeded (cell) && !assay_approval_check (cell))
        {
          g_task_return_new_error (task, ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_UNAPPROVED,
                                   _("Cell %s is not the code that was approved here: the session's record was "
                                     "changed since, or another user approved it. Nothing ran. Read its code and "
                                     "approve it again: assay-cli session approve %s %s"),
                                   cell->id, assay_session_get_dir (origin), cell->id);
          g_object_unref (task);
          return;
        }
    }
  /* Every database a successful query asked is asked again: each must be given. */
  for (guint i = 0; i < assay_session_get_n_cells (origin); i++)
    {
      const AssaySessionCell *cell = assay_session_get_cell (origin, i);

      if (cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL && assay_session_cell_succeeded (cell) &&
          !g_hash_table_contains (run->sources, cell->query->database))
        {
          g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                                   _("Cell %s queries the database %s, which is not connected for this run"),
                                   cell->id, cell->query->database);
          g_object_unref (task);
          return;
        }
    }

  /* What the worker needs of the origin, read here: every dataset has its new file. */
  prep = g_new0 (Prep, 1);
  prep->datasets = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_rerun_prep_dataset_free);
  prep->masks = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_rerun_mask_free);
  prep->compared = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_rerun_dataset_free);
  prep->origin_dir = g_strdup (assay_session_get_dir (origin));
  prep->origin_title = g_strdup (assay_session_get_title (origin));
  prep->provider = g_strdup (assay_session_get_provider (origin));
  prep->model = g_strdup (assay_session_get_model (origin));
  prep->privacy = assay_session_get_privacy_mode (origin);
  prep->out_dir = g_strdup (out_dir);
  for (guint i = 0; i < assay_session_get_masked_columns (origin)->len; i++)
    {
      const AssaySessionMask *mask = g_ptr_array_index (assay_session_get_masked_columns (origin), i);
      AssaySessionMask *copy = g_new0 (AssaySessionMask, 1);

      copy->dataset = g_strdup (mask->dataset);
      copy->column = g_strdup (mask->column);
      g_ptr_array_add (prep->masks, copy);
    }
  datasets = assay_session_get_datasets (origin);
  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *old = g_ptr_array_index (datasets, i);
      const char *path = g_hash_table_lookup (new_files, old->name);
      PrepDataset *dataset;

      if (path == NULL)
        {
          assay_rerun_prep_free (prep);
          g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                                   _("No new file for the dataset %s"), old->name);
          g_object_unref (task);
          return;
        }
      dataset = g_new0 (PrepDataset, 1);
      dataset->name = g_strdup (old->name);
      dataset->old_path = assay_session_resolve (origin, old->path);
      dataset->new_path = g_strdup (path);
      dataset->description = g_strdup (old->description);
      g_ptr_array_add (prep->datasets, dataset);
    }

  prepare = g_task_new (NULL, cancellable, assay_rerun_prepared_cb, task);
  g_task_set_source_tag (prepare, assay_rerun_prepare_worker);
  g_task_set_task_data (prepare, prep, (GDestroyNotify) assay_rerun_prep_free);
  g_task_run_in_thread (prepare, assay_rerun_prepare_worker);
}

AssayRerunResult *
assay_rerun_finish (GAsyncResult  *result,
                    GError       **error)
{
  AssayRerunResult *rerun;

  g_return_val_if_fail (G_IS_TASK (result), NULL);

  rerun = g_task_propagate_pointer (G_TASK (result), error);
  if (rerun == NULL)
    rerun = g_object_steal_data (G_OBJECT (result), "result");
  return rerun;
}
