#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmark: the GTK app (run under Xvfb by app/run-gui-test.sh, like the GUI tests).

Each measure is taken on both renderers in the same run, cairo and GTK's default (GL; Mesa's
llvmpipe under Xvfb, as on a VM or a laptop without GPU acceleration), with a summary side by
side against issue 34's goals.

  1. Frame times of the real window (1280x800) while a long Markdown answer streams from the
     fake OpenAI-compatible server and while a cell prints continuously (goal: 95th percentile
     under 16 ms), with the idle window measured in the same run as the baseline; and the
     main-loop stalls (gaps between ticks of a 1 ms timeout) -- bench-app-frames does this. It
     runs twice with fresh XDG folders: the first fills Mesa's shader cache (llvmpipe compiles
     GL's shaders on first use, as on the analyst's first run ever), the second is measured.
  2. Start-up time from spawn to the first painted frame of `assay` (ASSAY_REPORT_FIRST_FRAME,
     ASSAY_QUIT_AFTER_FIRST_FRAME), against a minimal AdwApplicationWindow program.
  3. Memory at rest (VmRSS, Pss) 2 s after the first frame, no session; same baseline.

Figures only: it fails when something broke, never on a timing.

    bench-app.py ASSAY BENCH_APP_FRAMES BENCH_MINIMAL FAKE_LLM_SERVER [RUNS]"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ASSAY, FRAMES, MINIMAL, FAKE_SERVER = sys.argv[1:5]
RUNS = int(sys.argv[5]) if len(sys.argv) > 5 else 5

work = tempfile.mkdtemp(prefix="assay-bench-app-")


# ---- the fake server's script ------------------------------------------------------------

def long_answer(min_words=2000):
    parts = ["# Quarterly sales review\n\nThis report walks through the **Q3 sales** data, "
             "region by region, with the figures the cells computed.\n"]
    n = 0
    while len(" ".join(parts).split()) < min_words:
        n += 1
        parts.append("\n## Section %d: region %d in detail\n\n" % (n, n))
        parts.append(("Revenue in region %d grew by *%d.%d%%* against the previous quarter, "
                      "driven by `widgets` and **gadgets**; returns stayed flat and the average "
                      "basket rose slightly. " % (n, n % 9 + 1, n % 7)) * 3 + "\n\n")
        parts.append("Key points:\n\n")
        for i in range(5):
            parts.append("- Point %d.%d: the %s channel contributed %d units, %s.\n"
                         % (n, i + 1, ["online", "retail", "wholesale", "partner", "direct"][i],
                            100 + 17 * i + n, "well above the median" if i % 2 else "in line with the plan"))
        parts.append("\n1. First, check the outliers.\n2. Then compare the months.\n"
                     "3. Finally, *confirm* with the finance team.\n\n")
        if n % 2 == 1:
            parts.append("| month | units | revenue | margin |\n|---|---:|---:|---:|\n")
            for m, month in enumerate(["July", "August", "September", "October"]):
                parts.append("| %s | %d | %d.%02d | %d%% |\n" % (month, 1000 + 37 * m + n, 25000 + 911 * m, m, 30 + m))
            parts.append("\n")
        parts.append("> Note: the figures for region %d exclude cancelled orders.\n" % n)
    return "".join(parts)


CELL = ("import time\n"
        "for i in range(400):\n"
        "    print(i, 'x' * 80, flush=True)\n"
        "    time.sleep(0.01)\n")
