/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

typedef struct _AssayApplication     AssayApplication;
typedef struct _AssayChatView        AssayChatView;
typedef struct _AssayCodeReview      AssayCodeReview;
typedef struct _AssayConnection      AssayConnection;
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

G_END_DECLS
