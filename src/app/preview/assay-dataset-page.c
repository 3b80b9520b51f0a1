/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Preview"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-types.h"
#include "assay-column-header-strip.h"
#include "assay-column-sparkline.h"
#include "assay-data-text.h"
#include "assay-dataset-page.h"
#include "assay-source-schema.h"
#include "assay-sqlite-file.h"
#include "assay-xlsx.h"

#define ROW_NUMBER_WIDTH 72
#define COLUMN_WIDTH     150
#define PROFILE_DELAY_MS 100
#define TABLE_PREVIEW_ROWS 200

typedef struct
{
  GtkWidget            *box;
  GtkLabel             *info;
  GtkWidget            *mask_icon;   /* shown when the column is masked */
  AssayColumnSparkline *sparkline;
  GtkColumnViewColumn  *column;
  gboolean              numeric;
} ColumnUi;

struct _AssayDatasetPage
{
  GtkWidget          parent_instance;

  GtkStack          *stack;
  GtkSpinner        *spinner;
  GtkBox            *table_box;
  GtkLabel          *rows_label;
  GtkProgressBar    *progress_bar;
  GtkScrolledWindow *scroller;
  GtkColumnView     *column_view;
  AdwStatusPage     *workbook_page;
  GtkBox            *sheets_box;
  AdwStatusPage     *error_page;
  GtkWidget         *strip;
  GtkLabel          *database_label;
  GtkListBox        *tables_list;
  GtkLabel          *table_rows_label;
  GtkColumnView     *table_rows_view;

  /* An SQLite database: the table whose first rows are shown, read in a worker. */
  char              *shown_table;
  GListStore        *table_rows;   /* GtkStringList per row */
  GCancellable      *rows_cancellable;
  GPtrArray         *mask_switches; /* GtkSwitch*, one per column of a database's tables */
  gboolean           setting_masks;

  char              *path;
  AssayCsvDialect   *override;
  GCancellable      *cancellable;
  AssayCsvIndex     *index;
  AssayRowModel     *model;
  AssayDataset      *dataset;
  char              *error_message;
  GArray            *columns;     /* ColumnUi */
  GtkColumnViewColumn *row_number_column;
  int                selected_column;
  GHashTable        *masked;      /* names of the columns whose values never reach the model */
  gboolean           profile_started;
  guint              profile_timeout_id;
};

G_DEFINE_FINAL_TYPE (AssayDatasetPage, assay_dataset_page, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PATH,
  PROP_STATE,
  PROP_DATASET,
  PROP_SELECTED_COLUMN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  TABLE_MASK_TOGGLED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  char            *path;
  AssayCsvDialect *override;
} OpenRequest;

static AssayCsvDialect *
assay_dataset_page_copy_override (const AssayCsvDialect *override)
{
  AssayCsvDialect *copy;

  /* An override that corrects nothing is no override. */
  if (override == NULL ||
      (override->encoding == NULL && override->delimiter == '\0' && override->quote == '\0' &&
       override->decimal == '\0' && override->header == ASSAY_CSV_HEADER_DETECT))
    return NULL;
  copy = g_new0 (AssayCsvDialect, 1);
  assay_csv_dialect_init_override (copy);
  copy->encoding = g_strdup (override->encoding);
  copy->delimiter = override->delimiter;
  copy->quote = override->quote;
  copy->decimal = override->decimal;
  copy->header = override->header;
  return copy;
}

static void
assay_dataset_page_free_override (AssayCsvDialect *override)
{
  if (override == NULL)
    return;
  assay_csv_dialect_clear_override (override);
  g_free (override);
}

static void
assay_dataset_page_open_request_free (OpenRequest *request)
{
  g_free (request->path);
  assay_dataset_page_free_override (request->override);
  g_free (request);
}

static char *
assay_dataset_page_format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

static void
assay_dataset_page_set_state (AssayDatasetPage *self,
                              const char       *state)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), state) == 0)
    return;
  gtk_stack_set_visible_child_name (self->stack, state);
  gtk_spinner_set_spinning (self->spinner, g_str_equal (state, "loading"));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void
assay_dataset_page_show_error (AssayDatasetPage *self,
                               const char       *reason)
{
  g_autofree char *description = NULL;

  g_free (self->error_message);
  self->error_message = g_strdup (reason);
  /* The reasons are sentences without a capital ("the file is empty"), in any language. */
  if (reason != NULL && g_utf8_validate (reason, -1, NULL) && *reason != '\0')
    {
      char first[8] = { 0, };
      const char *rest = g_utf8_next_char (reason);

      g_unichar_to_utf8 (g_unichar_totitle (g_utf8_get_char (reason)), first);
      description = g_strdup_printf ("%s%s%s", first, rest, g_str_has_suffix (reason, ".") ? "" : ".");
    }
  else
    description = g_strdup (reason);
  adw_status_page_set_description (self->error_page, description);
  assay_dataset_page_set_state (self, "error");
}

/* ---- The table ---------------------------------------------------------------------- */

/* What a column's cells show: a data column, left- or right-aligned, or the row number. */
typedef struct
{
  guint    column;
  gboolean numeric;
  gboolean row_number;
} CellKind;

/* The cells are GtkInscriptions, made for list cells: their size comes from the font's metrics,
 * never from their text. GTK 4.8 keeps about 200 rows around the visible ones and binds all of
 * them again after a far jump; a GtkLabel cell then lays its text out to be measured (for the
 * window's size and for the row heights), an inscription only when it is drawn, and only the
 * rows on screen are drawn. */
