//! Corners of native functions and casts that Cassandra 5.0 takes: `minTimeuuid` and
//! `maxTimeuuid` over every timestamp, casts of `token(...)` and of other selectors, and
//! `date` literals over the whole range (negative years included).

use integration_tests::{query_error, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::{CqlDate, CqlTimeuuid};

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", &[])
        .await
        .unwrap();
    session
        .query_unpaged("INSERT INTO t (k, v) VALUES (1, 2)", &[])
        .await
        .unwrap();
    session
}

/// Any timestamp gives Cassandra's timeuuid (its long arithmetic wraps; no range check).
#[tokio::test]
async fn timeuuid_bounds_take_every_timestamp() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (min, max): (CqlTimeuuid, CqlTimeuuid) = query_single_row(
        &session,
        "SELECT minTimeuuid(-9223372036854775808), maxTimeuuid(9223372036854775807) FROM t",
        (),
    )
    .await;
    assert_eq!(min.to_string(), "13814000-1dd2-11b2-8080-808080808080");
    assert_eq!(max.to_string(), "13813fff-1dd2-11b2-7f7f-7f7f7f7f7f7f");
    let (before_1582,): (CqlTimeuuid,) =
        query_single_row(&session, "SELECT minTimeuuid(-12219292800001) FROM t", ()).await;
    assert_eq!(
        before_1582.to_string(),
        "ffffd8f0-ffff-ffff-8080-808080808080"
    );
}

/// The names and types of `cql`'s result columns and its one row, as text.
async fn named_row(session: &Session, cql: &str) -> (Vec<String>, Vec<Option<String>>) {
    let rows = session
        .query_unpaged(cql, ())
        .await
        .expect(cql)
        .into_rows_result()
        .expect("rows");
    let names = rows
        .column_specs()
        .iter()
        .map(|c| c.name().to_owned())
        .collect();
    let (values,): (Vec<Option<String>>,) = (rows
        .rows::<scylla::value::Row>()
        .expect("rows")
        .map(|r| {
            r.expect("row")
                .columns
                .into_iter()
                .map(|c| c.map(|v| format!("{v:?}")))
                .collect::<Vec<_>>()
        })
        .next()
        .expect("one row"),);
    (names, values)
}

/// `CAST` takes `token(...)` and other function selectors; a cast to the value's own type
/// is dropped (its column keeps the argument's name), as Cassandra's `WithCast` does.
#[tokio::test]
async fn casts_take_token_and_function_selectors() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (token,): (i64,) = query_single_row(&session, "SELECT token(k) FROM t", ()).await;
    let (names, values) = named_row(
        &session,
        "SELECT CAST(token(k) AS text), CAST(token(k) AS bigint), CAST(CAST(v AS bigint) AS text), \
         CAST(minTimeuuid(0) AS text) FROM t",
    )
    .await;
    assert_eq!(
        names,
        [
            "cast(system.token(k) as text)",
            "system.token(k)",
            "cast(cast(v as bigint) as text)",
            "cast(system.mintimeuuid(0) as text)"
        ]
    );
    assert_eq!(
        values,
        [
            Some(format!("Text({:?})", token.to_string())),
            Some(format!("BigInt({token})")),
            Some("Text(\"2\")".to_owned()),
            Some("Text(\"13814000-1dd2-11b2-8080-808080808080\")".to_owned())
        ]
    );
    let (text,): (String,) = query_single_row(
        &session,
        "SELECT CAST(token(k) AS text) FROM t WHERE token(k) = ?",
        (token,),
    )
    .await;
    assert_eq!(text, token.to_string());
}

/// Cassandra 5.0's math functions, in selectors, over columns and literals, named
/// `system.abs(v)` and typed as their argument.
#[tokio::test]
async fn math_functions_are_selectors() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (names, values) = named_row(
        &session,
        "SELECT abs(v), exp(CAST(v AS double)), log10(CAST(v AS bigint)), round(CAST(v AS float)), \
         abs(-5), round(2.5), log(v - 3) FROM t",
    )
    .await;
    assert_eq!(
        names,
        [
            "system.abs(v)",
            "system.exp(cast(v as double))",
            "system.log10(cast(v as bigint))",
            "system.round(cast(v as float))",
            "system.abs(-5)",
            "system.round(2.5)",
            "system.log(v - 3)"
        ]
    );
    assert_eq!(
        values,
        [
            Some("Int(2)".to_owned()),
            Some(format!("Double({:?})", 2f64.exp())),
            Some("BigInt(0)".to_owned()),
            Some("Float(2.0)".to_owned()),
            Some("Int(5)".to_owned()),
            Some("Double(3.0)".to_owned()),
            Some("Int(0)".to_owned())
        ]
    );
}

