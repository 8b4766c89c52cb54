//! Unit tests of INSERT, UPDATE and DELETE execution, below the handler: statements planned
//! against an in-memory node's schema and run by [`modify::execute`]; what they wrote is
//! read back from the store (cells, timestamps, TTLs, tombstones) or through a SELECT.
//!
//! The shared fixture is [`crate::executor::write::test_node::TestNode`].

use crate::executor::ExecOptions;
use bytes::Bytes;
use cql::frame::request::Value;
use storage::{Cell, CellValue, ColumnId, DeletionTime, Expiry, Liveness, StoredRow};

use crate::executor::write::test_node::*;

const TABLE: &str = "CREATE TABLE t (k int, c int, v int, w int, s int static, PRIMARY KEY (k, c))";
const COLLECTIONS: &str =
    "CREATE TABLE coll (k int PRIMARY KEY, l list<int>, st set<int>, m map<int, text>)";
const COUNTERS: &str = "CREATE TABLE counts (k int PRIMARY KEY, n counter, o counter)";

#[tokio::test]
async fn insert_writes_a_row_marker_and_cells_at_its_timestamp_and_ttl() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let query = "INSERT INTO t (k, c, v, w) VALUES (1, 2, 10, 20) USING TIMESTAMP 1000 AND TTL 100";
    test.run(query, &[], &ExecOptions::default(), NOW_MICROS)
        .await
        .expect("written");
    let expiry = Some(Expiry {
        ttl_seconds: 100,
        expires_at_seconds: NOW_SECONDS + 100,
    });
    let (v, w) = (test.column("t", "v"), test.column("t", "w"));
    assert_eq!(
        test.stored("t", &[1], &[2]),
        StoredRow {
            liveness: Some(Liveness {
                timestamp: 1000,
                ttl: expiry,
            }),
            deletion: None,
            cells: vec![
                (v, int_cell(10, 1000, expiry)),
                (w, int_cell(20, 1000, expiry))
            ],
        }
    );
    // No static cell was written, so there is no static row.
    assert_eq!(test.try_stored("t", &[1], &[]), None);
}

#[tokio::test]
async fn update_writes_cells_without_a_row_marker_at_the_requests_timestamp() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let options = ExecOptions {
        timestamp: Some(42),
        ..ExecOptions::default()
    };
    let query = "UPDATE t SET v = 5 WHERE k = 1 AND c = 2";
    test.run(query, &[], &options, NOW_MICROS)
        .await
        .expect("written");
    let v = test.column("t", "v");
    assert_eq!(
        test.stored("t", &[1], &[2]),
        StoredRow {
            liveness: None,
            deletion: None,
            cells: vec![(v, int_cell(5, 42, None))],
        }
    );
    // USING TIMESTAMP wins over the request's default timestamp.
    let query = "UPDATE t USING TIMESTAMP 7 SET w = 6 WHERE k = 1 AND c = 3";
    test.run(query, &[], &options, NOW_MICROS)
        .await
        .expect("written");
    let w = test.column("t", "w");
    assert_eq!(
        test.stored("t", &[1], &[3]).cells,
        vec![(w, int_cell(6, 7, None))]
    );
}

#[tokio::test]
async fn the_older_timestamp_loses() {
    let test = TestNode::with_tables(&[TABLE]).await;
    test.write("INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TIMESTAMP 2000")
        .await;
    test.write("INSERT INTO t (k, c, v) VALUES (1, 1, 2) USING TIMESTAMP 1000")
        .await;
    let select = "SELECT v, WRITETIME(v) FROM t WHERE k = 1 AND c = 1";
    assert_eq!(test.query(select).await, ["v | writetime(v)", "1 | 2000"]);
    test.write("UPDATE t USING TIMESTAMP 3000 SET v = 3 WHERE k = 1 AND c = 1")
        .await;
    assert_eq!(test.query(select).await, ["v | writetime(v)", "3 | 3000"]);
    // A deletion shadows what is not newer than it; a later write lives again.
    test.write("DELETE FROM t USING TIMESTAMP 3000 WHERE k = 1 AND c = 1")
        .await;
    assert_eq!(test.query(select).await, ["v | writetime(v)"]);
    test.write("INSERT INTO t (k, c, v) VALUES (1, 1, 4) USING TIMESTAMP 3001")
        .await;
    assert_eq!(test.query(select).await, ["v | writetime(v)", "4 | 3001"]);
}

