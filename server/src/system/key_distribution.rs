//! `system_views.key_distribution` (ours): how each user table's rows spread over its
//! partitions, read from the data on each query, and which partitions took the most of its
//! recent writes — the measure of the seeds' advice to spread data and load evenly over
//! partition keys (Iguazio's "even distribution", GeminiDB's hot spots).

use std::collections::BTreeMap;

use bytes::Bytes;
use cql::types::CqlValue;
use storage::{Snapshot, TableDef};

use super::NamedRow;
use crate::error::CqlResult;
use crate::node::Node;
use crate::schema::Schema;
use crate::telemetry::hot_partitions::key_text;

/// Partitions listed as the largest, by rows and by bytes.
const LARGEST: usize = 3;

/// One row per user table.
pub(crate) fn rows(node: &Node, schema: &Schema) -> CqlResult<Vec<NamedRow>> {
    let snapshot = node.store().snapshot()?;
    let mut rows = Vec::new();
    for keyspace in schema.user_keyspaces() {
        for table in keyspace.tables.values() {
            let spread = Spread::of(&snapshot, table)?;
            rows.push(spread.row(node, table));
        }
    }
    Ok(rows)
}

/// One partition as the scan saw it.
pub(crate) struct Partition {
    /// The partition-key values.
    pub(crate) key: Vec<Bytes>,
    /// Stored rows (the static row included).
    pub(crate) rows: u64,
    /// Bytes of keys and encoded rows.
    pub(crate) bytes: u64,
}

/// A table's rows by partition.
#[derive(Default)]
struct Spread {
    partitions: u64,
    rows: u64,
    bytes: u64,
    by_rows: Vec<(Vec<Bytes>, u64)>,
    by_bytes: Vec<(Vec<Bytes>, u64)>,
    /// Partitions by rows-per-partition bucket (upper bounds 1, 10, 100, ...).
    histogram: BTreeMap<i64, i64>,
}

/// Calls `each` with every partition of `table` in `snapshot`: its key values, rows and
/// bytes (keys and encoded rows), in storage order.
///
/// # Errors
/// Storage errors reading the table.
pub(crate) fn each_partition(
    snapshot: &Snapshot,
    table: &TableDef,
    mut each: impl FnMut(Partition),
) -> CqlResult<()> {
    let mut current: Option<(Vec<u8>, Partition)> = None;
    for row in snapshot.scan(table.id, &storage::KeyRange::all(), storage::Order::Forward)? {
        let (key, stored) = row?;
        let decoded = storage::decode_row_key(table, &key)?;
        let bytes = (key.len() + storage::encode_row(&stored).len()) as u64;
        let (prefix, _) = decoded.split(&key);
        match &mut current {
            Some((at, partition)) if at.as_slice() == prefix => {
                partition.rows += 1;
                partition.bytes += bytes;
            }
            _ => {
                if let Some((_, done)) = current.take() {
                    each(done);
                }
                let partition = Partition {
                    key: decoded.partition,
                    rows: 1,
                    bytes,
                };
                current = Some((prefix.to_vec(), partition));
            }
        }
    }
    if let Some((_, done)) = current {
        each(done);
    }
    Ok(())
}

impl Spread {
    fn of(snapshot: &Snapshot, table: &TableDef) -> CqlResult<Spread> {
        let mut spread = Spread::default();
        each_partition(snapshot, table, |partition| spread.add(partition))?;
        Ok(spread)
    }

    fn add(&mut self, partition: Partition) {
        self.partitions += 1;
        self.rows += partition.rows;
        self.bytes += partition.bytes;
        *self.histogram.entry(bucket(partition.rows)).or_insert(0) += 1;
        keep_largest(&mut self.by_rows, &partition.key, partition.rows);
        keep_largest(&mut self.by_bytes, &partition.key, partition.bytes);
    }

    fn row(self, node: &Node, table: &TableDef) -> NamedRow {
        let list = |items: Vec<String>| {
            Some(CqlValue::List(
                items.into_iter().map(CqlValue::Text).collect(),
            ))
        };
        let largest = |items: &[(Vec<Bytes>, u64)], unit: &str| {
            items
                .iter()
                .map(|(key, n)| {
                    let unit = if *n == 1 {
                        unit.trim_end_matches('s')
                    } else {
                        unit
                    };
                    format!("{}: {n} {unit}", key_text(table, key))
                })
                .collect::<Vec<_>>()
        };
        let histogram = self
            .histogram
            .iter()
            .map(|(bound, n)| (CqlValue::Bigint(*bound), CqlValue::Bigint(*n)))
            .collect();
        let (hottest, window) = match node.hot_partitions().last_window(table.id) {
            Some(last) => {
                let window = last.writes;
                let shares = last
                    .top
                    .iter()
                    .map(|(key, writes)| {
                        format!("{}: {writes} of {window} writes", key_text(table, key))
                    })
                    .collect();
                (shares, Some(CqlValue::Bigint(window as i64)))
            }
            None => (Vec::new(), None),
        };
        vec![
            ("keyspace_name", super::text(&table.keyspace)),
            ("table_name", super::text(&table.name)),
            ("partitions", Some(CqlValue::Bigint(self.partitions as i64))),
            ("rows", Some(CqlValue::Bigint(self.rows as i64))),
            ("bytes", Some(CqlValue::Bigint(self.bytes as i64))),
            (
                "largest_partitions_by_rows",
                list(largest(&self.by_rows, "rows")),
            ),
            (
                "largest_partitions_by_bytes",
                list(largest(&self.by_bytes, "bytes")),
            ),
            ("rows_per_partition", Some(CqlValue::Map(histogram))),
            ("recent_writes", window),
            ("hottest_partitions", list(hottest)),
        ]
    }
}

/// The histogram bucket of a partition of `rows` rows: the least power of ten at or above it.
fn bucket(rows: u64) -> i64 {
    let mut bound: u64 = 1;
    while bound < rows {
        bound = bound.saturating_mul(10);
    }
    i64::try_from(bound).unwrap_or(i64::MAX)
}

/// Keeps the [`LARGEST`] greatest `(key, n)`, greatest first.
fn keep_largest(largest: &mut Vec<(Vec<Bytes>, u64)>, key: &[Bytes], n: u64) {
    if largest.len() == LARGEST && largest.last().is_some_and(|(_, least)| *least >= n) {
        return;
    }
    let at = largest.partition_point(|(_, m)| *m >= n);
    largest.insert(at, (key.to_vec(), n));
    largest.truncate(LARGEST);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_ten() {
        assert_eq!(
            [0, 1, 2, 10, 11, 100, 101].map(bucket),
            [1, 1, 10, 10, 100, 100, 1000]
        );
    }

    #[test]
    fn the_largest_are_kept_greatest_first() {
        let mut largest = Vec::new();
        for (k, n) in [(1u8, 5), (2, 9), (3, 1), (4, 7), (5, 9)] {
            keep_largest(&mut largest, &[Bytes::from(vec![k])], n);
        }
        let kept: Vec<(u8, u64)> = largest.iter().map(|(k, n)| (k[0][0], *n)).collect();
        assert_eq!(kept, [(2, 9), (5, 9), (4, 7)]);
    }
}
