//! The query log (test controls): every request on both doors, read through
//! `GET /queries` and `SELECT ... FROM test_control.queries`, cleared through both.

use integration_tests::{db_error, query_all_pages, session_in, TestServer};
use scylla::statement::unprepared::Statement;
use scylla::statement::Consistency;
use serde_json::{json, Value};
use server::Config;

/// The whole log through the HTTP door, oldest first.
async fn entries(server: &TestServer) -> Vec<Value> {
    let (status, body) = server.http("GET", "/queries", "").await;
    assert_eq!(status, 200, "{body}");
    body.as_array().expect("an array of entries").clone()
}

/// The entries of `opcode` whose statement is `query`, oldest first.
fn of<'a>(entries: &'a [Value], opcode: &str, query: &str) -> Vec<&'a Value> {
    entries
        .iter()
        .filter(|e| e["opcode"] == opcode && e["query"] == query)
        .collect()
}

/// The one entry of `opcode` whose statement is `query`.
fn one<'a>(entries: &'a [Value], opcode: &str, query: &str) -> &'a Value {
    match of(entries, opcode, query).as_slice() {
        [entry] => entry,
        other => panic!("{} entries of {opcode} {query}: {other:?}", other.len()),
    }
}

fn ids(entries: &[Value]) -> Vec<i64> {
    entries
        .iter()
        .map(|e| e["id"].as_i64().expect("an id"))
        .collect()
}

/// A prepared INSERT shows its text, bound values (as CQL literals), consistency, default
/// timestamp, driver and keyspace; its PREPARE shows too.
#[tokio::test]
async fn a_prepared_insert_shows_its_text_values_consistency_and_timestamp() {
    let server = TestServer::start_with_http().await;
    let session = session_in(&server, "qlog").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k int PRIMARY KEY, v text, l list<int>)",
            (),
        )
        .await
        .expect("create");
    let text = "INSERT INTO t (k, v, l) VALUES (?, ?, ?)";
    let mut insert = session.prepare(text).await.expect("prepare");
    insert.set_consistency(Consistency::LocalQuorum);
    insert.set_timestamp(Some(1_234_567));
    session
        .execute_unpaged(&insert, (7, "it's", vec![1, 2]))
        .await
        .expect("insert");
    let log = entries(&server).await;
    let entry = one(&log, "EXECUTE", text);
    assert_eq!(entry["bound_values"], json!(["7", "'it''s'", "[1, 2]"]));
    assert_eq!(entry["consistency"], "LOCAL_QUORUM");
    assert_eq!(entry["default_timestamp"], 1_234_567);
    assert_eq!(entry["result"], "void");
    assert_eq!(entry["keyspace_name"], "qlog");
    assert_eq!(entry["driver_name"], "ScyllaDB Rust Driver");
    assert!(entry["driver_version"].as_str().is_some(), "{entry}");
    assert_eq!(entry["client_address"], "127.0.0.1");
    assert!(entry["latency_us"].as_i64().is_some(), "{entry}");
    assert!(
        entry["at"].as_str().is_some_and(|at| at.ends_with('Z')),
        "{entry}"
    );
    let prepared = of(&log, "PREPARE", text);
    assert!(!prepared.is_empty(), "the PREPARE is logged too");
    assert!(prepared.iter().all(|e| e["result"] == "prepared"));
}

