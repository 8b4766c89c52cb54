//! One key component: a tag byte then an order-preserving, prefix-free body, per CQL type.
//!
//! Orders match Cassandra's comparators (`db/marshal/*Type.java`): the empty value sorts
//! first; integers and `timestamp` as signed numbers; `date` and `time` as unsigned bytes;
//! `float`/`double` as Java's `Float.compare`/`Double.compare`; `uuid` as `UUIDType`;
//! `timeuuid` as `TimeUUIDType`; `varint` and `decimal` numerically; text, ascii, blob and
//! inet bytewise; frozen collections, tuples and UDTs element by element ([`super::nested`]);
//! `CompositeType` and `DynamicCompositeType` custom types component by component
//! ([`super::composite`]).
//!
//! A partition-key component of a type whose comparator calls distinct values equal
//! (`decimal`, the nested types, which may hold one, and custom types) keeps its serialized
//! bytes instead
//! (the escaped layout): Cassandra identifies partitions by their bytes, so `1.0` and `1.00`
//! are two partitions but one clustering value.

use cql::types::marshal::Composite;
use cql::types::ColumnType;

use super::composite;
use super::decimal;
use super::nested;
use super::reader::Reader;
use crate::error::StorageError;

/// Tag of an empty (zero-length) value; sorts before every present value.
pub(crate) const TAG_EMPTY: u8 = 0x00;
/// Tag of a present value. Tags `0x02..` are reserved for later kinds of component.
pub(crate) const TAG_VALUE: u8 = 0x01;

/// Escape byte: a `0x00` in a variable-length body is written as `0x00 0xFF`.
const ESCAPE: u8 = 0xFF;
/// Terminator of a variable-length body: `0x00 0x01`.
const TERMINATOR: u8 = 0x01;

const SIGN64: u64 = 1 << 63;

/// How a type's body is laid out.
#[derive(Clone, Copy)]
enum Layout {
    /// Fixed width, two's complement: flip the sign bit of the first byte.
    Signed(usize),
    /// Fixed width, already unsigned-ordered (`date`, `time`).
    Unsigned(usize),
    Boolean,
    Float,
    Double,
    Uuid,
    TimeUuid,
    Varint,
    /// Numeric, see [`decimal`].
    Decimal,
    /// Frozen collections, tuples and UDTs, see [`nested`].
    Nested,
    /// `CompositeType` custom types, see [`composite`].
    Composite,
    /// Escaped and terminated bytes.
    Bytes,
}

/// Whether a partition-key component of `ty` keeps its bytes rather than a typed body.
fn keyed_by_bytes(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Decimal
            | ColumnType::List { .. }
            | ColumnType::Set { .. }
            | ColumnType::Map { .. }
            | ColumnType::Tuple(_)
            | ColumnType::Udt { .. }
            | ColumnType::Vector { .. }
            | ColumnType::Custom(_)
    )
}

fn layout(ty: &ColumnType) -> Result<Layout, StorageError> {
    Ok(match ty {
        ColumnType::Int => Layout::Signed(4),
        ColumnType::Bigint | ColumnType::Counter | ColumnType::Timestamp => Layout::Signed(8),
        // `TimeType` is a BYTE_ORDER type (signed order only within its valid range).
        ColumnType::Time => Layout::Unsigned(8),
        ColumnType::Smallint => Layout::Signed(2),
        ColumnType::Tinyint => Layout::Signed(1),
        ColumnType::Date => Layout::Unsigned(4),
        ColumnType::Boolean => Layout::Boolean,
        ColumnType::Float => Layout::Float,
        ColumnType::Double => Layout::Double,
        ColumnType::Uuid => Layout::Uuid,
        ColumnType::Timeuuid => Layout::TimeUuid,
        ColumnType::Varint => Layout::Varint,
        ColumnType::Decimal => Layout::Decimal,
        ColumnType::List { frozen: true, .. }
        | ColumnType::Set { frozen: true, .. }
        | ColumnType::Map { frozen: true, .. }
        | ColumnType::Udt { frozen: true, .. }
        | ColumnType::Tuple(_)
        | ColumnType::Vector { .. } => Layout::Nested,
        ColumnType::Text | ColumnType::Ascii | ColumnType::Blob | ColumnType::Inet => Layout::Bytes,
        ColumnType::Custom(_) if Composite::of(ty).is_some() => Layout::Composite,
        other => {
            return Err(StorageError::UnsupportedKeyType {
                ty: other.to_string(),
            })
        }
    })
}

