//! Collection of WHERE relations per column, with Cassandra's checks for conflicting
//! relations (`SingleColumnRestriction.mergeWith`).

use std::fmt;

use cql::statement::ast::{Ident, InValues, Operator, Relation, Term};
use cql::types::ColumnType;
use storage::TableDef;

use crate::error::{CqlError, CqlResult, RestrictionError};
use crate::planner::column_index;

/// The values an `=` or `IN` restriction admits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ValueSet {
    /// `col = term`
    Eq(Term),
    /// `col IN (terms)` or `col IN ?`
    In(InValues),
}

impl fmt::Display for ValueSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSet::Eq(t) => write!(f, "= {t}"),
            ValueSet::In(InValues::Bind(m)) => write!(f, "IN {}", Term::Bind(m.clone())),
            ValueSet::In(InValues::List(terms)) => {
                f.write_str("IN (")?;
                cql::statement::comma(f, terms)?;
                f.write_str(")")
            }
        }
    }
}

/// One bound of a slice: the term and whether it is inclusive.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bound {
    pub term: Term,
    pub inclusive: bool,
}

/// Everything the WHERE clause says about one column.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ColumnRestriction {
    pub eq: Option<ValueSet>,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
    /// Relations that can only be filtered (CONTAINS, LIKE, NOT IN, ...). For NOT IN the
    /// term is a `Term::Tuple` of the excluded values or the bind marker of their list.
    pub other: Vec<(Operator, Term)>,
    /// `m[key] = value` relations: (key, value).
    pub elements: Vec<(Term, Term)>,
}

impl ColumnRestriction {
    /// Whether the column is restricted at all.
    pub(crate) fn is_restricted(&self) -> bool {
        self.eq.is_some() || self.is_slice() || !self.other.is_empty() || !self.elements.is_empty()
    }

    /// Whether it has a range bound.
    pub(crate) fn is_slice(&self) -> bool {
        self.lower.is_some() || self.upper.is_some()
    }
}

/// Groups single-column relations by column index (`restrictions[i]` is for column `i`).
/// Multi-column and token relations are returned untouched for the caller to handle.
pub(crate) fn collect(
    table: &TableDef,
    relations: &[Relation],
) -> CqlResult<(Vec<ColumnRestriction>, Vec<Relation>)> {
    let mut collecting = Collecting {
        table,
        by_column: vec![ColumnRestriction::default(); table.columns.len()],
    };
    let mut rest = Vec::new();
    for relation in relations {
        check_supported(relation)?;
        match relation {
            Relation::Single { column, op, value } => collecting.single(column, *op, value)?,
            Relation::In {
                column,
                values,
                negated: false,
            } => collecting.in_values(column, values)?,
            Relation::In {
                column,
                values,
                negated: true,
            } => collecting.not_in(column, values)?,
            Relation::Element {
                column,
                key,
                op: Operator::Eq,
                value,
            } => collecting.map_entry(column, key, value)?,
            other => rest.push(other.clone()),
        }
    }
    Ok((collecting.by_column, rest))
}

/// Refuses the relations Cassandra 5.0 has no restriction for: `IS NOT NULL` outside a
/// materialized view, and `!=` on a column, tuple or token.
fn check_supported(relation: &Relation) -> CqlResult<()> {
    match relation {
        Relation::Single {
            op: Operator::IsNot,
            ..
        } => {
            // Only a materialized view's WHERE takes IS NOT NULL
            // (`StatementRestrictions`, before any relation is looked at).
            Err(RestrictionError::UnsupportedRestriction {
                relation: relation.to_string(),
            }
            .into())
        }
        Relation::Single {
            op: Operator::Neq, ..
        }
        | Relation::Multi {
            op: Operator::Neq, ..
        } => Err(unsupported_neq(relation)),
        Relation::Token {
            columns,
            op: Operator::Neq,
            value,
        } => Err(RestrictionError::UnsupportedTokenNeq {
            columns: columns.iter().map(|c| c.name.clone()).collect(),
            value: value.to_string(),
        }
        .into()),
        _ => Ok(()),
    }
}

/// The single-column restrictions being collected, by column index.
struct Collecting<'a> {
    table: &'a TableDef,
    by_column: Vec<ColumnRestriction>,
}

