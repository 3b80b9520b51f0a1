/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <string.h>

#include <md4c.h>

#include "assay-markdown.h"

/* The model's answer is a few pages at most; anything beyond this is cut. */
#define MAX_MARKDOWN_BYTES (4 * 1024 * 1024)
#define MAX_LIST_DEPTH 16

typedef struct
{
  gboolean ordered;
  guint    next;
} ListLevel;

typedef struct
{
  GPtrArray    *blocks;
  AssayMdBlock *current;      /* the block text goes to (NULL: dropped) */
  GPtrArray    *target;       /* where spans go: the current block's spans or a table cell */
  AssayMdBlock *table;
  gboolean      in_head;
  gboolean      in_code;
  ListLevel     lists[MAX_LIST_DEPTH];
  guint         list_depth;   /* may exceed MAX_LIST_DEPTH; levels beyond are not numbered */
  guint         quote_depth;
  AssayMdStyle  style;
  guint         bold_depth, italic_depth, code_depth, strike_depth, link_depth;
  GPtrArray    *hrefs;        /* char*: the open links' targets */
  GString      *code;         /* the code block being read */
  AssayMdSpan  *open_span;    /* the span text may still be appended to, its text in open_text */
  GString      *open_text;
  const char   *doc;          /* the text parsed, to place the traced numbers in it */
  gsize         doc_size;
  const AssayProvenance *provenance;
  guint         next_number;  /* the first number that may still come */
} Builder;

static void
assay_markdown_span_free (AssayMdSpan *span)
{
  g_free (span->text);
  g_free (span->href);
  g_free (span);
}

static void
assay_markdown_cell_free (gpointer data)
{
  g_ptr_array_unref (data);
}

void
assay_md_block_free (AssayMdBlock *block)
{
  if (block == NULL)
    return;
  g_ptr_array_unref (block->spans);
  g_free (block->code);
  g_free (block->language);
  if (block->rows)
    g_ptr_array_unref (block->rows);
  g_free (block);
}

static AssayMdBlock *
assay_markdown_builder_add (Builder          *builder,
                            AssayMdBlockKind  kind)
{
  AssayMdBlock *block = g_new0 (AssayMdBlock, 1);

  block->kind = kind;
  block->quote = builder->quote_depth > 0;
  block->spans = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_markdown_span_free);
  g_ptr_array_add (builder->blocks, block);
  builder->current = block;
  builder->target = block->spans;
  return block;
}

static char *
assay_markdown_attribute_text (const MD_ATTRIBUTE *attribute)
{
  return attribute->text ? g_strndup (attribute->text, attribute->size) : NULL;
}

/* Spans are joined in a GString while they grow, so long paragraphs stay linear. */
static void
assay_markdown_flush_open_span (Builder *builder)
{
  if (builder->open_span == NULL)
    return;
  builder->open_span->text = g_utf8_make_valid (builder->open_text->str, builder->open_text->len);
  g_string_truncate (builder->open_text, 0);
  builder->open_span = NULL;
}

static void
assay_markdown_add_number_text (Builder    *builder,
                                const char *text,
                                gsize       size,
                                int         number)
{
  AssayMdSpan *last;
  AssayMdStyle style = 0;
  const char *href = NULL;

  if (builder->in_code)
    {
      if (builder->code->len < MAX_MARKDOWN_BYTES)
        g_string_append_len (builder->code, text, size);
      return;
    }
  if (builder->target == NULL || size == 0)
    return;

  if (builder->bold_depth)
    style |= ASSAY_MD_BOLD;
  if (builder->italic_depth)
    style |= ASSAY_MD_ITALIC;
  if (builder->code_depth)
    style |= ASSAY_MD_CODE;
  if (builder->strike_depth)
    style |= ASSAY_MD_STRIKE;
  if (builder->link_depth && builder->hrefs->len > 0)
    {
      style |= ASSAY_MD_LINK;
      href = g_ptr_array_index (builder->hrefs, builder->hrefs->len - 1);
    }
  if (number >= 0)
    style |= ((const AssayTracedNumber *) g_ptr_array_index (builder->provenance->numbers, number))->found
             ? ASSAY_MD_TRACED : ASSAY_MD_UNTRACED;

  last = builder->target->len ? g_ptr_array_index (builder->target, builder->target->len - 1) : NULL;
  if (last && last == builder->open_span && last->style == style && g_strcmp0 (last->href, href) == 0 &&
      number < 0 && last->number < 0)
    {
      g_string_append_len (builder->open_text, text, size);
      return;
    }

  assay_markdown_flush_open_span (builder);
  last = g_new0 (AssayMdSpan, 1);
  last->style = style;
  last->number = number;
  last->href = g_strdup (href);
  g_ptr_array_add (builder->target, last);
  builder->open_span = last;
  g_string_append_len (builder->open_text, text, size);
}

