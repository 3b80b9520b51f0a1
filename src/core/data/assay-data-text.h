/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Text helpers shared by the datasets module. Everything here takes untrusted bytes. */

/* Printable UTF-8 for a terminal or a model: invalid bytes become U+FFFD, tabs and line
 * breaks become spaces, other control characters (C0, C1, DEL), bidi overrides and NULs are
 * dropped, and the result is cut at MAX_CHARS characters with an ellipsis (0: no cap). */
char    *assay_data_sanitize          (const char *text,
                                       gssize      len,
                                       gsize       max_chars);

/* Offset of the first byte that is not part of valid UTF-8, or LEN when all of it is.
 * Fast on mostly ASCII input. A sequence cut by LEN counts as valid when TRUNCATED_OK. */
gsize    assay_data_utf8_invalid_at   (const char *data,
                                       gsize       len,
                                       gboolean    truncated_ok);

/* Converts LEN bytes in ENCODING (an iconv name) to UTF-8, in chunks; invalid input becomes
 * U+FFFD. Returns NULL with ERROR set when iconv does not know the encoding. */
GBytes  *assay_data_convert_to_utf8   (const char  *data,
                                       gsize        len,
                                       const char  *encoding,
                                       GError     **error);

/* A fast 64-bit hash of a byte string (not cryptographic). */
guint64  assay_data_hash              (const char *data,
                                       gsize       len);

/* The rows of a delimited text file, counted as it is read: line ends outside double quotes,
 * the header not counted. assay_data_counts_rows says whether PATH's name is one of a
 * delimited text file (.csv, .tsv, .txt, .tab, .psv). */
typedef struct
{
  gint64   lines;
  gboolean quoted;
  gboolean last_newline;
  gboolean any;
} AssayRowCounter;

gboolean assay_data_counts_rows       (const char      *path);
void     assay_row_counter_init       (AssayRowCounter *counter);
void     assay_row_counter_feed       (AssayRowCounter *counter,
                                       const guint8    *data,
                                       gsize            len);
gint64   assay_row_counter_finish     (AssayRowCounter *counter);

G_END_DECLS
