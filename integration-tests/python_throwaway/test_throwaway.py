"""Tests through the README's fixture: each test gets its own keyspace on one throwaway
server, and creates and drops its tables as it goes."""
import os

from cassandra import InvalidRequest


def test_the_server_is_the_binary_given(cql_port):
    assert os.path.isabs(os.environ["CQL_SERVER_BIN"])
    assert cql_port > 0


def test_a_table_per_test(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.t (k int PRIMARY KEY, v text)")
    session.execute(f"INSERT INTO {keyspace}.t (k, v) VALUES (1, 'one')")
    assert [tuple(r) for r in session.execute(f"SELECT k, v FROM {keyspace}.t")] == [(1, "one")]
    session.execute(f"TRUNCATE {keyspace}.t")
    assert list(session.execute(f"SELECT k FROM {keyspace}.t")) == []
    session.execute(f"DROP TABLE {keyspace}.t")
    try:
        session.execute(f"SELECT k FROM {keyspace}.t")
        raise AssertionError("the dropped table is still there")
    except InvalidRequest as err:
        assert "t" in str(err)


def test_keyspaces_are_separate(session, keyspace):
    # The previous test's keyspace is gone; this one starts empty.
    rows = session.execute(
        "SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = %s", (keyspace,)
    )
    assert [r.keyspace_name for r in rows] == [keyspace]
    tables = session.execute(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s", (keyspace,)
    )
    assert list(tables) == []
    others = [
        r.keyspace_name
        for r in session.execute("SELECT keyspace_name FROM system_schema.keyspaces")
        if r.keyspace_name.startswith("t_")
    ]
    assert others == [keyspace]


def test_many_table_cycles(session, keyspace):
    for i in range(20):
        session.execute(f"CREATE TABLE {keyspace}.c{i} (k int PRIMARY KEY, v int)")
        session.execute(f"INSERT INTO {keyspace}.c{i} (k, v) VALUES ({i}, {i * i})")
        row = session.execute(f"SELECT v FROM {keyspace}.c{i} WHERE k = {i}").one()
        assert row.v == i * i
        session.execute(f"TRUNCATE {keyspace}.c{i}")
        session.execute(f"DROP TABLE {keyspace}.c{i}")
    tables = session.execute(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s", (keyspace,)
    )
    assert list(tables) == []
