#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`assay-cli ask --runs-on openai`: the model's code runs in OpenAI's hosted code interpreter
(the Responses API's code_interpreter tool in a container of the Containers API), here the
local fake (tests/llm/fake_llm_server.py), whose container really runs the code with this
machine's python3. End to end: a number printed by hosted code and traced to that output, an
image and a cited CSV in the artifacts, the record and a report saying where the code ran;
the documented request shapes; an expired container; 429; a cut stream; hostile cited names;
an oversized file; the refusals.

    test_ask_hosted.py ASSAY_CLI FAKE_SERVER.py

Prints TAP. Never tried against OpenAI itself: nothing outside this machine is reachable."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ask_harness import *  # noqa: E402,F401,F403
import ask_harness  # noqa: E402

ask_harness.configure(sys.argv[1], sys.argv[2])
CLI = sys.argv[1]
WORKDIRS = []
_run_case = run_case


def run_case(*args, **kwargs):  # noqa: F811
    r = _run_case(*args, **kwargs)
    WORKDIRS.append(r.workdir)
    return r

data_dir = tempfile.mkdtemp(prefix="assay-hosted-data-")
SALES = os.path.join(data_dir, "sales.csv")
with open(SALES, "w") as f:
    f.write("region,amount\n")
    for i in range(1, 101):
        f.write("%s,%d.25\n" % (("north", "south", "east")[i % 3], i * 37))
TOTAL = sum(i * 37 + 0.25 for i in range(1, 101))   # 186875.0
ARGS = ["--api", "responses", "--runs-on", "openai", "--data", SALES]

# The hosted code: no pandas on this machine's python3, so csv; a PNG written by hand.
CODE_TOTAL = ("import csv\nrows = list(csv.DictReader(open('/mnt/data/sales.csv')))\n"
              "total = sum(float(r['amount']) for r in rows)\nprint('rows', len(rows))\n"
              "print('total amount', total)\n")
CODE_FILES = ("import csv, struct, zlib\n"
              "rows = list(csv.DictReader(open('/mnt/data/sales.csv')))\n"
              "by = {}\n"
              "for r in rows: by[r['region']] = by.get(r['region'], 0) + float(r['amount'])\n"
              "w = csv.writer(open('/mnt/data/summary.csv', 'w', newline=''))\n"
              "w.writerow(['region', 'amount'])\n"
              "for k in sorted(by): w.writerow([k, by[k]])\n"
              "def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))\n"
              "raw = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 4 for _ in range(4))\n"
              "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0))"
              " + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')\n"
              "open('/mnt/data/chart.png', 'wb').write(png)\n"
              "print('regions', len(by))\n")


def hosted(text, codes, cite=(), **extra):
    entry = {"flavor": "responses",
             "turn": {"text": text, "code_interpreter": [{"code": c} for c in codes], "cite": list(cite)}}
    entry.update(extra)
    return entry


def record_of(r):
    try:
        return json.load(open(os.path.join(r.workdir, "session", "session.json")))
    except (OSError, ValueError):
        return {}


def model_requests(r):
    return [q for q in r.requests if q["method"] == "POST" and q["path"].endswith("/responses")]


def artifacts_of(r):
    folder = os.path.join(r.workdir, "session", "artifacts")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def run_raw(responses, args, question="What is the total?", containers=None):
    """run_case without its --out (for --resume) and with the Containers API's statuses."""
    workdir = tempfile.mkdtemp(prefix="assay-ask-")
    script = os.path.join(workdir, "script.json")
    log = os.path.join(workdir, "requests.jsonl")
    with open(script, "w") as f:
        json.dump({"responses": responses, "containers": containers or {}}, f)
    server = subprocess.Popen([sys.executable, ask_harness.SERVER, script, log], stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        env = dict(os.environ, OPENAI_API_KEY=KEY, ASSAY_LLM_RETRY_SCALE="0.01")
        proc = subprocess.run([CLI, "ask", "--no-check-numbers", "--provider", "openai", "--base-url",
                               "http://127.0.0.1:%d/v1" % port, "--model", "gpt-5", "--json"] + args + [question],
                              capture_output=True, text=True, env=env, timeout=300)
    finally:
        server.kill()
        server.wait()
    requests = [json.loads(line) for line in open(log)] if os.path.exists(log) else []
    WORKDIRS.append(workdir)
    return ask_harness.Run(proc.returncode, proc.stdout, proc.stderr, requests, workdir)


# 1. End to end.
r = run_case([hosted("The total amount is 186,875.0 over 100 rows; the totals by region are in summary.csv.",
                     [CODE_TOTAL, CODE_FILES], [{"file": "summary.csv"}])],
             question="What is the total amount?", extra_args=ARGS, model="gpt-5")
record = record_of(r)
cells = record.get("cells", [])
report(r.rc == 0 and "186,875.0" in r.out and len(cells) == 2
       and all(c.get("decision") == "hosted" for c in cells)
       and "total amount 186875.0" in json.dumps(cells[0].get("outputs")),
       "hosted: the question is answered, each code_interpreter call a cell run on OpenAI, never approved",
       r.detail())
where = (record.get("sandbox") or {})
report("OpenAI's hosted code interpreter (container cntr_" in json.dumps(where),
       "hosted: the session's sandbox record says the code ran in OpenAI's container", json.dumps(where))
prov = (r.json or {}).get("provenance") or {}
claims = prov.get("numbers", []) if isinstance(prov, dict) else []
traced = [c for c in claims if cells and c.get("cell") == cells[0]["id"] and c.get("found")]
report(any(c.get("text") == "186,875.0" and c.get("line_text") == "total amount 186875.0" for c in traced),
       "hosted: the answer's number is traced to the output of the hosted cell that printed it",
       json.dumps(prov)[:2000])
arts = artifacts_of(r)
summary_path = os.path.join(r.workdir, "session", "artifacts", "summary.csv")
report("summary.csv" in arts and any(a.endswith(".png") for a in arts)
       and open(summary_path).read().startswith("region,amount")
       and any(a.get("name") == "summary.csv" for c in cells for a in c.get("artifacts", []))
       and any(a.get("mime") == "image/png" for c in cells for a in c.get("artifacts", [])),
       "hosted: the image and the cited CSV are fetched into the session's artifacts", json.dumps(arts))
creates = [q for q in r.requests if q["method"] == "POST" and q["path"] == "/v1/containers"]
uploads = [q for q in r.requests if q["method"] == "POST" and q["path"].endswith("/files")]
deletes = [q for q in r.requests if q["method"] == "DELETE"]
body = model_requests(r)[0]["body"] if model_requests(r) else {}
cid = (where.get("where") or "").split("container ")[-1].rstrip(")") if isinstance(where, dict) else ""
report(len(creates) == 1 and creates[0]["body"].get("expires_after", {}).get("anchor") == "last_active_at"
       and len(uploads) == 1 and uploads[0]["body"].get("parts") == ["file"]
       and uploads[0]["body"].get("filename") == "sales.csv"
       and body.get("tools") == [{"type": "code_interpreter", "container": cid}]
       and "code_interpreter_call.outputs" in body.get("include", [])
       and "/mnt/data/sales.csv" in body.get("instructions", "")
       and len(deletes) == 1 and deletes[0]["path"] == "/v1/containers/" + cid
       and all(q["headers"].get("authorization") == "Bearer " + KEY for q in creates + uploads + deletes),
       "hosted: the documented shapes: container made to expire, the dataset uploaded as multipart file, "
       "the code_interpreter tool with the container, its outputs included, the container removed",
       json.dumps([creates, uploads, body.get("tools"), body.get("include"), deletes])[:3000])
report("Runs on OpenAI" in r.err and "approval" in r.err and r.err.count("Runs on OpenAI") == 1,
       "hosted: the CLI says once that the datasets and the code go to OpenAI, nothing approved", r.err)
report_file = os.path.join(r.workdir, "report.html")
exported = subprocess.run([CLI, "export", os.path.join(r.workdir, "session"), "-o", report_file],
                          capture_output=True, text=True)
html = open(report_file).read() if os.path.exists(report_file) else ""
report(exported.returncode == 0 and "OpenAI" in html and "hosted code interpreter" in html
       and "total amount 186875.0" in html,
       "hosted: the report says where the code ran and shows the hosted cell's output",
       exported.stderr + html[:1000])

# 1b. Resumed: a new container, the dataset uploaded again, the earlier calls sent back as
# code_interpreter_call items with their logs; the model told the state is gone.
session = os.path.join(r.workdir, "session")
r2 = run_raw([hosted("There are 3 regions.", [])], ["--api", "responses", "--runs-on", "openai", "--resume", session],
             question="How many regions?")
body = model_requests(r2)[0]["body"] if model_requests(r2) else {}
items = [i for i in body.get("input", []) if i.get("type") == "code_interpreter_call"]
report(r2.rc == 0 and len(items) == 2 and items[0].get("code") == CODE_TOTAL
       and "total amount 186875.0" in json.dumps(items[0].get("outputs"))
       and not any(i.get("type") == "function_call_output" for i in body.get("input", []))
       and "is gone" in body.get("instructions", "")
       and len([q for q in r2.requests if q["path"].endswith("/files")]) == 1,
       "hosted: a resumed session sends its calls back as code_interpreter_call items, in a new container",
       r2.detail() + json.dumps(body)[:2000])

# 1c. The same session resumed on this computer: refused before anything is sent, its code
# (never approved here) not replayed in the local kernel; Run Again refuses it too.
before = len(record_of(r).get("cells", []))
r3 = run_raw([{"flavor": "responses", "turn": {"text": "Never asked."}}], ["--api", "responses", "--resume", session],
             question="And locally?")
after = json.load(open(os.path.join(session, "session.json")))
report(r3.rc == 5 and "ran in OpenAI's hosted code interpreter" in r3.err and not model_requests(r3)
       and len(after.get("cells", [])) == before
       and not any(c.get("decision") != "hosted" for c in after.get("cells", [])),
       "hosted: the session resumed on this computer is refused, its hosted code not replayed here", r3.detail())
rerun = subprocess.run([CLI, "rerun", session, "--data", "sales.csv=" + SALES, "--out",
                        os.path.join(tempfile.mkdtemp(prefix="assay-ask-"), "rerun")],
                       capture_output=True, text=True, timeout=300)
report(rerun.returncode != 0 and "Run Again runs approved cells only" in rerun.stderr,
       "hosted: Run Again refuses a session whose code ran on OpenAI", rerun.stdout + rerun.stderr)

# 2. The container expired: said plainly, nothing lost; the next question starts a new one.
r = run_case([hosted("", [], expire_container=True)], extra_args=ARGS)
report(r.rc != 0 and "expired" in r.err and "lost" in r.err and "uploaded again" in r.err
       and record_of(r).get("messages", [{}])[0].get("role") == "user",
       "hosted: an expired container is said, the kernel state called lost, the question kept", r.detail())

# 3. 429 on the container and on the model: retried through the policy.
r = run_case([{"flavor": "responses", "status": 429, "message": "Rate limit reached", "headers": {"retry-after": "1"}},
              hosted("The total amount is 186,875.0.", [CODE_TOTAL])],
             extra_args=ARGS, env_extra={})
creates = [q for q in r.requests if q["method"] == "POST" and q["path"] == "/v1/containers"]
report(r.rc == 0 and len(model_requests(r)) == 2 and len(record_of(r).get("cells", [])) == 1,
       "hosted: 429 from the model server is retried, the code ran once", r.detail())



r = run_raw([hosted("The total amount is 186,875.0.", [CODE_TOTAL])],
            ARGS + ["--out", os.path.join(tempfile.mkdtemp(prefix="assay-ask-"), "session")],
            containers={"create_statuses": [429, 503]})
r.workdir = os.path.dirname(r.json["session_dir"]) if r.json and r.json.get("session_dir") else r.workdir
WORKDIRS.append(r.workdir)
creates = [q for q in r.requests if q["method"] == "POST" and q["path"] == "/v1/containers"]
report(r.rc == 0 and len(creates) == 3 and len(record_of(r).get("cells", [])) == 1,
       "hosted: 429 and 503 from the Containers API are retried", r.detail())

# 4. A stream cut in the middle of the code: retried whole, one cell.
r = run_case([hosted("The total amount is 186,875.0.", [CODE_TOTAL], cut_after_events=6),
              hosted("The total amount is 186,875.0.", [CODE_TOTAL])], extra_args=ARGS)
report(r.rc == 0 and len(model_requests(r)) == 2 and len(record_of(r).get("cells", [])) == 1,
       "hosted: a cut stream is retried, one cell recorded", r.detail())

# 5. Hostile cited names: never out of the artifacts folder, made safe.
CODE_HOSTILE = ("open('/mnt/data/a.csv', 'w').write('x\\n1\\n')\nopen('/mnt/data/b.csv', 'w').write('y\\n2\\n')\n"
                "open('/mnt/data/c.csv', 'w').write('z\\n3\\n')\nprint('wrote 3')\n")
r = run_case([hosted("Wrote 3 files.", [CODE_HOSTILE],
                     [{"file": "a.csv", "filename": "../../x"},
                      {"file": "b.csv", "filename": "n" * 300 + ".csv"},
                      {"file": "c.csv", "filename": "evil\x1b[31m\r\nname\u202e.csv"}])], extra_args=ARGS)
arts = artifacts_of(r)
outside = [p for p in (os.path.join(r.workdir, "x"), os.path.join(r.workdir, "session", "x")) if os.path.exists(p)]
report(r.rc == 0 and len(arts) == 3 and not outside and "x" in arts
       and all(len(a.encode()) <= 120 and not any(ord(ch) < 32 or ch == "\u202e" for ch in a) for a in arts)
       and any(a.endswith(".csv") and a.startswith("nnn") for a in arts),
       "hosted: cited names with '..', 300 characters and control characters stay in the artifacts, made safe",
       r.detail() + json.dumps(arts))

# 6. An oversized file is refused, the answer and the rest kept.
CODE_BIG = ("f = open('/mnt/data/big.csv', 'wb')\nfor _ in range(65): f.write(b'0' * (1 << 20))\nf.close()\n"
            "open('/mnt/data/small.csv', 'w').write('a\\n1\\n')\nprint('written')\n")
r = run_case([hosted("Both files are written.", [CODE_BIG], [{"file": "big.csv"}, {"file": "small.csv"}])],
             extra_args=ARGS)
arts = artifacts_of(r)
cells = record_of(r).get("cells", [])
report(r.rc == 0 and arts == ["small.csv"] and "big.csv" in r.err and "larger than" in r.err
       and cells and "big.csv" in json.dumps(cells[-1].get("outputs")),
       "hosted: a cited file over the cap is refused in plain words, the others kept", r.detail() + json.dumps(arts))

# 7. Refusals: not the Responses API, not OpenAI, or with a local sandbox's options.
r = run_case([answer("openai")], extra_args=["--api", "chat", "--runs-on", "openai"])
report(r.rc == 2 and not r.chat_requests() and "Responses API" in r.err,
       "--runs-on openai with Chat Completions: refused, nothing sent", r.detail())
r = run_case([answer("anthropic")], provider="anthropic", extra_args=["--runs-on", "openai"])
report(r.rc == 2 and not r.chat_requests(), "--runs-on openai with Anthropic: refused, nothing sent", r.detail())
r = run_case([answer("openai")], extra_args=ARGS + ["--backend", "bwrap"])
report(r.rc == 2 and not r.chat_requests(), "--runs-on openai with --backend: refused", r.detail())

# 8. sandbox status lists it: usable with OpenAI's key (only when chosen), not without.
env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ASSAY_API_KEY")}
without = subprocess.run([ask_harness.CLI, "sandbox", "status", "--json"], capture_output=True, text=True, env=env)
env["OPENAI_API_KEY"] = "sk-test-status"
with_key = subprocess.run([ask_harness.CLI, "sandbox", "status"], capture_output=True, text=True, env=env)
try:
    listed = json.loads(without.stdout).get("openai_hosted", {})
except ValueError:
    listed = {}
report(listed.get("usable") is False and "OPENAI_API_KEY" in listed.get("reason", "")
       and "OpenAI:      usable (only when chosen: ask --runs-on openai)" in with_key.stdout
       and "sk-test-status" not in with_key.stdout,
       "sandbox status lists OpenAI's hosted code interpreter: usable with a key, only when chosen",
       without.stdout + with_key.stdout)

# The sessions, and the fake's containers beside its log, go with the test (kept when it failed).
if all(ask_harness.results):
    for folder in WORKDIRS + [data_dir]:
        shutil.rmtree(folder, ignore_errors=True)
finish()
