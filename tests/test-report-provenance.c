/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reports carry an answer's provenance: in the PDF (read back with poppler) each traced
 * number links to its cell in the appendix and the untraced one has a footnote; the HTML has
 * anchors and titles; the notebook's answer links to the cell. */
#include "config.h"

#include <glib/gstdio.h>
#include <poppler.h>
#include <string.h>

#include "assay-report.h"
#include "assay-session.h"
#include "session-fixture.h"

#define ANSWER "Revenue was EUR **475,046** from 12,480 orders.\n\n| month | revenue |\n|---|---|\n| July | 475,046 |\n"

static char *
write_session (const char *parent)
{
  g_autofree char *dir = g_build_filename (parent, "session", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_new (dir, &error);
  g_autofree char *csv = g_build_filename (parent, "july.csv", NULL);
  const AssayProvenance *provenance;
  AssaySessionCell *cell;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (csv, "month,revenue\nJuly,475046.3\n", -1, NULL));
  g_assert_nonnull (assay_session_add_dataset (session, csv, NULL, &error));
  g_assert_no_error (error);
  g_unlink (csv);
  assay_session_set_title (session, "Provenance in reports");
  session_fixture_ask (session, "Revenue in July?");
  session_fixture_reply (session, "Summing.", 1, "call_1");
  cell = session_fixture_run_cell (session, "c1", 1, "call_1", "475046.3", FALSE);
  /* What the kernel would have seen it do. */
  {
    g_autoptr(JsonParser) parser = json_parser_new ();

    g_assert_true (json_parser_load_from_data (parser, "{\"items\": [{\"kind\": \"read\", \"file\": \"july.csv\", "
                                                       "\"rows\": 1, \"columns\": 2}], \"files\": [\"july.csv\"]}", -1, NULL));
    cell->checks = assay_cell_checks_from_json (json_parser_get_root (parser));
  }
  assay_session_finish_step (session);
  session_fixture_reply (session, ANSWER, 0);
  assay_session_finish_step (session);
  provenance = assay_session_trace_answer (session, assay_session_get_messages (session)->len - 1);
  g_assert_cmpuint (provenance->numbers->len, ==, 3);
  g_assert_cmpuint (assay_provenance_count_untraced (provenance), ==, 1);
  assay_session_set_outcome (session, "answered", ANSWER);
  g_assert_true (assay_session_save (session, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&dir);
}

static char *
export (AssaySession      *session,
        const AssayReportFormat *format,
        const char        *path)
{
  AssayReportOptions options;
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  assay_report_options_init (&options);
  options.format = format;
  g_assert_true (assay_report_export (session, &options, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* Whether any of PAGE's links goes to DEST and covers AREA (PDF coordinates, from the top). */
static gboolean
page_links_to (PopplerPage      *page,
               const char       *dest,
               PopplerRectangle *area)
{
  GList *mapping = poppler_page_get_link_mapping (page);
  gboolean found = FALSE;

  for (GList *l = mapping; l != NULL; l = l->next)
    {
      PopplerLinkMapping *link = l->data;
      /* poppler gives both in the same coordinates (from the bottom left). */
      double x1 = link->area.x1, x2 = link->area.x2, y1 = link->area.y1, y2 = link->area.y2;
      double cx = (area->x1 + area->x2) / 2, cy = (area->y1 + area->y2) / 2;

      if (link->action->type != POPPLER_ACTION_GOTO_DEST)
        continue;
      if (link->action->goto_dest.dest->type != POPPLER_DEST_NAMED ||
          g_strcmp0 (link->action->goto_dest.dest->named_dest, dest) != 0)
        continue;
      if (cx >= x1 && cx <= x2 && cy >= y1 && cy <= y2)
        found = TRUE;
    }
  poppler_page_free_link_mapping (mapping);
  return found;
}

static void
test_pdf_html_ipynb (void)
{
  g_autofree char *parent = g_dir_make_tmp ("assay-report-provenance-XXXXXX", NULL);
  g_autofree char *dir = write_session (parent);
  g_autofree char *pdf_path = g_build_filename (parent, "report.pdf", NULL);
  g_autofree char *html_path = g_build_filename (parent, "report.html", NULL);
  g_autofree char *ipynb_path = g_build_filename (parent, "report.ipynb", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySession) session = assay_session_load (dir, &error);
  PopplerDocument *document = NULL;
  PopplerDest *dest = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *pdf = NULL;
  g_autofree char *html = NULL;
  g_autofree char *ipynb = NULL;
  guint traced_links = 0;
  gboolean footnote = FALSE;
  gboolean checks_line = FALSE;

  g_assert_no_error (error);

  /* PDF: both 475,046 (bold, and in the table) link to cell c1's place in the appendix;
   * 12,480 links nowhere and has its footnote. */
  pdf = export (session, assay_report_format_lookup ("pdf"), pdf_path);
  uri = g_filename_to_uri (pdf_path, NULL, NULL);
  document = poppler_document_new_from_file (uri, NULL, &error);
  g_assert_no_error (error);
  dest = poppler_document_find_dest (document, "cell-1");
  g_assert_nonnull (dest);
  for (int p = 0; p < poppler_document_get_n_pages (document); p++)
    {
      PopplerPage *page = poppler_document_get_page (document, p);
      g_autofree char *text = poppler_page_get_text (page);
      GList *found = poppler_page_find_text (page, "475,046");

      for (GList *l = found; l != NULL; l = l->next)
        if (page_links_to (page, "cell-1", l->data))
          traced_links++;
      g_list_free_full (found, (GDestroyNotify) poppler_rectangle_free);

      found = poppler_page_find_text (page, "12,480");
      for (GList *l = found; l != NULL; l = l->next)
        g_assert_false (page_links_to (page, "cell-1", l->data));
      g_list_free_full (found, (GDestroyNotify) poppler_rectangle_free);

      if (strstr (text, "12,480: not found in any output of this question's cells.") != NULL)
        footnote = TRUE;
      if (strstr (text, "Checks: read july.csv (rows: 1, columns: 2); opened /data/july.csv") != NULL)
        checks_line = TRUE;
      g_object_unref (page);
    }
  poppler_dest_free (dest);
  g_object_unref (document);
  g_assert_cmpuint (traced_links, ==, 2);
  g_assert_true (footnote);
  g_assert_true (checks_line);

  /* HTML: anchors to the appendix cell with the line as a title; the untraced one marked,
   * with its note. */
  html = export (session, assay_report_format_lookup ("html"), html_path);
  g_assert_nonnull (strstr (html, "<a class=\"traced\" href=\"#cell-1\" title=\"Cell c1, line 1: 475046.3\"><strong>475,046</strong></a>"));
  g_assert_nonnull (strstr (html, "<div class=\"cell\" id=\"cell-1\""));
  g_assert_nonnull (strstr (html, "<p class=\"meta checks\">Checks: read july.csv (rows: 1, columns: 2); opened /data/july.csv</p>"));
  g_assert_nonnull (strstr (html, "<span class=\"untraced\" title=\"Not found in any output of this question&#39;s cells\">12,480</span><sup><a href=\"#nf-q1-1\">1</a></sup>"));
  g_assert_nonnull (strstr (html, "<li id=\"nf-q1-1\">12,480: not found in any output of this question&#39;s cells.</li>"));
  /* The dataset as it was added: rows, size and SHA-256. */
  {
    g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "month,revenue\nJuly,475046.3\n", -1);
    g_autofree char *line = g_strdup_printf ("july.csv: 1 row (28 bytes), SHA-256 %s", sha);

    g_assert_nonnull (strstr (html, line));
    g_assert_null (strstr (html, "changed on disk"));
  }

  /* Notebook: the answer's Markdown links to the cell's anchor. */
  ipynb = export (session, assay_report_format_lookup ("ipynb"), ipynb_path);
  g_assert_nonnull (strstr (ipynb, "**[475,046](#cell-c1)**"));
  g_assert_nonnull (strstr (ipynb, "| July | [475,046](#cell-c1) |"));
  g_assert_nonnull (strstr (ipynb, "12,480<sup>1</sup>"));
  g_assert_nonnull (strstr (ipynb, "<a id=\\\"cell-c1\\\"></a>"));
  g_assert_nonnull (strstr (ipynb, "\"checks\""));

  /* A copy that is no longer what was added is said to be so. */
  {
    g_autofree char *copy = g_build_filename (dir, "data", "july.csv", NULL);
    g_autoptr(AssaySession) changed = NULL;
    g_autofree char *again = NULL;

    g_assert_true (g_file_set_contents (copy, "month,revenue\nJuly,999999.9\n", -1, NULL));
    changed = assay_session_load (dir, &error);
    g_assert_no_error (error);
    again = export (changed, assay_report_format_lookup ("html"), html_path);
    g_assert_nonnull (strstr (again, "changed on disk since it was added to the session"));
  }
  g_assert_true (assay_session_delete (dir, &error));
  g_unlink (pdf_path);
  g_unlink (html_path);
  g_unlink (ipynb_path);
  g_rmdir (parent);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/report/provenance", test_pdf_html_ipynb);
  return g_test_run ();
}
