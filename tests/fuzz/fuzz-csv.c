/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the encoding detector, the sniffer, the tokenizer and the value
 * classifier on arbitrary bytes, and the whole dataset (profile, JSON, model summary, row
 * index) on the same bytes written to a file. */
#include "config.h"

#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "assay-csv-dialect.h"
#include "assay-csv-index.h"
#include "assay-csv-reader.h"
#include "assay-dataset.h"
#include "assay-xlsx.h"

static char *path;

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  g_autoptr(AssayCsvDialect) dialect = g_new0 (AssayCsvDialect, 1);
  AssayCsvReader reader;
  guint rows = 0;

  if (path == NULL)
    {
      int fd = g_file_open_tmp ("fuzz-csv-XXXXXX.csv", &path, NULL);
      close (fd);
    }

  /* The pieces, directly on the bytes. */
  assay_csv_detect_encoding (text, size, dialect, NULL);
  assay_csv_sniff_text (text, size, dialect, NULL);
  assay_csv_reader_init (&reader, text, size, size > 0 ? text[0] : ',', '"', size > 1 && text[1] == '\\');
  while (rows++ < 10000 && assay_csv_reader_next (&reader, NULL))
    for (guint i = 0; i < reader.n_fields; i++)
      {
        AssayValue value;
        AssayValueFormat format = { size > 2 ? text[2] : '.', ",", 1 };
        assay_value_classify (text + reader.fields[i].start, reader.fields[i].len, &format,
                              ASSAY_VALUE_ANY, &value);
      }
  assay_csv_reader_clear (&reader);
  {
    GPtrArray *sheets = assay_xlsx_list_sheets (text, size, NULL);
    if (sheets != NULL)
      g_ptr_array_unref (sheets);
  }

  /* The whole dataset. */
  if (g_file_set_contents (path, text, size, NULL))
    {
      g_autoptr(AssayDataset) dataset = assay_dataset_open (path, NULL, NULL);
      g_autoptr(AssayCsvIndex) index = assay_csv_index_new (path, NULL);

      if (dataset != NULL)
        {
          g_autoptr(JsonObject) json = assay_dataset_to_json (dataset);
          g_autofree char *summary = assay_dataset_describe_for_model (dataset, 500);
          g_autofree char *human = assay_dataset_describe_for_human (dataset);

          if (json == NULL || strlen (summary) > 500 || human == NULL)
            __builtin_trap ();
        }
      if (index != NULL && assay_csv_index_build (index, NULL, NULL))
        {
          guint64 n = assay_csv_index_get_n_rows_indexed (index);
          g_auto(GStrv) first = assay_csv_index_get_row (index, 0);
          g_auto(GStrv) last = n > 0 ? assay_csv_index_get_row (index, n - 1) : NULL;

          if (n > 0 && (first == NULL || last == NULL))
            __builtin_trap ();
        }
    }
  return 0;
}
