"""A simulated cluster (dc1:3,dc2:2) against the DataStax Python driver 3.29 and cqlsh: the
driver's DC-aware token-aware policy routes to replicas in the local datacenter, a stopped
node is marked down by the driver's event and its requests go elsewhere, the consistency
arithmetic answers Unavailable with Cassandra's counts, and after `start` the driver
reconnects. The Rust harness (`tests/it/simulated_cluster/python.rs`) passes the first
node's port in CQL_PORT and the HTTP door in CQL_HTTP."""
import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest
from cassandra import ConsistencyLevel, Unavailable
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import DCAwareRoundRobinPolicy, TokenAwarePolicy
from cassandra.query import SimpleStatement

HTTP = os.environ.get("CQL_HTTP")
PORT = int(os.environ.get("CQL_PORT", "9042"))
pytestmark = pytest.mark.skipif(not HTTP, reason="needs a simulated cluster (CQL_HTTP)")


def http(method, path):
    request = urllib.request.Request(f"http://{HTTP}{path}", method=method)
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def requests_per_node():
    return {node["address"]: node["requests"] for node in http("GET", "/nodes")}


def wait_for(condition, what, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.fixture(scope="module")
def cluster():
    profile = ExecutionProfile(
        load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy(local_dc="dc1"))
    )
    cluster = Cluster(
        ["127.0.0.1"], port=PORT, execution_profiles={EXEC_PROFILE_DEFAULT: profile}
    )
    yield cluster
    cluster.shutdown()


@pytest.fixture(scope="module")
def session(cluster):
    session = cluster.connect()
    session.execute(
        "CREATE KEYSPACE app WITH replication = "
        "{'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}"
    )
    session.execute("CREATE TABLE app.t (k int PRIMARY KEY, v int)")
    cluster.refresh_schema_metadata()
    return session


def test_prepared_requests_go_to_a_local_replica(cluster, session):
    insert = session.prepare("INSERT INTO app.t (k, v) VALUES (?, ?)")
    before = requests_per_node()
    expected = {}
    for k in range(500):
        replicas = cluster.metadata.get_replicas("app", insert.bind((k, k)).routing_key)
        local = [h.address for h in replicas if h.datacenter == "dc1"]
        assert len(local) == 1
        expected[local[0]] = expected.get(local[0], 0) + 1
        session.execute(insert, (k, k))
    after = requests_per_node()
    on_replica = sum(min(after[a] - before[a], n) for a, n in expected.items())
    print(f"python driver: {on_replica} of 500 prepared inserts on a local replica")
    assert on_replica >= 495, (before, after, expected)
    remote = sum(after[a] - before[a] for a in ("127.0.0.4", "127.0.0.5"))
    assert remote == 0


def test_a_stopped_node_is_marked_down_and_avoided(cluster, session):
    host = next(h for h in cluster.metadata.all_hosts() if h.address == "127.0.0.2")
    assert host.is_up
    http("POST", "/nodes/127.0.0.2/stop")
    wait_for(lambda: not host.is_up, "the driver marks 127.0.0.2 down", seconds=30)
    # Its partitions keep their dc2 replica: ONE is met (LOCAL_ONE would not be).
    insert = SimpleStatement(
        "INSERT INTO app.t (k, v) VALUES (%s, 0)", consistency_level=ConsistencyLevel.ONE
    )
    for k in range(100):
        session.execute(insert, (k,))
    http("POST", "/nodes/127.0.0.2/start")
    wait_for(lambda: host.is_up, "the driver marks 127.0.0.2 up again", seconds=30)
    before = requests_per_node()["127.0.0.2"]
    select = SimpleStatement(
        "SELECT v FROM app.t WHERE k = %s", consistency_level=ConsistencyLevel.ONE
    )
    for k in range(200):
        session.execute(select, (k,))
    assert requests_per_node()["127.0.0.2"] > before, "requests reach it again"


def test_unavailable_carries_cassandras_counts(session):
    http("POST", "/nodes/127.0.0.4/stop")
    http("POST", "/nodes/127.0.0.5/stop")
    try:
        local = SimpleStatement(
            "INSERT INTO app.t (k, v) VALUES (1, 1)",
            consistency_level=ConsistencyLevel.LOCAL_QUORUM,
        )
        session.execute(local)
        each = SimpleStatement(
            "INSERT INTO app.t (k, v) VALUES (1, 1)",
            consistency_level=ConsistencyLevel.EACH_QUORUM,
        )
        with pytest.raises(Unavailable) as raised:
            session.execute(each)
        assert raised.value.consistency == ConsistencyLevel.EACH_QUORUM
        assert (raised.value.required_replicas, raised.value.alive_replicas) == (1, 0)
    finally:
        http("POST", "/nodes/127.0.0.4/start")
        http("POST", "/nodes/127.0.0.5/start")


def test_cqlsh_connects_to_any_node():
    cqlsh = os.path.join(os.path.dirname(sys.executable), "cqlsh")
    env = {**os.environ, "CQLSH_NO_BUNDLED": "TRUE", "HOME": os.environ.get("HOME", "/tmp")}
    for address in ("127.0.0.3", "127.0.0.5"):
        out = subprocess.run(
            [cqlsh, address, str(PORT), "-e", "SELECT data_center FROM system.local"],
            capture_output=True, text=True, timeout=60, env=env,
        )
        assert out.returncode == 0, out.stderr
        assert ("dc1" if address == "127.0.0.3" else "dc2") in out.stdout
