/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The PDF export, drawn by Assay with cairo and Pango. Everything is laid out first into a
 * list of drawing operations with their pages (so the table of contents and "Page N of M"
 * know every page number), then drawn page by page onto a cairo PDF surface. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"
#include "assay-cell-output.h"

#include <math.h>
#include <string.h>

#include <cairo.h>
#include <cairo-pdf.h>
#include <glib/gi18n-lib.h>
#include <pango/pangocairo.h>

#include "assay-markdown.h"
#include "assay-report-private.h"

/* A4 in points, 2 cm side margins. */
#define PAGE_WIDTH     595.276
#define PAGE_HEIGHT    841.890
#define MARGIN_X       56.69
#define BODY_TOP       62.0
#define BODY_BOTTOM    (PAGE_HEIGHT - 60.0)
#define TEXT_WIDTH     (PAGE_WIDTH - 2 * MARGIN_X)

#define SANS           "DejaVu Sans"
#define MONO           "DejaVu Sans Mono"
#define BODY_SIZE      10.0
#define CODE_SIZE      8.0
#define TABLE_SIZE     9.0
#define TABLE_MIN_SIZE 6.5
#define CELL_PAD       3.0
/* What the analyst decided about a cell (an edit, a rejection): not an error, not the body. */
#define DECISION_COLOR "#8a5100"

typedef enum
{
  OP_LINE,        /* one line of a layout, at its baseline */
  OP_LAYOUT,      /* a whole layout, top-left */
  OP_FILL,        /* a filled rectangle */
  OP_STROKE,      /* a rectangle's outline */
  OP_IMAGE,
  OP_DEST,        /* a named destination for links and the outline */
  OP_TOC_ENTRY,   /* a table-of-contents line: its page number is known only at drawing time */
} OpKind;

typedef struct
{
  OpKind           kind;
  guint            page;
  double           x, y, width, height;
  guint32          color;      /* 0xRRGGBB */
  PangoLayout     *layout;
  PangoLayoutLine *line;
  cairo_surface_t *image;
  guint            dest;       /* OP_DEST, OP_TOC_ENTRY: index in dests */
  double           line_x;     /* OP_LINE: where the line starts in its layout */
} Op;

/* A traced number links to its cell in the appendix. Its span carries the link as a rise of
 * 1 to MAX_LINKS Pango units (under half a point, unseen), found again when the line is
 * drawn; a footnote's rise is thousands of units. */
#define MAX_LINKS 400

typedef struct
{
  char   *name;
  char   *title;
  guint   outline_level;  /* 0: not in the outline */
  guint   page;
  double  y;
} Dest;

typedef struct
{
  AssayReport  *report;
  PangoContext *context;
  GArray       *ops;        /* Op */
  GArray       *dests;      /* Dest */
  guint         page;       /* from 1 */
  double        y;
  GCancellable *cancellable;
  GPtrArray    *links;      /* char*: the cell each link goes to, by rise - 1 */
  GHashTable   *cell_dests; /* cell id → its dest's name, for the cells in the appendix */
  /* The answer being placed: its numbers, and each untraced one's footnote (0: traced). */
  const AssayProvenance *provenance;
  const guint  *footnotes;
} Layout;

/* ---- layout primitives -------------------------------------------------------------------- */

static void
assay_report_pdf_op_clear (gpointer data)
{
  Op *op = data;

  g_clear_object (&op->layout);
  g_clear_pointer (&op->line, pango_layout_line_unref);
  g_clear_pointer (&op->image, cairo_surface_destroy);
}

static void
assay_report_pdf_dest_clear (gpointer data)
{
  Dest *dest = data;

  g_free (dest->name);
  g_free (dest->title);
}

static Op *
assay_report_pdf_add_op (Layout *layout,
                         OpKind  kind)
{
  Op op = { 0 };

  op.kind = kind;
  op.page = layout->page;
  g_array_append_val (layout->ops, op);
  return &g_array_index (layout->ops, Op, layout->ops->len - 1);
}

static void
assay_report_pdf_new_page (Layout *layout)
{
  layout->page++;
  layout->y = BODY_TOP;
}

/* Starts a new page unless HEIGHT fits below. */
static void
assay_report_pdf_ensure_space (Layout *layout,
                               double  height)
{
  if (layout->y + height > BODY_BOTTOM && layout->y > BODY_TOP + 1)
    assay_report_pdf_new_page (layout);
}

static void
assay_report_pdf_add_fill (Layout  *layout,
                           double   x,
                           double   y,
                           double   width,
                           double   height,
                           guint32  color)
{
  Op *op = assay_report_pdf_add_op (layout, OP_FILL);

  op->x = x, op->y = y, op->width = width, op->height = height, op->color = color;
}

static guint
assay_report_pdf_add_dest (Layout     *layout,
                           const char *title,
                           guint       outline_level)
{
  Dest dest = { 0 };
  Op *op;

  dest.name = g_strdup_printf ("d%u", layout->dests->len + 1);
  dest.title = g_strdup (title);
  dest.outline_level = outline_level;
  dest.page = layout->page;
  dest.y = layout->y;
  g_array_append_val (layout->dests, dest);
  op = assay_report_pdf_add_op (layout, OP_DEST);
  op->dest = layout->dests->len - 1;
  op->y = layout->y;
  return op->dest;
}

static PangoLayout *
assay_report_pdf_new_layout (Layout     *layout,
                             const char *family,
                             double      size,
                             double      width)
{
  PangoLayout *text = pango_layout_new (layout->context);
  PangoFontDescription *font = pango_font_description_new ();

  pango_font_description_set_family (font, family);
  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (text, font);
  pango_font_description_free (font);
  if (width > 0)
    {
      pango_layout_set_width (text, (int) (width * PANGO_SCALE));
      pango_layout_set_wrap (text, PANGO_WRAP_WORD_CHAR);
    }
  return text;
}

/* Pango breaks a word too long for its line character by character, at a cost that grows
 * with the square of the word: one of 250,000 characters took over 30 s. A zero-width space
 * every BREAK_EVERY characters of a run without spaces gives it break opportunities instead;
 * in MARKUP, never inside a tag or an entity. */
#define BREAK_EVERY 512

static char *
assay_report_pdf_with_break_opportunities (const char *text,
                                           gboolean    markup)
{
  GString *out = g_string_sized_new (strlen (text) + 16);
  gboolean in_tag = FALSE;
  gboolean in_entity = FALSE;
  guint run = 0;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (markup && in_tag)
        in_tag = c != '>';
      else if (markup && c == '<')
        in_tag = TRUE;
      else if (markup && in_entity)
        in_entity = c != ';';
      else if (g_unichar_isspace (c))
        run = 0;
      else
        {
          if (run >= BREAK_EVERY)
            {
              g_string_append (out, "\xe2\x80\x8b");   /* U+200B ZERO WIDTH SPACE */
              run = 0;
            }
          if (markup && c == '&')
            in_entity = TRUE;
          run++;
        }
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}

static void
assay_report_pdf_set_markup (PangoLayout *text,
                             const char  *given)
{
  g_autoptr(GError) error = NULL;
  PangoAttrList *attrs = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *markup = assay_report_pdf_with_break_opportunities (given, TRUE);

  /* Our markup is built from escaped text; should it still fail, the text is shown bare. */
  if (pango_parse_markup (markup, -1, 0, &attrs, &plain, NULL, &error))
    {
      pango_layout_set_text (text, plain, -1);
      pango_layout_set_attributes (text, attrs);
      pango_attr_list_unref (attrs);
    }
  else
    pango_layout_set_text (text, markup, -1);
}

/* Places TEXT line by line from the current position, breaking pages between lines; with
 * BACKGROUND, each line gets a band of it (PAD wide on each side). */
