//! Literal constants typed by their receiver: the entry point of `literals`. A string
//! constant for a tuple is read field by field (`tuple_string`); every other constant by its
//! type's own rules (`constant`). Also here: negating a typed number, and sorting set
//! elements and map entries in their type's order.
//!
//! The recursion "a tuple string's field is a constant" runs downwards only: `tuple_string`
//! reads fields through `constant`, never through this file, so the three files form no loop.

use std::cmp::Ordering;

use cql::statement::ast::Literal;
use cql::types::marshal::Composite;
use cql::types::{codec, ordering, ColumnType, CqlValue};

use super::composite_string::composite_from_text;
use super::constant::constant_value;
use super::tuple_string::tuple_from_string;
use super::Receiver;
use crate::error::ValueError;

/// Types `lit` for `receiver`.
pub(crate) fn literal_value(lit: &Literal, receiver: Receiver<'_>) -> Result<CqlValue, ValueError> {
    match (receiver.ty, lit) {
        (ColumnType::Tuple(_), Literal::String(s)) => tuple_from_string(s, receiver),
        // Cassandra reads every constant but a blob for a custom type by its `fromString`.
        (ColumnType::Custom(_), Literal::String(text) | Literal::Integer(text)) => {
            match Composite::of(receiver.ty) {
                Some(composite) => {
                    let kind = if matches!(lit, Literal::String(_)) {
                        "STRING"
                    } else {
                        "INTEGER"
                    };
                    composite_from_text(text, kind, receiver, &composite)
                }
                None => constant_value(lit, receiver),
            }
        }
        _ => constant_value(lit, receiver),
    }
}

/// Negates a typed numeric value.
pub(crate) fn negate(value: CqlValue, receiver: Receiver<'_>) -> Result<CqlValue, ValueError> {
    Ok(match value {
        CqlValue::Int(v) => CqlValue::Int(v.wrapping_neg()),
        CqlValue::Bigint(v) => CqlValue::Bigint(v.wrapping_neg()),
        CqlValue::Smallint(v) => CqlValue::Smallint(v.wrapping_neg()),
        CqlValue::Tinyint(v) => CqlValue::Tinyint(v.wrapping_neg()),
        CqlValue::Float(v) => CqlValue::Float(-v),
        CqlValue::Double(v) => CqlValue::Double(-v),
        _ => {
            return Err(ValueError::NotNegatable {
                ty: receiver.ty.clone().into(),
                column: receiver.name.to_string(),
            })
        }
    })
}

/// `items` with each one's sort key serialized once, stably sorted by those bytes in the
/// order of `ty`: O(n log n) comparisons, and no serialization inside them.
fn sorted_by_key<T>(
    items: Vec<T>,
    key: impl Fn(&T) -> &CqlValue,
    ty: &ColumnType,
) -> Vec<(Vec<u8>, T)> {
    let mut keyed: Vec<(Vec<u8>, T)> = items
        .into_iter()
        .map(|item| {
            let mut bytes = Vec::new();
            codec::serialize_value(key(&item), &mut bytes);
            (bytes, item)
        })
        .collect();
    keyed.sort_by(|a, b| ordering::compare(ty, &a.0, &b.0));
    keyed
}

/// Sorts and deduplicates set elements in the element type's order (the first of equal
/// elements stays).
pub(crate) fn sort_set(values: Vec<CqlValue>, element: &ColumnType) -> Vec<CqlValue> {
    let mut keyed = sorted_by_key(values, |v| v, element);
    keyed.dedup_by(|a, b| ordering::compare(element, &a.0, &b.0) == Ordering::Equal);
    keyed.into_iter().map(|(_, v)| v).collect()
}

