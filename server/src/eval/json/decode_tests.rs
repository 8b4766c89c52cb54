use super::*;
use crate::eval::json::value::parse;
use uuid::Uuid;

fn dec(ty: &ColumnType, text: &str) -> Decoded {
    decode(ty, &parse(text).unwrap())
}

fn ok(ty: &ColumnType, text: &str) -> CqlValue {
    dec(ty, text).unwrap().unwrap()
}

fn err(ty: &ColumnType, text: &str) -> String {
    dec(ty, text).unwrap_err().to_string()
}

#[test]
fn integers_from_numbers_and_strings() {
    assert_eq!(ok(&ColumnType::Int, "123123"), CqlValue::Int(123123));
    assert_eq!(ok(&ColumnType::Int, "\"123123\""), CqlValue::Int(123123));
    assert_eq!(
        ok(&ColumnType::Bigint, "1.23456789E+9"),
        CqlValue::Bigint(1234567890)
    );
    assert_eq!(ok(&ColumnType::Tinyint, "-128"), CqlValue::Tinyint(-128));
    assert_eq!(
        err(&ColumnType::Int, "2147483648"),
        "Unable to make int from '2147483648'"
    );
    assert_eq!(
        err(&ColumnType::Int, "\"xyzz\""),
        "Unable to make int from 'xyzz'"
    );
    assert_eq!(
        err(&ColumnType::Int, "123.456"),
        "Expected an int value, but got a Double: 123.456"
    );
    assert_eq!(
        err(&ColumnType::Int, "true"),
        "Expected an int value, but got a Boolean: true"
    );
    assert_eq!(
        ok(
            &ColumnType::Varint,
            "\"1234567890123456789012345678901234567890\""
        ),
        CqlValue::Varint(
            cql::types::number_text::varint_from_text("1234567890123456789012345678901234567890")
                .unwrap()
        )
    );
    assert!(dec(&ColumnType::Varint, "\"\"").is_err());
}

#[test]
fn floats_decimals_booleans() {
    assert_eq!(
        ok(&ColumnType::Double, "123123"),
        CqlValue::Double(123123.0)
    );
    assert_eq!(
        ok(&ColumnType::Float, "\"123123.0\""),
        CqlValue::Float(123123.0)
    );
    assert!(dec(&ColumnType::Double, "true").is_err());
    assert_eq!(
        ok(&ColumnType::Decimal, "\"-1.23E-12\""),
        crate::eval::literals::decimal("-1.23E-12").unwrap()
    );
    assert_eq!(
        err(&ColumnType::Decimal, "\"xyzz\""),
        "Value 'xyzz' is not a valid representation of a decimal value"
    );
    assert_eq!(
        ok(&ColumnType::Boolean, "\"false\""),
        CqlValue::Boolean(false)
    );
    assert_eq!(
        err(&ColumnType::Boolean, "\"abc\""),
        "Unable to make boolean from 'abc'"
    );
    assert!(dec(&ColumnType::Boolean, "123").is_err());
}

#[test]
fn strings_blobs_and_time_types() {
    assert_eq!(
        ok(&ColumnType::Text, "\"\\u2013\""),
        CqlValue::Text("\u{2013}".into())
    );
    assert_eq!(
        err(&ColumnType::Text, "123"),
        "Expected a UTF-8 string, but got a Integer: 123"
    );
    assert!(dec(&ColumnType::Ascii, "\"\\u1fff\"").is_err());
    assert_eq!(
        ok(&ColumnType::Blob, "\"0x00000001\""),
        CqlValue::Blob(vec![0, 0, 0, 1])
    );
    assert_eq!(
        err(&ColumnType::Blob, "\"123\""),
        "String representation of blob is missing 0x prefix: 123"
    );
    assert!(dec(&ColumnType::Blob, "\"0x123\"").is_err());
    assert_eq!(
        ok(&ColumnType::Timestamp, "123123123123"),
        CqlValue::Timestamp(123123123123)
    );
    assert_eq!(
        ok(&ColumnType::Timestamp, "\"2014-01-01\""),
        CqlValue::Timestamp(1388534400000)
    );
    assert!(dec(&ColumnType::Timestamp, "123.456").is_err());
    assert!(
        err(&ColumnType::Date, "\"xyz\"").starts_with("Unable to coerce 'xyz' to a formatted date")
    );
    assert!(dec(&ColumnType::Date, "123").is_err());
    assert_eq!(
        ok(&ColumnType::Time, "\"07:35:07.000111222\""),
        CqlValue::Time(27_307_000_111_222)
    );
    let u = Uuid::parse_str("6bddc89a-5644-11e4-97fc-56847afe9799").unwrap();
    assert_eq!(
        ok(
            &ColumnType::Timeuuid,
            "\"6BDDC89A-5644-11E4-97FC-56847AFE9799\""
        ),
        CqlValue::Timeuuid(u)
    );
    assert!(dec(
        &ColumnType::Timeuuid,
        "\"00000000-0000-0000-0000-000000000000\""
    )
    .is_err());
    assert_eq!(
        ok(&ColumnType::Inet, "\"::1\""),
        CqlValue::Inet("::1".parse().unwrap())
    );
    assert!(dec(&ColumnType::Duration, "\"xyz\"").is_err());
    assert_eq!(dec(&ColumnType::Int, "null").unwrap(), None);
}

