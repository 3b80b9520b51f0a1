/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-e2b-backend.h"

G_BEGIN_DECLS

/* One place the model's code can run, as found on this machine: what `assay-cli sandbox
 * status` prints, for the window's Preferences. */
typedef struct
{
  char     *kind;      /* "docker", "podman", "bwrap", "e2b" or "openai" (hosted) */
  char     *title;     /* "Docker", "Podman", "Docker elsewhere", "bubblewrap", "E2B" */
  char     *where;     /* "Docker 28.2.2 at /var/run/docker.sock", the tree's folder */
  gboolean  usable;    /* it answers and can hold the sandbox's limits */
  gboolean  ready;     /* and has the sandbox image or tree */
  char     *detail;    /* why not usable, what is missing, or how limits are enforced */
  gboolean  chosen;    /* new sessions run here */
} AssaySandboxPlace;

void      assay_sandbox_place_free   (AssaySandboxPlace *place);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssaySandboxPlace, assay_sandbox_place_free)

/* Every engine the backend choice would try, then bubblewrap, then E2B and OpenAI's hosted
 * code interpreter (never chosen: only named); CHOSEN_REASON (may be NULL)
 * says why new sessions use the one marked chosen (or why none can run). Blocking: it probes
 * each engine. The array frees its places. */
GPtrArray *assay_sandbox_survey        (char              **chosen_reason);
void       assay_sandbox_survey_async  (GCancellable       *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer            user_data);
/* The same with E2B reached as E2B_SETTINGS say (NULL: the environment). */
GPtrArray *assay_sandbox_survey_full   (const AssayE2bSettings  *e2b_settings,
                                        char                   **chosen_reason);
void       assay_sandbox_survey_full_async (const AssayE2bSettings *e2b_settings,
                                            GCancellable           *cancellable,
                                            GAsyncReadyCallback     callback,
                                            gpointer                user_data);
GPtrArray *assay_sandbox_survey_finish (GAsyncResult       *result,
                                        char              **chosen_reason,
                                        GError            **error);

G_END_DECLS
