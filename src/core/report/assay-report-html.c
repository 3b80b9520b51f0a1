/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The HTML export: one self-contained file, figures as data: URIs. Everything that came
 * from the model or the sandbox is escaped; the sandbox's own HTML is never copied, tables
 * are rebuilt from the extractor's text. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"
#include "assay-cell-output.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "assay-markdown.h"
#include "assay-report-private.h"

static const char css[] =
  "body{font-family:'DejaVu Sans',system-ui,sans-serif;max-width:52em;margin:2em auto;"
  "padding:0 1em;color:#1d1d1d;line-height:1.5;background:#fff}"
  "h1{font-size:1.9em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;"
  "margin-top:2em}h3{margin-top:1.4em}"
  ".meta{color:#555}.question{background:#eef3f8;border-left:4px solid #3b75af;padding:.6em 1em;"
  "margin:1em 0}.answer{border-left:4px solid #2e7d32;padding:0 1em;margin:1em 0}"
  "pre{background:#f5f5f5;border:1px solid #e2e2e2;padding:.6em;white-space:pre-wrap;"
  "word-wrap:break-word;overflow-wrap:anywhere;font-family:'DejaVu Sans Mono',monospace;"
  "font-size:.85em}pre.error{background:#fdecea;border-color:#f5c2c0}"
  "code{font-family:'DejaVu Sans Mono',monospace;font-size:.9em;background:#f3f3f3;padding:0 .2em}"
  "figure{margin:1.2em 0;text-align:center}figure img{max-width:100%;height:auto}"
  "figcaption{color:#555;font-size:.9em}"
  ".table-wrap{overflow-x:auto;margin:1em 0}table{border-collapse:collapse;font-size:.85em}"
  "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
  "thead th,tr.head th{background:#eef3f8}.note{color:#777;font-style:italic;font-size:.9em}"
  ".cell{margin:1.5em 0;page-break-inside:avoid}.status-error{color:#b3261e}"
  "nav.toc ol{padding-left:1.4em}nav.toc a{text-decoration:none}"
  ".request{margin:1.5em 0}.request .label{font-weight:bold;margin:.8em 0 .2em}"
  ".request pre .note{display:block;margin:.3em 0}"
  "a.traced{color:inherit;text-decoration:underline dotted #1a5fb4}"
  "table.changes td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
  "table.changes tr.stale td{color:#a51d2d}table.changes tr.changed td.after{font-weight:bold}"
  ".untraced{text-decoration:underline wavy #b3261e}.untraced-notes{color:#7a1d15;font-size:.9em}"
  ".decision{color:#8a5100}.rejected{color:#8a5100;font-style:italic;font-size:.9em}"
  ".proposal{margin:1em 0;page-break-inside:avoid}.proposal h3{font-size:1em;margin:0 0 .2em}"
  ".proposal p{margin:.2em 0}pre.diff{background:#fdf6e3}"
  "@media print{body{max-width:none;margin:0}a{color:inherit}nav.toc{page-break-after:always}"
  "h2{page-break-before:auto}figure,table,pre{page-break-inside:avoid}}";

static void
assay_report_html_append_escaped (GString    *html,
                                  const char *text,
                                  gssize      length)
{
  const char *end;

  if (text == NULL)
    return;
  end = text + (length < 0 ? strlen (text) : (gsize) length);
  for (const char *p = text; p < end; p++)
    switch (*p)
      {
      case '&':
        g_string_append (html, "&amp;");
        break;
      case '<':
        g_string_append (html, "&lt;");
        break;
      case '>':
        g_string_append (html, "&gt;");
        break;
      case '"':
        g_string_append (html, "&quot;");
        break;
      case '\'':
        g_string_append (html, "&#39;");
        break;
      case '\0':
        break;
      default:
        g_string_append_c (html, *p);
        break;
      }
}

static gboolean
assay_report_html_safe_href (const char *href)
{
  return href && (g_str_has_prefix (href, "https://") || g_str_has_prefix (href, "http://")
                  || g_str_has_prefix (href, "mailto:") || href[0] == '#');
}

/* An answer's numbers: the report (for the cells' anchors), where they came from, and the
 * footnote each untraced one has (from 1 in its question; 0: traced). */
