//! Purging: the single-node equivalent of what Cassandra's compaction does to dead data.
//!
//! A purge pass walks one table's rows in key order, a bounded chunk per write transaction
//! (so writers never wait long), and rewrites each row as of `now`:
//! - data shadowed by the row's deletion or by a covering range tombstone is dropped;
//! - an expired cell becomes a tombstone whose local deletion time is its write time
//!   (`expires_at - ttl`, as Cassandra's `BufferCell.purge` converts it), so its value's
//!   space comes back at once;
//! - tombstones, row deletions and expired row markers whose local deletion time is older
//!   than `gc_grace_seconds` are dropped (Cassandra's `gcBefore` rule), and a row left with
//!   nothing is removed.
//!
//! Index entries of every value a purge drops go in the same transaction.
//!
//! Range tombstones are purged by the last chunk of a pass, once every row they cover has been
//! rewritten. Like Cassandra after `gc_grace_seconds`, a write older than a purged tombstone
//! is no longer shadowed by it.

use std::ops::Bound;

use redb::ReadableTable;
use redb::ReadableTableMetadata;
use redb::TableError;
use redb::WriteTransaction;
use uuid::Uuid;

use crate::catalog::TableDef;
use crate::encoding::key::decode_row_key;
use crate::encoding::range_tombstone;
use crate::encoding::range_tombstone::RangeTombstone;
use crate::encoding::row;
use crate::encoding::row::Cell;
use crate::encoding::row::CellValue;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::hash::fast::TableIds;
use crate::index::IndexChanges;
use crate::index::IndexPlan;
use crate::runs::manifest;
use crate::runs::manifest::RunMeta;
use crate::runs::stored::for_each_over;
use crate::runs::stored::Head;
use crate::store::tables::data_table;
use crate::store::tables::rt_table_name;
use crate::store::tables::stored_range_tombstones;

/// One chunk of a purge pass over a table.
#[derive(Debug, Clone)]
pub struct PurgeRequest {
    /// The table (its key layout and `gc_grace_seconds`).
    pub table: TableDef,
    /// The time the purge runs at, in seconds since the epoch.
    pub now_seconds: i64,
    /// Where the previous chunk stopped (exclusive); `None` starts the pass.
    pub resume_after: Option<Vec<u8>>,
    /// The most rows this chunk examines.
    pub max_rows: usize,
}

/// What one chunk did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PurgeProgress {
    /// Rows read.
    pub rows_examined: u64,
    /// Rows written back smaller.
    pub rows_rewritten: u64,
    /// Rows removed because nothing was left of them.
    pub rows_removed: u64,
    /// Range tombstones dropped (last chunk only).
    pub range_tombstones_removed: u64,
    /// Where the next chunk starts; `None` when the pass is complete.
    pub resume_after: Option<Vec<u8>>,
}

/// Runs one chunk of a purge pass in `txn`; also returns the index entries it removed.
pub(crate) fn purge_chunk(
    txn: &WriteTransaction,
    live_tables: &TableIds,
    request: &PurgeRequest,
) -> Result<(PurgeProgress, IndexChanges), StorageError> {
    let table_id = request.table.id;
    if !live_tables.contains(&table_id) {
        return Err(StorageError::UnknownTable { id: table_id });
    }
    let gc_before = request.now_seconds - i64::from(request.table.params.gc_grace_seconds);
    let mut progress = PurgeProgress::default();
    let chunk = read_chunk(txn, table_id, request)?;
    let mut partition: (Vec<u8>, Vec<RangeTombstone>) = (Vec::new(), Vec::new());
    // Dropped values leave their index entries in the same transaction.
    let mut index = IndexPlan::default();
    // Opened at the first change, so a pass that changes nothing writes nothing.
    let mut data: Option<Head<'_>> = None;
    for (key, value) in &chunk {
        progress.rows_examined += 1;
        let decoded = decode_row_key(&request.table, key)?;
        let prefix = key.get(..decoded.partition_len).unwrap_or(key);
        if partition.0 != prefix {
            partition = (
                prefix.to_vec(),
                stored_range_tombstones(txn, table_id, prefix)?,
            );
        }
        let is_static = decoded.clustering.len() < request.table.clustering_key.len();
        let covered_at = if is_static {
            None
        } else {
            let suffix = key.get(decoded.partition_len..).unwrap_or_default();
            RangeTombstone::shadowing(&partition.1, suffix)
        };
        let stored = row::decode(value)?;
        let purged = purge_row(stored.clone(), covered_at, request.now_seconds, gc_before);
        if purged == stored {
            continue;
        }
        let remaining = (!purged.is_empty()).then_some(&purged);
        index.row_changed(txn, table_id, key, Some(&stored), remaining)?;
        let table = match &mut data {
            Some(table) => table,
            slot => slot.insert(Head::open(txn, table_id)?),
        };
        if purged.is_empty() {
            table.put(key, None)?;
            progress.rows_removed += 1;
        } else {
            table.put(key, Some(row::encode(&purged).as_slice()))?;
            progress.rows_rewritten += 1;
        }
    }
    drop(data);
    crate::runs::stored::seal_large_head(txn, table_id)?;
    let changes = index.write(txn)?;
    if chunk.len() < request.max_rows {
        progress.range_tombstones_removed = purge_range_tombstones(txn, table_id, gc_before)?;
    } else {
        progress.resume_after = chunk.last().map(|(key, _)| key.clone());
    }
    Ok((progress, changes))
}

