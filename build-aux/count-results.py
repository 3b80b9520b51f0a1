#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Counts TAP subtests in meson's test logs and prints 'N passed, N failed'.

A skipped subtest counts as failed: nothing skipped is a pass. A test program that
failed without reporting a failing subtest (a crash, a timeout) counts as one failure."""
import argparse
import json
import re

parser = argparse.ArgumentParser()
parser.add_argument("logs", nargs="+")
parser.add_argument("--extra-passed", type=int, default=0)
parser.add_argument("--extra-failed", type=int, default=0)
args = parser.parse_args()

passed = args.extra_passed
failed = args.extra_failed
for path in args.logs:
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        print(f"missing test log {path}")
        failed += 1
        continue
    for line in lines:
        entry = json.loads(line)
        out = entry.get("stdout") or ""
        ok = len(re.findall(r"^ok \d+(?! # SKIP)", out, re.M))
        skipped = len(re.findall(r"^ok \d+.*# SKIP", out, re.M))
        not_ok = len(re.findall(r"^not ok \d+", out, re.M))
        if ok + skipped + not_ok == 0:
            ok = 1 if entry.get("result") == "OK" else 0
        passed += ok
        failed += not_ok + skipped
        if entry.get("result") != "OK" and not_ok == 0:
            failed += 1

print(f"{passed} passed, {failed} failed")
