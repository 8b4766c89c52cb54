//! Non-frozen collections through the driver: whole-value writes, element operations
//! (append, prepend, remove, `m[k] = v`, `l[i] = v`, element deletes), prepared markers in
//! every element position, and Cassandra's errors.

use std::collections::BTreeMap;

use integration_tests::{query_error, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::{CqlTimestamp, MaybeUnset};

type Collections = (
    Option<Vec<i32>>,
    Option<Vec<i32>>,
    Option<BTreeMap<String, i32>>,
);

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k int PRIMARY KEY, l list<int>, s set<int>, m map<text, int>, fl frozen<list<int>>)",
            &[],
        )
        .await
        .unwrap();
    session
}

async fn read(session: &Session, k: i32) -> Collections {
    query_single_row(session, "SELECT l, s, m FROM t WHERE k = ?", (k,)).await
}

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

#[tokio::test]
async fn element_operations_follow_cassandra() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(
        &session,
        "INSERT INTO t (k, l, s, m) VALUES (1, [1, 2], {5, -3}, {'a': 1})",
    )
    .await;
    run(
        &session,
        "UPDATE t SET l = l + [3, 4], l = [0] + l WHERE k = 1",
    )
    .await;
    run(
        &session,
        "UPDATE t SET s = s + {7}, s = s - {5} WHERE k = 1",
    )
    .await;
    run(
        &session,
        "UPDATE t SET m['b'] = 2, m = m + {'c': 3} WHERE k = 1",
    )
    .await;
    let (l, s, m) = read(&session, 1).await;
    assert_eq!(l, Some(vec![0, 1, 2, 3, 4]));
    // Sets come back in element order (-3 before 7), whatever order the bytes sort in.
    assert_eq!(s, Some(vec![-3, 7]));
    assert_eq!(
        m,
        Some(BTreeMap::from([
            ("a".to_string(), 1),
            ("b".to_string(), 2),
            ("c".to_string(), 3)
        ]))
    );

    // By index and by value: these read the list first.
    run(&session, "UPDATE t SET l[1] = 10 WHERE k = 1").await;
    run(&session, "DELETE l[0], m['a'] FROM t WHERE k = 1").await;
    run(
        &session,
        "UPDATE t SET l = l - [3], m = m - {'c'} WHERE k = 1",
    )
    .await;
    let (l, _, m) = read(&session, 1).await;
    assert_eq!(l, Some(vec![10, 2, 4]));
    assert_eq!(m, Some(BTreeMap::from([("b".to_string(), 2)])));

    // Overwriting replaces the whole collection; emptying it makes it null.
    run(&session, "UPDATE t SET l = [9] WHERE k = 1").await;
    run(&session, "UPDATE t SET s = s - {-3, 7} WHERE k = 1").await;
    run(&session, "UPDATE t SET m = {} WHERE k = 1").await;
    assert_eq!(read(&session, 1).await, (Some(vec![9]), None, None));

    // A collection older than an overwrite does not come back.
    run(
        &session,
        "UPDATE t USING TIMESTAMP 1 SET l = l + [100] WHERE k = 1",
    )
    .await;
    assert_eq!(read(&session, 1).await.0, Some(vec![9]));
    run(&session, "DELETE l FROM t WHERE k = 1").await;
    assert_eq!(read(&session, 1).await.0, None);
}

