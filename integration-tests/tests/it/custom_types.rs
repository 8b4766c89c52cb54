//! Custom types named by their Java class: `CompositeType` and `DynamicCompositeType` columns
//! kept by their full class names (`system_schema`, DESCRIBE, result and prepared metadata)
//! with values serialized as Cassandra serializes them; classes of CQL types are those types;
//! unknown classes refused. The scylla driver 1.9 cannot parse a composite class in result
//! metadata (its parser knows the CQL types' classes only), so the values are read over a
//! raw connection. The Python driver decodes them (`integration-tests/python/test_custom_types.py`).

use cql::frame::request::{Prepare, Query, Request, Value};
use cql::frame::response::{Response, ResultBody};
use cql::types::ColumnType;
use integration_tests::{default_params, query_error, query_rows, RawConnection, TestServer};
use scylla::errors::DbError;

const COMPOSITE: &str = "org.apache.cassandra.db.marshal.CompositeType(\
                         org.apache.cassandra.db.marshal.AsciiType,\
                         org.apache.cassandra.db.marshal.Int32Type)";
const DYNAMIC: &str = "org.apache.cassandra.db.marshal.DynamicCompositeType(\
                       s=>org.apache.cassandra.db.marshal.UTF8Type,\
                       i=>org.apache.cassandra.db.marshal.Int32Type)";

/// Keyspace `ks` with `ks.custom`: a composite, a dynamic composite, and two classes of CQL
/// types.
async fn schema(server: &TestServer) -> scylla::client::session::Session {
    // The driver's schema metadata cannot parse a custom type's quoted class (nor can it
    // against Cassandra): the session reads none.
    let session = scylla::client::session_builder::SessionBuilder::new()
        .known_node_addr(server.addr)
        .fetch_schema_metadata(false)
        .build()
        .await
        .expect("driver session");
    for cql in [
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE ks.custom (a int PRIMARY KEY, \
         b 'org.apache.cassandra.db.marshal.CompositeType(AsciiType, Int32Type)', \
         c 'DynamicCompositeType(s => UTF8Type, i => Int32Type)', \
         d 'org.apache.cassandra.db.marshal.Int32Type', \
         e 'ListType(UTF8Type)')",
    ] {
        session
            .query_unpaged(cql, ())
            .await
            .unwrap_or_else(|err| panic!("{cql}: {err}"));
    }
    session
}

