//! Lightweight transactions through the driver: `[applied]` and the current values Cassandra
//! returns when a condition fails, every condition operator, statics, collection elements and
//! UDT fields, prepared conditions, conditional batches, Cassandra's errors, and no lost
//! update under concurrent compare-and-set.

use std::sync::Arc;

use integration_tests::{query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::batch::Batch;
use scylla::statement::unprepared::Statement;
use scylla::statement::{Consistency, SerialConsistency};
use scylla::value::{CqlValue, Row};

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

/// The result column names of `cql`, and whether it was applied.
async fn cas(session: &Session, cql: &str) -> (bool, Vec<String>) {
    let result = session.query_unpaged(cql, &[]).await.expect(cql);
    let rows = result.into_rows_result().expect("rows");
    let names = rows
        .column_specs()
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    (applied_flag(&rows), names)
}

/// The `[applied]` flag of a conditional statement's answer (its first column).
fn applied_flag(rows: &scylla::response::query_result::QueryRowsResult) -> bool {
    let first: Row = rows.first_row().expect("a row");
    match first.columns.first() {
        Some(Some(CqlValue::Boolean(flag))) => *flag,
        other => panic!("[applied] is not a boolean: {other:?}"),
    }
}

/// Whether `cql` applied, checking the answer has only the `[applied]` column.
async fn applied_only(session: &Session, cql: &str) -> bool {
    let (applied, names) = cas(session, cql).await;
    assert_eq!(names, ["[applied]"], "{cql}");
    applied
}

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run(
        &session,
        "CREATE TABLE t (k int, c int, v int, w text, s int static, PRIMARY KEY (k, c))",
    )
    .await;
    session
}

#[tokio::test]
async fn insert_if_not_exists_returns_the_existing_row_when_not_applied() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    assert!(
        applied_only(
            &session,
            "INSERT INTO t (k, c, v) VALUES (1, 1, 10) IF NOT EXISTS"
        )
        .await
    );
    type Existing = (bool, i32, i32, Option<i32>, Option<i32>, Option<String>);
    let rows: Vec<Existing> = query_rows(
        &session,
        "INSERT INTO t (k, c, v) VALUES (1, 1, 20) IF NOT EXISTS",
        &[],
    )
    .await;
    // [applied], then the whole row in SELECT * order (static s before regular columns).
    assert_eq!(rows, [(false, 1, 1, None, Some(10), None)]);
    let (_, names) = cas(
        &session,
        "INSERT INTO t (k, c, v) VALUES (1, 1, 20) IF NOT EXISTS",
    )
    .await;
    assert_eq!(names, ["[applied]", "k", "c", "s", "v", "w"]);
    let current: Vec<(i32,)> = query_rows(&session, "SELECT v FROM t WHERE k = 1", &[]).await;
    assert_eq!(current, [(10,)]);
    // INSERT JSON takes IF NOT EXISTS too.
    let json = r#"INSERT INTO t JSON '{"k": 1, "c": 1, "v": 30}' IF NOT EXISTS"#;
    assert!(!cas(&session, json).await.0);
    let json = r#"INSERT INTO t JSON '{"k": 1, "c": 2, "v": 30}' IF NOT EXISTS"#;
    assert!(applied_only(&session, json).await);
    let current: Vec<(i32,)> = query_rows(&session, "SELECT v FROM t WHERE k = 1", &[]).await;
    assert_eq!(current, [(10,), (30,)]);
}

#[tokio::test]
async fn if_exists_and_conditions_show_the_condition_columns() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    // A missing row: not applied, and nothing read to show.
    assert!(
        !applied_only(
            &session,
            "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS"
        )
        .await
    );
    assert!(!applied_only(&session, "DELETE FROM t WHERE k = 1 AND c = 1 IF EXISTS").await);
    run(
        &session,
        "INSERT INTO t (k, c, v, w) VALUES (1, 1, 10, 'a')",
    )
    .await;
    assert!(
        applied_only(
            &session,
            "UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF EXISTS"
        )
        .await
    );

    let rows: Vec<(bool, Option<String>, Option<i32>)> = query_rows(
        &session,
        "UPDATE t SET v = 12 WHERE k = 1 AND c = 1 IF w = 'b' AND v = 11",
        &[],
    )
    .await;
    // The condition columns in IF order, not the primary key (outside batches).
    assert_eq!(rows, [(false, Some("a".to_string()), Some(11))]);
    assert!(
        applied_only(
            &session,
            "UPDATE t SET v = 12 WHERE k = 1 AND c = 1 IF w = 'a' AND v = 11"
        )
        .await
    );
    assert!(applied_only(&session, "DELETE FROM t WHERE k = 1 AND c = 1 IF v = 12").await);
    let left: Vec<(i32,)> = query_rows(&session, "SELECT c FROM t WHERE k = 1", &[]).await;
    assert!(left.is_empty());
}

