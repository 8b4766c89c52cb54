//! Static columns through the driver: one value per partition, written with or without a
//! clustering row, read by every row of the partition, and shown for partitions without rows
//! exactly when Cassandra shows them.

use integration_tests::{query_all_pages, query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k int, c int, r int, s int static, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    session
}

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

type Row = (i32, Option<i32>, Option<i32>, Option<i32>);

#[tokio::test]
async fn static_values_belong_to_the_partition() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, c, r, s) VALUES (1, 1, 10, 7)").await;
    run(&session, "INSERT INTO t (k, c, r) VALUES (1, 2, 20)").await;
    // Written without a clustering key, the static value changes for every row.
    run(&session, "UPDATE t SET s = 8 WHERE k = 1").await;
    // A partition holding only a static value.
    run(&session, "INSERT INTO t (k, s) VALUES (2, 9)").await;

    // SELECT * puts static columns before regular ones, as Cassandra does.
    let rows: Vec<Row> = query_rows(&session, "SELECT * FROM t", &[]).await;
    let mut sorted = rows.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            (1, Some(1), Some(8), Some(10)),
            (1, Some(2), Some(8), Some(20)),
            (2, None, Some(9), None),
        ]
    );
    // Paging one row at a time returns the same rows, static-only partition included.
    let paged: Vec<Row> = query_all_pages(&session, "SELECT * FROM t", 1).await;
    assert_eq!(paged, rows);

    // The static-only partition shows only when a static column is read (or DISTINCT).
    let regular: Vec<(Option<i32>,)> =
        query_rows(&session, "SELECT r FROM t WHERE k = 2", &[]).await;
    assert!(regular.is_empty());
    let distinct: Vec<(i32, Option<i32>)> = query_rows(
        &session,
        "SELECT DISTINCT k, s FROM t WHERE k IN (1, 2)",
        &[],
    )
    .await;
    assert_eq!(distinct, [(1, Some(8)), (2, Some(9))]);
    // A clustering restriction selects rows, never the static content alone.
    let restricted: Vec<Row> =
        query_rows(&session, "SELECT * FROM t WHERE k = 2 AND c = 1", &[]).await;
    assert!(restricted.is_empty());
    // A slice still reads the static value into each row.
    let slice: Vec<(i32, Option<i32>)> =
        query_rows(&session, "SELECT c, s FROM t WHERE k = 1 AND c > 1", &[]).await;
    assert_eq!(slice, [(2, Some(8))]);
}

#[tokio::test]
async fn static_deletes_and_clustering_deletes_stay_apart() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, c, r, s) VALUES (1, 1, 10, 7)").await;
    run(&session, "INSERT INTO t (k, c, r) VALUES (1, 5, 50)").await;
    // A clustering range delete leaves the static value alone.
    run(&session, "DELETE FROM t WHERE k = 1 AND c < 3").await;
    let rows: Vec<Row> = query_rows(&session, "SELECT * FROM t WHERE k = 1", &[]).await;
    assert_eq!(rows, [(1, Some(5), Some(7), Some(50))]);
    // Deleting the static column by partition key alone.
    run(&session, "DELETE s FROM t WHERE k = 1").await;
    let rows: Vec<Row> = query_rows(&session, "SELECT * FROM t WHERE k = 1", &[]).await;
    assert_eq!(rows, [(1, Some(5), None, Some(50))]);
    // A partition delete removes the static row too.
    run(&session, "UPDATE t SET s = 3 WHERE k = 1").await;
    run(&session, "DELETE FROM t WHERE k = 1").await;
    let rows: Vec<Row> = query_rows(&session, "SELECT * FROM t WHERE k = 1", &[]).await;
    assert!(rows.is_empty());
}

#[tokio::test]
async fn static_rules_use_cassandra_messages() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    for (cql, expected) in [
        (
            "UPDATE t SET r = 1 WHERE k = 1",
            "Some clustering keys are missing: c",
        ),
        (
            "INSERT INTO t (k, r) VALUES (1, 1)",
            "Some clustering keys are missing: c",
        ),
        (
            "DELETE r FROM t WHERE k = 1",
            "Range deletions are not supported for specific columns",
        ),
        (
            "CREATE TABLE bad (k int PRIMARY KEY, s int static)",
            "Static columns are only useful (and thus allowed) if the table has at least one clustering column",
        ),
    ] {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!((code, message.as_str()), (DbError::Invalid, expected), "{cql}");
    }
}
