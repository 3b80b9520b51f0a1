/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "assay-report-private.h"

/* Being written: see the helper's task. */
gboolean
assay_report_write_bundle (AssayReport   *report,
                       GOutputStream *out,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_FORMAT, "not written yet");
  return FALSE;
}
