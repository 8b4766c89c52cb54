"""The batch size warning as the Python driver's own `test_client_warnings` sees it: 214
prepared INSERTs into 214 partitions pass Cassandra 5.0's 5 KiB threshold."""
from cassandra.query import BatchStatement


def test_batch_size_warning_reaches_the_driver(session, keyspace):
    session.execute(f"CREATE TABLE {keyspace}.w (k int, v0 int, v1 int, PRIMARY KEY (k, v0))")
    insert = session.prepare(f"INSERT INTO {keyspace}.w (k, v0, v1) VALUES (?, ?, ?)")
    batch = BatchStatement()
    for x in range(214):
        batch.add(insert, (x, x, 1))
    future = session.execute_async(batch)
    future.result()
    assert future.warnings == [
        f"Batch for [{keyspace}.w] is of size 9416, exceeding specified threshold of 5120 by 4296."
    ]
    small = BatchStatement()
    for x in range(3):
        small.add(insert, (x, x, 1))
    future = session.execute_async(small)
    future.result()
    assert not future.warnings
