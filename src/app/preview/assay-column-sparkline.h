/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_COLUMN_SPARKLINE (assay_column_sparkline_get_type ())

G_DECLARE_FINAL_TYPE (AssayColumnSparkline, assay_column_sparkline, ASSAY, COLUMN_SPARKLINE, GtkWidget)

/* A small bar chart of a column's histogram (or its top values' counts), drawn with cairo in
 * the foreground colour. Empty when given no values. */
GtkWidget *assay_column_sparkline_new        (void);
void       assay_column_sparkline_set_values (AssayColumnSparkline *self,
                                              const double         *values,
                                              guint                 n_values);
guint      assay_column_sparkline_get_n_values (AssayColumnSparkline *self);

G_END_DECLS
