/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Run Again with New Data". The dialog's model is its list of dataset pairs (a dataset of
 * the session, the file chosen for it, how they compare) and of the cells run so far; each row
 * only shows its pair or cell, and assay_rerun_dialog_update decides the rest. Comparing opens
 * and profiles both files, so it runs in a worker; the run is assay_rerun_async's. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include "assay-app-settings.h"
#include "assay-keyring.h"
#include "assay-app-types.h"
#include "assay-kernel-session.h"
#include "assay-rerun.h"
#include "assay-rerun-dialog.h"
#include "assay-sandbox-choice.h"
#include "assay-source.h"

/* A dataset of the session and the file that stands in for it. */
typedef struct
{
  AssayRerunDialog  *dialog;        /* not owned */
  char              *name;          /* /data/<name> */
  char              *old_path;      /* its copy in the session's data/; NULL: not there */
  gint64             old_rows;      /* as recorded; -1: not counted */
  GFile             *file;          /* the new file, or NULL */
  AssayRerunDataset *comparison;    /* FILE against the dataset, once compared */
  char              *error;         /* why FILE could not be compared */
  GCancellable      *cancellable;   /* the comparison in flight, or NULL */

  /* Its row, which shows the above (assay_rerun_dialog_show_pair). */
  GtkWidget         *row;
  GtkLabel          *summary_label;
  GtkSpinner        *spinner;
  GtkWidget         *choose_button;
  GtkBox            *details_box;
} DatasetPair;

/* A database the session queried: its queries are asked again there, with the password the
 * keyring holds for its URL (or none: the client library's own files may know it). */
typedef struct
{
  AssayRerunDialog  *dialog;        /* not owned */
  char              *name;
  char              *url;           /* without a password, as recorded */
  char             **tables;
  char              *password;      /* from the keyring (secret memory), or NULL */
  GCancellable      *cancellable;   /* the keyring lookup in flight, or NULL */

  GtkWidget         *row;
  GtkLabel          *status_label;
} SourceRow;

/* A cell of the run, started or done. */
typedef struct
{
  char            *cell_id;
  AssayCellStatus  status;
  gint64           elapsed_us;

  GtkWidget       *row;
  GtkSpinner      *spinner;
  GtkImage        *icon;
  GtkLabel        *time_label;
} CellRow;

struct _AssayRerunDialog
{
  AdwWindow            parent_instance;

  AdwWindowTitle      *window_title;
  GtkButton           *close_button;
  GtkWidget           *run_button;
  GtkWidget           *stop_button;
  AdwPreferencesGroup *datasets_group;
  GtkLabel            *message_label;
  GtkWidget           *open_button;
  AdwPreferencesGroup *cells_group;
  GtkListBox          *cells_list;

  AssaySession        *origin;
  GSettings           *settings;
  GPtrArray           *pairs;            /* DatasetPair*, in the session's order */
  GPtrArray           *sources;          /* SourceRow*, the databases its queries are asked of */
  AdwPreferencesGroup *sources_group;
  GPtrArray           *cells;            /* CellRow*, in the order they started */
  GCancellable        *run_cancellable;  /* the run in progress, or NULL */
  GtkNativeDialog     *chooser;          /* the file chooser shown, or NULL */
  gboolean             stopping;
  gboolean             closed;           /* closed by the analyst: a run still ending shows nothing */
  guint                n_planned;        /* cells the run will run, once known */
  char                *message;          /* why the last run did not succeed */
  gboolean             message_is_error; /* not only stopped */
  char                *failed_cell;
  char                *ran_dir;          /* what it made, for Open What Ran */
};

G_DEFINE_FINAL_TYPE (AssayRerunDialog, assay_rerun_dialog, ADW_TYPE_WINDOW)

enum { SESSION_MADE, OPEN_SESSION, N_SIGNALS };
static guint signals[N_SIGNALS];

static void assay_rerun_dialog_update (AssayRerunDialog *self);

static void
dataset_pair_free (DatasetPair *pair)
{
  if (pair->cancellable != NULL)
    g_cancellable_cancel (pair->cancellable);
  g_clear_object (&pair->cancellable);
  g_clear_object (&pair->file);
  g_clear_pointer (&pair->comparison, assay_rerun_dataset_free);
  g_free (pair->error);
  g_free (pair->name);
  g_free (pair->old_path);
  g_free (pair);
}

static void
source_row_free (SourceRow *source)
{
  if (source->cancellable != NULL)
    g_cancellable_cancel (source->cancellable);
  g_clear_object (&source->cancellable);
  g_clear_pointer (&source->password, secret_password_free);
  g_free (source->name);
  g_free (source->url);
  g_strfreev (source->tables);
  g_free (source);
}

static void
cell_row_free (CellRow *cell)
{
  g_free (cell->cell_id);
  g_free (cell);
}

static DatasetPair *
assay_rerun_dialog_find_pair (AssayRerunDialog *self,
                              const char       *name)
{
  for (guint i = 0; i < self->pairs->len; i++)
    {
      DatasetPair *pair = g_ptr_array_index (self->pairs, i);

      if (g_strcmp0 (pair->name, name) == 0)
        return pair;
    }
  return NULL;
}

static char *
assay_rerun_dialog_format_rows (gint64 rows)
{
  return g_strdup_printf ("%'" G_GINT64_FORMAT, rows);
}

