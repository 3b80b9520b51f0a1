/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/* Paths inside a session folder. A session folder is something analysts share, so the
 * paths its record names (datasets, artifacts) are untrusted: they must stay below the
 * folder, neither absolute, nor through "..", nor through a symbolic link planted there. */

/* Relative, no empty, "." or ".." component: RELATIVE names something below a folder. */
gboolean assay_session_path_is_clean    (const char   *relative);

/* Whether RELATIVE is clean and none of its components that exist below DIR is a
 * symbolic link. A component that does not exist ends the check (the file may be made
 * later); the caller then finds it missing. */
gboolean assay_session_path_is_below    (const char   *dir,
                                         const char   *relative);

/* Walks RELATIVE from DIR one component at a time with O_NOFOLLOW, so no symbolic link is
 * followed anywhere below DIR (a link to a folder would escape it as surely as a link to a
 * file), and returns a read-only descriptor of the regular file at its end, its status in
 * ST; -1 with ERROR set otherwise (G_IO_ERROR_PERMISSION_DENIED for a path that leaves DIR
 * or passes a link). A FIFO planted there never blocks the caller. */
int      assay_session_path_open_below  (const char   *dir,
                                         const char   *relative,
                                         struct stat  *st,
                                         GError      **error);

G_END_DECLS
