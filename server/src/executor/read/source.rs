//! `RowSource`: rows in storage-key order from redb (user tables) or from a sorted in-memory
//! vector (virtual system tables), scanned by [`KeyRange`] in either [`Order`].

use storage::{KeyRange, Order, Snapshot, StoredRow};
use uuid::Uuid;

use crate::error::CqlResult;

/// Rows of one table, stored or generated.
pub(crate) enum RowSource {
    /// A redb snapshot and the table's id.
    Stored(Snapshot, Uuid),
    /// Generated rows, sorted by key.
    Virtual(Vec<(Vec<u8>, StoredRow)>),
}

/// An iterator of rows in key order.
pub(crate) type RowIter<'a> = Box<dyn Iterator<Item = CqlResult<(Vec<u8>, StoredRow)>> + 'a>;

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

    /// Scans `range` in `order`; a one-key range is a point lookup.
    pub(crate) fn scan(&self, range: &KeyRange, order: Order) -> CqlResult<RowIter<'_>> {
        if let Some(key) = range.exact_key() {
            let row = self.get(key)?;
            return Ok(Box::new(row.map(|row| Ok((key.to_vec(), row))).into_iter()));
        }
        match self {
            RowSource::Stored(snapshot, table_id) => {
                let iter = snapshot.scan(*table_id, range, order)?;
                Ok(Box::new(iter.map(|item| item.map_err(Into::into))))
            }
            RowSource::Virtual(rows) => {
                let selected = range
                    .select(rows, |(key, _)| key.as_slice())
                    .iter()
                    .cloned()
                    .map(Ok);
                match order {
                    Order::Forward => Ok(Box::new(selected)),
                    Order::Reverse => Ok(Box::new(selected.rev())),
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
        // The range's side (`exact_key`) is tested with `storage::KeyRange`.
        let key = |n: u8| vec![n];
        let source = RowSource::Virtual(vec![row(1), row(2), row(3)]);
        let found: Vec<_> = source
            .scan(&KeyRange::point(key(2)), Order::Forward)
            .unwrap()
            .map(|item| item.unwrap().0)
            .collect();
        assert_eq!(found, [key(2)]);
        let missing = source
            .scan(&KeyRange::point(key(9)), Order::Reverse)
            .unwrap();
        assert_eq!(missing.count(), 0);
    }
}
