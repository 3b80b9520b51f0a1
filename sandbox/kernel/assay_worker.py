# SPDX-License-Identifier: GPL-3.0-or-later
"""The worker process of the Assay kernel.

It holds the Python namespace of the session and runs the cells. It is started by
assay_kernel.py (the supervisor) with:

    python3 -I assay_worker.py --msg-fd N --ctl-fd M

fd N (worker -> supervisor) carries JSON lines: "ready", "started", "output" and
"done" (with the cell's checks: what it read from /data, merged, deduplicated, dropped). fd M
(supervisor -> worker) carries JSON lines: "execute". fd 0 is /dev/null; fd 1 and 2 are
pipes the supervisor reads and wraps into stream outputs, so whatever C code or a
subprocess prints reaches the user but can never pass for a message.

Everything the worker sends is untrusted for the supervisor: user code runs in this
process and can write to the message pipe directly. That is fine; the supervisor only
relays output objects for the running cell. The care taken here is about keeping the
session usable, not about security.
"""

import ast
import base64
import builtins
import codecs
import functools
import io
import json
import linecache
import os
import signal
import sys
import threading
import time
import traceback
import types

# Taken before user code runs: a cell that replaces time.monotonic cannot break the timing.
_monotonic = time.monotonic

WORKER_FILE = os.path.abspath(__file__)

# Python-level stdout/stderr are sent at least this often while a cell runs...
FLUSH_INTERVAL = 0.05
# ...or as soon as this much text is buffered.
FLUSH_CHARS = 8 * 1024
# One stream message carries at most this much text (the supervisor re-chunks anyway).
STREAM_MESSAGE_CHARS = 64 * 1024

# A figure's PNG above this size is rendered again at a lower resolution.
MAX_PNG_BYTES = 2 * 1024 * 1024
# Agg allocates width * height * 4 bytes; start lower than dpi 100 for huge figures.
MAX_FIGURE_PIXELS = 25_000_000
FIGURE_DPI = 100
# Budget of one encoded rich output, below the host's 4 MiB line cap.
MAX_RICH_MESSAGE_BYTES = 3 * 1024 * 1024 + 512 * 1024
MAX_TEXT_PLAIN_CHARS = 1024 * 1024
MAX_EVALUE_CHARS = 64 * 1024
MAX_TRACEBACK_LINE_CHARS = 8 * 1024
MAX_TRACEBACK_LINES = 400
MAX_REASON_CHARS = 500

PRELOAD = ("numpy", "pandas", "matplotlib")

# What a cell's checks hold at most.
MAX_CHECKS = 64
MAX_CHECK_FILES = 64
# Merges beyond this many rows on both sides together are not checked for unmatched keys.
MAX_CHECKED_MERGE_ROWS = 20_000_000
DATA_DIR = "/data"


class _SigintState:
    """How SIGINT is handled.

    KeyboardInterrupt is raised only while user code runs (`active`). While the main
    thread is writing a message (`critical`), it is deferred so that a message is never
    cut in half; it is raised right after the write instead.
    """

    active = False
    critical = 0
    pending = False


_sigint = _SigintState()
_MAIN_THREAD = threading.main_thread()


def _on_sigint(signum, frame):
    if not _sigint.active:
        return  # idle, or kernel bookkeeping: nothing to interrupt
    if _sigint.critical:
        _sigint.pending = True
        return
    raise KeyboardInterrupt


class MessageChannel:
    """Writes JSON lines to the supervisor; whole lines only, from any thread."""

    def __init__(self, fd):
        self._fd = fd
        self._lock = threading.Lock()

    def reinit_after_fork(self):
        self._lock = threading.Lock()

    def send(self, obj):
        # ensure_ascii=False keeps the line short; a lone surrogate (possible in a str)
        # becomes '?' so the line is always valid UTF-8.
        data = (json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
                + "\n").encode("utf-8", "replace")
        main = threading.current_thread() is _MAIN_THREAD
        if main:
            _sigint.critical += 1
        try:
            with self._lock:
                view = memoryview(data)
                while view:
                    try:
                        written = os.write(self._fd, view)
                    except BrokenPipeError:
                        # The supervisor is gone; nothing left to do.
                        os._exit(1)
                    view = view[written:]
        finally:
            if main:
                _sigint.critical -= 1
                if not _sigint.critical and _sigint.pending:
                    _sigint.pending = False
                    if _sigint.active:
                        raise KeyboardInterrupt


