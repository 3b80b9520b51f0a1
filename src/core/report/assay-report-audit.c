/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The audit trail: every cell the model proposed and what the analyst decided about it (run
 * as proposed, edited then run, rejected with a reason), in the order proposed, with the
 * times the record holds; the words every writer uses. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "assay-diff.h"
#include "assay-report-private.h"

void
report_proposal_free (ReportProposal *proposal)
{
  g_free (proposal->id);
  g_free (proposal->description);
  g_free (proposal->proposed_code);
  g_free (proposal->code);
  g_free (proposal->diff);
  g_free (proposal->reason);
  g_free (proposal);
}

/* A reason is the analyst's few words; a shared record may hold anything. */
#define REPORT_AUDIT_MAX_REASON_CHARS 2000

static char *
report_audit_cap (const char *text,
                  glong       max_chars)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  if (g_utf8_strlen (valid, -1) <= max_chars)
    return g_steal_pointer (&valid);
  *g_utf8_offset_to_pointer (valid, max_chars) = '\0';
  return g_strconcat (valid, "…", NULL);
}

/* The lines an edit changed: a line replaced counts once, as do one added and one removed. */
static guint
report_audit_count_changed_lines (const char *diff)
{
  guint removed = 0, added = 0;

  for (const char *line = diff; line != NULL && *line != '\0';)
    {
      const char *end = strchr (line, '\n');

      if (line[0] == '+' && !g_str_has_prefix (line, "+++ "))
        added++;
      else if (line[0] == '-' && !g_str_has_prefix (line, "--- "))
        removed++;
      line = end != NULL ? end + 1 : NULL;
    }
  return MAX (removed, added);
}

static ReportProposal *
report_audit_new_proposal (const AssaySessionCell *source,
                           guint                   question,
                           guint                   step)
{
  ReportProposal *proposal = g_new0 (ReportProposal, 1);

  proposal->id = g_strdup (source->id);
  proposal->question = question;
  proposal->step = step;
  proposal->description = g_strdup (source->description);
  proposal->kind = source->kind;
  proposal->decision = source->decision;
  proposal->status = source->status;
  proposal->proposed_code = g_strdup (source->proposed_code);
  proposal->code = source->started_at != 0 ? g_strdup (source->code) : NULL;
  if (source->decision == ASSAY_DECISION_REJECTED && source->reason != NULL)
    proposal->reason = report_audit_cap (source->reason, REPORT_AUDIT_MAX_REASON_CHARS);
  proposal->proposed_at = source->proposed_at;
  if (source->decision == ASSAY_DECISION_REJECTED)
    proposal->decided_at = source->finished_at;
  else if (source->decision != ASSAY_DECISION_PENDING)
    proposal->decided_at = source->started_at;
  /* An edit that changed nothing is recorded as an approval; one recorded as an edit but
   * with the same code says no line changed. */
  if (source->decision == ASSAY_DECISION_EDITED && source->proposed_code != NULL && source->code != NULL)
    {
      proposal->diff = assay_diff_unified (source->proposed_code, source->code,
                                           _("as proposed"), _("as run"), 3);
      proposal->changed_lines = report_audit_count_changed_lines (proposal->diff);
      if (*proposal->diff == '\0')
        g_clear_pointer (&proposal->diff, g_free);
    }
  return proposal;
}

GHashTable *
report_audit_snapshot (AssayReport               *report,
                       const AssaySessionOutline *outline,
                       GHashTable                *report_cells)
{
  GHashTable *by_cell = g_hash_table_new (NULL, NULL);

  report->proposals = g_ptr_array_new_with_free_func ((GDestroyNotify) report_proposal_free);
  /* The outline's order is the order of proposal: questions, their steps, each reply's
   * calls; the step Assay was closed in comes last, as it did. */
  for (guint i = 0; i < outline->questions->len; i++)
    {
      const AssayOutlineQuestion *question = g_ptr_array_index (outline->questions, i);

      for (guint j = 0; j < question->steps->len; j++)
        {
          const AssayOutlineStep *step = g_ptr_array_index (question->steps, j);

          for (guint k = 0; k < step->cells->len; k++)
            {
              const AssaySessionCell *source = g_ptr_array_index (step->cells, k);
              ReportProposal *proposal = report_audit_new_proposal (source, question->number,
                                                                    step->number_in_question);

              proposal->cell = g_hash_table_lookup (report_cells, source);
              g_ptr_array_add (report->proposals, proposal);
              g_hash_table_insert (by_cell, (gpointer) source, proposal);
            }
        }
    }
  return by_cell;
}

const char *
report_audit_title (void)
{
  return _("Audit trail");
}

const char *
report_audit_intro (void)
{
  return _("Every cell the model proposed, in the order it was proposed, and what became of it: "
           "run as proposed, edited by the analyst before it ran (the change is shown), or "
           "rejected with the analyst's reason, whether or not the report shows the cell. Cells "
           "run without asking were run by the session's automatic approval.");
}

static char *
report_audit_format_time (gint64 usec)
{
  g_autoptr(GDateTime) time = usec > 0 ? g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC) : NULL;

  return time != NULL ? g_date_time_format (time, "%Y-%m-%d %H:%M:%S") : NULL;
}

char *
report_proposal_heading (const ReportProposal *proposal)
{
  if (proposal->description != NULL && *proposal->description != '\0')
    /* Translators: an entry of the audit trail: the cell, its question and step, its description. */
    return g_strdup_printf (_("Cell %s · question %u, step %u: %s"), proposal->id, proposal->question,
                            proposal->step, proposal->description);
  return g_strdup_printf (_("Cell %s · question %u, step %u"), proposal->id, proposal->question,
                          proposal->step);
}