answer = long_answer()
script = {"responses": [
    {"flavor": "openai", "event_delay_ms": 5, "turn": {"text": answer, "finish": "stop"}},
    {"flavor": "openai", "event_delay_ms": 5,
     "turn": {"text": "Printing.", "tool_calls": [{"name": "execute_python", "arguments": json.dumps(
         {"code": CELL, "description": "Print 400 lines"})}], "finish": "tool_calls"}},
    {"flavor": "openai", "turn": {"text": "Printed **400** lines.", "finish": "stop"}},
]}
# The first cell of a new session, three times cold and three times warm (bench-app-frames'
# FIRST_CELL_RUNS): one cell that prints a line, then the answer.
FIRST_CELL = "print('first line', flush=True)\n"
for _ in range(6):
    script["responses"].append(
        {"flavor": "openai", "turn": {"text": "Printing.", "tool_calls": [{"name": "execute_python", "arguments": json.dumps(
            {"code": FIRST_CELL, "description": "Print a line"})}], "finish": "tool_calls"}})
    script["responses"].append({"flavor": "openai", "turn": {"text": "Printed.", "finish": "stop"}})
script_path = os.path.join(work, "script.json")
with open(script_path, "w", encoding="utf-8") as f:
    json.dump(script, f)


# ---- one renderer --------------------------------------------------------------------------

RENDERERS = (("cairo", "cairo"), ("GL (default)", None))


def renderer_env(renderer, extra=None):
    env = dict(os.environ)
    env.pop("GSK_RENDERER", None)
    if renderer is not None:
        env["GSK_RENDERER"] = renderer
    env.update(extra or {})
    return env


def frames_on(renderer):
    """bench-app-frames against a fresh fake server: its phases, first cells and memory."""
    server = subprocess.Popen([sys.executable, FAKE_SERVER, script_path, os.path.join(work, "requests.jsonl")],
                              stdout=subprocess.PIPE, text=True)
    port = server.stdout.readline().strip()
    try:
        # Fresh XDG folders: the sessions of earlier runs would be listed too.
        frames = subprocess.run([FRAMES, "http://127.0.0.1:%s/v1" % port], capture_output=True, text=True,
                                timeout=1200, env=fresh_env(renderer, {}))
    finally:
        server.kill()
        server.wait()
    if frames.returncode != 0:
        sys.exit("bench-app: bench-app-frames failed (%d):\n%s\n%s"
                 % (frames.returncode, frames.stdout[-3000:], frames.stderr[-3000:]))
    # BENCH_STALLS=1: each main-loop stall over 50 ms and when each phase began and went idle.
    if os.environ.get("BENCH_STALLS"):
        print("\n".join(l for l in frames.stderr.splitlines() if l.startswith(("STALL", "PHASE"))))
    results = [json.loads(line[len("BENCH "):]) for line in frames.stdout.splitlines() if line.startswith("BENCH ")]
    return {"phases": {r["phase"]: r for r in results if "phase" in r},
            "first_cells": {"cold": [r["ms"] for r in results if r.get("first_cell") == "cold"],
                            "warm": [r["ms"] for r in results if r.get("first_cell") == "warm"]},
            "frame_memory": [r for r in results if "memory" in r]}


def fresh_env(renderer, extra):
    home = tempfile.mkdtemp(prefix="run-", dir=work)
    # Mesa's shader cache is kept across runs, as on the analyst's machine (only the first run
    # of a program ever compiles llvmpipe's shaders: its stalls are reported apart).
    env = renderer_env(renderer, {"MESA_SHADER_CACHE_DIR": os.path.join(work, "mesa-shader-cache"),
                                  "XDG_DATA_HOME": os.path.join(home, "data"),
                                  "XDG_CONFIG_HOME": os.path.join(home, "config"),
                                  "XDG_CACHE_HOME": os.path.join(home, "cache")})
    for d in ("data", "config", "cache"):
        os.makedirs(os.path.join(home, d))
    env.update(extra)
    return env


def first_frame(proc):
    """Reads stderr up to the first-frame line; its monotonic time in seconds."""
    seen = []
    for line in proc.stderr:
        if line.startswith("assay-first-frame-us "):
            return int(line.split()[1]) / 1e6
        seen.append(line)
    proc.wait()
    sys.exit("bench-app: %s ended (%s) without a first frame:\n%s" % (proc.args[0], proc.returncode, "".join(seen)[-3000:]))


