//! The spec's notations (native_protocol_v4.spec section 3) as symmetric `read_*`/`write_*`
//! pairs.
//!
//! Readers take a cursor `&mut &[u8]` over a complete body, run a `nom` complete parser on its
//! front and advance it; on failure the cursor is left where it was and the error names the
//! `field` being read. Lengths are checked against the remaining input before anything is
//! allocated, and counts only size a vector up to what the remaining input could hold.
//! Readers that return shared [`Bytes`] take the whole `body` too and slice it with
//! [`Bytes::slice_ref`], so they copy nothing.
//!
//! Writers append to a [`BytesMut`]. A value too long for its length prefix (a `[string]` over
//! 65535 bytes, a list over 65535 items) is truncated to fit rather than written corrupt; the
//! server never produces such values except in error messages.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use bytes::{BufMut, Bytes, BytesMut};
use nom::bytes::complete::take;
use nom::number::complete::{be_i16, be_i32, be_i64, be_u16, be_u8};
use uuid::Uuid;

use super::FrameError;

type NomResult<'a, O> = nom::IResult<&'a [u8], O, nom::error::Error<&'a [u8]>>;

/// Runs `parser` on the front of `buf`, advancing it on success.
fn run<'a, O>(
    buf: &mut &'a [u8],
    field: &'static str,
    parser: impl FnOnce(&'a [u8]) -> NomResult<'a, O>,
) -> Result<O, FrameError> {
    let (rest, out) = parser(buf).map_err(|_| FrameError::Truncated { field })?;
    *buf = rest;
    Ok(out)
}

/// Takes exactly `len` bytes off the front of `buf` (no allocation).
pub fn read_raw<'a>(
    buf: &mut &'a [u8],
    len: usize,
    field: &'static str,
) -> Result<&'a [u8], FrameError> {
    run(buf, field, |input| take(len)(input))
}

/// Reads a `[byte]`.
pub fn read_byte(buf: &mut &[u8], field: &'static str) -> Result<u8, FrameError> {
    run(buf, field, be_u8)
}

/// Reads a `[short]` (unsigned).
pub fn read_short(buf: &mut &[u8], field: &'static str) -> Result<u16, FrameError> {
    run(buf, field, be_u16)
}

/// Reads a signed 2-byte integer (the stream id).
pub fn read_signed_short(buf: &mut &[u8], field: &'static str) -> Result<i16, FrameError> {
    run(buf, field, be_i16)
}

/// Reads an `[int]`.
pub fn read_int(buf: &mut &[u8], field: &'static str) -> Result<i32, FrameError> {
    run(buf, field, be_i32)
}

/// Reads a `[long]`.
pub fn read_long(buf: &mut &[u8], field: &'static str) -> Result<i64, FrameError> {
    run(buf, field, be_i64)
}

/// The highest `[consistency]` code: `NODE_LOCAL` (0x000B). Codes 0x0000 (`ANY`) to here
/// all name a level (native_protocol_v4.spec section 3, Cassandra's `ConsistencyLevel`).
pub const MAX_CONSISTENCY: u16 = 0x000B;

/// Reads a `[consistency]` (a `[short]`) and checks that it names a level.
///
/// # Errors
///
/// [`FrameError::Truncated`], or [`FrameError::UnknownConsistency`] for a code above
/// [`MAX_CONSISTENCY`], as Cassandra's `ConsistencyLevel.fromCode` refuses it.
pub fn read_consistency(buf: &mut &[u8], field: &'static str) -> Result<u16, FrameError> {
    let mut cursor = *buf;
    let code = read_short(&mut cursor, field)?;
    if code > MAX_CONSISTENCY {
        return Err(FrameError::UnknownConsistency(code));
    }
    *buf = cursor;
    Ok(code)
}

fn utf8<'a>(bytes: &'a [u8], field: &'static str) -> Result<&'a str, FrameError> {
    std::str::from_utf8(bytes).map_err(|_| FrameError::InvalidUtf8 { field })
}