static void
assay_dataset_page_cell_setup (GtkSignalListItemFactory *factory,
                               GtkListItem              *item,
                               CellKind                 *kind)
{
  GtkWidget *cell = gtk_inscription_new (NULL);

  gtk_inscription_set_text_overflow (GTK_INSCRIPTION (cell), GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
  if (kind->numeric || kind->row_number)
    {
      gtk_inscription_set_xalign (GTK_INSCRIPTION (cell), 1.0);
      gtk_widget_add_css_class (cell, "numeric");
    }
  /* Dimmed by its colour (the stylesheet), not .dim-label: an opacity node per row number
   * is an offscreen group per cell for the cairo renderer, on every frame that redraws them. */
  if (kind->row_number)
    gtk_widget_add_css_class (cell, "row-number");
  else
    g_object_set_data (G_OBJECT (cell), "column", GUINT_TO_POINTER (kind->column + 1));
  gtk_list_item_set_child (item, cell);
}

static void
assay_dataset_page_cell_bind (GtkSignalListItemFactory *factory,
                              GtkListItem              *item,
                              CellKind                 *kind)
{
  GtkInscription *cell = GTK_INSCRIPTION (gtk_list_item_get_child (item));
  AssayRow *row = gtk_list_item_get_item (item);

  if (kind->row_number)
    {
      char text[32];

      g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, assay_row_get_index (row) + 1);
      gtk_inscription_set_text (cell, text);
    }
  else
    gtk_inscription_set_text (cell, assay_row_get_field (row, kind->column));
}

static void
assay_dataset_page_cell_kind_free (gpointer  kind,
                                   GClosure *closure)
{
  g_free (kind);
}

static GtkListItemFactory *
assay_dataset_page_make_factory (guint    column,
                                 gboolean numeric,
                                 gboolean row_number)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  CellKind *kind = g_new0 (CellKind, 1);

  kind->column = column;
  kind->numeric = numeric;
  kind->row_number = row_number;
  g_signal_connect (factory, "setup", G_CALLBACK (assay_dataset_page_cell_setup), kind);
  g_signal_connect_data (factory,
                         "bind",
                         G_CALLBACK (assay_dataset_page_cell_bind),
                         kind,
                         assay_dataset_page_cell_kind_free,
                         0);
  return factory;
}

static void
assay_dataset_page_header_pressed (GtkGestureClick *gesture,
                                   int              n_press,
                                   double           x,
                                   double           y,
                                   AssayDatasetPage *self)
{
  GtkWidget *box = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));

  assay_dataset_page_select_column (self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (box), "column")));
}

/* A click on a column's name in the table's own header shows that column in the panel, as a
 * click on its histogram above does. The header's titles are GtkColumnView's own widgets,
 * one per column in the order of its columns (the row number's first). */
static void
assay_dataset_page_title_pressed (GtkGestureClick  *gesture,
                                  int               n_press,
                                  double            x,
                                  double            y,
                                  AssayDatasetPage *self)
{
  GtkWidget *title = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));
  int column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (title), "assay-column")) - 1;

  if (column >= 0 && column < (int) self->columns->len)
    assay_dataset_page_select_column (self, column);
}

static void
assay_dataset_page_connect_titles (AssayDatasetPage *self)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (self->column_view));
  int index = 0;

  if (header == NULL || g_strcmp0 (gtk_widget_get_css_name (header), "header") != 0)
    return;
  for (GtkWidget *title = gtk_widget_get_first_child (header); title != NULL; title = gtk_widget_get_next_sibling (title))
    {
      /* Index from 1: 0 is "not a column's title". */
      g_object_set_data (G_OBJECT (title), "assay-column", GINT_TO_POINTER (index++));
      if (g_object_get_data (G_OBJECT (title), "assay-click") == NULL)
        {
          GtkGesture *click = gtk_gesture_click_new ();

          g_signal_connect (click, "pressed", G_CALLBACK (assay_dataset_page_title_pressed), self);
          gtk_widget_add_controller (title, GTK_EVENT_CONTROLLER (click));
          g_object_set_data (G_OBJECT (title), "assay-click", click);
        }
    }
}

static void
assay_dataset_page_clear_table (AssayDatasetPage *self)
{
  while (self->columns->len > 0)
    {
      ColumnUi *ui = &g_array_index (self->columns, ColumnUi, self->columns->len - 1);

      gtk_column_view_remove_column (self->column_view, ui->column);
      g_array_set_size (self->columns, self->columns->len - 1);
    }
  if (self->row_number_column != NULL)
    {
      gtk_column_view_remove_column (self->column_view, self->row_number_column);
      g_clear_object (&self->row_number_column);
    }
  gtk_column_view_set_model (self->column_view, NULL);
  if (self->strip != NULL)
    assay_column_header_strip_remove_all (ASSAY_COLUMN_HEADER_STRIP (self->strip));
  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  g_clear_object (&self->model);
  g_clear_object (&self->index);
}

static void
assay_dataset_page_update_progress (AssayDatasetPage *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->model));
  g_autofree char *count = assay_dataset_page_format_count (n);
  g_autofree char *rows = NULL;

  if (assay_row_model_is_complete (self->model))
    {
      rows = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s row", "%s rows", n), count);
      gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), FALSE);
      if (assay_row_model_get_error (self->model) != NULL)
        {
          g_autofree char *with_error = g_strdup_printf (_("%s — indexing stopped: %s"), rows,
                                                         assay_row_model_get_error (self->model)->message);
          gtk_label_set_label (self->rows_label, with_error);
          return;
        }
    }
  else
    {
      double progress = assay_row_model_get_progress (self->model);
      g_autofree char *text = g_strdup_printf (_("Indexing… %.0f%%"), progress * 100);

      rows = g_strdup_printf (_("%s rows so far"), count);
      gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), TRUE);
      gtk_progress_bar_set_fraction (self->progress_bar, progress);
      gtk_progress_bar_set_text (self->progress_bar, text);
    }
  gtk_label_set_label (self->rows_label, rows);
}

static void assay_dataset_page_start_profile (AssayDatasetPage *self);

static gboolean
assay_dataset_page_profile_timeout (gpointer user_data)
{
  AssayDatasetPage *self = user_data;

  self->profile_timeout_id = 0;
  assay_dataset_page_start_profile (self);
  return G_SOURCE_REMOVE;
}

static void
assay_dataset_page_model_notify (AssayDatasetPage *self)
{
  assay_dataset_page_update_progress (self);
  /* The profile takes every core for a while: it starts once the first screen of rows has
   * had a frame to show, so rows come first and the headers fill in after. */
  if (!self->profile_started && self->profile_timeout_id == 0 &&
      (g_list_model_get_n_items (G_LIST_MODEL (self->model)) > 0 || assay_row_model_is_complete (self->model)))
    self->profile_timeout_id = g_timeout_add (PROFILE_DELAY_MS, assay_dataset_page_profile_timeout, self);
}

