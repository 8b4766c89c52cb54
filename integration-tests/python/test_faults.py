"""Injected faults (test controls) against the DataStax Python driver (3.29) and its default
RetryPolicy: UNAVAILABLE is retried once on the next host (with one node there is none, so
the driver raises NoHostAvailable carrying the UNAVAILABLE), WRITE_TIMEOUT is retried once on
the same host only for a BATCH_LOG write, UNPREPARED makes it prepare again, and a failure's
v5 reason map arrives as `error_code_map`.

The Rust harness (`tests/it/test_faults/python.rs`) passes the HTTP door's address in
CQL_HTTP; without it (the plain run of this folder) these tests are skipped."""
import json
import os
import urllib.request

import pytest
from cassandra import ConsistencyLevel, ReadFailure, Unavailable, WriteTimeout, WriteType
from cassandra.cluster import Cluster, NoHostAvailable
from cassandra.query import SimpleStatement

HTTP = os.environ.get("CQL_HTTP")
pytestmark = pytest.mark.skipif(not HTTP, reason="needs the HTTP door (CQL_HTTP)")


def http(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://{HTTP}{path}", data=data, method=method,
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        text = response.read()
    return json.loads(text) if text else None


def add_fault(body):
    return http("POST", "/faults", body)["id"]


def fired(rule_id):
    """How often the rule fired; None once it retired."""
    for rule in http("GET", "/faults"):
        if rule["id"] == rule_id:
            return rule["fired"]
    return None


@pytest.fixture
def table(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.t (k int PRIMARY KEY, v int)")
    yield f"{keyspace}.t"
    http("DELETE", "/faults")


def statement(cql):
    return SimpleStatement(cql, consistency_level=ConsistencyLevel.QUORUM)


def test_unavailable_is_retried_on_the_next_host_and_with_one_node_raised(session, keyspace, table):
    rule = add_fault({"when": {"keyspace": keyspace, "table": "t"},
                      "then": {"error": "unavailable", "required": 3, "alive": 1}})
    with pytest.raises(NoHostAvailable) as raised:
        session.execute(statement(f"INSERT INTO {table} (k, v) VALUES (1, 1)"))
    # RETRY_NEXT_HOST found no other host: one attempt, its UNAVAILABLE kept in `errors`.
    assert fired(rule) == 1
    errors = list(raised.value.errors.values())
    assert len(errors) == 1 and isinstance(errors[0], Unavailable), errors
    assert errors[0].consistency == ConsistencyLevel.QUORUM
    assert (errors[0].required_replicas, errors[0].alive_replicas) == (3, 1)


def test_write_timeout_of_a_simple_write_is_raised_at_once(session, keyspace, table):
    rule = add_fault({"when": {"table": "t"}, "then": {"error": "write_timeout"}})
    with pytest.raises(WriteTimeout) as raised:
        session.execute(statement(f"INSERT INTO {table} (k, v) VALUES (2, 2)"))
    assert fired(rule) == 1
    assert raised.value.write_type == WriteType.SIMPLE
    assert raised.value.consistency == ConsistencyLevel.QUORUM
    assert (raised.value.received_responses, raised.value.required_responses) == (0, 1)
    assert "Operation timed out - received only 0 responses." in str(raised.value)


def test_write_timeout_of_a_batch_log_is_retried_once_then_raised(session, keyspace, table):
    rule = add_fault({"when": {"table": "t"},
                      "then": {"error": "write_timeout", "write_type": "BATCH_LOG"}})
    with pytest.raises(WriteTimeout) as raised:
        session.execute(statement(f"INSERT INTO {table} (k, v) VALUES (3, 3)"))
    assert fired(rule) == 2
    assert raised.value.write_type == WriteType.BATCH_LOG


def test_the_retry_gets_past_a_one_shot_write_timeout(session, keyspace, table):
    rule = add_fault({"when": {"table": "t"}, "times": 1,
                      "then": {"error": "write_timeout", "write_type": "BATCH_LOG"}})
    session.execute(statement(f"INSERT INTO {table} (k, v) VALUES (4, 40)"))
    assert fired(rule) is None, "fired once and retired"
    assert session.execute(f"SELECT v FROM {table} WHERE k = 4").one().v == 40


def test_unprepared_makes_the_driver_prepare_again(session, keyspace, table):
    insert = session.prepare(f"INSERT INTO {table} (k, v) VALUES (?, ?)")
    prepares = add_fault({"when": {"kind": "PREPARE", "table": "t"}, "then": {"delay_ms": 0}})
    rule = add_fault({"when": {"kind": "INSERT", "table": "t"}, "times": 1,
                      "then": {"error": "unprepared"}})
    session.execute(insert, (5, 50))
    assert fired(rule) is None
    assert fired(prepares) == 1
    assert session.execute(f"SELECT v FROM {table} WHERE k = 5").one().v == 50


@pytest.mark.parametrize("version", [4, 5])
def test_a_read_failure_carries_the_reason_map_in_v5_and_the_count_in_v4(
        address, keyspace, table, version):
    cluster = Cluster(contact_points=[address[0]], port=address[1], protocol_version=version)
    try:
        session = cluster.connect()
        add_fault({"when": {"table": "t"},
                   "then": {"error": "read_failure", "reason": "READ_TOO_MANY_TOMBSTONES"}})
        with pytest.raises(ReadFailure) as raised:
            session.execute(statement(f"SELECT v FROM {table} WHERE k = 1"))
        assert raised.value.failures == 1
        if version == 5:
            assert raised.value.error_code_map == {"127.0.0.1": 1}
        else:
            assert raised.value.error_code_map is None
    finally:
        cluster.shutdown()
