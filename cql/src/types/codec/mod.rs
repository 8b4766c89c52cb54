//! The value wire codec (native_protocol_v4.spec section 6, and section 7 for UDTs): the bytes
//! of one value inside a `[bytes]`, without its length prefix.
//!
//! Rows, bound values and stored cells keep values in this form; [`deserialize_value`] builds
//! a [`CqlValue`] from it and [`validate_value`] performs the same checks without building
//! anything. Both follow Cassandra's serializers (`org.apache.cassandra.serializers`),
//! including their error messages:
//!
//! - the empty value (zero bytes, distinct from null) is accepted exactly where Cassandra
//!   accepts it: every type except `smallint`, `tinyint`, `date`, `time`, `duration` and the
//!   collections. It decodes to [`CqlValue::Empty`], except for `ascii`, `text`, `blob` and
//!   custom types, where it is the empty string or blob;
//! - fixed-size types must have exactly their size; `text` must be UTF-8, `ascii` 7-bit;
//! - collections use v4's `[int]` counts and `[bytes]` elements, with no null elements and no
//!   trailing bytes; tuples and UDTs may carry fewer fields than the type (the missing trailing
//!   fields are null) but not more.
//!
//! Nested types recurse at most [`MAX_VALUE_DEPTH`] levels.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use uuid::Uuid;

mod error;
mod vint;

pub use error::ValueError;
use vint::{read_vint, write_vint};

use super::{vector, ColumnType, CqlValue};

/// How deeply collections, tuples and UDTs may nest inside one value.
pub const MAX_VALUE_DEPTH: usize = 32;

/// Appends the serialized form of `value` to `out` (no length prefix). The value is not
/// checked against a type; [`CqlValue::Empty`] writes nothing.
pub fn serialize_value(value: &CqlValue, out: &mut Vec<u8>) {
    match value {
        CqlValue::Ascii(s) | CqlValue::Text(s) => out.extend_from_slice(s.as_bytes()),
        CqlValue::Blob(b) | CqlValue::Varint(b) => out.extend_from_slice(b),
        CqlValue::Bigint(v) | CqlValue::Counter(v) | CqlValue::Timestamp(v) | CqlValue::Time(v) => {
            out.extend_from_slice(&v.to_be_bytes());
        }
        CqlValue::Boolean(v) => out.push(u8::from(*v)),
        CqlValue::Decimal { unscaled, scale } => {
            out.extend_from_slice(&scale.to_be_bytes());
            out.extend_from_slice(unscaled);
        }
        CqlValue::Double(v) => out.extend_from_slice(&v.to_be_bytes()),
        CqlValue::Float(v) => out.extend_from_slice(&v.to_be_bytes()),
        CqlValue::Int(v) => out.extend_from_slice(&v.to_be_bytes()),
        CqlValue::Uuid(v) | CqlValue::Timeuuid(v) => out.extend_from_slice(v.as_bytes()),
        CqlValue::Inet(IpAddr::V4(ip)) => out.extend_from_slice(&ip.octets()),
        CqlValue::Inet(IpAddr::V6(ip)) => out.extend_from_slice(&ip.octets()),
        CqlValue::Date(v) => out.extend_from_slice(&v.to_be_bytes()),
        CqlValue::Smallint(v) => out.extend_from_slice(&v.to_be_bytes()),
        CqlValue::Tinyint(v) => out.extend_from_slice(&v.to_be_bytes()),
        CqlValue::Duration {
            months,
            days,
            nanoseconds,
        } => {
            write_vint(out, i64::from(*months));
            write_vint(out, i64::from(*days));
            write_vint(out, *nanoseconds);
        }
        CqlValue::List(items) | CqlValue::Set(items) => {
            write_count(out, items.len());
            for item in items {
                write_element(out, Some(item));
            }
        }
        CqlValue::Map(entries) => {
            write_count(out, entries.len());
            for (key, value) in entries {
                write_element(out, Some(key));
                write_element(out, Some(value));
            }
        }
        CqlValue::Udt(fields) => {
            for (_, value) in fields {
                write_element(out, value.as_ref());
            }
        }
        CqlValue::Tuple(items) => {
            for item in items {
                write_element(out, item.as_ref());
            }
        }
        CqlValue::Vector(items) => {
            let fixed = items.first().is_some_and(fixed_in_vector);
            for item in items {
                if fixed {
                    serialize_value(item, out);
                } else {
                    let mut element = Vec::new();
                    serialize_value(item, &mut element);
                    vector::write_unsigned_vint(out, element.len() as u64);
                    out.extend_from_slice(&element);
                }
            }
        }
        CqlValue::Empty => {}
    }
}

