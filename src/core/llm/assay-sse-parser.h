/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* An incremental parser for server-sent events (the WHATWG "text/event-stream" format):
 * feed it the body in pieces of any size, it calls back once per complete event.
 *
 * Lines end in CR, LF or CRLF (also when the pair is split between two pieces); a BOM at
 * the start is skipped; lines starting with ':' are comments; "data" lines are joined with
 * '\n'; an event without data is not dispatched; "id" and "retry" are ignored. A line or an
 * event longer than the cap is an error, after which the parser stays failed. An event not
 * ended by a blank line when the stream ends is discarded, as the specification says. */
typedef struct _AssaySseParser AssaySseParser;

/* EVENT is "message" when the server named none. DATA is NUL-terminated. Return FALSE
 * (and set ERROR) to stop parsing; the failure is then reported by assay_sse_parser_feed(). */
typedef gboolean (*AssaySseEventFunc) (const char  *event,
                                       const char  *data,
                                       gsize        data_len,
                                       gpointer     user_data,
                                       GError     **error);

#define ASSAY_SSE_DEFAULT_MAX_BYTES (8 * 1024 * 1024)

AssaySseParser *assay_sse_parser_new   (gsize              max_bytes);
void            assay_sse_parser_free  (AssaySseParser    *parser);
void            assay_sse_parser_reset (AssaySseParser    *parser);
gboolean        assay_sse_parser_feed  (AssaySseParser    *parser,
                                        const char        *data,
                                        gsize              len,
                                        AssaySseEventFunc  func,
                                        gpointer           user_data,
                                        GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssaySseParser, assay_sse_parser_free)

G_END_DECLS
