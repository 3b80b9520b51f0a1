/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The GListModel over the row index (src/core/data/assay-row-model.c) and dialect
 * corrections. The 1,000,000-row file comes from tests/data/make-rows.py, by path in argv[1]. */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "assay-csv-index.h"
#include "assay-dataset.h"
#include "assay-row-model.h"
#include "preview-rows.h"

static const char *rows_path;
static char *tmpdir;

typedef struct
{
  guint  signals;
  guint  last_n;
  gboolean grew_before_complete;
  gboolean only_appends;
  gint64   start;
  GArray  *boundaries;   /* guint: the first row of each batch after the first */
} Changes;

static void assert_row (AssayRowModel *model,
                        guint          position);

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Changes    *changes)
{
  if (changes->signals == 0)
    g_test_message ("first batch: %u rows after %.0f ms", added,
                    (g_get_monotonic_time () - changes->start) / 1000.0);
  changes->signals++;
  if (removed != 0 || position != changes->last_n)
    changes->only_appends = FALSE;
  changes->last_n = position + added;
  if (!assay_row_model_is_complete (ASSAY_ROW_MODEL (model)) && changes->last_n > 0)
    changes->grew_before_complete = TRUE;
  /* The last row so far: its block of 32 may be read before the index reached the block's end;
   * the rows after it must still be read when they come. */
  if (added > 0)
    {
      assert_row (ASSAY_ROW_MODEL (model), changes->last_n - 1);
      if (position > 0)
        g_array_append_val (changes->boundaries, position);
    }
}

static void
assert_row (AssayRowModel *model,
            guint          position)
{
  g_autoptr(AssayRow) row = g_list_model_get_item (G_LIST_MODEL (model), position);

  g_assert_nonnull (row);
  g_assert_cmpuint (assay_row_get_index (row), ==, position);
  g_assert_cmpuint (assay_row_get_n_fields (row), ==, PREVIEW_ROWS_COLUMNS);
  for (guint c = 0; c < PREVIEW_ROWS_COLUMNS; c++)
    {
      g_autofree char *expected = preview_rows_expected (position, c);
      g_assert_cmpstr (assay_row_get_field (row, c), ==, expected);
    }
}

static void
test_million_rows (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) index = assay_csv_index_new (rows_path, &error);
  g_autoptr(AssayRowModel) model = NULL;
  Changes changes = { 0, 0, FALSE, TRUE, g_get_monotonic_time (), g_array_new (FALSE, FALSE, sizeof (guint)) };
  guint alive_before = assay_row_get_n_alive ();

  g_assert_no_error (error);
  model = assay_row_model_new (index);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (model)) == ASSAY_TYPE_ROW);
  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &changes);
  while (!assay_row_model_is_complete (model))
    g_main_context_iteration (NULL, TRUE);

  g_assert_null (assay_row_model_get_error (model));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1000000);
  g_assert_cmpuint (changes.last_n, ==, 1000000);
  g_assert_true (changes.only_appends);
  g_assert_true (changes.grew_before_complete);
  g_assert_cmpuint (changes.signals, ==, assay_row_model_get_n_batches (model));
  g_assert_cmpuint (changes.signals, <, 200);
  g_assert_cmpfloat (assay_row_model_get_progress (model), ==, 1.0);
  g_test_message ("%u items-changed batches; complete after %.0f ms", changes.signals,
                  (g_get_monotonic_time () - changes.start) / 1000.0);

  assert_row (model, 0);
  assert_row (model, 500000);
  assert_row (model, 999999);
  g_assert_null (g_list_model_get_item (G_LIST_MODEL (model), 1000000));
  for (guint i = 0; i < changes.boundaries->len; i++)
    assert_row (model, g_array_index (changes.boundaries, guint, i));
  g_array_unref (changes.boundaries);

  /* Walking the whole model keeps only the cache alive. */
  for (guint i = 0; i < 1000000; i += 97)
    {
      g_autoptr(AssayRow) row = g_list_model_get_item (G_LIST_MODEL (model), i);
      g_assert_cmpuint (assay_row_get_index (row), ==, i);
    }
  g_assert_cmpuint (assay_row_get_n_alive () - alive_before, <=, 512);

  /* The same position twice while cached: the same object. */
  {
    g_autoptr(AssayRow) a = g_list_model_get_item (G_LIST_MODEL (model), 42);
    g_autoptr(AssayRow) b = g_list_model_get_item (G_LIST_MODEL (model), 42);
    g_assert_true (a == b);
  }
  g_signal_handlers_disconnect_by_data (model, &changes);
  g_assert_finalize_object (g_steal_pointer (&model));
  g_assert_cmpuint (assay_row_get_n_alive (), ==, alive_before);
}

