/* SPDX-License-Identifier: GPL-3.0-or-later */
/* md4c calls back for each block, span and piece of text; we build Pango markup for the
 * block in progress and turn each finished block into a widget. */
#define G_LOG_DOMAIN "Assay-Chat"

#include "config.h"

#include <md4c.h>
#include <string.h>

#include <glib/gi18n.h>

#include "assay-markdown-view.h"
#include "assay-provenance.h"
#include "assay-table-scroller.h"

struct _AssayMarkdownView
{
  GtkWidget  parent_instance;
  char      *markdown;
  /* While text streams: the prefix already rendered for good (whole blocks) and its last
   * widget; only what follows is parsed and laid out again. */
  gsize      settled_len;
  GtkWidget *last_settled;
  /* During a streaming render: the next widget of the previous one, kept if the new render
   * makes the same block there (a block unchanged keeps its widget and its measured size). */
  GtkWidget *reuse;
  /* During a render in place: the blocks made, not yet shown (GtkWidget*, their signatures set). */
  GPtrArray *collected;
  /* Where the answer's numbers came from: each is a link to its cell, or marked untraced. */
  AssayProvenance *provenance;
  /* Blocks rendered in place still to be swapped in, a few each frame (SwapPair*), and the
   * tick callback that swaps them. */
  GPtrArray *pending;
  guint      pending_tick;
};

/* A block shown and the one rendered anew that replaces it. */
typedef struct
{
  GtkWidget *shown;
  GtkWidget *fresh;
  gsize      cost;
  double     distance;
  guint      index;
} SwapPair;

/* About how much text one frame lays out again as blocks are swapped (bytes of their
 * markup): each new label is shaped about three times (its minimum and natural widths and
 * its height at the view's width), and a 2,000-word answer swapped at once stalled the window
 * for a fifth of a second. */
#define SWAP_BUDGET_PER_FRAME 1200

enum
{
  NUMBER_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

#define NUMBER_URI "assay-number:"
/* The widest a table's column gets before its cells wrap. */
#define MAX_CELL_CHARS 40
/* Between blocks. */
#define BLOCK_SPACING 8


G_DEFINE_FINAL_TYPE (AssayMarkdownView, assay_markdown_view, GTK_TYPE_WIDGET)

typedef struct
{
  gboolean ordered;
  guint    next_number;
} ListLevel;

typedef struct
{
  AssayMarkdownView *view;
  GString           *markup;      /* the block in progress */
  gboolean           in_block;
  gboolean           has_text;
  const char        *css_class;   /* for the block in progress */
  GArray            *lists;       /* ListLevel */
  guint              quote_depth;
  GtkGrid           *table;
  int                row;
  int                column;
  gboolean           in_head;
  GPtrArray         *link_closers;
  GString           *table_signature;
  guint              next_number;  /* the first of the provenance's numbers still to come */
  GString           *described;    /* where the block's numbers came from, for screen readers */
} Render;

/* The narrowest a wrapped paragraph gets, in characters. Without it GTK measures a label's
 * minimum width by laying its text out a character per line (the line breaks allow a break
 * anywhere), thousands of lines for a long paragraph, and that was most of what a long answer
 * cost to lay out. */
#define MIN_WRAP_CHARS 16

#define SIGNATURE_KEY "assay-markdown-signature"

/* Removes WIDGET and every widget after it. */
static void
assay_markdown_view_remove_from (GtkWidget *widget)
{
  while (widget != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (widget);

      gtk_widget_unparent (widget);
      widget = next;
    }
}

/* Whether the block with SIGNATURE (what it shows, exactly) is the one the previous render
 * had at this place; if so, that widget stays and the render moves past it. From the first
 * difference on, the previous render's widgets go. */
static gboolean
assay_markdown_view_reuse_block (Render     *render,
                                 const char *signature)
{
  AssayMarkdownView *view = render->view;

  if (view->reuse == NULL)
    return FALSE;
  if (g_strcmp0 (g_object_get_data (G_OBJECT (view->reuse), SIGNATURE_KEY), signature) == 0)
    {
      view->reuse = gtk_widget_get_next_sibling (view->reuse);
      return TRUE;
    }
  assay_markdown_view_remove_from (view->reuse);
  view->reuse = NULL;
  return FALSE;
}

static void
assay_markdown_view_add_child (Render     *render,
                               GtkWidget  *child,
                               const char *signature)
{
  if (assay_markdown_view_reuse_block (render, signature))
    {
      g_object_unref (g_object_ref_sink (child));
      return;
    }
  g_object_set_data_full (G_OBJECT (child), SIGNATURE_KEY, g_strdup (signature), g_free);
  if (render->view->collected != NULL)
    g_ptr_array_add (render->view->collected, g_object_ref_sink (child));
  else
    gtk_widget_set_parent (child, GTK_WIDGET (render->view));
}

static gboolean
assay_markdown_view_activate_link_cb (GtkLabel          *label,
                                      const char        *uri,
                                      AssayMarkdownView *self)
{
  guint64 index;

  if (!g_str_has_prefix (uri, NUMBER_URI))
    return FALSE;   /* a web link: GTK opens it */
  /* A block not yet swapped for its new rendering: its numbers are those of the provenance
   * before, and lead nowhere until it is. */
  for (guint i = 0; self->pending != NULL && i < self->pending->len; i++)
    {
      GtkWidget *shown = ((SwapPair *) g_ptr_array_index (self->pending, i))->shown;

      if (GTK_WIDGET (label) == shown || gtk_widget_is_ancestor (GTK_WIDGET (label), shown))
        return TRUE;
    }
  if (g_ascii_string_to_unsigned (uri + strlen (NUMBER_URI), 10, 0, G_MAXUINT, &index, NULL) &&
      self->provenance != NULL && index < self->provenance->numbers->len)
    g_signal_emit (self, signals[NUMBER_ACTIVATED], 0, (guint) index);
  return TRUE;
}

static GtkWidget *
assay_markdown_view_markup_label (AssayMarkdownView *self,
                                  const char        *markup)
{
  GtkWidget *label = gtk_label_new (NULL);

  g_signal_connect_object (label, "activate-link", G_CALLBACK (assay_markdown_view_activate_link_cb), self, 0);

  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_width_chars (GTK_LABEL (label), MIN_WRAP_CHARS);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  return label;
}

static void
assay_markdown_view_begin_block (Render     *render,
                                 const char *css_class)
{
  g_string_truncate (render->markup, 0);
  g_string_truncate (render->described, 0);
  render->in_block = TRUE;
  render->has_text = FALSE;
  render->css_class = css_class;
}

static void
assay_markdown_view_end_block (Render *render)
{
  GtkWidget *label;
  g_autofree char *signature = NULL;

  if (!render->in_block)
    return;
  render->in_block = FALSE;
  /* Trailing newlines of code blocks would show as blank lines. */
  while (render->markup->len > 0 && render->markup->str[render->markup->len - 1] == '\n')
    g_string_truncate (render->markup, render->markup->len - 1);
  if (render->table != NULL)
    return;
  signature = g_strdup_printf ("label %s %d %s", render->css_class ? render->css_class : "-",
                               render->quote_depth > 0, render->markup->str);
  if (assay_markdown_view_reuse_block (render, signature))
    return;
  label = assay_markdown_view_markup_label (render->view, render->markup->str);
  if (render->described->len > 0)
    gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                    render->described->str, -1);
  if (render->css_class != NULL)
    gtk_widget_add_css_class (label, render->css_class);
  if (render->quote_depth > 0)
    gtk_widget_add_css_class (label, "markdown-quote");
  assay_markdown_view_add_child (render, label, signature);
}