typedef struct
{
  const AssayReport     *report;
  const AssayProvenance *provenance;
  guint                 *footnotes;
  guint                  question;
} Trace;

static void
assay_report_html_open_number (GString           *html,
                               const Trace       *trace,
                               const AssayMdSpan *span)
{
  const AssayTracedNumber *traced = g_ptr_array_index (trace->provenance->numbers, span->number);
  const ReportCell *cell = traced->found ? report_find_cell (trace->report, traced->cell_id) : NULL;
  g_autofree char *title = report_traced_title (traced);

  if (cell != NULL)
    g_string_append_printf (html, "<a class=\"traced\" href=\"#cell-%u\" title=\"", cell->execution_count);
  else
    g_string_append (html, traced->found ? "<span class=\"traced\" title=\"" : "<span class=\"untraced\" title=\"");
  assay_report_html_append_escaped (html, title, -1);
  g_string_append (html, "\">");
}

static void
assay_report_html_close_number (GString           *html,
                                const Trace       *trace,
                                const AssayMdSpan *span)
{
  const AssayTracedNumber *traced = g_ptr_array_index (trace->provenance->numbers, span->number);

  if (traced->found && report_find_cell (trace->report, traced->cell_id) != NULL)
    g_string_append (html, "</a>");
  else
    g_string_append (html, "</span>");
  if (!traced->found)
    g_string_append_printf (html, "<sup><a href=\"#nf-q%u-%u\">%u</a></sup>", trace->question,
                            trace->footnotes[span->number], trace->footnotes[span->number]);
}

static void
assay_report_html_append_spans (GString     *html,
                                GPtrArray   *spans,
                                const Trace *trace)
{
  for (guint i = 0; i < spans->len; i++)
    {
      AssayMdSpan *span = g_ptr_array_index (spans, i);
      gboolean link = (span->style & ASSAY_MD_LINK) && assay_report_html_safe_href (span->href);
      gboolean number = trace != NULL && span->number >= 0 &&
                        (guint) span->number < trace->provenance->numbers->len;
      g_auto(GStrv) lines = NULL;

      if (number)
        assay_report_html_open_number (html, trace, span);
      if (link)
        {
          g_string_append (html, "<a href=\"");
          assay_report_html_append_escaped (html, span->href, -1);
          g_string_append (html, "\">");
        }
      if (span->style & ASSAY_MD_BOLD)
        g_string_append (html, "<strong>");
      if (span->style & ASSAY_MD_ITALIC)
        g_string_append (html, "<em>");
      if (span->style & ASSAY_MD_STRIKE)
        g_string_append (html, "<del>");
      if (span->style & ASSAY_MD_CODE)
        g_string_append (html, "<code>");
      lines = g_strsplit (span->text, "\n", -1);
      for (guint j = 0; lines[j]; j++)
        {
          if (j > 0)
            g_string_append (html, "<br>");
          assay_report_html_append_escaped (html, lines[j], -1);
        }
      if (span->style & ASSAY_MD_CODE)
        g_string_append (html, "</code>");
      if (span->style & ASSAY_MD_STRIKE)
        g_string_append (html, "</del>");
      if (span->style & ASSAY_MD_ITALIC)
        g_string_append (html, "</em>");
      if (span->style & ASSAY_MD_BOLD)
        g_string_append (html, "</strong>");
      if (link)
        g_string_append (html, "</a>");
      if (number)
        assay_report_html_close_number (html, trace, span);
    }
}

