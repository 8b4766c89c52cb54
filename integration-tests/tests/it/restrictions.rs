//! WHERE-clause restrictions as Cassandra 5.0 plans them: multi-column relations used for
//! filtering, NOT IN filtering on every kind of column, the relations it refuses (`!=`, whole non-frozen collections and UDTs,
//! CONTAINS on clustering columns without filtering) and the messages for null and unset
//! operands of filtering and index expressions.

use integration_tests::{db_error, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::MaybeUnset;

async fn setup(server: &TestServer) -> Session {
    let session = server.session().await;
    for cql in [
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE ks.t (a int, b int, c int, d int, e int, PRIMARY KEY (a, b, c, d))",
        "CREATE TABLE ks.coll (k int PRIMARY KEY, s set<int>, m map<int, int>, v int, big blob)",
        "CREATE TYPE ks.point (x int)",
        "CREATE TABLE ks.udt (k int PRIMARY KEY, p point)",
        "CREATE TABLE ks.frozen_ck (k int, l frozen<list<int>>, v int, PRIMARY KEY (k, l))",
        "CREATE INDEX ON ks.coll (big)",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    for (a, b, c, d) in [(11, 12, 13, 14), (21, 22, 23, 24), (31, 32, 33, 34)] {
        session
            .query_unpaged(
                "INSERT INTO ks.t (a, b, c, d, e) VALUES (?, ?, ?, ?, ?)",
                (a, b, c, d, a + 4),
            )
            .await
            .unwrap();
    }
    session
}

async fn expect_invalid(session: &Session, cql: &str, message: &str) {
    let err = session.query_unpaged(cql, &[]).await.expect_err(cql);
    assert_eq!(
        db_error(&err),
        Some((DbError::Invalid, message.to_string())),
        "{cql}"
    );
}

async fn first_columns(session: &Session, cql: &str) -> Vec<i32> {
    let rows = session.query_unpaged(cql, &[]).await.expect(cql);
    let mut firsts: Vec<i32> = rows
        .into_rows_result()
        .unwrap()
        .rows::<(i32, i32, i32, i32, Option<i32>)>()
        .unwrap()
        .map(|row| row.unwrap().0)
        .collect();
    firsts.sort_unstable();
    firsts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_column_relations_filter_rows_of_every_partition() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    let cases = [
        (
            "SELECT * FROM ks.t WHERE (b, c) > (20, 30) AND d = 34 ALLOW FILTERING",
            vec![31],
        ),
        (
            "SELECT * FROM ks.t WHERE (b, c) >= (22, 23) ALLOW FILTERING",
            vec![21, 31],
        ),
        (
            "SELECT * FROM ks.t WHERE (b, c) > (22, 23) ALLOW FILTERING",
            vec![31],
        ),
        (
            "SELECT * FROM ks.t WHERE (b, c) = (12, 13) ALLOW FILTERING",
            vec![11],
        ),
        (
            "SELECT * FROM ks.t WHERE (b, c) IN ((22, 23), (12, 13)) ALLOW FILTERING",
            vec![11, 21],
        ),
        (
            "SELECT * FROM ks.t WHERE b = 22 AND (c, d) < (23, 25) ALLOW FILTERING",
            vec![21],
        ),
        // An equality on later columns, with an earlier one unrestricted, filters too.
        (
            "SELECT * FROM ks.t WHERE (c, d) = (33, 34) ALLOW FILTERING",
            vec![31],
        ),
    ];
    for (cql, expected) in cases {
        assert_eq!(first_columns(&session, cql).await, expected, "{cql}");
    }
    // Partitions whose rows all fail the relation return nothing, not their static row.
    session
        .query_unpaged(
            "CREATE TABLE ks.st (k int, c1 int, c2 int, s int static, PRIMARY KEY (k, c1, c2))",
            &[],
        )
        .await
        .unwrap();
    for k in 0..3 {
        session
            .query_unpaged(
                "INSERT INTO ks.st (k, c1, c2, s) VALUES (?, ?, ?, ?)",
                (k, k * 10, k * 10, k),
            )
            .await
            .unwrap();
    }
    let rows = session
        .query_unpaged(
            "SELECT k, c1, c2 FROM ks.st WHERE (c1, c2) = (10, 10) ALLOW FILTERING",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let rows: Vec<(i32, i32, i32)> = rows
        .rows::<(i32, i32, i32)>()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows, vec![(1, 10, 10)]);
    expect_invalid(
        &session,
        "SELECT * FROM ks.t WHERE (b, c) > (20, 30) AND d = 34",
        "Clustering column \"d\" cannot be restricted (preceding column \"b\" is restricted by a non-EQ relation)",
    )
    .await;
    expect_invalid(
        &session,
        "SELECT * FROM ks.t WHERE (c, d) = (33, 34)",
        "PRIMARY KEY column \"c\" cannot be restricted as preceding column \"b\" is not restricted",
    )
    .await;
    session
        .query_unpaged(
            "CREATE TABLE ks.cl (a int, b int, c frozen<list<int>>, PRIMARY KEY (a, b, c))",
            &[],
        )
        .await
        .unwrap();
    expect_invalid(
        &session,
        "SELECT * FROM ks.cl WHERE b > 20 AND c CONTAINS 2",
        "Clustering column \"c\" cannot be restricted (preceding column \"b\" is restricted by a non-EQ relation)",
    )
    .await;
}

/// `NOT IN` filters partition key components, clustering and regular columns (ALLOW
/// FILTERING required); a null cell matches no NOT IN, nor does any row when the list holds
/// null (`x != null` is unknown); a bound list works as a literal one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_in_filters_rows_on_any_column() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    session
        .query_unpaged("INSERT INTO ks.t (a, b, c, d) VALUES (41, 42, 43, 44)", &[])
        .await
        .unwrap();
    let cases = [
        (
            "SELECT * FROM ks.t WHERE a NOT IN (21, 41) ALLOW FILTERING",
            vec![11, 31],
        ),
        (
            "SELECT * FROM ks.t WHERE c NOT IN (13) ALLOW FILTERING",
            vec![21, 31, 41],
        ),
        (
            "SELECT * FROM ks.t WHERE e NOT IN (25) ALLOW FILTERING",
            vec![11, 31],
        ),
        (
            "SELECT * FROM ks.t WHERE a = 11 AND d NOT IN (1, 2) ALLOW FILTERING",
            vec![11],
        ),
        (
            "SELECT * FROM ks.t WHERE e NOT IN (15, null) ALLOW FILTERING",
            vec![],
        ),
    ];
    for (cql, expected) in cases {
        assert_eq!(first_columns(&session, cql).await, expected, "{cql}");
    }
    let prepared = session
        .prepare("SELECT * FROM ks.t WHERE b NOT IN ? ALLOW FILTERING")
        .await
        .unwrap();
    let rows = session
        .execute_unpaged(&prepared, (vec![12, 32],))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let firsts: Vec<i32> = rows
        .rows::<(i32, i32, i32, i32, Option<i32>)>()
        .unwrap()
        .map(|row| row.unwrap().0)
        .collect();
    assert_eq!(firsts.len(), 2);
    assert!(firsts.contains(&21) && firsts.contains(&41), "{firsts:?}");
    expect_invalid(
        &session,
        "SELECT * FROM ks.t WHERE a NOT IN (1, 2)",
        "Cannot execute this query as it might involve data filtering and thus may have \
         unpredictable performance. If you want to execute this query despite the performance \
         unpredictability, use ALLOW FILTERING",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relations_cassandra_refuses_get_its_messages() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    let refused = [
        ("SELECT * FROM ks.t WHERE a = 11 AND e != 1 ALLOW FILTERING", "Unsupported \"!=\" relation: e != 1"),
        ("SELECT * FROM ks.t WHERE a = 11 AND (b) != (1)", "Unsupported \"!=\" relation: (b) != (1)"),
        ("SELECT * FROM ks.t WHERE token(a) != 0", "Unsupported \"!=\" relation: token(a) != 0"),
        (
            "SELECT * FROM ks.t WHERE a = 11 AND (b, c) > (1, 1) AND (c) < (2)",
            "Column \"c\" cannot be restricted by two inequalities not starting with the same column",
        ),
        (
            "SELECT * FROM ks.t WHERE a = 11 AND (c, d) > (1, 1) AND b > 1",
            "PRIMARY KEY column \"c\" cannot be restricted (preceding column \"b\" is restricted by a non-EQ relation)",
        ),
        (
            "SELECT * FROM ks.t WHERE a = 11 AND c < 1 AND (b, c, d) > (1, 1, 1) ALLOW FILTERING",
            "Column \"c\" cannot be restricted by two inequalities not starting with the same column",
        ),
        (
            "SELECT * FROM ks.t WHERE a = 11 AND b > 1 AND (c, d) < (2, 2) ALLOW FILTERING",
            "Multi-column slice restrictions cannot be used for filtering.",
        ),
        (
            "SELECT * FROM ks.coll WHERE s = {1} ALLOW FILTERING",
            "Collection column 's' (set<int>) cannot be restricted by a '=' relation",
        ),
        (
            "SELECT * FROM ks.coll WHERE v = 0 AND m > {1: 1} ALLOW FILTERING",
            "Collection column 'm' (map<int, int>) cannot be restricted by a '>' relation",
        ),
        (
            "SELECT * FROM ks.coll WHERE s IN ({1}) ALLOW FILTERING",
            "Collection column 's' (set<int>) cannot be restricted by a 'IN' relation",
        ),
        (
            "SELECT * FROM ks.udt WHERE p = {x: 1} ALLOW FILTERING",
            "Non-frozen UDT column 'p' (ks.point) cannot be restricted by any relation",
        ),
        (
            "SELECT * FROM ks.udt WHERE p IS NOT NULL",
            "Unsupported restriction: p IS NOT NULL",
        ),
        (
            "SELECT * FROM ks.frozen_ck WHERE k = 1 AND l CONTAINS 1",
            "Clustering columns can only be restricted with CONTAINS with a secondary index or filtering",
        ),
        (
            "SELECT * FROM ks.frozen_ck WHERE l CONTAINS 1",
            "Clustering columns can only be restricted with CONTAINS with a secondary index or filtering",
        ),
    ];
    for (cql, message) in refused {
        expect_invalid(&session, cql, message).await;
    }
    // With filtering, CONTAINS on a frozen clustering column reads.
    session
        .query_unpaged(
            "INSERT INTO ks.frozen_ck (k, l, v) VALUES (1, [1, 2], 3)",
            &[],
        )
        .await
        .unwrap();
    let rows = session
        .query_unpaged(
            "SELECT v FROM ks.frozen_ck WHERE l CONTAINS 2 ALLOW FILTERING",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let values: Vec<i32> = rows
        .rows::<(i32,)>()
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(values, vec![3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn null_unset_and_oversized_filter_operands_are_refused() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    let unset = MaybeUnset::<i32>::Unset;
    let cases = [
        (
            "SELECT * FROM ks.coll WHERE s CONTAINS ? ALLOW FILTERING",
            "Unsupported unset value for column s",
        ),
        (
            "SELECT * FROM ks.coll WHERE v = ? ALLOW FILTERING",
            "Unsupported unset value for column v",
        ),
        (
            "SELECT * FROM ks.coll WHERE m[?] = 2 ALLOW FILTERING",
            "Unsupported unset map key for column m",
        ),
        (
            "SELECT * FROM ks.coll WHERE m[1] = ? ALLOW FILTERING",
            "Unsupported unset map value for column m",
        ),
        (
            "SELECT * FROM ks.t WHERE a = 11 AND b = ?",
            "Invalid unset value for column b",
        ),
        (
            "SELECT * FROM ks.t WHERE token(a) >= token(?)",
            "Invalid unset value for argument in call to function token",
        ),
    ];
    for (cql, message) in cases {
        let prepared = session.prepare(cql).await.expect(cql);
        let err = session
            .execute_unpaged(&prepared, (unset,))
            .await
            .expect_err(cql);
        assert_eq!(
            db_error(&err),
            Some((DbError::Invalid, message.to_string())),
            "{cql}"
        );
    }
    let null = session
        .prepare("SELECT * FROM ks.coll WHERE v = ? ALLOW FILTERING")
        .await
        .unwrap();
    let err = session
        .execute_unpaged(&null, (None::<i32>,))
        .await
        .expect_err("null");
    assert_eq!(
        db_error(&err),
        Some((
            DbError::Invalid,
            "Unsupported null value for column v".to_string()
        ))
    );
    let too_big = vec![1u8; 65 * 1024];
    let err = session
        .query_unpaged("SELECT * FROM ks.coll WHERE big = ?", (too_big.clone(),))
        .await
        .expect_err("index value over 64K");
    assert_eq!(
        db_error(&err),
        Some((
            DbError::Invalid,
            "Index expression values may not be larger than 64K".to_string()
        ))
    );
    // Without the index the same filter simply matches nothing.
    session
        .query_unpaged("DROP INDEX ks.coll_big_idx", &[])
        .await
        .unwrap();
    let rows = session
        .query_unpaged(
            "SELECT * FROM ks.coll WHERE big = ? ALLOW FILTERING",
            (too_big,),
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 0);
}

#[tokio::test]
async fn a_tuple_of_the_wrong_size_is_refused_at_prepare() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    for (cql, message) in [
        (
            "SELECT * FROM ks.t WHERE a = 0 AND (b, c) > (?, ?, ?)",
            "Expected 2 elements in value tuple, but got 3: (?, ?, ?)",
        ),
        (
            "SELECT * FROM ks.t WHERE a = 0 AND (b, c, d) IN ((?, ?))",
            "Expected 3 elements in value tuple, but got 2: (?, ?)",
        ),
    ] {
        let err = session.prepare(cql).await.expect_err(cql);
        let message = message.to_string();
        assert!(
            matches!(&err, scylla::errors::PrepareError::AllAttemptsFailed { first_attempt: scylla::errors::RequestAttemptError::DbError(DbError::Invalid, m) } if *m == message),
            "{cql}: {err:?}"
        );
    }
}

#[tokio::test]
async fn update_by_a_multi_column_in_writes_the_rows_its_tuples_name() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    session
        .query_unpaged(
            "CREATE TABLE ks.u (p int, c1 int, c2 int, v int, PRIMARY KEY (p, c1, c2))",
            &[],
        )
        .await
        .unwrap();
    for c1 in 0..2 {
        for c2 in 0..3 {
            session
                .query_unpaged(
                    "INSERT INTO ks.u (p, c1, c2, v) VALUES (0, ?, ?, 0)",
                    (c1, c2),
                )
                .await
                .unwrap();
        }
    }
    session
        .query_unpaged(
            "UPDATE ks.u SET v = 7 WHERE p = 0 AND (c1, c2) IN ((0, 1), (1, 2))",
            &[],
        )
        .await
        .unwrap();
    let prepared = session
        .prepare("UPDATE ks.u SET v = ? WHERE p = 0 AND (c1, c2) IN ?")
        .await
        .unwrap();
    session
        .execute_unpaged(&prepared, (8, vec![(1, 0)]))
        .await
        .unwrap();
    let rows: Vec<(i32, i32, i32)> = session
        .query_unpaged("SELECT c1, c2, v FROM ks.u WHERE p = 0", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .rows::<(i32, i32, i32)>()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        rows,
        [
            (0, 0, 0),
            (0, 1, 7),
            (0, 2, 0),
            (1, 0, 8),
            (1, 1, 0),
            (1, 2, 7)
        ]
    );
    expect_invalid(
        &session,
        "UPDATE ks.u SET v = 1 WHERE p = 0 AND (c1, c2) IN ((0, 1)) IF v = 0",
        "IN on the clustering key columns is not supported with conditional updates",
    )
    .await;
}
