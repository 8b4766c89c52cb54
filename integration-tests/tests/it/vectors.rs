//! Cassandra 5.0's vectors through the driver: the `vector<T, n>` type (its `[option]` as the
//! driver decodes it, literals, bind markers, keys), the similarity functions, vector search
//! with `ORDER BY v ANN OF [...] LIMIT n`, and the refusals of user-defined functions and
//! triggers, with Cassandra's messages word for word.

use integration_tests::{query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::frame::response::result::{ColumnType, NativeType};

/// The message with which `cql` is rejected as Invalid.
async fn invalid(session: &Session, cql: &str) -> String {
    let (code, message) = query_error(session, cql).await;
    assert_eq!(code, DbError::Invalid, "{cql}: {message}");
    message
}

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vector_columns_travel_as_cassandra_types_them() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE t (k int PRIMARY KEY, v vector<float, 3>, words vector<text, 2>)",
    )
    .await;
    run(
        &session,
        "INSERT INTO t (k, v, words) VALUES (1, [1.0, 2.5, -3], ['a', 'bcd'])",
    )
    .await;
    let insert = session
        .prepare("INSERT INTO t (k, v, words) VALUES (?, ?, ?)")
        .await
        .expect("prepare");
    let words = vec!["x".to_string(), "yz".to_string()];
    session
        .execute_unpaged(&insert, (2, vec![0.5f32, 0.25, 0.125], words.clone()))
        .await
        .expect("bound vectors");
    let rows: Vec<(i32, Vec<f32>, Vec<String>)> =
        query_rows(&session, "SELECT k, v, words FROM t WHERE k IN (1, 2)", &[]).await;
    assert_eq!(
        rows,
        vec![
            (1, vec![1.0, 2.5, -3.0], vec!["a".into(), "bcd".into()]),
            (2, vec![0.5, 0.25, 0.125], words),
        ]
    );
    let result = session
        .query_unpaged("SELECT v FROM t WHERE k = 1", &[])
        .await
        .expect("select");
    let rows = result.into_rows_result().expect("rows");
    assert_eq!(
        rows.column_specs()
            .iter()
            .next()
            .expect("one column")
            .typ()
            .clone()
            .into_owned(),
        ColumnType::Vector {
            typ: Box::new(ColumnType::Native(NativeType::Float)),
            dimensions: 3,
        }
    );
    let types: Vec<(String,)> = query_rows(
        &session,
        "SELECT type FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 't'",
        &[],
    )
    .await;
    assert!(types.contains(&("vector<float, 3>".to_string(),)));
    assert_eq!(
        invalid(&session, "INSERT INTO t (k, v) VALUES (3, [1.0, 2.0])").await,
        "Invalid vector literal for v of type vector<float, 3>; expected 3 elements, but given 2"
    );
    assert_eq!(
        invalid(&session, "INSERT INTO t (k, words) VALUES (3, [1, 2])").await,
        "Invalid vector literal for words: value 1 is not of type text"
    );
    assert_eq!(
        invalid(
            &session,
            "CREATE TABLE z (k int PRIMARY KEY, v vector<float, 0>)"
        )
        .await,
        "vectors may only have positive dimensions; given 0"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_can_be_keys() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE k (p vector<int, 2>, c vector<int, 2>, PRIMARY KEY (p, c)) \
         WITH CLUSTERING ORDER BY (c DESC)",
    )
    .await;
    for c in ["[1, 2]", "[-1, 5]", "[1, -3]"] {
        run(
            &session,
            &format!("INSERT INTO k (p, c) VALUES ([7, 8], {c})"),
        )
        .await;
    }
    let rows: Vec<(Vec<i32>,)> =
        query_rows(&session, "SELECT c FROM k WHERE p = [7, 8]", &[]).await;
    // Element by element, signed, descending.
    assert_eq!(rows, vec![(vec![1, 2],), (vec![1, -3],), (vec![-1, 5],)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn similarity_functions_score_as_cassandra_does() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE s (k int PRIMARY KEY, v vector<float, 2>, n int)",
    )
    .await;
    run(
        &session,
        "INSERT INTO s (k, v, n) VALUES (0, [0.1, 0.2], 1)",
    )
    .await;
    let rows: Vec<(f32, f32, f32)> = query_rows(
        &session,
        "SELECT similarity_cosine(v, [0.9, 0.8]), similarity_euclidean(v, [0.9, 0.8]), \
         similarity_dot_product(v, [0.9, 0.8]) FROM s",
        &[],
    )
    .await;
    let (cosine, euclidean, dot) = rows[0];
    assert!((cosine - 0.964_238).abs() < 1e-6, "{cosine}");
    assert!((euclidean - 0.5).abs() < 1e-6, "{euclidean}");
    assert!((dot - 0.625).abs() < 1e-6, "{dot}");
    assert_eq!(
        invalid(&session, "SELECT similarity_cosine(v, [0, 0]) FROM s").await,
        "Function system.similarity_cosine doesn't support all-zero vectors."
    );
    assert_eq!(
        invalid(
            &session,
            "SELECT similarity_dot_product(v, [1, 2, 3]) FROM s"
        )
        .await,
        "All arguments must have the same vector dimensions"
    );
    assert_eq!(
        invalid(&session, "SELECT similarity_euclidean(n, [1, 2]) FROM s").await,
        "Function system.similarity_euclidean requires a float vector argument, but found argument n of type int"
    );
    assert_eq!(
        invalid(&session, "SELECT similarity_cosine(null, null) FROM s").await,
        "Cannot infer type of argument NULL in call to function system.similarity_cosine"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ann_queries_return_the_nearest_rows_exactly() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE a (k int, c int, v vector<float, 2>, x int, PRIMARY KEY (k, c))",
    )
    .await;
    let created = session
        .query_unpaged(
            "CREATE INDEX ON a(v) USING 'sai' WITH OPTIONS = {'similarity_function': 'euclidean'}",
            &[],
        )
        .await
        .expect("vector index");
    assert!(
        created
            .warnings()
            .any(|w| w.starts_with("SAI ANN indexes on vector columns are experimental")),
        "5.0's usage warning"
    );
    for k in 0..3 {
        for c in 0..4 {
            run(
                &session,
                &format!("INSERT INTO a (k, c, v, x) VALUES ({k}, {c}, [{k}, {c}], 0)"),
            )
            .await;
        }
    }
    let nearest: Vec<(i32, i32)> = query_rows(
        &session,
        "SELECT k, c FROM a ORDER BY v ANN OF [2.1, 3.2] LIMIT 3",
        &[],
    )
    .await;
    assert_eq!(nearest, vec![(2, 3), (1, 3), (2, 2)]);
    let in_partition: Vec<(i32, i32)> = query_rows(
        &session,
        "SELECT k, c FROM a WHERE k = 0 ORDER BY v ANN OF [5, 5] LIMIT 2",
        &[],
    )
    .await;
    assert_eq!(in_partition, vec![(0, 3), (0, 2)]);
    let prepared = session
        .prepare("SELECT c FROM a WHERE k = 1 ORDER BY v ANN OF ? LIMIT 1")
        .await
        .expect("prepare");
    let result = session
        .execute_unpaged(&prepared, (vec![1.0f32, 0.9],))
        .await
        .expect("bound query vector");
    let rows: Vec<(i32,)> = result
        .into_rows_result()
        .expect("rows")
        .rows::<(i32,)>()
        .expect("typed")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(rows, vec![(1,)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ann_queries_cassandra_refuses_are_refused_with_its_messages() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE r (k int PRIMARY KEY, v vector<float, 2>, w vector<float, 2>, x int)",
    )
    .await;
    run(
        &session,
        "CREATE CUSTOM INDEX ON r(v) USING 'StorageAttachedIndex'",
    )
    .await;
    let cases = [
        (
            "SELECT * FROM r ORDER BY w ANN OF [1, 2] LIMIT 1",
            "ANN ordering by vector requires the column to be indexed",
        ),
        (
            "SELECT * FROM r ORDER BY v ANN OF [1, 2]",
            "Top-K queries must have a limit specified and the limit must be less than the query page size",
        ),
        (
            "SELECT * FROM r ORDER BY v ANN OF [1, 2] LIMIT 1001",
            "Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than 1000. LIMIT was 1001",
        ),
        (
            "SELECT * FROM r ORDER BY v ANN OF [1, 2] DESC LIMIT 1",
            "Descending ANN ordering is not supported",
        ),
        (
            "SELECT * FROM r WHERE x = 1 ORDER BY v ANN OF [1, 2] LIMIT 1",
            "ANN ordering by vector requires all restricted column(s) to be indexed",
        ),
        (
            "SELECT * FROM r ORDER BY v ANN OF [1] LIMIT 1",
            "Invalid vector literal for v of type vector<float, 2>; expected 2 elements, but given 1",
        ),
        (
            "SELECT * FROM r ORDER BY v ANN OF null LIMIT 1",
            "Unsupported null value for column v",
        ),
        (
            "SELECT * FROM r WHERE v = [1, 2]",
            "Vector indexes only support ANN queries",
        ),
    ];
    for (cql, message) in cases {
        assert_eq!(invalid(&session, cql).await, message, "{cql}");
    }
    assert_eq!(
        invalid(
            &session,
            "CREATE CUSTOM INDEX ON r(w) USING 'sai' WITH OPTIONS = {'similarity_function': 'nope'}"
        )
        .await,
        "Similarity function NOPE was not recognized for index r_w_idx. Valid values are: EUCLIDEAN, DOT_PRODUCT, COSINE"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_and_aggregates_are_not_run_and_triggers_are_refused() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE t (k int PRIMARY KEY)").await;
    // cqld runs no user code: the message says so, not which setting to change.
    let udfs = "cqld does not run user-defined functions: CREATE FUNCTION is not supported, whatever user_defined_functions_enabled says";
    let udas = "cqld does not run user-defined aggregates: CREATE AGGREGATE is not supported, whatever user_defined_functions_enabled says";
    let cases = [
        (
            "CREATE FUNCTION f (a int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return a;'",
            udfs,
        ),
        (
            "CREATE OR REPLACE AGGREGATE agg (int) SFUNC f STYPE int INITCOND 0",
            udas,
        ),
        ("DROP FUNCTION f(int)", "Function 'ks.f(int)' doesn't exist"),
        ("DROP AGGREGATE agg", "Aggregate 'ks.agg' doesn't exist"),
        (
            "CREATE TRIGGER tr ON t USING 'org.example.Audit'",
            "Trigger class 'org.example.Audit' couldn't be loaded",
        ),
        ("DROP TRIGGER tr ON t", "Trigger 'tr' on 'ks.t' doesn't exist"),
    ];
    for (cql, message) in cases {
        assert_eq!(invalid(&session, cql).await, message, "{cql}");
    }
    run(&session, "DROP FUNCTION IF EXISTS f").await;
    run(&session, "DROP TRIGGER IF EXISTS tr ON t").await;
}
