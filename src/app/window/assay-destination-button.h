/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-app-types.h"
#include "assay-model-destination.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_DESTINATION_BUTTON (assay_destination_button_get_type ())

G_DECLARE_FINAL_TYPE (AssayDestinationButton, assay_destination_button, ASSAY, DESTINATION_BUTTON, GtkWidget)

/* The header's "where the data goes": an icon (a computer, or a server elsewhere), "Stays on
 * this computer" or "Sent to api.openai.com" over the model's name, and the same in full as
 * its tooltip, its accessible label and in its popover, with a way to Preferences. It shows
 * an AssayModelDestination and follows it; hidden while no model is chosen. */
GtkWidget *assay_destination_button_new             (void);
void       assay_destination_button_set_destination (AssayDestinationButton *self,
                                                     AssayModelDestination  *destination);
/* For tests: the short text shown, and the full one. */
void        assay_destination_button_set_sandbox (AssayDestinationButton *self,
                                                  const char             *where);
const char *assay_destination_button_get_sandbox (AssayDestinationButton *self);
/* The popover's "Run the Code on OpenAI" switch, shown while OFFERED; the window drives it
 * (assay-window-destination.c: the statement asked first, the conversation's mode). */
GtkSwitch  *assay_destination_button_get_hosted_switch  (AssayDestinationButton *self);
void        assay_destination_button_set_hosted_offered (AssayDestinationButton *self,
                                                         gboolean                offered);
const char *assay_destination_button_get_title      (AssayDestinationButton *self);
const char *assay_destination_button_get_description (AssayDestinationButton *self);

G_END_DECLS
