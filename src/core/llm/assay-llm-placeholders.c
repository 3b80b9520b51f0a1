/* SPDX-License-Identifier: GPL-3.0-or-later */
/* PLACEHOLDER, dropped at merge: the OpenAI and Anthropic providers are written in another
 * branch. These exist only so that `assay-cli ask` links here. */
#include "config.h"

#include "assay-llm-provider.h"

AssayLlmProvider *
assay_openai_provider_new (const char *base_url,
                           const char *api_key)
{
  g_critical ("The OpenAI provider is not in this build yet");
  return NULL;
}

AssayLlmProvider *
assay_anthropic_provider_new (const char *base_url,
                              const char *api_key)
{
  g_critical ("The Anthropic provider is not in this build yet");
  return NULL;
}
