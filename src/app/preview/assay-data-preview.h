/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-column-profile-panel.h"
#include "assay-dataset-page.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_DATA_PREVIEW (assay_data_preview_get_type ())

G_DECLARE_FINAL_TYPE (AssayDataPreview, assay_data_preview, ASSAY, DATA_PREVIEW, GtkWidget)

/* The session's datasets, one tab each: a virtualised table with rich column headers, and a
 * side panel (AdwFlap) with the selected column's profile and the file's dialect, which the
 * analyst can correct. Self-contained: the window embeds it and hands it file paths. */
GtkWidget        *assay_data_preview_new              (void);
/* Replaces the tabs with one per path (NULL-terminated; NULL or empty: none). */
void              assay_data_preview_set_files        (AssayDataPreview   *self,
                                                       const char * const *paths);
/* Adds a tab for PATH and shows it; shows the existing tab when PATH is already there. */
AssayDatasetPage *assay_data_preview_add_file         (AssayDataPreview   *self,
                                                       const char         *path);
void              assay_data_preview_remove_file      (AssayDataPreview   *self,
                                                       const char         *path);
guint             assay_data_preview_get_n_files      (AssayDataPreview   *self);
AssayDatasetPage *assay_data_preview_get_page         (AssayDataPreview   *self,
                                                       const char         *path);
AssayDatasetPage *assay_data_preview_get_selected_page (AssayDataPreview  *self);
/* Shows the file at PATH's page; FALSE when it has none. */
gboolean          assay_data_preview_select_file      (AssayDataPreview   *self,
                                                       const char         *path);
AssayColumnProfilePanel *assay_data_preview_get_panel (AssayDataPreview   *self);
/* Whether the side panel shows ("show-panel"). */
void              assay_data_preview_set_show_panel   (AssayDataPreview   *self,
                                                       gboolean            show_panel);
gboolean          assay_data_preview_get_show_panel   (AssayDataPreview   *self);
/* The columns of the file at PATH whose values never reach the model (NULL-terminated; NULL:
 * none): marked in its headers, and the panel's "Never Send Values to the Model" switch
 * shows it. The switch emits ::mask-toggled (const char *path, const char *column, gboolean
 * masked); the caller keeps the masked columns and sets them here. */
void              assay_data_preview_set_masked_columns (AssayDataPreview   *self,
                                                         const char         *path,
                                                         const char * const *columns);

G_END_DECLS
