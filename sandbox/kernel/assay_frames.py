# SPDX-License-Identifier: GPL-3.0-or-later
"""Loads the results of run_sql into DataFrames.

The host runs the query (the sandbox has no network) and writes its result as one typed file
under /data (src/core/sources/assay-query-result.c describes the format, "ASSAYQR1"); the
cell it runs then is

    name = __import__("assay_frames").load("/data/.assay-query-c3.aqr")
    __import__("assay_frames").show(name)

The worker registers this module as `assay_frames` before the first cell. Columns become:

    int64, uint64  Int64 / UInt64 (nullable)        float64      float64, NULL as NaN
    bool           boolean (nullable)               decimal      object of decimal.Decimal
    date           datetime64[ns] (midnight)        timestamp    datetime64[ns]
    timestamptz    datetime64[ns, UTC]              text, bytes  object of str / bytes, NULL as None
"""

import decimal
import json
import os

MAGIC = b"ASSAYQR1"
# Past this the file is not one Assay wrote for a query of this session.
MAX_HEADER_BYTES = 64 * 1024 * 1024


def _read(path):
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        # A writable buffer: the arrays made on it stay writable, without a copy.
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            n = f.readinto(view[got:])
            if not n:
                raise ValueError("%s was cut short" % path)
            got += n
    return buf


def _array(np, buf, base, where, dtype, count):
    offset, length = where
    if length != count * np.dtype(dtype).itemsize or base + offset + length > len(buf):
        raise ValueError("a query result's column does not match its header")
    return np.frombuffer(buf, dtype, count, base + offset)


def _strings(np, buf, base, column, rows, as_bytes):
    offset, length = column["data"]
    data = bytes(buf[base + offset:base + offset + length])
    if column.get("offsets") is None:
        parts = data.decode("utf-8").split("\x00")
        parts.pop()
        if len(parts) != rows:
            raise ValueError("a query result's text column does not match its header")
        return parts
    starts = _array(np, buf, base, column["offsets"], "<i8", rows + 1).tolist()
    if as_bytes:
        return [data[starts[i]:starts[i + 1] - 1] for i in range(rows)]
    return [data[starts[i]:starts[i + 1] - 1].decode("utf-8") for i in range(rows)]


def _column(np, pd, buf, base, rows, column):
    kind = column["kind"]
    valid = None
    if column.get("valid") is not None:
        valid = _array(np, buf, base, column["valid"], "u1", rows).astype(bool)
    missing = ~valid if valid is not None else np.zeros(rows, dtype=bool)

    if kind in ("int64", "uint64"):
        values = _array(np, buf, base, column["values"], "<i8" if kind == "int64" else "<u8", rows)
        return pd.arrays.IntegerArray(values, missing)
    if kind == "float64":
        return _array(np, buf, base, column["values"], "<f8", rows)
    if kind == "bool":
        values = _array(np, buf, base, column["values"], "u1", rows).astype(bool)
        return pd.arrays.BooleanArray(values, missing)
    if kind in ("date", "timestamp"):
        return _array(np, buf, base, column["values"], "<i8", rows).view("M8[ns]")
    if kind == "timestamptz":
        values = _array(np, buf, base, column["values"], "<i8", rows).view("M8[ns]")
        return pd.DatetimeIndex(values).tz_localize("UTC")

    parts = _strings(np, buf, base, column, rows, kind == "bytes")
    if kind == "decimal":
        make = decimal.Decimal
        if valid is None:
            parts = map(make, parts)
        else:
            parts = (make(p) if ok else None for p, ok in zip(parts, valid.tolist()))
    # fromiter: assigning a list of Decimals to an object array looks each one over as a
    # possible sequence, forty times slower.
    values = np.fromiter(parts, dtype=object, count=rows)
    if valid is not None:
        values[missing] = None
    return values


def load(path):
    """The DataFrame of the query result at PATH."""
    import numpy as np
    import pandas as pd

    buf = _read(path)
    if len(buf) < 16 or bytes(buf[:8]) != MAGIC:
        raise ValueError("%s is not a query result" % path)
    length = int.from_bytes(buf[8:16], "little")
    if length > MAX_HEADER_BYTES or 16 + length > len(buf):
        raise ValueError("%s is not a query result" % path)
    header = json.loads(bytes(buf[16:16 + length]).decode("utf-8"))
    base = 16 + length
    rows = int(header["rows"])
    specs = header["columns"]
    columns = {i: _column(np, pd, buf, base, rows, spec) for i, spec in enumerate(specs)}
    frame = pd.DataFrame(columns, index=pd.RangeIndex(rows), copy=False)
    # Names may repeat (SELECT a.id, b.id): set them after, not as keys.
    frame.columns = [spec["name"] for spec in specs]
    return frame


def show(frame, rows=5):
    """What the cell prints: the shape and the first rows."""
    import pandas as pd

    print("%s rows × %d columns" % (format(len(frame), ","), frame.shape[1]))
    if len(frame) and frame.shape[1]:
        with pd.option_context("display.max_columns", 40, "display.width", 160,
                               "display.max_colwidth", 50):
            print(frame.head(rows).to_string())