/// Reads a `[string]`: a `[short]` length and that many UTF-8 bytes.
pub fn read_string<'a>(buf: &mut &'a [u8], field: &'static str) -> Result<&'a str, FrameError> {
    let mut cursor = *buf;
    let len = read_short(&mut cursor, field)?;
    let bytes = read_raw(&mut cursor, usize::from(len), field)?;
    let text = utf8(bytes, field)?;
    *buf = cursor;
    Ok(text)
}

/// Reads a `[long string]`: an `[int]` length (negative is an error) and UTF-8 bytes.
pub fn read_long_string<'a>(
    buf: &mut &'a [u8],
    field: &'static str,
) -> Result<&'a str, FrameError> {
    let mut cursor = *buf;
    let len = read_int(&mut cursor, field)?;
    let len = usize::try_from(len).map_err(|_| FrameError::InvalidLength {
        field,
        len: i64::from(len),
    })?;
    let text = utf8(read_raw(&mut cursor, len, field)?, field)?;
    *buf = cursor;
    Ok(text)
}

/// Reads a `[uuid]`.
pub fn read_uuid(buf: &mut &[u8], field: &'static str) -> Result<Uuid, FrameError> {
    let bytes = read_raw(buf, 16, field)?;
    Uuid::from_slice(bytes).map_err(|_| FrameError::Truncated { field })
}

/// A vector for `count` items of at least `min_item_len` bytes each, sized to what `buf` can
/// actually hold so an untrusted count cannot reserve memory by itself.
pub(crate) fn bounded_vec<T>(count: usize, buf: &[u8], min_item_len: usize) -> Vec<T> {
    Vec::with_capacity(count.min(buf.len() / min_item_len.max(1)))
}

/// Reads a `[string list]`.
pub fn read_string_list(buf: &mut &[u8], field: &'static str) -> Result<Vec<String>, FrameError> {
    let count = usize::from(read_short(buf, field)?);
    let mut items = bounded_vec(count, buf, 2);
    for _ in 0..count {
        items.push(read_string(buf, field)?.to_owned());
    }
    Ok(items)
}

/// Reads a `[bytes]`: `None` for a negative length (null).
pub fn read_bytes<'a>(
    buf: &mut &'a [u8],
    field: &'static str,
) -> Result<Option<&'a [u8]>, FrameError> {
    let mut cursor = *buf;
    let len = read_int(&mut cursor, field)?;
    let Ok(len) = usize::try_from(len) else {
        *buf = cursor;
        return Ok(None);
    };
    let bytes = read_raw(&mut cursor, len, field)?;
    *buf = cursor;
    Ok(Some(bytes))
}

/// Reads a `[bytes]` as a shared slice of `body`, which `buf` must point into.
pub fn read_shared_bytes(
    buf: &mut &[u8],
    body: &Bytes,
    field: &'static str,
) -> Result<Option<Bytes>, FrameError> {
    Ok(read_bytes(buf, field)?.map(|bytes| share(body, bytes)))
}

/// Reads a `[short bytes]`.
pub fn read_short_bytes<'a>(
    buf: &mut &'a [u8],
    field: &'static str,
) -> Result<&'a [u8], FrameError> {
    let mut cursor = *buf;
    let len = read_short(&mut cursor, field)?;
    let bytes = read_raw(&mut cursor, usize::from(len), field)?;
    *buf = cursor;
    Ok(bytes)
}

/// `part` as a zero-copy [`Bytes`] of `body`. `part` must be a sub-slice of `body` (the
/// readers above only ever return such slices), or empty.
pub(crate) fn share(body: &Bytes, part: &[u8]) -> Bytes {
    if part.is_empty() {
        return Bytes::new();
    }
    let start = (part.as_ptr() as usize).wrapping_sub(body.as_ptr() as usize);
    match start.checked_add(part.len()) {
        // Only a sub-slice can pass this check; anything else is copied rather than panicking
        // in `slice_ref`.
        Some(end) if end <= body.len() && start <= body.len() => body.slice_ref(part),
        _ => Bytes::copy_from_slice(part),
    }
}

