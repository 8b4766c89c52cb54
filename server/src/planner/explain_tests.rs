//! EXPLAIN lines of planned statements, compared as text (no storage involved).

use cql::statement::ast::Statement;

use super::*;
use crate::planner::plan::plan_statement;
use crate::planner::select::tests::schema;

const TABLES: &[&str] = &[
    "CREATE TABLE t (k int, c int, d int, v int, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)",
    "CREATE TABLE u (a int, b text, v int, w int, PRIMARY KEY ((a, b)))",
];

/// The EXPLAIN lines of `query` against [`TABLES`] in keyspace `ks`.
fn explain(query: &str) -> Vec<String> {
    let schema = schema(TABLES);
    let statement = cql::statement::parse_statement(query).expect("parses");
    assert!(matches!(statement, Statement::Explain(_)), "{query}");
    let plan = plan_statement(&schema, &statement, Some("ks")).expect("plans");
    describe(&plan)
}

#[test]
fn a_full_key_reads_one_row() {
    assert_eq!(
        explain("EXPLAIN SELECT v FROM t WHERE k = ? AND c = ? AND d = 3"),
        [
            "SELECT from ks.t, primary key ((k), c, d)",
            "Partition key: k = ? (equality)",
            "Clustering prefix: c = ?",
            "Clustering prefix: d = 3",
            "Order: partitions in key order, rows in clustering order",
            "Examines: one row",
        ]
    );
}

#[test]
fn in_lists_slices_and_reversed_order_are_named() {
    assert_eq!(
        explain("EXPLAIN SELECT v FROM t WHERE k IN (1, 2, 3) AND c = 1 AND d > ? ORDER BY c ASC, d DESC LIMIT 10"),
        [
            "SELECT from ks.t, primary key ((k), c, d)",
            "Partition key: k IN (1, 2, 3) (IN)",
            "Clustering prefix: c = 1",
            "Clustering slice: d > ?",
            "Order: partitions in key order, rows in reversed clustering order; sorted after the read by c ASC, d DESC",
            "Examines: a clustering range of 3 partitions",
            "Limit: 10 (applied after the sort)",
        ]
    );
    let lines = explain("EXPLAIN SELECT v FROM t WHERE k = 1 ORDER BY c ASC LIMIT 1");
    assert_eq!(
        lines[2..],
        [
            "Order: partitions in key order, rows in reversed clustering order",
            "Examines: all rows of one partition",
            "Limit: 1 (the read stops there)",
        ]
    );
    let lines = explain("EXPLAIN SELECT * FROM t WHERE k = 1 AND (c, d) >= (1, 2)");
    assert_eq!(
        lines[2],
        "Clustering slice: (c, d) >= (1, 2) (columns in mixed order: rows compared as tuples)"
    );
}

#[test]
fn filtering_token_ranges_and_whole_tables_are_called_so() {
    assert_eq!(
        explain("EXPLAIN SELECT * FROM u WHERE v = 3 ALLOW FILTERING"),
        [
            "SELECT from ks.u, primary key ((a, b))",
            "Partition key: not restricted",
            "Filtering (ALLOW FILTERING): v checked row by row",
            "Order: partitions in token order, rows in clustering order",
            "Examines: the whole table",
        ]
    );
    let lines = explain("EXPLAIN SELECT * FROM u WHERE token(a, b) > ? AND token(a, b) <= 100");
    assert_eq!(
        lines[1],
        "Partition key: token range token(a, b) > ? AND token(a, b) <= 100"
    );
    assert_eq!(lines[3], "Examines: every partition in the token range");
    let lines = explain("EXPLAIN SELECT * FROM u WHERE a = 1 ALLOW FILTERING");
    assert_eq!(
        lines[1..3],
        [
            "Partition key: incomplete, a filtered in every partition",
            "Filtering (ALLOW FILTERING): a checked row by row",
        ]
    );
    let lines = explain("EXPLAIN SELECT * FROM t WHERE k = 1 AND v > 2 ALLOW FILTERING");
    assert_eq!(
        lines[2],
        "Filtering (ALLOW FILTERING): v checked row by row"
    );
    assert_eq!(lines[4], "Examines: all rows of one partition");
}

#[test]
fn writes_name_their_keys_and_what_they_write() {
    assert_eq!(
        explain("EXPLAIN INSERT INTO t (k, c, d, v) VALUES (?, ?, ?, ?)"),
        [
            "INSERT into ks.t, primary key ((k), c, d)",
            "Partition key: k = ? (equality)",
            "Clustering key: c = ? AND d = ?",
            "Writes: one row",
        ]
    );
    assert_eq!(
        explain("EXPLAIN ANALYZE DELETE FROM t WHERE k IN (1, 2)"),
        [
            "DELETE from ks.t, primary key ((k), c, d)",
            "Partition key: k IN (1, 2) (IN)",
            "Writes: a partition tombstone per partition",
        ]
    );
    let lines = explain("EXPLAIN DELETE FROM t WHERE k = 1 AND c > 3");
    assert_eq!(lines[2], "Clustering slice: c > 3");
    assert_eq!(lines[3], "Writes: a range tombstone in each partition");
    assert_eq!(
        explain("EXPLAIN UPDATE t SET v = 1 WHERE k = 1 AND (c, d) IN ((1, 2), (3, 4))")[2..],
        [
            "Clustering key: (c, d) IN ((1, 2), (3, 4))",
            "Writes: 2 rows"
        ]
    );
    let lines = explain("EXPLAIN UPDATE u SET v = 1 WHERE a = 1 AND b = 'x' IF w = 2");
    assert_eq!(
        lines[2..],
        [
            "Condition: lightweight transaction, reads the row before writing",
            "Writes: one row"
        ]
    );
}
