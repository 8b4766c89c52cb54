//! A simulated cluster through the scylla driver: the topology it discovers, token-aware
//! routing to replicas, node states through the test controls, and the consistency
//! arithmetic (`Unavailable` with Cassandra's counts, timeouts on a paused replica).

mod consistency;
mod python;
mod routing;
mod topology;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use integration_tests::TestServer;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::policies::host_filter::AllowListHostFilter;
use server::config::{ClusterSpec, Config};

/// A simulated cluster of `spec` (e.g. `dc1:3,dc2:2`) with its HTTP door, request
/// timeouts of 300 ms.
pub(crate) async fn cluster(spec: &str) -> TestServer {
    TestServer::start_with(Config {
        simulated_cluster: Some(ClusterSpec::parse(spec).expect("cluster spec")),
        http_address: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        read_request_timeout: Duration::from_millis(300),
        write_request_timeout: Duration::from_millis(300),
        ..Config::default()
    })
    .await
}

/// A session that discovers the whole cluster from its first node.
pub(crate) async fn session(server: &TestServer) -> Session {
    SessionBuilder::new()
        .known_node_addr(server.addr)
        .build()
        .await
        .expect("driver connects")
}

/// A session whose requests all go to the first node (the coordinator the tests pick).
pub(crate) async fn session_on_first(server: &TestServer) -> Session {
    let filter = AllowListHostFilter::new([server.addr]).expect("filter");
    SessionBuilder::new()
        .known_node_addr(server.addr)
        .host_filter(Arc::new(filter))
        .build()
        .await
        .expect("driver connects")
}

/// Runs `statement`, which must succeed.
pub(crate) async fn cql(session: &Session, statement: &str) {
    session
        .query_unpaged(statement, ())
        .await
        .unwrap_or_else(|err| panic!("{statement}: {err}"));
}

/// `POST /nodes/{address}/{action}`, which must succeed.
pub(crate) async fn node_action(server: &TestServer, address: &str, action: &str) {
    let (status, body) = server
        .http("POST", &format!("/nodes/{address}/{action}"), "")
        .await;
    assert_eq!(status, 200, "{action} {address}: {body}");
}

/// `GET /nodes`: each node's address and requests coordinated.
pub(crate) async fn requests_per_node(server: &TestServer) -> Vec<(String, u64)> {
    let (status, body) = server.http("GET", "/nodes", "").await;
    assert_eq!(status, 200, "{body}");
    body.as_array()
        .expect("a list")
        .iter()
        .map(|node| {
            (
                node["address"].as_str().expect("address").to_string(),
                node["requests"].as_u64().expect("requests"),
            )
        })
        .collect()
}