/// Whether a vector element value is written without a length (its type has a fixed size,
/// [`vector::fixed_size`]).
fn fixed_in_vector(value: &CqlValue) -> bool {
    match value {
        CqlValue::Boolean(_)
        | CqlValue::Int(_)
        | CqlValue::Float(_)
        | CqlValue::Bigint(_)
        | CqlValue::Double(_)
        | CqlValue::Timestamp(_)
        | CqlValue::Uuid(_)
        | CqlValue::Timeuuid(_) => true,
        CqlValue::Vector(items) => items.first().is_some_and(fixed_in_vector),
        _ => false,
    }
}

fn write_count(out: &mut Vec<u8>, count: usize) {
    out.extend_from_slice(&i32::try_from(count).unwrap_or(i32::MAX).to_be_bytes());
}

/// Writes `[bytes]`: a 4-byte length (patched in after the value) then the value, or -1.
fn write_element(out: &mut Vec<u8>, value: Option<&CqlValue>) {
    let Some(value) = value else {
        out.extend_from_slice(&(-1i32).to_be_bytes());
        return;
    };
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    serialize_value(value, out);
    let len = i32::try_from(out.len() - at - 4).unwrap_or(i32::MAX);
    if let Some(slot) = out.get_mut(at..at + 4) {
        slot.copy_from_slice(&len.to_be_bytes());
    }
}

/// Builds the [`CqlValue`] of `bytes` as a value of type `ty`.
///
/// # Errors
///
/// The first check that fails, with Cassandra's message (see the module docs).
pub fn deserialize_value(ty: &ColumnType, bytes: &[u8]) -> Result<CqlValue, ValueError> {
    decode(ty, bytes, 0)
}

