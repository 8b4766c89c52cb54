//! Sorted runs as operators see them (issue 35, "visible to operators"): after flushes that
//! write runs and a compaction that merges them, `system_views.table_runs`, `disk_usage`,
//! `sstable_tasks`, `system.size_estimates` and `/metrics` report real figures, read from the
//! runs' manifest.

use integration_tests::{query_rows, query_single_row, TestServer};
use storage::token_of;

use crate::metrics::{free_address, sample, scrape};

/// Partitions written per flush, two rows each: 600 rows, enough for a run of their own.
const PARTITIONS_PER_FLUSH: i32 = 300;

/// Flushes of distinct partitions, so that each partition is in exactly one run.
const FLUSHES: i32 = 4;

/// Runs, bytes, rows, deletions, partitions, pending compaction bytes.
type RunsRow = (i32, i64, i64, i64, i64, i64);

async fn table_runs(session: &scylla::client::session::Session) -> RunsRow {
    query_single_row(
        session,
        "SELECT runs, run_bytes, rows, deletions, partitions, pending_compaction_bytes \
         FROM system_views.table_runs WHERE keyspace_name = 'ks' AND table_name = 't'",
        &[],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_disk_usage_and_size_estimates_come_from_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let address = free_address();
    let config = server::Config {
        data_dir: Some(dir.path().to_path_buf()),
        http_address: Some(address),
        ..server::Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = server.session().await;
    for cql in [
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    let insert = session
        .prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, 'a value of some length')")
        .await
        .unwrap();
    for flush in 0..FLUSHES {
        for k in flush * PARTITIONS_PER_FLUSH..(flush + 1) * PARTITIONS_PER_FLUSH {
            for c in 0..2 {
                session.execute_unpaged(&insert, (k, c)).await.unwrap();
            }
        }
        server.flush().await;
    }
    let partitions = i64::from(FLUSHES * PARTITIONS_PER_FLUSH);
    let rows = 2 * partitions;

    // Four runs, unless the background compactor has merged them already: either way the
    // runs hold every row once and every partition once.
    let (runs, run_bytes, run_rows, deletions, run_partitions, _) = table_runs(&session).await;
    assert!((1..=FLUSHES).contains(&runs), "{runs} runs");
    assert!(run_bytes > 0);
    assert_eq!((run_rows, deletions, run_partitions), (rows, 0, partitions));

    server.compact().await;
    let merged = table_runs(&session).await;
    assert_eq!(merged.0, 1, "{merged:?}");
    assert_eq!((merged.2, merged.3, merged.4), (rows, 0, partitions));
    assert_eq!(merged.5, 0, "nothing left to merge");
    let tasks: Vec<(String, String, String, i64, i64, String)> = query_rows(
        &session,
        "SELECT keyspace_name, table_name, kind, progress, total, unit \
         FROM system_views.sstable_tasks",
        &[],
    )
    .await;
    assert!(tasks.is_empty(), "no merge runs after compact: {tasks:?}");

    let (mebibytes,): (i64,) = query_single_row(
        &session,
        "SELECT mebibytes FROM system_views.disk_usage \
         WHERE keyspace_name = 'ks' AND table_name = 't'",
        &[],
    )
    .await;
    assert!(mebibytes >= 1, "rounded up: {mebibytes}");

    // size_estimates: the total is exact (each partition is in one run); the ranges share
    // the run by its token span, within a few percent of the true split.
    let (tokens,): (Vec<String>,) =
        query_single_row(&session, "SELECT tokens FROM system.local", &[]).await;
    let token: i64 = tokens[0].parse().unwrap();
    let below = (0..FLUSHES * PARTITIONS_PER_FLUSH)
        .filter(|k| token_of(&[&k.to_be_bytes()]) <= token)
        .count() as i64;
    let estimates: Vec<(String, String, i64, i64)> = query_rows(
        &session,
        "SELECT range_start, range_end, mean_partition_size, partitions_count \
         FROM system.size_estimates WHERE keyspace_name = 'ks' AND table_name = 't'",
        &[],
    )
    .await;
    assert_eq!(estimates.len(), 2, "{estimates:?}");
    assert_eq!(estimates.iter().map(|r| r.3).sum::<i64>(), partitions);
    let estimated_below = estimates
        .iter()
        .find(|r| r.0 == i64::MIN.to_string())
        .map(|r| r.3)
        .unwrap();
    assert!(
        (estimated_below - below).abs() <= partitions / 12,
        "{estimated_below} estimated at or below the node's token, {below} there"
    );
    assert!(
        estimates.iter().all(|r| r.3 == 0 || r.2 > 0),
        "{estimates:?}"
    );

    let text = scrape(address).await;
    let series = |name: &str| format!("{name}{{keyspace=\"ks\",table=\"t\"}}");
    assert_eq!(sample(&text, &series("storage_table_runs")), 1.0);
    assert_eq!(
        sample(&text, &series("storage_table_run_rows")),
        rows as f64
    );
    assert_eq!(sample(&text, &series("storage_table_run_deletions")), 0.0);
    assert!(sample(&text, &series("storage_table_run_bytes")) > 0.0);
    assert_eq!(
        sample(&text, &series("storage_table_pending_compaction_bytes")),
        0.0
    );
}