/* Headings inside the model's text sit below the report's own (h2, h3). */
static void
assay_report_html_append_markdown (GString     *html,
                                   const char  *markdown,
                                   const Trace *trace)
{
  g_autoptr(GPtrArray) blocks = assay_markdown_parse_traced (markdown, -1, trace ? trace->provenance : NULL);
  guint open_depth = 0;
  gboolean open_ordered[32] = { 0 };

  for (guint i = 0; i < blocks->len; i++)
    {
      AssayMdBlock *block = g_ptr_array_index (blocks, i);
      guint depth = block->kind == ASSAY_MD_BLOCK_LIST_ITEM ? MIN (block->level, 31) : 0;

      /* Lists are rebuilt from the items' depths. */
      while (open_depth > depth || (open_depth == depth && depth > 0
                                    && open_ordered[depth] != (block->ordinal > 0)))
        {
          g_string_append (html, open_ordered[open_depth] ? "</ol>\n" : "</ul>\n");
          open_depth--;
        }
      while (open_depth < depth)
        {
          open_depth++;
          open_ordered[open_depth] = block->ordinal > 0;
          if (open_ordered[open_depth])
            g_string_append_printf (html, "<ol start=\"%u\">\n", block->ordinal);
          else
            g_string_append (html, "<ul>\n");
        }

      switch (block->kind)
        {
        case ASSAY_MD_BLOCK_HEADING:
          {
            guint level = MIN (block->level + 2, 6);

            g_string_append_printf (html, "<h%u>", level);
            assay_report_html_append_spans (html, block->spans, trace);
            g_string_append_printf (html, "</h%u>\n", level);
          }
          break;
        case ASSAY_MD_BLOCK_PARAGRAPH:
          g_string_append (html, block->quote ? "<blockquote><p>" : "<p>");
          assay_report_html_append_spans (html, block->spans, trace);
          g_string_append (html, block->quote ? "</p></blockquote>\n" : "</p>\n");
          break;
        case ASSAY_MD_BLOCK_LIST_ITEM:
          g_string_append (html, "<li>");
          assay_report_html_append_spans (html, block->spans, trace);
          g_string_append (html, "</li>\n");
          break;
        case ASSAY_MD_BLOCK_CODE:
          g_string_append (html, "<pre>");
          assay_report_html_append_escaped (html, block->code, -1);
          g_string_append (html, "</pre>\n");
          break;
        case ASSAY_MD_BLOCK_RULE:
          g_string_append (html, "<hr>\n");
          break;
        case ASSAY_MD_BLOCK_TABLE:
          g_string_append (html, "<div class=\"table-wrap\"><table>\n");
          for (guint r = 0; r < block->rows->len; r++)
            {
              GPtrArray *row = g_ptr_array_index (block->rows, r);
              gboolean head = r < block->n_header_rows;

              g_string_append (html, head ? "<tr class=\"head\">" : "<tr>");
              for (guint c = 0; c < row->len; c++)
                {
                  g_string_append (html, head ? "<th>" : "<td>");
                  assay_report_html_append_spans (html, g_ptr_array_index (row, c), trace);
                  g_string_append (html, head ? "</th>" : "</td>");
                }
              g_string_append (html, "</tr>\n");
            }
          g_string_append (html, "</table></div>\n");
          break;
        default:
          break;
        }
    }
  while (open_depth > 0)
    {
      g_string_append (html, open_ordered[open_depth] ? "</ol>\n" : "</ul>\n");
      open_depth--;
    }
}

/* The answer with its numbers marked, and a note for each number no output printed. */
static void
assay_report_html_append_answer (GString          *html,
                                 const AssayReport *report,
                                 guint             question,
                                 const ReportItem *item)
{
  g_autofree guint *footnotes = NULL;
  Trace trace = { report, item->provenance, NULL, question };
  guint n_untraced = 0;

  if (item->provenance == NULL || item->provenance->numbers->len == 0)
    {
      assay_report_html_append_markdown (html, item->text, NULL);
      return;
    }
  footnotes = report_footnotes (item->provenance, &n_untraced);
  trace.footnotes = footnotes;
  assay_report_html_append_markdown (html, item->text, &trace);

  if (n_untraced == 0)
    return;
  g_string_append (html, "<ol class=\"untraced-notes\">\n");
  for (guint i = 0; i < item->provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (item->provenance->numbers, i);

      if (traced->found)
        continue;
      g_string_append_printf (html, "<li id=\"nf-q%u-%u\">", question, footnotes[i]);
      /* Translators: a footnote under the answer: the number as the answer wrote it. */
      {
        g_autofree char *note = report_untraced_note (traced);

        assay_report_html_append_escaped (html, note, -1);
      }
      g_string_append (html, "</li>\n");
    }
  g_string_append (html, "</ol>\n");
}

