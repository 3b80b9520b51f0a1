/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The recorded demo: a conversation on a sample sales CSV whose code runs for real. The
 * window's "Try the demo" and `assay-cli demo` (which `setup-and-run` runs without a display)
 * both take it from here.
 */

#define ASSAY_DEMO_TRANSCRIPT "sales-transcript.json"
#define ASSAY_DEMO_DATASET    "sales.csv"

/* The path of the demo's file NAME: in $ASSAY_DEMO_DIR when set, else installed, else in the
 * build folder of an uninstalled build. The path is returned even when no file is there (the
 * caller's open says so). */
char       *assay_demo_find_file (const char *name);

/* The question the demo asks (in English: the recorded model answers in English). */
const char *assay_demo_question  (void);

G_END_DECLS
