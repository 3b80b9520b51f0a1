/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "assay-html-table.h"
#include "assay-markdown.h"
#include "assay-report.h"
#include "assay-report-private.h"
#include "assay-session.h"

static AssayMdBlock *
block (GPtrArray *blocks,
       guint      index)
{
  g_assert_cmpuint (index, <, blocks->len);
  return g_ptr_array_index (blocks, index);
}

static AssayMdSpan *
span (AssayMdBlock *b,
      guint         index)
{
  g_assert_cmpuint (index, <, b->spans->len);
  return g_ptr_array_index (b->spans, index);
}

static void
test_markdown_headings_and_spans (void)
{
  g_autoptr(GPtrArray) blocks = assay_markdown_parse ("# Итог\n\n### Third\n\nPlain **bold** *it* `code` "
                                                      "~~gone~~ [link](https://example.org) &amp; <b>raw</b>\n"
                                                      "soft\\\nhard", -1);
  AssayMdBlock *p;
  g_autofree char *text = NULL;

  g_assert_cmpuint (blocks->len, ==, 3);
  g_assert_cmpint (block (blocks, 0)->kind, ==, ASSAY_MD_BLOCK_HEADING);
  g_assert_cmpuint (block (blocks, 0)->level, ==, 1);
  g_assert_cmpstr (span (block (blocks, 0), 0)->text, ==, "Итог");
  g_assert_cmpuint (block (blocks, 1)->level, ==, 3);

  p = block (blocks, 2);
  g_assert_cmpint (p->kind, ==, ASSAY_MD_BLOCK_PARAGRAPH);
  g_assert_cmpstr (span (p, 0)->text, ==, "Plain ");
  g_assert_cmpint (span (p, 0)->style, ==, 0);
  g_assert_cmpstr (span (p, 1)->text, ==, "bold");
  g_assert_cmpint (span (p, 1)->style, ==, ASSAY_MD_BOLD);
  g_assert_cmpstr (span (p, 3)->text, ==, "it");
  g_assert_cmpint (span (p, 3)->style, ==, ASSAY_MD_ITALIC);
  g_assert_cmpstr (span (p, 5)->text, ==, "code");
  g_assert_cmpint (span (p, 5)->style, ==, ASSAY_MD_CODE);
  g_assert_cmpint (span (p, 7)->style, ==, ASSAY_MD_STRIKE);
  g_assert_cmpint (span (p, 9)->style, ==, ASSAY_MD_LINK);
  g_assert_cmpstr (span (p, 9)->href, ==, "https://example.org");
  text = assay_md_spans_to_text (p->spans);
  /* Entities decoded, raw HTML kept as text, a hard break as "\n". */
  g_assert_nonnull (strstr (text, " & <b>raw</b> soft\nhard"));
}

static void
test_markdown_lists (void)
{
  g_autoptr(GPtrArray) blocks = assay_markdown_parse ("1. one\n2. two\n   - nested\n     - deeper\n3. three\n\n"
                                                      "- [x] done\n", -1);
  AssayMdBlock *b;

  g_assert_cmpuint (blocks->len, ==, 6);
  b = block (blocks, 0);
  g_assert_cmpint (b->kind, ==, ASSAY_MD_BLOCK_LIST_ITEM);
  g_assert_cmpuint (b->level, ==, 1);
  g_assert_cmpuint (b->ordinal, ==, 1);
  g_assert_cmpuint (block (blocks, 1)->ordinal, ==, 2);
  b = block (blocks, 2);
  g_assert_cmpuint (b->level, ==, 2);
  g_assert_cmpuint (b->ordinal, ==, 0);
  g_assert_cmpstr (span (b, 0)->text, ==, "nested");
  g_assert_cmpuint (block (blocks, 3)->level, ==, 3);
  g_assert_cmpuint (block (blocks, 4)->ordinal, ==, 3);
  g_assert_cmpuint (block (blocks, 4)->level, ==, 1);
  g_assert_true (g_str_has_suffix (span (block (blocks, 5), 0)->text, "done"));
}

