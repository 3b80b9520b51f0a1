#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Extracts the code cells of a recorded transcript into files, one per tool call.

Usage: transcript_cells.py TRANSCRIPT.json OUTDIR

Writes OUTDIR/cell1.py .. cellN.py, in the order the model calls execute_python, and
prints their paths, one a line, so that

    assay-cli exec --data sales.csv $(transcript_cells.py t.json dir)

runs the cells of the transcript in one stateful session, as `assay-cli ask --provider
recorded` would. Standard library only.
"""
import json
import os
import sys


def cells(transcript):
    if transcript.get("format") != "assay-transcript":
        raise ValueError("not an assay transcript (format is %r)" % transcript.get("format"))
    for turn in transcript.get("turns", []):
        for call in turn.get("tool_calls", []) or []:
            if call.get("name") != "execute_python":
                continue
            args = call.get("arguments", {})
            if isinstance(args, str):
                args = json.loads(args)
            yield args["code"]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: transcript_cells.py TRANSCRIPT.json OUTDIR\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        transcript = json.load(f)
    os.makedirs(argv[2], exist_ok=True)
    n = 0
    for n, code in enumerate(cells(transcript), 1):
        path = os.path.join(argv[2], "cell%d.py" % n)
        with open(path, "w", encoding="utf-8") as f:
            f.write(code if code.endswith("\n") else code + "\n")
        print(path)
    if n == 0:
        sys.stderr.write("%s: no execute_python calls\n" % argv[1])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
