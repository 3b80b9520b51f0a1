#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""TAP: the read_csv call that `assay-cli inspect` suggests really reads each file of the
corpus in the sandbox image to the shape inspect reported (rows x columns); for workbooks,
read_excel lists the same sheets. One sandboxed session for all files.
Usage: test-read-csv.py ASSAY_CLI WORKDIR"""

import importlib.util
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("make_corpus", os.path.join(here, "make-corpus.py"))
make_corpus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_corpus)

cli, workdir = sys.argv[1], sys.argv[2]
corpus = os.path.join(workdir, "data-corpus-sandbox")
os.makedirs(corpus, exist_ok=True)
make_corpus.make(corpus)
with open(os.path.join(corpus, "manifest.json"), encoding="utf-8") as f:
    cases = [c for c in json.load(f) if "error" not in c]

paths = [os.path.join(corpus, c["file"]) for c in cases]
proc = subprocess.run([cli, "inspect", "--json"] + paths, capture_output=True, check=True)
results = json.loads(proc.stdout)

calls = {}
for case, result in zip(cases, results):
    if result["format"] == "xlsx":
        calls[case["file"]] = {"xlsx": result["read_excel"].replace("pd.read_excel(", "pd.ExcelFile(", 1)
                                                           .split(", sheet_name=")[0] + ")"}
    else:
        calls[case["file"]] = {"csv": result["read_csv"]}

cell = os.path.join(workdir, "data-read-csv-cell.py")
with open(cell, "w", encoding="utf-8") as f:
    f.write("import json, warnings\nimport pandas as pd\nwarnings.simplefilter('ignore')\n")
    f.write(f"calls = {calls!r}\n")
    f.write("""shapes = {}
for name, call in calls.items():
    try:
        if 'csv' in call:
            df = eval(call['csv'])
            shapes[name] = list(df.shape)
        else:
            shapes[name] = eval(call['xlsx']).sheet_names
    except Exception as e:
        shapes[name] = f'{type(e).__name__}: {e}'
print('SHAPES' + json.dumps(shapes))
""")

args = [cli, "exec", "--json", "--timeout", "120"]
for p in paths:
    args += ["--data", p]
args.append(cell)
proc = subprocess.run(args, capture_output=True, timeout=600)
text = ""
for line in proc.stdout.decode("utf-8", "replace").splitlines():
    try:
        message = json.loads(line)
    except ValueError:
        continue
    for output in message.get("outputs", []):
        if output.get("output_type") == "stream":
            text += output.get("text", "")
shapes = None
for line in text.splitlines():
    if line.startswith("SHAPES"):
        shapes = json.loads(line[len("SHAPES"):])

n = 0
failed = 0
if shapes is None:
    print("not ok 1 - the sandbox ran the cell")
    print("# " + proc.stderr.decode("utf-8", "replace").replace("\n", "\n# "))
    print("# " + text.replace("\n", "\n# "))
    print("1..1")
    sys.exit(1)

for case, result in zip(cases, results):
    n += 1
    got = shapes.get(case["file"])
    if result["format"] == "xlsx":
        want = [s["name"] for s in result["sheets"]]
    else:
        want = [result["rows"], len(result["columns"])]
    if got == want:
        print(f"ok {n} - {case['file']}: {want}")
    else:
        failed += 1
        print(f"not ok {n} - {case['file']}: inspect says {want}, pandas {got}")
        print(f"# {calls[case['file']]}")
print(f"1..{n}")
sys.exit(1 if failed else 0)