/* Rows are read a block of 32 at a time, in one pass; the index reads any run of rows. */
static void
test_blocks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) index = assay_csv_index_new (rows_path, &error);
  g_autoptr(AssayRowModel) model = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  g_assert_no_error (error);
  g_assert_null (assay_csv_index_get_rows (index, 0, 10));   /* not indexed yet */
  g_assert_true (assay_csv_index_build (index, NULL, &error));

  /* Across checkpoints, and cut where the rows end. */
  rows = assay_csv_index_get_rows (index, 999950, 100);
  g_assert_nonnull (rows);
  g_assert_cmpuint (rows->len, ==, 50);
  for (guint i = 0; i < rows->len; i++)
    for (guint c = 0; c < PREVIEW_ROWS_COLUMNS; c++)
      {
        g_autofree char *expected = preview_rows_expected (999950 + i, c);
        g_assert_cmpstr (((GStrv) g_ptr_array_index (rows, i))[c], ==, expected);
      }
  g_assert_null (assay_csv_index_get_rows (index, 1000000, 1));
  g_assert_null (assay_csv_index_get_rows (index, 0, 0));

  /* A row made again after its AssayRow left the cache while its block stayed: its fields
   * were taken from the block already, so it reads them itself. */
  model = assay_row_model_new (index);
  assert_row (model, 0);
  for (guint b = 1; b <= 16; b++)
    {
      for (guint i = b * 32; i < (b + 1) * 32; i++)
        assert_row (model, i);
      assert_row (model, b);                    /* a new row of block 0 keeps it cached */
    }
  /* 529 rows made: row 0 left the cache of 512 AssayRows, block 0 did not. */
  assert_row (model, 0);
  assert_row (model, 17);
}

static void
test_dispose_while_indexing (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) index = assay_csv_index_new (rows_path, &error);
  AssayRowModel *model;

  g_assert_no_error (error);
  model = assay_row_model_new (index);
  g_assert_finalize_object (model);
  /* The worker sees the cancellation; its callback must not touch the freed model. */
  while (!assay_csv_index_is_complete (index))
    g_main_context_iteration (NULL, FALSE);
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
}

static char *
write_file (const char *name,
            const char *contents,
            gssize      len)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  return path;
}

