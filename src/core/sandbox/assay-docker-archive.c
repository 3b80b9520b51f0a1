/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Docker"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>

#include "assay-docker-archive.h"

#define BLOCK 512

typedef struct
{
  char    *name;
  guint64  size;
} Entry;

#define ASSAY_TYPE_DOCKER_ARCHIVE (assay_docker_archive_get_type ())
G_DECLARE_FINAL_TYPE (AssayDockerArchive, assay_docker_archive, ASSAY, DOCKER_ARCHIVE, GInputStream)

struct _AssayDockerArchive
{
  GInputStream  parent_instance;

  int           dir_fd;
  GArray       *entries;     /* Entry */
  guint         next;        /* the entry whose header comes next */
  GByteArray   *pending;     /* header or padding bytes not read yet */
  gsize         pending_at;
  int           file_fd;     /* the entry being read, or -1 */
  guint64       file_left;
  guint64       file_size;
  gboolean      finished;    /* the two zero blocks are in pending */
};

G_DEFINE_FINAL_TYPE (AssayDockerArchive, assay_docker_archive, G_TYPE_INPUT_STREAM)

static void
entry_clear (gpointer data)
{
  g_free (((Entry *) data)->name);
}

/* "LEN key=value\n", LEN counting itself. */
static void
pax_record (GString    *records,
            const char *key,
            const char *value)
{
  gsize base = strlen (key) + strlen (value) + 3;   /* the space, "=" and the newline */
  gsize len = base + 1;
  char digits[32];

  for (;;)
    {
      gsize n = (gsize) g_snprintf (digits, sizeof digits, "%" G_GSIZE_FORMAT, len);

      if (base + n == len)
        break;
      len = base + n;
    }
  g_string_append_printf (records, "%" G_GSIZE_FORMAT " %s=%s\n", len, key, value);
}

static void
header_block (GByteArray *out,
              const char *name,
              guint64     size,
              char        type)
{
  guint8 block[BLOCK] = { 0 };
  guint checksum = 0;

  strncpy ((char *) block, name, 99);
  memcpy (block + 100, "0000444", 8);                       /* mode */
  memcpy (block + 108, "0000000", 8);                       /* uid: root */
  memcpy (block + 116, "0000000", 8);                       /* gid */
  g_snprintf ((char *) block + 124, 12, "%011" G_GINT64_MODIFIER "o",
              size < G_GUINT64_CONSTANT (077777777777) ? size : 0);
  g_snprintf ((char *) block + 136, 12, "%011o", 0);       /* mtime */
  memset (block + 148, ' ', 8);
  block[156] = (guint8) type;
  memcpy (block + 257, "ustar", 6);
  memcpy (block + 263, "00", 2);
  for (guint i = 0; i < BLOCK; i++)
    checksum += block[i];
  g_snprintf ((char *) block + 148, 8, "%06o", checksum);
  block[155] = ' ';
  g_byte_array_append (out, block, BLOCK);
}

static void
pad (GByteArray *out,
     guint64     size)
{
  static const guint8 zeros[BLOCK] = { 0 };

  if (size % BLOCK != 0)
    g_byte_array_append (out, zeros, BLOCK - size % BLOCK);
}

/* The header(s) of ENTRY: a pax header first when its name or size do not fit ustar's. */
static void
entry_headers (GByteArray  *out,
               const Entry *entry)
{
  gboolean long_name = strlen (entry->name) > 99;
  gboolean large = entry->size >= G_GUINT64_CONSTANT (077777777777);

  if (long_name || large)
    {
      g_autoptr(GString) records = g_string_new (NULL);

      if (long_name)
        pax_record (records, "path", entry->name);
      if (large)
        {
          g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT, entry->size);

          pax_record (records, "size", size);
        }
      header_block (out, "././@PaxHeader", records->len, 'x');
      g_byte_array_append (out, (const guint8 *) records->str, records->len);
      pad (out, records->len);
    }
  header_block (out, entry->name, entry->size, '0');
}

static guint64
entry_total (const Entry *entry)
{
  g_autoptr(GByteArray) headers = g_byte_array_new ();

  entry_headers (headers, entry);
  return headers->len + entry->size + (entry->size % BLOCK != 0 ? BLOCK - entry->size % BLOCK : 0);
}

static gboolean
assay_docker_archive_open_next (AssayDockerArchive  *self,
                                GError             **error)
{
  Entry *entry;
  struct stat st;

  g_byte_array_set_size (self->pending, 0);
  self->pending_at = 0;
  if (self->next >= self->entries->len)
    {
      static const guint8 zeros[2 * BLOCK] = { 0 };

      g_byte_array_append (self->pending, zeros, sizeof zeros);
      self->finished = TRUE;
      return TRUE;
    }
  entry = &g_array_index (self->entries, Entry, self->next++);
  self->file_fd = openat (self->dir_fd, entry->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (self->file_fd < 0 || fstat (self->file_fd, &st) != 0 || !S_ISREG (st.st_mode) ||
      (guint64) st.st_size != entry->size)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("“%s” changed or cannot be read: %s"),
                   entry->name, self->file_fd < 0 ? g_strerror (saved_errno) : _("not the file it was"));
      return FALSE;
    }
  entry_headers (self->pending, entry);
  self->file_left = self->file_size = entry->size;
  return TRUE;
}

