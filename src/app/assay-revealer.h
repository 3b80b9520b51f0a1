/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void assay_revealer_hide_child_when_closed (GtkRevealer *revealer);

G_END_DECLS
