//! Named snapshots of all data and schema, restorable any number of times in any order, and
//! the reset that empties the store (the test controls' storage side).
//!
//! **Design.** Cassandra's: a snapshot keeps the immutable files of each table, not a copy
//! of the rows. Taking one (one durable writer transaction) writes the memtable's rows into
//! redb, seals every table's head into a run, so that all stored rows are in immutable runs,
//! and records each table's run list (its manifest), the `schema` records (keyspaces, tables,
//! types, roles) and the index and view targets under the snapshot's name; the runs it lists
//! are *pinned* (`runs::pins`): compaction may merge them but takes no block out of them and
//! deletes none, and TRUNCATE, DROP and restores only unlist them. The small mutable tables
//! beside the runs, range tombstones and index entries, are copied (`snap_<id>_rt_<table>`,
//! `snap_<id>_index_<index>`). Restoring (one writer transaction) empties every live table
//! (heads, range tombstones and index entries deleted, runs unlisted and deleted unless
//! pinned), writes the snapshot's manifests, schema records and targets back and copies its
//! range tombstones and index entries in (restoring the snapshot the store holds again skips
//! those no commit changed since: `writer::snapshot::Installed`); the memtable's rows are
//! dropped. So a restore costs
//! the number of tables plus the size of what was copied and of what is deleted, never the
//! rows of the runs, and a snapshot stays as it was however often it is restored: taking A,
//! taking B, restoring A, restoring B and restoring A again all work.
//!
//! redb's savepoints were not used: restoring one invalidates every savepoint taken after it,
//! so after restoring A, B could no longer be restored.
//!
//! **Requests.** A snapshot request is a writer request: the writer cuts its group around it,
//! so the writes queued before it land before it (and a restore then drops them) and those
//! queued after land after it. A restore commits (without an fsync) and publishes the empty
//! memtable and the new read view while holding the store's *gate* exclusively; a reader takes
//! its memtable layers and read view under the gate shared, so no reader sees the restored
//! runs with the memtable's rows or the old runs without them. A durable commit follows before
//! the restore is answered; its commit-log position is the last record appended, so a restart
//! (a `kill -9` included) never replays a record from before the restore, and replays every
//! write acknowledged after it. The flusher is waited for first; the compactor's merges meet a
//! manifest that changed under them and drop their output (kept if pinned), as after a
//! TRUNCATE. On disk, snapshots live in the data file (`snapshots`, `run_pins`) and survive
//! restarts; in memory they go with the process.
//!
//! A reset is the restore of an empty snapshot holding only the roles the caller keeps.

#[cfg(test)]
mod power_cut_tests;
#[cfg(test)]
mod reader_tests;
pub(crate) mod record;
pub(crate) mod state;
#[cfg(test)]
mod store_tests;

use redb::ReadableDatabase;
use redb::ReadableTable;
use redb::TableDefinition;
use redb::TableError;

use crate::catalog::Catalog;
use crate::catalog::RoleDef;
use crate::error::StorageError;
use crate::store::db::Store;
use crate::store::slot;
use crate::writer::request::Request;
use record::SnapshotRecord;

/// `snapshots`: per snapshot name, its record ([`record::SnapshotRecord`]).
pub(crate) const SNAPSHOTS: TableDefinition<'static, &str, &[u8]> =
    TableDefinition::new("snapshots");

/// What a snapshot holds, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotSummary {
    /// Its name.
    pub name: String,
    /// When it was taken, in microseconds since the epoch (as the caller gave it).
    pub created_at_micros: i64,
    /// The keyspaces it holds.
    pub keyspaces: Vec<String>,
    /// How many tables (materialized views included) it holds.
    pub tables: usize,
}

impl SnapshotSummary {
    pub(crate) fn of(name: &str, record: &SnapshotRecord) -> SnapshotSummary {
        SnapshotSummary {
            name: name.to_string(),
            created_at_micros: record.created_at_micros,
            keyspaces: record.keyspaces(),
            tables: record.table_count(),
        }
    }
}

/// A snapshot request to the writer.
#[derive(Debug)]
pub(crate) enum SnapshotOp {
    /// Take (or replace) the snapshot `name`.
    Take {
        name: String,
        created_at_micros: i64,
    },
    /// Restore the snapshot `name`.
    Restore { name: String },
    /// Empty the store, keeping only `roles`.
    Reset { roles: Vec<RoleDef> },
    /// Delete the snapshot `name`.
    Delete { name: String },
}

