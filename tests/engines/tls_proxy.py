#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A Docker engine over TCP with TLS, as `dockerd --tlsverify` serves it: a TLS listener on
127.0.0.1 that asks for a client certificate signed by the CA and carries each connection to
the engine's unix socket. The tests put it in front of the machine's real engine, so that
Assay's tunnel speaks real TLS to a real Docker API.

    tls_proxy.py CA.pem SERVER.pem SERVER-KEY.pem ENGINE.sock PORT-FILE
    tls_proxy.py --plain ENGINE.sock PORT-FILE      (tcp:// without TLS, on loopback)
Writes the port it listens on to PORT-FILE, then serves until killed."""

import os
import socket
import ssl
import sys
import threading


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(conn, engine):
    try:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(engine)
    except OSError:
        conn.close()
        return
    threading.Thread(target=pump, args=(upstream, conn), daemon=True).start()
    pump(conn, upstream)


def main():
    if sys.argv[1] == "--plain":
        context = None
        engine, port_file = sys.argv[2:4]
    else:
        ca, cert, key, engine, port_file = sys.argv[1:6]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        context.load_verify_locations(ca)
        context.verify_mode = ssl.CERT_REQUIRED
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(listener.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    while True:
        raw, _ = listener.accept()
        try:
            conn = context.wrap_socket(raw, server_side=True) if context is not None else raw
        except (ssl.SSLError, OSError) as exc:
            print("refused a connection: %s" % exc, file=sys.stderr, flush=True)
            raw.close()
            continue
        threading.Thread(target=serve, args=(conn, engine), daemon=True).start()


if __name__ == "__main__":
    main()
