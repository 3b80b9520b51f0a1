/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "assay-csv-index.h"
#include "assay-mapped.h"
#include "assay-dataset.h"
#include "assay-csv-reader.h"
#include "assay-data-text.h"

#define ROWS_PER_CHECKPOINT   32
#define CHECKPOINTS_PER_BLOCK 4096
#define MAX_FIELD_CHARS       4096
#define SNIFF_BYTES           (1024 * 1024)
#define CONVERT_CHUNK         (1024 * 1024)

struct _AssayCsvIndex
{
  GObject          parent_instance;

  char            *path;
  AssayMapped     *mapped;
  GBytes          *converted;
  const char      *text;
  gsize            text_len;       /* published with release semantics while converting */

  /* Text in another encoding is converted to UTF-8 by the worker, ahead of the indexing,
   * into a reserved region that never moves, so rows can be read while it grows. */
  gboolean         progressive;
  char            *iconv_name;
  const char      *raw;
  gsize            raw_len;
  char            *region;
  gsize            region_len;
  gsize            raw_done;
  AssayCsvDialect *dialect;
  GPtrArray       *names;          /* column names, NULL-terminated */
  gsize            data_start;     /* first byte after the header */

  /* Written by the worker, read by anyone once published. */
  guint64        **blocks;         /* checkpoint offsets */
  gsize            n_blocks_max;
  guint64          n_rows;         /* published with release semantics */
  gsize            indexed_bytes;
  gint             complete;
  gboolean         building;
};

G_DEFINE_FINAL_TYPE (AssayCsvIndex, assay_csv_index, G_TYPE_OBJECT)

static void
assay_csv_index_finalize (GObject *object)
{
  AssayCsvIndex *self = ASSAY_CSV_INDEX (object);

  if (self->blocks != NULL)
    for (gsize i = 0; i < self->n_blocks_max; i++)
      g_free (self->blocks[i]);
  g_free (self->blocks);
  g_clear_pointer (&self->names, g_ptr_array_unref);
  g_clear_pointer (&self->dialect, assay_csv_dialect_free);
  g_clear_pointer (&self->converted, g_bytes_unref);
  if (self->region != NULL)
    munmap (self->region, self->region_len);
  g_clear_pointer (&self->mapped, assay_mapped_free);
  g_free (self->iconv_name);
  g_free (self->path);

  G_OBJECT_CLASS (assay_csv_index_parent_class)->finalize (object);
}

static void
assay_csv_index_class_init (AssayCsvIndexClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_csv_index_finalize;
}

static void
assay_csv_index_init (AssayCsvIndex *self)
{
}

static char *
assay_csv_index_iconv_name_for (const AssayCsvDialect *dialect)
{
  char *name = g_ascii_strup (dialect->encoding, -1);

  if (g_str_equal (name, "X-MAC-CYRILLIC"))
    {
      g_free (name);
      name = g_strdup ("MAC-CYRILLIC");
    }
  return name;
}

AssayCsvIndex *
assay_csv_index_new (const char  *path,
                     GError     **error)
{
  return assay_csv_index_new_with_dialect (path, NULL, error);
}

static AssayCsvIndex *assay_csv_index_index_new (const char             *path,
                                                  int                     fd,
                                                  const AssayCsvDialect  *override,
                                                  GError                **error);

AssayCsvIndex *
assay_csv_index_new_with_dialect (const char             *path,
                                  const AssayCsvDialect  *override,
                                  GError                **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  return assay_csv_index_index_new (path, -1, override, error);
}

AssayCsvIndex *
assay_csv_index_new_for_fd (int                     fd,
                            const char             *path,
                            const AssayCsvDialect  *override,
                            GError                **error)
{
  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  return assay_csv_index_index_new (path, fd, override, error);
}

