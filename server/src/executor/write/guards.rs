//! Cassandra 5.0's guardrails on the values a statement writes, applied to the cells one
//! column operation produced (as `UpdateParameters.addCell` and the collection setters do):
//! `column_value_size` on every value and every collection element key, `items_per_collection`
//! and `collection_size` on the collection a SET, `+` or prepend writes (only the elements
//! written, never the column's existing ones: no read before write).

use cql::types::ColumnType;
use storage::{Cell, CellValue, ColumnDef};

use crate::config::Config;
use crate::error::CqlResult;
use crate::guardrails;
use crate::planner::modify::operations::Operation;

/// What Cassandra counts for a cell beyond its value and path (`Cell.dataSize()`: the
/// timestamp, TTL and local deletion time).
const CELL_OVERHEAD: u64 = 8 + 4 + 4;

/// Guards the `cells` that `op` produced for `col`, in Cassandra's order: the item count of
/// a written collection, each cell's value and path, then the collection's size.
///
/// # Errors
/// An Invalid (0x2200) [`crate::error::CqlError`] with Cassandra's message past a fail
/// threshold.
pub(crate) fn check(
    config: &Config,
    col: &ColumnDef,
    op: &Operation,
    cells: &[Cell],
) -> CqlResult<()> {
    let off = |t: guardrails::Threshold| t.warn < 0 && t.fail < 0;
    if off(config.column_value_size)
        && off(config.collection_size)
        && off(config.items_per_collection)
    {
        return Ok(());
    }
    let name = col.name.as_str();
    let collection = written_collection(col, op, cells);
    if let Some((items, _)) = collection {
        guardrails::items_per_collection(config.items_per_collection, name, items)?;
    }
    for cell in cells {
        if let CellValue::Live(value) = &cell.value {
            guardrails::column_value_size(config.column_value_size, name, len(value))?;
        }
        if let Some(path) = cell.path.as_ref().filter(|_| col.ty.is_multi_cell()) {
            let size = path_size(&col.ty, path);
            guardrails::column_value_size(config.column_value_size, name, size)?;
        }
    }
    match collection {
        Some((_, size)) => guardrails::collection_size(config.collection_size, name, size),
        None => Ok(()),
    }
}

/// The items and data size of the collection `op` writes to `col` (a SET, `+` or prepend
/// with at least one element), if it writes one.
fn written_collection(col: &ColumnDef, op: &Operation, cells: &[Cell]) -> Option<(u64, u64)> {
    let writes = matches!(
        op,
        Operation::Set(_) | Operation::Add(_) | Operation::Prepend(_)
    );
    if !writes || !is_collection(&col.ty) {
        return None;
    }
    let mut live = cells
        .iter()
        .filter(|c| matches!(c.value, CellValue::Live(_)))
        .peekable();
    live.peek()?;
    if col.ty.is_multi_cell() {
        let (items, size) = live.fold((0, 0), |(n, size), c| (n + 1, size + data_size(&col.ty, c)));
        return Some((items, size));
    }
    let cell = live.next()?;
    let CellValue::Live(value) = &cell.value else {
        return None;
    };
    Some((frozen_items(value), data_size(&col.ty, cell)))
}

fn is_collection(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::List { .. } | ColumnType::Set { .. } | ColumnType::Map { .. }
    )
}

fn len(bytes: &[u8]) -> u64 {
    bytes.len() as u64
}

/// The size of a cell path as Cassandra stores it: a list element's is a 16-byte timeuuid,
/// a set element's or map key's its bytes, a UDT field's a 2-byte index.
fn path_size(ty: &ColumnType, path: &[u8]) -> u64 {
    match ty {
        ColumnType::List { .. } => 16,
        _ => len(path),
    }
}

/// Cassandra's `Cell.dataSize()`.
fn data_size(ty: &ColumnType, cell: &Cell) -> u64 {
    let value = match &cell.value {
        CellValue::Live(value) => len(value),
        CellValue::Tombstone { .. } => 0,
    };
    let path = cell.path.as_ref().map_or(0, |p| path_size(ty, p));
    CELL_OVERHEAD + value + path
}

/// The element count of a frozen collection's serialized value (its leading `[int]`).
fn frozen_items(value: &[u8]) -> u64 {
    value
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, |b| u64::from(u32::from_be_bytes(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frozen_collection_counts_its_serialized_elements() {
        assert_eq!(frozen_items(&[0, 0, 0, 3, 9, 9]), 3);
        assert_eq!(frozen_items(&[]), 0);
    }

    #[test]
    fn list_paths_count_as_timeuuids() {
        let list = ColumnType::List {
            element: Box::new(ColumnType::Int),
            frozen: false,
        };
        assert_eq!(path_size(&list, &[0; 8]), 16);
        assert_eq!(path_size(&ColumnType::Int, &[0; 8]), 8);
    }
}