void
report_append_table_html (GString          *html,
                          const AssayTable *table)
{
  g_string_append (html, "<div class=\"table-wrap\"><table>\n");
  for (guint r = 0; r < table->rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (table->rows, r);
      gboolean head = r < table->n_header_rows;

      g_string_append (html, head ? "<tr class=\"head\">" : "<tr>");
      for (guint c = 0; c < table->n_columns; c++)
        {
          g_string_append (html, head ? "<th>" : "<td>");
          if (c < row->len)
            assay_report_html_append_escaped (html, g_ptr_array_index (row, c), -1);
          g_string_append (html, head ? "</th>" : "</td>");
        }
      g_string_append (html, "</tr>\n");
    }
  g_string_append (html, "</table></div>\n");
  if (table->truncated)
    g_string_append_printf (html, "<p class=\"note\">%s</p>\n",
                            _("The table was cut to fit the report."));
}

static void
assay_report_html_append_figure (GString            *html,
                                 const ReportFigure *figure)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) png = NULL;
  guint width, height;

  png = report_figure_load (figure, &width, &height, &error);
  g_string_append (html, "<figure>");
  if (png)
    {
      g_autofree char *base64 = g_base64_encode (g_bytes_get_data (png, NULL), g_bytes_get_size (png));

      g_string_append_printf (html, "<img width=\"%u\" height=\"%u\" alt=\"", width, height);
      assay_report_html_append_escaped (html, figure->caption, -1);
      g_string_append (html, "\" src=\"data:image/png;base64,");
      g_string_append (html, base64);
      g_string_append (html, "\">");
    }
  else
    {
      g_autofree char *note = g_strdup_printf (_("The figure cannot be shown: %s."), error->message);

      g_string_append (html, "<p class=\"note\">");
      assay_report_html_append_escaped (html, note, -1);
      g_string_append (html, "</p>");
    }
  g_string_append (html, "<figcaption>");
  assay_report_html_append_escaped (html, figure->caption, -1);
  g_string_append (html, "</figcaption></figure>\n");
}

static void
assay_report_html_append_pre (GString    *html,
                              const char *klass,
                              const char *text)
{
  guint cut = 0;
  g_autofree char *shown = report_truncate_text (text, &cut);

  g_string_append_printf (html, "<pre class=\"%s\">", klass);
  assay_report_html_append_escaped (html, shown, -1);
  g_string_append (html, "</pre>\n");
  if (cut > 0)
    {
      g_autofree char *note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "(%u more line not shown)",
                                                            "(%u more lines not shown)", cut), cut);

      g_string_append_printf (html, "<p class=\"note\">%s</p>\n", note);
    }
}

/* What a step shows in the body: its tables and figures. */
static void
assay_report_html_append_cell_results (GString          *html,
                                       const ReportCell *cell)
{
  for (guint i = 0; i < json_array_get_length (cell->outputs); i++)
    {
      g_autoptr(AssayCellOutput) output = assay_cell_output_read (json_array_get_element (cell->outputs, i));
      g_autoptr(AssayTable) table = NULL;

      if (output == NULL)
        continue;
      table = report_output_table (output);
      if (table)
        report_append_table_html (html, table);
    }
  for (guint i = 0; i < cell->figures->len; i++)
    assay_report_html_append_figure (html, g_ptr_array_index (cell->figures, i));
  if (!cell->succeeded)
    {
      g_autofree char *note = report_cell_status_note (cell);

      g_string_append (html, "<p class=\"note status-error\">");
      assay_report_html_append_escaped (html, note, -1);
      g_string_append (html, "</p>\n");
    }
}

