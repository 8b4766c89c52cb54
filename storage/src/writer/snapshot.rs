//! Snapshot requests on the writer: taking, restoring and deleting snapshots, and the reset
//! (see `crate::snapshot` for the design).

use std::collections::HashSet;

use redb::WriteTransaction;
use uuid::Uuid;

use super::key_filter::KeyFilters;
use super::Writer;
use crate::catalog::persist;
use crate::catalog::role;
use crate::catalog::Catalog;
use crate::catalog::RoleDef;
use crate::error::StorageError;
use crate::index::IndexChanges;
use crate::memtable::Layers;
use crate::snapshot::record::SnapshotRecord;
use crate::snapshot::state;
use crate::snapshot::state::Unchanged;
use crate::snapshot::SnapshotDone;
use crate::snapshot::SnapshotOp;
use crate::snapshot::SnapshotSummary;
use crate::writer::mutation::WriteBatch;

/// The snapshot the store holds as it was when taken or last restored, and the index and
/// range-tombstone tables commits have changed since: a restore of that snapshot leaves the
/// others as they are instead of copying them back. Kept in memory only; any catalog change
/// or reopen forgets it.
pub(crate) struct Installed {
    /// The snapshot's record id.
    snapshot: Uuid,
    /// Indexes whose entries changed (or whose table was deleted).
    indexes: HashSet<Uuid>,
    /// Tables whose range tombstones changed.
    range_tombstones: HashSet<Uuid>,
}

impl Installed {
    fn new(snapshot: Uuid) -> Installed {
        Installed {
            snapshot,
            indexes: HashSet::new(),
            range_tombstones: HashSet::new(),
        }
    }

    fn note_index_changes(&mut self, changes: &IndexChanges) {
        self.indexes.extend(changes.deleted.iter().copied());
        self.indexes
            .extend(changes.writes.iter().map(|(index, _, _)| *index));
    }
}

impl Writer {
    /// A group committed with `changes` to index entries: notes what changed since the
    /// snapshot installed (a catalog change forgets it).
    pub(super) fn note_changes(&mut self, batches: &[&WriteBatch], changes: &IndexChanges) {
        if batches.iter().any(|b| !b.catalog.is_empty()) {
            self.installed = None;
        }
        let Some(installed) = &mut self.installed else {
            return;
        };
        installed.note_index_changes(changes);
        for batch in batches {
            installed
                .range_tombstones
                .extend(batch.range_tombstones.iter().map(|w| w.table_id));
        }
    }

    /// A purge chunk of `table` committed: notes what it changed.
    pub(super) fn note_purged(&mut self, table: Uuid, tombstones: bool, changes: &IndexChanges) {
        if let Some(installed) = &mut self.installed {
            installed.note_index_changes(changes);
            if tombstones {
                installed.range_tombstones.insert(table);
            }
        }
    }

    /// What a restore of `record` may leave as it is.
    fn unchanged(&self, record: &SnapshotRecord) -> Unchanged {
        match &self.installed {
            Some(installed) if installed.snapshot == record.id => Unchanged {
                indexes: record
                    .index_targets
                    .iter()
                    .filter_map(|(_, json)| crate::index::parse_target_ids(json).ok())
                    .flatten()
                    .filter(|id| !installed.indexes.contains(id))
                    .collect(),
                range_tombstones: record
                    .tables
                    .iter()
                    .map(|t| t.id)
                    .filter(|id| !installed.range_tombstones.contains(id))
                    .collect(),
            },
            _ => Unchanged::default(),
        }
    }

    /// Carries out a snapshot request.
    pub(super) fn snapshot(&mut self, op: &SnapshotOp) -> Result<SnapshotDone, StorageError> {
        match op {
            SnapshotOp::Take {
                name,
                created_at_micros,
            } => self.take_snapshot(name, *created_at_micros),
            SnapshotOp::Restore { name } => self.install(Some(name), &[]),
            SnapshotOp::Reset { roles } => self.install(None, roles),
            SnapshotOp::Delete { name } => {
                let txn = self.begin(true)?;
                let deleted = state::delete(&txn, name)?;
                self.commit_durably(txn)?;
                Ok(SnapshotDone::Deleted(deleted))
            }
        }
    }

