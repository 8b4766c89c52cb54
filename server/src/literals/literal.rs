//! Literal constants typed by their receiver (Cassandra's `Constants.Literal`), with the
//! `Invalid <KIND> constant (...) for "col" of type t` and `Unable to make ...` messages.
//! Which constant kinds a type accepts follows `Constants.Literal.testAssignment` (a string is
//! no `uuid`, an integer is a `duration` candidate); the parse follows each type's
//! `fromString`.

use std::cmp::Ordering;

use cql::statement::ast::Literal;
use cql::types::duration::parse_duration;
use cql::types::number_text::{varint_from_text, NumberTextError};
use cql::types::{codec, ordering, ColumnType, CqlValue};

use super::Receiver;
use crate::datetime::parse as time;
use crate::error::ValueError;

fn kind(lit: &Literal) -> &'static str {
    match lit {
        Literal::String(_) => "STRING",
        Literal::Integer(_) => "INTEGER",
        Literal::Float(_) => "FLOAT",
        Literal::Boolean(_) => "BOOLEAN",
        Literal::Blob(_) => "HEX",
        Literal::Uuid(_) => "UUID",
        Literal::Duration(_) => "DURATION",
        Literal::Null => "NULL",
    }
}

fn raw_text(lit: &Literal) -> String {
    match lit {
        Literal::String(s) | Literal::Integer(s) | Literal::Float(s) | Literal::Duration(s) => {
            s.clone()
        }
        Literal::Boolean(b) => b.to_string(),
        Literal::Blob(b) => format!("0x{}", crate::error::hex(b)),
        Literal::Uuid(u) => u.to_string(),
        Literal::Null => "null".into(),
    }
}

fn mismatch(lit: &Literal, receiver: Receiver<'_>) -> ValueError {
    ValueError::ConstantNotOfType {
        kind: kind(lit),
        text: raw_text(lit),
        column: receiver.name.to_string(),
        ty: receiver.ty.clone().into(),
    }
}

fn unable(what: &'static str, text: &str) -> ValueError {
    ValueError::Unparsable {
        what,
        text: text.to_string(),
    }
}

/// Cassandra's message for text that is no number (in lower case, as `IntegerType` and
/// `DecimalType` spell it); for a number past [`cql::types::number_text::MAX_DIGITS`], why it
/// is refused.
fn number_error(err: NumberTextError, what: &'static str, text: &str) -> ValueError {
    match err {
        NumberTextError::Malformed => ValueError::MalformedNumber {
            what,
            text: text.to_string(),
        },
        NumberTextError::TooManyDigits { .. } | NumberTextError::TooLargeForText { .. } => {
            ValueError::NumberTooLong { what, source: err }
        }
    }
}

/// A `timestamp`, `date` or `time` constant its parser refused with `reason`.
fn temporal(ty: &ColumnType, text: &str, reason: String) -> ValueError {
    ValueError::Temporal {
        ty: ty.clone().into(),
        text: text.to_string(),
        reason,
    }
}

