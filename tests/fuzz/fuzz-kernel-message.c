/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the kernel channel's line splitter and message parser. */
#include "config.h"

#include <stdint.h>

#include "assay-kernel-channel.h"

static gboolean
parse_line (const char  *line,
            gsize        len,
            gpointer     user_data,
            GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  JsonObject *message = assay_kernel_message_parse (line, len, &local_error);

  if (message != NULL)
    json_object_unref (message);
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  AssayLineSplitter splitter;
  gsize pos = 0;
  gsize chunk = size > 0 ? (data[0] % 17) + 1 : 1;

  assay_line_splitter_init (&splitter, 4096);
  while (pos < size)
    {
      gsize n = MIN (chunk, size - pos);
      if (!assay_line_splitter_feed (&splitter, data + pos, n, parse_line, NULL, NULL))
        break;
      pos += n;
    }
  assay_line_splitter_clear (&splitter);

  g_free (assay_sanitize_text ((const char *) data, size));
  return 0;
}
