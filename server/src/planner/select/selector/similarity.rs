//! `similarity_<kind>(a, b)` in a selection (Cassandra 5.0's `VectorFcts`): both arguments
//! must be `vector<float, n>` of one `n`, which a column, a vector literal or a type hint
//! gives; a `null` or a bind marker takes the other argument's type.

use cql::statement::ast::{CqlType, Literal, SelectExpr, Term};
use cql::types::ColumnType;
use storage::TableDef;

use super::{apply, prepare, Planned, Prepared};
use crate::error::{CqlResult, DdlError, FunctionError, SelectError};
use crate::eval::functions::assign::Fit;
use crate::eval::functions::term as function_term;
use crate::eval::functions::vector_fcts::{function, Similarity};

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
        return Err(SelectError::SimilarityArgumentCount {
            function: kind.function_name(),
        }
        .into());
    }
    let mut looked = Vec::with_capacity(2);
    for (i, arg) in args.iter().enumerate() {
        looked.push(argument(def, &qualified, i, arg)?);
    }
    let dimension = match (looked[0].dimension, looked[1].dimension) {
        (Some(a), Some(b)) if a != b => return Err(FunctionError::VectorDimensionsDiffer.into()),
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => {
            return Err(SelectError::UntypedSimilarityArgument {
                argument: untyped_text(&args[0]),
                function: qualified,
            }
            .into())
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
                other => Err(SelectError::SelectorNotFloatVector {
                    function: qualified.to_string(),
                    ty: other.to_string(),
                    argument: planned.name,
                }
                .into()),
            }
        }
        Prepared::Term(term) => term,
    };
    let (term, dimension) = match term {
        Term::Literal(Literal::Null) | Term::Bind(_) => (term, None),
        Term::TypeCast(CqlType::Vector(element, n), inner)
            if matches!(*element, CqlType::Native(ColumnType::Float)) =>
        {
            let n = u32::try_from(n)
                .ok()
                .filter(|n| *n > 0)
                .ok_or(DdlError::NonPositiveVectorDimension { dimension: n })?;
            (*inner, Some(n))
        }
        Term::List(ref items) => {
            let n = u32::try_from(items.len()).unwrap_or(u32::MAX);
            if items.iter().any(|item| !fits_float(item)) {
                return Err(SelectError::ArgumentNotOfType {
                    term: term.to_string(),
                    index,
                    function: qualified.to_string(),
                    dimension: n,
                }
                .into());
            }
            (term, Some(n))
        }
        other => {
            return Err(SelectError::TermNotFloatVector {
                function: qualified.to_string(),
                term: other.to_string(),
            }
            .into())
        }
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
