/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-dataset.h"
#include "assay-row-model.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_DATASET_PAGE (assay_dataset_page_get_type ())

G_DECLARE_FINAL_TYPE (AssayDatasetPage, assay_dataset_page, ASSAY, DATASET_PAGE, GtkWidget)

/* One dataset of the preview: a virtualised table over the row index, with a rich header per
 * column, or the sheets of a workbook, or the reason a file cannot be read. The file is
 * opened off the main thread: the index (rows show as soon as the first are indexed) and the
 * profile (headers and the side panel) are separate tasks. "state" is "loading", "table",
 * "workbook" or "error". */
GtkWidget             *assay_dataset_page_new               (const char            *path);
const char            *assay_dataset_page_get_path          (AssayDatasetPage      *self);
const char            *assay_dataset_page_get_state         (AssayDatasetPage      *self);
const char            *assay_dataset_page_get_error_message (AssayDatasetPage      *self);
/* Re-reads the file with what the analyst corrected (NULL: all sniffed again). */
void                   assay_dataset_page_reopen            (AssayDatasetPage      *self,
                                                             const AssayCsvDialect *override);
/* The correction in force, or NULL. */
const AssayCsvDialect *assay_dataset_page_get_override      (AssayDatasetPage      *self);
/* The dialect the table is read with (the profile's once ready), or NULL. */
const AssayCsvDialect *assay_dataset_page_get_dialect       (AssayDatasetPage      *self);
/* The profile, once computed, or NULL. */
AssayDataset          *assay_dataset_page_get_dataset       (AssayDatasetPage      *self);
AssayRowModel         *assay_dataset_page_get_row_model     (AssayDatasetPage      *self);
GtkColumnView         *assay_dataset_page_get_column_view   (AssayDatasetPage      *self);
guint                  assay_dataset_page_get_n_columns     (AssayDatasetPage      *self);
const char            *assay_dataset_page_get_column_name   (AssayDatasetPage      *self,
                                                             guint                  column);
/* The rich header's text ("integer · 10.0% null"), for tests and accessibility. */
const char            *assay_dataset_page_get_header_text   (AssayDatasetPage      *self,
                                                             guint                  column);
GtkWidget             *assay_dataset_page_get_header        (AssayDatasetPage      *self,
                                                             guint                  column);
int                    assay_dataset_page_get_selected_column (AssayDatasetPage    *self);
void                   assay_dataset_page_select_column     (AssayDatasetPage      *self,
                                                             int                    column);
/* The columns whose values never reach the model, by name (NULL-terminated; NULL: none):
 * their headers carry a mark. Kept when the file is read again. */
void                   assay_dataset_page_set_masked_columns (AssayDatasetPage     *self,
                                                              const char * const   *columns);
gboolean               assay_dataset_page_get_column_masked (AssayDatasetPage      *self,
                                                             const char            *name);
/* Whether the header of COLUMN shows the mark (for tests). */
gboolean               assay_dataset_page_get_header_masked (AssayDatasetPage      *self,
                                                             guint                  column);

/* For a database, COLUMNS names "TABLE.COLUMN"; its columns' switches follow them. */
/* An SQLite database (state "database"): its tables and views, each an AdwExpanderRow (the
 * table's name, "Table · 50 rows") holding a row per column (its name; type, key, the table a
 * foreign key names, a "Never Send Values to the Model" switch: ::table-mask-toggled). Choosing
 * a table reads its first rows in a worker into the view below. */
void                   assay_dataset_page_show_table        (AssayDatasetPage      *self,
                                                             const char            *table);
const char            *assay_dataset_page_get_shown_table   (AssayDatasetPage      *self);
/* The shown table's rows once read (GtkStringList items), or NULL. */
GListModel            *assay_dataset_page_get_table_rows    (AssayDatasetPage      *self);
GtkListBox            *assay_dataset_page_get_tables_list   (AssayDatasetPage      *self);
GtkColumnView         *assay_dataset_page_get_table_rows_view (AssayDatasetPage    *self);

G_END_DECLS
