//! SELECT planning: which partitions, which clustering range, what is filtered, what is
//! returned. Enforces Cassandra's primary-key rules with its messages.

pub(crate) mod aggregate;
pub(crate) mod ann;
pub(crate) mod applied_aggregate;
pub(crate) mod grouping;
pub(crate) mod index_choice;
pub(crate) mod ordering;
pub(crate) mod output;
pub(crate) mod print;
pub(crate) mod selection;
pub(crate) mod selector;
#[cfg(test)]
pub(crate) mod tests;

use std::sync::Arc;

use cql::frame::response::ColumnSpec;

use cql::statement::ast::{InValues, Operator, Relation, Select, Term};
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, RestrictionError, SelectError};
use crate::planner::common::clustering::ClusteringPlan;
use crate::planner::common::restrictions::{ColumnRestriction, ValueSet};
use crate::planner::common::token::TokenRange;
use crate::planner::common::{clustering, relation_order, restrictions, token};
use crate::planner::select::ann::AnnPlan;
use crate::planner::select::grouping::{check_distinct, plan_grouping, Grouping};
use crate::planner::select::index_choice::{FilteringNeeds, IndexUse};
use crate::planner::select::ordering::{plan_ordering, Ordering};
use crate::planner::select::selection::{plan_selection, Selection};
use crate::planner::{column_index, resolve_table};

pub(crate) use crate::planner::select::selection::{
    Aggregate, AggregateFunction, Output, OutputSource,
};
use crate::schema::{Schema, TableKind, TableRef};

