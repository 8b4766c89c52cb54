//! Counter tables through the driver: increments and decrements applied as deltas (exact
//! under concurrency), deletion, the `counter` type in results and schema tables, and every
//! refused form with Cassandra's message.

use std::sync::Arc;

use integration_tests::{query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::{Counter, MaybeUnset};

async fn counters(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run(
        &session,
        "CREATE TABLE c (k int, ck int, hits counter, misses counter, PRIMARY KEY (k, ck))",
    )
    .await;
    session
}

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

type Row = (Option<Counter>, Option<Counter>);

async fn read(session: &Session, k: i32, ck: i32) -> Vec<Row> {
    query_rows(
        session,
        "SELECT hits, misses FROM c WHERE k = ? AND ck = ?",
        (k, ck),
    )
    .await
}

#[tokio::test]
async fn increments_and_decrements_add_up() {
    let server = TestServer::start().await;
    let session = counters(&server).await;
    assert!(read(&session, 0, 0).await.is_empty(), "never written");
    run(
        &session,
        "UPDATE c SET hits = hits + 5 WHERE k = 0 AND ck = 0",
    )
    .await;
    run(
        &session,
        "UPDATE c SET hits = hits - 2, misses = misses + -7 WHERE k = 0 AND ck = 0",
    )
    .await;
    let bind = "UPDATE c SET hits = hits + ? WHERE k = 0 AND ck = 0";
    session.query_unpaged(bind, (Counter(10),)).await.unwrap();
    // An unset delta changes nothing.
    session
        .query_unpaged(bind, (MaybeUnset::<Counter>::Unset,))
        .await
        .unwrap();
    assert_eq!(
        read(&session, 0, 0).await,
        [(Some(Counter(13)), Some(Counter(-7)))]
    );
    // The result column is typed counter.
    let result = session
        .query_unpaged("SELECT hits FROM c WHERE k = 0 AND ck = 0", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let spec = &result.column_specs().get_by_index(0).unwrap();
    assert_eq!(
        format!("{:?}", spec.typ()),
        "Native(Counter)",
        "column type of a counter"
    );
    let schema: Vec<(String,)> = query_rows(
        &session,
        "SELECT type FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 'c' AND column_name = 'hits'",
        &[],
    )
    .await;
    assert_eq!(schema, [("counter".to_string(),)]);
}

#[tokio::test]
async fn concurrent_increments_sum_exactly() {
    let server = TestServer::start().await;
    let session = counters(&server).await;
    let mut sessions = vec![Arc::new(session)];
    for _ in 0..3 {
        let extra = server.session().await;
        extra.use_keyspace("ks", false).await.unwrap();
        sessions.push(Arc::new(extra));
    }
    let prepared = sessions[0]
        .prepare("UPDATE c SET hits = hits + ? WHERE k = 1 AND ck = 1")
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for (n, session) in sessions.iter().enumerate() {
        for i in 0..50i64 {
            let session = Arc::clone(session);
            let prepared = prepared.clone();
            let delta = Counter(if n % 2 == 0 { i } else { -1 });
            tasks.push(tokio::spawn(async move {
                session.execute_unpaged(&prepared, (delta,)).await.unwrap();
            }));
        }
    }
    for task in tasks {
        task.await.unwrap();
    }
    // Two sessions add 0..50 (1225 each), two subtract 1 fifty times.
    assert_eq!(
        read(&sessions[0], 1, 1).await,
        [(Some(Counter(2 * 1225 - 2 * 50)), None)]
    );
}

#[tokio::test]
async fn deleted_counters_read_as_absent() {
    let server = TestServer::start().await;
    let session = counters(&server).await;
    run(
        &session,
        "UPDATE c SET hits = hits + 1, misses = misses + 2 WHERE k = 2 AND ck = 0",
    )
    .await;
    run(&session, "DELETE hits FROM c WHERE k = 2 AND ck = 0").await;
    assert_eq!(read(&session, 2, 0).await, [(None, Some(Counter(2)))]);
    // A deleted counter column cannot be reused: its tombstone wins (CASSANDRA-7346).
    run(
        &session,
        "UPDATE c SET hits = hits + 4 WHERE k = 2 AND ck = 0",
    )
    .await;
    assert_eq!(read(&session, 2, 0).await, [(None, Some(Counter(2)))]);
    // A deleted row has no counters left; a later increment starts from zero.
    run(&session, "DELETE FROM c WHERE k = 2 AND ck = 0").await;
    assert!(read(&session, 2, 0).await.is_empty());
    run(
        &session,
        "UPDATE c SET misses = misses + 3 WHERE k = 2 AND ck = 0",
    )
    .await;
    assert_eq!(read(&session, 2, 0).await, [(None, Some(Counter(3)))]);
    // So does a partition deletion (a range tombstone).
    run(&session, "DELETE FROM c WHERE k = 2").await;
    assert!(read(&session, 2, 0).await.is_empty());
    run(
        &session,
        "UPDATE c SET misses = misses + 1 WHERE k = 2 AND ck = 0",
    )
    .await;
    assert_eq!(read(&session, 2, 0).await, [(None, Some(Counter(1)))]);
}

#[tokio::test]
async fn refused_counter_statements_use_cassandra_messages() {
    let server = TestServer::start().await;
    let session = counters(&server).await;
    run(&session, "CREATE TABLE plain (k int PRIMARY KEY, v int)").await;
    let cases = [
        (
            "UPDATE c SET hits = 5 WHERE k = 0 AND ck = 0",
            "Cannot set the value of counter column hits (counters can only be incremented/decremented, not set)",
        ),
        (
            "INSERT INTO c (k, ck, hits) VALUES (0, 0, 1)",
            "INSERT statements are not allowed on counter tables, use UPDATE instead",
        ),
        (
            "UPDATE c USING TTL 10 SET hits = hits + 1 WHERE k = 0 AND ck = 0",
            "Cannot provide custom TTL for counter updates",
        ),
        (
            "UPDATE c USING TIMESTAMP 10 SET hits = hits + 1 WHERE k = 0 AND ck = 0",
            "Cannot provide custom timestamp for counter updates",
        ),
        (
            "UPDATE c SET hits = hits + null WHERE k = 0 AND ck = 0",
            "Invalid null value for counter increment/decrement",
        ),
        (
            "UPDATE c SET hits = 1 + hits WHERE k = 0 AND ck = 0",
            "Invalid operation (hits = 1 + hits) for non list column hits",
        ),
        (
            "UPDATE plain SET v = v + 1 WHERE k = 0",
            "Invalid operation (v = v + 1) for non counter column v",
        ),
        (
            "CREATE TABLE mixed (k int PRIMARY KEY, c counter, v int)",
            "Cannot mix counter and non counter columns in the same table",
        ),
        (
            "CREATE TABLE keyed (k counter PRIMARY KEY, v counter)",
            "counter type is not supported for PRIMARY KEY column 'k'",
        ),
        (
            "CREATE TABLE expiring (k int PRIMARY KEY, c counter) WITH default_time_to_live = 5",
            "Cannot set default_time_to_live on a table with counters",
        ),
        (
            "ALTER TABLE plain ADD n counter",
            "Cannot add a counter column (n) in a non counter column family",
        ),
    ];
    for (cql, message) in cases {
        let (code, text) = query_error(&session, cql).await;
        assert!(matches!(code, DbError::Invalid), "{cql}: {code:?}");
        assert_eq!(text, message, "{cql}");
    }
    let err = session
        .query_unpaged(
            "UPDATE c SET hits = hits + ? WHERE k = 0 AND ck = 0",
            (None::<Counter>,),
        )
        .await
        .unwrap_err();
    let (_, text) = integration_tests::db_error(&err).unwrap();
    assert_eq!(text, "Invalid null value for counter increment");
}
