//! Reads: a [`Snapshot`] is a redb read transaction, a consistent view of every table as of
//! the last commit when it was taken.
//!
//! A snapshot pins the pages it can see, so the server must take it inside one blocking
//! section (`spawn_blocking` or the storage thread) and drop it before any `.await`: never
//! hold a `Snapshot` or a [`RowIter`] across an await point. Long scans are paged instead.

pub(crate) mod size_estimate;
pub(crate) mod view;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use redb::ReadableDatabase;
use redb::ReadableTableMetadata;
use redb::TableError;
use uuid::Uuid;

use crate::encoding::range_tombstone;
use crate::encoding::range_tombstone::RangeTombstone;
use crate::encoding::row;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::memtable;
use crate::memtable::MemKey;
use crate::memtable::MemRow;
use crate::memtable::MemView;
use crate::range::borrowed;
use crate::range::KeyRange;
use crate::range::Order;
use crate::read::view::TableKind;
use crate::read::view::View;
use crate::runs::merge::Merge;
use crate::runs::merge::Source;
use crate::runs::read::last_block;
use crate::runs::read::RunIter;
use crate::runs::stored::head_entry;
use crate::store::db::Store;
use crate::store::tables::data_table;
use crate::store::tables::data_table_name;
use crate::store::tables::rt_table_name;
use crate::store::tables::ReadOnlyDataTable;

/// How much one CQL table holds on disk (its data and range-tombstone tables).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Stored rows (clustering and static rows).
    pub rows: u64,
    /// Partitions with range tombstones.
    pub tombstoned_partitions: u64,
    /// Bytes of keys and values stored (redb's `stored_bytes`), both tables.
    pub stored_bytes: u64,
}

/// A consistent read view of the store.
pub struct Snapshot {
    /// The memtable as of one group, taken before the view: rows newer than redb's.
    pub(crate) layers: MemView,
    /// The read transaction (shared with the other reads since the last commit); pins one
    /// committed state.
    pub(crate) view: Arc<View>,
    /// The store's rows-read counter.
    rows_read: Arc<AtomicU64>,
    /// The store's merge under way (`run_stats`).
    pub(crate) merges: Arc<crate::runs::progress::MergeTracker>,
}

impl Store {
    /// Takes a read snapshot. Cheap; do not hold it across an `.await`.
    ///
    /// # Errors
    /// A redb error beginning the read transaction.
    pub fn snapshot(&self) -> Result<Snapshot, StorageError> {
        let begin = || Ok(crate::store::slot::current(&self.inner.db)?.begin_read()?);
        // The memtable first, then the view (see `memtable`): a row flushed in between is in
        // both. Both under the gate, which a restore holds while it replaces them.
        let gate = self
            .inner
            .gate
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let layers = self.inner.memtables.view();
        let view = self.inner.views.view(begin);
        drop(gate);
        Ok(Snapshot {
            layers,
            view: view.map_err(StorageError::or_recovering)?,
            rows_read: self.inner.rows_read.clone(),
            merges: self.inner.merges.clone(),
        })
    }
}

#[cfg(test)]
impl Store {
    /// The raw read transaction, for tests that inspect tables directly.
    pub(crate) fn snapshot_txn(&self) -> redb::ReadTransaction {
        crate::store::slot::current(&self.inner.db)
            .unwrap()
            .begin_read()
            .unwrap()
    }
}

impl Snapshot {
    /// The range tombstones of one partition (empty when it has none).
    ///
    /// # Errors
    /// redb errors, or `Corrupt` for an undecodable value.
    pub fn range_tombstones(
        &self,
        table_id: Uuid,
        partition: &[u8],
    ) -> Result<Vec<RangeTombstone>, StorageError> {
        let Some(table) = self.view.table(TableKind::RangeTombstones, table_id)? else {
            return Ok(Vec::new());
        };
        match table.get(partition)? {
            Some(value) => range_tombstone::decode(value.value()),
            None => Ok(Vec::new()),
        }
    }