/// The rows of `cql` read over `raw`: the column types and the cells.
async fn raw_rows(
    raw: &mut RawConnection,
    stream: i16,
    cql: &str,
) -> (Vec<ColumnType>, Vec<Vec<Option<Vec<u8>>>>) {
    raw.query(stream, cql).await;
    match raw.recv().await {
        Some((_, got, Response::Result(ResultBody::Rows(rows)))) if got == stream => (
            rows.metadata.columns.iter().map(|c| c.ty.clone()).collect(),
            rows.rows
                .iter()
                .map(|row| row.iter().map(|c| c.as_ref().map(|b| b.to_vec())).collect())
                .collect(),
        ),
        other => panic!("{cql}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn composite_columns_keep_their_classes_and_serialization() {
    let server = TestServer::start().await;
    let session = schema(&server).await;
    for cql in [
        "INSERT INTO ks.custom (a, b, c, d, e) VALUES (0, 'abc:123', 's@foo:i@32', 7, ['x'])",
        "INSERT INTO ks.custom (a, b) VALUES (1, 'abc')",
        "INSERT INTO ks.custom (a, b) VALUES (2, 0x000178000004000000050001)",
        "INSERT INTO ks.custom (a, c) VALUES (3, 'Int32Type@5')",
    ] {
        session
            .query_unpaged(cql, ())
            .await
            .unwrap_or_else(|err| panic!("{cql}: {err}"));
    }
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    let (types, rows) = raw_rows(&mut raw, 1, "SELECT b, c, d, e FROM ks.custom WHERE a = 0").await;
    assert_eq!(
        types,
        vec![
            ColumnType::Custom(COMPOSITE.to_string()),
            ColumnType::Custom(DYNAMIC.to_string()),
            ColumnType::Int,
            ColumnType::List {
                element: Box::new(ColumnType::Text),
                frozen: false
            },
        ]
    );
    let abc_123 = vec![0, 3, b'a', b'b', b'c', 0, 0, 4, 0, 0, 0, 123, 0];
    let foo_32 = vec![
        0x80, b's', 0, 3, b'f', b'o', b'o', 0, 0x80, b'i', 0, 4, 0, 0, 0, 32, 0,
    ];
    assert_eq!(rows[0][0].as_deref(), Some(abc_123.as_slice()));
    assert_eq!(rows[0][1].as_deref(), Some(foo_32.as_slice()));
    assert_eq!(rows[0][2].as_deref(), Some([0, 0, 0, 7].as_slice()));
    // Trailing components left out; a blob literal taken as it is.
    let (_, rows) = raw_rows(&mut raw, 2, "SELECT b FROM ks.custom WHERE a IN (1, 2)").await;
    assert_eq!(
        rows[0][0].as_deref(),
        Some([0, 3, b'a', b'b', b'c', 0].as_slice())
    );
    assert_eq!(
        rows[1][0].as_deref(),
        Some([0, 1, b'x', 0, 0, 4, 0, 0, 0, 5, 0, 1].as_slice())
    );
    // A dynamic component named by class carries the name as written.
    let (_, rows) = raw_rows(&mut raw, 3, "SELECT c FROM ks.custom WHERE a = 3").await;
    let mut by_class = vec![0, 9];
    by_class.extend_from_slice(b"Int32Type");
    by_class.extend_from_slice(&[0, 4, 0, 0, 0, 5, 0]);
    assert_eq!(rows[0][0].as_deref(), Some(by_class.as_slice()));
    // Bound bytes are validated as `CompositeType.validate` does.
    let mut params = default_params();
    params.values = vec![Value::Bytes(bytes::Bytes::from_static(&[0, 1, b'a', 0, 0]))];
    let query = Query {
        query: "INSERT INTO ks.custom (a, b) VALUES (5, ?)".into(),
        params,
    };
    raw.send(6, &Request::Query(query)).await;
    match raw.recv().await {
        Some((_, 6, Response::Error(err))) => {
            assert_eq!(err.code, 0x2200);
            assert!(
                err.message
                    .contains("Not enough bytes to read value size of component 1"),
                "{}",
                err.message
            );
        }
        other => panic!("{other:?}"),
    }
    // And a dynamic composite's headers as `DynamicCompositeType.validateComparator` does.
    for (stream, bytes, message) in [
        (
            7,
            &[0x80, b'z', 0, 1, b'a', 0][..],
            "Cannot find comparator for component 0",
        ),
        (
            8,
            &[0x80, b's', 0, 1, b'a', 0, 0][..],
            "Not enough bytes to header of the comparator part of component 1",
        ),
        (
            9,
            &[0, 9, b'I', b'n', b't'][..],
            "Not enough bytes to read comparator name of component 0",
        ),
    ] {
        let mut params = default_params();
        params.values = vec![Value::Bytes(bytes::Bytes::copy_from_slice(bytes))];
        let query = Query {
            query: "INSERT INTO ks.custom (a, c) VALUES (5, ?)".into(),
            params,
        };
        raw.send(stream, &Request::Query(query)).await;
        match raw.recv().await {
            Some((_, got, Response::Error(err))) if got == stream => {
                assert_eq!((err.code, err.message.as_str()), (0x2200, message));
            }
            other => panic!("{other:?}"),
        }
    }
    // Prepared metadata names the classes too: bind markers and result columns.
    let prepare = |stream: i16, query: &str| {
        let request = Request::Prepare(Prepare {
            query: query.to_string(),
            keyspace: None,
        });
        (stream, request)
    };
    let (stream, insert) = prepare(4, "INSERT INTO ks.custom (a, b) VALUES (?, ?)");
    raw.send(stream, &insert).await;
    match raw.recv().await {
        Some((_, 4, Response::Result(ResultBody::Prepared(prepared)))) => {
            assert_eq!(
                prepared.metadata.columns[1].ty,
                ColumnType::Custom(COMPOSITE.to_string())
            );
        }
        other => panic!("{other:?}"),
    }
    let (stream, select) = prepare(5, "SELECT c FROM ks.custom WHERE a = ?");
    raw.send(stream, &select).await;
    match raw.recv().await {
        Some((_, 5, Response::Result(ResultBody::Prepared(prepared)))) => {
            assert_eq!(
                prepared.result_metadata.columns[0].ty,
                ColumnType::Custom(DYNAMIC.to_string())
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_schema_and_describe_show_the_full_class_names() {
    let server = TestServer::start().await;
    let session = schema(&server).await;
    let mut columns: Vec<(String, String)> = query_rows(
        &session,
        "SELECT column_name, type FROM system_schema.columns \
         WHERE keyspace_name = 'ks' AND table_name = 'custom'",
        (),
    )
    .await;
    columns.sort();
    let quoted = |class: &str| format!("'{class}'");
    assert_eq!(
        columns,
        vec![
            ("a".to_string(), "int".to_string()),
            ("b".to_string(), quoted(COMPOSITE)),
            ("c".to_string(), quoted(DYNAMIC)),
            ("d".to_string(), "int".to_string()),
            ("e".to_string(), "list<text>".to_string()),
        ]
    );
    let described: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE TABLE ks.custom", ()).await;
    let statement = &described[0].3;
    assert!(
        statement.contains(&format!("b {}", quoted(COMPOSITE))),
        "{statement}"
    );
    assert!(
        statement.contains(&format!("c {}", quoted(DYNAMIC))),
        "{statement}"
    );
    assert!(statement.contains("d int,"), "{statement}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_classes_and_bad_parameters_are_refused() {
    let server = TestServer::start().await;
    let session = schema(&server).await;
    assert_eq!(
        query_error(
            &session,
            "CREATE TABLE ks.bad (a int PRIMARY KEY, b 'org.apache.cassandra.db.marshal.NoSuchType')"
        )
        .await,
        (
            DbError::ConfigError,
            "Unable to find abstract-type class 'org.apache.cassandra.db.marshal.NoSuchType'"
                .to_string()
        )
    );
    assert_eq!(
        query_error(
            &session,
            "CREATE TABLE ks.bad (a int PRIMARY KEY, b 'ListType(Int32Type, Int32Type)')"
        )
        .await,
        (
            DbError::ConfigError,
            "ListType takes exactly 1 type parameter".to_string()
        )
    );
    let (error, message) = query_error(
        &session,
        "CREATE TABLE ks.bad (a int PRIMARY KEY, b 'CompositeType(Int32Type')",
    )
    .await;
    assert_eq!(error, DbError::SyntaxError);
    assert_eq!(
        message,
        "Syntax error parsing 'CompositeType(Int32Type' at char 23: unexpected end of string"
    );
    let (error, message) = query_error(
        &session,
        "INSERT INTO ks.custom (a, b) VALUES (9, 'abc:notanint')",
    )
    .await;
    assert_eq!(error, DbError::Invalid);
    assert_eq!(message, "Unable to make int from 'notanint'");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn composite_clustering_columns_sort_component_by_component() {
    let server = TestServer::start().await;
    let session = schema(&server).await;
    for cql in [
        "CREATE TABLE ks.ordered (k int, c 'CompositeType(UTF8Type, Int32Type)', v int, \
         PRIMARY KEY (k, c))",
        "CREATE TABLE ks.reversed (k int, c 'CompositeType(UTF8Type, Int32Type)', v int, \
         PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)",
    ] {
        session.query_unpaged(cql, ()).await.expect(cql);
    }
    for table in ["ordered", "reversed"] {
        for (c, v) in [("b:1", 1), ("abc:2", 2), ("abc:1", 3), ("abc", 4)] {
            let cql = format!("INSERT INTO ks.{table} (k, c, v) VALUES (0, '{c}', {v})");
            session
                .query_unpaged(cql.as_str(), ())
                .await
                .expect("insert");
        }
    }
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    // Not by the serialized bytes (whose length prefix would put "b" first): "abc" alone
    // first, then by the int, then "b".
    assert_eq!(
        ints(&mut raw, "SELECT v FROM ks.ordered WHERE k = 0", 1).await,
        [4, 3, 2, 1]
    );
    assert_eq!(
        ints(&mut raw, "SELECT v FROM ks.reversed WHERE k = 0", 2).await,
        [1, 2, 3, 4]
    );
    assert_eq!(
        ints(
            &mut raw,
            "SELECT v FROM ks.ordered WHERE k = 0 AND c >= 'abc:2'",
            3
        )
        .await,
        [2, 1]
    );
    assert_eq!(
        ints(
            &mut raw,
            "SELECT v FROM ks.ordered WHERE k = 0 AND c = 'abc:1'",
            4
        )
        .await,
        [3]
    );
    // As a partition key, a composite is identified by its bytes.
    for cql in [
        "CREATE TABLE ks.keyed (c 'CompositeType(UTF8Type, Int32Type)' PRIMARY KEY, v int)",
        "INSERT INTO ks.keyed (c, v) VALUES ('a:1', 5)",
        "INSERT INTO ks.keyed (c, v) VALUES ('a', 6)",
    ] {
        session.query_unpaged(cql, ()).await.expect(cql);
    }
    assert_eq!(
        ints(&mut raw, "SELECT v FROM ks.keyed WHERE c = 'a:1'", 5).await,
        [5]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dynamic_composite_clustering_columns_sort_by_type_then_value() {
    let server = TestServer::start().await;
    let session = schema(&server).await;
    let table = "CREATE TABLE ks.dynamic (k int, \
                 c 'DynamicCompositeType(s => UTF8Type, i => Int32Type, I => ReversedType(Int32Type))', \
                 v int, PRIMARY KEY (k, c))";
    session.query_unpaged(table, ()).await.expect(table);
    for (c, v) in [
        ("s@b", 1),
        ("i@10", 2),
        ("i@9", 3),
        ("s@a:i@1", 4),
        ("I@1", 5),
        ("I@2", 6),
        // The class of an aliased type names the same component: one row with 's@a'.
        ("UTF8Type@a", 7),
        ("s@a", 8),
        ("LongType@3", 9),
    ] {
        let cql = format!("INSERT INTO ks.dynamic (k, c, v) VALUES (0, '{c}', {v})");
        session.query_unpaged(cql.as_str(), ()).await.expect(&cql);
    }
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    // By class name first (Int32Type < LongType < ReversedType < UTF8Type), then by value in
    // the type's order (reversed for `I`); a component alone before the same with more.
    assert_eq!(
        ints(&mut raw, "SELECT v FROM ks.dynamic WHERE k = 0", 1).await,
        [3, 2, 9, 6, 5, 8, 4, 1]
    );
    assert_eq!(
        ints(
            &mut raw,
            "SELECT v FROM ks.dynamic WHERE k = 0 AND c > 'i@9' AND c < 's@a'",
            2
        )
        .await,
        [2, 9, 6, 5]
    );
    // The value comes back with the declaration's alias, as Cassandra builds it.
    let (_, rows) = raw_rows(
        &mut raw,
        3,
        "SELECT c FROM ks.dynamic WHERE k = 0 AND c = 'UTF8Type@a'",
    )
    .await;
    assert_eq!(
        rows,
        vec![vec![Some(vec![0x80, b's', 0, 1, b'a', 0])]],
        "one row, keyed by its alias"
    );
    let (error, message) = query_error(
        &session,
        "INSERT INTO ks.dynamic (k, c, v) VALUES (0, 0x807a00017800, 1)",
    )
    .await;
    // A blob constant is taken unchecked, as Cassandra takes it (see the first test); as a
    // clustering value it must name its types, and one that does not is refused.
    assert_eq!(error, DbError::Invalid);
    assert!(
        message.ends_with("key value: Cannot find comparator for component 0"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reversed_types_sort_clustering_columns_descending() {
    let server = TestServer::start().await;
    let session = schema(&server).await;
    for cql in [
        "CREATE TABLE ks.rev (k int, c 'org.apache.cassandra.db.marshal.ReversedType(Int32Type)', \
         d 'LongType(reversed=true)', v int, PRIMARY KEY (k, c, d))",
        "CREATE TABLE ks.revpart (k int, c 'CompositeType(UTF8Type, ReversedType(Int32Type))', \
         v int, PRIMARY KEY (k, c))",
    ] {
        session.query_unpaged(cql, ()).await.expect(cql);
    }
    for (c, d, v) in [(1, 1, 1), (2, 1, 2), (2, 2, 3), (3, 5, 4)] {
        let cql = format!("INSERT INTO ks.rev (k, c, d, v) VALUES (0, {c}, {d}, {v})");
        session.query_unpaged(cql.as_str(), ()).await.expect(&cql);
    }
    for (c, v) in [("a:1", 1), ("a:2", 2), ("b:1", 3)] {
        let cql = format!("INSERT INTO ks.revpart (k, c, v) VALUES (0, '{c}', {v})");
        session.query_unpaged(cql.as_str(), ()).await.expect(&cql);
    }
    let rows: Vec<(i32,)> = query_rows(&session, "SELECT v FROM ks.rev WHERE k = 0", ()).await;
    assert_eq!(rows, vec![(4,), (3,), (2,), (1,)]);
    let rows: Vec<(i32,)> = query_rows(
        &session,
        "SELECT v FROM ks.rev WHERE k = 0 ORDER BY c ASC, d ASC",
        (),
    )
    .await;
    assert_eq!(rows, vec![(1,), (2,), (3,), (4,)]);
    // As Cassandra records it: the base type, in descending order.
    let mut columns: Vec<(String, String, String)> = query_rows(
        &session,
        "SELECT column_name, type, clustering_order FROM system_schema.columns \
         WHERE keyspace_name = 'ks' AND table_name = 'rev'",
        (),
    )
    .await;
    columns.sort();
    assert_eq!(
        columns[..2],
        [
            ("c".to_string(), "int".to_string(), "desc".to_string()),
            ("d".to_string(), "bigint".to_string(), "desc".to_string()),
        ]
    );
    let described: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE TABLE ks.rev", ()).await;
    assert!(
        described[0]
            .3
            .contains("CLUSTERING ORDER BY (c DESC, d DESC)"),
        "{}",
        described[0].3
    );
    // A reversed component of a composite sorts its values the other way.
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    assert_eq!(
        ints(&mut raw, "SELECT v FROM ks.revpart WHERE k = 0", 1).await,
        [2, 1, 3]
    );
}

/// The first column of `cql`'s rows, as ints, read over `raw`.
async fn ints(raw: &mut RawConnection, cql: &str, stream: i16) -> Vec<i32> {
    let (_, rows) = raw_rows(raw, stream, cql).await;
    rows.into_iter()
        .map(|row| {
            let bytes: [u8; 4] = row[0]
                .as_deref()
                .and_then(|b| b.try_into().ok())
                .expect("an int");
            i32::from_be_bytes(bytes)
        })
        .collect()
}
