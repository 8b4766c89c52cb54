//! Empty values in keys, as Cassandra 5.0 takes them: a single-column partition key may not
//! be empty (`Key may not be empty`, on reads, writes and conditional writes alike), while a
//! compound partition key's components and clustering values may be, since their serialized
//! forms never are.

use integration_tests::{query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;

/// `[applied]` and the existing row of a conditional INSERT into `c`.
type ConditionalInsert = (
    bool,
    Option<String>,
    Option<Vec<u8>>,
    Option<String>,
    Option<Vec<u8>>,
    Option<i32>,
);

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_single_column_partition_key_is_refused() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE t (k text PRIMARY KEY, v int)").await;
    run(
        &session,
        "CREATE TABLE b (k blob, c int, v int, PRIMARY KEY (k, c))",
    )
    .await;
    for cql in [
        "INSERT INTO t (k, v) VALUES ('', 1)",
        "UPDATE t SET v = 1 WHERE k = ''",
        "DELETE FROM t WHERE k = ''",
        "SELECT * FROM t WHERE k = ''",
        "SELECT * FROM t WHERE k IN ('a', '')",
        "INSERT INTO t (k, v) VALUES ('', 1) IF NOT EXISTS",
        "INSERT INTO b (k, c, v) VALUES (0x, 1, 1)",
        "SELECT * FROM b WHERE k = 0x AND c = 1",
    ] {
        assert_eq!(
            query_error(&session, cql).await,
            (DbError::Invalid, "Key may not be empty".to_string()),
            "{cql}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_compound_components_and_clustering_values_are_kept() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE c (a text, b blob, c text, d blob, v int, PRIMARY KEY ((a, b), c, d))",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (a, b, c, d, v) VALUES ('', 0x, '', 0x, 1)",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (a, b, c, d, v) VALUES ('', 0x, 'x', 0x, 2)",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (a, b, c, d, v) VALUES ('a', 0x, '', 0x01, 3)",
    )
    .await;
    let rows: Vec<(String, String, i32)> = query_rows(
        &session,
        "SELECT a, c, v FROM c WHERE a = '' AND b = 0x",
        &[],
    )
    .await;
    assert_eq!(
        rows,
        [
            (String::new(), String::new(), 1),
            (String::new(), "x".into(), 2)
        ]
    );
    run(
        &session,
        "UPDATE c SET v = 4 WHERE a = '' AND b = 0x AND c = '' AND d = 0x",
    )
    .await;
    run(
        &session,
        "DELETE FROM c WHERE a = 'a' AND b = 0x AND c = '' AND d = 0x01",
    )
    .await;
    let rows: Vec<(String, i32)> = query_rows(&session, "SELECT a, v FROM c", &[]).await;
    assert_eq!(rows, [(String::new(), 4), (String::new(), 2)]);
    let applied: Vec<ConditionalInsert> = query_rows(
        &session,
        "INSERT INTO c (a, b, c, d, v) VALUES ('', 0x, '', 0x, 9) IF NOT EXISTS",
        &[],
    )
    .await;
    assert!(!applied[0].0, "the row with empty components exists");
    assert_eq!(applied[0].5, Some(4), "and the existing row is returned");
}