    /// The data table; `None` when created but never written (or truncated): reads as empty.
    fn open(&self, table_id: Uuid) -> Result<Option<Arc<ReadOnlyDataTable>>, StorageError> {
        self.view.table(TableKind::Data, table_id)
    }

    /// What table `table_id` holds: on disk, and in the memtable as if stored.
    ///
    /// # Errors
    /// redb errors.
    pub fn table_stats(&self, table_id: Uuid) -> Result<TableStats, StorageError> {
        let mut stats = TableStats::default();
        for (name, is_data) in [
            (data_table_name(table_id), true),
            (rt_table_name(table_id), false),
        ] {
            let table = match self.view.txn.open_table(data_table(&name)) {
                Ok(table) => table,
                Err(TableError::TableDoesNotExist(_)) => continue,
                Err(e) => return Err(e.into()),
            };
            let count = table.len()?;
            if is_data {
                stats.rows = count;
            } else {
                stats.tombstoned_partitions = count;
            }
            stats.stored_bytes += table.stats()?.stored_bytes();
        }
        // A run's rows that a newer run or the head replaces are counted once per version.
        for run in self.view.runs(table_id)?.iter() {
            stats.rows += run.meta.rows - run.meta.deletions;
            stats.stored_bytes += run.meta.bytes;
        }
        self.add_memtable_stats(table_id, &mut stats)?;
        Ok(stats)
    }

    /// Counts the memtable's rows of `table_id` as if they were stored: the rows it adds or
    /// removes and the bytes it changes.
    fn add_memtable_stats(
        &self,
        table_id: Uuid,
        stats: &mut TableStats,
    ) -> Result<(), StorageError> {
        // Sums need no order: the rows as this view sees them, without sorting a layer.
        let Some(entries) = self.layers.visible_rows(table_id) else {
            return Ok(());
        };
        for (key, row) in entries {
            let old = self.view.stored(table_id, &key)?.map(|v| v.len() as u64);
            let new = row.map(|r| r.len() as u64);
            let key_len = key.len() as u64;
            match (old, new) {
                (None, Some(n)) => {
                    stats.rows += 1;
                    stats.stored_bytes += key_len + n;
                }
                (Some(o), None) => {
                    stats.rows = stats.rows.saturating_sub(1);
                    stats.stored_bytes = stats.stored_bytes.saturating_sub(key_len + o);
                }
                (Some(o), Some(n)) => {
                    stats.stored_bytes = (stats.stored_bytes + n).saturating_sub(o);
                }
                (None, None) => {}
            }
        }
        Ok(())
    }

    /// The row stored under `key` in table `table_id`, if any.
    ///
    /// # Errors
    /// redb errors, or [`StorageError::Corrupt`] if the stored row does not decode.
    pub fn get(&self, table_id: Uuid, key: &[u8]) -> Result<Option<StoredRow>, StorageError> {
        self.get_row(table_id, key)
            .map_err(|e| e.reading(table_id, Some(key)))
    }

    fn get_row(&self, table_id: Uuid, key: &[u8]) -> Result<Option<StoredRow>, StorageError> {
        if let Some(entry) = self.layers.get(table_id, key) {
            let Some(value) = entry else { return Ok(None) };
            self.rows_read.fetch_add(1, Ordering::Relaxed);
            return row::decode_shared(&value).map(Some);
        }
        let Some(value) = self.view.stored(table_id, key)? else {
            return Ok(None);
        };
        self.rows_read.fetch_add(1, Ordering::Relaxed);
        value.decode().map(Some)
    }

    /// Iterates the rows of table `table_id` whose keys fall in `range`, in key order
    /// ([`Order::Forward`]) or reverse key order. The iterator owns what it needs (nothing
    /// of `range`); it keeps this snapshot's view alive until dropped.
    ///
    /// # Errors
    /// redb errors opening the range; each item may also fail (redb or
    /// [`StorageError::Corrupt`]).
    pub fn scan(
        &self,
        table_id: Uuid,
        range: &KeyRange,
        order: Order,
    ) -> Result<RowIter, StorageError> {
        self.scan_rows(table_id, range, order)
            .map_err(|e| e.reading(table_id, None))
    }