static AssayCsvIndex *
assay_csv_index_index_new (const char             *path,
                           int                     fd,
                           const AssayCsvDialect  *override,
                           GError                **error)
{
  g_autoptr(AssayCsvIndex) self = g_object_new (ASSAY_TYPE_CSV_INDEX, NULL);
  AssayCsvReader reader;
  g_autoptr(GString) scratch = g_string_new (NULL);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GBytes) sample = NULL;
  const char *data;
  const char *header_text;
  gsize header_len;
  gsize len;

  self->path = g_strdup (path);
  self->mapped = fd >= 0 ? assay_mapped_new_for_fd (fd, path, error) : assay_mapped_new (path, error);
  if (self->mapped == NULL)
    return NULL;
  data = assay_mapped_get_data (self->mapped);
  len = assay_mapped_get_length (self->mapped);
  if (data == NULL)
    data = "";

  self->dialect = g_new0 (AssayCsvDialect, 1);
  if (override != NULL && override->encoding != NULL)
    {
      if (!assay_csv_force_encoding (data, len, override->encoding, self->dialect, error))
        return NULL;
    }
  else if (!assay_csv_detect_encoding (data, len, self->dialect, error))
    return NULL;
  if (g_str_equal (self->dialect->encoding, "utf-8"))
    {
      self->text = data + self->dialect->bom_len;
      self->text_len = len - self->dialect->bom_len;
      if (!assay_csv_sniff_text_with_override (self->text, self->text_len, override, self->dialect, error))
        return NULL;
      header_text = self->text;
      header_len = self->text_len;
    }
  else
    {
      /* Sniff a converted start now; the worker converts the rest while it indexes. */
      gsize sample_len;

      self->progressive = TRUE;
      self->iconv_name = assay_csv_index_iconv_name_for (self->dialect);
      self->raw = data + self->dialect->bom_len;
      self->raw_len = len - self->dialect->bom_len;
      sample = assay_data_convert_to_utf8 (self->raw, MIN (self->raw_len, SNIFF_BYTES),
                                           self->iconv_name, error);
      if (sample == NULL)
        return NULL;
      header_text = g_bytes_get_data (sample, &sample_len);
      header_len = sample_len;
      if (header_len == 0 || memchr (header_text, '\0', header_len) != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       header_len == 0 ? _("the file is empty")
                                        : _("the file contains NUL characters; it is not a text table"));
          return NULL;
        }
      if (!assay_csv_sniff_text_with_override (header_text, header_len, override, self->dialect, error))
        return NULL;
      /* UTF-8 takes at most three bytes per byte of any input encoding (U+FFFD included). */
      self->region_len = self->raw_len * 3 + 16;
      self->region = mmap (NULL, self->region_len, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (self->region == MAP_FAILED)
        {
          self->region = NULL;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                       _("cannot reserve memory to convert the file: %s"), g_strerror (errno));
          return NULL;
        }
      self->text = self->region;
      self->text_len = 0;
    }

  self->names = g_ptr_array_new_with_free_func (g_free);
  assay_csv_reader_init (&reader, header_text, header_len, self->dialect->delimiter,
                         self->dialect->quote, self->dialect->backslash_escape);
  reader.pos = self->data_start = MIN (self->dialect->preamble_len, header_len);
  if (assay_csv_reader_next (&reader, &local_error))
    {
      /* The preview makes a column per field: a table too wide to profile is refused here
       * too, with the same reason, before a window tries to lay out 150,000 columns. */
      if (reader.n_fields > ASSAY_DATASET_MAX_COLUMNS)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("the table has %u columns; Assay reads tables of at most %u columns"),
                       (guint) reader.n_fields, ASSAY_DATASET_MAX_COLUMNS);
          assay_csv_reader_clear (&reader);
          return NULL;
        }
      for (guint i = 0; i < reader.n_fields; i++)
        {
          gsize n;
          const char *s;

          g_string_truncate (scratch, 0);
          s = assay_csv_reader_field_text (&reader, &reader.fields[i], scratch, &n);
          if (self->dialect->header)
            g_ptr_array_add (self->names, assay_data_sanitize (s, n, 200));
          else
            g_ptr_array_add (self->names, g_strdup_printf ("column_%u", i + 1));
        }
      if (self->dialect->header)
        self->data_start = reader.pos;
    }
  assay_csv_reader_clear (&reader);
  g_ptr_array_add (self->names, NULL);

  self->n_blocks_max = (self->progressive ? self->region_len : self->text_len) /
                       ((gsize) ROWS_PER_CHECKPOINT * CHECKPOINTS_PER_BLOCK) + 2;
  self->blocks = g_new0 (guint64 *, self->n_blocks_max);
  return g_steal_pointer (&self);
}

const AssayCsvDialect *
assay_csv_index_get_dialect (AssayCsvIndex *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), NULL);
  return self->dialect;
}

const char *
assay_csv_index_get_path (AssayCsvIndex *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), NULL);
  return self->path;
}

guint
assay_csv_index_get_n_columns (AssayCsvIndex *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), 0);
  return self->names->len - 1;
}

const char * const *
assay_csv_index_get_column_names (AssayCsvIndex *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), NULL);
  return (const char * const *) self->names->pdata;
}

guint64
assay_csv_index_get_n_rows_indexed (AssayCsvIndex *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), 0);
  return __atomic_load_n (&self->n_rows, __ATOMIC_ACQUIRE);
}

