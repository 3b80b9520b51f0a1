/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "assay-app-types.h"
#include "assay-csv-view.h"

/* ---- a row, as the column view's model holds it ------------------------------------------ */

#define ASSAY_TYPE_CSV_ROW (assay_csv_row_get_type ())

G_DECLARE_FINAL_TYPE (AssayCsvRow, assay_csv_row, ASSAY, CSV_ROW, GObject)

struct _AssayCsvRow
{
  GObject   parent_instance;
  char    **cells;
  guint     n_cells;
};

G_DEFINE_FINAL_TYPE (AssayCsvRow, assay_csv_row, G_TYPE_OBJECT)

static void
assay_csv_row_finalize (GObject *object)
{
  g_strfreev (ASSAY_CSV_ROW (object)->cells);
  G_OBJECT_CLASS (assay_csv_row_parent_class)->finalize (object);
}

static void
assay_csv_row_class_init (AssayCsvRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_csv_row_finalize;
}

static void
assay_csv_row_init (AssayCsvRow *self)
{
}

static AssayCsvRow *
assay_csv_row_new (char **cells)
{
  AssayCsvRow *row = g_object_new (ASSAY_TYPE_CSV_ROW, NULL);

  row->cells = cells;
  row->n_cells = g_strv_length (cells);
  return row;
}

/* ---- parsing, in a worker ---------------------------------------------------------------- */

typedef struct
{
  char      **header;
  GPtrArray  *rows;        /* AssayCsvRow*, at most ASSAY_CSV_VIEW_MAX_ROWS */
  guint       n_columns;
  guint64     total_rows;
  gboolean    cut;         /* the file is bigger than what was read */
} ParseResult;

static void
parse_result_free (ParseResult *result)
{
  g_strfreev (result->header);
  g_clear_pointer (&result->rows, g_ptr_array_unref);
  g_free (result);
}

/* The delimiter that splits the first line most, outside quotes. */
static char
sniff_delimiter (const char *data,
                 gsize       length)
{
  static const char candidates[] = { ',', ';', '\t', '|' };
  guint counts[G_N_ELEMENTS (candidates)] = { 0 };
  gboolean quoted = FALSE;
  guint best = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (c == '"')
        quoted = !quoted;
      else if (!quoted && (c == '\n' || c == '\r'))
        break;
      else if (!quoted)
        for (guint j = 0; j < G_N_ELEMENTS (candidates); j++)
          if (c == candidates[j])
            counts[j]++;
    }
  for (guint j = 1; j < G_N_ELEMENTS (candidates); j++)
    if (counts[j] > counts[best])
      best = j;
  return candidates[best];
}

static void
end_field (GPtrArray *fields,
           GString   *field)
{
  g_ptr_array_add (fields, g_utf8_make_valid (field->str, field->len));
  g_string_truncate (field, 0);
}

/* RFC 4180: fields may be quoted, a quote inside is doubled, quoted fields may hold the
 * delimiter and line breaks; records end with LF, CRLF or CR. Blank lines are skipped. */
static void
parse_csv (const char   *data,
           gsize         length,
           ParseResult  *result,
           GCancellable *cancellable)
{
  g_autoptr(GPtrArray) fields = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) field = g_string_new (NULL);
  gboolean quoted = FALSE;
  gboolean was_quoted = FALSE;
  char delimiter;
  gsize i = 0;

  if (length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    i = 3;
  delimiter = sniff_delimiter (data + i, length - i);

  while (i <= length)
    {
      char c = i < length ? data[i] : '\n';
      gboolean at_end = i == length;

      if (quoted && !at_end)
        {
          if (c == '"' && i + 1 < length && data[i + 1] == '"')
            {
              g_string_append_c (field, '"');
              i += 2;
              continue;
            }
          if (c == '"')
            quoted = FALSE;
          else
            g_string_append_c (field, c);
          i++;
          continue;
        }

      if (c == '"' && field->len == 0 && !was_quoted)
        {
          quoted = was_quoted = TRUE;
        }
      else if (c == delimiter)
        {
          end_field (fields, field);
          was_quoted = FALSE;
        }
      else if (c == '\n' || c == '\r')
        {
          if (field->len > 0 || fields->len > 0 || was_quoted)
            {
              end_field (fields, field);
              result->n_columns = MAX (result->n_columns, fields->len);
              g_ptr_array_add (fields, NULL);
              if (result->header == NULL)
                result->header = (char **) g_ptr_array_steal (fields, NULL);
              else
                {
                  result->total_rows++;
                  if (result->rows->len < ASSAY_CSV_VIEW_MAX_ROWS)
                    g_ptr_array_add (result->rows,
                                     assay_csv_row_new ((char **) g_ptr_array_steal (fields, NULL)));
                  else
                    g_ptr_array_set_size (fields, 0);
                  if (result->total_rows % 4096 == 0 && g_cancellable_is_cancelled (cancellable))
                    return;
                }
            }
          was_quoted = FALSE;
          if (c == '\r' && i + 1 < length && data[i + 1] == '\n')
            i++;
        }
      else
        g_string_append_c (field, c);
      i++;
    }
}