static void
assay_dataset_page_align_cells (AssayDatasetPage *self,
                                GtkWidget        *widget)
{
  if (GTK_IS_INSCRIPTION (widget) && g_object_get_data (G_OBJECT (widget), "column") != NULL)
    {
      guint c = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "column")) - 1;

      if (c < self->columns->len && g_array_index (self->columns, ColumnUi, c).numeric)
        {
          gtk_inscription_set_xalign (GTK_INSCRIPTION (widget), 1.0);
          gtk_widget_add_css_class (widget, "numeric");
        }
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    assay_dataset_page_align_cells (self, child);
}

static void
assay_dataset_page_update_headers (AssayDatasetPage *self)
{
  guint64 rows = self->dataset != NULL ? assay_dataset_get_n_rows (self->dataset) : 0;
  gboolean factories_changed = FALSE;

  for (guint c = 0; c < self->columns->len; c++)
    {
      ColumnUi *ui = &g_array_index (self->columns, ColumnUi, c);
      g_autoptr(JsonObject) profile = NULL;
      g_autofree char *info = NULL;
      const char *type;
      guint64 nulls;
      JsonArray *bins = NULL;
      gboolean numeric;

      if (self->dataset != NULL)
        profile = assay_dataset_get_column_json (self->dataset, c);
      if (profile == NULL)
        {
          gtk_label_set_label (ui->info, self->dataset == NULL ? _("profiling…") : "—");
          assay_column_sparkline_set_values (ui->sparkline, NULL, 0);
          continue;
        }
      type = json_object_get_string_member_with_default (profile, "type", "string");
      nulls = json_object_get_int_member_with_default (profile, "nulls", 0);
      info = g_strdup_printf (_("%s · %.1f%% null"), type, rows > 0 ? 100.0 * nulls / rows : 0.0);
      gtk_label_set_label (ui->info, info);
      gtk_widget_set_tooltip_text (ui->box, info);

      if (json_object_has_member (profile, "histogram") &&
          JSON_NODE_HOLDS_ARRAY (json_object_get_member (profile, "histogram")) &&
          json_array_get_length (json_object_get_array_member (profile, "histogram")) > 0)
        bins = json_object_get_array_member (profile, "histogram");
      if (bins != NULL)
        {
          guint n = json_array_get_length (bins);
          g_autofree double *values = g_new0 (double, n);

          for (guint i = 0; i < n; i++)
            if (JSON_NODE_HOLDS_VALUE (json_array_get_element (bins, i)))
              values[i] = json_node_get_double (json_array_get_element (bins, i));
          assay_column_sparkline_set_values (ui->sparkline, values, n);
        }
      else if (json_object_has_member (profile, "top") &&
               JSON_NODE_HOLDS_ARRAY (json_object_get_member (profile, "top")))
        {
          /* Text: the top values' counts, most common first. */
          JsonArray *top = json_object_get_array_member (profile, "top");
          guint n = json_array_get_length (top);
          g_autofree double *values = g_new0 (double, MAX (n, 1));

          for (guint i = 0; i < n; i++)
            if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (top, i)))
              values[i] = json_object_get_int_member_with_default (
                  json_node_get_object (json_array_get_element (top, i)), "count", 0);
          assay_column_sparkline_set_values (ui->sparkline, values, n);
        }

      numeric = g_str_equal (type, "integer") || g_str_equal (type, "float");
      if (numeric != ui->numeric)
        {
          g_autoptr(GtkListItemFactory) factory = assay_dataset_page_make_factory (c, numeric, FALSE);

          ui->numeric = numeric;
          gtk_column_view_column_set_factory (ui->column, factory);
          factories_changed = TRUE;
        }
    }

  /* GTK 4.8 keeps the cells made by the old factory (and setting the model again makes it
   * warn): the cells already made are aligned here, new ones by their factory. */
  if (factories_changed)
    assay_dataset_page_align_cells (self, GTK_WIDGET (self->column_view));
}