static void
assay_report_pdf_place_lines (Layout      *layout,
                              PangoLayout *text,
                              double       x,
                              guint32      background,
                              double       pad)
{
  PangoLayoutIter *iter = pango_layout_get_iter (text);
  double width = pango_layout_get_width (text) > 0
                 ? pango_layout_get_width (text) / (double) PANGO_SCALE : TEXT_WIDTH;

  do
    {
      PangoRectangle logical;
      double height, baseline;
      Op *op;

      pango_layout_iter_get_line_extents (iter, NULL, &logical);
      height = logical.height / (double) PANGO_SCALE;
      baseline = (pango_layout_iter_get_baseline (iter) - logical.y) / (double) PANGO_SCALE;
      if (layout->y + height > BODY_BOTTOM && layout->y > BODY_TOP + 1)
        assay_report_pdf_new_page (layout);
      if (background)
        assay_report_pdf_add_fill (layout, x - pad, layout->y, width + 2 * pad, height, background);
      op = assay_report_pdf_add_op (layout, OP_LINE);
      op->layout = g_object_ref (text);
      op->line = pango_layout_line_ref (pango_layout_iter_get_line_readonly (iter));
      op->x = x + logical.x / (double) PANGO_SCALE;
      op->line_x = logical.x / (double) PANGO_SCALE;
      op->y = layout->y + baseline;
      layout->y += height;
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

static void
assay_report_pdf_place_markup (Layout     *layout,
                               const char *markup,
                               const char *family,
                               double      size,
                               double      indent,
                               double      space_after)
{
  g_autoptr(PangoLayout) text = assay_report_pdf_new_layout (layout, family, size, TEXT_WIDTH - indent);

  assay_report_pdf_set_markup (text, markup);
  assay_report_pdf_place_lines (layout, text, MARGIN_X + indent, 0, 0);
  layout->y += space_after;
}

static void
assay_report_pdf_place_text (Layout     *layout,
                             const char *text,
                             const char *family,
                             double      size,
                             const char *style_open,
                             const char *style_close,
                             double      space_after)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_autofree char *markup = g_strconcat (style_open, escaped, style_close, NULL);

  assay_report_pdf_place_markup (layout, markup, family, size, 0, space_after);
}

/* A heading stays with at least a few lines of what follows it. */
static void
assay_report_pdf_place_heading (Layout     *layout,
                                const char *text,
                                double      size,
                                double      space_before)
{
  if (layout->y > BODY_TOP + 1)
    layout->y += space_before;
  assay_report_pdf_ensure_space (layout, size * 1.4 + 40);
  assay_report_pdf_place_text (layout, text, SANS, size, "<b>", "</b>", size * 0.45);
}

/* Monospaced text on a tinted band, cut when long. */
static void
assay_report_pdf_place_preformatted (Layout     *layout,
                                     const char *text,
                                     guint32     background,
                                     gboolean    truncate)
{
  g_autoptr(PangoLayout) block = assay_report_pdf_new_layout (layout, MONO, CODE_SIZE, TEXT_WIDTH - 8);
  g_autofree char *shown = NULL;
  guint cut = 0;

  shown = truncate ? report_truncate_text (text, &cut) : g_utf8_make_valid (text, -1);
  if (*shown == '\0')
    return;
  {
    g_autofree char *breakable = assay_report_pdf_with_break_opportunities (shown, FALSE);

    pango_layout_set_text (block, breakable, -1);
  }
  assay_report_pdf_ensure_space (layout, 3 * CODE_SIZE);
  assay_report_pdf_add_fill (layout, MARGIN_X, layout->y, TEXT_WIDTH, 4, background);
  layout->y += 4;
  assay_report_pdf_place_lines (layout, block, MARGIN_X + 4, background, 4);
  assay_report_pdf_add_fill (layout, MARGIN_X, layout->y, TEXT_WIDTH, 4, background);
  layout->y += 4 + 6;
  if (cut > 0)
    {
      g_autofree char *note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "(%u more line not shown)",
                                                            "(%u more lines not shown)", cut), cut);

      assay_report_pdf_place_text (layout,
                                   note,
                                   SANS,
                                   8.5,
                                   "<i><span foreground=\"#666666\">",
                                   "</span></i>",
                                   6);
    }
}

/* ---- tables ------------------------------------------------------------------------------- */

static void
assay_report_pdf_place_table_row (Layout       *layout,
                                  GPtrArray    *cells,
                                  const double *widths,
                                  guint         n_columns,
                                  double        height,
                                  gboolean      header,
                                  guint         index)
{
  double x = MARGIN_X;

  for (guint c = 0; c < n_columns; c++)
    {
      Op *op;

      if (header || index % 2 == 0)
        assay_report_pdf_add_fill (layout, x, layout->y, widths[c], height, header ? 0xdfe8f1 : 0xf6f8fa);
      op = assay_report_pdf_add_op (layout, OP_LAYOUT);
      op->layout = g_object_ref (g_ptr_array_index (cells, c));
      op->x = x + CELL_PAD;
      op->y = layout->y + CELL_PAD;
      op->width = widths[c] - 2 * CELL_PAD;
      op->height = height - 2 * CELL_PAD;
      op = assay_report_pdf_add_op (layout, OP_STROKE);
      op->x = x, op->y = layout->y, op->width = widths[c], op->height = height;
      op->color = 0xb8c2cc;
      x += widths[c];
    }
  layout->y += height;
}

/* Column widths: the natural widths when they fit, else the font shrinks to the minimum
 * size, and then the widest columns are narrowed (their cells wrap). */
static void
assay_report_pdf_place_table (Layout    *layout,
                              GPtrArray *rows,            /* GPtrArray* of markup strings */
                              guint      n_columns,
                              guint      n_header_rows)
{
  g_autofree double *natural = g_new0 (double, n_columns);
  g_autofree double *widths = g_new0 (double, n_columns);
  g_autofree gboolean *fixed = g_new0 (gboolean, n_columns);
  double total = 0, size = TABLE_SIZE, available = TEXT_WIDTH;
  guint n_free;

  if (rows->len == 0 || n_columns == 0)
    return;

  for (guint r = 0; r < rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (rows, r);

      for (guint c = 0; c < row->len && c < n_columns; c++)
        {
          g_autoptr(PangoLayout) cell = assay_report_pdf_new_layout (layout, SANS, TABLE_SIZE, -1);
          g_autofree char *markup = r < n_header_rows
            ? g_strconcat ("<b>", (char *) g_ptr_array_index (row, c), "</b>", NULL)
            : g_strdup (g_ptr_array_index (row, c));
          int width;

          assay_report_pdf_set_markup (cell, markup);
          pango_layout_get_size (cell, &width, NULL);
          natural[c] = MAX (natural[c], width / (double) PANGO_SCALE + 2 * CELL_PAD + 2);
        }
    }
  for (guint c = 0; c < n_columns; c++)
    total += natural[c];
  if (total > available)
    size = MAX (TABLE_MIN_SIZE, TABLE_SIZE * available / total);
  for (guint c = 0; c < n_columns; c++)
    natural[c] = (natural[c] - 2 * CELL_PAD) * size / TABLE_SIZE + 2 * CELL_PAD;

  /* Narrow columns keep their width; the rest share what is left. */
  n_free = n_columns;
  for (;;)
    {
      double share = available / MAX (n_free, 1);
      gboolean changed = FALSE;

      for (guint c = 0; c < n_columns; c++)
        if (!fixed[c] && natural[c] <= share)
          {
            widths[c] = natural[c];
            fixed[c] = TRUE;
            available -= natural[c];
            n_free--;
            changed = TRUE;
          }
      if (!changed || n_free == 0)
        {
          for (guint c = 0; c < n_columns; c++)
            if (!fixed[c])
              widths[c] = MAX (share, 2 * CELL_PAD + size);
          break;
        }
    }

  {
    g_autoptr(GPtrArray) row_cells = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
    g_autofree double *heights = g_new0 (double, rows->len);

    for (guint r = 0; r < rows->len; r++)
      {
        GPtrArray *row = g_ptr_array_index (rows, r);
        GPtrArray *cells = g_ptr_array_new_with_free_func (g_object_unref);
        gboolean header = r < n_header_rows;

        if (g_cancellable_is_cancelled (layout->cancellable))
          return;
        for (guint c = 0; c < n_columns; c++)
          {
            PangoLayout *cell = assay_report_pdf_new_layout (layout, SANS, size, widths[c] - 2 * CELL_PAD);
            int cell_height;

            if (c < row->len)
              {
                g_autofree char *markup = header
                  ? g_strconcat ("<b>", (char *) g_ptr_array_index (row, c), "</b>", NULL)
                  : g_strdup (g_ptr_array_index (row, c));

                assay_report_pdf_set_markup (cell, markup);
              }
            pango_layout_get_size (cell, NULL, &cell_height);
            heights[r] = MAX (heights[r], cell_height / (double) PANGO_SCALE + 2 * CELL_PAD);
            g_ptr_array_add (cells, cell);
          }
        heights[r] = MIN (heights[r], BODY_BOTTOM - BODY_TOP);
        g_ptr_array_add (row_cells, cells);
      }

    g_autofree gboolean *breaks = g_new0 (gboolean, rows->len);

    report_pdf_table_breaks (heights, rows->len, n_header_rows, layout->y, BODY_TOP, BODY_BOTTOM, breaks);
    for (guint r = 0; r < rows->len; r++)
      {
        if (breaks[r])
          {
            assay_report_pdf_new_page (layout);
            /* The header rows again at the top of the new page. */
            if (r >= n_header_rows)
              for (guint h = 0; h < n_header_rows; h++)
                assay_report_pdf_place_table_row (layout, g_ptr_array_index (row_cells, h), widths, n_columns,
                                                  heights[h], TRUE, h);
          }
        assay_report_pdf_place_table_row (layout, g_ptr_array_index (row_cells, r), widths, n_columns, heights[r],
                                          r < n_header_rows, r);
      }
  }
  layout->y += 8;
}