static void
assay_report_html_append_cell_appendix (GString          *html,
                                        AssayReport      *report,
                                        const ReportCell *cell)
{
  g_autofree char *heading = NULL;

  heading = g_strdup_printf (_("Cell %s [%u]: %s"), cell->id, cell->execution_count,
                             cell->description ? cell->description : _("(no description)"));
  g_string_append_printf (html, "<div class=\"cell\" id=\"cell-%u\"><h3>", cell->execution_count);
  assay_report_html_append_escaped (html, heading, -1);
  g_string_append (html, "</h3>\n<p class=\"meta\">");
  {
    g_autofree char *meta = g_strdup_printf (_("Status: %s, %.2f s"), assay_cell_status_to_string (cell->status),
                                             cell->elapsed_ms / 1000.0);

    assay_report_html_append_escaped (html, meta, -1);
  }
  g_string_append (html, "</p>\n");
  if (report_cell_decision_note (cell) != NULL)
    {
      g_string_append (html, "<p class=\"decision\">");
      assay_report_html_append_escaped (html, report_cell_decision_note (cell), -1);
      g_string_append (html, "</p>\n");
    }
  /* What the kernel saw the cell do to its data, and the files it read. */
  {
    g_autofree char *checks = assay_cell_checks_describe (cell->checks, FALSE);

    if (checks != NULL)
      {
        g_autofree char *line = g_strdup_printf (_("Checks: %s"), checks);

        g_string_append (html, "<p class=\"meta checks\">");
        assay_report_html_append_escaped (html, line, -1);
        g_string_append (html, "</p>\n");
      }
  }
  {
    g_autofree char *query = report_cell_query_note (cell);

    if (query != NULL)
      {
        g_string_append (html, "<p class=\"meta query\">");
        assay_report_html_append_escaped (html, query, -1);
        g_string_append (html, "</p>\n");
      }
  }
  if (report->options.include_code && cell->code)
    assay_report_html_append_pre (html, "code", cell->code);

  for (guint i = 0; i < json_array_get_length (cell->outputs); i++)
    {
      g_autoptr(AssayCellOutput) output = assay_cell_output_read (json_array_get_element (cell->outputs, i));
      g_autoptr(AssayTable) table = NULL;
      g_autofree char *text = NULL;

      if (output == NULL)
        continue;
      table = report_output_table (output);
      if (table)
        {
          /* The body shows it already, as a table. */
          g_string_append_printf (html, "<p class=\"note\">%s</p>\n", _("(A table, shown above.)"));
          continue;
        }
      /* A figure's text is only its name: its note below says where it is. */
      if (output->png_base64 != NULL)
        continue;
      text = assay_cell_output_dup_text (output);
      if (text && *text)
        assay_report_html_append_pre (html,
                                      output->kind == ASSAY_CELL_OUTPUT_ERROR ? "error" : "output",
                                      text);
    }
  for (guint i = 0; i < cell->figures->len; i++)
    {
      const ReportFigure *figure = g_ptr_array_index (cell->figures, i);
      g_autofree char *note = g_strdup_printf (_("%s (shown above)"), figure->caption);

      g_string_append (html, "<p class=\"note\">");
      assay_report_html_append_escaped (html, note, -1);
      g_string_append (html, "</p>\n");
    }
  if (cell->files->len > 0)
    {
      g_autoptr(GString) joined = g_string_new (NULL);
      g_autofree char *note = NULL;

      for (guint i = 0; i < cell->files->len; i++)
        g_string_append_printf (joined, "%s%s", i ? ", " : "",
                                (char *) g_ptr_array_index (cell->files, i));
      note = g_strdup_printf (_("Files: %s"), joined->str);
      g_string_append (html, "<p class=\"note\">");
      assay_report_html_append_escaped (html, note, -1);
      g_string_append (html, "</p>\n");
    }
  g_string_append (html, "</div>\n");
}

static void
assay_report_html_append_note (GString    *html,
                               const char *klass,
                               const char *text)
{
  g_string_append_printf (html, "<p class=\"%s\">", klass);
  assay_report_html_append_escaped (html, text, -1);
  g_string_append (html, "</p>\n");
}

/* One message of a request: its label, then its text, cut in the middle when long. */
static void
assay_report_html_append_request_entry (GString                  *html,
                                        const ReportRequestEntry *entry)
{
  if (entry->label == NULL)
    {
      assay_report_html_append_note (html, "note", entry->head);
      return;
    }
  assay_report_html_append_note (html, "label", entry->label);
  g_string_append (html, "<pre class=\"request-text\">");
  assay_report_html_append_escaped (html, entry->head, -1);
  if (entry->cut_note != NULL)
    {
      g_string_append (html, "<span class=\"note\">");
      assay_report_html_append_escaped (html, entry->cut_note, -1);
      g_string_append (html, "</span>");
      assay_report_html_append_escaped (html, entry->tail, -1);
    }
  g_string_append (html, "</pre>\n");
}

