/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "assay-dataframe-view.h"
#include "assay-table-scroller.h"

/* The widest a column gets before its cells wrap. */
#define MAX_CELL_CHARS 40

struct _AssayDataframeView
{
  GtkWidget  parent_instance;

  GPtrArray *rows;            /* GPtrArray* of char*: every row read, the header first */
  guint      n_columns;
  guint      n_header_rows;
  guint      n_shown;         /* rows in the grid */
  GtkWidget *caption;
  GtkWidget *scroller;
};

G_DEFINE_FINAL_TYPE (AssayDataframeView, assay_dataframe_view, GTK_TYPE_WIDGET)

/* A number as pandas prints one ("1,234.5", "-0.25", "12%", "1e-05", "NaN"): right-aligned. */
static gboolean
assay_dataframe_view_is_number (const char *text)
{
  g_autoptr(GString) digits = g_string_new (NULL);
  char *end = NULL;

  if (g_strcmp0 (text, "NaN") == 0 || g_strcmp0 (text, "inf") == 0 || g_strcmp0 (text, "-inf") == 0)
    return TRUE;
  for (const char *p = text; *p != '\0'; p++)
    if (*p != ',' && *p != '%' && *p != ' ')
      g_string_append_c (digits, *p);
  if (digits->len == 0)
    return FALSE;
  g_ascii_strtod (digits->str, &end);
  return end != NULL && *end == '\0';
}

static GtkWidget *
assay_dataframe_view_cell (const char *text,
                           gboolean    header,
                           gboolean    numeric_column)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (label), MAX_CELL_CHARS);
  gtk_widget_add_css_class (label, "dataframe-cell");
  if (header)
    gtk_widget_add_css_class (label, "header-cell");
  /* A column of numbers has its header over them, on the right. */
  if ((header && numeric_column) || (!header && assay_dataframe_view_is_number (text)))
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1.0);
      gtk_widget_add_css_class (label, "numeric");
    }
  else
    gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  return label;
}

/* "[500 rows x 5 columns]", the last line pandas writes for a frame it shows in part. */
static gboolean
assay_dataframe_view_read_shape (const char *plain,
                                 guint64    *rows,
                                 guint64    *columns)
{
  const char *at = plain != NULL ? g_strrstr (plain, "\n[") : NULL;
  char *end;

  if (at == NULL)
    return FALSE;
  *rows = g_ascii_strtoull (at + 2, &end, 10);
  if (end == at + 2 || !g_str_has_prefix (end, " rows x "))
    return FALSE;
  *columns = g_ascii_strtoull (end + strlen (" rows x "), &end, 10);
  return g_str_has_prefix (end, " columns]");
}

static void
assay_dataframe_view_copy_csv (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  g_autofree char *csv = assay_dataframe_view_dup_csv (ASSAY_DATAFRAME_VIEW (widget));

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), csv);
}

static void
assay_dataframe_view_dispose (GObject *object)
{
  AssayDataframeView *self = ASSAY_DATAFRAME_VIEW (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_dataframe_view_parent_class)->dispose (object);
}

static void
assay_dataframe_view_finalize (GObject *object)
{
  g_clear_pointer (&ASSAY_DATAFRAME_VIEW (object)->rows, g_ptr_array_unref);
  G_OBJECT_CLASS (assay_dataframe_view_parent_class)->finalize (object);
}

static void
assay_dataframe_view_class_init (AssayDataframeViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_dataframe_view_dispose;
  object_class->finalize = assay_dataframe_view_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "dataframe");
  gtk_widget_class_install_action (widget_class, "dataframe.copy-csv", NULL, assay_dataframe_view_copy_csv);
}

static void
assay_dataframe_view_init (AssayDataframeView *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 4);
}

