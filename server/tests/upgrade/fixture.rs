//! What a fixture holds: the schema, the data written in two phases (the first checkpointed
//! into the data file by a clean stop, the second left in the commit log by `kill -9`), and
//! the queries whose results the manifest records.
//!
//! A later release that adds types or features to the format adds statements and checks here
//! and generates its own fixture; the old fixtures keep their own manifests, which hold the
//! queries they are checked with, so changing this file never changes what an old fixture
//! is compared with. Every data write carries `USING TIMESTAMP` (counters cannot), and every
//! id is fixed, so the results never depend on when the fixture was written.

use crate::render::Entry;
use crate::session::SUPERUSER;

/// The snapshot a fixture of format 6 or later holds: everything as phase 1 left it.
pub(crate) const SNAPSHOT: &str = "phase_one";

/// Takes [`SNAPSHOT`] (after phase 1).
pub(crate) fn take_snapshot() -> String {
    format!("INSERT INTO test_control.snapshots (name) VALUES ('{SNAPSHOT}')")
}

/// Restores [`SNAPSHOT`]; the fixture's `manifest-restored.txt` is what it then holds.
pub(crate) fn restore_snapshot() -> String {
    format!("INSERT INTO test_control.commands (command, name) VALUES ('restore', '{SNAPSHOT}')")
}

/// The role the checks log in as besides the superuser, with `SELECT` on `ks` only.
pub(crate) const READER: &str = "reader/reader-pw";

/// The schema and the roles: catalog changes, each committed durably.
pub(crate) const SCHEMA: &[&str] = &[
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TYPE ks.addr (street text, zip int, tags frozen<set<text>>)",
    "CREATE TABLE ks.scalars (k int PRIMARY KEY, a ascii, bi bigint, b blob, bo boolean, \
     d date, dec decimal, dbl double, dur duration, f float, i4 inet, i6 inet, n int, \
     si smallint, t text, tm time, ts timestamp, tu timeuuid, ti tinyint, u uuid, vi varint, \
     vec vector<float, 3>)",
    "CREATE TABLE ks.colls (k int PRIMARY KEY, l list<int>, s set<text>, m map<text, int>, \
     fl frozen<list<int>>, fs frozen<set<int>>, fm frozen<map<int, text>>, \
     nested map<text, frozen<list<int>>>, ln list<frozen<map<int, text>>>, \
     tup tuple<int, text, frozen<list<int>>>, ua addr, uf frozen<addr>, \
     ul list<frozen<addr>>)",
    "CREATE TABLE ks.statics (k int, c int, s text static, v text, PRIMARY KEY (k, c)) \
     WITH CLUSTERING ORDER BY (c DESC)",
    "CREATE TABLE ks.clust (k int, c1 int, c2 text, v int, w text, PRIMARY KEY (k, c1, c2)) \
     WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)",
    "CREATE TABLE ks.composite (a int, b text, c int, v blob, PRIMARY KEY ((a, b), c))",
    "CREATE TABLE ks.counters (k text PRIMARY KEY, hits counter, misses counter)",
    "CREATE TABLE ks.people (id int PRIMARY KEY, name text, city text, age int, tags set<text>)",
    "CREATE INDEX people_city ON ks.people (city)",
    "CREATE INDEX people_tags ON ks.people (values(tags))",
    "CREATE CUSTOM INDEX people_age ON ks.people (age) USING 'StorageAttachedIndex'",
    "CREATE MATERIALIZED VIEW ks.people_by_city AS SELECT city, id, name, age FROM ks.people \
     WHERE city IS NOT NULL AND id IS NOT NULL PRIMARY KEY (city, id)",
    "CREATE TABLE ks.vecs (k int PRIMARY KEY, v vector<float, 3>)",
    "CREATE TABLE ks.custom (k int, \
     c 'org.apache.cassandra.db.marshal.CompositeType(AsciiType, Int32Type)', \
     v 'org.apache.cassandra.db.marshal.DynamicCompositeType(s=>UTF8Type, i=>Int32Type)', \
     PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)",
    "CREATE INDEX vecs_v ON ks.vecs (v) USING 'sai'",
    "CREATE ROLE reader WITH PASSWORD = 'reader-pw' AND LOGIN = true",
    "CREATE ROLE analysts",
    "GRANT analysts TO reader",
    "GRANT SELECT ON KEYSPACE ks TO reader",
];