    fn scan_rows(
        &self,
        table_id: Uuid,
        range: &KeyRange,
        order: Order,
    ) -> Result<RowIter, StorageError> {
        if range.is_empty() {
            return Ok(RowIter::empty(table_id, self.rows_read.clone()));
        }
        let mem = memtable::scan(&self.layers, table_id, range, order);
        let reverse = order.is_reverse();
        let (start, end) = range.bounds();
        let mut sources: Vec<Source<'static>> = Vec::new();
        if let Some(table) = self.open(table_id)? {
            let head = table.range::<&[u8]>((start, end))?.map(|entry| {
                let (key, value) = entry?;
                Ok(head_entry(key.value(), value.value()))
            });
            if reverse {
                sources.push(Box::new(head.rev()));
            } else {
                sources.push(Box::new(head));
            }
        }
        for run in self.view.runs(table_id)?.iter() {
            if !run.meta.overlaps(start, end) {
                continue;
            }
            let (start, end) = run.meta.clip(start, end);
            let last = last_block(&run.table, end)?;
            let blocks = run
                .table
                .range::<&[u8]>((start, last.as_ref().map(Vec::as_slice)))?;
            sources.push(Box::new(RunIter::over(blocks, start, end, reverse)));
        }
        let stored = (!sources.is_empty()).then(|| Merge::new(sources, reverse, false));
        Ok(RowIter {
            table_id,
            stored,
            mem: mem.map(Iterator::peekable),
            next_stored: None,
            reverse,
            rows_read: self.rows_read.clone(),
        })
    }
}

/// A stored row not yet returned: its key and undecoded value.
type StoredEntry = (Vec<u8>, bytes::Bytes);

/// Memtable entries of a scan, newest layer first.
type MemEntries = std::iter::Peekable<Box<dyn Iterator<Item = (MemKey, MemRow)> + Send>>;

/// Rows of a [`Snapshot::scan`]: `(key, row)` pairs, the memtable's merged over the stored
/// ones (the head's over the runs').
pub struct RowIter {
    /// The table read (named by a damaged page's error).
    table_id: Uuid,
    /// The stored rows in range; `None` for a table with none or an empty range.
    stored: Option<Merge<'static>>,
    /// The memtable's entries in the range; `None` when it holds none of the table.
    mem: Option<MemEntries>,
    /// The next stored row, read ahead to compare with the memtable's next.
    next_stored: Option<StoredEntry>,
    /// Whether to iterate from the end.
    reverse: bool,
    /// The store's rows-read counter.
    rows_read: Arc<AtomicU64>,
}

impl RowIter {
    fn empty(table_id: Uuid, rows_read: Arc<AtomicU64>) -> RowIter {
        RowIter {
            table_id,
            stored: None,
            mem: None,
            next_stored: None,
            reverse: false,
            rows_read,
        }
    }

    /// Reads the next stored row ahead, unless one is waiting.
    fn fill_stored(&mut self) -> Result<(), StorageError> {
        if self.next_stored.is_some() {
            return Ok(());
        }
        let Some(stored) = self.stored.as_mut() else {
            return Ok(());
        };
        match stored.next().transpose()? {
            Some((key, Some(value))) => self.next_stored = Some((key, value)),
            // Deletions are not returned by a merge that drops them.
            Some((_, None)) => {}
            None => self.stored = None,
        }
        Ok(())
    }

    /// Whether the memtable's next entry comes before (or at) the next stored row.
    fn mem_first(&mut self) -> Option<bool> {
        let mem_key = self.mem.as_mut().and_then(|m| m.peek()).map(|(k, _)| k);
        match (mem_key, &self.next_stored) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (Some(m), Some((s, _))) if self.reverse => Some(**m >= **s),
            (Some(m), Some((s, _))) => Some(**m <= **s),
        }
    }

    /// A decoded row returned, counted as read.
    fn counted(
        &self,
        key: Vec<u8>,
        row: Result<StoredRow, StorageError>,
    ) -> Result<(Vec<u8>, StoredRow), StorageError> {
        self.rows_read.fetch_add(1, Ordering::Relaxed);
        row.map(|row| (key, row))
    }
}

