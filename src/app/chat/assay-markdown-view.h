/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"
#include "assay-provenance.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_MARKDOWN_VIEW (assay_markdown_view_get_type ())

G_DECLARE_FINAL_TYPE (AssayMarkdownView, assay_markdown_view, ASSAY, MARKDOWN_VIEW, GtkWidget)

/* Markdown (GitHub dialect, through md4c) as widgets: a GtkLabel with Pango markup per
 * paragraph, heading, list item and code block, a GtkGrid per table (in an
 * AssayTableScroller: sideways when wider than the chat). Laid out for the width it is
 * given, always. Everything the text holds is escaped: the model's text is untrusted. */
GtkWidget  *assay_markdown_view_new          (void);
void        assay_markdown_view_set_markdown (AssayMarkdownView *self,
                                              const char        *markdown);
const char *assay_markdown_view_get_markdown (AssayMarkdownView *self);
/* The same for text still streaming in: whole blocks already shown are kept as they are, and
 * only the text after the last settled block is parsed and laid out again. */
void        assay_markdown_view_set_markdown_streaming (AssayMarkdownView *self,
                                                        const char        *markdown);
/* The streamed text is complete: the exact rendering of the whole of MARKDOWN. The blocks
 * already shown are kept unless the text defines link references (which md4c resolves
 * across blocks); then it is rendered again as a whole. */
void        assay_markdown_view_finish_streaming (AssayMarkdownView *self,
                                                  const char        *markdown);
/* The numbers of the text traced (for an answer): each becomes a link whose tooltip says
 * where it came from, untraced ones are marked; ::number-activated (guint index) when one is
 * clicked or activated with the keyboard. NULL: plain text again. */
void        assay_markdown_view_set_provenance   (AssayMarkdownView     *self,
                                                  const AssayProvenance *provenance);
const AssayProvenance *assay_markdown_view_get_provenance (AssayMarkdownView *self);
gboolean    assay_markdown_view_is_settled       (AssayMarkdownView     *self);

G_END_DECLS
