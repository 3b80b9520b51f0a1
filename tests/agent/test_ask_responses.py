#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`assay-cli ask --api responses` against the fake server speaking OpenAI's Responses API
(its documented streaming events), with the real sandbox (bubblewrap) running the code: a
question answered through a tool call, the reasoning items carried into the next request,
429 then an answer, a cut stream, response.failed, what the session keeps of it.

    test_ask_responses.py ASSAY_CLI FAKE_SERVER.py

Prints TAP."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ask_harness import *  # noqa: E402,F401,F403
import ask_harness  # noqa: E402

ask_harness.configure(sys.argv[1], sys.argv[2])
CLI = sys.argv[1]
ARGS = ["--api", "responses", "--backend", "bwrap"]
ENCRYPTED = "gAAAAABo-encrypted-reasoning-of-turn-1"


def items(request, kind):
    return [i for i in request["body"].get("input", []) if i.get("type") == kind]


def turn(text="", calls=(), reasoning=None, usage=None):
    t = {"text": text, "tool_calls": list(calls)}
    if reasoning:
        t["reasoning"] = reasoning
    if usage:
        t["usage"] = usage
    return t


counter_code = ("import os\np = '/workspace/runs.txt'\nn = int(open(p).read()) + 1 if os.path.exists(p) else 1\n"
                "open(p, 'w').write(str(n))\nprint('runs', n, 6 * 7)")

# 1. A question answered end to end through a tool call, the reasoning carried between turns.
r = run_case([{"flavor": "responses",
               "turn": turn("Let me compute.", [call("execute_python", "print(6*7)")],
                            {"summary": "Compute the product in Python.", "encrypted": ENCRYPTED},
                            {"input": 1500, "cached": 1024, "output": 200, "reasoning": 128})},
              {"flavor": "responses", "turn": turn("The answer is 42.")}],
             extra_args=ARGS, model="gpt-5-mini")
reqs = r.chat_requests()
outputs = items(reqs[-1], "function_call_output") if len(reqs) == 2 else []
report(r.rc == 0 and "The answer is 42." in r.out and len(r.cells()) == 1 and len(reqs) == 2
       and all(q["path"] == "/v1/responses" for q in reqs)
       and len(outputs) == 1 and "42" in outputs[0].get("output", ""),
       "responses: a tool call runs once in the sandbox, its output goes back as function_call_output",
       r.detail())
first = reqs[0]["body"] if reqs else {}
report(first.get("stream") is True and first.get("store") is False
       and first.get("include") == ["reasoning.encrypted_content"]
       and "messages" not in first and "Assay" in first.get("instructions", "")
       and any(t.get("type") == "function" and t.get("name") == "execute_python" and "parameters" in t
               and t.get("strict") is False for t in first.get("tools", []))
       and first.get("input", [{}])[0].get("role") == "user",
       "responses: streams, store false, encrypted reasoning asked for, instructions, flat function tools",
       json.dumps(first)[:2000])
reasoning = items(reqs[-1], "reasoning") if len(reqs) == 2 else []
kinds = [i.get("type") for i in reqs[-1]["body"].get("input", [])] if len(reqs) == 2 else []
report(len(reasoning) == 1 and reasoning[0].get("encrypted_content") == ENCRYPTED
       and reasoning[0].get("id", "").startswith("rs_")
       and kinds.index("reasoning") < kinds.index("function_call") < kinds.index("function_call_output"),
       "responses: the turn's reasoning item goes back in the next request, before its call", json.dumps(kinds))
session = os.path.join(r.workdir, "session")
try:
    record = json.load(open(os.path.join(session, "session.json")))
except (OSError, ValueError):
    record = {}
assistants = [m for m in record.get("messages", []) if m.get("role") == "assistant"]
report(bool(assistants) and ENCRYPTED in (assistants[0].get("reasoning") or ""),
       "responses: the session keeps the reasoning with the assistant's turn", json.dumps(assistants)[:1500])
listed = subprocess.run([CLI, "session", "requests", "--json", session], capture_output=True, text=True)
try:
    kept = json.loads(listed.stdout)
except ValueError:
    kept = []
report(len(kept) == 2 and kept[0].get("input_tokens") == 1500 and kept[0].get("cached_input_tokens") == 1024
       and kept[0].get("output_tokens") == 200 and kept[0].get("reasoning_tokens") == 128,
       "responses: the record keeps each request's usage, cached and reasoning tokens included",
       listed.stdout[:2000] + listed.stderr[-500:])

# 2. 429 with retry-after on the turn after a cell: retried, the cell ran exactly once.
r = run_case([{"flavor": "responses", "turn": turn("", [call("execute_python", counter_code)])},
              {"flavor": "responses", "status": 429, "message": "Rate limit reached for gpt-5-mini",
               "headers": {"retry-after": "2"}},
              {"flavor": "responses", "turn": turn("Done.")}], extra_args=ARGS)
reqs = r.chat_requests()
outputs = items(reqs[-1], "function_call_output") if reqs else []
report(r.rc == 0 and len(reqs) == 3 and len(r.cells()) == 1 and outputs
       and "runs 1 42" in outputs[0].get("output", "") and "retry" in r.err.lower(),
       "responses: 429 with retry-after is retried, the cell is not run again", r.detail())

# 3. A stream cut in the middle of the call's arguments: retried whole, one cell.
# (events: response.created, .in_progress, the call's output_item.added, then its deltas)
r = run_case([{"flavor": "responses", "cut_after_events": 6,
               "turn": turn("", [call("execute_python", counter_code)])},
              {"flavor": "responses", "turn": turn("", [call("execute_python", counter_code)])},
              {"flavor": "responses", "turn": turn("Done.")}], extra_args=ARGS)
reqs = r.chat_requests()
outputs = items(reqs[-1], "function_call_output") if reqs else []
report(r.rc == 0 and len(reqs) == 3 and len(r.cells()) == 1 and outputs
       and "runs 1" in outputs[0].get("output", ""),
       "responses: a cut stream is retried, the cell runs once", r.detail())

# 4. response.failed every time: given up after the retries, exit 3 with the server's reason.
r = run_case([{"flavor": "responses",
               "turn": {"failed": {"code": "server_error", "message": "The model failed to generate a response."}}}],
             extra_args=ARGS)
report(r.rc == 3 and len(r.chat_requests()) == 4 and "The model failed to generate a response." in r.err,
       "responses: response.failed is retried, then exit 3 with the server's reason", r.detail())

# 5. Without --api a local server stays on Chat Completions; a wrong --api is a usage error.
r = run_case([answer("openai")], extra_args=["--backend", "bwrap"])
report(r.rc == 0 and [q["path"] for q in r.chat_requests()] == ["/v1/chat/completions"],
       "without --api, a server other than api.openai.com is asked through Chat Completions", r.detail())
r = run_case([answer("openai")], extra_args=["--api", "assistants", "--backend", "bwrap"])
report(r.rc == 2 and not r.chat_requests() and "assistants" in r.err,
       "--api assistants: a usage error, nothing sent", r.detail())

finish()