class StreamBuffer(io.BufferedIOBase):
    """sys.stdout.buffer / sys.stderr.buffer: bytes become the stream's text.

    Bytes are decoded as UTF-8 (a character split between two writes is kept until it is
    whole; invalid bytes become U+FFFD) and go where the text goes, in order with it."""

    def __init__(self, writer):
        super().__init__()
        self._writer = writer
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def reinit_after_fork(self):
        self._decoder.reset()

    @property
    def name(self):
        return self._writer.name

    @property
    def mode(self):
        return "wb"

    @property
    def raw(self):
        return self

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    def isatty(self):
        return False

    def fileno(self):
        return self._writer.fileno()

    def write(self, data):
        if self.closed or self._writer.closed:
            raise ValueError("I/O operation on closed file.")
        view = memoryview(data).cast("B")
        text = self._decoder.decode(view.tobytes())
        if text:
            self._writer.write(text)
        return len(view)

    def flush(self):
        if not self.closed and not self._writer.closed:
            self._writer.flush()

    def close(self):
        # Closing the buffer closes its text stream, as io.TextIOWrapper's does.
        if not self.closed:
            text = self._decoder.decode(b"", final=True)
            if text and not self._writer.closed:
                self._writer.write(text)
            super().close()
            self._writer.close()


class StreamWriter(io.TextIOBase):
    """sys.stdout / sys.stderr: text goes to the supervisor as `stream` outputs."""

    def __init__(self, kernel, name, fd):
        super().__init__()
        self._kernel = kernel
        self._name = name
        self._fd = fd
        self._buffer = StreamBuffer(self)
        self._buf = []
        self._size = 0
        self._buf_lock = threading.Lock()
        # Held while a chunk is taken out and sent, so two threads flushing at once
        # cannot reorder the text.
        self._flush_lock = threading.Lock()

    def reinit_after_fork(self):
        self._buf_lock = threading.Lock()
        self._flush_lock = threading.Lock()
        # Text buffered before the fork is the parent's to send, not a second time here.
        self._buf = []
        self._size = 0
        self._buffer.reinit_after_fork()

    # Attributes code commonly looks at.
    @property
    def buffer(self):
        return self._buffer

    @property
    def name(self):
        return "<%s>" % self._name

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "replace"

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    def isatty(self):
        return False

    def fileno(self):
        # The real fd 1/2 of the worker: pipes the supervisor reads as well. This lets
        # `subprocess.run(..., stdout=sys.stdout)` and faulthandler work.
        return self._fd

    def write(self, s):
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if not s:
            return 0
        with self._buf_lock:
            self._buf.append(s)
            self._size += len(s)
            size = self._size
        if size >= FLUSH_CHARS or (not self._kernel.flusher_running and "\n" in s):
            # (A forked child has no flusher thread: it flushes on newlines, and
            # multiprocessing flushes sys.stdout when a child ends.)
            self.flush()
        else:
            self._kernel.poke_flusher()
        return len(s)

    def flush(self):
        if self.closed:
            return
        with self._flush_lock:
            with self._buf_lock:
                if not self._buf:
                    return
                text = "".join(self._buf)
                self._buf = []
                self._size = 0
            for start in range(0, len(text), STREAM_MESSAGE_CHARS):
                self._kernel.send_output({
                    "output_type": "stream",
                    "name": self._name,
                    "text": text[start:start + STREAM_MESSAGE_CHARS],
                })


def _truncate(text, limit, marker="\n[... truncated]"):
    if len(text) <= limit:
        return text
    return text[:limit] + marker


def _json_size(value):
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "replace"))


# ---- checks: what a cell did to its data, as the kernel saw it --------------------------------
#
# A few pandas entry points are wrapped, and an audit hook sees every open(): the cell's
# reads of /data (rows x columns, lines not read), merges and joins (rows on each side and in
# the result, keys that match nothing on each side, many-to-many keys), drop_duplicates and
# dropna (rows removed), and the /data files it opened. Only calls made by the cell's own code
# count (not pandas calling itself). None of this changes what the calls return.

class Checks:
    def __init__(self):
        self.active = False
        self.depth = 0
        self.items = []
        self.files = []

    def begin(self, enabled):
        self.items = []
        self.files = []
        self.depth = 0
        self.active = bool(enabled)

    def end(self):
        self.active = False
        return {"items": self.items, "files": self.files}

    def add(self, item):
        if len(self.items) < MAX_CHECKS:
            self.items.append(item)

    def opened(self, name):
        if name not in self.files and len(self.files) < MAX_CHECK_FILES:
            self.files.append(name)


_checks = Checks()


def _bound_ids(namespace):
    """What each name of the namespace is bound to before a cell (by identity)."""
    try:
        return {name: id(value) for name, value in list(namespace.items())}
    except Exception:
        return {}


def _made_frames(namespace, bound):
    """The DataFrames the cell bound to a name (new names, or names bound anew): their shapes
    are what schema-only mode tells the model of a cell."""
    pd = sys.modules.get("pandas")
    frames = []
    if pd is None:
        return frames
    try:
        for name, value in list(namespace.items()):
            if len(frames) >= MAX_CHECKS:
                break
            if name.startswith("_") or not isinstance(value, pd.DataFrame) or bound.get(name) == id(value):
                continue
            rows, columns = value.shape
            frames.append({"name": name, "rows": int(rows), "columns": int(columns)})
    except Exception:
        pass
    return frames


