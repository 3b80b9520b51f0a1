/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "assay-session.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CHANGES_CARD (assay_changes_card_get_type ())

G_DECLARE_FINAL_TYPE (AssayChangesCard, assay_changes_card, ASSAY, CHANGES_CARD, GtkWidget)

typedef enum
{
  ASSAY_CHANGES_COLUMN_NUMBER,     /* what the number is: its label ("West: …") */
  ASSAY_CHANGES_COLUMN_BEFORE,
  ASSAY_CHANGES_COLUMN_AFTER,
  ASSAY_CHANGES_COLUMN_CHANGE,
  ASSAY_CHANGES_COLUMN_PERCENT,
  ASSAY_CHANGES_N_COLUMNS
} AssayChangesColumn;

/* "What Changed", the first card of a session that ran another again on new data: where it
 * came from (with a button that opens that session while its folder is there, through
 * win.open-session), what the run said of its data, and a table of every traced number of
 * its answers: what it is (its label, the sentence it sits in on hover), before, after, the
 * change and the change in percent; a number
 * not found again is marked stale, a changed one emphasised, numbers in tabular figures. */
GtkWidget  *assay_changes_card_new           (AssaySession       *session);
/* The table's rows, one per AssaySessionChange of the session, in its order. */
guint       assay_changes_card_get_n_rows    (AssayChangesCard   *self);
/* What the table shows at ROW (from 0) in COLUMN. */
const char *assay_changes_card_get_text      (AssayChangesCard   *self,
                                              guint               row,
                                              AssayChangesColumn  column);
gboolean    assay_changes_card_get_row_stale (AssayChangesCard   *self,
                                              guint               row);
/* The summary as the model rewrote it, shown under the notes (NULL: none). */
void        assay_changes_card_show_rewrite  (AssayChangesCard   *self,
                                              const char         *rewrite);
const char *assay_changes_card_get_rewrite   (AssayChangesCard   *self);
/* The folder of the session it ran again, when the card offers to open it (else NULL). */
const char *assay_changes_card_get_origin_dir (AssayChangesCard  *self);

G_END_DECLS
