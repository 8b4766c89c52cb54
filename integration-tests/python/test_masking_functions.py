"""Cassandra 5.0's masking functions through the DataStax Python driver: masked values of
a text, an int and a blob digest as an application reads them, and a refusal's message."""
import hashlib

import pytest
from cassandra import InvalidRequest


def test_masking_functions_read_back_as_values(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.people (k int PRIMARY KEY, name text, age int)")
    session.execute(f"INSERT INTO {keyspace}.people (k, name, age) VALUES (1, 'confidential', 42)")
    row = session.execute(
        f"SELECT mask_inner(name, 1, 2), mask_outer(name, 2, 1, '#'), mask_default(age), "
        f"mask_null(age), mask_replace(age, 7), mask_hash(name) "
        f"FROM {keyspace}.people WHERE k = 1"
    ).one()
    assert row[0] == "c*********al"
    assert row[1] == "##nfidentia#"
    assert (row[2], row[3], row[4]) == (0, None, 7)
    assert row[5] == hashlib.sha256(b"confidential").digest()


def test_a_wrong_argument_gets_cassandras_message(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.people2 (k int PRIMARY KEY, age int)")
    with pytest.raises(InvalidRequest) as raised:
        session.execute(f"SELECT mask_inner(age, 1, 2) FROM {keyspace}.people2")
    assert (
        "Function system.mask_inner requires an argument of type [text|varchar|ascii], "
        "but found argument age of type int" in str(raised.value)
    )