void
report_pdf_table_breaks (const double *heights,
                         guint         n_rows,
                         guint         n_header,
                         double        y,
                         double        top,
                         double        bottom,
                         gboolean     *breaks)
{
  double header = 0;
  guint first_body = MIN (n_header, n_rows);
  guint on_page = 0;     /* body rows placed on the current page */

  for (guint h = 0; h < first_body; h++)
    header += heights[h];
  memset (breaks, 0, n_rows * sizeof (gboolean));
  if (n_rows == 0)
    return;
  /* The header and the first two rows (or all, if fewer) together, or the table starts on
   * the next page: a header with one row under it at a page's foot reads as a fragment. */
  for (guint with = 2; y > top + 1; with--)
    {
      double start = header;

      for (guint r = first_body; r < MIN (n_rows, first_body + with); r++)
        start += heights[r];
      if (y + start <= bottom)
        break;
      /* Moved when a fresh page holds what this one does not (with fewer rows if need be). */
      if (top + start <= bottom || with == 0)
        {
          breaks[0] = TRUE;
          y = top;
          break;
        }
    }
  for (guint r = 0; r < first_body; r++)
    y += heights[r];
  for (guint r = first_body; r < n_rows; r++)
    {
      gboolean fits = y + heights[r] <= bottom;

      /* The last row would go alone onto the next page: the row before it goes with it,
       * when this page keeps at least two rows and the next page has room for both. */
      if (fits && r + 2 == n_rows && on_page >= 2 && y + heights[r] + heights[r + 1] > bottom &&
          top + header + heights[r] + heights[r + 1] <= bottom)
        fits = FALSE;
      /* Not when the page holds nothing but the header yet: a row taller than a page. */
      if (!fits && y > top + header + 1)
        {
          breaks[r] = TRUE;
          y = top + header;
          on_page = 0;
        }
      y += heights[r];
      on_page++;
    }
}

/* ---- Markdown ----------------------------------------------------------------------------- */

static char *
assay_report_pdf_spans_to_markup (Layout    *layout,
                                  GPtrArray *spans)
{
  GString *markup = g_string_new (NULL);

  for (guint i = 0; i < spans->len; i++)
    {
      AssayMdSpan *span = g_ptr_array_index (spans, i);
      g_autofree char *escaped = g_markup_escape_text (span->text, -1);
      const AssayTracedNumber *traced = NULL;

      if (layout->provenance != NULL && span->number >= 0 &&
          (guint) span->number < layout->provenance->numbers->len)
        traced = g_ptr_array_index (layout->provenance->numbers, span->number);
      if (traced != NULL && traced->found)
        {
          /* Subtly: the text's own colour, a light underline; a link when its cell is in the
           * appendix. */
          if (traced->cell_id != NULL && g_hash_table_contains (layout->cell_dests, traced->cell_id) &&
              layout->links->len < MAX_LINKS)
            {
              g_ptr_array_add (layout->links, g_strdup (traced->cell_id));
              g_string_append_printf (markup, "<span rise=\"%u\" underline=\"single\" underline_color=\"#9bb8e0\">",
                                      layout->links->len);
            }
          else
            g_string_append (markup, "<span underline=\"single\" underline_color=\"#9bb8e0\">");
        }
      else if (traced != NULL)
        g_string_append (markup, "<span underline=\"error\" underline_color=\"#b3261e\">");

      if (span->style & ASSAY_MD_BOLD)
        g_string_append (markup, "<b>");
      if (span->style & ASSAY_MD_ITALIC)
        g_string_append (markup, "<i>");
      if (span->style & ASSAY_MD_STRIKE)
        g_string_append (markup, "<s>");
      if (span->style & ASSAY_MD_CODE)
        g_string_append (markup, "<span font_family=\"" MONO "\" size=\"90%\" background=\"#eeeeee\">");
      if (span->style & ASSAY_MD_LINK)
        g_string_append (markup, "<span foreground=\"#1a5fb4\" underline=\"single\">");
      g_string_append (markup, escaped);
      if (span->style & ASSAY_MD_LINK)
        g_string_append (markup, "</span>");
      if (span->style & ASSAY_MD_CODE)
        g_string_append (markup, "</span>");
      if (span->style & ASSAY_MD_STRIKE)
        g_string_append (markup, "</s>");
      if (span->style & ASSAY_MD_ITALIC)
        g_string_append (markup, "</i>");
      if (span->style & ASSAY_MD_BOLD)
        g_string_append (markup, "</b>");
      if (traced != NULL)
        g_string_append (markup, "</span>");
      if (traced != NULL && !traced->found && layout->footnotes != NULL)
        g_string_append_printf (markup, "<span rise=\"3500\" size=\"65%%\" foreground=\"#b3261e\">%u</span>",
                                layout->footnotes[span->number]);
    }
  return g_string_free (markup, FALSE);
}

static void
assay_report_pdf_place_list_item (Layout       *layout,
                                  AssayMdBlock *block)
{
  double hang = 14, indent = 14.0 * (MIN (block->level, 8) - 1);
  g_autofree char *spans = assay_report_pdf_spans_to_markup (layout, block->spans);
  g_autofree char *marker = block->ordinal > 0 ? g_strdup_printf ("%u.", block->ordinal)
                                               : g_strdup (block->level % 2 ? "\xe2\x80\xa2" : "\xe2\x80\x93");
  g_autofree char *markup = g_strdup_printf ("%s\t%s", marker, spans);
  g_autoptr(PangoLayout) text = assay_report_pdf_new_layout (layout, SANS, BODY_SIZE, TEXT_WIDTH - indent);
  PangoTabArray *tabs = pango_tab_array_new_with_positions (1, TRUE, PANGO_TAB_LEFT,
                                                            (int) (block->ordinal >= 10 ? hang + 6 : hang));

  if (block->ordinal >= 10)
    hang += 6;
  pango_layout_set_tabs (text, tabs);
  pango_tab_array_free (tabs);
  pango_layout_set_indent (text, (int) (-hang * PANGO_SCALE));
  assay_report_pdf_set_markup (text, markup);
  assay_report_pdf_place_lines (layout, text, MARGIN_X + indent, 0, 0);
  layout->y += 2;
}

static void
assay_report_pdf_place_markdown (Layout     *layout,
                                 const char *markdown)
{
  g_autoptr(GPtrArray) blocks = assay_markdown_parse_traced (markdown, -1, layout->provenance);

  for (guint i = 0; i < blocks->len; i++)
    {
      AssayMdBlock *block = g_ptr_array_index (blocks, i);
      AssayMdBlock *next = i + 1 < blocks->len ? g_ptr_array_index (blocks, i + 1) : NULL;
      g_autofree char *markup = NULL;

      switch (block->kind)
        {
        case ASSAY_MD_BLOCK_HEADING:
          {
            static const double sizes[] = { 14, 12.5, 11, 10.5, 10, 10 };
            g_autofree char *text = assay_report_pdf_spans_to_markup (layout, block->spans);

            if (layout->y > BODY_TOP + 1)
              layout->y += 6;
            assay_report_pdf_ensure_space (layout, 60);
            markup = g_strconcat ("<b>", text, "</b>", NULL);
            assay_report_pdf_place_markup (layout, markup, SANS, sizes[block->level - 1], 0, 4);
          }
          break;
        case ASSAY_MD_BLOCK_PARAGRAPH:
          markup = assay_report_pdf_spans_to_markup (layout, block->spans);
          if (block->quote)
            {
              g_autofree char *quoted = g_strconcat ("<i><span foreground=\"#555555\">", markup,
                                                     "</span></i>", NULL);

              assay_report_pdf_place_markup (layout,
                                             quoted,
                                             SANS,
                                             BODY_SIZE,
                                             14 + 14.0 * MIN (block->level, 8),
                                             6);
            }
          else
            assay_report_pdf_place_markup (layout, markup, SANS, BODY_SIZE, 14.0 * MIN (block->level, 8), 6);
          break;
        case ASSAY_MD_BLOCK_LIST_ITEM:
          assay_report_pdf_place_list_item (layout, block);
          if (next == NULL || next->kind != ASSAY_MD_BLOCK_LIST_ITEM)
            layout->y += 4;
          break;
        case ASSAY_MD_BLOCK_CODE:
          assay_report_pdf_place_preformatted (layout, block->code, 0xf3f3f3, FALSE);
          break;
        case ASSAY_MD_BLOCK_RULE:
          assay_report_pdf_ensure_space (layout, 12);
          assay_report_pdf_add_fill (layout, MARGIN_X, layout->y + 5, TEXT_WIDTH, 0.6, 0xbbbbbb);
          layout->y += 12;
          break;
        case ASSAY_MD_BLOCK_TABLE:
          {
            g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

            for (guint r = 0; r < block->rows->len; r++)
              {
                GPtrArray *source = g_ptr_array_index (block->rows, r);
                GPtrArray *row = g_ptr_array_new_with_free_func (g_free);

                for (guint c = 0; c < source->len; c++)
                  g_ptr_array_add (row, assay_report_pdf_spans_to_markup (layout, g_ptr_array_index (source, c)));
                g_ptr_array_add (rows, row);
              }
            assay_report_pdf_place_table (layout, rows, block->n_columns, block->n_header_rows);
          }
          break;
        default:
          break;
        }
    }
}

