/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AssayAgent             AssayAgent;
typedef struct _AssayCellResult        AssayCellResult;
typedef struct _AssayDockerClient      AssayDockerClient;
typedef struct _AssayKernelSession     AssayKernelSession;
typedef struct _AssaySandboxBackend    AssaySandboxBackend;
typedef struct _AssaySandboxImage      AssaySandboxImage;
typedef struct _AssaySandboxInstance   AssaySandboxInstance;
typedef struct _AssaySandboxLimits     AssaySandboxLimits;
typedef struct _AssaySandboxSpec       AssaySandboxSpec;
typedef struct _AssaySession           AssaySession;

/* Progress of a long operation: fraction in [0,1] or negative when unknown. */
typedef void (*AssayProgressFunc) (double      fraction,
                                   const char *message,
                                   gpointer    user_data);

G_END_DECLS
