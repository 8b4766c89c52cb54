//! The background purge: Cassandra reclaims expired and deleted data when compaction rewrites
//! SSTables; this node runs storage purge passes over every user table instead, on a timer
//! (`Config::purge_interval`) and on demand ([`Node::purge`]). Each pass goes in bounded
//! chunks through the storage writer, so writes keep flowing between chunks.

use std::sync::Arc;
use std::time::Duration;

use storage::{PurgeRequest, StorageError};
use tracing::{debug, info_span, warn, Instrument};

use crate::node::Node;

/// Rows one purge chunk examines (one write transaction).
const CHUNK_ROWS: usize = 1024;

/// What one purge of every table did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PurgeReport {
    /// Tables purged.
    pub tables: u64,
    /// Rows read.
    pub rows_examined: u64,
    /// Rows written back smaller.
    pub rows_rewritten: u64,
    /// Rows removed entirely.
    pub rows_removed: u64,
    /// Range tombstones dropped.
    pub range_tombstones_removed: u64,
}

impl Node {
    /// Purges every user table as of the node's clock. Blocking: call it from a blocking
    /// thread.
    ///
    /// # Errors
    /// Storage errors; a table dropped while it is purged is skipped.
    pub fn purge(&self) -> Result<PurgeReport, StorageError> {
        let now_seconds = self.clock.now_seconds();
        let schema = self.schema();
        let mut report = PurgeReport::default();
        let tables = schema
            .catalog
            .keyspaces
            .values()
            .flat_map(|ks| ks.tables.values());
        for table in tables {
            let mut resume_after = None;
            loop {
                let request = PurgeRequest {
                    table: (**table).clone(),
                    now_seconds,
                    resume_after,
                    max_rows: CHUNK_ROWS,
                };
                let progress = match self.store.purge(request) {
                    Ok(progress) => progress,
                    Err(StorageError::UnknownTable { .. }) => break,
                    Err(e) => return Err(e),
                };
                report.rows_examined += progress.rows_examined;
                report.rows_rewritten += progress.rows_rewritten;
                report.rows_removed += progress.rows_removed;
                report.range_tombstones_removed += progress.range_tombstones_removed;
                resume_after = progress.resume_after;
                if resume_after.is_none() {
                    break;
                }
            }
            report.tables += 1;
        }
        Ok(report)
    }
}

/// Purges every `every` until the node is dropped or its storage stops accepting writes. The
/// task holds the node only while purging, so closing the server releases the data file.
pub(crate) fn spawn_periodic(node: &Arc<Node>, every: Duration) {
    let node = Arc::downgrade(node);
    let task = async move {
        let mut interval = tokio::time::interval(every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick fires at once; the first purge waits a whole period.
        interval.tick().await;
        loop {
            interval.tick().await;
            let Some(purging) = node.upgrade() else {
                break;
            };
            match tokio::task::spawn_blocking(move || purging.purge()).await {
                Ok(Ok(report)) => debug!(?report, "purge done"),
                Ok(Err(StorageError::WriterGone)) => break,
                Ok(Err(e)) => warn!(error = %e, "purge failed"),
                Err(e) => warn!(error = %e, "purge task failed"),
            }
        }
    };
    tokio::spawn(task.instrument(info_span!("purge")));
}