def startup(program, renderer):
    env = fresh_env(renderer, {"ASSAY_REPORT_FIRST_FRAME": "1", "ASSAY_QUIT_AFTER_FIRST_FRAME": "1"})
    began = time.monotonic()
    proc = subprocess.Popen([program], env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    at = first_frame(proc)
    for _ in proc.stderr:
        pass
    if proc.wait(timeout=60) != 0:
        sys.exit("bench-app: %s exited with %d" % (program, proc.returncode))
    return at - began


def memory_at_rest(program, renderer):
    env = fresh_env(renderer, {"ASSAY_REPORT_FIRST_FRAME": "1"})
    proc = subprocess.Popen([program], env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    first_frame(proc)
    time.sleep(2)
    rss = pss = -1
    with open("/proc/%d/status" % proc.pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    with open("/proc/%d/smaps_rollup" % proc.pid) as f:
        for line in f:
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    return rss, pss


programs = {"assay": ASSAY, "minimal": MINIMAL}


def longest_stall(m):
    return max(m["phases"][p]["stall"]["max"] for p in ("stream", "cell"))


def measure(renderer):
    # The first run fills Mesa's shader cache (GL); the second is what an analyst sees after.
    cold = frames_on(renderer)
    m = frames_on(renderer)
    m["cold_stall"] = longest_stall(cold)
    for program in programs.values():   # warm the caches once; not counted
        startup(program, renderer)
    m["starts"] = {name: [] for name in programs}
    for _ in range(RUNS):
        for name, program in programs.items():  # interleaved, so both see the same noise
            m["starts"][name].append(startup(program, renderer))
    m["mem"] = {name: memory_at_rest(program, renderer) for name, program in programs.items()}
    return m


measured = [(label, measure(renderer)) for label, renderer in RENDERERS]
shutil.rmtree(work, ignore_errors=True)


# ---- the tables ----------------------------------------------------------------------------

def ms(x):
    return "%.1f" % x


def report(label, m):
    phases, first_cells, starts, mem = m["phases"], m["first_cells"], m["starts"], m["mem"]
    print("bench-app: the window at 1280x800 under Xvfb, renderer %s, 2 shared cores" % label)
    print("  answer streamed: %d words, %d characters, event_delay_ms 5; cell: 400 lines of 80+ characters, 10 ms apart"
          % (len(answer.split()), len(answer)))
    print()
    print("  frame intervals (after-paint to after-paint, ms; the clock kept running; goal p95 < 16 ms)")
    print("  %-8s %7s %6s %7s %7s %7s %7s %8s %8s" % ("phase", "seconds", "frames", "median", "p95", "p99", "max", ">17ms", "fps"))
    for name in ("idle", "stream", "cell"):
        p = phases[name]
        i = p["interval"]
        print("  %-8s %7.1f %6d %7s %7s %7s %7s %8d %8.1f" % (name, p["seconds"], i["count"], ms(i["median"]), ms(i["p95"]),
                                                          ms(i["p99"]), ms(i["max"]), i["over"], i["count"] / p["seconds"]))
    print()
    print("  frame work (update phase to after-paint, ms)")
    print("  %-8s %7s %7s %7s %7s %8s" % ("phase", "median", "p95", "p99", "max", ">16ms"))
    for name in ("idle", "stream", "cell"):
        w = phases[name]["work"]
        print("  %-8s %7s %7s %7s %7s %8d" % (name, ms(w["median"]), ms(w["p95"]), ms(w["p99"]), ms(w["max"]), w["over"]))
    print()
    print("  main-loop stalls (gaps between ticks of a 1 ms timeout, ms; the longest in the first run,")
    print("  Mesa's shader cache empty: %.1f ms)" % m["cold_stall"])
    print("  %-8s %7s %7s %7s %7s %7s %8s" % ("phase", "ticks", "median", "p95", "p99", "max", ">16ms"))
    for name in ("idle", "stream", "cell"):
        st = phases[name]["stall"]
        print("  %-8s %7d %7s %7s %7s %7s %8d" % (name, st["count"], ms(st["median"]), ms(st["p95"]), ms(st["p99"]), ms(st["max"]), st["over"]))
    print()
    idle95 = phases["idle"]["interval"]["p95"]
    for name in ("stream", "cell"):
        print("  ratio p95(%s) / p95(idle), frame intervals: %.2fx   (%.1f / %.1f ms)"
              % (name, phases[name]["interval"]["p95"] / idle95, phases[name]["interval"]["p95"], idle95))
    print()
    print("  the first cell of a new session, Run to its first output (ms, bubblewrap; goal warm <= 100 ms)")
    print("  %-8s %7s %7s %7s   %s" % ("sandbox", "median", "min", "max", "runs"))
    for kind in ("cold", "warm"):
        v = first_cells[kind]
        print("  %-8s %7s %7s %7s   %s" % (kind, ms(statistics.median(v)), ms(min(v)), ms(max(v)), " ".join(ms(x) for x in v)))
    print("  ratio warm / cold (the sandbox started when the cell runs, measured in this run): %.3fx"
          % (statistics.median(first_cells["warm"]) / statistics.median(first_cells["cold"])))
    print()
    print("  start-up, spawn to the first painted frame (s), %d runs after one warm-up each, fresh XDG dirs" % RUNS)
    print("  %-8s %7s %7s %7s   %s" % ("program", "median", "min", "max", "runs"))
    for name in programs:
        v = starts[name]
        print("  %-8s %7.3f %7.3f %7.3f   %s" % (name, statistics.median(v), min(v), max(v), " ".join("%.3f" % x for x in v)))
    print("  ratio assay / minimal (medians): %.2fx" % (statistics.median(starts["assay"]) / statistics.median(starts["minimal"])))
    print()
    print("  memory at rest, 2 s after the first frame, no session (MiB)")
    print("  %-8s %8s %8s" % ("program", "VmRSS", "Pss"))
    for name in programs:
        rss, pss = mem[name]
        print("  %-8s %8.1f %8.1f" % (name, rss / 1024, pss / 1024))
    print("  ratio assay / minimal (RSS): %.2fx" % (mem["assay"][0] / mem["minimal"][0]))
    for fm in m["frame_memory"]:
        print("  bench-app-frames, %s: VmRSS %.1f MiB, Pss %.1f MiB" % (fm["memory"], fm["rss_kb"] / 1024, fm["pss_kb"] / 1024))
    print()


for label, m in measured:
    report(label, m)


def ratio(m, phase):
    return m["phases"][phase]["interval"]["p95"] / m["phases"]["idle"]["interval"]["p95"]


def startup_ratio(m):
    return statistics.median(m["starts"]["assay"]) / statistics.median(m["starts"]["minimal"])


print("bench-app: both renderers side by side, measured in this run (goals: issue 34)")
print("  %-44s %12s %14s   %s" % ("", RENDERERS[0][0], RENDERERS[1][0], "goal"))
rows = (("start-up / minimal window (medians)", startup_ratio, "%.2fx", "<= 1.5x on both"),
        ("p95 frame interval, answer streaming / idle", lambda m: ratio(m, "stream"), "%.2fx", "cairo <= 1.2x, GL <= 2x"),
        ("p95 frame interval, cell printing / idle", lambda m: ratio(m, "cell"), "%.2fx", "cairo <= 1.2x, GL <= 2x"),
        ("longest main-loop stall, stream or cell (ms)", longest_stall, "%.0f", "GL < 100 ms"),
        ("  the same, first run (shader cache empty)", lambda m: m["cold_stall"], "%.0f", ""))
for name, fn, fmt, goal in rows:
    print("  %-44s %12s %14s   %s" % (name, fmt % fn(measured[0][1]), fmt % fn(measured[1][1]), goal))
sys.stdout.flush()
