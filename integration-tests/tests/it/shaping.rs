//! Result shaping through the driver: aggregates, aliases, GROUP BY, DISTINCT, PER PARTITION
//! LIMIT, IN partition order, ORDER BY across IN partitions, and how many stored rows each
//! key-restricted read examines.

use integration_tests::{
    query_all_pages, query_error, query_rows, query_single_row, session_in, TestServer,
};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::unprepared::Statement;

/// `CREATE TABLE t (k int, c1 int, c2 int, v int, d double, PRIMARY KEY (k, c1, c2))` with
/// partitions 0..4, `c1` in 0..2, `c2` in 0..3; `v = 100k + 10c1 + c2`, null when `c2 = 2`;
/// and an empty `composite` table keyed `((a, b), c)`.
async fn grouped_table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k int, c1 int, c2 int, v int, d double, PRIMARY KEY (k, c1, c2))",
            &[],
        )
        .await
        .unwrap();
    session
        .query_unpaged(
            "CREATE TABLE composite (a int, b int, c int, PRIMARY KEY ((a, b), c))",
            &[],
        )
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO t (k, c1, c2, v, d) VALUES (?, ?, ?, ?, ?)")
        .await
        .unwrap();
    for k in 0..4 {
        for c1 in 0..2 {
            for c2 in 0..3 {
                let v = (c2 != 2).then_some(100 * k + 10 * c1 + c2);
                let d = f64::from(c2) + 0.5;
                session
                    .execute_unpaged(&insert, (k, c1, c2, v, d))
                    .await
                    .unwrap();
            }
        }
    }
    session
}

/// The message with which `cql` is rejected as Invalid.
async fn invalid(session: &Session, cql: &str) -> String {
    let (code, message) = query_error(session, cql).await;
    assert_eq!(code, DbError::Invalid, "{cql}: {message}");
    message
}

