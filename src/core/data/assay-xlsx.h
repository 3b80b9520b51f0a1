/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char *name;        /* UTF-8 as written in the workbook, unsanitised */
  char *dimension;   /* "A1:D20" when the sheet says, else NULL */
} AssayXlsxSheet;

/* TRUE when DATA starts like a zip archive. */
gboolean   assay_xlsx_looks_like_zip (const char *data,
                                      gsize       len);

/* Lists the sheets of an Excel workbook (.xlsx) held in DATA, from xl/workbook.xml, with
 * each sheet's dimension when its part says. A minimal, bounds-checked zip reader: entries
 * are looked up by name only, never extracted, and inflated sizes are capped. Returns a
 * GPtrArray of AssayXlsxSheet, or NULL with ERROR set. */
GPtrArray *assay_xlsx_list_sheets    (const char  *data,
                                      gsize        len,
                                      GError     **error);

void       assay_xlsx_sheet_free     (AssayXlsxSheet *sheet);

G_END_DECLS
