//! Cassandra 5.0's masking functions through the scylla driver: `mask_null`,
//! `mask_default`, `mask_replace`, `mask_inner`, `mask_outer` and `mask_hash` on values of
//! each type family, their result columns' names and types, nulls, and the refusals of
//! arguments they do not take.

use std::collections::{BTreeMap, BTreeSet};

use integration_tests::{query_error, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::{CqlDate, CqlDecimal, CqlTimestamp, CqlTimeuuid, CqlVarint};

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    for cql in [
        "CREATE TABLE t (k int PRIMARY KEY, t text, a ascii, i int, b bigint, d decimal, \
         v varint, f float, bo boolean, dt date, ts timestamp, tu timeuuid, u uuid, ip inet, \
         bl blob, l list<int>, s set<text>, m map<int, text>, tup tuple<int, text>)",
        "INSERT INTO t (k, t, a, i, b, d, v, f, bo, dt, ts, tu, u, ip, bl, l, s, m, tup) \
         VALUES (1, 'confidential', 'secret', 42, 7, 2.5, 99, 1.5, true, '2024-05-01', \
         '2024-05-01 10:00:00+0000', 50554d6e-29bb-11e5-b345-feff819cdc9f, \
         6ab09bec-e68e-48d9-a5f8-97e6fb4c9b47, '10.1.2.3', 0xcafe, [1, 2], {'x'}, {1: 'one'}, \
         (5, 'five'))",
        "INSERT INTO t (k) VALUES (2)",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    session
}

async fn column_names(session: &Session, cql: &str) -> Vec<String> {
    let result = session.query_unpaged(cql, ()).await.expect(cql);
    let rows = result.into_rows_result().expect("rows");
    rows.column_specs()
        .iter()
        .map(|c| c.name().to_owned())
        .collect()
}

#[tokio::test]
async fn mask_default_gives_each_types_masked_value() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    type Scalars = (String, String, i32, i64, CqlDecimal, CqlVarint, f32, bool);
    for k in [1, 2] {
        let row: Scalars = query_single_row(
            &session,
            format!(
                "SELECT mask_default(t), mask_default(a), mask_default(i), mask_default(b), \
                 mask_default(d), mask_default(v), mask_default(f), mask_default(bo) \
                 FROM t WHERE k = {k}"
            ),
            (),
        )
        .await;
        assert_eq!((row.0.as_str(), row.1.as_str()), ("****", "****"));
        assert_eq!((row.2, row.3, row.6, row.7), (0, 0, 0.0, false));
        assert_eq!(
            row.4,
            CqlDecimal::from_signed_be_bytes_and_exponent(vec![0], 0)
        );
        assert_eq!(row.5, CqlVarint::from_signed_bytes_be(vec![0]));
    }
    type Others = (
        CqlDate,
        CqlTimestamp,
        CqlTimeuuid,
        uuid::Uuid,
        std::net::IpAddr,
        Vec<u8>,
        Option<Vec<i32>>,
        Option<BTreeSet<String>>,
        Option<BTreeMap<i32, String>>,
        (i32, String),
    );
    let row: Others = query_single_row(
        &session,
        "SELECT mask_default(dt), mask_default(ts), mask_default(tu), mask_default(u), \
         mask_default(ip), mask_default(bl), mask_default(l), mask_default(s), \
         mask_default(m), mask_default(tup) FROM t WHERE k = 1",
        (),
    )
    .await;
    assert_eq!(row.0, CqlDate(1 << 31));
    assert_eq!(row.1, CqlTimestamp(0));
    assert_eq!(
        row.2.to_string(),
        "13814000-1dd2-11b2-8080-808080808080",
        "the smallest timeuuid of the epoch"
    );
    assert_eq!(row.3, uuid::Uuid::nil());
    assert_eq!(row.4.to_string(), "0.0.0.0");
    assert!(row.5.is_empty());
    // Empty collections, which the driver may read as empty or as null.
    assert!(row.6.unwrap_or_default().is_empty());
    assert!(row.7.unwrap_or_default().is_empty());
    assert!(row.8.unwrap_or_default().is_empty());
    assert_eq!(row.9, (0, "****".to_owned()));
}

#[tokio::test]
async fn mask_null_and_mask_replace_keep_the_columns_type() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let row: (
        Option<String>,
        Option<i32>,
        String,
        CqlVarint,
        String,
        Option<i32>,
    ) = query_single_row(
        &session,
        "SELECT mask_null(t), mask_null(i), mask_replace(t, 'redacted'), \
             mask_replace(v, 1), mask_replace(a, ?), mask_replace(i, null) FROM t WHERE k = 1",
        ("x",),
    )
    .await;
    assert_eq!((row.0, row.1), (None, None));
    assert_eq!(row.2, "redacted");
    assert_eq!(row.3, CqlVarint::from_signed_bytes_be(vec![1]));
    assert_eq!(row.4, "x");
    assert_eq!(row.5, None);
    // The replacement stands even for a null value.
    let (replaced,): (i32,) =
        query_single_row(&session, "SELECT mask_replace(i, 7) FROM t WHERE k = 2", ()).await;
    assert_eq!(replaced, 7);
    assert_eq!(
        column_names(&session, "SELECT mask_null(t), mask_replace(t, 'r') FROM t").await,
        ["system.mask_null(t)", "system.mask_replace(t, 'r')"]
    );
}

