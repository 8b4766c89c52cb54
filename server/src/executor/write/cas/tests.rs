//! Unit tests of lightweight transactions, below the handler: conditional statements planned
//! against an in-memory node and run by [`execute`] one by one or as a batch; the
//! `[applied]` answers, what was (not) written, and the refusals asserted word for word.

use cql::frame::response::ResultBody;

use super::*;
use crate::error::CqlResult;
use crate::executor::consistency::LOCAL_SERIAL;
use crate::executor::write::test_node::{TestNode, ONE};

const TABLE: &str = "CREATE TABLE t (k int, c int, v int, w int, s int static, \
                     l list<int>, PRIMARY KEY (k, c))";
const OTHER: &str = "CREATE TABLE other (k int PRIMARY KEY, v int)";
const COUNTERS: &str = "CREATE TABLE counts (k int PRIMARY KEY, n counter)";

/// The options of a conditional request at consistency ONE, serial consistency unset.
fn options() -> ExecOptions {
    ExecOptions {
        consistency: ONE,
        ..ExecOptions::default()
    }
}

/// Runs `queries` as one conditional request (a batch when `is_batch`) with `options`.
async fn run(
    test: &TestNode,
    queries: &[&str],
    is_batch: bool,
    options: &ExecOptions,
) -> CqlResult<ResultBody> {
    let plans = queries
        .iter()
        .map(|query| test.plan(query))
        .collect::<CqlResult<Vec<_>>>()?;
    let now_micros = test.node.clock().now_micros();
    let items: Vec<CasItem<'_>> = plans
        .iter()
        .map(|plan| CasItem {
            plan,
            ctx: EvalContext {
                binds: &[],
                now_micros,
            },
        })
        .collect();
    execute(&test.node, &items, options, is_batch).await
}

/// The rendered answer of one conditional statement.
async fn statement(test: &TestNode, query: &str) -> Vec<String> {
    match run(test, &[query], false, &options()).await {
        Ok(body) => crate::executor::write::test_node::render(&body),
        Err(err) => panic!("{query}: {err}"),
    }
}

/// The rendered answer of a conditional batch.
async fn batch(test: &TestNode, queries: &[&str]) -> Vec<String> {
    match run(test, queries, true, &options()).await {
        Ok(body) => crate::executor::write::test_node::render(&body),
        Err(err) => panic!("{queries:?}: {err}"),
    }
}

/// The message a conditional request fails with.
async fn error(test: &TestNode, queries: &[&str], is_batch: bool) -> String {
    match run(test, queries, is_batch, &options()).await {
        Ok(body) => panic!("{queries:?} answered {body:?}"),
        Err(err) => err.to_string(),
    }
}

const APPLIED: [&str; 2] = ["[applied]", "true"];
const NOT_APPLIED: [&str; 2] = ["[applied]", "false"];

#[tokio::test]
async fn insert_if_not_exists_applies_once_then_answers_the_existing_row() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let insert = "INSERT INTO t (k, c, v) VALUES (1, 1, 10) IF NOT EXISTS";
    assert_eq!(statement(&test, insert).await, APPLIED);
    let again = "INSERT INTO t (k, c, v) VALUES (1, 1, 20) IF NOT EXISTS";
    assert_eq!(
        statement(&test, again).await,
        [
            "[applied] | k | c | s | l | v | w",
            "false | 1 | 1 | null | null | 10 | null"
        ]
    );
    assert_eq!(
        test.query("SELECT v FROM t WHERE k = 1 AND c = 1").await,
        ["v", "10"]
    );
}

#[tokio::test]
async fn if_exists_applies_only_to_a_live_row() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let update = "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS";
    assert_eq!(statement(&test, update).await, NOT_APPLIED);
    assert_eq!(test.try_stored("t", &[1], &[1]), None);
    test.write("INSERT INTO t (k, c, w) VALUES (1, 1, 5)").await;
    assert_eq!(statement(&test, update).await, APPLIED);
    let delete = "DELETE FROM t WHERE k = 1 AND c = 1 IF EXISTS";
    assert_eq!(statement(&test, delete).await, APPLIED);
    assert_eq!(
        test.query("SELECT * FROM t").await,
        ["k | c | s | l | v | w"]
    );
    assert_eq!(statement(&test, delete).await, NOT_APPLIED);
}

