#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks what the reference sales case produced: three charts and a readable PDF.

Usage: check_sales_case.py [--expect TEXT]... DIR

DIR is a session folder or an artifact folder; it is searched recursively, and files are
matched by a part of their name (a session may store "monthly_sales.png" as
"c3-monthly_sales.png" or similar). Prints TAP; exits 0 when every check passes.

  - monthly_sales, abc_pareto and funnel: each a PNG (signature, size, dimensions);
  - sales_report .pdf: a PDF whose text (pdftotext) has the report title and at least
    one key number of the reference data (or one of the --expect texts), and which
    holds at least 3 images (pdfimages -list).

Standard library, plus pdftotext and pdfimages from poppler-utils.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys

CHARTS = ["monthly_sales", "abc_pareto", "funnel"]
REPORT = "sales_report"
TITLE = "Q3 2026 Sales Report"
# What the recorded transcript computes from make_sales_csv.py's data: total revenue,
# purchases, paying customers, visit-to-purchase conversion.
KEY_NUMBERS = ["1,651,593.25", "5,435", "3,872", "26.8%"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_PNG_BYTES = 5000
MIN_PNG_SIDE = 200


class Tap:
    def __init__(self, plan):
        self.n = 0
        self.failed = 0
        print("1..%d" % plan)

    def check(self, name, ok, diagnostics=()):
        self.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, name))
        for line in diagnostics:
            for part in str(line).splitlines() or [""]:
                print("# " + part)
        if not ok:
            self.failed += 1
        return ok


def find(root, part, suffix):
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            if part in name and name.lower().endswith(suffix):
                found.append(os.path.join(folder, name))
    return sorted(found)


def png_problem(path):
    """None when PATH is a non-trivial PNG, else what is wrong with it."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(24)
    if not head.startswith(PNG_SIGNATURE):
        return "no PNG signature"
    if head[12:16] != b"IHDR":
        return "no IHDR chunk first"
    width, height = struct.unpack(">II", head[16:24])
    if size < MIN_PNG_BYTES:
        return "only %d bytes" % size
    if width < MIN_PNG_SIDE or height < MIN_PNG_SIDE:
        return "only %dx%d pixels" % (width, height)
    return None


def run(argv):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except OSError as e:
        return None, str(e)
    if p.returncode != 0:
        return None, "%s exited with %d: %s" % (argv[0], p.returncode,
                                                p.stderr.decode("utf-8", "replace").strip())
    return p.stdout.decode("utf-8", "replace"), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--expect", action="append", default=[],
                        help="a key number the PDF text may show instead of the defaults")
    args = parser.parse_args()

    tap = Tap(len(CHARTS) + 3)
    if not os.path.isdir(args.dir):
        print("# %s is not a folder" % args.dir)

    for chart in CHARTS:
        candidates = find(args.dir, chart, ".png")
        problems = ["%s: %s" % (c, png_problem(c)) for c in candidates if png_problem(c)]
        good = [c for c in candidates if not png_problem(c)]
        tap.check("the %s chart is a PNG" % chart, bool(good),
                  problems if candidates else ["no *%s*.png under %s" % (chart, args.dir)])

    pdfs = find(args.dir, REPORT, ".pdf")
    pdf = None
    for candidate in pdfs:
        with open(candidate, "rb") as f:
            if f.read(5) == b"%PDF-":
                pdf = candidate
                break
    tap.check("the report %s is a PDF" % REPORT, pdf is not None,
              ["candidates: %s" % (pdfs or "none")] if pdf is None else ["found " + pdf])

    missing_tools = [t for t in ("pdftotext", "pdfimages") if shutil.which(t) is None]
    if missing_tools:
        print("# %s not found: install poppler-utils" % " and ".join(missing_tools))

    text, error = (None, "no PDF") if pdf is None else run(["pdftotext", "-layout", pdf, "-"])
    if text is None:
        tap.check("the PDF text has the title and a key number", False, [error])
    else:
        flat = " ".join(text.split())
        wanted = args.expect + KEY_NUMBERS
        seen = [k for k in wanted if k in flat]
        tap.check("the PDF text has the title and a key number", TITLE in flat and bool(seen),
                  ["title %r: %s" % (TITLE, "found" if TITLE in flat else "missing"),
                   "key numbers found: %s (of %s)" % (seen or "none", wanted)])

    listing, error = (None, "no PDF") if pdf is None else run(["pdfimages", "-list", pdf])
    if listing is None:
        tap.check("the PDF holds at least 3 images", False, [error])
    else:
        # Lines after the two header lines: page num type width height ...; a PNG with
        # alpha adds an "smask" line beside its "image" line.
        rows = [l.split() for l in listing.splitlines()[2:] if l.strip()]
        images = [r for r in rows if len(r) > 2 and r[2] == "image"]
        tap.check("the PDF holds at least 3 images", len(images) >= 3,
                  ["%d images in %s" % (len(images), pdf)])

    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
