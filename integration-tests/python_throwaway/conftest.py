"""The README's pytest fixture ("Using it in tests"), verbatim: a throwaway server per test
session, started from the binary with --in-memory on a free port (--port 0). The Rust test that runs
this suite passes the binary in CQL_SERVER_BIN."""
# README: pytest fixture
import os
import subprocess
import uuid

import pytest
from cassandra.cluster import Cluster

SERVER = os.environ.get("CQL_SERVER_BIN", "cqld")  # the server binary


@pytest.fixture(scope="session")
def cql_port():
    # --port 0 takes a free port; stdout's first line names it once clients are accepted:
    # "listening for CQL clients on 127.0.0.1:PORT".
    server = subprocess.Popen(
        [SERVER, "--in-memory", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    line = server.stdout.readline()
    if not line.startswith("listening for CQL clients on "):
        server.kill()
        raise RuntimeError(f"{SERVER} did not start: {line!r}")
    yield int(line.rsplit(":", 1)[1])
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
