/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assay-artifact-list.h"
#include "assay-session.h"
#include "assay-session-path.h"

G_DEFINE_ENUM_TYPE (AssayArtifactKind, assay_artifact_kind,
  G_DEFINE_ENUM_VALUE (ASSAY_ARTIFACT_KIND_FIGURE, "figure"),
  G_DEFINE_ENUM_VALUE (ASSAY_ARTIFACT_KIND_TABLE, "table"),
  G_DEFINE_ENUM_VALUE (ASSAY_ARTIFACT_KIND_DOCUMENT, "document"),
  G_DEFINE_ENUM_VALUE (ASSAY_ARTIFACT_KIND_OTHER, "other"))

static const char * const figure_extensions[] = {
  "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "tif", "tiff", NULL
};
static const char * const table_extensions[] = {
  "csv", "tsv", "tab", "xlsx", "xls", "ods", "parquet", NULL
};
static const char * const document_extensions[] = {
  "pdf", "html", "htm", "md", "markdown", "docx", "odt", "pptx", "odp", "tex", "rst", NULL
};
static const char * const table_mimes[] = {
  "text/csv", "text/tab-separated-values", "application/vnd.ms-excel",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.oasis.opendocument.spreadsheet", "application/vnd.apache.parquet", NULL
};
static const char * const document_mimes[] = {
  "application/pdf", "text/html", "text/markdown", "text/x-tex",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.oasis.opendocument.text", NULL
};

AssayArtifactKind
assay_artifact_kind_guess (const char *mime,
                           const char *name)
{
  const char *dot;
  g_autofree char *extension = NULL;

  if (mime != NULL)
    {
      if (g_str_has_prefix (mime, "image/"))
        return ASSAY_ARTIFACT_KIND_FIGURE;
      if (g_strv_contains (table_mimes, mime))
        return ASSAY_ARTIFACT_KIND_TABLE;
      if (g_strv_contains (document_mimes, mime))
        return ASSAY_ARTIFACT_KIND_DOCUMENT;
    }

  if (name == NULL || (dot = strrchr (name, '.')) == NULL)
    return ASSAY_ARTIFACT_KIND_OTHER;
  extension = g_ascii_strdown (dot + 1, -1);
  if (g_strv_contains (figure_extensions, extension))
    return ASSAY_ARTIFACT_KIND_FIGURE;
  if (g_strv_contains (table_extensions, extension))
    return ASSAY_ARTIFACT_KIND_TABLE;
  if (g_strv_contains (document_extensions, extension))
    return ASSAY_ARTIFACT_KIND_DOCUMENT;
  return ASSAY_ARTIFACT_KIND_OTHER;
}

/* ---- AssayArtifactItem ------------------------------------------------------------------- */

struct _AssayArtifactItem
{
  GObject            parent_instance;

  char              *dir;        /* the session folder */
  char              *relative;
  char              *path;
  char              *name;
  char              *cell_id;
  char              *mime;
  guint64            bytes;
  guint              step;
  guint              order;
  AssayArtifactKind  kind;
};

G_DEFINE_FINAL_TYPE (AssayArtifactItem, assay_artifact_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_NAME,
  ITEM_PROP_PATH,
  ITEM_PROP_CELL_ID,
  ITEM_PROP_STEP,
  ITEM_PROP_MIME,
  ITEM_PROP_BYTES,
  ITEM_PROP_KIND,
  ITEM_PROP_ORDER,
  ITEM_N_PROPS
};

static GParamSpec *item_properties[ITEM_N_PROPS];

static void
assay_artifact_item_finalize (GObject *object)
{
  AssayArtifactItem *self = ASSAY_ARTIFACT_ITEM (object);

  g_free (self->dir);
  g_free (self->relative);
  g_free (self->path);
  g_free (self->name);
  g_free (self->cell_id);
  g_free (self->mime);

  G_OBJECT_CLASS (assay_artifact_item_parent_class)->finalize (object);
}

