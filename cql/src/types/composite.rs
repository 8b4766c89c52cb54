//! Values of `CompositeType` and `DynamicCompositeType` ([`Composite`]), as Cassandra 5.0
//! serializes them: per component, for a dynamic composite a header naming its type (an
//! alias: `0x8000 | alias`; a class: the name's length, then the name), then the value's
//! 2-byte length, the value, and one end-of-component byte (0, or 1 / -1 on the last
//! component of a slice bound written `...:!` / `...:_`).
//!
//! Text splits into components as `AbstractCompositeType.fromString` splits it: on each `:`
//! not escaped as `\:` ([`split`], [`unescape`]); each component is then read by its type's
//! `fromString`, which is the caller's.
//!
//! [`Composite`]: super::marshal::Composite

use std::cmp::Ordering;

use super::marshal::{parse_class_type, ClassType};
use super::ColumnType;

/// How a dynamic composite's component names its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header<'a> {
    /// A one-byte alias of the type's declaration.
    Alias(u8),
    /// A class name, as written.
    Class(&'a str),
}

/// The parts of a composite written as text (`AbstractCompositeType.split`): split on each
/// `:` not preceded by `\`; none for the empty string.
pub fn split(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut parts = Vec::new();
    let mut start = 0;
    let mut previous = None;
    for (i, c) in text.char_indices() {
        if c == ':' && previous != Some('\\') {
            parts.push(&text[start..i]);
            start = i + 1;
        }
        previous = Some(c);
    }
    parts.push(&text[start..]);
    parts
}

/// One part's text (`AbstractCompositeType.unescape`): `\:` is `:`, and a trailing `!` (which
/// `escape` adds after a trailing `\` or `!`) is dropped.
pub fn unescape(part: &str) -> String {
    let text = part.replace("\\:", ":");
    match text.strip_suffix('!') {
        Some(stripped) => stripped.to_string(),
        None => text,
    }
}

/// The end-of-component byte a part alone in its place asks for: `!` is 1 and `_` is -1 (the
/// previous component's, ending the value), anything else a value.
pub fn end_marker(part: &str) -> Option<u8> {
    match part {
        "!" => Some(1),
        "_" => Some(0xFF),
        _ => None,
    }
}

/// Appends one component: its header (dynamic composites), the value with its 2-byte
/// length, and an end-of-component byte of 0.
///
/// # Errors
/// A value or class name longer than 65,535 bytes, which no 2-byte length holds.
pub fn write_component(
    out: &mut Vec<u8>,
    header: Option<Header<'_>>,
    value: &[u8],
) -> Result<(), ComponentTooLong> {
    match header {
        Some(Header::Alias(alias)) => {
            out.extend_from_slice(&(0x8000 | u16::from(alias)).to_be_bytes())
        }
        Some(Header::Class(name)) => {
            let len = u16::try_from(name.len())
                .ok()
                .filter(|len| len & 0x8000 == 0)
                .ok_or(ComponentTooLong)?;
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(name.as_bytes());
        }
        None => {}
    }
    let len = u16::try_from(value.len()).map_err(|_| ComponentTooLong)?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(value);
    out.push(0);
    Ok(())
}

/// Sets the end-of-component byte of the last component written to `out` (`eoc` from
/// [`end_marker`]); nothing when `out` is empty.
pub fn end_last_component(out: &mut [u8], eoc: u8) {
    if let Some(last) = out.last_mut() {
        *last = eoc;
    }
}

/// Splits a serialized `CompositeType` value into its components: each value and its
/// end-of-component byte; `None` when the bytes are no composite (cut short, or a static
/// name's `0xFFFF` marker).
pub fn components(mut bytes: &[u8]) -> Option<Vec<(&[u8], u8)>> {
    let mut parts = Vec::new();
    if bytes.starts_with(&[0xFF, 0xFF]) {
        return None;
    }
    while !bytes.is_empty() {
        let (len, rest) = bytes.split_first_chunk::<2>()?;
        let len = usize::from(u16::from_be_bytes(*len));
        let value = rest.get(..len)?;
        let eoc = *rest.get(len)?;
        parts.push((value, eoc));
        bytes = &rest[len + 1..];
    }
    Some(parts)
}

/// `AbstractCompositeType.compareCustom` for a `CompositeType` of `types`: component by
/// component, each by its type (`compare`, reversed for a `ReversedType`), then by
/// end-of-component byte (signed); a value that runs out first sorts first. Bytes that are no
/// composite compare as bytes.
pub fn compare_static(
    types: &[ClassType],
    a: &[u8],
    b: &[u8],
    compare: impl Fn(&ColumnType, &[u8], &[u8]) -> Ordering,
) -> Ordering {
    let (Some(left), Some(right)) = (components(a), components(b)) else {
        return a.cmp(b);
    };
    for (i, (l, r)) in left.iter().zip(&right).enumerate() {
        let Some(ty) = types.get(i) else {
            return a.cmp(b);
        };
        let order = compare(&ty.ty, l.0, r.0);
        let order = if ty.reversed { order.reverse() } else { order };
        let order = order.then((l.1 as i8).cmp(&(r.1 as i8)));
        if order != Ordering::Equal {
            return order;
        }
    }
    left.len().cmp(&right.len())
}