/// Phase 1: written, then checkpointed into the data file by a clean stop.
pub(crate) fn phase_one() -> Vec<String> {
    let mut statements: Vec<String> = PHASE_ONE.iter().map(|s| s.to_string()).collect();
    for c1 in 1..=8 {
        for c2 in ["a", "b"] {
            statements.push(clust_row(1, c1, c2, 1000));
            statements.push(clust_row(2, c1, c2, 1000));
        }
    }
    statements.extend(PHASE_ONE_DELETES.iter().map(|s| s.to_string()));
    statements
}

/// Phase 2: written, then left only in the commit log by `kill -9`.
pub(crate) fn phase_two() -> Vec<String> {
    let mut statements: Vec<String> = (1..=6)
        .flat_map(|c1| [clust_row(3, c1, "a", 2000), clust_row(3, c1, "b", 2000)])
        .collect();
    statements.extend(PHASE_TWO.iter().map(|s| s.to_string()));
    statements
}

fn clust_row(k: i32, c1: i32, c2: &str, timestamp: i64) -> String {
    format!(
        "INSERT INTO ks.clust (k, c1, c2, v, w) VALUES ({k}, {c1}, '{c2}', {}, 'w{c1}{c2}') \
         USING TIMESTAMP {timestamp}",
        c1 * 10
    )
}

const PHASE_ONE: &[&str] = &[
    "INSERT INTO ks.scalars (k, a, bi, b, bo, d, dec, dbl, dur, f, i4, i6, n, si, t, tm, ts, \
     tu, ti, u, vi, vec) VALUES (1, 'ascii', 9007199254740993, 0xcafebabe, true, '2024-02-29', \
     12345.6789, 3.141592653589793, 1y2mo3d4h5m6s7ms8us9ns, 1.5, '192.168.0.1', '2001:db8::1', \
     42, 32767, 'text é ☃ 😀', '13:45:56.123456789', '2024-02-29 12:34:56.789+0000', \
     5c2b9a80-6a3b-11ee-8c99-0242ac120002, -128, 123e4567-e89b-12d3-a456-426614174000, \
     123456789012345678901234567890, [1.5, -2.25, 3.0]) USING TIMESTAMP 1000",
    "INSERT INTO ks.scalars (k, a, bi, b, bo, d, dec, dbl, dur, f, i4, i6, n, si, t, tm, ts, \
     tu, ti, u, vi, vec) VALUES (2, '', -9223372036854775808, 0x, false, '1970-01-01', \
     -0.000001, -Infinity, -1d, NaN, '0.0.0.0', '::ffff:1.2.3.4', -2147483648, -32768, \
     'it''s', '00:00:00', -1000, 00000000-0000-1000-8080-808080808080, 127, \
     00000000-0000-0000-0000-000000000000, -1, [0.0, -0.0, 1e-7]) USING TIMESTAMP 1000",
    "INSERT INTO ks.scalars (k, t) VALUES (3, 'sparse') USING TIMESTAMP 1000",
    "INSERT INTO ks.colls (k, l, s, m, fl, fs, fm, nested, ln, tup, ua, uf, ul) VALUES \
     (1, [3, 1, 2], {'b', 'a'}, {'x': 1, 'y': 2}, [9, 8], {5, 4}, {1: 'one'}, \
     {'p': [1, 2], 'q': []}, [{1: 'a'}, {2: 'b'}], (1, 'tup', [7]), \
     {street: 'Main', zip: 12345, tags: {'home'}}, {street: 'Frozen', zip: null}, \
     [{street: 'A', zip: 1, tags: {}}]) USING TIMESTAMP 1000",
    "UPDATE ks.colls USING TIMESTAMP 1001 SET l = l + [4], s = s + {'c'}, m['z'] = 26 \
     WHERE k = 1",
    "UPDATE ks.colls USING TIMESTAMP 1002 SET ua.zip = 54321 WHERE k = 1",
    "DELETE m['x'] FROM ks.colls USING TIMESTAMP 1003 WHERE k = 1",
    "INSERT INTO ks.colls (k, l) VALUES (2, [1]) USING TIMESTAMP 1000",
    "INSERT INTO ks.statics (k, c, s, v) VALUES (1, 1, 'static-1', 'a') USING TIMESTAMP 1000",
    "INSERT INTO ks.statics (k, c, v) VALUES (1, 2, 'b') USING TIMESTAMP 1000",
    "INSERT INTO ks.statics (k, s) VALUES (2, 'static only') USING TIMESTAMP 1000",
    "INSERT INTO ks.composite (a, b, c, v) VALUES (1, 'x', 1, 0x01) USING TIMESTAMP 1000",
    "INSERT INTO ks.composite (a, b, c, v) VALUES (1, 'y', 2, 0x02) USING TIMESTAMP 1000",
    "UPDATE ks.counters SET hits = hits + 5, misses = misses - 2 WHERE k = 'a'",
    "UPDATE ks.counters SET hits = hits + 1 WHERE k = 'a'",
    "UPDATE ks.counters SET hits = hits + 100 WHERE k = 'b'",
    "UPDATE ks.counters SET hits = hits + 3 WHERE k = 'c'",
    "DELETE FROM ks.counters WHERE k = 'c'",
    "INSERT INTO ks.people (id, name, city, age, tags) VALUES (1, 'Ann', 'Paris', 20, {'x'}) \
     USING TIMESTAMP 1000",
    "INSERT INTO ks.people (id, name, city, age, tags) VALUES (2, 'Bo', 'Oslo', 30, {'y'}) \
     USING TIMESTAMP 1000",
    "INSERT INTO ks.people (id, name, city, age, tags) VALUES (3, 'Cy', 'Paris', 40, {'x', 'y'}) \
     USING TIMESTAMP 1000",
    "INSERT INTO ks.people (id, name, city, age) VALUES (4, 'Di', 'Rome', 50) \
     USING TIMESTAMP 1000",
    "INSERT INTO ks.people (id, name, city, age, tags) VALUES (5, 'Ed', 'Oslo', 60, {'x'}) \
     USING TIMESTAMP 1000",
    "INSERT INTO ks.people (id, name, city, age) VALUES (6, 'Flo', 'Paris', 70) \
     USING TIMESTAMP 1000",
    "INSERT INTO ks.vecs (k, v) VALUES (1, [1.0, 0.0, 0.0]) USING TIMESTAMP 1000",
    "INSERT INTO ks.vecs (k, v) VALUES (2, [0.0, 1.0, 0.0]) USING TIMESTAMP 1000",
    "INSERT INTO ks.vecs (k, v) VALUES (3, [1.0, 1.0, 0.0]) USING TIMESTAMP 1000",
    "INSERT INTO ks.vecs (k, v) VALUES (4, [0.5, 0.1, 0.9]) USING TIMESTAMP 1000",
    "INSERT INTO ks.custom (k, c, v) VALUES (1, 'abc:123', 's@x:i@5') USING TIMESTAMP 1000",
    "INSERT INTO ks.custom (k, c, v) VALUES (1, 'abc:7', 'i@-1') USING TIMESTAMP 1000",
    "INSERT INTO ks.custom (k, c) VALUES (1, 'abd') USING TIMESTAMP 1000",
];

