//! Range and partition deletions (range tombstones), as Oracle NoSQL's multiDelete of a
//! partial key maps onto CQL.

use integration_tests::query_rows;
use integration_tests::{db_error, session_in, TestServer};
use scylla::errors::DbError;

async fn setup(server: &TestServer, order: &str) -> scylla::client::session::Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged(format!("CREATE TABLE t (k int, c1 int, c2 int, v text, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY ({order})"), &[])
        .await
        .unwrap();
    for k in 0..2 {
        for c1 in 0..3 {
            for c2 in 0..3 {
                session
                    .query_unpaged(
                        "INSERT INTO t (k, c1, c2, v) VALUES (?, ?, ?, 'x')",
                        (k, c1, c2),
                    )
                    .await
                    .unwrap();
            }
        }
    }
    session
}

async fn keys(session: &scylla::client::session::Session, k: i32) -> Vec<(i32, i32)> {
    let mut rows: Vec<(i32, i32)> =
        query_rows::<(i32, i32)>(session, "SELECT c1, c2 FROM t WHERE k = ?", (k,)).await;
    rows.sort();
    rows
}

fn grid_without(pred: impl Fn(i32, i32) -> bool) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    for c1 in 0..3 {
        for c2 in 0..3 {
            if !pred(c1, c2) {
                out.push((c1, c2));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefix_slice_and_partition_deletes_in_both_orders() {
    for order in ["c1 ASC, c2 ASC", "c1 DESC, c2 DESC"] {
        let server = TestServer::start().await;
        let session = setup(&server, order).await;
        // A clustering prefix (multiDelete of a partial key).
        session
            .query_unpaged("DELETE FROM t WHERE k = 0 AND c1 = 1", &[])
            .await
            .unwrap();
        assert_eq!(
            keys(&session, 0).await,
            grid_without(|c1, _| c1 == 1),
            "{order}"
        );
        // A slice after an equality prefix.
        session
            .query_unpaged("DELETE FROM t WHERE k = 0 AND c1 = 2 AND c2 >= 1", &[])
            .await
            .unwrap();
        assert_eq!(
            keys(&session, 0).await,
            grid_without(|c1, c2| c1 == 1 || (c1 == 2 && c2 >= 1)),
            "{order}"
        );
        // A slice on the first clustering column.
        session
            .query_unpaged("DELETE FROM t WHERE k = 1 AND c1 < 1", &[])
            .await
            .unwrap();
        assert_eq!(
            keys(&session, 1).await,
            grid_without(|c1, _| c1 < 1),
            "{order}"
        );
        // The whole partition.
        session
            .query_unpaged("DELETE FROM t WHERE k = 1", &[])
            .await
            .unwrap();
        assert!(keys(&session, 1).await.is_empty());
        // Newer writes show; writes older than the deletion stay shadowed.
        session
            .query_unpaged("INSERT INTO t (k, c1, c2, v) VALUES (1, 0, 0, 'new')", &[])
            .await
            .unwrap();
        session
            .query_unpaged(
                "INSERT INTO t (k, c1, c2, v) VALUES (1, 0, 1, 'old') USING TIMESTAMP 1",
                &[],
            )
            .await
            .unwrap();
        assert_eq!(keys(&session, 1).await, vec![(0, 0)]);
        let rows = session
            .query_unpaged("SELECT * FROM t", &[])
            .await
            .unwrap()
            .into_rows_result()
            .unwrap();
        assert_eq!(rows.rows_num(), 4 + 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_deletes_survive_a_restart_and_reject_column_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_in(dir.path()).await;
    {
        let session = setup(&server, "c1 ASC, c2 ASC").await;
        session
            .query_unpaged("DELETE FROM t WHERE k = 0 AND c1 > 0", &[])
            .await
            .unwrap();
        let err = session
            .query_unpaged("DELETE v FROM t WHERE k = 0 AND c1 > 0", &[])
            .await
            .unwrap_err();
        assert_eq!(
            db_error(&err),
            Some((
                DbError::Invalid,
                "Range deletions are not supported for specific columns".into()
            ))
        );
        let err = session
            .query_unpaged("DELETE FROM t WHERE k = 0 AND c2 = 1", &[])
            .await
            .unwrap_err();
        assert_eq!(
            db_error(&err),
            Some((DbError::Invalid, "PRIMARY KEY column \"c2\" cannot be restricted as preceding column \"c1\" is not restricted".into()))
        );
    }
    server.stop().await;
    let server = TestServer::start_in(dir.path()).await;
    let session = server.session().await;
    session.use_keyspace("ks", false).await.unwrap();
    assert_eq!(keys(&session, 0).await, vec![(0, 0), (0, 1), (0, 2)]);
}
