//! SELECT planning: which partitions, which clustering range, what is filtered, what is
//! returned. Enforces Cassandra's primary-key rules with its messages.

use std::fmt;
use std::sync::Arc;

use cql::frame::response::ColumnSpec;

use cql::statement::ast::{InValues, Operator, Relation, Select, Term};
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, SelectError};
use crate::planner::ann::{self, AnnPlan};
use crate::planner::clustering::{self, ClusteringPlan, PrefixPart};
use crate::planner::grouping::{check_distinct, plan_grouping, Grouping};
use crate::planner::index_choice::{self, FilteringNeeds, IndexUse};
use crate::planner::ordering::{plan_ordering, Ordering};
use crate::planner::restrictions::{self, ColumnRestriction, ValueSet};
use crate::planner::selection::plan_selection;
use crate::planner::token::{self, TokenRange};
use crate::planner::{column_index, relation_order, resolve_table};

pub use crate::planner::selection::{Aggregate, AggregateFunction, Output, OutputSource};
use crate::schema::{Schema, TableKind, TableRef};

/// Cassandra's message when a query needs ALLOW FILTERING (`SelectError::NeedsFiltering`).
pub use crate::error::ALLOW_FILTERING_MESSAGE;

/// A planned SELECT.
#[derive(Debug, Clone)]
pub struct SelectPlan {
    pub table: TableRef,
    pub outputs: Vec<Output>,
    /// The result's column specs, one per output: PREPARE's result metadata, and the metadata
    /// of every Rows answer (shared, not rebuilt per execution).
    pub columns: Arc<[ColumnSpec]>,
    pub partitions: PartitionSelection,
    /// A token range the selected partitions must also fall in (`token(k) > ? AND k IN ..`).
    pub token_filter: Option<TokenRange>,
    /// The clustering prefix and slice.
    pub clustering: ClusteringPlan,
    /// Restrictions checked row by row (ALLOW FILTERING).
    pub filters: Vec<(usize, ColumnRestriction)>,
    /// Clustering restrictions with a multi-column relation, read without a full partition
    /// key: each row's clustering must fall in their ranges (filtering, as Cassandra's
    /// clustering slice filter applied to every partition of a range read).
    pub clustering_filter: Option<ClusteringPlan>,
    pub limit: Option<Term>,
    pub per_partition_limit: Option<Term>,
    /// Whether rows come in the reverse of the table's clustering order.
    pub reversed: bool,
    /// How rows fold into result rows (GROUP BY, aggregates).
    pub grouping: Grouping,
    /// `SELECT DISTINCT`: one row per partition.
    pub distinct: bool,
    /// `SELECT JSON`: the result is one `[json]` text column (see `crate::json`).
    pub json: bool,
    /// `toJson(x)` outputs: index and the type of `x` (see `Selection::to_json`).
    pub to_json: Vec<(usize, cql::types::ColumnType)>,
    /// ORDER BY over several partitions (`IN`): columns to sort the result by.
    pub post_order: Vec<(usize, bool)>,
    /// The secondary index read for candidate rows; its restriction stays in `filters`, so
    /// every candidate is re-checked against the base row.
    pub index: Option<IndexUse>,
    /// `ORDER BY v ANN OF ...`: rows are scored and the best LIMIT returned.
    pub ann: Option<AnnPlan>,
}

/// Which partitions a SELECT reads.
#[derive(Debug, Clone)]
pub enum PartitionSelection {
    /// Every partition, in token order.
    All,
    /// The partitions whose key columns take these values (one set per key column).
    Keys(Vec<ValueSet>),
    /// Partitions whose token lies in a range, in token order.
    Tokens(TokenRange),
}

/// Whether every partition key component is restricted by = or IN, and by nothing else.
fn partition_key_full(def: &TableDef, by_column: &[restrictions::ColumnRestriction]) -> bool {
    def.partition_key.iter().all(|&i| {
        let r = &by_column[i];
        r.eq.is_some() && !r.is_slice() && r.other.is_empty()
    })
}

