/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The seal of approved code: an HMAC of what ran, with a key of the user's (assay-approval.h). */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assay-approval.h"

#define KEY_BYTES 32

static char *
assay_approval_key_path (void)
{
  const char *path = g_getenv ("ASSAY_APPROVAL_KEY_FILE");

  if (path != NULL && *path != '\0')
    return g_strdup (path);
  return g_build_filename (g_get_user_data_dir (), "assay", "approval-key", NULL);
}

/* Reads the key: a regular file of ours, of KEY_BYTES, that nobody else may read. */
static gboolean
assay_approval_read_key (const char  *path,
                         guchar       key[KEY_BYTES],
                         GError     **error)
{
  struct stat st;
  gsize done = 0;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);

  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot read the approval key %s: %s"),
                   path, g_strerror (saved));
      return FALSE;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid () || (st.st_mode & 077) != 0 ||
      st.st_size != KEY_BYTES)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The approval key %s is not a private file of %d bytes of yours: Assay does not use it"),
                   path, KEY_BYTES);
      return FALSE;
    }
  while (done < KEY_BYTES)
    {
      ssize_t n = read (fd, key + done, KEY_BYTES - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          close (fd);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot read the approval key %s"), path);
          return FALSE;
        }
      done += (gsize) n;
    }
  close (fd);
  return TRUE;
}

/* The key, made on first use (O_EXCL: two processes never make two keys). */
static gboolean
assay_approval_key (guchar   key[KEY_BYTES],
                    GError **error)
{
  g_autofree char *path = assay_approval_key_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  gsize done = 0;
  int fd;

  if (g_file_test (path, G_FILE_TEST_EXISTS) || g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    return assay_approval_read_key (path, key, error);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot make the folder %s: %s"), dir,
                   g_strerror (saved));
      return FALSE;
    }
  while (done < KEY_BYTES)
    {
      ssize_t n = getrandom (key + done, KEY_BYTES - done, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("No random bytes for the approval key"));
          return FALSE;
        }
      done += (gsize) n;
    }
  /* Written whole under another name, then linked in place: another process sees no key or
   * the whole key, and of two made at once one wins (link fails on the other). */
  {
    g_autofree char *temp = g_strconcat (path, ".XXXXXX", NULL);
    int saved;

    fd = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
      {
        saved = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot make the approval key %s: %s"),
                     path, g_strerror (saved));
        return FALSE;
      }
    if (write (fd, key, KEY_BYTES) != KEY_BYTES || fsync (fd) != 0)
      {
        saved = errno;
        close (fd);
        g_unlink (temp);
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write the approval key %s: %s"),
                     path, g_strerror (saved));
        return FALSE;
      }
    close (fd);
    if (link (temp, path) != 0)
      {
        saved = errno;
        g_unlink (temp);
        /* Made by another process meanwhile: that one is the key. */
        if (saved == EEXIST)
          return assay_approval_read_key (path, key, error);
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot make the approval key %s: %s"),
                     path, g_strerror (saved));
        return FALSE;
      }
    g_unlink (temp);
  }
  return TRUE;
}

static char *
assay_approval_mac (const AssaySessionCell *cell,
                    const guchar            key[KEY_BYTES])
{
  g_autoptr(GHmac) hmac = g_hmac_new (G_CHECKSUM_SHA256, key, KEY_BYTES);
  const char *kind = cell->kind == ASSAY_CELL_KIND_SQL ? "sql" : "python";
  const char *database = cell->kind == ASSAY_CELL_KIND_SQL && cell->query != NULL && cell->query->database != NULL
                         ? cell->query->database : "";

  /* Each field ends with a NUL: no two cells' fields run into one text. */
  g_hmac_update (hmac, (const guchar *) "assay-approval-1", sizeof "assay-approval-1");
  g_hmac_update (hmac, (const guchar *) kind, strlen (kind) + 1);
  g_hmac_update (hmac, (const guchar *) database, strlen (database) + 1);
  g_hmac_update (hmac, (const guchar *) cell->code, strlen (cell->code) + 1);
  return g_strdup (g_hmac_get_string (hmac));
}

gboolean
assay_approval_seal (AssaySessionCell  *cell,
                     GError           **error)
{
  guchar key[KEY_BYTES];

  g_return_val_if_fail (cell != NULL && cell->code != NULL, FALSE);

  if (!assay_approval_key (key, error))
    return FALSE;
  g_free (cell->approval);
  cell->approval = assay_approval_mac (cell, key);
  memset (key, 0, sizeof key);
  return TRUE;
}

static gboolean
assay_approval_same (const char *mac,
                     const char *seal)
{
  guchar diff = 0;

  if (seal == NULL || strlen (seal) != 64)
    return FALSE;
  /* In constant time. */
  for (guint i = 0; i < 64; i++)
    diff |= (guchar) (mac[i] ^ seal[i]);
  return diff == 0;
}

static char *
assay_approval_mac_fields (const char         *kind,
                           const char * const *fields,
                           const guchar        key[KEY_BYTES])
{
  g_autoptr(GHmac) hmac = g_hmac_new (G_CHECKSUM_SHA256, key, KEY_BYTES);

  g_hmac_update (hmac, (const guchar *) "assay-decision-1", sizeof "assay-decision-1");
  g_hmac_update (hmac, (const guchar *) kind, strlen (kind) + 1);
  for (guint i = 0; fields[i] != NULL; i++)
    g_hmac_update (hmac, (const guchar *) fields[i], strlen (fields[i]) + 1);
  return g_strdup (g_hmac_get_string (hmac));
}

char *
assay_approval_seal_fields (const char          *kind,
                            const char * const  *fields,
                            GError             **error)
{
  guchar key[KEY_BYTES];
  char *mac;

  g_return_val_if_fail (kind != NULL && fields != NULL, NULL);

  if (!assay_approval_key (key, error))
    return NULL;
  mac = assay_approval_mac_fields (kind, fields, key);
  memset (key, 0, sizeof key);
  return mac;
}

gboolean
assay_approval_check_fields (const char         *kind,
                             const char * const *fields,
                             const char         *seal)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *mac = NULL;
  guchar key[KEY_BYTES];

  g_return_val_if_fail (kind != NULL && fields != NULL, FALSE);

  if (seal == NULL || strlen (seal) != 64)
    return FALSE;
  if (!assay_approval_key (key, &error))
    {
      g_debug ("%s", error->message);
      return FALSE;
    }
  mac = assay_approval_mac_fields (kind, fields, key);
  memset (key, 0, sizeof key);
  return assay_approval_same (mac, seal);
}

gboolean
assay_approval_check (const AssaySessionCell *cell)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *mac = NULL;
  guchar key[KEY_BYTES];

  g_return_val_if_fail (cell != NULL, FALSE);

  if (cell->code == NULL || cell->approval == NULL || strlen (cell->approval) != 64)
    return FALSE;
  if (!assay_approval_key (key, &error))
    {
      g_debug ("%s", error->message);
      return FALSE;
    }
  mac = assay_approval_mac (cell, key);
  memset (key, 0, sizeof key);
  return assay_approval_same (mac, cell->approval);
}
