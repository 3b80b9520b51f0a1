# SPDX-License-Identifier: GPL-3.0-or-later
"""What the `assay-cli ask` tests against the fake model servers share: running one scenario
(a fake server scripted with RESPONSES, the CLI against it, every request it received read
back) and TAP reporting. configure () first, with the CLI and the server script."""
import json
import os
import subprocess
import sys
import tempfile

CLI = None
SERVER = None
KEY = "sk-test-0123456789abcdefSECRET"

results = []


def report(ok, name, detail=""):
    results.append(ok)
    print(("ok" if ok else "not ok") + " %d - %s" % (len(results), name))
    if not ok and detail:
        for line in str(detail).splitlines()[-40:]:
            print("#   " + line)
    sys.stdout.flush()


def call(name, code, description="compute"):
    return {"name": name, "arguments": json.dumps({"code": code, "description": description})}


class Run:
    def __init__(self, rc, out, err, requests, workdir):
        self.rc, self.out, self.err, self.requests, self.workdir = rc, out, err, requests, workdir
        try:
            self.json = json.loads(out) if out.strip().startswith("{") else None
        except ValueError:
            self.json = None

    def chat_requests(self):
        return [r for r in self.requests if r["method"] == "POST"]

    def cells(self):
        return (self.json or {}).get("cells", [])

    def detail(self):
        return "rc=%d\nstdout:\n%s\nstderr:\n%s" % (self.rc, self.out, self.err)


def run_case(responses, question="What is six times seven?", provider="openai",
             extra_args=(), key=KEY, env_extra=None, check_numbers=False, bind=None,
             model="test-model"):
    workdir = tempfile.mkdtemp(prefix="assay-ask-")
    script = os.path.join(workdir, "script.json")
    log = os.path.join(workdir, "requests.jsonl")
    with open(script, "w") as f:
        json.dump({"responses": responses}, f)
    server_env = dict(os.environ)
    if bind:
        server_env["FAKE_LLM_BIND"] = bind
    server = subprocess.Popen([sys.executable, SERVER, script, log],
                              stdout=subprocess.PIPE, text=True, env=server_env)
    try:
        port = int(server.stdout.readline())
        base = "http://%s:%d/v1" % (bind or "127.0.0.1", port)
        env = dict(os.environ)
        for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ASSAY_API_KEY"):
            env.pop(k, None)
        if key:
            env["ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"] = key
        env["ASSAY_LLM_RETRY_SCALE"] = "0.01"
        env.update(env_extra or {})
        out_dir = os.path.join(workdir, "session")
        cmd = [CLI, "ask", "--provider", provider, "--base-url", base, "--model", model,
               "--yes", "--json", "--out", out_dir] + list(extra_args) + [question]
        # The wire-format cases script their turns: an answer whose numbers no cell printed
        # would get a turn more (the check has its own cases below).
        if not check_numbers:
            cmd.insert(2, "--no-check-numbers")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    finally:
        server.kill()
        server.wait()
    requests = []
    if os.path.exists(log):
        with open(log) as f:
            requests = [json.loads(line) for line in f if line.strip()]
    return Run(proc.returncode, proc.stdout, proc.stderr, requests, workdir)


def openai_tool_messages(request):
    return [m for m in request["body"].get("messages", []) if m.get("role") == "tool"]


def anthropic_tool_results(request):
    found = []
    for m in request["body"].get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            found += [b for b in m["content"] if b.get("type") == "tool_result"]
    return found


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def answer(flavor, text="The answer is 42."):
    return {"flavor": flavor, "turn": {"text": text}}


def configure(cli, server):
    global CLI, SERVER
    CLI, SERVER = cli, server


def finish():
    print("1..%d" % len(results))
    sys.exit(0 if all(results) else 1)