static void
assay_markdown_view_append_escaped (Render     *render,
                                    const char *text,
                                    gsize       size)
{
  g_autofree char *escaped = NULL;

  if (!render->in_block)
    assay_markdown_view_begin_block (render, NULL);
  /* g_markup_escape_text wants valid UTF-8; replace anything else. */
  if (!g_utf8_validate_len (text, size, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (text, size);

      escaped = g_markup_escape_text (valid, -1);
    }
  else
    escaped = g_markup_escape_text (text, size);
  g_string_append (render->markup, escaped);
  render->has_text = TRUE;
}

static int
assay_markdown_view_enter_block (MD_BLOCKTYPE  type,
                                 void         *detail,
                                 void         *user_data)
{
  Render *render = user_data;

  switch (type)
    {
    case MD_BLOCK_P:
      if (render->lists->len == 0 && render->table == NULL)
        assay_markdown_view_begin_block (render, NULL);
      else if (render->in_block && render->has_text && render->table == NULL)
        g_string_append (render->markup, "\n");
      break;

    case MD_BLOCK_H:
      {
        static const char *classes[] = { "title-1", "title-2", "title-3", "title-4", "heading", "heading" };
        MD_BLOCK_H_DETAIL *h = detail;

        assay_markdown_view_end_block (render);
        assay_markdown_view_begin_block (render, classes[CLAMP (h->level, 1, 6) - 1]);
      }
      break;

    case MD_BLOCK_CODE:
      assay_markdown_view_end_block (render);
      assay_markdown_view_begin_block (render, "markdown-code");
      g_string_append (render->markup, "<tt>");
      break;

    case MD_BLOCK_QUOTE:
      assay_markdown_view_end_block (render);
      render->quote_depth++;
      break;

    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      {
        ListLevel level = { type == MD_BLOCK_OL, 1 };

        if (type == MD_BLOCK_OL)
          level.next_number = ((MD_BLOCK_OL_DETAIL *) detail)->start;
        assay_markdown_view_end_block (render);
        g_array_append_val (render->lists, level);
      }
      break;

    case MD_BLOCK_LI:
      {
        ListLevel *level = &g_array_index (render->lists, ListLevel, render->lists->len - 1);
        MD_BLOCK_LI_DETAIL *li = detail;

        assay_markdown_view_end_block (render);
        assay_markdown_view_begin_block (render, NULL);
        for (guint i = 1; i < render->lists->len; i++)
          g_string_append (render->markup, "    ");
        if (li->is_task)
          g_string_append (render->markup, li->task_mark == ' ' ? "☐ " : "☑ ");
        else if (level->ordered)
          g_string_append_printf (render->markup, "%u. ", level->next_number++);
        else
          g_string_append (render->markup, "• ");
      }
      break;

    case MD_BLOCK_HR:
      assay_markdown_view_end_block (render);
      assay_markdown_view_add_child (render, gtk_separator_new (GTK_ORIENTATION_HORIZONTAL), "separator");
      break;

    case MD_BLOCK_TABLE:
      assay_markdown_view_end_block (render);
      render->table = GTK_GRID (gtk_grid_new ());
      gtk_widget_add_css_class (GTK_WIDGET (render->table), "markdown-table");
      gtk_grid_set_column_spacing (render->table, 18);
      gtk_grid_set_row_spacing (render->table, 4);
      render->row = -1;
      g_string_assign (render->table_signature, "table");
      break;

    case MD_BLOCK_THEAD:
      render->in_head = TRUE;
      break;

    case MD_BLOCK_TBODY:
      render->in_head = FALSE;
      break;

    case MD_BLOCK_TR:
      render->row++;
      render->column = 0;
      break;

    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      g_string_truncate (render->markup, 0);
      g_string_truncate (render->described, 0);
      render->in_block = TRUE;
      break;

    case MD_BLOCK_DOC:
    case MD_BLOCK_HTML:
    default:
      break;
    }
  return 0;
}

/* The table, scrolled sideways when wider than the chat: its cells keep their width (long
 * ones wrap at a column's width, MAX_CELL_CHARS) and the wheel still scrolls the chat. */
static void
assay_markdown_view_add_table (Render *render)
{
  GtkWidget *scroller = assay_table_scroller_new ();

  assay_table_scroller_set_child (ASSAY_TABLE_SCROLLER (scroller), GTK_WIDGET (render->table));
  render->table = NULL;
  assay_markdown_view_add_child (render, scroller, render->table_signature->str);
}

static int
assay_markdown_view_leave_block (MD_BLOCKTYPE  type,
                                 void         *detail,
                                 void         *user_data)
{
  Render *render = user_data;

  switch (type)
    {
    case MD_BLOCK_P:
      if (render->lists->len == 0 && render->table == NULL)
        assay_markdown_view_end_block (render);
      break;

    case MD_BLOCK_H:
    case MD_BLOCK_LI:
      assay_markdown_view_end_block (render);
      break;

    case MD_BLOCK_CODE:
      while (render->markup->len > 0 && render->markup->str[render->markup->len - 1] == '\n')
        g_string_truncate (render->markup, render->markup->len - 1);
      g_string_append (render->markup, "</tt>");
      assay_markdown_view_end_block (render);
      break;

    case MD_BLOCK_QUOTE:
      assay_markdown_view_end_block (render);
      render->quote_depth--;
      break;

    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      assay_markdown_view_end_block (render);
      g_array_set_size (render->lists, render->lists->len - 1);
      break;

    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      {
        MD_ALIGN align = ((MD_BLOCK_TD_DETAIL *) detail)->align;
        GtkWidget *label;

        render->in_block = FALSE;
        if (type == MD_BLOCK_TH)
          {
            g_string_prepend (render->markup, "<b>");
            g_string_append (render->markup, "</b>");
          }
        label = assay_markdown_view_markup_label (render->view, render->markup->str);
        /* A column is as wide as its longest cell, up to MAX_CELL_CHARS; only longer cells
         * wrap, never because the chat is narrow (the table scrolls instead). */
        gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
        gtk_label_set_width_chars (GTK_LABEL (label), -1);
        gtk_label_set_max_width_chars (GTK_LABEL (label), MAX_CELL_CHARS);
        if (render->described->len > 0)
          gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                          render->described->str, -1);
        if (align == MD_ALIGN_RIGHT)
          gtk_label_set_xalign (GTK_LABEL (label), 1.0);
        else if (align == MD_ALIGN_CENTER)
          gtk_label_set_xalign (GTK_LABEL (label), 0.5);
        g_string_append_printf (render->table_signature, "\n%d %d %d %s", render->row, render->column, align,
                                render->markup->str);
        gtk_grid_attach (render->table, label, render->column++, render->row, 1, 1);
      }
      break;

    case MD_BLOCK_TABLE:
      assay_markdown_view_add_table (render);
      break;

    default:
      break;
    }
  return 0;
}