/* Numbers in columns: the same width for every digit. */
static void
assay_rerun_dialog_set_tabular (GtkLabel *label)
{
  PangoAttrList *attributes = pango_attr_list_new ();

  pango_attr_list_insert (attributes, pango_attr_font_features_new ("tnum"));
  gtk_label_set_attributes (label, attributes);
  pango_attr_list_unref (attributes);
}

/* ---- the datasets ------------------------------------------------------------------------- */

static void
assay_rerun_dialog_add_detail (DatasetPair *pair,
                               const char  *text,
                               const char  *style)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, style);
  gtk_box_append (pair->details_box, label);
}

/* The row says what its pair holds; nothing else writes to it. */
static void
assay_rerun_dialog_show_pair (AssayRerunDialog *self,
                              DatasetPair      *pair)
{
  const AssayRerunDataset *comparison = pair->comparison;
  gboolean comparing = pair->cancellable != NULL;
  g_autofree char *summary = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (pair->details_box))) != NULL)
    gtk_box_remove (pair->details_box, child);

  if (pair->file == NULL)
    {
      g_autofree char *rows = assay_rerun_dialog_format_rows (pair->old_rows);

      summary = pair->old_rows >= 0 ? g_strdup_printf (_("%s rows; no new file chosen"), rows)
                                    : g_strdup (_("No new file chosen"));
    }
  else
    {
      g_autofree char *basename = g_file_get_basename (pair->file);

      if (comparison != NULL)
        {
          g_autofree char *before = assay_rerun_dialog_format_rows (comparison->old_rows);
          g_autofree char *now = assay_rerun_dialog_format_rows (comparison->new_rows);
          g_autofree char *rows = g_strdup_printf (_("%s rows before, %s now"), before, now);

          summary = g_strdup_printf ("%s · %s", basename, rows);
        }
      else
        summary = g_strdup (basename);
    }
  gtk_label_set_text (pair->summary_label, summary);
  gtk_spinner_set_spinning (pair->spinner, comparing);
  gtk_widget_set_visible (GTK_WIDGET (pair->spinner), comparing);

  if (comparing)
    assay_rerun_dialog_add_detail (pair, _("Comparing with the dataset…"), "dim-label");
  else if (pair->error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("This file cannot be used: %s"), pair->error);

      assay_rerun_dialog_add_detail (pair, text, "error");
    }
  else if (comparison != NULL)
    {
      gboolean matches = assay_rerun_dataset_matches (comparison);
      /* What blocks the run is said as an error; what will be converted or is not used, as
       * information. Only a format the run cannot convert blocks it by itself. */
      gboolean format_blocks = !matches && comparison->missing->len == 0 && comparison->retyped->len == 0;

      for (guint i = 0; i < comparison->missing->len; i++)
        {
          g_autofree char *text = g_strdup_printf (_("Missing column: %s"),
                                                   (char *) g_ptr_array_index (comparison->missing, i));

          assay_rerun_dialog_add_detail (pair, text, "error");
        }
      for (guint i = 0; i < comparison->retyped->len; i++)
        {
          g_autofree char *text = g_strdup_printf (_("Column type changed: %s"),
                                                   (char *) g_ptr_array_index (comparison->retyped, i));

          assay_rerun_dialog_add_detail (pair, text, "error");
        }
      for (guint i = 0; i < comparison->notes->len; i++)
        {
          g_autofree char *text = g_strdup_printf (_("Format: %s"), (char *) g_ptr_array_index (comparison->notes, i));

          assay_rerun_dialog_add_detail (pair, text, format_blocks ? "error" : "dim-label");
        }
      for (guint i = 0; i < comparison->added->len; i++)
        {
          g_autofree char *text = g_strdup_printf (_("New column, not used: %s"),
                                                   (char *) g_ptr_array_index (comparison->added, i));

          assay_rerun_dialog_add_detail (pair, text, "dim-label");
        }
      if (matches)
        assay_rerun_dialog_add_detail (pair, _("It has every column the session used"), "success");
    }
  gtk_widget_set_visible (GTK_WIDGET (pair->details_box),
                          gtk_widget_get_first_child (GTK_WIDGET (pair->details_box)) != NULL);
}

static void
assay_rerun_dialog_compare_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  char **paths = task_data;   /* name, old path, new path */
  GError *error = NULL;
  AssayRerunDataset *comparison = assay_rerun_compare (paths[0], paths[1], paths[2], &error);

  if (comparison == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, comparison, (GDestroyNotify) assay_rerun_dataset_free);
}