/// A `[value]` (native_protocol_v4.spec section 3): a bound value of QUERY, EXECUTE or BATCH.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Length -1: the value is `null`.
    Null,
    /// Length -2: the value is not set; the column is left untouched.
    Unset,
    /// A serialized value (see [`crate::types::codec`]).
    Bytes(Bytes),
}

/// Reads a `[value]`; a length below -2 is an error.
pub fn read_value(buf: &mut &[u8], body: &Bytes, field: &'static str) -> Result<Value, FrameError> {
    let mut cursor = *buf;
    let len = read_int(&mut cursor, field)?;
    let value = match len {
        -1 => Value::Null,
        -2 => Value::Unset,
        len if len < 0 => {
            return Err(FrameError::InvalidLength {
                field,
                len: i64::from(len),
            })
        }
        len => {
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            Value::Bytes(share(body, read_raw(&mut cursor, len, field)?))
        }
    };
    *buf = cursor;
    Ok(value)
}

/// Reads an `[inet]`: a `[byte]` address size (4 or 16), the address, and an `[int]` port.
pub fn read_inet(buf: &mut &[u8], field: &'static str) -> Result<SocketAddr, FrameError> {
    let mut cursor = *buf;
    let size = read_byte(&mut cursor, field)?;
    let ip = match size {
        4 => {
            let octets: [u8; 4] = read_raw(&mut cursor, 4, field)?
                .try_into()
                .map_err(|_| FrameError::Truncated { field })?;
            IpAddr::V4(Ipv4Addr::from(octets))
        }
        16 => {
            let octets: [u8; 16] = read_raw(&mut cursor, 16, field)?
                .try_into()
                .map_err(|_| FrameError::Truncated { field })?;
            IpAddr::V6(Ipv6Addr::from(octets))
        }
        other => {
            return Err(FrameError::InvalidLength {
                field,
                len: i64::from(other),
            })
        }
    };
    let port = read_int(&mut cursor, field)?;
    let port = u16::try_from(port).map_err(|_| FrameError::InvalidValue {
        field,
        value: i64::from(port),
    })?;
    *buf = cursor;
    Ok(SocketAddr::new(ip, port))
}

/// Reads a `[string map]`, keeping the order of the entries.
pub fn read_string_map(
    buf: &mut &[u8],
    field: &'static str,
) -> Result<Vec<(String, String)>, FrameError> {
    let count = usize::from(read_short(buf, field)?);
    let mut entries = bounded_vec(count, buf, 4);
    for _ in 0..count {
        let key = read_string(buf, field)?.to_owned();
        let value = read_string(buf, field)?.to_owned();
        entries.push((key, value));
    }
    Ok(entries)
}

/// Reads a `[string multimap]`, keeping the order of the entries.
pub fn read_string_multimap(
    buf: &mut &[u8],
    field: &'static str,
) -> Result<Vec<(String, Vec<String>)>, FrameError> {
    let count = usize::from(read_short(buf, field)?);
    let mut entries = bounded_vec(count, buf, 4);
    for _ in 0..count {
        let key = read_string(buf, field)?.to_owned();
        let values = read_string_list(buf, field)?;
        entries.push((key, values));
    }
    Ok(entries)
}

/// Reads a `[bytes map]` (custom payloads), keeping the order of the entries.
pub fn read_bytes_map(
    buf: &mut &[u8],
    body: &Bytes,
    field: &'static str,
) -> Result<Vec<(String, Option<Bytes>)>, FrameError> {
    let count = usize::from(read_short(buf, field)?);
    let mut entries = bounded_vec(count, buf, 6);
    for _ in 0..count {
        let key = read_string(buf, field)?.to_owned();
        let value = read_shared_bytes(buf, body, field)?;
        entries.push((key, value));
    }
    Ok(entries)
}

/// Clamps a length to what a `[short]` prefix can express.
pub(crate) fn short_len(len: usize) -> u16 {
    u16::try_from(len).unwrap_or(u16::MAX)
}

/// Clamps a length to what an `[int]` prefix can express.
pub(crate) fn int_len(len: usize) -> i32 {
    i32::try_from(len).unwrap_or(i32::MAX)
}