static void
assay_dataset_page_build_table (AssayDatasetPage *self)
{
  const char * const *names = assay_csv_index_get_column_names (self->index);
  guint n_columns = assay_csv_index_get_n_columns (self->index);
  g_autoptr(GtkListItemFactory) row_factory = assay_dataset_page_make_factory (0, FALSE, TRUE);
  GtkNoSelection *selection;

  self->model = assay_row_model_new (self->index);
  g_signal_connect_swapped (self->model,
                            "notify::progress",
                            G_CALLBACK (assay_dataset_page_model_notify),
                            self);
  g_signal_connect_swapped (self->model,
                            "notify::complete",
                            G_CALLBACK (assay_dataset_page_model_notify),
                            self);
  g_signal_connect_swapped (self->model,
                            "notify::n-items",
                            G_CALLBACK (assay_dataset_page_model_notify),
                            self);

  self->row_number_column = gtk_column_view_column_new ("#", g_object_ref (row_factory));
  gtk_column_view_column_set_fixed_width (self->row_number_column, ROW_NUMBER_WIDTH);
  gtk_column_view_append_column (self->column_view, self->row_number_column);

  for (guint c = 0; c < n_columns; c++)
    {
      ColumnUi ui = { 0 };
      GtkGesture *click = gtk_gesture_click_new ();
      g_autoptr(GtkListItemFactory) factory = assay_dataset_page_make_factory (c, FALSE, FALSE);

      ui.column = gtk_column_view_column_new (names[c], g_object_ref (factory));
      gtk_column_view_column_set_fixed_width (ui.column, COLUMN_WIDTH);
      gtk_column_view_column_set_resizable (ui.column, TRUE);
      gtk_column_view_append_column (self->column_view, ui.column);
      g_object_unref (ui.column);   /* the view holds it */

      ui.box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      gtk_widget_add_css_class (ui.box, "column-header");
      g_object_set_data (G_OBJECT (ui.box), "column", GINT_TO_POINTER (c));
      ui.info = GTK_LABEL (gtk_label_new (NULL));
      gtk_label_set_ellipsize (ui.info, PANGO_ELLIPSIZE_END);
      gtk_label_set_xalign (ui.info, 0);
      gtk_widget_set_hexpand (GTK_WIDGET (ui.info), TRUE);
      gtk_widget_add_css_class (GTK_WIDGET (ui.info), "caption");
      ui.mask_icon = gtk_image_new_from_icon_name ("view-conceal-symbolic");
      gtk_widget_add_css_class (ui.mask_icon, "masked-mark");
      gtk_widget_set_tooltip_text (ui.mask_icon, _("Never sent to the model"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (ui.mask_icon),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("Masked column"), -1);
      gtk_widget_set_visible (ui.mask_icon, g_hash_table_contains (self->masked, names[c]));
      ui.sparkline = ASSAY_COLUMN_SPARKLINE (assay_column_sparkline_new ());
      gtk_widget_set_size_request (GTK_WIDGET (ui.sparkline), -1, 18);
      {
        GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);

        gtk_box_append (GTK_BOX (line), ui.mask_icon);
        gtk_box_append (GTK_BOX (line), GTK_WIDGET (ui.info));
        gtk_box_append (GTK_BOX (ui.box), line);
      }
      gtk_box_append (GTK_BOX (ui.box), GTK_WIDGET (ui.sparkline));
      g_signal_connect (click, "pressed", G_CALLBACK (assay_dataset_page_header_pressed), self);
      gtk_widget_add_controller (ui.box, GTK_EVENT_CONTROLLER (click));
      assay_column_header_strip_append (ASSAY_COLUMN_HEADER_STRIP (self->strip), ui.box);
      g_array_append_val (self->columns, ui);
    }

  assay_dataset_page_connect_titles (self);
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->model)));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  assay_dataset_page_update_headers (self);
  assay_dataset_page_update_progress (self);
  if (self->selected_column >= (int) n_columns)
    self->selected_column = -1;
  assay_dataset_page_select_column (self, self->selected_column >= 0 ? self->selected_column : 0);
  assay_dataset_page_set_state (self, "table");
}

/* ---- Opening ------------------------------------------------------------------------ */

static void
assay_dataset_page_index_worker (GTask        *task,
                                 gpointer      source,
                                 gpointer      task_data,
                                 GCancellable *cancellable)
{
  OpenRequest *request = task_data;
  GError *error = NULL;
  AssayCsvIndex *index;

  /* A workbook has no rows to index: the profile task lists its sheets. */
  {
    g_autoptr(GFile) file = g_file_new_for_path (request->path);
    g_autoptr(GFileInputStream) stream = g_file_read (file, cancellable, NULL);
    char head[8];
    gsize got = 0;

    if (stream != NULL &&
        g_input_stream_read_all (G_INPUT_STREAM (stream), head, sizeof head, &got, cancellable, NULL) &&
        assay_xlsx_looks_like_zip (head, got))
      {
        g_task_return_pointer (task, NULL, NULL);
        return;
      }
  }
  /* Nor has a database: the profile task reads its schema. */
  if (assay_sqlite_file_is_database (request->path))
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  index = assay_csv_index_new_with_dialect (request->path, request->override, &error);
  if (index == NULL)
    {
      /* A file named like a database that is none says so, as the dataset does. */
      g_autofree char *name = g_path_get_basename (request->path);
      g_autoptr(GFile) file = g_file_new_for_path (request->path);
      g_autoptr(GFileInputStream) stream = g_file_read (file, cancellable, NULL);
      char head[16];
      gsize got = 0;
      g_autofree char *reason = NULL;

      if (stream != NULL)
        g_input_stream_read_all (G_INPUT_STREAM (stream), head, sizeof head, &got, cancellable, NULL);
      reason = assay_sqlite_file_explain_not_database (name, head, got);
      if (reason != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_clear_error (&error);
          error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_INVALID_DATA, reason);
        }
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, index, g_object_unref);
}

static void
assay_dataset_page_index_ready (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  AssayDatasetPage *self;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) index = g_task_propagate_pointer (G_TASK (result), &error);

  /* The page may be gone or have opened the file again: it cancelled this task then. */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;
  self = user_data;
  if (error != NULL)
    {
      assay_dataset_page_show_error (self, error->message);
      return;
    }
  if (index == NULL)
    {
      assay_dataset_page_start_profile (self);   /* a workbook or a database: the profile lists its sheets or tables */
      return;
    }
  self->index = g_steal_pointer (&index);
  assay_dataset_page_build_table (self);
}

static void
assay_dataset_page_show_workbook (AssayDatasetPage *self)
{
  g_autoptr(JsonObject) json = assay_dataset_to_json (self->dataset);
  GPtrArray *warnings = assay_dataset_get_warnings (self->dataset);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sheets_box))) != NULL)
    gtk_box_remove (self->sheets_box, child);
  if (json_object_has_member (json, "sheets") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (json, "sheets")))
    {
      JsonArray *sheets = json_object_get_array_member (json, "sheets");

      for (guint i = 0; i < json_array_get_length (sheets); i++)
        {
          JsonNode *node = json_array_get_element (sheets, i);
          JsonObject *sheet;
          g_autofree char *text = NULL;
          const char *dimension;
          GtkWidget *label;

          if (!JSON_NODE_HOLDS_OBJECT (node))
            continue;
          sheet = json_node_get_object (node);
          dimension = json_object_get_string_member_with_default (sheet, "dimension", NULL);
          text = dimension != NULL
                 ? g_strdup_printf ("%s (%s)", json_object_get_string_member_with_default (sheet, "name", "?"), dimension)
                 : g_strdup (json_object_get_string_member_with_default (sheet, "name", "?"));
          label = gtk_label_new (text);
          gtk_widget_add_css_class (label, "sheet-name");
          gtk_box_append (self->sheets_box, label);
        }
    }
  if (warnings != NULL && warnings->len > 0)
    adw_status_page_set_description (self->workbook_page, g_ptr_array_index (warnings, 0));
  assay_dataset_page_set_state (self, "workbook");
}


