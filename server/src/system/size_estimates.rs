//! `system.size_estimates` and `system.table_estimates`: per table and token range, how many
//! partitions it holds and their mean size, which the Spark connector and other bulk readers
//! use to split a table into tasks. A single node owns the whole ring from its token: the
//! wrapping range `(token, token]`, published unwrapped as Cassandra publishes it, as
//! `(token, MIN]` and `(MIN, token]`.
//!
//! These are estimates, as Cassandra's are: nothing is scanned. Cassandra sums its sstables'
//! estimated keys per range; here each sorted run's partition count and bytes (kept in its
//! manifest entry) are shared between the two ranges in proportion to its token span, and the
//! head's and memtable's partitions (both bounded in size) are counted from their keys (see
//! `storage::Snapshot::partition_estimates`). The total is exact when each partition is in
//! one place (one run, or only the memtable); a partition that several runs hold counts once
//! per run until compaction merges them, as in Cassandra. The mean partition size is the
//! stored bytes (compressed in runs) over the partitions.

use storage::RangeEstimate;

use super::{bigint, text, NamedRow};
use crate::error::CqlResult;
use crate::node::Node;
use crate::schema::Schema;

/// The mean partition size of a range: its bytes over its partitions.
fn mean(size: &RangeEstimate) -> u64 {
    size.bytes.checked_div(size.partitions).unwrap_or(0)
}

/// The rows of `system.size_estimates` (`range_type` `None`) or `system.table_estimates`
/// (every row twice, as `primary` and `local_primary`: one node is both).
pub(crate) fn rows(
    node: &Node,
    schema: &Schema,
    with_range_type: bool,
) -> CqlResult<Vec<NamedRow>> {
    let snapshot = node.store().snapshot()?;
    let mut rows = Vec::new();
    for keyspace in schema.user_keyspaces() {
        for table in keyspace.tables.values() {
            // Tokens at or below the node's, and above it.
            let [below, above] = snapshot.partition_estimates(table.id, node.token())?;
            let ranges = [
                (node.token().to_string(), i64::MIN.to_string(), above),
                (i64::MIN.to_string(), node.token().to_string(), below),
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
                        ("mean_partition_size", bigint(mean(size))),
                        ("partitions_count", bigint(size.partitions)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_range_has_no_mean() {
        let empty = RangeEstimate::default();
        assert_eq!(mean(&empty), 0);
        let some = RangeEstimate {
            partitions: 4,
            bytes: 410,
        };
        assert_eq!(mean(&some), 102);
    }
}
