/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Logic the app uses that needs no display: the code review's diff, the choice of a model,
 * and the provider made from a setting's name. */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "assay-diff.h"
#include "assay-llm-provider.h"
#include "assay-model-choice.h"

static void
test_diff (void)
{
  g_autofree char *same = assay_diff_unified ("a\nb\n", "a\nb\n", "old", "new", 3);
  g_autofree char *diff = assay_diff_unified ("import pandas as pd\ndf = pd.read_csv('x.csv')\nprint(df.shape)\n",
                                              "import pandas as pd\ndf = pd.read_csv('x.csv', sep=';')\nprint(df.shape)\nprint(df.head())\n",
                                              "previous", "this", 3);

  g_assert_cmpstr (same, ==, "");
  g_assert_cmpstr (diff, ==,
                   "--- previous\n+++ this\n"
                   "@@ -1,3 +1,4 @@\n"
                   " import pandas as pd\n"
                   "-df = pd.read_csv('x.csv')\n"
                   "+df = pd.read_csv('x.csv', sep=';')\n"
                   " print(df.shape)\n"
                   "+print(df.head())\n");
}

static void
test_default_model (void)
{
  const char *openai[] = { "babbage-002", "chatgpt-4o-latest", "dall-e-3", "gpt-3.5-turbo",
                           "gpt-3.5-turbo-instruct", "gpt-4.1", "gpt-4.1-2025-04-14", "gpt-4.1-mini",
                           "gpt-4o", "gpt-4o-mini-tts", "gpt-4o-realtime-preview", "gpt-image-1",
                           "o3-mini", "omni-moderation-latest", "text-embedding-3-large", "tts-1",
                           "whisper-1", NULL };
  const char *without_default[] = { "dall-e-3", "gpt-3.5-turbo", "gpt-4-turbo", "gpt-4o",
                                    "gpt-4o-2024-08-06", "gpt-4o-mini", "text-embedding-3-small", NULL };
  const char *o_series[] = { "dall-e-3", "o3-mini", "text-embedding-3-small", "tts-1", NULL };
  const char *snapshot[] = { "gpt-4.1-mini", "gpt-4.1-2025-04-14", NULL };
  const char *anthropic[] = { "claude-opus-4-1-20250805", "claude-sonnet-4-5-20250929",
                              "claude-3-5-haiku-20241022", NULL };
  const char *anthropic_old[] = { "claude-opus-4-1-20250805", "claude-3-5-haiku-20241022", NULL };
  const char *unknown[] = { "text-embedding-3-small", "whisper-1", NULL };
  g_auto(GStrv) chat = assay_model_choice_filter_chat ("openai", openai);
  g_auto(GStrv) chat_without = assay_model_choice_filter_chat ("openai", without_default);
  g_auto(GStrv) chat_o = assay_model_choice_filter_chat ("openai", o_series);
  g_auto(GStrv) chat_unknown = assay_model_choice_filter_chat ("openai", unknown);
  g_auto(GStrv) chat_anthropic = assay_model_choice_filter_chat ("anthropic", anthropic);
  const char *empty[] = { NULL };

  g_assert_cmpstrv (chat, ((const char *[]) { "chatgpt-4o-latest", "gpt-3.5-turbo", "gpt-4.1",
                                              "gpt-4.1-2025-04-14", "gpt-4.1-mini", "gpt-4o", "o3-mini",
                                              NULL }));
  g_assert_cmpstr (chat[assay_model_choice_pick_default ("openai", (const char * const *) chat)], ==, "gpt-4.1");
  /* Without the default: the newest full gpt- model, never an embedding or a dated one. */
  g_assert_cmpstr (chat_without[assay_model_choice_pick_default ("openai", (const char * const *) chat_without)],
                   ==, "gpt-4o");
  g_assert_cmpstrv (chat_o, ((const char *[]) { "o3-mini", NULL }));
  g_assert_cmpint (assay_model_choice_pick_default ("openai", (const char * const *) chat_o), ==, 0);
  g_assert_cmpint (assay_model_choice_pick_default ("openai", snapshot), ==, 1);
  /* Nothing known: shown rather than hidden. */
  g_assert_cmpstrv (chat_unknown, unknown);
  g_assert_cmpstrv (chat_anthropic, anthropic);
  g_assert_cmpint (assay_model_choice_pick_default ("anthropic", anthropic), ==, 1);
  g_assert_cmpint (assay_model_choice_pick_default ("anthropic", anthropic_old), ==, 0);
  g_assert_cmpint (assay_model_choice_pick_default ("anthropic", empty), ==, -1);
}

static void
test_provider_for_name (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayLlmProvider) openai = assay_llm_provider_new_for_name ("openai", "http://127.0.0.1:9/v1", NULL, &error);
  g_autoptr(AssayLlmProvider) anthropic = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (openai);
  anthropic = assay_llm_provider_new_for_name ("anthropic", NULL, "sk-test", &error);
  g_assert_no_error (error);
  g_assert_nonnull (anthropic);
  g_assert_false (G_OBJECT_TYPE (openai) == G_OBJECT_TYPE (anthropic));
  g_assert_null (assay_llm_provider_new_for_name ("gemini", NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "gemini"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/logic/diff", test_diff);
  g_test_add_func ("/assay/logic/default-model", test_default_model);
  g_test_add_func ("/assay/logic/provider-for-name", test_provider_for_name);
  return g_test_run ();
}
