/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Files into the window: dropped, opened with the file chooser or named on the command line;
 * each is copied into the session in a worker, then recorded and profiled. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-sqlite-file.h"
#include "assay-window-private.h"

/* A table by its name, or an SQLite database by its header (16 bytes read), whatever its name. */
static gboolean
assay_window_is_supported (const char *name,
                           const char *path)
{
  static const char *extensions[] = { ".csv", ".tsv", ".txt", ".xlsx", ".db", ".sqlite", ".sqlite3", ".db3" };
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (guint i = 0; i < G_N_ELEMENTS (extensions); i++)
    if (g_str_has_suffix (lower, extensions[i]))
      return TRUE;
  return path != NULL && assay_sqlite_file_is_database (path);
}

/* Files dropped together: each is copied into the session in a worker (a large file must
 * not hold up the window), then recorded and described in the order they arrive. */
typedef struct
{
  AssayWindow  *self;       /* a strong reference while copies run */
  AssaySession *session;    /* the session they were dropped into */
  GString      *added;
  guint         pending;
} AddBatch;

static void
assay_window_add_batch_finish (AddBatch *batch)
{
  AssayWindow *self = batch->self;

  if (batch->added->len > 0 && assay_window_current_session (self) == batch->session &&
      !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      g_autofree char *text = g_strdup_printf (_("Added %s to the session"), batch->added->str);

      assay_window_show_toast (self, text);
      /* The agent saved it already; otherwise it is saved in turn, then listed. */
      if (assay_conversation_get_agent (self->conversation) != NULL)
        assay_session_store_reload (self->store);
      else
        assay_conversation_save (self->conversation);
      assay_chat_view_focus_composer (self->chat_view);
    }
  self->adding_files--;
  g_string_free (batch->added, TRUE);
  g_object_unref (batch->session);
  g_object_unref (batch->self);
  g_free (batch);
}

typedef struct
{
  AddBatch *batch;
  char     *name;
} AddFile;

static void
assay_window_file_copied_cb (GObject      *source,
                             GAsyncResult *result,
                             gpointer      user_data)
{
  AddFile *file = user_data;
  AddBatch *batch = file->batch;
  AssayWindow *self = batch->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = assay_session_copy_in_finish (ASSAY_SESSION (source), result, &error);
  g_autofree char *name = g_steal_pointer (&file->name);
  gboolean ok = FALSE;

  g_free (file);

  /* Another session was opened meanwhile (or the window closed): the copy stays in the
   * folder it was made for. */
  if (assay_window_current_session (self) != batch->session || gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      if (--batch->pending == 0)
        assay_window_add_batch_finish (batch);
      return;
    }
  /* Recorded (the model is told), then profiled for its prompt. */
  if (copy != NULL)
    ok = assay_conversation_add_dataset (self->conversation, copy, &error);
  if (!ok)
    {
      g_autofree char *text = NULL;

      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          text = g_strdup_printf (_("“%s” could not be added: %s"), name, error->message);
          assay_window_show_toast (self, text);
        }
    }
  else
    {
      /* A data page not made yet shows the session's datasets when it is. */
      if (self->data_preview != NULL)
        assay_data_preview_add_file (self->data_preview, copy);
      assay_window_update_data_page (self);
      g_string_append_printf (batch->added, "%s%s", batch->added->len ? ", " : "", name);
    }
  if (--batch->pending == 0)
    assay_window_add_batch_finish (batch);
}

gboolean
assay_window_get_adding_files (AssayWindow *self)
{
  g_return_val_if_fail (ASSAY_IS_WINDOW (self), FALSE);
  return self->adding_files > 0;
}

void
assay_window_add_files (AssayWindow  *self,
                        GFile       **files,
                        guint         n_files)
{
  AddBatch *batch = NULL;

  g_return_if_fail (ASSAY_IS_WINDOW (self));

  if (self->opening_dir != NULL)
    {
      assay_window_show_toast (self, _("A session is still opening; add the files once it is open"));
      return;
    }
  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);
      g_autofree char *name = g_file_get_basename (files[i]);

      if (path == NULL)
        {
          g_autofree char *text = g_strdup_printf (_("“%s” is not a file on this computer; Assay reads local files only"), name);

          assay_window_show_toast (self, text);
          continue;
        }
      if (!assay_window_is_supported (name, path))
        {
          g_autofree char *text = g_strdup_printf (_("“%s” cannot be used: Assay reads CSV, TSV, TXT and XLSX files "
                                                     "and SQLite databases"), name);

          assay_window_show_toast (self, text);
          continue;
        }
      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          g_autofree char *text = g_strdup_printf (_("“%s” is not a readable file"), name);

          assay_window_show_toast (self, text);
          continue;
        }
      if (!assay_window_ensure_session (self))
        break;
      if (batch == NULL)
        {
          batch = g_new0 (AddBatch, 1);
          batch->self = g_object_ref (self);
          batch->session = g_object_ref (assay_window_current_session (self));
          batch->added = g_string_new (NULL);
          self->adding_files++;
        }
      {
        AddFile *file = g_new0 (AddFile, 1);

        file->batch = batch;
        file->name = g_steal_pointer (&name);
        batch->pending++;
        assay_session_copy_in_async (assay_window_current_session (self),
                                     path,
                                     self->cancellable,
                                     assay_window_file_copied_cb,
                                     file);
      }
    }
}

static gboolean
assay_window_drop_cb (GtkDropTarget *target,
                      const GValue  *value,
                      double         x,
                      double         y,
                      AssayWindow   *self)
{
  GSList *list;
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  list = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = list; l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);
  assay_window_add_files (self, (GFile **) files->pdata, files->len);
  g_slist_free (list);
  return TRUE;
}

void
assay_window_init_dnd (AssayWindow *self)
{
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (drop, "drop", G_CALLBACK (assay_window_drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
