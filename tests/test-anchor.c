/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Anchors: a traced number follows its line's label into new output, or is stale. */
#include <glib.h>

#include "assay-anchor.h"

typedef struct
{
  AssayAnchorStatus status;
  double            value;
  guint             line;
} Followed;

static Followed
follow (const char *old_text,
        guint       line,
        guint       k,
        const char *new_text)
{
  const char *olds[] = { old_text };
  const char *news[] = { new_text };
  g_autoptr(AssayAnchorTexts) old = assay_anchor_texts_new (olds, 1, FALSE);
  g_autoptr(AssayAnchorTexts) new = assay_anchor_texts_new (news, 1, FALSE);
  AssayAnchorMatch match;
  Followed followed = { 0 };

  assay_anchor_follow (old, 0, line, k, new, &match);
  followed.status = match.status;
  followed.value = match.value;
  followed.line = match.line;
  assay_anchor_match_clear (&match);
  return followed;
}

static gboolean
order_changed (const char *old_text,
               const char *new_text)
{
  const char *olds[] = { old_text };
  const char *news[] = { new_text };
  g_autoptr(AssayAnchorTexts) old = assay_anchor_texts_new (olds, 1, FALSE);
  g_autoptr(AssayAnchorTexts) new = assay_anchor_texts_new (news, 1, FALSE);

  return assay_anchor_order_changed (old, new, NULL, 0);
}

#define REGIONS_OLD "Revenue by region:\nNorth: 10488.25\nWest: 8629.75\nSouth: 7777.00\nEast: 7245.00\n"
#define REGIONS_NEW "Revenue by region:\nNorth: 11000.50\nSouth: 8629.75\nEast: 7777.00\nWest: 7245.00\n"

/* The ranking changed: each number follows its region, never the line it stood on. */
static void
test_sorted_lines (void)
{
  Followed f;

  f = follow (REGIONS_OLD, 3, 0, REGIONS_NEW);   /* West */
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 7245.00);
  g_assert_cmpuint (f.line, ==, 5);
  f = follow (REGIONS_OLD, 4, 0, REGIONS_NEW);   /* South */
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 8629.75);
  f = follow (REGIONS_OLD, 2, 0, REGIONS_NEW);   /* North */
  g_assert_cmpfloat (f.value, ==, 11000.50);
  g_assert_true (order_changed (REGIONS_OLD, REGIONS_NEW));
  /* Only the values changed: the same order. */
  g_assert_false (order_changed (REGIONS_OLD, "Revenue by region:\nNorth: 1.5\nWest: 1.25\nSouth: 1.0\nEast: 0.5\n"));
}

