//! Native functions through the driver: function, cast and arithmetic selectors with
//! Cassandra's column names and types, functions and operators in INSERT, UPDATE and WHERE
//! terms, bind markers inside calls, and the errors word for word.

use integration_tests::{prepare_db_error, query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::frame::response::result::{ColumnType, NativeType};
use scylla::value::{CqlDate, CqlDuration, CqlTimestamp, CqlTimeuuid};

/// `t (k int, c int, v text, b blob, i int, g bigint, f float, ts timestamp, u timeuuid,
/// d date, PRIMARY KEY (k, c))` with one row `k = 1, c = 2`.
async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k int, c int, v text, b blob, i int, g bigint, f float, \
             ts timestamp, u timeuuid, d date, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    session
        .query_unpaged(
            "INSERT INTO t (k, c, v, b, i, g, f, ts, u, d) VALUES (1, 2, 'hi', 0x0000002a, 7, \
             8, 5.2, '2015-05-21 11:03:02+0000', 50554d6e-29bb-11e5-b345-feff819cdc9f, \
             '2015-05-21')",
            &[],
        )
        .await
        .unwrap();
    session
}

/// The result column names and types of `cql`.
async fn columns(session: &Session, cql: &str) -> Vec<(String, ColumnType<'static>)> {
    let result = session.query_unpaged(cql, &[]).await.expect(cql);
    let rows = result.into_rows_result().expect("rows");
    rows.column_specs()
        .iter()
        .map(|spec| (spec.name().to_string(), spec.typ().clone().into_owned()))
        .collect()
}

fn native(ty: NativeType) -> ColumnType<'static> {
    ColumnType::Native(ty)
}

