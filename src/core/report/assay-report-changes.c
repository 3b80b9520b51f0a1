/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "What changed": the words every writer uses for a session that ran another again. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "assay-report-private.h"
#include "assay-rerun.h"

const char *
report_changes_title (void)
{
  return _("What Changed");
}

char *
report_changes_intro (const AssayReport *report)
{
  guint n_stale = 0, n_changed = 0;

  for (guint i = 0; i < report->changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (report->changes, i);

      if (change->stale)
        n_stale++;
      else if (change->after != change->before)
        n_changed++;
    }
  if (report->changes->len == 0)
    return g_strdup_printf (_("This analysis is “%s” run again on new data, without a model. "
                              "Its answers named no number that was traced to an output."),
                            report->rerun_of_title);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "This analysis is “%s” run again on new data, without a model. "
                                       "Of the %u traced number in its answers, %u changed and %u "
                                       "could not be found again (stale).",
                                       "This analysis is “%s” run again on new data, without a model. "
                                       "Of the %u traced numbers in its answers, %u changed and %u "
                                       "could not be found again (stale).",
                                       report->changes->len),
                          report->rerun_of_title, report->changes->len, n_changed, n_stale);
}

char *
report_change_delta (const AssaySessionChange *change)
{
  if (change->stale)
    return g_strdup (_("stale"));
  return assay_rerun_format_delta (change);
}

char *
report_change_label (const AssaySessionChange *change)
{
  if (change->label != NULL && *change->label != '\0')
    return g_strdup (change->label);
  return g_strdup_printf (_("a number of answer %u"), change->question);
}

char *
report_change_percent (const AssaySessionChange *change)
{
  return assay_rerun_format_percent (change);
}