/* "What changed": a session that ran another again on new data. */
static void
assay_report_html_append_changes (GString     *html,
                                  AssayReport *report)
{
  g_autofree char *intro = report_changes_intro (report);
  const char *headings[] = { N_("Question"), N_("Number"), N_("Before"), N_("After"), N_("Change"), N_("Change %"), N_("Cell") };

  g_string_append (html, "<section id=\"changes\">\n<h2>");
  assay_report_html_append_escaped (html, report_changes_title (), -1);
  g_string_append (html, "</h2>\n<p>");
  assay_report_html_append_escaped (html, intro, -1);
  g_string_append (html, "</p>\n");
  if (report->rerun_notes->len > 0)
    {
      g_string_append (html, "<ul>\n");
      for (guint i = 0; i < report->rerun_notes->len; i++)
        {
          g_string_append (html, "<li>");
          assay_report_html_append_escaped (html, g_ptr_array_index (report->rerun_notes, i), -1);
          g_string_append (html, "</li>\n");
        }
      g_string_append (html, "</ul>\n");
    }
  if (report->changes->len == 0)
    {
      g_string_append (html, "</section>\n");
      return;
    }
  g_string_append (html, "<div class=\"table-wrap\"><table class=\"changes\">\n<thead><tr>");
  for (gsize i = 0; i < G_N_ELEMENTS (headings); i++)
    {
      g_string_append (html, "<th>");
      assay_report_html_append_escaped (html, _(headings[i]), -1);
      g_string_append (html, "</th>");
    }
  g_string_append (html, "</tr></thead>\n<tbody>\n");
  for (guint i = 0; i < report->changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (report->changes, i);
      g_autofree char *delta = report_change_delta (change);
      g_autofree char *percent = report_change_percent (change);
      const char *klass = change->stale ? "stale" : change->after != change->before ? "changed" : "same";

      g_autofree char *label = report_change_label (change);

      g_string_append_printf (html, "<tr class=\"%s\"><td class=\"num\"><a href=\"#q%u\">%u</a></td><td",
                              klass, change->question, change->question);
      /* The sentence it sits in, on hover. */
      if (change->sentence != NULL)
        {
          g_string_append (html, " title=\"");
          assay_report_html_append_escaped (html, change->sentence, -1);
          g_string_append (html, "\"");
        }
      g_string_append (html, ">");
      assay_report_html_append_escaped (html, label, -1);
      g_string_append (html, "</td><td class=\"num\">");
      assay_report_html_append_escaped (html, change->before_text, -1);
      g_string_append (html, "</td><td class=\"num after\">");
      assay_report_html_append_escaped (html, change->stale ? _("not found again") : change->after_text, -1);
      g_string_append (html, "</td><td class=\"num\">");
      assay_report_html_append_escaped (html, delta, -1);
      g_string_append (html, "</td><td class=\"num\">");
      assay_report_html_append_escaped (html, percent, -1);
      g_string_append (html, "</td><td>");
      assay_report_html_append_escaped (html, change->cell_id != NULL ? change->cell_id : "", -1);
      g_string_append (html, "</td></tr>\n");
    }
  g_string_append (html, "</tbody>\n</table></div>\n</section>\n");
}

static void
assay_report_html_append_requests (GString     *html,
                                   AssayReport *report)
{
  g_string_append (html, "<section id=\"requests\">\n<h2>");
  assay_report_html_append_escaped (html, report_requests_title (), -1);
  g_string_append (html, "</h2>\n");
  assay_report_html_append_note (html, "note", report_requests_intro (report));
  for (guint i = 0; i < report->requests->len; i++)
    {
      const ReportRequest *request = g_ptr_array_index (report->requests, i);

      g_string_append_printf (html, "<div class=\"request\" id=\"request-%u\">\n<h3>", request->number);
      assay_report_html_append_escaped (html, request->heading, -1);
      g_string_append (html, "</h3>\n");
      assay_report_html_append_note (html, "meta", request->meta);
      if (request->tokens != NULL)
        assay_report_html_append_note (html, "meta", request->tokens);
      if (request->problem != NULL)
        assay_report_html_append_note (html, "note status-error", request->problem);
      if (request->system_note != NULL)
        assay_report_html_append_note (html, "note", request->system_note);
      if (request->added_note != NULL)
        assay_report_html_append_note (html, "meta", request->added_note);
      for (guint j = 0; j < request->entries->len; j++)
        assay_report_html_append_request_entry (html, g_ptr_array_index (request->entries, j));
      g_string_append (html, "</div>\n");
    }
  g_string_append (html, "</section>\n");
}

