/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which of a vendor's models the onboarding page offers, and which one it preselects. */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <string.h>

#include "assay-model-choice.h"

/* Pieces of OpenAI model ids that cannot hold a Chat Completions conversation with tools:
 * embeddings, speech, transcription, images, moderation, legacy completions, and the models
 * only the Responses API serves. */
static const char * const not_chat[] = {
  "embedding", "tts", "whisper", "dall-e", "moderation", "transcribe", "realtime", "audio",
  "image", "search", "babbage", "davinci", "instruct", "computer-use", "deep-research",
  "codex", "sora", "-pro",
};

const char *
assay_model_choice_get_default (const char *provider)
{
  if (g_strcmp0 (provider, "anthropic") == 0)
    return ASSAY_DEFAULT_ANTHROPIC_MODEL;
  return ASSAY_DEFAULT_OPENAI_MODEL;
}

const char *
assay_model_choice_get_cloud_base_url (const char *provider)
{
  const char *url = g_getenv (g_strcmp0 (provider, "anthropic") == 0 ? "ASSAY_ANTHROPIC_BASE_URL"
                                                                      : "ASSAY_OPENAI_BASE_URL");

  return url != NULL && url[0] != '\0' ? url : NULL;
}

static gboolean
assay_model_choice_is_openai_chat_model (const char *id)
{
  for (guint i = 0; i < G_N_ELEMENTS (not_chat); i++)
    if (strstr (id, not_chat[i]) != NULL)
      return FALSE;
  return TRUE;
}

GStrv
assay_model_choice_filter_chat (const char         *provider,
                                const char * const *models)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  gboolean any = FALSE;

  for (guint i = 0; models != NULL && models[i] != NULL; i++)
    if (g_strcmp0 (provider, "anthropic") == 0 || assay_model_choice_is_openai_chat_model (models[i]))
      {
        g_strv_builder_add (builder, models[i]);
        any = TRUE;
      }
  /* A list of nothing but unknown names is still better shown than hidden. */
  if (!any && models != NULL)
    return g_strdupv ((char **) models);
  return g_strv_builder_end (builder);
}

/* "claude-sonnet-4-5-20250929" for "claude-sonnet-4-5", "gpt-4.1-2025-04-14" for "gpt-4.1";
 * not "gpt-4.1-mini". */
static gboolean
assay_model_choice_is_snapshot_of (const char *id,
                                   const char *model)
{
  gsize len = strlen (model);
  const char *rest;

  if (strncmp (id, model, len) != 0 || id[len] != '-' || id[len + 1] == '\0')
    return FALSE;
  for (rest = id + len + 1; *rest != '\0'; rest++)
    if (!g_ascii_isdigit (*rest) && *rest != '-')
      return FALSE;
  return TRUE;
}

/* A gpt- model under its own name: not a dated snapshot, a preview, or a small variant. */
static gboolean
assay_model_choice_is_full_gpt_model (const char *id)
{
  return g_str_has_prefix (id, "gpt-") &&
         strstr (id, "mini") == NULL && strstr (id, "nano") == NULL &&
         strstr (id, "preview") == NULL && strstr (id, "latest") == NULL &&
         !g_regex_match_simple ("-[0-9]{4}(-[0-9]{2}-[0-9]{2}|[0-9]{4})?$", id, 0, 0);
}

int
assay_model_choice_pick_default (const char         *provider,
                                 const char * const *models)
{
  const char *model = assay_model_choice_get_default (provider);
  int best = -1;

  if (models == NULL || models[0] == NULL)
    return -1;
  for (int i = 0; models[i] != NULL; i++)
    if (g_str_equal (models[i], model))
      return i;
  for (int i = 0; models[i] != NULL; i++)
    if (assay_model_choice_is_snapshot_of (models[i], model))
      return i;
  /* Anthropic lists its newest model first. */
  if (g_strcmp0 (provider, "anthropic") == 0)
    return 0;

  /* OpenAI's ids sort by generation (gpt-3.5-turbo < gpt-4o < gpt-5): the greatest full
   * model is of the newest one. */
  for (int i = 0; models[i] != NULL; i++)
    if (assay_model_choice_is_full_gpt_model (models[i]) && (best < 0 || strcmp (models[i], models[best]) > 0))
      best = i;
  if (best >= 0)
    return best;
  for (int i = 0; models[i] != NULL; i++)
    if (g_str_has_prefix (models[i], "gpt-"))
      return i;
  for (int i = 0; models[i] != NULL; i++)
    if (models[i][0] == 'o' && g_ascii_isdigit (models[i][1]))
      return i;
  return 0;
}
