//! Statement-validation answers audited against Cassandra 5.0's source (issue 40, family 7):
//! the cases where this server's code, words or behaviour differed from 5.0's, each checked
//! for its code and full message through the driver.

use cql::frame::request::{Query, Request, Value};
use cql::frame::response::Response;
use integration_tests::{
    db_error, default_params, query_error, query_rows, session_in, RawConnection, TestServer,
};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::batch::{Batch, BatchType};

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

/// A keyspace `ks` with `t (k, c, v, w)`, an index on `v`, and rows `(1, 1..=3)`.
async fn setup(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run(
        &session,
        "CREATE TABLE t (k int, c int, v text, w int, PRIMARY KEY (k, c))",
    )
    .await;
    run(&session, "CREATE INDEX ON t (v)").await;
    for c in 1..=3 {
        run(
            &session,
            &format!("INSERT INTO t (k, c, v, w) VALUES (1, {c}, 'x', {c})"),
        )
        .await;
    }
    session
}

async fn refused(session: &Session, cql: &str, code: DbError, message: &str) {
    assert_eq!(
        query_error(session, cql).await,
        (code, message.to_string()),
        "{cql}"
    );
}

/// 5.0's `verifyOrderingIsAllowed` refuses ORDER BY in a query that reads a secondary index,
/// with or without the partition key; without an index the ordering stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_by_is_refused_with_a_secondary_index() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    let message = "ORDER BY with 2ndary indexes is not supported, except for ANN queries.";
    for cql in [
        "SELECT c FROM t WHERE k = 1 AND v = 'x' ORDER BY c DESC",
        "SELECT c FROM t WHERE v = 'x' ORDER BY c DESC",
    ] {
        refused(&session, cql, DbError::Invalid, message).await;
    }
    let rows: Vec<(i32,)> = query_rows(
        &session,
        "SELECT c FROM t WHERE k = 1 AND w > 1 ORDER BY c DESC ALLOW FILTERING",
        (),
    )
    .await;
    assert_eq!(rows, vec![(3,), (2,)]);
    // An error of a later ORDER BY column comes before the mixed directions are found.
    refused(
        &session,
        "SELECT c FROM t WHERE k = 1 ORDER BY c DESC, w ASC",
        DbError::Invalid,
        "Order by is currently only supported on the clustered columns of the PRIMARY KEY, got w",
    )
    .await;
}

/// CREATE TABLE's parser-time checks name the table as written; CLUSTERING ORDER lists the
/// columns outside the clustering key, and refuses a column named twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_messages_are_5_0s() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    for (cql, message) in [
        (
            "CREATE TABLE ks.x (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c ASC, v DESC)",
            "Only clustering key columns can be defined in CLUSTERING ORDER directive: [v] are not clustering columns",
        ),
        (
            "CREATE TABLE x (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c ASC, c DESC)",
            "Duplicate column 'c' in CLUSTERING ORDER BY clause for table 'x'",
        ),
        (
            "CREATE TABLE ks.x (k int, v int)",
            "No PRIMARY KEY specifed for table 'ks.x' (exactly one required)",
        ),
        (
            "CREATE TABLE ks.x (k int PRIMARY KEY, v int, v text)",
            "Duplicate column 'v' declaration for table 'ks.x'",
        ),
        (
            "CREATE TABLE ks.x (k int PRIMARY KEY, v int, PRIMARY KEY (k))",
            "Multiple PRIMARY KEY specified for table 'ks.x' (exactly one required)",
        ),
        (
            "CREATE TABLE ks.x (k int, c int, PRIMARY KEY (k, c, z))",
            "Unknown column 'z' referenced in PRIMARY KEY for table 'x'",
        ),
    ] {
        refused(&session, cql, DbError::Invalid, message).await;
    }
}

/// A DELETE of a regular column needs the whole primary key: 5.0 deletes a clustering
/// prefix or the whole partition as a range, which takes no column.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_column_over_a_range_is_refused() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    refused(
        &session,
        "DELETE w FROM t WHERE k = 1",
        DbError::Invalid,
        "Range deletions are not supported for specific columns",
    )
    .await;
    let rows: Vec<(i32,)> = query_rows(&session, "SELECT w FROM t WHERE k = 1", ()).await;
    assert_eq!(rows, vec![(1,), (2,), (3,)]);
}

