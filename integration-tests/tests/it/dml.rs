//! INSERT and SELECT through the driver: every type of this stage, key forms, clustering
//! order, paging.

use integration_tests::TestServer;
use integration_tests::{query_all_pages, query_rows, query_single_row, session_in};
use scylla::statement::unprepared::Statement;
use scylla::value::CqlTimeuuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_round_trips() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE types (k int PRIMARY KEY, b bigint, t text, a ascii, bo boolean, bl blob, d double, f float, u uuid, tu timeuuid, ts timestamp)",
            &[],
        )
        .await
        .unwrap();
    session
        .query_unpaged(
            "INSERT INTO types (k, b, t, a, bo, bl, d, f, u, tu, ts) VALUES (1, -9000000000, 'héllo', 'plain', true, 0xcafe, 2.5, -1.25, 123e4567-e89b-12d3-a456-426655440000, 50554d6e-29bb-11e5-b345-feff819cdc9f, '2011-02-03 04:05:00+0000')",
            &[],
        )
        .await
        .unwrap();
    let prepared = session
        .prepare("INSERT INTO types (k, b, t, a, bo, bl, d, f, u, tu, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .await
        .unwrap();
    let u = uuid::Uuid::parse_str("123e4567-e89b-12d3-a456-426655440000").unwrap();
    let tu =
        CqlTimeuuid::from(uuid::Uuid::parse_str("50554d6e-29bb-11e5-b345-feff819cdc9f").unwrap());
    let ts = scylla::value::CqlTimestamp(1_296_705_900_000);
    session
        .execute_unpaged(
            &prepared,
            (
                2i32,
                -9_000_000_000i64,
                "héllo",
                "plain",
                true,
                vec![0xcau8, 0xfe],
                2.5f64,
                -1.25f32,
                u,
                tu,
                ts,
            ),
        )
        .await
        .unwrap();
    type Row = (
        i32,
        i64,
        String,
        String,
        bool,
        Vec<u8>,
        f64,
        f32,
        uuid::Uuid,
        CqlTimeuuid,
        scylla::value::CqlTimestamp,
    );
    let mut rows: Vec<Row> = query_rows::<Row>(
        &session,
        "SELECT k, b, t, a, bo, bl, d, f, u, tu, ts FROM types",
        &[],
    )
    .await;
    rows.sort_by_key(|r| r.0);
    assert_eq!(rows.len(), 2);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.0, i as i32 + 1);
        assert_eq!(row.1, -9_000_000_000);
        assert_eq!(row.2, "héllo");
        assert_eq!(row.3, "plain");
        assert!(row.4);
        assert_eq!(row.5, vec![0xca, 0xfe]);
        assert_eq!(row.6, 2.5);
        assert_eq!(row.7, -1.25);
        assert_eq!(row.8, u);
        assert_eq!(row.9, tu);
        assert_eq!(row.10, ts);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clustering_rows_by_partition_and_full_key_in_declared_order() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE orders (userid text, orderid int, amount double, PRIMARY KEY (userid, orderid)) WITH CLUSTERING ORDER BY (orderid DESC)", &[])
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO orders (userid, orderid, amount) VALUES (?, ?, ?)")
        .await
        .unwrap();
    for user in ["abc", "xyz"] {
        for order in [5, 1, 3, 2, 4] {
            session
                .execute_unpaged(&insert, (user, order, f64::from(order) * 1.5))
                .await
                .unwrap();
        }
    }
    let rows: Vec<(i32,)> = query_rows::<(i32,)>(
        &session,
        "SELECT orderid FROM orders WHERE userid = 'abc'",
        &[],
    )
    .await;
    assert_eq!(rows, vec![(5,), (4,), (3,), (2,), (1,)]);
    let (amount,): (f64,) = query_single_row(
        &session,
        "SELECT amount FROM orders WHERE userid = 'xyz' AND orderid = 3",
        &[],
    )
    .await;
    assert_eq!(amount, 4.5);
    let all = session
        .query_unpaged("SELECT * FROM orders", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(all.rows_num(), 10);
    let asc: Vec<(i32,)> = query_rows::<(i32,)>(
        &session,
        "SELECT orderid FROM orders WHERE userid = 'abc' ORDER BY orderid ASC",
        &[],
    )
    .await;
    assert_eq!(asc, vec![(1,), (2,), (3,), (4,), (5,)]);
    let (count,): (i64,) = query_single_row(
        &session,
        "SELECT count(*) FROM orders WHERE userid = 'abc'",
        &[],
    )
    .await;
    assert_eq!(count, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn composite_partition_keys_and_in() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE logs (bucket int, host text, ts bigint, event text, PRIMARY KEY ((bucket, host), ts))", &[])
        .await
        .unwrap();
    for bucket in 0..3 {
        for ts in 0..4i64 {
            session
                .query_unpaged(
                    "INSERT INTO logs (bucket, host, ts, event) VALUES (?, 'h1', ?, 'e')",
                    (bucket, ts),
                )
                .await
                .unwrap();
        }
    }
    let rows = session
        .query_unpaged(
            "SELECT bucket, ts FROM logs WHERE bucket IN (0, 2) AND host = 'h1'",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 8);
    let rows = session
        .query_unpaged(
            "SELECT ts FROM logs WHERE bucket = 1 AND host = 'h1' AND ts >= 1 AND ts < 3",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let ts: Vec<i64> = rows
        .rows::<(i64,)>()
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(ts, vec![1, 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_only_when_asked_and_resumes_exactly() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE p (k int, c int, PRIMARY KEY (k, c))", &[])
        .await
        .unwrap();
    for k in 0..5 {
        for c in 0..7 {
            session
                .query_unpaged("INSERT INTO p (k, c) VALUES (?, ?)", (k, c))
                .await
                .unwrap();
        }
    }
    let rows: Vec<(i32, i32)> = query_all_pages(&session, "SELECT k, c FROM p", 3).await;
    assert_eq!(rows.len(), 35);
    let mut sorted = rows.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 35, "no row may repeat across pages");
    // Single page request: exactly page_size rows and a paging state.
    let mut statement = Statement::new("SELECT c FROM p WHERE k = 1");
    statement.set_page_size(4);
    let (result, state) = session
        .query_single_page(statement, &[], scylla::response::PagingState::start())
        .await
        .unwrap();
    assert_eq!(result.into_rows_result().unwrap().rows_num(), 4);
    assert!(matches!(
        state,
        scylla::response::PagingStateResponse::HasMorePages { .. }
    ));
    // Unpaged: everything at once.
    let rows = session
        .query_unpaged("SELECT * FROM p", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 35);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_and_delete_by_full_key() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE u (k int, c int, v text, w int, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    session
        .query_unpaged("UPDATE u SET v = 'a', w = 1 WHERE k = 1 AND c = 1", &[])
        .await
        .unwrap();
    session
        .query_unpaged("INSERT INTO u (k, c, v) VALUES (1, 2, 'b')", &[])
        .await
        .unwrap();
    session
        .query_unpaged("DELETE w FROM u WHERE k = 1 AND c = 1", &[])
        .await
        .unwrap();
    let rows: Vec<(i32, Option<String>, Option<i32>)> =
        query_rows(&session, "SELECT c, v, w FROM u WHERE k = 1", &[]).await;
    assert_eq!(
        rows,
        vec![(1, Some("a".into()), None), (2, Some("b".into()), None)]
    );
    session
        .query_unpaged("DELETE FROM u WHERE k = 1 AND c = 2", &[])
        .await
        .unwrap();
    // A row created by UPDATE disappears when its last cell is deleted.
    session
        .query_unpaged("DELETE v FROM u WHERE k = 1 AND c = 1", &[])
        .await
        .unwrap();
    let rows = session
        .query_unpaged("SELECT * FROM u", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 0);
    // An INSERTed row with only its key stays (row marker).
    session
        .query_unpaged("INSERT INTO u (k, c) VALUES (2, 2)", &[])
        .await
        .unwrap();
    let rows = session
        .query_unpaged("SELECT * FROM u", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 1);
}

/// UPDATE takes a multi-column equality on clustering columns, literal or bound, as naming
/// the same row as the column-by-column equalities (Cassandra's testUpdate).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_takes_a_tuple_equality_on_clustering_columns() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE ks.u (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2))",
            &[],
        )
        .await
        .unwrap();
    session
        .query_unpaged(
            "UPDATE ks.u SET v = 7 WHERE k = 0 AND (c1, c2) = (1, 2)",
            &[],
        )
        .await
        .unwrap();
    let bound = session
        .prepare("UPDATE ks.u SET v = ? WHERE k = ? AND (c1) = (?) AND c2 = ?")
        .await
        .unwrap();
    session.execute_unpaged(&bound, (8, 0, 3, 4)).await.unwrap();
    session
        .query_unpaged(
            "UPDATE ks.u SET v = 9 WHERE k = 1 AND (c1) IN ((5), (6)) AND c2 = 0",
            &[],
        )
        .await
        .unwrap();
    let rows: Vec<(i32, i32, i32, i32)> =
        query_rows(&session, "SELECT k, c1, c2, v FROM ks.u", ()).await;
    assert_eq!(
        rows,
        [(1, 5, 0, 9), (1, 6, 0, 9), (0, 1, 2, 7), (0, 3, 4, 8)]
    );
    // A multi-column IN names whole rows (it was refused before Cassandra's rule was kept).
    session
        .query_unpaged(
            "UPDATE ks.u SET v = 1 WHERE k = 0 AND (c1, c2) IN ((1, 2))",
            &[],
        )
        .await
        .unwrap();
    let rows: Vec<(i32, i32, i32, i32)> =
        query_rows(&session, "SELECT k, c1, c2, v FROM ks.u WHERE k = 0", ()).await;
    assert_eq!(rows, [(0, 1, 2, 1), (0, 3, 4, 8)]);
    server.stop().await;
}