/// [`StorageError::InvalidKeyValue`] for a value of `ty`.
pub(super) fn invalid(ty: &ColumnType, reason: impl Into<String>) -> StorageError {
    StorageError::InvalidKeyValue {
        ty: ty.to_string(),
        reason: reason.into(),
    }
}

fn fixed<const N: usize>(ty: &ColumnType, value: &[u8]) -> Result<[u8; N], StorageError> {
    value
        .try_into()
        .map_err(|_| invalid(ty, format!("expected {N} bytes, got {}", value.len())))
}

/// Appends the clustering component for `value` (serialized CQL value) of type `ty`. `desc`
/// inverts every byte of the component, tag included.
pub(crate) fn encode(
    ty: &ColumnType,
    desc: bool,
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    encode_as(ty, layout(ty)?, desc, value, out)
}

/// Appends the partition-key component for `value` of type `ty` (always ascending).
pub(crate) fn encode_partition(
    ty: &ColumnType,
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    let layout = if keyed_by_bytes(ty) {
        Layout::Bytes
    } else {
        layout(ty)?
    };
    encode_as(ty, layout, false, value, out)
}

fn encode_as(
    ty: &ColumnType,
    layout: Layout,
    desc: bool,
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    let start = out.len();
    if value.is_empty() {
        out.push(TAG_EMPTY);
    } else {
        out.push(TAG_VALUE);
        if let Err(e) = encode_body(ty, layout, value, out) {
            out.truncate(start);
            return Err(e);
        }
    }
    if desc {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    Ok(())
}

fn encode_body(
    ty: &ColumnType,
    layout: Layout,
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    match layout {
        Layout::Signed(width) | Layout::Unsigned(width) => {
            if value.len() != width {
                return Err(invalid(ty, format!("expected {width} bytes")));
            }
            let start = out.len();
            out.extend_from_slice(value);
            if matches!(layout, Layout::Signed(_)) {
                out[start] ^= 0x80;
            }
        }
        Layout::Boolean => {
            let [b] = fixed::<1>(ty, value)?;
            // BooleanType: zero is false, anything else true, and all true values are equal.
            out.push(u8::from(b != 0));
        }
        Layout::Float => {
            let bits = u32::from_be_bytes(fixed(ty, value)?);
            out.extend_from_slice(&float_key(bits).to_be_bytes());
        }
        Layout::Double => {
            let bits = u64::from_be_bytes(fixed(ty, value)?);
            out.extend_from_slice(&double_key(bits).to_be_bytes());
        }
        Layout::Uuid | Layout::TimeUuid => {
            let raw = u128::from_be_bytes(fixed(ty, value)?);
            let (msb, lsb) = ((raw >> 64) as u64, raw as u64);
            let (hi, lo) = if matches!(layout, Layout::Uuid) {
                (uuid_hi(msb), lsb)
            } else {
                (reorder_timestamp(msb) ^ SIGN64, lsb ^ 0x8080_8080_8080_8080)
            };
            out.extend_from_slice(&hi.to_be_bytes());
            out.extend_from_slice(&lo.to_be_bytes());
        }
        Layout::Varint => encode_varint(ty, value, out)?,
        Layout::Decimal => decimal::encode(value, out).map_err(|reason| invalid(ty, reason))?,
        Layout::Nested => nested::encode(ty, value, out)?,
        Layout::Composite => {
            let kind = Composite::of(ty).ok_or_else(|| invalid(ty, "not a composite"))?;
            composite::encode(ty, &kind, value, out)?;
        }
        Layout::Bytes => {
            for &b in value {
                out.push(b);
                if b == 0 {
                    out.push(ESCAPE);
                }
            }
            out.extend_from_slice(&[0, TERMINATOR]);
        }
    }
    Ok(())
}

/// Java's `Float.compare` order as an unsigned integer: NaNs collapse to the canonical NaN
/// (`floatToIntBits`), which sorts after +infinity; -0.0 sorts before 0.0.
fn float_key(bits: u32) -> u32 {
    let bits = if f32::from_bits(bits).is_nan() {
        0x7fc0_0000
    } else {
        bits
    };
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

fn float_from_key(key: u32) -> u32 {
    if key & 0x8000_0000 != 0 {
        key & 0x7fff_ffff
    } else {
        !key
    }
}

/// Java's `Double.compare` order; see [`float_key`].
fn double_key(bits: u64) -> u64 {
    let bits = if f64::from_bits(bits).is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        bits
    };
    if bits & SIGN64 != 0 {
        !bits
    } else {
        bits | SIGN64
    }
}

fn double_from_key(key: u64) -> u64 {
    if key & SIGN64 != 0 {
        key & !SIGN64
    } else {
        !key
    }
}

/// `TimeUUIDType.reorderTimestampBytes`: `time_hi_and_version`, `time_mid`, `time_low`.
fn reorder_timestamp(msb: u64) -> u64 {
    (msb << 48) | ((msb << 16) & 0xFFFF_0000_0000) | (msb >> 32)
}

fn reorder_timestamp_back(r: u64) -> u64 {
    (r << 32) | (((r >> 32) & 0xFFFF) << 16) | (r >> 48)
}

/// `UUIDType.asComparableBytes` high half: version first, then the timestamp for version 1
/// or the remaining bits of the high half otherwise. The low half compares unsigned.
fn uuid_hi(msb: u64) -> u64 {
    let version = (msb >> 12) & 0xF;
    if version == 1 {
        reorder_timestamp(msb)
    } else {
        (version << 60) | ((msb >> 4) & 0x0FFF_FFFF_FFFF_F000) | (msb & 0xFFF)
    }
}

fn uuid_hi_back(hi: u64) -> u64 {
    let version = hi >> 60;
    if version == 1 {
        reorder_timestamp_back(hi)
    } else {
        ((hi & 0x0FFF_FFFF_FFFF_F000) << 4) | (version << 12) | (hi & 0xFFF)
    }
}

/// Minimal two's complement form of a varint (Cassandra accepts redundant sign bytes and
/// compares them equal).
fn minimal_varint(mut value: &[u8]) -> &[u8] {
    while let [first, second, ..] = value {
        let redundant =
            (*first == 0x00 && second & 0x80 == 0) || (*first == 0xFF && second & 0x80 != 0);
        if !redundant {
            break;
        }
        value = &value[1..];
    }
    value
}

/// `varint` body: a sign marker (`0x7F` negative, `0x80` non-negative), the byte length as a
/// big-endian u32 (inverted for negatives, since longer negatives are smaller), then the
/// minimal two's complement bytes, whose unsigned order matches numeric order at equal length.
fn encode_varint(ty: &ColumnType, value: &[u8], out: &mut Vec<u8>) -> Result<(), StorageError> {
    let value = minimal_varint(value);
    let len = u32::try_from(value.len()).map_err(|_| invalid(ty, "longer than 4 GiB"))?;
    let negative = value.first().is_some_and(|b| b & 0x80 != 0);
    if negative {
        out.push(0x7F);
        out.extend_from_slice(&(!len).to_be_bytes());
    } else {
        out.push(0x80);
        out.extend_from_slice(&len.to_be_bytes());
    }
    out.extend_from_slice(value);
    Ok(())
}

/// Decodes one component of type `ty` at the start of `input`. Returns the serialized CQL
/// value and the number of bytes consumed.
pub(crate) fn decode(
    ty: &ColumnType,
    desc: bool,
    input: &[u8],
) -> Result<(Vec<u8>, usize), StorageError> {
    let mut r = Reader::new(input, desc);
    let value = decode_from(ty, &mut r)?;
    Ok((value, r.position()))
}

/// Decodes one partition-key component written by [`encode_partition`].
pub(crate) fn decode_partition(
    ty: &ColumnType,
    input: &[u8],
) -> Result<(Vec<u8>, usize), StorageError> {
    let layout = if keyed_by_bytes(ty) {
        Layout::Bytes
    } else {
        layout(ty)?
    };
    let mut r = Reader::new(input, false);
    let value = decode_as(ty, layout, &mut r)?;
    Ok((value, r.position()))
}

/// Decodes one (clustering) component of type `ty` from `r`.
pub(super) fn decode_from(ty: &ColumnType, r: &mut Reader<'_>) -> Result<Vec<u8>, StorageError> {
    decode_as(ty, layout(ty)?, r)
}

fn decode_as(ty: &ColumnType, layout: Layout, r: &mut Reader<'_>) -> Result<Vec<u8>, StorageError> {
    match r.byte()? {
        TAG_EMPTY => Ok(Vec::new()),
        TAG_VALUE => decode_body(ty, layout, r),
        tag => Err(StorageError::corrupt(format!(
            "row key: unknown tag {tag:#04x}"
        ))),
    }
}

/// Reads an escaped, terminated body, passing each of its bytes to `byte`; returns how many
/// there were.
fn unescape(r: &mut Reader<'_>, mut byte: impl FnMut(u8)) -> Result<usize, StorageError> {
    let mut len = 0;
    loop {
        let b = match r.byte()? {
            0 => match r.byte()? {
                ESCAPE => 0,
                TERMINATOR => return Ok(len),
                _ => return Err(StorageError::corrupt("row key: bad escape")),
            },
            b => b,
        };
        byte(b);
        len += 1;
    }
}

fn decode_body(
    ty: &ColumnType,
    layout: Layout,
    r: &mut Reader<'_>,
) -> Result<Vec<u8>, StorageError> {
    Ok(match layout {
        Layout::Signed(width) | Layout::Unsigned(width) => {
            let mut v = (0..width)
                .map(|_| r.byte())
                .collect::<Result<Vec<_>, _>>()?;
            if let (Layout::Signed(_), Some(first)) = (layout, v.first_mut()) {
                *first ^= 0x80;
            }
            v
        }
        Layout::Boolean => match r.byte()? {
            b @ (0 | 1) => vec![b],
            b => return Err(StorageError::corrupt(format!("row key: boolean {b:#04x}"))),
        },
        Layout::Float => float_from_key(u32::from_be_bytes(r.take()?))
            .to_be_bytes()
            .to_vec(),
        Layout::Double => double_from_key(u64::from_be_bytes(r.take()?))
            .to_be_bytes()
            .to_vec(),
        Layout::Uuid | Layout::TimeUuid => {
            let hi = u64::from_be_bytes(r.take()?);
            let lo = u64::from_be_bytes(r.take()?);
            let (msb, lsb) = if matches!(layout, Layout::Uuid) {
                (uuid_hi_back(hi), lo)
            } else {
                (
                    reorder_timestamp_back(hi ^ SIGN64),
                    lo ^ 0x8080_8080_8080_8080,
                )
            };
            let mut v = msb.to_be_bytes().to_vec();
            v.extend_from_slice(&lsb.to_be_bytes());
            v
        }
        Layout::Varint => {
            let marker = r.byte()?;
            let len = u32::from_be_bytes(r.take()?);
            let len = match marker {
                0x80 => len,
                0x7F => !len,
                _ => return Err(StorageError::corrupt("row key: varint sign marker")),
            };
            let len = usize::try_from(len)
                .map_err(|_| StorageError::corrupt("row key: varint length"))?;
            r.take_vec(len)?
        }
        Layout::Decimal => decimal::decode(r)?,
        Layout::Nested => nested::decode(ty, r)?,
        Layout::Composite => {
            let kind = Composite::of(ty)
                .ok_or_else(|| StorageError::corrupt("row key: not a composite"))?;
            composite::decode(&kind, r)?
        }
        Layout::Bytes => {
            // Most values hold no zero byte: one scan finds the terminator, one copy takes
            // the bytes.
            if let Some(plain) = r.plain_body(TERMINATOR) {
                return Ok(plain.to_vec());
            }
            // Measured first, so the value's buffer is allocated once and exactly: it does
            // not grow byte by byte, and a `Bytes` made of a buffer with spare room would
            // allocate its shared header at once.
            let mut v = Vec::with_capacity(unescape(&mut r.clone(), |_| ())?);
            unescape(r, |b| v.push(b))?;
            v
        }
    })
}