#[tokio::test]
async fn prepared_markers_stand_for_elements() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(
        &session,
        "INSERT INTO t (k, l, m) VALUES (2, [1, 2, 3], {'x': 1})",
    )
    .await;
    let set_index = session
        .prepare("UPDATE t SET l[?] = ? WHERE k = ?")
        .await
        .unwrap();
    let names: Vec<&str> = set_index
        .get_variable_col_specs()
        .iter()
        .map(|spec| spec.name())
        .collect();
    assert_eq!(names, ["idx(l)", "value(l)", "k"]);
    session
        .execute_unpaged(&set_index, (2, 30, 2))
        .await
        .unwrap();
    let put = session
        .prepare("UPDATE t SET m[?] = ?, s = s + ? WHERE k = ?")
        .await
        .unwrap();
    session
        .execute_unpaged(&put, ("y", 2, vec![8, 9], 2))
        .await
        .unwrap();
    let remove = session
        .prepare("UPDATE t SET m = m - ? WHERE k = ?")
        .await
        .unwrap();
    session
        .execute_unpaged(&remove, (vec!["x"], 2))
        .await
        .unwrap();
    let delete = session
        .prepare("DELETE s[?] FROM t WHERE k = ?")
        .await
        .unwrap();
    session.execute_unpaged(&delete, (8, 2)).await.unwrap();
    assert_eq!(
        read(&session, 2).await,
        (
            Some(vec![1, 2, 30]),
            Some(vec![9]),
            Some(BTreeMap::from([("y".to_string(), 2)]))
        )
    );
    // An unset value leaves the column as it was; an unset key is refused.
    let whole = session
        .prepare("UPDATE t SET l = ? WHERE k = ?")
        .await
        .unwrap();
    session
        .execute_unpaged(&whole, (MaybeUnset::<Vec<i32>>::Unset, 2))
        .await
        .unwrap();
    assert_eq!(read(&session, 2).await.0, Some(vec![1, 2, 30]));
    let err = session
        .execute_unpaged(&put, (MaybeUnset::<&str>::Unset, 1, vec![1], 2))
        .await
        .unwrap_err();
    let (code, message) = integration_tests::db_error(&err).expect("database error");
    assert_eq!(code, DbError::Invalid);
    assert_eq!(message, "Invalid unset map key");
}

