/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Numbers as people and programs write them: "475,046", "475 046" (space, NBSP or narrow NBSP
 * between the groups), "1'234", "1.234.567,8", "−5.2 %", "+3", "1.65M", "12 тыс.", "3–5%",
 * "1.651593e+06". A number's value carries its sign and magnitude; its tolerance is half a unit
 * of the last digit written, so "24.0%" stands for anything from 23.95 to 24.05 and "1.65M" for
 * 1,645,000 to 1,655,000.
 *
 * In prose (ASSAY_NUMBER_SCAN_PROSE) what is not a claim is skipped: dates and times
 * ("2024-03-15", "15.03.2024", "14:30", "15 March", "March 2024"), years (1900–2100 written
 * without separators), ordinals ("4th"), numbers that are part of an identifier ("c4", "Q3",
 * "COVID-19", "col_2", "#3", "№ 5"), and the numbers of steps, cells, figures and sections
 * ("step 2", "cell 4", "шаг 3"). The caller skips code and list markers (it knows the Markdown).
 */

typedef enum
{
  ASSAY_NUMBER_SCAN_PROSE         = 1 << 0,
  /* "3,5" is three and a half (Russian, most of Europe); else a comma only groups thousands
   * ("1,234") and otherwise ends the number. */
  ASSAY_NUMBER_SCAN_DECIMAL_COMMA = 1 << 1,
  /* A program's output: exponents ("1.6e+06"); a space never groups digits (columns). */
  ASSAY_NUMBER_SCAN_OUTPUT        = 1 << 2,
  /* The text starts a block (a heading, a paragraph): "1. Overview" is a section number. */
  ASSAY_NUMBER_SCAN_BLOCK_START   = 1 << 3,
} AssayNumberScanFlags;

typedef enum
{
  ASSAY_NUMBER_PERCENT   = 1 << 0,   /* "%", "percent", "процентов" */
  ASSAY_NUMBER_SIGNED    = 1 << 1,   /* written with + or − */
  ASSAY_NUMBER_GROUPED   = 1 << 2,   /* written with a thousands separator */
  ASSAY_NUMBER_MAGNITUDE = 1 << 3,   /* "M", "bn", "тыс.", "million" */
  ASSAY_NUMBER_RANGE     = 1 << 4,   /* one end of "3–5" */
  ASSAY_NUMBER_EXPONENT  = 1 << 5,   /* "1.6e+06" */
} AssayNumberFlags;

typedef struct
{
  guint             start;       /* bytes in the text: sign, digits and suffixes */
  guint             end;
  double            value;       /* "−1.65M" is −1650000 */
  double            tolerance;   /* half a unit of the last digit written, times the magnitude */
  double            magnitude;   /* 1, 1e3, 1e6, 1e9 or 1e12 */
  guint8            decimals;    /* digits after the decimal separator */
  AssayNumberFlags  flags;
} AssayNumber;

/* Appends to NUMBERS (an array of AssayNumber) the numbers of TEXT, with OFFSET added to
 * their spans. TEXT need not be valid UTF-8 or end with a NUL. */
void assay_number_scan (const char           *text,
                        gsize                 length,
                        AssayNumberScanFlags  flags,
                        guint                 offset,
                        GArray               *numbers);

/* VALUE written the way WRITTEN (one number, as assay_number_scan found it in prose) is: its
 * decimals, thousands separator, decimal separator, sign style, magnitude and unit ("EUR
 * 475,046" → "512,001"; "24.0%" → "25.1%"; "1.65M" → "1.72M"; "−5,2 %" → "−4,8 %"). VALUE is
 * in the units the number stands for (1650000 for "1.65M"). */
char *assay_number_format_like (double             value,
                                const char        *written,
                                const AssayNumber *number);

/* Whether TEXT is mostly in a language that writes decimal commas (it has Cyrillic letters). */
gboolean assay_number_prefers_decimal_comma (const char *text,
                                             gsize       length);

G_END_DECLS
