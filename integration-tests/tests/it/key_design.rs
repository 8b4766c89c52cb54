//! The seeds' key-design rules, live: the hot-partition warning and
//! `system_views.key_distribution`.

use std::collections::BTreeMap;

use integration_tests::{session_in, TestServer};
use server::Config;

/// A server whose hot-partition windows are 10 partition writes, hot past half of one.
async fn small_windows() -> (TestServer, scylla::client::session::Session) {
    let config = Config {
        hot_partition_window: 10,
        hot_partition_warn_share: 0.5,
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = session_in(&server, "ks").await;
    (server, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partition_taking_most_writes_is_reported_and_shown() {
    let (server, session) = small_windows().await;
    session
        .query_unpaged(
            "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, 'x')")
        .await
        .unwrap();
    let mut warnings = Vec::new();
    for i in 0..10 {
        // Partition 1 takes every other write.
        let k = if i % 2 == 0 { 1 } else { 100 + i };
        let result = session.execute_unpaged(&insert, (k, i)).await.unwrap();
        warnings.extend(result.warnings().map(|w| (i, w.to_string())));
    }
    assert_eq!(
        warnings,
        [(
            8,
            "Hot partition: ks.t partition (k = 1) took 5 of the table's last 9 partition \
              writes (55 %). One partition receiving most writes is a hot spot (in a cluster, \
              one node does the work), as a monotonic or low-cardinality first key column (a \
              time, a counter, a status) makes it; hash or bucket that column to spread the \
              writes (GeminiDB Cassandra API key design: pk1 = hash(pk).substring(0,4) + pk)."
                .to_string()
        )]
    );
    type Distribution = (
        String,
        i64,
        i64,
        Vec<String>,
        BTreeMap<i64, i64>,
        Option<i64>,
        Vec<String>,
    );
    let row: Distribution = session
        .query_unpaged(
            "SELECT table_name, partitions, rows, largest_partitions_by_rows, \
             rows_per_partition, recent_writes, hottest_partitions \
             FROM system_views.key_distribution WHERE keyspace_name = 'ks'",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .single_row()
        .unwrap();
    let (table, partitions, rows, largest, histogram, recent, hottest) = row;
    assert_eq!((table.as_str(), partitions, rows), ("t", 6, 10));
    // The other partitions tie at one row each: only the first place is certain.
    assert_eq!(largest.len(), 3);
    assert_eq!(largest[0], "k = 1: 5 rows");
    assert!(largest[1].ends_with(": 1 row"), "{largest:?}");
    assert_eq!(histogram, BTreeMap::from([(1, 5), (10, 1)]));
    assert_eq!(recent, Some(10));
    assert_eq!(hottest.len(), 3);
    assert_eq!(hottest[0], "k = 1: 5 of 10 writes");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evenly_spread_writes_get_no_warning() {
    let (server, session) = small_windows().await;
    session
        .query_unpaged("CREATE TABLE ks.t (k int PRIMARY KEY, v int)", &[])
        .await
        .unwrap();
    for k in 0..40 {
        let result = session
            .query_unpaged(format!("INSERT INTO ks.t (k, v) VALUES ({k}, 1)"), &[])
            .await
            .unwrap();
        assert_eq!(result.warnings().count(), 0);
    }
    server.stop().await;
}