#[tokio::test]
async fn equality_conditions_answer_the_conditioned_columns_when_false() {
    let test = TestNode::with_tables(&[TABLE]).await;
    test.write("INSERT INTO t (k, c, v, w) VALUES (1, 1, 10, 20)")
        .await;
    let wrong = "UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF v = 9 AND w = 20";
    assert_eq!(
        statement(&test, wrong).await,
        ["[applied] | v | w", "false | 10 | 20"]
    );
    let right = "UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF v = 10 AND w = 20";
    assert_eq!(statement(&test, right).await, APPLIED);
    assert_eq!(
        test.query("SELECT v FROM t WHERE k = 1 AND c = 1").await,
        ["v", "11"]
    );
    let not_equal = "UPDATE t SET v = 12 WHERE k = 1 AND c = 1 IF v != 11";
    assert_eq!(
        statement(&test, not_equal).await,
        ["[applied] | v", "false | 11"]
    );
}

#[tokio::test]
async fn slice_in_and_contains_conditions_are_checked() {
    let test = TestNode::with_tables(&[TABLE]).await;
    test.write("INSERT INTO t (k, c, v, l) VALUES (1, 1, 3, [1, 3])")
        .await;
    let cases = [
        ("IF v < 5", true),
        ("IF v < 3", false),
        ("IF v >= 3", true),
        ("IF v > 3", false),
        ("IF v IN (1, 3)", true),
        ("IF v IN (1, 2)", false),
        ("IF l CONTAINS 3", true),
        ("IF l CONTAINS 2", false),
    ];
    for (condition, holds) in cases {
        let query = format!("UPDATE t SET w = 1 WHERE k = 1 AND c = 1 {condition}");
        let expected: Vec<String> = if holds {
            APPLIED.map(String::from).to_vec()
        } else if condition.starts_with("IF l") {
            vec!["[applied] | l".into(), "false | [1, 3]".into()]
        } else {
            vec!["[applied] | v".into(), "false | 3".into()]
        };
        assert_eq!(statement(&test, &query).await, expected, "{condition}");
    }
}

#[tokio::test]
async fn conditions_on_a_missing_row_see_nulls() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let equal = "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF v = 1";
    assert_eq!(statement(&test, equal).await, NOT_APPLIED);
    assert_eq!(test.try_stored("t", &[1], &[1]), None);
    let null = "UPDATE t SET v = 2 WHERE k = 1 AND c = 1 IF v = null";
    assert_eq!(statement(&test, null).await, APPLIED);
    assert_eq!(
        test.query("SELECT v FROM t WHERE k = 1 AND c = 1").await,
        ["v", "2"]
    );
}

#[tokio::test]
async fn static_conditions_check_the_partitions_static_row() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let first = "UPDATE t SET s = 1 WHERE k = 1 IF s = null";
    assert_eq!(statement(&test, first).await, APPLIED);
    let wrong = "UPDATE t SET s = 3 WHERE k = 1 IF s = 2";
    assert_eq!(
        statement(&test, wrong).await,
        ["[applied] | s", "false | 1"]
    );
    let right = "UPDATE t SET s = 3, v = 4 WHERE k = 1 AND c = 1 IF s = 1";
    assert_eq!(statement(&test, right).await, APPLIED);
    assert_eq!(
        test.query("SELECT k, c, s, v FROM t").await,
        ["k | c | s | v", "1 | 1 | 3 | 4"]
    );
    // IF NOT EXISTS on a static-only INSERT checks the static row; the answer shows the
    // partition's first row, but reads no regular column since none is written
    // (`columnsToRead`).
    let insert = "INSERT INTO t (k, s) VALUES (1, 9) IF NOT EXISTS";
    assert_eq!(
        statement(&test, insert).await,
        [
            "[applied] | k | c | s | l | v | w",
            "false | 1 | 1 | 3 | null | null | null"
        ]
    );
}