static int
assay_markdown_view_enter_span (MD_SPANTYPE  type,
                                void        *detail,
                                void        *user_data)
{
  Render *render = user_data;

  if (!render->in_block)
    assay_markdown_view_begin_block (render, NULL);
  switch (type)
    {
    case MD_SPAN_EM: g_string_append (render->markup, "<i>"); break;
    case MD_SPAN_STRONG: g_string_append (render->markup, "<b>"); break;
    case MD_SPAN_CODE: g_string_append (render->markup, "<tt>"); break;
    case MD_SPAN_DEL: g_string_append (render->markup, "<s>"); break;
    case MD_SPAN_U: g_string_append (render->markup, "<u>"); break;
    case MD_SPAN_A:
      {
        MD_SPAN_A_DETAIL *a = detail;
        g_autofree char *href = g_strndup (a->href.text, a->href.size);

        /* Only web links become links; anything else (file:, javascript:) stays text. */
        if (g_str_has_prefix (href, "https://") || g_str_has_prefix (href, "http://"))
          {
            g_autofree char *escaped = g_markup_escape_text (href, -1);

            g_string_append_printf (render->markup, "<a href=\"%s\">", escaped);
            g_ptr_array_add (render->link_closers, "</a>");
          }
        else
          g_ptr_array_add (render->link_closers, "");
      }
      break;
    default:
      break;
    }
  return 0;
}

static int
assay_markdown_view_leave_span (MD_SPANTYPE  type,
                                void        *detail,
                                void        *user_data)
{
  Render *render = user_data;

  switch (type)
    {
    case MD_SPAN_EM: g_string_append (render->markup, "</i>"); break;
    case MD_SPAN_STRONG: g_string_append (render->markup, "</b>"); break;
    case MD_SPAN_CODE: g_string_append (render->markup, "</tt>"); break;
    case MD_SPAN_DEL: g_string_append (render->markup, "</s>"); break;
    case MD_SPAN_U: g_string_append (render->markup, "</u>"); break;
    case MD_SPAN_A:
      if (render->link_closers->len > 0)
        {
          g_string_append (render->markup, g_ptr_array_index (render->link_closers,
                                                              render->link_closers->len - 1));
          g_ptr_array_set_size (render->link_closers, render->link_closers->len - 1);
        }
      break;
    default:
      break;
    }
  return 0;
}

/* Text of the Markdown source: the answer's numbers in it become links to where they came
 * from (a tooltip says where; activating one shows it), or are marked as found nowhere. */
