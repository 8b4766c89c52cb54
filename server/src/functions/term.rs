//! Function calls and operators inside terms (INSERT values, UPDATE SET, WHERE values):
//! resolving them for their receiver, naming their arguments' receivers as Cassandra does
//! (`arg0(system.textasblob)`, which bind metadata reports), and describing a term as a
//! function argument for resolution.
//!
//! A call passed as an argument is resolved again for each receiver it is tested against;
//! [`provided`] hands [`call_fit`] to `assign` inside the argument for that, so `assign`
//! (which `registry` and this file use) needs no import of this file.

use cql::statement::ast::{ArithOp, CqlType, QualifiedName, Term};
use cql::types::ColumnType;

use super::assign::{type_fit, value_compatible, Fit, Provided};
use super::operation::{ArithKind, NEGATION};
use super::registry::{candidates, lookup, resolve, written_name};
use super::NativeFunction;
use crate::error::{CqlError, CqlResult, FunctionError, InternalError, ValueError};

/// The receiver name of argument `i` of `function` (`FunctionResolver.makeArgSpec`).
pub(crate) fn arg_name(function: &NativeFunction, i: usize) -> String {
    format!("arg{i}({})", function.qualified_name().to_lowercase())
}

/// `term` as a function argument.
pub(crate) fn provided(term: &Term) -> Provided {
    match term {
        Term::Literal(lit) => Provided::Literal(lit.clone()),
        Term::Bind(marker) => Provided::Marker(marker.to_string()),
        Term::TypeCast(CqlType::Native(ty), _) => Provided::Typed {
            ty: ty.clone(),
            text: term.to_string(),
        },
        Term::Function { .. } | Term::Arith(..) | Term::Negate(_) | Term::Cast(..) => call(term),
        Term::Tuple(items) if items.len() == 1 => match provided(&items[0]) {
            Provided::Typed { ty, .. } => Provided::Typed {
                ty,
                text: term.to_string(),
            },
            Provided::Call { .. } => call(term),
            other => other,
        },
        _ => Provided::Opaque(term.to_string()),
    }
}

/// `term`, a call, as an argument: tested against a receiver by resolving it ([`call_fit`]).
fn call(term: &Term) -> Provided {
    Provided::Call {
        term: term.clone(),
        fit: call_fit,
    }
}

/// The call a term stands for, resolved for `receiver` (a parenthesised call included).
fn resolve_term(term: &Term, receiver: Option<&ColumnType>) -> CqlResult<&'static NativeFunction> {
    match term {
        Term::Function { name, args } => resolve_call(name, args, receiver),
        Term::Arith(op, left, right) => resolve_operation(*op, left, right, receiver),
        Term::Negate(inner) => resolve_negation(inner, receiver),
        Term::Cast(inner, ty) => resolve_cast(inner, ty),
        Term::Tuple(items) if items.len() == 1 => resolve_term(&items[0], receiver),
        other => Err(InternalError::NotACall {
            term: other.to_string(),
        }
        .into()),
    }
}

/// How many receiver-dependent resolutions are under way on this thread: nested calls are
/// re-resolved for each candidate receiver, which multiplies with depth, so past a few
/// levels a call is typed without its receiver.
const MAX_RECEIVER_DEPTH: u32 = 3;

thread_local! {
    static RECEIVER_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `FunctionCall.Raw.testAssignment`: the call resolved for the receiver, exact when it
/// returns the receiver's type, weak when it does not resolve.
pub(crate) fn call_fit(term: &Term, receiver: &ColumnType) -> Fit {
    let depth = RECEIVER_DEPTH.with(std::cell::Cell::get);
    let target = (depth < MAX_RECEIVER_DEPTH).then_some(receiver);
    RECEIVER_DEPTH.with(|d| d.set(depth + 1));
    let resolved = resolve_term(term, target);
    RECEIVER_DEPTH.with(|d| d.set(depth));
    match resolved {
        Ok(function) => type_fit(&function.ret, receiver),
        Err(_) => Fit::Weak,
    }
}

/// Resolves `name(args)` written in a term whose result goes to a `receiver` type.
///
/// # Errors
///
/// `Unknown function f called` when no native function has the name, and the resolution
/// errors of [`resolve`].
pub(crate) fn resolve_call(
    name: &QualifiedName,
    args: &[Term],
    receiver: Option<&ColumnType>,
) -> CqlResult<&'static NativeFunction> {
    let provided: Vec<Provided> = args.iter().map(provided).collect();
    resolve(&written_name(name), lookup(name), &provided, receiver)?.ok_or_else(|| {
        if is_native_aggregate(name) {
            FunctionError::AggregateInTerm.into()
        } else {
            FunctionError::UnknownFunction {
                function: written_name(name),
            }
            .into()
        }
    })
}

/// Whether `name` is one of Cassandra's native aggregates (which the selection planner
/// answers): found by Cassandra's resolver in a term too, then refused there.
fn is_native_aggregate(name: &QualifiedName) -> bool {
    const AGGREGATES: [&str; 5] = ["count", "min", "max", "sum", "avg"];
    let system = name
        .keyspace
        .as_ref()
        .is_none_or(|ks| ks.name.eq_ignore_ascii_case("system"));
    system
        && AGGREGATES
            .iter()
            .any(|a| a.eq_ignore_ascii_case(&name.name.name))
}

