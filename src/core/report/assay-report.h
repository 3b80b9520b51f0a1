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

/* A row of the format table (assay-report-formats.c): PDF, HTML, a notebook, an Excel
 * workbook (summary, one sheet per table, cells), a bundle (a zip that runs the analysis
 * again without Assay). The export dialog, the file chooser and assay-cli read the table; a
 * new format is a writer in a file of its own and a row. */
typedef struct _AssayReportFormat AssayReportFormat;

/* The formats in the table's order (the export dialog lists them so). */
guint                     assay_report_get_n_formats        (void);
const AssayReportFormat  *assay_report_get_format           (guint                     position);
/* By name or extension, in any case ("pdf", "html" or "htm", "ipynb", "xlsx", "bundle" or
 * "zip"); NULL for anything else. */
const AssayReportFormat  *assay_report_format_lookup        (const char               *text);
/* From a file name's extension; NULL when it has none of theirs. */
const AssayReportFormat  *assay_report_format_for_path      (const char               *path);
/* "pdf", "bundle": what --format takes and `export` prints. */
const char               *assay_report_format_get_name      (const AssayReportFormat  *format);
/* The extension its files get: "pdf", "html", "ipynb", "xlsx", "zip". */
const char               *assay_report_format_get_extension (const AssayReportFormat  *format);
/* The export dialog's name for it, translated ("Jupyter Notebook"). */
const char               *assay_report_format_get_label     (const AssayReportFormat  *format);
/* The file chooser's name for its files, translated ("Jupyter notebooks"). */
const char               *assay_report_format_get_files_label (const AssayReportFormat *format);
/* The names ("pdf, html, …") or the extensions (".pdf, .html, …") joined by SEPARATOR. */
char                     *assay_report_format_list          (gboolean                  extensions,
                                                             const char               *separator);

typedef struct
{
  const AssayReportFormat *format;     /* assay_report_options_init: PDF */
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
/* A file name for an export of a session titled TITLE (NULL: "Report"): the title without
 * folder separators, the characters other systems refuse (? * " < > |), control characters,
 * leading dots or dashes, or trailing dots and ellipses (no "chart..pdf"), cut at 120 bytes, with the
 * format's extension. */
char               *assay_report_suggest_file_name   (const char               *title,
                                                      const AssayReportFormat  *format);

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