static void
assay_markdown_view_append_source (Render     *render,
                                   const char *text,
                                   gsize       size)
{
  AssayMarkdownView *self = render->view;
  const char *doc = self->markdown;
  gsize doc_size = doc != NULL ? strlen (doc) : 0;
  gsize at, end;

  if (self->provenance == NULL || doc == NULL || text < doc || text + size > doc + doc_size)
    {
      assay_markdown_view_append_escaped (render, text, size);
      return;
    }
  at = (gsize) (text - doc);
  end = at + size;
  while (render->next_number < self->provenance->numbers->len)
    {
      const AssayTracedNumber *number = g_ptr_array_index (self->provenance->numbers, render->next_number);
      g_autofree char *title = NULL;
      g_autofree char *escaped_title = NULL;

      if (number->start >= end)
        break;
      render->next_number++;
      if (number->start < at || number->end > end)
        continue;
      assay_markdown_view_append_escaped (render, doc + at, number->start - at);
      if (number->found && number->ambiguous)
        /* Translators: a tooltip on a number of the answer printed on several lines under
         * different labels: how many, then one of them (cell, line, its text). */
        title = g_strdup_printf (_("Printed under %u labels, and the answer does not say which; one is cell %s, "
                                   "line %u: %s"), number->places, number->cell_id, number->line, number->line_text);
      else if (number->found)
        /* Translators: a tooltip on a number of the answer: the cell, the line, its text. */
        title = g_strdup_printf (_("From cell %s, line %u: %s"), number->cell_id, number->line, number->line_text);
      else if (number->weak)
        title = g_strdup_printf (_("Not traced: cell %s printed %u numbers near it (line %u: %s); a match among "
                                   "so many proves nothing"), number->cell_id, number->crowd, number->line,
                                 number->line_text);
      else if (number->stale)
        title = g_strdup (_("Stale: not found again in the output on the new data; the old text is kept"));
      else
        title = g_strdup (_("Not found in any output of this question’s cells"));
      escaped_title = g_markup_escape_text (title, -1);
      if (render->described->len > 0)
        g_string_append (render->described, "; ");
      g_string_append_printf (render->described, "%.*s: %s", (int) (number->end - number->start),
                              doc + number->start, title);
      g_string_append_printf (render->markup, "<a href=\"" NUMBER_URI "%u\" title=\"%s\">",
                              render->next_number - 1, escaped_title);
      if (!number->found)
        /* A red that reads on the light and the dark style alike (#e01b24 was lost on dark
         * grey), over a faint tint of it: the squiggle alone is a hairline. */
        g_string_append (render->markup, "<span underline=\"error\" underline_color=\"#f66151\" "
                                         "bgcolor=\"#f66151\" bgalpha=\"18%\">");
      assay_markdown_view_append_escaped (render, doc + number->start, number->end - number->start);
      if (!number->found)
        g_string_append (render->markup, "</span>");
      g_string_append (render->markup, "</a>");
      at = number->end;
    }
  assay_markdown_view_append_escaped (render, doc + at, end - at);
}

static int
assay_markdown_view_text_cb (MD_TEXTTYPE   type,
                             const MD_CHAR *text,
                             MD_SIZE        size,
                             void          *user_data)
{
  Render *render = user_data;

  switch (type)
    {
    case MD_TEXT_NULLCHAR:
      assay_markdown_view_append_escaped (render, "\xef\xbf\xbd", 3);
      break;
    case MD_TEXT_BR:
      assay_markdown_view_append_escaped (render, "\n", 1);
      break;
    case MD_TEXT_SOFTBR:
      assay_markdown_view_append_escaped (render, " ", 1);
      break;
    case MD_TEXT_ENTITY:
      {
        /* A few common entities; anything else shows as written. */
        static const struct { const char *entity, *text; } entities[] = {
          { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
          { "&nbsp;", "\xc2\xa0" }, { "&apos;", "'" },
        };
        for (guint i = 0; i < G_N_ELEMENTS (entities); i++)
          if (strlen (entities[i].entity) == size && memcmp (entities[i].entity, text, size) == 0)
            {
              assay_markdown_view_append_escaped (render, entities[i].text, strlen (entities[i].text));
              return 0;
            }
        assay_markdown_view_append_escaped (render, text, size);
      }
      break;
    case MD_TEXT_NORMAL:
      assay_markdown_view_append_source (render, text, size);
      break;
    default:
      assay_markdown_view_append_escaped (render, text, size);
      break;
    }
  return 0;
}

/* A block rendered anew takes the place of the one shown (in the view or in a chunk). */
static void
assay_markdown_view_swap_block (AssayMarkdownView *self,
                                GtkWidget         *old,
                                GtkWidget         *new)
{
  GtkWidget *parent = gtk_widget_get_parent (old);

  if (parent == NULL)
    return;
  if (self->last_settled == old)
    self->last_settled = new;
  if (parent == GTK_WIDGET (self))
    {
      gtk_widget_insert_after (new, parent, old);
      gtk_widget_unparent (old);
    }
  else
    {
      gtk_box_insert_child_after (GTK_BOX (parent), new, old);
      gtk_box_remove (GTK_BOX (parent), old);
    }
}

static void
swap_pair_free (SwapPair *pair)
{
  g_object_unref (pair->fresh);
  g_free (pair);
}

static void
assay_markdown_view_cancel_swaps (AssayMarkdownView *self)
{
  if (self->pending_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->pending_tick);
  self->pending_tick = 0;
  g_clear_pointer (&self->pending, g_ptr_array_unref);
}

static void
assay_markdown_view_clear_children (AssayMarkdownView *self)
{
  GtkWidget *child;

  assay_markdown_view_cancel_swaps (self);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
}

static void assay_markdown_view_parse_into (AssayMarkdownView *self,
                                            const char        *text,
                                            gsize              size);

/* Where TEXT can be cut into blocks that no later text changes: after the last blank line
 * that is outside a fenced code block, and not inside a table or a list (which a later line
 * may continue). Returns 0 when there is none. */
static gsize
assay_markdown_view_settle_point (const char *text,
                                  gsize       from)
{
  gboolean in_fence = FALSE;
  gsize point = 0;
  const char *line = text;

  while (*line != '\0')
    {
      const char *end = strchr (line, '\n');
      const char *p = line;

      if (end == NULL)
        break;   /* the last line is still being written */
      while (*p == ' ' && p - line < 4)
        p++;
      if (g_str_has_prefix (p, "```") || g_str_has_prefix (p, "~~~"))
        in_fence = !in_fence;
      else if (!in_fence && end == p && (gsize) (end + 1 - text) > from)
        {
          /* A blank line: what follows starts a new block unless it continues a list. */
          const char *next = end + 1;
          const char *q = next;

          while (*q == ' ')
            q++;
          if (q == next && *q != '\0' && *q != '\n' &&
              !(g_ascii_isdigit (*q) || *q == '-' || *q == '*' || *q == '+' || *q == '|' || *q == '>'))
            point = next - text;
        }
      line = end + 1;
    }
  return point;
}

/* Settled blocks are moved into boxes of this many: a long answer has hundreds of blocks,
 * and GTK walks every child of the view each time the block being written changes. */
#define CHUNK_BLOCKS 32
#define CHUNK_KEY "assay-markdown-chunk"

static void
assay_markdown_view_pack_settled (AssayMarkdownView *self)
{
  GtkWidget *first = gtk_widget_get_first_child (GTK_WIDGET (self));
  GtkWidget *chunk;
  guint n = 0;

  if (self->last_settled == NULL)
    return;
  while (first != NULL && g_object_get_data (G_OBJECT (first), CHUNK_KEY) != NULL)
    first = gtk_widget_get_next_sibling (first);
  for (GtkWidget *w = first; w != NULL; w = gtk_widget_get_next_sibling (w))
    {
      n++;
      if (w == self->last_settled)
        break;
    }
  if (first == NULL || n < CHUNK_BLOCKS)
    return;
  chunk = gtk_box_new (GTK_ORIENTATION_VERTICAL, BLOCK_SPACING);
  g_object_set_data (G_OBJECT (chunk), CHUNK_KEY, GINT_TO_POINTER (TRUE));
  gtk_widget_insert_before (chunk, GTK_WIDGET (self), first);
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *w = g_object_ref (gtk_widget_get_next_sibling (chunk));

      gtk_widget_unparent (w);
      gtk_box_append (GTK_BOX (chunk), w);
      g_object_unref (w);
    }
  self->last_settled = chunk;
}

