//! A batch's size and spread (`BatchStatement.verifyBatchSize` and `verifyBatchType`):
//! Cassandra warns past `batch_size_warn_threshold` (5 KiB), refuses past
//! `batch_size_fail_threshold` (50 KiB), and warns when an unlogged (or counter) batch covers
//! more than `unlogged_batch_across_partitions_warn_threshold` (10) partitions.
//!
//! The size is Cassandra's data size of the batch's mutations: per cell its timestamp, TTL
//! and local deletion time (16 bytes) plus its value and element path, 12 bytes per row or
//! range deletion; keys and row markers count nothing (so an INSERT of one 743-byte text
//! value weighs 759 bytes, as in Cassandra's own warnings).

use std::collections::{BTreeSet, HashSet};

use cql::statement::ast::BatchKind;
use storage::{CellValue, CounterChange, TableDef, WriteBatch};

use crate::error::{CqlResult, ModifyError};

/// `batch_size_warn_threshold`, in bytes.
pub(crate) const WARN_THRESHOLD: usize = 5 * 1024;
/// `batch_size_fail_threshold`, in bytes.
pub(crate) const FAIL_THRESHOLD: usize = 50 * 1024;
/// `unlogged_batch_across_partitions_warn_threshold`.
pub(crate) const PARTITIONS_WARN_THRESHOLD: usize = 10;

/// Bytes Cassandra counts per cell besides its value and path.
const CELL_OVERHEAD: usize = 16;
/// Bytes of a deletion time.
const DELETION_SIZE: usize = 12;

/// Where in a [`WriteBatch`] one statement's writes begin.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    rows: usize,
    range_tombstones: usize,
    counters: usize,
}

impl Mark {
    /// The current end of `batch`.
    pub(crate) fn of(batch: &WriteBatch) -> Mark {
        Mark {
            rows: batch.rows.len(),
            range_tombstones: batch.range_tombstones.len(),
            counters: batch.counters.len(),
        }
    }
}

/// The size, tables and partitions of a batch, statement by statement.
#[derive(Debug, Default)]
pub(crate) struct Footprint {
    size: usize,
    /// `keyspace.table` names, sorted.
    tables: BTreeSet<String>,
    /// Cassandra's mutations: one per keyspace and partition.
    mutations: HashSet<(String, Vec<u8>)>,
    /// Distinct partition keys (tables aside).
    partitions: HashSet<Vec<u8>>,
}

impl Footprint {
    /// Accounts the writes one statement on `def` added to `batch` since `mark`.
    pub(crate) fn add(&mut self, def: &TableDef, batch: &WriteBatch, mark: Mark) -> CqlResult<()> {
        let mut partitions: Vec<Vec<u8>> = Vec::new();
        for write in &batch.rows[mark.rows..] {
            let decoded = storage::decode_row_key(def, &write.key)?;
            partitions.push(decoded.split(&write.key).0.to_vec());
            let update = &write.update;
            self.size += update.deletion.map_or(0, |_| DELETION_SIZE);
            for (_, cell) in &update.cells {
                let value = match &cell.value {
                    CellValue::Live(v) => v.len(),
                    CellValue::Tombstone { .. } => 0,
                };
                self.size += CELL_OVERHEAD + value + cell.path.as_ref().map_or(0, |p| p.len());
            }
        }
        for write in &batch.range_tombstones[mark.range_tombstones..] {
            partitions.push(write.partition.clone());
            self.size += DELETION_SIZE;
        }
        for write in &batch.counters[mark.counters..] {
            partitions.push(write.key[..write.partition_len.min(write.key.len())].to_vec());
            self.size += CELL_OVERHEAD
                + match write.change {
                    CounterChange::Add(_) => 8,
                    CounterChange::Delete { .. } => 0,
                };
        }
        if !partitions.is_empty() {
            self.tables.insert(format!("{}.{}", def.keyspace, def.name));
        }
        for partition in partitions {
            self.mutations
                .insert((def.keyspace.clone(), partition.clone()));
            self.partitions.insert(partition);
        }
        Ok(())
    }