#[tokio::test]
async fn a_conditional_batch_on_one_partition_applies_all_or_nothing() {
    let test = TestNode::with_tables(&[TABLE]).await;
    test.write("INSERT INTO t (k, c, v) VALUES (1, 1, 10)")
        .await;
    let statements = [
        "UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF v = 10",
        "INSERT INTO t (k, c, v) VALUES (1, 2, 20) IF NOT EXISTS",
        "UPDATE t SET w = 5 WHERE k = 1 AND c = 3",
    ];
    assert_eq!(batch(&test, &statements).await, APPLIED);
    let select = "SELECT c, v, w FROM t WHERE k = 1";
    let written = [
        "c | v | w",
        "1 | 11 | null",
        "2 | 20 | null",
        "3 | null | 5",
    ];
    assert_eq!(test.query(select).await, written);
    // Now neither condition holds: nothing is written, and the answer shows the rows read
    // with their primary key.
    assert_eq!(
        batch(&test, &statements).await,
        [
            "[applied] | k | c | s | l | v | w",
            "false | 1 | 1 | null | null | 11 | null",
            "false | 1 | 2 | null | null | 20 | null",
        ]
    );
    assert_eq!(test.query(select).await, written);
    // Column conditions alone: the key and the conditioned columns.
    let conditioned = [
        "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF v = 0",
        "UPDATE t SET v = 1 WHERE k = 1 AND c = 3 IF w = 5",
    ];
    assert_eq!(
        batch(&test, &conditioned).await,
        [
            "[applied] | k | c | v | w",
            "false | 1 | 1 | 11 | null",
            "false | 1 | 3 | null | 5"
        ]
    );
}

#[tokio::test]
async fn conditional_batches_stay_in_one_partition_of_one_table() {
    let test = TestNode::with_tables(&[TABLE, OTHER]).await;
    let partitions = [
        "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF v = 0",
        "UPDATE t SET v = 1 WHERE k = 2 AND c = 1",
    ];
    assert_eq!(
        error(&test, &partitions, true).await,
        "Batch with conditions cannot span multiple partitions"
    );
    let tables = [
        "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF v = 0",
        "UPDATE other SET v = 1 WHERE k = 1",
    ];
    assert_eq!(
        error(&test, &tables, true).await,
        "Batch with conditions cannot span multiple tables"
    );
    let in_batch = ["UPDATE t SET v = 1 WHERE k IN (1, 2) AND c = 1 IF v = 0"];
    assert_eq!(
        error(&test, &in_batch, true).await,
        "java.lang.IllegalArgumentException: Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)"
    );
    assert_eq!(error(&test, &[], true).await, "Empty conditional batch");
    assert_eq!(
        test.query("SELECT * FROM t").await,
        ["k | c | s | l | v | w"]
    );
}

#[tokio::test]
async fn in_on_the_key_is_refused_for_conditional_statements() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let cases = [
        (
            "UPDATE t SET v = 1 WHERE k IN (1, 2) AND c = 1 IF v = 0",
            "IN on the partition key is not supported with conditional updates",
        ),
        (
            "DELETE FROM t WHERE k IN (1, 2) AND c = 1 IF EXISTS",
            "IN on the partition key is not supported with conditional deletions",
        ),
        (
            "UPDATE t SET v = 1 WHERE k = 1 AND c IN (1, 2) IF v = 0",
            "IN on the clustering key columns is not supported with conditional updates",
        ),
        (
            "DELETE FROM t WHERE k = 1 AND c IN (1, 2) IF EXISTS",
            "IN on the clustering key columns is not supported with conditional deletions",
        ),
    ];
    for (query, message) in cases {
        assert_eq!(error(&test, &[query], false).await, message, "{query}");
    }
}

