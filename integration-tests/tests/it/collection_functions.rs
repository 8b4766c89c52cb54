//! Cassandra 5.0's collection functions (`CollectionFcts`) through the scylla driver:
//! `map_keys`, `map_values`, `collection_count`, `collection_min`, `collection_max`,
//! `collection_sum` and `collection_avg`, their result columns' names and types, nulls, empty
//! collections, and the refusals of arguments they do not take.

use std::collections::BTreeSet;

use integration_tests::{query_error, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    for cql in [
        "CREATE TABLE t (k int PRIMARY KEY, m map<text, int>, l list<int>, s set<double>, \
         w list<text>)",
        "INSERT INTO t (k, m, l, s, w) VALUES (1, {'b': 2, 'a': 7, 'c': 2}, [5, -3, 2147483647, 1], \
         {1.5, 0.25}, ['x', 'y'])",
        "INSERT INTO t (k) VALUES (2)",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    session
}

#[tokio::test]
async fn collection_functions_fold_the_elements() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    type Row = (
        BTreeSet<String>,
        Vec<i32>,
        i32,
        i32,
        i32,
        i32,
        i32,
        f64,
        f64,
        String,
    );
    let row: Row = query_single_row(
        &session,
        "SELECT map_keys(m), map_values(m), collection_count(m), collection_min(l), \
         collection_max(l), collection_sum(l), collection_avg(l), collection_sum(s), \
         collection_avg(s), collection_max(w) FROM t WHERE k = 1",
        (),
    )
    .await;
    let keys: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    assert_eq!(row.0, keys);
    // In key order, as the map holds them.
    assert_eq!(row.1, vec![7, 2, 2]);
    assert_eq!((row.2, row.3, row.4), (3, -3, 2147483647));
    // An int sum wraps as Cassandra's `sum` of int rows does; the average is taken over the
    // wrapped-free exact sum and truncated.
    assert_eq!(row.5, 5 - 3 + 2147483647_i32.wrapping_add(1));
    assert_eq!(row.6, ((5_i64 - 3 + 2147483647 + 1) / 4) as i32);
    assert_eq!((row.7, row.8), (1.75, 0.875));
    assert_eq!(row.9, "y");

    let names: Vec<String> = session
        .query_unpaged(
            "SELECT map_keys(m), collection_count(l) FROM t WHERE k = 1",
            (),
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .column_specs()
        .iter()
        .map(|c| c.name().to_owned())
        .collect();
    assert_eq!(names, ["system.map_keys(m)", "system.collection_count(l)"]);

    // A null collection (no cells) gives null.
    let (keys, count, sum): (Option<BTreeSet<String>>, Option<i32>, Option<i32>) =
        query_single_row(
            &session,
            "SELECT map_keys(m), collection_count(l), collection_sum(l) FROM t WHERE k = 2",
            (),
        )
        .await;
    assert_eq!((keys, count, sum), (None, None, None));
}

#[tokio::test]
async fn collection_functions_refuse_what_cassandra_refuses() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    for (cql, message) in [
        (
            "SELECT collection_sum(w) FROM t",
            "Function system.collection_sum requires a numeric set/list argument, but found \
             argument w of type list<text>",
        ),
        (
            "SELECT map_keys(l) FROM t",
            "Function system.map_keys requires a map argument, but found argument l of type \
             list<int>",
        ),
        (
            "SELECT collection_min(m) FROM t",
            "Function system.collection_min requires a set or list argument, but found \
             argument m of type map<text, int>",
        ),
        (
            "SELECT collection_count(k) FROM t",
            "Function system.collection_count requires a collection argument, but found \
             argument k of type int",
        ),
        (
            "SELECT map_values(m, m) FROM t",
            "Invalid number of arguments for function system.map_values(map)",
        ),
        (
            "SELECT collection_count([1, 2]) FROM t",
            "Cannot infer type of argument [1, 2] in call to function \
             system.collection_count(collection): use type casts to disambiguate",
        ),
    ] {
        let (error, found) = query_error(&session, cql).await;
        assert_eq!(found, message, "{cql}");
        assert!(matches!(error, DbError::Invalid), "{cql}: {error:?}");
    }
}
