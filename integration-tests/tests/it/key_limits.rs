//! The 64 KiB key limit as Cassandra 5.0 applies it: to the serialized partition key whole
//! (a compound key's `CompositeType` form, 3 bytes of framing per component), on reads and
//! writes, and to a written row's clustering values summed.

use integration_tests::{query_error, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;

async fn too_long(
    session: &Session,
    cql: &str,
    values: (String, String, String, String),
    length: usize,
) {
    let err = session.query_unpaged(cql, values).await.expect_err(cql);
    assert_eq!(
        integration_tests::db_error(&err),
        Some((
            DbError::Invalid,
            format!("Key length of {length} is longer than maximum of 65535")
        )),
        "{cql}"
    );
}

fn x(n: usize) -> String {
    "x".repeat(n)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compound_partition_keys_and_clusterings_are_limited_whole() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (a text, b text, c text, d text, v int, PRIMARY KEY ((a, b), c, d))",
            &[],
        )
        .await
        .unwrap();
    let insert = "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)";
    // Each component fits alone; the composite (40003 + 30003 bytes) does not.
    too_long(
        &session,
        insert,
        (x(40_000), x(30_000), "c".into(), "d".into()),
        70_006,
    )
    .await;
    too_long(
        &session,
        "SELECT v FROM t WHERE a = ? AND b = ? AND c = ? AND d = ?",
        (x(40_000), x(30_000), "c".into(), "d".into()),
        70_006,
    )
    .await;
    // The clustering values are summed: 40000 + 30000.
    too_long(
        &session,
        insert,
        ("a".into(), "b".into(), x(40_000), x(30_000)),
        70_000,
    )
    .await;
    too_long(
        &session,
        "UPDATE t SET v = 1 WHERE a = ? AND b = ? AND c = ? AND d = ?",
        ("a".into(), "b".into(), x(40_000), x(30_000)),
        70_000,
    )
    .await;
    // Just within both limits: written and read back.
    let (a, b) = (x(32_000), x(33_000));
    let (c, d) = (x(30_000), x(35_535));
    session
        .query_unpaged(
            "INSERT INTO t (a, b, c, d, v) VALUES (?, ?, ?, ?, 7)",
            (&a, &b, &c, &d),
        )
        .await
        .expect("a key within 64 KiB");
    let (v,): (i32,) = query_single_row(
        &session,
        "SELECT v FROM t WHERE a = ? AND b = ? AND c = ? AND d = ?",
        (&a, &b, &c, &d),
    )
    .await;
    assert_eq!(v, 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_column_key_takes_exactly_65535_bytes() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE s (k text PRIMARY KEY, v int)", &[])
        .await
        .unwrap();
    let longest = x(65_535);
    session
        .query_unpaged("INSERT INTO s (k, v) VALUES (?, 1)", (&longest,))
        .await
        .expect("65535 bytes fit");
    let (v,): (i32,) = query_single_row(&session, "SELECT v FROM s WHERE k = ?", (&longest,)).await;
    assert_eq!(v, 1);
    let err = session
        .query_unpaged("INSERT INTO s (k, v) VALUES (?, 1)", (x(65_536),))
        .await
        .expect_err("one byte over");
    assert_eq!(
        integration_tests::db_error(&err),
        Some((
            DbError::Invalid,
            "Key length of 65536 is longer than maximum of 65535".to_string()
        ))
    );
    let (code, message) = query_error(&session, "INSERT INTO s (k, v) VALUES ('', 1)").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, "Key may not be empty")
    );
}