/// Writes a `[byte]`.
pub fn write_byte(out: &mut BytesMut, value: u8) {
    out.put_u8(value);
}

/// Writes a `[short]`.
pub fn write_short(out: &mut BytesMut, value: u16) {
    out.put_u16(value);
}

/// Writes an `[int]`.
pub fn write_int(out: &mut BytesMut, value: i32) {
    out.put_i32(value);
}

/// Writes a `[long]`.
pub fn write_long(out: &mut BytesMut, value: i64) {
    out.put_i64(value);
}

/// Writes a `[consistency]`.
pub fn write_consistency(out: &mut BytesMut, value: u16) {
    write_short(out, value);
}

/// Writes a `[string]`, truncated at a character boundary to 65535 bytes.
pub fn write_string(out: &mut BytesMut, value: &str) {
    let mut end = usize::from(short_len(value.len()));
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    let bytes = value.as_bytes().get(..end).unwrap_or_default();
    write_short(out, short_len(bytes.len()));
    out.put_slice(bytes);
}

/// Writes a `[long string]`.
pub fn write_long_string(out: &mut BytesMut, value: &str) {
    write_raw_with_int_len(out, value.as_bytes());
}

fn write_raw_with_int_len(out: &mut BytesMut, bytes: &[u8]) {
    let len = int_len(bytes.len());
    write_int(out, len);
    out.put_slice(bytes.get(..len as usize).unwrap_or(bytes));
}

/// Writes a `[uuid]`.
pub fn write_uuid(out: &mut BytesMut, value: &Uuid) {
    out.put_slice(value.as_bytes());
}

/// Writes a `[string list]` (at most 65535 items).
pub fn write_string_list<S: AsRef<str>>(out: &mut BytesMut, items: &[S]) {
    let count = short_len(items.len());
    write_short(out, count);
    for item in items.iter().take(usize::from(count)) {
        write_string(out, item.as_ref());
    }
}

/// Writes a `[bytes]`: `None` is written as null (length -1).
pub fn write_bytes(out: &mut BytesMut, value: Option<&[u8]>) {
    match value {
        Some(bytes) => write_raw_with_int_len(out, bytes),
        None => write_int(out, -1),
    }
}

/// Writes a `[short bytes]` (at most 65535 bytes).
pub fn write_short_bytes(out: &mut BytesMut, value: &[u8]) {
    let len = short_len(value.len());
    write_short(out, len);
    out.put_slice(value.get(..usize::from(len)).unwrap_or(value));
}

/// Writes a `[value]`.
pub fn write_value(out: &mut BytesMut, value: &Value) {
    match value {
        Value::Null => write_int(out, -1),
        Value::Unset => write_int(out, -2),
        Value::Bytes(bytes) => write_raw_with_int_len(out, bytes),
    }
}

/// Writes an `[inet]`.
pub fn write_inet(out: &mut BytesMut, value: &SocketAddr) {
    match value.ip() {
        IpAddr::V4(ip) => {
            write_byte(out, 4);
            out.put_slice(&ip.octets());
        }
        IpAddr::V6(ip) => {
            write_byte(out, 16);
            out.put_slice(&ip.octets());
        }
    }
    write_int(out, i32::from(value.port()));
}

/// Writes a `[string map]` (at most 65535 entries).
pub fn write_string_map<K: AsRef<str>, V: AsRef<str>>(out: &mut BytesMut, entries: &[(K, V)]) {
    let count = short_len(entries.len());
    write_short(out, count);
    for (key, value) in entries.iter().take(usize::from(count)) {
        write_string(out, key.as_ref());
        write_string(out, value.as_ref());
    }
}

/// Writes a `[string multimap]` (at most 65535 entries).
pub fn write_string_multimap<K: AsRef<str>, V: AsRef<str>>(
    out: &mut BytesMut,
    entries: &[(K, Vec<V>)],
) {
    let count = short_len(entries.len());
    write_short(out, count);
    for (key, values) in entries.iter().take(usize::from(count)) {
        write_string(out, key.as_ref());
        write_string_list(out, values);
    }
}

