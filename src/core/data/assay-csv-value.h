/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What one cell could be. A column's type is the intersection over its non-null cells. */
typedef enum
{
  ASSAY_VALUE_INTEGER  = 1 << 0,
  ASSAY_VALUE_FLOAT    = 1 << 1,
  ASSAY_VALUE_BOOLEAN  = 1 << 2,
  ASSAY_VALUE_DATE     = 1 << 3,
  ASSAY_VALUE_DATETIME = 1 << 4,
  ASSAY_VALUE_ANY      = 0x1f,
} AssayValueKind;

/* Details of a classified cell, for the column's warnings and date order. */
typedef enum
{
  ASSAY_VALUE_HAS_CURRENCY  = 1 << 0,
  ASSAY_VALUE_HAS_THOUSANDS = 1 << 1,
  ASSAY_VALUE_ISO_DATE      = 1 << 2,
  ASSAY_VALUE_DOT_DATE      = 1 << 3,   /* dd.mm.yyyy */
  ASSAY_VALUE_SLASH_DATE    = 1 << 4,   /* a/b/yyyy: mm/dd or dd/mm */
  ASSAY_VALUE_HAS_TIMEZONE  = 1 << 5,
  ASSAY_VALUE_NO_TIMEZONE   = 1 << 6,
  ASSAY_VALUE_MDY_VALID     = 1 << 7,
  ASSAY_VALUE_DMY_VALID     = 1 << 8,
  ASSAY_VALUE_LEADING_ZERO  = 1 << 9,
} AssayValueFlags;

typedef struct
{
  char decimal;           /* '.' or ',' */
  char thousands[8];      /* UTF-8 bytes of the separator, "" when none */
  guint thousands_len;
} AssayValueFormat;

typedef struct
{
  guint  kinds;           /* AssayValueKind */
  guint  flags;           /* AssayValueFlags */
  double number;          /* the number, or seconds since 1970 for dates (month first) */
  double number_dmy;      /* for a/b/yyyy: seconds since 1970 read day first */
  guint  first;           /* for a/b/yyyy: a and b */
  guint  second;
} AssayValue;

/* pandas' default missing-value markers ("", "NA", "NULL", "nan", "#N/A", ...). */
gboolean assay_value_is_null   (const char *s,
                                gsize       len);

/* Classifies S, trying only the kinds in WANTED. Returns value->kinds (0: a string). */
guint    assay_value_classify  (const char             *s,
                                gsize                   len,
                                const AssayValueFormat *format,
                                guint                   wanted,
                                AssayValue             *value);

/* Formats seconds since 1970 as yyyy-mm-dd or yyyy-mm-ddThh:mm:ss. */
char    *assay_value_format_time (double   seconds,
                                  gboolean with_time);

G_END_DECLS