/// Whether a purge as of `request` could change a row of `runs`: one of them holds something
/// due (see `PurgeTimes`), or the table has range tombstones (which shadow rows of any run).
/// When none can, a chunk reads the table's head alone and a pass costs what the head holds,
/// not what the table does. A range tombstone written during a pass is newer than the pass's
/// `now_seconds`, so its last chunk never drops it over rows a head-only chunk left out.
fn runs_may_change(
    txn: &WriteTransaction,
    request: &PurgeRequest,
    runs: &[RunMeta],
) -> Result<bool, StorageError> {
    let gc_grace = request.table.params.gc_grace_seconds;
    if runs
        .iter()
        .any(|run| run.purge.due(request.now_seconds, gc_grace))
    {
        return Ok(true);
    }
    if runs.is_empty() {
        return Ok(false);
    }
    match txn.open_table(data_table(&rt_table_name(request.table.id))) {
        Ok(table) => Ok(!table.is_empty()?),
        Err(TableError::TableDoesNotExist(_)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// A stored row's key and encoded value.
type RawRow = (Vec<u8>, Vec<u8>);

/// Up to `max_rows` rows after `resume_after`, copied out so the table can be written.
fn read_chunk(
    txn: &WriteTransaction,
    table_id: Uuid,
    request: &PurgeRequest,
) -> Result<Vec<RawRow>, StorageError> {
    let start = match &request.resume_after {
        Some(key) => Bound::Excluded(key.as_slice()),
        None => Bound::Unbounded,
    };
    let runs = manifest::read_in(txn, table_id)?;
    let runs = if runs_may_change(txn, request, &runs)? {
        runs
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    for_each_over(
        txn,
        table_id,
        &runs,
        start,
        Bound::Unbounded,
        |key, value| {
            if out.len() >= request.max_rows {
                return Ok(false);
            }
            out.push((key.to_vec(), value.to_vec()));
            Ok(true)
        },
    )?;
    Ok(out)
}

/// Drops every range tombstone deleted before `gc_before`; returns how many.
fn purge_range_tombstones(
    txn: &WriteTransaction,
    table_id: Uuid,
    gc_before: i64,
) -> Result<u64, StorageError> {
    let name = rt_table_name(table_id);
    let mut table = match txn.open_table(data_table(&name)) {
        Ok(table) => table,
        Err(TableError::TableDoesNotExist(_)) => return Ok(0),
        Err(e) => return Err(e.into()),
    };
    let mut changes = Vec::new();
    for entry in table.iter()? {
        let (key, value) = entry?;
        let list = range_tombstone::decode(value.value())?;
        let before = list.len();
        let kept: Vec<RangeTombstone> = list
            .into_iter()
            .filter(|t| t.deletion.local_deletion_seconds >= gc_before)
            .collect();
        if kept.len() != before {
            changes.push((key.value().to_vec(), kept, before));
        }
    }
    let mut removed = 0;
    for (key, kept, before) in changes {
        removed += (before - kept.len()) as u64;
        if kept.is_empty() {
            table.remove(key.as_slice())?;
        } else {
            table.insert(key.as_slice(), range_tombstone::encode(&kept).as_slice())?;
        }
    }
    Ok(removed)
}

/// `row` as of `now_seconds`: without what `covered_at` (a covering range deletion's
/// timestamp) or its own deletion shadows, with expired cells turned into tombstones, and
/// without tombstones deleted before `gc_before`.
pub(crate) fn purge_row(
    row: StoredRow,
    covered_at: Option<i64>,
    now_seconds: i64,
    gc_before: i64,
) -> StoredRow {
    let deleted_at = row.deletion.map(|d| d.timestamp).max(covered_at);
    let shadowed = |timestamp: i64| deleted_at.is_some_and(|d| timestamp <= d);
    let liveness = row.liveness.filter(|l| {
        let gone = l.ttl.is_some_and(|e| {
            e.expires_at_seconds <= now_seconds
                && e.expires_at_seconds - i64::from(e.ttl_seconds) < gc_before
        });
        !shadowed(l.timestamp) && !gone
    });
    let cells = row
        .cells
        .into_iter()
        .filter(|(_, cell)| !shadowed(cell.timestamp))
        .map(|(id, cell)| (id, expire(cell, now_seconds)))
        .filter(|(_, cell)| match cell.value {
            CellValue::Tombstone {
                local_deletion_seconds,
            } => local_deletion_seconds >= gc_before,
            CellValue::Live(_) => true,
        })
        .collect();
    let deletion = row
        .deletion
        .filter(|d| d.local_deletion_seconds >= gc_before);
    StoredRow {
        liveness,
        deletion,
        cells,
    }
}

/// An expired cell becomes a tombstone deleted when it was written.
fn expire(cell: Cell, now_seconds: i64) -> Cell {
    match cell.expiry {
        Some(e) if e.expires_at_seconds <= now_seconds && !cell.is_tombstone() => Cell {
            timestamp: cell.timestamp,
            expiry: None,
            path: cell.path,
            value: CellValue::Tombstone {
                local_deletion_seconds: e.expires_at_seconds - i64::from(e.ttl_seconds),
            },
        },
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ColumnId;
    use crate::encoding::row::DeletionTime;
    use crate::encoding::row::Expiry;
    use crate::encoding::row::Liveness;

    const NOW: i64 = 1_000_000;

    fn expiring(timestamp: i64, ttl: u32, expires_at: i64) -> Cell {
        Cell {
            expiry: Some(Expiry {
                ttl_seconds: ttl,
                expires_at_seconds: expires_at,
            }),
            ..Cell::live(timestamp, vec![1u8])
        }
    }

    #[test]
    fn expired_cell_becomes_tombstone_until_gc_grace_passes() {
        let row = StoredRow {
            liveness: None,
            deletion: None,
            cells: vec![(ColumnId(1), expiring(5, 10, NOW - 1))],
        };
        // Written at NOW - 11: kept as a tombstone while gc_grace (100 s) has not passed.
        let kept = purge_row(row.clone(), None, NOW, NOW - 100);
        assert_eq!(kept.cells.len(), 1);
        assert_eq!(
            kept.cells[0].1.value,
            CellValue::Tombstone {
                local_deletion_seconds: NOW - 11
            }
        );
        assert!(kept.cells[0].1.expiry.is_none());
        // With gc_grace 0 it goes entirely.
        assert!(purge_row(row, None, NOW, NOW).is_empty());
    }

    #[test]
    fn live_cells_and_unexpired_ttls_are_untouched() {
        let row = StoredRow {
            liveness: Some(Liveness {
                timestamp: 3,
                ttl: None,
            }),
            deletion: None,
            cells: vec![
                (ColumnId(1), Cell::live(5, vec![7u8])),
                (ColumnId(2), expiring(5, 10, NOW + 1)),
            ],
        };
        assert_eq!(purge_row(row.clone(), None, NOW, NOW), row);
    }

    #[test]
    fn range_deletion_drops_covered_data_and_old_tombstones_go() {
        let row = StoredRow {
            liveness: Some(Liveness {
                timestamp: 3,
                ttl: None,
            }),
            deletion: Some(DeletionTime {
                timestamp: 2,
                local_deletion_seconds: NOW - 50,
            }),
            cells: vec![
                (ColumnId(1), Cell::live(4, vec![7u8])),
                (ColumnId(2), Cell::live(9, vec![8u8])),
                (ColumnId(3), Cell::tombstone(9, NOW - 5)),
            ],
        };
        let purged = purge_row(row, Some(4), NOW, NOW - 10);
        // The marker (3) and cell 1 (4) are under the range deletion at 4; the row deletion
        // (50 s old) and nothing newer than gc_before = NOW - 10 is dropped.
        assert_eq!(purged.liveness, None);
        assert_eq!(purged.deletion, None);
        assert_eq!(
            purged.cells,
            vec![
                (ColumnId(2), Cell::live(9, vec![8u8])),
                (ColumnId(3), Cell::tombstone(9, NOW - 5)),
            ]
        );
    }

    #[test]
    fn expired_marker_goes_after_gc_grace() {
        let row = StoredRow {
            liveness: Some(Liveness {
                timestamp: 3,
                ttl: Some(Expiry {
                    ttl_seconds: 10,
                    expires_at_seconds: NOW - 1,
                }),
            }),
            deletion: None,
            cells: Vec::new(),
        };
        assert_eq!(purge_row(row.clone(), None, NOW, NOW - 100), row);
        assert!(purge_row(row, None, NOW, NOW).is_empty());
    }
}
