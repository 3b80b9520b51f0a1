/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "assay-types.h"

G_BEGIN_DECLS

/* What one session's sandbox may use. Every field is a hard cap. */
struct _AssaySandboxLimits
{
  guint64 memory_bytes;      /* RAM of the whole sandbox (no swap on top) */
  double  cpus;              /* CPU share, 1.0 = one core */
  guint   pids;              /* processes and threads */
  guint   timeout_ms;        /* wall time of one cell before it is interrupted */
  guint   grace_ms;          /* after the interrupt, before the sandbox is killed */
  guint64 output_bytes;      /* stream text per cell */
  guint64 artifact_bytes;    /* one artifact */
  guint64 artifacts_bytes;   /* all the artifacts of one cell together */
  guint   artifacts;         /* artifacts per cell */
  guint64 workspace_bytes;   /* size of /workspace */
  guint64 tmp_bytes;         /* size of /tmp */
  guint64 file_bytes;        /* largest file a process may write (RLIMIT_FSIZE) */
};

void assay_sandbox_limits_init_defaults (AssaySandboxLimits *limits);

/* Everything a backend needs to start one sandbox. Owned by the caller. */
struct _AssaySandboxSpec
{
  char               *session_id;   /* used in labels and cgroup names: [a-z0-9-] only */
  char               *image_ref;    /* Docker: "assay-sandbox:<hash>" */
  char               *rootfs_dir;   /* bubblewrap: the unpacked tree */
  char               *data_dir;     /* host folder shown read-only at /data */
  char              **command;      /* NULL: the kernel; else this program (benchmarks) */
  char               *resume_id;    /* a sandbox kept for later to resume (E2B), or NULL */
  AssaySandboxLimits  limits;
};

AssaySandboxSpec *assay_sandbox_spec_new  (void);
AssaySandboxSpec *assay_sandbox_spec_copy (const AssaySandboxSpec *spec);
void              assay_sandbox_spec_free (AssaySandboxSpec *spec);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssaySandboxSpec, assay_sandbox_spec_free)

G_END_DECLS
