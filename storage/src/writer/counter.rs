//! Counter cells: increments applied as deltas inside the writer's transaction, so concurrent
//! increments from any number of connections sum exactly (no read in the server).
//!
//! A counter cell is an ordinary path-less live cell whose value is the running sum as an
//! 8-byte big-endian `bigint` (what a read returns as the `counter` value). Only
//! [`CounterWrite`]s change it:
//! - [`CounterChange::Add`] adds its delta to the live, unshadowed sum (wrapping as Java's
//!   `long` does) and keeps the higher timestamp; with no such sum it starts a new cell
//!   holding the delta. An increment whose own timestamp is shadowed by the row's deletion or
//!   a covering range tombstone is dropped.
//! - [`CounterChange::Delete`] writes a cell tombstone. As in Cassandra
//!   (`Cells.resolveCounter`, CASSANDRA-7346), a counter tombstone beats any counter value
//!   whatever the timestamps, so later increments of a deleted counter column are ignored
//!   until the tombstone is purged: a counter, once deleted, cannot be reused. A row or
//!   partition deletion shadows only what is older, so a later increment starts again from 0.

use std::collections::BTreeMap;

use bytes::Bytes;
use uuid::Uuid;

use crate::catalog::ColumnId;
use crate::encoding::range_tombstone::RangeTombstone;
use crate::encoding::row::Cell;
use crate::encoding::row::CellValue;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;

/// A change to one counter cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterChange {
    /// `c = c + delta` (a decrement is a negative delta).
    Add(i64),
    /// `DELETE c`.
    Delete {
        /// When it was deleted, in seconds since the epoch.
        local_deletion_seconds: i64,
    },
}

/// A change to one counter column of one row, applied after the batch's row writes.
#[derive(Debug, Clone)]
pub struct CounterWrite {
    /// The table's id.
    pub table_id: Uuid,
    /// The row key, built by [`crate::encoding::key`].
    pub key: Vec<u8>,
    /// How many leading bytes of `key` are the partition prefix (token + partition key).
    pub partition_len: usize,
    /// Whether `key` is the partition's static row (range tombstones never cover it).
    pub is_static: bool,
    /// The counter column.
    pub column: ColumnId,
    /// The write timestamp in microseconds.
    pub timestamp: i64,
    /// What to do.
    pub change: CounterChange,
}

/// The stored rows a counter write needs, with the range tombstones of their partitions.
pub(crate) trait CounterSource {
    /// The row under `key`, as it stands before this request.
    fn row(&mut self, table_id: Uuid, key: &[u8]) -> Result<Option<StoredRow>, StorageError>;
    /// The range tombstones of a partition, this request's own included.
    fn tombstones(
        &mut self,
        table_id: Uuid,
        partition: &[u8],
    ) -> Result<Vec<RangeTombstone>, StorageError>;
}

/// Applies `writes` in order to `rows` (the request's merged rows), reading rows not yet
/// there from `source`.
pub(crate) fn apply_all(
    writes: &[CounterWrite],
    rows: &mut BTreeMap<(Uuid, Vec<u8>), StoredRow>,
    source: &mut dyn CounterSource,
) -> Result<(), StorageError> {
    for write in writes {
        let slot = (write.table_id, write.key.clone());
        let mut row = match rows.remove(&slot) {
            Some(row) => row,
            None => source.row(write.table_id, &write.key)?.unwrap_or_default(),
        };
        let range_deleted_at = if write.is_static {
            None
        } else {
            let split = write.partition_len.min(write.key.len());
            let (partition, suffix) = write.key.split_at(split);
            let tombstones = source.tombstones(write.table_id, partition)?;
            RangeTombstone::shadowing(&tombstones, suffix)
        };
        apply(&mut row, write, range_deleted_at)?;
        rows.insert(slot, row);
    }
    Ok(())
}

/// Applies one counter change to `row`; `range_deleted_at` is the highest range tombstone
/// covering the row.
pub(crate) fn apply(
    row: &mut StoredRow,
    write: &CounterWrite,
    range_deleted_at: Option<i64>,
) -> Result<(), StorageError> {
    let deleted_at = row.deletion.map(|d| d.timestamp).max(range_deleted_at);
    let shadowed = |timestamp: i64| deleted_at.is_some_and(|d| timestamp <= d);
    let position = row
        .cells
        .binary_search_by(|(id, cell)| (id, cell.path.is_some()).cmp(&(&write.column, false)));
    let existing = position.ok().map(|i| &row.cells[i].1);
    let cell = match write.change {
        CounterChange::Delete {
            local_deletion_seconds,
        } => {
            let timestamp = match existing {
                Some(old) if old.is_tombstone() => old.timestamp.max(write.timestamp),
                _ => write.timestamp,
            };
            Cell::tombstone(timestamp, local_deletion_seconds)
        }
        CounterChange::Add(delta) => {
            if shadowed(write.timestamp) {
                return Ok(());
            }
            match existing {
                Some(old) if old.is_tombstone() => return Ok(()),
                Some(old) if !shadowed(old.timestamp) => {
                    let sum = counter_value(old)?.wrapping_add(delta);
                    Cell::live(
                        old.timestamp.max(write.timestamp),
                        Bytes::copy_from_slice(&sum.to_be_bytes()),
                    )
                }
                _ => Cell::live(
                    write.timestamp,
                    Bytes::copy_from_slice(&delta.to_be_bytes()),
                ),
            }
        }
    };
    match position {
        Ok(i) => row.cells[i].1 = cell,
        Err(i) => row.cells.insert(i, (write.column, cell)),
    }
    Ok(())
}

