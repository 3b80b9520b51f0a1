/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A tar stream (POSIX ustar, with a pax header for long names and large files) of files of
 * the folder DIR, for Docker's archive endpoint: what an engine elsewhere gets instead of a
 * bind mount of /data. NAMES: the files (plain names in DIR), or NULL for every regular file
 * there; links and anything but regular files are left out. Each is read only while the
 * stream is (nothing is mapped: a file truncated meanwhile ends the stream with an error),
 * and written read-only for everyone (0444, owner root). *TOTAL_BYTES: the stream's size. */
GInputStream *assay_docker_archive_new (const char          *dir,
                                        const char * const  *names,
                                        guint64             *total_bytes,
                                        GError             **error);

G_END_DECLS
