/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include <glib/gi18n.h>

#include <string.h>
#include "assay-app-types.h"
#include "assay-csv-view.h"
#include "assay-row-model.h"

#include <gio/gunixinputstream.h>

/* ---- reading, in a worker ---------------------------------------------------------------- */

/* The file is opened below the session's folder (never through a link) and mapped; the
 * core's sniffer finds its encoding and dialect there. The rows are indexed afterwards, by
 * the row model, in a worker too. */
static void
assay_csv_view_open_worker (GTask        *task,
                            gpointer      source_object,
                            gpointer      task_data,
                            GCancellable *cancellable)
{
  AssayArtifactItem *item = task_data;
  g_autoptr(GInputStream) stream = NULL;
  AssayCsvIndex *index;
  GError *error = NULL;

  stream = assay_artifact_item_open (item, cancellable, &error);
  if (stream == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  index = assay_csv_index_new_for_fd (g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (stream)),
                                      assay_artifact_item_get_name (item), NULL, &error);
  if (index == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, index, g_object_unref);
}

/* ---- the view ---------------------------------------------------------------------------- */

struct _AssayCsvView
{
  GtkWidget          parent_instance;

  GtkColumnView     *column_view;
  GtkLabel          *note;

  AssayArtifactItem *item;
  GCancellable      *cancellable;
  AssayRowModel     *rows;        /* over the file's index, NULL until it is open */
  AssayRow          *cell_row;    /* the row assay_csv_view_get_cell () last read */
  guint              n_columns;
  gboolean           truncated;
  gboolean           loading;
  char              *error;
};

G_DEFINE_FINAL_TYPE (AssayCsvView, assay_csv_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  PROP_LOADING,
  PROP_COMPLETE,
  PROP_ERROR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
assay_csv_view_set_loading (AssayCsvView *self,
                            gboolean      loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
assay_csv_view_set_error (AssayCsvView *self,
                          const char   *error)
{
  if (g_strcmp0 (self->error, error) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (error);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
assay_csv_view_setup_cell (GtkSignalListItemFactory *factory,
                           GtkListItem              *list_item,
                           gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 40);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_list_item_set_child (list_item, label);
}

static void
assay_csv_view_bind_cell (GtkSignalListItemFactory *factory,
                          GtkListItem              *list_item,
                          gpointer                  user_data)
{
  guint column = GPOINTER_TO_UINT (user_data);
  AssayRow *row = gtk_list_item_get_item (list_item);
  const char *text = assay_row_get_field (row, column);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (list_item)), text);
  gtk_widget_set_tooltip_text (gtk_list_item_get_child (list_item),
                               strlen (text) > 40 ? text : NULL);
}

static void
assay_csv_view_remove_columns (AssayCsvView *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->column_view);

  while (g_list_model_get_n_items (columns) > 0)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, 0);

      gtk_column_view_remove_column (self->column_view, column);
    }
}

/* The note under the title: how far the reading is, or why it stopped early. */
static void
assay_csv_view_update_note (AssayCsvView *self)
{
  g_autofree char *note = NULL;
  const GError *error;
  guint n;

  if (self->rows == NULL)
    return;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  error = assay_row_model_get_error (self->rows);
  if (error != NULL)
    note = g_strdup_printf (_("Showing the first %'u rows: the rest could not be read (%s)."),
                            n,
                            error->message);
  else if (!assay_row_model_is_complete (self->rows))
    note = g_strdup_printf (_("Reading the table… %'u rows so far"), n);
  self->truncated = error != NULL;
  gtk_label_set_text (self->note, note);
  gtk_widget_set_visible (GTK_WIDGET (self->note), note != NULL);
}

static void
assay_csv_view_rows_progress_cb (AssayCsvView *self)
{
  assay_csv_view_update_note (self);
  if (assay_row_model_is_complete (self->rows))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETE]);
}

static void
assay_csv_view_opened_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  AssayCsvView *self = user_data;
  g_autoptr(AssayCsvIndex) index = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GtkNoSelection) selection = NULL;
  const char * const *names;

  index = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  assay_csv_view_set_loading (self, FALSE);
  if (index == NULL)
    {
      assay_csv_view_set_error (self, error->message);
      return;
    }

  names = assay_csv_index_get_column_names (index);
  self->n_columns = assay_csv_index_get_n_columns (index);
  for (guint i = 0; i < self->n_columns; i++)
    {
      g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      const char *name = names != NULL && names[i] != NULL ? names[i] : "";
      g_autofree char *title = *name != '\0' ? g_strdup (name) : g_strdup_printf (_("Column %u"), i + 1);

      g_signal_connect (factory, "setup", G_CALLBACK (assay_csv_view_setup_cell), NULL);
      g_signal_connect (factory, "bind", G_CALLBACK (assay_csv_view_bind_cell), GUINT_TO_POINTER (i));
      column = gtk_column_view_column_new (title, g_steal_pointer (&factory));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (self->column_view, column);
    }
  /* The model indexes the file in a worker; rows appear as they are found. */
  self->rows = assay_row_model_new (index);
  g_signal_connect_object (self->rows,
                           "notify::progress",
                           G_CALLBACK (assay_csv_view_rows_progress_cb),
                           self,
                           G_CONNECT_SWAPPED);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->rows)));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (selection));
  assay_csv_view_rows_progress_cb (self);
}

