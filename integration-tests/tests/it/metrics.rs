//! The `/metrics` endpoint after real traffic through the driver: request counts by opcode
//! and statement kind, errors by code, rows written and read, warnings, connections.

use std::net::SocketAddr;

use integration_tests::{session_in, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A loopback address free a moment ago.
pub(crate) fn free_address() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address")
}

/// The response to `GET path` on `address`, head and body.
async fn get(address: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(address).await.expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    response
}

/// The metrics text now.
pub(crate) async fn scrape(address: SocketAddr) -> String {
    let response = get(address, "/metrics").await;
    let (head, text) = response.split_once("\r\n\r\n").expect("a head");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(head.contains("application/openmetrics-text"), "{head}");
    assert!(text.ends_with("# EOF\n"), "{text}");
    text.to_string()
}

/// The value of the sample named exactly `series` (name and labels), if there is one.
pub(crate) fn find(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.parse().expect("a number"))
}

/// The value of the sample named exactly `series`; panics without one.
pub(crate) fn sample(text: &str, series: &str) -> f64 {
    find(text, series).unwrap_or_else(|| panic!("no {series} in\n{text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_what_the_clients_did() {
    let address = free_address();
    let config = server::Config {
        http_address: Some(address),
        ..server::Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", &[])
        .await
        .unwrap();
    let insert = session
        .prepare("INSERT INTO t (k, v) VALUES (?, ?)")
        .await
        .unwrap();
    for k in 0..10 {
        session.execute_unpaged(&insert, (k, k)).await.unwrap();
    }
    let rows: String = (11..22)
        .map(|k| format!("INSERT INTO t (k, v) VALUES ({k}, 0); "))
        .collect();
    let batch = format!("BEGIN UNLOGGED BATCH {rows}APPLY BATCH");
    let result = session.query_unpaged(batch, &[]).await.unwrap();
    assert_eq!(result.warnings().count(), 1);
    let all = session.query_unpaged("SELECT * FROM t", &[]).await.unwrap();
    assert_eq!(all.into_rows_result().unwrap().rows_num(), 21);
    // The driver's own metadata queries meet errors too (tables only Scylla has): count
    // those the test causes from a scrape just before them.
    let before = scrape(address).await;
    assert!(session.query_unpaged("SELEC k FROM t", &[]).await.is_err());
    assert!(session
        .query_unpaged("SELECT * FROM nope", &[])
        .await
        .is_err());
    let text = &scrape(address).await;
    let grew = |series| sample(text, series) - find(&before, series).unwrap_or(0.0);
    assert_eq!(
        grew("cql_errors_total{code=\"0x2000\",error=\"syntax_error\"}"),
        1.0
    );
    assert_eq!(
        grew("cql_errors_total{code=\"0x2200\",error=\"invalid\"}"),
        1.0
    );

    let inserts = "{opcode=\"EXECUTE\",kind=\"insert\"}";
    assert_eq!(
        sample(
            text,
            &format!("cql_request_duration_seconds_count{inserts}")
        ),
        10.0
    );
    assert!(sample(text, &format!("cql_request_duration_seconds_sum{inserts}")) > 0.0);
    let all_inserts =
        "cql_request_duration_seconds_bucket{le=\"+Inf\",opcode=\"EXECUTE\",kind=\"insert\"}";
    assert_eq!(sample(text, all_inserts), 10.0);
    let batches = "cql_request_duration_seconds_count{opcode=\"QUERY\",kind=\"batch\"}";
    assert_eq!(sample(text, batches), 1.0);
    // CREATE KEYSPACE and CREATE TABLE.
    let schema = "cql_request_duration_seconds_count{opcode=\"QUERY\",kind=\"schema\"}";
    assert_eq!(sample(text, schema), 2.0);
    let prepares = "cql_request_duration_seconds_count{opcode=\"PREPARE\",kind=\"none\"}";
    assert!(sample(text, prepares) >= 1.0);
    assert_eq!(sample(text, "cql_rows_written_total"), 21.0);
    assert!(sample(text, "cql_rows_read_total") >= 21.0);
    assert_eq!(sample(text, "cql_client_warnings_total"), 1.0);
    // 21 rows of a 4-byte key and value, with their token and cell metadata.
    let bytes = sample(text, "storage_table_bytes{keyspace=\"ks\",table=\"t\"}");
    assert!((21.0 * 8.0..21.0 * 200.0).contains(&bytes), "{bytes}");
    let open = sample(text, "cql_connections_open");
    assert!(open >= 1.0, "{open}");
    assert!(sample(text, "cql_connections_accepted_total") >= open);

    // 10 inserts, the batch, CREATE KEYSPACE and CREATE TABLE went through the writer.
    let groups = sample(text, "storage_write_groups_total");
    let requests = sample(text, "storage_write_group_requests_total");
    assert!(
        groups >= 1.0 && requests >= groups && requests >= 13.0,
        "{groups} {requests}"
    );
    assert!(sample(text, "storage_write_group_seconds_total") > 0.0);

    let missing = get(address, "/").await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    drop(session);
    server.stop().await;
}
