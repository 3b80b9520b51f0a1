#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: 1,000,000 rows × 6 columns (bigint, integer, numeric(12,2), double precision,
timestamptz, text) from PostgreSQL into a pandas DataFrame, through run_sql (the query on
the host, its typed file, the kernel's load in the sandbox: the SQL cell's time in the
session record), against pandas.read_sql with Debian's psycopg2 on the same query, in the
same run, on the same server (one this benchmark starts). Goal: at least 2× faster. Figures,
never a pass/fail.

    bench-sources.py ASSAY_CLI [ROUNDS]"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "sources"))
import dbservers  # noqa: E402

CLI = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
SQL = "SELECT id, customer_id, amount, score, happened_at, note FROM events"
BASELINE = """
import sys, time
import pandas as pd
import psycopg2
con = psycopg2.connect(sys.argv[1])
began = time.monotonic()
frame = pd.read_sql(sys.argv[2], con)
elapsed = time.monotonic() - began
assert len(frame) == 1000000, len(frame)
print(elapsed, ",".join(str(t) for t in frame.dtypes))
"""


def baseline_python():
    for candidate in ("/usr/bin/python3", sys.executable):
        if os.path.exists(candidate) and subprocess.run(
                [candidate, "-c", "import psycopg2, pandas"], capture_output=True).returncode == 0:
            return candidate
    return None


work = tempfile.mkdtemp(prefix="assay-bench-sources-")
with dbservers.PostgresServer() as pg:
    began = time.monotonic()
    dbservers.pg_shop(pg)
    print("bench-sources: PostgreSQL 15 started, 1,000,000-row table made in %.1f s" % (time.monotonic() - began))
    env = dict(os.environ, PGPASSWORD=dbservers.READER_PASSWORD)
    transcript = os.path.join(work, "t.json")
    json.dump({"format": "assay-transcript", "turns": [
        {"tool_calls": [{"name": "run_sql", "arguments": {"sql": SQL, "name": "events"}}]},
        {"tool_calls": [{"name": "execute_python", "arguments": {"code": "print(len(events), list(events.dtypes))"}}]},
        {"text": "Loaded."}]}, open(transcript, "w"))

    cells, queries, dtypes = [], [], ""
    for r in range(ROUNDS):
        out = os.path.join(work, "s%d" % r)
        proc = subprocess.run([CLI, "ask", "--provider", "recorded", "--transcript", transcript, "--yes",
                               "--no-check-numbers", "--out", out, "--db", "shop=" + pg.url(), "Load the events"],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print("bench-sources: assay-cli ask failed (%d): %s" % (proc.returncode, proc.stderr[-800:]))
            sys.exit(0)
        record = json.load(open(os.path.join(out, "session.json")))
        cell = record["cells"][0]
        cells.append(cell["elapsed_ms"] / 1000)
        queries.append(cell["query"]["query_ms"] / 1000)
        dtypes = ", ".join(c["dtype"] for c in cell["query"]["columns"])
        shutil.rmtree(out, ignore_errors=True)

    python = baseline_python()
    reads = []
    if python is not None:
        dsn = "host=127.0.0.1 port=%d dbname=shop user=reader password=%s" % (pg.port, dbservers.READER_PASSWORD)
        for r in range(ROUNDS):
            proc = subprocess.run([python, "-c", BASELINE, dsn, SQL], capture_output=True, text=True)
            if proc.returncode != 0:
                print("bench-sources: the psycopg2 baseline failed: %s" % proc.stderr[-800:])
                break
            seconds, baseline_dtypes = proc.stdout.split(" ", 1)
            reads.append(float(seconds))

    ours = statistics.median(cells)
    print("bench-sources run_sql: 1,000,000 rows × 6 columns into the kernel's DataFrame, median %.2f s over %d "
          "rounds (of which the query and its transfer %.2f s; the rest writing the typed file and loading it in "
          "the sandbox); dtypes %s" % (ours, ROUNDS, statistics.median(queries), dtypes))
    if reads:
        theirs = statistics.median(reads)
        print("bench-sources pandas.read_sql + psycopg2 %s (host, no sandbox): median %.2f s; dtypes %s"
              % (subprocess.run([python, "-c", "import psycopg2; print(psycopg2.__version__.split()[0])"],
                                capture_output=True, text=True).stdout.strip(), theirs, baseline_dtypes.strip()))
        print("bench-sources ratio: run_sql is %.1f× as fast as read_sql (goal: at least 2×)" % (theirs / ours))
    else:
        print("bench-sources: no psycopg2 and pandas on the host (apt-get install python3-psycopg2 python3-pandas); "
              "no baseline")
shutil.rmtree(work, ignore_errors=True)