/// What a snapshot request did.
#[derive(Debug)]
pub(crate) enum SnapshotDone {
    /// A snapshot was taken.
    Taken(SnapshotSummary),
    /// A snapshot was restored (or the store reset: no summary); the catalog now stored.
    Installed(Catalog, Option<SnapshotSummary>),
    /// Whether a snapshot was deleted.
    Deleted(bool),
}

impl SnapshotDone {
    fn unexpected() -> StorageError {
        StorageError::corrupt("the writer answered a snapshot request with another's outcome")
    }
}

impl Store {
    fn snapshot_request(&self, op: SnapshotOp) -> Result<SnapshotDone, StorageError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let request = Request::Snapshot(
            Box::new(op),
            Box::new(move |result| {
                // The receiver waits below; if it is gone there is no one to tell.
                let _ = tx.send(result);
            }),
        );
        self.send(request);
        rx.recv().unwrap_or(Err(StorageError::WriterGone))
    }

    /// Takes the snapshot `name` of every table's rows and of the schema and roles,
    /// replacing one of that name, in one durable commit; blocks until it is taken.
    ///
    /// # Errors
    /// redb errors, a full disk, [`StorageError::WriterGone`].
    pub fn take_snapshot(
        &self,
        name: &str,
        created_at_micros: i64,
    ) -> Result<SnapshotSummary, StorageError> {
        let op = SnapshotOp::Take {
            name: name.to_string(),
            created_at_micros,
        };
        match self.snapshot_request(op)? {
            SnapshotDone::Taken(summary) => Ok(summary),
            _ => Err(SnapshotDone::unexpected()),
        }
    }

    /// Restores the snapshot `name`: the store then holds exactly what it held when the
    /// snapshot was taken (writes queued before this call are dropped); returns the catalog
    /// it holds, for the caller to install. Blocks until the restore is durable.
    ///
    /// # Errors
    /// [`StorageError::UnknownSnapshot`]; [`StorageError::Corrupt`] when a table it names is
    /// missing; redb errors, a full disk, [`StorageError::WriterGone`].
    pub fn restore_snapshot(&self, name: &str) -> Result<(SnapshotSummary, Catalog), StorageError> {
        let op = SnapshotOp::Restore {
            name: name.to_string(),
        };
        match self.snapshot_request(op)? {
            SnapshotDone::Installed(catalog, Some(summary)) => Ok((summary, catalog)),
            _ => Err(SnapshotDone::unexpected()),
        }
    }

    /// Drops every keyspace, table, type and row, and every role but `roles` (stored as
    /// given); returns the catalog left. Snapshots stay. Blocks until it is durable.
    ///
    /// # Errors
    /// redb errors, a full disk, [`StorageError::WriterGone`].
    pub fn reset(&self, roles: Vec<RoleDef>) -> Result<Catalog, StorageError> {
        match self.snapshot_request(SnapshotOp::Reset { roles })? {
            SnapshotDone::Installed(catalog, None) => Ok(catalog),
            _ => Err(SnapshotDone::unexpected()),
        }
    }

    /// Deletes the snapshot `name` and the runs only it held; whether there was one.
    ///
    /// # Errors
    /// redb errors, [`StorageError::WriterGone`].
    pub fn delete_snapshot(&self, name: &str) -> Result<bool, StorageError> {
        let op = SnapshotOp::Delete {
            name: name.to_string(),
        };
        match self.snapshot_request(op)? {
            SnapshotDone::Deleted(deleted) => Ok(deleted),
            _ => Err(SnapshotDone::unexpected()),
        }
    }

    /// The snapshots, by name.
    ///
    /// # Errors
    /// redb errors; a corrupt record.
    pub fn snapshots(&self) -> Result<Vec<SnapshotSummary>, StorageError> {
        let txn = slot::current(&self.inner.db)?.begin_read()?;
        let table = match txn.open_table(SNAPSHOTS) {
            Ok(table) => table,
            Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for entry in table.iter()? {
            let (name, value) = entry?;
            let record = SnapshotRecord::decode(value.value())?;
            out.push(SnapshotSummary::of(name.value(), &record));
        }
        Ok(out)
    }
}
