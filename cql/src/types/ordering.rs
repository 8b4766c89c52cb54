//! CQL's comparison rules per type, over serialized values: the order Cassandra's
//! `AbstractType.compare` gives clustering columns and frozen collection elements.
//!
//! This is the oracle for the storage engine's order-preserving key encoding, so it follows
//! Cassandra's `db/marshal` types exactly, including their quirks:
//!
//! - the empty value sorts before every other value of every type;
//! - `int`, `bigint`, `smallint`, `tinyint`, `counter`, `timestamp`: signed;
//! - `varint` and `decimal`: numerically (`1.0` equals `1.00`, as `BigDecimal.compareTo`);
//! - `float`, `double`: Java's `Float.compare`/`Double.compare` (`-0.0 < 0.0`, every NaN
//!   equal to every other and above `+inf`);
//! - `boolean`: false before true (any non-zero byte is true);
//! - `ascii`, `text`, `blob`, `inet`, `date`, `time`, `duration` and custom types: unsigned
//!   bytewise (Cassandra's `BYTE_ORDER` types; `date` is the unsigned day count with the epoch
//!   at 2^31, and `time` is byte-ordered too, which is signed order for the valid range
//!   `0..86_400_000_000_000`);
//! - `uuid` as `UUIDType`: version first, then time for version 1, then unsigned bytes;
//! - `timeuuid` as `TimeUUIDType`: timestamp, then the last 8 bytes as **signed** bytes;
//! - frozen `list`/`set`/`map`: element by element (keys then values), then by size;
//!   tuples and UDTs component by component with null first, trailing nulls ignored.
//!
//! Values are assumed valid for their type ([`super::codec::validate_value`]); malformed
//! input never panics and falls back to a plain byte comparison at the point it goes wrong.

use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint, Sign};

use super::codec::minimal_varint;
use super::ColumnType;

/// Nesting beyond this compares the remaining bytes plainly instead of recursing.
const MAX_DEPTH: usize = 32;

/// Compares two serialized values of type `ty` the way Cassandra orders them.
pub fn compare(ty: &ColumnType, a: &[u8], b: &[u8]) -> Ordering {
    compare_at(ty, a, b, 0)
}

fn compare_at(ty: &ColumnType, a: &[u8], b: &[u8], depth: usize) -> Ordering {
    if a.is_empty() || b.is_empty() {
        return b.is_empty().cmp(&a.is_empty());
    }
    if depth >= MAX_DEPTH {
        return a.cmp(b);
    }
    let depth = depth + 1;
    match ty {
        ColumnType::Int
        | ColumnType::Bigint
        | ColumnType::Smallint
        | ColumnType::Tinyint
        | ColumnType::Counter
        | ColumnType::Timestamp => compare_signed(a, b),
        ColumnType::Varint => compare_varint(a, b),
        ColumnType::Decimal => compare_decimal(a, b),
        ColumnType::Float => match (a.try_into(), b.try_into()) {
            (Ok(a), Ok(b)) => java_compare_f32(f32::from_be_bytes(a), f32::from_be_bytes(b)),
            _ => a.cmp(b),
        },
        ColumnType::Double => match (a.try_into(), b.try_into()) {
            (Ok(a), Ok(b)) => java_compare_f64(f64::from_be_bytes(a), f64::from_be_bytes(b)),
            _ => a.cmp(b),
        },
        ColumnType::Boolean => {
            let truth = |v: &[u8]| v.first().is_some_and(|byte| *byte != 0);
            truth(a).cmp(&truth(b))
        }
        ColumnType::Uuid => compare_uuid(a, b),
        ColumnType::Timeuuid => compare_timeuuid(a, b),
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
            compare_collection(&[element], a, b, depth)
        }
        ColumnType::Map { key, value, .. } => compare_collection(&[key, value], a, b, depth),
        ColumnType::Tuple(types) => compare_fields(types.iter(), a, b, depth),
        ColumnType::Vector { element, dimension } => {
            compare_vector(element, *dimension, a, b, depth)
        }
        ColumnType::Udt { fields, .. } => {
            compare_fields(fields.iter().map(|(_, ty)| ty), a, b, depth)
        }
        ColumnType::Custom(_) => match super::marshal::Composite::of(ty) {
            Some(super::marshal::Composite::Static(types)) => {
                super::composite::compare_static(&types, a, b, |ty, a, b| {
                    compare_at(ty, a, b, depth)
                })
            }
            Some(super::marshal::Composite::Dynamic(aliases)) => {
                super::composite::compare_dynamic(&aliases, a, b, |ty, a, b| {
                    compare_at(ty, a, b, depth)
                })
            }
            None => a.cmp(b),
        },
        ColumnType::Ascii
        | ColumnType::Text
        | ColumnType::Blob
        | ColumnType::Inet
        | ColumnType::Date
        | ColumnType::Time
        | ColumnType::Duration => a.cmp(b),
    }
}

