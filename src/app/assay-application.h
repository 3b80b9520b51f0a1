/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_APPLICATION (assay_application_get_type ())

G_DECLARE_FINAL_TYPE (AssayApplication, assay_application, ASSAY, APPLICATION, AdwApplication)

/* org.assay.Assay: one window; files given on the command line (`assay sales.csv`) join
 * its current session. */
AssayApplication *assay_application_new (void);

G_END_DECLS
