//! The codec's unit tests: round trips, Cassandra's messages for malformed values.

use super::*;

fn bytes_of(value: &CqlValue) -> Vec<u8> {
    let mut out = Vec::new();
    serialize_value(value, &mut out);
    out
}

fn round_trip(ty: &ColumnType, value: CqlValue) {
    let bytes = bytes_of(&value);
    assert_eq!(validate_value(ty, &bytes), Ok(()), "{ty}");
    assert_eq!(deserialize_value(ty, &bytes), Ok(value), "{ty}");
}

fn list(element: ColumnType) -> ColumnType {
    ColumnType::List {
        element: Box::new(element),
        frozen: true,
    }
}

fn err(ty: &ColumnType, bytes: &[u8]) -> String {
    let validated = validate_value(ty, bytes).unwrap_err();
    let decoded = deserialize_value(ty, bytes).unwrap_err();
    assert_eq!(
        validated, decoded,
        "validate and deserialize disagree for {ty}"
    );
    decoded.to_string()
}

#[test]
fn every_scalar_type_round_trips() {
    use ColumnType as T;
    let time_uuid = Uuid::parse_str("8e14e760-7fa8-11eb-bc66-000000000001").unwrap();
    let cases = [
        (T::Ascii, CqlValue::Ascii("abc".into())),
        (T::Bigint, CqlValue::Bigint(-1)),
        (T::Blob, CqlValue::Blob(vec![0, 255])),
        (T::Boolean, CqlValue::Boolean(true)),
        (T::Counter, CqlValue::Counter(7)),
        (
            T::Decimal,
            CqlValue::Decimal {
                unscaled: vec![0x04, 0xD2],
                scale: 2,
            },
        ),
        (T::Double, CqlValue::Double(-0.5)),
        (T::Float, CqlValue::Float(1.25)),
        (T::Int, CqlValue::Int(i32::MIN)),
        (T::Timestamp, CqlValue::Timestamp(1_600_000_000_000)),
        (T::Uuid, CqlValue::Uuid(Uuid::from_u128(5))),
        (T::Text, CqlValue::Text("héllo".into())),
        (T::Varint, CqlValue::Varint(vec![0xFF, 0x7F])),
        (T::Timeuuid, CqlValue::Timeuuid(time_uuid)),
        (T::Inet, CqlValue::Inet("10.0.0.1".parse().unwrap())),
        (T::Inet, CqlValue::Inet("::1".parse().unwrap())),
        (T::Date, CqlValue::Date(1 << 31)),
        (T::Time, CqlValue::Time(86_399_999_999_999)),
        (T::Smallint, CqlValue::Smallint(-2)),
        (T::Tinyint, CqlValue::Tinyint(-128)),
        (
            T::Duration,
            CqlValue::Duration {
                months: 1,
                days: 2,
                nanoseconds: 3_000_000_000,
            },
        ),
        (
            T::Duration,
            CqlValue::Duration {
                months: -14,
                days: 0,
                nanoseconds: i64::MIN,
            },
        ),
        (
            T::Duration,
            CqlValue::Duration {
                months: i32::MAX,
                days: i32::MAX,
                nanoseconds: i64::MAX,
            },
        ),
        (T::Custom("x.Y".into()), CqlValue::Blob(vec![1])),
    ];
    for (ty, value) in cases {
        round_trip(&ty, value);
    }
}

