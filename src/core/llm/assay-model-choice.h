/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What Assay asks when the analyst has not chosen a model. */
#define ASSAY_DEFAULT_OPENAI_MODEL    "gpt-4.1"
#define ASSAY_DEFAULT_ANTHROPIC_MODEL "claude-sonnet-4-5"

/* The default model of PROVIDER ("openai" or "anthropic"). */
const char *assay_model_choice_get_default        (const char         *provider);
/* The vendor's own server for PROVIDER: NULL (the provider's built-in address) unless
 * ASSAY_OPENAI_BASE_URL or ASSAY_ANTHROPIC_BASE_URL is set, which only the tests do. */
const char *assay_model_choice_get_cloud_base_url (const char         *provider);
/* The models of MODELS (in their order) an analyst can chat with. OpenAI's list also holds
 * embedding, speech, transcription, image, moderation and legacy completion models, which
 * are left out (unless nothing would be left); Anthropic lists only chat models. */
GStrv       assay_model_choice_filter_chat        (const char         *provider,
                                                   const char * const *models);
/* Which of MODELS (a filtered list) to preselect: the default, or a dated snapshot of it
 * ("claude-sonnet-4-5-20250929"); else, for OpenAI, the newest-looking full gpt- model
 * (then any gpt-, then an o-series model), for Anthropic the first listed (its newest).
 * -1 when MODELS is empty. */
int         assay_model_choice_pick_default       (const char         *provider,
                                                   const char * const *models);

G_END_DECLS