fn counter_value(cell: &Cell) -> Result<i64, StorageError> {
    match &cell.value {
        CellValue::Live(bytes) => bytes
            .as_ref()
            .try_into()
            .map(i64::from_be_bytes)
            .map_err(|_| StorageError::corrupt(format!("counter cell of {} bytes", bytes.len()))),
        CellValue::Tombstone { .. } => Err(StorageError::corrupt("counter tombstone has no value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::row::DeletionTime;

    fn write(column: ColumnId, timestamp: i64, change: CounterChange) -> CounterWrite {
        CounterWrite {
            table_id: Uuid::nil(),
            key: vec![1, 2],
            partition_len: 1,
            is_static: false,
            column,
            timestamp,
            change,
        }
    }

    /// Applies `Add(delta)` to `column` at `timestamp`, under range deletion `covered_at`.
    fn add(row: &mut StoredRow, column: u32, timestamp: i64, delta: i64, covered_at: Option<i64>) {
        let change = CounterChange::Add(delta);
        apply(row, &write(ColumnId(column), timestamp, change), covered_at).unwrap();
    }

    fn value(row: &StoredRow, column: ColumnId) -> Option<i64> {
        row.cell(column)
            .filter(|c| !c.is_tombstone())
            .map(|c| counter_value(c).unwrap())
    }

    #[test]
    fn increments_sum_and_keep_the_highest_timestamp() {
        let mut row = StoredRow::default();
        add(&mut row, 3, 10, 5, None);
        add(&mut row, 3, 8, -7, None);
        add(&mut row, 1, 9, 1, None);
        assert_eq!(value(&row, ColumnId(3)), Some(-2));
        assert_eq!(row.cell(ColumnId(3)).unwrap().timestamp, 10);
        assert_eq!(value(&row, ColumnId(1)), Some(1));
        let ids: Vec<ColumnId> = row.cells.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, vec![ColumnId(1), ColumnId(3)]);
    }

    #[test]
    fn sums_wrap_like_java_longs() {
        let mut row = StoredRow::default();
        add(&mut row, 1, 1, i64::MAX, None);
        add(&mut row, 1, 2, 1, None);
        assert_eq!(value(&row, ColumnId(1)), Some(i64::MIN));
    }

    #[test]
    fn a_deleted_counter_ignores_later_increments() {
        let mut row = StoredRow::default();
        add(&mut row, 1, 1, 4, None);
        let delete = CounterChange::Delete {
            local_deletion_seconds: 0,
        };
        apply(&mut row, &write(ColumnId(1), 2, delete), None).unwrap();
        add(&mut row, 1, 3, 1, None);
        assert!(row.cell(ColumnId(1)).unwrap().is_tombstone());
        assert_eq!(value(&row, ColumnId(1)), None);
    }

    #[test]
    fn a_row_deletion_resets_later_increments_and_drops_older_ones() {
        let mut row = StoredRow {
            cells: vec![(
                ColumnId(1),
                Cell::live(5, Bytes::copy_from_slice(&9i64.to_be_bytes())),
            )],
            deletion: Some(DeletionTime {
                timestamp: 6,
                local_deletion_seconds: 0,
            }),
            ..StoredRow::default()
        };
        add(&mut row, 1, 6, 100, None);
        assert_eq!(
            value(&row, ColumnId(1)),
            Some(9),
            "an increment at the deletion is shadowed"
        );
        add(&mut row, 1, 7, 2, None);
        assert_eq!(value(&row, ColumnId(1)), Some(2));
    }

    #[test]
    fn a_range_tombstone_shadows_the_old_sum() {
        let mut row = StoredRow::default();
        add(&mut row, 1, 1, 4, None);
        add(&mut row, 1, 3, 1, Some(2));
        assert_eq!(value(&row, ColumnId(1)), Some(1));
    }

    #[test]
    fn a_corrupt_sum_is_reported() {
        let mut row = StoredRow {
            cells: vec![(ColumnId(1), Cell::live(1, Bytes::from_static(&[1, 2])))],
            ..StoredRow::default()
        };
        let err = apply(
            &mut row,
            &write(ColumnId(1), 2, CounterChange::Add(1)),
            None,
        )
        .unwrap_err();
        assert!(matches!(err, StorageError::Corrupt { .. }), "{err}");
    }
}
