"""The DataStax Python driver (what cqlsh runs on) against the server."""
import uuid
from datetime import datetime, timezone


def test_negotiates_v5_with_lz4(cluster, session):
    assert cluster.protocol_version == 5
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


def test_every_other_native_type_round_trips(session, keyspace):
    from decimal import Decimal
    from ipaddress import ip_address

    from cassandra.util import Date, Duration, Time

    session.execute(
        f"CREATE TABLE {keyspace}.more (k int PRIMARY KEY, da date, ti time, de decimal, v varint, "
        "i inet, si smallint, tt tinyint, du duration)"
    )
    stmt = session.prepare(
        f"INSERT INTO {keyspace}.more (k, da, ti, de, v, i, si, tt, du) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    values = (Date(18000), Time(3723000000123), Decimal("-12.3450"), -(2**70),
              "2001:db8::1", -300, 7, Duration(1, 2, 3000000004))
    session.execute(stmt, (1,) + values)
    row = session.execute(f"SELECT da, ti, de, v, i, si, tt, du FROM {keyspace}.more WHERE k = 1").one()
    assert (row.da, row.ti, row.de, row.v) == values[:4]
    assert ip_address(row.i) == ip_address("2001:db8::1")
    assert (row.si, row.tt, row.du) == values[5:]


def test_collections_tuples_and_udts_round_trip(session, keyspace):
    session.execute(f"CREATE TYPE {keyspace}.addr (street text, zip int)")
    session.execute(
        f"CREATE TABLE {keyspace}.c (k int PRIMARY KEY, l list<int>, s set<text>, m map<text, int>, "
        "n map<int, frozen<list<text>>>, t tuple<int, text>, a frozen<addr>, b addr)"
    )
    session.execute(
        f"INSERT INTO {keyspace}.c (k, l, s, m, n, t, a, b) VALUES (1, [3, 1], {{'y', 'x'}}, {{'a': 1}}, "
        "{2: ['p', 'q']}, (5, 'five'), {street: 'main', zip: 9}, {street: 'side'})"
    )
    session.execute(f"UPDATE {keyspace}.c SET l = l + [7], m['b'] = 2, b.zip = 4 WHERE k = 1")
    row = session.execute(f"SELECT * FROM {keyspace}.c WHERE k = 1").one()
    assert row.l == [3, 1, 7]
    assert sorted(row.s) == ["x", "y"]
    assert dict(row.m) == {"a": 1, "b": 2}
    assert dict(row.n) == {2: ["p", "q"]}
    assert tuple(row.t) == (5, "five")
    assert (row.a.street, row.a.zip) == ("main", 9)
    assert (row.b.street, row.b.zip) == ("side", 4)
    # The driver's schema metadata sees the type.
    meta = session.cluster.metadata.keyspaces[keyspace]
    assert meta.user_types["addr"].field_names == ["street", "zip"]