impl Collecting<'_> {
    /// `c op value`: checked against the column's type (CONTAINS, durations, whole values
    /// of non-frozen types), then merged with the column's other relations.
    fn single(&mut self, column: &Ident, op: Operator, value: &Term) -> CqlResult<()> {
        let table = self.table;
        let i = column_index(table, column)?;
        check_contains(&table.columns[i], op)?;
        check_duration_slice(&table.columns[i], op)?;
        check_whole_value(table, &table.columns[i], op)?;
        add_single(&mut self.by_column[i], &column.name, op, value.clone())
    }

    /// `c IN (..)`: no other `=`/`IN` or slice on the column.
    fn in_values(&mut self, column: &Ident, values: &InValues) -> CqlResult<()> {
        let i = column_index(self.table, column)?;
        check_whole_value(self.table, &self.table.columns[i], Operator::In)?;
        let r = &mut self.by_column[i];
        if r.eq.is_some() {
            return Err(conflict(&column.name, r));
        }
        if r.is_slice() {
            return Err(RestrictionError::InWithOtherRelation {
                column: column.name.clone(),
            }
            .into());
        }
        r.eq = Some(ValueSet::In(values.clone()));
        Ok(())
    }

    /// `c NOT IN (..)` can only be filtered: a tuple of the excluded values, or the bind
    /// marker of a list of them.
    fn not_in(&mut self, column: &Ident, values: &InValues) -> CqlResult<()> {
        let i = column_index(self.table, column)?;
        check_whole_value(self.table, &self.table.columns[i], Operator::NotIn)?;
        let excluded = match values {
            InValues::List(terms) => Term::Tuple(terms.clone()),
            InValues::Bind(marker) => Term::Bind(marker.clone()),
        };
        self.by_column[i].other.push((Operator::NotIn, excluded));
        Ok(())
    }

    /// `m[key] = value`, on a non-frozen map only.
    fn map_entry(&mut self, column: &Ident, key: &Term, value: &Term) -> CqlResult<()> {
        let i = column_index(self.table, column)?;
        if let ColumnType::Map { frozen: true, .. } = self.table.columns[i].ty {
            return Err(RestrictionError::FrozenMapEntry {
                column: column.name.clone(),
            }
            .into());
        }
        self.by_column[i]
            .elements
            .push((key.clone(), value.clone()));
        Ok(())
    }
}

/// `(c1, c2) = (v1, v2)` as `c1 = v1 AND c2 = v2`, for a read whose partition key is not
/// fully restricted: its clustering relations then only filter, and Cassandra serves a
/// multi-column equality by an index on any of its columns, as it serves `c1 = v1`. Only
/// equalities to a tuple of the right width over consecutive clustering columns in key order
/// are split (the others keep their own messages); `None` when there is none.
pub(crate) fn split_multi_equalities(
    table: &TableDef,
    relations: &[Relation],
) -> Option<Vec<Relation>> {
    let splittable = |relation: &Relation| match relation {
        Relation::Multi {
            columns,
            op: Operator::Eq,
            value: Term::Tuple(items),
        } => items.len() == columns.len() && in_key_order(table, columns),
        _ => false,
    };
    if !relations.iter().any(splittable) {
        return None;
    }
    let mut split = Vec::with_capacity(relations.len() + 1);
    for relation in relations {
        match relation {
            Relation::Multi {
                columns,
                value: Term::Tuple(items),
                ..
            } if splittable(relation) => split.extend(column_equalities(columns, items)),
            other => split.push(other.clone()),
        }
    }
    Some(split)
}

/// `(c1, c2) = (v1, v2)` as `c1 = v1`, `c2 = v2`.
pub(crate) fn column_equalities<'a>(
    columns: &'a [cql::statement::ast::Ident],
    items: &'a [Term],
) -> impl Iterator<Item = Relation> + 'a {
    columns
        .iter()
        .zip(items)
        .map(|(column, item)| Relation::Single {
            column: column.clone(),
            op: Operator::Eq,
            value: item.clone(),
        })
}

/// Whether `columns` are consecutive clustering columns in key order.
fn in_key_order(table: &TableDef, columns: &[cql::statement::ast::Ident]) -> bool {
    consecutive_clustering_positions(table, columns).is_some_and(|p| !p.is_empty())
}

/// The clustering positions of `columns` when they are consecutive clustering columns in key
/// order; `None` otherwise.
pub(crate) fn consecutive_clustering_positions(
    table: &TableDef,
    columns: &[cql::statement::ast::Ident],
) -> Option<Vec<usize>> {
    let positions: Vec<usize> = columns
        .iter()
        .map(|c| {
            table
                .clustering_key
                .iter()
                .position(|&i| table.columns[i].name == c.name)
        })
        .collect::<Option<_>>()?;
    positions
        .windows(2)
        .all(|w| w[1] == w[0] + 1)
        .then_some(positions)
}

