/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Pulls the value of the top-level "code" member out of a tool call's arguments JSON while
 * it is still arriving, so the cell can be shown as the model writes it. Fragments may be
 * cut anywhere, even inside an escape or a UTF-8 sequence; every piece returned is whole
 * UTF-8. Other members (and a "code" nested deeper) are skipped. */
typedef struct _AssayCodeExtractor AssayCodeExtractor;

AssayCodeExtractor *assay_code_extractor_new      (void);
void                assay_code_extractor_free     (AssayCodeExtractor *self);
void                assay_code_extractor_reset    (AssayCodeExtractor *self);
/* Returns the code decoded from FRAGMENT (maybe ""), owned by the caller. */
char               *assay_code_extractor_feed     (AssayCodeExtractor *self,
                                                   const char         *fragment,
                                                   gssize              length);
/* All the code decoded so far. */
const char         *assay_code_extractor_get_code (AssayCodeExtractor *self);
/* Whether the closing quote of the code string was seen. */
gboolean            assay_code_extractor_is_complete (AssayCodeExtractor *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayCodeExtractor, assay_code_extractor_free)

G_END_DECLS
