//! User-defined types through the driver: CREATE/ALTER/DROP TYPE with their events and
//! `system_schema.types` rows, frozen and non-frozen UDT values, field updates and deletes,
//! values surviving a restart, and Cassandra's messages.

use integration_tests::{query_error, query_rows, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::CqlValue;

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

fn text(s: &str) -> Option<CqlValue> {
    Some(CqlValue::Text(s.into()))
}

fn udt(name: &str, fields: Vec<(&str, Option<CqlValue>)>) -> CqlValue {
    CqlValue::UserDefinedType {
        keyspace: "ks".into(),
        name: name.into(),
        fields: fields
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect(),
    }
}

#[tokio::test]
async fn udt_values_round_trip_and_follow_alter_type() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_in(dir.path()).await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TYPE addr (street text, zip int)").await;
    run(
        &session,
        "CREATE TYPE person (name text, home frozen<addr>)",
    )
    .await;
    run(
        &session,
        "CREATE TABLE u (k int PRIMARY KEY, a frozen<addr>, b addr, p frozen<person>, l list<frozen<addr>>)",
    )
    .await;
    run(
        &session,
        "INSERT INTO u (k, a, b, p, l) VALUES (1, {street: 'x', zip: 1}, {street: 'y', zip: 2}, {name: 'n', home: {zip: 3}}, [{street: 'q'}])",
    )
    .await;
    // Non-frozen UDTs take field updates and field deletes.
    run(&session, "UPDATE u SET b.zip = 5 WHERE k = 1").await;
    run(&session, "DELETE b.street FROM u WHERE k = 1").await;
    let prepared = session
        .prepare("UPDATE u SET b.street = ? WHERE k = ?")
        .await
        .unwrap();
    assert_eq!(
        prepared
            .get_variable_col_specs()
            .get_by_index(0)
            .unwrap()
            .name(),
        "b.street"
    );
    let (b,): (CqlValue,) = query_single_row(&session, "SELECT b FROM u WHERE k = 1", &[]).await;
    assert_eq!(
        b,
        udt(
            "addr",
            vec![("street", None), ("zip", Some(CqlValue::Int(5)))]
        )
    );

    run(&session, "ALTER TYPE addr ADD country text").await;
    run(&session, "ALTER TYPE addr RENAME zip TO postcode").await;
    let types: Vec<(String, Vec<String>, Vec<String>)> = query_rows(
        &session,
        "SELECT type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name = 'ks'",
        &[],
    )
    .await;
    assert_eq!(
        types,
        [
            (
                "addr".to_string(),
                vec!["street".into(), "postcode".into(), "country".into()],
                vec!["text".into(), "int".into(), "text".into()]
            ),
            (
                "person".to_string(),
                vec!["name".into(), "home".into()],
                vec!["text".into(), "frozen<addr>".into()]
            ),
        ]
    );
    drop(session);
    server.stop().await;

    // After a restart, stored values read through the altered type.
    let server = TestServer::start_in(dir.path()).await;
    let session = server.session().await;
    let (a, p, l): (CqlValue, CqlValue, Vec<CqlValue>) =
        query_single_row(&session, "SELECT a, p, l FROM ks.u WHERE k = 1", &[]).await;
    let addr = |street: Option<CqlValue>, postcode: Option<i32>| {
        udt(
            "addr",
            vec![
                ("street", street),
                ("postcode", postcode.map(CqlValue::Int)),
                ("country", None),
            ],
        )
    };
    assert_eq!(a, addr(text("x"), Some(1)));
    assert_eq!(
        p,
        udt(
            "person",
            vec![("name", text("n")), ("home", Some(addr(None, Some(3))))]
        )
    );
    assert_eq!(l, [addr(text("q"), None)]);
}

#[tokio::test]
async fn type_statements_use_cassandra_messages() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TYPE addr (street text, zip int)").await;
    run(&session, "CREATE TYPE IF NOT EXISTS addr (other int)").await;
    run(&session, "CREATE TYPE holder (tags set<text>)").await;
    run(
        &session,
        "CREATE TABLE t (k int PRIMARY KEY, a frozen<addr>)",
    )
    .await;
    for (cql, expected) in [
        (
            "CREATE TYPE addr (x int)",
            "A user type with name 'addr' already exists",
        ),
        (
            "CREATE TYPE dup (x int, x text)",
            "Duplicate field name 'x' in type 'dup'",
        ),
        (
            "CREATE TYPE c (x counter)",
            "A user type cannot contain counters",
        ),
        (
            "ALTER TYPE addr ADD zip text",
            "Cannot add field zip to type ks.addr: a field with name zip already exists",
        ),
        (
            "ALTER TYPE addr RENAME nope TO x",
            "Unkown field nope in user type ks.addr",
        ),
        (
            "DROP TYPE addr",
            "Cannot drop user type 'ks.addr' as it is still used by tables t",
        ),
        ("DROP TYPE nope", "Type 'ks.nope' doesn't exist"),
        (
            "CREATE TABLE bad (k int PRIMARY KEY, l list<addr>)",
            "Non-frozen UDTs are not allowed inside collections: list<addr>",
        ),
        (
            "CREATE TABLE bad (k int PRIMARY KEY, h holder)",
            "Non-frozen UDTs with nested non-frozen collections are not supported",
        ),
        (
            "ALTER TABLE t ADD h holder",
            "Non-frozen UDTs with nested non-frozen collections are not supported for column h",
        ),
        (
            "INSERT INTO t (k, a) VALUES (1, {nope: 1})",
            "Unknown field 'nope' in value of user defined type addr",
        ),
        (
            "UPDATE t SET a.zip = 1 WHERE k = 1",
            "Invalid operation (a.zip = 1) for frozen UDT column a",
        ),
    ] {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Invalid, expected),
            "{cql}"
        );
    }
    run(&session, "DROP TABLE t").await;
    run(&session, "DROP TYPE holder").await;
    run(&session, "DROP TYPE addr").await;
    run(&session, "DROP TYPE IF EXISTS addr").await;
}