/// Cassandra 5.0 has no `!=` in WHERE clauses (`Relation.toRestriction`).
fn unsupported_neq(relation: &Relation) -> CqlError {
    RestrictionError::UnsupportedNeq {
        relation: relation.to_string(),
    }
    .into()
}

/// A non-frozen UDT cannot be restricted at all, a non-frozen collection only by CONTAINS,
/// CONTAINS KEY or a map entry (`SingleColumnRelation.toReceivers`).
fn check_whole_value(table: &TableDef, column: &storage::ColumnDef, op: Operator) -> CqlResult<()> {
    if !column.ty.is_multi_cell() || matches!(op, Operator::Contains | Operator::ContainsKey) {
        return Ok(());
    }
    if let ColumnType::Udt {
        name: type_name, ..
    } = &column.ty
    {
        return Err(RestrictionError::NonFrozenUdt {
            column: column.name.clone(),
            keyspace: table.keyspace.clone(),
            type_name: type_name.clone(),
        }
        .into());
    }
    Err(RestrictionError::CollectionRelation {
        column: column.name.clone(),
        ty: column.ty.clone(),
        op,
    }
    .into())
}

/// Durations have no order: a slice on a column whose type references `duration` is refused
/// with `SingleColumnRelation.newSliceRestriction`'s messages.
fn check_duration_slice(column: &storage::ColumnDef, op: Operator) -> CqlResult<()> {
    let slice = matches!(
        op,
        Operator::Lt | Operator::Lte | Operator::Gt | Operator::Gte
    );
    if !slice || !column.ty.references_duration() {
        return Ok(());
    }
    let refused = match &column.ty {
        ty if ty.is_collection() => RestrictionError::DurationCollectionSlice,
        ColumnType::Tuple(_) => RestrictionError::DurationTupleSlice,
        ColumnType::Udt { .. } => RestrictionError::DurationUdtSlice,
        _ => RestrictionError::DurationSlice,
    };
    Err(refused.into())
}

/// `CONTAINS` needs a collection and `CONTAINS KEY` a map (`SingleColumnRelation`'s checks).
fn check_contains(column: &storage::ColumnDef, op: Operator) -> CqlResult<()> {
    let refused = match op {
        Operator::Contains if !column.ty.is_collection() => {
            RestrictionError::ContainsOnNonCollection {
                column: column.name.clone(),
            }
        }
        Operator::ContainsKey if !matches!(column.ty, ColumnType::Map { .. }) => {
            RestrictionError::ContainsKeyOnNonMap {
                column: column.name.clone(),
            }
        }
        _ => return Ok(()),
    };
    Err(refused.into())
}

fn conflict(name: &str, r: &ColumnRestriction) -> CqlError {
    let column = name.to_string();
    match r.eq {
        Some(ValueSet::In(_)) => RestrictionError::InWithOtherRelation { column },
        _ => RestrictionError::EqWithOtherRelation { column },
    }
    .into()
}

fn add_single(r: &mut ColumnRestriction, name: &str, op: Operator, value: Term) -> CqlResult<()> {
    match op {
        Operator::Eq => {
            if r.eq.is_some() || r.is_slice() {
                return Err(if r.eq.is_some() {
                    conflict(name, r)
                } else {
                    RestrictionError::EqWithOtherRelation {
                        column: name.to_string(),
                    }
                    .into()
                });
            }
            r.eq = Some(ValueSet::Eq(value));
        }
        Operator::Gt | Operator::Gte => {
            if r.eq.is_some() {
                return Err(conflict(name, r));
            }
            if r.lower.is_some() {
                return Err(RestrictionError::DuplicateStartBound {
                    column: name.to_string(),
                }
                .into());
            }
            r.lower = Some(Bound {
                term: value,
                inclusive: op == Operator::Gte,
            });
        }
        Operator::Lt | Operator::Lte => {
            if r.eq.is_some() {
                return Err(conflict(name, r));
            }
            if r.upper.is_some() {
                return Err(RestrictionError::DuplicateEndBound {
                    column: name.to_string(),
                }
                .into());
            }
            r.upper = Some(Bound {
                term: value,
                inclusive: op == Operator::Lte,
            });
        }
        other => r.other.push((other, value)),
    }
    Ok(())
}
