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
use super::json_fcts::TO_JSON;
use super::operation::{ArithKind, NEGATION};
use super::registry::{candidates, is_native, lookup, made_for_receiver, resolve, written_name};
use super::{Body, NativeFunction};
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
/// returns the receiver's type, weak when it does not resolve. `fromJson` returns whatever
/// its receiver is, so Cassandra always calls it weak: a call it is passed to stays ambiguous
/// among overloads until a type hint settles it.
pub(crate) fn call_fit(term: &Term, receiver: &ColumnType) -> Fit {
    let depth = RECEIVER_DEPTH.with(std::cell::Cell::get);
    let target = (depth < MAX_RECEIVER_DEPTH).then_some(receiver);
    RECEIVER_DEPTH.with(|d| d.set(depth + 1));
    let resolved = resolve_term(term, target);
    RECEIVER_DEPTH.with(|d| d.set(depth));
    match resolved {
        Ok(function) if function.body == Body::FromJson => Fit::Weak,
        Ok(function) => type_fit(&function.ret, receiver),
        Err(_) => Fit::Weak,
    }
}

/// Resolves `name(args)` written in a term whose result goes to a `receiver` type: among the
/// declared signatures, or `fromJson`'s made for the receiver.
///
/// # Errors
///
/// `Unknown function f called` when no native function has the name, `toJson()` (which only
/// a selection clause can hold; Cassandra refuses it by name while resolving), and the
/// errors of [`made_for_receiver`] and [`resolve`].
pub(crate) fn resolve_call(
    name: &QualifiedName,
    args: &[Term],
    receiver: Option<&ColumnType>,
) -> CqlResult<&'static NativeFunction> {
    if is_native(name, TO_JSON) {
        return Err(FunctionError::ToJsonOutsideSelection.into());
    }
    let found = match made_for_receiver(name, receiver)? {
        Some(made) => std::slice::from_ref(made),
        None => lookup(name),
    };
    let provided: Vec<Provided> = args.iter().map(provided).collect();
    resolve(&written_name(name), found, &provided, receiver)?.ok_or_else(|| {
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

    #[test]
    fn from_json_is_made_for_each_receiver() {
        let (name, args) = call("fromjson", vec![Term::Bind(BindMarker::Anonymous(0))]);
        let int = resolve_call(&name, &args, Some(&ColumnType::Int)).expect("resolves");
        assert!(std::ptr::eq(
            int,
            resolve_call(&name, &args, Some(&ColumnType::Int)).expect("resolves")
        ));
        assert!(std::ptr::eq(
            int,
            super::super::json_fcts::for_receiver(&ColumnType::Int)
        ));
        assert_eq!(int.to_string(), "system.fromjson : (text) -> int");
        assert_eq!(arg_name(int, 0), "arg0(system.fromjson)");
        let text = resolve_call(&name, &args, Some(&ColumnType::Text)).expect("resolves");
        assert_eq!(text.ret, ColumnType::Text);
        assert!(!std::ptr::eq(int, text));
        assert!(check_assignable(int, "v", &ColumnType::Int).is_ok());
    }

    #[test]
    fn from_json_refusals_keep_their_messages() {
        let (name, args) = call("fromjson", vec![]);
        let err = resolve_call(&name, &args, Some(&ColumnType::Int)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid number of arguments in call to function system.fromjson: 1 required but 0 provided"
        );
        let (name, args) = call("fromjson", vec![Term::Bind(BindMarker::Anonymous(0))]);
        let err = resolve_call(&name, &args, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "fromJson() cannot be used in the selection clause of a SELECT statement"
        );
        let (name, args) = call("tojson", vec![Term::Bind(BindMarker::Anonymous(0))]);
        let err = resolve_call(&name, &args, Some(&ColumnType::Text)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "toJson() may only be used within the selection clause of SELECT statements"
        );
    }

    #[test]
    fn from_json_is_only_weakly_assignable() {
        // Cassandra's rule: `fromJson` fits every receiver, so it never settles an overload.
        let (name, args) = call("fromjson", vec![Term::Literal(Literal::String("1".into()))]);
        let from_json = provided(&Term::Function { name, args });
        assert_eq!(from_json.fit(&ColumnType::Int), Fit::Weak);
        assert_eq!(from_json.fit(&ColumnType::Timestamp), Fit::Weak);
        let (name, args) = call(
            "totimestamp",
            vec![Term::Function {
                name: call("fromjson", vec![]).0,
                args: vec![Term::Literal(Literal::String("1".into()))],
            }],
        );
        let err = resolve_call(&name, &args, None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Ambiguous call to function totimestamp"),
            "{err}"
        );
    }
}
