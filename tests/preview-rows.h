/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The values tests/data/make-rows.py writes, for the tests and the benchmark. */
#pragma once

#include <glib.h>

#define PREVIEW_ROWS_COLUMNS 5

static inline char *
preview_rows_expected (guint64 i,
                       guint   column)
{
  static const char * const categories[] = { "alpha", "beta", "gamma", "delta" };
  guint64 v = i * 7919 % 100000;

  switch (column)
    {
    case 0:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, i);
    case 1:
      return g_strdup_printf ("name-%" G_GUINT64_FORMAT, i);
    case 2:
      return g_strdup_printf ("%" G_GUINT64_FORMAT ".%02" G_GUINT64_FORMAT, v / 100, v % 100);
    case 3:
      return g_strdup (categories[i % 4]);
    case 4:
      return i % 10 == 0 ? g_strdup ("") : g_strdup_printf ("n%" G_GUINT64_FORMAT, i % 97);
    default:
      g_assert_not_reached ();
    }
}
