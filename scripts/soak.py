#!/usr/bin/env python3
"""Soak test: good and bad clients against one server for a while, then a report.

Not part of `cargo test` (it runs for minutes). Start it with the project's venv:

    "$(scripts/python-env.sh)/bin/python" scripts/soak.py [--minutes 3] [--server target/release/cqld]

It starts the server on a fresh data directory, then runs at once:
- good clients (the DataStax Python driver): prepared INSERTs and SELECTs whose results are
  checked, plus a CREATE/DROP TABLE now and then;
- resetting clients: connect, STARTUP, REGISTER for events, close with a TCP reset;
- garbage clients: random bytes, truncated frames, frames announcing huge bodies;
- idle clients: connect and send nothing, or one byte, and keep the socket open;
- slow readers: ask for a large result and read it a few bytes at a time.

Every 10 seconds it prints the server's open file descriptors and RSS; at the end the totals
of good operations, wrong results and errors, and whether the server is still alive. Exit 0
when no good operation failed or returned a wrong result and the server survived.
"""

import argparse
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from cassandra.cluster import Cluster

PORT = 19660
STOP = threading.Event()
COUNTS = {"good_ops": 0, "wrong_results": 0, "good_errors": 0, "bad_clients": 0}
LOCK = threading.Lock()


def count(key, n=1):
    with LOCK:
        COUNTS[key] += n


def frame(opcode, body, stream=0):
    return struct.pack(">BBhBI", 4, 0, stream, opcode, len(body)) + body


def string_map(pairs):
    out = struct.pack(">H", len(pairs))
    for k, v in pairs:
        out += struct.pack(">H", len(k)) + k.encode() + struct.pack(">H", len(v)) + v.encode()
    return out


STARTUP = frame(0x01, string_map([("CQL_VERSION", "3.0.0")]))
REGISTER = frame(
    0x0B,
    struct.pack(">H", 2)
    + struct.pack(">H", 13) + b"STATUS_CHANGE"
    + struct.pack(">H", 13) + b"SCHEMA_CHANGE",
    stream=1,
)


def connect():
    return socket.create_connection(("127.0.0.1", PORT), timeout=5)


def good_client(ident):
    cluster = Cluster(["127.0.0.1"], port=PORT, protocol_version=4)
    session = cluster.connect()
    insert = session.prepare("INSERT INTO soak.t (k, c, v) VALUES (?, ?, ?)")
    select = session.prepare("SELECT v FROM soak.t WHERE k = ? AND c = ?")
    n = 0
    while not STOP.is_set():
        n += 1
        try:
            session.execute(insert, (ident, n, f"v{n}"))
            row = session.execute(select, (ident, n)).one()
            if row is None or row.v != f"v{n}":
                count("wrong_results")
            count("good_ops", 2)
            if n % 500 == 0:
                name = f"soak.ddl_{ident}"
                session.execute(f"CREATE TABLE IF NOT EXISTS {name} (k int PRIMARY KEY)")
                session.execute(f"DROP TABLE {name}")
                count("good_ops", 2)
        except Exception as err:  # a good client must never see an error
            count("good_errors")
            print(f"good client {ident}: {err!r}", file=sys.stderr)
    cluster.shutdown()


def resetting_client():
    while not STOP.is_set():
        try:
            s = connect()
            s.sendall(STARTUP)
            s.recv(64)
            s.sendall(REGISTER)
            s.recv(64)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
            count("bad_clients")
        except OSError:
            time.sleep(0.05)


def garbage_client(rng):
    while not STOP.is_set():
        try:
            s = connect()
            kind = rng.randrange(3)
            if kind == 0:
                s.sendall(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
            elif kind == 1:
                s.sendall(STARTUP[: rng.randrange(1, len(STARTUP))])
            else:
                s.sendall(STARTUP + struct.pack(">BBhBI", 4, 0, 5, 0x07, 0x7FFFFFFF))
            s.settimeout(0.5)
            try:
                s.recv(4096)
            except OSError:
                pass
            s.close()
            count("bad_clients")
        except OSError:
            time.sleep(0.05)


def idle_clients(held):
    while not STOP.is_set():
        try:
            s = connect()
            if random.random() < 0.5:
                s.sendall(b"\x04")
            held.append(s)
            count("bad_clients")
            if len(held) > 200:
                held.pop(0).close()
        except OSError:
            pass
        time.sleep(0.05)


def slow_reader():
    query = b"SELECT * FROM soak.t"
    body = struct.pack(">I", len(query)) + query + struct.pack(">HB", 1, 0)
    while not STOP.is_set():
        try:
            s = connect()
            s.sendall(STARTUP)
            s.recv(64)
            s.sendall(frame(0x07, body, stream=2))
            deadline = time.time() + 5
            while time.time() < deadline and not STOP.is_set():
                if not s.recv(16):
                    break
                time.sleep(0.01)
            s.close()
            count("bad_clients")
        except OSError:
            time.sleep(0.05)


def server_stats(pid):
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
    return fds, rss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=3)
    parser.add_argument("--server", default="target/release/cqld")
    args = parser.parse_args()
    data = tempfile.mkdtemp()
    server = subprocess.Popen(
        [args.server, "--port", str(PORT), "--data-dir", data],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            connect().close()
            break
        except OSError:
            time.sleep(0.05)
    setup = Cluster(["127.0.0.1"], port=PORT, protocol_version=4)
    session = setup.connect()
    session.execute(
        "CREATE KEYSPACE soak WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    session.execute("CREATE TABLE soak.t (k int, c int, v text, PRIMARY KEY (k, c))")
    setup.shutdown()
    held = []
    threads = [threading.Thread(target=good_client, args=(i,)) for i in range(4)]
    threads += [threading.Thread(target=resetting_client) for _ in range(2)]
    threads += [threading.Thread(target=garbage_client, args=(random.Random(i),)) for i in range(2)]
    threads += [threading.Thread(target=idle_clients, args=(held,))]
    threads += [threading.Thread(target=slow_reader) for _ in range(2)]
    for t in threads:
        t.daemon = True
        t.start()
    end = time.time() + args.minutes * 60
    while time.time() < end and server.poll() is None:
        time.sleep(10)
        if server.poll() is None:
            fds, rss = server_stats(server.pid)
            print(f"t={int(args.minutes * 60 - (end - time.time()))}s fds={fds} rss_kb={rss} {COUNTS}")
    STOP.set()
    for t in threads:
        t.join(timeout=10)
    for s in held:
        s.close()
    alive = server.poll() is None
    if alive:
        time.sleep(2)
        fds, rss = server_stats(server.pid)
        print(f"end fds={fds} rss_kb={rss}")
        server.send_signal(2)
        server.wait(timeout=30)
    print(f"server_alive={alive} {COUNTS}")
    ok = alive and COUNTS["good_errors"] == 0 and COUNTS["wrong_results"] == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
