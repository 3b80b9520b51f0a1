/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include "assay-mapped.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Mappings the SIGBUS handler knows. A file past this many open at once is read into
 * memory instead, which needs no guard. */
#define N_SLOTS 256

typedef struct
{
  gpointer start;     /* NULL when free */
  gsize    len;
  gint     damaged;
} Slot;

struct _AssayMapped
{
  char  *data;
  gsize  len;
  Slot  *slot;        /* NULL when the file was read rather than mapped */
  gboolean owned;     /* data is g_malloc'ed */
};

static Slot slots[N_SLOTS];
static GMutex slots_mutex;
static struct sigaction previous_action;
static long page_size;

static void
assay_mapped_sigbus_handler (int        signum,
                             siginfo_t *info,
                             void      *context)
{
  char *address = info->si_addr;

  for (guint i = 0; i < N_SLOTS; i++)
    {
      char *start = __atomic_load_n (&slots[i].start, __ATOMIC_ACQUIRE);
      gsize len = __atomic_load_n (&slots[i].len, __ATOMIC_RELAXED);

      if (start != NULL && address >= start && address < start + len)
        {
          char *page = (char *) ((guintptr) address & ~((guintptr) page_size - 1));

          /* The page comes back as zeroes; the access is retried on return. */
          if (mmap (page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
            {
              __atomic_store_n (&slots[i].damaged, 1, __ATOMIC_RELEASE);
              return;
            }
          break;
        }
    }

  /* Not ours: hand it on, or let the retried access die the way it would have. */
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != NULL)
    {
      previous_action.sa_sigaction (signum, info, context);
      return;
    }
  if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN &&
      previous_action.sa_handler != NULL)
    {
      previous_action.sa_handler (signum);
      return;
    }
  signal (SIGBUS, SIG_DFL);
}

static void
assay_mapped_install_handler (void)
{
  static gsize installed = 0;

  if (g_once_init_enter (&installed))
    {
      struct sigaction action = { 0 };

      page_size = sysconf (_SC_PAGESIZE);
      action.sa_sigaction = assay_mapped_sigbus_handler;
      action.sa_flags = SA_SIGINFO | SA_NODEFER;
      sigemptyset (&action.sa_mask);
      sigaction (SIGBUS, &action, &previous_action);
      g_once_init_leave (&installed, 1);
    }
}

static Slot *
assay_mapped_claim_slot (gpointer start,
                         gsize    len)
{
  Slot *slot = NULL;

  g_mutex_lock (&slots_mutex);
  for (guint i = 0; i < N_SLOTS; i++)
    if (slots[i].start == NULL)
      {
        slot = &slots[i];
        slot->len = len;
        slot->damaged = 0;
        __atomic_store_n (&slot->start, start, __ATOMIC_RELEASE);
        break;
      }
  g_mutex_unlock (&slots_mutex);
  return slot;
}

AssayMapped *
assay_mapped_new (const char  *path,
                  GError     **error)
{
  AssayMapped *self;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      int saved = errno;
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("Cannot open “%s”: %s"), display, g_strerror (saved));
      return NULL;
    }
  self = assay_mapped_new_for_fd (fd, path, error);
  close (fd);
  return self;
}

AssayMapped *
assay_mapped_new_for_fd (int          fd,
                         const char  *path,
                         GError     **error)
{
  g_autofree char *display = NULL;
  AssayMapped *self;
  struct stat st = { 0, };

  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      int saved = S_ISREG (st.st_mode) ? errno : EINVAL;

      display = g_filename_display_name (path);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("Cannot open “%s”: %s"), display,
                   saved == EINVAL ? _("it is not a regular file") : g_strerror (saved));
      return NULL;
    }

  assay_mapped_install_handler ();
  self = g_new0 (AssayMapped, 1);
  self->len = st.st_size;
  if (self->len == 0)
    {
      self->data = g_strdup ("");
      self->owned = TRUE;
      return self;
    }

  self->data = mmap (NULL, self->len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (self->data == MAP_FAILED)
    {
      int saved = errno;

      g_free (self);
      display = g_filename_display_name (path);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("Cannot read “%s”: %s"), display, g_strerror (saved));
      return NULL;
    }
  self->slot = assay_mapped_claim_slot (self->data, self->len);
  if (self->slot == NULL)
    {
      /* Every guard is taken: a plain copy in memory cannot fault. */
      char *copy = g_try_malloc (self->len);
      gsize done = 0;

      munmap (self->data, self->len);
      self->data = copy;
      self->owned = TRUE;
      while (copy != NULL && done < self->len)
        {
          ssize_t n = pread (fd, copy + done, self->len - done, done);

          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            break;
          done += n;
        }
      if (copy == NULL || done < self->len)
        {
          g_free (copy);
          g_free (self);
          display = g_filename_display_name (path);
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                       _("Cannot read “%s” into memory"), display);
          return NULL;
        }
    }
  return self;
}

const char *
assay_mapped_get_data (AssayMapped *self)
{
  return self->data;
}

gsize
assay_mapped_get_length (AssayMapped *self)
{
  return self->len;
}

gboolean
assay_mapped_is_damaged (AssayMapped *self)
{
  return self->slot != NULL && __atomic_load_n (&self->slot->damaged, __ATOMIC_ACQUIRE) != 0;
}

/* Fails with a reason the analyst can act on when the file shrank while it was read. */
gboolean
assay_mapped_check (AssayMapped  *self,
                    const char   *path,
                    GError      **error)
{
  g_autofree char *display = NULL;

  if (!assay_mapped_is_damaged (self))
    return TRUE;
  display = g_filename_display_name (path);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("“%s” was cut short by another program while Assay read it; open it again"),
               display);
  return FALSE;
}

void
assay_mapped_free (AssayMapped *self)
{
  if (self == NULL)
    return;
  if (self->owned)
    g_free (self->data);
  else
    {
      /* Unregister first: a page the handler replaces after this would leak, not fault. */
      if (self->slot != NULL)
        {
          g_mutex_lock (&slots_mutex);
          __atomic_store_n (&self->slot->start, NULL, __ATOMIC_RELEASE);
          g_mutex_unlock (&slots_mutex);
        }
      munmap (self->data, self->len);
    }
  g_free (self);
}
