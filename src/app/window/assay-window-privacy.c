/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What leaves the machine, in the window: the session's privacy mode (the stateful action
 * win.privacy-mode over the window's "privacy-mode", in the main menu) and the data page's
 * "Never Send Values to the Model" switch; the conversation keeps both in the session. */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "assay-window-private.h"

/* The data page marks the session's masked columns, file by file. */
void
assay_window_update_masks (AssayWindow *self)
{
  AssaySession *session = self->conversation != NULL ? assay_window_current_session (self) : NULL;
  GPtrArray *datasets;

  if (session == NULL || self->data_preview == NULL)
    return;
  datasets = assay_session_get_datasets (session);
  for (guint i = 0; i < datasets->len; i++)
    {
      const AssaySessionDataset *dataset = g_ptr_array_index (datasets, i);
      g_autofree char *path = assay_session_resolve (session, dataset->path);
      g_auto(GStrv) columns = assay_conversation_dup_masked_columns (self->conversation, dataset->name);
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      GPtrArray *masked = assay_session_get_masked_columns (session);
      gsize length = strlen (dataset->name);
      g_auto(GStrv) all = NULL;

      /* An SQLite dataset's tables' columns ("FILE.TABLE", COLUMN) as "TABLE.COLUMN". */
      g_strv_builder_addv (builder, (const char **) columns);
      for (guint j = 0; j < masked->len; j++)
        {
          const AssaySessionMask *mask = g_ptr_array_index (masked, j);

          if (strncmp (mask->dataset, dataset->name, length) == 0 && mask->dataset[length] == '.')
            {
              g_autofree char *key = g_strconcat (mask->dataset + length + 1, ".", mask->column, NULL);

              g_strv_builder_add (builder, key);
            }
        }
      all = g_strv_builder_end (builder);
      if (path != NULL)
        assay_data_preview_set_masked_columns (self->data_preview, path, (const char * const *) all);
    }
}

const char *
assay_window_get_privacy_mode_name (AssayWindow *self)
{
  /* The action asks before the conversation is made, and after it is gone. */
  if (self->conversation == NULL)
    return assay_privacy_mode_to_string (ASSAY_PRIVACY_FULL);
  return assay_privacy_mode_to_string (assay_conversation_get_privacy_mode (self->conversation));
}

/* win.privacy-mode sets it: refused (a toast says why) while a question runs, and
 * schema-only for a session that has sent values already. */
void
assay_window_set_privacy_mode_name (AssayWindow *self,
                                    const char  *name)
{
  g_autoptr(GError) error = NULL;
  AssayPrivacyMode mode;

  if (self->conversation == NULL || name == NULL || !assay_privacy_mode_from_string (name, &mode))
    return;
  if (mode == assay_conversation_get_privacy_mode (self->conversation))
    return;
  if (!assay_window_ensure_session (self))
    return;
  if (!assay_conversation_set_privacy_mode (self->conversation, mode, &error))
    assay_window_show_toast (self, error->message);
}

/* Masks COLUMN of the session's dataset NAME (a file's, or "FILE.TABLE" for an SQLite
 * dataset's table, as for a connection); NAME NULL: the file is not the session's. */
static void
assay_window_set_masked (AssayWindow *self,
                         const char  *name,
                         const char  *column,
                         gboolean     masked)
{
  AssayPrivacyMode before = assay_conversation_get_privacy_mode (self->conversation);
  g_autoptr(GError) error = NULL;

  if (name == NULL)
    assay_window_show_toast (self, _("This file is not among the session’s datasets"));
  else if (!assay_conversation_set_column_masked (self->conversation, name, column, masked, &error))
    assay_window_show_toast (self, error->message);
  else if (before == ASSAY_PRIVACY_FULL &&
           assay_conversation_get_privacy_mode (self->conversation) == ASSAY_PRIVACY_MASKED)
    {
      g_autofree char *text = g_strdup_printf (_("This session now masks columns: the model gets placeholders "
                                                 "instead of the values of “%s”"), column);

      assay_window_show_toast (self, text);
    }
  /* What holds, refused or not. */
  assay_window_update_masks (self);
}

static void
assay_window_mask_toggled_cb (AssayWindow *self,
                              const char  *path,
                              const char  *column,
                              gboolean     masked)
{
  g_autofree char *name = assay_conversation_dup_dataset_name (self->conversation, path);

  assay_window_set_masked (self, name, column, masked);
}

static void
assay_window_table_mask_toggled_cb (AssayWindow *self,
                                    const char  *path,
                                    const char  *table,
                                    const char  *column,
                                    gboolean     masked)
{
  g_autofree char *name = assay_conversation_dup_dataset_name (self->conversation, path);
  g_autofree char *dataset = name != NULL ? g_strconcat (name, ".", table, NULL) : NULL;

  assay_window_set_masked (self, dataset, column, masked);
}

static void
assay_window_privacy_mode_notify_cb (AssayWindow *self)
{
  g_object_notify (G_OBJECT (self), "privacy-mode");
}

void
assay_window_init_privacy (AssayWindow *self)
{
  g_signal_connect_swapped (self->conversation,
                            "notify::privacy-mode",
                            G_CALLBACK (assay_window_privacy_mode_notify_cb),
                            self);
  g_signal_connect_swapped (self->conversation,
                            "privacy-changed",
                            G_CALLBACK (assay_window_update_masks),
                            self);
}

/* The data page's switches mask the columns of the session's datasets. */
void
assay_window_watch_data_preview (AssayWindow *self)
{
  g_signal_connect_swapped (self->data_preview,
                            "mask-toggled",
                            G_CALLBACK (assay_window_mask_toggled_cb),
                            self);
  g_signal_connect_swapped (self->data_preview,
                            "table-mask-toggled",
                            G_CALLBACK (assay_window_table_mask_toggled_cb),
                            self);
}
