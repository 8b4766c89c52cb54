//! Bad statements get Cassandra's codes and messages, and nothing stored is harmed.

use cql::frame::request::{Query, Request, Value};
use cql::frame::response::Response;
use integration_tests::query_single_row;
use integration_tests::{db_error, default_params, RawConnection, TestServer};
use scylla::errors::DbError;

async fn setup(server: &TestServer) -> scylla::client::session::Session {
    let session = server.session().await;
    session
        .query_unpaged("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &[])
        .await
        .unwrap();
    session
        .query_unpaged(
            "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    session
        .query_unpaged("INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'kept')", &[])
        .await
        .unwrap();
    session
}

async fn expect(
    session: &scylla::client::session::Session,
    cql: &str,
    code: DbError,
    message: &str,
) {
    let err = session.query_unpaged(cql, &[]).await.expect_err(cql);
    assert_eq!(db_error(&err), Some((code, message.to_string())), "{cql}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_queries_are_rejected_word_for_word() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    expect(
        &session,
        "SELECT * FROM ks.nope",
        DbError::Invalid,
        "table nope does not exist",
    )
    .await;
    expect(
        &session,
        "SELECT * FROM nope.t",
        DbError::Invalid,
        "keyspace nope does not exist",
    )
    .await;
    expect(
        &session,
        "SELECT * FROM t",
        DbError::Invalid,
        "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename",
    )
    .await;
    expect(
        &session,
        "SELECT x FROM ks.t",
        DbError::Invalid,
        "Undefined column name x in table ks.t",
    )
    .await;
    expect(
        &session,
        "INSERT INTO ks.t (k, c, v) VALUES ('a', 1, 'x')",
        DbError::Invalid,
        "Invalid STRING constant (a) for \"k\" of type int",
    )
    .await;
    expect(
        &session,
        "INSERT INTO ks.t (k, v) VALUES (1, 'x')",
        DbError::Invalid,
        "Some clustering keys are missing: c",
    )
    .await;
    expect(
        &session,
        "INSERT INTO ks.t (c, v) VALUES (1, 'x')",
        DbError::Invalid,
        "Some partition key parts are missing: k",
    )
    .await;
    expect(&session, "SELECT * FROM ks.t WHERE v = 'x'", DbError::Invalid, "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING").await;
    expect(
        &session,
        "UPDATE ks.t SET v = 'x' WHERE k = 1 AND c > 1",
        DbError::Invalid,
        "Slice restrictions are not supported on the clustering columns in UPDATE statements",
    )
    .await;
    expect(
        &session,
        "UPDATE ks.t SET v = 'x' WHERE k = 1 AND c = 1 AND v = 'y'",
        DbError::Invalid,
        "Non PRIMARY KEY columns found in where clause: v ",
    )
    .await;
    expect(
        &session,
        "SELECT * FROM ks.t WHERE k = 1 ORDER BY v",
        DbError::Invalid,
        "Order by is currently only supported on the clustered columns of the PRIMARY KEY, got v",
    )
    .await;
    expect(
        &session,
        "USE nope",
        DbError::Invalid,
        "Keyspace 'nope' does not exist",
    )
    .await;
    let err = session
        .query_unpaged("SELEC * FROM ks.t", &[])
        .await
        .unwrap_err();
    assert!(matches!(db_error(&err), Some((DbError::SyntaxError, _))));
    // With ALLOW FILTERING the same query runs.
    let rows = session
        .query_unpaged("SELECT v FROM ks.t WHERE v = 'kept' ALLOW FILTERING", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 1);
    // Nothing stored was harmed by any of the above.
    let (v,): (String,) =
        query_single_row(&session, "SELECT v FROM ks.t WHERE k = 1 AND c = 1", &[]).await;
    assert_eq!(v, "kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrongly_sized_bound_values_are_rejected() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    let mut params = default_params();
    // Eight bytes bound to an int column.
    params.values = vec![Value::Bytes(bytes::Bytes::from_static(&[
        0, 0, 0, 0, 0, 0, 0, 1,
    ]))];
    let query = Query {
        query: "INSERT INTO ks.t (k, c, v) VALUES (?, 1, 'x')".into(),
        params,
    };
    raw.send(1, &Request::Query(query)).await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 1);
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x2200);
    assert!(
        err.message.contains("Expected 4 or 0 byte int (8)"),
        "{}",
        err.message
    );
    // Too few values for the markers.
    let query = Query {
        query: "INSERT INTO ks.t (k, c, v) VALUES (?, ?, 'x')".into(),
        params: default_params(),
    };
    raw.send(2, &Request::Query(query)).await;
    let (_, _, response) = raw.recv().await.unwrap();
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(
        err.message,
        "There were 2 markers(?) in CQL but 0 bound variables"
    );
    // A statement the planner refuses gets the planner's error first, as Cassandra prepares
    // before it counts the values.
    let query = Query {
        query: "SELECT * FROM ks.t WHERE v = ?".into(),
        params: default_params(),
    };
    raw.send(3, &Request::Query(query)).await;
    let (_, _, response) = raw.recv().await.unwrap();
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert!(
        err.message
            .starts_with("Cannot execute this query as it might involve data filtering"),
        "{}",
        err.message
    );
    let rows = session
        .query_unpaged("SELECT * FROM ks.t", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_key_components_are_rejected() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    session
        .query_unpaged(
            "CREATE TABLE ks.s (a text, b text, PRIMARY KEY (a, b))",
            &[],
        )
        .await
        .unwrap();
    let big = "x".repeat(65 * 1024);
    for cql in [
        "INSERT INTO ks.s (a, b) VALUES (?, 'foo')",
        "INSERT INTO ks.s (a, b) VALUES ('foo', ?)",
        "SELECT * FROM ks.s WHERE a = ?",
    ] {
        let err = session
            .query_unpaged(cql, (big.clone(),))
            .await
            .unwrap_err();
        assert_eq!(
            db_error(&err),
            Some((
                DbError::Invalid,
                "Key length of 66560 is longer than maximum of 65535".to_string()
            )),
            "{cql}"
        );
    }
    // A read by a longer clustering value is no error, as in Cassandra: it matches nothing.
    let rows = session
        .query_unpaged(
            "SELECT * FROM ks.s WHERE a = 'foo' AND b = ?",
            (big.clone(),),
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 0);
    let err = session
        .query_unpaged("CREATE KEYSPACE k2 WITH replication = {'class': 'NetworkTopologyStrategy', 'nowhere': 1}", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err),
        Some((DbError::ConfigError, "Unrecognized strategy option {nowhere} passed to NetworkTopologyStrategy for keyspace k2".to_string()))
    );
}

/// A consistency code or an event type that names nothing is Cassandra's PROTOCOL_ERROR,
/// answered on the request's stream; the connection lives on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_consistency_codes_and_event_types_are_protocol_errors() {
    let server = TestServer::start().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    let mut params = default_params();
    params.consistency = 0xFFFF;
    let query = Query {
        query: "SELECT * FROM system.local".into(),
        params,
    };
    raw.send(3, &Request::Query(query)).await;
    let (_, stream, response) = raw.recv().await.expect("answer");
    assert_eq!(stream, 3);
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x000A);
    assert_eq!(err.message, "Unknown code 65535 for a consistency level");
    let register = cql::frame::request::Register {
        events: vec!["SCHEMA_CHANGE".into(), "FOO".into()],
    };
    raw.send(4, &Request::Register(register)).await;
    let (_, stream, response) = raw.recv().await.expect("answer");
    assert_eq!(stream, 4);
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x000A);
    assert_eq!(err.message, "Invalid value 'FOO' for Type");
    // Lower case is Cassandra's enum too, and the connection still works.
    let register = cql::frame::request::Register {
        events: vec!["schema_change".into()],
    };
    raw.send(5, &Request::Register(register)).await;
    let (_, stream, response) = raw.recv().await.expect("answer");
    assert_eq!((stream, response), (5, Response::Ready));
}

