"""The testing guide's pytest fixtures (docs/testing.md, "Fixtures: pytest"), verbatim: one
in-memory server per test session on any free port, its test controls over HTTP, and a
reset after every test. The Rust test that runs this suite passes the binary in
CQL_SERVER_BIN."""
# guide: pytest fixtures
import json
import os
import subprocess
import urllib.request

import pytest
from cassandra.cluster import Cluster

SERVER = os.environ.get("CQL_SERVER_BIN", "cqld")  # the server binary


class Cqld:
    """A throwaway cqld: where it listens, and its test controls; `args` adds flags."""

    def __init__(self, *args):
        self.process = subprocess.Popen(
            [SERVER, "--in-memory", "--port", "0", "--http-address", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE,
            text=True,
        )
        # stdout's first line: "listening for CQL clients on 127.0.0.1:PORT" (the port is
        # open when it is written); the second: "serving HTTP on 127.0.0.1:PORT".
        self.cql_port = int(self.process.stdout.readline().rsplit(":", 1)[1])
        self.http = "http://" + self.process.stdout.readline().split()[-1]

    def control(self, method, path, body=None):
        """One test-control request (see docs/testing.md); its JSON answer."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.http + path, data=data, method=method)
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    def stop(self):
        self.process.terminate()
        self.process.wait()


@pytest.fixture(scope="session")
def cqld():
    server = Cqld()
    yield server
    server.stop()


@pytest.fixture
def start_cqld():
    """Starts servers of their own (e.g. a simulated cluster), stopped after the test."""
    servers = []

    def start(*args):
        servers.append(Cqld(*args))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def cluster(cqld):
    cluster = Cluster(["127.0.0.1"], port=cqld.cql_port)
    yield cluster
    cluster.shutdown()


@pytest.fixture
def session(cqld, cluster):
    session = cluster.connect()
    session.execute(
        "CREATE KEYSPACE app WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    session.set_keyspace("app")
    yield session
    # Every keyspace, role, fault and the clock's offset back to a fresh server's.
    cqld.control("POST", "/reset")
# guide end
