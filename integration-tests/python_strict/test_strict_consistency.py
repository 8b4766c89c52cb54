"""`strict_consistency: true` through the DataStax Python driver: on one node, QUORUM on a
keyspace of RF 3 is `Unavailable` (required 2, alive 1), as a single Cassandra node answers,
and the driver's retry policies meet it as they meet Cassandra's: FallthroughRetryPolicy
raises it, the default RetryPolicy tries the next host once (there is none: NoHostAvailable
holding the Unavailable), DowngradingConsistencyRetryPolicy retries at the level the alive
replicas allow. The Rust harness (`tests/it/strict_consistency.rs`) starts the server with
the setting on and passes its address in CQL_HOST / CQL_PORT."""
import os

import pytest
from cassandra import ConsistencyLevel, Unavailable
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile, NoHostAvailable
from cassandra.policies import (
    DowngradingConsistencyRetryPolicy,
    FallthroughRetryPolicy,
    RetryPolicy,
)
from cassandra.query import SimpleStatement

HOST = os.environ.get("CQL_HOST", "127.0.0.1")
PORT = int(os.environ.get("CQL_PORT", "9042"))


class CountingRetryPolicy(RetryPolicy):
    """The default policy, recording what `on_unavailable` was told."""

    def __init__(self):
        self.unavailable = []

    def on_unavailable(self, query, consistency, required_replicas, alive_replicas, retry_num):
        self.unavailable.append((consistency, required_replicas, alive_replicas, retry_num))
        return super().on_unavailable(
            query, consistency, required_replicas, alive_replicas, retry_num
        )


COUNTING = CountingRetryPolicy()


@pytest.fixture(scope="module")
def session():
    profiles = {
        EXEC_PROFILE_DEFAULT: ExecutionProfile(retry_policy=FallthroughRetryPolicy()),
        "counting": ExecutionProfile(retry_policy=COUNTING),
        "downgrading": ExecutionProfile(retry_policy=DowngradingConsistencyRetryPolicy()),
    }
    cluster = Cluster([HOST], port=PORT, execution_profiles=profiles)
    session = cluster.connect()
    for keyspace, factor in [("py_rf3", 3), ("py_rf1", 1)]:
        session.execute(
            f"CREATE KEYSPACE {keyspace} WITH replication = "
            f"{{'class': 'SimpleStrategy', 'replication_factor': {factor}}}"
        )
        session.execute(f"CREATE TABLE {keyspace}.t (k int PRIMARY KEY, v int)")
    yield session
    cluster.shutdown()


def statement(cql, level):
    return SimpleStatement(cql, consistency_level=level)


def test_fallthrough_raises_unavailable_with_cassandras_counts(session):
    for level, required in [(ConsistencyLevel.QUORUM, 2), (ConsistencyLevel.ALL, 3)]:
        with pytest.raises(Unavailable) as raised:
            session.execute(statement("INSERT INTO py_rf3.t (k, v) VALUES (1, 1)", level))
        error = raised.value
        assert (error.consistency, error.required_replicas, error.alive_replicas) == (
            level,
            required,
            1,
        )
        name = ConsistencyLevel.value_to_name[level]
        assert f"Cannot achieve consistency level {name}" in str(error)
    with pytest.raises(Unavailable) as raised:
        session.execute(statement("SELECT v FROM py_rf3.t WHERE k = 1", ConsistencyLevel.QUORUM))
    assert raised.value.required_replicas == 2


def test_default_policy_tries_the_next_host_once_then_gives_up(session):
    COUNTING.unavailable.clear()
    cql = statement("INSERT INTO py_rf3.t (k, v) VALUES (2, 2)", ConsistencyLevel.QUORUM)
    with pytest.raises(NoHostAvailable) as raised:
        session.execute(cql, execution_profile="counting")
    assert COUNTING.unavailable == [(ConsistencyLevel.QUORUM, 2, 1, 0)]
    errors = list(raised.value.errors.values())
    assert len(errors) == 1 and isinstance(errors[0], Unavailable), errors


def test_downgrading_policy_retries_at_the_alive_count(session):
    cql = statement("INSERT INTO py_rf3.t (k, v) VALUES (3, 3)", ConsistencyLevel.QUORUM)
    result = session.execute(cql, execution_profile="downgrading")
    assert result.response_future.message.consistency_level == ConsistencyLevel.ONE
    row = session.execute(
        statement("SELECT v FROM py_rf3.t WHERE k = 3", ConsistencyLevel.ONE)
    ).one()
    assert row.v == 3


def test_one_on_rf3_and_quorum_on_rf1_succeed(session):
    session.execute(statement("INSERT INTO py_rf3.t (k, v) VALUES (4, 4)", ConsistencyLevel.ONE))
    for level in [ConsistencyLevel.QUORUM, ConsistencyLevel.ALL]:
        session.execute(statement("INSERT INTO py_rf1.t (k, v) VALUES (4, 4)", level))
        row = session.execute(statement("SELECT v FROM py_rf1.t WHERE k = 4", level)).one()
        assert row.v == 4


def test_lightweight_transaction_reads_at_quorum_after_paxos(session):
    lwt = statement(
        "INSERT INTO py_rf3.t (k, v) VALUES (5, 5) IF NOT EXISTS", ConsistencyLevel.ONE
    )
    lwt.serial_consistency_level = ConsistencyLevel.SERIAL
    with pytest.raises(Unavailable) as raised:
        session.execute(lwt)
    error = raised.value
    assert (error.consistency, error.required_replicas, error.alive_replicas) == (
        ConsistencyLevel.QUORUM,
        2,
        1,
    )
    applied = session.execute(
        "INSERT INTO py_rf1.t (k, v) VALUES (5, 5) IF NOT EXISTS"
    ).was_applied
    assert applied