static void
test_markdown_table_code_rule (void)
{
  g_autoptr(GPtrArray) blocks = assay_markdown_parse ("| A | **B** |\n| --- | ---: |\n| 1 | 2 |\n| 3 |\n\n"
                                                      "```python\nprint(1)\n  x = 2\n```\n\n---\n\n> quoted\n", -1);
  AssayMdBlock *table, *code;
  GPtrArray *row;

  g_assert_cmpuint (blocks->len, ==, 4);
  table = block (blocks, 0);
  g_assert_cmpint (table->kind, ==, ASSAY_MD_BLOCK_TABLE);
  g_assert_cmpuint (table->rows->len, ==, 3);
  g_assert_cmpuint (table->n_header_rows, ==, 1);
  g_assert_cmpuint (table->n_columns, ==, 2);
  row = g_ptr_array_index (table->rows, 0);
  g_assert_cmpint (((AssayMdSpan *) g_ptr_array_index ((GPtrArray *) g_ptr_array_index (row, 1), 0))->style,
                   ==, ASSAY_MD_BOLD);
  row = g_ptr_array_index (table->rows, 1);
  g_assert_cmpstr (((AssayMdSpan *) g_ptr_array_index ((GPtrArray *) g_ptr_array_index (row, 1), 0))->text,
                   ==, "2");

  code = block (blocks, 1);
  g_assert_cmpint (code->kind, ==, ASSAY_MD_BLOCK_CODE);
  g_assert_cmpstr (code->language, ==, "python");
  g_assert_cmpstr (code->code, ==, "print(1)\n  x = 2");
  g_assert_cmpint (block (blocks, 2)->kind, ==, ASSAY_MD_BLOCK_RULE);
  g_assert_true (block (blocks, 3)->quote);
  g_assert_cmpuint (assay_markdown_parse ("", 0)->len, ==, 0);
}

static void
test_html_table (void)
{
  const char *html =
    "<style>td{}</style><div><table border=\"1\" class=\"dataframe\">\n"
    "<thead><tr style=\"text-align: right;\"><th></th><th>region</th><th>amount</th></tr></thead>\n"
    "<tbody><tr><th>0</th><td>north &amp; <b>west</b></td><td>10</td></tr>\n"
    "<tr><th>1</th><td>&lt;script&gt;x&#39;&#x41;</td><td>  20\n </td></tr>"
    "<tr><th>2</th><td><script>alert(1)</script>ok</td><td><!-- <td>no</td> -->30</td></tr></tbody>"
    "</table></div><table><tr><td>second</td></tr></table>";
  g_autoptr(AssayTable) table = assay_html_table_extract (html, strlen (html));
  GPtrArray *row;

  g_assert_nonnull (table);
  g_assert_cmpuint (table->rows->len, ==, 4);
  g_assert_cmpuint (table->n_columns, ==, 3);
  g_assert_cmpuint (table->n_header_rows, ==, 1);
  g_assert_false (table->truncated);
  row = g_ptr_array_index (table->rows, 0);
  g_assert_cmpstr (g_ptr_array_index (row, 1), ==, "region");
  row = g_ptr_array_index (table->rows, 1);
  g_assert_cmpstr (g_ptr_array_index (row, 1), ==, "north & west");
  row = g_ptr_array_index (table->rows, 2);
  g_assert_cmpstr (g_ptr_array_index (row, 1), ==, "<script>x'A");
  g_assert_cmpstr (g_ptr_array_index (row, 2), ==, "20");
  row = g_ptr_array_index (table->rows, 3);
  g_assert_cmpstr (g_ptr_array_index (row, 1), ==, "ok");
  g_assert_cmpstr (g_ptr_array_index (row, 2), ==, "30");

  g_assert_null (assay_html_table_extract ("<p>no table</p>", 15));
  g_assert_null (assay_html_table_extract ("<table></table>", 15));
}

static void
test_html_table_caps (void)
{
  g_autoptr(GString) html = g_string_new ("<table>");
  g_autoptr(AssayTable) table = NULL;

  for (guint r = 0; r < ASSAY_TABLE_MAX_ROWS + 10; r++)
    {
      g_string_append (html, "<tr>");
      for (guint c = 0; c < ASSAY_TABLE_MAX_COLUMNS + 5; c++)
        g_string_append (html, "<td>x</td>");
    }
  g_string_append (html, "<tr><td>");
  for (guint i = 0; i < ASSAY_TABLE_MAX_CELL * 2; i++)
    g_string_append_c (html, 'y');
  table = assay_html_table_extract (html->str, html->len);
  g_assert_nonnull (table);
  g_assert_true (table->truncated);
  g_assert_cmpuint (table->rows->len, ==, ASSAY_TABLE_MAX_ROWS);
  g_assert_cmpuint (table->n_columns, ==, ASSAY_TABLE_MAX_COLUMNS);
}

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
  guint      n_progress;
  double     last;
} AsyncResult;