/// Sorts map entries by key; for equal keys the first key and the last value given win.
pub(crate) fn sort_map(
    entries: Vec<(CqlValue, CqlValue)>,
    key: &ColumnType,
) -> Vec<(CqlValue, CqlValue)> {
    let keyed = sorted_by_key(entries, |(k, _)| k, key);
    let mut out: Vec<(Vec<u8>, (CqlValue, CqlValue))> = Vec::with_capacity(keyed.len());
    for (bytes, (k, v)) in keyed {
        match out.last_mut() {
            // The sort is stable: a later equal key came later in the input.
            Some(last) if ordering::compare(key, &last.0, &bytes) == Ordering::Equal => {
                last.1 .1 = v;
            }
            _ => out.push((bytes, (k, v))),
        }
    }
    out.into_iter().map(|(_, entry)| entry).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recv(ty: &ColumnType) -> Receiver<'_> {
        Receiver { name: "c", ty }
    }

    #[test]
    fn mismatched_constants_use_cassandra_wording() {
        let err =
            literal_value(&Literal::String("abc".into()), recv(&ColumnType::Int)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid STRING constant (abc) for \"c\" of type int"
        );
        let err = literal_value(
            &Literal::Integer("3000000000".into()),
            recv(&ColumnType::Int),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "Unable to make int from '3000000000'");
    }

    fn message(lit: Literal, ty: &ColumnType) -> String {
        match literal_value(&lit, recv(ty)) {
            Err(e) => e.to_string(),
            Ok(v) => format!("accepted as {v:?}"),
        }
    }

    #[test]
    fn type_specific_messages_are_cassandras() {
        use ColumnType as T;
        let int = |s: &str| Literal::Integer(s.into());
        let string = |s: &str| Literal::String(s.into());
        assert_eq!(
            message(int("32768"), &T::Smallint),
            "Unable to make short from '32768'"
        );
        assert_eq!(
            message(int("128"), &T::Tinyint),
            "Unable to make byte from '128'"
        );
        assert_eq!(
            message(int("9223372036854775808"), &T::Bigint),
            "Unable to make long from '9223372036854775808'"
        );
        assert_eq!(
            message(Literal::Float("1e2147483649".into()), &T::Decimal),
            "unable to make BigDecimal from '1e2147483649'"
        );
        assert_eq!(
            message(int("-123"), &T::Date),
            "Unable to make unsigned int (for date) from: '-123'"
        );
        assert_eq!(
            message(string("01:02"), &T::Time),
            "(TimeType) Unable to coerce '01:02' to a formatted time (long)"
        );
        let v4 = uuid::Uuid::from_u128(0x4000 << 64);
        assert_eq!(
            message(Literal::Uuid(v4), &T::Timeuuid),
            "TimeUUID supports only version 1 UUIDs"
        );
        assert_eq!(
            message(string("00000000-0000-4000-0000-000000000000"), &T::Uuid),
            "Invalid STRING constant (00000000-0000-4000-0000-000000000000) for \"c\" of type uuid"
        );
        assert_eq!(
            message(string("1h"), &T::Duration),
            "Invalid STRING constant (1h) for \"c\" of type duration"
        );
        assert_eq!(
            message(int("5"), &T::Duration),
            "Unable to convert '5' to a duration"
        );
        assert_eq!(
            message(Literal::Duration("-1h30m".into()), &T::Duration),
            format!(
                "accepted as {:?}",
                CqlValue::Duration {
                    months: 0,
                    days: 0,
                    nanoseconds: -5_400_000_000_000
                }
            )
        );
        assert_eq!(
            message(int("1296705900000"), &T::Timestamp),
            "accepted as Timestamp(1296705900000)"
        );
    }

    /// The path of a long literal from statement text to a typed value: 300,000 digits (14 s
    /// on a runtime worker before the conversion went to `num-bigint`) parse and convert in
    /// a debug build in well under a second; past the limit the refusal says why.
    #[test]
    fn long_numeric_literals_convert_and_oversized_ones_are_refused() {
        let digits = "7".repeat(300_000);
        let text = format!("INSERT INTO ks.t (k, v) VALUES (0, {digits}.5)");
        let parsed = cql::statement::parse_statement(&text).expect("parses");
        assert!(parsed.to_string().contains(&format!("{digits}.5")));
        let value = literal_value(&Literal::Integer(digits.clone()), recv(&ColumnType::Varint))
            .expect("varint");
        let CqlValue::Varint(bytes) = &value else {
            panic!("not a varint: {value:?}");
        };
        assert_eq!(
            cql::types::number_text::varint_to_text(bytes).as_deref(),
            Ok(digits.as_str())
        );
        let value = literal_value(
            &Literal::Float(format!("-{digits}.5")),
            recv(&ColumnType::Decimal),
        )
        .expect("decimal");
        assert!(matches!(value, CqlValue::Decimal { scale: 1, .. }));

        let too_long = "1".repeat(cql::types::number_text::MAX_DIGITS + 1);
        assert_eq!(
            message(Literal::Integer(too_long.clone()), &ColumnType::Varint),
            "unable to make int: a number of 1000001 digits exceeds the maximum of 1000000 digits"
        );
        assert_eq!(
            message(Literal::Float(format!("{too_long}.0")), &ColumnType::Decimal),
            "unable to make BigDecimal: a number of 1000002 digits exceeds the maximum of 1000000 digits"
        );
    }

    /// Sorting is by the type's order, the last value given for a key wins, and 65,535
    /// entries (once quadratic: a minute of a runtime worker) sort in one pass.
    #[test]
    fn maps_and_sets_sort_by_type_order_and_deduplicate() {
        let entries = vec![
            (CqlValue::Int(2), CqlValue::Int(1)),
            (CqlValue::Int(-1), CqlValue::Int(2)),
            (CqlValue::Int(2), CqlValue::Int(3)),
        ];
        assert_eq!(
            sort_map(entries, &ColumnType::Int),
            vec![
                (CqlValue::Int(-1), CqlValue::Int(2)),
                (CqlValue::Int(2), CqlValue::Int(3))
            ]
        );
        let set = vec![CqlValue::Int(3), CqlValue::Int(-3), CqlValue::Int(3)];
        assert_eq!(
            sort_set(set, &ColumnType::Int),
            vec![CqlValue::Int(-3), CqlValue::Int(3)]
        );
        let many: Vec<_> = (0..65_535)
            .rev()
            .map(|i| (CqlValue::Text(format!("k{i:05}")), CqlValue::Int(i)))
            .collect();
        let sorted = sort_map(many, &ColumnType::Text);
        assert_eq!(sorted.len(), 65_535);
        assert_eq!(
            sorted[0],
            (CqlValue::Text("k00000".into()), CqlValue::Int(0))
        );
    }
}
