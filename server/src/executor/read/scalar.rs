//! Evaluation of planned selector expressions ([`Scalar`]): terms are bound once per
//! execution (before the scan, where the bound values are at hand), then each row's value is
//! computed from its columns.

use bytes::Bytes;
use storage::TableDef;

use crate::error::{CqlResult, InternalError};
use cql::types::ColumnType;

use crate::eval::functions::CallContext;
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::read::elements;
use crate::executor::read::row::{LiveRow, WriteTime};
use crate::executor::write::multicell;
use crate::planner::select::selector::{CellTimeKind, ElementKey, Scalar};

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
            Scalar::ElementTime {
                key: ElementKey::Key(key),
                ..
            } => key.bind(ctx)?,
            Scalar::Column(_)
            | Scalar::Token
            | Scalar::Const(_)
            | Scalar::Aggregated(_)
            | Scalar::CellTimes { .. }
            | Scalar::WriteTime(_)
            | Scalar::Ttl(_)
            | Scalar::ElementTime { .. } => {}
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
            Scalar::Aggregated(_) => Err(InternalError::AggregateOutsideGroup.into()),
            Scalar::Term { term, .. } => Err(InternalError::UnboundSelectorTerm {
                term: term.to_string(),
            }
            .into()),
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
            Scalar::CellTimes { column, kind } => Ok(cell_times(def, row, ctx, *column, *kind)),
            Scalar::WriteTime(i) => Ok(time_value(row.write_time(def, *i), false, ctx)),
            Scalar::Ttl(i) => Ok(time_value(row.write_time(def, *i), true, ctx)),
            Scalar::ElementTime {
                column,
                key,
                ty,
                ttl,
            } => {
                let time = element_time(def, row, ctx, *column, key, ty)?;
                Ok(time_value(time, *ttl, ctx))
            }
            Scalar::Field { value, index } => match value.eval(def, row, ctx)? {
                Some(udt) => udt_field(&udt, *index),
                None => Ok(None),
            },
        }
    }
}

impl Scalar {
    /// The value of functions applied to aggregates (`todate(max(t))`, `max(v) - min(v)`)
    /// for the group whose aggregate results are `aggregated`, in the selector's order.
    ///
    /// # Errors
    ///
    /// A failing function.
    pub(crate) fn eval_applied(
        &self,
        def: &TableDef,
        aggregated: &[Option<Bytes>],
        ctx: &CallContext,
    ) -> CqlResult<Option<Bytes>> {
        let mut applied = self.clone();
        applied.substitute_aggregated(aggregated);
        // The planner allows no column here: an empty row stands for the group.
        applied.eval(def, &LiveRow::default(), ctx)
    }

    fn substitute_aggregated(&mut self, aggregated: &[Option<Bytes>]) {
        match self {
            Scalar::Aggregated(k) => {
                *self = Scalar::Const(aggregated.get(*k).cloned().flatten());
            }
            Scalar::Call { args, .. } => {
                args.iter_mut()
                    .for_each(|a| a.substitute_aggregated(aggregated));
            }
            Scalar::Field { value, .. } => value.substitute_aggregated(aggregated),
            _ => {}
        }
    }
}

/// What [`Scalar::CellTimes`] reads of column `column`: each live cell's write time or TTL
/// (null without one) as a list, null when it has none, or their latest write time.
fn cell_times(
    def: &TableDef,
    row: &LiveRow,
    ctx: &CallContext,
    column: usize,
    kind: CellTimeKind,
) -> Option<Bytes> {
    let times = match def.columns.get(column) {
        Some(col) if col.ty.is_multi_cell() => row.element_write_times(def, column),
        Some(_) => row.write_time(def, column).into_iter().collect(),
        None => Vec::new(),
    };
    if times.is_empty() {
        return None;
    }
    let values: Vec<Option<Bytes>> = match kind {
        CellTimeKind::MaxWriteTime => {
            let latest = times.iter().map(|t| t.timestamp).max()?;
            return Some(Bytes::copy_from_slice(&latest.to_be_bytes()));
        }
        CellTimeKind::WriteTimes => times
            .iter()
            .map(|&t| time_value(Some(t), false, ctx))
            .collect(),
        CellTimeKind::Ttls => times
            .iter()
            .map(|&t| time_value(Some(t), true, ctx))
            .collect(),
    };
    Some(multicell::list_of_nullable(&values))
}

/// A write time as `writetime()` (the timestamp) or `ttl()` (the seconds left, null without
/// a TTL) returns it.
fn time_value(time: Option<WriteTime>, ttl: bool, ctx: &CallContext) -> Option<Bytes> {
    let time = time?;
    if !ttl {
        return Some(Bytes::copy_from_slice(&time.timestamp.to_be_bytes()));
    }
    let left = time.expires_at_seconds? - ctx.now_micros.div_euclid(1_000_000);
    let left = i32::try_from(left).unwrap_or(i32::MAX);
    Some(Bytes::copy_from_slice(&left.to_be_bytes()))
}

/// When the element or field `key` of column `column` (of type `ty`) was written: its own
/// cell's time in a non-frozen column, the column's cell's in a frozen one when the element
/// is there; `None` when it is not.
fn element_time(
    def: &TableDef,
    row: &LiveRow,
    ctx: &CallContext,
    column: usize,
    key: &ElementKey,
    ty: &ColumnType,
) -> CqlResult<Option<WriteTime>> {
    let key = match key {
        ElementKey::Key(key) => match key.eval(def, row, ctx)? {
            Some(key) => ElementRef::Key(key),
            None => return Ok(None),
        },
        ElementKey::Field(index) => ElementRef::Field(*index),
    };
    if ty.is_multi_cell() {
        let path = match key {
            ElementRef::Key(key) => key,
            ElementRef::Field(index) => multicell::field_path(index),
        };
        return Ok(row.element_write_time(def, column, &path));
    }
    let Some(value) = row.value(def, column) else {
        return Ok(None);
    };
    let present = match key {
        ElementRef::Key(key) => elements::element(ty, value, &key)?.is_some(),
        ElementRef::Field(index) => udt_field(value, index)?.is_some(),
    };
    Ok(present.then(|| row.write_time(def, column)).flatten())
}

/// An evaluated [`ElementKey`].
enum ElementRef {
    Key(Bytes),
    Field(usize),
}

/// Field `index` of a serialized UDT value: a sequence of `[bytes]`, possibly shorter than the
/// type (missing trailing fields are null).
fn udt_field(udt: &Bytes, index: usize) -> CqlResult<Option<Bytes>> {
    let malformed = || InternalError::MalformedUserType;
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
