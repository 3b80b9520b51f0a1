/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "assay-csv-dialect.h"

G_BEGIN_DECLS

/* Writes the delimited file NEW_PATH to OUT_PATH in the dialect TO (the old file's):
 * encoding, byte-order mark, delimiter, quoting, line ends; in the columns NUMERIC marks
 * (N_NUMERIC of them, by position), the decimal separator made TO's and thousands
 * separators dropped. The header row is copied as it is. OUT_PATH is removed on failure. */
gboolean  assay_rerun_convert          (const char            *new_path,
                                        const AssayCsvDialect *to,
                                        const gboolean        *numeric,
                                        guint                  n_numeric,
                                        const char            *out_path,
                                        GError               **error);
/* "windows-1251, “;” between fields, decimal “,”" */
char     *assay_rerun_describe_dialect (const AssayCsvDialect *dialect);

G_END_DECLS