static void
on_progress (double      fraction,
             const char *message,
             gpointer    user_data)
{
  AsyncResult *result = user_data;

  g_assert_nonnull (message);
  g_assert_cmpfloat (fraction, >=, result->last);
  result->last = fraction;
  result->n_progress++;
}

static void
on_exported (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  AsyncResult *result = user_data;

  result->ok = assay_report_export_finish (ASSAY_SESSION (source), res, &result->error);
  g_main_loop_quit (result->loop);
}

static void
test_export_async (void)
{
  g_autofree char *dir = g_dir_make_tmp ("assay-report-XXXXXX", NULL);
  g_autofree char *session_dir = g_build_filename (dir, "session", NULL);
  g_autofree char *pdf = g_build_filename (dir, "out.pdf", NULL);
  g_autofree char *html = g_build_filename (dir, "out.html", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (session_dir, &error);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AssayReportOptions options;
  AsyncResult result = { 0 };
  g_autofree char *contents = NULL;

  g_assert_no_error (error);
  assay_session_set_title (session, "Отчёт");
  assay_session_append_message (session, assay_llm_message_new_user ("Сколько?"));
  assay_session_append_message (session, assay_llm_message_new_assistant ("**42**, <b>"));
  assay_report_options_init (&options);

  result.loop = g_main_loop_new (NULL, FALSE);
  assay_report_export_async (session, &options, pdf, on_progress, &result, NULL, NULL,
                             on_exported, &result);
  g_main_loop_run (result.loop);
  g_assert_no_error (result.error);
  g_assert_true (result.ok);
  g_assert_cmpuint (result.n_progress, >=, 2);
  g_assert_cmpfloat (result.last, ==, 1.0);
  g_assert_true (g_file_get_contents (pdf, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "%PDF-"));

  /* Cancelled before it starts: an error, and no file. */
  g_cancellable_cancel (cancellable);
  options.format = assay_report_format_lookup ("html");
  assay_report_export_async (session, &options, html, NULL, NULL, NULL, cancellable,
                             on_exported, &result);
  g_main_loop_run (result.loop);
  g_assert_error (result.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (g_file_test (html, G_FILE_TEST_EXISTS));
  g_clear_error (&result.error);

  /* Synchronously, the HTML escapes the model's words. */
  g_assert_true (assay_report_export (session, &options, html, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_free (contents);
  g_assert_true (g_file_get_contents (html, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "<strong>42</strong>, &lt;b&gt;"));
  g_assert_null (strstr (contents, "<b>"));

  /* A folder that does not exist: a plain error. */
  {
    g_autofree char *nowhere = g_build_filename (dir, "no", "such", "out.pdf", NULL);

    g_assert_false (assay_report_export (session, &options, nowhere, NULL, NULL, NULL, &error));
    g_assert_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE);
    g_clear_error (&error);
  }

  g_main_loop_unref (result.loop);
  g_assert_true (assay_session_save (session, NULL));
  g_assert_true (assay_session_delete (session_dir, NULL));
  g_unlink (pdf);
  g_unlink (html);
  g_rmdir (dir);
}

/* The export's suggested file name: a title as analysts write it, as a file name every
 * system takes. */
static void
test_suggest_file_name (void)
{
  const struct { const char *title; const AssayReportFormat *format; const char *name; } cases[] = {
    { "Make a 2-page report with a chart.", assay_report_format_lookup ("pdf"), "Make a 2-page report with a chart.pdf" },
    { "Which region sells the most?", assay_report_format_lookup ("xlsx"), "Which region sells the most.xlsx" },
    { "Revenue by month\u2026", assay_report_format_lookup ("html"), "Revenue by month.html" },
    { "Revenue by month...", assay_report_format_lookup ("html"), "Revenue by month.html" },
    { "../../etc/passwd", assay_report_format_lookup ("ipynb"), "etc-passwd.ipynb" },
    { "  .hidden  name \t\n x ", assay_report_format_lookup ("bundle"), "hidden name x.zip" },
    { "A \"quoted\" <b>|*</b>", assay_report_format_lookup ("pdf"), "A quoted b--b.pdf" },
    { "\u0412\u044b\u0440\u0443\u0447\u043a\u0430 \u043f\u043e \u0440\u0435\u0433\u0438\u043e\u043d\u0430\u043c?", assay_report_format_lookup ("pdf"),
      "\u0412\u044b\u0440\u0443\u0447\u043a\u0430 \u043f\u043e \u0440\u0435\u0433\u0438\u043e\u043d\u0430\u043c.pdf" },
    { "???", assay_report_format_lookup ("pdf"), "Report.pdf" },
    { NULL, assay_report_format_lookup ("xlsx"), "Report.xlsx" },
    { "bad \xff utf8", assay_report_format_lookup ("pdf"), "Report.pdf" },
  };
  g_autofree char *long_title = NULL;
  g_autofree char *long_name = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = assay_report_suggest_file_name (cases[i].title, cases[i].format);

      g_assert_cmpstr (name, ==, cases[i].name);
    }

  /* Cut at 120 bytes on a character's boundary, never in the middle of a Cyrillic letter,
   * and never ending on the space before the cut. */
  long_title = g_strnfill (200, 'x');
  for (guint i = 0; i < 100; i++)
    memcpy (long_title + 2 * i, "\u044f", 2);
  long_name = assay_report_suggest_file_name (long_title, assay_report_format_lookup ("pdf"));
  g_assert_true (g_utf8_validate (long_name, -1, NULL));
  g_assert_true (g_str_has_suffix (long_name, ".pdf"));
  g_assert_cmpuint (strlen (long_name) - strlen (".pdf"), ==, 120);
}

/* The PDF's tables break between pages as a reader expects, over random tables and starting
 * points: rows never run past the foot of a page (but a row taller than a page), the header
 * never ends a page with fewer than two rows under it, the last row never stands alone on a
 * page when the row before it could go with it, and a page breaks only when its next row does
 * not fit (or to keep the last two together). */
static void
test_pdf_table_breaks (void)
{
  const double top = 62, bottom = 782;

  for (guint round = 0; round < 20000; round++)
    {
      guint n_rows = g_test_rand_int_range (1, 40);
      guint n_header = g_test_rand_int_range (0, 3);
      double y0 = g_test_rand_double_range (top, bottom);
      g_autofree double *heights = g_new (double, n_rows);
      g_autofree gboolean *breaks = g_new (gboolean, n_rows);
      g_autofree guint *page_of = g_new (guint, n_rows);
      double header = 0, y;
      guint page = 0, n_body, on_page = 0, last_page_rows = 0, before_last_rows = 0;

      n_header = MIN (n_header, n_rows);
      n_body = n_rows - n_header;

      for (guint r = 0; r < n_rows; r++)
        heights[r] = g_test_rand_int_range (0, 10) == 0 ? g_test_rand_double_range (80, 300)
                                                        : g_test_rand_double_range (12, 40);
      for (guint h = 0; h < n_header; h++)
        header += heights[h];
      report_pdf_table_breaks (heights, n_rows, n_header, y0, top, bottom, breaks);

      y = breaks[0] ? top : y0;
      page = breaks[0] ? 1 : 0;
      for (guint r = 0; r < n_rows; r++)
        {
          if (r > 0 && breaks[r])
            {
              g_assert_cmpuint (r, >=, n_header);
              /* Only when needed: the row did not fit, or it is the second-to-last kept with
               * the last. */
              g_assert_true (y + heights[r] > bottom || r + 2 == n_rows);
              page++;
              before_last_rows = on_page;
              on_page = 0;
              y = top + header;
            }
          page_of[r] = page;
          y += heights[r];
          if (r >= n_header)
            on_page++;
          /* Within the page, unless the row alone is taller than what is left of a page. */
          if (y > bottom + 0.001)
            g_assert_true (r < n_header ? top + header > bottom : top + header + heights[r] > bottom);
        }
      last_page_rows = on_page;
      /* The header and its first rows together where a fresh page would hold them. */
      if (n_body >= 2 && !breaks[0] && y0 > top + 1)
        {
          guint on_first = 0;

          for (guint r = n_header; r < n_rows && page_of[r] == 0; r++)
            on_first++;
          if (top + header + heights[n_header] + heights[n_header + 1] <= bottom)
            g_assert_cmpuint (on_first, >=, 2);
        }
      /* The last row not alone on a page it could share. */
      if (page > 0 && last_page_rows == 1 && n_body >= 2 && page_of[n_rows - 2] != page_of[n_rows - 1])
        g_assert_true (before_last_rows <= 2 ||
                       top + header + heights[n_rows - 2] + heights[n_rows - 1] > bottom);
    }

  /* The case seen: a table whose last row went alone onto the next page. */
  {
    double heights[] = { 20, 20, 20, 20, 20 };
    gboolean breaks[5];

    report_pdf_table_breaks (heights, 5, 1, bottom - 4 * 20 - 5, top, bottom, breaks);
    g_assert_false (breaks[0]);
    g_assert_false (breaks[4]);
    g_assert_true (breaks[3]);
  }
}

/* The format table: every row complete and found by its name, its extension and its alias,
 * in any case; nothing else found; its order the export dialog's. */
static void
test_format_table (void)
{
  static const char *names[] = { "pdf", "html", "ipynb", "xlsx", "bundle" };
  g_autofree char *list = assay_report_format_list (FALSE, ", ");
  g_autofree char *extensions = assay_report_format_list (TRUE, ", ");
  AssayReportOptions options;

  g_assert_cmpuint (assay_report_get_n_formats (), ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < assay_report_get_n_formats (); i++)
    {
      const AssayReportFormat *format = assay_report_get_format (i);
      g_autofree char *upper = g_ascii_strup (assay_report_format_get_extension (format), -1);
      g_autofree char *path = g_strdup_printf ("/tmp/some.dir/report.%s", upper);
      g_autofree char *suggested = assay_report_suggest_file_name ("Sales", format);

      g_assert_cmpstr (assay_report_format_get_name (format), ==, names[i]);
      g_assert_true (assay_report_format_lookup (names[i]) == format);
      g_assert_true (assay_report_format_lookup (assay_report_format_get_extension (format)) == format);
      g_assert_true (assay_report_format_for_path (path) == format);
      g_assert_nonnull (strstr (list, names[i]));
      g_assert_nonnull (strstr (extensions, assay_report_format_get_extension (format)));
      g_assert_true (g_str_has_suffix (suggested, assay_report_format_get_extension (format)));
      g_assert_cmpstr (assay_report_format_get_label (format), !=, "");
      g_assert_cmpstr (assay_report_format_get_files_label (format), !=, "");
    }
  g_assert_true (assay_report_format_lookup ("HTM") == assay_report_format_lookup ("html"));
  g_assert_true (assay_report_format_lookup ("zip") == assay_report_format_lookup ("bundle"));
  g_assert_cmpstr (assay_report_format_get_extension (assay_report_format_lookup ("bundle")), ==, "zip");
  g_assert_null (assay_report_format_lookup ("docx"));
  g_assert_null (assay_report_format_lookup (""));
  g_assert_null (assay_report_format_lookup (NULL));
  g_assert_null (assay_report_format_for_path ("report"));
  g_assert_null (assay_report_format_for_path ("/tmp/x.pdf/report"));
  g_assert_null (assay_report_format_for_path ("report.pdf.tmp"));
  g_assert_cmpstr (list, ==, "pdf, html, ipynb, xlsx, bundle");
  g_assert_cmpstr (extensions, ==, ".pdf, .html, .ipynb, .xlsx, .zip");
  assay_report_options_init (&options);
  g_assert_true (options.format == assay_report_format_lookup ("pdf"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/report/format-table", test_format_table);
  g_test_add_func ("/assay/report/suggest-file-name", test_suggest_file_name);
  g_test_add_func ("/assay/report/pdf-table-breaks", test_pdf_table_breaks);
  g_test_add_func ("/assay/report/markdown/headings-spans", test_markdown_headings_and_spans);
  g_test_add_func ("/assay/report/markdown/lists", test_markdown_lists);
  g_test_add_func ("/assay/report/markdown/table-code-rule", test_markdown_table_code_rule);
  g_test_add_func ("/assay/report/html-table/dataframe", test_html_table);
  g_test_add_func ("/assay/report/html-table/caps", test_html_table_caps);
  g_test_add_func ("/assay/report/export/async", test_export_async);
  return g_test_run ();
}
