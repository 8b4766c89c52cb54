//! Cassandra's limit on indexed values: an index keys its entries by the value, and a key
//! cannot reach 64 KiB, so a write whose indexed value is that large is refused before it is
//! applied (`CassandraIndex.validateIndexedValue`).

use storage::{CellValue, IndexTargetKind, TableDef, WriteBatch};

use crate::error::{CqlResult, IndexError};
use crate::node::Node;

/// Cassandra's `FBUtilities.MAX_UNSIGNED_SHORT`: indexed values must be shorter.
const MAX_INDEXED_VALUE: usize = 65535;

/// Refuses `batch` if a row write gives an index a value of 64 KiB or more.
pub(crate) fn check(node: &Node, batch: &WriteBatch) -> CqlResult<()> {
    if batch.rows.is_empty() {
        return Ok(());
    }
    let schema = node.schema();
    // Rows of one statement share a table: look it up once per run of rows.
    let mut table: Option<&std::sync::Arc<TableDef>> = None;
    for write in &batch.rows {
        if table.is_none_or(|t| t.id != write.table_id) {
            table = schema.catalog.table_by_id(write.table_id);
        }
        if let Some(table) = table.filter(|t| !t.indexes.is_empty()) {
            check_row(table, &write.update)?;
        }
    }
    Ok(())
}

fn check_row(table: &TableDef, row: &storage::StoredRow) -> CqlResult<()> {
    for index in &table.indexes {
        for (id, cell) in &row.cells {
            if *id != index.column {
                continue;
            }
            let CellValue::Live(value) = &cell.value else {
                continue;
            };
            let path_len = cell.path.as_ref().map_or(0, |p| p.len());
            let size = match (index.target, &cell.path) {
                (IndexTargetKind::Keys, Some(_)) => path_len,
                (IndexTargetKind::Entries, Some(_)) => path_len + value.len(),
                (IndexTargetKind::Values, Some(path)) if value.is_empty() => path.len(),
                _ => value.len(),
            };
            if size >= MAX_INDEXED_VALUE {
                let column = table
                    .column_by_id(index.column)
                    .map_or("", |c| c.name.as_str());
                return Err(IndexError::ValueTooLarge {
                    size,
                    index: index.name.clone(),
                    keyspace: table.keyspace.clone(),
                    table: table.name.clone(),
                    column: column.to_string(),
                    max: MAX_INDEXED_VALUE,
                }
                .into());
            }
        }
    }
    Ok(())
}