/* ---- An SQLite database --------------------------------------------------------------- */

typedef struct
{
  char  *path;
  char  *table;
  GStrv  names;
} RowsRequest;

static void
rows_request_free (RowsRequest *request)
{
  g_free (request->path);
  g_free (request->table);
  g_strfreev (request->names);
  g_free (request);
}

static void
assay_dataset_page_rows_worker (GTask        *task,
                                gpointer      source,
                                gpointer      task_data,
                                GCancellable *cancellable)
{
  RowsRequest *request = task_data;
  GError *error = NULL;
  GPtrArray *rows = assay_sqlite_file_read_rows (request->path, request->table, TABLE_PREVIEW_ROWS,
                                                 &request->names, cancellable, &error);

  if (rows == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, rows, (GDestroyNotify) g_ptr_array_unref);
}

static void
assay_dataset_page_row_cell_setup (GtkSignalListItemFactory *factory,
                                   GtkListItem              *item,
                                   gpointer                  data)
{
  GtkWidget *cell = gtk_inscription_new (NULL);

  gtk_inscription_set_text_overflow (GTK_INSCRIPTION (cell), GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
  gtk_list_item_set_child (item, cell);
}

static void
assay_dataset_page_row_cell_bind (GtkSignalListItemFactory *factory,
                                  GtkListItem              *item,
                                  gpointer                  data)
{
  GtkStringList *row = gtk_list_item_get_item (item);

  gtk_inscription_set_text (GTK_INSCRIPTION (gtk_list_item_get_child (item)),
                            gtk_string_list_get_string (row, GPOINTER_TO_UINT (data)));
}

static void
assay_dataset_page_clear_rows_view (AssayDatasetPage *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->table_rows_view);

  while (g_list_model_get_n_items (columns) > 0)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, 0);

      gtk_column_view_remove_column (self->table_rows_view, column);
    }
  gtk_column_view_set_model (self->table_rows_view, NULL);
  g_clear_object (&self->table_rows);
}

static void
assay_dataset_page_rows_ready (GObject      *source,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  AssayDatasetPage *self;
  RowsRequest *request = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *table = NULL;
  g_autofree char *text = NULL;
  GtkNoSelection *selection;

  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;
  self = user_data;
  table = assay_data_sanitize (request->table, -1, 80);
  if (rows == NULL)
    {
      gtk_label_set_label (self->table_rows_label, error->message);
      return;
    }
  self->table_rows = g_list_store_new (GTK_TYPE_STRING_LIST);
  for (guint i = 0; i < rows->len; i++)
    {
      g_autoptr(GtkStringList) row = gtk_string_list_new ((const char * const *) g_ptr_array_index (rows, i));

      g_list_store_append (self->table_rows, row);
    }
  for (guint c = 0; request->names != NULL && request->names[c] != NULL; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;

      g_signal_connect (factory, "setup", G_CALLBACK (assay_dataset_page_row_cell_setup), NULL);
      g_signal_connect (factory, "bind", G_CALLBACK (assay_dataset_page_row_cell_bind), GUINT_TO_POINTER (c));
      column = gtk_column_view_column_new (request->names[c], factory);
      gtk_column_view_column_set_fixed_width (column, COLUMN_WIDTH);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (self->table_rows_view, column);
    }
  /* The rest of the width, empty: narrower than its window, the table's scroll range ended
   * before its window did and GTK drew the edge's overshoot glow there for good. */
  {
    g_autoptr(GtkColumnViewColumn) rest = gtk_column_view_column_new (NULL, NULL);

    gtk_column_view_column_set_expand (rest, TRUE);
    gtk_column_view_append_column (self->table_rows_view, rest);
  }
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->table_rows)));
  gtk_column_view_set_model (self->table_rows_view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  if (rows->len >= TABLE_PREVIEW_ROWS)
    text = g_strdup_printf (_("The first %u rows of %s"), rows->len, table);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s: %u row", "%s: %u rows", rows->len), table, rows->len);
  gtk_label_set_label (self->table_rows_label, text);
}

static void
assay_dataset_page_table_clicked (GtkButton        *button,
                                  AssayDatasetPage *self)
{
  assay_dataset_page_show_table (self, g_object_get_data (G_OBJECT (button), "table"));
}

/* The analyst flipped a column's switch: the owner records it and sets the masked columns. */
static void
assay_dataset_page_mask_switched (GtkSwitch        *mask,
                                  GParamSpec       *pspec,
                                  AssayDatasetPage *self)
{
  if (self->setting_masks)
    return;
  g_signal_emit (self, signals[TABLE_MASK_TOGGLED], 0, g_object_get_data (G_OBJECT (mask), "table"),
                 g_object_get_data (G_OBJECT (mask), "column"), gtk_switch_get_active (mask));
}

static void
assay_dataset_page_sync_mask_switches (AssayDatasetPage *self)
{
  self->setting_masks = TRUE;
  for (guint i = 0; i < self->mask_switches->len; i++)
    {
      GtkSwitch *mask = g_ptr_array_index (self->mask_switches, i);
      g_autofree char *key = g_strconcat (g_object_get_data (G_OBJECT (mask), "table"), ".",
                                          g_object_get_data (G_OBJECT (mask), "column"), NULL);

      gtk_switch_set_active (mask, g_hash_table_contains (self->masked, key));
    }
  self->setting_masks = FALSE;
}

static char *
assay_dataset_page_describe_column (AssaySourceTable  *table,
                                    AssaySourceColumn *column)
{
  GString *out = g_string_new (column->type != NULL ? column->type : "");

  if (column->primary_key)
    g_string_append_printf (out, " · %s", _("primary key"));
  else if (column->not_null)
    g_string_append_printf (out, " · %s", _("not null"));
  for (guint k = 0; k < table->foreign_keys->len; k++)
    {
      AssaySourceForeignKey *key = g_ptr_array_index (table->foreign_keys, k);

      if (key->columns->len == 1 && g_strcmp0 (g_ptr_array_index (key->columns, 0), column->name) == 0)
        g_string_append_printf (out, " · → %s(%s)", key->table, (char *) g_ptr_array_index (key->ref_columns, 0));
    }
  return g_string_free (out, FALSE);
}

