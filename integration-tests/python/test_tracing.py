"""Query tracing through the real clients: the DataStax driver's `trace=True` and
`get_query_trace()` (which polls system_traces until `duration` is set), in protocol v3, v4
and v5, and cqlsh's `TRACING ON` table."""
import os
import subprocess
import sys
import uuid

import pytest
from cassandra.query import SimpleStatement


def _table(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.t (k int, c int, v text, PRIMARY KEY (k, c))")
    for c in range(3):
        session.execute(f"INSERT INTO {keyspace}.t (k, c, v) VALUES (1, {c}, 'x')")


def test_driver_trace_of_a_query(session, keyspace):
    _table(session, keyspace)
    query = f"SELECT * FROM {keyspace}.t WHERE k = 1"
    result = session.execute(SimpleStatement(query), trace=True)
    trace = result.get_query_trace(max_wait_sec=5)
    assert trace.request_type == "Execute CQL3 query"
    assert trace.coordinator == "127.0.0.1"
    assert trace.duration is not None and trace.duration.total_seconds() > 0
    assert trace.parameters["query"] == query
    assert trace.parameters["consistency_level"] == "LOCAL_ONE"
    activities = [event.description for event in trace.events]
    assert activities[0] == f"Parsing {query}"
    assert "Preparing statement" in activities
    assert "Executing single-partition query on t" in activities
    assert "Read 3 live rows and 0 tombstone cells" in activities
    threads = {event.thread_name for event in trace.events}
    assert "Native-Transport-Requests-1" in threads
    elapsed = [event.source_elapsed.total_seconds() for event in trace.events]
    assert elapsed == sorted(elapsed)


def test_driver_trace_of_a_prepared_write(session, keyspace):
    _table(session, keyspace)
    insert = session.prepare(f"INSERT INTO {keyspace}.t (k, c, v) VALUES (?, ?, ?)")
    result = session.execute(insert, (2, 0, "it's"), trace=True)
    trace = result.get_query_trace(max_wait_sec=5)
    assert trace.request_type == "Execute CQL3 prepared query"
    assert trace.parameters["bound_var_0_k"] == "2"
    assert trace.parameters["bound_var_2_v"] == "'it''s'"
    activities = [event.description for event in trace.events]
    assert activities == [
        "Determining replicas for mutation",
        "Appending to commitlog",
        "Adding to t memtable",
    ]


@pytest.mark.parametrize("version", [3, 4, 5])
def test_trace_in_every_protocol_version(address, version):
    from cassandra.cluster import Cluster

    cluster = Cluster(contact_points=[address[0]], port=address[1], protocol_version=version)
    try:
        session = cluster.connect()
        result = session.execute("SELECT release_version FROM system.local", trace=True)
        trace = result.get_query_trace(max_wait_sec=5)
        assert trace.trace_id.version == 1
        assert trace.request_type == "Execute CQL3 query"
        activities = [e.description for e in trace.events]
        assert "Computing ranges to query" in activities
        assert "Executing seq scan on local" in activities
        assert any(e.thread_name == "ReadStage-1" for e in trace.events)
    finally:
        cluster.shutdown()


def test_cqlsh_tracing_on(address):
    ks = "tr_" + uuid.uuid4().hex[:10]
    exe = os.path.join(os.path.dirname(sys.executable), "cqlsh")
    command = (
        f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
        f"CREATE TABLE {ks}.t (k int PRIMARY KEY, v text);"
        f"INSERT INTO {ks}.t (k, v) VALUES (1, 'a');"
        "TRACING ON;"
        f"SELECT * FROM {ks}.t WHERE k = 1;"
    )
    proc = subprocess.run(
        [exe, address[0], str(address[1]), "-e", command],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "CQLSH_NO_BUNDLED": "TRUE", "HOME": os.environ.get("HOME", "/tmp")},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Tracing session: " in out, out
    lines = [line.strip() for line in out.splitlines()]
    header = next(line for line in lines if line.startswith("activity"))
    assert [c.strip() for c in header.split("|")] == [
        "activity", "timestamp", "source", "source_elapsed", "client"]
    rows = [[c.strip() for c in line.split("|")] for line in lines if line.count("|") == 4]
    activities = [row[0] for row in rows[1:]]
    assert activities[0] == "Execute CQL3 query"
    assert activities[1] == f"Parsing SELECT * FROM {ks}.t WHERE k = 1; [Native-Transport-Requests-1]" \
        or activities[1] == f"Parsing SELECT * FROM {ks}.t WHERE k = 1 [Native-Transport-Requests-1]"
    assert "Executing single-partition query on t [Native-Transport-Requests-1]" in activities
    assert "Read 1 live rows and 0 tombstone cells [Native-Transport-Requests-1]" in activities
    assert activities[-1] == "Request complete"
    assert all(row[2] == "127.0.0.1" for row in rows[1:])