/* A region that is gone, or that is twice in the output, is stale. */
static void
test_gone_and_ambiguous (void)
{
  Followed f;

  f = follow (REGIONS_OLD, 5, 0, "Revenue by region:\nNorth: 1\nWest: 2\nSouth: 3\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_GONE);
  f = follow (REGIONS_OLD, 3, 0, "Revenue by region:\nWest: 1\nWest: 2\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_AMBIGUOUS);
  /* Lines alike but for a whole number before the value: it tells them apart. */
  f = follow ("rank 1: 530.00\nrank 2: 480.00\n", 2, 1, "rank 1: 610.00\nrank 2: 590.00\nrank 3: 100.00\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 590.00);
  /* Lines with nothing but a number, several of them: no way to tell. */
  f = follow ("10\n20\n30\n", 2, 0, "30\n20\n10\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_AMBIGUOUS);
}

/* A label that was itself a value: another customer on top makes the number stale. */
static void
test_label_is_a_value (void)
{
  Followed f;

  /* "egor.3" is a name, not a number: 530.00 is the line's first number. */
  f = follow ("Top customer: egor.3 with 530.00\n", 1, 0, "Top customer: anna.40 with 610.00\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_GONE);
  f = follow ("Top customer: egor.3 with 530.00\n", 1, 0, "Top customer: egor.3 with 610.00\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 610.00);
}

#define FRAME_OLD "         revenue  orders\nregion                  \nNorth   10488.25     120\nWest     8629.75      98\n"
#define FRAME_NEW "         revenue  orders\nregion                  \nWest    12000.00     130\nNorth    9000.25      80\n"

/* A DataFrame sorted by value: the row follows its index, the column its place under the
 * same header; another header (other columns) is stale. */
static void
test_frame (void)
{
  Followed f;
  g_autofree char *label = NULL;

  f = follow (FRAME_OLD, 3, 1, FRAME_NEW);   /* North's orders */
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 80);
  f = follow (FRAME_OLD, 4, 0, FRAME_NEW);   /* West's revenue */
  g_assert_cmpfloat (f.value, ==, 12000.00);
  f = follow (FRAME_OLD, 3, 0, "         revenue  returns\nregion\nNorth   1.0  2\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_RESHAPED);
  /* A column more: the row's label has another number in it, so it is not the same row. */
  f = follow (FRAME_OLD, 3, 0, "         revenue  orders  share\nregion\nNorth   1.0  2  0.5\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_GONE);
  /* A pivot whose columns are months: other months, other columns. */
  f = follow ("month     7    8    9\nregion               \nNorth   100  200  300\n", 3, 0,
              "month     8    9   10\nregion               \nNorth   200  300  400\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_RESHAPED);
  f = follow ("month     7    8    9\nregion               \nNorth   100  200  300\n", 3, 1,
              "month     7    8    9\nregion               \nNorth   110  210  310\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 210);
  /* Unnamed, the header is indented over the index. */
  f = follow ("         7    8    9\nNorth  100  200  300\n", 2, 0, "         8    9   10\nNorth  200  300  400\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_RESHAPED);

  label = assay_anchor_describe (FRAME_OLD, FALSE, 3, 1);
  g_assert_cmpstr (label, ==, "North · orders");
  g_clear_pointer (&label, g_free);
  label = assay_anchor_describe (REGIONS_OLD, FALSE, 3, 0);
  g_assert_cmpstr (label, ==, "West: …");
  g_clear_pointer (&label, g_free);
  label = assay_anchor_describe ("Top customer: egor.3 with 530.00\n", FALSE, 1, 0);
  g_assert_cmpstr (label, ==, "Top customer: egor.3 with …");
  g_assert_null (assay_anchor_describe (REGIONS_OLD, FALSE, 3, 1));
  g_assert_null (assay_anchor_describe (REGIONS_OLD, FALSE, 40, 0));
  /* A title over a table's header is not its header; over rows, the rows are no table. */
  label = assay_anchor_describe ("Class A products:\n           revenue  cum_pct class\nproduct                          \n"
                                 "Keyra TKL  46862.2     80.3     A\n", FALSE, 4, 1);
  g_assert_cmpstr (label, ==, "Keyra TKL A · cum_pct");
  g_clear_pointer (&label, g_free);
  label = assay_anchor_describe ("Removed:\n  exact duplicate rows      667\n  total                     953\n", FALSE, 3, 0);
  g_assert_cmpstr (label, ==, "total …");
  g_clear_pointer (&label, g_free);
}

/* Dates and times are values, not labels: a line keeps its label when its dates change; lines
 * told apart by their dates follow them. A line of prose with several numbers is no table row. */
static void
test_dates_and_prose (void)
{
  Followed f;
  g_autofree char *label = NULL;

  f = follow ("Dates: 2026-07-01 .. 2026-09-30\nClean data: 44,209 rows, 2026-07-01 08:00 .. 2026-09-30 17:45\n", 2, 0,
              "Dates: 2026-10-01 .. 2026-12-31\nClean data: 45,001 rows, 2026-10-01 09:00 .. 2026-12-31 18:00\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 45001);
  f = follow ("Revenue on 2026-07-01: 100.5\nRevenue on 2026-07-02: 200.5\n", 2, 0,
              "Revenue on 2026-07-02: 210.5\nRevenue on 2026-07-01: 110.5\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 210.5);
  f = follow ("Revenue on 2026-07-01: 100.5\nRevenue on 2026-07-02: 200.5\n", 2, 0,
              "Revenue on 2026-10-01: 210.5\nRevenue on 2026-10-02: 110.5\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_GONE);
  /* Prose under a first line that changed: no header, no column. */
  f = follow ("Shape: 45,162 rows x 5 columns\nAverage order: EUR 308.36 over 5,356 purchases\n", 2, 1,
              "Shape: 46,000 rows x 5 columns\nAverage order: EUR 311.00 over 5,400 purchases\n");
  g_assert_cmpint (f.status, ==, ASSAY_ANCHOR_FOUND);
  g_assert_cmpfloat (f.value, ==, 5400);
  label = assay_anchor_describe ("Shape: 45,162 rows x 5 columns\nAverage order: EUR 308.36 over 5,356 purchases\n",
                                 FALSE, 2, 1);
  g_assert_cmpstr (label, ==, "Average order: EUR 308.36 over … purchases");
}

/* A DataFrame's HTML table (its cells two spaces apart): the column by its header's cell. */
static void
test_cells (void)
{
  const char *olds[] = { "  revenue  orders\nregion\nNorth  10488.25  120\nWest  8629.75  98\n" };
  const char *same[] = { "  revenue  orders\nregion\nWest  9000.5  99\nNorth  10000.25  110\n" };
  const char *swapped[] = { "  orders  revenue\nregion\nNorth  110  10000.25\n" };
  g_autoptr(AssayAnchorTexts) old = assay_anchor_texts_new (olds, 1, TRUE);
  g_autoptr(AssayAnchorTexts) now = assay_anchor_texts_new (same, 1, TRUE);
  g_autoptr(AssayAnchorTexts) other = assay_anchor_texts_new (swapped, 1, TRUE);
  g_autofree char *label = NULL;
  AssayAnchorMatch match;

  g_assert_true (assay_anchor_follow (old, 0, 3, 1, now, &match));
  g_assert_cmpfloat (match.value, ==, 110);
  assay_anchor_match_clear (&match);
  g_assert_false (assay_anchor_follow (old, 0, 3, 1, other, &match));
  g_assert_cmpint (match.status, ==, ASSAY_ANCHOR_RESHAPED);
  assay_anchor_match_clear (&match);
  label = assay_anchor_describe (olds[0], TRUE, 4, 0);
  g_assert_cmpstr (label, ==, "West · revenue");
  g_clear_pointer (&label, g_free);
  /* Printed text with letters of two bytes: columns line up by characters. */
  label = assay_anchor_describe ("       выручка  заказы\nСевер  1000.50     120\n", FALSE, 2, 1);
  g_assert_cmpstr (label, ==, "Север · заказы");
}

/* Several outputs of a cell: a label is looked for in all of them, an output added before it
 * (a warning, a second print) does not move it. */
static void
test_outputs (void)
{
  const char *olds[] = { "Revenue by region:\nNorth: 10\n", NULL, "Total: 30\n" };
  const char *news[] = { "warning: something\n", "Revenue by region:\nNorth: 12\n", NULL, "Total: 31\n" };
  g_autoptr(AssayAnchorTexts) old = assay_anchor_texts_new (olds, G_N_ELEMENTS (olds), FALSE);
  g_autoptr(AssayAnchorTexts) new = assay_anchor_texts_new (news, G_N_ELEMENTS (news), FALSE);
  AssayAnchorMatch match;

  g_assert_true (assay_anchor_follow (old, 2, 1, 0, new, &match));
  g_assert_cmpuint (match.text, ==, 3);
  g_assert_cmpfloat (match.value, ==, 31);
  g_assert_cmpfloat (match.old_value, ==, 30);
  g_assert_cmpstr (match.line_text, ==, "Total: 31");
  assay_anchor_match_clear (&match);
  g_assert_false (assay_anchor_follow (old, 1, 1, 0, new, &match));   /* no text there */
  g_assert_cmpint (match.status, ==, ASSAY_ANCHOR_INVALID);
  assay_anchor_match_clear (&match);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/assay/anchor/sorted-lines", test_sorted_lines);
  g_test_add_func ("/assay/anchor/gone-and-ambiguous", test_gone_and_ambiguous);
  g_test_add_func ("/assay/anchor/label-is-a-value", test_label_is_a_value);
  g_test_add_func ("/assay/anchor/frame", test_frame);
  g_test_add_func ("/assay/anchor/outputs", test_outputs);
  g_test_add_func ("/assay/anchor/dates-and-prose", test_dates_and_prose);
  g_test_add_func ("/assay/anchor/cells", test_cells);
  return g_test_run ();
}