static void
assay_markdown_add_text (Builder    *builder,
                         const char *text,
                         gsize       size)
{
  assay_markdown_add_number_text (builder, text, size, -1);
}

/* Source text: the traced numbers in it become spans of their own. A number that md4c
 * handed over in two pieces (it never does for digits and separators) stays plain. */
static void
assay_markdown_add_source_text (Builder    *builder,
                                const char *text,
                                gsize       size)
{
  GPtrArray *numbers = builder->provenance != NULL ? builder->provenance->numbers : NULL;
  gsize at, end;

  if (numbers == NULL || builder->in_code || text < builder->doc || text + size > builder->doc + builder->doc_size)
    {
      assay_markdown_add_text (builder, text, size);
      return;
    }
  at = (gsize) (text - builder->doc);
  end = at + size;
  while (builder->next_number < numbers->len)
    {
      const AssayTracedNumber *number = g_ptr_array_index (numbers, builder->next_number);

      if (number->start >= end)
        break;
      builder->next_number++;
      if (number->start < at || number->end > end)
        continue;
      assay_markdown_add_text (builder, builder->doc + at, number->start - at);
      assay_markdown_add_number_text (builder, builder->doc + number->start, number->end - number->start,
                                      (int) builder->next_number - 1);
      at = number->end;
    }
  assay_markdown_add_text (builder, builder->doc + at, end - at);
}

