/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_PREFERENCES (assay_preferences_get_type ())

G_DECLARE_FINAL_TYPE (AssayPreferences, assay_preferences, ASSAY, PREFERENCES, AdwPreferencesWindow)

/* The settings (GSettings org.assay.Assay) and the API key (the keyring). BACKEND_REASON
 * says which sandbox backend is in use and why (NULL: not decided yet). */
GtkWidget *assay_preferences_new (GtkWindow  *parent,
                                  const char *backend_reason);

G_END_DECLS