fn list(element: ColumnType) -> ColumnType {
    ColumnType::List {
        element: Box::new(element),
        frozen: false,
    }
}

#[test]
fn collections_tuples_udts() {
    assert_eq!(
        ok(&list(ColumnType::Int), "[1, 2]"),
        CqlValue::List(vec![CqlValue::Int(1), CqlValue::Int(2)])
    );
    assert_eq!(
        err(&list(ColumnType::Int), "[null]"),
        "Invalid null element in list"
    );
    assert_eq!(
        err(&list(ColumnType::Int), "123"),
        "Expected a list, but got a Integer: 123"
    );
    let set = ColumnType::Set {
        element: Box::new(ColumnType::Int),
        frozen: true,
    };
    assert_eq!(
        ok(&set, "[2, 1, 2]"),
        CqlValue::Set(vec![CqlValue::Int(1), CqlValue::Int(2)])
    );
    let map = ColumnType::Map {
        key: Box::new(ColumnType::Int),
        value: Box::new(ColumnType::Text),
        frozen: false,
    };
    assert_eq!(
        ok(&map, r#"{"2": "b", "1": "a"}"#),
        CqlValue::Map(vec![
            (CqlValue::Int(1), CqlValue::Text("a".into())),
            (CqlValue::Int(2), CqlValue::Text("b".into())),
        ])
    );
    assert_eq!(err(&map, r#"{"1": null}"#), "Invalid null value in map");
    let frozen_key = ColumnType::Map {
        key: Box::new(ColumnType::Tuple(vec![ColumnType::Text, ColumnType::Int])),
        value: Box::new(ColumnType::Int),
        frozen: true,
    };
    assert_eq!(
        ok(&frozen_key, r#"{"[\"a\", 1]": 3}"#),
        CqlValue::Map(vec![(
            CqlValue::Tuple(vec![
                Some(CqlValue::Text("a".into())),
                Some(CqlValue::Int(1))
            ]),
            CqlValue::Int(3)
        )])
    );
    let tuple = ColumnType::Tuple(vec![ColumnType::Int, ColumnType::Text]);
    assert_eq!(
        ok(&tuple, "[1, null]"),
        CqlValue::Tuple(vec![Some(CqlValue::Int(1)), None])
    );
    assert_eq!(
        err(&tuple, "[1]"),
        "Tuple is missing items (expected 2, got 1)"
    );
    assert_eq!(
        err(&tuple, "[1, \"a\", 3]"),
        "Tuple contains extra items (expected 2, got 3)"
    );
    let udt = ColumnType::Udt {
        keyspace: "ks".into(),
        name: "u".into(),
        fields: vec![
            ("a".into(), ColumnType::Int),
            ("Foo".into(), ColumnType::Int),
        ],
        frozen: true,
    };
    assert_eq!(
        ok(&udt, r#"{"\"Foo\"": 2, "A": 1}"#),
        CqlValue::Udt(vec![
            ("a".into(), Some(CqlValue::Int(1))),
            ("Foo".into(), Some(CqlValue::Int(2)))
        ])
    );
    assert_eq!(
        err(&udt, r#"{"xxx": 1}"#),
        "Unknown field 'xxx' in value of user defined type u"
    );
}

#[test]
fn durations_in_every_form_cassandra_reads() {
    let d = |months, days, nanoseconds| CqlValue::Duration {
        months,
        days,
        nanoseconds,
    };
    let t = ColumnType::Duration;
    assert_eq!(ok(&t, "\"12µs\""), d(0, 0, 12_000));
    assert_eq!(ok(&t, "\"1y1mo2d10h5m\""), d(13, 2, 36_300_000_000_000));
    assert_eq!(ok(&t, "\"-2w\""), d(0, -14, 0));
    assert_eq!(ok(&t, "\"P1Y1M2DT10H5M\""), d(13, 2, 36_300_000_000_000));
    assert_eq!(
        ok(&t, "\"P0001-01-02T10:05:00\""),
        d(13, 2, 36_300_000_000_000)
    );
    assert_eq!(err(&t, "\"-xyz\""), "Unable to convert 'xyz' to a duration");
    assert_eq!(
        err(&t, "\"2m3m\""),
        "Invalid duration. The minutes are specified multiple times"
    );
}
