//! EXPLAIN and EXPLAIN ANALYZE (our extension): the plan as rows of one `plan` text column,
//! unprepared and prepared, and the counts of an analyzed run.

use integration_tests::{query_rows, session_in, TestServer};
use scylla::client::session::Session;

async fn table(session: &Session) {
    session
        .query_unpaged(
            "CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
        .await
        .unwrap();
    for c in 0..10 {
        session
            .execute_unpaged(&insert, (1, c, c * 10))
            .await
            .unwrap();
    }
}

/// The `plan` lines of an unprepared statement.
async fn plan(session: &Session, cql: &str) -> Vec<String> {
    query_rows::<(String,)>(session, cql, &[])
        .await
        .into_iter()
        .map(|(line,)| line)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_describes_the_plan_in_a_plan_column() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    table(&session).await;
    let result = session
        .query_unpaged("EXPLAIN SELECT v FROM ks.t WHERE k = 1 AND c > 3", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let names: Vec<&str> = result.column_specs().iter().map(|s| s.name()).collect();
    assert_eq!(names, ["plan"]);
    let lines: Vec<String> = result
        .rows::<(String,)>()
        .unwrap()
        .map(|row| row.unwrap().0)
        .collect();
    assert_eq!(
        lines,
        [
            "SELECT from ks.t, primary key ((k), c)",
            "Partition key: k = 1 (equality)",
            "Clustering slice: c > 3",
            "Order: partitions in key order, rows in clustering order",
            "Examines: a clustering range of one partition",
        ]
    );
    // Nothing ran: EXPLAIN of a write writes nothing.
    let lines = plan(
        &session,
        "EXPLAIN INSERT INTO ks.t (k, c, v) VALUES (2, 0, 0)",
    )
    .await;
    assert_eq!(lines.last().map(String::as_str), Some("Writes: one row"));
    let rows = query_rows::<(i32,)>(&session, "SELECT v FROM ks.t WHERE k = 2", &[]).await;
    assert!(rows.is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_explain_binds_like_its_statement() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    table(&session).await;
    let prepared = session
        .prepare("EXPLAIN ANALYZE SELECT v FROM ks.t WHERE k = ? AND c IN ?")
        .await
        .unwrap();
    let binds: Vec<&str> = prepared
        .get_variable_col_specs()
        .iter()
        .map(|spec| spec.name())
        .collect();
    assert_eq!(binds, ["k", "in(c)"]);
    let guard = prepared.get_current_result_set_col_specs();
    let results: Vec<&str> = guard.get().iter().map(|spec| spec.name()).collect();
    assert_eq!(results, ["plan"]);
    let rows = session
        .execute_unpaged(&prepared, (1, vec![2, 4, 40]))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let lines: Vec<String> = rows
        .rows::<(String,)>()
        .unwrap()
        .map(|row| row.unwrap().0)
        .collect();
    assert_eq!(lines[1], "Partition key: k = ? (equality)");
    assert_eq!(lines[2], "Clustering prefix: c IN ?");
    assert_eq!(lines[4], "Examines: one row per key, in one partition");
    assert_eq!(
        lines[5..9],
        [
            "Partitions touched: 1",
            "Rows examined: 2",
            "Tombstones examined: 0",
            "Rows returned: 2",
        ]
    );
    assert!(
        lines[9].starts_with("Time: ") && lines[9].ends_with(" ms"),
        "{lines:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_analyze_runs_the_statement_and_counts_its_read() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    table(&session).await;
    for c in [1, 2, 3] {
        session
            .query_unpaged(format!("DELETE FROM ks.t WHERE k = 1 AND c = {c}"), &[])
            .await
            .unwrap();
    }
    let lines = plan(
        &session,
        "EXPLAIN ANALYZE SELECT * FROM ks.t WHERE k = 1 AND v > 50 ALLOW FILTERING",
    )
    .await;
    assert_eq!(
        lines[..6],
        [
            "SELECT from ks.t, primary key ((k), c)",
            "Partition key: k = 1 (equality)",
            "Filtering (ALLOW FILTERING): v checked row by row",
            "Order: partitions in key order, rows in clustering order",
            "Examines: all rows of one partition",
            "Partitions touched: 1",
        ]
    );
    assert_eq!(
        lines[6..9],
        [
            "Rows examined: 10",
            "Tombstones examined: 3",
            "Rows returned: 4",
        ]
    );
    let lines = plan(
        &session,
        "EXPLAIN ANALYZE INSERT INTO ks.t (k, c, v) VALUES (3, 0, 7)",
    )
    .await;
    assert_eq!(lines[3], "Writes: one row");
    assert_eq!(lines[4], "Partitions touched: 1");
    let rows = query_rows::<(i32,)>(&session, "SELECT v FROM ks.t WHERE k = 3", &[]).await;
    assert_eq!(rows, [(7,)]);
    server.stop().await;
}

/// An index on a regular column is read for its entries; one on a clustering column has
/// none, and EXPLAIN says the rows read are checked instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_tells_which_indexes_are_read() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    table(&session).await;
    for cql in [
        "CREATE INDEX v_idx ON ks.t (v)",
        "CREATE INDEX c_idx ON ks.t (c)",
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    let read = plan(&session, "EXPLAIN SELECT k FROM ks.t WHERE v = 10").await;
    assert!(
        read.contains(&"Secondary index: v_idx on v (its entries list the candidate rows; each is checked against its row)".to_string()),
        "{read:?}"
    );
    let filtered = plan(&session, "EXPLAIN SELECT k FROM ks.t WHERE c = 1").await;
    assert!(
        filtered.contains(&"Secondary index: c_idx on c (allows the query; the rows read are checked against its restriction)".to_string()),
        "{filtered:?}"
    );
}
