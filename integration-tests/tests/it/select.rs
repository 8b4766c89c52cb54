//! SELECT shapes of the key-order planner: token ranges and their errors.

use integration_tests::{db_error, query_error, session_in, TestServer};
use integration_tests::{query_row_count, query_rows};
use scylla::errors::DbError;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_ranges_scan_in_token_order_and_split_the_ring() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (a int, b text, v int, PRIMARY KEY ((a, b)))",
            &[],
        )
        .await
        .unwrap();
    for a in 0..40 {
        session
            .query_unpaged("INSERT INTO t (a, b, v) VALUES (?, 'x', ?)", (a, a * 10))
            .await
            .unwrap();
    }
    let all: Vec<(i64, i32)> =
        query_rows::<(i64, i32)>(&session, "SELECT token(a, b), a FROM t", &[]).await;
    assert_eq!(all.len(), 40);
    assert!(
        all.windows(2).all(|w| w[0].0 <= w[1].0),
        "whole-table scans come in token order"
    );
    // Split the ring at the median token: the two halves partition the rows.
    let mid = all[20].0;
    let count = |cql: &'static str| {
        let session = &session;
        async move { query_row_count(session, cql, (mid,)).await }
    };
    let low = count("SELECT a FROM t WHERE token(a, b) <= ?").await;
    let high = count("SELECT a FROM t WHERE token(a, b) > ?").await;
    assert_eq!((low, high), (21, 19));
    let rows = session
        .query_unpaged(
            "SELECT a FROM t WHERE token(a, b) > ? AND token(a, b) <= ?",
            (all[4].0, all[9].0),
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let got: Vec<i32> = rows
        .rows::<(i32,)>()
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    let expected: Vec<i32> = all[5..=9].iter().map(|r| r.1).collect();
    assert_eq!(got, expected);
    // A range whose start is past its end selects nothing (no wrap-around).
    let rows = session
        .query_unpaged(
            "SELECT a FROM t WHERE token(a, b) > ? AND token(a, b) <= ?",
            (all[9].0, all[4].0),
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_misuse_is_rejected_word_for_word() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k1 uuid, k2 text, PRIMARY KEY ((k1, k2)))",
            &[],
        )
        .await
        .unwrap();
    let cases = [
        ("SELECT token(k1) FROM t", "Invalid number of arguments in call to function system.token: 2 required but 1 provided"),
        ("SELECT token(k2, k1) FROM t", "Type error: k2 cannot be passed as argument 0 of function system.token of type uuid"),
        ("SELECT * FROM t WHERE token(k1) > 0", "The token() function must be applied to all partition key components or none of them"),
        ("SELECT * FROM t WHERE token(k2, k1) > 0", "The token function arguments must be in the partition key order: k1, k2"),
        ("SELECT * FROM t WHERE token(k1, k2) > 0 AND token(k1, k2) > 1", "More than one restriction was found for the start bound on token(k1, k2)"),
    ];
    for (cql, message) in cases {
        let err = session.query_unpaged(cql, &[]).await.unwrap_err();
        assert_eq!(
            db_error(&err),
            Some((DbError::Invalid, message.to_string())),
            "{cql}"
        );
    }
}

/// All (c1, c2) in 0..4 × 0..4 under partition k = 0.
async fn grid(session: &scylla::client::session::Session, table: &str, order: &str) {
    session
        .query_unpaged(format!("CREATE TABLE {table} (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY ({order})"), &[])
        .await
        .unwrap();
    for c1 in 0..4 {
        for c2 in 0..4 {
            session
                .query_unpaged(
                    format!("INSERT INTO {table} (k, c1, c2, v) VALUES (0, ?, ?, ?)"),
                    (c1, c2, c1 * 10 + c2),
                )
                .await
                .unwrap();
        }
    }
}

