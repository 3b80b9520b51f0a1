#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`assay-cli ask` against the fake model servers, one scenario per test: each asserts what
the agent did (which cells ran, how often, what it told the model, how it ended), with the
real sandbox running the code.

    test_ask_servers.py ASSAY_CLI FAKE_SERVER.py

Prints TAP."""
import hashlib
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

# 1. OpenAI: a tool call whose arguments arrive in fragments; the result reaches the model.
r = run_case([{"flavor": "openai", "turn": {"text": "Let me compute.",
                                            "tool_calls": [call("execute_python", "print(6*7)")]}},
              answer("openai")])
tools = openai_tool_messages(r.chat_requests()[-1]) if len(r.chat_requests()) == 2 else []
report(r.rc == 0 and "The answer is 42." in r.out and len(r.cells()) == 1
       and len(tools) == 1 and "42" in text_of(tools[0].get("content")),
       "openai: fragmented tool call runs once, its output goes back as a tool message",
       r.detail())
first = r.chat_requests()[0]["body"] if r.chat_requests() else {}
report(first.get("stream") is True and first.get("messages", [{}])[0].get("role") == "system"
       and any(t.get("function", {}).get("name") == "execute_python" for t in first.get("tools", [])),
       "openai: streams, system prompt first, execute_python offered as a tool", json.dumps(first)[:2000])
auths = [req["headers"].get("authorization", "") for req in r.chat_requests()]
report(auths and all(a == "Bearer " + KEY for a in auths) and KEY not in r.err,
       "openai: the key is sent as a bearer token and never printed", r.detail())

# 2. Ollama: two whole calls in one chunk each, both index 0: two cells, in order.
r = run_case([{"flavor": "ollama", "turn": {"tool_calls": [
                  call("execute_python", "x = 6 * 7\nprint('first', x)"),
                  call("execute_python", "print('second', x + 1)")]}},
              answer("ollama")], key=None)
tools = openai_tool_messages(r.chat_requests()[-1]) if len(r.chat_requests()) == 2 else []
report(r.rc == 0 and len(r.cells()) == 2 and len(tools) == 2
       and "first 42" in text_of(tools[0].get("content")) and "second 43" in text_of(tools[1].get("content")),
       "ollama: two whole calls with index 0 become two cells, answered in order", r.detail())
report(all("authorization" not in req["headers"] for req in r.requests),
       "ollama: no key, no Authorization header", json.dumps([q["headers"] for q in r.requests]))

# 3. llama.cpp: fragments, 32-character ids, usage with timings.
r = run_case([{"flavor": "llamacpp", "turn": {"tool_calls": [call("execute_python", "print(sum(range(10)))")]}},
              answer("llamacpp", "It is 45.")], key=None)
tools = openai_tool_messages(r.chat_requests()[-1]) if len(r.chat_requests()) == 2 else []
report(r.rc == 0 and "It is 45." in r.out and tools and "45" in text_of(tools[0].get("content")),
       "llama.cpp: fragmented call with a 32-character id runs", r.detail())

# 4. Anthropic: tool_use input assembled from input_json_delta; result as a tool_result block.
r = run_case([{"flavor": "anthropic", "turn": {"text": "Computing.",
                                               "tool_calls": [call("execute_python", "print(6*7)")]}},
              answer("anthropic")], provider="anthropic")
reqs = r.chat_requests()
results_blocks = anthropic_tool_results(reqs[-1]) if len(reqs) == 2 else []
report(r.rc == 0 and "The answer is 42." in r.out and len(results_blocks) == 1
       and "42" in text_of(results_blocks[0].get("content")),
       "anthropic: tool_use runs, its output goes back in a tool_result block", r.detail())
report(bool(reqs) and isinstance(reqs[0]["body"].get("system"), (str, list))
       and all(m.get("role") != "system" for m in reqs[0]["body"].get("messages", []))
       and reqs[0]["headers"].get("x-api-key") == KEY and "anthropic-version" in reqs[0]["headers"],
       "anthropic: system prompt in `system`, x-api-key and anthropic-version headers",
       json.dumps(reqs[0] if reqs else {})[:2000])

# 5. 429 with retry-after on the turn after a cell: retried, and the cell ran exactly once.
counter_code = ("import os\np = '/workspace/runs.txt'\nn = int(open(p).read()) + 1 if os.path.exists(p) else 1\n"
                "open(p, 'w').write(str(n))\nprint('runs', n)")
r = run_case([{"flavor": "openai", "turn": {"tool_calls": [call("execute_python", counter_code)]}},
              {"flavor": "openai", "status": 429, "message": "Rate limit reached", "headers": {"retry-after": "2"}},
              answer("openai", "Done.")])
tools = openai_tool_messages(r.chat_requests()[-1]) if r.chat_requests() else []
report(r.rc == 0 and len(r.chat_requests()) == 3 and len(r.cells()) == 1
       and tools and "runs 1" in text_of(tools[0].get("content")),
       "429 with retry-after: the request is retried, the cell is not run again", r.detail())
report("retry" in r.err.lower() and ("2 s" in r.err or "2.0 s" in r.err or "2s" in r.err),
       "429: progress on stderr says it retries and when", r.err[-1500:])

# 6. 500 once, then an answer.
r = run_case([{"flavor": "openai", "status": 500, "message": "Internal error"}, answer("openai")])
report(r.rc == 0 and len(r.chat_requests()) == 2 and "The answer is 42." in r.out,
       "500: retried, then the answer", r.detail())

# 7. 529 overloaded on Anthropic, then an answer.
r = run_case([{"flavor": "anthropic", "status": 529, "message": "Overloaded"}, answer("anthropic")],
             provider="anthropic")
report(r.rc == 0 and len(r.chat_requests()) == 2 and "The answer is 42." in r.out,
       "529 overloaded: retried, then the answer", r.detail())

# 8. A stream cut in the middle of a tool call: retried whole; one cell.
r = run_case([{"flavor": "openai", "cut_after_events": 4,
               "turn": {"text": "Let me compute the answer now.", "tool_calls": [call("execute_python", counter_code)]}},
              {"flavor": "openai", "turn": {"text": "Let me compute the answer now.",
                                            "tool_calls": [call("execute_python", counter_code)]}},
              answer("openai", "Done.")])
tools = openai_tool_messages(r.chat_requests()[-1]) if r.chat_requests() else []
report(r.rc == 0 and len(r.chat_requests()) == 3 and len(r.cells()) == 1
       and tools and "runs 1" in text_of(tools[0].get("content")),
       "stream cut mid-way: the request is retried, the cell runs once", r.detail())

# 9. Malformed arguments: an error goes back to the model, nothing runs, no crash.
r = run_case([{"flavor": "openai", "turn": {"tool_calls": [{"name": "execute_python",
                                                            "arguments": "{\"code\": \"print(1)"}]}},
              answer("openai", "Sorry.")])
tools = openai_tool_messages(r.chat_requests()[-1]) if len(r.chat_requests()) == 2 else []
report(r.rc == 0 and len(r.cells()) == 0 and tools and "json" in text_of(tools[0].get("content")).lower(),
       "malformed arguments: the model is told, nothing runs", r.detail())

# 10. An unknown tool: the model is told which tools exist.
r = run_case([{"flavor": "openai", "turn": {"tool_calls": [{"name": "run_sql", "arguments": "{\"q\": \"1\"}"}]}},
              answer("openai", "Sorry.")])
tools = openai_tool_messages(r.chat_requests()[-1]) if len(r.chat_requests()) == 2 else []
content = text_of(tools[0].get("content")) if tools else ""
report(r.rc == 0 and len(r.cells()) == 0 and "run_sql" in content and "execute_python" in content,
       "unknown tool: the model is told, nothing runs", r.detail())

# 11. A fenced code block instead of a tool call: it becomes the cell.
r = run_case([{"flavor": "ollama", "turn": {"text": "Here is the code:\n\n```python\nprint(6 * 7)\n```\n"}},
              answer("ollama")], key=None)
reqs = r.chat_requests()
later = json.dumps(reqs[-1]["body"].get("messages", [])) if len(reqs) == 2 else ""
report(r.rc == 0 and len(r.cells()) == 1 and "42" in later,
       "fenced code block: run as the proposed cell, its output reaches the model", r.detail())

# 12. 401: not retried, a message an analyst understands, exit code 3, the key never shown.
r = run_case([{"flavor": "openai", "status": 401, "message": "Incorrect API key provided: " + KEY}])
report(r.rc == 3 and len(r.chat_requests()) == 1 and "key" in r.err.lower() and KEY not in r.err
       and KEY[-12:] not in r.err,
       "401: one request, exit 3, says the key was refused without showing it", r.detail())

# 13. 500 every time: given up after the retries, exit 3, the session is still saved.
r = run_case([{"flavor": "openai", "status": 500, "message": "Internal error"}])
report(r.rc == 3 and len(r.chat_requests()) == 4,
       "500 every time: 1 + 3 retries, then exit 3", r.detail())

# 14. A dataset: the system prompt carries its sniffed dialect and the read_csv call that
# reads it, so the model's first read is right (Windows-1251, semicolons, decimal commas).
ru_csv = os.path.join(tempfile.mkdtemp(prefix="assay-ask-data-"), "выручка.csv")
with open(ru_csv, "wb") as f:
    f.write("Регион;Выручка;Дата\r\nМосква;1 234,50;01.02.2026\r\nКазань;987,10;15.03.2026\r\n"
            "Самара;2 000,00;31.12.2026\r\n".encode("cp1251"))
read_code = ("import pandas as pd\ndf = pd.read_csv('/data/выручка.csv', sep=';', encoding='cp1251', "
             "decimal=',', thousands=' ')\nprint('total', round(df['Выручка'].sum(), 2))")
r = run_case([{"flavor": "openai", "turn": {"tool_calls": [call("execute_python", read_code)]}},
              answer("openai", "4221.6")], extra_args=["--data", ru_csv])
reqs = r.chat_requests()
system = reqs[0]["body"]["messages"][0].get("content", "") if reqs else ""
system = text_of(system)
report("/data/выручка.csv" in system and "sep=';'" in system and "decimal=','" in system
       and "encoding='cp1251'" in system and "Выручка: float" in system,
       "dataset: the system prompt has the sniffed dialect, schema and read_csv call", system[-3000:])
tools = openai_tool_messages(reqs[-1]) if len(reqs) == 2 else []
report(r.rc == 0 and tools and "total 4221.6" in text_of(tools[0].get("content")),
       "dataset: the suggested call reads the file right in the sandbox", r.detail())

# The check of an answer's numbers on each wire: the draft goes back as a user message that
# names the number no cell printed; the second reply is the answer.
for flavor in ("openai", "anthropic"):
    r = run_case([answer(flavor, "The answer is 41."), answer(flavor, "Checked: nothing computes 41.")],
                 provider=flavor, check_numbers=True)
    requests = r.chat_requests()
    last = requests[-1]["body"].get("messages", [])[-1] if len(requests) == 2 else {}
    report(r.rc == 0 and len(requests) == 2 and last.get("role") == "user"
           and "41" in text_of(last.get("content")) and "no output" in text_of(last.get("content"))
           and "Checked: nothing computes 41." in r.out
           and "Not found in any output: 41" in r.err,
           "%s: an answer with a number no cell printed goes back once as a user message" % flavor,
           r.detail())
    # The reports leave the draft out of their body; what was sent keeps it, marked as a draft.
    html = os.path.join(r.workdir, "report.html")
    exported = subprocess.run([CLI, "export", os.path.join(r.workdir, "session"), "--with-requests", "-o", html],
                              capture_output=True, text=True)
    page = open(html, encoding="utf-8").read() if exported.returncode == 0 else ""
    body = page.split("Draft answer, sent back by the number check")[0]
    report(exported.returncode == 0 and "Draft answer, sent back by the number check" in page
           and "The answer is 41." in page.split("Draft answer, sent back by the number check", 1)[-1]
           and "The answer is 41." not in body,
           "%s: the reports' record of what was sent marks the draft as one" % flavor,
           exported.stderr[-1000:] + page[-1500:])

# What was sent: every request body kept in the session exactly as the server received it
# (its SHA-256 and size), with the host and the usage the server reported; never the key.
for flavor in ("openai", "anthropic"):
    r = run_case([{"flavor": flavor, "turn": {"text": "Let me compute.",
                                              "tool_calls": [call("execute_python", "print(6*7)")],
                                              "usage": {"input": 1200, "output": 30, "cached": 1024, "reasoning": 7}}},
                  answer(flavor)], provider=flavor)
    session = os.path.join(r.workdir, "session")
    listed = subprocess.run([CLI, "session", "requests", "--json", session], capture_output=True, text=True)
    received = r.chat_requests()
    ok = listed.returncode == 0 and len(received) == 2
    problems = []
    if ok:
        kept = json.loads(listed.stdout)
        ok = len(kept) == 2
        for n, (entry, got) in enumerate(zip(kept, received), start=1):
            body = subprocess.run([CLI, "session", "request", session, str(n)], capture_output=True)
            sent = body.stdout[:-1] if body.stdout.endswith(b"\n") else body.stdout
            if body.returncode != 0 or hashlib.sha256(sent).hexdigest() != got["body_sha256"]:
                problems.append("request %d: the kept body is not what the server received" % n)
            if entry["sha256"] != got["body_sha256"] or entry["bytes_out"] != got["body_bytes"]:
                problems.append("request %d: %r vs %r" % (n, entry, got))
            if not entry["host"].startswith("127.0.0.1:") or entry["step"] != n or entry["bytes_in"] <= 0:
                problems.append("request %d: host, step or bytes in: %r" % (n, entry))
            if KEY.encode() in sent:
                problems.append("request %d holds the key" % n)
        first = kept[0] if kept else {}
        # Anthropic's input_tokens leave its cache reads out: Assay counts all input.
        expected_input = 1200 + 1024 if flavor == "anthropic" else 1200
        if first.get("input_tokens") != expected_input or first.get("output_tokens") != 30 \
                or first.get("cached_input_tokens") != 1024:
            problems.append("usage: %r" % first)
        if flavor == "openai" and first.get("reasoning_tokens") != 7:
            problems.append("reasoning tokens: %r" % first)
        for root, _, names in os.walk(session):
            for name in names:
                with open(os.path.join(root, name), "rb") as f:
                    if KEY.encode() in f.read():
                        problems.append("%s holds the key" % name)
    report(ok and not problems, "%s: every request kept exactly as the server received it, with its usage" % flavor,
           "\n".join(problems) + "\n" + listed.stdout[-2000:] + listed.stderr[-500:])

finish()
