/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-types.h"

G_BEGIN_DECLS

/* Exports of a session: a PDF drawn by Assay itself (cairo + Pango), one self-contained
 * HTML file, or a Jupyter notebook (nbformat 4.5) that re-runs against the same data. */

#define ASSAY_REPORT_ERROR (assay_report_error_quark ())
GQuark assay_report_error_quark (void);

typedef enum
{
  ASSAY_REPORT_ERROR_FORMAT,     /* unknown format or file name extension */
  ASSAY_REPORT_ERROR_WRITE,      /* the file could not be written (disk full, no permission) */
  ASSAY_REPORT_ERROR_RENDER,     /* drawing the PDF failed */
} AssayReportError;

typedef enum
{
  ASSAY_REPORT_FORMAT_PDF,
  ASSAY_REPORT_FORMAT_HTML,
  ASSAY_REPORT_FORMAT_IPYNB,
  ASSAY_REPORT_FORMAT_XLSX,      /* an Excel workbook: summary, one sheet per table, cells */
  ASSAY_REPORT_FORMAT_BUNDLE,    /* a zip that runs the analysis again without Assay */
} AssayReportFormat;

typedef struct
{
  AssayReportFormat  format;
  gboolean           include_code;     /* the cells' code (a notebook keeps it, hidden) */
  gboolean           only_successful;  /* leave out cells that failed or did not run */
  gboolean           include_requests; /* end with "What was sent to the model": every request
                                        * the session recorded, what it added to the
                                        * conversation (default FALSE) */
  gboolean           include_data;     /* the bundle: the datasets themselves under data/
                                        * (default FALSE: only their SHA-256) */
  char              *title;            /* NULL: the session's title */
} AssayReportOptions;

void                assay_report_options_init        (AssayReportOptions  *options);
/* "pdf", "html" (or "htm"), "ipynb", "xlsx", "bundle" (or "zip"); FALSE for anything else. */
gboolean            assay_report_format_from_string  (const char          *text,
                                                      AssayReportFormat   *format);
/* From FILE's extension. */
gboolean            assay_report_format_from_path    (const char          *path,
                                                      AssayReportFormat   *format);
const char         *assay_report_format_to_string    (AssayReportFormat    format);
/* The extension a file of FORMAT gets: "pdf", "html", "ipynb", "xlsx", "zip". */
const char         *assay_report_format_extension    (AssayReportFormat    format);
/* A file name for an export of a session titled TITLE (NULL: "Report"): the title without
 * folder separators, the characters other systems refuse (? * " < > |), control characters,
 * leading dots or dashes, or trailing dots and ellipses (no "chart..pdf"), cut at 120 bytes, with the
 * format's extension. */
char               *assay_report_suggest_file_name   (const char          *title,
                                                      AssayReportFormat    format);

/* Writes the export of SESSION to PATH, atomically: a failed or cancelled export leaves
 * nothing behind and never replaces an existing file with half of one. PROGRESS, when
 * given, is called on this thread. */
gboolean            assay_report_export              (AssaySession              *session,
                                                      const AssayReportOptions  *options,
                                                      const char                *path,
                                                      AssayProgressFunc          progress,
                                                      gpointer                   progress_data,
                                                      GCancellable              *cancellable,
                                                      GError                   **error);
/* The same in a worker thread. SESSION is read before this returns (a snapshot), so it may
 * change meanwhile; PROGRESS is called on the caller's thread-default main context. */
void                assay_report_export_async        (AssaySession              *session,
                                                      const AssayReportOptions  *options,
                                                      const char                *path,
                                                      AssayProgressFunc          progress,
                                                      gpointer                   progress_data,
                                                      GDestroyNotify             progress_destroy,
                                                      GCancellable              *cancellable,
                                                      GAsyncReadyCallback        callback,
                                                      gpointer                   user_data);
gboolean            assay_report_export_finish       (AssaySession              *session,
                                                      GAsyncResult              *result,
                                                      GError                   **error);

G_END_DECLS
