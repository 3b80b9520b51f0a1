/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include "assay-row-model.h"

#define CACHE_SIZE        512
#define ROWS_PER_BLOCK    32     /* the index's checkpoint interval */
#define BLOCK_CACHE_SIZE  8      /* a far jump asks for about 200 rows in order */
#define FIRST_POLL_MS     16
#define POLL_MS           100

/* ---- AssayRow ---------------------------------------------------------------------- */

struct _AssayRow
{
  GObject        parent_instance;

  AssayCsvIndex *index;
  guint64        position;
  GStrv          fields;     /* given by the model's block, else read on first use */
  guint          n_fields;
};

G_DEFINE_FINAL_TYPE (AssayRow, assay_row, G_TYPE_OBJECT)

static gint n_alive;

static void
assay_row_finalize (GObject *object)
{
  AssayRow *self = ASSAY_ROW (object);

  g_clear_object (&self->index);
  g_clear_pointer (&self->fields, g_strfreev);
  g_atomic_int_dec_and_test (&n_alive);

  G_OBJECT_CLASS (assay_row_parent_class)->finalize (object);
}

static void
assay_row_class_init (AssayRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_row_finalize;
}

static void
assay_row_init (AssayRow *self)
{
  g_atomic_int_inc (&n_alive);
}

static AssayRow *
assay_row_new (AssayCsvIndex *index,
               guint64        position)
{
  AssayRow *self = g_object_new (ASSAY_TYPE_ROW, NULL);

  self->index = g_object_ref (index);
  self->position = position;
  return self;
}

static void
assay_row_model_ensure_fields (AssayRow *self)
{
  if (self->fields != NULL)
    return;
  self->fields = assay_csv_index_get_row (self->index, self->position);
  if (self->fields == NULL)
    self->fields = g_new0 (char *, 1);
  self->n_fields = g_strv_length (self->fields);
}

static void
assay_row_model_set_fields (AssayRow *self,
                            GStrv     fields)
{
  g_assert (self->fields == NULL);
  self->fields = fields;
  self->n_fields = g_strv_length (fields);
}

guint64
assay_row_get_index (AssayRow *self)
{
  g_return_val_if_fail (ASSAY_IS_ROW (self), 0);
  return self->position;
}

guint
assay_row_get_n_fields (AssayRow *self)
{
  g_return_val_if_fail (ASSAY_IS_ROW (self), 0);
  assay_row_model_ensure_fields (self);
  return self->n_fields;
}

const char *
assay_row_get_field (AssayRow *self,
                     guint     column)
{
  g_return_val_if_fail (ASSAY_IS_ROW (self), "");
  assay_row_model_ensure_fields (self);
  return column < self->n_fields ? self->fields[column] : "";
}

guint
assay_row_get_n_alive (void)
{
  return g_atomic_int_get (&n_alive);
}

/* ---- AssayRowModel ----------------------------------------------------------------- */

struct _AssayRowModel
{
  GObject        parent_instance;

  AssayCsvIndex *index;
  GCancellable  *cancellable;
  guint          poll_id;
  guint          n_items;       /* what the model has announced */
  guint          n_batches;
  gboolean       complete;
  GError        *error;

  /* The LRU cache: position → GList link in RECENT, whose data is an AssayRow. */
  GHashTable    *cache;
  GQueue         recent;

  /* Rows are read a block (ROWS_PER_BLOCK rows from a checkpoint) at a time, in one pass over
   * the file; the rows of the last few blocks wait here for their AssayRows to be made.
   * Block number → RowBlock, and the blocks, most recently used first. */
  GHashTable    *blocks;
  GQueue         recent_blocks;
};

typedef struct
{
  guint64    number;
  GPtrArray *rows;     /* GStrv, NULL once an AssayRow took it */
} RowBlock;

static void
assay_row_model_row_block_free (RowBlock *block)
{
  g_ptr_array_unref (block->rows);
  g_free (block);
}

