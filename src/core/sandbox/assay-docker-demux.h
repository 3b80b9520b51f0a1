/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Docker's attach stream without a TTY multiplexes stdin/stdout/stderr into frames:
 * an 8-byte header [stream type][0][0][0][payload size, big-endian uint32], then the
 * payload. The demuxer is a small state machine that parses that stream incrementally
 * without allocating: headers may be split across feeds at any byte, and a frame's
 * payload is handed out in pieces as it arrives. */

#define ASSAY_DOCKER_STREAM_STDIN  0
#define ASSAY_DOCKER_STREAM_STDOUT 1
#define ASSAY_DOCKER_STREAM_STDERR 2

#define ASSAY_DOCKER_DEMUX_HEADER_SIZE 8

typedef struct
{
  /*< private >*/
  guint8  header[ASSAY_DOCKER_DEMUX_HEADER_SIZE];
  guint8  header_len;   /* bytes of the next header collected so far */
  guint8  stream;       /* stream of the frame being delivered */
  guint8  failed;       /* a protocol error was seen; the stream is unusable */
  guint32 remaining;    /* payload bytes of the current frame still to come */
} AssayDockerDemux;

/* One piece of a frame's payload; never called with len == 0. */
typedef void (*AssayDockerDemuxFunc) (int           stream,
                                      const guint8 *payload,
                                      gsize         len,
                                      gpointer      user_data);

void     assay_docker_demux_init    (AssayDockerDemux       *demux);
gboolean assay_docker_demux_feed    (AssayDockerDemux       *demux,
                                     const guint8           *data,
                                     gsize                   len,
                                     AssayDockerDemuxFunc    func,
                                     gpointer                user_data,
                                     GError                **error);
gboolean assay_docker_demux_is_idle (const AssayDockerDemux *demux);

G_END_DECLS