static void
parse_worker (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  AssayArtifactItem *item = task_data;
  g_autoptr(GInputStream) stream = NULL;
  g_autofree char *data = NULL;
  ParseResult *result;
  GError *error = NULL;
  gsize length = 0;
  char probe;
  gsize extra = 0;

  stream = assay_artifact_item_open (item, cancellable, &error);
  if (stream == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  data = g_malloc (ASSAY_CSV_VIEW_MAX_BYTES);
  if (!g_input_stream_read_all (stream, data, ASSAY_CSV_VIEW_MAX_BYTES, &length, cancellable, &error) ||
      !g_input_stream_read_all (stream, &probe, 1, &extra, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  result = g_new0 (ParseResult, 1);
  result->rows = g_ptr_array_new_with_free_func (g_object_unref);
  result->cut = extra > 0;
  if (result->cut)
    {
      /* Only whole lines: drop the one the cap cut. */
      while (length > 0 && data[length - 1] != '\n')
        length--;
    }
  parse_csv (data, length, result, cancellable);
  if (g_task_return_error_if_cancelled (task))
    {
      parse_result_free (result);
      return;
    }
  g_task_return_pointer (task, result, (GDestroyNotify) parse_result_free);
}

/* ---- the view ---------------------------------------------------------------------------- */

struct _AssayCsvView
{
  GtkWidget          parent_instance;

  GtkColumnView     *column_view;
  GtkLabel          *note;

  AssayArtifactItem *item;
  GCancellable      *cancellable;
  GListStore        *rows;
  guint              n_columns;
  guint64            total_rows;
  gboolean           truncated;
  gboolean           loading;
  char              *error;
};

G_DEFINE_FINAL_TYPE (AssayCsvView, assay_csv_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  PROP_LOADING,
  PROP_ERROR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
set_loading (AssayCsvView *self,
             gboolean      loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
set_error (AssayCsvView *self,
           const char   *error)
{
  if (g_strcmp0 (self->error, error) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (error);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
setup_cell (GtkSignalListItemFactory *factory,
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
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *list_item,
           gpointer                  user_data)
{
  guint column = GPOINTER_TO_UINT (user_data);
  AssayCsvRow *row = gtk_list_item_get_item (list_item);
  const char *text = column < row->n_cells ? row->cells[column] : "";

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (list_item)), text);
  gtk_widget_set_tooltip_text (gtk_list_item_get_child (list_item),
                               strlen (text) > 40 ? text : NULL);
}

static void
remove_columns (AssayCsvView *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->column_view);

  while (g_list_model_get_n_items (columns) > 0)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, 0);

      gtk_column_view_remove_column (self->column_view, column);
    }
}

static void
parse_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  AssayCsvView *self = user_data;
  ParseResult *parsed;
  g_autoptr(GError) error = NULL;
  g_autofree char *note = NULL;

  parsed = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  set_loading (self, FALSE);
  if (parsed == NULL)
    {
      set_error (self, error->message);
      return;
    }
  if (parsed->header == NULL)
    {
      parse_result_free (parsed);
      set_error (self, _("The table is empty"));
      return;
    }

  self->n_columns = parsed->n_columns;
  self->total_rows = parsed->total_rows;
  self->truncated = parsed->cut || parsed->total_rows > parsed->rows->len;
  for (guint i = 0; i < parsed->n_columns; i++)
    {
      g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      const char *name = i < g_strv_length (parsed->header) ? parsed->header[i] : "";
      g_autofree char *title = *name != '\0' ? g_strdup (name) : g_strdup_printf (_("Column %u"), i + 1);

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), NULL);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GUINT_TO_POINTER (i));
      column = gtk_column_view_column_new (title, g_steal_pointer (&factory));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (self->column_view, column);
    }
  g_list_store_splice (self->rows, 0, 0, parsed->rows->pdata, parsed->rows->len);

  if (parsed->cut)
    note = g_strdup_printf (_("Showing the first %'u rows: the file is too large to read whole."),
                            parsed->rows->len);
  else if (self->truncated)
    note = g_strdup_printf (_("Showing the first %'u of %'llu rows."),
                            parsed->rows->len, (unsigned long long) parsed->total_rows);
  gtk_label_set_text (self->note, note);
  gtk_widget_set_visible (GTK_WIDGET (self->note), note != NULL);
  parse_result_free (parsed);
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
  remove_columns (self);
  g_list_store_remove_all (self->rows);
  self->n_columns = 0;
  self->total_rows = 0;
  self->truncated = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->note), FALSE);
  set_error (self, NULL);
  set_loading (self, item != NULL);

  if (item != NULL)
    {
      self->cancellable = g_cancellable_new ();
      task = g_task_new (NULL, self->cancellable, parse_done, self);
      g_task_set_source_tag (task, assay_csv_view_set_item);
      g_task_set_task_data (task, g_object_ref (item), g_object_unref);
      g_task_run_in_thread (task, parse_worker);
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
  g_autoptr(GtkNoSelection) selection = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_list_store_new (ASSAY_TYPE_CSV_ROW);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->rows)));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (selection));
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
  return g_list_model_get_n_items (G_LIST_MODEL (self->rows));
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
  return self->total_rows;
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
  g_autoptr(AssayCsvRow) item = NULL;

  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), NULL);

  if (column >= self->n_columns)
    return NULL;
  item = g_list_model_get_item (G_LIST_MODEL (self->rows), row);
  if (item == NULL)
    return NULL;
  /* The store keeps the row, and so its strings. */
  return column < item->n_cells ? item->cells[column] : "";
}

GtkColumnView *
assay_csv_view_get_column_view (AssayCsvView *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_VIEW (self), NULL);
  return self->column_view;
}
