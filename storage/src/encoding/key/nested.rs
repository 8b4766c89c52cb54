//! Bodies of frozen `list`, `set` and `map` values, tuples and frozen UDTs.
//!
//! ```text
//! body  = item* 0x00
//! item  = 0x01                 null element or field
//!       | 0x02 component       a present one: the element type's own component (tag, body)
//! ```
//!
//! A list or set has one item per element, a map two per entry (key, value), so comparing the
//! items pairwise and then letting the shorter sequence sort first (its `0x00` end beats any
//! item) is `CollectionType`'s order: element by element, then by size. A tuple or UDT has one
//! item per field with its trailing nulls left out, which is `TupleType.compareCustom`: fields
//! in order, null first, and trailing nulls do not count (`(1)` equals `(1, null)`). Decoding
//! writes every field of the type, the missing ones as null.
//!
//! A vector is one item per element (never null): every vector of a type has as many, so
//! comparing items pairwise is `VectorType`'s element-by-element order.
//!
//! Elements are encoded ascending; a DESC component inverts the whole thing, nested bytes
//! included, and every item is prefix-free, so the inversion reverses the order.

use cql::types::{vector, ColumnType};

use super::component;
use super::reader::Reader;
use crate::error::StorageError;

const END: u8 = 0x00;
const NULL: u8 = 0x01;
const PRESENT: u8 = 0x02;

/// The element types of one entry of a collection, or the field types of a tuple or UDT.
/// `None` when `ty` is not a nested type.
fn parts(ty: &ColumnType) -> Option<(bool, Vec<&ColumnType>)> {
    Some(match ty {
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
            (true, vec![element.as_ref()])
        }
        ColumnType::Map { key, value, .. } => (true, vec![key.as_ref(), value.as_ref()]),
        ColumnType::Tuple(types) => (false, types.iter().collect()),
        ColumnType::Udt { fields, .. } => (false, fields.iter().map(|(_, ty)| ty).collect()),
        _ => return None,
    })
}

/// Reads one `[bytes]`: `Some(None)` for null; `None` when cut short.
fn next_element<'a>(buf: &mut &'a [u8]) -> Option<Option<&'a [u8]>> {
    let (len, rest) = buf.split_first_chunk::<4>()?;
    let Ok(len) = usize::try_from(i32::from_be_bytes(*len)) else {
        *buf = rest;
        return Some(None);
    };
    let element = rest.get(..len)?;
    *buf = &rest[len..];
    Some(Some(element))
}

fn encode_item(
    ty: &ColumnType,
    item: Option<&[u8]>,
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    match item {
        None => out.push(NULL),
        Some(bytes) => {
            out.push(PRESENT);
            component::encode(ty, false, bytes, out)?;
        }
    }
    Ok(())
}

/// Appends the body of a serialized nested value of type `ty`; the error says why the value
/// cannot be keyed.
pub(super) fn encode(ty: &ColumnType, value: &[u8], out: &mut Vec<u8>) -> Result<(), StorageError> {
    let invalid = |reason: &str| component::invalid(ty, reason);
    if let ColumnType::Vector { element, dimension } = ty {
        let items =
            vector::split(element, *dimension, value).map_err(|e| invalid(&e.to_string()))?;
        for item in items {
            encode_item(element, Some(item), out)?;
        }
        out.push(END);
        return Ok(());
    }
    let (is_collection, types) = parts(ty).ok_or_else(|| invalid("not a nested type"))?;
    let mut rest = value;
    if is_collection {
        let (count, tail) = rest
            .split_first_chunk::<4>()
            .ok_or_else(|| invalid("no element count"))?;
        rest = tail;
        let count = i32::from_be_bytes(*count);
        for _ in 0..count.max(0) {
            for ty in &types {
                let item = next_element(&mut rest).ok_or_else(|| invalid("truncated"))?;
                encode_item(ty, item, out)?;
            }
        }
    } else {
        let mut items = Vec::with_capacity(types.len());
        while !rest.is_empty() {
            items.push(next_element(&mut rest).ok_or_else(|| invalid("truncated"))?);
        }
        if items.len() > types.len() {
            return Err(invalid("more fields than the type has"));
        }
        let present = items.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        for (ty, item) in types.iter().zip(&items[..present]) {
            encode_item(ty, *item, out)?;
        }
    }
    if !rest.is_empty() {
        return Err(invalid("bytes after the last element"));
    }
    out.push(END);
    Ok(())
}

fn push_element(out: &mut Vec<u8>, element: Option<&[u8]>) -> Result<(), StorageError> {
    match element {
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        Some(bytes) => {
            let len = i32::try_from(bytes.len())
                .map_err(|_| StorageError::corrupt("row key: element over 2 GiB"))?;
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(bytes);
        }
    }
    Ok(())
}

/// Reads one item; `None` at the end marker.
fn decode_item(
    ty: &ColumnType,
    r: &mut Reader<'_>,
) -> Result<Option<Option<Vec<u8>>>, StorageError> {
    Ok(match r.byte()? {
        END => None,
        NULL => Some(None),
        PRESENT => Some(Some(component::decode_from(ty, r)?)),
        _ => return Err(StorageError::corrupt("row key: nested item marker")),
    })
}

/// Decodes a body written by [`encode`] into the serialized value.
pub(super) fn decode(ty: &ColumnType, r: &mut Reader<'_>) -> Result<Vec<u8>, StorageError> {
    if let ColumnType::Vector { element, .. } = ty {
        return decode_vector(element, r);
    }
    let (is_collection, types) =
        parts(ty).ok_or_else(|| StorageError::corrupt("row key: not a nested type"))?;
    let mut out = Vec::new();
    if is_collection {
        out.extend_from_slice(&[0; 4]);
        let mut count = 0i32;
        'entries: loop {
            for (i, ty) in types.iter().enumerate() {
                match decode_item(ty, r)? {
                    Some(item) => push_element(&mut out, item.as_deref())?,
                    None if i == 0 => break 'entries,
                    None => return Err(StorageError::corrupt("row key: map entry without value")),
                }
            }
            count = count
                .checked_add(1)
                .ok_or_else(|| StorageError::corrupt("row key: collection size"))?;
        }
        out[..4].copy_from_slice(&count.to_be_bytes());
    } else {
        let mut fields = types.iter();
        loop {
            let Some(ty) = fields.next() else {
                if r.byte()? != END {
                    return Err(StorageError::corrupt("row key: too many fields"));
                }
                break;
            };
            match decode_item(ty, r)? {
                Some(item) => push_element(&mut out, item.as_deref())?,
                None => {
                    // Trailing nulls were left out of the key: write them back.
                    push_element(&mut out, None)?;
                    for _ in fields {
                        push_element(&mut out, None)?;
                    }
                    break;
                }
            }
        }
    }
    Ok(out)
}

/// Decodes the items of a vector body (one per element, never null) back into the vector's
/// serialized form.
fn decode_vector(element: &ColumnType, r: &mut Reader<'_>) -> Result<Vec<u8>, StorageError> {
    let mut items = Vec::new();
    while let Some(item) = decode_item(element, r)? {
        items.push(item.ok_or_else(|| StorageError::corrupt("row key: null vector element"))?);
    }
    let parts: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
    Ok(vector::join(element, &parts))
}