/* The answer: its numbers marked (traced ones linked to their cell), then a footnote for each
 * number no output printed. */
static void
assay_report_pdf_place_answer (Layout           *layout,
                               const ReportItem *item)
{
  g_autofree guint *footnotes = NULL;
  guint n_untraced = 0;

  if (item->provenance == NULL || item->provenance->numbers->len == 0)
    {
      assay_report_pdf_place_markdown (layout, item->text);
      return;
    }
  footnotes = report_footnotes (item->provenance, &n_untraced);
  layout->provenance = item->provenance;
  layout->footnotes = footnotes;
  assay_report_pdf_place_markdown (layout, item->text);
  layout->provenance = NULL;
  layout->footnotes = NULL;

  for (guint i = 0; i < item->provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (item->provenance->numbers, i);
      g_autofree char *note = NULL;
      g_autofree char *escaped = NULL;
      g_autofree char *markup = NULL;

      if (traced->found)
        continue;
      note = report_untraced_note (traced);
      escaped = g_markup_escape_text (note, -1);
      markup = g_strdup_printf ("<span foreground=\"#b3261e\"><sup>%u</sup></span> "
                                "<span foreground=\"#5c1b14\">%s</span>", footnotes[i], escaped);
      assay_report_pdf_place_markup (layout, markup, SANS, 8.5, 0, 2);
    }
  if (n_untraced > 0)
    layout->y += 4;
}

/* ---- figures, tables and outputs ------------------------------------------------------------ */

static void
assay_report_pdf_place_note (Layout     *layout,
                             const char *text)
{
  assay_report_pdf_place_text (layout, text, SANS, 9, "<i><span foreground=\"#666666\">", "</span></i>", 6);
}

typedef struct
{
  const guint8 *data;
  gsize         size;
  gsize         offset;
} PngReader;

static cairo_status_t
assay_report_pdf_read_png (void          *closure,
                           unsigned char *data,
                           unsigned int   length)
{
  PngReader *reader = closure;

  if (reader->size - reader->offset < length)
    return CAIRO_STATUS_READ_ERROR;
  memcpy (data, reader->data + reader->offset, length);
  reader->offset += length;
  return CAIRO_STATUS_SUCCESS;
}

static void
assay_report_pdf_place_figure (Layout             *layout,
                               const ReportFigure *figure)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) png = NULL;
  cairo_surface_t *image = NULL;
  guint pixel_width, pixel_height;
  double width, height, max_height = BODY_BOTTOM - BODY_TOP - 30;
  Op *op;

  png = report_figure_load (figure, &pixel_width, &pixel_height, &error);
  if (png)
    {
      PngReader reader = { g_bytes_get_data (png, NULL), g_bytes_get_size (png), 0 };

      image = cairo_image_surface_create_from_png_stream (assay_report_pdf_read_png, &reader);
      if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
        {
          g_set_error (&error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                       _("the PNG data is damaged"));
          g_clear_pointer (&image, cairo_surface_destroy);
        }
    }
  if (image == NULL)
    {
      g_autofree char *note = g_strdup_printf (_("%s cannot be shown: %s."), figure->caption,
                                               error->message);

      assay_report_pdf_place_note (layout, note);
      return;
    }

  /* The text width, keeping the aspect; a small image is not blown up beyond twice its
   * size at 96 dpi; never taller than a page. */
  pixel_width = cairo_image_surface_get_width (image);
  pixel_height = cairo_image_surface_get_height (image);
  width = MIN (TEXT_WIDTH, pixel_width * 72.0 / 96.0 * 2);
  height = width * pixel_height / pixel_width;
  if (height > max_height)
    {
      width *= max_height / height;
      height = max_height;
    }
  assay_report_pdf_ensure_space (layout, height + 20);
  op = assay_report_pdf_add_op (layout, OP_IMAGE);
  op->image = image;
  op->x = MARGIN_X + (TEXT_WIDTH - width) / 2;
  op->y = layout->y;
  op->width = width;
  op->height = height;
  layout->y += height + 4;
  {
    g_autofree char *escaped = g_markup_escape_text (figure->caption, -1);
    g_autofree char *markup = g_strdup_printf ("<i><span foreground=\"#555555\">%s</span></i>", escaped);
    g_autoptr(PangoLayout) caption = assay_report_pdf_new_layout (layout, SANS, 9, TEXT_WIDTH);

    pango_layout_set_alignment (caption, PANGO_ALIGN_CENTER);
    assay_report_pdf_set_markup (caption, markup);
    assay_report_pdf_place_lines (layout, caption, MARGIN_X, 0, 0);
    layout->y += 10;
  }
}

static void
assay_report_pdf_place_output_table (Layout           *layout,
                                     const AssayTable *table)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  for (guint r = 0; r < table->rows->len; r++)
    {
      GPtrArray *source = g_ptr_array_index (table->rows, r);
      GPtrArray *row = g_ptr_array_new_with_free_func (g_free);

      for (guint c = 0; c < source->len; c++)
        g_ptr_array_add (row, g_markup_escape_text (g_ptr_array_index (source, c), -1));
      g_ptr_array_add (rows, row);
    }
  assay_report_pdf_place_table (layout, rows, table->n_columns, table->n_header_rows);
  if (table->truncated)
    assay_report_pdf_place_note (layout, _("The table was cut to fit the report."));
}

static void
assay_report_pdf_place_cell_results (Layout           *layout,
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
        assay_report_pdf_place_output_table (layout, table);
    }
  for (guint i = 0; i < cell->figures->len; i++)
    assay_report_pdf_place_figure (layout, g_ptr_array_index (cell->figures, i));
  if (!cell->succeeded)
    {
      g_autofree char *note = report_cell_status_note (cell);

      assay_report_pdf_place_text (layout, note, SANS, 9, "<span foreground=\"#b3261e\">", "</span>", 6);
    }
}

static void
assay_report_pdf_place_cell_appendix (Layout           *layout,
                                      const ReportCell *cell)
{
  AssayReport *report = layout->report;
  g_autofree char *heading = g_strdup_printf (_("Cell %s [%u]: %s"), cell->id, cell->execution_count,
                                              cell->description ? cell->description
                                                                : _("(no description)"));
  g_autofree char *meta = g_strdup_printf (_("Status: %s, %.2f s"), assay_cell_status_to_string (cell->status),
                                           cell->elapsed_ms / 1000.0);

  g_autofree char *name = g_strdup_printf ("cell-%u", cell->execution_count);
  guint dest;

  if (layout->y > BODY_TOP + 1)
    layout->y += 8;
  assay_report_pdf_ensure_space (layout, 70);
  dest = assay_report_pdf_add_dest (layout, heading, 2);
  /* The name an answer's numbers link to. */
  if (cell->id != NULL && g_strcmp0 (g_hash_table_lookup (layout->cell_dests, cell->id), name) == 0)
    {
      g_free (g_array_index (layout->dests, Dest, dest).name);
      g_array_index (layout->dests, Dest, dest).name = g_strdup (g_hash_table_lookup (layout->cell_dests, cell->id));
    }
  assay_report_pdf_place_text (layout, heading, SANS, 11, "<b>", "</b>", 2);
  assay_report_pdf_place_text (layout, meta, SANS, 8.5,
                               cell->succeeded ? "<span foreground=\"#666666\">" : "<span foreground=\"#b3261e\">",
                               "</span>", 4);
  if (report_cell_decision_note (cell) != NULL)
    assay_report_pdf_place_text (layout, report_cell_decision_note (cell), SANS, 8.5,
                                 "<span foreground=\"" DECISION_COLOR "\">", "</span>", 4);
  /* What the kernel saw the cell do to its data, and the files it read. */
  {
    g_autofree char *checks = assay_cell_checks_describe (cell->checks, FALSE);

    if (checks != NULL)
      {
        g_autofree char *line = g_strdup_printf (_("Checks: %s"), checks);

        assay_report_pdf_place_text (layout, line, SANS, 8.5, "<span foreground=\"#3d5a80\">", "</span>", 4);
      }
  }
  {
    g_autofree char *query = report_cell_query_note (cell);

    if (query != NULL)
      assay_report_pdf_place_text (layout, query, SANS, 8.5, "<span foreground=\"#3d5a80\">", "</span>", 4);
  }
  if (report->options.include_code && cell->code)
    assay_report_pdf_place_preformatted (layout, cell->code, 0xf0f3f6, FALSE);

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
          assay_report_pdf_place_note (layout, _("(A table, shown above.)"));
          continue;
        }
      /* A figure's text is only its name ("<Figure size 640x480 with 1 Axes>"): its note
       * below says where it is. */
      if (output->png_base64 != NULL)
        continue;
      text = assay_cell_output_dup_text (output);
      if (text && *text)
        assay_report_pdf_place_preformatted (layout, text, output->kind == ASSAY_CELL_OUTPUT_ERROR ? 0xfbe9e7 : 0xfafafa,
                                             TRUE);
    }
  for (guint i = 0; i < cell->figures->len; i++)
    {
      const ReportFigure *figure = g_ptr_array_index (cell->figures, i);
      g_autofree char *note = g_strdup_printf (_("%s (shown above)"), figure->caption);

      assay_report_pdf_place_note (layout, note);
    }
  if (cell->files->len > 0)
    {
      g_autoptr(GString) joined = g_string_new (NULL);
      g_autofree char *note = NULL;

      for (guint i = 0; i < cell->files->len; i++)
        g_string_append_printf (joined, "%s%s", i ? ", " : "",
                                (char *) g_ptr_array_index (cell->files, i));
      note = g_strdup_printf (_("Files: %s"), joined->str);
      assay_report_pdf_place_note (layout, note);
    }
}

