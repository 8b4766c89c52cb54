"""The README's pytest fixture ("Using it in tests"), verbatim: a throwaway server per test
session, started from the binary with --in-memory on a free port. The Rust test that runs
this suite passes the binary in CQL_SERVER_BIN."""
# README: pytest fixture
import os
import socket
import subprocess
import time
import uuid

import pytest
from cassandra.cluster import Cluster

SERVER = os.environ.get("CQL_SERVER_BIN", "cqld")  # the server binary


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def cql_port():
    port = free_port()
    server = subprocess.Popen([SERVER, "--in-memory", "--port", str(port)])
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError(f"{SERVER} did not start on port {port}")
            time.sleep(0.002)
    yield port
    server.terminate()
    server.wait()


@pytest.fixture(scope="session")
def session(cql_port):
    # One node always agrees with itself, and tests rarely read the driver's schema
    # metadata: skipping both makes a CREATE TABLE ~3 ms faster.
    cluster = Cluster(
        ["127.0.0.1"],
        port=cql_port,
        schema_metadata_enabled=False,
        max_schema_agreement_wait=0,
    )
    yield cluster.connect()
    cluster.shutdown()


@pytest.fixture
def keyspace(session):
    name = "t_" + uuid.uuid4().hex[:12]
    session.execute(
        f"CREATE KEYSPACE {name} WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    yield name
    session.execute(f"DROP KEYSPACE {name}")
# README end
