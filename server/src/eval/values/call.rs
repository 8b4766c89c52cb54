//! Function calls, operators and type hints inside terms (`textAsBlob(?)`, `1 + 2`,
//! `(int) ?`): resolved for the receiving column, arguments evaluated for the function's
//! argument types, the result decoded as the receiver's type.

use cql::statement::ast::{CqlType, Term};
use cql::types::{codec, CqlValue};

use super::{evaluate, to_value, EvalContext, Evaluated, Receiver};
use crate::error::{CqlResult, InternalError, ValueError};
use crate::eval::functions::assign::{type_fit, Fit};
use crate::eval::functions::term::{
    arg_name, check_assignable, provided, resolve_call, resolve_cast, resolve_negation,
    resolve_operation,
};
use crate::eval::functions::CallContext;

/// Evaluates a call, operation or negation for `receiver`.
pub(super) fn call_value(
    term: &Term,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    let ty = Some(receiver.ty);
    let (function, args): (_, Vec<&Term>) = match term {
        Term::Function { name, args } => (resolve_call(name, args, ty)?, args.iter().collect()),
        Term::Arith(op, left, right) => {
            (resolve_operation(*op, left, right, ty)?, vec![left, right])
        }
        Term::Negate(inner) => (resolve_negation(inner, ty)?, vec![inner]),
        Term::Cast(inner, cast) => (resolve_cast(inner, cast)?, vec![inner]),
        other => {
            return Err(InternalError::NotAFunctionCall {
                term: other.to_string(),
            }
            .into())
        }
    };
    check_assignable(function, receiver.name, receiver.ty)?;
    let mut values = Vec::with_capacity(args.len());
    for (i, (arg, arg_ty)) in args.into_iter().zip(&function.args).enumerate() {
        let name = arg_name(function, i);
        let arg_receiver = Receiver {
            name: &name,
            ty: arg_ty,
        };
        match evaluate(arg, arg_receiver, ctx)? {
            Evaluated::Value(bytes) => values.push(Some(bytes)),
            Evaluated::Null => values.push(None),
            Evaluated::Unset => {
                return Err(ValueError::UnsetArgument {
                    function: function.name.clone(),
                }
                .into())
            }
        }
    }
    let call = CallContext {
        now_micros: ctx.now_micros,
    };
    match function.execute(&values, &call)? {
        None => Ok(None),
        Some(bytes) => Ok(Some(
            codec::deserialize_value(receiver.ty, &bytes).map_err(ValueError::Codec)?,
        )),
    }
}

/// Evaluates `(type) term` (Cassandra's `TypeCast`): the term must suit the hinted type and
/// the hinted type the receiver; the term is then evaluated for the receiver.
pub(super) fn cast_value(
    ty: &CqlType,
    inner: &Term,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    check_cast(ty, inner, receiver)?;
    to_value(inner, receiver, ctx)
}

/// The checks of `(type) term`: the term must suit the hinted type, the hint the receiver.
pub(super) fn check_cast(ty: &CqlType, inner: &Term, receiver: Receiver<'_>) -> CqlResult<()> {
    if let CqlType::Native(hint) = ty {
        if provided(inner).fit(hint) == Fit::Not {
            return Err(ValueError::HintNotOfType {
                term: inner.to_string(),
                ty: hint.clone().into(),
            }
            .into());
        }
        if type_fit(hint, receiver.ty) == Fit::Not {
            return Err(ValueError::HintNotAssignable {
                hint: hint.clone().into(),
                term: inner.to_string(),
                column: receiver.name.to_string(),
                ty: receiver.ty.clone().into(),
            }
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "call_tests.rs"]
mod tests;
