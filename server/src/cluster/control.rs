//! Changing a simulated cluster through the test controls: stop, start, pause, decommission
//! and add nodes, with the events Cassandra's nodes push to registered clients
//! (`STATUS_CHANGE` `UP`/`DOWN`, `TOPOLOGY_CHANGE` `NEW_NODE`/`REMOVED_NODE`).

use std::net::{IpAddr, SocketAddr};

use cql::frame::response::Event;
use serde_json::{json, Value};

use super::state::{NodeState, SimulatedCluster};
use crate::node::Node;

/// What can be done to a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeAction {
    Stop,
    Start,
    Pause,
    Decommission,
}

impl NodeAction {
    /// The action a route or command names.
    pub(crate) fn named(name: &str) -> Option<NodeAction> {
        match name {
            "stop" => Some(NodeAction::Stop),
            "start" => Some(NodeAction::Start),
            "pause" => Some(NodeAction::Pause),
            "decommission" => Some(NodeAction::Decommission),
            _ => None,
        }
    }
}

/// Why a node control was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum NodeControlError {
    /// No simulated cluster runs.
    #[error("no simulated cluster runs (start with --simulated-cluster)")]
    NoCluster,
    /// No node has that address.
    #[error("no simulated node at {0}")]
    NoNode(String),
    /// The node was decommissioned.
    #[error("node {0} was decommissioned")]
    Removed(String),
    /// A datacenter the cluster does not have.
    #[error("no datacenter {0} in the simulated cluster")]
    NoDatacenter(String),
}

/// Every node as `GET /nodes` lists it.
pub(crate) fn list(node: &Node) -> Result<Value, NodeControlError> {
    let cluster = node.cluster().ok_or(NodeControlError::NoCluster)?;
    let ring = cluster.ring();
    Ok(Value::Array(
        ring.nodes()
            .iter()
            .map(|sim| {
                json!({
                    "address": sim.address.to_string(),
                    "port": cluster.port(),
                    "host_id": sim.host_id.to_string(),
                    "datacenter": sim.datacenter,
                    "rack": sim.rack,
                    "state": cluster.state(sim.index).name(),
                    "tokens": sim.tokens.len(),
                    "requests": cluster.requests(sim.index),
                })
            })
            .collect(),
    ))
}

/// Applies `action` to the node at `address`; its state after.
///
/// # Errors
/// No cluster, no such node, or a decommissioned one.
pub(crate) fn act(
    node: &Node,
    address: &str,
    action: NodeAction,
) -> Result<Value, NodeControlError> {
    let cluster = node.cluster().ok_or(NodeControlError::NoCluster)?;
    let ip: IpAddr = address
        .parse()
        .map_err(|_| NodeControlError::NoNode(address.to_string()))?;
    let sim = cluster
        .node_at(ip)
        .ok_or_else(|| NodeControlError::NoNode(address.to_string()))?;
    let before = cluster.state(sim.index);
    if before == NodeState::Removed {
        return Err(NodeControlError::Removed(address.to_string()));
    }
    let native = SocketAddr::new(ip, cluster.port());
    match action {
        NodeAction::Stop => {
            cluster.set_state(sim.index, NodeState::Stopped);
            if before != NodeState::Stopped {
                status(node, "DOWN", native);
            }
        }
        NodeAction::Start => {
            cluster.set_state(sim.index, NodeState::Up);
            if before == NodeState::Stopped {
                status(node, "UP", native);
            }
        }
        // Nothing tells the others yet: a paused node still looks alive.
        NodeAction::Pause => {
            cluster.set_state(sim.index, NodeState::Paused);
        }
        NodeAction::Decommission => {
            cluster.decommission(sim.index);
            topology(node, "REMOVED_NODE", native);
        }
    }
    Ok(state_json(cluster, sim.index, ip))
}

/// Adds a node to `datacenter` (and `rack`, default `rack1`), up; the new node.
///
/// # Errors
/// No cluster, or a datacenter it does not have.
pub(crate) fn add(
    node: &Node,
    datacenter: &str,
    rack: Option<&str>,
) -> Result<Value, NodeControlError> {
    let cluster = node.cluster().ok_or(NodeControlError::NoCluster)?;
    if !cluster
        .spec()
        .datacenters
        .iter()
        .any(|dc| dc.name == datacenter)
    {
        return Err(NodeControlError::NoDatacenter(datacenter.to_string()));
    }
    let sim = cluster.add_node(datacenter, rack.unwrap_or("rack1"));
    let native = SocketAddr::new(sim.address, cluster.port());
    topology(node, "NEW_NODE", native);
    status(node, "UP", native);
    Ok(state_json(cluster, sim.index, sim.address))
}

fn state_json(cluster: &SimulatedCluster, index: usize, address: IpAddr) -> Value {
    json!({
        "address": address.to_string(),
        "state": cluster.state(index).name(),
    })
}

fn status(node: &Node, change: &str, address: SocketAddr) {
    let _ = node.events().send(Event::StatusChange {
        change: change.to_string(),
        address,
    });
}

fn topology(node: &Node, change: &str, address: SocketAddr) {
    let _ = node.events().send(Event::TopologyChange {
        change: change.to_string(),
        address,
    });
}
