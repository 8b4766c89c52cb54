//! `RowSource`: rows in storage-key order from redb (user tables) or from a sorted in-memory
//! vector (virtual system tables), scanned by key range in either direction.

use std::ops::Bound;

use storage::{Snapshot, StoredRow};
use uuid::Uuid;

use crate::error::CqlResult;

/// A key range over storage keys.
pub(crate) type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// Rows of one table, stored or generated.
pub(crate) enum RowSource {
    /// A redb snapshot and the table's id.
    Stored(Snapshot, Uuid),
    /// Generated rows, sorted by key.
    Virtual(Vec<(Vec<u8>, StoredRow)>),
}

/// An iterator of rows in key order.
pub(crate) type RowIter<'a> = Box<dyn Iterator<Item = CqlResult<(Vec<u8>, StoredRow)>> + 'a>;

/// Whether `key` lies in `range`.
pub(crate) fn within(key: &[u8], range: &KeyRange) -> bool {
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

/// The key of a range that holds exactly one key (`[k, k]`), read with a point lookup
/// rather than a range scan.
pub(crate) fn exact_key(range: &KeyRange) -> Option<&[u8]> {
    match range {
        (Bound::Included(start), Bound::Included(end)) if start == end => Some(start),
        _ => None,
    }
}

/// The key of a one-key range, or the range itself.
fn into_exact_key(range: KeyRange) -> Result<Vec<u8>, KeyRange> {
    match range {
        (Bound::Included(start), Bound::Included(end)) if start == end => Ok(start),
        range => Err(range),
    }
}

impl RowSource {
    /// The range tombstones of the partition with prefix `partition` (none for virtual tables).
    pub(crate) fn range_tombstones(
        &self,
        partition: &[u8],
    ) -> CqlResult<Vec<storage::RangeTombstone>> {
        match self {
            RowSource::Stored(snapshot, table_id) => {
                Ok(snapshot.range_tombstones(*table_id, partition)?)
            }
            RowSource::Virtual(_) => Ok(Vec::new()),
        }
    }

    /// The row stored under `key`, if any.
    pub(crate) fn get(&self, key: &[u8]) -> CqlResult<Option<StoredRow>> {
        match self {
            RowSource::Stored(snapshot, table_id) => Ok(snapshot.get(*table_id, key)?),
            RowSource::Virtual(rows) => Ok(rows
                .binary_search_by(|(k, _)| k.as_slice().cmp(key))
                .ok()
                .map(|i| rows[i].1.clone())),
        }
    }

    /// Scans `range`, backwards when `reverse`; a one-key range is a point lookup.
    pub(crate) fn scan(&self, range: KeyRange, reverse: bool) -> CqlResult<RowIter<'_>> {
        let range = match into_exact_key(range) {
            Ok(key) => {
                let row = self.get(&key)?;
                return Ok(Box::new(row.map(|row| Ok((key, row))).into_iter()));
            }
            Err(range) => range,
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u8) -> (Vec<u8>, StoredRow) {
        (vec![n], StoredRow::default())
    }

    #[test]
    fn a_one_key_range_is_a_point_lookup() {
        let key = |n: u8| vec![n];
        assert_eq!(
            exact_key(&(Bound::Included(key(2)), Bound::Included(key(2)))),
            Some(&[2u8][..])
        );
        assert_eq!(
            exact_key(&(Bound::Included(key(2)), Bound::Included(key(3)))),
            None
        );
        assert_eq!(
            exact_key(&(Bound::Included(key(2)), Bound::Excluded(key(2)))),
            None
        );
        let source = RowSource::Virtual(vec![row(1), row(2), row(3)]);
        let found: Vec<_> = source
            .scan((Bound::Included(key(2)), Bound::Included(key(2))), false)
            .unwrap()
            .map(|item| item.unwrap().0)
            .collect();
        assert_eq!(found, [key(2)]);
        let missing = source
            .scan((Bound::Included(key(9)), Bound::Included(key(9))), true)
            .unwrap();
        assert_eq!(missing.count(), 0);
    }
}
