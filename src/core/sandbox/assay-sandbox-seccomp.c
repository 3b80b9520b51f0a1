/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include "assay-sandbox-seccomp.h"

static const char * const refused[] = {
  "inotify_init", "inotify_init1",
  "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
  "add_key", "request_key", "keyctl",
  "bpf", "perf_event_open", "userfaultfd",
};

int
assay_sandbox_seccomp_filter_fd (gboolean   block_memfd,
                                 GError   **error)
{
  scmp_filter_ctx ctx;
  int fd = -1;
  int rc;

  ctx = seccomp_init (SCMP_ACT_ALLOW);
  if (ctx == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "seccomp_init failed");
      return -1;
    }

  for (guint i = 0; i < G_N_ELEMENTS (refused) + (block_memfd ? 1 : 0); i++)
    {
      const char *name = i < G_N_ELEMENTS (refused) ? refused[i] : "memfd_create";
      int nr = seccomp_syscall_resolve_name (name);

      if (nr == __NR_SCMP_ERROR)
        continue;   /* not a syscall on this architecture */
      rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), nr, 0);
      if (rc < 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                       "cannot add the seccomp rule for %s: %s", name, g_strerror (-rc));
          goto out;
        }
    }

  fd = memfd_create ("assay-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot hold the seccomp filter: %s", g_strerror (errno));
      goto out;
    }
  rc = seccomp_export_bpf (ctx, fd);
  if (rc < 0 || lseek (fd, 0, SEEK_SET) != 0 ||
      fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write the seccomp filter: %s",
                   g_strerror (rc < 0 ? -rc : errno));
      close (fd);
      fd = -1;
    }

out:
  seccomp_release (ctx);
  return fd;
}