void
assay_markdown_view_set_markdown_streaming (AssayMarkdownView *self,
                                            const char        *markdown)
{
  gsize length;
  gsize point;

  g_return_if_fail (ASSAY_IS_MARKDOWN_VIEW (self));

  if (markdown == NULL)
    markdown = "";
  if (g_strcmp0 (markdown, self->markdown) == 0)
    return;
  assay_markdown_view_cancel_swaps (self);
  length = strlen (markdown);
  /* Text that does not continue what was shown (a retry voided it): start again. */
  if (self->markdown == NULL || strncmp (markdown, self->markdown, self->settled_len) != 0)
    {
      assay_markdown_view_clear_children (self);
      self->settled_len = 0;
      self->last_settled = NULL;
    }
  g_free (self->markdown);
  self->markdown = g_strdup (markdown);

  /* The widgets after the settled blocks are kept where the new text makes the same blocks. */
  self->reuse = self->last_settled != NULL ? gtk_widget_get_next_sibling (self->last_settled)
                                           : gtk_widget_get_first_child (GTK_WIDGET (self));
  point = assay_markdown_view_settle_point (markdown, self->settled_len);
  if (point > self->settled_len)
    {
      assay_markdown_view_parse_into (self, markdown + self->settled_len, point - self->settled_len);
      self->settled_len = point;
      self->last_settled = self->reuse != NULL ? gtk_widget_get_prev_sibling (self->reuse)
                                               : gtk_widget_get_last_child (GTK_WIDGET (self));
      assay_markdown_view_pack_settled (self);
    }
  if (length > self->settled_len)
    assay_markdown_view_parse_into (self, markdown + self->settled_len, length - self->settled_len);
  assay_markdown_view_remove_from (self->reuse);
  self->reuse = NULL;
}

void
assay_markdown_view_set_markdown (AssayMarkdownView *self,
                                  const char        *markdown)
{
  g_return_if_fail (ASSAY_IS_MARKDOWN_VIEW (self));

  if (g_strcmp0 (markdown, self->markdown) == 0 && self->settled_len == 0)
    return;
  g_free (self->markdown);
  self->markdown = g_strdup (markdown ? markdown : "");
  self->settled_len = 0;
  self->last_settled = NULL;
  assay_markdown_view_clear_children (self);
  assay_markdown_view_parse_into (self, self->markdown, strlen (self->markdown));
}

/* Whether TEXT has a line that looks like a link reference definition ("[label]: url"),
 * outside fenced code or not: a false positive only costs a whole render. */
static gboolean
assay_markdown_view_has_link_reference (const char *text)
{
  for (const char *line = text; line != NULL && *line != '\0'; line = strchr (line, '\n'),
       line = line ? line + 1 : NULL)
    {
      const char *p = line;

      while (*p == ' ' && p - line < 3)
        p++;
      if (*p == '[')
        {
          const char *close = strchr (p, ']');
          const char *end = strchr (p, '\n');

          if (close != NULL && (end == NULL || close < end) && close[1] == ':')
            return TRUE;
        }
    }
  return FALSE;
}

