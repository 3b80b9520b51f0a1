/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "assay-e2b-backend.h"
#include "assay-sandbox-backend.h"

G_BEGIN_DECLS

/* The sandbox's limits as the settings (memory-mb, cpus, cell-timeout) give them, for
 * assay_sandbox_choose_backend_async () with the "sandbox-backend" key. */
AssaySandboxSpec *assay_app_sandbox_spec_new (GSettings      *settings);
/* E2B as the settings (e2b-domain, e2b-template) and the keyring (provider "e2b", base-url
 * the domain) give it; the key NULL when none is stored. */
void              assay_app_e2b_settings_lookup_async  (GSettings           *settings,
                                                        GCancellable        *cancellable,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
AssayE2bSettings *assay_app_e2b_settings_lookup_finish (GAsyncResult        *result,
                                                        GError             **error);
/* Whether the settings (provider, base-url, openai-api) make the next question's provider speak
 * OpenAI's Responses API, which the hosted code interpreter needs (the key does not matter). */
gboolean          assay_app_settings_speak_responses (GSettings *settings);
/* Adds the "Tables (CSV, TSV, TXT, XLSX)" filter to CHOOSER. */
void              assay_app_add_data_filter  (GtkFileChooser *chooser);

G_END_DECLS