void
assay_csv_view_set_item (AssayCsvView      *self,
                         AssayArtifactItem *item)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_CSV_VIEW (self));
  g_return_if_fail (item == NULL || ASSAY_IS_ARTIFACT_ITEM (item));

  if (self->item == item)
    return;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_set_object (&self->item, item);
  gtk_column_view_set_model (self->column_view, NULL);
  assay_csv_view_remove_columns (self);
  g_clear_object (&self->cell_row);
  if (self->rows != NULL)
    g_signal_handlers_disconnect_by_data (self->rows, self);
  g_clear_object (&self->rows);
  self->n_columns = 0;
  self->truncated = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->note), FALSE);
  assay_csv_view_set_error (self, NULL);
  assay_csv_view_set_loading (self, item != NULL);

  if (item != NULL)
    {
      self->cancellable = g_cancellable_new ();
      task = g_task_new (NULL, self->cancellable, assay_csv_view_opened_cb, self);
      g_task_set_source_tag (task, assay_csv_view_set_item);
      g_task_set_task_data (task, g_object_ref (item), g_object_unref);
      g_task_run_in_thread (task, assay_csv_view_open_worker);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

static void
assay_csv_view_dispose (GObject *object)
{
  AssayCsvView *self = ASSAY_CSV_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_CSV_VIEW);
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  g_clear_object (&self->cell_row);
  if (self->rows != NULL)
    g_signal_handlers_disconnect_by_data (self->rows, self);
  g_clear_object (&self->rows);
  g_clear_object (&self->item);
  g_clear_pointer (&self->error, g_free);

  G_OBJECT_CLASS (assay_csv_view_parent_class)->dispose (object);
}

static void
assay_csv_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  AssayCsvView *self = ASSAY_CSV_VIEW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_COMPLETE:
      g_value_set_boolean (value, assay_csv_view_get_complete (self));
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_csv_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_ITEM:
      assay_csv_view_set_item (ASSAY_CSV_VIEW (object), g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_csv_view_class_init (AssayCsvViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags read_only = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = assay_csv_view_dispose;
  object_class->get_property = assay_csv_view_get_property;
  object_class->set_property = assay_csv_view_set_property;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, ASSAY_TYPE_ARTIFACT_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, read_only);
  properties[PROP_COMPLETE] = g_param_spec_boolean ("complete", NULL, NULL, FALSE, read_only);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, read_only);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/assay/Assay/ui/assay-csv-view.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayCsvView, column_view);
  gtk_widget_class_bind_template_child (widget_class, AssayCsvView, note);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "assay-csv-view");
}

static void
assay_csv_view_init (AssayCsvView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
assay_csv_view_new (void)
{
  return g_object_new (ASSAY_TYPE_CSV_VIEW, NULL);
}

AssayArtifactItem *
assay_csv_view_get_item (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), NULL);
  return self->item;
}

gboolean
assay_csv_view_get_loading (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), FALSE);
  return self->loading;
}

const char *
assay_csv_view_get_error (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), NULL);
  return self->error;
}

guint
assay_csv_view_get_n_rows (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), 0);
  return self->rows != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->rows)) : 0;
}

gboolean
assay_csv_view_get_complete (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), FALSE);
  return self->rows != NULL && assay_row_model_is_complete (self->rows);
}

guint
assay_csv_view_get_n_columns (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), 0);
  return self->n_columns;
}

guint64
assay_csv_view_get_total_rows (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), 0);
  return self->rows != NULL ? assay_csv_index_get_n_rows_indexed (assay_row_model_get_index (self->rows)) : 0;
}

gboolean
assay_csv_view_get_truncated (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), FALSE);
  return self->truncated;
}

const char *
assay_csv_view_get_cell (AssayCsvView *self,
                         guint         row,
                         guint         column)
{
  AssayRow *item;

  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), NULL);

  if (column >= self->n_columns || self->rows == NULL)
    return NULL;
  if ((item = g_list_model_get_item (G_LIST_MODEL (self->rows), row)) == NULL)
    return NULL;
  /* Kept until the next call, and so its strings. */
  g_clear_object (&self->cell_row);
  self->cell_row = item;
  return assay_row_get_field (item, column);
}

GtkColumnView *
assay_csv_view_get_column_view (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), NULL);
  return self->column_view;
}