def _data_name(path):
    """The name under /data of PATH (a str, bytes or path-like), or None."""
    try:
        path = os.fspath(path)
    except TypeError:
        return None
    if isinstance(path, bytes):
        path = path.decode("utf-8", "replace")
    if not isinstance(path, str) or not path:
        return None
    if not path.startswith("/"):
        path = os.path.join(os.getcwd(), path)
    path = os.path.normpath(path)
    if path.startswith(DATA_DIR + "/"):
        return path[len(DATA_DIR) + 1:]
    return None


def _called_by_cell():
    """Whether the wrapped call comes from a cell's code (its frame's file is "<cell N>")."""
    try:
        return sys._getframe(2).f_code.co_filename.startswith("<cell ")
    except Exception:
        return False


def _sqlite_data_name(database):
    """The name under /data of what sqlite3.connect opens: a path, or a "file:" URI (its
    query, such as ?mode=ro&immutable=1, and its %-escapes undone); None otherwise."""
    try:
        database = os.fspath(database)
    except TypeError:
        return None
    if isinstance(database, bytes):
        database = database.decode("utf-8", "replace")
    if not isinstance(database, str):
        return None
    if database.startswith("file:"):
        import urllib.parse
        path = urllib.parse.unquote(database[5:].split("?", 1)[0].split("#", 1)[0])
        if path.startswith("//"):
            # file://HOST/PATH: SQLite accepts only an empty host or localhost.
            host, _, rest = path[2:].partition("/")
            if host not in ("", "localhost"):
                return None
            path = "/" + rest
        database = path
    return _data_name(database)


def _audit(event, args):
    # Runs for every audited event of the process: cheap, and never raising (that would
    # make the operation fail).
    if not _checks.active or (event != "open" and event != "sqlite3.connect"):
        return
    if event == "sqlite3.connect":
        # SQLite opens its file in C, which the "open" event does not see.
        try:
            name = _sqlite_data_name(args[0]) if args else None
            if name is not None:
                _checks.opened(name)
        except Exception:
            pass
        return
    try:
        name = _data_name(args[0]) if args and not isinstance(args[0], int) else None
        # run_sql's results are loaded by Assay's own line, not read by the cell.
        if name is not None and not name.startswith(".assay-query-"):
            _checks.opened(name)
    except Exception:
        pass


def _count_lines(path):
    with open(path, "rb") as f:
        count, last = 0, b"\n"
        while True:
            block = f.read(1 << 20)
            if not block:
                break
            count += block.count(b"\n")
            last = block[-1:]
        return count + (last != b"\n")


def _wrap_reader(orig):
    @functools.wraps(orig)
    def reader(*args, **kwargs):
        if not _checks.active or _checks.depth or not _called_by_cell():
            return orig(*args, **kwargs)
        _checks.depth += 1
        try:
            result = orig(*args, **kwargs)
        finally:
            _checks.depth -= 1
        try:
            source = args[0] if args else kwargs.get("filepath_or_buffer", kwargs.get("io", kwargs.get("path")))
            name = _data_name(source)
            shape = getattr(result, "shape", None)
            if name is not None and isinstance(shape, tuple) and len(shape) == 2:
                item = {"kind": "read", "file": name, "rows": int(shape[0]), "columns": int(shape[1])}
                # Rows the reader was told to skip: what the file holds beyond the header and
                # the rows read (blank lines included, which pandas skips too).
                bad = kwargs.get("on_bad_lines")
                if bad in ("skip", "warn") or kwargs.get("error_bad_lines") is False:
                    header = 0 if kwargs.get("header", "infer") is None else 1
                    lines = _count_lines(os.path.join(DATA_DIR, name))
                    item["bad_lines"] = max(0, lines - header - int(shape[0]))
                _checks.add(item)
        except Exception:
            pass
        return result
    return reader


def _sqlite_connection_name(con):
    """The name under /data of the main database of a sqlite3 connection, or None (another
    kind of connection, or a database elsewhere)."""
    import sqlite3
    if not isinstance(con, sqlite3.Connection):
        return None
    for row in con.execute("PRAGMA database_list").fetchall():
        if len(row) >= 3 and row[1] == "main" and row[2]:
            return _data_name(row[2])
    return None


def _wrap_sql_reader(orig):
    """pandas.read_sql and its kin on a SQLite dataset: a read of that file, with the shape of
    the result (a query of its tables, not the whole file)."""
    @functools.wraps(orig)
    def reader(*args, **kwargs):
        if not _checks.active or _checks.depth or not _called_by_cell():
            return orig(*args, **kwargs)
        _checks.depth += 1
        try:
            result = orig(*args, **kwargs)
        finally:
            _checks.depth -= 1
        try:
            con = args[1] if len(args) > 1 else kwargs.get("con")
            name = _sqlite_connection_name(con)
            shape = getattr(result, "shape", None)
            if name is not None and isinstance(shape, tuple) and len(shape) == 2:
                _checks.add({"kind": "read", "file": name, "rows": int(shape[0]), "columns": int(shape[1])})
                _checks.opened(name)
        except Exception:
            pass
        return result
    return reader


