/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_ONBOARDING (assay_onboarding_get_type ())

G_DECLARE_FINAL_TYPE (AssayOnboarding, assay_onboarding, ASSAY, ONBOARDING, GtkWidget)

/* The first-run page: OpenAI or Anthropic with a pasted key, a local server (found by asking
 * each candidate URL for its models), any OpenAI-compatible URL, or the recorded demo.
 * Emits ::configured (provider, base_url, model, key; any but provider may be NULL) or
 * ::demo-requested. */
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
