//! Batches through the driver: Cassandra's rules on counters and timestamps, the size
//! warnings and failure threshold, prepared `BEGIN BATCH` text, and consistency levels.

use integration_tests::{db_error, query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::unprepared::Statement;
use scylla::statement::Consistency;
use scylla::value::{Counter, MaybeUnset};

async fn tables(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    for cql in [
        "CREATE TABLE t (k int PRIMARY KEY, v text)",
        "CREATE TABLE c (k int PRIMARY KEY, n counter)",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    session
}

fn inserts(rows: usize, len: usize) -> String {
    let value = "x".repeat(len);
    let statements: Vec<String> = (0..rows)
        .map(|k| format!("INSERT INTO t (k, v) VALUES ({k}, '{value}');"))
        .collect();
    format!("BEGIN BATCH {} APPLY BATCH", statements.join(" "))
}

async fn counter(session: &Session, k: i32) -> Vec<(Counter,)> {
    query_rows(session, "SELECT n FROM c WHERE k = ?", (k,)).await
}

#[tokio::test]
async fn counter_batches_add_every_delta() {
    let server = TestServer::start().await;
    let session = tables(&server).await;
    session
        .query_unpaged(
            "BEGIN COUNTER BATCH UPDATE c SET n = n + 1 WHERE k = 0; UPDATE c SET n = n + 2 WHERE k = 0; UPDATE c SET n = n - 10 WHERE k = 1; APPLY BATCH",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(counter(&session, 0).await, [(Counter(3),)]);
    assert_eq!(counter(&session, 1).await, [(Counter(-10),)]);
    // The protocol's COUNTER and UNLOGGED batches with prepared statements.
    let update = session
        .prepare("UPDATE c SET n = n + ? WHERE k = ?")
        .await
        .unwrap();
    for kind in [BatchType::Counter, BatchType::Unlogged] {
        let mut batch = Batch::new(kind);
        batch.append_statement(update.clone());
        batch.append_statement(update.clone());
        session
            .batch(&batch, ((Counter(5), 0), (Counter(1), 1)))
            .await
            .unwrap();
    }
    assert_eq!(counter(&session, 0).await, [(Counter(13),)]);
    assert_eq!(counter(&session, 1).await, [(Counter(-8),)]);
}

#[tokio::test]
async fn batch_rules_use_cassandra_messages() {
    let server = TestServer::start().await;
    let session = tables(&server).await;
    let cases = [
        (
            "BEGIN BATCH UPDATE c SET n = n + 1 WHERE k = 0; APPLY BATCH",
            "Cannot include a counter statement in a logged batch",
        ),
        (
            "BEGIN COUNTER BATCH INSERT INTO t (k, v) VALUES (0, 'a'); APPLY BATCH",
            "Cannot include non-counter statement in a counter batch",
        ),
        (
            "BEGIN UNLOGGED BATCH UPDATE c SET n = n + 1 WHERE k = 0; INSERT INTO t (k, v) VALUES (0, 'a'); APPLY BATCH",
            "Counter and non-counter mutations cannot exist in the same batch",
        ),
        (
            "BEGIN BATCH USING TIMESTAMP 5 INSERT INTO t (k, v) VALUES (0, 'a') USING TIMESTAMP 6; APPLY BATCH",
            "Timestamp must be set either on BATCH or individual statements",
        ),
        (
            "BEGIN COUNTER BATCH USING TIMESTAMP 5 UPDATE c SET n = n + 1 WHERE k = 0; APPLY BATCH",
            "Cannot provide custom timestamp for counter BATCH",
        ),
        (
            "BEGIN BATCH USING TTL 5 INSERT INTO t (k, v) VALUES (0, 'a'); APPLY BATCH",
            "Global TTL on the BATCH statement is not supported.",
        ),
    ];
    for (cql, message) in cases {
        let (code, text) = query_error(&session, cql).await;
        assert!(matches!(code, DbError::Invalid), "{cql}: {code:?}");
        assert_eq!(text, message, "{cql}");
    }
    // Nothing of a refused batch was written.
    let rows: Vec<(i32, String)> = query_rows(&session, "SELECT k, v FROM t", &[]).await;
    assert!(rows.is_empty());
}

#[tokio::test]
async fn the_batch_timestamp_applies_to_every_statement() {
    let server = TestServer::start().await;
    let session = tables(&server).await;
    session
        .query_unpaged(
            "BEGIN BATCH USING TIMESTAMP 1000 INSERT INTO t (k, v) VALUES (1, 'batch'); INSERT INTO t (k, v) VALUES (2, 'batch'); APPLY BATCH",
            &[],
        )
        .await
        .unwrap();
    // Older writes lose, newer ones win, on both rows.
    for (cql, k) in [
        (
            "UPDATE t USING TIMESTAMP 999 SET v = 'older' WHERE k = 1",
            1,
        ),
        (
            "UPDATE t USING TIMESTAMP 1001 SET v = 'newer' WHERE k = 2",
            2,
        ),
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
        let rows: Vec<(String,)> = query_rows(&session, "SELECT v FROM t WHERE k = ?", (k,)).await;
        let expected = if k == 1 { "batch" } else { "newer" };
        assert_eq!(rows, [(expected.to_string(),)], "{cql}");
    }
}

#[tokio::test]
async fn large_batches_warn_then_fail() {
    let server = TestServer::start().await;
    let session = tables(&server).await;
    let result = session.query_unpaged(inserts(10, 743), &[]).await.unwrap();
    let warnings: Vec<&str> = result.warnings().collect();
    assert_eq!(
        warnings,
        ["Batch for [ks.t] is of size 7790, exceeding specified threshold of 5120 by 2670."]
    );
    // A small batch has no warning.
    let result = session.query_unpaged(inserts(2, 10), &[]).await.unwrap();
    assert_eq!(result.warnings().count(), 0);
    let (code, text) = query_error(&session, &inserts(70, 743)).await;
    assert!(matches!(code, DbError::Invalid), "{code:?}");
    assert_eq!(text, "Batch too large");
}

/// The Python driver's `test_client_warnings` batch: 214 prepared INSERTs of
/// `(k, v0, v1)` ints into 214 partitions weigh 214 x 44 bytes as Cassandra 5.0 counts them
/// (partition deletion 8, clustering 4, row marker 8, cell 20 + 4), past the 5 KiB warning;
/// 116 of them (5,104 bytes) stay under it. Thresholds come from the YAML settings.
#[tokio::test]
async fn batch_size_counts_mutations_as_cassandra() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE w (k int, v0 int, v1 int, PRIMARY KEY (k, v0))",
            &[],
        )
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO w (k, v0, v1) VALUES (?, ?, ?)")
        .await
        .unwrap();
    for (rows, warning) in [
        (
            214,
            Some(
                "Batch for [ks.w] is of size 9416, exceeding specified threshold of 5120 by 4296.",
            ),
        ),
        (116, None),
    ] {
        let mut batch = Batch::new(BatchType::Logged);
        let values: Vec<(i32, i32, i32)> = (0..rows).map(|k| (k, k, 1)).collect();
        for _ in 0..rows {
            batch.append_statement(insert.clone());
        }
        let result = session.batch(&batch, &values).await.unwrap();
        let warnings: Vec<&str> = result.warnings().collect();
        assert_eq!(
            warnings,
            warning.into_iter().collect::<Vec<_>>(),
            "{rows} rows"
        );
    }
    let config = server::config::Config {
        batch_thresholds: server::config::BatchThresholds {
            warn: 10_000,
            fail: 20_000,
        },
        ..server::config::Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = tables(&server).await;
    let result = session.query_unpaged(inserts(10, 743), &[]).await.unwrap();
    assert_eq!(
        result.warnings().count(),
        0,
        "under a 10,000-byte threshold"
    );
    let (code, text) = query_error(&session, &inserts(30, 743)).await;
    assert!(matches!(code, DbError::Invalid), "{code:?}");
    assert_eq!(text, "Batch too large");
}

#[tokio::test]
async fn unlogged_batches_across_many_partitions_warn() {
    let server = TestServer::start().await;
    let session = tables(&server).await;
    let statements: Vec<String> = (0..11)
        .map(|k| format!("INSERT INTO t (k, v) VALUES ({k}, 'a');"))
        .collect();
    let text = format!("BEGIN UNLOGGED BATCH {} APPLY BATCH", statements.join(" "));
    let result = session.query_unpaged(text, &[]).await.unwrap();
    let warnings: Vec<&str> = result.warnings().collect();
    assert_eq!(
        warnings,
        ["Unlogged batch covering 11 partitions detected against table [ks.t]. You should use a logged batch for atomicity, or asynchronous writes for performance."]
    );
}

#[tokio::test]
async fn prepared_batch_text_binds_across_statements() {
    let server = TestServer::start().await;
    let session = tables(&server).await;
    let prepared = session
        .prepare("BEGIN BATCH INSERT INTO t (k, v) VALUES (?, ?); UPDATE t SET v = ? WHERE k = ?; APPLY BATCH")
        .await
        .unwrap();
    let names: Vec<&str> = prepared
        .get_variable_col_specs()
        .iter()
        .map(|s| s.name())
        .collect();
    assert_eq!(names, ["k", "v", "v", "k"]);
    session
        .execute_unpaged(&prepared, (1, "one", "two", 2))
        .await
        .unwrap();
    // An unset value leaves its column alone.
    session
        .execute_unpaged(&prepared, (3, "three", MaybeUnset::<&str>::Unset, 1))
        .await
        .unwrap();
    let mut rows: Vec<(i32, String)> = query_rows(&session, "SELECT k, v FROM t", &[]).await;
    rows.sort();
    assert_eq!(
        rows,
        [
            (1, "one".to_string()),
            (2, "two".to_string()),
            (3, "three".to_string())
        ]
    );
}

#[tokio::test]
async fn consistency_levels_cassandra_refuses() {
    let server = TestServer::start().await;
    let session = tables(&server).await;
    let mut read = Statement::new("SELECT * FROM t");
    read.set_consistency(Consistency::Any);
    let err = session.query_unpaged(read, &[]).await.unwrap_err();
    assert_eq!(
        db_error(&err).map(|(_, m)| m).as_deref(),
        Some("ANY ConsistencyLevel is only supported for writes")
    );
    let mut increment = Statement::new("UPDATE c SET n = n + 1 WHERE k = 0");
    increment.set_consistency(Consistency::Any);
    let err = session.query_unpaged(increment, &[]).await.unwrap_err();
    assert_eq!(
        db_error(&err).map(|(_, m)| m).as_deref(),
        Some("Consistency level ANY is not yet supported for counter table c")
    );
    // Every other level is honoured on one node.
    for cl in [
        Consistency::Any,
        Consistency::One,
        Consistency::Quorum,
        Consistency::All,
        Consistency::LocalQuorum,
        Consistency::EachQuorum,
        Consistency::LocalOne,
    ] {
        let mut write = Statement::new("INSERT INTO t (k, v) VALUES (9, 'cl')");
        write.set_consistency(cl);
        session.query_unpaged(write, &[]).await.expect("write");
        if cl != Consistency::Any {
            let mut read = Statement::new("SELECT v FROM t WHERE k = 9");
            read.set_consistency(cl);
            let rows = session.query_unpaged(read, &[]).await.expect("read");
            assert_eq!(rows.into_rows_result().unwrap().rows_num(), 1);
        }
    }
}