GtkWidget *
assay_dataframe_view_new (const AssayTable *table,
                          const char       *plain)
{
  AssayDataframeView *self;
  GtkWidget *bar, *button, *content, *grid;
  g_autofree char *caption = NULL;
  g_autofree gboolean *numeric = NULL;
  guint64 shape_rows, shape_columns;
  guint n_body;

  g_return_val_if_fail (table != NULL, NULL);

  self = g_object_new (ASSAY_TYPE_DATAFRAME_VIEW, NULL);
  self->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < table->rows->len; i++)
    {
      GPtrArray *row = g_ptr_array_index (table->rows, i);
      GPtrArray *copy = g_ptr_array_new_with_free_func (g_free);

      for (guint j = 0; j < row->len; j++)
        g_ptr_array_add (copy, g_strdup (g_ptr_array_index (row, j)));
      g_ptr_array_add (self->rows, copy);
    }
  self->n_columns = table->n_columns;
  self->n_header_rows = MIN (table->n_header_rows, self->rows->len);
  n_body = self->rows->len - self->n_header_rows;

  /* Its size, as pandas gave it when it showed only part of the frame. */
  if (assay_dataframe_view_read_shape (plain, &shape_rows, &shape_columns))
    {
      g_autofree char *rows = g_strdup_printf ("%" G_GUINT64_FORMAT, shape_rows);
      g_autofree char *columns = g_strdup_printf ("%" G_GUINT64_FORMAT, shape_columns);

      /* Translators: the size of a DataFrame shown in part: "500 rows × 5 columns". */
      caption = g_strdup_printf (_("%s rows × %s columns"), rows, columns);
    }
  else
    caption = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u row", "%u rows", n_body), n_body);
  if (n_body > ASSAY_DATAFRAME_VIEW_MAX_ROWS)
    {
      /* Translators: after "N rows": the chat shows the first ones, Copy as CSV all. */
      g_autofree char *part = g_strdup_printf (_("%s, the first %u shown"), caption, ASSAY_DATAFRAME_VIEW_MAX_ROWS);

      g_free (caption);
      caption = g_steal_pointer (&part);
    }

  bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->caption = gtk_label_new (caption);
  gtk_label_set_xalign (GTK_LABEL (self->caption), 0.0);
  gtk_label_set_wrap (GTK_LABEL (self->caption), TRUE);
  gtk_widget_set_hexpand (self->caption, TRUE);
  gtk_widget_add_css_class (self->caption, "caption");
  gtk_widget_add_css_class (self->caption, "dim-label");
  gtk_box_append (GTK_BOX (bar), self->caption);
  content = adw_button_content_new ();
  adw_button_content_set_icon_name (ADW_BUTTON_CONTENT (content), "edit-copy-symbolic");
  adw_button_content_set_label (ADW_BUTTON_CONTENT (content), _("Copy as CSV"));
  button = gtk_button_new ();
  gtk_button_set_child (GTK_BUTTON (button), content);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "dataframe.copy-csv");
  gtk_widget_set_tooltip_text (button, _("Copy every row of this table, as comma-separated values"));
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (bar), button);
  gtk_widget_set_parent (bar, GTK_WIDGET (self));

  grid = gtk_grid_new ();
  gtk_widget_add_css_class (grid, "dataframe-grid");
  self->n_shown = MIN (self->rows->len, self->n_header_rows + ASSAY_DATAFRAME_VIEW_MAX_ROWS);
  numeric = g_new0 (gboolean, self->n_columns);
  for (guint j = 0; j < self->n_columns; j++)
    {
      guint numbers = 0, others = 0;

      for (guint i = self->n_header_rows; i < self->n_shown; i++)
        {
          GPtrArray *row = g_ptr_array_index (self->rows, i);
          const char *text = j < row->len ? g_ptr_array_index (row, j) : "";

          if (*text != '\0')
            *(assay_dataframe_view_is_number (text) ? &numbers : &others) += 1;
        }
      numeric[j] = numbers > 0 && others == 0;
    }
  for (guint i = 0; i < self->n_shown; i++)
    {
      GPtrArray *row = g_ptr_array_index (self->rows, i);

      for (guint j = 0; j < row->len; j++)
        gtk_grid_attach (GTK_GRID (grid),
                         assay_dataframe_view_cell (g_ptr_array_index (row, j), i < self->n_header_rows, numeric[j]),
                         j, i, 1, 1);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (grid), GTK_ACCESSIBLE_PROPERTY_LABEL, caption, -1);
  self->scroller = assay_table_scroller_new ();
  assay_table_scroller_set_child (ASSAY_TABLE_SCROLLER (self->scroller), grid);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
  return GTK_WIDGET (self);
}

static void
assay_dataframe_view_append_field (GString    *csv,
                                   const char *field)
{
  if (strpbrk (field, ",\"\r\n") == NULL)
    {
      g_string_append (csv, field);
      return;
    }
  g_string_append_c (csv, '"');
  for (const char *p = field; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (csv, '"');
      g_string_append_c (csv, *p);
    }
  g_string_append_c (csv, '"');
}

char *
assay_dataframe_view_dup_csv (AssayDataframeView *self)
{
  GString *csv = g_string_new (NULL);

  g_return_val_if_fail (ASSAY_IS_DATAFRAME_VIEW (self), NULL);
  for (guint i = 0; i < self->rows->len; i++)
    {
      GPtrArray *row = g_ptr_array_index (self->rows, i);

      /* Every line as wide as the widest, as a spreadsheet expects. */
      for (guint j = 0; j < self->n_columns; j++)
        {
          if (j > 0)
            g_string_append_c (csv, ',');
          if (j < row->len)
            assay_dataframe_view_append_field (csv, g_ptr_array_index (row, j));
        }
      g_string_append (csv, "\r\n");
    }
  return g_string_free (csv, FALSE);
}

guint
assay_dataframe_view_get_n_rows (AssayDataframeView *self)
{
  g_return_val_if_fail (ASSAY_IS_DATAFRAME_VIEW (self), 0);
  return self->n_shown;
}