/// Cassandra 5.0's snake-case function names (CASSANDRA-18037) beside the legacy ones, each
/// naming its own column.
#[tokio::test]
async fn snake_case_function_names_are_callable() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (names, values) = named_row(
        &session,
        "SELECT to_unix_timestamp(min_timeuuid(0)), blob_as_int(int_as_blob(v)), \
         tounixtimestamp(maxtimeuuid(0)) FROM t",
    )
    .await;
    assert_eq!(
        names,
        [
            "system.to_unix_timestamp(system.min_timeuuid(0))",
            "system.blob_as_int(system.int_as_blob(v))",
            "system.tounixtimestamp(system.maxtimeuuid(0))"
        ]
    );
    assert_eq!(
        values,
        [
            Some("BigInt(0)".to_owned()),
            Some("Int(2)".to_owned()),
            Some("BigInt(0)".to_owned())
        ]
    );
    let (today,): (scylla::value::CqlDate,) =
        query_single_row(&session, "SELECT current_date() FROM t", ()).await;
    assert!(today.0 > 1 << 31);
}

/// `date` literals over the whole range `ISO_LOCAL_DATE` reads (negative years with four or
/// more digits, `+` before years past 9999), the same days bound as values, and each printed
/// back as Cassandra prints it; past the range, Cassandra's messages.
#[tokio::test]
async fn dates_take_negative_years_and_the_whole_range() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE d (k int PRIMARY KEY, v date)", &[])
        .await
        .unwrap();
    let epoch = 1u32 << 31;
    let cases = [
        ("0000-01-01", epoch - 719_528),
        ("-0001-12-31", epoch - 719_529),
        ("-9999-01-01", epoch - 4_371_587),
        ("-262144-12-31", epoch - 96_465_293),
        ("+10000-01-01", epoch + 2_932_897),
        ("-5877641-06-23", 0),
        ("+5881580-07-11", u32::MAX),
    ];
    for (literal, days) in cases {
        let insert = format!("INSERT INTO d (k, v) VALUES (1, '{literal}')");
        session.query_unpaged(insert, &[]).await.unwrap();
        let (read, text): (CqlDate, String) =
            query_single_row(&session, "SELECT v, CAST(v AS text) FROM d WHERE k = 1", ()).await;
        assert_eq!((read, text.as_str()), (CqlDate(days), literal), "{literal}");
        session
            .query_unpaged("INSERT INTO d (k, v) VALUES (2, ?)", (CqlDate(days),))
            .await
            .unwrap();
        let (json,): (String,) =
            query_single_row(&session, "SELECT toJson(v) FROM d WHERE k = 2", ()).await;
        assert_eq!(json, format!("\"{literal}\""));
    }
    let (code, message) = query_error(
        &session,
        "INSERT INTO d (k, v) VALUES (1, '-5877641-06-22')",
    )
    .await;
    assert!(matches!(code, DbError::Invalid), "{code:?}");
    assert_eq!(
        message,
        "Input date -5877641-06-22 is less than min supported date -5877641-06-23T00:00Z"
    );
    let (_, message) =
        query_error(&session, "INSERT INTO d (k, v) VALUES (1, '-0000-01-01')").await;
    assert_eq!(
        message,
        "Unable to coerce '-0000-01-01' to a formatted date (long)"
    );
}

/// Cassandra 5.0's cast functions are called by their snake-case names (`cast_as_text`) and
/// by their legacy camel-case ones (quoted: `"castAsText"`); each names its column as the
/// `CAST` it stands for.
#[tokio::test]
async fn cast_functions_answer_to_both_names() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (names, values) = named_row(
        &session,
        "SELECT cast_as_text(v), \"castAsText\"(v), system.cast_as_bigint(v) FROM t",
    )
    .await;
    assert_eq!(
        names,
        ["cast(v as text)", "cast(v as text)", "cast(v as bigint)"]
    );
    assert_eq!(
        values,
        [
            Some("Text(\"2\")".to_owned()),
            Some("Text(\"2\")".to_owned()),
            Some("BigInt(2)".to_owned())
        ]
    );
}
