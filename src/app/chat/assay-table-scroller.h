/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ASSAY_TYPE_TABLE_SCROLLER (assay_table_scroller_get_type ())

G_DECLARE_FINAL_TYPE (AssayTableScroller, assay_table_scroller, ASSAY, TABLE_SCROLLER, GtkWidget)

/* A table too wide for the chat, scrolled sideways: its child gets at least its natural
 * width (a table's cells never wrap because the chat is narrow), its height is measured for
 * that width, and a scrollbar under it appears when it is wider than the chat. Only
 * horizontal scrolling is taken (a touchpad's sideways swipe, Shift with the wheel); the
 * wheel alone scrolls the conversation around it. */
GtkWidget     *assay_table_scroller_new             (void);
void           assay_table_scroller_set_child       (AssayTableScroller *self,
                                                     GtkWidget          *child);
GtkWidget     *assay_table_scroller_get_child       (AssayTableScroller *self);
GtkAdjustment *assay_table_scroller_get_hadjustment (AssayTableScroller *self);

G_END_DECLS