#[tokio::test]
async fn every_operator_compares_like_cassandra() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, c, v) VALUES (1, 1, 5)").await;
    let cases = [
        ("v = 5", true),
        ("v = 6", false),
        ("v != 6", true),
        ("v != 5", false),
        ("v < 6", true),
        ("v < 5", false),
        ("v <= 5", true),
        ("v > 4", true),
        ("v > 5", false),
        ("v >= 5", true),
        ("v >= 6", false),
        ("v IN (1, 5)", true),
        ("v IN (1, 2)", false),
        ("v != null", true),
        ("v = null", false),
        // An absent cell is null: only null equals it, and only != holds otherwise.
        ("w = null", true),
        ("w != 'x'", true),
        ("w > 'a'", false),
        ("w IN ('a', null)", true),
    ];
    for (condition, expected) in cases {
        let cql = format!("UPDATE t SET v = 5 WHERE k = 1 AND c = 1 IF {condition}");
        let (applied, _) = cas(&session, &cql).await;
        assert_eq!(applied, expected, "{condition}");
    }
    let (code, message) = query_error(
        &session,
        "UPDATE t SET v = 5 WHERE k = 1 AND c = 1 IF v < null",
    )
    .await;
    assert_eq!(code, DbError::Invalid);
    assert_eq!(message, "Invalid comparison with null for operator \"<\"");
}

#[tokio::test]
async fn static_conditions_check_the_partition() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, s) VALUES (1, 1)").await;
    // Only static columns: no clustering key needed.
    assert!(applied_only(&session, "UPDATE t SET s = 2 WHERE k = 1 IF s = 1").await);
    let rows: Vec<(bool, Option<i32>)> =
        query_rows(&session, "UPDATE t SET s = 3 WHERE k = 1 IF s = 1", &[]).await;
    assert_eq!(rows, [(false, Some(2))]);
    // A missing clustering row still sees the partition's static value.
    assert!(
        applied_only(
            &session,
            "UPDATE t SET s = 4, v = 1 WHERE k = 1 AND c = 1 IF s = 2 AND v = null"
        )
        .await
    );
    let all: Vec<(i32, i32, Option<i32>, Option<i32>)> =
        query_rows(&session, "SELECT k, c, s, v FROM t WHERE k = 1", &[]).await;
    assert_eq!(all, [(1, 1, Some(4), Some(1))]);
    let (code, message) = query_error(&session, "UPDATE t SET s = 2 WHERE k = 1 IF v = 1").await;
    assert_eq!(code, DbError::Invalid);
    assert_eq!(message, "Some clustering keys are missing: c");
}

#[tokio::test]
async fn elements_fields_and_collections() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TYPE pt (x int, y int)").await;
    run(
        &session,
        "CREATE TABLE c (k int PRIMARY KEY, l list<int>, m map<text, int>, st set<int>, \
         fl frozen<list<int>>, u pt, fu frozen<pt>)",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (k, l, m, st, fl, u, fu) VALUES \
         (1, [1, 2], {'a': 1}, {3}, [7], {x: 1, y: 2}, {x: 5, y: 6})",
    )
    .await;
    let cases = [
        ("l[1] = 2", true),
        ("l[5] = null", true),
        ("l = [1, 2]", true),
        ("l > [1]", true),
        ("m['a'] = 1", true),
        ("m['b'] = null", true),
        ("m['a'] IN (4, 1)", true),
        ("m = {'a': 2}", false),
        ("st = {3}", true),
        ("st CONTAINS 3", true),
        ("m CONTAINS KEY 'a'", true),
        ("m CONTAINS 2", false),
        ("fl = [7]", true),
        ("fl CONTAINS 7", true),
        ("u.x = 1", true),
        ("u.y > 2", false),
        ("u = {x: 1, y: 2}", true),
        ("fu.y = 6", true),
        ("fu = {x: 5, y: 6}", true),
    ];
    for (condition, expected) in cases {
        let cql = format!("UPDATE c SET st = st + {{3}} WHERE k = 1 IF {condition}");
        let (applied, _) = cas(&session, &cql).await;
        assert_eq!(applied, expected, "{condition}");
    }
    let (_, message) = query_error(&session, "UPDATE c SET l = [] WHERE k = 1 IF st[0] = 1").await;
    assert_eq!(message, "Invalid element access syntax for set column st");
    let (_, message) = query_error(&session, "UPDATE c SET l = [] WHERE k = 1 IF l[-1] = 1").await;
    assert_eq!(message, "Invalid negative list index -1");
    let (_, message) = query_error(&session, "UPDATE c SET l = [] WHERE k = 1 IF u.z = 1").await;
    assert_eq!(message, "Unknown field z for column u");
}

