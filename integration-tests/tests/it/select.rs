//! SELECT shapes of the key-order planner: token ranges and their errors.

use integration_tests::{db_error, TestServer};
use scylla::errors::DbError;

async fn setup(server: &TestServer) -> scylla::client::session::Session {
    let session = server.session().await;
    session
        .query_unpaged("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &[])
        .await
        .unwrap();
    session.use_keyspace("ks", false).await.unwrap();
    session
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_ranges_scan_in_token_order_and_split_the_ring() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    session
        .query_unpaged(
            "CREATE TABLE t (a int, b text, v int, PRIMARY KEY ((a, b)))",
            &[],
        )
        .await
        .unwrap();
    for a in 0..40 {
        session
            .query_unpaged("INSERT INTO t (a, b, v) VALUES (?, 'x', ?)", (a, a * 10))
            .await
            .unwrap();
    }
    let all: Vec<(i64, i32)> = session
        .query_unpaged("SELECT token(a, b), a FROM t", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .rows::<(i64, i32)>()
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(all.len(), 40);
    assert!(
        all.windows(2).all(|w| w[0].0 <= w[1].0),
        "whole-table scans come in token order"
    );
    // Split the ring at the median token: the two halves partition the rows.
    let mid = all[20].0;
    let count = |cql: &'static str| {
        let session = &session;
        async move {
            session
                .query_unpaged(cql, (mid,))
                .await
                .unwrap()
                .into_rows_result()
                .unwrap()
                .rows_num()
        }
    };
    let low = count("SELECT a FROM t WHERE token(a, b) <= ?").await;
    let high = count("SELECT a FROM t WHERE token(a, b) > ?").await;
    assert_eq!((low, high), (21, 19));
    let rows = session
        .query_unpaged(
            "SELECT a FROM t WHERE token(a, b) > ? AND token(a, b) <= ?",
            (all[4].0, all[9].0),
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let got: Vec<i32> = rows
        .rows::<(i32,)>()
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    let expected: Vec<i32> = all[5..=9].iter().map(|r| r.1).collect();
    assert_eq!(got, expected);
    // A range whose start is past its end selects nothing (no wrap-around).
    let rows = session
        .query_unpaged(
            "SELECT a FROM t WHERE token(a, b) > ? AND token(a, b) <= ?",
            (all[9].0, all[4].0),
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_misuse_is_rejected_word_for_word() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    session
        .query_unpaged(
            "CREATE TABLE t (k1 uuid, k2 text, PRIMARY KEY ((k1, k2)))",
            &[],
        )
        .await
        .unwrap();
    let cases = [
        ("SELECT token(k1) FROM t", "Invalid number of arguments in call to function system.token: 2 required but 1 provided"),
        ("SELECT token(k2, k1) FROM t", "Type error: k2 cannot be passed as argument 0 of function system.token of type uuid"),
        ("SELECT * FROM t WHERE token(k1) > 0", "The token() function must be applied to all partition key components or none of them"),
        ("SELECT * FROM t WHERE token(k2, k1) > 0", "The token function arguments must be in the partition key order: k1, k2"),
        ("SELECT * FROM t WHERE token(k1, k2) > 0 AND token(k1, k2) > 1", "More than one restriction was found for the start bound on token(k1, k2)"),
    ];
    for (cql, message) in cases {
        let err = session.query_unpaged(cql, &[]).await.unwrap_err();
        assert_eq!(
            db_error(&err),
            Some((DbError::Invalid, message.to_string())),
            "{cql}"
        );
    }
}
