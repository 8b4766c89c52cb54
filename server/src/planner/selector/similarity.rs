//! `similarity_<kind>(a, b)` in a selection (Cassandra 5.0's `VectorFcts`): both arguments
//! must be `vector<float, n>` of one `n`, which a column, a vector literal or a type hint
//! gives; a `null` or a bind marker takes the other argument's type.

use cql::statement::ast::{CqlType, Literal, SelectExpr, Term};
use cql::types::ColumnType;
use storage::TableDef;

use super::{apply, prepare, Planned, Prepared};
use crate::error::{CqlError, CqlResult};
use crate::functions::assign::Fit;
use crate::functions::term as function_term;
use crate::functions::vector_fcts::{float_vector, function, generic_signature, Similarity};

/// One argument once looked at: prepared, and its dimension when it tells one.
struct Argument {
    prepared: Prepared,
    dimension: Option<u32>,
}

/// Plans `similarity_<kind>(args)`.
///
/// # Errors
///
/// Cassandra's messages: wrong argument count, an argument that is not a float vector,
/// arguments of different dimensions, no argument telling the dimension.
pub(super) fn plan(def: &TableDef, kind: Similarity, args: &[SelectExpr]) -> CqlResult<Planned> {
    let qualified = format!("system.{}", kind.function_name());
    if args.len() != 2 {
        return Err(CqlError::invalid(format!(
            "Invalid number of arguments for function {}",
            generic_signature(kind)
        )));
    }
    let mut looked = Vec::with_capacity(2);
    for (i, arg) in args.iter().enumerate() {
        looked.push(argument(def, &qualified, i, arg)?);
    }
    let dimension = match (looked[0].dimension, looked[1].dimension) {
        (Some(a), Some(b)) if a != b => {
            return Err(CqlError::invalid(
                "All arguments must have the same vector dimensions",
            ))
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => {
            return Err(CqlError::invalid(format!(
                "Cannot infer type of argument {} in call to function {qualified}",
                untyped_text(&args[0])
            )))
        }
    };
    let function = function(kind, dimension);
    apply(function, looked.into_iter().map(|a| a.prepared).collect())
}

/// How Cassandra prints an argument whose type cannot be inferred (`NULL`, `?`).
fn untyped_text(arg: &SelectExpr) -> String {
    match arg {
        SelectExpr::Term(Term::Literal(Literal::Null)) => "NULL".into(),
        other => other.to_string(),
    }
}

fn requires_vector(qualified: &str, what: String) -> CqlError {
    CqlError::invalid(format!(
        "Function {qualified} requires a float vector argument, but found argument {what}"
    ))
}

/// Looks at argument `index`: its dimension, or an error when it cannot be a float vector.
fn argument(
    def: &TableDef,
    qualified: &str,
    index: usize,
    arg: &SelectExpr,
) -> CqlResult<Argument> {
    let prepared = prepare(def, arg)?;
    let term = match prepared {
        Prepared::Ready(planned) => {
            return match &planned.ty {
                ColumnType::Vector { element, dimension } if **element == ColumnType::Float => {
                    Ok(Argument {
                        dimension: Some(*dimension),
                        prepared: Prepared::Ready(planned),
                    })
                }
                other => Err(requires_vector(
                    qualified,
                    format!("{} of type {other}", planned.name),
                )),
            }
        }
        Prepared::Term(term) => term,
    };
    let (term, dimension) = match term {
        Term::Literal(Literal::Null) | Term::Bind(_) => (term, None),
        Term::TypeCast(CqlType::Vector(element, n), inner)
            if matches!(*element, CqlType::Native(ColumnType::Float)) =>
        {
            let n = u32::try_from(n).ok().filter(|n| *n > 0).ok_or_else(|| {
                CqlError::invalid(format!(
                    "vectors may only have positive dimensions; given {n}"
                ))
            })?;
            (*inner, Some(n))
        }
        Term::List(ref items) => {
            let n = u32::try_from(items.len()).unwrap_or(u32::MAX);
            if items.iter().any(|item| !fits_float(item)) {
                return Err(CqlError::invalid(format!(
                    "Type error: {term} cannot be passed as argument {index} of function {qualified} of type {}",
                    float_vector(n)
                )));
            }
            (term, Some(n))
        }
        other => return Err(requires_vector(qualified, other.to_string())),
    };
    Ok(Argument {
        prepared: Prepared::Term(term),
        dimension,
    })
}

/// Whether a vector literal's element can be a `float`.
fn fits_float(item: &Term) -> bool {
    match item {
        Term::List(_) | Term::Set(_) | Term::Map(_) | Term::Udt(_) => false,
        Term::Literal(Literal::Null) => false,
        other => function_term::provided(other).fit(&ColumnType::Float) != Fit::Not,
    }
}
