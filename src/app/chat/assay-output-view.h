/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_OUTPUT_VIEW (assay_output_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayOutputView, assay_output_view, ASSAY, OUTPUT_VIEW, GtkWidget)

/* A cell's text output: a read-only monospace GtkTextView (output grows by appending, and a
 * text view lays out only the lines that changed) that is as tall as all of its text, its
 * lines never wrapped (pandas' columns stay aligned): as wide as its longest line, for an
 * AssayTableScroller around it to scroll sideways. Measured when asked. A bare GtkTextView is as tall as the lines it has
 * laid out so far, which it does in an idle below the frames' priority: while frames follow
 * each other (a spinner on a slow renderer) it stayed at a line and a half. */
GtkWidget   *assay_output_view_new           (void);
/* The same around VIEW (a GtkSourceView, for highlighted SQL), which it sets up the same way. */
GtkWidget   *assay_output_view_new_with_view (GtkTextView     *view);
GtkTextView *assay_output_view_get_text_view (AssayOutputView *self);

G_END_DECLS
