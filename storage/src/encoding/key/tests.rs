//! Property tests: encoded byte order equals CQL order (reversed under DESC), decoding
//! inverts encoding, and components are prefix-free. The oracle below is written from
//! Cassandra's comparators independently of the encoder.

use std::cmp::Ordering;

use bytes::Bytes;
use cql::types::ColumnType;
use proptest::prelude::*;
use uuid::Uuid;

use super::*;
use crate::catalog::tests::sample_table;

const KEY_TYPES: &[ColumnType] = &[
    ColumnType::Int,
    ColumnType::Bigint,
    ColumnType::Smallint,
    ColumnType::Tinyint,
    ColumnType::Boolean,
    ColumnType::Float,
    ColumnType::Double,
    ColumnType::Text,
    ColumnType::Ascii,
    ColumnType::Blob,
    ColumnType::Timestamp,
    ColumnType::Date,
    ColumnType::Time,
    ColumnType::Uuid,
    ColumnType::Timeuuid,
    ColumnType::Varint,
    ColumnType::Inet,
];

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

fn varint_value(v: &[u8]) -> i128 {
    let mut x: i128 = if v[0] & 0x80 != 0 { -1 } else { 0 };
    for &b in v {
        x = (x << 8) | i128::from(b);
    }
    x
}

/// CQL order of two serialized values of type `ty` (empty first).
fn cql_cmp(ty: &ColumnType, a: &[u8], b: &[u8]) -> Ordering {
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
        _ => a.cmp(b),
    }
}

/// The value the key decodes to: equal under CQL order, in canonical form.
fn canonical(ty: &ColumnType, v: &[u8]) -> Vec<u8> {
    match ty {
        _ if v.is_empty() => Vec::new(),
        ColumnType::Boolean => vec![u8::from(v[0] != 0)],
        ColumnType::Float if f32::from_be_bytes(v.try_into().unwrap()).is_nan() => {
            f32::NAN.to_bits().to_be_bytes().to_vec()
        }
        ColumnType::Double if f64::from_be_bytes(v.try_into().unwrap()).is_nan() => {
            f64::NAN.to_bits().to_be_bytes().to_vec()
        }
        ColumnType::Varint => {
            let x = varint_value(v);
            let bytes = x.to_be_bytes();
            let mut start = 0;
            while start < 15 {
                let (b, next) = (bytes[start], bytes[start + 1]);
                if (b == 0 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0) {
                    start += 1;
                } else {
                    break;
                }
            }
            bytes[start..].to_vec()
        }
        _ => v.to_vec(),
    }
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

fn value_of(ty: &ColumnType) -> BoxedStrategy<Vec<u8>> {
    let present: BoxedStrategy<Vec<u8>> = match ty {
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
            any::<i64>().prop_map(i128::from),
            any::<i128>(),
            -300i128..300
        ]
        .prop_map(|x| canonical(&ColumnType::Varint, &x.to_be_bytes()))
        .boxed(),
        ColumnType::Inet => prop_oneof![
            any::<[u8; 4]>().prop_map(|b| b.to_vec()),
            any::<[u8; 16]>().prop_map(|b| b.to_vec())
        ]
        .boxed(),
        _ => proptest::collection::vec(
            prop_oneof![Just(0u8), Just(0xFF), Just(1), any::<u8>()],
            1..12,
        )
        .boxed(),
    };
    prop_oneof![1 => Just(Vec::new()), 12 => present].boxed()
}

fn encode_one(ty: &ColumnType, desc: bool, v: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    component::encode(ty, desc, v, &mut out).unwrap();
    out
}

fn typed_pair() -> impl Strategy<Value = (ColumnType, Vec<u8>, Vec<u8>, bool)> {
    proptest::sample::select(KEY_TYPES).prop_flat_map(|ty| {
        (
            Just(ty.clone()),
            value_of(&ty),
            value_of(&ty),
            any::<bool>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn byte_order_is_cql_order((ty, a, b, desc) in typed_pair()) {
        let (ea, eb) = (encode_one(&ty, desc, &a), encode_one(&ty, desc, &b));
        let expected = cql_cmp(&ty, &a, &b);
        // Two independent oracles: the one above and the cql crate's.
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
        prop_assert_eq!(value, canonical(&ty, &a));
    }

    #[test]
    fn composite_keys_compare_componentwise(
        columns in proptest::collection::vec(
            (proptest::sample::select(KEY_TYPES), any::<bool>()), 2..=3),
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
