//! Rows of `bench.readings` for the storage benchmarks: keys built by
//! [`storage::row_key`], stored rows shaped as an INSERT writes them (row marker plus one
//! cell per regular column), and write batches of them.
//!
//! Row `r` of partition `p` has partition key `("sensor-{p:06}", p % 16)` and clustering key
//! `(BASE_AT + r, uuid r)`, so every `(p, r)` pair names a distinct row.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use storage::{CatalogOp, Cell, Liveness, RowWrite, StoredRow, TableDef, WriteBatch};
use uuid::Uuid;

use crate::schema::{bench_keyspace, NOTE_COLUMN, VALUE_COLUMN};

/// The first clustering `at` value (milliseconds, November 2023).
const BASE_AT: i64 = 1_700_000_000_000;

/// Write timestamp of every benchmark row (microseconds).
const WRITE_TIMESTAMP: i64 = 1_763_683_200_000_000;

/// The serialized partition-key values `(sensor text, bucket int)` of partition `p`.
pub fn partition_values(p: u32) -> [Bytes; 2] {
    [
        Bytes::from(format!("sensor-{p:06}")),
        Bytes::copy_from_slice(&(p % 16).to_be_bytes()),
    ]
}

/// The serialized clustering values `(at bigint, id uuid)` of row `r`.
pub fn clustering_values(r: u32) -> [Bytes; 2] {
    [
        Bytes::copy_from_slice(&(BASE_AT + i64::from(r)).to_be_bytes()),
        Bytes::copy_from_slice(Uuid::from_u128(u128::from(r) | 0x4000 << 64).as_bytes()),
    ]
}

/// The storage key of row `r` of partition `p`.
///
/// # Panics
/// If `table` is not [`crate::schema::readings_table`] (the values would not fit its key).
pub fn key(table: &TableDef, p: u32, r: u32) -> Vec<u8> {
    storage::row_key(table, &partition_values(p), &clustering_values(r))
        .expect("benchmark values fit the readings table's key")
}

/// The row an `INSERT ... (value, note)` writes: a row marker and two live cells, about 50
/// bytes of values.
pub fn stored_row(r: u32) -> StoredRow {
    StoredRow {
        liveness: Some(Liveness {
            timestamp: WRITE_TIMESTAMP,
            ttl: None,
        }),
        deletion: None,
        cells: vec![
            (
                VALUE_COLUMN,
                Cell::live(
                    WRITE_TIMESTAMP,
                    (f64::from(r) * 0.25).to_be_bytes().to_vec(),
                ),
            ),
            (
                NOTE_COLUMN,
                Cell::live(WRITE_TIMESTAMP, format!("reading {r:010} within range")),
            ),
        ],
    }
}

/// The write of row `r` of partition `p`.
pub fn row_write(table: &TableDef, p: u32, r: u32) -> RowWrite {
    RowWrite {
        table_id: table.id,
        key: key(table, p, r),
        update: stored_row(r),
    }
}

/// A batch creating the `bench` keyspace and `table`; must commit before any row write.
pub fn create_table(table: &TableDef) -> WriteBatch {
    WriteBatch {
        rows: Vec::new(),
        catalog: vec![
            CatalogOp::PutKeyspace(bench_keyspace()),
            CatalogOp::PutTable(Arc::new(table.clone())),
        ],
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    }
}

/// One batch writing rows `rows` of partition `p`.
pub fn partition_batch(table: &TableDef, p: u32, rows: Range<u32>) -> WriteBatch {
    WriteBatch {
        rows: rows.map(|r| row_write(table, p, r)).collect(),
        catalog: Vec::new(),
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    }
}