gboolean
assay_csv_index_is_complete (AssayCsvIndex *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), FALSE);
  return g_atomic_int_get (&self->complete);
}

double
assay_csv_index_get_progress (AssayCsvIndex *self)
{
  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), 0);
  if (g_atomic_int_get (&self->complete))
    return 1.0;
  if (self->progressive)
    return self->raw_len > 0 ? (double) __atomic_load_n (&self->raw_done, __ATOMIC_RELAXED) / self->raw_len : 1.0;
  return self->text_len > 0 ? (double) __atomic_load_n (&self->indexed_bytes, __ATOMIC_RELAXED) / self->text_len : 1.0;
}

/* Converts the next chunk of raw text into the region; FALSE when all of it is done. */
static gboolean
assay_csv_index_convert_more (AssayCsvIndex *self,
                              GIConv         cd,
                              gsize         *produced)
{
  gsize unit = g_str_has_prefix (self->iconv_name, "UTF-16") ? 2 : g_str_has_prefix (self->iconv_name, "UTF-32") ? 4 : 1;
  char *in = (char *) self->raw + self->raw_done;
  gsize in_left = MIN (CONVERT_CHUNK, self->raw_len - self->raw_done);
  gboolean last = self->raw_done + in_left == self->raw_len;
  char *out = self->region + *produced;
  gsize out_left = self->region_len - *produced - 4;

  if (in_left == 0)
    return FALSE;
  while (in_left > 0)
    {
      gsize r = g_iconv (cd, &in, &in_left, &out, &out_left);

      if (r != (gsize) -1)
        break;
      if (errno == EINVAL && !last)
        break;   /* a character cut by the chunk: the next chunk takes it */
      if (errno == E2BIG || out_left < 3)
        break;
      memcpy (out, "\xEF\xBF\xBD", 3);
      out += 3;
      out_left -= 3;
      in += MIN (unit, in_left);
      in_left -= MIN (unit, in_left);
    }
  __atomic_store_n (&self->raw_done, (gsize) (in - self->raw), __ATOMIC_RELAXED);
  *produced = out - self->region;
  __atomic_store_n (&self->text_len, *produced, __ATOMIC_RELEASE);
  return TRUE;
}

gboolean
assay_csv_index_build (AssayCsvIndex  *self,
                       GCancellable   *cancellable,
                       GError        **error)
{
  AssayCsvReader reader;
  guint64 rows = 0;
  gboolean ok = TRUE;
  gboolean converting;
  gsize produced = 0;
  GIConv cd = (GIConv) -1;

  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), FALSE);
  if (g_atomic_int_get (&self->complete) || self->building)
    return TRUE;
  self->building = TRUE;

  converting = self->progressive;
  if (converting)
    {
      cd = g_iconv_open ("UTF-8", self->iconv_name);
      if (cd == (GIConv) -1)
        {
          g_set_error (error,
                       G_IO_ERROR,
                       G_IO_ERROR_NOT_SUPPORTED,
                       _("cannot convert from %s"),
                       self->iconv_name);
          g_atomic_int_set (&self->complete, TRUE);
          return FALSE;
        }
      while (produced < self->data_start + 1 && assay_csv_index_convert_more (self, cd, &produced))
        ;
    }

  assay_csv_reader_init (&reader, self->text, converting ? produced : self->text_len,
                         self->dialect->delimiter, self->dialect->quote, self->dialect->backslash_escape);
  reader.pos = MIN (self->data_start, reader.len);
  for (;;)
    {
      gsize start;
      gsize before = reader.pos;
      guint64 line = reader.line;
      g_autoptr(GError) local_error = NULL;
      gboolean got = assay_csv_reader_next (&reader, &local_error);

      /* While converting, a record that reaches the end of the converted text may be cut:
       * convert more and read it again. */
      if (converting && (reader.pos >= reader.len || !got))
        {
          if (assay_csv_index_convert_more (self, cd, &produced))
            {
              reader.len = produced;
              reader.pos = before;
              reader.line = line;
              g_clear_error (&local_error);
              continue;
            }
          converting = FALSE;
          reader.pos = before;
          reader.line = line;
          g_clear_error (&local_error);
          continue;
        }
      if (!got)
        {
          if (local_error != NULL)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              ok = FALSE;
            }
          break;
        }
      start = reader.record_start;
      if (rows % ROWS_PER_CHECKPOINT == 0)
        {
          guint64 checkpoint = rows / ROWS_PER_CHECKPOINT;
          gsize block = checkpoint / CHECKPOINTS_PER_BLOCK;

          if (block >= self->n_blocks_max)
            break;
          if (self->blocks[block] == NULL)
            self->blocks[block] = g_new (guint64, CHECKPOINTS_PER_BLOCK);
          self->blocks[block][checkpoint % CHECKPOINTS_PER_BLOCK] = start;
        }
      rows++;
      /* Publish often at first, so the first screen shows at once, then every 4096 rows. */
      if (rows < 4096 || rows % 4096 == 0)
        {
          __atomic_store_n (&self->n_rows, rows, __ATOMIC_RELEASE);
          __atomic_store_n (&self->indexed_bytes, reader.pos, __ATOMIC_RELAXED);
          if (rows % 65536 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
            {
              ok = FALSE;
              break;
            }
        }
    }
  assay_csv_reader_clear (&reader);
  if (cd != (GIConv) -1)
    g_iconv_close (cd);
  __atomic_store_n (&self->n_rows, rows, __ATOMIC_RELEASE);
  __atomic_store_n (&self->indexed_bytes, reader.len, __ATOMIC_RELAXED);
  if (ok && !assay_mapped_check (self->mapped, self->path, error))
    ok = FALSE;
  g_atomic_int_set (&self->complete, TRUE);
  return ok;
}

