//! The `/metrics` endpoint: a node's [`Metrics`](crate::telemetry::metrics::Metrics) and storage
//! figures in the Prometheus (OpenMetrics) text format, served when `http_address` is set.
//! It reads the whole [`Node`](crate::node::Node), so it sits above it; the counters it reads
//! (`crate::telemetry::metrics`) sit below.
//!
//! - [`exposition`]: the metric families a scrape writes.
//! - [`http`]: the plain-HTTP responder.
//! - [`table_bytes`]: each table's stored bytes, read at most every 30 s.
//! - [`table_runs`]: each table's sorted runs and running compaction, from their manifest.

pub(crate) mod exposition;
mod table_bytes;
mod table_runs;

use storage::{Snapshot, StorageError};
use uuid::Uuid;

use crate::node::Node;

/// `figure` of every user table now, with the table's keyspace and name; a table it cannot
/// read (dropped meanwhile) is left out, and so is everything when no snapshot can be taken.
fn per_user_table<T>(
    node: &Node,
    figure: impl Fn(&Snapshot, Uuid) -> Result<T, StorageError>,
) -> Vec<(String, String, T)> {
    let Ok(snapshot) = node.store().snapshot() else {
        return Vec::new();
    };
    let schema = node.schema();
    let mut tables = Vec::new();
    for keyspace in schema.user_keyspaces() {
        for table in keyspace.tables.values() {
            if let Ok(value) = figure(&snapshot, table.id) {
                tables.push((keyspace.name.clone(), table.name.clone(), value));
            }
        }
    }
    tables
}