/// `VectorType`: element by element (every vector of a type has as many).
fn compare_vector(
    element: &ColumnType,
    dimension: u32,
    a: &[u8],
    b: &[u8],
    depth: usize,
) -> Ordering {
    match (
        super::vector::split(element, dimension, a),
        super::vector::split(element, dimension, b),
    ) {
        (Ok(left), Ok(right)) => left
            .iter()
            .zip(&right)
            .map(|(x, y)| compare_at(element, x, y, depth))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal),
        _ => a.cmp(b),
    }
}

/// `Int32Type`/`LongType`/`ShortType`: the first byte signed, the rest unsigned.
fn compare_signed(a: &[u8], b: &[u8]) -> Ordering {
    let first = |v: &[u8]| v.first().map(|byte| i8::from_be_bytes([*byte]));
    first(a).cmp(&first(b)).then_with(|| a.cmp(b))
}

/// Java's `floatToIntBits`: every NaN is the canonical NaN.
fn java_compare_f32(a: f32, b: f32) -> Ordering {
    let bits = |f: f32| {
        if f.is_nan() {
            0x7FC0_0000
        } else {
            f.to_bits() as i32
        }
    };
    match a.partial_cmp(&b) {
        Some(Ordering::Less) => Ordering::Less,
        Some(Ordering::Greater) => Ordering::Greater,
        _ => bits(a).cmp(&bits(b)),
    }
}

/// Java's `doubleToLongBits`: every NaN is the canonical NaN.
fn java_compare_f64(a: f64, b: f64) -> Ordering {
    let bits = |f: f64| {
        if f.is_nan() {
            0x7FF8_0000_0000_0000
        } else {
            f.to_bits() as i64
        }
    };
    match a.partial_cmp(&b) {
        Some(Ordering::Less) => Ordering::Less,
        Some(Ordering::Greater) => Ordering::Greater,
        _ => bits(a).cmp(&bits(b)),
    }
}

fn is_negative(twos_complement: &[u8]) -> bool {
    twos_complement.first().is_some_and(|byte| byte & 0x80 != 0)
}

/// Numeric order of two big-endian two's-complement integers of any length.
fn compare_varint(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (minimal_varint(a), minimal_varint(b));
    match (is_negative(a), is_negative(b)) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        // Same sign, minimal length: for positives the longer is larger, for negatives the
        // longer is smaller; at equal length two's complement orders as unsigned bytes.
        (false, false) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
        (true, true) => b.len().cmp(&a.len()).then_with(|| a.cmp(b)),
    }
}

