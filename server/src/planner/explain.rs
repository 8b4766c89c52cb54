//! EXPLAIN (our extension): the lines describing how a planned statement reaches its rows,
//! read off the plan the executor will run (nothing is re-derived). One line per fact: the
//! table and its key, how the partition key is used, the clustering prefix and slice, index
//! and filtering, the order of reading, and what the read will examine.

use std::sync::Arc;

use cql::frame::response::ColumnSpec;
use cql::statement::ast::{InValues, Term};
use cql::types::{maybe_quote, ColumnType};
use storage::TableDef;

use crate::planner::common::clustering::{ClusteringPlan, PrefixPart};
use crate::planner::common::token::TokenRange;
use crate::planner::modify::{ClusteringTuples, ModifyKind, ModifyPlan};
use crate::planner::plan::StatementPlan;
use crate::planner::select::grouping::Grouping;
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::planner::ValueSet;
use crate::schema::TableRef;

/// The one `plan` text column of an EXPLAIN result, named after the explained table.
pub(crate) fn columns(table: &TableRef) -> Arc<[ColumnSpec]> {
    Arc::from([ColumnSpec {
        keyspace: table.def.keyspace.clone(),
        table: table.def.name.clone(),
        name: "plan".into(),
        ty: ColumnType::Text,
    }])
}

/// The lines of a plan; a statement that is not planned ahead has none.
pub(crate) fn describe(plan: &StatementPlan) -> Vec<String> {
    match plan {
        StatementPlan::Select(plan) => describe_select(plan),
        StatementPlan::Modify(plan) => describe_modify(plan),
        StatementPlan::Explain { inner, .. } => describe(inner),
        StatementPlan::Use(_)
        | StatementPlan::Truncate(_)
        | StatementPlan::Describe(_)
        | StatementPlan::Unplanned => Vec::new(),
    }
}

/// The lines of a SELECT plan.
pub(crate) fn describe_select(plan: &SelectPlan) -> Vec<String> {
    let def = &plan.table.def;
    let mut lines = vec![format!(
        "SELECT from {}.{}, primary key {}",
        maybe_quote(&def.keyspace),
        maybe_quote(&def.name),
        primary_key(def)
    )];
    match &plan.partitions {
        PartitionSelection::Keys(sets) => {
            lines.push(format!(
                "Partition key: {} ({})",
                key_restrictions(def, &def.partition_key, sets),
                if partition_count(sets) == Some(1) {
                    "equality"
                } else {
                    "IN"
                }
            ));
        }
        PartitionSelection::Tokens(range) => lines.push(format!(
            "Partition key: token range {}",
            token_text(def, range)
        )),
        PartitionSelection::All => lines.push(match filtered_key_columns(plan).as_slice() {
            [] => "Partition key: not restricted".to_string(),
            columns => format!(
                "Partition key: incomplete, {} filtered in every partition",
                columns.join(", ")
            ),
        }),
    }
    if let Some(range) = &plan.token_filter {
        lines.push(format!("Token filter: {}", token_text(def, range)));
    }
    lines.extend(clustering_lines(def, &plan.clustering));
    if let Some(index) = &plan.index {
        let column = maybe_quote(&def.columns[index.column].name);
        let read_directly =
            !index.has_entries || matches!(plan.partitions, PartitionSelection::Keys(_));
        lines.push(if read_directly {
            // An index on a key column has no entries, and named partitions are read directly:
            // the index only allows the query, its restriction filters the rows read.
            format!(
                "Secondary index: {} on {column} (allows the query; the rows read are checked against its restriction)",
                index.name
            )
        } else {
            format!(
                "Secondary index: {} on {column} (its entries list the candidate rows; each is checked against its row)",
                index.name
            )
        });
    }
    let filtered: Vec<String> = plan
        .filters
        .iter()
        .filter(|(i, _)| plan.index.as_ref().is_none_or(|x| x.column != *i))
        .map(|(i, _)| maybe_quote(&def.columns[*i].name))
        .collect();
    if !filtered.is_empty() {
        lines.push(format!(
            "Filtering (ALLOW FILTERING): {} checked row by row",
            filtered.join(", ")
        ));
    }
    if plan.clustering_filter.is_some() {
        lines.push(
            "Filtering (ALLOW FILTERING): each row's clustering checked against the multi-column relation's ranges"
                .to_string(),
        );
    }
    lines.push(order_line(plan));
    lines.push(format!("Examines: {}", examines(plan)));
    lines.extend(shaping_lines(plan));
    lines
}