/// Resolves `left op right` in a term.
///
/// # Errors
///
/// Unsupported or ambiguous operand types.
pub(crate) fn resolve_operation(
    op: ArithOp,
    left: &Term,
    right: &Term,
    receiver: Option<&ColumnType>,
) -> CqlResult<&'static NativeFunction> {
    let name = ArithKind::of(op).function_name();
    let provided = [provided(left), provided(right)];
    resolve(
        &format!("system.{name}"),
        candidates(name),
        &provided,
        receiver,
    )?
    .ok_or_else(|| InternalError::UndeclaredOperator { function: name }.into())
}

/// Resolves `-term` in a term.
///
/// # Errors
///
/// A non-numeric or ambiguous operand.
pub(crate) fn resolve_negation(
    inner: &Term,
    receiver: Option<&ColumnType>,
) -> CqlResult<&'static NativeFunction> {
    let provided = [provided(inner)];
    resolve(
        &format!("system.{NEGATION}"),
        candidates(NEGATION),
        &provided,
        receiver,
    )?
    .ok_or_else(|| InternalError::UndeclaredNegation.into())
}

/// Resolves `CAST(term AS type)` in a term: the `castAs<Type>` function for the term.
///
/// # Errors
///
/// `x cannot be cast to t` when no conversion exists.
pub(crate) fn resolve_cast(inner: &Term, ty: &CqlType) -> CqlResult<&'static NativeFunction> {
    let cannot = || -> CqlError {
        ValueError::NoCast {
            term: inner.to_string(),
            ty: ty.clone().into(),
        }
        .into()
    };
    let CqlType::Native(target) = ty else {
        return Err(cannot());
    };
    let name = super::cast_function_name(target);
    let provided = [provided(inner)];
    resolve(
        &format!("system.{name}"),
        candidates(&name),
        &provided,
        None,
    )?
    .ok_or_else(cannot)
}

/// Checks that `function`'s result can be assigned to the receiver (`FunctionCall.prepare`).
///
/// # Errors
///
/// `Type error: cannot assign result of function f (type t) to c (type u)`.
pub(crate) fn check_assignable(
    function: &NativeFunction,
    receiver_name: &str,
    receiver: &ColumnType,
) -> CqlResult<()> {
    if value_compatible(receiver, &function.ret) {
        Ok(())
    } else {
        Err(FunctionError::ResultNotAssignable {
            function: function.qualified_name(),
            ty: function.ret.clone().into(),
            receiver: receiver_name.to_string(),
            receiver_type: receiver.clone().into(),
        }
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::statement::ast::{BindMarker, Ident, Literal};

    fn call(name: &str, args: Vec<Term>) -> (QualifiedName, Vec<Term>) {
        (
            QualifiedName {
                keyspace: None,
                name: Ident {
                    name: name.into(),
                    quoted: false,
                },
            },
            args,
        )
    }

    #[test]
    fn calls_in_terms_resolve_or_report_unknown_names() {
        let (name, args) = call("textasblob", vec![Term::Bind(BindMarker::Anonymous(0))]);
        let f = resolve_call(&name, &args, Some(&ColumnType::Blob)).expect("resolves");
        assert_eq!(arg_name(f, 0), "arg0(system.textasblob)");
        let (name, args) = call("nosuch", vec![]);
        let err = resolve_call(&name, &args, None).expect_err("unknown");
        assert_eq!(err.to_string(), "Unknown function nosuch called");
        let (sum, args) = call("sum", vec![]);
        let err = resolve_call(&sum, &args, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Aggregation function are not supported in the where clause"
        );
    }

    #[test]
    fn results_must_suit_the_receiver() {
        let (name, args) = call("now", vec![]);
        let f = resolve_call(&name, &args, None).expect("resolves");
        assert!(check_assignable(f, "u", &ColumnType::Uuid).is_ok());
        let err = check_assignable(f, "i", &ColumnType::Int).expect_err("not an int");
        assert_eq!(
            err.to_string(),
            "Type error: cannot assign result of function system.now (type timeuuid) to i (type int)"
        );
    }

    #[test]
    fn nested_calls_are_typed_arguments() {
        let (inner_name, inner_args) = call(
            "mintimeuuid",
            vec![Term::Literal(Literal::String("2013-02-02".into()))],
        );
        let inner = Term::Function {
            name: inner_name,
            args: inner_args,
        };
        let arg = provided(&inner);
        assert_eq!(arg.fit(&ColumnType::Timeuuid), Fit::Exact);
        assert_eq!(arg.fit(&ColumnType::Timestamp), Fit::Not);
        let one = || Box::new(Term::Literal(Literal::Integer("1".into())));
        let sum = Term::Tuple(vec![Term::Arith(ArithOp::Add, one(), one())]);
        // `(1 + 1)` becomes a smallint sum for a smallint receiver.
        assert_eq!(provided(&sum).fit(&ColumnType::Smallint), Fit::Exact);
        let f = resolve_operation(ArithOp::Mul, &one(), &sum, Some(&ColumnType::Smallint))
            .expect("resolves");
        assert_eq!(f.ret, ColumnType::Smallint);
    }
}