static void
assay_rerun_dialog_compared_cb (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  AssayRerunDialog *self = ASSAY_RERUN_DIALOG (source);
  DatasetPair *pair = user_data;
  g_autoptr(GError) error = NULL;
  AssayRerunDataset *comparison = g_task_propagate_pointer (G_TASK (result), &error);

  /* Another file was chosen since, or the dialog went away: the pair is not this one's. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_task_get_cancellable (G_TASK (result)) != pair->cancellable)
    {
      g_clear_pointer (&comparison, assay_rerun_dataset_free);
      return;
    }
  g_clear_object (&pair->cancellable);
  pair->comparison = comparison;
  if (comparison == NULL)
    pair->error = g_strdup (error->message);
  assay_rerun_dialog_show_pair (self, pair);
  assay_rerun_dialog_update (self);
}

void
assay_rerun_dialog_set_file (AssayRerunDialog *self,
                             const char       *name,
                             GFile            *file)
{
  DatasetPair *pair;
  g_autofree char *new_path = NULL;
  char **paths;
  GTask *task;

  g_return_if_fail (ASSAY_IS_RERUN_DIALOG (self));
  g_return_if_fail (G_IS_FILE (file));
  pair = assay_rerun_dialog_find_pair (self, name);
  g_return_if_fail (pair != NULL);
  if (self->run_cancellable != NULL)
    return;

  if (pair->cancellable != NULL)
    g_cancellable_cancel (pair->cancellable);
  g_clear_object (&pair->cancellable);
  g_clear_pointer (&pair->comparison, assay_rerun_dataset_free);
  g_clear_pointer (&pair->error, g_free);
  g_set_object (&pair->file, file);
  new_path = g_file_get_path (file);
  if (new_path == NULL)
    pair->error = g_strdup (_("only files on this computer can be read"));
  else if (pair->old_path == NULL)
    pair->error = g_strdup (_("the session’s own copy of this dataset is missing"));
  else
    {
      pair->cancellable = g_cancellable_new ();
      paths = g_new0 (char *, 4);
      paths[0] = g_strdup (pair->name);
      paths[1] = g_strdup (pair->old_path);
      paths[2] = g_steal_pointer (&new_path);
      task = g_task_new (self, pair->cancellable, assay_rerun_dialog_compared_cb, pair);
      g_task_set_source_tag (task, assay_rerun_dialog_set_file);
      g_task_set_task_data (task, paths, (GDestroyNotify) g_strfreev);
      g_task_run_in_thread (task, assay_rerun_dialog_compare_worker);
      g_object_unref (task);
    }
  assay_rerun_dialog_show_pair (self, pair);
  assay_rerun_dialog_update (self);
}

static gboolean
assay_rerun_dialog_drop_cb (GtkDropTarget *target,
                            const GValue  *value,
                            double         x,
                            double         y,
                            DatasetPair   *pair)
{
  GSList *files;

  if (pair->dialog->run_cancellable != NULL || !G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;
  /* One file stands in for one dataset: the first one dropped. */
  assay_rerun_dialog_set_file (pair->dialog, pair->name, files->data);
  g_slist_free (files);
  return TRUE;
}

static void
assay_rerun_dialog_chooser_response_cb (GtkNativeDialog  *chooser,
                                        int               response,
                                        AssayRerunDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      if (file != NULL)
        assay_rerun_dialog_set_file (self, g_object_get_data (G_OBJECT (chooser), "dataset"), file);
    }
  g_clear_object (&self->chooser);
}

static void
assay_rerun_dialog_choose_clicked_cb (GtkButton   *button,
                                      DatasetPair *pair)
{
  AssayRerunDialog *self = pair->dialog;
  g_autofree char *title = g_strdup_printf (_("New File for %s"), pair->name);
  GtkFileChooserNative *chooser;

  if (self->chooser != NULL)
    return;
  chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Choose"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  assay_app_add_data_filter (GTK_FILE_CHOOSER (chooser));
  g_object_set_data_full (G_OBJECT (chooser), "dataset", g_strdup (pair->name), g_free);
  g_signal_connect_object (chooser, "response", G_CALLBACK (assay_rerun_dialog_chooser_response_cb), self, 0);
  self->chooser = GTK_NATIVE_DIALOG (chooser);
  gtk_native_dialog_show (self->chooser);
}

static void
assay_rerun_dialog_add_pair (AssayRerunDialog          *self,
                             const AssaySessionDataset *dataset)
{
  DatasetPair *pair = g_new0 (DatasetPair, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title = gtk_label_new (dataset->name);
  GtkWidget *summary = gtk_label_new (NULL);
  GtkWidget *details = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_autofree char *tooltip = g_strdup_printf (_("Choose the file that stands in for %s, or drop it on this row"),
                                              dataset->name);

  pair->dialog = self;
  pair->name = g_strdup (dataset->name);
  pair->old_path = assay_session_resolve (self->origin, dataset->path);
  pair->old_rows = dataset->rows;

  /* A preferences row, so the group puts it in its boxed list. */
  pair->row = adw_preferences_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (pair->row), dataset->name);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (pair->row), FALSE);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (pair->row), FALSE);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  gtk_label_set_xalign (GTK_LABEL (title), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (GTK_LABEL (summary), 0.0);
  gtk_label_set_wrap (GTK_LABEL (summary), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (summary), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (summary, "caption");
  gtk_widget_add_css_class (summary, "dim-label");
  assay_rerun_dialog_set_tabular (GTK_LABEL (summary));
  gtk_widget_set_hexpand (texts, TRUE);
  gtk_box_append (GTK_BOX (texts), title);
  gtk_box_append (GTK_BOX (texts), summary);
  gtk_box_append (GTK_BOX (top), texts);

  pair->spinner = GTK_SPINNER (gtk_spinner_new ());
  gtk_widget_set_valign (GTK_WIDGET (pair->spinner), GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (top), GTK_WIDGET (pair->spinner));
  pair->choose_button = gtk_button_new_with_mnemonic (_("C_hoose File…"));
  gtk_widget_set_valign (pair->choose_button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (pair->choose_button, tooltip);
  g_signal_connect (pair->choose_button, "clicked", G_CALLBACK (assay_rerun_dialog_choose_clicked_cb), pair);
  gtk_box_append (GTK_BOX (top), pair->choose_button);
  gtk_box_append (GTK_BOX (box), top);
  gtk_box_append (GTK_BOX (box), details);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (pair->row), box);
  gtk_accessible_update_property (GTK_ACCESSIBLE (pair->row), GTK_ACCESSIBLE_PROPERTY_LABEL, dataset->name, -1);

  g_signal_connect (drop, "drop", G_CALLBACK (assay_rerun_dialog_drop_cb), pair);
  gtk_widget_add_controller (pair->row, GTK_EVENT_CONTROLLER (drop));

  pair->summary_label = GTK_LABEL (summary);
  pair->details_box = GTK_BOX (details);
  g_ptr_array_add (self->pairs, pair);
  adw_preferences_group_add (self->datasets_group, pair->row);
  assay_rerun_dialog_show_pair (self, pair);
}

/* The dialog is held until the lookup ends, so its SourceRow is still there. */
static void
assay_rerun_dialog_password_found_cb (GObject      *object,
                                      GAsyncResult *result,
                                      gpointer      user_data)
{
  SourceRow *source = user_data;
  g_autoptr(AssayRerunDialog) self = source->dialog;
  g_autoptr(GError) error = NULL;
  char *password = assay_keyring_lookup_password_finish (result, &error);

  if (self->closed || g_cancellable_is_cancelled (source->cancellable))
    {
      secret_password_free (password);
      return;
    }
  g_clear_object (&source->cancellable);
  source->password = password;
  if (error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The keyring could not be read (%s): the database’s own "
                                                 "settings must let you in"), error->message);

      gtk_label_set_text (source->status_label, text);
    }
  else if (password != NULL)
    gtk_label_set_text (source->status_label, _("Asked again with its password from the keyring"));
  else
    gtk_label_set_text (source->status_label,
                        _("No password in the keyring: asked again as the database’s own settings allow"));
  assay_rerun_dialog_update (self);
}