static void
assay_dataset_page_show_database (AssayDatasetPage *self)
{
  AssaySourceSchema *schema = assay_dataset_get_schema (self->dataset);
  AssaySourceTable *first = NULL;
  guint n_tables = 0, n_views = 0;
  g_autofree char *tables_text = NULL;
  g_autofree char *views_text = NULL;
  g_autofree char *heading = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->tables_list))) != NULL)
    gtk_list_box_remove (self->tables_list, child);
  g_ptr_array_set_size (self->mask_switches, 0);
  self->setting_masks = TRUE;
  for (guint i = 0; i < schema->tables->len; i++)
    {
      AssaySourceTable *table = g_ptr_array_index (schema->tables, i);
      g_autofree char *name = assay_data_sanitize (table->name, -1, 200);
      g_autofree char *subtitle = NULL;
      g_autofree char *rows = NULL;
      GtkWidget *row = adw_expander_row_new ();
      GtkWidget *button;

      if (table->view)
        n_views++;
      else
        n_tables++;
      if (first == NULL && !table->view)
        first = table;
      if (table->rows >= 0)
        {
          g_autofree char *count = assay_dataset_page_format_count ((guint64) table->rows);

          rows = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s%s row", "%s%s rows", (gulong) table->rows), count,
                                  table->rows_capped ? "+" : "");
        }
      subtitle = rows != NULL ? g_strdup_printf ("%s · %s", table->view ? _("View") : _("Table"), rows)
                              : g_strdup (table->view ? _("View") : _("Table"));
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);
      button = gtk_button_new_with_label (_("Show Rows"));
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (button, "flat");
      g_object_set_data_full (G_OBJECT (button), "table", g_strdup (table->name), g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (assay_dataset_page_table_clicked), self);
      adw_expander_row_add_action (ADW_EXPANDER_ROW (row), button);
      for (guint j = 0; j < table->columns->len; j++)
        {
          AssaySourceColumn *column = g_ptr_array_index (table->columns, j);
          g_autofree char *column_name = assay_data_sanitize (column->name, -1, 200);
          g_autofree char *described = assay_dataset_page_describe_column (table, column);
          g_autofree char *clean = assay_data_sanitize (described, -1, 300);
          GtkWidget *column_row = adw_action_row_new ();

          GtkWidget *mask = gtk_switch_new ();
          g_autofree char *key = g_strconcat (table->name, ".", column->name, NULL);

          adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (column_row), FALSE);
          adw_preferences_row_set_title (ADW_PREFERENCES_ROW (column_row), column_name);
          adw_action_row_set_subtitle (ADW_ACTION_ROW (column_row), clean);
          /* As the panel's switch for a text file's column. */
          gtk_widget_set_valign (mask, GTK_ALIGN_CENTER);
          gtk_widget_set_tooltip_text (mask, _("Never Send Values to the Model"));
          gtk_accessible_update_property (GTK_ACCESSIBLE (mask), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                          _("Never Send Values to the Model"), -1);
          g_object_set_data_full (G_OBJECT (mask), "table", g_strdup (table->name), g_free);
          g_object_set_data_full (G_OBJECT (mask), "column", g_strdup (column->name), g_free);
          gtk_switch_set_active (GTK_SWITCH (mask), g_hash_table_contains (self->masked, key));
          g_signal_connect (mask, "notify::active", G_CALLBACK (assay_dataset_page_mask_switched), self);
          adw_action_row_add_suffix (ADW_ACTION_ROW (column_row), mask);
          g_ptr_array_add (self->mask_switches, mask);
          adw_expander_row_add_row (ADW_EXPANDER_ROW (row), column_row);
        }
      g_object_set_data_full (G_OBJECT (row), "table", g_strdup (table->name), g_free);
      gtk_list_box_append (self->tables_list, row);
    }
  self->setting_masks = FALSE;
  tables_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u table", "%u tables", n_tables), n_tables);
  views_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u view", "%u views", n_views), n_views);
  /* Translators: "SQLite 3.40.1 database: 2 tables, 1 view". */
  heading = g_strdup_printf (_("%s database: %s, %s"), schema->server != NULL ? schema->server : "SQLite",
                             tables_text, views_text);
  gtk_label_set_label (self->database_label, heading);
  assay_dataset_page_set_state (self, "database");
  if (first == NULL && schema->tables->len > 0)
    first = g_ptr_array_index (schema->tables, 0);
  if (first != NULL)
    assay_dataset_page_show_table (self, first->name);
  else
    gtk_label_set_label (self->table_rows_label, _("The database holds no table or view."));
}

static void
assay_dataset_page_dataset_ready (GObject      *source,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  AssayDatasetPage *self;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayDataset) dataset = assay_dataset_open_finish (result, &error);

  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;
  self = user_data;
  if (dataset == NULL)
    {
      /* The index says why when it failed too; else the table stays, without a profile. */
      if (self->index == NULL && !g_str_equal (assay_dataset_page_get_state (self), "error"))
        assay_dataset_page_show_error (self, error->message);
      else
        for (guint c = 0; c < self->columns->len; c++)
          gtk_label_set_label (g_array_index (self->columns, ColumnUi, c).info, _("no profile"));
      return;
    }
  self->dataset = g_steal_pointer (&dataset);
  if (assay_dataset_is_database (self->dataset))
    assay_dataset_page_show_database (self);
  else if (assay_dataset_is_workbook (self->dataset))
    assay_dataset_page_show_workbook (self);
  else
    assay_dataset_page_update_headers (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATASET]);
}