static void
assay_artifact_item_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AssayArtifactItem *self = ASSAY_ARTIFACT_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case ITEM_PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case ITEM_PROP_CELL_ID:
      g_value_set_string (value, self->cell_id);
      break;
    case ITEM_PROP_STEP:
      g_value_set_uint (value, self->step);
      break;
    case ITEM_PROP_MIME:
      g_value_set_string (value, self->mime);
      break;
    case ITEM_PROP_BYTES:
      g_value_set_uint64 (value, self->bytes);
      break;
    case ITEM_PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case ITEM_PROP_ORDER:
      g_value_set_uint (value, self->order);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_artifact_item_class_init (AssayArtifactItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = assay_artifact_item_finalize;
  object_class->get_property = assay_artifact_item_get_property;

  item_properties[ITEM_PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_CELL_ID] = g_param_spec_string ("cell-id", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_STEP] = g_param_spec_uint ("step", NULL, NULL, 0, G_MAXUINT, 0, flags);
  item_properties[ITEM_PROP_MIME] = g_param_spec_string ("mime", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_BYTES] = g_param_spec_uint64 ("bytes", NULL, NULL,
                                                          0, G_MAXUINT64, 0, flags);
  item_properties[ITEM_PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL,
                                                       ASSAY_TYPE_ARTIFACT_KIND,
                                                       ASSAY_ARTIFACT_KIND_OTHER, flags);
  item_properties[ITEM_PROP_ORDER] = g_param_spec_uint ("order", NULL, NULL,
                                                        0, G_MAXUINT, 0, flags);
  g_object_class_install_properties (object_class, ITEM_N_PROPS, item_properties);
}

static void
assay_artifact_item_init (AssayArtifactItem *self)
{
}

const char *
assay_artifact_item_get_name (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);
  return self->name;
}

const char *
assay_artifact_item_get_path (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);
  return self->path;
}

const char *
assay_artifact_item_get_relative_path (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);
  return self->relative;
}

const char *
assay_artifact_item_get_cell_id (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);
  return self->cell_id;
}

guint
assay_artifact_item_get_step (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), 0);
  return self->step;
}

const char *
assay_artifact_item_get_mime (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);
  return self->mime;
}

guint64
assay_artifact_item_get_bytes (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), 0);
  return self->bytes;
}

AssayArtifactKind
assay_artifact_item_get_kind (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), ASSAY_ARTIFACT_KIND_OTHER);
  return self->kind;
}

guint
assay_artifact_item_get_order (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), 0);
  return self->order;
}

GFile *
assay_artifact_item_get_file (AssayArtifactItem *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);
  return g_file_new_for_path (self->path);
}

GInputStream *
assay_artifact_item_open (AssayArtifactItem  *self,
                          GCancellable       *cancellable,
                          GError            **error)
{
  struct stat st;
  int fd;

  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  fd = assay_session_path_open_below (self->dir, self->relative, &st, error);
  if (fd < 0)
    return NULL;
  return g_unix_input_stream_new (fd, TRUE);
}

GBytes *
assay_artifact_item_load_bytes (AssayArtifactItem  *self,
                                gsize               max_bytes,
                                GCancellable       *cancellable,
                                GError            **error)
{
  struct stat st;
  g_autofree guint8 *data = NULL;
  gsize size;
  gsize done = 0;
  int fd;

  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (self), NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  fd = assay_session_path_open_below (self->dir, self->relative, &st, error);
  if (fd < 0)
    return NULL;
  if (max_bytes > 0 && (guint64) st.st_size > max_bytes)
    {
      g_autofree char *limit = g_format_size (max_bytes);

      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   "“%s” is bigger than %s", self->name, limit);
      return NULL;
    }

  size = st.st_size;
  data = g_malloc (MAX (size, 1));
  while (done < size)
    {
      gssize n = read (fd, data + done, MIN (size - done, 1 << 20));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot read “%s”: %s", self->name, g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;   /* it shrank meanwhile: what is there */
      done += n;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          close (fd);
          return NULL;
        }
    }
  close (fd);
  return g_bytes_new_take (g_steal_pointer (&data), done);
}