/// `count(*), count(v), min(v), max(v), sum(v), avg(v), sum(d)`.
type Aggregates = (
    i64,
    i64,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<f64>,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregates_follow_cassandra_and_carry_its_names() {
    let server = TestServer::start().await;
    let session = grouped_table(&server).await;
    let row: Aggregates = query_single_row(
        &session,
        "SELECT count(*), count(v), min(v), max(v), sum(v), avg(v), sum(d) FROM t WHERE k = 1",
        &[],
    )
    .await;
    // Values 100, 101, 110, 111 (nulls skipped); d = 0.5, 1.5, 2.5 twice.
    assert_eq!(
        row,
        (6, 4, Some(100), Some(111), Some(422), Some(105), Some(9.0))
    );
    // Result metadata names them as Cassandra does, aliases win.
    let result = session
        .query_unpaged(
            "SELECT count(*), max(v), sum(v) AS total, COUNT(1) FROM t WHERE k = 1",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let names: Vec<&str> = result
        .column_specs()
        .iter()
        .map(|spec| spec.name())
        .collect();
    assert_eq!(names, ["count", "system.max(v)", "total", "count"]);
    // No rows: counts are 0, sum and avg 0, min/max and plain columns null.
    let empty: (Option<i32>, i64, Option<i32>, Option<i32>, Option<i32>) = query_single_row(
        &session,
        "SELECT c1, count(*), min(v), sum(v), avg(v) FROM t WHERE k = 9",
        &[],
    )
    .await;
    assert_eq!(empty, (None, 0, None, Some(0), Some(0)));
    // A plain column next to an aggregate takes the group's first row.
    let first: (i32, i32, i64) =
        query_single_row(&session, "SELECT c1, c2, count(*) FROM t WHERE k = 2", &[]).await;
    assert_eq!(first, (0, 0, 6));
    // Whole-table aggregate, paged internally; LIMIT applies to the one result row.
    let total: (i64,) = query_single_row(&session, "SELECT count(*) FROM t LIMIT 1", &[]).await;
    assert_eq!(total, (24,));
    let message = invalid(&session, "SELECT sum(k) FROM t PER PARTITION LIMIT 1").await;
    assert_eq!(
        message,
        "PER PARTITION LIMIT is not allowed with aggregate queries."
    );
    let message = session
        .query_unpaged("CREATE TABLE s (k int PRIMARY KEY, name text)", &[])
        .await
        .map(|_| ());
    assert!(message.is_ok());
    let message = invalid(&session, "SELECT avg(name) FROM s").await;
    assert!(
        message.starts_with("Invalid call to function avg, none of its type signatures match"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_by_folds_key_prefixes_with_limits_and_paging() {
    let server = TestServer::start().await;
    let session = grouped_table(&server).await;
    let by_row: Vec<(i32, i32, i64, Option<i32>)> = query_rows(
        &session,
        "SELECT k, c1, count(*), max(v) FROM t WHERE k = 3 GROUP BY k, c1",
        &[],
    )
    .await;
    assert_eq!(by_row, [(3, 0, 3, Some(301)), (3, 1, 3, Some(311))]);
    // GROUP BY may skip a column fixed by `=`.
    let skipped: Vec<(i32, i32, i64)> = query_rows(
        &session,
        "SELECT c1, c2, count(*) FROM t WHERE k = 3 AND c1 = 1 GROUP BY c2",
        &[],
    )
    .await;
    assert_eq!(skipped, [(1, 0, 1), (1, 1, 1), (1, 2, 1)]);
    // Whole table, grouped by partition; the same rows page by page, one group a page.
    let all: Vec<(i32, i64)> =
        query_rows(&session, "SELECT k, count(*) FROM t GROUP BY k", &[]).await;
    assert_eq!(all.len(), 4);
    assert!(all.iter().all(|&(_, n)| n == 6));
    let pages: Vec<(i32, i64)> =
        query_all_pages(&session, "SELECT k, count(*) FROM t GROUP BY k", 1).await;
    assert_eq!(pages, all);
    // Groups count against LIMIT and PER PARTITION LIMIT, also across pages.
    let cql = "SELECT k, c1, sum(v) FROM t GROUP BY k, c1 PER PARTITION LIMIT 1 LIMIT 3";
    let limited: Vec<(i32, i32, Option<i32>)> = query_rows(&session, cql, &[]).await;
    let expected: Vec<(i32, i32, Option<i32>)> = all
        .iter()
        .take(3)
        .map(|&(k, _)| (k, 0, Some(200 * k + 1)))
        .collect();
    assert_eq!(limited, expected);
    let limited_pages: Vec<(i32, i32, Option<i32>)> = query_all_pages(&session, cql, 2).await;
    assert_eq!(limited_pages, expected);
    // Cassandra's errors.
    for (cql, message) in [
        (
            "SELECT count(*) FROM t GROUP BY v",
            "Group by is currently only supported on the columns of the PRIMARY KEY, got v",
        ),
        (
            "SELECT count(*) FROM t GROUP BY k, c2",
            "Group by currently only support groups of columns following their declared order in the PRIMARY KEY",
        ),
        (
            "SELECT count(*) FROM t GROUP BY c1",
            "Group by currently only support groups of columns following their declared order in the PRIMARY KEY",
        ),
        (
            "SELECT DISTINCT k FROM t GROUP BY k, c1",
            "Grouping on clustering columns is not allowed for SELECT DISTINCT queries",
        ),
    ] {
        assert_eq!(invalid(&session, cql).await, message, "{cql}");
    }
    assert_eq!(
        invalid(&session, "SELECT count(*) FROM composite GROUP BY a").await,
        "Group by is not supported on only a part of the partition key"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distinct_and_per_partition_limit_read_one_partition_at_a_time() {
    let server = TestServer::start().await;
    let session = grouped_table(&server).await;
    let keys: Vec<(i32,)> = query_rows(&session, "SELECT DISTINCT k FROM t", &[]).await;
    let mut sorted: Vec<i32> = keys.iter().map(|k| k.0).collect();
    sorted.sort();
    assert_eq!(sorted, [0, 1, 2, 3]);
    let before = server.rows_read();
    let limited: Vec<(i32,)> = query_rows(&session, "SELECT DISTINCT k FROM t LIMIT 2", &[]).await;
    assert_eq!(limited, keys[..2]);
    assert!(
        server.rows_read() - before <= 2,
        "DISTINCT reads one row per partition"
    );
    assert_eq!(
        query_all_pages::<(i32,)>(&session, "SELECT DISTINCT k FROM t", 3).await,
        keys
    );
    let in_keys: Vec<(i32,)> =
        query_rows(&session, "SELECT DISTINCT k FROM t WHERE k IN (3, 1)", &[]).await;
    assert_eq!(in_keys, [(1,), (3,)]);

    // PER PARTITION LIMIT: the first rows of every partition, resumable mid-partition.
    let cql = "SELECT k, c1, c2 FROM t PER PARTITION LIMIT 4";
    let rows: Vec<(i32, i32, i32)> = query_rows(&session, cql, &[]).await;
    let expected: Vec<(i32, i32, i32)> = keys
        .iter()
        .flat_map(|&(k,)| [(k, 0, 0), (k, 0, 1), (k, 0, 2), (k, 1, 0)])
        .collect();
    assert_eq!(rows, expected);
    for page_size in [1, 3, 5] {
        assert_eq!(
            query_all_pages::<(i32, i32, i32)>(&session, cql, page_size).await,
            expected
        );
    }
    let before = server.rows_read();
    let with_limit: Vec<(i32, i32, i32)> = query_rows(
        &session,
        "SELECT k, c1, c2 FROM t PER PARTITION LIMIT 2 LIMIT 5",
        &[],
    )
    .await;
    assert_eq!(with_limit.len(), 5);
    assert!(
        server.rows_read() - before <= 6,
        "partitions are skipped, not read"
    );
    let reversed: Vec<(i32, i32)> = query_rows(
        &session,
        "SELECT c1, c2 FROM t WHERE k = 1 ORDER BY c1 DESC PER PARTITION LIMIT 2",
        &[],
    )
    .await;
    assert_eq!(reversed, [(1, 2), (1, 1)]);

    for (cql, message) in [
        (
            "SELECT DISTINCT k FROM t PER PARTITION LIMIT 1",
            "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries",
        ),
        (
            "SELECT DISTINCT k, v FROM t",
            "SELECT DISTINCT queries must only request partition key columns and/or static columns (not v)",
        ),
        (
            "SELECT DISTINCT k FROM t WHERE k = 1 AND c1 = 0",
            "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.",
        ),
        (
            "SELECT k FROM t PER PARTITION LIMIT 0",
            "PER PARTITION LIMIT must be strictly positive",
        ),
    ] {
        assert_eq!(invalid(&session, cql).await, message, "{cql}");
    }
    assert_eq!(
        invalid(&session, "SELECT DISTINCT a FROM composite").await,
        "SELECT DISTINCT queries must request all the partition key columns (missing b)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_partitions_come_in_key_order_and_order_by_sorts_across_them() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE ev (k int, ts int, v text, PRIMARY KEY (k, ts)) WITH CLUSTERING ORDER BY (ts DESC)",
            &[],
        )
        .await
        .unwrap();
    for (k, ts) in [(1, 10), (1, 40), (2, 20), (2, 50), (3, 30), (5, 5), (5, 60)] {
        session
            .query_unpaged(
                "INSERT INTO ev (k, ts, v) VALUES (?, ?, ?)",
                (k, ts, format!("{k}@{ts}")),
            )
            .await
            .unwrap();
    }
    // IN partitions in key order (not token order), duplicates once; rows newest first.
    let by_key: Vec<(i32, i32)> = query_rows(
        &session,
        "SELECT k, ts FROM ev WHERE k IN (3, 1, 2, 1)",
        &[],
    )
    .await;
    assert_eq!(by_key, [(1, 40), (1, 10), (2, 50), (2, 20), (3, 30)]);
    // Pages resume in that order too (partition 5 has the lowest token of all), with the
    // LIMIT carried across pages.
    let mut all = by_key.clone();
    all.extend([(5, 60), (5, 5)]);
    for limit in [2, 5, 6, 7] {
        let cql = format!("SELECT k, ts FROM ev WHERE k IN (5, 3, 2, 1) LIMIT {limit}");
        for page_size in [1, 2, 3] {
            let pages: Vec<(i32, i32)> = query_all_pages(&session, &cql, page_size).await;
            assert_eq!(pages, all[..limit], "{cql} in pages of {page_size}");
        }
    }
    // ORDER BY across IN partitions sorts all rows, then applies LIMIT.
    let ascending: Vec<(i32,)> = query_rows(
        &session,
        "SELECT ts FROM ev WHERE k IN (1, 2, 3) ORDER BY ts ASC LIMIT 4",
        &[],
    )
    .await;
    assert_eq!(ascending, [(10,), (20,), (30,), (40,)]);
    // A column named twice counts once with its last direction, as 5.0 keeps them.
    for (cql, expected) in [
        (
            "SELECT ts FROM ev WHERE k = 1 ORDER BY ts ASC, ts DESC",
            vec![(40,), (10,)],
        ),
        (
            "SELECT ts FROM ev WHERE k IN (1, 2) ORDER BY ts DESC, ts ASC",
            vec![(10,), (20,), (40,), (50,)],
        ),
    ] {
        let rows: Vec<(i32,)> = query_rows(&session, cql, &[]).await;
        assert_eq!(rows, expected, "{cql}");
    }
    let descending: Vec<(String,)> = query_rows(
        &session,
        "SELECT v FROM ev WHERE k IN (1, 2) ORDER BY ts DESC",
        &[],
    )
    .await;
    let descending: Vec<&str> = descending.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(descending, ["2@50", "1@40", "2@20", "1@10"]);
    // ... and, as in Cassandra, cannot be paged.
    let mut statement = Statement::new("SELECT ts FROM ev WHERE k IN (1, 2) ORDER BY ts ASC");
    statement.set_page_size(100);
    let err = session.query_iter(statement, &[]).await.err();
    let err = match err {
        Some(err) => err.to_string(),
        None => String::from("no error"),
    };
    assert!(
        err.contains("Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_restricted_reads_examine_at_most_one_row_past_the_result() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE w (k int, c int, v int, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO w (k, c, v) VALUES (?, ?, ?)")
        .await
        .unwrap();
    for k in 0..3 {
        for c in 0..200 {
            session
                .execute_unpaged(&insert, (k, c, k * c))
                .await
                .unwrap();
        }
    }
    for (cql, returned) in [
        ("SELECT v FROM w WHERE k = 1 AND c = 7", 1),
        ("SELECT v FROM w WHERE k = 1 AND c >= 10 AND c < 20", 10),
        (
            "SELECT v FROM w WHERE k = 1 AND c > 150 ORDER BY c DESC",
            49,
        ),
        ("SELECT v FROM w WHERE k = 2 LIMIT 5", 5),
        ("SELECT v FROM w WHERE k = 2 AND c IN (3, 9, 300)", 2),
        ("SELECT v FROM w WHERE k IN (0, 2) AND c < 3", 6),
        ("SELECT v FROM w WHERE k = 1 AND (c) >= (190)", 10),
    ] {
        let before = server.rows_read();
        let rows: Vec<(Option<i32>,)> = query_rows(&session, cql, &[]).await;
        let examined = server.rows_read() - before;
        assert_eq!(rows.len(), returned, "{cql}");
        assert!(
            examined <= returned as u64 + 1,
            "{cql}: examined {examined} rows for {returned}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_by_may_skip_columns_fixed_by_equality() {
    let server = TestServer::start().await;
    let session = grouped_table(&server).await;
    let rows: Vec<(i32,)> = query_rows(
        &session,
        "SELECT c2 FROM t WHERE k = 1 AND c1 = 1 ORDER BY c2 DESC",
        &[],
    )
    .await;
    assert_eq!(rows, [(2,), (1,), (0,)]);
    let rows: Vec<(i32,)> = query_rows(
        &session,
        "SELECT c2 FROM t WHERE k = 1 AND c1 IN (0) ORDER BY c2 DESC",
        &[],
    )
    .await;
    assert_eq!(rows, [(2,), (1,), (0,)]);
    assert_eq!(
        invalid(&session, "SELECT c2 FROM t WHERE k = 1 AND c1 > 0 ORDER BY c2 DESC").await,
        "Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY"
    );
}

/// A result row takes each selected column's value: a column selected twice, or beside a
/// function of itself, is in the row each time, whether read by its full key (a point read)
/// or by a partition (a slice); columns selected once each come whole, the key's among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_output_gets_its_value_even_when_a_column_repeats() {
    let server = TestServer::start().await;
    let session = grouped_table(&server).await;
    let point = "WHERE k = 1 AND c1 = 0 AND c2 = 1";
    let once: (i32, i32, i32, Option<i32>) =
        query_single_row(&session, format!("SELECT k, c1, c2, v FROM t {point}"), ()).await;
    assert_eq!(once, (1, 0, 1, Some(101)));
    let twice: (Option<i32>, i32, Option<i32>, i32) =
        query_single_row(&session, format!("SELECT v, k, v, k FROM t {point}"), ()).await;
    assert_eq!(twice, (Some(101), 1, Some(101), 1));
    let with_function: (i32, String, i32) = query_single_row(
        &session,
        format!("SELECT c2, CAST(c2 AS text), c2 FROM t {point}"),
        (),
    )
    .await;
    assert_eq!(with_function, (1, "1".to_string(), 1));
    let slice: Vec<(i32, i32, i32)> = query_rows(
        &session,
        "SELECT c2, k, c2 FROM t WHERE k = 2 AND c1 = 1",
        (),
    )
    .await;
    assert_eq!(slice, [(0, 2, 0), (1, 2, 1), (2, 2, 2)]);
}
