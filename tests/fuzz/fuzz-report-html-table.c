/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "assay-html-table.h"
#include "assay-markdown.h"

/* Feeds arbitrary bytes to the DataFrame table extractor and to the Markdown reader (the
 * model's answer). Checks the extractor's caps and that every cell is valid UTF-8, that
 * every block is well formed, and that nothing crashes or leaks. */

static void
check_spans (GPtrArray *spans)
{
  g_assert_nonnull (spans);
  for (guint i = 0; i < spans->len; i++)
    {
      AssayMdSpan *span = g_ptr_array_index (spans, i);

      g_assert_nonnull (span->text);
      g_assert_true (g_utf8_validate (span->text, -1, NULL));
      g_assert_true (((span->style & ASSAY_MD_LINK) != 0) == (span->href != NULL)
                     || span->href == NULL);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  AssayTable *table = assay_html_table_extract ((const char *) data, size);
  GPtrArray *blocks;

  if (table)
    {
      g_assert_cmpuint (table->rows->len, >, 0);
      g_assert_cmpuint (table->rows->len, <=, ASSAY_TABLE_MAX_ROWS);
      g_assert_cmpuint (table->n_columns, <=, ASSAY_TABLE_MAX_COLUMNS);
      g_assert_cmpuint (table->n_header_rows, <=, table->rows->len);
      for (guint r = 0; r < table->rows->len; r++)
        {
          GPtrArray *row = g_ptr_array_index (table->rows, r);

          g_assert_cmpuint (row->len, <=, table->n_columns);
          for (guint c = 0; c < row->len; c++)
            {
              const char *cell = g_ptr_array_index (row, c);

              g_assert_true (g_utf8_validate (cell, -1, NULL));
              /* A few bytes over the cap at most: one decoded entity. */
              g_assert_cmpuint (strlen (cell), <=, ASSAY_TABLE_MAX_CELL + 8);
            }
        }
      assay_table_free (table);
    }

  blocks = assay_markdown_parse ((const char *) data, size);
  for (guint i = 0; i < blocks->len; i++)
    {
      AssayMdBlock *block = g_ptr_array_index (blocks, i);

      check_spans (block->spans);
      switch (block->kind)
        {
        case ASSAY_MD_BLOCK_HEADING:
          g_assert_cmpuint (block->level, >=, 1);
          g_assert_cmpuint (block->level, <=, 6);
          break;
        case ASSAY_MD_BLOCK_CODE:
          g_assert_nonnull (block->code);
          g_assert_true (g_utf8_validate (block->code, -1, NULL));
          break;
        case ASSAY_MD_BLOCK_TABLE:
          g_assert_nonnull (block->rows);
          g_assert_cmpuint (block->n_header_rows, <=, block->rows->len);
          for (guint r = 0; r < block->rows->len; r++)
            {
              GPtrArray *row = g_ptr_array_index (block->rows, r);

              g_assert_cmpuint (row->len, <=, block->n_columns);
              for (guint c = 0; c < row->len; c++)
                check_spans (g_ptr_array_index (row, c));
            }
          break;
        default:
          break;
        }
    }
  g_ptr_array_unref (blocks);
  return 0;
}
