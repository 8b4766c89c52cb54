//! A table's stored rows as a write transaction sees them: the head over the runs. Every
//! writer path that reads or changes stored rows goes through here, so a run's rows are
//! never shadowed wrongly or resurrected by a removal from the head.

use std::ops::Bound;

use bytes::Bytes;
use redb::ReadableTable;
use redb::ReadableTableMetadata;
use redb::WriteTransaction;
use uuid::Uuid;

use super::build::RunBuilder;
use super::filter;
use super::manifest;
use super::manifest::RunMeta;
use super::merge::Merge;
use super::merge::Source;
use super::read::lookup;
use super::read::RunEntry;
use super::read::RunIter;
use super::run_table_name;
use super::HEAD_DELETED;
use super::RUN_FILTERS;
use crate::error::StorageError;
use crate::hash::bloom::stored_key_hash;
use crate::store::tables::data_table;
use crate::store::tables::data_table_name;

/// Fewer rows than this go into the head rather than a run of their own.
pub(crate) const SMALL_WRITE: usize = 512;

/// The head's entry for `value` as a merge sees it (an empty value is a deletion).
pub(crate) fn head_entry(key: &[u8], value: &[u8]) -> RunEntry {
    let value = (value != HEAD_DELETED).then(|| Bytes::copy_from_slice(value));
    (key.to_vec(), value)
}

/// The newest stored value under `key`: the head's, else the newest run's.
///
/// # Errors
/// redb errors; a corrupt block or filter.
pub(crate) fn get(
    txn: &WriteTransaction,
    table_id: Uuid,
    key: &[u8],
) -> Result<Option<Bytes>, StorageError> {
    {
        let head = txn.open_table(data_table(&data_table_name(table_id)))?;
        let found = head.get(key)?.map(|value| head_entry(key, value.value()).1);
        if let Some(found) = found {
            return Ok(found);
        }
    }
    let runs = manifest::read_in(txn, table_id)?;
    let hash = stored_key_hash(key);
    for run in runs.iter().filter(|run| run.spans(key)) {
        if !filter::in_write(txn, run.id)?.may_hold(hash) {
            continue;
        }
        let table = txn.open_table(data_table(&run_table_name(run.id)))?;
        if let Some(entry) = lookup(&table, key, None)? {
            return Ok(entry);
        }
    }
    Ok(None)
}

/// Calls `each` with every stored row between `start` and `end`, in key order, until it
/// returns `false`.
///
/// # Errors
/// redb errors; a corrupt block; `each`'s errors.
pub(crate) fn for_each(
    txn: &WriteTransaction,
    table_id: Uuid,
    start: Bound<&[u8]>,
    end: Bound<&[u8]>,
    each: impl FnMut(&[u8], &[u8]) -> Result<bool, StorageError>,
) -> Result<(), StorageError> {
    let runs = manifest::read_in(txn, table_id)?;
    for_each_over(txn, table_id, &runs, start, end, each)
}

