#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a deterministic CSV of N rows for the row model, the preview tests and benchmarks.
Row i is: i, "name-i", (i * 7919 % 100000) / 100 with two decimals, one of four categories
(i % 4), and a note that is empty (null) when i % 10 == 0, else "n" + str(i % 97).
Usage: make-rows.py OUT N"""

import os
import sys

out, n = sys.argv[1], int(sys.argv[2])
CATEGORIES = ["alpha", "beta", "gamma", "delta"]
tmp = out + ".tmp"
with open(tmp, "w", encoding="utf-8", newline="") as f:
    f.write("id,name,value,category,note\n")
    chunk = []
    for i in range(n):
        v = i * 7919 % 100000
        note = "" if i % 10 == 0 else f"n{i % 97}"
        chunk.append(f"{i},name-{i},{v // 100}.{v % 100:02d},{CATEGORIES[i % 4]},{note}\n")
        if len(chunk) == 20000:
            f.write("".join(chunk))
            chunk = []
    f.write("".join(chunk))
os.replace(tmp, out)