/* ---- the audit trail ------------------------------------------------------------------------ */

static void
assay_report_pdf_place_proposal (Layout               *layout,
                                 const ReportProposal *proposal)
{
  AssayReport *report = layout->report;
  g_autofree char *heading = report_proposal_heading (proposal);
  g_autofree char *decision = report_proposal_decision (proposal);
  g_autofree char *reason = report_proposal_reason (proposal);

  assay_report_pdf_ensure_space (layout, 40);
  assay_report_pdf_place_text (layout, heading, SANS, 10, "<b>", "</b>", 2);
  assay_report_pdf_place_text (layout, decision, SANS, 8.5,
                               proposal->decision == ASSAY_DECISION_AUTO ||
                               proposal->decision == ASSAY_DECISION_APPROVED
                               ? "<span foreground=\"#666666\">" : "<span foreground=\"" DECISION_COLOR "\">",
                               "</span>", reason != NULL ? 2 : 6);
  if (reason != NULL)
    assay_report_pdf_place_text (layout, reason, SANS, 9, "", "", 6);
  if (proposal->decision == ASSAY_DECISION_REJECTED && report->options.include_code &&
      proposal->proposed_code != NULL)
    {
      assay_report_pdf_place_note (layout, report_proposal_code_label (proposal));
      assay_report_pdf_place_preformatted (layout, proposal->proposed_code, 0xf0f3f6, FALSE);
    }
  if (proposal->diff != NULL)
    {
      if (report->options.include_code)
        assay_report_pdf_place_preformatted (layout, proposal->diff, 0xfdf6e3, FALSE);
      else
        {
          g_autofree char *note = report_proposal_changed_note (proposal);

          assay_report_pdf_place_note (layout, note);
        }
    }
}

/* ---- what was sent to the model -------------------------------------------------------------- */

static void
assay_report_pdf_place_request_entry (Layout                   *layout,
                                      const ReportRequestEntry *entry)
{
  if (entry->label == NULL)
    {
      assay_report_pdf_place_note (layout, entry->head);
      return;
    }
  /* The label stays with the first lines of its text. */
  assay_report_pdf_ensure_space (layout, 40);
  assay_report_pdf_place_text (layout, entry->label, SANS, 9, "<b>", "</b>", 2);
  assay_report_pdf_place_preformatted (layout, entry->head, 0xf4f6f8, FALSE);
  if (entry->cut_note != NULL)
    {
      assay_report_pdf_place_note (layout, entry->cut_note);
      assay_report_pdf_place_preformatted (layout, entry->tail, 0xf4f6f8, FALSE);
    }
}

static void
assay_report_pdf_place_request (Layout              *layout,
                                const ReportRequest *request)
{
  if (layout->y > BODY_TOP + 1)
    layout->y += 8;
  assay_report_pdf_ensure_space (layout, 60);
  assay_report_pdf_place_text (layout, request->heading, SANS, 11, "<b>", "</b>", 2);
  assay_report_pdf_place_text (layout, request->meta, SANS, 8.5, "<span foreground=\"#666666\">", "</span>", 2);
  if (request->tokens != NULL)
    assay_report_pdf_place_text (layout, request->tokens, SANS, 8.5, "<span foreground=\"#666666\">", "</span>", 2);
  layout->y += 2;
  if (request->problem != NULL)
    assay_report_pdf_place_text (layout, request->problem, SANS, 9, "<span foreground=\"#b3261e\">", "</span>", 6);
  if (request->system_note != NULL)
    assay_report_pdf_place_note (layout, request->system_note);
  if (request->added_note != NULL)
    {
      /* Not alone at the foot of a page: with the first message it introduces. */
      assay_report_pdf_ensure_space (layout, 60);
      assay_report_pdf_place_text (layout, request->added_note, SANS, 9, "<span foreground=\"#3d5a80\">", "</span>", 4);
    }
  for (guint i = 0; i < request->entries->len; i++)
    assay_report_pdf_place_request_entry (layout, g_ptr_array_index (request->entries, i));
}

/* ---- the document ------------------------------------------------------------------------- */

#define TOC_LINE_HEIGHT 17.0
#define TOC_SIZE        10.0

static void
assay_report_pdf_place_title_page (Layout *layout)
{
  AssayReport *report = layout->report;
  g_autofree char *date = report_format_date (report->created);
  g_autofree char *counts = NULL;

  layout->page = 1;
  layout->y = 210;
  assay_report_pdf_place_text (layout, report->title, SANS, 26, "<b>", "</b>", 14);
  assay_report_pdf_add_fill (layout, MARGIN_X, layout->y, 80, 3, 0x3b75af);
  layout->y += 18;
  if (report->ran_in != NULL)
    {
      g_autofree char *line = g_strdup_printf (_("The code ran in %s."), report->ran_in);

      assay_report_pdf_place_text (layout, date, SANS, 12, "<span foreground=\"#555555\">", "</span>", 4);
      assay_report_pdf_place_text (layout, line, SANS, 11, "<span foreground=\"#555555\">", "</span>", 24);
    }
  else
    assay_report_pdf_place_text (layout, date, SANS, 12, "<span foreground=\"#555555\">", "</span>", 24);
  if (report->datasets->len > 0)
    {
      assay_report_pdf_place_text (layout, _("Data"), SANS, 12, "<b>", "</b>", 4);
      for (guint i = 0; i < report->datasets->len; i++)
        {
          g_autofree char *summary = report_dataset_summary (g_ptr_array_index (report->datasets, i));
          g_autofree char *line = g_strconcat ("\xe2\x80\xa2 ", summary, NULL);

          assay_report_pdf_place_text (layout, line, SANS, 11, "", "", 2);
        }
      layout->y += 18;
    }
  {
    g_autofree char *questions = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u question", "%u questions",
                                                               report->questions->len),
                                                  report->questions->len);
    g_autofree char *steps = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step run", "%u steps run",
                                                           report->cells->len),
                                              report->cells->len);
    g_autofree char *figures = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u figure", "%u figures",
                                                             report->n_figures),
                                                report->n_figures);

    counts = g_strdup_printf ("%s, %s, %s", questions, steps, figures);
  }
  assay_report_pdf_place_text (layout, counts, SANS, 10, "<span foreground=\"#555555\">", "</span>", 4);
  assay_report_pdf_place_text (layout, _("Made with Assay. The analysis code ran in Assay's sandbox; the "
                                         "appendix lists every step with its output."),
                               SANS, 9, "<span foreground=\"#777777\">", "</span>", 0);
}