#[tokio::test]
async fn prepared_conditions_name_their_markers_and_bind() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE p (k int PRIMARY KEY, v int, l list<text>, m map<text, int>)",
    )
    .await;
    run(
        &session,
        "INSERT INTO p (k, v, l, m) VALUES (1, 1, ['a'], {'x': 1})",
    )
    .await;
    let prepared = session
        .prepare(
            "UPDATE p SET v = ? WHERE k = ? IF v = ? AND l[?] = ? AND m[?] IN ? AND v IN (?, ?)",
        )
        .await
        .unwrap();
    let names: Vec<&str> = prepared
        .get_variable_col_specs()
        .iter()
        .map(|spec| spec.name())
        .collect();
    assert_eq!(
        names,
        [
            "v",
            "k",
            "v",
            "idx(l)",
            "value(l)",
            "key(m)",
            "in(value(m))",
            "v",
            "v"
        ]
    );
    let values = (2, 1, 1, 0, "a", "x", vec![1, 5], 7, 1);
    let result = session.execute_unpaged(&prepared, &values).await.unwrap();
    let rows = result.into_rows_result().unwrap();
    assert_eq!(rows.single_row::<(bool,)>().unwrap(), (true,));
    // Now v = 2: the same values no longer apply, and the result shows v, l, m.
    let result = session.execute_unpaged(&prepared, &values).await.unwrap();
    let rows = result.into_rows_result().unwrap();
    let names: Vec<&str> = rows.column_specs().iter().map(|s| s.name()).collect();
    assert_eq!(names, ["[applied]", "v", "l", "m"]);
    type Current = (
        bool,
        i32,
        Vec<String>,
        std::collections::BTreeMap<String, i32>,
    );
    let (applied, v, l, m): Current = rows.single_row().unwrap();
    assert_eq!((applied, v, l), (false, 2, vec!["a".to_string()]));
    assert_eq!(m.get("x"), Some(&1));
    // An unset value in a condition is refused.
    let unset = session
        .prepare("UPDATE p SET v = 3 WHERE k = 1 IF v = ?")
        .await
        .unwrap();
    let err = session
        .execute_unpaged(&unset, (scylla::value::MaybeUnset::<i32>::Unset,))
        .await
        .unwrap_err();
    let (_, message) = integration_tests::db_error(&err).unwrap();
    assert_eq!(message, "Invalid 'unset' value in condition");
}

#[tokio::test]
async fn conditional_batches_apply_all_or_nothing() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, c, v, s) VALUES (1, 1, 10, 1)").await;
    run(&session, "INSERT INTO t (k, c, v) VALUES (1, 2, 20)").await;
    let failing = "BEGIN BATCH \
        UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF v = 10; \
        UPDATE t SET v = 21 WHERE k = 1 AND c = 2 IF v = 99; \
        APPLY BATCH";
    let rows: Vec<(bool, i32, i32, Option<i32>)> = query_rows(&session, failing, &[]).await;
    // One row per checked row, with the primary key to tell them apart.
    assert_eq!(rows, [(false, 1, 1, Some(10)), (false, 1, 2, Some(20))]);
    let applying = "BEGIN BATCH \
        UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF v = 10; \
        UPDATE t SET s = 2 WHERE k = 1 IF s = 1; \
        INSERT INTO t (k, c, v) VALUES (1, 3, 30) IF NOT EXISTS; \
        APPLY BATCH";
    assert!(applied_only(&session, applying).await);
    let all: Vec<(i32, Option<i32>, Option<i32>)> =
        query_rows(&session, "SELECT c, s, v FROM t WHERE k = 1", &[]).await;
    assert_eq!(
        all,
        [
            (1, Some(2), Some(11)),
            (2, Some(2), Some(20)),
            (3, Some(2), Some(30))
        ]
    );

    // The same through a BATCH message.
    let mut batch = Batch::default();
    batch.append_statement("UPDATE t SET v = ? WHERE k = 1 AND c = 1 IF v = ?");
    batch.append_statement("DELETE FROM t WHERE k = 1 AND c = 2 IF EXISTS");
    let result = session.batch(&batch, ((12, 11), ())).await.unwrap();
    assert!(applied_flag(&result.into_rows_result().unwrap()));

    let (code, message) = query_error(
        &session,
        "BEGIN BATCH UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; \
         UPDATE t SET v = 1 WHERE k = 2 AND c = 1; APPLY BATCH",
    )
    .await;
    assert_eq!(code, DbError::Invalid);
    assert_eq!(
        message,
        "Batch with conditions cannot span multiple partitions"
    );
}

