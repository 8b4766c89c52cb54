//! `decimal` and `varint` beyond 128 bits through the driver: arithmetic as Java's
//! `BigDecimal`/`BigInteger` (sums of 10,000 digits, Cassandra's division scale), `sum`/`avg`,
//! casts, text and JSON, and clustering order.

use integration_tests::{query_error, query_rows, query_single_row, session_in, TestServer};
use num_bigint::BigInt;
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::{CqlDecimal, CqlVarint};

/// `t (p int PRIMARY KEY, a decimal, b decimal, v varint, w varint)`.
async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (p int PRIMARY KEY, a decimal, b decimal, v varint, w varint)",
            &[],
        )
        .await
        .expect("create table");
    session
}

/// Runs `cql`, panicking on failure.
async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

/// `(unscaled, scale)` of a decimal written as digits with an optional point.
fn decimal(text: &str) -> (BigInt, i32) {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let unscaled = format!("{int}{frac}").parse().expect("digits");
    (unscaled, frac.len() as i32)
}

/// `(unscaled, scale)` of a decimal read from the server.
fn parts(d: &CqlDecimal) -> (BigInt, i32) {
    let (bytes, scale) = d.as_signed_be_bytes_slice_and_exponent();
    (BigInt::from_signed_bytes_be(bytes), scale)
}

/// The integer a varint read from the server holds.
fn integer(v: &CqlVarint) -> BigInt {
    BigInt::from_signed_bytes_be(v.as_signed_bytes_be_slice())
}

/// The single decimal `cql` selects.
async fn one_decimal(session: &Session, cql: &str) -> (BigInt, i32) {
    let (d,) = query_single_row::<(CqlDecimal,)>(session, cql, &[]).await;
    parts(&d)
}

/// The single varint `cql` selects.
async fn one_varint(session: &Session, cql: &str) -> BigInt {
    let (v,) = query_single_row::<(CqlVarint,)>(session, cql, &[]).await;
    integer(&v)
}

#[tokio::test]
async fn arithmetic_goes_beyond_128_bits() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let a = "12345678901234567890123456789012345678901234567890.5";
    let v = "1606938044258990275541962092341162602522202993782792835301383"; // 2^200 + 7
    run(
        &session,
        &format!("INSERT INTO t (p, a, b, v, w) VALUES (1, {a}, 0.25, {v}, -3)"),
    )
    .await;
    let (ua, _) = decimal(a);
    let sum = one_decimal(&session, "SELECT a + b FROM t WHERE p = 1").await;
    assert_eq!(sum, (&ua * 10 + 25, 2));
    let product = one_decimal(&session, "SELECT a * a FROM t WHERE p = 1").await;
    assert_eq!(product, (&ua * &ua, 2));
    let quotient = one_decimal(&session, "SELECT a / b FROM t WHERE p = 1").await;
    assert_eq!(quotient, (&ua * 4 / 10, 0), "trailing zeros stripped");
    let big: BigInt = v.parse().expect("digits");
    let squared = one_varint(&session, "SELECT v * v FROM t WHERE p = 1").await;
    assert_eq!(squared, &big * &big);
    let divided = one_varint(&session, "SELECT v / w FROM t WHERE p = 1").await;
    assert_eq!(divided, &big / -3);
    let rest = one_varint(&session, "SELECT v % w FROM t WHERE p = 1").await;
    assert_eq!(rest, &big % -3);
    let mixed = one_varint(&session, "SELECT v - 8 FROM t WHERE p = 1").await;
    assert_eq!(mixed, &big - 8);
    let (code, message) = query_error(&session, "SELECT v / 0 FROM t WHERE p = 1").await;
    assert_eq!(
        code,
        DbError::FunctionFailure {
            keyspace: "system".into(),
            function: "_divide".into(),
            arg_types: vec!["varint".into(), "int".into()],
        }
    );
    assert_eq!(
        message,
        "the operation 'varint / int' failed: BigInteger divide by zero"
    );
}

#[tokio::test]
async fn decimal_precision_follows_cassandra() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (p, a, b) VALUES (1, 1, 3)").await;
    run(&session, "INSERT INTO t (p, a, b) VALUES (2, 1e10000, 5)").await;
    run(&session, "INSERT INTO t (p, a, b) VALUES (3, 1e9999, 1)").await;
    run(&session, "INSERT INTO t (p, a, b) VALUES (4, 1, 6)").await;
    let third = one_decimal(&session, "SELECT a / b FROM t WHERE p = 1").await;
    assert_eq!(third, decimal(&format!("0.{}", "3".repeat(32))));
    let sixth = one_decimal(&session, "SELECT a / b FROM t WHERE p = 4").await;
    assert_eq!(sixth, decimal(&format!("0.1{}7", "6".repeat(30))));
    // 10,000 digits stay exact...
    let exact = one_decimal(&session, "SELECT a + b FROM t WHERE p = 3").await;
    assert_eq!(exact, decimal(&format!("1{}1", "0".repeat(9998))));
    // ...and a 10,001st is rounded HALF_UP: 10^10000 + 5 becomes 10^10000 + 10.
    let rounded = one_decimal(&session, "SELECT a + b FROM t WHERE p = 2").await;
    let ten: BigInt = format!("1{}1", "0".repeat(9998)).parse().expect("digits");
    assert_eq!(rounded, (ten, -1));
    let rest = one_decimal(&session, "SELECT a % b FROM t WHERE p = 4").await;
    assert_eq!(rest, decimal("1"));
}