#[tokio::test]
async fn invalid_collection_operations_are_refused_as_cassandra_does() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, l) VALUES (3, [1])").await;
    for (cql, expected) in [
        (
            "UPDATE t SET fl = fl + [1] WHERE k = 3",
            "Invalid operation (fl = fl + [1]) for frozen collection column fl",
        ),
        (
            "UPDATE t SET s = [1] + s WHERE k = 3",
            "Invalid operation (s = [1] + s) for non list column s",
        ),
        (
            "UPDATE t SET s[1] = 1 WHERE k = 3",
            "Invalid operation (s[1] = 1) for set column s",
        ),
        (
            "UPDATE t SET l[5] = 1 WHERE k = 3",
            "List index 5 out of bound, list has size 1",
        ),
        (
            "UPDATE t SET l[0] = 1 WHERE k = 4",
            "Attempted to set an element on a list which is null",
        ),
        (
            "DELETE fl[0] FROM t WHERE k = 3",
            "Invalid deletion operation for frozen collection column fl",
        ),
        (
            "UPDATE t SET k = k + 1 WHERE k = 3",
            "PRIMARY KEY part k found in SET part",
        ),
        (
            "UPDATE t SET m = m + {1} WHERE k = 3",
            "Value for a map addition has to be a map, but was: '{1}'",
        ),
        (
            "UPDATE t SET m = m - {'a': 1} WHERE k = 3",
            "Value for a map substraction has to be a set, but was: '{'a': 1}'",
        ),
        (
            "UPDATE t SET s = s + {'a'} WHERE k = 3",
            "Invalid set literal for s: value 'a' is not of type int",
        ),
    ] {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Invalid, expected),
            "{cql}"
        );
    }
    // A constant operand of the wrong kind is refused when the statement is prepared.
    let err = session
        .prepare("UPDATE t SET m = m - {'a': 1} WHERE k = ?")
        .await
        .expect_err("a map subtracted from a map");
    assert!(
        err.to_string()
            .contains("Value for a map substraction has to be a set"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_slice_of_a_non_frozen_collection_is_null() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    session
        .query_unpaged(
            "CREATE TABLE f (k int PRIMARY KEY, m frozen<map<text, int>>, s frozen<set<int>>)",
            &[],
        )
        .await
        .unwrap();
    for cql in [
        "INSERT INTO t (k, s, m) VALUES (1, {2}, {'2': 2})",
        "INSERT INTO f (k, s, m) VALUES (1, {2}, {'2': 2})",
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    type Slices = (Option<BTreeMap<String, i32>>, Option<Vec<i32>>);
    let non_frozen: Slices = query_single_row(
        &session,
        "SELECT m['0'..'1'], s[0..1] FROM t WHERE k = 1",
        (),
    )
    .await;
    assert_eq!(non_frozen, (None, None));
    let frozen: Slices = query_single_row(
        &session,
        "SELECT m['0'..'1'], s[0..1] FROM f WHERE k = 1",
        (),
    )
    .await;
    assert_eq!(frozen, (Some(BTreeMap::new()), Some(Vec::new())));
    let kept: Slices = query_single_row(
        &session,
        "SELECT m['1'..'3'], s[1..3] FROM t WHERE k = 1",
        (),
    )
    .await;
    assert_eq!(
        kept,
        (Some(BTreeMap::from([("2".to_string(), 2)])), Some(vec![2]))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writetime_and_ttl_of_elements_and_fields() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    for cql in [
        "CREATE TYPE pair (a int, b text)",
        "CREATE TABLE e (p int PRIMARY KEY, m map<int, int>, s set<int>, fm frozen<map<int, int>>, x pair)",
        "INSERT INTO e (p, m, s, fm, x) VALUES (1, {1: 10, 2: 20}, {10}, {1: 10}, {a: 1}) USING TIMESTAMP 1000",
        "UPDATE e USING TIMESTAMP 2000 AND TTL 500 SET m = m + {2: 30}, x.b = 'q' WHERE p = 1",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    type Times = (
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
    );
    let times: Times = query_single_row(
        &session,
        "SELECT writetime(m[1]), writetime(m[2]), writetime(m[3]), writetime(s[10]), writetime(fm[1]) FROM e WHERE p = 1",
        (),
    )
    .await;
    assert_eq!(
        times,
        (Some(1000), Some(2000), None, Some(1000), Some(1000))
    );
    let fields: (Option<i64>, Option<i64>, Option<i32>, Option<i32>) = query_single_row(
        &session,
        "SELECT writetime(x.a), writetime(x.b), ttl(x.a), ttl(x.b) FROM e WHERE p = 1",
        (),
    )
    .await;
    assert_eq!(
        (fields.0, fields.1, fields.2),
        (Some(1000), Some(2000), None)
    );
    assert!(
        fields.3.is_some_and(|ttl| (400..=500).contains(&ttl)),
        "{fields:?}"
    );
    let (code, message) = query_error(&session, "SELECT writetime(l[0]) FROM t").await;
    assert_eq!(code, DbError::Invalid);
    assert_eq!(
        message,
        "Element selection is only allowed on sets and maps, but l is a list"
    );
    let (_, message) = query_error(&session, "SELECT ttl(k[0]) FROM t").await;
    assert_eq!(
        message,
        "Cannot use selection function ttl on PRIMARY KEY part k"
    );
}

#[tokio::test]
async fn operations_on_one_cell_in_one_statement_reconcile_as_cassandra() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(
        &session,
        "INSERT INTO t (k, s, m) VALUES (1, {1}, {'a': 1})",
    )
    .await;
    run(
        &session,
        "UPDATE t SET s = s + {3}, s = s - {3}, m['b'] = 9, m['b'] = 6 WHERE k = 1",
    )
    .await;
    let (_, s, m) = read(&session, 1).await;
    assert_eq!(s, Some(vec![1]));
    assert_eq!(
        m,
        Some(BTreeMap::from([("a".to_owned(), 1), ("b".to_owned(), 9)]))
    );
}

#[tokio::test]
async fn later_list_operations_of_a_statement_see_the_earlier_ones() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, l) VALUES (1, [1, 2, 3, 4])").await;
    run(&session, "UPDATE t SET l[2] = 7, l[2] = 8 WHERE k = 1").await;
    assert_eq!(read(&session, 1).await.0, Some(vec![1, 2, 8, 4]));
    // Deleting index 2 twice deletes it and the element that followed it.
    run(&session, "DELETE l[2], l[2] FROM t WHERE k = 1").await;
    assert_eq!(read(&session, 1).await.0, Some(vec![1, 2]));
    run(
        &session,
        "UPDATE t SET l = l + [3, 4], l[3] = 7 WHERE k = 1",
    )
    .await;
    assert_eq!(read(&session, 1).await.0, Some(vec![1, 2, 3, 7]));
    let (code, message) =
        query_error(&session, "UPDATE t SET l[4] = 5, l = l + [9] WHERE k = 1").await;
    assert_eq!(
        (code, message.as_str()),
        (
            DbError::Invalid,
            "List index 4 out of bound, list has size 4"
        )
    );
    run(&session, "UPDATE t SET l[2] = 7, l = l - [7] WHERE k = 1").await;
    assert_eq!(read(&session, 1).await.0, Some(vec![1, 2]));
}

#[tokio::test]
async fn bound_sets_are_sorted_and_deduplicated_as_cassandra_does() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(
        &session,
        "CREATE TABLE fs (k frozen<set<int>> PRIMARY KEY, v int)",
    )
    .await;
    let insert = session
        .prepare("INSERT INTO fs (k, v) VALUES (?, 1)")
        .await
        .unwrap();
    session
        .execute_unpaged(&insert, (vec![3, 1, 2],))
        .await
        .unwrap();
    let lookup = session
        .prepare("SELECT k, v FROM fs WHERE k = ?")
        .await
        .unwrap();
    for sent in [vec![1, 2, 3], vec![2, 3, 1, 1]] {
        let rows = session
            .execute_unpaged(&lookup, (sent.clone(),))
            .await
            .unwrap()
            .into_rows_result()
            .unwrap();
        let found: Vec<(Vec<i32>, i32)> = rows
            .rows::<(Vec<i32>, i32)>()
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(found, [(vec![1, 2, 3], 1)], "{sent:?}");
    }
}

