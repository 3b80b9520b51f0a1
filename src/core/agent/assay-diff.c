/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A unified diff of two cells' code, for "what changed since the previous attempt". Cells
 * are short: a longest-common-subsequence table over lines is plenty. */
#define G_LOG_DOMAIN "Assay-Agent"

#include "config.h"

#include <string.h>

#include "assay-diff.h"

/* Beyond this many lines on both sides the table is not worth it: all out, all in. */
#define MAX_TABLE_CELLS (4 * 1024 * 1024)

typedef struct
{
  char op;        /* ' ', '-' or '+' */
  guint old_line; /* 0-based index in the old lines (for ' ' and '-') */
  guint new_line; /* in the new lines (for ' ' and '+') */
} Edit;

static char **
assay_diff_split_lines (const char *text,
                        guint      *n)
{
  char **lines = g_strsplit (text ? text : "", "\n", -1);
  guint len = g_strv_length (lines);

  /* A final newline ends the last line; it does not start another. */
  if (len > 0 && lines[len - 1][0] == '\0')
    {
      g_free (lines[len - 1]);
      lines[--len] = NULL;
    }
  *n = len;
  return lines;
}

static GArray *
assay_diff_edit_script (char  **a,
                        guint   na,
                        char  **b,
                        guint   nb)
{
  GArray *edits = g_array_new (FALSE, FALSE, sizeof (Edit));
  guint32 *table = NULL;
  guint i = 0, j = 0;
  gsize width = (gsize) nb + 1;

  if ((gsize) (na + 1) * width <= MAX_TABLE_CELLS)
    {
      table = g_new0 (guint32, (gsize) (na + 1) * width);
      for (guint ii = na; ii-- > 0;)
        for (guint jj = nb; jj-- > 0;)
          table[ii * width + jj] = g_str_equal (a[ii], b[jj])
            ? table[(ii + 1) * width + jj + 1] + 1
            : MAX (table[(ii + 1) * width + jj], table[ii * width + jj + 1]);
    }

  while (i < na || j < nb)
    {
      Edit edit = { 0 };

      if (table != NULL && i < na && j < nb && g_str_equal (a[i], b[j]))
        edit = (Edit) { ' ', i++, j++ };
      else if (i < na && (j >= nb || table == NULL ||
                          table[(i + 1) * width + j] >= table[i * width + j + 1]))
        edit = (Edit) { '-', i++, j };
      else
        edit = (Edit) { '+', i, j++ };
      g_array_append_val (edits, edit);
    }
  g_free (table);
  return edits;
}

char *
assay_diff_unified (const char *old_text,
                    const char *new_text,
                    const char *old_label,
                    const char *new_label,
                    guint       context)
{
  g_auto(GStrv) a = NULL;
  g_auto(GStrv) b = NULL;
  g_autoptr(GArray) edits = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  guint na, nb;
  guint k = 0;

  a = assay_diff_split_lines (old_text, &na);
  b = assay_diff_split_lines (new_text, &nb);
  edits = assay_diff_edit_script (a, na, b, nb);

  while (k < edits->len)
    {
      guint first_change, start, end, last_change;
      guint old_start = 0, new_start = 0, old_count = 0, new_count = 0;
      gboolean have_start = FALSE;

      /* The next change, and the hunk around it: changes closer than 2 × CONTEXT join. */
      while (k < edits->len && g_array_index (edits, Edit, k).op == ' ')
        k++;
      if (k >= edits->len)
        break;
      first_change = k;
      last_change = k;
      for (guint m = k; m < edits->len; m++)
        {
          if (g_array_index (edits, Edit, m).op == ' ')
            continue;
          if (m - last_change > 2 * context)
            break;
          last_change = m;
        }
      start = first_change > context ? first_change - context : 0;
      end = MIN (last_change + context + 1, edits->len);

      for (guint m = start; m < end; m++)
        {
          Edit *e = &g_array_index (edits, Edit, m);

          if (!have_start)
            {
              old_start = e->old_line;
              new_start = e->new_line;
              have_start = TRUE;
            }
          if (e->op != '+')
            old_count++;
          if (e->op != '-')
            new_count++;
        }

      if (out->len == 0)
        g_string_append_printf (out, "--- %s\n+++ %s\n",
                                old_label ? old_label : "a", new_label ? new_label : "b");
      g_string_append_printf (out, "@@ -%u,%u +%u,%u @@\n",
                              old_count ? old_start + 1 : old_start, old_count,
                              new_count ? new_start + 1 : new_start, new_count);
      for (guint m = start; m < end; m++)
        {
          Edit *e = &g_array_index (edits, Edit, m);

          g_string_append_c (out, e->op);
          g_string_append (out, e->op == '+' ? b[e->new_line] : a[e->old_line]);
          g_string_append_c (out, '\n');
        }
      k = end;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
