/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "assay-revealer.h"

static void
assay_revealer_sync_child (GtkRevealer *revealer)
{
  GtkWidget *child = gtk_revealer_get_child (revealer);

  if (child != NULL)
    gtk_widget_set_visible (child, gtk_revealer_get_reveal_child (revealer) ||
                                   gtk_revealer_get_child_revealed (revealer));
}

/* A closed GtkRevealer still measures its child (GTK 4.8), and a wrapped label beside other
 * widgets in a horizontal box costs a dozen Pango layouts per width asked: the closed
 * banners were a fifth of the window's text layouts at start-up. Its child is hidden once
 * the revealer has closed and shown as it begins to open, so the transitions are the same. */
void
assay_revealer_hide_child_when_closed (GtkRevealer *revealer)
{
  g_return_if_fail (GTK_IS_REVEALER (revealer));

  g_signal_connect (revealer, "notify::reveal-child", G_CALLBACK (assay_revealer_sync_child), NULL);
  g_signal_connect (revealer, "notify::child-revealed", G_CALLBACK (assay_revealer_sync_child), NULL);
  assay_revealer_sync_child (revealer);
}