    /// Cassandra's verdict on the whole batch: the warnings to send, or `Batch too large`.
    pub(crate) fn verdict(&self, kind: BatchKind) -> CqlResult<Vec<String>> {
        let mut warnings = Vec::new();
        if self.mutations.len() <= 1 {
            return Ok(warnings);
        }
        let tables = self.tables_text();
        if self.size > WARN_THRESHOLD {
            if self.size > FAIL_THRESHOLD {
                return Err(ModifyError::BatchTooLarge.into());
            }
            warnings.push(format!(
                "Batch for {tables} is of size {}, exceeding specified threshold of {WARN_THRESHOLD} by {}.",
                self.size,
                self.size - WARN_THRESHOLD
            ));
        }
        if kind != BatchKind::Logged && self.partitions.len() > PARTITIONS_WARN_THRESHOLD {
            warnings.push(format!(
                "Unlogged batch covering {} partitions detected against table{} {tables}. You should use a logged batch for atomicity, or asynchronous writes for performance.",
                self.partitions.len(),
                if self.tables.len() == 1 { "" } else { "s" },
            ));
        }
        Ok(warnings)
    }

    /// The tables as Java prints a set: `[ks.a, ks.b]`.
    fn tables_text(&self) -> String {
        let names: Vec<&str> = self.tables.iter().map(String::as_str).collect();
        format!("[{}]", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use storage::{Cell, RowWrite, StoredRow};

    fn table() -> TableDef {
        crate::planner::select::tests::table_from("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
    }

    fn insert(def: &TableDef, k: i32, len: usize) -> RowWrite {
        let key = storage::row_key(def, &[Bytes::copy_from_slice(&k.to_be_bytes())], &[]).unwrap();
        RowWrite {
            table_id: def.id,
            key,
            update: StoredRow {
                cells: vec![(def.columns[1].id, Cell::live(1, vec![b'x'; len]))],
                ..StoredRow::default()
            },
        }
    }

    fn footprint(def: &TableDef, rows: usize, len: usize) -> Footprint {
        let mut batch = WriteBatch::default();
        let mut footprint = Footprint::default();
        for k in 0..rows {
            let mark = Mark::of(&batch);
            batch.rows.push(insert(def, k as i32, len));
            footprint.add(def, &batch, mark).unwrap();
        }
        footprint
    }

    #[test]
    fn size_warning_matches_cassandras_text() {
        let def = table();
        let warnings = footprint(&def, 10, 743).verdict(BatchKind::Logged).unwrap();
        assert_eq!(
            warnings,
            ["Batch for [ks.t] is of size 7590, exceeding specified threshold of 5120 by 2470."]
        );
    }

    #[test]
    fn one_partition_never_warns_and_too_large_fails() {
        let def = table();
        assert!(footprint(&def, 1, 60_000)
            .verdict(BatchKind::Logged)
            .unwrap()
            .is_empty());
        assert!(footprint(&def, 2, 10)
            .verdict(BatchKind::Logged)
            .unwrap()
            .is_empty());
        let err = footprint(&def, 100, 743)
            .verdict(BatchKind::Logged)
            .unwrap_err();
        assert_eq!(err.to_string(), "Batch too large");
    }

    #[test]
    fn unlogged_batches_over_ten_partitions_warn() {
        let def = table();
        assert!(footprint(&def, 10, 1)
            .verdict(BatchKind::Unlogged)
            .unwrap()
            .is_empty());
        assert_eq!(
            footprint(&def, 11, 1).verdict(BatchKind::Unlogged).unwrap(),
            ["Unlogged batch covering 11 partitions detected against table [ks.t]. You should use a logged batch for atomicity, or asynchronous writes for performance."]
        );
        assert!(footprint(&def, 11, 1)
            .verdict(BatchKind::Logged)
            .unwrap()
            .is_empty());
    }
}
