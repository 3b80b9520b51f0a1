/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "assay-provenance.h"

G_BEGIN_DECLS

/* Markdown (GitHub's dialect, parsed by md4c) as a flat list of blocks that a page layout
 * or an HTML writer can walk without knowing Markdown. Raw HTML in the text is kept as
 * literal text: the model's words never become markup. */

typedef enum
{
  ASSAY_MD_BOLD   = 1 << 0,
  ASSAY_MD_ITALIC = 1 << 1,
  ASSAY_MD_CODE   = 1 << 2,
  ASSAY_MD_STRIKE = 1 << 3,
  ASSAY_MD_LINK   = 1 << 4,
  ASSAY_MD_TRACED   = 1 << 5,   /* a number of the answer that an output printed */
  ASSAY_MD_UNTRACED = 1 << 6,   /* a number of the answer that no output printed */
} AssayMdStyle;

/* A run of text with one style. */
typedef struct
{
  AssayMdStyle  style;
  char         *text;   /* UTF-8, "\n" for a hard line break */
  char         *href;   /* ASSAY_MD_LINK: the target as written; else NULL */
  int           number; /* ASSAY_MD_TRACED, ASSAY_MD_UNTRACED: index in the provenance's
                         * numbers; else -1 */
} AssayMdSpan;

typedef enum
{
  ASSAY_MD_BLOCK_HEADING,     /* level 1..6, spans */
  ASSAY_MD_BLOCK_PARAGRAPH,   /* level: the list depth it is indented to (0 outside lists), spans */
  ASSAY_MD_BLOCK_LIST_ITEM,   /* level: depth from 1; ordinal: the number, 0 for a bullet; spans */
  ASSAY_MD_BLOCK_CODE,        /* code, language */
  ASSAY_MD_BLOCK_TABLE,       /* rows, n_header_rows */
  ASSAY_MD_BLOCK_RULE,
} AssayMdBlockKind;

typedef struct
{
  AssayMdBlockKind  kind;
  guint             level;
  guint             ordinal;
  gboolean          quote;          /* inside a block quote */
  GPtrArray        *spans;          /* AssayMdSpan*; never NULL */
  char             *code;           /* ASSAY_MD_BLOCK_CODE: the text, ending without "\n" */
  char             *language;       /* ASSAY_MD_BLOCK_CODE: may be NULL */
  GPtrArray        *rows;           /* ASSAY_MD_BLOCK_TABLE: GPtrArray* (cells) of GPtrArray*
                                     * (spans); NULL otherwise */
  guint             n_header_rows;
  guint             n_columns;
} AssayMdBlock;

/* Never fails: whatever the text, some blocks come out (none for empty text). */
GPtrArray   *assay_markdown_parse       (const char      *text,
                                         gssize           length);
/* The same, each number of PROVENANCE (traced in TEXT) a span of its own. */
GPtrArray   *assay_markdown_parse_traced (const char            *text,
                                          gssize                 length,
                                          const AssayProvenance *provenance);
void         assay_md_block_free        (AssayMdBlock    *block);
/* The spans' text joined, without styles. */
char        *assay_md_spans_to_text     (GPtrArray       *spans);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayMdBlock, assay_md_block_free)

G_END_DECLS
