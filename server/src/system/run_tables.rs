//! What each user table's sorted runs hold, read from their manifest (no row is read):
//! - `system_views.table_runs` (ours): per table, its runs, their bytes, entries, deletions and
//!   partitions, the head's and memtable's entries, and the bytes compaction would merge next.
//! - `system_views.disk_usage` (Cassandra 5.0's): per table, the mebibytes it takes on disk,
//!   rounded up as Cassandra rounds them.
//! - `system_views.sstable_tasks` (Cassandra 5.0's): the merge of runs under way, with its
//!   progress in bytes, as Cassandra lists a running compaction.

use cql::types::CqlValue;
use storage::TableDef;

use super::{bigint, text, NamedRow};
use crate::error::CqlResult;
use crate::node::Node;
use crate::schema::Schema;

/// Every user table, materialized views included (they store rows too).
fn tables(schema: &Schema) -> impl Iterator<Item = &TableDef> {
    schema
        .user_keyspaces()
        .flat_map(|keyspace| keyspace.tables.values().map(|table| table.as_ref()))
}

/// `system_views.table_runs`: one row per user table.
pub(crate) fn table_runs(node: &Node, schema: &Schema) -> CqlResult<Vec<NamedRow>> {
    let snapshot = node.store().snapshot()?;
    let mut rows = Vec::new();
    for table in tables(schema) {
        let runs = snapshot.table_runs(table.id)?;
        rows.push(vec![
            ("keyspace_name", text(&table.keyspace)),
            ("table_name", text(&table.name)),
            (
                "runs",
                Some(CqlValue::Int(i32::try_from(runs.runs).unwrap_or(i32::MAX))),
            ),
            ("run_bytes", bigint(runs.run_bytes)),
            ("rows", bigint(runs.run_rows)),
            ("deletions", bigint(runs.run_deletions)),
            ("partitions", bigint(runs.run_partitions)),
            ("head_rows", bigint(runs.head_entries)),
            ("memtable_rows", bigint(runs.memtable_keys)),
            (
                "pending_compaction_bytes",
                bigint(runs.pending_compaction_bytes),
            ),
            (
                "compacting",
                Some(CqlValue::Boolean(runs.compaction.is_some())),
            ),
        ]);
    }
    Ok(rows)
}

/// `system_views.disk_usage`: one row per user table, in mebibytes rounded up.
pub(crate) fn disk_usage(node: &Node, schema: &Schema) -> CqlResult<Vec<NamedRow>> {
    let snapshot = node.store().snapshot()?;
    let mut rows = Vec::new();
    for table in tables(schema) {
        let bytes = snapshot.disk_bytes(table.id)?;
        rows.push(vec![
            ("keyspace_name", text(&table.keyspace)),
            ("table_name", text(&table.name)),
            ("mebibytes", bigint(mebibytes(bytes))),
        ]);
    }
    Ok(rows)
}

/// `bytes` in mebibytes, rounded up (Cassandra's `StorageTableMetric`).
fn mebibytes(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// `system_views.sstable_tasks`: the merge under way, if its table still exists.
pub(crate) fn sstable_tasks(node: &Node, schema: &Schema) -> Vec<NamedRow> {
    let directory = node
        .config()
        .data_dir
        .as_ref()
        .map(|dir| dir.display().to_string());
    let mut rows = Vec::new();
    for merge in node.store().compactions() {
        let Some(table) = schema.catalog.table_by_id(merge.table_id) else {
            continue;
        };
        let ratio = if merge.bytes_total == 0 {
            1.0
        } else {
            merge.bytes_done as f64 / merge.bytes_total as f64
        };
        rows.push(vec![
            ("keyspace_name", text(&table.keyspace)),
            ("table_name", text(&table.name)),
            ("task_id", Some(CqlValue::Timeuuid(merge.task_id))),
            ("completion_ratio", Some(CqlValue::Double(ratio))),
            ("kind", text("compaction")),
            ("progress", bigint(merge.bytes_done)),
            (
                "sstables",
                Some(CqlValue::Int(i32::try_from(merge.runs).unwrap_or(i32::MAX))),
            ),
            ("total", bigint(merge.bytes_total)),
            ("unit", text("bytes")),
            ("target_directory", directory.clone().and_then(text)),
        ]);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mebibytes_round_up() {
        assert_eq!([0, 1, 1 << 20, (1 << 20) + 1].map(mebibytes), [0, 1, 1, 2]);
    }
}
