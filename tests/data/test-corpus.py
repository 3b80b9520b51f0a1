#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""TAP: generates the corpus and checks `assay-cli inspect --json` on every file:
dialect, row count and column types, or a specific error for hostile input.
Usage: test-corpus.py ASSAY_CLI WORKDIR"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("make_corpus", os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-corpus.py"))
make_corpus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_corpus)

cli, workdir = sys.argv[1], sys.argv[2]
corpus = os.path.join(workdir, "data-corpus")
os.makedirs(corpus, exist_ok=True)
make_corpus.make(corpus)
with open(os.path.join(corpus, "manifest.json"), encoding="utf-8") as f:
    cases = json.load(f)

checks = []


def check(case, result, stderr, code):
    problems = []
    if "error" in case:
        if code == 0:
            problems.append("accepted a file that must be refused")
        if case["error"] not in stderr:
            problems.append(f"stderr does not say {case['error']!r}: {stderr.strip()!r}")
        if "Traceback" in stderr or code < 0:
            problems.append(f"crashed (exit {code})")
        return problems
    if code != 0:
        return [f"exit {code}: {stderr.strip()}"]
    if case.get("format") == "xlsx":
        names = [s["name"] for s in result.get("sheets", [])]
        if names != case["sheets"]:
            problems.append(f"sheets {names} != {case['sheets']}")
        dims = [s["dimension"] for s in result.get("sheets", [])]
        if dims != case["dimensions"]:
            problems.append(f"dimensions {dims} != {case['dimensions']}")
        if "read_excel(" not in (result.get("read_excel") or ""):
            problems.append("no read_excel hint")
        return problems
    for key in ("encoding", "delimiter", "decimal", "thousands", "header", "rows", "bom",
                "escape", "line_ending", "trailing_blank_lines"):
        if key in case:
            want = case[key]
            got = result.get(key)
            if isinstance(want, list) and key == "encoding":
                if got not in want:
                    problems.append(f"{key}: {got!r} not in {want!r}")
            elif got != want:
                problems.append(f"{key}: {got!r} != {want!r}")
    types = [c["type"] for c in result.get("columns", [])]
    if "types" in case and types != case["types"]:
        problems.append(f"types {types} != {case['types']}")
    if "names" in case and [c["name"] for c in result["columns"]] != case["names"]:
        problems.append(f"names {[c['name'] for c in result['columns']]} != {case['names']}")
    if "warning" in case and not any(case["warning"] in w for w in result.get("warnings", [])):
        problems.append(f"no warning about {case['warning']!r}: {result.get('warnings')}")
    if "date_order" in case:
        dayfirst = "dayfirst=True" in result["read_csv"]
        if dayfirst != (case["date_order"] == "day first"):
            problems.append(f"read_csv has the wrong date order: {result['read_csv']}")
    for column in result.get("columns", []):
        for key in ("name", "type", "nulls", "distinct", "min", "max", "mean", "top", "histogram"):
            if key not in column:
                problems.append(f"column without {key}")
                break
    if not result.get("read_csv", "").startswith("pd.read_csv('/data/"):
        problems.append(f"read_csv: {result.get('read_csv')!r}")
    return problems


n = 0
failed = 0
for case in cases:
    path = os.path.join(corpus, case["file"])
    proc = subprocess.run([cli, "inspect", "--json", path], capture_output=True, timeout=120)
    stderr = proc.stderr.decode("utf-8", "replace")
    result = None
    if proc.returncode == 0:
        try:
            result = json.loads(proc.stdout)
        except ValueError as e:
            result = {}
            stderr += f" (bad JSON: {e})"
    problems = check(case, result or {}, stderr, proc.returncode)
    n += 1
    if problems:
        failed += 1
        print(f"not ok {n} - {case['file']}")
        for p in problems:
            print(f"# {p}")
    else:
        print(f"ok {n} - {case['file']}")

# Several files at once give an array, in order; a bad one among them makes the exit non-zero.
proc = subprocess.run([cli, "inspect", "--json", os.path.join(corpus, "basic.csv"),
                       os.path.join(corpus, "koi8r.csv")], capture_output=True)
n += 1
try:
    many = json.loads(proc.stdout)
    ok = proc.returncode == 0 and isinstance(many, list) and len(many) == 2 and many[1]["encoding"] == "koi8-r"
except ValueError:
    ok = False
print(f"{'ok' if ok else 'not ok'} {n} - several files give an array")
failed += not ok

proc = subprocess.run([cli, "inspect", os.path.join(corpus, "basic.csv"), os.path.join(corpus, "empty.csv")],
                      capture_output=True)
n += 1
ok = proc.returncode != 0 and b"basic.csv" in proc.stdout and b"empty" in proc.stderr
print(f"{'ok' if ok else 'not ok'} {n} - the human summary, and a failure among several files")
failed += not ok

print(f"1..{n}")
sys.exit(1 if failed else 0)