static void
assay_rerun_dialog_add_source (AssayRerunDialog         *self,
                               const AssaySessionSource *recorded)
{
  SourceRow *source = g_new0 (SourceRow, 1);
  GtkWidget *status = gtk_label_new (_("Looking for its password in the keyring…"));

  source->dialog = self;
  source->name = g_strdup (recorded->name);
  source->url = g_strdup (recorded->url);
  source->tables = g_strdupv (recorded->tables);
  source->row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (source->row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (source->row), recorded->name);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (source->row), recorded->url ? recorded->url : "");
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (source->row), 2);
  gtk_label_set_wrap (GTK_LABEL (status), TRUE);
  gtk_label_set_xalign (GTK_LABEL (status), 1.0);
  gtk_label_set_max_width_chars (GTK_LABEL (status), 28);
  gtk_widget_add_css_class (status, "caption");
  gtk_widget_add_css_class (status, "dim-label");
  adw_action_row_add_suffix (ADW_ACTION_ROW (source->row), status);
  source->status_label = GTK_LABEL (status);
  g_ptr_array_add (self->sources, source);
  adw_preferences_group_add (self->sources_group, source->row);

  source->cancellable = g_cancellable_new ();
  g_object_ref (self);   /* released by the callback */
  assay_keyring_lookup_password_async (recorded->url, source->cancellable,
                                       assay_rerun_dialog_password_found_cb, source);
}

/* The databases, each made from its recorded URL with the keyring's password. */
static GPtrArray *
assay_rerun_dialog_make_sources (AssayRerunDialog  *self,
                                 GError           **error)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < self->sources->len; i++)
    {
      SourceRow *row = g_ptr_array_index (self->sources, i);
      AssaySource *source = assay_source_new (row->name, row->url, error);

      if (source == NULL)
        return NULL;
      assay_source_set_password (source, row->password);
      assay_source_set_tables (source, (const char * const *) row->tables);
      assay_session_apply_recorded_risk (self->origin, source);
      g_ptr_array_add (sources, source);
    }
  return g_steal_pointer (&sources);
}

/* ---- the run ------------------------------------------------------------------------------ */

static CellRow *
assay_rerun_dialog_find_cell (AssayRerunDialog *self,
                              const char       *cell_id)
{
  for (guint i = self->cells->len; i-- > 0;)
    {
      CellRow *cell = g_ptr_array_index (self->cells, i);

      if (g_strcmp0 (cell->cell_id, cell_id) == 0)
        return cell;
    }
  return NULL;
}