static guint
assay_report_pdf_count_toc_entries (AssayReport *report)
{
  guint n = 0;

  for (guint i = 0; i < report->questions->len; i++)
    {
      ReportQuestion *question = g_ptr_array_index (report->questions, i);

      n++;
      for (guint j = 0; j < question->items->len; j++)
        n += ((ReportItem *) g_ptr_array_index (question->items, j))->kind == REPORT_ITEM_ANSWER;
    }
  if (report->cells->len > 0)
    n += 1 + report->cells->len;
  if (report->rerun_of_title != NULL)
    n++;
  if (report->proposals->len > 0)
    n++;
  /* Requests have no entries of their own: a long session would fill pages of contents. */
  if (report->requests != NULL)
    n++;
  return n;
}

static guint
assay_report_pdf_toc_entries_per_page (void)
{
  return (guint) ((BODY_BOTTOM - BODY_TOP - 40) / TOC_LINE_HEIGHT);
}

/* The contents, on the pages reserved for them after the title page. */
static void
assay_report_pdf_place_toc (Layout *layout)
{
  guint per_page = assay_report_pdf_toc_entries_per_page (), k = 0;

  layout->page = 2;
  layout->y = BODY_TOP;
  assay_report_pdf_place_text (layout, _("Contents"), SANS, 16, "<b>", "</b>", 14);
  for (guint i = 0; i < layout->dests->len; i++)
    {
      Dest *dest = &g_array_index (layout->dests, Dest, i);
      Op *op;

      if (dest->outline_level == 0)
        continue;
      if (k > 0 && k % per_page == 0)
        {
          layout->page++;
          layout->y = BODY_TOP + 30;
        }
      op = assay_report_pdf_add_op (layout, OP_TOC_ENTRY);
      op->dest = i;
      op->x = MARGIN_X + (dest->outline_level - 1) * 16;
      op->y = layout->y;
      op->width = TEXT_WIDTH - (dest->outline_level - 1) * 16;
      op->height = TOC_LINE_HEIGHT;
      layout->y += TOC_LINE_HEIGHT;
      k++;
    }
}

/* "What changed", first when the session ran another again. */
static void
assay_report_pdf_place_changes (Layout *layout)
{
  AssayReport *report = layout->report;
  g_autofree char *intro = report_changes_intro (report);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *head = g_ptr_array_new_with_free_func (g_free);
  const char *headings[] = { N_("Question"), N_("Number"), N_("Before"), N_("After"), N_("Change"), N_("Change %"), N_("Cell") };

  assay_report_pdf_add_dest (layout, report_changes_title (), 1);
  assay_report_pdf_place_heading (layout, report_changes_title (), 16, 0);
  assay_report_pdf_place_text (layout, intro, SANS, BODY_SIZE, "", "", 6);
  for (guint i = 0; i < report->rerun_notes->len; i++)
    {
      g_autofree char *note = g_strconcat ("\xe2\x80\xa2 ", (char *) g_ptr_array_index (report->rerun_notes, i), NULL);

      assay_report_pdf_place_text (layout, note, SANS, BODY_SIZE, "", "", 2);
    }
  layout->y += 6;
  if (report->changes->len == 0)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (headings); i++)
    g_ptr_array_add (head, g_markup_escape_text (_(headings[i]), -1));
  g_ptr_array_add (rows, head);
  for (guint i = 0; i < report->changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (report->changes, i);
      g_autofree char *delta = report_change_delta (change);
      g_autofree char *percent = report_change_percent (change);
      g_autofree char *label = report_change_label (change);
      g_autofree char *label_markup = g_markup_escape_text (label, -1);
      const char *texts[] = { NULL, NULL, change->before_text, change->stale ? _("not found again") : change->after_text,
                              delta, percent, change->cell_id != NULL ? change->cell_id : "" };
      GPtrArray *row = g_ptr_array_new_with_free_func (g_free);

      g_ptr_array_add (row, g_strdup_printf ("%u", change->question));
      g_ptr_array_add (row, g_steal_pointer (&label_markup));
      for (gsize c = 2; c < G_N_ELEMENTS (texts); c++)
        {
          g_autofree char *escaped = g_markup_escape_text (texts[c], -1);

          if (change->stale)
            g_ptr_array_add (row, g_strdup_printf ("<span foreground=\"#a51d2d\">%s</span>", escaped));
          else if (c == 3 && change->after != change->before)
            g_ptr_array_add (row, g_strdup_printf ("<b>%s</b>", escaped));
          else
            g_ptr_array_add (row, g_steal_pointer (&escaped));
        }
      g_ptr_array_add (rows, row);
    }
  assay_report_pdf_place_table (layout, rows, G_N_ELEMENTS (headings), 1);

  /* The sentence each number sits in, under the table (a cell would squeeze it). */
  layout->y += 4;
  for (guint i = 0; i < report->changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (report->changes, i);
      g_autofree char *label = NULL;
      g_autofree char *line = NULL;

      if (change->sentence == NULL)
        continue;
      label = report_change_label (change);
      line = g_strdup_printf ("%s — “%s”", label, change->sentence);
      assay_report_pdf_place_text (layout, line, SANS, BODY_SIZE - 1, "", "", 1);
    }
}

static gboolean
assay_report_pdf_place_body (Layout        *layout,
                             GError       **error)
{
  AssayReport *report = layout->report;
  guint total = report->questions->len + report->cells->len + 1, done = 0;

  if (report->requests != NULL)
    total += report->requests->len;

  if (report->rerun_of_title != NULL)
    {
      assay_report_pdf_place_changes (layout);
      assay_report_pdf_new_page (layout);
    }
  for (guint i = 0; i < report->questions->len; i++)
    {
      ReportQuestion *question = g_ptr_array_index (report->questions, i);
      g_autofree char *heading = g_strdup_printf (_("Question %u"), question->number);
      g_autofree char *entry = g_strdup_printf (_("Question %u: %s"), question->number, question->text);
      g_autoptr(PangoLayout) text = NULL;
      g_autofree char *escaped = g_markup_escape_text (question->text, -1);

      if (g_cancellable_set_error_if_cancelled (layout->cancellable, error))
        return FALSE;
      if (i > 0)
        assay_report_pdf_new_page (layout);
      assay_report_pdf_add_dest (layout, entry, 1);
      assay_report_pdf_place_heading (layout, heading, 16, 0);
      text = assay_report_pdf_new_layout (layout, SANS, 11, TEXT_WIDTH - 20);
      assay_report_pdf_set_markup (text, escaped);
      assay_report_pdf_ensure_space (layout, 30);
      assay_report_pdf_add_fill (layout, MARGIN_X, layout->y, 3, 0, 0);
      assay_report_pdf_add_fill (layout, MARGIN_X, layout->y, TEXT_WIDTH, 6, 0xeef3f8);
      layout->y += 6;
      assay_report_pdf_place_lines (layout, text, MARGIN_X + 12, 0xeef3f8, 12);
      assay_report_pdf_add_fill (layout, MARGIN_X, layout->y, TEXT_WIDTH, 6, 0xeef3f8);
      layout->y += 16;

      for (guint j = 0; j < question->items->len; j++)
        {
          ReportItem *item = g_ptr_array_index (question->items, j);

          switch (item->kind)
            {
            case REPORT_ITEM_TEXT:
              assay_report_pdf_place_markdown (layout, item->text);
              break;
            case REPORT_ITEM_ANSWER:
              layout->y += 6;
              assay_report_pdf_ensure_space (layout, 80);
              assay_report_pdf_add_dest (layout, _("Answer"), 2);
              assay_report_pdf_place_heading (layout, _("Answer"), 13, 0);
              assay_report_pdf_add_fill (layout, MARGIN_X, layout->y - 2, TEXT_WIDTH, 1.2, 0x2e7d32);
              layout->y += 6;
              assay_report_pdf_place_answer (layout, item);
              break;
            case REPORT_ITEM_CELL:
              assay_report_pdf_place_cell_results (layout, item->cell);
              assay_report_progress (report, 0.8 * ++done / total, _("Laying out the questions"));
              break;
            case REPORT_ITEM_REJECTED:
              {
                g_autofree char *note = report_rejected_note (item->proposal);

                assay_report_pdf_place_text (layout, note, SANS, 9,
                                             "<i><span foreground=\"" DECISION_COLOR "\">", "</span></i>", 6);
              }
              break;
            default:
              break;
            }
        }
    }

  if (report->cells->len > 0)
    {
      const char *title = report->options.include_code ? _("Appendix: the code and its output")
                                                       : _("Appendix: the output of each step");

      assay_report_pdf_new_page (layout);
      assay_report_pdf_add_dest (layout, title, 1);
      assay_report_pdf_place_heading (layout, title, 16, 0);
      for (guint i = 0; i < report->cells->len; i++)
        {
          if (g_cancellable_set_error_if_cancelled (layout->cancellable, error))
            return FALSE;
          assay_report_pdf_place_cell_appendix (layout, g_ptr_array_index (report->cells, i));
          assay_report_progress (report, 0.8 * ++done / total, _("Laying out the appendix"));
        }
    }

  if (report->proposals->len > 0)
    {
      assay_report_pdf_new_page (layout);
      assay_report_pdf_add_dest (layout, report_audit_title (), 1);
      assay_report_pdf_place_heading (layout, report_audit_title (), 16, 0);
      assay_report_pdf_place_note (layout, report_audit_intro ());
      layout->y += 4;
      for (guint i = 0; i < report->proposals->len; i++)
        {
          if (g_cancellable_set_error_if_cancelled (layout->cancellable, error))
            return FALSE;
          assay_report_pdf_place_proposal (layout, g_ptr_array_index (report->proposals, i));
        }
    }

  if (report->requests != NULL)
    {
      assay_report_pdf_new_page (layout);
      assay_report_pdf_add_dest (layout, report_requests_title (), 1);
      assay_report_pdf_place_heading (layout, report_requests_title (), 16, 0);
      assay_report_pdf_place_note (layout, report_requests_intro (report));
      for (guint i = 0; i < report->requests->len; i++)
        {
          if (g_cancellable_set_error_if_cancelled (layout->cancellable, error))
            return FALSE;
          assay_report_pdf_place_request (layout, g_ptr_array_index (report->requests, i));
          assay_report_progress (report, 0.8 * ++done / total, _("Laying out the appendix"));
        }
    }
  return TRUE;
}

