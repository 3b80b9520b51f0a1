/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "assay-csv-value.h"

G_BEGIN_DECLS

#define ASSAY_TYPE_CSV_DIALECT (assay_csv_dialect_get_type ())

/* How a delimited text file is written, as found by the sniffer. */
typedef struct
{
  char     *encoding;          /* IANA name, lower case: "utf-8", "windows-1251", "utf-16le" */
  char     *python_encoding;   /* the codec name for pandas: "utf-8-sig", "cp1251", "utf-16" */
  gsize     bom_len;           /* bytes of byte-order mark at the start of the file */
  char      delimiter;
  char      quote;
  gboolean  backslash_escape;  /* \" inside quotes rather than "" */
  gboolean  header;
  char      decimal;
  char      thousands[8];      /* UTF-8, "" when none */
  const char *line_ending;     /* "\n", "\r\n" or "\r" */
  guint     trailing_blank_lines;
  guint     n_columns;         /* the usual field count in the sample */
  gsize     preamble_len;      /* bytes of Excel's "sep=;" line before the table, or 0 */
} AssayCsvDialect;

GType            assay_csv_dialect_get_type (void) G_GNUC_CONST;
AssayCsvDialect *assay_csv_dialect_copy     (const AssayCsvDialect *dialect);
void             assay_csv_dialect_free     (AssayCsvDialect       *dialect);
void             assay_csv_dialect_get_value_format (const AssayCsvDialect *dialect,
                                                     AssayValueFormat      *format);

/* Finds the encoding of raw file bytes: a BOM, UTF-32/16 by their zero bytes, valid UTF-8,
 * else uchardet. Fails (G_IO_ERROR_INVALID_DATA, with a specific message) on an empty or
 * binary file, or NUL bytes in a text file. Fills encoding, python_encoding and bom_len. */
gboolean         assay_csv_detect_encoding  (const char       *data,
                                             gsize             len,
                                             AssayCsvDialect  *dialect,
                                             GError          **error);

/* The 8-bit encoding of DATA, which is not UTF-8, by uchardet. */
void             assay_csv_detect_legacy_encoding (const char      *data,
                                                   gsize            len,
                                                   AssayCsvDialect *dialect);

/* Finds the delimiter, quoting, header, decimal and thousands separators, line endings and
 * trailing blank lines of UTF-8 TEXT (BOM removed). Fails when it is not a table. */
gboolean         assay_csv_sniff_text       (const char       *text,
                                             gsize             len,
                                             AssayCsvDialect  *dialect,
                                             GError          **error);

/* Both steps on raw bytes; CHECK_ALL validates all of a UTF-8 file, not just its start. TEXT/TEXT_LEN receive the UTF-8 bytes to parse: inside DATA
 * when the file is UTF-8, else in *CONVERTED. */
AssayCsvDialect *assay_csv_dialect_sniff    (const char       *data,
                                             gsize             len,
                                             gboolean          check_all,
                                             GBytes          **converted,
                                             const char      **text,
                                             gsize            *text_len,
                                             GError          **error);

/* ---- Corrections ------------------------------------------------------------------------
 * An override is an AssayCsvDialect that says only what the analyst corrected; the sniffer
 * finds the rest given those corrections (a delimiter forced to ';' lets the decimal comma be
 * found). In an override, encoding NULL, delimiter, quote and decimal '\0', and header
 * ASSAY_CSV_HEADER_DETECT mean "detect"; the other fields are ignored. */
#define ASSAY_CSV_HEADER_DETECT (-1)

/* Sets every field of OVERRIDE to "detect". */
void             assay_csv_dialect_init_override (AssayCsvDialect *override);
/* Clears what OVERRIDE holds (not OVERRIDE itself). */
void             assay_csv_dialect_clear_override (AssayCsvDialect *override);

/* Sets the encoding fields of DIALECT to ENCODING (an IANA name, any case), which the
 * analyst chose; a byte-order mark at the start of DATA that fits it is skipped. Fails when
 * the system cannot convert from ENCODING. */
gboolean         assay_csv_force_encoding   (const char       *data,
                                             gsize             len,
                                             const char       *encoding,
                                             AssayCsvDialect  *dialect,
                                             GError          **error);

/* assay_csv_sniff_text () that keeps what OVERRIDE (may be NULL) says. */
gboolean         assay_csv_sniff_text_with_override (const char            *text,
                                                     gsize                  len,
                                                     const AssayCsvDialect *override,
                                                     AssayCsvDialect       *dialect,
                                                     GError               **error);

/* assay_csv_dialect_sniff () that keeps what OVERRIDE (may be NULL) says. */
AssayCsvDialect *assay_csv_dialect_sniff_with_override (const char            *data,
                                                        gsize                  len,
                                                        gboolean               check_all,
                                                        const AssayCsvDialect *override,
                                                        GBytes               **converted,
                                                        const char           **text,
                                                        gsize                 *text_len,
                                                        GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayCsvDialect, assay_csv_dialect_free)

G_END_DECLS
