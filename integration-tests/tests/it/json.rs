//! JSON through the driver: `INSERT JSON` (literal and bound, `DEFAULT NULL`/`UNSET`),
//! `SELECT JSON`, `toJson()`/`fromJson()`, and Cassandra's messages for bad JSON.

use integration_tests::{query_error, query_rows, query_single_row, session_in, TestServer};
use scylla::errors::DbError;

const ALL_TYPES: &str = "CREATE TABLE t (k int PRIMARY KEY, asciival ascii, bigintval bigint, \
    blobval blob, booleanval boolean, dateval date, decimalval decimal, doubleval double, \
    floatval float, inetval inet, intval int, smallintval smallint, textval text, timeval time, \
    timestampval timestamp, timeuuidval timeuuid, tinyintval tinyint, uuidval uuid, \
    varintval varint, durationval duration, listval list<int>, setval set<text>, \
    mapval map<int, text>, tupleval frozen<tuple<int, text>>, udtval frozen<pt>)";

/// One row with a value of every type, written as the JSON Cassandra would render it.
const ROW: &str = r#"{"k": 1, "asciival": "ascii", "bigintval": 123123123123, "blobval": "0x00000001", "booleanval": true, "dateval": "1987-03-23", "decimalval": 123123.123123, "doubleval": 123123.0, "floatval": 1.5, "inetval": "127.0.0.1", "intval": -7, "smallintval": 32767, "textval": "a \"quoted\" \u2013 text", "timeval": "07:35:07.000111222", "timestampval": "2014-01-01 12:15:45.000Z", "timeuuidval": "6bddc89a-5644-11e4-97fc-56847afe9799", "tinyintval": -128, "uuidval": "6bddc89a-5644-11e4-97fc-56847afe9799", "varintval": 123123123123123123123, "durationval": "1y1mo2d10h5m", "listval": [1, 2, 3], "setval": ["a", "b"], "mapval": {"1": "one", "2": "two"}, "tupleval": [1, null], "udtval": {"x": 1, "\"Y\"": "why"}}"#;

async fn setup(keyspace: &str) -> (TestServer, scylla::client::session::Session) {
    let server = TestServer::start().await;
    let session = session_in(&server, keyspace).await;
    session
        .query_unpaged("CREATE TYPE pt (x int, \"Y\" text)", &[])
        .await
        .expect("create type");
    session
        .query_unpaged(ALL_TYPES, &[])
        .await
        .expect("create table");
    (server, session)
}

