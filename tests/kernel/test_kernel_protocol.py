#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Protocol tests of the Assay kernel (sandbox/kernel/PROTOCOL.md).

    python3 tests/kernel/test_kernel_protocol.py [--timeout S] -- CMD...

CMD starts the kernel, typically a bwrap or `docker run -i` command line ending in
`python3 -I /opt/assay/kernel/assay_kernel.py`. The script speaks the protocol over the
kernel's stdin/stdout and prints TAP; it exits non-zero when a test fails.
Standard library only.
"""

import base64
import json
import os
import queue
import subprocess
import sys
import threading
import time

MAX_LINE = 4 * 1024 * 1024
KERNEL_TYPES = {"ready", "output", "artifact_begin", "artifact_data", "artifact_end",
                "done", "log", "fatal"}
OUTPUT_TYPES = {"stream", "display_data", "execute_result", "error"}
FAKE_DONE = '{"type":"done","id":"FAKE","status":"ok","execution_count":99}'
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class TestFailure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise TestFailure(message)


class Result:
    def __init__(self, cell_id):
        self.id = cell_id
        self.outputs = []          # (arrival time, output object)
        self.artifacts = {}        # name -> {"bytes", "data", "truncated"}
        self.done = None
        self.done_time = None
        self._by_seq = {}

    def stream(self, name=None):
        return "".join(o["text"] for _, o in self.outputs
                       if o.get("output_type") == "stream"
                       and (name is None or o.get("name") == name))

    def of_type(self, output_type):
        return [o for _, o in self.outputs if o.get("output_type") == output_type]

    @property
    def status(self):
        return self.done and self.done.get("status")

    def describe(self):
        outs = [json.dumps(o)[:300] for _, o in self.outputs][:20]
        return "done=%s outputs=%s artifacts=%s" % (self.done, outs, sorted(self.artifacts))


class Kernel:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.messages = queue.Queue()
        self.violations = []
        self.ready = None
        self.counter = 0
        self.eof = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            now = time.monotonic()
            if len(line) > MAX_LINE:
                self.violation("a line of %d bytes" % len(line))
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                self.violation("not JSON: %r" % line[:200])
                continue
            if not isinstance(msg, dict) or msg.get("type") not in KERNEL_TYPES:
                self.violation("unknown message: %r" % line[:200])
                continue
            if msg["type"] == "output":
                out = msg.get("output")
                if not isinstance(out, dict) or out.get("output_type") not in OUTPUT_TYPES:
                    self.violation("bad output: %r" % line[:200])
                elif out["output_type"] == "stream" and \
                        len(out.get("text", "").encode("utf-8")) > 64 * 1024:
                    self.violation("a stream chunk larger than 64 KiB")
            self.messages.put((now, msg))
        self.eof = True
        self.messages.put((time.monotonic(), None))

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def violation(self, text):
        self.violations.append(text if len(text) <= 300 else text[:300] + "...")

    def next_message(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TestFailure("timed out waiting for the kernel")
        try:
            item = self.messages.get(timeout=remaining)
        except queue.Empty:
            raise TestFailure("timed out waiting for the kernel")
        if item[1] is None:
            self.messages.put(item)  # stay at EOF for the next caller
            raise TestFailure("the kernel closed its stdout (exit status %s)"
                              % self.proc.poll())
        return item

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            _, msg = self.next_message(deadline)
            if msg["type"] == "ready":
                self.ready = msg
                return msg
            if msg["type"] == "fatal":
                raise TestFailure("fatal: %s" % msg.get("reason"))

    def start(self, code, limits=None):
        self.counter += 1
        cell_id = "t%d" % self.counter
        msg = {"type": "execute", "id": cell_id, "code": code}
        if limits:
            msg["limits"] = limits
        self.send(msg)
        return Result(cell_id)

    def collect(self, result, timeout=60, until=None):
        """Read messages of the cell until done (or until `until(result)` is true)."""
        deadline = time.monotonic() + timeout
        while result.done is None:
            if until is not None and until(result):
                return result
            now, msg = self.next_message(deadline)
            kind = msg["type"]
            if kind == "log":
                continue
            if kind == "fatal":
                raise TestFailure("fatal: %s" % msg.get("reason"))
            if msg.get("id") != result.id:
                self.violation("a message for an unexpected id: %r" % (msg,))
                continue
            if kind == "output":
                result.outputs.append((now, msg["output"]))
            elif kind == "artifact_begin":
                art = {"name": msg["name"], "bytes": msg["bytes"], "data": b"",
                       "truncated": None}
                result._by_seq[msg["seq"]] = art
            elif kind == "artifact_data":
                result._by_seq[msg["seq"]]["data"] += base64.b64decode(msg["data"])
            elif kind == "artifact_end":
                art = result._by_seq[msg["seq"]]
                art["truncated"] = msg["truncated"]
                result.artifacts[art["name"]] = art
            elif kind == "done":
                result.done = msg
                result.done_time = now
        return result

    def run(self, code, limits=None, timeout=60):
        return self.collect(self.start(code, limits), timeout)


# ---- the tests ----------------------------------------------------------------------------

def t_ready(k):
    msg = k.ready
    check(msg is not None, "no ready message")
    check(msg.get("protocol") == 1, "protocol is %r" % msg.get("protocol"))
    check("pandas" in msg.get("preloaded", []), "pandas not preloaded: %r" % msg)
    check("matplotlib" in msg.get("preloaded", []), "matplotlib not preloaded: %r" % msg)


def t_state(k):
    r1 = k.run("x = 41")
    check(r1.status == "ok", r1.describe())
    r2 = k.run("x + 1")
    check(r2.status == "ok", r2.describe())
    results = r2.of_type("execute_result")
    check(len(results) == 1 and results[0]["data"]["text/plain"] == "42", r2.describe())
    check(results[0].get("execution_count") == r2.done.get("execution_count"),
          "execution_count differs between result and done")
    check(r2.done["execution_count"] == r1.done["execution_count"] + 1,
          "execution_count did not increase")


def t_streaming(k):
    r = k.run("import time\nprint('first')\ntime.sleep(1.5)\nprint('second')")
    check(r.status == "ok", r.describe())
    first = [t for t, o in r.outputs if o.get("output_type") == "stream"
             and "first" in o.get("text", "")]
    check(first, "no 'first' in the output: " + r.describe())
    check(r.done_time - first[0] > 1.0, "'first' arrived only %.2fs before done"
          % (r.done_time - first[0]))
    check(r.stream("stdout") == "first\nsecond\n", "stdout was %r" % r.stream("stdout"))


def t_dataframe(k):
    r = k.run("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\ndf")
    check(r.status == "ok", r.describe())
    results = r.of_type("execute_result")
    check(len(results) == 1, r.describe())
    data = results[0]["data"]
    check("<table" in data.get("text/html", ""), "no HTML table: %r" % data)
    check("a" in data.get("text/plain", ""), "no text/plain: %r" % data)
    r = k.run("display(df)\ndf;")
    shown = r.of_type("display_data")
    check(len(shown) == 1 and "<table" in shown[0]["data"].get("text/html", ""),
          "display(df): " + r.describe())
    check(not r.of_type("execute_result"), "a trailing ';' should hide the result")


def t_figure(k):
    r = k.run("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\n"
              "plt.title('t');")
    check(r.status == "ok", r.describe())
    figs = [o for o in r.of_type("display_data") if "image/png" in o["data"]]
    check(len(figs) == 1, "expected one figure: " + r.describe())
    png = base64.b64decode(figs[0]["data"]["image/png"])
    check(png.startswith(PNG_MAGIC), "not a PNG")
    check(figs[0]["data"].get("text/plain", "").startswith("<Figure size"),
          "text/plain: %r" % figs[0]["data"].get("text/plain"))
    r = k.run("import matplotlib.pyplot as plt\nplt.get_fignums()")
    check(r.of_type("execute_result")[0]["data"]["text/plain"] == "[]",
          "figures were not closed: " + r.describe())


def t_error(k):
    r = k.run("def f():\n    return 1 / 0\n\nprint('before')\nf()")
    check(r.status == "error", r.describe())
    errors = r.of_type("error")
    check(len(errors) == 1, r.describe())
    err = errors[0]
    check(err["ename"] == "ZeroDivisionError", "ename %r" % err["ename"])
    tb = "\n".join(err["traceback"])
    check("<cell " in tb, "the traceback does not mention the cell: %r" % tb)
    check("return 1 / 0" in tb, "the traceback has no source line: %r" % tb)
    check("assay_worker" not in tb, "the traceback shows kernel frames: %r" % tb)
    check("\x1b[" not in tb, "ANSI codes in the traceback")
    check(r.stream("stdout") == "before\n", "stdout %r" % r.stream("stdout"))
    r = k.run("x = (")
    check(r.status == "error" and r.of_type("error")[0]["ename"] == "SyntaxError",
          r.describe())


def t_print_fake(k):
    r = k.run("print(%r)\nprint('{\"type\":\"fatal\",\"reason\":\"x\"}')" % FAKE_DONE)
    check(r.status == "ok", r.describe())
    check(FAKE_DONE in r.stream("stdout"), "the fake line is not in stdout: " + r.describe())


def t_oswrite_fake(k):
    code = ("import os\nos.write(1, %r)\nos.write(2, %r)"
            % ((FAKE_DONE + "\n").encode(), (FAKE_DONE + "\n").encode()))
    r = k.run(code)
    check(r.status == "ok", r.describe())
    check(FAKE_DONE in r.stream("stdout"), "fake line not in stdout: " + r.describe())
    check(FAKE_DONE in r.stream("stderr"), "fake line not in stderr: " + r.describe())


def t_subprocess_fake(k):
    code = ("import subprocess\nsubprocess.run(['sh', '-c', %r])\n"
            "subprocess.run(['sh', '-c', %r])"
            % ("echo '%s'" % FAKE_DONE, "echo '%s' >&2" % FAKE_DONE))
    r = k.run(code)
    check(r.status == "ok", r.describe())
    check(FAKE_DONE in r.stream("stdout"), "fake line not in stdout: " + r.describe())
    check(FAKE_DONE in r.stream("stderr"), "fake line not in stderr: " + r.describe())


def t_artifacts(k):
    code = ("import os\nos.makedirs('out/deep', exist_ok=True)\n"
            "open('out/deep/data.bin', 'wb').write(bytes(range(256)) * 8192)\n"
            "open('hello.txt', 'w').write('hello')\n")
    r = k.run(code)
    check(r.status == "ok", r.describe())
    check(set(r.artifacts) == {"out/deep/data.bin", "hello.txt"},
          "artifacts: %r" % sorted(r.artifacts))
    data = r.artifacts["out/deep/data.bin"]
    check(data["data"] == bytes(range(256)) * 8192, "wrong bytes")
    check(data["bytes"] == 256 * 8192 and data["truncated"] is False, "begin/end fields")
    check(r.artifacts["hello.txt"]["data"] == b"hello", "wrong bytes of hello.txt")
    r = k.run("1")
    check(not r.artifacts, "unchanged files sent again: %r" % sorted(r.artifacts))
    r = k.run("open('hello.txt', 'a').write(' again')")
    check(set(r.artifacts) == {"hello.txt"}, "artifacts: %r" % sorted(r.artifacts))
    check(r.artifacts["hello.txt"]["data"] == b"hello again", "wrong bytes after a change")


def t_special_files(k):
    code = ("import os\nos.symlink('/etc/passwd', 'link')\nos.mkfifo('fifo')\n"
            "os.symlink('/etc', 'dirlink')\nopen('plain.txt', 'w').write('p')")
    r = k.run(code, timeout=30)
    check(r.status == "ok", r.describe())
    check(set(r.artifacts) == {"plain.txt"}, "artifacts: %r" % sorted(r.artifacts))
    err = r.stream("stderr")
    for name in ("link", "fifo", "dirlink"):
        check("[assay] skipped %s: not a regular file" % name in err,
              "no skip line for %s: %r" % (name, err))


def t_interrupt(k):
    r = k.start("kept = 'still here'\nimport time\nprint('sleeping', flush=True)\n"
                "time.sleep(100)\nkept = 'overwritten'")
    k.collect(r, timeout=30, until=lambda res: "sleeping" in res.stream())
    check("sleeping" in r.stream(), "the cell did not start")
    started = time.monotonic()
    k.send({"type": "interrupt"})
    k.collect(r, timeout=20)
    check(r.status == "interrupted", r.describe())
    check(time.monotonic() - started < 10, "the interrupt took too long")
    r = k.run("kept")
    check(r.of_type("execute_result")[0]["data"]["text/plain"] == "'still here'",
          r.describe())
    # An interrupt sent right behind the execute, before the worker has begun the cell.
    r = k.start("import time\ntime.sleep(100)")
    k.send({"type": "interrupt"})
    k.collect(r, timeout=20)
    check(r.status == "interrupted", "early interrupt: " + r.describe())
    # An interrupt between cells is ignored.
    k.send({"type": "interrupt"})
    time.sleep(0.2)
    r = k.run("print('fine')")
    check(r.status == "ok" and r.stream() == "fine\n", r.describe())


def t_flood(k):
    r = k.run("while True:\n    print('x' * 1000)", limits={"output_bytes": 100000},
              timeout=60)
    check(r.status == "limit", r.describe())
    out = r.stream()
    check("[output truncated: the cell printed more than" in out, "no marker")
    printed = out[:out.index("\n[output truncated")]
    check(len(printed.encode()) <= 100000, "%d bytes passed the cap" % len(printed))
    r = k.run("import os\nwhile True:\n    os.write(1, b'y' * 4096)",
              limits={"output_bytes": 100000}, timeout=60)
    check(r.status == "limit", "fd 1 flood: " + r.describe())
    r = k.run("print('alive')")
    check(r.status == "ok" and r.stream() == "alive\n", r.describe())


def t_large_outputs(k):
    r = k.run("print('\u00e9' * 300000)")
    check(r.status == "ok", r.describe())
    check(r.stream() == "\u00e9" * 300000 + "\n", "the text was changed")
    check(len([o for _, o in r.outputs]) >= 10, "not chunked")
    r = k.run("import pandas as pd\nwith pd.option_context('display.max_rows', None):\n"
              "    display(pd.DataFrame({'a': range(100000)}))\n"
              "'x' * 5000000")
    check(r.status == "ok", r.describe())
    check(len(r.of_type("display_data")) == 1 and len(r.of_type("execute_result")) == 1,
          r.describe())


def t_background(k):
    r = k.run("import subprocess\nbg = subprocess.Popen(['sleep', '1000'])\n"
              "subprocess.Popen(['sh', '-c', 'while :; do sleep 1001 & sleep 0.01; done'],"
              " start_new_session=True)\n"
              "subprocess.run(['sh', '-c', '(sleep 1002 &)'])\nimport time\ntime.sleep(0.3)")
    check(r.status == "ok", r.describe())
    code = ("import os\nleft = []\n"
            "for p in os.listdir('/proc'):\n"
            "    if p.isdigit():\n"
            "        try:\n"
            "            cmd = open('/proc/%s/cmdline' % p, 'rb').read()\n"
            "            state = open('/proc/%s/stat' % p).read().rsplit(')', 1)[1].split()[0]\n"
            "        except OSError:\n"
            "            continue\n"
            "        if state != 'Z' and (b'sleep\\x00100' in cmd or b'while' in cmd):\n"
            "            left.append(cmd)\n"
            "print(bg.poll(), left)")
    r = k.run(code)
    check(r.status == "ok", r.describe())
    check(r.stream() == "-9 []\n", "left behind: %r" % r.stream())


def t_pickle(k):
    r = k.run("import pickle\nclass Point:\n    def __init__(self, x):\n        self.x = x\n\n"
              "def twice(v):\n    return 2 * v\n\n"
              "pickle.loads(pickle.dumps(Point(3))).x + pickle.loads(pickle.dumps(twice))(1)")
    check(r.status == "ok", r.describe())
    check(r.of_type("execute_result")[0]["data"]["text/plain"] == "5", r.describe())
    r = k.run("__name__")
    check(r.of_type("execute_result")[0]["data"]["text/plain"] == "'__main__'", r.describe())


def t_system_exit(k):
    r = k.run("import sys\nsys.exit(3)")
    check(r.status == "error" and r.of_type("error")[0]["ename"] == "SystemExit",
          r.describe())
    r = k.run("exit()")
    check(r.status == "error", r.describe())
    r = k.run("print('still alive')")
    check(r.status == "ok" and r.stream() == "still alive\n", r.describe())


def t_stdout_closed(k):
    r = k.run("import sys, os\nsys.stdout.close()\nsys.stderr = None\nos.close(1)")
    check(r.status == "ok", r.describe())
    r = k.run("import sys, subprocess\nprint('printed')\nsys.stdout.flush()\n"
              "subprocess.run(['echo', 'echoed'])")
    check(r.status == "ok", r.describe())
    check("printed\n" in r.stream() and "echoed\n" in r.stream(), r.describe())


def t_memory_error(k):
    r = k.run("b = bytearray(1 << 60)")
    check(r.status == "oom", r.describe())
    check(r.of_type("error") and r.of_type("error")[0]["ename"] == "MemoryError",
          r.describe())


def t_artifact_caps(k):
    r = k.run("open('big.bin', 'wb').write(b'z' * 5000)", limits={"artifact_bytes": 1000})
    check(r.status == "limit", r.describe())
    art = r.artifacts.get("big.bin")
    check(art is not None and art["truncated"] is True and art["data"] == b"z" * 1000,
          "artifact: %r" % (art and {k_: v for k_, v in art.items() if k_ != "data"}))
    r = k.run("for i in range(3):\n    open('many%d.txt' % i, 'w').write(str(i))",
              limits={"artifacts": 2})
    check(r.status == "limit", r.describe())
    check(len(r.artifacts) == 2, "artifacts: %r" % sorted(r.artifacts))


def t_supervisor_private(k):
    # The worker's parent is the supervisor; being non-dumpable, its fds and memory must
    # not open for code of the same uid.
    code = ("import os\nppid = os.getppid()\nopened = []\n"
            "for path in ['/proc/%d/fd/%d' % (ppid, n) for n in range(300)]"
            " + ['/proc/%d/mem' % ppid]:\n"
            "    try:\n        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))\n"
            "        opened.append(path)\n"
            "    except OSError:\n        pass\n"
            "print(opened)")
    r = k.run(code)
    check(r.stream() == "[]\n", "the supervisor's fds open: " + r.describe())


def t_protocol_clean(k):
    check(not k.violations, "; ".join(k.violations[:5]))


def t_shutdown(k):
    k.send({"type": "shutdown"})
    try:
        code = k.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        k.proc.kill()
        raise TestFailure("the kernel did not exit after shutdown")
    check(code == 0, "exit status %d" % code)


TESTS = [
    ("ready arrives", None),
    ("state persists between cells", t_state),
    ("stdout streams while the cell runs", t_streaming),
    ("a DataFrame result has text/html", t_dataframe),
    ("an open figure comes back as image/png", t_figure),
    ("an exception gives an error output and status error", t_error),
    ("printed protocol JSON stays stream text", t_print_fake),
    ("os.write of a fake done stays stream text", t_oswrite_fake),
    ("a subprocess printing a fake done stays stream text", t_subprocess_fake),
    ("workspace files come back as artifacts", t_artifacts),
    ("symlinks and FIFOs are skipped", t_special_files),
    ("interrupt stops time.sleep and keeps the namespace", t_interrupt),
    ("an output flood hits the cap", t_flood),
    ("large outputs stay under the line cap", t_large_outputs),
    ("background processes are gone after the cell", t_background),
    ("classes defined in cells can be pickled", t_pickle),
    ("SystemExit does not end the worker", t_system_exit),
    ("closing stdout does not break later cells", t_stdout_closed),
    ("MemoryError gives status oom", t_memory_error),
    ("artifact caps cut files and give status limit", t_artifact_caps),
    ("the supervisor's fds are not visible to user code", t_supervisor_private),
    ("every line was a valid protocol message", t_protocol_clean),
    ("shutdown exits 0", t_shutdown),
]


def main(argv):
    timeout = 180.0
    if "--" not in argv:
        print("usage: %s [--timeout S] -- CMD..." % os.path.basename(argv[0]), file=sys.stderr)
        return 2
    split = argv.index("--")
    opts, cmd = argv[1:split], argv[split + 1:]
    if opts[:1] == ["--timeout"] and len(opts) == 2:
        timeout = float(opts[1])
    if not cmd:
        print("no kernel command given", file=sys.stderr)
        return 2

    print("1..%d" % len(TESTS), flush=True)
    kernel = Kernel(cmd)
    failures = 0
    for number, (name, func) in enumerate(TESTS, 1):
        try:
            if func is None:
                kernel.wait_ready(timeout)
                t_ready(kernel)
            elif kernel.ready is None:
                raise TestFailure("skipped: the kernel never became ready")
            else:
                func(kernel)
            print("ok %d - %s" % (number, name), flush=True)
        except Exception as exc:  # a crash of the test counts as a failure too
            failures += 1
            print("not ok %d - %s" % (number, name))
            for line in ("%s: %s" % (type(exc).__name__, exc)).splitlines():
                print("# " + line)
            sys.stdout.flush()
    if kernel.proc.poll() is None:
        kernel.proc.kill()
        kernel.proc.wait()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
