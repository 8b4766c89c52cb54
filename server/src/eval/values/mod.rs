//! Evaluation of terms (literals, bind markers, collection literals, functions) into the
//! serialized bytes of a receiving column's type, with Cassandra's messages for mismatches.

mod call;
pub(crate) mod json_functions;
pub(crate) mod json_insert;

use bytes::Bytes;
use cql::frame::request::Value;
use cql::statement::ast::{BindMarker, Literal, Term};
use cql::types::{codec, ColumnType, CqlValue};

use crate::error::{CqlError, CqlResult, ValueError};

pub(crate) use crate::eval::literals::Receiver;
use crate::eval::literals::{literal, normalize};

/// A term's value once evaluated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Evaluated {
    /// `null`.
    Null,
    /// A protocol v4 `unset` bound value: leave the column untouched.
    Unset,
    /// Serialized bytes of the receiver's type.
    Value(Bytes),
}

/// What evaluation needs besides the term: the bound values and the time of the request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EvalContext<'a> {
    /// Bound values by marker index.
    pub binds: &'a [Value],
    /// The request's time in microseconds (for `now()` and friends).
    pub now_micros: i64,
}

/// Evaluates `term` for `receiver`.
pub(crate) fn evaluate(
    term: &Term,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Evaluated> {
    match term {
        Term::Bind(marker) => bind_value(marker, receiver, ctx),
        Term::Literal(Literal::Null) if receiver.ty.is_counter() => {
            Err(ValueError::NullCounter.into())
        }
        Term::Literal(Literal::Null) => Ok(Evaluated::Null),
        // A type hint on a marker keeps the marker's unset (an operation then refuses it).
        Term::TypeCast(ty, inner) if matches!(**inner, Term::Bind(_)) => {
            call::check_cast(ty, inner, receiver)?;
            evaluate(inner, receiver, ctx)
        }
        _ => {
            let value = to_value(term, receiver, ctx)?;
            match value {
                None => Ok(Evaluated::Null),
                Some(v) => {
                    let mut out = Vec::new();
                    codec::serialize_value(&v, &mut out);
                    Ok(Evaluated::Value(Bytes::from(out)))
                }
            }
        }
    }
}

fn bind_index(marker: &BindMarker) -> usize {
    match marker {
        BindMarker::Anonymous(i) | BindMarker::Named(_, i) => *i,
    }
}

fn bind_value(
    marker: &BindMarker,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Evaluated> {
    let index = bind_index(marker);
    let Some(value) = ctx.binds.get(index) else {
        return Err(ValueError::NoBoundValue {
            index,
            column: receiver.name.to_string(),
        }
        .into());
    };
    match value {
        Value::Null => Ok(Evaluated::Null),
        Value::Unset => Ok(Evaluated::Unset),
        Value::Bytes(bytes) => {
            codec::validate_value(receiver.ty, bytes)
                .map_err(|source| ValueError::Binding { source })?;
            if normalize::has_unordered(receiver.ty) {
                return normalize::canonical(receiver.ty, bytes.clone()).map(Evaluated::Value);
            }
            Ok(Evaluated::Value(bytes.clone()))
        }
    }
}

/// Evaluates a term into a typed value (`None` for null).
fn to_value(
    term: &Term,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    let ty = receiver.ty;
    match term {
        Term::Literal(Literal::Null) => Ok(None),
        Term::Literal(lit) => Ok(Some(literal::literal_value(lit, receiver)?)),
        Term::Bind(marker) => match bind_value(marker, receiver, ctx)? {
            Evaluated::Value(bytes) => Ok(Some(
                codec::deserialize_value(ty, &bytes).map_err(ValueError::Codec)?,
            )),
            Evaluated::Null | Evaluated::Unset => Ok(None),
        },
        Term::List(items) | Term::Set(items) => collection_value(term, items, receiver, ctx),
        Term::Map(entries) => map_value(entries, receiver, ctx),
        Term::Tuple(items) => tuple_value(items, receiver, ctx),
        Term::Function { .. } | Term::Arith(..) | Term::Cast(..) => {
            call::call_value(term, receiver, ctx)
        }
        Term::TypeCast(ty, inner) => call::cast_value(ty, inner, receiver, ctx),
        Term::Negate(inner) if matches!(**inner, Term::Literal(_)) => {
            match to_value(inner, receiver, ctx)? {
                Some(v) => Ok(Some(literal::negate(v, receiver)?)),
                None => Ok(None),
            }
        }
        Term::Negate(_) => call::call_value(term, receiver, ctx),
        Term::Udt(fields) => udt_value(fields, receiver, ctx),
        Term::Column(_) => Err(ValueError::ColumnAsValue {
            term: term.to_string(),
            column: receiver.name.to_string(),
            ty: ty.clone().into(),
        }
        .into()),
    }
}

fn element_receiver<'a>(name: &'a str, ty: &'a ColumnType) -> Receiver<'a> {
    Receiver { name, ty }
}

fn collection_value(
    term: &Term,
    items: &[Term],
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    let is_list = matches!(term, Term::List(_));
    let kind = if is_list { "list" } else { "set" };
    if let (ColumnType::Vector { element, dimension }, true) = (receiver.ty, is_list) {
        return vector_value(items, element, *dimension, receiver, ctx);
    }
    let (element, make): (&ColumnType, fn(Vec<CqlValue>) -> CqlValue) = match (receiver.ty, is_list)
    {
        (ColumnType::List { element, .. }, true) => (element, CqlValue::List),
        (ColumnType::Set { element, .. }, false) => (element, CqlValue::Set),
        // An empty `{}` literal may be given to a set receiver as a map.
        _ => {
            return Err(ValueError::LiteralNotOfType {
                kind,
                column: receiver.name.to_string(),
                ty: receiver.ty.clone().into(),
            }
            .into());
        }
    };
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        let value =
            to_value(item, element_receiver(receiver.name, element), ctx).map_err(|err| {
                not_assignable(err, || ValueError::ElementNotOfType {
                    kind,
                    column: receiver.name.to_string(),
                    value: item.to_string(),
                    ty: element.clone().into(),
                })
            })?;
        match value {
            Some(v) => values.push(v),
            None => return Err(ValueError::NullInCollection.into()),
        }
    }
    if !is_list {
        values = literal::sort_set(values, element);
    }
    Ok(Some(make(values)))
}

/// A `[...]` literal for a vector: exactly `dimension` elements, each of the element type
/// (`Vectors.Literal` in Cassandra, with its messages).
fn vector_value(
    items: &[Term],
    element: &ColumnType,
    dimension: u32,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    if items.len() != dimension as usize {
        return Err(ValueError::VectorSize {
            column: receiver.name.to_string(),
            ty: receiver.ty.clone().into(),
            dimension,
            given: items.len(),
        }
        .into());
    }
    let not_of_type = |value: String| -> CqlError {
        ValueError::ElementNotOfType {
            kind: "vector",
            column: receiver.name.to_string(),
            value,
            ty: element.clone().into(),
        }
        .into()
    };
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        if let Term::TypeCast(cast, _) = item {
            if cast.to_string() != element.to_string() {
                return Err(not_of_type(item.to_string()));
            }
        }
        match to_value(item, element_receiver(receiver.name, element), ctx) {
            Ok(Some(v)) => values.push(v),
            Ok(None) => return Err(not_of_type("null".to_string())),
            Err(err) if matches!(item, Term::Bind(_)) => return Err(err),
            Err(_) => return Err(not_of_type(item.to_string())),
        }
    }
    Ok(Some(CqlValue::Vector(values)))
}