#[tokio::test]
async fn deletes_write_a_row_deletion_or_cell_tombstones() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let options = ExecOptions::default();
    let row = "DELETE FROM t USING TIMESTAMP 500 WHERE k = 1 AND c = 1";
    test.run(row, &[], &options, NOW_MICROS)
        .await
        .expect("deleted");
    assert_eq!(
        test.stored("t", &[1], &[1]),
        StoredRow {
            liveness: None,
            deletion: Some(DeletionTime {
                timestamp: 500,
                local_deletion_seconds: NOW_SECONDS,
            }),
            cells: Vec::new(),
        }
    );
    let columns = "DELETE v, w FROM t USING TIMESTAMP 600 WHERE k = 1 AND c = 2";
    test.run(columns, &[], &options, NOW_MICROS)
        .await
        .expect("deleted");
    let tombstone = Cell {
        timestamp: 600,
        expiry: None,
        path: None,
        value: CellValue::Tombstone {
            local_deletion_seconds: NOW_SECONDS,
        },
    };
    let (v, w) = (test.column("t", "v"), test.column("t", "w"));
    assert_eq!(
        test.stored("t", &[1], &[2]),
        StoredRow {
            liveness: None,
            deletion: None,
            cells: vec![(v, tombstone.clone()), (w, tombstone)],
        }
    );
}

#[tokio::test]
async fn ttl_comes_from_using_ttl_else_the_tables_default_and_zero_means_none() {
    let create = "CREATE TABLE d (k int PRIMARY KEY, v int) WITH default_time_to_live = 50";
    let test = TestNode::with_tables(&[create]).await;
    let options = ExecOptions::default();
    let v = test.column("d", "v");
    let cases: [(&str, &[Value], Option<u32>); 5] = [
        ("INSERT INTO d (k, v) VALUES (1, 1)", &[], Some(50)),
        (
            "INSERT INTO d (k, v) VALUES (2, 1) USING TTL 7",
            &[],
            Some(7),
        ),
        ("INSERT INTO d (k, v) VALUES (3, 1) USING TTL 0", &[], None),
        (
            "INSERT INTO d (k, v) VALUES (4, 1) USING TTL ?",
            &[Value::Unset],
            Some(50),
        ),
        (
            "INSERT INTO d (k, v) VALUES (5, 1) USING TTL ?",
            &[Value::Null],
            None,
        ),
    ];
    for (key, (query, binds, ttl)) in (1..).zip(cases) {
        test.run(query, binds, &options, NOW_MICROS)
            .await
            .expect(query);
        let expiry = ttl.map(|ttl| Expiry {
            ttl_seconds: ttl,
            expires_at_seconds: NOW_SECONDS + i64::from(ttl),
        });
        let stored = test.stored("d", &[key], &[]);
        assert_eq!(stored.liveness.map(|l| l.ttl), Some(expiry), "{query}");
        assert_eq!(stored.cells[0].0, v, "{query}");
        assert_eq!(stored.cells[0].1.expiry, expiry, "{query}");
    }
}

#[tokio::test]
async fn bad_ttls_and_timestamps_are_refused_with_cassandras_messages() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let ttl = "INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TTL ?";
    let timestamp = "INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TIMESTAMP ?";
    let cases: [(&str, Value, &str); 7] = [
        (
            ttl,
            int(-1),
            "A TTL must be greater or equal to 0, but was -1",
        ),
        (
            ttl,
            int(630_720_001),
            "ttl is too large. requested (630720001) maximum (630720000)",
        ),
        (ttl, bigint(5), "Expected 4 or 0 byte int (8)"),
        (timestamp, Value::Null, "Invalid null value of timestamp"),
        (timestamp, int(5), "Expected 8 or 0 byte long (4)"),
        (timestamp, empty(), "Invalid value for [timestamp]"),
        (
            timestamp,
            bigint(i64::MIN),
            "Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807]",
        ),
    ];
    for (query, bind, message) in cases {
        assert_eq!(test.error(query, &[bind]).await, message, "{query}");
    }
    assert_eq!(test.try_stored("t", &[1], &[1]), None);
    // The largest TTL is accepted.
    test.run(
        ttl,
        &[int(630_720_000)],
        &ExecOptions::default(),
        NOW_MICROS,
    )
    .await
    .expect("the maximum TTL");
}