/// Plans `stmt` against `schema`.
pub fn plan_select(
    schema: &Schema,
    stmt: &Select,
    session_keyspace: Option<&str>,
) -> CqlResult<SelectPlan> {
    let table = resolve_table(schema, &stmt.table, session_keyspace)?;
    let def = &table.def;
    let selection = plan_selection(&table, stmt)?;
    let (by_column, rest) = restrictions::collect(def, &stmt.where_clause)?;
    let split = (!partition_key_full(def, &by_column))
        .then(|| restrictions::split_multi_equalities(def, &stmt.where_clause))
        .flatten();
    let (by_column, rest) = match &split {
        Some(relations) => restrictions::collect(def, relations)?,
        None => (by_column, rest),
    };
    let token_relations: Vec<&Relation> = rest
        .iter()
        .filter(|r| matches!(r, Relation::Token { .. }))
        .collect();
    let supported = |r: &&Relation| {
        matches!(
            r,
            Relation::Token { .. } | Relation::Multi { .. } | Relation::MultiIn { .. }
        )
    };
    if let Some(relation) = rest.iter().find(|r| !supported(r)) {
        return Err(SelectError::UnsupportedRestriction {
            relation: relation.to_string(),
        }
        .into());
    }
    // A token range next to key relations narrows the partitions they select (Cassandra's
    // TokenFilter); without a full key it selects the range and the key relations filter.
    let token = token::token_range(def, &token_relations)?;
    let mut filters = Vec::new();
    let mut needs_filtering = false;
    let mut needs = FilteringNeeds::default();

    let pk_full = partition_key_full(def, &by_column);
    let mut token_filter = None;
    let partitions = if pk_full {
        token_filter = token.clone();
        PartitionSelection::Keys(
            def.partition_key
                .iter()
                .filter_map(|&i| by_column[i].eq.clone())
                .collect(),
        )
    } else {
        for &i in &def.partition_key {
            if by_column[i].is_restricted() {
                needs_filtering = true;
                needs.partition_columns += 1;
                filters.push((i, by_column[i].clone()));
            }
        }
        match token {
            Some(range) => PartitionSelection::Tokens(range),
            None => PartitionSelection::All,
        }
    };

    // Clustering columns: an =/IN prefix, then at most one slice.
    let multi: Vec<&Relation> = rest
        .iter()
        .filter(|r| matches!(r, Relation::Multi { .. } | Relation::MultiIn { .. }))
        .collect();
    let index = match table.kind {
        TableKind::User => index_choice::choose(def, &by_column),
        TableKind::Virtual => None,
    };
    // An index on a clustering column serves it out of prefix order (Cassandra's
    // `hasSupportingIndex` in `ClusteringColumnRestrictions`).
    let indexed_clustering = index
        .as_ref()
        .is_some_and(|i| def.columns[i.column].kind == ColumnKind::Clustering);
    relation_order::check(
        def,
        &stmt.where_clause,
        stmt.allow_filtering || indexed_clustering,
    )?;
    let mut clustering = clustering::plan(
        def,
        &by_column,
        &multi,
        stmt.allow_filtering || indexed_clustering,
    )?;
    needs_filtering |= clustering.needs_filtering;
    needs.clustering_intrinsic = clustering.needs_filtering;
    needs.clustering_columns = clustering
        .filters
        .len()
        .max(usize::from(clustering.needs_filtering));
    if let Some(chosen) = index.as_ref().filter(|_| indexed_clustering) {
        // An index serving a clustering column out of prefix order brings every clustering
        // restriction into the row filter, as Cassandra's does: more than one is filtering.
        if clustering.filters.iter().any(|(i, _)| *i == chosen.column) {
            needs.clustering_columns = def
                .clustering_key
                .iter()
                .filter(|&&i| by_column[i].is_restricted())
                .count();
        }
    }
    filters.append(&mut clustering.filters);
    let mut clustering_filter = None;
    if !pk_full && (!clustering.prefix.is_empty() || clustering.slice.is_some()) {
        // Without a partition key, clustering restrictions are filtering, row by row; a
        // multi-column relation is checked as the clustering ranges it makes.
        if !multi.is_empty() {
            clustering_filter = Some(clustering.clone());
        }
        needs_filtering = true;
        needs.clustering_without_partition = true;
        needs.clustering_columns = def
            .clustering_key
            .iter()
            .filter(|&&i| by_column[i].is_restricted())
            .count()
            .max(1);
        let restricted: Vec<usize> = def
            .clustering_key
            .iter()
            .copied()
            .filter(|&i| by_column[i].eq.is_some() || by_column[i].is_slice())
            .filter(|i| !filters.iter().any(|(f, _)| f == i))
            .collect();
        for i in restricted {
            filters.push((i, by_column[i].clone()));
        }
        clustering.prefix.clear();
        clustering.slice = None;
    }

    // Regular and static columns can only be filtered.
    for (i, col) in def.columns.iter().enumerate() {
        if matches!(col.kind, ColumnKind::Regular | ColumnKind::Static)
            && by_column[i].is_restricted()
        {
            needs_filtering = true;
            needs.regular_columns += 1;
            needs.extra_on_one_column |= index_choice::several_relations(&by_column[i]);
            filters.push((i, by_column[i].clone()));
        }
    }
    if let Some(chosen) = &index {
        needs.also_indexed = index_choice::also_indexed(def, &by_column, chosen);
        needs_filtering = needs.needs_filtering(index.as_ref());
    }
    let clustering_contains = def.clustering_key.iter().any(|&i| {
        by_column[i]
            .other
            .iter()
            .any(|(op, _)| matches!(op, Operator::Contains | Operator::ContainsKey))
    });
    if clustering_contains && index.is_none() && !stmt.allow_filtering {
        return Err(SelectError::ClusteringContainsWithoutIndex.into());
    }
    let grouping_for_ann = if stmt.ann.is_empty() {
        Grouping::None
    } else {
        plan_grouping(
            def,
            stmt,
            &selection,
            &eq_restricted_columns(def, &by_column, &multi),
        )?
    };
    let ann = ann::plan(def, stmt, &by_column, pk_full, grouping_for_ann)?;
    ann::check_vector_restrictions(def, &by_column)?;
    if needs_filtering && !stmt.allow_filtering && ann.is_none() {
        return Err(SelectError::NeedsFiltering.into());
    }

    let eq_restricted = eq_restricted_columns(def, &by_column, &multi);
    let pk_in = pk_full
        && def
            .partition_key
            .iter()
            .any(|&i| matches!(by_column[i].eq, Some(ValueSet::In(_))) && !eq_restricted[i]);
    if stmt.distinct {
        let restricts_non_partition = !multi.is_empty()
            || def.columns.iter().enumerate().any(|(i, c)| {
                matches!(c.kind, ColumnKind::Clustering | ColumnKind::Regular)
                    && by_column[i].is_restricted()
            });
        check_distinct(def, stmt, &selection, !pk_full, restricts_non_partition)?;
    }
    let grouping = plan_grouping(def, stmt, &selection, &eq_restricted)?;
    if grouping == Grouping::All && stmt.per_partition_limit.is_some() {
        return Err(SelectError::PerPartitionLimitWithAggregate.into());
    }
    let ordering = if ann.is_some() {
        Ordering::default()
    } else {
        plan_ordering(def, stmt, &eq_restricted, pk_full, pk_in)?
    };
    let columns = result_columns(def, &selection.outputs);
    Ok(SelectPlan {
        table,
        outputs: selection.outputs,
        columns,
        to_json: selection.to_json,
        partitions,
        token_filter,
        clustering,
        filters,
        clustering_filter,
        limit: stmt.limit.clone(),
        per_partition_limit: stmt.per_partition_limit.clone(),
        reversed: ordering.reversed,
        grouping,
        distinct: stmt.distinct,
        json: stmt.json,
        post_order: ordering.post_order,
        index,
        ann,
    })
}

