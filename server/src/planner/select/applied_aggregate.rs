//! Scalar functions applied to an aggregate's result: `todate(max(t))`,
//! `cast(count(*) AS int)`, `max(v) + 1`. The aggregate is planned as any other, and the
//! expression around it as a scalar whose operand is the aggregate's value
//! ([`Scalar::Aggregated`]), computed once per group from the aggregates' results; a selector
//! may combine several (`max(v) - min(v)`).
//!
//! `selection` hands a selector here when an aggregate call sits inside it; the aggregates
//! themselves are planned by `aggregate`, and the types come from `output`, so this file
//! never imports `selection` back.

use cql::statement::ast::{BindMarker, CqlType, Ident, SelectExpr, Term};

use crate::error::{CqlResult, SelectError};
use crate::planner::select::aggregate;
use crate::planner::select::aggregate::native_aggregate;
use crate::planner::select::output::{Aggregate, Applied, Output, OutputSource};
use crate::planner::select::selector::{plan_scalar, Scalar};
use crate::schema::TableRef;

/// The name of the placeholder marker that stands for the aggregate while the expression
/// around it is planned (no statement can name a marker so).
const PLACEHOLDER: &str = "\u{1}aggregate";

/// The one aggregate call inside `expr` below its top level, if any (`max(t)` in
/// `todate(max(t))`).
pub(crate) fn inner_aggregate(expr: &SelectExpr) -> Option<&SelectExpr> {
    let children: Vec<&SelectExpr> = match expr {
        SelectExpr::Function { args, .. } => args.iter().collect(),
        SelectExpr::Cast(inner, _)
        | SelectExpr::Negate(inner)
        | SelectExpr::Field(inner, _)
        | SelectExpr::TypeHint(_, inner) => vec![inner],
        SelectExpr::Arith(_, left, right) => vec![left, right],
        _ => return None,
    };
    children.into_iter().find_map(|child| {
        is_aggregate(child)
            .then_some(child)
            .or_else(|| inner_aggregate(child))
    })
}

/// Whether `expr` itself is a call of a native aggregate.
fn is_aggregate(expr: &SelectExpr) -> bool {
    match expr {
        SelectExpr::CountAll => true,
        SelectExpr::Function { name, .. } => native_aggregate(name).is_some(),
        _ => false,
    }
}

/// Plans `expr`, which applies scalar functions to the aggregate `aggregate` inside it.
pub(crate) fn plan(
    table: &TableRef,
    expr: &SelectExpr,
    aggregate: &SelectExpr,
) -> CqlResult<Output> {
    if is_aggregate(expr) || inner_aggregate(aggregate).is_some() {
        return Err(SelectError::NestedAggregate.into());
    }
    // Each aggregate in turn is planned and replaced by its numbered placeholder.
    let mut applied = expr.clone();
    let mut aggregates: Vec<(Aggregate, String, String)> = Vec::new();
    while let Some(found) = inner_aggregate(&applied).cloned() {
        if inner_aggregate(&found).is_some() {
            return Err(SelectError::NestedAggregate.into());
        }
        let unsupported = || SelectError::UnsupportedSelector {
            selector: expr.to_string(),
        };
        let inner = aggregate::plan_call(table, &found).ok_or_else(unsupported)??;
        let OutputSource::Aggregate(planned) = inner.source else {
            return Err(unsupported().into());
        };
        let placeholder = placeholder(aggregates.len(), &inner.ty);
        let shown = plan_scalar(&table.def, &placeholder)?.name;
        applied = replaced(&applied, &found, &placeholder);
        aggregates.push((planned, shown, inner.name));
    }
    let outer = plan_scalar(&table.def, &applied)?;
    let mut then = outer.scalar;
    let mut columns = Vec::new();
    then.columns(&mut columns);
    if !columns.is_empty() || then.reads_write_times() {
        return Err(SelectError::AggregateWithColumns {
            selector: expr.to_string(),
        }
        .into());
    }
    mark_aggregated(&mut then);
    let mut name = outer.name;
    for (_, shown, inner_name) in &aggregates {
        name = name.replace(shown, inner_name);
    }
    let mut planned = aggregates.into_iter().map(|(a, _, _)| a);
    let Some(mut first) = planned.next() else {
        return Err(SelectError::UnsupportedSelector {
            selector: expr.to_string(),
        }
        .into());
    };
    first.then = Some(Box::new(Applied {
        scalar: then,
        others: planned.collect(),
    }));
    Ok(Output {
        name,
        ty: outer.ty,
        source: OutputSource::Aggregate(first),
    })
}

/// The placeholder standing for aggregate number `k` (of type `ty`) while the expression
/// around it is planned.
fn placeholder(k: usize, ty: &cql::types::ColumnType) -> SelectExpr {
    SelectExpr::Term(Term::TypeCast(
        CqlType::Native(ty.clone()),
        Box::new(Term::Bind(BindMarker::Named(
            Ident {
                name: format!("{PLACEHOLDER}{k}"),
                quoted: false,
            },
            usize::MAX,
        ))),
    ))
}

/// `expr` with `target` (compared structurally) replaced by `with`.
fn replaced(expr: &SelectExpr, target: &SelectExpr, with: &SelectExpr) -> SelectExpr {
    if expr == target {
        return with.clone();
    }
    let inner = |e: &SelectExpr| Box::new(replaced(e, target, with));
    match expr {
        SelectExpr::Function { name, args } => SelectExpr::Function {
            name: name.clone(),
            args: args.iter().map(|a| replaced(a, target, with)).collect(),
        },
        SelectExpr::Cast(e, ty) => SelectExpr::Cast(inner(e), ty.clone()),
        SelectExpr::Negate(e) => SelectExpr::Negate(inner(e)),
        SelectExpr::Field(e, field) => SelectExpr::Field(inner(e), field.clone()),
        SelectExpr::TypeHint(ty, e) => SelectExpr::TypeHint(ty.clone(), inner(e)),
        SelectExpr::Arith(op, left, right) => SelectExpr::Arith(*op, inner(left), inner(right)),
        other => other.clone(),
    }
}

/// Turns each placeholder's term into [`Scalar::Aggregated`] with its aggregate's number.
fn mark_aggregated(scalar: &mut Scalar) {
    match scalar {
        Scalar::Term {
            term: Term::Bind(BindMarker::Named(ident, _)),
            ..
        } => {
            if let Some(k) = ident
                .name
                .strip_prefix(PLACEHOLDER)
                .and_then(|k| k.parse().ok())
            {
                *scalar = Scalar::Aggregated(k);
            }
        }
        Scalar::Call { args, .. } => args.iter_mut().for_each(mark_aggregated),
        Scalar::Field { value, .. } => mark_aggregated(value),
        _ => {}
    }
}
