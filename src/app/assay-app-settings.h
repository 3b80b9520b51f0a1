/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-sandbox-backend.h"

G_BEGIN_DECLS

/* The sandbox's limits as the settings (memory-mb, cpus, cell-timeout) give them, for
 * assay_sandbox_choose_backend_async () with the "sandbox-backend" key. */
AssaySandboxSpec *assay_app_sandbox_spec_new (GSettings      *settings);
/* Adds the "Tables (CSV, TSV, TXT, XLSX)" filter to CHOOSER. */
void              assay_app_add_data_filter  (GtkFileChooser *chooser);

G_END_DECLS
