//! A batch's size and spread (`BatchStatement.verifyBatchSize` and `verifyBatchType`):
//! Cassandra warns past `batch_size_warn_threshold` (5 KiB), refuses past
//! `batch_size_fail_threshold` (50 KiB), and warns when an unlogged (or counter) batch covers
//! more than `unlogged_batch_across_partitions_warn_threshold` (10) partitions.
//!
//! The size is Cassandra 5.0's data size of the batch's mutations (`IMutation.dataSize`, the
//! sum of `PartitionUpdate.dataSize()`): per partition update 8 bytes (its deletion's
//! timestamp, deleted or not); per row its clustering values, 8 for a row marker (20 with a
//! TTL) and 12 for a row deletion; per cell its timestamp, TTL and local deletion time (20
//! bytes: 5.0's deletion time is a `long`) plus its value and element path (a counter
//! update's value is its 36-byte context); per range deletion 12 bytes, and 4 for the
//! partition's range count. Partition keys count nothing. So the Python driver's 214 rows of
//! `(k int, v0 int, v1 int)` in 214 partitions weigh 214 × (8 + 4 + 8 + 24) = 9,416 bytes and
//! warn. Range deletions' bounds are not counted (ours are encoded differently).

use std::collections::{BTreeSet, HashSet};

use cql::statement::ast::BatchKind;
use storage::{CellValue, CounterChange, Liveness, TableDef, WriteBatch};
use uuid::Uuid;

use crate::config::BatchThresholds;
use crate::error::{CqlResult, ModifyError};

/// `unlogged_batch_across_partitions_warn_threshold`.
pub(crate) const PARTITIONS_WARN_THRESHOLD: usize = 10;

/// Bytes Cassandra counts per cell besides its value and path (`AbstractCell.dataSize`).
const CELL_OVERHEAD: usize = 20;
/// Bytes of a deletion time (`DeletionTime.dataSize`).
const DELETION_SIZE: usize = 12;
/// Bytes of a partition update's own deletion (`MutableDeletionInfo.dataSize`).
const PARTITION_DELETION_SIZE: usize = 8;
/// Bytes of a partition update's range count, when it has ranges.
const RANGE_COUNT_SIZE: usize = 4;
/// Bytes of a counter update's value (`CounterContext.createUpdate`: one local shard).
const COUNTER_UPDATE_SIZE: usize = 36;