/// Writes `map` into column `column` of row `k` with a prepared INSERT and reads it back.
async fn round_trip_map<K, V>(session: &Session, column: &str, map: &BTreeMap<K, V>)
where
    K: scylla::serialize::value::SerializeValue + Ord + std::fmt::Debug,
    V: scylla::serialize::value::SerializeValue + PartialEq + std::fmt::Debug,
    for<'f, 'm> BTreeMap<K, V>: scylla::deserialize::value::DeserializeValue<'f, 'm>,
{
    let insert = session
        .prepare(format!("INSERT INTO big (k, {column}) VALUES (1, ?)"))
        .await
        .unwrap();
    session.execute_unpaged(&insert, (map,)).await.unwrap();
    let select = format!("SELECT {column} FROM big WHERE k = 1");
    let (read,): (Option<BTreeMap<K, V>>,) = query_single_row(session, select, ()).await;
    assert_eq!(read.as_ref(), Some(map));
}

/// A bound map's entries are sorted once, not each looked up among the earlier ones: 65,535
/// entries took minutes of a runtime worker when that was quadratic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maps_of_65535_entries_are_written_and_read_whole() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE big (k int PRIMARY KEY, mt map<text, timestamp>, mi map<int, int>)",
    )
    .await;
    let stamps: BTreeMap<String, CqlTimestamp> = (0..65_535i64)
        .map(|i| (format!("key-{i:05}"), CqlTimestamp(1_700_000_000_000 + i)))
        .collect();
    round_trip_map(&session, "mt", &stamps).await;
    // Negative keys sort before positive ones by value, not by their bytes.
    let ints: BTreeMap<i32, i32> = (-32_767..32_768).map(|i| (i * 7, -i)).collect();
    round_trip_map(&session, "mi", &ints).await;
}