void
assay_markdown_view_finish_streaming (AssayMarkdownView *self,
                                      const char        *markdown)
{
  g_return_if_fail (ASSAY_IS_MARKDOWN_VIEW (self));

  if (markdown == NULL)
    markdown = "";
  if (self->settled_len == 0 || assay_markdown_view_has_link_reference (markdown))
    assay_markdown_view_set_markdown (self, markdown);
  else
    assay_markdown_view_set_markdown_streaming (self, markdown);
}

static void
assay_markdown_view_parse_into (AssayMarkdownView *self,
                                const char        *text,
                                gsize              size)
{
  MD_PARSER parser = {
    .abi_version = 0,
    .flags = MD_DIALECT_GITHUB | MD_FLAG_NOHTML,
    .enter_block = assay_markdown_view_enter_block,
    .leave_block = assay_markdown_view_leave_block,
    .enter_span = assay_markdown_view_enter_span,
    .leave_span = assay_markdown_view_leave_span,
    .text = assay_markdown_view_text_cb,
  };
  Render render = { 0 };

  render.view = self;
  render.markup = g_string_new (NULL);
  render.table_signature = g_string_new (NULL);
  render.described = g_string_new (NULL);
  render.lists = g_array_new (FALSE, TRUE, sizeof (ListLevel));
  render.link_closers = g_ptr_array_new ();
  md_parse (text, (MD_SIZE) size, &parser, &render);
  assay_markdown_view_end_block (&render);
  /* A table cut off mid-stream never reached its leave callback. */
  if (render.table != NULL)
    assay_markdown_view_add_table (&render);
  g_string_free (render.markup, TRUE);
  g_string_free (render.table_signature, TRUE);
  g_string_free (render.described, TRUE);
  g_array_unref (render.lists);
  g_ptr_array_unref (render.link_closers);
}

const char *
assay_markdown_view_get_markdown (AssayMarkdownView *self)
{
  g_return_val_if_fail (ASSAY_IS_MARKDOWN_VIEW (self), NULL);
  return self->markdown;
}

static void
assay_markdown_view_dispose (GObject *object)
{
  assay_markdown_view_clear_children (ASSAY_MARKDOWN_VIEW (object));
  G_OBJECT_CLASS (assay_markdown_view_parent_class)->dispose (object);
}

static void
assay_markdown_view_finalize (GObject *object)
{
  g_clear_pointer (&ASSAY_MARKDOWN_VIEW (object)->provenance, assay_provenance_free);
  g_free (ASSAY_MARKDOWN_VIEW (object)->markdown);
  G_OBJECT_CLASS (assay_markdown_view_parent_class)->finalize (object);
}

/* The blocks, one under the other, each laid out for the view's width. Not a GtkBoxLayout:
 * a layout manager's request mode comes from the children, and GTK 4.8 keeps the one it
 * computed while the view was empty and hidden (the step card hides it until text arrives):
 * "constant size", one height measured at one width and kept at every other, the paragraphs
 * drawn over the rows below once the chat got narrower. Text is height-for-width, always. */

static GtkSizeRequestMode
assay_markdown_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
assay_markdown_view_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  guint n = 0;

  *minimum = *natural = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      int child_min = 0, child_nat = 0;

      if (!gtk_widget_should_layout (child))
        continue;
      if (orientation == GTK_ORIENTATION_HORIZONTAL)
        {
          gtk_widget_measure (child, orientation, -1, &child_min, &child_nat, NULL, NULL);
          *minimum = MAX (*minimum, child_min);
          *natural = MAX (*natural, child_nat);
        }
      else
        {
          gtk_widget_measure (child, orientation, for_size, &child_min, &child_nat, NULL, NULL);
          *minimum += child_min;
          *natural += child_nat;
        }
      n++;
    }
  if (orientation == GTK_ORIENTATION_VERTICAL && n > 1)
    {
      *minimum += (n - 1) * BLOCK_SPACING;
      *natural += (n - 1) * BLOCK_SPACING;
    }
}

static void
assay_markdown_view_size_allocate (GtkWidget *widget,
                                   int        width,
                                   int        height,
                                   int        baseline)
{
  int natural_total = 0;
  gboolean use_natural;
  int y = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child))
      {
        int child_nat = 0;

        gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, NULL, &child_nat, NULL, NULL);
        natural_total += child_nat + (natural_total > 0 ? BLOCK_SPACING : 0);
      }
  use_natural = natural_total <= height;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      int child_min = 0, child_nat = 0;

      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, &child_min, &child_nat, NULL, NULL);
      gtk_widget_allocate (child, width, use_natural ? child_nat : child_min, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, y)));
      y += (use_natural ? child_nat : child_min) + BLOCK_SPACING;
    }
}

/* ---- underlines ----------------------------------------------------------------------------- */

/* The theme underlines a link (a traced number) with a line a fraction of a pixel thick, where
 * the font puts it: GTK's GL renderer fills only the pixel rows whose centres it covers, and
 * on most numbers it covered none (cairo blends it into the rows it touches). There the
 * underline of each link of the view's labels is drawn again, a whole device pixel on a pixel
 * row, in the link's underline colour. */
