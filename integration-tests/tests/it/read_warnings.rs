//! Read-side warnings in the protocol's warnings list, and the tombstone failure: Cassandra's
//! `tombstone_warn_threshold` / `tombstone_failure_threshold` (its words), and our
//! `filtering_examined_warn_*` warning naming a key design.

use integration_tests::{query_error, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use server::config::ReadThresholds;
use server::Config;

async fn start(thresholds: ReadThresholds) -> (TestServer, Session) {
    let config = Config {
        read_thresholds: thresholds,
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = session_in(&server, "ks").await;
    (server, session)
}

/// `rows` rows in partition `k = 1` of `ks.t`, the first `deleted` of them deleted.
async fn rows_with_tombstones(session: &Session, rows: i32, deleted: i32) {
    session
        .query_unpaged(
            "CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO ks.t (k, c, v) VALUES (1, ?, ?)")
        .await
        .unwrap();
    let delete = session
        .prepare("DELETE FROM ks.t WHERE k = 1 AND c = ?")
        .await
        .unwrap();
    for c in 0..rows {
        session.execute_unpaged(&insert, (c, c)).await.unwrap();
    }
    for c in 0..deleted {
        session.execute_unpaged(&delete, (c,)).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tombstones_past_the_warn_threshold_warn_in_cassandras_words() {
    let (server, session) = start(ReadThresholds {
        tombstone_warn: 5,
        tombstone_failure: 100,
        ..ReadThresholds::default()
    })
    .await;
    rows_with_tombstones(&session, 8, 6).await;
    let result = session
        .query_unpaged("SELECT * FROM ks.t WHERE k = 1", &[])
        .await
        .unwrap();
    let warnings: Vec<&str> = result.warnings().collect();
    // token(1) of an int key is Murmur3's -4069959284402364209.
    assert_eq!(
        warnings,
        ["Read 2 live rows and 6 tombstone cells for query SELECT * FROM ks.t WHERE k = 1 ALLOW FILTERING; token -4069959284402364209 (see tombstone_warn_threshold)"]
    );
    assert_eq!(result.into_rows_result().unwrap().rows_num(), 2);
    // At the threshold, no warning.
    let result = session
        .query_unpaged("SELECT * FROM ks.t WHERE k = 1 AND c >= 1", &[])
        .await
        .unwrap();
    assert_eq!(result.warnings().count(), 0);
    // Null cells are tombstone cells too, as Cassandra counts them.
    for c in 0..6 {
        session
            .query_unpaged(
                format!("INSERT INTO ks.t (k, c, v) VALUES (2, {c}, null)"),
                &[],
            )
            .await
            .unwrap();
    }
    let result = session
        .query_unpaged("SELECT * FROM ks.t WHERE k = 2", &[])
        .await
        .unwrap();
    let warnings: Vec<&str> = result.warnings().collect();
    assert_eq!(
        warnings,
        ["Read 6 live rows and 6 tombstone cells for query SELECT * FROM ks.t WHERE k = 2 ALLOW FILTERING; token -3248873570005575792 (see tombstone_warn_threshold)"]
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tombstones_past_the_failure_threshold_fail_the_read() {
    let (server, session) = start(ReadThresholds {
        tombstone_warn: 5,
        tombstone_failure: 10,
        ..ReadThresholds::default()
    })
    .await;
    rows_with_tombstones(&session, 12, 11).await;
    let (error, message) = query_error(&session, "SELECT * FROM ks.t WHERE k = 1").await;
    assert_eq!(
        message,
        "Operation failed - received 0 responses and 1 failures: READ_TOO_MANY_TOMBSTONES from /127.0.0.1:7000"
    );
    let DbError::ReadFailure {
        received,
        required,
        numfailures,
        data_present,
        ..
    } = error
    else {
        panic!("not a read failure: {error:?}");
    };
    assert_eq!(
        (received, required, numfailures, data_present),
        (0, 1, 1, false)
    );
    // A read that stops before the tenth tombstone still succeeds.
    let result = session
        .query_unpaged("SELECT * FROM ks.t WHERE k = 1 AND c > 6", &[])
        .await
        .unwrap();
    assert_eq!(result.into_rows_result().unwrap().rows_num(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filtering_read_that_examines_far_more_than_it_returns_names_a_key() {
    let (server, session) = start(ReadThresholds {
        filtering_ratio: 10,
        filtering_min_rows: 50,
        ..ReadThresholds::default()
    })
    .await;
    session
        .query_unpaged("CREATE TABLE ks.u (id int PRIMARY KEY, v int)", &[])
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO ks.u (id, v) VALUES (?, ?)")
        .await
        .unwrap();
    for id in 0..100 {
        session
            .execute_unpaged(&insert, (id, id % 50))
            .await
            .unwrap();
    }
    let result = session
        .query_unpaged("SELECT * FROM ks.u WHERE v = 7 ALLOW FILTERING", &[])
        .await
        .unwrap();
    let warnings: Vec<&str> = result.warnings().collect();
    assert_eq!(
        warnings,
        ["Examined 100 rows to return 2 for query SELECT * FROM ks.u WHERE v = 7 ALLOW FILTERING (ALLOW FILTERING over the whole table); a table keyed by ((v), id) would read these rows directly (see filtering_examined_warn_ratio)"]
    );
    // A filter most rows pass is not worth a warning.
    let result = session
        .query_unpaged("SELECT * FROM ks.u WHERE v > 2 ALLOW FILTERING", &[])
        .await
        .unwrap();
    assert_eq!(result.warnings().count(), 0);
    // Neither is a keyed read.
    let result = session
        .query_unpaged("SELECT * FROM ks.u WHERE id = 7", &[])
        .await
        .unwrap();
    assert_eq!(result.warnings().count(), 0);
    server.stop().await;
}

/// Cassandra's own warnings on aggregates that fold many partitions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregates_without_a_partition_key_warn_as_cassandra() {
    let (server, session) = start(ReadThresholds::default()).await;
    rows_with_tombstones(&session, 3, 0).await;
    for (query, expected) in [
        (
            "SELECT count(*) FROM ks.t",
            vec!["Aggregation query used without partition key"],
        ),
        (
            "SELECT k, max(v) FROM ks.t WHERE k IN (1, 2) GROUP BY k",
            vec!["Aggregation query used on multiple partition keys (IN restriction)"],
        ),
        ("SELECT count(*) FROM ks.t WHERE k = 1", vec![]),
        ("SELECT v FROM ks.t", vec![]),
    ] {
        let result = session.query_unpaged(query, &[]).await.unwrap();
        let warnings: Vec<&str> = result.warnings().collect();
        assert_eq!(warnings, expected, "{query}");
    }
    server.stop().await;
}