#[tokio::test]
async fn list_append_prepend_set_by_index_and_remove() {
    let test = TestNode::with_tables(&[COLLECTIONS]).await;
    let select = "SELECT l FROM coll WHERE k = 1";
    test.write("UPDATE coll SET l = l + [1, 2] WHERE k = 1")
        .await;
    test.write("UPDATE coll SET l = [0] + l WHERE k = 1").await;
    assert_eq!(test.query(select).await, ["l", "[0, 1, 2]"]);
    test.write("UPDATE coll SET l = l + [1] WHERE k = 1").await;
    test.write("UPDATE coll SET l = l - [1] WHERE k = 1").await;
    assert_eq!(test.query(select).await, ["l", "[0, 2]"]);
    test.write("UPDATE coll SET l[1] = 9 WHERE k = 1").await;
    assert_eq!(test.query(select).await, ["l", "[0, 9]"]);
    // Later operations of one statement see what earlier ones did.
    test.write("UPDATE coll SET l[0] = 8, l = l - [8] WHERE k = 1")
        .await;
    assert_eq!(test.query(select).await, ["l", "[9]"]);
    // The row was only ever UPDATEd: with its last element gone it has nothing live left.
    test.write("DELETE l[0] FROM coll WHERE k = 1").await;
    assert_eq!(test.query(select).await, ["l"]);
    assert_eq!(
        test.error("UPDATE coll SET l[5] = 1 WHERE k = 1", &[])
            .await,
        "Attempted to set an element on a list which is null"
    );
    test.write("UPDATE coll SET l = [1, 2] WHERE k = 1").await;
    assert_eq!(
        test.error("UPDATE coll SET l[5] = 1 WHERE k = 1", &[])
            .await,
        "List index 5 out of bound, list has size 2"
    );
}

#[tokio::test]
async fn set_and_map_elements_are_added_and_removed() {
    let test = TestNode::with_tables(&[COLLECTIONS]).await;
    let select = "SELECT st, m FROM coll WHERE k = 1";
    test.write("UPDATE coll SET st = st + {3, 1, 2}, m[1] = 'a' WHERE k = 1")
        .await;
    assert_eq!(test.query(select).await, ["st | m", "{1, 2, 3} | {1: 'a'}"]);
    test.write("UPDATE coll SET st = st - {2}, m = m + {2: 'b'} WHERE k = 1")
        .await;
    test.write("DELETE m[1] FROM coll WHERE k = 1").await;
    assert_eq!(test.query(select).await, ["st | m", "{1, 3} | {2: 'b'}"]);
    // Two operations on one element in one statement: the tombstone wins.
    test.write("UPDATE coll SET st = st + {4}, st = st - {4} WHERE k = 1")
        .await;
    assert_eq!(test.query(select).await, ["st | m", "{1, 3} | {2: 'b'}"]);
    // Setting a whole collection replaces it.
    test.write("UPDATE coll SET st = {7}, m = {5: 'e'} WHERE k = 1")
        .await;
    assert_eq!(test.query(select).await, ["st | m", "{7} | {5: 'e'}"]);
    assert_eq!(
        test.error("UPDATE coll SET m[?] = 'x' WHERE k = 1", &[Value::Null])
            .await,
        "Invalid null map key"
    );
}

