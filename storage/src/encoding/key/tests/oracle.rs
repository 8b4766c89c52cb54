//! The test oracle: Cassandra's comparators (`db/marshal/*Type.compare`) written again from
//! their Java sources, independently of the encoder and of `cql::types::ordering`.

use std::cmp::Ordering;

use cql::types::ColumnType;
use uuid::Uuid;

fn java_float_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        // -0.0 < 0.0 in Java's compare; otherwise numeric order.
        _ if a == b => b.is_sign_negative().cmp(&a.is_sign_negative()),
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// Cassandra's pre-4.0 `UUIDType.compare`: version, then timestamp for v1, then unsigned bytes.
fn uuid_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (va, vb) = (a[6] >> 4, b[6] >> 4);
    if va != vb {
        return va.cmp(&vb);
    }
    if va == 1 {
        let order = [6, 7, 4, 5, 0, 1, 2, 3];
        let ta: Vec<u8> = order
            .iter()
            .map(|&i| if i == 6 { a[i] & 0xF } else { a[i] })
            .collect();
        let tb: Vec<u8> = order
            .iter()
            .map(|&i| if i == 6 { b[i] & 0xF } else { b[i] })
            .collect();
        if ta != tb {
            return ta.cmp(&tb);
        }
    }
    a.cmp(b)
}

/// `TimeUUIDType`: the 60-bit timestamp, then the low 8 bytes as signed bytes.
fn timeuuid_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let ts = |u: &[u8]| {
        let u = Uuid::from_slice(u).unwrap();
        let f = u.as_fields();
        (u64::from(f.2 & 0x0FFF) << 48) | (u64::from(f.1) << 32) | u64::from(f.0)
    };
    ts(a).cmp(&ts(b)).then_with(|| {
        let sa: Vec<i8> = a[8..].iter().map(|&x| x as i8).collect();
        let sb: Vec<i8> = b[8..].iter().map(|&x| x as i8).collect();
        sa.cmp(&sb)
    })
}

/// The integer a varint of any length holds.
pub(super) fn varint_value(v: &[u8]) -> num_bigint::BigInt {
    num_bigint::BigInt::from_signed_bytes_be(v)
}

/// CQL order of two serialized values of type `ty` (empty first).
pub(super) fn cql_cmp(ty: &ColumnType, a: &[u8], b: &[u8]) -> Ordering {
    if a.is_empty() || b.is_empty() {
        return b.is_empty().cmp(&a.is_empty());
    }
    match ty {
        ColumnType::Int => i32::from_be_bytes(a.try_into().unwrap())
            .cmp(&i32::from_be_bytes(b.try_into().unwrap())),
        ColumnType::Bigint | ColumnType::Timestamp => i64::from_be_bytes(a.try_into().unwrap())
            .cmp(&i64::from_be_bytes(b.try_into().unwrap())),
        ColumnType::Smallint => i16::from_be_bytes(a.try_into().unwrap())
            .cmp(&i16::from_be_bytes(b.try_into().unwrap())),
        ColumnType::Tinyint => (a[0] as i8).cmp(&(b[0] as i8)),
        ColumnType::Date => u32::from_be_bytes(a.try_into().unwrap())
            .cmp(&u32::from_be_bytes(b.try_into().unwrap())),
        ColumnType::Boolean => (a[0] != 0).cmp(&(b[0] != 0)),
        ColumnType::Float => java_float_cmp(
            f64::from(f32::from_be_bytes(a.try_into().unwrap())),
            f64::from(f32::from_be_bytes(b.try_into().unwrap())),
        ),
        ColumnType::Double => java_float_cmp(
            f64::from_be_bytes(a.try_into().unwrap()),
            f64::from_be_bytes(b.try_into().unwrap()),
        ),
        ColumnType::Uuid => uuid_cmp(a, b),
        ColumnType::Timeuuid => timeuuid_cmp(a, b),
        ColumnType::Varint => varint_value(a).cmp(&varint_value(b)),
        ColumnType::Decimal => decimal_cmp(a, b),
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
            collection_cmp(&[element.as_ref()], a, b)
        }
        ColumnType::Map { key, value, .. } => collection_cmp(&[key.as_ref(), value.as_ref()], a, b),
        ColumnType::Tuple(types) => fields_cmp(&types.iter().collect::<Vec<_>>(), a, b),
        ColumnType::Udt { fields, .. } => {
            fields_cmp(&fields.iter().map(|(_, ty)| ty).collect::<Vec<_>>(), a, b)
        }
        ColumnType::Vector { element, dimension } => {
            let split = |v| cql::types::vector::split(element, *dimension, v).unwrap();
            split(a)
                .iter()
                .zip(split(b))
                .map(|(x, y)| cql_cmp(element, x, y))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        }
        ColumnType::Custom(_) => match cql::types::marshal::Composite::of(ty) {
            Some(cql::types::marshal::Composite::Static(types)) => {
                let types: Vec<(ColumnType, bool)> =
                    types.into_iter().map(|c| (c.ty, c.reversed)).collect();
                composite_cmp(&types, a, b)
            }
            Some(cql::types::marshal::Composite::Dynamic(_)) => dynamic_cmp(a, b),
            None => a.cmp(b),
        },
        _ => a.cmp(b),
    }
}

