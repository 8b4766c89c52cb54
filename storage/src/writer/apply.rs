//! Applying a group: to the memtable (plain row writes, see `crate::memtable::apply`), or in one
//! redb write transaction that takes the memtable's rows with it; purge chunks too.

use std::sync::Arc;

use redb::Durability;
use redb::ReadableDatabase;
use redb::WriteTransaction;
use tracing::trace;

use super::Writer;
use crate::error::StorageError;
use crate::hash::fast::TableIds;
use crate::index::IndexChanges;
use crate::memtable;
use crate::memtable::apply::apply_group;
use crate::memtable::apply::Group;
use crate::read::view::View;
use crate::store::options::SyncMode;
use crate::store::purge::purge_chunk;
use crate::store::purge::PurgeProgress;
use crate::store::purge::PurgeRequest;
use crate::store::tables::write_position;
use crate::writer::flush::write_rows;
use crate::writer::key_filter::KeyFilters;
use crate::writer::mutation::apply;
use crate::writer::mutation::ApplyError;
use crate::writer::mutation::CatalogOp;
use crate::writer::mutation::WriteBatch;
use crate::writer::request::Request;
use crate::writer::request::WriteRequest;

impl Writer {
    /// Whether a group can be handled by whichever thread queued it (see `crate::writer::combine`):
    /// logged plain row writes that go to the memtable, with nothing that could block (no
    /// reopen pending, the flusher keeping up).
    pub(crate) fn combinable(&mut self, group: &[Request]) -> bool {
        if self.log.is_none()
            || self.needs_reopen
            || self.memtable_full(2 * self.options.memtable_size)
        {
            return false;
        }
        let mut batches = Vec::with_capacity(group.len());
        for request in group {
            match request {
                Request::Write(write) if write.logged.is_some() => batches.push(&write.batch),
                _ => return false,
            }
        }
        self.memtable_only(&batches)
    }

    /// The shared read view, for reading rows before the group.
    fn read_view(&self) -> Result<Arc<View>, StorageError> {
        let db = self.db.as_ref().ok_or(StorageError::Recovering)?;
        self.views.view(|| Ok(db.begin_read()?))
    }

    /// Whether the group can go to the memtable (see [`crate::memtable::apply`]).
    pub(super) fn memtable_only(&mut self, batches: &[&WriteBatch]) -> bool {
        if self.flusher.is_none() {
            return false;
        }
        let Ok(view) = self.read_view() else {
            return false;
        };
        self.indexed.memtable_only(&view, batches).unwrap_or(false)
    }

    /// Whether a group of a store without a log goes to the memtable: plain row writes, in
    /// `periodic` mode (the others promise durability at acknowledgement).
    pub(super) fn unlogged_to_memtable(&mut self, writes: &[WriteRequest]) -> bool {
        if self.options.sync != SyncMode::Periodic {
            return false;
        }
        let batches: Vec<&WriteBatch> = writes.iter().map(|w| &w.batch).collect();
        self.memtable_only(&batches)
    }

    /// Applies a group of plain row writes to the memtable and publishes it. `records` holds
    /// each batch's commit-log bytes, when it was logged (or nothing, for none).
    pub(super) fn apply_to_memtable(
        &mut self,
        batches: &[&WriteBatch],
        records: &[&[u8]],
    ) -> Result<Vec<Result<(), StorageError>>, StorageError> {
        let view = self.read_view()?;
        let layers = self.memtables.load();
        let seq = self.memtables.visible() + 1;
        let group = Group {
            seq,
            batches,
            records,
        };
        let results = apply_group(
            &layers,
            &view,
            &self.live_tables,
            &group,
            &mut self.key_filters,
            &mut self.row_arena,
        )?;
        self.memtables.make_visible(seq);
        self.dirty = true;
        Ok(results)
    }

    /// Applies the batches in one transaction. `Ok` holds each batch's own outcome; `Err`
    /// means the group failed (see [`StorageError::GroupFailed`]).
    pub(super) fn commit_group(
        &mut self,
        batches: &[&WriteBatch],
        durable: bool,
    ) -> Result<Vec<Result<(), StorageError>>, StorageError> {
        if durable {
            self.check_room()?;
        }
        // Only catalog changes alter the live tables; keep a copy to restore on failure then.
        let changes_catalog = batches.iter().any(|b| !b.catalog.is_empty());
        let saved_tables = changes_catalog.then(|| self.live_tables.clone());
        let written = forget_written(&mut self.key_filters, batches);
        let emptied = emptied_tables(&self.live_tables, batches);
        let result = self.try_commit_group(batches, durable);
        let result = result.map(|(results, changes)| {
            self.committed();
            self.note_changes(batches, &changes);
            self.feed.publish(changes);
            results
        });
        if result.is_ok() {
            if changes_catalog {
                self.indexed.clear();
                self.key_filters.retain(&self.live_tables);
            }
            for table in emptied.difference(&written) {
                self.key_filters.start_empty(*table);
            }
        }
        match (&result, saved_tables) {
            (Ok(_), _) if durable => self.after_durable_commit(),
            (Ok(_), _) => self.dirty = true,
            (Err(_), Some(saved)) => self.live_tables = saved,
            (Err(_), None) => {}
        }
        result
    }