/// Checks that `bytes` is a valid value of type `ty`, as [`deserialize_value`] would, without
/// building it.
///
/// # Errors
///
/// The same errors as [`deserialize_value`].
pub fn validate_value(ty: &ColumnType, bytes: &[u8]) -> Result<(), ValueError> {
    validate(ty, bytes, 0)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn exact(bytes: &[u8], sizes: &[usize], expected: &'static str) -> Result<(), ValueError> {
    if sizes.contains(&bytes.len()) {
        Ok(())
    } else {
        Err(ValueError::WrongSize {
            expected,
            len: bytes.len(),
        })
    }
}

/// Checks a non-nested type; nested types pass (their structure is walked elsewhere).
fn check_scalar(ty: &ColumnType, bytes: &[u8]) -> Result<(), ValueError> {
    match ty {
        ColumnType::Int => exact(bytes, &[0, 4], "Expected 4 or 0 byte int"),
        ColumnType::Bigint | ColumnType::Counter => {
            exact(bytes, &[0, 8], "Expected 8 or 0 byte long")
        }
        ColumnType::Smallint => exact(bytes, &[2], "Expected 2 bytes for a smallint"),
        ColumnType::Tinyint => exact(bytes, &[1], "Expected 1 byte for a tinyint"),
        ColumnType::Boolean => exact(bytes, &[0, 1], "Expected 1 or 0 byte value"),
        ColumnType::Double => exact(bytes, &[0, 8], "Expected 8 or 0 byte value for a double"),
        ColumnType::Float => exact(bytes, &[0, 4], "Expected 4 or 0 byte value for a float"),
        ColumnType::Timestamp => exact(bytes, &[0, 8], "Expected 8 or 0 byte long for date"),
        ColumnType::Date => exact(bytes, &[4], "Expected 4 byte long for date"),
        ColumnType::Time => exact(bytes, &[8], "Expected 8 byte long for time"),
        ColumnType::Uuid => exact(bytes, &[0, 16], "UUID should be 16 or 0 bytes"),
        ColumnType::Timeuuid => {
            exact(bytes, &[0, 16], "UUID should be 16 or 0 bytes")?;
            match bytes.get(6) {
                Some(byte) if byte & 0xF0 != 0x10 => Err(ValueError::InvalidTimeuuidVersion),
                _ => Ok(()),
            }
        }
        ColumnType::Inet => match bytes.len() {
            0 | 4 | 16 => Ok(()),
            _ => Err(ValueError::InvalidInet { hex: hex(bytes) }),
        },
        ColumnType::Decimal => match bytes.len() {
            0 => Ok(()),
            1..=3 => exact(bytes, &[0], "Expected 0 or at least 4 bytes"),
            4 => Err(ValueError::EmptyUnscaled),
            _ => Ok(()),
        },
        ColumnType::Text => std::str::from_utf8(bytes)
            .map(|_| ())
            .map_err(|_| ValueError::InvalidUtf8 { hex: hex(bytes) }),
        ColumnType::Ascii => match bytes.iter().find(|b| !b.is_ascii()) {
            Some(&byte) => Err(ValueError::InvalidAscii {
                byte: i8::from_be_bytes([byte]),
            }),
            None => Ok(()),
        },
        ColumnType::Duration => check_duration(bytes).map(|_| ()),
        _ => Ok(()),
    }
}

fn check_duration(bytes: &[u8]) -> Result<(i32, i32, i64), ValueError> {
    exact(
        bytes,
        &[bytes.len().max(3)],
        "Expected at least 3 bytes for a duration",
    )?;
    let mut buf = bytes;
    let mut next = || read_vint(&mut buf).ok_or(ValueError::DurationTruncated);
    let (months, days, nanoseconds) = (next()?, next()?, next()?);
    let narrow = |unit, value: i64| {
        i32::try_from(value).map_err(|_| ValueError::DurationOutOfRange { unit, value })
    };
    let (months, days) = (narrow("months", months)?, narrow("days", days)?);
    let all_non_negative = months >= 0 && days >= 0 && nanoseconds >= 0;
    let all_non_positive = months <= 0 && days <= 0 && nanoseconds <= 0;
    if !(all_non_negative || all_non_positive) {
        return Err(ValueError::DurationMixedSigns {
            months,
            days,
            nanoseconds,
        });
    }
    Ok((months, days, nanoseconds))
}

fn enter(depth: usize) -> Result<usize, ValueError> {
    if depth >= MAX_VALUE_DEPTH {
        Err(ValueError::TooDeep {
            max: MAX_VALUE_DEPTH,
        })
    } else {
        Ok(depth + 1)
    }
}

fn validate(ty: &ColumnType, bytes: &[u8], depth: usize) -> Result<(), ValueError> {
    check_scalar(ty, bytes)?;
    match ty {
        ColumnType::List { element, .. } => {
            let depth = enter(depth)?;
            walk_collection(bytes, "list", 1, |item| validate(element, item, depth))
        }
        ColumnType::Set { element, .. } => {
            let depth = enter(depth)?;
            walk_collection(bytes, "set", 1, |item| validate(element, item, depth))
        }
        ColumnType::Map { key, value, .. } => {
            let depth = enter(depth)?;
            let mut is_key = true;
            walk_collection(bytes, "map", 2, |item| {
                let ty = if is_key { key } else { value };
                is_key = !is_key;
                validate(ty, item, depth)
            })
        }
        ColumnType::Tuple(types) => {
            let depth = enter(depth)?;
            walk_fields(bytes, &FieldNames::Tuple(types), |i, field| match field {
                Some(field) => types.get(i).map_or(Ok(()), |ty| validate(ty, field, depth)),
                None => Ok(()),
            })
        }
        ColumnType::Udt { fields, .. } => {
            let depth = enter(depth)?;
            walk_fields(bytes, &FieldNames::Udt(fields), |i, field| {
                match (fields.get(i), field) {
                    (Some((_, ty)), Some(field)) => validate(ty, field, depth),
                    _ => Ok(()),
                }
            })
        }
        ColumnType::Vector { element, dimension } if !bytes.is_empty() => {
            let depth = enter(depth)?;
            for item in vector::split(element, *dimension, bytes)? {
                validate(element, item, depth)?;
            }
            Ok(())
        }
        ColumnType::Custom(_) => match crate::types::marshal::Composite::of(ty) {
            Some(composite) => {
                let depth = enter(depth)?;
                validate_composite(&composite, bytes, depth)
            }
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// `AbstractCompositeType.validate` for a `CompositeType` or `DynamicCompositeType`: each
/// component's header (dynamic), length, value (by its type) and end-of-component byte,
/// which only the last may set.
fn validate_composite(
    composite: &crate::types::marshal::Composite,
    bytes: &[u8],
    depth: usize,
) -> Result<(), ValueError> {
    use crate::types::composite;
    use crate::types::marshal::Composite;
    match composite {
        Composite::Static(types) => {
            let parts =
                composite::static_components(types.len(), bytes).map_err(ValueError::Composite)?;
            for ((value, _), ty) in parts.into_iter().zip(types) {
                validate(&ty.ty, value, depth)?;
            }
        }
        Composite::Dynamic(aliases) => {
            for part in
                composite::dynamic_components(aliases, bytes).map_err(ValueError::Composite)?
            {
                validate(&part.ty.ty, part.value, depth)?;
            }
        }
    }
    Ok(())
}

/// Calls `visit` on each element of a v4 collection (`per_entry` elements per counted entry:
/// 2 for maps), then checks nothing is left.
///
/// Elements are read in order, as Cassandra's serializers read them, so the first problem
/// met is the one reported: a set or map reads each element with `readNonNullValue` (`Null
/// value read when not allowed`); a list takes a null element (Cassandra's list deserializer
/// keeps them for IN values) and goes on, so running out of bytes later is truncation, and a
/// whole list holding a null is refused as a collection value at the end.
fn walk_collection(
    bytes: &[u8],
    kind: &'static str,
    per_entry: usize,
    mut visit: impl FnMut(&[u8]) -> Result<(), ValueError>,
) -> Result<(), ValueError> {
    let truncated = ValueError::CollectionTruncated { kind };
    let (count, mut buf) = bytes.split_first_chunk::<4>().ok_or(truncated.clone())?;
    let count = i32::from_be_bytes(*count);
    let count = usize::try_from(count).map_err(|_| ValueError::NegativeCollectionSize { kind })?;
    let mut null_seen = false;
    // Each element takes at least its 4-byte length, so a huge count ends at the bytes' end.
    for _ in 0..count.saturating_mul(per_entry) {
        let (len, rest) = buf.split_first_chunk::<4>().ok_or(truncated.clone())?;
        let Ok(len) = usize::try_from(i32::from_be_bytes(*len)) else {
            if kind != "list" {
                return Err(ValueError::NullValueRead);
            }
            null_seen = true;
            buf = rest;
            continue;
        };
        let item = rest.get(..len).ok_or(truncated.clone())?;
        buf = rest.get(len..).unwrap_or_default();
        visit(item)?;
    }
    if !buf.is_empty() {
        Err(ValueError::CollectionExtraneous { kind })
    } else if null_seen {
        Err(ValueError::NullInCollection)
    } else {
        Ok(())
    }
}

/// The field list of a tuple or UDT type, for counting fields and naming them in errors.
enum FieldNames<'a> {
    Tuple(&'a [ColumnType]),
    Udt(&'a [(String, ColumnType)]),
}

impl FieldNames<'_> {
    fn len(&self) -> usize {
        match self {
            FieldNames::Tuple(types) => types.len(),
            FieldNames::Udt(fields) => fields.len(),
        }
    }

    fn size_truncated(&self, index: usize) -> ValueError {
        match self {
            FieldNames::Tuple(_) => ValueError::TupleSizeTruncated { index },
            FieldNames::Udt(fields) => ValueError::UdtSizeTruncated {
                index,
                field: fields.get(index).map(|f| f.0.clone()).unwrap_or_default(),
            },
        }
    }

    fn field_truncated(&self, index: usize) -> ValueError {
        match self {
            FieldNames::Tuple(_) => ValueError::TupleComponentTruncated { index },
            FieldNames::Udt(fields) => ValueError::UdtFieldTruncated {
                index,
                field: fields.get(index).map(|f| f.0.clone()).unwrap_or_default(),
            },
        }
    }

    fn extraneous(&self) -> ValueError {
        match self {
            FieldNames::Tuple(_) => ValueError::TupleExtraneous,
            FieldNames::Udt(_) => ValueError::UdtExtraneous,
        }
    }
}

/// Calls `visit` with each field present in a tuple or UDT value (`None` for a null field),
/// stopping early when the value has fewer fields than the type.
fn walk_fields(
    bytes: &[u8],
    names: &FieldNames<'_>,
    mut visit: impl FnMut(usize, Option<&[u8]>) -> Result<(), ValueError>,
) -> Result<(), ValueError> {
    let mut buf = bytes;
    for index in 0..names.len() {
        if buf.is_empty() {
            return Ok(());
        }
        let (len, rest) = buf
            .split_first_chunk::<4>()
            .ok_or_else(|| names.size_truncated(index))?;
        buf = rest;
        let Ok(len) = usize::try_from(i32::from_be_bytes(*len)) else {
            visit(index, None)?;
            continue;
        };
        let field = buf.get(..len).ok_or_else(|| names.field_truncated(index))?;
        buf = buf.get(len..).unwrap_or_default();
        visit(index, Some(field))?;
    }
    if buf.is_empty() {
        Ok(())
    } else {
        Err(names.extraneous())
    }
}

fn decode(ty: &ColumnType, bytes: &[u8], depth: usize) -> Result<CqlValue, ValueError> {
    check_scalar(ty, bytes)?;
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    match ty {
        ColumnType::Ascii => return Ok(CqlValue::Ascii(text(bytes))),
        ColumnType::Text => return Ok(CqlValue::Text(text(bytes))),
        ColumnType::Blob | ColumnType::Custom(_) => return Ok(CqlValue::Blob(bytes.to_vec())),
        _ if bytes.is_empty() && !ty.is_collection() => return Ok(CqlValue::Empty),
        _ => {}
    }
    Ok(match ty {
        ColumnType::List { element, .. } => {
            CqlValue::List(decode_items(element, bytes, "list", depth)?)
        }
        ColumnType::Set { element, .. } => {
            CqlValue::Set(decode_items(element, bytes, "set", depth)?)
        }
        ColumnType::Map { key, value, .. } => decode_map(key, value, bytes, depth)?,
        ColumnType::Tuple(types) => {
            let depth = enter(depth)?;
            let mut items = vec![None; types.len()];
            walk_fields(bytes, &FieldNames::Tuple(types), |i, field| {
                if let (Some(slot), Some(ty), Some(field)) = (items.get_mut(i), types.get(i), field)
                {
                    *slot = Some(decode(ty, field, depth)?);
                }
                Ok(())
            })?;
            CqlValue::Tuple(items)
        }
        ColumnType::Udt { fields, .. } => {
            let depth = enter(depth)?;
            let mut values: Vec<(String, Option<CqlValue>)> = fields
                .iter()
                .map(|(name, _)| (name.clone(), None))
                .collect();
            walk_fields(bytes, &FieldNames::Udt(fields), |i, field| {
                if let (Some(slot), Some((_, ty)), Some(field)) =
                    (values.get_mut(i), fields.get(i), field)
                {
                    slot.1 = Some(decode(ty, field, depth)?);
                }
                Ok(())
            })?;
            CqlValue::Udt(values)
        }
        ColumnType::Vector { element, dimension } => {
            let depth = enter(depth)?;
            let items = vector::split(element, *dimension, bytes)?;
            CqlValue::Vector(
                items
                    .into_iter()
                    .map(|item| decode(element, item, depth))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => decode_fixed(ty, bytes)?,
    })
}

fn decode_items(
    element: &ColumnType,
    bytes: &[u8],
    kind: &'static str,
    depth: usize,
) -> Result<Vec<CqlValue>, ValueError> {
    let depth = enter(depth)?;
    let mut items = Vec::new();
    walk_collection(bytes, kind, 1, |item| {
        items.push(decode(element, item, depth)?);
        Ok(())
    })?;
    Ok(items)
}

fn decode_map(
    key: &ColumnType,
    value: &ColumnType,
    bytes: &[u8],
    depth: usize,
) -> Result<CqlValue, ValueError> {
    let depth = enter(depth)?;
    let mut entries = Vec::new();
    let mut pending_key = None;
    walk_collection(bytes, "map", 2, |item| {
        match pending_key.take() {
            None => pending_key = Some(decode(key, item, depth)?),
            Some(k) => entries.push((k, decode(value, item, depth)?)),
        }
        Ok(())
    })?;
    Ok(CqlValue::Map(entries))
}

/// Builds a non-empty value of a non-nested, non-text type whose size `check_scalar` verified.
fn decode_fixed(ty: &ColumnType, bytes: &[u8]) -> Result<CqlValue, ValueError> {
    fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
        // Sizes were checked by `check_scalar`; a mismatch would only zero the value.
        bytes.try_into().unwrap_or([0; N])
    }
    Ok(match ty {
        ColumnType::Int => CqlValue::Int(i32::from_be_bytes(array(bytes))),
        ColumnType::Bigint => CqlValue::Bigint(i64::from_be_bytes(array(bytes))),
        ColumnType::Counter => CqlValue::Counter(i64::from_be_bytes(array(bytes))),
        ColumnType::Timestamp => CqlValue::Timestamp(i64::from_be_bytes(array(bytes))),
        ColumnType::Time => CqlValue::Time(i64::from_be_bytes(array(bytes))),
        ColumnType::Smallint => CqlValue::Smallint(i16::from_be_bytes(array(bytes))),
        ColumnType::Tinyint => CqlValue::Tinyint(i8::from_be_bytes(array(bytes))),
        ColumnType::Date => CqlValue::Date(u32::from_be_bytes(array(bytes))),
        ColumnType::Boolean => CqlValue::Boolean(bytes.iter().any(|b| *b != 0)),
        ColumnType::Double => CqlValue::Double(f64::from_be_bytes(array(bytes))),
        ColumnType::Float => CqlValue::Float(f32::from_be_bytes(array(bytes))),
        ColumnType::Uuid => CqlValue::Uuid(Uuid::from_bytes(array(bytes))),
        ColumnType::Timeuuid => CqlValue::Timeuuid(Uuid::from_bytes(array(bytes))),
        ColumnType::Inet if bytes.len() == 4 => {
            CqlValue::Inet(IpAddr::V4(Ipv4Addr::from(array::<4>(bytes))))
        }
        ColumnType::Inet => CqlValue::Inet(IpAddr::V6(Ipv6Addr::from(array::<16>(bytes)))),
        ColumnType::Varint => CqlValue::Varint(minimal_varint(bytes).to_vec()),
        ColumnType::Decimal => {
            let (scale, unscaled) = bytes
                .split_first_chunk::<4>()
                .ok_or(ValueError::EmptyUnscaled)?;
            CqlValue::Decimal {
                unscaled: unscaled.to_vec(),
                scale: i32::from_be_bytes(*scale),
            }
        }
        ColumnType::Duration => {
            let (months, days, nanoseconds) = check_duration(bytes)?;
            CqlValue::Duration {
                months,
                days,
                nanoseconds,
            }
        }
        // Text-like and nested types are handled by `decode`.
        _ => CqlValue::Blob(bytes.to_vec()),
    })
}

/// `bytes` without redundant leading sign bytes (two's complement, big-endian).
pub(crate) fn minimal_varint(mut bytes: &[u8]) -> &[u8] {
    while let [first, second, ..] = bytes {
        let redundant = (*first == 0x00 && *second < 0x80) || (*first == 0xFF && *second >= 0x80);
        if !redundant {
            break;
        }
        bytes = bytes.get(1..).unwrap_or_default();
    }
    bytes
}

#[cfg(test)]
mod tests;
