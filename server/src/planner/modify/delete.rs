//! Planning DELETE: whole rows, columns or collection elements of the rows its WHERE clause
//! selects, a range of rows, or a whole partition, with Cassandra's refusals.

use cql::statement::ast::{Delete, Operator, Relation};
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, ModifyError, RestrictionError, SelectError};
use crate::planner::common::clustering::{ClusteringPlan, PrefixPart};
use crate::planner::common::restrictions::{ColumnRestriction, ValueSet};
use crate::planner::common::{clustering, restrictions, selection_only};
use crate::planner::modify::conditions::CasConditions;
use crate::planner::modify::operations::ColumnOperation;
use crate::planner::modify::{conditions, operations};
use crate::schema::Schema;

use crate::planner::modify::*;

/// Plans a DELETE: of rows or columns by full primary key, or — with a clustering prefix, a
/// clustering slice, or only the partition key — of a range (a range tombstone).
pub(crate) fn plan_delete(
    schema: &Schema,
    stmt: &Delete,
    session_keyspace: Option<&str>,
) -> CqlResult<ModifyPlan> {
    let (table, cas) = target_table(
        schema,
        &stmt.table,
        session_keyspace,
        &stmt.condition,
        &stmt.using,
    )?;
    let def = &table.def;
    selection_only::refuse_to_json(&[], &stmt.where_clause)?;
    let (by_column, rest) = restrictions::collect(def, &stmt.where_clause)?;
    check_constant_relations(def, &stmt.where_clause)?;
    let multi = check_where(def, &rest, &by_column)?;
    let pk = def
        .partition_key
        .iter()
        .map(|&i| by_column[i].eq.clone())
        .collect();
    let partition_key = require_partition_key(def, pk)?;
    let range = clustering::plan(def, &by_column, &multi, false)?;
    if range.needs_filtering {
        return Err(ModifyError::DeleteNonStaticWithoutFullKey.into());
    }
    let full_row = range.slice.is_none()
        && range.prefix.len() == def.clustering_key.len()
        && range
            .prefix
            .iter()
            .all(|p| matches!(p, PrefixPart::Single(_)));
    let columns = stmt
        .columns
        .iter()
        .map(|t| operations::plan_delete_target(def, t))
        .collect::<CqlResult<Vec<_>>>()?;
    let statics_only = !columns.is_empty()
        && conditions::static_only(def, static_only(def, &columns), &columns, &cas);
    let restricted = !multi.is_empty()
        || def
            .clustering_key
            .iter()
            .any(|&i| by_column[i].is_restricted());
    conditions::check_static_only_restrictions("DELETE", statics_only, restricted)?;
    let whole_partition = range.slice.is_none() && range.prefix.is_empty();
    let (kind, clustering_key, range) = if statics_only && whole_partition {
        (ModifyKind::DeleteColumns, Vec::new(), None)
    } else {
        rows_or_range(def, range, full_row, &columns, cas.as_ref())?
    };
    Ok(ModifyPlan {
        table: table.clone(),
        kind,
        partition_key,
        clustering_key,
        operations: columns,
        using: stmt.using.clone(),
        range,
        json: None,
        conditions: cas,
        clustering_tuples: None,
    })
}

/// DELETE's WHERE checks beyond the key restrictions: no `token()`, only multi-column
/// relations besides single-column ones, only key columns, the partition key by equality,
/// and no CONTAINS on clustering columns; the multi-column relations, for the clustering plan.
fn check_where<'r>(
    def: &TableDef,
    rest: &'r [Relation],
    by_column: &[ColumnRestriction],
) -> CqlResult<Vec<&'r Relation>> {
    let multi: Vec<&Relation> = rest
        .iter()
        .filter(|r| matches!(r, Relation::Multi { .. } | Relation::MultiIn { .. }))
        .collect();
    if rest.iter().any(|r| matches!(r, Relation::Token { .. })) {
        return Err(ModifyError::TokenInWhere {
            statement: "DELETE",
        }
        .into());
    }
    if let Some(relation) = rest
        .iter()
        .find(|r| !matches!(r, Relation::Multi { .. } | Relation::MultiIn { .. }))
    {
        return Err(RestrictionError::UnsupportedRestriction {
            relation: relation.to_string(),
        }
        .into());
    }
    check_non_key_columns(def, by_column)?;
    check_partition_relations(def, by_column, "DELETE")?;
    let clustering_contains = def.clustering_key.iter().any(|&i| {
        by_column[i]
            .other
            .iter()
            .any(|(op, _)| matches!(op, Operator::Contains | Operator::ContainsKey))
    });
    if clustering_contains {
        return Err(SelectError::ClusteringContainsWithoutIndex.into());
    }
    Ok(multi)
}

/// What a DELETE below the whole partition removes: whole rows or their columns when every
/// clustering column is fixed, else a range of rows (never of specific regular columns).
fn rows_or_range(
    def: &TableDef,
    range: ClusteringPlan,
    full_row: bool,
    columns: &[ColumnOperation],
    cas: Option<&CasConditions>,
) -> CqlResult<(ModifyKind, Vec<ValueSet>, Option<ClusteringPlan>)> {
    if full_row {
        let keys = range
            .prefix
            .into_iter()
            .filter_map(|p| match p {
                PrefixPart::Single(set) => Some(set),
                PrefixPart::Multi { .. } => None,
            })
            .collect();
        let kind = if columns.is_empty() {
            ModifyKind::DeleteRows
        } else {
            ModifyKind::DeleteColumns
        };
        return Ok((kind, keys, None));
    }
    conditions::check_range_delete(def, columns, cas)?;
    if range.slice.is_some() && !columns.is_empty() {
        return Err(ModifyError::RangeDeletionOfColumns.into());
    }
    // 5.0 deletes a clustering prefix or the whole partition as a range (`DeleteStatement
    // .addUpdateForKey`), which takes no regular column.
    if columns
        .iter()
        .any(|o| def.columns[o.column].kind != ColumnKind::Static)
    {
        return Err(ModifyError::RangeDeletionOfColumns.into());
    }
    Ok((ModifyKind::DeleteRange, Vec::new(), Some(range)))
}