fn map_value(
    entries: &[(Term, Term)],
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    match receiver.ty {
        ColumnType::Map { key, value, .. } => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let entry = |term: &Term, part: &'static str, ty: &ColumnType| {
                    to_value(term, element_receiver(receiver.name, ty), ctx).map_err(|err| {
                        not_assignable(err, || ValueError::EntryNotOfType {
                            column: receiver.name.to_string(),
                            part,
                            term: term.to_string(),
                            ty: ty.clone().into(),
                        })
                    })
                };
                let (k, v) = (entry(k, "key", key)?, entry(v, "value", value)?);
                match (k, v) {
                    (Some(k), Some(v)) => out.push((k, v)),
                    _ => return Err(ValueError::NullInCollection.into()),
                }
            }
            Ok(Some(CqlValue::Map(literal::sort_map(out, key))))
        }
        ColumnType::Set { .. } if entries.is_empty() => Ok(Some(CqlValue::Set(Vec::new()))),
        other => Err(ValueError::LiteralNotOfType {
            kind: "map",
            column: receiver.name.to_string(),
            ty: other.clone().into(),
        }
        .into()),
    }
}

/// A UDT literal `{field: value, ...}`: fields in the type's order, missing ones null.
fn udt_value(
    fields: &[(cql::statement::ast::Ident, Term)],
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    let ColumnType::Udt {
        fields: types,
        name,
        ..
    } = receiver.ty
    else {
        return Err(ValueError::LiteralNotOfType {
            kind: "user type",
            column: receiver.name.to_string(),
            ty: receiver.ty.clone().into(),
        }
        .into());
    };
    for (field, _) in fields {
        if !types.iter().any(|(n, _)| *n == field.name) {
            return Err(ValueError::UnknownField {
                field: field.name.clone(),
                type_name: name.clone(),
            }
            .into());
        }
    }
    let mut values = Vec::with_capacity(types.len());
    for (field_name, ty) in types {
        let value = match fields.iter().find(|(f, _)| f.name == *field_name) {
            Some((_, term)) => {
                let field_receiver = format!("{}.{field_name}", receiver.name);
                element_value(term, element_receiver(&field_receiver, ty), ctx, || {
                    ValueError::UnsetField {
                        field: field_name.clone(),
                        type_name: name.clone(),
                    }
                })
                .map_err(|err| {
                    not_assignable(err, || ValueError::FieldNotOfType {
                        column: receiver.name.to_string(),
                        field: field_name.clone(),
                        ty: ty.clone().into(),
                    })
                })?
            }
            None => None,
        };
        values.push((field_name.clone(), value));
    }
    Ok(Some(CqlValue::Udt(values)))
}

