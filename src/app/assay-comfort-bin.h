/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A widget's children laid out as GtkBinLayout does (each over the whole widget), with a
 * natural width of COMFORT_WIDTH (or its minimum, if wider) whatever its content: the width
 * its content reads well at. An AdwLeaflet folds as soon as its children do not get their
 * natural widths, so the chat and the code pane fold apart where either would get cramped,
 * while their minimum widths stay small enough for a 360 px window. For a class's measure
 * and size_allocate. */
void assay_comfort_bin_measure       (GtkWidget      *widget,
                                      int             comfort_width,
                                      GtkOrientation  orientation,
                                      int             for_size,
                                      int            *minimum,
                                      int            *natural,
                                      int            *minimum_baseline,
                                      int            *natural_baseline);
GtkSizeRequestMode assay_comfort_bin_get_request_mode (GtkWidget *widget);
void assay_comfort_bin_size_allocate (GtkWidget      *widget,
                                      int             width,
                                      int             height,
                                      int             baseline);

G_END_DECLS
