//! Clustering-column restrictions: an `=`/`IN` prefix (single- or multi-column), then at most
//! one slice (single- or multi-column), exactly as Cassandra orders them; whatever comes after
//! a gap or a slice is filtering (ALLOW FILTERING) or Cassandra's error.

use std::fmt;

use cql::statement::ast::{BindMarker, Ident, InValues, Operator, Relation, Term};
use storage::{ClusteringOrder, TableDef};

use crate::error::{CqlError, CqlResult, RestrictionError};
use crate::planner::column_index;
use crate::planner::common::restrictions::{Bound, ColumnRestriction, ValueSet};

/// One part of the `=`/`IN` clustering prefix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PrefixPart {
    /// One column restricted by `=`/`IN`.
    Single(ValueSet),
    /// `(c1, .., cn) = (..)` or `(c1, .., cn) IN ((..), ..)` covering `width` columns.
    Multi { width: usize, values: MultiValues },
}

/// The tuples of a multi-column `=`/`IN`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MultiValues {
    /// Tuple terms (`Term::Tuple` or a marker bound to a tuple).
    Tuples(Vec<Term>),
    /// `IN ?`: a marker bound to a list of tuples.
    Bind(BindMarker),
}

/// One bound of a clustering slice over `width` columns starting at the slice's column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SliceBound {
    pub width: usize,
    /// A single value (`multi == false`) or a tuple term / tuple marker.
    pub term: Term,
    pub multi: bool,
    pub inclusive: bool,
}

/// The slice on the clustering columns after the prefix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClusteringSlice {
    /// Position (in the clustering key) of the first sliced column.
    pub start: usize,
    pub lower: Option<SliceBound>,
    pub upper: Option<SliceBound>,
    /// Whether the slice is an exact byte range (all sliced columns in one direction); if not,
    /// the prefix range is scanned and rows are compared as tuples.
    pub exact: bool,
    /// Whether that direction is descending.
    pub desc: bool,
}

/// The clustering part of a plan.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ClusteringPlan {
    pub prefix: Vec<PrefixPart>,
    pub slice: Option<ClusteringSlice>,
    /// Single-column restrictions checked row by row.
    pub filters: Vec<(usize, ColumnRestriction)>,
    pub needs_filtering: bool,
}

/// Multi-column relations grouped by the clustering position of their first column.
struct MultiRelation {
    width: usize,
    op: Operator,
    value: MultiTerm,
}

enum MultiTerm {
    One(Term),
    In(InValues),
}

/// Validates a multi-column relation's columns; returns the first clustering position.
fn multi_start(def: &TableDef, columns: &[Ident]) -> CqlResult<usize> {
    let mut positions = Vec::with_capacity(columns.len());
    for column in columns {
        let i = column_index(def, column)?;
        match def.clustering_key.iter().position(|&c| c == i) {
            Some(p) => positions.push(p),
            None => {
                return Err(RestrictionError::MultiColumnOnNonClustering {
                    column: column.name.clone(),
                }
                .into())
            }
        }
    }
    let start = positions.first().copied().unwrap_or(0);
    if positions.iter().enumerate().any(|(n, &p)| p != start + n) {
        return Err(RestrictionError::MultiColumnOutOfOrder {
            columns: columns.iter().map(|c| c.name.clone()).collect(),
        }
        .into());
    }
    Ok(start)
}

/// Plans the clustering restrictions. `single` holds single-column restrictions by column
/// index; `multi` the multi-column relations.
pub(crate) fn plan(
    def: &TableDef,
    single: &[ColumnRestriction],
    multi: &[&Relation],
    allow_filtering: bool,
) -> CqlResult<ClusteringPlan> {
    let mut by_start = multi_by_start(def, single, multi)?;
    merge_single_slices(def, single, &mut by_start);
    let mut planning = Planning {
        def,
        single,
        by_start,
        allow_filtering,
        preceding: None,
        out: ClusteringPlan::default(),
    };
    let position = planning.prefix()?;
    planning.slice(position)?;
    planning.filters(position)?;
    Ok(planning.out)
}

/// Whether `op` bounds a slice.
fn is_slice_operator(op: Operator) -> bool {
    matches!(
        op,
        Operator::Gt | Operator::Gte | Operator::Lt | Operator::Lte
    )
}

/// Whether any of `multis` is a slice.
fn has_slice(multis: &[MultiRelation]) -> bool {
    multis.iter().any(|m| is_slice_operator(m.op))
}