    /// Takes the snapshot `name` in one durable commit that also holds the memtable's rows.
    fn take_snapshot(
        &mut self,
        name: &str,
        created_at_micros: i64,
    ) -> Result<SnapshotDone, StorageError> {
        self.check_room()?;
        let txn = self.begin(true)?;
        let record = state::take(&txn, &self.live_tables, Uuid::new_v4(), created_at_micros)?;
        state::store(&txn, name, &record)?;
        self.commit_durably(txn)?;
        self.installed = Some(Installed::new(record.id));
        Ok(SnapshotDone::Taken(SnapshotSummary::of(name, &record)))
    }

    /// Commits `txn` (begun durable, with the memtable's rows) and empties the memtable.
    fn commit_durably(&mut self, txn: WriteTransaction) -> Result<(), StorageError> {
        txn.commit()?;
        self.committed();
        self.after_durable_commit();
        Ok(())
    }

    /// Replaces everything stored with the snapshot `name`, or (`None`) with nothing but
    /// `roles`: one commit published to readers at once, then a durable commit.
    fn install(
        &mut self,
        name: Option<&str>,
        roles: &[RoleDef],
    ) -> Result<SnapshotDone, StorageError> {
        self.check_room()?;
        let txn = self.begin_without_memtable(false)?;
        let (record, summary) = match name {
            Some(name) => {
                let record =
                    state::load(&txn, name)?.ok_or_else(|| StorageError::UnknownSnapshot {
                        name: name.to_string(),
                    })?;
                state::check_whole(&txn, name, &record)?;
                let summary = SnapshotSummary::of(name, &record);
                (record, Some(summary))
            }
            None => (empty_with(roles), None),
        };
        let catalog: Catalog = persist::decode_records(&record.schema)?;
        let unchanged = self.unchanged(&record);
        state::clear(&txn, &self.live_tables, &unchanged)?;
        let live = state::install(&txn, &record, &unchanged)?;
        self.publish_restored(txn)?;
        self.installed = name.map(|_| Installed::new(record.id));
        self.live_tables = live;
        self.indexed.clear();
        self.key_filters = KeyFilters::default();
        for table in record.tables.iter().filter(|t| t.runs.is_empty()) {
            self.key_filters.start_empty(table.id);
        }
        self.dirty = true;
        self.checkpoint()?;
        Ok(SnapshotDone::Installed(catalog, summary))
    }

    /// Commits a restore and publishes it with an empty memtable, under the readers' gate,
    /// so that no reader sees the restored runs with the memtable's rows, or the old runs
    /// without them.
    fn publish_restored(&mut self, txn: WriteTransaction) -> Result<(), StorageError> {
        let gate = self.gate.clone();
        let held = gate
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        txn.commit()?;
        let old = self.memtables.load();
        self.memtables.publish(Layers::default());
        self.views.invalidate();
        drop(held);
        if let Some(flusher) = &self.flusher {
            let layers = [
                Some(old.active.clone()),
                old.frozen.clone(),
                old.clean.clone(),
            ];
            drop(old);
            layers
                .into_iter()
                .flatten()
                .for_each(|layer| flusher.dispose(layer));
        }
        // Watched indexes are rebuilt from the restored entries.
        self.feed.reset_all();
        Ok(())
    }
}

/// The record of an empty store holding `roles`.
fn empty_with(roles: &[RoleDef]) -> SnapshotRecord {
    SnapshotRecord {
        id: Uuid::nil(),
        created_at_micros: 0,
        schema: roles
            .iter()
            .map(|r| (role::role_key(&r.name), role::encode_role(r)))
            .collect(),
        index_targets: Vec::new(),
        view_targets: Vec::new(),
        tables: Vec::new(),
    }
}
