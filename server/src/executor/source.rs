//! `RowSource`: rows in storage-key order from redb (user tables) or from a sorted in-memory
//! vector (virtual system tables), scanned by key range in either direction.

use std::ops::Bound;

use storage::{Snapshot, StoredRow};
use uuid::Uuid;

use crate::error::CqlResult;

/// A key range over storage keys.
pub type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// Rows of one table, stored or generated.
pub enum RowSource {
    /// A redb snapshot and the table's id.
    Stored(Snapshot, Uuid),
    /// Generated rows, sorted by key.
    Virtual(Vec<(Vec<u8>, StoredRow)>),
}

/// An iterator of rows in key order.
pub type RowIter<'a> = Box<dyn Iterator<Item = CqlResult<(Vec<u8>, StoredRow)>> + 'a>;

/// Whether `key` lies in `range`.
pub fn within(key: &[u8], range: &KeyRange) -> bool {
    let above = match &range.0 {
        Bound::Included(lo) => key >= lo.as_slice(),
        Bound::Excluded(lo) => key > lo.as_slice(),
        Bound::Unbounded => true,
    };
    let below = match &range.1 {
        Bound::Included(hi) => key <= hi.as_slice(),
        Bound::Excluded(hi) => key < hi.as_slice(),
        Bound::Unbounded => true,
    };
    above && below
}

impl RowSource {
    /// The range tombstones of the partition with prefix `partition` (none for virtual tables).
    pub fn range_tombstones(&self, partition: &[u8]) -> CqlResult<Vec<storage::RangeTombstone>> {
        match self {
            RowSource::Stored(snapshot, table_id) => {
                Ok(snapshot.range_tombstones(*table_id, partition)?)
            }
            RowSource::Virtual(_) => Ok(Vec::new()),
        }
    }

    /// The row stored under `key`, if any.
    pub fn get(&self, key: &[u8]) -> CqlResult<Option<StoredRow>> {
        match self {
            RowSource::Stored(snapshot, table_id) => Ok(snapshot.get(*table_id, key)?),
            RowSource::Virtual(rows) => Ok(rows
                .binary_search_by(|(k, _)| k.as_slice().cmp(key))
                .ok()
                .map(|i| rows[i].1.clone())),
        }
    }

    /// Scans `range`, backwards when `reverse`.
    pub fn scan(&self, range: KeyRange, reverse: bool) -> CqlResult<RowIter<'_>> {
        match self {
            RowSource::Stored(snapshot, table_id) => {
                let iter = snapshot.scan(*table_id, range, reverse)?;
                Ok(Box::new(iter.map(|item| item.map_err(Into::into))))
            }
            RowSource::Virtual(rows) => {
                let start = rows.partition_point(|(k, _)| match &range.0 {
                    Bound::Included(lo) => k < lo,
                    Bound::Excluded(lo) => k <= lo,
                    Bound::Unbounded => false,
                });
                let selected = rows[start..]
                    .iter()
                    .take_while(move |(k, _)| within(k, &range));
                let owned: Vec<_> = selected.cloned().map(Ok).collect();
                if reverse {
                    Ok(Box::new(owned.into_iter().rev()))
                } else {
                    Ok(Box::new(owned.into_iter()))
                }
            }
        }
    }
}