/* The audit trail: every proposal and what the analyst decided. */
static void
assay_report_html_append_audit (GString     *html,
                                AssayReport *report)
{
  g_string_append (html, "<section id=\"audit\">\n<h2>");
  assay_report_html_append_escaped (html, report_audit_title (), -1);
  g_string_append (html, "</h2>\n<p class=\"note\">");
  assay_report_html_append_escaped (html, report_audit_intro (), -1);
  g_string_append (html, "</p>\n");
  for (guint i = 0; i < report->proposals->len; i++)
    {
      const ReportProposal *proposal = g_ptr_array_index (report->proposals, i);
      g_autofree char *heading = report_proposal_heading (proposal);
      g_autofree char *decision = report_proposal_decision (proposal);
      g_autofree char *reason = report_proposal_reason (proposal);
      gboolean plain = proposal->decision == ASSAY_DECISION_AUTO ||
                       proposal->decision == ASSAY_DECISION_APPROVED;

      g_string_append_printf (html, "<div class=\"proposal\" data-decision=\"%s\">\n<h3>",
                              assay_decision_to_string (proposal->decision));
      assay_report_html_append_escaped (html, heading, -1);
      g_string_append_printf (html, "</h3>\n<p class=\"%s\">", plain ? "meta" : "decision");
      assay_report_html_append_escaped (html, decision, -1);
      g_string_append (html, "</p>\n");
      if (reason != NULL)
        {
          g_string_append (html, "<p class=\"reason\">");
          assay_report_html_append_escaped (html, reason, -1);
          g_string_append (html, "</p>\n");
        }
      if (proposal->decision == ASSAY_DECISION_REJECTED && report->options.include_code &&
          proposal->proposed_code != NULL)
        {
          g_string_append_printf (html, "<p class=\"note\">%s</p>\n", report_proposal_code_label (proposal));
          assay_report_html_append_pre (html, "code", proposal->proposed_code);
        }
      if (proposal->diff != NULL && report->options.include_code)
        assay_report_html_append_pre (html, "diff", proposal->diff);
      else if (proposal->diff != NULL)
        {
          g_autofree char *note = report_proposal_changed_note (proposal);

          g_string_append (html, "<p class=\"note\">");
          assay_report_html_append_escaped (html, note, -1);
          g_string_append (html, "</p>\n");
        }
      g_string_append (html, "</div>\n");
    }
  g_string_append (html, "</section>\n");
}

static char *
assay_report_html_question_heading (const ReportQuestion *question)
{
  return g_strdup_printf (_("Question %u"), question->number);
}

