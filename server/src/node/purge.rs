//! The background purge: Cassandra reclaims expired and deleted data when compaction rewrites
//! SSTables; this node runs storage purge passes over every user table instead, on a timer
//! (`Config::purge_interval`) and on demand ([`Node::purge`]). Each pass goes in bounded
//! chunks through the storage writer, so writes keep flowing between chunks.

use std::sync::Arc;
use std::time::Duration;

use storage::{PurgeRequest, StorageError};
use tracing::{debug, info_span, warn, Instrument};

use crate::guardrails;
use crate::node::Node;
use crate::system::key_distribution;

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
    /// Partitions over a `partition_size` guardrail threshold (each logged).
    pub oversized_partitions: u64,
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
            report.oversized_partitions += self.guard_partition_sizes(table)?;
        }
        Ok(report)
    }

    /// Cassandra 5.0's `partition_size` guardrail, which its SSTable writer applies at
    /// flush and compaction: here the purge pass reads each partition's size once it has
    /// purged the table. Returns the partitions over a threshold; nothing is read when the
    /// guardrail is off.
    fn guard_partition_sizes(&self, table: &storage::TableDef) -> Result<u64, StorageError> {
        let threshold = self.config.partition_size;
        if threshold.warn < 0 && threshold.fail < 0 {
            return Ok(0);
        }
        let snapshot = self.store.snapshot()?;
        let mut oversized = 0;
        let walked = key_distribution::each_partition(&snapshot, table, |partition| {
            let what = format!(
                "{}.{}:{}",
                table.keyspace,
                table.name,
                key_string(table, &partition.key)
            );
            if guardrails::partition_size(threshold, &what, partition.bytes) {
                oversized += 1;
            }
        });
        match walked {
            Ok(()) => Ok(oversized),
            Err(e) => {
                warn!(error = %e, table = %table.name, "partition size check failed");
                Ok(oversized)
            }
        }
    }
}

/// A partition key as Cassandra's `partitionKeyType.getString` prints it: components
/// joined by `:`, text unquoted.
fn key_string(table: &storage::TableDef, key: &[bytes::Bytes]) -> String {
    crate::telemetry::hot_partitions::key_literals(table, key)
        .map(|(_, literal)| {
            match literal
                .strip_prefix('\'')
                .and_then(|l| l.strip_suffix('\''))
            {
                Some(text) => text.replace("''", "'"),
                None => literal,
            }
        })
        .collect::<Vec<_>>()
        .join(":")
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
