/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "assay-docker-demux.h"

void
assay_docker_demux_init (AssayDockerDemux *demux)
{
  g_return_if_fail (demux != NULL);

  memset (demux, 0, sizeof *demux);
}

static gboolean
assay_docker_demux_take_header (AssayDockerDemux  *demux,
                                GError           **error)
{
  const guint8 *header = demux->header;

  demux->header_len = 0;

  if (header[0] > ASSAY_DOCKER_STREAM_STDERR)
    {
      demux->failed = TRUE;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "Invalid frame in the Docker stream: unknown stream type %u",
                   header[0]);
      return FALSE;
    }

  if (header[1] != 0 || header[2] != 0 || header[3] != 0)
    {
      demux->failed = TRUE;
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "Invalid frame in the Docker stream: non-zero padding");
      return FALSE;
    }

  demux->stream = header[0];
  demux->remaining = ((guint32) header[4] << 24) | ((guint32) header[5] << 16) |
                     ((guint32) header[6] << 8) | (guint32) header[7];
  return TRUE;
}

/* Parses @len bytes of the stream and calls @func for every piece of payload in
 * them, in order. Returns FALSE on a protocol error; the demuxer then stays failed
 * (pieces before the bad header were delivered already). @func may be NULL to
 * discard the payload. */
gboolean
assay_docker_demux_feed (AssayDockerDemux      *demux,
                         const guint8          *data,
                         gsize                  len,
                         AssayDockerDemuxFunc   func,
                         gpointer               user_data,
                         GError               **error)
{
  g_return_val_if_fail (demux != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (demux->failed)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "The Docker stream is broken after an invalid frame");
      return FALSE;
    }

  while (len > 0)
    {
      gsize n;

      if (demux->remaining > 0)
        {
          n = MIN (len, (gsize) demux->remaining);
          if (func != NULL)
            func (demux->stream, data, n, user_data);
          demux->remaining -= (guint32) n;
        }
      else
        {
          n = MIN (len, (gsize) (ASSAY_DOCKER_DEMUX_HEADER_SIZE - demux->header_len));
          memcpy (demux->header + demux->header_len, data, n);
          demux->header_len += (guint8) n;

          if (demux->header_len == ASSAY_DOCKER_DEMUX_HEADER_SIZE &&
              !assay_docker_demux_take_header (demux, error))
            return FALSE;
        }

      data += n;
      len -= n;
    }

  return TRUE;
}

/* Whether the stream is between two frames, so that an end of file here is a
 * clean one and not a cut frame. A failed demuxer is never idle. */
gboolean
assay_docker_demux_is_idle (const AssayDockerDemux *demux)
{
  g_return_val_if_fail (demux != NULL, FALSE);

  return !demux->failed && demux->header_len == 0 && demux->remaining == 0;
}
