//! Values as text, the way `CAST(x AS text)` renders them (Cassandra's `toCQLLiteral` of each
//! serializer): Java's `Float.toString`/`Double.toString`, `BigDecimal.toString`, ISO-8601
//! timestamps in UTC with milliseconds, `HH:mm:ss.nnnnnnnnn` times, Java's inet forms.

use cql::types::number_text::{decimal_to_text, varint_to_text, NumberTextError};
use cql::types::{codec, ColumnType, CqlValue};

use crate::error::{CqlResult, ValueError};
use crate::eval::datetime::print::{format_date, format_time, format_timestamp};
use crate::eval::functions::numeric::Number;
use crate::eval::java_text::{java_double, java_float, java_inet};

/// The text `CAST(value AS text)` gives for a serialized value of type `ty`.
///
/// # Errors
///
/// A value that does not decode as `ty`.
pub(crate) fn cast_text(ty: &ColumnType, bytes: &[u8]) -> CqlResult<String> {
    let too_long = |err: NumberTextError| ValueError::NumberText(err).into();
    match ty {
        ColumnType::Varint => return varint_to_text(bytes).map_err(too_long),
        ColumnType::Decimal => {
            let (scale, unscaled) = bytes
                .split_first_chunk::<4>()
                .ok_or(ValueError::InvalidDecimal)?;
            return decimal_to_text(unscaled, i32::from_be_bytes(*scale)).map_err(too_long);
        }
        _ => {}
    }
    if let Some(n) = Number::decode(ty, bytes).ok().flatten() {
        return Ok(match n {
            Number::Integer(i) => i.to_string(),
            Number::Varint(i) => i.to_string(),
            Number::Float(f) => java_float(f),
            Number::Double(d) => java_double(d),
            Number::Decimal(d) => crate::eval::functions::decimal::java_string(&d),
        });
    }
    let value = codec::deserialize_value(ty, bytes).map_err(ValueError::Codec)?;
    Ok(match value {
        CqlValue::Ascii(s) | CqlValue::Text(s) => s,
        CqlValue::Boolean(b) => b.to_string(),
        CqlValue::Inet(ip) => java_inet(&ip),
        CqlValue::Timestamp(ms) => format_timestamp(ms),
        CqlValue::Date(d) => format_date(d),
        CqlValue::Time(n) => format_time(n),
        CqlValue::Uuid(u) | CqlValue::Timeuuid(u) => u.to_string(),
        other => {
            return Err(ValueError::NotRenderable {
                value: other.into(),
            }
            .into())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_print_like_cassandra() {
        assert_eq!(
            format_timestamp(1_432_206_182_000),
            "2015-05-21T11:03:02.000Z"
        );
        assert_eq!(format_timestamp(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(format_date((1u32 << 31) + 16_576), "2015-05-21");
        assert_eq!(format_time(39_782_000_000_000), "11:03:02.000000000");
    }

    #[test]
    fn cast_text_covers_each_family() {
        assert_eq!(
            cast_text(&ColumnType::Int, &7i32.to_be_bytes()).expect("int"),
            "7"
        );
        assert_eq!(
            cast_text(
                &ColumnType::Varint,
                &bigdecimal::num_bigint::BigInt::from(-300).to_signed_bytes_be()
            )
            .expect("varint"),
            "-300"
        );
        assert_eq!(cast_text(&ColumnType::Boolean, &[1]).expect("bool"), "true");
        // Past 128 bits a decimal used to print as 0.
        let mut decimal = 2i32.to_be_bytes().to_vec();
        decimal.extend(
            cql::types::number_text::varint_from_text("-1234567890123456789012345678901234567890")
                .expect("varint"),
        );
        assert_eq!(
            cast_text(&ColumnType::Decimal, &decimal).expect("decimal"),
            "-12345678901234567890123456789012345678.90"
        );
        assert_eq!(
            cast_text(&ColumnType::Decimal, &[0, 0, 0, 1, 0x7b]).expect("decimal"),
            "12.3"
        );
        assert_eq!(
            cast_text(&ColumnType::Inet, &[127, 0, 0, 1]).expect("inet"),
            "127.0.0.1"
        );
        let mut v6 = [0u8; 16];
        v6[15] = 1;
        assert_eq!(
            cast_text(&ColumnType::Inet, &v6).expect("inet"),
            "0:0:0:0:0:0:0:1"
        );
    }
}
