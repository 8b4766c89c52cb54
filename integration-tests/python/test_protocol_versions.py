"""Protocol v3, v4 and v5 through the DataStax Python driver: the driver pinned to each
version (and left to negotiate), with and without lz4, runs the same statements and reads
the same rows. v5 adds segments (a large value spans several), a keyspace per request and
result metadata that follows a table change."""
import datetime
import uuid
from decimal import Decimal

import pytest
from cassandra.cluster import Cluster
from cassandra.query import SimpleStatement
from cassandra.util import Duration

VERSIONS = [3, 4, 5]


def connect(address, version, compression):
    kwargs = {} if version is None else {"protocol_version": version}
    cluster = Cluster(contact_points=[address[0]], port=address[1], compression=compression, **kwargs)
    return cluster, cluster.connect()


@pytest.fixture
def table(session, keyspace):
    session.execute(
        f"CREATE TABLE {keyspace}.t (k int, c int, d date, tm time, s smallint, ti tinyint, "
        f"du duration, dec decimal, v text, PRIMARY KEY (k, c))"
    )
    return f"{keyspace}.t"


@pytest.mark.parametrize("compression", [False, "lz4"])
@pytest.mark.parametrize("version", VERSIONS + [None])
def test_each_version_reads_and_writes_the_same_rows(address, table, version, compression):
    cluster, session = connect(address, version, compression)
    try:
        assert cluster.protocol_version == (version or 5)
        insert = session.prepare(
            f"INSERT INTO {table} (k, c, d, tm, s, ti, du, dec, v) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        for c in range(30):
            session.execute(
                insert,
                (1, c, datetime.date(2024, 2, 1 + c % 28), datetime.time(1, 2, 3), c, c % 100,
                 Duration(1, 2, 3), Decimal("1.5"), "x" * c),
            )
        select = session.prepare(f"SELECT c, d, tm, s, ti, du, dec, v FROM {table} WHERE k = ?")
        select.fetch_size = 7
        rows = list(session.execute(select, (1,)))
        assert [r.c for r in rows] == list(range(30))
        row = rows[5]
        assert row.d == datetime.date(2024, 2, 6)
        assert str(row.tm) == "01:02:03.000000000"
        assert (row.s, row.ti) == (5, 5)
        assert row.du == Duration(1, 2, 3)
        assert row.dec == Decimal("1.5")
        assert row.v == "xxxxx"
        # A value larger than one v5 segment (128 KiB) travels in several.
        big = "y" * 300_000
        session.execute(insert, (2, 0, None, None, None, None, None, None, big))
        assert session.execute(f"SELECT v FROM {table} WHERE k = 2").one().v == big
    finally:
        cluster.shutdown()


def test_v3_refuses_nothing_v4_adds_but_has_no_unset(address, table):
    cluster, session = connect(address, 3, False)
    try:
        # v3 has no "unset": a None binds null, and a prepared statement still works.
        insert = session.prepare(f"INSERT INTO {table} (k, c, v) VALUES (?, ?, ?)")
        session.execute(insert, (3, 0, None))
        assert session.execute(f"SELECT v FROM {table} WHERE k = 3").one().v is None
    finally:
        cluster.shutdown()


def test_v5_keyspace_per_request(address, session, table):
    keyspace = table.split(".")[0]
    cluster, v5 = connect(address, 5, False)
    try:
        v5.execute(SimpleStatement("INSERT INTO t (k, c, v) VALUES (4, 0, 'ks')", keyspace=keyspace))
        row = v5.execute(SimpleStatement("SELECT v FROM t WHERE k = 4", keyspace=keyspace)).one()
        assert row.v == "ks"
    finally:
        cluster.shutdown()


def test_v5_prepared_results_follow_a_table_change(address, session, table):
    cluster, v5 = connect(address, 5, False)
    try:
        v5.execute(f"INSERT INTO {table} (k, c, v) VALUES (5, 0, 'before')")
        select = v5.prepare(f"SELECT * FROM {table} WHERE k = 5")
        assert select.result_metadata_id
        first = v5.execute(select).one()
        assert not hasattr(first, "extra")
        session.execute(f"ALTER TABLE {table} ADD extra int")
        v5.execute(f"UPDATE {table} SET extra = 7 WHERE k = 5 AND c = 0")
        changed = v5.execute(select).one()
        assert changed.extra == 7
    finally:
        cluster.shutdown()


def test_v6_beta_only_with_allow_beta(address, table):
    """Cassandra 5.0's 6/v6-beta: the driver pinned to it with allow_beta_protocol_version
    connects in v6 (v5's segments); without the flag the server refuses it."""
    from cassandra.cluster import NoHostAvailable

    cluster = Cluster(contact_points=[address[0]], port=address[1], protocol_version=6,
                      allow_beta_protocol_version=True)
    try:
        session = cluster.connect()
        assert cluster.protocol_version == 6
        row = session.execute("SELECT native_protocol_version FROM system.local").one()
        assert row.native_protocol_version == "5"
        big = "z" * 200_000
        session.execute(f"INSERT INTO {table} (k, c, v) VALUES (6, 0, %s)", (big,))
        assert session.execute(f"SELECT v FROM {table} WHERE k = 6").one().v == big
    finally:
        cluster.shutdown()
    refused = Cluster(contact_points=[address[0]], port=address[1], protocol_version=6)
    try:
        with pytest.raises(NoHostAvailable) as error:
            refused.connect()
        assert "Beta version of the protocol used (6/v6-beta), but USE_BETA flag is unset" in str(
            error.value
        )
    finally:
        refused.shutdown()