static void
assay_dataset_page_open_file (AssayDatasetPage *self)
{
  g_autoptr(GTask) task = NULL;
  OpenRequest *request;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  assay_dataset_page_clear_table (self);
  g_cancellable_cancel (self->rows_cancellable);
  g_clear_object (&self->rows_cancellable);
  assay_dataset_page_clear_rows_view (self);
  g_clear_pointer (&self->shown_table, g_free);
  g_clear_object (&self->dataset);
  g_clear_pointer (&self->error_message, g_free);
  g_clear_handle_id (&self->profile_timeout_id, g_source_remove);
  self->profile_started = FALSE;
  assay_dataset_page_set_state (self, "loading");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATASET]);

  request = g_new0 (OpenRequest, 1);
  request->path = g_strdup (self->path);
  request->override = assay_dataset_page_copy_override (self->override);
  task = g_task_new (NULL, self->cancellable, assay_dataset_page_index_ready, self);
  g_task_set_source_tag (task, assay_dataset_page_open_file);
  g_task_set_task_data (task, request, (GDestroyNotify) assay_dataset_page_open_request_free);
  g_task_run_in_thread (task, assay_dataset_page_index_worker);
}

static void
assay_dataset_page_start_profile (AssayDatasetPage *self)
{
  if (self->profile_started)
    return;
  self->profile_started = TRUE;
  g_clear_handle_id (&self->profile_timeout_id, g_source_remove);
  assay_dataset_open_with_dialect_async (self->path, self->override, self->cancellable,
                                         assay_dataset_page_dataset_ready, self);
}

/* GTK 4.8's scrolled window takes a table narrower than the view for one scrolled past its
 * right end (the adjustment's upper is below its page size) and draws the overshoot glow
 * there: a lasting shadow at the right, and two radial gradients the height of the view that
 * the cairo renderer draws again on every frame that redraws the table. While the table is
 * narrower than the view, the stylesheet hides the left and right glows. */
static void
assay_dataset_page_hadjustment_changed (GtkAdjustment    *adjustment,
                                        AssayDatasetPage *self)
{
  if (gtk_adjustment_get_upper (adjustment) < gtk_adjustment_get_page_size (adjustment))
    gtk_widget_add_css_class (GTK_WIDGET (self->scroller), "narrow-table");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->scroller), "narrow-table");
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
assay_dataset_page_constructed (GObject *object)
{
  AssayDatasetPage *self = ASSAY_DATASET_PAGE (object);

  G_OBJECT_CLASS (assay_dataset_page_parent_class)->constructed (object);
  assay_dataset_page_open_file (self);
}

static void
assay_dataset_page_dispose (GObject *object)
{
  AssayDatasetPage *self = ASSAY_DATASET_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->rows_cancellable);
  g_clear_handle_id (&self->profile_timeout_id, g_source_remove);
  if (self->column_view != NULL)
    assay_dataset_page_clear_table (self);
  if (self->table_rows_view != NULL)
    assay_dataset_page_clear_rows_view (self);
  g_clear_object (&self->rows_cancellable);
  g_ptr_array_set_size (self->mask_switches, 0);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_DATASET_PAGE);
  self->strip = NULL;
  g_clear_object (&self->dataset);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (assay_dataset_page_parent_class)->dispose (object);
}

static void
assay_dataset_page_finalize (GObject *object)
{
  AssayDatasetPage *self = ASSAY_DATASET_PAGE (object);

  g_free (self->path);
  g_free (self->shown_table);
  g_free (self->error_message);
  assay_dataset_page_free_override (self->override);
  g_array_unref (self->columns);
  g_hash_table_unref (self->masked);
  g_ptr_array_unref (self->mask_switches);

  G_OBJECT_CLASS (assay_dataset_page_parent_class)->finalize (object);
}

static void
assay_dataset_page_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  AssayDatasetPage *self = ASSAY_DATASET_PAGE (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_STATE:
      g_value_set_string (value, assay_dataset_page_get_state (self));
      break;
    case PROP_DATASET:
      g_value_set_object (value, self->dataset);
      break;
    case PROP_SELECTED_COLUMN:
      g_value_set_int (value, self->selected_column);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_dataset_page_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  AssayDatasetPage *self = ASSAY_DATASET_PAGE (object);

  switch (prop_id)
    {
    case PROP_PATH:
      self->path = g_value_dup_string (value);
      break;
    case PROP_SELECTED_COLUMN:
      assay_dataset_page_select_column (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_dataset_page_class_init (AssayDatasetPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = assay_dataset_page_constructed;
  object_class->dispose = assay_dataset_page_dispose;
  object_class->finalize = assay_dataset_page_finalize;
  object_class->get_property = assay_dataset_page_get_property;
  object_class->set_property = assay_dataset_page_set_property;

  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATE] =
    g_param_spec_string ("state", NULL, NULL, "loading",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DATASET] =
    g_param_spec_object ("dataset", NULL, NULL, ASSAY_TYPE_DATASET,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED_COLUMN] =
    g_param_spec_int ("selected-column", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* ::table-mask-toggled (const char *table, const char *column, gboolean masked): the
   * analyst flipped "Never Send Values to the Model" of a database table's column. */
  signals[TABLE_MASK_TOGGLED] = g_signal_new ("table-mask-toggled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                              0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                              G_TYPE_STRING, G_TYPE_STRING, G_TYPE_BOOLEAN);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-dataset-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, stack);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, table_box);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, rows_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, scroller);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, column_view);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, workbook_page);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, sheets_box);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, database_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, tables_list);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, table_rows_label);
  gtk_widget_class_bind_template_child (widget_class, AssayDatasetPage, table_rows_view);
  gtk_widget_class_set_css_name (widget_class, "datasetpage");
}

static void
assay_dataset_page_init (AssayDatasetPage *self)
{
  self->columns = g_array_new (FALSE, TRUE, sizeof (ColumnUi));
  self->masked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->mask_switches = g_ptr_array_new ();
  self->selected_column = -1;
  gtk_widget_init_template (GTK_WIDGET (self));

  /* The rich headers sit right above the column view's own titles (see the strip). */
  self->strip = assay_column_header_strip_new (self->column_view, 1);
  gtk_box_insert_child_after (self->table_box, self->strip,
                              gtk_widget_get_first_child (GTK_WIDGET (self->table_box)));

  g_signal_connect_object (gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (self->column_view)), "changed",
                           G_CALLBACK (assay_dataset_page_hadjustment_changed), self, 0);
}

/* ---- API ---------------------------------------------------------------------------- */

GtkWidget *
assay_dataset_page_new (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);
  return g_object_new (ASSAY_TYPE_DATASET_PAGE, "path", path, NULL);
}

const char *
assay_dataset_page_get_path (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->path;
}

const char *
assay_dataset_page_get_state (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
assay_dataset_page_get_error_message (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->error_message;
}

void
assay_dataset_page_reopen (AssayDatasetPage      *self,
                           const AssayCsvDialect *override)
{
  g_return_if_fail (ASSAY_IS_DATASET_PAGE (self));

  assay_dataset_page_free_override (self->override);
  self->override = assay_dataset_page_copy_override (override);
  assay_dataset_page_open_file (self);
}

const AssayCsvDialect *
assay_dataset_page_get_override (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->override;
}

const AssayCsvDialect *
assay_dataset_page_get_dialect (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  if (self->dataset != NULL && !assay_dataset_is_workbook (self->dataset))
    return assay_dataset_get_dialect (self->dataset);
  if (self->index != NULL)
    return assay_csv_index_get_dialect (self->index);
  return NULL;
}

AssayDataset *
assay_dataset_page_get_dataset (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->dataset;
}

AssayRowModel *
assay_dataset_page_get_row_model (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->model;
}

GtkColumnView *
assay_dataset_page_get_column_view (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->column_view;
}

guint
assay_dataset_page_get_n_columns (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), 0);
  return self->columns->len;
}

const char *
assay_dataset_page_get_column_name (AssayDatasetPage *self,
                                    guint             column)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  if (column >= self->columns->len)
    return NULL;
  return gtk_column_view_column_get_title (g_array_index (self->columns, ColumnUi, column).column);
}