    fn try_commit_group(
        &mut self,
        batches: &[&WriteBatch],
        durable: bool,
    ) -> Result<(Vec<Result<(), StorageError>>, IndexChanges), StorageError> {
        let txn = self.begin(durable)?;
        let mut results = Vec::with_capacity(batches.len());
        let mut changes = IndexChanges::default();
        for batch in batches {
            match apply(&txn, &mut self.live_tables, batch) {
                Ok(written) => {
                    changes.extend(written);
                    results.push(Ok(()));
                }
                Err(ApplyError::Request(e)) => results.push(Err(e)),
                Err(ApplyError::Group(e)) => return Err(e),
            }
        }
        txn.commit()?;
        Ok((results, changes))
    }

    /// A write transaction (fsync'd at commit when `durable`) that records the commit log
    /// position it holds. It holds every row written so far: a running flush is waited for,
    /// and the memtable's rows are written into it first (so [`Writer::committed`] empties
    /// the memtable).
    pub(super) fn begin(&mut self, durable: bool) -> Result<WriteTransaction, StorageError> {
        let txn = self.begin_without_memtable(durable)?;
        let rows = memtable::read(&self.memtables.load().active).latest();
        write_rows(&txn, rows)?;
        Ok(txn)
    }

    /// [`Writer::begin`] without the memtable's rows: for a transaction after which they no
    /// longer count (a restore).
    pub(super) fn begin_without_memtable(
        &mut self,
        durable: bool,
    ) -> Result<WriteTransaction, StorageError> {
        self.finish_flush(true);
        let db = self.db.as_ref().ok_or(StorageError::Recovering)?;
        let mut txn = db.begin_write()?;
        txn.set_durability(if durable {
            Durability::Immediate
        } else {
            Durability::None
        })?;
        if let Some(log) = &self.log {
            write_position(&txn, log.last_seq())?;
        }
        Ok(txn)
    }

    /// Runs one purge chunk in its own transaction: durable whenever there is a commit log
    /// (purges are not logged, so replay must never start before one) or in `batch` mode.
    pub(super) fn purge(&mut self, request: &PurgeRequest) -> Result<PurgeProgress, StorageError> {
        let durable = self.log.is_some() || self.options.sync != SyncMode::Periodic;
        if durable {
            self.check_room()?;
        }
        let txn = self.begin(durable)?;
        let (progress, changes) = purge_chunk(&txn, &self.live_tables, request)?;
        txn.commit()?;
        self.committed();
        let tombstones = progress.range_tombstones_removed > 0;
        self.note_purged(request.table.id, tombstones, &changes);
        self.feed.publish(changes);
        if durable {
            self.after_durable_commit();
        } else {
            self.dirty = true;
        }
        trace!(?progress, table = %request.table.id, "purge chunk");
        Ok(progress)
    }
}

/// Forgets the key filter of every table the batches write (they go through a redb
/// transaction, which the filters do not follow); returns those tables.
fn forget_written(filters: &mut KeyFilters, batches: &[&WriteBatch]) -> TableIds {
    let mut written = TableIds::default();
    for batch in batches {
        written.extend(batch.rows.iter().map(|w| w.table_id));
        written.extend(batch.counters.iter().map(|c| c.table_id));
        written.extend(batch.range_tombstones.iter().map(|r| r.table_id));
    }
    for table in &written {
        filters.forget(*table);
    }
    written
}

/// Tables the batches leave empty: created (not live before) or truncated.
fn emptied_tables(live: &TableIds, batches: &[&WriteBatch]) -> TableIds {
    let mut emptied = TableIds::default();
    for op in batches.iter().flat_map(|b| &b.catalog) {
        match op {
            CatalogOp::PutTable(table) if !live.contains(&table.id) => {
                emptied.insert(table.id);
            }
            CatalogOp::TruncateTable { id } => {
                emptied.insert(*id);
            }
            _ => {}
        }
    }
    emptied
}