def _key_index(pd, frame, columns):
    if not isinstance(columns, (list, tuple)):
        columns = [columns]
    if len(columns) == 1:
        return pd.Index(frame[columns[0]])
    return pd.MultiIndex.from_frame(frame[list(columns)])


def _merge_check(pd, left, right, result, how, on=None, left_on=None, right_on=None,
                 left_index=False, right_index=False):
    item = {"kind": "merge", "how": how if isinstance(how, str) else "inner",
            "left": int(len(left)), "right": int(len(right)), "rows": int(len(result))}
    if item["how"] == "cross" or len(left) + len(right) > MAX_CHECKED_MERGE_ROWS:
        return item
    try:
        if on is None and left_on is None and right_on is None and not left_index and not right_index:
            on = [c for c in left.columns if c in set(right.columns)]
        left_keys = left.index if left_index else _key_index(pd, left, left_on if left_on is not None else on)
        right_keys = right.index if right_index else _key_index(pd, right, right_on if right_on is not None else on)
        left_found = left_keys.isin(right_keys)
        right_found = right_keys.isin(left_keys)
        item["left_unmatched"] = int((~left_found).sum())
        item["right_unmatched"] = int((~right_found).sum())
        left_matched, right_matched = left_keys[left_found], right_keys[right_found]
        repeated = left_matched[left_matched.duplicated()]
        item["many_to_many"] = bool(len(repeated) and
                                    repeated.isin(right_matched[right_matched.duplicated()]).any())
    except Exception:
        pass
    return item


def _wrap_merge(orig, pd, method):
    @functools.wraps(orig)
    def merge(*args, **kwargs):
        if not _checks.active or _checks.depth or not _called_by_cell():
            return orig(*args, **kwargs)
        _checks.depth += 1
        try:
            result = orig(*args, **kwargs)
        finally:
            _checks.depth -= 1
        try:
            names = ("left", "right", "how", "on", "left_on", "right_on", "left_index", "right_index")
            bound = dict(zip(names, args))
            bound.update({k: v for k, v in kwargs.items() if k in names})
            left, right = bound.get("left"), bound.get("right")
            if isinstance(left, pd.DataFrame) and isinstance(right, (pd.DataFrame, pd.Series)):
                if isinstance(right, pd.Series):
                    right = right.to_frame()
                _checks.add(_merge_check(pd, left, right, result, bound.get("how", "inner"), bound.get("on"),
                                         bound.get("left_on"), bound.get("right_on"),
                                         bound.get("left_index", False), bound.get("right_index", False)))
        except Exception:
            pass
        return result
    return merge


def _wrap_join(orig, pd):
    @functools.wraps(orig)
    def join(self, other, *args, **kwargs):
        if not _checks.active or _checks.depth or not _called_by_cell():
            return orig(self, other, *args, **kwargs)
        _checks.depth += 1
        try:
            result = orig(self, other, *args, **kwargs)
        finally:
            _checks.depth -= 1
        try:
            on = args[0] if args else kwargs.get("on")
            how = args[1] if len(args) > 1 else kwargs.get("how", "left")
            if isinstance(other, pd.Series):
                other = other.to_frame()
            if isinstance(other, pd.DataFrame):
                if on is None:
                    _checks.add(_merge_check(pd, self, other, result, how, left_index=True, right_index=True))
                else:
                    _checks.add(_merge_check(pd, self, other, result, how, left_on=on, right_index=True))
        except Exception:
            pass
        return result
    return join


def _wrap_drop(orig, pd, kind):
    @functools.wraps(orig)
    def drop(self, *args, **kwargs):
        if not _checks.active or _checks.depth or not _called_by_cell():
            return orig(self, *args, **kwargs)
        before = len(self)
        _checks.depth += 1
        try:
            result = orig(self, *args, **kwargs)
        finally:
            _checks.depth -= 1
        try:
            axis = kwargs.get("axis", args[0] if kind == "dropna" and args else 0)
            if isinstance(self, pd.DataFrame) and axis in (0, "index", "rows"):
                after = len(result) if result is not None else len(self)
                _checks.add({"kind": kind, "before": int(before), "rows": int(after)})
        except Exception:
            pass
        return result
    return drop