/* md4c hands entities over undecoded: the common named ones and numeric ones are enough. */
static void
assay_markdown_add_entity (Builder    *builder,
                           const char *text,
                           gsize       size)
{
  static const struct { const char *name; const char *value; } named[] = {
    { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" }, { "&apos;", "'" },
    { "&nbsp;", "\xc2\xa0" }, { "&mdash;", "\xe2\x80\x94" }, { "&ndash;", "\xe2\x80\x93" },
    { "&hellip;", "\xe2\x80\xa6" }, { "&copy;", "\xc2\xa9" }, { "&euro;", "\xe2\x82\xac" },
  };
  g_autofree char *entity = g_strndup (text, size);

  if (size > 3 && entity[1] == '#')
    {
      gboolean hex = entity[2] == 'x' || entity[2] == 'X';
      gunichar c = (gunichar) g_ascii_strtoull (entity + (hex ? 3 : 2), NULL, hex ? 16 : 10);
      char utf8[8];
      int n;

      if (c == 0 || !g_unichar_validate (c))
        c = 0xfffd;
      n = g_unichar_to_utf8 (c, utf8);
      assay_markdown_add_text (builder, utf8, n);
      return;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (named); i++)
    if (g_str_equal (entity, named[i].name))
      {
        assay_markdown_add_text (builder, named[i].value, strlen (named[i].value));
        return;
      }
  assay_markdown_add_text (builder, text, size);
}

static int
assay_markdown_enter_block_cb (MD_BLOCKTYPE  type,
                               void         *detail,
                               void         *user_data)
{
  Builder *builder = user_data;
  AssayMdBlock *block;

  switch (type)
    {
    case MD_BLOCK_QUOTE:
      builder->quote_depth++;
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      if (builder->list_depth < MAX_LIST_DEPTH)
        {
          ListLevel *level = &builder->lists[builder->list_depth];

          level->ordered = type == MD_BLOCK_OL;
          level->next = type == MD_BLOCK_OL ? ((MD_BLOCK_OL_DETAIL *) detail)->start : 0;
        }
      builder->list_depth++;
      builder->current = NULL;
      builder->target = NULL;
      break;
    case MD_BLOCK_LI:
      block = assay_markdown_builder_add (builder, ASSAY_MD_BLOCK_LIST_ITEM);
      block->level = MAX (builder->list_depth, 1);
      if (builder->list_depth > 0 && builder->list_depth <= MAX_LIST_DEPTH)
        {
          ListLevel *level = &builder->lists[builder->list_depth - 1];

          if (level->ordered)
            block->ordinal = MAX (level->next, 1), level->next = block->ordinal + 1;
        }
      if (((MD_BLOCK_LI_DETAIL *) detail)->is_task)
        {
          const char *mark = ((MD_BLOCK_LI_DETAIL *) detail)->task_mark == ' '
                             ? "\xe2\x98\x90 " : "\xe2\x98\x91 ";
          assay_markdown_add_text (builder, mark, strlen (mark));
        }
      break;
    case MD_BLOCK_P:
      /* The first paragraph of a list item is the item's text. */
      if (builder->current && builder->current->kind == ASSAY_MD_BLOCK_LIST_ITEM
          && builder->current->spans->len == 0)
        break;
      if (builder->table)
        break;
      block = assay_markdown_builder_add (builder, ASSAY_MD_BLOCK_PARAGRAPH);
      block->level = builder->list_depth;
      break;
    case MD_BLOCK_H:
      block = assay_markdown_builder_add (builder, ASSAY_MD_BLOCK_HEADING);
      block->level = CLAMP (((MD_BLOCK_H_DETAIL *) detail)->level, 1, 6);
      break;
    case MD_BLOCK_CODE:
      block = assay_markdown_builder_add (builder, ASSAY_MD_BLOCK_CODE);
      block->level = builder->list_depth;
      block->language = assay_markdown_attribute_text (&((MD_BLOCK_CODE_DETAIL *) detail)->lang);
      g_string_truncate (builder->code, 0);
      builder->in_code = TRUE;
      break;
    case MD_BLOCK_HR:
      assay_markdown_builder_add (builder, ASSAY_MD_BLOCK_RULE);
      builder->current = NULL;
      builder->target = NULL;
      break;
    case MD_BLOCK_TABLE:
      block = assay_markdown_builder_add (builder, ASSAY_MD_BLOCK_TABLE);
      block->rows = g_ptr_array_new_with_free_func (assay_markdown_cell_free);
      builder->table = block;
      builder->target = NULL;
      break;
    case MD_BLOCK_THEAD:
      builder->in_head = TRUE;
      break;
    case MD_BLOCK_TR:
      if (builder->table)
        {
          g_ptr_array_add (builder->table->rows, g_ptr_array_new_with_free_func (assay_markdown_cell_free));
          if (builder->in_head)
            builder->table->n_header_rows++;
        }
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      if (builder->table && builder->table->rows->len > 0)
        {
          GPtrArray *row = g_ptr_array_index (builder->table->rows, builder->table->rows->len - 1);
          GPtrArray *cell = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_markdown_span_free);

          g_ptr_array_add (row, cell);
          builder->table->n_columns = MAX (builder->table->n_columns, row->len);
          builder->target = cell;
        }
      break;
    case MD_BLOCK_DOC:
    case MD_BLOCK_HTML:
    case MD_BLOCK_TBODY:
    default:
      break;
    }
  return 0;
}

static int
assay_markdown_leave_block_cb (MD_BLOCKTYPE  type,
                               void         *detail,
                               void         *user_data)
{
  Builder *builder = user_data;

  switch (type)
    {
    case MD_BLOCK_QUOTE:
      builder->quote_depth--;
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      builder->list_depth--;
      builder->current = NULL;
      builder->target = NULL;
      break;
    case MD_BLOCK_CODE:
      builder->in_code = FALSE;
      if (builder->code->len > 0 && builder->code->str[builder->code->len - 1] == '\n')
        g_string_truncate (builder->code, builder->code->len - 1);
      if (builder->current && builder->current->kind == ASSAY_MD_BLOCK_CODE)
        builder->current->code = g_utf8_make_valid (builder->code->str, builder->code->len);
      builder->current = NULL;
      builder->target = NULL;
      break;
    case MD_BLOCK_TABLE:
      builder->table = NULL;
      builder->current = NULL;
      builder->target = NULL;
      break;
    case MD_BLOCK_THEAD:
      builder->in_head = FALSE;
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      builder->target = NULL;
      break;
    case MD_BLOCK_LI:
    case MD_BLOCK_P:
    case MD_BLOCK_H:
      if (!builder->table)
        {
          builder->current = NULL;
          builder->target = NULL;
        }
      break;
    default:
      break;
    }
  return 0;
}

