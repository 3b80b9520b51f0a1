#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reference design's own case, end to end: `assay-cli ask` with the recorded model and
the real sandbox on a generated quarterly sales CSV (about 45,000 rows, duplicates and empty
cells), six steps, three charts and a reportlab PDF.

    test_sales_case.py ASSAY_CLI [BACKEND]

Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "..", "data", "demo")
CLI = sys.argv[1]
BACKEND = sys.argv[2] if len(sys.argv) > 2 else None
QUESTION = ("Analyse Q3 sales: check the structure, clean the data, show the monthly dynamics, "
            "an ABC analysis, the conversion funnel, and make a PDF report.")

n = 0
failed = 0


def report(ok, name, detail=""):
    global n, failed
    n += 1
    failed += 0 if ok else 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, name))
    if not ok and detail:
        for line in str(detail).splitlines()[-40:]:
            print("#   " + line)
    sys.stdout.flush()


work = tempfile.mkdtemp(prefix="assay-sales-")
csv = os.path.join(work, "sales.csv")
subprocess.run([sys.executable, os.path.join(DEMO, "make_sales_csv.py"), csv], check=True,
               stdout=subprocess.DEVNULL)
session = os.path.join(work, "session")
cmd = [CLI, "ask", "--provider", "recorded", "--transcript", os.path.join(DEMO, "sales-transcript.json"),
       "--data", csv, "--yes", "--json", "--out", session]
if BACKEND:
    cmd += ["--backend", BACKEND]
proc = subprocess.run(cmd + [QUESTION], capture_output=True, text=True, timeout=600)
detail = "rc=%d\nstderr:\n%s" % (proc.returncode, proc.stderr)
try:
    result = json.loads(proc.stdout)
except ValueError:
    result = {}

report(proc.returncode == 0, "ask exits 0 with a final answer", detail)
report("1,651,593" in result.get("answer", "") and "26.8%" in result.get("answer", ""),
       "the recorded answer is printed", proc.stdout[-2000:])
cells = result.get("cells", [])
report(len(cells) == 6 and all(c.get("status") == "ok" for c in cells),
       "six cells ran, all ok", json.dumps(cells)[:3000])
report("recorded" in proc.stderr.lower(), "stderr says the model's words are recorded", detail)

record = os.path.join(session, "session.json")
show = subprocess.run([CLI, "session", "show", "--json", session], capture_output=True, text=True)
try:
    shown = json.loads(show.stdout)
except ValueError:
    shown = {}
report(os.path.exists(record) and show.returncode == 0 and "1,651,593" in json.dumps(shown),
       "the session folder reopens with the answer", show.stderr)

try:
    timings = json.load(open(record)).get("timings", [])
except (OSError, ValueError):
    timings = []
report(len(timings) == 7 and [t.get("step") for t in timings] == list(range(1, 8))
       and all(t["wall_us"] >= t["model_us"] + t["cell_us"] for t in timings)
       and all(0 < t["code_us"] <= t["cell_us"] for t in timings[:6])
       and timings[6]["cell_us"] == 0,
       "each finished step records where its time went (model, sandbox, code)", json.dumps(timings))

check = subprocess.run([sys.executable, os.path.join(HERE, "check_sales_case.py"), session],
                       capture_output=True, text=True)
for line in check.stdout.splitlines():
    if line.startswith("ok ") or line.startswith("not ok "):
        ok = line.startswith("ok ")
        report(ok, "artifacts: " + line.split(" - ", 1)[-1], check.stdout)
if "ok " not in check.stdout:
    report(False, "the artifact check ran", check.stdout + check.stderr)

print("1..%d" % n)
sys.exit(1 if failed else 0)