/// `LivenessInfo.dataSize`: the timestamp, and the TTL and expiration time if expiring.
fn liveness_size(liveness: &Liveness) -> usize {
    8 + liveness.ttl.map_or(0, |_| 12)
}

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
    /// Cassandra's partition updates: one per table and partition.
    updates: HashSet<(Uuid, Vec<u8>)>,
    /// Partition updates holding range deletions.
    ranged: HashSet<(Uuid, Vec<u8>)>,
    /// Rows already counted (two statements on one row make one row in Cassandra).
    rows: HashSet<(Uuid, Vec<u8>)>,
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
            if self.rows.insert((def.id, write.key.clone())) {
                self.size += decoded.clustering.iter().map(|c| c.len()).sum::<usize>();
            }
            let update = &write.update;
            self.size += update.liveness.as_ref().map_or(0, liveness_size);
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
            if self.ranged.insert((def.id, write.partition.clone())) {
                self.size += RANGE_COUNT_SIZE;
            }
            self.size += DELETION_SIZE;
        }
        for write in &batch.counters[mark.counters..] {
            partitions.push(write.key[..write.partition_len.min(write.key.len())].to_vec());
            self.size += CELL_OVERHEAD
                + match write.change {
                    CounterChange::Add(_) => COUNTER_UPDATE_SIZE,
                    CounterChange::Delete { .. } => 0,
                };
        }
        if !partitions.is_empty() {
            self.tables.insert(format!("{}.{}", def.keyspace, def.name));
        }
        for partition in partitions {
            if self.updates.insert((def.id, partition.clone())) {
                self.size += PARTITION_DELETION_SIZE;
            }
            self.mutations
                .insert((def.keyspace.clone(), partition.clone()));
            self.partitions.insert(partition);
        }
        Ok(())
    }

    /// Cassandra's verdict on the whole batch: the warnings to send, or `Batch too large`.
    pub(crate) fn verdict(
        &self,
        kind: BatchKind,
        thresholds: &BatchThresholds,
    ) -> CqlResult<Vec<String>> {
        let mut warnings = Vec::new();
        if self.mutations.len() <= 1 {
            return Ok(warnings);
        }
        let tables = self.tables_text();
        let warn = thresholds.warn;
        if self.size > warn {
            if self.size > thresholds.fail {
                return Err(ModifyError::BatchTooLarge.into());
            }
            warnings.push(format!(
                "Batch for {tables} is of size {}, exceeding specified threshold of {warn} by {}.",
                self.size,
                self.size - warn
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

    /// The Python driver's `test_client_warnings` table.
    fn clustered() -> TableDef {
        crate::planner::select::tests::table_from(
            "CREATE TABLE ks.c (k int, v0 int, v1 int, PRIMARY KEY (k, v0))",
        )
    }

    fn int(v: i32) -> Bytes {
        Bytes::copy_from_slice(&v.to_be_bytes())
    }

    /// An UPDATE of `v` to a `len`-byte text (no row marker).
    fn update(def: &TableDef, k: i32, len: usize) -> RowWrite {
        let key = storage::row_key(def, &[int(k)], &[]).unwrap();
        RowWrite {
            table_id: def.id,
            key,
            update: StoredRow {
                cells: vec![(def.columns[1].id, Cell::live(1, vec![b'x'; len]))],
                ..StoredRow::default()
            },
        }
    }

    /// `INSERT INTO c (k, v0, v1) VALUES (k, k, 1)`: a row marker, a clustering value, a cell.
    fn insert(def: &TableDef, k: i32) -> RowWrite {
        let key = storage::row_key(def, &[int(k)], &[int(k)]).unwrap();
        let v1 = def.columns.iter().find(|c| c.name == "v1").unwrap().id;
        RowWrite {
            table_id: def.id,
            key,
            update: StoredRow {
                liveness: Some(Liveness {
                    timestamp: 1,
                    ttl: None,
                }),
                cells: vec![(v1, Cell::live(1, int(1).to_vec()))],
                ..StoredRow::default()
            },
        }
    }

    fn footprint(def: &TableDef, rows: usize, write: impl Fn(i32) -> RowWrite) -> Footprint {
        let mut batch = WriteBatch::default();
        let mut footprint = Footprint::default();
        for k in 0..rows {
            let mark = Mark::of(&batch);
            batch.rows.push(write(k as i32));
            footprint.add(def, &batch, mark).unwrap();
        }
        footprint
    }

    #[test]
    fn size_warning_counts_as_cassandra_5_and_matches_its_text() {
        let def = clustered();
        // 8 (partition update) + 4 (v0) + 8 (row marker) + 20 + 4 (v1) = 44 a row.
        let warnings = footprint(&def, 214, |k| insert(&def, k))
            .verdict(BatchKind::Logged, &BatchThresholds::default())
            .unwrap();
        assert_eq!(
            warnings,
            ["Batch for [ks.c] is of size 9416, exceeding specified threshold of 5120 by 4296."]
        );
        let below = footprint(&def, 116, |k| insert(&def, k));
        assert_eq!(below.size, 5104);
        assert!(below
            .verdict(BatchKind::Logged, &BatchThresholds::default())
            .unwrap()
            .is_empty());
        let text = table();
        assert_eq!(footprint(&text, 10, |k| update(&text, k, 743)).size, 7710);
    }

    #[test]
    fn one_partition_never_warns_and_too_large_fails() {
        let def = table();
        assert!(footprint(&def, 1, |k| update(&def, k, 60_000))
            .verdict(BatchKind::Logged, &BatchThresholds::default())
            .unwrap()
            .is_empty());
        assert!(footprint(&def, 2, |k| update(&def, k, 10))
            .verdict(BatchKind::Logged, &BatchThresholds::default())
            .unwrap()
            .is_empty());
        let err = footprint(&def, 100, |k| update(&def, k, 743))
            .verdict(BatchKind::Logged, &BatchThresholds::default())
            .unwrap_err();
        assert_eq!(err.to_string(), "Batch too large");
    }

    #[test]
    fn unlogged_batches_over_ten_partitions_warn() {
        let def = table();
        let small = |k| update(&def, k, 1);
        assert!(footprint(&def, 10, small)
            .verdict(BatchKind::Unlogged, &BatchThresholds::default())
            .unwrap()
            .is_empty());
        assert_eq!(
            footprint(&def, 11, small).verdict(BatchKind::Unlogged, &BatchThresholds::default()).unwrap(),
            ["Unlogged batch covering 11 partitions detected against table [ks.t]. You should use a logged batch for atomicity, or asynchronous writes for performance."]
        );
        assert!(footprint(&def, 11, small)
            .verdict(BatchKind::Logged, &BatchThresholds::default())
            .unwrap()
            .is_empty());
    }
}
