"""Custom types named by their Java class through the DataStax Python driver, as its own
integration suite (tests/integration/standard/test_types.py, test_metadata.py) uses them
against Cassandra: a CompositeType column reads back as a tuple; a DynamicCompositeType
column is written from its text; both are named by their full class in the table's
metadata."""
import pytest
from cassandra.protocol import ConfigurationException

COMPOSITE = "org.apache.cassandra.db.marshal.CompositeType(AsciiType, Int32Type)"


def test_composite_string_literal_reads_back_as_a_tuple(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.composites (a int PRIMARY KEY, b '{COMPOSITE}')")
    # CompositeType string literals are split on ':' chars.
    session.execute(f"INSERT INTO {keyspace}.composites (a, b) VALUES (0, 'abc:123')")
    row = session.execute(f"SELECT * FROM {keyspace}.composites WHERE a = 0").one()
    assert (row.a, row.b) == (0, ("abc", 123))
    # CompositeType values can omit elements at the end.
    session.execute(f"INSERT INTO {keyspace}.composites (a, b) VALUES (0, 'abc')")
    row = session.execute(f"SELECT * FROM {keyspace}.composites WHERE a = 0").one()
    assert (row.a, row.b) == (0, ("abc",))
    # A prepared read decodes the same from the prepared metadata's class name.
    prepared = session.prepare(f"SELECT b FROM {keyspace}.composites WHERE a = ?")
    session.execute(f"INSERT INTO {keyspace}.composites (a, b) VALUES (1, 'x\\:y:-7')")
    assert session.execute(prepared, [1]).one().b == ("x:y", -7)


def test_composite_column_metadata_names_the_full_class(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.named (a int PRIMARY KEY, b '{COMPOSITE}')")
    session.cluster.refresh_table_metadata(keyspace, "named")
    table = session.cluster.metadata.keyspaces[keyspace].tables["named"]
    assert table.columns["b"].cql_type == (
        "'org.apache.cassandra.db.marshal.CompositeType("
        "org.apache.cassandra.db.marshal.AsciiType,org.apache.cassandra.db.marshal.Int32Type)'"
    )


def test_dynamic_composite_keeps_its_aliases_and_bytes(session, keyspace):
    session.execute(
        f"CREATE TABLE {keyspace}.dct (k int PRIMARY KEY, "
        "c1 'DynamicCompositeType(s => UTF8Type, i => Int32Type)', c2 text)"
    )
    session.cluster.refresh_table_metadata(keyspace, "dct")
    table = session.cluster.metadata.keyspaces[keyspace].tables["dct"]
    text = table.as_cql_query().replace(" ", "")
    assert "c1'org.apache.cassandra.db.marshal.DynamicCompositeType(" in text, text
    assert "s=>org.apache.cassandra.db.marshal.UTF8Type" in text, text
    assert "i=>org.apache.cassandra.db.marshal.Int32Type" in text, text
    # The driver's (Cython) decoder has no DynamicCompositeType: a result holding one fails
    # to decode and drops the connection, as against Cassandra. Its own suite never reads one
    # back; the bytes are checked over a raw connection (`tests/it/custom_types.rs`).
    session.execute(f"INSERT INTO {keyspace}.dct (k, c1, c2) VALUES (0, 's@foo:i@32', 'x')")
    assert session.execute(f"SELECT k, c2 FROM {keyspace}.dct WHERE k = 0").one() == (0, "x")


def test_unknown_class_is_refused_with_cassandras_message(session, keyspace):
    with pytest.raises(ConfigurationException) as raised:
        session.execute(
            f"CREATE TABLE {keyspace}.bad (a int PRIMARY KEY, "
            "b 'org.apache.cassandra.db.marshal.NoSuchType')"
        )
    assert (
        "Unable to find abstract-type class 'org.apache.cassandra.db.marshal.NoSuchType'"
        in str(raised.value)
    )


def test_reversed_types_sort_clustering_columns_descending(session, keyspace):
    session.execute(
        f"CREATE TABLE {keyspace}.rev (k int, c 'ReversedType(Int32Type)', v int, "
        "PRIMARY KEY (k, c))"
    )
    session.execute(
        f"CREATE TABLE {keyspace}.revpart (k int, "
        "c 'CompositeType(UTF8Type, ReversedType(Int32Type))', PRIMARY KEY (k, c))"
    )
    for c in (2, 1, 3):
        session.execute(f"INSERT INTO {keyspace}.rev (k, c, v) VALUES (0, {c}, {c * 10})")
    for c in ("a:1", "b:1", "a:2"):
        session.execute(f"INSERT INTO {keyspace}.revpart (k, c) VALUES (0, '{c}')")
    rows = session.execute(f"SELECT c, v FROM {keyspace}.rev WHERE k = 0")
    assert [(r.c, r.v) for r in rows] == [(3, 30), (2, 20), (1, 10)]
    # Recorded as Cassandra records it: the base type, clustering order DESC.
    session.cluster.refresh_table_metadata(keyspace, "rev")
    table = session.cluster.metadata.keyspaces[keyspace].tables["rev"]
    assert table.columns["c"].cql_type == "int"
    assert "CLUSTERING ORDER BY (c DESC)" in table.as_cql_query()
    # A composite's reversed component sorts its values the other way.
    rows = session.execute(f"SELECT c FROM {keyspace}.revpart WHERE k = 0")
    assert [r.c for r in rows] == [("a", 2), ("a", 1), ("b", 1)]
