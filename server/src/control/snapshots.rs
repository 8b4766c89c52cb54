//! Reset and named snapshots of all data and schema. (Skeleton: the interface.)

use std::sync::Arc;

use serde_json::{json, Value};

use super::ControlError;
use crate::node::Node;

/// What a snapshot holds, as listed.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotInfo {
    /// Its name.
    pub(crate) name: String,
    /// When it was taken, in microseconds since the epoch (the node's clock).
    pub(crate) created_at_micros: i64,
    /// The user keyspaces it holds.
    pub(crate) keyspaces: Vec<String>,
    /// How many tables it holds.
    pub(crate) tables: usize,
}

impl SnapshotInfo {
    /// As the HTTP door answers it.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "created_at_ms": self.created_at_micros.div_euclid(1000),
            "keyspaces": self.keyspaces,
            "tables": self.tables,
        })
    }
}

/// Drops every non-system keyspace, every role but the default superuser and the prepared
/// statements.
pub(crate) async fn reset(_node: &Arc<Node>) -> Result<(), ControlError> {
    Err(ControlError::Failed("reset is not built yet".into()))
}

/// Takes (or replaces) the snapshot `name`.
pub(crate) async fn take(_node: &Arc<Node>, name: &str) -> Result<SnapshotInfo, ControlError> {
    Err(ControlError::Failed(format!(
        "cannot take {name}: snapshots are not built yet"
    )))
}

/// Restores the snapshot `name`.
pub(crate) async fn restore(_node: &Arc<Node>, name: &str) -> Result<SnapshotInfo, ControlError> {
    Err(ControlError::NotFound(format!("no snapshot named {name}")))
}

/// The snapshots, by name.
pub(crate) fn list(_node: &Node) -> Vec<SnapshotInfo> {
    Vec::new()
}

/// Deletes the snapshot `name`; whether there was one.
pub(crate) async fn delete(_node: &Arc<Node>, _name: &str) -> Result<bool, ControlError> {
    Ok(false)
}
