"""cqlsh 6.2 against the server: statements, printed tables, server-side DESCRIBE."""
import os
import subprocess
import sys
import uuid


def cqlsh(address, command):
    """Runs `cqlsh host port -e command`; returns (exit code, stdout, stderr)."""
    exe = os.path.join(os.path.dirname(sys.executable), "cqlsh")
    proc = subprocess.run(
        [exe, address[0], str(address[1]), "-e", command],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "CQLSH_NO_BUNDLED": "TRUE", "HOME": os.environ.get("HOME", "/tmp")},
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_statements_and_printed_rows(address):
    ks = "sh_" + uuid.uuid4().hex[:10]
    code, out, err = cqlsh(address, (
        f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
        f"CREATE TABLE {ks}.users (id int PRIMARY KEY, name text, score double);"
        f"INSERT INTO {ks}.users (id, name, score) VALUES (1, 'ann', 2.5);"
        f"INSERT INTO {ks}.users (id, name, score) VALUES (2, 'bob', 3);"
        f"SELECT id, name, score FROM {ks}.users WHERE id = 1;"
    ))
    assert code == 0, err
    assert "WARNING" not in out, out
    lines = [line.rstrip() for line in out.strip().splitlines()]
    header = [c.strip() for c in lines[0].split("|")]
    assert header == ["id", "name", "score"]
    assert set(lines[1]) <= {"-", "+"}
    assert [c.strip() for c in lines[2].split("|")] == ["1", "ann", "2.5"]
    assert lines[-1] == "(1 rows)"


def test_describe_keyspaces_and_table_round_trip(address):
    ks = "sd_" + uuid.uuid4().hex[:10]
    code, _, err = cqlsh(address, (
        f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
        f"CREATE TABLE {ks}.events (host text, day int, ts timestamp, msg text, PRIMARY KEY ((host, day), ts)) "
        "WITH CLUSTERING ORDER BY (ts DESC) AND comment = 'log';"
    ))
    assert code == 0, err
    code, out, err = cqlsh(address, "DESCRIBE KEYSPACES")
    assert code == 0, err
    names = out.split()
    assert ks in names and "system" in names and "system_schema" in names
    code, out, err = cqlsh(address, f"DESCRIBE TABLE {ks}.events")
    assert code == 0, err
    text = out.strip()
    assert text.startswith(f"CREATE TABLE {ks}.events (")
    assert "PRIMARY KEY ((host, day), ts)" in text
    assert "CLUSTERING ORDER BY (ts DESC)" in text
    assert "comment = 'log'" in text
    # The printed statement creates the same table again under another name.
    again = text.replace(f"{ks}.events", f"{ks}.events_copy", 1)
    code, _, err = cqlsh(address, again)
    assert code == 0, err
    code, out2, err = cqlsh(address, f"DESCRIBE TABLE {ks}.events_copy")
    assert code == 0, err
    assert out2.strip().replace("events_copy", "events") == text


def test_errors_are_printed_and_exit_nonzero(address):
    code, out, err = cqlsh(address, "SELECT * FROM system.nope;")
    assert code == 2
    assert "table nope does not exist" in err


def test_collections_and_udts_print_like_cassandra(address):
    ks = "sc_" + uuid.uuid4().hex[:10]
    code, out, err = cqlsh(address, (
        f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
        f"CREATE TYPE {ks}.addr (street text, zip int);"
        f"CREATE TABLE {ks}.c (k int PRIMARY KEY, l list<int>, s set<text>, m map<text, int>, "
        "t tuple<int, text>, a frozen<addr>);"
        f"INSERT INTO {ks}.c (k, l, s, m, t, a) VALUES (1, [3, 1], {{'y', 'x'}}, {{'a': 1}}, (5, 'v'), "
        "{street: 'main', zip: 9});"
        f"SELECT l, s, m, t, a FROM {ks}.c;"
    ))
    assert code == 0, err
    lines = [line.rstrip() for line in out.strip().splitlines()]
    row = [c.strip() for c in lines[2].split("|")]
    assert row == ["[3, 1]", "{'x', 'y'}", "{'a': 1}", "(5, 'v')", "{street: 'main', zip: 9}"]