/// The partition-key columns a plan can only filter on (the key is not complete).
fn filtered_key_columns(plan: &SelectPlan) -> Vec<String> {
    let def = &plan.table.def;
    plan.filters
        .iter()
        .filter(|(i, _)| def.partition_key.contains(i))
        .map(|(i, _)| maybe_quote(&def.columns[*i].name))
        .collect()
}

/// The order rows are read and returned in.
fn order_line(plan: &SelectPlan) -> String {
    let def = &plan.table.def;
    let within = if plan.reversed {
        "reversed clustering order"
    } else {
        "clustering order"
    };
    let mut line = match &plan.partitions {
        PartitionSelection::Keys(_) if plan.index.is_none() => {
            format!("Order: partitions in key order, rows in {within}")
        }
        _ => format!("Order: partitions in token order, rows in {within}"),
    };
    if !plan.post_order.is_empty() {
        let columns: Vec<String> = plan
            .post_order
            .iter()
            .map(|(i, desc)| {
                let order = if *desc { "DESC" } else { "ASC" };
                format!("{} {order}", maybe_quote(&def.columns[*i].name))
            })
            .collect();
        line.push_str(&format!(
            "; sorted after the read by {}",
            columns.join(", ")
        ));
    }
    line
}

/// What the read will examine, from the narrowest to the widest.
fn examines(plan: &SelectPlan) -> String {
    match &plan.partitions {
        _ if plan.index.is_some() => "the rows the index lists, across the table".into(),
        PartitionSelection::All => "the whole table".into(),
        PartitionSelection::Tokens(_) => "every partition in the token range".into(),
        PartitionSelection::Keys(sets) => {
            let partitions = match partition_count(sets) {
                Some(1) => "one partition".to_string(),
                Some(n) => format!("{n} partitions"),
                None => "the bound list of partitions".to_string(),
            };
            let def = &plan.table.def;
            let clustering = &plan.clustering;
            let width: usize = clustering.prefix.iter().map(prefix_width).sum();
            let whole_rows = clustering.slice.is_none() && width == def.clustering_key.len();
            match (whole_rows, partition_count(sets), prefix_count(clustering)) {
                (true, Some(1), Some(1)) => "one row".into(),
                (true, Some(p), Some(r)) => format!("{} rows, one per key", p * r),
                (true, _, _) => format!("one row per key, in {partitions}"),
                (false, _, _) if width > 0 || clustering.slice.is_some() => {
                    format!("a clustering range of {partitions}")
                }
                (false, _, _) => format!("all rows of {partitions}"),
            }
        }
    }
}

/// LIMIT, PER PARTITION LIMIT, DISTINCT and grouping.
fn shaping_lines(plan: &SelectPlan) -> Vec<String> {
    let mut lines = Vec::new();
    if plan.distinct {
        lines.push("Distinct: one row per partition (its static row)".into());
    }
    match plan.grouping {
        Grouping::None => {}
        Grouping::All => lines.push("Aggregate: every row folds into one result row".into()),
        Grouping::Prefix { clustering } => {
            let def = &plan.table.def;
            let columns: Vec<String> = def
                .partition_key
                .iter()
                .chain(def.clustering_key.iter().take(clustering))
                .map(|&i| maybe_quote(&def.columns[i].name))
                .collect();
            lines.push(format!("Group by: {}", columns.join(", ")));
        }
    }
    if let Some(limit) = &plan.per_partition_limit {
        lines.push(format!("Per partition limit: {limit}"));
    }
    if let Some(limit) = &plan.limit {
        if plan.post_order.is_empty() {
            lines.push(format!("Limit: {limit} (the read stops there)"));
        } else {
            lines.push(format!("Limit: {limit} (applied after the sort)"));
        }
    }
    lines
}

