/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include "assay-sandbox-limits.h"

void
assay_sandbox_limits_init_defaults (AssaySandboxLimits *limits)
{
  g_return_if_fail (limits != NULL);

  limits->memory_bytes = 2 * (guint64) 1024 * 1024 * 1024;
  limits->cpus = 1.0;
  limits->pids = 256;
  limits->timeout_ms = 60 * 1000;
  limits->grace_ms = 3 * 1000;
  limits->output_bytes = 16 * 1024 * 1024;
  limits->artifact_bytes = 64 * 1024 * 1024;
  limits->artifacts_bytes = 256 * 1024 * 1024;
  limits->artifacts = 1000;
  limits->workspace_bytes = 1024 * (guint64) 1024 * 1024;
  limits->tmp_bytes = 512 * 1024 * 1024;
  limits->file_bytes = 1024 * (guint64) 1024 * 1024;
}

AssaySandboxSpec *
assay_sandbox_spec_new (void)
{
  AssaySandboxSpec *spec = g_new0 (AssaySandboxSpec, 1);

  assay_sandbox_limits_init_defaults (&spec->limits);
  return spec;
}

AssaySandboxSpec *
assay_sandbox_spec_copy (const AssaySandboxSpec *spec)
{
  AssaySandboxSpec *copy;

  g_return_val_if_fail (spec != NULL, NULL);

  copy = g_new0 (AssaySandboxSpec, 1);
  copy->session_id = g_strdup (spec->session_id);
  copy->image_ref = g_strdup (spec->image_ref);
  copy->rootfs_dir = g_strdup (spec->rootfs_dir);
  copy->data_dir = g_strdup (spec->data_dir);
  copy->command = g_strdupv (spec->command);
  copy->resume_id = g_strdup (spec->resume_id);
  copy->limits = spec->limits;
  return copy;
}

void
assay_sandbox_spec_free (AssaySandboxSpec *spec)
{
  if (spec == NULL)
    return;

  g_free (spec->session_id);
  g_free (spec->image_ref);
  g_free (spec->rootfs_dir);
  g_free (spec->data_dir);
  g_strfreev (spec->command);
  g_free (spec->resume_id);
  g_free (spec);
}