static gssize
assay_docker_archive_read (GInputStream  *stream,
                           void          *buffer,
                           gsize          count,
                           GCancellable  *cancellable,
                           GError       **error)
{
  AssayDockerArchive *self = ASSAY_DOCKER_ARCHIVE (stream);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return -1;
  for (;;)
    {
      if (self->pending_at < self->pending->len)
        {
          gsize n = MIN (count, self->pending->len - self->pending_at);

          memcpy (buffer, self->pending->data + self->pending_at, n);
          self->pending_at += n;
          return n;
        }
      if (self->file_fd >= 0 && self->file_left > 0)
        {
          gssize n = read (self->file_fd, buffer, MIN (count, self->file_left));

          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("A dataset got shorter while it was sent"));
              return -1;
            }
          self->file_left -= n;
          return n;
        }
      if (self->file_fd >= 0)
        {
          g_close (self->file_fd, NULL);
          self->file_fd = -1;
          g_byte_array_set_size (self->pending, 0);
          self->pending_at = 0;
          pad (self->pending, self->file_size);
          if (self->pending->len > 0)
            continue;
        }
      if (self->finished)
        return 0;
      if (!assay_docker_archive_open_next (self, error))
        return -1;
    }
}

static gboolean
assay_docker_archive_close (GInputStream  *stream,
                            GCancellable  *cancellable,
                            GError       **error)
{
  AssayDockerArchive *self = ASSAY_DOCKER_ARCHIVE (stream);

  if (self->file_fd >= 0)
    g_close (self->file_fd, NULL);
  self->file_fd = -1;
  return TRUE;
}

static void
assay_docker_archive_finalize (GObject *object)
{
  AssayDockerArchive *self = ASSAY_DOCKER_ARCHIVE (object);

  if (self->file_fd >= 0)
    g_close (self->file_fd, NULL);
  if (self->dir_fd >= 0)
    g_close (self->dir_fd, NULL);
  g_array_unref (self->entries);
  g_byte_array_unref (self->pending);
  G_OBJECT_CLASS (assay_docker_archive_parent_class)->finalize (object);
}

static void
assay_docker_archive_class_init (AssayDockerArchiveClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_docker_archive_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = assay_docker_archive_read;
  G_INPUT_STREAM_CLASS (klass)->close_fn = assay_docker_archive_close;
}

static void
assay_docker_archive_init (AssayDockerArchive *self)
{
  self->dir_fd = -1;
  self->file_fd = -1;
  self->entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_array_set_clear_func (self->entries, entry_clear);
  self->pending = g_byte_array_new ();
}

static gboolean
assay_docker_archive_add (AssayDockerArchive  *self,
                          const char          *name,
                          gboolean             required,
                          GError             **error)
{
  struct stat st;
  Entry entry;

  if (fstatat (self->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode))
    {
      if (!required)
        return TRUE;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, _("“%s” is not a readable file"), name);
      return FALSE;
    }
  entry.name = g_strdup (name);
  entry.size = (guint64) st.st_size;
  g_array_append_val (self->entries, entry);
  return TRUE;
}

GInputStream *
assay_docker_archive_new (const char          *dir,
                          const char * const  *names,
                          guint64             *total_bytes,
                          GError             **error)
{
  g_autoptr(AssayDockerArchive) self = g_object_new (ASSAY_TYPE_DOCKER_ARCHIVE, NULL);
  guint64 total = 2 * BLOCK;

  g_return_val_if_fail (dir != NULL, NULL);

  self->dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (self->dir_fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), _("Cannot open “%s”: %s"), dir,
                   g_strerror (saved_errno));
      return NULL;
    }
  if (names != NULL)
    {
      for (guint i = 0; names[i] != NULL; i++)
        if (strchr (names[i], '/') != NULL || g_str_equal (names[i], ".") || g_str_equal (names[i], "..") ||
            !assay_docker_archive_add (self, names[i], TRUE, error))
          {
            if (error != NULL && *error == NULL)
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME, _("“%s” is not a file name"), names[i]);
            return NULL;
          }
    }
  else
    {
      g_autoptr(GDir) listing = g_dir_open (dir, 0, error);
      const char *name;

      if (listing == NULL)
        return NULL;
      while ((name = g_dir_read_name (listing)) != NULL)
        assay_docker_archive_add (self, name, FALSE, NULL);
    }
  for (guint i = 0; i < self->entries->len; i++)
    total += entry_total (&g_array_index (self->entries, Entry, i));
  if (total_bytes != NULL)
    *total_bytes = total;
  return G_INPUT_STREAM (g_steal_pointer (&self));
}