static void
assay_rerun_dialog_show_cell (CellRow *cell)
{
  gboolean running = cell->status == ASSAY_CELL_RUNNING;
  gboolean ok = cell->status == ASSAY_CELL_OK;

  gtk_spinner_set_spinning (cell->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (cell->spinner), running);
  gtk_widget_set_visible (GTK_WIDGET (cell->icon), !running);
  gtk_widget_set_visible (GTK_WIDGET (cell->time_label), !running);
  if (running)
    return;
  {
    g_autofree char *time = g_strdup_printf (_("%.1f s"), cell->elapsed_us / (double) G_USEC_PER_SEC);

    gtk_label_set_text (cell->time_label, time);
  }
  gtk_image_set_from_icon_name (cell->icon, ok ? "object-select-symbolic" : "dialog-error-symbolic");
  gtk_widget_remove_css_class (GTK_WIDGET (cell->icon), ok ? "error" : "success");
  gtk_widget_add_css_class (GTK_WIDGET (cell->icon), ok ? "success" : "error");
  gtk_widget_set_tooltip_text (GTK_WIDGET (cell->icon), ok ? _("Ran") : assay_cell_status_to_string (cell->status));
  gtk_accessible_update_property (GTK_ACCESSIBLE (cell->icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  ok ? _("Ran") : _("Failed"), -1);
}

static void
assay_rerun_dialog_cell_started (AssayRerunDialog     *self,
                                 const AssayRerunStep *step)
{
  CellRow *cell = g_new0 (CellRow, 1);
  g_autofree char *title = g_markup_escape_text (step->description != NULL && *step->description != '\0'
                                                 ? step->description : step->cell_id, -1);
  g_autofree char *subtitle = g_markup_escape_text (step->cell_id, -1);

  cell->cell_id = g_strdup (step->cell_id);
  cell->status = ASSAY_CELL_RUNNING;
  cell->row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (cell->row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (cell->row), subtitle);
  cell->time_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (cell->time_label), "dim-label");
  assay_rerun_dialog_set_tabular (cell->time_label);
  cell->spinner = GTK_SPINNER (gtk_spinner_new ());
  cell->icon = GTK_IMAGE (gtk_image_new ());
  adw_action_row_add_suffix (ADW_ACTION_ROW (cell->row), GTK_WIDGET (cell->time_label));
  adw_action_row_add_suffix (ADW_ACTION_ROW (cell->row), GTK_WIDGET (cell->spinner));
  adw_action_row_add_suffix (ADW_ACTION_ROW (cell->row), GTK_WIDGET (cell->icon));
  g_ptr_array_add (self->cells, cell);
  gtk_list_box_append (self->cells_list, cell->row);
  assay_rerun_dialog_show_cell (cell);
}

/* Called on the main context as each cell starts and ends. */
static void
assay_rerun_dialog_progress_cb (const AssayRerunStep *step,
                                gpointer              user_data)
{
  AssayRerunDialog *self = user_data;
  CellRow *cell;

  if (self->closed)
    return;
  self->n_planned = step->total;
  if (step->status == ASSAY_CELL_RUNNING)
    assay_rerun_dialog_cell_started (self, step);
  else if ((cell = assay_rerun_dialog_find_cell (self, step->cell_id)) != NULL)
    {
      cell->status = step->status;
      cell->elapsed_us = step->elapsed_us;
      assay_rerun_dialog_show_cell (cell);
    }
  assay_rerun_dialog_update (self);
}

static void
assay_rerun_dialog_end_run (AssayRerunDialog *self,
                            const char       *message,
                            const char       *failed_cell,
                            const char       *ran_dir)
{
  self->message_is_error = !self->stopping;
  g_clear_object (&self->run_cancellable);
  self->stopping = FALSE;
  g_free (self->message);
  self->message = g_strdup (message);
  g_free (self->failed_cell);
  self->failed_cell = g_strdup (failed_cell);
  g_free (self->ran_dir);
  self->ran_dir = g_strdup (ran_dir);
  /* A cell still shown running did not finish. */
  for (guint i = 0; i < self->cells->len; i++)
    {
      CellRow *cell = g_ptr_array_index (self->cells, i);

      if (cell->status == ASSAY_CELL_RUNNING)
        {
          cell->status = ASSAY_CELL_CANCELLED;
          assay_rerun_dialog_show_cell (cell);
        }
    }
  assay_rerun_dialog_update (self);
}