def _install_checks():
    try:
        import pandas as pd
    except Exception:
        return
    for name in ("read_csv", "read_table", "read_fwf", "read_excel", "read_parquet", "read_json",
                 "read_feather", "read_pickle"):
        if hasattr(pd, name):
            setattr(pd, name, _wrap_reader(getattr(pd, name)))
    for name in ("read_sql", "read_sql_query", "read_sql_table"):
        if hasattr(pd, name):
            setattr(pd, name, _wrap_sql_reader(getattr(pd, name)))
    pd.merge = _wrap_merge(pd.merge, pd, False)
    pd.DataFrame.merge = _wrap_merge(pd.DataFrame.merge, pd, True)
    pd.DataFrame.join = _wrap_join(pd.DataFrame.join, pd)
    pd.DataFrame.drop_duplicates = _wrap_drop(pd.DataFrame.drop_duplicates, pd, "drop_duplicates")
    pd.DataFrame.dropna = _wrap_drop(pd.DataFrame.dropna, pd, "dropna")
    sys.addaudithook(_audit)


def _install_frames():
    """Makes `import assay_frames` (run_sql's loader, beside this file) work in cells: the
    worker runs isolated (-I), so its own folder is not on sys.path."""
    import importlib.util
    path = os.path.join(os.path.dirname(WORKER_FILE), "assay_frames.py")
    if not os.path.exists(path):
        return
    spec = importlib.util.spec_from_file_location("assay_frames", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["assay_frames"] = module


class Kernel:
    def __init__(self, msg_fd, ctl_fd, workspace):
        self.channel = MessageChannel(msg_fd)
        self.ctl_fd = ctl_fd
        self.workspace = workspace
        self.seq = None            # sequence number of the running cell
        self.execution_count = 0
        self.flusher_running = False
        self._poke = threading.Event()
        self.plt = None
        self.figure_class = None
        # The PNG files of /workspace the running cell saved a figure to: real path -> the
        # figure saved there last. The file becomes an artifact, which the chat, the gallery
        # and the reports show; the same figure unchanged is not shown inline again.
        self.saved_figures = {}
        # The namespace is the dict of a module installed as __main__, so that classes
        # and functions defined in cells can be pickled (pickle, multiprocessing).
        main_module = types.ModuleType("__main__")
        sys.modules["__main__"] = main_module
        self.namespace = main_module.__dict__
        self.namespace.update({"__builtins__": builtins, "display": self.display})
        # Duplicates of the fd 1/2 pipes, to repair them when user code closes or
        # redirects fd 1/2.
        self.saved_stdout_fd = os.dup(1)
        self.saved_stderr_fd = os.dup(2)
        self.stdout = StreamWriter(self, "stdout", 1)
        self.stderr = StreamWriter(self, "stderr", 2)
        self._install_stdio()
        os.register_at_fork(after_in_child=self._after_fork_in_child)

    # ---- plumbing ---------------------------------------------------------------

    def _after_fork_in_child(self):
        # A forked child has no flusher thread and may have inherited a held lock.
        self.flusher_running = False
        self.channel.reinit_after_fork()
        self.stdout.reinit_after_fork()
        self.stderr.reinit_after_fork()

    def _install_stdio(self):
        if self.stdout.closed:
            self.stdout = StreamWriter(self, "stdout", 1)
        if self.stderr.closed:
            self.stderr = StreamWriter(self, "stderr", 2)
        sys.stdout = sys.__stdout__ = self.stdout
        sys.stderr = sys.__stderr__ = self.stderr
        if sys.stdin is None or sys.stdin.closed:
            # exit() and quit() close sys.stdin before raising SystemExit.
            sys.stdin = sys.__stdin__ = open(os.devnull, "r", encoding="utf-8")

    def _restore_stdio(self):
        """Undo what a cell did to sys.stdout/sys.stderr and to fd 1/2."""
        try:
            os.dup2(self.saved_stdout_fd, 1)
            os.dup2(self.saved_stderr_fd, 2)
        except OSError:
            pass
        self._install_stdio()

    def start_flusher(self):
        thread = threading.Thread(target=self._flusher, name="assay-flusher", daemon=True)
        self.flusher_running = True
        thread.start()

    def poke_flusher(self):
        self._poke.set()

    def _flusher(self):
        # SIGINT must reach the main thread: taken by this thread, it would only set
        # CPython's flag, and a time.sleep() in the cell would sleep on to its end.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        while True:
            self._poke.wait()
            time.sleep(FLUSH_INTERVAL)
            self._poke.clear()
            for writer in (self.stdout, self.stderr):
                try:
                    writer.flush()
                except Exception:
                    pass

    def flush_streams(self):
        for writer in (self.stdout, self.stderr):
            try:
                writer.flush()
            except Exception:
                pass

    def send_output(self, output):
        self.channel.send({"type": "output", "seq": self.seq, "output": output})

    def send_rich(self, output):
        # Text printed before a rich output should be shown before it.
        self.flush_streams()
        self.send_output(output)

    # ---- startup ------------------------------------------------------------------

    def preload(self):
        """Import the heavy libraries once, so the first cell does not pay for them."""
        os.environ.setdefault("MPLBACKEND", "Agg")
        preloaded, failed = [], {}
        for name in PRELOAD:
            try:
                __import__(name)
                preloaded.append(name)
            except Exception as exc:
                failed[name] = "%s: %s" % (type(exc).__name__, exc)
        if "matplotlib" in preloaded:
            try:
                import matplotlib
                matplotlib.use("Agg")
                import matplotlib.figure
                import matplotlib.pyplot as plt
                # Resolve the backend now (pyplot does it lazily at the first figure).
                plt.switch_backend("Agg")
                self.plt = plt
                self.figure_class = matplotlib.figure.Figure

                # With Agg, plt.show() only warns. Make it show the open figures right
                # away, as a notebook does. A plain function: pyplot sets attributes
                # such as __signature__ on it when the backend changes.
                def show(*args, **kwargs):
                    self.show_figures()

                plt.show = show
                self._watch_savefig(matplotlib.figure.Figure)
            except Exception as exc:
                failed["matplotlib.pyplot"] = "%s: %s" % (type(exc).__name__, exc)
        try:
            _install_checks()
        except Exception as exc:
            failed["checks"] = "%s: %s" % (type(exc).__name__, exc)
        try:
            _install_frames()
        except Exception as exc:
            failed["assay_frames"] = "%s: %s" % (type(exc).__name__, exc)
        self.channel.send({"type": "ready", "preloaded": preloaded, "failed": failed})

    # ---- figures saved to files -------------------------------------------------------

    def _watch_savefig(self, figure_class):
        """Notes the figures a cell saves to PNG files in the workspace (plt.savefig is
        gcf().savefig)."""
        original = figure_class.savefig
        kernel = self

        @functools.wraps(original)
        def savefig(fig, fname, *args, **kwargs):
            result = original(fig, fname, *args, **kwargs)
            kernel._note_saved_figure(fig, fname, kwargs.get("format"))
            return result

        figure_class.savefig = savefig

    def _note_saved_figure(self, fig, fname, fmt):
        try:
            if self.seq is None or not isinstance(fname, (str, bytes, os.PathLike)):
                return  # a buffer (our own rendering, or the cell's) is no artifact
            path = os.fsdecode(os.fspath(fname))
            # The host takes an artifact for a figure by its name: a .png, in PNG.
            if os.path.splitext(path)[1].lower() != ".png" or \
                    (fmt is not None and str(fmt).lower() != "png"):
                return
            path = os.path.realpath(path)
            if not path.startswith(os.path.realpath(self.workspace) + os.sep):
                return
            self.saved_figures[path] = fig
            # As drawn into the file: whatever changes the figure from here on makes it
            # stale again (savefig itself leaves it stale, restoring what it set).
            fig.stale = False
        except Exception:
            pass

    def _saved_as_file(self, fig):
        """Whether the running cell saved FIG as it is now to a PNG file of the workspace
        that still holds it: that file is the figure's artifact."""
        try:
            if fig.stale:
                return False
            return any(saved is fig and os.path.isfile(path)
                       for path, saved in self.saved_figures.items())
        except Exception:
            return False

    # ---- rich display ---------------------------------------------------------------

    def display(self, *objs, **kwargs):
        """Show objects as display_data outputs (like IPython's display())."""
        for obj in objs:
            self.publish(obj, "display_data")

    def _is_figure(self, obj):
        return self.figure_class is not None and isinstance(obj, self.figure_class)

    def publish(self, obj, output_type):
        if self._is_figure(obj) and self._saved_as_file(obj):
            # Its file is shown as the cell's artifact; not a second time.
            if self.plt is not None:
                self.plt.close(obj)
            return
        data = self.mime_bundle(obj)
        output = {"output_type": output_type, "data": data, "metadata": {}}
        if output_type == "execute_result":
            output["execution_count"] = self.execution_count
        self.send_rich(output)

    def mime_bundle(self, obj):
        if self._is_figure(obj):
            data = self.figure_bundle(obj)
            if self.plt is not None:
                # Shown now; do not show it again at the end of the cell.
                self.plt.close(obj)
            return data
        data = {"text/plain": _truncate(repr(obj), MAX_TEXT_PLAIN_CHARS)}
        if not isinstance(obj, type):  # a class's _repr_html_ is an unbound function
            html = self._call_repr(obj, "_repr_html_")
            if isinstance(html, str):
                data["text/html"] = html
            png = self._call_repr(obj, "_repr_png_")
            if isinstance(png, (bytes, bytearray)) and len(png) <= MAX_PNG_BYTES:
                data["image/png"] = base64.b64encode(png).decode("ascii")
        return self._fit_bundle(data)

    @staticmethod
    def _call_repr(obj, method):
        try:
            func = getattr(obj, method, None)
            if func is None or not callable(func):
                return None
            return func()
        except Exception:
            # A broken _repr_*_ only costs that representation.
            return None

    @staticmethod
    def _fit_bundle(data):
        """Keep one output under the line cap: drop HTML, then the image, then cut text."""
        def size():
            return sum(_json_size(k) + _json_size(v) for k, v in data.items())

        for key in ("text/html", "image/png"):
            if size() <= MAX_RICH_MESSAGE_BYTES:
                break
            if key in data:
                del data[key]
                data["text/plain"] = data.get("text/plain", "") + \
                    "\n[%s representation omitted: too large]" % key
        excess = size() - MAX_RICH_MESSAGE_BYTES
        if excess > 0:
            text = data.get("text/plain", "")
            # Every character takes at least one byte: cutting `excess` characters
            # (plus room for the marker) is always enough.
            data["text/plain"] = _truncate(text, max(0, len(text) - excess - 64))
        return data

    def figure_bundle(self, fig):
        label = repr(fig)
        width, height = fig.get_size_inches()
        dpi = FIGURE_DPI
        pixels = width * height * dpi * dpi
        if pixels > MAX_FIGURE_PIXELS:
            dpi = max(10, int(dpi * (MAX_FIGURE_PIXELS / pixels) ** 0.5))
        for _ in range(4):
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
            png = buf.getvalue()
            if len(png) <= MAX_PNG_BYTES:
                return {"text/plain": label,
                        "image/png": base64.b64encode(png).decode("ascii")}
            # PNG size grows roughly with the pixel count, i.e. with dpi squared.
            new_dpi = int(dpi * (MAX_PNG_BYTES / len(png)) ** 0.5 * 0.9)
            if new_dpi < 10 or new_dpi >= dpi:
                break
            dpi = new_dpi
        return {"text/plain": label + "\n[figure not shown: its image is larger than 2 MB]"}

    def show_figures(self):
        """Send every open pyplot figure as display_data, then close them all."""
        plt = self.plt
        if plt is None:
            return
        try:
            for num in plt.get_fignums():
                fig = plt.figure(num)
                if self._saved_as_file(fig):
                    continue  # its file is the cell's artifact
                try:
                    data = self.figure_bundle(fig)
                except (KeyboardInterrupt, MemoryError):
                    raise
                except Exception as exc:
                    self.stderr.write("[assay] could not render figure %s: %s: %s\n"
                                      % (num, type(exc).__name__, exc))
                    continue
                self.send_rich({"output_type": "display_data", "data": data,
                                "metadata": {}})
        finally:
            plt.close("all")

    # ---- errors -------------------------------------------------------------------------

    def send_error(self, exc):
        try:
            tb = exc.__traceback__
            # Drop the frames of the worker itself, which sit on top of the user's.
            while tb is not None and tb.tb_frame.f_code.co_filename == WORKER_FILE:
                tb = tb.tb_next
            lines = "".join(traceback.format_exception(type(exc), exc, tb)) \
                .rstrip("\n").split("\n")
            if len(lines) > MAX_TRACEBACK_LINES:
                half = MAX_TRACEBACK_LINES // 2
                lines = lines[:half] + ["[... %d lines omitted ...]" % (len(lines) - 2 * half)] \
                    + lines[-half:]
            lines = [_truncate(line, MAX_TRACEBACK_LINE_CHARS) for line in lines]
            self.send_rich({
                "output_type": "error",
                "ename": _truncate(type(exc).__name__, 200),
                "evalue": _truncate(_safe_str(exc), MAX_EVALUE_CHARS),
                "traceback": lines,
            })
        except Exception:
            pass  # e.g. out of memory again; the status still says what happened

    # ---- running cells ----------------------------------------------------------------

    def run_user(self, func):
        """Run func as user code (interruptible); return (status, reason)."""
        try:
            _sigint.pending = False
            _sigint.active = True
            try:
                func()
            finally:
                _sigint.active = False
        except KeyboardInterrupt as exc:
            self.send_error(exc)
            return "interrupted", "the cell was interrupted"
        except MemoryError as exc:
            self.send_error(exc)
            return "oom", "MemoryError: the cell ran out of memory"
        except BaseException as exc:  # SystemExit too: the worker must survive it
            self.send_error(exc)
            return "error", _truncate("%s: %s" % (type(exc).__name__, _safe_str(exc)),
                                      MAX_REASON_CHARS, "...")
        return "ok", None

    def run_cell(self, seq, execution_count, code, checks=True):
        self.seq = seq
        self.execution_count = execution_count
        self.saved_figures = {}
        filename = "<cell %d>" % execution_count
        # Tracebacks and warnings show the cell's source lines. mtime None keeps
        # linecache.checkcache() from dropping the entry.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        # User code may have replaced the handler in an earlier cell.
        signal.signal(signal.SIGINT, _on_sigint)

        def body():
            # From here on a SIGINT interrupts the cell; the supervisor holds back an
            # interrupt that comes earlier until it sees this message.
            self.channel.send({"type": "started", "seq": seq})
            tree = compile(code, filename, "exec", ast.PyCF_ONLY_AST)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr) \
                    and not _ends_with_semicolon(code, tree.body[-1]):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, filename, "exec"), self.namespace)
            if last is not None:
                value = eval(compile(last, filename, "eval"), self.namespace)
                if value is not None:
                    self.namespace["_"] = value
                    self.publish(value, "execute_result")

        began = _monotonic()
        _checks.begin(checks)
        bound = _bound_ids(self.namespace) if checks else None
        try:
            status, reason = self.run_user(body)
        finally:
            self.checks = _checks.end()
            if bound is not None:
                self.checks["frames"] = _made_frames(self.namespace, bound)
        # Figures are shown whatever happened (a plot before an error is still useful).
        fig_status, fig_reason = self.run_user(self.show_figures)
        if status == "ok":
            status, reason = fig_status, fig_reason
        self.code_us = int((_monotonic() - began) * 1e6)
        self.finish_cell(status, reason)

    def finish_cell(self, status, reason):
        self._restore_stdio()
        self.flush_streams()
        _flush_c_stdio()
        done = {"type": "done", "seq": self.seq, "status": status,
                "code_us": getattr(self, "code_us", 0)}
        checks = getattr(self, "checks", None)
        if checks and (checks["items"] or checks["files"] or checks.get("frames")):
            done["checks"] = checks
        self.checks = None
        self.code_us = 0
        if reason:
            done["reason"] = reason
        self.channel.send(done)
        self.seq = None
        self.saved_figures = {}

    def serve(self):
        for line in _read_lines(self.ctl_fd):
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if not isinstance(msg, dict) or msg.get("type") != "execute":
                continue
            seq = msg.get("seq")
            count = msg.get("execution_count")
            code = msg.get("code")
            if not isinstance(count, int) or not isinstance(code, str):
                continue
            try:
                self.run_cell(seq, count, code, msg.get("checks") is not False)
            except BaseException as exc:  # a bug here must not leave the cell hanging
                _sigint.active = False
                self.seq = seq
                try:
                    self.finish_cell("error", "internal error of the kernel: %s: %s"
                                     % (type(exc).__name__, _safe_str(exc)))
                except BaseException:
                    pass