/// Phase 1's deletions and TTLs (after the rows of `ks.clust`).
const PHASE_ONE_DELETES: &[&str] = &[
    "DELETE w FROM ks.clust USING TIMESTAMP 1100 WHERE k = 1 AND c1 = 1 AND c2 = 'a'",
    "DELETE FROM ks.clust USING TIMESTAMP 1100 WHERE k = 1 AND c1 = 2 AND c2 = 'b'",
    "DELETE FROM ks.clust USING TIMESTAMP 1100 WHERE k = 1 AND c1 > 6",
    "DELETE FROM ks.clust USING TIMESTAMP 1100 WHERE k = 1 AND c1 = 4",
    "INSERT INTO ks.clust (k, c1, c2, v) VALUES (1, 7, 'a', 71) USING TIMESTAMP 1200",
    "INSERT INTO ks.clust (k, c1, c2, v) VALUES (1, 8, 'a', 81) USING TIMESTAMP 1050",
    "INSERT INTO ks.clust (k, c1, c2, v) VALUES (1, 0, 'ttl', 1) \
     USING TTL 630720000 AND TIMESTAMP 1000",
    "INSERT INTO ks.clust (k, c1, c2, v) VALUES (1, 0, 'gone', 2) USING TTL 1 AND TIMESTAMP 1000",
    "UPDATE ks.clust USING TTL 1 AND TIMESTAMP 1300 SET w = 'brief' \
     WHERE k = 1 AND c1 = 3 AND c2 = 'a'",
    "DELETE FROM ks.clust USING TIMESTAMP 1100 WHERE k = 2",
    "INSERT INTO ks.clust (k, c1, c2, v) VALUES (2, 1, 'after', 12) USING TIMESTAMP 1200",
];