static char *
report_audit_decision_words (const ReportProposal *proposal,
                             const char           *at)
{
  switch (proposal->decision)
    {
    case ASSAY_DECISION_AUTO:
      return at != NULL ? g_strdup_printf (_("run without asking (automatic approval) at %s"), at)
                        : g_strdup (_("run without asking (automatic approval)"));
    case ASSAY_DECISION_HOSTED:
      return at != NULL ? g_strdup_printf (_("run by OpenAI's hosted code interpreter, never approved, at %s"), at)
                        : g_strdup (_("run by OpenAI's hosted code interpreter, never approved"));
    case ASSAY_DECISION_APPROVED:
      return at != NULL ? g_strdup_printf (_("approved by the analyst and run as proposed at %s"), at)
                        : g_strdup (_("approved by the analyst and run as proposed"));
    case ASSAY_DECISION_EDITED:
      return at != NULL ? g_strdup_printf (_("edited by the analyst, then run at %s"), at)
                        : g_strdup (_("edited by the analyst, then run"));
    case ASSAY_DECISION_REJECTED:
      return at != NULL ? g_strdup_printf (_("rejected by the analyst at %s; it did not run"), at)
                        : g_strdup (_("rejected by the analyst; it did not run"));
    case ASSAY_DECISION_PENDING:
    default:
      return g_strdup (_("never decided: the session ended while it waited for the analyst"));
    }
}

char *
report_proposal_decision (const ReportProposal *proposal)
{
  g_autofree char *proposed_at = report_audit_format_time (proposal->proposed_at);
  g_autofree char *decided_at = report_audit_format_time (proposal->decided_at);
  g_autofree char *decision = report_audit_decision_words (proposal, decided_at);
  g_autofree char *proposed = proposed_at != NULL ? g_strdup_printf (_("Proposed %s"), proposed_at)
                                                  : g_strdup (_("Proposed"));

  if (proposal->decision != ASSAY_DECISION_REJECTED && proposal->decision != ASSAY_DECISION_PENDING &&
      proposal->status != ASSAY_CELL_OK && proposal->status != ASSAY_CELL_PROPOSED)
    {
      /* Translators: the end of an audit trail entry: how the run ended ("error", "timeout"…). */
      g_autofree char *outcome = g_strdup_printf (_("it ended with “%s”"), assay_cell_status_to_string (proposal->status));

      return g_strdup_printf ("%s · %s · %s", proposed, decision, outcome);
    }
  return g_strdup_printf ("%s · %s", proposed, decision);
}

char *
report_proposal_reason (const ReportProposal *proposal)
{
  if (proposal->decision != ASSAY_DECISION_REJECTED)
    return NULL;
  if (proposal->reason == NULL || *proposal->reason == '\0')
    return g_strdup (_("No reason was given."));
  return g_strdup_printf (_("Reason: “%s”"), proposal->reason);
}

const char *
report_proposal_code_label (const ReportProposal *proposal)
{
  return proposal->kind == ASSAY_CELL_KIND_SQL ? _("The SQL as proposed:") : _("The code as proposed:");
}

char *
report_rejected_note (const ReportProposal *proposal)
{
  g_autofree char *what = proposal->description != NULL && *proposal->description != '\0'
                          ? g_strdup_printf ("%s (%s)", proposal->id, proposal->description)
                          : g_strdup (proposal->id);

  if (proposal->reason == NULL || *proposal->reason == '\0')
    return g_strdup_printf (_("The analyst rejected cell %s, so it did not run. No reason was given."), what);
  return g_strdup_printf (_("The analyst rejected cell %s, so it did not run. Reason: “%s”"), what,
                          proposal->reason);
}

const char *
report_cell_decision_note (const ReportCell *cell)
{
  if (cell->decision == ASSAY_DECISION_EDITED)
    return _("Edited by the analyst before it ran: the change is in the audit trail.");
  return NULL;
}

gboolean
report_cell_approved (const ReportCell *cell)
{
  return cell->decision == ASSAY_DECISION_AUTO || cell->decision == ASSAY_DECISION_APPROVED ||
         cell->decision == ASSAY_DECISION_EDITED;
}

const char *
report_cell_unapproved_note (const ReportCell *cell)
{
  if (report_cell_approved (cell))
    return NULL;
  if (cell->decision == ASSAY_DECISION_HOSTED)
    return _("It ran in OpenAI's hosted code interpreter, where nobody approved it: its code is kept as "
             "comments, not to be run here.");
  return _("The analyst did not approve it: its code is kept as comments, not to be run.");
}

char *
report_cell_query_note (const ReportCell *cell)
{
  if (cell->kind != ASSAY_CELL_KIND_SQL || cell->database == NULL || cell->frame == NULL)
    return NULL;
  if (cell->query_rows < 0)
    return g_strdup_printf (_("SQL on the database %s, for the DataFrame %s."), cell->database, cell->frame);
  {
    g_autofree char *rows = g_strdup_printf ("%" G_GINT64_FORMAT, cell->query_rows);

    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "SQL on the database %s: %s row, loaded as the DataFrame %s.",
                                         "SQL on the database %s: %s rows, loaded as the DataFrame %s.",
                                         (gulong) MIN (cell->query_rows, G_MAXLONG)),
                            cell->database, rows, cell->frame);
  }
}

char *
report_proposal_changed_note (const ReportProposal *proposal)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "The analyst changed %u line of the code (the code is left out of this report).",
                                       "The analyst changed %u lines of the code (the code is left out of this report).",
                                       proposal->changed_lines),
                          proposal->changed_lines);
}