fn tuple_value(
    items: &[Term],
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    let ColumnType::Tuple(types) = receiver.ty else {
        // `(term)` is a parenthesised term, not a one-element tuple, outside tuple receivers.
        if let [inner] = items {
            return to_value(inner, receiver, ctx);
        }
        return Err(ValueError::NotATuple {
            column: receiver.name.to_string(),
            ty: receiver.ty.clone().into(),
        }
        .into());
    };
    if items.len() > types.len() {
        return Err(ValueError::TooManyTupleElements {
            column: receiver.name.to_string(),
            ty: receiver.ty.clone().into(),
            expected: types.len(),
            given: items.len(),
        }
        .into());
    }
    let mut values = Vec::with_capacity(types.len());
    for (i, (item, ty)) in items.iter().zip(types).enumerate() {
        let element = element_receiver(receiver.name, ty);
        let value = element_value(item, element, ctx, || ValueError::UnsetTupleField {
            index: i,
        })
        .map_err(|err| {
            not_assignable(err, || ValueError::ComponentNotOfType {
                column: receiver.name.to_string(),
                index: i,
                ty: ty.clone().into(),
            })
        })?;
        values.push(value);
    }
    Ok(Some(CqlValue::Tuple(values)))
}

/// A component's error as Cassandra reports it inside a tuple or UDT literal: a component
/// whose literal does not suit its type (Cassandra's failed `testAssignment`) is named by the
/// enclosing literal's message; other errors stay as they are.
fn not_assignable(err: CqlError, enclosing: impl FnOnce() -> ValueError) -> CqlError {
    match &err {
        CqlError::Value(inner) if inner.is_not_assignable() => enclosing().into(),
        _ => err,
    }
}

/// A tuple element or UDT field: as `to_value`, but a bind marker bound to unset is refused
/// with `unset` (a frozen value is written whole, so nothing can stay unset).
fn element_value(
    term: &Term,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
    unset: impl FnOnce() -> ValueError,
) -> CqlResult<Option<CqlValue>> {
    if let Term::Bind(marker) = term {
        if let Evaluated::Unset = bind_value(marker, receiver, ctx)? {
            return Err(unset().into());
        }
    }
    to_value(term, receiver, ctx)
}