/// One component of a `DynamicCompositeType` value: the type its header names, the header,
/// its value and its end-of-component byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicComponent<'a> {
    /// The type the header names (an alias's, or the class parsed).
    pub ty: ClassType,
    /// How the header names it.
    pub header: Header<'a>,
    /// The component's value.
    pub value: &'a [u8],
    /// Its end-of-component byte.
    pub eoc: u8,
}

/// Splits a serialized `DynamicCompositeType` value of `aliases` into its components, as
/// `AbstractCompositeType.validate` reads it; the error is Cassandra's message for the first
/// problem (`DynamicCompositeType.validateComparator` for the headers). A component's value is
/// not checked against its type.
///
/// # Errors
/// Bytes cut short, a header naming no type, bytes after a non-zero end-of-component byte.
pub fn dynamic_components<'a>(
    aliases: &[(u8, ClassType)],
    bytes: &'a [u8],
) -> Result<Vec<DynamicComponent<'a>>, String> {
    let mut parts = Vec::new();
    let mut rest = bytes;
    let mut i = 0;
    while !rest.is_empty() {
        let (header, ty, tail) = dynamic_header(aliases, rest, i)?;
        let (value, eoc, tail) = component_value(tail, i)?;
        parts.push(DynamicComponent {
            ty,
            header,
            value,
            eoc,
        });
        rest = tail;
        i += 1;
    }
    Ok(parts)
}

/// The header of component `i` at the start of `bytes`: how it names its type, the type, and
/// the bytes after it.
fn dynamic_header<'a>(
    aliases: &[(u8, ClassType)],
    bytes: &'a [u8],
    i: usize,
) -> Result<(Header<'a>, ClassType, &'a [u8]), String> {
    let Some((header, rest)) = bytes.split_first_chunk::<2>() else {
        return Err(format!(
            "Not enough bytes to header of the comparator part of component {i}"
        ));
    };
    let header = u16::from_be_bytes(*header);
    let not_found = || format!("Cannot find comparator for component {i}");
    if header & 0x8000 != 0 {
        let alias = (header & 0xFF) as u8;
        let (_, ty) = aliases
            .iter()
            .find(|(a, _)| *a == alias)
            .ok_or_else(not_found)?;
        return Ok((Header::Alias(alias), ty.clone(), rest));
    }
    let len = usize::from(header);
    let Some(name) = rest.get(..len) else {
        return Err(format!(
            "Not enough bytes to read comparator name of component {i}"
        ));
    };
    let name = std::str::from_utf8(name).map_err(|_| not_found())?;
    let ty = parse_class_type(name).map_err(|_| not_found())?;
    Ok((Header::Class(name), ty, &rest[len..]))
}

/// The value and end-of-component byte of component `i` at the start of `bytes`, and the
/// bytes after them (`AbstractCompositeType.validate`'s messages).
fn component_value(bytes: &[u8], i: usize) -> Result<(&[u8], u8, &[u8]), String> {
    let Some((len, tail)) = bytes.split_first_chunk::<2>() else {
        return Err(format!(
            "Not enough bytes to read value size of component {i}"
        ));
    };
    let len = usize::from(u16::from_be_bytes(*len));
    let Some(value) = tail.get(..len) else {
        return Err(format!("Not enough bytes to read value of component {i}"));
    };
    let Some((&eoc, tail)) = tail[len..].split_first() else {
        return Err(format!(
            "Not enough bytes to read the end-of-component byte of component{i}"
        ));
    };
    if eoc != 0 && !tail.is_empty() {
        return Err(format!(
            "Invalid bytes remaining after an end-of-component at component{i}"
        ));
    }
    Ok((value, eoc, tail))
}

/// Splits a serialized `CompositeType` value of `count` component types as
/// `AbstractCompositeType.validate` reads it (see [`dynamic_components`]).
///
/// # Errors
/// Cassandra's message for the first problem.
pub fn static_components(count: usize, bytes: &[u8]) -> Result<Vec<(&[u8], u8)>, String> {
    let mut parts = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        if parts.len() == count {
            return Err("Too many bytes for comparator".to_string());
        }
        let (value, eoc, tail) = component_value(rest, parts.len())?;
        parts.push((value, eoc));
        rest = tail;
    }
    Ok(parts)
}