#[tokio::test]
async fn every_type_round_trips_through_insert_json_and_select_json() {
    let (_server, session) = setup("json_all").await;
    let insert = format!("INSERT INTO t JSON '{}'", ROW.replace('\'', "''"));
    session
        .query_unpaged(insert, &[])
        .await
        .expect("insert json");
    // Columns in the order the JSON object names them.
    let select = "SELECT JSON k, asciival, bigintval, blobval, booleanval, dateval, decimalval, \
        doubleval, floatval, inetval, intval, smallintval, textval, timeval, timestampval, \
        timeuuidval, tinyintval, uuidval, varintval, durationval, listval, setval, mapval, \
        tupleval, udtval FROM t WHERE k = 1";
    let (json,): (String,) = query_single_row(&session, select, &[]).await;
    assert_eq!(json, ROW.replace("\\u2013", "\u{2013}"));
    // SELECT JSON * names the columns in SELECT * order: keys first, then by name.
    let (star,): (String,) = query_single_row(&session, "SELECT JSON * FROM t", &[]).await;
    assert!(
        star.starts_with(r#"{"k": 1, "asciival": "ascii", "bigintval""#),
        "{star}"
    );
    assert!(
        star.ends_with(r#""varintval": 123123123123123123123}"#),
        "{star}"
    );
    // Typed reads see the decoded values.
    let (bigint, blob, varint_text): (i64, Vec<u8>, String) = query_single_row(
        &session,
        "SELECT bigintval, blobval, toJson(varintval) FROM t WHERE k = 1",
        &[],
    )
    .await;
    assert_eq!((bigint, blob), (123123123123, vec![0, 0, 0, 1]));
    assert_eq!(varint_text, "123123123123123123123");
}

#[tokio::test]
async fn to_json_and_from_json_functions() {
    let (_server, session) = setup("json_fns").await;
    session
        .query_unpaged(
            "INSERT INTO t (k, intval, mapval, timestampval) VALUES (0, fromJson('\"42\"'), fromJson('{\"3\": \"c\"}'), fromJson('0'))",
            &[],
        )
        .await
        .expect("insert with fromJson");
    let rows: Vec<(String, String, String, String)> = query_rows(
        &session,
        "SELECT toJson(intval), toJson(mapval), toJson(timestampval), toJson(textval) FROM t",
        &[],
    )
    .await;
    assert_eq!(
        rows,
        vec![(
            "42".to_string(),
            r#"{"3": "c"}"#.to_string(),
            r#""1970-01-01 00:00:00.000Z""#.to_string(),
            "null".to_string()
        )]
    );
    let (json,): (String,) =
        query_single_row(&session, "SELECT JSON k, intval AS \"Big\" FROM t", &[]).await;
    assert_eq!(json, r#"{"k": 0, "\"Big\"": 42}"#);
    let err = session
        .query_unpaged(
            "INSERT INTO t (k, intval) VALUES (1, fromJson('\"xyz\"'))",
            &[],
        )
        .await
        .expect_err("bad int");
    let (code, message) = integration_tests::db_error(&err).expect("db error");
    assert!(matches!(code, DbError::FunctionFailure { .. }), "{code:?}");
    assert!(
        message.contains("Unable to make int from 'xyz'"),
        "{message}"
    );
}

#[tokio::test]
async fn prepared_insert_json_defaults_null_or_unset() {
    let server = TestServer::start().await;
    let session = session_in(&server, "json_prep").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v1 int, v2 int)", &[])
        .await
        .expect("create");
    let insert = session
        .prepare("INSERT INTO t JSON ?")
        .await
        .expect("prepare");
    let specs = insert.get_variable_col_specs();
    let spec = specs.get_by_index(0).expect("one marker");
    assert_eq!(spec.name(), "[json]");
    session
        .execute_unpaged(&insert, (r#"{"k": 0, "v1": 1, "v2": 2}"#,))
        .await
        .expect("insert");
    let unset = session
        .prepare("INSERT INTO t JSON ? DEFAULT UNSET")
        .await
        .expect("prepare unset");
    session
        .execute_unpaged(&unset, (r#"{"k": 0, "v2": 3}"#,))
        .await
        .expect("insert unset");
    let row: (i32, Option<i32>, Option<i32>) =
        query_single_row(&session, "SELECT k, v1, v2 FROM t", &[]).await;
    assert_eq!(row, (0, Some(1), Some(3)));
    session
        .query_unpaged(
            r#"INSERT INTO t JSON '{"K": 0, "v2": 4}' DEFAULT NULL"#,
            &[],
        )
        .await
        .expect("insert null");
    let row: (i32, Option<i32>, Option<i32>) =
        query_single_row(&session, "SELECT k, v1, v2 FROM t", &[]).await;
    assert_eq!(row, (0, None, Some(4)));
}

#[tokio::test]
async fn bad_json_is_rejected_with_cassandras_messages() {
    let server = TestServer::start().await;
    let session = session_in(&server, "json_err").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", &[])
        .await
        .expect("create");
    let cases = [
        (
            r#"INSERT INTO t JSON '{"k": 0, "zzz": 1}'"#,
            "JSON values map contains unrecognized column: zzz",
        ),
        (
            r#"INSERT INTO t JSON '{"k": 0, "v": "notanint"}'"#,
            "Error decoding JSON value for v: Unable to make int from 'notanint'",
        ),
        (
            "INSERT INTO t JSON 'null'",
            "Got null for INSERT JSON values",
        ),
        (
            "SELECT fromJson(v) FROM t",
            "fromJson() cannot be used in the selection clause of a SELECT statement",
        ),
    ];
    for (cql, expected) in cases {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(code, DbError::Invalid, "{cql}");
        assert_eq!(message, expected, "{cql}");
    }
    // toJson() outside a selection clause is refused when the statement is prepared.
    for cql in [
        "INSERT INTO t (k, v) VALUES (?, toJson(?))",
        "UPDATE t SET v = toJson(?) WHERE k = ?",
        "DELETE FROM t WHERE k = fromJson(toJson(?))",
    ] {
        let err = session.prepare(cql).await.expect_err(cql);
        assert!(
            err.to_string()
                .contains("toJson() may only be used within the selection clause"),
            "{cql}: {err}"
        );
    }
    let (code, message) = query_error(&session, "INSERT INTO t JSON '\"notamap\"'").await;
    assert_eq!(code, DbError::Invalid);
    assert!(
        message.starts_with("Could not decode JSON string as a map"),
        "{message}"
    );
}
