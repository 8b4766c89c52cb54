//! The controls both doors share: a [`Command`] and what running it answers (JSON, which the
//! HTTP door sends as is and the CQL door drops: its reads go through the virtual tables).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::faults::FaultRule;
use super::ControlError;
use crate::node::Node;

/// One control request.
#[derive(Debug)]
pub(crate) enum Command {
    /// Drops every non-system keyspace, every role but the default superuser, the prepared
    /// statements, the query log, the faults and the clock's offset.
    Reset,
    /// Takes (or replaces) the named snapshot of all data and schema.
    TakeSnapshot(String),
    /// Restores the named snapshot.
    RestoreSnapshot(String),
    /// Lists the snapshots.
    ListSnapshots,
    /// Deletes the named snapshot.
    DeleteSnapshot(String),
    /// Adds a fault rule; answers its id.
    AddFault(Box<FaultRule>),
    /// Lists the fault rules.
    ListFaults,
    /// Removes one fault rule.
    RemoveFault(String),
    /// Removes every fault rule.
    ClearFaults,
    /// The newest `limit` entries of the query log, oldest first.
    Queries { limit: Option<usize> },
    /// Empties the query log.
    ClearQueries,
    /// Moves the clock forward.
    AdvanceClock(Duration),
    /// The node's time and the clock's offset.
    Clock,
    /// The simulated cluster's nodes.
    ListNodes,
    /// Stops, starts, pauses or decommissions the simulated node at an address.
    NodeAction {
        address: String,
        action: crate::cluster::control::NodeAction,
    },
    /// Adds a simulated node to a datacenter (and rack).
    AddNode {
        datacenter: String,
        rack: Option<String>,
    },
}

/// Runs `command` on `node`.
///
/// # Errors
/// The controls are off; what the command names does not exist; the command failed.
pub(crate) async fn run(node: &Arc<Node>, command: Command) -> Result<Value, ControlError> {
    let controls = node.controls();
    if !controls.enabled() {
        return Err(ControlError::Disabled);
    }
    match command {
        Command::Reset => {
            super::snapshots::reset(node).await?;
            controls.faults().clear();
            controls.queries().clear();
            node.clock().reset_offset();
            Ok(json!({}))
        }
        Command::TakeSnapshot(name) => {
            let info = super::snapshots::take(node, &name).await?;
            Ok(info.to_json())
        }
        Command::RestoreSnapshot(name) => {
            let info = super::snapshots::restore(node, &name).await?;
            Ok(info.to_json())
        }
        Command::ListSnapshots => Ok(Value::Array(
            super::snapshots::list(node)
                .iter()
                .map(super::snapshots::SnapshotInfo::to_json)
                .collect(),
        )),
        Command::DeleteSnapshot(name) => {
            if super::snapshots::delete(node, &name).await? {
                Ok(json!({}))
            } else {
                Err(ControlError::NotFound(format!("no snapshot named {name}")))
            }
        }
        Command::AddFault(rule) => Ok(json!({ "id": controls.faults().add(*rule) })),
        Command::ListFaults => Ok(controls.faults().to_json()),
        Command::RemoveFault(id) => {
            if controls.faults().remove(&id) {
                Ok(json!({}))
            } else {
                Err(ControlError::NotFound(format!("no fault with id {id}")))
            }
        }
        Command::ClearFaults => {
            controls.faults().clear();
            Ok(json!({}))
        }
        Command::Queries { limit } => Ok(controls.queries().to_json(limit, &node.schema())),
        Command::ClearQueries => {
            controls.queries().clear();
            Ok(json!({}))
        }
        Command::AdvanceClock(by) => {
            node.clock().advance(by);
            Ok(clock_json(node))
        }
        Command::Clock => Ok(clock_json(node)),
        Command::ListNodes => nodes(crate::cluster::control::list(node)),
        Command::NodeAction { address, action } => {
            nodes(crate::cluster::control::act(node, &address, action))
        }
        Command::AddNode { datacenter, rack } => nodes(crate::cluster::control::add(
            node,
            &datacenter,
            rack.as_deref(),
        )),
    }
}

/// A node control's answer, or its refusal (404 when no cluster or no such node, 400 else).
fn nodes(
    result: Result<Value, crate::cluster::control::NodeControlError>,
) -> Result<Value, ControlError> {
    use crate::cluster::control::NodeControlError as E;
    result.map_err(|err| match err {
        E::NoCluster | E::NoNode(_) => ControlError::NotFound(err.to_string()),
        E::Removed(_) | E::NoDatacenter(_) => ControlError::BadRequest(err.to_string()),
    })
}

/// The node's time: now (milliseconds since the epoch, and as ISO-8601) and the offset the
/// clock was moved by, in seconds.
fn clock_json(node: &Node) -> Value {
    let clock = node.clock();
    let now_micros = clock.now_micros();
    json!({
        "now_ms": now_micros.div_euclid(1000),
        "now": crate::eval::datetime::print::format_timestamp(now_micros.div_euclid(1000)),
        "offset_seconds": clock.offset_micros() as f64 / 1e6,
    })
}