static void
assay_artifact_list_save_worker (GTask        *task,
                                 gpointer      source_object,
                                 gpointer      task_data,
                                 GCancellable *cancellable)
{
  AssayArtifactItem *self = source_object;
  GFile *destination = task_data;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GFileOutputStream) output = NULL;
  GError *error = NULL;

  input = assay_artifact_item_open (self, cancellable, &error);
  if (input == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  output = g_file_replace (destination, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                           cancellable, &error);
  if (output == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_output_stream_splice (G_OUTPUT_STREAM (output), input,
                              G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE |
                              G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                              cancellable, &error) < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

void
assay_artifact_item_save_async (AssayArtifactItem   *self,
                                GFile               *destination,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_ARTIFACT_ITEM (self));
  g_return_if_fail (G_IS_FILE (destination));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_artifact_item_save_async);
  g_task_set_task_data (task, g_object_ref (destination), g_object_unref);
  g_task_run_in_thread (task, assay_artifact_list_save_worker);
}

gboolean
assay_artifact_item_save_finish (AssayArtifactItem  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- AssayArtifactList ------------------------------------------------------------------- */

struct _AssayArtifactList
{
  GObject       parent_instance;

  AssaySession *session;
  GPtrArray    *items;   /* AssayArtifactItem*, oldest first; the model shows them reversed */
};

static void assay_artifact_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AssayArtifactList, assay_artifact_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      assay_artifact_list_model_init))

enum {
  LIST_PROP_0,
  LIST_PROP_N_ITEMS,
  LIST_N_PROPS
};

static GParamSpec *list_properties[LIST_N_PROPS];

static GType
assay_artifact_list_get_item_type (GListModel *model)
{
  return ASSAY_TYPE_ARTIFACT_ITEM;
}

static guint
assay_artifact_list_get_n_items (GListModel *model)
{
  return ASSAY_ARTIFACT_LIST (model)->items->len;
}

static gpointer
assay_artifact_list_get_item (GListModel *model,
                              guint       position)
{
  AssayArtifactList *self = ASSAY_ARTIFACT_LIST (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, self->items->len - 1 - position));
}

static void
assay_artifact_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = assay_artifact_list_get_item_type;
  iface->get_n_items = assay_artifact_list_get_n_items;
  iface->get_item = assay_artifact_list_get_item;
}

static void
assay_artifact_list_finalize (GObject *object)
{
  AssayArtifactList *self = ASSAY_ARTIFACT_LIST (object);

  g_clear_object (&self->session);
  g_clear_pointer (&self->items, g_ptr_array_unref);

  G_OBJECT_CLASS (assay_artifact_list_parent_class)->finalize (object);
}

