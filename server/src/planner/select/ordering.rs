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

/// Validates ORDER BY. `eq_restricted[i]` tells whether column `i` is fixed by `=`;
/// `pk_restricted` whether the partition key is restricted by `=`/`IN`; `pk_in` whether
/// that restriction is an `IN`.
pub(crate) fn plan_ordering(
    def: &TableDef,
    stmt: &Select,
    eq_restricted: &[bool],
    pk_restricted: bool,
    pk_in: bool,
) -> CqlResult<Ordering> {
    if stmt.order_by.is_empty() {
        return Ok(Ordering::default());
    }
    if !pk_restricted {
        return Err(SelectError::OrderByWithoutPartitionKey.into());
    }
    let mut reversed: Option<bool> = None;
    let mut next_position = 0;
    let mut post_order = Vec::with_capacity(stmt.order_by.len());
    for (i, order) in ordering_columns(def, stmt)? {
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
        let this_reversed = (order == Order::Desc) != declared_desc;
        match reversed {
            Some(r) if r != this_reversed => return Err(SelectError::MixedOrderBy.into()),
            _ => reversed = Some(this_reversed),
        }
        post_order.push((i, order == Order::Desc));
    }
    Ok(Ordering {
        reversed: reversed.unwrap_or(false),
        post_order: if pk_in { post_order } else { Vec::new() },
    })
}