/// `AbstractCompositeType.compareCustom`: while both have components, by value (the
/// component's type), then by end-of-component byte (signed); then the shorter first.
/// A reversed component (`ReversedType`) compares its values the other way.
fn composite_cmp(types: &[(ColumnType, bool)], mut a: &[u8], mut b: &[u8]) -> Ordering {
    let mut i = 0;
    while !a.is_empty() && !b.is_empty() {
        let take = |v: &mut &[u8]| {
            let len = usize::from(u16::from_be_bytes([v[0], v[1]]));
            let value = v[2..2 + len].to_vec();
            let eoc = v[2 + len] as i8;
            *v = &v[3 + len..];
            (value, eoc)
        };
        let ((x, ex), (y, ey)) = (take(&mut a), take(&mut b));
        let (ty, reversed) = &types[i];
        let order = cql_cmp(ty, &x, &y);
        let order = if *reversed { order.reverse() } else { order };
        let order = order.then(ex.cmp(&ey));
        if order.is_ne() {
            return order;
        }
        i += 1;
    }
    b.is_empty().cmp(&a.is_empty())
}

/// The value the key decodes to: equal under CQL order, in canonical form.
pub(super) fn canonical(ty: &ColumnType, v: &[u8]) -> Vec<u8> {
    match ty {
        _ if v.is_empty() => Vec::new(),
        ColumnType::Boolean => vec![u8::from(v[0] != 0)],
        ColumnType::Float if f32::from_be_bytes(v.try_into().unwrap()).is_nan() => {
            f32::NAN.to_bits().to_be_bytes().to_vec()
        }
        ColumnType::Double if f64::from_be_bytes(v.try_into().unwrap()).is_nan() => {
            f64::NAN.to_bits().to_be_bytes().to_vec()
        }
        ColumnType::Varint => varint_value(v).to_signed_bytes_be(),
        _ => v.to_vec(),
    }
}

/// Decimal digits (most significant first, no leading zeros) of a two's-complement integer
/// of any length, by long division of its magnitude by ten.
fn magnitude_digits(v: &[u8]) -> (bool, Vec<u8>) {
    let negative = v[0] & 0x80 != 0;
    let mut magnitude: Vec<u8> = v.to_vec();
    if negative {
        // Negate: invert, add one (with a spare leading byte for -2^(8n-1)).
        magnitude.insert(0, 0xFF);
        for b in &mut magnitude {
            *b = !*b;
        }
        for b in magnitude.iter_mut().rev() {
            let (sum, carry) = b.overflowing_add(1);
            *b = sum;
            if !carry {
                break;
            }
        }
    }
    let mut digits = Vec::new();
    while magnitude.iter().any(|b| *b != 0) {
        let mut rem = 0u32;
        for b in &mut magnitude {
            let cur = (rem << 8) | u32::from(*b);
            *b = (cur / 10) as u8;
            rem = cur % 10;
        }
        digits.push(rem as u8);
    }
    digits.reverse();
    (negative, digits)
}

/// `BigDecimal.compareTo` for unscaled values within i128: the sign, then the position of the
/// leading digit, then the digits with the decimal points aligned.
fn decimal_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let parse = |v: &[u8]| {
        let scale = i64::from(i32::from_be_bytes(v[..4].try_into().unwrap()));
        let (negative, digits) = magnitude_digits(&v[4..]);
        let sign = if digits.is_empty() {
            0
        } else if negative {
            -1
        } else {
            1
        };
        let leading = digits.len() as i64 - 1 - scale;
        (sign, leading, digits)
    };
    let (sa, la, mut da) = parse(a);
    let (sb, lb, mut db) = parse(b);
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let magnitude = la.cmp(&lb).then_with(|| {
        let len = da.len().max(db.len());
        da.resize(len, 0);
        db.resize(len, 0);
        da.cmp(&db)
    });
    if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// Splits off one `[bytes]` element: `None` for null.