const PHASE_TWO: &[&str] = &[
    "DELETE w FROM ks.clust USING TIMESTAMP 2100 WHERE k = 3 AND c1 = 1 AND c2 = 'a'",
    "DELETE FROM ks.clust USING TIMESTAMP 2100 WHERE k = 3 AND c1 = 2 AND c2 = 'b'",
    "DELETE FROM ks.clust USING TIMESTAMP 2100 WHERE k = 3 AND c1 < 2",
    "DELETE FROM ks.clust USING TIMESTAMP 2100 WHERE k = 3 AND c1 = 5",
    "DELETE FROM ks.clust USING TIMESTAMP 2100 WHERE k = 1 AND c1 >= 5 AND c1 <= 6",
    "INSERT INTO ks.clust (k, c1, c2, v) VALUES (3, 0, 'ttl', 3) \
     USING TTL 630720000 AND TIMESTAMP 2200",
    "DELETE FROM ks.clust USING TIMESTAMP 2100 WHERE k = 2",
    "INSERT INTO ks.clust (k, c1, c2, v) VALUES (2, 9, 'late', 29) USING TIMESTAMP 2200",
    "INSERT INTO ks.scalars (k, a, bi, b, bo, d, dec, dbl, dur, f, i4, i6, n, si, t, tm, ts, \
     tu, ti, u, vi, vec) VALUES (4, 'four', 4, 0x04, true, '2000-01-01', 4.40, 4.5, P4W, \
     -4.25, '10.0.0.4', 'fe80::4', 4, 4, 'four', '04:04:04', '2004-04-04 04:04:04+0000', \
     d2177dd0-eaa2-11de-a572-001b779c76e3, 4, 44444444-4444-4444-4444-444444444444, \
     -98765432109876543210, [4.0, 4.0, 4.0]) USING TIMESTAMP 2000",
    "UPDATE ks.scalars USING TIMESTAMP 2000 SET n = 7 WHERE k = 1",
    "DELETE bo FROM ks.scalars USING TIMESTAMP 2000 WHERE k = 2",
    "BEGIN BATCH USING TIMESTAMP 2500 \
     INSERT INTO ks.scalars (k, t) VALUES (5, 'batched'); \
     INSERT INTO ks.statics (k, c, v) VALUES (3, 1, 'batched'); \
     APPLY BATCH",
    "UPDATE ks.colls USING TIMESTAMP 2001 SET l = [0] + l, s = s - {'a'}, m['w'] = -1 \
     WHERE k = 1",
    "UPDATE ks.colls USING TIMESTAMP 2002 SET ua.street = 'High' WHERE k = 1",
    "DELETE l FROM ks.colls USING TIMESTAMP 2003 WHERE k = 2",
    "INSERT INTO ks.colls (k, fm, nested, tup, uf) VALUES (3, {2: 'two'}, {'r': [3]}, \
     (null, null, null), {street: 'Third', zip: 3, tags: {'a', 'b'}}) USING TIMESTAMP 2000",
    "UPDATE ks.statics USING TIMESTAMP 2000 SET s = 'static-1b' WHERE k = 1",
    "INSERT INTO ks.statics (k, c, v) VALUES (1, 3, 'c') USING TIMESTAMP 2000",
    "INSERT INTO ks.composite (a, b, c, v) VALUES (1, 'x', 3, 0x03) USING TIMESTAMP 2000",
    "UPDATE ks.counters SET hits = hits + 10, misses = misses - 1 WHERE k = 'a'",
    "UPDATE ks.counters SET hits = hits + 1 WHERE k = 'd'",
    "INSERT INTO ks.people (id, name, city, age, tags) VALUES (7, 'Gus', 'Paris', 45, {'x'}) \
     USING TIMESTAMP 2000",
    "UPDATE ks.people USING TIMESTAMP 2000 SET city = 'Rome' WHERE id = 1",
    "UPDATE ks.people USING TIMESTAMP 2000 SET age = 33, tags = tags + {'z'} WHERE id = 2",
    "DELETE FROM ks.people USING TIMESTAMP 2000 WHERE id = 3",
    "INSERT INTO ks.vecs (k, v) VALUES (5, [0.9, 0.1, 0.0]) USING TIMESTAMP 2000",
    "INSERT INTO ks.custom (k, c, v) VALUES (1, 'aaa:1', 's@late') USING TIMESTAMP 2000",
    "DELETE FROM ks.custom USING TIMESTAMP 2000 WHERE k = 1 AND c = 'abc:7'",
];

