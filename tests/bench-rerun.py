#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: `assay-cli rerun` of the six-cell reference sales case on the next quarter's file,
with each backend. Prints the wall time of the rerun next to the original session's cell times
(the baseline, from the same run's `assay-cli ask`). Goal: at most 3 s with Docker. Figures,
never a pass/fail.

    bench-rerun.py ASSAY_CLI [ROUNDS]"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "demo")
CLI = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
work = tempfile.mkdtemp(prefix="assay-bench-rerun-")
for quarter, folder in (("", "q3"), ("q4", "q4")):
    os.makedirs(os.path.join(work, folder))
    subprocess.run([sys.executable, os.path.join(HERE, "make_sales_csv.py"),
                    os.path.join(work, folder, "sales.csv")] + ([quarter] if quarter else []),
                   check=True, stdout=subprocess.DEVNULL)

for backend in ("docker", "bwrap"):
    origin = os.path.join(work, "s-" + backend)
    began = time.monotonic()
    proc = subprocess.run([CLI, "ask", "--backend", backend, "--provider", "recorded", "--transcript",
                           os.path.join(HERE, "sales-transcript.json"), "--data",
                           os.path.join(work, "q3", "sales.csv"), "--yes", "--out", origin, "Analyse Q3 sales"],
                          capture_output=True, text=True)
    ask_wall = time.monotonic() - began
    if proc.returncode != 0:
        print("bench-rerun: %s: the original session could not be made: %s" % (backend, proc.stderr[-500:]))
        continue
    record = json.load(open(os.path.join(origin, "session.json")))
    cell_ms = sum(c.get("elapsed_ms", 0) for c in record["cells"])
    walls = []
    for r in range(ROUNDS):
        out = os.path.join(work, "r-%s-%d" % (backend, r))
        began = time.monotonic()
        proc = subprocess.run([CLI, "rerun", origin, "--backend", backend, "--data",
                               "sales.csv=" + os.path.join(work, "q4", "sales.csv"), "--out", out, "--json"],
                              capture_output=True, text=True)
        walls.append(time.monotonic() - began)
        if proc.returncode != 0:
            print("bench-rerun: %s: rerun failed (%d): %s" % (backend, proc.returncode, proc.stderr[-500:]))
            break
    if walls:
        print("bench-rerun %s: rerun median %.2f s wall over %d rounds (goal with Docker: at most 3 s); "
              "the original session: %.2f s of cell time, %.2f s for the whole ask"
              % (backend, statistics.median(walls), len(walls), cell_ms / 1000, ask_wall))
shutil.rmtree(work, ignore_errors=True)
