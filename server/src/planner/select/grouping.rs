//! GROUP BY, DISTINCT and PER PARTITION LIMIT: how rows are folded into result rows, with
//! Cassandra's rules and messages for each.

use std::fmt;

use cql::statement::ast::Select;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, SelectError};
use crate::planner::column_index;
use crate::planner::select::selection::Selection;

/// How rows fold into result rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grouping {
    /// Every row is a result row.
    None,
    /// Aggregates without GROUP BY: all rows fold into one result row.
    All,
    /// GROUP BY the partition key and the first `clustering` clustering columns.
    Prefix { clustering: usize },
}

impl fmt::Display for Grouping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grouping::None => Ok(()),
            Grouping::All => f.write_str(" aggregate"),
            Grouping::Prefix { clustering } => write!(f, " group by partition+{clustering}"),
        }
    }
}

/// Plans GROUP BY. `eq_restricted[i]` tells whether column `i` is fixed by `=`, which lets
/// GROUP BY skip it.
pub(crate) fn plan_grouping(
    def: &TableDef,
    stmt: &Select,
    selection: &Selection,
    eq_restricted: &[bool],
) -> CqlResult<Grouping> {
    if stmt.group_by.is_empty() {
        return Ok(if selection.has_aggregates {
            Grouping::All
        } else {
            Grouping::None
        });
    }
    let primary_key: Vec<usize> = def
        .partition_key
        .iter()
        .chain(&def.clustering_key)
        .copied()
        .collect();
    let mut next = 0;
    let mut clustering = 0;
    for ident in &stmt.group_by {
        let i = column_index(def, ident)?;
        let kind = def.columns[i].kind;
        if !matches!(kind, ColumnKind::PartitionKey | ColumnKind::Clustering) {
            return Err(SelectError::GroupByNonPrimaryKey {
                column: def.columns[i].name.clone(),
            }
            .into());
        }
        loop {
            let Some(&column) = primary_key.get(next) else {
                return Err(SelectError::GroupByOutOfOrder.into());
            };
            next += 1;
            if def.columns[column].kind == ColumnKind::Clustering {
                clustering += 1;
            }
            if column == i {
                break;
            }
            if !eq_restricted[column] {
                return Err(SelectError::GroupByOutOfOrder.into());
            }
        }
    }
    if next < def.partition_key.len() {
        return Err(SelectError::GroupByPartialPartitionKey.into());
    }
    if clustering > 0 && stmt.distinct {
        return Err(SelectError::DistinctGroupByClustering.into());
    }
    Ok(Grouping::Prefix { clustering })
}

/// Cassandra's checks of a DISTINCT selection. `key_range` is whether the query reads a range
/// of partitions rather than given keys; `restricts_non_partition` whether the WHERE clause
/// restricts clustering or regular columns.
pub(crate) fn check_distinct(
    def: &TableDef,
    stmt: &Select,
    selection: &Selection,
    key_range: bool,
    restricts_non_partition: bool,
) -> CqlResult<()> {
    if stmt.per_partition_limit.is_some() {
        return Err(SelectError::PerPartitionLimitWithDistinct.into());
    }
    if restricts_non_partition {
        return Err(SelectError::DistinctRestrictsNonPartition.into());
    }
    let selected: Vec<usize> = selection.columns().collect();
    for &i in &selected {
        let kind = def.columns[i].kind;
        if !matches!(kind, ColumnKind::PartitionKey | ColumnKind::Static) {
            return Err(SelectError::DistinctNonPartitionColumn {
                column: def.columns[i].name.clone(),
            }
            .into());
        }
    }
    if key_range {
        if let Some(&missing) = def.partition_key.iter().find(|i| !selected.contains(i)) {
            return Err(SelectError::DistinctMissingPartitionKey {
                column: def.columns[missing].name.clone(),
            }
            .into());
        }
    }
    Ok(())
}