/// The queries the manifest records, run as the superuser unless they name a role.
const CHECKS: &[&str] = &[
    "SELECT * FROM ks.scalars WHERE k IN (1, 2, 3, 4, 5)",
    "SELECT k, writetime(n), writetime(t) FROM ks.scalars WHERE k IN (1, 4)",
    "SELECT * FROM ks.colls WHERE k IN (1, 2, 3)",
    "SELECT * FROM ks.statics WHERE k IN (1, 2, 3)",
    "SELECT k, c1, c2, v, w, ttl(v), writetime(v) FROM ks.clust WHERE k IN (1, 2, 3)",
    "SELECT c1, c2, v FROM ks.clust WHERE k = 1 ORDER BY c1 ASC, c2 DESC",
    "SELECT c1, c2, v FROM ks.clust WHERE k = 3 AND c1 >= 2 AND c1 <= 5",
    "SELECT count(*) FROM ks.clust WHERE k = 1",
    "SELECT * FROM ks.composite WHERE a = 1 AND b IN ('x', 'y')",
    "SELECT * FROM ks.counters WHERE k IN ('a', 'b', 'c', 'd')",
    "SELECT * FROM ks.people WHERE id IN (1, 2, 3, 4, 5, 6, 7)",
    "SELECT id, name, age FROM ks.people WHERE city = 'Paris'",
    "SELECT id, name FROM ks.people WHERE city = 'Rome'",
    "SELECT id FROM ks.people WHERE tags CONTAINS 'x'",
    "SELECT id, age FROM ks.people WHERE age > 30",
    "SELECT id, age FROM ks.people WHERE age >= 20 AND age <= 40",
    "SELECT * FROM ks.people_by_city WHERE city = 'Paris'",
    "SELECT * FROM ks.people_by_city WHERE city IN ('Oslo', 'Rome')",
    "SELECT k, v FROM ks.vecs ORDER BY v ANN OF [1.0, 0.0, 0.0] LIMIT 3",
    "SELECT k, v FROM ks.vecs WHERE k IN (1, 2, 3, 4, 5)",
    "SELECT k, c, v FROM ks.custom WHERE k = 1",
    "SELECT k, c, v FROM ks.custom WHERE k = 1 AND c >= 'abc' ORDER BY c ASC",
    "SELECT table_name, column_name, kind, position, clustering_order, type \
     FROM system_schema.columns WHERE keyspace_name = 'ks'",
    "SELECT table_name, index_name, kind, options FROM system_schema.indexes \
     WHERE keyspace_name = 'ks'",
    "SELECT view_name, base_table_name, include_all_columns, where_clause \
     FROM system_schema.views WHERE keyspace_name = 'ks'",
    "SELECT type_name, field_names, field_types FROM system_schema.types \
     WHERE keyspace_name = 'ks'",
    "SELECT role, can_login, is_superuser, member_of FROM system_auth.roles",
    "LIST ALL PERMISSIONS OF reader",
    "SELECT name, keyspaces, tables FROM test_control.snapshots",
];

/// What the reader role may and may not do.
const READER_CHECKS: &[&str] = &[
    "SELECT k, t FROM ks.scalars WHERE k IN (1, 5)",
    "SELECT * FROM ks.people_by_city WHERE city = 'Rome'",
    "INSERT INTO ks.scalars (k, t) VALUES (99, 'refused')",
];

/// The manifest's entries, without results.
pub(crate) fn checks() -> Vec<Entry> {
    let entry = |login: &str, query: &&str| Entry {
        login: login.to_owned(),
        query: query.to_string(),
        lines: Vec::new(),
    };
    let checks = CHECKS.iter().map(|q| entry(SUPERUSER, q));
    checks
        .chain(READER_CHECKS.iter().map(|q| entry(READER, q)))
        .collect()
}
