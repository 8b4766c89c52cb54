//! What the driver discovers, and what the test controls change of it.

use super::{cluster, node_action, session};

/// Five nodes in two datacenters, each with its datacenter, rack, host id and 16 tokens; a
/// node stopped stays listed (down), a decommissioned one leaves `system.peers`, an added
/// one joins it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_driver_discovers_every_node_with_its_datacenter() {
    let server = cluster("dc1:3,dc2:2").await;
    let session = session(&server).await;
    let state = session.get_cluster_state();
    let mut nodes: Vec<(String, String)> = state
        .get_nodes_info()
        .iter()
        .map(|node| {
            (
                node.address.ip().to_string(),
                node.datacenter.clone().unwrap_or_default(),
            )
        })
        .collect();
    nodes.sort();
    assert_eq!(
        nodes,
        [
            ("127.0.0.1".to_string(), "dc1".to_string()),
            ("127.0.0.2".to_string(), "dc1".to_string()),
            ("127.0.0.3".to_string(), "dc1".to_string()),
            ("127.0.0.4".to_string(), "dc2".to_string()),
            ("127.0.0.5".to_string(), "dc2".to_string()),
        ]
    );
    let peers = session
        .query_unpaged("SELECT peer, tokens FROM system.peers", ())
        .await
        .expect("peers")
        .into_rows_result()
        .expect("rows");
    assert_eq!(peers.rows_num(), 4);
    for row in peers
        .rows::<(std::net::IpAddr, Vec<String>)>()
        .expect("typed")
    {
        let (_, tokens) = row.expect("row");
        assert_eq!(tokens.len(), 16);
    }

    node_action(&server, "127.0.0.5", "decommission").await;
    let (status, body) = server
        .http("POST", "/nodes", r#"{"datacenter": "dc2"}"#)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["address"], "127.0.0.6");
    let fresh = super::session(&server).await;
    let mut addresses: Vec<String> = fresh
        .get_cluster_state()
        .get_nodes_info()
        .iter()
        .map(|node| node.address.ip().to_string())
        .collect();
    addresses.sort();
    assert_eq!(
        addresses,
        [
            "127.0.0.1",
            "127.0.0.2",
            "127.0.0.3",
            "127.0.0.4",
            "127.0.0.6"
        ]
    );
}

/// A connection registered for topology and status events hears a decommission, an added
/// node and a stop as Cassandra's nodes announce them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registered_connections_hear_topology_and_status_changes() {
    use cql::frame::request::{Register, Request};
    use cql::frame::response::{Event, Response};
    let server = cluster("dc1:3").await;
    let mut raw = integration_tests::RawConnection::connect(server.addr).await;
    raw.startup().await;
    let register = Register {
        events: vec!["TOPOLOGY_CHANGE".into(), "STATUS_CHANGE".into()],
    };
    raw.send(1, &Request::Register(register)).await;
    assert!(matches!(raw.recv().await, Some((_, 1, Response::Ready))));
    let port = server.addr.port();
    let expect = |change: &str, address: &str| (change.to_string(), format!("{address}:{port}"));
    let wanted = [
        expect("REMOVED_NODE", "127.0.0.3"),
        expect("NEW_NODE", "127.0.0.4"),
        expect("UP", "127.0.0.4"),
        expect("DOWN", "127.0.0.2"),
    ];
    node_action(&server, "127.0.0.3", "decommission").await;
    let (status, body) = server
        .http("POST", "/nodes", r#"{"datacenter": "dc1"}"#)
        .await;
    assert_eq!(status, 200, "{body}");
    node_action(&server, "127.0.0.2", "stop").await;
    let mut heard = Vec::new();
    while heard.len() < wanted.len() {
        match raw.recv().await {
            Some((_, -1, Response::Event(Event::TopologyChange { change, address })))
            | Some((_, -1, Response::Event(Event::StatusChange { change, address }))) => {
                heard.push((change, address.to_string()));
            }
            other => panic!("expected an event, got {other:?}"),
        }
    }
    assert_eq!(heard, wanted);
}