/// The multi-column relations by the clustering position of their first column, each
/// checked against the single-column relations on its columns.
fn multi_by_start(
    def: &TableDef,
    single: &[ColumnRestriction],
    multi: &[&Relation],
) -> CqlResult<Vec<Vec<MultiRelation>>> {
    let mut by_start: Vec<Vec<MultiRelation>> =
        (0..def.clustering_key.len()).map(|_| Vec::new()).collect();
    for relation in multi {
        let (columns, op, value) = match relation {
            Relation::Multi { columns, op, value } => (columns, *op, MultiTerm::One(value.clone())),
            Relation::MultiIn { columns, values } => {
                (columns, Operator::In, MultiTerm::In(values.clone()))
            }
            _ => continue,
        };
        let start = multi_start(def, columns)?;
        check_single_overlap(def, single, columns, is_slice_operator(op))?;
        if let Some(slot) = by_start.get_mut(start) {
            slot.push(MultiRelation {
                width: columns.len(),
                op,
                value,
            });
        }
    }
    Ok(by_start)
}

/// A column of a multi-column relation takes no single-column relation (Cassandra's "both a
/// multi-column and a single-column relation"), except a slice on the first column of a
/// multi-column slice, which joins it (`(c, d) > (1, 0) AND c <= 2`); a slice on a later
/// column is two inequalities.
fn check_single_overlap(
    def: &TableDef,
    single: &[ColumnRestriction],
    columns: &[Ident],
    is_slice: bool,
) -> CqlResult<()> {
    for (n, column) in columns.iter().enumerate() {
        let i = column_index(def, column)?;
        if n == 0 && is_slice && pure_slice(&single[i]) {
            continue;
        }
        if is_slice && pure_slice(&single[i]) {
            return Err(RestrictionError::TwoInequalities {
                column: column.name.clone(),
            }
            .into());
        }
        if single[i].is_restricted() {
            return Err(RestrictionError::MultiAndSingleColumn {
                column: column.name.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// A single-column slice on the first column of a multi-column slice joins it as one-column
/// tuple bounds, as Cassandra merges them.
fn merge_single_slices(
    def: &TableDef,
    single: &[ColumnRestriction],
    by_start: &mut [Vec<MultiRelation>],
) {
    for (position, multis) in by_start.iter_mut().enumerate() {
        let r = &single[def.clustering_key[position]];
        if !(has_slice(multis) && pure_slice(r)) {
            continue;
        }
        let bounds = [
            (&r.lower, Operator::Gt, Operator::Gte),
            (&r.upper, Operator::Lt, Operator::Lte),
        ];
        for (bound, exclusive, inclusive) in bounds {
            if let Some(b) = bound {
                multis.push(MultiRelation {
                    width: 1,
                    op: if b.inclusive { inclusive } else { exclusive },
                    value: MultiTerm::One(Term::Tuple(vec![b.term.clone()])),
                });
            }
        }
    }
}

/// The clustering restrictions being planned, and the plan so far.
struct Planning<'a> {
    def: &'a TableDef,
    /// Single-column restrictions by column index.
    single: &'a [ColumnRestriction],
    /// Multi-column relations by the clustering position of their first column.
    by_start: Vec<Vec<MultiRelation>>,
    allow_filtering: bool,
    /// The first clustering column after the prefix that Cassandra's key-order message names,
    /// and whether it is restricted (by a slice or a filter) rather than unrestricted.
    preceding: Option<(usize, bool)>,
    out: ClusteringPlan,
}

impl Planning<'_> {
    /// The `=`/`IN` prefix: from the first clustering column on, single-column `=`/`IN`s and
    /// multi-column ones, a multi-column `=`/`IN` taking no other relation starting at its
    /// column. Returns the clustering position after the prefix.
    fn prefix(&mut self) -> CqlResult<usize> {
        let def = self.def;
        let mut position = 0;
        while position < def.clustering_key.len() {
            let i = def.clustering_key[position];
            let multis = &self.by_start[position];
            if let Some(m) = multis
                .iter()
                .find(|m| matches!(m.op, Operator::Eq | Operator::In))
            {
                if multis.len() > 1 {
                    return Err(RestrictionError::EqWithOtherRelation {
                        column: def.columns[i].name.clone(),
                    }
                    .into());
                }
                let values = match &m.value {
                    MultiTerm::One(term) => MultiValues::Tuples(vec![term.clone()]),
                    MultiTerm::In(InValues::List(terms)) => MultiValues::Tuples(terms.clone()),
                    MultiTerm::In(InValues::Bind(marker)) => MultiValues::Bind(marker.clone()),
                };
                self.out.prefix.push(PrefixPart::Multi {
                    width: m.width,
                    values,
                });
                position += m.width;
                continue;
            }
            let r = &self.single[i];
            if multis.is_empty() && r.eq.is_some() && r.other.is_empty() && !r.is_slice() {
                self.out.prefix.push(PrefixPart::Single(
                    r.eq.clone()
                        .unwrap_or(ValueSet::In(InValues::List(Vec::new()))),
                ));
                position += 1;
                continue;
            }
            break;
        }
        Ok(position)
    }

    /// The slice on the column at `position`, right after the prefix: the multi-column bounds
    /// starting there, or the column's own range when nothing else restricts it.
    fn slice(&mut self, position: usize) -> CqlResult<()> {
        let def = self.def;
        let Some(&i) = def.clustering_key.get(position) else {
            return Ok(());
        };
        let multis = &self.by_start[position];
        let r = &self.single[i];
        if !multis.is_empty() {
            self.out.slice = Some(multi_slice(def, position, multis)?);
        } else if r.is_slice() && r.other.is_empty() {
            self.out.slice = Some(single_slice(def, position, r));
        }
        Ok(())
    }

    /// Everything after the prefix (at `position`) and the slice is filtering: with ALLOW
    /// FILTERING, else refused for key order unless it is a CONTAINS.
    fn filters(&mut self, position: usize) -> CqlResult<()> {
        let def = self.def;
        let covered = position + self.out.slice.as_ref().map_or(0, slice_width);
        let mut filtered_until = 0;
        for (p, &i) in def.clustering_key.iter().enumerate() {
            if p < position || p < filtered_until {
                continue;
            }
            if p == position && self.out.slice.is_some() {
                self.preceding = Some((i, true));
                continue;
            }
            if p < covered {
                continue;
            }
            if self.by_start[p].is_empty() {
                self.single_filter(p, i, position)?;
            } else {
                filtered_until = p + self.multi_filters(p, i)?;
            }
        }
        Ok(())
    }

    /// Multi-column relations starting at position `p` (column `i`) after the prefix and
    /// slice: with ALLOW FILTERING an equality to a tuple literal filters each of its
    /// columns (returns how many); anything else is refused, a slice with Cassandra's
    /// "cannot be used for filtering", the rest for key order.
    fn multi_filters(&mut self, p: usize, i: usize) -> CqlResult<usize> {
        let multis = &self.by_start[p];
        if let Some(filters) = self
            .allow_filtering
            .then(|| multi_eq_filters(self.def, p, multis))
            .flatten()
        {
            let width = filters.len();
            self.out.needs_filtering = true;
            self.out.filters.extend(filters);
            self.preceding.get_or_insert((i, true));
            return Ok(width);
        }
        if self.allow_filtering && has_slice(multis) {
            return Err(RestrictionError::MultiColumnSliceFiltering.into());
        }
        let (prev, non_eq) = self.preceding.unwrap_or((i, false));
        Err(key_order_error(self.def, i, prev, non_eq))
    }

    /// A single-column restriction at position `p` (column `i`) after the prefix (at
    /// `position`) and slice: filtering. Without ALLOW FILTERING Cassandra refuses it for
    /// key order when a column before it is unrestricted or sliced, except a CONTAINS after
    /// an unrestricted column, which the select planner refuses with its own message (CONTAINS
    /// is always filtering); after a slice, key order comes first.
    fn single_filter(&mut self, p: usize, i: usize, position: usize) -> CqlResult<()> {
        let r = &self.single[i];
        if !r.is_restricted() {
            self.preceding.get_or_insert((i, false));
            return Ok(());
        }
        let after_slice = self.preceding.is_some_and(|(_, non_eq)| non_eq);
        let exempt = contains_only(r) && !after_slice;
        if !self.allow_filtering && !exempt && (self.preceding.is_some() || p > position) {
            let (prev, non_eq) = self.preceding.unwrap_or((i, false));
            return Err(key_order_error(self.def, i, prev, non_eq));
        }
        self.out.needs_filtering = true;
        self.out.filters.push((i, r.clone()));
        self.preceding.get_or_insert((i, true));
        Ok(())
    }
}

/// The range of the one clustering column at `position`, as an exact slice in the column's
/// order.
fn single_slice(def: &TableDef, position: usize, r: &ColumnRestriction) -> ClusteringSlice {
    let bound = |b: &Option<Bound>| {
        b.as_ref().map(|b| SliceBound {
            width: 1,
            term: b.term.clone(),
            multi: false,
            inclusive: b.inclusive,
        })
    };
    let i = def.clustering_key[position];
    ClusteringSlice {
        start: position,
        lower: bound(&r.lower),
        upper: bound(&r.upper),
        exact: true,
        desc: def.columns[i].order == ClusteringOrder::Desc,
    }
}

/// Cassandra's message for clustering column `column` restricted out of key order, after
/// `preceding` (restricted by a slice when `non_eq`, else unrestricted).
fn key_order_error(def: &TableDef, column: usize, preceding: usize, non_eq: bool) -> CqlError {
    RestrictionError::ClusteringKeyOrder {
        column: def.columns[column].name.clone(),
        preceding: def.columns[preceding].name.clone(),
        preceding_non_eq: non_eq,
    }
    .into()
}

/// A multi-column equality to a tuple literal that starts after the key prefix, as one
/// filtering equality per column (`(c1, c2) = (1, 2)` is `c1 = 1 AND c2 = 2`); `None` for any
/// other multi-column relation there.
fn multi_eq_filters(
    def: &TableDef,
    start: usize,
    multis: &[MultiRelation],
) -> Option<Vec<(usize, ColumnRestriction)>> {
    let [MultiRelation {
        width,
        op: Operator::Eq,
        value: MultiTerm::One(Term::Tuple(items)),
    }] = multis
    else {
        return None;
    };
    if items.len() != *width {
        return None;
    }
    let columns = def.clustering_key.get(start..start + width)?;
    Some(
        columns
            .iter()
            .zip(items)
            .map(|(&column, term)| {
                let restriction = ColumnRestriction {
                    eq: Some(ValueSet::Eq(term.clone())),
                    ..ColumnRestriction::default()
                };
                (column, restriction)
            })
            .collect(),
    )
}

fn slice_width(slice: &ClusteringSlice) -> usize {
    let w = |b: &Option<SliceBound>| b.as_ref().map_or(0, |b| b.width);
    w(&slice.lower).max(w(&slice.upper)).max(1)
}

/// Whether a column is restricted by CONTAINS / CONTAINS KEY and nothing else.
fn contains_only(r: &ColumnRestriction) -> bool {
    r.eq.is_none()
        && !r.is_slice()
        && !r.other.is_empty()
        && r.other
            .iter()
            .all(|(op, _)| matches!(op, Operator::Contains | Operator::ContainsKey))
}

/// Whether a column is restricted by a slice and nothing else.
fn pure_slice(r: &ColumnRestriction) -> bool {
    r.is_slice() && r.eq.is_none() && r.other.is_empty()
}

fn multi_slice(
    def: &TableDef,
    start: usize,
    multis: &[MultiRelation],
) -> CqlResult<ClusteringSlice> {
    let mut slice = ClusteringSlice {
        start,
        lower: None,
        upper: None,
        exact: true,
        desc: false,
    };
    let first = def.columns[def.clustering_key[start]].name.clone();
    for m in multis {
        let MultiTerm::One(term) = &m.value else {
            continue;
        };
        let bound = SliceBound {
            width: m.width,
            term: term.clone(),
            multi: true,
            inclusive: matches!(m.op, Operator::Gte | Operator::Lte),
        };
        match m.op {
            Operator::Gt | Operator::Gte => {
                if slice.lower.is_some() {
                    return Err(RestrictionError::DuplicateStartBound { column: first }.into());
                }
                slice.lower = Some(bound);
            }
            Operator::Lt | Operator::Lte => {
                if slice.upper.is_some() {
                    return Err(RestrictionError::DuplicateEndBound { column: first }.into());
                }
                slice.upper = Some(bound);
            }
            other => {
                return Err(RestrictionError::UnsupportedMultiColumnOperator { op: other }.into())
            }
        }
    }
    let width = slice_width(&slice);
    let orders: Vec<ClusteringOrder> = def.clustering_key
        [start..(start + width).min(def.clustering_key.len())]
        .iter()
        .map(|&i| def.columns[i].order)
        .collect();
    slice.desc = orders.first() == Some(&ClusteringOrder::Desc);
    slice.exact = orders.iter().all(|o| *o == orders[0]);
    Ok(slice)
}

impl fmt::Display for PrefixPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrefixPart::Single(set) => write!(f, "{set}"),
            PrefixPart::Multi {
                values: MultiValues::Tuples(t),
                ..
            } => {
                f.write_str("IN (")?;
                cql::statement::comma(f, t)?;
                f.write_str(")")
            }
            PrefixPart::Multi {
                values: MultiValues::Bind(m),
                ..
            } => write!(f, "IN {}", Term::Bind(m.clone())),
        }
    }
}