gboolean
assay_report_write_html (AssayReport   *report,
                         GOutputStream *out,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GString) html = g_string_sized_new (64 * 1024);
  g_autofree char *date = report_format_date (report->created);
  guint n_steps = report->questions->len + 1, done = 0;

  g_string_append (html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                         "<meta name=\"generator\" content=\"Assay " PACKAGE_VERSION "\">\n<title>");
  assay_report_html_append_escaped (html, report->title, -1);
  g_string_append_printf (html, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>", css);
  assay_report_html_append_escaped (html, report->title, -1);
  g_string_append (html, "</h1>\n<p class=\"meta\">");
  assay_report_html_append_escaped (html, date, -1);
  g_string_append (html, "</p>\n");
  if (report->ran_in != NULL)
    {
      g_autofree char *line = g_strdup_printf (_("The code ran in %s."), report->ran_in);

      g_string_append (html, "<p class=\"meta\">");
      assay_report_html_append_escaped (html, line, -1);
      g_string_append (html, "</p>\n");
    }
  if (report->datasets->len > 0)
    {
      g_string_append_printf (html, "<p>%s</p>\n<ul>\n", _("Data:"));
      for (guint i = 0; i < report->datasets->len; i++)
        {
          g_autofree char *summary = report_dataset_summary (g_ptr_array_index (report->datasets, i));

          g_string_append (html, "<li>");
          assay_report_html_append_escaped (html, summary, -1);
          g_string_append (html, "</li>\n");
        }
      g_string_append (html, "</ul>\n");
    }
  g_string_append (html, "</header>\n");

  /* The table of contents. */
  g_string_append_printf (html, "<nav class=\"toc\">\n<h2>%s</h2>\n<ol>\n", _("Contents"));
  if (report->rerun_of_title != NULL)
    {
      g_string_append (html, "<li><a href=\"#changes\">");
      assay_report_html_append_escaped (html, report_changes_title (), -1);
      g_string_append (html, "</a></li>\n");
    }
  for (guint i = 0; i < report->questions->len; i++)
    {
      ReportQuestion *question = g_ptr_array_index (report->questions, i);
      g_autofree char *heading = assay_report_html_question_heading (question);

      g_string_append_printf (html, "<li><a href=\"#q%u\">", question->number);
      assay_report_html_append_escaped (html, heading, -1);
      g_string_append (html, ": ");
      assay_report_html_append_escaped (html, question->text, -1);
      g_string_append (html, "</a></li>\n");
    }
  if (report->cells->len > 0)
    g_string_append_printf (html, "<li><a href=\"#appendix\">%s</a></li>\n",
                            report->options.include_code ? _("Appendix: the code and its output")
                                                         : _("Appendix: the output of each step"));
  if (report->proposals->len > 0)
    {
      g_string_append (html, "<li><a href=\"#audit\">");
      assay_report_html_append_escaped (html, report_audit_title (), -1);
      g_string_append (html, "</a></li>\n");
    }
  if (report->requests != NULL)
    {
      g_string_append (html, "<li><a href=\"#requests\">");
      assay_report_html_append_escaped (html, report_requests_title (), -1);
      g_string_append (html, "</a></li>\n");
    }
  g_string_append (html, "</ol>\n</nav>\n");
  if (report->rerun_of_title != NULL)
    assay_report_html_append_changes (html, report);

  for (guint i = 0; i < report->questions->len; i++)
    {
      ReportQuestion *question = g_ptr_array_index (report->questions, i);
      g_autofree char *heading = assay_report_html_question_heading (question);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      g_string_append_printf (html, "<section id=\"q%u\">\n<h2>", question->number);
      assay_report_html_append_escaped (html, heading, -1);
      g_string_append (html, "</h2>\n<div class=\"question\">");
      assay_report_html_append_escaped (html, question->text, -1);
      g_string_append (html, "</div>\n");
      for (guint j = 0; j < question->items->len; j++)
        {
          ReportItem *item = g_ptr_array_index (question->items, j);

          switch (item->kind)
            {
            case REPORT_ITEM_TEXT:
              assay_report_html_append_markdown (html, item->text, NULL);
              break;
            case REPORT_ITEM_ANSWER:
              g_string_append_printf (html, "<div class=\"answer\">\n<h3>%s</h3>\n", _("Answer"));
              assay_report_html_append_answer (html, report, question->number, item);
              g_string_append (html, "</div>\n");
              break;
            case REPORT_ITEM_CELL:
              assay_report_html_append_cell_results (html, item->cell);
              break;
            case REPORT_ITEM_REJECTED:
              {
                g_autofree char *note = report_rejected_note (item->proposal);

                g_string_append (html, "<p class=\"rejected\">");
                assay_report_html_append_escaped (html, note, -1);
                g_string_append (html, "</p>\n");
              }
              break;
            default:
              break;
            }
        }
      g_string_append (html, "</section>\n");
      assay_report_progress (report, (double) ++done / n_steps, _("Writing the questions"));
    }

  if (report->cells->len > 0)
    {
      g_string_append_printf (html, "<section id=\"appendix\">\n<h2>%s</h2>\n",
                              report->options.include_code ? _("Appendix: the code and its output")
                                                           : _("Appendix: the output of each step"));
      for (guint i = 0; i < report->cells->len; i++)
        assay_report_html_append_cell_appendix (html, report, g_ptr_array_index (report->cells, i));
      g_string_append (html, "</section>\n");
    }
  if (report->proposals->len > 0)
    assay_report_html_append_audit (html, report);
  if (report->requests != NULL)
    assay_report_html_append_requests (html, report);
  g_string_append (html, "</body>\n</html>\n");

  return g_output_stream_write_all (out, html->str, html->len, NULL, cancellable, error);
}