#[tokio::test]
async fn cassandra_errors_for_conditional_statements() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(
        &session,
        "CREATE TABLE counts (k int PRIMARY KEY, n counter)",
    )
    .await;
    run(&session, "CREATE TABLE d (k int PRIMARY KEY, t duration)").await;
    let cases = [
        (
            "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF k = 1",
            "PRIMARY KEY column 'k' cannot have IF conditions",
        ),
        (
            "UPDATE t USING TIMESTAMP 5 SET v = 1 WHERE k = 1 AND c = 1 IF v = 1",
            "Cannot provide custom timestamp for conditional updates",
        ),
        (
            "UPDATE t USING TIMESTAMP 5 SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS",
            "Cannot provide custom timestamp for conditional updates",
        ),
        (
            "UPDATE counts SET n = n + 1 WHERE k = 1 IF EXISTS",
            "Conditional updates are not supported on counter tables",
        ),
        (
            "UPDATE t SET v = 1 WHERE k IN (1, 2) AND c = 1 IF v = 1",
            "IN on the partition key is not supported with conditional updates",
        ),
        (
            "DELETE FROM t WHERE k = 1 AND c IN (1, 2) IF v = 1",
            "IN on the clustering key columns is not supported with conditional deletions",
        ),
        (
            "DELETE FROM t WHERE k = 1 IF EXISTS",
            "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete non static columns",
        ),
        (
            "UPDATE d SET t = 1h WHERE k = 1 IF t > 1h",
            "Slice conditions ( > ) are not supported on durations",
        ),
        (
            "UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF v CONTAINS 1",
            "Cannot use CONTAINS on non-collection column v",
        ),
    ];
    for (cql, expected) in cases {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(code, DbError::Invalid, "{cql}");
        assert_eq!(message, expected, "{cql}");
    }
}

#[tokio::test]
async fn serial_consistency_is_for_conditional_writes_only() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let mut plain = Statement::new("INSERT INTO t (k, c, v) VALUES (1, 1, 1)");
    plain.set_consistency(Consistency::Serial);
    let err = session.query_unpaged(plain, &[]).await.unwrap_err();
    let (code, message) = integration_tests::db_error(&err).unwrap();
    assert_eq!(code, DbError::Invalid);
    assert_eq!(
        message,
        "You must use conditional updates for serializable writes"
    );

    let mut conditional = Statement::new("INSERT INTO t (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS");
    conditional.set_serial_consistency(Some(SerialConsistency::LocalSerial));
    let result = session.query_unpaged(conditional, &[]).await.unwrap();
    let rows = result.into_rows_result().unwrap();
    assert_eq!(rows.single_row::<(bool,)>().unwrap(), (true,));

    let mut read = Statement::new("SELECT v FROM t WHERE k = 1 AND c = 1");
    read.set_consistency(Consistency::Serial);
    let result = session.query_unpaged(read, &[]).await.unwrap();
    let rows = result.into_rows_result().unwrap();
    assert_eq!(rows.single_row::<(i32,)>().unwrap(), (1,));
}

#[tokio::test]
async fn concurrent_compare_and_set_loses_no_update() {
    let server = TestServer::start().await;
    let session = Arc::new(table(&server).await);
    run(&session, "INSERT INTO t (k, c, v) VALUES (1, 1, 0)").await;
    let read = session
        .prepare("SELECT v FROM t WHERE k = 1 AND c = 1")
        .await
        .unwrap();
    let bump = session
        .prepare("UPDATE t SET v = ? WHERE k = 1 AND c = 1 IF v = ?")
        .await
        .unwrap();
    const TASKS: i32 = 4;
    const PER_TASK: i32 = 15;
    let mut handles = Vec::new();
    for _ in 0..TASKS {
        let (session, read, bump) = (session.clone(), read.clone(), bump.clone());
        handles.push(tokio::spawn(async move {
            let mut done = 0;
            while done < PER_TASK {
                let result = session.execute_unpaged(&read, ()).await.unwrap();
                let (current,): (i32,) = result.into_rows_result().unwrap().single_row().unwrap();
                let result = session
                    .execute_unpaged(&bump, (current + 1, current))
                    .await
                    .unwrap();
                if applied_flag(&result.into_rows_result().unwrap()) {
                    done += 1;
                }
            }
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }
    let result = session.execute_unpaged(&read, ()).await.unwrap();
    let (total,): (i32,) = result.into_rows_result().unwrap().single_row().unwrap();
    assert_eq!(total, TASKS * PER_TASK);
}
