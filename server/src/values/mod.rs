//! Evaluation of terms (literals, bind markers, collection literals, functions) into the
//! serialized bytes of a receiving column's type, with Cassandra's messages for mismatches.

mod call;
pub(crate) mod json_functions;
pub(crate) mod json_insert;

use bytes::Bytes;
use cql::frame::request::Value;
use cql::statement::ast::{BindMarker, Literal, Term};
use cql::types::{codec, ColumnType, CqlValue};

use crate::error::{CqlError, CqlResult};

pub(crate) use crate::literals::Receiver;
use crate::literals::{literal, normalize};

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
        Term::Literal(Literal::Null) if receiver.ty.is_counter() => Err(CqlError::invalid(
            "Invalid null value for counter increment/decrement",
        )),
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
        return Err(CqlError::invalid(format!(
            "No value bound for marker {} (column {})",
            index, receiver.name
        )));
    };
    match value {
        Value::Null => Ok(Evaluated::Null),
        Value::Unset => Ok(Evaluated::Unset),
        Value::Bytes(bytes) => {
            codec::validate_value(receiver.ty, bytes).map_err(|err| {
                CqlError::invalid(format!(
                    "Exception while binding column {}: {err}",
                    receiver.name
                ))
            })?;
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
        Term::Literal(lit) => literal::literal_value(lit, receiver).map(Some),
        Term::Bind(marker) => match bind_value(marker, receiver, ctx)? {
            Evaluated::Value(bytes) => codec::deserialize_value(ty, &bytes)
                .map(Some)
                .map_err(|e| CqlError::invalid(e.to_string())),
            Evaluated::Null | Evaluated::Unset => Ok(None),
        },
        Term::List(items) | Term::Set(items) => collection_value(term, items, receiver, ctx),
        Term::Map(entries) => map_value(entries, receiver, ctx),
        Term::Tuple(items) => tuple_value(items, receiver, ctx),
        Term::Function { name, args } if name.name.name.eq_ignore_ascii_case("fromjson") => {
            json_functions::from_json(args, receiver, ctx)
        }
        Term::Function { name, .. } if name.name.name.eq_ignore_ascii_case("tojson") => {
            Err(json_functions::to_json_outside_selection())
        }
        Term::Function { .. } | Term::Arith(..) | Term::Cast(..) => {
            call::call_value(term, receiver, ctx)
        }
        Term::TypeCast(ty, inner) => call::cast_value(ty, inner, receiver, ctx),
        Term::Negate(inner) if matches!(**inner, Term::Literal(_)) => {
            match to_value(inner, receiver, ctx)? {
                Some(v) => literal::negate(v, receiver).map(Some),
                None => Ok(None),
            }
        }
        Term::Negate(_) => call::call_value(term, receiver, ctx),
        Term::Udt(fields) => udt_value(fields, receiver, ctx),
        Term::Column(_) => Err(CqlError::invalid(format!(
            "Invalid value {term} for column {} of type {ty}",
            receiver.name
        ))),
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
    if let (ColumnType::Vector { element, dimension }, true) = (receiver.ty, is_list) {
        return vector_value(items, element, *dimension, receiver, ctx);
    }
    let (element, make): (&ColumnType, fn(Vec<CqlValue>) -> CqlValue) = match (receiver.ty, is_list)
    {
        (ColumnType::List { element, .. }, true) => (element, CqlValue::List),
        (ColumnType::Set { element, .. }, false) => (element, CqlValue::Set),
        // An empty `{}` literal may be given to a set receiver as a map.
        _ => {
            let kind = if is_list { "list" } else { "set" };
            return Err(CqlError::invalid(format!(
                "Invalid {kind} literal for {} of type {}",
                receiver.name, receiver.ty
            )));
        }
    };
    let kind = if is_list { "list" } else { "set" };
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        let value =
            to_value(item, element_receiver(receiver.name, element), ctx).map_err(|err| {
                not_assignable(err, || {
                    format!(
                        "Invalid {kind} literal for {}: value {item} is not of type {element}",
                        receiver.name
                    )
                })
            })?;
        match value {
            Some(v) => values.push(v),
            None => {
                return Err(CqlError::invalid(
                    "null is not supported inside collections",
                ))
            }
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
        return Err(CqlError::invalid(format!(
            "Invalid vector literal for {} of type {}; expected {dimension} elements, but given {}",
            receiver.name,
            receiver.ty,
            items.len()
        )));
    }
    let not_of_type = |item: &Term| {
        CqlError::invalid(format!(
            "Invalid vector literal for {}: value {item} is not of type {element}",
            receiver.name
        ))
    };
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        if let Term::TypeCast(cast, _) = item {
            if cast.to_string() != element.to_string() {
                return Err(not_of_type(item));
            }
        }
        match to_value(item, element_receiver(receiver.name, element), ctx) {
            Ok(Some(v)) => values.push(v),
            Ok(None) => {
                return Err(CqlError::invalid(format!(
                    "Invalid vector literal for {}: value null is not of type {element}",
                    receiver.name
                )))
            }
            Err(err) if matches!(item, Term::Bind(_)) => return Err(err),
            Err(_) => return Err(not_of_type(item)),
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
                let entry = |term: &Term, part: &str, ty: &ColumnType| {
                    to_value(term, element_receiver(receiver.name, ty), ctx).map_err(|err| {
                        not_assignable(err, || {
                            format!(
                                "Invalid map literal for {}: {part} {term} is not of type {ty}",
                                receiver.name
                            )
                        })
                    })
                };
                let (k, v) = (entry(k, "key", key)?, entry(v, "value", value)?);
                match (k, v) {
                    (Some(k), Some(v)) => out.push((k, v)),
                    _ => {
                        return Err(CqlError::invalid(
                            "null is not supported inside collections",
                        ))
                    }
                }
            }
            Ok(Some(CqlValue::Map(literal::sort_map(out, key))))
        }
        ColumnType::Set { .. } if entries.is_empty() => Ok(Some(CqlValue::Set(Vec::new()))),
        other => Err(CqlError::invalid(format!(
            "Invalid map literal for {} of type {other}",
            receiver.name
        ))),
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
        return Err(CqlError::invalid(format!(
            "Invalid user type literal for {} of type {}",
            receiver.name, receiver.ty
        )));
    };
    for (field, _) in fields {
        if !types.iter().any(|(n, _)| *n == field.name) {
            return Err(CqlError::invalid(format!(
                "Unknown field '{}' in value of user defined type {name}",
                field.name
            )));
        }
    }
    let mut values = Vec::with_capacity(types.len());
    for (field_name, ty) in types {
        let value = match fields.iter().find(|(f, _)| f.name == *field_name) {
            Some((_, term)) => {
                let field_receiver = format!("{}.{field_name}", receiver.name);
                element_value(term, element_receiver(&field_receiver, ty), ctx, || {
                    format!(
                        "Invalid unset value for field '{field_name}' of user defined type {name}"
                    )
                })
                .map_err(|err| {
                    not_assignable(err, || {
                        format!(
                            "Invalid user type literal for {}: field {field_name} is not of type {ty}",
                            receiver.name
                        )
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
        return Err(CqlError::invalid(format!(
            "Invalid tuple type literal for {} of type {}",
            receiver.name, receiver.ty
        )));
    };
    if items.len() > types.len() {
        return Err(CqlError::invalid(format!(
            "Invalid tuple literal for {}: too many elements. Type {} expects {} but got {}",
            receiver.name,
            receiver.ty,
            types.len(),
            items.len()
        )));
    }
    let mut values = Vec::with_capacity(types.len());
    for (i, (item, ty)) in items.iter().zip(types).enumerate() {
        let element = element_receiver(receiver.name, ty);
        let value = element_value(item, element, ctx, || {
            format!("Invalid unset value for tuple field number {i}")
        })
        .map_err(|err| {
            not_assignable(err, || {
                format!(
                    "Invalid tuple literal for {}: component {i} is not of type {ty}",
                    receiver.name
                )
            })
        })?;
        values.push(value);
    }
    Ok(Some(CqlValue::Tuple(values)))
}

/// A component's error as Cassandra reports it inside a tuple or UDT literal: a component
/// whose literal does not suit its type (Cassandra's failed `testAssignment`) is named by the
/// enclosing literal's message; other errors stay as they are.
fn not_assignable(err: CqlError, message: impl FnOnce() -> String) -> CqlError {
    match &err {
        CqlError::Invalid(m)
            if m.starts_with("Invalid ")
                && (m.contains(" constant (") || m.contains(" literal for ")) =>
        {
            CqlError::invalid(message())
        }
        _ => err,
    }
}

/// A tuple element or UDT field: as `to_value`, but a bind marker bound to unset is refused
/// with `unset_message` (a frozen value is written whole, so nothing can stay unset).
fn element_value(
    term: &Term,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
    unset_message: impl FnOnce() -> String,
) -> CqlResult<Option<CqlValue>> {
    if let Term::Bind(marker) = term {
        if let Evaluated::Unset = bind_value(marker, receiver, ctx)? {
            return Err(CqlError::invalid(unset_message()));
        }
    }
    to_value(term, receiver, ctx)
}
