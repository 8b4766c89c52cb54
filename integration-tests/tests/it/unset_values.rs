//! Unset bind values inside values, as Cassandra 5.0 treats them: refused in tuple elements,
//! frozen UDT fields, list indexes and operation arguments (a type hint on the marker keeps
//! it unset), never written as null; an unset list index in DELETE deletes nothing.

use integration_tests::{db_error, TestServer};
use scylla::errors::DbError;
use scylla::value::MaybeUnset;

#[tokio::test]
async fn unset_inside_values_is_refused_and_nothing_is_written() {
    let server = TestServer::start().await;
    let session = server.session().await;
    for cql in [
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TYPE ks.ut (x int, y int)",
        "CREATE TABLE ks.t (p int PRIMARY KEY, a int, t tuple<int, text, double>, u frozen<ut>, l list<text>)",
        "INSERT INTO ks.t (p, a, l) VALUES (1, 5, ['x'])",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    let unset = MaybeUnset::<i32>::Unset;
    let unset_text = MaybeUnset::<&str>::Unset;
    let cases: [(&str, Result<_, _>, &str); 4] = [
        (
            "UPDATE ks.t SET a = (int)? + 1 WHERE p = 1",
            session
                .query_unpaged("UPDATE ks.t SET a = (int)? + 1 WHERE p = 1", (unset,))
                .await,
            "Invalid unset value for argument in call to function _add",
        ),
        (
            "tuple",
            session
                .query_unpaged(
                    "INSERT INTO ks.t (p, t) VALUES (1, (3, ?, 2.1))",
                    (unset_text,),
                )
                .await,
            "Invalid unset value for tuple field number 1",
        ),
        (
            "udt",
            session
                .query_unpaged(
                    "INSERT INTO ks.t (p, u) VALUES (1, {x: ?, y: ?})",
                    (1, unset),
                )
                .await,
            "Invalid unset value for field 'y' of user defined type ut",
        ),
        (
            "list index",
            session
                .query_unpaged("UPDATE ks.t SET l[?] = 'foo' WHERE p = 1", (unset,))
                .await,
            "Invalid unset value for list index",
        ),
    ];
    for (what, result, message) in cases {
        let err = result.expect_err(what);
        assert_eq!(
            db_error(&err),
            Some((DbError::Invalid, message.to_owned())),
            "{what}"
        );
    }
    // An unset index deletes nothing, without error.
    session
        .query_unpaged("DELETE l[?] FROM ks.t WHERE p = 1", (unset,))
        .await
        .unwrap();
    let row = session
        .query_unpaged("SELECT a, t, l FROM ks.t WHERE p = 1", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    type Row = (Option<i32>, Option<(i32, String, f64)>, Option<Vec<String>>);
    let (a, t, l): Row = row.single_row().unwrap();
    assert_eq!((a, t, l), (Some(5), None, Some(vec!["x".to_owned()])));
}
