//! Acknowledged writes survive a restart, in both sync modes.

use integration_tests::TestServer;
use integration_tests::{query_rows, query_single_row};
use server::Config;
use storage::SyncMode;

async fn write_then_restart(sync: SyncMode) {
    let dir = tempfile::tempdir().unwrap();
    let config = || Config {
        data_dir: Some(dir.path().to_path_buf()),
        commitlog_sync: sync,
        ..Config::default()
    };
    let server = TestServer::start_with(config()).await;
    {
        let session = server.session().await;
        session
            .query_unpaged("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &[])
            .await
            .unwrap();
        session.query_unpaged("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)", &[]).await.unwrap();
        for c in 0..50 {
            session
                .query_unpaged("INSERT INTO ks.t (k, c, v) VALUES (1, ?, 'v')", (c,))
                .await
                .unwrap();
        }
    }
    let (version_before,): (uuid::Uuid,) = {
        let session = server.session().await;
        query_single_row(&session, "SELECT schema_version FROM system.local", &[]).await
    };
    server.stop().await;
    let server = TestServer::start_with(config()).await;
    let session = server.session().await;
    let rows: Vec<(i32,)> =
        query_rows::<(i32,)>(&session, "SELECT c FROM ks.t WHERE k = 1", &[]).await;
    assert_eq!(rows.len(), 50);
    assert_eq!(rows[0], (49,), "DESC order survives the restart");
    let (version_after,): (uuid::Uuid,) =
        query_single_row(&session, "SELECT schema_version FROM system.local", &[]).await;
    assert_eq!(
        version_before, version_after,
        "schema version is a digest of the schema"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn periodic_mode_survives_clean_restart() {
    write_then_restart(SyncMode::Periodic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_mode_survives_clean_restart() {
    write_then_restart(SyncMode::Batch).await;
}

/// With a writer queue of two slots, 200 concurrent writes from 4 sessions all complete (the
/// queue pushes back, it never drops or deadlocks), and every slot is free afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_write_queue_pushes_back_without_losing_writes() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        data_dir: Some(dir.path().to_path_buf()),
        write_queue_limit: 2,
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = integration_tests::session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c))", &[])
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for k in 0..4 {
        let session = std::sync::Arc::new(server.session().await);
        let insert = session
            .prepare("INSERT INTO ks.t (k, c) VALUES (?, ?)")
            .await
            .unwrap();
        for c in 0..50 {
            let (session, insert) = (session.clone(), insert.clone());
            tasks.push(tokio::spawn(async move {
                session.execute_unpaged(&insert, (k, c)).await.unwrap();
            }));
        }
    }
    for task in tasks {
        task.await.unwrap();
    }
    let (count,): (i64,) = query_single_row(&session, "SELECT count(*) FROM ks.t", &[]).await;
    assert_eq!(count, 200);
    assert_eq!(server.write_queue_free(), 2);
    server.stop().await;
}
