#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A real PostgreSQL 15 server for a GUI test, in a temporary folder of its own
(tests/sources/dbservers.py: initdb, a unix socket and 127.0.0.1 on a free port, the shop with
its roles; here with a small fact table, which the window's tests do not need large).

    db-server.py

Also the shop as an SQLite file. Prints one JSON line, {"port", "socket_dir",
"reader_password", "refused_port", "sqlite_path"}, then reads
SQL from stdin, one statement a line, runs each as the superuser in the shop database and
answers each with one JSON line: the output as a string. When stdin closes (the test ended,
or died), the server stops and its folder is removed."""
import json
import os
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sources"))
import dbservers  # noqa: E402


def main():
    # The test died (its SIGTERM to us): the server still stops and its folder goes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    files = tempfile.mkdtemp(prefix="assay-gui-sqlite-")
    try:
        sqlite_path = os.path.join(files, "shop.db")
        dbservers.sqlite_shop(sqlite_path, events=1000)
        with dbservers.PostgresServer() as pg:
            dbservers.pg_shop(pg, events=1000)
            print(json.dumps({"port": pg.port, "socket_dir": pg.socket_dir,
                              "reader_password": dbservers.READER_PASSWORD,
                              "refused_port": dbservers.free_port(), "sqlite_path": sqlite_path}), flush=True)
            for line in sys.stdin:
                try:
                    out = pg.psql(line, db="shop")
                except RuntimeError as error:
                    out = "error: %s" % error
                print(json.dumps(out), flush=True)
    finally:
        shutil.rmtree(files, ignore_errors=True)


if __name__ == "__main__":
    main()
