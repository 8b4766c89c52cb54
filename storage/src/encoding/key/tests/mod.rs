//! Property tests: encoded byte order equals Cassandra's order (reversed under DESC) for every
//! key type, decoding inverts encoding (up to values Cassandra calls equal), and components
//! are prefix-free. Two oracles judge: [`oracle`], written from Cassandra's comparators, and
//! `cql::types::ordering`; they must agree with each other too.

mod generators;
mod oracle;

use std::cmp::Ordering;

use bytes::Bytes;
use cql::types::ColumnType;
use proptest::prelude::*;

use super::*;
use crate::catalog::tests::sample_table;
use generators::key_types;
use generators::value_of;
use oracle::canonical;
use oracle::cql_cmp;

fn encode_one(ty: &ColumnType, desc: bool, v: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    component::encode(ty, desc, v, &mut out).unwrap();
    out
}

fn typed_pair() -> impl Strategy<Value = (ColumnType, Vec<u8>, Vec<u8>, bool)> {
    proptest::sample::select(key_types()).prop_flat_map(|ty| {
        (
            Just(ty.clone()),
            value_of(&ty),
            value_of(&ty),
            any::<bool>(),
        )
    })
}

/// Whether decoding gives back the very bytes written (otherwise an equal value in canonical
/// form: decimals, and the nested types that may hold one or drop trailing nulls), and a
/// partition-key component is the clustering one (custom types keep their bytes there).
fn decodes_exactly(ty: &ColumnType) -> bool {
    !matches!(
        ty,
        ColumnType::Custom(_)
            | ColumnType::Decimal
            | ColumnType::List { .. }
            | ColumnType::Set { .. }
            | ColumnType::Map { .. }
            | ColumnType::Tuple(_)
            | ColumnType::Udt { .. }
            | ColumnType::Vector { .. }
    )
}