#[tokio::test]
async fn sum_and_avg_of_big_values() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let big = format!("1{}", "0".repeat(50));
    for (p, a, v) in [(1, ".25", "1"), (2, ".75", "2"), (3, ".5", "4")] {
        run(
            &session,
            &format!("INSERT INTO t (p, a, v) VALUES ({p}, {big}{a}, {big}{v})"),
        )
        .await;
    }
    let (sum_a, avg_a, sum_v, avg_v) =
        query_single_row::<(CqlDecimal, CqlDecimal, CqlVarint, CqlVarint)>(
            &session,
            "SELECT sum(a), avg(a), sum(v), avg(v) FROM t",
            &[],
        )
        .await;
    let n: BigInt = big.parse().expect("digits");
    assert_eq!(parts(&sum_a), (&n * 300 + 150, 2));
    assert_eq!(parts(&avg_a), (&n * 100 + 50, 2));
    assert_eq!(integer(&sum_v), &n * 30 + 7);
    assert_eq!(integer(&avg_v), (&n * 30 + 7) / 3);
}

#[tokio::test]
async fn casts_text_and_json_of_big_values() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let v = "1606938044258990275541962092341162602522202993782792835301383"; // 2^200 + 7
    run(
        &session,
        &format!("INSERT INTO t (p, a, v) VALUES (1, 0.000000123456789012345678901234567890123456789, {v})"),
    )
    .await;
    let (text, int, decimal_v, a_text, a_double) =
        query_single_row::<(String, i32, CqlDecimal, String, f64)>(
            &session,
            "SELECT CAST(v AS text), CAST(v AS int), CAST(v AS decimal), CAST(a AS text), \
             CAST(a AS double) FROM t WHERE p = 1",
            &[],
        )
        .await;
    assert_eq!(text, v);
    assert_eq!(int, 7);
    assert_eq!(parts(&decimal_v), (v.parse().expect("digits"), 0));
    assert_eq!(a_text, "1.23456789012345678901234567890123456789E-7");
    assert_eq!(a_double, 1.2345678901234568e-7);
    let (json,) =
        query_single_row::<(String,)>(&session, "SELECT JSON v, a FROM t WHERE p = 1", &[]).await;
    assert_eq!(
        json,
        format!("{{\"v\": {v}, \"a\": 1.23456789012345678901234567890123456789E-7}}")
    );
    let product = format!("{}", v.parse::<BigInt>().expect("digits") * 2);
    run(
        &session,
        &format!("INSERT INTO t JSON '{{\"p\": 2, \"v\": {product}, \"a\": \"1e-40\"}}'"),
    )
    .await;
    let rows = query_rows::<(String, String)>(
        &session,
        "SELECT toJson(v), toJson(a) FROM t WHERE p = 2",
        &[],
    )
    .await;
    assert_eq!(rows, vec![(product, "1E-40".to_string())]);
}

#[tokio::test]
async fn big_clustering_keys_sort_numerically() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE k (p int, d decimal, v varint, PRIMARY KEY (p, d, v))",
    )
    .await;
    let values = [
        ("-1e1000000", "-340282366920938463463374607431768211457"),
        ("-0.5", "-1"),
        ("1e-1000000", "0"),
        ("1", "340282366920938463463374607431768211456"),
        (
            "19866597869857659876855e1000000000",
            "1606938044258990275541962092341162602522202993782792835301383",
        ),
    ];
    for (d, v) in values.iter().rev() {
        run(
            &session,
            &format!("INSERT INTO k (p, d, v) VALUES (1, {d}, {v})"),
        )
        .await;
    }
    let rows =
        query_rows::<(CqlDecimal, CqlVarint)>(&session, "SELECT d, v FROM k WHERE p = 1", &[])
            .await;
    let got: Vec<BigInt> = rows.iter().map(|(_, v)| integer(v)).collect();
    let want: Vec<BigInt> = values
        .iter()
        .map(|(_, v)| v.parse().expect("digits"))
        .collect();
    assert_eq!(got, want);
    let first = parts(&rows[0].0);
    assert_eq!(first, (BigInt::from(-1), -1_000_000));
}