static void
test_override_delimiter (void)
{
  /* Semicolons and decimal commas, read as commas first (as a wrong guess would). */
  g_autofree char *path = write_file ("semi.csv",
                                      "city;amount;note\n"
                                      "Oslo;1,5;a,b\n"
                                      "Rome;2,25;c,d\n"
                                      "Kyiv;3,75;e,f\n", -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) sniffed = assay_csv_index_new (path, &error);
  g_autoptr(AssayCsvIndex) misread = NULL;
  g_autoptr(AssayCsvIndex) corrected = NULL;
  g_autoptr(AssayDataset) dataset = NULL;
  g_autoptr(JsonObject) amount = NULL;
  AssayCsvDialect override;

  g_assert_no_error (error);
  g_assert_cmpint (assay_csv_index_get_dialect (sniffed)->delimiter, ==, ';');
  assay_csv_dialect_init_override (&override);
  override.delimiter = ',';
  misread = assay_csv_index_new_with_dialect (path, &override, &error);
  g_assert_no_error (error);
  g_assert_cmpint (assay_csv_index_get_dialect (misread)->delimiter, ==, ',');
  g_assert_cmpint (assay_csv_index_get_dialect (misread)->decimal, ==, '.');
  g_assert_cmpuint (assay_csv_index_get_n_columns (misread), ==, 1);

  assay_csv_dialect_init_override (&override);
  override.delimiter = ';';
  corrected = assay_csv_index_new_with_dialect (path, &override, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_csv_index_get_n_columns (corrected), ==, 3);
  g_assert_cmpint (assay_csv_index_get_dialect (corrected)->decimal, ==, ',');
  g_assert_true (assay_csv_index_build (corrected, NULL, &error));
  {
    g_auto(GStrv) row = assay_csv_index_get_row (corrected, 1);
    g_assert_cmpstr (row[1], ==, "2,25");
  }

  dataset = assay_dataset_open_with_dialect (path, &override, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (assay_dataset_get_n_columns (dataset), ==, 3);
  amount = assay_dataset_get_column_json (dataset, 1);
  g_assert_cmpstr (json_object_get_string_member (amount, "type"), ==, "float");
  g_assert_cmpstr (assay_dataset_get_column_names (dataset)[2], ==, "note");
  g_assert_null (assay_dataset_get_column_names (dataset)[3]);
  g_assert_null (assay_dataset_get_column_json (dataset, 3));
}

static void
test_override_encoding_and_header (void)
{
  /* "имя;число\nАня;1\n" in KOI8-R, read as Windows-1251 on purpose then corrected. */
  static const char koi8[] = "\xc9\xcd\xd1;\xde\xc9\xd3\xcc\xcf\n\xe1\xce\xd1;1\n\xe2\xcf\xd2\xd1;2\n";
  g_autofree char *path = write_file ("koi8.csv", koi8, sizeof koi8 - 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayCsvIndex) index = NULL;
  AssayCsvDialect override;

  assay_csv_dialect_init_override (&override);
  override.encoding = g_strdup ("KOI8-R");
  override.header = FALSE;
  index = assay_csv_index_new_with_dialect (path, &override, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (assay_csv_index_get_dialect (index)->encoding, ==, "koi8-r");
  g_assert_false (assay_csv_index_get_dialect (index)->header);
  g_assert_true (assay_csv_index_build (index, NULL, &error));
  {
    g_auto(GStrv) row = assay_csv_index_get_row (index, 0);
    g_assert_cmpstr (row[0], ==, "имя");
  }
  assay_csv_dialect_clear_override (&override);

  assay_csv_dialect_init_override (&override);
  override.encoding = g_strdup ("no-such-encoding");
  g_clear_object (&index);
  index = assay_csv_index_new_with_dialect (path, &override, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_null (index);
  assay_csv_dialect_clear_override (&override);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (argc, ==, 2);
  rows_path = argv[1];
  tmpdir = g_dir_make_tmp ("assay-row-model-XXXXXX", NULL);

  g_test_add_func ("/assay/row-model/million-rows", test_million_rows);
  g_test_add_func ("/assay/row-model/blocks", test_blocks);
  g_test_add_func ("/assay/row-model/dispose-while-indexing", test_dispose_while_indexing);
  g_test_add_func ("/assay/data/override/delimiter-decimal", test_override_delimiter);
  g_test_add_func ("/assay/data/override/encoding-header", test_override_encoding_and_header);
  status = g_test_run ();

  {
    g_autoptr(GFile) dir = g_file_new_for_path (tmpdir);
    g_autoptr(GFileEnumerator) e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME, 0, NULL, NULL);
    GFileInfo *info;
    while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
      {
        g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));
        g_file_delete (child, NULL, NULL);
        g_object_unref (info);
      }
    g_file_delete (dir, NULL, NULL);
  }
  g_free (tmpdir);
  return status;
}
