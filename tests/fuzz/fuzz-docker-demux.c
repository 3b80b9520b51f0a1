/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include <gio/gio.h>

#include "assay-docker-demux.h"

/* Feeds the input to the demuxer in pieces whose sizes come from the input itself
 * and checks the result against a simple whole-buffer parser: the same payload per
 * stream, the same verdict, the same idle state. */

typedef struct
{
  guint64 hash[3];
  gsize   bytes[3];
} Digest;

static void
digest_init (Digest *digest)
{
  for (guint i = 0; i < 3; i++)
    {
      digest->hash[i] = 14695981039346656037ull;
      digest->bytes[i] = 0;
    }
}

static void
digest_add (Digest       *digest,
            int           stream,
            const guint8 *data,
            gsize         len)
{
  for (gsize i = 0; i < len; i++)
    digest->hash[stream] = (digest->hash[stream] ^ data[i]) * 1099511628211ull;
  digest->bytes[stream] += len;
}

static void
on_payload (int           stream,
            const guint8 *payload,
            gsize         len,
            gpointer      user_data)
{
  if (stream < 0 || stream > 2 || len == 0 || payload == NULL)
    abort ();

  digest_add (user_data, stream, payload, len);
}

/* Returns whether the stream is valid; *idle says whether it ends between frames. */
static gboolean
reference_parse (const guint8 *data,
                 gsize         size,
                 Digest       *digest,
                 gboolean     *idle)
{
  gsize pos = 0;

  *idle = TRUE;

  while (pos < size)
    {
      guint32 len;
      gsize available;

      if (size - pos < 8)
        {
          *idle = FALSE;
          return TRUE;
        }

      if (data[pos] > 2 || data[pos + 1] != 0 || data[pos + 2] != 0 || data[pos + 3] != 0)
        {
          *idle = FALSE;
          return FALSE;
        }

      len = ((guint32) data[pos + 4] << 24) | ((guint32) data[pos + 5] << 16) |
            ((guint32) data[pos + 6] << 8) | data[pos + 7];
      available = MIN ((gsize) len, size - pos - 8);
      digest_add (digest, data[pos], data + pos + 8, available);
      pos += 8 + available;

      if (available < len)
        {
          *idle = FALSE;
          return TRUE;
        }
    }

  return TRUE;
}

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  AssayDockerDemux demux;
  Digest expected;
  Digest actual;
  gboolean expected_ok;
  gboolean expected_idle;
  gboolean ok = TRUE;
  gsize pos = 0;

  digest_init (&expected);
  digest_init (&actual);
  expected_ok = reference_parse (data, size, &expected, &expected_idle);

  assay_docker_demux_init (&demux);

  while (pos < size)
    {
      guint8 seed = data[pos];
      gsize piece;
      GError *error = NULL;

      /* Mostly tiny pieces that cut headers; sometimes large ones. */
      if (seed & 0x80)
        piece = 1 + (seed & 0x07);
      else
        piece = 1 + (gsize) seed * 97;
      piece = MIN (piece, size - pos);

      if (!assay_docker_demux_feed (&demux, data + pos, piece, on_payload, &actual, &error))
        {
          if (error == NULL || !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
            abort ();
          g_error_free (error);
          ok = FALSE;
          break;
        }

      if (error != NULL)
        abort ();
      pos += piece;
    }

  if (ok != expected_ok)
    abort ();

  if (ok && assay_docker_demux_is_idle (&demux) != expected_idle)
    abort ();

  /* A failed demuxer stays failed and is never idle. */
  if (!ok)
    {
      GError *error = NULL;
      const guint8 frame[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };

      if (assay_docker_demux_is_idle (&demux))
        abort ();
      if (assay_docker_demux_feed (&demux, frame, sizeof frame, on_payload, &actual, &error))
        abort ();
      g_clear_error (&error);
    }

  for (guint i = 0; i < 3; i++)
    if (actual.bytes[i] != expected.bytes[i] || actual.hash[i] != expected.hash[i])
      abort ();

  return 0;
}
