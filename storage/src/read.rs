//! Reads: a [`Snapshot`] is a redb read transaction, a consistent view of every table as of
//! the last commit when it was taken.
//!
//! A snapshot pins the pages it can see, so the server must take it inside one blocking
//! section (`spawn_blocking` or the storage thread) and drop it before any `.await`: never
//! hold a `Snapshot` or a [`RowIter`] across an await point. Long scans are paged instead.

use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use redb::{ReadableDatabase, ReadableTableMetadata, TableError};
use uuid::Uuid;

use crate::db::Store;
use crate::encoding::range_tombstone::{self, RangeTombstone};
use crate::encoding::row::{self, StoredRow};
use crate::error::StorageError;
use crate::read_view::{TableKind, View};
use crate::tables::{data_table, data_table_name, rt_table_name, ReadOnlyDataTable};

/// A key range of a data table: `(start, end)` bounds over encoded row keys.
pub type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

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
    /// The read transaction (shared with the other reads since the last commit); pins one
    /// committed state.
    pub(crate) view: Arc<View>,
    /// The store's rows-read counter.
    rows_read: Arc<AtomicU64>,
}

impl Store {
    /// Takes a read snapshot. Cheap; do not hold it across an `.await`.
    ///
    /// # Errors
    /// A redb error beginning the read transaction.
    pub fn snapshot(&self) -> Result<Snapshot, StorageError> {
        let begin = || Ok(crate::db::current(&self.inner.db)?.begin_read()?);
        Ok(Snapshot {
            view: self.inner.views.view(begin)?,
            rows_read: self.inner.rows_read.clone(),
        })
    }
}

#[cfg(test)]
impl Store {
    /// The raw read transaction, for tests that inspect tables directly.
    pub(crate) fn snapshot_txn(&self) -> redb::ReadTransaction {
        crate::db::current(&self.inner.db)
            .unwrap()
            .begin_read()
            .unwrap()
    }
}

type DataRange = redb::Range<'static, &'static [u8], &'static [u8]>;

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

    /// What table `table_id` holds on disk.
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
        Ok(stats)
    }

    /// The row stored under `key` in table `table_id`, if any.
    ///
    /// # Errors
    /// redb errors, or [`StorageError::Corrupt`] if the stored row does not decode.
    pub fn get(&self, table_id: Uuid, key: &[u8]) -> Result<Option<StoredRow>, StorageError> {
        let Some(table) = self.open(table_id)? else {
            return Ok(None);
        };
        let Some(value) = table.get(key)? else {
            return Ok(None);
        };
        self.rows_read.fetch_add(1, Ordering::Relaxed);
        row::decode(value.value()).map(Some)
    }

    /// Iterates the rows of table `table_id` whose keys fall in `range`, in key order (or
    /// reverse key order). The iterator owns what it needs; it keeps this snapshot's view
    /// alive until dropped.
    ///
    /// # Errors
    /// redb errors opening the range; each item may also fail (redb or
    /// [`StorageError::Corrupt`]).
    pub fn scan(
        &self,
        table_id: Uuid,
        range: KeyRange,
        reverse: bool,
    ) -> Result<RowIter, StorageError> {
        let table = match self.open(table_id)? {
            Some(table) if !is_empty_range(&range) => table,
            _ => return Ok(RowIter::empty(self.rows_read.clone())),
        };
        let (start, end) = range;
        let bounds = (as_slice(&start), as_slice(&end));
        let inner = table.range::<&[u8]>(bounds)?;
        Ok(RowIter {
            inner: Some(inner),
            reverse,
            rows_read: self.rows_read.clone(),
        })
    }
}

fn as_slice(bound: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match bound {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Whether no key can fall in `range` (redb, like `BTreeMap`, must not see start > end).
fn is_empty_range(range: &KeyRange) -> bool {
    match range {
        (Bound::Included(s), Bound::Included(e)) => s > e,
        (Bound::Included(s) | Bound::Excluded(s), Bound::Excluded(e))
        | (Bound::Excluded(s), Bound::Included(e)) => s >= e,
        _ => false,
    }
}

/// Rows of a [`Snapshot::scan`]: `(key, row)` pairs.
pub struct RowIter {
    /// The redb range; `None` for a missing table or an empty range.
    inner: Option<DataRange>,
    /// Whether to iterate from the end.
    reverse: bool,
    /// The store's rows-read counter.
    rows_read: Arc<AtomicU64>,
}

impl RowIter {
    fn empty(rows_read: Arc<AtomicU64>) -> RowIter {
        RowIter {
            inner: None,
            reverse: false,
            rows_read,
        }
    }
}

impl Iterator for RowIter {
    type Item = Result<(Vec<u8>, StoredRow), StorageError>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        let entry = if self.reverse {
            inner.next_back()?
        } else {
            inner.next()?
        };
        self.rows_read.fetch_add(1, Ordering::Relaxed);
        Some(match entry {
            Ok((key, value)) => row::decode(value.value()).map(|row| (key.value().to_vec(), row)),
            Err(e) => Err(e.into()),
        })
    }
}

impl Snapshot {
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
}
