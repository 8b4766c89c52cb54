//! Connection limits: the handshake and idle timeouts, and the bytes of requests in flight
//! (backpressure, or OVERLOADED for THROW_ON_OVERLOAD clients).

use std::time::{Duration, Instant};

use cql::frame::request::{Request, Startup};
use cql::frame::response::Response;
use integration_tests::{RawConnection, TestServer};
use server::Config;

async fn startup_with(raw: &mut RawConnection, options: &[(&str, &str)]) {
    let options = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    raw.send(0, &Request::Startup(Startup { options })).await;
    assert!(matches!(raw.recv().await, Some((_, 0, Response::Ready))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_without_startup_is_closed_after_the_handshake_timeout() {
    let config = Config {
        handshake_timeout: Duration::from_millis(200),
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    let started = Instant::now();
    let mut silent = RawConnection::connect(server.addr).await;
    assert!(silent.recv().await.is_none(), "closed");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "closed by the timeout"
    );
    // A client that completed STARTUP stays.
    let mut client = RawConnection::connect(server.addr).await;
    client.startup().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    client.send(1, &Request::Options).await;
    assert!(matches!(
        client.recv().await,
        Some((_, 1, Response::Supported(_)))
    ));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_connection_is_closed_after_the_idle_timeout() {
    let config = Config {
        idle_timeout: Duration::from_millis(800),
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    let mut busy = RawConnection::connect(server.addr).await;
    busy.startup().await;
    let mut idle = RawConnection::connect(server.addr).await;
    idle.startup().await;
    for stream in 1..14 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        busy.send(stream, &Request::Options).await;
        assert!(
            busy.recv().await.is_some(),
            "traffic keeps a connection open"
        );
    }
    idle.send(1, &Request::Options).await;
    assert!(idle.recv().await.is_none(), "idle for 1.3 s: closed");
    server.stop().await;
}

fn insert(k: usize) -> String {
    let blob = "ab".repeat(1000);
    format!("INSERT INTO ks.t (k, v) VALUES ({k}, 0x{blob})")
}

async fn schema(server: &TestServer) {
    let session = integration_tests::session_in(server, "ks").await;
    session
        .query_unpaged("CREATE TABLE ks.t (k int PRIMARY KEY, v blob)", &[])
        .await
        .unwrap();
}

/// A server allowing 20,000 bytes in flight per client address (about three 2 KB requests
/// with their 4 KiB overhead), with `ks.t`.
async fn small_in_flight_server() -> TestServer {
    let config = Config {
        max_request_data_in_flight_per_ip: 20_000,
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    schema(&server).await;
    server
}

/// Pipelines `n` 2 KB INSERTs and returns (answered, overloaded) counts.
async fn pipeline(raw: &mut RawConnection, n: usize) -> (usize, usize) {
    // All in one write, so the server reads them together.
    let mut frames = Vec::new();
    for k in 0..n {
        let query = cql::frame::request::Query {
            query: insert(k),
            params: integration_tests::default_params(),
        };
        let request = Request::Query(query);
        frames.extend_from_slice(&cql::frame::encode_request_frame(
            k as i16 + 1,
            &request,
            None,
        ));
    }
    raw.send_bytes(&frames).await;
    let (mut ok, mut overloaded) = (0, 0);
    for _ in 0..n {
        match raw.recv().await {
            Some((_, _, Response::Result(_))) => ok += 1,
            Some((_, _, Response::Error(err))) => {
                assert_eq!(err.code, 0x1001, "{}", err.message);
                assert_eq!(
                    err.message,
                    "Server is in overloaded state. Cannot accept more requests at this point"
                );
                overloaded += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    (ok, overloaded)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_in_flight_limit_throw_on_overload_clients_get_overloaded() {
    let server = small_in_flight_server().await;
    let mut raw = RawConnection::connect(server.addr).await;
    startup_with(
        &mut raw,
        &[("CQL_VERSION", "3.0.0"), ("THROW_ON_OVERLOAD", "1")],
    )
    .await;
    let (ok, overloaded) = pipeline(&mut raw, 40).await;
    assert!(ok > 0, "requests within the limit are served");
    assert!(overloaded > 0, "40 pipelined requests exceed 20,000 bytes");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_in_flight_limit_other_clients_are_slowed_not_refused() {
    let server = small_in_flight_server().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    let (ok, overloaded) = pipeline(&mut raw, 40).await;
    assert_eq!((ok, overloaded), (40, 0));
    server.stop().await;
}

/// Cassandra 5.0's IN guardrails: warnings past the warn threshold, Invalid past the fail
/// threshold, with Cassandra's messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_guardrails_warn_and_refuse_as_cassandra() {
    use server::config::Threshold;
    let config = Config {
        partition_keys_in_select: Threshold { warn: 2, fail: 3 },
        in_select_cartesian_product: Threshold { warn: -1, fail: 4 },
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = integration_tests::session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE ks.t (k int, c int, d int, PRIMARY KEY (k, c, d))",
            &[],
        )
        .await
        .unwrap();
    let result = session
        .query_unpaged("SELECT * FROM ks.t WHERE k IN (1, 2, 3)", &[])
        .await
        .unwrap();
    let warnings: Vec<&str> = result.warnings().collect();
    assert_eq!(
        warnings,
        ["Guardrail partition_keys_in_select violated: Query with partition keys in IN clause on table t, with number of partition keys 3 exceeds warning threshold of 2."]
    );
    let (_, message) =
        integration_tests::query_error(&session, "SELECT * FROM ks.t WHERE k IN (1, 2, 3, 4)")
            .await;
    assert_eq!(
        message,
        "Guardrail partition_keys_in_select violated: Aborting query with partition keys in IN clause on table t, number of partition keys 4 exceeds fail threshold of 3."
    );
    let (_, message) = integration_tests::query_error(
        &session,
        "SELECT * FROM ks.t WHERE k = 1 AND c IN (1, 2, 3) AND d IN (1, 2)",
    )
    .await;
    assert_eq!(
        message,
        "Guardrail in_select_cartesian_product violated: Aborting query because the cartesian product of the IN restrictions on clustering key produces 6 values, this exceeds fail threshold of 4."
    );
    server.stop().await;
}

/// Many connections from one address share its reserve: each pauses while it is exceeded and
/// resumes with the requests already in its read buffer (they once stalled there for good).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_sharing_an_address_all_finish_under_backpressure() {
    let server = small_in_flight_server().await;
    let mut clients = Vec::new();
    for _ in 0..8 {
        let mut raw = RawConnection::connect(server.addr).await;
        raw.startup().await;
        clients.push(tokio::spawn(async move { pipeline(&mut raw, 100).await }));
    }
    for client in clients {
        assert_eq!(client.await.unwrap(), (100, 0));
    }
    server.stop().await;
}