static void
assay_rerun_dialog_rerun_done_cb (GObject      *source,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  g_autoptr(AssayRerunDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayRerunResult) rerun = assay_rerun_finish (result, &error);
  g_autofree char *dir = rerun != NULL && rerun->session != NULL ? g_strdup (assay_session_get_dir (rerun->session))
                                                                 : NULL;

  /* On disk whatever the dialog shows now: the sessions list reads it again. */
  if (dir != NULL)
    g_signal_emit (self, signals[SESSION_MADE], 0, dir);
  if (self->closed)
    {
      g_clear_object (&self->run_cancellable);
      return;
    }
  if (error == NULL && dir != NULL)
    {
      g_clear_object (&self->run_cancellable);
      self->closed = TRUE;
      g_signal_emit (self, signals[OPEN_SESSION], 0, dir, TRUE);
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }

  /* What the run found of the data, in the rows. */
  for (guint i = 0; rerun != NULL && i < rerun->datasets->len; i++)
    {
      AssayRerunDataset *compared = g_ptr_array_index (rerun->datasets, i);
      DatasetPair *pair = assay_rerun_dialog_find_pair (self, compared->name);

      if (pair == NULL || pair->cancellable != NULL)
        continue;
      g_clear_pointer (&pair->comparison, assay_rerun_dataset_free);
      g_clear_pointer (&pair->error, g_free);
      pair->comparison = g_steal_pointer (&rerun->datasets->pdata[i]);
      assay_rerun_dialog_show_pair (self, pair);
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    assay_rerun_dialog_end_run (self,
                                dir != NULL ? _("Stopped. What ran before is kept in a new session.") : _("Stopped."),
                                NULL, dir);
  else if (g_error_matches (error, ASSAY_RERUN_ERROR, ASSAY_RERUN_ERROR_CELL))
    assay_rerun_dialog_end_run (self, error->message, rerun != NULL ? rerun->failed_cell : NULL, dir);
  else if (error != NULL)
    assay_rerun_dialog_end_run (self, error->message, NULL, dir);
  else
    assay_rerun_dialog_end_run (self, _("The run made no session."), NULL, NULL);
}

static void
assay_rerun_dialog_backend_chosen_cb (GObject      *source,
                                      GAsyncResult *result,
                                      gpointer      user_data)
{
  g_autoptr(AssayRerunDialog) self = user_data;
  g_autoptr(AssaySandboxSpec) spec = NULL;
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(AssayKernelSession) kernel = NULL;
  g_autoptr(GHashTable) files = NULL;
  g_autoptr(GPtrArray) sources = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;

  backend = assay_sandbox_choose_backend_finish (result, &spec, &reason, &error);
  if (self->closed)
    {
      g_clear_object (&self->run_cancellable);
      return;
    }
  if (self->run_cancellable == NULL || g_cancellable_is_cancelled (self->run_cancellable))
    {
      assay_rerun_dialog_end_run (self, _("Stopped."), NULL, NULL);
      return;
    }
  if (backend == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The sandbox cannot be used: %s"), error->message);

      assay_rerun_dialog_end_run (self, text, NULL, NULL);
      return;
    }

  /* A kernel of its own, not started, without datasets: the run adds the new files. */
  kernel = assay_kernel_session_new (backend, spec, NULL);
  files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < self->pairs->len; i++)
    {
      DatasetPair *pair = g_ptr_array_index (self->pairs, i);

      g_hash_table_replace (files, g_strdup (pair->name), g_file_get_path (pair->file));
    }
  sources = assay_rerun_dialog_make_sources (self, &error);
  if (sources == NULL)
    {
      assay_rerun_dialog_end_run (self, error->message, NULL, NULL);
      return;
    }
  assay_rerun_async_full (self->origin, files, sources, kernel, NULL,
                          assay_rerun_dialog_progress_cb, g_object_ref (self), g_object_unref,
                          NULL, NULL,
                          self->run_cancellable, assay_rerun_dialog_rerun_done_cb, g_object_ref (self));
}

static void
assay_rerun_dialog_e2b_found_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(AssayRerunDialog) self = user_data;
  g_autoptr(AssayE2bSettings) e2b = NULL;
  g_autoptr(GError) error = NULL;
  AssaySandboxSpec *spec = g_object_get_data (G_OBJECT (self), "assay-rerun-spec");

  e2b = assay_app_e2b_settings_lookup_finish (result, &error);
  if (self->closed)
    {
      g_clear_object (&self->run_cancellable);
      return;
    }
  if (e2b == NULL || e2b->api_key == NULL || e2b->api_key[0] == '\0')
    {
      g_autofree char *text = e2b == NULL
        ? g_strdup_printf (_("E2B's key could not be read from the keyring: %s"), error->message)
        : g_strdup (_("E2B is chosen in Preferences, but no E2B key is stored: add it in Preferences → Sandbox."));

      assay_rerun_dialog_end_run (self, text, NULL, NULL);
      return;
    }
  assay_sandbox_choose_backend_e2b_async ("e2b", e2b, spec, self->run_cancellable,
                                          assay_rerun_dialog_backend_chosen_cb, g_object_ref (self));
}

void
assay_rerun_dialog_run (AssayRerunDialog *self)
{
  g_autoptr(AssaySandboxSpec) spec = NULL;
  g_autofree char *backend = NULL;

  g_return_if_fail (ASSAY_IS_RERUN_DIALOG (self));
  if (!assay_rerun_dialog_get_can_run (self))
    return;

  g_clear_pointer (&self->message, g_free);
  g_clear_pointer (&self->failed_cell, g_free);
  g_clear_pointer (&self->ran_dir, g_free);
  for (guint i = 0; i < self->cells->len; i++)
    gtk_list_box_remove (self->cells_list, ((CellRow *) g_ptr_array_index (self->cells, i))->row);
  g_ptr_array_set_size (self->cells, 0);
  self->n_planned = 0;
  self->stopping = FALSE;
  self->run_cancellable = g_cancellable_new ();

  /* The sandbox the settings name, with their limits, chosen in a worker (it probes the
   * Docker socket); E2B with its key from the keyring, as a question gets it. */
  spec = assay_app_sandbox_spec_new (self->settings);
  backend = g_settings_get_string (self->settings, "sandbox-backend");
  if (g_strcmp0 (backend, "e2b") == 0)
    {
      g_object_set_data_full (G_OBJECT (self), "assay-rerun-spec", g_steal_pointer (&spec),
                              (GDestroyNotify) assay_sandbox_spec_free);
      assay_app_e2b_settings_lookup_async (self->settings, self->run_cancellable,
                                           assay_rerun_dialog_e2b_found_cb, g_object_ref (self));
    }
  else
    assay_sandbox_choose_backend_async (backend, spec, self->run_cancellable,
                                        assay_rerun_dialog_backend_chosen_cb, g_object_ref (self));
  assay_rerun_dialog_update (self);
}

void
assay_rerun_dialog_stop (AssayRerunDialog *self)
{
  g_return_if_fail (ASSAY_IS_RERUN_DIALOG (self));
  if (self->run_cancellable == NULL || self->stopping)
    return;
  self->stopping = TRUE;
  g_cancellable_cancel (self->run_cancellable);
  assay_rerun_dialog_update (self);
}

