//! Evaluating one LWT column condition against the current value of its column, with
//! Cassandra's semantics (`ColumnCondition.Bound`): `null` only compares with `=`/`!=`, an
//! absent value satisfies only `!=`, a non-frozen collection reads as empty when absent, `IN`
//! holds when any candidate is equal.

use std::cmp::Ordering;

use bytes::Bytes;
use cql::statement::ast::{Operator, Term};
use cql::types::{ordering, ColumnType};
use storage::TableDef;

use crate::error::{CqlError, CqlResult, ModifyError};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::read::elements;
use crate::executor::write::multicell;
use crate::planner::modify::conditions::{Access, ColumnCondition, ConditionValues};

/// The serialized value of an empty collection (a zero element count).
const EMPTY_COLLECTION: [u8; 4] = [0, 0, 0, 0];

/// Whether `condition` holds for `current`, the column's current (assembled) value.
pub(crate) fn applies(
    def: &TableDef,
    condition: &ColumnCondition,
    current: Option<&Bytes>,
    ctx: &EvalContext<'_>,
) -> CqlResult<bool> {
    let col = &def.columns[condition.column];
    let value_type = condition.value_type(def);
    let contains_op = matches!(condition.op, Operator::Contains | Operator::ContainsKey);
    let candidates = bind_values(&col.name, &value_type, &condition.values, contains_op, ctx)?;
    let op = match condition.op {
        Operator::In => Operator::Eq,
        op => op,
    };
    let current = match &condition.access {
        Access::Whole => current.cloned(),
        Access::Element(key) => element(&col.ty, key, current, ctx)?,
        Access::Field(i) => match (&col.ty, current) {
            (ColumnType::Udt { fields, .. }, Some(value)) => {
                multicell::udt_fields(value, fields.len())?
                    .get(*i)
                    .cloned()
                    .flatten()
            }
            _ => None,
        },
    };
    if matches!(op, Operator::Contains | Operator::ContainsKey) {
        return contains(&col.ty, op, current.as_ref(), &candidates);
    }
    let multi_cell_collection = matches!(condition.access, Access::Whole)
        && col.ty.is_collection()
        && col.ty.is_multi_cell();
    for candidate in &candidates {
        let holds = if multi_cell_collection {
            match candidate {
                None => match op {
                    Operator::Eq => current.is_none(),
                    Operator::Neq => return Ok(current.is_some()),
                    _ => return Err(null_comparison(op)),
                },
                Some(value) => {
                    let row = current.as_deref().unwrap_or(&EMPTY_COLLECTION);
                    satisfied(op, ordering::compare(&value_type, row, value))
                }
            }
        } else {
            compare_with_operator(op, &value_type, candidate.as_ref(), current.as_ref())?
        };
        if holds {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `compareWithOperator`: `value` is the condition's, `current` the row's.
fn compare_with_operator(
    op: Operator,
    ty: &ColumnType,
    value: Option<&Bytes>,
    current: Option<&Bytes>,
) -> CqlResult<bool> {
    match (value, current) {
        (None, _) => match op {
            Operator::Eq => Ok(current.is_none()),
            Operator::Neq => Ok(current.is_some()),
            _ => Err(null_comparison(op)),
        },
        (Some(_), None) => Ok(op == Operator::Neq),
        (Some(value), Some(current)) => Ok(satisfied(op, ordering::compare(ty, current, value))),
    }
}

/// Whether `current op value` holds given `current.cmp(value)`.
fn satisfied(op: Operator, order: Ordering) -> bool {
    match op {
        Operator::Eq => order == Ordering::Equal,
        Operator::Neq => order != Ordering::Equal,
        Operator::Lt => order == Ordering::Less,
        Operator::Lte => order != Ordering::Greater,
        Operator::Gt => order == Ordering::Greater,
        Operator::Gte => order != Ordering::Less,
        _ => false,
    }
}

fn null_comparison(op: Operator) -> CqlError {
    ModifyError::NullComparison { op }.into()
}

/// `CONTAINS` / `CONTAINS KEY` on a whole collection value.
fn contains(
    ty: &ColumnType,
    op: Operator,
    current: Option<&Bytes>,
    candidates: &[Option<Bytes>],
) -> CqlResult<bool> {
    for candidate in candidates {
        let Some(value) = candidate else {
            return Err(null_comparison(op));
        };
        let Some(current) = current else {
            continue;
        };
        if elements::contains(ty, op == Operator::ContainsKey, current, value)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The element `l[i]` or `m[k]` of the current value.
fn element(
    ty: &ColumnType,
    key: &Term,
    current: Option<&Bytes>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<Bytes>> {
    let (key_type, what) = match ty {
        ColumnType::Map { key, .. } => (key.as_ref().clone(), "map"),
        _ => (ColumnType::Int, "list"),
    };
    let key = match evaluate(
        key,
        Receiver {
            name: "element",
            ty: &key_type,
        },
        ctx,
    )? {
        Evaluated::Value(b) => b,
        Evaluated::Null => return Err(ModifyError::NullElementAccess { collection: what }.into()),
        Evaluated::Unset => return Err(ModifyError::UnsetInCondition.into()),
    };
    if let ColumnType::Map { .. } = ty {
        let Some(current) = current else {
            return Ok(None);
        };
        return elements::element(ty, current, &key);
    }
    let index = match key.as_ref() {
        [a, b, c, d] => i32::from_be_bytes([*a, *b, *c, *d]),
        _ => return Err(ModifyError::InvalidListIndex.into()),
    };
    if index < 0 {
        return Err(ModifyError::NegativeListIndex { index }.into());
    }
    let Some(current) = current else {
        return Ok(None);
    };
    Ok(multicell::collection_elements(current)?
        .into_iter()
        .nth(index as usize))
}

/// The condition's candidate values (`None` for null): one, an `IN` list without its unset
/// items, or the elements of an `IN ?` list.
/// An unset `CONTAINS` value leaves no candidate (the condition does not hold), as in
/// Cassandra 5.0.
fn bind_values(
    name: &str,
    ty: &ColumnType,
    values: &ConditionValues,
    contains: bool,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Option<Bytes>>> {
    let receiver = Receiver { name, ty };
    match values {
        ConditionValues::Single(term) => match evaluate(term, receiver, ctx)? {
            Evaluated::Unset if contains => Ok(Vec::new()),
            Evaluated::Unset => Err(ModifyError::UnsetInCondition.into()),
            Evaluated::Null => Ok(vec![None]),
            Evaluated::Value(b) => Ok(vec![Some(b)]),
        },
        ConditionValues::List(terms) => {
            let mut out = Vec::with_capacity(terms.len());
            for term in terms {
                match evaluate(term, receiver, ctx)? {
                    Evaluated::Unset => {}
                    Evaluated::Null => out.push(None),
                    Evaluated::Value(b) => out.push(Some(b)),
                }
            }
            Ok(out)
        }
        ConditionValues::Marker(Term::Bind(marker)) => in_marker_values(name, ty, marker, ctx),
        ConditionValues::Marker(term) => {
            let list = ColumnType::List {
                element: Box::new(ty.clone()),
                frozen: false,
            };
            let in_name = format!("in({name})");
            let receiver = Receiver {
                name: &in_name,
                ty: &list,
            };
            match evaluate(term, receiver, ctx)? {
                Evaluated::Unset => Err(ModifyError::UnsetInCondition.into()),
                Evaluated::Null => Err(ModifyError::NullInList.into()),
                Evaluated::Value(b) => Ok(multicell::collection_elements(&b)?
                    .into_iter()
                    .map(Some)
                    .collect()),
            }
        }
    }
}

/// The candidates bound to `IN ?`: a list whose elements may be null.
fn in_marker_values(
    name: &str,
    ty: &ColumnType,
    marker: &cql::statement::ast::BindMarker,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Option<Bytes>>> {
    let index = match marker {
        cql::statement::ast::BindMarker::Anonymous(i)
        | cql::statement::ast::BindMarker::Named(_, i) => *i,
    };
    let malformed = || -> CqlError {
        ModifyError::MalformedInList {
            column: name.to_string(),
        }
        .into()
    };
    match ctx.binds.get(index) {
        None => Err(ModifyError::UnboundInMarker {
            index,
            column: name.to_string(),
        }
        .into()),
        Some(cql::frame::request::Value::Unset) => Err(ModifyError::UnsetInCondition.into()),
        Some(cql::frame::request::Value::Null) => Err(ModifyError::NullInList.into()),
        Some(cql::frame::request::Value::Bytes(bytes)) => {
            let mut input: &[u8] = bytes;
            let count = take_i32(&mut input).ok_or_else(malformed)?;
            let mut out = Vec::new();
            for _ in 0..count.max(0) {
                let len = take_i32(&mut input).ok_or_else(malformed)?;
                if len < 0 {
                    out.push(None);
                    continue;
                }
                let len = len as usize;
                if input.len() < len {
                    return Err(malformed());
                }
                let (element, rest) = input.split_at(len);
                input = rest;
                cql::types::codec::validate_value(ty, element)
                    .map_err(|reason| ModifyError::InListElement { reason })?;
                out.push(Some(Bytes::copy_from_slice(element)));
            }
            Ok(out)
        }
    }
}

fn take_i32(input: &mut &[u8]) -> Option<i32> {
    let (head, rest) = input.split_first_chunk::<4>()?;
    *input = rest;
    Some(i32::from_be_bytes(*head))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i32) -> Bytes {
        Bytes::copy_from_slice(&v.to_be_bytes())
    }

    #[test]
    fn null_only_compares_with_equality() {
        let ty = ColumnType::Int;
        assert!(compare_with_operator(Operator::Eq, &ty, None, None).unwrap());
        assert!(!compare_with_operator(Operator::Eq, &ty, None, Some(&int(1))).unwrap());
        assert!(compare_with_operator(Operator::Neq, &ty, None, Some(&int(1))).unwrap());
        let err = compare_with_operator(Operator::Lt, &ty, None, Some(&int(1))).unwrap_err();
        assert!(err
            .to_string()
            .contains("Invalid comparison with null for operator \"<\""));
    }

    #[test]
    fn absent_value_only_satisfies_inequality() {
        let ty = ColumnType::Int;
        assert!(!compare_with_operator(Operator::Gt, &ty, Some(&int(1)), None).unwrap());
        assert!(compare_with_operator(Operator::Neq, &ty, Some(&int(1)), None).unwrap());
    }

    #[test]
    fn slices_compare_the_row_value_to_the_condition_value() {
        let ty = ColumnType::Int;
        // row 5 < condition 7
        assert!(compare_with_operator(Operator::Lt, &ty, Some(&int(7)), Some(&int(5))).unwrap());
        assert!(!compare_with_operator(Operator::Gte, &ty, Some(&int(7)), Some(&int(5))).unwrap());
        assert!(compare_with_operator(Operator::Lte, &ty, Some(&int(5)), Some(&int(5))).unwrap());
        // negative numbers order numerically, not bytewise
        assert!(compare_with_operator(Operator::Lt, &ty, Some(&int(1)), Some(&int(-3))).unwrap());
    }
}
