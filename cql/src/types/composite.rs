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
/// component, each by its type (`compare`), then by end-of-component byte (signed); a value
/// that runs out first sorts first. Bytes that are no composite compare as bytes.
pub fn compare_static(
    types: &[super::ColumnType],
    a: &[u8],
    b: &[u8],
    compare: impl Fn(&super::ColumnType, &[u8], &[u8]) -> std::cmp::Ordering,
) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (Some(left), Some(right)) = (components(a), components(b)) else {
        return a.cmp(b);
    };
    for (i, (l, r)) in left.iter().zip(&right).enumerate() {
        let Some(ty) = types.get(i) else {
            return a.cmp(b);
        };
        let order = compare(ty, l.0, r.0).then((l.1 as i8).cmp(&(r.1 as i8)));
        if order != Ordering::Equal {
            return order;
        }
    }
    left.len().cmp(&right.len())
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
        use super::super::ColumnType;
        use std::cmp::Ordering;
        let types = [ColumnType::Ascii, ColumnType::Int];
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
