//! `system.size_estimates` and `system.table_estimates`: per table and token range, how many
//! partitions it holds and their mean size, which the Spark connector and other bulk readers
//! use to split a table into tasks. A single node owns the whole ring from its token: the
//! wrapping range `(token, token]`, published unwrapped as Cassandra publishes it, as
//! `(token, MIN]` and `(MIN, token]`. The counts are exact, read from the data on each query
//! (Cassandra estimates from its sstables only; here memtable rows count too).

use storage::encoding::token::token_of;
use storage::TableDef;

use super::key_distribution::{each_partition, Partition};
use super::{text, NamedRow};
use crate::error::CqlResult;
use crate::node::Node;
use crate::schema::Schema;
use cql::types::CqlValue;

/// Partitions and bytes in one token range.
#[derive(Default, Clone, Copy)]
struct RangeSize {
    partitions: i64,
    bytes: i64,
}

impl RangeSize {
    fn add(&mut self, partition: &Partition) {
        self.partitions += 1;
        self.bytes += i64::try_from(partition.bytes).unwrap_or(i64::MAX);
    }

    fn mean(&self) -> i64 {
        if self.partitions == 0 {
            0
        } else {
            self.bytes / self.partitions
        }
    }
}

/// The rows of `system.size_estimates` (`range_type` `None`) or `system.table_estimates`
/// (every row twice, as `primary` and `local_primary`: one node is both).
pub(crate) fn rows(
    node: &Node,
    schema: &Schema,
    with_range_type: bool,
) -> CqlResult<Vec<NamedRow>> {
    let snapshot = node.store.snapshot()?;
    let mut rows = Vec::new();
    for keyspace in schema.user_keyspaces() {
        for table in keyspace.tables.values() {
            let [above, below] = table_ranges(&snapshot, table, node.token)?;
            let ranges = [
                (node.token.to_string(), i64::MIN.to_string(), above),
                (i64::MIN.to_string(), node.token.to_string(), below),
            ];
            let types: &[Option<&str>] = if with_range_type {
                &[Some("local_primary"), Some("primary")]
            } else {
                &[None]
            };
            for range_type in types {
                for (start, end, size) in &ranges {
                    let mut row: NamedRow = vec![
                        ("keyspace_name", text(&table.keyspace)),
                        ("table_name", text(&table.name)),
                        ("range_start", text(start)),
                        ("range_end", text(end)),
                        ("mean_partition_size", Some(CqlValue::Bigint(size.mean()))),
                        ("partitions_count", Some(CqlValue::Bigint(size.partitions))),
                    ];
                    if let Some(range_type) = range_type {
                        row.push(("range_type", text(*range_type)));
                    }
                    rows.push(row);
                }
            }
        }
    }
    Ok(rows)
}

/// The sizes of `(token, MIN]` and `(MIN, token]` in `table`.
fn table_ranges(
    snapshot: &storage::Snapshot,
    table: &TableDef,
    token: i64,
) -> CqlResult<[RangeSize; 2]> {
    let mut sizes = [RangeSize::default(); 2];
    each_partition(snapshot, table, |partition| {
        let parts: Vec<&[u8]> = partition.key.iter().map(|b| b.as_ref()).collect();
        let above = token_of(&parts) > token;
        sizes[usize::from(!above)].add(&partition);
    })?;
    Ok(sizes)
}