enum {
  PROP_0,
  PROP_N_ITEMS,
  PROP_PROGRESS,
  PROP_COMPLETE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
assay_row_model_get_item_type (GListModel *model)
{
  return ASSAY_TYPE_ROW;
}

static guint
assay_row_model_get_n_items (GListModel *model)
{
  return ASSAY_ROW_MODEL (model)->n_items;
}

/* Gives ROW its fields from its block, reading the block when it is not cached. A block read
 * before the index reached its end is not kept (its later rows are not there yet); a row whose
 * fields were taken already (its AssayRow was made before and dropped from the cache since)
 * reads them itself on first use. A far jump in the view asks for a few hundred consecutive
 * rows: a few blocks, each read once. */
static void
assay_row_model_take_fields (AssayRowModel *self,
                             AssayRow      *row)
{
  guint64 number = row->position / ROWS_PER_BLOCK;
  guint offset = row->position % ROWS_PER_BLOCK;
  RowBlock *block = g_hash_table_lookup (self->blocks, &number);

  if (block == NULL)
    {
      gboolean complete = assay_csv_index_is_complete (self->index);
      g_autoptr(GPtrArray) rows = assay_csv_index_get_rows (self->index, number * ROWS_PER_BLOCK, ROWS_PER_BLOCK);

      if (rows == NULL)
        return;
      if (rows->len < ROWS_PER_BLOCK && !complete)
        {
          if (offset < rows->len)
            assay_row_model_set_fields (row, g_steal_pointer (&g_ptr_array_index (rows, offset)));
          return;
        }
      block = g_new0 (RowBlock, 1);
      block->number = number;
      block->rows = g_steal_pointer (&rows);
      g_hash_table_insert (self->blocks, &block->number, block);
      g_queue_push_head (&self->recent_blocks, block);
      while (self->recent_blocks.length > BLOCK_CACHE_SIZE)
        g_hash_table_remove (self->blocks, &((RowBlock *) g_queue_pop_tail (&self->recent_blocks))->number);
    }
  else
    {
      g_queue_remove (&self->recent_blocks, block);
      g_queue_push_head (&self->recent_blocks, block);
    }
  if (offset < block->rows->len && g_ptr_array_index (block->rows, offset) != NULL)
    assay_row_model_set_fields (row, g_steal_pointer (&g_ptr_array_index (block->rows, offset)));
}

static gpointer
assay_row_model_get_item (GListModel *model,
                          guint       position)
{
  AssayRowModel *self = ASSAY_ROW_MODEL (model);
  GList *link;
  AssayRow *row;

  if (position >= self->n_items)
    return NULL;

  link = g_hash_table_lookup (self->cache, GUINT_TO_POINTER (position));
  if (link != NULL)
    {
      g_queue_unlink (&self->recent, link);
      g_queue_push_head_link (&self->recent, link);
      return g_object_ref (link->data);
    }

  row = assay_row_new (self->index, position);
  assay_row_model_take_fields (self, row);
  g_queue_push_head (&self->recent, row);
  g_hash_table_insert (self->cache, GUINT_TO_POINTER (position), self->recent.head);
  while (self->recent.length > CACHE_SIZE)
    {
      AssayRow *old = g_queue_pop_tail (&self->recent);

      g_hash_table_remove (self->cache, GUINT_TO_POINTER ((guint) old->position));
      g_object_unref (old);
    }
  return g_object_ref (row);
}

static void
assay_row_model_list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = assay_row_model_get_item_type;
  iface->get_n_items = assay_row_model_get_n_items;
  iface->get_item = assay_row_model_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (AssayRowModel, assay_row_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      assay_row_model_list_model_iface_init))