/// Encoded `CompositeType` values of `ty` order as both oracles say (reversed under `desc`)
/// and decode to exactly what was written.
fn composite_orders_and_decodes(
    ty: &ColumnType,
    a: &[u8],
    b: &[u8],
    desc: bool,
) -> Result<(), TestCaseError> {
    let expected = cql_cmp(ty, a, b);
    prop_assert_eq!(expected, cql::types::ordering::compare(ty, a, b));
    let expected = if desc { expected.reverse() } else { expected };
    let (ea, eb) = (encode_one(ty, desc, a), encode_one(ty, desc, b));
    prop_assert_eq!(ea.cmp(&eb), expected, "{:?} {:?}", a, b);
    let (value, used) = component::decode(ty, desc, &ea).unwrap();
    prop_assert_eq!((value, used), (a.to_vec(), ea.len()));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// `CompositeType` clustering values: component-wise order, both directions, and exact
    /// decoding (the shared tests draw it among every key type; this one only).
    #[test]
    fn composite_order_is_component_order(
        a in value_of(&generators::composite()),
        b in value_of(&generators::composite()),
        desc in any::<bool>(),
    ) {
        composite_orders_and_decodes(&generators::composite(), &a, &b, desc)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// A `CompositeType` with a `ReversedType` component: that component sorts the other way.
    #[test]
    fn reversed_composite_components_sort_backwards(
        a in value_of(&generators::reversed_composite()),
        b in value_of(&generators::reversed_composite()),
        desc in any::<bool>(),
    ) {
        composite_orders_and_decodes(&generators::reversed_composite(), &a, &b, desc)?;
    }

    /// `DynamicCompositeType` clustering values: types first, then values (reversed for a
    /// reversed alias), both directions; decoding gives a value that compares equal and
    /// encodes the same (headers come back as the declaration's alias, else the full class).
    #[test]
    fn dynamic_composite_order_is_type_then_value(
        a in generators::dynamic_composite_value(),
        b in generators::dynamic_composite_value(),
        desc in any::<bool>(),
    ) {
        let ty = generators::dynamic_composite();
        let expected = cql_cmp(&ty, &a, &b);
        prop_assert_eq!(expected, cql::types::ordering::compare(&ty, &a, &b));
        let expected = if desc { expected.reverse() } else { expected };
        let (ea, eb) = (encode_one(&ty, desc, &a), encode_one(&ty, desc, &b));
        prop_assert_eq!(ea.cmp(&eb), expected, "{:?} {:?}", a, b);
        if ea != eb {
            prop_assert!(!eb.starts_with(&ea) && !ea.starts_with(&eb));
        }
        let (value, used) = component::decode(&ty, desc, &ea).unwrap();
        prop_assert_eq!(used, ea.len());
        prop_assert_eq!(cql_cmp(&ty, &value, &a), Ordering::Equal);
        prop_assert_eq!(encode_one(&ty, desc, &value), ea);
    }
}

#[test]
fn dynamic_composite_headers_decode_as_the_declaration_names_them() {
    use cql::types::composite::{write_component, Header};
    let ty = generators::dynamic_composite();
    let mut written = Vec::new();
    write_component(&mut written, Some(Header::Class("UTF8Type")), b"x").unwrap();
    write_component(
        &mut written,
        Some(Header::Class("LongType")),
        &7i64.to_be_bytes(),
    )
    .unwrap();
    let (value, _) = component::decode(&ty, false, &encode_one(&ty, false, &written)).unwrap();
    let mut expected = Vec::new();
    write_component(&mut expected, Some(Header::Alias(b's')), b"x").unwrap();
    let long = "org.apache.cassandra.db.marshal.LongType";
    write_component(
        &mut expected,
        Some(Header::Class(long)),
        &7i64.to_be_bytes(),
    )
    .unwrap();
    assert_eq!(value, expected);
    // A header naming no type is refused, not stored.
    let mut unknown = Vec::new();
    write_component(&mut unknown, Some(Header::Alias(b'z')), b"x").unwrap();
    let mut out = Vec::new();
    let err = component::encode(&ty, false, &unknown, &mut out).unwrap_err();
    assert!(
        err.to_string()
            .contains("Cannot find comparator for component 0"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn byte_order_is_cql_order((ty, a, b, desc) in typed_pair()) {
        let (ea, eb) = (encode_one(&ty, desc, &a), encode_one(&ty, desc, &b));
        let expected = cql_cmp(&ty, &a, &b);
        prop_assert_eq!(expected, cql::types::ordering::compare(&ty, &a, &b), "oracles disagree");
        let expected = if desc { expected.reverse() } else { expected };
        prop_assert_eq!(ea.cmp(&eb), expected, "{} {:?} {:?}", ty, a, b);
        // Prefix-free: a strict prefix would make the composite order wrong.
        if ea != eb {
            prop_assert!(!eb.starts_with(&ea) && !ea.starts_with(&eb));
        }
    }

    #[test]
    fn decode_inverts_encode((ty, a, _b, desc) in typed_pair(), tail in any::<Vec<u8>>()) {
        let mut enc = encode_one(&ty, desc, &a);
        let len = enc.len();
        enc.extend_from_slice(&tail);
        let (value, used) = component::decode(&ty, desc, &enc).unwrap();
        prop_assert_eq!(used, len);
        if decodes_exactly(&ty) {
            prop_assert_eq!(value, canonical(&ty, &a));
        } else {
            prop_assert_eq!(cql_cmp(&ty, &value, &a), Ordering::Equal, "{} {:?}", ty, value);
            prop_assert_eq!(encode_one(&ty, desc, &value), enc[..len].to_vec());
            let valid = |v: &[u8]| cql::types::codec::validate_value(&ty, v).is_ok();
            prop_assert!(valid(&value) || !valid(&a));
        }
    }

    #[test]
    fn partition_components_keep_their_bytes((ty, a, b, _desc) in typed_pair()) {
        let encode = |v: &[u8]| {
            let mut out = Vec::new();
            component::encode_partition(&ty, v, &mut out).unwrap();
            out
        };
        let (ea, eb) = (encode(&a), encode(&b));
        if decodes_exactly(&ty) {
            prop_assert_eq!(&ea, &encode_one(&ty, false, &a));
        } else {
            // Byte identity, as Cassandra's partition keys: distinct bytes, distinct keys.
            prop_assert_eq!(ea == eb, a == b);
            let (value, used) = component::decode_partition(&ty, &ea).unwrap();
            prop_assert_eq!((value, used), (a.clone(), ea.len()));
        }
        if ea != eb {
            prop_assert!(!eb.starts_with(&ea) && !ea.starts_with(&eb));
        }
    }

    #[test]
    fn composite_keys_compare_componentwise(
        columns in proptest::collection::vec(
            (proptest::sample::select(key_types()), any::<bool>()), 2..=3),
        seed in any::<u64>(),
    ) {
        let mut runner = proptest::test_runner::TestRunner::new_with_rng(
            ProptestConfig::default(),
            proptest::test_runner::TestRng::from_seed(
                proptest::test_runner::RngAlgorithm::ChaCha, &[seed as u8; 32]),
        );
        let row = |runner: &mut proptest::test_runner::TestRunner| -> Vec<Vec<u8>> {
            columns.iter().map(|(ty, _)| {
                value_of(ty).new_tree(runner).unwrap().current()
            }).collect()
        };
        let (a, mut b) = (row(&mut runner), row(&mut runner));
        // Share leading values often, so later components decide.
        let shared = ((seed % 3) as usize).min(a.len() - 1);
        b[..shared].clone_from_slice(&a[..shared]);
        let encode = |vals: &[Vec<u8>]| {
            let ck: Vec<_> = columns.iter().zip(vals).map(|((ty, desc), v)| {
                let order = if *desc { ClusteringOrder::Desc } else { ClusteringOrder::Asc };
                (ty, order, v.as_slice())
            }).collect();
            let mut out = Vec::new();
            encode_clustering(&ck, &mut out).unwrap();
            out
        };
        let expected = columns.iter().zip(a.iter().zip(&b)).fold(Ordering::Equal, |acc, ((ty, desc), (x, y))| {
            acc.then_with(|| {
                let o = cql_cmp(ty, x, y);
                if *desc { o.reverse() } else { o }
            })
        });
        prop_assert_eq!(encode(&a).cmp(&encode(&b)), expected);
    }
}

#[test]
fn token_bytes_order_is_numeric_order() {
    let tokens = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
    for w in tokens.windows(2) {
        assert!(token_bytes(w[0]) < token_bytes(w[1]));
    }
}

#[test]
fn row_keys_round_trip_through_the_table() {
    let t = sample_table();
    let pk = [
        Bytes::from(7i32.to_be_bytes().to_vec()),
        Bytes::from_static(b"a\0b"),
    ];
    let ck = [
        Bytes::from(3i64.to_be_bytes().to_vec()),
        Bytes::from_static(b"zz"),
    ];
    let key = row_key(&t, &pk, &ck).unwrap();
    let decoded = decode_row_key(&t, &key).unwrap();
    let refs: Vec<&[u8]> = pk.iter().map(|b| b.as_ref()).collect();
    assert_eq!(decoded.token, token_of(&refs));
    assert_eq!(decoded.partition, pk);
    assert_eq!(decoded.clustering, ck);
    let prefix = partition_key(&t, &pk).unwrap();
    assert_eq!(decoded.partition_len, prefix.len());
    assert!(key.starts_with(&prefix));
    // The static row (no clustering) sorts before every clustering row of its partition.
    let static_key = row_key(&t, &pk, &[]).unwrap();
    assert_eq!(static_key, prefix);
    assert!(static_key < key);
    let end = prefix_end(&prefix).unwrap();
    assert!(key < end);
    // A clustering prefix bounds the slice.
    let slice = row_key(&t, &pk, &ck[..1]).unwrap();
    assert!(slice < key && key < prefix_end(&slice).unwrap());
}

#[test]
fn bad_keys_are_rejected() {
    let t = sample_table();
    let pk = [Bytes::from_static(b"123"), Bytes::from_static(b"a")];
    assert!(matches!(
        partition_key(&t, &pk),
        Err(StorageError::InvalidKeyValue { .. })
    ));
    assert!(partition_key(&t, &pk[..1]).is_err());
    let mut out = Vec::new();
    let dur = ColumnType::Duration;
    assert!(matches!(
        encode_clustering(&[(&dur, ClusteringOrder::Asc, b"x")], &mut out),
        Err(StorageError::UnsupportedKeyType { .. })
    ));
    assert!(matches!(
        decode_row_key(&t, &[0x80, 0, 0, 0, 0, 0, 0, 0, 0x07]),
        Err(StorageError::Corrupt { .. })
    ));
}

#[test]
fn prefix_end_skips_trailing_ff() {
    assert_eq!(prefix_end(&[1, 2, 0xFF]), Some(vec![1, 3]));
    assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
    assert_eq!(prefix_end(&[]), None);
}

fn decimal(unscaled: i128, scale: i32) -> Vec<u8> {
    let mut out = scale.to_be_bytes().to_vec();
    out.extend_from_slice(&canonical(&ColumnType::Varint, &unscaled.to_be_bytes()));
    out
}

fn decimal_round_trip(value: &[u8]) -> Vec<u8> {
    let enc = encode_one(&ColumnType::Decimal, false, value);
    component::decode(&ColumnType::Decimal, false, &enc)
        .unwrap()
        .0
}

#[test]
fn decimals_decode_to_their_canonical_form() {
    // Trailing zeros go; integers stay integers; huge exponents stay exponents.
    assert_eq!(decimal_round_trip(&decimal(10, 1)), decimal(1, 0));
    assert_eq!(decimal_round_trip(&decimal(-150, 2)), decimal(-15, 1));
    assert_eq!(decimal_round_trip(&decimal(1230, 0)), decimal(1230, 0));
    assert_eq!(decimal_round_trip(&decimal(123, -1)), decimal(1230, 0));
    assert_eq!(decimal_round_trip(&decimal(0, 7)), decimal(0, 0));
    assert_eq!(
        decimal_round_trip(&decimal(1, -i32::MAX)),
        decimal(1, -i32::MAX)
    );
    // Stripping zeros would take the scale below i32::MIN: keep enough of them.
    assert_eq!(
        decimal_round_trip(&decimal(100, i32::MIN)),
        decimal(100, i32::MIN)
    );
    let one = encode_one(&ColumnType::Decimal, false, &decimal(1, 0));
    for same in [decimal(10, 1), decimal(1000, 3)] {
        assert_eq!(encode_one(&ColumnType::Decimal, false, &same), one);
    }
}

#[test]
fn decimals_of_far_apart_scales_sort_numerically() {
    let values = [
        decimal(-19_866_597_869_857_659_876_855, -1_000_000_000),
        decimal(-19_866_597_869_857_659_876_855, 1_000_000_000),
        decimal(0, 5),
        decimal(19_866_597_869_857_659_876_855, 1_000_000_000),
        decimal(3, 0),
        decimal(314, 2),
        decimal(19_866_597_869_857_659_876_855, -1_000_000_000),
    ];
    for desc in [false, true] {
        let keys: Vec<_> = values
            .iter()
            .map(|v| encode_one(&ColumnType::Decimal, desc, v))
            .collect();
        for pair in keys.windows(2) {
            assert_eq!(pair[0] < pair[1], !desc);
        }
    }
}

#[test]
fn tuples_decode_with_every_field() {
    let ty = ColumnType::Tuple(vec![ColumnType::Int, ColumnType::Text, ColumnType::Int]);
    let mut short = vec![0, 0, 0, 4, 0, 0, 0, 7];
    let enc = encode_one(&ty, true, &short);
    let (value, _) = component::decode(&ty, true, &enc).unwrap();
    short.extend_from_slice(&[0xFF; 8]);
    assert_eq!(value, short, "missing trailing fields come back as nulls");
    let too_long = [short.clone(), vec![0, 0, 0, 0]].concat();
    assert!(matches!(
        component::encode(&ty, false, &too_long, &mut Vec::new()),
        Err(StorageError::InvalidKeyValue { .. })
    ));
}

#[test]
fn decimal_partition_keys_are_identified_by_bytes() {
    let mut t = sample_table();
    for column in t.columns.iter_mut().filter(|c| c.name == "p") {
        column.ty = ColumnType::Decimal;
    }
    let (a, b) = (decimal(10, 1), decimal(1, 0));
    let pk = |v: &[u8]| [Bytes::from(v.to_vec()), Bytes::from_static(b"x")];
    let (ka, kb) = (
        partition_key(&t, &pk(&a)).unwrap(),
        partition_key(&t, &pk(&b)).unwrap(),
    );
    assert_ne!(ka, kb);
    assert_eq!(decode_row_key(&t, &ka).unwrap().partition, pk(&a));
}
