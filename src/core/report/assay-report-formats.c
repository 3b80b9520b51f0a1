/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The export formats: one row each. The export dialog lists them in this order, the file
 * chooser names their files, assay-cli takes their names; a new format is a writer in a file
 * of its own and a row here. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "assay-report-private.h"

static const AssayReportFormat formats[] = {
  { "pdf", "pdf", NULL, N_("PDF"), N_("PDF documents"), assay_report_write_pdf },
  { "html", "html", "htm", N_("HTML"), N_("Web pages"), assay_report_write_html },
  { "ipynb", "ipynb", NULL, N_("Jupyter Notebook"), N_("Jupyter notebooks"), assay_report_write_ipynb },
  { "xlsx", "xlsx", NULL, N_("Excel Workbook (.xlsx)"), N_("Excel workbooks"), assay_report_write_xlsx },
  { "bundle", "zip", NULL, N_("Reproducible Bundle (.zip)"), N_("Zip archives"), assay_report_write_bundle },
};

guint
assay_report_get_n_formats (void)
{
  return G_N_ELEMENTS (formats);
}

const AssayReportFormat *
assay_report_get_format (guint position)
{
  g_return_val_if_fail (position < G_N_ELEMENTS (formats), NULL);
  return &formats[position];
}

const AssayReportFormat *
assay_report_format_lookup (const char *text)
{
  if (text == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (g_ascii_strcasecmp (text, formats[i].name) == 0 ||
        g_ascii_strcasecmp (text, formats[i].extension) == 0 ||
        (formats[i].alias != NULL && g_ascii_strcasecmp (text, formats[i].alias) == 0))
      return &formats[i];
  return NULL;
}

const AssayReportFormat *
assay_report_format_for_path (const char *path)
{
  const char *dot = path != NULL ? strrchr (path, '.') : NULL;

  if (dot == NULL || strchr (dot, '/') != NULL)
    return NULL;
  return assay_report_format_lookup (dot + 1);
}

const char *
assay_report_format_get_name (const AssayReportFormat *format)
{
  g_return_val_if_fail (format != NULL, NULL);
  return format->name;
}

const char *
assay_report_format_get_extension (const AssayReportFormat *format)
{
  g_return_val_if_fail (format != NULL, NULL);
  return format->extension;
}

const char *
assay_report_format_get_label (const AssayReportFormat *format)
{
  g_return_val_if_fail (format != NULL, NULL);
  return _(format->label);
}

const char *
assay_report_format_get_files_label (const AssayReportFormat *format)
{
  g_return_val_if_fail (format != NULL, NULL);
  return _(format->files_label);
}

char *
assay_report_format_list (gboolean    extensions,
                          const char *separator)
{
  GString *list = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    g_string_append_printf (list, "%s%s%s", i > 0 ? separator : "", extensions ? "." : "",
                            extensions ? formats[i].extension : formats[i].name);
  return g_string_free (list, FALSE);
}