/// [`for_each`] over the head and `runs`: all of the table's runs, or none (its head alone,
/// whose rows are the newest of their keys). Leaving out only some runs would let an older
/// version of a key stand for a newer one.
pub(crate) fn for_each_over(
    txn: &WriteTransaction,
    table_id: Uuid,
    runs: &[RunMeta],
    start: Bound<&[u8]>,
    end: Bound<&[u8]>,
    mut each: impl FnMut(&[u8], &[u8]) -> Result<bool, StorageError>,
) -> Result<(), StorageError> {
    let head = txn.open_table(data_table(&data_table_name(table_id)))?;
    let tables = runs
        .iter()
        .map(|run| txn.open_table(data_table(&run_table_name(run.id))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut sources: Vec<Source<'_>> = Vec::with_capacity(1 + tables.len());
    sources.push(Box::new(head.range::<&[u8]>((start, end))?.map(|entry| {
        let (key, value) = entry?;
        Ok(head_entry(key.value(), value.value()))
    })));
    for (run, table) in runs.iter().zip(&tables) {
        if !run.overlaps(start, end) {
            continue;
        }
        let (start, end) = run.clip(start, end);
        sources.push(Box::new(RunIter::new(table, start, end, false)?));
    }
    for entry in Merge::new(sources, false, false) {
        let (key, value) = entry?;
        if let Some(value) = value {
            if !each(&key, &value)? {
                break;
            }
        }
    }
    Ok(())
}

/// Writes into a table's head: removals leave a deletion over the runs, if it has any.
pub(crate) struct Head<'txn> {
    table: redb::Table<'txn, &'static [u8], &'static [u8]>,
    has_runs: bool,
}

impl<'txn> Head<'txn> {
    /// Opens `table_id`'s head in `txn`.
    ///
    /// # Errors
    /// redb errors.
    pub(crate) fn open(
        txn: &'txn WriteTransaction,
        table_id: Uuid,
    ) -> Result<Head<'txn>, StorageError> {
        let has_runs = !manifest::read_in(txn, table_id)?.is_empty();
        Ok(Head {
            table: txn.open_table(data_table(&data_table_name(table_id)))?,
            has_runs,
        })
    }

    /// Stores `value` under `key` (`None`: removes the row).
    ///
    /// # Errors
    /// redb errors.
    pub(crate) fn put(&mut self, key: &[u8], value: Option<&[u8]>) -> Result<(), StorageError> {
        match value {
            Some(value) => {
                self.table.insert(key, value)?;
            }
            None if self.has_runs => {
                self.table.insert(key, HEAD_DELETED)?;
            }
            None => {
                self.table.remove(key)?;
            }
        }
        Ok(())
    }

    /// Whether the head holds an entry (a row or a deletion) under `key`.
    fn holds(&self, key: &[u8]) -> Result<bool, StorageError> {
        Ok(self.table.get(key)?.is_some())
    }
}

/// Writes rows (sorted by key, newer than everything stored) into `table_id`: into the head
/// when they are few, else as a new run, newest of the table's, except the rows whose key the
/// head holds, which go into the head so that it stays newer than every run.
///
/// # Errors
/// redb errors.
pub(crate) fn write_sorted<K: std::borrow::Borrow<[u8]>, V: AsRef<[u8]>>(
    txn: &WriteTransaction,
    table_id: Uuid,
    rows: &[(K, Option<V>)],
) -> Result<(), StorageError> {
    let mut head = Head::open(txn, table_id)?;
    if rows.len() < SMALL_WRITE {
        for (key, value) in rows {
            head.put(key.borrow(), value.as_ref().map(AsRef::as_ref))?;
        }
        drop(head);
        seal_large_head(txn, table_id)?;
        return Ok(());
    }
    let head_empty = head.table.is_empty()?;
    let mut run = RunBuilder::new(rows.len());
    for (key, value) in rows {
        let (key, value) = (key.borrow(), value.as_ref().map(AsRef::as_ref));
        if !head_empty && head.holds(key)? {
            head.put(key, value)?;
        } else if value.is_some() || head.has_runs {
            run.add(key, value);
        }
    }
    drop(head);
    if let Some(meta) = run.finish(txn)? {
        let mut runs = manifest::read_in(txn, table_id)?;
        runs.insert(0, meta);
        manifest::write(txn, table_id, &runs)?;
    }
    seal_large_head(txn, table_id)?;
    Ok(())
}

/// A head holding this many entries becomes a run (see [`seal_large_head`]).
#[cfg(not(test))]
pub(crate) const HEAD_LIMIT: u64 = 65_536;
/// Small in tests, so that they seal heads without writing tens of thousands of rows.
#[cfg(test)]
pub(crate) const HEAD_LIMIT: u64 = 256;

/// Turns `table_id`'s head into its newest run once it holds [`HEAD_LIMIT`] entries, so that
/// writer transactions (indexed tables, counters, views) insert into a small B-tree however
/// large the table grows; whether it did. The head is newer than every run, so as the newest
/// run it shadows the same rows; its deletions are kept only if older runs exist.
///
/// # Errors
/// redb errors.
pub(crate) fn seal_large_head(
    txn: &WriteTransaction,
    table_id: Uuid,
) -> Result<bool, StorageError> {
    seal_head(txn, table_id, HEAD_LIMIT)
}