/// The column spec of each output, in the table's keyspace and name.
fn result_columns(def: &TableDef, outputs: &[Output]) -> Arc<[ColumnSpec]> {
    outputs
        .iter()
        .map(|o| ColumnSpec {
            keyspace: def.keyspace.clone(),
            table: def.name.clone(),
            name: o.name.clone(),
            ty: o.ty.clone(),
        })
        .collect()
}

/// Which columns are fixed to one value by `=` (or an `IN` of one literal, which Cassandra
/// treats as `=`), single- or multi-column.
fn eq_restricted_columns(
    def: &TableDef,
    by_column: &[ColumnRestriction],
    multi: &[&Relation],
) -> Vec<bool> {
    let mut fixed: Vec<bool> = by_column
        .iter()
        .map(|r| match &r.eq {
            Some(ValueSet::Eq(_)) => true,
            Some(ValueSet::In(InValues::List(terms))) => terms.len() == 1,
            _ => false,
        })
        .collect();
    for relation in multi {
        let columns = match relation {
            Relation::Multi {
                columns,
                op: Operator::Eq,
                ..
            } => columns,
            Relation::MultiIn {
                columns,
                values: InValues::List(terms),
            } if terms.len() == 1 => columns,
            _ => continue,
        };
        for ident in columns {
            if let Ok(i) = column_index(def, ident) {
                fixed[i] = true;
            }
        }
    }
    fixed
}

