//! Proptest generators of serialized key values, one per key type, biased towards the edge
//! cases of each order: empty values, -0.0 and NaNs, equal high halves of UUIDs, varints and
//! decimals of every length and sign (and decimals equal in value but not in bytes), nulls and
//! missing trailing fields in tuples, nested frozen collections.

use cql::types::ColumnType;
use proptest::prelude::*;

use super::oracle::canonical;

fn frozen_list(element: ColumnType) -> ColumnType {
    ColumnType::List {
        element: Box::new(element),
        frozen: true,
    }
}

fn frozen_set(element: ColumnType) -> ColumnType {
    ColumnType::Set {
        element: Box::new(element),
        frozen: true,
    }
}

fn frozen_map(key: ColumnType, value: ColumnType) -> ColumnType {
    ColumnType::Map {
        key: Box::new(key),
        value: Box::new(value),
        frozen: true,
    }
}

fn vector(element: ColumnType, dimension: u32) -> ColumnType {
    ColumnType::Vector {
        element: Box::new(element),
        dimension,
    }
}

/// `dimension` elements of `element` joined as a vector; fixed-size elements are never empty.
fn vector_value(element: &ColumnType, dimension: u32) -> BoxedStrategy<Vec<u8>> {
    let item = if cql::types::vector::fixed_size(element).is_some() {
        present_value(element)
    } else {
        value_of(element)
    };
    let element = element.clone();
    proptest::collection::vec(item, dimension as usize)
        .prop_map(move |items| {
            let parts: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
            cql::types::vector::join(&element, &parts)
        })
        .boxed()
}

/// Every type a primary key may have (nested ones as representative shapes).
pub(super) fn key_types() -> Vec<ColumnType> {
    use ColumnType as T;
    vec![
        T::Int,
        T::Bigint,
        T::Smallint,
        T::Tinyint,
        T::Boolean,
        T::Float,
        T::Double,
        T::Text,
        T::Ascii,
        T::Blob,
        T::Timestamp,
        T::Date,
        T::Time,
        T::Uuid,
        T::Timeuuid,
        T::Varint,
        T::Decimal,
        T::Inet,
        frozen_list(T::Int),
        frozen_set(T::Text),
        frozen_map(T::Int, T::Boolean),
        frozen_list(frozen_map(T::Text, T::Decimal)),
        frozen_set(frozen_list(T::Varint)),
        T::Tuple(vec![T::Int, T::Text, T::Double]),
        T::Tuple(vec![
            frozen_list(T::Timeuuid),
            T::Tuple(vec![T::Decimal, T::Blob]),
        ]),
        vector(T::Float, 3),
        vector(T::Int, 2),
        vector(T::Text, 2),
        vector(frozen_list(T::Decimal), 2),
        T::Udt {
            keyspace: "ks".into(),
            name: "u".into(),
            fields: vec![("a".into(), T::Uuid), ("b".into(), frozen_set(T::Float))],
            frozen: true,
        },
        composite(),
    ]
}

/// `CompositeType(UTF8Type, Int32Type)`, a custom type named by its Java class.
pub(super) fn composite() -> ColumnType {
    cql::types::marshal::parse_class("CompositeType(UTF8Type, Int32Type)").unwrap()
}

/// `CompositeType(UTF8Type, ReversedType(Int32Type))`: a component in reverse order.
pub(super) fn reversed_composite() -> ColumnType {
    cql::types::marshal::parse_class("CompositeType(UTF8Type, ReversedType(Int32Type))").unwrap()
}

/// `DynamicCompositeType(s => UTF8Type, i => Int32Type, I => ReversedType(Int32Type))`.
pub(super) fn dynamic_composite() -> ColumnType {
    cql::types::marshal::parse_class(
        "DynamicCompositeType(s => UTF8Type, i => Int32Type, I => ReversedType(Int32Type))",
    )
    .unwrap()
}

/// The headers a [`dynamic_composite`] value's components are drawn with, and the type each
/// names: the three aliases, and classes written three ways (one of them an aliased type's).
pub(super) const DYNAMIC_HEADERS: [(&str, ColumnType); 6] = [
    ("s", ColumnType::Text),
    ("i", ColumnType::Int),
    ("I", ColumnType::Int),
    ("UTF8Type", ColumnType::Text),
    (
        "org.apache.cassandra.db.marshal.LongType",
        ColumnType::Bigint,
    ),
    ("BytesType", ColumnType::Blob),
];

