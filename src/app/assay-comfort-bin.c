/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "assay-comfort-bin.h"

void
assay_comfort_bin_measure (GtkWidget      *widget,
                           int             comfort_width,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  *minimum = *natural = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      int child_min = 0, child_nat = 0;

      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, orientation, for_size, &child_min, &child_nat, NULL, NULL);
      *minimum = MAX (*minimum, child_min);
      *natural = MAX (*natural, child_nat);
    }
  /* Its comfortable width, whatever the content: the chat and the code pane keep their share
   * of the window as the code or the conversation change (a long line of code moved the
   * split, and every label of the conversation was laid out again at its new width). */
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *natural = MAX (*minimum, comfort_width);
}

/* Text inside: height-for-width, whatever the children said while hidden. */
GtkSizeRequestMode
assay_comfort_bin_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

void
assay_comfort_bin_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child))
      gtk_widget_allocate (child, width, height, baseline, NULL);
}