/// A bound collection holding a null (an element length of -1) is refused with Cassandra's
/// messages: a set element or map key or value as `readNonNullValue` refuses it, a list
/// element (which Cassandra's list deserializer takes, for IN values) as a collection value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn null_elements_inside_bound_collections_are_refused() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE n (k int, c int, l list<int>, s set<int>, m map<int, int>, \
         fl frozen<list<int>>, ll list<frozen<list<int>>>, PRIMARY KEY (k, c))",
    )
    .await;
    // 5.0 answers the serializer's message alone (`Constants.Marker.bindAndGet`), whatever
    // the column.
    let refused = |_column: &str| "null is not supported inside collections".to_string();
    let unreadable = |_column: &str| "Null value read when not allowed".to_string();
    let list: Vec<Option<i32>> = vec![Some(1), None, Some(2)];
    for (cql, expected) in [
        ("INSERT INTO n (k, c, l) VALUES (1, 1, ?)", refused("l")),
        ("INSERT INTO n (k, c, s) VALUES (1, 1, ?)", unreadable("s")),
        ("INSERT INTO n (k, c, fl) VALUES (1, 1, ?)", refused("fl")),
        ("UPDATE n SET l = l + ? WHERE k = 1 AND c = 1", refused("l")),
        (
            "UPDATE n SET s = s - ? WHERE k = 1 AND c = 1",
            unreadable("s"),
        ),
        (
            "UPDATE n SET m = m - ? WHERE k = 1 AND c = 1",
            unreadable("m"),
        ),
        ("SELECT * FROM n WHERE k IN ?", refused("in(k)")),
        ("SELECT * FROM n WHERE k = 1 AND c IN ?", refused("in(c)")),
    ] {
        let prepared = session.prepare(cql).await.expect(cql);
        let err = session
            .execute_unpaged(&prepared, (&list,))
            .await
            .unwrap_err();
        let (code, message) = integration_tests::db_error(&err).expect(cql);
        assert_eq!((code, message), (DbError::Invalid, expected), "{cql}");
    }
    let insert = session
        .prepare("INSERT INTO n (k, c, m) VALUES (1, 1, ?)")
        .await
        .unwrap();
    let null_value: BTreeMap<i32, Option<i32>> = BTreeMap::from([(1, None)]);
    let null_key: BTreeMap<Option<i32>, i32> = BTreeMap::from([(None, 1)]);
    for err in [
        session.execute_unpaged(&insert, (&null_value,)).await,
        session.execute_unpaged(&insert, (&null_key,)).await,
    ] {
        let err = err.unwrap_err();
        assert_eq!(
            integration_tests::db_error(&err),
            Some((DbError::Invalid, unreadable("m")))
        );
    }
    let nested = session
        .prepare("INSERT INTO n (k, c, ll) VALUES (1, 1, ?)")
        .await
        .unwrap();
    let err = session
        .execute_unpaged(&nested, (vec![vec![Some(1), None]],))
        .await
        .unwrap_err();
    assert_eq!(
        integration_tests::db_error(&err),
        Some((DbError::Invalid, refused("ll")))
    );
}

/// A long list minus many values removes every occurrence, each value looked up once (a
/// linear search per element held a runtime worker past the driver's 30 s timeout).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_lists_minus_many_values() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE pl (k int PRIMARY KEY, l list<int>)").await;
    let list: Vec<i32> = (0..65_535).collect();
    for cql in [
        "INSERT INTO pl (k, l) VALUES (1, ?)",
        "UPDATE pl SET l = l + ? WHERE k = 1",
    ] {
        let prepared = session.prepare(cql).await.unwrap();
        session.execute_unpaged(&prepared, (&list,)).await.unwrap();
    }
    let evens: Vec<i32> = list.iter().copied().filter(|i| i % 2 == 0).collect();
    let remove = session
        .prepare("UPDATE pl SET l = l - ? WHERE k = 1")
        .await
        .unwrap();
    session.execute_unpaged(&remove, (&evens,)).await.unwrap();
    let (read,): (Vec<i32>,) = query_single_row(&session, "SELECT l FROM pl WHERE k = 1", ()).await;
    let odds: Vec<i32> = list.iter().copied().filter(|i| i % 2 == 1).collect();
    assert_eq!(read, [odds.clone(), odds].concat());
}
