# SPDX-License-Identifier: GPL-3.0-or-later
"""The supervisor of the Assay kernel (see PROTOCOL.md next to this file).

It runs inside the sandbox for the whole session and owns the channel to the host: JSON
lines on its stdin and stdout. The Python namespace and the user's code live in a child
process, the worker (assay_worker.py), which never gets near the channel:

    host <-- stdin/stdout --> supervisor <-- message/control pipes --> worker
                                         <-- fd 1/2 pipes (raw bytes) --

Everything read from the worker is untrusted: its messages are parsed, checked and
rebuilt, and whatever it (or a subprocess) writes to fd 1/2 is wrapped into `stream`
outputs, so user code can never forge a protocol message.

Python 3.11 standard library only.

Environment:
  ASSAY_WORKSPACE  the folder scanned for artifacts (default /workspace)
"""

import base64
import codecs
import collections
import ctypes
import errno
import json
import os
import platform
import re
import selectors
import signal
import stat
import subprocess
import sys
import threading
import time

PROTOCOL_VERSION = 1

KiB = 1024
MiB = 1024 * KiB

DEFAULT_LIMITS = {
    "output_bytes": 16 * MiB,
    "artifact_bytes": 64 * MiB,
    "artifacts": 1000,
}
MAX_LIMIT = 1 << 53

STREAM_CHUNK_BYTES = 64 * KiB       # text of one stream output
ARTIFACT_CHUNK_BYTES = 768 * KiB    # raw bytes of one artifact_data
MAX_LINE_BYTES = 4 * MiB - 1        # the host's cap on one line (without '\n')
MAX_HOST_LINE_BYTES = 64 * MiB      # one incoming host message
MAX_WORKER_LINE_BYTES = 8 * MiB     # one worker message; longer ones are dropped
# Rich outputs (display_data, execute_result, error) per cell. PROTOCOL.md's output_bytes
# counts stream text only; this keeps a display() loop from flooding the host.
RICH_OUTPUT_BYTES = 64 * MiB
MAX_REASON_CHARS = 1000
MAX_ID_CHARS = 256

SCAN_MAX_ENTRIES = 100_000
SCAN_MAX_DEPTH = 64
MAX_SKIP_NOTES = 20

DRAIN_MAX = 0.5      # after a cell, drain fd 1/2 for at most this long
SWEEP_ROUNDS = 100
STARTUP_TAIL_BYTES = 4 * KiB

EXIT_WORKER_DIED = 3
EXIT_OUT_OF_MEMORY = 4   # the worker died of the kernel's OOM killer: the host reports "oom"

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36

WORKER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assay_worker.py")
KNOWN_PRELOADS = ("pandas", "numpy", "matplotlib")
WORKER_STATUSES = ("ok", "error", "interrupted", "oom")

# A cell's checks, as the worker reports them (it runs user code: nothing is taken on trust).
CHECK_KINDS = ("read", "merge", "drop_duplicates", "dropna")
CHECK_COUNTS = ("rows", "columns", "left", "right", "left_unmatched", "right_unmatched", "before",
                "bad_lines")
MERGE_HOWS = ("inner", "left", "right", "outer", "cross")
MAX_CHECKS = 64
MAX_CHECK_NAME_CHARS = 255
IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _clean_checks(checks):
    """The worker's checks reduced to what the protocol allows, or None."""
    if not isinstance(checks, dict):
        return None
    items, files = [], []
    raw_items = checks.get("items")
    for item in raw_items[:MAX_CHECKS] if isinstance(raw_items, list) else ():
        if not isinstance(item, dict) or item.get("kind") not in CHECK_KINDS:
            continue
        clean = {"kind": item["kind"]}
        for name in CHECK_COUNTS:
            value = item.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_LIMIT:
                clean[name] = value
        if item["kind"] == "read" and isinstance(item.get("file"), str):
            clean["file"] = _truncate(item["file"], MAX_CHECK_NAME_CHARS)
        if item["kind"] == "merge":
            if item.get("how") in MERGE_HOWS:
                clean["how"] = item["how"]
            if isinstance(item.get("many_to_many"), bool):
                clean["many_to_many"] = item["many_to_many"]
        items.append(clean)
    raw_files = checks.get("files")
    for name in raw_files[:MAX_CHECKS] if isinstance(raw_files, list) else ():
        if isinstance(name, str) and name:
            files.append(_truncate(name, MAX_CHECK_NAME_CHARS))
    frames = []
    raw_frames = checks.get("frames")
    for frame in raw_frames[:MAX_CHECKS] if isinstance(raw_frames, list) else ():
        if not isinstance(frame, dict):
            continue
        name, rows, columns = frame.get("name"), frame.get("rows"), frame.get("columns")
        if isinstance(name, str) and IDENTIFIER_RE.match(name) and len(name) <= MAX_CHECK_NAME_CHARS \
                and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_LIMIT
                        for n in (rows, columns)):
            frames.append({"name": name, "rows": rows, "columns": columns})
    if not items and not files and not frames:
        return None
    clean = {"items": items, "files": files}
    if frames:
        clean["frames"] = frames
    return clean
