//! Reset and named snapshots of all data and schema.
//!
//! Storage does the work (`storage::Store::take_snapshot`, `restore_snapshot`, `reset`; its
//! `snapshot` module says how): a snapshot keeps each table's immutable sorted runs, pinned
//! so that compaction never frees them, and copies the small mutable tables (range
//! tombstones, index entries), so any snapshot restores any number of times, in any order,
//! in memory and on disk, where snapshots survive restarts. A restore or a reset is one
//! writer request: writes queued before it are applied and dropped, later ones land on the
//! restored state, no reader sees half of it, and it is durable (a restart never replays
//! the commit log from before it) before it is answered.
//!
//! Here, under the DDL lock (no schema change interleaves): the restored catalog is
//! installed (which moves the vector graphs and the per-table metrics along), the
//! prepared statements (drivers prepare again on UNPREPARED) and the hot-partition counts
//! are dropped, and the SCHEMA_CHANGE events the equivalent DDL would send go out
//! ([`events`]), so drivers' metadata follows.

pub(crate) mod events;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use cql::frame::response::Event;
use serde_json::{json, Value};
use storage::{Catalog, RoleDef, SnapshotSummary, StorageError};

use super::ControlError;
use crate::auth::authenticator::DEFAULT_ROLE;
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
    /// How many tables it holds (materialized views included).
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

impl From<SnapshotSummary> for SnapshotInfo {
    fn from(summary: SnapshotSummary) -> SnapshotInfo {
        SnapshotInfo {
            name: summary.name,
            created_at_micros: summary.created_at_micros,
            keyspaces: summary.keyspaces,
            tables: summary.tables,
        }
    }
}

/// The longest snapshot name taken.
const NAME_MAX: usize = 200;

/// Refuses names a snapshot cannot have: empty, longer than [`NAME_MAX`], or with control
/// characters.
fn check_name(name: &str) -> Result<(), ControlError> {
    if name.is_empty() || name.len() > NAME_MAX || name.chars().any(char::is_control) {
        return Err(ControlError::BadRequest(format!(
            "a snapshot name is 1 to {NAME_MAX} printable characters, not {name:?}"
        )));
    }
    Ok(())
}

/// Runs `work` on the store, on a blocking thread (it waits for the storage writer).
async fn on_store<T: Send + 'static>(
    node: &Node,
    work: impl FnOnce(storage::Store) -> Result<T, StorageError> + Send + 'static,
) -> Result<T, ControlError> {
    let store = node.store().clone();
    match tokio::task::spawn_blocking(move || work(store)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(StorageError::UnknownSnapshot { name })) => {
            Err(ControlError::NotFound(format!("no snapshot named {name}")))
        }
        Ok(Err(e)) => Err(ControlError::Failed(e.to_string())),
        Err(e) => Err(ControlError::Failed(format!(
            "the storage task failed: {e}"
        ))),
    }
}

/// Drops every non-system keyspace, every role but the default superuser (with the
/// permissions of the roles dropped, and its own on the keyspaces dropped) and the prepared
/// statements. Snapshots stay.
pub(crate) async fn reset(node: &Arc<Node>) -> Result<(), ControlError> {
    {
        let _ddl = node.ddl_lock().lock().await;
        let before = node.schema().catalog.clone();
        let roles = kept_roles(&before);
        let catalog = on_store(node, move |store| store.reset(roles)).await?;
        installed(node, &before, catalog);
    }
    ensure_default_role(node).await
}

/// The roles a reset keeps: the default superuser, if there is one, without what names
/// what the reset drops.
fn kept_roles(catalog: &Catalog) -> Vec<RoleDef> {
    let Some(role) = catalog.roles.get(DEFAULT_ROLE) else {
        return Vec::new();
    };
    let mut role = role.clone();
    role.member_of.clear();
    role.permissions.retain(|resource, _| {
        !resource.starts_with("data/")
            && resource
                .strip_prefix("roles/")
                .is_none_or(|name| name == DEFAULT_ROLE)
    });
    vec![role]
}

/// With PasswordAuthenticator, the default superuser exists again after a reset or a
/// restore that left no role.
async fn ensure_default_role(node: &Arc<Node>) -> Result<(), ControlError> {
    crate::executor::access::roles::ensure_default_role(node)
        .await
        .map_err(|e| ControlError::Failed(e.to_string()))
}

/// Takes (or replaces) the snapshot `name`.
pub(crate) async fn take(node: &Arc<Node>, name: &str) -> Result<SnapshotInfo, ControlError> {
    check_name(name)?;
    let _ddl = node.ddl_lock().lock().await;
    let (name, now) = (name.to_string(), node.clock().now_micros());
    let summary = on_store(node, move |store| store.take_snapshot(&name, now)).await?;
    Ok(summary.into())
}

/// Restores the snapshot `name`.
pub(crate) async fn restore(node: &Arc<Node>, name: &str) -> Result<SnapshotInfo, ControlError> {
    let summary = {
        let _ddl = node.ddl_lock().lock().await;
        let before = node.schema().catalog.clone();
        let name = name.to_string();
        let (summary, catalog) = on_store(node, move |store| store.restore_snapshot(&name)).await?;
        installed(node, &before, catalog);
        summary
    };
    ensure_default_role(node).await?;
    Ok(summary.into())
}

/// The restored (or reset) `catalog` is what storage holds: installs it, drops the caches
/// that named the old one, and announces the change as the DDL would.
fn installed(node: &Node, before: &Catalog, catalog: Catalog) {
    let changes = events::schema_changes(before, &catalog);
    node.install_catalog(catalog);
    node.prepared().clear();
    node.hot_partitions().clear();
    tracing::info!(changes = changes.len(), "data and schema replaced");
    for change in changes {
        let _ = node.events().send(Event::SchemaChange(change));
    }
}

/// The snapshots, by name (none when storage cannot list them; the failure is logged).
pub(crate) fn list(node: &Node) -> Vec<SnapshotInfo> {
    match node.store().snapshots() {
        Ok(summaries) => summaries.into_iter().map(SnapshotInfo::from).collect(),
        Err(e) => {
            tracing::warn!(cause = %e, "listing the snapshots failed");
            Vec::new()
        }
    }
}

/// Deletes the snapshot `name`; whether there was one.
pub(crate) async fn delete(node: &Arc<Node>, name: &str) -> Result<bool, ControlError> {
    let name = name.to_string();
    on_store(node, move |store| store.delete_snapshot(&name)).await
}
