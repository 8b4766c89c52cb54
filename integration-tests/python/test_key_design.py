"""The key-design help through cqlsh: the hot-partition warning as cqlsh prints warnings,
and system_views.key_distribution as a table (the server runs with the default window of
1000 partition writes and share 0.5)."""
import uuid

from test_cqlsh import cqlsh


def test_hot_partition_warning_and_key_distribution(address):
    ks = "kd_" + uuid.uuid4().hex[:10]
    # 500 writes to partition 1 among the table's first 1000 partition writes: the 500th
    # crosses half of the window.
    inserts = "".join(
        f"INSERT INTO {ks}.events (day, seq, v) VALUES ({1 if i % 2 == 0 else 1000 + i}, {i}, 'x');"
        for i in range(1000)
    )
    code, out, err = cqlsh(address, (
        f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
        f"CREATE TABLE {ks}.events (day int, seq int, v text, PRIMARY KEY (day, seq));"
        + inserts +
        f"SELECT table_name, partitions, rows, hottest_partitions FROM system_views.key_distribution"
        f" WHERE keyspace_name = '{ks}';"
    ))
    assert code == 0, err
    printed = out + err
    assert f"Hot partition: {ks}.events partition (day = 1) took 500 of the table's last 999 partition writes (50 %)" \
        in printed, printed
    lines = [line.rstrip() for line in out.strip().splitlines() if line.strip()]
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("table_name"))
    header = [c.strip() for c in lines[at].split("|")]
    assert header == ["table_name", "partitions", "rows", "hottest_partitions"], lines[at:]
    row = [c.strip() for c in lines[at + 2].split("|")]
    assert row[:3] == ["events", "501", "1000"], row
    assert row[3].startswith("['day = 1: 500 of 1000 writes'"), row
    assert lines[-1] == "(1 rows)"