/// Writes a `[bytes map]` (at most 65535 entries).
pub fn write_bytes_map(out: &mut BytesMut, entries: &[(String, Option<Bytes>)]) {
    let count = short_len(entries.len());
    write_short(out, count);
    for (key, value) in entries.iter().take(usize::from(count)) {
        write_string(out, key);
        write_bytes(out, value.as_deref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frozen(out: BytesMut) -> Bytes {
        out.freeze()
    }

    #[test]
    fn string_bytes_are_exact() {
        let mut out = BytesMut::new();
        write_string(&mut out, "ab");
        write_long_string(&mut out, "c");
        write_bytes(&mut out, None);
        write_value(&mut out, &Value::Unset);
        assert_eq!(
            &out[..],
            &[0, 2, b'a', b'b', 0, 0, 0, 1, b'c', 255, 255, 255, 255, 255, 255, 255, 254]
        );
    }

    #[test]
    fn huge_lengths_fail_without_allocating() {
        // [bytes] claiming 2 GB in a 10-byte body.
        let mut buf: &[u8] = &[0x7F, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4, 5, 6];
        assert_eq!(
            read_bytes(&mut buf, "token"),
            Err(FrameError::Truncated { field: "token" })
        );
        assert_eq!(buf.len(), 10, "cursor untouched on failure");
        let mut buf: &[u8] = &[0xFF, 0xFF, 0, 1];
        assert_eq!(
            read_string_list(&mut buf, "x").unwrap_err().to_string(),
            "Not enough bytes to read x"
        );
        assert!(bounded_vec::<u64>(usize::MAX, &[0; 8], 4).capacity() <= 2);
    }

    #[test]
    fn value_lengths_below_minus_two_are_rejected() {
        let body = Bytes::from_static(&[0xFF, 0xFF, 0xFF, 0xFD]);
        let mut buf = &body[..];
        assert_eq!(
            read_value(&mut buf, &body, "value"),
            Err(FrameError::InvalidLength {
                field: "value",
                len: -3
            })
        );
        let mut buf: &[u8] = &[0xFF, 0xFF, 0xFF, 0xFF];
        assert_eq!(
            read_long_string(&mut buf, "q").unwrap_err().to_string(),
            "Invalid length -1 for q"
        );
    }

    #[test]
    fn shared_bytes_point_into_the_body() {
        let mut out = BytesMut::new();
        write_bytes(&mut out, Some(b"xyz"));
        let body = frozen(out);
        let mut buf = &body[..];
        let shared = read_shared_bytes(&mut buf, &body, "b").unwrap().unwrap();
        assert_eq!(&shared[..], b"xyz");
        assert_eq!(shared.as_ptr(), body[4..].as_ptr());
        assert_eq!(
            share(&body, b"not in body"),
            Bytes::from_static(b"not in body")
        );
    }

    #[test]
    fn invalid_utf8_and_inet_sizes_are_rejected() {
        let mut buf: &[u8] = &[0, 1, 0xFF];
        assert_eq!(
            read_string(&mut buf, "name"),
            Err(FrameError::InvalidUtf8 { field: "name" })
        );
        let mut buf: &[u8] = &[5, 1, 2, 3, 4, 5, 0, 0, 0, 1];
        assert!(read_inet(&mut buf, "address").is_err());
    }

    #[test]
    fn unknown_consistency_codes_are_refused_as_cassandra_does() {
        for code in [0x0000u16, 0x0001, 0x000A, MAX_CONSISTENCY] {
            let bytes = code.to_be_bytes();
            let mut buf = &bytes[..];
            assert_eq!(read_consistency(&mut buf, "consistency"), Ok(code));
            assert!(buf.is_empty());
        }
        for code in [MAX_CONSISTENCY + 1, 0x00FF, 0xFFFF] {
            let bytes = code.to_be_bytes();
            let mut buf = &bytes[..];
            let err = read_consistency(&mut buf, "consistency").unwrap_err();
            assert_eq!(err, FrameError::UnknownConsistency(code));
            assert_eq!(buf.len(), 2, "cursor untouched on failure");
        }
        assert_eq!(
            FrameError::UnknownConsistency(65535).to_string(),
            "Unknown code 65535 for a consistency level"
        );
    }

    #[test]
    fn long_strings_are_truncated_to_fit_a_short() {
        let text = "é".repeat(40_000);
        let mut out = BytesMut::new();
        write_string(&mut out, &text);
        let mut buf = &out[..];
        let read = read_string(&mut buf, "s").unwrap();
        assert_eq!(read.len(), 65534);
        assert!(buf.is_empty());
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            Just(Value::Unset),
            proptest::collection::vec(any::<u8>(), 0..40).prop_map(|v| Value::Bytes(v.into())),
        ]
    }

    proptest! {
        #[test]
        fn primitives_round_trip(
            short in any::<u16>(),
            int in any::<i32>(),
            long in any::<i64>(),
            text in ".{0,20}",
            list in proptest::collection::vec(".{0,8}", 0..5),
            map in proptest::collection::vec((".{0,8}", ".{0,8}"), 0..5),
            multimap in proptest::collection::vec((".{0,8}", proptest::collection::vec(".{0,4}", 0..3)), 0..4),
            bytes in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
            short_bytes in proptest::collection::vec(any::<u8>(), 0..40),
            value in arb_value(),
            uuid in any::<u128>(),
            ip in any::<[u8; 16]>(),
            v4 in any::<bool>(),
            port in any::<u16>(),
        ) {
            let uuid = Uuid::from_u128(uuid);
            let addr = if v4 {
                SocketAddr::new(IpAddr::V4(Ipv4Addr::new(ip[0], ip[1], ip[2], ip[3])), port)
            } else {
                SocketAddr::new(IpAddr::V6(Ipv6Addr::from(ip)), port)
            };
            let mut out = BytesMut::new();
            write_short(&mut out, short);
            write_int(&mut out, int);
            write_long(&mut out, long);
            write_string(&mut out, &text);
            write_long_string(&mut out, &text);
            write_uuid(&mut out, &uuid);
            write_string_list(&mut out, &list);
            write_bytes(&mut out, bytes.as_deref());
            write_short_bytes(&mut out, &short_bytes);
            write_value(&mut out, &value);
            write_inet(&mut out, &addr);
            write_consistency(&mut out, short % (MAX_CONSISTENCY + 1));
            write_string_map(&mut out, &map);
            write_string_multimap(&mut out, &multimap);
            let body = out.freeze();
            let mut buf = &body[..];
            prop_assert_eq!(read_short(&mut buf, "f").unwrap(), short);
            prop_assert_eq!(read_int(&mut buf, "f").unwrap(), int);
            prop_assert_eq!(read_long(&mut buf, "f").unwrap(), long);
            prop_assert_eq!(read_string(&mut buf, "f").unwrap(), text.as_str());
            prop_assert_eq!(read_long_string(&mut buf, "f").unwrap(), text.as_str());
            prop_assert_eq!(read_uuid(&mut buf, "f").unwrap(), uuid);
            prop_assert_eq!(read_string_list(&mut buf, "f").unwrap(), list);
            prop_assert_eq!(read_bytes(&mut buf, "f").unwrap(), bytes.as_deref());
            prop_assert_eq!(read_short_bytes(&mut buf, "f").unwrap(), &short_bytes[..]);
            prop_assert_eq!(read_value(&mut buf, &body, "f").unwrap(), value);
            prop_assert_eq!(read_inet(&mut buf, "f").unwrap(), addr);
            prop_assert_eq!(
                read_consistency(&mut buf, "f").unwrap(),
                short % (MAX_CONSISTENCY + 1)
            );
            prop_assert_eq!(read_string_map(&mut buf, "f").unwrap(), map);
            prop_assert_eq!(read_string_multimap(&mut buf, "f").unwrap(), multimap);
            prop_assert!(buf.is_empty());
        }
    }
}