/// The message with which `cql` is rejected as Invalid.
async fn invalid(session: &Session, cql: &str) -> String {
    let (code, message) = query_error(session, cql).await;
    assert_eq!(code, DbError::Invalid, "{cql}: {message}");
    message
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_selectors_are_named_and_typed_as_cassandra_does() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let cql = "SELECT textAsBlob(v), system.blobAsInt(b), CAST(i AS text), CAST(i AS int), \
               i + 1, -g, i * g, toUnixTimestamp(ts), intAsBlob(?), v + '!' FROM t WHERE k = 1";
    let prepared = session.prepare(cql).await.unwrap();
    let specs = prepared.get_current_result_set_col_specs();
    let names: Vec<String> = specs
        .get()
        .iter()
        .map(|spec| spec.name().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "system.textasblob(v)",
            "system.blobasint(b)",
            "cast(i as text)",
            "i",
            "i + 1",
            "-g",
            "i * g",
            "system.tounixtimestamp(ts)",
            "system.intasblob(?)",
            "v + '!'",
        ]
    );
    let markers: Vec<(String, ColumnType<'static>)> = prepared
        .get_variable_col_specs()
        .iter()
        .map(|spec| (spec.name().to_string(), spec.typ().clone().into_owned()))
        .collect();
    assert_eq!(
        markers,
        [("[selection]".to_string(), native(NativeType::Int))]
    );
    type Row = (
        Vec<u8>,
        i32,
        String,
        i32,
        i32,
        i64,
        i64,
        i64,
        Vec<u8>,
        String,
    );
    let rows = session
        .execute_unpaged(&prepared, (9,))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let row: Row = rows.single_row().unwrap();
    assert_eq!(
        row,
        (
            b"hi".to_vec(),
            42,
            "7".into(),
            7,
            8,
            -8,
            56,
            1_432_206_182_000,
            vec![0, 0, 0, 9],
            "hi!".into()
        )
    );
    let types = columns(
        &session,
        "SELECT i + 1, i + g, i + f, g + f, CAST(f AS double) FROM t",
    )
    .await
    .into_iter()
    .map(|(_, ty)| ty)
    .collect::<Vec<_>>();
    assert_eq!(
        types,
        [
            native(NativeType::Int),
            native(NativeType::BigInt),
            native(NativeType::Float),
            native(NativeType::Double),
            native(NativeType::Double),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_functions_convert_columns_and_literals() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (ts, date, unix, dated): (CqlTimestamp, CqlDate, i64, CqlTimestamp) = session
        .query_unpaged(
            "SELECT toTimestamp(u), toDate(ts), unixTimestampOf(u), toTimestamp(d) FROM t",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .single_row()
        .unwrap();
    assert_eq!(ts, CqlTimestamp(1_436_832_018_805));
    assert_eq!(date, CqlDate((1 << 31) + 16_576));
    assert_eq!(unix, 1_436_832_018_805);
    assert_eq!(dated, CqlTimestamp(1_432_166_400_000));
    // minTimeuuid/maxTimeuuid bracket the millisecond of the stored timeuuid.
    let found: Vec<(i32,)> = query_rows(
        &session,
        "SELECT k FROM t WHERE k = 1 AND c = 2 AND u > minTimeuuid('2015-07-14 00:00:18.805+0000') \
         AND u < maxTimeuuid('2015-07-14 00:00:18.805+0000') ALLOW FILTERING",
        &[],
    )
    .await;
    assert_eq!(found, [(1,)]);
    // Duration literals are typed elsewhere; bound durations exercise the arithmetic.
    let shift = session
        .prepare("SELECT ts + (duration) ?, d - (duration) ? FROM t")
        .await
        .unwrap();
    let hour = 3_600_000_000_000i64;
    let month_and_two_hours = CqlDuration {
        months: 1,
        days: 0,
        nanoseconds: 2 * hour,
    };
    let year_and_a_day = CqlDuration {
        months: 12,
        days: 1,
        nanoseconds: 0,
    };
    let moved: (CqlTimestamp, CqlDate) = session
        .execute_unpaged(&shift, (month_and_two_hours, year_and_a_day))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .single_row()
        .unwrap();
    assert_eq!(
        moved,
        (
            CqlTimestamp(1_432_206_182_000 + (31 * 24 + 2) * 3_600_000),
            CqlDate((1 << 31) + 16_576 - 366)
        )
    );
    let err = session
        .execute_unpaged(&shift, (year_and_a_day, month_and_two_hours))
        .await
        .expect_err("a date moves by whole days");
    let (code, message) = integration_tests::db_error(&err).expect("a database error");
    assert_eq!(
        message,
        "the operation 'date - duration' failed: The duration must have a day precision. Was: 1mo2h"
    );
    assert!(matches!(code, DbError::FunctionFailure { .. }));
    let cast: Vec<(String, String, CqlDate)> = query_rows(
        &session,
        "SELECT CAST(ts AS text), CAST(d AS text), CAST(u AS date) FROM t",
        &[],
    )
    .await;
    assert_eq!(
        cast,
        [(
            "2015-05-21T11:03:02.000Z".to_string(),
            "2015-05-21".to_string(),
            CqlDate((1 << 31) + 16_630)
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_and_operators_work_in_insert_update_and_where_terms() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    session
        .query_unpaged(
            "INSERT INTO t (k, c, v, b, u, ts, g) VALUES (2, 1 + 2, 'x', textAsBlob('abc'), \
             now(), toTimestamp(now()), 5 * 3)",
            &[],
        )
        .await
        .unwrap();
    type Row = (i32, Vec<u8>, Option<CqlTimeuuid>, Option<CqlTimestamp>, i64);
    let rows: Vec<Row> =
        query_rows(&session, "SELECT c, b, u, ts, g FROM t WHERE k = 2", &[]).await;
    assert_eq!(rows.len(), 1);
    let (c, b, u, ts, g) = rows[0].clone();
    assert_eq!((c, b.as_slice(), g), (3, &b"abc"[..], 15));
    assert!(u.is_some() && ts.is_some());
    session
        .query_unpaged(
            "UPDATE t SET b = intAsBlob(5), i = 10 % 4 WHERE k = 2 AND c = 3",
            &[],
        )
        .await
        .unwrap();
    let updated: Vec<(Vec<u8>, i32)> = query_rows(
        &session,
        "SELECT b, i FROM t WHERE k = 2 AND c = 1 + 2",
        &[],
    )
    .await;
    assert_eq!(updated, [(vec![0, 0, 0, 5], 2)]);
    session
        .query_unpaged(
            "INSERT INTO t (k, c, i, v) VALUES (5, CAST(1.3 AS int), CAST(7.9 AS int), \
             CAST(12 AS text))",
            &[],
        )
        .await
        .unwrap();
    let cast: Vec<(i32, i32, String)> = query_rows(
        &session,
        "SELECT c, i, v FROM t WHERE k = 5 AND c = CAST(1.0 AS int)",
        &[],
    )
    .await;
    assert_eq!(cast, [(1, 7, "12".to_string())]);
    let filtered: Vec<(i32,)> = query_rows(
        &session,
        "SELECT c FROM t WHERE b = intAsBlob(5) ALLOW FILTERING",
        &[],
    )
    .await;
    assert_eq!(filtered, [(3,)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markers_inside_calls_are_prepared_with_the_argument_types() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let insert = session
        .prepare("INSERT INTO t (k, c, b, ts) VALUES (?, ?, textAsBlob(?), toTimestamp((date) ?))")
        .await
        .unwrap();
    let specs: Vec<(String, ColumnType<'static>)> = insert
        .get_variable_col_specs()
        .iter()
        .map(|spec| (spec.name().to_string(), spec.typ().clone().into_owned()))
        .collect();
    assert_eq!(
        specs[2..],
        [
            (
                "arg0(system.textasblob)".to_string(),
                native(NativeType::Text)
            ),
            (
                "arg0(system.totimestamp)".to_string(),
                native(NativeType::Date)
            ),
        ]
    );
    session
        .execute_unpaged(&insert, (3, 4, "blob", CqlDate((1 << 31) + 1)))
        .await
        .unwrap();
    let rows: Vec<(Vec<u8>, CqlTimestamp)> =
        query_rows(&session, "SELECT b, ts FROM t WHERE k = 3", &[]).await;
    assert_eq!(rows, [(b"blob".to_vec(), CqlTimestamp(86_400_000))]);
    let delete = session
        .prepare("DELETE FROM t WHERE k = ? AND c = (int) ? + 1")
        .await
        .unwrap();
    let names: Vec<&str> = delete
        .get_variable_col_specs()
        .iter()
        .map(|spec| spec.name())
        .collect();
    assert_eq!(names, ["k", "arg0(system._add)"]);
    session.execute_unpaged(&delete, (3, 3)).await.unwrap();
    let left: Vec<(i32,)> = query_rows(&session, "SELECT c FROM t WHERE k = 3", &[]).await;
    assert!(left.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_hinted_markers_in_selectors_take_the_hinted_type() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let prepared = session
        .prepare("SELECT i + (bigint) ? FROM t WHERE k = 1")
        .await
        .unwrap();
    let markers: Vec<(String, ColumnType<'static>)> = prepared
        .get_variable_col_specs()
        .iter()
        .map(|spec| (spec.name().to_string(), spec.typ().clone().into_owned()))
        .collect();
    assert_eq!(
        markers,
        [("[selection]".to_string(), native(NativeType::BigInt))]
    );
    let specs = prepared.get_current_result_set_col_specs();
    let names: Vec<&str> = specs.get().iter().map(|spec| spec.name()).collect();
    assert_eq!(names, ["i + (bigint)?"]);
    let rows = session
        .execute_unpaged(&prepared, (5i64,))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.single_row::<(i64,)>().unwrap(), (12,));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregates_take_function_selectors() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    for c in 3..6 {
        session
            .query_unpaged(
                format!("INSERT INTO t (k, c, b, i) VALUES (1, {c}, intAsBlob({c}0), {c})"),
                &[],
            )
            .await
            .unwrap();
    }
    let names = columns(
        &session,
        "SELECT max(blobAsInt(b)), sum(i + 1) FROM t WHERE k = 1",
    )
    .await
    .into_iter()
    .map(|(name, _)| name)
    .collect::<Vec<_>>();
    assert_eq!(
        names,
        ["system.max(system.blobasint(b))", "system.sum(i + 1)"]
    );
    let rows: Vec<(i32, i32)> = query_rows(
        &session,
        "SELECT max(blobAsInt(b)), sum(i + 1) FROM t WHERE k = 1",
        &[],
    )
    .await;
    assert_eq!(rows, [(50, 8 + 4 + 5 + 6)]);
}

/// Functions, casts and operators apply to an aggregate's result, once per group, named as
/// Cassandra names them; with a marker bound like any selector's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_apply_to_aggregate_results() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    session
        .query_unpaged(
            "INSERT INTO t (k, c, i, u) VALUES (1, 3, 9, 6b1b3620-33fd-11eb-8080-808080808080)",
            &[],
        )
        .await
        .unwrap();
    let cql =
        "SELECT todate(max(u)), cast(count(*) AS int), max(i) + 1, -sum(i) FROM t WHERE k = 1";
    let names: Vec<String> = columns(&session, cql)
        .await
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        [
            "system.todate(system.max(u))",
            "cast(count as int)",
            "system.max(i) + 1",
            "-system.sum(i)"
        ]
    );
    let rows: Vec<(CqlDate, i32, i32, i32)> = query_rows(&session, cql, &[]).await;
    // 2020-12-01 is day 18,597 since the epoch; dates count from 2^31.
    assert_eq!(rows, [(CqlDate((1 << 31) + 18_597), 2, 10, -16)]);
    let prepared = session
        .prepare("SELECT max(i) * (int) ? FROM t WHERE k = 1")
        .await
        .unwrap();
    let rows = session
        .execute_unpaged(&prepared, (3,))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let values: Vec<(i32,)> = rows.rows().unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(values, [(27,)]);
    let empty: Vec<(Option<CqlDate>,)> =
        query_rows(&session, "SELECT todate(max(u)) FROM t WHERE k = 5", &[]).await;
    assert_eq!(empty, [(None,)]);
    // Several aggregates in one selector, with a bound operand.
    let spread: Vec<(i32, i64, i32)> = query_rows(
        &session,
        "SELECT max(i) - min(i), count(*) * 10, -max(i) + (int) ? FROM t WHERE k = 1",
        (100,),
    )
    .await;
    assert_eq!(spread, [(2, 20, 91)]);
    for cql in [
        "SELECT count(count(i)) FROM t",
        "SELECT todate(max(min(u))) FROM t",
    ] {
        assert_eq!(
            invalid(&session, cql).await,
            "aggregate functions cannot be used as arguments of aggregate functions",
            "{cql}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_errors_are_cassandras() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    assert_eq!(
        invalid(&session, "SELECT nosuch(v) FROM t").await,
        "Unknown function 'nosuch'"
    );
    assert_eq!(
        invalid(&session, "INSERT INTO t (k, c, v) VALUES (1, 1, nosuch())").await,
        "Unknown function nosuch called"
    );
    assert_eq!(
        invalid(&session, "SELECT mintimeuuid(i) FROM t").await,
        "Type error: i cannot be passed as argument 0 of function system.mintimeuuid of type timestamp"
    );
    assert_eq!(
        invalid(&session, "SELECT textAsBlob(v, v) FROM t").await,
        "Invalid number of arguments in call to function system.textasblob: 1 required but 2 provided"
    );
    assert_eq!(
        invalid(&session, "SELECT blobAsBigint(b) FROM t WHERE k = 1").await,
        "In call to function system.blobasbigint, value 0x0000002a is not a valid binary representation for type bigint"
    );
    assert_eq!(
        invalid(&session, "SELECT CAST(v AS boolean) FROM t").await,
        "v cannot be cast to boolean"
    );
    assert_eq!(
        invalid(&session, "SELECT v + 1 FROM t").await,
        "the '+' operation is not supported between v and 1"
    );
    assert_eq!(
        invalid(&session, "SELECT 1 FROM t").await,
        "Cannot infer type for term 1 in selection clause (try using a cast to force a type)"
    );
    assert_eq!(
        invalid(&session, "INSERT INTO t (k, c, i) VALUES (1, 1, now())").await,
        "Type error: cannot assign result of function system.now (type timeuuid) to i (type int)"
    );
    let err = session
        .prepare("SELECT * FROM t WHERE k = ? + 1 AND c = 1")
        .await
        .expect_err("ambiguous");
    assert_eq!(
        prepare_db_error(&err),
        Some((
            DbError::Invalid,
            "Ambiguous '+' operation with args ? and 1: use type hint to disambiguate, example '(int) ?'"
                .into()
        ))
    );
    let err = session
        .prepare("SELECT * FROM t WHERE k = 1 AND c = nosuch(?)")
        .await
        .expect_err("unknown function");
    assert_eq!(
        prepare_db_error(&err),
        Some((DbError::Invalid, "Unknown function nosuch called".into()))
    );
    let (code, message) = query_error(&session, "SELECT i / 0 FROM t WHERE k = 1").await;
    assert_eq!(message, "the operation 'int / int' failed: / by zero");
    assert_eq!(
        code,
        DbError::FunctionFailure {
            keyspace: "system".into(),
            function: "_divide".into(),
            arg_types: vec!["int".into(), "int".into()],
        }
    );
}
