/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The seccomp filter bubblewrap loads into the sandbox (--seccomp FD), as a BPF program in a
 * sealed memfd at offset 0; -1 with ERROR set when it cannot be built.
 *
 * It refuses (EPERM) what draws on quotas the sandbox shares with the desktop user outside
 * it, since its uid maps to theirs: inotify instances, POSIX message queues and kernel keys.
 * Also what a data analysis never needs and an attack often does: bpf, perf_event_open,
 * userfaultfd. BLOCK_MEMFD refuses memfd_create too, for a sandbox without a memory cgroup,
 * where memory behind a memfd would escape the limit (RLIMIT_AS counts only what is mapped). */
int assay_sandbox_seccomp_filter_fd (gboolean   block_memfd,
                                     GError   **error);

G_END_DECLS
