/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The tokens and cost of a session's requests: the step cards, the chat's header and
 * assay_session_get_cost () read them here. */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "assay-prices.h"
#include "assay-usage.h"

void
assay_usage_init_for_steps (AssayUsage   *usage,
                            AssaySession *session,
                            guint         first,
                            guint         last)
{
  GPtrArray *requests;

  g_return_if_fail (usage != NULL);
  g_return_if_fail (ASSAY_IS_SESSION (session));

  *usage = (AssayUsage) { 0 };
  requests = assay_session_get_requests (session);
  for (guint i = 0; requests != NULL && i < requests->len; i++)
    {
      const AssaySessionRequest *request = g_ptr_array_index (requests, i);

      if (request->step < first || request->step > last)
        continue;
      usage->n_requests++;
      usage->input_tokens += MAX (request->input_tokens, 0);
      usage->output_tokens += MAX (request->output_tokens, 0);
      if (request->cost >= 0)
        usage->cost += request->cost;
      else
        usage->n_unpriced++;
    }
}

char *
assay_usage_format (const AssayUsage *usage)
{
  g_autofree char *cost = NULL;

  g_return_val_if_fail (usage != NULL, NULL);
  if (usage->n_requests == 0)
    return NULL;
  cost = assay_price_format_cost (usage->n_unpriced == usage->n_requests ? -1 : usage->cost);
  if (usage->n_unpriced > 0 && usage->n_unpriced < usage->n_requests)
    {
      g_autofree char *known = g_steal_pointer (&cost);

      /* Translators: the cost of a step's or a question's requests, some of which had no
       * known price: "$0.0043 and 1 unpriced". */
      cost = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s and %u unpriced", "%s and %u unpriced",
                                           usage->n_unpriced),
                              known, usage->n_unpriced);
    }
  /* Translators: under a step, what its requests to the model used and cost: "1,240 tokens
   * in · 310 out · $0.0043". */
  return g_strdup_printf (_("%'lld tokens in · %'lld out · %s"),
                          (long long) usage->input_tokens, (long long) usage->output_tokens, cost);
}