/// A planned SELECT.
#[derive(Debug, Clone)]
pub(crate) struct SelectPlan {
    pub table: TableRef,
    pub outputs: Vec<Output>,
    /// Whether every output is a different table column
    /// ([`crate::planner::select::selection::distinct_columns`]).
    pub distinct_columns: bool,
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
    /// `SELECT JSON`: the result is one `[json]` text column (see `crate::eval::json`).
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
pub(crate) enum PartitionSelection {
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
pub(crate) fn plan_select(
    schema: &Schema,
    stmt: &Select,
    session_keyspace: Option<&str>,
) -> CqlResult<SelectPlan> {
    let table = resolve_table(schema, &stmt.table, session_keyspace)?;
    let selection = plan_selection(&table, stmt)?;
    let (by_column, rest) = restrictions_of(&table.def, stmt)?;
    let token = token_restriction(&table.def, &rest)?;
    let mut planning = Planning::new(stmt, &table, by_column, &rest);
    let (partitions, token_filter) = planning.partitions(token);
    let (clustering, clustering_filter) = planning.clustering()?;
    planning.filter_regular_columns();
    let ann = planning.check_filtering(&selection)?;
    let (grouping, ordering) = planning.grouping_and_order(&selection, ann.is_some())?;
    let Planning { filters, index, .. } = planning;
    let columns = result_columns(&table.def, &selection.outputs);
    Ok(SelectPlan {
        table,
        distinct_columns: crate::planner::select::selection::distinct_columns(&selection.outputs),
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

/// The WHERE clause's single-column restrictions by column, and its other relations. Without
/// a full partition key, `(c1, c2) = (v1, v2)` counts as `c1 = v1 AND c2 = v2`, as Cassandra
/// serves a multi-column equality by an index on any of its columns.
fn restrictions_of(
    def: &TableDef,
    stmt: &Select,
) -> CqlResult<(Vec<ColumnRestriction>, Vec<Relation>)> {
    let (by_column, rest) = restrictions::collect(def, &stmt.where_clause)?;
    let split = (!partition_key_full(def, &by_column))
        .then(|| restrictions::split_multi_equalities(def, &stmt.where_clause))
        .flatten();
    match &split {
        Some(relations) => restrictions::collect(def, relations),
        None => Ok((by_column, rest)),
    }
}

/// The range the `token(..)` relations give, once every relation that is neither single-column,
/// multi-column nor a token one is refused (Cassandra's "restriction is not supported").
fn token_restriction(def: &TableDef, rest: &[Relation]) -> CqlResult<Option<TokenRange>> {
    let supported = |r: &&Relation| {
        matches!(
            r,
            Relation::Token { .. } | Relation::Multi { .. } | Relation::MultiIn { .. }
        )
    };
    if let Some(relation) = rest.iter().find(|r| !supported(r)) {
        return Err(RestrictionError::UnsupportedRestriction {
            relation: relation.to_string(),
        }
        .into());
    }
    let token_relations: Vec<&Relation> = rest
        .iter()
        .filter(|r| matches!(r, Relation::Token { .. }))
        .collect();
    token::token_range(def, &token_relations)
}

/// One SELECT being planned: its statement and restrictions, and what the steps so far found
/// (the restrictions checked row by row, and whether they need ALLOW FILTERING).
struct Planning<'a> {
    stmt: &'a Select,
    def: &'a TableDef,
    /// Single-column restrictions, by column index.
    by_column: Vec<ColumnRestriction>,
    /// The multi-column relations (`(c, d) > (..)`, `(c, d) IN (..)`).
    multi: Vec<&'a Relation>,
    /// Whether every partition key column is restricted by `=`/`IN` alone.
    pk_full: bool,
    /// The secondary index read for candidate rows (none for a virtual table).
    index: Option<IndexUse>,
    /// Restrictions checked row by row.
    filters: Vec<(usize, ColumnRestriction)>,
    /// Whether the query needs ALLOW FILTERING (decided again from `needs` when an index is
    /// read).
    needs_filtering: bool,
    /// What is filtered, for that decision.
    needs: FilteringNeeds,
}

impl<'a> Planning<'a> {
    /// Starts planning `stmt` on `table`; `rest` holds the relations that are not
    /// single-column ones. The index is the first restriction an index serves.
    fn new(
        stmt: &'a Select,
        table: &'a TableRef,
        by_column: Vec<ColumnRestriction>,
        rest: &'a [Relation],
    ) -> Self {
        let def = &table.def;
        let index = match table.kind {
            TableKind::User => index_choice::choose(def, &by_column),
            TableKind::Virtual => None,
        };
        Planning {
            stmt,
            def,
            multi: rest
                .iter()
                .filter(|r| matches!(r, Relation::Multi { .. } | Relation::MultiIn { .. }))
                .collect(),
            pk_full: partition_key_full(def, &by_column),
            by_column,
            index,
            filters: Vec::new(),
            needs_filtering: false,
            needs: FilteringNeeds::default(),
        }
    }

    /// Which partitions are read, and the token range that filters them. A full partition key
    /// selects its partitions, a token range next to it narrowing them (Cassandra's
    /// `TokenFilter`); without one the token range (or every partition) is read and the key
    /// relations are filtering.
    fn partitions(
        &mut self,
        token: Option<TokenRange>,
    ) -> (PartitionSelection, Option<TokenRange>) {
        let def = self.def;
        if self.pk_full {
            let keys = def
                .partition_key
                .iter()
                .filter_map(|&i| self.by_column[i].eq.clone())
                .collect();
            return (PartitionSelection::Keys(keys), token);
        }
        for &i in &def.partition_key {
            if self.by_column[i].is_restricted() {
                self.needs_filtering = true;
                self.needs.partition_columns += 1;
                self.filters.push((i, self.by_column[i].clone()));
            }
        }
        let partitions = match token {
            Some(range) => PartitionSelection::Tokens(range),
            None => PartitionSelection::All,
        };
        (partitions, None)
    }

    /// The clustering plan: an `=`/`IN` prefix, then at most one slice (Cassandra's
    /// `ClusteringColumnRestrictions`); and the clustering ranges a read without a full
    /// partition key checks row by row instead.
    fn clustering(&mut self) -> CqlResult<(ClusteringPlan, Option<ClusteringPlan>)> {
        let def = self.def;
        // An index on a clustering column serves it out of prefix order (Cassandra's
        // `hasSupportingIndex` in `ClusteringColumnRestrictions`).
        let indexed_clustering = self
            .index
            .as_ref()
            .is_some_and(|i| def.columns[i.column].kind == ColumnKind::Clustering);
        let out_of_order_allowed = self.stmt.allow_filtering || indexed_clustering;
        relation_order::check(def, &self.stmt.where_clause, out_of_order_allowed)?;
        let mut clustering =
            clustering::plan(def, &self.by_column, &self.multi, out_of_order_allowed)?;
        self.count_clustering_filters(&clustering, indexed_clustering);
        self.filters.append(&mut clustering.filters);
        let clustering_filter = self.clustering_without_partition(&mut clustering);
        Ok((clustering, clustering_filter))
    }

    /// Counts the clustering columns checked row by row. An index serving a clustering column
    /// out of prefix order brings every clustering restriction into the row filter, as
    /// Cassandra's does: more than one is filtering.
    fn count_clustering_filters(&mut self, clustering: &ClusteringPlan, indexed_clustering: bool) {
        self.needs_filtering |= clustering.needs_filtering;
        self.needs.clustering_intrinsic = clustering.needs_filtering;
        self.needs.clustering_columns = clustering
            .filters
            .len()
            .max(usize::from(clustering.needs_filtering));
        if let Some(chosen) = self.index.as_ref().filter(|_| indexed_clustering) {
            if clustering.filters.iter().any(|(i, _)| *i == chosen.column) {
                self.needs.clustering_columns = self.restricted_clustering_columns();
            }
        }
    }

    /// How many clustering columns the WHERE clause restricts.
    fn restricted_clustering_columns(&self) -> usize {
        self.def
            .clustering_key
            .iter()
            .filter(|&&i| self.by_column[i].is_restricted())
            .count()
    }

    /// Without a full partition key, clustering restrictions are filtering, row by row: the
    /// prefix and slice are emptied, their columns join the filters, and a multi-column
    /// relation is checked as the clustering ranges it makes (returned), as Cassandra's
    /// clustering slice filter applied to every partition of a range read.
    fn clustering_without_partition(
        &mut self,
        clustering: &mut ClusteringPlan,
    ) -> Option<ClusteringPlan> {
        if self.pk_full || (clustering.prefix.is_empty() && clustering.slice.is_none()) {
            return None;
        }
        let clustering_filter = (!self.multi.is_empty()).then(|| clustering.clone());
        self.needs_filtering = true;
        self.needs.clustering_without_partition = true;
        self.needs.clustering_columns = self.restricted_clustering_columns().max(1);
        let restricted: Vec<usize> = self
            .def
            .clustering_key
            .iter()
            .copied()
            .filter(|&i| self.by_column[i].eq.is_some() || self.by_column[i].is_slice())
            .filter(|i| !self.filters.iter().any(|(f, _)| f == i))
            .collect();
        for i in restricted {
            self.filters.push((i, self.by_column[i].clone()));
        }
        clustering.prefix.clear();
        clustering.slice = None;
        clustering_filter
    }

    /// Regular and static columns can only be filtered (an index may serve one).
    fn filter_regular_columns(&mut self) {
        let def = self.def;
        for (i, col) in def.columns.iter().enumerate() {
            if matches!(col.kind, ColumnKind::Regular | ColumnKind::Static)
                && self.by_column[i].is_restricted()
            {
                self.needs_filtering = true;
                self.needs.regular_columns += 1;
                self.needs.extra_on_one_column |=
                    index_choice::several_relations(&self.by_column[i]);
                self.filters.push((i, self.by_column[i].clone()));
            }
        }
    }

    /// Cassandra's ALLOW FILTERING rule: refused when anything is checked row by row that
    /// neither the index nor an ANN ordering serves, and CONTAINS on a clustering column
    /// needs an index or ALLOW FILTERING. Plans the ANN ordering on the way.
    fn check_filtering(&mut self, selection: &Selection) -> CqlResult<Option<AnnPlan>> {
        if let Some(chosen) = &self.index {
            self.needs.also_indexed = index_choice::also_indexed(self.def, &self.by_column, chosen);
            self.needs_filtering = self.needs.needs_filtering(self.index.as_ref());
        }
        let allow_filtering = self.stmt.allow_filtering;
        if self.clustering_contains() && self.index.is_none() && !allow_filtering {
            return Err(SelectError::ClusteringContainsWithoutIndex.into());
        }
        let ann = self.plan_ann(selection)?;
        if self.needs_filtering && !allow_filtering && ann.is_none() {
            return Err(SelectError::NeedsFiltering.into());
        }
        Ok(ann)
    }

    /// Whether a clustering column is restricted by CONTAINS or CONTAINS KEY.
    fn clustering_contains(&self) -> bool {
        self.def.clustering_key.iter().any(|&i| {
            self.by_column[i]
                .other
                .iter()
                .any(|(op, _)| matches!(op, Operator::Contains | Operator::ContainsKey))
        })
    }

    /// `ORDER BY v ANN OF ..`, refused with Cassandra 5.0's messages in a grouped query, and
    /// no vector-indexed column restricted otherwise (its index only ranks).
    fn plan_ann(&self, selection: &Selection) -> CqlResult<Option<AnnPlan>> {
        let (def, stmt) = (self.def, self.stmt);
        let grouping = if stmt.ann.is_empty() {
            Grouping::None
        } else {
            plan_grouping(def, stmt, selection, &self.eq_restricted())?
        };
        let ann = ann::plan(def, stmt, &self.by_column, self.pk_full, grouping)?;
        ann::check_vector_restrictions(def, &self.by_column)?;
        Ok(ann)
    }

    /// DISTINCT's checks, the GROUP BY grouping (PER PARTITION LIMIT refused with an aggregate
    /// over all rows) and the row order (none for `ann`, which orders by score). Columns fixed
    /// by `=` may be skipped by GROUP BY and ORDER BY.
    fn grouping_and_order(
        &self,
        selection: &Selection,
        ann: bool,
    ) -> CqlResult<(Grouping, Ordering)> {
        let (def, stmt) = (self.def, self.stmt);
        let eq_restricted = self.eq_restricted();
        let pk_in = self.pk_full
            && def.partition_key.iter().any(|&i| {
                matches!(self.by_column[i].eq, Some(ValueSet::In(_))) && !eq_restricted[i]
            });
        if stmt.distinct {
            check_distinct(
                def,
                stmt,
                selection,
                !self.pk_full,
                self.restricts_non_partition(),
            )?;
        }
        let grouping = plan_grouping(def, stmt, selection, &eq_restricted)?;
        if grouping == Grouping::All && stmt.per_partition_limit.is_some() {
            return Err(SelectError::PerPartitionLimitWithAggregate.into());
        }
        let ordering = if ann {
            Ordering::default()
        } else {
            plan_ordering(
                def,
                stmt,
                &eq_restricted,
                self.uses_secondary_index(),
                self.pk_full,
                pk_in,
            )?
        };
        Ok((grouping, ordering))
    }

    /// Cassandra's `StatementRestrictions.usesSecondaryIndexing`: an index serves a restriction
    /// and the query needs it, because the partition key is not fixed by `=`/`IN`, or a
    /// clustering, regular or static column is checked row by row.
    fn uses_secondary_index(&self) -> bool {
        self.index.is_some()
            && (!self.pk_full
                || self.needs.regular_columns > 0
                || self.needs.clustering_columns > 0
                || self.needs.clustering_intrinsic)
    }

    /// Whether the WHERE clause restricts a clustering or regular column (DISTINCT refuses it).
    fn restricts_non_partition(&self) -> bool {
        !self.multi.is_empty()
            || self.def.columns.iter().enumerate().any(|(i, c)| {
                matches!(c.kind, ColumnKind::Clustering | ColumnKind::Regular)
                    && self.by_column[i].is_restricted()
            })
    }

    /// Which columns are fixed to one value (see [`eq_restricted_columns`]).
    fn eq_restricted(&self) -> Vec<bool> {
        eq_restricted_columns(self.def, &self.by_column, &self.multi)
    }
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