impl Iterator for RowIter {
    type Item = Result<(Vec<u8>, StoredRow), StorageError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Err(e) = self.fill_stored() {
                return Some(Err(e.reading(self.table_id, None)));
            }
            if self.mem_first()? {
                let (key, value) = self.mem.as_mut()?.next()?;
                if self.next_stored.as_ref().is_some_and(|(s, _)| **s == *key) {
                    // The memtable's version replaces the stored one.
                    self.next_stored = None;
                }
                match value {
                    Some(value) => {
                        return Some(self.counted(key.to_vec(), row::decode_shared(&value)))
                    }
                    None => continue,
                }
            }
            let (key, value) = self.next_stored.take()?;
            return Some(self.counted(key, row::decode_shared(&value)));
        }
    }
}

impl Snapshot {
    /// Every entry key of the index `index_id` (indexed value components, then the base row
    /// key; see [`crate::index::split_entry`]), in entry order. Not checked against the base
    /// table.
    ///
    /// # Errors
    /// redb errors.
    pub fn index_all_entries(&self, index_id: Uuid) -> Result<Vec<Vec<u8>>, StorageError> {
        let name = crate::index::index_table_name(index_id);
        let table = match self.view.txn.open_table(data_table(&name)) {
            Ok(table) => table,
            Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut keys = Vec::new();
        for entry in table.range::<&[u8]>(..)? {
            let (key, _) = entry?;
            keys.push(key.value().to_vec());
        }
        Ok(keys)
    }

    /// The base row keys of the index `index_id` entries that start with `prefix` (see
    /// [`crate::index::lookup_prefix`]), in entry order: token, partition key, clustering.
    /// Entries are not checked against the base table; callers must re-check each row.
    ///
    /// # Errors
    /// redb errors.
    pub fn index_entries(
        &self,
        index_id: Uuid,
        prefix: &[u8],
    ) -> Result<Vec<Vec<u8>>, StorageError> {
        let name = crate::index::index_table_name(index_id);
        let table = match self.view.txn.open_table(data_table(&name)) {
            Ok(table) => table,
            Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let end = crate::encoding::key::prefix_end(prefix);
        let range = match &end {
            Some(end) => table.range::<&[u8]>(prefix..end.as_slice())?,
            None => table.range::<&[u8]>(prefix..)?,
        };
        let mut keys = Vec::new();
        for entry in range {
            let (key, _) = entry?;
            if let Some(base) = key.value().get(prefix.len()..) {
                keys.push(base.to_vec());
            }
        }
        Ok(keys)
    }

    /// The base row keys of the index `index_id` entries whose value lies in `range` (entry
    /// key bounds from [`crate::index::TermKeying::range`]), in base key order (token,
    /// partition key, clustering), each once. Unchecked against the base table, as
    /// [`Snapshot::index_entries`].
    ///
    /// # Errors
    /// redb errors; a malformed entry.
    pub fn index_entries_in(
        &self,
        index_id: Uuid,
        keying: &crate::index::TermKeying,
        range: &crate::index::EntryRange,
    ) -> Result<Vec<Vec<u8>>, StorageError> {
        let name = crate::index::index_table_name(index_id);
        let table = match self.view.txn.open_table(data_table(&name)) {
            Ok(table) => table,
            Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let value_ty = keying.typed()?.unwrap_or(cql::types::ColumnType::Blob);
        let mut keys = Vec::new();
        let bounds = (borrowed(&range.0), borrowed(&range.1));
        for entry in table.range::<&[u8]>(bounds)? {
            let (key, _) = entry?;
            let key = key.value();
            let len = crate::encoding::key::component_len(&value_ty, key)?;
            if let Some(base) = key.get(len..) {
                keys.push(base.to_vec());
            }
        }
        keys.sort_unstable();
        keys.dedup();
        Ok(keys)
    }
}