#[test]
fn byte_exact_encodings() {
    assert_eq!(bytes_of(&CqlValue::Int(1)), [0, 0, 0, 1]);
    assert_eq!(
        bytes_of(&CqlValue::Duration {
            months: 1,
            days: 2,
            nanoseconds: 3
        }),
        [2, 4, 6]
    );
    assert_eq!(
        bytes_of(&CqlValue::Duration {
            months: 0,
            days: 0,
            nanoseconds: -64
        }),
        [0, 0, 127]
    );
    assert_eq!(
        bytes_of(&CqlValue::Duration {
            months: 0,
            days: 0,
            nanoseconds: 64
        }),
        [0, 0, 0x80, 0x80]
    );
    assert_eq!(
        bytes_of(&CqlValue::List(vec![CqlValue::Tinyint(5)])),
        [0, 0, 0, 1, 0, 0, 0, 1, 5]
    );
    assert_eq!(
        bytes_of(&CqlValue::Tuple(vec![Some(CqlValue::Boolean(false)), None])),
        [0, 0, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF]
    );
}

#[test]
fn nested_types_round_trip() {
    let udt = ColumnType::Udt {
        keyspace: "ks".into(),
        name: "u".into(),
        fields: vec![
            ("a".into(), ColumnType::Int),
            ("b".into(), list(ColumnType::Text)),
        ],
        frozen: true,
    };
    round_trip(
        &udt,
        CqlValue::Udt(vec![
            ("a".into(), Some(CqlValue::Int(1))),
            (
                "b".into(),
                Some(CqlValue::List(vec![CqlValue::Text("x".into())])),
            ),
        ]),
    );
    round_trip(
        &udt,
        CqlValue::Udt(vec![("a".into(), None), ("b".into(), None)]),
    );
    // Fewer fields than the type: the rest are null.
    assert_eq!(
        deserialize_value(&udt, &[0, 0, 0, 4, 0, 0, 0, 9]),
        Ok(CqlValue::Udt(vec![
            ("a".into(), Some(CqlValue::Int(9))),
            ("b".into(), None)
        ]))
    );
    let map = ColumnType::Map {
        key: Box::new(ColumnType::Text),
        value: Box::new(ColumnType::Set {
            element: Box::new(ColumnType::Int),
            frozen: true,
        }),
        frozen: false,
    };
    round_trip(
        &map,
        CqlValue::Map(vec![
            (
                CqlValue::Text("k".into()),
                CqlValue::Set(vec![CqlValue::Int(1), CqlValue::Int(2)]),
            ),
            (CqlValue::Text("".into()), CqlValue::Set(vec![])),
        ]),
    );
    let tuple = ColumnType::Tuple(vec![ColumnType::Int, ColumnType::Text, ColumnType::Uuid]);
    round_trip(
        &tuple,
        CqlValue::Tuple(vec![Some(CqlValue::Int(3)), None, Some(CqlValue::Empty)]),
    );
}

#[test]
fn empty_values_follow_cassandra() {
    use ColumnType as T;
    for ty in [
        T::Int,
        T::Bigint,
        T::Boolean,
        T::Decimal,
        T::Double,
        T::Float,
        T::Timestamp,
        T::Uuid,
        T::Timeuuid,
        T::Varint,
        T::Inet,
        T::Tuple(vec![T::Int]),
    ] {
        assert_eq!(deserialize_value(&ty, &[]), Ok(CqlValue::Empty), "{ty}");
    }
    assert_eq!(
        deserialize_value(&T::Text, &[]),
        Ok(CqlValue::Text(String::new()))
    );
    assert_eq!(deserialize_value(&T::Blob, &[]), Ok(CqlValue::Blob(vec![])));
    assert_eq!(
        err(&T::Smallint, &[]),
        "Expected 2 bytes for a smallint (0)"
    );
    assert_eq!(err(&T::Tinyint, &[]), "Expected 1 byte for a tinyint (0)");
    assert_eq!(err(&T::Date, &[]), "Expected 4 byte long for date (0)");
    assert_eq!(err(&T::Time, &[]), "Expected 8 byte long for time (0)");
    assert_eq!(
        err(&T::Duration, &[]),
        "Expected at least 3 bytes for a duration (0)"
    );
    assert_eq!(err(&list(T::Int), &[]), "Not enough bytes to read a list");
}