/// `BigDecimal.compareTo`: `scale [int]` then the unscaled varint; numeric, scale-blind.
fn compare_decimal(a: &[u8], b: &[u8]) -> Ordering {
    let (Some((scale_a, unscaled_a)), Some((scale_b, unscaled_b))) =
        (a.split_first_chunk::<4>(), b.split_first_chunk::<4>())
    else {
        return a.cmp(b);
    };
    let (sign_a, mag_a) = BigInt::from_signed_bytes_be(unscaled_a).into_parts();
    let (sign_b, mag_b) = BigInt::from_signed_bytes_be(unscaled_b).into_parts();
    if sign_a != sign_b || sign_a == Sign::NoSign {
        return sign_a.cmp(&sign_b);
    }
    let (scale_a, scale_b) = (
        i64::from(i32::from_be_bytes(*scale_a)),
        i64::from(i32::from_be_bytes(*scale_b)),
    );
    let by_magnitude = if scale_a >= scale_b {
        compare_scaled(&mag_a, &mag_b, scale_a - scale_b)
    } else {
        compare_scaled(&mag_b, &mag_a, scale_b - scale_a).reverse()
    };
    if sign_a == Sign::Minus {
        by_magnitude.reverse()
    } else {
        by_magnitude
    }
}

/// Compares `big` with `small * 10^shift`, both non-zero.
fn compare_scaled(big: &BigUint, small: &BigUint, shift: i64) -> Ordering {
    // small * 10^shift >= 10^shift > 2^(3 * shift), so once 3 * shift reaches big's bit
    // length the scaled side is larger; below that the power has fewer bits than `big`.
    let bits = i64::try_from(big.bits()).unwrap_or(i64::MAX);
    let Ok(shift) = u32::try_from(shift) else {
        return Ordering::Less;
    };
    if i64::from(shift).saturating_mul(3) >= bits {
        return Ordering::Less;
    }
    // One exponentiation by squaring and one multiplication (Karatsuba and up), rather than
    // `shift` multiplications by ten, which were quadratic in the length.
    big.cmp(&(small * BigUint::from(10u8).pow(shift)))
}

/// `UUIDType`: 16-byte values after shorter ones; version; timestamp for version 1; bytes.
fn compare_uuid(a: &[u8], b: &[u8]) -> Ordering {
    if a.len() != 16 || b.len() != 16 {
        return (a.len() == 16).cmp(&(b.len() == 16)).then_with(|| a.cmp(b));
    }
    let version = |v: &[u8]| v.get(6).map(|byte| byte >> 4);
    version(a).cmp(&version(b)).then_with(|| {
        if version(a) == Some(1) {
            let time = |v: &[u8]| timestamp_order(msb(v)) & 0x0FFF_FFFF_FFFF_FFFF;
            time(a).cmp(&time(b)).then_with(|| a.cmp(b))
        } else {
            a.cmp(b)
        }
    })
}

/// `TimeUUIDType`: the reordered most significant long (signed), then the least significant
/// eight bytes compared as signed bytes.
fn compare_timeuuid(a: &[u8], b: &[u8]) -> Ordering {
    let (Some(low_a), Some(low_b)) = (a.get(8..16), b.get(8..16)) else {
        return a.cmp(b);
    };
    if a.len() != 16 || b.len() != 16 {
        return a.cmp(b);
    }
    let signed = |v: &[u8]| v.iter().map(|byte| *byte as i8).collect::<Vec<_>>();
    (timestamp_order(msb(a)) as i64)
        .cmp(&(timestamp_order(msb(b)) as i64))
        .then_with(|| signed(low_a).cmp(&signed(low_b)))
}

fn msb(uuid: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    for (slot, byte) in word.iter_mut().zip(uuid) {
        *slot = *byte;
    }
    u64::from_be_bytes(word)
}

/// Cassandra's `reorderTimestampBytes`: `time_hi_and_version`, `time_mid`, `time_low`.
fn timestamp_order(msb: u64) -> u64 {
    (msb << 48) | ((msb << 16) & 0xFFFF_0000_0000) | (msb >> 32)
}

/// Reads one `[bytes]` element: `Some(None)` for null, `None` when malformed.
fn next_element<'a>(buf: &mut &'a [u8]) -> Option<Option<&'a [u8]>> {
    let (len, rest) = buf.split_first_chunk::<4>()?;
    let Ok(len) = usize::try_from(i32::from_be_bytes(*len)) else {
        *buf = rest;
        return Some(None);
    };
    let element = rest.get(..len)?;
    *buf = rest.get(len..)?;
    Some(Some(element))
}