#[tokio::test]
async fn tuple_and_udt_literals_are_checked_as_cassandra_prepares_them() {
    let server = TestServer::start().await;
    let session = setup(&server).await;
    for cql in [
        "CREATE TABLE ks.tup (k int, c int, t frozen<tuple<int, text>>, PRIMARY KEY (k, c))",
        "CREATE TABLE ks.nested (k int PRIMARY KEY, t frozen<tuple<int, tuple<int, text, double>>>, p tuple<int, int>)",
        "CREATE TYPE ks.ut (a int)",
        "CREATE TABLE ks.u (k int PRIMARY KEY, u frozen<ut>)",
        "CREATE TABLE ks.coll (k int PRIMARY KEY, s set<frozen<tuple<int, text, double>>>, m map<int, text>)",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    for (cql, message) in [
        // A constant value is checked before the missing clustering key.
        (
            "INSERT INTO ks.tup (k, t) VALUES (1, '1:2:3')",
            "Invalid tuple literal: too many elements. Type frozen<tuple<int, text>> expects 2 but got 3",
        ),
        (
            "INSERT INTO ks.nested (k, t) VALUES (0, (1, (1, '1', 1.0, 1)))",
            "Invalid tuple literal for t: component 1 is not of type frozen<tuple<int, text, double>>",
        ),
        (
            "INSERT INTO ks.nested (k, t) VALUES (0, ('a', (1, '1', 1.0)))",
            "Invalid tuple literal for t: component 0 is not of type int",
        ),
        (
            "INSERT INTO ks.u (k, u) VALUES (0, {a: 'x'})",
            "Invalid user type literal for u: field a is not of type int",
        ),
        (
            "INSERT INTO ks.coll (k, s) VALUES (0, {(1, '1', 1.0, 1)})",
            "Invalid set literal for s: value (1, '1', 1.0, 1) is not of type frozen<tuple<int, text, double>>",
        ),
        (
            "INSERT INTO ks.coll (k, m) VALUES (0, {'a': 'b'})",
            "Invalid map literal for m: key 'a' is not of type int",
        ),
        (
            "SELECT * FROM ks.coll WHERE k = sum((int)4)",
            "Aggregation function are not supported in the where clause",
        ),
        // A constant of the wrong type in WHERE is found before which columns it restricts.
        (
            "DELETE FROM ks.tup WHERE k = 'x' AND c > 0 IF EXISTS",
            "Invalid STRING constant (x) for \"k\" of type int",
        ),
        // SET operations are planned before the WHERE clause.
        (
            "UPDATE ks.nested SET p += (1, 1) WHERE nope = 0",
            "Invalid operation (p = p + (1, 1)) for tuple column p",
        ),
    ] {
        expect(&session, cql, DbError::Invalid, message).await;
    }
}
