/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_ONBOARDING (assay_onboarding_get_type ())

G_DECLARE_FINAL_TYPE (AssayOnboarding, assay_onboarding, ASSAY, ONBOARDING, GtkWidget)

/* The first-run page: OpenAI or Anthropic with a pasted key, a local server (found by asking
 * each candidate URL for its models), any OpenAI-compatible URL, or the recorded demo.
 * A pasted key is checked when Continue (or Enter) is pressed, by listing the vendor's models
 * with it (a spinner meanwhile); once accepted, the analyst picks the model (a chat model
 * preselected, see assay-model-choice.h) and Continue finishes. A refused key gets an error
 * under the entry; a vendor that cannot be reached, an error and Continue Anyway (with the
 * default model). "Another Server" is checked the same way: its address (and a key, if it
 * needs one) by listing its models, a plain error for a refused connection, a missing or
 * refused key or a server that is not OpenAI's API, then its models to choose from. A check
 * stops when the key or address changes or the page is left.
 * Emits ::configured (provider, base_url, model, key; any but provider may be NULL; a key
 * only once it was accepted or the analyst continued anyway) or ::demo-requested. */
GtkWidget *assay_onboarding_new          (void);
/* Asks each of BASE_URLS (NAMES: what to call them) for its models; the ones that answer
 * become rows. Replaces the previous search. */
void       assay_onboarding_detect       (AssayOnboarding    *self,
                                          const char * const *base_urls,
                                          const char * const *names);
/* The local servers found so far. */
guint      assay_onboarding_get_n_found  (AssayOnboarding    *self);
/* Chooses the Nth server found, with its selected model. */
void       assay_onboarding_use_found    (AssayOnboarding    *self,
                                          guint               n);

G_END_DECLS