/// A paged SELECT shows its page size, whether a paging state was sent, and the rows each
/// page returned and examined.
#[tokio::test]
async fn a_paged_select_shows_page_size_paging_state_and_rows() {
    let server = TestServer::start_with_http().await;
    let session = session_in(&server, "qlog").await;
    session
        .query_unpaged("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))", ())
        .await
        .expect("create");
    for c in 0..5 {
        session
            .query_unpaged("INSERT INTO t (k, c) VALUES (1, ?)", (c,))
            .await
            .expect("insert");
    }
    let select = "SELECT c FROM t WHERE k = 1";
    let rows: Vec<(i32,)> = query_all_pages(&session, select, 2).await;
    assert_eq!(rows.len(), 5);
    let log = entries(&server).await;
    let pages = of(&log, "QUERY", select);
    let seen: Vec<_> = pages
        .iter()
        .map(|p| {
            (
                p["page_size"].clone(),
                p["paging_state_sent"].clone(),
                p["rows_returned"].clone(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (json!(2), json!(false), json!(2)),
            (json!(2), json!(true), json!(2)),
            (json!(2), json!(true), json!(1)),
        ]
    );
    assert!(pages.iter().all(|p| p["rows_examined"].as_i64() >= Some(1)));
    assert!(pages.iter().all(|p| p["tombstones_examined"] == 0));
}

/// A failed request shows its error code and message, as the client got them.
#[tokio::test]
async fn an_error_shows_its_code_and_message() {
    let server = TestServer::start_with_http().await;
    let session = session_in(&server, "qlog").await;
    let select = "SELECT * FROM nowhere";
    let err = session
        .query_unpaged(select, ())
        .await
        .expect_err("no table");
    let (_, message) = db_error(&err).expect("a database error");
    let log = entries(&server).await;
    let entry = one(&log, "QUERY", select);
    assert_eq!(entry["result"], "error");
    assert_eq!(entry["error_code"], 0x2200, "Invalid: {entry}");
    assert_eq!(entry["error_message"], message);
    assert_eq!(entry["rows_returned"], Value::Null);
}

/// A conditional update shows `[applied]`, true then false.
#[tokio::test]
async fn a_conditional_update_shows_applied() {
    let server = TestServer::start_with_http().await;
    let session = session_in(&server, "qlog").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", ())
        .await
        .expect("create");
    session
        .query_unpaged("INSERT INTO t (k, v) VALUES (1, 1)", ())
        .await
        .expect("insert");
    let update = "UPDATE t SET v = 2 WHERE k = 1 IF v = 1";
    for _ in 0..2 {
        session.query_unpaged(update, ()).await.expect("update");
    }
    let log = entries(&server).await;
    let applied: Vec<_> = of(&log, "QUERY", update)
        .iter()
        .map(|e| (e["applied"].clone(), e["rows_returned"].clone()))
        .collect();
    assert_eq!(applied, [(json!(true), json!(1)), (json!(false), json!(1))]);
}

/// A warning the client got shows in its entry.
#[tokio::test]
async fn a_warning_shows() {
    let server = TestServer::start_with_http().await;
    let session = session_in(&server, "qlog").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", ())
        .await
        .expect("create");
    let count = "SELECT count(*) FROM t";
    let result = session.query_unpaged(count, ()).await.expect("count");
    let sent: Vec<&str> = result.warnings().collect();
    assert_eq!(sent, ["Aggregation query used without partition key"]);
    let log = entries(&server).await;
    assert_eq!(one(&log, "QUERY", count)["warnings"], json!(sent));
}

/// Both doors show the same entries: the CQL door newest first, the HTTP door newest last,
/// each read recorded after it ran.
#[tokio::test]
async fn both_doors_agree() {
    let server = TestServer::start_with_http().await;
    let session = session_in(&server, "qlog").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v text)", ())
        .await
        .expect("create");
    session
        .query_unpaged("INSERT INTO t (k, v) VALUES (?, ?)", (1, "a"))
        .await
        .expect("insert");
    let http = entries(&server).await;
    let read = "SELECT id, opcode, query, bound_values, consistency, result, error_code \
                FROM test_control.queries";
    let result = session.query_unpaged(read, ()).await.expect("read the log");
    type Row = (
        i64,
        String,
        Option<String>,
        Vec<String>,
        Option<String>,
        String,
        Option<i32>,
    );
    let rows: Vec<Row> = result
        .into_rows_result()
        .expect("rows")
        .rows::<Row>()
        .expect("typed")
        .map(|r| r.expect("row"))
        .collect();
    let cql_ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
    let mut newest_first = cql_ids.clone();
    newest_first.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(cql_ids, newest_first, "the CQL door reads newest first");
    // The HTTP read is an entry of its own, newer than all it returned.
    let get = &rows[0];
    assert_eq!(
        (get.1.as_str(), get.2.as_deref()),
        ("HTTP", Some("GET /queries"))
    );
    for entry in &http {
        let id = entry["id"].as_i64().expect("id");
        let row = rows.iter().find(|r| r.0 == id).expect("in both doors");
        assert_eq!(entry["opcode"], row.1);
        assert_eq!(entry["query"], json!(row.2));
        assert_eq!(entry["bound_values"], json!(row.3));
        assert_eq!(entry["consistency"], json!(row.4));
        assert_eq!(entry["result"], row.5);
        assert_eq!(entry["error_code"], json!(row.6));
    }
    // The driver prepares a statement sent with values.
    let insert = one(&http, "EXECUTE", "INSERT INTO t (k, v) VALUES (?, ?)");
    assert_eq!(insert["bound_values"], json!(["1", "'a'"]));
    // The CQL read of the log shows up once it ran, with the rows it returned.
    let (_, newest) = server.http("GET", "/queries?limit=2", "").await;
    let newest = newest.as_array().expect("entries");
    assert_eq!(newest.len(), 2);
    assert_eq!(newest[0]["query"], "GET /queries");
    assert_eq!(newest[1]["query"], read);
    assert_eq!(newest[1]["rows_returned"], rows.len());
}

/// `DELETE /queries`, `TRUNCATE` and `DELETE FROM ... WHERE coordinator = ...` empty the log;
/// what is left is the clearing request itself and what came after.
#[tokio::test]
async fn clearing_through_both_doors() {
    let server = TestServer::start_with_http().await;
    let session = server.session().await;
    let clears = [
        "TRUNCATE test_control.queries",
        "DELETE FROM test_control.queries WHERE coordinator = '127.0.0.1'",
    ];
    let (status, body) = server.http("DELETE", "/queries", "").await;
    assert_eq!(status, 200, "{body}");
    let log = entries(&server).await;
    assert_eq!(log[0]["query"], "DELETE /queries");
    let mut before = *ids(&log).last().expect("entries");
    for clear in clears {
        session
            .query_unpaged("SELECT * FROM system.local", ())
            .await
            .expect("read");
        session.query_unpaged(clear, ()).await.expect(clear);
        let log = entries(&server).await;
        assert_eq!(log[0]["query"], clear, "{log:?}");
        assert!(ids(&log).iter().all(|&id| id > before), "{log:?}");
        before = *ids(&log).last().expect("entries");
    }
}

/// A small `query_log_size` keeps the newest entries only.
#[tokio::test]
async fn a_small_log_keeps_the_newest_entries() {
    let server = TestServer::start_with(Config {
        http_address: Some(([127, 0, 0, 1], 0).into()),
        query_log_size: 4,
        ..Config::default()
    })
    .await;
    let session = server.session().await;
    for n in 1..=10 {
        session
            .query_unpaged(format!("SELECT key FROM system.local LIMIT {n}"), ())
            .await
            .expect("select");
    }
    let log = entries(&server).await;
    assert_eq!(log.len(), 4, "{log:?}");
    let ids = ids(&log);
    assert_eq!(ids[3] - ids[0], 3, "consecutive, newest last: {ids:?}");
    let (_, newest) = server.http("GET", "/queries?limit=1", "").await;
    assert_eq!(newest[0]["query"], "GET /queries");
    assert!(!log
        .iter()
        .any(|e| e["query"] == "SELECT key FROM system.local LIMIT 6"));
    assert_eq!(log[3]["query"], "SELECT key FROM system.local LIMIT 10");
}

/// On disk the controls are off: nothing is recorded and the log is not served. With the
/// controls on and `query_log_size: 0`, nothing is recorded either.
#[tokio::test]
async fn an_on_disk_server_records_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start_with(Config {
        data_dir: Some(dir.path().to_path_buf()),
        http_address: Some(([127, 0, 0, 1], 0).into()),
        ..Config::default()
    })
    .await;
    let session = server.session().await;
    session
        .query_unpaged("SELECT * FROM system.local", ())
        .await
        .expect("select");
    let (status, body) = server.http("GET", "/queries", "").await;
    assert_eq!(status, 404, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| e.contains("off")),
        "{body}"
    );
    drop(session);
    server.stop().await;
    let server = TestServer::start_with(Config {
        data_dir: Some(dir.path().to_path_buf()),
        http_address: Some(([127, 0, 0, 1], 0).into()),
        test_controls: Some(true),
        query_log_size: 0,
        ..Config::default()
    })
    .await;
    let session = server.session().await;
    let mut statement = Statement::new("SELECT * FROM system.local");
    statement.set_consistency(Consistency::One);
    session.query_unpaged(statement, ()).await.expect("select");
    assert_eq!(entries(&server).await, Vec::<Value>::new());
}

/// The Python driver reads the log through the CQL door: an application's query ran at
/// LOCAL_QUORUM and used no ALLOW FILTERING (`integration-tests/python/test_query_log.py`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_reads_the_query_log() {
    let server = TestServer::start_with_http().await;
    let envs = vec![
        ("CQL_HOST", "127.0.0.1".to_string()),
        ("CQL_PORT", server.addr.port().to_string()),
        ("CQL_HTTP", server.http_addr().await.to_string()),
    ];
    integration_tests::run_pytest("integration-tests/python/test_query_log.py", envs).await;
}