static void
assay_markdown_view_snapshot_label_underlines (AssayMarkdownView *self,
                                               GtkLabel          *label,
                                               GtkSnapshot       *snapshot)
{
  PangoLayout *layout = gtk_label_get_layout (label);
  PangoAttrList *attrs = pango_layout_get_attributes (layout);
  g_autoptr(GArray) ranges = NULL;      /* start, end, colour: an underlined link */
  PangoAttrIterator *it;
  PangoFontMetrics *metrics;
  PangoLayoutIter *lines;
  graphene_point_t origin;
  double scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  int lx, ly, position, thickness;
  typedef struct { int start, end; GdkRGBA color; } Range;

  if (attrs == NULL || !gtk_widget_compute_point (GTK_WIDGET (label), GTK_WIDGET (self), &GRAPHENE_POINT_INIT (0, 0), &origin))
    return;
  ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  it = pango_attr_list_get_iterator (attrs);
  do
    {
      PangoAttrInt *underline = (PangoAttrInt *) pango_attr_iterator_get (it, PANGO_ATTR_UNDERLINE);
      PangoAttrColor *color = (PangoAttrColor *) pango_attr_iterator_get (it, PANGO_ATTR_UNDERLINE_COLOR);
      PangoAttrColor *foreground = (PangoAttrColor *) pango_attr_iterator_get (it, PANGO_ATTR_FOREGROUND);
      Range range;

      if (underline == NULL || underline->value != PANGO_UNDERLINE_SINGLE)
        continue;
      pango_attr_iterator_range (it, &range.start, &range.end);
      if (color == NULL)
        color = foreground;
      range.color = color != NULL ? (GdkRGBA) { color->color.red / 65535., color->color.green / 65535.,
                                                color->color.blue / 65535., 0.55 }
                                  : (GdkRGBA) { 0.5, 0.5, 0.5, 0.55 };
      g_array_append_val (ranges, range);
    }
  while (pango_attr_iterator_next (it));
  pango_attr_iterator_destroy (it);
  if (ranges->len == 0)
    return;

  gtk_label_get_layout_offsets (label, &lx, &ly);
  metrics = pango_context_get_metrics (pango_layout_get_context (layout), pango_layout_get_font_description (layout), NULL);
  position = pango_font_metrics_get_underline_position (metrics);
  thickness = pango_font_metrics_get_underline_thickness (metrics);
  pango_font_metrics_unref (metrics);

  lines = pango_layout_get_iter (layout);
  do
    {
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (lines);
      PangoRectangle extents;
      double y, height;

      pango_layout_iter_get_line_extents (lines, NULL, &extents);
      /* Below the baseline by the font's underline position, on a whole device pixel. */
      y = round ((origin.y + ly + (pango_layout_iter_get_baseline (lines) - position) / (double) PANGO_SCALE) * scale) / scale;
      height = MAX (1.0, round (thickness / (double) PANGO_SCALE * scale)) / scale;
      for (guint i = 0; i < ranges->len; i++)
        {
          const Range *range = &g_array_index (ranges, Range, i);
          int start = MAX (range->start, line->start_index);
          int end = MIN (range->end, line->start_index + line->length);
          int x0, x1;

          if (start >= end)
            continue;
          pango_layout_line_index_to_x (line, start, FALSE, &x0);
          pango_layout_line_index_to_x (line, end, FALSE, &x1);
          if (x1 < x0)
            {
              int swap = x0;

              x0 = x1;
              x1 = swap;
            }
          gtk_snapshot_append_color (snapshot, &range->color,
                                     &GRAPHENE_RECT_INIT (origin.x + lx + (extents.x + x0) / (double) PANGO_SCALE, y,
                                                          (x1 - x0) / (double) PANGO_SCALE, height));
        }
    }
  while (pango_layout_iter_next_line (lines));
  pango_layout_iter_free (lines);
}

static void
assay_markdown_view_snapshot_underlines (AssayMarkdownView *self,
                                         GtkWidget         *widget,
                                         GtkSnapshot       *snapshot)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_mapped (child))
        continue;
      if (GTK_IS_LABEL (child))
        assay_markdown_view_snapshot_label_underlines (self, GTK_LABEL (child), snapshot);
      else
        assay_markdown_view_snapshot_underlines (self, child, snapshot);
    }
}

static void
assay_markdown_view_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  GtkNative *native = gtk_widget_get_native (widget);

  GTK_WIDGET_CLASS (assay_markdown_view_parent_class)->snapshot (widget, snapshot);
  /* Cairo blends the theme's own line into the rows it touches: drawn once is enough. */
  if (native == NULL || !GSK_IS_CAIRO_RENDERER (gtk_native_get_renderer (native)))
    assay_markdown_view_snapshot_underlines (ASSAY_MARKDOWN_VIEW (widget), widget, snapshot);
}

