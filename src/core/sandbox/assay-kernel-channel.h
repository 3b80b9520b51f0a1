/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "assay-types.h"

G_BEGIN_DECLS

/* No line from the kernel may be longer than this (see sandbox/kernel/PROTOCOL.md). */
#define ASSAY_KERNEL_MAX_LINE (4 * 1024 * 1024)

/* Splits a byte stream into lines without ever holding more than max_line bytes. */
typedef struct
{
  GByteArray *buffer;
  gsize       max_line;
  gboolean    failed;
} AssayLineSplitter;

typedef gboolean (*AssayLineFunc) (const char *line,
                                   gsize       len,
                                   gpointer    user_data,
                                   GError    **error);

void     assay_line_splitter_init  (AssayLineSplitter *splitter,
                                    gsize              max_line);
void     assay_line_splitter_clear (AssayLineSplitter *splitter);
gboolean assay_line_splitter_feed  (AssayLineSplitter *splitter,
                                    const guint8      *data,
                                    gsize              len,
                                    AssayLineFunc      func,
                                    gpointer           user_data,
                                    GError           **error);
gboolean assay_line_splitter_is_empty (const AssayLineSplitter *splitter);

/* Parses and validates one line from the kernel. Returns a new object that holds only the
 * fields this version knows, with text made safe to show (no NULs, no terminal escapes),
 * or NULL with an error for anything malformed or unknown. */
JsonObject *assay_kernel_message_parse (const char  *line,
                                        gsize        len,
                                        GError     **error);

/* Removes what could drive a terminal or break a display: ESC sequences, other C0/C1
 * controls but tab, newline and carriage return, NULs, and invalid UTF-8. */
char       *assay_sanitize_text        (const char  *text,
                                        gssize       len);

#define ASSAY_TYPE_KERNEL_CHANNEL (assay_kernel_channel_get_type ())

G_DECLARE_FINAL_TYPE (AssayKernelChannel, assay_kernel_channel, ASSAY, KERNEL_CHANNEL, GObject)

/* Line-delimited JSON over the kernel's stdio. Emits ::message for each valid message
 * (in the thread-default main context of start()) and ::closed once, with NULL on a clean
 * end of stream or the error that ended it. */
AssayKernelChannel *assay_kernel_channel_new   (GInputStream       *input,
                                                GOutputStream      *output);
void                assay_kernel_channel_start (AssayKernelChannel *self);
void                assay_kernel_channel_send  (AssayKernelChannel *self,
                                                JsonObject         *message);
void                assay_kernel_channel_stop  (AssayKernelChannel *self);

G_END_DECLS