impl fmt::Display for SelectPlan {
    /// A one-line description, for tests and debug logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let def = &self.table.def;
        write!(f, "Select {}.{}", def.keyspace, def.name)?;
        match &self.partitions {
            PartitionSelection::All => f.write_str(" scan")?,
            PartitionSelection::Tokens(range) => {
                f.write_str(" tokens")?;
                write_token_range(f, range)?;
            }
            PartitionSelection::Keys(sets) => {
                let keys: Vec<String> = sets
                    .iter()
                    .zip(&def.partition_key)
                    .map(|(set, &i)| format!("{} {set}", def.columns[i].name))
                    .collect();
                f.write_str(" partitions[")?;
                cql::statement::comma(f, &keys)?;
                f.write_str("]")?;
            }
        }
        if let Some(range) = &self.token_filter {
            f.write_str(" token filter")?;
            write_token_range(f, range)?;
        }
        let mut position = 0;
        for part in &self.clustering.prefix {
            let width = match part {
                PrefixPart::Single(_) => 1,
                PrefixPart::Multi { width, .. } => *width,
            };
            let names: Vec<&str> = def
                .clustering_key
                .iter()
                .skip(position)
                .take(width)
                .map(|&i| def.columns[i].name.as_str())
                .collect();
            position += width;
            match part {
                PrefixPart::Single(set) => write!(f, " clustering {} {set}", names.join(""))?,
                PrefixPart::Multi { .. } => write!(f, " clustering ({}) {part}", names.join(", "))?,
            }
        }
        if let Some(slice) = &self.clustering.slice {
            if let Some(&i) = def.clustering_key.get(slice.start) {
                write_bounds(
                    f,
                    &format!(" {}", def.columns[i].name),
                    slice.lower.as_ref().map(|b| (&b.term, b.inclusive)),
                    slice.upper.as_ref().map(|b| (&b.term, b.inclusive)),
                )?;
                if !slice.exact {
                    f.write_str(" (tuple-filtered)")?;
                }
            }
        }
        if let Some(index) = &self.index {
            write!(f, " index[{}]", index.name)?;
        }
        if !self.filters.is_empty() {
            let names: Vec<&str> = self
                .filters
                .iter()
                .map(|(i, _)| def.columns[*i].name.as_str())
                .collect();
            f.write_str(" filter[")?;
            cql::statement::comma(f, &names)?;
            f.write_str("]")?;
        }
        if self.clustering_filter.is_some() {
            f.write_str(" clustering-filter")?;
        }
        if self.reversed {
            f.write_str(" reversed")?;
        }
        if !self.post_order.is_empty() {
            let columns: Vec<String> = self
                .post_order
                .iter()
                .map(|(i, desc)| {
                    let order = if *desc { "DESC" } else { "ASC" };
                    format!("{} {order}", def.columns[*i].name)
                })
                .collect();
            f.write_str(" sort[")?;
            cql::statement::comma(f, &columns)?;
            f.write_str("]")?;
        }
        if self.distinct {
            f.write_str(" distinct")?;
        }
        write!(f, "{}", self.grouping)?;
        if let Some(limit) = &self.per_partition_limit {
            write!(f, " per partition limit {limit}")?;
        }
        if let Some(limit) = &self.limit {
            write!(f, " limit {limit}")?;
        }
        Ok(())
    }
}

fn write_token_range(f: &mut fmt::Formatter<'_>, range: &TokenRange) -> fmt::Result {
    write_bounds(
        f,
        "",
        range.lower.as_ref().map(|b| (&b.term, b.inclusive)),
        range.upper.as_ref().map(|b| (&b.term, b.inclusive)),
    )
}

/// Writes ` {subject} >= lower {subject} < upper`, each side when present.
pub(super) fn write_bounds(
    f: &mut fmt::Formatter<'_>,
    subject: &str,
    lower: Option<(&Term, bool)>,
    upper: Option<(&Term, bool)>,
) -> fmt::Result {
    if let Some((term, inclusive)) = lower {
        write!(f, "{subject} {} {term}", if inclusive { ">=" } else { ">" })?;
    }
    if let Some((term, inclusive)) = upper {
        write!(f, "{subject} {} {term}", if inclusive { "<=" } else { "<" })?;
    }
    Ok(())
}
