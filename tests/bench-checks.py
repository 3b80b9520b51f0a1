#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: what the kernel's checks (reads of /data, merges, drop_duplicates, dropna, files
opened) add to the reference sales case's cells. The same six cells run through
`assay-cli exec` with the checks on and, as the baseline in the same run, with --no-checks,
alternately; the user code's own time (code_ms) of each run is summed. Goal: at most 2 %.
Prints figures, never fails on them.

    bench-checks.py ASSAY_CLI [ROUNDS] [BACKEND]"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "demo")
CLI = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
BACKEND = sys.argv[3] if len(sys.argv) > 3 else "bwrap"
TRANSCRIPT = os.path.join(HERE, "sales-transcript.json")

work = tempfile.mkdtemp(prefix="assay-bench-checks-")
csv = os.path.join(work, "sales.csv")
subprocess.run([sys.executable, os.path.join(HERE, "make_sales_csv.py"), csv], check=True,
               stdout=subprocess.DEVNULL)
cells = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e", "transcript_cells.py"), TRANSCRIPT,
                        os.path.join(work, "cells")], check=True, capture_output=True,
                       text=True).stdout.split()


def run(checks):
    cmd = [CLI, "exec", "--backend", BACKEND, "--json", "--data", csv]
    if not checks:
        cmd.append("--no-checks")
    proc = subprocess.run(cmd + cells, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("bench-checks: exec failed (%d):\n%s" % (proc.returncode, proc.stderr[-3000:]))
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if len(results) != len(cells) or any(r["status"] != "ok" for r in results):
        sys.exit("bench-checks: a cell failed:\n%s" % proc.stdout[-3000:])
    return sum(r["code_ms"] for r in results), sum(1 for r in results if r.get("checks"))


on, off = [], []
with_checks = 0
run(True)   # warm the page cache and the image
for _ in range(ROUNDS):
    ms, n = run(True)
    on.append(ms)
    with_checks = n
    off.append(run(False)[0])

base, checked = statistics.median(off), statistics.median(on)
print("bench-checks: the sales case's %d cells on %s, %d rounds (%d cells reported checks)"
      % (len(cells), BACKEND, ROUNDS, with_checks))
print("  checks off (baseline): median %.0f ms of code time" % base)
print("  checks on:             median %.0f ms of code time (%+.1f %%; goal at most +2 %%)"
      % (checked, (checked / base - 1) * 100 if base else 0))