async fn pairs(session: &scylla::client::session::Session, cql: String) -> Vec<(i32, i32)> {
    query_rows::<(i32, i32)>(session, cql, &[]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_column_relations_follow_tuple_order_in_every_clustering_order() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    for (table, order) in [
        ("t_asc", "c1 ASC, c2 ASC"),
        ("t_desc", "c1 DESC, c2 DESC"),
        ("t_mixed", "c1 ASC, c2 DESC"),
    ] {
        grid(&session, table, order).await;
        let all: Vec<(i32, i32)> =
            pairs(&session, format!("SELECT c1, c2 FROM {table} WHERE k = 0")).await;
        let expect = |pred: &dyn Fn(&(i32, i32)) -> bool| -> Vec<(i32, i32)> {
            all.iter().copied().filter(pred).collect()
        };
        assert_eq!(
            pairs(
                &session,
                format!("SELECT c1, c2 FROM {table} WHERE k = 0 AND (c1, c2) > (1, 2)")
            )
            .await,
            expect(&|p| *p > (1, 2)),
            "{table} >"
        );
        assert_eq!(
            pairs(&session, format!("SELECT c1, c2 FROM {table} WHERE k = 0 AND (c1, c2) >= (1, 2) AND (c1, c2) < (3, 1)")).await,
            expect(&|p| *p >= (1, 2) && *p < (3, 1)),
            "{table} range"
        );
        assert_eq!(
            pairs(
                &session,
                format!(
                    "SELECT c1, c2 FROM {table} WHERE k = 0 AND (c1, c2) <= (2, 0) AND (c1) > (0)"
                )
            )
            .await,
            expect(&|p| *p <= (2, 0) && p.0 > 0),
            "{table} mixed widths"
        );
        assert_eq!(
            pairs(
                &session,
                format!("SELECT c1, c2 FROM {table} WHERE k = 0 AND c1 = 2 AND (c2) >= (1)")
            )
            .await,
            expect(&|p| p.0 == 2 && p.1 >= 1),
            "{table} single eq then multi slice"
        );
        let mut got = pairs(
            &session,
            format!(
                "SELECT c1, c2 FROM {table} WHERE k = 0 AND (c1, c2) IN ((3, 3), (0, 1), (9, 9))"
            ),
        )
        .await;
        got.sort();
        assert_eq!(got, vec![(0, 1), (3, 3)], "{table} IN");
        assert_eq!(
            pairs(
                &session,
                format!("SELECT c1, c2 FROM {table} WHERE k = 0 AND (c1, c2) = (2, 3)")
            )
            .await,
            vec![(2, 3)]
        );
    }
    // Prepared, with a marker per element and a marker for the whole tuple.
    let prepared = session
        .prepare("SELECT c1, c2 FROM t_asc WHERE k = ? AND (c1, c2) > (?, ?)")
        .await
        .unwrap();
    let rows = session
        .execute_unpaged(&prepared, (0, 3, 1))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 2);
    let prepared = session
        .prepare("SELECT c1, c2 FROM t_asc WHERE k = ? AND (c1, c2) = ?")
        .await
        .unwrap();
    let rows = session
        .execute_unpaged(&prepared, (0, (1, 1)))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(
        rows.rows::<(i32, i32)>()
            .unwrap()
            .map(|r| r.unwrap())
            .collect::<Vec<_>>(),
        vec![(1, 1)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_of_values_bounds_a_token_relation() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (a int, b text, v int, PRIMARY KEY ((a, b)))",
            &[],
        )
        .await
        .unwrap();
    for a in 0..10 {
        session
            .query_unpaged("INSERT INTO t (a, b, v) VALUES (?, 'x', ?)", (a, a * 10))
            .await
            .unwrap();
    }
    let literal: Vec<(i32,)> = query_rows(
        &session,
        "SELECT v FROM t WHERE token(a, b) = token(3, 'x')",
        &[],
    )
    .await;
    assert_eq!(literal, [(30,)]);
    let prepared = session
        .prepare("SELECT a FROM t WHERE token(a, b) >= token(?, ?) AND token(a, b) <= token(?, ?)")
        .await
        .unwrap();
    let names: Vec<&str> = prepared
        .get_variable_col_specs()
        .iter()
        .map(|spec| spec.name())
        .collect();
    assert_eq!(names[..2], ["arg0(system.token)", "arg1(system.token)"]);
    let rows = session
        .execute_unpaged(&prepared, (7, "x", 7, "x"))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.single_row::<(i32,)>().unwrap(), (7,));
    assert_eq!(
        query_error(&session, "DELETE FROM t WHERE token(a, b) = token(1, 'x')").await,
        (
            DbError::Invalid,
            "The token function cannot be used in WHERE clauses for DELETE statements".into()
        )
    );
    assert_eq!(
        query_error(&session, "SELECT v FROM t WHERE token(a, b) = token(1)").await,
        (
            DbError::Invalid,
            "Invalid number of arguments in call to function system.token: 2 required but 1 provided".into()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_range_narrows_the_partitions_a_key_selects() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", &[])
        .await
        .unwrap();
    for k in 0..6 {
        session
            .query_unpaged("INSERT INTO t (k, v) VALUES (?, ?)", (k, k))
            .await
            .unwrap();
    }
    let all: Vec<(i64, i32)> = query_rows(
        &session,
        "SELECT token(k), k FROM t WHERE k IN (0, 1, 2, 3, 4, 5)",
        &[],
    )
    .await;
    let median = {
        let mut tokens: Vec<i64> = all.iter().map(|r| r.0).collect();
        tokens.sort();
        tokens[2]
    };
    let mut expected: Vec<i32> = all.iter().filter(|r| r.0 > median).map(|r| r.1).collect();
    expected.sort();
    let got: Vec<(i32,)> = query_rows(
        &session,
        "SELECT k FROM t WHERE k IN (0, 1, 2, 3, 4, 5) AND token(k) > ?",
        (median,),
    )
    .await;
    let got: Vec<i32> = got.into_iter().map(|r| r.0).collect();
    assert_eq!(got, expected);
    assert_eq!(got.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_column_slice_joins_a_multi_column_slice_on_its_first_column() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    for (table, order) in [
        ("up", ""),
        ("down", " WITH CLUSTERING ORDER BY (b ASC, c DESC, d DESC)"),
    ] {
        session
            .query_unpaged(
                format!("CREATE TABLE {table} (a int, b int, c int, d int, PRIMARY KEY (a, b, c, d)){order}"),
                &[],
            )
            .await
            .unwrap();
        for (b, c, d) in [
            (0, 0, 0),
            (0, 1, 0),
            (0, 1, 1),
            (1, 0, 0),
            (1, 1, 0),
            (1, 1, 1),
            (1, 2, 0),
        ] {
            session
                .query_unpaged(
                    format!("INSERT INTO {table} (a, b, c, d) VALUES (0, ?, ?, ?)"),
                    (b, c, d),
                )
                .await
                .unwrap();
        }
        let mut rows: Vec<(i32, i32)> = query_rows(
            &session,
            format!(
                "SELECT c, d FROM {table} WHERE a = 0 AND b = 1 AND (c, d) > (0, 0) AND c <= 1"
            ),
            &[],
        )
        .await;
        rows.sort();
        assert_eq!(rows, [(1, 0), (1, 1)], "{table}");
        let mut rows: Vec<(i32, i32)> = query_rows(
            &session,
            format!(
                "SELECT c, d FROM {table} WHERE a = 0 AND b = 1 AND c > 0 AND (c, d) <= (1, 0)"
            ),
            &[],
        )
        .await;
        rows.sort();
        assert_eq!(rows, [(1, 0)], "{table}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_primary_key_reads_are_point_lookups_with_statics_tombstones_and_ttl() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    let run = |cql: &'static str| {
        let session = &session;
        async move { session.query_unpaged(cql, &[]).await.unwrap() }
    };
    run("CREATE TABLE t (k int, c int, s int STATIC, v int, PRIMARY KEY (k, c))").await;
    run("INSERT INTO t (k, s) VALUES (1, 7)").await;
    for c in 0..50 {
        session
            .query_unpaged("INSERT INTO t (k, c, v) VALUES (1, ?, ?)", (c, c * 10))
            .await
            .unwrap();
    }
    run("INSERT INTO t (k, c, v) VALUES (1, 60, 600) USING TTL 5").await;
    run("DELETE FROM t WHERE k = 1 AND c >= 10 AND c < 20").await;
    let point = "SELECT k, c, s, v FROM t WHERE k = 1 AND c = ?";
    let before = server.rows_read();
    let rows: Vec<(i32, i32, Option<i32>, Option<i32>)> = query_rows(&session, point, (30,)).await;
    assert_eq!(rows, [(1, 30, Some(7), Some(300))]);
    assert!(
        server.rows_read() - before <= 2,
        "the row and the static row, nothing scanned"
    );
    let shadowed: Vec<(i32, i32, Option<i32>, Option<i32>)> =
        query_rows(&session, point, (15,)).await;
    assert!(shadowed.is_empty(), "a range tombstone shadows the row");
    let live: Vec<(i32, i32, Option<i32>, Option<i32>)> = query_rows(&session, point, (60,)).await;
    assert_eq!(live, [(1, 60, Some(7), Some(600))]);
    server.advance_clock(std::time::Duration::from_secs(6));
    let expired: Vec<(i32, i32, Option<i32>, Option<i32>)> =
        query_rows(&session, point, (60,)).await;
    assert!(expired.is_empty(), "an expired row is gone");
    // IN over clustering keys: point lookups in clustering order, paged.
    let cql = "SELECT c, v FROM t WHERE k = 1 AND c IN (40, 2, 15, 3)";
    let rows: Vec<(i32, Option<i32>)> = query_rows(&session, cql, &[]).await;
    assert_eq!(rows, [(2, Some(20)), (3, Some(30)), (40, Some(400))]);
    let pages: Vec<(i32, Option<i32>)> = integration_tests::query_all_pages(&session, cql, 1).await;
    assert_eq!(pages, rows);
    // A table without clustering columns: the partition key is the whole primary key.
    run("CREATE TABLE single (k int PRIMARY KEY, v int)").await;
    run("INSERT INTO single (k, v) VALUES (3, 33)").await;
    let before = server.rows_read();
    let single: Vec<(i32, Option<i32>)> =
        query_rows(&session, "SELECT k, v FROM single WHERE k = 3", &[]).await;
    assert_eq!(single, [(3, Some(33))]);
    assert_eq!(server.rows_read() - before, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_slice_past_many_dead_rows_still_finds_its_row() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)",
            &[],
        )
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO t (k, c, v) VALUES (1, ?, ?)")
        .await
        .unwrap();
    let delete = session
        .prepare("DELETE FROM t WHERE k = 1 AND c = ?")
        .await
        .unwrap();
    session.execute_unpaged(&insert, (0, 7)).await.unwrap();
    // More deleted rows ahead of the live one than a read tries on the runtime's thread.
    for c in 1..=400 {
        session.execute_unpaged(&insert, (c, c)).await.unwrap();
        session.execute_unpaged(&delete, (c,)).await.unwrap();
    }
    let latest = "SELECT c, v FROM t WHERE k = 1 LIMIT 1";
    let before = server.rows_read();
    let rows: Vec<(i32, Option<i32>)> = query_rows(&session, latest, &[]).await;
    assert_eq!(rows, [(0, Some(7))]);
    assert!(
        server.rows_read() - before > 401,
        "tried inline, then read again"
    );
    session.execute_unpaged(&insert, (500, 5)).await.unwrap();
    let before = server.rows_read();
    let rows: Vec<(i32, Option<i32>)> = query_rows(&session, latest, &[]).await;
    assert_eq!(rows, [(500, Some(5))]);
    assert!(
        server.rows_read() - before <= 2,
        "a live row first: one row read"
    );
}