/* ---- what is shown, and what can be done -------------------------------------------------- */

static void
assay_rerun_dialog_update (AssayRerunDialog *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean running = self->run_cancellable != NULL;
  g_autofree char *progress = NULL;

  gtk_widget_action_set_enabled (widget, "rerun.run", assay_rerun_dialog_get_can_run (self));
  gtk_widget_action_set_enabled (widget, "rerun.stop", running && !self->stopping);
  gtk_widget_action_set_enabled (widget, "rerun.open-what-ran", !running && self->ran_dir != NULL);
  gtk_widget_set_visible (self->run_button, !running);
  gtk_widget_set_visible (self->stop_button, running);
  gtk_widget_set_visible (GTK_WIDGET (self->close_button), !running);
  gtk_button_set_label (self->close_button, self->cells->len > 0 ? _("_Close") : _("_Cancel"));
  /* The files stay what they are while they run. */
  for (guint i = 0; i < self->pairs->len; i++)
    gtk_widget_set_sensitive (((DatasetPair *) g_ptr_array_index (self->pairs, i))->choose_button, !running);

  gtk_widget_set_visible (GTK_WIDGET (self->cells_group), running || self->cells->len > 0);
  if (running && self->stopping)
    progress = g_strdup (_("Stopping…"));
  else if (running && self->cells->len == 0)
    progress = g_strdup (_("Starting the sandbox…"));
  else if (running)
    progress = g_strdup_printf (_("Running cell %u of %u…"), self->cells->len, MAX (self->n_planned, self->cells->len));
  else if (self->cells->len > 0)
    progress = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u cell ran", "%u cells ran", self->cells->len),
                                self->cells->len);
  adw_preferences_group_set_description (self->cells_group, progress);

  gtk_label_set_text (self->message_label, self->message != NULL ? self->message : "");
  if (self->message_is_error)
    gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->message_label), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->message_label), !running && self->message != NULL);
  gtk_widget_set_visible (self->open_button, !running && self->ran_dir != NULL);
}

static void
assay_rerun_dialog_run_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  assay_rerun_dialog_run (ASSAY_RERUN_DIALOG (widget));
}

static void
assay_rerun_dialog_stop_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  assay_rerun_dialog_stop (ASSAY_RERUN_DIALOG (widget));
}

static void
assay_rerun_dialog_open_what_ran_action (GtkWidget  *widget,
                                         const char *action_name,
                                         GVariant   *parameter)
{
  AssayRerunDialog *self = ASSAY_RERUN_DIALOG (widget);
  g_autofree char *dir = g_strdup (self->ran_dir);

  if (dir == NULL)
    return;
  self->closed = TRUE;
  g_signal_emit (self, signals[OPEN_SESSION], 0, dir, FALSE);
  gtk_window_destroy (GTK_WINDOW (self));
}

/* ---- for tests ---------------------------------------------------------------------------- */

gboolean
assay_rerun_dialog_get_comparing (AssayRerunDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), FALSE);
  for (guint i = 0; i < self->pairs->len; i++)
    if (((DatasetPair *) g_ptr_array_index (self->pairs, i))->cancellable != NULL)
      return TRUE;
  return FALSE;
}

gboolean
assay_rerun_dialog_get_can_run (AssayRerunDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), FALSE);
  if (self->run_cancellable != NULL || (self->pairs->len == 0 && self->sources->len == 0))
    return FALSE;
  for (guint i = 0; i < self->sources->len; i++)
    if (((SourceRow *) g_ptr_array_index (self->sources, i))->cancellable != NULL)
      return FALSE;   /* its password is still being looked up */
  for (guint i = 0; i < self->pairs->len; i++)
    {
      DatasetPair *pair = g_ptr_array_index (self->pairs, i);

      if (pair->cancellable != NULL || pair->comparison == NULL || !assay_rerun_dataset_matches (pair->comparison))
        return FALSE;
    }
  return TRUE;
}

gboolean
assay_rerun_dialog_get_running (AssayRerunDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), FALSE);
  return self->run_cancellable != NULL;
}

char *
assay_rerun_dialog_dup_dataset_text (AssayRerunDialog *self,
                                     const char       *name)
{
  DatasetPair *pair;
  GString *text;

  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), NULL);
  pair = assay_rerun_dialog_find_pair (self, name);
  if (pair == NULL)
    return NULL;
  text = g_string_new (pair->name);
  g_string_append_printf (text, "\n%s", gtk_label_get_text (pair->summary_label));
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (pair->details_box)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    g_string_append_printf (text, "\n%s", gtk_label_get_text (GTK_LABEL (child)));
  return g_string_free (text, FALSE);
}

const char *
assay_rerun_dialog_get_source_status (AssayRerunDialog *self,
                                      const char       *name)
{
  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), NULL);
  for (guint i = 0; i < self->sources->len; i++)
    {
      SourceRow *source = g_ptr_array_index (self->sources, i);

      if (g_strcmp0 (source->name, name) == 0)
        return gtk_label_get_text (source->status_label);
    }
  return NULL;
}

const char *
assay_rerun_dialog_get_message (AssayRerunDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), NULL);
  return self->message;
}

const char *
assay_rerun_dialog_get_failed_cell (AssayRerunDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), NULL);
  return self->failed_cell;
}

guint
assay_rerun_dialog_get_n_cells (AssayRerunDialog *self)
{
  g_return_val_if_fail (ASSAY_IS_RERUN_DIALOG (self), 0);
  return self->cells->len;
}