#[tokio::test]
async fn counters_add_up_and_refuse_a_null_delta() {
    let test = TestNode::with_tables(&[COUNTERS]).await;
    let select = "SELECT n, o FROM counts WHERE k = 1";
    test.write("UPDATE counts SET n = n + 5, o = o - 1 WHERE k = 1")
        .await;
    test.write("UPDATE counts SET n = n - 2 WHERE k = 1").await;
    assert_eq!(test.query(select).await, ["n | o", "3 | -1"]);
    // The stored cells hold the totals, as bigints.
    let totals: Vec<(ColumnId, CellValue)> = test
        .stored("counts", &[1], &[])
        .cells
        .into_iter()
        .map(|(id, cell)| (id, cell.value))
        .collect();
    let bigint_cell = |v: i64| CellValue::Live(Bytes::copy_from_slice(&v.to_be_bytes()));
    let (n, o) = (test.column("counts", "n"), test.column("counts", "o"));
    assert_eq!(totals, [(n, bigint_cell(3)), (o, bigint_cell(-1))]);
    assert_eq!(
        test.error("UPDATE counts SET n = n + ? WHERE k = 1", &[Value::Null])
            .await,
        "Invalid null value for counter increment"
    );
    assert_eq!(
        test.error("UPDATE counts SET n = n + ? WHERE k = 1", &[int(1)])
            .await,
        "Expected 8 or 0 byte long (4)"
    );
    assert_eq!(
        test.error("UPDATE counts SET n = n + ? WHERE k = 1", &[empty()])
            .await,
        "Expected 8 bytes for a bigint (0)"
    );
    assert_eq!(
        test.error("UPDATE counts SET n = n - ? WHERE k = 1", &[bigint(i64::MIN)])
            .await,
        "The negation of -9223372036854775808 overflows supported counter precision (signed 8 bytes integer)"
    );
    assert_eq!(test.query(select).await, ["n | o", "3 | -1"]);
}

#[tokio::test]
async fn range_deletes_write_tombstones_over_the_clustering_ranges() {
    let test = TestNode::with_tables(&[TABLE]).await;
    for c in 1..=5 {
        test.write(&format!("INSERT INTO t (k, c, v) VALUES (1, {c}, {c})"))
            .await;
    }
    test.write("DELETE FROM t WHERE k = 1 AND c > 1 AND c <= 3")
        .await;
    let select = "SELECT c FROM t WHERE k = 1";
    assert_eq!(test.query(select).await, ["c", "1", "4", "5"]);
    let def = test.table("t");
    let partition = storage::row_key(&def, &[int_bytes(1)], &[]).expect("a key");
    let snapshot = test.node.store().snapshot().expect("a snapshot");
    let tombstones = snapshot
        .range_tombstones(def.id, &partition)
        .expect("tombstones");
    assert_eq!(tombstones.len(), 1);
    // The rows themselves are untouched: the tombstone shadows them.
    assert!(test.try_stored("t", &[1], &[2]).is_some());
    test.write("DELETE FROM t WHERE k = 1 AND c >= 5").await;
    assert_eq!(test.query(select).await, ["c", "1", "4"]);
}

#[tokio::test]
async fn partition_deletion_deletes_the_static_row_too() {
    let test = TestNode::with_tables(&[TABLE]).await;
    test.write("INSERT INTO t (k, c, v, s) VALUES (1, 1, 1, 9) USING TIMESTAMP 10")
        .await;
    let options = ExecOptions::default();
    let delete = "DELETE FROM t USING TIMESTAMP 20 WHERE k = 1";
    test.run(delete, &[], &options, NOW_MICROS)
        .await
        .expect("deleted");
    let deletion = Some(DeletionTime {
        timestamp: 20,
        local_deletion_seconds: NOW_SECONDS,
    });
    assert_eq!(test.stored("t", &[1], &[]).deletion, deletion);
    assert_eq!(
        test.query("SELECT k, s FROM t WHERE k = 1").await,
        ["k | s"]
    );
    // Without static columns a partition deletion is a range tombstone only.
    test.ddl("CREATE TABLE plain (k int, c int, v int, PRIMARY KEY (k, c))")
        .await;
    test.write("INSERT INTO plain (k, c, v) VALUES (1, 1, 1)")
        .await;
    test.write("DELETE FROM plain WHERE k = 1").await;
    assert_eq!(test.try_stored("plain", &[1], &[]), None);
    assert_eq!(
        test.query("SELECT * FROM plain WHERE k = 1").await,
        ["k | c | v"]
    );
}

