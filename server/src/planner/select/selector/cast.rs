//! Selector casts and type hints: `CAST(x AS type)` and `(type) x`, with the result types and names Cassandra gives them.

use super::*;

/// `CAST(x AS type)`: nothing to do when `x` already has the type, else the `castAs<Type>`
/// function for `x`'s type.
pub(super) fn cast(def: &TableDef, inner: &SelectExpr, ty: &CqlType) -> CqlResult<Planned> {
    let arg = prepare(def, inner)?.finish(None)?;
    let target = match ty {
        CqlType::Native(t) => t.clone(),
        other => {
            return Err(SelectError::CannotCast {
                column: first_column_name(def, &arg),
                ty: other.to_string(),
            }
            .into())
        }
    };
    if arg.ty == target {
        return Ok(arg);
    }
    let name = cast_function_name(&target);
    let provided = [Provided::Typed {
        ty: arg.ty.clone(),
        text: arg.name.clone(),
    }];
    match resolve(
        &format!("system.{name}"),
        candidates(&name),
        &provided,
        None,
    )? {
        Some(function) => apply(function, vec![Prepared::Ready(arg)]),
        None => Err(SelectError::CannotCast {
            column: first_column_name(def, &arg),
            ty: target.to_string(),
        }
        .into()),
    }
}

/// The name Cassandra's cast error shows: the first column the selector reads.
pub(super) fn first_column_name(def: &TableDef, planned: &Planned) -> String {
    let mut columns = Vec::new();
    planned.scalar.columns(&mut columns);
    columns
        .first()
        .and_then(|&i| def.columns.get(i))
        .map_or_else(|| planned.name.clone(), |c| c.name.clone())
}

/// `(type) selector` (Cassandra's `WithTypeHint`): the selector, typed for the hint, which
/// its type must suit; named `(type)selector`.
pub(super) fn type_hint(def: &TableDef, ty: &ColumnType, inner: &SelectExpr) -> CqlResult<Planned> {
    let planned = prepare(def, inner)?.finish(Some(ty))?;
    let wrapped = if planned.precedence < Precedence::Unary {
        format!("({})", planned.name)
    } else {
        planned.name.clone()
    };
    let name = format!("({ty}){wrapped}");
    if type_fit(&planned.ty, ty) == Fit::Not {
        return Err(SelectError::HintNotAssignable {
            hinted: name,
            ty: ty.to_string(),
        }
        .into());
    }
    Ok(Planned {
        name,
        ty: ty.clone(),
        precedence: Precedence::Unary,
        scalar: planned.scalar,
    })
}