static void
assay_markdown_view_class_init (AssayMarkdownViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_markdown_view_dispose;
  object_class->finalize = assay_markdown_view_finalize;
  widget_class->get_request_mode = assay_markdown_view_get_request_mode;
  widget_class->measure = assay_markdown_view_measure;
  widget_class->size_allocate = assay_markdown_view_size_allocate;
  widget_class->snapshot = assay_markdown_view_snapshot;
  gtk_widget_class_set_css_name (widget_class, "markdown");

  /* ::number-activated (guint index): the answer's number INDEX of the provenance was
   * clicked or activated from the keyboard. */
  signals[NUMBER_ACTIVATED] = g_signal_new ("number-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                            0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
assay_markdown_view_init (AssayMarkdownView *self)
{
  self->markdown = g_strdup ("");
}

GtkWidget *
assay_markdown_view_new (void)
{
  return g_object_new (ASSAY_TYPE_MARKDOWN_VIEW, NULL);
}

/* Swaps the pending blocks, nearest the visible part of the conversation first, until about
 * a frame's worth of text is laid out again (at least one block). */
static void
assay_markdown_view_swap_some (AssayMarkdownView *self)
{
  gsize spent = 0;

  while (self->pending != NULL && self->pending->len > 0 && spent < SWAP_BUDGET_PER_FRAME)
    {
      SwapPair *pair = g_ptr_array_index (self->pending, 0);

      spent += pair->cost;
      assay_markdown_view_swap_block (self, pair->shown, pair->fresh);
      g_ptr_array_remove_index (self->pending, 0);
    }
}

static gboolean
assay_markdown_view_swap_tick_cb (GtkWidget     *widget,
                                  GdkFrameClock *clock,
                                  gpointer       user_data)
{
  AssayMarkdownView *self = ASSAY_MARKDOWN_VIEW (widget);

  assay_markdown_view_swap_some (self);
  if (self->pending != NULL && self->pending->len > 0)
    return G_SOURCE_CONTINUE;
  self->pending_tick = 0;
  g_clear_pointer (&self->pending, g_ptr_array_unref);
  return G_SOURCE_REMOVE;
}

/* How far BLOCK is from what the conversation's scroller shows (0: in view). */
static double
assay_markdown_view_distance_from_view (GtkWidget *block,
                                        GtkWidget *scroller)
{
  graphene_rect_t bounds;
  double height;

  if (scroller == NULL || !gtk_widget_compute_bounds (block, scroller, &bounds))
    return 0;
  height = gtk_widget_get_height (scroller);
  if (bounds.origin.y + bounds.size.height < 0)
    return -(bounds.origin.y + bounds.size.height);
  if (bounds.origin.y > height)
    return bounds.origin.y - height;
  return 0;
}

static int
swap_pair_compare (gconstpointer a,
                   gconstpointer b)
{
  const SwapPair *x = *(SwapPair * const *) a;
  const SwapPair *y = *(SwapPair * const *) b;

  /* In view, or as near: the last first (the conversation follows its end). */
  if (x->distance != y->distance)
    return (x->distance > y->distance) - (x->distance < y->distance);
  return (x->index < y->index) - (x->index > y->index);
}

/* The same text rendered again (its numbers now links): a block whose rendering is the same
 * keeps its widget and the size GTK measured for it, the others are replaced where they
 * stand. A long answer has hundreds of blocks, and measuring them all anew stalled the
 * window for a fifth of a second as the answer ended: the ones in view are swapped now, the
 * rest a frame's worth at a time. FALSE: the blocks no longer match one for one (nothing was
 * changed). */
static gboolean
assay_markdown_view_render_in_place (AssayMarkdownView *self)
{
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();
  g_autoptr(GPtrArray) fresh = g_ptr_array_new_with_free_func (g_object_unref);
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_SCROLLED_WINDOW);
  gsize total = 0;

  assay_markdown_view_cancel_swaps (self);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (g_object_get_data (G_OBJECT (child), CHUNK_KEY) != NULL)
      for (GtkWidget *w = gtk_widget_get_first_child (child); w != NULL; w = gtk_widget_get_next_sibling (w))
        g_ptr_array_add (shown, w);
    else
      g_ptr_array_add (shown, child);

  self->reuse = NULL;
  self->collected = fresh;
  assay_markdown_view_parse_into (self, self->markdown, strlen (self->markdown));
  self->collected = NULL;
  if (fresh->len != shown->len)
    return FALSE;

  self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) swap_pair_free);
  for (guint i = 0; i < shown->len; i++)
    {
      const char *was = g_object_get_data (G_OBJECT (g_ptr_array_index (shown, i)), SIGNATURE_KEY);
      const char *now = g_object_get_data (G_OBJECT (g_ptr_array_index (fresh, i)), SIGNATURE_KEY);
      SwapPair *pair;

      if (g_strcmp0 (was, now) == 0)
        continue;
      pair = g_new0 (SwapPair, 1);
      pair->shown = g_ptr_array_index (shown, i);
      pair->fresh = g_object_ref (g_ptr_array_index (fresh, i));
      pair->cost = now != NULL ? strlen (now) : 1;
      pair->distance = assay_markdown_view_distance_from_view (pair->shown, scroller);
      pair->index = i;
      total += pair->cost;
      g_ptr_array_add (self->pending, pair);
    }
  /* Unmapped, nothing is laid out until it is shown: all at once. */
  if (total <= SWAP_BUDGET_PER_FRAME || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      for (guint i = 0; i < self->pending->len; i++)
        {
          SwapPair *pair = g_ptr_array_index (self->pending, i);
          assay_markdown_view_swap_block (self, pair->shown, pair->fresh);
        }
      g_clear_pointer (&self->pending, g_ptr_array_unref);
      return TRUE;
    }
  g_ptr_array_sort (self->pending, swap_pair_compare);
  assay_markdown_view_swap_some (self);
  self->pending_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), assay_markdown_view_swap_tick_cb, NULL, NULL);
  return TRUE;
}

/* Whether every block of the last render in place is shown (the tests wait for it). */
gboolean
assay_markdown_view_is_settled (AssayMarkdownView *self)
{
  g_return_val_if_fail (ASSAY_IS_MARKDOWN_VIEW (self), TRUE);
  return self->pending == NULL;
}

void
assay_markdown_view_set_provenance (AssayMarkdownView     *self,
                                    const AssayProvenance *provenance)
{
  g_autofree char *markdown = NULL;

  g_return_if_fail (ASSAY_IS_MARKDOWN_VIEW (self));

  g_clear_pointer (&self->provenance, assay_provenance_free);
  if (provenance != NULL && provenance->numbers->len > 0)
    self->provenance = assay_provenance_copy (provenance);
  if (provenance != NULL && provenance->numbers->len > 0)
    gtk_widget_add_css_class (GTK_WIDGET (self), "traced");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "traced");
  /* All of it again: the numbers' spans are places in the whole text. */
  if (self->markdown != NULL && gtk_widget_get_first_child (GTK_WIDGET (self)) != NULL &&
      assay_markdown_view_render_in_place (self))
    return;
  markdown = g_strdup (self->markdown);
  g_clear_pointer (&self->markdown, g_free);
  assay_markdown_view_set_markdown (self, markdown);
}

const AssayProvenance *
assay_markdown_view_get_provenance (AssayMarkdownView *self)
{
  g_return_val_if_fail (ASSAY_IS_MARKDOWN_VIEW (self), NULL);
  return self->provenance;
}