#[test]
fn wrong_sizes_and_contents_are_rejected_with_cassandra_messages() {
    use ColumnType as T;
    assert_eq!(err(&T::Int, &[0, 0, 1]), "Expected 4 or 0 byte int (3)");
    assert_eq!(err(&T::Bigint, &[0; 5]), "Expected 8 or 0 byte long (5)");
    assert_eq!(err(&T::Boolean, &[0; 2]), "Expected 1 or 0 byte value (2)");
    assert_eq!(
        err(&T::Double, &[0; 4]),
        "Expected 8 or 0 byte value for a double (4)"
    );
    assert_eq!(
        err(&T::Float, &[0; 8]),
        "Expected 4 or 0 byte value for a float (8)"
    );
    assert_eq!(
        err(&T::Timestamp, &[0; 4]),
        "Expected 8 or 0 byte long for date (4)"
    );
    assert_eq!(err(&T::Uuid, &[0; 15]), "UUID should be 16 or 0 bytes (15)");
    assert_eq!(
        err(&T::Timeuuid, &[0; 16]),
        "Invalid version for TimeUUID type."
    );
    assert_eq!(
        err(&T::Decimal, &[0; 3]),
        "Expected 0 or at least 4 bytes (3)"
    );
    assert_eq!(err(&T::Decimal, &[0; 4]), "Zero length BigInteger");
    assert_eq!(
        err(&T::Inet, &[1, 2, 3]),
        "Expected 4 or 16 byte inetaddress; got 010203"
    );
    assert_eq!(err(&T::Text, &[b'a', 0xC3]), "String didn't validate.");
    assert_eq!(
        err(&T::Ascii, &[b'a', 0xC3, 0xA9]),
        "Invalid byte for ascii: -61"
    );
    assert_eq!(
        err(&T::Duration, &[0xFF, 0, 0]),
        "Not enough bytes to read a duration"
    );
    assert_eq!(
        err(&T::Duration, &[2, 1, 0]),
        "The duration months, days and nanoseconds must be all of the same sign (1, -1, 0)"
    );
    let mut big_months = Vec::new();
    write_vint(&mut big_months, 1 << 40);
    big_months.extend_from_slice(&[0, 0]);
    assert_eq!(
        err(&T::Duration, &big_months),
        "The duration months must be a 32 bits integer but was: 1099511627776"
    );
}