def test_describe_type_lists_fields_and_replays(address):
    ks = "st_" + uuid.uuid4().hex[:10]
    code, _, err = cqlsh(address, (
        f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
        f"CREATE TYPE {ks}.inner_t (x int);"
        f"CREATE TYPE {ks}.outer_t (y frozen<inner_t>, z list<int>);"
    ))
    assert code == 0, err
    code, out, err = cqlsh(address, f"DESCRIBE TYPE {ks}.outer_t")
    assert code == 0, err
    assert out.strip() == f"CREATE TYPE {ks}.outer_t (\n    y frozen<inner_t>,\n    z list<int>\n);"
    # DESCRIBE KEYSPACE lists the used type first, so its output replays.
    code, out, err = cqlsh(address, f"DESCRIBE KEYSPACE {ks}")
    assert code == 0, err
    assert out.index(f"CREATE TYPE {ks}.inner_t") < out.index(f"CREATE TYPE {ks}.outer_t")


def test_explain_prints_the_plan_as_a_table(address):
    ks = "sx_" + uuid.uuid4().hex[:10]
    code, out, err = cqlsh(address, (
        f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
        f"CREATE TABLE {ks}.events (host text, ts int, msg text, PRIMARY KEY (host, ts)) "
        "WITH CLUSTERING ORDER BY (ts DESC);"
        f"INSERT INTO {ks}.events (host, ts, msg) VALUES ('a', 1, 'x');"
        f"INSERT INTO {ks}.events (host, ts, msg) VALUES ('a', 2, 'y');"
        f"EXPLAIN SELECT msg FROM {ks}.events WHERE host = 'a' AND ts > 0;"
        f"EXPLAIN ANALYZE SELECT msg FROM {ks}.events WHERE host = 'a' AND ts > 0;"
    ))
    assert code == 0, err
    lines = [line.strip() for line in out.strip().splitlines() if line.strip()]
    assert lines[0] == "plan"
    assert set(lines[1]) <= {"-", "+"}
    assert lines[2:7] == [
        f"SELECT from {ks}.events, primary key ((host), ts)",
        "Partition key: host = 'a' (equality)",
        "Clustering slice: ts > 0",
        "Order: partitions in key order, rows in clustering order",
        "Examines: a clustering range of one partition",
    ]
    # cqlsh prints rows of statements other than SELECT as it prints an LWT's: a table, no count.
    analyzed = lines[lines.index("plan", 1):]
    assert analyzed[2:7] == lines[2:7]
    assert "Partitions touched: 1" in analyzed
    assert "Rows examined: 2" in analyzed
    assert "Tombstones examined: 0" in analyzed
    assert "Rows returned: 2" in analyzed
    assert analyzed[-1].startswith("Time: ") and analyzed[-1].endswith(" ms"), analyzed
    assert len(analyzed) == 12


def test_a_filtering_read_over_many_rows_prints_its_warning(address, session, keyspace):
    from cassandra.concurrent import execute_concurrent_with_args

    session.execute(f"CREATE TABLE {keyspace}.readings (id int PRIMARY KEY, sensor int, value int)")
    insert = session.prepare(f"INSERT INTO {keyspace}.readings (id, sensor, value) VALUES (?, ?, ?)")
    execute_concurrent_with_args(session, insert, [(i, i % 500, i) for i in range(1000)])
    code, out, err = cqlsh(address, f"SELECT id FROM {keyspace}.readings WHERE sensor = 7 ALLOW FILTERING;")
    assert code == 0, err
    text = out + err
    assert "Warnings :" in text, text
    assert (
        # cqlsh pages by 100 rows: the page's limit is in the query, as Cassandra shows it.
        f"Examined 1000 rows to return 2 for query SELECT * FROM {keyspace}.readings WHERE sensor = 7 "
        "LIMIT 100 ALLOW FILTERING (ALLOW FILTERING over the whole table); a table keyed by ((sensor), id) "
        "would read these rows directly (see filtering_examined_warn_ratio)"
    ) in text, text
    assert "(2 rows)" in out