/// `AbstractCompositeType.compareCustom` for a `DynamicCompositeType` of `aliases`, with
/// `DynamicCompositeType.getComparator`: component by component, first by their types'
/// class names (simple, then full; a reversal's base type after `ReversedType` when only one
/// side is reversed), then by value in that type's order (reversed or not), then by
/// end-of-component byte (signed); a value that runs out first sorts first. Bytes that are no
/// dynamic composite compare as bytes.
pub fn compare_dynamic(
    aliases: &[(u8, ClassType)],
    a: &[u8],
    b: &[u8],
    compare: impl Fn(&ColumnType, &[u8], &[u8]) -> Ordering,
) -> Ordering {
    let (Ok(left), Ok(right)) = (
        dynamic_components(aliases, a),
        dynamic_components(aliases, b),
    ) else {
        return a.cmp(b);
    };
    for (l, r) in left.iter().zip(&right) {
        let order = type_sort_key(&l.ty)
            .cmp(&type_sort_key(&r.ty))
            .then_with(|| {
                let order = compare(&l.ty.ty, l.value, r.value);
                if l.ty.reversed {
                    order.reverse()
                } else {
                    order
                }
            })
            .then((l.eoc as i8).cmp(&(r.eoc as i8)));
        if order != Ordering::Equal {
            return order;
        }
    }
    left.len().cmp(&right.len())
}

/// What orders a dynamic composite's components of different types
/// (`DynamicCompositeType.asComparableBytes`): the class's simple name then its full name, or
/// for a reversal `ReversedType` first, then the base type's; then the whole class string with
/// its parameters, so that types of one class and different parameters (whose values Cassandra
/// compares with the left one's comparator) stay apart.
pub fn type_sort_key(ty: &ClassType) -> Vec<String> {
    let (simple, name) = ty.class_names();
    let mut key = Vec::with_capacity(4);
    if ty.reversed {
        key.push("ReversedType".to_string());
    }
    key.extend([simple, name, ty.ty.marshal_class()]);
    key
}

/// A component or class name too long for its 2-byte length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComponentTooLong;

impl std::fmt::Display for ComponentTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Attempted serializing to buffer exceeded maximum of 65535 bytes")
    }
}

impl std::error::Error for ComponentTooLong {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_unescaped_colons() {
        assert_eq!(split("abc:123"), vec!["abc", "123"]);
        assert_eq!(split("a\\:b:1"), vec!["a\\:b", "1"]);
        assert_eq!(split("abc"), vec!["abc"]);
        assert_eq!(split(":1"), vec!["", "1"]);
        assert!(split("").is_empty());
        assert_eq!(unescape("a\\:b"), "a:b");
        assert_eq!(unescape("a\\!"), "a\\");
        assert_eq!(end_marker("!"), Some(1));
        assert_eq!(end_marker("_"), Some(0xFF));
        assert_eq!(end_marker("x"), None);
    }

    #[test]
    fn composites_compare_component_by_component() {
        let types = [ColumnType::Ascii.into(), ColumnType::Int.into()];
        let value = |parts: &[(&[u8], u8)]| {
            let mut out = Vec::new();
            for (v, eoc) in parts {
                write_component(&mut out, None, v).expect("short");
                end_last_component(&mut out, *eoc);
            }
            out
        };
        let bytewise = |_: &ColumnType, a: &[u8], b: &[u8]| a.cmp(b);
        let cmp = |a: &[u8], b: &[u8]| compare_static(&types, a, b, bytewise);
        let abc = value(&[(b"abc", 0)]);
        let abc_1 = value(&[(b"abc", 0), (&[0, 0, 0, 1], 0)]);
        let b = value(&[(b"b", 0)]);
        // Component-wise, not by the length prefix: "b" (1 byte) after "abc" (3 bytes).
        assert_eq!(cmp(&abc, &b), Ordering::Less);
        assert_eq!(cmp(&abc, &abc_1), Ordering::Less);
        // End-of-component bytes are signed: -1 before 0 before 1.
        let below = value(&[(b"abc", 0xFF)]);
        let above = value(&[(b"abc", 1)]);
        assert_eq!(cmp(&below, &abc), Ordering::Less);
        assert_eq!(cmp(&above, &abc_1), Ordering::Greater);
        assert_eq!(components(&abc_1).map(|c| c.len()), Some(2));
        assert_eq!(components(&[0, 5, 1]), None);
    }

    #[test]
    fn components_carry_length_value_and_end_byte() {
        let mut out = Vec::new();
        write_component(&mut out, None, b"abc").expect("short");
        write_component(&mut out, None, &123i32.to_be_bytes()).expect("short");
        assert_eq!(
            out,
            [0, 3, b'a', b'b', b'c', 0, 0, 4, 0, 0, 0, 123, 0].to_vec()
        );
        end_last_component(&mut out, 1);
        assert_eq!(out.last(), Some(&1));
        let mut dynamic = Vec::new();
        write_component(&mut dynamic, Some(Header::Alias(b'i')), &[0, 0, 0, 32]).expect("short");
        write_component(&mut dynamic, Some(Header::Class("UTF8Type")), b"x").expect("short");
        let mut expected = vec![0x80, b'i', 0, 4, 0, 0, 0, 32, 0, 0, 8];
        expected.extend_from_slice(b"UTF8Type");
        expected.extend_from_slice(&[0, 1, b'x', 0]);
        assert_eq!(dynamic, expected);
        assert_eq!(
            write_component(&mut Vec::new(), None, &vec![0; 70_000]),
            Err(ComponentTooLong)
        );
    }
}
