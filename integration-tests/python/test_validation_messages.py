"""Statement-validation answers audited against Cassandra 5.0 (issue 40, family 7), as the
Python driver hands them to applications: the exception class and the server's message."""
import pytest


def refused(session, cql, exception, message):
    with pytest.raises(exception) as err:
        session.execute(cql)
    assert f'message="{message}"' in str(err.value), str(err.value)


def test_validation_messages_are_5_0s(session, keyspace):
    from cassandra import InvalidRequest

    session.execute(f"CREATE TABLE {keyspace}.t (k int, c int, v text, w int, PRIMARY KEY (k, c))")
    session.execute(f"CREATE INDEX ON {keyspace}.t (v)")
    session.execute(f"INSERT INTO {keyspace}.t (k, c, v, w) VALUES (1, 1, 'x', 1)")
    refused(
        session,
        f"SELECT c FROM {keyspace}.t WHERE k = 1 AND v = 'x' ORDER BY c DESC",
        InvalidRequest,
        "ORDER BY with 2ndary indexes is not supported, except for ANN queries.",
    )
    refused(
        session,
        f"DELETE w FROM {keyspace}.t WHERE k = 1",
        InvalidRequest,
        "Range deletions are not supported for specific columns",
    )
    refused(
        session,
        f"CREATE TABLE {keyspace}.u (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (w ASC)",
        InvalidRequest,
        "Only clustering key columns can be defined in CLUSTERING ORDER directive: [w] are not clustering columns",
    )
    refused(
        session,
        f"CREATE TABLE {keyspace}.u (k int, v int)",
        InvalidRequest,
        f"No PRIMARY KEY specifed for table '{keyspace}.u' (exactly one required)",
    )
    rows = list(session.execute(f"SELECT w FROM {keyspace}.t WHERE k = 1"))
    assert [row.w for row in rows] == [1]
