/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "assay-session-path.h"

gboolean
assay_session_path_is_clean (const char *relative)
{
  g_auto(GStrv) parts = NULL;

  if (relative == NULL || *relative == '\0' || g_path_is_absolute (relative))
    return FALSE;
  parts = g_strsplit (relative, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
        return FALSE;
    }
  return TRUE;
}

int
assay_session_path_open_below (const char   *dir,
                               const char   *relative,
                               struct stat  *st,
                               GError      **error)
{
  g_auto(GStrv) parts = NULL;
  int fd;

  if (!assay_session_path_is_clean (relative))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "“%s” is not inside the session folder", relative ? relative : "");
      return -1;
    }

  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot open the session folder “%s”: %s", dir, g_strerror (saved));
      return -1;
    }

  parts = g_strsplit (relative, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      gboolean last = parts[i + 1] == NULL;
      int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
      int next;
      int saved;

      /* O_NONBLOCK: a FIFO planted there must not hang the opener. */
      flags |= last ? O_NONBLOCK : O_DIRECTORY;
      next = openat (fd, parts[i], flags);
      saved = errno;
      close (fd);
      if (next < 0)
        {
          if (saved == ELOOP || saved == ENOTDIR)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                         "“%s” passes through a symbolic link; it is not opened", relative);
          else
            g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                         "Cannot open “%s”: %s", relative, g_strerror (saved));
          return -1;
        }
      fd = next;
    }

  if (fstat (fd, st) != 0 || !S_ISREG (st->st_mode))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "“%s” is not a regular file", relative);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

gboolean
assay_session_path_is_below (const char *dir,
                             const char *relative)
{
  g_auto(GStrv) parts = NULL;
  int fd;

  g_return_val_if_fail (dir != NULL, FALSE);

  if (!assay_session_path_is_clean (relative))
    return FALSE;
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return TRUE;   /* nothing below a missing folder can lead out of it */

  parts = g_strsplit (relative, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      struct stat st;
      int next;

      if (fstatat (fd, parts[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
        break;
      if (S_ISLNK (st.st_mode))
        {
          close (fd);
          return FALSE;
        }
      if (parts[i + 1] == NULL || !S_ISDIR (st.st_mode))
        break;
      next = openat (fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0)
        break;
      close (fd);
      fd = next;
    }
  close (fd);
  return TRUE;
}
