//! `token(...)`: restrictions on the partition token (`token(k) > ? AND token(k) <= ?`, which
//! scan in token order) and `token(...)` as a selector, with Cassandra's validation.

use cql::statement::ast::{Ident, Operator, Relation, SelectExpr};
use storage::TableDef;

use crate::error::{CqlResult, RestrictionError};
use crate::planner::column_index;
use crate::planner::common::restrictions::Bound;

/// A token range: optional lower and upper bounds on `token(partition key)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TokenRange {
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
}

fn key_names(def: &TableDef) -> Vec<&str> {
    def.partition_key
        .iter()
        .map(|&i| def.columns[i].name.as_str())
        .collect()
}

/// Checks that `columns` are exactly the partition key in order.
fn check_columns(def: &TableDef, columns: &[Ident]) -> CqlResult<()> {
    let mut seen = Vec::with_capacity(columns.len());
    for column in columns {
        let i = column_index(def, column)?;
        if seen.contains(&i) {
            return Err(RestrictionError::TokenDuplicateComponents.into());
        }
        seen.push(i);
    }
    let names = key_names(def);
    if columns.len() != names.len() {
        return Err(RestrictionError::TokenPartialKey.into());
    }
    if columns.iter().zip(&names).any(|(c, n)| c.name != *n) {
        return Err(RestrictionError::TokenKeyOrder {
            partition_key: names.iter().map(|n| n.to_string()).collect(),
        }
        .into());
    }
    Ok(())
}

/// Collects the token relations of a WHERE clause into one range.
pub(crate) fn token_range(
    def: &TableDef,
    relations: &[&Relation],
) -> CqlResult<Option<TokenRange>> {
    let mut range: Option<TokenRange> = None;
    for relation in relations {
        let Relation::Token { columns, op, value } = relation else {
            continue;
        };
        check_columns(def, columns)?;
        let r = range.get_or_insert_with(TokenRange::default);
        let what = format!("token({})", key_names(def).join(", "));
        let bound = |inclusive| Bound {
            term: value.clone(),
            inclusive,
        };
        match op {
            Operator::Gt | Operator::Gte => {
                if r.lower.is_some() {
                    return Err(RestrictionError::DuplicateStartBound { column: what }.into());
                }
                r.lower = Some(bound(*op == Operator::Gte));
            }
            Operator::Lt | Operator::Lte => {
                if r.upper.is_some() {
                    return Err(RestrictionError::DuplicateEndBound { column: what }.into());
                }
                r.upper = Some(bound(*op == Operator::Lte));
            }
            Operator::Eq => {
                if r.lower.is_some() || r.upper.is_some() {
                    return Err(RestrictionError::EqWithOtherRelation { column: what }.into());
                }
                r.lower = Some(bound(true));
                r.upper = Some(bound(true));
            }
            other => return Err(RestrictionError::UnsupportedTokenOperator { op: *other }.into()),
        }
    }
    Ok(range)
}

/// Validates `token(args)` used as a selector; returns nothing but errors.
pub(crate) fn check_selector(def: &TableDef, args: &[SelectExpr]) -> CqlResult<()> {
    let names = key_names(def);
    if args.len() != names.len() {
        return Err(RestrictionError::TokenArgumentCount {
            required: names.len(),
            provided: args.len(),
        }
        .into());
    }
    for (position, (arg, &expected)) in args.iter().zip(&names).enumerate() {
        let SelectExpr::Column(ident) = arg else {
            return Err(RestrictionError::TokenNonColumnArgument.into());
        };
        let i = column_index(def, ident)?;
        if def.columns[i].name != expected {
            return Err(RestrictionError::TokenArgumentType {
                argument: ident.name.clone(),
                position,
                expected: def
                    .column(expected)
                    .map(|c| c.ty.to_string())
                    .unwrap_or_default(),
            }
            .into());
        }
    }
    Ok(())
}