/// Types `lit` for `receiver`.
pub(crate) fn literal_value(lit: &Literal, receiver: Receiver<'_>) -> Result<CqlValue, ValueError> {
    use ColumnType as T;
    let ty = receiver.ty;
    match (ty, lit) {
        (T::Int, Literal::Integer(s)) => s.parse().map(CqlValue::Int).map_err(|_| unable("int", s)),
        (T::Bigint, Literal::Integer(s)) => s
            .parse()
            .map(CqlValue::Bigint)
            .map_err(|_| unable("long", s)),
        (T::Counter, Literal::Integer(s)) => s
            .parse()
            .map(CqlValue::Counter)
            .map_err(|_| unable("long", s)),
        (T::Smallint, Literal::Integer(s)) => s
            .parse()
            .map(CqlValue::Smallint)
            .map_err(|_| unable("short", s)),
        (T::Tinyint, Literal::Integer(s)) => s
            .parse()
            .map(CqlValue::Tinyint)
            .map_err(|_| unable("byte", s)),
        (T::Varint, Literal::Integer(s)) => varint_from_text(s)
            .map(CqlValue::Varint)
            .map_err(|err| number_error(err, "int", s)),
        (T::Float, Literal::Integer(s) | Literal::Float(s)) => parse_float(s)
            .map(|f| CqlValue::Float(f as f32))
            .ok_or_else(|| unable("float", s)),
        (T::Double, Literal::Integer(s) | Literal::Float(s)) => parse_float(s)
            .map(CqlValue::Double)
            .ok_or_else(|| unable("double", s)),
        (T::Decimal, Literal::Integer(s) | Literal::Float(s)) => {
            decimal(s).map_err(|err| number_error(err, "BigDecimal", s))
        }
        (T::Text, Literal::String(s)) => Ok(CqlValue::Text(s.clone())),
        (T::Ascii, Literal::String(s)) => {
            if s.is_ascii() {
                Ok(CqlValue::Ascii(s.clone()))
            } else {
                Err(ValueError::NotAscii { text: s.clone() })
            }
        }
        (T::Boolean, Literal::Boolean(b)) => Ok(CqlValue::Boolean(*b)),
        (T::Blob, Literal::Blob(b)) => Ok(CqlValue::Blob(b.clone())),
        (T::Uuid, Literal::Uuid(u)) => Ok(CqlValue::Uuid(*u)),
        (T::Timeuuid, Literal::Uuid(u)) => {
            if u.get_version_num() == 1 {
                Ok(CqlValue::Timeuuid(*u))
            } else {
                Err(ValueError::TimeuuidVersion)
            }
        }
        // `TimestampType`, `SimpleDateType` and `TimeType` parse integer constants as text too.
        (T::Timestamp, Literal::Integer(s) | Literal::String(s)) => time::timestamp_from_string(s)
            .map(CqlValue::Timestamp)
            .map_err(|reason| temporal(ty, s, reason)),
        (T::Date, Literal::Integer(s) | Literal::String(s)) => time::date_from_string(s)
            .map(CqlValue::Date)
            .map_err(|reason| temporal(ty, s, reason)),
        (T::Time, Literal::Integer(s) | Literal::String(s)) => time::time_from_string(s)
            .map(CqlValue::Time)
            .map_err(|reason| temporal(ty, s, reason)),
        // `DurationType.fromString`: an integer constant is assignable but never a duration.
        (T::Duration, Literal::Duration(s) | Literal::Integer(s)) => parse_duration(s)
            .map(|d| CqlValue::Duration {
                months: d.months,
                days: d.days,
                nanoseconds: d.nanoseconds,
            })
            .map_err(ValueError::Duration),
        (T::Inet, Literal::String(s)) => s
            .parse()
            .map(CqlValue::Inet)
            .map_err(|_| unable("inet address", s)),
        (T::Custom(_), Literal::Blob(b)) => Ok(CqlValue::Blob(b.clone())),
        (T::Tuple(_), Literal::String(s)) => super::tuple_string::tuple_from_string(s, receiver),
        _ => Err(mismatch(lit, receiver)),
    }
}

fn parse_float(s: &str) -> Option<f64> {
    match s {
        "NaN" | "-NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
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

/// A `decimal` from its text (`-1.5`, `1.23E-12`), as `new BigDecimal(String)` reads it.
///
/// # Errors
///
/// [`NumberTextError::Malformed`] for text that is no decimal (or whose scale overflows an
/// `int`), [`NumberTextError::TooManyDigits`] past [`cql::types::number_text::MAX_DIGITS`].
pub(crate) fn decimal(text: &str) -> Result<CqlValue, NumberTextError> {
    let lower = text.to_ascii_lowercase();
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().map_err(|_| NumberTextError::Malformed)?),
        None => (lower.as_str(), 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int_part}{frac_part}");
    let unscaled = varint_from_text(&digits)?;
    let scale = i32::try_from(frac_part.len())
        .ok()
        .and_then(|len| len.checked_sub(exponent))
        .ok_or(NumberTextError::Malformed)?;
    Ok(CqlValue::Decimal { unscaled, scale })
}

fn serialized(v: &CqlValue) -> Vec<u8> {
    let mut out = Vec::new();
    codec::serialize_value(v, &mut out);
    out
}

fn compare_values(ty: &ColumnType, a: &CqlValue, b: &CqlValue) -> Ordering {
    ordering::compare(ty, &serialized(a), &serialized(b))
}

/// Sorts and deduplicates set elements in the element type's order.
pub(crate) fn sort_set(mut values: Vec<CqlValue>, element: &ColumnType) -> Vec<CqlValue> {
    values.sort_by(|a, b| compare_values(element, a, b));
    values.dedup_by(|a, b| compare_values(element, a, b) == Ordering::Equal);
    values
}

/// Sorts map entries by key; the last value given for a key wins.
pub(crate) fn sort_map(
    entries: Vec<(CqlValue, CqlValue)>,
    key: &ColumnType,
) -> Vec<(CqlValue, CqlValue)> {
    let mut out: Vec<(CqlValue, CqlValue)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        match out
            .iter_mut()
            .find(|(existing, _)| compare_values(key, existing, &k) == Ordering::Equal)
        {
            Some(slot) => slot.1 = v,
            None => out.push((k, v)),
        }
    }
    out.sort_by(|a, b| compare_values(key, &a.0, &b.0));
    out
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

    #[test]
    fn decimals_keep_scale() {
        assert_eq!(
            decimal("123.45"),
            Ok(CqlValue::Decimal {
                unscaled: vec![0x30, 0x39],
                scale: 2
            })
        );
        assert_eq!(decimal("1.5e"), Err(NumberTextError::Malformed));
        assert_eq!(decimal("1e2147483649"), Err(NumberTextError::Malformed));
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
}
