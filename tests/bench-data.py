#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark of the datasets module (never fails on timings).
Generates a 1,000,000-row, 10-column CSV (~120 MB) in WORKDIR if missing, then measures in
the same run: the full profile (C) against pandas.read_csv alone on the same file (Debian's
python3-pandas on the host), the first screen of rows from the row index on that file and on
a ~1 GB file, and the memory the profile needs beyond the mapped file.
Usage: bench-data.py BENCH_HELPER WORKDIR"""

import os
import random
import shutil
import subprocess
import sys
import time

helper, workdir = sys.argv[1], sys.argv[2]
path = os.path.join(workdir, "bench-data-1m.csv")
big = os.path.join(workdir, "bench-data-1g.csv")
utf16 = os.path.join(workdir, "bench-data-1m-utf16.csv")

CITIES = ["Paris", "Berlin", "Oslo", "Rome", "Madrid", "Lisbon", "Vienna", "Prague", "Warsaw", "Dublin",
          "Zürich", "Kraków", "São Paulo", "Москва"]
CATEGORIES = ["Grocery and food", "Consumer electronics", "Home and garden", "Toys and games",
              "Books and media", "Clothing and shoes", "Sports and outdoors", "Health and beauty"]


def generate():
    rng = random.Random(1)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("order_id,day,placed_at,customer,city,category,quantity,unit_price,discount,paid\n")
        lines = []
        for i in range(1_000_000):
            lines.append(
                f"{4000000000 + i * 7},2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},"
                f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d},"
                f"\"Customer {rng.randint(1, 200000)}, Trading Ltd\",{rng.choice(CITIES)},{rng.choice(CATEGORIES)},"
                f"{rng.randint(1, 50)},{rng.uniform(0.5, 2000):.4f},{rng.choice(['', '0.05', '0.1', '0.15'])},"
                f"{rng.choice(['true', 'false'])}\n")
            if len(lines) == 10000:
                f.write("".join(lines))
                lines = []
        f.write("".join(lines))
    os.replace(tmp, path)


def run_helper(mode, file):
    out = subprocess.run([helper, mode, file], capture_output=True, text=True, check=True).stdout
    return dict(line.split("=", 1) for line in out.split())


def find_pandas_python():
    for candidate in ("/usr/bin/python3", sys.executable, shutil.which("python3")):
        if candidate and subprocess.run([candidate, "-c", "import pandas"], capture_output=True).returncode == 0:
            return candidate
    return None


if not os.path.exists(path):
    t = time.time()
    generate()
    print(f"# generated {path} in {time.time() - t:.1f} s")
if not os.path.exists(big) or os.path.getsize(big) < 900_000_000:
    with open(path, "rb") as src:
        header = src.readline()
        body = src.read()
    with open(big + ".tmp", "wb") as dst:
        dst.write(header)
        for _ in range(9):
            dst.write(body)
    os.replace(big + ".tmp", big)

if not os.path.exists(utf16):
    with open(path, "rb") as src, open(utf16 + ".tmp", "wb") as dst:
        dst.write(src.read().decode("utf-8").encode("utf-16"))
    os.replace(utf16 + ".tmp", utf16)

size_mb = os.path.getsize(path) / 1e6
print(f"# file: {path}, {size_mb:.1f} MB, 1,000,000 rows x 10 columns")

# Warm the page cache for both readers alike.
with open(path, "rb") as f:
    while f.read(1 << 24):
        pass

profile = run_helper("profile", path)
profile_again = run_helper("profile", path)
profile_s = min(float(profile["profile_s"]), float(profile_again["profile_s"]))
print(f"full profile (C): {profile_s:.3f} s  ({profile['rows']} rows x {profile['columns']} columns)")
print(f"memory beyond the mapped file: {profile['extra_memory_mb']} MB "
      f"({float(profile['extra_memory_fraction']) * 100:.1f}% of the file; target < 25%)")

python = find_pandas_python()
if python is None:
    print("pandas: not installed on the host (build-aux/install-deps.sh installs python3-pandas)")
else:
    code = ("import time, pandas as pd\n"
            "best = 1e9\n"
            "for _ in range(2):\n"
            f"    t = time.perf_counter(); df = pd.read_csv({path!r}); best = min(best, time.perf_counter() - t)\n"
            "print(best, df.shape[0], df.shape[1], pd.__version__)\n")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    pandas_s = float(out[0])
    print(f"pandas {out[3]} read_csv alone: {pandas_s:.3f} s  ({out[1]} x {out[2]})")
    print(f"ratio: the full profile is {pandas_s / profile_s:.1f}x faster than read_csv alone (target >= 4x)")

for file in (path, big, utf16):
    screen = run_helper("screen", file)
    kind = "UTF-16 " if file == utf16 else ""
    print(f"first screen (50 rows) of a {screen['file_mb']} MB {kind}file: {screen['first_screen_ms']} ms "
          f"(target < 100 ms); 50 rows from row {screen['window_rows_from']} while "
          f"{'still ' if screen['still_indexing_at_window'] == 'yes' else ''}indexing: {screen['window_ms']} ms; "
          f"index complete in {screen['index_complete_s']} s, {screen['indexed_rows']} rows")