/// Turns `table_id`'s head into its newest run when it holds at least `min_entries` entries
/// (and at least one); whether it did. A snapshot seals every head (`min_entries` 1), so
/// that a table's stored rows are all in runs, which it can keep without copying them.
///
/// # Errors
/// redb errors.
pub(crate) fn seal_head(
    txn: &WriteTransaction,
    table_id: Uuid,
    min_entries: u64,
) -> Result<bool, StorageError> {
    let name = data_table_name(table_id);
    let head = txn.open_table(data_table(&name))?;
    let len = head.len()?;
    if len < min_entries.max(1) {
        return Ok(false);
    }
    let mut runs = manifest::read_in(txn, table_id)?;
    let mut run = RunBuilder::new(usize::try_from(len).unwrap_or(usize::MAX));
    for entry in head.iter()? {
        let (key, value) = entry?;
        let (key, value) = head_entry(key.value(), value.value());
        if value.is_some() || !runs.is_empty() {
            run.add(&key, value.as_deref());
        }
        if run.ready_bytes() >= 1 << 20 {
            run.store_ready(txn)?;
        }
    }
    drop(head);
    txn.delete_table(data_table(&name))?;
    if let Some(meta) = run.finish(txn)? {
        runs.insert(0, meta);
        manifest::write(txn, table_id, &runs)?;
    }
    Ok(true)
}

/// Deletes every stored row of `table_id`: its head, its runs and their filters.
///
/// # Errors
/// redb errors.
pub(crate) fn delete_all(txn: &WriteTransaction, table_id: Uuid) -> Result<(), StorageError> {
    txn.delete_table(data_table(&data_table_name(table_id)))?;
    let runs = manifest::read_in(txn, table_id)?;
    delete_runs(txn, &runs)?;
    manifest::write(txn, table_id, &[])
}

/// Deletes runs' tables and filters (not their manifest entries), except those a snapshot
/// pins (`pins`): taken out of the manifest by the caller, they stay for the snapshot.
///
/// # Errors
/// redb errors.
pub(crate) fn delete_runs(txn: &WriteTransaction, runs: &[RunMeta]) -> Result<(), StorageError> {
    let mut deleted = Vec::with_capacity(runs.len());
    for run in runs {
        if super::pins::delete_run_table(txn, run.id)? {
            deleted.push(run.id);
        }
    }
    let mut filters = txn.open_table(RUN_FILTERS)?;
    for id in &deleted {
        filters.remove(id.as_bytes().as_slice())?;
    }
    filter::forget(deleted);
    Ok(())
}

/// The prefix of tables waiting to be deleted in the background ([`discard_table`]).
pub(crate) const TRASH_PREFIX: &str = "trash_";

/// Renames table `name` out of the way (if it exists), for the compactor thread to delete
/// later (`compact::empty_trash`): deleting a redb table reads every page of it, which a
/// reset of a large store would otherwise wait for; a rename costs the same at any size.
///
/// # Errors
/// redb errors.
pub(crate) fn discard_table(txn: &WriteTransaction, name: &str) -> Result<(), StorageError> {
    let trash = format!("{TRASH_PREFIX}{}", Uuid::new_v4().simple());
    match txn.rename_table(data_table(name), data_table(&trash)) {
        Ok(()) | Err(redb::TableError::TableDoesNotExist(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// [`delete_runs`], the tables discarded ([`discard_table`]) rather than deleted now.
///
/// # Errors
/// redb errors.
pub(crate) fn discard_runs(txn: &WriteTransaction, runs: &[RunMeta]) -> Result<(), StorageError> {
    let mut discarded = Vec::with_capacity(runs.len());
    for run in runs {
        if !super::pins::is_pinned(txn, run.id)? {
            discard_table(txn, &run_table_name(run.id))?;
            discarded.push(run.id);
        }
    }
    let mut filters = txn.open_table(RUN_FILTERS)?;
    for id in &discarded {
        filters.remove(id.as_bytes().as_slice())?;
    }
    filter::forget(discarded);
    Ok(())
}

/// Whether `table_id` stores no row at all (nor a deletion).
///
/// # Errors
/// redb errors.
pub(crate) fn is_empty(txn: &redb::ReadTransaction, table_id: Uuid) -> Result<bool, StorageError> {
    if !manifest::read(txn, table_id)?.is_empty() {
        return Ok(false);
    }
    match txn.open_table(data_table(&data_table_name(table_id))) {
        Ok(rows) => Ok(rows.first()?.is_none()),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(true),
        Err(e) => Err(e.into()),
    }
}