/// The lines of an INSERT, UPDATE or DELETE plan.
pub(crate) fn describe_modify(plan: &ModifyPlan) -> Vec<String> {
    let def = &plan.table.def;
    let verb = match plan.kind {
        ModifyKind::Insert => "INSERT into",
        ModifyKind::Update => "UPDATE of",
        ModifyKind::DeleteRows | ModifyKind::DeleteColumns | ModifyKind::DeleteRange => {
            "DELETE from"
        }
    };
    let mut lines = vec![format!(
        "{verb} {}.{}, primary key {}",
        maybe_quote(&def.keyspace),
        maybe_quote(&def.name),
        primary_key(def)
    )];
    let partitions = partition_count(&plan.partition_key);
    lines.push(format!(
        "Partition key: {} ({})",
        key_restrictions(def, &def.partition_key, &plan.partition_key),
        if partitions == Some(1) {
            "equality"
        } else {
            "IN"
        }
    ));
    if !plan.clustering_key.is_empty() {
        let columns =
            &def.clustering_key[..plan.clustering_key.len().min(def.clustering_key.len())];
        let text = match &plan.clustering_tuples {
            Some(tuples) => tuple_restrictions(def, columns, &plan.clustering_key, tuples),
            None => key_restrictions(def, columns, &plan.clustering_key),
        };
        lines.push(format!("Clustering key: {text}"));
    }
    if let Some(range) = &plan.range {
        lines.extend(clustering_lines(def, range));
    }
    if plan.conditions.is_some() {
        lines.push("Condition: lightweight transaction, reads the row before writing".into());
    }
    lines.push(format!("Writes: {}", writes(plan, partitions)));
    lines
}

/// What a write leaves: rows, a static row, range or partition tombstones.
fn writes(plan: &ModifyPlan, partitions: Option<usize>) -> String {
    let def = &plan.table.def;
    let rows = match (partitions, row_count(plan)) {
        (Some(p), Some(r)) => Some(p * r),
        _ => None,
    };
    match plan.kind {
        ModifyKind::DeleteRange if plan.range.as_ref().is_some_and(has_range) => {
            "a range tombstone in each partition".to_string()
        }
        ModifyKind::DeleteRange | ModifyKind::DeleteRows if plan.clustering_key.is_empty() => {
            if partitions == Some(1) {
                "a partition tombstone".to_string()
            } else {
                "a partition tombstone per partition".to_string()
            }
        }
        _ if plan.clustering_key.is_empty() && !def.clustering_key.is_empty() => {
            "the static row of each partition".to_string()
        }
        _ => match rows {
            Some(1) => "one row".to_string(),
            Some(n) => format!("{n} rows"),
            None => "one row per bound key".to_string(),
        },
    }
}

fn has_range(plan: &ClusteringPlan) -> bool {
    !plan.prefix.is_empty() || plan.slice.is_some()
}

/// The clustering prefix and slice lines.
fn clustering_lines(def: &TableDef, plan: &ClusteringPlan) -> Vec<String> {
    let mut lines = Vec::new();
    let mut position = 0;
    for part in &plan.prefix {
        let width = prefix_width(part);
        let names = column_names(def, position, width);
        position += width;
        lines.push(format!("Clustering prefix: {names} {part}"));
    }
    if let Some(slice) = &plan.slice {
        let bound = |b: &crate::planner::common::clustering::SliceBound, lower: bool| {
            let op = match (lower, b.inclusive) {
                (true, true) => ">=",
                (true, false) => ">",
                (false, true) => "<=",
                (false, false) => "<",
            };
            format!(
                "{} {op} {}",
                column_names(def, slice.start, b.width),
                b.term
            )
        };
        let mut parts = Vec::new();
        parts.extend(slice.lower.as_ref().map(|b| bound(b, true)));
        parts.extend(slice.upper.as_ref().map(|b| bound(b, false)));
        let mut line = format!("Clustering slice: {}", parts.join(" AND "));
        if !slice.exact {
            line.push_str(" (columns in mixed order: rows compared as tuples)");
        }
        lines.push(line);
    }
    lines
}

/// `c` or `(c, d)`: `width` clustering columns from `start`.
fn column_names(def: &TableDef, start: usize, width: usize) -> String {
    let names: Vec<String> = def
        .clustering_key
        .iter()
        .skip(start)
        .take(width.max(1))
        .map(|&i| maybe_quote(&def.columns[i].name))
        .collect();
    if names.len() == 1 {
        names.join("")
    } else {
        format!("({})", names.join(", "))
    }
}

