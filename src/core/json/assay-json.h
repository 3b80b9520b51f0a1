/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* JSON from outside Assay: the kernel's lines, model servers' events, the Docker engine's
 * answers, session records and transcripts that may have been shared.
 *
 * json-glib parses recursively, so a few hundred kilobytes of "[[[[..." exhaust the stack
 * and crash the process. Every untrusted text is checked for its nesting depth before it
 * reaches the parser; nothing Assay reads legitimately comes near the cap. */
#define ASSAY_JSON_MAX_DEPTH 128

/* The deepest nesting of arrays and objects in DATA (LEN bytes, or -1 for a NUL-terminated
 * string), brackets inside strings not counted; the scan stops once it passes MAX_DEPTH and
 * returns MAX_DEPTH + 1. Malformed text gets a number too; the parser will refuse it. */
guint    assay_json_nesting_depth        (const char  *data,
                                          gssize       len,
                                          guint        max_depth);

/* json_parser_load_from_data() after the depth check: G_IO_ERROR_INVALID_DATA when DATA is
 * nested deeper than ASSAY_JSON_MAX_DEPTH, else json-glib's own error. */
gboolean assay_json_parser_load_untrusted (JsonParser  *parser,
                                           const char  *data,
                                           gssize       len,
                                           GError     **error);

/* json_from_string() after the same check; NULL with ERROR set when it fails. */
JsonNode *assay_json_from_untrusted      (const char  *data,
                                          GError     **error);

G_END_DECLS