#[tokio::test]
async fn static_columns_are_written_to_the_partitions_static_row() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let options = ExecOptions {
        timestamp: Some(5),
        ..ExecOptions::default()
    };
    test.run("UPDATE t SET s = 7 WHERE k = 1", &[], &options, NOW_MICROS)
        .await
        .expect("written");
    let s = test.column("t", "s");
    assert_eq!(
        test.stored("t", &[1], &[]),
        StoredRow {
            liveness: None,
            deletion: None,
            cells: vec![(s, int_cell(7, 5, None))],
        }
    );
    // An INSERT of static and regular columns writes both rows; only the clustering row
    // gets the row marker.
    let insert = "INSERT INTO t (k, c, s, v) VALUES (2, 3, 8, 9)";
    test.run(insert, &[], &options, NOW_MICROS)
        .await
        .expect("written");
    let v = test.column("t", "v");
    assert_eq!(
        test.stored("t", &[2], &[]),
        StoredRow {
            liveness: None,
            deletion: None,
            cells: vec![(s, int_cell(8, 5, None))],
        }
    );
    assert_eq!(
        test.stored("t", &[2], &[3]),
        StoredRow {
            liveness: Some(Liveness {
                timestamp: 5,
                ttl: None,
            }),
            deletion: None,
            cells: vec![(v, int_cell(9, 5, None))],
        }
    );
    let select = "SELECT k, c, s, v FROM t";
    assert_eq!(
        test.query(select).await,
        ["k | c | s | v", "1 | null | 7 | null", "2 | 3 | 8 | 9"]
    );
}

#[tokio::test]
async fn in_restrictions_write_every_combination_of_keys() {
    let test = TestNode::with_tables(&[TABLE]).await;
    test.write("UPDATE t SET v = 1 WHERE k IN (1, 2) AND c IN (3, 4)")
        .await;
    assert_eq!(
        test.query("SELECT k, c, v FROM t").await,
        [
            "k | c | v",
            "1 | 3 | 1",
            "1 | 4 | 1",
            "2 | 3 | 1",
            "2 | 4 | 1"
        ]
    );
    test.write("DELETE FROM t WHERE k = 1 AND c IN (3, 4)")
        .await;
    assert_eq!(
        test.query("SELECT k, c, v FROM t").await,
        ["k | c | v", "2 | 3 | 1", "2 | 4 | 1"]
    );
}

#[tokio::test]
async fn empty_partition_keys_are_refused_and_json_inserts_bind_their_columns() {
    let test =
        TestNode::with_tables(&[TABLE, "CREATE TABLE texts (k text PRIMARY KEY, v int)"]).await;
    assert_eq!(
        test.error("INSERT INTO texts (k, v) VALUES ('', 1)", &[])
            .await,
        "Key may not be empty"
    );
    test.write(r#"INSERT INTO t JSON '{"k": 1, "c": 2, "v": 3}'"#)
        .await;
    assert_eq!(
        test.query("SELECT k, c, v, w FROM t").await,
        ["k | c | v | w", "1 | 2 | 3 | null"]
    );
}

#[tokio::test]
async fn mixed_order_range_deletions_are_refused() {
    let create = "CREATE TABLE mixed (k int, a int, b int, v int, PRIMARY KEY (k, a, b)) \
                  WITH CLUSTERING ORDER BY (a ASC, b DESC)";
    let test = TestNode::with_tables(&[create]).await;
    assert_eq!(
        test.error("DELETE FROM mixed WHERE k = 1 AND (a, b) > (1, 2)", &[])
            .await,
        "Range deletions over clustering columns of mixed order are not supported yet"
    );
}

#[tokio::test]
async fn compound_keys_take_empty_components_and_are_limited_whole() {
    let test = TestNode::with_tables(&[
        "CREATE TABLE pairs (a text, b text, c text, d text, v int, PRIMARY KEY ((a, b), c, d))",
    ])
    .await;
    test.write("INSERT INTO pairs (a, b, c, d, v) VALUES ('', '', '', '', 1)")
        .await;
    assert_eq!(
        test.query("SELECT a, b, c, d, v FROM pairs WHERE a = '' AND b = ''")
            .await,
        ["a | b | c | d | v", "'' | '' | '' | '' | 1"]
    );
    let (big, bigger) = ("x".repeat(40_000), "y".repeat(30_000));
    let composite =
        format!("INSERT INTO pairs (a, b, c, d) VALUES ('{big}', '{bigger}', 'c', 'd')");
    assert_eq!(
        test.error(&composite, &[]).await,
        "Key length of 70006 is longer than maximum of 65535"
    );
    let clustering =
        format!("INSERT INTO pairs (a, b, c, d) VALUES ('a', 'b', '{big}', '{bigger}')");
    assert_eq!(
        test.error(&clustering, &[]).await,
        "Key length of 70000 is longer than maximum of 65535"
    );
}