/* ---- GObject ------------------------------------------------------------------------------ */

/* Closing while it runs stops the run; its end shows nothing. */
static gboolean
assay_rerun_dialog_close_request (GtkWindow *window)
{
  AssayRerunDialog *self = ASSAY_RERUN_DIALOG (window);

  self->closed = TRUE;
  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
  return GTK_WINDOW_CLASS (assay_rerun_dialog_parent_class)->close_request (window);
}

static void
assay_rerun_dialog_dispose (GObject *object)
{
  AssayRerunDialog *self = ASSAY_RERUN_DIALOG (object);

  self->closed = TRUE;
  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
  for (guint i = 0; self->pairs != NULL && i < self->pairs->len; i++)
    {
      DatasetPair *pair = g_ptr_array_index (self->pairs, i);

      if (pair->cancellable != NULL)
        g_cancellable_cancel (pair->cancellable);
    }
  for (guint i = 0; self->sources != NULL && i < self->sources->len; i++)
    {
      SourceRow *source = g_ptr_array_index (self->sources, i);

      if (source->cancellable != NULL)
        g_cancellable_cancel (source->cancellable);
    }
  if (self->chooser != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->chooser, self);
      gtk_native_dialog_destroy (self->chooser);
      g_clear_object (&self->chooser);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_RERUN_DIALOG);
  G_OBJECT_CLASS (assay_rerun_dialog_parent_class)->dispose (object);
}

static void
assay_rerun_dialog_finalize (GObject *object)
{
  AssayRerunDialog *self = ASSAY_RERUN_DIALOG (object);

  g_ptr_array_unref (self->pairs);
  g_ptr_array_unref (self->sources);
  g_ptr_array_unref (self->cells);
  g_clear_object (&self->run_cancellable);
  g_clear_object (&self->origin);
  g_clear_object (&self->settings);
  g_free (self->message);
  g_free (self->failed_cell);
  g_free (self->ran_dir);
  G_OBJECT_CLASS (assay_rerun_dialog_parent_class)->finalize (object);
}

static void
assay_rerun_dialog_class_init (AssayRerunDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = assay_rerun_dialog_dispose;
  object_class->finalize = assay_rerun_dialog_finalize;
  window_class->close_request = assay_rerun_dialog_close_request;

  /* A run ended with a new session in DIR (complete, or what ran before a failure). */
  signals[SESSION_MADE] = g_signal_new ("session-made", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The analyst should see the session in DIR now; CHANGES: on its "What Changed" card. */
  signals[OPEN_SESSION] = g_signal_new ("open-session", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-rerun-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, window_title);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, close_button);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, run_button);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, stop_button);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, datasets_group);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, sources_group);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, message_label);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, open_button);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, cells_group);
  gtk_widget_class_bind_template_child (widget_class, AssayRerunDialog, cells_list);
  gtk_widget_class_install_action (widget_class, "rerun.run", NULL, assay_rerun_dialog_run_action);
  gtk_widget_class_install_action (widget_class, "rerun.stop", NULL, assay_rerun_dialog_stop_action);
  gtk_widget_class_install_action (widget_class, "rerun.open-what-ran", NULL, assay_rerun_dialog_open_what_ran_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
assay_rerun_dialog_init (AssayRerunDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->pairs = g_ptr_array_new_with_free_func ((GDestroyNotify) dataset_pair_free);
  self->sources = g_ptr_array_new_with_free_func ((GDestroyNotify) source_row_free);
  self->cells = g_ptr_array_new_with_free_func ((GDestroyNotify) cell_row_free);
}

gboolean
assay_rerun_dialog_session_queries (AssaySession *session)
{
  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      const AssaySessionCell *cell = assay_session_get_cell (session, i);

      if (cell->kind == ASSAY_CELL_KIND_SQL && cell->status == ASSAY_CELL_OK)
        return TRUE;
    }
  return FALSE;
}

AssayRerunDialog *
assay_rerun_dialog_new (GtkWindow    *parent,
                        AssaySession *origin,
                        GSettings    *settings)
{
  AssayRerunDialog *self;
  GPtrArray *datasets;

  g_return_val_if_fail (ASSAY_IS_SESSION (origin), NULL);
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (ASSAY_TYPE_RERUN_DIALOG, "transient-for", parent, NULL);
  self->origin = g_object_ref (origin);
  self->settings = g_object_ref (settings);
  adw_window_title_set_subtitle (self->window_title,
                                 assay_session_get_title (origin) != NULL ? assay_session_get_title (origin) : "");
  datasets = assay_session_get_datasets (origin);
  for (guint i = 0; i < datasets->len; i++)
    assay_rerun_dialog_add_pair (self, g_ptr_array_index (datasets, i));
  gtk_widget_set_visible (GTK_WIDGET (self->datasets_group), datasets->len > 0);
  /* The databases its queries are asked again of, when a SQL cell will run again. */
  if (assay_rerun_dialog_session_queries (origin))
    for (guint i = 0; i < assay_session_get_sources (origin)->len; i++)
      assay_rerun_dialog_add_source (self, g_ptr_array_index (assay_session_get_sources (origin), i));
  gtk_widget_set_visible (GTK_WIDGET (self->sources_group), self->sources->len > 0);
  assay_rerun_dialog_update (self);
  return self;
}
