//! Prepared statements: ids, metadata, pk indexes, UNPREPARED.

use cql::frame::request::{Execute, Prepare, Request, Value};
use cql::frame::response::{Response, ResultBody};
use integration_tests::{default_params, RawConnection, TestServer};
use scylla::client::session::Session;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepare_reports_bind_metadata_and_pk_indexes() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session
        .query_unpaged("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &[])
        .await
        .unwrap();
    session
        .query_unpaged(
            "CREATE TABLE ks.t (a int, b text, c bigint, v blob, PRIMARY KEY ((a, b), c))",
            &[],
        )
        .await
        .unwrap();
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    let text = "INSERT INTO ks.t (v, c, b, a) VALUES (?, ?, ?, ?)";
    raw.send(
        1,
        &Request::Prepare(Prepare {
            query: text.into(),
            keyspace: None,
        }),
    )
    .await;
    let (_, _, response) = raw.recv().await.unwrap();
    let Response::Result(ResultBody::Prepared(prepared)) = response else {
        panic!("{response:?}")
    };
    assert_eq!(prepared.metadata.pk_indexes, vec![3, 2]);
    let names: Vec<&str> = prepared
        .metadata
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, vec!["v", "c", "b", "a"]);
    assert!(prepared.result_metadata.columns.is_empty());
    // Same text, same id (MD5 of the text), from any connection.
    let mut other = RawConnection::connect(server.addr).await;
    other.startup().await;
    other
        .send(
            1,
            &Request::Prepare(Prepare {
                query: text.into(),
                keyspace: None,
            }),
        )
        .await;
    let (_, _, again) = other.recv().await.unwrap();
    let Response::Result(ResultBody::Prepared(again)) = again else {
        panic!()
    };
    assert_eq!(again.id, prepared.id);
    // A SELECT prepares with its result metadata; `IN ?` is named in(col).
    raw.send(
        2,
        &Request::Prepare(Prepare {
            query: "SELECT c, v FROM ks.t WHERE a = ? AND b = ? AND c IN ?".into(),
            keyspace: None,
        }),
    )
    .await;
    let (_, _, response) = raw.recv().await.unwrap();
    let Response::Result(ResultBody::Prepared(select)) = response else {
        panic!("{response:?}")
    };
    let result_names: Vec<&str> = select
        .result_metadata
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(result_names, vec!["c", "v"]);
    assert_eq!(select.metadata.columns[2].name, "in(c)");
    assert_eq!(select.metadata.pk_indexes, vec![0, 1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_prepared_id_answers_unprepared_with_the_id() {
    let server = TestServer::start().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    let id = bytes::Bytes::from_static(&[1, 2, 3, 4]);
    raw.send(
        4,
        &Request::Execute(Execute {
            id: id.clone(),
            params: default_params(),
            result_metadata_id: None,
        }),
    )
    .await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 4);
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x2500);
    assert!(
        matches!(err.extra, cql::frame::response::ErrorExtra::Unprepared { id: ref got } if *got == id)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_on_system_tables() {
    let server = TestServer::start().await;
    let session = server.session().await;
    let prepared = session
        .prepare("SELECT host_id, rpc_address, data_center, rack, tokens, cluster_name FROM system.local WHERE key='local'")
        .await
        .unwrap();
    let rows = session
        .execute_unpaged(&prepared, &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 1);
    let err = session
        .prepare("SELECT * FROM system_schema.scylla_tables")
        .await
        .unwrap_err();
    let (code, msg) = integration_tests::prepare_db_error(&err).unwrap();
    assert_eq!(code, scylla::errors::DbError::Invalid);
    assert_eq!(msg, "table scylla_tables does not exist");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_follow_schema_changes() {
    let server = TestServer::start().await;
    let session = integration_tests::session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int, w int)", &[])
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO t (k, v) VALUES (?, ?)")
        .await
        .unwrap();
    let select = session
        .prepare("SELECT v FROM t WHERE k = ?")
        .await
        .unwrap();
    let read = |k: i32| {
        let (session, select) = (&session, &select);
        async move {
            let result = session.execute_unpaged(select, (k,)).await?;
            let rows = result.into_rows_result().expect("rows result");
            Ok::<_, scylla::errors::ExecutionError>(rows.single_row::<(Option<i32>,)>().unwrap().0)
        }
    };
    session.execute_unpaged(&insert, (1, 10)).await.unwrap();
    assert_eq!(read(1).await.unwrap(), Some(10));
    // The cached plans serve the altered table (planned again against the new schema).
    session
        .query_unpaged("ALTER TABLE t ADD x int", &[])
        .await
        .unwrap();
    session.execute_unpaged(&insert, (2, 20)).await.unwrap();
    assert_eq!(read(2).await.unwrap(), Some(20));
    // A dropped column fails at execution, with the planner's message.
    session
        .query_unpaged("ALTER TABLE t DROP v", &[])
        .await
        .unwrap();
    let err = read(1).await.unwrap_err();
    let (code, message) = integration_tests::db_error(&err).unwrap();
    assert_eq!(code, scylla::errors::DbError::Invalid);
    assert_eq!(message, "Undefined column name v in table ks.t");
}

/// A driver session that created keyspace `ks` and ran `setup` there, and a raw connection
/// past STARTUP.
async fn started_after(server: &TestServer, setup: &[&str]) -> (Session, RawConnection) {
    let session = server.session().await;
    let keyspace =
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";
    for cql in std::iter::once(keyspace).chain(setup.iter().copied()) {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    (session, raw)
}

/// A prepared read of one row by its whole primary key is answered on the connection's
/// thread without a request future: it must answer, fail and count as any other request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_one_row_read_answers_and_fails_as_any_request() {
    let server = TestServer::start().await;
    let (_session, mut raw) = started_after(
        &server,
        &[
            "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
            "INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'found')",
        ],
    )
    .await;
    let read = prepare_raw(&mut raw, "SELECT v FROM ks.t WHERE k = ? AND c = ?").await;
    let requests = [
        execute_request(&read, vec![int(1), int(2)]),
        execute_request(&read, vec![int(1), int(3)]),
        execute_request(&read, vec![int(1), bigint(2)]),
        execute_request(&read, vec![int(1)]),
    ];
    let answers = pipelined(&mut raw, &requests).await;
    let rows = |stream: i16| match &answers[&stream] {
        Response::Result(ResultBody::Rows(rows)) => rows.rows.clone(),
        other => panic!("{other:?}"),
    };
    let error = |stream: i16| match &answers[&stream] {
        Response::Error(err) => (err.code, err.message.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        rows(10),
        vec![vec![Some(bytes::Bytes::from_static(b"found"))]]
    );
    assert!(rows(11).is_empty());
    let (code, message) = error(12);
    assert_eq!(code, 0x2200);
    assert!(
        message.contains("Expected 4 or 0 byte int (8)"),
        "{message}"
    );
    assert_eq!(
        error(13),
        (
            0x2200,
            "There were 2 markers(?) in CQL but 1 bound variables".to_string()
        )
    );
    // The same read on a connection that has not finished STARTUP is refused, as any
    // request is.
    let mut early = RawConnection::connect(server.addr).await;
    early.send(1, &requests[0]).await;
    let (_, _, response) = early.recv().await.unwrap();
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x000A);
}

/// An `int` value.
fn int(n: i32) -> Value {
    Value::Bytes(bytes::Bytes::copy_from_slice(&n.to_be_bytes()))
}

/// A `bigint` value.
fn bigint(n: i64) -> Value {
    Value::Bytes(bytes::Bytes::copy_from_slice(&n.to_be_bytes()))
}

/// An EXECUTE of prepared statement `id` with `values`.
fn execute_request(id: &bytes::Bytes, values: Vec<Value>) -> Request {
    let mut params = default_params();
    params.values = values;
    Request::Execute(Execute {
        id: id.clone(),
        params,
        result_metadata_id: None,
    })
}

/// Sends `requests` pipelined, as drivers send them, on streams 10, 11, ...; each answer by
/// its stream.
async fn pipelined(
    raw: &mut RawConnection,
    requests: &[Request],
) -> std::collections::HashMap<i16, Response> {
    for (stream, request) in (10..).zip(requests) {
        raw.send(stream, request).await;
    }
    let mut answers = std::collections::HashMap::new();
    for _ in requests {
        let (_, stream, response) = raw.recv().await.unwrap();
        answers.insert(stream, response);
    }
    answers
}

/// Prepares `query` on `raw` (stream 1) and returns its id.
async fn prepare_raw(raw: &mut RawConnection, query: &str) -> bytes::Bytes {
    let prepare = Prepare {
        query: query.into(),
        keyspace: None,
    };
    raw.send(1, &Request::Prepare(prepare)).await;
    let (_, _, response) = raw.recv().await.unwrap();
    let Response::Result(ResultBody::Prepared(prepared)) = response else {
        panic!("{response:?}")
    };
    prepared.id
}

/// A prepared plain write is handed to the writer on the connection's thread, leaving only
/// its acknowledgement to wait for; conditional and counter writes go the usual way. Each
/// must answer, fail and be stored as any request is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_writes_begun_on_the_connection_answer_and_fail_as_any_request() {
    let server = TestServer::start().await;
    let (session, mut raw) = started_after(
        &server,
        &[
            "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
            "CREATE TABLE ks.n (k int PRIMARY KEY, n counter)",
        ],
    )
    .await;
    let insert = prepare_raw(&mut raw, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)").await;
    let delete = prepare_raw(&mut raw, "DELETE FROM ks.t WHERE k = ? AND c = ?").await;
    let lwt = prepare_raw(
        &mut raw,
        "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS",
    )
    .await;
    let counter = prepare_raw(&mut raw, "UPDATE ks.n SET n = n + ? WHERE k = ?").await;
    let text = |s: &'static str| Value::Bytes(bytes::Bytes::from_static(s.as_bytes()));
    let mut requests: Vec<Request> = (0..20)
        .map(|c| execute_request(&insert, vec![int(1), int(c), text("written")]))
        .collect();
    requests.extend([
        execute_request(&delete, vec![int(1), int(3)]),
        execute_request(&insert, vec![int(1), bigint(2), text("wrong type")]),
        execute_request(&insert, vec![int(1), int(2)]),
        execute_request(&lwt, vec![int(1), int(0), text("not applied")]),
        execute_request(&lwt, vec![int(2), int(0), text("applied")]),
        execute_request(&counter, vec![bigint(5), int(1)]),
    ]);
    let answers = pipelined(&mut raw, &requests).await;
    for stream in 10..31 {
        assert!(
            matches!(answers[&stream], Response::Result(ResultBody::Void)),
            "stream {stream}: {:?}",
            answers[&stream]
        );
    }
    let error = |stream: i16| match &answers[&stream] {
        Response::Error(err) => (err.code, err.message.clone()),
        other => panic!("{other:?}"),
    };
    let (code, message) = error(31);
    assert_eq!(code, 0x2200);
    assert!(
        message.contains("Expected 4 or 0 byte int (8)"),
        "{message}"
    );
    assert_eq!(
        error(32),
        (
            0x2200,
            "There were 3 markers(?) in CQL but 2 bound variables".to_string()
        )
    );
    let applied = |stream: i16| match &answers[&stream] {
        Response::Result(ResultBody::Rows(rows)) => rows.rows[0][0].clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(applied(33), Some(bytes::Bytes::from_static(&[0])));
    assert_eq!(applied(34), Some(bytes::Bytes::from_static(&[1])));
    assert!(matches!(answers[&35], Response::Result(ResultBody::Void)));
    // Every acknowledged write is there, and nothing else.
    let rows = session
        .query_unpaged("SELECT k, c, v FROM ks.t", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let mut stored: Vec<(i32, i32, String)> = rows
        .rows::<(i32, i32, String)>()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    stored.sort();
    let mut expected: Vec<(i32, i32, String)> = (0..20)
        .filter(|&c| c != 3)
        .map(|c| (1, c, "written".to_string()))
        .collect();
    expected.push((2, 0, "applied".to_string()));
    assert_eq!(stored, expected);
    let counted = session
        .query_unpaged("SELECT n FROM ks.n WHERE k = 1", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .single_row::<(scylla::value::Counter,)>()
        .unwrap();
    assert_eq!(counted.0 .0, 5);
    // The same write on a connection that has not finished STARTUP is refused.
    let mut early = RawConnection::connect(server.addr).await;
    early.send(1, &requests[0]).await;
    let (_, _, response) = early.recv().await.unwrap();
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x000A);
}