fn compare_elements(ty: &ColumnType, a: Option<&[u8]>, b: Option<&[u8]>, depth: usize) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => compare_at(ty, a, b, depth),
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

/// `ListType`/`SetType`/`MapType` on frozen values: entries pairwise (each entry being one
/// element per type in `entry`), then the entry counts.
fn compare_collection(entry: &[&ColumnType], a: &[u8], b: &[u8], depth: usize) -> Ordering {
    let walk = || -> Option<Ordering> {
        let (count_a, mut buf_a) = a.split_first_chunk::<4>()?;
        let (count_b, mut buf_b) = b.split_first_chunk::<4>()?;
        let (count_a, count_b) = (i32::from_be_bytes(*count_a), i32::from_be_bytes(*count_b));
        for _ in 0..count_a.min(count_b) {
            for ty in entry {
                let (x, y) = (next_element(&mut buf_a)?, next_element(&mut buf_b)?);
                let order = compare_elements(ty, x, y, depth);
                if order != Ordering::Equal {
                    return Some(order);
                }
            }
        }
        Some(count_a.cmp(&count_b))
    };
    walk().unwrap_or_else(|| a.cmp(b))
}

/// Whether every component left in `buf` is null (vacuously true when none is left).
fn all_remaining_null(mut buf: &[u8]) -> bool {
    while let Some((len, rest)) = buf.split_first_chunk::<4>() {
        if i32::from_be_bytes(*len) >= 0 {
            return false;
        }
        buf = rest;
    }
    true
}

