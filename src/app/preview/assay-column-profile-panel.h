/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-dataset.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_COLUMN_PROFILE_PANEL (assay_column_profile_panel_get_type ())

G_DECLARE_FINAL_TYPE (AssayColumnProfilePanel, assay_column_profile_panel, ASSAY, COLUMN_PROFILE_PANEL, GtkWidget)

/* The side panel of the data preview: the selected column's full profile, how the file is
 * read (the sniffed dialect and the warnings), and controls to correct the encoding,
 * delimiter, decimal separator and header. "Re-read the File" emits ::apply with an override
 * (const AssayCsvDialect *, see assay_csv_dialect_init_override ()). */
GtkWidget *assay_column_profile_panel_new         (void);
/* DATASET NULL: the profile is still being computed. */
void       assay_column_profile_panel_set_column  (AssayColumnProfilePanel *self,
                                                   AssayDataset            *dataset,
                                                   const char              *name,
                                                   guint                    column);
/* DIALECT NULL: not a delimited text file (no corrections). WARNINGS may be NULL. */
void       assay_column_profile_panel_set_dialect (AssayColumnProfilePanel *self,
                                                   const AssayCsvDialect   *dialect,
                                                   GPtrArray               *warnings);
/* Sets the correction controls to OVERRIDE (NULL: all "Automatic"). */
void       assay_column_profile_panel_set_correction (AssayColumnProfilePanel *self,
                                                      const AssayCsvDialect   *override);
/* Fills OVERRIDE from the controls; clear it with assay_csv_dialect_clear_override (). */
void       assay_column_profile_panel_get_correction (AssayColumnProfilePanel *self,
                                                      AssayCsvDialect         *override);
/* What "Re-read the File" does. */
void       assay_column_profile_panel_apply       (AssayColumnProfilePanel *self);
/* Whether the column shown is masked: its values never reach the model ("masked"). The
 * analyst's "Never Send Values to the Model" switch emits ::mask-toggled (const char
 * *column, gboolean masked) instead of changing it; whoever keeps the session's masked
 * columns sets it to what holds then. */
void       assay_column_profile_panel_set_masked  (AssayColumnProfilePanel *self,
                                                   gboolean                 masked);
gboolean   assay_column_profile_panel_get_masked  (AssayColumnProfilePanel *self);
/* The column shown, or NULL. */
const char *assay_column_profile_panel_get_column_name (AssayColumnProfilePanel *self);

G_END_DECLS
