//! Evaluation of planned selector expressions ([`Scalar`]): terms are bound once per
//! execution (before the scan, where the bound values are at hand), then each row's value is
//! computed from its columns.

use bytes::Bytes;
use storage::TableDef;

use crate::error::{CqlError, CqlResult};
use crate::executor::elements;
use crate::executor::row::LiveRow;
use crate::functions::CallContext;
use crate::planner::selector::Scalar;
use crate::values::{evaluate, EvalContext, Evaluated, Receiver};

/// Cassandra's name for bind markers in the selection clause.
const SELECTION_MARKER: &str = "[selection]";

impl Scalar {
    /// Replaces every term by its value for this execution.
    ///
    /// # Errors
    ///
    /// A literal or bound value that is not valid for the type it receives.
    pub(crate) fn bind(&mut self, ctx: &EvalContext<'_>) -> CqlResult<()> {
        match self {
            Scalar::Term { term, ty } => {
                let receiver = Receiver {
                    name: SELECTION_MARKER,
                    ty,
                };
                let value = match evaluate(term, receiver, ctx)? {
                    Evaluated::Value(bytes) => Some(bytes),
                    Evaluated::Null | Evaluated::Unset => None,
                };
                *self = Scalar::Const(value);
            }
            Scalar::Call { args, .. } => {
                for arg in args {
                    arg.bind(ctx)?;
                }
            }
            Scalar::Field { value, .. } => value.bind(ctx)?,
            Scalar::Element {
                collection, key, ..
            } => {
                collection.bind(ctx)?;
                key.bind(ctx)?;
            }
            Scalar::Slice {
                collection,
                from,
                to,
                ..
            } => {
                collection.bind(ctx)?;
                for bound in [from, to].into_iter().flatten() {
                    bound.bind(ctx)?;
                }
            }
            Scalar::Column(_)
            | Scalar::Token
            | Scalar::Const(_)
            | Scalar::WriteTime(_)
            | Scalar::Ttl(_) => {}
        }
        Ok(())
    }

    /// The value for `row` (`None` for null).
    ///
    /// # Errors
    ///
    /// A failing function (an invalid blob conversion, a division by zero).
    pub(crate) fn eval(
        &self,
        def: &TableDef,
        row: &LiveRow,
        ctx: &CallContext,
    ) -> CqlResult<Option<Bytes>> {
        match self {
            Scalar::Column(i) => Ok(row.value(def, *i).cloned()),
            Scalar::Token => Ok(Some(Bytes::copy_from_slice(&row.token.to_be_bytes()))),
            Scalar::Const(value) => Ok(value.clone()),
            Scalar::Term { term, .. } => Err(CqlError::Server(format!(
                "selector term {term} was not bound before the scan"
            ))),
            Scalar::Call { function, args } => {
                let values = args
                    .iter()
                    .map(|a| a.eval(def, row, ctx))
                    .collect::<CqlResult<Vec<_>>>()?;
                function.execute(&values, ctx)
            }
            Scalar::Element {
                collection,
                key,
                ty,
            } => match (collection.eval(def, row, ctx)?, key.eval(def, row, ctx)?) {
                (Some(collection), Some(key)) => elements::element(ty, &collection, &key),
                _ => Ok(None),
            },
            Scalar::Slice {
                collection,
                from,
                to,
                ty,
            } => {
                let Some(value) = collection.eval(def, row, ctx)? else {
                    return Ok(None);
                };
                let from = from.as_ref().map(|b| b.eval(def, row, ctx)).transpose()?;
                let to = to.as_ref().map(|b| b.eval(def, row, ctx)).transpose()?;
                // A null bound leaves that side open.
                elements::slice(
                    ty,
                    &value,
                    from.flatten().as_deref(),
                    to.flatten().as_deref(),
                )
            }
            Scalar::WriteTime(i) => Ok(row
                .write_time(def, *i)
                .map(|t| Bytes::copy_from_slice(&t.timestamp.to_be_bytes()))),
            Scalar::Ttl(i) => Ok(row
                .write_time(def, *i)
                .and_then(|t| t.expires_at_seconds)
                .map(|expires| {
                    let left = expires - ctx.now_micros.div_euclid(1_000_000);
                    let left = i32::try_from(left).unwrap_or(i32::MAX);
                    Bytes::copy_from_slice(&left.to_be_bytes())
                })),
            Scalar::Field { value, index } => match value.eval(def, row, ctx)? {
                Some(udt) => udt_field(&udt, *index),
                None => Ok(None),
            },
        }
    }
}

/// Field `index` of a serialized UDT value: a sequence of `[bytes]`, possibly shorter than the
/// type (missing trailing fields are null).
fn udt_field(udt: &Bytes, index: usize) -> CqlResult<Option<Bytes>> {
    let malformed = || CqlError::Server("malformed user type value".into());
    let mut at = 0usize;
    for i in 0..=index {
        let Some(len) = udt.get(at..at + 4) else {
            return Ok(None);
        };
        let len = i32::from_be_bytes(len.try_into().map_err(|_| malformed())?);
        at += 4;
        let value = match usize::try_from(len) {
            Ok(n) => {
                let value = udt.get(at..at + n).ok_or_else(malformed)?;
                at += n;
                Some(udt.slice_ref(value))
            }
            Err(_) => None,
        };
        if i == index {
            return Ok(value);
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udt(fields: &[Option<&[u8]>]) -> Bytes {
        let mut out = Vec::new();
        for field in fields {
            match field {
                Some(v) => {
                    out.extend_from_slice(&(v.len() as i32).to_be_bytes());
                    out.extend_from_slice(v);
                }
                None => out.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        Bytes::from(out)
    }

    #[test]
    fn udt_fields_are_read_by_position() {
        let value = udt(&[Some(b"ab"), None, Some(&[0, 0, 0, 7])]);
        assert_eq!(
            udt_field(&value, 0).expect("reads").as_deref(),
            Some(&b"ab"[..])
        );
        assert_eq!(udt_field(&value, 1).expect("reads"), None);
        assert_eq!(
            udt_field(&value, 2).expect("reads").as_deref(),
            Some(&[0u8, 0, 0, 7][..])
        );
        // A value written before the field was added has no bytes for it: null.
        assert_eq!(udt_field(&value, 3).expect("reads"), None);
        assert!(udt_field(&Bytes::from_static(&[0, 0, 0, 9, 1]), 0).is_err());
    }
}
