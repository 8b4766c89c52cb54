//! ORDER BY: clustering columns in declared order (skipping columns fixed by `=`) or its exact
//! reverse, only with the partition key restricted by `=`/`IN`. With `IN` on the partition key
//! rows of several partitions are merged by the ordering columns after the read. A column
//! named twice counts once, at its first place with its last direction, as 5.0's
//! `SelectStatement.getOrderingColumns` keeps them in a `LinkedHashMap`.

use cql::statement::ast::{Order, Select};
use storage::{ClusteringOrder, ColumnKind, TableDef};

use crate::error::{CqlResult, SelectError};
use crate::planner::column_index;

/// What ORDER BY asks of the executor.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Ordering {
    /// Whether partitions are read in the reverse of the table's clustering order.
    pub reversed: bool,
    /// Columns (index, descending in CQL value order) to sort the rows of several partitions
    /// by after the read; empty when no such sort is needed.
    pub post_order: Vec<(usize, bool)>,
}

/// The ORDER BY columns by index, each once: at its first place, with its last direction.
fn ordering_columns(def: &TableDef, stmt: &Select) -> CqlResult<Vec<(usize, Order)>> {
    let mut columns: Vec<(usize, Order)> = Vec::with_capacity(stmt.order_by.len());
    for (ident, order) in &stmt.order_by {
        let i = column_index(def, ident)?;
        match columns.iter_mut().find(|(c, _)| *c == i) {
            Some(seen) => seen.1 = *order,
            None => columns.push((i, *order)),
        }
    }
    Ok(columns)
}

/// Validates ORDER BY as 5.0's `SelectStatement.RawStatement` does: the columns are bound
/// first, then `verifyOrderingIsAllowed` (no secondary index read, then the partition key
/// restricted by `=`/`IN`), then `isReversed` (clustering columns in declared order, then one
/// direction for all). `eq_restricted[i]` tells whether column `i` is fixed by `=`;
/// `uses_index` whether the query reads a secondary index (Cassandra's
/// `usesSecondaryIndexing`); `pk_restricted` whether the partition key is restricted by
/// `=`/`IN`; `pk_in` whether that restriction is an `IN`.
pub(crate) fn plan_ordering(
    def: &TableDef,
    stmt: &Select,
    eq_restricted: &[bool],
    uses_index: bool,
    pk_restricted: bool,
    pk_in: bool,
) -> CqlResult<Ordering> {
    if stmt.order_by.is_empty() {
        return Ok(Ordering::default());
    }
    let columns = ordering_columns(def, stmt)?;
    if uses_index {
        return Err(SelectError::OrderByWithSecondaryIndex.into());
    }
    if !pk_restricted {
        return Err(SelectError::OrderByWithoutPartitionKey.into());
    }
    let mut next_position = 0;
    let mut reversed_at: Vec<Option<bool>> = vec![None; def.clustering_key.len()];
    let mut post_order = Vec::with_capacity(columns.len());
    for (i, order) in columns {
        let col = &def.columns[i];
        if col.kind != ColumnKind::Clustering {
            return Err(SelectError::OrderByNonClustering {
                column: col.name.clone(),
            }
            .into());
        }
        let position = def.clustering_key.iter().position(|&c| c == i).unwrap_or(0);
        while next_position < position {
            if !eq_restricted[def.clustering_key[next_position]] {
                return Err(SelectError::OrderByOutOfOrder.into());
            }
            next_position += 1;
        }
        if position < next_position {
            return Err(SelectError::OrderByOutOfOrder.into());
        }
        next_position = position + 1;
        let declared_desc = col.order == ClusteringOrder::Desc;
        if let Some(slot) = reversed_at.get_mut(position) {
            *slot = Some((order == Order::Desc) != declared_desc);
        }
        post_order.push((i, order == Order::Desc));
    }
    // Every direction given must agree, checked once all columns are (Cassandra's
    // `reversedMap`), so a later column's error comes first.
    let mut given = reversed_at.into_iter().flatten();
    let reversed = given.next().unwrap_or(false);
    if given.any(|r| r != reversed) {
        return Err(SelectError::MixedOrderBy.into());
    }
    Ok(Ordering {
        reversed,
        post_order: if pk_in { post_order } else { Vec::new() },
    })
}
