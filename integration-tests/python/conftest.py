"""Fixtures for the real-client tests. The Rust harness starts the server and passes its
address in CQL_HOST / CQL_PORT."""
import os
import uuid

import pytest


@pytest.fixture(scope="session")
def address():
    return os.environ.get("CQL_HOST", "127.0.0.1"), int(os.environ.get("CQL_PORT", "9042"))


@pytest.fixture(scope="session")
def cluster(address):
    from cassandra.cluster import Cluster

    cluster = Cluster(contact_points=[address[0]], port=address[1])
    yield cluster
    cluster.shutdown()


@pytest.fixture(scope="session")
def session(cluster):
    return cluster.connect()


@pytest.fixture
def keyspace(session):
    name = "py_" + uuid.uuid4().hex[:12]
    session.execute(
        f"CREATE KEYSPACE {name} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}"
    )
    yield name
    session.execute(f"DROP KEYSPACE IF EXISTS {name}")
