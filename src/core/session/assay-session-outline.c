/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include "assay-session-outline.h"

static void
assay_session_outline_step_free (AssayOutlineStep *step)
{
  g_ptr_array_unref (step->cells);
  g_free (step);
}

static void
assay_session_outline_question_free (AssayOutlineQuestion *question)
{
  g_ptr_array_unref (question->steps);
  g_free (question);
}

static AssayOutlineQuestion *
assay_session_outline_add_question (AssaySessionOutline *outline,
                                    const char          *text)
{
  AssayOutlineQuestion *question = g_new0 (AssayOutlineQuestion, 1);

  question->number = outline->questions->len + 1;
  question->text = text;
  question->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_session_outline_step_free);
  g_ptr_array_add (outline->questions, question);
  return question;
}

static AssayOutlineStep *
assay_session_outline_add_step (AssayOutlineQuestion *question,
                                guint                 number,
                                const char           *text)
{
  AssayOutlineStep *step = g_new0 (AssayOutlineStep, 1);

  step->number = number;
  step->number_in_question = question->steps->len + 1;
  step->text = text;
  step->cells = g_ptr_array_new ();
  step->message = G_MAXUINT;
  g_ptr_array_add (question->steps, step);
  return step;
}

/* One tool call waiting for its cell. */
typedef struct
{
  AssayOutlineStep *step;
  const char       *call_id;     /* may be NULL */
  AssaySessionCell *cell;        /* what it was matched to, or NULL */
} Slot;

static AssaySessionCell *
assay_session_outline_take_cell (AssaySession *session,
                                 GHashTable   *used,
                                 const char   *call_id,
                                 guint         step,
                                 gboolean      by_step)
{
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);

      if (g_hash_table_contains (used, cell) || g_strcmp0 (cell->call_id, call_id) != 0)
        continue;
      if (by_step && cell->step != step)
        continue;
      g_hash_table_add (used, cell);
      return cell;
    }
  return NULL;
}

AssaySessionOutline *
assay_session_outline_new (AssaySession *session)
{
  AssaySessionOutline *outline;
  g_autoptr(GHashTable) used = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) slots = g_array_new (FALSE, TRUE, sizeof (Slot));
  g_autoptr(GPtrArray) all_steps = g_ptr_array_new ();
  AssayOutlineQuestion *question = NULL;
  GPtrArray *messages;
  GPtrArray *interrupted;
  guint n_steps = 0;
  gboolean in_repair = FALSE;
  const char *repair_text = NULL;

  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);

  outline = g_new0 (AssaySessionOutline, 1);
  outline->questions = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_session_outline_question_free);

  /* The shape: questions, and a step per reply of the model (the agent counts a step per
   * reply across the session, and records that number on the cells it proposes). */
  messages = assay_session_get_messages (session);
  for (guint i = 0; messages != NULL && i < messages->len; i++)
    {
      const AssayLlmMessage *message = g_ptr_array_index (messages, i);
      AssayOutlineStep *step;

      if (message->role == ASSAY_LLM_ROLE_USER && message->is_check && question != NULL &&
          question->steps->len > 0)
        {
          AssayOutlineStep *draft = g_ptr_array_index (question->steps, question->steps->len - 1);

          if (draft->is_answer)
            {
              draft->is_answer = FALSE;
              draft->checked = TRUE;
              draft->check = message->text;
            }
          continue;
        }
      /* A repair belongs to the question it happened in: its steps are part of the analysis,
       * and the model's word on what it changed is not an answer. */
      if (message->role == ASSAY_LLM_ROLE_USER && message->is_repair && question != NULL)
        {
          in_repair = TRUE;
          repair_text = message->text;
          continue;
        }
      if (message->role == ASSAY_LLM_ROLE_USER)
        {
          question = assay_session_outline_add_question (outline, message->text);
          in_repair = FALSE;
          continue;
        }
      if (message->role != ASSAY_LLM_ROLE_ASSISTANT)
        continue;
      if (question == NULL)
        question = assay_session_outline_add_question (outline, NULL);
      step = assay_session_outline_add_step (question, ++n_steps, message->text);
      step->is_answer = message->tool_calls->len == 0;
      step->message = i;
      if (in_repair)
        {
          step->repair = repair_text;
          if (step->is_answer)
            {
              step->is_answer = FALSE;
              in_repair = FALSE;
            }
        }
      if (step->is_answer)
        step->provenance = assay_session_get_provenance (session, i);
      g_ptr_array_add (all_steps, step);
      for (guint j = 0; j < message->tool_calls->len; j++)
        {
          const AssayLlmToolCall *call = g_ptr_array_index (message->tool_calls, j);
          Slot slot = { step, call->id, NULL };

          g_array_append_val (slots, slot);
        }
    }

  /* Each call's cell: the same call id in the same step first, for every call, so that a
   * repeated id never takes another step's cell; then the same id anywhere, in order. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < slots->len; i++)
      {
        Slot *slot = &g_array_index (slots, Slot, i);

        if (slot->cell == NULL)
          slot->cell = assay_session_outline_take_cell (session,
                                                        used,
                                                        slot->call_id,
                                                        slot->step->number,
                                                        pass == 0);
      }
  for (guint i = 0; i < slots->len; i++)
    {
      Slot *slot = &g_array_index (slots, Slot, i);

      if (slot->cell != NULL)
        g_ptr_array_add (slot->step->cells, slot->cell);
    }

  /* A cell no call names goes to the step that proposed it, else after the last one. */
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);
      AssayOutlineStep *step = NULL;

      if (g_hash_table_contains (used, cell))
        continue;
      if (cell->step >= 1 && cell->step <= all_steps->len)
        step = g_ptr_array_index (all_steps, cell->step - 1);
      else
        {
          if (question == NULL)
            question = assay_session_outline_add_question (outline, NULL);
          if (question->steps->len == 0)
            step = assay_session_outline_add_step (question, ++n_steps, NULL);
          else
            step = g_ptr_array_index (question->steps, question->steps->len - 1);
        }
      g_ptr_array_add (step->cells, cell);
    }

  /* The step Assay was closed in the middle of. */
  interrupted = assay_session_get_interrupted_cells (session);
  if (interrupted != NULL && interrupted->len > 0)
    {
      AssayOutlineStep *step;

      if (question == NULL)
        question = assay_session_outline_add_question (outline, NULL);
      step = assay_session_outline_add_step (question, ++n_steps, NULL);
      step->interrupted = TRUE;
      for (guint i = 0; i < interrupted->len; i++)
        g_ptr_array_add (step->cells, g_ptr_array_index (interrupted, i));
    }
  return outline;
}

const AssayOutlineQuestion *
assay_session_outline_find_cell (const AssaySessionOutline *outline,
                                 const AssaySessionCell    *cell,
                                 const AssayOutlineStep   **found_step)
{
  for (guint i = 0; i < outline->questions->len; i++)
    {
      const AssayOutlineQuestion *question = g_ptr_array_index (outline->questions, i);

      for (guint j = 0; j < question->steps->len; j++)
        {
          const AssayOutlineStep *step = g_ptr_array_index (question->steps, j);

          for (guint k = 0; k < step->cells->len; k++)
            if (g_ptr_array_index (step->cells, k) == cell)
              {
                if (found_step != NULL)
                  *found_step = step;
                return question;
              }
        }
    }
  return NULL;
}

void
assay_session_outline_free (AssaySessionOutline *outline)
{
  if (outline == NULL)
    return;
  g_ptr_array_unref (outline->questions);
  g_free (outline);
}