#[test]
fn malformed_collections_and_tuples_are_rejected() {
    use ColumnType as T;
    let ints = list(T::Int);
    assert_eq!(
        err(&ints, &[0, 0, 0, 1, 0, 0, 0, 4, 0]),
        "Not enough bytes to read a list"
    );
    assert_eq!(
        err(&ints, &[0, 0, 0, 0, 9]),
        "Unexpected extraneous bytes after list value"
    );
    assert_eq!(
        err(&ints, &[0xFF, 0xFF, 0xFF, 0xFF]),
        "The data cannot be deserialized as a list"
    );
    assert_eq!(
        err(&ints, &[0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]),
        "null is not supported inside collections"
    );
    assert_eq!(
        err(&ints, &[0, 0, 0, 1, 0, 0, 0, 1, 0]),
        "Expected 4 or 0 byte int (1)"
    );
    // A count of 2^31-1 in a tiny value fails without allocating for it, even when the
    // next length reads as null.
    assert_eq!(
        err(&ints, &[0x7F, 0xFF, 0xFF, 0xFF]),
        "Not enough bytes to read a list"
    );
    assert_eq!(
        err(&ints, &[0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        "Not enough bytes to read a list"
    );
    // Sets and maps read each element as non-null first (Cassandra's CollectionsTest).
    let set = T::Set {
        element: Box::new(T::Int),
        frozen: true,
    };
    assert_eq!(
        err(&set, &[0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        "Null value read when not allowed"
    );
    assert_eq!(
        err(&set, &[0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]),
        "Null value read when not allowed"
    );
    let map = T::Map {
        key: Box::new(T::Int),
        value: Box::new(T::Int),
        frozen: true,
    };
    assert_eq!(
        err(&map, &[0, 0, 0, 1, 0, 0, 0, 0]),
        "Not enough bytes to read a map"
    );
    assert_eq!(
        err(&map, &[0, 0, 0, 1, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]),
        "Null value read when not allowed"
    );
    let tuple = T::Tuple(vec![T::Int]);
    assert_eq!(
        err(&tuple, &[0, 0]),
        "Not enough bytes to read size of 0th component"
    );
    assert_eq!(
        err(&tuple, &[0, 0, 0, 4, 1]),
        "Not enough bytes to read 0th component"
    );
    assert_eq!(
        err(&tuple, &[0xFF, 0xFF, 0xFF, 0xFF, 1]),
        "Invalid remaining data after end of tuple value"
    );
    let udt = T::Udt {
        keyspace: "k".into(),
        name: "u".into(),
        fields: vec![("f".into(), T::Int)],
        frozen: true,
    };
    assert_eq!(
        err(&udt, &[0, 0, 0, 9]),
        "Not enough bytes to read 0th field f"
    );
    assert_eq!(
        err(&udt, &[0xFF, 0xFF, 0xFF, 0xFF, 0]),
        "Invalid remaining data after end of UDT value"
    );
}

#[test]
fn deep_nesting_is_refused() {
    let mut ty = ColumnType::Int;
    let mut value = CqlValue::Int(1);
    for _ in 0..MAX_VALUE_DEPTH + 1 {
        ty = list(ty);
        value = CqlValue::List(vec![value]);
    }
    let bytes = bytes_of(&value);
    assert_eq!(
        err(&ty, &bytes),
        format!("Value nested deeper than {MAX_VALUE_DEPTH} levels")
    );
}

#[test]
fn varints_are_normalized_and_vints_round_trip() {
    assert_eq!(
        deserialize_value(&ColumnType::Varint, &[0, 0, 0x7F]),
        Ok(CqlValue::Varint(vec![0x7F]))
    );
    assert_eq!(
        deserialize_value(&ColumnType::Varint, &[0xFF, 0xFF, 0x80]),
        Ok(CqlValue::Varint(vec![0x80]))
    );
    assert_eq!(minimal_varint(&[0x00, 0x80]), &[0x00, 0x80]);
}

#[test]
fn composite_values_are_validated_as_cassandra_validates_them() {
    let ty = crate::types::marshal::parse_class("CompositeType(AsciiType, Int32Type)").unwrap();
    let check = |bytes: &[u8]| validate_value(&ty, bytes).map_err(|e| e.to_string());
    assert_eq!(check(&[0, 1, b'a', 0, 0, 4, 0, 0, 0, 1, 0]), Ok(()));
    assert_eq!(check(&[0, 1, b'a', 1]), Ok(()));
    assert_eq!(check(&[]), Ok(()));
    assert_eq!(
        check(&[0]),
        Err("Not enough bytes to read value size of component 0".to_string())
    );
    assert_eq!(
        check(&[0, 1, b'a', 0, 0, 5]),
        Err("Not enough bytes to read value of component 1".to_string())
    );
    assert_eq!(
        check(&[0, 1, b'a']),
        Err("Not enough bytes to read the end-of-component byte of component0".to_string())
    );
    assert_eq!(
        check(&[0, 1, b'a', 1, 0, 4, 0, 0, 0, 1, 0]),
        Err("Invalid bytes remaining after an end-of-component at component0".to_string())
    );
    assert_eq!(
        check(&[0, 1, b'a', 0, 0, 2, 0, 1, 0]),
        Err("Expected 4 or 0 byte int (2)".to_string())
    );
    assert_eq!(
        check(&[0, 0, 0, 0, 0, 0, 0, 0, 0]),
        Err("Too many bytes for comparator".to_string())
    );
}
