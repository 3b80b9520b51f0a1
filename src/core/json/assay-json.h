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

/* Checks that DATA (LEN bytes, or -1 for a NUL-terminated string) is strict JSON (RFC 8259)
 * nested at most MAX_DEPTH deep, without recursion, and stores the depth in DEPTH (may be
 * NULL). Only strict JSON is let through because json-glib's scanner also takes C comments,
 * single-quoted strings and lone surrogate escapes, each of which would make it see brackets
 * where a plain reading sees text. An empty or blank text is valid (no value, depth 0).
 * Raw control characters in strings are allowed (they cannot change the structure); NULs
 * are not. */
gboolean assay_json_check                 (const char  *data,
                                           gssize       len,
                                           guint        max_depth,
                                           guint       *depth,
                                           GError     **error);

/* json_parser_load_from_data() after assay_json_check() with ASSAY_JSON_MAX_DEPTH:
 * G_IO_ERROR_INVALID_DATA when the check fails, else json-glib's own error. */
gboolean assay_json_parser_load_untrusted (JsonParser  *parser,
                                           const char  *data,
                                           gssize       len,
                                           GError     **error);

/* json_from_string() after the same check; NULL with ERROR set when it fails. */
JsonNode *assay_json_from_untrusted      (const char  *data,
                                          GError     **error);

/* Checked getters for JSON from outside: each returns NULL (or FALSE, or FALLBACK) when
 * OBJECT is NULL, the member is missing, or it holds another type, where json-glib's own
 * getters warn or abort. Strings and containers are borrowed from OBJECT. */
const char *assay_json_get_string      (JsonObject  *object,
                                        const char  *member);
char       *assay_json_dup_string      (JsonObject  *object,
                                        const char  *member);
JsonObject *assay_json_get_object      (JsonObject  *object,
                                        const char  *member);
JsonArray  *assay_json_get_array       (JsonObject  *object,
                                        const char  *member);
/* An integer, or a number within ±9e15 (truncated): some servers write counts as 12.0. */
gboolean    assay_json_get_int         (JsonObject  *object,
                                        const char  *member,
                                        gint64      *value);
gint64      assay_json_get_int_or      (JsonObject  *object,
                                        const char  *member,
                                        gint64       fallback);
/* A finite number (an integer too), or FALLBACK. */
double      assay_json_get_double_or   (JsonObject  *object,
                                        const char  *member,
                                        double       fallback);
gboolean    assay_json_get_boolean_or  (JsonObject  *object,
                                        const char  *member,
                                        gboolean     fallback);
/* An nbformat multi-line string: a string, or an array whose string elements are joined
 * (other elements are skipped). NULL for anything else. */
char       *assay_json_dup_text        (JsonNode    *node);

G_END_DECLS