/* ---- drawing ------------------------------------------------------------------------------ */

typedef struct
{
  GOutputStream *out;
  GCancellable  *cancellable;
  GError        *error;
} StreamClosure;

static cairo_status_t
assay_report_pdf_write_to_stream (void                *user_data,
                                  const unsigned char *data,
                                  unsigned int         length)
{
  StreamClosure *closure = user_data;

  if (closure->error)
    return CAIRO_STATUS_WRITE_ERROR;
  if (!g_output_stream_write_all (closure->out, data, length, NULL, closure->cancellable,
                                  &closure->error))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

static void
assay_report_pdf_set_color (cairo_t *cr,
                            guint32  color)
{
  cairo_set_source_rgb (cr, ((color >> 16) & 0xff) / 255.0, ((color >> 8) & 0xff) / 255.0,
                        (color & 0xff) / 255.0);
}

static void
assay_report_pdf_draw_toc_entry (cairo_t *cr,
                                 Layout  *layout,
                                 Op      *op)
{
  Dest *dest = &g_array_index (layout->dests, Dest, op->dest);
  g_autoptr(PangoLayout) title = assay_report_pdf_new_layout (layout, SANS, TOC_SIZE, op->width - 40);
  g_autoptr(PangoLayout) number = assay_report_pdf_new_layout (layout, SANS, TOC_SIZE, -1);
  g_autofree char *page = g_strdup_printf ("%u", dest->page);
  g_autofree char *attributes = NULL;
  char x[G_ASCII_DTOSTR_BUF_SIZE], y[G_ASCII_DTOSTR_BUF_SIZE];
  char w[G_ASCII_DTOSTR_BUF_SIZE], h[G_ASCII_DTOSTR_BUF_SIZE];
  int number_width;

  pango_layout_set_ellipsize (title, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (title, TRUE);
  if (dest->outline_level == 1)
    {
      g_autofree char *escaped = g_markup_escape_text (dest->title, -1);
      g_autofree char *markup = g_strconcat ("<b>", escaped, "</b>", NULL);

      assay_report_pdf_set_markup (title, markup);
    }
  else
    pango_layout_set_text (title, dest->title, -1);
  pango_layout_set_text (number, page, -1);
  pango_layout_get_size (number, &number_width, NULL);

  attributes = g_strdup_printf ("dest='%s' rect=[%s %s %s %s]", dest->name,
                                g_ascii_formatd (x, sizeof x, "%.2f", op->x),
                                g_ascii_formatd (y, sizeof y, "%.2f", op->y),
                                g_ascii_formatd (w, sizeof w, "%.2f", op->width),
                                g_ascii_formatd (h, sizeof h, "%.2f", op->height));
  cairo_tag_begin (cr, CAIRO_TAG_LINK, attributes);
  assay_report_pdf_set_color (cr, dest->outline_level == 1 ? 0x1d1d1d : 0x333333);
  cairo_move_to (cr, op->x, op->y);
  pango_cairo_show_layout (cr, title);
  cairo_move_to (cr, MARGIN_X + TEXT_WIDTH - number_width / (double) PANGO_SCALE, op->y);
  pango_cairo_show_layout (cr, number);
  cairo_tag_end (cr, CAIRO_TAG_LINK);
}

static void
assay_report_pdf_draw_page_frame (cairo_t *cr,
                                  Layout  *layout,
                                  guint    page,
                                  guint    n_pages)
{
  g_autoptr(PangoLayout) header = assay_report_pdf_new_layout (layout, SANS, 8, TEXT_WIDTH);
  g_autoptr(PangoLayout) footer = assay_report_pdf_new_layout (layout, SANS, 8, TEXT_WIDTH);
  g_autofree char *text = g_strdup_printf (_("Page %u of %u"), page, n_pages);

  if (page > 1)
    {
      pango_layout_set_ellipsize (header, PANGO_ELLIPSIZE_END);
      pango_layout_set_single_paragraph_mode (header, TRUE);
      pango_layout_set_text (header, layout->report->title, -1);
      assay_report_pdf_set_color (cr, 0x777777);
      cairo_move_to (cr, MARGIN_X, 30);
      pango_cairo_show_layout (cr, header);
      assay_report_pdf_set_color (cr, 0xcccccc);
      cairo_rectangle (cr, MARGIN_X, 44, TEXT_WIDTH, 0.5);
      cairo_fill (cr);
    }
  pango_layout_set_alignment (footer, PANGO_ALIGN_CENTER);
  pango_layout_set_text (footer, text, -1);
  assay_report_pdf_set_color (cr, 0x777777);
  cairo_move_to (cr, MARGIN_X, PAGE_HEIGHT - 40);
  pango_cairo_show_layout (cr, footer);
}

/* The links of LINE, drawn at X (the layout's left) and BASELINE: the spans whose rise names
 * a link (see MAX_LINKS). */
static void
assay_report_pdf_draw_line_links (cairo_t         *cr,
                                  Layout          *layout,
                                  PangoLayoutLine *line,
                                  double           x,
                                  double           baseline)
{
  PangoAttrList *attrs = pango_layout_get_attributes (line->layout);
  PangoAttrIterator *iter;
  PangoRectangle logical;

  if (attrs == NULL)
    return;
  pango_layout_line_get_extents (line, NULL, &logical);
  iter = pango_attr_list_get_iterator (attrs);
  do
    {
      PangoAttrInt *rise = (PangoAttrInt *) pango_attr_iterator_get (iter, PANGO_ATTR_RISE);
      int start, end, n_ranges = 0, *ranges = NULL;
      const char *cell_id;
      const char *dest;

      if (rise == NULL || rise->value < 1 || rise->value > (int) layout->links->len)
        continue;
      pango_attr_iterator_range (iter, &start, &end);
      start = MAX (start, line->start_index);
      end = MIN (end, line->start_index + line->length);
      if (start >= end)
        continue;
      cell_id = g_ptr_array_index (layout->links, rise->value - 1);
      dest = g_hash_table_lookup (layout->cell_dests, cell_id);
      if (dest == NULL)
        continue;
      pango_layout_line_get_x_ranges (line, start, end, &ranges, &n_ranges);
      for (int r = 0; r < n_ranges; r++)
        {
          char bx[G_ASCII_DTOSTR_BUF_SIZE], by[G_ASCII_DTOSTR_BUF_SIZE];
          char bw[G_ASCII_DTOSTR_BUF_SIZE], bh[G_ASCII_DTOSTR_BUF_SIZE];
          g_autofree char *attributes = NULL;

          attributes = g_strdup_printf ("dest='%s' rect=[%s %s %s %s]", dest,
                                        g_ascii_formatd (bx, sizeof bx, "%.2f", x + ranges[2 * r] / (double) PANGO_SCALE),
                                        g_ascii_formatd (by, sizeof by, "%.2f", baseline + logical.y / (double) PANGO_SCALE),
                                        g_ascii_formatd (bw, sizeof bw, "%.2f",
                                                         (ranges[2 * r + 1] - ranges[2 * r]) / (double) PANGO_SCALE),
                                        g_ascii_formatd (bh, sizeof bh, "%.2f", logical.height / (double) PANGO_SCALE));
          cairo_tag_begin (cr, CAIRO_TAG_LINK, attributes);
          cairo_tag_end (cr, CAIRO_TAG_LINK);
        }
      g_free (ranges);
    }
  while (pango_attr_iterator_next (iter));
  pango_attr_iterator_destroy (iter);
}

static void
assay_report_pdf_draw_layout_links (cairo_t     *cr,
                                    Layout      *layout,
                                    PangoLayout *text,
                                    double       x,
                                    double       y)
{
  PangoLayoutIter *iter;

  if (layout->links->len == 0 || pango_layout_get_attributes (text) == NULL)
    return;
  iter = pango_layout_get_iter (text);
  do
    assay_report_pdf_draw_line_links (cr, layout, pango_layout_iter_get_line_readonly (iter), x,
                                      y + pango_layout_iter_get_baseline (iter) / (double) PANGO_SCALE);
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

static void
assay_report_pdf_draw_op (cairo_t *cr,
                          Layout  *layout,
                          Op      *op)
{
  switch (op->kind)
    {
    case OP_LINE:
      assay_report_pdf_set_color (cr, 0x1d1d1d);
      cairo_move_to (cr, op->x, op->y);
      pango_cairo_show_layout_line (cr, op->line);
      if (layout->links->len > 0)
        assay_report_pdf_draw_line_links (cr, layout, op->line, op->x - op->line_x, op->y);
      break;
    case OP_LAYOUT:
      cairo_save (cr);
      cairo_rectangle (cr, op->x - 1, op->y - 1, op->width + 2, op->height + 2);
      cairo_clip (cr);
      assay_report_pdf_set_color (cr, 0x1d1d1d);
      cairo_move_to (cr, op->x, op->y);
      pango_cairo_show_layout (cr, op->layout);
      cairo_restore (cr);
      assay_report_pdf_draw_layout_links (cr, layout, op->layout, op->x, op->y);
      break;
    case OP_FILL:
      if (op->height <= 0)
        break;
      assay_report_pdf_set_color (cr, op->color);
      cairo_rectangle (cr, op->x, op->y, op->width, op->height);
      cairo_fill (cr);
      break;
    case OP_STROKE:
      assay_report_pdf_set_color (cr, op->color);
      cairo_set_line_width (cr, 0.5);
      cairo_rectangle (cr, op->x, op->y, op->width, op->height);
      cairo_stroke (cr);
      break;
    case OP_IMAGE:
      cairo_save (cr);
      cairo_translate (cr, op->x, op->y);
      cairo_scale (cr, op->width / cairo_image_surface_get_width (op->image),
                   op->height / cairo_image_surface_get_height (op->image));
      cairo_set_source_surface (cr, op->image, 0, 0);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_GOOD);
      cairo_paint (cr);
      cairo_restore (cr);
      break;
    case OP_DEST:
      {
        Dest *dest = &g_array_index (layout->dests, Dest, op->dest);
        char y[G_ASCII_DTOSTR_BUF_SIZE];
        g_autofree char *attributes = g_strdup_printf ("name='%s' x=0 y=%s", dest->name,
                                                       g_ascii_formatd (y, sizeof y, "%.1f",
                                                                        MAX (dest->y - 10, 0)));

        cairo_tag_begin (cr, CAIRO_TAG_DEST, attributes);
        cairo_tag_end (cr, CAIRO_TAG_DEST);
      }
      break;
    case OP_TOC_ENTRY:
      assay_report_pdf_draw_toc_entry (cr, layout, op);
      break;
    default:
      break;
    }
}

static char *
assay_report_pdf_date (gint64 usec)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);

  return time ? g_date_time_format (time, "%Y-%m-%dT%H:%M:%S%:z") : NULL;
}