fn element<'a>(buf: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = i32::from_be_bytes(buf[..4].try_into().unwrap());
    *buf = &buf[4..];
    let len = usize::try_from(len).ok()?;
    let (value, rest) = buf.split_at(len);
    *buf = rest;
    Some(value)
}

fn element_cmp(ty: &ColumnType, a: Option<&[u8]>, b: Option<&[u8]>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => cql_cmp(ty, a, b),
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

/// `CollectionType.compareListOrSet` / `MapType.compareMaps`: entries pairwise, then size.
fn collection_cmp(entry: &[&ColumnType], a: &[u8], b: &[u8]) -> Ordering {
    let size = |v: &[u8]| i32::from_be_bytes(v[..4].try_into().unwrap());
    let (size_a, size_b) = (size(a), size(b));
    let (mut ra, mut rb) = (&a[4..], &b[4..]);
    for _ in 0..size_a.min(size_b) {
        for ty in entry {
            let order = element_cmp(ty, element(&mut ra), element(&mut rb));
            if order != Ordering::Equal {
                return order;
            }
        }
    }
    size_a.cmp(&size_b)
}

/// `TupleType.compareCustom`: fields while both sides have some (null first), then a side
/// with a non-null field left is larger.
fn fields_cmp(types: &[&ColumnType], a: &[u8], b: &[u8]) -> Ordering {
    let (mut ra, mut rb) = (a, b);
    let mut i = 0;
    while !ra.is_empty() && !rb.is_empty() && i < types.len() {
        let order = element_cmp(types[i], element(&mut ra), element(&mut rb));
        if order != Ordering::Equal {
            return order;
        }
        i += 1;
    }
    let all_null = |mut rest: &[u8]| {
        while !rest.is_empty() {
            if element(&mut rest).is_some() {
                return false;
            }
        }
        true
    };
    if all_null(ra) && all_null(rb) {
        Ordering::Equal
    } else if ra.is_empty() {
        Ordering::Less
    } else if all_null(ra) {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

/// `DynamicCompositeType.compare` for the test's type (`s => UTF8Type, i => Int32Type,
/// I => ReversedType(Int32Type)`): per component, the comparators' classes first (simple
/// name, then full name; `ReversedType` is a class of its own unless both sides are
/// reversed), then the value by the comparator, then the end-of-component byte (signed);
/// then the shorter first.
fn dynamic_cmp(mut a: &[u8], mut b: &[u8]) -> Ordering {
    // (class simple name, reversed, CQL type) of the comparator a header names.
    let comparator = |header: &[u8]| -> (&'static str, bool, ColumnType) {
        let header = header
            .strip_prefix(b"org.apache.cassandra.db.marshal.")
            .unwrap_or(header);
        match header {
            b"s" | b"UTF8Type" => ("UTF8Type", false, ColumnType::Text),
            b"i" => ("Int32Type", false, ColumnType::Int),
            b"I" => ("Int32Type", true, ColumnType::Int),
            b"LongType" => ("LongType", false, ColumnType::Bigint),
            b"BytesType" => ("BytesType", false, ColumnType::Blob),
            other => panic!("header {other:?}"),
        }
    };
    let take = |v: &mut &[u8]| {
        let header = u16::from_be_bytes([v[0], v[1]]);
        let (name, rest) = if header & 0x8000 != 0 {
            (vec![header as u8], &v[2..])
        } else {
            let len = usize::from(header);
            (v[2..2 + len].to_vec(), &v[2 + len..])
        };
        let len = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
        let value = rest[2..2 + len].to_vec();
        let eoc = rest[2 + len] as i8;
        *v = &rest[3 + len..];
        (name, value, eoc)
    };
    while !a.is_empty() && !b.is_empty() {
        let ((na, x, ex), (nb, y, ey)) = (take(&mut a), take(&mut b));
        let (ca, ra, ta) = comparator(&na);
        let (cb, rb, _) = comparator(&nb);
        // Every class here is in Cassandra's package: the full names order as the simple.
        let class = |c: &'static str, reversed: bool, other_reversed: bool| {
            if reversed && !other_reversed {
                "ReversedType"
            } else {
                c
            }
        };
        let order = class(ca, ra, rb).cmp(class(cb, rb, ra)).then_with(|| {
            let order = cql_cmp(&ta, &x, &y);
            if ra {
                order.reverse()
            } else {
                order
            }
        });
        let order = order.then(ex.cmp(&ey));
        if order.is_ne() {
            return order;
        }
    }
    b.is_empty().cmp(&a.is_empty())
}
