/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What a request to a model server cost, from its token counts and a dated table of the
 * vendors' list prices (data/prices.json, with the analyst's overrides on top). The figures
 * are estimates for the analyst: Assay never sees the bill. */

typedef struct
{
  gint64 input_tokens;          /* all input tokens, cached ones included; -1 unknown */
  gint64 cached_input_tokens;   /* of those, read from the provider's cache; -1 unknown */
  gint64 cache_write_tokens;    /* of those, written to the cache (Anthropic's cache_creation_input_tokens); -1 unknown */
  gint64 output_tokens;         /* reasoning included; -1 unknown */
} AssayTokenUsage;

typedef struct
{
  char   *model;
  char   *since;        /* "YYYY-MM-DD" or NULL */
  double  input;        /* USD per 1,000,000 tokens */
  double  cached_input; /* < 0: same as input */
  double  cache_write;  /* < 0: same as input */
  double  output;
} AssayPrice;

/* Prices at or above this (USD per million tokens) are refused as a slip of the keyboard. */
#define ASSAY_PRICE_MAX 10000.0
/* The longest model name a table may hold, in characters. */
#define ASSAY_PRICE_MODEL_MAX 200

AssayPrice *assay_price_copy (const AssayPrice *price);
void        assay_price_free (AssayPrice       *price);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayPrice, assay_price_free)

/* Reference counted; not locked: load it on one thread, or share it only once loaded. */
typedef struct _AssayPriceTable AssayPriceTable;

#define ASSAY_TYPE_PRICE_TABLE (assay_price_table_get_type ())
GType            assay_price_table_get_type     (void) G_GNUC_CONST;

/* An empty table. */
AssayPriceTable *assay_price_table_new          (void);
AssayPriceTable *assay_price_table_ref          (AssayPriceTable  *self);
void             assay_price_table_unref        (AssayPriceTable  *self);

/* Merges the table in JSON (LENGTH bytes, or -1 when NUL-terminated) into SELF: an entry
 * for a model and "since" date already held replaces it, later entries of the same text
 * replace earlier ones. The first text with an "updated" date gives the table its date.
 * Nothing is merged when any entry is refused (G_IO_ERROR_INVALID_DATA, naming the entry).
 * Pointers from assay_price_table_lookup() do not outlive a load. */
gboolean         assay_price_table_load_data    (AssayPriceTable  *self,
                                                 const char       *json,
                                                 gssize            length,
                                                 GError          **error);
/* The same from a file; errors name the file. */
gboolean         assay_price_table_load_file    (AssayPriceTable  *self,
                                                 const char       *path,
                                                 GError          **error);

/* The shipped table alone: ASSAY_PKGDATADIR "/prices.json", or $ASSAY_PRICES_FILE when set
 * (for tests and uninstalled runs). For Preferences' "reset", and for a caller to fall back
 * on when the user's file is broken. */
AssayPriceTable *assay_price_table_new_shipped  (GError          **error);
/* The shipped table, then the user's overrides ($XDG_CONFIG_HOME/assay/prices.json,
 * g_get_user_config_dir()) on top; a missing user file is not an error; a broken one is an
 * error naming the file (and NULL is returned). */
AssayPriceTable *assay_price_table_new_default  (GError          **error);
/* Where the user's overrides are kept. */
char            *assay_price_table_get_user_path (void);

/* The price in force for MODEL at TIME (µs since the epoch; 0 = now; dates in UTC). Match:
 * exact model name first; else the longest table name that MODEL starts with followed by
 * '-' (so "gpt-4.1-2025-04-14" finds "gpt-4.1", and "gpt-4.1-mini-2025-04-14" finds
 * "gpt-4.1-mini", not "gpt-4.1"); an optional provider prefix "openai/" or "anthropic/" in
 * MODEL is ignored. Of that name's entries, the one with the latest "since" not after TIME's
 * date (an entry without "since" is in force from the beginning); a TIME before every entry
 * gets the earliest. NULL: no price known. Borrowed from SELF until its next load. */
const AssayPrice *assay_price_table_lookup      (AssayPriceTable  *self,
                                                 const char       *model,
                                                 gint64            time);

/* USD: (input - cached - cache_write) * input + cached * cached_input + cache_write *
 * cache_write + output * output, per 1e6; unknown (-1) counts are 0, except input_tokens -1
 * and output_tokens -1 both: returns -1 (nothing known). A NULL PRICE also returns -1. */
double           assay_price_cost               (const AssayPrice      *price,
                                                 const AssayTokenUsage *usage);

/* The table as JSON (for Preferences to edit and save): "updated" when known, "currency",
 * "unit" and "models" in the order of assay_price_table_get_prices(). */
char            *assay_price_table_to_json      (AssayPriceTable  *self);
/* Saves JSON as the user's override file atomically (g_file_set_contents, folder created
 * 0700), after checking that it loads; a refused text leaves the file as it was. */
gboolean         assay_price_table_save_user    (const char       *json,
                                                 GError          **error);
/* AssayPrice* (copies; the array frees them), sorted by model then since (none first). */
GPtrArray       *assay_price_table_get_prices   (AssayPriceTable  *self);
/* The shipped table's date ("YYYY-MM-DD"), or NULL. */
const char      *assay_price_table_get_updated  (AssayPriceTable  *self);

/* "$0.0123", "$1.20", "<$0.0001" for tiny non-zero, "$0" for 0; "—" for an unknown
 * (negative or not finite) cost; for the analyst. Always a '.' before the cents. */
char            *assay_price_format_cost        (double            usd);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayPriceTable, assay_price_table_unref)

G_END_DECLS