MIME_RE = re.compile(r"[A-Za-z0-9.+-]{1,64}/[A-Za-z0-9.+-]{1,64}\Z")

_diag_fd = 2


def diag(text):
    """A plain-text diagnostic on the kernel's original stderr. Keep them rare."""
    try:
        os.write(_diag_fd, ("assay-kernel: %s\n" % text).encode("utf-8", "replace"))
    except OSError:
        pass


def _prctl(option, arg):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        zero = ctypes.c_ulong(0)
        return libc.prctl(option, ctypes.c_ulong(arg), zero, zero, zero) == 0
    except Exception:
        return False


def _describe_size(n):
    if n >= MiB:
        return "%g MB" % round(n / MiB, 2)
    if n >= KiB:
        return "%g KB" % round(n / KiB, 2)
    return "%d bytes" % n


def _oom_kills():
    """How many processes the OOM killer has killed in the sandbox's memory cgroup, as its
    cgroup namespace or the container shows it (v2, then v1); None where it cannot be read.
    Not every engine says so itself (Podman 4.3 on cgroup v1 never sets OOMKilled)."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as f:
                for line in f:
                    name, _, value = line.partition(" ")
                    if name == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def _describe_wait_status(status):
    if os.WIFSIGNALED(status):
        return "signal %d" % os.WTERMSIG(status)
    if os.WIFEXITED(status):
        return "exit status %d" % os.WEXITSTATUS(status)
    return "wait status %d" % status


def _utf8_prefix(data, limit):
    """The longest prefix of UTF-8 `data` of at most `limit` bytes ending on a character."""
    if len(data) <= limit:
        return data
    end = limit
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


def _utf8_chunks(data, size):
    while data:
        chunk = _utf8_prefix(data, size)
        if not chunk:  # cannot happen with valid UTF-8 and size >= 4
            chunk = data[:size]
        yield chunk.decode("utf-8", "replace")
        data = data[len(chunk):]


def _truncate(text, limit):
    return text if len(text) <= limit else text[:limit] + "..."


def _parse_limits(raw):
    limits = dict(DEFAULT_LIMITS)
    if isinstance(raw, dict):
        for key in limits:
            value = raw.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                limits[key] = min(value, MAX_LIMIT)
    return limits


def _owns_pid_namespace():
    """Whether this process is the init (or the child of the init) of a PID namespace.

    Only then is it safe to kill every other process it can see. Otherwise (say, the
    kernel started by hand on a desktop) only its own descendants are swept.
    """
    if os.getpid() != 1 and os.getppid() != 1:
        return False
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"NSpid:"):
                    return len(line.split()) > 2
    except OSError:
        pass
    return False


class HostChannel:
    """The kernel's stdout: every message to the host goes through send()."""

    def __init__(self, fd):
        self._fd = fd
        self._lock = threading.Lock()
        self.on_broken = None

    @staticmethod
    def encode(msg):
        # A lone surrogate (possible in a Python str) becomes '?' so the line is valid UTF-8.
        return json.dumps(msg, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode("utf-8", "replace")

    def write_line(self, line):
        with self._lock:
            view = memoryview(line + b"\n")
            try:
                while view:
                    view = view[os.write(self._fd, view):]
            except OSError:
                # The host is gone: nothing to report to any more.
                if self.on_broken is not None:
                    self.on_broken()
                os._exit(1)

    def send(self, msg):
        self.write_line(self.encode(msg))

    def log(self, text):
        self.send({"type": "log", "text": _truncate(text, 4000)})


class Cell:
    """The cell that runs (or is being finished)."""

    def __init__(self, cell_id, seq, execution_count, limits):
        self.id = cell_id
        self.seq = seq
        self.execution_count = execution_count
        self.limits = limits
        self.output_bytes = 0
        self.rich_bytes = 0
        self.capped = False           # an output cap was hit: drop further outputs
        self.limit_reasons = []
        self.started = False          # the worker has begun to run it
        self.interrupt_pending = False  # an interrupt came before it started
        self.worker_done = False
        self.worker_status = None
        self.worker_reason = None
        self.code_us = 0                  # the user code's own time, as the worker measured it
        self.checks = None                # what the worker saw the cell do to its data
        self.decoders = {
            "stdout": codecs.getincrementaldecoder("utf-8")("replace"),
            "stderr": codecs.getincrementaldecoder("utf-8")("replace"),
        }
        self.skip_notes = 0
        self.artifact_seq = 0

    def hit_limit(self, reason):
        if reason not in self.limit_reasons:
            self.limit_reasons.append(reason)


class Supervisor:
    def __init__(self, host_in_fd, host_out_fd):
        self.chan = HostChannel(host_out_fd)
        self.chan.on_broken = self._kill_worker_now
        self.host_in_fd = host_in_fd
        self.workspace = os.environ.get("ASSAY_WORKSPACE") or "/workspace"
        self.namespace_wide = _owns_pid_namespace()

        self.lock = threading.Lock()      # guards cell, pending, shutdown_requested
        self.pending = collections.deque()
        self.shutdown_requested = False
        self.cell = None
        self.seq = 0
        self.execution_count = 0

        self.sel = selectors.DefaultSelector()
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.sel.register(self.wake_r, selectors.EVENT_READ, self._on_wake)

        self.worker = None
        self.worker_pid = None
        self.worker_status = None         # wait status once reaped
        self.pidfd = None
        self.msg_fd = None
        self.msg_buf = bytearray()
        self.msg_skipping = False         # inside an over-long line
        self.msg_eof = False
        self.ctl_fd = None
        self.ctl_pending = bytearray()
        self.ctl_registered = False
        self.raw_fds = {}                 # fd -> "stdout" | "stderr"
        self.ready = False
        self.startup_tail = bytearray()
        self.oom_kills_at_start = _oom_kills()
        self.snapshot = {}
        self.scan_problems = set()        # scan caps hit by the previous scan

    # ---- worker ------------------------------------------------------------------------

    def start_worker(self):
        msg_r, msg_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        env = dict(os.environ)
        env["MPLBACKEND"] = "Agg"
        env["ASSAY_WORKSPACE"] = self.workspace
        cwd = self.workspace if os.path.isdir(self.workspace) else None
        self.worker = subprocess.Popen(
            [sys.executable or "python3", "-I", WORKER_PATH,
             "--msg-fd", str(msg_w), "--ctl-fd", str(ctl_r)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(msg_w, ctl_r),
            close_fds=True,
            cwd=cwd,
            env=env,
        )
        os.close(msg_w)
        os.close(ctl_r)
        self.worker_pid = self.worker.pid
        self.msg_fd = msg_r
        self.ctl_fd = ctl_w
        for fd in (msg_r, ctl_w):
            os.set_blocking(fd, False)
        self.sel.register(msg_r, selectors.EVENT_READ, self._on_msg)
        for pipe, name in ((self.worker.stdout, "stdout"), (self.worker.stderr, "stderr")):
            fd = pipe.fileno()
            os.set_blocking(fd, False)
            self.raw_fds[fd] = name
            self.sel.register(fd, selectors.EVENT_READ, self._on_raw)
        try:
            # Readable when the worker exits; without it the main loop polls waitpid.
            self.pidfd = os.pidfd_open(self.worker_pid)
            self.sel.register(self.pidfd, selectors.EVENT_READ, self._on_pidfd)
        except (AttributeError, OSError):
            self.pidfd = None

    def _worker_alive(self):
        return self.worker_pid is not None and self.worker_status is None

    def _kill_worker_now(self):
        if self._worker_alive():
            try:
                os.kill(self.worker_pid, signal.SIGKILL)
            except OSError:
                pass

    def _reap(self):
        """Collect exited children: the worker, and orphans (we are a subreaper)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.worker_pid and self.worker_status is None:
                self.worker_status = status
                # Keep Popen from waiting for a pid that is gone.
                self.worker.returncode = os.waitstatus_to_exitcode(status)

    # ---- host side ---------------------------------------------------------------------

    def read_host(self):
        """Reader thread: parse host messages; handle interrupts at once, queue the rest."""
        f = os.fdopen(self.host_in_fd, "rb", buffering=1 << 16)
        try:
            while True:
                line = f.readline(MAX_HOST_LINE_BYTES + 1)
                if not line:
                    break
                if len(line) > MAX_HOST_LINE_BYTES and not line.endswith(b"\n"):
                    while True:  # skip the rest of the line
                        more = f.readline(1 << 20)
                        if not more or more.endswith(b"\n"):
                            break
                    self.chan.log("ignored a message longer than %s"
                                  % _describe_size(MAX_HOST_LINE_BYTES))
                    continue
                self._on_host_line(line)
        except OSError as exc:
            diag("reading stdin failed: %s" % exc)
        self._request_shutdown()

    def _on_host_line(self, line):
        if not line.strip():
            return
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            self.chan.log("ignored a message that is not JSON")
            return
        if not isinstance(msg, dict):
            self.chan.log("ignored a message that is not a JSON object")
            return
        kind = msg.get("type")
        if kind == "interrupt":
            self._interrupt()
        elif kind == "execute":
            cell_id = msg.get("id")
            if not isinstance(cell_id, str) or not 0 < len(cell_id) <= MAX_ID_CHARS:
                self.chan.log("ignored an execute message without a valid id")
                return
            code = msg.get("code")
            with self.lock:
                # [id, code, limits, interrupted before it started, checks]
                self.pending.append([cell_id, code if isinstance(code, str) else None,
                                     _parse_limits(msg.get("limits")), False,
                                     msg.get("checks") is not False])
            self._wake()
        elif kind == "shutdown":
            self._request_shutdown()
        else:
            self.chan.log("ignored a message of unknown type %r" % _truncate(str(kind), 100))

    def _interrupt(self):
        with self.lock:
            if self.cell is not None and not self.cell.worker_done:
                self._interrupt_cell(self.cell)
            elif self.pending:
                # The host sees the cell it sent last as running even if the main loop
                # has not picked it up yet.
                self.pending[0][3] = True

    def _interrupt_cell(self, cell):
        """SIGINT the worker for `cell`; call with self.lock held."""
        if cell.worker_done:
            return
        if not cell.started:
            # The worker ignores SIGINT between cells; send it once the cell runs.
            cell.interrupt_pending = True
            return
        self._sigint_worker()

    def _sigint_worker(self):
        if self._worker_alive():
            try:
                os.kill(self.worker_pid, signal.SIGINT)
            except OSError:
                pass

    def _request_shutdown(self):
        with self.lock:
            self.shutdown_requested = True
        self._wake()

    def _wake(self):
        try:
            os.write(self.wake_w, b"\0")
        except OSError:  # full: a wake-up is pending anyway
            pass

    def _on_wake(self, fd):
        try:
            while os.read(fd, 4096):
                pass
        except OSError:
            pass
        return False

    # ---- reading from the worker -----------------------------------------------------------

    def _on_pidfd(self, fd):
        self._reap()
        return False

    def _on_raw(self, fd):
        """Bytes on the worker's fd 1/2: wrap them into stream outputs."""
        name = self.raw_fds[fd]
        try:
            data = os.read(fd, STREAM_CHUNK_BYTES)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            # Closed by the worker (user code can close fd 1/2); not fatal by itself.
            self.sel.unregister(fd)
            del self.raw_fds[fd]
            return False
        if not self.ready:
            self.startup_tail += data
            del self.startup_tail[:-STARTUP_TAIL_BYTES]
        elif self.cell is not None:
            self._emit_stream(name, self.cell.decoders[name].decode(data))
        # Between cells (a leftover background thread, say) the bytes are dropped.
        return True

    def _on_msg(self, fd):
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self.sel.unregister(fd)
            self.msg_eof = True
            return False
        start = 0
        while True:
            nl = data.find(b"\n", start)
            end = len(data) if nl < 0 else nl
            if not self.msg_skipping:
                self.msg_buf += data[start:end]
                if len(self.msg_buf) > MAX_WORKER_LINE_BYTES:
                    self.msg_buf.clear()
                    self.msg_skipping = True
            if nl < 0:
                break
            if self.msg_skipping:
                self.msg_skipping = False
            else:
                line = bytes(self.msg_buf)
                self.msg_buf.clear()
                self._on_worker_message(line)
            start = nl + 1
        return False

    def _on_worker_message(self, line):
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            return
        if not isinstance(msg, dict):
            return
        kind = msg.get("type")
        if kind == "ready":
            if not self.ready:
                self._on_worker_ready(msg)
            return
        cell = self.cell
        if cell is None or cell.worker_done or msg.get("seq") != cell.seq:
            return  # not for the running cell (a stray thread, or forged)
        if kind == "started":
            with self.lock:
                cell.started = True
                if cell.interrupt_pending:
                    self._sigint_worker()
        elif kind == "output":
            self._relay_output(msg.get("output"))
        elif kind == "done":
            status = msg.get("status")
            reason = msg.get("reason")
            with self.lock:
                cell.worker_done = True
                cell.worker_status = status if status in WORKER_STATUSES else "error"
                code_us = msg.get("code_us")
                if isinstance(code_us, int) and not isinstance(code_us, bool) and code_us >= 0:
                    cell.code_us = code_us
                if isinstance(reason, str) and reason:
                    cell.worker_reason = _truncate(reason, MAX_REASON_CHARS)
                cell.checks = _clean_checks(msg.get("checks"))

    def _on_worker_ready(self, msg):
        preloaded = msg.get("preloaded")
        preloaded = [n for n in KNOWN_PRELOADS
                     if isinstance(preloaded, list) and n in preloaded]
        failed = msg.get("failed")
        if isinstance(failed, dict):
            for name, error in failed.items():
                self.chan.log("could not preload %s: %s"
                              % (_truncate(str(name), 100), _truncate(str(error), 1000)))
        # Files already in the workspace are not artifacts of the first cell.
        self.snapshot, problems = self._scan_workspace()
        self.scan_problems = set(problems)
        self.startup_tail.clear()
        self.ready = True
        self.chan.send({
            "type": "ready",
            "protocol": PROTOCOL_VERSION,
            "python": platform.python_version(),
            "preloaded": preloaded,
        })

    # ---- outputs of the running cell --------------------------------------------------------

    def _send_output(self, cell, output):
        self.chan.send({"type": "output", "id": cell.id, "output": output})

    def _note(self, cell, text):
        """A line of the kernel itself on the cell's stderr (not counted in the caps)."""
        self._send_output(cell, {"output_type": "stream", "name": "stderr",
                                 "text": _truncate(text, 4000) + "\n"})

    def _cap(self, cell, name, reason):
        cell.capped = True
        cell.hit_limit(reason)
        self._send_output(cell, {"output_type": "stream", "name": name,
                                 "text": "\n[output truncated: %s]\n" % reason})
        with self.lock:
            self._interrupt_cell(cell)

    def _emit_stream(self, name, text):
        cell = self.cell
        if cell is None or cell.capped or not text:
            return
        data = text.encode("utf-8", "replace")
        room = cell.limits["output_bytes"] - cell.output_bytes
        over = len(data) > room
        if over:
            data = _utf8_prefix(data, max(room, 0))
        cell.output_bytes += len(data)
        for chunk in _utf8_chunks(data, STREAM_CHUNK_BYTES):
            self._send_output(cell, {"output_type": "stream", "name": name, "text": chunk})
        if over:
            self._cap(cell, name, "the cell printed more than %s"
                      % _describe_size(cell.limits["output_bytes"]))

    def _relay_output(self, raw):
        """Check an output object from the worker and rebuild it from known fields only."""
        cell = self.cell
        if cell.capped or not isinstance(raw, dict):
            return
        kind = raw.get("output_type")
        if kind == "stream":
            name, text = raw.get("name"), raw.get("text")
            if name in ("stdout", "stderr") and isinstance(text, str):
                self._emit_stream(name, text)
            return
        if kind in ("display_data", "execute_result"):
            data = raw.get("data")
            if not isinstance(data, dict):
                return
            clean = {k: v for k, v in data.items()
                     if isinstance(k, str) and MIME_RE.match(k) and isinstance(v, str)}
            if not clean:
                return
            output = {"output_type": kind}
            if kind == "execute_result":
                output["execution_count"] = cell.execution_count
            output["data"] = clean
            output["metadata"] = {}
        elif kind == "error":
            ename, evalue, tb = raw.get("ename"), raw.get("evalue"), raw.get("traceback")
            if not (isinstance(ename, str) and isinstance(evalue, str)
                    and isinstance(tb, list) and all(isinstance(s, str) for s in tb)):
                return
            output = {"output_type": "error", "ename": ename, "evalue": evalue,
                      "traceback": tb}
        else:
            return
        line = self.chan.encode({"type": "output", "id": cell.id, "output": output})
        if len(line) > MAX_LINE_BYTES:
            self._note(cell, "[assay] an output of %s was dropped: it is too large"
                       % _describe_size(len(line)))
            return
        if cell.rich_bytes + len(line) > RICH_OUTPUT_BYTES:
            self._cap(cell, "stderr", "the cell displayed more than %s"
                      % _describe_size(RICH_OUTPUT_BYTES))
            return
        cell.rich_bytes += len(line)
        self.chan.write_line(line)

    # ---- control pipe ----------------------------------------------------------------------

    def _send_ctl(self, msg):
        self.ctl_pending += json.dumps(msg, ensure_ascii=False).encode("utf-8", "replace")
        self.ctl_pending += b"\n"
        self._flush_ctl(None)

    def _flush_ctl(self, fd):
        # Non-blocking, so that a worker which does not read cannot stall the supervisor.
        while self.ctl_pending:
            try:
                n = os.write(self.ctl_fd, self.ctl_pending)
            except BlockingIOError:
                break
            except OSError:  # the worker is gone; the main loop will notice
                self.ctl_pending.clear()
                self.msg_eof = True
                break
            del self.ctl_pending[:n]
        if self.ctl_pending and not self.ctl_registered:
            self.sel.register(self.ctl_fd, selectors.EVENT_WRITE, self._flush_ctl)
            self.ctl_registered = True
        elif not self.ctl_pending and self.ctl_registered:
            self.sel.unregister(self.ctl_fd)
            self.ctl_registered = False
        return False

    # ---- the main loop -----------------------------------------------------------------------

    def _poll(self, timeout):
        """Handle one round of events; returns whether raw fd 1/2 bytes came in."""
        got_raw = False
        for key, _ in self.sel.select(timeout):
            if key.data(key.fd):
                got_raw = True
        return got_raw

    def run(self):
        self.start_worker()
        threading.Thread(target=self.read_host, name="host-reader", daemon=True).start()
        while True:
            if self.shutdown_requested:
                self.shutdown(0)
            self._reap()
            if self.worker_status is not None:
                self._worker_died()
            if self.msg_eof:
                self._worker_lost_channel()
            if self.cell is not None and self.cell.worker_done:
                self._finish_cell()
                continue
            if self.cell is None and self.ready and self.pending:
                self._start_cell()
                continue
            self._poll(1.0 if self.pidfd is not None else 0.2)

    def _start_cell(self):
        # One critical section from the queue to self.cell: an interrupt that comes in
        # between would otherwise find neither a pending cell nor a running one, and be lost.
        with self.lock:
            cell_id, code, limits, interrupted, checks = self.pending.popleft()
            if code is not None:
                self.seq += 1
                self.execution_count += 1
                self.cell = Cell(cell_id, self.seq, self.execution_count, limits)
                self.cell.interrupt_pending = interrupted
        if code is None:
            self.chan.send({"type": "done", "id": cell_id, "status": "error",
                            "reason": "malformed execute message: code must be a string",
                            "execution_count": self.execution_count})
            return
        self._send_ctl({"type": "execute", "seq": self.seq,
                        "execution_count": self.execution_count, "code": code, "checks": checks})

    def _finish_cell(self):
        cell = self.cell
        self._sweep()
        self._drain_raw()
        for name, decoder in cell.decoders.items():
            self._emit_stream(name, decoder.decode(b"", final=True))
        self._send_artifacts(cell)

        status, reason = cell.worker_status, cell.worker_reason
        if cell.limit_reasons:
            reasons = list(cell.limit_reasons)
            if status in ("error", "oom") and reason:
                reasons.append(reason)
            status, reason = "limit", "; ".join(reasons)
        done = {"type": "done", "id": cell.id, "status": status,
                "execution_count": cell.execution_count, "code_us": cell.code_us}
        if status != "ok":
            done["reason"] = reason or status
        if cell.checks is not None:
            done["checks"] = cell.checks
        # The cell is over before the host hears so: an execute and an interrupt the host
        # sends right behind this `done` must find the new cell queued, not this one.
        with self.lock:
            self.cell = None
        self.chan.send(done)

    def _drain_raw(self):
        """Collect what is still in the fd 1/2 pipes (output of killed subprocesses).

        Nothing can write any more: the worker is idle and everything else was killed, and
        a finished write() is already in the pipe. So read until the pipes are empty, with
        no waiting: a warm cell must cost milliseconds."""
        start = time.monotonic()
        while self.raw_fds and time.monotonic() - start < DRAIN_MAX:
            if not self._poll(0):
                break

    # ---- killing what a cell left behind ---------------------------------------------------------

    @staticmethod
    def _processes():
        """pid -> (state, ppid) of the processes /proc shows."""
        procs = {}
        try:
            names = os.listdir("/proc")
        except OSError:
            return procs
        for name in names:
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            # "pid (comm) state ppid ..."; comm may contain spaces and parentheses.
            fields = data[data.rfind(b")") + 2:].split()
            if len(fields) < 2:
                continue
            procs[int(name)] = (fields[0].decode("ascii", "replace"), int(fields[1]))
        return procs

    def _sweep(self):
        """SIGKILL every process but PID 1, us and the worker; again until none is left."""
        me = os.getpid()
        protected = {1, me, self.worker_pid}
        for attempt in range(SWEEP_ROUNDS):
            procs = self._processes()
            if not self.namespace_wide:
                children = collections.defaultdict(list)
                for pid, (_, ppid) in procs.items():
                    children[ppid].append(pid)
                mine, stack = set(), [me]
                while stack:
                    for child in children.get(stack.pop(), ()):
                        if child not in mine:
                            mine.add(child)
                            stack.append(child)
                procs = {pid: info for pid, info in procs.items() if pid in mine}
            killed = 0
            for pid, (state, _) in procs.items():
                if pid in protected or state in ("Z", "X", "x"):
                    continue
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except OSError:  # gone already, or not ours to kill
                    pass
            self._reap()
            if not killed:
                return
            # A fork bomb respawns between two scans; dying processes take a moment.
            time.sleep(min(0.001 * (attempt + 1), 0.02))
        diag("processes left by a cell survived %d rounds of SIGKILL" % SWEEP_ROUNDS)

    # ---- artifacts --------------------------------------------------------------------------

    def _scan_workspace(self):
        """Map relative names (bytes) of the non-folder entries to (ino, size, mtime, type).

        Returns (entries, problems); problems lists the caps that cut the scan short.
        """
        entries, problems = {}, []
        try:
            root = os.open(self.workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return entries, problems
        state = {"count": 0}
        try:
            self._scan_dir(root, b"", 0, entries, problems, state)
        finally:
            os.close(root)
        return entries, problems

    def _scan_dir(self, dir_fd, prefix, depth, entries, problems, state):
        items = []
        try:
            # Scanning by fd, and opening sub-folders with O_NOFOLLOW relative to it, never
            # follows a symlink even if one is swapped in while we scan.
            with os.scandir(dir_fd) as it:
                for entry in it:
                    if state["count"] + len(items) >= SCAN_MAX_ENTRIES:
                        if "entries" not in problems:
                            problems.append("entries")
                        break
                    items.append(entry)
        except OSError:
            return
        items.sort(key=lambda e: e.name)
        for entry in items:
            if state["count"] >= SCAN_MAX_ENTRIES:
                if "entries" not in problems:
                    problems.append("entries")
                return
            state["count"] += 1
            name = prefix + os.fsencode(entry.name)
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if depth + 1 >= SCAN_MAX_DEPTH:
                    if "depth" not in problems:
                        problems.append("depth")
                    continue
                try:
                    sub = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                                  | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
                except OSError:
                    continue
                try:
                    self._scan_dir(sub, name + b"/", depth + 1, entries, problems, state)
                finally:
                    os.close(sub)
            else:
                entries[name] = (st.st_ino, st.st_size, st.st_mtime_ns, stat.S_IFMT(st.st_mode))

    @staticmethod
    def _open_nofollow(root_fd, name):
        """Open workspace-relative `name` without following a symlink in any component."""
        parts = name.split(b"/")
        opened = []
        try:
            fd = root_fd
            for part in parts[:-1]:
                fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                             | os.O_CLOEXEC, dir_fd=fd)
                opened.append(fd)
            return os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                           | os.O_CLOEXEC, dir_fd=fd)
        finally:
            for fd in opened:
                os.close(fd)

    def _skip_note(self, cell, display_name, why):
        cell.skip_notes += 1
        if cell.skip_notes <= MAX_SKIP_NOTES:
            self._note(cell, "[assay] skipped %s: %s" % (display_name, why))

    def _send_artifacts(self, cell):
        entries, problems = self._scan_workspace()
        if problems:
            # Entries the scan did not reach are kept as they were, not taken as deleted.
            new_snapshot = dict(self.snapshot)
            new_snapshot.update(entries)
        else:
            new_snapshot = entries
        changed = sorted(name for name, key in entries.items()
                         if self.snapshot.get(name) != key)
        self.snapshot = new_snapshot

        # A workspace that stays too big must not turn every later cell into `limit`:
        # a scan cap is reported by the first scan that hits it.
        reported, self.scan_problems = self.scan_problems, set(problems)
        problems = [p for p in problems if p not in reported]
        if "entries" in problems:
            self._note(cell, "[assay] stopped scanning the workspace after %d entries; "
                       "later files were not sent" % SCAN_MAX_ENTRIES)
            cell.hit_limit("the workspace has more than %d entries" % SCAN_MAX_ENTRIES)
        if "depth" in problems:
            self._note(cell, "[assay] folders nested deeper than %d levels were not scanned"
                       % SCAN_MAX_DEPTH)
            cell.hit_limit("the workspace has folders nested deeper than %d levels"
                           % SCAN_MAX_DEPTH)
        if not changed:
            return

        try:
            root = os.open(self.workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            self._note(cell, "[assay] could not open the workspace: %s" % exc.strerror)
            return
        max_files = cell.limits["artifacts"]
        sent = not_sent = 0
        try:
            for name in changed:
                display_name = name.decode("utf-8", "replace")
                if entries[name][3] != stat.S_IFREG:
                    self._skip_note(cell, display_name, "not a regular file")
                    continue
                if sent >= max_files:
                    not_sent += 1
                    continue
                if self._send_artifact(cell, root, name, display_name):
                    sent += 1
        finally:
            os.close(root)
        if cell.skip_notes > MAX_SKIP_NOTES:
            self._note(cell, "[assay] skipped %d more files that are not regular files"
                       % (cell.skip_notes - MAX_SKIP_NOTES))
        if not_sent:
            self._note(cell, "[assay] %d more new or changed files were not sent "
                       "(at most %d per cell)" % (not_sent, max_files))
            cell.hit_limit("the cell wrote more than %d files" % max_files)

    def _send_artifact(self, cell, root, name, display_name):
        try:
            fd = self._open_nofollow(root, name)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink swapped in
                self._skip_note(cell, display_name, "not a regular file")
            elif exc.errno != errno.ENOENT:  # deleted since the scan: nothing to send
                self._skip_note(cell, display_name, exc.strerror or "cannot be opened")
            return False
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                self._skip_note(cell, display_name, "not a regular file")
                return False
            cap = cell.limits["artifact_bytes"]
            size = min(st.st_size, cap)
            truncated = st.st_size > cap
            cell.artifact_seq += 1
            seq = cell.artifact_seq
            self.chan.send({"type": "artifact_begin", "id": cell.id, "seq": seq,
                            "name": display_name, "bytes": size})
            remaining = size
            while remaining > 0:
                try:
                    chunk = os.read(fd, min(ARTIFACT_CHUNK_BYTES, remaining))
                except OSError:
                    truncated = True
                    break
                if not chunk:  # the file shrank since fstat
                    break
                remaining -= len(chunk)
                self.chan.send({"type": "artifact_data", "id": cell.id, "seq": seq,
                                "data": base64.b64encode(chunk).decode("ascii")})
            self.chan.send({"type": "artifact_end", "id": cell.id, "seq": seq,
                            "truncated": truncated})
            if st.st_size > cap:
                cell.hit_limit("a file is larger than %s and was cut" % _describe_size(cap))
            return True
        finally:
            os.close(fd)

    # ---- endings ---------------------------------------------------------------------------

    def _worker_died(self):
        self._sweep()
        self._drain_raw()  # last words, e.g. a faulthandler traceback
        reason = "the Python worker died (%s)" % _describe_wait_status(self.worker_status)
        oom_kills = _oom_kills()
        out_of_memory = (self.worker_status is not None and os.WIFSIGNALED(self.worker_status)
                         and os.WTERMSIG(self.worker_status) == signal.SIGKILL
                         and oom_kills is not None and oom_kills > (self.oom_kills_at_start or 0))
        if out_of_memory:
            reason += ": the sandbox ran out of memory"
        if not self.ready:
            tail = self.startup_tail.decode("utf-8", "replace").strip().splitlines()
            if tail:
                reason += " before it was ready: " + _truncate(tail[-1], 500)
            diag("%s\n%s" % (reason, self.startup_tail.decode("utf-8", "replace")))
        self.chan.send({"type": "fatal", "reason": reason})
        os._exit(EXIT_OUT_OF_MEMORY if out_of_memory else EXIT_WORKER_DIED)

    def _worker_lost_channel(self):
        """The message pipe was closed: wait briefly for the worker to exit, else kill it."""
        deadline = time.monotonic() + 1.0
        while self.worker_status is None and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.01)
        if self.worker_status is None:
            self._kill_worker_now()
            self.msg_eof = False
            while self.worker_status is None:
                self._reap()
                time.sleep(0.01)
            self._sweep()
            self.chan.send({"type": "fatal",
                            "reason": "the Python worker closed its message channel"})
            os._exit(EXIT_WORKER_DIED)
        self._worker_died()

    def shutdown(self, code):
        if self._worker_alive():
            try:
                os.kill(self.worker_pid, signal.SIGTERM)
            except OSError:
                pass
            deadline = time.monotonic() + 0.5
            while self.worker_status is None and time.monotonic() < deadline:
                self._reap()
                time.sleep(0.01)
            self._kill_worker_now()
        self._sweep()
        os._exit(code)


def main():
    global _diag_fd
    # Take the channel out of fd 0/1 into private close-on-exec fds, and point fd 0-2 at
    # /dev/null: nothing that writes to fd 1 by accident can corrupt the channel.
    host_in = os.dup(0)
    host_out = os.dup(1)
    _diag_fd = os.dup(2)
    # The channel is ours alone; plain blocking I/O keeps the reader and writer simple.
    os.set_blocking(host_in, True)
    os.set_blocking(host_out, True)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.stdin = None
    sys.stdout = open(os.devnull, "w")
    sys.stderr = os.fdopen(_diag_fd, "w", buffering=1, closefd=False)

    # Code of the same uid (the worker runs the user's code) must not read our fds or
    # memory through /proc, nor ptrace us.
    if not _prctl(PR_SET_DUMPABLE, 0):
        diag("prctl(PR_SET_DUMPABLE, 0) failed")
    # Orphans of the worker's subprocesses become our children, to be reaped and swept.
    _prctl(PR_SET_CHILD_SUBREAPER, 1)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the worker sets its own handler

    supervisor = Supervisor(host_in, host_out)
    signal.signal(signal.SIGTERM, lambda signum, frame: supervisor._request_shutdown())
    try:
        supervisor.run()
    except Exception as exc:
        import traceback
        diag("internal error:\n" + traceback.format_exc())
        try:
            supervisor.chan.send({"type": "fatal",
                                  "reason": "internal error of the kernel: %s" % exc})
        finally:
            supervisor._kill_worker_now()
            os._exit(EXIT_WORKER_DIED)


if __name__ == "__main__":
    main()