static void
assay_artifact_list_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AssayArtifactList *self = ASSAY_ARTIFACT_LIST (object);

  switch (prop_id)
    {
    case LIST_PROP_N_ITEMS:
      g_value_set_uint (value, self->items->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_artifact_list_class_init (AssayArtifactListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = assay_artifact_list_finalize;
  object_class->get_property = assay_artifact_list_get_property;

  list_properties[LIST_PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, LIST_N_PROPS, list_properties);
}

static void
assay_artifact_list_init (AssayArtifactList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

/* Checks the entry and builds its item; NULL with ERROR when it is refused. */
static AssayArtifactItem *
assay_artifact_list_make_item (AssayArtifactList  *self,
                               const char         *cell_id,
                               const char         *name,
                               const char         *path,
                               const char         *mime,
                               GError            **error)
{
  const char *dir = assay_session_get_dir (self->session);
  g_autofree char *relative = NULL;
  AssaySessionCell *cell;
  AssayArtifactItem *item;
  struct stat st;
  int fd;

  if (path != NULL && g_path_is_absolute (path))
    {
      g_autofree char *prefix = g_strconcat (dir, G_DIR_SEPARATOR_S, NULL);

      if (!g_str_has_prefix (path, prefix))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       "“%s” is not inside the session folder", path);
          return NULL;
        }
      relative = g_strdup (path + strlen (prefix));
    }
  else
    relative = g_strdup (path);

  fd = assay_session_path_open_below (dir, relative, &st, error);
  if (fd < 0)
    return NULL;
  close (fd);

  item = g_object_new (ASSAY_TYPE_ARTIFACT_ITEM, NULL);
  item->dir = g_strdup (dir);
  item->path = assay_session_resolve (self->session, relative);
  item->relative = g_steal_pointer (&relative);
  item->name = g_strdup (name != NULL ? name : item->relative);
  item->cell_id = g_strdup (cell_id);
  item->bytes = st.st_size;
  if (mime != NULL && *mime != '\0')
    item->mime = g_strdup (mime);
  else
    {
      g_autofree char *type = g_content_type_guess (item->name, NULL, 0, NULL);

      item->mime = g_content_type_get_mime_type (type);
      if (item->mime == NULL)
        item->mime = g_strdup ("application/octet-stream");
    }
  item->kind = assay_artifact_kind_guess (item->mime, item->name);
  if (cell_id != NULL && (cell = assay_session_find_cell (self->session, cell_id)) != NULL)
    item->step = cell->step;
  return item;
}

static gboolean
assay_artifact_list_contains_path (AssayArtifactList *self,
                                   const char        *relative)
{
  for (guint i = 0; i < self->items->len; i++)
    {
      AssayArtifactItem *item = g_ptr_array_index (self->items, i);

      if (g_str_equal (item->relative, relative))
        return TRUE;
    }
  return FALSE;
}

static gboolean
assay_artifact_list_append (AssayArtifactList *self,
                            AssayArtifactItem *item)
{
  if (assay_artifact_list_contains_path (self, item->relative))
    {
      g_object_unref (item);
      return FALSE;
    }
  item->order = self->items->len;
  g_ptr_array_add (self->items, item);
  return TRUE;
}

AssayArtifactList *
assay_artifact_list_new_for_session (AssaySession *session)
{
  AssayArtifactList *self;

  g_return_val_if_fail (ASSAY_IS_SESSION (session), NULL);

  self = g_object_new (ASSAY_TYPE_ARTIFACT_LIST, NULL);
  self->session = g_object_ref (session);

  for (guint i = 0; i < assay_session_get_n_cells (session); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (session, i);

      for (guint j = 0; cell->artifacts != NULL && j < cell->artifacts->len; j++)
        {
          AssayArtifact *artifact = g_ptr_array_index (cell->artifacts, j);
          g_autoptr(GError) error = NULL;
          AssayArtifactItem *item;

          item = assay_artifact_list_make_item (self,
                                                cell->id,
                                                artifact->name,
                                                artifact->path,
                                                artifact->mime,
                                                &error);
          if (item == NULL)
            {
              g_debug ("Artifact “%s” of cell %s left out: %s",
                       artifact->name, cell->id, error->message);
              continue;
            }
          assay_artifact_list_append (self, item);
        }
    }
  return self;
}

AssaySession *
assay_artifact_list_get_session (AssayArtifactList *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_LIST (self), NULL);
  return self->session;
}

gboolean
assay_artifact_list_add (AssayArtifactList  *self,
                         const char         *cell_id,
                         const char         *name,
                         const char         *path,
                         GError            **error)
{
  AssayArtifactItem *item;
  const char *mime = NULL;
  AssaySessionCell *cell;

  g_return_val_if_fail (ASSAY_IS_ARTIFACT_LIST (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  /* The cell's record knows the MIME type the sandbox reported. */
  if (cell_id != NULL && (cell = assay_session_find_cell (self->session, cell_id)) != NULL)
    {
      for (guint i = 0; cell->artifacts != NULL && i < cell->artifacts->len; i++)
        {
          AssayArtifact *artifact = g_ptr_array_index (cell->artifacts, i);

          if (g_strcmp0 (artifact->name, name) == 0)
            mime = artifact->mime;
        }
    }

  item = assay_artifact_list_make_item (self, cell_id, name, path, mime, error);
  if (item == NULL)
    return FALSE;
  if (assay_artifact_list_append (self, item))
    {
      g_list_model_items_changed (G_LIST_MODEL (self), 0, 0, 1);
      g_object_notify_by_pspec (G_OBJECT (self), list_properties[LIST_PROP_N_ITEMS]);
    }
  return TRUE;
}