def _safe_str(exc):
    try:
        return str(exc)
    except Exception:
        return "<exception str() failed>"


def _ends_with_semicolon(code, node):
    """Whether the last expression is followed by ';' (suppresses its display)."""
    lines = code.splitlines()
    if node.end_lineno is None or node.end_lineno > len(lines):
        return False
    rest = lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset:]
    return rest.decode("utf-8", "replace").lstrip().startswith(";")


def _flush_c_stdio():
    """Flush C-level stdio buffers (printf from extension modules) into the fd 1 pipe."""
    try:
        import ctypes
        ctypes.CDLL(None).fflush(None)
    except Exception:
        pass


def _read_lines(fd):
    buf = bytearray()
    while True:
        chunk = os.read(fd, 1 << 16)  # retried on EINTR (PEP 475)
        if not chunk:
            return
        buf += chunk
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line = bytes(buf[:nl])
            del buf[:nl + 1]
            yield line


def _raise_oom_score():
    # Make the OOM killer pick the worker, not the supervisor. Raising is allowed
    # without privileges; best effort.
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def _parse_args(argv):
    fds = {}
    it = iter(argv)
    for arg in it:
        if arg in ("--msg-fd", "--ctl-fd"):
            fds[arg] = int(next(it))
    return fds["--msg-fd"], fds["--ctl-fd"]


def main():
    _raise_oom_score()
    signal.signal(signal.SIGINT, _on_sigint)
    msg_fd, ctl_fd = _parse_args(sys.argv[1:])
    sys.argv = [sys.argv[0]]
    # Inherited via pass_fds: keep them from leaking into subprocesses of user code.
    os.set_inheritable(msg_fd, False)
    os.set_inheritable(ctl_fd, False)

    workspace = os.environ.get("ASSAY_WORKSPACE", "/workspace")
    try:
        os.chdir(workspace)
    except OSError:
        pass
    # Like a notebook: modules the user writes in the workspace can be imported...
    sys.path.insert(0, workspace)
    # ...without leaving __pycache__ folders behind as artifacts.
    sys.dont_write_bytecode = True

    kernel = Kernel(msg_fd, ctl_fd, workspace)
    try:
        import faulthandler
        # A crash in C code leaves a Python traceback on the stderr pipe.
        faulthandler.enable(file=kernel.saved_stderr_fd, all_threads=True)
    except Exception:
        pass
    kernel.start_flusher()
    kernel.preload()
    kernel.serve()
    # The supervisor closed the control pipe. Do not wait for threads of user code.
    os._exit(0)


if __name__ == "__main__":
    main()