/// A [`dynamic_composite`] value: up to three components, each with a header of
/// [`DYNAMIC_HEADERS`] and a value of its type, the last ending with an end-of-component
/// byte of 0, 1 or -1.
pub(super) fn dynamic_composite_value() -> BoxedStrategy<Vec<u8>> {
    let component = proptest::sample::select((0..DYNAMIC_HEADERS.len()).collect::<Vec<_>>())
        .prop_flat_map(|h| (Just(h), value_of(&DYNAMIC_HEADERS[h].1)));
    (
        proptest::collection::vec(component, 0..=3),
        prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8)],
    )
        .prop_map(|(parts, eoc)| {
            use cql::types::composite::Header;
            let mut out = Vec::new();
            for (h, value) in &parts {
                let name = DYNAMIC_HEADERS[*h].0;
                let header = match name.as_bytes() {
                    [alias] => Header::Alias(*alias),
                    _ => Header::Class(name),
                };
                cql::types::composite::write_component(&mut out, Some(header), value).unwrap();
            }
            cql::types::composite::end_last_component(&mut out, eoc);
            out
        })
        .boxed()
}

/// A `CompositeType` value of `types`: some leading components (trailing ones may be left
/// out), the last one ending with an end-of-component byte of 0, 1 or -1.
fn composite_value(types: Vec<ColumnType>) -> BoxedStrategy<Vec<u8>> {
    let count = types.len();
    let parts: Vec<BoxedStrategy<Vec<u8>>> = types.iter().map(value_of).collect();
    (
        parts,
        0..=count,
        prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8)],
    )
        .prop_map(|(parts, used, eoc)| {
            let mut out = Vec::new();
            for part in &parts[..used] {
                cql::types::composite::write_component(&mut out, None, part).unwrap();
            }
            cql::types::composite::end_last_component(&mut out, eoc);
            out
        })
        .boxed()
}

fn special_floats() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::NAN),
        Just(-f64::NAN),
        Just(f64::MIN_POSITIVE),
        any::<f64>(),
        -10.0f64..10.0,
    ]
}

fn uuid_bytes(version: u8) -> impl Strategy<Value = Vec<u8>> {
    (any::<[u8; 16]>(), any::<bool>()).prop_map(move |(mut b, small)| {
        if small {
            // Equal high halves, so the low half decides.
            b[..8].fill(0x11);
        }
        b[6] = (b[6] & 0x0F) | (version << 4);
        b.to_vec()
    })
}

/// Two's complement of `x`, with a redundant sign byte now and then (Cassandra accepts them).
fn varint_of(x: i128, redundant: bool) -> Vec<u8> {
    with_sign_byte(canonical(&ColumnType::Varint, &x.to_be_bytes()), redundant)
}

/// `bytes` with a redundant leading sign byte when `redundant`.
fn with_sign_byte(mut bytes: Vec<u8>, redundant: bool) -> Vec<u8> {
    if redundant {
        let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
        bytes.insert(0, if negative { 0xFF } else { 0x00 });
    }
    bytes
}

/// Varints beyond 128 bits (17 to 40 bytes), some sharing long prefixes so that the low
/// bytes decide.
fn long_varint() -> BoxedStrategy<Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 17..40),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(mut bytes, shared_prefix, redundant)| {
            if shared_prefix {
                bytes[..12].fill(0x5A);
            }
            with_sign_byte(canonical(&ColumnType::Varint, &bytes), redundant)
        })
        .boxed()
}

fn decimal() -> BoxedStrategy<Vec<u8>> {
    // Small unscaled values and scales make numerically equal pairs (1.0 and 1.00) common.
    let unscaled = prop_oneof![
        -200i128..200,
        (-99i128..99, 0u32..20).prop_map(|(x, zeros)| x * 10i128.pow(zeros)),
        any::<i64>().prop_map(i128::from),
        any::<i128>().prop_map(|x| x / 10),
    ];
    let scale =
        prop_oneof![4 => -4i32..6, 1 => any::<i32>(), 1 => Just(i32::MIN), 1 => Just(i32::MAX)];
    let unscaled = prop_oneof![
        4 => (unscaled, any::<bool>()).prop_map(|(x, redundant)| varint_of(x, redundant)),
        1 => long_varint(),
    ];
    (unscaled, scale)
        .prop_map(|(unscaled, scale)| {
            let mut out = scale.to_be_bytes().to_vec();
            out.extend_from_slice(&unscaled);
            out
        })
        .boxed()
}

