/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-sandbox-backend.h"

G_BEGIN_DECLS

typedef struct _AssayApplication     AssayApplication;
typedef struct _AssayChatView        AssayChatView;
typedef struct _AssayCodeReview      AssayCodeReview;
typedef struct _AssayConversation    AssayConversation;
typedef struct _AssayMarkdownView    AssayMarkdownView;
typedef struct _AssayOnboarding      AssayOnboarding;
typedef struct _AssayPreferences     AssayPreferences;
typedef struct _AssaySandboxBanner   AssaySandboxBanner;
typedef struct _AssaySessionsSidebar AssaySessionsSidebar;
typedef struct _AssayStepCard        AssayStepCard;
typedef struct _AssayWindow          AssayWindow;

/* Registers the app's one resource bundle (templates, CSS, the shortcuts window) once;
 * every class that loads from it calls this first, so the gallery and the data preview work
 * in their demos and tests without the app. */
void assay_app_ensure_resources (void);

/* The sandbox's limits as the settings (memory-mb, cpus, cell-timeout) give them, for
 * assay_sandbox_choose_backend_async () with the "sandbox-backend" key. */
AssaySandboxSpec *assay_app_sandbox_spec_new (GSettings      *settings);
/* Adds the "Tables (CSV, TSV, TXT, XLSX)" filter to CHOOSER. */
void              assay_app_add_data_filter  (GtkFileChooser *chooser);

G_END_DECLS
