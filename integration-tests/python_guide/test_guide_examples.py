"""The testing guide's worked examples (docs/testing.md), verbatim between the markers."""

# guide: TTL example
import time


def test_a_session_expires_after_a_day(cqld, session):
    session.execute("CREATE TABLE sessions (id int PRIMARY KEY, user text)")
    session.execute("INSERT INTO sessions (id, user) VALUES (1, 'ada') USING TTL 86400")
    cqld.control("POST", "/clock/advance", {"seconds": 86400 - 10})
    assert session.execute("SELECT user FROM sessions WHERE id = 1").one().user == "ada"
    cqld.control("POST", "/clock/advance", {"seconds": 11})
    assert session.execute("SELECT user FROM sessions WHERE id = 1").one() is None
    # Timestamps the server gives follow the moved clock (the driver stamps writes with
    # its own clock unless told not to).
    session.use_client_timestamp = False
    session.execute("INSERT INTO sessions (id, user) VALUES (2, 'bob')")
    written = session.execute("SELECT writetime(user) FROM sessions WHERE id = 2").one()[0]
    assert written / 1e6 > time.time() + 86400
# guide end


# guide: retry example
from cassandra import WriteTimeout


def save_order(session, order_id):
    """The application code under test: retries a write that timed out, twice at most (the
    driver's default RetryPolicy rethrows a timed-out simple write)."""
    for attempt in range(3):
        try:
            return session.execute(
                "INSERT INTO orders (id, state) VALUES (%s, 'new')", (order_id,)
            )
        except WriteTimeout:
            if attempt == 2:
                raise


def test_an_order_write_is_retried_after_a_timeout(cqld, session):
    session.execute("CREATE TABLE orders (id int PRIMARY KEY, state text)")
    # The next two writes to app.orders time out; the third goes through.
    cqld.control("POST", "/faults", {
        "when": {"keyspace": "app", "table": "orders", "kind": "INSERT"},
        "then": {"error": "write_timeout"},
        "times": 2,
    })
    save_order(session, 7)
    assert session.execute("SELECT state FROM orders WHERE id = 7").one().state == "new"
    assert cqld.control("GET", "/faults") == []  # both firings used, the rule retired
# guide end


# guide: failover example
import pytest
from cassandra import ConsistencyLevel, Unavailable
from cassandra.cluster import Cluster
from cassandra.query import SimpleStatement


def test_orders_survive_a_node_going_down(start_cqld):
    cqld = start_cqld("--simulated-cluster", "dc1:3")  # 127.0.0.1, 127.0.0.2, 127.0.0.3
    cluster = Cluster(["127.0.0.1"], port=cqld.cql_port)
    session = cluster.connect()
    session.execute(
        "CREATE KEYSPACE shop WITH replication = "
        "{'class': 'NetworkTopologyStrategy', 'dc1': 3}"
    )
    session.execute("CREATE TABLE shop.orders (id int PRIMARY KEY, state text)")
    insert = SimpleStatement(
        "INSERT INTO shop.orders (id, state) VALUES (%s, 'new')",
        consistency_level=ConsistencyLevel.LOCAL_QUORUM,
    )
    for order in range(50):
        if order == 25:
            cqld.control("POST", "/nodes/127.0.0.2/stop")  # a node fails mid-test
        session.execute(insert, (order,))
    count = SimpleStatement(
        "SELECT count(*) FROM shop.orders", consistency_level=ConsistencyLevel.LOCAL_QUORUM
    )
    assert session.execute(count).one()[0] == 50
    # Two replicas of three answer LOCAL_QUORUM, never ALL.
    every_replica = SimpleStatement(
        "SELECT state FROM shop.orders WHERE id = 1", consistency_level=ConsistencyLevel.ALL
    )
    with pytest.raises(Unavailable):
        session.execute(every_replica)
    cluster.shutdown()
# guide end