/// `TupleType.compareCustom` (also UDTs): components in order with null first, stopping when
/// either side runs out; then a side with a non-null component left is larger.
fn compare_fields<'t>(
    types: impl Iterator<Item = &'t ColumnType>,
    a: &[u8],
    b: &[u8],
    depth: usize,
) -> Ordering {
    let (mut buf_a, mut buf_b) = (a, b);
    for ty in types {
        if buf_a.is_empty() || buf_b.is_empty() {
            break;
        }
        let (Some(x), Some(y)) = (next_element(&mut buf_a), next_element(&mut buf_b)) else {
            return buf_a.cmp(buf_b);
        };
        let order = compare_elements(ty, x, y, depth);
        if order != Ordering::Equal {
            return order;
        }
    }
    let (rest_a_null, rest_b_null) = (all_remaining_null(buf_a), all_remaining_null(buf_b));
    if rest_a_null && rest_b_null {
        Ordering::Equal
    } else if buf_a.is_empty() {
        Ordering::Less
    } else if rest_a_null {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::codec::serialize_value;
    use crate::types::CqlValue;
    use Ordering::{Equal, Greater, Less};

    fn ser(value: &CqlValue) -> Vec<u8> {
        let mut out = Vec::new();
        serialize_value(value, &mut out);
        out
    }

    fn cmp(ty: &ColumnType, a: &CqlValue, b: &CqlValue) -> Ordering {
        let (x, y) = (ser(a), ser(b));
        let order = compare(ty, &x, &y);
        assert_eq!(
            compare(ty, &y, &x),
            order.reverse(),
            "antisymmetry for {ty}"
        );
        order
    }

    /// Asserts `values` are in strictly ascending order under `ty`.
    fn ascending(ty: &ColumnType, values: &[CqlValue]) {
        for pair in values.windows(2) {
            assert_eq!(
                cmp(ty, &pair[0], &pair[1]),
                Less,
                "{ty}: {:?} < {:?}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn integers_are_signed_and_empty_sorts_first() {
        use CqlValue as V;
        ascending(
            &ColumnType::Int,
            &[
                V::Empty,
                V::Int(i32::MIN),
                V::Int(-1),
                V::Int(0),
                V::Int(1),
                V::Int(i32::MAX),
            ],
        );
        ascending(
            &ColumnType::Bigint,
            &[
                V::Empty,
                V::Bigint(-300),
                V::Bigint(-1),
                V::Bigint(0),
                V::Bigint(256),
            ],
        );
        ascending(&ColumnType::Counter, &[V::Counter(-1), V::Counter(0)]);
        ascending(
            &ColumnType::Timestamp,
            &[V::Timestamp(-1000), V::Timestamp(0), V::Timestamp(1)],
        );
        ascending(
            &ColumnType::Smallint,
            &[
                V::Smallint(-129),
                V::Smallint(-1),
                V::Smallint(1),
                V::Smallint(300),
            ],
        );
        ascending(
            &ColumnType::Tinyint,
            &[
                V::Tinyint(-128),
                V::Tinyint(-1),
                V::Tinyint(0),
                V::Tinyint(127),
            ],
        );
        assert_eq!(cmp(&ColumnType::Int, &V::Empty, &V::Empty), Equal);
    }

    #[test]
    fn varints_and_decimals_are_numeric() {
        let varint = |bytes: &[u8]| CqlValue::Varint(bytes.to_vec());
        ascending(
            &ColumnType::Varint,
            &[
                varint(&[0x80, 0x00]),
                varint(&[0xFF, 0x7F]),
                varint(&[0x80]),
                varint(&[0xFF]),
                varint(&[0]),
                varint(&[0x7F]),
                varint(&[0x00, 0x80]),
                varint(&[0x01, 0x00, 0x00]),
            ],
        );
        assert_eq!(compare(&ColumnType::Varint, &[0xFF, 0xFF], &[0xFF]), Equal);
        let dec = |unscaled: &[u8], scale: i32| CqlValue::Decimal {
            unscaled: unscaled.to_vec(),
            scale,
        };
        let d = ColumnType::Decimal;
        assert_eq!(
            cmp(&d, &dec(&[10], 1), &dec(&[100], 2)),
            Equal,
            "1.0 == 1.00"
        );
        assert_eq!(cmp(&d, &dec(&[0], 5), &dec(&[0], -3)), Equal);
        ascending(
            &d,
            &[
                dec(&[0x80], 0),
                dec(&[0xFF], 0),
                dec(&[0xFF], 3),
                dec(&[0], 0),
                dec(&[1], 3),
                dec(&[15], 1),
                dec(&[2], 0),
                dec(&[1], -1),
            ],
        );
        // Huge scale differences are decided without multiplying.
        assert_eq!(
            cmp(&d, &dec(&[1], i32::MIN), &dec(&[0x7F; 20], i32::MAX)),
            Greater
        );
        assert_eq!(
            cmp(&d, &dec(&[0xFF], i32::MIN), &dec(&[0x80], i32::MAX)),
            Less
        );
    }

    /// An 800,000-bit unscaled value against 10^240,000 and 10^250,000 (about 797,000 and
    /// 830,000 bits): close enough that the power must be computed, which multiplying by ten
    /// 250,000 times (some 6 * 10^9 limb steps) made take seconds to minutes.
    #[test]
    fn long_decimals_with_far_apart_scales_compare_quickly() {
        let d = ColumnType::Decimal;
        let dec = |unscaled: &[u8], scale: i32| CqlValue::Decimal {
            unscaled: unscaled.to_vec(),
            scale,
        };
        let long = vec![0x7F; 100_000];
        assert_eq!(cmp(&d, &dec(&long, 0), &dec(&[1], -250_000)), Less);
        assert_eq!(cmp(&d, &dec(&long, 0), &dec(&[1], -240_000)), Greater);
        assert_eq!(cmp(&d, &dec(&[0xFF], -250_000), &dec(&long, 0)), Less);
    }

    #[test]
    fn floats_follow_java_compare() {
        use CqlValue as V;
        ascending(
            &ColumnType::Double,
            &[
                V::Empty,
                V::Double(f64::NEG_INFINITY),
                V::Double(-1.5),
                V::Double(-0.0),
                V::Double(0.0),
                V::Double(f64::MIN_POSITIVE),
                V::Double(f64::INFINITY),
                V::Double(f64::NAN),
            ],
        );
        ascending(
            &ColumnType::Float,
            &[
                V::Float(-0.0),
                V::Float(0.0),
                V::Float(f32::INFINITY),
                V::Float(f32::NAN),
            ],
        );
        let other_nan = f32::from_bits(0xFFC0_0001);
        assert_eq!(
            cmp(
                &ColumnType::Float,
                &V::Float(f32::NAN),
                &V::Float(other_nan)
            ),
            Equal
        );
        let other_nan = f64::from_bits(0xFFF8_0000_0000_0001);
        assert_eq!(
            cmp(
                &ColumnType::Double,
                &V::Double(other_nan),
                &V::Double(f64::INFINITY)
            ),
            Greater
        );
    }

    #[test]
    fn bytewise_types() {
        use CqlValue as V;
        ascending(
            &ColumnType::Boolean,
            &[V::Empty, V::Boolean(false), V::Boolean(true)],
        );
        assert_eq!(compare(&ColumnType::Boolean, &[1], &[7]), Equal);
        ascending(
            &ColumnType::Text,
            &[
                V::Text("".into()),
                V::Text("A".into()),
                V::Text("a".into()),
                V::Text("ab".into()),
                V::Text("é".into()),
            ],
        );
        ascending(
            &ColumnType::Ascii,
            &[V::Ascii("a".into()), V::Ascii("b".into())],
        );
        ascending(
            &ColumnType::Blob,
            &[
                V::Blob(vec![]),
                V::Blob(vec![0x00]),
                V::Blob(vec![0x7F]),
                V::Blob(vec![0x80]),
            ],
        );
        ascending(
            &ColumnType::Inet,
            &[
                "::1".parse().map(V::Inet).unwrap(),
                "10.0.0.1".parse().map(V::Inet).unwrap(),
                "192.168.0.1".parse().map(V::Inet).unwrap(),
            ],
        );
        ascending(
            &ColumnType::Date,
            &[
                V::Date(0),
                V::Date((1 << 31) - 1),
                V::Date(1 << 31),
                V::Date(u32::MAX),
            ],
        );
        ascending(
            &ColumnType::Time,
            &[V::Time(0), V::Time(1), V::Time(86_399_999_999_999)],
        );
        ascending(
            &ColumnType::Duration,
            &[
                V::Duration {
                    months: 0,
                    days: 0,
                    nanoseconds: 1,
                },
                V::Duration {
                    months: 1,
                    days: 0,
                    nanoseconds: 0,
                },
            ],
        );
    }

    fn uuid(text: &str) -> uuid::Uuid {
        uuid::Uuid::parse_str(text).unwrap()
    }

    #[test]
    fn uuids_compare_like_uuid_type() {
        use CqlValue as V;
        // Version first: a v1 sorts before a v4 whatever its bytes.
        ascending(
            &ColumnType::Uuid,
            &[
                V::Empty,
                V::Uuid(uuid("ffffffff-ffff-1fff-bfff-ffffffffffff")),
                V::Uuid(uuid("00000000-0000-4000-8000-000000000000")),
                V::Uuid(uuid("00000000-0000-4000-8000-000000000001")),
                V::Uuid(uuid("00000000-0000-4000-ff00-000000000000")),
            ],
        );
        // Version 1 by time: time_hi beats time_low; then unsigned clock/node.
        ascending(
            &ColumnType::Uuid,
            &[
                V::Uuid(uuid("ffffffff-0000-1000-8000-000000000000")),
                V::Uuid(uuid("00000000-0000-1001-8000-000000000000")),
                V::Uuid(uuid("00000000-0000-1001-ff00-000000000000")),
            ],
        );
    }

    #[test]
    fn timeuuids_compare_by_time_then_signed_bytes() {
        use CqlValue as V;
        ascending(
            &ColumnType::Timeuuid,
            &[
                V::Empty,
                V::Timeuuid(uuid("ffffffff-ffff-1000-8000-000000000000")),
                V::Timeuuid(uuid("00000000-0000-1001-0000-000000000000")),
                V::Timeuuid(uuid("00000001-0000-1001-0000-000000000000")),
            ],
        );
        // Same time: 0x80.. (negative as a signed byte) sorts before 0x7F.. (unlike UUIDType).
        let low = V::Timeuuid(uuid("00000000-0000-1000-8000-000000000000"));
        let high = V::Timeuuid(uuid("00000000-0000-1000-7f00-000000000000"));
        assert_eq!(cmp(&ColumnType::Timeuuid, &low, &high), Less);
        assert_eq!(cmp(&ColumnType::Uuid, &low, &high), Greater);
    }

    #[test]
    fn frozen_collections_compare_element_wise_then_by_size() {
        use CqlValue as V;
        let list = ColumnType::List {
            element: Box::new(ColumnType::Int),
            frozen: true,
        };
        ascending(
            &list,
            &[
                V::Empty,
                V::List(vec![]),
                V::List(vec![V::Int(-1)]),
                V::List(vec![V::Int(-1), V::Int(0)]),
                V::List(vec![V::Int(0)]),
            ],
        );
        let map = ColumnType::Map {
            key: Box::new(ColumnType::Text),
            value: Box::new(ColumnType::Int),
            frozen: true,
        };
        let entry = |k: &str, v: i32| (V::Text(k.into()), V::Int(v));
        ascending(
            &map,
            &[
                V::Map(vec![entry("a", 5)]),
                V::Map(vec![entry("a", 6)]),
                V::Map(vec![entry("a", 6), entry("b", 0)]),
                V::Map(vec![entry("b", -9)]),
            ],
        );
        // Malformed input falls back to bytes instead of panicking.
        assert_eq!(compare(&list, &[0, 0, 0, 5, 0], &[0, 0, 0, 5, 1]), Less);
    }

    #[test]
    fn tuples_and_udts_put_null_first_and_ignore_trailing_nulls() {
        use CqlValue as V;
        let tuple = ColumnType::Tuple(vec![ColumnType::Int, ColumnType::Text]);
        ascending(
            &tuple,
            &[
                V::Empty,
                V::Tuple(vec![None, Some(V::Text("z".into()))]),
                V::Tuple(vec![Some(V::Int(-1)), None]),
                V::Tuple(vec![Some(V::Int(-1)), Some(V::Text("".into()))]),
                V::Tuple(vec![Some(V::Int(-1)), Some(V::Text("a".into()))]),
                V::Tuple(vec![Some(V::Int(2))]),
            ],
        );
        let short = ser(&V::Tuple(vec![Some(V::Int(1))]));
        let padded = ser(&V::Tuple(vec![Some(V::Int(1)), None]));
        assert_eq!(compare(&tuple, &short, &padded), Equal);
        let longer = ser(&V::Tuple(vec![Some(V::Int(1)), Some(V::Text("".into()))]));
        assert_eq!(compare(&tuple, &short, &longer), Less);
        let udt = ColumnType::Udt {
            keyspace: "ks".into(),
            name: "u".into(),
            fields: vec![("a".into(), ColumnType::Boolean)],
            frozen: true,
        };
        ascending(
            &udt,
            &[
                V::Udt(vec![("a".into(), None)]),
                V::Udt(vec![("a".into(), Some(V::Boolean(false)))]),
            ],
        );
    }

    #[test]
    fn hostile_input_never_panics() {
        let types = [
            ColumnType::Int,
            ColumnType::Decimal,
            ColumnType::Varint,
            ColumnType::Uuid,
            ColumnType::Timeuuid,
            ColumnType::Float,
            ColumnType::Tuple(vec![ColumnType::Int]),
            ColumnType::Map {
                key: Box::new(ColumnType::Int),
                value: Box::new(ColumnType::Int),
                frozen: true,
            },
        ];
        let inputs: [&[u8]; 6] = [
            &[],
            &[0x80],
            &[0xFF; 5],
            &[0x7F, 0xFF, 0xFF, 0xFF, 1],
            &[0; 17],
            &[0xFF; 16],
        ];
        for ty in &types {
            for a in inputs {
                for b in inputs {
                    let _ = compare(ty, a, b);
                }
            }
        }
    }
}
