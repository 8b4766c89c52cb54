//! Constants of the types that read them by themselves (Cassandra's `Constants.Literal`):
//! every native type, and a custom type from a blob, with the `Invalid <KIND> constant (...)
//! for "col" of type t` and `Unable to make ...` messages. Which constant kinds a type accepts
//! follows `Constants.Literal.testAssignment` (a string is no `uuid`, an integer is a
//! `duration` candidate); the parse follows each type's `fromString`.
//!
//! This is the bottom of `literals`: `tuple_string` reads each field of a tuple string here,
//! and `literal` sends every constant here but a tuple's string, which it hands to
//! `tuple_string`. The recursion of tuples within tuples stays inside `tuple_string`.

use cql::statement::ast::Literal;
use cql::types::duration::parse_duration;
use cql::types::number_text::{varint_from_text, NumberTextError};
use cql::types::{ColumnType, CqlValue};

use super::Receiver;
use crate::error::ValueError;
use crate::eval::datetime::parse as time;

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

/// Types `lit` for a receiver that reads constants by itself: every native type, and a
/// custom type from a blob. Any other pairing (a constant for a collection, a UDT, or a tuple
/// other than from a string) is Cassandra's `Invalid <KIND> constant` mismatch.
pub(super) fn constant_value(
    lit: &Literal,
    receiver: Receiver<'_>,
) -> Result<CqlValue, ValueError> {
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
            // Java's US-ASCII encoder reports the first character it cannot map, by its
            // length in UTF-16 units.
            match s.chars().find(|c| !c.is_ascii()) {
                None => Ok(CqlValue::Ascii(s.clone())),
                Some(c) => Err(ValueError::NotAscii {
                    input_length: c.len_utf16(),
                }),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
