//! `system.peers` and `system.peers_v2`: on a simulated cluster, the other nodes as the node
//! a client is connected to sees them (decommissioned nodes are gone; stopped and paused
//! ones stay, as a down node stays in Cassandra's); empty on a single node.

use cql::types::CqlValue;

use crate::node::Node;
use crate::schema::Schema;
use crate::system::local::RELEASE_VERSION;
use crate::system::{text, NamedRow};
use crate::transport::session::Session;

/// The rows of `system.peers` (`v2`: `system.peers_v2`).
pub(crate) fn rows(node: &Node, schema: &Schema, session: &Session, v2: bool) -> Vec<NamedRow> {
    let Some(cluster) = node.cluster() else {
        return Vec::new();
    };
    let ring = cluster.ring();
    let port = i32::from(cluster.port());
    ring.nodes()
        .iter()
        .filter(|peer| peer.address != session.local.ip())
        .filter(|peer| cluster.state(peer.index) != crate::cluster::state::NodeState::Removed)
        .map(|peer| {
            let address = Some(CqlValue::Inet(peer.address));
            let tokens = peer
                .tokens
                .iter()
                .map(|t| CqlValue::Text(t.to_string()))
                .collect();
            let mut row: NamedRow = vec![
                ("peer", address.clone()),
                ("data_center", text(peer.datacenter.clone())),
                ("host_id", Some(CqlValue::Uuid(peer.host_id))),
                ("preferred_ip", address.clone()),
                ("rack", text(peer.rack.clone())),
                ("release_version", text(RELEASE_VERSION)),
                ("schema_version", Some(CqlValue::Uuid(schema.version))),
                ("tokens", Some(CqlValue::Set(tokens))),
            ];
            if v2 {
                row.extend([
                    ("peer_port", Some(CqlValue::Int(7000))),
                    ("preferred_port", Some(CqlValue::Int(7000))),
                    ("native_address", address),
                    ("native_port", Some(CqlValue::Int(port))),
                ]);
            } else {
                row.push(("rpc_address", address));
            }
            row
        })
        .collect()
}