fn prefix_width(part: &PrefixPart) -> usize {
    match part {
        PrefixPart::Single(_) => 1,
        PrefixPart::Multi { width, .. } => *width,
    }
}

/// Combinations of a clustering prefix, when they are literal.
fn prefix_count(plan: &ClusteringPlan) -> Option<usize> {
    plan.prefix.iter().try_fold(1usize, |n, part| match part {
        PrefixPart::Single(set) => Some(n.saturating_mul(set_count(set)?)),
        PrefixPart::Multi { values, .. } => match values {
            crate::planner::common::clustering::MultiValues::Tuples(t) => {
                Some(n.saturating_mul(t.len()))
            }
            crate::planner::common::clustering::MultiValues::Bind(_) => None,
        },
    })
}

/// `k = ?`, `k IN (1, 2)`, joined by AND.
fn key_restrictions(def: &TableDef, columns: &[usize], sets: &[ValueSet]) -> String {
    columns
        .iter()
        .zip(sets)
        .map(|(&i, set)| format!("{} {set}", maybe_quote(&def.columns[i].name)))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// `key_restrictions` where the columns of a multi-column `IN` print as that relation.
fn tuple_restrictions(
    def: &TableDef,
    columns: &[usize],
    sets: &[ValueSet],
    tuples: &ClusteringTuples,
) -> String {
    let end = (tuples.start + tuples.width).min(columns.len());
    let set = ValueSet::In(tuples.values.clone());
    let tuple = format!("{} {set}", column_names(def, tuples.start, tuples.width));
    let parts = [
        key_restrictions(def, &columns[..tuples.start], &sets[..tuples.start]),
        tuple,
        key_restrictions(def, &columns[end..], &sets[end.min(sets.len())..]),
    ];
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// How many clustering rows an UPDATE or DELETE names, when the lists are literal.
fn row_count(plan: &ModifyPlan) -> Option<usize> {
    let Some(tuples) = &plan.clustering_tuples else {
        return value_count(&plan.clustering_key);
    };
    let end = tuples.start + tuples.width;
    let others = value_count(&plan.clustering_key[..tuples.start])?.saturating_mul(value_count(
        plan.clustering_key.get(end..).unwrap_or_default(),
    )?);
    others.checked_mul(set_count(&ValueSet::In(tuples.values.clone()))?)
}

/// How many partitions the value sets select, when the lists are literal.
fn partition_count(sets: &[ValueSet]) -> Option<usize> {
    value_count(sets)
}

fn value_count(sets: &[ValueSet]) -> Option<usize> {
    sets.iter()
        .try_fold(1usize, |n, set| Some(n.saturating_mul(set_count(set)?)))
}

fn set_count(set: &ValueSet) -> Option<usize> {
    match set {
        ValueSet::Eq(_) => Some(1),
        ValueSet::In(InValues::List(terms)) => Some(terms.len()),
        ValueSet::In(InValues::Bind(_)) => None,
    }
}

/// `token(k) > ? AND token(k) <= ?`.
fn token_text(def: &TableDef, range: &TokenRange) -> String {
    let key: Vec<String> = def
        .partition_key
        .iter()
        .map(|&i| maybe_quote(&def.columns[i].name))
        .collect();
    let subject = format!("token({})", key.join(", "));
    let bound = |term: &Term, op: &str| format!("{subject} {op} {term}");
    let mut parts = Vec::new();
    if let Some(b) = &range.lower {
        parts.push(bound(&b.term, if b.inclusive { ">=" } else { ">" }));
    }
    if let Some(b) = &range.upper {
        parts.push(bound(&b.term, if b.inclusive { "<=" } else { "<" }));
    }
    parts.join(" AND ")
}

/// `((k1, k2), c1, c2)`.
fn primary_key(def: &TableDef) -> String {
    let name = |&i: &usize| maybe_quote(&def.columns[i].name);
    let partition: Vec<String> = def.partition_key.iter().map(name).collect();
    let mut text = format!("(({})", partition.join(", "));
    for column in def.clustering_key.iter().map(name) {
        text.push_str(", ");
        text.push_str(&column);
    }
    text.push(')');
    text
}

#[cfg(test)]
#[path = "explain_tests.rs"]
mod tests;