#[tokio::test]
async fn mask_inner_and_mask_outer_pad_characters() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    type Row = (String, String, String, String, String, String, String);
    let row: Row = query_single_row(
        &session,
        "SELECT mask_inner(t, 1, 2), mask_outer(t, 1, 2), mask_inner(t, 2, 1, '#'), \
         mask_outer(a, 2, 2, null), mask_inner(t, null, 3), mask_inner((text) t, -1, 100, 'é'), \
         mask_outer(t, 20, 0) FROM t WHERE k = 1",
        (),
    )
    .await;
    assert_eq!(row.0, "c*********al");
    assert_eq!(row.1, "*onfidenti**");
    assert_eq!(row.2, "co#########l");
    assert_eq!(row.3, "**cr**");
    assert_eq!(row.4, "*********ial");
    assert_eq!(row.5, "confidential");
    assert_eq!(row.6, "************");
    let (null,): (Option<String>,) = query_single_row(
        &session,
        "SELECT mask_inner(t, 1, 1) FROM t WHERE k = 2",
        (),
    )
    .await;
    assert_eq!(null, None);
    assert_eq!(
        column_names(
            &session,
            "SELECT mask_inner(t, 1, 2), system.mask_outer(a, 1, 2, '#') FROM t"
        )
        .await,
        [
            "system.mask_inner(t, 1, 2)",
            "system.mask_outer(a, 1, 2, '#')"
        ]
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn mask_hash_digests_the_serialized_value() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    type Hashes = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);
    let row: Hashes = query_single_row(
        &session,
        "SELECT mask_hash(t), mask_hash(t, 'SHA-512'), mask_hash(t, 'MD5'), mask_hash(i), \
         mask_hash(t, null) FROM t WHERE k = 1",
        (),
    )
    .await;
    let sha256 = "3151084286f59511ce11d4fd234b6485012514587a1968fa55afff83b05e213e";
    assert_eq!(hex(&row.0), sha256);
    assert_eq!(hex(&row.1[..8]), "05550215e9dd0854");
    assert_eq!(hex(&row.2), "35de502b0c10aa63409da8d1ece87598");
    assert_eq!(
        hex(&row.3),
        "ae3c8b8d99a39542f78af83dbbb42c81cd94199ec1b5f60a0801063e95842570"
    );
    assert_eq!(hex(&row.4), sha256);
    let (null,): (Option<Vec<u8>>,) =
        query_single_row(&session, "SELECT mask_hash(t) FROM t WHERE k = 2", ()).await;
    assert_eq!(null, None);
    assert_eq!(
        column_names(&session, "SELECT mask_hash(i) FROM t").await,
        ["system.mask_hash(i)"]
    );
}

#[tokio::test]
async fn masking_functions_refuse_what_cassandra_refuses() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    for (cql, message) in [
        (
            "SELECT mask_inner(i, 1, 2) FROM t",
            "Function system.mask_inner requires an argument of type [text|varchar|ascii], \
             but found argument i of type int",
        ),
        (
            "SELECT mask_outer(t, b, 2) FROM t",
            "Function system.mask_outer requires an argument of type int, but found argument \
             b of type bigint",
        ),
        (
            "SELECT mask_inner(t, 1, 2, 'too_long') FROM t",
            "The padding argument for function system.mask_inner should be single-character, \
             but 'too_long' has 8 characters.",
        ),
        (
            "SELECT mask_hash(t, 'unknown-algorithm') FROM t",
            "Hash algorithm not found: unknown-algorithm",
        ),
        (
            "SELECT mask_replace(v, 1.2) FROM t",
            "Type error: 1.2 cannot be passed as argument 1 of function system.mask_replace \
             of type varint",
        ),
        (
            "SELECT mask_replace(t, 1) FROM t",
            "Type error: 1 cannot be passed as argument 1 of function system.mask_replace of \
             type text",
        ),
        (
            "SELECT mask_null(t, t) FROM t",
            "Invalid number of arguments for function system.mask_null(any)",
        ),
        (
            "SELECT mask_inner(t, 1) FROM t",
            "Invalid number of arguments for function system.mask_inner([text|varchar|ascii], \
             int, int, [text])",
        ),
        (
            "SELECT mask_default(null) FROM t",
            "Cannot infer type of argument NULL in call to function system.mask_default(any): \
             use type casts to disambiguate",
        ),
    ] {
        let (error, found) = query_error(&session, cql).await;
        assert_eq!(found, message, "{cql}");
        assert!(matches!(error, DbError::Invalid), "{cql}: {error:?}");
    }
}