/// A conditional update takes `IN` of one value as `=`, refuses a real `IN`, and a
/// conditional batch with `IN` on the partition key fails as 5.0's does: a server error
/// carrying the `IllegalArgumentException`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conditional_updates_treat_in_as_5_0_does() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    let applied: Vec<(bool,)> = query_rows(
        &session,
        "UPDATE t SET w = 10 WHERE k IN (1) AND c IN (1) IF w = 1",
        (),
    )
    .await;
    assert_eq!(applied, vec![(true,)]);
    let rows: Vec<(i32,)> = query_rows(&session, "SELECT w FROM t WHERE k = 1 AND c = 1", ()).await;
    assert_eq!(rows, vec![(10,)]);
    refused(
        &session,
        "UPDATE t SET w = 11 WHERE k IN (1, 2) AND c = 1 IF w = 10",
        DbError::Invalid,
        "IN on the partition key is not supported with conditional updates",
    )
    .await;
    let mut batch = Batch::new(BatchType::Logged);
    batch.append_statement("UPDATE t SET w = 12 WHERE k IN (1, 2) AND c = 1 IF w = 10");
    let err = session
        .batch(&batch, ((),))
        .await
        .expect_err("conditional batch with IN");
    assert_eq!(
        db_error(&err),
        Some((
            DbError::ServerError,
            "java.lang.IllegalArgumentException: Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)".to_string()
        ))
    );
}

/// A bound value that does not fit its column is refused with the serializer's message
/// alone, as 5.0's `Constants.Marker.bindAndGet` answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bound_values_are_refused_with_the_serializers_message() {
    let server = TestServer::start().await;
    let _session = setup(&server).await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    for (stream, cql, value, message) in [
        (
            1,
            "INSERT INTO ks.t (k, c, v) VALUES (1, 9, ?)",
            &[0xC3, 0x28][..],
            "String didn't validate.",
        ),
        (
            2,
            "INSERT INTO ks.t (k, c, w) VALUES (1, 9, ?)",
            &[0, 0, 0, 0, 0, 0, 0, 1][..],
            "Expected 4 or 0 byte int (8)",
        ),
    ] {
        let mut params = default_params();
        params.values = vec![Value::Bytes(bytes::Bytes::copy_from_slice(value))];
        let query = Query {
            query: cql.into(),
            params,
        };
        raw.send(stream, &Request::Query(query)).await;
        let (_, _, response) = raw.recv().await.expect("a response");
        let Response::Error(err) = response else {
            panic!("{response:?}")
        };
        assert_eq!((err.code, err.message.as_str()), (0x2200, message));
    }
}

/// Messages reworded to 5.0's: toJson outside a selection, a SELECT in a batch, a
/// non-ASCII constant for an ascii column, LocalStrategy (refused as Invalid), DESCRIBE of a missing index, function or aggregate,
/// and a storage-attached index over several columns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reworded_messages_are_5_0s() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    let err = session
        .prepare("INSERT INTO t (k, c, v) VALUES (1, 1, toJson(?))")
        .await
        .expect_err("toJson in VALUES");
    assert_eq!(
        integration_tests::prepare_db_error(&err),
        Some((
            DbError::Invalid,
            "toJson() may only be used within the selection clause of SELECT statements"
                .to_string()
        ))
    );
    let select = session
        .prepare("SELECT * FROM t WHERE k = 1")
        .await
        .expect("prepare");
    let mut batch = Batch::new(BatchType::Logged);
    batch.append_statement(select);
    let err = session
        .batch(&batch, ((),))
        .await
        .expect_err("SELECT in a batch");
    assert_eq!(
        db_error(&err),
        Some((
            DbError::Invalid,
            "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed."
                .to_string()
        ))
    );
    run(&session, "CREATE TABLE a (k int PRIMARY KEY, s ascii)").await;
    refused(
        &session,
        "INSERT INTO a (k, s) VALUES (1, 'caf\u{e9}')",
        DbError::Invalid,
        "Invalid ASCII character in string literal: java.nio.charset.UnmappableCharacterException: Input length = 1",
    )
    .await;
    refused(
        &session,
        "CREATE KEYSPACE local WITH replication = {'class': 'LocalStrategy'}",
        DbError::Invalid,
        "Unable to use given strategy class: LocalStrategy is reserved for internal use.",
    )
    .await;
    for (cql, message) in [
        (
            "DESCRIBE INDEX ks.nope",
            "Table for existing index 'nope' not found in 'ks'",
        ),
        (
            "DESCRIBE FUNCTION ks.f",
            "User defined function 'f' not found in 'ks'",
        ),
        (
            "DESCRIBE AGGREGATE ks.a",
            "User defined aggregate 'a' not found in 'ks'",
        ),
        ("DESCRIBE INDEX nope.i", "'nope' not found in keyspaces"),
    ] {
        refused(&session, cql, DbError::Invalid, message).await;
    }
    refused(
        &session,
        "CREATE CUSTOM INDEX ON t (v, w) USING 'StorageAttachedIndex'",
        DbError::Invalid,
        "A storage-attached index cannot be created over multiple columns: v, w",
    )
    .await;
}
