#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: the reference sales case (six steps and an answer) with the recorded model and
the real sandbox. Prints what Assay itself adds per step beyond the model's and the code's own
time (goal: under 50 ms), the whole case's wall time (goal: under 15 s), and, as the baseline
measured in the same run, the same six cells through `assay-cli exec` (the sandbox alone, no
agent). Figures, never a pass/fail on timings.

    bench-agent.py ASSAY_CLI [RUNS]"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "demo")
CLI = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
TRANSCRIPT = os.path.join(HERE, "sales-transcript.json")

work = tempfile.mkdtemp(prefix="assay-bench-agent-")
csv = os.path.join(work, "sales.csv")
subprocess.run([sys.executable, os.path.join(HERE, "make_sales_csv.py"), csv], check=True,
               stdout=subprocess.DEVNULL)
cells = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e", "transcript_cells.py"), TRANSCRIPT,
                        os.path.join(work, "cells")], check=True, capture_output=True,
                       text=True).stdout.split()


def timed(cmd):
    began = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - began
    if proc.returncode != 0:
        sys.exit("bench-agent: %s failed (%d):\n%s" % (cmd[1], proc.returncode, proc.stderr[-3000:]))
    return wall, proc


def ms(us):
    return us / 1000.0


for backend in ("docker", "bwrap"):
    exec_walls, ask_walls, per_step, agent_part, sandbox_part, worst = [], [], [], [], [], []
    for run in range(RUNS):
        wall, _ = timed([CLI, "exec", "--backend", backend, "--json", "--data", csv,
                         "--out", os.path.join(work, "exec-%s-%d" % (backend, run))] + cells)
        exec_walls.append(wall)
        session = os.path.join(work, "ask-%s-%d" % (backend, run))
        wall, _ = timed([CLI, "ask", "--provider", "recorded", "--transcript", TRANSCRIPT,
                         "--backend", backend, "--data", csv, "--yes", "--out", session,
                         "Analyse the Q3 sales"])
        ask_walls.append(wall)
        timings = json.load(open(os.path.join(session, "session.json")))["timings"]
        for t in timings:
            added = t["wall_us"] - t["model_us"] - t["code_us"] - t["approval_us"]
            per_step.append(ms(added))
            agent_part.append(ms(t["wall_us"] - t["model_us"] - t["cell_us"] - t["approval_us"]))
            sandbox_part.append(ms(t["cell_us"] - t["code_us"]))
        worst.append(max(per_step[-len(timings):]))

    e, a = statistics.median(exec_walls), statistics.median(ask_walls)
    print("bench-agent [%s] reference sales case, %d runs, %d steps each" % (backend, RUNS, len(timings)))
    print("  whole case, assay-cli ask (recorded model):  %.2f s median (goal < 15 s)" % a)
    print("  baseline, the same cells via assay-cli exec: %.2f s median" % e)
    print("  ratio ask / exec:                            %.2fx" % (a / e))
    print("  Assay's own time per step (wall - model - code): median %.1f ms, mean %.1f ms, "
          "worst %.1f ms (goal < 50 ms)" % (statistics.median(per_step), statistics.mean(per_step), max(worst)))
    print("    of which the agent and the session record:  median %.1f ms" % statistics.median(agent_part))
    print("    of which the sandbox channel and artifacts: median %.1f ms" % statistics.median(sandbox_part))
    sys.stdout.flush()