#[tokio::test]
async fn a_row_takes_one_kind_of_condition() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let cases = [
        (
            [
                "INSERT INTO t (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS",
                "UPDATE t SET w = 1 WHERE k = 1 AND c = 1 IF EXISTS",
            ],
            "Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row",
        ),
        (
            [
                "INSERT INTO t (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS",
                "UPDATE t SET w = 1 WHERE k = 1 AND c = 1 IF v = 1",
            ],
            "Cannot mix IF conditions and IF NOT EXISTS for the same row",
        ),
        (
            [
                "UPDATE t SET w = 1 WHERE k = 1 AND c = 1 IF v = 1",
                "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS",
            ],
            "Cannot mix IF conditions and IF EXISTS for the same row",
        ),
    ];
    for (statements, message) in cases {
        assert_eq!(error(&test, &statements, true).await, message);
    }
    // The same kind twice on one row is fine.
    let twice = [
        "UPDATE t SET w = 1 WHERE k = 1 AND c = 1 IF EXISTS",
        "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS",
    ];
    assert_eq!(batch(&test, &twice).await, NOT_APPLIED);
}

#[tokio::test]
async fn counter_tables_and_custom_timestamps_take_no_conditions() {
    let test = TestNode::with_tables(&[TABLE, COUNTERS]).await;
    let cases = [
        (
            "UPDATE counts SET n = n + 1 WHERE k = 1 IF EXISTS",
            "Conditional updates are not supported on counter tables",
        ),
        (
            "UPDATE t USING TIMESTAMP 5 SET v = 1 WHERE k = 1 AND c = 1 IF v = 0",
            "Cannot provide custom timestamp for conditional updates",
        ),
    ];
    for (query, message) in cases {
        assert_eq!(error(&test, &[query], false).await, message, "{query}");
    }
}

#[tokio::test]
async fn consistency_levels_are_checked_for_the_write_and_its_paxos_phase() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let query = ["UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS"];
    let cases = [
        (
            SERIAL,
            None,
            "SERIAL is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"",
        ),
        (
            LOCAL_SERIAL,
            Some(SERIAL),
            "LOCAL_SERIAL is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"",
        ),
        (
            ONE,
            Some(ONE),
            "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL",
        ),
    ];
    for (consistency, serial_consistency, message) in cases {
        let options = ExecOptions {
            consistency,
            serial_consistency,
            ..ExecOptions::default()
        };
        let answer = run(&test, &query, false, &options).await;
        assert_eq!(
            answer.err().map(|e| e.to_string()).as_deref(),
            Some(message)
        );
    }
    for serial in [SERIAL, LOCAL_SERIAL] {
        let options = ExecOptions {
            consistency: ONE,
            serial_consistency: Some(serial),
            ..ExecOptions::default()
        };
        let answer = run(&test, &query, false, &options).await.expect("checked");
        assert_eq!(
            crate::executor::write::test_node::render(&answer),
            NOT_APPLIED
        );
    }
    // A plain write may not use a serial level.
    for consistency in [SERIAL, LOCAL_SERIAL] {
        let options = ExecOptions {
            consistency,
            ..ExecOptions::default()
        };
        assert_eq!(
            check_write_consistency(&options).map_err(|e| e.to_string()),
            Err("You must use conditional updates for serializable writes".to_string())
        );
    }
    assert!(check_write_consistency(&options()).is_ok());
}

#[tokio::test]
async fn applied_writes_take_the_servers_timestamp_not_the_requests() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let options = ExecOptions {
        timestamp: Some(5),
        ..options()
    };
    let insert = ["INSERT INTO t (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS"];
    run(&test, &insert, false, &options).await.expect("applied");
    let stored = test.stored("t", &[1], &[1]);
    let marker = stored.liveness.expect("a row marker").timestamp;
    assert!(marker > 5, "the marker's timestamp {marker}");
    assert_eq!(stored.cells[0].1.timestamp, marker);
    // A later conditional write gets a later timestamp, so it wins.
    let update = ["UPDATE t SET v = 2 WHERE k = 1 AND c = 1 IF v = 1"];
    run(&test, &update, false, &options).await.expect("applied");
    let updated = test.stored("t", &[1], &[1]).cells[0].1.timestamp;
    assert!(updated > marker, "{updated} after {marker}");
}
