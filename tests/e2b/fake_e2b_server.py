#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A local stand-in for E2B, for Assay's tests. It is NOT E2B.

Written from E2B's published sources (github.com/e2b-dev/E2B at b8029973a: spec/openapi.yml,
spec/envd/filesystem/filesystem.proto, packages/python-sdk/e2b/connection_config.py,
sandbox_sync/main.py, sandbox_sync/filesystem/filesystem.py; github.com/e2b-dev/code-interpreter
at 7df1757: template/server/main.py, messaging.py, stream.py, api/models/*.py), it answers
on one loopback port what three E2B services answer on theirs:

- the control plane (api.<domain>): POST /sandboxes {templateID, timeout, ...} with X-API-Key
  -> 201 {sandboxID, templateID, clientID, envdVersion, envdAccessToken, domain};
  GET /sandboxes/{id}; DELETE /sandboxes/{id} -> 204; POST /sandboxes/{id}/timeout {timeout}
  -> 204; POST /sandboxes/{id}/pause -> 204; POST /sandboxes/{id}/connect {timeout} -> 200/201
  (201 when it was paused) with the sandbox; POST /sandboxes/{id}/resume {timeout}, the older
  form, for a paused one only.
  Errors are {"code": N, "message": "..."}.
- envd (49983-<id>.<domain>): GET/POST /files?path=&username= (octet-stream upload answers
  [{name, type, path}]), POST /filesystem.Filesystem/ListDir (Connect's JSON: {"path","depth"}
  -> {"entries":[{name, type: "FILE_TYPE_FILE", path, size (a string: int64), modifiedTime}]}),
  GET /health.
- the code interpreter (49999-<id>.<domain>): POST /execute {code, language|context_id}
  -> NDJSON lines {"type":"stdout"|"stderr","text","timestamp"}, {"type":"result", "text",
  "html", "png", ..., "is_main_result"}, {"type":"error","name","value","traceback"},
  {"type":"number_of_executions","execution_count"}, {"type":"keepalive"}, and last
  {"type": "end_of_execution"}. A client that goes away mid-cell interrupts the kernel, as
  messaging.py does (#213).

The SDKs reach the sandbox's hosts at E2B_SANDBOX_URL when it is set, naming the sandbox in
the E2b-Sandbox-Id header and authenticating with X-Access-Token; so does Assay, and that is
how the tests point it here (E2B_API_URL for the control plane).

Unlike E2B the kernel is not Jupyter: a small Python REPL (KERNEL below) in a subprocess,
inside bubblewrap on Assay's sandbox tree when --rootfs is given (so pandas and matplotlib are
there and /data, /workspace are the sandbox's own), with the sandbox's files under --state.
The outputs are real: the code really runs.

Test hooks, which E2B does not have: --create-429 N answers the first N creates with 429 and
Retry-After; a cell whose code contains E2B_FAKE_CUT_STREAM has its response cut after the first
event; one that contains E2B_FAKE_EXPIRE finds its sandbox expired (gone, as at its timeout).
GET /_fake/requests lists what was asked (method, path, header names). Pausing SIGSTOPs the
kernel's processes (their state kept), /connect or /resume SIGCONTs them; POST /_fake/forget
forgets every paused sandbox (as E2B does after a time), and so does --paused-lifetime S.
"""

import argparse
import base64
import datetime
import http.server
import json
import os
import queue
import secrets
import select
import shutil
import signal
import socketserver
import subprocess
import sys
import threading
import time
import urllib.parse

KERNEL = r'''
import ast, base64, io, json, os, signal, sys, traceback
# The fake starts the kernel with SIGINT ignored, so that bubblewrap's own processes outlive
# an interrupt; the kernel takes it as Jupyter's does: in a cell, KeyboardInterrupt; between
# cells, nothing.
running = False
def interrupted(number, frame):
    if running:
        raise KeyboardInterrupt
signal.signal(signal.SIGINT, interrupted)
out = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
def emit(obj):
    out.write(json.dumps(obj) + "\n"); out.flush()
class Stream(io.TextIOBase):
    def __init__(self, name): self.name = name
    def writable(self): return True
    def write(self, text):
        if text: emit({"type": self.name, "text": text, "timestamp": ""})
        return len(text)
sys.stdout, sys.stderr = Stream("stdout"), Stream("stderr")
try:
    import matplotlib
    matplotlib.use("Agg")
except Exception:
    pass
namespace = {"__name__": "__main__"}
count = 0
def bundle(value):
    data = {"text/plain": repr(value)}
    html = getattr(value, "_repr_html_", None)
    if callable(html):
        try:
            data["text/html"] = html()
        except Exception:
            pass
    return data
def figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for number in plt.get_fignums():
        buffer = io.BytesIO()
        plt.figure(number).savefig(buffer, format="png")
        emit({"type": "result", "png": base64.b64encode(buffer.getvalue()).decode(), "is_main_result": False,
              "text": "<Figure>"})
    plt.close("all")
for line in sys.stdin:
    request = json.loads(line)
    count += 1
    emit({"type": "number_of_executions", "execution_count": count})
    try:
        running = True
        tree = ast.parse(request["code"], "<cell>")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
            if value is not None:
                data = bundle(value)
                emit({"type": "result", "text": data["text/plain"], "html": data.get("text/html"),
                      "is_main_result": True})
        figures()
        running = False
    except BaseException as error:
        running = False
        frames = traceback.extract_tb(error.__traceback__)[1:]
        lines = ["Traceback (most recent call last):\n"] + traceback.format_list(frames) + \
            traceback.format_exception_only(type(error), error)
        emit({"type": "error", "name": type(error).__name__, "value": str(error), "traceback": "".join(lines)})
    emit({"type": "end_of_execution"})
'''


class Sandbox:
    def __init__(self, server, template, timeout, metadata):
        self.id = "i" + secrets.token_hex(8)
        self.metadata = metadata if isinstance(metadata, dict) else {}
        self.template = template
        self.token = secrets.token_hex(16)
        self.root = os.path.join(server.state, self.id)
        self.paused = False
        self.paused_at = 0.0
        self.killed = False
        self.end_at = time.time() + timeout
        self.lock = threading.Lock()
        for name in ("data", "workspace", "home", "tmp"):
            os.makedirs(os.path.join(self.root, name))
        kernel = os.path.join(self.root, "kernel.py")
        with open(kernel, "w") as f:
            f.write(KERNEL)
        if server.rootfs:
            # No --die-with-parent: its PR_SET_PDEATHSIG follows the thread that started bwrap,
            # a request's, which ends. The kernel ends at the end of its stdin instead.
            command = ["bwrap", "--unshare-all",
                       "--ro-bind", server.rootfs, "/", "--proc", "/proc", "--dev", "/dev",
                       "--bind", os.path.join(self.root, "tmp"), "/tmp",
                       "--bind", os.path.join(self.root, "data"), "/data",
                       "--bind", os.path.join(self.root, "workspace"), "/workspace",
                       "--ro-bind", kernel, "/tmp/kernel.py", "--chdir", "/workspace",
                       "--setenv", "HOME", "/tmp", "--setenv", "MPLBACKEND", "Agg",
                       "python3", "-u", "/tmp/kernel.py"]
        else:
            command = [sys.executable, "-u", kernel]
        self.command = command
        self.stderr = open(os.path.join(server.state, self.id + ".stderr"), "w+")
        self.start_kernel()

    def start_kernel(self):
        """Starts the kernel, or starts it again when it died (as Jupyter restarts a dead one)."""
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, cwd=os.path.join(self.root, "workspace"),
                                        text=True, start_new_session=True,
                                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        self.events = queue.Queue()
        threading.Thread(target=self._read, args=(self.process, self.events), daemon=True).start()

    def _read(self, process, events):
        for line in process.stdout:
            events.put(json.loads(line))
        events.put(None)
        process.wait()
        if process.returncode != 0 and not self.killed:
            self.stderr.seek(0)
            print(f"fake E2B: the kernel of {self.id} ended with {process.returncode}:",
                  self.stderr.read()[-2000:], file=sys.stderr, flush=True)

    def host_path(self, path):
        """The host file behind a sandbox path, or None outside the sandbox's folders."""
        path = os.path.normpath(path)
        for prefix, folder in (("/data", "data"), ("/workspace", "workspace"), ("/home/user", "home")):
            if path == prefix or path.startswith(prefix + "/"):
                return os.path.join(self.root, folder, path[len(prefix):].lstrip("/"))
        return None

    def signal(self, number):
        try:
            os.killpg(self.process.pid, number)
        except ProcessLookupError:
            pass

    def kill(self):
        self.killed = True
        self.signal(signal.SIGKILL)
        self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def send_json(self, code, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_empty(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def error(self, code, message, headers=()):
        self.send_json(code, {"code": code, "message": message}, headers)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def record(self):
        self.server.requests.append({"method": self.command, "path": self.path,
                                     "headers": sorted(self.headers.keys())})

    # The control plane and the sandbox's hosts share the port: a request naming a sandbox in
    # E2b-Sandbox-Id is for the sandbox (the SDK's E2B_SANDBOX_URL routing).
    def route(self):
        self.record()
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_fake/requests":
            return self.send_json(200, self.server.requests)
        if url.path == "/_fake/forget" and self.command == "POST":
            # E2B keeps a paused sandbox for a time only: forget every paused one now.
            with self.server.lock:
                paused = [s for s in self.server.sandboxes.values() if s.paused]
            for sandbox in paused:
                self.server.remove(sandbox)
            return self.send_json(200, [s.id for s in paused])
        if self.headers.get("E2b-Sandbox-Id"):
            return self.sandbox_request(url)
        return self.control_request(url)

    do_GET = do_POST = do_DELETE = route

    def control_request(self, url):
        if self.headers.get("X-API-Key") != self.server.key:
            return self.error(401, "Invalid API key")
        parts = url.path.strip("/").split("/")
        server = self.server
        if parts == ["sandboxes"] and self.command == "POST":
            request = json.loads(self.body() or b"{}")
            if not isinstance(request.get("templateID"), str):
                return self.error(400, "templateID is required")
            with server.lock:
                if server.create_429 > 0:
                    server.create_429 -= 1
                    return self.error(429, "Rate limit exceeded", [("Retry-After", "1")])
            sandbox = Sandbox(server, request["templateID"], int(request.get("timeout", 15)),
                              request.get("metadata"))
            with server.lock:
                server.sandboxes[sandbox.id] = sandbox
            return self.send_json(201, {"sandboxID": sandbox.id, "templateID": sandbox.template,
                                        "clientID": "fake", "envdVersion": "0.6.7",
                                        "envdAccessToken": sandbox.token, "domain": None})
        if parts == ["sandboxes"] and self.command == "GET":
            return self.send_json(200, [{"sandboxID": s.id, "templateID": s.template, "metadata": s.metadata,
                                         "state": "paused" if s.paused else "running"}
                                        for s in server.live()])
        if len(parts) < 2 or parts[0] != "sandboxes":
            return self.error(404, "Not found")
        sandbox = server.find(parts[1])
        if sandbox is None:
            return self.error(404, f"Sandbox {parts[1]} not found")
        action = parts[2] if len(parts) > 2 else None
        if action is None and self.command == "GET":
            return self.send_json(200, {"sandboxID": sandbox.id, "templateID": sandbox.template,
                                        "state": "paused" if sandbox.paused else "running"})
        if action is None and self.command == "DELETE":
            server.remove(sandbox)
            return self.send_empty(204)
        if action == "timeout" and self.command == "POST":
            sandbox.end_at = time.time() + int(json.loads(self.body() or b"{}").get("timeout", 15))
            return self.send_empty(204)
        if action == "pause" and self.command == "POST":
            if sandbox.paused:
                return self.error(409, "Sandbox is already paused")
            sandbox.signal(signal.SIGSTOP)
            sandbox.paused = True
            sandbox.paused_at = time.time()
            return self.send_empty(204)
        if action == "resume" and self.command == "POST":
            # The older endpoint: a paused sandbox only (409 for a running one).
            if not sandbox.paused:
                return self.error(409, "Sandbox is already running")
            action = "connect"
        if action == "connect" and self.command == "POST":
            sandbox.end_at = time.time() + int(json.loads(self.body() or b"{}").get("timeout", 15))
            was_paused = sandbox.paused
            sandbox.signal(signal.SIGCONT)
            sandbox.paused = False
            return self.send_json(201 if was_paused else 200, {"sandboxID": sandbox.id,
                                                                "envdAccessToken": sandbox.token})
        return self.error(404, "Not found")

    def sandbox_request(self, url):
        sandbox = self.server.find(self.headers["E2b-Sandbox-Id"])
        if sandbox is None or sandbox.paused:
            # What E2B's proxy answers for a sandbox that is not running.
            return self.send_json(502, {"sandboxId": self.headers["E2b-Sandbox-Id"],
                                        "message": "The sandbox was not found", "code": 502})
        if self.headers.get("X-Access-Token") != sandbox.token:
            return self.error(401, "invalid access token")
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/health":
            return self.send_empty(204)
        if url.path == "/files":
            path = sandbox.host_path(query.get("path", [""])[0])
            if path is None:
                return self.error(403, "permission denied")
            if self.command == "GET":
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                except OSError:
                    return self.error(404, "file not found")
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                return self.wfile.write(data)
            if self.command == "POST":
                if self.headers.get("Content-Type") != "application/octet-stream":
                    return self.error(400, "this fake takes octet-stream uploads only")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(self.body())
                return self.send_json(200, [{"name": os.path.basename(path), "type": "file",
                                             "path": query["path"][0]}])
        if url.path == "/filesystem.Filesystem/ListDir" and self.command == "POST":
            request = json.loads(self.body() or b"{}")
            root = sandbox.host_path(request.get("path", ""))
            if root is None or not os.path.isdir(root):
                return self.send_json(404, {"code": "not_found", "message": "directory not found"})
            depth = int(request.get("depth", 1))
            entries = []
            for folder, dirs, files in os.walk(root):
                level = os.path.relpath(folder, root).count(os.sep) + (folder != root)
                if level >= depth:
                    dirs[:] = []
                for name in dirs + files:
                    full = os.path.join(folder, name)
                    info = os.lstat(full)
                    kind = ("FILE_TYPE_SYMLINK" if os.path.islink(full) else
                            "FILE_TYPE_DIRECTORY" if os.path.isdir(full) else "FILE_TYPE_FILE")
                    sandbox_path = request["path"].rstrip("/") + "/" + os.path.relpath(full, root)
                    modified = datetime.datetime.fromtimestamp(info.st_mtime, datetime.timezone.utc)
                    entries.append({"name": name, "type": kind, "path": sandbox_path,
                                    "size": str(info.st_size), "mode": info.st_mode & 0o777,
                                    "modifiedTime": modified.isoformat().replace("+00:00", "Z")})
            return self.send_json(200, {"entries": entries})
        if url.path == "/execute" and self.command == "POST":
            return self.execute(sandbox, json.loads(self.body() or b"{}"))
        return self.error(404, "Not found")

    def chunk(self, obj):
        data = (json.dumps(obj) + "\n").encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def client_gone(self):
        readable, _, _ = select.select([self.connection], [], [], 0)
        return bool(readable) and self.connection.recv(1, socket_peek()) == b""

    def execute(self, sandbox, request):
        code = request.get("code")
        if not isinstance(code, str):
            return self.error(422, "code is required")
        if "E2B_FAKE_EXPIRE" in code:
            self.server.remove(sandbox)
            return self.send_json(502, {"sandboxId": sandbox.id, "message": "The sandbox was not found",
                                        "code": 502})
        with sandbox.lock:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            sandbox.process.stdin.write(json.dumps({"code": code}) + "\n")
            sandbox.process.stdin.flush()
            sent = 0
            connected = True
            while True:
                try:
                    event = sandbox.events.get(timeout=0.2)
                except queue.Empty:
                    if connected and self.client_gone():
                        connected = False
                        sandbox.signal(signal.SIGINT)
                    continue
                if event is None:
                    # The kernel died (out of memory, os._exit): Jupyter starts it again and the
                    # interpreter ends the execution with ContextRestarting (messaging.py).
                    if sandbox.killed:
                        self.close_connection = True
                        return
                    sandbox.start_kernel()
                    event = {"type": "error", "name": "ContextRestarting", "value": "Context was restarted",
                             "traceback": ""}
                    if connected:
                        self.chunk(event)
                    break
                if event["type"] == "end_of_execution":
                    break
                if not connected:
                    continue
                try:
                    self.chunk({k: v for k, v in event.items() if v is not None})
                except OSError:
                    connected = False
                    sandbox.signal(signal.SIGINT)
                    continue
                sent += event["type"] == "stdout"
                if sent == 1 and "E2B_FAKE_CUT_STREAM" in code:
                    # The connection drops mid-cell: no more events, no end of the chunked body.
                    connected = False
                    self.close_connection = True
                    self.connection.shutdown(2)
            if connected:
                self.chunk({"type": "end_of_execution"})
                self.wfile.write(b"0\r\n\r\n")


def socket_peek():
    import socket
    return socket.MSG_PEEK


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def live(self):
        now = time.time()
        with self.lock:
            expired = [s for s in self.sandboxes.values()
                       if (s.end_at < now and not s.paused) or
                       (s.paused and self.paused_lifetime is not None and s.paused_at + self.paused_lifetime < now)]
        for sandbox in expired:
            self.remove(sandbox)
        with self.lock:
            return list(self.sandboxes.values())

    def find(self, sandbox_id):
        return next((s for s in self.live() if s.id == sandbox_id), None)

    def remove(self, sandbox):
        with self.lock:
            self.sandboxes.pop(sandbox.id, None)
        sandbox.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port-file", required=True, help="where the port chosen is written")
    parser.add_argument("--state", required=True, help="folder for the sandboxes' files")
    parser.add_argument("--key", required=True, help="the API key it accepts")
    parser.add_argument("--rootfs", help="Assay's sandbox tree, run with bubblewrap")
    parser.add_argument("--create-429", type=int, default=0)
    parser.add_argument("--paused-lifetime", type=float, help="seconds a paused sandbox is kept (default: forever)")
    args = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    server.key = args.key
    server.state = args.state
    server.rootfs = args.rootfs
    server.create_429 = args.create_429
    server.paused_lifetime = args.paused_lifetime
    server.sandboxes = {}
    server.requests = []
    server.lock = threading.Lock()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    for sandbox in list(server.sandboxes.values()):
        sandbox.kill()


if __name__ == "__main__":
    main()
