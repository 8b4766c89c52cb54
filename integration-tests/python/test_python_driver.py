"""The DataStax Python driver (what cqlsh runs on) against the server."""
import uuid
from datetime import datetime, timezone


def test_negotiates_down_to_v4_with_lz4(cluster, session):
    assert cluster.protocol_version == 4
    row = session.execute("SELECT release_version, cluster_name FROM system.local WHERE key = 'local'").one()
    assert row.release_version == "5.0.0"
    assert row.cluster_name == "Test Cluster"
    # The lz4 package is installed, so the driver asked for lz4 compression.
    connection = next(iter(cluster.get_connection_holders())).get_connections()[0]
    assert connection.compressor is not None


def test_schema_metadata_and_rows(cluster, session, keyspace):
    session.execute(
        f"CREATE TABLE {keyspace}.orders (userid text, orderid int, amount double, note text, "
        "PRIMARY KEY (userid, orderid)) WITH CLUSTERING ORDER BY (orderid DESC)"
    )
    table = cluster.metadata.keyspaces[keyspace].tables["orders"]
    assert [c.name for c in table.partition_key] == ["userid"]
    assert [c.name for c in table.clustering_key] == ["orderid"]
    assert table.clustering_key[0].is_reversed
    insert = session.prepare(f"INSERT INTO {keyspace}.orders (userid, orderid, amount, note) VALUES (?, ?, ?, ?)")
    for order in range(1, 6):
        session.execute(insert, ("abc", order, order * 2.5, f"n{order}"))
    rows = list(session.execute(f"SELECT orderid, amount FROM {keyspace}.orders WHERE userid = 'abc'"))
    assert [r.orderid for r in rows] == [5, 4, 3, 2, 1]
    select = session.prepare(f"SELECT note FROM {keyspace}.orders WHERE userid = ? AND orderid = ?")
    assert session.execute(select, ("abc", 3)).one().note == "n3"


def test_types_round_trip(session, keyspace):
    session.execute(
        f"CREATE TABLE {keyspace}.types (k int PRIMARY KEY, b bigint, t text, a ascii, bo boolean, "
        "bl blob, d double, f float, u uuid, tu timeuuid, ts timestamp)"
    )
    u = uuid.uuid4()
    tu = uuid.uuid1()
    ts = datetime(2021, 3, 4, 5, 6, 7, 8000, tzinfo=timezone.utc)
    stmt = session.prepare(
        f"INSERT INTO {keyspace}.types (k, b, t, a, bo, bl, d, f, u, tu, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    session.execute(stmt, (1, 2**40, "héllo", "plain", True, b"\x00\xff", 1.5, 0.25, u, tu, ts))
    row = session.execute(f"SELECT * FROM {keyspace}.types WHERE k = 1").one()
    assert (row.b, row.t, row.a, row.bo, row.bl, row.d, row.f, row.u, row.tu) == (
        2**40, "héllo", "plain", True, b"\x00\xff", 1.5, 0.25, u, tu)
    assert row.ts.replace(tzinfo=timezone.utc) == ts


def test_paging_follows_the_server(session, keyspace):
    from cassandra.query import SimpleStatement

    session.execute(f"CREATE TABLE {keyspace}.p (k int, c int, PRIMARY KEY (k, c))")
    for c in range(25):
        session.execute(f"INSERT INTO {keyspace}.p (k, c) VALUES (1, {c})")
    result = session.execute(SimpleStatement(f"SELECT c FROM {keyspace}.p WHERE k = 1", fetch_size=10))
    assert len(result.current_rows) == 10
    assert [r.c for r in result] == list(range(25))


def test_errors_reach_the_driver_typed(session, keyspace):
    from cassandra import AlreadyExists, InvalidRequest

    session.execute(f"CREATE TABLE {keyspace}.t (k int PRIMARY KEY)")
    try:
        session.execute(f"CREATE TABLE {keyspace}.t (k int PRIMARY KEY)")
        raise AssertionError("expected AlreadyExists")
    except AlreadyExists as err:
        assert err.keyspace == keyspace and err.table == "t"
    try:
        session.execute(f"SELECT * FROM {keyspace}.missing")
        raise AssertionError("expected InvalidRequest")
    except InvalidRequest as err:
        assert "table missing does not exist" in str(err)
