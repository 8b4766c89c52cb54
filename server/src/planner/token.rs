//! `token(...)`: restrictions on the partition token (`token(k) > ? AND token(k) <= ?`, which
//! scan in token order) and `token(...)` as a selector, with Cassandra's validation.

use cql::statement::ast::{Ident, Operator, Relation, SelectExpr};
use storage::TableDef;

use crate::error::{CqlError, CqlResult};
use crate::planner::column_index;
use crate::planner::restrictions::Bound;

/// A token range: optional lower and upper bounds on `token(partition key)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TokenRange {
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
            return Err(CqlError::invalid(
                "The token() function contains duplicate partition key components",
            ));
        }
        seen.push(i);
    }
    let names = key_names(def);
    if columns.len() != names.len() {
        return Err(CqlError::invalid(
            "The token() function must be applied to all partition key components or none of them",
        ));
    }
    if columns.iter().zip(&names).any(|(c, n)| c.name != *n) {
        return Err(CqlError::invalid(format!(
            "The token function arguments must be in the partition key order: {}",
            names.join(", ")
        )));
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
                    return Err(CqlError::invalid(format!(
                        "More than one restriction was found for the start bound on {what}"
                    )));
                }
                r.lower = Some(bound(*op == Operator::Gte));
            }
            Operator::Lt | Operator::Lte => {
                if r.upper.is_some() {
                    return Err(CqlError::invalid(format!(
                        "More than one restriction was found for the end bound on {what}"
                    )));
                }
                r.upper = Some(bound(*op == Operator::Lte));
            }
            Operator::Eq => {
                if r.lower.is_some() || r.upper.is_some() {
                    return Err(CqlError::invalid(format!(
                        "{what} cannot be restricted by more than one relation if it includes an Equal"
                    )));
                }
                r.lower = Some(bound(true));
                r.upper = Some(bound(true));
            }
            other => {
                return Err(CqlError::invalid(format!(
                    "Unsupported operator {other:?} on the token function"
                )))
            }
        }
    }
    Ok(range)
}

/// Validates `token(args)` used as a selector; returns nothing but errors.
pub(crate) fn check_selector(def: &TableDef, args: &[SelectExpr]) -> CqlResult<()> {
    let names = key_names(def);
    if args.len() != names.len() {
        return Err(CqlError::invalid(format!(
            "Invalid number of arguments in call to function system.token: {} required but {} provided",
            names.len(),
            args.len()
        )));
    }
    for (position, (arg, &expected)) in args.iter().zip(&names).enumerate() {
        let SelectExpr::Column(ident) = arg else {
            return Err(CqlError::invalid(
                "The token function only accepts partition key columns",
            ));
        };
        let i = column_index(def, ident)?;
        if def.columns[i].name != expected {
            let expected_ty = def
                .column(expected)
                .map(|c| c.ty.to_string())
                .unwrap_or_default();
            return Err(CqlError::invalid(format!(
                "Type error: {} cannot be passed as argument {position} of function system.token of type {expected_ty}",
                ident.name
            )));
        }
    }
    Ok(())
}
