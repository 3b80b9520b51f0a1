/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "assay-app-types.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_MODEL_DESTINATION (assay_model_destination_get_type ())

G_DECLARE_FINAL_TYPE (AssayModelDestination, assay_model_destination, ASSAY, MODEL_DESTINATION, GObject)

/* Where what the model is sent goes, without a widget: for the model setting (the GSettings
 * keys provider, base-url and model, with the vendor's server when base-url is empty), or
 * for the provider the conversation was given instead (the recorded demo, tests). A server
 * on a loopback address, or none, keeps everything on this computer; any other is where the
 * questions, the data summaries and the cells' outputs go.
 *
 * It also guards the one change that matters: when the setting moves from a server on this
 * computer to one elsewhere while a session with messages is open, the move waits for the
 * analyst ("pending-host"; assay_model_destination_confirm ()): yes keeps it, no writes the
 * previous setting back. The check runs once the settings have been still for a moment
 * (onboarding writes three keys, an entry writes on every key press), and at once before a
 * question (assay_model_destination_check_now ()).
 *
 * Properties (read-only): "configured" (a model is set), "local", "host" (the server's host
 * and port, NULL without a server), "model", "title" ("Stays on this computer", "Sent to
 * api.openai.com"), "short-title" (where there is little room: the host, or "This
 * computer"), "description" (the same in full, for a tooltip and screen readers),
 * "icon-name", "pending-host" (the server a session waits to be sent to, or NULL). */
AssayModelDestination *assay_model_destination_new              (GSettings             *settings,
                                                                 AssayConversation     *conversation);
gboolean               assay_model_destination_get_configured   (AssayModelDestination *self);
gboolean               assay_model_destination_get_local        (AssayModelDestination *self);
const char            *assay_model_destination_get_host         (AssayModelDestination *self);
const char            *assay_model_destination_get_model        (AssayModelDestination *self);
const char            *assay_model_destination_get_title        (AssayModelDestination *self);
const char            *assay_model_destination_get_description  (AssayModelDestination *self);
const char            *assay_model_destination_get_icon_name    (AssayModelDestination *self);
const char            *assay_model_destination_get_pending_host (AssayModelDestination *self);
/* Runs the check that waits for the settings to settle now. */
void                   assay_model_destination_check_now        (AssayModelDestination *self);
/* The analyst's answer to "pending-host": SEND keeps the new setting; otherwise the one
 * before it is written back. */
void                   assay_model_destination_confirm          (AssayModelDestination *self,
                                                                 gboolean               send);

G_END_DECLS