fn element(out: &mut Vec<u8>, value: Option<&[u8]>) {
    match value {
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        Some(v) => {
            out.extend_from_slice(&(v.len() as i32).to_be_bytes());
            out.extend_from_slice(v);
        }
    }
}

fn collection(entry: Vec<BoxedStrategy<Vec<u8>>>) -> BoxedStrategy<Vec<u8>> {
    proptest::collection::vec(entry, 0..4)
        .prop_map(|entries| {
            let mut out = (entries.len() as i32).to_be_bytes().to_vec();
            for part in entries.iter().flatten() {
                element(&mut out, Some(part));
            }
            out
        })
        .boxed()
}

fn fields(types: Vec<&ColumnType>) -> BoxedStrategy<Vec<u8>> {
    let arity = types.len();
    let fields: Vec<_> = types
        .into_iter()
        .map(|ty| proptest::option::weighted(0.75, value_of(ty)))
        .collect();
    // Values may stop early (trailing fields missing), as after ALTER TYPE ADD.
    (fields, 0..=arity)
        .prop_map(|(fields, keep)| {
            let keep = keep.max(1);
            let mut out = Vec::new();
            for field in fields.iter().take(keep) {
                element(&mut out, field.as_deref());
            }
            out
        })
        .boxed()
}

fn present_value(ty: &ColumnType) -> BoxedStrategy<Vec<u8>> {
    match ty {
        ColumnType::Custom(_) => match cql::types::marshal::Composite::of(ty) {
            Some(cql::types::marshal::Composite::Static(types)) => {
                composite_value(types.into_iter().map(|class| class.ty).collect())
            }
            _ => any::<Vec<u8>>().boxed(),
        },
        ColumnType::Int => any::<i32>().prop_map(|x| x.to_be_bytes().to_vec()).boxed(),
        ColumnType::Bigint | ColumnType::Timestamp => {
            any::<i64>().prop_map(|x| x.to_be_bytes().to_vec()).boxed()
        }
        ColumnType::Time => prop_oneof![0i64..86_400_000_000_000, any::<i64>()]
            .prop_map(|x| x.to_be_bytes().to_vec())
            .boxed(),
        ColumnType::Smallint => any::<i16>().prop_map(|x| x.to_be_bytes().to_vec()).boxed(),
        ColumnType::Tinyint => any::<i8>().prop_map(|x| x.to_be_bytes().to_vec()).boxed(),
        ColumnType::Date => any::<u32>().prop_map(|x| x.to_be_bytes().to_vec()).boxed(),
        ColumnType::Boolean => any::<u8>().prop_map(|x| vec![x]).boxed(),
        ColumnType::Float => special_floats()
            .prop_map(|x| (x as f32).to_be_bytes().to_vec())
            .boxed(),
        ColumnType::Double => special_floats()
            .prop_map(|x| x.to_be_bytes().to_vec())
            .boxed(),
        ColumnType::Uuid => prop_oneof![uuid_bytes(1), uuid_bytes(4), uuid_bytes(3)].boxed(),
        ColumnType::Timeuuid => uuid_bytes(1).boxed(),
        ColumnType::Varint => prop_oneof![
            3 => (
                prop_oneof![
                    any::<i64>().prop_map(i128::from),
                    any::<i128>(),
                    -300i128..300
                ],
                any::<bool>(),
            )
                .prop_map(|(x, redundant)| varint_of(x, redundant)),
            1 => long_varint(),
        ]
        .boxed(),
        ColumnType::Decimal => decimal(),
        ColumnType::Inet => prop_oneof![
            any::<[u8; 4]>().prop_map(|b| b.to_vec()),
            any::<[u8; 16]>().prop_map(|b| b.to_vec())
        ]
        .boxed(),
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
            collection(vec![value_of(element)])
        }
        ColumnType::Map { key, value, .. } => collection(vec![value_of(key), value_of(value)]),
        ColumnType::Tuple(types) => fields(types.iter().collect()),
        ColumnType::Udt { fields: f, .. } => fields(f.iter().map(|(_, ty)| ty).collect()),
        ColumnType::Vector { element, dimension } => vector_value(element, *dimension),
        _ => proptest::collection::vec(
            prop_oneof![Just(0u8), Just(0xFF), Just(1), any::<u8>()],
            1..12,
        )
        .boxed(),
    }
}

/// A serialized value of `ty`, empty now and then.
pub(super) fn value_of(ty: &ColumnType) -> BoxedStrategy<Vec<u8>> {
    prop_oneof![1 => Just(Vec::new()), 12 => present_value(ty)].boxed()
}