gboolean
assay_report_write_pdf (AssayReport   *report,
                        GOutputStream *out,
                        GCancellable  *cancellable,
                        GError       **error)
{
  StreamClosure closure = { out, cancellable, NULL };
  Layout layout = { 0 };
  cairo_surface_t *surface;
  cairo_t *cr;
  g_autoptr(GPtrArray) pages = NULL;
  g_autofree char *created = assay_report_pdf_date (report->created);
  g_autofree char *now = assay_report_pdf_date (g_get_real_time ());
  guint n_pages, toc_pages;
  gboolean ok = TRUE;
  int parents[3] = { CAIRO_PDF_OUTLINE_ROOT, CAIRO_PDF_OUTLINE_ROOT, CAIRO_PDF_OUTLINE_ROOT };

  surface = cairo_pdf_surface_create_for_stream (assay_report_pdf_write_to_stream,
                                                 &closure,
                                                 PAGE_WIDTH,
                                                 PAGE_HEIGHT);
  cr = cairo_create (surface);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, report->title);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_AUTHOR, "Assay");
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Assay " PACKAGE_VERSION);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT, _("Data analysis report"));
  if (now)
    cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATE_DATE, now);
  (void) created;

  layout.report = report;
  layout.cancellable = cancellable;
  layout.context = pango_cairo_create_context (cr);
  pango_cairo_context_set_resolution (layout.context, 72);
  layout.ops = g_array_new (FALSE, TRUE, sizeof (Op));
  g_array_set_clear_func (layout.ops, assay_report_pdf_op_clear);
  layout.dests = g_array_new (FALSE, TRUE, sizeof (Dest));
  g_array_set_clear_func (layout.dests, assay_report_pdf_dest_clear);
  layout.links = g_ptr_array_new_with_free_func (g_free);
  layout.cell_dests = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint i = 0; i < report->cells->len; i++)
    {
      ReportCell *cell = g_ptr_array_index (report->cells, i);

      if (cell->id != NULL)
        g_hash_table_insert (layout.cell_dests, cell->id, g_strdup_printf ("cell-%u", cell->execution_count));
    }

  /* Title page, the contents' pages (their number is known from the entries), the body. */
  assay_report_pdf_place_title_page (&layout);
  toc_pages = (assay_report_pdf_count_toc_entries (report) + assay_report_pdf_toc_entries_per_page () - 1) / assay_report_pdf_toc_entries_per_page ();
  layout.page = 1 + MAX (toc_pages, 1);
  assay_report_pdf_new_page (&layout);
  ok = assay_report_pdf_place_body (&layout, error);
  n_pages = layout.page;
  if (ok)
    assay_report_pdf_place_toc (&layout);

  /* Draw, page by page. */
  if (ok)
    {
      pages = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
      for (guint i = 0; i <= n_pages; i++)
        g_ptr_array_add (pages, g_array_new (FALSE, FALSE, sizeof (guint)));
      for (guint i = 0; i < layout.ops->len; i++)
        {
          Op *op = &g_array_index (layout.ops, Op, i);

          g_array_append_val (g_ptr_array_index (pages, MIN (op->page, n_pages)), i);
        }
      for (guint page = 1; page <= n_pages && ok; page++)
        {
          GArray *ops = g_ptr_array_index (pages, page);

          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            {
              ok = FALSE;
              break;
            }
          assay_report_pdf_draw_page_frame (cr, &layout, page, n_pages);
          for (guint i = 0; i < ops->len; i++)
            assay_report_pdf_draw_op (cr,
                                      &layout,
                                      &g_array_index (layout.ops, Op, g_array_index (ops, guint, i)));
          cairo_show_page (cr);
          assay_report_progress (report, 0.8 + 0.2 * page / n_pages, _("Drawing the pages"));
          if (closure.error)
            ok = FALSE;
        }
    }

  /* The outline (bookmarks): questions and the appendix, their answers and cells below. */
  for (guint i = 0; ok && i < layout.dests->len; i++)
    {
      Dest *dest = &g_array_index (layout.dests, Dest, i);
      g_autofree char *link = g_strdup_printf ("dest='%s'", dest->name);
      int id;

      if (dest->outline_level == 0 || dest->outline_level > 2)
        continue;
      id = cairo_pdf_surface_add_outline (surface, parents[dest->outline_level - 1], dest->title,
                                          link, dest->outline_level == 1 ? CAIRO_PDF_OUTLINE_FLAG_BOLD : 0);
      parents[dest->outline_level] = id;
    }

  if (!ok && closure.error == NULL)
    closure.error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (ok && closure.error)
    {
      g_propagate_error (error, g_steal_pointer (&closure.error));
      ok = FALSE;
    }
  else if (ok && cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                   _("The PDF could not be drawn: %s"),
                   cairo_status_to_string (cairo_surface_status (surface)));
      ok = FALSE;
    }
  g_clear_error (&closure.error);
  cairo_surface_destroy (surface);
  g_array_unref (layout.ops);
  g_array_unref (layout.dests);
  g_ptr_array_unref (layout.links);
  g_hash_table_unref (layout.cell_dests);
  g_object_unref (layout.context);
  if (ok)
    assay_report_progress (report, 1.0, _("Done"));
  return ok;
}
