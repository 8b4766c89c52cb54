"""The query log through the DataStax Python driver: a test clears the log, runs the
application's code, then reads `test_control.queries` through the CQL door to check how the
application queried: at LOCAL_QUORUM, never with ALLOW FILTERING.

CQL_HTTP, when the harness sets it, is the server's HTTP door: the log is then also cleared
and read there, and both doors must agree."""
import json
import os
import urllib.request

import pytest
from cassandra import ConsistencyLevel
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile


def _http(method, path):
    address = os.environ["CQL_HTTP"]
    request = urllib.request.Request(f"http://{address}{path}", method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _clear(session):
    if os.environ.get("CQL_HTTP"):
        _http("DELETE", "/queries")
    else:
        session.execute("TRUNCATE test_control.queries")


def _application(session, keyspace):
    """The code under test: writes a reading, then reads the sensor's readings back."""
    insert = session.prepare(f"INSERT INTO {keyspace}.readings (sensor, at, value) VALUES (?, ?, ?)")
    session.execute(insert, ("s-1", 1, 20.5))
    select = session.prepare(f"SELECT at, value FROM {keyspace}.readings WHERE sensor = ?")
    return list(session.execute(select, ("s-1",)))


@pytest.fixture
def app_session(address):
    """The application's own session: LOCAL_QUORUM by default, as it is configured."""
    profile = ExecutionProfile(consistency_level=ConsistencyLevel.LOCAL_QUORUM)
    cluster = Cluster(
        contact_points=[address[0]],
        port=address[1],
        execution_profiles={EXEC_PROFILE_DEFAULT: profile},
    )
    yield cluster.connect()
    cluster.shutdown()


def test_the_application_queries_at_local_quorum_without_filtering(session, keyspace, app_session):
    session.execute(
        f"CREATE TABLE {keyspace}.readings (sensor text, at int, value double, "
        "PRIMARY KEY (sensor, at))"
    )
    _clear(session)
    rows = _application(app_session, keyspace)
    assert [(r.at, r.value) for r in rows] == [(1, 20.5)]

    log = list(
        session.execute(
            "SELECT id, opcode, query, bound_values, consistency, result, rows_returned, "
            "driver_name FROM test_control.queries"
        )
    )
    ids = [entry.id for entry in log]
    assert ids == sorted(ids, reverse=True), "newest first"
    ran = [e for e in log if e.opcode == "EXECUTE" and f"{keyspace}.readings" in (e.query or "")]
    assert [e.query.split()[0] for e in ran] == ["SELECT", "INSERT"], ran
    for entry in ran:
        assert entry.consistency == "LOCAL_QUORUM", entry
        assert "ALLOW FILTERING" not in entry.query.upper(), entry
        assert entry.result in ("rows", "void"), entry
        assert entry.driver_name == "DataStax Python Driver", entry
    select, insert = ran
    assert select.bound_values == ["'s-1'"]
    assert select.rows_returned == 1
    assert insert.bound_values == ["'s-1'", "1", "20.5"]

    if os.environ.get("CQL_HTTP"):
        # The HTTP door shows the same entries, newest last.
        by_id = {e["id"]: e for e in _http("GET", "/queries")}
        for entry in ran:
            assert by_id[entry.id]["query"] == entry.query
            assert by_id[entry.id]["consistency"] == "LOCAL_QUORUM"