static void
assay_row_model_dispose (GObject *object)
{
  AssayRowModel *self = ASSAY_ROW_MODEL (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_hash_table_remove_all (self->cache);
  g_queue_clear_full (&self->recent, g_object_unref);
  g_queue_clear (&self->recent_blocks);
  g_hash_table_remove_all (self->blocks);

  G_OBJECT_CLASS (assay_row_model_parent_class)->dispose (object);
}

static void
assay_row_model_finalize (GObject *object)
{
  AssayRowModel *self = ASSAY_ROW_MODEL (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->index);
  g_clear_error (&self->error);
  g_clear_pointer (&self->cache, g_hash_table_unref);
  g_clear_pointer (&self->blocks, g_hash_table_unref);

  G_OBJECT_CLASS (assay_row_model_parent_class)->finalize (object);
}

static void
assay_row_model_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  AssayRowModel *self = ASSAY_ROW_MODEL (object);

  switch (prop_id)
    {
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->n_items);
      break;
    case PROP_PROGRESS:
      g_value_set_double (value, assay_row_model_get_progress (self));
      break;
    case PROP_COMPLETE:
      g_value_set_boolean (value, self->complete);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_row_model_class_init (AssayRowModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = assay_row_model_dispose;
  object_class->finalize = assay_row_model_finalize;
  object_class->get_property = assay_row_model_get_property;

  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROGRESS] =
    g_param_spec_double ("progress", NULL, NULL, 0, 1, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_COMPLETE] =
    g_param_spec_boolean ("complete", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
assay_row_model_init (AssayRowModel *self)
{
  self->cancellable = g_cancellable_new ();
  self->cache = g_hash_table_new (NULL, NULL);
  self->blocks = g_hash_table_new_full (g_int64_hash,
                                        g_int64_equal,
                                        NULL,
                                        (GDestroyNotify) assay_row_model_row_block_free);
}

/* Announces the rows indexed since the last batch. */
static void
assay_row_model_publish (AssayRowModel *self)
{
  guint64 indexed = assay_csv_index_get_n_rows_indexed (self->index);
  guint old = self->n_items;

  /* A GListModel counts in guint: a file of more than 4 billion rows shows the first ones. */
  self->n_items = (guint) MIN (indexed, (guint64) G_MAXUINT);
  if (self->n_items != old)
    {
      self->n_batches++;
      g_list_model_items_changed (G_LIST_MODEL (self), old, 0, self->n_items - old);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
}

static gboolean assay_row_model_poll_cb (gpointer user_data);

static void
assay_row_model_schedule_poll (AssayRowModel *self)
{
  self->poll_id = g_timeout_add (self->n_items == 0 ? FIRST_POLL_MS : POLL_MS, assay_row_model_poll_cb, self);
}

static gboolean
assay_row_model_poll_cb (gpointer user_data)
{
  AssayRowModel *self = user_data;

  self->poll_id = 0;
  assay_row_model_publish (self);
  if (!self->complete)
    assay_row_model_schedule_poll (self);
  return G_SOURCE_REMOVE;
}

static void
assay_row_model_index_built (GObject      *source,
                             GAsyncResult *result,
                             gpointer      user_data)
{
  AssayRowModel *self;
  g_autoptr(GError) error = NULL;
  gboolean ok = assay_csv_index_build_finish (ASSAY_CSV_INDEX (source), result, &error);

  /* The model may be gone: it cancels in dispose and is then never touched. */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;
  self = user_data;
  if (!ok)
    self->error = g_steal_pointer (&error);
  self->complete = TRUE;
  g_clear_handle_id (&self->poll_id, g_source_remove);
  assay_row_model_publish (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETE]);
}

AssayRowModel *
assay_row_model_new (AssayCsvIndex *index)
{
  AssayRowModel *self;

  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (index), NULL);

  self = g_object_new (ASSAY_TYPE_ROW_MODEL, NULL);
  self->index = g_object_ref (index);
  if (assay_csv_index_is_complete (index))
    {
      self->complete = TRUE;
      self->n_items = (guint) MIN (assay_csv_index_get_n_rows_indexed (index), (guint64) G_MAXUINT);
    }
  else
    {
      assay_csv_index_build_async (index, self->cancellable, assay_row_model_index_built, self);
      assay_row_model_schedule_poll (self);
    }
  return self;
}

AssayCsvIndex *
assay_row_model_get_index (AssayRowModel *self)
{
  g_return_val_if_fail (ASSAY_IS_ROW_MODEL (self), NULL);
  return self->index;
}

double
assay_row_model_get_progress (AssayRowModel *self)
{
  g_return_val_if_fail (ASSAY_IS_ROW_MODEL (self), 0);
  return self->complete ? 1.0 : assay_csv_index_get_progress (self->index);
}

gboolean
assay_row_model_is_complete (AssayRowModel *self)
{
  g_return_val_if_fail (ASSAY_IS_ROW_MODEL (self), FALSE);
  return self->complete;
}

const GError *
assay_row_model_get_error (AssayRowModel *self)
{
  g_return_val_if_fail (ASSAY_IS_ROW_MODEL (self), NULL);
  return self->error;
}

guint
assay_row_model_get_n_batches (AssayRowModel *self)
{
  g_return_val_if_fail (ASSAY_IS_ROW_MODEL (self), 0);
  return self->n_batches;
}