static int
assay_markdown_enter_span_cb (MD_SPANTYPE  type,
                              void        *detail,
                              void        *user_data)
{
  Builder *builder = user_data;

  switch (type)
    {
    case MD_SPAN_STRONG:
      builder->bold_depth++;
      break;
    case MD_SPAN_EM:
      builder->italic_depth++;
      break;
    case MD_SPAN_CODE:
      builder->code_depth++;
      break;
    case MD_SPAN_DEL:
      builder->strike_depth++;
      break;
    case MD_SPAN_A:
      builder->link_depth++;
      g_ptr_array_add (builder->hrefs, assay_markdown_attribute_text (&((MD_SPAN_A_DETAIL *) detail)->href));
      break;
    default:
      break;
    }
  return 0;
}

static int
assay_markdown_leave_span_cb (MD_SPANTYPE  type,
                              void        *detail,
                              void        *user_data)
{
  Builder *builder = user_data;

  switch (type)
    {
    case MD_SPAN_STRONG:
      builder->bold_depth--;
      break;
    case MD_SPAN_EM:
      builder->italic_depth--;
      break;
    case MD_SPAN_CODE:
      builder->code_depth--;
      break;
    case MD_SPAN_DEL:
      builder->strike_depth--;
      break;
    case MD_SPAN_A:
      builder->link_depth--;
      if (builder->hrefs->len > 0)
        g_ptr_array_remove_index (builder->hrefs, builder->hrefs->len - 1);
      break;
    default:
      break;
    }
  return 0;
}

static int
assay_markdown_text_cb (MD_TEXTTYPE     type,
                        const MD_CHAR  *text,
                        MD_SIZE         size,
                        void           *user_data)
{
  Builder *builder = user_data;

  switch (type)
    {
    case MD_TEXT_NULLCHAR:
      assay_markdown_add_text (builder, "\xef\xbf\xbd", 3);
      break;
    case MD_TEXT_BR:
      assay_markdown_add_text (builder, "\n", 1);
      break;
    case MD_TEXT_SOFTBR:
      assay_markdown_add_text (builder, " ", 1);
      break;
    case MD_TEXT_ENTITY:
      assay_markdown_add_entity (builder, text, size);
      break;
    case MD_TEXT_NORMAL:
      assay_markdown_add_source_text (builder, text, size);
      break;
    default:
      assay_markdown_add_text (builder, text, size);
      break;
    }
  return 0;
}

GPtrArray *
assay_markdown_parse (const char *text,
                      gssize      length)
{
  return assay_markdown_parse_traced (text, length, NULL);
}

GPtrArray *
assay_markdown_parse_traced (const char            *text,
                             gssize                 length,
                             const AssayProvenance *provenance)
{
  Builder builder = { 0 };
  MD_PARSER parser = {
    .abi_version = 0,
    .flags = MD_DIALECT_GITHUB | MD_FLAG_NOHTML,
    .enter_block = assay_markdown_enter_block_cb,
    .leave_block = assay_markdown_leave_block_cb,
    .enter_span = assay_markdown_enter_span_cb,
    .leave_span = assay_markdown_leave_span_cb,
    .text = assay_markdown_text_cb,
  };
  gsize size;

  builder.blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_md_block_free);
  builder.hrefs = g_ptr_array_new_with_free_func (g_free);
  builder.code = g_string_new (NULL);
  builder.open_text = g_string_new (NULL);
  if (text == NULL)
    size = 0;
  else
    size = MIN (length < 0 ? strlen (text) : (gsize) length, MAX_MARKDOWN_BYTES);

  builder.doc = text;
  builder.doc_size = size;
  builder.provenance = provenance;
  if (size > 0)
    md_parse (text, (MD_SIZE) size, &parser, &builder);
  assay_markdown_flush_open_span (&builder);
  g_ptr_array_unref (builder.hrefs);
  g_string_free (builder.code, TRUE);
  g_string_free (builder.open_text, TRUE);

  /* Empty paragraphs (a list item's paragraph after a nested list) carry nothing. */
  for (guint i = builder.blocks->len; i > 0; i--)
    {
      AssayMdBlock *block = g_ptr_array_index (builder.blocks, i - 1);

      if (block->kind == ASSAY_MD_BLOCK_PARAGRAPH && block->spans->len == 0)
        g_ptr_array_remove_index (builder.blocks, i - 1);
      else if (block->kind == ASSAY_MD_BLOCK_CODE && block->code == NULL)
        block->code = g_strdup ("");
    }
  return builder.blocks;
}

char *
assay_md_spans_to_text (GPtrArray *spans)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; spans && i < spans->len; i++)
    g_string_append (text, ((AssayMdSpan *) g_ptr_array_index (spans, i))->text);
  return g_string_free (text, FALSE);
}
