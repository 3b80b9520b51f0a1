/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include "assay-app-types.h"
#include "assay-resources.h"

void
assay_app_ensure_resources (void)
{
  static gsize registered = 0;

  if (g_once_init_enter (&registered))
    {
      assay_register_resource ();
      g_once_init_leave (&registered, 1);
    }
}