const char *
assay_dataset_page_get_header_text (AssayDatasetPage *self,
                                    guint             column)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  if (column >= self->columns->len)
    return NULL;
  return gtk_label_get_label (g_array_index (self->columns, ColumnUi, column).info);
}

GtkWidget *
assay_dataset_page_get_header (AssayDatasetPage *self,
                               guint             column)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  if (column >= self->columns->len)
    return NULL;
  return g_array_index (self->columns, ColumnUi, column).box;
}

int
assay_dataset_page_get_selected_column (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), -1);
  return self->selected_column;
}

void
assay_dataset_page_select_column (AssayDatasetPage *self,
                                  int               column)
{
  g_return_if_fail (ASSAY_IS_DATASET_PAGE (self));

  if (column >= (int) self->columns->len)
    column = -1;
  for (guint c = 0; c < self->columns->len; c++)
    {
      GtkWidget *box = g_array_index (self->columns, ColumnUi, c).box;

      if ((int) c == column)
        gtk_widget_add_css_class (box, "selected");
      else
        gtk_widget_remove_css_class (box, "selected");
    }
  if (self->selected_column == column)
    return;
  self->selected_column = column;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_COLUMN]);
}

void
assay_dataset_page_set_masked_columns (AssayDatasetPage   *self,
                                       const char * const *columns)
{
  g_return_if_fail (ASSAY_IS_DATASET_PAGE (self));

  g_hash_table_remove_all (self->masked);
  for (guint i = 0; columns != NULL && columns[i] != NULL; i++)
    g_hash_table_add (self->masked, g_strdup (columns[i]));
  for (guint c = 0; c < self->columns->len; c++)
    {
      ColumnUi *ui = &g_array_index (self->columns, ColumnUi, c);

      gtk_widget_set_visible (ui->mask_icon,
                              g_hash_table_contains (self->masked, gtk_column_view_column_get_title (ui->column)));
    }
  assay_dataset_page_sync_mask_switches (self);
}

gboolean
assay_dataset_page_get_column_masked (AssayDatasetPage *self,
                                      const char       *name)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), FALSE);
  return name != NULL && g_hash_table_contains (self->masked, name);
}

gboolean
assay_dataset_page_get_header_masked (AssayDatasetPage *self,
                                      guint             column)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), FALSE);
  if (column >= self->columns->len)
    return FALSE;
  return gtk_widget_get_visible (g_array_index (self->columns, ColumnUi, column).mask_icon);
}

void
assay_dataset_page_show_table (AssayDatasetPage *self,
                               const char       *table)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;
  RowsRequest *request;

  g_return_if_fail (ASSAY_IS_DATASET_PAGE (self));
  g_return_if_fail (table != NULL);

  if (self->dataset == NULL || !assay_dataset_is_database (self->dataset))
    return;
  g_cancellable_cancel (self->rows_cancellable);
  g_clear_object (&self->rows_cancellable);
  self->rows_cancellable = g_cancellable_new ();
  assay_dataset_page_clear_rows_view (self);
  g_free (self->shown_table);
  self->shown_table = g_strdup (table);
  name = assay_data_sanitize (table, -1, 80);
  text = g_strdup_printf (_("Reading the first rows of %s…"), name);
  gtk_label_set_label (self->table_rows_label, text);

  request = g_new0 (RowsRequest, 1);
  request->path = g_strdup (self->path);
  request->table = g_strdup (table);
  task = g_task_new (NULL, self->rows_cancellable, assay_dataset_page_rows_ready, self);
  g_task_set_source_tag (task, assay_dataset_page_show_table);
  g_task_set_task_data (task, request, (GDestroyNotify) rows_request_free);
  g_task_run_in_thread (task, assay_dataset_page_rows_worker);
}

const char *
assay_dataset_page_get_shown_table (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->shown_table;
}

GListModel *
assay_dataset_page_get_table_rows (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->table_rows != NULL ? G_LIST_MODEL (self->table_rows) : NULL;
}

GtkListBox *
assay_dataset_page_get_tables_list (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->tables_list;
}

GtkColumnView *
assay_dataset_page_get_table_rows_view (AssayDatasetPage *self)
{
  g_return_val_if_fail (ASSAY_IS_DATASET_PAGE (self), NULL);
  return self->table_rows_view;
}
