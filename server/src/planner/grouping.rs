//! GROUP BY, DISTINCT and PER PARTITION LIMIT: how rows are folded into result rows, with
//! Cassandra's rules and messages for each.

use std::fmt;

use cql::statement::ast::Select;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlError, CqlResult};
use crate::planner::column_index;
use crate::planner::selection::Selection;

/// How rows fold into result rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
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
pub fn plan_grouping(
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
    let out_of_order = || {
        CqlError::invalid(
            "Group by currently only support groups of columns following their declared order in the PRIMARY KEY",
        )
    };
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
            return Err(CqlError::invalid(format!(
                "Group by is currently only supported on the columns of the PRIMARY KEY, got {}",
                def.columns[i].name
            )));
        }
        loop {
            let Some(&column) = primary_key.get(next) else {
                return Err(out_of_order());
            };
            next += 1;
            if def.columns[column].kind == ColumnKind::Clustering {
                clustering += 1;
            }
            if column == i {
                break;
            }
            if !eq_restricted[column] {
                return Err(out_of_order());
            }
        }
    }
    if next < def.partition_key.len() {
        return Err(CqlError::invalid(
            "Group by is not supported on only a part of the partition key",
        ));
    }
    if clustering > 0 && stmt.distinct {
        return Err(CqlError::invalid(
            "Grouping on clustering columns is not allowed for SELECT DISTINCT queries",
        ));
    }
    Ok(Grouping::Prefix { clustering })
}

/// Cassandra's checks of a DISTINCT selection. `key_range` is whether the query reads a range
/// of partitions rather than given keys; `restricts_non_partition` whether the WHERE clause
/// restricts clustering or regular columns.
pub fn check_distinct(
    def: &TableDef,
    stmt: &Select,
    selection: &Selection,
    key_range: bool,
    restricts_non_partition: bool,
) -> CqlResult<()> {
    if stmt.per_partition_limit.is_some() {
        return Err(CqlError::invalid(
            "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries",
        ));
    }
    if restricts_non_partition {
        return Err(CqlError::invalid(
            "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.",
        ));
    }
    let selected: Vec<usize> = selection.columns().collect();
    for &i in &selected {
        let kind = def.columns[i].kind;
        if !matches!(kind, ColumnKind::PartitionKey | ColumnKind::Static) {
            return Err(CqlError::invalid(format!(
                "SELECT DISTINCT queries must only request partition key columns and/or static columns (not {})",
                def.columns[i].name
            )));
        }
    }
    if key_range {
        if let Some(&missing) = def.partition_key.iter().find(|i| !selected.contains(i)) {
            return Err(CqlError::invalid(format!(
                "SELECT DISTINCT queries must request all the partition key columns (missing {})",
                def.columns[missing].name
            )));
        }
    }
    Ok(())
}