static void
assay_csv_index_build_worker (GTask        *task,
                              gpointer      source,
                              gpointer      task_data,
                              GCancellable *cancellable)
{
  GError *error = NULL;

  if (assay_csv_index_build (ASSAY_CSV_INDEX (source), cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
assay_csv_index_build_async (AssayCsvIndex       *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_CSV_INDEX (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_csv_index_build_async);
  g_task_run_in_thread (task, assay_csv_index_build_worker);
}

gboolean
assay_csv_index_build_finish (AssayCsvIndex  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The fields of the record the reader has just read, as sanitised UTF-8. */
static GStrv
assay_csv_index_record_fields (AssayCsvReader *reader,
                               GString        *scratch)
{
  GStrv fields = g_new (char *, reader->n_fields + 1);

  for (guint i = 0; i < reader->n_fields; i++)
    {
      gsize n;
      const char *s;

      g_string_truncate (scratch, 0);
      s = assay_csv_reader_field_text (reader, &reader->fields[i], scratch, &n);
      fields[i] = assay_data_sanitize (s, n, MAX_FIELD_CHARS);
    }
  fields[reader->n_fields] = NULL;
  return fields;
}

GPtrArray *
assay_csv_index_get_rows (AssayCsvIndex *self,
                          guint64        first,
                          guint          n)
{
  guint64 indexed, checkpoint;
  guint64 *block;
  AssayCsvReader reader;
  g_autoptr(GString) scratch = NULL;
  GPtrArray *rows;
  guint skip;

  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), NULL);
  indexed = assay_csv_index_get_n_rows_indexed (self);
  if (first >= indexed || n == 0)
    return NULL;
  n = (guint) MIN ((guint64) n, indexed - first);
  checkpoint = first / ROWS_PER_CHECKPOINT;
  block = self->blocks[checkpoint / CHECKPOINTS_PER_BLOCK];
  if (block == NULL)
    return NULL;

  /* One pass from the checkpoint before FIRST: the rows before it are skipped, not decoded. */
  assay_csv_reader_init (&reader, self->text, __atomic_load_n (&self->text_len, __ATOMIC_ACQUIRE),
                         self->dialect->delimiter, self->dialect->quote, self->dialect->backslash_escape);
  reader.pos = block[checkpoint % CHECKPOINTS_PER_BLOCK];
  skip = first % ROWS_PER_CHECKPOINT;
  for (guint i = 0; i < skip; i++)
    if (!assay_csv_reader_next (&reader, NULL))
      {
        assay_csv_reader_clear (&reader);
        return NULL;
      }
  scratch = g_string_new (NULL);
  rows = g_ptr_array_new_full (n, (GDestroyNotify) g_strfreev);
  while (rows->len < n && assay_csv_reader_next (&reader, NULL))
    g_ptr_array_add (rows, assay_csv_index_record_fields (&reader, scratch));
  assay_csv_reader_clear (&reader);
  if (rows->len == 0)
    g_clear_pointer (&rows, g_ptr_array_unref);
  return rows;
}

GStrv
assay_csv_index_get_row (AssayCsvIndex *self,
                         guint64        row)
{
  g_autoptr(GPtrArray) rows = NULL;

  g_return_val_if_fail (ASSAY_IS_CSV_INDEX (self), NULL);
  rows = assay_csv_index_get_rows (self, row, 1);
  return rows != NULL ? g_ptr_array_steal_index (rows, 0) : NULL;
}
