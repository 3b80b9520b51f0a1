/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-e2b-client.h"
#include "assay-sandbox-backend.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_E2B_BACKEND (assay_e2b_backend_get_type ())

G_DECLARE_FINAL_TYPE (AssayE2bBackend, assay_e2b_backend, ASSAY, E2B_BACKEND, GObject)

/* Runs the kernel's cells in an E2B sandbox (managed at e2b.app, or a self-hosted E2B on its
 * own domain): the code and the datasets leave this machine. API_KEY: NULL for $E2B_API_KEY
 * (the window passes the key from the keyring). The memory, CPU and process limits are the
 * template's, not Assay's; the cell timeout, the output and artifact caps are Assay's. */
AssayE2bBackend *assay_e2b_backend_new        (const char      *api_key);

/* Where E2B is and with which key, as the window's settings and keyring give them; any field
 * NULL: the environment's (E2B_API_KEY, E2B_DOMAIN, E2B_TEMPLATE). */
typedef struct
{
  char *api_key;
  char *domain;
  char *template_id;
} AssayE2bSettings;

AssayE2bSettings *assay_e2b_settings_copy (const AssayE2bSettings *settings);
/* Wipes the key before freeing it. */
void              assay_e2b_settings_free (AssayE2bSettings       *settings);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayE2bSettings, assay_e2b_settings_free)

/* SETTINGS may be NULL: the environment's. */
AssayE2bBackend *assay_e2b_backend_new_with_settings (const AssayE2bSettings *settings);
AssayE2bClient  *assay_e2b_backend_get_client (AssayE2bBackend *self);
/* "E2B (template code-interpreter-v1 at https://api.e2b.app)", for status lines. */
char            *assay_e2b_backend_describe   (AssayE2bBackend *self);

G_END_DECLS
